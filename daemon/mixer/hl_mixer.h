/*
 * hl_mixer.h - the heliod mixer core: voice pool, envelopes, spatial gains,
 * buses, limiter, and the command/event rings between the main thread and
 * the audio thread.
 *
 * DESIGN
 *   The mixer has two faces over one block of caller-provided memory:
 *
 *     main thread (control)                     audio thread (RT)
 *     hl_mixer_play/stop/set/...  --cmd ring-->  hl_mixer_process_rt()
 *     hl_mixer_poll()            <--event ring--   (ended, started, stream
 *                                                   and effect retired)
 *
 *   The control side owns the logical view of every voice (slot state,
 *   generation, priority, age, parameters as last set) and decides admission
 *   and stealing; it never touches RT state. The RT side owns the DSP state
 *   (cursor, envelopes, ramps) and only reads commands it was sent. A slot is
 *   reused only after the control side has seen its ENDED event, so the
 *   event ring (capacity >= 2 * slots + HL_STREAM_RETIRE_MAX +
 *   HL_FX_RETIRE_MAX, see Ownership) can never fill.
 *
 *   Time: a command may carry an engine frame (hl_mixer_at; bundles
 *   apply whole in one block): the audio thread keeps it in its schedule
 *   (HL_SCHED_MAX) and applies it on that exact sample, splitting the block
 *   there; one that arrives after its frame is applied at once and counted
 *   late (mixer_sched.c).
 *
 *   Voice pool: `voices` logical voices in 2*voices physical slots. A play
 *   when `voices` voices are active (not fading) steals the lowest-priority
 *   active voice, the oldest among equals, only if the new priority is
 *   strictly higher; the victim fades out through its release envelope in its
 *   own slot while the new voice starts in a free slot. If every slot is busy
 *   fading the play answers HELIOD_ENOVOICES.
 *
 *   Handles: ((uint64_t)generation << 32) | slot, generation >= 1, so 0 is
 *   never a handle. A stale handle answers HELIOD_ENOVOICE.
 *
 *   Sources: a voice plays preloaded PCM (`pcm`) or a stream (`stream`,
 *   hl_stream.h): a decoder thread keeps a per-voice SPSC ring of
 *   engine-rate frames filled and the audio thread pulls from it.
 *
 *     decoder --hl_stream_write--> [stream ring] --pull--> voice --> bus
 *                                                  |
 *            last HL_STREAM_HIST frames kept per voice + one shared
 *            scratch that linearises the frames a run needs
 *
 *   Per voice the read cursor is 32.32 fixed point. For a stream it is
 *   relative to the kept history, so it stays continuous across blocks and
 *   ring pushes of any size. A ring that runs dry is an underrun episode:
 *   the voice plays what is there, decays its last sample to zero over
 *   HL_UNDERRUN_FADE frames, outputs zeros, and fades back in when frames
 *   return (counted once per episode, per stream and globally). A stream
 *   whose producer called hl_stream_finish() ends the voice when drained.
 *   The interpolator's lookahead (up to HL_STREAM_REACH frames, the widest
 *   sinc's) plays only once the frames after it arrive, or at end of stream. The mixer never
 *   virtualises a stream voice itself (a far 3D stream keeps pulling,
 *   silently, so decoder and voice stay in step); the daemon's voice manager
 *   virtualises streams above the mixer by ending the voice and reopening
 *   the stream at its position when it is real again.
 *
 *   Interpolation: linear (fast path, AVX2 fused for mono), 4-point
 *   Catmull-Rom (HL_MIX_CUBIC) or a band-limited windowed sinc (HL_MIX_SINC,
 *   tables from hl_sinc_init; without them such a voice plays cubic). Pitch ramps step on a grid of
 * HL_PITCH_GRID frames counted from the ramp's start, so a pitch ramp renders the same whatever the
 * process call size.
 *
 *   Doppler (3D voices, OpenAL 1.1): with SL = listener - source, vls and
 *   vss the listener's and the source's velocity along SL, each clamped to at
 *   most ss / df, the factor is (ss - df * vls) / (ss - df * vss) clamped to
 *   [HL_DOPPLER_MIN, HL_DOPPLER_MAX]; doppler_factor (df) 0 = exactly 1. It
 *   is computed with the 3D gains (once per block, only when the voice, its
 *   velocity or the listener changed) as a target; the factor in use glides
 *   to it by a one-pole step (time constant HL_DOPPLER_TAU_MS) every
 *   HL_PITCH_GRID frames counted from the glide's start, is constant between
 *   those points, and lands exactly on the target within HL_DOPPLER_SNAP of
 *   it. A voice starts at its target. HL_MIX_CLAMP keeps a 3D voice beyond
 *   max distance at the gain it has there (mixed, never virtual).
 *
 *   Loop points: [loop_start, loop_end) repeats forever (HL_MIX_LOOP,
 *   loop_count 0) or loop_count extra times, then plays on to the end; an
 *   optional crossfade of loop_xfade frames blends the region's tail with the
 *   frames before loop_start. A pcm voice starts at start_frame: before or
 *   inside the loop region it loops when it reaches loop_end (a start inside
 *   counts as not yet wrapped: loop_count passes follow the partial one);
 *   past the region it plays on to the end, as a seek there does. Seeks
 *   (HL_MIX_SET_SEEK) and stream switches (HL_MIX_SET_STREAM) fade out over
 *   HL_SEEK_FADE, jump, and fade in over HL_SEEK_FADE_IN frames. Fades do
 *   not advance while a voice is paused.
 *
 *   Envelope fades (attack, stop, pause, resume) start from the level the
 *   envelope is at. LINEAR is one straight ramp, exact per sample; pause and
 *   resume are always linear. EQUAL_POWER and LOG are evaluated exactly
 *   every HL_FADE_GRID frames from the fade's start and straight between
 *   (click-free, one sinf/cosf/expf per point); a settled envelope costs
 *   nothing. Equal power: in s + (1 - s) sin(t pi/2), out s cos(t pi/2), s
 *   the start level. Log: straight in dB, in from max(level, -60 dB) to
 *   0 dB, out from the level to -60 dB, reaching 0 on the fade's last frame
 *   (a fade-out starting at or below -60 dB is linear).
 *
 *   Events: STARTED.frame is the engine frame (hl_mixer_stats frames, the
 *   count of frames rendered before) of the block that first mixes the voice:
 *   its first sample is output there (voices start on block boundaries).
 *   ENDED.frame is the engine frame at the end of the block the voice ended
 *   in, or that block's start when it ended without playing in it (stopped
 *   while paused). ENDED.cursor is the source position at ENDED.frame in
 *   whole frames: for pcm the frame under the cursor (loops wrapped, at most
 *   the pcm's length); for a stream the frames of its current stream played
 *   through since the voice started (or switched to it). A voice whose fade-
 *   out ends part way through a block is advanced silently to the block's
 *   end (a stream keeps pulling), so cursor and frame agree; a paused voice's
 *   cursor holds. ENDED.reason is the stop's reason, carried unchanged
 *   (any value), or HL_MIX_END_FINISHED when the source ran out.
 *
 *   Ownership: the audio thread never frees. Whatever it stops using comes
 *   back on the event ring: ENDED carries the voice's pcm and stream,
 *   STREAM_RETIRED an old (or never used) stream after a switch, FX_RETIRED
 *   an effect taken out of every chain. The control side caps switches and
 *   effects in flight at HL_STREAM_RETIRE_MAX and HL_FX_RETIRE_MAX and sizes
 *   the event ring for them, so the ring still never fills.
 *
 *   Surround (cfg.layout beyond stereo, hl_layout.h): the buses hold one
 *   plane per speaker and every bus stage (inserts, sends, gain, mute,
 *   ducking, the sum into the parent) runs on each; the master is limited
 *   with one envelope over all channels (linked) and interleaved in the
 *   layout's WAVE order. A 2D voice mixes into the front pair exactly as on
 *   stereo; a PCM voice with the layout's own channels (2D only: a 3D play
 *   of one is HELIOD_EINVAL) mixes each channel into the same speaker's bus
 *   plane at envelope x gain (no pan, LFE send or post stage: mixer_multi.c). A 3D voice is panned
 * by hl_layout_pair (pairwise constant power) onto the two speakers bracketing its direction (a
 * steady voice costs what it does on stereo); on 7.1.4 by VBAP over three (hl_layout_pan3), its
 * block unpanned through the post stage, then spread (mixer_surround.c; steady too). When the
 * speakers change, one in both keeps its slot; a slot whose speaker changes ramps to 0 over one
 * block, then moves and ramps up (no click). A 3D stereo source is folded to mono first. The LFE
 * gets only the voice's LFE send (lfe): lfe x (gl L + gr R) / sqrt(gl^2 + gr^2) ((L + R) / 2 on
 * 7.1.4), for a mono source exactly lfe x the source x envelope x gain x distance and cone gains,
 * before the pan and the post stage (filter, occlusion).
 *
 *   This library depends only on the C library (memcpy/memset) and libm; it
 *   never allocates, locks, does I/O or logs. tests/unit/test_rt_symbols.sh enforces
 *   that at link level.
 */
#ifndef HL_MIXER_H
#define HL_MIXER_H

#include <stddef.h>
#include <stdint.h>

#include "heliod_errors.h"
#include "hl_dsp.h" /* HL_MIX_DIST_* */
#include "hl_fx.h"
#include "hl_hrtf.h"
#include "hl_limits.h"
#include "hl_stream.h"

typedef struct hl_mixer hl_mixer_t;

/* Immutable decoded PCM at the engine rate, owned by the caller (the daemon's
 * sound table); must outlive every voice that plays it (see ENDED events). */
typedef struct {
    const float *data; /* interleaved */
    uint32_t frames;
    uint32_t channels; /* 1 or 2; or the layout's channel count (> 2: 2D only, see Surround) */
    uint32_t finite;   /* 1: the owner checked that every sample is finite (the loader
                        * zeroes NaN and Inf and bounds the rest to +-16): voices may
                        * take the steady path, which reads samples unchecked; 0:
                        * every block is guarded */
} hl_pcm_t;

/* Voice flags (same bit values as HL_PLAY_* on the wire). */
#define HL_MIX_LOOP   0x1u
#define HL_MIX_3D     0x2u
#define HL_MIX_PAUSED 0x8u
#define HL_MIX_CUBIC  0x10u /* 4-point Catmull-Rom interpolation (default: linear) */
#define HL_MIX_CLAMP  0x20u /* 3D: past max distance keep the max-distance gain, never virtual */
#define HL_MIX_SINC                                                                                \
    0x40u /* band-limited windowed sinc (hl_sinc.h); wins over CUBIC; cubic                        \
           * when the mixer has no tables (hl_mixer_set_sinc) */

/* Fade curves (same values as HL_CURVE_* on the wire). A curve shapes the
 * envelope between its start level and its target; LINEAR is exact per
 * sample (an attack of 4 frames gives 0.25, 0.5, 0.75, 1). */
#define HL_FADE_LINEAR      0
#define HL_FADE_EQUAL_POWER 1 /* sin/cos quarter wave */
#define HL_FADE_LOG         2 /* linear in dB between -60 dB and the target */

/* Buses: up to HL_MAX_BUSES in a tree under the master (hl_mixer_bus_graph);
 * the first four are the default buses, each a child of the master. */
#define HL_BUS_SFX    0
#define HL_BUS_MUSIC  1
#define HL_BUS_DIALOG 2
#define HL_BUS_UI     3
/* "sfx" .. "ui", or NULL if out of range. */
const char *hl_bus_name(uint32_t bus);
/* Bus index for a name ("" = sfx), or -1. */
int hl_bus_find(const char *name);

typedef struct {
    uint32_t rate;           /* engine rate, Hz */
    uint32_t voices;         /* logical capacity, 1..HL_MAX_VOICES */
    uint32_t cmd_capacity;   /* power of two; 0 = HL_CMD_RING */
    uint32_t cmds_per_block; /* drain cap in commands; 0 = the ring's capacity */
    /* drain cap in time, % of a call's duration on clock_ns; 0 =
     * HL_DRAIN_BUDGET_PCT, >= 100: none (the count cap alone) */
    uint32_t drain_budget_pct;
    /* the drain budget's clock, ns, called on the audio thread (RT safe, e.g.
     * vDSO CLOCK_MONOTONIC); NULL: no time budget */
    uint64_t (*clock_ns)(void);
    float speed_of_sound; /* m/s for Doppler; 0 = HL_SPEED_OF_SOUND, < 0 invalid */
    uint32_t hrtf;        /* 1: reserve per-slot HRTF state (hl_mixer_set_hrtf); 0: none */
    /* output speakers (hl_layout.h: HL_LAYOUT_*, 0 = stereo): hl_mixer_process_rt
     * writes hl_layout_channels(layout) interleaved channels per frame; the
     * buses are that many planes; 3D voices are panned over the speakers
     * (see Surround); an HRTF mixer is stereo only */
    uint32_t layout;
} hl_mixer_config_t;

/* Bytes of memory hl_mixer_init needs for cfg (0 if cfg is invalid). */
size_t hl_mixer_size(const hl_mixer_config_t *cfg);
/* Lays the mixer out in mem (64-byte aligned, `size` >= hl_mixer_size). The
 * memory is the caller's; nothing else to free. Returns NULL on bad config.
 * Main thread, before the audio thread runs. */
hl_mixer_t *hl_mixer_init(void *mem, size_t size, const hl_mixer_config_t *cfg);
/* Chooses the mix kernels: enable = HL_MIX_SIMD_BEST (1) selects the widest
 * the CPU has (AVX-512 for the mono kernels over AVX2+FMA, the default after
 * init), HL_MIX_SIMD_AVX2 (2) the AVX2+FMA ones only, 0 the portable ones.
 * Returns 1 if SIMD kernels are now in use. Main thread, while the audio
 * thread is not running (tests and benchmarks). */
#define HL_MIX_SIMD_BEST 1
#define HL_MIX_SIMD_AVX2 2
int hl_mixer_use_simd(hl_mixer_t *m, int enable);

/* Binaural rendering of 3D voices (headphones). With a set, every 3D voice
 * started afterwards mixes its source to mono (downmixing stereo) with the
 * envelope and distance gain as usual, then through its own HRTF convolver
 * (hl_hrtf.h) for the direction of the source in the listener's frame; the
 * post stage (filter, occlusion, sends) takes the binaural pair. A moving
 * source or listener crossfades the filter over each block. 2D voices and
 * buses are unchanged. A binaural voice whose source ends on its own plays
 * its convolver's ring-out (at most HL_HRTF_HIST frames) before it ends: its
 * ENDED event comes that much later, with the frame and cursor of the block
 * the source ended in. `set` is read-only to the mixer, at the engine rate
 * (set->rate == cfg.rate), and must outlive every voice that uses it; NULL
 * turns it off for voices started afterwards. The per-voice state (one
 * hl_hrtf_voice_t per physical slot, reset whenever a slot starts a voice)
 * exists only in a mixer sized with cfg.hrtf = 1. Returns 0 or
 * HELIOD_EINVAL (no HRTF state in this mixer, a rate or tap count that does
 * not match). Main thread, while the audio thread is not running. */
int hl_mixer_set_hrtf(hl_mixer_t *m, const hl_hrtf_set_t *set);
/* The sinc tables (hl_sinc_init) HL_MIX_SINC voices use, or NULL (they then
 * use cubic). Before the audio thread starts; the tables outlive the mixer. */
struct hl_sinc;
void hl_mixer_set_sinc(hl_mixer_t *m, const struct hl_sinc *tables);
/* The set in use, or NULL. Main thread. */
const hl_hrtf_set_t *hl_mixer_hrtf(const hl_mixer_t *m);

typedef struct {
    const hl_pcm_t *pcm;
    uint32_t flags; /* HL_MIX_* */
    float gain;     /* linear */
    float pan;      /* 2D only, [-1, 1] */
    float pos[3];   /* 3D only */
    float pitch;    /* playback rate, [0.25, 4] */
    int32_t priority;
    uint32_t attack_frames; /* fade-in (attack_curve); 0 = none */
    float min_distance, max_distance, rolloff;
    uint32_t model; /* HL_MIX_DIST_* (hl_dsp.h) */
    uint32_t bus;   /* HL_BUS_* */
    uint64_t tag;   /* opaque to the mixer (the daemon's owner id); comes back in events */
    /* Streaming source: NULL = play pcm. The stream's channels (1/2) are the
     * voice's; pcm may then be NULL (it is handed back unused if set). The
     * stream must outlive the voice: ENDED returns it. */
    hl_stream_t *stream;
    /* Loop region of a pcm voice in frames, 0/0 = the whole sound. It repeats
     * forever when HL_MIX_LOOP is set and loop_count is 0; loop_count N > 0
     * plays it N extra times, then continues to the end of the sound. */
    uint32_t loop_start, loop_end;
    uint32_t loop_count;
    /* Crossfade at the loop end, frames (<= loop_start and <= the region):
     * the region's last loop_xfade frames blend into the frames just before
     * loop_start. 0 = sample-exact seamless loop. */
    uint32_t loop_xfade;
    /* appended (voice management) */
    float vel[3];          /* source velocity, m/s (3D Doppler) */
    float doppler_factor;  /* OpenAL 1.1 DopplerFactor: 0 = no Doppler, 1 = physical */
    uint32_t start_frame;  /* pcm voice: first frame played, < pcm->frames (a looping
                            * voice may start inside its loop region); 0 for streams */
    uint32_t attack_curve; /* HL_FADE_* of the attack_frames fade-in */
    /* appended (mixer graph): the post stage, all 0 = none */
    float lp_hz, hp_hz;              /* per-voice low-pass / high-pass (hl_vfilter_t); 0 = off */
    float occ_db;                    /* occlusion gain, dB <= 0 (0 = none) */
    uint32_t send_bus[HL_MAX_SENDS]; /* buses the voice is also sent to */
    float send_gain[HL_MAX_SENDS];   /* linear send levels, post fader; 0 = no send */
    /* appended (OpenAL programs): a mono 2D voice's pan law, HL_PAN_LAW_* (hl_panlaw.h) */
    uint32_t pan_law;
    /* appended (cones): OpenAL 1.1's sound cone of a 3D voice. cone_dir (0,0,0)
     * = omnidirectional; angles in degrees in [0, 360], the full width of
     * each cone; outside the outer cone the gain is cone_outer_gain, between
     * the two it goes linearly from 1 to it with the angle (hl_cone_gain). */
    float cone_dir[3];
    float cone_inner, cone_outer, cone_outer_gain;
    /* appended (cones): low-pass cutoff (Hz) beyond the outer cone, 0 = none;
     * between the cones it glides in log-frequency from off (0.45 x rate)
     * with the same angle fraction as the gain, and joins the voice's own
     * low-pass (lp_hz: the lower wins), moved once a block. */
    float cone_outer_lp;
    /* appended (attenuation curves): curve_n > 0 points (distance m strictly
     * increasing, gain dB) replace the distance model's gain: linear in dB
     * between points, the end values beyond them (hl_curve_gain). */
    uint32_t curve_n;
    float curve_d[HL_MIX_CURVE_POINTS], curve_db[HL_MIX_CURVE_POINTS];
    /* appended (surround): the LFE send, linear >= 0 (0 = none, the default):
     * the LFE channel of a layout that has one gets the voice's pre-pan signal
     * times lfe (see Surround); ignored without an LFE channel */
    float lfe;
    /* appended (distance curves, ATTEN kinds 1 and 2): a 3D voice's low-pass
     * cutoff by distance (Hz, log-frequency between points, hl_dcurve_lp),
     * joined with its own and its cone's (the lower wins), and its send
     * level by distance (dB, linear in dB between points, hl_curve_gain),
     * multiplying every send's level; both follow the listener it is heard
     * by, moved once a block (the filter glides, the sends ramp). n 0: none. */
    hl_dcurve_t dist_lp, dist_send;
    /* appended (modulation slots): mod > 0 attaches the voice to modulation
     * slot mod of generation mod_gen (hl_mixer_mod_alloc): each
     * hl_mixer_mod_set of that slot sets the voice's gain to mod_base x the
     * slot's factor, ramped exactly as a SET of that gain would be. A SET
     * of gain detaches it (the control side's copy too, hl_voice_set_fields).
     * 0: none (gain alone, as ever). A voice follows the slot's changes
     * sent after its play (as it would the SETs sent after it); mod_seq is
     * the mixer's (hl_mixer_play sets it; ignored on input). */
    uint32_t mod, mod_gen, mod_seq;
    float mod_base;
    /* appended (filter modulation): what the voice takes from slot mod,
     * HL_MOD_GAIN and/or HL_MOD_FILTER (hl_mixer_mod.h); 0 with mod > 0:
     * the gain alone, as before. A SET of gain or filter detaches that part. */
    uint32_t mod_what;
} hl_voice_params_t;

/* ---- control side: main thread only ------------------------------------ */

/* Starts a voice. Returns 0 and its handle in *voice (and the stolen voice's
 * handle in *stolen, or 0), HELIOD_ENOVOICES, HELIOD_EBUSY (command ring
 * full: nothing changed) or HELIOD_EINVAL (no PCM and no stream, channels
 * not 1/2, pitch outside [HL_PITCH_MIN, HL_PITCH_MAX], bad bus/model/pan/gain,
 * 3D distances not 0 < min <= max, loop points outside the sound or
 * loop_start >= loop_end, crossfade longer than loop_start or the region,
 * start_frame >= the pcm's frames or non-zero for a stream, attack_curve not
 * an HL_FADE_*, doppler_factor negative or not finite, vel not finite).
 * now_ns stamps the command for ring-wait stats. */
int hl_mixer_play(hl_mixer_t *m, const hl_voice_params_t *p, uint64_t now_ns, uint64_t *voice,
                  uint64_t *stolen);

/* Release reasons reported back in ENDED events. */
#define HL_MIX_END_FINISHED 0
#define HL_MIX_END_STOPPED  1
#define HL_MIX_END_STOLEN   2
#define HL_MIX_END_OWNER    3
#define HL_MIX_END_SHUTDOWN 4

/* Fades a voice out over release_frames (0 = the shortest click-free fade,
 * 64 frames) then frees it. A voice already fading keeps its fade (never cut
 * shorter). Returns 0, HELIOD_ENOVOICE (stale/unknown) or HELIOD_EBUSY. */
int hl_mixer_stop(hl_mixer_t *m, uint64_t voice, uint32_t release_frames, int reason,
                  uint64_t now_ns);
/* As hl_mixer_stop with a fade curve (HL_FADE_*; hl_mixer_stop is LINEAR);
 * the fade starts from the voice's current level (a stop during a fade-in
 * starts where it is). `reason` is opaque to the mixer and comes back in the
 * ENDED event unchanged. Also HELIOD_EINVAL for an unknown curve. */
int hl_mixer_stop_curve(hl_mixer_t *m, uint64_t voice, uint32_t release_frames, int reason,
                        uint32_t curve, uint64_t now_ns);

#define HL_MIX_SET_GAIN   0x01u
#define HL_MIX_SET_PAN    0x02u
#define HL_MIX_SET_POS    0x04u
#define HL_MIX_SET_PITCH  0x08u
#define HL_MIX_SET_PAUSE  0x10u  /* pause: fades out over ramp, then holds (fades do not advance) */
#define HL_MIX_SET_RESUME 0x20u  /* resume: fades back in over ramp */
#define HL_MIX_SET_SEEK   0x40u  /* pcm voice: fade out, jump to seek_frame, fade in */
#define HL_MIX_SET_STREAM 0x80u  /* stream voice: fade out, switch to `stream`, fade in */
#define HL_MIX_SET_VEL    0x100u /* source velocity (Doppler), not ramped: Doppler is smoothed */
/* HL_MIX_SET_INTERP: `cubic` 2 = sinc, 1 = Catmull-Rom, 0 = linear, from the
 * next block (the CPU governor's quality step). HL_MIX_SET_FILTER: lp_hz, hp_hz, occ_db:
 * the cutoffs glide and the gain ramps over ramp_frames. HL_MIX_SET_SENDS:
 * send_bus, send_gain: the levels ramp (a send moved to another bus starts
 * there from silence). */
#define HL_MIX_SET_INTERP 0x200u
#define HL_MIX_SET_FILTER 0x400u
#define HL_MIX_SET_SENDS  0x800u
#define HL_MIX_SET_CONE   0x1000u
/* HL_MIX_SET_FSTEP, with HL_MIX_SET_FILTER: the cutoffs glide in steps of
 * HL_FX_GRID frames with designs shared between voices (hl_vfilter_glide_rt
 * stepped): the cheap glide for many voices moving alike (game parameters). */
#define HL_MIX_SET_FSTEP 0x4000u
#define HL_MIX_SET_CURVE                                                                           \
    0x2000u /* curve_n, curve_d, curve_db (hl_voice_params_t) */ /* cone_dir,                      \
                                                                    cone_inner/outer/outer_gain:   \
                                                                    from the next block */
#define HL_MIX_SET_LFE 0x8000u
/* HL_MIX_SET_DLP, HL_MIX_SET_DSEND: dist_lp, dist_send (hl_voice_params_t),
 * from the next block */
#define HL_MIX_SET_DLP   0x10000u
#define HL_MIX_SET_DSEND 0x20000u
/* HL_MIX_SET_LOOPS: loops, the loop passes left from the block the command
 * applies in (pcm voices only): -1 forever, 0 leaves the loop at the end of
 * this pass (the sound plays on to its end), N more passes. A voice past its
 * loop region has left it for good; inside the loop's crossfade (its last
 * loop_xfade frames) the wrap has begun: with the loop on, it is taken and N
 * passes follow it; with the loop off, the change comes too late. */
#define HL_MIX_SET_LOOPS 0x40000u
typedef struct {
    uint32_t mask;
    float gain, pan, pos[3], pitch;
    uint32_t ramp_frames;       /* every change is ramped over this many frames (>= 1 block-free) */
    uint32_t seek_frame;        /* HL_MIX_SET_SEEK: frame of the pcm, < its frames */
    hl_stream_t *stream;        /* HL_MIX_SET_STREAM: the new source (same channels); the old one
                                 * comes back in HL_MIX_EV_STREAM_RETIRED */
    float vel[3];               /* HL_MIX_SET_VEL */
    uint32_t cubic;             /* HL_MIX_SET_INTERP: HL_INTERP_* */
    float lp_hz, hp_hz, occ_db; /* HL_MIX_SET_FILTER */
    uint32_t send_bus[HL_MAX_SENDS]; /* HL_MIX_SET_SENDS */
    float send_gain[HL_MAX_SENDS];
    float cone_dir[3]; /* HL_MIX_SET_CONE: as hl_voice_params_t */
    float cone_inner, cone_outer, cone_outer_gain, cone_outer_lp;
    uint32_t curve_n; /* HL_MIX_SET_CURVE: as hl_voice_params_t */
    float curve_d[HL_MIX_CURVE_POINTS], curve_db[HL_MIX_CURVE_POINTS];
    float lfe; /* HL_MIX_SET_LFE: the LFE send (hl_voice_params_t.lfe), ramped */
    hl_dcurve_t dist_lp, dist_send; /* HL_MIX_SET_DLP, HL_MIX_SET_DSEND */
    int32_t loops;                  /* HL_MIX_SET_LOOPS */
} hl_voice_set_t;
/* Returns 0, HELIOD_ENOVOICE, HELIOD_EBUSY or HELIOD_EINVAL (pitch, gain or
 * pan out of range in the mask, a velocity not finite, a seek on a stream
 * voice or past the end,
 * a stream switch on a pcm voice or to a stream of other channels). A
 * stream switch answers HELIOD_EBUSY while HL_STREAM_RETIRE_MAX switches
 * are in flight (their STREAM_RETIRED events not yet polled). Whatever the
 * answer other than 0, the mixer did not take the new stream. A stolen
 * voice is stale at once, even while it still fades in its slot. */
int hl_mixer_set(hl_mixer_t *m, uint64_t voice, const hl_voice_set_t *s, uint64_t now_ns);
/* The plain fields of s in p (gain, pan, position, velocity, curve, cone,
 * filter, sends, as s->mask says; not pitch, pause, seek, stream or
 * interpolation, whose owners apply them with their own state): the
 * control side's copy of a voice's parameters follows a SET (the mixer's,
 * the voice manager's). No checks. */
void hl_voice_set_fields(hl_voice_params_t *p, const hl_voice_set_t *s);

/* A steady 2D voice keeps to the mixer's steady path through a SET of gain,
 * pan, filter or sends (its gain pair ramps per sample there). on = 0 sends
 * such a voice through the full path instead, as before: for tests and
 * benches comparing the two; call before the audio thread runs. */
void hl_mixer_set_fast_ramps(hl_mixer_t *m, int on);

typedef struct {
    float pos[3], fwd[3], up[3], vel[3];
    /* 0: the nearest rule; (0, 1]: while any listener on has a weight, a
     * 3D voice's gain is the sum over the listeners on of weight x its gain
     * there (see hl_mixer_set_listener_at) */
    float weight;
} hl_listener_state_t;
/* Default listener: origin, forward (0,0,-1), up (0,1,0), still. */
int hl_mixer_set_listener(hl_mixer_t *m, const hl_listener_state_t *l, uint64_t now_ns);
/* The listener as last set (the state the next move's mask applies to). */
void hl_mixer_get_listener(const hl_mixer_t *m, hl_listener_state_t *l);
/* The listener in effect at engine frame `frame` (a move pushed with
 * hl_mixer_at takes effect on its frame, so what the control side decides
 * for a frame -- audibility, admission -- sees what the audio thread will
 * render there, however early the move was sent). Frames before the clock
 * answer the state in effect now. Main thread. This is listener 0; see
 * hl_mixer_listeners_at for all of them. */
void hl_mixer_listener_at(hl_mixer_t *m, uint64_t frame, hl_listener_state_t *l);
/* Several listeners (split screen): index 0 is the one above, always on;
 * 1..HL_MIX_LISTENERS-1 are off until set, and l NULL turns one off again.
 * Each 3D voice is heard by the nearest listener that is on (ties: the
 * lowest index): its distance gain, pan, cone, Doppler and HRTF direction
 * are that listener's. While any listener on has a weight (> 0), a 3D
 * voice's gain is instead the sum over the listeners on of weight x the
 * gain it has at that listener (distance curve or model, cone; a listener
 * without a weight adds nothing), and the rest (pan, speakers, Doppler,
 * HRTF direction, distance low-pass and send, beyond max distance) stays
 * the nearest listener's. Every index is on the same engine timeline as
 * listener 0 (a move or switch takes effect on its frame). 0,
 * HELIOD_EINVAL (index) or HELIOD_EBUSY. */
#define HL_MIX_LISTENERS 4
int hl_mixer_set_listener_at(hl_mixer_t *m, uint32_t index, const hl_listener_state_t *l,
                             uint64_t now_ns);
/* 1 and *l if listener index is on, else 0 (as last sent). */
int hl_mixer_get_listener_at(const hl_mixer_t *m, uint32_t index, hl_listener_state_t *l);
/* The listener nearest to pos among those on (as last sent). */
uint32_t hl_mixer_nearest_listener(const hl_mixer_t *m, const float pos[3]);
/* Every listener in effect at engine frame `frame` (the timeline of
 * hl_mixer_listener_at, for each index): l[k] for each k whose bit is set in
 * the mask returned (bit 0, listener 0, always). Main thread. */
uint32_t hl_mixer_listeners_at(hl_mixer_t *m, uint64_t frame,
                               hl_listener_state_t l[HL_MIX_LISTENERS]);
/* bus = HL_BUS_* or -1 for master. Returns 0, HELIOD_ENOBUS or HELIOD_EBUSY. */
int hl_mixer_set_bus_gain(hl_mixer_t *m, int bus, float gain, uint32_t ramp_frames,
                          uint64_t now_ns);
float hl_mixer_get_bus_gain(const hl_mixer_t *m, int bus);
/* Mutes (1) or unmutes (0) a bus (or -1 master) with a ramp: the bus gain
 * is kept. 0, HELIOD_ENOBUS or HELIOD_EBUSY. */
int hl_mixer_set_bus_mute(hl_mixer_t *m, int bus, int mute, uint32_t ramp_frames, uint64_t now_ns);
int hl_mixer_get_bus_mute(const hl_mixer_t *m, int bus);
/* Gain a voice on `bus` gets from the faders: the bus's gain x mute and
 * every ancestor's up to and including the master's (ducking excluded: it
 * comes and goes). 0 for a bus that is not live. Main thread. */
float hl_mixer_bus_path_gain(const hl_mixer_t *m, int bus);
/* The gain at which what reaches `bus` is heard at the output: its path gain,
 * or through its sends (pre-fader) what their targets make of it, whichever
 * is larger. A muted feed bus that sends to a reverb is heard through the
 * reverb. Main thread (the voice manager's audibility). */
float hl_mixer_bus_heard_gain(const hl_mixer_t *m, int bus);
/* hl_mixer_bus_heard_gain of every bus with the gains and mutes in effect at
 * engine frame `frame` (changes pushed with hl_mixer_at count from their
 * frame on; graph and send changes apply at once). Main thread. */
void hl_mixer_buses_heard_at(hl_mixer_t *m, uint64_t frame, float out[HL_MAX_BUSES]);

/* The bus tree: parent[b] is bus b's parent (a bus index or -1 = master)
 * for each bus whose bit is set in `live`; bits 0..3 (the default buses)
 * must stay set. The audio thread processes every bus after its children
 * (their sums, inserts, gain, mute and ducking, then into the parent).
 * Returns 0, HELIOD_EINVAL (a parent not live, a cycle, a default bus
 * missing, a bus removed while a voice or send of a voice still uses it,
 * while it has effects or while a ducking rule names it) or HELIOD_EBUSY. */
int hl_mixer_bus_graph(hl_mixer_t *m, const int8_t parent[HL_MAX_BUSES], uint32_t live,
                       uint64_t now_ns);
/* 1 if bus (0..HL_MAX_BUSES-1) is live. */
int hl_mixer_bus_live(const hl_mixer_t *m, int bus);

/* Bus send `slot` (< HL_BUS_SENDS) of `bus` feeds bus `target` (-1: none)
 * at `gain` (linear, ramped over ramp_frames; a send moved to another
 * target starts there from silence). Sends tap after the bus's inserts,
 * before its fader, mute and ducking (pre-fader); the processing order puts
 * every target after its senders. 0, HELIOD_ENOBUS, HELIOD_EINVAL (a slot
 * or gain out of range, a target not live or the bus itself, a loop through
 * parents and sends) or HELIOD_EBUSY. A bus another bus sends to cannot be
 * removed (hl_mixer_bus_graph: EINVAL) until the send goes. */
int hl_mixer_bus_send(hl_mixer_t *m, int bus, uint32_t slot, int target, float gain,
                      uint32_t ramp_frames, uint64_t now_ns);

/* A bus's (or -1 master's) insert chain becomes fx[0..n) in order. Each
 * effect is set up off the audio thread (hl_eq_init, hl_comp_init,
 * hl_reverb_init) in memory the caller owns; an effect no longer in the
 * chain comes back in an HL_MIX_EV_FX_RETIRED event, after which the caller
 * frees it. 0, HELIOD_ENOBUS, HELIOD_EINVAL (n > HL_MAX_FX, a NULL entry, an
 * effect already on another bus) or HELIOD_EBUSY (ring full, or
 * HL_FX_RETIRE_MAX effects already retiring). */
int hl_mixer_bus_fx(hl_mixer_t *m, int bus, hl_fx_t *const *fx, uint32_t n, uint64_t now_ns);

/* New parameters for an attached effect, applied on the audio thread with
 * the effect's own glide (hl_eq_set_rt, hl_comp_glide_rt, hl_reverb_glide_rt)
 * over ramp_frames from the frame the command applies on: EQ frequency, Q
 * and gain; compressor threshold, ratio, knee and makeup; reverb rt60,
 * damping, wet and dry. ramp_frames 0: the EQ and the compressor's
 * threshold, ratio and knee at once, the rest over HL_FX_GLIDE_MS. */
typedef struct {
    int kind;                               /* HL_FX_*: must match the effect */
    int eq_type;                            /* HL_BQ_* */
    float freq, q, gain_db;                 /* eq */
    float threshold_db, ratio, knee_db;     /* compressor */
    float attack_ms, release_ms, makeup_db; /* compressor */
    hl_reverb_params_t rev;                 /* reverb */
    uint32_t ramp_frames;                   /* glide length (above) */
} hl_fx_params_t;
/* 0, HELIOD_EINVAL (kind mismatch) or HELIOD_EBUSY. */
int hl_mixer_fx_param(hl_mixer_t *m, hl_fx_t *fx, const hl_fx_params_t *p, uint64_t now_ns);

/* Ducking rule `index` (< HL_MAX_DUCKS): while bus `side` is above
 * threshold_db (or, threshold_db <= -144, has voices), bus `target` goes
 * down depth_db with attack, hold and release (hl_duck.h); on = 0 removes
 * it (the target returns to 0 dB over the release). Rules on one target
 * multiply. 0, HELIOD_EINVAL or HELIOD_EBUSY. */
int hl_mixer_duck(hl_mixer_t *m, uint32_t index, int on, uint32_t side, uint32_t target,
                  float depth_db, float threshold_db, float attack_ms, float hold_ms,
                  float release_ms, uint64_t now_ns);

#define HL_MIX_EV_ENDED          1
#define HL_MIX_EV_STARTED        2
#define HL_MIX_EV_STREAM_RETIRED 3 /* a stream the voice no longer uses: free it */
#define HL_MIX_EV_FX_RETIRED     4 /* an effect no longer in any chain (`fx`): free it */
typedef struct {
    uint32_t type;
    uint32_t reason; /* ENDED: HL_MIX_END_* */
    uint64_t voice;
    uint64_t tag;
    const hl_pcm_t *pcm; /* ENDED: the PCM it no longer uses */
    uint64_t time_ns;    /* STARTED: now_ns of the block that first mixed it */
    hl_stream_t *stream; /* ENDED / STREAM_RETIRED: the stream it no longer uses (or NULL) */
    /* appended (voice management) */
    uint64_t frame;  /* STARTED: engine frame (hl_mixer_stats frames) at which its first
                      * sample was mixed; ENDED: engine frame just after its last block
                      * (see DESIGN, "Events") */
    uint64_t cursor; /* ENDED: source position at `frame`, in frames: for pcm the frame of
                      * the pcm (engine rate, loops wrapped, <= its frames), for a stream
                      * the frames of its current stream played since the voice started
                      * (or switched to that stream) */
    hl_fx_t *fx;     /* FX_RETIRED */
} hl_mix_event_t;
typedef void (*hl_mix_event_fn)(void *user, const hl_mix_event_t *ev);
/* Drains the event ring; for ENDED the slot is free once cb returns.
 * Returns the number of events handled. */
size_t hl_mixer_poll(hl_mixer_t *m, hl_mix_event_fn cb, void *user);

#define HL_MIX_STATE_FREE     0
#define HL_MIX_STATE_PLAYING  1
#define HL_MIX_STATE_STOPPING 2
#define HL_MIX_STATE_PAUSED   3
typedef struct {
    uint64_t voice;
    uint32_t state;
    hl_voice_params_t params; /* as last set by play/set */
} hl_voice_view_t;
/* The logical view of a voice: 0 or HELIOD_ENOVOICE. */
int hl_mixer_voice(const hl_mixer_t *m, uint64_t voice, hl_voice_view_t *out);
/* Physical slots (2 * voices); slot_view returns 0 if that slot holds a voice. */
uint32_t hl_mixer_slots(const hl_mixer_t *m);
/* Output channels (the layout's). */
uint32_t hl_mixer_channels(const hl_mixer_t *m);
int hl_mixer_slot_view(const hl_mixer_t *m, uint32_t slot, hl_voice_view_t *out);
/* Engine frames rendered so far (the clock: the next block starts there).
 * Any thread (relaxed atomic). */
uint64_t hl_mixer_frames(const hl_mixer_t *m);
/* Commands that can be pushed right now: the ring's room, less what an open
 * bundle already holds (and at most what the bundle still takes), and at
 * most the schedule's room while a frame is set (hl_mixer_at). Main thread
 * (the producer). */
uint32_t hl_mixer_cmd_room(const hl_mixer_t *m);
/* Logical voices playing or paused (not fading). */
uint32_t hl_mixer_active(const hl_mixer_t *m);

/* Snapshot of counters kept by the audio thread (relaxed atomics). */
/* Ring wait histogram: bucket 0 counts waits under 8 us, then 4 buckets per
 * octave (8, 10, 12, 14, 16, 20, ... us), the last one everything longer than
 * ~393 ms. Bucket bounds: hl_mixer_wait_bucket_upper_us(). */
#define HL_MIX_WAIT_BUCKETS 64
#define HL_MIX_MAX_CH       12 /* output channels at most (hl_layout.h HL_LAYOUT_MAX_CH) */
typedef struct {
    uint64_t blocks, frames;
    uint64_t cmds_applied;
    uint64_t cmd_cap_hits;         /* blocks that left commands queued because of the drain cap */
    uint32_t voices_mixed;         /* last block */
    uint32_t voices_virtual;       /* last block */
    uint64_t limiter_blocks;       /* blocks where the limiter reduced gain */
    float peak[2];                 /* master output peak of the last block, after the limiter */
    float bus_peak[HL_MAX_BUSES];  /* last block, after inserts, gain, mute and ducking */
    float duck_gain[HL_MAX_BUSES]; /* ducking gain of each bus now (1 = not ducked) */
    uint64_t wait_max_ns;          /* longest time a command waited in the ring */
    uint64_t wait_hist[HL_MIX_WAIT_BUCKETS];
    uint64_t underruns;             /* stream underrun episodes, all voices */
    uint32_t stream_voices;         /* last block */
    uint32_t hrtf_voices;           /* last block: voices rendered binaurally */
    uint64_t sched_late;            /* scheduled commands the audio thread got after their frame */
    uint64_t sched_late_max_frames; /* ... and the latest of them, in frames */
    uint32_t sched_pending;         /* scheduled commands not applied yet (control side's count) */
    /* output channels (cfg.layout's) and each one's peak of the last call
     * (after the limiter; 0, 1 are peak[]) */
    uint32_t channels;
    float out_peak[HL_MIX_MAX_CH];
} hl_mixer_stats_t;
void hl_mixer_stats(const hl_mixer_t *m, hl_mixer_stats_t *out);
/* Exclusive upper bound (us) of wait histogram bucket i: bucket i counts
 * waits in [upper(i - 1), upper(i)). The last bucket (and any i past it)
 * is unbounded: INFINITY. Any thread. */
double hl_mixer_wait_bucket_upper_us(unsigned i);

/* ---- time: scheduled commands and bundles (mixer_cmdq.c) ---------------- */

/* Every command pushed after this call (play, stop, set, listener, bus and
 * graph changes) is applied by the audio thread at engine frame at_frame,
 * exactly: the block is split there, so a voice starts on that sample and a
 * ramp starts there. A call is cut at most HL_SCHED_SPLITS times at exact
 * frames; later cuts in the same call fall on the next multiple of
 * HL_SCHED_GRID frames, and what was due before is applied there and
 * counted late (so a storm of distinct frames costs a bounded number of
 * renders). 0 = as soon as the audio thread drains it (the default).
 * A frame the audio thread has already passed is applied at once and counted
 * late (stats sched_late, sched_late_max_frames). Commands for one voice
 * never overtake its PLAY: a command on a voice whose start is scheduled
 * later is held until that frame. While a frame is set, a push answers
 * HELIOD_EBUSY when HL_SCHED_MAX scheduled commands are in flight.
 * Main thread. */
void hl_mixer_at(hl_mixer_t *m, uint64_t at_frame);
uint64_t hl_mixer_at_frame(const hl_mixer_t *m);
/* The engine frame commands pushed now take effect at: with no frame set
 * (hl_mixer_at 0), hl_mixer_next_frame() (inside an open bundle: its value
 * when the bundle began, so all of a bundle's requests are "now" on one
 * frame); with one, that frame, or hl_mixer_frames() if it is later. Each
 * answer is recorded (hl_mixer_now_track, hl_mixer_now_seen). Main thread. */
uint64_t hl_mixer_effect_frame(hl_mixer_t *m);
/* Frames the frame set with hl_mixer_at is already behind the clock (an
 * estimate: the audio thread may pass more before it drains it). */
uint64_t hl_mixer_late_frames(const hl_mixer_t *m);
/* Scheduled commands that can still be pushed (the schedule's room, and at
 * most what hl_mixer_sched_limit still allows). Main thread. */
uint32_t hl_mixer_sched_room(const hl_mixer_t *m);
/* Scheduled commands pending (pushed, not yet applied or cancelled). */
uint32_t hl_mixer_sched_pending(const hl_mixer_t *m);

/* Whose scheduled commands these are. The owner tag (0: none, the default)
 * is taken by each voice played while it is set: every scheduled command on
 * that voice (its PLAY, a STOP or SET scheduled for it or held until its
 * start, a steal's STOP of it) carries the voice's tag, and
 * hl_mixer_sched_cancel(tag) drops them. The charge id is the one the
 * schedule hook reports scheduled commands for: the current one (if not 0),
 * else, for a command on a voice, the charge id current at its PLAY. Both
 * setters return the previous value. Main thread. */
uint32_t hl_mixer_owner(hl_mixer_t *m, uint32_t tag);
uint32_t hl_mixer_charge(hl_mixer_t *m, uint32_t id);
/* Called on the main thread for every scheduled command pushed (after the
 * push): its frame, its charge id and its owner tag. NULL: none. */
typedef void (*hl_sched_fn)(void *user, uint64_t at_frame, uint32_t charge, uint32_t tag);
void hl_mixer_sched_hook(hl_mixer_t *m, hl_sched_fn fn, void *user);
/* At most n more scheduled commands may be pushed (UINT32_MAX: no limit but
 * HL_SCHED_MAX, the default): each scheduled push spends one, a push beyond
 * answers HELIOD_EBUSY, and hl_mixer_cmd_room / hl_mixer_sched_room count
 * it. For a per-client quota: set before a client's request, reset after.
 * Returns the previous limit. Main thread. */
uint32_t hl_mixer_sched_limit(hl_mixer_t *m, uint32_t n);
/* Cancels every scheduled command not yet applied whose owner tag is tag
 * (not 0): a cancelled PLAY's voice ends at once without a sound (ENDED
 * with `reason`, no STARTED), the other commands are dropped (a dropped
 * stream switch's stream comes back as usual). Commands on the tagged
 * voices pushed after this call are no longer held for their start. Goes
 * through the command ring (so it also catches commands pushed before it
 * and not drained yet): 0, or HELIOD_EBUSY when the ring is full, or
 * HELIOD_EINVAL for tag 0. Main thread. */
int hl_mixer_sched_cancel(hl_mixer_t *m, uint32_t tag, int reason, uint64_t now_ns);

/* Bundles: the commands pushed between begin and end reach the audio thread
 * in one ring write and are applied in the same drain, never split by the
 * per-block cap (each at its own frame when scheduled). At most
 * HL_BUNDLE_MAX commands (then pushes answer HELIOD_EBUSY); end publishes
 * them (0, or HELIOD_EINVAL when no bundle is open). Nested begins are
 * HELIOD_EINVAL. Main thread. */
int hl_mixer_bundle_begin(hl_mixer_t *m);
int hl_mixer_bundle_end(hl_mixer_t *m);

/* The clock: the engine frame at which the audio thread's last call began
 * and that call's CLOCK_MONOTONIC time (ns), read as one consistent pair
 * (0, 0 before the first call). Any thread. */
void hl_mixer_clock(const hl_mixer_t *m, uint64_t *frame, uint64_t *ns);

/* Where a command pushed now takes effect (any thread): *frames is the
 * frames rendered, and the audio thread is between two calls
 * (HL_MIX_PHASE_IDLE: from *frames on), inside the call from *frames with
 * its ring drain over (HL_MIX_PHASE_DRAINED: from the next call's start) or
 * anywhere else (HL_MIX_PHASE_DRAINING: the drain under way, or the thread
 * moved on while this read: either). The session capture reads it before
 * and after a request's handler: the same definite phase both times is the
 * request's frame of effect. */
enum { HL_MIX_PHASE_IDLE, HL_MIX_PHASE_DRAINED, HL_MIX_PHASE_DRAINING };
int hl_mixer_phase(const hl_mixer_t *m, uint64_t *frames);
/* The commands pushed so far (the ring's write index) and, for the last
 * call whose drain is over, its frame and the commands it had taken by
 * then (the read index); 0 if no drain is over or the pair was changing.
 * Where a request's commands went when the audio thread moved meanwhile. */
uint32_t hl_mixer_cmds_pushed(const hl_mixer_t *m);
int hl_mixer_last_drain(const hl_mixer_t *m, uint64_t *frame, uint32_t *taken);

/* ---- meters: what the audio thread measured in its last call ------------ */

/* Level figures of one hl_mixer_process_rt() call, for meters kept off the
 * audio thread (the daemon's daemon/telemetry/meters.c): per bus (index 0..HL_MAX_BUSES-1,
 * after inserts, gain, mute and ducking, the point where the bus joins its
 * parent) and for the master (index HL_MIX_METER_MASTER, the output after the
 * limiter), per channel of the layout (its order: FL FR FC LFE BL BR SL SR;
 * 0 and 1 on stereo) the peak (max |x|, NaN ignored) and the sum of squares
 * of the call's frames. A bus that did not run in the call reads 0. */
#define HL_MIX_METERS       (HL_MAX_BUSES + 1)
#define HL_MIX_METER_MASTER HL_MAX_BUSES
typedef struct {
    float peak[HL_MIX_METERS][HL_MIX_MAX_CH]; /* channels 0..channels-1 used */
    double sumsq[HL_MIX_METERS][HL_MIX_MAX_CH];
    uint32_t frames;     /* frames of the call */
    uint32_t channels;   /* output channels (cfg.layout's) */
    uint64_t now_frames; /* engine frame just after the call's last frame */
} hl_mix_meter_t;
/* The figures of the last hl_mixer_process_rt() call. Audio thread only (the
 * struct is rewritten by the next call); copy it out before the next. */
const hl_mix_meter_t *hl_mixer_meter_rt(const hl_mixer_t *m);

/* ---- RT side: the audio thread only -------------------------------------- */

/* Applies queued commands (until the ring is empty, cmds_per_block were
 * taken or drain_budget_pct of the call's duration is spent on clock_ns),
 * mixes `frames` frames of interleaved stereo float into out (overwritten), applies bus and master
 * gains and the limiter, and pushes events. now_ns is the callback's
 * CLOCK_MONOTONIC time. Sets flush-to-zero for its own thread on entry.
 * Never locks, allocates, frees, does I/O or waits. */
void hl_mixer_process_rt(hl_mixer_t *m, float *out, uint32_t frames, uint64_t now_ns);

/* modulation slots: hl_mixer_mod.h */
#include "hl_mixer_mod.h"
#include "hl_mixer_plan.h" /* tags, cancel from a frame, "now" */

#endif /* HL_MIXER_H */
