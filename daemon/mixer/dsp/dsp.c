/*
 * dsp.c - the pure maths of the mixer (hl_dsp.h): gain and pan laws, distance
 * models, listener-relative panning and the output peak limiter.
 *
 * Every function is a pure computation over its arguments (the limiter only
 * touches the state the caller passes), so all of it is RT safe and each law
 * is unit-tested directly against the values in DESIGN.md. The limiter
 * checks a block with one vector pass first and returns at once when it is
 * below the threshold (the usual case), before its per-sample loop.
 */
#include "hl_dsp.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#define HL_SSE_LANES 4
#define HL_ABS_MASK  0x7FFFFFFF /* clears a float's sign bit */
#endif

#include "hl_limits.h"

#define HL_PI_4 0.78539816339744830962f

float hl_db_to_lin(float db) {
    if (!(db > HL_MIN_DB)) /* also catches NaN and -inf */
        return 0.0f;
    return powf(10.0f, db / 20.0f);
}

float hl_lin_to_db(float lin) {
    if (!(lin > 0.0f)) return HL_MIN_DB;
    float db = 20.0f * log10f(lin);
    return db < HL_MIN_DB ? HL_MIN_DB : db;
}

void hl_pan_equal_power(float pan, float *l, float *r) {
    if (!(pan > -1.0f)) pan = -1.0f;
    if (pan > 1.0f) pan = 1.0f;
    float theta = (pan + 1.0f) * HL_PI_4;
    float c = cosf(theta), s = sinf(theta);
    /* Exact ends, so hard left/right really silence the other side. */
    *l = pan >= 1.0f ? 0.0f : c;
    *r = pan <= -1.0f ? 0.0f : s;
}

float hl_distance_gain(int model, float d, float min_d, float max_d, float rolloff) {
    if (!(min_d > 0.0f)) min_d = 1e-6f;
    if (max_d < min_d) max_d = min_d;
    if (!(d > min_d)) /* NaN too */
        d = min_d;
    if (d > max_d) d = max_d;
    float g;
    switch (model) {
    case HL_MIX_DIST_LINEAR:
        g = max_d > min_d ? 1.0f - rolloff * (d - min_d) / (max_d - min_d) : 1.0f;
        break;
    case HL_MIX_DIST_INVERSE: {
        float den = min_d + rolloff * (d - min_d);
        g = den > 0.0f ? min_d / den : 1.0f;
        break;
    }
    case HL_MIX_DIST_EXPONENTIAL: g = powf(d / min_d, -rolloff); break;
    default: g = 1.0f; break;
    }
    if (!(g > 0.0f)) g = 0.0f;
    if (g > 1.0f) g = 1.0f;
    return g;
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Twice the angle (degrees) between the cone's axis and the listener as
 * seen from the source (OpenAL compares it with the full cone widths), or -1
 * when either vector is zero (no cone). */
static float cone_angle2(const float dir[3], const float src[3], const float lis[3]) {
    const float to[3] = {lis[0] - src[0], lis[1] - src[1], lis[2] - src[2]};
    if (!(dot3(dir, dir) > 0.0f) || !(dot3(to, to) > 0.0f)) return -1.0f;
    /* the angle between them as atan2(|a x b|, a . b): exact near 0 and 180 */
    const float cr[3] = {dir[1] * to[2] - dir[2] * to[1], dir[2] * to[0] - dir[0] * to[2],
                         dir[0] * to[1] - dir[1] * to[0]};
    return 2.0f * atan2f(sqrtf(dot3(cr, cr)), dot3(dir, to)) * (180.0f / 3.14159265358979f);
}

float hl_cone_gain(const float dir[3], const float src[3], const float lis[3], float inner,
                   float outer, float outer_gain) {
    const float angle = cone_angle2(dir, src, lis);
    if (angle < 0.0f) return 1.0f;
    if (angle >= outer) return outer_gain;
    if (angle <= inner) return 1.0f;
    return 1.0f + (outer_gain - 1.0f) * (angle - inner) / (outer - inner);
}

float hl_cone_frac(const float dir[3], const float src[3], const float lis[3], float inner,
                   float outer) {
    const float angle = cone_angle2(dir, src, lis);
    if (angle < 0.0f || angle <= inner) return 0.0f;
    if (angle >= outer) return 1.0f;
    return (angle - inner) / (outer - inner);
}

float hl_cone_lp(float frac, float outer_lp, float rate) {
    const float off = HL_CONE_LP_OFF_FRAC * rate;
    if (!(frac > 0.0f) || !(outer_lp > 0.0f) || outer_lp >= off) return 0.0f;
    return off * powf(outer_lp / off, frac > 1.0f ? 1.0f : frac);
}

/* Where x falls among the n >= 1 points d: returns i, the point after it,
 * with *t the fraction of the way from d[i - 1] to d[i]; 0 before the
 * first point (NaN too: the first value), n - 1 with *t 1 beyond the last
 * (the last value). */
static uint32_t curve_seg(uint32_t n, const float *d, float x, float *t) {
    *t = 1.0f;
    if (!(x > d[0])) return 0; /* NaN too */
    if (x >= d[n - 1]) return n - 1;
    uint32_t i = 1;
    while (x > d[i])
        i++;
    *t = (x - d[i - 1]) / (d[i] - d[i - 1]);
    return i;
}

float hl_curve_gain(uint32_t n, const float *d, const float *db, float x) {
    if (n == 0) return 1.0f;
    float t;
    const uint32_t i = curve_seg(n, d, x, &t);
    const float v = i && t < 1.0f ? db[i - 1] + (db[i] - db[i - 1]) * t : db[i];
    return v <= -144.0f ? 0.0f : hl_db_to_lin(v);
}

float hl_dcurve_lp(const hl_dcurve_t *c, float x, float rate) {
    if (c->n == 0) return 0.0f;
    float t;
    const uint32_t i = curve_seg(c->n, c->d, x, &t);
    const float hz = i && t < 1.0f ? c->v[i - 1] * powf(c->v[i] / c->v[i - 1], t) : c->v[i];
    return hz >= HL_CONE_LP_OFF_FRAC * rate ? 0.0f : hz;
}

int hl_dcurve_lp_valid(const hl_dcurve_t *c) {
    if (c->n > HL_MIX_CURVE_POINTS) return 0;
    for (uint32_t i = 0; i < c->n; i++) {
        if (!isfinite(c->d[i]) || c->d[i] < 0.0f || !(c->v[i] >= 10.0f && c->v[i] <= 96000.0f))
            return 0;
        if (i && !(c->d[i] > c->d[i - 1])) return 0;
    }
    return 1;
}

int hl_curve_valid(uint32_t n, const float *d, const float *db) {
    if (n > HL_MIX_CURVE_POINTS) return 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(d[i]) || d[i] < 0.0f || !(db[i] >= -144.0f && db[i] <= 24.0f)) return 0;
        if (i && !(d[i] > d[i - 1])) return 0;
    }
    return 1;
}

int hl_cone_valid(const float dir[3], float inner, float outer, float outer_gain) {
    return isfinite(dir[0]) && isfinite(dir[1]) && isfinite(dir[2]) && inner >= 0.0f &&
           inner <= outer && outer <= 360.0f && outer_gain >= 0.0f && outer_gain <= 1.0f;
}

float hl_spatial_pan(const float src[3], const float lis_pos[3], const float fwd[3],
                     const float up[3], float *pan) {
    float dir[3] = {src[0] - lis_pos[0], src[1] - lis_pos[1], src[2] - lis_pos[2]};
    float d = sqrtf(dot3(dir, dir));
    /* right = forward x up */
    float right[3] = {fwd[1] * up[2] - fwd[2] * up[1], fwd[2] * up[0] - fwd[0] * up[2],
                      fwd[0] * up[1] - fwd[1] * up[0]};
    float rl = sqrtf(dot3(right, right));
    float p = 0.0f;
    if (d > 1e-6f && rl > 1e-12f) p = dot3(dir, right) / (d * rl);
    if (!(p > -1.0f)) p = p < 0.0f ? -1.0f : 0.0f; /* -1 or NaN -> centre */
    if (p > 1.0f) p = 1.0f;
    *pan = p;
    return d;
}

static inline float max_f(float a, float b) {
    return a > b ? a : b;
}

static inline float clamp_unit(float x) {
    return x < -1.0f ? -1.0f : x > 1.0f ? 1.0f : x;
}

void hl_limiter_init(hl_limiter_t *l, float thresh, float release_ms, uint32_t rate) {
    l->env = 0.0f;
    l->thresh = thresh > 0.0f && thresh <= 1.0f ? thresh : HL_LIMITER_THRESH;
    l->env_max = l->thresh * HL_LIMITER_MAX_GR;
    float n = release_ms * (float)rate / 1000.0f;
    l->release = n > 1.0f ? expf(-1.0f / n) : 0.0f;
    l->active_blocks = 0;
}

/* 1 when every one of the n samples is finite and |x| <= thresh. Branch
 * free over the buffer (SSE2 where the target has it, else a plain loop the
 * compiler vectorises): the limiter's usual case costs one read pass. */
static int all_below(const float *x, uint32_t n, float thresh) {
    uint32_t i = 0;
#if defined(__SSE2__)
    const __m128 mask = _mm_castsi128_ps(_mm_set1_epi32(HL_ABS_MASK));
    const __m128 th = _mm_set1_ps(thresh);
    __m128 over = _mm_setzero_ps();
    for (; i + HL_SSE_LANES <= n; i += HL_SSE_LANES) {
        /* !(|x| <= thresh): also true for NaN and Inf */
        over = _mm_or_ps(over, _mm_cmpnle_ps(_mm_and_ps(_mm_loadu_ps(x + i), mask), th));
    }
    if (_mm_movemask_ps(over)) return 0;
#endif
    int ok = 1;
    for (; i < n; i++)
        ok &= fabsf(x[i]) <= thresh; /* false for NaN; Inf > thresh */
    return ok;
}

/* The limiter over ch interleaved channels, one envelope for all (linked):
 * inlined with ch = 2 for stereo, the same operations in the same order. */
static inline __attribute__((always_inline)) int limit(hl_limiter_t *l, float *buf, uint32_t frames,
                                                       uint32_t ch) {
    /* Fast path: an envelope at or under the threshold and a block that
     * stays there change nothing (the per-sample loop below would only
     * decay the envelope). Any envelope value <= thresh then gives the same
     * output later: the first sample above thresh resets the envelope to its
     * own peak either way. So the envelope is left as it is. */
    if (l->env <= l->thresh && all_below(buf, ch * frames, l->thresh)) return 0;
    float env = l->env;
    const float thresh = l->thresh, rel = l->release, env_max = l->env_max;
    int changed = 0;
    for (uint32_t i = 0; i < frames; i++) {
        float *x = buf + (size_t)ch * i;
        float pk = 0.0f;
        for (uint32_t c = 0; c < ch; c++) {
            if (!isfinite(x[c])) {
                x[c] = 0.0f;
                changed = 1;
            }
            pk = max_f(pk, fabsf(x[c]));
        }
        env *= rel;
        if (pk > env) env = pk < env_max ? pk : env_max; /* instant attack, bounded depth */
        if (env > thresh) {
            float g = thresh / env;
            /* final clamp: rounding never leaves [-1, 1], nor a peak past env_max */
            for (uint32_t c = 0; c < ch; c++)
                x[c] = clamp_unit(x[c] * g);
            changed = 1;
        }
    }
    l->env = env < 1e-20f ? 0.0f : env;
    if (changed) l->active_blocks++;
    return changed;
}

int hl_limiter_process_rt(hl_limiter_t *l, float *buf, uint32_t frames) {
    return limit(l, buf, frames, 2);
}

int hl_limiter_process_n_rt(hl_limiter_t *l, float *buf, uint32_t frames, uint32_t channels) {
    return limit(l, buf, frames, channels);
}
