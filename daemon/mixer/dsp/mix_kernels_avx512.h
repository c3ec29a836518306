/*
 * mix_kernels_avx512.h - what the AVX-512 pitched loops
 * (mix_kernels_avx512.c) share with mix_kernels.c, which owns the kernel
 * tables and the scalar tails (and the Catmull-Rom polynomial at eight and
 * sixteen lanes). Internal to the kernels.
 */
#ifndef HL_MIX_KERNELS_AVX512_H
#define HL_MIX_KERNELS_AVX512_H

#include <stdint.h>

#include "mix_kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define HL_AVX512_ATTR   __attribute__((target("avx512f,avx512vl,avx2,fma")))
#define HL_AVX512_LANES  16
#define HL_AVX512_WINDOW 32    /* frames a window of two 16-frame loads covers */
#define HL_AVX512_NARROW 1.75f /* up to this step an iteration's taps lie in one window */
/* Up to these steps a mono iteration's taps lie in ONE 16-frame load: lane
 * 15's index is under 15 * step + 1 frames past lane 0's (floor(a) - floor(b)
 * < a - b + 1; the positions' roundings move it by ~1e-4 at most), so at
 * step <= 0.93 it is at most 14 and its second tap 15; Catmull-Rom's window
 * starts a frame early and reaches 3 past the index: 12, step <= 0.79. */
#define HL_AVX512_NARROW16       0.93f
#define HL_AVX512_NARROW16_CUBIC 0.79f

#define HL_AVX2_ATTR __attribute__((target("avx2,fma")))

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
                                uint32_t n, float f0, float step, const hl_gain_ramp_t *g)
HL_PITCHED_AVX512_DECL(interp_mix_mono);
HL_PITCHED_AVX512_DECL(cubic_mix_mono);
HL_PITCHED_AVX512_DECL(interp_mix_stereo);
HL_PITCHED_AVX512_DECL(cubic_mix_stereo);
HL_PITCHED_AVX512_DECL(interp_mix_downmix);
HL_PITCHED_AVX512_DECL(cubic_mix_downmix);
/* hl_mix_kernels_t.interp_mix_mono2 (mix_kernels_avx512.c) */
int hl_interp_mix_mono2_avx512(float *acc_l, float *acc_r, const hl_mix_mono_run_t r[2], uint32_t n,
                               const char *const *pf);
#endif

#endif /* HL_MIX_KERNELS_AVX512_H */
