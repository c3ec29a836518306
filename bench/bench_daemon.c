/*
 * bench_daemon.c - see bench_daemon.h: start/stop a private heliod, read its
 * STATS, generate WAVs, read RSS. Plain POSIX + libsndfile + libheliod; used
 * only by the benchmark programs.
 */
#include "bench_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sndfile.h>

#define BD_POLL_S     0.02 /* retry interval while waiting for the daemon */
#define BD_WAV_AMP    0.5  /* noise amplitude in generated WAVs (-6 dBFS) */
#define BD_NOFD_LIMIT 16   /* nftw descriptor budget */
#define BD_LINE       256

uint64_t bd_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * BD_NS_PER_S + (uint64_t)ts.tv_nsec;
}

void bd_sleep(double s) {
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * (double)BD_NS_PER_S);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int bd_heliod_path(const char *arg, char *out, size_t cap) {
    const char *env = getenv("HELIOD_BIN");
    int n;
    if (arg && arg[0]) {
        n = snprintf(out, cap, "%s", arg);
    } else if (env && env[0]) {
        n = snprintf(out, cap, "%s", env);
    } else {
        char self[BD_PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) return HELIOD_EINVAL;
        self[len] = '\0';
        n = snprintf(out, cap, "%s/../daemon/heliod", dirname(self));
    }
    return (n < 0 || (size_t)n >= cap) ? HELIOD_EINVAL : 0;
}

int bd_connect(const bd_daemon_t *d, const char *name, heliod_t **h) {
    return heliod_connect(h, d->socket, name);
}

int bd_daemon_start(bd_daemon_t *d, const char *heliod, const char *const *args, heliod_t **h) {
    memset(d, 0, sizeof *d);
    d->pid = -1;
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(d->dir, sizeof d->dir, "%s/heliod-bench-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (n < 0 || (size_t)n >= sizeof d->dir) return HELIOD_EINVAL;
    if (!mkdtemp(d->dir)) {
        perror("mkdtemp");
        return HELIOD_EIO;
    }
    snprintf(d->socket, sizeof d->socket, "%s/heliod.sock", d->dir);
    snprintf(d->log, sizeof d->log, "%s/heliod.log", d->dir);

    const char *argv[BD_MAX_ARGS + 4];
    size_t k = 0;
    argv[k++] = heliod;
    argv[k++] = "--socket";
    argv[k++] = d->socket;
    for (size_t i = 0; args && args[i] && i < BD_MAX_ARGS; i++)
        argv[k++] = args[i];
    argv[k] = NULL;

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return HELIOD_EIO;
    }
    if (pid == 0) {
        int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execv(heliod, (char *const *)argv);
        perror("execv heliod");
        _exit(127);
    }
    d->pid = pid;

    uint64_t deadline = bd_now_ns() + (uint64_t)(BD_START_TIMEOUT * (double)BD_NS_PER_S);
    int rc = HELIOD_ECONNECT;
    while (bd_now_ns() < deadline) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            fprintf(stderr, "# heliod exited during start-up (status %d); log: %s\n", status,
                    d->log);
            d->pid = -1;
            return HELIOD_ECONNECT;
        }
        if (access(d->socket, F_OK) == 0) {
            rc = heliod_connect_flags(h, d->socket, "heliod-bench", HELIOD_CONNECT_CONTROL);
            if (rc == 0) return 0;
        }
        bd_sleep(BD_POLL_S);
    }
    fprintf(stderr, "# cannot connect to heliod: %s; log: %s\n", heliod_strerror(rc), d->log);
    bd_daemon_stop(d, 1);
    return rc;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int bd_daemon_stop(bd_daemon_t *d, int keep_dir) {
    int result = -1;
    if (d->pid > 0) {
        kill(d->pid, SIGTERM);
        uint64_t deadline = bd_now_ns() + (uint64_t)(BD_STOP_TIMEOUT * (double)BD_NS_PER_S);
        int status = 0;
        for (;;) {
            pid_t r = waitpid(d->pid, &status, WNOHANG);
            if (r == d->pid) {
                result = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                break;
            }
            if (r < 0 || bd_now_ns() > deadline) {
                fprintf(stderr, "# heliod did not exit after SIGTERM: killing it\n");
                kill(d->pid, SIGKILL);
                waitpid(d->pid, &status, 0);
                break;
            }
            bd_sleep(BD_POLL_S);
        }
        d->pid = -1;
    }
    if (!keep_dir && d->dir[0]) nftw(d->dir, rm_entry, BD_NOFD_LIMIT, FTW_DEPTH | FTW_PHYS);
    return result;
}

int bd_stats(heliod_t *h, bd_stats_t *out, int reset) {
    out->n = 0;
    return heliod_stats(h, out->s, BD_MAX_STATS, &out->n, reset);
}

double bd_stat(const bd_stats_t *st, const char *key) {
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->s[i].key, key) == 0) return st->s[i].value;
    return NAN;
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int bd_write_noise_wav(const char *path, uint32_t frames, uint64_t seed) {
    SF_INFO info;
    memset(&info, 0, sizeof info);
    info.samplerate = BD_RATE;
    info.channels = 1;
    info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
    float *buf = malloc(sizeof(float) * (frames ? frames : 1));
    if (!buf) return HELIOD_ENOMEM;
    uint64_t s = seed;
    for (uint32_t i = 0; i < frames; i++) {
        double u = (double)(splitmix64(&s) >> 11) / (double)(1ull << 53); /* [0, 1) */
        buf[i] = (float)(BD_WAV_AMP * (2.0 * u - 1.0));
    }
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    int rc = 0;
    if (!f || sf_writef_float(f, buf, frames) != (sf_count_t)frames) {
        fprintf(stderr, "# cannot write %s: %s\n", path, sf_strerror(f));
        rc = HELIOD_EIO;
    }
    if (f) sf_close(f);
    free(buf);
    return rc;
}

long bd_rss_kib(pid_t pid) {
    char path[BD_LINE], line[BD_LINE];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1) break;
    fclose(f);
    return kib;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bd_percentile(double *v, size_t n, double p) {
    if (n == 0) return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return v[rank - 1];
}
