/*
 * test_voices.c - unit tests of the voice pool and envelopes: strictly-higher
 * priority preemption (lowest priority first, oldest among equals, equal
 * priority refused), the victim fading in its own slot before it is freed,
 * stale handles after end/steal/slot reuse, the linear attack and release
 * envelopes, stop on a fading voice, and pause/resume.
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

#define EPS      1e-5f
#define LONG_SND (TEST_RATE * 2)
#define BLOCK    256
#define MONO_C   0.70710678f /* centre pan of a mono voice */
#define LEVEL    0.5f        /* test DC level: below the limiter threshold */
#define RSCALE   1e-4f       /* ramp source: sample i = i * RSCALE */

typedef struct {
    hl_mixer_t *m;
    hl_pcm_t *dc;
    uint64_t now;
    float *out;
} fx_t;

static int setup(void **state) {
    fx_t *f = calloc(1, sizeof *f);
    f->m = test_mixer_new(2, 0);
    f->dc = test_pcm_dc(LONG_SND, 1, LEVEL);
    f->out = calloc(2 * (size_t)LONG_SND, sizeof(float));
    f->now = 1000;
    *state = f;
    return f->m && f->dc && f->out ? 0 : -1;
}

static int teardown(void **state) {
    fx_t *f = *state;
    test_mixer_free(f->m);
    test_pcm_free(f->dc);
    free(f->out);
    free(f);
    return 0;
}

static uint64_t play_prio(fx_t *f, int32_t prio, int expect_rc, uint64_t *stolen) {
    hl_voice_params_t p = test_params(f->dc);
    p.priority = prio;
    uint64_t v = 0, st = 0;
    assert_int_equal(hl_mixer_play(f->m, &p, f->now, &v, &st), expect_rc);
    if (stolen) *stolen = st;
    return v;
}

static void test_pool_preemption(void **state) {
    fx_t *f = *state;
    test_events_t log = {0};
    uint64_t st;
    uint64_t a = play_prio(f, 5, 0, &st); /* oldest */
    uint64_t b = play_prio(f, 5, 0, &st);
    assert_int_equal(st, 0);
    assert_int_equal(hl_mixer_active(f->m), 2);
    /* equal priority refused, lower refused */
    play_prio(f, 5, HELIOD_ENOVOICES, NULL);
    play_prio(f, 1, HELIOD_ENOVOICES, NULL);
    /* strictly higher steals the oldest among equals */
    uint64_t c = play_prio(f, 6, 0, &st);
    assert_true(st == a);
    assert_int_equal(hl_mixer_active(f->m), 2);
    /* the victim fades in its own slot: 3 slots busy now */
    uint32_t busy = 0;
    hl_voice_view_t view;
    for (uint32_t s = 0; s < hl_mixer_slots(f->m); s++)
        if (hl_mixer_slot_view(f->m, s, &view) == 0) {
            busy++;
            if (view.voice == a) assert_int_equal(view.state, HL_MIX_STATE_STOPPING);
        }
    assert_int_equal(busy, 3);
    /* lowest priority is stolen before an older but higher one: b (5) not c (6) */
    uint64_t d = play_prio(f, 7, 0, &st);
    assert_true(st == b);
    /* every slot is now busy (2 playing + 2 fading): even a higher priority fails */
    play_prio(f, 100, HELIOD_ENOVOICES, NULL);
    /* the victims fade out (64-frame fade) and then free their slots */
    test_render(f->m, f->out, BLOCK, BLOCK, &f->now);
    test_poll(f->m, &log);
    assert_int_equal(test_end_reason(&log, a), HL_MIX_END_STOLEN);
    assert_int_equal(test_end_reason(&log, b), HL_MIX_END_STOLEN);
    assert_int_equal(test_count(&log, HL_MIX_EV_ENDED, c), 0);
    assert_int_equal(test_count(&log, HL_MIX_EV_ENDED, d), 0);
    busy = 0;
    for (uint32_t s = 0; s < hl_mixer_slots(f->m); s++)
        busy += hl_mixer_slot_view(f->m, s, &view) == 0;
    assert_int_equal(busy, 2);
    play_prio(f, 100, 0, &st); /* a slot is free again */
    assert_true(st == c);
}

static void test_victim_fades(void **state) {
    fx_t *f = *state;
    hl_mixer_t *m = test_mixer_new(1, 0);
    hl_voice_params_t p = test_params(f->dc);
    uint64_t a, b, st;
    assert_int_equal(hl_mixer_play(m, &p, f->now, &a, &st), 0);
    test_render(m, f->out, BLOCK, BLOCK, &f->now);
    assert_float_equal(f->out[2 * (BLOCK - 1)], LEVEL * MONO_C, EPS);
    /* a higher-priority voice on another bus so the fade is visible alone */
    p.priority = 1;
    p.bus = HL_BUS_MUSIC;
    assert_int_equal(hl_mixer_set_bus_gain(m, HL_BUS_MUSIC, 0.0f, 1, f->now), 0);
    assert_int_equal(hl_mixer_play(m, &p, f->now, &b, &st), 0);
    assert_true(st == a);
    test_render(m, f->out, BLOCK, BLOCK, &f->now);
    /* victim: linear 64-frame fade from 1 to 0, never a cut */
    for (int i = 0; i < HL_STOP_FADE_MIN; i++)
        assert_float_equal(f->out[2 * i],
                           LEVEL * MONO_C * (1.0f - (float)(i + 1) / HL_STOP_FADE_MIN), EPS);
    for (int i = HL_STOP_FADE_MIN; i < BLOCK; i++)
        assert_true(f->out[2 * i] == 0.0f);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(test_end_reason(&log, a), HL_MIX_END_STOLEN);
    assert_int_equal(hl_mixer_slot_view(m, (uint32_t)a, NULL), HELIOD_ENOVOICE); /* slot freed */
    test_mixer_free(m);
}

static void test_stale_handles(void **state) {
    fx_t *f = *state;
    hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN, .gain = 0.5f};
    test_events_t log = {0};
    /* after end (stop + fade) */
    uint64_t a = play_prio(f, 0, 0, NULL);
    assert_int_equal((uint32_t)(a >> 32), 1); /* generation starts at 1 */
    assert_int_equal(hl_mixer_stop(f->m, a, 0, HL_MIX_END_STOPPED, f->now), 0);
    test_render(f->m, f->out, BLOCK, BLOCK, &f->now);
    test_poll(f->m, &log);
    assert_int_equal(test_end_reason(&log, a), HL_MIX_END_STOPPED);
    assert_int_equal(hl_mixer_set(f->m, a, &s, f->now), HELIOD_ENOVOICE);
    assert_int_equal(hl_mixer_stop(f->m, a, 0, HL_MIX_END_STOPPED, f->now), HELIOD_ENOVOICE);
    assert_int_equal(hl_mixer_voice(f->m, a, NULL), HELIOD_ENOVOICE);
    /* after slot reuse: same slot, next generation */
    uint64_t b = play_prio(f, 0, 0, NULL);
    assert_int_equal((uint32_t)b, (uint32_t)a);
    assert_int_equal((uint32_t)(b >> 32), (uint32_t)(a >> 32) + 1);
    assert_int_equal(hl_mixer_set(f->m, a, &s, f->now), HELIOD_ENOVOICE);
    assert_int_equal(hl_mixer_set(f->m, b, &s, f->now), 0);
    /* after steal: immediately stale, even while it still fades */
    uint64_t c = play_prio(f, 0, 0, NULL), st;
    (void)c;
    play_prio(f, 1, 0, &st);
    assert_true(st == b);
    assert_int_equal(hl_mixer_set(f->m, b, &s, f->now), HELIOD_ENOVOICE);
    assert_int_equal(hl_mixer_stop(f->m, b, 0, HL_MIX_END_STOPPED, f->now), HELIOD_ENOVOICE);
    /* never-issued handles */
    assert_int_equal(hl_mixer_voice(f->m, 0, NULL), HELIOD_ENOVOICE);
    assert_int_equal(hl_mixer_voice(f->m, ((uint64_t)1 << 32) | 999, NULL), HELIOD_ENOVOICE);
}

static void test_attack(void **state) {
    fx_t *f = *state;
    hl_voice_params_t p = test_params(f->dc);
    p.pan = -1.0f; /* hard left: left gain exactly 1 */
    p.attack_frames = 4;
    uint64_t v;
    assert_int_equal(hl_mixer_play(f->m, &p, f->now, &v, NULL), 0);
    test_render(f->m, f->out, 8, 8, &f->now);
    const float expect[8] = {0.25f, 0.5f, 0.75f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
    for (int i = 0; i < 8; i++) {
        assert_float_equal(f->out[2 * i], LEVEL * expect[i], EPS);
        assert_true(f->out[2 * i + 1] == 0.0f);
    }
}

static void test_release_frees(void **state) {
    fx_t *f = *state;
    hl_voice_params_t p = test_params(f->dc);
    p.pan = -1.0f;
    uint64_t v;
    assert_int_equal(hl_mixer_play(f->m, &p, f->now, &v, NULL), 0);
    test_render(f->m, f->out, 10, 10, &f->now);
    const uint32_t rel = 100;
    assert_int_equal(hl_mixer_stop(f->m, v, rel, HL_MIX_END_STOPPED, f->now), 0);
    /* a second stop with a shorter fade keeps the running one */
    assert_int_equal(hl_mixer_stop(f->m, v, 0, HL_MIX_END_STOPPED, f->now), 0);
    hl_voice_view_t view;
    assert_int_equal(hl_mixer_voice(f->m, v, &view), 0);
    assert_int_equal(view.state, HL_MIX_STATE_STOPPING);
    test_render(f->m, f->out, 60, 60, &f->now); /* mid-fade */
    for (int i = 0; i < 60; i++)
        assert_float_equal(f->out[2 * i], LEVEL * (1.0f - (float)(i + 1) / rel), EPS);
    assert_int_equal(hl_mixer_stop(f->m, v, 0, HL_MIX_END_STOPPED, f->now), 0);
    test_render(f->m, f->out, 100, 100, &f->now);
    for (int i = 0; i < 40; i++) /* continues the same slope: not cut to 64 frames */
        assert_float_equal(f->out[2 * i], LEVEL * (1.0f - (float)(60 + i + 1) / rel), EPS);
    assert_true(f->out[2 * 39] == 0.0f);
    for (int i = 40; i < 100; i++)
        assert_true(f->out[2 * i] == 0.0f);
    test_events_t log = {0};
    test_poll(f->m, &log);
    assert_int_equal(test_count(&log, HL_MIX_EV_STARTED, v), 1);
    assert_int_equal(test_end_reason(&log, v), HL_MIX_END_STOPPED);
    assert_int_equal(hl_mixer_slot_view(f->m, (uint32_t)v, NULL), HELIOD_ENOVOICE);
    assert_int_equal(hl_mixer_active(f->m), 0);
}

static void test_pause_resume(void **state) {
    fx_t *f = *state;
    hl_pcm_t *ramp = test_pcm_ramp(4096, RSCALE);
    hl_voice_params_t p = test_params(ramp);
    p.pan = -1.0f;
    uint64_t v;
    assert_int_equal(hl_mixer_play(f->m, &p, f->now, &v, NULL), 0);
    test_render(f->m, f->out, 100, 100, &f->now);
    hl_voice_set_t s = {.mask = HL_MIX_SET_PAUSE, .ramp_frames = 50};
    assert_int_equal(hl_mixer_set(f->m, v, &s, f->now), 0);
    test_render(f->m, f->out, 200, 200, &f->now);
    for (int i = 0; i < 50; i++) /* fades out while playing on: sample 100+i */
        assert_float_equal(f->out[2 * i], RSCALE * (100.0f + i) * (1.0f - (i + 1) / 50.0f), EPS);
    for (int i = 50; i < 200; i++)
        assert_true(f->out[2 * i] == 0.0f);
    s.mask = HL_MIX_SET_RESUME;
    s.ramp_frames = 10;
    assert_int_equal(hl_mixer_set(f->m, v, &s, f->now), 0);
    test_render(f->m, f->out, 20, 20, &f->now);
    /* the cursor held at 150 while paused; fades back in */
    for (int i = 0; i < 20; i++) {
        float env = i < 10 ? (i + 1) / 10.0f : 1.0f;
        assert_float_equal(f->out[2 * i], RSCALE * (150.0f + i) * env, EPS);
    }
    test_pcm_free(ramp);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pool_preemption, setup, teardown),
        cmocka_unit_test_setup_teardown(test_victim_fades, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attack, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_frees, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pause_resume, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
