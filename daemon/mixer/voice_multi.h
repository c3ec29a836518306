/*
 * voice_multi.h - the multichannel source renderer of the audio thread: a
 * run of a source with the output's own channels (more than two) into the
 * bus planes of the same speakers, at envelope x gain, no pan. Header-only
 * and inline: its callers are the PCM block of such a voice (mixer_multi.c)
 * and the runs of a multichannel stream voice (voice_stream.c), each over
 * its own view of the source. Private to the mixer; the layering:
 * voice_state.h (it sits beside voice_src.h).
 */
#ifndef HL_VOICE_MULTI_H
#define HL_VOICE_MULTI_H

#include <float.h>
#include <math.h>

#include "voice_state.h"

/* Frame i of the view, every channel, into y: while the loop crossfades,
 * its last xfade frames blended with the frames before loop_start as a
 * stream's decoder blends them (dstream.c: out = x + w (pre - x), w from
 * the source frame); outside the data, silence. */
static inline void hl_multi_at_rt(const src_view_t *s, int64_t i, float *y) {
    int prev;
    const int64_t k = hl_src_index(s, i, &prev);
    const float *a = k < 0 ? NULL : s->data + (size_t)k * s->ch;
    const hl_loop_view_t *lp = s->loop;
    for (uint32_t c = 0; c < s->ch; c++)
        y[c] = a ? a[c] : 0.0f;
    float w;
    if (!a || !hl_loop_xfade_at(lp, k, prev, &w)) return;
    const float *pre = a - (size_t)(lp->le - lp->ls) * s->ch;
    for (uint32_t c = 0; c < s->ch; c++)
        y[c] += w * (pre[c] - y[c]);
}

/* Every channel at fixed-point position pos, linearly interpolated (a
 * whole frame is read as is): one output frame before the gains. */
static inline void hl_multi_interp_rt(const src_view_t *s, uint64_t pos, float *y) {
    const int64_t i = (int64_t)(pos >> 32);
    const float f = hl_fp_frac((uint32_t)pos);
    hl_multi_at_rt(s, i, y);
    if (f == 0.0f) return;
    float b[HL_LAYOUT_MAX_CH];
    hl_multi_at_rt(s, i + 1, b);
    for (uint32_t c = 0; c < s->ch; c++)
        y[c] = y[c] + f * (b[c] - y[c]);
}

/* cnt frames of view s from *cursor into the planes at `planes` (channel c
 * at planes + c x HL_MIX_BLOCK: a bus's accumulators from the run's first
 * frame) with the gain g0 + j (d + j q) at frame j and the voice's source
 * fade (xf); planes NULL: silent, the cursor alone moves. checked: the
 * samples are known finite. Returns 1 when the source ended (past end_fp
 * with no loop to take). */
static inline int hl_multi_span_rt(hl_rt_voice_t *v, const src_view_t *s, uint64_t *cursor,
                                   float *planes, uint32_t cnt, const float g[3], uint64_t step,
                                   int checked) {
    const uint32_t ch = s->ch;
    const int fade = v->xf.rem != 0 || v->xf.cur != 1.0f;
    uint64_t cur = *cursor;
    int ended = 0;
    for (uint32_t j = 0; j < cnt; j++) {
        if (planes) {
            float y[HL_LAYOUT_MAX_CH];
            hl_multi_interp_rt(s, cur, y);
            const float jf = (float)j;
            float k = g[0] + jf * (g[1] + jf * g[2]);
            if (fade) k *= ramp_after(&v->xf, j + 1);
            for (uint32_t c = 0; c < ch; c++) {
                const float x = checked || fabsf(y[c]) <= FLT_MAX ? y[c] : 0.0f;
                planes[(size_t)c * HL_MIX_BLOCK + j] += k * x;
            }
        }
        cur += step;
        if (cur >= s->end_fp && !hl_voice_wrap_rt(v, s, &cur)) {
            ended = 1;
            break;
        }
    }
    if (fade) ramp_advance(&v->xf, cnt);
    *cursor = cur;
    return ended;
}

#endif /* HL_VOICE_MULTI_H */
