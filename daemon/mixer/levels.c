/*
 * levels.c - the audio thread's block-level helpers: peaks and sums of
 * squares for the meters, and the master's interleave into the output.
 * SSE2 where the target has it (several independent chains: a max or an add
 * has a latency of several cycles), plain C otherwise. Audio thread; nothing
 * here locks, allocates or waits.
 */
#include <math.h>
#include <stddef.h>

#include "mixer_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__SSE2__)
/* Peaks with SSE2 max: _mm_max_ps(a, b) returns b when a is NaN, so a NaN
 * sample (always the first operand) is ignored, as a float compare would. */
#define HL_SSE_LANES 4
#define HL_ABS_MASK  0x7FFFFFFF /* clears a float's sign bit */

static inline __m128 abs_ps(__m128 x) {
    return _mm_and_ps(x, _mm_castsi128_ps(_mm_set1_epi32(HL_ABS_MASK)));
}

static inline float hmax_ps(__m128 m) {
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 1, 1, 1)));
    return _mm_cvtss_f32(m);
}

/* Max of |x| over n floats into m, four independent chains (a max has a
 * latency of several cycles; one chain would wait on it every vector). */
static inline __m128 max_abs_ps(const float *x, uint32_t *pi, uint32_t n, __m128 m) {
    __m128 m1 = m, m2 = m, m3 = m;
    uint32_t i = *pi;
    for (; i + 4 * HL_SSE_LANES <= n; i += 4 * HL_SSE_LANES) {
        m = _mm_max_ps(abs_ps(_mm_loadu_ps(x + i)), m);
        m1 = _mm_max_ps(abs_ps(_mm_loadu_ps(x + i + HL_SSE_LANES)), m1);
        m2 = _mm_max_ps(abs_ps(_mm_loadu_ps(x + i + 2 * HL_SSE_LANES)), m2);
        m3 = _mm_max_ps(abs_ps(_mm_loadu_ps(x + i + 3 * HL_SSE_LANES)), m3);
    }
    for (; i + HL_SSE_LANES <= n; i += HL_SSE_LANES)
        m = _mm_max_ps(abs_ps(_mm_loadu_ps(x + i)), m);
    *pi = i;
    return _mm_max_ps(_mm_max_ps(m, m1), _mm_max_ps(m2, m3));
}

float hl_peak_abs_rt(const float *x, uint32_t n, float pk) {
    uint32_t t = 0;
    __m128 m = max_abs_ps(x, &t, n, _mm_set1_ps(pk));
    for (; t < n; t++)
        m = _mm_max_ss(abs_ps(_mm_load_ss(x + t)), m);
    return hmax_ps(m);
}

/* Peaks of the two channels of interleaved stereo: even lanes are left. */
void hl_peak_stereo_rt(const float *x, uint32_t frames, float *pl, float *pr) {
    uint32_t i = 0, n = 2 * frames;
    __m128 m = max_abs_ps(x, &i, n, _mm_setzero_ps());
    if (i < n) /* one frame left */
        m = _mm_max_ps(
            abs_ps(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(x + i)))), m);
    m = _mm_max_ps(m, _mm_movehl_ps(m, m)); /* lanes 0 and 1: left, right */
    *pl = _mm_cvtss_f32(m);
    *pr = _mm_cvtss_f32(_mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 1, 1, 1)));
}
#else
float hl_peak_abs_rt(const float *x, uint32_t n, float pk) {
    for (uint32_t t = 0; t < n; t++) {
        float a = fabsf(x[t]);
        pk = a > pk ? a : pk; /* NaN compares false: ignored */
    }
    return pk;
}

void hl_peak_stereo_rt(const float *x, uint32_t frames, float *pl, float *pr) {
    float ml = 0.0f, mr = 0.0f;
    for (uint32_t t = 0; t < frames; t++) {
        float a = fabsf(x[2 * t]), b = fabsf(x[2 * t + 1]);
        ml = a > ml ? a : ml;
        mr = b > mr ? b : mr;
    }
    *pl = ml;
    *pr = mr;
}
#endif

#if defined(__SSE2__)
/* Sums of squares with SSE2: four vector accumulators, sixteen float chains
 * (an add has a latency of several cycles: one chain would wait on it every
 * vector). Over at most one block (256 samples) float keeps 24 bits, plenty
 * for a meter; the chains are added in double. */
#define HL_SQ_VECS 4
#define HL_SQ_STEP (HL_SQ_VECS * HL_SSE_LANES)

static inline __m128 sq_add(__m128 acc, const float *x) {
    __m128 v = _mm_loadu_ps(x);
    return _mm_add_ps(acc, _mm_mul_ps(v, v));
}

/* The four accumulators over x[*pi ...] in whole steps, reduced to one. */
static inline __m128 sq_chains(const float *x, uint32_t *pi, uint32_t n) {
    __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    uint32_t t = *pi;
    for (; t + HL_SQ_STEP <= n; t += HL_SQ_STEP) {
        a0 = sq_add(a0, x + t);
        a1 = sq_add(a1, x + t + HL_SSE_LANES);
        a2 = sq_add(a2, x + t + 2 * HL_SSE_LANES);
        a3 = sq_add(a3, x + t + 3 * HL_SSE_LANES);
    }
    for (; t + HL_SSE_LANES <= n; t += HL_SSE_LANES)
        a0 = sq_add(a0, x + t);
    *pi = t;
    return _mm_add_ps(_mm_add_ps(a0, a1), _mm_add_ps(a2, a3));
}

double hl_sumsq_rt(const float *x, uint32_t n) {
    uint32_t t = 0;
    float l[HL_SSE_LANES];
    _mm_storeu_ps(l, sq_chains(x, &t, n));
    double s = (double)l[0] + (double)l[1] + (double)l[2] + (double)l[3];
    for (; t < n; t++)
        s += (double)x[t] * x[t];
    return s;
}

/* Sum of squares of each channel of interleaved stereo, one block at a
 * time: even lanes are left, odd ones right. */
void hl_sumsq_stereo_rt(const float *x, uint32_t frames, double *sl, double *sr) {
    for (uint32_t done = 0; done < frames;) {
        uint32_t n = frames - done < HL_MIX_BLOCK ? frames - done : HL_MIX_BLOCK;
        const float *p = x + 2 * (size_t)done;
        uint32_t t = 0;
        float l[HL_SSE_LANES];
        _mm_storeu_ps(l, sq_chains(p, &t, 2 * n));
        double dl = (double)l[0] + (double)l[2], dr = (double)l[1] + (double)l[3];
        for (; t < 2 * n; t += 2) { /* at most one frame */
            dl += (double)p[t] * p[t];
            dr += (double)p[t + 1] * p[t + 1];
        }
        *sl += dl;
        *sr += dr;
        done += n;
    }
}

void hl_interleave_rt(float *out, const float *l, const float *r, uint32_t n) {
    uint32_t t = 0;
    for (; t + HL_SSE_LANES <= n; t += HL_SSE_LANES) {
        __m128 a = _mm_loadu_ps(l + t), b = _mm_loadu_ps(r + t);
        _mm_storeu_ps(out + 2 * t, _mm_unpacklo_ps(a, b));
        _mm_storeu_ps(out + 2 * t + HL_SSE_LANES, _mm_unpackhi_ps(a, b));
    }
    for (; t < n; t++) {
        out[2 * t] = l[t];
        out[2 * t + 1] = r[t];
    }
}
#else
double hl_sumsq_rt(const float *x, uint32_t n) {
    /* four float chains over at most one block (256 samples: float keeps 24
     * bits, plenty for a meter), added in double */
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    uint32_t t = 0;
    for (; t + 4 <= n; t += 4) {
        a0 += x[t] * x[t];
        a1 += x[t + 1] * x[t + 1];
        a2 += x[t + 2] * x[t + 2];
        a3 += x[t + 3] * x[t + 3];
    }
    for (; t < n; t++)
        a0 += x[t] * x[t];
    return (double)a0 + (double)a1 + (double)a2 + (double)a3;
}

/* Sum of squares of each channel of interleaved stereo, one block at a time. */
void hl_sumsq_stereo_rt(const float *x, uint32_t frames, double *sl, double *sr) {
    for (uint32_t done = 0; done < frames;) {
        uint32_t n = frames - done < HL_MIX_BLOCK ? frames - done : HL_MIX_BLOCK;
        const float *p = x + 2 * (size_t)done;
        float l0 = 0.0f, r0 = 0.0f, l1 = 0.0f, r1 = 0.0f;
        uint32_t t = 0;
        for (; t + 2 <= n; t += 2) {
            l0 += p[2 * t] * p[2 * t];
            r0 += p[2 * t + 1] * p[2 * t + 1];
            l1 += p[2 * t + 2] * p[2 * t + 2];
            r1 += p[2 * t + 3] * p[2 * t + 3];
        }
        if (t < n) {
            l0 += p[2 * t] * p[2 * t];
            r0 += p[2 * t + 1] * p[2 * t + 1];
        }
        *sl += (double)l0 + (double)l1;
        *sr += (double)r0 + (double)r1;
        done += n;
    }
}

void hl_interleave_rt(float *out, const float *l, const float *r, uint32_t n) {
    for (uint32_t t = 0; t < n; t++) {
        out[2 * t] = l[t];
        out[2 * t + 1] = r[t];
    }
}
#endif

/* Scales planar l/r by the product of three ramps over n frames: each is
 * linear while it runs, so the product is exact at every frame's end. */
void hl_gain3_rt(float *l, float *r, uint32_t n, hl_ramp_t *a, hl_ramp_t *b, hl_ramp_t *c) {
    if (!(a->rem | b->rem | c->rem)) {
        const float g = a->cur * b->cur * c->cur;
        if (g != 1.0f)
            for (uint32_t t = 0; t < n; t++) {
                l[t] *= g;
                r[t] *= g;
            }
        return;
    }
    const float a0 = a->cur, b0 = b->cur, c0 = c->cur;
    const uint32_t an = a->rem < n ? a->rem : n, bn = b->rem < n ? b->rem : n,
                   cn = c->rem < n ? c->rem : n;
    const float da = an ? (ramp_after(a, an) - a0) / (float)an : 0.0f;
    const float db = bn ? (ramp_after(b, bn) - b0) / (float)bn : 0.0f;
    const float dc = cn ? (ramp_after(c, cn) - c0) / (float)cn : 0.0f;
    for (uint32_t t = 0; t < n; t++) {
        const float k = (float)(t + 1);
        const float ga = t < an ? a0 + k * da : ramp_after(a, an);
        const float gb = t < bn ? b0 + k * db : ramp_after(b, bn);
        const float gc = t < cn ? c0 + k * dc : ramp_after(c, cn);
        const float g = ga * gb * gc;
        l[t] *= g;
        r[t] *= g;
    }
    ramp_advance(a, n);
    ramp_advance(b, n);
    ramp_advance(c, n);
}
