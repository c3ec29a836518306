/*
 * cue_sheet_check.c - the cue-sheet loader's check pass (cue_sheet_int.h):
 * after the whole file is parsed and before anything is applied, every
 * definition is validated, resolved against the applier's view of the
 * tables, admitted, counted against the caps, and every new entry's memory
 * allocated, so that applying cannot fail.
 */
#include <stdlib.h>
#include <string.h>

#include "cue_sheet_int.h"
#include "cues_int.h"

hld_cue_t *hld_sheet_as_cue(const hld_cues_t *c, const hld_cues_as_t *as, const char *name) {
    return as ? hld_cues_find_in(c, name, as->rank, as->ctx) : hld_cues_find(c, name);
}
hld_category_t *hld_sheet_as_cat(const hld_cues_t *c, const hld_cues_as_t *as, const char *name) {
    return as ? hld_cues_find_category_in(c, name, as->rank, as->ctx)
              : hld_cues_find_category(c, name);
}

/* May the applier define name into an entry of *owner (NULL: a new one)? */
static int ld_admit(hld_sheet_t *L, const hld_cues_as_t *as, int cat, const char *name,
                    const uint32_t *owner, uint32_t line) {
    if (!as || !as->admit) return 0;
    char msg[HL_MAX_MSG + 1] = "";
    int rc = as->admit(as->ctx, cat, name, owner, msg, sizeof msg);
    return rc ? hld_sheet_fail(L, line, rc, "%s", msg) : 0;
}

hld_param_t *hld_sheet_as_param(const hld_cues_t *c, const hld_cues_as_t *as, const char *name) {
    if (!c->params) return NULL;
    return as ? hld_params_find_in(c->params, name, as->rank, as->ctx)
              : hld_params_find(c->params, name);
}

/* The sheet's parameters (admitted as kind 2) and every cue's bindings:
 * each names a parameter of this file or one the applier sees, its curve's
 * x lie in that parameter's range; the bindings' memory is allocated here. */
static int ld_check_params(hld_sheet_t *L, const hld_cues_t *c, const hld_cues_as_t *as) {
    int rc;
    uint32_t new_params = 0;
    if (!c->params && L->nparams)
        return hld_sheet_fail(L, L->params[0].line, HELIOD_EINVAL,
                              "parameters are not supported here");
    for (uint32_t i = 0; i < L->nparams; i++) {
        hld_sheet_param_t *t = &L->params[i];
        const hld_param_t *old = hld_sheet_as_param(c, as, t->def.name);
        if ((rc = ld_admit(L, as, 2, t->def.name, old ? &old->owner : NULL, t->line))) return rc;
        if (!old && ++new_params > hld_params_room(c->params))
            return hld_sheet_fail(L, t->line, HELIOD_ENOMEM,
                                  "parameter %s: more than %d parameters", t->def.name,
                                  HLD_MAX_PARAMS);
    }
    for (uint32_t i = 0; i < L->ncues; i++) {
        hld_sheet_cue_t *t = &L->cues[i];
        for (uint32_t k = 0; k < t->nbinds; k++) {
            const hl_bind_t *b = &t->binds[k];
            const hl_param_def_t *pd = NULL;
            for (uint32_t j = 0; j < L->nparams && !pd; j++)
                if (strcmp(L->params[j].def.name, b->param) == 0) pd = &L->params[j].def;
            const hld_param_t *pe = pd ? NULL : hld_sheet_as_param(c, as, b->param);
            if (pe) pd = &pe->def;
            if (!pd)
                return hld_sheet_fail(L, t->bind_line[k], HELIOD_EINVAL,
                                      "cue %s: bind: no parameter named %s", t->def.name, b->param);
            for (unsigned j = 0; j < b->npoints; j++)
                if (b->x[j] < pd->min || b->x[j] > pd->max)
                    return hld_sheet_fail(
                        L, t->bind_line[k], HELIOD_EINVAL,
                        "cue %s: bind: point %u: x %g outside parameter %s's range "
                        "[%g, %g]",
                        t->def.name, j + 1, (double)b->x[j], b->param, (double)pd->min,
                        (double)pd->max);
        }
        if (c->params && !(t->out = calloc(HL_MAX_CUE_BINDS, sizeof *t->out)))
            return hld_sheet_fail(L, 0, HELIOD_ENOMEM, "out of memory");
    }
    return 0;
}

int hld_sheet_check(hld_sheet_t *L, const hld_cues_t *c, const hld_cues_as_t *as,
                    hld_cue_t ***cue_spares, hld_category_t ***cat_spares, uint32_t *nnew_cues,
                    uint32_t *nnew_cats) {
    const char *why, *key;
    int rc;
    uint32_t new_cats = 0, new_cues = 0;
    if ((rc = ld_check_params(L, c, as))) return rc;
    for (uint32_t i = 0; i < L->ncats; i++) {
        hld_sheet_cat_t *t = &L->cats[i];
        if (hld_cat_check(&t->def, &why, &key))
            return hld_sheet_fail(L, hld_sheet_cat_line(t, key), HELIOD_EINVAL, "category %s: %s",
                                  t->def.name, why);
        const hld_category_t *old = hld_sheet_as_cat(c, as, t->def.name);
        if ((rc = ld_admit(L, as, 1, t->def.name, old ? &old->owner : NULL, t->line))) return rc;
        if (!old && hld_cues_count_categories(c) + ++new_cats > HLD_MAX_CATEGORIES)
            return hld_sheet_fail(L, t->line, HELIOD_ENOMEM, "category %s: more than %d categories",
                                  t->def.name, HLD_MAX_CATEGORIES);
    }
    for (uint32_t i = 0; i < L->ncues; i++) {
        hld_sheet_cue_t *t = &L->cues[i];
        if (t->def.nsounds == 0)
            return hld_sheet_fail(L, t->line, HELIOD_EINVAL, "cue %s: no sound (sound = NAME, ...)",
                                  t->def.name);
        if (hld_cue_check(&t->def, &why, &key))
            return hld_sheet_fail(L, hld_sheet_cue_line(t, key), HELIOD_EINVAL, "cue %s: %s",
                                  t->def.name, why);
        const char *cat = t->def.category;
        uint32_t cat_line = hld_sheet_cue_line(t, "category");
        if (cat[0] && !hld_sheet_has_cat(L, cat)) {
            const hld_category_t *ce = hld_sheet_as_cat(c, as, cat);
            if (!ce)
                return hld_sheet_fail(L, cat_line, HELIOD_ENOCATEGORY,
                                      "cue %s: category: no such category '%s'", t->def.name, cat);
            /* joining a category's limit is changing it (cue_ops.c): the
             * daemon's are shared, others the applier's to change */
            if (ce->owner && (rc = ld_admit(L, as, 1, cat, &ce->owner, cat_line))) return rc;
        }
        const hld_cue_t *old = hld_sheet_as_cue(c, as, t->def.name);
        if ((rc = ld_admit(L, as, 0, t->def.name, old ? &old->owner : NULL, t->line))) return rc;
        if (!old && hld_cues_count(c) + ++new_cues > HLD_MAX_CUES)
            return hld_sheet_fail(L, t->line, HELIOD_ENOMEM, "cue %s: more than %d cues",
                                  t->def.name, HLD_MAX_CUES);
    }
    uint32_t new_mus = 0;
    for (uint32_t i = 0; i < L->nmus; i++) {
        hld_music_t *m = L->mus[i];
        if (m->def.nstates == 0)
            return hld_sheet_fail(L, m->line, HELIOD_EINVAL,
                                  "music %s: no state (state = NAME CUE)", m->def.name);
        uint32_t ns = m->def.nstates, nt = m->def.ntrans;
        for (uint32_t j = 0; j < ns + nt + m->def.nlayers; j++) {
            const char *cue = j < ns        ? m->def.cue[j]
                              : j < ns + nt ? m->def.trans[j - ns].segment
                                            : m->def.layer_cue[j - ns - nt];
            if (!cue[0]) continue;
            if (!hld_sheet_has_cue(L, cue) && !hld_sheet_as_cue(c, as, cue))
                return hld_sheet_fail(L, m->line, HELIOD_ENOSOUND, "music %s: no such cue '%s'",
                                      m->def.name, cue);
        }
        const hld_music_t *old = hld_cues_find_music(c, m->def.name);
        if ((rc = ld_admit(L, as, 0, m->def.name, old ? &old->owner : NULL, m->line))) return rc;
        if (!old && c->nmusic + ++new_mus > HLD_MAX_MUSIC)
            return hld_sheet_fail(L, m->line, HELIOD_ENOMEM,
                                  "music %s: more than %d music sections", m->def.name,
                                  HLD_MAX_MUSIC);
    }
    *nnew_cues = new_cues;
    *nnew_cats = new_cats;
    *cue_spares = calloc(new_cues ? new_cues : 1, sizeof **cue_spares);
    *cat_spares = calloc(new_cats ? new_cats : 1, sizeof **cat_spares);
    if (!*cue_spares || !*cat_spares) return hld_sheet_fail(L, 0, HELIOD_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < new_cues; i++)
        if (!((*cue_spares)[i] = calloc(1, sizeof(hld_cue_t))))
            return hld_sheet_fail(L, 0, HELIOD_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < new_cats; i++)
        if (!((*cat_spares)[i] = calloc(1, sizeof(hld_category_t))))
            return hld_sheet_fail(L, 0, HELIOD_ENOMEM, "out of memory");
    return 0;
}
