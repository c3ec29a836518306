/*
 * test_cmd_drain.c - unit tests of the command drain's budget (mixer_sched.c):
 * the audio thread drains the ring until it is empty, bounded by time (a
 * share of the call, on the injected clock) rather than by a fixed count.
 *
 * - A burst larger than the old fixed cap (2048) is applied in one call
 *   when the ring holds it, and the result is sample-identical to the last
 *   SET alone (many SETs to one voice in a block are one SET).
 * - The time budget: on a clock that jumps past the deadline at every look,
 *   the drain stops after HL_DRAIN_CHECK commands per call, counts the cap
 *   hit, and the rest follow in order in the next calls with the same output.
 * - Order per voice in one block: PLAY, SET, STOP are applied in that order.
 * - A true overload (pushes outrun the budget) still answers EBUSY, and
 *   every accepted command is applied.
 * Nothing depends on the machine's speed: the clock is the test's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_limits.h"
#include "mix_helpers.h"

#define LEVEL      0.5f
#define PERIOD     256
#define BURST      5000        /* more than the old fixed cap of 2048 per block */
#define STEP_NS    10000000ull /* the fake clock's step: past any budget of PERIOD frames */
#define SMALL_RING 256

/* The fake clock: each look advances it by STEP_NS, so every look after the
 * drain's start is past its deadline (budget < STEP_NS). */
static uint64_t fake_ns;
static uint64_t fake_clock(void) {
    fake_ns += STEP_NS;
    return fake_ns;
}

/* A render's virtual clock: it stands still within a call. */
static uint64_t still_clock(void) {
    return 1;
}

typedef struct {
    hl_mixer_t *m;
    void *mem;
} mix_t;

static mix_t mixer_new(uint32_t cmd_capacity, uint64_t (*clock_ns)(void)) {
    hl_mixer_config_t cfg = {
        .rate = TEST_RATE, .voices = 8, .cmd_capacity = cmd_capacity, .clock_ns = clock_ns};
    mix_t x = {NULL, malloc(hl_mixer_size(&cfg))};
    assert_non_null(x.mem);
    x.m = hl_mixer_init(x.mem, hl_mixer_size(&cfg), &cfg);
    assert_non_null(x.m);
    return x;
}

static uint64_t applied(const hl_mixer_t *m, uint64_t *cap_hits) {
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    if (cap_hits) *cap_hits = st.cmd_cap_hits;
    return st.cmds_applied;
}

static hl_voice_set_t gain_set(float g) {
    hl_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HL_MIX_SET_GAIN;
    s.gain = g;
    s.ramp_frames = 64;
    return s;
}

/* The reference: PLAY, then one SET to the last gain, rendered in one go. */
static void render_reference(const hl_pcm_t *pcm, float last_gain, float *out, uint32_t frames) {
    mix_t r = mixer_new(0, NULL);
    hl_voice_params_t p = test_params(pcm);
    uint64_t v = 0, now = 0;
    assert_int_equal(hl_mixer_play(r.m, &p, 0, &v, NULL), 0);
    hl_voice_set_t s = gain_set(last_gain);
    assert_int_equal(hl_mixer_set(r.m, v, &s, 0), 0);
    test_render(r.m, out, frames, PERIOD, &now);
    free(r.mem);
}

/* PLAY and BURST SETs to one voice: the gain alternates, the last one is
 * 0.25. Returns the voice. */
static uint64_t push_burst(hl_mixer_t *m, const hl_pcm_t *pcm) {
    hl_voice_params_t p = test_params(pcm);
    uint64_t v = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    for (int i = 0; i < BURST; i++) {
        hl_voice_set_t s = gain_set(i == BURST - 1 ? 0.25f : (i & 1) ? 0.9f : 0.1f);
        assert_int_equal(hl_mixer_set(m, v, &s, 0), 0);
    }
    return v;
}

static void test_burst_one_block(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, LEVEL);
    float *out = calloc(2 * 4 * PERIOD, sizeof(float)),
          *ref = calloc(2 * 4 * PERIOD, sizeof(float));
    mix_t x = mixer_new(0, NULL); /* no clock: the count cap (the ring's capacity) alone */
    push_burst(x.m, dc);
    uint64_t now = 0, hits = 0;
    test_render(x.m, out, PERIOD, PERIOD, &now);
    assert_int_equal(applied(x.m, &hits), BURST + 1); /* all in the first call */
    assert_int_equal(hits, 0);
    test_render(x.m, out + 2 * PERIOD, 3 * PERIOD, PERIOD, &now);
    render_reference(dc, 0.25f, ref, 4 * PERIOD);
    assert_memory_equal(out, ref, 2 * 4 * PERIOD * sizeof(float));

    /* the daemon's budget (HL_DRAIN_BUDGET_PCT) on a clock that stands still
     * (a render's virtual clock): the same */
    free(x.mem);
    x = mixer_new(0, still_clock);
    push_burst(x.m, dc);
    test_render(x.m, out, PERIOD, PERIOD, &now);
    assert_int_equal(applied(x.m, NULL), BURST + 1);
    free(x.mem);
    free(out);
    free(ref);
    test_pcm_free(dc);
}

static void test_time_budget(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, LEVEL);
    const uint32_t calls = (BURST + 1 + HL_DRAIN_CHECK - 1) / HL_DRAIN_CHECK;
    const uint32_t frames = (calls + 4) * PERIOD;
    float *out = calloc(2 * (size_t)frames, sizeof(float)),
          *ref = calloc(2 * (size_t)frames, sizeof(float));
    mix_t x = mixer_new(0, fake_clock);
    push_burst(x.m, dc);
    uint64_t now = 0, hits = 0;
    for (uint32_t k = 1; k <= calls; k++) {
        test_render(x.m, out + 2 * (size_t)(k - 1) * PERIOD, PERIOD, PERIOD, &now);
        uint64_t want = (uint64_t)k * HL_DRAIN_CHECK;
        if (want > BURST + 1) want = BURST + 1;
        assert_int_equal(applied(x.m, &hits), want);
        assert_int_equal(hits, k < calls ? k : calls - 1); /* the last one empties the ring */
    }
    test_render(x.m, out + 2 * (size_t)calls * PERIOD, 4 * PERIOD, PERIOD, &now);
    /* the gain settles on the last SET whatever the calls it was spread over:
     * once its ramp is over, the output is the reference's */
    render_reference(dc, 0.25f, ref, frames);
    size_t tail = (size_t)calls * PERIOD + PERIOD;
    assert_memory_equal(out + 2 * tail, ref + 2 * tail, 2 * (frames - tail) * sizeof(float));
    free(x.mem);
    free(out);
    free(ref);
    test_pcm_free(dc);
}

/* PLAY, SET, STOP of one voice in one block, in that order. */
static void render_pss(hl_mixer_t *m, const hl_pcm_t *pcm, float play_gain, int with_set,
                       float *out) {
    hl_voice_params_t p = test_params(pcm);
    p.gain = play_gain;
    uint64_t v = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    if (with_set) {
        hl_voice_set_t s = gain_set(0.5f);
        s.ramp_frames = 1;
        assert_int_equal(hl_mixer_set(m, v, &s, 0), 0);
    }
    assert_int_equal(hl_mixer_stop(m, v, 128, HL_MIX_END_STOPPED, 0), 0);
    test_render(m, out, PERIOD, PERIOD, &now);
    assert_int_equal(applied(m, NULL), with_set ? 3 : 2);
    test_events_t log = {0};
    test_poll(m, &log);
    /* the PLAY came first (the voice started), the STOP was not refused as
     * one of an unknown voice and ended it */
    assert_int_equal(test_count(&log, HL_MIX_EV_STARTED, v), 1);
    assert_int_equal(test_end_reason(&log, v), HL_MIX_END_STOPPED);
}

static void test_order_per_voice(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, LEVEL);
    float *out = calloc(2 * PERIOD, sizeof(float)), *ref = calloc(2 * PERIOD, sizeof(float));
    mix_t x = mixer_new(0, NULL), r = mixer_new(0, NULL);
    render_pss(x.m, dc, 1.0f, 1, out);
    render_pss(r.m, dc, 0.5f, 0, ref); /* as if played at the SET's gain */
    /* the SET reached the voice (after its PLAY, before its STOP's fade was
     * over): from its 1-frame ramp on, the output is the reference's */
    assert_true(out[0] != 0.0f);
    for (uint32_t i = 1; i < PERIOD; i++) {
        assert_float_equal(out[2 * i], ref[2 * i], 1e-6);
        assert_float_equal(out[2 * i + 1], ref[2 * i + 1], 1e-6);
    }
    assert_true(ref[2 * 64] > 0.0f); /* mid-fade: the comparison saw sound */
    for (uint32_t i = 128; i < PERIOD; i++)
        assert_true(out[2 * i] == 0.0f && out[2 * i + 1] == 0.0f);
    free(x.mem);
    free(r.mem);
    free(out);
    free(ref);
    test_pcm_free(dc);
}

static void test_overload_busy(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, LEVEL);
    float *out = calloc(2 * PERIOD, sizeof(float));
    mix_t x = mixer_new(SMALL_RING, fake_clock); /* HL_DRAIN_CHECK per call */
    hl_voice_params_t p = test_params(dc);
    uint64_t v = 0, now = 0;
    assert_int_equal(hl_mixer_play(x.m, &p, 0, &v, NULL), 0);
    uint64_t accepted = 1, busy = 0;
    /* twice what the budget lets through per call */
    for (int call = 0; call < 16; call++) {
        for (int i = 0; i < 2 * HL_DRAIN_CHECK; i++) {
            hl_voice_set_t s = gain_set((i & 1) ? 0.9f : 0.1f);
            int rc = hl_mixer_set(x.m, v, &s, 0);
            if (rc == HELIOD_EBUSY) {
                busy++;
            } else {
                assert_int_equal(rc, 0);
                accepted++;
            }
        }
        test_render(x.m, out, PERIOD, PERIOD, &now);
    }
    assert_true(busy > 0); /* the overload is answered */
    /* and nothing accepted is lost: the ring drains at HL_DRAIN_CHECK a call */
    for (int call = 0; call < SMALL_RING / HL_DRAIN_CHECK + 1; call++)
        test_render(x.m, out, PERIOD, PERIOD, &now);
    assert_int_equal(applied(x.m, NULL), accepted);
    assert_int_equal(accepted + busy, 1 + 16 * 2 * HL_DRAIN_CHECK);
    free(x.mem);
    free(out);
    test_pcm_free(dc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_one_block),
        cmocka_unit_test(test_time_budget),
        cmocka_unit_test(test_order_per_voice),
        cmocka_unit_test(test_overload_busy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
