/*
 * sinc.c - the band-limited interpolator's tables and kernels (hl_sinc.h).
 *
 * Kernel of level k at tap j for fractional position f:
 *   t = j - (half - 1) - f            (distance from the output position)
 *   h = fc sinc(fc t) I0(beta sqrt(1 - (t / half)^2)) / I0(beta)
 * with fc = HL_SINC_CUTOFF / 2^(k/8); each row is normalised to a DC gain of
 * exactly 1, so a constant comes out constant at every position.
 *
 * The portable kernels keep eight partial sums so the compiler vectorises
 * them without reassociating floats; the AVX2+FMA ones do the same with
 * intrinsics (8 lanes, two rows blended with one FMA), and the AVX-512 ones
 * at 16 lanes. All compute the same sums in a different order: they agree
 * within float rounding (tests/unit/test_sinc.c).
 */
#include "hl_sinc.h"

#include <math.h>
#include <string.h>

#include "hl_simd.h"
#include "hl_util.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HL_SINC_X86 1
#endif

#define PHASE_BITS 6 /* log2 HL_SINC_PHASES */
_Static_assert((1u << PHASE_BITS) == HL_SINC_PHASES, "phase bits");
#define FRAC_MASK ((1u << (32 - PHASE_BITS)) - 1u) /* the bits below the phase index */
#define W_SCALE   (1.0f / (float)(1u << (32 - PHASE_BITS)))

static uint32_t level_half(unsigned k) {
    double scale = pow(2.0, (double)k / 8.0);
    uint32_t h = (uint32_t)ceil(HL_SINC_HALF * scale - 1e-9);
    return (h + 3) & ~3u; /* taps a multiple of 8 */
}

static size_t level_floats(unsigned k) {
    return (size_t)HL_SINC_PHASES * 2 * 2 * level_half(k);
}

size_t hl_sinc_size(void) {
    size_t n = 0;
    for (unsigned k = 0; k < HL_SINC_LEVELS; k++)
        n += level_floats(k);
    return sizeof(hl_sinc_t) + 64 + n * sizeof(float);
}

/* Row p (fractional position p / PHASES) of a kernel into v[0..taps). */
static void kernel_row(double *v, uint32_t half, double fc, double i0b, uint32_t p) {
    uint32_t taps = 2 * half;
    double sum = 0.0;
    for (uint32_t j = 0; j < taps; j++) {
        double t = (double)j - (double)(half - 1) - (double)p / HL_SINC_PHASES;
        double x = t / (double)half, w = 0.0;
        if (x > -1.0 && x < 1.0) w = hl_bessel_i0(HL_SINC_BETA * sqrt(1.0 - x * x)) / i0b;
        double a = M_PI * fc * t;
        v[j] = fc * (fabs(a) < 1e-12 ? 1.0 : sin(a) / a) * w;
        sum += v[j];
    }
    for (uint32_t j = 0; j < taps; j++)
        v[j] /= sum;
}

const hl_sinc_t *hl_sinc_init(void *mem, size_t size) {
    if (!mem || ((uintptr_t)mem & 15) || size < hl_sinc_size()) return NULL;
    hl_sinc_t *s = mem;
    memset(s, 0, sizeof *s);
    float *p = (float *)(((uintptr_t)(s + 1) + 63) & ~(uintptr_t)63);
    double i0b = hl_bessel_i0(HL_SINC_BETA);
    double cur[2 * HL_SINC_MAX_HALF], next[2 * HL_SINC_MAX_HALF], first[2 * HL_SINC_MAX_HALF];
    for (unsigned k = 0; k < HL_SINC_LEVELS; k++) {
        hl_sinc_level_t *lv = &s->lv[k];
        double scale = pow(2.0, (double)k / 8.0);
        lv->half = level_half(k);
        lv->taps = 2 * lv->half;
        lv->max_step = (uint64_t)(scale * 4294967296.0);
        lv->rows = p;
        double fc = HL_SINC_CUTOFF / scale;
        kernel_row(cur, lv->half, fc, i0b, 0);
        memcpy(first, cur, sizeof(double) * lv->taps);
        for (uint32_t ph = 0; ph < HL_SINC_PHASES; ph++) {
            /* row PHASES is row 0 shifted by one tap: the delta of the last row */
            if (ph + 1 < HL_SINC_PHASES) {
                kernel_row(next, lv->half, fc, i0b, ph + 1);
            } else { /* position 1.0: row 0 one tap later (its ends are 0) */
                next[0] = 0.0;
                memcpy(next + 1, first, sizeof(double) * (lv->taps - 1));
            }
            float *row = p + (size_t)ph * 2 * lv->taps;
            for (uint32_t j = 0; j < lv->taps; j++) {
                row[j] = (float)cur[j];
                row[lv->taps + j] = (float)(next[j] - cur[j]);
            }
            memcpy(cur, next, sizeof(double) * lv->taps);
        }
        p += level_floats(k);
    }
    return s;
}

/* RT */
void hl_sinc_kernel(const hl_sinc_level_t *lv, uint32_t frac, float *k) {
    const uint32_t taps = lv->taps;
    const float *row = lv->rows + (size_t)(frac >> (32 - PHASE_BITS)) * 2 * taps;
    const float w = (float)(frac & FRAC_MASK) * W_SCALE;
    for (uint32_t j = 0; j < taps; j++)
        k[j] = row[j] + w * row[taps + j];
}

/* ---- portable kernels ------------------------------------------------------------ */

static inline float gain_at(float g0, float d, float q, float k0, uint32_t t) {
    float k = k0 + (float)(t + 1);
    return g0 + k * (d + k * q);
}

/* RT: one output of a mono source at the row/w given. */
static inline float dot_mono(const float *row, uint32_t taps, float w, const float *x) {
    float a[8] = {0};
    for (uint32_t j = 0; j < taps; j += 8)
        for (uint32_t l = 0; l < 8; l++)
            a[l] += (row[j + l] + w * row[taps + j + l]) * x[j + l];
    return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}

static inline void dot_stereo(const float *row, uint32_t taps, float w, const float *x, float *l,
                              float *r) {
    float a[8] = {0}, b[8] = {0};
    for (uint32_t j = 0; j < taps; j += 8)
        for (uint32_t q = 0; q < 8; q++) {
            float c = row[j + q] + w * row[taps + j + q];
            a[q] += c * x[2 * (j + q)];
            b[q] += c * x[2 * (j + q) + 1];
        }
    *l = ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
    *r = ((b[0] + b[4]) + (b[1] + b[5])) + ((b[2] + b[6]) + (b[3] + b[7]));
}

#define ROW_OF(lv, f)      ROW_T(lv, f, (lv)->taps)
#define ROW_T(lv, f, taps) ((lv)->rows + (size_t)((f) >> (32 - PHASE_BITS)) * 2 * (taps))
#define W_OF(f)            ((float)((f)&FRAC_MASK) * W_SCALE)

static void mix_mono_generic(float *acc_l, float *acc_r, const float *src, uint32_t n, uint64_t pos,
                             uint64_t step, const hl_gain_ramp_t *g, const hl_sinc_level_t *lv) {
    const uint32_t taps = lv->taps, back = lv->half - 1;
    for (uint32_t t = 0; t < n; t++, pos += step) {
        uint32_t f = (uint32_t)pos;
        const float *x = src + (int64_t)(pos >> 32) - back;
        float v = dot_mono(ROW_OF(lv, f), taps, W_OF(f), x);
        acc_l[t] += v * gain_at(g->l0, g->dl, g->ql, g->k0, t);
        acc_r[t] += v * gain_at(g->r0, g->dr, g->qr, g->k0, t);
    }
}

/* Interleaved stereo, one output at a time with the dot product DOT: left
 * and right with their own gains, or (mix_downmix) their mean panned with
 * the pair (a 3D voice). One body for every instruction set. */
#define HL_SINC_STEREO_KERNELS(SUFFIX, ATTR, DOT)                                                  \
    ATTR static inline __attribute__((always_inline)) void stereo_##SUFFIX(                        \
        float *acc_l, float *acc_r, const float *src, uint32_t n, uint64_t pos, uint64_t step,     \
        const hl_gain_ramp_t *g, const hl_sinc_level_t *lv, const int down) {                      \
        const uint32_t taps = lv->taps, back = lv->half - 1;                                       \
        for (uint32_t t = 0; t < n; t++, pos += step) {                                            \
            uint32_t f = (uint32_t)pos;                                                            \
            float l, r;                                                                            \
            DOT(ROW_OF(lv, f), taps, W_OF(f), src + 2 * ((int64_t)(pos >> 32) - back), &l, &r);    \
            if (down) l = r = (l + r) * 0.5f;                                                      \
            acc_l[t] += l * gain_at(g->l0, g->dl, g->ql, g->k0, t);                                \
            acc_r[t] += r * gain_at(g->r0, g->dr, g->qr, g->k0, t);                                \
        }                                                                                          \
    }                                                                                              \
    ATTR static void mix_stereo_##SUFFIX(float *acc_l, float *acc_r, const float *src, uint32_t n, \
                                         uint64_t pos, uint64_t step, const hl_gain_ramp_t *g,     \
                                         const hl_sinc_level_t *lv) {                              \
        stereo_##SUFFIX(acc_l, acc_r, src, n, pos, step, g, lv, 0);                                \
    }                                                                                              \
    ATTR static void mix_downmix_##SUFFIX(float *acc_l, float *acc_r, const float *src,            \
                                          uint32_t n, uint64_t pos, uint64_t step,                 \
                                          const hl_gain_ramp_t *g, const hl_sinc_level_t *lv) {    \
        stereo_##SUFFIX(acc_l, acc_r, src, n, pos, step, g, lv, 1);                                \
    }

HL_SINC_STEREO_KERNELS(generic, , dot_stereo)

const hl_sinc_kernels_t hl_sinc_kernels_generic = {mix_mono_generic, mix_stereo_generic,
                                                   mix_downmix_generic};

/* ---- AVX2 + FMA ------------------------------------------------------------------ */
#ifdef HL_SINC_X86
#define AVX2 __attribute__((target("avx2,fma")))

/* Eight vectors of partial sums to one vector of their eight totals. */
AVX2 static inline __m256 reduce8(const __m256 s[8]) {
    __m256 a01 = _mm256_hadd_ps(s[0], s[1]), a23 = _mm256_hadd_ps(s[2], s[3]);
    __m256 a45 = _mm256_hadd_ps(s[4], s[5]), a67 = _mm256_hadd_ps(s[6], s[7]);
    __m256 b0 = _mm256_hadd_ps(a01, a23), b1 = _mm256_hadd_ps(a45, a67);
    return _mm256_add_ps(_mm256_permute2f128_ps(b0, b1, 0x20),
                         _mm256_permute2f128_ps(b0, b1, 0x31));
}

/* The eight partial sums of one output added in reduce8's order: an
 * output of a run's scalar tail is the sum its lane of the vector loop
 * gets (where a run ends must not change a frame: voice_src.h). */
AVX2 static inline float hsum_r8(__m256 a) {
    const __m256 x = _mm256_hadd_ps(a, a);
    const __m256 y = _mm256_hadd_ps(x, x);
    return _mm_cvtss_f32(_mm_add_ss(_mm256_castps256_ps128(y), _mm256_extractf128_ps(y, 1)));
}

/* The vector loops' mix of one output: the ramp polynomial (flat: the
 * constant gains) and the accumulation fused as theirs. */
AVX2 static inline void tail_mix(float *acc_l, float *acc_r, uint32_t t, float v,
                                 const hl_gain_ramp_t *g, const int flat) {
    float gl = g->l0, gr = g->r0;
    if (!flat) {
        const float k = g->k0 + (float)(t + 1);
        gl = fmaf(k, fmaf(k, g->ql, g->dl), g->l0);
        gr = fmaf(k, fmaf(k, g->qr, g->dr), g->r0);
    }
    acc_l[t] = fmaf(v, gl, acc_l[t]);
    acc_r[t] = fmaf(v, gr, acc_r[t]);
}

/* One output's 8 partial sums (mono) for a kernel of nv x 8 taps, nv a
 * constant where it is inlined (the loop unrolls). */
AVX2 static inline __attribute__((always_inline)) __m256
dotn_mono(const float *row, uint32_t taps, __m256 w, const float *x, const uint32_t nv) {
    __m256 a = _mm256_setzero_ps();
#pragma GCC unroll 16
    for (uint32_t i = 0; i < nv; i++) {
        __m256 c =
            _mm256_fmadd_ps(w, _mm256_loadu_ps(row + taps + 8 * i), _mm256_loadu_ps(row + 8 * i));
        a = _mm256_fmadd_ps(c, _mm256_loadu_ps(x + 8 * i), a);
    }
    return a;
}

/* Lane q (0..3) of a vector whose two halves are equal, in every lane. */
AVX2 static inline __attribute__((always_inline)) __m256 lane_bcast(__m256 h, const int q) {
    return q == 0   ? _mm256_permute_ps(h, 0x00)
           : q == 1 ? _mm256_permute_ps(h, 0x55)
           : q == 2 ? _mm256_permute_ps(h, 0xAA)
                    : _mm256_permute_ps(h, 0xFF);
}

/* Eight outputs at a time: their dot products reduced together, the gain
 * ramp evaluated as a vector (or, for a flat gain pair, not at all). The
 * eight blend weights come from one vector conversion of the eight
 * positions' fractions, each spread with an in-lane permute: per output in
 * scalar code (convert, scale, broadcast) they cost about 7% of the loop. */
AVX2 static inline __attribute__((always_inline)) void
mono_run(float *acc_l, float *acc_r, const float *src, uint32_t n, uint64_t pos, uint64_t step,
         const hl_gain_ramp_t *g, const hl_sinc_level_t *lv, const uint32_t nv, const int flat) {
    const uint32_t taps = 8 * nv, back = taps / 2 - 1; /* constants where inlined */
    const __m256 l0 = _mm256_set1_ps(g->l0), dl = _mm256_set1_ps(g->dl), ql = _mm256_set1_ps(g->ql);
    const __m256 r0 = _mm256_set1_ps(g->r0), dr = _mm256_set1_ps(g->dr), qr = _mm256_set1_ps(g->qr);
    __m256 k = _mm256_add_ps(_mm256_setr_ps(1, 2, 3, 4, 5, 6, 7, 8), _mm256_set1_ps(g->k0));
    const __m256 eight = _mm256_set1_ps(8.0f);
    uint32_t t = 0;
    const uint32_t slo = (uint32_t)step;
    __m256i fr = _mm256_add_epi32(
        _mm256_set1_epi32((int)(uint32_t)pos),
        _mm256_mullo_epi32(_mm256_set1_epi32((int)slo), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
    const __m256i fr8 = _mm256_set1_epi32((int)(slo * 8u));
    const __m256i fmask = _mm256_set1_epi32((int)FRAC_MASK);
    const __m256 wscale = _mm256_set1_ps(W_SCALE);
    for (; t + 8 <= n; t += 8, k = _mm256_add_ps(k, eight)) {
        __m256 s[8];
        __m256 wv = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(fr, fmask)), wscale);
        fr = _mm256_add_epi32(fr, fr8);
        __m256 wlo = _mm256_permute2f128_ps(wv, wv, 0x00),
               whi = _mm256_permute2f128_ps(wv, wv, 0x11);
#pragma GCC unroll 8
        for (int u = 0; u < 8; u++, pos += step) {
            uint32_t f = (uint32_t)pos;
            s[u] = dotn_mono(ROW_T(lv, f, taps), taps, lane_bcast(u < 4 ? wlo : whi, u % 4),
                             src + (int64_t)(pos >> 32) - back, nv);
        }
        __m256 v = reduce8(s);
        __m256 gl = l0, gr = r0;
        if (!flat) {
            gl = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, ql, dl), l0);
            gr = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, qr, dr), r0);
        }
        _mm256_storeu_ps(acc_l + t, _mm256_fmadd_ps(v, gl, _mm256_loadu_ps(acc_l + t)));
        _mm256_storeu_ps(acc_r + t, _mm256_fmadd_ps(v, gr, _mm256_loadu_ps(acc_r + t)));
    }
    for (; t < n; t++, pos += step) {
        uint32_t f = (uint32_t)pos;
        float v = hsum_r8(dotn_mono(ROW_T(lv, f, taps), taps, _mm256_set1_ps(W_OF(f)),
                                    src + (int64_t)(pos >> 32) - back, nv));
        tail_mix(acc_l, acc_r, t, v, g, flat);
    }
}

/* The common kernel lengths get their own unrolled loops. */
AVX2 static void mix_mono_avx2(float *acc_l, float *acc_r, const float *src, uint32_t n,
                               uint64_t pos, uint64_t step, const hl_gain_ramp_t *g,
                               const hl_sinc_level_t *lv) {
    const int flat = g->dl == 0.0f && g->ql == 0.0f && g->dr == 0.0f && g->qr == 0.0f;
    switch (lv->taps) {
    case 24:
        if (flat)
            mono_run(acc_l, acc_r, src, n, pos, step, g, lv, 3, 1);
        else
            mono_run(acc_l, acc_r, src, n, pos, step, g, lv, 3, 0);
        break;
    case 32:
        if (flat)
            mono_run(acc_l, acc_r, src, n, pos, step, g, lv, 4, 1);
        else
            mono_run(acc_l, acc_r, src, n, pos, step, g, lv, 4, 0);
        break;
    case 40: mono_run(acc_l, acc_r, src, n, pos, step, g, lv, 5, 0); break;
    case 48: mono_run(acc_l, acc_r, src, n, pos, step, g, lv, 6, 0); break;
    default: mono_run(acc_l, acc_r, src, n, pos, step, g, lv, lv->taps / 8, 0); break;
    }
}

/* Interleaved stereo: 4 frames per 8-lane load; each coefficient serves the
 * L and R lanes of its frame (duplicated with a permute). */
AVX2 static inline void dot_stereo_avx2(const float *row, uint32_t taps, float wf, const float *x,
                                        float *l, float *r) {
    const __m256 w = _mm256_set1_ps(wf);
    const __m256i lo = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
    const __m256i hi = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    for (uint32_t j = 0; j < taps; j += 8) {
        __m256 c = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + taps + j), _mm256_loadu_ps(row + j));
        a0 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(c, lo), _mm256_loadu_ps(x + 2 * j), a0);
        a1 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(c, hi), _mm256_loadu_ps(x + 2 * j + 8), a1);
    }
    __m256 a = _mm256_add_ps(a0, a1); /* L R L R L R L R */
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s)); /* L R . . */
    *l = _mm_cvtss_f32(s);
    *r = _mm_cvtss_f32(_mm_shuffle_ps(s, s, 1));
}

HL_SINC_STEREO_KERNELS(avx2, AVX2, dot_stereo_avx2)

static const hl_sinc_kernels_t g_avx2 = {mix_mono_avx2, mix_stereo_avx2, mix_downmix_avx2};

const hl_sinc_kernels_t *hl_sinc_kernels_avx2(void) {
    return hl_mix_kernels_avx2_usable() ? &g_avx2 : NULL;
}

/* ---- AVX-512 (F + VL) -------------------------------------------------------------
 * The same loops with sixteen taps per multiply-add: a kernel of 8 nv taps
 * is nv / 2 sixteen-lane blocks plus, for odd nv (24 and 40 taps), one
 * eight-lane block. The mono loop still reduces eight outputs together
 * (each output's sixteen partial sums folded to eight first); stereo
 * duplicates each coefficient onto its frame's L and R lanes with one
 * permute. */
#define AVX512 __attribute__((target("avx512f,avx512vl,avx2,fma")))

/* The upper eight lanes (F only: no DQ needed). */
AVX512 static inline __m256 hi256(__m512 a) {
    return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1));
}

AVX512 static inline __attribute__((always_inline)) __m256
dotn_mono_avx512(const float *row, uint32_t taps, float wf, const float *x, const uint32_t nv) {
    const __m512 w = _mm512_set1_ps(wf);
    __m512 a = _mm512_setzero_ps();
#pragma GCC unroll 8
    for (uint32_t i = 0; i + 2 <= nv; i += 2) {
        __m512 c =
            _mm512_fmadd_ps(w, _mm512_loadu_ps(row + taps + 8 * i), _mm512_loadu_ps(row + 8 * i));
        a = _mm512_fmadd_ps(c, _mm512_loadu_ps(x + 8 * i), a);
    }
    __m256 r = _mm256_add_ps(_mm512_castps512_ps256(a), hi256(a));
    if (nv & 1) {
        const uint32_t i = nv - 1;
        __m256 c = _mm256_fmadd_ps(_mm512_castps512_ps256(w), _mm256_loadu_ps(row + taps + 8 * i),
                                   _mm256_loadu_ps(row + 8 * i));
        r = _mm256_fmadd_ps(c, _mm256_loadu_ps(x + 8 * i), r);
    }
    return r;
}

AVX512 static inline __attribute__((always_inline)) void
mono_run_avx512(float *acc_l, float *acc_r, const float *src, uint32_t n, uint64_t pos,
                uint64_t step, const hl_gain_ramp_t *g, const hl_sinc_level_t *lv,
                const uint32_t nv) {
    const uint32_t taps = 8 * nv, back = taps / 2 - 1;
    const __m256 l0 = _mm256_set1_ps(g->l0), dl = _mm256_set1_ps(g->dl), ql = _mm256_set1_ps(g->ql);
    const __m256 r0 = _mm256_set1_ps(g->r0), dr = _mm256_set1_ps(g->dr), qr = _mm256_set1_ps(g->qr);
    __m256 k = _mm256_add_ps(_mm256_setr_ps(1, 2, 3, 4, 5, 6, 7, 8), _mm256_set1_ps(g->k0));
    const __m256 eight = _mm256_set1_ps(8.0f);
    uint32_t t = 0;
    for (; t + 8 <= n; t += 8, k = _mm256_add_ps(k, eight)) {
        __m256 s[8];
#pragma GCC unroll 8
        for (int u = 0; u < 8; u++, pos += step) {
            uint32_t f = (uint32_t)pos;
            s[u] = dotn_mono_avx512(ROW_T(lv, f, taps), taps, W_OF(f),
                                    src + (int64_t)(pos >> 32) - back, nv);
        }
        __m256 v = reduce8(s);
        __m256 gl = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, ql, dl), l0);
        __m256 gr = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, qr, dr), r0);
        _mm256_storeu_ps(acc_l + t, _mm256_fmadd_ps(v, gl, _mm256_loadu_ps(acc_l + t)));
        _mm256_storeu_ps(acc_r + t, _mm256_fmadd_ps(v, gr, _mm256_loadu_ps(acc_r + t)));
    }
    for (; t < n; t++, pos += step) {
        uint32_t f = (uint32_t)pos;
        float v = hsum_r8(dotn_mono_avx512(ROW_T(lv, f, taps), taps, W_OF(f),
                                           src + (int64_t)(pos >> 32) - back, nv));
        tail_mix(acc_l, acc_r, t, v, g, 0);
    }
}

AVX512 static void mix_mono_avx512(float *acc_l, float *acc_r, const float *src, uint32_t n,
                                   uint64_t pos, uint64_t step, const hl_gain_ramp_t *g,
                                   const hl_sinc_level_t *lv) {
    switch (lv->taps) {
    case 24: mono_run_avx512(acc_l, acc_r, src, n, pos, step, g, lv, 3); break;
    case 32: mono_run_avx512(acc_l, acc_r, src, n, pos, step, g, lv, 4); break;
    case 40: mono_run_avx512(acc_l, acc_r, src, n, pos, step, g, lv, 5); break;
    case 48: mono_run_avx512(acc_l, acc_r, src, n, pos, step, g, lv, 6); break;
    default: mono_run_avx512(acc_l, acc_r, src, n, pos, step, g, lv, lv->taps / 8); break;
    }
}

/* Eight frames (sixteen floats) per load; each of eight coefficients
 * duplicated onto its frame's L and R lanes. */
AVX512 static inline void dot_stereo_avx512(const float *row, uint32_t taps, float wf,
                                            const float *x, float *l, float *r) {
    const __m256 w = _mm256_set1_ps(wf);
    const __m512i dup = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    __m512 a = _mm512_setzero_ps();
    for (uint32_t j = 0; j < taps; j += 8) {
        __m256 c = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + taps + j), _mm256_loadu_ps(row + j));
        a = _mm512_fmadd_ps(_mm512_permutexvar_ps(dup, _mm512_castps256_ps512(c)),
                            _mm512_loadu_ps(x + 2 * j), a);
    }
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(a), hi256(a));
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q)); /* L R . . */
    *l = _mm_cvtss_f32(q);
    *r = _mm_cvtss_f32(_mm_shuffle_ps(q, q, 1));
}

HL_SINC_STEREO_KERNELS(avx512, AVX512, dot_stereo_avx512)

static const hl_sinc_kernels_t g_avx512 = {mix_mono_avx512, mix_stereo_avx512, mix_downmix_avx512};

const hl_sinc_kernels_t *hl_sinc_kernels_avx512(void) {
    return hl_mix_kernels_avx512_usable() ? &g_avx512 : NULL;
}

/* The default at the AVX-512 level: the mono kernel at eight lanes, which
 * measured faster on Zen 4 (bench/mix -r sinc, HELIOD_ISA=avx2 vs avx512,
 * interleaved runs, 2026-12-02: 11% less CPU time at 1024 voices with the
 * sources out of cache and at 4096 with them in it); the stereo ones, not
 * measured there, at sixteen. HELIOD_ISA=avx512 takes g_avx512 whole. */
static const hl_sinc_kernels_t g_avx512_best = {mix_mono_avx2, mix_stereo_avx512,
                                                mix_downmix_avx512};

static const hl_sinc_kernels_t *avx512_default(void) {
    return hl_simd_strict() ? &g_avx512 : &g_avx512_best;
}
#else
const hl_sinc_kernels_t *hl_sinc_kernels_avx2(void) {
    return NULL;
}

const hl_sinc_kernels_t *hl_sinc_kernels_avx512(void) {
    return NULL;
}

static const hl_sinc_kernels_t *avx512_default(void) {
    return NULL;
}
#endif

const hl_sinc_kernels_t *hl_sinc_kernels_best(void) {
    const hl_sinc_kernels_t *k = hl_sinc_kernels_avx512() ? avx512_default() : NULL;
    if (!k) k = hl_sinc_kernels_avx2();
    return k ? k : &hl_sinc_kernels_generic;
}
