/*
 * test_listeners_weight.c - several listeners' weighted rule in the mixer
 * (hl_listener_state_t.weight): with no weight a 3D voice is heard by the
 * nearest listener; while any listener on has a weight its gain is the sum
 * over the listeners on of weight x its gain at each (a listener without
 * one adds nothing), the pan staying the nearest's; dropping the weights
 * goes back to the nearest rule, and a listener turned off adds nothing.
 * Measured as the level of a tone through the voice.
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

#define FRAMES 4096
#define TAIL   2048

/* RMS of each channel of the last TAIL frames after rendering FRAMES more. */
static void level(hl_mixer_t *m, float *out, uint64_t *now, double *l, double *r) {
    test_render(m, out, FRAMES, 256, now);
    double el = 0.0, er = 0.0;
    for (uint32_t i = FRAMES - TAIL; i < FRAMES; i++) {
        el += (double)out[2 * i] * out[2 * i];
        er += (double)out[2 * i + 1] * out[2 * i + 1];
    }
    *l = sqrt(el / TAIL);
    *r = sqrt(er / TAIL);
}

static void set_lis(hl_mixer_t *m, uint32_t k, float z, float weight, uint64_t now) {
    hl_listener_state_t l = {{0, 0, z}, {0, 0, -1}, {0, 1, 0}, {0, 0, 0}, weight};
    assert_int_equal(hl_mixer_set_listener_at(m, k, &l, now), 0);
}

static void test_weighted_rule(void **state) {
    (void)state;
    hl_pcm_t *tone = test_pcm_sine(48000, 1, 375.0 / TEST_RATE, 0.0, 0.5f); /* 16 periods a TAIL */
    hl_mixer_t *m = test_mixer_new(2, 0);
    hl_voice_params_t p = test_params(tone);
    p.flags = HL_MIX_3D | HL_MIX_LOOP;
    p.model = HL_MIX_DIST_INVERSE; /* g(d) = 1 / d from 1 m */
    p.pos[2] = -2.0f;
    float *out = malloc(2 * FRAMES * sizeof(float));
    uint64_t now = 0, v = 0;
    set_lis(m, 1, -10.0f, 0.0f, now); /* listener 1 8 m beyond the voice */
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    double l0, r0, l, r;
    level(m, out, &now, &l0, &r0); /* the nearest rule: listener 0's 1/2 */
    assert_float_equal(l0, r0, 1e-4 * l0);
    set_lis(m, 0, 0.0f, 0.5f, now);
    set_lis(m, 1, -10.0f, 0.25f, now);
    level(m, out, &now, &l, &r);
    const double want = (0.5 * 0.5 + 0.25 * 0.125) / 0.5;
    print_message("weights 0.5, 0.25 at 2 m and 8 m: %.5f of the nearest's (want %.5f)\n", l / l0,
                  want);
    assert_float_equal(l / l0, want, 1e-3);
    assert_float_equal(l, r, 1e-4 * l); /* the pan: the nearest's (ahead) */
    set_lis(m, 0, 0.0f, 0.0f, now);     /* listener 0 without: adds nothing */
    level(m, out, &now, &l, &r);
    assert_float_equal(l / l0, 0.25 * 0.125 / 0.5, 1e-3);
    assert_int_equal(hl_mixer_set_listener_at(m, 1, NULL, now), 0); /* off: the nearest rule */
    level(m, out, &now, &l, &r);
    assert_float_equal(l / l0, 1.0, 1e-3);
    set_lis(m, 1, -10.0f, 0.0f, now); /* back on without a weight: still the nearest */
    level(m, out, &now, &l, &r);
    assert_float_equal(l / l0, 1.0, 1e-3);
    free(out);
    test_mixer_free(m);
    test_pcm_free(tone);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weighted_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
