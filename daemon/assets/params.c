/*
 * params.c - game parameters: definitions, values (global, per emitter, per
 * voice), seeking, scheduled sets, curves and the sum of a cue's bindings
 * (params.h). Main thread only; no libuv, no mixer.
 */
#include "params.h"
#include "hld_limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

/* ---- curves ---------------------------------------------------------------------------------- */

#define SHAPE_K 4.6f /* exponential shapes: e^4.6 ~ 100, a 40 dB span from end to end */

float hld_curve_shape(uint8_t shape, float t) {
    if (t <= 0.0f) return 0.0f;
    if (t >= 1.0f) return 1.0f;
    switch (shape) {
    case HL_SHAPE_EXP: return (expf(SHAPE_K * t) - 1.0f) / (expf(SHAPE_K) - 1.0f);
    case HL_SHAPE_LOG: return 1.0f - (expf(SHAPE_K * (1.0f - t)) - 1.0f) / (expf(SHAPE_K) - 1.0f);
    case HL_SHAPE_SCURVE: return t * t * (3.0f - 2.0f * t);
    default: return t;
    }
}

float hld_curve_eval(const hld_curve_t *c, float x) {
    if (c->n == 0) return 0.0f;
    if (!(x > c->x[0])) return c->y[0]; /* NaN too */
    if (x >= c->x[c->n - 1]) return c->y[c->n - 1];
    unsigned i = 0;
    while (i + 2u < c->n && x >= c->x[i + 1])
        i++;
    float t = (x - c->x[i]) / (c->x[i + 1] - c->x[i]);
    return c->y[i] + (c->y[i + 1] - c->y[i]) * hld_curve_shape(c->shape[i], t);
}

void hld_curve_from_bind(hld_curve_t *c, const hl_bind_t *m) {
    memset(c, 0, sizeof *c);
    c->n = m->npoints > HL_MAX_CURVE_POINTS ? HL_MAX_CURVE_POINTS : m->npoints;
    for (unsigned i = 0; i < c->n; i++) {
        c->x[i] = m->x[i];
        c->y[i] = m->y[i];
        c->shape[i] = i < 16 ? (uint8_t)((m->shapes >> (2 * i)) & 3u) : 0;
    }
}

void hld_curve_to_bind(const hld_curve_t *c, hl_bind_t *m) {
    m->npoints = c->n;
    m->shapes = 0;
    for (unsigned i = 0; i < HL_MAX_CURVE_POINTS; i++) {
        m->x[i] = i < c->n ? c->x[i] : 0.0f;
        m->y[i] = i < c->n ? c->y[i] : 0.0f;
        if (i + 1u < c->n) m->shapes |= (uint32_t)(c->shape[i] & 3u) << (2 * i);
    }
}

/* ---- definitions ----------------------------------------------------------------------------- */

int hld_params_init(hld_params_t *P) {
    memset(P, 0, sizeof *P);
    P->ent = malloc(sizeof *P->ent * HLD_PVALUE_SLOTS);
    P->sched = malloc(sizeof *P->sched * HLD_MAX_PSCHED);
    if (!P->ent || !P->sched) {
        free(P->ent);
        free(P->sched);
        P->ent = NULL;
        P->sched = NULL;
        return HELIOD_ENOMEM;
    }
    for (uint32_t i = 0; i < HLD_PVALUE_SLOTS; i++)
        P->ent[i].kind = 0xFF;
    P->rate = 48000; /* the daemon sets its own */
    return 0;
}

void hld_params_close(hld_params_t *P) {
    for (uint32_t i = 0; i < P->n; i++)
        free(P->p[i]);
    free(P->ent);
    free(P->sched);
    memset(P, 0, sizeof *P);
}

static uint32_t fnv1a(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static float clampf(float v, float lo, float hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* A name may repeat once per namespace: every entry of it sits on the
 * probe chain from its hash (deleted only by rebuilding the table). */
static void slot_insert(hld_params_t *P, const char *name, uint32_t index) {
    uint32_t s = fnv1a(name) & (HLD_PARAM_SLOTS - 1u);
    while (P->slot[s])
        s = (s + 1u) & (HLD_PARAM_SLOTS - 1u);
    P->slot[s] = (uint16_t)(index + 1u);
}

int hld_params_define(hld_params_t *P, const hl_param_def_t *m, hld_param_t *old, uint32_t owner,
                      hld_param_t **out) {
    hld_param_t *p = old;
    if (!p) {
        if (P->npfree) { /* a released index first (hld_params_release) */
            uint32_t i = P->pfree[--P->npfree];
            p = P->p[i];
            memset(p, 0, sizeof *p);
            p->index = i;
        } else {
            if (P->n >= HLD_MAX_PARAMS) return HELIOD_ENOMEM;
            p = calloc(1, sizeof *p);
            if (!p) return HELIOD_ENOMEM;
            p->index = P->n;
            P->p[P->n++] = p;
        }
        p->owner = owner;
        p->g.cur = p->g.target = p->g.from = m->def;
        slot_insert(P, m->name, p->index);
    }
    p->def = *m;
    p->g.cur = clampf(p->g.cur, m->min, m->max);
    p->g.target = clampf(p->g.target, m->min, m->max);
    p->g.from = p->g.cur; /* a new speed or range seeks on from here */
    p->g.t0 = P->frame;
    if (p->scoped)
        for (uint32_t i = 0; i < HLD_PVALUE_SLOTS; i++)
            if (P->ent[i].kind != 0xFF && P->ent[i].param == p->index) {
                P->ent[i].v.from = P->ent[i].v.cur;
                P->ent[i].v.t0 = P->frame;
            }
    P->dirty = 1;
    P->gen++;
    P->moving++; /* re-examined by the next seek step */
    P->seek_t0 = P->frame;
    if (out) *out = p;
    return 0;
}

hld_param_t *hld_params_find_in(const hld_params_t *P, const char *name, hld_ns_rank_fn rank,
                                const void *ctx) {
    hld_param_t *best = NULL;
    int best_rank = 0;
    /* every entry of the name: a short probe sequence from its hash */
    uint32_t h = fnv1a(name) & (HLD_PARAM_SLOTS - 1u);
    for (uint32_t k = 0; k < HLD_PARAM_SLOTS && P->slot[h]; k++) {
        hld_param_t *p = P->p[P->slot[h] - 1u];
        if (strcmp(p->def.name, name) == 0) {
            int r = rank                         ? rank(ctx, p->owner)
                    : p->owner == HLD_OWNER_GONE ? 0 /* orphaned (owners.c) */
                    : p->owner == 0              ? 2
                                                 : 1;
            if (r > best_rank) {
                best = p;
                best_rank = r;
            }
        }
        h = (h + 1u) & (HLD_PARAM_SLOTS - 1u);
    }
    return best;
}

hld_param_t *hld_params_find(const hld_params_t *P, const char *name) {
    return hld_params_find_in(P, name, NULL, NULL);
}

/* ---- scoped values ----------------------------------------------------------------------------
 */

static uint32_t ent_hash(uint32_t param, uint8_t kind, uint64_t key) {
    uint64_t h =
        key * 0x9E3779B97F4A7C15ull ^ ((uint64_t)param << 8 | kind) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    return (uint32_t)h & (HLD_PVALUE_SLOTS - 1u);
}

static hld_pent_t *ent_find(const hld_params_t *P, uint32_t param, uint8_t kind, uint64_t key,
                            const char *em_name) {
    uint32_t h = ent_hash(param, kind, key);
    for (uint32_t k = 0; k < HLD_PVALUE_SLOTS; k++) {
        hld_pent_t *e = &P->ent[h];
        if (e->kind == 0xFF) return NULL;
        if (e->param == param && e->kind == kind && e->key == key &&
            (kind != HL_PSCOPE_EMITTER || strcmp(e->em_name, em_name) == 0))
            return e;
        h = (h + 1u) & (HLD_PVALUE_SLOTS - 1u);
    }
    return NULL;
}

/* Backward-shift deletion keeps linear probing free of tombstones. */
static void ent_delete(hld_params_t *P, uint32_t i) {
    const uint32_t mask = HLD_PVALUE_SLOTS - 1u;
    hld_param_t *p = P->ent[i].param < P->n ? P->p[P->ent[i].param] : NULL;
    if (p && p->scoped) p->scoped--;
    P->ent[i].kind = 0xFF;
    P->nent--;
    uint32_t j = i;
    for (;;) {
        j = (j + 1u) & mask;
        if (P->ent[j].kind == 0xFF) return;
        uint32_t home = ent_hash(P->ent[j].param, P->ent[j].kind, P->ent[j].key);
        /* j's entry may move to i if its home is not cyclically in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            P->ent[i] = P->ent[j];
            P->ent[j].kind = 0xFF;
            i = j;
        }
    }
}

/* A value on engine frame f: from its start toward its target, seek units
 * a second since t0 (a function of frames only). */
static float value_at(const hld_params_t *P, const hld_param_t *p, const hld_pval_t *v,
                      uint64_t f) {
    if (p->def.seek <= 0.0f || v->from == v->target) return v->target;
    double d = f > v->t0 ? (double)p->def.seek * (double)(f - v->t0) / (double)P->rate : 0.0;
    double span = (double)v->target - (double)v->from;
    if (fabs(span) <= d) return v->target;
    return (float)((double)v->from + (span > 0 ? d : -d));
}

static void target_set(hld_params_t *P, const hld_param_t *p, hld_pval_t *v, float value,
                       uint64_t frame) {
    P->last_v = v;
    P->last_old = *v;
    P->last_p = p;
    v->from = value_at(P, p, v, frame); /* where it is on the frame this takes effect */
    v->t0 = frame;
    v->target = value;
    if (p->def.seek <= 0.0f)
        v->cur = value;
    else if (v->from != value)
        P->seek_t0 = frame;
    P->gen++;
    if (v->cur != v->target) P->moving++;
    P->dirty = 1;
}

int hld_params_set(hld_params_t *P, hld_param_t *p, int scope, uint64_t key, const char *em_name,
                   float value, uint32_t creator) {
    return hld_params_set_at(P, p, scope, key, em_name, value, creator, P->frame);
}

int hld_params_set_at(hld_params_t *P, hld_param_t *p, int scope, uint64_t key, const char *em_name,
                      float value, uint32_t creator, uint64_t frame) {
    value = clampf(value, p->def.min, p->def.max);
    if (scope == HL_PSCOPE_GLOBAL) {
        target_set(P, p, &p->g, value, frame);
        return 0;
    }
    hld_pent_t *e = ent_find(P, p->index, (uint8_t)scope, key, em_name ? em_name : "");
    if (!e) {
        if (P->nent >= HLD_MAX_PVALUES) return HELIOD_EBUSY;
        uint32_t h = ent_hash(p->index, (uint8_t)scope, key);
        while (P->ent[h].kind != 0xFF)
            h = (h + 1u) & (HLD_PVALUE_SLOTS - 1u);
        e = &P->ent[h];
        memset(e, 0, sizeof *e);
        e->key = key;
        e->param = p->index;
        e->kind = (uint8_t)scope;
        if (em_name) snprintf(e->em_name, sizeof e->em_name, "%s", em_name);
        /* from where it was heard */
        e->v.cur = e->v.target = e->v.from = value_at(P, p, &p->g, frame);
        e->v.t0 = frame;
        e->creator = creator;
        P->nent++;
        p->scoped++;
    }
    target_set(P, p, &e->v, value, frame);
    return 0;
}

int hld_params_schedule(hld_params_t *P, uint64_t at, const hl_param_t *m, uint32_t param,
                        uint64_t key, uint32_t creator) {
    if (P->nsched >= HLD_MAX_PSCHED) return HELIOD_EBUSY;
    hld_psched_t *s = &P->sched[P->nsched++];
    s->at = at;
    s->m = *m;
    s->param = param;
    s->key = key;
    s->m.voice = creator; /* kept for hld_params_set's charge (voice is in key) */
    return 0;
}

static int due(hld_params_t *P, uint64_t until, uint64_t *frame, int one);

int hld_params_due_next(hld_params_t *P, uint64_t until, uint64_t *frame) {
    return due(P, until, frame, 0);
}

int hld_params_due_one(hld_params_t *P, uint64_t until, uint64_t *frame) {
    return due(P, until, frame, 1);
}

static int due(hld_params_t *P, uint64_t until, uint64_t *frame, int one) {
    /* the earliest frame's values, in request order (a stable pass) */
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < P->nsched; i++)
        if (P->sched[i].at <= until && (best == UINT32_MAX || P->sched[i].at < P->sched[best].at))
            best = i;
    if (best == UINT32_MAX) return 0;
    uint64_t at = P->sched[best].at;
    for (uint32_t i = best; i < P->nsched;) {
        if (P->sched[i].at != at) {
            i++;
            continue;
        }
        hld_psched_t s = P->sched[i];
        memmove(&P->sched[i], &P->sched[i + 1], (P->nsched - i - 1u) * sizeof s);
        P->nsched--;
        if (s.param < P->n)
            (void)hld_params_set_at(P, P->p[s.param], s.m.scope, s.key, s.m.emitter, s.m.value,
                                    (uint32_t)s.m.voice, at);
        if (one) break;
    }
    *frame = at;
    return 1;
}

int hld_params_due_peek(const hld_params_t *P, uint64_t *frame) {
    if (!P->nsched) return 0;
    uint64_t best = P->sched[0].at;
    for (uint32_t i = 1; i < P->nsched; i++)
        if (P->sched[i].at < best) best = P->sched[i].at;
    *frame = best;
    return 1;
}

void hld_params_due(hld_params_t *P, uint64_t now_frame) {
    uint64_t at;
    while (hld_params_due_next(P, now_frame, &at)) {
    }
}

float hld_params_value(const hld_params_t *P, uint32_t param, uint64_t voice, uint64_t em_key,
                       const char *em_name) {
    const hld_param_t *p = P->p[param];
    if (p->scoped) {
        const hld_pent_t *e = ent_find(P, param, HL_PSCOPE_VOICE, voice, "");
        if (e) return e->v.cur;
        if (em_key) {
            e = ent_find(P, param, HL_PSCOPE_EMITTER, em_key, em_name);
            if (e) return e->v.cur;
        }
    }
    return p->g.cur;
}

void hld_params_retime(hld_params_t *P, uint64_t frame) {
    hld_pval_t *v = P->last_v;
    if (!v || v->t0 == frame || P->last_p->def.seek <= 0.0f) return;
    float value = v->target;
    *v = P->last_old;
    target_set(P, P->last_p, v, value, frame);
}

/* One value on frame f; 1 if it still moves after it. */
static int seek_to(const hld_params_t *P, const hld_param_t *p, hld_pval_t *v, uint64_t f) {
    v->cur = value_at(P, p, v, f);
    return v->cur != v->target;
}

void hld_params_seek(hld_params_t *P, uint64_t frame) {
    int back = frame < P->frame;
    P->frame = frame;
    if (!P->moving && !back) return;
    uint32_t moving = 0;
    for (uint32_t i = 0; i < P->n; i++) {
        hld_param_t *p = P->p[i];
        float before = p->g.cur;
        moving += (uint32_t)seek_to(P, p, &p->g, frame);
        if (p->g.cur != before) {
            P->dirty = 1;
            P->gen++;
        }
    }
    if (P->nent)
        for (uint32_t i = 0; i < HLD_PVALUE_SLOTS; i++) {
            hld_pent_t *e = &P->ent[i];
            if (e->kind == 0xFF) continue;
            float before = e->v.cur;
            moving += (uint32_t)seek_to(P, P->p[e->param], &e->v, frame);
            if (e->v.cur != before) P->dirty = 1;
        }
    P->moving = moving;
}

void hld_params_sweep(hld_params_t *P,
                      int (*live)(void *user, int kind, uint64_t key, const char *em_name),
                      void *user) {
    for (uint32_t i = 0; i < HLD_PVALUE_SLOTS && P->nent;) {
        hld_pent_t *e = &P->ent[i];
        if (e->kind != 0xFF && !live(user, e->kind, e->key, e->em_name))
            ent_delete(P, i); /* slot i now holds a shifted entry (or none): look again */
        else
            i++;
    }
}

/* ---- release ----------------------------------------------------------------------------------
 */

uint32_t hld_params_release(hld_params_t *P, const hld_cues_t *cues) {
    static uint8_t ref[HLD_MAX_PARAMS]; /* main thread only */
    uint32_t gone = 0;
    for (uint32_t i = 0; i < P->n; i++)
        gone += P->p[i]->owner == HLD_OWNER_GONE && P->p[i]->def.name[0];
    if (!gone) return 0;
    memset(ref, 0, sizeof ref);
    for (uint32_t c = 0; cues && c < cues->ncues; c++) {
        const hld_cue_t *cue = cues->cues[c];
        if (!cue->def.name[0]) continue; /* released: nothing plays it */
        for (uint32_t b = 0; b < cue->nbinds; b++)
            if (cue->binds[b].param < HLD_MAX_PARAMS) ref[cue->binds[b].param] = 1;
    }
    for (uint32_t b = 0; b < P->nbus; b++)
        if (P->bus[b].param < HLD_MAX_PARAMS) ref[P->bus[b].param] = 1;
    for (uint32_t k = 0; k < P->nsched; k++)
        if (P->sched[k].param < HLD_MAX_PARAMS) ref[P->sched[k].param] = 1;
    uint32_t freed = 0;
    for (uint32_t i = 0; i < P->n; i++) {
        hld_param_t *p = P->p[i];
        if (p->owner != HLD_OWNER_GONE || !p->def.name[0] || ref[i]) continue;
        for (uint32_t e = 0; e < HLD_PVALUE_SLOTS && p->scoped;) {
            if (P->ent[e].kind != 0xFF && P->ent[e].param == i)
                ent_delete(P, e); /* slot e now holds a shifted entry: look again */
            else
                e++;
        }
        p->def.name[0] = '\0';
        p->g.cur = p->g.target = 0.0f;
        P->pfree[P->npfree++] = (uint16_t)i;
        freed++;
    }
    if (freed) { /* the names' table without them */
        memset(P->slot, 0, sizeof P->slot);
        for (uint32_t i = 0; i < P->n; i++)
            if (P->p[i]->def.name[0]) slot_insert(P, P->p[i]->def.name, i);
    }
    return gone - freed;
}

/* ---- bindings ---------------------------------------------------------------------------------
 */

uint32_t hld_params_switch(const hld_param_t *p, const hld_bind_t *b, float v, uint32_t nvar) {
    if (nvar <= 1) return 0;
    uint32_t k = 0;
    if (b->curve.n) {
        while (k < b->curve.n && k + 1u < nvar && v >= b->curve.x[k])
            k++;
        return k;
    }
    float t = (v - p->def.min) / (p->def.max - p->def.min);
    if (!(t > 0.0f)) return 0;
    k = (uint32_t)(t * (float)nvar);
    return k >= nvar ? nvar - 1u : k;
}

float hld_params_blend(const hld_param_t *p, const hld_bind_t *b, float v, uint32_t var,
                       uint32_t nvar) {
    if (nvar <= 1) return 1.0f;
    /* the variations' positions on the parameter's axis */
    float pos[HL_MAX_CUE_SOUNDS];
    uint32_t n = nvar;
    if (b->curve.n >= 2) {
        if (n > b->curve.n) n = b->curve.n;
        for (uint32_t i = 0; i < n; i++)
            pos[i] = b->curve.x[i];
    } else {
        for (uint32_t i = 0; i < n; i++)
            pos[i] = p->def.min + (p->def.max - p->def.min) * (float)i / (float)(n - 1u);
    }
    if (var >= n) return 0.0f;
    if (!(v > pos[0])) return var == 0 ? 1.0f : 0.0f;
    if (v >= pos[n - 1]) return var == n - 1u ? 1.0f : 0.0f;
    uint32_t i = 0;
    while (i + 2u < n && v >= pos[i + 1])
        i++;
    float t = (v - pos[i]) / (pos[i + 1] - pos[i]);
    const float half_pi = 1.57079632679f;
    if (var == i) return cosf(t * half_pi);
    if (var == i + 1u) return sinf(t * half_pi);
    return 0.0f;
}

void hld_params_contrib(const hld_params_t *P, const hld_bind_t *b, uint32_t nb, uint64_t voice,
                        uint64_t em_key, const char *em_name, uint32_t var, uint32_t nvar,
                        hld_pcontrib_t *out) {
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < nb; i++) {
        float v = hld_params_value(P, b[i].param, voice, em_key, em_name);
        float y = b[i].curve.n ? hld_curve_eval(&b[i].curve, v) : 0.0f;
        switch (b[i].prop) {
        case HL_PROP_GAIN: out->gain_db += y; break;
        case HL_PROP_PITCH: out->cents += y; break;
        case HL_PROP_LP:
            if (y > 0.0f && (out->lp_hz == 0.0f || y < out->lp_hz)) out->lp_hz = y;
            break;
        case HL_PROP_HP:
            if (y > out->hp_hz) out->hp_hz = y;
            break;
        case HL_PROP_OCCLUSION:
            y = clampf(y, 0.0f, 1.0f);
            if (y > out->occ) out->occ = y;
            break;
        case HL_PROP_SEND: out->send_db[b[i].index % HL_VOICE_SENDS] += y; break;
        case HL_PROP_BLEND: {
            float w = hld_params_blend(P->p[b[i].param], &b[i], v, var, nvar);
            out->gain_db += w > 1e-7f ? 20.0f * log10f(w) : -144.0f;
            break;
        }
        default: break; /* SWITCH acts at play time */
        }
    }
}
