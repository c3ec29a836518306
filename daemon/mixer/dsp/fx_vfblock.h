/*
 * fx_vfblock.h - the per-voice filter's eight-sample block form (AVX2 +
 * FMA), private to fx_vfilter.c: a settled stage over whole blocks with
 * its design in registers, and a glide's short cell with the design read
 * where it is used (the same operations in the same order: the same bits).
 */
#ifndef HL_FX_VFBLOCK_H
#define HL_FX_VFBLOCK_H

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include "hl_fx.h"

#define VF_HAVE_AVX2   1
#define VF_AVX2_ATTR   __attribute__((target("avx2,fma")))
#define VF_AVX512_ATTR __attribute__((target("avx2,fma,avx512f,avx512vl")))
#define VF_BLK8        8
/* The eight broadcast inputs held as they are: the four-lane products take
 * their low halves, where the compiler would load each input a second
 * time (a four-lane broadcast; loads are what the block form waits on). */
#define VF_HOLD(a, b, c, d, e, f, g, h)                                                            \
    __asm__("" : "+x"(a), "+x"(b), "+x"(c), "+x"(d), "+x"(e), "+x"(f), "+x"(g), "+x"(h))

/* The form with AVX2 and FMA, eight samples a block, one channel after the
 * other: the state chain (the only dependent part) is then one step per
 * eight samples instead of per four, and each output row is one eight-wide
 * multiply-add. Channel c reads ins[c] and writes outs[c] (may be the same
 * buffer) with state st[c]; whole blocks only, returns the frames done. */
VF_AVX2_ATTR static inline __attribute__((always_inline)) uint32_t
vf_run_avx2_in(float (*st)[2], const float *const ins[], float *const outs[], uint32_t nch,
               uint32_t n, const hl_vf_design_t *dp) {
    const uint32_t nb = n / VF_BLK8 * VF_BLK8;
    if (nb == 0) return 0;
    const hl_vf_design_t *d = dp;
    __m256 hc[VF_BLK8];
    __m128 pc[VF_BLK8];
    for (int j = 0; j < VF_BLK8; j++) { /* laid out by hl_vf_design: plain loads */
        hc[j] = _mm256_loadu_ps(d->hz + HL_VF_DMAX - j);
        pc[j] = _mm_loadu_ps(d->pc8[j]);
    }
    const __m256 nv1 = _mm256_loadu_ps(d->n1), nv2 = _mm256_loadu_ps(d->n2);
    const __m128 q1 = _mm_loadu_ps(d->q8[0]), q2 = _mm_loadu_ps(d->q8[1]);
    const __m128 pc0 = pc[0], pc1 = pc[1], pc2 = pc[2], pc3 = pc[3];
    const __m128 pc4 = pc[4], pc5 = pc[5], pc6 = pc[6], pc7 = pc[7];
    const __m256 h0 = hc[0], h1 = hc[1], h2 = hc[2], h3 = hc[3];
    const __m256 h4 = hc[4], h5 = hc[5], h6 = hc[6], h7 = hc[7];
    for (uint32_t c = 0; c < nch; c++) { /* the channels share the matrices */
        const float *in = ins[c];
        float *out = outs[c];
        float *s = st[c];
        __m128 sv = _mm_setr_ps(s[0], s[1], s[0], s[1]);
        for (uint32_t i = 0; i < nb; i += VF_BLK8) {
            const float *x = in + i;
            __m256 x0 = _mm256_broadcast_ss(x), x1 = _mm256_broadcast_ss(x + 1);
            __m256 x2 = _mm256_broadcast_ss(x + 2), x3 = _mm256_broadcast_ss(x + 3);
            __m256 x4 = _mm256_broadcast_ss(x + 4), x5 = _mm256_broadcast_ss(x + 5);
            __m256 x6 = _mm256_broadcast_ss(x + 6), x7 = _mm256_broadcast_ss(x + 7);
            VF_HOLD(x0, x1, x2, x3, x4, x5, x6, x7);
            /* the inputs' share of the next state: off the chain */
            __m128 p0 = _mm_mul_ps(_mm256_castps256_ps128(x0), pc0);
            __m128 p1 = _mm_mul_ps(_mm256_castps256_ps128(x1), pc1);
            p0 = _mm_fmadd_ps(_mm256_castps256_ps128(x2), pc2, p0);
            p1 = _mm_fmadd_ps(_mm256_castps256_ps128(x3), pc3, p1);
            p0 = _mm_fmadd_ps(_mm256_castps256_ps128(x4), pc4, p0);
            p1 = _mm_fmadd_ps(_mm256_castps256_ps128(x5), pc5, p1);
            p0 = _mm_fmadd_ps(_mm256_castps256_ps128(x6), pc6, p0);
            p1 = _mm_fmadd_ps(_mm256_castps256_ps128(x7), pc7, p1);
            const __m128 sa = _mm_permute_ps(sv, _MM_SHUFFLE(0, 0, 0, 0));
            const __m128 sb = _mm_permute_ps(sv, _MM_SHUFFLE(1, 1, 1, 1));
            /* outputs: three independent sums */
            __m256 y0 = _mm256_mul_ps(_mm256_set_m128(sa, sa), nv1);
            __m256 y1 = _mm256_mul_ps(_mm256_set_m128(sb, sb), nv2);
            __m256 y2 = _mm256_mul_ps(x0, h0);
            y0 = _mm256_fmadd_ps(x1, h1, y0);
            y1 = _mm256_fmadd_ps(x2, h2, y1);
            y2 = _mm256_fmadd_ps(x3, h3, y2);
            y0 = _mm256_fmadd_ps(x4, h4, y0);
            y1 = _mm256_fmadd_ps(x5, h5, y1);
            y2 = _mm256_fmadd_ps(x6, h6, y2);
            y0 = _mm256_fmadd_ps(x7, h7, y0);
            /* the chain: two products of the state and one add */
            sv = _mm_add_ps(_mm_fmadd_ps(sb, q2, _mm_add_ps(p0, p1)), _mm_mul_ps(sa, q1));
            _mm256_storeu_ps(out + i, _mm256_add_ps(_mm256_add_ps(y0, y1), y2));
        }
        float o4[4];
        _mm_storeu_ps(o4, sv);
        s[0] = o4[0];
        s[1] = o4[1];
    }
    return nb;
}

/* vf_run_avx2_in on one channel from x into out (may be x), nb frames (a multiple of
 * VF_BLK8), the same operations in the same order (the same bits), but
 * with the design read where it is used: a cell of a glide is one or two
 * blocks, and loading the whole design into registers first would cost
 * more than its blocks. The state comes and goes in a register, sv's
 * lanes 0 and 1 (ic1, ic2; the other two are never read): a glide's
 * cells run one after the other without a round trip through memory. */
VF_AVX2_ATTR static inline __attribute__((always_inline)) __m128
vf_cell_sv(__m128 sv, const float *x, float *out, uint32_t nb, const hl_vf_design_t *d) {
    const float *hz = d->hz + HL_VF_DMAX;
#define VF_H(j)  _mm256_loadu_ps(hz - (j))
#define VF_PC(j) _mm_loadu_ps(d->pc8[j])
    for (uint32_t i = 0; i < nb; i += VF_BLK8, x += VF_BLK8, out += VF_BLK8) {
        __m256 x0 = _mm256_broadcast_ss(x), x1 = _mm256_broadcast_ss(x + 1);
        __m256 x2 = _mm256_broadcast_ss(x + 2), x3 = _mm256_broadcast_ss(x + 3);
        __m256 x4 = _mm256_broadcast_ss(x + 4), x5 = _mm256_broadcast_ss(x + 5);
        __m256 x6 = _mm256_broadcast_ss(x + 6), x7 = _mm256_broadcast_ss(x + 7);
        VF_HOLD(x0, x1, x2, x3, x4, x5, x6, x7);
        __m128 p0 = _mm_mul_ps(_mm256_castps256_ps128(x0), VF_PC(0));
        __m128 p1 = _mm_mul_ps(_mm256_castps256_ps128(x1), VF_PC(1));
        p0 = _mm_fmadd_ps(_mm256_castps256_ps128(x2), VF_PC(2), p0);
        p1 = _mm_fmadd_ps(_mm256_castps256_ps128(x3), VF_PC(3), p1);
        p0 = _mm_fmadd_ps(_mm256_castps256_ps128(x4), VF_PC(4), p0);
        p1 = _mm_fmadd_ps(_mm256_castps256_ps128(x5), VF_PC(5), p1);
        p0 = _mm_fmadd_ps(_mm256_castps256_ps128(x6), VF_PC(6), p0);
        p1 = _mm_fmadd_ps(_mm256_castps256_ps128(x7), VF_PC(7), p1);
        const __m128 sa = _mm_permute_ps(sv, _MM_SHUFFLE(0, 0, 0, 0));
        const __m128 sb = _mm_permute_ps(sv, _MM_SHUFFLE(1, 1, 1, 1));
        __m256 y0 = _mm256_mul_ps(_mm256_set_m128(sa, sa), _mm256_loadu_ps(d->n1));
        __m256 y1 = _mm256_mul_ps(_mm256_set_m128(sb, sb), _mm256_loadu_ps(d->n2));
        __m256 y2 = _mm256_mul_ps(x0, VF_H(0));
        y0 = _mm256_fmadd_ps(x1, VF_H(1), y0);
        y1 = _mm256_fmadd_ps(x2, VF_H(2), y1);
        y2 = _mm256_fmadd_ps(x3, VF_H(3), y2);
        y0 = _mm256_fmadd_ps(x4, VF_H(4), y0);
        y1 = _mm256_fmadd_ps(x5, VF_H(5), y1);
        y2 = _mm256_fmadd_ps(x6, VF_H(6), y2);
        y0 = _mm256_fmadd_ps(x7, VF_H(7), y0);
        sv = _mm_add_ps(_mm_fmadd_ps(sb, _mm_loadu_ps(d->q8[1]), _mm_add_ps(p0, p1)),
                        _mm_mul_ps(sa, _mm_loadu_ps(d->q8[0])));
        _mm256_storeu_ps(out, _mm256_add_ps(_mm256_add_ps(y0, y1), y2));
    }
#undef VF_H
#undef VF_PC
    return sv;
}

/* vf_cell_sv on a state in memory. */
VF_AVX2_ATTR static inline __attribute__((always_inline)) void
vf_cell_avx2(float s[2], const float *x, float *out, uint32_t nb, const hl_vf_design_t *d) {
    const __m128 sv = vf_cell_sv(_mm_setr_ps(s[0], s[1], s[0], s[1]), x, out, nb, d);
    float o4[4];
    _mm_storeu_ps(o4, sv);
    s[0] = o4[0];
    s[1] = o4[1];
}

#endif

#endif /* HL_FX_VFBLOCK_H */
