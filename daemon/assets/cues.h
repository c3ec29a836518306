/*
 * cues.h - cue and category definitions: what a game plays.
 *
 * A cue is a named definition over 1..HL_MAX_CUE_SOUNDS loaded sounds (its
 * variations) with the gain, pitch, bus, category, priority, 2D/3D and
 * distance parameters, limits and policies every play of it uses. A category
 * groups cues under one instance limit (weapons, footsteps, ui). Both are
 * defined at run time (CUE / CATEGORY requests) or from an INI file (--cues
 * FILE at start, CUES_LOAD later); redefining a name updates it in place, so
 * voices already playing follow the new limits. An entry is removed only
 * when its owner's process has gone (hld_cues_orphan, then hld_cues_release
 * once no voice refers to it): until then its pointer and index stay valid,
 * and a released entry's memory and index are reused by the next new one.
 *
 * This module holds definitions, variation picking, per-play randomisation
 * and the per-cue and per-category counters; admission and the voices
 * themselves belong to the voice manager (vm.h), which bumps the counters.
 * Sound names are resolved at play time, so a cue may name sounds that are
 * not loaded yet. Main thread only; no libuv.
 */
#ifndef HLD_CUES_H
#define HLD_CUES_H

#include <stddef.h>
#include <stdint.h>

#include "hl_proto.h"
#include "music_table.h"
#include "tempo.h"

#define HLD_MAX_CUES       4096 /* a game's whole cue sheet fits; fixed so indices stay dense */
#define HLD_MAX_MUSIC      16   /* [music NAME] sections in the daemon, all clients together */
#define HLD_MAX_CATEGORIES 256  /* groups with a shared limit: a handful per game in practice */
/* name hash tables (open addressing, never deleted from): twice the caps, powers of two */
#define HLD_CUE_SLOTS (2 * HLD_MAX_CUES)
#define HLD_CAT_SLOTS (2 * HLD_MAX_CATEGORIES)

typedef struct hld_category {
    hl_category_t def;
    hl_cue_counters_t n;
    uint32_t index; /* dense, 0..count-1, stable */
    uint32_t owner; /* client id that defined it, 0: the daemon (--cues, config) */
} hld_category_t;

typedef struct hld_cue {
    hl_cue_t def;
    hld_category_t *cat; /* def.category resolved, or NULL */
    hl_cue_counters_t n;
    uint32_t index;         /* dense, 0..count-1, stable */
    uint64_t last_play_ns;  /* last successful play (min-interval), 0 = never */
    uint32_t seq_next;      /* HL_PICK_SEQUENCE: next variation */
    int32_t last_pick;      /* HL_PICK_SHUFFLE: previous variation, -1 none */
    uint32_t owner;         /* client id that defined it, 0: the daemon (--cues, config) */
    struct hld_bind *binds; /* its parameter bindings (params.h), malloc'd, or NULL */
    uint32_t nbinds;
    float cone[7];    /* CONE: dir x3, inner, outer, outer gain, outer low-pass Hz for its new
                       * voices; dir 0 = none */
    uint32_t curve_n; /* ATTEN: its new voices' attenuation curve (0: the model) */
    float curve_d[8], curve_db[8];
    /* ATTEN kinds 1, 2: its new voices' distance low-pass (Hz) and send
     * (dB) curves, n 0: none; laid out as the mixer's hl_dcurve_t */
    struct {
        uint32_t n;
        float d[8], v[8];
    } dist_lp, dist_send;
    hld_tempo_t tempo; /* its tempo map (a cue sheet's `tempo`), n = 0 none */
} hld_cue_t;

typedef struct hld_cues {
    hld_cue_t *cues[HLD_MAX_CUES]; /* by index; a released entry has an empty name */
    uint32_t ncues;                /* indices in use so far (live, orphaned and released) */
    hld_category_t *cats[HLD_MAX_CATEGORIES];
    uint32_t ncats;
    uint16_t cue_free[HLD_MAX_CUES]; /* released indices, reused first */
    uint16_t cat_free[HLD_MAX_CATEGORIES];
    uint32_t ncue_free, ncat_free;
    uint64_t rng;                     /* xorshift64* state for picks and random ranges */
    uint16_t cue_slot[HLD_CUE_SLOTS]; /* FNV-1a of the name -> index + 1; 0 = empty */
    uint16_t cat_slot[HLD_CAT_SLOTS];
    struct hld_params *params; /* game parameters a cue sheet may define and bind (params.h);
                                * NULL: a sheet's [parameter] sections and bind keys are refused */
    /* [snapshot NAME] sections go up to the app (graph/ is above assets/):
     * each as a SNAPSHOT request (define, then its settings), first every
     * one with check = 1 (nothing changes; 0 or an error with msg), then,
     * once the sheet's cues are applied, with check = 0. client: the
     * applying client's id (0: the daemon's sheet). NULL: sections refused. */
    int (*snap_fn)(void *user, uint32_t client, const hl_snapshot_t *m, int check, char *msg,
                   size_t cap);
    void *snap_user;
    struct hld_music *music[HLD_MAX_MUSIC]; /* a sheet's [music NAME] sections */
    uint32_t nmusic;
} hld_cues_t;

/* A [music NAME] section (music_table.h): its states and transitions. */
typedef struct hld_music {
    hld_music_def_t def;
    uint32_t owner; /* as a cue's */
    uint32_t line;  /* loader scratch */
} hld_music_t;
/* The music called name, or NULL. */
hld_music_t *hld_cues_find_music(const hld_cues_t *c, const char *name);
/* Frees the music sections of `owner` (its process has gone: nothing but
 * its own connections' instances, dropped first, refers to them). */
void hld_cues_drop_music(hld_cues_t *c, uint32_t owner);

/* Entries defined (live or orphaned, not released): what the caps count. */
uint32_t hld_cues_count(const hld_cues_t *c);
uint32_t hld_cues_count_categories(const hld_cues_t *c);

/* Every cue and category of owner `owner` is orphaned (owner
 * HLD_OWNER_GONE: no lookup finds it, nobody may change it). Returns how
 * many. hld_cues_release then frees the orphans no voice refers to
 * (cue_ref / cat_ref: one byte per index, non-zero = a live voice's lv->cue
 * or lv->cat): their names leave the tables, their indices are reused, and
 * a cue of another owner in a released category leaves it. Returns the
 * orphans left (still referred to). */
uint32_t hld_cues_orphan(hld_cues_t *c, uint32_t owner);
uint32_t hld_cues_release(hld_cues_t *c, const uint8_t *cue_ref, const uint8_t *cat_ref);
/* Every entry (and music section) of owner `from` becomes `to`'s (another
 * connection of its process). */
void hld_cues_reown(hld_cues_t *c, uint32_t from, uint32_t to);

/* seed 0 picks a fixed default (tests are deterministic). */
void hld_cues_init(hld_cues_t *c, uint64_t seed);
void hld_cues_close(hld_cues_t *c);

/* Validates m (every field, like hl_validate_* would) and defines or
 * redefines the cue. Its category must exist (HELIOD_ENOCATEGORY).
 * Returns 0, HELIOD_EINVAL (with *why), HELIOD_ENOCATEGORY, HELIOD_ENOMEM
 * (HLD_MAX_CUES reached). *out (may be NULL) gets the entry. */
int hld_cues_define(hld_cues_t *c, const hl_cue_t *m, hld_cue_t **out, const char **why);
/* Same for a category. */
int hld_cues_define_category(hld_cues_t *c, const hl_category_t *m, hld_category_t **out,
                             const char **why);

/* Names live in namespaces: a name repeats once per owner's namespace (a
 * client process's own, and the daemon's shared one). A lookup ranks each
 * entry of the name by its owner: rank(ctx, owner) > 0 makes it visible,
 * the highest wins (ties: the first defined). The rank is the request's
 * (app/ns.c hld_ns_rank: its own process, then the shared ones, never
 * another live process's). */
typedef int (*hld_ns_rank_fn)(const void *ctx, uint32_t owner);
hld_cue_t *hld_cues_find_in(const hld_cues_t *c, const char *name, hld_ns_rank_fn rank,
                            const void *ctx);
hld_category_t *hld_cues_find_category_in(const hld_cues_t *c, const char *name,
                                          hld_ns_rank_fn rank, const void *ctx);
/* Without a requester: the daemon's entry (owner 0), else the first. */
hld_cue_t *hld_cues_find(const hld_cues_t *c, const char *name);
hld_category_t *hld_cues_find_category(const hld_cues_t *c, const char *name);
/* Define into old (a redefinition) or, old NULL, a new entry even when the
 * name exists in another namespace; cat is m->category resolved by the
 * caller in the definer's namespace (NULL: ENOCATEGORY if one is named). */
int hld_cues_define_in(hld_cues_t *c, const hl_cue_t *m, hld_cue_t *old, hld_category_t *cat,
                       hld_cue_t **out, const char **why);
int hld_cues_define_category_in(hld_cues_t *c, const hl_category_t *m, hld_category_t *old,
                                hld_category_t **out, const char **why);

/*
 * Parses an INI cue sheet and applies it all or nothing:
 *
 *   [category weapons]            [cue gunshot]
 *   max-instances = 8             sound = gun1, gun2     (or several sound = lines)
 *   overflow = fade-oldest        pick = shuffle         category = weapons
 *   fade-out = 80                 gain = -3              gain-rand = 2
 *   fade-curve = linear           pitch = 1              pitch-rand = 50   (cents)
 *                                 3d = true              loop = false
 *                                 ...                    (keys = heliodctl cue options)
 *
 * Categories are applied before cues, so a cue may name a category defined
 * later in the file. '#' and ';' start comments. On error nothing changes,
 * HELIOD_EINVAL (or EFILE, ENOCATEGORY, ENOMEM) is returned and err gets
 * "FILE:LINE: what". *ncues / *ncats (may be NULL) get how many were defined.
 */
int hld_cues_load_file(hld_cues_t *c, const char *path, uint32_t *ncues, uint32_t *ncats, char *err,
                       size_t errcap);
/* As hld_cues_load_file for a sheet already read into memory (text, len
 * bytes; path names it in messages): the daemon reads a client's sheet on
 * the worker pool (fileio.h) and applies it here. */
int hld_cues_load_mem(hld_cues_t *c, const char *path, const char *text, size_t len,
                      uint32_t *ncues, uint32_t *ncats, char *err, size_t errcap);
/* A sheet applied as a client (a plain client's bank): names resolve
 * through rank/ctx (its namespace), admit says whether it may define name
 * (cat: a category, else a cue) into an existing entry of owner *old_owner,
 * or a new entry of its own (old_owner NULL): 0, or an error code with msg
 * (EPERM, EQUOTA). Checked for every entry before anything changes; own
 * then stamps each applied entry's owner (created: a new entry). */
/* admit / own's cat: 0 a cue, 1 a category, 2 a parameter ([parameter NAME]) */
typedef struct hld_cues_as {
    hld_ns_rank_fn rank;
    const void *ctx;
    int (*admit)(const void *ctx, int cat, const char *name, const uint32_t *old_owner, char *msg,
                 size_t cap);
    void (*own)(const void *ctx, int cat, uint32_t *owner, int created);
    uint32_t client; /* the applying client's id (its snapshots' owner) */
} hld_cues_as_t;
/* As hld_cues_load_mem, as as says (NULL: the daemon's, as without). */
int hld_cues_load_mem_as(hld_cues_t *c, const hld_cues_as_t *as, const char *path, const char *text,
                         size_t len, uint32_t *ncues, uint32_t *ncats, char *err, size_t errcap);

/* The variation the next play uses (its index into def.sounds), per
 * def.pick: random, shuffle (random, never the previous one when there are
 * two or more) or sequence (round robin). */
uint32_t hld_cue_pick(hld_cues_t *c, hld_cue_t *cue);
/* def.gain_db + uniform(-gain_rand_db, +gain_rand_db). */
float hld_cue_roll_gain_db(hld_cues_t *c, const hld_cue_t *cue);
/* def.pitch * 2^(uniform(-pitch_rand_cents, +pitch_rand_cents) / 1200), clamped to [0.25, 4]. */
float hld_cue_roll_pitch(hld_cues_t *c, const hld_cue_t *cue);

#endif /* HLD_CUES_H */
