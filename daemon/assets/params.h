/*
 * params.h - game parameters: named floats a game sets, and the bindings
 * that map them through curves onto the properties of a cue's voices.
 *
 * DESIGN
 *   A parameter has a range [min, max], a default and a seek speed (units
 *   per second: its value moves toward the target at most that fast, so a
 *   jumpy game value does not zipper; 0 = jumps). It has one global value,
 *   and may have a value per emitter and per voice; a voice reads its own
 *   value, else its emitter's, else the global one.
 *
 *     PARAM (value, scope) --> target --seek at tick--> value
 *                                                          |
 *     cue's bindings: value --curve--> property contribution (dB, cents, Hz ...)
 *                                                          |
 *     voice manager tick (vm_params.c): changed voices get ordinary ramped
 *     SETs (gain, pitch, filter, sends) -- nothing new on the audio thread
 *
 *   Curves have 1..16 points (x increasing); before the first point the
 *   curve holds the first y, after the last the last y; segment i (points i
 *   and i+1) has its own shape (linear, exponential, logarithmic, S-curve).
 *
 *   Their names live in the definer's namespace (cues.h, hld_ns_rank_fn).
 *   Bindings hold a parameter by index, so an index stays valid while
 *   anything refers to it: a parameter whose process has gone (owner
 *   HLD_OWNER_GONE, owners.c) is released by hld_params_release once no
 *   cue's binding, bus or snapshot binding and scheduled PARAM names it
 *   (its scoped values go with it), and its index is reused by the next
 *   definition, like a released cue's.
 *
 * Main thread only; no libuv.
 */
#ifndef HLD_PARAMS_H
#define HLD_PARAMS_H

#include <stdint.h>

#include "cues.h"
#include "hl_proto.h"

#define HLD_MAX_PARAMS   1024 /* parameters defined at once (RPM, health, time of day ...) */
#define HLD_PARAM_SLOTS  (2 * HLD_MAX_PARAMS)
#define HLD_MAX_PVALUES  16384 /* emitter and voice values held at once */
#define HLD_PVALUE_SLOTS (2 * HLD_MAX_PVALUES)
#define HLD_MAX_PSCHED   4096 /* scheduled PARAMs pending */

/* A curve: n points, shape[i] of the segment from point i to i+1. */
typedef struct {
    uint8_t n;
    float x[HL_MAX_CURVE_POINTS], y[HL_MAX_CURVE_POINTS];
    uint8_t shape[HL_MAX_CURVE_POINTS];
} hld_curve_t;

/* The curve's y at x (held flat outside its points). n must be >= 1. */
float hld_curve_eval(const hld_curve_t *c, float x);
/* Shape functions on t in [0, 1] -> [0, 1] (HL_SHAPE_*). */
float hld_curve_shape(uint8_t shape, float t);
/* From / to the wire's BIND fields (checked by hl_validate_bind). */
void hld_curve_from_bind(hld_curve_t *c, const hl_bind_t *m);
void hld_curve_to_bind(const hld_curve_t *c, hl_bind_t *m);

/* A value seeks from `from` (its value on frame t0, where its target took
 * effect) toward `target` at the parameter's seek speed: its value on any
 * engine frame is a function of these alone (hld_params_seek), so a live
 * session and its replay hear the same values on the same frames. */
typedef struct {
    float cur, target;
    float from;  /* the value on frame t0 */
    uint64_t t0; /* engine frame the target took effect on */
} hld_pval_t;

typedef struct hld_param {
    hl_param_def_t def;
    hld_pval_t g;    /* the global value */
    uint32_t index;  /* dense, stable */
    uint32_t owner;  /* client id that defined it, 0: the daemon */
    uint32_t scoped; /* emitter and voice values held */
} hld_param_t;

/* One binding of a cue: parameter index, HL_PROP_*, send index, curve. */
typedef struct hld_bind {
    uint32_t param;
    uint8_t prop, index;
    hld_curve_t curve;
} hld_bind_t;

/* What a voice's bindings add, combined: gain and send dB add up, cents add
 * up, low-pass takes the lowest cutoff, high-pass the highest, occlusion
 * the largest (documented in README, "Game parameters"). */
typedef struct {
    float gain_db, cents, lp_hz, hp_hz, occ, send_db[HL_VOICE_SENDS];
} hld_pcontrib_t;

/* A scoped value: (param, kind, key) -> value; key = voice handle or the
 * emitter's address (with its name: a reused address is another emitter
 * unless the name is the same too). */
typedef struct {
    uint64_t key;
    uint32_t param;
    uint8_t kind;                  /* HL_PSCOPE_EMITTER / VOICE; 0xFF = empty slot */
    char em_name[HL_MAX_NAME + 1]; /* emitter: its name (a reused index is another emitter) */
    hld_pval_t v;
    uint32_t creator; /* client id charged */
} hld_pent_t;

typedef struct {
    uint64_t at; /* engine frame */
    hl_param_t m;
    uint64_t key;
    uint32_t param;
} hld_psched_t;

/* A binding on a bus (HL_PROP_BUS_GAIN) or one of its effects' parameters
 * (HL_PROP_FX), or on a mixer snapshot's intensity (HL_PROP_SNAPSHOT: bus
 * HLD_BIND_SNAPSHOT, bus_name the snapshot's name): follows the parameter's global value
 * (param_ops.c applies it). */
#define HLD_BIND_SNAPSHOT (-3) /* hld_busbind_t.bus of a snapshot binding (no bus) */
typedef struct {
    uint32_t param;
    uint8_t prop, index, fxp;
    int bus;                        /* bus index when bound (HLD_BUS_MASTER: -1) */
    char bus_name[HL_MAX_NAME + 1]; /* the bus must still be this one */
    hld_curve_t curve;
    float last; /* what was applied (bus gain: the bus's sum) */
    int applied;
} hld_busbind_t;

typedef struct hld_params {
    hld_param_t *p[HLD_MAX_PARAMS];
    uint32_t n;
    uint16_t slot[HLD_PARAM_SLOTS]; /* FNV-1a of the name -> index + 1 */
    hld_pent_t *ent;                /* HLD_PVALUE_SLOTS, open addressing (linear probing) */
    uint32_t nent;
    hld_psched_t *sched; /* pending scheduled PARAMs (unordered) */
    uint32_t nsched;
    uint32_t moving;     /* values not at their target */
    int dirty;           /* a value changed since the last evaluation */
    uint64_t frame;      /* engine frame the values were last computed for (seek) */
    uint32_t rate;       /* engine frames per second (seek speeds are per second) */
    uint64_t next_eval;  /* next grid frame a seek is evaluated on (vm_params.c) */
    uint64_t seek_t0;    /* frame the latest seek started on */
    uint64_t last_grid;  /* the latest grid step evaluated (its frame of effect), 0: none */
    int force;           /* this evaluation sends every bound property (vm_params.c) */
    int force_next;      /* ... and so does the next grid step */
    hld_pval_t *last_v;  /* the value the latest set changed (hld_params_retime), */
    hld_pval_t last_old; /* ... as it was before */
    const hld_param_t *last_p;
    uint64_t last_sweep_ns;
    uint64_t evals, sets; /* evaluations, SETs sent (stats) */
    uint64_t visits;      /* voices evaluated one by one (vm_params.c: not those a cue's
                           * modulation slot moved alone) */
    uint64_t late;        /* scheduled values evaluated past their frame (a late poll) */
    hld_busbind_t bus[HL_MAX_BUS_BINDS];
    uint32_t nbus;
    uint64_t gen, bus_gen;          /* bumped when a global value moves; the bus bindings' pass */
    uint16_t pfree[HLD_MAX_PARAMS]; /* released indices (name empty), reused first */
    uint32_t npfree;
} hld_params_t;

/* Parameters that may still be defined (the table's room). */
static inline uint32_t hld_params_room(const hld_params_t *P) {
    return HLD_MAX_PARAMS - (P->n - P->npfree);
}

int hld_params_init(hld_params_t *P);
void hld_params_close(hld_params_t *P);

/* Defines or redefines (same namespace entry `old`, or NULL: new) a
 * parameter. m must be valid (hl_validate_param_def). A redefinition keeps
 * the value, clamped to the new range. 0 or HELIOD_ENOMEM (HLD_MAX_PARAMS). */
int hld_params_define(hld_params_t *P, const hl_param_def_t *m, hld_param_t *old, uint32_t owner,
                      hld_param_t **out);
/* Releases the parameters whose process has gone (owner HLD_OWNER_GONE)
 * that nothing refers to any more: no binding of a cue with a name (live or
 * orphaned; cues, which may be NULL), no bus or snapshot binding, no
 * scheduled PARAM. Their scoped values are dropped, their names leave the
 * table, their indices go to the free list. Returns how many gone ones
 * stay (still referred to). */
uint32_t hld_params_release(hld_params_t *P, const hld_cues_t *cues);

hld_param_t *hld_params_find_in(const hld_params_t *P, const char *name, hld_ns_rank_fn rank,
                                const void *ctx);
/* The daemon's entry (owner 0), else the first. */
hld_param_t *hld_params_find(const hld_params_t *P, const char *name);

/* Sets the target of a value (value clamped to the range by the caller's
 * check: out of range is refused before). scope GLOBAL: key unused; EMITTER:
 * key = the emitter's address, em_name its name; VOICE: key = voice handle. A new
 * scoped value starts at the global value (then seeks). 0 or HELIOD_EBUSY
 * (HLD_MAX_PVALUES held). */
int hld_params_set(hld_params_t *P, hld_param_t *p, int scope, uint64_t key, const char *em_name,
                   float value, uint32_t creator);
/* The same, taking effect on engine frame `frame`: a seek starts there
 * (hld_params_set: on the frame the values were last computed for). */
int hld_params_set_at(hld_params_t *P, hld_param_t *p, int scope, uint64_t key, const char *em_name,
                      float value, uint32_t creator, uint64_t frame);
/* Queues a PARAM for engine frame at (applied by hld_params_step once the
 * clock reached it). 0 or HELIOD_EBUSY (HLD_MAX_PSCHED pending). */
int hld_params_schedule(hld_params_t *P, uint64_t at, const hl_param_t *m, uint32_t param,
                        uint64_t key, uint32_t creator);
/* Applies the scheduled PARAMs due at frame `now` (their scoped values:
 * an emitter's by name lookup done at request time). */
void hld_params_due(hld_params_t *P, uint64_t now_frame);
/* Applies the scheduled values of the earliest frame <= until (all of that
 * frame, in request order): 1 with *frame, 0 if none is due. */
int hld_params_due_next(hld_params_t *P, uint64_t until, uint64_t *frame);
/* The same, one value at a time (the first requested of that frame). */
int hld_params_due_one(hld_params_t *P, uint64_t until, uint64_t *frame);
/* The earliest frame a scheduled value waits for: 1 with *frame, 0: none. */
int hld_params_due_peek(const hld_params_t *P, uint64_t *frame);

/* The value a voice reads: its own, else its emitter's (em_index and name,
 * 0 = none), else the global one. An emitter's key is its address
 * (stable while it lives), with its name. */
float hld_params_value(const hld_params_t *P, uint32_t param, uint64_t voice, uint64_t em_key,
                       const char *em_name);
/* Redoes the latest set as taking effect on `frame` (the frame the
 * capture found the request took effect on, known after its handler). */
void hld_params_retime(hld_params_t *P, uint64_t frame);
/* Every value as it is on engine frame `frame`: from its start value
 * toward its target at seek units a second since the frame its target
 * took effect (P->rate frames a second). A frame before the last one
 * computes every value again (a PARAM on a frame the grid passed). */
void hld_params_seek(hld_params_t *P, uint64_t frame);
/* Drops the scoped values whose owner is gone: a voice handle `live` says
 * is not live, or an emitter that no longer exists. */
void hld_params_sweep(hld_params_t *P,
                      int (*live)(void *user, int kind, uint64_t key, const char *em_name),
                      void *user);

/* Sums a cue's bindings for one voice (variation `var` of nvar, for a
 * blend). */
void hld_params_contrib(const hld_params_t *P, const hld_bind_t *b, uint32_t nb, uint64_t voice,
                        uint64_t em_key, const char *em_name, uint32_t var, uint32_t nvar,
                        hld_pcontrib_t *out);
/* The variation a switch binding picks at value v among nvar (x = the
 * boundaries, or nvar equal ranges over [min, max] when it has none). */
uint32_t hld_params_switch(const hld_param_t *p, const hld_bind_t *b, float v, uint32_t nvar);
/* The equal-power blend weight (linear gain) of variation var of nvar at v:
 * the variations sit at the binding's x (or evenly over [min, max]);
 * between two neighbours cos / sin of the position, elsewhere 0. */
float hld_params_blend(const hld_param_t *p, const hld_bind_t *b, float v, uint32_t var,
                       uint32_t nvar);

#endif /* HLD_PARAMS_H */
