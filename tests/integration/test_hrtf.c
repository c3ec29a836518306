/*
 * test_hrtf.c - binaural rendering through the real daemon (`--hrtf`, the
 * libmysofa default set, null driver, --record): a 3D source on the left
 * reaches the left ear first (interaural time difference, from the peak of
 * the cross-correlation of the two ears) and louder (interaural level
 * difference, RMS), and the other way round on the right; a source moved
 * round the head in many ramped steps leaves no sample step larger than the
 * signal's own; the STATS keys; start-up with a file that is not a SOFA set
 * fails with a clear message and a non-zero exit; `hrtf = default` in a
 * config file turns it on.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"

#define RATE    48000
#define PI      3.14159265358979323846
#define MAX_LAG 48 /* frames: 1 ms, wider than any head's ITD */

static const char *const hrtf_args[] = {"--hrtf", NULL};

/* ---- helpers -------------------------------------------------------------------- */

static void path_in(const th_daemon_t *d, char *dst, size_t cap, const char *name) {
    snprintf(dst, cap, "%s/%s", d->dir, name);
}

static uint32_t rng = 4242u;
static void gen_noise(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    (void)frame;
    rng = rng * 1664525u + 1013904223u;
    float x = ((float)(rng >> 8) / 8388608.0f - 1.0f) * 0.3f;
    for (int c = 0; c < channels; c++)
        out[c] = x;
}

static heliod_t *connect_or_fail(const th_daemon_t *d) {
    return th_connect(d, "hrtf-test", 0);
}

/* Stops the daemon (finalising the recording) and reads it: interleaved
 * stereo at RATE; the caller frees it. */
static float *stop_and_read(th_daemon_t *d, size_t *frames) {
    return th_stop_read_stereo(d, frames, RATE);
}

/* First frame whose left or right sample is above eps (or frames). */
static size_t first_sound(const float *x, size_t frames, float eps) {
    for (size_t i = 0; i < frames; i++)
        if (fabsf(x[2 * i]) > eps || fabsf(x[2 * i + 1]) > eps) return i;
    return frames;
}

static double rms(const float *x, size_t from, size_t to, int ch) {
    double e = 0;
    for (size_t i = from; i < to; i++)
        e += (double)x[2 * i + ch] * x[2 * i + ch];
    return sqrt(e / (double)(to - from));
}

/* Lag (frames) at which the right ear best matches the left one:
 * argmax_k sum_n L[n] R[n + k]. Positive: the right ear hears it later. */
static int itd_lag(const float *x, size_t from, size_t to) {
    double best = -INFINITY;
    int lag = 0;
    for (int k = -MAX_LAG; k <= MAX_LAG; k++) {
        double c = 0;
        for (size_t n = from + MAX_LAG; n < to - MAX_LAG; n++)
            c += (double)x[2 * n] * x[2 * (size_t)((ptrdiff_t)n + k) + 1];
        if (c > best) {
            best = c;
            lag = k;
        }
    }
    return lag;
}

/* ---- ITD and ILD signs ---------------------------------------------------------- */

/* Waits until the engine has played s more seconds (engine frames, 10 s
 * of wall time at most). */
static void wait_engine(heliod_t *h, double s) {
    heliod_clock_t k;
    assert_int_equal(heliod_clock(h, &k), 0);
    uint64_t until = k.frame + (uint64_t)(s * k.rate);
    for (int i = 0; i < 1000 && k.frame < until; i++) {
        th_sleep_ms(10);
        assert_int_equal(heliod_clock(h, &k), 0);
    }
    assert_true(k.frame >= until);
}

/* Plays broadband noise 2 m away at azimuth side * 90 degrees (side -1 =
 * left, +1 = right) for 400 ms and measures its steady part. */
static void record_side(int side, int *lag, double *ild_db) {
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 1, hrtf_args), 0);
    char snd[400];
    path_in(&d, snd, sizeof snd, "noise.wav");
    assert_int_equal(
        th_write_sound(snd, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, RATE, gen_noise, NULL), 0);
    heliod_t *h = connect_or_fail(&d);
    assert_true(th_stat(h, "hrtf") == 1.0);
    assert_int_equal(heliod_load(h, "noise", snd, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D;
    pp.pos[0] = 2.0f * (float)side; /* listener at the origin facing -z: +x is right */
    pp.fade_in_ms = 5;
    heliod_voice_t v;
    double ov0 = th_stat(h, "callback_overruns"), xr0 = th_stat(h, "xruns");
    assert_int_equal(heliod_play(h, "noise", &pp, &v, NULL), 0);
    /* rendered binaurally once the play reaches the audio thread (10 s at
     * most on a loaded machine), then for 0.4 s of engine time (the analysis
     * reads 0.05..0.30 s after the onset), and 0.1 s after the stop */
    for (int i = 0; i < 1000 && th_stat(h, "hrtf_voices") != 1.0; i++)
        th_sleep_ms(10);
    assert_true(th_stat(h, "hrtf_voices") == 1.0);
    wait_engine(h, 0.4);
    assert_int_equal(heliod_stop(h, v, 20), 0);
    wait_engine(h, 0.1);
    assert_true(th_deadlines_ok(h, xr0, ov0));
    heliod_close(h);
    size_t frames = 0;
    float *x = stop_and_read(&d, &frames);
    size_t a = first_sound(x, frames, 1e-4f);
    assert_true(a + (size_t)(0.35 * RATE) < frames);
    size_t w0 = a + (size_t)(0.05 * RATE), w1 = a + (size_t)(0.30 * RATE);
    *lag = itd_lag(x, w0, w1);
    double l = rms(x, w0, w1, 0), r = rms(x, w0, w1, 1);
    assert_true(l > 1e-3 && r > 1e-4);
    *ild_db = 20.0 * log10(l / r);
    fprintf(stderr, "# side %+d: ITD %d frames (%.0f us, right ear later if > 0), ILD %.1f dB\n",
            side, *lag, *lag * 1e6 / RATE, *ild_db);
    free(x);
    th_daemon_cleanup(&d);
}

static void test_itd_ild_signs(void **state) {
    (void)state;
    int lag_l, lag_r;
    double ild_l, ild_r;
    record_side(-1, &lag_l, &ild_l);
    record_side(+1, &lag_r, &ild_r);
    /* left: the left ear first (the right one lags by a head's width, about
     * 0.6 ms = 30 frames for KEMAR at 90 degrees) and louder */
    assert_true(lag_l >= 10 && lag_l <= 40);
    assert_true(ild_l > 3.0);
    /* right: the mirror image */
    assert_true(lag_r <= -10 && lag_r >= -40);
    assert_true(ild_r < -3.0);
}

/* ---- a source moving round the head --------------------------------------------- */

static void test_moving_no_clicks(void **state) {
    (void)state;
    enum { STEPS = 120, STEP_MS = 10, STEP_DEG = 30 };
    const double freq = 440.0, amp = 0.5;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 1, hrtf_args), 0);
    char snd[400];
    path_in(&d, snd, sizeof snd, "sine.wav");
    assert_int_equal(th_write_sine(snd, RATE, 2.0, freq, amp), 0);
    heliod_t *h = connect_or_fail(&d);
    assert_int_equal(heliod_load(h, "sine", snd, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D;
    pp.pos[2] = -2.0f; /* in front, 2 m: inverse distance gain 1/2 */
    pp.fade_in_ms = 20;
    heliod_voice_t v;
    double ov0 = th_stat(h, "callback_overruns"), xr0 = th_stat(h, "xruns");
    assert_int_equal(heliod_play(h, "sine", &pp, &v, NULL), 0);
    th_sleep_ms(100);
    /* ten turns round the head and a little up and down, 30 degrees per
     * 10 ms step, each step ramped over its 10 ms: the direction changes by
     * ~16 degrees per 256-frame block, so a filter switched without a
     * crossfade would jump by a good part of the signal's amplitude */
    for (int i = 1; i <= STEPS; i++) {
        double az = (double)i * STEP_DEG * PI / 180.0, el = 0.4 * sin(i * 0.3);
        heliod_voice_set_t s = {.mask = HELIOD_SET_POS, .ramp_ms = STEP_MS};
        s.pos[0] = (float)(-2.0 * sin(az) * cos(el));
        s.pos[1] = (float)(2.0 * sin(el));
        s.pos[2] = (float)(-2.0 * cos(az) * cos(el));
        assert_int_equal(heliod_set(h, v, &s), 0);
        th_sleep_ms(STEP_MS);
    }
    th_sleep_ms(50);
    assert_int_equal(heliod_stop(h, v, 50), 0);
    th_sleep_ms(150);
    assert_true(th_deadlines_ok(h, xr0, ov0));
    heliod_close(h);
    size_t frames = 0;
    float *x = stop_and_read(&d, &frames);

    double peak = 0, max_step = 0;
    for (size_t i = 0; i < frames; i++) {
        for (int c = 0; c < 2; c++) {
            double s = x[2 * i + c];
            if (fabs(s) > peak) peak = fabs(s);
            if (i > 0 && fabs(s - x[2 * (i - 1) + c]) > max_step)
                max_step = fabs(s - x[2 * (i - 1) + c]);
        }
    }
    /* the dry sine's own largest step, and that of a sine as loud as the
     * loudest output sample: a click is a step of the order of the
     * amplitude, ten times more */
    const double w = 2.0 * PI * freq / RATE;
    const double dry_step = w * amp, own_step = w * peak;
    fprintf(stderr, "# moving: peak %.3f, max step %.4f (dry %.4f, own %.4f)\n", peak, max_step,
            dry_step, own_step);
    assert_true(peak > 0.1); /* loud enough for a click to show */
    assert_true(max_step < dry_step);
    assert_true(max_step < 1.15 * own_step);
    free(x);
    th_daemon_cleanup(&d);
}

/* ---- start-up and configuration ------------------------------------------------- */

static void test_bad_file_fails_startup(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-hrtf-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sock[300], bad[300], opt[320], err[4096];
    snprintf(sock, sizeof sock, "%s/s.sock", dir);
    snprintf(bad, sizeof bad, "%s/not.sofa", dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("this is not an HDF5 file\n", f);
    fclose(f);
    snprintf(opt, sizeof opt, "--hrtf=%s", bad);
    const char *a1[] = {"--driver", "null", "--socket", sock, opt, NULL};
    int rc = th_heliod_run(dir, a1, err, sizeof err);
    assert_true(rc > 0);
    assert_non_null(strstr(err, "not a usable SOFA file"));
    assert_int_equal(access(sock, F_OK), -1); /* never listened */

    snprintf(opt, sizeof opt, "--hrtf=%s/missing.sofa", dir);
    const char *a2[] = {"--driver", "null", "--socket", sock, opt, NULL};
    rc = th_heliod_run(dir, a2, err, sizeof err);
    assert_true(rc > 0);
    assert_non_null(strstr(err, "cannot open"));

    /* the same through the config file */
    char cfg[300], line[400];
    snprintf(cfg, sizeof cfg, "%s/heliod.ini", dir);
    f = fopen(cfg, "w");
    assert_non_null(f);
    snprintf(line, sizeof line, "hrtf = %s\n", bad);
    fputs(line, f);
    fclose(f);
    const char *a3[] = {"--driver", "null", "--socket", sock, "--config", cfg, NULL};
    rc = th_heliod_run(dir, a3, err, sizeof err);
    assert_true(rc > 0);
    assert_non_null(strstr(err, "not a usable SOFA file"));

    /* --help lists the option */
    const char *a4[] = {"--help", NULL};
    assert_int_equal(th_heliod_run(dir, a4, err, sizeof err), 0);
    unlink(cfg);
    unlink(bad);
    rmdir(dir);
}

static void test_config_key_and_default_off(void **state) {
    (void)state;
    /* off unless asked for */
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    heliod_t *h = connect_or_fail(&d);
    assert_true(th_stat(h, "hrtf") == 0.0);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);

    /* hrtf = default in the file; a flag "--hrtf=off" would win over it */
    char cfg[] = "/tmp/heliod-hrtf-cfg-XXXXXX";
    int fd = mkstemp(cfg);
    assert_true(fd >= 0);
    const char *text = "[audio]\nhrtf = default\n";
    assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    const char *on[] = {"--config", cfg, NULL};
    assert_int_equal(th_daemon_start(&d, 0, on), 0);
    h = connect_or_fail(&d);
    assert_true(th_stat(h, "hrtf") == 1.0);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
    const char *off[] = {"--config", cfg, "--hrtf=off", NULL};
    assert_int_equal(th_daemon_start(&d, 0, off), 0);
    h = connect_or_fail(&d);
    assert_true(th_stat(h, "hrtf") == 0.0);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
    unlink(cfg);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    /* meson runs them in three parts (i % 3), side by side: each binaural
     * daemon is CPU-bound under ASan (24, 12 and 12 s there) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_itd_ild_signs),
        cmocka_unit_test(test_moving_no_clicks),
        cmocka_unit_test(test_config_key_and_default_off),
        cmocka_unit_test(test_bad_file_fails_startup),
    };
    return TH_RUN(tests);
}
