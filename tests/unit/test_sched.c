/*
 * test_sched.c - unit tests of scheduled commands and bundles in the mixer
 * (mixer_sched.c): a voice scheduled at frame F starts on sample F whatever
 * the process call size, two voices for one frame start on the same sample,
 * a scheduled gain ramp starts at its frame, a stop sent before the voice's
 * scheduled start waits for it, late commands are applied at once and
 * counted, a full schedule answers EBUSY and frees up as commands apply, and
 * a bundle is never split by the drain cap. A storm of distinct frames in
 * one call costs a bounded number of cuts (HL_SCHED_SPLITS exact, then the
 * HL_SCHED_GRID grid, counted late); a per-request limit caps scheduled
 * pushes and the hook reports each one; cancelling an owner tag drops its
 * voices' scheduled commands (a cancelled play ends without a sound) and
 * keeps everyone else's. The control side answers what the listener and
 * the bus gains are on a given frame: a change scheduled ahead counts from
 * its frame on, and the past stays answerable after the clock passes it.
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
#include "mix_helpers.h"
#include "mixer_internal.h"

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
    /* one frame each: past HL_SCHED_SPLITS cuts a call, the rest wait for
     * the grid (late, but never by a whole grid step) */
    assert_true(st.sched_late > 0);
    assert_true(st.sched_late_max_frames < HL_SCHED_GRID);
    free(out);
    test_mixer_free(m);
    test_pcm_free(dc);
}

/* 256 plays scheduled at the 256 distinct frames of one 256-frame call
 * start in at most 1 + HL_SCHED_SPLITS + 256 / HL_SCHED_GRID distinct
 * frames (the cuts of the block), each at its frame or less than a grid
 * step after it, the first HL_SCHED_SPLITS + 1 exactly; the late ones are
 * counted. */
static void test_split_bound(void **state) {
    (void)state;
    enum { N = 256, BASE = 1024 };
    hl_pcm_t *dc = test_pcm_dc(4096, 1, LEVEL);
    hl_mixer_t *m = test_mixer_new(N, 0);
    float *out = new_out(BASE + N);
    uint64_t now = 0, v[N];
    test_render(m, out, BASE, 256, &now);
    hl_voice_params_t p = test_params(dc);
    for (int i = 0; i < N; i++) {
        hl_mixer_at(m, BASE + (uint64_t)i);
        assert_int_equal(hl_mixer_play(m, &p, now, &v[i], NULL), 0);
    }
    hl_mixer_at(m, 0);
    test_render(m, out, N, N, &now); /* one call */
    /* the ones due after the call's last cut apply at its end: they start
     * with the next call */
    test_render(m, out, N, N, &now);
    test_events_t log = {0};
    test_poll(m, &log);
    int cuts = 0, late = 0;
    uint64_t prev = UINT64_MAX, late_max = 0;
    for (int i = 0; i < N; i++) {
        uint64_t f = started_frame(&log, v[i]);
        uint64_t want = BASE + (uint64_t)i;
        assert_true(f != UINT64_MAX && f >= want && f - want < HL_SCHED_GRID);
        if (i <= HL_SCHED_SPLITS) assert_int_equal(f, want); /* the exact ones */
        if (f != want) late++;
        if (f - want > late_max) late_max = f - want;
        if (f != prev) cuts++; /* starts are in frame order: a new frame is a new cut */
        prev = f;
    }
    assert_true(cuts <= 1 + HL_SCHED_SPLITS + N / HL_SCHED_GRID);
    assert_true(late >= N - (1 + HL_SCHED_SPLITS + N / HL_SCHED_GRID));
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    assert_int_equal(st.sched_late, late);
    assert_int_equal(st.sched_late_max_frames, late_max);
    assert_int_equal(st.sched_pending, 0);
    /* the next call starts with its own allowance of exact cuts */
    hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN, .gain = 0.5f};
    for (int i = 0; i < 4; i++) {
        hl_mixer_at(m, BASE + 2 * N + 5 + (uint64_t)i);
        assert_int_equal(hl_mixer_set(m, v[i], &s, now), 0);
    }
    hl_mixer_at(m, 0);
    test_render(m, out, N, N, &now);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.sched_late, late);
    free(out);
    test_mixer_free(m);
    test_pcm_free(dc);
}

typedef struct {
    int n;
    uint64_t at[8];
    uint32_t charge[8], tag[8];
} hook_log_t;

static void on_sched(void *user, uint64_t at, uint32_t charge, uint32_t tag) {
    hook_log_t *h = user;
    if (h->n < 8) {
        h->at[h->n] = at;
        h->charge[h->n] = charge;
        h->tag[h->n] = tag;
    }
    h->n++;
}

/* A limit caps the scheduled pushes (room, EBUSY), unscheduled ones pass;
 * the hook reports each scheduled push with its charge and owner tag, a
 * command held for a voice's start included. */
static void test_limit_and_hook(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(4096, 1, LEVEL);
    hl_mixer_t *m = test_mixer_new(8, 0);
    uint64_t now = 0, v = 0, w = 0;
    hook_log_t h = {0};
    hl_mixer_sched_hook(m, on_sched, &h);
    hl_voice_params_t p = test_params(dc);
    assert_int_equal(hl_mixer_sched_limit(m, 2), UINT32_MAX);
    assert_int_equal(hl_mixer_charge(m, 7), 0);
    assert_int_equal(hl_mixer_owner(m, 3), 0);
    hl_mixer_at(m, 5000);
    assert_int_equal(hl_mixer_sched_room(m), 2);
    assert_true(hl_mixer_cmd_room(m) <= 2);
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    assert_int_equal(hl_mixer_owner(m, 0), 3);
    hl_mixer_at(m, 0);
    assert_int_equal(hl_mixer_play(m, &p, now, &w, NULL), 0); /* unscheduled */
    assert_int_equal(hl_mixer_charge(m, 0), 7);
    /* unscheduled, but held for v's start: scheduled, charged to v's charge */
    hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN, .gain = 0.5f};
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    assert_int_equal(hl_mixer_sched_room(m), 0);
    assert_int_equal(hl_mixer_set(m, v, &s, now), HELIOD_EBUSY);
    hl_mixer_at(m, 6000);
    assert_int_equal(hl_mixer_set(m, w, &s, now), HELIOD_EBUSY);
    hl_mixer_at(m, 0);
    assert_int_equal(hl_mixer_set(m, w, &s, now), 0);
    assert_int_equal(hl_mixer_sched_limit(m, UINT32_MAX), 0);
    assert_int_equal(hl_mixer_sched_pending(m), 2);
    assert_int_equal(h.n, 2);
    assert_int_equal(h.at[0], 5000);
    assert_int_equal(h.charge[0], 7);
    assert_int_equal(h.tag[0], 3);
    assert_int_equal(h.at[1], 5000); /* held to v's start */
    assert_int_equal(h.charge[1], 7);
    assert_int_equal(h.tag[1], 3);
    test_mixer_free(m);
    test_pcm_free(dc);
}

/* Cancelling tag 5: its voice's scheduled play, set and stop go at once
 * (the voice ends without a sound: ENDED with the reason, no STARTED), and
 * the schedule's room comes back; an untagged (detached) voice's play and a
 * bus ramp scheduled meanwhile stay and apply at their frames. A stop sent
 * after the cancel is no longer held for the cancelled start. */
static void test_cancel(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(8192, 1, LEVEL);
    hl_mixer_t *m = test_mixer_new(8, 0);
    float *out = new_out(4096);
    uint64_t now = 0, a = 0, b = 0;
    hl_voice_params_t p = test_params(dc);
    p.pan = -1.0f;
    hl_mixer_owner(m, 5);
    hl_mixer_at(m, 100000);
    assert_int_equal(hl_mixer_play(m, &p, now, &a, NULL), 0);
    hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN, .gain = 0.25f};
    hl_mixer_at(m, 100500);
    assert_int_equal(hl_mixer_set(m, a, &s, now), 0);
    hl_mixer_at(m, 200000);
    assert_int_equal(hl_mixer_stop(m, a, 64, HL_MIX_END_STOPPED, now), 0);
    hl_mixer_owner(m, 0);
    p.pan = 1.0f;
    hl_mixer_at(m, 1000);
    assert_int_equal(hl_mixer_play(m, &p, now, &b, NULL), 0);
    hl_mixer_at(m, 1500);
    assert_int_equal(hl_mixer_set_bus_gain(m, HL_BUS_SFX, 0.5f, 0, now), 0);
    hl_mixer_at(m, 0);
    assert_int_equal(hl_mixer_sched_pending(m), 5);
    test_render(m, out, 512, 256, &now); /* all of it in the heap now */
    assert_int_equal(hl_mixer_sched_cancel(m, 0, HL_MIX_END_OWNER, now), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_sched_cancel(m, 5, HL_MIX_END_OWNER, now), 0);
    test_render(m, out, 4096, 256, &now); /* frames 512..4607 */
    assert_int_equal(hl_mixer_sched_pending(m), 0);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(started_frame(&log, a), UINT64_MAX);
    assert_int_equal(test_end_reason(&log, a), HL_MIX_END_OWNER);
    assert_int_equal(started_frame(&log, b), 1000);
    /* b (right) from 1000 at full level, halved by the bus from 1500; a
     * (left) never sounds */
    for (uint32_t f = 0; f < 4096; f++)
        assert_true(out[2 * f] == 0.0f);
    assert_true(out[2 * (1000 - 512) + 1] == LEVEL);
    assert_true(out[2 * (1499 - 512) + 1] == LEVEL);
    assert_true(out[2 * (1500 - 512 + 600) + 1] < LEVEL);
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    assert_int_equal(st.sched_late, 0);
    /* the slot of a is free again */
    hl_voice_view_t vv;
    assert_int_equal(hl_mixer_voice(m, a, &vv), HELIOD_ENOVOICE);
    /* cancelled while its play is still in the ring: the ring's order holds */
    uint64_t c = 0;
    hl_mixer_owner(m, 9);
    hl_mixer_at(m, hl_mixer_frames(m) + 100000);
    assert_int_equal(hl_mixer_play(m, &p, now, &c, NULL), 0);
    hl_mixer_at(m, 0);
    hl_mixer_owner(m, 0);
    assert_int_equal(hl_mixer_sched_cancel(m, 9, HL_MIX_END_OWNER, now), 0);
    assert_int_equal(hl_mixer_stop(m, c, 64, HL_MIX_END_STOPPED, now), 0); /* not held now */
    assert_int_equal(hl_mixer_sched_pending(m), 1); /* the play, until the cancel is drained */
    test_render(m, out, 512, 256, &now);
    assert_int_equal(hl_mixer_sched_pending(m), 0);
    test_events_t log2 = {0};
    test_poll(m, &log2);
    assert_int_equal(started_frame(&log2, c), UINT64_MAX);
    assert_int_equal(test_end_reason(&log2, c), HL_MIX_END_OWNER);
    free(out);
    test_mixer_free(m);
    test_pcm_free(dc);
}

/* A command tag on bus commands (hl_mixer_cmd_tag, what the snapshot plans
 * use) and a cancel from a frame on: the tagged bus gains scheduled before
 * that frame stay and apply on their frames (a gain step is smoothed over
 * a few hundred frames), those at or after it go, an untagged one stays. */
static void test_cancel_from(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    assert_int_equal(hl_mixer_cmd_tag(m, 77), 0);
    uint64_t now = 0, v = 0;
    hl_pcm_t *dc = test_pcm_dc(8192, 1, LEVEL);
    hl_voice_params_t p = test_params(dc);
    p.pan = 1.0f;                                             /* right only: out[2f + 1] */
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0); /* untagged: a voice's */
    static const uint64_t at[3] = {1000, 2000, 3000};
    static const float g[3] = {0.5f, 0.25f, 0.125f};
    for (int i = 0; i < 3; i++) {
        hl_mixer_at(m, at[i]);
        assert_int_equal(hl_mixer_set_bus_gain(m, HL_BUS_SFX, g[i], 0, now), 0);
    }
    assert_int_equal(hl_mixer_cmd_tag(m, 0), 77);
    hl_mixer_at(m, 3500); /* untagged: stays */
    assert_int_equal(hl_mixer_set_bus_gain(m, HL_BUS_SFX, 0.75f, 0, now), 0);
    hl_mixer_at(m, 0);
    float *out = new_out(4096);
    test_render(m, out, 512, 256, &now); /* in the heap now */
    assert_int_equal(hl_mixer_sched_pending(m), 4);
    assert_int_equal(hl_mixer_sched_cancel_from(m, 0, 0, 0, now), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_sched_cancel_from(m, 77, 2000, 0, now), 0);
    test_render(m, out, 4096, 256, &now); /* frames 512..4607 */
    assert_int_equal(hl_mixer_sched_pending(m), 0);
    assert_true(out[2 * (999 - 512) + 1] == LEVEL);
    assert_true(out[2 * (1600 - 512) + 1] == LEVEL * 0.5f); /* kept: before 2000 */
    assert_true(out[2 * (2500 - 512) + 1] == LEVEL * 0.5f); /* 2000 and 3000 went */
    assert_true(out[2 * (3499 - 512) + 1] == LEVEL * 0.5f);
    assert_true(out[2 * (4100 - 512) + 1] == LEVEL * 0.75f); /* untagged: applied */
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(test_end_reason(&log, v), -1); /* the voice plays on */
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
    uint64_t dr = 0;
    uint32_t taken = 0;
    hl_mixer_clock(m, &f, &ns);
    assert_int_equal(f, 0);
    assert_int_equal(ns, 0);
    assert_int_equal(hl_mixer_phase(m, &f), HL_MIX_PHASE_IDLE);
    assert_int_equal(hl_mixer_last_drain(m, &dr, &taken), 0); /* none over yet */
    test_render(m, out, 512, 256, &now);
    hl_mixer_clock(m, &f, &ns);
    assert_int_equal(f, 256); /* the last call began at frame 256 */
    assert_int_equal(ns, 5000 + 256ull * 1000000000u / TEST_RATE);
    /* where a command pushed now applies (the capture's frame of effect):
     * between calls, from the frames rendered; the last drain's frame and
     * read index say which call took what was pushed before */
    assert_int_equal(hl_mixer_phase(m, &f), HL_MIX_PHASE_IDLE);
    assert_int_equal(f, 512);
    hl_listener_state_t l;
    hl_mixer_get_listener(m, &l);
    l.pos[0] = 2.0f;
    uint32_t before = hl_mixer_cmds_pushed(m);
    assert_int_equal(hl_mixer_set_listener(m, &l, now), 0);
    assert_true(hl_mixer_cmds_pushed(m) != before);
    assert_int_equal(hl_mixer_last_drain(m, &dr, &taken), 1);
    assert_int_equal(dr, 256);
    assert_int_equal(taken, before); /* not taken yet */
    test_render(m, out, 256, 256, &now);
    assert_int_equal(hl_mixer_last_drain(m, &dr, &taken), 1);
    assert_int_equal(dr, 512);
    assert_int_equal(taken, hl_mixer_cmds_pushed(m)); /* by the call from 512 */
    assert_int_equal(hl_mixer_phase(m, &f), HL_MIX_PHASE_IDLE);
    assert_int_equal(f, 768);
    free(out);
    test_mixer_free(m);
}

/* A request met inside a call whose ring drain is over: what it pushes now
 * applies from the next call's start, and so does every "now" the main
 * thread plans from (a snapshot's glide, a music transition's beat, the
 * listener's timeline), the frame a session capture records it on
 * (IN_PERIOD: replayed from the next call). The phase is set as the audio
 * thread leaves it between its drain and the end of its call. */
static void test_now_in_period(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    float *out = new_out(1024);
    uint64_t now = 0, f = 0, lo = 0, hi = 0;
    test_render(m, out, 768, 256, &now); /* the call from 512 is over */
    assert_int_equal(hl_mixer_next_frame(m), 768);
    hl_mixer_now_track(m);
    assert_int_equal(hl_mixer_effect_frame(m), 768);
    /* back inside the call from 512, its drain over */
    atomic_store(&m->stats.frames, 512);
    assert_int_equal(hl_mixer_phase(m, &f), HL_MIX_PHASE_DRAINED);
    assert_int_equal(hl_mixer_next_frame(m), 768);
    assert_int_equal(hl_mixer_effect_frame(m), 768);
    assert_int_equal(hl_mixer_now_seen(m, &lo, &hi), 2);
    assert_int_equal(lo, 768);
    assert_int_equal(hi, 768);
    hl_listener_state_t l, got;
    hl_mixer_get_listener(m, &l);
    l.pos[0] = 4.0f;
    assert_int_equal(hl_mixer_set_listener(m, &l, now), 0); /* on the timeline from 768 */
    hl_mixer_listener_at(m, 767, &got);
    assert_float_equal(got.pos[0], 0.0f, 0.0f);
    hl_mixer_listener_at(m, 768, &got);
    assert_float_equal(got.pos[0], 4.0f, 0.0f);
    assert_int_equal(hl_mixer_bundle_begin(m), 0); /* a bundle's "now" too */
    assert_int_equal(hl_mixer_effect_frame(m), 768);
    assert_int_equal(hl_mixer_bundle_end(m), 0);
    hl_mixer_at(m, 600); /* a scheduled request keeps its own frame (late or not) */
    assert_int_equal(hl_mixer_effect_frame(m), 600);
    hl_mixer_at(m, 0);
    atomic_store(&m->stats.frames, 768);
    hl_mixer_now_track(m);
    assert_int_equal(hl_mixer_now_seen(m, &lo, &hi), 0);
    free(out);
    test_mixer_free(m);
}

/* The listener's and the buses' timelines: what was pushed for a later frame
 * is seen from that frame on, whatever order it was pushed in; once the clock
 * passed it, the frames before it still answer the old state. */
static void test_timelines(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    float *out = new_out(2048);
    uint64_t now = 0;
    hl_listener_state_t l, got;
    hl_mixer_get_listener(m, &l);
    l.pos[0] = 5.0f;
    hl_mixer_at(m, 1000);
    assert_int_equal(hl_mixer_set_listener(m, &l, now), 0);
    l.pos[0] = 3.0f;
    hl_mixer_at(m, 600); /* pushed later, due earlier */
    assert_int_equal(hl_mixer_set_listener(m, &l, now), 0);
    hl_mixer_at(m, 0);
    hl_mixer_get_listener(m, &got);
    assert_float_equal(got.pos[0], 3.0f, 0.0f); /* as last set */
    const struct {
        uint64_t frame;
        float x;
    } want[] = {{0, 0.0f}, {599, 0.0f}, {600, 3.0f}, {999, 3.0f}, {1000, 5.0f}, {5000, 5.0f}};
    for (int pass = 0; pass < 2; pass++) { /* before the clock gets there, and after */
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
            hl_mixer_listener_at(m, want[i].frame, &got);
            if (got.pos[0] != want[i].x)
                fail_msg("pass %d: frame %llu: x %g, want %g", pass,
                         (unsigned long long)want[i].frame, (double)got.pos[0], (double)want[i].x);
        }
        if (!pass) test_render(m, out, 2048, 256, &now);
    }
    /* a bus: -20 dB from 700, muted from 900 (the master untouched) */
    float h[HL_MAX_BUSES];
    hl_mixer_at(m, 2048 + 700);
    assert_int_equal(hl_mixer_set_bus_gain(m, HL_BUS_MUSIC, 0.1f, 0, now), 0);
    hl_mixer_at(m, 2048 + 900);
    assert_int_equal(hl_mixer_set_bus_mute(m, HL_BUS_MUSIC, 1, 0, now), 0);
    hl_mixer_at(m, 0);
    assert_float_equal(hl_mixer_bus_heard_gain(m, HL_BUS_MUSIC), 0.0f, 0.0f); /* as last set */
    for (int pass = 0; pass < 2; pass++) {
        hl_mixer_buses_heard_at(m, 2048 + 699, h);
        assert_float_equal(h[HL_BUS_MUSIC], 1.0f, 0.0f);
        hl_mixer_buses_heard_at(m, 2048 + 700, h);
        assert_float_equal(h[HL_BUS_MUSIC], 0.1f, 0.0f);
        assert_float_equal(h[HL_BUS_SFX], 1.0f, 0.0f);
        hl_mixer_buses_heard_at(m, 2048 + 900, h);
        assert_float_equal(h[HL_BUS_MUSIC], 0.0f, 0.0f);
        if (!pass) test_render(m, out, 2048, 256, &now);
    }
    free(out);
    test_mixer_free(m);
}

/* Every listener index is on the timeline: listener 2 turned on for frame
 * 400, moved for 800 and off again for 1200 is seen exactly on those frames
 * (before and after the clock passed them), listener 0 unchanged; what
 * hl_mixer_listeners_at answers is what a ranking for that frame uses. */
static void test_listener_timelines(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    float *out = new_out(2048);
    uint64_t now = 0;
    hl_listener_state_t l, all[HL_MIX_LISTENERS];
    hl_mixer_get_listener(m, &l);
    l.pos[0] = 7.0f;
    hl_mixer_at(m, 800);
    assert_int_equal(hl_mixer_set_listener_at(m, 2, &l, now), 0);
    hl_mixer_at(m, 1200);
    assert_int_equal(hl_mixer_set_listener_at(m, 2, NULL, now), 0);
    l.pos[0] = 4.0f;
    hl_mixer_at(m, 400); /* pushed last, due first */
    assert_int_equal(hl_mixer_set_listener_at(m, 2, &l, now), 0);
    hl_mixer_at(m, 0);
    const struct {
        uint64_t frame;
        uint32_t on;
        float x;
    } want[] = {{0, 0x1u, 0.0f},   {399, 0x1u, 0.0f},  {400, 0x5u, 4.0f},  {799, 0x5u, 4.0f},
                {800, 0x5u, 7.0f}, {1199, 0x5u, 7.0f}, {1200, 0x1u, 0.0f}, {5000, 0x1u, 0.0f}};
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
            uint32_t on = hl_mixer_listeners_at(m, want[i].frame, all);
            if (on != want[i].on)
                fail_msg("pass %d: frame %llu: on 0x%x, want 0x%x", pass,
                         (unsigned long long)want[i].frame, on, want[i].on);
            if ((on & 0x4u) && all[2].pos[0] != want[i].x)
                fail_msg("pass %d: frame %llu: x %g, want %g", pass,
                         (unsigned long long)want[i].frame, (double)all[2].pos[0],
                         (double)want[i].x);
            assert_float_equal(all[0].pos[0], 0.0f, 0.0f);
        }
        if (!pass) test_render(m, out, 2048, 256, &now);
    }
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
        cmocka_unit_test(test_split_bound),
        cmocka_unit_test(test_limit_and_hook),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_cancel_from),
        cmocka_unit_test(test_bundle_not_split),
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_now_in_period),
        cmocka_unit_test(test_timelines),
        cmocka_unit_test(test_listener_timelines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
