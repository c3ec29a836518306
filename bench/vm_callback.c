/*
 * vm_callback.c - audio-thread cost per block in the real daemon with tens
 * of thousands of logical voices, most of them virtual, while the listener
 * moves (so the voice manager keeps virtualising and realising voices).
 *
 * Starts `heliod --driver D --period P --voices REAL --virtual-voices
 * LOGICAL`, loads a generated 0.25 s noise WAV, subscribes to VIRTUAL/REAL
 * events, and plays LOGICAL looping 3D voices (0 dB less `--gain-db`,
 * inverse distance 1..1000 m) at random positions in a ball of 1..100 m
 * around the origin, pipelined with heliod_play_async in chunks (a play the
 * daemon answers EBUSY, command ring full, is retried and counted; any other
 * refusal is counted and fails the run). Once the pool is full it waits
 * `--settle` seconds, resets the daemon's callback statistics, and for
 * `--seconds` seconds moves the listener `--moves` times per second along a
 * 40 m circle (1/20 turn per move: a big share of the 1024 nearest voices
 * changes each time), reading events in between. Then it reads STATS:
 *
 *   callback-vm driver=null logical=65536 real=1024 period=256 p99_load=...
 *     max_load=... p99_us=... max_us=... xruns=... overruns=... voices_real=...
 *   (overruns: callbacks longer than a period themselves; xruns beyond them are
 *   late wake-ups of the audio thread, the machine's scheduling, not the mix)
 *     voices_virtual=... virtualised=... realised=... [extras]
 *
 * load = callback duration / period (5333 us at 256 frames); p99 values
 * are the daemon's histogram bucket bounds. virtualised / realised are the
 * voice manager's transitions during the measurement. main_cpu is the
 * daemon's main thread CPU time over the measurement / its wall time (the
 * ranking pass of 65536 voices every 20 ms runs there), audio_cpu the same
 * for the audio thread ("heliod-audio").
 *
 * usage: vm_callback [--heliod PATH] [--driver null|portaudio] [--device NAME]
 *                    [--period FRAMES] [--logical N] [--real N] [--seconds S]
 *                    [--moves PER_S] [--settle S] [--gain-db DB]
 */
#include <dirent.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <getopt.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define VC_DEF_PERIOD   256
#define VC_DEF_LOGICAL  65536
#define VC_DEF_REAL     1024
#define VC_DEF_SECONDS  10.0
#define VC_DEF_MOVES    4.0   /* listener moves per second */
#define VC_DEF_SETTLE   1.0   /* seconds after the fill, before the reset */
#define VC_DEF_GAIN_DB  -12.0 /* quietest voice (140 m): -55 dB, above the -60 dB floor */
#define VC_START_SETTLE 0.5
#define VC_SOUND_FRAMES (BD_RATE / 4)
#define VC_CHUNK        1024         /* plays between dispatches */
#define VC_HIGH_WATER   (256 * 1024) /* bytes of batched requests before waiting */
#define VC_POLL_MS      5
#define VC_MIN_D        1.0
#define VC_MAX_D        100.0
#define VC_MAX_DISTANCE 1000.0f /* nothing beyond: ranking alone decides */
#define VC_LIS_RADIUS   40.0
#define VC_LIS_STEPS    20
#define VC_MAX_ROUNDS   64 /* EBUSY retry rounds */
#define VC_NUM_LEN      32
#define VC_STAT_LINE    1024

typedef struct {
    long ok, busy, refused;
    long ev_virtual, ev_real, ev_ended, ev_error;
    int *retry; /* per play: 1 = answered EBUSY, play again */
} vc_t;

typedef struct {
    vc_t *vc;
    int index;
} vc_play_t;

static void on_play(void *user, const heliod_reply_t *r) {
    vc_play_t *p = user;
    if (r->status == 0) {
        p->vc->ok++;
    } else if (r->status == HELIOD_EBUSY) {
        p->vc->busy++;
        p->vc->retry[p->index] = 1;
    } else {
        if (p->vc->refused < 5)
            fprintf(stderr, "# play %d refused: %s (%s)\n", p->index, heliod_strerror(r->status),
                    r->message ? r->message : "");
        p->vc->refused++;
    }
}

static void on_event(void *user, const heliod_event_t *ev) {
    vc_t *vc = user;
    switch (ev->type) {
    case HELIOD_EVENT_VIRTUAL: vc->ev_virtual++; break;
    case HELIOD_EVENT_REAL: vc->ev_real++; break;
    case HELIOD_EVENT_ENDED: vc->ev_ended++; break;
    case HELIOD_EVENT_ERROR: vc->ev_error++; break;
    default: break;
    }
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) {
    return (double)(splitmix64(s) >> 11) / (double)(1ull << 53);
}

/* Voice i's position: uniform in the volume of the 1..100 m ball shell. */
static void position(int i, float pos[3]) {
    uint64_t s = (uint64_t)i * 0x9E3779B97F4A7C15ull + 12345u;
    double z = 2.0 * uniform(&s) - 1.0, phi = 2.0 * M_PI * uniform(&s);
    double r3 = VC_MIN_D * VC_MIN_D * VC_MIN_D;
    double d = cbrt(r3 + uniform(&s) * (VC_MAX_D * VC_MAX_D * VC_MAX_D - r3));
    double xy = sqrt(1.0 - z * z);
    pos[0] = (float)(d * xy * cos(phi));
    pos[1] = (float)(d * z);
    pos[2] = (float)(d * xy * sin(phi));
}

static int wait_io(heliod_t *h, int timeout_ms) {
    struct pollfd pfd = {heliod_fd(h), POLLIN | (heliod_pending(h) ? POLLOUT : 0), 0};
    poll(&pfd, 1, timeout_ms);
    return heliod_dispatch(h);
}

/* CPU seconds (user + system) of one thread of pid, from
 * /proc/PID/task/TID/stat; NAN if unreadable. */
static double thread_cpu_s(pid_t pid, pid_t tid) {
    char path[BD_PATH_MAX], line[VC_STAT_LINE];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    FILE *f = fopen(path, "r");
    if (!f) return NAN;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    const char *p = strrchr(line, ')'); /* comm may hold spaces */
    unsigned long long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return NAN;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* The thread of pid whose name is `name`, or -1. */
static pid_t find_thread(pid_t pid, const char *name) {
    char path[VC_NUM_LEN * 2], comm[VC_NUM_LEN * 2];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    pid_t found = -1;
    struct dirent *e;
    while ((e = readdir(d)) && found < 0) {
        if (e->d_name[0] == '.') continue;
        char cp[BD_PATH_MAX];
        snprintf(cp, sizeof cp, "/proc/%d/task/%.32s/comm", (int)pid, e->d_name);
        FILE *f = fopen(cp, "r");
        if (!f) continue;
        if (fgets(comm, sizeof comm, f)) {
            comm[strcspn(comm, "\n")] = '\0';
            if (strcmp(comm, name) == 0) found = (pid_t)atoi(e->d_name);
        }
        fclose(f);
    }
    closedir(d);
    return found;
}

#define VC_USAGE                                                                                   \
    "[--heliod PATH] [--driver null|portaudio] [--device NAME]\n"                                  \
    "          [--period FRAMES] [--logical N] [--real N] [--seconds S]\n"                         \
    "          [--moves PER_S] [--settle S] [--gain-db DB]"

int main(int argc, char **argv) {
    const char *heliod_arg = NULL, *driver = "null", *device = NULL;
    int period = VC_DEF_PERIOD, logical = VC_DEF_LOGICAL, real = VC_DEF_REAL;
    double seconds = VC_DEF_SECONDS, moves = VC_DEF_MOVES, settle = VC_DEF_SETTLE;
    double gain_db = VC_DEF_GAIN_DB;
    const bo_opt_t opts[] = {{"heliod", 's', &heliod_arg},
                             {"driver", 's', &driver},
                             {"device", 's', &device},
                             {"period", 'i', &period},
                             {"logical", 'i', &logical},
                             {"real", 'i', &real},
                             {"seconds", 'd', &seconds},
                             {"moves", 'd', &moves},
                             {"settle", 'd', &settle},
                             {"gain-db", 'd', &gain_db},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, VC_USAGE);
    if (optind != argc || period <= 0 || real < 1 || logical < real || seconds <= 0 || moves <= 0 ||
        settle < 0)
        bo_usage(argv[0], VC_USAGE);

    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    char period_s[VC_NUM_LEN], real_s[VC_NUM_LEN], logical_s[VC_NUM_LEN];
    snprintf(period_s, sizeof period_s, "%d", period);
    snprintf(real_s, sizeof real_s, "%d", real);
    snprintf(logical_s, sizeof logical_s, "%d", logical);
    const char *args[] = {"--driver", driver, "--period", period_s, "--voices", real_s,
                          "--virtual-voices", logical_s,
                          /* one client plays them all: its quota is the pool */
                          "--client-voices", logical_s, device ? "--device" : NULL, device, NULL};

    vc_t vc;
    memset(&vc, 0, sizeof vc);
    vc.retry = calloc((size_t)logical, sizeof *vc.retry);
    vc_play_t *slot = calloc((size_t)logical, sizeof *slot);
    if (!vc.retry || !slot) return 1;
    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    const heliod_server_info_t *si = heliod_server_info(h);
    fprintf(stderr, "# heliod %s rate=%u period=%u voices=%u logical=%d driver=%s\n",
            si->server_version, si->rate, si->period, si->voices, logical, driver);

    int rc = 1;
    char wav[BD_PATH_MAX];
    snprintf(wav, sizeof wav, "%s/noise.wav", d.dir);
    if (bd_write_noise_wav(wav, VC_SOUND_FRAMES, 7) != 0) goto out;
    int err = heliod_load(h, "noise", wav, 0, NULL);
    if (!err) err = heliod_subscribe(h, HELIOD_SUB_ENDED | HELIOD_SUB_VIRTUAL);
    if (err != 0) {
        fprintf(stderr, "load/subscribe: %s (%s)\n", heliod_strerror(err), heliod_last_error(h));
        goto out;
    }
    heliod_set_event_callback(h, on_event, &vc);
    bd_sleep(VC_START_SETTLE);

    /* Fill: every play pipelined; EBUSY answers are played again. */
    uint64_t t_fill = bd_now_ns();
    int rounds = 0;
    long busy_total = 0;
    for (int todo = logical; todo > 0 && rounds < VC_MAX_ROUNDS; rounds++) {
        int sent = 0;
        for (int i = 0; i < logical; i++) {
            if (rounds > 0 && !vc.retry[i]) continue;
            vc.retry[i] = 0;
            heliod_play_params_t p;
            heliod_play_params_init(&p);
            p.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D;
            p.gain_db = (float)gain_db;
            p.max_distance = VC_MAX_DISTANCE;
            position(i, p.pos);
            slot[i] = (vc_play_t){&vc, i};
            if (heliod_play_async(h, "noise", &p, on_play, &slot[i]) < 0) {
                fprintf(stderr, "play_async %d: %s\n", i, heliod_last_error(h));
                goto out;
            }
            if (++sent % VC_CHUNK == 0) {
                if (heliod_dispatch(h) < 0) goto out;
                while (heliod_pending(h) > VC_HIGH_WATER)
                    if (wait_io(h, VC_POLL_MS) < 0) goto out;
            }
        }
        long busy0 = vc.busy;
        if ((err = heliod_sync(h)) != 0) {
            fprintf(stderr, "sync: %s\n", heliod_strerror(err));
            goto out;
        }
        todo = (int)(vc.busy - busy0);
        busy_total = vc.busy;
        if (todo) bd_sleep(0.05); /* let the audio thread drain the ring */
    }
    double fill_s = (double)(bd_now_ns() - t_fill) / (double)BD_NS_PER_S;
    bd_sleep(settle);
    bd_stats_t st;
    if (bd_stats(h, &st, 0) != 0) goto out;
    fprintf(stderr,
            "# filled in %.2f s: accepted=%ld refused=%ld busy_retries=%ld active=%.0f "
            "real=%.0f virtual=%.0f\n",
            fill_s, vc.ok, vc.refused, busy_total, bd_stat(&st, "voices_active"),
            bd_stat(&st, "voices_real"), bd_stat(&st, "voices_virtual"));

    /* Measure: reset, move the listener, read events. */
    pid_t audio_tid = find_thread(d.pid, "heliod-audio");
    if (bd_stats(h, &st, 1) != 0) goto out;
    double xr0 = bd_stat(&st, "xruns"), cb0 = bd_stat(&st, "callbacks");
    double ov0 = bd_stat(&st, "callback_overruns");
    double vi0 = bd_stat(&st, "voices_virtualised"), re0 = bd_stat(&st, "voices_realised");
    double rf0 = bd_stat(&st, "realise_failed"), ch0 = bd_stat(&st, "cmd_cap_hits");
    double main0 = thread_cpu_s(d.pid, d.pid);
    double audio0 = audio_tid > 0 ? thread_cpu_s(d.pid, audio_tid) : NAN;
    long evv0 = vc.ev_virtual, evr0 = vc.ev_real;
    uint64_t t0 = bd_now_ns(), step_ns = (uint64_t)((double)BD_NS_PER_S / moves);
    uint64_t end = t0 + (uint64_t)(seconds * (double)BD_NS_PER_S), next = t0;
    int nmoves = 0;
    for (;;) {
        uint64_t now = bd_now_ns();
        if (now >= end) break;
        if (now >= next) {
            heliod_listener_t l;
            memset(&l, 0, sizeof l);
            l.mask = HELIOD_LIS_POS;
            double a = 2.0 * M_PI * (double)(nmoves + 1) / VC_LIS_STEPS;
            l.pos[0] = (float)(VC_LIS_RADIUS * cos(a));
            l.pos[2] = (float)(VC_LIS_RADIUS * sin(a));
            if (heliod_set_listener_async(h, &l) < 0) goto out;
            nmoves++;
            next += step_ns;
        }
        uint64_t wake = next < end ? next : end;
        int ms = (int)((wake - now) / 1000000u);
        if (wait_io(h, ms > VC_POLL_MS ? VC_POLL_MS : ms) < 0) goto out;
    }
    double wall = (double)(bd_now_ns() - t0) / (double)BD_NS_PER_S;
    double main1 = thread_cpu_s(d.pid, d.pid);
    double audio1 = audio_tid > 0 ? thread_cpu_s(d.pid, audio_tid) : NAN;
    if ((err = heliod_sync(h)) != 0) goto out;
    if (bd_stats(h, &st, 0) != 0) goto out;
    printf("callback-vm driver=%s logical=%d real=%d period=%d p99_load=%.4f max_load=%.4f "
           "p99_us=%.1f max_us=%.1f xruns=%.0f overruns=%.0f voices_real=%.0f voices_virtual=%.0f "
           "virtualised=%.0f realised=%.0f plays=%d accepted=%ld refused=%ld busy_retries=%ld "
           "moves=%d seconds=%.1f avg_us=%.1f p50_us=%.1f period_us=%.1f callbacks=%.0f "
           "realise_failed=%.0f cmd_cap_hits=%.0f cmd_wait_us_max=%.0f ev_virtual=%ld "
           "ev_real=%ld main_cpu=%.3f audio_cpu=%.3f fill_s=%.2f\n",
           driver, logical, real, (int)bd_stat(&st, "period"), bd_stat(&st, "callback_load_p99"),
           bd_stat(&st, "callback_load_max"), bd_stat(&st, "callback_us_p99"),
           bd_stat(&st, "callback_us_max"), bd_stat(&st, "xruns") - xr0,
           bd_stat(&st, "callback_overruns") - ov0, bd_stat(&st, "voices_real"),
           bd_stat(&st, "voices_virtual"), bd_stat(&st, "voices_virtualised") - vi0,
           bd_stat(&st, "voices_realised") - re0, logical, vc.ok, vc.refused, busy_total, nmoves,
           wall, bd_stat(&st, "callback_us_avg"), bd_stat(&st, "callback_us_p50"),
           bd_stat(&st, "period_us"), bd_stat(&st, "callbacks") - cb0,
           bd_stat(&st, "realise_failed") - rf0, bd_stat(&st, "cmd_cap_hits") - ch0,
           bd_stat(&st, "cmd_wait_us_max"), vc.ev_virtual - evv0, vc.ev_real - evr0,
           (main1 - main0) / wall, (audio1 - audio0) / wall, fill_s);
    fflush(stdout);
    rc = (vc.ok == logical && vc.refused == 0 && bd_stat(&st, "voices_active") == logical) ? 0 : 1;
    if (rc) fprintf(stderr, "# not every play was accepted, or voices were lost\n");
out:
    heliod_close(h);
    bd_daemon_stop(&d, rc != 0);
    free(vc.retry);
    free(slot);
    return rc;
}
