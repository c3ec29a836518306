/*
 * fx_biquad.c - the biquads of the effects DSP (hl_fx.h): RBJ cookbook
 * biquads and the one-band EQ insert that glides between settings (the
 * per-voice filter and the occlusion curve: fx_vfilter.c).
 *
 * Biquads are designed in double (the cookbook's formulas, with 1 - cos w
 * written as 2 sin^2(w/2) so low corners keep their precision) and run in
 * transposed direct form II in float: two state words per channel, the
 * form with the least rounding noise for its cost. The EQ glides its
 * parameters (log frequency, dB gain, linear Q) in steps on the HL_FX_GRID
 * frame grid, redesigning once per step, and redesigns nothing once settled.
 */
#include "hl_fx.h"

#include "hl_util.h"
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "fx_filter.h"

#define BQ_MIN_Q  ((float)HL_R_EQ_Q_LO)
#define BQ_MAX_Q  ((float)HL_R_EQ_Q_HI)
#define BQ_DEF_Q  0.70710678f
#define BQ_MAX_DB ((float)HL_R_EQ_GAIN_HI)

/* ---- biquad -------------------------------------------------------------- */

void hl_bq_design(hl_bq_coef_t *c, int type, float rate, float freq, float q, float gain_db) {
    if (!(rate > 0.0f)) rate = 48000.0f;
    if (!(freq == freq)) freq = 1000.0f;
    freq = hl_clampf(freq, BQ_MIN_HZ, BQ_MAX_FRAC * rate);
    if (!(q == q)) q = BQ_DEF_Q;
    q = hl_clampf(q, BQ_MIN_Q, BQ_MAX_Q);
    if (!(gain_db == gain_db)) gain_db = 0.0f;
    gain_db = hl_clampf(gain_db, -BQ_MAX_DB, BQ_MAX_DB);

    double w = 2.0 * HL_PI * (double)freq / (double)rate;
    double sh = sin(0.5 * w);
    double cw = 1.0 - 2.0 * sh * sh; /* cos w */
    double omc = 2.0 * sh * sh;      /* 1 - cos w, exact near 0 */
    double alpha = sin(w) / (2.0 * (double)q);
    double A = pow(10.0, (double)gain_db / 40.0);
    double b0, b1, b2, a0, a1, a2;
    switch (type) {
    case HL_BQ_LOWPASS:
        b0 = b2 = 0.5 * omc;
        b1 = omc;
        a0 = 1.0 + alpha;
        a1 = -2.0 * cw;
        a2 = 1.0 - alpha;
        break;
    case HL_BQ_HIGHPASS:
        b0 = b2 = 0.5 * (2.0 - omc);
        b1 = -(2.0 - omc);
        a0 = 1.0 + alpha;
        a1 = -2.0 * cw;
        a2 = 1.0 - alpha;
        break;
    case HL_BQ_PEAK:
        b0 = 1.0 + alpha * A;
        b1 = -2.0 * cw;
        b2 = 1.0 - alpha * A;
        a0 = 1.0 + alpha / A;
        a1 = -2.0 * cw;
        a2 = 1.0 - alpha / A;
        break;
    case HL_BQ_LOWSHELF: {
        double sa = 2.0 * sqrt(A) * alpha;
        b0 = A * ((A + 1.0) - (A - 1.0) * cw + sa);
        b1 = 2.0 * A * ((A - 1.0) - (A + 1.0) * cw);
        b2 = A * ((A + 1.0) - (A - 1.0) * cw - sa);
        a0 = (A + 1.0) + (A - 1.0) * cw + sa;
        a1 = -2.0 * ((A - 1.0) + (A + 1.0) * cw);
        a2 = (A + 1.0) + (A - 1.0) * cw - sa;
        break;
    }
    case HL_BQ_HIGHSHELF: {
        double sa = 2.0 * sqrt(A) * alpha;
        b0 = A * ((A + 1.0) + (A - 1.0) * cw + sa);
        b1 = -2.0 * A * ((A - 1.0) + (A + 1.0) * cw);
        b2 = A * ((A + 1.0) + (A - 1.0) * cw - sa);
        a0 = (A + 1.0) - (A - 1.0) * cw + sa;
        a1 = 2.0 * ((A - 1.0) - (A + 1.0) * cw);
        a2 = (A + 1.0) - (A - 1.0) * cw - sa;
        break;
    }
    default: b0 = a0 = 1.0, b1 = b2 = a1 = a2 = 0.0; break;
    }
    c->b0 = (float)(b0 / a0);
    c->b1 = (float)(b1 / a0);
    c->b2 = (float)(b2 / a0);
    c->a1 = (float)(a1 / a0);
    c->a2 = (float)(a2 / a0);
}

void hl_bq_process_rt(const hl_bq_coef_t *c, hl_bq_state_t *s, float *x, uint32_t n) {
    const float b0 = c->b0, b1 = c->b1, b2 = c->b2, a1 = c->a1, a2 = c->a2;
    float s1 = s->s1, s2 = s->s2;
    for (uint32_t i = 0; i < n; i++) {
        float in = x[i];
        float y = b0 * in + s1;
        s1 = b1 * in - a1 * y + s2;
        s2 = b2 * in - a2 * y;
        x[i] = y;
    }
    s->s1 = flush(s1);
    s->s2 = flush(s2);
}

/* ---- EQ insert ----------------------------------------------------------- */

static void eq_design(hl_eq_t *e) {
    hl_bq_design(&e->c, e->type, e->rate, expf(e->cur_lf), e->cur_q, e->cur_db);
}

/* Clamps the targets into the ranges hl_bq_design uses, so the glide runs
 * between points it will actually reach. */
static void eq_targets(hl_eq_t *e, int type, float freq, float q, float gain_db) {
    if (!(freq == freq)) freq = 1000.0f;
    if (!(q == q)) q = BQ_DEF_Q;
    if (!(gain_db == gain_db)) gain_db = 0.0f;
    e->type = type;
    e->freq = hl_clampf(freq, BQ_MIN_HZ, BQ_MAX_FRAC * e->rate);
    e->q = hl_clampf(q, BQ_MIN_Q, BQ_MAX_Q);
    e->gain_db = hl_clampf(gain_db, -BQ_MAX_DB, BQ_MAX_DB);
}

static void eq_settle(hl_eq_t *e) {
    e->cur_lf = logf(e->freq);
    e->cur_q = e->q;
    e->cur_db = e->gain_db;
    e->steps = 0;
    eq_design(e);
}

void hl_eq_init(hl_eq_t *e, float rate, int type, float freq, float q, float gain_db) {
    e->rate = rate > 0.0f ? rate : 48000.0f;
    eq_targets(e, type, freq, q, gain_db);
    e->d_lf = e->d_q = e->d_db = 0.0f;
    e->grid_pos = 0;
    hl_bq_reset(&e->st[0]);
    hl_bq_reset(&e->st[1]);
    for (int c = 0; c < HL_FX_PLANES - 2; c++)
        hl_bq_reset(&e->stx[c]);
    eq_settle(e);
}

void hl_eq_set_rt(hl_eq_t *e, int type, float freq, float q, float gain_db, uint32_t ramp_frames) {
    int jump = type != e->type || ramp_frames == 0;
    eq_targets(e, type, freq, q, gain_db);
    if (jump) {
        eq_settle(e);
        return;
    }
    uint32_t steps = (ramp_frames + HL_FX_GRID - 1) / HL_FX_GRID;
    float inv = 1.0f / (float)steps;
    e->d_lf = (logf(e->freq) - e->cur_lf) * inv;
    e->d_q = (e->q - e->cur_q) * inv;
    e->d_db = (e->gain_db - e->cur_db) * inv;
    e->steps = steps;
    e->grid_pos = 0; /* the first step is taken at once */
}

/* One grid step of the glide; the last lands exactly on the targets. */
static void eq_step(hl_eq_t *e) {
    if (--e->steps == 0) {
        eq_settle(e);
        return;
    }
    e->cur_lf += e->d_lf;
    e->cur_q += e->d_q;
    e->cur_db += e->d_db;
    eq_design(e);
}

void hl_eq_process_rt(hl_eq_t *e, float *l, float *r, uint32_t n) {
    while (n > 0) {
        uint32_t m = n;
        if (e->steps > 0) {
            if (e->grid_pos == 0) eq_step(e);
            if (m > HL_FX_GRID - e->grid_pos) m = HL_FX_GRID - e->grid_pos;
            e->grid_pos = (e->grid_pos + m) % HL_FX_GRID;
        }
        hl_bq_process_rt(&e->c, &e->st[0], l, m);
        hl_bq_process_rt(&e->c, &e->st[1], r, m);
        l += m;
        r += m;
        n -= m;
    }
}
