/*
 * test_panlaw.c - the "openal" pan law (proto/defs/hl_panlaw.h): the mixer
 * applies it to a mono 2D voice that asks for it (and only to such a
 * voice), it keeps OpenAL Soft's landmarks (-4.5 dB per channel at the
 * centre, 12.7 dB between the channels at 30 degrees, one channel silent
 * from 60 degrees), and the OpenAL library's fit gives back any direction's
 * (L, R) through it, and through the equal-power law.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "hl_panlaw.h"
#include "mix_helpers.h"

#define LEVEL 0.25f

/* The steady output of a DC voice of the given channels, pan and law. */
static void render_dc(uint32_t channels, float pan, uint32_t law, float *l, float *r) {
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_pcm_t *pcm = test_pcm_dc(4800, channels, LEVEL);
    hl_voice_params_t p = test_params(pcm);
    p.pan = pan;
    p.pan_law = law;
    p.attack_frames = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, NULL, NULL), 0);
    float *out = calloc(2 * 2048, sizeof *out);
    uint64_t now = 0;
    test_render(m, out, 2048, 256, &now);
    *l = out[2 * 2000] / LEVEL;
    *r = out[2 * 2000 + 1] / LEVEL;
    free(out);
    test_pcm_free(pcm);
    test_mixer_free(m);
}

static float db(float x) {
    return 20.0f * log10f(x);
}

static void test_mixer_applies_it(void **state) {
    (void)state;
    float l, r, el, er;
    for (float pan = -1.0f; pan <= 1.0f; pan += 0.125f) {
        render_dc(1, pan, HL_PAN_LAW_OPENAL, &l, &r);
        hl_panlaw_openal(pan, &el, &er);
        assert_float_equal(l, el, 1e-4f);
        assert_float_equal(r, er, 1e-4f);
    }
    /* the landmarks of OpenAL Soft's stereo output */
    render_dc(1, 0.0f, HL_PAN_LAW_OPENAL, &l, &r);
    assert_float_equal(db(l), -4.5f, 0.05f);
    render_dc(1, 1.0f / 3.0f, HL_PAN_LAW_OPENAL, &l, &r); /* 30 degrees right */
    assert_float_equal(db(r) - db(l), 12.7f, 0.1f);
    render_dc(1, 2.0f / 3.0f, HL_PAN_LAW_OPENAL, &l, &r);
    assert_true(l == 0.0f && fabsf(r - 1.0f) < 1e-4f);
    /* heliod's own law unless asked, and stereo voices never use it */
    render_dc(1, 0.0f, HL_PAN_LAW_HELIOD, &l, &r);
    assert_float_equal(l, 0.70710678f, 1e-4f);
    render_dc(2, 0.0f, HL_PAN_LAW_OPENAL, &l, &r);
    assert_float_equal(l, 1.0f, 1e-4f);
    assert_float_equal(r, 1.0f, 1e-4f);
    /* an unknown law is refused */
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_pcm_t *pcm = test_pcm_dc(64, 1, LEVEL);
    hl_voice_params_t p = test_params(pcm);
    p.pan_law = 2;
    assert_int_not_equal(hl_mixer_play(m, &p, 0, NULL, NULL), 0);
    test_pcm_free(pcm);
    test_mixer_free(m);
}

/* Every direction around and above the listener: the fitted pan and gain
 * reproduce its (L, R) through the law, whichever law the daemon has. */
static void test_fit_round_trip(void **state) {
    (void)state;
    for (int el = -80; el <= 80; el += 20)
        for (int az = 0; az < 360; az += 5) {
            const float a = (float)az * 3.14159265f / 180.0f, e = (float)el * 3.14159265f / 180.0f;
            const float d[3] = {sinf(a) * cosf(e), sinf(e), -cosf(a) * cosf(e)};
            float l, r, pan, g, ql, qr;
            hl_panlaw_openal_dir(d, &l, &r);
            l *= 0.7f, r *= 0.7f;
            hl_panlaw_openal_fit(l, r, &pan, &g);
            hl_panlaw_openal(pan, &ql, &qr);
            assert_float_equal(ql * g, l, 2e-4f);
            assert_float_equal(qr * g, r, 2e-4f);
            hl_panlaw_equal_power_fit(l, r, &pan, &g);
            assert_true(pan >= -1.0f && pan <= 1.0f);
            const float t = (pan + 1.0f) * 0.78539816f;
            assert_float_equal(cosf(t) * g, l, 2e-4f);
            assert_float_equal(sinf(t) * g, r, 2e-4f);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixer_applies_it),
        cmocka_unit_test(test_fit_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
