/*
 * test_cone_lp.c - a sound cone's outer low-pass in the mixer
 * (hl_voice_params_t.cone_outer_lp, HL_MIX_SET_CONE): beyond the outer cone
 * the voice is low-passed at the cutoff, inside the inner cone not at all,
 * half way between at the log-frequency midpoint from the off position, and
 * it joins the voice's own low-pass (the lower wins). Measured as the level
 * of a tone through a 3D voice, relative to the same voice without it.
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

/* Level (dB, left channel RMS of the last TAIL frames) of a looping tone at
 * `hz` from a 3D voice 2 m in front of the default listener whose cone
 * points along dir, with outer low-pass outer_lp and own low-pass lp. The
 * cone's outer gain is 1: only the filter changes the level. */
static double level_db(double hz, const float dir[3], float outer_lp, float lp) {
    hl_pcm_t *tone = test_pcm_sine(48000, 1, hz / TEST_RATE, 0.0, 0.5f);
    hl_mixer_t *m = test_mixer_new(2, 0);
    hl_voice_params_t p = test_params(tone);
    p.flags = HL_MIX_3D | HL_MIX_LOOP;
    p.pos[2] = -2.0f;
    memcpy(p.cone_dir, dir, sizeof p.cone_dir);
    p.cone_inner = 60.0f;
    p.cone_outer = 180.0f;
    p.cone_outer_gain = 1.0f;
    p.cone_outer_lp = outer_lp;
    p.lp_hz = lp;
    uint64_t now = 0, v = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = malloc(2 * FRAMES * sizeof(float));
    test_render(m, out, FRAMES, 256, &now);
    double e = 0.0;
    for (uint32_t i = FRAMES - TAIL; i < FRAMES; i++)
        e += (double)out[2 * i] * out[2 * i];
    free(out);
    test_mixer_free(m);
    test_pcm_free(tone);
    return 10.0 * log10(e / TAIL + 1e-30);
}

/* The voice filter's response: a 2nd-order Butterworth low-pass at fc
 * through the bilinear transform (the SVF's g = tan(pi fc / rate)), |H| in
 * dB at f. */
static double bw_db(double f, double fc) {
    const double r = tan(TEST_PI * f / TEST_RATE) / tan(TEST_PI * fc / TEST_RATE);
    return -10.0 * log10(1.0 + pow(r, 4.0));
}

static void test_outer_lowpass(void **state) {
    (void)state;
    const float toward[3] = {0, 0, 1}; /* the source faces the listener: inside */
    const float away[3] = {0, 0, -1};  /* its back to the listener: beyond the outer cone */
    const float half[3] = {0.8660254f, 0, 0.5f}; /* 60 degrees off: a = 120, half way */
    const double ref8k = level_db(8000.0, toward, 0.0f, 0.0f);
    /* inside the inner cone: no filter at all */
    assert_float_equal(level_db(8000.0, toward, 1000.0f, 0.0f), ref8k, 0.01);
    /* beyond: the cutoff itself */
    const double out8k = level_db(8000.0, away, 1000.0f, 0.0f) - ref8k;
    print_message("8 kHz behind a 1 kHz outer low-pass: %.1f dB (Butterworth %.1f)\n", out8k,
                  bw_db(8000.0, 1000.0));
    assert_float_equal(out8k, bw_db(8000.0, 1000.0), 0.3);
    const double ref200 = level_db(200.0, away, 0.0f, 0.0f);
    assert_float_equal(level_db(200.0, away, 1000.0f, 0.0f) - ref200, bw_db(200.0, 1000.0), 0.2);
    /* half way: off x (1000 / off)^0.5, off = 0.45 x 48 kHz */
    const double mid = 21600.0 * sqrt(1000.0 / 21600.0);
    const double half8k = level_db(8000.0, half, 1000.0f, 0.0f) - ref8k;
    print_message("half way (cutoff %.0f Hz): %.1f dB (Butterworth %.1f)\n", mid, half8k,
                  bw_db(8000.0, mid));
    assert_float_equal(half8k, bw_db(8000.0, mid), 0.3);
    /* no cone gain, no filter: outer_lp 0 changes nothing */
    assert_float_equal(level_db(8000.0, away, 0.0f, 0.0f), ref8k, 0.01);
    /* with the voice's own low-pass: the lower cutoff wins */
    const double own = level_db(8000.0, toward, 0.0f, 500.0f);
    assert_float_equal(level_db(8000.0, away, 1000.0f, 500.0f), own, 0.2);
    assert_float_equal(level_db(8000.0, away, 1000.0f, 4000.0f) - ref8k, bw_db(8000.0, 1000.0),
                       0.3);
}

/* A cone set on a playing voice (HL_MIX_SET_CONE) turns the low-pass on
 * and, removed, off again; the values are checked like the params'. */
static void test_set_cone(void **state) {
    (void)state;
    hl_pcm_t *tone = test_pcm_sine(48000, 1, 8000.0 / TEST_RATE, 0.0, 0.5f);
    hl_mixer_t *m = test_mixer_new(2, 0);
    hl_voice_params_t p = test_params(tone);
    p.flags = HL_MIX_3D | HL_MIX_LOOP;
    p.pos[2] = -2.0f;
    uint64_t now = 0, v = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = malloc(2 * FRAMES * sizeof(float));
    double lv[3];
    for (int k = 0; k < 3; k++) {
        hl_voice_set_t s = {.mask = HL_MIX_SET_CONE,
                            .cone_dir = {0, 0, k == 1 ? -1.0f : 0.0f},
                            .cone_inner = 60.0f,
                            .cone_outer = 180.0f,
                            .cone_outer_gain = 1.0f,
                            .cone_outer_lp = 1000.0f};
        if (k) assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
        test_render(m, out, FRAMES, 256, &now);
        double e = 0.0;
        for (uint32_t i = FRAMES - TAIL; i < FRAMES; i++)
            e += (double)out[2 * i] * out[2 * i];
        lv[k] = 10.0 * log10(e / TAIL + 1e-30);
    }
    assert_true(lv[1] - lv[0] < -25.0);     /* behind the cone: filtered */
    assert_float_equal(lv[2], lv[0], 0.05); /* cone removed: open again */
    hl_voice_set_t bad = {.mask = HL_MIX_SET_CONE, .cone_dir = {0, 0, 1}, .cone_outer_lp = -1.0f};
    assert_int_equal(hl_mixer_set(m, v, &bad, now), HELIOD_EINVAL);
    bad.cone_outer_lp = NAN;
    assert_int_equal(hl_mixer_set(m, v, &bad, now), HELIOD_EINVAL);
    free(out);
    test_mixer_free(m);
    test_pcm_free(tone);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outer_lowpass),
        cmocka_unit_test(test_set_cone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
