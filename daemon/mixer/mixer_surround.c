/*
 * mixer_surround.c - what a surround layout (cfg.layout beyond stereo,
 * hl_layout.h) adds to the audio thread's work: the speaker slots of a 3D
 * voice's gain pair, the LFE send, and the bus planes beyond the front pair
 * (gain, mute and ducking, the sum into the parent, the interleaved output).
 *
 * Height (7.1.4): a 3D voice's block is rendered unpanned (its gain pair
 * is the distance gain on both sides, so its own pair holds the mono
 * signal) and goes through the post stage; then it is spread over up to
 * three speakers (VBAP, hl_layout_pan3), each slot's gain ramped over the
 * block like the pair's. Once its slots have settled (no ramp, no speaker
 * to change: sp_hmoved 0) a plain one (no post stage, no LFE
 * send) takes the steady path: the same kernel run into its own pair, then
 * hl_voice_height_rt, skipping the per-block 3D update and the segment loop
 * (mixer_rt.c, process_fast_height; voice_post.c, hl_voice_height_steady_rt).
 *
 * The stereo path never comes here: the front pair (planes 0 and 1) is
 * rendered by the same code on every layout, and each function below only
 * does the planes after it, with copies of the front pair's ramps, so every
 * plane sees the same gain curve per frame.
 */
#include <math.h>
#include <string.h>

#include "hl_simd.h"
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

/* The slot each wanted speaker k goes to (-1: none, its gain is 0). */
static void height_slot_of(const hl_rt_voice_t *v, int slot_of[3]) {
    int used[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) /* a speaker already on a slot keeps it */
        for (int s = 0; s < 3 && v->sp_hq[k] != 0.0f; s++)
            if (!used[s] && v->hc[s] == v->sp_hc[k]) {
                slot_of[k] = s;
                used[s] = 1;
                break;
            }
    for (int pass = 0; pass < 2; pass++) /* the others: a silent slot first */
        for (int k = 0; k < 3; k++)
            for (int s = 0; s < 3 && v->sp_hq[k] != 0.0f && slot_of[k] < 0; s++)
                if (!used[s] && (pass || v->hq[s].cur == 0.0f)) {
                    slot_of[k] = s;
                    used[s] = 1;
                }
}

void hl_surround_height_slots_rt(hl_rt_voice_t *v, uint32_t n) {
    int slot_of[3] = {-1, -1, -1};
    height_slot_of(v, slot_of);
    v->sp_pend = 0;
    for (int s = 0; s < 3; s++) {
        float want = 0.0f;
        for (int k = 0; k < 3; k++) {
            if (slot_of[k] != s) continue;
            if (v->hc[s] != v->sp_hc[k] && v->hq[s].cur == 0.0f) v->hc[s] = v->sp_hc[k];
            if (v->hc[s] == v->sp_hc[k])
                want = v->sp_hq[k];
            else
                v->sp_pend = 1; /* fades out where it is, moves next block */
        }
        v->hq[s].target = want;
        v->hq[s].rem = want == v->hq[s].cur ? 0 : n;
    }
    /* a voice that moved this block is not made steady: it may move again.
     * Not moved, the slots have settled: each on its speaker at its gain, and
     * the next update with the same sp_hc/sp_hq changes nothing */
    v->sp_hmoved = (uint8_t)(v->sp_pend || v->hq[0].rem || v->hq[1].rem || v->hq[2].rem);
}

void hl_surround_height_mix_rt(hl_mixer_t *m, const hl_rt_voice_t *v, uint32_t bus, const float *y,
                               uint32_t n) {
    for (int s = 0; s < 3; s++) {
        const hl_ramp_t *g = &v->hq[s];
        if (g->cur == 0.0f && g->target == 0.0f) continue;
        float *d = m->acc[bus][v->hc[s]];
        const uint32_t rn = g->rem < n ? g->rem : n;
        const float g0 = g->cur, end = ramp_after(g, rn), dg = rn ? (end - g0) / (float)rn : 0.0f;
        for (uint32_t t = 0; t < rn; t++)
            d[t] += (g0 + (float)(t + 1) * dg) * y[t];
        for (uint32_t t = rn; t < n; t++)
            d[t] += end * y[t];
    }
}

/* y = (l + r) / 2 into k (1..3) distinct planes d at gains q, in one pass
 * (sums and products only: the same bits at any vector width). */
static inline __attribute__((always_inline)) void
height_flat(float *restrict d0, float *restrict d1, float *restrict d2, const float *restrict l,
            const float *restrict r, const float q[3], int k, uint32_t n) {
    const float q0 = q[0], q1 = q[1], q2 = q[2];
    if (k == 3)
        for (uint32_t t = 0; t < n; t++) {
            const float y = 0.5f * (l[t] + r[t]);
            d0[t] += q0 * y;
            d1[t] += q1 * y;
            d2[t] += q2 * y;
        }
    else if (k == 2)
        for (uint32_t t = 0; t < n; t++) {
            const float y = 0.5f * (l[t] + r[t]);
            d0[t] += q0 * y;
            d1[t] += q1 * y;
        }
    else if (k == 1)
        for (uint32_t t = 0; t < n; t++)
            d0[t] += q0 * (0.5f * (l[t] + r[t]));
}

static void height_flat_sse(float *restrict d0, float *restrict d1, float *restrict d2,
                            const float *restrict l, const float *restrict r, const float q[3],
                            int k, uint32_t n) {
    height_flat(d0, d1, d2, l, r, q, k, n);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void height_flat_avx2(float *restrict d0, float *restrict d1,
                                                             float *restrict d2,
                                                             const float *restrict l,
                                                             const float *restrict r,
                                                             const float q[3], int k, uint32_t n) {
    height_flat(d0, d1, d2, l, r, q, k, n);
}
#endif

int hl_surround_height_flat_rt(hl_mixer_t *m, const hl_rt_voice_t *v, const float *l,
                               const float *r, uint32_t n) {
    float *d[3] = {NULL, NULL, NULL}, q[3] = {0.0f, 0.0f, 0.0f};
    int k = 0;
    for (int s = 0; s < 3; s++) {
        const hl_ramp_t *g = &v->hq[s];
        if (g->rem || g->cur != g->target) return 0;
        if (g->cur == 0.0f) continue; /* silent: height_mix skips it too */
        for (int j = 0; j < k; j++)
            if (d[j] == m->acc[v->f.bus][v->hc[s]]) return 0; /* one plane twice */
        d[k] = m->acc[v->f.bus][v->hc[s]];
        q[k++] = g->target; /* ramp_after(g, 0), what height_mix adds */
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (hl_simd_level() >= HL_SIMD_AVX2) { /* the CPU's, capped by HELIOD_ISA */
        height_flat_avx2(d[0], d[1], d[2], l, r, q, k, n);
        return 1;
    }
#endif
    height_flat_sse(d[0], d[1], d[2], l, r, q, k, n);
    return 1;
}

void hl_surround_height_advance_rt(hl_rt_voice_t *v, uint32_t n) {
    for (int s = 0; s < 3; s++)
        ramp_advance(&v->hq[s], n);
}

void hl_surround_lfe_rt(hl_mixer_t *m, hl_rt_voice_t *v, const float *l, const float *r,
                        uint32_t n) {
    hl_ramp_t *g = &v->lfe;
    const float gl = v->gl.cur, gr = v->gr.cur, w = sqrtf(gl * gl + gr * gr);
    if (m->lfe_ch < 0 || !(w > 0.0f) || !isfinite(w)) {
        ramp_advance(g, n);
        return;
    }
    /* the pair back to the pre-pan level: (gl L + gr R) / |g|; a height
     * voice's pair is unpanned (gl = gr): (L + R) / 2 */
    const int h = m->height && (v->flags & HL_MIX_3D);
    const float a = h ? 0.5f : gl / w, b = h ? 0.5f : gr / w;
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
