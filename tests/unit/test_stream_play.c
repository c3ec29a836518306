/*
 * test_stream_play.c - unit tests of how streaming voices play, and the
 * newer mixer features with them: seamless loop points, loop counts, loop
 * crossfades, click-free seeks that land on their frame, stream switches,
 * pause holding fades, the events that hand streams back, pitch ramps
 * independent of the call size, and the cubic interpolator (more accurate
 * than linear, SIMD == portable). The ring and what feeds it:
 * test_stream.c.
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
#include "hl_stream.h"
#include "mix_helpers.h"
#include "stream_helpers.h"

/* ---- loops ---------------------------------------------------------------------- */

/* A sine of period 120 frames over 1000 frames, looped on [100, 580): four
 * whole periods, so the loop's ends join. */
static void check_loop_points(float pitch, int cubic, uint32_t chunk) {
    const uint32_t len = 1000, ls = 100, le = 580, frames = 9000;
    const double cyc = 1.0 / 120.0;
    hl_pcm_t *snd = test_pcm_sine(len, 1, cyc, 0.0, 0.8f);
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(snd);
    p.pan = -1.0f;
    p.pitch = pitch;
    p.flags = HL_MIX_LOOP | (cubic ? HL_MIX_CUBIC : 0);
    p.loop_start = ls;
    p.loop_end = le;
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = new_out(frames);
    test_render(m, out, frames, chunk, &now);
    /* the sine's own largest step at this pitch, plus interpolation slack */
    const double own = 0.8 * 2.0 * TEST_PI * cyc * pitch;
    double maxstep = 0.0, maxerr = 0.0;
    /* from the 4th frame: before it the cubic reads the silence before frame 0 */
    for (uint32_t t = HL_INTERP_TAPS; t + 1 < frames; t++)
        maxstep = fmax(maxstep, fabs((double)out[2 * t + 2] - out[2 * t]));
    for (uint32_t t = HL_INTERP_TAPS; t < frames; t++) {
        double x = (double)t * pitch;
        if (x >= le) x = ls + fmod(x - ls, le - ls);
        maxerr = fmax(maxerr, fabs(out[2 * t] - 0.8 * sin(2.0 * TEST_PI * cyc * x)));
    }
    if (maxstep > own * 1.02 + 1e-4 || maxerr > 2e-3)
        fail_msg("pitch %g cubic %d: step %g (sine %g) err %g", (double)pitch, cubic, maxstep, own,
                 maxerr);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(test_count(&log, HL_MIX_EV_ENDED, v), 0);
    test_mixer_free(m);
    test_pcm_free(snd);
    free(out);
}

static void test_loop_points_seamless(void **state) {
    (void)state;
    const float pitches[] = {1.0f, 0.7f, 1.37f, 2.0f, 3.9f, 0.25f};
    for (size_t i = 0; i < sizeof pitches / sizeof pitches[0]; i++)
        for (int cubic = 0; cubic < 2; cubic++)
            check_loop_points(pitches[i], cubic, i % 2 ? 100 : 333);
}

static void test_loop_count(void **state) {
    (void)state;
    const uint32_t len = 1000, ls = 200, le = 400, frames = 3000;
    const float sc = 1e-4f;
    hl_pcm_t *ramp = test_pcm_ramp(len, sc);
    float *out = new_out(frames);
    for (uint32_t n = 1; n <= 3; n++)
        for (int flag = 0; flag < 2; flag++) {
            hl_mixer_t *m = test_mixer_new(4, 0);
            hl_voice_params_t p = test_params(ramp);
            p.pan = -1.0f;
            p.flags = flag ? HL_MIX_LOOP : 0; /* a count loops with or without the flag */
            p.loop_start = ls;
            p.loop_end = le;
            p.loop_count = n;
            uint64_t v, now = 0;
            assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
            test_render(m, out, frames, 256, &now);
            /* expected: 0..le-1, then n passes of [ls, le), then le..len-1, then silence */
            uint32_t t = 0, starts = 0;
            for (uint32_t i = 0; i < le; i++, t++)
                assert_float_equal(out[2 * t], sc * (float)i, 1e-6f);
            for (uint32_t k = 0; k < n; k++)
                for (uint32_t i = ls; i < le; i++, t++)
                    assert_float_equal(out[2 * t], sc * (float)i, 1e-6f);
            for (uint32_t i = le; i < len; i++, t++)
                assert_float_equal(out[2 * t], sc * (float)i, 1e-6f);
            for (; t < frames; t++)
                assert_true(out[2 * t] == 0.0f);
            for (uint32_t i = 0; i < frames; i++)
                starts += fabsf(out[2 * i] - sc * (float)ls) < 1e-7f;
            assert_int_equal(starts, n + 1); /* the region's first frame plays n + 1 times */
            test_events_t log = {0};
            test_poll(m, &log);
            assert_int_equal(test_end_reason(&log, v), HL_MIX_END_FINISHED);
            test_mixer_free(m);
        }
    test_pcm_free(ramp);
    free(out);
}

/* A ramp looped on [200, 400) jumps by 200 samples at each wrap; a 50-frame
 * crossfade blends the tail into the frames before 200 and removes it. */
static void test_loop_xfade(void **state) {
    (void)state;
    const uint32_t frames = 3000;
    const float sc = 1e-3f;
    hl_pcm_t *ramp = test_pcm_ramp(1000, sc);
    float *out = new_out(frames);
    double steps[2];
    for (int xf = 0; xf < 2; xf++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        hl_voice_params_t p = test_params(ramp);
        p.pan = -1.0f;
        p.flags = HL_MIX_LOOP;
        p.loop_start = 200;
        p.loop_end = 400;
        p.loop_xfade = xf ? 50 : 0;
        p.pitch = 1.1f;
        uint64_t now = 0;
        assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
        test_render(m, out, frames, 256, &now);
        steps[xf] = 0.0;
        for (uint32_t t = 0; t + 1 < frames; t++)
            steps[xf] = fmax(steps[xf], fabs((double)out[2 * t + 2] - out[2 * t]));
        test_mixer_free(m);
    }
    assert_true(steps[0] > 150 * sc);       /* hard loop: a jump */
    assert_true(steps[1] < 6.0 * 1.1 * sc); /* crossfaded: a few samples' worth at most */
    /* out of range crossfades are refused */
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(ramp);
    p.loop_start = 200;
    p.loop_end = 400;
    p.loop_xfade = 201;
    assert_int_equal(hl_mixer_play(m, &p, 0, NULL, NULL), HELIOD_EINVAL);
    p.loop_xfade = 0;
    p.loop_end = 1001;
    assert_int_equal(hl_mixer_play(m, &p, 0, NULL, NULL), HELIOD_EINVAL);
    p.loop_end = 200;
    assert_int_equal(hl_mixer_play(m, &p, 0, NULL, NULL), HELIOD_EINVAL);
    test_mixer_free(m);
    test_pcm_free(ramp);
    free(out);
}

/* ---- seeks and switches --------------------------------------------------------------- */

static void test_seek(void **state) {
    (void)state;
    const uint32_t t0 = 1000, target = 30000, frames = 3000;
    const float sc = 1e-5f;
    hl_pcm_t *ramp = test_pcm_ramp(40000, sc);
    hl_pcm_t *sine = test_pcm_sine(40000, 1, 441.0 / TEST_RATE, 0.0, 0.8f);
    float *out = new_out(frames);
    for (int which = 0; which < 2; which++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        hl_voice_params_t p = test_params(which ? sine : ramp);
        p.pan = -1.0f;
        uint64_t v, now = 0;
        assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
        test_render(m, out, t0, 250, &now);
        hl_voice_set_t s = {.mask = HL_MIX_SET_SEEK, .seek_frame = target};
        assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
        test_render(m, out + 2 * t0, frames - t0, 97, &now);
        if (!which) {
            /* fade out at the old place, jump, fade in: then exactly the target frames */
            const uint32_t jump = t0 + HL_SEEK_FADE;
            for (uint32_t j = 0; j < HL_SEEK_FADE; j++) {
                float g = 1.0f - (float)(j + 1) / (float)HL_SEEK_FADE;
                assert_float_equal(out[2 * (t0 + j)], sc * (float)(t0 + j) * g, 1e-6f);
            }
            for (uint32_t t = jump; t < frames; t++) {
                uint32_t k = t - jump;
                float g = k < HL_SEEK_FADE_IN ? (float)(k + 1) / (float)HL_SEEK_FADE_IN : 1.0f;
                assert_float_equal(out[2 * t], sc * (float)(target + k) * g, 1e-6f);
            }
        } else {
            /* click-free: no step larger than the sine's own plus a fade step */
            double bound = 0.8 * 2.0 * TEST_PI * 441.0 / TEST_RATE + 0.8 / HL_SEEK_FADE_IN;
            for (uint32_t t = 0; t + 1 < frames; t++)
                assert_true(fabs((double)out[2 * t + 2] - out[2 * t]) <= bound);
        }
        /* a seek past the end, or on a stream voice, is refused */
        hl_voice_set_t bad = {.mask = HL_MIX_SET_SEEK, .seek_frame = 40000};
        assert_int_equal(hl_mixer_set(m, v, &bad, now), HELIOD_EINVAL);
        hl_stream_t *st = stream_new(16, 1);
        bad.mask = HL_MIX_SET_STREAM;
        bad.stream = st;
        assert_int_equal(hl_mixer_set(m, v, &bad, now), HELIOD_EINVAL);
        stream_free(st);
        test_mixer_free(m);
    }
    test_pcm_free(ramp);
    test_pcm_free(sine);
    free(out);
}

static int find_event(const test_events_t *log, uint32_t type, const hl_stream_t *s) {
    int n = 0;
    for (size_t i = 0; i < log->n; i++)
        if (log->ev[i].type == type && log->ev[i].stream == s) n++;
    return n;
}

/* Switches: the old stream fades out, the new one fades in from its start,
 * and every stream comes back exactly once (STREAM_RETIRED or ENDED). */
static void test_stream_switch(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_pcm_t *one = test_pcm_dc(CAP, 1, LEVEL), *two = test_pcm_dc(CAP, 1, -LEVEL);
    hl_stream_t *a = stream_new(CAP, 1), *b = stream_new(CAP, 1), *c = stream_new(CAP, 1);
    hl_stream_t *d = stream_new(CAP, 1), *stereo = stream_new(CAP, 2);
    uint32_t pa = 0, pb = 0, pc = 0, pd = 0;
    push(a, one, &pa, 4000);
    push(b, two, &pb, 4000);
    push(c, one, &pc, 4000);
    push(d, two, &pd, 4000);
    hl_voice_params_t p = stream_params(a);
    p.pan = -1.0f;
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = new_out(2000);
    test_render(m, out, 500, 500, &now);
    hl_voice_set_t s = {.mask = HL_MIX_SET_STREAM, .stream = stereo};
    assert_int_equal(hl_mixer_set(m, v, &s, now), HELIOD_EINVAL); /* channels differ */
    s.stream = a;
    assert_int_equal(hl_mixer_set(m, v, &s, now), HELIOD_EINVAL); /* already its source */
    s.stream = b;
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out, 1000, 128, &now);
    /* LEVEL fading out, then -LEVEL fading in, no jump bigger than a fade step */
    for (uint32_t j = 0; j < HL_SEEK_FADE; j++)
        assert_float_equal(out[2 * j], LEVEL * (1.0f - (float)(j + 1) / HL_SEEK_FADE), 1e-6f);
    for (uint32_t j = 0; j < HL_SEEK_FADE_IN; j++)
        assert_float_equal(out[2 * (HL_SEEK_FADE + j)], -LEVEL * (float)(j + 1) / HL_SEEK_FADE_IN,
                           1e-6f);
    assert_float_equal(out[2 * 900], -LEVEL, 1e-7f);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(find_event(&log, HL_MIX_EV_STREAM_RETIRED, a), 1);
    assert_int_equal(hl_stream_underruns(b), 0);

    /* two switches before the first one happened: c is retired unused */
    s.stream = c;
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    s.stream = d;
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_render(m, out, 1000, 1000, &now);
    assert_int_equal(hl_stream_consumed(c), 0);
    assert_true(hl_stream_consumed(d) > 0);
    assert_int_equal(hl_mixer_stop(m, v, 0, HL_MIX_END_STOPPED, now), 0);
    test_render(m, out, 512, 512, &now);
    memset(&log, 0, sizeof log);
    test_poll(m, &log);
    assert_int_equal(find_event(&log, HL_MIX_EV_STREAM_RETIRED, c), 1);
    assert_int_equal(find_event(&log, HL_MIX_EV_STREAM_RETIRED, b), 1);
    assert_int_equal(find_event(&log, HL_MIX_EV_ENDED, d), 1);
    assert_int_equal(find_event(&log, HL_MIX_EV_STREAM_RETIRED, d), 0);
    assert_int_equal(test_end_reason(&log, v), HL_MIX_END_STOPPED);
    hl_voice_set_t bad = {.mask = HL_MIX_SET_STREAM, .stream = a};
    assert_int_equal(hl_mixer_set(m, v, &bad, now), HELIOD_ENOVOICE);
    test_mixer_free(m);
    hl_stream_t *all[] = {a, b, c, d, stereo};
    for (int i = 0; i < 5; i++)
        stream_free(all[i]);
    test_pcm_free(one);
    test_pcm_free(two);
    free(out);
}

/* Switches in flight are capped so the event ring cannot fill; a voice that
 * ends while switches are queued still hands every stream back. */
static void test_switch_cap(void **state) {
    (void)state;
    enum { N = HL_STREAM_RETIRE_MAX + 1 };
    hl_mixer_t *m = test_mixer_new(1, 0);
    hl_stream_t *first = stream_new(16, 1);
    hl_stream_t **st = calloc(N, sizeof *st);
    for (int i = 0; i < N; i++)
        st[i] = stream_new(16, 1);
    hl_voice_params_t p = stream_params(first);
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    for (int i = 0; i < HL_STREAM_RETIRE_MAX; i++) {
        hl_voice_set_t s = {.mask = HL_MIX_SET_STREAM, .stream = st[i]};
        assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    }
    hl_voice_set_t s = {.mask = HL_MIX_SET_STREAM, .stream = st[N - 1]};
    assert_int_equal(hl_mixer_set(m, v, &s, now), HELIOD_EBUSY);
    assert_int_equal(hl_mixer_stop(m, v, 0, HL_MIX_END_STOPPED, now), 0);
    float out[2 * 256];
    for (int i = 0; i < 4; i++)
        test_render(m, out, 256, 256, &now);
    test_events_t *log = calloc(1, sizeof *log);
    int back = 0;
    size_t total = test_poll(m, log);                  /* the log keeps the first 256 */
    assert_int_equal(total, HL_STREAM_RETIRE_MAX + 2); /* retires + STARTED + ENDED */
    for (size_t i = 0; i < log->n; i++)
        back += log->ev[i].stream != NULL;
    assert_true(back >= 250);
    /* now polled: switches are accepted again (the voice is gone: ENOVOICE) */
    assert_int_equal(hl_mixer_set(m, v, &s, now), HELIOD_ENOVOICE);
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    test_mixer_free(m);
    for (int i = 0; i < N; i++)
        stream_free(st[i]);
    free(st);
    free(log);
    stream_free(first);
}

/* ---- pause ------------------------------------------------------------------------- */

/* A paused stream voice consumes nothing, counts no underrun and holds its
 * switch fade where it was. */
static void test_pause_holds_stream(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_pcm_t *dc = test_pcm_dc(CAP, 1, LEVEL);
    hl_stream_t *a = stream_new(CAP, 1), *b = stream_new(CAP, 1);
    uint32_t pa = 0, pb = 0;
    push(a, dc, &pa, 3000);
    push(b, dc, &pb, 3000);
    hl_voice_params_t p = stream_params(a);
    p.pan = -1.0f;
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = new_out(4096);
    test_render(m, out, 256, 256, &now);
    /* switch (fade of HL_SEEK_FADE) and pause at once, the pause faster */
    hl_voice_set_t s = {.mask = HL_MIX_SET_STREAM, .stream = b};
    assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
    hl_voice_set_t ps = {.mask = HL_MIX_SET_PAUSE, .ramp_frames = 16};
    assert_int_equal(hl_mixer_set(m, v, &ps, now), 0);
    test_render(m, out, 256, 256, &now);
    uint64_t ca = hl_stream_consumed(a);
    /* drain the rest of a's ring from the test: a paused voice must not mind */
    float junk[4096];
    (void)hl_stream_read_rt(a, junk, 4096);
    uint64_t ca_after = hl_stream_consumed(a);
    test_render(m, out, 4096, 500, &now);
    for (uint32_t t = 0; t < 4096; t++)
        assert_true(out[2 * t] == 0.0f);
    assert_int_equal(hl_stream_consumed(a), ca_after);
    assert_int_equal(hl_stream_consumed(b), 0);
    assert_int_equal(hl_stream_underruns(a), 0);
    assert_int_equal(underruns(m), 0);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(find_event(&log, HL_MIX_EV_STREAM_RETIRED, a), 0); /* fade held */
    (void)ca;
    /* resume: the switch fade finishes, b plays */
    hl_voice_set_t rs = {.mask = HL_MIX_SET_RESUME, .ramp_frames = 16};
    assert_int_equal(hl_mixer_set(m, v, &rs, now), 0);
    test_render(m, out, 1024, 256, &now);
    memset(&log, 0, sizeof log);
    test_poll(m, &log);
    assert_int_equal(find_event(&log, HL_MIX_EV_STREAM_RETIRED, a), 1);
    assert_true(hl_stream_consumed(b) > 0);
    assert_float_equal(out[2 * 1000], LEVEL, 1e-6f);
    test_mixer_free(m);
    stream_free(a);
    stream_free(b);
    test_pcm_free(dc);
    free(out);
}

/* ---- pitch ramps ------------------------------------------------------------------------ */

static void render_pitch_ramp(int streamed, uint32_t chunk, float *out, uint32_t frames) {
    hl_pcm_t *ramp = test_pcm_ramp(20000, 2e-5f);
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_stream_t *s = streamed ? stream_new(32768, 1) : NULL;
    uint32_t pos = 0;
    if (s) {
        push(s, ramp, &pos, ramp->frames);
        hl_stream_finish(s);
    }
    hl_voice_params_t p = s ? stream_params(s) : test_params(ramp);
    p.pan = -1.0f;
    p.pitch = 0.5f;
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    hl_voice_set_t set = {.mask = HL_MIX_SET_PITCH, .pitch = 3.5f, .ramp_frames = 3001};
    assert_int_equal(hl_mixer_set(m, v, &set, now), 0);
    test_render(m, out, frames, chunk, &now);
    test_mixer_free(m);
    if (s) stream_free(s);
    test_pcm_free(ramp);
}

static void test_pitch_ramp_exact(void **state) {
    (void)state;
    const uint32_t frames = 4000;
    const uint32_t chunks[] = {64, 100, 333, 1000, 17};
    float *ref = new_out(frames), *out = new_out(frames);
    render_pitch_ramp(0, 256, ref, frames);
    /* the ramp really ran: the read position moved faster and faster */
    assert_true(ref[2 * 3999] - ref[2 * 3998] > 6.0f * (ref[2 * 11] - ref[2 * 10]));
    for (int streamed = 0; streamed < 2; streamed++)
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            render_pitch_ramp(streamed, chunks[c], out, frames);
            for (uint32_t t = 0; t < frames; t++)
                if (fabsf(out[2 * t] - ref[2 * t]) > 1e-6f)
                    fail_msg("streamed %d chunk %u t %u: %.9g != %.9g", streamed, chunks[c], t,
                             (double)out[2 * t], (double)ref[2 * t]);
        }
    free(ref);
    free(out);
}

/* ---- cubic ---------------------------------------------------------------------------------- */

static double interp_error(int cubic, float pitch) {
    const uint32_t frames = 3000;
    const double cyc = 1.0 / 24.0; /* 24 frames per period: linear is audibly off */
    hl_pcm_t *snd = test_pcm_sine(8000, 1, cyc, 0.0, 0.8f);
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(snd);
    p.pan = -1.0f;
    p.pitch = pitch;
    p.flags = cubic ? HL_MIX_CUBIC : 0;
    uint64_t now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    float *out = new_out(frames);
    test_render(m, out, frames, 250, &now);
    double e = 0.0;
    for (uint32_t t = 4; t < frames; t++)
        e = fmax(e, fabs(out[2 * t] - 0.8 * sin(2.0 * TEST_PI * cyc * t * (double)pitch)));
    test_mixer_free(m);
    test_pcm_free(snd);
    free(out);
    return e;
}

static void render_cubic_busy(int simd, float *out, uint32_t frames) {
    hl_pcm_t *snd[2] = {test_pcm_sine(5000, 1, 0.013, 0.0, 0.3f),
                        test_pcm_sine(7000, 2, 0.007, 1.0, 0.2f)};
    hl_mixer_t *m = test_mixer_new(16, 0);
    hl_mixer_use_simd(m, simd);
    uint64_t now = 0;
    for (int i = 0; i < 12; i++) {
        hl_voice_params_t p = test_params(snd[i % 2]);
        p.pitch = 0.3f + 0.31f * (float)i;
        p.pan = -1.0f + (float)i / 6.0f;
        p.flags = HL_MIX_CUBIC | (i & 1 ? HL_MIX_LOOP : 0) | (i % 3 == 1 ? HL_MIX_3D : 0);
        p.pos[0] = (float)i - 6.0f;
        p.gain = 0.2f;
        assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    }
    test_render(m, out, frames, 480, &now);
    test_mixer_free(m);
    test_pcm_free(snd[0]);
    test_pcm_free(snd[1]);
}

static void test_cubic(void **state) {
    (void)state;
    const float pitches[] = {0.37f, 0.8f, 1.3f};
    for (size_t i = 0; i < sizeof pitches / sizeof pitches[0]; i++) {
        double lin = interp_error(0, pitches[i]), cub = interp_error(1, pitches[i]);
        if (!(cub < lin / 4.0))
            fail_msg("pitch %g: cubic %g linear %g", (double)pitches[i], cub, lin);
        assert_true(lin > 1e-3); /* the comparison means something */
    }
    const uint32_t frames = 4800;
    float *a = new_out(frames), *b = new_out(frames);
    render_cubic_busy(0, a, frames);
    render_cubic_busy(1, b, frames);
    double e = 0.0, pk = 0.0;
    for (uint32_t i = 0; i < 2 * frames; i++) {
        e = fmax(e, fabs(a[i] - b[i]));
        pk = fmax(pk, fabs(a[i]));
    }
    assert_true(pk > 0.1);
    assert_true(e < 1e-4);
    free(a);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_points_seamless),
        cmocka_unit_test(test_loop_count),
        cmocka_unit_test(test_loop_xfade),
        cmocka_unit_test(test_seek),
        cmocka_unit_test(test_stream_switch),
        cmocka_unit_test(test_switch_cap),
        cmocka_unit_test(test_pause_holds_stream),
        cmocka_unit_test(test_pitch_ramp_exact),
        cmocka_unit_test(test_cubic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
