/*
 * compressed.c - what sounds kept compressed in memory (LOAD
 * HELIOD_LOAD_COMPRESSED) cost, on the null driver at a 256-frame period.
 *
 *   (a) resident memory: a generated stereo Ogg Opus of --minutes (default
 *       60) at about 96 kb/s, loaded compressed; the daemon's RSS before and
 *       after, against what float PCM of it would take:
 *         compressed-memory minutes=... opus_kbps=... file_bytes=...
 *                           rss_delta_kib=... pcm_float_bytes=... ratio=...
 *   (b) decoder CPU: --voices (default 64) voices of it playing (looped,
 *       -24 dB) for -s seconds (default 10): the decoder threads' CPU time
 *       over the wall time (1.0 = one core), stream underruns, xruns:
 *         compressed-cpu voices=... seconds=... decoder_cores=...
 *                        underruns=... xruns=...
 *   (c) play -> first sample: --plays (default 200) blocking PLAYs of it,
 *       one after another, each stopped once it started. The PLAY reply of
 *       a stream-decoded voice comes once its ring is primed; its first
 *       sample is mixed at the next period. First sample: from sending the
 *       PLAY to the daemon's STARTED event's time (CLOCK_MONOTONIC when the
 *       voice's first block was mixed), per play:
 *         compressed-latency plays=... reply_p50_ms=... reply_p99_ms=...
 *                            first_sample_p50_ms=... first_sample_p99_ms=...
 *                            failed=...
 *
 *   (d) --burst N (0: off): --plays plays sent N at a time in one write (one
 *       loop turn of the daemon), each round waited for, played --hold
 *       seconds (default 0), then stopped; play -> first sample over every
 *       play of every round, and the stream underruns meanwhile (STATS
 *       stream_underruns: a ring that ran dry, e.g. a compressed voice whose
 *       decoder did not resume before its prefetched head was played out):
 *         compressed-burst burst=N rounds=... hold_s=... first_sample_p50_ms=...
 *                          first_sample_p99_ms=... first_sample_max_ms=...
 *                          failed=... underruns=...
 *
 * --stream loads the same file as a stream from disk instead, --preload
 * decodes it whole at load (the figures to compare with: a preloaded PLAY
 * waits for no decoder, so its reply time is the request's own round trip
 * on this machine; the lines then say mode=stream or mode=preload).
 *
 * usage: compressed [--minutes M] [--voices N] [-s SECONDS] [--plays N]
 *        [--burst N [--hold S]] [--stream|--preload] [--settle S] [--heliod PATH]   (the bench
 * smoke suite runs a tiny size; --settle: seconds the daemon is left before RSS is read)
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sndfile.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define CB_CHUNK     4096
#define CB_LEVEL     0.835 /* libsndfile's Opus compression level for about 96 kb/s stereo */
#define CB_SETTLE_S  1.0
#define CB_PATH      (BD_PATH_MAX + 64)
#define CB_KIB       1024.0
#define CB_MAX_PLAYS 100000
#define CP_USAGE                                                                                   \
    "[--minutes M] [--voices N] [-s SECONDS] [--plays N]\n"                                        \
    "        [--burst N [--hold S]] [--stream|--preload] [--settle S] [--heliod PATH]\n"           \
    "  --minutes  length of the generated Opus file (default 60, at most 600)\n"                   \
    "  --voices   voices playing it for the decoder CPU figure (default 64, 1..256)\n"             \
    "  -s         seconds they play (default 10)\n"                                                \
    "  --plays    blocking PLAYs for play -> first sample (default 200)\n"                         \
    "  --burst    send the plays N at a time (0: off, at most 64); --hold S: each\n"               \
    "             round plays S seconds (default 0)\n"                                             \
    "  --stream   load it as a stream from disk; --preload: decoded at load\n"                     \
    "  --settle   seconds the daemon is left before RSS is read (default 1)\n"                     \
    "  --heliod   the daemon to start (default: the build's)"

/* The STARTED events seen (the last CB_STARTED of them): voice and time. */
#define CB_STARTED 64
typedef struct {
    heliod_voice_t voice[CB_STARTED];
    uint64_t time_ns[CB_STARTED];
    unsigned n;
} started_t;

static void on_event(void *user, const heliod_event_t *ev) {
    started_t *s = user;
    if (ev->type != HELIOD_EVENT_STARTED) return;
    s->voice[s->n % CB_STARTED] = ev->voice;
    s->time_ns[s->n % CB_STARTED] = ev->time_ns;
    s->n++;
}

static uint64_t started_of(const started_t *s, heliod_voice_t v) {
    for (unsigned i = 0; i < CB_STARTED && i < s->n; i++)
        if (s->voice[(s->n - 1 - i) % CB_STARTED] == v)
            return s->time_ns[(s->n - 1 - i) % CB_STARTED];
    return 0;
}

/* Waits (1 s at most) for v's STARTED event: its time, or 0. Frames the
 * library already holds are dispatched before it polls for more. */
static uint64_t wait_started(heliod_t *h, started_t *s, heliod_voice_t v) {
    const uint64_t deadline = bd_now_ns() + 1000000000ull;
    for (;;) {
        uint64_t t = started_of(s, v);
        if (!t && heliod_dispatch(h) < 0) return 0;
        if (t || (t = started_of(s, v)) != 0) return t;
        if (bd_now_ns() >= deadline) return 0;
        struct pollfd pfd = {heliod_fd(h), POLLIN, 0};
        if (poll(&pfd, 1, 5) < 0 && errno != EINTR) return 0;
    }
}

/* A stereo music-like signal (partials, a slow chirp, a little noise). */
static int write_opus(const char *path, double minutes) {
    SF_INFO info = {.samplerate = BD_RATE, .channels = 2, .format = SF_FORMAT_OGG | SF_FORMAT_OPUS};
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    if (!f) {
        fprintf(stderr, "compressed: %s: %s\n", path, sf_strerror(NULL));
        return -1;
    }
    double level = CB_LEVEL;
    sf_command(f, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level);
    static float buf[CB_CHUNK * 2];
    uint64_t total = (uint64_t)(minutes * 60.0 * BD_RATE), seed = 1;
    for (uint64_t i = 0; i < total;) {
        uint64_t n = total - i < CB_CHUNK ? total - i : CB_CHUNK;
        for (uint64_t k = 0; k < n; k++) {
            double t = (double)(i + k) / BD_RATE;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            double noise = (double)(seed >> 40) / (double)(1ull << 24) - 0.5;
            buf[k * 2] = (float)(0.3 * sin(2 * M_PI * 220 * t) + 0.1 * sin(2 * M_PI * 1500 * t) +
                                 0.02 * noise);
            buf[k * 2 + 1] = (float)(0.3 * sin(2 * M_PI * (330 + 2 * fmod(t, 10)) * t));
        }
        sf_writef_float(f, buf, (sf_count_t)n);
        i += n;
    }
    return sf_close(f) == 0 ? 0 : -1;
}

typedef struct {
    heliod_voice_t voice[CB_STARTED];
    unsigned n;
} burst_t;

static void on_burst_reply(void *user, const heliod_reply_t *r) {
    burst_t *b = user;
    if (r->status == 0 && b->n < CB_STARTED) b->voice[b->n++] = r->voice;
}

/* (d): rounds of `burst` async plays flushed together, each round played
 * for `hold` seconds before it is stopped. */
static int run_burst(heliod_t *h, started_t *started, int plays, int burst, double hold) {
    const int rounds = plays / burst > 0 ? plays / burst : 1;
    double *first = calloc((size_t)rounds * (size_t)burst, sizeof *first);
    int nfirst = 0, failed = 0;
    bd_stats_t s0, s1;
    if (bd_stats(h, &s0, 0) != 0) return -1;
    for (int k = 0; first && k < rounds; k++) {
        burst_t b = {.n = 0};
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.gain_db = -36;
        const uint64_t t0 = bd_now_ns();
        for (int i = 0; i < burst; i++)
            (void)heliod_play_async(h, "music", &p, on_burst_reply, &b);
        if (heliod_sync(h) != 0) return -1;
        failed += burst - (int)b.n;
        for (unsigned i = 0; i < b.n; i++) {
            const uint64_t t1 = wait_started(h, started, b.voice[i]);
            if (t1 > t0)
                first[nfirst++] = (double)(t1 - t0) / 1e6;
            else
                failed++;
        }
        if (hold > 0) bd_sleep(hold);
        for (unsigned i = 0; i < b.n; i++)
            (void)heliod_stop_async(h, b.voice[i], 0.0f);
        (void)heliod_sync(h);
        bd_sleep(0.05); /* the stopped voices' streams go */
    }
    if (bd_stats(h, &s1, 0) != 0) return -1;
    if (first && nfirst)
        printf("compressed-burst burst=%d rounds=%d hold_s=%.2f first_sample_p50_ms=%.3f "
               "first_sample_p99_ms=%.3f first_sample_max_ms=%.3f failed=%d underruns=%.0f\n",
               burst, rounds, hold, bd_percentile(first, (size_t)nfirst, 50),
               bd_percentile(first, (size_t)nfirst, 99), bd_percentile(first, (size_t)nfirst, 100),
               failed, bd_stat(&s1, "stream_underruns") - bd_stat(&s0, "stream_underruns"));
    fflush(stdout);
    free(first);
    return first ? 0 : -1;
}

int main(int argc, char **argv) {
    const char *heliod_arg = NULL;
    double minutes = 60, seconds = 10, settle = CB_SETTLE_S, hold = 0;
    int voices = 64, plays = 200, burst = 0;
    uint32_t flags = HELIOD_LOAD_COMPRESSED;
    const char *mode = "compressed";
    int stream = 0, preload = 0;
    const bo_opt_t opts[] = {{"s", 'd', &seconds},
                             {"heliod", 's', &heliod_arg},
                             {"minutes", 'd', &minutes},
                             {"voices", 'i', &voices},
                             {"plays", 'i', &plays},
                             {"settle", 'd', &settle},
                             {"burst", 'i', &burst},
                             {"hold", 'd', &hold},
                             {"stream", 'b', &stream},
                             {"preload", 'b', &preload},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, CP_USAGE);
    if (stream) { /* not both: bo_usage below */
        flags = HELIOD_LOAD_STREAM;
        mode = "stream";
    }
    if (preload) {
        flags = 0;
        mode = "preload";
    }
    if (stream && preload) bo_usage(argv[0], CP_USAGE);
    if (!(settle >= 0) || settle > 60) settle = CB_SETTLE_S;
    if (!(minutes > 0) || minutes > 600 || voices < 1 || voices > 256 || !(seconds > 0) ||
        plays < 1 || plays > CB_MAX_PLAYS || burst < 0 || burst > CB_STARTED || !(hold >= 0) ||
        hold > 60) {
        fprintf(stderr, "compressed: --minutes 0..600, --voices 1..256, -s > 0, --plays "
                        "1..100000, --burst 0..64, --hold 0..60\n");
        return 2;
    }
    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    static const char *const args[] = {"--driver",        "null", "--period", "256",
                                       "--max-sample-mb", "1024", NULL};
    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    heliod_set_timeout(h, 120000);
    char path[CB_PATH];
    snprintf(path, sizeof path, "%s/hour.opus", d.dir);
    int rc = write_opus(path, minutes);
    struct stat st;
    long long fbytes = !rc && stat(path, &st) == 0 ? (long long)st.st_size : -1;
    /* (a) memory */
    bd_sleep(settle);
    long idle = bd_rss_kib(d.pid);
    heliod_sound_info_t si;
    if (!rc) rc = heliod_load(h, "music", path, flags, &si);
    if (rc) fprintf(stderr, "compressed: load: %s\n", heliod_last_error(h));
    if (!rc) {
        bd_sleep(settle);
        long loaded = bd_rss_kib(d.pid);
        double secs = minutes * 60.0, pcm = secs * BD_RATE * 2 * sizeof(float);
        printf("compressed-memory mode=%s minutes=%.2f opus_kbps=%.1f file_bytes=%lld "
               "rss_delta_kib=%ld "
               "pcm_float_bytes=%.0f ratio=%.1f\n",
               mode, minutes, (double)fbytes * 8 / secs / 1000, fbytes, loaded - idle, pcm,
               pcm / ((double)(loaded - idle) * CB_KIB));
        fflush(stdout);
    }
    /* (c) play -> first sample, before the CPU part (an idle decoder pool) */
    double *lat = calloc((size_t)plays, sizeof *lat), *first = calloc((size_t)plays, sizeof *first);
    int failed = 0, nfirst = 0;
    started_t started = {.n = 0};
    if (!rc) rc = heliod_subscribe(h, HELIOD_SUB_STARTED);
    heliod_set_event_callback(h, on_event, &started);
    for (int i = 0; !rc && lat && first && i < plays; i++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.gain_db = -24;
        heliod_voice_t v;
        uint64_t t0 = bd_now_ns();
        int pr = heliod_play(h, "music", &p, &v, NULL);
        lat[i] = (double)(bd_now_ns() - t0) / 1e6;
        if (pr) {
            failed++;
            continue;
        }
        uint64_t t1 = wait_started(h, &started, v);
        if (t1 > t0)
            first[nfirst++] = (double)(t1 - t0) / 1e6;
        else
            failed++;
        (void)heliod_stop(h, v, 0.0f);
    }
    if (!rc && burst > 0 && run_burst(h, &started, plays, burst, hold) != 0) rc = -1;
    heliod_set_event_callback(h, NULL, NULL);
    if (!rc && lat && first) {
        double p50 = bd_percentile(lat, (size_t)plays, 50),
               p99 = bd_percentile(lat, (size_t)plays, 99);
        double f50 = nfirst ? bd_percentile(first, (size_t)nfirst, 50) : -1,
               f99 = nfirst ? bd_percentile(first, (size_t)nfirst, 99) : -1;
        printf("compressed-latency mode=%s plays=%d reply_p50_ms=%.3f reply_p99_ms=%.3f "
               "first_sample_p50_ms=%.3f first_sample_p99_ms=%.3f failed=%d\n",
               mode, plays, p50, p99, f50, f99, failed);
        fflush(stdout);
    }
    free(first);
    free(lat);
    /* (b) decoder CPU with `voices` voices */
    bd_sleep(0.3); /* the stopped voices' streams go */
    for (int i = 0; !rc && i < voices; i++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.flags = HELIOD_PLAY_LOOP;
        p.gain_db = -36;
        heliod_voice_t v;
        rc = heliod_play(h, "music", &p, &v, NULL);
        if (rc) fprintf(stderr, "compressed: play %d: %s\n", i, heliod_last_error(h));
    }
    bd_stats_t s0, s1;
    if (!rc) rc = bd_stats(h, &s0, 1);
    uint64_t w0 = bd_now_ns();
    if (!rc) {
        bd_sleep(seconds);
        rc = bd_stats(h, &s1, 0);
    }
    double wall = (double)(bd_now_ns() - w0) / 1e9;
    if (!rc)
        printf("compressed-cpu mode=%s voices=%d seconds=%.1f decoder_cores=%.3f underruns=%.0f "
               "xruns=%.0f streams_active=%.0f\n",
               mode, voices, wall,
               (bd_stat(&s1, "decoder_cpu_s") - bd_stat(&s0, "decoder_cpu_s")) / wall,
               bd_stat(&s1, "stream_underruns") - bd_stat(&s0, "stream_underruns"),
               bd_stat(&s1, "xruns") - bd_stat(&s0, "xruns"), bd_stat(&s1, "streams_active"));
    fflush(stdout);
    heliod_close(h);
    bd_daemon_stop(&d, 0);
    return rc ? 1 : 0;
}
