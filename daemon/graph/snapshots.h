/*
 * snapshots.h - mixer snapshots: named sets of bus and effect settings that
 * blend over the mix the clients set (main thread only).
 *
 * A snapshot holds up to HL_SNAP_ENTRIES settings: a bus's fader (dB), its
 * mute, or one parameter of one of its insert effects. Its intensity I runs
 * from 0 to a target in [0, 1] over its fade (START), and back to 0 (STOP),
 * linearly in engine frames. The mix heard is, per setting, the base value
 * (what BUS / FX requests set) blended by every active snapshot in order of
 * priority (lowest first; equal priorities in the order they started):
 *
 *     v = base;  for each active snapshot s touching it: v = v + (s.value - v) * I_s
 *
 * so a higher priority snapshot at intensity 1 overrides the lower ones and
 * at 0.5 goes half way from what they made (FMOD's "overriding" blend).
 * Gains blend in dB (-inf counts as -144), a mute as a factor 0..1 on the
 * bus's gain (a snapshot cannot unmute a bus its client muted), effect
 * parameters linearly. The result goes to the mixer as ordinary ramped bus
 * gain and effect-parameter commands, planned ahead: at each change (START,
 * STOP, a new intensity, a base change, on its frame) the daemon takes every
 * breakpoint after it (each fade start or end of the stack) and ramps every
 * blended setting to its value at the first, then from each breakpoint to
 * the next with commands scheduled on the breakpoint's frame. They carry the
 * tag HLD_TAG_SNAPSHOTS (hl_mixer_cmd_tag): the next change cancels those
 * from its frame on (hl_mixer_sched_cancel_from) and plans again. So a stack
 * of overlapping fades reaches each breakpoint's value on its exact frame
 * whatever the poll ticks do; at most HLD_SNAP_SCHED_MAX of them are pending
 * (beyond: EBUSY, nothing changed). A plan that knows a change on a later
 * frame (it came ahead) plans from that frame on as the change's own plan
 * did, so the order the requests came in does not matter (a replay sends
 * them ahead). Effect parameters ride the same ramps:
 * the audio thread glides them (hl_fx_params_t.ramp_frames).
 */
#ifndef HLD_SNAPSHOTS_H
#define HLD_SNAPSHOTS_H

#include <stdint.h>

#include "buses.h"
#include "hl_proto.h"
#include "hld_limits.h"

/* glides kept: a ranking lead of a parameter's 10 ms steps, and the changes
 * a replay sends ahead (a plan on an earlier frame made after them needs
 * every glide from its frame on) */
#define HLD_SNAP_PAST 16

typedef struct {
    uint8_t target;   /* HL_SNAPT_* */
    uint8_t param;    /* FX: p[param] */
    uint8_t fx_index; /* FX: the insert */
    uint8_t fx_kind;  /* FX: its kind when set (another kind there later: skipped) */
    int bus;          /* index (HLD_BUS_MASTER too), resolved in the definer's namespace */
    char bus_name[HL_MAX_NAME + 1];
    float value;
} hld_snap_set_t;

/* A glide of a snapshot's intensity: i0 at frame f0 to i1 at f1. */
typedef struct {
    double i0, i1;
    uint64_t f0, f1;
} hld_snap_glide_t;

typedef struct {
    char name[HL_MAX_NAME + 1]; /* "" = free */
    uint32_t owner;             /* client id that defined it, 0: the daemon (cue sheet) */
    int32_t priority;
    float fade_ms;
    hld_snap_set_t set[HL_SNAP_ENTRIES];
    uint32_t nset;
    int active;    /* in the stack (fading in, on, or fading out) */
    int stopping;  /* fading out: leaves the stack at f1 */
    uint64_t seq;  /* start order */
    double i0, i1; /* intensity i0 at frame f0, gliding to i1 at f1 */
    uint64_t f0, f1;
    /* the glides before it, oldest first: a glide on a frame before f0 (a
     * parameter's binding evaluated again on a frame its grid passed)
     * starts from where they had it */
    hld_snap_glide_t past[HLD_SNAP_PAST];
    uint32_t npast;
} hld_snap_t;

typedef struct {
    hld_snap_t s[HL_MAX_SNAPSHOTS];
    uint32_t n;                           /* defined */
    float base_db[HL_MAX_BUSES + 1];      /* index bus + 1 (0: master): the clients' fader */
    uint8_t base_set[HL_MAX_BUSES + 1];   /* base_db holds it (else the mixer's is read) */
    uint8_t touched[HL_MAX_BUSES + 1];    /* the last plan's stack sets this bus's gain */
    uint8_t fx_touched[HL_MAX_BUSES + 1]; /* bit k: ... insert k */
    uint64_t next_break;                  /* frame a stopped snapshot leaves the stack, 0: none */
    int retry;                            /* a plan found no room: the tick plans again */
    uint64_t pend[HLD_SNAP_SCHED_MAX];    /* frames of the plans' scheduled commands pushed */
    uint32_t npend;                       /* (those applied are dropped at the next plan) */
    char why[HL_MAX_MSG + 1];             /* the last plan's refusal */
    uint64_t seq;
    hld_buses_t *buses;
    hl_mixer_t *mx;
    uint32_t rate;
    /* telemetry */
    uint64_t plans, cmds, plan_ns_total, plan_ns_max;
} hld_snaps_t;

void hld_snaps_init(hld_snaps_t *s, hld_buses_t *b, hl_mixer_t *mx, uint32_t rate);

/* The snapshot called name (exact), or NULL. */
hld_snap_t *hld_snaps_find(hld_snaps_t *s, const char *name);

/* A validated SNAPSHOT request of client `owner` (0: the daemon). 0 or a
 * negative HELIOD_* code with a message. DEFINE of a new name needs a free
 * slot (ENOMEM); SET names a bus that exists (ENOBUS) and, for an effect,
 * an insert that exists (ENOFX) with a value in its kind's range (EINVAL);
 * START/STOP/REMOVE/SET of an unknown name is HELIOD_EINVAL "no snapshot
 * named X". */
int hld_snaps_request(hld_snaps_t *s, const hl_snapshot_t *m, uint32_t owner, char *msg,
                      size_t cap);

/* The checks SET makes of its bus and effect (ENOBUS, ENOFX, EINVAL),
 * without a snapshot: 0 or a code with a message. */
int hld_snaps_check_set(hld_snaps_t *s, const hl_snapshot_t *m, char *msg, size_t cap);

/* Intensity setter (what a parameter binding calls): snapshot `name` glides
 * to intensity x in [0, 1] over ramp_ms, starting it if idle (x > 0). 0 or a
 * negative code with a message. */
int hld_snaps_set_intensity(hld_snaps_t *s, const char *name, float x, float ramp_ms, char *msg,
                            size_t cap);

/* A client set bus `bus`'s fader to db over ramp_frames: remembered as the
 * base, and the blended value goes to the mixer. 0 or a mixer error. */
int hld_snaps_bus_gain(hld_snaps_t *s, int bus, float db, uint32_t ramp_frames);
/* An effect's base settings changed (FX set): re-blend. */
void hld_snaps_rebase(hld_snaps_t *s);

/* The most mixer commands `plans` plans made now (one each: a bundle's
 * SNAPSHOT requests, the BUS gains and FX settings that re-blend) can push
 * in all (*cmds, each one's CANCEL included) and of them schedule (*sched),
 * from the stack and definitions there now: what a bundle must find room
 * for before any of it runs. Main thread. */
void hld_snaps_plan_bound(const hld_snaps_t *s, uint32_t plans, uint32_t *cmds, uint32_t *sched);
/* Scheduled commands the plans may still hold (HLD_SNAP_SCHED_MAX less
 * those pending, counting the applied ones until the next plan drops them). */
uint32_t hld_snaps_sched_left(const hld_snaps_t *s);

/* Poll tick: plans the next segment once a breakpoint has passed. */
void hld_snaps_tick(hld_snaps_t *s);

/* Listing entries: the defined snapshots, in definition slot order. */
uint32_t hld_snaps_list(hld_snaps_t *s, hl_snapshot_info_t *out, uint32_t cap);

/* Intensity of a snapshot now (0 if idle). */
double hld_snap_intensity_now(const hld_snaps_t *s, const hld_snap_t *p);

#endif /* HLD_SNAPSHOTS_H */
