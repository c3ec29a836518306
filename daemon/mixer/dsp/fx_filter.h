/*
 * fx_filter.h - what the two filter files of the effects DSP share (private
 * to them): fx_biquad.c (biquads, the EQ insert), fx_vfilter.c (the
 * per-voice filter, the occlusion curve) and fx_vfdesign.c (its block
 * matrices).
 *
 * Denormals: every filter state under 1e-20 (-400 dB) is flushed to zero at
 * the end of a call. A slowly decaying state cannot cross from there into the
 * subnormal range within one block, and a fast one passes through it in a few
 * samples, so nothing stalls even without FTZ/DAZ.
 */
#ifndef HL_FX_FILTER_H
#define HL_FX_FILTER_H

#include <math.h>
#include <string.h>

#include "hl_fx.h"
#include "hl_ranges.h"

#define HL_PI        3.14159265358979323846
#define FX_FLUSH     1e-20f      /* states below this are flushed to 0 at block ends */
#define FX_STATE_MAX 1e30f       /* states above this (or NaN) are reset at block ends */
#define FX_SQRT2     1.41421356f /* k = 1/Q for Q = 0.7071: Butterworth */
/* cutoffs (EQ and voice filter) within [BQ_MIN_HZ, BQ_MAX_FRAC x rate]; the range: hl_ranges.h */
#define BQ_MIN_HZ   ((float)HL_R_EQ_FREQ_LO)
#define BQ_MAX_FRAC 0.49f

/* Block-end state hygiene: tiny -> 0 (denormals), and NaN, Inf or absurd
 * (> 1e30) -> 0, so a bad input sample cannot lock a filter up for good. */
static inline float flush(float x) {
    float a = fabsf(x);
    return (a < FX_FLUSH || !(a <= FX_STATE_MAX)) ? 0.0f : x;
}

/* The per-voice filter's a1 = 1 / (1 + g (g + k)) (fx_vfilter.c). */
static inline float vf_a1(float g) {
    return 1.0f / (1.0f + g * (g + FX_SQRT2));
}

/* The block matrices of a settled stage at coefficient g (fx_vfdesign.c):
 * from the stage's own float coefficients, in double. */
void hl_vf_design(hl_vf_design_t *d, float g, int hp);

/* Still moving: gliding, interpolating its last step, or crossfading. */
static inline int vf_busy(const hl_vf_stage_t *st) {
    return st->steps > 0 || st->g0 != st->g || st->fade > 0 || st->mode == HL_VF_FADING;
}

/* fx_vfilter.c, for fx_vfmono.c: the form the settled stages take now
 * (hl_vfilter_simd), the trapezoidal SVF sample by sample (one stage, one
 * channel: hp 0 low-pass, 1 high-pass; g moving by dg a frame; a fade's
 * mix), the eight-sample form (AVX2 + FMA: whole blocks, returns the
 * frames done) and the block design of a stage at cutoff f_hz and
 * coefficient g (the table's, else computed into *scratch). */
int hl_vf_level_now(void);
void hl_vf_svf_run(float *s, float *x, uint32_t n, int hp, float g, float dg, int fade, float mix,
                   float dmix);
/* hl_vf_svf_run on a voice's pair at once (fx_vfsvf.c): the same bits per
 * channel, the coefficients computed once a frame for both. */
void hl_vf_svf_run2(float *sl, float *sr, float *xl, float *xr, uint32_t n, int hp, float g,
                    float dg, int fade, float mix, float dmix);
/* hl_vfilter_process_rt on one channel from in into out (may be in): a
 * follower of a shared glide runs its plan straight from in, without the
 * copy into out first (fx_vfmono.c's glide). */
void hl_vf_process_io_rt(hl_vfilter_t *f, const float *in, float *out, uint32_t n);
uint32_t hl_vf_run_avx2(float (*st)[2], const float *const ins[], float *const outs[], uint32_t nch,
                        uint32_t n, const hl_vf_design_t *dp);
const hl_vf_design_t *hl_vf_design_at(const hl_vfilter_t *f, float f_hz, int hp, float g,
                                      hl_vf_design_t *scratch);

/* A settled stage over n frames of one or two channels ch[c] + off in
 * place with design d, in four-sample blocks (SSE, fx_vfsse.c): whole
 * blocks only; returns the frames done (a multiple of 4). */
uint32_t hl_vf_run_blocks(float (*s)[2], float *const ch[], uint32_t nch, uint32_t off, uint32_t n,
                          const hl_vf_design_t *d);

/* hl_vf_design_step's hit (fx_vfdesign.c), inline for a glide's cells: the
 * entry the hint names when it holds f_hz (counted and marked used as a
 * hit), else NULL. */
static inline const hl_vf_design_t *vf_design_hinted(hl_vf_cache_t *c, float pi_rate, float f_hz,
                                                     int hp, uint32_t left, float *g) {
    uint32_t fb;
    memcpy(&fb, &f_hz, sizeof fb);
    const uint32_t h = hp ? 1u : 0u;
    if (!c || c->pi_rate != pi_rate || fb == 0) return NULL;
    const uint32_t i = c->hint[h][left % HL_VF_HINTS];
    hl_vf_ckey_t *k = &c->k[i];
    if (k->fbits != fb || k->hp != h) return NULL;
    c->hits++;
    k->used = ++c->clock;
    *g = k->g;
    return &c->d[i];
}

#endif /* HL_FX_FILTER_H */
