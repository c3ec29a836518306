/*
 * fx_vfsvf.c - the per-voice filter's per-sample forms (fx_vfilter.c): the
 * trapezoidal SVF over one channel, and over a voice's pair at once (a
 * gliding stage with interpolated coefficients or a crossfade, where the
 * block forms do not apply).
 */
#include "hl_fx.h"

#include "fx_filter.h"

/* Trapezoidal SVF, one stage, one channel, n frames: low-pass output
 * (hp = 0) or high-pass (x - k v1 - v2). The settled case runs with fixed
 * coefficients. Otherwise g moves by dg a frame (from g at the first frame,
 * to reach the cell's target at its last) with a1 recomputed each frame, and
 * a fading stage outputs x + mix (filtered - x), mix falling by dmix. */
/* One frame of the SVF at a1, a2, a3: the state (ic1, ic2) moves on, the
 * low-pass or high-pass output returned. */
static inline __attribute__((always_inline)) float svf_tick(float *ic1, float *ic2, float v0,
                                                            float a1, float a2, float a3, int hp) {
    const float v3 = v0 - *ic2;
    const float v1 = a1 * *ic1 + a2 * v3;
    const float v2 = *ic2 + a2 * *ic1 + a3 * v3;
    *ic1 = 2.0f * v1 - *ic1;
    *ic2 = 2.0f * v2 - *ic2;
    return hp ? v0 - FX_SQRT2 * v1 - v2 : v2;
}

void hl_vf_svf_run(float *s, float *x, uint32_t n, int hp, float g, float dg, int fade, float mix,
                   float dmix) {
    float ic1 = s[0], ic2 = s[1];
    if (dg == 0.0f && !fade) {
        const float a1 = vf_a1(g), a2 = g * a1, a3 = g * a2;
        if (hp) { /* the output's kind fixed for the loop */
            for (uint32_t i = 0; i < n; i++)
                x[i] = svf_tick(&ic1, &ic2, x[i], a1, a2, a3, 1);
        } else {
            for (uint32_t i = 0; i < n; i++)
                x[i] = svf_tick(&ic1, &ic2, x[i], a1, a2, a3, 0);
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            const float a1 = vf_a1(g), a2 = g * a1, a3 = g * a2;
            const float v0 = x[i];
            const float y = svf_tick(&ic1, &ic2, v0, a1, a2, a3, hp);
            x[i] = fade ? v0 + mix * (y - v0) : y;
            g += dg;
            mix -= dmix;
        }
    }
    s[0] = ic1;
    s[1] = ic2;
}

/* svf_run on two channels at once (a voice's pair): the same arithmetic per
 * channel, so the same bits, but the coefficients (g, a1 with its division,
 * the fade mix) are computed once a frame for both and the two channels'
 * dependency chains interleave: a gliding stage, where the block forms do
 * not apply, costs about half of two svf_run calls. */
void hl_vf_svf_run2(float *sl, float *sr, float *xl, float *xr, uint32_t n, int hp, float g,
                    float dg, int fade, float mix, float dmix) {
    float l1 = sl[0], l2 = sl[1], r1 = sr[0], r2 = sr[1];
    for (uint32_t i = 0; i < n; i++) {
        const float a1 = vf_a1(g), a2 = g * a1, a3 = g * a2;
        const float u0 = xl[i], w0 = xr[i];
        const float u3 = u0 - l2, w3 = w0 - r2;
        const float u1 = a1 * l1 + a2 * u3, w1 = a1 * r1 + a2 * w3;
        const float u2 = l2 + a2 * l1 + a3 * u3, w2 = r2 + a2 * r1 + a3 * w3;
        l1 = 2.0f * u1 - l1;
        r1 = 2.0f * w1 - r1;
        l2 = 2.0f * u2 - l2;
        r2 = 2.0f * w2 - r2;
        const float yl = hp ? u0 - FX_SQRT2 * u1 - u2 : u2;
        const float yr = hp ? w0 - FX_SQRT2 * w1 - w2 : w2;
        xl[i] = fade ? u0 + mix * (yl - u0) : yl;
        xr[i] = fade ? w0 + mix * (yr - w0) : yr;
        g += dg;
        mix -= dmix;
    }
    sl[0] = l1;
    sl[1] = l2;
    sr[0] = r1;
    sr[1] = r2;
}
