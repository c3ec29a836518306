/*
 * fx_planes.c - a bus insert on a surround bus (hl_fx_process_planes_rt,
 * hl_fx.h): the planes after the front pair run first, each pair through a
 * copy of the effect holding that pair's own filter or detector state, so
 * every pair sees the front pair's coefficients and glides at the same
 * frames; then the front pair through the effect itself, which advances
 * them. The reverb, one FDN for the whole bus, takes the other planes
 * folded into its input.
 */
#include <string.h>

#include "hl_fx.h"
#include "hl_layout.h"

#define FOLD 0.70710678f /* BS.775: centre, surrounds (and tops) into the front pair at -3 dB */

static void fold_into_front(float *const *p, uint32_t layout, uint32_t nch, uint32_t n) {
    for (uint32_t c = 2; c < nch; c++) {
        const uint32_t spk = hl_layout_speaker((hl_layout_t)layout, c);
        const int left = spk == HL_SPK_FC || spk == HL_SPK_BL || spk == HL_SPK_SL ||
                         spk == HL_SPK_TFL || spk == HL_SPK_TBL;
        const int right = spk == HL_SPK_FC || spk == HL_SPK_BR || spk == HL_SPK_SR ||
                          spk == HL_SPK_TFR || spk == HL_SPK_TBR;
        for (uint32_t t = 0; t < n; t++) {
            const float x = p[c][t] * FOLD;
            if (left) p[0][t] += x;
            if (right) p[1][t] += x;
        }
        memset(p[c], 0, n * sizeof(float)); /* LFE: dropped */
    }
}

void hl_fx_process_planes_rt(hl_fx_t *fx, float *const *p, uint32_t layout, uint32_t nch,
                             uint32_t n) {
    if (nch > HL_FX_PLANES) nch = HL_FX_PLANES;
    switch (fx->kind) {
    case HL_FX_EQ:
        for (uint32_t c = 2; c + 1 < nch; c += 2) {
            hl_eq_t e = fx->u.eq;
            e.st[0] = fx->u.eq.stx[c - 2];
            e.st[1] = fx->u.eq.stx[c - 1];
            hl_eq_process_rt(&e, p[c], p[c + 1], n);
            fx->u.eq.stx[c - 2] = e.st[0];
            fx->u.eq.stx[c - 1] = e.st[1];
        }
        break;
    case HL_FX_COMP:
        for (uint32_t c = 2; c + 1 < nch; c += 2) {
            const uint32_t k = c / 2 - 1;
            hl_comp_t d = fx->u.comp;
            d.peak_db = fx->u.comp.xpeak_db[k];
            d.env_db = fx->u.comp.xenv_db[k];
            hl_comp_process_rt(&d, p[c], p[c + 1], n);
            fx->u.comp.xpeak_db[k] = d.peak_db;
            fx->u.comp.xenv_db[k] = d.env_db;
        }
        break;
    case HL_FX_REVERB: fold_into_front(p, layout, nch, n); break;
    default: break;
    }
    hl_fx_process_rt(fx, p[0], p[1], n);
}
