/*
 * test_vfstep.c - the per-voice filter's stepped glide and the mixer's
 * shared design table (hl_fx.h: hl_vfilter_glide_rt, hl_vf_design_get):
 * a stepped glide leaves no discontinuity in the output (the largest
 * sample-to-sample step stays near the tone's own, where a jump of the
 * cutoff is many times it), it gives the same bits with and without the
 * table, and voices gliding alike compute each design once between them.
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stepped_no_click),
        cmocka_unit_test(test_cache_same_bits),
        cmocka_unit_test(test_cache_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
