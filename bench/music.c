/*
 * music.c - adaptive music's figures (issue 26).
 *
 *   music [--minutes M] [--rate R] [--every S] [--rt-seconds S] [--driver D]
 *         [--device NAME] [--heliod PATH]
 *
 * render: `heliod --render` of M minutes (10) at R Hz (48000) of a [music]
 * section with two looping noise tracks: a (120 BPM 4/4, 140 BPM from beat
 * 64, 92 beats a pass) and b (120 BPM, 16 bars a pass). Every S seconds (20)
 * a MUSIC request (a frame off any bar) switches to the other track on the
 * playing one's next bar (xfade:0), and a stinger (`play --on beat --of`
 * the first track) comes after 5 s. Checked, on the map computed here on its
 * own (each track's start frame + its loop passes + the beat's whole
 * position):
 *   - every BEAT and BAR event of --render-events: its frame (0 samples
 *     off), none missing or doubled, the first of each track on its
 *     transition's bar frame;
 *   - each transition in the recording: the lag that best correlates the
 *     output with the new track's first 4096 samples, within +-2000 of the
 *     bar's frame (0 expected);
 *   - the stinger's lag the same way against its beat's frame;
 *   - a second render byte-identical (audio and events).
 * Prints `music-render minutes=M rate=R beats=N bars=N beat_off_max=0
 * transitions=K trans_lag_max=0 stinger_lag=0 identical=1 wall_s=W
 * realtime_factor=F`.
 *
 * realtime: a daemon on --driver D (null; portaudio with --device NAME, e.g.
 * a JACK dummy server's `system`) at 48 kHz, period 256, a client subscribed
 * to MUSIC plays a looping cue at 600 BPM for S seconds (10): each BEAT or
 * BAR event's arrival minus its time_ns (its frame's CLOCK_MONOTONIC time).
 * Prints `music-beat-delay driver=D beats=N min_ms= p50_ms= p99_ms= max_ms=`.
 * Exits 1 if a check fails.
 */
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sndfile.h>

#include "bench_daemon.h"
#include "bench_opts.h"

static uint32_t g_rate = 48000;

/* Beat k's whole position: track a (120, then 140 from beat 64) or b (120). */
static uint64_t beat_pos(int track, uint64_t k) {
    uint64_t r = g_rate;
    if (track == 1 || k < 64) return (k * 60u * r + 119u) / 120u;
    return (64u * 60u * r + 119u) / 120u + ((k - 64u) * 60u * r + 139u) / 140u;
}
static const uint64_t k_beats[2] = {92, 64}; /* beats a pass */

static float noise(uint64_t seed, uint64_t i) {
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (float)((double)(x >> 11) / 9007199254740992.0 - 0.5) * 0.5f;
}

static int write_wav(const char *path, uint64_t frames, uint64_t seed) {
    SF_INFO si = {
        .samplerate = (int)g_rate, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &si);
    if (!sf) return -1;
    float buf[4096];
    for (uint64_t i = 0; i < frames;) {
        uint64_t n = frames - i < 4096 ? frames - i : 4096;
        for (uint64_t j = 0; j < n; j++)
            buf[j] = noise(seed, i + j);
        if (sf_writef_float(sf, buf, (sf_count_t)n) != (sf_count_t)n) return sf_close(sf), -1;
        i += n;
    }
    return sf_close(sf);
}

static int run(const char *heliod, const char *score, const char *out, const char *ev) {
    pid_t pid = fork();
    if (pid == 0) {
        char r[16];
        snprintf(r, sizeof r, "%u", g_rate);
        execl(heliod, heliod, "--render", score, "--out", out, "--render-events", ev, "--rate", r,
              "--max-seconds", "7200", "--log-level", "warn", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int same(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int eq = fa && fb;
    for (int x = 0, y = 0; eq && x != EOF;) {
        x = fgetc(fa), y = fgetc(fb);
        eq = x == y;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return eq;
}

/* The lag in [-D, D] that best correlates x (left of stereo) at `at` with
 * the first W samples of track seed. */
#define XW 4096
#define XD 2000
static long best_lag(const float *x, uint64_t n, uint64_t at, uint64_t seed) {
    static float ref[XW];
    for (int i = 0; i < XW; i++)
        ref[i] = noise(seed, (uint64_t)i);
    long best = 0;
    double bv = -1e300;
    for (long l = -XD; l <= XD; l++) {
        if ((long)at + l < 0 || at + (uint64_t)(l + XW) > n) continue;
        const float *p = x + 2 * (uint64_t)((long)at + l);
        double s = 0;
        for (int i = 0; i < XW; i++)
            s += (double)p[2 * i] * ref[i];
        if (s > bv) bv = s, best = l;
    }
    return best;
}

#define MAXT 4096
static const uint64_t k_seed[2] = {0x1234567u, 0x89abcdefu}, k_sting_seed = 0x5555u;

static int render_part(const char *heliod, double minutes, double every) {
    char dir[] = "/tmp/heliod-bench-music-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char p[6][300];
    const char *nm[6] = {"a.wav", "b.wav", "s.wav", "m.cues", "score.txt", "out1.wav"};
    for (int i = 0; i < 6; i++)
        snprintf(p[i], sizeof p[i], "%s/%s", dir, nm[i]);
    char out2[300], ev1[300], ev2[300];
    snprintf(out2, sizeof out2, "%s/out2.wav", dir);
    snprintf(ev1, sizeof ev1, "%s/ev1.txt", dir);
    snprintf(ev2, sizeof ev2, "%s/ev2.txt", dir);
    uint64_t len[2] = {beat_pos(0, 92), beat_pos(1, 64)};
    if (write_wav(p[0], len[0], k_seed[0]) || write_wav(p[1], len[1], k_seed[1]) ||
        write_wav(p[2], 4096, k_sting_seed))
        return fprintf(stderr, "music: cannot write %s\n", dir), 1;
    FILE *f = fopen(p[3], "w");
    if (!f) return 1;
    fprintf(f, "[cue ta]\nsound = ta\nloop = yes\ntempo = 120 4/4\ntempo-change = 64:140\n"
               "[cue tb]\nsound = tb\nloop = yes\ntempo = 120 4/4\n"
               "[music m]\nstate = a ta\nstate = b tb\n"
               "transition = a b bar xfade:0\ntransition = b a bar xfade:0\n");
    fclose(f);
    uint64_t start = 1000, end = start + (uint64_t)(minutes * 60.0 * g_rate);
    uint64_t step = (uint64_t)(every * g_rate), sting_req = start + 5u * g_rate + 777u;
    /* the map, on its own: each track's start, the transitions' bars */
    uint64_t t_start[MAXT];
    int t_track[MAXT], nt = 1;
    t_start[0] = start;
    t_track[0] = 0;
    if (!(f = fopen(p[4], "w"))) return 1;
    fprintf(f, "load ta %s\nload tb %s\nload sting %s\ncues load %s\n@%llu music m --to a\n", p[0],
            p[1], p[2], p[3], (unsigned long long)start);
    fprintf(f, "@%llu play sting --fade-in 0 --on beat --of 4294967296\n",
            (unsigned long long)sting_req);
    for (uint64_t req = start + step + 1234u; req + 3u * g_rate < end && nt < MAXT; req += step) {
        int cur = t_track[nt - 1];
        uint64_t s = t_start[nt - 1], pass = (req - s) / len[cur], k = 0;
        while (s + pass * len[cur] + beat_pos(cur, k) < req)
            if ((k += 4) >= k_beats[cur]) k = 0, pass++;
        t_start[nt] = s + pass * len[cur] + beat_pos(cur, k);
        t_track[nt++] = !cur;
        fprintf(f, "@%llu music m --to %s\n", (unsigned long long)req, cur ? "a" : "b");
    }
    fprintf(f, "@%llu end\n", (unsigned long long)end);
    fclose(f);
    uint64_t t0 = bd_now_ns();
    if (run(heliod, p[4], p[5], ev1) != 0)
        return fprintf(stderr, "music: the render failed (files kept in %s)\n", dir), 1;
    double wall = (double)(bd_now_ns() - t0) / 1e9;
    if (run(heliod, p[4], out2, ev2) != 0) return 1;
    int identical = same(p[5], out2) && same(ev1, ev2), bad = !identical;
    /* the stinger: the first beat of track a at or after its request */
    uint64_t sk = 0;
    while (start + beat_pos(0, sk) < sting_req)
        sk++;
    uint64_t sting_at = start + beat_pos(0, sk);
    /* events */
    if (!(f = fopen(ev1, "r"))) return 1;
    char kind[16];
    unsigned long long voice, frame, beat, prev_voice = 0;
    unsigned bar, inb;
    double bpm;
    uint64_t nbeats = 0, nbars = 0, off_max = 0, pass = 0, want_k = 0;
    int ti = -1;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%15s %llu %llu %llu %u %u %lf", kind, &voice, &frame, &beat, &bar, &inb,
                   &bpm) != 7)
            continue;
        if (frame >= end) continue;
        if (voice != prev_voice) { /* the next track */
            if (++ti >= nt) {
                fprintf(stderr, "music: events of more tracks than transitions\n");
                bad = 1;
                break;
            }
            prev_voice = voice;
            pass = 0;
            want_k = 0;
        }
        int tr = t_track[ti];
        uint64_t want = t_start[ti] + pass * len[tr] + beat_pos(tr, want_k);
        uint64_t off = frame > want ? frame - want : want - frame;
        if (beat != want_k || off) {
            fprintf(stderr, "music: track %d beat %llu at %llu, the map says beat %llu at %llu\n",
                    ti, beat, frame, (unsigned long long)want_k, (unsigned long long)want);
            bad = 1;
        }
        if (off > off_max) off_max = off;
        if (strcmp(kind, want_k % 4 ? "beat" : "bar") != 0) bad = 1;
        nbeats++;
        nbars += want_k % 4 == 0;
        if (++want_k == k_beats[tr]) want_k = 0, pass++;
    }
    fclose(f);
    if (ti != nt - 1) {
        fprintf(stderr, "music: events of %d tracks, %d expected\n", ti + 1, nt);
        bad = 1;
    }
    /* the recording: transitions and the stinger by cross-correlation */
    SF_INFO si = {0};
    SNDFILE *sf = sf_open(p[5], SFM_READ, &si);
    if (!sf || si.channels != 2) return fprintf(stderr, "music: cannot read %s\n", p[5]), 1;
    float *x = malloc(sizeof(float) * 2 * (size_t)si.frames);
    if (!x || sf_readf_float(sf, x, si.frames) != si.frames) return 1;
    sf_close(sf);
    long lag_max = 0;
    for (int i = 1; i < nt; i++) {
        long l = best_lag(x, (uint64_t)si.frames, t_start[i], k_seed[t_track[i]]);
        if (labs(l) > lag_max) lag_max = labs(l);
    }
    long sl = best_lag(x, (uint64_t)si.frames, sting_at, k_sting_seed);
    free(x);
    bad |= lag_max != 0 || sl != 0 || off_max != 0;
    printf("music-render minutes=%.2f rate=%u beats=%llu bars=%llu beat_off_max=%llu "
           "transitions=%d trans_lag_max=%ld stinger_lag=%ld identical=%d wall_s=%.3f "
           "realtime_factor=%.1f\n",
           minutes, g_rate, (unsigned long long)nbeats, (unsigned long long)nbars,
           (unsigned long long)off_max, nt - 1, lag_max, sl, identical, wall,
           minutes * 60.0 / wall);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (bad) fprintf(stderr, "music: a check failed (files kept in %s)\n", dir);
    return bad ? 1 : system(cmd) != 0;
}

/* ---- real time ---- */

typedef struct {
    double *lat;
    size_t n, cap;
} rt_t;

static void on_event(void *user, const heliod_event_t *e) {
    rt_t *r = user;
    const heliod_beat_t *b = heliod_event_beat(e);
    if (!b || r->n >= r->cap) return;
    r->lat[r->n++] = ((double)bd_now_ns() - (double)b->time_ns) / 1e6;
}

static int rt_part(const char *heliod, double seconds, const char *driver, const char *device) {
    const char *args[] = {"--rate", "48000", "--period", "256", "--driver",
                          driver,   NULL,    NULL,       NULL};
    if (device) args[6] = "--device", args[7] = device;
    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return fprintf(stderr, "music: no daemon\n"), 1;
    g_rate = 48000;
    char wav[BD_PATH_MAX + 16], cues[BD_PATH_MAX + 16];
    snprintf(wav, sizeof wav, "%s/rt.wav", d.dir);
    snprintf(cues, sizeof cues, "%s/rt.cues", d.dir);
    int bad = write_wav(wav, 48000, 7) != 0;
    FILE *f = fopen(cues, "w");
    if (f) {
        fprintf(f, "[cue rt]\nsound = rt\nloop = yes\ntempo = 600 4/4\n");
        fclose(f);
    }
    heliod_t *c = NULL; /* the cue sheet needs a control client */
    heliod_close(h);
    bad |= !f || heliod_connect_flags(&c, d.socket, "music", HELIOD_CONNECT_CONTROL) != 0;
    rt_t r = {.cap = (size_t)(seconds * 10.0) + 16};
    r.lat = calloc(r.cap, sizeof *r.lat);
    heliod_voice_t v = 0;
    if (!bad && r.lat && heliod_load(c, "rt", wav, 0, NULL) == 0 &&
        heliod_cues_load(c, cues, NULL, NULL) == 0) {
        heliod_set_event_callback(c, on_event, &r);
        bad = heliod_subscribe(c, HELIOD_SUB_MUSIC) != 0 || heliod_play(c, "rt", NULL, &v, NULL);
        uint64_t t0 = bd_now_ns();
        while (!bad && bd_now_ns() - t0 < (uint64_t)(seconds * 1e9)) {
            struct pollfd pf = {.fd = heliod_fd(c), .events = POLLIN};
            if (poll(&pf, 1, 50) > 0 && heliod_dispatch(c) < 0) bad = 1;
        }
    } else
        bad = 1;
    if (!bad && r.n > 0) {
        double lo = r.lat[0], hi = r.lat[0];
        for (size_t i = 0; i < r.n; i++)
            lo = r.lat[i] < lo ? r.lat[i] : lo, hi = r.lat[i] > hi ? r.lat[i] : hi;
        size_t n = r.n;
        double p50 = bd_percentile(r.lat, n, 50), p99 = bd_percentile(r.lat, n, 99);
        printf("music-beat-delay driver=%s beats=%zu min_ms=%+.2f p50_ms=%+.2f p99_ms=%+.2f "
               "max_ms=%+.2f period_ms=5.33\n",
               driver, n, lo, p50, p99, hi);
    } else
        bad = 1;
    free(r.lat);
    if (c) heliod_close(c);
    bd_daemon_stop(&d, bad);
    return bad;
}

int main(int argc, char **argv) {
    double minutes = 10.0, every = 20.0, rt_s = 10.0;
    unsigned long long rate = 48000;
    const char *heliod_arg = NULL, *driver = "null", *device = NULL;
    const bo_opt_t opts[] = {{"minutes", 'd', &minutes},   {"rate", 'u', &rate},
                             {"every", 'd', &every},       {"rt-seconds", 'd', &rt_s},
                             {"driver", 's', &driver},     {"device", 's', &device},
                             {"heliod", 's', &heliod_arg}, {NULL, 0, NULL}};
    const char *usage = "[--minutes M] [--rate R] [--every S] [--rt-seconds S] [--driver D] "
                        "[--device NAME] [--heliod PATH]";
    bo_parse(argc, argv, opts, usage);
    if (minutes <= 0 || every < 4 || rate < 8000 || rate > 192000 || rt_s < 0)
        bo_usage(argv[0], usage);
    g_rate = (uint32_t)rate;
    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    int rc = render_part(heliod, minutes, every);
    if (rt_s > 0) rc |= rt_part(heliod, rt_s, driver, device);
    return rc;
}
