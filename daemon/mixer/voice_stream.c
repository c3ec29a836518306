/*
 * voice_stream.c - stream voices on the audio thread: each run linearises
 * the ring frames it needs after the voice's kept history in the shared
 * scratch (sbuf) and renders them with the same source renderer as PCM
 * (voice_src.h); an empty ring starts an underrun episode (the last sample
 * decays, the stream fades back in when frames come), and a stream switch
 * fades out, hands the old stream back and starts the new one. Cold: stream
 * voices always take the full path.
 */
#include <string.h>

#include "voice_multi.h"
#include "voice_src.h"
#include "voice_stream.h"

/* A stream's linearised frames are the mixer's own copy: zero what is not
 * finite there (cold: streams already take the full path). */
static void span_sanitize(float *x, uint32_t n) {
    if (span_finite(x, n)) return;
    for (uint32_t i = 0; i < n; i++)
        if (x[i] - x[i] != 0.0f) x[i] = 0.0f;
}

static const hl_loop_view_t no_loop; /* streams do not loop */

/* ---- the two kinds of ring: a decoder's (floats at the engine rate) and a
 * client's in shared memory (hl_shm_stream.h: its format, its rate). The
 * client's side is never trusted: its write position is clamped to the
 * capacity, its samples are converted and bounded here. */

/* 1 once the producer said no more frames (acquire: read before the frames). */
static int stream_eos_rt(const hl_stream_t *st) {
    if (!st->shm) return hl_stream_finished(st);
    return atomic_load_explicit(&st->shm->eos, memory_order_acquire) != 0;
}

/* Readable frames and where they are (spans of whole frames). */
static uint32_t stream_avail_rt(hl_stream_t *st, hl_ring_spans_t *sp) {
    if (!st->shm) return hl_ring_read_spans(&st->ring, sp);
    const uint32_t cap = st->shm_mask + 1;
    uint64_t w = atomic_load_explicit(&st->shm->write, memory_order_acquire);
    uint64_t a = w - st->shm_read; /* a client that wrote nonsense gets a full ring of it */
    if (a > cap) a = cap;
    uint32_t idx = (uint32_t)(st->shm_read & st->shm_mask);
    uint32_t n1 = cap - idx < (uint32_t)a ? cap - idx : (uint32_t)a;
    sp->p1 = (void *)(uintptr_t)(st->shm_ring + (size_t)idx * st->shm_fsize);
    sp->n1 = n1;
    sp->p2 = (void *)(uintptr_t)st->shm_ring;
    sp->n2 = (uint32_t)a - n1;
    return (uint32_t)a;
}

/* Free frames of the ring (the producer's room). */
static uint32_t stream_room_rt(hl_stream_t *st, uint32_t avail) {
    if (!st->shm) return hl_ring_writable(&st->ring);
    return st->shm_mask + 1 - avail;
}

/* Client samples to floats: s16 / 32768, (u8 - 128) / 128, f32 bounded to
 * +-16 like every loaded sample (NaN and infinities: 0). */
static void shm_convert_rt(float *dst, const unsigned char *src, uint32_t n, uint32_t format) {
    if (format == HL_SHM_S16) {
        for (uint32_t i = 0; i < n; i++) {
            int16_t x;
            memcpy(&x, src + 2 * (size_t)i, sizeof x);
            dst[i] = (float)x * (1.0f / 32768.0f);
        }
    } else if (format == HL_SHM_U8) {
        for (uint32_t i = 0; i < n; i++)
            dst[i] = (float)((int)src[i] - 128) * (1.0f / 128.0f);
    } else {
        memcpy(dst, src, (size_t)n * sizeof(float));
        for (uint32_t i = 0; i < n; i++) {
            float x = dst[i];
            if (x - x != 0.0f) /* NaN, infinities */
                dst[i] = 0.0f;
            else if (x > 16.0f || x < -16.0f)
                dst[i] = x > 0.0f ? 16.0f : -16.0f;
        }
    }
}

/* Copies `take` readable frames into dst as floats. */
static void stream_copy_rt(const hl_stream_t *st, float *dst, const hl_ring_spans_t *sp,
                           uint32_t take) {
    const uint32_t ch = st->channels, fsz = ch * (uint32_t)sizeof(float);
    uint32_t t1 = take < sp->n1 ? take : sp->n1;
    if (!st->shm) {
        memcpy(dst, sp->p1, (size_t)t1 * fsz);
        if (take > t1) memcpy(dst + (size_t)t1 * ch, sp->p2, (size_t)(take - t1) * fsz);
        return;
    }
    shm_convert_rt(dst, sp->p1, t1 * ch, st->shm_format);
    if (take > t1) shm_convert_rt(dst + (size_t)t1 * ch, sp->p2, (take - t1) * ch, st->shm_format);
}

/* Releases n frames to the producer. */
static void stream_advance_rt(hl_stream_t *st, uint32_t n) {
    if (!st->shm) {
        hl_ring_read_advance(&st->ring, n);
        return;
    }
    st->shm_read += n;
    if (n) st->primed = 1;
    /* release: our reads of those frames come before the client reuses them */
    atomic_store_explicit(&st->shm->read, st->shm_read, memory_order_release);
}

_Static_assert(HL_STREAM_BACK + 1 == HL_SINC_MAX_HALF && HL_STREAM_REACH == HL_SINC_MAX_HALF,
               "a stream's history covers the widest sinc kernel");

/* The most output frames a run from x0 can render when `a` frames follow the
 * kept history: the interpolator reaches `reach` frames past floor(x) (2 for
 * linear and cubic, the kernel's half for sinc) and the re-based history
 * needs the frame after the final cursor (see render_stream). */
static uint32_t stream_frames_for(uint64_t x0, uint64_t step, uint64_t a, uint32_t reach) {
    /* floor(x0 + (cnt-1) * step) + reach <= HIST + a - 1 and
     * floor(x0 + cnt * step) <= a + BACK */
    if (a + HL_STREAM_HIST < (uint64_t)reach + 1) return 0;
    uint64_t lim1 = (a + HL_STREAM_HIST - reach) << 32, lim2 = (a + HL_STREAM_BACK + 1) << 32;
    if (lim1 <= x0) return 0;
    uint64_t c1 = (lim1 - x0 - 1) / step + 1;
    uint64_t c2 = (lim2 - x0 - 1) / step;
    uint64_t c = c1 < c2 ? c1 : c2;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/* The underrun decay: the last sample of each channel falls linearly to 0
 * over HL_UNDERRUN_FADE frames, then zeros. */
static void render_decay(hl_mixer_t *m, hl_rt_voice_t *v, float *acc_l, float *acc_r, uint32_t cnt,
                         const hl_gain_ramp_t *gg, int stereo_out) {
    const float inv = 1.0f / (float)HL_UNDERRUN_FADE;
    for (uint32_t j = 0; j < cnt; j++) {
        uint32_t k = v->ur_pos + j + 1;
        float w = k >= HL_UNDERRUN_FADE ? 0.0f : 1.0f - (float)k * inv;
        m->scratch[0][j] = v->hold[0] * w;
        m->scratch[1][j] = v->hold[1] * w;
    }
    v->ur_pos = v->ur_pos + cnt > HL_UNDERRUN_FADE ? HL_UNDERRUN_FADE : v->ur_pos + cnt;
    if (stereo_out)
        m->k->mix_planar(acc_l, acc_r, m->scratch[0], m->scratch[1], cnt, gg);
    else
        m->k->mix_mono(acc_l, acc_r, m->scratch[0], cnt, gg);
}

/* The same for a multichannel voice (planes as hl_multi_span_rt's, NULL:
 * silent): each channel's last sample falls to 0 in its own plane. */
static void render_decay_multi(hl_rt_voice_t *v, float *planes, uint32_t cnt,
                               const hl_gain_ramp_t *gg) {
    const hl_stream_t *st = v->stream;
    const float inv = 1.0f / (float)HL_UNDERRUN_FADE;
    for (uint32_t j = 0; planes && j < cnt; j++) {
        uint32_t k = v->ur_pos + j + 1;
        const float jf = (float)j;
        float w = k >= HL_UNDERRUN_FADE ? 0.0f : 1.0f - (float)k * inv;
        w *= gg->l0 + jf * (gg->dl + jf * gg->ql);
        for (uint32_t c = 0; c < st->channels; c++)
            planes[(size_t)c * HL_MIX_BLOCK + j] += st->hold[c] * w;
    }
    v->ur_pos = v->ur_pos + cnt > HL_UNDERRUN_FADE ? HL_UNDERRUN_FADE : v->ur_pos + cnt;
}

static void underrun_begin(hl_mixer_t *m, hl_rt_voice_t *v) {
    v->ur = 1;
    v->ur_pos = 0;
    hl_stream_t *st = v->stream;
    atomic_store_explicit(&st->underruns,
                          atomic_load_explicit(&st->underruns, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    add_u64(&m->stats.underruns, 1);
    if (st->shm)
        atomic_store_explicit(&st->shm->underruns,
                              atomic_load_explicit(&st->underruns, memory_order_relaxed),
                              memory_order_release);
}

/* The source is over: the voice ends; a client is told at once (state 1 =
 * 1 + HL_END_FINISHED, its last frame is mixed by now). */
static void stream_finished_rt(hl_stream_t *st, int *finished) {
    *finished = 1;
    if (st->shm) {
        uint32_t z = 0;
        atomic_compare_exchange_strong_explicit(&st->shm->state, &z, 1u, memory_order_release,
                                                memory_order_relaxed);
    }
}

/* Renders n frames of a stream voice. The kept history (HL_STREAM_HIST
 * frames) and the ring frames a run needs are copied into the shared sbuf;
 * the cursor is relative to sbuf[0] and is re-based after each run, so it
 * stays continuous across blocks and pushes. Never waits: a short ring is an
 * underrun. Sets *finished when the producer finished and the ring drained.
 * A stream of more than two channels (a 2D voice on a surround layout, the
 * decoder folded it to the layout's speakers) renders each run with the
 * multichannel pass (voice_multi.h: linear, the gain is g's left ramp) into
 * the planes at acc_l (channel c at acc_l + c x HL_MIX_BLOCK, NULL: silent);
 * its runs are shorter, so that sbuf holds their frames of every channel. */
__attribute__((noinline, cold)) void hl_voice_render_stream_rt(hl_mixer_t *m, hl_rt_voice_t *v,
                                                               float *acc_l, float *acc_r,
                                                               uint32_t n, const hl_gain_ramp_t *g,
                                                               uint64_t step, int *finished) {
    hl_stream_t *st = v->stream;
    const uint32_t ch = v->channels, fsz = ch * (uint32_t)sizeof(float);
    const int stereo_out = ch == 2 && !(v->flags & HL_MIX_3D), multi = ch > 2;
    const uint32_t mode = multi ? HL_INTERP_LINEAR : hl_interp_mode_rt(v->flags);
    /* sinc: the kernel for this step, and how far it reads ahead */
    const hl_sinc_level_t *sl = mode == HL_INTERP_SINC ? hl_sinc_level(m->sinc, step) : NULL;
    const uint32_t reach = sl ? sl->half : 2;
    const uint32_t sframes = multi ? HL_STREAM_SCRATCH * 2 / ch : HL_STREAM_SCRATCH;
    uint32_t done = 0;
    while (done < n) {
        uint32_t rest = n - done;
        /* the ramp from this run's first frame on (multichannel: re-based) */
        const hl_gain_ramp_t gg = hl_gain_from(g, done), gm = hl_gain_rebase(g, (float)done);
        /* eos first (acquire): every frame written before finish is then readable */
        const int eos = stream_eos_rt(st);
        hl_ring_spans_t sp;
        const uint32_t a = stream_avail_rt(st, &sp);
        const uint64_t x0 = v->scur;
        uint32_t cnt = stream_frames_for(x0, step, a, reach);
        if (v->ur) {
            /* recover only when the whole rest can play (or the source is over) */
            if (!eos && cnt < rest && stream_room_rt(st, a) > 0) {
                if (multi)
                    render_decay_multi(v, acc_l ? acc_l + done : NULL, rest, &gm);
                else
                    render_decay(m, v, acc_l + done, acc_r + done, rest, &gg, stereo_out);
                ramp_advance(&v->xf, rest);
                return;
            }
            v->ur = 0;
            if (v->sw_mode == HL_SW_NONE) {
                v->xf.cur = 0.0f;
                ramp_set(&v->xf, 1.0f, HL_UNDERRUN_FADE);
            }
        }
        const uint64_t end = eos ? (uint64_t)(HL_STREAM_HIST + a) << 32 : UINT64_MAX;
        if (x0 >= end) {
            stream_finished_rt(st, finished);
            return;
        }
        if (eos) { /* past the last frame is silence: render up to the end */
            uint64_t c64 = ceil_div(end - x0, step);
            cnt = c64 < UINT32_MAX ? (uint32_t)c64 : UINT32_MAX;
        }
        uint32_t cap = stream_frames_for(x0, step, sframes - HL_STREAM_HIST - 1, reach);
        cnt = cnt < rest ? cnt : rest;
        cnt = cnt < cap ? cnt : cap;
        if (cnt == 0) {
            if (st->shm && !st->primed) return; /* a client's, not started yet: silence */
            underrun_begin(m, v);
            continue;
        }
        /* linearise: history, then the ring frames this run reads (peeked) */
        uint64_t xl = x0 + (uint64_t)(cnt - 1) * step, xe = x0 + (uint64_t)cnt * step;
        uint32_t need_idx = (uint32_t)(xl >> 32) + reach;
        if ((uint32_t)(xe >> 32) + 1 > need_idx) need_idx = (uint32_t)(xe >> 32) + 1;
        uint32_t valid = need_idx + 1, from_ring = valid - HL_STREAM_HIST;
        uint32_t take = from_ring < a ? from_ring : a;
        float *sb = m->sbuf;
        memcpy(sb, st->hist, (size_t)HL_STREAM_HIST * fsz);
        stream_copy_rt(st, sb + HL_STREAM_HIST * ch, &sp, take);
        if (take < from_ring) /* eos: zeros past the last frame */
            memset(sb + (HL_STREAM_HIST + take) * ch, 0, (size_t)(from_ring - take) * fsz);
        span_sanitize(sb, valid * ch);
        src_view_t s = {.data = sb, .frames = valid, .ch = ch, .cubic = mode, .sl = sl};
        s.end_fp = end;
        s.loop = &no_loop;
        hl_src_view_limits_rt(&s, valid);
        uint64_t x = x0;
        int fin = 0;
        if (multi) {
            const float g3[3] = {gm.l0, gm.dl, gm.ql};
            fin = hl_multi_span_rt(v, &s, &x, acc_l ? acc_l + done : NULL, cnt, g3, step, 1);
            float y[HL_LAYOUT_MAX_CH]; /* the last output frame, for an underrun decay */
            hl_multi_interp_rt(&s, xl, y);
            for (uint32_t c = 0; c < ch; c++)
                st->hold[c] = y[c] * ramp_after(&v->xf, 0);
        } else {
            (void)render_src(m, v, &s, &x, acc_l + done, acc_r + done, cnt, &gg, step, &fin);
            /* the last output sample, for an underrun decay */
            float hl, hr;
            interp_at(&s, xl, &hl, &hr);
            float xg = ramp_after(&v->xf, 0);
            v->hold[0] = (stereo_out || ch == 1 ? hl : (hl + hr) * 0.5f) * xg;
            v->hold[1] = hr * xg;
        }
        /* re-base: keep the HL_STREAM_HIST frames from floor(x) - BACK */
        uint32_t shift = (uint32_t)(x >> 32) - HL_STREAM_BACK;
        if (shift > a) shift = a;
        memcpy(st->hist, sb + (size_t)shift * ch, (size_t)HL_STREAM_HIST * fsz);
        v->scur = x - ((uint64_t)shift << 32);
        stream_advance_rt(st, shift);
        atomic_store_explicit(&st->consumed,
                              atomic_load_explicit(&st->consumed, memory_order_relaxed) + shift,
                              memory_order_relaxed);
        v->spulled += shift;
        done += cnt;
        if (fin || v->scur >= (eos ? (uint64_t)(HL_STREAM_HIST + a - shift) << 32 : UINT64_MAX)) {
            stream_finished_rt(st, finished);
            return;
        }
    }
}

/* The jump a seek or stream switch waited for, at the bottom of its fade. */
__attribute__((noinline, cold)) void hl_voice_switch_rt(hl_mixer_t *m, hl_rt_voice_t *v,
                                                        uint64_t now_ns) {
    if (v->sw_mode == HL_SW_STREAM) {
        hl_voice_retire_stream_rt(m, v, v->stream, now_ns);
        v->stream = v->pending;
        v->pending = NULL;
        v->channels = v->stream->channels;
        hl_voice_stream_reset_rt(v);
    } else {
        if (v->loop_on && v->seek_frame >= v->loop_end) { /* past the loop: leave it */
            v->loop_on = 0;
            v->loops_left = 0;
        }
        v->f.cursor = (uint64_t)v->seek_frame << 32;
        v->wrapped = 0; /* the frames before the new position are the sound's own */
        hl_voice_pcm_view_rt(v);
    }
    v->sw_mode = HL_SW_NONE;
    v->xf.cur = 0.0f;
    ramp_set(&v->xf, 1.0f, HL_SEEK_FADE_IN);
}
