/*
 * fx_vfmono.c - the per-voice filter (fx_vfilter.c) run once on a panned
 * mono voice's input, before the pan: the same output as filtering the
 * panned pair, within rounding, for half the work.
 */
#include "hl_fx.h"

#include "fx_filter.h"

/* ---- the same filter before the pan ---------------------------------------- */

#define VF_MONO_TOL   1e-6f  /* relative state mismatch the mono path accepts */
#define VF_MONO_MIN_G 1e-12f /* below this pan gain the mono state is not recoverable */

/* A stage the mono path can run: off, or on and settled. */
static inline int vf_stage_settled(const hl_vf_stage_t *st) {
    return st->mode == HL_VF_OFF || (st->mode == HL_VF_ON && !vf_busy(st));
}

/* Which channel the mono state is read from (the louder one) and the ratio
 * other / reference. */
static inline int vf_mono_ref(float gl, float gr, float *ratio) {
    const int c = fabsf(gr) > fabsf(gl);
    *ratio = c ? gl / gr : gr / gl;
    return c;
}

int hl_vfilter_mono_ok(const hl_vfilter_t *f, float gl, float gr) {
    if (!(gl - gl == 0.0f && gr - gr == 0.0f)) return 0; /* NaN or Inf */
    if (!(fabsf(gl) >= VF_MONO_MIN_G || fabsf(gr) >= VF_MONO_MIN_G)) return 0;
    float ratio;
    const int c = vf_mono_ref(gl, gr, &ratio);
    for (int st = 0; st < 2; st++) {
        if ((st == 0 ? f->lp.mode : f->hp.mode) == HL_VF_OFF) continue;
        /* measured against the louder channel's state: what the quieter
         * one would be left with is a free response that far below it */
        const float tol =
            VF_MONO_TOL * fmaxf(fabsf(f->s[st][c][0]), fabsf(f->s[st][c][1])) + FX_FLUSH;
        for (int k = 0; k < 2; k++)
            if (!(fabsf(f->s[st][1 - c][k] - f->s[st][c][k] * ratio) <= tol)) return 0;
    }
    return 1;
}

/* One settled stage over mono input in, into out (may be in), with mono
 * state s (ic1, ic2). */
static void vf_run_mono(const hl_vfilter_t *f, const hl_vf_stage_t *sg, float s[2], const float *in,
                        float *out, uint32_t n, int hp) {
    uint32_t done = 0;
    const int level = hl_vf_level_now();
    const float g = sg->g;
    hl_vf_design_t scratch;
    const hl_vf_design_t *d =
        level >= 1 && n >= 4 ? hl_vf_design_at(f, sg->f, hp, g, &scratch) : NULL;
#if defined(__x86_64__) && defined(__GNUC__)
    if (d && level >= 2) {
        float sa[1][2] = {{s[0], s[1]}};
        const float *ins[1] = {in};
        float *outs[1] = {out};
        done = hl_vf_run_avx2(sa, ins, outs, 1, n, d);
        s[0] = sa[0][0];
        s[1] = sa[0][1];
    }
#endif
#if defined(__SSE2__)
    if (d && level == 1) {
        float sb[1][2] = {{s[0], s[1]}};
        if (out != in) memcpy(out, in, n * sizeof(float));
        float *ch[1] = {out};
        done = hl_vf_run_blocks(sb, ch, 1, 0, n, d);
        s[0] = sb[0][0];
        s[1] = sb[0][1];
    }
#endif
    if (done < n) {
        if (out != in) memcpy(out + done, in + done, (n - done) * sizeof(float));
        hl_vf_svf_run(s, out + done, n - done, hp, g, 0.0f, 0, 0.0f, 0.0f);
    }
}

void hl_vfilter_process_mono_rt(hl_vfilter_t *f, const float *in, float *out, uint32_t n, float gl,
                                float gr) {
    float ratio;
    const int c = vf_mono_ref(gl, gr, &ratio);
    const float gref = c ? gr : gl, inv = 1.0f / gref;
    if (!vf_stage_settled(&f->lp) || !vf_stage_settled(&f->hp)) {
        /* a glide, a crossfade or a seed: the filter is still linear in its
         * input and state (only time-varying), so the stereo machinery runs
         * on one channel holding the mono state (a shared glide's plan
         * straight from in) */
        for (int st = 0; st < 2; st++)
            for (int k = 0; k < 2; k++)
                f->s[st][0][k] = f->s[st][c][k] * inv;
        hl_vf_process_io_rt(f, in, out, n);
        for (int st = 0; st < 2; st++)
            for (int k = 0; k < 2; k++) {
                const float sm = f->s[st][0][k];
                f->s[st][0][k] = flush(sm * gl);
                f->s[st][1][k] = flush(sm * gr);
            }
        return;
    }
    int first = 1;
    for (int st = 1; st >= 0; st--) { /* high-pass first, as hl_vfilter_process_rt */
        const hl_vf_stage_t *sg = st == 0 ? &f->lp : &f->hp;
        if (sg->mode == HL_VF_OFF) continue;
        float sm[2] = {f->s[st][c][0] * inv, f->s[st][c][1] * inv};
        vf_run_mono(f, sg, sm, first ? in : out, out, n, st == 1);
        first = 0;
        for (int k = 0; k < 2; k++) {
            f->s[st][0][k] = flush(sm[k] * gl);
            f->s[st][1][k] = flush(sm[k] * gr);
        }
    }
    if (first && out != in) memcpy(out, in, n * sizeof(float));
}
