/*
 * cue_sheet.c - the INI cue-sheet loader (see cues.h: hld_cues_load_file,
 * hld_cues_load_mem). It parses a whole file into temporary definitions,
 * validates all of them (categories first, so a cue may name a category
 * defined later in the same file), allocates every new entry it needs, and
 * only then applies them through cues.c: on any error nothing changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cue_spatial.h"
#include "cues.h"
#include "cues_int.h"
#include "hld_text.h"
#include "params.h"

#define INI_MAX_LINE 8192 /* bytes per line (newline excluded) */

/* ---- INI cue sheets ------------------------------------------------------------------------- */

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
#define NCUE_KEYS 31
_Static_assert(sizeof k_cue_keys / sizeof k_cue_keys[0] == NCUE_KEYS, "NCUE_KEYS");

static const ini_key_t k_cat_keys[] = {
    CAT_KEY("max-instances", K_U32, 0, max_instances),
    CAT_KEY("overflow", K_ENUM, HL_ENUM_OVERFLOW, overflow),
    CAT_KEY("fade-out", K_FLOAT, 0, fade_out_ms),
    CAT_KEY("fade-curve", K_ENUM, HL_ENUM_CURVE, fade_curve),
};
#define NCAT_KEYS 4
_Static_assert(sizeof k_cat_keys / sizeof k_cat_keys[0] == NCAT_KEYS, "NCAT_KEYS");

typedef struct {
    hl_cue_t def;
    uint32_t line;                /* of the [cue NAME] header */
    uint32_t key_line[NCUE_KEYS]; /* last line that set each key, 0 = not set */
    hl_bind_t *binds;             /* its bind = lines (malloc'd, HL_MAX_CUE_BINDS) */
    uint32_t nbinds;
    uint32_t bind_line[HL_MAX_CUE_BINDS];
    hld_bind_t *out;   /* allocated by ld_check, taken by the cue when applied */
    hld_tempo_t tempo; /* `tempo` / `tempo-change` (a sheet's only: not on the wire) */
    uint32_t tempo_line;
    hld_cue_spatial_t sp; /* `cone`, `attenuation` (cue_spatial.c) */
} tmp_cue_t;

typedef struct {
    hl_param_def_t def;
    uint32_t line;
} tmp_param_t;

typedef struct {
    hl_category_t def;
    uint32_t line;
    uint32_t key_line[NCAT_KEYS];
} tmp_cat_t;

typedef struct {
    const char *path;
    char *err;
    size_t errcap;
    uint32_t line; /* being parsed */
    tmp_cue_t *cues;
    uint32_t ncues, capcues;
    tmp_cat_t *cats;
    uint32_t ncats, capcats;
    tmp_param_t *params; /* [parameter NAME] MIN MAX DEFAULT SEEK lines */
    uint32_t nparams, capparams;
    tmp_cue_t *cur_cue; /* section being parsed: one of these or neither */
    tmp_cat_t *cur_cat;
    hl_snapshot_t *snaps; /* [snapshot NAME]: its define, then its settings */
    uint32_t *snap_line;
    uint32_t nsnaps, capsnaps, cap_lines;
    int in_snap; /* the section being parsed is a snapshot (snaps[cur_snap]) */
    uint32_t cur_snap;
    uint16_t cue_slot[HLD_CUE_SLOTS]; /* names defined in this file (duplicate sections) */
    uint16_t cat_slot[HLD_CAT_SLOTS];
    hld_music_t *mus[HLD_MAX_MUSIC]; /* [music NAME] sections, allocated as parsed */
    uint32_t nmus;
    hld_music_t *cur_mus;
} ld_t;

static const char *tmp_cue_name_at(const void *tab, uint32_t i) {
    return ((const tmp_cue_t *)tab)[i].def.name;
}
static const char *tmp_cat_name_at(const void *tab, uint32_t i) {
    return ((const tmp_cat_t *)tab)[i].def.name;
}

/* "PATH:LINE: message" into err (truncated as needed); returns rc. */
__attribute__((format(printf, 4, 5))) static int ld_fail(ld_t *L, uint32_t line, int rc,
                                                         const char *fmt, ...) {
    if (!L->err || !L->errcap) return rc;
    int n = snprintf(L->err, L->errcap, "%s:%u: ", L->path, (unsigned)line);
    if (n < 0 || (size_t)n >= L->errcap) return rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->err + n, L->errcap - (size_t)n, fmt, ap);
    va_end(ap);
    return rc;
}

static int parse_float(const char *v, float *out) {
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno == ERANGE || !isfinite(d) || fabs(d) > 3.4e38) return -1;
    *out = (float)d;
    return 0;
}

static int parse_int(const char *v, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno == ERANGE || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

static int parse_bool(const char *v) {
    if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1")) return 1;
    if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcmp(v, "0")) return 0;
    return -1;
}

static int bad_enum(ld_t *L, const char *key, hl_enum_kind_t kind, const char *v) {
    char names[160] = "";
    size_t n = 0;
    for (int i = 0; hl_enum_name(kind, i) && n < sizeof names; i++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                              hl_enum_name(kind, i));
    return ld_fail(L, L->line, HELIOD_EINVAL, "%s: unknown value '%.64s' (one of: %s)", key, v,
                   names);
}

static int add_sounds(ld_t *L, hl_cue_t *m, char *v) {
    for (char *tok = v;;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        char *name = hld_trim(tok);
        if (!hl_name_valid(name))
            return ld_fail(L, L->line, HELIOD_EINVAL, "sound: invalid sound name '%.64s'", name);
        if (m->nsounds >= HL_MAX_CUE_SOUNDS)
            return ld_fail(L, L->line, HELIOD_EINVAL, "sound: more than %d sounds",
                           HL_MAX_CUE_SOUNDS);
        memcpy(m->sounds[m->nsounds++], name, strlen(name) + 1);
        if (!comma) return 0;
        tok = comma + 1;
    }
}

/* "BUS:DB[, BUS:DB]" -> the sends of p (replacing them). */
static int set_sends(ld_t *L, hl_vpost_t *p, char *v) {
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
            return ld_fail(L, L->line, HELIOD_EINVAL, "send: more than %d sends", HL_VOICE_SENDS);
        if (!colon) return ld_fail(L, L->line, HELIOD_EINVAL, "send: '%.64s' is not BUS:DB", item);
        *colon = '\0';
        char *name = hld_trim(item);
        if (!hl_name_valid(name) || parse_float(hld_trim(colon + 1), &db))
            return ld_fail(L, L->line, HELIOD_EINVAL, "send: '%.64s' is not BUS:DB", name);
        memcpy(p->send[i], name, strlen(name) + 1);
        p->send_db[i] = db;
        tok = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* Sets one key of obj (an hl_cue_t or hl_category_t) from value v. */
static int set_key(ld_t *L, const ini_key_t *k, void *obj, char *v) {
    char *f = (char *)obj + k->off;
    long long x;
    float fv;
    int e;
    if (!*v && k->type != K_NAME) return ld_fail(L, L->line, HELIOD_EINVAL, "%s: no value", k->key);
    switch (k->type) {
    case K_SOUND: return add_sounds(L, obj, v);
    case K_SEND: return set_sends(L, (hl_vpost_t *)(void *)f, v);
    case K_ENUM:
        e = hl_enum_from((hl_enum_kind_t)k->arg, v);
        if (e < 0) return bad_enum(L, k->key, (hl_enum_kind_t)k->arg, v);
        *(uint8_t *)f = (uint8_t)e;
        return 0;
    case K_FLOAT:
        if (parse_float(v, &fv))
            return ld_fail(L, L->line, HELIOD_EINVAL, "%s: '%.64s' is not a finite number", k->key,
                           v);
        memcpy(f, &fv, sizeof fv);
        return 0;
    case K_I32:
        if (parse_int(v, INT32_MIN, INT32_MAX, &x))
            return ld_fail(L, L->line, HELIOD_EINVAL, "%s: '%.64s' is not an integer", k->key, v);
        *(int32_t *)f = (int32_t)x;
        return 0;
    case K_U32:
        if (parse_int(v, 0, UINT32_MAX, &x))
            return ld_fail(L, L->line, HELIOD_EINVAL, "%s: '%.64s' is not an integer >= 0", k->key,
                           v);
        *(uint32_t *)f = (uint32_t)x;
        return 0;
    case K_NAME:
        if (*v && !hl_name_valid(v))
            return ld_fail(L, L->line, HELIOD_EINVAL, "%s: invalid name '%.64s'", k->key, v);
        memcpy(f, v, strlen(v) + 1);
        return 0;
    case K_BOOL:
        e = parse_bool(v);
        if (e < 0)
            return ld_fail(L, L->line, HELIOD_EINVAL,
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
            return ld_fail(L, L->line, HELIOD_EINVAL, "%s: '%.64s' is not linear, cubic or sinc",
                           k->key, v);
        *(uint32_t *)f = (*(uint32_t *)f & ~(uint32_t)HL_PLAY_INTERP) | m;
        return 0;
    }
    default: return ld_fail(L, L->line, HELIOD_EINVAL, "%s: internal error", k->key);
    }
}

static int key_index(const ini_key_t *keys, int n, const char *key) {
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i].key, key) == 0) return i;
    return -1;
}

/* Grows *arr (of elem-byte entries) to hold at least one more, up to max. */
static int grow(void **arr, uint32_t *cap, uint32_t n, uint32_t max, size_t elem) {
    if (n < *cap) return 0;
    uint32_t nc = *cap ? *cap * 2u : 16u;
    if (nc > max) nc = max;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p) return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

/* Appends a SNAPSHOT request of the sheet (line: the current one). */
static int snap_add(ld_t *L, const hl_snapshot_t *m) {
    if (L->nsnaps >= HL_MAX_SNAPSHOTS * (HL_SNAP_ENTRIES + 1u))
        return ld_fail(L, L->line, HELIOD_ENOMEM, "more than %d snapshot lines in one file",
                       HL_MAX_SNAPSHOTS * (HL_SNAP_ENTRIES + 1));
    uint32_t cl = L->cap_lines;
    if (grow((void **)&L->snaps, &L->capsnaps, L->nsnaps, UINT32_MAX, sizeof *L->snaps) ||
        grow((void **)&L->snap_line, &cl, L->nsnaps, UINT32_MAX, sizeof *L->snap_line))
        return ld_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
    L->cap_lines = cl;
    L->snaps[L->nsnaps] = *m;
    L->snap_line[L->nsnaps++] = L->line;
    return 0;
}

/* A key of a [snapshot NAME] section: priority = N, fade = MS, and any
 * number of gain = BUS DB, mute = BUS [on|off], fx = BUS INDEX PARAM VALUE. */
static int snap_key(ld_t *L, const char *key, char *val) {
    hl_snapshot_t *def = &L->snaps[L->cur_snap];
    char *end = NULL;
    if (strcmp(key, "priority") == 0) {
        long v = strtol(val, &end, 10);
        if (end == val || *end || v < -HL_MAX_PRIORITY || v > HL_MAX_PRIORITY)
            return ld_fail(L, L->line, HELIOD_EINVAL, "priority: an integer in [-1000, 1000]");
        def->priority = (int32_t)v;
        return 0;
    }
    if (strcmp(key, "fade") == 0) {
        float v = strtof(val, &end);
        if (end == val || *end || !(v >= 0.0f && v <= HL_MAX_FADE_MS))
            return ld_fail(L, L->line, HELIOD_EINVAL, "fade: milliseconds in [0, 60000]");
        def->fade_ms = v;
        return 0;
    }
    hl_snapshot_t m;
    hl_snapshot_init(&m);
    m.action = HL_SNAP_SET;
    memcpy(m.name, def->name, sizeof m.name);
    char *tok[5], *save = NULL;
    int n = 0;
    for (char *t = strtok_r(val, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (n < 5)
            tok[n++] = t;
        else
            return ld_fail(L, L->line, HELIOD_EINVAL, "%s: too many values", key);
    if (n < 1 || strlen(tok[0]) > HL_MAX_NAME)
        return ld_fail(L, L->line, HELIOD_EINVAL, "%s: a bus name first", key);
    memcpy(m.bus, tok[0], strlen(tok[0]) + 1);
    int ok = 0;
    if (strcmp(key, "gain") == 0 && n == 2) {
        m.target = HL_SNAPT_GAIN;
        m.value = strcmp(tok[1], "-inf") == 0 ? -HUGE_VALF : strtof(tok[1], &end);
        ok = strcmp(tok[1], "-inf") == 0 || (end != tok[1] && !*end);
    } else if (strcmp(key, "mute") == 0 && (n == 1 || n == 2)) {
        m.target = HL_SNAPT_MUTE;
        m.value = n == 1 || strcmp(tok[1], "on") == 0 ? 1.0f : 0.0f;
        ok = n == 1 || strcmp(tok[1], "on") == 0 || strcmp(tok[1], "off") == 0;
    } else if (strcmp(key, "fx") == 0 && n == 4) {
        m.target = HL_SNAPT_FX;
        char *e1 = NULL, *e2 = NULL;
        long idx = strtol(tok[1], &e1, 10), par = strtol(tok[2], &e2, 10);
        m.value = strtof(tok[3], &end);
        ok = e1 != tok[1] && !*e1 && e2 != tok[2] && !*e2 && end != tok[3] && !*end && idx >= 0 &&
             idx < 8 && par >= 0 && par < HL_FX_PARAMS;
        m.fx_index = (uint32_t)(ok ? idx : 0);
        m.param = (uint8_t)(ok ? par : 0);
    } else if (strcmp(key, "gain") && strcmp(key, "mute") && strcmp(key, "fx")) {
        return ld_fail(L, L->line, HELIOD_EINVAL,
                       "unknown key '%.64s' in a snapshot section (priority, fade, gain, mute, fx)",
                       key);
    }
    if (!ok)
        return ld_fail(L, L->line, HELIOD_EINVAL,
                       "%s: expected gain = BUS DB | mute = BUS [on|off] | fx = BUS INDEX PARAM "
                       "VALUE",
                       key);
    const char *why = NULL;
    if (hl_validate_snapshot(&m, &why) != 0)
        return ld_fail(L, L->line, HELIOD_EINVAL, "snapshot %s: %s", m.name, why);
    return snap_add(L, &m);
}

static int parse_section(ld_t *L, char *s) {
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != ']')
        return ld_fail(L, L->line, HELIOD_EINVAL, "section header: missing ']'");
    s[n - 1] = '\0';
    char *kind = hld_trim(s + 1), *name = kind;
    while (*name && *name != ' ' && *name != '\t')
        name++;
    if (*name) *name++ = '\0';
    name = hld_trim(name);
    int is_cue = strcmp(kind, "cue") == 0, is_mus = strcmp(kind, "music") == 0;
    int is_snap = strcmp(kind, "snapshot") == 0;
    if (!is_cue && !is_snap && !is_mus && strcmp(kind, "category") != 0)
        return ld_fail(L, L->line, HELIOD_EINVAL,
                       "unknown section kind '%.64s' (cue, category, snapshot or music)", kind);
    if (!hl_name_valid(name))
        return ld_fail(L, L->line, HELIOD_EINVAL, "%s: invalid name '%.64s'", kind, name);
    L->cur_cue = NULL;
    L->cur_cat = NULL;
    L->in_snap = 0;
    L->cur_mus = NULL;
    if (is_snap) {
        for (uint32_t i = 0; i < L->nsnaps; i++)
            if (L->snaps[i].action == HL_SNAP_DEFINE && strcmp(L->snaps[i].name, name) == 0)
                return ld_fail(L, L->line, HELIOD_EINVAL, "snapshot %s: already defined at line %u",
                               name, (unsigned)L->snap_line[i]);
        hl_snapshot_t m;
        hl_snapshot_init(&m);
        m.action = HL_SNAP_DEFINE;
        m.fade_ms = 0.0f;
        memcpy(m.name, name, strlen(name) + 1);
        if (snap_add(L, &m)) return HELIOD_ENOMEM;
        L->in_snap = 1;
        L->cur_snap = L->nsnaps - 1;
        return 0;
    }
    if (is_mus) {
        for (uint32_t i = 0; i < L->nmus; i++)
            if (strcmp(L->mus[i]->def.name, name) == 0)
                return ld_fail(L, L->line, HELIOD_EINVAL, "music %s: already defined at line %u",
                               name, (unsigned)L->mus[i]->line);
        if (L->nmus >= HLD_MAX_MUSIC)
            return ld_fail(L, L->line, HELIOD_ENOMEM, "more than %d music sections in one file",
                           HLD_MAX_MUSIC);
        hld_music_t *m = calloc(1, sizeof *m);
        if (!m) return ld_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
        memcpy(m->def.name, name, strlen(name) + 1);
        m->line = L->line;
        L->mus[L->nmus++] = m;
        L->cur_mus = m;
    } else if (is_cue) {
        uint32_t sl = hld_cues_slot_of(L->cue_slot, HLD_CUE_SLOTS, name, tmp_cue_name_at, L->cues);
        if (L->cue_slot[sl])
            return ld_fail(L, L->line, HELIOD_EINVAL, "cue %s: already defined at line %u", name,
                           (unsigned)L->cues[L->cue_slot[sl] - 1u].line);
        if (L->ncues >= HLD_MAX_CUES)
            return ld_fail(L, L->line, HELIOD_ENOMEM, "more than %d cues in one file",
                           HLD_MAX_CUES);
        if (grow((void **)&L->cues, &L->capcues, L->ncues, HLD_MAX_CUES, sizeof *L->cues))
            return ld_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
        tmp_cue_t *t = &L->cues[L->ncues++];
        memset(t, 0, sizeof *t);
        hl_cue_init(&t->def);
        memcpy(t->def.name, name, strlen(name) + 1);
        t->line = L->line;
        L->cue_slot[sl] = (uint16_t)L->ncues;
        L->cur_cue = t;
    } else {
        uint32_t sl = hld_cues_slot_of(L->cat_slot, HLD_CAT_SLOTS, name, tmp_cat_name_at, L->cats);
        if (L->cat_slot[sl])
            return ld_fail(L, L->line, HELIOD_EINVAL, "category %s: already defined at line %u",
                           name, (unsigned)L->cats[L->cat_slot[sl] - 1u].line);
        if (L->ncats >= HLD_MAX_CATEGORIES)
            return ld_fail(L, L->line, HELIOD_ENOMEM, "more than %d categories in one file",
                           HLD_MAX_CATEGORIES);
        if (grow((void **)&L->cats, &L->capcats, L->ncats, HLD_MAX_CATEGORIES, sizeof *L->cats))
            return ld_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
        tmp_cat_t *t = &L->cats[L->ncats++];
        memset(t, 0, sizeof *t);
        hl_category_init(&t->def);
        memcpy(t->def.name, name, strlen(name) + 1);
        t->line = L->line;
        L->cat_slot[sl] = (uint16_t)L->ncats;
        L->cur_cat = t;
    }
    return 0;
}

/* "[parameter NAME] MIN MAX DEFAULT SEEK" (s after "[parameter"): a
 * parameter, and the end of any section (keys after it are refused). */
static int parse_param(ld_t *L, char *s) {
    L->cur_cue = NULL;
    L->cur_cat = NULL;
    L->in_snap = 0;
    L->cur_mus = NULL;
    char *close = strchr(s, ']');
    if (!close) return ld_fail(L, L->line, HELIOD_EINVAL, "section header: missing ']'");
    *close = '\0';
    char *name = hld_trim(s), *rest = close + 1, *tok[5];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(rest, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (n < 5)
            tok[n++] = t;
        else
            n = 5;
    if (!hl_name_valid(name))
        return ld_fail(L, L->line, HELIOD_EINVAL, "parameter: invalid name '%.64s'", name);
    if (n != 4)
        return ld_fail(L, L->line, HELIOD_EINVAL,
                       "parameter %s: expected [parameter NAME] MIN MAX DEFAULT SEEK", name);
    for (uint32_t i = 0; i < L->nparams; i++)
        if (strcmp(L->params[i].def.name, name) == 0)
            return ld_fail(L, L->line, HELIOD_EINVAL, "parameter %s: already defined at line %u",
                           name, (unsigned)L->params[i].line);
    if (L->nparams >= HLD_MAX_PARAMS)
        return ld_fail(L, L->line, HELIOD_ENOMEM, "more than %d parameters in one file",
                       HLD_MAX_PARAMS);
    if (grow((void **)&L->params, &L->capparams, L->nparams, HLD_MAX_PARAMS, sizeof *L->params))
        return ld_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
    tmp_param_t *t = &L->params[L->nparams];
    memset(t, 0, sizeof *t);
    hl_param_def_init(&t->def);
    memcpy(t->def.name, name, strlen(name) + 1);
    float *f[4] = {&t->def.min, &t->def.max, &t->def.def, &t->def.seek};
    static const char *const what[4] = {"min", "max", "default", "seek"};
    for (int i = 0; i < 4; i++)
        if (parse_float(tok[i], f[i]))
            return ld_fail(L, L->line, HELIOD_EINVAL, "parameter %s: %s: not a number '%.32s'",
                           name, what[i], tok[i]);
    const char *why = NULL;
    if (hl_validate_param_def(&t->def, &why))
        return ld_fail(L, L->line, HELIOD_EINVAL, "parameter %s: %s", name, why);
    t->line = L->line;
    L->nparams++;
    return 0;
}

/* "bind = PARAM PROP[:INDEX] [X:Y[:SHAPE] ...]" in a cue section; switch
 * and blend take bare X values (boundaries / positions). Checked against
 * the parameter in ld_check (it may be defined later in the file). */
static int parse_bind(ld_t *L, tmp_cue_t *t, char *v) {
    if (t->nbinds >= HL_MAX_CUE_BINDS)
        return ld_fail(L, L->line, HELIOD_EINVAL, "cue %s: bind: more than %d bindings",
                       t->def.name, HL_MAX_CUE_BINDS);
    if (!t->binds && !(t->binds = calloc(HL_MAX_CUE_BINDS, sizeof *t->binds)))
        return ld_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
    hl_bind_t *b = &t->binds[t->nbinds];
    hl_bind_init(b);
    char *save = NULL, *param = strtok_r(v, " \t", &save), *prop = strtok_r(NULL, " \t", &save);
    if (!param || !prop)
        return ld_fail(L, L->line, HELIOD_EINVAL,
                       "bind: expected PARAM PROPERTY [X:Y[:SHAPE] ...] (gain, pitch, lp, hp, "
                       "occlusion, send[:N], switch, blend)");
    if (!hl_name_valid(param))
        return ld_fail(L, L->line, HELIOD_EINVAL, "bind: invalid parameter name '%.64s'", param);
    snprintf(b->param, sizeof b->param, "%s", param);
    snprintf(b->cue, sizeof b->cue, "%s", t->def.name);
    char *idx = strchr(prop, ':');
    if (idx) *idx++ = '\0';
    int pr = hl_enum_from(HL_ENUM_PROP, prop);
    if (pr < 0)
        return ld_fail(L, L->line, HELIOD_EINVAL,
                       "bind: unknown property '%.32s' (gain, pitch, lp, hp, occlusion, send, "
                       "switch, blend)",
                       prop);
    b->prop = (uint8_t)pr;
    if (pr == HL_PROP_BUS_GAIN || pr == HL_PROP_FX || pr == HL_PROP_SNAPSHOT)
        return ld_fail(L, L->line, HELIOD_EINVAL,
                       "bind: %s binds a bus or a snapshot, not a cue (heliodctl bind NAME ... / "
                       "BIND)",
                       prop);
    if (idx) {
        long long n;
        if (pr != HL_PROP_SEND || parse_int(idx, 0, HL_VOICE_SENDS - 1, &n))
            return ld_fail(L, L->line, HELIOD_EINVAL,
                           "bind: %s:%.16s: only send takes an index (0, 1)", prop, idx);
        b->index = (uint8_t)n;
    }
    int choice = pr == HL_PROP_SWITCH || pr == HL_PROP_BLEND;
    for (char *pt = strtok_r(NULL, " \t", &save); pt; pt = strtok_r(NULL, " \t", &save)) {
        if (b->npoints >= HL_MAX_CURVE_POINTS)
            return ld_fail(L, L->line, HELIOD_EINVAL, "bind: a curve has at most %d points",
                           HL_MAX_CURVE_POINTS);
        char *ys = strchr(pt, ':'), *sh = NULL;
        if (ys) *ys++ = '\0';
        if (ys && (sh = strchr(ys, ':'))) *sh++ = '\0';
        unsigned k = b->npoints;
        if (parse_float(pt, &b->x[k]) || (!choice && (!ys || parse_float(ys, &b->y[k]))) ||
            (choice && ys))
            return ld_fail(L, L->line, HELIOD_EINVAL, "bind: point %u: expected %s", k + 1,
                           choice ? "a parameter value" : "X:Y or X:Y:SHAPE");
        if (sh) {
            int s = hl_enum_from(HL_ENUM_SHAPE, sh);
            if (s < 0)
                return ld_fail(L, L->line, HELIOD_EINVAL,
                               "bind: point %u: unknown shape '%.32s' (linear, exp, log, scurve)",
                               k + 1, sh);
            if (k < 15) b->shapes |= (uint32_t)s << (2 * k);
        }
        b->npoints++;
    }
    /* a shape on the last point has no segment after it */
    if (b->npoints && b->npoints <= 16)
        b->shapes &= b->npoints > 1 ? (1u << (2 * (b->npoints - 1))) - 1u : 0u;
    const char *why = NULL;
    if (hl_validate_bind(b, &why)) return ld_fail(L, L->line, HELIOD_EINVAL, "bind: %s", why);
    t->bind_line[t->nbinds++] = L->line;
    return 0;
}

static int parse_line(ld_t *L, char *raw) {
    char *s = hld_trim(raw);
    if (!*s || *s == '#' || *s == ';') return 0;
    if (strncmp(s, "[parameter", 10) == 0 && (s[10] == ' ' || s[10] == '\t'))
        return parse_param(L, s + 10);
    if (*s == '[') return parse_section(L, s);
    char *eq = strchr(s, '=');
    if (!eq)
        return ld_fail(L, L->line, HELIOD_EINVAL,
                       "expected KEY = VALUE or [cue|category|music NAME]");
    *eq = '\0';
    char *key = hld_trim(s), *val = hld_trim(eq + 1);
    if (L->in_snap) return snap_key(L, key, val);
    if (L->cur_mus) {
        const char *why = NULL;
        int st = strcmp(key, "state") == 0, ly = strcmp(key, "layer") == 0;
        if (!st && !ly && strcmp(key, "transition") != 0)
            return ld_fail(L, L->line, HELIOD_EINVAL,
                           "unknown key '%.64s' in a music section (state, transition or layer)",
                           key);
        if ((st   ? hld_music_add_state
             : ly ? hld_music_add_layer
                  : hld_music_add_transition)(&L->cur_mus->def, val, &why))
            return ld_fail(L, L->line, HELIOD_EINVAL, "music %s: %s", L->cur_mus->def.name, why);
        return 0;
    }
    if (!L->cur_cue && !L->cur_cat)
        return ld_fail(L, L->line, HELIOD_EINVAL, "%.64s: outside a [cue] or [category] section",
                       key);
    if (L->cur_cue && (strcmp(key, "tempo") == 0 || strcmp(key, "tempo-change") == 0)) {
        const char *why = NULL;
        int is_tempo = key[5] == '\0';
        if (is_tempo && L->cur_cue->tempo_line)
            return ld_fail(L, L->line, HELIOD_EINVAL, "tempo: already set at line %u",
                           (unsigned)L->cur_cue->tempo_line);
        if (is_tempo) L->cur_cue->tempo_line = L->line;
        if ((is_tempo ? hld_tempo_parse : hld_tempo_parse_change)(&L->cur_cue->tempo, val, &why))
            return ld_fail(L, L->line, HELIOD_EINVAL, "cue %s: %s", L->cur_cue->def.name, why);
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
            return ld_fail(L, L->line, HELIOD_EINVAL, "%s: already set at line %u", key, prev);
        if (r < 0)
            return ld_fail(L, L->line, HELIOD_EINVAL, "cue %s: %s", L->cur_cue->def.name, why);
        if (r > 0) return 0;
    }
    int k = key_index(keys, nkeys, key);
    if (k < 0)
        return ld_fail(L, L->line, HELIOD_EINVAL, "unknown key '%.64s' in a %s section", key,
                       L->cur_cue ? "cue" : "category");
    if (lines[k] && keys[k].type != K_SOUND)
        return ld_fail(L, L->line, HELIOD_EINVAL, "%s: already set at line %u", keys[k].key,
                       (unsigned)lines[k]);
    lines[k] = L->line;
    return set_key(L, &keys[k], obj, val);
}

/* Reads one line (newline dropped) into buf; 1 = got a line, 0 = end of file,
 * -1 = too long or a NUL byte (err set), -2 = read error. */
static int read_line(ld_t *L, FILE *f, char *buf) {
    size_t n = 0;
    int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (ch == '\0') return ld_fail(L, L->line, -1, "NUL byte in line");
        if (n >= INI_MAX_LINE)
            return ld_fail(L, L->line, -1, "line longer than %d bytes", INI_MAX_LINE);
        buf[n++] = (char)ch;
    }
    buf[n] = '\0';
    if (ch == EOF) {
        if (ferror(f)) return -2;
        if (n == 0) return 0;
    }
    return 1;
}

static uint32_t line_of(const ini_key_t *keys, int nkeys, const uint32_t *lines, uint32_t sect,
                        const char *key) {
    int k = key ? key_index(keys, nkeys, key) : -1;
    return k >= 0 && lines[k] ? lines[k] : sect;
}

/* Everything that can fail before applying: each definition, categories,
 * the caps, and the memory of every new entry (spares, which the caller
 * frees if unused). */
/* The entry name resolves to for the sheet's applier (as NULL: the daemon). */
static hld_cue_t *as_cue(const hld_cues_t *c, const hld_cues_as_t *as, const char *name) {
    return as ? hld_cues_find_in(c, name, as->rank, as->ctx) : hld_cues_find(c, name);
}
static hld_category_t *as_cat(const hld_cues_t *c, const hld_cues_as_t *as, const char *name) {
    return as ? hld_cues_find_category_in(c, name, as->rank, as->ctx)
              : hld_cues_find_category(c, name);
}

/* May the applier define name into an entry of *owner (NULL: a new one)? */
static int ld_admit(ld_t *L, const hld_cues_as_t *as, int cat, const char *name,
                    const uint32_t *owner, uint32_t line) {
    if (!as || !as->admit) return 0;
    char msg[HL_MAX_MSG + 1] = "";
    int rc = as->admit(as->ctx, cat, name, owner, msg, sizeof msg);
    return rc ? ld_fail(L, line, rc, "%s", msg) : 0;
}

static hld_param_t *as_param(const hld_cues_t *c, const hld_cues_as_t *as, const char *name) {
    if (!c->params) return NULL;
    return as ? hld_params_find_in(c->params, name, as->rank, as->ctx)
              : hld_params_find(c->params, name);
}

/* The sheet's parameters (admitted as kind 2) and every cue's bindings:
 * each names a parameter of this file or one the applier sees, its curve's
 * x lie in that parameter's range; the bindings' memory is allocated here. */
static int ld_check_params(ld_t *L, const hld_cues_t *c, const hld_cues_as_t *as) {
    int rc;
    uint32_t new_params = 0;
    if (!c->params && L->nparams)
        return ld_fail(L, L->params[0].line, HELIOD_EINVAL, "parameters are not supported here");
    for (uint32_t i = 0; i < L->nparams; i++) {
        tmp_param_t *t = &L->params[i];
        const hld_param_t *old = as_param(c, as, t->def.name);
        if ((rc = ld_admit(L, as, 2, t->def.name, old ? &old->owner : NULL, t->line))) return rc;
        if (!old && ++new_params > hld_params_room(c->params))
            return ld_fail(L, t->line, HELIOD_ENOMEM, "parameter %s: more than %d parameters",
                           t->def.name, HLD_MAX_PARAMS);
    }
    for (uint32_t i = 0; i < L->ncues; i++) {
        tmp_cue_t *t = &L->cues[i];
        for (uint32_t k = 0; k < t->nbinds; k++) {
            const hl_bind_t *b = &t->binds[k];
            const hl_param_def_t *pd = NULL;
            for (uint32_t j = 0; j < L->nparams && !pd; j++)
                if (strcmp(L->params[j].def.name, b->param) == 0) pd = &L->params[j].def;
            const hld_param_t *pe = pd ? NULL : as_param(c, as, b->param);
            if (pe) pd = &pe->def;
            if (!pd)
                return ld_fail(L, t->bind_line[k], HELIOD_EINVAL,
                               "cue %s: bind: no parameter named %s", t->def.name, b->param);
            for (unsigned j = 0; j < b->npoints; j++)
                if (b->x[j] < pd->min || b->x[j] > pd->max)
                    return ld_fail(L, t->bind_line[k], HELIOD_EINVAL,
                                   "cue %s: bind: point %u: x %g outside parameter %s's range "
                                   "[%g, %g]",
                                   t->def.name, j + 1, (double)b->x[j], b->param, (double)pd->min,
                                   (double)pd->max);
        }
        if (c->params && !(t->out = calloc(HL_MAX_CUE_BINDS, sizeof *t->out)))
            return ld_fail(L, 0, HELIOD_ENOMEM, "out of memory");
    }
    return 0;
}

static int ld_check(ld_t *L, const hld_cues_t *c, const hld_cues_as_t *as, hld_cue_t ***cue_spares,
                    hld_category_t ***cat_spares, uint32_t *nnew_cues, uint32_t *nnew_cats) {
    const char *why, *key;
    int rc;
    uint32_t new_cats = 0, new_cues = 0;
    if ((rc = ld_check_params(L, c, as))) return rc;
    for (uint32_t i = 0; i < L->ncats; i++) {
        tmp_cat_t *t = &L->cats[i];
        if (hld_cat_check(&t->def, &why, &key))
            return ld_fail(L, line_of(k_cat_keys, NCAT_KEYS, t->key_line, t->line, key),
                           HELIOD_EINVAL, "category %s: %s", t->def.name, why);
        const hld_category_t *old = as_cat(c, as, t->def.name);
        if ((rc = ld_admit(L, as, 1, t->def.name, old ? &old->owner : NULL, t->line))) return rc;
        if (!old && hld_cues_count_categories(c) + ++new_cats > HLD_MAX_CATEGORIES)
            return ld_fail(L, t->line, HELIOD_ENOMEM, "category %s: more than %d categories",
                           t->def.name, HLD_MAX_CATEGORIES);
    }
    for (uint32_t i = 0; i < L->ncues; i++) {
        tmp_cue_t *t = &L->cues[i];
        if (t->def.nsounds == 0)
            return ld_fail(L, t->line, HELIOD_EINVAL, "cue %s: no sound (sound = NAME, ...)",
                           t->def.name);
        if (hld_cue_check(&t->def, &why, &key))
            return ld_fail(L, line_of(k_cue_keys, NCUE_KEYS, t->key_line, t->line, key),
                           HELIOD_EINVAL, "cue %s: %s", t->def.name, why);
        const char *cat = t->def.category;
        uint32_t cat_line = line_of(k_cue_keys, NCUE_KEYS, t->key_line, t->line, "category");
        if (cat[0] && !L->cat_slot[hld_cues_slot_of(L->cat_slot, HLD_CAT_SLOTS, cat,
                                                    tmp_cat_name_at, L->cats)]) {
            const hld_category_t *ce = as_cat(c, as, cat);
            if (!ce)
                return ld_fail(L, cat_line, HELIOD_ENOCATEGORY,
                               "cue %s: category: no such category '%s'", t->def.name, cat);
            /* joining a category's limit is changing it (cue_ops.c): the
             * daemon's are shared, others the applier's to change */
            if (ce->owner && (rc = ld_admit(L, as, 1, cat, &ce->owner, cat_line))) return rc;
        }
        const hld_cue_t *old = as_cue(c, as, t->def.name);
        if ((rc = ld_admit(L, as, 0, t->def.name, old ? &old->owner : NULL, t->line))) return rc;
        if (!old && hld_cues_count(c) + ++new_cues > HLD_MAX_CUES)
            return ld_fail(L, t->line, HELIOD_ENOMEM, "cue %s: more than %d cues", t->def.name,
                           HLD_MAX_CUES);
    }
    uint32_t new_mus = 0;
    for (uint32_t i = 0; i < L->nmus; i++) {
        hld_music_t *m = L->mus[i];
        if (m->def.nstates == 0)
            return ld_fail(L, m->line, HELIOD_EINVAL, "music %s: no state (state = NAME CUE)",
                           m->def.name);
        uint32_t ns = m->def.nstates, nt = m->def.ntrans;
        for (uint32_t j = 0; j < ns + nt + m->def.nlayers; j++) {
            const char *cue = j < ns        ? m->def.cue[j]
                              : j < ns + nt ? m->def.trans[j - ns].segment
                                            : m->def.layer_cue[j - ns - nt];
            if (!cue[0]) continue;
            if (!L->cue_slot[hld_cues_slot_of(L->cue_slot, HLD_CUE_SLOTS, cue, tmp_cue_name_at,
                                              L->cues)] &&
                !as_cue(c, as, cue))
                return ld_fail(L, m->line, HELIOD_ENOSOUND, "music %s: no such cue '%s'",
                               m->def.name, cue);
        }
        const hld_music_t *old = hld_cues_find_music(c, m->def.name);
        if ((rc = ld_admit(L, as, 0, m->def.name, old ? &old->owner : NULL, m->line))) return rc;
        if (!old && c->nmusic + ++new_mus > HLD_MAX_MUSIC)
            return ld_fail(L, m->line, HELIOD_ENOMEM, "music %s: more than %d music sections",
                           m->def.name, HLD_MAX_MUSIC);
    }
    *nnew_cues = new_cues;
    *nnew_cats = new_cats;
    *cue_spares = calloc(new_cues ? new_cues : 1, sizeof **cue_spares);
    *cat_spares = calloc(new_cats ? new_cats : 1, sizeof **cat_spares);
    if (!*cue_spares || !*cat_spares) return ld_fail(L, 0, HELIOD_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < new_cues; i++)
        if (!((*cue_spares)[i] = calloc(1, sizeof(hld_cue_t))))
            return ld_fail(L, 0, HELIOD_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < new_cats; i++)
        if (!((*cat_spares)[i] = calloc(1, sizeof(hld_category_t))))
            return ld_fail(L, 0, HELIOD_ENOMEM, "out of memory");
    return 0;
}

/* Opens path for reading if it is a regular file, never blocking on a FIFO. */
static FILE *open_regular(const char *path, char *err, size_t errcap) {
    struct stat st;
    const char *reason = NULL;
    int fd = -1;
    if (stat(path, &st) != 0)
        reason = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        reason = "not a regular file";
    else if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
        reason = strerror(errno);
    else if (fstat(fd, &st) != 0)
        reason = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        reason = "not a regular file"; /* replaced since the stat */
    FILE *f = NULL;
    if (!reason && !(f = fdopen(fd, "r"))) reason = strerror(errno);
    if (reason) {
        if (fd >= 0) close(fd);
        if (err && errcap) snprintf(err, errcap, "%s: cannot open: %s", path, reason);
    }
    return f;
}

static int load_stream(hld_cues_t *c, const hld_cues_as_t *as, const char *path, FILE *f,
                       uint32_t *ncues, uint32_t *ncats, char *err, size_t errcap);

int hld_cues_load_file(hld_cues_t *c, const char *path, uint32_t *ncues, uint32_t *ncats, char *err,
                       size_t errcap) {
    if (ncues) *ncues = 0;
    if (ncats) *ncats = 0;
    if (err && errcap) err[0] = '\0';
    FILE *f = open_regular(path, err, errcap);
    if (!f) return HELIOD_EFILE;
    return load_stream(c, NULL, path, f, ncues, ncats, err, errcap);
}

int hld_cues_load_mem(hld_cues_t *c, const char *path, const char *text, size_t len,
                      uint32_t *ncues, uint32_t *ncats, char *err, size_t errcap) {
    return hld_cues_load_mem_as(c, NULL, path, text, len, ncues, ncats, err, errcap);
}

int hld_cues_load_mem_as(hld_cues_t *c, const hld_cues_as_t *as, const char *path, const char *text,
                         size_t len, uint32_t *ncues, uint32_t *ncats, char *err, size_t errcap) {
    if (ncues) *ncues = 0;
    if (ncats) *ncats = 0;
    if (err && errcap) err[0] = '\0';
    if (len == 0) return 0; /* an empty sheet defines nothing */
    FILE *f = fmemopen((void *)(uintptr_t)text, len, "r");
    if (!f) {
        if (err && errcap) snprintf(err, errcap, "%s: out of memory", path);
        return HELIOD_ENOMEM;
    }
    return load_stream(c, as, path, f, ncues, ncats, err, errcap);
}

static int load_stream(hld_cues_t *c, const hld_cues_as_t *as, const char *path, FILE *f,
                       uint32_t *ncues, uint32_t *ncats, char *err, size_t errcap) {
    ld_t *L = calloc(1, sizeof *L);
    char *buf = malloc(INI_MAX_LINE + 1);
    hld_cue_t **cue_spares = NULL;
    hld_category_t **cat_spares = NULL;
    uint32_t new_cues = 0, new_cats = 0;
    int rc = 0;
    if (!L || !buf) {
        if (err && errcap) snprintf(err, errcap, "%s: out of memory", path);
        rc = HELIOD_ENOMEM;
        goto out;
    }
    L->path = path;
    L->err = err;
    L->errcap = errcap;
    for (;;) {
        L->line++;
        int r = read_line(L, f, buf);
        if (r == 0) break;
        if (r == -1) {
            rc = HELIOD_EINVAL;
            goto out;
        }
        if (r == -2) {
            rc = ld_fail(L, L->line, HELIOD_EFILE, "read error: %s", strerror(errno));
            goto out;
        }
        if ((rc = parse_line(L, buf))) goto out;
    }
    rc = ld_check(L, c, as, &cue_spares, &cat_spares, &new_cues, &new_cats);
    if (rc) goto out;
    uint32_t client = as ? as->client : 0;
    if (L->nsnaps && !c->snap_fn) {
        rc = ld_fail(L, L->snap_line[0], HELIOD_EINVAL, "snapshot sections are not taken here");
        goto out;
    }
    for (uint32_t i = 0; i < L->nsnaps; i++) {
        char msg[HL_MAX_MSG + 1] = "";
        rc = c->snap_fn(c->snap_user, client, &L->snaps[i], 1, msg, sizeof msg);
        if (rc) {
            rc = ld_fail(L, L->snap_line[i], rc, "snapshot %s: %s", L->snaps[i].name, msg);
            goto out;
        }
    }

    /* nothing below can fail: every new entry is already allocated */
    for (uint32_t i = 0; i < L->nparams; i++) {
        hld_param_t *old = as_param(c, as, L->params[i].def.name), *e = NULL;
        if (hld_params_define(c->params, &L->params[i].def, old, 0, &e) == 0 && as && as->own)
            as->own(as->ctx, 2, &e->owner, !old);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < L->ncats; i++) {
        hld_category_t *sp = k < new_cats ? cat_spares[k] : NULL;
        hld_category_t *old = as_cat(c, as, L->cats[i].def.name);
        hld_category_t *e = hld_cat_apply(c, &L->cats[i].def, &sp, old);
        if (k < new_cats && !sp) cat_spares[k++] = NULL;
        if (as && as->own && e) as->own(as->ctx, 1, &e->owner, !old);
    }
    k = 0;
    for (uint32_t i = 0; i < L->ncues; i++) {
        hld_cue_t *sp = k < new_cues ? cue_spares[k] : NULL;
        const hl_cue_t *def = &L->cues[i].def;
        hld_cue_t *old = as_cue(c, as, def->name);
        hld_cue_t *e =
            hld_cue_apply(c, def, &sp, old, def->category[0] ? as_cat(c, as, def->category) : NULL);
        if (k < new_cues && !sp) cue_spares[k++] = NULL;
        if (e) e->tempo = L->cues[i].tempo;              /* a sheet without one clears it */
        if (e) hld_cue_spatial_apply(&L->cues[i].sp, e); /* so do cone and attenuation */
        if (as && as->own && e) as->own(as->ctx, 0, &e->owner, !old);
        tmp_cue_t *t = &L->cues[i];
        if (!e || !t->out) continue;
        for (uint32_t b = 0; b < t->nbinds; b++) { /* the parameter as the applier sees it now */
            const hld_param_t *pe = as_param(c, as, t->binds[b].param);
            t->out[b].param = pe ? pe->index : 0;
            t->out[b].prop = t->binds[b].prop;
            t->out[b].index = t->binds[b].index;
            hld_curve_from_bind(&t->out[b].curve, &t->binds[b]);
        }
        free(e->binds); /* the sheet says all of the cue: its bindings too */
        e->binds = t->nbinds ? t->out : NULL;
        e->nbinds = t->nbinds;
        if (t->nbinds) t->out = NULL;
    }
    for (uint32_t i = 0; i < L->nsnaps; i++) { /* checked: only the 64-slot table can fail */
        char msg[HL_MAX_MSG + 1] = "";
        int r = c->snap_fn(c->snap_user, client, &L->snaps[i], 0, msg, sizeof msg);
        if (r && !rc) rc = ld_fail(L, L->snap_line[i], r, "snapshot %s: %s", L->snaps[i].name, msg);
    }
    for (uint32_t i = 0; i < L->nmus; i++) {
        hld_music_t *m = L->mus[i], *old = hld_cues_find_music(c, m->def.name);
        if (old) {
            old->def = m->def; /* its owner stays (as a cue's) */
            if (as && as->own) as->own(as->ctx, 0, &old->owner, 0);
            continue;
        }
        m->owner = 0;
        if (as && as->own) as->own(as->ctx, 0, &m->owner, 1);
        c->music[c->nmusic++] = m;
        L->mus[i] = NULL;
    }
    if (ncues) *ncues = L->ncues;
    if (ncats) *ncats = L->ncats;
out:
    if (cue_spares)
        for (uint32_t i = 0; i < new_cues; i++)
            free(cue_spares[i]);
    if (cat_spares)
        for (uint32_t i = 0; i < new_cats; i++)
            free(cat_spares[i]);
    free(cue_spares);
    free(cat_spares);
    if (L) {
        for (uint32_t i = 0; i < L->ncues; i++) {
            free(L->cues[i].binds);
            free(L->cues[i].out);
        }
        free(L->params);
        free(L->cues);
        free(L->cats);
        free(L->snaps);
        free(L->snap_line);
        for (uint32_t i = 0; i < L->nmus; i++)
            free(L->mus[i]);
    }
    free(L);
    free(buf);
    fclose(f);
    return rc;
}
