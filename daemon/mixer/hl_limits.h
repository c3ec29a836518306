/*
 * hl_limits.h - every fixed capacity of the engine and the daemon, in one place,
 * each with the reason for its value. Protocol limits (frame and name sizes)
 * live in proto/hl_proto.h.
 */
#ifndef HL_LIMITS_H
#define HL_LIMITS_H

#include "hl_ranges.h" /* request parameters' ranges, shared with the wire validators (proto/defs/) */

/* A table reads better aligned than wrapped. */
/* clang-format off */

#define HL_MAX_VOICES      65536 /* voices mixed at once: above what two cores hold at the worst (~24,000
                                 * each on Zen 4), so the largest scene can be measured with
                                 * --mix-threads; tables sized at start */
#define HL_DEFAULT_VOICES  64   /* typical game budget */
#define HL_SLOT_FACTOR     2    /* physical slots = voices * 2: a stolen voice fades in its own slot */
#define HL_MIX_BLOCK       256  /* internal block: spatial gains are computed once per block */
#define HL_CMD_RING        16384 /* commands in flight to the audio thread (power of two): 3 periods
                                  * of 256 frames at 48 kHz at 1 M commands/s, 6 at 500 k/s */
#define HL_DRAIN_BUDGET_PCT 20  /* % of a call's duration the command drain may take: a flood cannot
                                 * push one callback over budget, any rate it can apply drains */
#define HL_DRAIN_CHECK     64   /* commands between two looks at the clock during the drain */
#define HL_NUM_BUSES       4    /* the default buses: sfx, music, dialog, ui -> master */
#define HL_MAX_BUSES       32   /* buses in the tree (defaults included): a game mixes in a dozen or two */
#define HL_MAX_FX          8    /* insert effects per bus (master too) */
#define HL_MAX_SENDS       2    /* per-voice sends (e.g. a room reverb and a zone reverb) */
#define HL_BUS_SENDS       4    /* per-bus sends: the reverb zones audible at once from one feed */
#define HL_MAX_DUCKS       16   /* ducking rules */
#define HL_FX_RETIRE_MAX   64   /* effects detached but not yet handed back: bounds the events */
#define HL_SCHED_MAX       4096 /* scheduled commands waiting for their frame: a whole song section of notes */
#define HL_SCHED_AHEAD_S   86400 /* at_frame at most 24 h of engine frames ahead of the clock */
#define HL_SCHED_SPLITS    16 /* block cuts at exact scheduled frames per call; beyond, on the grid */
#define HL_SCHED_GRID      16 /* frames: where the later cuts of a call fall (the rest is late) */
#define HL_BUNDLE_MAX      256  /* commands in one bundle (4 per request): applied whole in one block */
#define HL_LIMITER_THRESH  0.891250938f /* -1 dBFS: the limiter is transparent below it */
#define HL_SPEED_OF_SOUND  343.3f       /* m/s, Doppler's default speed of sound (hl_mixer_config_t) */
#define HL_DOPPLER_MIN     0.5f         /* Doppler pitch clamp: no chipmunks, no stalls */
#define HL_DOPPLER_MAX     2.0f
#define HL_DOPPLER_TAU_MS  30.0f        /* Doppler smoothing time constant: glides, no zipper steps */
#define HL_DOPPLER_SNAP    1e-4f        /* relative distance at which the smoothed Doppler lands on its target */
#define HL_FADE_GRID       16           /* frames: curved fades are exact at points this far apart, straight between */
#define HL_FADE_FLOOR_DB   (-60.0f)     /* log fades run linearly in dB between this and the level */
#define HL_STOP_FADE_MIN   64           /* frames: the shortest fade-out that does not click */
#define HL_LIMITER_RELEASE_MS 50.0f     /* limiter release: recovers fast, does not pump */
#define HL_LIMITER_MAX_GR  100.0f       /* deepest gain reduction, linear (40 dB): the envelope is held
                                         * at thresh x 100, so the mix is back within 1 dB at most
                                         * 50 ms x ln(100 / 1.122) = 225 ms after any overload ends;
                                         * louder peaks than that are clipped at full scale */
#define HL_PITCH_MIN       ((float)HL_R_PITCH_LO) /* playback-rate range accepted from clients (hl_ranges.h) */
#define HL_PITCH_MAX       ((float)HL_R_PITCH_HI)
#define HL_MIN_DB          (-144.0f)    /* below 24-bit resolution: treated as silence */
#define HL_UNDERRUN_FADE   64           /* frames: a starved stream decays to 0 (and returns) this fast, no click */
#define HL_SEEK_FADE       64           /* frames: fade-out at the old position before a seek or stream switch */
#define HL_SEEK_FADE_IN    64           /* frames: fade-in at the new position */
#define HL_INTERP_TAPS     4            /* widest interpolator (4-point cubic): frames around the cursor */
#define HL_STREAM_BACK     47           /* frames a stream keeps before the cursor's: the widest sinc's reach behind */
#define HL_STREAM_MAX_CH   12 /* a stream's channels at most: 7.1.4 (client-fed ones: 2) */
#define HL_STREAM_HIST     (HL_STREAM_BACK + 2) /* kept history: those, the cursor's frame and the next */
#define HL_STREAM_REACH    48           /* frames an interpolator reads after the cursor's (the widest sinc) */
#define HL_STREAM_SCRATCH  (HL_MIX_BLOCK * (int)HL_R_PITCH_HI + HL_STREAM_HIST + HL_STREAM_REACH + 2) /* frames one run linearises */
#define HL_STREAM_RETIRE_MAX 256        /* stream switches in flight: bounds the events they hand back */
#define HL_PITCH_GRID      16           /* frames: a pitch ramp steps on this grid of its own frame count */
#define HL_WAIT_UNIT_NS    2000         /* wait histogram: 2 us units, so the first octave (8-16 us) splits in 4 */
#define HL_WAIT_SUB_BITS   2            /* wait histogram: 2^2 = 4 buckets per octave */

#define HL_MAX_CLIENTS     256          /* connections; more are accepted then closed with an error */
#define HL_OUTQ_PAUSE      (256 * 1024) /* stop reading a client whose unsent replies exceed this */
#define HL_OUTQ_MAX        (4 * 1024 * 1024) /* a client that lets replies pile past this is dropped */
#define HL_MAX_SOUNDS      16384        /* named sounds loaded at once */
#define HL_MAX_SAMPLE_MB   2048         /* default cap on decoded sample memory (MiB), config: max-sample-mb */
#define HL_MAX_SOUND_SECONDS 3600       /* a preloaded sound longer than an hour is refused (stream it) */
#define HL_MAX_LOADS_INFLIGHT 64        /* decode jobs queued at once; more get EBUSY */
#define HL_RECORD_SECONDS  4            /* record tap ring: seconds of audio buffered for the writer */
/* clang-format on */

#endif /* HL_LIMITS_H */
