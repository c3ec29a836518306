/*
 * mix_kernels.c - the per-sample loops of the mixer (see mix_kernels.h).
 *
 * The loops are written once as static inline bodies and instantiated twice:
 * a generic build the compiler auto-vectorises for the baseline ISA, and an
 * AVX2+FMA build selected at init when the CPU supports it. Loops have no
 * per-sample branches and index with plain ints so the vectoriser can work;
 * interpolation positions are the voice's 32.32 cursor relative to the
 * run start, frac + t x step in 64-bit integers (idx = x >> 32, the
 * fraction from the low 32 bits: hl_fp_frac here, hl_fp_frac_simd in the
 * AVX2 and AVX-512 kernels), exact wherever the run starts. The cubic
 * (Catmull-Rom) bodies are instantiated the same way; the AVX2 build's
 * interp_mono and cubic_mono take a hand-written vector part first
 * (mix_kernels_interp.c).
 * On CPUs with AVX-512 (F + VL) the plain mono mix and every fused pitched
 * kernel (linear and Catmull-Rom; mono, stereo and downmixed stereo) have
 * 16-lane versions; the rest of that table (the unfused interpolators and
 * the pitch-1 stereo mixes) is the AVX2 set; the pitched loops live in
 * mix_kernels_avx512.c. On a machine without AVX-512,
 * scripts/avx512-emu.sh runs their tests on an emulated CPU.
 * Pitched voices resample and mix in one pass (the fused *_mix_* kernels:
 * linear and Catmull-Rom, mono, stereo and downmixed stereo sources). The
 * AVX2 ones are written with intrinsics: at step <= 1 (Catmull-Rom: 9/8)
 * they read windows of contiguous frames and permute lanes instead of
 * gathering; the portable ones (other than linear mono) run two passes over
 * a stack block.
 */
#include "mix_kernels.h"
#include "mix_kernels_avx512.h"

#include "hl_limits.h"
#include "hl_simd.h"

#include <stdatomic.h>

/* ---- the instruction-set cap (hl_simd.h) ------------------------------------ */

static atomic_int g_simd_cap = HL_SIMD_AVX512;
static atomic_int g_simd_strict; /* 1: the cap was set to avx512 (HELIOD_ISA=avx512) */

int hl_simd_strict(void) {
    return atomic_load_explicit(&g_simd_strict, memory_order_relaxed);
}

int hl_simd_set_cap(int level) {
    atomic_store_explicit(&g_simd_strict, level >= HL_SIMD_AVX512, memory_order_relaxed);
    atomic_store_explicit(&g_simd_cap, level < HL_SIMD_PORTABLE ? HL_SIMD_PORTABLE : level,
                          memory_order_relaxed);
    return hl_simd_level();
}

int hl_simd_level(void) {
    int cpu = hl_simd_cpu(), cap = atomic_load_explicit(&g_simd_cap, memory_order_relaxed);
    return cpu < cap ? cpu : cap;
}

#define HL_RESTRICT __restrict__

/* LINV, CUBV: interp_mono's and cubic_mono's vector part (HL_NO_VEC: none) */
#define HL_NO_VEC(d, s, n, frac, step) 0u
#define HL_KERNEL_BODIES(SUFFIX, ATTR, FRAC, LINV, CUBV)                                           \
    ATTR static void mix_mono_##SUFFIX(float *HL_RESTRICT al, float *HL_RESTRICT ar,               \
                                       const float *HL_RESTRICT s, uint32_t n,                     \
                                       const hl_gain_ramp_t *g) {                                  \
        const float l0 = g->l0, dl = g->dl, ql = g->ql, r0 = g->r0, dr = g->dr, qr = g->qr;        \
        if (hl_gain_is_const(g)) {                                                                 \
            for (uint32_t t = 0; t < n; t++) {                                                     \
                al[t] += s[t] * l0;                                                                \
                ar[t] += s[t] * r0;                                                                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (uint32_t t = 0; t < n; t++) {                                                         \
            float k = g->k0 + (float)(int)(t + 1);                                                 \
            al[t] += s[t] * (l0 + k * (dl + k * ql));                                              \
            ar[t] += s[t] * (r0 + k * (dr + k * qr));                                              \
        }                                                                                          \
    }                                                                                              \
    ATTR static void mix_stereo_##SUFFIX(float *HL_RESTRICT al, float *HL_RESTRICT ar,             \
                                         const float *HL_RESTRICT s, uint32_t n,                   \
                                         const hl_gain_ramp_t *g) {                                \
        const float l0 = g->l0, dl = g->dl, ql = g->ql, r0 = g->r0, dr = g->dr, qr = g->qr;        \
        if (hl_gain_is_const(g)) {                                                                 \
            for (uint32_t t = 0; t < n; t++) {                                                     \
                al[t] += s[2 * t] * l0;                                                            \
                ar[t] += s[2 * t + 1] * r0;                                                        \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (uint32_t t = 0; t < n; t++) {                                                         \
            float k = g->k0 + (float)(int)(t + 1);                                                 \
            al[t] += s[2 * t] * (l0 + k * (dl + k * ql));                                          \
            ar[t] += s[2 * t + 1] * (r0 + k * (dr + k * qr));                                      \
        }                                                                                          \
    }                                                                                              \
    ATTR static void mix_downmix_##SUFFIX(float *HL_RESTRICT al, float *HL_RESTRICT ar,            \
                                          const float *HL_RESTRICT s, uint32_t n,                  \
                                          const hl_gain_ramp_t *g) {                               \
        const float l0 = g->l0, dl = g->dl, ql = g->ql, r0 = g->r0, dr = g->dr, qr = g->qr;        \
        for (uint32_t t = 0; t < n; t++) {                                                         \
            float k = g->k0 + (float)(int)(t + 1);                                                 \
            float m = (s[2 * t] + s[2 * t + 1]) * 0.5f;                                            \
            al[t] += m * (l0 + k * (dl + k * ql));                                                 \
            ar[t] += m * (r0 + k * (dr + k * qr));                                                 \
        }                                                                                          \
    }                                                                                              \
    ATTR static void interp_mono_##SUFFIX(float *HL_RESTRICT d, const float *HL_RESTRICT s,        \
                                          uint32_t n, uint32_t frac, uint64_t step) {              \
        for (uint32_t k = LINV(d, s, n, frac, step); k < n; k++) {                                 \
            const uint64_t x = frac + (uint64_t)k * step;                                          \
            const int i = (int)(x >> 32);                                                          \
            const float f = FRAC((uint32_t)x);                                                     \
            float a = s[i], b = s[i + 1];                                                          \
            d[k] = a + f * (b - a);                                                                \
        }                                                                                          \
    }                                                                                              \
    ATTR static void interp_stereo_##SUFFIX(float *HL_RESTRICT dl_, float *HL_RESTRICT dr_,        \
                                            const float *HL_RESTRICT s, uint32_t n, uint32_t frac, \
                                            uint64_t step) {                                       \
        for (uint32_t k = 0; k < n; k++) {                                                         \
            const uint64_t x = frac + (uint64_t)k * step;                                          \
            const int i = (int)(x >> 32);                                                          \
            const float f = FRAC((uint32_t)x);                                                     \
            float a = s[2 * i], b = s[2 * i + 2];                                                  \
            float c = s[2 * i + 1], e = s[2 * i + 3];                                              \
            dl_[k] = a + f * (b - a);                                                              \
            dr_[k] = c + f * (e - c);                                                              \
        }                                                                                          \
    }                                                                                              \
    ATTR static void interp_downmix_##SUFFIX(float *HL_RESTRICT d, const float *HL_RESTRICT s,     \
                                             uint32_t n, uint32_t frac, uint64_t step) {           \
        for (uint32_t k = 0; k < n; k++) {                                                         \
            const uint64_t x = frac + (uint64_t)k * step;                                          \
            const int i = (int)(x >> 32);                                                          \
            const float f = FRAC((uint32_t)x);                                                     \
            float a = (s[2 * i] + s[2 * i + 1]) * 0.5f;                                            \
            float b = (s[2 * i + 2] + s[2 * i + 3]) * 0.5f;                                        \
            d[k] = a + f * (b - a);                                                                \
        }                                                                                          \
    }                                                                                              \
    ATTR static void cubic_mono_##SUFFIX(float *HL_RESTRICT d, const float *HL_RESTRICT s,         \
                                         uint32_t n, uint32_t frac, uint64_t step) {               \
        for (uint32_t k = CUBV(d, s, n, frac, step); k < n; k++) {                                 \
            const uint64_t x = frac + (uint64_t)k * step;                                          \
            const int i = (int)(x >> 32);                                                          \
            d[k] = hl_catmull_rom(s[i - 1], s[i], s[i + 1], s[i + 2], FRAC((uint32_t)x));          \
        }                                                                                          \
    }                                                                                              \
    ATTR static void cubic_stereo_##SUFFIX(float *HL_RESTRICT dl_, float *HL_RESTRICT dr_,         \
                                           const float *HL_RESTRICT s, uint32_t n, uint32_t frac,  \
                                           uint64_t step) {                                        \
        for (uint32_t k = 0; k < n; k++) {                                                         \
            const uint64_t x = frac + (uint64_t)k * step;                                          \
            const int i = (int)(x >> 32);                                                          \
            const float f = FRAC((uint32_t)x);                                                     \
            const float *p = s + 2 * i;                                                            \
            dl_[k] = hl_catmull_rom(p[-2], p[0], p[2], p[4], f);                                   \
            dr_[k] = hl_catmull_rom(p[-1], p[1], p[3], p[5], f);                                   \
        }                                                                                          \
    }                                                                                              \
    ATTR static void cubic_downmix_##SUFFIX(float *HL_RESTRICT d, const float *HL_RESTRICT s,      \
                                            uint32_t n, uint32_t frac, uint64_t step) {            \
        for (uint32_t k = 0; k < n; k++) {                                                         \
            const uint64_t x = frac + (uint64_t)k * step;                                          \
            const int i = (int)(x >> 32);                                                          \
            const float f = FRAC((uint32_t)x);                                                     \
            const float *p = s + 2 * i;                                                            \
            float l = hl_catmull_rom(p[-2], p[0], p[2], p[4], f);                                  \
            float r = hl_catmull_rom(p[-1], p[1], p[3], p[5], f);                                  \
            d[k] = (l + r) * 0.5f;                                                                 \
        }                                                                                          \
    }                                                                                              \
    ATTR static void mix_planar_##SUFFIX(float *HL_RESTRICT al, float *HL_RESTRICT ar,             \
                                         const float *HL_RESTRICT l, const float *HL_RESTRICT r,   \
                                         uint32_t n, const hl_gain_ramp_t *g) {                    \
        const float l0 = g->l0, dl = g->dl, ql = g->ql, r0 = g->r0, dr = g->dr, qr = g->qr;        \
        if (hl_gain_is_const(g)) {                                                                 \
            for (uint32_t t = 0; t < n; t++) {                                                     \
                al[t] += l[t] * l0;                                                                \
                ar[t] += r[t] * r0;                                                                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (uint32_t t = 0; t < n; t++) {                                                         \
            float k = g->k0 + (float)(int)(t + 1);                                                 \
            al[t] += l[t] * (l0 + k * (dl + k * ql));                                              \
            ar[t] += r[t] * (r0 + k * (dr + k * qr));                                              \
        }                                                                                          \
    }

HL_KERNEL_BODIES(generic, , hl_fp_frac, HL_NO_VEC, HL_NO_VEC)

static void interp_mix_mono_generic(float *HL_RESTRICT al, float *HL_RESTRICT ar,
                                    const float *HL_RESTRICT s, uint32_t avail, uint32_t n,
                                    uint32_t frac, uint64_t step, const hl_gain_ramp_t *g) {
    const float l0 = g->l0, dl = g->dl, ql = g->ql, r0 = g->r0, dr = g->dr, qr = g->qr;
    (void)avail;
    for (uint32_t t = 0; t < n; t++) {
        const uint64_t x = frac + (uint64_t)t * step;
        const int i = (int)(x >> 32);
        const float f = hl_fp_frac((uint32_t)x);
        float a = s[i], b = s[i + 1];
        float v = a + f * (b - a);
        float k = g->k0 + (float)(int)(t + 1);
        al[t] += v * (l0 + k * (dl + k * ql));
        ar[t] += v * (r0 + k * (dr + k * qr));
    }
}

/*
 * The other portable fused kernels run two passes over a block on the stack
 * (interpolate, then mix): at the baseline ISA that measured faster than one
 * scalar pass, as the mix pass vectorises. n <= HL_MIX_BLOCK, so one chunk;
 * a longer run would go on in chunks, the ramp moved on (hl_gain_from).
 */
/* The fused resample+mix entries of the portable table: interpolate a block
 * into a stack buffer, then mix it (measured faster here than one scalar
 * pass). One macro per shape: a mono result, or planar stereo. */
#define HL_FUSED_MONO(name, interp, CH)                                                            \
    static void name(float *al, float *ar, const float *s, uint32_t avail, uint32_t n,             \
                     uint32_t frac, uint64_t step, const hl_gain_ramp_t *g) {                      \
        float tmp[HL_MIX_BLOCK];                                                                   \
        (void)avail;                                                                               \
        for (uint32_t done = 0; done < n; done += HL_MIX_BLOCK) {                                  \
            uint32_t cnt = n - done < HL_MIX_BLOCK ? n - done : HL_MIX_BLOCK;                      \
            hl_gain_ramp_t gg = hl_gain_from(g, done);                                             \
            const uint64_t x = frac + (uint64_t)done * step;                                       \
            interp(tmp, s + (CH) * (x >> 32), cnt, (uint32_t)x, step);                             \
            mix_mono_generic(al + done, ar + done, tmp, cnt, &gg);                                 \
        }                                                                                          \
    }
#define HL_FUSED_PLANAR(name, interp)                                                              \
    static void name(float *al, float *ar, const float *s, uint32_t avail, uint32_t n,             \
                     uint32_t frac, uint64_t step, const hl_gain_ramp_t *g) {                      \
        float tl[HL_MIX_BLOCK], tr[HL_MIX_BLOCK];                                                  \
        (void)avail;                                                                               \
        for (uint32_t done = 0; done < n; done += HL_MIX_BLOCK) {                                  \
            uint32_t cnt = n - done < HL_MIX_BLOCK ? n - done : HL_MIX_BLOCK;                      \
            hl_gain_ramp_t gg = hl_gain_from(g, done);                                             \
            const uint64_t x = frac + (uint64_t)done * step;                                       \
            interp(tl, tr, s + 2 * (x >> 32), cnt, (uint32_t)x, step);                             \
            mix_planar_generic(al + done, ar + done, tl, tr, cnt, &gg);                            \
        }                                                                                          \
    }
HL_FUSED_MONO(cubic_mix_mono_generic, cubic_mono_generic, 1)
HL_FUSED_PLANAR(cubic_mix_stereo_generic, cubic_stereo_generic)
HL_FUSED_MONO(cubic_mix_downmix_generic, cubic_downmix_generic, 2)
HL_FUSED_PLANAR(interp_mix_stereo_generic, interp_stereo_generic)
HL_FUSED_MONO(interp_mix_downmix_generic, interp_downmix_generic, 2)

const hl_mix_kernels_t hl_mix_kernels_generic = {
    mix_mono_generic,
    mix_stereo_generic,
    mix_downmix_generic,
    interp_mono_generic,
    interp_stereo_generic,
    interp_downmix_generic,
    interp_mix_mono_generic,
    mix_planar_generic,
    cubic_mono_generic,
    cubic_stereo_generic,
    cubic_downmix_generic,
    cubic_mix_mono_generic,
    cubic_mix_stereo_generic,
    cubic_mix_downmix_generic,
    interp_mix_stereo_generic,
    interp_mix_downmix_generic,
    NULL,
};

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <math.h>

#include "mix_kernels_tail.h" /* the SIMD kernels' scalar tails */

#define HL_AVX2_LANES 8
HL_KERNEL_BODIES(avx2, HL_AVX2_ATTR, hl_fp_frac_simd, hl_interp_mono_avx2, hl_cubic_mono_avx2)

HL_AVX2_ATTR static inline __attribute__((always_inline)) uint32_t
interp_mix_mono_loop_avx2(float *HL_RESTRICT al, float *HL_RESTRICT ar, const float *HL_RESTRICT s,
                          uint32_t avail, uint32_t n, uint32_t frac, uint64_t step,
                          const hl_gain_ramp_t *g, const int flat) {
    const __m256 iota = _mm256_setr_ps(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
    const __m256 k1 = _mm256_set1_ps(g->k0 + 1.0f); /* k = t + lane + k1 */
    const __m256 l0 = _mm256_set1_ps(g->l0), dl = _mm256_set1_ps(g->dl), ql = _mm256_set1_ps(g->ql);
    const __m256 r0 = _mm256_set1_ps(g->r0), dr = _mm256_set1_ps(g->dr), qr = _mm256_set1_ps(g->qr);
    if (n < HL_AVX2_LANES) return 0; /* an edge frame (n = 1): no vector setup */
    const hl_lanes8_t ln = lanes8(step);
    const int narrow = step <= HL_FP_ONE;
    uint64_t x0 = frac; /* lane 0's position */
    uint32_t t = 0;
    for (; t + HL_AVX2_LANES <= n; t += HL_AVX2_LANES, x0 += HL_AVX2_LANES * step) {
        const int i0 = (int)(x0 >> 32);
        __m256 f;
        const __m256i rel = lanes8_at(&ln, (uint32_t)x0, &f);
        __m256 a, b;
        if (narrow) {
            if ((uint32_t)i0 + HL_AVX2_LANES + 1 > avail)
                break; /* the window would leave the buffer: finish in scalar */
            __m256 w0 = _mm256_loadu_ps(s + i0), w1 = _mm256_loadu_ps(s + i0 + 1);
            a = _mm256_permutevar8x32_ps(w0, rel);
            b = _mm256_permutevar8x32_ps(w1, rel);
        } else { /* each lane's pair: no vgatherdps (hl_lane_taps8) */
            __m256 p[2];
            hl_lane_taps8(s, x0, step, 0, 1, p);
            a = p[0], b = p[1];
        }
        __m256 v = _mm256_fmadd_ps(f, _mm256_sub_ps(b, a), a);
        __m256 gl = l0, gr = r0;
        if (!flat) {
            __m256 k = _mm256_add_ps(_mm256_add_ps(_mm256_set1_ps((float)(int)t), iota), k1);
            gl = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, ql, dl), l0);
            gr = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, qr, dr), r0);
        }
        _mm256_storeu_ps(al + t, _mm256_fmadd_ps(v, gl, _mm256_loadu_ps(al + t)));
        _mm256_storeu_ps(ar + t, _mm256_fmadd_ps(v, gr, _mm256_loadu_ps(ar + t)));
    }
    return t;
}

/*
 * The hot path of the engine (mono source resampled to the device rate).
 * Eight output frames at a time, their positions from the 32.32 cursor
 * (lanes8_at). At step <= 1 the eight source frames they need lie in a
 * window of nine starting at the first lane's index, so two unaligned loads
 * and two lane permutes replace a gather; faster steps load each lane's
 * pair (hl_lane_taps8: vgatherdps measured slower on Zen 4). A
 * flat gain pair (the steady state) gets its own loop without the ramp
 * polynomial.
 */
HL_AVX2_ATTR static void interp_mix_mono_avx2(float *HL_RESTRICT al, float *HL_RESTRICT ar,
                                              const float *HL_RESTRICT s, uint32_t avail,
                                              uint32_t n, uint32_t frac, uint64_t step,
                                              const hl_gain_ramp_t *g) {
    uint32_t t = hl_gain_is_const(g)
                     ? interp_mix_mono_loop_avx2(al, ar, s, avail, n, frac, step, g, 1)
                     : interp_mix_mono_loop_avx2(al, ar, s, avail, n, frac, step, g, 0);
    mono_mix_ref_avx2(al, ar, s, t, n, frac, step, g, 0);
}

HL_AVX2_ATTR static inline __attribute__((always_inline)) uint32_t
cubic_mix_mono_loop_avx2(float *HL_RESTRICT al, float *HL_RESTRICT ar, const float *HL_RESTRICT s,
                         uint32_t avail, uint32_t n, uint32_t frac, uint64_t step,
                         const hl_gain_ramp_t *g, const int flat, const int reach) {
    const __m256 k1 = _mm256_set1_ps(g->k0 + 1.0f); /* k = t + lane + k1 */
    const __m256 eight = _mm256_set1_ps((float)HL_AVX2_LANES);
    const __m256 l0 = _mm256_set1_ps(g->l0), dl = _mm256_set1_ps(g->dl), ql = _mm256_set1_ps(g->ql);
    const __m256 r0 = _mm256_set1_ps(g->r0), dr = _mm256_set1_ps(g->dr), qr = _mm256_set1_ps(g->qr);
    const __m256i seven = _mm256_set1_epi32(HL_AVX2_LANES - 1);
    if (n < HL_AVX2_LANES) return 0; /* an edge frame (n = 1): no vector setup */
    const hl_lanes8_t ln = lanes8(step);
    /* frames the window loads read from s + i0 on: taps i0 - 1 .. i0 + last + 2 */
    const uint32_t span = reach == HL_REACH_9 ? HL_AVX2_LANES + 3 : HL_AVX2_LANES + 2;
    /* t + lane as floats, moved on by 8 each iteration (exact below 2^24) */
    __m256 kf = _mm256_setr_ps(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
    uint64_t x0 = frac; /* lane 0's position */
    uint32_t t = 0;
#pragma GCC unroll 2
    for (; t + HL_AVX2_LANES <= n;
         t += HL_AVX2_LANES, x0 += HL_AVX2_LANES * step, kf = _mm256_add_ps(kf, eight)) {
        const int i0 = (int)(x0 >> 32);
        __m256 f;
        const __m256i rel = lanes8_at(&ln, (uint32_t)x0, &f);
        __m256 a, b, c, d;
        if (reach == HL_REACH_LANES) { /* each lane's four taps (hl_lane_taps8) */
            __m256 p[4];
            hl_lane_taps8(s, x0, step, 1, 1, p);
            a = p[0], b = p[1], c = p[2], d = p[3];
        } else {
            if ((uint32_t)i0 + span > avail)
                break; /* the window would leave the buffer: finish in scalar */
            const float *w = s + i0 - 1;
            if (reach == HL_REACH_8) {
                a = _mm256_permutevar8x32_ps(_mm256_loadu_ps(w), rel);
                b = _mm256_permutevar8x32_ps(_mm256_loadu_ps(w + 1), rel);
                c = _mm256_permutevar8x32_ps(_mm256_loadu_ps(w + 2), rel);
                d = _mm256_permutevar8x32_ps(_mm256_loadu_ps(w + 3), rel);
            } else {
                /* a lane at offset 8 (only the last can be) takes lane 7 of
                 * the window one frame on: five windows, each tap a blend
                 * of two neighbours */
                const __m256i over = _mm256_cmpgt_epi32(rel, seven);
                const __m256 m = _mm256_castsi256_ps(over);
                const __m256i rc = _mm256_add_epi32(rel, over); /* 8 -> 7 */
                __m256 p0 = _mm256_permutevar8x32_ps(_mm256_loadu_ps(w), rc);
                __m256 p1 = _mm256_permutevar8x32_ps(_mm256_loadu_ps(w + 1), rc);
                __m256 p2 = _mm256_permutevar8x32_ps(_mm256_loadu_ps(w + 2), rc);
                __m256 p3 = _mm256_permutevar8x32_ps(_mm256_loadu_ps(w + 3), rc);
                __m256 p4 = _mm256_permutevar8x32_ps(_mm256_loadu_ps(w + 4), rc);
                a = _mm256_blendv_ps(p0, p1, m);
                b = _mm256_blendv_ps(p1, p2, m);
                c = _mm256_blendv_ps(p2, p3, m);
                d = _mm256_blendv_ps(p3, p4, m);
            }
        }
        __m256 v = catmull_rom_avx2(a, b, c, d, f);
        __m256 gl = l0, gr = r0;
        if (!flat) {
            __m256 k = _mm256_add_ps(kf, k1);
            gl = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, ql, dl), l0);
            gr = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, qr, dr), r0);
        }
        _mm256_storeu_ps(al + t, _mm256_fmadd_ps(v, gl, _mm256_loadu_ps(al + t)));
        _mm256_storeu_ps(ar + t, _mm256_fmadd_ps(v, gr, _mm256_loadu_ps(ar + t)));
    }
    return t;
}

/*
 * Mono cubic resample + mix in one pass (no scratch), as interp_mix_mono
 * does for linear. At step <= 1 the eight positions' taps lie in
 * s[i0 - 1 .. i0 + 9]: four unaligned loads and four lane permutes replace
 * the four gathers. Up to step 9/8 (a voice pitched a little up, Doppler)
 * only the last lane can reach one frame further: a fifth window and four
 * blends, still far cheaper than four gathers; above, each lane's four
 * taps by one load (hl_lane_taps8). Each (flat gains, reach)
 * pair is its own loop, so nothing is decided per iteration but the
 * window's bound.
 */
HL_AVX2_ATTR static void cubic_mix_mono_avx2(float *HL_RESTRICT al, float *HL_RESTRICT ar,
                                             const float *HL_RESTRICT s, uint32_t avail, uint32_t n,
                                             uint32_t frac, uint64_t step,
                                             const hl_gain_ramp_t *g) {
    const int flat = hl_gain_is_const(g), reach = hl_reach(step);
    uint32_t t;
    if (flat && reach == HL_REACH_8)
        t = cubic_mix_mono_loop_avx2(al, ar, s, avail, n, frac, step, g, 1, HL_REACH_8);
    else if (flat && reach == HL_REACH_9)
        t = cubic_mix_mono_loop_avx2(al, ar, s, avail, n, frac, step, g, 1, HL_REACH_9);
    else if (flat)
        t = cubic_mix_mono_loop_avx2(al, ar, s, avail, n, frac, step, g, 1, HL_REACH_LANES);
    else if (reach == HL_REACH_8)
        t = cubic_mix_mono_loop_avx2(al, ar, s, avail, n, frac, step, g, 0, HL_REACH_8);
    else if (reach == HL_REACH_9)
        t = cubic_mix_mono_loop_avx2(al, ar, s, avail, n, frac, step, g, 0, HL_REACH_9);
    else
        t = cubic_mix_mono_loop_avx2(al, ar, s, avail, n, frac, step, g, 0, HL_REACH_LANES);
    mono_mix_ref_avx2(al, ar, s, t, n, frac, step, g, 1);
}

/*
 * Interleaved stereo sources resampled (Catmull-Rom or linear) and mixed in
 * one pass, eight output frames at a time, into the two accumulators (2D) or
 * downmixed (L+R)/2 and panned (down, 3D). At step <= 1 the taps of the
 * eight positions lie in frames i0 - 1 .. i0 + 9: for each tap offset two
 * unaligned loads cover eight frames, two shuffles split them into left and
 * right (frames in lane order 0 1 4 5 2 3 6 7, folded into the lane index)
 * and two permutes pick the lanes, instead of eight gathers. Catmull-Rom
 * also keeps windows up to step 9/8, where only the last lane can reach one
 * frame further (a fifth window, blends); faster steps load each lane's
 * frames (hl_lane_taps8: two frames, left and right, a 128-bit load). A
 * downmixed Catmull-Rom voice sums left and right taps first and runs the
 * polynomial once (it is linear in the taps). `flat`, `cubic`, `down` and
 * `reach` are constants in each instance below.
 */
HL_AVX2_ATTR static inline __attribute__((always_inline)) uint32_t
stereo_mix_loop_avx2(float *HL_RESTRICT al, float *HL_RESTRICT ar, const float *HL_RESTRICT s,
                     uint32_t avail, uint32_t n, uint32_t frac, uint64_t step,
                     const hl_gain_ramp_t *g, const int flat, const int cubic, const int down,
                     const int reach) {
    const __m256 k1 = _mm256_set1_ps(g->k0 + 1.0f); /* k = t + lane + k1 */
    const __m256 half = _mm256_set1_ps(0.5f), eight = _mm256_set1_ps((float)HL_AVX2_LANES);
    const __m256 l0 = _mm256_set1_ps(g->l0), dl = _mm256_set1_ps(g->dl), ql = _mm256_set1_ps(g->ql);
    const __m256 r0 = _mm256_set1_ps(g->r0), dr = _mm256_set1_ps(g->dr), qr = _mm256_set1_ps(g->qr);
    const __m256i seven = _mm256_set1_epi32(HL_AVX2_LANES - 1);
    if (n < HL_AVX2_LANES) return 0; /* an edge frame (n = 1): no vector setup */
    const hl_lanes8_t ln = lanes8(step);
    /* lane holding frame r of a window after the deinterleave below */
    const __m256i lane_of = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    const int taps = cubic ? 4 : 2, first = cubic ? -1 : 0;
    const int windows = taps + (reach == HL_REACH_9);
    /* frames from i0 on that the windows may read (linear keeps its margin) */
    const uint32_t span = reach == HL_REACH_9 ? HL_AVX2_LANES + 3 : HL_AVX2_LANES + 2;
    __m256 kf = _mm256_setr_ps(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
    uint64_t x0 = frac; /* lane 0's position */
    uint32_t t = 0;
    for (; t + HL_AVX2_LANES <= n;
         t += HL_AVX2_LANES, x0 += HL_AVX2_LANES * step, kf = _mm256_add_ps(kf, eight)) {
        const int i0 = (int)(x0 >> 32);
        __m256 f;
        const __m256i rel = lanes8_at(&ln, (uint32_t)x0, &f);
        __m256 tl[5], tr[5];
        if (reach != HL_REACH_LANES) {
            if ((uint32_t)i0 + span > avail)
                break; /* the window would leave the buffer: finish in scalar */
            __m256i over = _mm256_setzero_si256(), rc = rel;
            if (reach == HL_REACH_9) {
                over = _mm256_cmpgt_epi32(rel, seven);
                rc = _mm256_add_epi32(rel, over); /* 8 -> 7, taken from the next window */
            }
            __m256i lane = _mm256_permutevar8x32_epi32(lane_of, rc);
#pragma GCC unroll 5
            for (int o = 0; o < windows; o++) { /* taps floor(x) + first + o */
                const float *w = s + 2 * (i0 + first + o);
                __m256 v0 = _mm256_loadu_ps(w), v1 = _mm256_loadu_ps(w + HL_AVX2_LANES);
                /* frames 0 1 4 5 2 3 6 7 of the window, left and right */
                tl[o] = _mm256_permutevar8x32_ps(_mm256_shuffle_ps(v0, v1, 0x88), lane);
                tr[o] = _mm256_permutevar8x32_ps(_mm256_shuffle_ps(v0, v1, 0xDD), lane);
            }
            if (reach == HL_REACH_9) {
                const __m256 m = _mm256_castsi256_ps(over);
#pragma GCC unroll 4
                for (int o = 0; o < taps; o++) {
                    tl[o] = _mm256_blendv_ps(tl[o], tl[o + 1], m);
                    tr[o] = _mm256_blendv_ps(tr[o], tr[o + 1], m);
                }
            }
        } else { /* two frames a lane a load (hl_lane_taps8), no vgatherdps */
            __m256 p[4];
#pragma GCC unroll 2
            for (int o = 0; o < taps; o += 2) {
                hl_lane_taps8(s + 2 * (first + o) + 1, x0, step, 1, 2, p);
                tl[o] = p[0], tr[o] = p[1], tl[o + 1] = p[2], tr[o + 1] = p[3];
            }
        }
        __m256 vl, vr;
        if (cubic && down) {
            vl = vr = _mm256_mul_ps(
                catmull_rom_avx2(_mm256_add_ps(tl[0], tr[0]), _mm256_add_ps(tl[1], tr[1]),
                                 _mm256_add_ps(tl[2], tr[2]), _mm256_add_ps(tl[3], tr[3]), f),
                half);
        } else if (cubic) {
            vl = catmull_rom_avx2(tl[0], tl[1], tl[2], tl[3], f);
            vr = catmull_rom_avx2(tr[0], tr[1], tr[2], tr[3], f);
        } else if (down) {
            __m256 a = _mm256_mul_ps(_mm256_add_ps(tl[0], tr[0]), half);
            __m256 b = _mm256_mul_ps(_mm256_add_ps(tl[1], tr[1]), half);
            vl = vr = _mm256_fmadd_ps(f, _mm256_sub_ps(b, a), a);
        } else {
            vl = _mm256_fmadd_ps(f, _mm256_sub_ps(tl[1], tl[0]), tl[0]);
            vr = _mm256_fmadd_ps(f, _mm256_sub_ps(tr[1], tr[0]), tr[0]);
        }
        __m256 gl = l0, gr = r0;
        if (!flat) {
            __m256 k = _mm256_add_ps(kf, k1);
            gl = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, ql, dl), l0);
            gr = _mm256_fmadd_ps(k, _mm256_fmadd_ps(k, qr, dr), r0);
        }
        _mm256_storeu_ps(al + t, _mm256_fmadd_ps(vl, gl, _mm256_loadu_ps(al + t)));
        _mm256_storeu_ps(ar + t, _mm256_fmadd_ps(vr, gr, _mm256_loadu_ps(ar + t)));
    }
    return t;
}

/* One instance per (flat gains, reach): linear keeps its windows to
 * step <= 1 and loads each lane's taps above (hl_lane_taps8). */
#define HL_STEREO_LOOP(FLAT, CUBIC, DOWN)                                                          \
    (reach == HL_REACH_8                                                                           \
         ? stereo_mix_loop_avx2(al, ar, s, avail, n, frac, step, g, FLAT, CUBIC, DOWN, HL_REACH_8) \
     : reach == HL_REACH_9                                                                         \
         ? stereo_mix_loop_avx2(al, ar, s, avail, n, frac, step, g, FLAT, CUBIC, DOWN, HL_REACH_9) \
         : stereo_mix_loop_avx2(al, ar, s, avail, n, frac, step, g, FLAT, CUBIC, DOWN,             \
                                HL_REACH_LANES))
#define HL_STEREO_MIX_AVX2(NAME, CUBIC, DOWN)                                                      \
    HL_AVX2_ATTR static void NAME##_avx2(float *HL_RESTRICT al, float *HL_RESTRICT ar,             \
                                         const float *HL_RESTRICT s, uint32_t avail, uint32_t n,   \
                                         uint32_t frac, uint64_t step, const hl_gain_ramp_t *g) {  \
        int reach = hl_reach(step);                                                                \
        if (!(CUBIC) && reach == HL_REACH_9) reach = HL_REACH_LANES;                               \
        uint32_t t =                                                                               \
            hl_gain_is_const(g) ? HL_STEREO_LOOP(1, CUBIC, DOWN) : HL_STEREO_LOOP(0, CUBIC, DOWN); \
        stereo_mix_ref_avx2(al, ar, s, t, n, frac, step, g, CUBIC, DOWN);                          \
    }
HL_STEREO_MIX_AVX2(cubic_mix_stereo, 1, 0)
HL_STEREO_MIX_AVX2(cubic_mix_downmix, 1, 1)
HL_STEREO_MIX_AVX2(interp_mix_stereo, 0, 0)
HL_STEREO_MIX_AVX2(interp_mix_downmix, 0, 1)

/* ---- AVX-512 ---------------------------------------------------------------
 * The plain mono mix and every fused pitched kernel at sixteen lanes; the
 * pitched kernels' vector loops are in mix_kernels_avx512.c, their scalar
 * tails the AVX2 build's. */
HL_AVX512_ATTR static void mix_mono_avx512(float *HL_RESTRICT al, float *HL_RESTRICT ar,
                                           const float *HL_RESTRICT s, uint32_t n,
                                           const hl_gain_ramp_t *g) {
    if (!hl_gain_is_const(g)) {
        mix_mono_avx2(al, ar, s, n, g);
        return;
    }
    const __m512 l0 = _mm512_set1_ps(g->l0), r0 = _mm512_set1_ps(g->r0);
    uint32_t t = 0;
    for (; t + HL_AVX512_LANES <= n; t += HL_AVX512_LANES) {
        __m512 v = _mm512_loadu_ps(s + t);
        _mm512_storeu_ps(al + t, _mm512_fmadd_ps(v, l0, _mm512_loadu_ps(al + t)));
        _mm512_storeu_ps(ar + t, _mm512_fmadd_ps(v, r0, _mm512_loadu_ps(ar + t)));
    }
    for (; t < n; t++) { /* fused as the vector loop: a frame's sum whatever lane it lands in */
        al[t] = fmaf(s[t], g->l0, al[t]);
        ar[t] = fmaf(s[t], g->r0, ar[t]);
    }
}

/* The fused mono kernels: the vector loops of mix_kernels_avx512.c, the
 * AVX2 build's scalar tails (not called for a whole block: its setup was
 * 2% of a cache-resident pitched mix). */
HL_AVX512_ATTR static void interp_mix_mono_avx512(float *HL_RESTRICT al, float *HL_RESTRICT ar,
                                                  const float *HL_RESTRICT s, uint32_t avail,
                                                  uint32_t n, uint32_t frac, uint64_t step,
                                                  const hl_gain_ramp_t *g) {
    uint32_t t = hl_interp_mix_mono_avx512(al, ar, s, avail, n, frac, step, g);
    if (t < n) mono_mix_ref_avx2(al, ar, s, t, n, frac, step, g, 0);
}

HL_AVX512_ATTR static void cubic_mix_mono_avx512(float *HL_RESTRICT al, float *HL_RESTRICT ar,
                                                 const float *HL_RESTRICT s, uint32_t avail,
                                                 uint32_t n, uint32_t frac, uint64_t step,
                                                 const hl_gain_ramp_t *g) {
    uint32_t t = hl_cubic_mix_mono_avx512(al, ar, s, avail, n, frac, step, g);
    if (t < n) mono_mix_ref_avx2(al, ar, s, t, n, frac, step, g, 1);
}

#define HL_STEREO_MIX_AVX512(NAME, CUBIC, DOWN)                                                    \
    HL_AVX512_ATTR static void NAME##_avx512(                                                      \
        float *HL_RESTRICT al, float *HL_RESTRICT ar, const float *HL_RESTRICT s, uint32_t avail,  \
        uint32_t n, uint32_t frac, uint64_t step, const hl_gain_ramp_t *g) {                       \
        uint32_t t = hl_##NAME##_avx512(al, ar, s, avail, n, frac, step, g);                       \
        if (t < n) stereo_mix_ref_avx2(al, ar, s, t, n, frac, step, g, CUBIC, DOWN);               \
    }
HL_STEREO_MIX_AVX512(cubic_mix_stereo, 1, 0)
HL_STEREO_MIX_AVX512(cubic_mix_downmix, 1, 1)
HL_STEREO_MIX_AVX512(interp_mix_stereo, 0, 0)
HL_STEREO_MIX_AVX512(interp_mix_downmix, 0, 1)

/* The AVX-512 level's table: the 16-lane kernels, AVX2 where none is. */
static const hl_mix_kernels_t kernels_avx512 = {
    mix_mono_avx512,           mix_stereo_avx2,           mix_downmix_avx2,
    interp_mono_avx2,          interp_stereo_avx2,        interp_downmix_avx2,
    interp_mix_mono_avx512,    mix_planar_avx2,           cubic_mono_avx2,
    cubic_stereo_avx2,         cubic_downmix_avx2,        cubic_mix_mono_avx512,
    cubic_mix_stereo_avx512,   cubic_mix_downmix_avx512,  interp_mix_stereo_avx512,
    interp_mix_downmix_avx512, hl_interp_mix_mono2_avx512};
const hl_mix_kernels_t *const hl_mix_kernels_avx512 = &kernels_avx512;

/* The default at the AVX-512 level: per kernel the faster set as measured
 * (bench/kernels -t avx512 vs -t avx2, Zen 4 2-vCPU, 2026-12-02, medians,
 * ns per 256-frame call, flat / ramped gains): every fused kernel's 16-lane
 * version, now that the Catmull-Rom stereo pair's window loop keeps its
 * taps in registers (it kept them on the stack) and every kernel loads a
 * lane's taps past the windows instead of gathering (mix_kernels_avx512.c).
 * Catmull-Rom stereo, the mix bench's pitch spread, source in cache:
 * 171 / 187 vs 193 / 212; 1024 voices: 354 / 354 vs 406 / 455; downmix
 * 151 / 166 vs 191 / 204 and 337 / 339 vs 407 / 476; at step 1.37 (in
 * cache) 177 / 199 vs 206 / 235 and 160 / 195 vs 207 / 226; at 2.3 a tie
 * flat (202-207 vs 203-206), 208-216 vs 292-314 ramped. The mono kernels:
 * linear 52 vs 95, Catmull-Rom 97 vs 125 at 1.37. The two sets give the
 * same bits (200k random calls of the six fused kernels, steps 0.2-4.5). */
const hl_mix_kernels_t *const hl_mix_kernels_avx512_best = &kernels_avx512;

int hl_mix_kernels_avx512_usable(void) {
    return hl_simd_level() >= HL_SIMD_AVX512;
}

static const hl_mix_kernels_t kernels_avx2 = {
    mix_mono_avx2,
    mix_stereo_avx2,
    mix_downmix_avx2,
    interp_mono_avx2,
    interp_stereo_avx2,
    interp_downmix_avx2,
    interp_mix_mono_avx2,
    mix_planar_avx2,
    cubic_mono_avx2,
    cubic_stereo_avx2,
    cubic_downmix_avx2,
    cubic_mix_mono_avx2,
    cubic_mix_stereo_avx2,
    cubic_mix_downmix_avx2,
    interp_mix_stereo_avx2,
    interp_mix_downmix_avx2,
    NULL,
};
const hl_mix_kernels_t *const hl_mix_kernels_avx2 = &kernels_avx2;

int hl_mix_kernels_avx2_usable(void) {
    return hl_simd_level() >= HL_SIMD_AVX2;
}

/* The CPU's level, probed once (a per-voice filter asks every block: the
 * probe was a visible part of a 1,000-voice block); -1 until then. */
static atomic_int g_simd_cpu = -1;

int hl_simd_cpu(void) {
    int lv = atomic_load_explicit(&g_simd_cpu, memory_order_relaxed);
    if (lv >= 0) return lv;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        lv = HL_SIMD_PORTABLE;
    else if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vl"))
        lv = HL_SIMD_AVX2;
    else
        lv = HL_SIMD_AVX512;
    atomic_store_explicit(&g_simd_cpu, lv, memory_order_relaxed);
    return lv;
}
#else
int hl_simd_cpu(void) {
    return HL_SIMD_PORTABLE;
}

const hl_mix_kernels_t *const hl_mix_kernels_avx2 = 0;
const hl_mix_kernels_t *const hl_mix_kernels_avx512_best = 0;
const hl_mix_kernels_t *const hl_mix_kernels_avx512 = 0;

int hl_mix_kernels_avx2_usable(void) {
    return 0;
}

int hl_mix_kernels_avx512_usable(void) {
    return 0;
}
#endif
