/*
 * test_governor.c - the CPU-budget governor on the real daemon (null driver,
 * or PortAudio on a JACK dummy server with argv[1] = "jack"): the worst-case
 * scene (every voice 3D, looping, its own pitch, cubic) at the daemon's
 * maximum voice count. The callback stays inside the period (no overrun: the
 * audio thread's own cost never misses a deadline), the voices it cannot
 * afford are virtual (voices_governed, governor_hits), and when most voices
 * stop, the governed ones come back real at the position they would have
 * reached had they played all along.
 *
 * Nothing here depends on the machine's speed: the scene is binaural (HRTF,
 * the dearest voice heliod mixes), the budget is the smallest --cpu-budget
 * accepts, and the daemon's own start-up price of a voice says whether the
 * scene overflows it on this CPU (a CPU on which 4096 binaural voices fit in
 * 15% of the period has nothing to govern: the test says so and skips).
 * Positions are checked in engine frames (each voice's STARTED frame and the
 * engine clock), not in wall-clock time.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"

#define VOICES 4096 /* the old --voices maximum: enough to overflow the smallest budget */
#define SRC_S  20.0 /* long enough that no voice wraps during the test */
/* % of the period: the smallest budget --cpu-budget accepts, so the scene
 * overflows it on any CPU where 4096 binaural voices cost over MIN_LOAD of
 * the period at the start-up price (1.5x this budget: the quality step to
 * linear saves little on a binaural voice, and the daemon's measured price
 * is above the cache-warm calibration's). 65-75% here: a CPU five times as
 * fast still governs */
#define BUDGET   "10"
#define MIN_LOAD 0.15

static const char *g_mode = "null";
static th_daemon_t g_d;
static int g_d_running;
static heliod_t *g_h; /* closed by the teardown, also after a failed assertion */

static uint64_t engine_frame(heliod_t *h) {
    heliod_clock_t c;
    assert_int_equal(heliod_clock(h, &c), 0);
    return c.frame;
}

static heliod_voice_t g_voice[VOICES];

static void on_play(void *user, const heliod_reply_t *r) {
    if (r->status == 0) *(heliod_voice_t *)user = r->voice;
}

static void test_worst_case_scene_is_governed(void **state) {
    (void)state;
    int jack = strcmp(g_mode, "jack") == 0;
    if (jack) {
        if (system("command -v jackd >/dev/null 2>&1") != 0) skip();
        assert_int_equal(th_jackd_start("heliodgov", 256, 1), 0);
    }
    th_daemon_t *dp = &g_d, d;
    const char *args[] = {"--voices",
                          "4096",
                          "--virtual-voices",
                          "4096",
                          "--client-voices",
                          "4096",
                          "--cpu-budget",
                          BUDGET,
                          "--hrtf",
                          "--driver",
                          jack ? "portaudio" : "null",
                          jack ? "--device" : NULL,
                          "system",
                          NULL};
    assert_int_equal(th_daemon_start(dp, 0, args), 0);
    g_d_running = 1;
    d = *dp;
    assert_int_equal(heliod_connect(&g_h, d.sock, "governor"), 0);
    heliod_t *h = g_h;
    char path[400];
    snprintf(path, sizeof path, "%s/noise.wav", d.dir);
    assert_int_equal(th_write_sine(path, 44100, SRC_S, 997, 0.2), 0);
    assert_int_equal(heliod_load(h, "src", path, 0, NULL), 0);
    double xr0 = th_stat(h, "xruns"), ov0 = th_stat(h, "callback_overruns");
    const double calib = th_stat(h, "governor_calib_voice_us"), period_us = th_stat(h, "period_us");
    const double load = VOICES * calib / period_us;
    fprintf(stderr,
            "# start-up price of a worst-case voice: %.2f us, budget %.0f us: %d voices "
            "would take %.0f%% of the %.0f us period\n",
            calib, th_stat(h, "governor_budget_us"), VOICES, 100 * load, period_us);
    assert_true(calib > 0);
    if (load < MIN_LOAD) {
        fprintf(stderr,
                "# this CPU mixes the worst-case scene in under %.0f%% of the period: "
                "nothing to govern\n",
                100 * MIN_LOAD);
        skip();
    }
    const double rate = th_stat(h, "rate");
    assert_true(rate > 0);

    for (int i = 0; i < VOICES; i++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.flags = HELIOD_PLAY_3D | HELIOD_PLAY_LOOP | HELIOD_PLAY_CUBIC;
        double a = i * 2.399963, r = 2.0 + (i % 7);
        p.pos[0] = (float)(r * cos(a));
        p.pos[2] = (float)(r * sin(a));
        p.pitch = (float)(0.9 + 0.2 * fmod(i * 0.6180339887, 1.0));
        p.gain_db = -20;
        p.priority = i % 5;
        p.fade_in_ms = 0;
        assert_true(heliod_play_async(h, "src", &p, on_play, &g_voice[i]) > 0);
    }
    assert_int_equal(heliod_sync(h), 0);
    /* the governor converges on a burst of 4096 plays within about a second
     * (slow start, then cuts and growth); what it holds after that is the
     * steady state the deadline is checked on */
    th_sleep_ms(1000);
    double ov_burst = th_stat(h, "callback_overruns") - ov0;
    ov0 = th_stat(h, "callback_overruns");
    xr0 = th_stat(h, "xruns");
    th_sleep_ms(2000);
    double governed = th_stat(h, "voices_governed"), real = th_stat(h, "voices_real");
    fprintf(stderr,
            "# %d worst-case voices: %.0f real, %.0f governed, cap %.0f, hits %.0f, cuts %.0f, "
            "spikes %.0f, voice %.2f us, callback p99 %.0f us max %.0f us (period %.0f us), "
            "overruns %.0f (first second: %.0f), xruns %.0f\n",
            VOICES, real, governed, th_stat(h, "voices_real_cap"), th_stat(h, "governor_hits"),
            th_stat(h, "governor_cuts"), th_stat(h, "governor_spikes"),
            th_stat(h, "governor_voice_us"), th_stat(h, "callback_us_p99"),
            th_stat(h, "callback_us_max"), th_stat(h, "period_us"),
            th_stat(h, "callback_overruns") - ov0, ov_burst, th_stat(h, "xruns") - xr0);
    assert_true(th_stat(h, "voices_active") == VOICES);
    assert_true(governed > 0);
    /* quality before voices: the first hit the voices explain steps cubic
     * voices down to linear; the cuts come after */
    double steps = th_stat(h, "governor_steps_down");
    fprintf(stderr, "# quality step: %.0f polls stepped down, %.0f real voices linear now\n", steps,
            th_stat(h, "voices_lowq"));
    if (th_stat(h, "governor_hits") - th_stat(h, "governor_spikes") > 0) assert_true(steps > 0);
    /* Held under the budget: the 99th-percentile callback stays inside the
     * period, ten times the budget (sanitized builds cost several times more,
     * unevenly). A single block over the period happens now and then with
     * the limit unchanged (a shared 2-vCPU VM stalls a SCHED_FIFO thread for
     * up to 20 ms): counted and printed, failing only with
     * HELIOD_TEST_XRUNS_STRICT=1, as th_deadlines_ok does for late wake-ups. */
    if (!TH_SANITIZED) assert_true(th_stat(h, "callback_us_p99") < period_us);
    const char *strict = getenv("HELIOD_TEST_XRUNS_STRICT");
    if (strict && *strict == '1' && !TH_SANITIZED)
        assert_true(th_stat(h, "callback_overruns") - ov0 == 0);

    /* keep up to 32 voices that the governor made virtual, as many as half
     * the budget holds at the governor's price of a voice (a few under a
     * sanitizer), stop the rest: they come back real where they would be had
     * they played all along */
    int want = (int)(0.5 * th_stat(h, "governor_budget_us") / th_stat(h, "governor_voice_us"));
    if (want > 32) want = 32;
    if (want < 2) want = 2;
    heliod_voice_info_t *vi = calloc(VOICES, sizeof *vi);
    assert_non_null(vi);
    size_t n = 0;
    assert_true(heliod_voices(h, vi, VOICES, &n) >= 0); /* the first HL_MAX_LIST of them */
    heliod_voice_t keep[32];
    float keep_pitch[32];
    uint64_t keep_start[32];
    int nk = 0;
    for (size_t i = 0; i < n && nk < want; i++) {
        if (vi[i].state == HELIOD_VOICE_VIRTUAL) {
            keep_pitch[nk] = vi[i].pitch;
            assert_int_equal(heliod_voice_start_frame(h, vi[i].voice, &keep_start[nk]), 0);
            keep[nk++] = vi[i].voice;
        }
    }
    assert_int_equal(nk, want);
    for (int i = 0; i < VOICES; i++) {
        int kept = 0;
        for (int k = 0; k < nk; k++)
            kept |= keep[k] == g_voice[i];
        assert_true(g_voice[i] != 0);
        if (!kept) assert_true(heliod_stop_async(h, g_voice[i], 5) > 0);
    }
    assert_int_equal(heliod_sync(h), 0);
    /* the stopped voices fade out, the next rankings bring the kept ones back */
    uint64_t f0 = 0, f1 = 0;
    int back = 0;
    for (int tries = 0; tries < 100 && back < nk; tries++) {
        th_sleep_ms(100);
        f0 = engine_frame(h);
        assert_true(heliod_voices(h, vi, VOICES, &n) >= 0);
        f1 = engine_frame(h);
        back = 0;
        for (size_t i = 0; i < n; i++)
            back += vi[i].state == HELIOD_VOICE_PLAYING;
    }
    fprintf(stderr, "# %d of %d kept voices real again\n", back, nk);
    assert_int_equal(n, (size_t)nk);
    double worst_err = 0;
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        while (k < nk && keep[k] != vi[i].voice)
            k++;
        assert_true(k < nk);
        assert_int_equal(vi[i].state, HELIOD_VOICE_PLAYING); /* real again */
        /* engine time since its STARTED frame, at the clock readings around
         * the listing, times its pitch */
        double lo = (double)(f0 - keep_start[k]) / rate * keep_pitch[k],
               hi = (double)(f1 - keep_start[k]) / rate * keep_pitch[k];
        double p = vi[i].position_s;
        double err = p < lo ? lo - p : p > hi ? p - hi : 0;
        if (err > worst_err) worst_err = err;
    }
    fprintf(stderr,
            "# governed voices back: worst position error %.1f ms (%.0f engine frames) after "
            "%.1f s of engine time\n",
            worst_err * 1e3, worst_err * rate, (double)f1 / rate);
    /* a voice comes back at the engine frame the main loop last read, so it
     * is off by the block or two before its start reaches the audio thread:
     * 0.1 s of engine time also covers a main thread descheduled for a while
     * on a loaded machine, and the error does not grow with the CPU's speed */
    assert_true(worst_err < 0.1);
    free(vi);
}

/* After the test, passed or failed: the daemon, then the JACK server. */
static int teardown(void **state) {
    (void)state;
    int rc = 0;
    heliod_close(g_h);
    g_h = NULL;
    if (g_d_running) {
        rc = th_daemon_stop(&g_d, NULL);
        th_daemon_cleanup(&g_d);
        g_d_running = 0;
    }
    th_jackd_stop();
    return rc == 0 ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc > 1) g_mode = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_worst_case_scene_is_governed, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
