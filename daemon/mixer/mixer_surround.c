/*
 * mixer_surround.c - what a surround layout (cfg.layout beyond stereo,
 * hl_layout.h) adds to the audio thread's work: the speaker slots of a 3D
 * voice's gain pair, the LFE send, and the bus planes beyond the front pair
 * (gain, mute and ducking, the sum into the parent, the interleaved output).
 *
 * The stereo path never comes here: the front pair (planes 0 and 1) is
 * rendered by the same code on every layout, and each function below only
 * does the planes after it, with copies of the front pair's ramps, so every
 * plane sees the same gain curve per frame.
 */
#include <math.h>
#include <string.h>

#include "voice_state.h"

void hl_surround_slots_rt(hl_rt_voice_t *v, float *l, float *r) {
    uint8_t cl = v->sp_cl, cr = v->sp_cr;
    if (cl == v->f.cr || cr == v->f.cl) { /* a speaker shared with the pair in use keeps its slot */
        const float t = *l;
        *l = *r;
        *r = t;
        v->sp_cl = cr;
        v->sp_cr = cl;
        v->sp_l = *l;
        v->sp_r = *r;
        cl = v->sp_cl;
        cr = v->sp_cr;
    }
    v->sp_pend = 0;
    /* a slot that changes speaker first fades out where it is, then moves */
    if (cl != v->f.cl) {
        if (v->gl.cur == 0.0f) {
            v->f.cl = cl;
        } else {
            *l = 0.0f;
            v->sp_pend = 1;
        }
    }
    if (cr != v->f.cr) {
        if (v->gr.cur == 0.0f) {
            v->f.cr = cr;
        } else {
            *r = 0.0f;
            v->sp_pend = 1;
        }
    }
}

void hl_surround_lfe_rt(hl_mixer_t *m, hl_rt_voice_t *v, const float *l, const float *r,
                        uint32_t n) {
    hl_ramp_t *g = &v->lfe;
    const float gl = v->gl.cur, gr = v->gr.cur, w = sqrtf(gl * gl + gr * gr);
    if (m->lfe_ch < 0 || !(w > 0.0f) || !isfinite(w)) {
        ramp_advance(g, n);
        return;
    }
    /* the pair back to the pre-pan level: (gl L + gr R) / |g| */
    const float a = gl / w, b = gr / w;
    float *d = m->acc[v->bus][m->lfe_ch];
    const uint32_t rn = g->rem < n ? g->rem : n;
    const float g0 = g->cur, end = ramp_after(g, rn), dg = rn ? (end - g0) / (float)rn : 0.0f;
    for (uint32_t t = 0; t < n; t++) {
        const float k = t < rn ? g0 + (float)(t + 1) * dg : end;
        d[t] += k * (a * l[t] + b * r[t]);
    }
    ramp_advance(g, n);
}

void hl_surround_gain_rt(hl_mixer_t *m, uint32_t b, uint32_t n, const hl_ramp_t *duck) {
    for (uint32_t c = 2; c < m->nch; c += 2) {
        hl_ramp_t g = m->bus_gain[b], mu = m->bus[b].mute, d = *duck;
        hl_gain3_rt(m->acc[b][c], m->acc[b][c + 1], n, &g, &mu, &d);
    }
}

float hl_surround_join_rt(hl_mixer_t *m, uint32_t b, uint32_t n, float peak) {
    const int p = m->graph.parent[b];
    float(*dst)[HL_MIX_BLOCK] = m->acc[p >= 0 ? (uint32_t)p : HL_MASTER];
    hl_mix_meter_t *mt = &m->meter;
    for (uint32_t c = 2; c < m->nch; c++) {
        const float *x = m->acc[b][c];
        const float pk = hl_peak_abs_rt(x, n, 0.0f);
        if (pk > peak) peak = pk;
        if (pk > mt->peak[b][c]) mt->peak[b][c] = pk; /* the bus meter, as its front pair's */
        mt->sumsq[b][c] += hl_sumsq_rt(x, n);
        float *y = dst[c];
        for (uint32_t t = 0; t < n; t++)
            y[t] += x[t];
    }
    return peak;
}

void hl_surround_interleave_rt(const hl_mixer_t *m, float *out, uint32_t n) {
    const uint32_t ch = m->nch;
    for (uint32_t c = 0; c < ch; c++) {
        const float *x = m->acc[HL_MASTER][c];
        for (uint32_t t = 0; t < n; t++)
            out[(size_t)t * ch + c] = x[t];
    }
}

void hl_surround_meter_rt(hl_mixer_t *m, const float *out, uint32_t frames) {
    const uint32_t ch = m->nch;
    hl_mix_meter_t *mt = &m->meter;
    for (uint32_t c = 0; c < ch; c++) {
        float pk = 0.0f;
        double ss = 0.0;
        for (uint32_t t = 0; t < frames; t++) {
            const float x = out[(size_t)t * ch + c];
            const float a = fabsf(x);
            pk = a > pk ? a : pk; /* NaN compares false: ignored */
            ss += (double)x * (double)x;
        }
        mt->peak[HL_MIX_METER_MASTER][c] = pk;
        mt->sumsq[HL_MIX_METER_MASTER][c] = ss;
    }
}

void hl_surround_fx_rt(hl_mixer_t *m, uint32_t b, uint32_t n) {
    float *p[HL_LAYOUT_MAX_CH];
    for (uint32_t c = 0; c < m->nch; c++)
        p[c] = m->acc[b][c];
    const hl_rt_bus_t *bs = &m->bus[b];
    for (uint32_t i = 0; i < bs->n_fx; i++)
        hl_fx_process_planes_rt(bs->fx[i], p, m->cfg.layout, m->nch, n);
}
