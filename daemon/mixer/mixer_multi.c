/*
 * mixer_multi.c - a multichannel voice on a surround layout: a 2D voice of a
 * preloaded sound or of a stream (a file streamed or a sound kept
 * compressed) with the output's own channels (more than two; the loader or
 * the decoder folded the file to the layout's speakers, hld_fold_channels).
 * Each source channel goes straight into the bus plane of the same speaker,
 * scaled by the voice's envelope and gain: no pan, no LFE send (the
 * source's LFE channel is its LFE), no post stage (filter, occlusion,
 * sends). At 0 dB, settled, at pitch 1 the planes get the source's samples
 * exactly.
 *
 * One scalar pass, frame by frame over all channels (voice_multi.h): linear
 * interpolation at other pitches, loop points and the loop crossfade, the
 * source fade of a seek; a stream's runs come through voice_stream.c, which
 * linearises its ring and renders them with the same pass. The stereo and mono paths never come
 * here, so their cost is unchanged; such a voice is never steady (fast_refresh wants mono).
 */
#include "voice_multi.h"
#include "voice_stream.h"

/* cnt frames of the source (the PCM from the cursor, or the stream's ring)
 * into the bus planes from frame t0 (planes 0: silent, the cursor alone
 * moves). Returns 1 when the source ended. */
static int render(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t t0, uint32_t cnt, const float g[3],
                  uint64_t step, int planes) {
    float *base = planes ? &m->acc[v->bus][0][t0] : NULL;
    if (v->stream) {
        int fin = 0;
        const hl_gain_ramp_t gg = {planes ? g[0] : 0.0f,
                                   planes ? g[1] : 0.0f,
                                   planes ? g[2] : 0.0f,
                                   0.0f,
                                   0.0f,
                                   0.0f,
                                   0.0f};
        hl_voice_render_stream_rt(m, v, base, NULL, cnt, &gg, step, &fin);
        return fin;
    }
    return hl_multi_span_rt(v, &v->src, &v->f.cursor, base, cnt, g, step, v->pcm && v->pcm->finite);
}

static uint64_t pcm_step(const hl_rt_voice_t *v) {
    const float p = pitch_now(v) * v->doppler; /* as mixer_rt.c's voice_step */
    const double r = v->stream ? v->stream->ratio : 1.0;
    return (uint64_t)((double)p * r * (double)HL_FP_ONE + 0.5);
}

int hl_multi_voice_rt(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, uint64_t now_ns) {
    int finished = 0;
    uint32_t t = 0;
    while (t < n) {
        if (v->sw_mode != HL_SW_NONE && v->xf.rem == 0 &&
            (!v->ur || v->ur_pos >= HL_UNDERRUN_FADE)) /* a stream's decay first, as mixer_rt.c */
            hl_voice_switch_rt(m, v, now_ns);
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
