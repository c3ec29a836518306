/*
 * hl_ranges.h - one range per request parameter, shared by the wire
 * validators (proto.c hl_validate_*), the daemon and the mixer (daemon/mixer:
 * its refusals and clamps), so a value the wire accepts is never refused or
 * clamped further down, and every refusal names the parameter and this range.
 *
 * Each range is a pair NAME_LO / NAME_HI of plain literals (no suffix, no
 * parentheses) so HL_RANGE_MSG can spell them in the refusal's text; compare
 * against them as floats. Header only: no code, no dependency, included by
 * the real-time core as well as the protocol.
 */
#ifndef HL_RANGES_H
#define HL_RANGES_H

/* A table reads better aligned than wrapped. */
/* clang-format off */

/* voices (PLAY, SET, cues) */
#define HL_R_GAIN_DB_HI      24       /* gain_db: finite, at most +24 dB (no floor: -inf is silence) */
#define HL_R_SEND_DB_LO      -144     /* send_db: -144 (HL_MIN_DB) removes the send */
#define HL_R_SEND_DB_HI      24
#define HL_R_PITCH_LO        0.25     /* two octaves down */
#define HL_R_PITCH_HI        4        /* two octaves up: the mixer's scratch is sized for it */
#define HL_R_FADE_MS_LO      0        /* fades, ramps, ducking phases: up to a minute */
#define HL_R_FADE_MS_HI      60000
#define HL_R_PAN_LO          -1       /* pan: equal-power, left to right */
#define HL_R_PAN_HI          1
#define HL_R_PRIORITY_LO     -1000    /* priority: higher wins */
#define HL_R_PRIORITY_HI     1000
#define HL_R_COORD_LO        -1e6     /* each coordinate or velocity component: beyond a thousand km is a bug */
#define HL_R_COORD_HI        1e6
#define HL_R_XFADE_MS_LO     0        /* loop crossfade: longer than 10 s is a mix, not a loop */
#define HL_R_XFADE_MS_HI     10000
#define HL_R_SEEK_S_LO       0        /* seek: no sound (even streamed) is longer than a day */
#define HL_R_SEEK_S_HI       86400
#define HL_R_LP_HZ_LO        0        /* voice low-pass cutoff, 0 = off */
#define HL_R_LP_HZ_HI        96000
#define HL_R_HP_HZ_LO        0        /* voice high-pass cutoff, 0 = off */
#define HL_R_HP_HZ_HI        20000
#define HL_R_UNIT_LO         0        /* occlusion, obstruction */
#define HL_R_UNIT_HI         1
#define HL_R_LFE_LO          0        /* LFE send, linear: 0 = none, at most +12 dB */
#define HL_R_LFE_HI          4
#define HL_R_LOOPS_LO        -1       /* SET loops: -1 forever, 0 leave after this pass, N more passes */
#define HL_R_LOOPS_HI        2147483647
#define HL_R_CONE_DEG_LO     0        /* sound cone widths, degrees (OpenAL 1.1) */
#define HL_R_CONE_DEG_HI     360

/* cues and categories (CUE, CATEGORY) */
#define HL_R_GAIN_RAND_LO    0        /* dB: each play adds uniform(-r, +r) */
#define HL_R_GAIN_RAND_HI    48
#define HL_R_PITCH_RAND_LO   0        /* cents: two octaves either way */
#define HL_R_PITCH_RAND_HI   2400
#define HL_R_DOPPLER_LO      0        /* Doppler factor, 0 = off */
#define HL_R_DOPPLER_HI      10
#define HL_R_INSTANCES_LO    0        /* max_instances, 0 = unlimited */
#define HL_R_INSTANCES_HI    65536

/* zones (ZONE, RZONE) */
#define HL_R_RADIUS_LO       0.001    /* metres: a millimetre is the smallest zone */
#define HL_R_RADIUS_HI       1e6
#define HL_R_ZFADE_LO        0        /* metres of blend outside a reverb zone's radius */
#define HL_R_ZFADE_HI        1e6

/* subscriptions (SUBSCRIBE): 0 = the default rate */
#define HL_R_METER_HZ_LO     1        /* slower is a poll: use STATS */
#define HL_R_METER_HZ_HI     100      /* faster than any display refreshes a meter */
#define HL_R_PROFILE_HZ_LO   1
#define HL_R_PROFILE_HZ_HI   100      /* one event per 10 ms: finer is the callback histogram */

/* ducking rules (DUCK) */
#define HL_R_DUCK_DEPTH_LO   0
#define HL_R_DUCK_DEPTH_HI   96       /* 16-bit silence: deeper is a mute */
#define HL_R_DUCK_THRESH_LO  -144     /* -144 = while the sidechain bus has voices */
#define HL_R_DUCK_THRESH_HI  0
#define HL_R_DUCK_MS_LO      HL_R_FADE_MS_LO /* attack, hold, release */
#define HL_R_DUCK_MS_HI      HL_R_FADE_MS_HI

/* insert effects (FX): EQ */
#define HL_R_EQ_FREQ_LO      10       /* Hz; the mixer also keeps it under 0.49 x the rate */
#define HL_R_EQ_FREQ_HI      24000
#define HL_R_EQ_Q_LO         0.1
#define HL_R_EQ_Q_HI         40
#define HL_R_EQ_GAIN_LO      -48      /* dB, shelves and peak */
#define HL_R_EQ_GAIN_HI      48
/* compressor */
#define HL_R_COMP_THRESH_LO  -80      /* dBFS */
#define HL_R_COMP_THRESH_HI  0
#define HL_R_COMP_RATIO_LO   1
#define HL_R_COMP_RATIO_HI   100
#define HL_R_COMP_KNEE_LO    0        /* dB */
#define HL_R_COMP_KNEE_HI    24
#define HL_R_COMP_ATTACK_LO  0.05     /* ms */
#define HL_R_COMP_ATTACK_HI  500
#define HL_R_COMP_RELEASE_LO 1        /* ms */
#define HL_R_COMP_RELEASE_HI 5000
#define HL_R_COMP_MAKEUP_LO  -24      /* dB */
#define HL_R_COMP_MAKEUP_HI  24
/* reverb */
#define HL_R_REV_RT60_LO     0.1      /* s */
#define HL_R_REV_RT60_HI     20
#define HL_R_REV_DAMPING_LO  0
#define HL_R_REV_DAMPING_HI  1
#define HL_R_REV_PREDELAY_LO 0        /* ms: the delay line is sized for the maximum */
#define HL_R_REV_PREDELAY_HI 200
#define HL_R_REV_SIZE_LO     0.25
#define HL_R_REV_SIZE_HI     2
#define HL_R_REV_WET_LO      0
#define HL_R_REV_WET_HI      1
#define HL_R_REV_DRY_LO      0
#define HL_R_REV_DRY_HI      1
/* game parameters (PARAM_DEF, PARAM, BIND) */
#define HL_R_PARAM_LO        -1e6     /* a parameter's min, max, default, value; a curve's x */
#define HL_R_PARAM_HI        1e6
#define HL_R_PSEEK_LO        0        /* seek speed, units per second; 0 = jumps at once */
#define HL_R_PSEEK_HI        1e9

/* clang-format on */

#define HL_RANGE_STR_(x) #x
#define HL_RANGE_STR(x)  HL_RANGE_STR_(x)
/* "FIELD: must be in [LO, HI]" for the range R (R_LO, R_HI), as a literal. */
#define HL_RANGE_MSG(field, R)                                                                     \
    field ": must be in [" HL_RANGE_STR(R##_LO) ", " HL_RANGE_STR(R##_HI) "]"
/* 1 if v is a number within the range R (NaN is not). */
#define HL_IN_RANGE(v, R) ((v) >= (float)(R##_LO) && (v) <= (float)(R##_HI))

#endif /* HL_RANGES_H */
