/*
 * voice_post.c - the per-voice post stage on the audio thread: a voice that
 * needs it (hl_voice_post_needed_rt) is mixed into its own pair, then
 * rendered binaurally (HRTF), filtered (low/high-pass), scaled by its
 * occlusion gain and added to its bus and sends, each gain ramped.
 */
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "hl_simd.h"
#include "voice_post.h"

/* Scales planar buf by a ramp over n frames (linear while it runs, then flat). */
static void apply_gain_ramp(float *l, float *r, uint32_t n, hl_ramp_t *g) {
    uint32_t rn = g->rem < n ? g->rem : n;
    if (rn) {
        float g0 = g->cur, d = (ramp_after(g, rn) - g0) / (float)rn;
        for (uint32_t t = 0; t < rn; t++) {
            float gt = g0 + (float)(t + 1) * d;
            l[t] *= gt;
            r[t] *= gt;
        }
        ramp_advance(g, rn);
    }
    const float gc = g->cur;
    if (gc != 1.0f)
        for (uint32_t t = rn; t < n; t++) {
            l[t] *= gc;
            r[t] *= gc;
        }
}

/* A send: sl/sr += l/r times the send level, ramped per frame (linear
 * while the ramp runs, then flat), advancing the ramp. */
static void post_send_ramped(float *sl, float *sr, const float *l, const float *r, uint32_t n,
                             hl_ramp_t *g) {
    const uint32_t rn = g->rem < n ? g->rem : n;
    const float g0 = g->cur, d = rn ? (ramp_after(g, rn) - g0) / (float)rn : 0.0f;
    for (uint32_t t = 0; t < rn; t++) {
        const float gt = g0 + (float)(t + 1) * d;
        sl[t] += l[t] * gt;
        sr[t] += r[t] * gt;
    }
    ramp_advance(g, rn);
    const float gc = g->cur;
    for (uint32_t t = rn; t < n; t++) {
        sl[t] += l[t] * gc;
        sr[t] += r[t] * gc;
    }
}

/* y = x times a level ramped per frame (linear while the ramp runs, then
 * flat), advancing the ramp: post_send_ramped's products, into y. */
static void send_scaled(float *y, const float *x, uint32_t n, hl_ramp_t *g) {
    const uint32_t rn = g->rem < n ? g->rem : n;
    const float g0 = g->cur, d = rn ? (ramp_after(g, rn) - g0) / (float)rn : 0.0f;
    for (uint32_t t = 0; t < rn; t++)
        y[t] = x[t] * (g0 + (float)(t + 1) * d);
    ramp_advance(g, rn);
    const float gc = g->cur;
    for (uint32_t t = rn; t < n; t++)
        y[t] = x[t] * gc;
}

/* The sends of a voice that are on (level or target not 0), at most
 * HL_MAX_SENDS; returns how many, and whether any of them ramps; their buses
 * are added to *buses. */
static uint32_t post_sends(hl_rt_voice_t *v, uint32_t idx[HL_MAX_SENDS], uint32_t *ramping,
                           uint32_t *buses) {
    uint32_t k = 0;
    *ramping = 0;
    for (uint32_t i = 0; i < HL_MAX_SENDS; i++) {
        const hl_ramp_t *g = &v->send[i];
        if (g->cur == 0.0f && g->target == 0.0f) continue;
        *ramping |= g->rem != 0;
        *buses |= 1u << v->send_bus[i];
        idx[k++] = i;
    }
    return k;
}

/* The one pass while no level ramps: each frame y = (l * gl, r * gr),
 * then sends += y * level (the first two sends on) and bus += y, on the
 * planes cl, cr of the buses. l and r may be the same (a mono voice panned
 * by gl/gr). Inlined with constant planes for stereo (post_flat_rt), where
 * the compiler then knows the two planes apart and vectorises. */
static inline __attribute__((always_inline)) void
post_flat_at(hl_mixer_t *m, const hl_rt_voice_t *v, const uint32_t *idx, uint32_t ns,
             const float *l, const float *r, float gl, float gr, uint32_t n, uint32_t cl,
             uint32_t cr) {
    float *bl = m->acc[v->bus][cl], *br = m->acc[v->bus][cr];
    if (ns == 0) {
        for (uint32_t t = 0; t < n; t++) {
            bl[t] += l[t] * gl;
            br[t] += r[t] * gr;
        }
    } else if (ns == 1) {
        const uint32_t b0 = v->send_bus[idx[0]];
        float *s0l = m->acc[b0][cl], *s0r = m->acc[b0][cr];
        const float g0 = v->send[idx[0]].cur;
        for (uint32_t t = 0; t < n; t++) {
            const float yl = l[t] * gl, yr = r[t] * gr;
            s0l[t] += yl * g0;
            s0r[t] += yr * g0;
            bl[t] += yl;
            br[t] += yr;
        }
    } else {
        const uint32_t b0 = v->send_bus[idx[0]], b1 = v->send_bus[idx[1]];
        float *s0l = m->acc[b0][cl], *s0r = m->acc[b0][cr];
        float *s1l = m->acc[b1][cl], *s1r = m->acc[b1][cr];
        const float g0 = v->send[idx[0]].cur, g1 = v->send[idx[1]].cur;
        for (uint32_t t = 0; t < n; t++) {
            const float yl = l[t] * gl, yr = r[t] * gr;
            s0l[t] += yl * g0;
            s0r[t] += yr * g0;
            s1l[t] += yl * g1;
            s1r[t] += yr * g1;
            bl[t] += yl;
            br[t] += yr;
        }
    }
}

static void post_flat_rt(hl_mixer_t *m, const hl_rt_voice_t *v, const uint32_t *idx, uint32_t ns,
                         const float *l, const float *r, float gl, float gr, uint32_t n) {
    if (m->nch == 2)
        post_flat_at(m, v, idx, ns, l, r, gl, gr, n, 0, 1);
    else
        post_flat_at(m, v, idx, ns, l, r, gl, gr, n, v->f.cl, v->f.cr);
}

/* A height voice's (mixer_surround.c) filtered pair l/r (l = r, unpanned):
 * y = occlusion x (l + r) / 2 into l, then y and y x each send's level
 * (into r, ramped per frame) panned onto the bus and the send buses. */
static void post_height(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n,
                        uint32_t *buses) {
    uint32_t idx[HL_MAX_SENDS], ramping;
    const uint32_t ns = buses ? post_sends(v, idx, &ramping, buses) : 0;
    if (buses) apply_gain_ramp(l, r, n, &v->occ);
    for (uint32_t t = 0; t < n; t++)
        l[t] = 0.5f * (l[t] + r[t]);
    hl_surround_height_mix_rt(m, v, v->bus, l, n);
    for (uint32_t i = 0; i < ns; i++) {
        send_scaled(r, l, n, &v->send[idx[i]]);
        hl_surround_height_mix_rt(m, v, v->send_bus[idx[i]], r, n);
    }
}

void hl_voice_height_rt(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n) {
    post_height(m, v, l, r, n, NULL);
}

void hl_voice_height_steady_rt(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, uint32_t *mixed,
                               uint32_t *buses) {
    float *l = m->sbuf, *r = m->sbuf + HL_MIX_BLOCK;
    (*mixed)++;
    *buses |= 1u << v->f.bus;
    m->bus[v->f.bus].voices++;
    if (!hl_surround_height_flat_rt(m, v, l, r, n)) post_height(m, v, l, r, n, NULL);
}

/* Occlusion, sends and the bus for the voice's filtered pair l/r, in one
 * pass while no level ramps (each frame: y = x * occ, send += y * level,
 * bus += y: the same products and sums, in the same order, as the passes
 * below, so both give the same bits), else one pass per stage. */
static void post_mix(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n,
                     uint32_t *buses) {
    if (m->height && (v->flags & HL_MIX_3D)) {
        post_height(m, v, l, r, n, buses);
        return;
    }
    uint32_t idx[HL_MAX_SENDS], ramping;
    const uint32_t ns = post_sends(v, idx, &ramping, buses);
    float *bl = m->acc[v->bus][v->f.cl], *br = m->acc[v->bus][v->f.cr];
    if (v->occ.rem == 0 && !ramping) {
        post_flat_rt(m, v, idx, ns, l, r, v->occ.cur, v->occ.cur, n);
        return;
    }
    apply_gain_ramp(l, r, n, &v->occ);
    for (uint32_t i = 0; i < ns; i++) {
        const uint32_t b = v->send_bus[idx[i]];
        post_send_ramped(m->acc[b][v->f.cl], m->acc[b][v->f.cr], l, r, n, &v->send[idx[i]]);
    }
    for (uint32_t k = 0; k < n; k++) {
        bl[k] += l[k];
        br[k] += r[k];
    }
}

/* The post stage of a voice whose block was mixed into its own pair l/r:
 * binaural rendering (the pair is then the mono input in l, r the same,
 * and the ear pair replaces it), filter, occlusion gain, then into its bus
 * and its sends (each send's level ramped per frame). */
void hl_voice_post_rt(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n,
                      uint32_t *buses) {
    hl_voice_post_scaled_rt(m, v, l, r, n, -1.0f, buses);
}

void hl_voice_post_scaled_rt(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n,
                             float k, uint32_t *buses) {
    if (v->hrtf) {
        float *el = m->hbuf[0], *er = m->hbuf[1];
        memset(el, 0, n * sizeof(float));
        memset(er, 0, n * sizeof(float));
        /* gain 1: the distance gain and envelope are in the input, ramped per
         * frame; the filter changes (and crossfades) only with the direction */
        hl_hrtf_process_rt(m->hrtf, &m->hrtf_v[v->slot], l, n, v->hdir, 1.0f, el, er);
        l = el;
        r = er;
        m->hrtf_mixed++;
    }
    if (hl_vfilter_active(&v->vf)) {
        if (k >= 0.0f && !v->hrtf && hl_vfilter_mono_ok(&v->vf, 1.0f, k)) {
            /* r = k l: the filter is linear, so it runs on l alone (its
             * states k apart, as mono_ok checked) and r follows */
            hl_vfilter_process_mono_rt(&v->vf, l, l, n, 1.0f, k);
            for (uint32_t t = 0; t < n; t++)
                r[t] = k * l[t];
        } else {
            float *ch[2] = {l, r};
            hl_vfilter_process_rt(&v->vf, ch, 2, n);
        }
    }
    post_mix(m, v, l, r, n, buses);
    v->post = hl_voice_post_needed_rt(v);
    v->f.post = (uint16_t)v->post;
}

/* The post stage of a steady mono voice whose block, not yet panned, is in
 * `in` (the source span itself at pitch 1, else interpolated into vbuf[0]);
 * the filter (into vbuf[0]) runs once on it before the
 * pan (hl_vfilter_process_mono_rt: the same output as filtering the panned
 * pair, within rounding), then one pass pans it with the flat gain pair
 * times the occlusion gain into the bus and the sends. Ramping occlusion or
 * send levels go through the pair and post_mix instead. */
void hl_voice_post_mono_rt(hl_mixer_t *m, hl_rt_voice_t *v, const float *in, uint32_t n, float gl,
                           float gr, uint32_t *buses) {
    const float *u = in;
    if (hl_vfilter_active(&v->vf)) {
        hl_vfilter_process_mono_rt(&v->vf, in, m->vbuf[0], n, gl, gr);
        u = m->vbuf[0];
    }
    uint32_t idx[HL_MAX_SENDS], ramping;
    const uint32_t ns = post_sends(v, idx, &ramping, buses);
    if (v->occ.rem || ramping) {
        float *l = m->vbuf[0], *r = m->vbuf[1]; /* u may be vbuf[0]: r first */
        for (uint32_t t = 0; t < n; t++)
            r[t] = u[t] * gr;
        for (uint32_t t = 0; t < n; t++)
            l[t] = u[t] * gl;
        post_mix(m, v, l, r, n, buses);
    } else {
        const float o = v->occ.cur;
        post_flat_rt(m, v, idx, ns, u, u, gl * o, gr * o, n);
    }
    v->post = hl_voice_post_needed_rt(v);
    v->f.post = (uint16_t)v->post;
}

/* ---- the steady line's mono input ------------------------------------------ */

/* The unpanned source span of a steady mono voice's block (mixer_rt.c's
 * steady path): read in place at pitch 1, else interpolated into vbuf[0];
 * NULL when the block is not inside the interior (an edge: the full path). */
const float *hl_voice_mono_in_rt(hl_mixer_t *m, const hl_rt_fast_t *f, uint32_t n) {
    const uint64_t c = f->cursor, step = f->step;
    const uint32_t idx = (uint32_t)(c >> 32), frac = (uint32_t)(c & HL_FP_FRAC);
    const float *src = f->data + idx;
    float *u = m->vbuf[0];
    if (step == HL_FP_ONE && frac == 0 && idx < f->copy_end) {
        if (f->copy_end - idx < n) return NULL;
        return src; /* read in place: the source is the block */
    }
    if (c >= f->lim_fp || (uint64_t)n * step > f->lim_fp - c) return NULL;
    if (f->cubic == HL_INTERP_SINC) {
        const hl_sinc_level_t *sl = hl_sinc_level(m->sinc, step);
        if (c < (uint64_t)(sl->half - 1) << 32) return NULL;
        static const hl_gain_ramp_t unity = {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        memset(u, 0, n * sizeof(float));
        m->sk->mono(u, m->vbuf[1], src, n, frac, step, &unity, sl); /* right: + 0 */
    } else if (f->cubic) {
        if (c < HL_FP_ONE) return NULL;
        m->k->cubic_mono(u, src, n, frac, step);
    } else {
        m->k->interp_mono(u, src, n, frac, step);
    }
    return u;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* hl_voice_ramp_pan_rt's products eight frames at a time (AVX, no FMA:
 * the same multiplies and adds, lane by lane, as the four-frame form).
 * The frame counters kt (t + 1, exact in float) advance in two
 * independent vectors sixteen frames at a time: one add a step on each
 * chain instead of one chain through every step (the same values). */
__attribute__((target("avx"))) static void
ramp_pan_avx(float *u, const float *in, uint32_t rn, uint32_t n, float l0, float dl, float flat) {
    const __m256 vl0 = _mm256_set1_ps(l0), vdl = _mm256_set1_ps(dl), eight = _mm256_set1_ps(8.0f);
    const __m256 sixteen = _mm256_set1_ps(16.0f);
    __m256 kt = _mm256_setr_ps(1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f);
    __m256 kt2 = _mm256_add_ps(kt, eight);
    uint32_t t = 0;
    for (; t + 16 <= rn; t += 16) {
        _mm256_storeu_ps(u + t, _mm256_mul_ps(_mm256_loadu_ps(in + t),
                                              _mm256_add_ps(vl0, _mm256_mul_ps(kt, vdl))));
        _mm256_storeu_ps(u + t + 8, _mm256_mul_ps(_mm256_loadu_ps(in + t + 8),
                                                  _mm256_add_ps(vl0, _mm256_mul_ps(kt2, vdl))));
        kt = _mm256_add_ps(kt, sixteen);
        kt2 = _mm256_add_ps(kt2, sixteen);
    }
    for (; t + 8 <= rn; t += 8) {
        _mm256_storeu_ps(u + t, _mm256_mul_ps(_mm256_loadu_ps(in + t),
                                              _mm256_add_ps(vl0, _mm256_mul_ps(kt, vdl))));
        kt = _mm256_add_ps(kt, eight);
    }
    for (; t < rn; t++) {
        const float kt1 = (float)(int)(t + 1);
        u[t] = in[t] * (l0 + kt1 * dl);
    }
    const __m256 vf = _mm256_set1_ps(flat);
    for (; t + 16 <= n; t += 16) { /* the flat rest, two stores a step */
        _mm256_storeu_ps(u + t, _mm256_mul_ps(_mm256_loadu_ps(in + t), vf));
        _mm256_storeu_ps(u + t + 8, _mm256_mul_ps(_mm256_loadu_ps(in + t + 8), vf));
    }
    for (; t + 8 <= n; t += 8)
        _mm256_storeu_ps(u + t, _mm256_mul_ps(_mm256_loadu_ps(in + t), vf));
    for (; t < n; t++)
        u[t] = in[t] * flat;
}
#endif

/* r / l of a ramping gain pair whose two ramps keep one ratio over the
 * block (a gain ramp at a steady pan), else -1: from the pair at the
 * block's start (l0, r0) and where its ramp stands at its end (l1, r1). */
static inline float pair_ratio(float l0, float r0, float l1, float r1) {
    if (!(l0 > 0.0f && l1 > 0.0f && r0 >= 0.0f && r1 >= 0.0f)) return -1.0f;
    const float k = r0 / l0;
    return fabsf(r1 - k * l1) <= 1e-6f * (r1 + l1) ? k : -1.0f;
}

/* The gain ramp of mixer_rt.c's fast_ramped for a voice with a post stage whose pair keeps r = k l
 * (a gain ramp at a steady pan, k >= 0) and whose filter may run on one channel: the left channel
 * alone, with the gains fast_ramped gives it (the kernels' ramp, product for product), into
 * vbuf[0]; returned for the mono post stage with the pan pair (1, k). The pair, its second kernel
 * stream and the r = k l pass are saved: the block where a game parameter moves every voice of a
 * cue. *k: the pair's ratio over the block (-1: none), for the caller's post stage either way
 * (when the ramp's gains are not taken, fast_ramped's are not either). The ramp's gains and the
 * ratio computed once here. NULL when not taken (nothing done). */
const float *hl_voice_ramp_pan_rt(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, float *k) {
    hl_rt_fast_t *f = &v->f;
    uint32_t rn;
    hl_gain_ramp_t g1, g2;
    if (!hl_fast_ramp_gains(v, n, &rn, &g1, &g2)) return NULL;
    const float kr =
        pair_ratio(v->gl.cur, v->gr.cur, ramp_after(&v->gl, rn), ramp_after(&v->gr, rn));
    *k = kr;
    if (!(kr >= 0.0f) || v->hrtf) return NULL;
    if (hl_vfilter_active(&v->vf) && !hl_vfilter_mono_ok(&v->vf, 1.0f, kr)) return NULL;
    const float *in = hl_voice_mono_in_rt(m, f, n);
    if (!in) return NULL;
    float *u = m->vbuf[0];
    uint32_t t = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (hl_simd_level() >= HL_SIMD_AVX2) {
        ramp_pan_avx(u, in, rn, n, g1.l0, g1.dl, g2.l0);
        hl_fast_ramp_advance(v, rn, &g2);
        return u;
    }
#endif
#if defined(__SSE2__)
    /* four frames at a time (-O2 leaves these loops scalar); kt (t + 1) is
     * exact in float, ql is 0: the kernels' l0 + kt (dl + kt ql) */
    const __m128 vl0 = _mm_set1_ps(g1.l0), vdl = _mm_set1_ps(g1.dl), four = _mm_set1_ps(4.0f);
    __m128 kt = _mm_setr_ps(1.0f, 2.0f, 3.0f, 4.0f);
    for (; t + 4 <= rn; t += 4) {
        _mm_storeu_ps(u + t,
                      _mm_mul_ps(_mm_loadu_ps(in + t), _mm_add_ps(vl0, _mm_mul_ps(kt, vdl))));
        kt = _mm_add_ps(kt, four);
    }
#endif
    for (; t < rn; t++) {
        const float kt1 = (float)(int)(t + 1);
        u[t] = in[t] * (g1.l0 + kt1 * g1.dl);
    }
#if defined(__SSE2__)
    const __m128 l1v = _mm_set1_ps(g2.l0);
    for (; t + 4 <= n; t += 4)
        _mm_storeu_ps(u + t, _mm_mul_ps(_mm_loadu_ps(in + t), l1v));
#endif
    for (; t < n; t++)
        u[t] = in[t] * g2.l0;
    hl_fast_ramp_advance(v, rn, &g2);
    return u;
}
