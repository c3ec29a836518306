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
 * usage: callback [--heliod PATH] [--driver null|portaudio] [--device NAME]
 *                 [--period FRAMES] [--counts 0,64,256,1024] [--settle S]
 *                 [--scene easy|pitched|worst] [--cpu-budget PCT] [--hrtf]
 *                 [--layout stereo|quad|5.1|7.1|7.1.4]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define CB_DEF_PERIOD  256
#define CB_DEF_COUNTS  "0,64,256,1024"
#define CB_DEF_SETTLE  3.0  /* seconds measured per voice count */
#define CB_FADE_SETTLE 0.25 /* seconds for start fades to finish before the reset */
#define CB_START_SETTLE                                                                            \
    1.0 /* seconds after start-up: device/JACK start glitches are not measured */
#define CB_MAX_COUNTS   16
#define CB_SOUND_FRAMES BD_RATE /* 1 s */
#define CB_NUM_LEN      32
#define CB_GOLDEN       0.61803398874989485
#define CB_GOLDEN_ANG   2.39996322972865332
#define CB_MIN_D        1.0 /* voices sit between 1 and 4 m away */
#define CB_SPAN_D       3.0
#define CB_MAX_DISTANCE 1000.0f /* nothing virtual: every voice is mixed */
#define CB_FLOOR_DB     "-144"  /* --audibility-floor: its minimum */

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
    "          [--layout stereo|quad|5.1|7.1|7.1.4] [--mix-threads N]\n"                           \
    "  --heliod      the daemon to start (default: the build's)\n"                                 \
    "  --driver      null (default) or portaudio; --device picks the output\n"                     \
    "  --period      frames per callback (default 256)\n"                                          \
    "  --counts      voice counts to measure, ascending (default 0,64,256,1024)\n"                 \
    "  --settle      seconds measured per count (default 3)\n"                                     \
    "  --scene       easy: 3D looping voices at pitch 1 (default); pitched:\n"                     \
    "                each its own pitch (linear); worst: pitched and cubic\n"                      \
    "  --cpu-budget  the daemon's governor budget, % of the period (0: off)\n"                     \
    "  --hrtf        start the daemon with --hrtf: every voice binaural\n"                         \
    "  --layout      the daemon's output layout (default stereo)\n"                                \
    "  --mix-threads the daemon's --mix-threads (default: its own)\n"                              \
    "Prints one line per count: callback p99/max load and time, xruns,\n"                          \
    "underruns, overruns and the governor's figures."

int main(int argc, char **argv) {
    const char *heliod_arg = NULL, *driver = "null", *device = NULL, *counts_arg = CB_DEF_COUNTS;
    int period = CB_DEF_PERIOD;
    double settle = CB_DEF_SETTLE;
    const char *scene = "easy", *budget = NULL;
    int hrtf = 0;
    const char *layout = NULL, *mix_threads = NULL;
    const bo_opt_t opts[] = {
        {"heliod", 's', &heliod_arg}, {"driver", 's', &driver},           {"device", 's', &device},
        {"period", 'i', &period},     {"counts", 's', &counts_arg},       {"settle", 'd', &settle},
        {"scene", 's', &scene},       {"cpu-budget", 's', &budget},       {"hrtf", 'b', &hrtf},
        {"layout", 's', &layout},     {"mix-threads", 's', &mix_threads}, {NULL, 0, NULL}};
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
    int pitched = strcmp(scene, "pitched") == 0, worst = strcmp(scene, "worst") == 0;
    if (ncounts == 0 || period <= 0 || settle <= 0 || (!pitched && !worst && strcmp(scene, "easy")))
        bo_usage(argv[0], CB_USAGE);

    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    char period_s[CB_NUM_LEN], voices_s[CB_NUM_LEN], logical_s[CB_NUM_LEN];
    snprintf(period_s, sizeof period_s, "%d", period);
    snprintf(voices_s, sizeof voices_s, "%d", max_n);
    snprintf(logical_s, sizeof logical_s, "%d", max_n * 2); /* one client holds them all */
    /* Every voice is mixed: at gain 1/max_n and 1..4 m the quietest voices sit
     * near -72 dB, below the voice manager's default -60 dB audibility floor,
     * so the floor goes to its minimum (else they would all be virtual). */
    const char *args[] = {"--driver",
                          driver,
                          "--period",
                          period_s,
                          "--voices",
                          voices_s,
                          "--audibility-floor",
                          CB_FLOOR_DB,
                          "--virtual-voices",
                          logical_s,
                          "--client-voices",
                          voices_s,
                          "--cpu-budget",
                          budget ? budget : "70",
                          NULL,
                          NULL,
                          NULL,
                          NULL,
                          NULL,
                          NULL,
                          NULL,
                          NULL};
    int na = 14;
    if (mix_threads) {
        args[na++] = "--mix-threads";
        args[na++] = mix_threads;
    }
    if (hrtf) args[na++] = "--hrtf";
    if (layout) {
        args[na++] = "--layout";
        args[na++] = layout;
    }
    if (device) {
        args[na++] = "--device";
        args[na++] = device;
    }

    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    const heliod_server_info_t *si = heliod_server_info(h);
    fprintf(stderr, "# heliod %s rate=%u period=%u voices=%u driver=%s\n", si->server_version,
            si->rate, si->period, si->voices, driver);

    int rc = 1;
    char wav[BD_PATH_MAX];
    snprintf(wav, sizeof wav, "%s/noise.wav", d.dir);
    if (bd_write_noise_wav(wav, CB_SOUND_FRAMES, 1) != 0) goto out;
    int err = heliod_load(h, "noise", wav, 0, NULL);
    if (err != 0) {
        fprintf(stderr, "load: %s (%s)\n", heliod_strerror(err), heliod_last_error(h));
        goto out;
    }

    bd_sleep(CB_START_SETTLE);
    int playing = 0;
    for (int c = 0; c < ncounts; c++) {
        int n = counts[c];
        if (n < playing) { /* descending list: start over */
            heliod_stop_all(h, 0.0f, 0, NULL);
            playing = 0;
        }
        for (; playing < n; playing++) {
            heliod_play_params_t p;
            heliod_play_params_init(&p);
            p.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D | (worst ? HELIOD_PLAY_CUBIC : 0u);
            if (pitched || worst) /* golden-ratio spread over 0.9..1.1 */
                p.pitch = (float)(0.9 + 0.2 * fmod(playing * CB_GOLDEN, 1.0));
            p.gain_db = (float)(-20.0 * log10((double)max_n));
            position(playing, max_n, p.pos);
            p.max_distance = CB_MAX_DISTANCE;
            heliod_voice_t v;
            err = heliod_play(h, "noise", &p, &v, NULL);
            if (err != 0) {
                fprintf(stderr, "play %d: %s (%s)\n", playing, heliod_strerror(err),
                        heliod_last_error(h));
                goto out;
            }
        }
        bd_sleep(CB_FADE_SETTLE);
        bd_stats_t st;
        if (bd_stats(h, &st, 1) != 0) goto out;
        double xr0 = bd_stat(&st, "xruns"), un0 = bd_stat(&st, "underruns");
        double cb0 = bd_stat(&st, "callbacks"), ov0 = bd_stat(&st, "callback_overruns");
        double late0 = bd_stat(&st, "mix_worker_late");
        bd_sleep(settle);
        if (bd_stats(h, &st, 0) != 0) goto out;
        printf("callback driver=%s voices=%d period=%d p99_load=%.4f max_load=%.4f p99_us=%.1f "
               "max_us=%.1f xruns=%.0f avg_us=%.1f p50_us=%.1f period_us=%.1f callbacks=%.0f "
               "underruns=%.0f voices_active=%.0f voices_mixed=%.0f voices_virtual=%.0f "
               "scene=%s voices_governed=%.0f governor_hits=%.0f overruns=%.0f hrtf=%.0f "
               "hrtf_voices=%.0f output_channels=%.0f mix_threads=%.0f mix_worker_late=%.0f\n",
               driver, n, (int)bd_stat(&st, "period"), bd_stat(&st, "callback_load_p99"),
               bd_stat(&st, "callback_load_max"), bd_stat(&st, "callback_us_p99"),
               bd_stat(&st, "callback_us_max"), bd_stat(&st, "xruns") - xr0,
               bd_stat(&st, "callback_us_avg"), bd_stat(&st, "callback_us_p50"),
               bd_stat(&st, "period_us"), bd_stat(&st, "callbacks") - cb0,
               bd_stat(&st, "underruns") - un0, bd_stat(&st, "voices_active"),
               bd_stat(&st, "voices_mixed"), bd_stat(&st, "voices_virtual"), scene,
               bd_stat(&st, "voices_governed"), bd_stat(&st, "governor_hits"),
               bd_stat(&st, "callback_overruns") - ov0, bd_stat(&st, "hrtf"),
               bd_stat(&st, "hrtf_voices"), bd_stat(&st, "output_channels"),
               bd_stat(&st, "mix_threads"), bd_stat(&st, "mix_worker_late") - late0);
        fflush(stdout);
    }
    rc = 0;
out:
    heliod_close(h);
    bd_daemon_stop(&d, rc != 0);
    return rc;
}
