/*
 * voice_stream.h - stream voices (voice_stream.c), audio thread: render a
 * run of a stream voice, switch a voice to its pending stream. Private to
 * the mixer; the layering: voice_state.h.
 */
#ifndef HL_VOICE_STREAM_H
#define HL_VOICE_STREAM_H

#include "voice_state.h"

void hl_voice_render_stream_rt(hl_mixer_t *m, hl_rt_voice_t *v, float *acc_l, float *acc_r,
                               uint32_t n, const hl_gain_ramp_t *g, uint64_t step, int *finished);
void hl_voice_switch_rt(hl_mixer_t *m, hl_rt_voice_t *v, uint64_t now_ns);

#endif /* HL_VOICE_STREAM_H */
