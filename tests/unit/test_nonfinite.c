/*
 * test_nonfinite.c - the mixer's per-voice non-finite guard (voice_src.h): a
 * voice whose samples are NaN or infinite, mixed on the same bus as a sine,
 * must leave the output exactly what the sine alone gives, on the steady
 * path (copy and interpolating kernels), the full path (cubic, loops, gain
 * ramps) and for a sound that turns bad part way through.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mix_helpers.h"

#define NF_FRAMES 48000u

typedef struct {
    float value;    /* what the bad samples are */
    uint32_t from;  /* first bad frame */
    uint32_t flags; /* HL_MIX_* of the bad voice */
    float pitch;    /* of the bad voice */
    uint32_t channels;
} bad_t;

static float *render_with(const bad_t *bad) {
    hl_mixer_t *m = test_mixer_new(8, 0);
    hl_pcm_t *sine = test_pcm_sine(NF_FRAMES, 1, 440.0 / TEST_RATE, 0.0, 0.5f);
    hl_voice_params_t p = test_params(sine);
    p.bus = HL_BUS_UI;
    uint64_t now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    hl_pcm_t *b = NULL;
    if (bad) {
        b = test_pcm_dc(NF_FRAMES, bad->channels, 0.25f);
        float *d = (float *)(uintptr_t)b->data;
        for (size_t i = (size_t)bad->from * bad->channels; i < (size_t)NF_FRAMES * bad->channels;
             i++)
            d[i] = bad->value;
        b->finite = 0; /* nobody vouched for these samples (the loader would have) */
        hl_voice_params_t q = test_params(b);
        q.bus = HL_BUS_UI;
        q.gain = 6.3e-8f; /* -144 dB: still NaN times anything */
        q.flags |= bad->flags;
        q.pitch = bad->pitch;
        assert_int_equal(hl_mixer_play(m, &q, now, NULL, NULL), 0);
    }
    float *out = calloc((size_t)NF_FRAMES * 2, sizeof(float));
    assert_non_null(out);
    test_render(m, out, NF_FRAMES / 2, 256, &now);
    test_mixer_free(m);
    test_pcm_free(sine);
    if (b) test_pcm_free(b);
    return out;
}

static void check(const bad_t *bad) {
    float *ref = render_with(NULL), *out = render_with(bad);
    double energy = 0;
    float worst = 0;
    for (size_t i = 0; i < (size_t)NF_FRAMES; i++) { /* NF_FRAMES / 2 stereo frames */
        assert_true(isfinite(out[i]));
        float d = fabsf(out[i] - ref[i]);
        if (d > worst) worst = d;
        energy += (double)out[i] * out[i];
    }
    /* the bad voice adds at most 0.25 x 6.3e-8 where it is finite */
    assert_true(worst < 1e-6f);
    assert_true(energy > 100.0); /* the sine is there */
    free(ref);
    free(out);
}

static void test_nan_steady_copy(void **state) {
    (void)state;
    bad_t b = {NAN, 0, 0, 1.0f, 1};
    check(&b);
}

static void test_inf_steady_interp(void **state) {
    (void)state;
    bad_t b = {INFINITY, 0, 0, 1.37f, 1};
    check(&b);
}

static void test_nan_part_way_loop(void **state) {
    (void)state;
    bad_t b = {NAN, NF_FRAMES / 8, HL_MIX_LOOP, 1.0f, 1};
    check(&b);
}

static void test_neg_inf_cubic_stereo(void **state) {
    (void)state;
    bad_t b = {-INFINITY, 1000, HL_MIX_CUBIC, 0.9f, 2};
    check(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nan_steady_copy),
        cmocka_unit_test(test_inf_steady_interp),
        cmocka_unit_test(test_nan_part_way_loop),
        cmocka_unit_test(test_neg_inf_cubic_stereo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
