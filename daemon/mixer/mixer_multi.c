/*
 * mixer_multi.c - a multichannel PCM voice on a surround layout: a 2D voice
 * of a preloaded sound with the output's own channels (more than two; the
 * loader folded the file to the layout's speakers, hld_fold_channels).
 * Each source channel goes straight into the bus plane of the same speaker,
 * scaled by the voice's envelope and gain: no pan, no LFE send (the
 * source's LFE channel is its LFE), no post stage (filter, occlusion,
 * sends). At 0 dB, settled, at pitch 1 the planes get the source's samples
 * exactly.
 *
 * One scalar pass, frame by frame over all channels: linear interpolation
 * at other pitches, loop points and the loop crossfade, the source fade of
 * a seek. The stereo and mono paths never come here, so their cost is
 * unchanged; such a voice is never steady (fast_refresh wants mono).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "voice_stream.h"

/* Every channel at fixed-point position pos, linearly interpolated (a
 * whole frame is read as is). */
static void interp_frame(const src_view_t *s, uint64_t pos, float *y) {
    const int64_t i = (int64_t)(pos >> 32);
    const float f = (float)(uint32_t)(pos & HL_FP_FRAC) * HL_FP_SCALE;
    const float *a = hl_src_frame(s, i), *b = f != 0.0f ? hl_src_frame(s, i + 1) : NULL;
    for (uint32_t c = 0; c < s->ch; c++) {
        const float x = a ? a[c] : 0.0f;
        y[c] = f != 0.0f ? x + f * ((b ? b[c] : 0.0f) - x) : x;
    }
}

/* One output frame before the gains: the crossfade blends the loop's tail
 * with the frames before loop_start (as voice_src.h's sample_at). */
static void frame_at(const src_view_t *s, uint64_t pos, float *y) {
    interp_frame(s, pos, y);
    const hl_loop_view_t *lp = s->loop;
    if (!lp->xfade) return;
    const uint64_t xs = (uint64_t)(lp->le - lp->xfade) << 32;
    if (pos < xs) return;
    const float w = (float)((double)(pos - xs) / (double)((uint64_t)lp->xfade << 32));
    float z[HL_LAYOUT_MAX_CH];
    interp_frame(s, pos - ((uint64_t)(lp->le - lp->ls) << 32), z);
    for (uint32_t c = 0; c < s->ch; c++)
        y[c] += w * (z[c] - y[c]);
}

/* cnt frames from the cursor into the bus planes from frame t0 with the
 * gain g0 + j (d + j q) at frame j (planes NULL: silent, the cursor alone
 * moves). Returns 1 when the source ended. */
static int render(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t t0, uint32_t cnt, const float g[3],
                  uint64_t step, int planes) {
    const uint32_t ch = v->src.ch;
    const int fade = v->xf.rem != 0 || v->xf.cur != 1.0f, checked = v->pcm && v->pcm->finite;
    float(*acc)[HL_MIX_BLOCK] = m->acc[v->bus];
    uint64_t cur = v->f.cursor;
    int ended = 0;
    for (uint32_t j = 0; j < cnt; j++) {
        if (planes) {
            float y[HL_LAYOUT_MAX_CH];
            frame_at(&v->src, cur, y);
            const float jf = (float)j;
            float k = g[0] + jf * (g[1] + jf * g[2]);
            if (fade) k *= ramp_after(&v->xf, j + 1);
            for (uint32_t c = 0; c < ch; c++) {
                const float x = checked || fabsf(y[c]) <= FLT_MAX ? y[c] : 0.0f;
                acc[c][t0 + j] += k * x;
            }
        }
        cur += step;
        if (cur >= v->src.end_fp && !hl_voice_wrap_rt(v, &v->src, &cur)) {
            ended = 1;
            break;
        }
    }
    if (fade) ramp_advance(&v->xf, cnt);
    v->f.cursor = cur;
    return ended;
}

static uint64_t pcm_step(const hl_rt_voice_t *v) {
    const float p = pitch_now(v) * v->doppler; /* as mixer_rt.c's voice_step for PCM */
    return (uint64_t)((double)p * (double)HL_FP_ONE + 0.5);
}

int hl_multi_voice_rt(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, uint64_t now_ns) {
    int finished = 0;
    uint32_t t = 0;
    while (t < n) {
        if (v->sw_mode != HL_SW_NONE && v->xf.rem == 0) hl_voice_switch_rt(m, v, now_ns);
        uint32_t seg = hl_voice_rate_run_rt(v, n - t);
        if (v->env.rem && v->env.rem < seg) seg = v->env.rem;
        if (v->gl.rem && v->gl.rem < seg) seg = v->gl.rem;
        if (v->xf.rem && v->xf.rem < seg) seg = v->xf.rem;
        /* envelope x gain, both linear over the segment: one quadratic */
        const float e0 = v->env.cur, l0 = v->gl.cur, inv = 1.0f / (float)seg;
        const float de = (ramp_after(&v->env, seg) - e0) * inv;
        const float dl = (ramp_after(&v->gl, seg) - l0) * inv;
        float g[3] = {e0 * l0, e0 * dl + de * l0, de * dl};
        const float sum = g[0] + g[1] + g[2];
        finished = render(m, v, t, seg, g, pcm_step(v), sum - sum == 0.0f); /* non-finite: muted */
        hl_voice_seg_advance_rt(m, v, seg);
        t += seg;
        if (finished || (v->env.rem == 0 && v->env_mode != HL_ENV_RUN)) break;
    }
    /* faded out part way: the source goes on silently to the block's end,
     * so the ENDED event's position belongs to its frame */
    for (int past_end = 0; !finished && !past_end && t < n && v->env_mode == HL_ENV_RELEASE;) {
        const uint32_t seg = hl_voice_rate_run_rt(v, n - t);
        past_end = render(m, v, t, seg, NULL, pcm_step(v), 0);
        hl_voice_rate_advance_rt(m, v, seg);
        t += seg;
    }
    return finished;
}
