/*
 * fx_vfsse.c - the per-voice filter's settled stage in four-sample blocks
 * (SSE), the form fx_vfilter.c runs where AVX2 is not there
 * (hl_vfilter_simd level 1); see fx_vfilter.c for the filter itself.
 */
#include "hl_fx.h"

#include "fx_filter.h"

#if defined(__SSE2__)
#include <xmmintrin.h>

/* ---- settled stage, four frames at a time --------------------------------

 * The SVF's recursion is a chain of about five dependent operations per
 * sample, so a settled stage run sample by sample waits on latency, not on
 * arithmetic. Written as a state-space system (state s = (ic1, ic2)),
 *   s' = A s + B x,  y = C s + D x,
 * four samples at once are
 *   y[i]  = C A^i s + sum_{j <= i} h[i - j] x[j]   (h[0] = D, h[k] = C A^(k-1) B)
 *   s_end = A^4 s + sum_j A^(3-j) B x[j]
 * i.e. a few independent multiply-adds per sample and one short dependent
 * chain (the state) per four. It is the same filter with the same state (the
 * integrators' charge), so it hands over to and from the per-sample form at
 * any frame; only the rounding differs (the block matrices are computed in
 * double from the per-sample form's float coefficients). */
#define VF_BLK 4

typedef struct {
    __m128 h[VF_BLK]; /* column j: the response of y[0..3] to x[j] */
    __m128 n1, n2;    /* the response of y[0..3] to ic1, ic2 */
    __m128 p[VF_BLK]; /* state at the block's end from x[j]: (ic1, ic2, ic1, ic2) */
    __m128 q1, q2;    /* ... from ic1, ic2: A^4 columns, (ic1, ic2, ic1, ic2) */
} vf_blk_t;

/* The four-sample form's vectors. */
static void vf_blk_design(vf_blk_t *b, const hl_vf_design_t *dp) {
    const hl_vf_design_t *d = dp;
    for (int j = 0; j < VF_BLK; j++) {
        b->h[j] = _mm_loadu_ps(d->hz + HL_VF_DMAX - j);
        const float *pj = d->st[VF_BLK - j]; /* x[j] has VF_BLK - j steps to the end */
        b->p[j] = _mm_setr_ps(pj[0], pj[1], pj[0], pj[1]);
    }
    b->n1 = _mm_loadu_ps(d->n1);
    b->n2 = _mm_loadu_ps(d->n2);
    b->q1 = _mm_setr_ps(d->a4[0][0], d->a4[1][0], d->a4[0][0], d->a4[1][0]);
    b->q2 = _mm_setr_ps(d->a4[0][1], d->a4[1][1], d->a4[0][1], d->a4[1][1]);
}

#define VF_BC(v, i) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(i, i, i, i))

/* The response of four outputs to the block's inputs x and states sa, sb
 * (each broadcast): a balanced sum, so the four products run in parallel. */
static inline __m128 vf_blk_out(const vf_blk_t *b, __m128 x, __m128 sa, __m128 sb) {
    __m128 t0 = _mm_add_ps(_mm_mul_ps(VF_BC(x, 0), b->h[0]), _mm_mul_ps(VF_BC(x, 1), b->h[1]));
    __m128 t1 = _mm_add_ps(_mm_mul_ps(VF_BC(x, 2), b->h[2]), _mm_mul_ps(VF_BC(x, 3), b->h[3]));
    __m128 t2 = _mm_add_ps(_mm_mul_ps(sa, b->n1), _mm_mul_ps(sb, b->n2));
    return _mm_add_ps(_mm_add_ps(t0, t1), t2);
}

/* State at the block's end from the inputs (lane pairs: xs_j holds x[j] of
 * the channel whose state the pair is) and the broadcast states; the
 * inputs' share does not wait on the previous block. */
static inline __m128 vf_blk_state(const vf_blk_t *b, __m128 x0, __m128 x1, __m128 x2, __m128 x3,
                                  __m128 sa, __m128 sb) {
    __m128 t0 = _mm_add_ps(_mm_mul_ps(x0, b->p[0]), _mm_mul_ps(x1, b->p[1]));
    __m128 t1 = _mm_add_ps(_mm_mul_ps(x2, b->p[2]), _mm_mul_ps(x3, b->p[3]));
    __m128 t2 = _mm_add_ps(_mm_mul_ps(sa, b->q1), _mm_mul_ps(sb, b->q2));
    return _mm_add_ps(_mm_add_ps(t0, t1), t2);
}

/* A settled stage over n frames of one or two channels in place, whole
 * blocks only; returns the frames done (a multiple of VF_BLK). */
uint32_t hl_vf_run_blocks(float (*s)[2], float *const ch[], uint32_t nch, uint32_t off, uint32_t n,
                          const hl_vf_design_t *d) {
    const uint32_t nb = n / VF_BLK * VF_BLK;
    if (nb == 0 || nch == 0) return 0; /* no channel: a shared glide's control moving on */
    vf_blk_t b;
    vf_blk_design(&b, d);
    if (nch == 2) {
        float *l = ch[0] + off, *r = ch[1] + off;
        /* lanes: ic1 L, ic2 L, ic1 R, ic2 R */
        __m128 st = _mm_setr_ps(s[0][0], s[0][1], s[1][0], s[1][1]);
        for (uint32_t i = 0; i < nb; i += VF_BLK) {
            const __m128 xl = _mm_loadu_ps(l + i), xr = _mm_loadu_ps(r + i);
            const __m128 yl = vf_blk_out(&b, xl, VF_BC(st, 0), VF_BC(st, 1));
            const __m128 yr = vf_blk_out(&b, xr, VF_BC(st, 2), VF_BC(st, 3));
            st = vf_blk_state(&b, _mm_shuffle_ps(xl, xr, _MM_SHUFFLE(0, 0, 0, 0)),
                              _mm_shuffle_ps(xl, xr, _MM_SHUFFLE(1, 1, 1, 1)),
                              _mm_shuffle_ps(xl, xr, _MM_SHUFFLE(2, 2, 2, 2)),
                              _mm_shuffle_ps(xl, xr, _MM_SHUFFLE(3, 3, 3, 3)),
                              _mm_shuffle_ps(st, st, _MM_SHUFFLE(2, 2, 0, 0)),
                              _mm_shuffle_ps(st, st, _MM_SHUFFLE(3, 3, 1, 1)));
            _mm_storeu_ps(l + i, yl);
            _mm_storeu_ps(r + i, yr);
        }
        float out[4];
        _mm_storeu_ps(out, st);
        s[0][0] = out[0];
        s[0][1] = out[1];
        s[1][0] = out[2];
        s[1][1] = out[3];
    } else {
        float *x = ch[0] + off;
        __m128 st = _mm_setr_ps(s[0][0], s[0][1], s[0][0], s[0][1]);
        for (uint32_t i = 0; i < nb; i += VF_BLK) {
            const __m128 xv = _mm_loadu_ps(x + i);
            const __m128 sa = VF_BC(st, 0), sb = VF_BC(st, 1);
            const __m128 y = vf_blk_out(&b, xv, sa, sb);
            st = vf_blk_state(&b, VF_BC(xv, 0), VF_BC(xv, 1), VF_BC(xv, 2), VF_BC(xv, 3), sa, sb);
            _mm_storeu_ps(x + i, y);
        }
        float out[4];
        _mm_storeu_ps(out, st);
        s[0][0] = out[0];
        s[0][1] = out[1];
    }
    return nb;
}
#endif
