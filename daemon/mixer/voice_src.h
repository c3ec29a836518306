/*
 * voice_src.h - the source renderer of the audio thread: how a run of a
 * voice's source is read (the view's limits, one interpolated frame, the
 * scalar path for buffer ends, loop points and fades) and rendered by the
 * kernels (render_src), plus the non-finite guard. Header-only and static:
 * render_src is inlined into its two callers, the block loop (mixer_rt.c)
 * and the stream renderer (voice_stream.c), as it was when they shared a
 * file. Private to the mixer; see voice_state.h for the layering.
 */
#ifndef HL_VOICE_SRC_H
#define HL_VOICE_SRC_H

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "voice_state.h"

/* Lowest cursor of the interpolating kernels: cubic reads the frame before,
 * sinc half - 1 frames before; once a loop wrapped, as many after its start
 * (the frames before it are the loop's last ones: edge_frame). */
static inline uint64_t view_lo(const src_view_t *s) {
    uint64_t lo = s->cubic ? HL_FP_ONE : 0;
    if (s->cubic == HL_INTERP_SINC)
        lo = (uint64_t)((s->sl ? s->sl->half : HL_SINC_MAX_HALF) - 1) << 32;
    const hl_loop_view_t *lp = s->loop;
    if (lo && lp->wrapped) lo += (uint64_t)lp->ls << 32;
    return lo;
}

/* A sinc view follows the step: the level (kernel width) for it, and the
 * limits that width gives. */
static inline void sinc_follow(const hl_mixer_t *m, src_view_t *s, uint64_t step) {
    if (s->cubic != HL_INTERP_SINC) return;
    const hl_sinc_level_t *sl = hl_sinc_level(m->sinc, step);
    if (sl != s->sl) {
        s->sl = sl;
        hl_src_view_limits_rt(s, s->copy_end);
    }
}

/* Frame i of the source as (first, last) channel, mapped as edge_frame
 * maps it (hl_src_index) without the crossfade (sample_at blends after
 * interpolating); outside the data, silence. */
static void fetch(const src_view_t *s, int64_t i, float *l, float *r) {
    const float *p = hl_src_frame(s, i);
    if (!p) {
        *l = *r = 0.0f;
        return;
    }
    *l = p[0];
    *r = p[s->ch - 1];
}

/* Interpolated (first, last) channel at fixed-point position pos. */
static void interp_at(const src_view_t *s, uint64_t pos, float *l, float *r) {
    int64_t i = (int64_t)(pos >> 32);
    float f = hl_fp_frac((uint32_t)pos);
    if (s->cubic == HL_INTERP_SINC && s->sl) {
        const hl_sinc_level_t *sl = s->sl;
        float k[2 * HL_SINC_MAX_HALF], sl_l = 0.0f, sl_r = 0.0f;
        hl_sinc_kernel(sl, (uint32_t)pos, k);
        int64_t base = i - (int64_t)(sl->half - 1);
        for (uint32_t j = 0; j < sl->taps; j++) {
            float x, y;
            fetch(s, base + j, &x, &y);
            sl_l += k[j] * x;
            sl_r += k[j] * y;
        }
        *l = sl_l;
        *r = sl_r;
        return;
    }
    float al, ar, bl, br;
    fetch(s, i, &al, &ar);
    fetch(s, i + 1, &bl, &br);
    if (!s->cubic) {
        *l = al + f * (bl - al);
        *r = ar + f * (br - ar);
        return;
    }
    float zl, zr, cl, cr;
    fetch(s, i - 1, &zl, &zr);
    fetch(s, i + 2, &cl, &cr);
    *l = hl_catmull_rom(zl, al, bl, cl, f);
    *r = hl_catmull_rom(zr, ar, br, cr, f);
}

/* One output sample (pre-gain) into l/r: the crossfade blends the loop's
 * tail with the frames before loop_start. */
static void sample_at(const src_view_t *s, uint64_t pos, float *l, float *r) {
    interp_at(s, pos, l, r);
    const hl_loop_view_t *lp = s->loop;
    if (lp->xfade) {
        uint64_t xs = (uint64_t)(lp->le - lp->xfade) << 32;
        if (pos >= xs) {
            float w = (float)((double)(pos - xs) / (double)((uint64_t)lp->xfade << 32));
            float l2, r2;
            interp_at(s, pos - ((uint64_t)(lp->le - lp->ls) << 32), &l2, &r2);
            *l += w * (l2 - *l);
            *r += w * (r2 - *r);
        }
    }
}

/* The scalar path: edges (buffer ends, loop points, the frame before 0),
 * crossfades and source fades (xf). Writes cnt samples into the scratch,
 * planar when stereo_out, else mono (downmixed). */
__attribute__((noinline, cold)) static void render_slow(hl_mixer_t *m, const hl_rt_voice_t *v,
                                                        const src_view_t *s, uint64_t pos,
                                                        uint32_t cnt, uint64_t step,
                                                        int stereo_out) {
    float *dl = m->scratch[0], *dr = m->scratch[1];
    for (uint32_t j = 0; j < cnt; j++, pos += step) {
        float l, r;
        sample_at(s, pos, &l, &r);
        float g = ramp_after(&v->xf, j + 1);
        if (stereo_out) {
            dl[j] = l * g;
            dr[j] = r * g;
        } else {
            dl[j] = (s->ch == 2 ? (l + r) * 0.5f : l) * g;
        }
    }
}

/* The kernel of the interior for cnt frames of source from src (frame
 * floor(cursor) of the view) at fraction frac and step: the copy kernels at
 * pitch 1 on a whole frame, else the interpolator's fused kernel; avail =
 * frames readable from src. */
static inline __attribute__((always_inline)) void
src_kernel(const hl_mixer_t *m, const src_view_t *s, const float *src, uint32_t avail, float *fl,
           float *fr, uint32_t cnt, uint32_t frac, uint64_t step, const hl_gain_ramp_t *gg,
           int stereo_out) {
    const hl_mix_kernels_t *k = m->k;
    const uint32_t ch = s->ch;
    if (step == HL_FP_ONE && frac == 0) {
        if (ch == 1)
            k->mix_mono(fl, fr, src, cnt, gg);
        else if (stereo_out)
            k->mix_stereo(fl, fr, src, cnt, gg);
        else
            k->mix_downmix(fl, fr, src, cnt, gg);
    } else if (s->cubic == HL_INTERP_SINC) {
        const hl_sinc_kernels_t *sk = m->sk;
        if (ch == 1)
            sk->mono(fl, fr, src, cnt, frac, step, gg, s->sl);
        else if (stereo_out)
            sk->stereo(fl, fr, src, cnt, frac, step, gg, s->sl);
        else
            sk->downmix(fl, fr, src, cnt, frac, step, gg, s->sl);
    } else if (s->cubic) {
        if (ch == 1)
            k->cubic_mix_mono(fl, fr, src, avail, cnt, frac, step, gg);
        else if (stereo_out)
            k->cubic_mix_stereo(fl, fr, src, avail, cnt, frac, step, gg);
        else
            k->cubic_mix_downmix(fl, fr, src, avail, cnt, frac, step, gg);
    } else if (ch == 1) {
        k->interp_mix_mono(fl, fr, src, avail, cnt, frac, step, gg);
    } else if (stereo_out) {
        k->interp_mix_stereo(fl, fr, src, avail, cnt, frac, step, gg);
    } else {
        k->interp_mix_downmix(fl, fr, src, avail, cnt, frac, step, gg);
    }
}

/* Source frame i as a stream's decoder loops the sound (dstream.c), into
 * l / r (first, last channel): past the loop end at the loop start; once
 * the loop wrapped, the frames an interpolator reads before its start are
 * the loop's last ones; while the loop crossfades, its last xfade frames
 * blended with the frames before the loop start, out = x + w (pre - x),
 * w = (i - (le - xfade)) / xfade, the decoder's own operations (those of
 * the passes that looped for the frames before the start after a wrap).
 * Outside the data: silence. */
static void edge_frame(const src_view_t *s, int64_t i, float *l, float *r) {
    const hl_loop_view_t *lp = s->loop;
    int prev;
    const int64_t k = hl_src_index(s, i, &prev);
    if (k < 0) {
        *l = *r = 0.0f;
        return;
    }
    const float *p = s->data + (size_t)k * s->ch;
    float a = p[0], b = p[s->ch - 1], w;
    if (hl_loop_xfade_at(lp, k, prev, &w)) {
        const float *q = p - (size_t)(lp->le - lp->ls) * s->ch;
        a += w * (q[0] - a);
        b += w * (q[s->ch - 1] - b);
    }
    *l = a; /* mono: l and r may be one place */
    *r = b;
}

/* The edge path without a fade: buffer ends, loop points, the frames
 * before the interior. Each frame is the interior's kernel run on its own
 * taps as a stream's decoder produces them (edge_frame) in a small copy:
 * the same operations in the same order as wherever else the frame is
 * rendered, so a voice reads the same at an edge of its buffer as a
 * stream reads it in the middle of its window (the decoder loops and
 * crossfades in the ring, pads the end with silence). */
__attribute__((noinline, cold)) static void render_edge(const hl_mixer_t *m, const src_view_t *s,
                                                        uint64_t pos, uint32_t cnt, uint64_t step,
                                                        float *acc_l, float *acc_r,
                                                        const hl_gain_ramp_t *g, int stereo_out) {
    const uint32_t ch = s->ch;
    /* frames read before and after floor(pos) */
    uint32_t back = 0, ahead = 1;
    if (step == HL_FP_ONE && (uint32_t)pos == 0)
        ahead = 0;
    else if (s->cubic == HL_INTERP_SINC)
        back = s->sl->half - 1, ahead = s->sl->half;
    else if (s->cubic)
        back = 1, ahead = 2;
    float taps[2 * 2 * HL_SINC_MAX_HALF];
    for (uint32_t j = 0; j < cnt; j++, pos += step) {
        const int64_t i = (int64_t)(pos >> 32);
        for (uint32_t q = 0; q <= back + ahead; q++)
            edge_frame(s, i - (int64_t)back + q, &taps[q * ch], &taps[q * ch + ch - 1]);
        const hl_gain_ramp_t gj = hl_gain_from(g, j);
        src_kernel(m, s, taps + back * ch, ahead + 1, acc_l + j, acc_r + j, 1, (uint32_t)pos, step,
                   &gj, stereo_out);
    }
}

/* The cursor passed end_fp: wraps into the loop (returns 1) or ends (0)
 * (hl_voice_wrap_rt). */
static inline int wrap_cursor(hl_rt_voice_t *v, src_view_t *s, uint64_t *cur) {
    return hl_voice_wrap_rt(v, s, cur);
}

/* Renders n frames of source s from *cur into acc_l/acc_r with gain ramp g
 * at fixed-point step. Returns the frames rendered; sets *finished when the
 * source ended (loops wrap). Fast kernels in the interior, the same
 * kernels frame by frame at the edges and through a loop crossfade
 * (render_edge), the scalar path while a source fade runs. */
static inline __attribute__((always_inline)) uint32_t
render_src(hl_mixer_t *m, hl_rt_voice_t *v, src_view_t *s, uint64_t *cur, float *acc_l,
           float *acc_r, uint32_t n, const hl_gain_ramp_t *g, uint64_t step, int *finished) {
    const hl_mix_kernels_t *k = m->k;
    const uint32_t ch = s->ch;
    const int stereo_out = ch == 2 && !(v->flags & HL_MIX_3D);
    uint32_t done = 0;
    while (done < n) {
        sinc_follow(m, s, step); /* a wrap recomputes the view */
        uint32_t rest = n - done, cnt;
        const uint64_t c = *cur;
        uint32_t idx = (uint32_t)(c >> 32);
        uint32_t frac = (uint32_t)(c & HL_FP_FRAC);
        /* the ramp from this run's first frame on */
        const hl_gain_ramp_t gg = hl_gain_from(g, done);
        const int fade = v->xf.rem != 0 || v->xf.cur != 1.0f;
        const float *src = s->data + (size_t)idx * ch;
        if (!fade && step == HL_FP_ONE && frac == 0 && idx < s->copy_end) {
            /* straight copy path */
            uint32_t avail = s->copy_end - idx;
            cnt = rest < avail ? rest : avail;
            src_kernel(m, s, src, avail, acc_l + done, acc_r + done, cnt, 0, step, &gg, stereo_out);
            *cur += (uint64_t)cnt << 32;
        } else {
            const uint64_t lo = view_lo(s);
            if (!fade && c >= lo && c < s->lim_fp) {
                /* the whole rest fits before lim (the usual case): no division */
                if ((uint64_t)rest * step <= s->lim_fp - c) {
                    cnt = rest;
                } else {
                    uint64_t c64 = ceil_div(s->lim_fp - c, step);
                    cnt = c64 < rest ? (uint32_t)c64 : rest;
                }
                /* resample and mix in one pass, no scratch */
                src_kernel(m, s, src, s->frames - idx, acc_l + done, acc_r + done, cnt, frac, step,
                           &gg, stereo_out);
            } else {
                /* up to the interior (or the end), or through the fade */
                uint64_t stop = (!fade && c < lo) ? lo : s->end_fp;
                uint64_t c64 = stop > c ? ceil_div(stop - c, step) : 1;
                cnt = c64 < rest ? (uint32_t)c64 : rest;
                if (fade && v->xf.rem && v->xf.rem < cnt) cnt = v->xf.rem;
                if (!fade) {
                    render_edge(m, s, c, cnt, step, acc_l + done, acc_r + done, &gg, stereo_out);
                } else {
                    render_slow(m, v, s, c, cnt, step, stereo_out);
                    if (stereo_out)
                        k->mix_planar(acc_l + done, acc_r + done, m->scratch[0], m->scratch[1], cnt,
                                      &gg);
                    else
                        k->mix_mono(acc_l + done, acc_r + done, m->scratch[0], cnt, &gg);
                }
                ramp_advance(&v->xf, cnt);
            }
            *cur += (uint64_t)cnt * step;
        }
        done += cnt;
        if (*cur >= s->end_fp && !wrap_cursor(v, s, cur)) {
            *finished = 1;
            return done;
        }
    }
    return done;
}

_Static_assert(HL_STREAM_SCRATCH * 2 >= 2 * HL_MIX_BLOCK, "sbuf holds a PCM voice's own pair");

/* ---- non-finite guard ------------------------------------------------------------ */

/* The loader and the decoder zero NaN and infinite samples, so this is the
 * second line: one voice must never turn a bus into NaN for everyone.
 * 1 if every x[0..n) is finite (or the sum of a span of huge finite values
 * overflows, which only garbage does: muted too). One add per four samples:
 * Inf and NaN survive any sum of the others. */
static inline __attribute__((always_inline)) int span_finite(const float *x, uint32_t n) {
    uint32_t i = 0;
#if defined(__SSE2__)
    /* eight chains: bound by loads, not by the adds' latency */
    __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (; i + 32 <= n; i += 32) {
        a0 = _mm_add_ps(a0, _mm_loadu_ps(x + i));
        a1 = _mm_add_ps(a1, _mm_loadu_ps(x + i + 4));
        a2 = _mm_add_ps(a2, _mm_loadu_ps(x + i + 8));
        a3 = _mm_add_ps(a3, _mm_loadu_ps(x + i + 12));
        a4 = _mm_add_ps(a4, _mm_loadu_ps(x + i + 16));
        a5 = _mm_add_ps(a5, _mm_loadu_ps(x + i + 20));
        a6 = _mm_add_ps(a6, _mm_loadu_ps(x + i + 24));
        a7 = _mm_add_ps(a7, _mm_loadu_ps(x + i + 28));
    }
    for (; i + 4 <= n; i += 4)
        a0 = _mm_add_ps(a0, _mm_loadu_ps(x + i));
    a0 = _mm_add_ps(_mm_add_ps(_mm_add_ps(a0, a1), _mm_add_ps(a2, a3)),
                    _mm_add_ps(_mm_add_ps(a4, a5), _mm_add_ps(a6, a7)));
    a0 = _mm_mul_ps(a0, _mm_setzero_ps()); /* 0, or NaN for Inf/NaN */
    if (_mm_movemask_ps(_mm_cmpunord_ps(a0, a0))) return 0;
#endif
    float t = 0.0f;
    for (; i < n; i++)
        t += x[i];
    return t - t == 0.0f;
}

#endif /* HL_VOICE_SRC_H */
