/*
 * cue_sheet_params.c - the [parameter NAME] lines and [music NAME] sections
 * of a cue sheet (cue_sheet_int.h): a game parameter's range, default and
 * seek speed; a music's states and transitions (music_table.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cue_sheet_int.h"
#include "hld_text.h"

/* "[parameter NAME] MIN MAX DEFAULT SEEK" (s after "[parameter"): a
 * parameter, and the end of any section (keys after it are refused). */
int hld_sheet_param(hld_sheet_t *L, char *s) {
    hld_sheet_end_section(L);
    char *close = strchr(s, ']');
    if (!close) return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "section header: missing ']'");
    *close = '\0';
    char *name = hld_trim(s), *rest = close + 1, *tok[5];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(rest, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (n < 5)
            tok[n++] = t;
        else
            n = 5;
    if (!hl_name_valid(name))
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "parameter: invalid name '%.64s'", name);
    if (n != 4)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                              "parameter %s: expected [parameter NAME] MIN MAX DEFAULT SEEK", name);
    for (uint32_t i = 0; i < L->nparams; i++)
        if (strcmp(L->params[i].def.name, name) == 0)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                                  "parameter %s: already defined at line %u", name,
                                  (unsigned)L->params[i].line);
    if (L->nparams >= HLD_MAX_PARAMS)
        return hld_sheet_fail(L, L->line, HELIOD_ENOMEM, "more than %d parameters in one file",
                              HLD_MAX_PARAMS);
    if (hld_sheet_grow((void **)&L->params, &L->capparams, L->nparams, HLD_MAX_PARAMS,
                       sizeof *L->params))
        return hld_sheet_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
    hld_sheet_param_t *t = &L->params[L->nparams];
    memset(t, 0, sizeof *t);
    hl_param_def_init(&t->def);
    memcpy(t->def.name, name, strlen(name) + 1);
    float *f[4] = {&t->def.min, &t->def.max, &t->def.def, &t->def.seek};
    static const char *const what[4] = {"min", "max", "default", "seek"};
    for (int i = 0; i < 4; i++)
        if (hld_sheet_float(tok[i], f[i]))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                                  "parameter %s: %s: not a number '%.32s'", name, what[i], tok[i]);
    const char *why = NULL;
    if (hl_validate_param_def(&t->def, &why))
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "parameter %s: %s", name, why);
    t->line = L->line;
    L->nparams++;
    return 0;
}

int hld_sheet_music_open(hld_sheet_t *L, const char *name) {
    for (uint32_t i = 0; i < L->nmus; i++)
        if (strcmp(L->mus[i]->def.name, name) == 0)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "music %s: already defined at line %u",
                                  name, (unsigned)L->mus[i]->line);
    if (L->nmus >= HLD_MAX_MUSIC)
        return hld_sheet_fail(L, L->line, HELIOD_ENOMEM, "more than %d music sections in one file",
                              HLD_MAX_MUSIC);
    hld_music_t *m = calloc(1, sizeof *m);
    if (!m) return hld_sheet_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
    memcpy(m->def.name, name, strlen(name) + 1);
    m->line = L->line;
    L->mus[L->nmus++] = m;
    L->cur_mus = m;
    return 0;
}

int hld_sheet_music_key(hld_sheet_t *L, const char *key, const char *val) {
    const char *why = NULL;
    int st = strcmp(key, "state") == 0, ly = strcmp(key, "layer") == 0;
    if (!st && !ly && strcmp(key, "transition") != 0)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                              "unknown key '%.64s' in a music section (state, transition or layer)",
                              key);
    if ((st   ? hld_music_add_state
         : ly ? hld_music_add_layer
              : hld_music_add_transition)(&L->cur_mus->def, val, &why))
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "music %s: %s", L->cur_mus->def.name, why);
    return 0;
}
