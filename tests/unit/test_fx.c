/*
 * test_fx.c - unit tests of the effects DSP (hl_fx.h): biquad magnitudes
 * measured with sine tones (RMS after settling), EQ glides on the 16-frame
 * grid, the per-voice filter (cutoff, zipper-free glides, bit-exact bypass),
 * the occlusion curve, the compressor's static curve and makeup glide, the
 * reverb's RT60 by Schroeder backward integration, its stability at 20 s,
 * NaN/Inf input and denormal tails, presets and the insert wrapper.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_fx.h"
#include "hl_limits.h"
#include "mix_helpers.h"

#define RATE       48000.0f
#define SETTLE     12000 /* frames run before measuring (0.25 s) */
#define WINDOW     24000 /* frames measured: 0.5 s, whole periods of every test tone */
#define TONE_AMP   0.5
#define DB_3       (-3.0103f)
#define RV_IR_FREE 0.1 /* s of impulse response rendered past the nominal RT60 * 1.2 */

typedef void (*proc_fn)(void *ctx, float *l, float *r, uint32_t n);

/* Gain in dB of `proc` at freq: a sine through it in HL_MIX_BLOCK calls,
 * output RMS over WINDOW frames after SETTLE, over the input's RMS. Both
 * channels carry the tone; the left is measured. */
static float tone_gain_db(proc_fn proc, void *ctx, double freq, float rate) {
    const uint32_t total = SETTLE + WINDOW;
    float *l = malloc(total * sizeof(float)), *r = malloc(total * sizeof(float));
    double in_e = 0.0, out_e = 0.0;
    for (uint32_t i = 0; i < total; i++)
        l[i] = r[i] = (float)(TONE_AMP * sin(2.0 * TEST_PI * freq * i / rate));
    for (uint32_t i = SETTLE; i < total; i++)
        in_e += (double)l[i] * l[i];
    for (uint32_t i = 0; i < total; i += HL_MIX_BLOCK) {
        uint32_t m = total - i < HL_MIX_BLOCK ? total - i : HL_MIX_BLOCK;
        proc(ctx, l + i, r + i, m);
    }
    for (uint32_t i = SETTLE; i < total; i++)
        out_e += (double)l[i] * l[i];
    free(l);
    free(r);
    return (float)(10.0 * log10(out_e / in_e));
}

typedef struct {
    hl_bq_coef_t c;
    hl_bq_state_t s;
} bq_ctx_t;

static void bq_proc(void *ctx, float *l, float *r, uint32_t n) {
    bq_ctx_t *b = ctx;
    (void)r;
    hl_bq_process_rt(&b->c, &b->s, l, n);
}

static float bq_gain(int type, float fc, float q, float db, double f) {
    bq_ctx_t b = {.s = {0}};
    hl_bq_design(&b.c, type, RATE, fc, q, db);
    return tone_gain_db(bq_proc, &b, f, RATE);
}

static void test_bq_lp_hp(void **state) {
    (void)state;
    const float fc[] = {100.0f, 1000.0f, 10000.0f};
    for (int i = 0; i < 3; i++) {
        float q = 0.70710678f;
        assert_float_equal(bq_gain(HL_BQ_LOWPASS, fc[i], q, 0, fc[i]), DB_3, 0.5f);
        assert_float_equal(bq_gain(HL_BQ_HIGHPASS, fc[i], q, 0, fc[i]), DB_3, 0.5f);
        assert_float_equal(bq_gain(HL_BQ_LOWPASS, fc[i], q, 0, fc[i] / 10.0), 0.0f, 0.1f);
        double hp_pass = fc[i] * 10.0 < 20000.0 ? fc[i] * 10.0 : 20000.0;
        assert_float_equal(bq_gain(HL_BQ_HIGHPASS, fc[i], q, 0, hp_pass), 0.0f, 0.1f);
        if (fc[i] * 4.0f < 0.45f * RATE) /* a real stop band: 12 dB/octave */
            assert_true(bq_gain(HL_BQ_LOWPASS, fc[i], q, 0, fc[i] * 4.0) < -20.0f);
        assert_true(bq_gain(HL_BQ_HIGHPASS, fc[i], q, 0, fc[i] / 4.0) < -20.0f);
    }
}

static void test_bq_shelf_peak(void **state) {
    (void)state;
    const float q = 0.70710678f;
    assert_float_equal(bq_gain(HL_BQ_LOWSHELF, 200.0f, q, 6.0f, 20.0), 6.0f, 0.2f);
    assert_float_equal(bq_gain(HL_BQ_LOWSHELF, 200.0f, q, 6.0f, 10000.0), 0.0f, 0.2f);
    assert_float_equal(bq_gain(HL_BQ_LOWSHELF, 200.0f, q, 6.0f, 200.0), 3.0f, 0.2f); /* midpoint */
    assert_float_equal(bq_gain(HL_BQ_HIGHSHELF, 2000.0f, q, -9.0f, 20000.0), -9.0f, 0.2f);
    assert_float_equal(bq_gain(HL_BQ_HIGHSHELF, 2000.0f, q, -9.0f, 100.0), 0.0f, 0.2f);
    assert_float_equal(bq_gain(HL_BQ_PEAK, 1000.0f, 1.0f, -6.0f, 1000.0), -6.0f, 0.2f);
    assert_float_equal(bq_gain(HL_BQ_PEAK, 1000.0f, 1.0f, -6.0f, 50.0), 0.0f, 0.2f);
    assert_float_equal(bq_gain(HL_BQ_PEAK, 1000.0f, 1.0f, 9.0f, 1000.0), 9.0f, 0.2f);
    /* designs clamp: a cutoff beyond Nyquist stays a stable filter */
    hl_bq_coef_t c;
    hl_bq_design(&c, HL_BQ_LOWPASS, RATE, 1e6f, 0.7f, 0.0f);
    assert_true(fabsf(c.a2) < 1.0f && isfinite(c.b0));
}

/* Analytic |H(e^jw)| in dB of a biquad. */
static float bq_mag_db(const hl_bq_coef_t *c, double f, double rate) {
    double w = 2.0 * TEST_PI * f / rate;
    double cr = cos(w), ci = -sin(w), c2r = cos(2 * w), c2i = -sin(2 * w);
    double nr = c->b0 + c->b1 * cr + c->b2 * c2r, ni = c->b1 * ci + c->b2 * c2i;
    double dr = 1.0 + c->a1 * cr + c->a2 * c2r, di = c->a1 * ci + c->a2 * c2i;
    return (float)(10.0 * log10((nr * nr + ni * ni) / (dr * dr + di * di)));
}

static void test_bq_denormal_flush(void **state) {
    (void)state;
    hl_bq_coef_t c;
    hl_bq_state_t s = {0};
    hl_bq_design(&c, HL_BQ_LOWPASS, RATE, 200.0f, 0.7071f, 0.0f);
    float buf[HL_MIX_BLOCK] = {1.0f};
    hl_bq_process_rt(&c, &s, buf, HL_MIX_BLOCK);
    for (int b = 0; b < 400; b++) { /* 2 s of silence */
        memset(buf, 0, sizeof buf);
        hl_bq_process_rt(&c, &s, buf, HL_MIX_BLOCK);
    }
    assert_true(s.s1 == 0.0f && s.s2 == 0.0f);
    for (int i = 0; i < HL_MIX_BLOCK; i++)
        assert_true(buf[i] == 0.0f);
}

static void eq_proc(void *ctx, float *l, float *r, uint32_t n) {
    hl_eq_process_rt(ctx, l, r, n);
}

static void test_eq_glide(void **state) {
    (void)state;
    hl_eq_t e;
    hl_eq_init(&e, RATE, HL_BQ_PEAK, 1000.0f, 1.0f, 0.0f);
    assert_float_equal(tone_gain_db(eq_proc, &e, 1000.0, RATE), 0.0f, 0.05f);
    hl_eq_init(&e, RATE, HL_BQ_PEAK, 1000.0f, 1.0f, -6.0f);
    assert_float_equal(tone_gain_db(eq_proc, &e, 1000.0, RATE), -6.0f, 0.2f);

    /* 0 -> +12 dB and 500 Hz -> 2 kHz over 4800 frames, processed one frame
     * at a time: coefficients change exactly every 16 frames, 300 times */
    hl_eq_init(&e, RATE, HL_BQ_PEAK, 500.0f, 1.0f, 0.0f);
    hl_eq_set_rt(&e, HL_BQ_PEAK, 2000.0f, 2.0f, 12.0f, 4800);
    hl_bq_coef_t prev = e.c;
    int changes = 0, off_grid = 0;
    float mid_db = 0.0f, mid_f = 0.0f;
    for (uint32_t i = 0; i < 9600; i++) {
        float x = (float)sin(0.1 * i), y = x;
        hl_eq_process_rt(&e, &x, &y, 1);
        if (memcmp(&prev, &e.c, sizeof prev) != 0) {
            changes++;
            if (i % HL_FX_GRID != 0) off_grid++;
            prev = e.c;
        }
        if (i == 2400) { /* half way: 6 dB at the geometric mean frequency */
            mid_f = expf(e.cur_lf);
            mid_db = bq_mag_db(&e.c, mid_f, RATE);
        }
    }
    assert_int_equal(changes, 300);
    assert_int_equal(off_grid, 0);
    assert_int_equal(e.steps, 0);
    assert_float_equal(mid_f, 1000.0f, 20.0f);
    assert_float_equal(mid_db, 6.0f, 0.3f);
    hl_bq_coef_t want;
    hl_bq_design(&want, HL_BQ_PEAK, RATE, 2000.0f, 2.0f, 12.0f);
    assert_float_equal(e.c.b0, want.b0, 1e-5f);
    assert_float_equal(e.c.a1, want.a1, 1e-5f);
    assert_float_equal(e.c.a2, want.a2, 1e-5f);
    assert_float_equal(bq_mag_db(&e.c, 2000.0, RATE), 12.0f, 0.01f);

    /* a type change jumps */
    hl_eq_set_rt(&e, HL_BQ_LOWPASS, 1000.0f, 0.7071f, 0.0f, 4800);
    assert_int_equal(e.steps, 0);
    assert_float_equal(bq_mag_db(&e.c, 1000.0, RATE), DB_3, 0.05f);
}

typedef struct {
    hl_vfilter_t f;
    uint32_t nch;
} vf_ctx_t;

static void vf_proc(void *ctx, float *l, float *r, uint32_t n) {
    vf_ctx_t *v = ctx;
    float *ch[2] = {l, r};
    hl_vfilter_process_rt(&v->f, ch, v->nch, n);
}

static void test_vfilter_cutoff(void **state) {
    (void)state;
    const float fc[] = {100.0f, 1000.0f, 10000.0f};
    for (int i = 0; i < 3; i++) {
        for (uint32_t nch = 1; nch <= 2; nch++) {
            vf_ctx_t v = {.nch = nch};
            hl_vfilter_init_rt(&v.f, RATE, fc[i], 0.0f);
            assert_true(hl_vfilter_active(&v.f));
            assert_float_equal(tone_gain_db(vf_proc, &v, fc[i], RATE), DB_3, 0.5f);
            hl_vfilter_init_rt(&v.f, RATE, fc[i], 0.0f);
            assert_float_equal(tone_gain_db(vf_proc, &v, fc[i] / 10.0, RATE), 0.0f, 0.1f);
            hl_vfilter_init_rt(&v.f, RATE, 0.0f, fc[i]);
            assert_float_equal(tone_gain_db(vf_proc, &v, fc[i], RATE), DB_3, 0.5f);
        }
    }
    /* band: hp 200 + lp 5000, both at -3 dB (plus the other's small share) */
    vf_ctx_t v = {.nch = 2};
    hl_vfilter_init_rt(&v.f, RATE, 5000.0f, 200.0f);
    assert_float_equal(tone_gain_db(vf_proc, &v, 1000.0, RATE), 0.0f, 0.2f);
    hl_vfilter_init_rt(&v.f, RATE, 5000.0f, 200.0f);
    assert_true(tone_gain_db(vf_proc, &v, 50.0, RATE) < -20.0f);
}

#define VF_PREROLL 4800 /* frames at the initial setting first: the tone's own onset is no step */

/* A 100 Hz sine through a vfilter: VF_PREROLL frames as initialised, then
 * hl_vfilter_set_rt(lp, hp, ramp) and `frames` more. Returns the largest
 * |y[n] - y[n-1]| after the change, the unfiltered sine's own in *ref, and
 * the output peak over the last half in *peak_out. */
static float vf_max_step(hl_vfilter_t *f, float lp, float hp, uint32_t ramp, uint32_t frames,
                         float *ref, float *peak_out) {
    const uint32_t total = VF_PREROLL + frames;
    float *x = malloc(total * sizeof(float));
    float ref_step = 0.0f, step = 0.0f, pk = 0.0f;
    for (uint32_t i = 0; i < total; i++)
        x[i] = (float)(TONE_AMP * sin(2.0 * TEST_PI * 100.0 * i / RATE));
    for (uint32_t i = 1; i < total; i++)
        ref_step = fmaxf(ref_step, fabsf(x[i] - x[i - 1]));
    float *ch[1] = {x};
    for (uint32_t i = 0; i < total; i += HL_MIX_BLOCK) {
        if (i == VF_PREROLL) hl_vfilter_set_rt(f, lp, hp, ramp);
        uint32_t m =
            VF_PREROLL - i < HL_MIX_BLOCK && i < VF_PREROLL ? VF_PREROLL - i : HL_MIX_BLOCK;
        if (m > total - i) m = total - i;
        ch[0] = x + i;
        hl_vfilter_process_rt(f, ch, 1, m);
        i -= HL_MIX_BLOCK - m;
    }
    for (uint32_t i = VF_PREROLL; i < total; i++) {
        step = fmaxf(step, fabsf(x[i] - x[i - 1]));
        if (i >= total - frames / 2) pk = fmaxf(pk, fabsf(x[i]));
    }
    free(x);
    *ref = ref_step;
    *peak_out = pk;
    return step;
}

/* The naive alternative, for contrast: a TDF-II biquad low-pass whose
 * coefficients jump to the next point of the log sweep every 16 frames. */
static float bq_sweep_max_step(float f0, float f1, uint32_t ramp, float *ref) {
    const uint32_t total = VF_PREROLL + 2 * ramp;
    hl_bq_coef_t c;
    hl_bq_state_t s = {0};
    uint32_t steps = ramp / HL_FX_GRID;
    float f = f0, mul = powf(f1 / f0, 1.0f / (float)steps), step = 0.0f, prev = 0.0f;
    *ref = 0.0f;
    hl_bq_design(&c, HL_BQ_LOWPASS, RATE, f, 0.70710678f, 0.0f);
    for (uint32_t i = 0; i < total; i++) {
        if (i >= VF_PREROLL && (i - VF_PREROLL) % HL_FX_GRID == 0 && steps > 0) {
            steps--;
            f *= mul;
            hl_bq_design(&c, HL_BQ_LOWPASS, RATE, f, 0.70710678f, 0.0f);
        }
        float x = (float)(TONE_AMP * sin(2.0 * TEST_PI * 100.0 * i / RATE)), y = x;
        float xp = (float)(TONE_AMP * sin(2.0 * TEST_PI * 100.0 * (i - 1.0) / RATE));
        *ref = fmaxf(*ref, fabsf(x - xp));
        hl_bq_process_rt(&c, &s, &y, 1);
        if (i >= VF_PREROLL) step = fmaxf(step, fabsf(y - prev));
        prev = y;
    }
    return step;
}

static void test_vfilter_ramp(void **state) {
    (void)state;
    const uint32_t frames = 9600;
    float ref, pk, step;
    hl_vfilter_t f;

    hl_vfilter_init_rt(&f, RATE, 20000.0f, 0.0f); /* 20 kHz -> 500 Hz over 4800 frames */
    step = vf_max_step(&f, 500.0f, 0.0f, 4800, frames, &ref, &pk);
    print_message("vfilter 20 kHz -> 500 Hz: max step %.6f, the sine's own %.6f\n", step, ref);
    assert_true(step <= ref * 1.001f);
    assert_float_equal(f.lp.f, 500.0f, 0.01f);
    assert_true(f.lp.steps == 0);
    assert_true(pk > 0.45f); /* 100 Hz passes a 500 Hz low-pass */

    /* the measure sees a zipper: the same sweep through a cookbook biquad
     * (transposed DF II) redesigned every 16 frames steps the waveform */
    float zip = bq_sweep_max_step(20000.0f, 500.0f, 4800, &ref);
    print_message("biquad stepped 20 kHz -> 500 Hz: max step %.6f\n", zip);
    assert_true(zip > ref * 1.001f);
    hl_vfilter_init_rt(&f, RATE, 20000.0f, 0.0f); /* a faster, deeper sweep */
    step = vf_max_step(&f, 150.0f, 0.0f, 480, frames, &ref, &pk);
    assert_true(step <= ref * 1.001f);

    /* turning stages on and off: no step beyond 2% of the sine's own */
    hl_vfilter_init_rt(&f, RATE, 0.0f, 0.0f); /* off -> 500 Hz: glides in from 0.45 rate */
    step = vf_max_step(&f, 500.0f, 0.0f, 4800, frames, &ref, &pk);
    assert_true(hl_vfilter_active(&f));
    assert_true(step <= ref * 1.02f);

    hl_vfilter_init_rt(&f, RATE, 0.0f, 0.0f); /* off -> hp 60 Hz: glides in from 10 Hz */
    step = vf_max_step(&f, 0.0f, 60.0f, 4800, frames, &ref, &pk);
    assert_true(step <= ref * 1.02f);

    hl_vfilter_init_rt(&f, RATE, 800.0f, 50.0f); /* both on -> off: out, fade, inactive */
    step = vf_max_step(&f, 0.0f, 0.0f, 2400, frames, &ref, &pk);
    print_message("vfilter lp 800 + hp 50 -> off: max step %.6f\n", step);
    assert_true(step <= ref * 1.02f);
    assert_false(hl_vfilter_active(&f));
    hl_vfilter_init_rt(&f, RATE, 800.0f, 50.0f); /* off at once: still the fade */
    step = vf_max_step(&f, 0.0f, 0.0f, 0, frames, &ref, &pk);
    assert_true(step <= ref * 1.02f);
    assert_false(hl_vfilter_active(&f));
}

static void test_vfilter_off_exact(void **state) {
    (void)state;
    hl_vfilter_t f;
    hl_vfilter_init_rt(&f, RATE, 0.0f, 0.0f);
    assert_false(hl_vfilter_active(&f));
    hl_vfilter_init_rt(&f, RATE, 0.49f * RATE, 10.0f); /* the off thresholds */
    assert_false(hl_vfilter_active(&f));
    hl_vfilter_init_rt(&f, RATE, 1000.0f, 0.0f);
    hl_vfilter_set_rt(&f, 30000.0f, 5.0f, 256);
    float a[2][HL_MIX_BLOCK], b[2][HL_MIX_BLOCK];
    float *ch[2] = {a[0], a[1]};
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < HL_MIX_BLOCK; i++) {
            a[0][i] = (float)sin(0.37 * (i + k * HL_MIX_BLOCK)) * 0.7f + 1e-30f;
            a[1][i] = (float)cos(0.011 * (i + k * HL_MIX_BLOCK)) * 0.3f;
        }
        memcpy(b, a, sizeof a);
        hl_vfilter_process_rt(&f, ch, 2, HL_MIX_BLOCK);
        if (k >= 2) assert_memory_equal(a, b, sizeof a); /* bit for bit once off */
    }
    assert_false(hl_vfilter_active(&f));
    /* the struct stays small: it lives in every voice slot (96 bytes, and
     * the shared glide it may follow: a pointer and a position) */
    assert_true(sizeof(hl_vfilter_t) <= 112);
}

/* A pair through one stereo filter is bit for bit each channel through its
 * own mono filter, through glides (the two channels run in one loop there,
 * sharing the per-frame coefficients), fade-ins and fade-outs of both
 * stages, in odd chunk sizes. */
static void test_vfilter_pair_exact(void **state) {
    (void)state;
    hl_vfilter_t st, mo[2];
    hl_vfilter_init_rt(&st, RATE, 0.0f, 0.0f);
    for (int c = 0; c < 2; c++)
        hl_vfilter_init_rt(&mo[c], RATE, 0.0f, 0.0f);
    static const float lp[] = {800.0f, 12000.0f, 500.0f, 0.0f, 3000.0f};
    static const float hp[] = {0.0f, 120.0f, 40.0f, 0.0f, 0.0f};
    static const uint32_t ramp[] = {144, 480, 37, 200, 0};
    static const uint32_t chunk[] = {256, 77, 16, 100, 5};
    float a[2][HL_MIX_BLOCK], b[2][HL_MIX_BLOCK];
    uint32_t t = 0;
    for (int step = 0; step < 5; step++) {
        hl_vfilter_set_rt(&st, lp[step], hp[step], ramp[step]);
        for (int c = 0; c < 2; c++)
            hl_vfilter_set_rt(&mo[c], lp[step], hp[step], ramp[step]);
        for (int k = 0; k < 8; k++) {
            const uint32_t n = chunk[(step + k) % 5];
            for (uint32_t i = 0; i < n; i++, t++) {
                a[0][i] = (float)sin(0.037 * t) * 0.7f;
                a[1][i] = (float)cos(0.0011 * t) * 0.3f + 0.1f * (float)sin(0.5 * t);
            }
            memcpy(b, a, sizeof a);
            float *ch[2] = {a[0], a[1]};
            hl_vfilter_process_rt(&st, ch, 2, n);
            for (int c = 0; c < 2; c++) {
                float *one[1] = {b[c]};
                hl_vfilter_process_rt(&mo[c], one, 1, n);
            }
            assert_memory_equal(a[0], b[0], n * sizeof(float));
            assert_memory_equal(a[1], b[1], n * sizeof(float));
        }
    }
}

static void test_occlusion_map(void **state) {
    (void)state;
    float g, lp, pg, plp;
    hl_occlusion_map(0.0f, 0.0f, RATE, &g, &lp);
    assert_true(g == 1.0f && lp == 0.0f);
    hl_occlusion_map(-1.0f, NAN, RATE, &g, &lp); /* clamped */
    assert_true(g == 1.0f && lp == 0.0f);
    hl_occlusion_map(1.0f, 0.0f, RATE, &g, &lp);
    assert_float_equal(g, powf(10.0f, -24.0f / 20.0f), 1e-4f);
    assert_float_equal(lp, 500.0f, 1.0f);
    hl_occlusion_map(0.0f, 1.0f, RATE, &g, &lp);
    assert_true(g == 1.0f);
    assert_float_equal(lp, 1000.0f, 2.0f);
    hl_occlusion_map(5.0f, 5.0f, RATE, &g, &lp);
    assert_float_equal(lp, 500.0f, 1.0f);
    /* monotonic in each argument, the other held (lp 0 = off = infinite) */
    for (int held = 0; held <= 4; held++) {
        float h = held / 4.0f;
        pg = 2.0f;
        plp = INFINITY;
        for (int i = 0; i <= 100; i++) {
            hl_occlusion_map(i / 100.0f, h, RATE, &g, &lp);
            float e = lp == 0.0f ? INFINITY : lp;
            assert_true(g <= pg && e <= plp);
            pg = g;
            plp = e;
        }
        pg = 2.0f;
        plp = INFINITY;
        for (int i = 0; i <= 100; i++) {
            hl_occlusion_map(h, i / 100.0f, RATE, &g, &lp);
            float e = lp == 0.0f ? INFINITY : lp;
            assert_true(g <= pg && e <= plp);
            assert_true(pg == 2.0f || g == pg); /* obstruction: no gain change */
            pg = g;
            plp = e;
        }
    }
    /* a low rate: cutoffs at or above 0.45 * rate map to off */
    hl_occlusion_map(0.05f, 0.0f, 16000.0f, &g, &lp);
    assert_true(lp == 0.0f);
    hl_occlusion_map(0.5f, 0.0f, 16000.0f, &g, &lp);
    assert_true(lp > 0.0f && lp < 0.45f * 16000.0f);
}

static float peak_db(const float *x, uint32_t from, uint32_t to) {
    float pk = 0.0f;
    for (uint32_t i = from; i < to; i++)
        pk = fmaxf(pk, fabsf(x[i]));
    return 20.0f * log10f(pk);
}

static void comp_run(hl_comp_t *c, float *l, float *r, uint32_t frames) {
    for (uint32_t i = 0; i < frames; i += HL_MIX_BLOCK)
        hl_comp_process_rt(c, l + i, r + i, frames - i < HL_MIX_BLOCK ? frames - i : HL_MIX_BLOCK);
}

static void test_comp_static(void **state) {
    (void)state;
    const uint32_t frames = 48000;
    float *l = malloc(frames * sizeof(float)), *r = malloc(frames * sizeof(float));
    float *ref = malloc(frames * sizeof(float));
    hl_comp_t c;

    /* -6 dBFS sine, threshold -20, ratio 4, knee 0: -20 + 14/4 = -16.5 dB */
    hl_comp_init(&c, RATE);
    hl_comp_set_rt(&c, -20.0f, 4.0f, 0.0f, 5.0f, 100.0f, 0.0f);
    float amp = powf(10.0f, -6.0f / 20.0f);
    for (uint32_t i = 0; i < frames; i++)
        l[i] = r[i] = amp * (float)sin(2.0 * TEST_PI * 1000.0 * i / RATE);
    comp_run(&c, l, r, frames);
    assert_float_equal(peak_db(l, frames - 4800, frames), -16.5f, 0.5f);
    assert_float_equal(peak_db(r, frames - 4800, frames), -16.5f, 0.5f);
    assert_float_equal(hl_comp_reduction_db(&c), 10.5f, 0.5f);

    /* below the threshold: unity, bit for bit */
    hl_comp_init(&c, RATE);
    hl_comp_set_rt(&c, -20.0f, 4.0f, 0.0f, 5.0f, 100.0f, 0.0f);
    amp = powf(10.0f, -30.0f / 20.0f);
    for (uint32_t i = 0; i < frames; i++)
        ref[i] = l[i] = r[i] = amp * (float)sin(2.0 * TEST_PI * 440.0 * i / RATE);
    comp_run(&c, l, r, frames);
    assert_memory_equal(l, ref, frames * sizeof(float));
    assert_true(hl_comp_reduction_db(&c) == 0.0f);

    /* soft knee: -20 dB in, knee 10, at the threshold: reduction
     * (1 - 1/R) (W/2)^2 / (2W) = 0.75 * 25 / 20 = 0.9375 dB */
    hl_comp_init(&c, RATE);
    hl_comp_set_rt(&c, -20.0f, 4.0f, 10.0f, 1.0f, 50.0f, 0.0f);
    for (uint32_t i = 0; i < frames; i++)
        l[i] = r[i] = 0.1f; /* DC at exactly -20 dBFS */
    comp_run(&c, l, r, frames);
    assert_float_equal(hl_comp_reduction_db(&c), 0.9375f, 0.02f);

    /* makeup +6 dB glides: no step, lands on 2x */
    hl_comp_init(&c, RATE);
    hl_comp_set_rt(&c, -20.0f, 4.0f, 0.0f, 5.0f, 100.0f, 6.0f);
    for (uint32_t i = 0; i < frames; i++)
        l[i] = r[i] = 0.05f; /* under the threshold */
    comp_run(&c, l, r, frames);
    float max_step = 0.0f;
    for (uint32_t i = 1; i < frames; i++)
        max_step = fmaxf(max_step, fabsf(l[i] - l[i - 1]));
    assert_true(l[0] < 0.051f);
    assert_true(max_step < 1e-4f); /* 0.05 -> 0.1 over 2400 frames: ~2e-5 a frame */
    assert_float_equal(l[frames - 1], 0.05f * powf(10.0f, 6.0f / 20.0f), 1e-5f);
    free(l);
    free(r);
    free(ref);
}

/* ---- reverb ---------------------------------------------------------------- */

static hl_reverb_t *reverb_new(float rate, void **mem) {
    size_t sz = hl_reverb_size(rate);
    assert_true(sz > 0);
    *mem = malloc(sz);
    hl_reverb_t *r = hl_reverb_init(*mem, sz, rate);
    assert_non_null(r);
    return r;
}

/* RT60 by Schroeder backward integration of l^2 + r^2: a least-squares line
 * through the -5..-25 dB part of the decay curve, extrapolated to -60 dB. */
static double schroeder_rt60(const float *l, const float *r, size_t n, double rate) {
    double *edc = malloc(n * sizeof(double)), acc = 0.0;
    for (size_t i = n; i-- > 0;) {
        acc += (double)l[i] * l[i] + (double)r[i] * r[i];
        edc[i] = acc;
    }
    double st = 0, sd = 0, stt = 0, std_ = 0, cnt = 0;
    for (size_t i = 0; i < n; i++) {
        double db = 10.0 * log10(edc[i] / edc[0]);
        if (db > -5.0) continue;
        if (db < -25.0) break;
        double t = i / rate;
        st += t;
        sd += db;
        stt += t * t;
        std_ += t * db;
        cnt++;
    }
    free(edc);
    double slope = (cnt * std_ - st * sd) / (cnt * stt - st * st);
    return -60.0 / slope;
}

static double reverb_ir_rt60(float rt60, float damping, float size) {
    void *mem;
    hl_reverb_t *rv = reverb_new(RATE, &mem);
    hl_reverb_params_t p = {rt60, damping, 0.0f, size, 1.0f, 0.0f};
    hl_reverb_set_rt(rv, &p);
    float tmp_l[HL_MIX_BLOCK] = {0}, tmp_r[HL_MIX_BLOCK] = {0};
    for (int i = 0; i < 20; i++) /* let the wet/dry glide settle on silence */
        hl_reverb_process_rt(rv, tmp_l, tmp_r, HL_MIX_BLOCK);
    size_t n = (size_t)((rt60 * 1.2 + RV_IR_FREE) * RATE);
    n = (n / HL_MIX_BLOCK + 1) * HL_MIX_BLOCK;
    float *l = calloc(n, sizeof(float)), *r = calloc(n, sizeof(float));
    l[0] = 1.0f;
    for (size_t i = 0; i < n; i += HL_MIX_BLOCK)
        hl_reverb_process_rt(rv, l + i, r + i, HL_MIX_BLOCK);
    double rt = schroeder_rt60(l, r, n, RATE);
    free(l);
    free(r);
    free(mem);
    return rt;
}

static void test_reverb_rt60(void **state) {
    (void)state;
    const float rts[] = {0.5f, 1.0f, 2.0f};
    for (int i = 0; i < 3; i++) {
        double m = reverb_ir_rt60(rts[i], 0.0f, 1.0f);
        print_message("reverb rt60 %.2f s: measured %.3f s\n", rts[i], m);
        assert_float_equal(m, rts[i], 0.1 * rts[i]);
    }
    /* other sizes, and close at a moderate damping */
    assert_float_equal(reverb_ir_rt60(1.0f, 0.0f, 0.25f), 1.0, 0.1);
    assert_float_equal(reverb_ir_rt60(1.0f, 0.0f, 2.0f), 1.0, 0.1);
    double d = reverb_ir_rt60(1.0f, 0.35f, 1.0f);
    print_message("reverb rt60 1.00 s damping 0.35: measured %.3f s\n", d);
    assert_true(d > 0.7 && d <= 1.05);
}

static uint32_t lcg(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

static float noise(uint32_t *s) {
    return (float)(int32_t)lcg(s) * (1.0f / 2147483648.0f);
}

static void test_reverb_stable(void **state) {
    (void)state;
    const float sizes[] = {0.25f, 2.0f};
    for (int si = 0; si < 2; si++) {
        void *mem;
        hl_reverb_t *rv = reverb_new(RATE, &mem);
        hl_reverb_params_t p = {20.0f, 0.0f, 0.0f, sizes[si], 1.0f, 1.0f};
        hl_reverb_set_rt(rv, &p);
        float l[HL_MIX_BLOCK], r[HL_MIX_BLOCK];
        uint32_t seed = 12345;
        float pk = 0.0f;
        int bad = 0;
        double e_first = 0.0, e_last = 0.0;
        const int blocks_noise = (int)(30.0f * RATE / HL_MIX_BLOCK);
        const int blocks_quiet = (int)(10.0f * RATE / HL_MIX_BLOCK);
        const int blocks_sec = (int)(RATE / HL_MIX_BLOCK);
        for (int b = 0; b < blocks_noise + blocks_quiet; b++) {
            for (int i = 0; i < HL_MIX_BLOCK; i++) {
                l[i] = b < blocks_noise ? 0.5f * noise(&seed) : 0.0f;
                r[i] = b < blocks_noise ? 0.5f * noise(&seed) : 0.0f;
            }
            hl_reverb_process_rt(rv, l, r, HL_MIX_BLOCK);
            for (int i = 0; i < HL_MIX_BLOCK; i++) {
                if (!isfinite(l[i]) || !isfinite(r[i])) bad++;
                pk = fmaxf(pk, fmaxf(fabsf(l[i]), fabsf(r[i])));
                double e = (double)l[i] * l[i] + (double)r[i] * r[i];
                if (b >= blocks_noise && b < blocks_noise + blocks_sec) e_first += e;
                if (b >= blocks_noise + blocks_quiet - blocks_sec) e_last += e;
            }
        }
        print_message("reverb rt60 20 s size %.2f: peak %.2f over 30 s of noise\n", sizes[si], pk);
        assert_int_equal(bad, 0);
        assert_true(pk < 16.0f);
        /* 9 s later at 60 dB / 20 s: 27 dB down (energy / 500) */
        assert_true(e_last < e_first / 100.0);
        assert_true(e_last > 0.0);
        free(mem);
    }
}

static void test_reverb_safety(void **state) {
    (void)state;
    void *mem;
    hl_reverb_t *rv = reverb_new(RATE, &mem);
    hl_reverb_params_t p = {0.3f, 0.5f, 10.0f, 0.5f, 1.0f, 1.0f};
    hl_reverb_set_rt(rv, &p);
    float l[HL_MIX_BLOCK], r[HL_MIX_BLOCK];
    for (int i = 0; i < HL_MIX_BLOCK; i++)
        l[i] = r[i] = 0.25f * (float)sin(0.05 * i);
    l[3] = NAN;
    r[7] = INFINITY;
    l[9] = -INFINITY;
    r[11] = 1e-41f; /* subnormal input */
    int subnormal = 0, bad = 0, nonzero_tail = 0;
    for (int b = 0; b < 1500; b++) { /* 8 s: the 0.3 s tail is long gone */
        hl_reverb_process_rt(rv, l, r, HL_MIX_BLOCK);
        for (int i = 0; i < HL_MIX_BLOCK; i++) {
            if (!isfinite(l[i]) || !isfinite(r[i])) bad++;
            if (fpclassify(l[i]) == FP_SUBNORMAL || fpclassify(r[i]) == FP_SUBNORMAL) subnormal++;
            if (b == 1499 && (l[i] != 0.0f || r[i] != 0.0f)) nonzero_tail++;
        }
        memset(l, 0, sizeof l);
        memset(r, 0, sizeof r);
    }
    assert_int_equal(bad, 0);
    assert_int_equal(subnormal, 0);
    assert_int_equal(nonzero_tail, 0); /* the tail ends in true zeros */
    free(mem);
}

static void test_reverb_params(void **state) {
    (void)state;
    hl_reverb_params_t p, q;
    int n = 0;
    for (const char *name; (name = hl_reverb_preset_name(n)) != NULL; n++) {
        assert_int_equal(hl_reverb_preset(name, &p), 0);
        assert_true(p.rt60_s >= HL_REVERB_MIN_RT60 && p.rt60_s <= HL_REVERB_MAX_RT60);
        assert_true(p.size >= HL_REVERB_MIN_SIZE && p.size <= HL_REVERB_MAX_SIZE);
    }
    assert_int_equal(n, 4);
    assert_null(hl_reverb_preset_name(-1));
    const char *want[] = {"room", "hall", "cave", "outdoor"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(hl_reverb_preset(want[i], &p), 0);
    assert_int_equal(hl_reverb_preset("HALL", &q), 0);
    assert_int_equal(hl_reverb_preset("hall", &p), 0);
    assert_memory_equal(&p, &q, sizeof p);
    assert_int_equal(hl_reverb_preset("hal", &p), -1);
    assert_int_equal(hl_reverb_preset("halls", &p), -1);
    assert_int_equal(hl_reverb_preset("", &p), -1);
    assert_int_equal(hl_reverb_preset(NULL, &p), -1);

    /* memory: refused when short, any alignment accepted, rates checked */
    size_t sz = hl_reverb_size(48000.0f);
    print_message("hl_reverb_size(48000) = %zu bytes, sizeof(hl_vfilter_t) = %zu\n", sz,
                  sizeof(hl_vfilter_t));
    assert_true(sz > 0 && sz < 1024 * 1024);
    assert_true(hl_reverb_size(192000.0f) > 3 * sz);
    assert_int_equal(hl_reverb_size(1000.0f), 0);
    char *mem = malloc(sz + 1);
    assert_null(hl_reverb_init(mem, sz - 1, 48000.0f));
    assert_null(hl_reverb_init(NULL, sz, 48000.0f));
    hl_reverb_t *rv = hl_reverb_init(mem + 1, sz, 48000.0f);
    assert_non_null(rv);
    /* clamped on set */
    p = (hl_reverb_params_t){100.0f, 2.0f, 1000.0f, 9.0f, 3.0f, -1.0f};
    hl_reverb_set_rt(rv, &p);
    hl_reverb_get(rv, &q);
    assert_true(q.rt60_s == HL_REVERB_MAX_RT60 && q.damping == 1.0f);
    assert_true(q.predelay_ms == HL_REVERB_MAX_PREDELAY_MS && q.size == HL_REVERB_MAX_SIZE);
    assert_true(q.wet == 1.0f && q.dry == 0.0f);
    float l[HL_MIX_BLOCK] = {1.0f}, r[HL_MIX_BLOCK] = {0};
    for (int b = 0; b < 100; b++) {
        hl_reverb_process_rt(rv, l, r, HL_MIX_BLOCK);
        for (int i = 0; i < HL_MIX_BLOCK; i++)
            assert_true(isfinite(l[i]) && isfinite(r[i]));
    }
    free(mem);
    /* every rate in range works */
    const float rates[] = {8000.0f, 44100.0f, 192000.0f};
    for (int i = 0; i < 3; i++) {
        void *m;
        hl_reverb_t *x = reverb_new(rates[i], &m);
        hl_reverb_params_t pp;
        hl_reverb_preset("room", &pp);
        pp.size = 0.25f;
        hl_reverb_set_rt(x, &pp);
        hl_reverb_process_rt(x, l, r, HL_MIX_BLOCK);
        free(m);
    }
}

/* The wet/dry glide: a change of wet moves the output without a step. */
static void test_reverb_glide(void **state) {
    (void)state;
    void *mem;
    hl_reverb_t *rv = reverb_new(RATE, &mem);
    hl_reverb_params_t p = {1.0f, 0.0f, 0.0f, 1.0f, 0.0f, 1.0f};
    hl_reverb_set_rt(rv, &p);
    float l[HL_MIX_BLOCK], r[HL_MIX_BLOCK];
    for (int b = 0; b < 20; b++) { /* glide to dry only */
        for (int i = 0; i < HL_MIX_BLOCK; i++)
            l[i] = r[i] = 0.5f;
        hl_reverb_process_rt(rv, l, r, HL_MIX_BLOCK);
    }
    assert_float_equal(l[HL_MIX_BLOCK - 1], 0.5f, 1e-6f);
    p.dry = 0.0f; /* DC in, dry 1 -> 0: a 50 ms ramp, 0.5 / 2400 a frame */
    hl_reverb_set_rt(rv, &p);
    float prev = l[HL_MIX_BLOCK - 1], max_step = 0.0f;
    for (int b = 0; b < 20; b++) {
        for (int i = 0; i < HL_MIX_BLOCK; i++)
            l[i] = r[i] = 0.5f;
        hl_reverb_process_rt(rv, l, r, HL_MIX_BLOCK);
        for (int i = 0; i < HL_MIX_BLOCK; i++) {
            max_step = fmaxf(max_step, fabsf(l[i] - prev));
            prev = l[i];
        }
    }
    assert_true(max_step < 1e-3f);
    assert_true(l[HL_MIX_BLOCK - 1] == 0.0f);
    free(mem);
}

/* A NaN or Inf sample into a filter or the compressor: that block may carry
 * it, the next ones are finite again (states reset, detector clamped). */
static void test_nonfinite_recovery(void **state) {
    (void)state;
    hl_eq_t e;
    hl_vfilter_t f;
    hl_comp_t c;
    hl_eq_init(&e, RATE, HL_BQ_PEAK, 1000.0f, 1.0f, 6.0f);
    hl_vfilter_init_rt(&f, RATE, 2000.0f, 100.0f);
    hl_comp_init(&c, RATE);
    float l[HL_MIX_BLOCK], r[HL_MIX_BLOCK], v[HL_MIX_BLOCK];
    for (int b = 0; b < 4; b++) {
        for (int i = 0; i < HL_MIX_BLOCK; i++)
            l[i] = r[i] = v[i] = 0.3f * (float)sin(0.05 * (i + b * HL_MIX_BLOCK));
        if (b == 0) {
            l[10] = NAN;
            r[20] = INFINITY;
            v[30] = NAN;
        }
        hl_eq_process_rt(&e, l, r, HL_MIX_BLOCK);
        hl_comp_process_rt(&c, l, r, HL_MIX_BLOCK);
        float *ch[1] = {v};
        hl_vfilter_process_rt(&f, ch, 1, HL_MIX_BLOCK);
        if (b < 2) continue; /* the filters' output ran into the compressor */
        for (int i = 0; i < HL_MIX_BLOCK; i++)
            assert_true(isfinite(l[i]) && isfinite(r[i]) && isfinite(v[i]));
    }
    assert_true(isfinite(hl_comp_reduction_db(&c)));
    assert_true(e.st[0].s1 == e.st[0].s1 && f.s[0][0][0] == f.s[0][0][0]);
}

static void test_fx_wrapper(void **state) {
    (void)state;
    float l[HL_MIX_BLOCK], r[HL_MIX_BLOCK], l0[HL_MIX_BLOCK], r0[HL_MIX_BLOCK];
    for (int i = 0; i < HL_MIX_BLOCK; i++) {
        l0[i] = (float)sin(0.3 * i);
        r0[i] = (float)cos(0.2 * i);
    }
    hl_fx_t chain[3];
    memset(chain, 0, sizeof chain);
    chain[0].kind = HL_FX_NONE;
    chain[1].kind = 99; /* an unknown kind passes through */
    chain[2].kind = HL_FX_EQ;
    hl_eq_init(&chain[2].u.eq, RATE, HL_BQ_LOWPASS, 1000.0f, 0.7071f, 0.0f);
    memcpy(l, l0, sizeof l);
    memcpy(r, r0, sizeof r);
    hl_fx_chain_process_rt(chain, 2, l, r, HL_MIX_BLOCK);
    assert_memory_equal(l, l0, sizeof l); /* nothing active: untouched */
    assert_memory_equal(r, r0, sizeof r);

    /* with the EQ: the same as calling the EQ directly */
    hl_eq_t ref;
    hl_eq_init(&ref, RATE, HL_BQ_LOWPASS, 1000.0f, 0.7071f, 0.0f);
    float l2[HL_MIX_BLOCK], r2[HL_MIX_BLOCK];
    memcpy(l2, l0, sizeof l2);
    memcpy(r2, r0, sizeof r2);
    hl_eq_process_rt(&ref, l2, r2, HL_MIX_BLOCK);
    hl_fx_chain_process_rt(chain, 3, l, r, HL_MIX_BLOCK);
    assert_memory_equal(l, l2, sizeof l);
    assert_memory_equal(r, r2, sizeof r);

    void *mem;
    hl_fx_t rfx = {.kind = HL_FX_REVERB};
    rfx.u.rev = reverb_new(RATE, &mem);
    hl_fx_process_rt(&rfx, l, r, HL_MIX_BLOCK);
    for (int i = 0; i < HL_MIX_BLOCK; i++)
        assert_true(isfinite(l[i]));
    free(mem);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bq_lp_hp),          cmocka_unit_test(test_bq_shelf_peak),
        cmocka_unit_test(test_bq_denormal_flush), cmocka_unit_test(test_eq_glide),
        cmocka_unit_test(test_vfilter_cutoff),    cmocka_unit_test(test_vfilter_ramp),
        cmocka_unit_test(test_vfilter_off_exact), cmocka_unit_test(test_vfilter_pair_exact),
        cmocka_unit_test(test_occlusion_map),     cmocka_unit_test(test_comp_static),
        cmocka_unit_test(test_reverb_rt60),       cmocka_unit_test(test_reverb_stable),
        cmocka_unit_test(test_reverb_safety),     cmocka_unit_test(test_reverb_params),
        cmocka_unit_test(test_reverb_glide),      cmocka_unit_test(test_nonfinite_recovery),
        cmocka_unit_test(test_fx_wrapper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
