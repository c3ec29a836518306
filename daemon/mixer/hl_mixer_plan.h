/*
 * hl_mixer_plan.h - what the main thread needs to plan commands ahead on
 * exact frames (snapshot stacks, a request's "now"): a tag on commands that
 * are not on a voice, the cancellation of a tag's scheduled commands from a
 * frame on, the frame a push applies on, and the "now"s a handler read.
 * Included by hl_mixer.h.
 */
#ifndef HL_MIXER_PLAN_H
#define HL_MIXER_PLAN_H

#include <stdint.h>

#include "hl_mixer.h"

/* The tag of the commands pushed from now on that are not on a voice (bus
 * gains, effect parameters; 0: none, the default): hl_mixer_sched_cancel
 * (hl_mixer.h) or hl_mixer_sched_cancel_from of it drops the scheduled
 * ones. Returns the previous tag. Main thread. */
uint32_t hl_mixer_cmd_tag(hl_mixer_t *m, uint32_t tag);

/* hl_mixer_sched_cancel (hl_mixer.h) for the tagged commands scheduled
 * at frame `from` or later only (a plan re-made from a frame on); the
 * audio thread's cost is one sweep of its schedule (HL_SCHED_MAX entries
 * at most). Returns as it does. */
int hl_mixer_sched_cancel_from(hl_mixer_t *m, uint32_t tag, uint64_t from, int reason,
                               uint64_t now_ns);

/* The frame a command pushed now (not scheduled) is applied on: the frames
 * rendered, or inside a call whose drain is over the next call's start
 * (that call's frames later). Mid-drain: the frames rendered (this drain
 * may take it). Any thread. */
uint64_t hl_mixer_next_frame(const hl_mixer_t *m);

/* The "now"s hl_mixer_effect_frame answered since hl_mixer_now_track (the
 * lowest and highest in *lo, *hi; returns how many): a request's handler
 * planned from them, the session capture checks them against the frame it
 * records. Main thread. */
void hl_mixer_now_track(hl_mixer_t *m);
uint32_t hl_mixer_now_seen(const hl_mixer_t *m, uint64_t *lo, uint64_t *hi);

#endif /* HL_MIXER_PLAN_H */
