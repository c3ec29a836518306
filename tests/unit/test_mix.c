/*
 * test_mix.c - unit tests of the mixing path: linear summing before the
 * limiter (in-phase sines peak 2, anti-phase cancel), output bounded, ramps
 * independent of the caller's block size, pitch 2 / 0.5, seamless loops,
 * one-shots ending, stereo balance, 3D virtual voices, the command drain cap,
 * bus gains, STARTED timing and SIMD vs portable kernels (also for every
 * pitched voice kind: mono / stereo, 2D / 3D, linear / cubic).
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

#define EPS     1e-5f
#define NFRAMES 4800
#define SINE_F  (441.0 / TEST_RATE) /* cycles per frame */
#define RSCALE  1e-4f               /* ramp source: sample i = i * RSCALE */
#define LEVEL   0.5f                /* DC level below the limiter threshold */

static float *new_out(uint32_t frames) {
    return calloc(2 * (size_t)frames, sizeof(float));
}

static void test_sines_sum_and_cancel(void **state) {
    (void)state;
    float *out = new_out(NFRAMES);
    hl_pcm_t *s0 = test_pcm_sine(NFRAMES, 1, SINE_F, 0.0, 1.0f);
    hl_pcm_t *s180 = test_pcm_sine(NFRAMES, 1, SINE_F, TEST_PI, 1.0f);
    uint64_t now = 0;
    hl_mixer_stats_t st;

    /* in phase, hard left: pre-limiter bus peak 2, output stays in [-1, 1] */
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(s0);
    p.pan = -1.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 1024, 1024, &now);
    hl_mixer_stats(m, &st);
    assert_float_equal(st.bus_peak[HL_BUS_SFX], 2.0f, 1e-3f);
    float pk = 0.0f;
    for (int i = 0; i < 2 * 1024; i++) {
        assert_true(out[i] >= -1.0f && out[i] <= 1.0f);
        pk = fmaxf(pk, fabsf(out[i]));
    }
    assert_true(pk > 0.85f && pk <= HL_LIMITER_THRESH + 1e-6f);
    assert_true(st.limiter_blocks >= 1);
    assert_float_equal(st.peak[0], pk, 1e-6f);
    test_mixer_free(m);

    /* anti phase: cancels */
    m = test_mixer_new(4, 0);
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    p.pcm = s180;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 1024, 1024, &now);
    hl_mixer_stats(m, &st);
    assert_true(st.bus_peak[HL_BUS_SFX] < 1e-5f);
    for (int i = 0; i < 2 * 1024; i++)
        assert_true(fabsf(out[i]) < 1e-5f);
    test_mixer_free(m);

    /* one voice below the threshold: output is exactly the source */
    m = test_mixer_new(4, 0);
    p.pcm = s0;
    p.gain = 0.5f;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 1024, 1024, &now);
    for (int i = 0; i < 1024; i++) {
        assert_true(out[2 * i] == 0.5f * s0->data[i]);
        assert_true(out[2 * i + 1] == 0.0f);
    }
    test_mixer_free(m);
    test_pcm_free(s0);
    test_pcm_free(s180);
    free(out);
}

/* Renders a DC voice through a gain ramp, a pan ramp and a pitch-free
 * envelope with process calls of `chunk` frames. */
static void render_ramped(uint32_t chunk, float *out) {
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_pcm_t *dc = test_pcm_dc(NFRAMES, 1, 0.5f);
    hl_voice_params_t p = test_params(dc);
    p.attack_frames = 300;
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    hl_voice_set_t s = {
        .mask = HL_MIX_SET_GAIN | HL_MIX_SET_PAN, .gain = 0.1f, .pan = 0.6f, .ramp_frames = 1500};
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    assert_int_equal(hl_mixer_set_bus_gain(m, -1, 0.5f, 700, now), 0);
    test_render(m, out, 3000, chunk, &now);
    test_pcm_free(dc);
    test_mixer_free(m);
}

static void test_ramp_block_size(void **state) {
    (void)state;
    float *a = new_out(3000), *b = new_out(3000), *c = new_out(3000);
    render_ramped(64, a);
    render_ramped(256, b);
    render_ramped(1000, c);
    /* the ramp really moves: start, middle and end differ */
    assert_true(fabsf(a[2 * 10] - a[2 * 1000]) > 0.01f);
    assert_float_equal(a[2 * 2000 + 1], 0.5f * 0.1f * 0.5f * sinf(0.8f * 0.78539816f * 2.0f),
                       1e-4f);
    for (int i = 0; i < 2 * 3000; i++) {
        if (fabsf(a[i] - b[i]) > 1e-5f || fabsf(a[i] - c[i]) > 1e-5f)
            print_error("frame %d ch %d: %g %g %g\n", i / 2, i % 2, a[i], b[i], c[i]);
        assert_float_equal(a[i], b[i], 1e-5f);
        assert_float_equal(a[i], c[i], 1e-5f);
    }
    free(a);
    free(b);
    free(c);
}

static void test_pitch(void **state) {
    (void)state;
    hl_pcm_t *ramp = test_pcm_ramp(8192, RSCALE);
    float *out = new_out(1000);
    uint64_t now = 0;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(ramp);
    p.pan = -1.0f;
    p.pitch = 2.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 1000, 100, &now); /* continuity across calls too */
    for (int i = 0; i < 1000; i++)
        assert_float_equal(out[2 * i], RSCALE * 2.0f * i, EPS);
    test_mixer_free(m);

    m = test_mixer_new(4, 0);
    p.pitch = 0.5f;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 1000, 77, &now);
    for (int i = 0; i < 1000; i++)
        assert_float_equal(out[2 * i], RSCALE * 0.5f * i, EPS);
    test_mixer_free(m);

    /* pitch 1.5 (interpolated, not on the copy path) */
    m = test_mixer_new(4, 0);
    p.pitch = 1.5f;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 1000, 333, &now);
    for (int i = 0; i < 1000; i++)
        assert_float_equal(out[2 * i], RSCALE * 1.5f * i, EPS);
    test_mixer_free(m);
    test_pcm_free(ramp);
    free(out);
}

static void check_loop(float pitch, uint32_t chunk) {
    /* 480 frames holding exactly 4 cycles: looping it is one endless sine */
    const uint32_t len = 480, frames = 9000;
    const double cyc = 4.0 / len;
    hl_pcm_t *snd = test_pcm_sine(len, 1, cyc, 0.0, 1.0f);
    float *out = new_out(frames);
    uint64_t now = 0, v;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(snd);
    p.pan = -1.0f;
    p.gain = 0.8f;
    p.pitch = pitch;
    p.flags = HL_MIX_LOOP;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, frames, chunk, &now);
    double maxerr = 0.0;
    for (uint32_t i = 0; i < frames; i++) {
        double x = fmod(i * (double)pitch, len);
        double ref = 0.8 * sin(2.0 * TEST_PI * cyc * x);
        double err = fabs(out[2 * i] - ref);
        maxerr = err > maxerr ? err : maxerr;
    }
    /* linear interpolation error of a 40-frame-period sine is ~3e-3 */
    assert_true(maxerr < 5e-3);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(test_count(&log, HL_MIX_EV_ENDED, v), 0); /* loops never end */
    test_mixer_free(m);
    test_pcm_free(snd);
    free(out);
}

static void test_loop_seamless(void **state) {
    (void)state;
    check_loop(1.0f, 256);
    check_loop(1.0f, 100);
    check_loop(0.7f, 256);
    check_loop(1.37f, 64);
    check_loop(3.9f, 1000);
}

static void test_oneshot_ends(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(300, 1, LEVEL);
    float *out = new_out(1024);
    uint64_t now = 5, v;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(dc);
    p.pan = -1.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 1024, 128, &now);
    for (int i = 0; i < 300; i++)
        assert_true(out[2 * i] == LEVEL);
    for (int i = 300; i < 1024; i++)
        assert_true(out[2 * i] == 0.0f);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(log.n, 2);
    assert_int_equal(log.ev[0].type, HL_MIX_EV_STARTED);
    assert_int_equal(log.ev[0].time_ns, 5); /* the first block's now_ns */
    assert_int_equal(test_end_reason(&log, v), HL_MIX_END_FINISHED);
    assert_true(log.ev[1].pcm == dc);
    assert_int_equal(hl_mixer_active(m), 0);
    test_mixer_free(m);
    test_pcm_free(dc);
    free(out);
}

static void test_stereo_balance(void **state) {
    (void)state;
    hl_pcm_t *st = test_pcm_dc(1024, 2, 0.25f);
    float *out = new_out(256);
    uint64_t now = 0;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(st);
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 256, 256, &now);
    assert_true(out[0] == 0.25f && out[1] == 0.25f); /* centre: both at unity */
    test_mixer_free(m);
    m = test_mixer_new(4, 0);
    p.pan = -1.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 256, 256, &now);
    assert_true(out[0] == 0.25f && out[1] == 0.0f);
    test_mixer_free(m);
    m = test_mixer_new(4, 0);
    p.pan = 0.5f;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 256, 256, &now);
    assert_float_equal(out[0], 0.125f, EPS);
    assert_float_equal(out[1], 0.25f, EPS);
    test_mixer_free(m);
    test_pcm_free(st);
    free(out);
}

static void test_3d_and_virtual(void **state) {
    (void)state;
    hl_pcm_t *ramp = test_pcm_ramp(48000, RSCALE);
    float *out = new_out(1024);
    uint64_t now = 0, v;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(ramp);
    p.flags = HL_MIX_3D;
    p.model = HL_MIX_DIST_INVERSE;
    p.min_distance = 1.0f;
    p.max_distance = 50.0f;
    p.pos[0] = 2.0f; /* right of the default listener, d = 2 */
    p.gain = 1.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 256, 256, &now);
    /* inverse at d=2: 0.5, hard right */
    for (int i = 0; i < 256; i++) {
        assert_true(out[2 * i] == 0.0f);
        assert_float_equal(out[2 * i + 1], RSCALE * 0.5f * (float)i, EPS);
    }
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    assert_int_equal(st.voices_mixed, 1);
    assert_int_equal(st.voices_virtual, 0);
    /* move beyond max distance: ramps to 0, then virtual; the cursor runs on */
    hl_voice_set_t s = {.mask = HL_MIX_SET_POS, .pos = {80.0f, 0.0f, 0.0f}, .ramp_frames = 1};
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out, 256, 256, &now); /* ramps down across this block */
    assert_true(out[2 * 255 + 1] == 0.0f);
    test_render(m, out, 1024, 256, &now);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.voices_mixed, 0);
    assert_int_equal(st.voices_virtual, 1);
    for (int i = 0; i < 2 * 1024; i++)
        assert_true(out[i] == 0.0f);
    /* back in range: playback resumes where time put it (256 + 256 + 1024) */
    s.pos[0] = -2.0f;
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out, 512, 256, &now);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.voices_virtual, 0);
    assert_float_equal(out[2 * 300], RSCALE * 0.5f * (1536.0f + 300.0f), EPS); /* hard left */
    assert_true(out[2 * 300 + 1] == 0.0f);
    test_mixer_free(m);

    /* Doppler (factor 1): a listener moving towards the source at c/4 raises
     * pitch 1.25 once the smoothing has settled */
    m = test_mixer_new(4, 0);
    p.pos[0] = 0.0f;
    p.pos[2] = -3.0f; /* ahead */
    p.doppler_factor = 1.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    hl_listener_state_t lis;
    hl_mixer_get_listener(m, &lis);
    lis.vel[2] = -HL_SPEED_OF_SOUND / 4.0f;
    assert_int_equal(hl_mixer_set_listener(m, &lis, now), 0);
    for (int i = 0; i < 16; i++) /* 16384 frames: about 11 time constants */
        test_render(m, out, 1024, 256, &now);
    test_render(m, out, 512, 256, &now);
    float g = RSCALE * (1.0f / 3.0f) * 0.70710678f;
    assert_float_equal((out[2 * 400] - out[2 * 100]) / 300.0f, g * 1.25f, g * 1e-3f);
    test_mixer_free(m);
    test_pcm_free(ramp);
    free(out);
}

static void test_cmd_cap(void **state) {
    (void)state;
    const uint32_t cap = 4;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, 0.01f);
    float *out = new_out(64);
    uint64_t now = 0;
    hl_mixer_t *m = test_mixer_new(16, cap);
    hl_voice_params_t p = test_params(dc);
    for (int i = 0; i < 10; i++)
        assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    hl_mixer_stats_t st;
    test_render(m, out, 64, 64, &now);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.cmds_applied, 4);
    assert_int_equal(st.cmd_cap_hits, 1);
    assert_int_equal(st.voices_mixed, 4);
    test_render(m, out, 64, 64, &now);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.cmds_applied, 8);
    assert_int_equal(st.cmd_cap_hits, 2);
    test_render(m, out, 64, 64, &now);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.cmds_applied, 10);
    assert_int_equal(st.cmd_cap_hits, 2); /* drained below the cap: no hit */
    assert_int_equal(st.voices_mixed, 10);
    uint64_t waits = 0;
    for (int i = 0; i < HL_MIX_WAIT_BUCKETS; i++)
        waits += st.wait_hist[i];
    assert_int_equal(waits, 10);
    assert_int_equal(st.wait_hist[0], 4); /* applied in the block they were sent for */
    /* four waited one 64-frame block (1.33 ms, bucket [1280, 1536) us), the
     * last two waited two (2.67 ms, bucket [2560, 3072) us) */
    const double one_us = 64.0 * 1e6 / TEST_RATE, two_us = 2.0 * one_us;
    for (unsigned i = 1; i < HL_MIX_WAIT_BUCKETS; i++) {
        double lo = hl_mixer_wait_bucket_upper_us(i - 1), hi = hl_mixer_wait_bucket_upper_us(i);
        uint64_t want =
            (lo <= one_us && one_us < hi ? 4 : 0) + (lo <= two_us && two_us < hi ? 2 : 0);
        assert_int_equal(st.wait_hist[i], want);
    }
    /* 666 and 1333 units of 2 us: octaves 9 and 10, second quarter: 1 + 4 * (o - 2) + 1 */
    assert_int_equal(st.wait_hist[30], 4);
    assert_int_equal(st.wait_hist[34], 2);
    assert_int_equal(st.wait_max_ns, 2 * 64 * 1000000000ull / TEST_RATE);
    test_mixer_free(m);

    /* a full ring answers EBUSY and changes nothing */
    hl_mixer_config_t cfg = {.rate = TEST_RATE, .voices = 64, .cmd_capacity = 8};
    void *mem = malloc(hl_mixer_size(&cfg));
    m = hl_mixer_init(mem, hl_mixer_size(&cfg), &cfg);
    assert_non_null(m);
    int rc = 0, n = 0;
    while ((rc = hl_mixer_play(m, &p, now, NULL, NULL)) == 0)
        n++;
    assert_int_equal(rc, HELIOD_EBUSY);
    assert_int_equal(n, 8);
    assert_int_equal(hl_mixer_active(m), 8);
    free(mem);
    test_pcm_free(dc);
    free(out);
}

/* The wait histogram: 8 us, then 4 buckets per octave, the last unbounded. */
static void test_wait_buckets(void **state) {
    (void)state;
    assert_true(hl_mixer_wait_bucket_upper_us(0) == 8.0);
    assert_true(hl_mixer_wait_bucket_upper_us(1) == 10.0);
    assert_true(hl_mixer_wait_bucket_upper_us(4) == 16.0);
    assert_true(hl_mixer_wait_bucket_upper_us(8) == 32.0);
    for (unsigned i = 1; i + 1 < HL_MIX_WAIT_BUCKETS; i++) {
        double lo = hl_mixer_wait_bucket_upper_us(i - 1), hi = hl_mixer_wait_bucket_upper_us(i);
        assert_true(hi > lo);
        assert_true(hi <= lo * 1.25 + 1e-9); /* fine enough for a latency figure */
    }
    assert_true(hl_mixer_wait_bucket_upper_us(HL_MIX_WAIT_BUCKETS - 2) > 300000.0);
    assert_true(isinf(hl_mixer_wait_bucket_upper_us(HL_MIX_WAIT_BUCKETS - 1)));
}

static void test_bus_gain(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, 0.5f);
    float *out = new_out(512);
    uint64_t now = 0;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(dc);
    p.pan = -1.0f;
    p.bus = HL_BUS_MUSIC;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    p.bus = HL_BUS_UI;
    p.pan = 1.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    assert_int_equal(hl_mixer_set_bus_gain(m, HL_BUS_MUSIC, 0.5f, 100, now), 0);
    assert_int_equal(hl_mixer_set_bus_gain(m, 7, 0.5f, 100, now), HELIOD_ENOBUS);
    assert_float_equal(hl_mixer_get_bus_gain(m, HL_BUS_MUSIC), 0.5f, EPS);
    assert_float_equal(hl_mixer_get_bus_gain(m, -1), 1.0f, EPS);
    test_render(m, out, 512, 512, &now);
    for (int i = 0; i < 100; i++) /* ramped from 1 to 0.5 over 100 frames */
        assert_float_equal(out[2 * i], 0.5f * (1.0f - 0.5f * (float)(i + 1) / 100.0f), EPS);
    assert_float_equal(out[2 * 300], 0.25f, EPS);
    assert_float_equal(out[2 * 300 + 1], 0.5f, EPS); /* ui untouched */
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    /* measured after the bus gain, before the limiter: the first frame */
    assert_float_equal(st.bus_peak[HL_BUS_MUSIC], 0.5f * (1.0f - 0.5f / 100.0f), EPS);
    assert_float_equal(st.bus_peak[HL_BUS_UI], 0.5f, EPS);
    assert_true(st.bus_peak[HL_BUS_SFX] == 0.0f);
    /* master */
    assert_int_equal(hl_mixer_set_bus_gain(m, -1, 0.0f, 0, now), 0);
    test_render(m, out, 512, 512, &now);
    assert_true(out[2 * 300] == 0.0f && out[2 * 300 + 1] == 0.0f); /* after one block */
    assert_int_equal(hl_bus_find("music"), HL_BUS_MUSIC);
    assert_int_equal(hl_bus_find(""), HL_BUS_SFX);
    assert_int_equal(hl_bus_find("nope"), -1);
    assert_string_equal(hl_bus_name(HL_BUS_DIALOG), "dialog");
    assert_null(hl_bus_name(HL_NUM_BUSES));
    test_mixer_free(m);
    test_pcm_free(dc);
    free(out);
}

/* Reference resampler: linear interpolation at t * pitch in double, the loop
 * start (looping) or silence (one-shot) after the last frame. */
static double ref_sample(const hl_pcm_t *p, double x, int loop) {
    if (loop)
        x = fmod(x, p->frames);
    else if (x >= p->frames)
        return 0.0;
    uint32_t i = (uint32_t)x;
    double f = x - i;
    double a = p->data[i];
    double b = i + 1 < p->frames ? p->data[i + 1] : (loop ? p->data[0] : 0.0);
    return a + f * (b - a);
}

/* Short and tiny buffers at every pitch, both kernels, looping and not:
 * exercises every run split (copy path, windows, gathers, guarded tails). */
static void test_short_buffers(void **state) {
    (void)state;
    const uint32_t sizes[] = {1, 2, 3, 5, 9, 17, 100};
    const float pitches[] = {0.25f, 0.5f, 0.9f, 1.0f, 1.25f, 2.0f, 3.7f, 4.0f};
    const uint32_t frames = 600;
    float *out = new_out(frames);
    for (int simd = 0; simd <= HL_MIX_SIMD_AVX2; simd++) /* portable, widest, AVX2 */
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (size_t pi = 0; pi < sizeof pitches / sizeof pitches[0]; pi++)
                for (int loop = 0; loop < 2; loop++) {
                    hl_pcm_t *snd = test_pcm_sine(sizes[si], 1, 0.37, 0.5, 0.5f);
                    hl_mixer_t *m = test_mixer_new(4, 0);
                    hl_mixer_use_simd(m, simd);
                    hl_voice_params_t p = test_params(snd);
                    p.pan = -1.0f;
                    p.pitch = pitches[pi];
                    p.flags = loop ? HL_MIX_LOOP : 0;
                    uint64_t now = 0;
                    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
                    test_render(m, out, frames, 100, &now);
                    for (uint32_t t = 0; t < frames; t++) {
                        double ref = ref_sample(snd, (double)t * (double)pitches[pi], loop);
                        if (fabs(out[2 * t] - ref) > 1e-4)
                            print_error("size %u pitch %g loop %d simd %d t %u: %g != %g\n",
                                        sizes[si], (double)pitches[pi], loop, simd, t,
                                        (double)out[2 * t], ref);
                        assert_true(fabs(out[2 * t] - ref) <= 1e-4);
                    }
                    test_mixer_free(m);
                    test_pcm_free(snd);
                }
    free(out);
}

/* Calls of every length (the mixer's interleaving and meters have vector
 * bodies and scalar tails): a hard-left ramp comes out exact on the left,
 * silent on the right, and each call's master meter matches its output. */
static void test_ragged_calls(void **state) {
    (void)state;
    const uint32_t chunks[] = {1, 3, 7, 37, 101, 5, 2, 255, 256, 13};
    const uint32_t frames = 2000;
    hl_pcm_t *ramp = test_pcm_ramp(frames + 16, 1.0f / 4096);
    float *out = new_out(256);
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(ramp);
    p.pan = -1.0f;
    assert_int_equal(hl_mixer_play(m, &p, 0, NULL, NULL), 0);
    uint64_t now = 0;
    uint32_t done = 0;
    for (size_t c = 0; done < frames; c = (c + 1) % (sizeof chunks / sizeof chunks[0])) {
        uint32_t n = chunks[c] < frames - done ? chunks[c] : frames - done;
        hl_mixer_process_rt(m, out, n, now);
        now += (uint64_t)n * 1000000000ull / TEST_RATE;
        double sl = 0.0;
        float pk = 0.0f;
        for (uint32_t t = 0; t < n; t++) {
            float want = (float)(done + t) / 4096;
            if (out[2 * t] != want || out[2 * t + 1] != 0.0f)
                print_error("call of %u, frame %u: %g %g, want %g 0\n", n, t, (double)out[2 * t],
                            (double)out[2 * t + 1], (double)want);
            assert_true(out[2 * t] == want && out[2 * t + 1] == 0.0f);
            sl += (double)out[2 * t] * out[2 * t];
            pk = out[2 * t] > pk ? out[2 * t] : pk;
        }
        const hl_mix_meter_t *mt = hl_mixer_meter_rt(m);
        assert_int_equal(mt->frames, n);
        assert_true(fabs(mt->sumsq[HL_MIX_METER_MASTER][0] - sl) <= 1e-6 * sl + 1e-12);
        assert_true(mt->sumsq[HL_MIX_METER_MASTER][1] == 0.0);
        assert_true(mt->peak[HL_MIX_METER_MASTER][0] == pk);
        assert_true(fabs(mt->sumsq[HL_BUS_SFX][0] - sl) <= 1e-6 * sl + 1e-12);
        done += n;
    }
    test_mixer_free(m);
    test_pcm_free(ramp);
    free(out);
}

/* Voices that settled take the mixer's steady path (one cache line per
 * voice); every change must still reach them: a gain, a pitch, a listener
 * move, a stop. A linear ramp source interpolates exactly, so the expected
 * samples are known in closed form. Runs on every kernel set. */
static void test_steady_changes(void **state) {
    (void)state;
    const uint32_t blk = 256, len = 40000;
    const float scale = 1e-5f, pitch = 0.75f, pitch2 = 1.25f;
    float *out = new_out(8 * blk);
    for (int simd = 0; simd <= HL_MIX_SIMD_AVX2; simd++) {
        hl_pcm_t *ramp = test_pcm_ramp(len, scale);
        hl_pcm_t *dc = test_pcm_dc(1000, 1, 0.5f);
        hl_mixer_t *m = test_mixer_new(4, 0);
        hl_mixer_use_simd(m, simd);
        uint64_t now = 0, v2d = 0, v3d = 0;
        hl_voice_params_t p = test_params(ramp);
        p.pan = -1.0f; /* left only, gain 1 */
        p.pitch = pitch;
        assert_int_equal(hl_mixer_play(m, &p, now, &v2d, NULL), 0);
        hl_voice_params_t q = test_params(dc);
        q.flags = HL_MIX_3D | HL_MIX_LOOP;
        q.pos[2] = -2.0f; /* straight ahead at 2 m: inverse model, gain 1/2, centre */
        q.model = HL_MIX_DIST_INVERSE;
        q.bus = HL_BUS_MUSIC;
        assert_int_equal(hl_mixer_play(m, &q, now, &v3d, NULL), 0);
        /* settled: 2D on the left, 3D centred on both sides */
        test_render(m, out, 4 * blk, blk, &now);
        const double c3 = 0.5 * 0.5 * 0.70710678;
        for (uint32_t t = 2 * blk; t < 4 * blk; t++) {
            assert_true(fabs(out[2 * t] - ((double)t * pitch * scale + c3)) < 1e-5);
            assert_true(fabs(out[2 * t + 1] - c3) < 1e-5);
        }
        /* gain 0.5 (ramped over one block), pitch 1.25 (one frame) on the 2D voice */
        hl_voice_set_t s;
        memset(&s, 0, sizeof s);
        s.mask = HL_MIX_SET_GAIN | HL_MIX_SET_PAN;
        s.gain = 0.5f;
        s.pan = -1.0f;
        assert_int_equal(hl_mixer_set(m, v2d, &s, now), 0);
        memset(&s, 0, sizeof s);
        s.mask = HL_MIX_SET_PITCH;
        s.pitch = pitch2;
        s.ramp_frames = 1;
        assert_int_equal(hl_mixer_set(m, v2d, &s, now), 0);
        /* the listener steps 1.5 m forward: the 3D voice is at 0.5 m, gain 1 */
        hl_listener_state_t lis;
        hl_mixer_get_listener(m, &lis);
        lis.pos[2] = -1.5f;
        assert_int_equal(hl_mixer_set_listener(m, &lis, now), 0);
        test_render(m, out, 4 * blk, blk, &now);
        const double c3b = 0.5 * 1.0 * 0.70710678;
        for (uint32_t t = 2 * blk; t + 1 < 4 * blk; t++) {
            double slope = out[2 * t + 2] - out[2 * t];
            assert_true(fabs(slope - 0.5 * pitch2 * scale) < 1e-6);
            assert_true(fabs(out[2 * t + 1] - c3b) < 1e-5);
        }
        /* a stop reaches a steady voice: silence after the release */
        assert_int_equal(hl_mixer_stop(m, v3d, 64, HL_MIX_END_STOPPED, now), 0);
        test_render(m, out, 2 * blk, blk, &now);
        for (uint32_t t = blk; t < 2 * blk; t++)
            assert_true(out[2 * t + 1] == 0.0f);
        test_mixer_free(m);
        test_pcm_free(ramp);
        test_pcm_free(dc);
    }
    free(out);
}

/* The same busy mix through the portable and the AVX2 kernels. */
static void render_busy(int simd, float *out, uint32_t frames) {
    hl_pcm_t *snd[3] = {test_pcm_sine(5000, 1, 0.013, 0.0, 0.3f),
                        test_pcm_sine(7000, 2, 0.007, 1.0, 0.2f),
                        test_pcm_sine(3000, 1, 0.021, 2.0, 0.25f)};
    hl_mixer_t *m = test_mixer_new(32, 0);
    hl_mixer_use_simd(m, simd);
    uint64_t now = 0;
    for (int i = 0; i < 24; i++) {
        hl_voice_params_t p = test_params(snd[i % 3]);
        p.pitch = 0.5f + 0.13f * (float)i;
        p.pan = -1.0f + (float)i / 12.0f;
        p.flags = (i & 1 ? HL_MIX_LOOP : 0) | (i % 3 == 1 ? HL_MIX_3D : 0);
        p.pos[0] = (float)i - 12.0f;
        p.pos[2] = -2.0f;
        p.attack_frames = 100u * (uint32_t)i;
        p.gain = 0.2f;
        assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    }
    test_render(m, out, frames, 480, &now);
    test_mixer_free(m);
    for (int i = 0; i < 3; i++)
        test_pcm_free(snd[i]);
}

/* render(simd, out, frames) with the widest kernels (AVX-512 where the CPU
 * has it) and the AVX2 ones against the portable ones. */
static void simd_matches_generic(void (*render)(int, float *, uint32_t), uint32_t frames) {
    float *a = new_out(frames), *b = new_out(frames);
    render(0, a, frames);
    for (int simd = HL_MIX_SIMD_BEST; simd <= HL_MIX_SIMD_AVX2; simd++) {
        render(simd, b, frames);
        double e = 0.0, pk = 0.0;
        for (uint32_t i = 0; i < 2 * frames; i++) {
            e = fmax(e, fabs(a[i] - b[i]));
            pk = fmax(pk, fabs(a[i]));
        }
        assert_true(pk > 0.1); /* there is a signal to compare */
        assert_true(e < 1e-4);
    }
    free(a);
    free(b);
}

static void test_simd_matches_generic(void **state) {
    (void)state;
    simd_matches_generic(render_busy, 9600);
}

/* Every pitched voice kind (mono / stereo source, 2D / 3D, linear / cubic,
 * pitch below and above 1, looping or not, ramped then flat gains) through
 * the given kernels. */
static void render_kinds(int simd, float *out, uint32_t frames) {
    hl_pcm_t *snd[2] = {test_pcm_sine(6000, 1, 0.011, 0.5, 0.4f),
                        test_pcm_sine(6500, 2, 0.017, 1.5, 0.3f)};
    hl_mixer_t *m = test_mixer_new(32, 0);
    hl_mixer_use_simd(m, simd);
    uint64_t now = 0;
    for (int i = 0; i < 32; i++) {
        hl_voice_params_t p = test_params(snd[i & 1]);
        p.pitch = 0.6f + 0.061f * (float)i; /* 0.6 .. 2.5 */
        p.pan = -1.0f + (float)i / 16.0f;
        p.flags = (i & 2 ? HL_MIX_3D : 0) | (i & 4 ? HL_MIX_CUBIC : 0) | (i & 8 ? HL_MIX_LOOP : 0);
        p.pos[0] = (float)i - 16.0f;
        p.pos[2] = -2.0f;
        p.attack_frames = 37u * (uint32_t)i;
        p.gain = 0.1f;
        assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    }
    test_render(m, out, frames, 480, &now);
    test_mixer_free(m);
    test_pcm_free(snd[0]);
    test_pcm_free(snd[1]);
}

/* The fused pitched kernels (cubic mono / stereo / downmix, linear mono)
 * and the two-pass ones, SIMD against portable, at the mixer level. */
static void test_simd_matches_generic_kinds(void **state) {
    (void)state;
    simd_matches_generic(render_kinds, 14400);
}

/* The governor's quality step: HL_MIX_SET_INTERP switches a pitched voice
 * between cubic and linear from the next block. Before the first block the
 * switched voice renders exactly as one played linear; switched back, the
 * cubic one again; in between, no step beyond the signal's own. */
static void test_set_interp(void **state) {
    (void)state;
    enum { N = 4096 };
    hl_pcm_t *pcm = test_pcm_sine(48000, 1, 3000.0 / TEST_RATE, 0.0, 0.5f);
    float *ref_lin = calloc(2 * N, sizeof(float)), *ref_cub = calloc(2 * N, sizeof(float));
    float *out = calloc(2 * N, sizeof(float));
    assert_non_null(ref_lin);
    assert_non_null(ref_cub);
    assert_non_null(out);
    for (int cubic = 0; cubic < 2; cubic++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        hl_voice_params_t p = test_params(pcm);
        p.pitch = 0.9f;
        p.flags = cubic ? HL_MIX_CUBIC : 0;
        uint64_t v = 0, st = 0, now = 0;
        assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
        test_render(m, cubic ? ref_cub : ref_lin, N, 256, &now);
        test_mixer_free(m);
    }
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(pcm);
    p.pitch = 0.9f;
    p.flags = HL_MIX_CUBIC;
    uint64_t v = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
    hl_voice_set_t s = {.mask = HL_MIX_SET_INTERP, .cubic = 0};
    assert_int_equal(hl_mixer_set(m, v, &s, 0), 0);
    hl_voice_view_t vv;
    assert_int_equal(hl_mixer_voice(m, v, &vv), 0);
    assert_int_equal(vv.params.flags & HL_MIX_CUBIC, 0);
    test_render(m, out, N / 2, 256, &now);
    assert_memory_equal(out, ref_lin, N * sizeof(float)); /* the first N/2 frames */
    s.cubic = 1;
    assert_int_equal(hl_mixer_set(m, v, &s, 0), 0);
    test_render(m, out + N, N / 2, 256, &now);
    assert_memory_equal(out + N, ref_cub + N, N * sizeof(float));
    double max_step = 0, max_ref = 0;
    for (int i = 1; i < N; i++) {
        double d = fabs(out[2 * i] - out[2 * i - 2]), r = fabs(ref_cub[2 * i] - ref_cub[2 * i - 2]);
        if (d > max_step) max_step = d;
        if (r > max_ref) max_ref = r;
    }
    assert_true(max_step < max_ref * 1.05);
    test_mixer_free(m);
    free(out);
    free(ref_lin);
    free(ref_cub);
    test_pcm_free(pcm);
}

/* A seek's fade-out (the scalar per-frame path) across a cubic loop's wrap
 * reads the frame before loop_start as the loop's last one, as the voice
 * does unfaded (the edge path): a ramp looped on [200, 400) at pitch 1.1
 * wraps at frame 364 (cursor 200.4: the tap before is 399, not 199). */
static void test_fade_across_wrap(void **state) {
    (void)state;
    const uint32_t t0 = 350, frames = 512;
    const float sc = 1e-3f;
    hl_pcm_t *ramp = test_pcm_ramp(1000, sc);
    float *out[2] = {new_out(frames), new_out(frames)};
    for (int seek = 0; seek < 2; seek++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        hl_voice_params_t p = test_params(ramp);
        p.pan = -1.0f;
        p.flags = HL_MIX_LOOP | HL_MIX_CUBIC;
        p.loop_start = 200;
        p.loop_end = 400;
        p.pitch = 1.1f;
        uint64_t v, now = 0;
        assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
        test_render(m, out[seek], t0, 50, &now);
        hl_voice_set_t s = {.mask = HL_MIX_SET_SEEK, .seek_frame = 600};
        if (seek) assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
        test_render(m, out[seek] + 2 * t0, frames - t0, 64, &now);
        test_mixer_free(m);
    }
    assert_true(t0 * 1.1 < 400 && (t0 + HL_SEEK_FADE) * 1.1 > 410); /* the fade holds the wrap */
    for (uint32_t j = 0; j < HL_SEEK_FADE; j++) {
        const float g = 1.0f - (float)(j + 1) / (float)HL_SEEK_FADE, want = out[0][2 * (t0 + j)];
        if (fabsf(out[1][2 * (t0 + j)] - want * g) > 1e-5f)
            fail_msg("frame %u: %g, unfaded %g x %g", t0 + j, (double)out[1][2 * (t0 + j)],
                     (double)want, (double)g);
    }
    test_pcm_free(ramp);
    free(out[0]);
    free(out[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sines_sum_and_cancel),
        cmocka_unit_test(test_ramp_block_size),
        cmocka_unit_test(test_pitch),
        cmocka_unit_test(test_loop_seamless),
        cmocka_unit_test(test_fade_across_wrap),
        cmocka_unit_test(test_oneshot_ends),
        cmocka_unit_test(test_stereo_balance),
        cmocka_unit_test(test_3d_and_virtual),
        cmocka_unit_test(test_cmd_cap),
        cmocka_unit_test(test_wait_buckets),
        cmocka_unit_test(test_bus_gain),
        cmocka_unit_test(test_short_buffers),
        cmocka_unit_test(test_ragged_calls),
        cmocka_unit_test(test_simd_matches_generic),
        cmocka_unit_test(test_simd_matches_generic_kinds),
        cmocka_unit_test(test_steady_changes),
        cmocka_unit_test(test_set_interp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
