/*
 * music_table.h - the transition table of a `[music NAME]` section (issue
 * 26): its states (a state plays a cue) and its transitions, and the plan a
 * transition makes once the frame it waits for is known.
 *
 * A transition line reads
 *
 *     transition = FROM TO WHEN HOW [tail]
 *
 * FROM: a state or `*` (any); TO: a state. WHEN: now | beat | bar |
 * bars:N (the N-th next bar, 1..64) | marker | end (the end of the current
 * segment). HOW: xfade:MS[:CURVE] (a crossfade of MS ms, CURVE linear,
 * equal-power (the default) or log) | fadeout:MS[:CURVE] (the old track
 * fades out over MS, then the new one starts) | segment:CUE[:MS] (the cue
 * CUE plays from the frame, the new state's track starts when it ends; the
 * old track fades out over MS, default 0). `tail` lets the old track ring
 * out to the end of its current pass instead of fading it (a looping
 * track stops where its loop would wrap, a one-shot at its end).
 *
 *     layer = STATE CUE
 *
 * adds a stem to STATE: it starts with the state's track on the same
 * frame and stops with it (layers, music_ops.c).
 *
 * The plan is pure arithmetic on engine frames: the caller finds the WHEN
 * frame on the current track's beat map (hld_vm_next_beat) and the
 * segment's length, and schedules the stop and the plays on those frames
 * (hl_mixer_at), so a transition starts on its bar's exact sample.
 * Main thread; no allocation.
 */
#ifndef HLD_MUSIC_TABLE_H
#define HLD_MUSIC_TABLE_H

#include <stdint.h>

#include "hl_proto.h"

#define HLD_MUSIC_MAX_STATES   32
#define HLD_MUSIC_MAX_TRANS    64
#define HLD_MUSIC_MAX_BARS     64
#define HLD_MUSIC_MAX_LAYERS   16 /* layer lines of a section */
#define HLD_MUSIC_STATE_LAYERS 8  /* layers of one state */

typedef enum {
    HLD_MW_NOW,
    HLD_MW_BEAT,
    HLD_MW_BAR,
    HLD_MW_BARS, /* bars: the N-th next bar */
    HLD_MW_MARKER,
    HLD_MW_END,
} hld_music_when_t;

typedef enum {
    HLD_MH_XFADE,
    HLD_MH_FADEOUT, /* fade out, then start */
    HLD_MH_SEGMENT, /* a transition segment in between */
} hld_music_how_t;

typedef struct {
    int from; /* state index, -1 = any */
    int to;
    hld_music_when_t when;
    uint32_t bars; /* HLD_MW_BARS: 1..HLD_MUSIC_MAX_BARS */
    hld_music_how_t how;
    float fade_ms;                 /* xfade / fadeout length, segment: the old track's fade-out */
    uint8_t curve;                 /* HL_CURVE_* */
    uint8_t tail;                  /* let the old track ring out */
    char segment[HL_MAX_NAME + 1]; /* HLD_MH_SEGMENT: the cue played in between */
} hld_music_trans_t;

typedef struct {
    char name[HL_MAX_NAME + 1];
    char state[HLD_MUSIC_MAX_STATES][HL_MAX_NAME + 1];
    char cue[HLD_MUSIC_MAX_STATES][HL_MAX_NAME + 1];
    uint32_t nstates;
    hld_music_trans_t trans[HLD_MUSIC_MAX_TRANS];
    uint32_t ntrans;
    /* layers (vertical layering): each plays its cue with its state's
     * track, started on the same frame, stopped with it */
    uint8_t layer_state[HLD_MUSIC_MAX_LAYERS];
    char layer_cue[HLD_MUSIC_MAX_LAYERS][HL_MAX_NAME + 1];
    uint32_t nlayers;
} hld_music_def_t;

/* `state = NAME CUE`: adds a state. 0, or -1 with *why. */
int hld_music_add_state(hld_music_def_t *m, const char *val, const char **why);
/* `transition = ...` (above): adds one; its states must be declared first.
 * 0, or -1 with *why naming the part. */
int hld_music_add_transition(hld_music_def_t *m, const char *val, const char **why);
/* `layer = STATE CUE`: a stem played with STATE's track (declared first),
 * sample-locked to it; its gain follows the cue's own bindings (a `bind =
 * PARAM gain ...` line: one parameter drives every layer through its
 * curve). 0, or -1 with *why. */
int hld_music_add_layer(hld_music_def_t *m, const char *val, const char **why);
/* Line i of the section as the cue sheet sets it again: the states
 * (`state`), then the layers (`layer`), then the transitions
 * (`transition`), in the order the sheet gave them. *key gets the key, buf
 * (cap bytes) the value. 0, or -1 past the last line. */
int hld_music_line(const hld_music_def_t *m, unsigned i, const char **key, char *buf, size_t cap);
/* The index of state name, or -1. */
int hld_music_state(const hld_music_def_t *m, const char *name);
/* The transition from `from` (-1: nothing plays) to `to`: an exact FROM
 * line first, else a `*` line, else NULL (the caller starts `to` now, as a
 * hard cut). */
const hld_music_trans_t *hld_music_find(const hld_music_def_t *m, int from, int to);

/* What a transition does, in engine frames. */
typedef struct {
    uint64_t old_stop;    /* the old track's fade-out begins (UINT64_MAX: tail, not stopped) */
    uint32_t old_fade;    /* its length */
    uint64_t seg_start;   /* the segment starts (UINT64_MAX: none) */
    uint64_t new_start;   /* the new state's track starts */
    uint32_t new_fade_in; /* its fade-in */
    uint8_t curve;
} hld_music_plan_t;
/* at: the WHEN frame; rate: engine Hz; seg_frames: the segment's length in
 * engine frames (HLD_MH_SEGMENT). */
void hld_music_plan(const hld_music_trans_t *t, uint64_t at, uint32_t rate, uint64_t seg_frames,
                    hld_music_plan_t *p);

#endif /* HLD_MUSIC_TABLE_H */
