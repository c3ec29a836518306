/*
 * test_lifecycle.c - the daemon's life under a supervisor: systemd's notify
 * protocol and watchdog, the time-bounded shutdown, memory locking.
 *
 *   test_lifecycle notify     NOTIFY_SOCKET + WATCHDOG_USEC=200000: READY=1,
 *                             several WATCHDOG=1, STOPPING=1 at SIGTERM
 *   test_lifecycle audiostall the null driver's audio thread alone is frozen
 *                             (ptrace): the event loop runs, the WATCHDOG=1
 *                             pings stop, and resume with the thread. (A
 *                             stalled PortAudio device is no test: device.c
 *                             falls back to the null driver, by design.)
 *   test_lifecycle stall      HELIOD_TEST_SHUTDOWN_STALL_MS makes the orderly
 *                             teardown hang: the process still exits 0
 *                             within 1 s and the recording is finalised
 *   test_lifecycle fuse       a LOAD from a FUSE mount nobody serves hangs a
 *                             loader thread in open(): real hung I/O; exit 0
 *                             within 1 s (77 without root or /dev/fuse)
 *   test_lifecycle decoder   a streamed play whose open sleeps 20 s in a
 *                             decoder thread (decoder.c's test hook
 *                             HELIOD_TEST_OPEN_DELAY): exit 0 within 1 s
 *   test_lifecycle mlock      RLIMIT_MEMLOCK unlimited: mlockall; a finite
 *                             limit: an info line with the limit, the mixer
 *                             still locked
 *
 * notify and audiostall need heliod built with libsystemd (77 otherwise).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"
#include "hl_config.h"

#define SKIP             77
#define WATCHDOG_USEC    "200000" /* pings every 100 ms */
#define SHUTDOWN_LIMIT_S 1.0

/* The last daemon started: a failed assertion leaves the test function
 * without stopping it, and a daemon holding the test's stderr would keep
 * meson waiting until the timeout; main() kills it. */
static pid_t g_daemon;

static int start(th_daemon_t *d, int record, const char *const *args) {
    int rc = th_daemon_start(d, record, args);
    g_daemon = rc == 0 ? d->pid : 0;
    return rc;
}

static int finish(int rc) {
    if (g_daemon > 0 && waitpid(g_daemon, NULL, WNOHANG) == 0) {
        kill(g_daemon, SIGKILL);
        waitpid(g_daemon, NULL, 0);
    }
    return rc;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- notify socket ---------------------------------------------------------- */

typedef struct {
    int fd;
    char dir[48], path[96];
    int ready, watchdog, stopping;
} notify_t;

static void notify_open(notify_t *n) {
    memset(n, 0, sizeof *n);
    snprintf(n->dir, sizeof n->dir, "/tmp/heliod-notify-XXXXXX");
    assert_non_null(mkdtemp(n->dir));
    snprintf(n->path, sizeof n->path, "%s/notify", n->dir);
    n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(n->fd >= 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", n->path);
    assert_int_equal(bind(n->fd, (struct sockaddr *)&a, sizeof a), 0);
    setenv("NOTIFY_SOCKET", n->path, 1);
    setenv("WATCHDOG_USEC", WATCHDOG_USEC, 1);
    unsetenv("WATCHDOG_PID"); /* unset: any pid may ping (the child's is not known yet) */
}

/* Counts the datagrams that arrive within ms milliseconds. */
static void notify_collect(notify_t *n, int ms) {
    double end = now_s() + ms / 1000.0;
    for (;;) {
        int left = (int)((end - now_s()) * 1000);
        if (left <= 0) break;
        struct pollfd p = {.fd = n->fd, .events = POLLIN};
        if (poll(&p, 1, left) <= 0) continue;
        char buf[256];
        ssize_t r = recv(n->fd, buf, sizeof buf - 1, 0);
        if (r <= 0) continue;
        buf[r] = 0;
        /* one datagram may carry several newline-separated assignments */
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
            if (strcmp(line, "READY=1") == 0) n->ready++;
            if (strcmp(line, "WATCHDOG=1") == 0) n->watchdog++;
            if (strcmp(line, "STOPPING=1") == 0) n->stopping++;
        }
    }
}

/* Collects until *count reaches want (10 s at most: a loaded or slow machine
 * gets there later, not never); returns the milliseconds it took. */
static double notify_until(notify_t *n, const int *count, int want) {
    double t0 = now_s();
    while (*count < want && now_s() - t0 < 10.0)
        notify_collect(n, 20);
    return (now_s() - t0) * 1000.0;
}

static void notify_close(notify_t *n) {
    unsetenv("NOTIFY_SOCKET");
    unsetenv("WATCHDOG_USEC");
    close(n->fd);
    unlink(n->path);
    rmdir(n->dir);
}

static int log_has(const th_daemon_t *d, const char *needle) {
    FILE *f = fopen(d->log, "r");
    if (!f) return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

static void dump_log(const th_daemon_t *d) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "sed 's/^/  log: /' '%s' >&2", d->log);
    if (system(cmd) != 0) fprintf(stderr, "(no log)\n");
}

/* ---- notify ----------------------------------------------------------------- */

static void test_notify(void **state) {
    (void)state;
    notify_t n;
    notify_open(&n);
    th_daemon_t d;
    assert_int_equal(start(&d, 0, NULL), 0);
    notify_until(&n, &n.ready, 1);
    assert_int_equal(n.ready, 1);
    double ms = notify_until(&n, &n.watchdog, 4); /* every 100 ms */
    fprintf(stderr, "# %d WATCHDOG=1 in %.0f ms\n", n.watchdog, ms);
    assert_true(n.watchdog >= 4);
    assert_int_equal(n.stopping, 0);
    double secs = 0;
    assert_int_equal(th_daemon_stop(&d, &secs), 0);
    notify_collect(&n, 100);
    assert_int_equal(n.stopping, 1);
    assert_true(log_has(&d, "shutdown_ms="));
    th_daemon_cleanup(&d);
    notify_close(&n);
}

/* ---- the audio thread stalls, the pings stop ----------------------------------- */

/* The null driver's audio thread is frozen alone (ptrace stops one thread,
 * not the process): the event loop still answers, the callbacks stop, and
 * so must the WATCHDOG=1 pings; they come back when it runs again. */
static void test_audio_stall(void **state) {
    (void)state;
    notify_t n;
    notify_open(&n);
    th_daemon_t d;
    assert_int_equal(start(&d, 0, NULL), 0);
    notify_until(&n, &n.ready, 1);
    assert_int_equal(n.ready, 1);
    notify_until(&n, &n.watchdog, 2);
    assert_true(n.watchdog >= 2);
    pid_t tid = th_freeze_thread(d.pid, "heliod-audio");
    assert_true(tid != 0);
    if (tid < 0) {
        th_daemon_cleanup(&d);
        notify_close(&n);
        skip();
    }
    /* one ping decided before the freeze may still arrive, however late a
     * loaded machine delivers it; a ping every 100 ms would be 7 */
    n.watchdog = 0;
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "life"), 0); /* the loop answers */
    double cb0 = th_stat(h, "callbacks");
    notify_collect(&n, 750);
    double cb1 = th_stat(h, "callbacks");
    heliod_close(h);
    int stalled_pings = n.watchdog;
    assert_int_equal(th_thaw_thread(tid), 0);
    fprintf(stderr, "# audio thread frozen: %d WATCHDOG=1 in 750 ms, callbacks %+.0f\n",
            stalled_pings, cb1 - cb0);
    n.watchdog = 0;
    double ms = notify_until(&n, &n.watchdog, 2);
    fprintf(stderr, "# running again: %d WATCHDOG=1 in %.0f ms\n", n.watchdog, ms);
    assert_true(cb1 == cb0);
    assert_true(stalled_pings <= 1);
    assert_true(n.watchdog >= 2);
    assert_true(log_has(&d, "withholding the watchdog ping"));
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
    notify_close(&n);
}

/* ---- shutdown with a stalled teardown ------------------------------------------ */

static void play_tone(th_daemon_t *d) {
    char tone[400];
    snprintf(tone, sizeof tone, "%s/tone.wav", d->dir);
    assert_int_equal(th_write_sine(tone, 48000, 0.5, 440.0, 0.3), 0);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d->sock, "life"), 0);
    assert_int_equal(heliod_load(h, "tone", tone, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_DETACHED;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "tone", &pp, &v, NULL), 0);
    /* 300 ms of engine time recorded (check_recording wants 200 ms) */
    heliod_clock_t k;
    assert_int_equal(heliod_clock(h, &k), 0);
    uint64_t until = k.frame + k.rate * 3 / 10;
    for (int i = 0; i < 1000 && k.frame < until; i++) {
        th_sleep_ms(10);
        assert_int_equal(heliod_clock(h, &k), 0);
    }
    assert_true(k.frame >= until);
    heliod_close(h);
}

static void check_recording(const th_daemon_t *d) {
    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(d->record, &x, &frames, &ch, &rate), 0);
    double peak = 0;
    for (size_t i = 0; i < frames * (size_t)ch; i++)
        peak = fmax(peak, fabs((double)x[i]));
    free(x);
    fprintf(stderr, "# recording: %zu frames, peak %.2f\n", frames, peak);
    assert_true(frames >= 48000 / 5); /* the header says how much: the file was finalised */
    assert_true(peak > 0.1);
}

static void test_shutdown_stall(void **state) {
    (void)state;
    setenv("HELIOD_TEST_SHUTDOWN_STALL_MS", "10000", 1);
    th_daemon_t d;
    int started = start(&d, 1, NULL);
    unsetenv("HELIOD_TEST_SHUTDOWN_STALL_MS");
    assert_int_equal(started, 0);
    play_tone(&d);
    double secs = 0;
    int rc = th_daemon_stop(&d, &secs);
    fprintf(stderr, "# shutdown with a stalled teardown: %.0f ms, status %d\n", secs * 1000, rc);
    if (rc != 0 || secs >= SHUTDOWN_LIMIT_S) dump_log(&d);
    assert_int_equal(rc, 0);
    assert_true(secs < SHUTDOWN_LIMIT_S);
    assert_true(log_has(&d, "hard exit"));
    assert_true(log_has(&d, "shutdown_ms="));
    assert_true(log_has(&d, "recording finalised"));
    check_recording(&d);
    th_daemon_cleanup(&d);
}

/* ---- shutdown with a loader hung in I/O (FUSE mount that is never served) ------ */

static void test_shutdown_fuse(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(start(&d, 1, NULL), 0);
    char mnt[400], opts[160], path[500];
    snprintf(mnt, sizeof mnt, "%s/mnt", d.dir);
    assert_int_equal(mkdir(mnt, 0700), 0);
    int fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=%d,group_id=%d", fuse, (int)getuid(),
             (int)getgid());
    if (fuse < 0 || mount("heliodtest", mnt, "fuse", MS_NOSUID | MS_NODEV, opts) != 0) {
        fprintf(stderr, "# cannot mount FUSE (%s): skipped\n", strerror(errno));
        if (fuse >= 0) close(fuse);
        th_daemon_cleanup(&d);
        skip();
    }
    /* Nobody answers FUSE_INIT: every lookup under mnt now waits in the
     * kernel (killable only) - a loader thread's open() hangs for good. */
    play_tone(&d);
    snprintf(path, sizeof path, "%s/hung.wav", mnt);
    pid_t client = fork();
    if (client == 0) {
        heliod_t *h = NULL;
        if (heliod_connect(&h, d.sock, "hung-load") == 0) heliod_load(h, "hung", path, 0, NULL);
        _exit(0);
    }
    assert_true(client > 0);
    th_sleep_ms(300);
    double secs = 0;
    int rc = th_daemon_stop(&d, &secs);
    fprintf(stderr, "# shutdown with a loader hung in open(): %.0f ms, status %d\n", secs * 1000,
            rc);
    if (rc != 0 || secs >= SHUTDOWN_LIMIT_S) dump_log(&d);
    waitpid(client, NULL, 0);
    umount2(mnt, MNT_DETACH);
    close(fuse); /* aborts the connection: anything still waiting fails */
    assert_int_equal(rc, 0);
    assert_true(secs < SHUTDOWN_LIMIT_S);
    assert_true(log_has(&d, "shutdown_ms="));
    assert_true(log_has(&d, "hard exit")); /* the hang was real: the guard ended it */
    check_recording(&d); /* finalised by the orderly path before the guard fired */
    th_daemon_cleanup(&d);
}

/* ---- shutdown with a decoder thread stuck in a slow open ------------------------ */

static void test_shutdown_decoder(void **state) {
    (void)state;
    setenv("HELIOD_TEST_OPEN_DELAY", "20000:hungopen", 1); /* decoder.c's test hook */
    setenv("HELIOD_TEST_FILE_OPEN_DELAY", "", 1); /* the LOAD opens at once, the play hangs */
    th_daemon_t d;
    int started = start(&d, 1, NULL);
    unsetenv("HELIOD_TEST_OPEN_DELAY");
    unsetenv("HELIOD_TEST_FILE_OPEN_DELAY");
    assert_int_equal(started, 0);
    if (!log_has(&d, "HELIOD_TEST_OPEN_DELAY")) {
        fprintf(stderr, "# this heliod has no HELIOD_TEST_OPEN_DELAY hook: skipped\n");
        th_daemon_cleanup(&d);
        skip();
    }
    play_tone(&d);
    char path[400];
    snprintf(path, sizeof path, "%s/hungopen.wav", d.dir);
    assert_int_equal(th_write_sine(path, 48000, 2.0, 330.0, 0.3), 0);
    pid_t client = fork();
    if (client == 0) { /* the play's reply waits for the open: 20 s */
        heliod_t *h = NULL;
        if (heliod_connect(&h, d.sock, "hung-stream") == 0 &&
            heliod_load(h, "slow", path, HELIOD_LOAD_STREAM, NULL) == 0) {
            heliod_play_params_t pp;
            heliod_play_params_init(&pp);
            heliod_voice_t v;
            heliod_play(h, "slow", &pp, &v, NULL);
        }
        _exit(0);
    }
    assert_true(client > 0);
    th_sleep_ms(300);
    double secs = 0;
    int rc = th_daemon_stop(&d, &secs);
    fprintf(stderr, "# shutdown with a decoder open stuck for 20 s: %.0f ms, status %d\n",
            secs * 1000, rc);
    if (rc != 0 || secs >= SHUTDOWN_LIMIT_S) dump_log(&d);
    waitpid(client, NULL, 0);
    assert_int_equal(rc, 0);
    assert_true(secs < SHUTDOWN_LIMIT_S);
    assert_true(log_has(&d, "shutdown_ms="));
    check_recording(&d);
    th_daemon_cleanup(&d);
}

/* ---- memory locking -------------------------------------------------------------- */

static long status_kb(pid_t pid, const char *key) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') v = strtol(line + kl + 1, NULL, 10);
    fclose(f);
    return v;
}

static void test_mlock(void **state) {
    (void)state;
    struct rlimit saved;
    assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &saved), 0);

    /* a finite limit: targeted locking, one info line naming the limit */
    struct rlimit small = {8u << 20, saved.rlim_max};
    if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < small.rlim_cur)
        small.rlim_cur = saved.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &small), 0);
    th_daemon_t d;
    assert_int_equal(start(&d, 1, NULL), 0);
    if (log_has(&d, "memory not locked: sanitizer build")) {
        fprintf(stderr, "# sanitizer build: heliod locks nothing (shadow memory): skipped\n");
        setrlimit(RLIMIT_MEMLOCK, &saved);
        th_daemon_cleanup(&d);
        skip();
    }
    char want[96];
    snprintf(want, sizeof want, "RLIMIT_MEMLOCK is %llu KiB",
             (unsigned long long)(small.rlim_cur / 1024));
    long lck = status_kb(d.pid, "VmLck");
    fprintf(stderr, "# finite limit: VmLck %ld kB\n", lck);
    if (!log_has(&d, want)) dump_log(&d);
    assert_true(log_has(&d, want));
    assert_true(log_has(&d, "mixer memory"));
    assert_true(lck > 0); /* the mixer and the record ring */
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);

    /* unlimited: mlockall(MCL_CURRENT | MCL_FUTURE) */
    struct rlimit inf = {RLIM_INFINITY, RLIM_INFINITY};
    if (setrlimit(RLIMIT_MEMLOCK, &inf) != 0) {
        setrlimit(RLIMIT_MEMLOCK, &saved);
        fprintf(stderr, "# cannot raise RLIMIT_MEMLOCK (%s): mlockall part skipped\n",
                strerror(errno));
        skip();
    }
    int started = start(&d, 0, NULL);
    setrlimit(RLIMIT_MEMLOCK, &saved);
    assert_int_equal(started, 0);
    lck = status_kb(d.pid, "VmLck");
    long rss = status_kb(d.pid, "VmRSS");
    fprintf(stderr, "# unlimited: VmLck %ld kB, VmRSS %ld kB\n", lck, rss);
    assert_true(log_has(&d, "mlockall(MCL_CURRENT | MCL_FUTURE)"));
    assert_true(lck >= rss / 2);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    const struct CMUnitTest notify[] = {cmocka_unit_test(test_notify)};
    const struct CMUnitTest astall[] = {cmocka_unit_test(test_audio_stall)};
    const struct CMUnitTest stall[] = {cmocka_unit_test(test_shutdown_stall)};
    const struct CMUnitTest fuse[] = {cmocka_unit_test(test_shutdown_fuse)};
    const struct CMUnitTest mlock[] = {cmocka_unit_test(test_mlock)};
    const struct CMUnitTest decoder[] = {cmocka_unit_test(test_shutdown_decoder)};
    if (strcmp(mode, "notify") == 0 || strcmp(mode, "audiostall") == 0) {
        if (!HAVE_LIBSYSTEMD) {
            fprintf(stderr, "heliod built without libsystemd: no sd_notify: skipped\n");
            return SKIP;
        }
        if (mode[0] == 'n')
            return finish(cmocka_run_group_tests_name("notify", notify, NULL, NULL));
        return finish(cmocka_run_group_tests_name("audiostall", astall, NULL, NULL));
    }
    if (strcmp(mode, "stall") == 0)
        return finish(cmocka_run_group_tests_name("stall", stall, NULL, NULL));
    if (strcmp(mode, "fuse") == 0) {
        if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) != 0) {
            fprintf(stderr, "needs root and /dev/fuse to mount a hung file system: skipped\n");
            return SKIP;
        }
        return finish(cmocka_run_group_tests_name("fuse", fuse, NULL, NULL));
    }
    if (strcmp(mode, "mlock") == 0)
        return finish(cmocka_run_group_tests_name("mlock", mlock, NULL, NULL));
    if (strcmp(mode, "decoder") == 0)
        return finish(cmocka_run_group_tests_name("decoder", decoder, NULL, NULL));
    fprintf(stderr, "usage: test_lifecycle notify|audiostall|stall|fuse|decoder|mlock\n");
    return 2;
}
