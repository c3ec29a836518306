/*
 * callback.c - audio callback cost inside the real daemon.
 *
 * Starts `heliod --driver D --period P --voices MAX`, loads a generated 1 s
 * noise WAV, and for each voice count N (ascending) brings the number of
 * looping 3D voices up to N through libheliod, lets the fades settle, resets
 * the daemon's callback statistics, waits, and reads them back:
 *
 *   callback driver=null voices=N period=256 p99_load=... max_load=...
 *            p99_us=... max_us=... xruns=... [extras]
 *
 * load = callback duration / period duration (the fraction of the real-time
 * budget used). The worst case (max) is what matters for glitches.
 *
 * Scenes (--scene): easy (the voices above, pitch 1), pitched (each voice
 * its own pitch, 0.9..1.1: the linear interpolator), worst (pitched and the
 * cubic interpolator: the most any client may ask for). --cpu-budget PCT is
 * passed to the daemon (its default 70; 0 turns the governor off, to see the
 * raw cost); the line then also says how many voices the governor made
 * virtual. --hrtf starts the daemon with --hrtf (the default SOFA set):
 * every voice is then binaural, and the line says how many were
 * (hrtf_voices). --layout L starts it with --layout L (the line then says
 * output_channels).
 *
 * --find-max searches instead for the largest voice count the scene holds:
 * one daemon started at --voices MAX (--max-voices, default heliod's cap)
 * takes counts doubling from --start, then bisected until the gap is within
 * --resolution % (at least CB_MIN_STEP voices), each judged over --trial
 * seconds (a failed count judged again up to --retries times): held when
 * xruns = 0, every voice mixed, p99 load <= --p99-bound and max load <=
 * --max-bound. The count found is then confirmed in a fresh daemon started
 * at --voices N (the pool and tables sized for N, gain 1/N: the same scene
 * as `--counts N`) over --settle seconds; a confirmation that fails steps
 * down by the resolution (or to where its p99 load over the bound says the
 * bound is) and tries again (CB_CONFIRM_TRIES in all). The governor is off
 * (--cpu-budget 0) unless --cpu-budget is given. One line:
 *
 *   callback-max driver=null mix_threads=2 scene=worst voices=N held_s=60
 *                xruns=0 p99_load=... max_load=... held=1 ...
 *
 * usage: callback [--heliod PATH] [--driver null|portaudio] [--device NAME]
 *                 [--period FRAMES] [--counts 0,64,256,1024] [--settle S]
 *                 [--scene easy|pitched|worst] [--cpu-budget PCT] [--hrtf]
 *                 [--layout stereo|quad|5.1|7.1|7.1.4] [--mix-threads N]
 *                 [--find-max [--start N] [--max-voices N] [--trial S]
 *                  [--retries K] [--resolution PCT] [--p99-bound L] [--max-bound L]]
 *                 [--start-settle S]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_daemon.h"
#include "bench_opts.h"
#include "hl_limits.h" /* HL_MAX_VOICES: heliod's --voices cap */

#define CB_DEF_PERIOD  256
#define CB_DEF_COUNTS  "0,64,256,1024"
#define CB_DEF_SETTLE  3.0  /* seconds measured per voice count */
#define CB_FADE_SETTLE 0.25 /* seconds for start fades to finish before the reset */
#define CB_START_SETTLE                                                                            \
    1.0 /* seconds after start-up: device/JACK start glitches are not measured */
#define CB_MAX_COUNTS    16
#define CB_SOUND_FRAMES  BD_RATE /* 1 s */
#define CB_NUM_LEN       32
#define CB_GOLDEN        0.61803398874989485
#define CB_GOLDEN_ANG    2.39996322972865332
#define CB_MIN_D         1.0 /* voices sit between 1 and 4 m away */
#define CB_SPAN_D        3.0
#define CB_MAX_DISTANCE  1000.0f /* nothing virtual: every voice is mixed */
#define CB_FLOOR_DB      "-144"  /* --audibility-floor: its minimum */
#define CB_MAX_ARGS      24
#define CB_DEF_START     256 /* --find-max: the first count tried */
#define CB_DEF_TRIAL     2.0 /* --find-max: seconds judged per count in the search */
#define CB_DEF_RES       5.0 /* --find-max: % between the largest held and smallest failed */
#define CB_MIN_STEP      16  /* ... but never finer than this many voices */
#define CB_DEF_P99       0.8 /* --find-max: held while p99 load <= this */
#define CB_DEF_MAXLOAD   1.0 /* ... and max load <= this (no callback past its period) */
#define CB_CONFIRM_TRIES 3   /* confirmations, each a resolution step lower than the last */
#define CB_DRAIN_S       5.0 /* seconds to wait for stopped voices to leave */
#define CB_POLL_S        0.05

static void position(int i, int n, float pos[3]) {
    double y = 1.0 - 2.0 * (i + 0.5) / n;
    double r = sqrt(1.0 - y * y);
    double phi = CB_GOLDEN_ANG * (i + 0.5);
    double d = CB_MIN_D + CB_SPAN_D * fmod(0.5 + i * CB_GOLDEN, 1.0);
    pos[0] = (float)(d * r * cos(phi));
    pos[1] = (float)(d * y);
    pos[2] = (float)(d * r * sin(phi));
}

#define CB_USAGE                                                                                   \
    "[--heliod PATH] [--driver null|portaudio] [--device NAME]\n"                                  \
    "          [--period FRAMES] [--counts N,N,...] [--settle SECONDS]\n"                          \
    "          [--scene easy|pitched|worst] [--cpu-budget PCT] [--hrtf]\n"                         \
    "          [--layout stereo|quad|5.1|7.1|7.1.4] [--mix-threads N] [--start-settle S]\n"        \
    "          [--find-max [--start N] [--max-voices N] [--trial SECONDS]\n"                       \
    "           [--retries K] [--resolution PCT] [--p99-bound LOAD] [--max-bound LOAD]]\n"         \
    "  --heliod      the daemon to start (default: the build's)\n"                                 \
    "  --driver      null (default) or portaudio; --device picks the output\n"                     \
    "  --period      frames per callback (default 256)\n"                                          \
    "  --counts      voice counts to measure, ascending (default 0,64,256,1024)\n"                 \
    "  --settle      seconds measured per count (default 3); with --find-max, the\n"               \
    "                confirmation of the count found (60 for the published figure)\n"              \
    "  --scene       easy: 3D looping voices at pitch 1 (default); pitched:\n"                     \
    "                each its own pitch (linear); worst: pitched and cubic\n"                      \
    "  --cpu-budget  the daemon's governor budget, % of the period (0: off;\n"                     \
    "                default 70, with --find-max 0)\n"                                             \
    "  --hrtf        start the daemon with --hrtf: every voice binaural\n"                         \
    "  --layout      the daemon's output layout (default stereo)\n"                                \
    "  --mix-threads the daemon's --mix-threads (default: its own)\n"                              \
    "  --find-max    search the largest count the scene holds instead of --counts:\n"              \
    "                doubling from --start (default 256) up to --max-voices\n"                     \
    "                (default and at most heliod's cap, 65536), then bisection\n"                  \
    "                until the gap is within --resolution % (default 5, at least\n"                \
    "                16 voices), each count judged over --trial seconds (default 2;\n"             \
    "                a count that fails is judged again up to --retries times,\n"                  \
    "                default 0: one try)\n"                                                        \
    "                in one daemon started at --max-voices; a count is held when\n"                \
    "                xruns = 0, every voice is mixed, p99 load <= --p99-bound\n"                   \
    "                (default 0.8) and max load <= --max-bound (default 1.0).\n"                   \
    "                The count found is confirmed over --settle seconds in a fresh\n"              \
    "                daemon started at --voices N (stepping down by the resolution,\n"             \
    "                or to N x bound / p99 load where that was over its bound,\n"                  \
    "                if it fails, 3 tries); one line: callback-max driver\n"                       \
    "                mix_threads scene voices held_s xruns p99_load max_load ...\n"                \
    "                held (1, or 0 when no try held); each search step goes to\n"                  \
    "                stderr as '# trial ...'; exit 0 unless a run failed\n"                        \
    "  --start-settle seconds after each daemon's start before measuring (default\n"               \
    "                1: device and JACK start glitches are not measured)\n"                        \
    "Prints one line per count: callback p99/max load and time, xruns,\n"                          \
    "underruns, overruns and the governor's figures."

typedef struct {
    const char *heliod, *driver, *device, *scene, *budget, *layout, *mix_threads;
    int period, hrtf, pitched, worst;
    double start_settle; /* seconds after start-up before the first measurement */
} cb_cfg_t;

/* One daemon with up to max_n voices of the scene, `playing` of them on. */
typedef struct {
    bd_daemon_t d;
    heliod_t *h;
    int max_n, playing;
    heliod_voice_t *v; /* max_n handles, in play order */
} cb_run_t;

/* One measurement: the daemon's statistics after `settle` seconds, and the
 * counters' growth over them. */
typedef struct {
    bd_stats_t st;
    double xruns, underruns, callbacks, overruns, late;
} cb_meas_t;

static int run_start(cb_run_t *r, const cb_cfg_t *c, int max_n, int verbose) {
    memset(r, 0, sizeof *r);
    r->max_n = max_n;
    r->v = calloc((size_t)(max_n > 0 ? max_n : 1), sizeof *r->v);
    if (!r->v) return -1;
    char period_s[CB_NUM_LEN], voices_s[CB_NUM_LEN], logical_s[CB_NUM_LEN];
    snprintf(period_s, sizeof period_s, "%d", c->period);
    snprintf(voices_s, sizeof voices_s, "%d", max_n);
    snprintf(logical_s, sizeof logical_s, "%d", max_n * 2); /* one client holds them all (at most
                                                             * HLD_MAX_LOGICAL: twice the cap) */
    /* Every voice is mixed: at gain 1/max_n and 1..4 m the quietest voices sit
     * near -72 dB, below the voice manager's default -60 dB audibility floor,
     * so the floor goes to its minimum (else they would all be virtual). */
    const char *args[CB_MAX_ARGS] = {
        "--driver",         c->driver, "--period",           period_s,
        "--voices",         voices_s,  "--audibility-floor", CB_FLOOR_DB,
        "--virtual-voices", logical_s, "--client-voices",    voices_s,
        "--cpu-budget",     c->budget};
    int na = 14;
    if (c->mix_threads) {
        args[na++] = "--mix-threads";
        args[na++] = c->mix_threads;
    }
    if (c->hrtf) args[na++] = "--hrtf";
    if (c->layout) {
        args[na++] = "--layout";
        args[na++] = c->layout;
    }
    if (c->device) {
        args[na++] = "--device";
        args[na++] = c->device;
    }
    if (bd_daemon_start(&r->d, c->heliod, args, &r->h) != 0) {
        free(r->v);
        r->v = NULL;
        return -1;
    }
    const heliod_server_info_t *si = heliod_server_info(r->h);
    if (verbose)
        fprintf(stderr, "# heliod %s rate=%u period=%u voices=%u driver=%s\n", si->server_version,
                si->rate, si->period, si->voices, c->driver);
    char wav[BD_PATH_MAX];
    snprintf(wav, sizeof wav, "%s/noise.wav", r->d.dir);
    if (bd_write_noise_wav(wav, CB_SOUND_FRAMES, 1) != 0) return -1;
    int err = heliod_load(r->h, "noise", wav, 0, NULL);
    if (err != 0) {
        fprintf(stderr, "load: %s (%s)\n", heliod_strerror(err), heliod_last_error(r->h));
        return -1;
    }
    bd_sleep(c->start_settle);
    return 0;
}

static int run_stop(cb_run_t *r, int failed) {
    heliod_close(r->h);
    r->h = NULL;
    free(r->v);
    r->v = NULL;
    return bd_daemon_stop(&r->d, failed);
}

/* Brings the playing voices to n (<= max_n): new ones played in order, the
 * newest stopped first; then waits until the daemon counts n active. */
static int run_set(cb_run_t *r, const cb_cfg_t *c, int n) {
    for (; r->playing > n; r->playing--) {
        int err = heliod_stop(r->h, r->v[r->playing - 1], 0.0f);
        if (err != 0) {
            fprintf(stderr, "stop %d: %s (%s)\n", r->playing - 1, heliod_strerror(err),
                    heliod_last_error(r->h));
            return -1;
        }
    }
    for (; r->playing < n; r->playing++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D | (c->worst ? HELIOD_PLAY_CUBIC : 0u);
        if (c->pitched || c->worst) /* golden-ratio spread over 0.9..1.1 */
            p.pitch = (float)(0.9 + 0.2 * fmod(r->playing * CB_GOLDEN, 1.0));
        p.gain_db = (float)(-20.0 * log10((double)r->max_n));
        position(r->playing, r->max_n, p.pos);
        p.max_distance = CB_MAX_DISTANCE;
        int err = heliod_play(r->h, "noise", &p, &r->v[r->playing], NULL);
        if (err != 0) {
            fprintf(stderr, "play %d: %s (%s)\n", r->playing, heliod_strerror(err),
                    heliod_last_error(r->h));
            return -1;
        }
    }
    bd_sleep(CB_FADE_SETTLE);
    for (double waited = 0; waited < CB_DRAIN_S; waited += CB_POLL_S) {
        bd_stats_t st;
        if (bd_stats(r->h, &st, 0) != 0) return -1;
        if (bd_stat(&st, "voices_active") <= n) return 0;
        bd_sleep(CB_POLL_S);
    }
    fprintf(stderr, "stopped voices did not leave within %.0f s\n", CB_DRAIN_S);
    return -1;
}

static int run_measure(cb_run_t *r, double settle, cb_meas_t *m) {
    bd_stats_t st0;
    if (bd_stats(r->h, &st0, 1) != 0) return -1;
    bd_sleep(settle);
    if (bd_stats(r->h, &m->st, 0) != 0) return -1;
    m->xruns = bd_stat(&m->st, "xruns") - bd_stat(&st0, "xruns");
    m->underruns = bd_stat(&m->st, "underruns") - bd_stat(&st0, "underruns");
    m->callbacks = bd_stat(&m->st, "callbacks") - bd_stat(&st0, "callbacks");
    m->overruns = bd_stat(&m->st, "callback_overruns") - bd_stat(&st0, "callback_overruns");
    m->late = bd_stat(&m->st, "mix_worker_late") - bd_stat(&st0, "mix_worker_late");
    return 0;
}

static double cb_stat(const cb_meas_t *m, const char *key) {
    return bd_stat(&m->st, key);
}

/* Held: no xrun, every voice mixed, the load within both bounds. */
static int held(const cb_meas_t *m, int n, double p99_bound, double max_bound) {
    return m->xruns == 0 && cb_stat(m, "voices_mixed") >= n &&
           cb_stat(m, "callback_load_p99") <= p99_bound &&
           cb_stat(m, "callback_load_max") <= max_bound;
}

static void print_line(const cb_cfg_t *c, int n, const cb_meas_t *m) {
    printf("callback driver=%s voices=%d period=%d p99_load=%.4f max_load=%.4f p99_us=%.1f "
           "max_us=%.1f xruns=%.0f avg_us=%.1f p50_us=%.1f period_us=%.1f callbacks=%.0f "
           "underruns=%.0f voices_active=%.0f voices_mixed=%.0f voices_virtual=%.0f "
           "scene=%s voices_governed=%.0f governor_hits=%.0f overruns=%.0f hrtf=%.0f "
           "hrtf_voices=%.0f output_channels=%.0f mix_threads=%.0f mix_worker_late=%.0f\n",
           c->driver, n, (int)cb_stat(m, "period"), cb_stat(m, "callback_load_p99"),
           cb_stat(m, "callback_load_max"), cb_stat(m, "callback_us_p99"),
           cb_stat(m, "callback_us_max"), m->xruns, cb_stat(m, "callback_us_avg"),
           cb_stat(m, "callback_us_p50"), cb_stat(m, "period_us"), m->callbacks, m->underruns,
           cb_stat(m, "voices_active"), cb_stat(m, "voices_mixed"), cb_stat(m, "voices_virtual"),
           c->scene, cb_stat(m, "voices_governed"), cb_stat(m, "governor_hits"), m->overruns,
           cb_stat(m, "hrtf"), cb_stat(m, "hrtf_voices"), cb_stat(m, "output_channels"),
           cb_stat(m, "mix_threads"), m->late);
    fflush(stdout);
}

/* The --counts run: one daemon at the largest count, the counts in turn. */
static int run_counts(const cb_cfg_t *c, const int *counts, int ncounts, int max_n, double settle) {
    cb_run_t r;
    if (run_start(&r, c, max_n, 1) != 0) return run_stop(&r, 1), 1;
    int rc = 0;
    for (int i = 0; i < ncounts && rc == 0; i++) {
        cb_meas_t m;
        rc = run_set(&r, c, counts[i]) || run_measure(&r, settle, &m);
        if (rc == 0) print_line(c, counts[i], &m);
    }
    run_stop(&r, rc != 0);
    return rc;
}

typedef struct {
    int start, max_voices, retries;
    double trial, settle, res, p99_bound, max_bound;
} cb_find_t;

static int step_of(const cb_find_t *f, int n) {
    int s = (int)(n * f->res / 100.0);
    return s > CB_MIN_STEP ? s : CB_MIN_STEP;
}

/* The next count to confirm after n failed: one resolution step lower, or
 * lower still where its p99 load was over the bound (the p99 grows about
 * linearly with the voices: n scaled by bound / p99). Not by the max: one
 * preempted callback sets it, whatever the count. */
static int step_down(const cb_find_t *f, int n, const cb_meas_t *m) {
    int next = n - step_of(f, n);
    double p99 = cb_stat(m, "callback_load_p99");
    if (p99 > f->p99_bound && (int)(n * f->p99_bound / p99) < next)
        next = (int)(n * f->p99_bound / p99);
    return next > 0 ? next : 0;
}

/* Doubling, then bisection, in one daemon at max_voices: the largest count
 * held (0 if none) in *found, the counts tried in *trials. */
static int search(const cb_cfg_t *c, const cb_find_t *f, int *found, int *trials) {
    cb_run_t r;
    if (run_start(&r, c, f->max_voices, 1) != 0) return run_stop(&r, 1), -1;
    int lo = 0, hi = 0; /* largest held, smallest failed (0: none yet) */
    *trials = 0;
    for (;;) {
        int n;
        if (hi == 0) {
            if (lo >= f->max_voices) break; /* the cap holds */
            n = lo == 0 ? f->start : 2 * lo;
            if (n > f->max_voices) n = f->max_voices;
        } else {
            if (hi - lo <= step_of(f, lo)) break;
            n = lo + (hi - lo) / 2;
        }
        if (run_set(&r, c, n) != 0) return run_stop(&r, 1), -1;
        int ok = 0;
        for (int t = 0; t <= f->retries && !ok; t++) { /* a failed count may be tried again */
            cb_meas_t m;
            if (run_measure(&r, f->trial, &m) != 0) return run_stop(&r, 1), -1;
            ok = held(&m, n, f->p99_bound, f->max_bound);
            (*trials)++;
            fprintf(stderr,
                    "# trial voices=%d held=%d xruns=%.0f p99_load=%.4f max_load=%.4f "
                    "voices_mixed=%.0f voices_governed=%.0f\n",
                    n, ok, m.xruns, cb_stat(&m, "callback_load_p99"),
                    cb_stat(&m, "callback_load_max"), cb_stat(&m, "voices_mixed"),
                    cb_stat(&m, "voices_governed"));
        }
        if (ok)
            lo = n;
        else
            hi = n;
    }
    run_stop(&r, 0);
    *found = lo;
    return 0;
}

/* --find-max: the search, then the count found confirmed over settle seconds
 * in a daemon of its own size. */
static int find_max(const cb_cfg_t *c, const cb_find_t *f) {
    uint64_t t0 = bd_now_ns();
    int n = 0, trials = 0;
    if (search(c, f, &n, &trials) != 0) return 1;
    cb_meas_t m;
    memset(&m, 0, sizeof m);
    int ok = 0, tries = 0, last = n; /* last: the count the line's figures are of */
    while (n > 0 && !ok && tries < CB_CONFIRM_TRIES) {
        cb_run_t r;
        tries++;
        last = n;
        if (run_start(&r, c, n, 0) != 0 || run_set(&r, c, n) != 0 ||
            run_measure(&r, f->settle, &m) != 0)
            return run_stop(&r, 1), 1;
        run_stop(&r, 0);
        ok = held(&m, n, f->p99_bound, f->max_bound);
        fprintf(stderr, "# confirm voices=%d held=%d xruns=%.0f p99_load=%.4f max_load=%.4f\n", n,
                ok, m.xruns, cb_stat(&m, "callback_load_p99"), cb_stat(&m, "callback_load_max"));
        if (!ok) n = step_down(f, n, &m);
    }
    printf("callback-max driver=%s mix_threads=%.0f scene=%s voices=%d held_s=%g xruns=%.0f "
           "p99_load=%.4f max_load=%.4f p99_us=%.1f max_us=%.1f avg_us=%.1f overruns=%.0f "
           "underruns=%.0f voices_mixed=%.0f voices_governed=%.0f mix_worker_late=%.0f "
           "period=%d held=%d confirm_tries=%d trials=%d trial_s=%g retries=%d resolution_pct=%g "
           "p99_bound=%g max_bound=%g max_voices=%d capped=%d cpu_budget=%s search_s=%.1f\n",
           c->driver, cb_stat(&m, "mix_threads"), c->scene, last, tries ? f->settle : 0.0, m.xruns,
           cb_stat(&m, "callback_load_p99"), cb_stat(&m, "callback_load_max"),
           cb_stat(&m, "callback_us_p99"), cb_stat(&m, "callback_us_max"),
           cb_stat(&m, "callback_us_avg"), m.overruns, m.underruns, cb_stat(&m, "voices_mixed"),
           cb_stat(&m, "voices_governed"), m.late, c->period, ok, tries, trials, f->trial,
           f->retries, f->res, f->p99_bound, f->max_bound, f->max_voices,
           ok && last == f->max_voices, c->budget, (double)(bd_now_ns() - t0) / BD_NS_PER_S);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    cb_cfg_t c = {.driver = "null",
                  .scene = "easy",
                  .period = CB_DEF_PERIOD,
                  .start_settle = CB_START_SETTLE};
    const char *heliod_arg = NULL, *counts_arg = CB_DEF_COUNTS;
    double settle = CB_DEF_SETTLE;
    int find = 0;
    cb_find_t f = {CB_DEF_START, HL_MAX_VOICES, 0, CB_DEF_TRIAL, 0, CB_DEF_RES,
                   CB_DEF_P99,   CB_DEF_MAXLOAD};
    const bo_opt_t opts[] = {{"heliod", 's', &heliod_arg},
                             {"driver", 's', &c.driver},
                             {"device", 's', &c.device},
                             {"period", 'i', &c.period},
                             {"counts", 's', &counts_arg},
                             {"settle", 'd', &settle},
                             {"scene", 's', &c.scene},
                             {"cpu-budget", 's', &c.budget},
                             {"hrtf", 'b', &c.hrtf},
                             {"layout", 's', &c.layout},
                             {"mix-threads", 's', &c.mix_threads},
                             {"find-max", 'b', &find},
                             {"start", 'i', &f.start},
                             {"max-voices", 'i', &f.max_voices},
                             {"trial", 'd', &f.trial},
                             {"resolution", 'd', &f.res},
                             {"p99-bound", 'd', &f.p99_bound},
                             {"max-bound", 'd', &f.max_bound},
                             {"start-settle", 'd', &c.start_settle},
                             {"retries", 'i', &f.retries},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, CB_USAGE);
    int counts[CB_MAX_COUNTS], ncounts = 0, max_n = 1;
    char *list = strdup(counts_arg);
    for (char *tok = strtok(list, ","); tok && ncounts < CB_MAX_COUNTS; tok = strtok(NULL, ",")) {
        counts[ncounts] = atoi(tok);
        if (counts[ncounts] < 0) bo_usage(argv[0], CB_USAGE);
        if (counts[ncounts] > max_n) max_n = counts[ncounts];
        ncounts++;
    }
    free(list);
    c.pitched = strcmp(c.scene, "pitched") == 0;
    c.worst = strcmp(c.scene, "worst") == 0;
    if (ncounts == 0 || c.period <= 0 || settle <= 0 || c.start_settle < 0 ||
        (!c.pitched && !c.worst && strcmp(c.scene, "easy")))
        bo_usage(argv[0], CB_USAGE);
    if (find && (f.max_voices < 1 || f.max_voices > HL_MAX_VOICES || f.start < 1 || f.trial <= 0 ||
                 f.retries < 0 || f.res <= 0 || f.p99_bound <= 0 || f.max_bound <= 0)) {
        fprintf(stderr,
                "callback: --max-voices must be 1..%d; --start, --trial, --resolution, "
                "--p99-bound and --max-bound above 0; --retries 0 or more\n",
                HL_MAX_VOICES);
        bo_usage(argv[0], CB_USAGE);
    }
    if (f.start > f.max_voices) f.start = f.max_voices;
    if (!c.budget) c.budget = find ? "0" : "70"; /* the search measures the raw cost */

    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    c.heliod = heliod;
    if (find) {
        f.settle = settle;
        return find_max(&c, &f);
    }
    return run_counts(&c, counts, ncounts, max_n, settle);
}
