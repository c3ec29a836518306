/*
 * mix_kernels_avx512.h - what the AVX-512 pitched loops
 * (mix_kernels_avx512.c) share with mix_kernels.c, which owns the kernel
 * tables and the scalar tails (and the Catmull-Rom polynomial at eight and
 * sixteen lanes, the fraction of a position, the AVX2 lanes' positions).
 * Internal to the kernels.
 */
#ifndef HL_MIX_KERNELS_AVX512_H
#define HL_MIX_KERNELS_AVX512_H

#include <stdint.h>

#include "mix_kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <math.h>

#define HL_AVX512_ATTR   __attribute__((target("avx512f,avx512vl,avx2,fma")))
#define HL_AVX512_LANES  16
#define HL_AVX512_WINDOW 32 /* frames a window of two 16-frame loads covers */
/* up to this step (1.75) an iteration's taps lie in one window */
#define HL_AVX512_NARROW (HL_FP_ONE * 7 / 4)
/* Up to these steps a mono iteration's taps lie in ONE 16-frame load: lane
 * 15's index is under 15 * step + 1 frames past lane 0's (floor(a) - floor(b)
 * < a - b + 1, the positions being exact), so at step <= 0.93 it is at most
 * 14 and its second tap 15; Catmull-Rom's window starts a frame early and
 * reaches 3 past the index: 12, step <= 0.79. */
#define HL_AVX512_NARROW16       ((uint64_t)(0.93 * 4294967296.0))
#define HL_AVX512_NARROW16_CUBIC ((uint64_t)(0.79 * 4294967296.0))

#define HL_AVX2_ATTR __attribute__((target("avx2,fma")))

/* The fraction of a 32.32 position's low bits fb as the AVX2 and AVX-512
 * kernels take it, vector loops and scalar tails alike: fb with its top bit
 * flipped, as a signed integer to float, times 2^-32, plus 1/2 (one
 * conversion and one fused multiply-add per eight or sixteen lanes; within
 * 2^-24 of fb / 2^32, and exact when fb has at most 24 significant bits). */
HL_AVX2_ATTR static inline float hl_fp_frac_simd(uint32_t fb) {
    return fmaf((float)(int32_t)(fb ^ 0x80000000u), 0x1p-32f, 0.5f);
}

/* The AVX2 kernels' positions (mix_kernels.c): lane l's distance from
 * lane 0 of an iteration, l x step in 32.32: its fraction bits with the top
 * bit flipped (lx: added to lane 0's fraction the sum then compares as
 * signed) and its whole frames (h). */
typedef struct {
    __m256i lx, h;
} hl_lanes8_t;

HL_AVX2_ATTR static inline __attribute__((always_inline)) hl_lanes8_t lanes8(uint64_t step) {
    /* in registers, as the AVX-512 loops' positions: l x (step mod 2^32) as
     * 64-bit products (lanes 0-3, 4-7), their low and high halves picked
     * into lane order (the shuffle leaves 0 1 4 5 | 2 3 6 7), plus
     * l x (step >> 32) into the whole frames */
    const __m256i slo = _mm256_set1_epi64x((long long)(step & 0xFFFFFFFFu));
    const __m256 pa = _mm256_castsi256_ps(_mm256_mul_epu32(_mm256_setr_epi64x(0, 1, 2, 3), slo));
    const __m256 pb = _mm256_castsi256_ps(_mm256_mul_epu32(_mm256_setr_epi64x(4, 5, 6, 7), slo));
    const __m256i lo =
        _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(pa, pb, 0x88)), 0xD8);
    const __m256i hi =
        _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(pa, pb, 0xDD)), 0xD8);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return (hl_lanes8_t){
        _mm256_xor_si256(lo, _mm256_set1_epi32((int)0x80000000u)),
        _mm256_add_epi32(hi, _mm256_mullo_epi32(lane, _mm256_set1_epi32((int)(step >> 32))))};
}

/* The eight positions from lane 0's fraction bits fb0: each lane's frame
 * relative to lane 0's (returned) and its fraction (*f, hl_fp_frac_simd's
 * in every lane): exact, whatever the run's first frame was. */
HL_AVX2_ATTR static inline __attribute__((always_inline)) __m256i
lanes8_at(const hl_lanes8_t *ln, uint32_t fb0, __m256 *f) {
    const __m256i fbx = _mm256_add_epi32(ln->lx, _mm256_set1_epi32((int)fb0));
    *f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(fbx), _mm256_set1_ps(0x1p-32f), _mm256_set1_ps(0.5f));
    /* the fractions' sum carried: one frame further */
    return _mm256_sub_epi32(ln->h, _mm256_cmpgt_epi32(ln->lx, fbx));
}

/* Each lane's taps by one load (linear: 64 bits, Catmull-Rom: 128), then
 * transposed into tap vectors p[0 ..]: for Catmull-Rom's eight lanes eight
 * loads and twelve shuffles, where four vgatherdps measured 1.8x slower
 * than the compiler's loop on Zen 4 (a 256-frame call at step 1.37: 775 vs
 * 425 ns; this: 140) and that loop took 32 scalar loads and as many
 * inserts. The lanes' frames are counted in scalar, beside the vector
 * work: x + l x step, the positions exactly. Reads only the taps. With
 * ch = 2 (interleaved stereo) the four floats are two frames' left and
 * right: p[0], p[2] the left taps, p[1], p[3] the right. */
HL_AVX2_ATTR static inline __attribute__((always_inline)) void
hl_lane_taps8(const float *s, uint64_t x, uint64_t step, const int cubic, const int ch, __m256 *p) {
    const float *q[8];
#pragma GCC unroll 8
    for (int l = 0; l < 8; l++, x += step)
        q[l] = s + ch * (x >> 32);
    if (cubic) { /* rows 0 .. 3 of each half: lanes 0 .. 3 and 4 .. 7, taps -1 .. 2 */
        __m256 r[4];
#pragma GCC unroll 4
        for (int l = 0; l < 4; l++)
            r[l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(q[l] - 1)),
                                        _mm_loadu_ps(q[l + 4] - 1), 1);
        const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
        const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
        p[0] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
        p[1] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
        p[2] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
        p[3] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
    } else { /* pairs (s[i], s[i + 1]): lanes 0 1 | 4 5 and 2 3 | 6 7, then split */
        __m128 h[4];
#pragma GCC unroll 4
        for (int k = 0; k < 4; k++) {
            const __m128 lo =
                _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)q[2 * k]));
            h[k] = _mm_loadh_pi(lo, (const __m64 *)(const void *)q[2 * k + 1]);
        }
        const __m256 u = _mm256_insertf128_ps(_mm256_castps128_ps256(h[0]), h[2], 1);
        const __m256 v = _mm256_insertf128_ps(_mm256_castps128_ps256(h[1]), h[3], 1);
        p[0] = _mm256_shuffle_ps(u, v, 0x88);
        p[1] = _mm256_shuffle_ps(u, v, 0xDD);
    }
}

/* How an AVX2 iteration's eight lanes find their taps; a constant in each
 * instance of the window loops. */
#define HL_REACH_LANES  0 /* step > 9/8: each lane's taps (hl_lane_taps8), no gather */
#define HL_REACH_8      1 /* step <= 1: lane offsets from the first lane's index in 0..7 */
#define HL_REACH_9      2 /* 1 < step <= 9/8: offsets in 0..8 */
#define HL_STEP_REACH_9 (HL_FP_ONE + HL_FP_ONE / 8)

static inline int hl_reach(uint64_t step) {
    return step <= HL_FP_ONE ? HL_REACH_8 : step <= HL_STEP_REACH_9 ? HL_REACH_9 : HL_REACH_LANES;
}

/* Catmull-Rom through b (f = 0) and c (f = 1), the same polynomial as
 * hl_catmull_rom with fused multiply-adds, at eight lanes (AVX2) and at
 * sixteen (AVX-512): the same operations in the same order, so both give
 * identical lanes. V is the vector type, P the intrinsics' prefix. */
#define HL_CATMULL_ROM_SIMD(NAME, ATTR, V, P)                                                      \
    ATTR static inline __attribute__((always_inline)) V NAME(V a, V b, V c, V d, V f) {            \
        const V two = P##_set1_ps(2.0f), three = P##_set1_ps(3.0f);                                \
        const V four = P##_set1_ps(4.0f), five = P##_set1_ps(5.0f);                                \
        V p1 = P##_sub_ps(c, a);                                                                   \
        V p2 = P##_fmadd_ps(two, a, P##_fmsub_ps(four, c, P##_fmadd_ps(five, b, d)));              \
        V p3 = P##_fmadd_ps(three, P##_sub_ps(b, c), P##_sub_ps(d, a));                            \
        V inner = P##_fmadd_ps(f, P##_fmadd_ps(f, p3, p2), p1);                                    \
        return P##_fmadd_ps(P##_mul_ps(P##_set1_ps(0.5f), f), inner, b);                           \
    }
HL_CATMULL_ROM_SIMD(catmull_rom_avx2, HL_AVX2_ATTR, __m256, _mm256)
HL_CATMULL_ROM_SIMD(catmull_rom_avx512, HL_AVX512_ATTR, __m512, _mm512)

/* The fused pitched kernels' vector part (the arguments as in
 * hl_mix_kernels_t): mixes output frames 0 .. t - 1 and returns t, a
 * multiple of 16; the caller finishes t .. n - 1 in scalar. */
#define HL_PITCHED_AVX512_DECL(NAME)                                                               \
    uint32_t hl_##NAME##_avx512(float *acc_l, float *acc_r, const float *src, uint32_t avail,      \
                                uint32_t n, uint32_t frac, uint64_t step, const hl_gain_ramp_t *g)
HL_PITCHED_AVX512_DECL(interp_mix_mono);
HL_PITCHED_AVX512_DECL(cubic_mix_mono);
HL_PITCHED_AVX512_DECL(interp_mix_stereo);
HL_PITCHED_AVX512_DECL(cubic_mix_stereo);
HL_PITCHED_AVX512_DECL(interp_mix_downmix);
HL_PITCHED_AVX512_DECL(cubic_mix_downmix);
/* The unfused AVX2 interpolators' vector part (mix_kernels_interp.c; the
 * arguments as hl_mix_kernels_t.interp_mono and cubic_mono): writes
 * dst[0 .. t - 1] and returns t, a multiple of 8, reading no frame the
 * whole run would not; the caller's scalar loop finishes t .. n - 1. */
uint32_t hl_interp_mono_avx2(float *dst, const float *src, uint32_t n, uint32_t frac,
                             uint64_t step);
uint32_t hl_cubic_mono_avx2(float *dst, const float *src, uint32_t n, uint32_t frac, uint64_t step);
/* hl_mix_kernels_t.interp_mix_mono2 (mix_kernels_avx512.c) */
int hl_interp_mix_mono2_avx512(float *acc_l, float *acc_r, const hl_mix_mono_run_t r[2], uint32_t n,
                               const char *const *pf);
#endif

#endif /* HL_MIX_KERNELS_AVX512_H */
