/*
 * mixer_internal.h - the layout shared by the control side (mixer_ctl.c) and
 * the RT side (mixer_rt.c) of the mixer. Not installed, not for other modules.
 *
 * One hl_mixer_t sits at the start of the caller's memory block, followed by
 * 64-byte aligned arrays:
 *
 *   [hl_mixer_t][ctl_voice x slots][rt_voice x slots][free stack][rt active list]
 *   [cmd ring storage][event ring storage]
 *
 * The control arrays are touched by the main thread only, the rt arrays by the
 * audio thread only; the two rings are the only shared memory, plus the stats
 * block (relaxed atomics, written by the audio thread only).
 */
#ifndef HL_MIXER_INTERNAL_H
#define HL_MIXER_INTERNAL_H

#include <stdatomic.h>

#include "hl_dsp.h"
#include "hl_mixer.h"
#include "hl_ring.h"
#include "mix_kernels.h"

#define HL_MIX_ALIGN 64
#define HL_FP_ONE    ((uint64_t)1 << 32) /* 32.32 fixed-point cursor: one source frame */
#define HL_NUM_GAINS (HL_NUM_BUSES + 1)  /* bus gains then the master gain */
#define HL_MASTER    HL_NUM_BUSES

/* ---- commands (main -> audio) ------------------------------------------- */
enum { HL_CMD_PLAY = 1, HL_CMD_STOP, HL_CMD_SET, HL_CMD_LISTENER, HL_CMD_BUS };

typedef struct {
    uint32_t type;
    uint32_t slot;
    uint32_t gen;
    uint32_t pad_;
    uint64_t enq_ns; /* now_ns of the control call, for the ring-wait histogram */
    union {
        hl_voice_params_t play;
        struct {
            uint32_t release_frames;
            int32_t reason;
        } stop;
        hl_voice_set_t set;
        hl_listener_state_t listener;
        struct {
            int32_t bus; /* 0..HL_NUM_BUSES-1, or HL_MASTER */
            float gain;
            uint32_t ramp_frames;
        } bus;
    } u;
} hl_cmd_t;

/* ---- control view of a slot ---------------------------------------------- */
typedef struct {
    uint32_t gen;    /* generation of the voice in the slot (0: never used) */
    uint32_t state;  /* HL_MIX_STATE_* */
    uint32_t stolen; /* stolen voices are stale for the API while they fade */
    uint32_t pad_;
    uint64_t seq; /* play order, for "oldest among equals" */
    hl_voice_params_t params;
} hl_ctl_voice_t;

/* ---- RT state of a slot --------------------------------------------------- */
typedef struct {
    float cur, target;
    uint32_t rem; /* frames until cur reaches target; 0 = settled */
} hl_ramp_t;

enum { HL_ENV_RUN = 0, HL_ENV_RELEASE, HL_ENV_PAUSING, HL_ENV_PAUSED };

typedef struct {
    /* hot: read every block */
    const float *data;
    uint64_t cursor; /* 32.32 source position */
    uint64_t end_fp; /* frames << 32 */
    uint32_t frames, channels;
    uint32_t live; /* 1 while the slot plays (RT view) */
    uint32_t flags;
    uint32_t bus;
    uint32_t env_mode;
    uint32_t started;
    uint32_t end_reason;
    hl_ramp_t env;         /* envelope level 0..1 */
    hl_ramp_t gl, gr;      /* output gain pair (gain * pan law or spatial), same rem */
    hl_ramp_t pitch;       /* user pitch */
    hl_ramp_t gain;        /* user gain (3D voices; 2D folds it into gl/gr) */
    float gain_2d, pan_2d; /* 2D targets, so gain-only or pan-only sets keep the other */
    float pos[3], pos_from[3], pos_to[3];
    uint32_t pos_rem, pos_len;
    float doppler;
    float min_d, max_d, rolloff;
    uint32_t model;
    uint32_t gen;
    uint32_t slot;
    uint64_t tag;
    const hl_pcm_t *pcm;
} hl_rt_voice_t;

typedef struct {
    _Atomic uint64_t blocks, frames, cmds_applied, cmd_cap_hits, limiter_blocks, wait_max_ns;
    _Atomic uint32_t voices_mixed, voices_virtual;
    _Atomic uint32_t peak[2], bus_peak[HL_NUM_BUSES]; /* float bit patterns */
    _Atomic uint64_t wait_hist[HL_MIX_WAIT_BUCKETS];
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
    hl_listener_state_t listener_ctl;
    float bus_gain_ctl[HL_NUM_GAINS];

    /* rings */
    hl_ring_t cmd_ring;
    hl_ring_t ev_ring;

    /* RT side */
    _Alignas(HL_MIX_ALIGN) hl_rt_voice_t *rt;
    uint32_t *rt_active; /* dense list of live slots */
    uint32_t n_rt_active;
    hl_listener_state_t listener;
    hl_ramp_t bus_gain[HL_NUM_GAINS];
    hl_limiter_t limiter;
    const hl_mix_kernels_t *k;
    _Alignas(HL_MIX_ALIGN) float acc[HL_NUM_BUSES][2][HL_MIX_BLOCK];
    _Alignas(HL_MIX_ALIGN) float scratch[2][HL_MIX_BLOCK];

    hl_mix_stats_atomic_t stats;
};

/* Frames to ramp over for a requested ramp (0 -> one internal block). */
static inline uint32_t hl_ramp_len(uint32_t frames) {
    return frames ? frames : HL_MIX_BLOCK;
}

#endif /* HL_MIXER_INTERNAL_H */
