/*
 * mixer_internal.h - the layout shared by the control side (mixer_ctl.c,
 * mixer_bus.c, mixer_cmdq.c) and the RT side (mixer_rt.c and the voice_*
 * files, mixer_sched.c) of the mixer. Not installed, not for other modules.
 *
 * One hl_mixer_t sits at the start of the caller's memory block, followed by
 * 64-byte aligned arrays:
 *
 *   [hl_mixer_t][ctl_voice x slots][rt_voice x slots][free stack][rt active list]
 *   [cmd ring storage][event ring storage][hrtf voice state x slots (cfg.hrtf only)]
 *   [open bundle x (HL_BUNDLE_MAX + 1)][schedule heap x HL_SCHED_MAX]
 *   [schedule command pool x HL_SCHED_MAX][pool free stack x HL_SCHED_MAX]
 *
 * (config_layout in mixer_ctl.c computes it.) The RT side also holds one
 * shared stream scratch (sbuf) that linearises the ring frames a stream
 * voice's run needs, after that voice's kept history.
 *
 * The control arrays and the open bundle are touched by the main thread only;
 * the rt arrays and the schedule (heap, pool) by the audio thread only. The
 * two rings are the shared memory, plus what the audio thread publishes and
 * any thread reads: the stats block (relaxed atomics) and the clock (a
 * seqlock: clk_seq, clk_frame, clk_ns).
 */
#ifndef HL_MIXER_INTERNAL_H
#define HL_MIXER_INTERNAL_H

#include <stdatomic.h>

#include "hl_dsp.h"
#include "hl_duck.h"
#include "hl_fx.h"
#include "hl_hrtf.h"
#include "hl_layout.h"
#include "hl_mixer.h"
#include "hl_ring.h"
#include "hl_sinc.h"
#include "hl_stream.h"
#include "mix_kernels.h"

#define HL_MIX_ALIGN    64
#define HL_NUM_GAINS    (HL_MAX_BUSES + 1) /* bus gains then the master gain */
#define HL_MASTER       HL_MAX_BUSES       /* the master's index in the bus arrays */
#define HL_LIS_TIMELINE 256   /* listener moves and bus changes kept on the timelines */
#define HL_TL_KEEP      65536 /* frames of the past the timelines still answer for */

/* ---- commands (main -> audio) ------------------------------------------- */
enum {
    HL_CMD_PLAY = 1,
    HL_CMD_STOP,
    HL_CMD_SET,
    HL_CMD_LISTENER,
    HL_CMD_BUS,
    HL_CMD_GRAPH,    /* the bus tree: parents and the processing order */
    HL_CMD_FX,       /* a bus's insert chain: the new list of effects */
    HL_CMD_FX_PARAM, /* new parameters for one attached effect */
    HL_CMD_DUCK,     /* a ducking rule on or off */
    HL_CMD_BUS_SEND, /* a bus send's level (its target is in the graph) */
    HL_CMD_BUNDLE,   /* header: the next u.bundle.n commands are one bundle (never split) */
    HL_CMD_CANCEL,   /* drop the scheduled commands tagged `owner` from u.cancel.from on */
    HL_CMD_MOD,      /* a modulation slot's new factor (hl_mixer_mod_set) */
};

/* The bus tree as the audio thread runs it: children before parents. */
typedef struct {
    int8_t parent[HL_MAX_BUSES]; /* bus index, or -1 = master */
    uint8_t order[HL_MAX_BUSES]; /* live buses, each after all of its children */
    uint32_t n_order;
    uint32_t live;                              /* bit per bus */
    int8_t send_to[HL_MAX_BUSES][HL_BUS_SENDS]; /* bus sends' targets, -1 = none; the order
                                                 * puts every target after its senders */
} hl_graph_t;

typedef struct {
    uint32_t type;
    uint32_t slot;
    uint32_t gen;
    uint32_t owner;  /* the owner tag of its voice (hl_mixer_owner); CANCEL: the tag to drop */
    uint64_t enq_ns; /* now_ns of the control call, for the ring-wait histogram */
    union {
        hl_voice_params_t play;
        struct {
            uint32_t release_frames;
            uint32_t reason; /* opaque: comes back unchanged in ENDED */
            uint32_t curve;  /* HL_FADE_* */
        } stop;
        hl_voice_set_t set;
        hl_listener_state_t listener; /* slot: its index; gen 1: turned off */
        struct {
            int32_t bus; /* 0..HL_MAX_BUSES-1, or HL_MASTER */
            float gain;
            uint32_t ramp_frames;
            uint32_t mute; /* 1: gain is the mute gain (0 muted, 1 not), else the bus gain */
            uint32_t gen;  /* the bus's generation when pushed (bus_gen_ctl) */
        } bus;
        hl_graph_t graph;
        struct {
            int32_t bus;
            uint32_t n;
            hl_fx_t *fx[HL_MAX_FX]; /* the whole new chain; ones dropped come back retired */
        } fx;
        struct {
            hl_fx_t *fx;
            hl_fx_params_t p;
        } fxp;
        struct {
            uint32_t index, on;
            uint32_t side, target; /* bus indices */
            float depth_db, threshold_db, attack_ms, hold_ms, release_ms;
        } duck;
        struct {
            uint32_t bus, slot;
            float gain;
            uint32_t ramp_frames;
        } bsend;
        struct {
            uint32_t n; /* commands after this header */
        } bundle;
        struct {
            uint32_t reason; /* a cancelled PLAY's ENDED reason */
            uint64_t from;   /* the first frame dropped: earlier ones stay (0: all) */
        } cancel;
        struct {
            uint32_t mod, gen; /* the slot (1..HL_MIX_MODS) and its generation */
            uint32_t seq;      /* its changes sent, this one included (mod_seq_ctl) */
            float factor, max_gain;
            uint32_t ramp_frames;
            uint32_t mask;          /* HL_MOD_GAIN, HL_MOD_FILTER */
            float lp, hp, lp0, hp0; /* hl_mod_change_t lp_hz, hp_hz, lp_from, hp_from */
        } mod;
    } u;
    uint64_t at_frame; /* engine frame to apply at; 0 = as soon as drained */
} hl_cmd_t;

/* One scheduled command waiting in the audio thread's min-heap: ordered by
 * frame, then by arrival (seq), so commands for the same frame apply in the
 * order they were sent. */
typedef struct {
    uint64_t at;
    uint64_t seq;
    uint32_t idx; /* into the command pool */
    uint32_t pad_;
} hl_sched_ent_t;

/* ---- control view of a slot ---------------------------------------------- */
typedef struct {
    uint32_t gen;    /* generation of the voice in the slot (0: never used) */
    uint32_t state;  /* HL_MIX_STATE_* */
    uint32_t stolen; /* stolen voices are stale for the API while they fade */
    uint32_t owner;  /* owner tag at its PLAY (hl_mixer_owner): its scheduled commands carry it */
    uint32_t charge; /* whom its scheduled commands are reported for (hl_mixer_charge) */
    uint32_t pad_;
    uint64_t seq; /* play order, for "oldest among equals" */
    hl_voice_params_t params;
    uint64_t start_at; /* engine frame its PLAY was scheduled for (0: at once) */
} hl_ctl_voice_t;

/* Interpolators, as hl_src_view_t.cubic and HL_MIX_SET_INTERP's value. */
#define HL_INTERP_LINEAR 0u
#define HL_INTERP_CUBIC  1u
#define HL_INTERP_SINC   2u

/* flags with the interpolator bits set for HL_INTERP_* mode */
static inline uint32_t hl_interp_flags(uint32_t flags, uint32_t mode) {
    flags &= ~(HL_MIX_CUBIC | HL_MIX_SINC);
    return mode == HL_INTERP_SINC    ? flags | HL_MIX_SINC
           : mode == HL_INTERP_CUBIC ? flags | HL_MIX_CUBIC
                                     : flags;
}

/* ---- RT state of a slot --------------------------------------------------- */
typedef struct {
    float cur, target;
    uint32_t rem; /* frames until cur reaches target; 0 = settled */
} hl_ramp_t;

enum { HL_ENV_RUN = 0, HL_ENV_RELEASE, HL_ENV_PAUSING, HL_ENV_PAUSED };
/* Seek / stream switch: none, or fading out before the jump. */
enum { HL_SW_NONE = 0, HL_SW_SEEK, HL_SW_STREAM };
#define HL_LOOP_FOREVER UINT32_MAX /* loops_left of an endless loop */

/* What a run of the renderer reads: a voice's PCM (kept up to date in the
 * voice, recomputed only when a loop or seek changes it), or the stream
 * frames linearised in the shared sbuf (built per run). */
typedef struct {
    const float *data;
    uint64_t end_fp;                 /* the cursor wraps (loop_on) or the source ends here */
    uint64_t lim_fp;                 /* the interpolating kernels run for cursors in [lo, lim) */
    uint32_t frames;                 /* readable frames */
    uint32_t ch;                     /* channels, 1 or 2 */
    uint32_t copy_end;               /* the pitch-1 copy path may read frames below this */
    uint32_t cubic;                  /* HL_INTERP_*: linear, cubic (lo = one frame), sinc */
    const hl_sinc_level_t *sl;       /* sinc: the level lim_fp and lo were set for */
    const struct hl_loop_view *loop; /* read on the scalar path only */
} hl_src_view_t;

/* The loop as the renderer sees it on this pass (all 0: no loop). */
typedef struct hl_loop_view {
    uint32_t on;      /* frames past le continue at ls */
    uint32_t ls, le;  /* region */
    uint32_t xfade;   /* crossfade frames before le (0 when off) */
    uint32_t wrapped; /* looped once: the frames before ls are the loop's last */
    uint32_t pxfade;  /* the crossfade of the passes that looped (0: none) */
} hl_loop_view_t;

/* The steady-state cache of a voice: one cache line holding everything the
 * mixer needs to mix a voice whose envelope, gains, pitch and source fade
 * are all settled (the state of nearly every voice nearly all the time).
 * process_voice() fills it after a block that left the voice steady; any
 * command that touches the voice clears `steady` (a SET of gain, pan, filter
 * or sends on a 2D voice sets `ramp` instead), a listener move makes
 * `lgen` stale, and a block that would reach the interior's edge (loop
 * point, buffer end) takes the full path. The cursor lives here for good. */
typedef struct {
    const float *data; /* the source, as src.data */
    uint64_t cursor;   /* 32.32 source position (authoritative, steady or not) */
    uint64_t step;     /* 32.32 advance per output frame */
    uint64_t lim_fp;   /* as src.lim_fp: the interpolating kernel runs below it */
    float gl, gr;      /* flat gain pair (envelope x gain pair) */
    uint32_t copy_end; /* as src.copy_end */
    uint32_t frames;   /* as src.frames */
    uint32_t lgen;     /* listener_gen the gains hold for (3D), 0 for 2D */
    uint16_t cubic;
    uint16_t post;   /* 1: mixed into the voice pair, then filtered and sent (voice_post) */
    uint16_t steady; /* 1: the fields above describe the voice */
    uint16_t bus;
    uint16_t ramp;  /* 1: the 2D gain pair ramps (gl/gr): gl/gr above are stale and
                     * process_fast applies the ramp per sample (a SET of gain, pan,
                     * filter or sends keeps a steady voice steady); HL_FAST_HEIGHT:
                     * a steady 3D voice on a layout with height, whose speakers and
                     * gains are its slots' (hc, hq: mixer_surround.c) */
    uint8_t cl, cr; /* the bus planes the pair goes to: 0, 1 (the front pair), or a
                     * 3D voice's speakers on a surround layout (hl_layout_pair) */
} hl_rt_fast_t;
_Static_assert(sizeof(hl_rt_fast_t) <= 64, "the steady line is one cache line");
#define HL_FAST_HEIGHT 2 /* hl_rt_fast_t.ramp of a steady height voice */

typedef struct {
    /* hot: read every block */
    _Alignas(HL_MIX_ALIGN) hl_rt_fast_t f; /* first line: all a steady voice needs */
    hl_src_view_t src;
    hl_stream_t *stream; /* source of a stream voice, else NULL */
    uint32_t flags;
    uint32_t bus;
    uint32_t env_mode;
    uint32_t started;
    uint32_t end_reason;
    uint32_t sw_mode;              /* HL_SW_*: a jump waits for xf to reach 0 */
    hl_ramp_t env;                 /* envelope level 0..1 */
    hl_ramp_t gl, gr;              /* output gain pair (gain * pan law or spatial), same rem */
    float pitch_from, pitch_to;    /* user pitch ramp, evaluated on the HL_PITCH_GRID */
    uint32_t pitch_len, pitch_pos; /* ramp length and frames into it (pos >= len: settled) */
    hl_ramp_t xf;                  /* source fade (seek, switch, underrun recovery); 1 = none */
    hl_ramp_t gain;                /* user gain (3D voices; 2D folds it into gl/gr) */
    float gain_2d, pan_2d;         /* 2D targets, so gain-only or pan-only sets keep the other */
    uint32_t pan_law;              /* HL_PAN_LAW_* of a mono 2D voice (hl_panlaw.h) */
    float pan_ul, pan_ur, pan_at;  /* its law's pair at pan pan_at (valid: pan_ok) */
    uint32_t pan_ok;
    float pos[3], pos_from[3], pos_to[3];
    uint32_t pos_rem, pos_len;
    float doppler;        /* Doppler pitch factor in use (smoothed towards dop_target) */
    float dop_target;     /* the OpenAL 1.1 value for the last computed geometry */
    uint32_t dop_phase;   /* frames into the current HL_PITCH_GRID cell of the smoothing */
    float sp_l, sp_r;     /* 3D gain pair computed for the current position and gain */
    uint8_t sp_cl, sp_cr; /* ... and its speakers (surround; 0, 1 on stereo) */
    uint8_t sp_pend;      /* 1: a slot is still on its old speaker (ramping to 0) */
    uint8_t sp_hmoved;    /* height: the last slot update ramped or moved a slot (else settled) */
    uint32_t sp_far;      /* ... and whether that position was beyond max distance */
    uint32_t sp_gen;      /* listener_gen the pair is valid for; 0 = recompute */
    float min_d, max_d, rolloff;
    uint32_t model;
    float cone_dir[3]; /* the sound cone (hl_voice_params_t); (0,0,0) = none */
    float cone_inner, cone_outer, cone_outer_gain;
    float cone_lp;      /* cone_outer_lp (0 = none) */
    float lp_own;       /* the voice's own low-pass (lp_hz of its params or last SET_FILTER) */
    float hp_own;       /* and high-pass, which the cone's glides keep */
    float lp_cone_now;  /* the spatial low-pass (the lower of the cone's and the distance
                         * curve's) the filter was last pointed at (0 = none) */
    float lp_cone_want; /* the spatial low-pass at the last spatial update (0 = none) */
    uint32_t curve_n;   /* the attenuation curve (hl_voice_params_t); 0 = the model */
    float curve_d[HL_MIX_CURVE_POINTS], curve_db[HL_MIX_CURVE_POINTS];
    uint32_t gen;
    uint32_t slot;
    uint64_t tag;
    const hl_pcm_t *pcm;
    uint32_t live; /* 1 while the slot plays (RT view) */
    /* cold: loops, seeks, streams */
    hl_loop_view_t lv;   /* the loop of the current pass, as src.loop sees it */
    uint32_t loop_on;    /* the loop is taken at its end on this pass */
    uint32_t loops_left; /* extra passes still to play, HL_LOOP_FOREVER */
    uint32_t loop_start, loop_end, loop_xfade;
    /* cold: distance curves (hl_voice_params_t dist_lp, dist_send) */
    hl_dcurve_t dist_lp, dist_send;
    float send_own[HL_MAX_SENDS]; /* the send levels asked for, before dist_send */
    float dsend_now;              /* dist_send's factor the sends were last set with */
    float dsend_want;             /* ... and at the last spatial update (1: none) */
    uint32_t wrapped;             /* looped once: the frames before ls are the loop's last */
    uint32_t seek_frame;
    uint32_t channels;
    hl_stream_t *pending; /* stream to switch to */
    uint64_t scur;        /* stream cursor, 32.32 relative to stream->hist[0] */
    uint32_t ur;          /* 1 while in an underrun episode */
    uint32_t ur_pos;      /* frames into the underrun decay */
    float hold[2];        /* last output sample per channel (pre-gain), decays on underrun */
    float vel[3];         /* source velocity (3D Doppler) */
    float dop_factor;     /* DopplerFactor: 0 = no Doppler */
    uint64_t spulled;     /* frames taken from the current stream's ring since it began */
    /* curved envelope fade (HL_FADE_EQUAL_POWER / LOG): env runs as straight
     * segments between exact curve points HL_FADE_GRID frames apart */
    uint32_t fcurve;     /* HL_FADE_* of the fade in progress (flen > 0) */
    uint32_t fpos, flen; /* frames of the fade covered by env's segments so far, its length */
    uint32_t fup;        /* 1: fading in to 1, 0: fading out to 0 */
    float fs, fbase, fk; /* start level; log fades: level(t) = fbase * e^(fk * t) */
    uint64_t end_frame;  /* ENDED: engine frame just after the voice's last block */
    /* post stage: per-voice filter, occlusion gain, sends (voice_post) */
    hl_vfilter_t vf;
    hl_ramp_t occ;                  /* occlusion gain (1 = none) */
    hl_ramp_t send[HL_MAX_SENDS];   /* send levels (0 = none) */
    uint8_t send_bus[HL_MAX_SENDS]; /* bus indices */
    uint32_t post;                  /* the voice needs the post stage now */
    /* binaural (hl_mixer_set_hrtf): the convolver state is m->hrtf_v[slot] */
    uint32_t hrtf;  /* 1: a 3D voice started with HRTF on (then post is always 1) */
    uint32_t htail; /* frames of convolver ring-out still to play after the source ended */
    hl_ramp_t lfe;  /* LFE send level (surround; 0 = none) */
    /* a 3D voice on a layout with height (m->height): gl = gr = the
     * distance gain, and its pan, up to three speakers (hl_layout_pan3),
     * comes after the post stage (mixer_surround.c) */
    hl_ramp_t hq[3];  /* each slot's pan gain, ramped */
    uint8_t hc[3];    /* each slot's speaker (bus plane) */
    uint8_t sp_hc[3]; /* the speakers and gains wanted at the last spatial update */
    float sp_hq[3];
    float hdir[3]; /* source direction in the listener's frame, with the 3D gains */
    /* modulation slot (hl_voice_params_t mod, mod_gen, mod_base); mod 0: none */
    uint32_t mod, mod_gen, mod_seq;
    float mod_base;
    uint32_t mod_what;           /* HL_MOD_GAIN, HL_MOD_FILTER: what it takes from the slot */
    uint32_t mod_prev, mod_next; /* its slot's voice list (voice slot + 1; 0: none) */
} hl_rt_voice_t;

/* RT state of a modulation slot (voice_set.c): the generation it serves,
 * its voices (an intrusive list), its shared filter glide, set up by its
 * first filter change, and its last change as the command left it: each
 * voice takes that change as it is next touched (mixed, or a command of
 * its own), pend set until every voice on the list has been mixed once. */
typedef struct {
    uint32_t gen;
    uint32_t vf_on;
    uint32_t head;                 /* the voices attached to it, live (voice slot + 1; 0: none) */
    uint32_t pend;                 /* 1: the change below is not yet taken by every voice */
    uint32_t c_gen, c_seq, c_what; /* the change: the generation and seq it was sent
                                    * for (HL_CMD_MOD gen, seq), HL_MOD_* */
    float c_factor, c_max;         /* HL_MOD_GAIN: factor, max_gain */
    hl_voice_set_t c_set;          /* its SET (ramp, cutoffs; mask and gain per voice) */
    hl_vf_change_t c_at;           /* HL_MOD_FILTER: the shared glide just after it */
    hl_vf_share_t vf;
} hl_rt_mod_t;

/* RT state of a bus (index HL_MASTER: the master). */
typedef struct {
    hl_fx_t *fx[HL_MAX_FX]; /* insert chain in order (the control side owns the memory) */
    uint32_t n_fx;
    hl_ramp_t mute;  /* 1 = audible, 0 = muted, ramped */
    hl_ramp_t duck;  /* ducking gain, ramped over each block to the rules' target */
    float peak;      /* this block's peak (post gain) */
    uint32_t voices; /* voices mixed into it this block (ducking's voice mode) */
} hl_rt_bus_t;

typedef struct {
    uint32_t on, side, target;
    hl_duck_t d;
} hl_rt_duck_t;

typedef struct {
    _Atomic uint64_t blocks, frames, cmds_applied, cmd_cap_hits, limiter_blocks, wait_max_ns;
    _Atomic uint64_t underruns;
    _Atomic uint32_t voices_mixed, voices_virtual, stream_voices, hrtf_voices;
    _Atomic uint32_t peak[2], bus_peak[HL_MAX_BUSES]; /* float bit patterns */
    _Atomic uint32_t out_peak[HL_LAYOUT_MAX_CH];      /* surround: every channel's (bits) */
    _Atomic uint32_t duck_gain[HL_MAX_BUSES];         /* float bit patterns */
    _Atomic uint64_t wait_hist[HL_MIX_WAIT_BUCKETS];
    _Atomic uint64_t sched_late, sched_late_max; /* scheduled commands drained after their frame */
    _Atomic uint64_t
        sched_done; /* scheduled commands applied (the control side counts in flight) */
} hl_mix_stats_atomic_t;

struct hl_mixer {
    hl_mixer_config_t cfg;
    uint32_t slots;
    uint32_t ev_capacity;

    /* control side */
    hl_ctl_voice_t *ctl;
    uint32_t *free_stack;
    uint32_t n_free;
    uint32_t n_active_ctl; /* PLAYING + PAUSED, not stolen/stopping */
    uint64_t seq;
    uint32_t retire_inflight; /* stream switches whose STREAM_RETIRED was not polled yet */
    hl_listener_state_t listener_ctl;
    hl_listener_state_t lis_x_ctl[HL_MIX_LISTENERS - 1]; /* listeners 1.. as last sent */
    uint32_t lis_on_ctl;                                 /* bit k: listener k + 1 is on */
    /* every listener on the engine's timeline (hl_mixer_listeners_at): the
     * states in effect from lis_base on (lis_base_on: bit k = listener k is
     * on, bit 0 always), then the moves and switches of any listener index
     * pushed for later frames, in frame order */
    hl_listener_state_t lis_base[HL_MIX_LISTENERS];
    uint32_t lis_base_on;
    uint32_t lis_n;
    struct {
        uint64_t frame;
        uint32_t index; /* the listener (0..HL_MIX_LISTENERS-1) */
        uint32_t on;    /* 0: turned off (never index 0) */
        hl_listener_state_t s;
    } lis_tl[HL_LIS_TIMELINE];
    float bus_gain_ctl[HL_NUM_GAINS];
    float bus_mute_ctl[HL_NUM_GAINS];
    hl_graph_t graph_ctl;
    hl_fx_t *fx_ctl[HL_NUM_GAINS][HL_MAX_FX]; /* the chains as last sent */
    uint32_t n_fx_ctl[HL_NUM_GAINS];
    uint32_t fx_inflight; /* effects dropped from a chain whose FX_RETIRED was not polled yet */
    uint32_t duck_buses_ctl[HL_MAX_DUCKS]; /* per rule: bits of its sidechain and target, 0 = off */
    float bus_send_ctl[HL_MAX_BUSES][HL_BUS_SENDS]; /* bus send levels as last sent */
    /* bus gains and mutes on the engine's timeline (hl_mixer_buses_heard_at):
     * in effect at the clock, then the changes pushed for later frames */
    float bus_gain_base[HL_NUM_GAINS];
    float bus_mute_base[HL_NUM_GAINS];
    uint32_t bus_n;
    struct {
        uint64_t frame;
        int32_t gi;
        int32_t mute; /* 1: value is the mute, 0: the gain */
        float value;
    } bus_tl[HL_LIS_TIMELINE];
    /* Per bus index: how many times a bus was created on it (bumped when a
     * GRAPH command makes it live; bus_gen the same count on the audio
     * thread, bumped when that command applies). A gain or mute command
     * carries the count it was pushed with; one scheduled for a bus that
     * was removed before its frame finds another count there and is dropped
     * instead of reaching the bus that reused the index. Chosen over
     * cancelling the bus's scheduled commands at its removal: O(1) on the
     * audio thread, no heap sweep and no extra command (a removal needs no
     * ring room beyond its GRAPH), and it also covers commands still in the
     * ring. Graph changes are never scheduled (time_ops.c), so both counts
     * advance in the same order. */
    uint32_t bus_gen_ctl[HL_NUM_GAINS];
    uint32_t mod_gen_ctl[HL_MIX_MODS]; /* modulation slots: generation, odd while taken */
    uint32_t mod_seq_ctl[HL_MIX_MODS]; /* ... and changes sent (hl_mixer_mod_set) */

    /* rings */
    hl_ring_t cmd_ring;
    hl_ring_t ev_ring;

    /* RT side */
    _Alignas(HL_MIX_ALIGN) hl_rt_voice_t *rt;
    uint32_t *rt_active; /* dense list of live slots */
    uint32_t n_rt_active;
    hl_listener_state_t listener;
    hl_listener_state_t lis_x[HL_MIX_LISTENERS - 1]; /* listeners 1.. (audio thread) */
    uint32_t lis_on;                                 /* bit k: listener k + 1 is on */
    uint64_t clock;            /* engine frames rendered before the current internal block */
    float sound_speed;         /* m/s (cfg, or HL_SPEED_OF_SOUND) */
    float dop_coef;            /* Doppler one-pole coefficient per HL_PITCH_GRID frames */
    uint32_t listener_gen;     /* bumped by every listener command; never 0 */
    uint32_t bus_dirty;        /* buses whose accumulators hold last block's mix (bit per bus) */
    struct hl_mix_part *parts; /* the partitioned mix (hl_mix_part.h), NULL: one thread */
    uint32_t part_np;          /* planes per bus of its accumulators (HL_PART_ACC) */
    hl_ramp_t bus_gain[HL_NUM_GAINS];
    hl_rt_bus_t bus[HL_NUM_GAINS];
    uint32_t bus_gen[HL_NUM_GAINS]; /* bus_gen_ctl as applied */
    hl_graph_t graph;
    hl_ramp_t bus_send[HL_MAX_BUSES][HL_BUS_SENDS]; /* bus send levels, ramped */
    hl_rt_duck_t duck[HL_MAX_DUCKS];
    hl_limiter_t limiter;
    const hl_mix_kernels_t *k;
    const hl_hrtf_set_t *hrtf;   /* binaural 3D voices (NULL: off); set before the audio thread */
    const hl_sinc_t *sinc;       /* HL_MIX_SINC tables (NULL: sinc voices use cubic) */
    const hl_sinc_kernels_t *sk; /* their kernels */
    hl_hrtf_voice_t *hrtf_v;     /* one per slot when cfg.hrtf, else NULL */
    uint32_t hrtf_mixed;         /* voices rendered binaurally in the current block */
    uint32_t no_fast_ramp;       /* 1: a ramped SET sends its voice to the full path
                                  * (hl_mixer_set_fast_ramps: tests, bench) */
    hl_vf_cache_t vf_cache;      /* voice filters' block designs, shared (fx_vfdesign.c) */
    hl_rt_mod_t rt_mod[HL_MIX_MODS];     /* modulation slots as the audio thread runs them */
    uint64_t mod_busy[HL_MIX_MODS / 64]; /* bit per slot whose filter glides (voice_set.c) */
    uint64_t mod_pend[HL_MIX_MODS / 64]; /* bit per slot with a change pending (pend) */
    uint32_t mod_pend_any;               /* some bit of mod_pend set */
    uint16_t *mod_of;                    /* per voice slot: the modulation slot whose
                                          * list it is on (1..HL_MIX_MODS), 0: none */
    uint32_t nch;                        /* output channels and bus planes (cfg.layout's) */
    int32_t lfe_ch;                      /* the LFE plane, -1 if the layout has none */
    uint32_t height; /* 1: the layout has height (3D voices: hl_surround_height_*) */
    /* 1: a steady height voice takes the full path (hl_mixer_set_fast_height: tests) */
    uint32_t no_fast_height;
    /* buses, then master: one plane per output channel (nch used), and two
     * planes of padding: a bus's stride (10 KiB) and the buffers below stay
     * at 2 KiB modulo 4 KiB, as with the two stereo planes: the voice
     * buffers meet the bus planes in the L1 sets and the store buffer's
     * 4 KiB address check as they did on stereo-only builds */
    _Alignas(HL_MIX_ALIGN) float acc[HL_NUM_GAINS][HL_LAYOUT_MAX_CH + 2][HL_MIX_BLOCK];
    _Alignas(HL_MIX_ALIGN) float vbuf[2][HL_MIX_BLOCK]; /* a post-stage voice's own pair */
    _Alignas(HL_MIX_ALIGN) float scratch[2][HL_MIX_BLOCK];
    _Alignas(HL_MIX_ALIGN) float hbuf[2][HL_MIX_BLOCK]; /* a binaural voice's ear pair */
    /* shared by all stream voices: the frames one run reads, linearised */
    _Alignas(HL_MIX_ALIGN) float sbuf[HL_STREAM_SCRATCH * 2];

    hl_mix_meter_t meter; /* this call's level figures (hl_mixer_meter_rt) */

    hl_mix_stats_atomic_t stats;

    /* time (mixer_cmdq.c, mixer_sched.c). Control side: the frame the commands pushed now
     * are for, scheduled commands pushed so far, the open bundle (slot 0
     * holds its header, so the whole bundle is one ring write). */
    uint64_t at_ctl;
    uint64_t sched_pushed;
    /* who the commands pushed now are for: the owner tag of voices played now,
     * the id scheduled commands are reported for (sched_fn), and how many more
     * scheduled commands may be pushed (hl_mixer_sched_limit); the tag of
     * commands not on a voice (hl_mixer_cmd_tag) */
    uint32_t owner_ctl, charge_ctl, sched_limit, tag_ctl;
    hl_sched_fn sched_fn;
    void *sched_user;
    hl_cmd_t *bundle; /* HL_BUNDLE_MAX + 1 */
    uint32_t bundle_open, n_bundle;
    uint64_t bundle_frame; /* the engine frame the open bundle began on: its "now" */
    /* the "now"s hl_mixer_effect_frame answered since hl_mixer_now_track
     * (how many, the lowest and the highest): the dispatcher's check */
    uint32_t now_reads;
    uint64_t now_lo, now_hi;
    /* RT side: the schedule, a binary min-heap over a pool of commands */
    hl_sched_ent_t *heap; /* HL_SCHED_MAX */
    hl_cmd_t *pool;       /* HL_SCHED_MAX */
    uint32_t *pool_free;  /* stack of free pool indices */
    uint32_t n_heap, n_pool_free;
    uint64_t sched_seq;
    uint32_t splits; /* blocks cut at a scheduled frame in this call (HL_SCHED_SPLITS) */
    /* the clock: (frame, CLOCK_MONOTONIC ns) of the last call's start, a
     * seqlock so a reader never sees one without the other */
    _Atomic uint32_t clk_seq;
    _Atomic uint64_t clk_frame, clk_ns;
    /* 1 + the frame of the last call whose ring drain is over (0: none):
     * with clk_frame, where a command pushed now applies (hl_mixer_phase) */
    _Atomic uint64_t clk_drained;
    _Atomic uint32_t clk_tail; /* the ring's read index when that drain ended */
    _Atomic uint32_t clk_len;  /* that call's frames: the next one starts after them */
};

/* The timelines' changes up to this frame are folded into their base: a
 * question about a frame up to HL_TL_KEEP before the clock is still
 * answered exactly (the voice manager asks about the frame it ranks for,
 * which the clock may have passed by the time it polls). */
static inline uint64_t tl_settled(const hl_mixer_t *m) {
    uint64_t now = hl_mixer_frames(m);
    return now > HL_TL_KEEP ? now - HL_TL_KEEP : 0;
}

/* mixer_bus.c: the gain-array index of a bus (-1 = master), or -1 if it is not live. */
int hl_mixer_gain_index(const hl_mixer_t *m, int bus);
/* mixer_bus.c: 1 if bus and every send with a level are live buses. */
int hl_mixer_routes_live(const hl_mixer_t *m, uint32_t bus, const uint32_t *send_bus,
                         const float *send_gain);
/* mixer_bus.c, audio thread: applies a GRAPH, FX, FX_PARAM or DUCK command. */
void hl_bus_apply_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns);
/* mixer_bus.c, audio thread: runs the bus tree over the block's bus sums
 * (`buses`: bits of the buses voices reached) into interleaved out. */
void hl_bus_render_rt(hl_mixer_t *m, float *out, uint32_t n, uint32_t buses,
                      float bus_peak[HL_MAX_BUSES]);

/* levels.c, audio thread: scales planar l/r by the product of three
 * ramps over n frames (exact at every frame's end) and advances them. */
void hl_gain3_rt(float *l, float *r, uint32_t n, hl_ramp_t *a, hl_ramp_t *b, hl_ramp_t *c);

/* mixer_surround.c, audio thread, surround layouts only (m->nch > 2):
 * slots: the 3D voice's desired pair (sp_cl/sp_cr, gains in l, r) onto its
 * slots f.cl/f.cr (a shared speaker keeps its slot; a slot whose speaker
 * changes ramps to 0 first: the gain out becomes 0 and sp_pend 1); lfe: adds the
 * voice's LFE send of its pair l/r (n frames) to its bus's LFE plane,
 * advancing the send's ramp; gain: bus b's planes beyond the front pair
 * scaled like the front pair (copies of its ramps: call before the front
 * pair's hl_gain3_rt); join: those planes' peak (max with `peak`, the
 * front pair's; each plane's peak and sum of squares also into bus b's
 * meter figures) and their sum into the parent; interleave: the master's
 * planes into out (nch per frame). */
void hl_surround_slots_rt(hl_rt_voice_t *v, float *l, float *r);
void hl_surround_lfe_rt(hl_mixer_t *m, hl_rt_voice_t *v, const float *l, const float *r,
                        uint32_t n);
/* height (m->height, a 3D voice): slots puts the speakers and gains of
 * the last spatial update (sp_hc/sp_hq) on the voice's three slots (a
 * speaker already on a slot keeps it; a slot whose speaker changes ramps
 * to 0 over one block first, sp_pend 1) and sets their ramps over n (sp_hmoved:
 * 1 when one ramps or waits, so the voice is not made steady after this block;
 * 0: settled, the next update with the same speakers would change nothing);
 * mix adds mono y (the voice's block after the post stage) times each
 * slot's ramped gain to that slot's plane of bus `bus` (ramps not moved);
 * advance moves the slots' ramps on by n frames (once per block). */
void hl_surround_height_slots_rt(hl_rt_voice_t *v, uint32_t n);
void hl_surround_height_mix_rt(hl_mixer_t *m, const hl_rt_voice_t *v, uint32_t bus, const float *y,
                               uint32_t n);
void hl_surround_height_advance_rt(hl_rt_voice_t *v, uint32_t n);
/* on = 0: a steady height voice takes the full path instead (tests comparing the two;
 * mixer_ctl.c, main thread, before the audio thread runs) */
void hl_mixer_set_fast_height(hl_mixer_t *m, int on);
/* a settled height voice with no post stage: hl_voice_height_rt's sums for its pair
 * l/r in one pass (1), else 0 (nothing done: a slot ramps, two on one plane) */
int hl_surround_height_flat_rt(hl_mixer_t *m, const hl_rt_voice_t *v, const float *l,
                               const float *r, uint32_t n);
/* fx: bus b's insert chain on all its planes (hl_fx_process_planes_rt) */
void hl_surround_fx_rt(hl_mixer_t *m, uint32_t b, uint32_t n);
void hl_surround_gain_rt(hl_mixer_t *m, uint32_t b, uint32_t n, const hl_ramp_t *duck);
float hl_surround_join_rt(hl_mixer_t *m, uint32_t b, uint32_t n, float peak);
void hl_surround_interleave_rt(const hl_mixer_t *m, float *out, uint32_t n);
/* the master meter's peak and sum of squares per channel of interleaved out */
void hl_surround_meter_rt(hl_mixer_t *m, const float *out, uint32_t frames);
/* mixer_multi.c, audio thread: one block of n frames of a 2D PCM voice with
 * the output's channels (src.ch == m->nch > 2): each channel into its bus
 * plane at envelope x gain (no pan, LFE send or post stage), the cursor,
 * loops, seeks, pitch and a release's silent tail as on the full path.
 * Returns 1 when its source ended. */
int hl_multi_voice_rt(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, uint64_t now_ns);
_Static_assert(HL_MIX_MAX_CH == HL_LAYOUT_MAX_CH, "one channel limit");

/* voice_cmd.c, audio thread: applies one command now. */
void hl_cmd_apply_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns);

/* mixer_sched.c, audio thread: the schedule hands commands back to the
 * caller, one at a time, through an iterator:
 *
 *   hl_sched_it_t it;
 *   hl_sched_begin_rt(m, &it);
 *   for (const hl_cmd_t *c; (c = hl_sched_drain_next_rt(m, &it)) != NULL;)
 *       hl_cmd_apply_rt(m, c, now_ns);
 *
 * drain_next drains the ring (bundles whole, at most cfg.cmds_per_block
 * commands and, when it->deadline is set, until cfg.clock_ns passes it,
 * looked at every HL_DRAIN_CHECK commands; commands for a later frame go to
 * the schedule, a CANCEL sweeps it) and returns the commands to apply now;
 * due_next returns the scheduled commands due at or before m->clock. A
 * command returned stays valid until the next call on the same iterator,
 * which also does what follows its application (frees its pool slot, counts
 * it done): call until NULL. */
typedef struct {
    /* the command handed out last: pool index + 1 to free (0: none), and
     * whether it counts as one scheduled command done */
    uint32_t free_idx, done;
    /* drain: the span batch being read, the position in it, the bundle
     * being handed out (members bj of bn), the commands taken so far */
    hl_ring_spans_t s;
    uint32_t avail, k, cap, applied;
    uint32_t bj, bn;
    uint64_t deadline; /* drain: stop once the clock passes it (0: no time limit) */
    uint32_t check;    /* drain: look at the clock once applied reaches this */
    uint8_t reading, in_bundle, yield, over;
    /* drain: a CANCEL sweeping the heap (entry ci next, keep kept so far),
     * the pool index + 1 of a cancelled PLAY whose STOP comes next */
    const hl_cmd_t *cancel;
    uint32_t ci, keep, stop_idx;
    hl_cmd_t stop;
} hl_sched_it_t;
void hl_sched_begin_rt(hl_mixer_t *m, hl_sched_it_t *it);
const hl_cmd_t *hl_sched_drain_next_rt(hl_mixer_t *m, hl_sched_it_t *it);
const hl_cmd_t *hl_sched_due_next_rt(hl_mixer_t *m, hl_sched_it_t *it);
/* the frame of the next scheduled command (UINT64_MAX: none) */
uint64_t hl_sched_next_rt(const hl_mixer_t *m);
/* The frame the current block is cut at for the schedule: the next
 * scheduled frame, or, once m->splits reached HL_SCHED_SPLITS in this call,
 * the first HL_SCHED_GRID multiple at or after it (UINT64_MAX: none). */
uint64_t hl_sched_cut_rt(hl_mixer_t *m);
/* publishes (m->clock, now_ns) as the clock hl_mixer_clock() reads */
void hl_sched_clock_rt(hl_mixer_t *m, uint64_t now_ns);
/* Applies the scheduled commands due at m->clock (hl_cmd_apply_rt). */
void hl_sched_apply_due_rt(hl_mixer_t *m, uint64_t now_ns);
/* Applies what the ring holds, for at most cfg.drain_budget_pct of a call of
 * `frames` on cfg.clock_ns from the drain's own start (no clock: the count
 * cap alone). */
void hl_sched_apply_drained_rt(hl_mixer_t *m, uint32_t frames, uint64_t now_ns);

/* mixer_cmdq.c, control side: every command goes out through here (the
 * bundle being built, or the ring), stamped with its frame. */
int hl_cmd_push(hl_mixer_t *m, hl_cmd_t *c);

/* levels.c, audio thread: sum of x[t]^2 over n samples (partial sums). */
double hl_sumsq_rt(const float *x, uint32_t n);
/* levels.c, audio thread: each channel's sum of squares of interleaved
 * stereo, added to *sl and *sr. */
void hl_sumsq_stereo_rt(const float *x, uint32_t frames, double *sl, double *sr);

/* levels.c, audio thread: out[2t] = l[t], out[2t + 1] = r[t] for n frames. */
void hl_interleave_rt(float *out, const float *l, const float *r, uint32_t n);

/* levels.c, audio thread: max(pk, max |x[t]|); NaN samples are ignored. */
float hl_peak_abs_rt(const float *x, uint32_t n, float pk);
/* levels.c, audio thread: the peak of each channel of interleaved stereo
 * (NaN samples ignored). */
void hl_peak_stereo_rt(const float *x, uint32_t frames, float *pl, float *pr);

/* Ramps (the voice files and mixer_bus.c, audio thread): linear from cur to
 * target over rem frames. */
/* 1 when every coefficient of a gain ramp is finite. */
static inline int hl_gains_finite(const hl_gain_ramp_t *g) {
    float t = g->l0 + g->dl + g->ql + g->r0 + g->dr + g->qr;
    return t - t == 0.0f;
}

static inline float ramp_after(const hl_ramp_t *r, uint32_t n) {
    if (r->rem == 0 || n >= r->rem) return r->target;
    return r->cur + (r->target - r->cur) * ((float)n / (float)r->rem);
}

static inline void ramp_advance(hl_ramp_t *r, uint32_t n) {
    r->cur = ramp_after(r, n);
    r->rem = n >= r->rem ? 0 : r->rem - n;
}

static inline void ramp_set(hl_ramp_t *r, float target, uint32_t frames) {
    r->target = target;
    r->rem = frames;
    if (frames == 0) r->cur = target;
}

/* Frames to ramp over for a requested ramp (0 -> one internal block). */
static inline uint32_t hl_ramp_len(uint32_t frames) {
    return frames ? frames : HL_MIX_BLOCK;
}

/* Voice slot s is on the list of a modulation slot with a change pending
 * (any thread inside a block: the bits change only in the command drain
 * and after the block's voices, voice_set.c). */
static inline int hl_mod_pending(const hl_mixer_t *m, uint32_t s) {
    const uint32_t md = m->mod_of[s];
    return md && ((m->mod_pend[(md - 1) / 64] >> ((md - 1) % 64)) & 1u);
}

/* Its slot's pending change is still to be given to v (hl_voice_mod_take_rt
 * gives it): reads v and the slot alone. */
static inline int hl_mod_due(const hl_mixer_t *m, const hl_rt_voice_t *v) {
    const hl_rt_mod_t *sl = &m->rt_mod[v->mod - 1];
    return sl->pend && v->mod_gen == sl->c_gen && v->live &&
           (int32_t)(sl->c_seq - v->mod_seq) > 0 && (sl->c_what & v->mod_what);
}

/* Voice slot s has its slot's pending change still to take (what a mix
 * worker checks: the voice is then left to the audio thread). */
static inline int hl_mod_due_at(const hl_mixer_t *m, uint32_t s) {
    return m->mod_pend_any && hl_mod_pending(m, s) && hl_mod_due(m, &m->rt[s]);
}

#endif /* HL_MIXER_INTERNAL_H */
