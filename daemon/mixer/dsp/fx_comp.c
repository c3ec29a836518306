/*
 * fx_comp.c - the bus compressor of the effects DSP (hl_fx.h) and the insert
 * wrapper that dispatches a chain of effects.
 *
 * The compressor follows Giannoulis, Massberg & Reiss, "Digital Dynamic Range
 * Compressor Design - A Tutorial and Analysis" (JAES 2012), feed-forward,
 * with the level detector after the gain computer ("log domain"):
 *   xG = 20 log10(max(|l|, |r|))                 stereo-linked peak level
 *   yG = xG                                       2(xG - T) < -W
 *        xG + (1/R - 1)(xG - T + W/2)^2 / (2W)    |2(xG - T)| <= W   (soft knee)
 *        T + (xG - T)/R                           2(xG - T) > W
 *   xL = xG - yG                                  wanted reduction, dB >= 0
 *   y1 = max(xL, aR y1 + (1 - aR) xL)         smooth decoupled peak detector:
 *   yL = aA yL + (1 - aA) y1                  release, then attack one-pole
 *   gain = 10^((makeup - yL) / 20)
 * with a = exp(-1 / (t * rate)). The decoupled form (the paper's eq. 17)
 * holds a tone's peaks instead of letting the release sag between them, so a
 * steady sine settles on the static curve, and attack and release do not
 * interact (the branching form's reduction on a 1 kHz sine is ~0.7 dB short). Both channels get the
 * same gain, so the stereo image does not move. The makeup gain glides linearly in dB over
 * HL_FX_GLIDE_MS, sample by sample, so changing it never clicks; a glide
 * given its length (hl_comp_glide_rt: a snapshot fade, a parameter binding)
 * moves threshold, knee, slope and makeup linearly sample by sample over it.
 *
 * A block whose peak stays under the knee while the detector is at rest and
 * the makeup settled at 0 dB is left untouched (one read pass); otherwise the
 * per-sample cost is a log2f, an exp2f and a few multiplies. The detector is
 * flushed to 0 under 1e-6 dB at block ends (no subnormal in its release).
 */
#include "hl_fx.h"

#include "hl_util.h"
#include <math.h>

#define COMP_DB_PER_LOG2 6.02059991f  /* 20 log10(2): dB = this * log2(x) */
#define COMP_LOG2_PER_DB 0.166096405f /* log2(10) / 20: x = 2^(dB * this) */
#define COMP_FLOOR_DB    (-140.0f)    /* level of silence (and of anything under 1e-7) */
#define COMP_FLOOR_LIN   1e-7f
#define COMP_CEIL_DB     120.0f /* level clamp: +120 dBFS */
#define COMP_REST_DB     1e-6f  /* detector below this is at rest (flushed to 0) */

static float one_pole(float ms, float rate) {
    float n = ms * 0.001f * rate;
    return n > 0.0f ? expf(-1.0f / n) : 0.0f;
}

void hl_comp_init(hl_comp_t *c, float rate) {
    *c = (hl_comp_t){0};
    c->rate = rate > 0.0f ? rate : 48000.0f;
    hl_comp_set_rt(c, -20.0f, 4.0f, 6.0f, 5.0f, 100.0f, 0.0f);
    c->makeup_cur = c->makeup_db;
    c->makeup_left = 0;
}

void hl_comp_set_rt(hl_comp_t *c, float threshold_db, float ratio, float knee_db, float attack_ms,
                    float release_ms, float makeup_db) {
    hl_comp_glide_rt(c, threshold_db, ratio, knee_db, attack_ms, release_ms, makeup_db, 0);
}

void hl_comp_glide_rt(hl_comp_t *c, float threshold_db, float ratio, float knee_db, float attack_ms,
                      float release_ms, float makeup_db, uint32_t ramp_frames) {
    const float thr0 = c->threshold_db, knee0 = c->knee_db, slope0 = c->slope;
    c->threshold_db = hl_clampf(threshold_db, HL_R_COMP_THRESH_LO, HL_R_COMP_THRESH_HI);
    c->ratio = hl_clampf(ratio, HL_R_COMP_RATIO_LO, HL_R_COMP_RATIO_HI);
    c->knee_db = hl_clampf(knee_db, HL_R_COMP_KNEE_LO, HL_R_COMP_KNEE_HI);
    c->attack_ms = hl_clampf(attack_ms, (float)HL_R_COMP_ATTACK_LO, HL_R_COMP_ATTACK_HI);
    c->release_ms = hl_clampf(release_ms, HL_R_COMP_RELEASE_LO, HL_R_COMP_RELEASE_HI);
    c->att = one_pole(c->attack_ms, c->rate);
    c->rel = one_pole(c->release_ms, c->rate);
    c->slope = 1.0f / c->ratio - 1.0f;
    if (ramp_frames > 0) { /* from where the last glide has them */
        float n = (float)ramp_frames;
        c->thr_step = (c->threshold_db - c->thr_cur) / n;
        c->knee_step = (c->knee_db - c->knee_cur) / n;
        c->slope_step = (c->slope - c->slope_cur) / n;
        c->set_left = ramp_frames;
    } else if (!(c->set_left > 0 && thr0 == c->threshold_db && knee0 == c->knee_db &&
                 slope0 == c->slope)) { /* (the same targets again: the glide goes on) */
        c->thr_cur = c->threshold_db;
        c->knee_cur = c->knee_db;
        c->slope_cur = c->slope;
        c->set_left = 0;
    }
    float mk = makeup_db == makeup_db
                   ? hl_clampf(makeup_db, HL_R_COMP_MAKEUP_LO, HL_R_COMP_MAKEUP_HI)
                   : 0.0f;
    if (mk != c->makeup_db || c->makeup_left > 0 || ramp_frames > 0) {
        uint32_t len = ramp_frames ? ramp_frames : (uint32_t)(HL_FX_GLIDE_MS * 0.001f * c->rate);
        if (len == 0) len = 1;
        c->makeup_db = mk;
        c->makeup_step = (mk - c->makeup_cur) / (float)len;
        c->makeup_left = len;
    }
}

float hl_comp_reduction_db(const hl_comp_t *c) {
    return c->env_db;
}

/* Gain computer: reduction xL = xG - yG (dB, >= 0) for a level d = xG - T
 * above the threshold. */
static inline float comp_reduction(float d, float knee, float half_knee, float slope) {
    if (d <= -half_knee) return 0.0f;
    if (d >= half_knee) return -slope * d;
    float t = d + half_knee;
    return -slope * t * t / (2.0f * knee);
}

void hl_comp_process_rt(hl_comp_t *c, float *l, float *r, uint32_t n) {
    float thr = c->thr_cur, knee = c->knee_cur, hk = 0.5f * knee, slope = c->slope_cur;
    const float att = c->att, rel = c->rel;
    uint32_t set_left = c->set_left;

    if (c->env_db == 0.0f && c->peak_db == 0.0f && c->makeup_left == 0 && c->makeup_cur == 0.0f &&
        set_left == 0) {
        float pk = 0.0f; /* at rest: untouched while the block stays under the knee */
        for (uint32_t i = 0; i < n; i++) {
            float a = fabsf(l[i]), b = fabsf(r[i]);
            float m = a > b ? a : b;
            pk = m > pk ? m : pk;
        }
        float lim = powf(10.0f, (thr - hk) / 20.0f);
        if (pk <= lim) return; /* NaN falls through to the per-sample path */
    }

    float env = c->env_db, pk = c->peak_db, mk = c->makeup_cur, mk_step = c->makeup_step;
    uint32_t mk_left = c->makeup_left;
    for (uint32_t i = 0; i < n; i++) {
        if (set_left > 0) { /* the settings glide; the last step lands on the targets */
            if (--set_left == 0) {
                thr = c->threshold_db;
                knee = c->knee_db;
                slope = c->slope;
            } else {
                thr += c->thr_step;
                knee += c->knee_step;
                slope += c->slope_step;
            }
            hk = 0.5f * knee;
        }
        float a = fabsf(l[i]), b = fabsf(r[i]);
        float x = a > b ? a : b;
        float xg = x > COMP_FLOOR_LIN ? COMP_DB_PER_LOG2 * log2f(x) : COMP_FLOOR_DB;
        xg = xg < COMP_CEIL_DB ? xg : COMP_CEIL_DB; /* Inf must not pin the detector */
        float xl = comp_reduction(xg - thr, knee, hk, slope);
        float rl = rel * pk + (1.0f - rel) * xl;
        pk = xl > rl ? xl : rl;
        env = att * env + (1.0f - att) * pk;
        if (mk_left > 0) {
            mk = --mk_left == 0 ? c->makeup_db : mk + mk_step;
        }
        float g = exp2f((mk - env) * COMP_LOG2_PER_DB);
        l[i] *= g;
        r[i] *= g;
    }
    if (!(env >= COMP_REST_DB)) env = 0.0f; /* also scrubs a NaN */
    if (!(pk >= COMP_REST_DB)) pk = 0.0f;
    c->env_db = env;
    c->peak_db = pk;
    c->makeup_cur = mk;
    c->makeup_left = mk_left;
    c->thr_cur = thr;
    c->knee_cur = knee;
    c->slope_cur = slope;
    c->set_left = set_left;
}

/* ---- insert wrapper -------------------------------------------------------- */

void hl_fx_process_rt(hl_fx_t *fx, float *l, float *r, uint32_t n) {
    switch (fx->kind) {
    case HL_FX_EQ: hl_eq_process_rt(&fx->u.eq, l, r, n); break;
    case HL_FX_COMP: hl_comp_process_rt(&fx->u.comp, l, r, n); break;
    case HL_FX_REVERB:
        if (fx->u.rev) hl_reverb_process_rt(fx->u.rev, l, r, n);
        break;
    default: break;
    }
}

void hl_fx_chain_process_rt(hl_fx_t *chain, uint32_t count, float *l, float *r, uint32_t n) {
    for (uint32_t i = 0; i < count; i++)
        hl_fx_process_rt(&chain[i], l, r, n);
}
