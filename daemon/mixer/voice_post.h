/*
 * voice_post.h - the per-voice post stage (voice_post.c), audio thread.
 * Private to the mixer; the layering: voice_state.h.
 */
#ifndef HL_VOICE_POST_H
#define HL_VOICE_POST_H

#include "voice_state.h"

/* The post stage of a voice's planar pair l/r (HRTF, filter, occlusion,
 * sends) into its buses (bits added to *buses); the mono form filters the
 * mono input once before the pan gains gl/gr. */
void hl_voice_post_rt(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n,
                      uint32_t *buses);
/* hl_voice_post_rt for a pair whose right channel is k times its left at
 * every frame (k >= 0; k < 0: not known): the filter then runs on the left
 * alone when its states agree (a mono voice whose gain ramps at a steady
 * pan: the block where a game parameter moves every bound voice). */
/* A height voice (mixer_surround.c) without a post stage: its unpanned
 * pair l/r panned into its bus (r clobbered). */
void hl_voice_height_rt(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n);
/* A steady one (mixer_rt.c's process_fast_height) after its kernel run into
 * its pair (sbuf, sbuf + HL_MIX_BLOCK): counted, then the same sums. */
void hl_voice_height_steady_rt(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, uint32_t *mixed,
                               uint32_t *buses);
void hl_voice_post_scaled_rt(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n,
                             float k, uint32_t *buses);
void hl_voice_post_mono_rt(hl_mixer_t *m, hl_rt_voice_t *v, const float *in, uint32_t n, float gl,
                           float gr, uint32_t *buses);

/* A steady mono voice's unpanned block (voice_post.c): see there. */
const float *hl_voice_mono_in_rt(hl_mixer_t *m, const hl_rt_fast_t *f, uint32_t n);
const float *hl_voice_ramp_pan_rt(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, float *k);

#endif /* HL_VOICE_POST_H */
