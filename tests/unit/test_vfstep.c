/*
 * test_vfstep.c - the per-voice filter's stepped glide and the mixer's
 * shared design table (hl_fx.h: hl_vfilter_glide_rt, hl_vf_design_get):
 * a stepped glide leaves no discontinuity in the output (the largest
 * sample-to-sample step stays near the tone's own, where a jump of the
 * cutoff is many times it), it gives the same bits with and without the
 * table, and voices gliding alike compute each design once between them.
 * The fast form of a stepped low-pass glide (cell by cell in the block form,
 * hl_vfilter_process_rt) against the per-sample reference, chunked anyhow.
 * A quick glide takes the steps its size needs. A mono follower of a
 * shared glide gives the same bits from a separate input as in place, and
 * in the plan's AVX-512 build as in its AVX2 one; so do an own glide's
 * cells.
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
#include "hl_simd.h"
#include "mix_helpers.h"

#define RATE    48000.0f
#define PREROLL 4864 /* frames at the first cutoff: the tone's onset is no step */
#define AFTER   9600
#define TOTAL   (PREROLL + AFTER)

/* A sine at `hz` through a low-pass at lp0, in HL_MIX_BLOCK calls; at
 * PREROLL hl_vfilter_glide_rt(lp1, ramp, stepped). Returns the largest
 * |y[n] - y[n-1]| after the change over the sine's own; the output in y. */
static float step_ratio(hl_vf_cache_t *c, double hz, float lp0, float lp1, uint32_t ramp,
                        int stepped, float *y) {
    hl_vfilter_t f;
    hl_vfilter_init_rt(&f, RATE, lp0, 0.0f);
    f.cache = c;
    float ref = 0.0f, step = 0.0f;
    for (uint32_t i = 0; i < TOTAL; i++)
        y[i] = (float)(0.5 * sin(2.0 * TEST_PI * hz * i / RATE));
    for (uint32_t i = 1; i < TOTAL; i++)
        ref = fmaxf(ref, fabsf(y[i] - y[i - 1]));
    for (uint32_t i = 0; i < TOTAL; i += HL_MIX_BLOCK) {
        if (i == PREROLL) hl_vfilter_glide_rt(&f, lp1, 0.0f, ramp, stepped);
        float *ch[1] = {y + i};
        hl_vfilter_process_rt(&f, ch, 1, TOTAL - i < HL_MIX_BLOCK ? TOTAL - i : HL_MIX_BLOCK);
    }
    for (uint32_t i = PREROLL + 1; i < TOTAL; i++)
        step = fmaxf(step, fabsf(y[i] - y[i - 1]));
    assert_true(f.lp.steps == 0);
    assert_float_equal(f.lp.f, lp1, lp1 * 1e-6f);
    return step / ref;
}

/* A 3 ms glide up from 500 Hz to 12 kHz, the hardest case (the tone's phase
 * lag at 500 Hz must go within 3 ms): stepped, the largest step stays within
 * 1.6x of the tone's own at every tone, where jumping there at once is a
 * click of 4x to 10x; down, it stays within 2% of the tone's own. */
static void test_stepped_no_click(void **state) {
    (void)state;
    static hl_vf_cache_t cache;
    float *y = malloc(TOTAL * sizeof(float));
    const double tones[] = {100.0, 440.0, 1000.0, 3000.0};
    for (int t = 0; t < 4; t++) {
        const float up = step_ratio(&cache, tones[t], 500.0f, 12000.0f, 144, 1, y);
        const float down = step_ratio(&cache, tones[t], 12000.0f, 500.0f, 144, 1, y);
        print_message("stepped glide, %4.0f Hz tone: up %.3f, down %.3f of its own step\n",
                      tones[t], up, down);
        assert_true(up <= 1.6f);
        assert_true(down <= 1.02f);
    }
    /* the measure sees a click: the same move at once */
    const float jump = step_ratio(&cache, 100.0, 500.0f, 12000.0f, 0, 1, y);
    print_message("jump 500 Hz -> 12 kHz, 100 Hz tone: %.3f\n", jump);
    assert_true(jump > 4.0f);
    free(y);
}

/* The table changes nothing but the cost: the same glides and settled
 * blocks, the stepped form and the interpolated one, give the same bits
 * with the table as without it. */
static void test_cache_same_bits(void **state) {
    (void)state;
    static hl_vf_cache_t cache;
    float *a = malloc(TOTAL * sizeof(float)), *b = malloc(TOTAL * sizeof(float));
    for (int stepped = 0; stepped < 2; stepped++) {
        step_ratio(&cache, 440.0, 800.0f, 6000.0f, 480, stepped, a);
        step_ratio(NULL, 440.0, 800.0f, 6000.0f, 480, stepped, b);
        assert_memory_equal(a, b, TOTAL * sizeof(float));
    }
    /* the mono form (a panned mono voice): settled, then a stepped glide */
    hl_vfilter_t f[2];
    for (int k = 0; k < 2; k++) {
        hl_vfilter_init_rt(&f[k], RATE, 3000.0f, 120.0f);
        f[k].cache = k ? &cache : NULL;
    }
    float in[HL_MIX_BLOCK], out[2][HL_MIX_BLOCK];
    for (int blk = 0; blk < 8; blk++) {
        for (uint32_t i = 0; i < HL_MIX_BLOCK; i++)
            in[i] = (float)sin(0.05 * (blk * HL_MIX_BLOCK + i));
        for (int k = 0; k < 2; k++) {
            if (blk == 3) hl_vfilter_glide_rt(&f[k], 700.0f, 60.0f, 300, 1);
            if (hl_vfilter_mono_ok(&f[k], 0.6f, 0.8f))
                hl_vfilter_process_mono_rt(&f[k], in, out[k], HL_MIX_BLOCK, 0.6f, 0.8f);
            else
                fail_msg("the mono form should hold for a constant pan");
        }
        assert_memory_equal(out[0], out[1], sizeof out[0]);
    }
    free(a);
    free(b);
}

/* 200 voices gliding alike compute each cutoff's design once: the table's
 * misses are the glide's distinct cutoffs (both stages), not 200 times them. */
static void test_cache_shared(void **state) {
    (void)state;
    enum { V = 200 };
    static hl_vf_cache_t cache;
    static hl_vfilter_t f[V];
    float x[HL_MIX_BLOCK];
    for (uint32_t i = 0; i < HL_MIX_BLOCK; i++)
        x[i] = (float)sin(0.01 * i);
    for (int v = 0; v < V; v++) {
        hl_vfilter_init_rt(&f[v], RATE, 2000.0f, 100.0f);
        f[v].cache = &cache;
    }
    for (int blk = 0; blk < 4; blk++) {
        for (int v = 0; v < V; v++) {
            if (blk == 1) hl_vfilter_glide_rt(&f[v], 5000.0f, 200.0f, 144, 1);
            float buf[HL_MIX_BLOCK];
            memcpy(buf, x, sizeof buf);
            float *ch[1] = {buf};
            hl_vfilter_process_rt(&f[v], ch, 1, HL_MIX_BLOCK);
        }
    }
    /* 2 stages x (the start, 9 steps) at most, whatever the voice count */
    print_message("200 voices: %u designs computed, %u shared\n", cache.misses, cache.hits);
    assert_true(cache.misses <= 2 * 10);
    assert_true(cache.hits >= (uint32_t)V * 10);
}

/* A stepped low-pass glide (a game parameter's: high-pass off) in the fast
 * form the best SIMD level takes (cells in the block form, the design its
 * step looked up), over one and two channels, in render chunks that cut
 * the cells anywhere, against the per-sample reference form
 * (hl_vfilter_simd(0)) in whole blocks: the same filter within float
 * rounding at every frame, up and down and through a glide that a new one
 * cuts short; it ends on its target and leaves no step in the output. */
static void test_glide_cells_reference(void **state) {
    (void)state;
    enum { N = 6000 };
    static hl_vf_cache_t cache;
    static const uint32_t chunk[] = {256, 100, 77, 31, 5, 3, 16, 250};
    const int best = hl_vfilter_simd(-1);
    float *x = malloc(2 * N * sizeof(float)), *y[2][2];
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 2; c++)
            y[k][c] = malloc(N * sizeof(float));
    for (uint32_t i = 0; i < N; i++) {
        x[i] = (float)(0.5 * sin(2.0 * TEST_PI * 300.0 * i / RATE));
        x[N + i] = (float)(0.4 * sin(2.0 * TEST_PI * 2500.0 * i / RATE + 1.0));
    }
    for (uint32_t nch = 1; nch <= 2; nch++) {
        for (int k = 0; k < 2; k++) { /* 0: reference, 1: the best form */
            assert_int_equal(hl_vfilter_simd(k ? best : 0), k ? best : 0);
            hl_vfilter_t f;
            hl_vfilter_init_rt(&f, RATE, 500.0f, 0.0f);
            f.cache = k ? &cache : NULL;
            for (uint32_t c = 0; c < 2; c++)
                memcpy(y[k][c], x + c * N, N * sizeof(float));
            uint32_t i = 0, j = 0;
            while (i < N) {
                if (i == 1024) hl_vfilter_glide_rt(&f, 12000.0f, 0.0f, 144, 1);
                if (i == 2048) hl_vfilter_glide_rt(&f, 700.0f, 0.0f, 480, 1);
                if (i == 2304) hl_vfilter_glide_rt(&f, 3000.0f, 0.0f, 144, 1); /* cuts it */
                uint32_t n = k ? chunk[j++ % 8] : HL_MIX_BLOCK;
                const uint32_t next = i < 1024 ? 1024 : i < 2048 ? 2048 : i < 2304 ? 2304 : N;
                if (n > next - i) n = next - i;
                float *ch[2] = {y[k][0] + i, y[k][1] + i};
                hl_vfilter_process_rt(&f, ch, nch, n);
                i += n;
            }
            assert_true(f.lp.steps == 0);
            assert_float_equal(f.lp.f, 3000.0f, 3000.0f * 1e-6f);
        }
        float d = 0.0f, peak = 0.0f, step = 0.0f;
        for (uint32_t c = 0; c < nch; c++)
            for (uint32_t i = 0; i < N; i++) {
                d = fmaxf(d, fabsf(y[1][c][i] - y[0][c][i]));
                peak = fmaxf(peak, fabsf(y[0][c][i]));
                if (c == 0 && i > 1024) step = fmaxf(step, fabsf(y[1][0][i] - y[1][0][i - 1]));
            }
        const float own = (float)(0.5 * 2.0 * TEST_PI * 300.0 / RATE); /* the tone's largest step */
        print_message("glide cells, %u ch: max |fast - reference| = %.3g (peak %.3f), "
                      "largest step %.3f of the tone's own\n",
                      nch, (double)d, (double)peak, (double)(step / own));
        assert_true(peak > 0.3f);
        assert_true(d < 2e-5f * peak); /* rounding of the block form: -94 dB */
        assert_true(step < 1.65f * own);
    }
    hl_vfilter_simd(-1);
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 2; c++)
            free(y[k][c]);
    free(x);
}

/* Steps a stepped glide of the low-pass from lp0 to lp1 over `ramp`
 * frames takes (cells until it lands, checked on its target). */
static uint32_t glide_cells(float lp0, float lp1, uint32_t ramp) {
    hl_vfilter_t f;
    hl_vfilter_init_rt(&f, RATE, lp0, 0.0f);
    hl_vfilter_glide_rt(&f, lp1, 0.0f, ramp, 1);
    const uint32_t steps = f.lp.steps;
    float x[HL_FX_GRID] = {0};
    float *ch[1] = {x};
    float prev = lp0, big = 1.0f;
    for (uint32_t k = 0; k < steps; k++) {
        hl_vfilter_process_rt(&f, ch, 1, HL_FX_GRID);
        big = fmaxf(big, f.lp.f > prev ? f.lp.f / prev : prev / f.lp.f);
        prev = f.lp.f;
    }
    assert_int_equal(f.lp.steps, 0);
    assert_true(f.lp.f == lp1); /* landed exactly */
    assert_true(big <= HL_VF_QUICK_STEP * 1.0001f || steps == (ramp + HL_FX_GRID - 1) / HL_FX_GRID);
    return steps;
}

/* A quick stepped glide (a parameter's jump: 3 ms) takes the steps its size
 * needs at a quarter octave each: a small move lands in one or two cells,
 * on its target, without a click; a large one keeps its nine steps (and
 * test_stepped_no_click's bounds); a longer glide (a seeking parameter's
 * 10 ms tick) keeps a step per cell however small its move. */
static void test_quick_glide(void **state) {
    (void)state;
    assert_int_equal(glide_cells(2000.0f, 2300.0f, 144), 1);  /* 0.20 octave */
    assert_int_equal(glide_cells(2000.0f, 1500.0f, 144), 2);  /* 0.42 octave down */
    assert_int_equal(glide_cells(2000.0f, 3900.0f, 144), 4);  /* 0.96 octave */
    assert_int_equal(glide_cells(500.0f, 12000.0f, 144), 9);  /* 4.6 octaves: every cell */
    assert_int_equal(glide_cells(2000.0f, 2300.0f, 480), 30); /* 10 ms: its pace */
    /* no click: each step within a large glide's bound (1.6x, see
     * test_stepped_no_click); a tone at 440 Hz sees 1.10x */
    static hl_vf_cache_t cache;
    float *y = malloc(TOTAL * sizeof(float));
    static const float moves[][2] = {{2000.0f, 3000.0f},
                                     {3000.0f, 2000.0f},
                                     {500.0f, 800.0f},
                                     {800.0f, 500.0f},
                                     {2000.0f, 2300.0f}};
    const double tones[] = {100.0, 440.0, 1000.0};
    float worst = 0.0f;
    for (int k = 0; k < 5; k++)
        for (int t = 0; t < 3; t++)
            worst = fmaxf(worst, step_ratio(&cache, tones[t], moves[k][0], moves[k][1], 144, 1, y));
    print_message("quick glides: largest step %.3f of the tone's own\n", worst);
    assert_true(worst <= 1.15f);
    free(y);
}

/* A shared glide the plan does not cover (a high-pass on; without AVX2,
 * every one) moves its control on with no channel (hl_vf_share_block_rt):
 * the settled cells' block form must not write any; at HELIOD_ISA=generic
 * it wrote a block of samples over one float on the stack. */
static void test_share_no_channel(void **state) {
    (void)state;
    static hl_vf_cache_t cache;
    static hl_vf_share_t sh;
    for (int hp = 0; hp < 2; hp++) {
        hl_vf_share_init_rt(&sh, RATE, 2000.0f, hp ? 80.0f : 0.0f, &cache);
        hl_vf_share_set_rt(&sh, 800.0f, hp ? 120.0f : 0.0f, 480);
        int blocks = 0;
        while (hl_vf_share_block_rt(&sh, HL_MIX_BLOCK) && blocks < 64)
            blocks++;
        assert_true(blocks > 0 && blocks < 64);
        assert_float_equal(sh.ctl.lp.f, 800.0f, 800.0f * 1e-6f);
    }
}

/* A panned mono follower of a shared glide runs the plan straight from its
 * input into its output (hl_vfilter_process_mono_rt with in != out, no
 * copy first): the same bits as the same follower run in place, through a
 * quick glide that ends inside a block (the rest settled) and one over two
 * blocks, the pair's states alike after each. Its output (SM_BLOCKS
 * blocks) into y; returns the blocks the plan ran. */
#define SM_BLOCKS 7
static uint32_t share_mono_run(float *y) {
    static hl_vf_cache_t cache;
    static hl_vf_share_t sh;
    static const float lp[SM_BLOCKS] = {2000.0f, 2000.0f, 700.0f, 700.0f,
                                        5000.0f, 5000.0f, 5000.0f};
    static const uint32_t ramp[SM_BLOCKS] = {0, 0, 144, 0, 480, 0, 0};
    memset(&cache, 0, sizeof cache);
    hl_vf_change_t at;
    hl_vfilter_t f[2];
    hl_vf_share_init_rt(&sh, RATE, lp[0], 0.0f, &cache);
    for (int k = 0; k < 2; k++) {
        hl_vfilter_init_rt(&f[k], RATE, lp[0], 0.0f);
        f[k].cache = &cache;
    }
    float in[HL_MIX_BLOCK], own[HL_MIX_BLOCK];
    uint32_t shared = 0;
    for (uint32_t blk = 0; blk < SM_BLOCKS; blk++) {
        float *out = y + blk * HL_MIX_BLOCK;
        if (ramp[blk]) {
            hl_vf_share_set_rt(&sh, lp[blk], 0.0f, ramp[blk]);
            hl_vf_share_mark_rt(&sh, &at);
            for (int k = 0; k < 2; k++)
                assert_true(hl_vfilter_follow_at_rt(&f[k], &sh, &at, lp[blk], 0.0f, ramp[blk]));
        }
        if (hl_vf_share_block_rt(&sh, HL_MIX_BLOCK)) hl_vf_share_hold_rt(&sh);
        for (uint32_t i = 0; i < HL_MIX_BLOCK; i++)
            in[i] = (float)sin(0.07 * (blk * HL_MIX_BLOCK + i));
        memcpy(own, in, sizeof in);
        shared += sh.n != 0 && f[0].sh == &sh && f[0].sh_pos == sh.pos0;
        hl_vfilter_process_mono_rt(&f[0], in, out, HL_MIX_BLOCK, 0.6f, 0.8f);
        hl_vfilter_process_mono_rt(&f[1], own, own, HL_MIX_BLOCK, 0.6f, 0.8f);
        assert_memory_equal(out, own, sizeof own);
        assert_memory_equal(f[0].s, f[1].s, sizeof f[0].s);
    }
    assert_float_equal(f[0].lp.f, 5000.0f, 5000.0f * 1e-6f);
    return shared;
}

/* ... and, at HELIOD_ISA=avx512, the plan's AVX-512 build gives the bits
 * of its AVX2 build (the same operations, more registers). */
static void test_share_mono_in_out(void **state) {
    (void)state;
    static float y[2][SM_BLOCKS * HL_MIX_BLOCK];
    const uint32_t shared = share_mono_run(y[0]);
    if (hl_vfilter_simd(-1) >= 2) assert_true(shared >= 3); /* the plan ran (AVX2) */
    if (hl_simd_level() < HL_SIMD_AVX512 || !hl_simd_strict()) return;
    assert_int_equal(hl_simd_set_cap(HL_SIMD_AVX2), HL_SIMD_AVX2);
    assert_true(share_mono_run(y[1]) >= 3);
    assert_int_equal(hl_simd_set_cap(HL_SIMD_AVX512), HL_SIMD_AVX512);
    assert_memory_equal(y[0], y[1], sizeof y[0]);
}

/* An own stepped glide's pair (no share) through blocks; its output into y
 * (2 x TOTAL, channel after channel). */
static void own_glide_pair(float *y) {
    static hl_vf_cache_t cache;
    memset(&cache, 0, sizeof cache);
    hl_vfilter_t f;
    hl_vfilter_init_rt(&f, RATE, 900.0f, 0.0f);
    f.cache = &cache;
    for (uint32_t i = 0; i < TOTAL; i++) {
        y[i] = (float)(0.5 * sin(2.0 * TEST_PI * 440.0 * i / RATE));
        y[TOTAL + i] = (float)(0.3 * sin(2.0 * TEST_PI * 3100.0 * i / RATE + 0.5));
    }
    for (uint32_t i = 0; i < TOTAL; i += HL_MIX_BLOCK) {
        if (i == PREROLL) hl_vfilter_glide_rt(&f, 7000.0f, 0.0f, 144, 1);
        if (i == PREROLL + 4 * HL_MIX_BLOCK) hl_vfilter_glide_rt(&f, 400.0f, 0.0f, 480, 1);
        float *ch[2] = {y + i, y + TOTAL + i};
        hl_vfilter_process_rt(&f, ch, 2, TOTAL - i < HL_MIX_BLOCK ? TOTAL - i : HL_MIX_BLOCK);
    }
    assert_float_equal(f.lp.f, 400.0f, 400.0f * 1e-6f);
}

/* At HELIOD_ISA=avx512, an own stepped glide's cells (mono and a pair) in
 * their AVX-512 build give the bits of their AVX2 build. */
static void test_glide_cells_isa(void **state) {
    (void)state;
    if (hl_simd_level() < HL_SIMD_AVX512 || !hl_simd_strict()) return;
    static hl_vf_cache_t cache;
    float *y[2][2];
    for (int k = 0; k < 2; k++) {
        if (k) assert_int_equal(hl_simd_set_cap(HL_SIMD_AVX2), HL_SIMD_AVX2);
        y[k][0] = malloc(TOTAL * sizeof(float));
        y[k][1] = malloc(2 * TOTAL * sizeof(float));
        memset(&cache, 0, sizeof cache);
        step_ratio(&cache, 440.0, 500.0f, 12000.0f, 144, 1, y[k][0]);
        own_glide_pair(y[k][1]);
    }
    assert_int_equal(hl_simd_set_cap(HL_SIMD_AVX512), HL_SIMD_AVX512);
    assert_memory_equal(y[0][0], y[1][0], TOTAL * sizeof(float));
    assert_memory_equal(y[0][1], y[1][1], 2 * TOTAL * sizeof(float));
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 2; c++)
            free(y[k][c]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stepped_no_click),  cmocka_unit_test(test_cache_same_bits),
        cmocka_unit_test(test_cache_shared),      cmocka_unit_test(test_glide_cells_reference),
        cmocka_unit_test(test_quick_glide),       cmocka_unit_test(test_share_no_channel),
        cmocka_unit_test(test_share_mono_in_out), cmocka_unit_test(test_glide_cells_isa),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
