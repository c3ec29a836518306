/*
 * test_dist_curves.c - a 3D voice's distance curves besides its gain
 * (hl_voice_params_t dist_lp and dist_send, HL_MIX_SET_DLP/DSEND, ATTEN
 * kinds 1 and 2): the curves' values (hl_dcurve_lp log-frequency between
 * points, the send level linear in dB), the low-pass measured as the level
 * of a tone through the voice at distances against the filter's response
 * at the curve's cutoff (joined with the voice's own low-pass: the lower
 * wins), and the sends scaled by the send curve at distances, set at the
 * start and on a playing voice.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_dsp.h"
#include "hl_mixer.h"
#include "mix_helpers.h"

#define FRAMES 8192 /* 0.17 s: the glides and the filter's start are long over */
#define TAIL   4096 /* measured */

static const hl_dcurve_t lp_curve = {.n = 2, .d = {1.0f, 41.0f}, .v = {16000.0f, 1000.0f}};
static const hl_dcurve_t send_curve = {
    .n = 3, .d = {0.0f, 20.0f, 40.0f}, .v = {0.0f, -20.0f, -30.0f}};

static void test_curve_values(void **state) {
    (void)state;
    const float rate = 48000.0f;
    assert_float_equal(hl_dcurve_lp(&lp_curve, 0.5f, rate), 16000.0f, 0.0f); /* before: first */
    assert_float_equal(hl_dcurve_lp(&lp_curve, 1.0f, rate), 16000.0f, 0.0f);
    assert_float_equal(hl_dcurve_lp(&lp_curve, 21.0f, rate), 4000.0f, 0.5f); /* half way: sqrt */
    assert_float_equal(hl_dcurve_lp(&lp_curve, 11.0f, rate), 8000.0f,
                       0.5f); /* a quarter: an octave */
    assert_float_equal(hl_dcurve_lp(&lp_curve, 41.0f, rate), 1000.0f, 0.0f);
    assert_float_equal(hl_dcurve_lp(&lp_curve, 900.0f, rate), 1000.0f, 0.0f); /* beyond: last */
    assert_float_equal(hl_dcurve_lp(&lp_curve, NAN, rate), 16000.0f, 0.0f);
    /* at or above the off position (0.45 x rate): no filter */
    const hl_dcurve_t open = {.n = 2, .d = {0.0f, 10.0f}, .v = {30000.0f, 2000.0f}};
    assert_float_equal(hl_dcurve_lp(&open, 0.0f, rate), 0.0f, 0.0f);
    assert_true(hl_dcurve_lp(&open, 5.0f, rate) > 0.0f);
    const hl_dcurve_t none = {.n = 0};
    assert_float_equal(hl_dcurve_lp(&none, 5.0f, rate), 0.0f, 0.0f);
    /* the send curve: dB linear between points */
    const float *d = send_curve.d, *v = send_curve.v;
    assert_float_equal(hl_curve_gain(3, d, v, 10.0f), hl_db_to_lin(-10.0f), 1e-6);
    assert_float_equal(hl_curve_gain(3, d, v, 30.0f), hl_db_to_lin(-25.0f), 1e-6);
    assert_float_equal(hl_curve_gain(3, d, v, 99.0f), hl_db_to_lin(-30.0f), 1e-6);
    /* validity: cutoffs in [10, 96000] Hz, distances increasing */
    assert_true(hl_dcurve_lp_valid(&lp_curve));
    hl_dcurve_t bad = lp_curve;
    bad.v[1] = 5.0f;
    assert_false(hl_dcurve_lp_valid(&bad));
    bad = lp_curve;
    bad.d[1] = 1.0f;
    assert_false(hl_dcurve_lp_valid(&bad));
}

/* Energy of the left channel's last TAIL frames of FRAMES. */
static double tail_db(const float *out) {
    double e = 0.0;
    for (uint32_t i = FRAMES - TAIL; i < FRAMES; i++)
        e += (double)out[2 * i] * out[2 * i];
    return 10.0 * log10(e / TAIL + 1e-30);
}

/* Level (dB) of a looping tone at hz from a 3D voice `dist` m in front of
 * the listener, with low-pass curve lpc (NULL: none) and own low-pass lp. */
static double lp_level_db(double hz, float dist, const hl_dcurve_t *lpc, float lp) {
    hl_pcm_t *tone = test_pcm_sine(48000, 1, hz / TEST_RATE, 0.0, 0.5f);
    hl_mixer_t *m = test_mixer_new(2, 0);
    hl_voice_params_t p = test_params(tone);
    p.flags = HL_MIX_3D | HL_MIX_LOOP;
    p.pos[2] = -dist;
    if (lpc) p.dist_lp = *lpc;
    p.lp_hz = lp;
    uint64_t now = 0, v = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = malloc(2 * FRAMES * sizeof(float));
    test_render(m, out, FRAMES, 256, &now);
    const double db = tail_db(out);
    free(out);
    test_mixer_free(m);
    test_pcm_free(tone);
    return db;
}

/* The voice filter's response: a 2nd-order Butterworth low-pass at fc
 * (bilinear transform), |H| in dB at f. */
static double bw_db(double f, double fc) {
    const double r = tan(TEST_PI * f / TEST_RATE) / tan(TEST_PI * fc / TEST_RATE);
    return -10.0 * log10(1.0 + pow(r, 4.0));
}

static void test_lowpass_at_distances(void **state) {
    (void)state;
    const float dists[4] = {2.0f, 11.0f, 21.0f, 60.0f};
    for (int k = 0; k < 4; k++) {
        const float d = dists[k];
        const double fc = d >= 41.0f ? 1000.0 : 16000.0 * pow(1000.0 / 16000.0, (d - 1.0) / 40.0);
        const double got =
            lp_level_db(6000.0, d, &lp_curve, 0.0f) - lp_level_db(6000.0, d, NULL, 0.0f);
        print_message("%4.0f m: cutoff %5.0f Hz, 6 kHz %6.2f dB (Butterworth %6.2f)\n", d, fc, got,
                      bw_db(6000.0, fc));
        assert_float_equal(got, bw_db(6000.0, fc), 0.3);
    }
    /* with the voice's own low-pass: the lower wins */
    const double own500 = lp_level_db(6000.0, 21.0f, NULL, 500.0f);
    assert_float_equal(lp_level_db(6000.0, 21.0f, &lp_curve, 500.0f), own500, 0.2);
    const double ref = lp_level_db(6000.0, 21.0f, NULL, 0.0f);
    assert_float_equal(lp_level_db(6000.0, 21.0f, &lp_curve, 12000.0f) - ref, bw_db(6000.0, 4000.0),
                       0.3);
}

/* Buses 4 and 5 under the master, for the sends. */
static void send_buses(hl_mixer_t *m) {
    int8_t parent[HL_MAX_BUSES];
    for (int b = 0; b < HL_MAX_BUSES; b++)
        parent[b] = -1;
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x3F, 0), 0);
}

/* A voice sending at level 1 to bus 4 is heard at (1 + f) times its direct
 * level, f the send curve's factor at its distance: at the start, and after
 * a move and a SET of the curve on the playing voice. */
static void test_send_at_distances(void **state) {
    (void)state;
    hl_pcm_t *tone = test_pcm_sine(48000, 1, 440.0 / TEST_RATE, 0.0, 0.25f);
    float *out = malloc(2 * FRAMES * sizeof(float));
    const float dists[3] = {10.0f, 30.0f, 80.0f};
    const float want_db[3] = {-10.0f, -25.0f, -30.0f};
    for (int k = 0; k < 3; k++) {
        double lv[2];
        for (int with = 0; with < 2; with++) {
            hl_mixer_t *m = test_mixer_new(2, 0);
            send_buses(m);
            hl_voice_params_t p = test_params(tone);
            p.flags = HL_MIX_3D | HL_MIX_LOOP;
            p.pos[2] = -dists[k];
            p.send_bus[0] = 4;
            p.send_gain[0] = with ? 1.0f : 0.0f;
            p.dist_send = send_curve;
            uint64_t now = 0, v = 0;
            assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
            test_render(m, out, FRAMES, 256, &now);
            lv[with] = tail_db(out);
            test_mixer_free(m);
        }
        const double f = pow(10.0, (lv[1] - lv[0]) / 20.0) - 1.0;
        print_message("%4.0f m: send %6.2f dB (curve %6.2f)\n", dists[k], 20.0 * log10(f),
                      want_db[k]);
        assert_float_equal(20.0 * log10(f), want_db[k], 0.05);
    }
    /* on a playing voice: no curve, then moved, then the curve set */
    hl_mixer_t *m = test_mixer_new(2, 0);
    send_buses(m);
    hl_voice_params_t p = test_params(tone);
    p.flags = HL_MIX_3D | HL_MIX_LOOP;
    p.pos[2] = -10.0f;
    p.send_bus[0] = 4;
    p.send_gain[0] = 1.0f;
    uint64_t now = 0, v = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, FRAMES, 256, &now);
    const double full = tail_db(out); /* direct + send at 1: twice the direct */
    hl_voice_set_t s = {.mask = HL_MIX_SET_DSEND, .dist_send = send_curve};
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out, FRAMES, 256, &now);
    const double at10 = tail_db(out);
    assert_float_equal(at10 - full, 20.0 * log10((1.0 + hl_db_to_lin(-10.0f)) / 2.0), 0.05);
    s.mask = HL_MIX_SET_DSEND;
    s.dist_send.n = 0; /* off again */
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out, FRAMES, 256, &now);
    assert_float_equal(tail_db(out), full, 0.05);
    s.dist_send.n = 9;
    assert_int_equal(hl_mixer_set(m, v, &s, now), HELIOD_EINVAL);
    s.mask = HL_MIX_SET_DLP;
    s.dist_lp = lp_curve;
    s.dist_lp.v[0] = 0.0f;
    assert_int_equal(hl_mixer_set(m, v, &s, now), HELIOD_EINVAL);
    free(out);
    test_mixer_free(m);
    test_pcm_free(tone);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_curve_values),
        cmocka_unit_test(test_lowpass_at_distances),
        cmocka_unit_test(test_send_at_distances),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
