/*
 * test_hrtf.c - unit tests of the binaural blocks: the SOFA loader
 * (daemon/assets/hrtf_load.c: default set, missing and non-SOFA files), the set
 * layout and bilinear lookup on a hand-built set, the FIR renderer's exact
 * impulse response (integer and half-sample delays, gain, accumulation,
 * block-size independence), the localisation cues of the real KEMAR set
 * (ITD and ILD signs left/right, balance in front), click-freedom of moving
 * and jumping sources measured against the static filter's own slope, and
 * agreement of the portable and AVX2 kernels.
 *
 * The default set is loaded once for the group (about a second, most of it
 * libmysofa's resampling).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "heliod_errors.h"
#include "hl_hrtf.h"
#include "hl_limits.h"
#include "hrtf_load.h"

#define RATE  48000u
#define BLOCK HL_MIX_BLOCK
#define PI_F  3.14159265358979f

static void *g_mem;
static hl_hrtf_set_t *g_set;

static int group_setup(void **state) {
    (void)state;
    char err[256];
    int rc = hld_hrtf_load(NULL, RATE, &g_mem, &g_set, err, sizeof err);
    if (rc != 0) fprintf(stderr, "default HRTF: %d %s\n", rc, err);
    return 0; /* test_load_default reports the failure */
}

static int group_teardown(void **state) {
    (void)state;
    hld_hrtf_free(g_mem);
    return 0;
}

/* Deterministic white noise in [-1, 1). */
static uint32_t rng_state = 12345u;
static float noise(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 8388608.0f - 1.0f;
}

/* dir for azimuth az (counter-clockwise from the front, pi/2 = left) and
 * elevation el, in listener coordinates (x right, y up, -z forward). */
static void dir_of(float az, float el, float d[3]) {
    d[0] = -sinf(az) * cosf(el);
    d[1] = sinf(el);
    d[2] = -cosf(az) * cosf(el);
}

/* ---- loader ------------------------------------------------------------ */

static void test_load_default(void **state) {
    (void)state;
    assert_non_null(g_set);
    assert_ptr_equal(g_mem, g_set);
    assert_int_equal(g_set->rate, RATE);
    assert_int_equal(g_set->taps, HL_HRTF_TAPS);
    assert_int_equal(g_set->n_az, 72);
    assert_int_equal(g_set->n_el, 14); /* KEMAR: -40 .. +90 */
    assert_float_equal(g_set->el_min, -40.0f * PI_F / 180.0f, 1e-4f);
    float dmin = 1e9f, dmax = -1e9f;
    for (uint32_t i = 0; i < g_set->n_az * g_set->n_el; i++) {
        for (int e = 0; e < 2; e++) {
            float d = g_set->entry[i].delay[e];
            dmin = fminf(dmin, d);
            dmax = fmaxf(dmax, d);
            for (int t = 0; t < HL_HRTF_TAPS; t++)
                assert_true(isfinite(g_set->entry[i].ir[e][t]));
        }
    }
    assert_float_equal(dmin, 0.0f, 1e-4f);
    assert_true(dmax > 20.0f && dmax < HL_HRTF_MAX_DELAY - 3 + 1e-3f);
    /* normalisation: front (row of elevation 0 = row 4), power average of
     * both ears at 1 kHz = 1 */
    const hl_hrtf_entry_t *f = hl_hrtf_set_entry(g_set, 0, 4);
    double p = 0.0, w = 2.0 * 3.14159265358979 * 1000.0 / RATE;
    for (int e = 0; e < 2; e++) {
        double re = 0.0, im = 0.0;
        for (int t = 0; t < HL_HRTF_TAPS; t++) {
            re += f->ir[e][t] * cos(w * t);
            im -= f->ir[e][t] * sin(w * t);
        }
        p += 0.5 * (re * re + im * im);
    }
    assert_float_equal(p, 1.0, 1e-3);
    /* a side source: the ITD lies in the human range (0.55 .. 0.8 ms) */
    const hl_hrtf_entry_t *l = hl_hrtf_set_entry(g_set, 18, 4);
    float itd_ms = (l->delay[1] - l->delay[0]) * 1000.0f / RATE;
    assert_true(itd_ms > 0.55f && itd_ms < 0.8f);
}

static void test_load_errors(void **state) {
    (void)state;
    void *mem = (void *)1;
    hl_hrtf_set_t *set = (void *)1;
    char err[256];
    int rc = hld_hrtf_load("/nonexistent/dir/kemar.sofa", RATE, &mem, &set, err, sizeof err);
    assert_int_equal(rc, HELIOD_EFILE);
    assert_null(mem);
    assert_null(set);
    assert_non_null(strstr(err, "/nonexistent/dir/kemar.sofa"));
    assert_non_null(strstr(err, "No such file"));

    /* a file that exists but is not SOFA */
    char path[] = "/tmp/heliod_test_hrtf_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char junk[] = "this is not an HDF5 file, let alone SOFA\n";
    for (int i = 0; i < 64; i++)
        assert_int_equal(write(fd, junk, sizeof junk), sizeof junk);
    close(fd);
    err[0] = '\0';
    rc = hld_hrtf_load(path, RATE, &mem, &set, err, sizeof err);
    unlink(path);
    assert_int_equal(rc, HELIOD_EDECODE);
    assert_null(mem);
    assert_non_null(strstr(err, "SOFA"));

    rc = hld_hrtf_load(NULL, 1000, &mem, &set, err, sizeof err);
    assert_int_equal(rc, HELIOD_EINVAL);
    assert_true(strlen(err) > 0);
    hld_hrtf_free(NULL);
}

/* ---- hand-built set: layout, lookup, exact filter -------------------- */

/* 4 azimuths x 2 rows (0 and 90 degrees); entry (az, el) has a single tap
 * of value 1 + az + 10 el at tap 0 (left) / tap 1 (right), and delays
 * left = az + el, right = 2 az + 0.5. */
static hl_hrtf_set_t *synth_set(void) {
    size_t size = hl_hrtf_set_size(4, 2);
    assert_true(size > sizeof(hl_hrtf_set_t));
    void *mem = aligned_alloc(64, (size + 63) / 64 * 64);
    assert_non_null(mem);
    hl_hrtf_set_t *s = hl_hrtf_set_init(mem, RATE, 4, 2, 0.0f, PI_F / 2.0f);
    assert_ptr_equal(s, mem);
    for (uint32_t el = 0; el < 2; el++) {
        for (uint32_t az = 0; az < 4; az++) {
            hl_hrtf_entry_t *e = hl_hrtf_set_entry(s, az, el);
            assert_ptr_equal(e, &s->entry[el * 4 + az]);
            e->ir[0][0] = 1.0f + (float)az + 10.0f * (float)el;
            e->ir[1][1] = 1.0f + (float)az + 10.0f * (float)el;
            e->delay[0] = (float)(az + el);
            e->delay[1] = 2.0f * (float)az + 0.5f;
        }
    }
    return s;
}

static void test_set_layout_and_lookup(void **state) {
    (void)state;
    assert_int_equal(hl_hrtf_set_size(0, 3), 0);
    assert_int_equal(hl_hrtf_set_size(72, 14),
                     sizeof(hl_hrtf_set_t) + 72u * 14u * sizeof(hl_hrtf_entry_t));
    void *scratch = malloc(4096);
    assert_null(hl_hrtf_set_init(scratch, RATE, 4, 2, 0.0f, 0.0f)); /* no elevation step */
    free(scratch);
    hl_hrtf_set_t *s = synth_set();
    assert_null(hl_hrtf_set_entry(s, 4, 0));
    float il[HL_HRTF_TAPS], ir[HL_HRTF_TAPS], dl, dr;

    hl_hrtf_lookup_rt(s, 0.0f, 0.0f, il, ir, &dl, &dr); /* exactly on (0, 0) */
    assert_float_equal(il[0], 1.0f, 1e-6f);
    assert_float_equal(ir[1], 1.0f, 1e-6f);
    assert_float_equal(il[1], 0.0f, 1e-6f);
    assert_float_equal(dl, 0.0f, 1e-6f);
    assert_float_equal(dr, 0.5f, 1e-6f);

    hl_hrtf_lookup_rt(s, PI_F / 4.0f, PI_F / 4.0f, il, ir, &dl, &dr); /* centre of a cell */
    assert_float_equal(il[0], 1.0f + 0.5f + 5.0f, 1e-5f);
    assert_float_equal(dl, 0.5f + 0.5f, 1e-5f);
    assert_float_equal(dr, 1.0f + 0.5f, 1e-5f);

    /* wrap: az = -pi/4 lies between entries 3 and 0 */
    hl_hrtf_lookup_rt(s, -PI_F / 4.0f, 0.0f, il, ir, &dl, &dr);
    assert_float_equal(il[0], (4.0f + 1.0f) / 2.0f, 1e-5f);
    hl_hrtf_lookup_rt(s, 7.0f * PI_F / 4.0f + 4.0f * PI_F, 0.0f, il, ir, &dl, &dr);
    assert_float_equal(il[0], 2.5f, 1e-4f);

    /* elevation clamps to the rows; NaN is treated as 0 */
    hl_hrtf_lookup_rt(s, 0.0f, -1.0f, il, ir, &dl, &dr);
    assert_float_equal(il[0], 1.0f, 1e-6f);
    hl_hrtf_lookup_rt(s, 0.0f, 3.0f, il, ir, &dl, &dr);
    assert_float_equal(il[0], 11.0f, 1e-5f);
    hl_hrtf_lookup_rt(s, NAN, NAN, il, ir, &dl, &dr);
    assert_float_equal(il[0], 1.0f, 1e-6f);
    free(s);
}

static void test_filter_exact(void **state) {
    (void)state;
    hl_hrtf_set_t *s = synth_set();
    static hl_hrtf_voice_t v;
    hl_hrtf_voice_reset_rt(&v);
    float in[BLOCK] = {0}, out_l[BLOCK], out_r[BLOCK];
    in[0] = 1.0f;
    for (int i = 0; i < BLOCK; i++)
        out_l[i] = out_r[i] = 1.0f; /* accumulates */
    const float front[3] = {0.0f, 0.0f, -1.0f};
    hl_hrtf_process_rt(s, &v, in, BLOCK, front, 0.5f, out_l, out_r);
    /* left: tap 0 = 1, delay 0 (+1 frame of Lagrange latency) */
    for (int i = 0; i < BLOCK; i++)
        assert_float_equal(out_l[i], 1.0f + (i == 1 ? 0.5f : 0.0f), 1e-6f);
    /* right: tap 1, delay 0.5 + 1: half-sample Lagrange (-1, 9, 9, -1) / 16
     * starting at frame 1 + 0 (tap) ... */
    const float lag[4] = {-1.0f / 16, 9.0f / 16, 9.0f / 16, -1.0f / 16};
    for (int i = 0; i < BLOCK; i++) {
        float want = 1.0f;
        if (i >= 1 && i <= 4) want += 0.5f * lag[i - 1];
        assert_float_equal(out_r[i], want, 1e-6f);
    }

    /* zero-length direction = front; the same parameters: no change */
    const float zero[3] = {0.0f, 0.0f, 0.0f};
    float l2[BLOCK] = {0}, r2[BLOCK] = {0};
    hl_hrtf_voice_reset_rt(&v);
    hl_hrtf_process_rt(s, &v, in, BLOCK, zero, 0.5f, l2, r2);
    assert_float_equal(l2[1], 0.5f, 1e-6f);

    /* block-size independence on the static path: 256 in one call == 4 x 64
     * and 1 x 256 over a noise signal, over several blocks */
    static hl_hrtf_voice_t a, b;
    hl_hrtf_voice_reset_rt(&a);
    hl_hrtf_voice_reset_rt(&b);
    float d[3];
    dir_of(1.0f, 0.3f, d);
    for (int blk = 0; blk < 4; blk++) {
        float x[BLOCK], ya_l[BLOCK] = {0}, ya_r[BLOCK] = {0}, yb_l[BLOCK] = {0}, yb_r[BLOCK] = {0};
        for (int i = 0; i < BLOCK; i++)
            x[i] = noise();
        hl_hrtf_process_rt(s, &a, x, BLOCK, d, 0.7f, ya_l, ya_r);
        for (int q = 0; q < 4; q++)
            hl_hrtf_process_rt(s, &b, x + 64 * q, 64, d, 0.7f, yb_l + 64 * q, yb_r + 64 * q);
        for (int i = 0; i < BLOCK; i++) {
            assert_float_equal(ya_l[i], yb_l[i], 1e-6f);
            assert_float_equal(ya_r[i], yb_r[i], 1e-6f);
        }
    }
    free(s);
}

/* ---- localisation cues on KEMAR -------------------------------------- */

typedef struct {
    float rms_db[2];
    int onset[2]; /* first frame above 10% of that ear's peak (click) */
    int xc_lag;   /* argmax_k sum L[n] R[n + k], k in [-48, 48] (noise) */
} cues_t;

#define CUE_LEN (4 * BLOCK)

static cues_t measure_cues(const float d[3]) {
    cues_t c;
    static float in[CUE_LEN], l[CUE_LEN], r[CUE_LEN];
    static hl_hrtf_voice_t v;
    /* click */
    memset(in, 0, sizeof in);
    memset(l, 0, sizeof l);
    memset(r, 0, sizeof r);
    in[10] = 1.0f;
    hl_hrtf_voice_reset_rt(&v);
    for (int b = 0; b < CUE_LEN / BLOCK; b++)
        hl_hrtf_process_rt(g_set, &v, in + b * BLOCK, BLOCK, d, 1.0f, l + b * BLOCK, r + b * BLOCK);
    for (int e = 0; e < 2; e++) {
        const float *y = e ? r : l;
        float pk = 0.0f;
        for (int i = 0; i < CUE_LEN; i++)
            pk = fmaxf(pk, fabsf(y[i]));
        c.onset[e] = -1;
        for (int i = 0; i < CUE_LEN && c.onset[e] < 0; i++)
            if (fabsf(y[i]) > 0.1f * pk) c.onset[e] = i;
    }
    /* noise burst */
    memset(l, 0, sizeof l);
    memset(r, 0, sizeof r);
    for (int i = 0; i < CUE_LEN; i++)
        in[i] = i < 2 * BLOCK ? noise() * 0.5f : 0.0f;
    hl_hrtf_voice_reset_rt(&v);
    for (int b = 0; b < CUE_LEN / BLOCK; b++)
        hl_hrtf_process_rt(g_set, &v, in + b * BLOCK, BLOCK, d, 1.0f, l + b * BLOCK, r + b * BLOCK);
    double el = 0.0, er = 0.0;
    for (int i = 0; i < CUE_LEN; i++) {
        el += (double)l[i] * l[i];
        er += (double)r[i] * r[i];
    }
    c.rms_db[0] = (float)(10.0 * log10(el / CUE_LEN));
    c.rms_db[1] = (float)(10.0 * log10(er / CUE_LEN));
    double best = -1e30;
    c.xc_lag = 0;
    for (int k = -48; k <= 48; k++) {
        double acc = 0.0;
        for (int i = 0; i < CUE_LEN; i++)
            if (i + k >= 0 && i + k < CUE_LEN) acc += (double)l[i] * r[i + k];
        if (acc > best) {
            best = acc;
            c.xc_lag = k;
        }
    }
    return c;
}

static void test_itd_ild_signs(void **state) {
    (void)state;
    assert_non_null(g_set);
    const float left[3] = {-1.0f, 0.0f, 0.0f}, right[3] = {1.0f, 0.0f, 0.0f};
    const float front[3] = {0.0f, 0.0f, -1.0f};

    cues_t c = measure_cues(left);
    assert_true(c.onset[0] >= 0 && c.onset[1] >= 0);
    assert_true(c.onset[0] + 10 < c.onset[1]);     /* left ear first, by > 0.2 ms */
    assert_true(c.xc_lag >= 15 && c.xc_lag <= 45); /* R lags L by the ITD */
    assert_true(c.rms_db[0] > c.rms_db[1] + 6.0f); /* and is louder */

    c = measure_cues(right);
    assert_true(c.onset[1] + 10 < c.onset[0]);
    assert_true(c.xc_lag <= -15 && c.xc_lag >= -45);
    assert_true(c.rms_db[1] > c.rms_db[0] + 6.0f);

    c = measure_cues(front);
    assert_true(fabsf(c.rms_db[0] - c.rms_db[1]) < 1.5f);
    assert_true(abs(c.xc_lag) <= 1);
    assert_true(abs(c.onset[0] - c.onset[1]) <= 1);
    /* a frontal source has about unity gain: the noise RMS through it is
     * within 6 dB of the input's (KEMAR boosts 2-5 kHz and notches 8 kHz) */
    double in_db = 10.0 * log10(0.25 / 3.0 * (2.0 * BLOCK) / CUE_LEN);
    assert_true(fabs(c.rms_db[0] - in_db) < 6.0);
}

/* ---- click freedom --------------------------------------------------- */

#define SWEEP_BLOCKS (2 * RATE / BLOCK) /* 2 s */

/* Max |y[n] - y[n-1]| over both ears of a 1 kHz sine at 0.5 through a
 * voice driven block by block; dirs(b, d, &gain) gives block b's
 * parameters. The first block (history filling from silence) is skipped. */
typedef void (*param_fn)(int b, float d[3], float *gain, const void *arg);

static float max_step(param_fn fn, const void *arg, int blocks, int isa) {
    static hl_hrtf_voice_t v;
    hl_hrtf_voice_reset_rt(&v);
    float prev[2] = {0.0f, 0.0f}, worst = 0.0f;
    for (int b = 0; b < blocks; b++) {
        float in[BLOCK], l[BLOCK] = {0}, r[BLOCK] = {0}, d[3], g;
        for (int i = 0; i < BLOCK; i++)
            in[i] = 0.5f * sinf(2.0f * PI_F * 1000.0f * (float)((b * BLOCK + i) % 48) / RATE);
        fn(b, d, &g, arg);
        hl_hrtf_process_isa_rt(g_set, &v, in, BLOCK, d, g, l, r, isa);
        for (int i = 0; i < BLOCK; i++) {
            if (b > 0) {
                worst = fmaxf(worst, fabsf(l[i] - prev[0]));
                worst = fmaxf(worst, fabsf(r[i] - prev[1]));
            }
            prev[0] = l[i];
            prev[1] = r[i];
        }
    }
    return worst;
}

static void static_params(int b, float d[3], float *g, const void *arg) {
    (void)b;
    const float *az = arg;
    dir_of(*az, 0.0f, d);
    *g = 1.0f;
}

static void sweep_params(int b, float d[3], float *g, const void *arg) {
    (void)arg; /* one turn over SWEEP_BLOCKS, a little elevation wobble */
    float az = 2.0f * PI_F * (float)b / SWEEP_BLOCKS;
    dir_of(az, 0.3f * sinf(3.0f * az), d);
    *g = 1.0f;
}

static void jump_params(int b, float d[3], float *g, const void *arg) {
    (void)arg; /* left, front, right, back, ... one per block; gain toggles */
    dir_of((float)(b % 4) * PI_F / 2.0f, 0.0f, d);
    *g = (b % 3) ? 1.0f : 0.6f;
}

static float worst_static_step(void) {
    float worst = 0.0f;
    for (int a = 0; a < 72; a += 2) {
        float az = (float)a * 5.0f * PI_F / 180.0f;
        worst = fmaxf(worst, max_step(static_params, &az, 4, HL_HRTF_ISA_AUTO));
    }
    return worst;
}

static void test_moving_no_clicks(void **state) {
    (void)state;
    assert_non_null(g_set);
    float bound = 1.5f * worst_static_step();
    assert_true(bound > 0.05f); /* a 1 kHz sine at 0.5 moves by ~0.065 per sample */
    float sweep = max_step(sweep_params, NULL, SWEEP_BLOCKS, HL_HRTF_ISA_AUTO);
    float jump = max_step(jump_params, NULL, SWEEP_BLOCKS / 2, HL_HRTF_ISA_AUTO);
    print_message("static worst step %.4f, bound %.4f, sweep %.4f, jumps %.4f\n",
                  (double)(bound / 1.5f), (double)bound, (double)sweep, (double)jump);
    assert_true(sweep > 0.0f && sweep <= bound);
    assert_true(jump > 0.0f && jump <= bound);
}

/* ---- kernels ----------------------------------------------------------- */

static void test_portable_vs_avx2(void **state) {
    (void)state;
    assert_non_null(g_set);
    assert_true(hl_hrtf_isa_supported(HL_HRTF_ISA_PORTABLE));
    if (!hl_hrtf_isa_supported(HL_HRTF_ISA_AVX2)) skip();
    static hl_hrtf_voice_t a, b;
    hl_hrtf_voice_reset_rt(&a);
    hl_hrtf_voice_reset_rt(&b);
    float worst = 0.0f, peak = 0.0f;
    for (int blk = 0; blk < 64; blk++) {
        float x[BLOCK], la[BLOCK] = {0}, ra[BLOCK] = {0}, lb[BLOCK] = {0}, rb[BLOCK] = {0}, d[3];
        for (int i = 0; i < BLOCK; i++)
            x[i] = noise();
        /* static for a few blocks, then moving; odd sizes too */
        dir_of(blk < 8 ? 0.5f : 0.1f * (float)blk, 0.2f, d);
        uint32_t n = blk % 5 == 4 ? 77u : BLOCK;
        hl_hrtf_process_isa_rt(g_set, &a, x, n, d, 0.8f, la, ra, HL_HRTF_ISA_PORTABLE);
        hl_hrtf_process_isa_rt(g_set, &b, x, n, d, 0.8f, lb, rb, HL_HRTF_ISA_AVX2);
        for (uint32_t i = 0; i < n; i++) {
            worst = fmaxf(worst, fmaxf(fabsf(la[i] - lb[i]), fabsf(ra[i] - rb[i])));
            peak = fmaxf(peak, fmaxf(fabsf(la[i]), fabsf(ra[i])));
        }
    }
    assert_true(peak > 0.1f);
    assert_true(worst <= 1e-5f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_default),          cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_set_layout_and_lookup), cmocka_unit_test(test_filter_exact),
        cmocka_unit_test(test_itd_ild_signs),         cmocka_unit_test(test_moving_no_clicks),
        cmocka_unit_test(test_portable_vs_avx2),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
