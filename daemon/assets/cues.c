/*
 * cues.c - cue and category definitions, their lookup, variation picking,
 * per-play randomisation (see cues.h).
 *
 * Definitions live in calloc'd entries that are never freed before
 * hld_cues_close, so indices and pointers stay stable; redefining a name
 * overwrites the definition in place and keeps the counters. Names are found
 * through FNV-1a open-addressing tables embedded in hld_cues_t (twice the
 * caps; a release rebuilds them, the only removal), so a lookup on the play
 * path costs a hash and a strcmp or two and never allocates. An entry whose
 * owner's process has gone is orphaned (HLD_OWNER_GONE: invisible), then
 * released once no voice refers to it: its index and memory are reused. Every definition is
 * validated field by field (hl_validate_cue / hl_validate_category, the rules heliodctl also
 * applies) with a static reason naming the field. The INI cue-sheet loader is cue_sheet.c.
 */
#include "cues.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cues_int.h"
#include "hld_limits.h"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME  16777619u

#define RNG_DEFAULT_SEED 0x9E3779B97F4A7C15ull /* any non-zero state works for xorshift */

/* ---- name hash ------------------------------------------------------------------------------ */

static uint32_t fnv1a(const char *s) {
    uint32_t h = FNV_OFFSET;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= FNV_PRIME;
    }
    return h;
}

/* The slot holding name (slots[i] = its index + 1) or the empty slot where it
 * would go. The tables are at most half full, so the probe always ends. */
uint32_t hld_cues_slot_of(const uint16_t *slots, uint32_t nslots, const char *name,
                          hld_name_at_fn at, const void *tab) {
    uint32_t mask = nslots - 1, i = fnv1a(name) & mask;
    while (slots[i] && strcmp(at(tab, slots[i] - 1u), name) != 0)
        i = (i + 1) & mask;
    return i;
}

static const char *cue_name_at(const void *tab, uint32_t i) {
    return ((hld_cue_t *const *)tab)[i]->def.name;
}
static const char *cat_name_at(const void *tab, uint32_t i) {
    return ((hld_category_t *const *)tab)[i]->def.name;
}

/* A name may repeat, once per namespace (cues.h): its entries all sit on
 * the name's probe chain, which ends at the first empty slot (nothing is
 * ever deleted). The index of the entry rank ranks highest (ties: the
 * first), or -1. rank NULL: the daemon's entry (owner 0), else the first. */
static int32_t pick_of(const uint16_t *slots, uint32_t nslots, const char *name, hld_name_at_fn at,
                       const void *tab, uint32_t (*owner_at)(const void *, uint32_t),
                       hld_ns_rank_fn rank, const void *ctx) {
    uint32_t mask = nslots - 1, i = fnv1a(name) & mask;
    int32_t best = -1;
    int best_rank = 0;
    for (; slots[i]; i = (i + 1) & mask) {
        uint32_t k = slots[i] - 1u;
        if (strcmp(at(tab, k), name) != 0) continue;
        uint32_t owner = owner_at(tab, k);
        if (owner == HLD_OWNER_GONE) continue; /* orphaned: no name finds it */
        int r = rank ? rank(ctx, owner) : owner == 0 ? 2 : 1;
        if (r > best_rank) {
            best_rank = r;
            best = (int32_t)k;
        }
    }
    return best;
}

/* The first empty slot on name's chain: where another namespace's entry of
 * that name goes. */
static uint32_t free_slot_of(const uint16_t *slots, uint32_t nslots, const char *name) {
    uint32_t mask = nslots - 1, i = fnv1a(name) & mask;
    while (slots[i])
        i = (i + 1) & mask;
    return i;
}

static uint32_t cue_owner_at(const void *tab, uint32_t i) {
    return ((hld_cue_t *const *)tab)[i]->owner;
}
static uint32_t cat_owner_at(const void *tab, uint32_t i) {
    return ((hld_category_t *const *)tab)[i]->owner;
}

hld_cue_t *hld_cues_find_in(const hld_cues_t *c, const char *name, hld_ns_rank_fn rank,
                            const void *ctx) {
    if (!name) return NULL;
    int32_t k =
        pick_of(c->cue_slot, HLD_CUE_SLOTS, name, cue_name_at, c->cues, cue_owner_at, rank, ctx);
    return k < 0 ? NULL : c->cues[k];
}

hld_category_t *hld_cues_find_category_in(const hld_cues_t *c, const char *name,
                                          hld_ns_rank_fn rank, const void *ctx) {
    if (!name) return NULL;
    int32_t k =
        pick_of(c->cat_slot, HLD_CAT_SLOTS, name, cat_name_at, c->cats, cat_owner_at, rank, ctx);
    return k < 0 ? NULL : c->cats[k];
}

hld_cue_t *hld_cues_find(const hld_cues_t *c, const char *name) {
    return hld_cues_find_in(c, name, NULL, NULL);
}

hld_category_t *hld_cues_find_category(const hld_cues_t *c, const char *name) {
    return hld_cues_find_category_in(c, name, NULL, NULL);
}

/* ---- life cycle ----------------------------------------------------------------------------- */

void hld_cues_init(hld_cues_t *c, uint64_t seed) {
    memset(c, 0, sizeof *c);
    c->rng = seed ? seed : RNG_DEFAULT_SEED;
}

void hld_cues_close(hld_cues_t *c) {
    for (uint32_t i = 0; i < c->ncues; i++) {
        free(c->cues[i]->binds);
        free(c->cues[i]);
    }
    for (uint32_t i = 0; i < c->ncats; i++)
        free(c->cats[i]);
    for (uint32_t i = 0; i < c->nmusic; i++)
        free(c->music[i]);
    uint64_t rng = c->rng;
    memset(c, 0, sizeof *c);
    c->rng = rng;
}

hld_music_t *hld_cues_find_music(const hld_cues_t *c, const char *name) {
    for (uint32_t i = 0; i < c->nmusic; i++)
        if (strcmp(c->music[i]->def.name, name) == 0) return c->music[i];
    return NULL;
}

void hld_cues_drop_music(hld_cues_t *c, uint32_t owner) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->nmusic; i++)
        if (c->music[i]->owner == owner)
            free(c->music[i]);
        else
            c->music[k++] = c->music[i];
    c->nmusic = k;
}

/* ---- orphans and their release ------------------------------------------------------------ */

uint32_t hld_cues_count(const hld_cues_t *c) {
    return c->ncues - c->ncue_free;
}

uint32_t hld_cues_count_categories(const hld_cues_t *c) {
    return c->ncats - c->ncat_free;
}

uint32_t hld_cues_orphan(hld_cues_t *c, uint32_t owner) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->ncues; i++)
        if (c->cues[i]->def.name[0] && c->cues[i]->owner == owner) {
            c->cues[i]->owner = HLD_OWNER_GONE;
            n++;
        }
    for (uint32_t i = 0; i < c->ncats; i++)
        if (c->cats[i]->def.name[0] && c->cats[i]->owner == owner) {
            c->cats[i]->owner = HLD_OWNER_GONE;
            n++;
        }
    return n;
}

void hld_cues_reown(hld_cues_t *c, uint32_t from, uint32_t to) {
    for (uint32_t i = 0; i < c->ncues; i++)
        if (c->cues[i]->def.name[0] && c->cues[i]->owner == from) c->cues[i]->owner = to;
    for (uint32_t i = 0; i < c->ncats; i++)
        if (c->cats[i]->def.name[0] && c->cats[i]->owner == from) c->cats[i]->owner = to;
    for (uint32_t i = 0; i < c->nmusic; i++)
        if (c->music[i]->owner == from) c->music[i]->owner = to;
}

/* The name tables again from the entries with a name, in index order. */
static void rehash(hld_cues_t *c) {
    memset(c->cue_slot, 0, sizeof c->cue_slot);
    memset(c->cat_slot, 0, sizeof c->cat_slot);
    for (uint32_t i = 0; i < c->ncues; i++)
        if (c->cues[i]->def.name[0])
            c->cue_slot[free_slot_of(c->cue_slot, HLD_CUE_SLOTS, c->cues[i]->def.name)] =
                (uint16_t)(i + 1u);
    for (uint32_t i = 0; i < c->ncats; i++)
        if (c->cats[i]->def.name[0])
            c->cat_slot[free_slot_of(c->cat_slot, HLD_CAT_SLOTS, c->cats[i]->def.name)] =
                (uint16_t)(i + 1u);
}

uint32_t hld_cues_release(hld_cues_t *c, const uint8_t *cue_ref, const uint8_t *cat_ref) {
    uint32_t left = 0, freed = 0;
    for (uint32_t i = 0; i < c->ncues; i++) {
        hld_cue_t *e = c->cues[i];
        if (!e->def.name[0] || e->owner != HLD_OWNER_GONE) continue;
        if (cue_ref[i]) {
            left++;
            continue;
        }
        e->def.name[0] = '\0'; /* released: owner stays HLD_OWNER_GONE, nobody lists it */
        e->cat = NULL;
        free(e->binds); /* nothing plays it: its bindings go (the next cue here has its own) */
        e->binds = NULL;
        e->nbinds = 0;
        c->cue_free[c->ncue_free++] = (uint16_t)i;
        freed++;
    }
    for (uint32_t i = 0; i < c->ncats; i++) {
        hld_category_t *e = c->cats[i];
        if (!e->def.name[0] || e->owner != HLD_OWNER_GONE) continue;
        if (cat_ref[i]) {
            left++;
            continue;
        }
        for (uint32_t k = 0; k < c->ncues; k++) /* another owner's cue in it leaves it */
            if (c->cues[k]->cat == e) {
                c->cues[k]->cat = NULL;
                c->cues[k]->def.category[0] = '\0';
            }
        e->def.name[0] = '\0';
        c->cat_free[c->ncat_free++] = (uint16_t)i;
        freed++;
    }
    if (freed) rehash(c);
    return left;
}

/* ---- validation ----------------------------------------------------------------------------- */

/* The rules are hl_validate_cue / hl_validate_category's (shared with
 * heliodctl); their reasons start with the struct field's name, which maps to
 * the cue-file key that sets it, so the loader can point at that key's line. */
static const struct {
    const char *field, *key;
} k_field_keys[] = {
    {"sounds", "sound"},
    {"pick", "pick"},
    {"gain_db", "gain"},
    {"gain_rand_db", "gain-rand"},
    {"pitch", "pitch"},
    {"pitch_rand_cents", "pitch-rand"},
    {"bus", "bus"},
    {"category", "category"},
    {"priority", "priority"},
    {"pan", "pan"},
    {"min_distance", "min-distance"},
    {"max_distance", "max-distance"},
    {"rolloff", "rolloff"},
    {"model", "model"},
    {"fade_in_ms", "fade-in"},
    {"fade_out_ms", "fade-out"},
    {"fade_curve", "fade-curve"},
    {"max_instances", "max-instances"},
    {"overflow", "overflow"},
    {"min_interval_ms", "min-interval"},
    {"beyond", "beyond"},
    {"virt", "virtual"},
    {"doppler", "doppler"},
    {"lp_hz", "lp"},
    {"hp_hz", "hp"},
    {"occlusion", "occlusion"},
    {"obstruction", "obstruction"},
    {"send", "send"},
    {"send_db", "send"},
};

/* The cue-file key of the field a reason names ("field: ..."), or NULL. */
static const char *key_of_why(const char *why) {
    const char *colon = why ? strchr(why, ':') : NULL;
    if (!colon) return NULL;
    size_t n = (size_t)(colon - why);
    for (size_t i = 0; i < sizeof k_field_keys / sizeof k_field_keys[0]; i++)
        if (strlen(k_field_keys[i].field) == n && memcmp(k_field_keys[i].field, why, n) == 0)
            return k_field_keys[i].key;
    return NULL;
}

int hld_cue_check(const hl_cue_t *m, const char **why, const char **key) {
    *why = NULL;
    int rc = hl_validate_cue(m, why);
    *key = rc ? key_of_why(*why) : NULL;
    if (rc && !*why) *why = "invalid cue";
    return rc;
}

int hld_cat_check(const hl_category_t *m, const char **why, const char **key) {
    *why = NULL;
    int rc = hl_validate_category(m, why);
    *key = rc ? key_of_why(*why) : NULL;
    if (rc && !*why) *why = "invalid category";
    return rc;
}

/* ---- define --------------------------------------------------------------------------------- */

/* A new entry of a table tab[] of entry pointers with *n in use: a released
 * entry (free_idx[--*nfree]; cleared, its index kept) is reused first, else
 * *spare when not NULL (taken: *spare becomes NULL), else one is calloc'd;
 * a new one gets index *n and is appended. Its uint32_t index is at
 * index_off. tab and spare (NULL: none) hold entry pointers of one type,
 * reached through memcpy. NULL only when calloc fails. */
static void *entry_new(void *tab, uint32_t *n, const uint16_t *free_idx, uint32_t *nfree,
                       void *spare, size_t size, size_t index_off) {
    void *e = NULL, *const none = NULL;
    uint32_t index = *n;
    if (*nfree) {
        memcpy(&e, (char *)tab + free_idx[--*nfree] * sizeof e, sizeof e);
        memcpy(&index, (char *)e + index_off, sizeof index);
        memset(e, 0, size);
    } else {
        if (spare) memcpy(&e, spare, sizeof e);
        if (e)
            memcpy(spare, &none, sizeof none);
        else if (!(e = calloc(1, size)))
            return NULL;
        memcpy((char *)tab + (*n)++ * sizeof e, &e, sizeof e);
    }
    memcpy((char *)e + index_off, &index, sizeof index);
    return e;
}

/* Defines or redefines an already validated cue whose category exists. A new
 * entry is *spare when given (and *spare becomes NULL), else calloc'd; the
 * caller has checked the cap. NULL only when calloc fails. */
hld_cue_t *hld_cue_apply(hld_cues_t *c, const hl_cue_t *m, hld_cue_t **spare, hld_cue_t *into,
                         hld_category_t *cat) {
    hld_cue_t *e = into;
    if (e) {
        if (e->def.nsounds != m->nsounds) {
            e->seq_next = 0;
            e->last_pick = -1;
        }
    } else {
        e = entry_new(c->cues, &c->ncues, c->cue_free, &c->ncue_free, spare, sizeof *e,
                      offsetof(hld_cue_t, index));
        if (!e) return NULL;
        e->last_pick = -1;
        c->cue_slot[free_slot_of(c->cue_slot, HLD_CUE_SLOTS, m->name)] = (uint16_t)(e->index + 1u);
    }
    e->def = *m;
    e->cat = cat;
    return e;
}

hld_category_t *hld_cat_apply(hld_cues_t *c, const hl_category_t *m, hld_category_t **spare,
                              hld_category_t *into) {
    hld_category_t *e = into;
    if (!e) {
        e = entry_new(c->cats, &c->ncats, c->cat_free, &c->ncat_free, spare, sizeof *e,
                      offsetof(hld_category_t, index));
        if (!e) return NULL;
        c->cat_slot[free_slot_of(c->cat_slot, HLD_CAT_SLOTS, m->name)] = (uint16_t)(e->index + 1u);
    }
    e->def = *m;
    return e;
}

static int fail_why(const char **why, const char *w, int rc) {
    if (why) *why = w;
    return rc;
}

int hld_cues_define_in(hld_cues_t *c, const hl_cue_t *m, hld_cue_t *old, hld_category_t *cat,
                       hld_cue_t **out, const char **why) {
    const char *w, *key;
    if (out) *out = NULL;
    int rc = hld_cue_check(m, &w, &key);
    if (rc) return fail_why(why, w, rc);
    if (m->category[0] && !cat)
        return fail_why(why, "category: no such category", HELIOD_ENOCATEGORY);
    if (hld_cues_count(c) >= HLD_MAX_CUES && !old)
        return fail_why(why, "cue: 4096 cues are defined already", HELIOD_ENOMEM);
    hld_cue_t *e = hld_cue_apply(c, m, NULL, old, m->category[0] ? cat : NULL);
    if (!e) return fail_why(why, "cue: out of memory", HELIOD_ENOMEM);
    if (out) *out = e;
    return 0;
}

int hld_cues_define(hld_cues_t *c, const hl_cue_t *m, hld_cue_t **out, const char **why) {
    return hld_cues_define_in(c, m, hld_cues_find(c, m->name),
                              m->category[0] ? hld_cues_find_category(c, m->category) : NULL, out,
                              why);
}

int hld_cues_define_category_in(hld_cues_t *c, const hl_category_t *m, hld_category_t *old,
                                hld_category_t **out, const char **why) {
    const char *w, *key;
    if (out) *out = NULL;
    int rc = hld_cat_check(m, &w, &key);
    if (rc) return fail_why(why, w, rc);
    if (hld_cues_count_categories(c) >= HLD_MAX_CATEGORIES && !old)
        return fail_why(why, "category: 256 categories are defined already", HELIOD_ENOMEM);
    hld_category_t *e = hld_cat_apply(c, m, NULL, old);
    if (!e) return fail_why(why, "category: out of memory", HELIOD_ENOMEM);
    if (out) *out = e;
    return 0;
}

int hld_cues_define_category(hld_cues_t *c, const hl_category_t *m, hld_category_t **out,
                             const char **why) {
    return hld_cues_define_category_in(c, m, hld_cues_find_category(c, m->name), out, why);
}

/* ---- randomness ----------------------------------------------------------------------------- */

static uint64_t rng_next(hld_cues_t *c) {
    uint64_t x = c->rng ? c->rng : RNG_DEFAULT_SEED;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    c->rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* uniform in [0, n), n <= 2^32 (multiply-shift: bias < n / 2^32) */
static uint32_t rng_below(hld_cues_t *c, uint32_t n) {
    return (uint32_t)(((rng_next(c) >> 32) * (uint64_t)n) >> 32);
}

/* uniform in [-1, 1], both ends included */
static double rng_signed_unit(hld_cues_t *c) {
    double u = (double)(rng_next(c) >> 11) / (double)((1ull << 53) - 1u);
    return 2.0 * u - 1.0;
}

uint32_t hld_cue_pick(hld_cues_t *c, hld_cue_t *cue) {
    uint32_t n = cue->def.nsounds, i;
    if (n <= 1) return 0;
    switch (cue->def.pick) {
    case HL_PICK_SEQUENCE:
        i = cue->seq_next % n;
        cue->seq_next = (i + 1u) % n;
        break;
    case HL_PICK_SHUFFLE:
        if (cue->last_pick >= 0 && (uint32_t)cue->last_pick < n) {
            /* one of the n - 1 others, uniformly */
            i = rng_below(c, n - 1u);
            if (i >= (uint32_t)cue->last_pick) i++;
        } else {
            i = rng_below(c, n);
        }
        break;
    default: i = rng_below(c, n); break;
    }
    cue->last_pick = (int32_t)i;
    return i;
}

float hld_cue_roll_gain_db(hld_cues_t *c, const hld_cue_t *cue) {
    float r = cue->def.gain_rand_db;
    if (!(r > 0.0f)) return cue->def.gain_db;
    double lo = (double)cue->def.gain_db - r, hi = (double)cue->def.gain_db + r;
    double g = (double)cue->def.gain_db + (double)r * rng_signed_unit(c);
    return (float)(g < lo ? lo : g > hi ? hi : g);
}

float hld_cue_roll_pitch(hld_cues_t *c, const hld_cue_t *cue) {
    float cents = cue->def.pitch_rand_cents;
    if (!(cents > 0.0f)) return cue->def.pitch;
    double p = (double)cue->def.pitch * exp2((double)cents * rng_signed_unit(c) / 1200.0);
    if (p < HL_MIN_PITCH) p = HL_MIN_PITCH;
    if (p > HL_MAX_PITCH) p = HL_MAX_PITCH;
    return (float)p;
}
