/*
 * test_mix_vm.c - unit tests of the mixer features voice management builds
 * on: Doppler per source (OpenAL 1.1 formula, factor, clamps, smoothing that
 * glides without steps and lands exactly on the formula, independent of the
 * process call size), HL_MIX_CLAMP beyond max distance, start_frame (plain
 * and inside a loop region), fade curves (equal power, log, a fade-out from
 * the middle of a fade-in, frozen while paused), and the frame and cursor of
 * STARTED and ENDED events for every way a voice ends.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_dsp.h"
#include "hl_limits.h"
#include "mix_helpers.h"

#define LEVEL  0.5f   /* DC test level, below the limiter threshold */
#define RS     5e-4f  /* ramp source: sample i = i * RS */
#define RAMP_N 48000u /* ramp source length */
#define DIST   10.0f  /* 3D test source distance, straight ahead */
#define BLOCK  256u
#define SOS    HL_SPEED_OF_SOUND

static float *new_out(uint32_t frames) {
    float *o = calloc(2 * (size_t)frames, sizeof(float));
    assert_non_null(o);
    return o;
}

/* A mixer with a chosen speed of sound (test_mixer_new uses the default). */
typedef struct {
    void *mem;
    hl_mixer_t *m;
} own_mixer_t;

static own_mixer_t mixer_sos(float sos) {
    hl_mixer_config_t cfg = {.rate = TEST_RATE, .voices = 8, .speed_of_sound = sos};
    size_t size = hl_mixer_size(&cfg);
    assert_true(size > 0);
    own_mixer_t o = {malloc(size), NULL};
    assert_non_null(o.mem);
    o.m = hl_mixer_init(o.mem, size, &cfg);
    assert_non_null(o.m);
    return o;
}

/* 3D ramp voice straight ahead at DIST, inverse model (gain 1 / DIST). */
static hl_voice_params_t params_3d(const hl_pcm_t *pcm) {
    hl_voice_params_t p = test_params(pcm);
    p.flags = HL_MIX_3D;
    p.model = HL_MIX_DIST_INVERSE;
    p.pos[2] = -DIST;
    return p;
}

/* Left-channel slope per frame over [a, b). */
static double slope(const float *out, uint32_t a, uint32_t b) {
    return ((double)out[2 * b] - (double)out[2 * a]) / (double)(b - a);
}

/* Playback rate of the 3D ramp voice with source velocity vel (along z),
 * listener velocity lvel (along z), Doppler factor df, in a mixer with speed
 * of sound sos: its slope over the ramp's slope at rate 1. The velocities
 * are in place before the voice starts, so no smoothing is involved. */
static double doppler_rate(float df, float vel, float lvel, float sos) {
    const hl_pcm_t *ramp = test_pcm_ramp(RAMP_N, RS);
    float *out = new_out(4400);
    double rate[2];
    for (int ref = 0; ref < 2; ref++) {
        own_mixer_t o = mixer_sos(sos);
        uint64_t now = 0;
        hl_listener_state_t lis;
        hl_mixer_get_listener(o.m, &lis);
        lis.vel[2] = lvel;
        assert_int_equal(hl_mixer_set_listener(o.m, &lis, now), 0);
        hl_voice_params_t p = params_3d(ramp);
        p.vel[2] = vel;
        p.doppler_factor = ref ? 0.0f : df;
        assert_int_equal(hl_mixer_play(o.m, &p, now, NULL, NULL), 0);
        test_render(o.m, out, 4400, BLOCK, &now);
        rate[ref] = slope(out, 256, 4352);
        free(o.mem);
    }
    free(out);
    test_pcm_free((hl_pcm_t *)ramp);
    return rate[0] / rate[1];
}

typedef struct {
    hl_stream_t s;
    float storage[];
} tstream_t;

static hl_stream_t *stream_new(uint32_t cap) {
    size_t bytes = hl_stream_size(cap, 1);
    size_t total = (sizeof(tstream_t) + bytes + 63) / 64 * 64;
    tstream_t *t = aligned_alloc(64, total);
    assert_non_null(t);
    assert_int_equal(hl_stream_init(&t->s, t->storage, cap, 1), 0);
    return &t->s;
}

/* ---- Doppler ------------------------------------------------------------------ */

static void test_doppler_formula(void **state) {
    (void)state;
    /* source approaching at SOS / 10 (moving +z towards the listener): 1/0.9 */
    assert_float_equal(doppler_rate(1.0f, SOS / 10.0f, 0.0f, 0.0f), 1.0 / 0.9, 1e-5);
    /* receding at SOS / 10: 1/1.1 */
    assert_float_equal(doppler_rate(1.0f, -SOS / 10.0f, 0.0f, 0.0f), 1.0 / 1.1, 1e-5);
    /* listener moving towards the still source at SOS / 10: 1.1; away: 0.9 */
    assert_float_equal(doppler_rate(1.0f, 0.0f, -SOS / 10.0f, 0.0f), 1.1, 1e-5);
    assert_float_equal(doppler_rate(1.0f, 0.0f, SOS / 10.0f, 0.0f), 0.9, 1e-5);
    /* both approaching: (c + c/10) / (c - c/10) */
    assert_float_equal(doppler_rate(1.0f, SOS / 10.0f, -SOS / 10.0f, 0.0f), 1.1 / 0.9, 1e-5);
    /* factor 2 doubles the velocities' effect: 1 / (1 - 0.2) */
    assert_float_equal(doppler_rate(2.0f, SOS / 10.0f, 0.0f, 0.0f), 1.25, 1e-5);
    /* the configured speed of sound: 10 m/s towards a 100 m/s medium gives 1.1 */
    assert_float_equal(doppler_rate(1.0f, 0.0f, -10.0f, 100.0f), 1.1, 1e-5);
    /* clamps: to HL_DOPPLER_MAX approaching, HL_DOPPLER_MIN receding, and at or
     * past the speed of sound (the velocity is clamped to SOS / df first) */
    assert_float_equal(doppler_rate(1.0f, 0.9f * SOS, 0.0f, 0.0f), HL_DOPPLER_MAX, 1e-6);
    assert_float_equal(doppler_rate(1.0f, 3.0f * SOS, 0.0f, 0.0f), HL_DOPPLER_MAX, 1e-6);
    assert_float_equal(doppler_rate(1.0f, -5.0f * SOS, 0.0f, 0.0f), HL_DOPPLER_MIN, 1e-6);
    assert_float_equal(doppler_rate(1.0f, 0.0f, 0.6f * SOS, 0.0f), HL_DOPPLER_MIN, 1e-6);
}

/* The spec's example: 34.33 m/s towards the listener, factor 1: 1.1111. */
static void test_doppler_approaching(void **state) {
    (void)state;
    assert_float_equal(doppler_rate(1.0f, 34.33f, 0.0f, 0.0f), 343.3 / (343.3 - 34.33), 1e-5);
}

/* doppler_factor 0: exactly pitch 1 whatever moves, bit for bit the output of
 * a voice with no velocities at all (the copy path). */
static void test_doppler_factor_zero(void **state) {
    (void)state;
    hl_pcm_t *ramp = test_pcm_ramp(RAMP_N, RS);
    float *a = new_out(2048), *b = new_out(2048);
    for (int moving = 0; moving < 2; moving++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        uint64_t now = 0;
        if (moving) {
            hl_listener_state_t lis;
            hl_mixer_get_listener(m, &lis);
            lis.vel[2] = -50.0f;
            assert_int_equal(hl_mixer_set_listener(m, &lis, now), 0);
        }
        hl_voice_params_t p = params_3d(ramp);
        if (moving) p.vel[2] = 80.0f;
        p.doppler_factor = 0.0f;
        uint64_t v;
        assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
        test_render(m, moving ? b : a, 1024, BLOCK, &now);
        hl_voice_set_t s = {.mask = HL_MIX_SET_VEL, .vel = {0.0f, 0.0f, moving ? 120.0f : 0.0f}};
        assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
        test_render(m, (moving ? b : a) + 2 * 1024, 1024, BLOCK, &now);
        test_mixer_free(m);
    }
    assert_memory_equal(a, b, 2 * 2048 * sizeof(float));
    /* and that is rate 1: sample k is the ramp's sample k times the gain */
    const float g = (1.0f / DIST) * 0.70710678f;
    for (uint32_t k = 0; k < 2048; k += 97)
        assert_float_equal(a[2 * k], g * RS * (float)k, 1e-6f);
    test_pcm_free(ramp);
    free(a);
    free(b);
}

/* A velocity jump glides: per HL_PITCH_GRID cell the rate moves by a small
 * fraction of the jump (one-pole, ~30 ms), never in one step, and lands
 * exactly on the formula's value. The same with another process call size. */
#define SM_PRE   1024u
#define SM_AFTER 20480u
static void render_vel_jump(uint32_t chunk, float *out) {
    hl_pcm_t *ramp = test_pcm_ramp(RAMP_N, RS);
    hl_mixer_t *m = test_mixer_new(4, 0);
    uint64_t now = 0, v;
    hl_voice_params_t p = params_3d(ramp);
    p.doppler_factor = 1.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, SM_PRE, BLOCK, &now);
    hl_voice_set_t s = {.mask = HL_MIX_SET_VEL, .vel = {0.0f, 0.0f, 34.33f}};
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out + 2 * SM_PRE, SM_AFTER, chunk, &now);
    test_mixer_free(m);
    test_pcm_free(ramp);
}

static void test_doppler_smoothing(void **state) {
    (void)state;
    const double want = 343.3 / (343.3 - 34.33);
    float *out = new_out(SM_PRE + SM_AFTER + 1);
    render_vel_jump(BLOCK, out);
    const double unit = slope(out, 0, 1000); /* rate 1 before the jump */
    double prev = 1.0, max_step = 0.0, last = 0.0;
    for (uint32_t c = SM_PRE; c + HL_PITCH_GRID < SM_PRE + SM_AFTER; c += HL_PITCH_GRID) {
        double r = slope(out, c, c + HL_PITCH_GRID) / unit;
        if (c == SM_PRE) assert_float_equal(r, 1.0, 1e-3); /* the old rate for one cell */
        assert_true(r >= prev - 1e-3);                     /* monotone towards the target */
        max_step = fmax(max_step, fabs(r - prev));
        prev = last = r;
    }
    /* the unsmoothed jump would be 0.111 in one cell */
    assert_true(max_step > 1e-4 && max_step < 0.005);
    assert_float_equal(last, want, 1e-3);
    /* 50 ms after the jump it is still on its way (time constant ~30 ms) */
    double mid = slope(out, SM_PRE + 2400, SM_PRE + 2416) / unit;
    assert_true(mid > 1.02 && mid < want - 0.01);
    /* settled: exactly the formula (same rate as a voice started moving) */
    double end = slope(out, SM_PRE + SM_AFTER - 4097, SM_PRE + SM_AFTER - 1) / unit;
    assert_float_equal(end, doppler_rate(1.0f, 34.33f, 0.0f, 0.0f), 1e-5);
    assert_float_equal(end, want, 1e-5);

    /* the glide does not depend on the process call size */
    float *odd = new_out(SM_PRE + SM_AFTER + 1);
    render_vel_jump(37, odd);
    for (uint32_t k = 0; k < SM_PRE + SM_AFTER; k++)
        assert_float_equal(odd[2 * k], out[2 * k], 2e-6f);
    free(odd);
    free(out);
}

/* ---- HL_MIX_CLAMP ----------------------------------------------------------------- */

static void test_clamp_beyond_max(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, LEVEL);
    float *out = new_out(1024);
    float pl, pr;
    hl_pan_equal_power(0.0f, &pl, &pr);
    const float at_max =
        LEVEL * hl_distance_gain(HL_MIX_DIST_INVERSE, 100.0f, 1.0f, 100.0f, 1.0f) * pl;
    assert_true(at_max > 0.0f);
    hl_mixer_stats_t st;

    /* at 150 m with max 100: the gain at 100 m, mixed, not virtual */
    hl_mixer_t *m = test_mixer_new(4, 0);
    uint64_t now = 0, v;
    hl_voice_params_t p = params_3d(dc);
    p.flags |= HL_MIX_CLAMP;
    p.pos[2] = -150.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 512, BLOCK, &now);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.voices_mixed, 1);
    assert_int_equal(st.voices_virtual, 0);
    for (int k = 0; k < 512; k++)
        assert_float_equal(out[2 * k], at_max, 1e-7f);
    /* moved further, to 1 km, and back to exactly max distance: unchanged */
    hl_voice_set_t s = {.mask = HL_MIX_SET_POS, .pos = {0.0f, 0.0f, -1000.0f}, .ramp_frames = 1};
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out, 512, BLOCK, &now);
    assert_float_equal(out[2 * 511], at_max, 1e-7f);
    s.pos[2] = -100.0f;
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out, 512, BLOCK, &now);
    assert_float_equal(out[2 * 511], at_max, 1e-7f);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.voices_virtual, 0);
    test_mixer_free(m);

    /* without the flag: inaudible and virtual, as before */
    m = test_mixer_new(4, 0);
    p.flags = HL_MIX_3D;
    p.pos[2] = -150.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    test_render(m, out, 512, BLOCK, &now);
    hl_mixer_stats(m, &st);
    assert_int_equal(st.voices_virtual, 1);
    for (int k = 0; k < 2 * 512; k++)
        assert_true(out[k] == 0.0f);
    test_mixer_free(m);
    test_pcm_free(dc);
    free(out);
}

/* ---- start_frame -------------------------------------------------------------------- */

/* 2D hard left: the left output is the mono source itself. */
static hl_voice_params_t params_left(const hl_pcm_t *pcm) {
    hl_voice_params_t p = test_params(pcm);
    p.pan = -1.0f;
    return p;
}

static void test_start_frame(void **state) {
    (void)state;
    hl_pcm_t *ramp = test_pcm_ramp(1000, 5e-4f); /* below the limiter */
    float *out = new_out(2048);
    test_events_t log = {0};

    /* one-shot from frame 700: pcm[700 ..], then it ends at frame 300 */
    hl_mixer_t *m = test_mixer_new(4, 0);
    uint64_t now = 0, v;
    hl_voice_params_t p = params_left(ramp);
    p.start_frame = 700;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 512, BLOCK, &now);
    for (int k = 0; k < 300; k++)
        assert_true(out[2 * k] == ramp->data[700 + k]);
    for (int k = 300; k < 512; k++)
        assert_true(out[2 * k] == 0.0f);
    test_poll(m, &log);
    assert_int_equal(test_end_reason(&log, v), HL_MIX_END_FINISHED);
    test_mixer_free(m);

    /* looping [200, 600) from frame 500, inside the region: 500..599, then
     * the region again and again */
    m = test_mixer_new(4, 0);
    p.flags = HL_MIX_LOOP;
    p.loop_start = 200;
    p.loop_end = 600;
    p.start_frame = 500;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 2048, 100, &now);
    for (uint32_t k = 0; k < 2048; k++) {
        uint32_t f = k < 100 ? 500 + k : 200 + (k - 100) % 400;
        assert_true(out[2 * k] == ramp->data[f]);
    }
    test_mixer_free(m);

    /* loop_count 1 from inside the region: the partial pass, one more pass
     * (started inside counts as not yet wrapped), then on to the end */
    m = test_mixer_new(4, 0);
    memset(&log, 0, sizeof log);
    p.flags = 0;
    p.loop_count = 1;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 1024, BLOCK, &now);
    for (uint32_t k = 0; k < 900; k++) {
        uint32_t f = k < 100 ? 500 + k : k < 500 ? 200 + (k - 100) : 600 + (k - 500);
        assert_true(out[2 * k] == ramp->data[f]);
    }
    assert_true(out[2 * 900] == 0.0f);
    test_poll(m, &log);
    assert_int_equal(test_end_reason(&log, v), HL_MIX_END_FINISHED);
    test_mixer_free(m);

    /* a looping voice started past its loop region plays on to the end */
    m = test_mixer_new(4, 0);
    p.flags = HL_MIX_LOOP;
    p.loop_count = 0;
    p.start_frame = 800;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 512, BLOCK, &now);
    for (int k = 0; k < 200; k++)
        assert_true(out[2 * k] == ramp->data[800 + k]);
    assert_true(out[2 * 200] == 0.0f);

    /* validation: start_frame < frames; streams must start at 0 */
    p.start_frame = 1000;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), HELIOD_EINVAL);
    p.start_frame = 999;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    hl_stream_t *st = stream_new(64);
    hl_voice_params_t ps = test_params(NULL);
    ps.stream = st;
    ps.start_frame = 1;
    assert_int_equal(hl_mixer_play(m, &ps, now, NULL, NULL), HELIOD_EINVAL);
    test_mixer_free(m);
    free(st);
    test_pcm_free(ramp);
    free(out);
}

/* ---- fade curves ---------------------------------------------------------------------- */

/* Envelope of a hard-left DC voice: out / LEVEL. Sample k carries the
 * envelope after k + 1 frames. */
static float env_at(const float *out, uint32_t k) {
    return out[2 * k] / LEVEL;
}

static void test_fade_in_curves(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, LEVEL);
    float *out = new_out(4800);
    const uint32_t len = 4800;
    for (uint32_t curve = HL_FADE_LINEAR; curve <= HL_FADE_LOG; curve++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        uint64_t now = 0;
        hl_voice_params_t p = params_left(dc);
        p.attack_frames = len;
        p.attack_curve = curve;
        assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
        test_render(m, out, len, 100, &now);
        const float q = env_at(out, len / 4 - 1), h = env_at(out, len / 2 - 1);
        switch (curve) {
        case HL_FADE_LINEAR:
            assert_float_equal(q, 0.25f, 1e-6f);
            assert_float_equal(h, 0.5f, 1e-6f);
            break;
        case HL_FADE_EQUAL_POWER:
            assert_float_equal(q, sinf((float)TEST_PI / 8.0f), 1e-5f);
            assert_float_equal(h, 0.70710678f, 1e-5f);
            /* between the exact points: within a hair of the curve */
            for (uint32_t k = 0; k < len; k += 7)
                assert_float_equal(env_at(out, k),
                                   sinf((float)(k + 1) / (float)len * (float)TEST_PI / 2.0f),
                                   1e-4f);
            break;
        case HL_FADE_LOG:
            assert_float_equal(hl_lin_to_db(h), -30.0f, 0.01f);
            assert_float_equal(hl_lin_to_db(q), -45.0f, 0.01f);
            assert_float_equal(hl_lin_to_db(env_at(out, 3 * len / 4 - 1)), -15.0f, 0.01f);
            break;
        default: break;
        }
        assert_float_equal(env_at(out, len - 1), 1.0f, 1e-6f); /* lands on 1 */
        for (uint32_t k = 1; k < len; k++)                     /* rising, no step */
            assert_true(env_at(out, k) >= env_at(out, k - 1) &&
                        env_at(out, k) - env_at(out, k - 1) < 0.002f);
        test_mixer_free(m);
    }
    /* a bad curve */
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = params_left(dc);
    p.attack_frames = 10;
    p.attack_curve = 3;
    assert_int_equal(hl_mixer_play(m, &p, 0, NULL, NULL), HELIOD_EINVAL);
    test_mixer_free(m);
    test_pcm_free(dc);
    free(out);
}

static void test_fade_out_curves(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, LEVEL);
    float *out = new_out(4800 + BLOCK);
    const uint32_t len = 4800;
    for (uint32_t curve = HL_FADE_LINEAR; curve <= HL_FADE_LOG; curve++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        uint64_t now = 0, v;
        test_events_t log = {0};
        hl_voice_params_t p = params_left(dc);
        assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
        test_render(m, out, BLOCK, BLOCK, &now);
        assert_int_equal(hl_mixer_stop_curve(m, v, len, 6, curve, now), 0);
        test_render(m, out, len + BLOCK, 128, &now);
        const float h = env_at(out, len / 2 - 1);
        switch (curve) {
        case HL_FADE_LINEAR: assert_float_equal(h, 0.5f, 1e-6f); break;
        case HL_FADE_EQUAL_POWER:
            assert_float_equal(h, 0.70710678f, 1e-5f);
            assert_float_equal(env_at(out, len / 4 - 1), cosf((float)TEST_PI / 8.0f), 1e-5f);
            break;
        case HL_FADE_LOG:
            assert_float_equal(hl_lin_to_db(h), -30.0f, 0.01f);
            assert_float_equal(hl_lin_to_db(env_at(out, len / 4 - 1)), -15.0f, 0.01f);
            assert_true(hl_lin_to_db(env_at(out, len - 2 * HL_FADE_GRID - 1)) < -59.0f);
            break;
        default: break;
        }
        for (uint32_t k = 1; k < len; k++) /* falling, no step */
            assert_true(env_at(out, k) <= env_at(out, k - 1) &&
                        env_at(out, k - 1) - env_at(out, k) < 0.002f);
        assert_true(out[2 * (len - 1)] < 1e-6f);
        assert_true(out[2 * len] == 0.0f); /* ended */
        test_poll(m, &log);
        assert_int_equal(test_end_reason(&log, v), 6); /* opaque reason, unchanged */
        test_mixer_free(m);
    }
    hl_mixer_t *m = test_mixer_new(4, 0);
    uint64_t v;
    hl_voice_params_t p = params_left(dc);
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    assert_int_equal(hl_mixer_stop_curve(m, v, 100, HL_MIX_END_STOPPED, 3, 0), HELIOD_EINVAL);
    test_mixer_free(m);
    test_pcm_free(dc);
    free(out);
}

/* A fade-out during a fade-in starts where the level is: no step. */
static void test_fade_out_mid_fade_in(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(48000, 1, LEVEL);
    float *out = new_out(8192);
    for (uint32_t in = HL_FADE_LINEAR; in <= HL_FADE_LOG; in++)
        for (uint32_t fo = HL_FADE_LINEAR; fo <= HL_FADE_LOG; fo++) {
            hl_mixer_t *m = test_mixer_new(4, 0);
            uint64_t now = 0, v;
            hl_voice_params_t p = params_left(dc);
            p.attack_frames = 4800;
            p.attack_curve = in;
            assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
            test_render(m, out, 2000, 100, &now); /* mid fade-in, mid grid cell */
            const float before = env_at(out, 1999), rise = before - env_at(out, 1998);
            assert_int_equal(hl_mixer_stop_curve(m, v, 2400, HL_MIX_END_STOPPED, fo, now), 0);
            test_render(m, out, 2600, 100, &now);
            /* the first frame of the fade-out is one step from the level, no
             * larger than the steps around it */
            const float fall = env_at(out, 0) - env_at(out, 1);
            assert_true(fabsf(env_at(out, 0) - before) <= 1.5f * fmaxf(rise, fall) + 1e-6f);
            for (uint32_t k = 1; k < 2400; k++)
                assert_true(env_at(out, k) <= env_at(out, k - 1) + 1e-7f &&
                            env_at(out, k - 1) - env_at(out, k) < 0.003f);
            assert_true(out[2 * 2399] < 1e-6f);
            assert_true(out[2 * 2400] == 0.0f);
            test_mixer_free(m);
        }
    test_pcm_free(dc);
    free(out);
}

/* A paused voice holds its cursor and its fades: after the pause the source
 * resumes where it stopped and the fade-in left is not advanced. */
static void test_fades_frozen_while_paused(void **state) {
    (void)state;
    hl_pcm_t *ramp = test_pcm_ramp(48000, 1e-5f);
    float *out = new_out(8192);
    hl_mixer_t *m = test_mixer_new(4, 0);
    uint64_t now = 0, v;
    hl_voice_params_t p = params_left(ramp);
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 1024, BLOCK, &now);
    /* a slow seek: fade out 64, jump, fade in 64; pause inside the fade-in */
    hl_voice_set_t s = {.mask = HL_MIX_SET_SEEK, .seek_frame = 20000};
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out, HL_SEEK_FADE + 32, HL_SEEK_FADE + 32, &now);
    const float mid = out[2 * (HL_SEEK_FADE + 31)]; /* 32 frames into the fade-in */
    assert_float_equal(mid, ramp->data[20031] * 32.0f / HL_SEEK_FADE_IN, 1e-6f);
    hl_voice_set_t ps = {.mask = HL_MIX_SET_PAUSE, .ramp_frames = 1};
    assert_int_equal(hl_mixer_set(m, v, &ps, now), 0);
    test_render(m, out, 4096, BLOCK, &now);
    for (int k = 0; k < 2 * 4096; k++)
        assert_true(out[k] == 0.0f);
    hl_voice_set_t rs = {.mask = HL_MIX_SET_RESUME, .ramp_frames = 1};
    assert_int_equal(hl_mixer_set(m, v, &rs, now), 0);
    test_render(m, out, 256, BLOCK, &now);
    /* the paused frame was 20032 (one frame of the pause fade); the seek's
     * fade-in goes on from 33/64 */
    assert_float_equal(out[2 * 0], ramp->data[20033] * 34.0f / HL_SEEK_FADE_IN, 1e-6f);
    assert_float_equal(out[2 * 100], ramp->data[20133], 1e-6f);
    test_mixer_free(m);
    test_pcm_free(ramp);
    free(out);
}

/* ---- events: frame and cursor ----------------------------------------------------------- */

static const hl_mix_event_t *find_ev(const test_events_t *log, uint32_t type, uint64_t v) {
    for (size_t i = 0; i < log->n; i++)
        if (log->ev[i].type == type && log->ev[i].voice == v) return &log->ev[i];
    return NULL;
}

static uint64_t engine_frames(hl_mixer_t *m) {
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    return st.frames;
}

static void test_event_frames_pcm(void **state) {
    (void)state;
    hl_pcm_t *one = test_pcm_dc(500, 1, LEVEL), *loop = test_pcm_dc(1000, 1, LEVEL);
    float *out = new_out(4096);
    hl_mixer_t *m = test_mixer_new(4, 0);
    uint64_t now = 0, a, b, c, d;
    test_events_t log = {0};
    test_render(m, out, 1000, 250, &now);
    assert_int_equal(engine_frames(m), 1000);

    /* a: one-shot of 500 from frame 1000, blocks of 256: last block ends at 1512 */
    hl_voice_params_t p = params_left(one);
    assert_int_equal(hl_mixer_play(m, &p, now, &a, NULL), 0);
    /* b: loop of 1000 frames started at its frame 300, stopped later */
    p = params_left(loop);
    p.flags = HL_MIX_LOOP;
    p.start_frame = 300;
    assert_int_equal(hl_mixer_play(m, &p, now, &b, NULL), 0);
    /* c: started paused, resumed later */
    p.flags = HL_MIX_LOOP | HL_MIX_PAUSED;
    p.start_frame = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &c, NULL), 0);
    test_render(m, out, 1024, BLOCK, &now); /* engine at 2024 */
    test_poll(m, &log);
    const hl_mix_event_t *e = find_ev(&log, HL_MIX_EV_STARTED, a);
    assert_non_null(e);
    assert_int_equal(e->frame, 1000);
    assert_non_null(find_ev(&log, HL_MIX_EV_STARTED, b));
    assert_int_equal(find_ev(&log, HL_MIX_EV_STARTED, b)->frame, 1000);
    assert_null(find_ev(&log, HL_MIX_EV_STARTED, c));
    e = find_ev(&log, HL_MIX_EV_ENDED, a);
    assert_non_null(e);
    assert_int_equal(e->reason, HL_MIX_END_FINISHED);
    assert_int_equal(e->frame, 1512);
    assert_int_equal(e->cursor, 500);

    /* b stopped at 2024 with a 64-frame fade: ends in the block [2024, 2280);
     * its cursor is where it stands at 2280: 300 + 1280 frames, wrapped */
    hl_voice_set_t rs = {.mask = HL_MIX_SET_RESUME, .ramp_frames = 1};
    assert_int_equal(hl_mixer_set(m, c, &rs, now), 0);
    assert_int_equal(hl_mixer_stop(m, b, 64, HL_MIX_END_STOPPED, now), 0);
    test_render(m, out, 512, BLOCK, &now); /* engine at 2536 */
    memset(&log, 0, sizeof log);
    test_poll(m, &log);
    e = find_ev(&log, HL_MIX_EV_ENDED, b);
    assert_non_null(e);
    assert_int_equal(e->reason, HL_MIX_END_STOPPED);
    assert_int_equal(e->frame, 2280);
    assert_int_equal(e->cursor, (300 + 1280) % 1000);
    e = find_ev(&log, HL_MIX_EV_STARTED, c);
    assert_non_null(e);
    assert_int_equal(e->frame, 2024);

    /* c paused at 2536 (fade of 1 frame: its cursor holds at 513), stopped
     * while paused at 3048: it ends without playing in that block */
    hl_voice_set_t ps = {.mask = HL_MIX_SET_PAUSE, .ramp_frames = 1};
    assert_int_equal(hl_mixer_set(m, c, &ps, now), 0);
    test_render(m, out, 512, BLOCK, &now);
    assert_int_equal(hl_mixer_stop(m, c, 0, 7, now), 0); /* opaque reason 7 */
    test_render(m, out, 256, BLOCK, &now);
    memset(&log, 0, sizeof log);
    test_poll(m, &log);
    e = find_ev(&log, HL_MIX_EV_ENDED, c);
    assert_non_null(e);
    assert_int_equal(e->reason, 7);
    assert_int_equal(e->frame, 3048);
    assert_int_equal(e->cursor, 513);

    /* d: pitch 2 one-shot: the cursor stays at the end of the pcm */
    p = params_left(one);
    p.pitch = 2.0f;
    assert_int_equal(hl_mixer_play(m, &p, now, &d, NULL), 0);
    test_render(m, out, 512, BLOCK, &now);
    memset(&log, 0, sizeof log);
    test_poll(m, &log);
    e = find_ev(&log, HL_MIX_EV_ENDED, d);
    assert_non_null(e);
    assert_int_equal(e->frame, 3304 + BLOCK); /* 250 frames played in [3304, 3560) */
    assert_int_equal(e->cursor, 500);
    test_mixer_free(m);
    test_pcm_free(one);
    test_pcm_free(loop);
    free(out);
}

/* Every end path carries frame and cursor, and any reason code unchanged. */
static void test_event_frames_stolen_and_reasons(void **state) {
    (void)state;
    hl_pcm_t *loop = test_pcm_dc(1000, 1, LEVEL);
    float *out = new_out(1024);
    hl_mixer_t *m = test_mixer_new(1, 0);
    uint64_t now = 0, a, b, st;
    test_events_t log = {0};
    hl_voice_params_t p = params_left(loop);
    p.flags = HL_MIX_LOOP;
    assert_int_equal(hl_mixer_play(m, &p, now, &a, NULL), 0);
    test_render(m, out, 512, BLOCK, &now);
    p.priority = 1;
    assert_int_equal(hl_mixer_play(m, &p, now, &b, &st), 0);
    assert_true(st == a);
    test_render(m, out, 256, BLOCK, &now);
    test_poll(m, &log);
    const hl_mix_event_t *e = find_ev(&log, HL_MIX_EV_ENDED, a);
    assert_non_null(e);
    assert_int_equal(e->reason, HL_MIX_END_STOLEN);
    assert_int_equal(e->frame, 768);
    assert_int_equal(e->cursor, 768);
    test_mixer_free(m);

    /* reasons 3..8, including the ones the mixer does not know */
    for (uint32_t reason = HL_MIX_END_OWNER; reason <= 8; reason++) {
        m = test_mixer_new(1, 0);
        memset(&log, 0, sizeof log);
        now = 0;
        assert_int_equal(hl_mixer_play(m, &p, now, &a, NULL), 0);
        test_render(m, out, 256, BLOCK, &now);
        assert_int_equal(hl_mixer_stop_curve(m, a, 128, (int)reason, HL_FADE_EQUAL_POWER, now), 0);
        test_render(m, out, 512, BLOCK, &now);
        test_poll(m, &log);
        e = find_ev(&log, HL_MIX_EV_ENDED, a);
        assert_non_null(e);
        assert_int_equal(e->reason, reason);
        assert_int_equal(e->frame, 512);
        assert_int_equal(e->cursor, 512);
        test_mixer_free(m);
    }
    test_pcm_free(loop);
    free(out);
}

static void test_event_cursor_stream(void **state) {
    (void)state;
    float *src = calloc(4000, sizeof(float));
    float *out = new_out(2048);
    for (int i = 0; i < 4000; i++)
        src[i] = LEVEL;
    /* finished stream of 1000 frames: cursor 1000 */
    hl_stream_t *s = stream_new(8192);
    assert_int_equal(hl_stream_write(s, src, 1000), 1000);
    hl_stream_finish(s);
    hl_mixer_t *m = test_mixer_new(4, 0);
    uint64_t now = 0, v;
    test_events_t log = {0};
    hl_voice_params_t p = test_params(NULL);
    p.stream = s;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 2048, BLOCK, &now);
    test_poll(m, &log);
    const hl_mix_event_t *e = find_ev(&log, HL_MIX_EV_ENDED, v);
    assert_non_null(e);
    assert_int_equal(e->reason, HL_MIX_END_FINISHED);
    assert_int_equal(e->frame, 1024);
    assert_int_equal(e->cursor, 1000);
    test_mixer_free(m);
    free(s);

    /* stopped at 512 with a 64-frame fade: 768 frames pulled at its ENDED frame */
    s = stream_new(8192);
    assert_int_equal(hl_stream_write(s, src, 4000), 4000);
    m = test_mixer_new(4, 0);
    memset(&log, 0, sizeof log);
    now = 0;
    p.stream = s;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    test_render(m, out, 512, BLOCK, &now);
    assert_int_equal(hl_mixer_stop(m, v, 64, HL_MIX_END_SHUTDOWN, now), 0);
    test_render(m, out, 512, BLOCK, &now);
    test_poll(m, &log);
    e = find_ev(&log, HL_MIX_EV_ENDED, v);
    assert_non_null(e);
    assert_int_equal(e->reason, HL_MIX_END_SHUTDOWN);
    assert_int_equal(e->frame, 768);
    assert_int_equal(e->cursor, 768);
    test_mixer_free(m);
    free(s);
    free(src);
    free(out);
}

static void test_validation(void **state) {
    (void)state;
    hl_mixer_config_t cfg = {.rate = TEST_RATE, .voices = 4, .speed_of_sound = -1.0f};
    assert_int_equal(hl_mixer_size(&cfg), 0);
    cfg.speed_of_sound = NAN;
    assert_int_equal(hl_mixer_size(&cfg), 0);
    hl_pcm_t *dc = test_pcm_dc(100, 1, LEVEL);
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = params_3d(dc);
    uint64_t v;
    p.doppler_factor = -1.0f;
    assert_int_equal(hl_mixer_play(m, &p, 0, NULL, NULL), HELIOD_EINVAL);
    p.doppler_factor = 1.0f;
    p.vel[1] = INFINITY;
    assert_int_equal(hl_mixer_play(m, &p, 0, NULL, NULL), HELIOD_EINVAL);
    p.vel[1] = 0.0f;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    hl_voice_set_t s = {.mask = HL_MIX_SET_VEL, .vel = {NAN, 0.0f, 0.0f}};
    assert_int_equal(hl_mixer_set(m, v, &s, 0), HELIOD_EINVAL);
    s.vel[0] = 3.0f;
    assert_int_equal(hl_mixer_set(m, v, &s, 0), 0);
    hl_voice_view_t view;
    assert_int_equal(hl_mixer_voice(m, v, &view), 0);
    assert_true(view.params.vel[0] == 3.0f);
    test_mixer_free(m);
    test_pcm_free(dc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doppler_formula),
        cmocka_unit_test(test_doppler_approaching),
        cmocka_unit_test(test_doppler_factor_zero),
        cmocka_unit_test(test_doppler_smoothing),
        cmocka_unit_test(test_clamp_beyond_max),
        cmocka_unit_test(test_start_frame),
        cmocka_unit_test(test_fade_in_curves),
        cmocka_unit_test(test_fade_out_curves),
        cmocka_unit_test(test_fade_out_mid_fade_in),
        cmocka_unit_test(test_fades_frozen_while_paused),
        cmocka_unit_test(test_event_frames_pcm),
        cmocka_unit_test(test_event_frames_stolen_and_reasons),
        cmocka_unit_test(test_event_cursor_stream),
        cmocka_unit_test(test_validation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
