/*
 * test_interp.c - the interpolators' quality on the daemon's real output:
 * heliod runs on the null driver with --record; -6 dBFS sines (WAV files
 * made here, at 48 kHz) are played one after another at their pitch, each
 * scheduled on an exact engine frame, and the recording (frame k = engine
 * frame k) is measured. SINAD (the fitted sine against everything else, dB)
 * must reach the targets with --interp sinc: >= 90 dB at 1 kHz, and at 5,
 * 10 and 15 kHz at least the best-in-class figures; a 20 kHz sine at pitch
 * 1.5 must leave its 18 kHz alias <= -85 dB relative to an in-band tone's
 * level. Linear and cubic are measured too (printed, and each must be worse
 * than sinc), so a regression of any of them shows. The sinc voices are
 * asked for three ways: a play flag, a cue (`interp = sinc` through
 * heliodctl), and the daemon default (--interp sinc, second daemon). The
 * null driver runs SPEED times faster than real time (HELIOD_NULL_SPEED):
 * every tone is scheduled on its engine frame, so the recording is the same.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"
#include "../unit/sinad.h"

#define RATE  48000
#define SLOT  (RATE * 7 / 10) /* frames between starts */
#define DUR   (RATE / 2)      /* frames each tone plays */
#define SKIP  (RATE / 10)     /* frames skipped at the start of each (kernel, fade-in) */
#define LEN   (RATE / 4)      /* frames measured */
#define SPEED "8"             /* HELIOD_NULL_SPEED */
#define AHEAD (RATE * 4)      /* the first tone's frame from now: 0.5 s of wall time to send all */

/* A daemon on the null driver at SPEED times real time, recording. */
static void start_fast(th_daemon_t *d, const char **args) {
    setenv("HELIOD_NULL_SPEED", SPEED, 1); /* for the daemon only */
    assert_int_equal(th_daemon_start(d, 1, args), 0);
    unsetenv("HELIOD_NULL_SPEED");
}

typedef struct {
    double freq;
    float pitch;
    uint32_t flags;  /* HELIOD_PLAY_* interpolator, or 0: the daemon's default */
    const char *cue; /* play this cue instead (NULL: the sound) */
} tone_t;

/* SINAD (dB) of the left channel of interleaved stereo x at freq. */
static double sinad_db(const float *x, size_t n, double freq, double *amp) {
    return test_sinad_db(x, 2, n, freq, RATE, amp);
}

/* Plays tones[0..n) one per SLOT from a frame a little ahead, each for DUR
 * frames, then stops the daemon and returns its recording and where the
 * first tone starts. */
static float *play_all(th_daemon_t *d, heliod_t *h, const tone_t *tones, int n, uint64_t *base,
                       size_t *frames) {
    heliod_clock_t c;
    assert_int_equal(heliod_clock(h, &c), 0);
    *base = c.frame + AHEAD;
    char name[32];
    for (int i = 0; i < n; i++) {
        heliod_play_params_t pp;
        heliod_play_params_init(&pp);
        pp.pitch = tones[i].pitch;
        pp.flags = tones[i].flags;
        pp.fade_in_ms = 0.0f;
        snprintf(name, sizeof name, "s%.0f", tones[i].freq);
        heliod_voice_t v = 0;
        heliod_at_frame(h, *base + (uint64_t)i * SLOT);
        assert_int_equal(heliod_play(h, tones[i].cue ? tones[i].cue : name, &pp, &v, NULL), 0);
        assert_int_equal(heliod_late_frames(h), 0);
        heliod_at_frame(h, *base + (uint64_t)i * SLOT + DUR);
        assert_int_equal(heliod_stop(h, v, 5), 0);
    }
    heliod_at_frame(h, 0);
    /* wait until the last has played */
    for (;;) {
        assert_int_equal(heliod_clock(h, &c), 0);
        if (c.frame > *base + (uint64_t)n * SLOT + RATE / 10) break;
        th_sleep_ms(50);
    }
    assert_true(th_stat(h, "record_dropped_frames") == 0.0);
    heliod_close(h);
    float *x = th_stop_read_stereo(d, frames, RATE);
    assert_true(*frames >= *base + (uint64_t)n * SLOT);
    return x;
}

static void load_tones(th_daemon_t *d, heliod_t *h) {
    const double freqs[] = {1000, 5000, 10000, 15000, 20000};
    char path[400], name[32];
    for (unsigned i = 0; i < sizeof freqs / sizeof freqs[0]; i++) {
        snprintf(path, sizeof path, "%s/s%.0f.wav", d->dir, freqs[i]);
        snprintf(name, sizeof name, "s%.0f", freqs[i]);
        assert_int_equal(th_write_sine(path, RATE, 1.5, freqs[i], 0.5), 0);
        assert_int_equal(heliod_load(h, name, path, 0, NULL), 0);
    }
}

/* The three interpolators on the same cases, each asked for by play flag. */
static void test_quality_on_record(void **state) {
    (void)state;
    th_daemon_t d;
    start_fast(&d, NULL);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "test_interp"), 0);
    load_tones(&d, h);
    /* a cue on sinc through heliodctl, as a sound designer would write it */
    char out[512], err[512];
    const char *cue_args[] = {"cue", "hq10k", "--sound", "s10000", "--interp", "sinc", NULL};
    assert_int_equal(th_ctl(&d, out, sizeof out, err, sizeof err, cue_args), 0);

    typedef struct {
        double freq;
        float pitch;
        double target;
    } case_t;
    const case_t cases[] = {
        {1000, 0.9f, 90.0},  {1000, 1.1f, 90.0},  {5000, 0.9f, 74.3},
        {10000, 0.9f, 71.7}, {10000, 1.1f, 68.7}, {15000, 1.5f, 54.2},
    };
    enum { NC = sizeof cases / sizeof cases[0] };
    const uint32_t interps[3] = {HELIOD_PLAY_LINEAR, HELIOD_PLAY_CUBIC, HELIOD_PLAY_SINC};
    tone_t tones[3 * NC + 3];
    int n = 0;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < NC; i++)
            tones[n++] = (tone_t){cases[i].freq, cases[i].pitch, interps[k], NULL};
    /* the alias: 20 kHz at 1.5 (30 kHz folds to 18 kHz); 10 kHz at 1.5 for
     * the in-band level; the cue (sinc) at 10 kHz / 0.9 */
    tones[n++] = (tone_t){20000, 1.5f, HELIOD_PLAY_SINC, NULL};
    tones[n++] = (tone_t){10000, 1.5f, HELIOD_PLAY_SINC, NULL};
    tones[n++] = (tone_t){10000, 0.9f, 0, "hq10k"};
    uint64_t base = 0;
    size_t frames = 0;
    float *x = play_all(&d, h, tones, n, &base, &frames);

    double db[3][NC], amp;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < NC; i++) {
            size_t at = base + (size_t)(k * NC + i) * SLOT + SKIP;
            db[k][i] = sinad_db(x + 2 * at, LEN, cases[i].freq * (double)cases[i].pitch, &amp);
        }
    printf("# SINAD on the recording (dB): input, pitch | linear | cubic | sinc | target\n");
    for (int i = 0; i < NC; i++) {
        printf("# %5.0f Hz, %.1f | %5.1f | %5.1f | %5.1f | >= %.1f\n", cases[i].freq,
               (double)cases[i].pitch, db[0][i], db[1][i], db[2][i], cases[i].target);
        assert_true(db[2][i] >= cases[i].target);
        assert_true(db[2][i] > db[1][i] && db[1][i] > db[0][i]);
    }
    double alias_amp, pass_amp;
    size_t at = base + (size_t)(3 * NC) * SLOT + SKIP;
    (void)sinad_db(x + 2 * at, LEN, 18000.0, &alias_amp);
    at = base + (size_t)(3 * NC + 1) * SLOT + SKIP;
    (void)sinad_db(x + 2 * at, LEN, 15000.0, &pass_amp);
    double alias_db = 20 * log10(alias_amp / pass_amp + 1e-30);
    printf("# 20 kHz at pitch 1.5, sinc: its 18 kHz alias at %.1f dB of an in-band tone\n",
           alias_db);
    assert_true(alias_db <= -85.0);
    at = base + (size_t)(3 * NC + 2) * SLOT + SKIP;
    double cue_db = sinad_db(x + 2 * at, LEN, 10000.0 * (double)0.9f, &amp);
    printf("# the cue hq10k (interp = sinc via heliodctl): SINAD %.1f dB\n", cue_db);
    assert_true(cue_db >= 71.7);
    free(x);
    th_daemon_cleanup(&d);
}

/* --interp sinc as the daemon default: a play that names no interpolator is
 * band-limited; one that asks for linear is not. */
static void test_daemon_default(void **state) {
    (void)state;
    th_daemon_t d;
    const char *args[] = {"--interp", "sinc", NULL};
    start_fast(&d, args);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "test_interp"), 0);
    load_tones(&d, h);
    const tone_t tones[] = {{10000, 0.9f, 0, NULL}, {10000, 0.9f, HELIOD_PLAY_LINEAR, NULL}};
    uint64_t base = 0;
    size_t frames = 0;
    float *x = play_all(&d, h, tones, 2, &base, &frames);
    double amp;
    double def = sinad_db(x + 2 * (base + SKIP), LEN, 10000.0 * (double)0.9f, &amp);
    double lin = sinad_db(x + 2 * (base + SLOT + SKIP), LEN, 10000.0 * (double)0.9f, &amp);
    printf("# --interp sinc: a play with no interpolator %.1f dB, one asking linear %.1f dB\n", def,
           lin);
    assert_true(def >= 71.7);
    assert_true(lin < 30.0);
    free(x);
    th_daemon_cleanup(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quality_on_record),
        cmocka_unit_test(test_daemon_default),
    };
    return cmocka_run_group_tests_name("interp", tests, NULL, NULL);
}
