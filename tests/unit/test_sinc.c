/*
 * test_sinc.c - the band-limited interpolator (hl_sinc.h) on its own and in
 * the mixer:
 *   - every table row has a DC gain of 1, and the level follows the step;
 *   - the AVX2 and AVX-512 kernels agree with the portable ones (when the CPU
 *     has them);
 *   - quality through the real mixer, against the targets (SINAD of a
 *     -6 dBFS sine against a fitted sine, in dB): >= 90 at 1 kHz, and at least
 *     the best-in-class figures at 5, 10 and 15 kHz; a 20 kHz sine at pitch
 *     1.5 leaves its 18 kHz alias <= -85 dB; mono and stereo sources alike;
 *   - a loop stays seamless (the kernel reads across the loop point);
 *   - the governor's step (HL_MIX_SET_INTERP 2 -> 1 -> 0) switches cleanly.
 * Linear and cubic are measured alongside for the README's table.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_mixer.h"
#include "hl_simd.h"
#include "hl_sinc.h"
#include "hl_stream.h"
#include "mix_helpers.h"
#include "sinad.h"

static void *g_mem;
static const hl_sinc_t *g_sinc;

static int setup(void **state) {
    (void)state;
    size_t size = hl_sinc_size();
    g_mem = aligned_alloc(64, (size + 63) / 64 * 64);
    g_sinc = g_mem ? hl_sinc_init(g_mem, size) : NULL;
    return g_sinc ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    free(g_mem);
    return 0;
}

static void test_tables(void **state) {
    (void)state;
    float k[2 * HL_SINC_MAX_HALF];
    for (unsigned l = 0; l < HL_SINC_LEVELS; l++) {
        const hl_sinc_level_t *lv = &g_sinc->lv[l];
        assert_true(lv->taps % 8 == 0 && lv->taps <= 2 * HL_SINC_MAX_HALF);
        for (uint32_t f = 0; f < 0xFFFFFF00u; f += 0x01234567u) {
            hl_sinc_kernel(lv, f, k);
            double sum = 0;
            for (uint32_t j = 0; j < lv->taps; j++)
                sum += k[j];
            assert_true(fabs(sum - 1.0) < 1e-5);
        }
        /* at f = 0 the kernel peaks on the frame itself */
        hl_sinc_kernel(lv, 0, k);
        for (uint32_t j = 0; j < lv->taps; j++)
            assert_true(k[j] <= k[lv->half - 1]);
    }
    assert_ptr_equal(hl_sinc_level(g_sinc, 1ull << 32), &g_sinc->lv[0]);
    assert_ptr_equal(hl_sinc_level(g_sinc, (uint64_t)(0.5 * 4294967296.0)), &g_sinc->lv[0]);
    const hl_sinc_level_t *l15 = hl_sinc_level(g_sinc, (uint64_t)(1.5 * 4294967296.0));
    assert_true(l15->max_step >= (uint64_t)(1.5 * 4294967296.0));
    assert_true((l15 - 1)->max_step < (uint64_t)(1.5 * 4294967296.0));
    assert_ptr_equal(hl_sinc_level(g_sinc, 9ull << 32), &g_sinc->lv[HL_SINC_LEVELS - 1]);
}

/* A SIMD table against the portable one: every kind, steps over the
 * levels, whole blocks and ragged tails. */
static void check_kernels(const hl_sinc_kernels_t *a) {
    const hl_sinc_kernels_t *g = &hl_sinc_kernels_generic;
    enum { N = 256, PAD = 4096 };
    float *src = malloc(sizeof(float) * 2 * (N * 5 + PAD));
    assert_non_null(src);
    uint32_t seed = 12345;
    for (int i = 0; i < 2 * (N * 5 + PAD); i++) {
        seed = seed * 1664525u + 1013904223u;
        src[i] = (float)((double)seed / 4294967296.0 - 0.5);
    }
    const double steps[] = {0.37, 0.9, 1.0001, 1.1, 1.5, 2.7, 4.0, 6.5};
    for (unsigned si = 0; si < sizeof steps / sizeof steps[0]; si++) {
        uint64_t step = (uint64_t)(steps[si] * 4294967296.0);
        const hl_sinc_level_t *lv = hl_sinc_level(g_sinc, step);
        /* ramped gains, and flat ones (the kernels' steady-state loops) */
        const hl_gain_ramp_t grs[2] = {{0.5f, 0.001f, -0.000001f, 0.25f, 0.002f, 0.0f, 0.0f},
                                       {0.5f, 0.0f, 0.0f, -0.75f, 0.0f, 0.0f, 0.0f}};
        for (int kind = 0; kind < 12; kind++) {
            const hl_gain_ramp_t gr = grs[kind / 6];
            float al[N] = {0}, ar[N] = {0}, bl[N] = {0}, br[N] = {0};
            const float *s = src + 2 * HL_SINC_MAX_HALF * 2;
            uint64_t pos = 0x9E3779B9u;
            uint32_t n = kind % 6 < 3 ? N : 37; /* 4 x 8 outputs and a tail of 5 */
            hl_sinc_mix_fn fg = kind % 3 == 0 ? g->mono : kind % 3 == 1 ? g->stereo : g->downmix;
            hl_sinc_mix_fn fa = kind % 3 == 0 ? a->mono : kind % 3 == 1 ? a->stereo : a->downmix;
            fg(al, ar, s, n, pos, step, &gr, lv);
            fa(bl, br, s, n, pos, step, &gr, lv);
            for (int t = 0; t < N; t++) {
                assert_true(fabsf(al[t] - bl[t]) <= 2e-6f + 1e-5f * fabsf(al[t]));
                assert_true(fabsf(ar[t] - br[t]) <= 2e-6f + 1e-5f * fabsf(ar[t]));
            }
        }
    }
    free(src);
}

static void test_avx2_matches_generic(void **state) {
    (void)state;
    const hl_sinc_kernels_t *a = hl_sinc_kernels_avx2();
    if (!a) {
        print_message("# no AVX2 here: the portable kernels only\n");
        skip();
    }
    check_kernels(a);
}

/* Runs where the CPU has AVX-512 F + VL (scripts/avx512-emu.sh runs this
 * test on an emulated one). */
static void test_avx512_matches_generic(void **state) {
    (void)state;
    const hl_sinc_kernels_t *a = hl_sinc_kernels_avx512();
    if (!a) {
        print_message("# no AVX-512 here\n");
        skip();
    }
    /* the default takes the AVX2 mono kernel unless HELIOD_ISA=avx512 (sinc.c) */
    const hl_sinc_kernels_t *best = hl_sinc_kernels_best();
    assert_ptr_equal(best->mono, hl_simd_strict() ? a->mono : hl_sinc_kernels_avx2()->mono);
    assert_ptr_equal(best->downmix, a->downmix);
    check_kernels(a);
    if (best != a) check_kernels(best);
}

/* ---- quality through the mixer ---------------------------------------------------- */

static double sinad_db(const float *x, size_t stride, size_t n, double freq, double fs,
                       double *amp) {
    return test_sinad_db(x, stride, n, freq, fs, amp);
}

enum { Q_SKIP = 4800, Q_LEN = 38400 }; /* skip 0.1 s, measure 0.8 s */

/* Renders a -6 dBFS sine of freq Hz at pitch through a fresh mixer with the
 * given interpolator flags into out[2 x (Q_SKIP + Q_LEN)]. */
static void render_tone(double freq, float pitch, uint32_t flags, uint32_t channels, float *out) {
    hl_pcm_t *pcm = test_pcm_sine(3 * TEST_RATE, channels, freq / TEST_RATE, 0.3, 0.5f);
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_mixer_set_sinc(m, g_sinc);
    hl_voice_params_t p = test_params(pcm);
    p.pitch = pitch;
    p.flags = flags;
    uint64_t v = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
    test_render(m, out, Q_SKIP + Q_LEN, 256, &now);
    test_mixer_free(m);
    test_pcm_free(pcm);
}

static double tone_sinad(double freq, float pitch, uint32_t flags, uint32_t channels) {
    float *out = malloc(sizeof(float) * 2 * (Q_SKIP + Q_LEN));
    assert_non_null(out);
    render_tone(freq, pitch, flags, channels, out);
    double amp, db = sinad_db(out + 2 * Q_SKIP, 2, Q_LEN, freq * pitch, TEST_RATE, &amp);
    double amp_r, db_r = sinad_db(out + 2 * Q_SKIP + 1, 2, Q_LEN, freq * pitch, TEST_RATE, &amp_r);
    free(out);
    return db < db_r ? db : db_r;
}

typedef struct {
    double freq;
    float pitch;
    double target; /* sinc must reach this (dB) */
} qcase_t;

static void test_quality_targets(void **state) {
    (void)state;
    const qcase_t cases[] = {
        {1000, 0.9f, 90.0},  {1000, 1.1f, 90.0},  {5000, 0.9f, 74.3},  {5000, 1.1f, 74.3},
        {10000, 0.9f, 71.7}, {10000, 1.1f, 68.7}, {15000, 1.5f, 54.2},
    };
    print_message("# input, pitch | linear | cubic | sinc (mono) | sinc (stereo) | target\n");
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const qcase_t *c = &cases[i];
        double lin = tone_sinad(c->freq, c->pitch, 0, 1);
        double cub = tone_sinad(c->freq, c->pitch, HL_MIX_CUBIC, 1);
        double sm = tone_sinad(c->freq, c->pitch, HL_MIX_SINC, 1);
        double ss = tone_sinad(c->freq, c->pitch, HL_MIX_SINC, 2);
        print_message("# %5.0f Hz, %.1f | %5.1f | %5.1f | %5.1f | %5.1f | >= %.1f\n", c->freq,
                      c->pitch, lin, cub, sm, ss, c->target);
        assert_true(sm >= c->target);
        assert_true(ss >= c->target);
        assert_true(sm > cub);
    }
}

/* Power (relative to the input's amplitude, dB) of out's component at freq. */
static double tone_level_db(const float *out, double freq) {
    double amp;
    (void)sinad_db(out + 2 * Q_SKIP, 2, Q_LEN, freq, TEST_RATE, &amp);
    return 20 * log10(amp / 0.5 + 1e-30);
}

static void test_alias_rejected(void **state) {
    (void)state;
    float *out = malloc(sizeof(float) * 2 * (Q_SKIP + Q_LEN));
    assert_non_null(out);
    const uint32_t flags[] = {0, HL_MIX_CUBIC, HL_MIX_SINC};
    const char *names[] = {"linear", "cubic", "sinc"};
    double sinc_alias = 0;
    for (int i = 0; i < 3; i++) {
        /* 20 kHz at pitch 1.5 is 30 kHz: above 24 kHz it folds to 18 kHz */
        render_tone(20000, 1.5f, flags[i], 1, out);
        double alias = tone_level_db(out, 18000);
        /* the same check on a tone that stays in band: 10 kHz -> 15 kHz */
        float *in_band = malloc(sizeof(float) * 2 * (Q_SKIP + Q_LEN));
        assert_non_null(in_band);
        render_tone(10000, 1.5f, flags[i], 1, in_band);
        double pass = tone_level_db(in_band, 15000);
        free(in_band);
        print_message("# %s: 20 kHz at pitch 1.5 -> alias at 18 kHz %.1f dB; 10 kHz -> 15 kHz "
                      "passes at %.2f dB (centre pan: -3.01)\n",
                      names[i], alias, pass);
        if (i == 2) sinc_alias = alias - pass; /* relative to what an in-band tone gives */
    }
    assert_true(sinc_alias <= -85.0);
    free(out);
}

/* Passband: the gain of a tone at 18 kHz relative to 1 kHz at pitch 1 (the
 * copy path: exact) and just off it (the kernel itself). */
static void test_passband(void **state) {
    (void)state;
    float *out = malloc(sizeof(float) * 2 * (Q_SKIP + Q_LEN));
    assert_non_null(out);
    const float pitches[] = {1.0f, 0.999f, 0.9f};
    for (int i = 0; i < 3; i++) {
        render_tone(1000, pitches[i], HL_MIX_SINC, 1, out);
        double lo = tone_level_db(out, 1000 * (double)pitches[i]);
        render_tone(18000, pitches[i], HL_MIX_SINC, 1, out);
        double hi = tone_level_db(out, 18000 * (double)pitches[i]);
        print_message("# pitch %.3f: 18 kHz vs 1 kHz %+.3f dB\n", pitches[i], hi - lo);
        assert_true(fabs(hi - lo) <= 0.1);
    }
    free(out);
}

/* A loop of a whole number of cycles at pitch 0.9: the wrap must not show
 * in the output (the kernel reads across the loop point). */
static void test_loop_seamless(void **state) {
    (void)state;
    /* 100 cycles of 1 kHz in 4800 frames: a loop of exactly the period */
    hl_pcm_t *pcm = test_pcm_sine(4800, 1, 1000.0 / TEST_RATE, 0.0, 0.5f);
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_mixer_set_sinc(m, g_sinc);
    hl_voice_params_t p = test_params(pcm);
    p.pitch = 0.9f;
    p.flags = HL_MIX_SINC | HL_MIX_LOOP;
    uint64_t v = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
    float *out = malloc(sizeof(float) * 2 * (Q_SKIP + Q_LEN));
    assert_non_null(out);
    test_render(m, out, Q_SKIP + Q_LEN, 256, &now);
    double amp, db = sinad_db(out + 2 * Q_SKIP, 2, Q_LEN, 1000.0 * (double)0.9f, TEST_RATE, &amp);
    print_message("# a 4800-frame loop at pitch 0.9 over 0.8 s (7 wraps): SINAD %.1f dB\n", db);
    assert_true(db >= 90.0);
    free(out);
    test_mixer_free(m);
    test_pcm_free(pcm);
}

/* The governor's quality step: sinc -> cubic -> linear -> sinc at block
 * boundaries, with no step in the output beyond the signal's own. */
static void test_interp_steps(void **state) {
    (void)state;
    hl_pcm_t *pcm = test_pcm_sine(3 * TEST_RATE, 1, 3000.0 / TEST_RATE, 0.0, 0.5f);
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_mixer_set_sinc(m, g_sinc);
    hl_voice_params_t p = test_params(pcm);
    p.pitch = 0.9f;
    p.flags = HL_MIX_SINC;
    uint64_t v = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
    enum { SEG = 2048 };
    float *out = calloc(2 * SEG * 4, sizeof(float));
    assert_non_null(out);
    const uint32_t modes[] = {2, 1, 0, 2};
    for (int i = 0; i < 4; i++) {
        hl_voice_set_t s = {.mask = HL_MIX_SET_INTERP, .cubic = modes[i]};
        assert_int_equal(hl_mixer_set(m, v, &s, 0), 0);
        hl_voice_view_t vv;
        test_render(m, out + 2 * SEG * i, SEG, 256, &now);
        assert_int_equal(hl_mixer_voice(m, v, &vv), 0);
        assert_int_equal(!!(vv.params.flags & HL_MIX_SINC), modes[i] == 2);
        assert_int_equal(!!(vv.params.flags & HL_MIX_CUBIC), modes[i] == 1);
    }
    /* 2.7 kHz at 0.5: the largest step between samples is 2 pi f / fs x 0.5 x pan */
    double max_step = 0;
    for (int i = 1; i < SEG * 4; i++) {
        double d = fabs(out[2 * i] - out[2 * i - 2]);
        if (d > max_step) max_step = d;
    }
    double bound = 2 * M_PI * 2700.0 / TEST_RATE * 0.5 * 0.7072;
    print_message("# sinc/cubic/linear/sinc: largest step %.4f (the tone's own %.4f)\n", max_step,
                  bound);
    assert_true(max_step <= bound * 1.01);
    free(out);
    test_mixer_free(m);
    test_pcm_free(pcm);
}

/* A streamed voice on sinc renders the same samples as the preloaded one,
 * bit for bit, its first and last frames too (the preloaded voice's edge
 * path runs the same kernels): mono and stereo, pitches below and above 1,
 * fed in small pushes so runs cross the kept history many times. */
static void test_stream_matches_pcm(void **state) {
    (void)state;
    enum { FR = 48000, OUTN = 24000, CAP = 1u << 12 };
    const float pitches[] = {0.9f, 1.37f, 3.3f};
    for (uint32_t ch = 1; ch <= 2; ch++)
        for (int pi = 0; pi < 3; pi++) {
            hl_pcm_t *pcm = test_pcm_sine(FR, ch, 5000.0 / TEST_RATE, 0.1, 0.5f);
            float *a = calloc(2 * OUTN, sizeof(float)), *b = calloc(2 * OUTN, sizeof(float));
            assert_non_null(a);
            assert_non_null(b);
            /* preloaded */
            hl_mixer_t *m = test_mixer_new(4, 0);
            hl_mixer_set_sinc(m, g_sinc);
            hl_voice_params_t p = test_params(pcm);
            p.pitch = pitches[pi];
            p.flags = HL_MIX_SINC;
            uint64_t v = 0, now = 0;
            assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
            test_render(m, a, OUTN, 256, &now);
            test_mixer_free(m);
            /* streamed: a small ring topped up before each block */
            size_t bytes = hl_stream_size(CAP, ch);
            void *mem = aligned_alloc(64, (sizeof(hl_stream_t) + bytes + 63) / 64 * 64);
            assert_non_null(mem);
            hl_stream_t *st = mem;
            assert_int_equal(hl_stream_init(st, (char *)mem + sizeof(hl_stream_t), CAP, ch), 0);
            uint32_t pushed = 0;
            m = test_mixer_new(4, 0);
            hl_mixer_set_sinc(m, g_sinc);
            p = test_params(NULL);
            p.stream = st;
            p.pitch = pitches[pi];
            p.flags = HL_MIX_SINC;
            now = 0;
            for (uint32_t done = 0; done < OUTN; done += 256) {
                uint32_t room = hl_stream_writable(st), want = FR - pushed;
                uint32_t k = room < want ? room : want;
                pushed += hl_stream_write(st, pcm->data + (size_t)pushed * ch, k);
                if (pushed == FR) hl_stream_finish(st);
                if (done == 0) assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
                uint32_t blk = OUTN - done < 256 ? OUTN - done : 256;
                test_render(m, b + 2 * done, blk, 256, &now);
            }
            double maxd = 0;
            for (int i = 0; i < 2 * OUTN; i++) {
                double d = fabs((double)a[i] - b[i]);
                if (d > maxd) maxd = d;
            }
            print_message("# stream vs preloaded, %u ch, pitch %.2f: largest difference %.2g\n", ch,
                          pitches[pi], maxd);
            assert_memory_equal(a, b, 2 * OUTN * sizeof(float));
            assert_int_equal(hl_stream_underruns(st), 0);
            test_mixer_free(m);
            free(mem);
            free(a);
            free(b);
            test_pcm_free(pcm);
        }
}

/* Without tables a sinc voice plays cubic (bit-exact). */
static void test_no_tables_is_cubic(void **state) {
    (void)state;
    enum { N = 4096 };
    hl_pcm_t *pcm = test_pcm_sine(48000, 1, 3000.0 / TEST_RATE, 0.0, 0.5f);
    float *a = calloc(2 * N, sizeof(float)), *b = calloc(2 * N, sizeof(float));
    assert_non_null(a);
    assert_non_null(b);
    for (int k = 0; k < 2; k++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        hl_voice_params_t p = test_params(pcm);
        p.pitch = 0.9f;
        p.flags = k ? HL_MIX_SINC : HL_MIX_CUBIC;
        uint64_t v = 0, st = 0, now = 0;
        assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
        test_render(m, k ? b : a, N, 256, &now);
        test_mixer_free(m);
    }
    assert_memory_equal(a, b, 2 * N * sizeof(float));
    free(a);
    free(b);
    test_pcm_free(pcm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_avx2_matches_generic),
        cmocka_unit_test(test_avx512_matches_generic),
        cmocka_unit_test(test_quality_targets),
        cmocka_unit_test(test_alias_rejected),
        cmocka_unit_test(test_passband),
        cmocka_unit_test(test_loop_seamless),
        cmocka_unit_test(test_interp_steps),
        cmocka_unit_test(test_no_tables_is_cubic),
        cmocka_unit_test(test_stream_matches_pcm),
    };
    return cmocka_run_group_tests_name("sinc", tests, setup, teardown);
}
