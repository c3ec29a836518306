/*
 * mix_kernels_avx512.h - what the AVX-512 pitched loops
 * (mix_kernels_avx512.c) share with mix_kernels.c, which owns the kernel
 * tables and the scalar tails. Internal to the kernels.
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

/* Catmull-Rom at sixteen lanes: the same fused multiply-adds in the same
 * order as the AVX2 kernels' (catmull_rom_avx2), so both give identical lanes. */
HL_AVX512_ATTR static inline __attribute__((always_inline)) __m512
catmull_rom_avx512(__m512 a, __m512 b, __m512 c, __m512 d, __m512 f) {
    const __m512 two = _mm512_set1_ps(2.0f), three = _mm512_set1_ps(3.0f);
    const __m512 four = _mm512_set1_ps(4.0f), five = _mm512_set1_ps(5.0f);
    __m512 p1 = _mm512_sub_ps(c, a);
    __m512 p2 = _mm512_fmadd_ps(two, a, _mm512_fmsub_ps(four, c, _mm512_fmadd_ps(five, b, d)));
    __m512 p3 = _mm512_fmadd_ps(three, _mm512_sub_ps(b, c), _mm512_sub_ps(d, a));
    __m512 inner = _mm512_fmadd_ps(f, _mm512_fmadd_ps(f, p3, p2), p1);
    return _mm512_fmadd_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), f), inner, b);
}

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
#endif

#endif /* HL_MIX_KERNELS_AVX512_H */
