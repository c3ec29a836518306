/*
 * test_stream.c - unit tests of streaming voices, what feeds them: the
 * stream ring (wrap-around with 2-channel frames, whole-frame publication
 * across threads and through the zero-copy API), the underrun policy (linear
 * decay of the last sample, exact zeros, one count per episode, fade-in on
 * recovery), end of stream, client-fed rings (hl_stream_init_shm: formats,
 * priming, rates), resampling continuity across odd pushes and odd process
 * calls, and streamed == preloaded. How a streamed voice plays (loops,
 * seeks, switches, pause, pitch ramps, cubic): test_stream_play.c.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
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

#define SRATE 22050.0

/* ---- the ring ------------------------------------------------------------------ */

static void test_ring_wrap_stereo(void **state) {
    (void)state;
    assert_int_equal(hl_stream_size(7, 2), 0);
    assert_true(!hl_stream_size(8, 0) && !hl_stream_size(8, 13) && hl_stream_size(8, 12));
    hl_stream_t *s = stream_new(8, 2);
    float buf[2 * 8], got[2 * 8];
    uint32_t wr = 0, rd = 0;
    const uint32_t sizes[] = {3, 5, 7, 1, 6, 2, 8, 4};
    for (int round = 0; round < 200; round++) {
        uint32_t n = sizes[round % 8];
        uint32_t room = hl_stream_writable(s);
        assert_int_equal(room, 8 - (wr - rd));
        uint32_t k = n < room ? n : room;
        for (uint32_t i = 0; i < k; i++) {
            buf[2 * i] = (float)(wr + i);
            buf[2 * i + 1] = -(float)(wr + i) - 0.5f;
        }
        assert_int_equal(hl_stream_write(s, buf, n), k);
        wr += k;
        uint32_t want = sizes[(round + 3) % 8];
        uint32_t r = hl_stream_read_rt(s, got, want);
        assert_int_equal(r, want < wr - rd ? want : wr - rd);
        for (uint32_t i = 0; i < r; i++) {
            assert_true(got[2 * i] == (float)(rd + i));
            assert_true(got[2 * i + 1] == -(float)(rd + i) - 0.5f);
        }
        rd += r;
    }
    assert_true(wr > 8 * 20); /* the indices wrapped many times */
    assert_int_equal(hl_stream_consumed(s), rd);
    stream_free(s);
}

typedef struct {
    hl_stream_t *s;
    uint32_t total;
} prod_arg_t;

static void *producer(void *arg) {
    prod_arg_t *a = arg;
    float buf[2 * 37];
    uint32_t next = 0, k = 1;
    while (next < a->total) {
        uint32_t n = k % 37 + 1;
        k = k * 1103515245u + 12345u;
        if (n > a->total - next) n = a->total - next;
        for (uint32_t i = 0; i < n; i++) {
            buf[2 * i] = (float)(next + i);
            buf[2 * i + 1] = (float)(next + i) + 0.5f;
        }
        next += hl_stream_write(a->s, buf, n);
    }
    hl_stream_finish(a->s);
    return NULL;
}

/* Two threads: the consumer never sees half a frame or a stale frame. */
static void test_whole_frames(void **state) {
    (void)state;
    hl_stream_t *s = stream_new(64, 2);
    prod_arg_t a = {s, 200000};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, producer, &a), 0);
    float got[2 * 29];
    uint32_t seen = 0, k = 7;
    for (;;) {
        int fin = hl_stream_finished(s);
        uint32_t n = hl_stream_read_rt(s, got, k % 29 + 1);
        k = k * 69069u + 1u;
        for (uint32_t i = 0; i < n; i++) {
            if (got[2 * i] != (float)(seen + i) || got[2 * i + 1] != (float)(seen + i) + 0.5f)
                fail_msg("frame %u: %g %g", seen + i, (double)got[2 * i], (double)got[2 * i + 1]);
        }
        seen += n;
        if (fin && n == 0 && hl_stream_readable_rt(s) == 0) break;
    }
    pthread_join(th, NULL);
    assert_int_equal(seen, a.total);

    /* zero-copy: a frame being filled is invisible until the commit */
    hl_stream_t *z = stream_new(4, 2);
    hl_ring_spans_t sp;
    assert_int_equal(hl_stream_write_spans(z, &sp), 4);
    float *f = sp.p1;
    f[0] = 1.0f; /* half a frame */
    assert_int_equal(hl_stream_readable_rt(z), 0);
    f[1] = 2.0f;
    assert_int_equal(hl_stream_readable_rt(z), 0);
    hl_stream_write_commit(z, 1);
    assert_int_equal(hl_stream_readable_rt(z), 1);
    assert_int_equal(hl_stream_read_rt(z, got, 4), 1);
    assert_true(got[0] == 1.0f && got[1] == 2.0f);
    stream_free(z);
    stream_free(s);
}

/* ---- underruns ------------------------------------------------------------------ */

/* Frames of a pitch-1 stream that play from n pushed frames: the voice keeps
 * its interpolator's lookahead in the ring (2 frames for linear and cubic;
 * a sinc kernel's half). */
#define LOOKAHEAD 2

static void test_underrun_fade(void **state) {
    (void)state;
    const uint32_t n = 300, frames = 4000;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_stream_t *s = stream_new(CAP, 1);
    hl_pcm_t *dc = test_pcm_dc(CAP, 1, LEVEL);
    uint32_t pos = 0;
    push(s, dc, &pos, n);
    hl_voice_params_t p = stream_params(s);
    p.pan = -1.0f; /* left gain exactly 1 */
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = new_out(frames);
    test_render(m, out, 1000, 128, &now);
    /* plays what is there, then the last sample decays linearly to 0 */
    const uint32_t played = n - LOOKAHEAD;
    for (uint32_t t = 0; t < played; t++)
        assert_float_equal(out[2 * t], LEVEL, 1e-7f);
    for (uint32_t j = 0; j < HL_UNDERRUN_FADE; j++) {
        float want = LEVEL * (1.0f - (float)(j + 1) / (float)HL_UNDERRUN_FADE);
        assert_float_equal(out[2 * (played + j)], want, 1e-7f);
    }
    for (uint32_t t = played + HL_UNDERRUN_FADE; t < 1000; t++)
        assert_true(out[2 * t] == 0.0f && out[2 * t + 1] == 0.0f);
    assert_int_equal(hl_stream_underruns(s), 1);
    assert_int_equal(underruns(m), 1);
    /* still starved: the same episode, not a new count */
    test_render(m, out, 1000, 100, &now);
    assert_int_equal(hl_stream_underruns(s), 1);
    assert_int_equal(underruns(m), 1);
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    assert_int_equal(st.stream_voices, 1);

    /* data returns: fade back in over HL_UNDERRUN_FADE frames */
    push(s, dc, &pos, 4000);
    test_render(m, out, 1000, 256, &now);
    for (uint32_t j = 0; j < HL_UNDERRUN_FADE; j++)
        assert_float_equal(out[2 * j], LEVEL * (float)(j + 1) / (float)HL_UNDERRUN_FADE, 1e-7f);
    for (uint32_t t = HL_UNDERRUN_FADE; t < 1000; t++)
        assert_float_equal(out[2 * t], LEVEL, 1e-7f);
    assert_int_equal(hl_stream_underruns(s), 1);

    /* starve again: a second episode */
    test_render(m, out, 4000, 256, &now);
    assert_int_equal(hl_stream_underruns(s), 2);
    assert_int_equal(underruns(m), 2);
    assert_int_equal(hl_stream_consumed(s), pos); /* the lookahead sits in the voice's history */
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(test_count(&log, HL_MIX_EV_ENDED, v), 0); /* an underrun never ends it */
    test_mixer_free(m);
    stream_free(s);
    test_pcm_free(dc);
    free(out);
}

static void test_end_of_stream(void **state) {
    (void)state;
    const uint32_t n = 500;
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_stream_t *s = stream_new(CAP, 2);
    hl_pcm_t *snd = test_pcm_sine(n, 2, 0.01, 0.3, 0.5f);
    uint32_t pos = 0;
    push(s, snd, &pos, n);
    hl_stream_finish(s);
    hl_voice_params_t p = stream_params(s);
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = new_out(2000);
    test_render(m, out, 2000, 300, &now);
    for (uint32_t t = 0; t < n; t++) /* stereo at centre: balance gains 1/1 */
        assert_float_equal(out[2 * t], snd->data[2 * t], 1e-6f);
    for (uint32_t t = n; t < 2000; t++)
        assert_true(out[2 * t] == 0.0f);
    test_events_t log = {0};
    test_poll(m, &log);
    assert_int_equal(test_end_reason(&log, v), HL_MIX_END_FINISHED);
    assert_int_equal(hl_stream_underruns(s), 0);
    assert_int_equal(underruns(m), 0);
    assert_int_equal(hl_stream_consumed(s), n);
    for (size_t i = 0; i < log.n; i++)
        if (log.ev[i].type == HL_MIX_EV_ENDED) assert_ptr_equal(log.ev[i].stream, s);
    test_mixer_free(m);
    stream_free(s);
    test_pcm_free(snd);
    free(out);
}

/* ---- client-fed rings (hl_stream_init_shm) ------------------------------------------ */

typedef struct {
    hl_stream_t s;
    hl_shm_hdr_t *hdr;
} tshm_t;

static tshm_t *shm_new(uint32_t frames, uint32_t ch, uint32_t fmt, double ratio) {
    tshm_t *t = aligned_alloc(64, (sizeof(tshm_t) + 63) / 64 * 64);
    assert_non_null(t);
    uint64_t size = hl_shm_size(frames, ch, fmt);
    assert_true(size > 0);
    t->hdr = aligned_alloc(64, (size_t)(size + 63) / 64 * 64);
    assert_non_null(t->hdr);
    memset(t->hdr, 0, (size_t)size);
    assert_int_equal(hl_stream_init_shm(&t->s, t->hdr, frames, ch, fmt, ratio), 0);
    return t;
}

static void shm_free(tshm_t *t) {
    free(t->hdr);
    free(t);
}

/* s16, u8 and f32 frames come out as the same floats; f32
 * samples that are not finite are zeroed; the daemon-side counters land in the header; the
 * end of stream is in `state` once the last frame was mixed */
static void test_shm_formats(void **state) {
    (void)state;
    const uint32_t n = 600;
    const uint32_t fmts[3] = {HL_SHM_S16, HL_SHM_U8, HL_SHM_F32};
    for (int k = 0; k < 3; k++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        tshm_t *t = shm_new(1024, 2, fmts[k], 1.0);
        unsigned char *ring = (unsigned char *)t->hdr + HL_SHM_HDR;
        float want[2 * 600];
        for (uint32_t i = 0; i < 2 * n; i++) {
            int v = (int)(i % 64) - 32; /* exact in every format */
            want[i] = (float)v / 128.0f;
            if (fmts[k] == HL_SHM_S16) {
                int16_t x = (int16_t)(v * 256);
                memcpy(ring + 2 * i, &x, 2);
            } else if (fmts[k] == HL_SHM_U8) {
                ring[i] = (unsigned char)(v + 128);
            } else {
                memcpy(ring + 4 * i, &want[i], 4);
            }
        }
        if (fmts[k] == HL_SHM_F32) { /* NaN and infinities: zeroed */
            float inf = -INFINITY, nan = NAN;
            memcpy(ring + 4 * 10, &inf, 4);
            memcpy(ring + 4 * 11, &nan, 4);
            want[10] = want[11] = 0.0f;
            float big = 1e30f; /* finite beyond +-16: clipped there */
            memcpy(ring + 4 * 12, &big, 4);
            want[12] = 16.0f;
        }
        atomic_store(&t->hdr->write, n);
        atomic_store(&t->hdr->eos, 1);
        hl_voice_params_t p = stream_params(&t->s);
        p.gain = 0.01f; /* -40 dB: the clipped +16 stays below the limiter */
        uint64_t v, now = 0;
        assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
        float *out = new_out(1000);
        test_render(m, out, 1000, 256, &now);
        for (uint32_t i = 0; i < 2 * n; i++)
            assert_float_equal(out[i], 0.01f * want[i], 1e-6f);
        for (uint32_t i = 2 * n; i < 2000; i++)
            assert_true(out[i] == 0.0f);
        assert_int_equal(atomic_load(&t->hdr->read), n);
        assert_int_equal(atomic_load(&t->hdr->state), 1); /* 1 + finished */
        assert_int_equal(atomic_load(&t->hdr->underruns), 0);
        test_events_t log = {0};
        test_poll(m, &log);
        assert_int_equal(test_end_reason(&log, v), HL_MIX_END_FINISHED);
        test_mixer_free(m);
        shm_free(t);
        free(out);
    }
}

/* Before its first frame an empty client ring is silence, not an underrun;
 * after it, an underrun counted in the header too; a write position far
 * beyond the read one is taken as a full ring, never more */
static void test_shm_prime_underrun_clamp(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(4, 0);
    tshm_t *t = shm_new(256, 1, HL_SHM_F32, 1.0);
    float *ring = (float *)(void *)((unsigned char *)t->hdr + HL_SHM_HDR);
    hl_voice_params_t p = stream_params(&t->s);
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = new_out(4096);
    test_render(m, out, 1024, 256, &now);
    assert_int_equal(atomic_load(&t->hdr->underruns), 0);
    assert_int_equal(underruns(m), 0);
    for (uint32_t i = 0; i < 256; i++)
        ring[i] = LEVEL;
    atomic_store(&t->hdr->write, 200);
    test_render(m, out, 1024, 256, &now);
    assert_int_equal(atomic_load(&t->hdr->underruns), 1);
    assert_int_equal(hl_stream_underruns(&t->s), 1);
    atomic_store(&t->hdr->write, UINT64_MAX - 3); /* nonsense */
    test_render(m, out, 4096, 256, &now);
    uint64_t rd = atomic_load(&t->hdr->read);
    assert_true(rd > 200 && rd <= 200 + 4096 + 256);
    for (uint32_t i = 0; i < 2 * 4096; i++)
        assert_true(fabsf(out[i]) <= 1.0f);
    test_mixer_free(m);
    shm_free(t);
    free(out);
}

/* A ring at half the engine rate is read at half speed: N frames last 2N */
static void test_shm_rate(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(4, 0);
    tshm_t *t = shm_new(1024, 1, HL_SHM_F32, 0.5);
    float *ring = (float *)(void *)((unsigned char *)t->hdr + HL_SHM_HDR);
    for (uint32_t i = 0; i < 1000; i++)
        ring[i] = LEVEL;
    atomic_store(&t->hdr->write, 1000);
    atomic_store(&t->hdr->eos, 1);
    hl_voice_params_t p = stream_params(&t->s);
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = new_out(4096);
    test_render(m, out, 4096, 256, &now);
    uint32_t last = 0;
    for (uint32_t i = 0; i < 4096; i++)
        if (out[2 * i] != 0.0f) last = i;
    assert_true(last >= 1990 && last <= 2002);
    assert_int_equal(atomic_load(&t->hdr->state), 1);
    test_mixer_free(m);
    shm_free(t);
    free(out);
}

/* ---- resampling ------------------------------------------------------------------- */

static void test_resample_ramp(void **state) {
    (void)state;
    const uint32_t frames = 7000, src_frames = 4000;
    const float pitch = (float)(SRATE / TEST_RATE);
    const float gain = 1.0f / 8192.0f; /* the ramp i = i stays below the limiter */
    hl_pcm_t *ramp = test_pcm_ramp(src_frames, 1.0f);
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_stream_t *s = stream_new(256, 1);
    uint32_t pos = 0;
    push(s, ramp, &pos, 101);
    hl_voice_params_t p = stream_params(s);
    p.pan = -1.0f;
    p.gain = gain;
    p.pitch = pitch;
    uint64_t v, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *out = new_out(frames);
    const uint32_t calls[] = {77, 33, 129, 1, 255, 61};
    const uint32_t pushes[] = {13, 37, 3, 59, 1, 23, 7};
    uint32_t done = 0, ci = 0, pi = 0;
    while (done < frames) {
        uint32_t c = calls[ci++ % 6];
        if (c > frames - done) c = frames - done;
        /* keep enough queued for this call, in odd-sized pushes */
        while (hl_stream_readable_rt(s) < (uint32_t)(c * pitch) + 8 && pos < src_frames)
            push(s, ramp, &pos, pushes[pi++ % 7]);
        hl_mixer_process_rt(m, out + 2 * (size_t)done, c, now);
        done += c;
    }
    assert_int_equal(hl_stream_underruns(s), 0);
    for (uint32_t t = 0; t < frames; t++) {
        double want = gain * (double)t * (double)pitch;
        if (fabs(out[2 * t] - want) > 1e-6)
            fail_msg("t %u: %.9g != %.9g", t, (double)out[2 * t], want);
    }
    test_mixer_free(m);
    stream_free(s);
    test_pcm_free(ramp);
    free(out);
}

/* Renders snd preloaded, or streamed (fed in chunks while playing, then
 * finished), with the same voice parameters. */
static void render_src(const hl_pcm_t *snd, int streamed, uint32_t flags, float pitch, float *out,
                       uint32_t frames, uint64_t *stream_underruns) {
    hl_mixer_t *m = test_mixer_new(4, 0);
    hl_stream_t *s = streamed ? stream_new(1024, snd->channels) : NULL;
    hl_voice_params_t p = streamed ? stream_params(s) : test_params(snd);
    p.gain = 0.7f;
    p.pan = 0.3f;
    p.pitch = pitch;
    p.flags = flags;
    uint32_t pos = 0;
    if (s) push(s, snd, &pos, 1000);
    uint64_t now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, NULL, NULL), 0);
    for (uint32_t done = 0; done < frames;) {
        uint32_t c = frames - done < 199 ? frames - done : 199;
        if (s) {
            while (pos < snd->frames && hl_stream_writable(s) >= 100)
                push(s, snd, &pos, 100);
            if (pos >= snd->frames) hl_stream_finish(s);
        }
        hl_mixer_process_rt(m, out + 2 * (size_t)done, c, now);
        done += c;
    }
    if (s) {
        *stream_underruns = hl_stream_underruns(s);
        stream_free(s);
    }
    test_mixer_free(m);
}

static void test_stream_matches_pcm(void **state) {
    (void)state;
    const uint32_t frames = 6000;
    const float pitches[] = {1.0f, 1.3f, 0.61f, 3.7f};
    float *a = new_out(frames), *b = new_out(frames);
    for (uint32_t ch = 1; ch <= 2; ch++)
        for (int cubic = 0; cubic < 2; cubic++)
            for (int threed = 0; threed < 2; threed++)
                for (size_t pi = 0; pi < sizeof pitches / sizeof pitches[0]; pi++) {
                    hl_pcm_t *snd = test_pcm_sine(9000, ch, 200.0 / TEST_RATE, 0.2, 0.8f);
                    uint32_t flags = (cubic ? HL_MIX_CUBIC : 0) | (threed ? HL_MIX_3D : 0);
                    uint64_t ur = 99;
                    memset(a, 0, 2 * frames * sizeof(float));
                    memset(b, 0, 2 * frames * sizeof(float));
                    render_src(snd, 0, flags, pitches[pi], a, frames, NULL);
                    render_src(snd, 1, flags, pitches[pi], b, frames, &ur);
                    assert_int_equal(ur, 0);
                    double e = 0.0, pk = 0.0;
                    for (uint32_t i = 0; i < 2 * frames; i++) {
                        e = fmax(e, fabs(a[i] - b[i]));
                        pk = fmax(pk, fabs(a[i]));
                    }
                    if (e > 1e-6)
                        fail_msg("ch %u cubic %d 3d %d pitch %g: max diff %g", ch, cubic, threed,
                                 (double)pitches[pi], e);
                    assert_true(pk > 0.1);
                    test_pcm_free(snd);
                }
    free(a);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_wrap_stereo), cmocka_unit_test(test_whole_frames),
        cmocka_unit_test(test_underrun_fade),    cmocka_unit_test(test_end_of_stream),
        cmocka_unit_test(test_resample_ramp),    cmocka_unit_test(test_stream_matches_pcm),
        cmocka_unit_test(test_shm_formats),      cmocka_unit_test(test_shm_prime_underrun_clamp),
        cmocka_unit_test(test_shm_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
