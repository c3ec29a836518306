/*
 * cue_sheet_cues.c - the [cue NAME] and [category NAME] sections of a cue
 * sheet (cue_sheet_int.h): their key tables, the value of each key, a cue's
 * bind = lines, tempo and tempo-change. A new cue key is a row of
 * k_cue_keys (and, when its value is a new kind, a case of set_key).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cue_sheet_int.h"
#include "cues_int.h"
#include "hld_text.h"

typedef enum {
    K_SOUND,  /* appends comma-separated names to sounds[] */
    K_ENUM,   /* uint8_t, hl_enum_from(arg) */
    K_FLOAT,  /* float */
    K_I32,    /* int32_t */
    K_U32,    /* uint32_t */
    K_NAME,   /* char[HL_MAX_NAME + 1], "" allowed */
    K_BOOL,   /* flag bit arg in flags */
    K_INTERP, /* linear | cubic | sinc: HL_CUE_LINEAR/CUBIC/SINC in flags */
    K_SEND,   /* "BUS:DB[, BUS:DB]": the cue's sends (hl_vpost_t) */
} ktype_t;

typedef struct {
    const char *key;
    uint8_t type; /* ktype_t */
    uint8_t arg;  /* K_ENUM: hl_enum_kind_t; K_BOOL: the flag */
    size_t off;   /* of the field in hl_cue_t / hl_category_t */
} ini_key_t;

#define CUE_KEY(k, t, a, f)                                                                        \
    { k, t, a, offsetof(hl_cue_t, f) }
#define CAT_KEY(k, t, a, f)                                                                        \
    { k, t, a, offsetof(hl_category_t, f) }

static const ini_key_t k_cue_keys[] = {
    CUE_KEY("sound", K_SOUND, 0, sounds),
    CUE_KEY("pick", K_ENUM, HL_ENUM_PICK, pick),
    CUE_KEY("gain", K_FLOAT, 0, gain_db),
    CUE_KEY("gain-rand", K_FLOAT, 0, gain_rand_db),
    CUE_KEY("pitch", K_FLOAT, 0, pitch),
    CUE_KEY("pitch-rand", K_FLOAT, 0, pitch_rand_cents),
    CUE_KEY("bus", K_NAME, 0, bus),
    CUE_KEY("category", K_NAME, 0, category),
    CUE_KEY("priority", K_I32, 0, priority),
    CUE_KEY("pan", K_FLOAT, 0, pan),
    CUE_KEY("3d", K_BOOL, HL_CUE_3D, flags),
    CUE_KEY("loop", K_BOOL, HL_CUE_LOOP, flags),
    CUE_KEY("interp", K_INTERP, 0, flags),
    CUE_KEY("min-distance", K_FLOAT, 0, min_distance),
    CUE_KEY("max-distance", K_FLOAT, 0, max_distance),
    CUE_KEY("rolloff", K_FLOAT, 0, rolloff),
    CUE_KEY("model", K_ENUM, HL_ENUM_MODEL, model),
    CUE_KEY("fade-in", K_FLOAT, 0, fade_in_ms),
    CUE_KEY("fade-out", K_FLOAT, 0, fade_out_ms),
    CUE_KEY("fade-curve", K_ENUM, HL_ENUM_CURVE, fade_curve),
    CUE_KEY("max-instances", K_U32, 0, max_instances),
    CUE_KEY("overflow", K_ENUM, HL_ENUM_OVERFLOW, overflow),
    CUE_KEY("min-interval", K_FLOAT, 0, min_interval_ms),
    CUE_KEY("beyond", K_ENUM, HL_ENUM_BEYOND, beyond),
    CUE_KEY("virtual", K_ENUM, HL_ENUM_VIRT, virt),
    CUE_KEY("doppler", K_FLOAT, 0, doppler),
    CUE_KEY("lp", K_FLOAT, 0, post.lp_hz),
    CUE_KEY("hp", K_FLOAT, 0, post.hp_hz),
    CUE_KEY("occlusion", K_FLOAT, 0, post.occlusion),
    CUE_KEY("obstruction", K_FLOAT, 0, post.obstruction),
    CUE_KEY("send", K_SEND, 0, post),
};
_Static_assert(sizeof k_cue_keys / sizeof k_cue_keys[0] == NCUE_KEYS, "NCUE_KEYS");

static const ini_key_t k_cat_keys[] = {
    CAT_KEY("max-instances", K_U32, 0, max_instances),
    CAT_KEY("overflow", K_ENUM, HL_ENUM_OVERFLOW, overflow),
    CAT_KEY("fade-out", K_FLOAT, 0, fade_out_ms),
    CAT_KEY("fade-curve", K_ENUM, HL_ENUM_CURVE, fade_curve),
};
_Static_assert(sizeof k_cat_keys / sizeof k_cat_keys[0] == NCAT_KEYS, "NCAT_KEYS");

static const char *tmp_cue_name_at(const void *tab, uint32_t i) {
    return ((const hld_sheet_cue_t *)tab)[i].def.name;
}
static const char *tmp_cat_name_at(const void *tab, uint32_t i) {
    return ((const hld_sheet_cat_t *)tab)[i].def.name;
}

static int bad_enum(hld_sheet_t *L, const char *key, hl_enum_kind_t kind, const char *v) {
    char names[160] = "";
    size_t n = 0;
    for (int i = 0; hl_enum_name(kind, i) && n < sizeof names; i++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                              hl_enum_name(kind, i));
    return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: unknown value '%.64s' (one of: %s)", key,
                          v, names);
}

static int add_sounds(hld_sheet_t *L, hl_cue_t *m, char *v) {
    for (char *tok = v;;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        char *name = hld_trim(tok);
        if (!hl_name_valid(name))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "sound: invalid sound name '%.64s'",
                                  name);
        if (m->nsounds >= HL_MAX_CUE_SOUNDS)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "sound: more than %d sounds",
                                  HL_MAX_CUE_SOUNDS);
        memcpy(m->sounds[m->nsounds++], name, strlen(name) + 1);
        if (!comma) return 0;
        tok = comma + 1;
    }
}

/* "BUS:DB[, BUS:DB]" -> the sends of p (replacing them). */
static int set_sends(hld_sheet_t *L, hl_vpost_t *p, char *v) {
    for (int i = 0; i < HL_VOICE_SENDS; i++) {
        p->send[i][0] = '\0';
        p->send_db[i] = 0.0f;
    }
    char *tok = v;
    for (int i = 0; tok; i++) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        char *item = hld_trim(tok), *colon = strrchr(item, ':');
        float db;
        if (i >= HL_VOICE_SENDS)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "send: more than %d sends",
                                  HL_VOICE_SENDS);
        if (!colon)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "send: '%.64s' is not BUS:DB", item);
        *colon = '\0';
        char *name = hld_trim(item);
        if (!hl_name_valid(name) || hld_sheet_float(hld_trim(colon + 1), &db))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "send: '%.64s' is not BUS:DB", name);
        memcpy(p->send[i], name, strlen(name) + 1);
        p->send_db[i] = db;
        tok = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* Sets one key of obj (an hl_cue_t or hl_category_t) from value v. */
static int set_key(hld_sheet_t *L, const ini_key_t *k, void *obj, char *v) {
    char *f = (char *)obj + k->off;
    long long x;
    float fv;
    int e;
    if (!*v && k->type != K_NAME)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: no value", k->key);
    switch (k->type) {
    case K_SOUND: return add_sounds(L, obj, v);
    case K_SEND: return set_sends(L, (hl_vpost_t *)(void *)f, v);
    case K_ENUM:
        e = hl_enum_from((hl_enum_kind_t)k->arg, v);
        if (e < 0) return bad_enum(L, k->key, (hl_enum_kind_t)k->arg, v);
        *(uint8_t *)f = (uint8_t)e;
        return 0;
    case K_FLOAT:
        if (hld_sheet_float(v, &fv))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: '%.64s' is not a finite number",
                                  k->key, v);
        memcpy(f, &fv, sizeof fv);
        return 0;
    case K_I32:
        if (hld_sheet_int(v, INT32_MIN, INT32_MAX, &x))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: '%.64s' is not an integer",
                                  k->key, v);
        *(int32_t *)f = (int32_t)x;
        return 0;
    case K_U32:
        if (hld_sheet_int(v, 0, UINT32_MAX, &x))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: '%.64s' is not an integer >= 0",
                                  k->key, v);
        *(uint32_t *)f = (uint32_t)x;
        return 0;
    case K_NAME:
        if (*v && !hl_name_valid(v))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: invalid name '%.64s'", k->key, v);
        memcpy(f, v, strlen(v) + 1);
        return 0;
    case K_BOOL:
        e = hld_sheet_bool(v);
        if (e < 0)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                                  "%s: '%.64s' is not true, false, yes, no, 1 or 0", k->key, v);
        if (e)
            *(uint32_t *)f |= k->arg;
        else
            *(uint32_t *)f &= ~(uint32_t)k->arg;
        return 0;
    case K_INTERP: {
        uint32_t m = strcmp(v, "sinc") == 0     ? HL_CUE_SINC
                     : strcmp(v, "cubic") == 0  ? HL_CUE_CUBIC
                     : strcmp(v, "linear") == 0 ? HL_CUE_LINEAR
                                                : 0;
        if (!m)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                                  "%s: '%.64s' is not linear, cubic or sinc", k->key, v);
        *(uint32_t *)f = (*(uint32_t *)f & ~(uint32_t)HL_PLAY_INTERP) | m;
        return 0;
    }
    default: return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: internal error", k->key);
    }
}

static int key_index(const ini_key_t *keys, int n, const char *key) {
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i].key, key) == 0) return i;
    return -1;
}

static uint32_t line_of(const ini_key_t *keys, int nkeys, const uint32_t *lines, uint32_t sect,
                        const char *key) {
    int k = key ? key_index(keys, nkeys, key) : -1;
    return k >= 0 && lines[k] ? lines[k] : sect;
}

uint32_t hld_sheet_cue_line(const hld_sheet_cue_t *t, const char *key) {
    return line_of(k_cue_keys, NCUE_KEYS, t->key_line, t->line, key);
}

uint32_t hld_sheet_cat_line(const hld_sheet_cat_t *t, const char *key) {
    return line_of(k_cat_keys, NCAT_KEYS, t->key_line, t->line, key);
}

int hld_sheet_has_cue(const hld_sheet_t *L, const char *name) {
    return L->cue_slot[hld_cues_slot_of(L->cue_slot, HLD_CUE_SLOTS, name, tmp_cue_name_at,
                                        L->cues)] != 0;
}

int hld_sheet_has_cat(const hld_sheet_t *L, const char *name) {
    return L->cat_slot[hld_cues_slot_of(L->cat_slot, HLD_CAT_SLOTS, name, tmp_cat_name_at,
                                        L->cats)] != 0;
}

/* [cue NAME] (cue) or [category NAME] begins: a new entry of its table,
 * refused when the sheet defines the name already or holds the most. */
static int sheet_open(hld_sheet_t *L, const char *name, int cue) {
    const char *kind = cue ? "cue" : "category";
    uint16_t *slots = cue ? L->cue_slot : L->cat_slot;
    uint32_t sl = cue ? hld_cues_slot_of(slots, HLD_CUE_SLOTS, name, tmp_cue_name_at, L->cues)
                      : hld_cues_slot_of(slots, HLD_CAT_SLOTS, name, tmp_cat_name_at, L->cats);
    if (slots[sl])
        return hld_sheet_fail(
            L, L->line, HELIOD_EINVAL, "%s %s: already defined at line %u", kind, name,
            (unsigned)(cue ? L->cues[slots[sl] - 1u].line : L->cats[slots[sl] - 1u].line));
    uint32_t n = cue ? L->ncues : L->ncats, max = cue ? HLD_MAX_CUES : HLD_MAX_CATEGORIES;
    if (n >= max)
        return hld_sheet_fail(L, L->line, HELIOD_ENOMEM, "more than %u %s in one file",
                              (unsigned)max, cue ? "cues" : "categories");
    if (cue ? hld_sheet_grow((void **)&L->cues, &L->capcues, n, max, sizeof *L->cues)
            : hld_sheet_grow((void **)&L->cats, &L->capcats, n, max, sizeof *L->cats))
        return hld_sheet_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
    slots[sl] = (uint16_t)(n + 1u);
    if (cue) {
        L->cur_cue = &L->cues[L->ncues++];
        memset(L->cur_cue, 0, sizeof *L->cur_cue);
        hl_cue_init(&L->cur_cue->def);
        memcpy(L->cur_cue->def.name, name, strlen(name) + 1);
        L->cur_cue->line = L->line;
    } else {
        L->cur_cat = &L->cats[L->ncats++];
        memset(L->cur_cat, 0, sizeof *L->cur_cat);
        hl_category_init(&L->cur_cat->def);
        memcpy(L->cur_cat->def.name, name, strlen(name) + 1);
        L->cur_cat->line = L->line;
    }
    return 0;
}

int hld_sheet_cue_open(hld_sheet_t *L, const char *name) {
    return sheet_open(L, name, 1);
}

int hld_sheet_cat_open(hld_sheet_t *L, const char *name) {
    return sheet_open(L, name, 0);
}

/* "bind = PARAM PROP[:INDEX] [X:Y[:SHAPE] ...]" in a cue section; switch
 * and blend take bare X values (boundaries / positions). Checked against
 * the parameter in hld_sheet_check (it may be defined later in the file). */
static int parse_bind(hld_sheet_t *L, hld_sheet_cue_t *t, char *v) {
    if (t->nbinds >= HL_MAX_CUE_BINDS)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "cue %s: bind: more than %d bindings",
                              t->def.name, HL_MAX_CUE_BINDS);
    if (!t->binds && !(t->binds = calloc(HL_MAX_CUE_BINDS, sizeof *t->binds)))
        return hld_sheet_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
    hl_bind_t *b = &t->binds[t->nbinds];
    hl_bind_init(b);
    char *save = NULL, *param = strtok_r(v, " \t", &save), *prop = strtok_r(NULL, " \t", &save);
    if (!param || !prop)
        return hld_sheet_fail(
            L, L->line, HELIOD_EINVAL,
            "bind: expected PARAM PROPERTY [X:Y[:SHAPE] ...] (gain, pitch, lp, hp, "
            "occlusion, send[:N], switch, blend)");
    if (!hl_name_valid(param))
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "bind: invalid parameter name '%.64s'",
                              param);
    snprintf(b->param, sizeof b->param, "%s", param);
    snprintf(b->cue, sizeof b->cue, "%s", t->def.name);
    char *idx = strchr(prop, ':');
    if (idx) *idx++ = '\0';
    int pr = hl_enum_from(HL_ENUM_PROP, prop);
    if (pr < 0)
        return hld_sheet_fail(
            L, L->line, HELIOD_EINVAL,
            "bind: unknown property '%.32s' (gain, pitch, lp, hp, occlusion, send, "
            "switch, blend)",
            prop);
    b->prop = (uint8_t)pr;
    if (pr == HL_PROP_BUS_GAIN || pr == HL_PROP_FX || pr == HL_PROP_SNAPSHOT)
        return hld_sheet_fail(
            L, L->line, HELIOD_EINVAL,
            "bind: %s binds a bus or a snapshot, not a cue (heliodctl bind NAME ... / "
            "BIND)",
            prop);
    if (idx) {
        long long n;
        if (pr != HL_PROP_SEND || hld_sheet_int(idx, 0, HL_VOICE_SENDS - 1, &n))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                                  "bind: %s:%.16s: only send takes an index (0, 1)", prop, idx);
        b->index = (uint8_t)n;
    }
    int choice = pr == HL_PROP_SWITCH || pr == HL_PROP_BLEND;
    for (char *pt = strtok_r(NULL, " \t", &save); pt; pt = strtok_r(NULL, " \t", &save)) {
        if (b->npoints >= HL_MAX_CURVE_POINTS)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "bind: a curve has at most %d points",
                                  HL_MAX_CURVE_POINTS);
        char *ys = strchr(pt, ':'), *sh = NULL;
        if (ys) *ys++ = '\0';
        if (ys && (sh = strchr(ys, ':'))) *sh++ = '\0';
        unsigned k = b->npoints;
        if (hld_sheet_float(pt, &b->x[k]) || (!choice && (!ys || hld_sheet_float(ys, &b->y[k]))) ||
            (choice && ys))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "bind: point %u: expected %s", k + 1,
                                  choice ? "a parameter value" : "X:Y or X:Y:SHAPE");
        if (sh) {
            int s = hl_enum_from(HL_ENUM_SHAPE, sh);
            if (s < 0)
                return hld_sheet_fail(
                    L, L->line, HELIOD_EINVAL,
                    "bind: point %u: unknown shape '%.32s' (linear, exp, log, scurve)", k + 1, sh);
            if (k < 15) b->shapes |= (uint32_t)s << (2 * k);
        }
        b->npoints++;
    }
    /* a shape on the last point has no segment after it */
    if (b->npoints && b->npoints <= 16)
        b->shapes &= b->npoints > 1 ? (1u << (2 * (b->npoints - 1))) - 1u : 0u;
    const char *why = NULL;
    if (hl_validate_bind(b, &why))
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "bind: %s", why);
    t->bind_line[t->nbinds++] = L->line;
    return 0;
}

int hld_sheet_cue_key(hld_sheet_t *L, const char *key, char *val) {
    if (L->cur_cue && (strcmp(key, "tempo") == 0 || strcmp(key, "tempo-change") == 0)) {
        const char *why = NULL;
        int is_tempo = key[5] == '\0';
        if (is_tempo && L->cur_cue->tempo_line)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "tempo: already set at line %u",
                                  (unsigned)L->cur_cue->tempo_line);
        if (is_tempo) L->cur_cue->tempo_line = L->line;
        if ((is_tempo ? hld_tempo_parse : hld_tempo_parse_change)(&L->cur_cue->tempo, val, &why))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "cue %s: %s", L->cur_cue->def.name,
                                  why);
        return 0;
    }
    const ini_key_t *keys = L->cur_cue ? k_cue_keys : k_cat_keys;
    int nkeys = L->cur_cue ? NCUE_KEYS : NCAT_KEYS;
    uint32_t *lines = L->cur_cue ? L->cur_cue->key_line : L->cur_cat->key_line;
    void *obj = L->cur_cue ? (void *)&L->cur_cue->def : (void *)&L->cur_cat->def;
    if (L->cur_cue && strcmp(key, "bind") == 0) return parse_bind(L, L->cur_cue, val);
    if (L->cur_cue) { /* cone, attenuation */
        const char *why = NULL;
        uint32_t prev = 0;
        int r = hld_cue_spatial_key(&L->cur_cue->sp, key, val, L->line, &prev, &why);
        if (r < 0 && prev)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: already set at line %u", key,
                                  prev);
        if (r < 0)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "cue %s: %s", L->cur_cue->def.name,
                                  why);
        if (r > 0) return 0;
    }
    int k = key_index(keys, nkeys, key);
    if (k < 0)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "unknown key '%.64s' in a %s section", key,
                              L->cur_cue ? "cue" : "category");
    if (lines[k] && keys[k].type != K_SOUND)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: already set at line %u", keys[k].key,
                              (unsigned)lines[k]);
    lines[k] = L->line;
    return set_key(L, &keys[k], obj, val);
}
