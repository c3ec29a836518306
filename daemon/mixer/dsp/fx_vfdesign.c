/*
 * fx_vfdesign.c - the block matrices of the per-voice filter's settled
 * stages (fx_vfilter.c) and the mixer's table that shares them.
 *
 * A settled stage runs four or eight samples at a time in state-space form
 * (fx_vfilter.c, "settled stage"); its matrices follow from the coefficient
 * g = tan(pi f / rate) alone. Computing them (a short chain of 2x2 products
 * in double) and tan() was a good part of a settled voice's block, and all
 * of it is the same for every voice at the same cutoff: hl_vf_design_get
 * keeps the last HL_VF_CACHE designs (four-way set associative by cutoff
 * and stage, least recently used out) in the mixer (one audio thread: no sharing between threads).
 * A miss costs what the design cost before, plus the copy into the slot.
 */
#include <string.h>

#include "hl_fx.h"

#include "fx_filter.h"

static inline void mat2_mul(double r[2][2], double x[2][2], double y[2][2]) {
    double t[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            t[i][j] = x[i][0] * y[0][j] + x[i][1] * y[1][j];
    memcpy(r, t, sizeof t);
}

/* From the stage's own float coefficients (those the per-sample form uses),
 * in double: one step of the SVF is
 *   s1' = (2 a1 - 1) s1 - 2 a2 s2 + 2 a2 x,  s2' = 2 a2 s1 + (1 - 2 a3) s2 + 2 a3 x
 *   low-pass  y = a2 s1 + (1 - a3) s2 + a3 x
 *   high-pass y = x - k v1 - v2 = -(k a1 + a2) s1 + (k a2 - 1 + a3) s2 + (1 - k a2 - a3) x
 * and the rest are powers of A (a short chain of 2x2 products, cheaper than
 * running the filter on impulses). */
void hl_vf_design(hl_vf_design_t *d, float g, int hp) {
    const float a1f = vf_a1(g), a2f = g * a1f, a3f = g * a2f;
    const double a1 = a1f, a2 = a2f, a3 = a3f, k = (double)FX_SQRT2;
    double A[2][2] = {{2.0 * a1 - 1.0, -2.0 * a2}, {2.0 * a2, 1.0 - 2.0 * a3}};
    const double c0 = hp ? -(k * a1 + a2) : a2, c1 = hp ? k * a2 - 1.0 + a3 : 1.0 - a3;
    const double dd = hp ? 1.0 - k * a2 - a3 : a3;
    double s0 = 2.0 * a2, s1 = 2.0 * a3, r0 = c0, r1 = c1;
    d->st[0][0] = d->st[0][1] = 0.0f;
    for (int m = 0; m < HL_VF_DMAX; m++) {
        d->hz[m] = 0.0f;
        d->hz[HL_VF_DMAX + m] = (float)(m == 0 ? dd : c0 * d->st[m][0] + c1 * d->st[m][1]);
        d->st[m + 1][0] = (float)s0;
        d->st[m + 1][1] = (float)s1;
        d->n1[m] = (float)r0;
        d->n2[m] = (float)r1;
        const double t0 = A[0][0] * s0 + A[0][1] * s1, t1 = A[1][0] * s0 + A[1][1] * s1;
        const double u0 = r0 * A[0][0] + r1 * A[1][0], u1 = r0 * A[0][1] + r1 * A[1][1];
        s0 = t0;
        s1 = t1;
        r0 = u0;
        r1 = u1;
    }
    double p2[2][2], p4[2][2], p8[2][2];
    mat2_mul(p2, A, A);
    mat2_mul(p4, p2, p2);
    mat2_mul(p8, p4, p4);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            d->a4[i][j] = (float)p4[i][j];
            d->a8[i][j] = (float)p8[i][j];
        }
    for (int j = 0; j < HL_VF_DMAX; j++)
        for (int k = 0; k < 4; k++)
            d->pc8[j][k] = d->st[HL_VF_DMAX - j][k & 1];
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 4; k++)
            d->q8[c][k] = d->a8[k & 1][c];
}

static inline uint32_t f_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

const hl_vf_design_t *hl_vf_design_get(hl_vf_cache_t *c, float pi_rate, float f_hz, int hp,
                                       float *g, hl_vf_design_t *scratch) {
    const uint32_t fb = f_bits(f_hz), h = hp ? 1u : 0u;
    if (c && c->pi_rate != pi_rate) {
        if (c->pi_rate != 0.0f)
            c = NULL; /* another rate: not this table's */
        else
            c->pi_rate = pi_rate;
    }
    if (!c || fb == 0) {
        *g = tanf(f_hz * pi_rate);
        hl_vf_design(scratch, *g, hp);
        return scratch;
    }
    const uint32_t base = ((fb * 2654435761u) >> 24 ^ h) % (HL_VF_CACHE / HL_VF_WAYS) * HL_VF_WAYS;
    hl_vf_ckey_t *set = &c->k[base];
    uint32_t w = 0, lru = 0;
    for (; w < HL_VF_WAYS; w++) {
        if (set[w].fbits == fb && set[w].hp == h) break;
        if (set[w].used < set[lru].used) lru = w; /* the least recently used so far */
    }
    if (w == HL_VF_WAYS) {
        w = lru;
        set[w].g = tanf(f_hz * pi_rate);
        hl_vf_design(&c->d[base + w], set[w].g, hp);
        set[w].fbits = fb;
        set[w].hp = h;
        c->misses++;
    } else {
        c->hits++;
    }
    set[w].used = ++c->clock;
    *g = set[w].g;
    return &c->d[base + w];
}

const hl_vf_design_t *hl_vf_design_step(hl_vf_cache_t *c, float pi_rate, float f_hz, int hp,
                                        uint32_t left, float *g, hl_vf_design_t *scratch) {
    const hl_vf_design_t *d = vf_design_hinted(c, pi_rate, f_hz, hp, left, g);
    if (d) return d;
    d = hl_vf_design_get(c, pi_rate, f_hz, hp, g, scratch);
    if (c && d != scratch) c->hint[hp ? 1 : 0][left % HL_VF_HINTS] = (uint8_t)(d - c->d);
    return d;
}
