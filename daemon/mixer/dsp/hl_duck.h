/*
 * hl_duck.h - the ducking envelope of one mixer rule: "while bus S (the
 * sidechain) is above threshold_db - or, in voices mode, while S has any
 * voice - bus T goes down depth_db, with attack, hold and release times".
 *
 * The curve is piecewise linear in dB, stepped once per block, and exactly
 * predictable from the parameters (whatever the block size):
 *
 *   gain_db  0 ----.                      .-----------  0 dB
 *                   \  attack      hold  / release
 *   -depth           '-----------------'
 *                 trigger on   off      +hold_ms
 *
 *   attack:  while triggered the level falls depth_db / attack_ms (dB per ms)
 *            until it reaches -depth_db: from 0 dB it gets there in exactly
 *            attack_ms. A trigger during the release attacks from where the
 *            level is, at the same slope (so it gets there sooner).
 *   hold:    when the trigger ends the level stays where it is (the full
 *            depth once the attack completed; a trigger shorter than the
 *            attack holds the partial depth, so a short blip ducks a little)
 *            for hold_ms. A new trigger restarts the hold when it ends.
 *   release: then it rises depth_db / release_ms until 0 dB: from the full
 *            depth it is back in exactly release_ms.
 *   All three times are rounded to whole frames at the rate; an attack or
 *   release shorter than one frame is a jump.
 *
 * Linear in dB (not in gain) because that is what the ear hears as a steady
 * fade; the caller's per-block linear ramp in gain between block ends departs
 * from it by under 0.01 dB at the default slopes (0.6 dB per 256-frame block
 * at 48 kHz; more only for near-jumps). The trigger is
 * sampled once per block (the sidechain's block peak and voice count), so the
 * whole curve is the ideal one to within one block (<= 256 frames, 5.3 ms at
 * 48 kHz): a block counts as triggered for all its frames, and a hold that
 * ends inside a block releases for the rest of it.
 *
 * The trigger: with threshold_db > -144 (HL_MIN_DB) the rule triggers while
 * the sidechain's block peak is above 10^(threshold_db/20), whatever its
 * voices; with threshold_db <= -144 (or -inf, or NaN) it triggers while the
 * sidechain has at least one voice. A silent sidechain never ducks.
 *
 * Everything here is RT safe (no allocation, libm only): hl_duck_step_rt and
 * hl_duck_set_rt run on the audio thread, as does hl_duck_init_rt when a rule is
 * (re)created (it may also set a state up elsewhere); hl_duck_gain/hl_duck_db
 * read the last computed level (for meters).
 */
#ifndef HL_DUCK_H
#define HL_DUCK_H

#include <stdbool.h>
#include <stdint.h>

/* Defaults of a dialogue-over-music rule that does not pump audibly:
 *   attack 80 ms: the music is half way down within 40 ms of the first
 *     syllable, yet slow enough that the dip is a fade, not a click or a
 *     "gulp" on every consonant;
 *   hold 200 ms: longer than the usual pause between words and phrases, so the
 *     music does not swell back between them (the swelling is the pumping);
 *   release 600 ms: 15 dB/s back up at the default depth, a gentle return that
 *     is not noticed as a movement of its own;
 *   threshold -40 dBFS: above the reverb tails and noise floors left on a
 *     dialogue bus, below any actual speech;
 *   depth 9 dB: just under the 10 dB that reads as "half as loud": the music
 *     clearly steps back behind the voice but stays present. */
#define HL_DUCK_DEFAULT_ATTACK_MS    80
#define HL_DUCK_DEFAULT_HOLD_MS      200
#define HL_DUCK_DEFAULT_RELEASE_MS   600
#define HL_DUCK_DEFAULT_THRESHOLD_DB (-40)
#define HL_DUCK_DEFAULT_DEPTH_DB     9

typedef struct {
    /* The rule as given (after sanitising: times in [0, 60000] ms, depth in
     * [0, 144]; threshold_db is -inf in voices mode). Change through hl_duck_set_rt. */
    float depth_db, threshold_db, attack_ms, hold_ms, release_ms;
    /* derived */
    float rate;              /* frames per second */
    float thresh_lin;        /* block peak above this triggers (threshold mode) */
    bool voices_mode;        /* trigger = sidechain has voices */
    uint64_t attack_frames;  /* 0 dB -> -depth, >= 1 */
    uint64_t release_frames; /* -depth -> 0 dB, >= 1 */
    uint64_t full;           /* attack_frames * release_frames: the depth in level units */
    uint32_t hold_frames;
    /* state: the level as an exact integer position, so any block split gives
     * the same curve: an attack frame adds release_frames units, a release
     * frame takes attack_frames away; level_db = -depth_db * units / full. */
    uint64_t units;     /* in [0, full] */
    float gain;         /* 10^(level_db/20), cached */
    uint32_t hold_left; /* frames of hold left once the trigger ended */
    bool triggered;     /* the last block's trigger */
} hl_duck_t;

/* Sets up the rule at 0 dB (not ducking). RT safe: the audio thread calls it
 * when a rule is created. rate in frames per second (not > 0:
 * 48000). Times in ms, clamped to [0, 60000] (negative or NaN -> 0, which makes
 * that phase a jump); depth_db is clamped to [0, 144] (0 or NaN: never ducks);
 * threshold_db as above. */
void hl_duck_init_rt(hl_duck_t *d, float rate, float depth_db, float threshold_db, float attack_ms,
                     float hold_ms, float release_ms);
/* Changes the rule's parameters (same rate) and keeps the current level in dB
 * (to within rounding to the new units), the hold left (clamped to the new
 * hold) and the trigger: a live edit does not jump. A smaller depth clamps
 * the level to it at once (the caller's ramp smooths that block). RT safe. */
void hl_duck_set_rt(hl_duck_t *d, float depth_db, float threshold_db, float attack_ms,
                    float hold_ms, float release_ms);
/* One block of `frames` frames (<= 256 is what the mixer passes; any count
 * works) with the sidechain's block peak (max |x| over its channels) and its
 * voice count. Returns the linear gain for the ducked bus at the END of the
 * block, in (0, 1] (0 only with depth >= 144); the caller ramps linearly from
 * the previous value over the block. RT safe. */
float hl_duck_step_rt(hl_duck_t *d, float sidechain_peak_lin, uint32_t sidechain_voices,
                      uint32_t frames);
/* Current gain (linear, 1 = not ducking) / level in dB (0 .. -depth_db). */
float hl_duck_gain(const hl_duck_t *d);
float hl_duck_db(const hl_duck_t *d);

#endif /* HL_DUCK_H */
