/*
 * mix_kernels_tail.h - the scalar tails of the AVX2 and AVX-512 fused
 * kernels (mix_kernels.c alone includes it, inside its x86-64 part).
 * Internal to the kernels.
 */
#ifndef HL_MIX_KERNELS_TAIL_H
#define HL_MIX_KERNELS_TAIL_H

#include <math.h>
#include <stdint.h>

#include "hl_gain_ramp.h"
#include "mix_kernels_avx512.h"

/*
 * Scalar resample + mix from output frame t0: the tails of the SIMD fused
 * kernels (the portable ones run two passes, above). A tail computes each
 * frame with the operations of the vector loops, in their order and fused
 * as they are (catmull_rom_fma is HL_CATMULL_ROM_SIMD in one lane): where
 * a run ends is where a block, a ring refill or the voice's start falls,
 * so a frame must not sound different when it lands in a tail.
 */
HL_AVX2_ATTR static inline __attribute__((always_inline)) float
catmull_rom_fma(float a, float b, float c, float d, float f) {
    const float p1 = c - a;
    const float p2 = fmaf(2.0f, a, fmaf(4.0f, c, -fmaf(5.0f, b, d)));
    const float p3 = fmaf(3.0f, b - c, d - a);
    return fmaf(0.5f * f, fmaf(f, fmaf(f, p3, p2), p1), b);
}

/* The vector loops' mix: acc += v x gain(t + 1) (flat: the constant gain). */
HL_AVX2_ATTR static inline __attribute__((always_inline)) void
mix_tail_fma(float *al, float *ar, uint32_t t, float vl, float vr, const hl_gain_ramp_t *g) {
    float gl = g->l0, gr = g->r0;
    if (!hl_gain_is_const(g)) {
        const float k = g->k0 + (float)(int)(t + 1);
        gl = fmaf(k, fmaf(k, g->ql, g->dl), g->l0);
        gr = fmaf(k, fmaf(k, g->qr, g->dr), g->r0);
    }
    al[t] = fmaf(vl, gl, al[t]);
    ar[t] = fmaf(vr, gr, ar[t]);
}

HL_AVX2_ATTR static void mono_mix_ref_avx2(float *__restrict__ al, float *__restrict__ ar,
                                           const float *__restrict__ s, uint32_t t0, uint32_t n,
                                           uint32_t frac, uint64_t step, const hl_gain_ramp_t *g,
                                           const int cubic) {
    for (uint32_t t = t0; t < n; t++) {
        const uint64_t x = frac + (uint64_t)t * step;
        const int i = (int)(x >> 32);
        const float f = hl_fp_frac_simd((uint32_t)x);
        const float v = cubic ? catmull_rom_fma(s[i - 1], s[i], s[i + 1], s[i + 2], f)
                              : fmaf(f, s[i + 1] - s[i], s[i]);
        mix_tail_fma(al, ar, t, v, v, g);
    }
}

HL_AVX2_ATTR static void stereo_mix_ref_avx2(float *__restrict__ al, float *__restrict__ ar,
                                             const float *__restrict__ s, uint32_t t0, uint32_t n,
                                             uint32_t frac, uint64_t step, const hl_gain_ramp_t *g,
                                             const int cubic, const int down) {
    for (uint32_t t = t0; t < n; t++) {
        const uint64_t x = frac + (uint64_t)t * step;
        const int i = (int)(x >> 32);
        const float f = hl_fp_frac_simd((uint32_t)x);
        const float *p = s + 2 * i;
        float vl, vr;
        if (cubic && down) { /* halving is exact: before or after is the same */
            vl = vr =
                catmull_rom_fma(p[-2] + p[-1], p[0] + p[1], p[2] + p[3], p[4] + p[5], f) * 0.5f;
        } else if (cubic) {
            vl = catmull_rom_fma(p[-2], p[0], p[2], p[4], f);
            vr = catmull_rom_fma(p[-1], p[1], p[3], p[5], f);
        } else if (down) {
            const float a = (p[0] + p[1]) * 0.5f, b = (p[2] + p[3]) * 0.5f;
            vl = vr = fmaf(f, b - a, a);
        } else {
            vl = fmaf(f, p[2] - p[0], p[0]);
            vr = fmaf(f, p[3] - p[1], p[1]);
        }
        mix_tail_fma(al, ar, t, vl, vr, g);
    }
}

#endif /* HL_MIX_KERNELS_TAIL_H */
