/*
 * param_ops.c - the requests on game parameters (protocol 1.1): PARAM_DEF
 * defines or redefines one, PARAM sets a value (global, an emitter's or a
 * voice's; schedulable), PARAMS lists them, BIND binds one to a property
 * of a cue's voices through a curve. Values are applied by the voice
 * manager's tick (vm_params.c); see params.h.
 *
 * Names live in the definer's process namespace like cues (hld_ns_rank);
 * a parameter is charged to its process's --client-params quota before it
 * is allocated, and changing (redefining, setting, binding another's cue
 * to) an object follows the permission table of PROTOCOL.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients.h"
#include "dispatch_int.h"
#include "hl_mixer.h"
#include "params.h"
#include "vm.h"

static hld_param_t *param_find(hld_req_t *q, const char *name) {
    hld_param_t *p = hld_params_find_in(&q->c->d->params, name, hld_ns_rank, q->c);
    if (p) return p;
    char msg[HL_MAX_MSG + 1];
    snprintf(msg, sizeof msg, "no parameter named %s (define it: param-def or [parameter %s])",
             name, name);
    hld_fail(q, HELIOD_EINVAL, msg);
    return NULL;
}

int hld_op_param_def(hld_req_t *q) {
    hl_param_def_t m;
    hl_get_param_def(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_param_def(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_params_t *P = &q->c->d->params;
    hld_param_t *old = hld_params_find_in(P, m.name, hld_ns_rank, q->c);
    if (old && !hld_may_change(q, old->owner, "parameter", m.name)) return 0;
    if (!old) {
        char msg[HL_MAX_MSG + 1];
        int rc = q->c->cl ? hld_client_check_obj(q->c->cl, HLD_QUOTA_PARAMS, msg, sizeof msg) : 0;
        if (rc) return hld_fail(q, rc, msg);
        if (!hld_params_room(P)) {
            snprintf(msg, sizeof msg, "parameters: the daemon holds its most (%d)", HLD_MAX_PARAMS);
            return hld_fail(q, HELIOD_ENOMEM, msg);
        }
    }
    hld_param_t *e = NULL;
    int rc = hld_params_define(P, &m, old, 0, &e);
    if (rc < 0) return hld_fail(q, rc, NULL);
    hld_take_ownership(q, &e->owner, HLD_QUOTA_PARAMS, !old);
    return hld_reply_ok(q);
}

int hld_op_param(hld_req_t *q) {
    hl_param_t m;
    hl_get_param(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_param(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    hld_param_t *p = param_find(q, m.name);
    if (!p) return 0;
    char msg[HL_MAX_MSG + 1];
    if (m.value < p->def.min || m.value > p->def.max) {
        snprintf(msg, sizeof msg, "value: %g is outside parameter %s's range [%g, %g]",
                 (double)m.value, m.name, (double)p->def.min, (double)p->def.max);
        return hld_fail(q, HELIOD_EINVAL, msg);
    }
    uint64_t key = 0;
    const char *em_name = "";
    if (m.scope == HL_PSCOPE_GLOBAL) {
        /* any client that sees the parameter sets its value: its process's
         * own, or a shared one (the daemon's cue sheet's), as it plays a
         * shared cue; another live process's is not found */
    } else if (m.scope == HL_PSCOPE_EMITTER) {
        hld_emitter_t *em = hld_vm_emitter_find_in(d->vm, m.emitter, hld_ns_rank, q->c);
        if (!em) {
            snprintf(msg, sizeof msg, "no emitter named %s", m.emitter);
            return hld_fail(q, HELIOD_ENOEMITTER, msg);
        }
        if (!hld_conn_may(q->c, em->creator)) {
            d->n.denied++;
            snprintf(msg, sizeof msg,
                     "emitter %s belongs to client %u: only it or a control client may set its "
                     "parameters",
                     m.emitter, em->creator);
            return hld_fail(q, HELIOD_EPERM, msg);
        }
        key = (uint64_t)(uintptr_t)em;
        em_name = em->name;
    } else {
        hld_lvoice_t *lv = hld_vm_get(d->vm, m.voice);
        if (!lv) return hld_fail(q, HELIOD_ENOVOICE, NULL);
        if (!hld_conn_may(q->c, lv->creator)) {
            d->n.denied++;
            snprintf(msg, sizeof msg,
                     "voice %llu belongs to client %u: only it or a control client may change it",
                     (unsigned long long)m.voice, lv->creator);
            return hld_fail(q, HELIOD_EPERM, msg);
        }
        key = lv->pv.leader ? lv->pv.leader : m.voice; /* a blend's layers share the first's */
    }
    hld_params_t *P = &d->params;
    uint64_t at = hl_mixer_at_frame(d->engine.mixer);
    int rc;
    if (at && at > hl_mixer_frames(d->engine.mixer)) {
        snprintf(m.emitter, sizeof m.emitter, "%s", em_name);
        rc = hld_params_schedule(P, at, &m, p->index, key, q->c->id);
        if (rc < 0) {
            snprintf(msg, sizeof msg, "parameters: %d scheduled values pending (the most held)",
                     HLD_MAX_PSCHED);
            return hld_fail(q, rc, msg);
        }
        hld_vm_params_due(d->vm, P, hld_now_ns()); /* due within the lead: now, on its frame */
        return hld_reply_ok(q);
    }
    /* the frame it takes effect on (a seek starts there): the capture's
     * (dispatch.c): the next call's when the audio thread drained its ring
     * inside one */
    uint64_t eff = 0;
    if (hl_mixer_phase(d->engine.mixer, &eff) == HL_MIX_PHASE_DRAINED) eff += d->cfg.period;
    if (at) eff = at;
    int active = hld_vm_params_active(P, eff); /* before the value moves */
    rc = hld_params_set_at(P, p, m.scope, key, em_name, m.value, q->c->id, eff);
    if (rc == HELIOD_EBUSY) { /* full of values: drop those of voices and emitters gone */
        hld_vm_params_sweep(d->vm, P);
        rc = hld_params_set_at(P, p, m.scope, key, em_name, m.value, q->c->id, eff);
    }
    if (rc < 0) {
        snprintf(msg, sizeof msg, "parameters: %d emitter and voice values held (the most)",
                 HLD_MAX_PVALUES);
        return hld_fail(q, rc, msg);
    }
    /* the bound voices, buses and snapshots follow with this request, on
     * its frame (not on whichever period the next poll meets), also while
     * another value seeks; a seek steps on its grid of frames
     * (hld_vm_params_due) */
    hld_vm_params_applied(d->vm, P, eff, active, hld_now_ns());
    return hld_reply_ok(q);
}

int hld_op_params(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_params_t *P = &q->c->d->params;
    hld_list_t l;
    hld_list_begin(&l, q);
    for (uint32_t i = 0; i < P->n; i++) {
        const hld_param_t *p = P->p[i];
        /* what its names resolve to: its own process's and the shared ones */
        if (p->owner == HLD_OWNER_GONE) continue; /* its process has gone (owners.c) */
        if (hld_params_find_in(P, p->def.name, hld_ns_rank, q->c) != p && !q->c->control) continue;
        hl_param_info_t pi = {
            .def = p->def,
            .value = p->g.cur,
            .target = p->g.target,
            .owner = p->owner,
            .scoped = p->scoped,
        };
        size_t before = q->w.len;
        hl_put_param_info(&q->w, &pi);
        if (hld_list_entry_done(&l, before)) break;
    }
    hld_list_end(&l);
    return 0;
}

/* FX parameter ranges by kind (p0..p5), as hl_fx_req documents them. */
static int fx_param_range(uint8_t kind, uint8_t i, float *lo, float *hi) {
    static const float eq[3][2] = {{HL_R_EQ_FREQ_LO, HL_R_EQ_FREQ_HI},
                                   {HL_R_EQ_Q_LO, HL_R_EQ_Q_HI},
                                   {HL_R_EQ_GAIN_LO, HL_R_EQ_GAIN_HI}};
    static const float comp[6][2] = {
        {HL_R_COMP_THRESH_LO, HL_R_COMP_THRESH_HI},   {HL_R_COMP_RATIO_LO, HL_R_COMP_RATIO_HI},
        {HL_R_COMP_KNEE_LO, HL_R_COMP_KNEE_HI},       {HL_R_COMP_ATTACK_LO, HL_R_COMP_ATTACK_HI},
        {HL_R_COMP_RELEASE_LO, HL_R_COMP_RELEASE_HI}, {HL_R_COMP_MAKEUP_LO, HL_R_COMP_MAKEUP_HI}};
    static const float rev[6][2] = {
        {HL_R_REV_RT60_LO, HL_R_REV_RT60_HI},         {HL_R_REV_DAMPING_LO, HL_R_REV_DAMPING_HI},
        {HL_R_REV_PREDELAY_LO, HL_R_REV_PREDELAY_HI}, {HL_R_REV_SIZE_LO, HL_R_REV_SIZE_HI},
        {HL_R_REV_WET_LO, HL_R_REV_WET_HI},           {HL_R_REV_DRY_LO, HL_R_REV_DRY_HI}};
    const float(*t)[2] = kind == HL_FXK_EQ ? eq : kind == HL_FXK_COMP ? comp : rev;
    unsigned n = kind == HL_FXK_EQ ? 3u : 6u;
    if (i >= n) return -1;
    *lo = t[i][0];
    *hi = t[i][1];
    return 0;
}

/* BIND of a bus's gain or an effect parameter: `cue` names the bus; of a
 * snapshot's intensity: `cue` names the snapshot (bus HLD_BIND_SNAPSHOT). */
static int bind_bus(hld_req_t *q, const hl_bind_t *m, hld_param_t *p) {
    hld_daemon_t *d = q->c->d;
    hld_params_t *P = &d->params;
    char msg[HL_MAX_MSG + 1];
    int bus = HLD_BIND_SNAPSHOT;
    if (m->prop == HL_PROP_SNAPSHOT) {
        const hld_snap_t *sn = hld_snaps_find(&d->snaps, m->cue);
        if (!sn) {
            snprintf(msg, sizeof msg, "no snapshot named %s", m->cue);
            return hld_fail(q, HELIOD_EINVAL, msg);
        }
        if (!hld_may_change(q, sn->owner, "snapshot", m->cue)) return 0;
    } else if ((bus = hld_bus_index(&d->buses, m->cue)) == HLD_BUS_NONE) {
        snprintf(msg, sizeof msg, "no bus named %s", m->cue);
        return hld_fail(q, HELIOD_ENOBUS, msg);
    }
    const hld_bus_t *br = bus == HLD_BIND_SNAPSHOT ? NULL : hld_bus_at(&d->buses, bus);
    if (bus != HLD_BIND_SNAPSHOT && !hld_may_change(q, br ? br->owner : 0, "bus", m->cue)) return 0;
    if (m->prop == HL_PROP_FX) {
        hl_fx_info_t fi[HL_MAX_FX];
        uint32_t n = hld_buses_fx_info(&d->buses, bus, fi, HL_MAX_FX);
        if (m->index >= n) {
            snprintf(msg, sizeof msg, "index: bus %s has no effect %u (it has %u)", m->cue,
                     m->index, n);
            return hld_fail(q, HELIOD_ENOFX, msg);
        }
        float lo, hi;
        if (fx_param_range(fi[m->index].kind, m->fxp, &lo, &hi) != 0) {
            snprintf(msg, sizeof msg, "fxp: effect %u of bus %s has no parameter p%u", m->index,
                     m->cue, m->fxp);
            return hld_fail(q, HELIOD_EINVAL, msg);
        }
        for (unsigned i = 0; i < m->npoints; i++)
            if (!(m->y[i] >= lo && m->y[i] <= hi)) {
                snprintf(msg, sizeof msg, "y: point %u (%g) is outside p%u's range [%g, %g]", i + 1,
                         (double)m->y[i], m->fxp, (double)lo, (double)hi);
                return hld_fail(q, HELIOD_EINVAL, msg);
            }
    }
    uint32_t k = 0;
    while (k < P->nbus &&
           !(P->bus[k].param == p->index && P->bus[k].prop == m->prop && P->bus[k].bus == bus &&
             P->bus[k].index == m->index && P->bus[k].fxp == m->fxp &&
             (bus != HLD_BIND_SNAPSHOT || strcmp(P->bus[k].bus_name, m->cue) == 0)))
        k++;
    if (k == P->nbus) {
        if (P->nbus >= HL_MAX_BUS_BINDS) {
            snprintf(msg, sizeof msg, "bus bindings: the daemon holds its most (%d)",
                     HL_MAX_BUS_BINDS);
            return hld_fail(q, HELIOD_ENOMEM, msg);
        }
        P->nbus++;
    }
    hld_busbind_t *b = &P->bus[k];
    memset(b, 0, sizeof *b);
    b->param = p->index;
    b->prop = m->prop;
    b->index = m->index;
    b->fxp = m->fxp;
    b->bus = bus;
    snprintf(b->bus_name, sizeof b->bus_name, "%s",
             bus == HLD_BIND_SNAPSHOT ? m->cue : hld_bus_name(&d->buses, bus));
    hld_curve_from_bind(&b->curve, m);
    P->gen++;
    hld_params_bus_apply(d); /* on the request's frame, with the value as last evaluated */
    return hld_reply_ok(q);
}

/* The bus, effect and snapshot bindings follow the global values as they
 * are on P->frame, their commands pushed on the mixer's frame (hl_mixer_at):
 * the voice manager calls this after each evaluation of the bound voices
 * (hld_vm_ops_t.params_applied), on the frame that evaluation is for, so a
 * seek's steps, a scheduled value and a jump reach the buses on the same
 * frames as the voices, live and in a replay alike. */
void hld_params_bus_apply(void *user) {
    hld_daemon_t *d = user;
    hld_params_t *P = &d->params;
    if ((P->gen == P->bus_gen && !P->force) || !P->nbus) return;
    P->bus_gen = P->gen;
    if (P->force) /* every binding again, changed or not (hld_vm_params_applied) */
        for (uint32_t k = 0; k < P->nbus; k++)
            P->bus[k].applied = 0;
    uint32_t ramp = hld_ms_to_frames(d, (float)HLD_PARAM_EVAL_MS);
    for (uint32_t k = 0; k < P->nbus; k++) {
        hld_busbind_t *b = &P->bus[k];
        if (b->prop == HL_PROP_SNAPSHOT) { /* glides to the curve's intensity */
            float y = hld_curve_eval(&b->curve, P->p[b->param]->g.cur);
            if (b->applied && y == b->last) continue;
            const hld_snap_t *sn = hld_snaps_find(&d->snaps, b->bus_name);
            if (!sn || (!sn->active && y <= 0.0f)) { /* gone, or idle and staying so */
                b->last = y;
                b->applied = 1;
                continue;
            }
            char msg[HL_MAX_MSG + 1];
            if (hld_snaps_set_intensity(&d->snaps, b->bus_name, y, (float)HLD_PARAM_EVAL_MS, msg,
                                        sizeof msg) == HELIOD_EBUSY) {
                P->bus_gen = 0; /* ring full: again next pass */
                continue;
            }
            b->last = y;
            b->applied = 1;
            continue;
        }
        const char *now_name = hld_bus_name(&d->buses, b->bus);
        if (!now_name || strcmp(now_name, b->bus_name) != 0) continue; /* the bus went */
        if (b->prop == HL_PROP_BUS_GAIN) {
            float db = 0.0f; /* bus-gain bindings of one bus add up */
            for (uint32_t j = 0; j < P->nbus; j++)
                if (P->bus[j].prop == HL_PROP_BUS_GAIN && P->bus[j].bus == b->bus)
                    db += hld_curve_eval(&P->bus[j].curve, P->p[P->bus[j].param]->g.cur);
            if (db > HL_MAX_GAIN_DB) db = HL_MAX_GAIN_DB;
            if (b->applied && db == b->last) continue;
            if (hld_snaps_bus_gain(&d->snaps, b->bus, db, ramp) != 0) { /* a blend's base */
                P->bus_gen = 0; /* ring full: again next pass */
                continue;
            }
            for (uint32_t j = 0; j < P->nbus; j++) /* the sum is applied for all of them */
                if (P->bus[j].prop == HL_PROP_BUS_GAIN && P->bus[j].bus == b->bus) {
                    P->bus[j].last = db;
                    P->bus[j].applied = 1;
                }
            hld_vm_mark_dirty(d->vm); /* path gains changed: re-rank */
            continue;
        }
        float y = hld_curve_eval(&b->curve, P->p[b->param]->g.cur);
        if (b->applied && y == b->last) continue;
        hl_fx_info_t fi[HL_MAX_FX];
        uint32_t n = hld_buses_fx_info(&d->buses, b->bus, fi, HL_MAX_FX);
        if (b->index >= n) continue; /* the effect went */
        hl_fx_req_t r;
        hl_fx_req_init(&r);
        r.action = HL_FX_SET;
        snprintf(r.bus, sizeof r.bus, "%s", b->bus_name);
        r.index = b->index;
        r.kind = fi[b->index].kind;
        r.type = fi[b->index].type;
        memcpy(r.p, fi[b->index].p, sizeof r.p);
        r.mask = 1u << b->fxp;
        r.p[b->fxp] = y;
        r.ramp_ms = (float)HLD_PARAM_EVAL_MS;
        char msg[HL_MAX_MSG + 1];
        uint32_t idx = 0;
        int rc = hld_buses_fx(&d->buses, &r, &idx, msg, sizeof msg);
        if (rc == HELIOD_EBUSY) {
            P->bus_gen = 0;
            continue;
        }
        b->last = y; /* applied, or refused for good (the effect changed kind) */
        b->applied = 1;
    }
}

void hld_params_bus_tick(hld_daemon_t *d) {
    hld_params_t *P = &d->params;
    if (P->gen == P->bus_gen || !P->nbus) return;
    uint64_t saved = hl_mixer_at_frame(d->engine.mixer);
    hl_mixer_at(d->engine.mixer, 0); /* a retry (the ring was full): at once */
    hld_params_bus_apply(d);
    hl_mixer_at(d->engine.mixer, saved);
}

int hld_op_bind(hld_req_t *q) {
    hl_bind_t m;
    hl_get_bind(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_bind(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    if (m.prop == HL_PROP_BUS_GAIN || m.prop == HL_PROP_FX || m.prop == HL_PROP_SNAPSHOT) {
        if (m.action == HL_BIND_CLEAR)
            return hld_fail(q, HELIOD_EINVAL, "clear: a cue's bindings only");
        hld_param_t *p = param_find(q, m.param);
        if (!p) return 0;
        for (unsigned i = 0; i < m.npoints; i++)
            if (m.x[i] < p->def.min || m.x[i] > p->def.max) {
                snprintf(msg, sizeof msg,
                         "x: point %u (%g) is outside parameter %s's range [%g, %g]", i + 1,
                         (double)m.x[i], m.param, (double)p->def.min, (double)p->def.max);
                return hld_fail(q, HELIOD_EINVAL, msg);
            }
        return bind_bus(q, &m, p);
    }
    hld_cue_t *cue = hld_cues_find_in(&d->cues, m.cue, hld_ns_rank, q->c);
    if (!cue) {
        snprintf(msg, sizeof msg, "no cue named %s", m.cue);
        return hld_fail(q, HELIOD_ENOSOUND, msg);
    }
    if (!hld_may_change(q, cue->owner, "cue", m.cue)) return 0;
    if (m.action == HL_BIND_CLEAR) {
        free(cue->binds);
        cue->binds = NULL;
        cue->nbinds = 0;
        return hld_reply_ok(q);
    }
    hld_param_t *p = param_find(q, m.param);
    if (!p) return 0;
    for (unsigned i = 0; i < m.npoints; i++)
        if (m.x[i] < p->def.min || m.x[i] > p->def.max) {
            snprintf(msg, sizeof msg, "x: point %u (%g) is outside parameter %s's range [%g, %g]",
                     i + 1, (double)m.x[i], m.param, (double)p->def.min, (double)p->def.max);
            return hld_fail(q, HELIOD_EINVAL, msg);
        }
    /* the same parameter and property again replaces that binding */
    uint32_t k = 0;
    while (k < cue->nbinds && !(cue->binds[k].param == p->index && cue->binds[k].prop == m.prop &&
                                cue->binds[k].index == m.index))
        k++;
    if (k == cue->nbinds) {
        if (cue->nbinds >= HL_MAX_CUE_BINDS) {
            snprintf(msg, sizeof msg, "cue %s: already has %d bindings (the most)", m.cue,
                     HL_MAX_CUE_BINDS);
            return hld_fail(q, HELIOD_EINVAL, msg);
        }
        if (!cue->binds && !(cue->binds = calloc(HL_MAX_CUE_BINDS, sizeof *cue->binds)))
            return hld_fail(q, HELIOD_ENOMEM, NULL);
        cue->nbinds++;
    }
    hld_bind_t *b = &cue->binds[k];
    b->param = p->index;
    b->prop = m.prop;
    b->index = m.index;
    hld_curve_from_bind(&b->curve, &m);
    d->params.dirty = 1; /* playing voices of the cue follow at the next tick */
    return hld_reply_ok(q);
}
