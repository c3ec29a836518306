/*
 * cue_sheet.c - the INI cue-sheet loader (see cues.h: hld_cues_load_file,
 * hld_cues_load_mem). It parses a whole file into temporary definitions,
 * validates all of them (categories first, so a cue may name a category
 * defined later in the same file), allocates every new entry it needs, and
 * only then applies them through cues.c: on any error nothing changes.
 *
 * This file reads the lines and hands each to the parser of its section's
 * kind (cue_sheet_int.h: cue_sheet_cues.c, cue_sheet_snap.c,
 * cue_sheet_params.c), runs the check pass (cue_sheet_check.c) and applies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cue_sheet_int.h"
#include "cues_int.h"
#include "hld_text.h"

/* "[KIND NAME]": the section of that kind begins. */
static int parse_section(hld_sheet_t *L, char *s) {
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != ']')
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "section header: missing ']'");
    s[n - 1] = '\0';
    char *kind = hld_trim(s + 1), *name = kind;
    while (*name && *name != ' ' && *name != '\t')
        name++;
    if (*name) *name++ = '\0';
    name = hld_trim(name);
    int is_cue = strcmp(kind, "cue") == 0, is_mus = strcmp(kind, "music") == 0;
    int is_snap = strcmp(kind, "snapshot") == 0;
    if (!is_cue && !is_snap && !is_mus && strcmp(kind, "category") != 0)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                              "unknown section kind '%.64s' (cue, category, snapshot or music)",
                              kind);
    if (!hl_name_valid(name))
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: invalid name '%.64s'", kind, name);
    hld_sheet_end_section(L);
    if (is_snap) return hld_sheet_snap_open(L, name);
    if (is_mus) return hld_sheet_music_open(L, name);
    return is_cue ? hld_sheet_cue_open(L, name) : hld_sheet_cat_open(L, name);
}

static int parse_line(hld_sheet_t *L, char *raw) {
    char *s = hld_trim(raw);
    if (!*s || *s == '#' || *s == ';') return 0;
    if (strncmp(s, "[parameter", 10) == 0 && (s[10] == ' ' || s[10] == '\t'))
        return hld_sheet_param(L, s + 10);
    if (*s == '[') return parse_section(L, s);
    char *eq = strchr(s, '=');
    if (!eq)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                              "expected KEY = VALUE or [cue|category|music NAME]");
    *eq = '\0';
    char *key = hld_trim(s), *val = hld_trim(eq + 1);
    if (L->in_snap) return hld_sheet_snap_key(L, key, val);
    if (L->cur_mus) return hld_sheet_music_key(L, key, val);
    if (!L->cur_cue && !L->cur_cat)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                              "%.64s: outside a [cue] or [category] section", key);
    return hld_sheet_cue_key(L, key, val);
}

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
    hld_sheet_t *L = calloc(1, sizeof *L);
    char *buf = malloc(HLD_SHEET_MAX_LINE + 1);
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
        int r = hld_sheet_read_line(L, f, buf);
        if (r == 0) break;
        if (r == -1) {
            rc = HELIOD_EINVAL;
            goto out;
        }
        if (r == -2) {
            rc = hld_sheet_fail(L, L->line, HELIOD_EFILE, "read error: %s", strerror(errno));
            goto out;
        }
        if ((rc = parse_line(L, buf))) goto out;
    }
    rc = hld_sheet_check(L, c, as, &cue_spares, &cat_spares, &new_cues, &new_cats);
    if (rc) goto out;
    uint32_t client = as ? as->client : 0;
    if (L->nsnaps && !c->snap_fn) {
        rc = hld_sheet_fail(L, L->snap_line[0], HELIOD_EINVAL,
                            "snapshot sections are not taken here");
        goto out;
    }
    for (uint32_t i = 0; i < L->nsnaps; i++) {
        char msg[HL_MAX_MSG + 1] = "";
        rc = c->snap_fn(c->snap_user, client, &L->snaps[i], 1, msg, sizeof msg);
        if (rc) {
            rc = hld_sheet_fail(L, L->snap_line[i], rc, "snapshot %s: %s", L->snaps[i].name, msg);
            goto out;
        }
    }

    /* nothing below can fail: every new entry is already allocated */
    for (uint32_t i = 0; i < L->nparams; i++) {
        hld_param_t *old = hld_sheet_as_param(c, as, L->params[i].def.name), *e = NULL;
        if (hld_params_define(c->params, &L->params[i].def, old, 0, &e) == 0 && as && as->own)
            as->own(as->ctx, 2, &e->owner, !old);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < L->ncats; i++) {
        hld_category_t *sp = k < new_cats ? cat_spares[k] : NULL;
        hld_category_t *old = hld_sheet_as_cat(c, as, L->cats[i].def.name);
        hld_category_t *e = hld_cat_apply(c, &L->cats[i].def, &sp, old);
        if (k < new_cats && !sp) cat_spares[k++] = NULL;
        if (as && as->own && e) as->own(as->ctx, 1, &e->owner, !old);
    }
    k = 0;
    for (uint32_t i = 0; i < L->ncues; i++) {
        hld_cue_t *sp = k < new_cues ? cue_spares[k] : NULL;
        const hl_cue_t *def = &L->cues[i].def;
        hld_cue_t *old = hld_sheet_as_cue(c, as, def->name);
        hld_cue_t *e = hld_cue_apply(
            c, def, &sp, old, def->category[0] ? hld_sheet_as_cat(c, as, def->category) : NULL);
        if (k < new_cues && !sp) cue_spares[k++] = NULL;
        if (e) e->tempo = L->cues[i].tempo;              /* a sheet without one clears it */
        if (e) hld_cue_spatial_apply(&L->cues[i].sp, e); /* so do cone and attenuation */
        if (as && as->own && e) as->own(as->ctx, 0, &e->owner, !old);
        hld_sheet_cue_t *t = &L->cues[i];
        if (!e || !t->out) continue;
        for (uint32_t b = 0; b < t->nbinds; b++) { /* the parameter as the applier sees it now */
            const hld_param_t *pe = hld_sheet_as_param(c, as, t->binds[b].param);
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
        if (r && !rc)
            rc = hld_sheet_fail(L, L->snap_line[i], r, "snapshot %s: %s", L->snaps[i].name, msg);
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
