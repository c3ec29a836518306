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

static void underrun_begin(hl_mixer_t *m, hl_rt_voice_t *v) {
    v->ur = 1;
    v->ur_pos = 0;
    hl_stream_t *st = v->stream;
    atomic_store_explicit(&st->underruns,
                          atomic_load_explicit(&st->underruns, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    add_u64(&m->stats.underruns, 1);
}

/* Renders n frames of a stream voice. The kept history (HL_STREAM_HIST
 * frames) and the ring frames a run needs are copied into the shared sbuf;
 * the cursor is relative to sbuf[0] and is re-based after each run, so it
 * stays continuous across blocks and pushes. Never waits: a short ring is an
 * underrun. Sets *finished when the producer finished and the ring drained. */
__attribute__((noinline, cold)) void hl_voice_render_stream_rt(hl_mixer_t *m, hl_rt_voice_t *v,
                                                               float *acc_l, float *acc_r,
                                                               uint32_t n, const hl_gain_ramp_t *g,
                                                               uint64_t step, int *finished) {
    hl_stream_t *st = v->stream;
    const uint32_t ch = v->channels, fsz = ch * (uint32_t)sizeof(float);
    const int stereo_out = ch == 2 && !(v->flags & HL_MIX_3D);
    const uint32_t mode = hl_interp_mode_rt(v->flags);
    /* sinc: the kernel for this step, and how far it reads ahead */
    const hl_sinc_level_t *sl = mode == HL_INTERP_SINC ? hl_sinc_level(m->sinc, step) : NULL;
    const uint32_t reach = sl ? sl->half : 2;
    uint32_t done = 0;
    while (done < n) {
        uint32_t rest = n - done;
        const float dn = (float)done;
        hl_gain_ramp_t gg = {g->l0 + dn * (g->dl + dn * g->ql), g->dl + 2.0f * dn * g->ql, g->ql,
                             g->r0 + dn * (g->dr + dn * g->qr), g->dr + 2.0f * dn * g->qr, g->qr};
        /* eos first (acquire): every frame written before finish is then readable */
        const int eos = hl_stream_finished(st);
        hl_ring_spans_t sp;
        const uint32_t a = hl_ring_read_spans(&st->ring, &sp);
        const uint64_t x0 = v->scur;
        uint32_t cnt = stream_frames_for(x0, step, a, reach);
        if (v->ur) {
            /* recover only when the whole rest can play (or the source is over) */
            if (!eos && cnt < rest && hl_ring_writable(&st->ring) > 0) {
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
            *finished = 1;
            return;
        }
        if (eos) { /* past the last frame is silence: render up to the end */
            uint64_t c64 = ceil_div(end - x0, step);
            cnt = c64 < UINT32_MAX ? (uint32_t)c64 : UINT32_MAX;
        }
        uint32_t cap = stream_frames_for(x0, step, HL_STREAM_SCRATCH - HL_STREAM_HIST - 1, reach);
        cnt = cnt < rest ? cnt : rest;
        cnt = cnt < cap ? cnt : cap;
        if (cnt == 0) {
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
        uint32_t t1 = take < sp.n1 ? take : sp.n1;
        memcpy(sb + HL_STREAM_HIST * ch, sp.p1, (size_t)t1 * fsz);
        if (take > t1) memcpy(sb + (HL_STREAM_HIST + t1) * ch, sp.p2, (size_t)(take - t1) * fsz);
        if (take < from_ring) /* eos: zeros past the last frame */
            memset(sb + (HL_STREAM_HIST + take) * ch, 0, (size_t)(from_ring - take) * fsz);
        span_sanitize(sb, valid * ch);
        src_view_t s = {.data = sb, .frames = valid, .ch = ch, .cubic = mode, .sl = sl};
        s.end_fp = end;
        s.loop = &no_loop;
        hl_src_view_limits_rt(&s, valid);
        uint64_t x = x0;
        int fin = 0;
        (void)render_src(m, v, &s, &x, acc_l + done, acc_r + done, cnt, &gg, step, &fin);
        /* the last output sample, for an underrun decay */
        float hl, hr;
        interp_at(&s, xl, &hl, &hr);
        float xg = ramp_after(&v->xf, 0);
        v->hold[0] = (stereo_out || ch == 1 ? hl : (hl + hr) * 0.5f) * xg;
        v->hold[1] = hr * xg;
        /* re-base: keep the HL_STREAM_HIST frames from floor(x) - BACK */
        uint32_t shift = (uint32_t)(x >> 32) - HL_STREAM_BACK;
        if (shift > a) shift = a;
        memcpy(st->hist, sb + (size_t)shift * ch, (size_t)HL_STREAM_HIST * fsz);
        v->scur = x - ((uint64_t)shift << 32);
        hl_ring_read_advance(&st->ring, shift);
        atomic_store_explicit(&st->consumed,
                              atomic_load_explicit(&st->consumed, memory_order_relaxed) + shift,
                              memory_order_relaxed);
        v->spulled += shift;
        done += cnt;
        if (fin || v->scur >= (eos ? (uint64_t)(HL_STREAM_HIST + a - shift) << 32 : UINT64_MAX)) {
            *finished = 1;
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
        hl_voice_stream_reset_rt(v);
    } else {
        if (v->loop_on && v->seek_frame >= v->loop_end) { /* past the loop: leave it */
            v->loop_on = 0;
            v->loops_left = 0;
        }
        v->f.cursor = (uint64_t)v->seek_frame << 32;
        hl_voice_pcm_view_rt(v);
    }
    v->sw_mode = HL_SW_NONE;
    v->xf.cur = 0.0f;
    ramp_set(&v->xf, 1.0f, HL_SEEK_FADE_IN);
}
