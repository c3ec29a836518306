/*
 * heliod_cues.h - libheliod: cues, categories, emitters.
 *
 * Part of heliod.h, which includes it after its common types (heliod_t,
 * heliod_voice_t): a game includes <heliod.h> only.
 */
#ifndef HELIOD_CUES_H
#define HELIOD_CUES_H

#ifndef HELIOD_H
#error "include <heliod.h>, not heliod_cues.h"
#endif

/* ---- cues, categories, emitters ---- */
/* A cue is a named recipe for a play: 1..16 sound variations plus gain,
 * pitch, randomisation, bus, category, priority, distance and voice-limit
 * settings. heliod_play() of its name plays it. A category is a voice limit
 * shared by every cue that names it. Both live in the daemon until redefined
 * (defining again replaces the settings; the counters are kept). */
#define HELIOD_MAX_CUE_SOUNDS          16
#define HELIOD_PICK_RANDOM             0
#define HELIOD_PICK_SHUFFLE            1 /* random, never the same variation twice in a row */
#define HELIOD_PICK_SEQUENCE           2
#define HELIOD_OVERFLOW_REFUSE         0
#define HELIOD_OVERFLOW_STOP_OLDEST    1
#define HELIOD_OVERFLOW_FADE_OLDEST    2
#define HELIOD_OVERFLOW_STEAL_LOWEST   3 /* steal-lowest-priority */
#define HELIOD_OVERFLOW_STEAL_QUIETEST 4
#define HELIOD_OVERFLOW_STEAL_FARTHEST 5
#define HELIOD_BEYOND_VIRTUAL          0 /* past max distance: virtual (refused at start) */
#define HELIOD_BEYOND_RELEASE          1 /* past max distance: fade out and free (refused at start) */
#define HELIOD_BEYOND_CLAMP            2 /* keep the gain at max distance */
#define HELIOD_VIRT_RESUME             0 /* back from virtual where it would have been */
#define HELIOD_VIRT_RESTART            1 /* back from virtual from the start */
#define HELIOD_VIRT_KILL               2 /* ends when it would become virtual */
#define HELIOD_CURVE_LINEAR            0
#define HELIOD_CURVE_EQUAL_POWER       1
#define HELIOD_CURVE_LOG               2 /* linear in dB */
#define HELIOD_CUE_LOOP                HELIOD_PLAY_LOOP
#define HELIOD_CUE_3D                  HELIOD_PLAY_3D
#define HELIOD_CUE_CUBIC               HELIOD_PLAY_CUBIC
#define HELIOD_CUE_SINC                HELIOD_PLAY_SINC
#define HELIOD_CUE_LINEAR              HELIOD_PLAY_LINEAR
typedef struct {
    char name[64];
    uint32_t nsounds;                          /* 1..HELIOD_MAX_CUE_SOUNDS */
    char sounds[HELIOD_MAX_CUE_SOUNDS][64];    /* loaded sound names */
    int pick;                                  /* HELIOD_PICK_* (random) */
    uint32_t flags;                            /* HELIOD_CUE_* (0) */
    float gain_db;                             /* <= +24 (0) */
    float gain_rand_db;                        /* [0, 48]: +- this per play (0) */
    float pitch;                               /* [0.25, 4] (1) */
    float pitch_rand_cents;                    /* [0, 2400]: +- this per play (0) */
    char bus[64];                              /* "" = "sfx" */
    char category[64];                         /* "" = none, else a defined category */
    int32_t priority;                          /* [-1000, 1000] (0) */
    float pan;                                 /* 2D, [-1, 1] (0) */
    float min_distance, max_distance, rolloff; /* (1, 100, 1), max <= 1e6 */
    int distance_model;                        /* HELIOD_DIST_* (inverse) */
    float fade_in_ms;                          /* -1 = the server's anti-click fade */
    float fade_out_ms;                         /* eviction/release fade; -1 = category's/default */
    int fade_curve;                            /* HELIOD_CURVE_* (linear) */
    uint32_t max_instances;                    /* 0 = unlimited, <= 65536 */
    int overflow;                              /* HELIOD_OVERFLOW_* (refuse) */
    float min_interval_ms;                     /* [0, 60000] (0 = none) */
    int beyond;                                /* HELIOD_BEYOND_* (virtual) */
    int virt;                                  /* HELIOD_VIRT_* (resume) */
    float doppler;                             /* [0, 10], 0 = off (1) */
    heliod_post_t post;                        /* filters, occlusion, sends (none) */
} heliod_cue_t;
/* Fills the defaults shown in brackets above; name and sounds are empty. */
void heliod_cue_init(heliod_cue_t *c);
/* Defines or redefines a cue. Returns 0, HELIOD_EINVAL (a field out of range,
 * checked locally first; heliod_last_error() says which), HELIOD_ENOCATEGORY,
 * HELIOD_ENOBUS, or a connection error. The sounds are looked up when the cue
 * plays (a missing one is ENOSOUND then), so a cue may name sounds a bank
 * loads later. Blocking; the connection's thread; c is only read during the
 * call. */
int heliod_cue_define(heliod_t *h, const heliod_cue_t *c);

typedef struct {
    char name[64];
    uint32_t max_instances; /* 0 = unlimited, <= 65536 */
    int overflow;           /* HELIOD_OVERFLOW_* (refuse) */
    float fade_out_ms;      /* eviction fade; -1 = the server's default (50 ms) */
    int fade_curve;         /* HELIOD_CURVE_* (linear) */
} heliod_category_t;
/* Defaults: unlimited, refuse, fade-out -1, linear; name empty. */
void heliod_category_init(heliod_category_t *c);
/* Defines or redefines a category. Returns 0, HELIOD_EINVAL or a connection
 * error. Blocking; the connection's thread. */
int heliod_category_define(heliod_t *h, const heliod_category_t *c);

/* Has the daemon read a cue file (path as the daemon sees it: give an
 * absolute path). *ncues / *ncats (either may be NULL) get how many cues and
 * categories it defined. Returns 0, HELIOD_EFILE, HELIOD_EINVAL (with the
 * file's line in heliod_last_error()), HELIOD_EPERM (not a control client: a
 * sheet redefines any name; define cues one by one instead), or a connection
 * error. Blocking. */
int heliod_cues_load(heliod_t *h, const char *path, uint32_t *ncues, uint32_t *ncats);

typedef struct {
    uint64_t plays;             /* successful plays */
    uint64_t refused_interval;  /* inside min-interval */
    uint64_t refused_distance;  /* beyond max distance at start */
    uint64_t refused_cue_limit; /* cue at max-instances */
    uint64_t refused_cat_limit; /* category at max-instances */
    uint64_t refused_no_voice;  /* no voice free and nothing lower to steal */
    uint64_t evicted_cue;       /* voices evicted by the cue's limit */
    uint64_t evicted_cat;       /* voices evicted by the category's limit */
    uint64_t stolen;            /* voices stolen for a higher-priority play */
    uint64_t virtualised;       /* real -> virtual transitions */
    uint32_t active;            /* counted voices now (playing or paused) */
    uint32_t virtual_now;       /* of which virtual */
} heliod_cue_counters_t;
#define HELIOD_CUES_KIND_CUE      0
#define HELIOD_CUES_KIND_CATEGORY 1
typedef struct {
    int kind;                       /* HELIOD_CUES_KIND_* */
    heliod_cue_t cue;               /* kind CUE */
    heliod_category_t category;     /* kind CATEGORY */
    heliod_cue_counters_t counters; /* both kinds */
} heliod_cue_info_t;
/* Lists the defined cues and categories with their counters: fills up to
 * cap entries (the caller owns arr); *count = entries filled. Returns 0, 1 if
 * the list was truncated, or an error. Blocking. */
int heliod_cues(heliod_t *h, heliod_cue_info_t *arr, size_t cap, size_t *count);

/* An emitter is a named moving position: voices played with its name in
 * heliod_play_params_t.emitter follow it, so one call moves them all. It is
 * destroyed when its connection closes, unless created HELIOD_EM_DETACHED. */
#define HELIOD_EM_POS      0x1u /* heliod_emitter_set: pos is given */
#define HELIOD_EM_VEL      0x2u /* heliod_emitter_set: vel is given */
#define HELIOD_EM_DETACHED 0x4u /* heliod_emitter_create: outlives the connection */
/* Creates an emitter at pos (metres) with velocity vel (m/s; NULL = zero).
 * flags: 0 or HELIOD_EM_DETACHED. Returns 0, HELIOD_ENAME / HELIOD_EINVAL
 * (checked locally, nothing sent), the daemon's error (an existing name, its
 * emitter limit) or a connection error. Blocking; the connection's thread. */
int heliod_emitter_create(heliod_t *h, const char *name, const float pos[3], const float vel[3],
                          uint32_t flags);
/* Moves an emitter: mask HELIOD_EM_POS and/or HELIOD_EM_VEL says which of
 * pos / vel are used (the other may be NULL); the position ramps over
 * ramp_ms ([0, 60000]; 0 = one block). Returns 0, HELIOD_ENOEMITTER,
 * HELIOD_EINVAL or a connection error. Blocking. */
int heliod_emitter_set(heliod_t *h, const char *name, uint32_t mask, const float pos[3],
                       const float vel[3], float ramp_ms);
/* The same, fire-and-forget for a game's per-frame updates: returns the
 * request id (> 0) or an error; a failure arrives as HELIOD_EVENT_ERROR. */
int heliod_emitter_set_async(heliod_t *h, const char *name, uint32_t mask, const float pos[3],
                             const float vel[3], float ramp_ms);
/* Destroys an emitter; its voices fade out over fade_ms (-1 = each voice's
 * cue fade-out) and end with HELIOD_END_EMITTER. *count (may be NULL) gets
 * how many voices it stopped. Returns 0, HELIOD_ENOEMITTER, HELIOD_EINVAL or
 * a connection error. Blocking. */
int heliod_emitter_destroy(heliod_t *h, const char *name, float fade_ms, uint32_t *count);

#endif /* HELIOD_CUES_H */
