/*
 * hl_gain_ramp.h - the kernels' ramped gain pair (mix_kernels.h explains the
 * formula): its terms, and the small helpers every kernel and its scalar
 * tails share. All RT safe.
 */
#ifndef HL_GAIN_RAMP_H
#define HL_GAIN_RAMP_H

#include <stdint.h>

typedef struct {
    float l0, dl, ql; /* left gain before the run, linear and quadratic terms */
    float r0, dr, qr; /* right */
    float k0;         /* frames of the ramp before the run: k = k0 + t + 1 (0: from its start) */
} hl_gain_ramp_t;

/* 1 when the gain pair is flat over the run (the steady state of a voice):
 * the kernels then skip the per-sample ramp polynomial, which gives the
 * same values (g0 + k * 0). */
static inline int hl_gain_is_const(const hl_gain_ramp_t *g) {
    return g->dl == 0.0f && g->ql == 0.0f && g->dr == 0.0f && g->qr == 0.0f;
}

/* The ramp g from frame d of its run on (k0 moved on: the same gains). */
static inline hl_gain_ramp_t hl_gain_from(const hl_gain_ramp_t *g, uint32_t d) {
    hl_gain_ramp_t r = *g;
    r.k0 += (float)d;
    return r;
}

/* The ramp g re-based on frame d of its run, as plain terms from there on
 * (k0 = 0; the values rounded: for code that evaluates g0 + j (d + j q)
 * itself). */
static inline hl_gain_ramp_t hl_gain_rebase(const hl_gain_ramp_t *g, float d) {
    d += g->k0;
    return (hl_gain_ramp_t){g->l0 + d * (g->dl + d * g->ql),
                            g->dl + 2.0f * d * g->ql,
                            g->ql,
                            g->r0 + d * (g->dr + d * g->qr),
                            g->dr + 2.0f * d * g->qr,
                            g->qr,
                            0.0f};
}

#endif
