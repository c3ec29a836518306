/*
 * duck.c - the ducking envelope (hl_duck.h): a level that moves on straight
 * lines in dB between 0 and -depth_db, stepped once per block.
 *
 * The level is an integer position in [0, attack_frames * release_frames]:
 * an attack frame moves it release_frames units down, a release frame
 * attack_frames units up, so both phases take exactly their frame counts and
 * no rounding error builds up; any split of the same per-frame triggers into
 * blocks gives bit-identical levels (tests/unit/test_meters.c checks the curve
 * against a per-frame reference at several block sizes). One block is at most
 * two pieces in a fixed order (the hold runs out, then release; or attack),
 * so a step is a few integer operations and one powf whatever its length.
 */
#include "hl_duck.h"

#include <math.h>

#include "hl_dsp.h"
#include "hl_limits.h"
#include "hl_ranges.h"

#define HL_DUCK_FALLBACK_RATE 48000.0f                 /* a rate that is not > 0 is taken as this */
#define HL_DUCK_MAX_MS        ((float)HL_R_DUCK_MS_HI) /* longer phases are clamped (the wire's range) */
#define HL_DUCK_MAX_FRAMES                                                                         \
    (1u << 24) /* phase length cap (87 s at 192 kHz): keeps the unit                               \
                * arithmetic far inside 64 bits at any rate */
#define HL_DUCK_MS_PER_S 1000.0

static float clamp_ms(float ms) {
    if (!(ms > 0.0f)) return 0.0f; /* NaN and negatives too */
    return ms > HL_DUCK_MAX_MS ? HL_DUCK_MAX_MS : ms;
}

/* Whole frames of a phase, rounded; shorter than one frame is one frame (a jump). */
static uint64_t phase_frames(float ms, float rate) {
    double f = (double)ms * (double)rate / HL_DUCK_MS_PER_S + 0.5;
    if (!(f >= 1.0)) return 1;
    return f > (double)HL_DUCK_MAX_FRAMES ? HL_DUCK_MAX_FRAMES : (uint64_t)f;
}

static double level_db(const hl_duck_t *d) {
    return -(double)d->depth_db * (double)d->units / (double)d->full;
}

static void update_gain(hl_duck_t *d) {
    if (d->units == 0)
        d->gain = 1.0f;
    else
        d->gain = hl_db_to_lin((float)level_db(d));
}

static void configure(hl_duck_t *d, float depth_db, float threshold_db, float attack_ms,
                      float hold_ms, float release_ms) {
    double old_db = level_db(d);
    if (!(depth_db > 0.0f)) depth_db = 0.0f; /* NaN too */
    if (depth_db > -HL_MIN_DB) depth_db = -HL_MIN_DB;
    d->depth_db = depth_db;
    d->attack_ms = clamp_ms(attack_ms);
    d->hold_ms = clamp_ms(hold_ms);
    d->release_ms = clamp_ms(release_ms);
    d->voices_mode = !(threshold_db > HL_MIN_DB); /* -inf and NaN too */
    d->threshold_db = d->voices_mode ? -INFINITY : threshold_db;
    d->thresh_lin = d->voices_mode ? 0.0f : hl_db_to_lin(threshold_db);
    d->attack_frames = phase_frames(d->attack_ms, d->rate);
    d->release_frames = phase_frames(d->release_ms, d->rate);
    d->full = d->attack_frames * d->release_frames;
    uint64_t hold = phase_frames(d->hold_ms, d->rate);
    d->hold_frames = d->hold_ms > 0.0f ? (uint32_t)hold : 0;
    /* the same level in dB on the new scale, clamped to the new depth */
    if (depth_db > 0.0f && old_db < 0.0) {
        double u = -old_db / (double)depth_db * (double)d->full + 0.5;
        d->units = u >= (double)d->full ? d->full : (uint64_t)u;
    } else {
        d->units = 0;
    }
    update_gain(d);
}

void hl_duck_init_rt(hl_duck_t *d, float rate, float depth_db, float threshold_db, float attack_ms,
                     float hold_ms, float release_ms) {
    d->rate = rate > 0.0f && rate < INFINITY ? rate : HL_DUCK_FALLBACK_RATE;
    d->depth_db = 0.0f;
    d->units = 0;
    d->full = 1;
    d->hold_left = 0;
    d->triggered = false;
    configure(d, depth_db, threshold_db, attack_ms, hold_ms, release_ms);
}

void hl_duck_set_rt(hl_duck_t *d, float depth_db, float threshold_db, float attack_ms,
                    float hold_ms, float release_ms) {
    configure(d, depth_db, threshold_db, attack_ms, hold_ms, release_ms);
    if (d->hold_left > d->hold_frames) d->hold_left = d->hold_frames;
}

float hl_duck_step_rt(hl_duck_t *d, float sidechain_peak_lin, uint32_t sidechain_voices,
                      uint32_t frames) {
    if (frames == 0) return d->gain;
    bool trig = d->voices_mode ? sidechain_voices > 0 : sidechain_peak_lin > d->thresh_lin;
    d->triggered = trig;
    uint64_t units = d->units;
    if (trig) {
        d->hold_left = d->hold_frames;
        uint64_t room = d->full - units, down = (uint64_t)frames * d->release_frames;
        units += down < room ? down : room;
    } else {
        uint32_t held = d->hold_left < frames ? d->hold_left : frames;
        d->hold_left -= held;
        uint64_t up = (uint64_t)(frames - held) * d->attack_frames;
        units -= up < units ? up : units;
    }
    if (d->depth_db == 0.0f) units = 0;
    if (units != d->units) {
        d->units = units;
        update_gain(d);
    }
    return d->gain;
}

float hl_duck_gain(const hl_duck_t *d) {
    return d->gain;
}

float hl_duck_db(const hl_duck_t *d) {
    return (float)level_db(d);
}
