/*
 * hl_mixer_mod.h - the mixer's modulation slots (mixer_mod.c, voice_set.c):
 * one gain factor and one filter shared by the voices attached to a slot,
 * so that a game parameter bound to the gain or cutoffs of a cue's voices
 * costs one command per change, not a SET per voice. Part of hl_mixer.h
 * (included from it).
 */
#ifndef HL_MIXER_MOD_H
#define HL_MIXER_MOD_H

#include "hl_mixer.h"

/* Modulation slots: one gain factor shared by the voices attached to it
 * (hl_voice_params_t mod), so that a game parameter bound to the gain of a
 * cue's voices costs one command per change, not a SET per voice.
 * hl_mixer_mod_alloc takes a free slot (1..HL_MIX_MODS, and its generation
 * for the voices' mod_gen): 0, or HELIOD_EBUSY when all are taken.
 * hl_mixer_mod_free gives it back (voices still attached keep their gain
 * and follow no later slot of that number: the generation differs).
 * hl_mixer_mod_set, on hl_mixer_at's frame like any command: every voice
 * attached to the slot then ramps its gain to min(mod_base x factor,
 * max_gain) over ramp_frames, as a SET of that gain applied to each
 * would (the audio thread pays one multiply and the gain ramp's start per
 * voice, no command per voice). Returns 0, HELIOD_EINVAL (no such slot
 * taken, factor or max_gain not >= 0) or HELIOD_EBUSY (command ring full).
 * Main thread only. */
#define HL_MIX_MODS 256
int hl_mixer_mod_alloc(hl_mixer_t *m, uint32_t *mod, uint32_t *gen);
void hl_mixer_mod_free(hl_mixer_t *m, uint32_t mod);
int hl_mixer_mod_set(hl_mixer_t *m, uint32_t mod, float factor, float max_gain,
                     uint32_t ramp_frames, uint64_t now_ns);

/* What a voice takes from its slot (hl_voice_params_t mod_what) and what a
 * change moves (hl_mod_change_t mask). */
#define HL_MOD_GAIN   1u
#define HL_MOD_FILTER 2u

/* A slot's change: its gain factor (as hl_mixer_mod_set) and/or its
 * cutoffs. With HL_MOD_FILTER every voice attached with HL_MOD_FILTER
 * takes the SET of filter (lp_hz, hp_hz, occlusion 0 dB, a stepped glide:
 * HL_MIX_SET_FSTEP) over ramp_frames it would have got on its own, in the
 * same command as the gain when both move; the audio thread keeps one
 * glide per slot (hl_vf_share_t) whose designs every voice in step with it
 * runs on its own filter state (the same bits as its own glide; a voice
 * out of step glides on its own). A voice whose own cone or distance
 * low-pass is on glides on its own. lp_from/hp_from: the cutoffs the
 * slot's voices were started with, for the slot's first filter change. */
typedef struct {
    uint32_t mask;          /* HL_MOD_GAIN, HL_MOD_FILTER */
    float factor, max_gain; /* HL_MOD_GAIN: as hl_mixer_mod_set */
    float lp_hz, hp_hz;     /* HL_MOD_FILTER: the cutoffs (0: that stage off) */
    float lp_from, hp_from;
    uint32_t ramp_frames;
} hl_mod_change_t;
/* 0, HELIOD_EINVAL (no such slot taken, empty mask, a gain as
 * hl_mixer_mod_set refuses, a cutoff not >= 0) or HELIOD_EBUSY. */
int hl_mixer_mod_change(hl_mixer_t *m, uint32_t mod, const hl_mod_change_t *c, uint64_t now_ns);

#endif /* HL_MIXER_MOD_H */
