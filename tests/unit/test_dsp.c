/*
 * test_dsp.c - unit tests of the mixer maths (hl_dsp.h): dB to linear, the
 * equal-power pan law, distance models at min/mid/max, listener-relative pan
 * and the output limiter (bounded output, bit transparency below threshold,
 * NaN/Inf scrubbing, bounded recovery from any overload).
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
#include "hl_limits.h"
#include "hl_proto.h"
#include "hl_util.h"
#include "mix_helpers.h"

/* The daemon passes a request's distance model (wire HL_DIST_*) to the mixer
 * unchanged: the two tables must agree. */
_Static_assert(HL_DIST_LINEAR == HL_MIX_DIST_LINEAR, "distance model: linear");
_Static_assert(HL_DIST_INVERSE == HL_MIX_DIST_INVERSE, "distance model: inverse");
_Static_assert(HL_DIST_EXPONENTIAL == HL_MIX_DIST_EXPONENTIAL, "distance model: exponential");

#define EPS 1e-4f

static void test_db_to_lin(void **state) {
    (void)state;
    assert_float_equal(hl_db_to_lin(0.0f), 1.0f, EPS);
    assert_float_equal(hl_db_to_lin(-6.0f), 0.501f, 1e-3f);
    assert_float_equal(hl_db_to_lin(-12.0f), 0.251f, 1e-3f);
    assert_float_equal(hl_db_to_lin(6.0f), 1.995f, 1e-3f);
    assert_true(hl_db_to_lin(-INFINITY) == 0.0f);
    assert_true(hl_db_to_lin(-200.0f) == 0.0f);
    assert_float_equal(hl_lin_to_db(1.0f), 0.0f, EPS);
    assert_float_equal(hl_lin_to_db(0.5f), -6.0206f, 1e-3f);
    assert_float_equal(hl_lin_to_db(0.0f), -144.0f, EPS);
}

static void test_pan_law(void **state) {
    (void)state;
    float l, r;
    hl_pan_equal_power(0.0f, &l, &r);
    assert_float_equal(l, 0.70710678f, EPS);
    assert_float_equal(r, 0.70710678f, EPS);
    hl_pan_equal_power(-1.0f, &l, &r);
    assert_true(l == 1.0f && r == 0.0f);
    hl_pan_equal_power(1.0f, &l, &r);
    assert_true(l == 0.0f && r == 1.0f);
    hl_pan_equal_power(-5.0f, &l, &r); /* clamped */
    assert_true(l == 1.0f && r == 0.0f);
    for (float p = -1.0f; p <= 1.0f; p += 0.125f) { /* equal power everywhere */
        hl_pan_equal_power(p, &l, &r);
        assert_float_equal(l * l + r * r, 1.0f, EPS);
    }
    hl_pan_equal_power(0.5f, &l, &r);
    assert_float_equal(l, (float)cos(0.75 * TEST_PI / 2.0), EPS);
    assert_float_equal(r, (float)sin(0.75 * TEST_PI / 2.0), EPS);
}

static void test_distance_models(void **state) {
    (void)state;
    const float mn = 1.0f, mx = 21.0f, ro = 1.0f, mid = 11.0f;
    /* linear: 1 at min, 0.5 at mid, 0 at max */
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_LINEAR, mn, mn, mx, ro), 1.0f, EPS);
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_LINEAR, mid, mn, mx, ro), 0.5f, EPS);
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_LINEAR, mx, mn, mx, ro), 0.0f, EPS);
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_LINEAR, mid, mn, mx, 4.0f), 0.0f,
                       EPS); /* floor */
    /* inverse: min/(min + ro*(d-min)) */
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_INVERSE, mn, mn, mx, ro), 1.0f, EPS);
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_INVERSE, mid, mn, mx, ro), 1.0f / 11.0f, EPS);
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_INVERSE, mx, mn, mx, ro), 1.0f / 21.0f, EPS);
    /* exponential: (d/min)^-ro */
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_EXPONENTIAL, mn, mn, mx, ro), 1.0f, EPS);
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_EXPONENTIAL, mid, mn, mx, 2.0f), 1.0f / 121.0f,
                       EPS);
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_EXPONENTIAL, mx, mn, mx, ro), 1.0f / 21.0f,
                       EPS);
    /* clamped to [min, max] */
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_INVERSE, 0.1f, mn, mx, ro), 1.0f, EPS);
    assert_float_equal(hl_distance_gain(HL_MIX_DIST_INVERSE, 1000.0f, mn, mx, ro), 1.0f / 21.0f,
                       EPS);
}

static void test_spatial_pan(void **state) {
    (void)state;
    const float lis[3] = {0, 0, 0}, fwd[3] = {0, 0, -1}, up[3] = {0, 1, 0};
    float pan;
    const float right[3] = {3, 0, 0}, left[3] = {-2, 0, 0}, ahead[3] = {0, 0, -5};
    assert_float_equal(hl_spatial_pan(right, lis, fwd, up, &pan), 3.0f, EPS);
    assert_float_equal(pan, 1.0f, EPS);
    assert_float_equal(hl_spatial_pan(left, lis, fwd, up, &pan), 2.0f, EPS);
    assert_float_equal(pan, -1.0f, EPS);
    assert_float_equal(hl_spatial_pan(ahead, lis, fwd, up, &pan), 5.0f, EPS);
    assert_float_equal(pan, 0.0f, EPS);
    assert_float_equal(hl_spatial_pan(lis, lis, fwd, up, &pan), 0.0f, EPS);
    assert_float_equal(pan, 0.0f, EPS); /* at the listener: centred */
    /* listener turned to face +x: a source at +x is ahead, one at +z is right */
    const float fwd_x[3] = {2, 0, 0}, pz[3] = {0, 0, 4};
    hl_spatial_pan(right, lis, fwd_x, up, &pan);
    assert_float_equal(pan, 0.0f, EPS);
    hl_spatial_pan(pz, lis, fwd_x, up, &pan);
    assert_float_equal(pan, 1.0f, EPS);
}

#define LIM_FRAMES 4096

static void test_limiter_bounds(void **state) {
    (void)state;
    hl_limiter_t lim;
    hl_limiter_init(&lim, HL_LIMITER_THRESH, HL_LIMITER_RELEASE_MS, TEST_RATE);
    float *buf = malloc(2 * LIM_FRAMES * sizeof(float));
    for (int i = 0; i < LIM_FRAMES; i++) {
        buf[2 * i] = 3.0f * (float)sin(2.0 * TEST_PI * i / 64.0);
        buf[2 * i + 1] = -2.5f * (float)sin(2.0 * TEST_PI * i / 50.0);
    }
    buf[100] = NAN;
    buf[201] = INFINITY;
    buf[302] = -INFINITY;
    assert_int_equal(hl_limiter_process_rt(&lim, buf, LIM_FRAMES), 1);
    float pk = 0.0f;
    for (int i = 0; i < 2 * LIM_FRAMES; i++) {
        assert_true(isfinite(buf[i]));
        assert_true(buf[i] >= -1.0f && buf[i] <= 1.0f);
        pk = fmaxf(pk, fabsf(buf[i]));
    }
    assert_true(buf[100] == 0.0f && buf[201] == 0.0f && buf[302] == 0.0f);
    assert_true(pk <= HL_LIMITER_THRESH + 1e-6f);
    assert_true(pk > 0.8f); /* limited, not muted */
    assert_true(lim.active_blocks == 1);
    free(buf);
}

static void test_limiter_transparent(void **state) {
    (void)state;
    hl_limiter_t lim;
    hl_limiter_init(&lim, HL_LIMITER_THRESH, HL_LIMITER_RELEASE_MS, TEST_RATE);
    float *buf = malloc(2 * LIM_FRAMES * sizeof(float));
    float *ref = malloc(2 * LIM_FRAMES * sizeof(float));
    for (int i = 0; i < LIM_FRAMES; i++) {
        buf[2 * i] = 0.89f * (float)sin(2.0 * TEST_PI * i / 97.0 + 0.3);
        buf[2 * i + 1] = -0.7f * (float)sin(2.0 * TEST_PI * i / 31.0) + 1e-7f * (float)i;
    }
    memcpy(ref, buf, 2 * LIM_FRAMES * sizeof(float));
    assert_int_equal(hl_limiter_process_rt(&lim, buf, LIM_FRAMES), 0);
    assert_memory_equal(buf, ref, 2 * LIM_FRAMES * sizeof(float)); /* bit for bit */
    /* after a loud burst the envelope decays, then it is transparent again */
    buf[0] = buf[1] = 4.0f;
    assert_int_equal(hl_limiter_process_rt(&lim, buf, 1), 1);
    assert_true(fabsf(buf[0]) <= 1.0f);
    for (int b = 0; b < 20; b++) { /* 20 * 4096 frames >> release */
        memcpy(buf, ref, 2 * LIM_FRAMES * sizeof(float));
        hl_limiter_process_rt(&lim, buf, LIM_FRAMES);
    }
    memcpy(buf, ref, 2 * LIM_FRAMES * sizeof(float));
    assert_int_equal(hl_limiter_process_rt(&lim, buf, LIM_FRAMES), 0);
    assert_memory_equal(buf, ref, 2 * LIM_FRAMES * sizeof(float));
    free(buf);
    free(ref);
}

/* The limiter's quiet-block early out must not change what it does later:
 * the same signal (quiet, a loud burst, its release, quiet again) limited
 * in one call (the per-sample loop throughout) and in 256-frame calls (the
 * early out on the quiet ones) gives the same samples, bit for bit. */
static void test_limiter_early_out(void **state) {
    (void)state;
    const uint32_t blk = 256;
    hl_limiter_t one, chunked;
    hl_limiter_init(&one, HL_LIMITER_THRESH, HL_LIMITER_RELEASE_MS, TEST_RATE);
    hl_limiter_init(&chunked, HL_LIMITER_THRESH, HL_LIMITER_RELEASE_MS, TEST_RATE);
    float *a = malloc(2 * LIM_FRAMES * sizeof(float));
    float *b = malloc(2 * LIM_FRAMES * sizeof(float));
    for (int i = 0; i < LIM_FRAMES; i++) {
        float amp = (i >= 1100 && i < 1200) ? 2.0f : 0.6f; /* burst inside the 5th block */
        a[2 * i] = amp * (float)sin(2.0 * TEST_PI * i / 37.0);
        a[2 * i + 1] = amp * (float)cos(2.0 * TEST_PI * i / 53.0);
    }
    a[2 * 4000] = HL_LIMITER_THRESH; /* exactly at the threshold: untouched */
    memcpy(b, a, 2 * LIM_FRAMES * sizeof(float));
    assert_int_equal(hl_limiter_process_rt(&one, a, LIM_FRAMES), 1);
    int changed = 0;
    for (uint32_t f = 0; f < LIM_FRAMES; f += blk)
        changed += hl_limiter_process_rt(&chunked, b + 2 * f, blk);
    assert_true(changed >= 1 && changed < (int)(LIM_FRAMES / blk)); /* some blocks left out */
    assert_memory_equal(a, b, 2 * LIM_FRAMES * sizeof(float));
    assert_true(a[2 * 4000] == HL_LIMITER_THRESH);
    free(a);
    free(b);
}

/* However loud a burst was (1e30, a finite sample from a broken file), the
 * reduction is at most HL_LIMITER_MAX_GR and the gain is back within 1 dB
 * release_ms x ln(MAX_GR / 1.122) after it: a quiet signal under it (0.25)
 * comes out at >= -1 dB from then on (before the bound, an unbounded
 * envelope held it ~600 dB down for 3.2 s). */
static void test_limiter_recovery(void **state) {
    (void)state;
    hl_limiter_t lim;
    hl_limiter_init(&lim, HL_LIMITER_THRESH, HL_LIMITER_RELEASE_MS, TEST_RATE);
    const float one_db = powf(10.0f, -1.0f / 20.0f);
    const double rec_s = HL_LIMITER_RELEASE_MS / 1000.0 * log(HL_LIMITER_MAX_GR / one_db);
    const uint32_t burst = 1000, rec = (uint32_t)ceil(rec_s * TEST_RATE) + 1;
    const uint32_t n = burst + rec + 1000;
    float *buf = malloc(2 * (size_t)n * sizeof(float));
    for (uint32_t i = 0; i < n; i++) {
        float q = 0.25f * (float)sin(2.0 * TEST_PI * i / 48.0) + 0.3f; /* never 0: a ratio */
        buf[2 * i] = buf[2 * i + 1] = i < burst ? 1e30f * (i % 2 ? 1.0f : -1.0f) : q;
    }
    hl_limiter_process_rt(&lim, buf, n);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(buf[2 * i] >= -1.0f && buf[2 * i] <= 1.0f);
        float q = 0.25f * (float)sin(2.0 * TEST_PI * i / 48.0) + 0.3f;
        float g = buf[2 * i] / q;
        if (i >= burst + rec) assert_true(g >= one_db && g <= 1.0f + 1e-6f);
        if (i >= burst) assert_true(g >= 1.0f / HL_LIMITER_MAX_GR * 0.999f); /* <= 40 dB down */
    }
    assert_true(buf[2 * (burst + rec / 2)] /
                    (0.25f * (float)sin(2.0 * TEST_PI * (burst + rec / 2) / 48.0) + 0.3f) <
                one_db); /* still releasing half-way */
    free(buf);
}

/* The shared helpers (hl_util.h): a clamp whose NaN is the low end, powers of
 * two at their edges, I0 against known values. */
static void test_util(void **state) {
    (void)state;
    assert_true(hl_clampf(NAN, -2.0f, 3.0f) == -2.0f);
    assert_true(hl_clampf(-INFINITY, -2.0f, 3.0f) == -2.0f);
    assert_true(hl_clampf(INFINITY, -2.0f, 3.0f) == 3.0f);
    assert_true(hl_clampf(0.5f, -2.0f, 3.0f) == 0.5f);
    assert_true(hl_pow2_at_least(0) == 2 && hl_pow2_at_least(2) == 2);
    assert_true(hl_pow2_at_least(3) == 4 && hl_pow2_at_least(1024) == 1024);
    assert_true(hl_pow2_at_least(1025) == 2048);
    assert_true(hl_pow2_at_least(UINT64_MAX) == 1u << 31); /* bounded, no endless loop */
    assert_true(fabs(hl_bessel_i0(0.0) - 1.0) < 1e-15);
    assert_true(fabs(hl_bessel_i0(1.0) - 1.2660658777520082) < 1e-14);
    assert_true(fabs(hl_bessel_i0(10.0) / 2815.7166284662544 - 1.0) < 1e-13);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_db_to_lin),
        cmocka_unit_test(test_pan_law),
        cmocka_unit_test(test_distance_models),
        cmocka_unit_test(test_spatial_pan),
        cmocka_unit_test(test_limiter_bounds),
        cmocka_unit_test(test_limiter_transparent),
        cmocka_unit_test(test_limiter_early_out),
        cmocka_unit_test(test_limiter_recovery),
        cmocka_unit_test(test_util),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
