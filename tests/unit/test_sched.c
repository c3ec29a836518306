/*
 * test_sched.c - unit tests of scheduled commands and bundles in the mixer
 * (mixer_sched.c): a voice scheduled at frame F starts on sample F whatever
 * the process call size, two voices for one frame start on the same sample,
 * a scheduled gain ramp starts at its frame, a stop sent before the voice's
 * scheduled start waits for it, late commands are applied at once and
 * counted, a full schedule answers EBUSY and frees up as commands apply, and
 * a bundle is never split by the drain cap.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_limits.h"
#include "hl_proto.h"
#include "mix_helpers.h"

#define LEVEL 0.5f

static float *new_out(uint32_t frames) {
    return calloc(2 * (size_t)frames, sizeof(float));
}

/* First frame whose left sample is not zero, or -1. */
static long first_nonzero(const float *out, uint32_t frames) {
    for (uint32_t i = 0; i < frames; i++)
        if (out[2 * i] != 0.0f) return (long)i;
    return -1;
}

static uint64_t started_frame(const test_events_t *log, uint64_t voice) {
    for (size_t i = 0; i < log->n; i++)
        if (log->ev[i].type == HL_MIX_EV_STARTED && log->ev[i].voice == voice)
            return log->ev[i].frame;
    return UINT64_MAX;
}

static void test_start_exact(void **state) {
    (void)state;
    static const uint32_t chunks[] = {256, 100, 37, 512, 1};
    hl_pcm_t *dc = test_pcm_dc(4096, 1, LEVEL);
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        hl_mixer_t *m = test_mixer_new(8, 0);
        float *out = new_out(3000);
        uint64_t now = 0, va = 0, vb = 0;
        hl_voice_params_t p = test_params(dc);
        p.pan = -1.0f;
        hl_mixer_at(m, 1037);
        assert_int_equal(hl_mixer_play(m, &p, now, &va, NULL), 0);
        p.pan = 1.0f;
        assert_int_equal(hl_mixer_play(m, &p, now, &vb, NULL), 0);
        hl_mixer_at(m, 0);
        test_render(m, out, 3000, chunks[k], &now);
        assert_int_equal(first_nonzero(out, 3000), 1037);
        assert_true(out[2 * 1037] == LEVEL);
        /* the other voice on the right channel starts on the same sample */
        long rfirst = -1;
        for (uint32_t i = 0; i < 3000 && rfirst < 0; i++)
            if (out[2 * i + 1] != 0.0f) rfirst = (long)i;
        assert_int_equal(rfirst, 1037);
        test_events_t log = {0};
        test_poll(m, &log);
        assert_int_equal(started_frame(&log, va), 1037);
        assert_int_equal(started_frame(&log, vb), 1037);
        hl_mixer_stats_t st;
        hl_mixer_stats(m, &st);
        assert_int_equal(st.sched_late, 0);
        assert_int_equal(st.sched_pending, 0);
        free(out);
        test_mixer_free(m);
    }
    test_pcm_free(dc);
}

/* Renders a DC voice hard left for 2048 frames with a gain ramp to 0 over
 * 100 frames set at frame `at`: scheduled (sched) or sent unscheduled just
 * before the call that starts at `at` (at must be a multiple of 256). */
static void ramp_run(float *out, uint64_t at, int sched) {
    hl_pcm_t *dc = test_pcm_dc(4096, 1, LEVEL);
    hl_mixer_t *m = test_mixer_new(8, 0);
    uint64_t now = 0, v = 0;
    hl_voice_params_t p = test_params(dc);
    p.pan = -1.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 256, 256, &now);
    hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN, .gain = 0.0f, .ramp_frames = 100};
    if (sched) {
        hl_mixer_at(m, at);
        assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
        hl_mixer_at(m, 0);
        test_render(m, out + 2 * 256, 2048 - 256, 256, &now);
    } else {
        test_render(m, out + 2 * 256, (uint32_t)at - 256, 256, &now);
        assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
        test_render(m, out + 2 * at, 2048 - (uint32_t)at, 256, &now);
    }
    test_mixer_free(m);
    test_pcm_free(dc);
}

static void test_ramp_at_frame(void **state) {
    (void)state;
    float *a = new_out(2048), *b = new_out(2048);
    ramp_run(a, 700, 1);
    ramp_run(b, 768, 0);
    for (uint32_t f = 0; f < 700; f++)
        assert_true(a[2 * f] == LEVEL);
    /* from frame 700 the scheduled ramp is the block-start ramp, sample for sample */
    /* (within float rounding: the scheduled ramp crosses a block edge at
     * 768 where the other does not, and a ramp resumed at a block edge is
     * recomputed from its current value) */
    for (uint32_t k = 0; k < 300; k++)
        assert_float_equal(a[2 * (700 + k)], b[2 * (768 + k)], 1e-6f);
    assert_true(a[2 * 701] < LEVEL);
    assert_true(a[2 * 800] == 0.0f);
    free(a);
    free(b);
}

static void test_stop_waits_for_start(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(4096, 1, LEVEL);
    hl_mixer_t *m = test_mixer_new(8, 0);
    float *out = new_out(2048);
    uint64_t now = 0, v = 0;
    hl_voice_params_t p = test_params(dc);
    p.pan = -1.0f;
    hl_mixer_at(m, 500);
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    hl_mixer_at(m, 0);
    assert_int_equal(hl_mixer_stop(m, v, 64, HL_MIX_END_STOPPED, now), 0); /* "now" */
    /* a second voice at 500, stopped (scheduled) at 600 */
    uint64_t w = 0;
    hl_mixer_at(m, 500);
    assert_int_equal(hl_mixer_play(m, &p, now, &w, NULL), 0);
    hl_mixer_at(m, 600);
    assert_int_equal(hl_mixer_stop(m, w, 64, HL_MIX_END_STOPPED, now), 0);
    hl_mixer_at(m, 0);
    test_render(m, out, 2048, 256, &now);
    /* the first was stopped before it began: held for its start and ended
     * there without a sound; the second sounds from 500 and fades from 600 */
    assert_int_equal(first_nonzero(out, 2048), 500);
    assert_true(out[2 * 599] == LEVEL);
    assert_true(out[2 * 620] < LEVEL && out[2 * 620] > 0.0f);
    assert_true(out[2 * 664] == 0.0f);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(started_frame(&log, v), UINT64_MAX); /* it never began: ENDED only */
    assert_int_equal(test_end_reason(&log, v), HL_MIX_END_STOPPED);
    assert_int_equal(started_frame(&log, w), 500);
    assert_int_equal(test_end_reason(&log, w), HL_MIX_END_STOPPED);
    free(out);
    test_mixer_free(m);
    test_pcm_free(dc);
}

static void test_late(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(4096, 1, LEVEL);
    hl_mixer_t *m = test_mixer_new(8, 0);
    float *out = new_out(2048);
    uint64_t now = 0, v = 0;
    test_render(m, out, 1024, 256, &now);
    hl_voice_params_t p = test_params(dc);
    p.pan = -1.0f;
    hl_mixer_at(m, 1000);
    assert_int_equal(hl_mixer_late_frames(m), 24);
    assert_int_equal(hl_mixer_effect_frame(m), 1024);
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    hl_mixer_at(m, 0);
    test_render(m, out, 512, 256, &now);
    assert_int_equal(first_nonzero(out, 512), 0); /* at once: frame 1024 */
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    assert_int_equal(st.sched_late, 1);
    assert_int_equal(st.sched_late_max_frames, 24);
    assert_int_equal(st.sched_pending, 0);
    free(out);
    test_mixer_free(m);
    test_pcm_free(dc);
}

static void test_full_schedule(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, LEVEL);
    hl_mixer_t *m = test_mixer_new(8, 0);
    float *out = new_out(4096);
    uint64_t now = 0, v = 0;
    hl_voice_params_t p = test_params(dc);
    p.loop_count = 0;
    p.flags |= HL_MIX_LOOP;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN, .gain = 0.5f};
    for (uint32_t i = 0; i < HL_SCHED_MAX; i++) {
        hl_mixer_at(m, 1000 + i);
        assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    }
    assert_int_equal(hl_mixer_sched_room(m), 0);
    hl_mixer_at(m, 9000);
    assert_int_equal(hl_mixer_set(m, v, &s, now), HELIOD_EBUSY);
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), HELIOD_EBUSY);
    hl_mixer_at(m, 0);
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0); /* unscheduled: still taken */
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    assert_int_equal(st.sched_pending, HL_SCHED_MAX);
    /* 4096 + 2 commands over a 2048 drain cap: three calls; then all due */
    test_render(m, out, 4096, 1024, &now);
    test_render(m, out, 4096, 1024, &now);
    assert_int_equal(hl_mixer_sched_room(m), HL_SCHED_MAX);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.sched_late, 0);
    free(out);
    test_mixer_free(m);
    test_pcm_free(dc);
}

static void test_bundle_not_split(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(4096, 1, LEVEL);
    hl_mixer_t *m = test_mixer_new(32, 4); /* drain cap 4 per call */
    float *out = new_out(1024);
    uint64_t now = 0, single[2], v[8];
    hl_voice_params_t p = test_params(dc);
    for (int i = 0; i < 2; i++)
        assert_int_equal(hl_mixer_play(m, &p, now, &single[i], NULL), 0);
    assert_int_equal(hl_mixer_bundle_begin(m), 0);
    assert_int_equal(hl_mixer_bundle_begin(m), HELIOD_EINVAL);
    for (int i = 0; i < 8; i++)
        assert_int_equal(hl_mixer_play(m, &p, now, &v[i], NULL), 0);
    assert_int_equal(hl_mixer_bundle_end(m), 0);
    assert_int_equal(hl_mixer_bundle_end(m), HELIOD_EINVAL);
    test_render(m, out, 256, 256, &now);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(started_frame(&log, single[0]), 0);
    assert_int_equal(started_frame(&log, single[1]), 0);
    for (int i = 0; i < 8; i++) /* yielded before the bundle: not started */
        assert_int_equal(started_frame(&log, v[i]), UINT64_MAX);
    test_render(m, out, 256, 256, &now);
    test_poll(m, &log);
    for (int i = 0; i < 8; i++) /* the whole bundle in one call, over the cap */
        assert_int_equal(started_frame(&log, v[i]), 256);
    /* a bundle over HL_BUNDLE_MAX is refused at the push, the rest kept */
    hl_mixer_t *m2 = test_mixer_new(HL_BUNDLE_MAX + 8, 0);
    assert_int_equal(hl_mixer_bundle_begin(m2), 0);
    for (int i = 0; i < HL_BUNDLE_MAX; i++)
        assert_int_equal(hl_mixer_play(m2, &p, now, NULL, NULL), 0);
    assert_int_equal(hl_mixer_play(m2, &p, now, NULL, NULL), HELIOD_EBUSY);
    assert_int_equal(hl_mixer_bundle_end(m2), 0);
    test_render(m2, out, 256, 256, &now);
    test_events_t log2 = {0};
    test_poll(m2, &log2);
    assert_int_equal(test_count(&log2, HL_MIX_EV_STARTED, 0), HL_BUNDLE_MAX);
    test_mixer_free(m2);
    free(out);
    test_mixer_free(m);
    test_pcm_free(dc);
}

static void test_clock(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    float *out = new_out(1024);
    uint64_t now = 5000, f = 1, ns = 1;
    hl_mixer_clock(m, &f, &ns);
    assert_int_equal(f, 0);
    assert_int_equal(ns, 0);
    test_render(m, out, 512, 256, &now);
    hl_mixer_clock(m, &f, &ns);
    assert_int_equal(f, 256); /* the last call began at frame 256 */
    assert_int_equal(ns, 5000 + 256ull * 1000000000u / TEST_RATE);
    free(out);
    test_mixer_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_exact),
        cmocka_unit_test(test_ramp_at_frame),
        cmocka_unit_test(test_stop_waits_for_start),
        cmocka_unit_test(test_late),
        cmocka_unit_test(test_full_schedule),
        cmocka_unit_test(test_bundle_not_split),
        cmocka_unit_test(test_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
