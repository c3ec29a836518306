/*
 * voice_state.h - the audio thread's voice modules, private to the mixer,
 * and the lowest of them (voice_state.c).
 * From the top down (each uses only those below it):
 *
 *   mixer_rt.c      the block loop: hl_mixer_process_rt, per-voice blocks,
 *                   the steady fast path, prefetching
 *   voice_pair.h    two plain steady voices in one kernel call (its loop's
 *                   and a partition's chunk's pairs)
 *   voice_cmd.c     commands applied on the audio thread (hl_cmd_apply_rt)
 *   voice_set.c     a SET on a live voice, modulation slots' changes and
 *                   their shared filter glides
 *   voice_stream.c  stream voices: linearising the ring, underruns, switches
 *                   (declared in voice_stream.h)
 *   voice_post.c    the per-voice post stage: filter, occlusion, sends, HRTF
 *                   (voice_post.h)
 *   voice_src.h     the source renderer (inlined into its two callers)
 *   voice_multi.h   the multichannel source renderer (mixer_multi.c's PCM
 *                   blocks and voice_stream.c's multichannel runs)
 *   voice_state.c   a voice's state over time: events, 2D/3D gains, pitch
 *                   and Doppler steps, envelope fades, the source view
 *
 * Everything here runs on the audio thread: no lock, allocation, I/O or
 * wait. The schedule (mixer_sched.c) and the bus tree (mixer_bus.c) sit
 * beside them: mixer_rt.c drives both.
 */
#ifndef HL_VOICE_STATE_H
#define HL_VOICE_STATE_H

#include <string.h>

#include "hl_panlaw.h"
#include "mixer_internal.h"

#define HL_FP_FRAC 0xFFFFFFFFu

typedef hl_src_view_t src_view_t;

/* ---- small helpers --------------------------------------------------------- */

static inline void store_u64(_Atomic uint64_t *a, uint64_t v) {
    atomic_store_explicit(a, v, memory_order_relaxed);
}

static inline void add_u64(_Atomic uint64_t *a, uint64_t v) {
    /* single writer: a relaxed load + store, no locked RMW needed */
    store_u64(a, atomic_load_explicit(a, memory_order_relaxed) + v);
}

static inline void store_f32(_Atomic uint32_t *a, float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    atomic_store_explicit(a, b, memory_order_relaxed);
}

/* ceil(a / b), b > 0, without overflow. */
static inline uint64_t ceil_div(uint64_t a, uint64_t b) {
    return a / b + (a % b != 0);
}

/* Pitch of the grid cell the voice is in: a pure function of the ramp's own
 * frame count, so it does not depend on how blocks were split. */
static inline float pitch_now(const hl_rt_voice_t *v) {
    if (v->pitch_pos >= v->pitch_len) return v->pitch_to;
    uint32_t cell = v->pitch_pos - v->pitch_pos % HL_PITCH_GRID; /* the cell's first frame */
    return v->pitch_from + (v->pitch_to - v->pitch_from) * ((float)cell / (float)v->pitch_len);
}

/* ---- voice_state.c ------------------------------------------------------- */

/* Events to the main thread (cannot fail: the ring is sized for them). */
void hl_mix_event_rt(hl_mixer_t *m, uint32_t type, uint32_t reason, uint64_t voice, uint64_t tag,
                     const hl_pcm_t *pcm, hl_stream_t *stream, uint64_t now_ns, uint64_t frame,
                     uint64_t cursor);
void hl_voice_event_rt(hl_mixer_t *m, uint32_t type, uint32_t reason, const hl_rt_voice_t *v,
                       uint64_t now_ns, uint64_t frame, uint64_t cursor);
void hl_voice_retire_stream_rt(hl_mixer_t *m, const hl_rt_voice_t *v, hl_stream_t *st,
                               uint64_t now_ns);
/* Gains: a 2D voice's pair; a 3D voice's target pair and Doppler target
 * (returns 1 when it is beyond max distance and inaudible). */
void hl_voice_pair_2d_rt(hl_rt_voice_t *v, float gain, float pan, float *l, float *r);
/* hl_voice_pair_2d_rt for a mono voice (also a modulation slot's change,
 * voice_set.c): the pan law's pair for this pan, kept, so a change of gain
 * alone (a slot's, on a thousand voices at once) costs two products, no
 * sincosf; the same bits (gain x the law's pair). The pan by its address:
 * its bits compared as read (no float load and move first). */
static inline __attribute__((always_inline)) void
hl_voice_pair_mono_rt(hl_rt_voice_t *v, float gain, const float *pan_p, float *l, float *r) {
    uint32_t a, b;
    memcpy(&a, &v->pan_at, sizeof a);
    memcpy(&b, pan_p, sizeof b);
    if (!(v->pan_ok && a == b)) {
        const float pan = *pan_p;
        if (v->pan_law == HL_PAN_LAW_OPENAL)
            hl_panlaw_openal(pan, &v->pan_ul, &v->pan_ur);
        else
            hl_pan_equal_power(pan, &v->pan_ul, &v->pan_ur);
        v->pan_at = pan;
        v->pan_ok = 1;
    }
    *l = v->pan_ul * gain;
    *r = v->pan_ur * gain;
}
int hl_voice_spatial_rt(const hl_mixer_t *m, hl_rt_voice_t *v, float gain, float *l, float *r);
/* Playback rate (pitch ramp x Doppler glide): frames it stays constant, advance. */
uint32_t hl_voice_rate_run_rt(const hl_rt_voice_t *v, uint32_t n);
void hl_voice_rate_advance_rt(const hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n);
/* Envelope fades (HL_FADE_*): start one, the next curve segment, advance. */
void hl_voice_fade_start_rt(hl_rt_voice_t *v, uint32_t up, uint32_t frames, uint32_t curve);
void hl_voice_fade_next_rt(hl_rt_voice_t *v);
void hl_voice_env_advance_rt(hl_rt_voice_t *v, uint32_t n);
/* After env advanced: a curved fade whose segment ended goes on to the next. */
static inline void fade_step(hl_rt_voice_t *v) {
    if (v->env.rem == 0 && v->flen) hl_voice_fade_next_rt(v);
}
/* After a segment of seg frames of the full path: the envelope (and its
 * curve's next segment), the gain pair and the playback rate move on. */
static inline void hl_voice_seg_advance_rt(const hl_mixer_t *m, hl_rt_voice_t *v, uint32_t seg) {
    ramp_advance(&v->env, seg);
    fade_step(v);
    ramp_advance(&v->gl, seg);
    ramp_advance(&v->gr, seg);
    hl_voice_rate_advance_rt(m, v, seg);
}
/* The data frame that frame i of a view reads as a stream's decoder loops
 * the sound (dstream.c): past the loop end at the loop start; once the loop
 * wrapped, the HL_SINC_MAX_HALF frames before its start (all an
 * interpolator reads there) are the loop's last ones, *prev set (the
 * crossfade of the passes that looped applies: hl_loop_xfade_at). -1
 * outside the data (silence). */
static inline int64_t hl_src_index(const src_view_t *s, int64_t i, int *prev) {
    const hl_loop_view_t *lp = s->loop;
    const int64_t ls = lp->ls, le = lp->le, len = le - ls;
    *prev = 0;
    if (lp->on && i >= le) {
        i = ls + (i - ls) % len;
    } else if (lp->wrapped && i < ls && i >= ls - HL_SINC_MAX_HALF) {
        i = le - 1 - (ls - 1 - i) % len;
        *prev = 1;
    }
    return i < 0 || i >= (int64_t)s->frames ? -1 : i;
}

/* Frame i of a view's source (hl_src_index), NULL outside the data. */
static inline const float *hl_src_frame(const src_view_t *s, int64_t i) {
    int prev;
    const int64_t k = hl_src_index(s, i, &prev);
    return k < 0 ? NULL : s->data + (size_t)k * s->ch;
}

/* The loop crossfade at data frame k (hl_src_index, prev its flag): 1 and
 * the weight *w when k lies in the crossfade's frames before the loop end
 * (the previous passes' when prev), the frame then read as a stream's
 * decoder blends it, x + w (pre - x), pre the frame le - ls before (inside
 * the data: xfade <= ls); 0 otherwise. */
static inline int hl_loop_xfade_at(const hl_loop_view_t *lp, int64_t k, int prev, float *w) {
    const int64_t xf = prev ? lp->pxfade : lp->xfade, xs = (int64_t)lp->le - xf;
    if (!xf || k < xs || k >= (int64_t)lp->le) return 0;
    *w = (float)((double)(k - xs) / (double)xf);
    return 1;
}
void hl_voice_stream_reset_rt(hl_rt_voice_t *v);
uint32_t hl_voice_post_needed_rt(const hl_rt_voice_t *v);
/* Points the voice's filter at its own cutoffs (lp_own, hp_own) joined
 * with its cone's low-pass (lp_cone_want: the lower wins), gliding over
 * ramp_frames (stepped: hl_vfilter_glide_rt), and marks its post stage. */
void hl_voice_filter_rt(hl_rt_voice_t *v, uint32_t ramp_frames, int stepped);
/* hl_voice_filter_rt for a voice that follows a modulation slot's glide
 * sh (its own cutoffs are the slot's: voice_set.c), at its change at: the
 * same glide, shared when the voice is in step (hl_vfilter_follow_at_rt)
 * and has no spatial low-pass of its own. */
void hl_voice_filter_follow_rt(hl_rt_voice_t *v, hl_vf_share_t *sh, const hl_vf_change_t *at,
                               uint32_t ramp_frames);
/* voice_set.c: a SET applied to a live voice (sl: a modulation slot whose
 * pending filter change this is, hl_voice_filter_follow_rt; NULL: its own)
 * and a slot's change: the command records it on the slot (pend, a bit of
 * m->mod_pend), each voice on the slot's list takes it when it is next
 * mixed or given a command of its own (hl_voice_mod_take_rt, when
 * hl_mod_pending), before anything else touches it, so it gets the
 * same SET at the same point as if the command had given it; a second
 * change gives the first to the voices that have not taken it. */
void hl_voice_set_rt(hl_mixer_t *m, hl_rt_voice_t *v, const hl_voice_set_t *s, uint64_t now_ns,
                     hl_rt_mod_t *sl);
void hl_voice_mod_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns);
void hl_voice_mod_take_rt(hl_mixer_t *m, hl_rt_voice_t *v);
/* After each block: when every voice on the active list was visited (no
 * mix worker's voices quarantined), no change is pending any more. */
void hl_voice_mod_settle_rt(hl_mixer_t *m);
/* voice_set.c: a voice joins its slot's list as it starts (cmd_play) and
 * leaves it as it ends (before live is cleared). */
void hl_voice_mod_link_rt(hl_mixer_t *m, hl_rt_voice_t *v);
void hl_voice_mod_unlink_rt(hl_mixer_t *m, hl_rt_voice_t *v);
/* voice_set.c: the slots' filter glides move on, once a block of n frames
 * before the voices (hl_vf_share_block_rt). */
void hl_voice_mod_block_rt(hl_mixer_t *m, uint32_t n);
/* After a spatial update: the filter follows the spatial low-pass (cone
 * and distance curve) and the sends the distance send curve's factor when
 * they moved (more than 0.1%), over n frames. */
void hl_voice_spatial_post_rt(hl_rt_voice_t *v, uint32_t n);
/* The source view: its kernel limits, the interpolator of a voice's flags,
 * and a PCM voice's view for the current pass. */
void hl_src_view_limits_rt(src_view_t *s, uint32_t fast_end);
uint32_t hl_interp_mode_rt(uint32_t flags);
void hl_voice_pcm_view_rt(hl_rt_voice_t *v);
/* The cursor passed s->end_fp: wraps into the loop (returns 1, the view
 * recomputed) or ends (0). s is the voice's own view (only PCM voices loop). */
int hl_voice_wrap_rt(hl_rt_voice_t *v, const src_view_t *s, uint64_t *cur);

/* The steady path's ramping gain pair over n frames (mixer_rt.c's
 * fast_ramped, voice_post.c's one-channel form): *g1 over the ramp's part
 * (*rn frames, the linear per-sample ramp), *g2 flat after it, the envelope
 * settled; 0 when the pair's ramps differ or a gain is not finite (the full
 * path takes the block). */
static inline int hl_fast_ramp_gains(const hl_rt_voice_t *v, uint32_t n, uint32_t *rn,
                                     hl_gain_ramp_t *g1, hl_gain_ramp_t *g2) {
    if (v->gl.rem != v->gr.rem) return 0;
    const uint32_t r = v->gl.rem < n ? v->gl.rem : n;
    const float e = v->env.cur, l0 = v->gl.cur, r0 = v->gr.cur, inv = 1.0f / (float)r;
    const float l1 = ramp_after(&v->gl, r), r1 = ramp_after(&v->gr, r);
    *g1 = (hl_gain_ramp_t){e * l0, e * ((l1 - l0) * inv), 0.0f, e * r0, e * ((r1 - r0) * inv), 0.0f,
                           0.0f};
    *g2 = (hl_gain_ramp_t){e * l1, 0.0f, 0.0f, e * r1, 0.0f, 0.0f, 0.0f};
    *rn = r;
    return hl_gains_finite(g1) && hl_gains_finite(g2);
}

/* Moves the pair rn frames on; settled, the steady line's flat pair is g2's. */
static inline void hl_fast_ramp_advance(hl_rt_voice_t *v, uint32_t rn, const hl_gain_ramp_t *g2) {
    ramp_advance(&v->gl, rn);
    ramp_advance(&v->gr, rn);
    if (v->gl.rem == 0) {
        v->f.gl = g2->l0;
        v->f.gr = g2->r0;
        v->f.ramp = 0;
    }
}

#endif /* HL_VOICE_STATE_H */
