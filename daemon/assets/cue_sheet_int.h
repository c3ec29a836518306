/*
 * cue_sheet_int.h - what the files of the cue-sheet loader share, and no one
 * else: the parse state of one sheet, the value parsers and the error line
 * (cue_sheet_lex.c), one parser per section kind (cue_sheet_cues.c: [cue] and
 * [category]; cue_sheet_snap.c: [snapshot]; cue_sheet_params.c: [parameter]
 * and [music]) and the check pass (cue_sheet_check.c). cue_sheet.c reads the
 * lines, hands each to its section's parser, checks, then applies.
 */
#ifndef HLD_CUE_SHEET_INT_H
#define HLD_CUE_SHEET_INT_H

#include <stdint.h>
#include <stdio.h>

#include "cue_spatial.h"
#include "cues.h"
#include "params.h"

#define HLD_SHEET_MAX_LINE 8192 /* bytes per line (newline excluded) */
#define NCUE_KEYS          31   /* keys of a [cue] section (cue_sheet_cues.c) */
#define NCAT_KEYS          4    /* keys of a [category] section */

typedef struct {
    hl_cue_t def;
    uint32_t line;                /* of the [cue NAME] header */
    uint32_t key_line[NCUE_KEYS]; /* last line that set each key, 0 = not set */
    hl_bind_t *binds;             /* its bind = lines (malloc'd, HL_MAX_CUE_BINDS) */
    uint32_t nbinds;
    uint32_t bind_line[HL_MAX_CUE_BINDS];
    hld_bind_t *out;   /* allocated by hld_sheet_check, taken by the cue when applied */
    hld_tempo_t tempo; /* `tempo` / `tempo-change` (a sheet's only: not on the wire) */
    uint32_t tempo_line;
    hld_cue_spatial_t sp; /* `cone`, `attenuation` (cue_spatial.c) */
} hld_sheet_cue_t;

typedef struct {
    hl_param_def_t def;
    uint32_t line;
} hld_sheet_param_t;

typedef struct {
    hl_category_t def;
    uint32_t line;
    uint32_t key_line[NCAT_KEYS];
} hld_sheet_cat_t;

typedef struct {
    const char *path;
    char *err;
    size_t errcap;
    uint32_t line; /* being parsed */
    hld_sheet_cue_t *cues;
    uint32_t ncues, capcues;
    hld_sheet_cat_t *cats;
    uint32_t ncats, capcats;
    hld_sheet_param_t *params; /* [parameter NAME] MIN MAX DEFAULT SEEK lines */
    uint32_t nparams, capparams;
    hld_sheet_cue_t *cur_cue; /* section being parsed: one of these or neither */
    hld_sheet_cat_t *cur_cat;
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
} hld_sheet_t;

/* ---- cue_sheet_lex.c --------------------------------------------------------------------------
 */

/* "PATH:LINE: message" into err (truncated as needed); returns rc. */
__attribute__((format(printf, 4, 5))) int hld_sheet_fail(hld_sheet_t *L, uint32_t line, int rc,
                                                         const char *fmt, ...);
/* A finite float; an integer in [lo, hi]; true/yes/1 (1), false/no/0 (0):
 * 0 (1, 0 for the boolean) or -1 when v is not one. */
int hld_sheet_float(const char *v, float *out);
int hld_sheet_int(const char *v, long long lo, long long hi, long long *out);
int hld_sheet_bool(const char *v);
/* Grows *arr (of elem-byte entries) to hold at least one more, up to max. */
int hld_sheet_grow(void **arr, uint32_t *cap, uint32_t n, uint32_t max, size_t elem);
/* Reads one line (newline dropped) into buf (HLD_SHEET_MAX_LINE + 1 bytes);
 * 1 = got a line, 0 = end of file, -1 = too long or a NUL byte (err set),
 * -2 = read error. */
int hld_sheet_read_line(hld_sheet_t *L, FILE *f, char *buf);
/* Ends the section being parsed: keys after it are refused until the next. */
void hld_sheet_end_section(hld_sheet_t *L);

/* ---- one parser per section kind ----------------------------------------------------------- */

/* The section [cue NAME] / [category NAME] begins (name valid); a key of it. */
int hld_sheet_cue_open(hld_sheet_t *L, const char *name);
int hld_sheet_cat_open(hld_sheet_t *L, const char *name);
int hld_sheet_cue_key(hld_sheet_t *L, const char *key, char *val);
/* Whether this sheet defines a cue (category) of that name. */
int hld_sheet_has_cue(const hld_sheet_t *L, const char *name);
int hld_sheet_has_cat(const hld_sheet_t *L, const char *name);
/* The line that set key (NULL or unset: the section's header line). */
uint32_t hld_sheet_cue_line(const hld_sheet_cue_t *t, const char *key);
uint32_t hld_sheet_cat_line(const hld_sheet_cat_t *t, const char *key);

/* [snapshot NAME] (cue_sheet_snap.c): the section and its keys. */
int hld_sheet_snap_open(hld_sheet_t *L, const char *name);
int hld_sheet_snap_key(hld_sheet_t *L, const char *key, char *val);

/* cue_sheet_params.c: "[parameter NAME] MIN MAX DEFAULT SEEK" (s after
 * "[parameter"), and [music NAME] with its keys. */
int hld_sheet_param(hld_sheet_t *L, char *s);
int hld_sheet_music_open(hld_sheet_t *L, const char *name);
int hld_sheet_music_key(hld_sheet_t *L, const char *key, const char *val);

/* ---- cue_sheet_check.c ------------------------------------------------------------------------
 */

/* The entry name resolves to for the sheet's applier (as NULL: the daemon). */
hld_cue_t *hld_sheet_as_cue(const hld_cues_t *c, const hld_cues_as_t *as, const char *name);
hld_category_t *hld_sheet_as_cat(const hld_cues_t *c, const hld_cues_as_t *as, const char *name);
hld_param_t *hld_sheet_as_param(const hld_cues_t *c, const hld_cues_as_t *as, const char *name);
/* Everything that can fail before applying: each definition, categories,
 * the caps, and the memory of every new entry (spares, which the caller
 * frees if unused). */
int hld_sheet_check(hld_sheet_t *L, const hld_cues_t *c, const hld_cues_as_t *as,
                    hld_cue_t ***cue_spares, hld_category_t ***cat_spares, uint32_t *nnew_cues,
                    uint32_t *nnew_cats);

#endif /* HLD_CUE_SHEET_INT_H */
