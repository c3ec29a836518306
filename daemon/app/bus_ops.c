/*
 * bus_ops.c - the mixer-graph requests: BUS (create, remove, re-parent,
 * gain, mute), BUSES, FX, FX_LIST, DUCK and DUCKS. Decoding and replies
 * here, the registry in buses.c, the audio side in mixer_bus.c.
 */
#include <stdio.h>
#include <string.h>

#include "buses.h"
#include "clients.h"
#include "dispatch_int.h"
#include "hl_dsp.h"

/* What each bus carries: voices routed to it and sends into it, real or
 * virtual (a virtual voice comes back on its bus). */
static int usage_entry(void *user, uint64_t voice, const hld_lvoice_t *lv) {
    (void)voice;
    hld_bus_usage_t *u = user;
    if (lv->p.bus < HL_MAX_BUSES) u->voices[lv->p.bus]++;
    for (int i = 0; i < HL_MAX_SENDS; i++)
        if (lv->p.send_gain[i] > 0.0f && lv->p.send_bus[i] < HL_MAX_BUSES)
            u->sends[lv->p.send_bus[i]]++;
    return 0;
}

static void bus_usage(hld_daemon_t *d, hld_bus_usage_t *u) {
    memset(u, 0, sizeof *u);
    hld_vm_foreach(d->vm, usage_entry, u);
}

/* May q's client change bus `bus` (its record; name for the message)? */
static int bus_may(hld_req_t *q, const hld_bus_t *bus, const char *name) {
    return hld_may_change(q, bus->owner, "bus", name);
}

/* The same by name: 1 for no such bus (the caller reports that). */
static int bus_may_name(hld_req_t *q, const char *name) {
    hld_buses_t *b = &q->c->d->buses;
    const hld_bus_t *bus = hld_bus_at(b, hld_bus_index(b, name));
    return !bus || bus_may(q, bus, name);
}

/* Room for one more bus in the client's quota, else the EQUOTA reply. */
static int bus_room(hld_req_t *q) {
    char msg[HL_MAX_MSG + 1];
    int rc = q->c->cl ? hld_client_check_obj(q->c->cl, HLD_QUOTA_BUSES, msg, sizeof msg) : 0;
    if (rc < 0) return hld_fail(q, rc, msg), 0;
    return 1;
}

int hld_op_bus(hld_req_t *q) {
    hl_bus_t m;
    hl_get_bus(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_bus(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    hld_buses_t *b = &d->buses;
    char msg[HL_MAX_MSG + 1];
    int rc = 0;
    /* changing or removing a bus is its owner's (the master and the default
     * buses: a control client's); a new one is the creator's, in its quota */
    hld_bus_t *own = hld_bus_at(b, hld_bus_index(b, m.name));
    if (own && !(m.mask & HL_BUS_CREATE) && !bus_may(q, own, m.name)) return 0;
    if ((m.mask & HL_BUS_CREATE) && !own && !bus_room(q)) return 0;
    if (m.mask & HL_BUS_REMOVE) {
        const hld_rzone_t *z = hld_rzones_using(&d->rzones, hld_bus_index(b, m.name));
        if (z) {
            snprintf(msg, sizeof msg,
                     "bus %s: reverb zone %s uses it (reverb-zone remove %s first)", m.name,
                     z->z.name, z->z.name);
            return hld_fail(q, HELIOD_EBUSINUSE, msg);
        }
        hld_bus_usage_t u;
        bus_usage(d, &u);
        uint32_t owner = own ? own->owner : 0;
        rc = hld_buses_remove(b, m.name, &u, msg, sizeof msg);
        if (rc != 0) return hld_fail(q, rc, msg);
        hld_clients_obj_gone(&d->ledger, owner, HLD_QUOTA_BUSES);
        hld_vm_mark_dirty(d->vm);
        return hld_reply_ok(q);
    }
    if (m.mask & HL_BUS_CREATE) {
        rc = hld_buses_create(b, m.name, m.parent, msg, sizeof msg);
        hld_bus_t *nb = rc == 0 ? hld_bus_at(b, hld_bus_index(b, m.name)) : NULL;
        if (nb) {
            hld_take_ownership(q, &nb->owner, HLD_QUOTA_BUSES, 1);
            nb->shared = q->c->control; /* a control client's name: its label unqualified */
        }
    }
    if (rc == 0 && (m.mask & HL_BUS_PARENT))
        rc = hld_buses_reparent(b, m.name, m.parent, msg, sizeof msg);
    if (rc != 0) return hld_fail(q, rc, msg);
    int bus = hld_bus_index(b, m.name);
    if (bus == HLD_BUS_NONE) {
        snprintf(msg, sizeof msg, "no bus named %s", m.name);
        return hld_fail(q, HELIOD_ENOBUS, msg);
    }
    uint32_t ramp = hld_ms_to_frames(d, m.ramp_ms);
    if (m.mask & HL_BUS_GAIN) {
        rc = hld_snaps_bus_gain(&d->snaps, bus, m.gain_db, ramp); /* the base of any blend */
        if (rc < 0) return hld_mixer_fail(q, rc);
    }
    if (m.mask & HL_BUS_MUTE) {
        rc = hl_mixer_set_bus_mute(d->engine.mixer, bus, m.mute, ramp, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc);
    }
    if (m.mask & HL_BUS_SEND) {
        int t = hld_bus_index(b, m.send);
        if (t < 0) {
            snprintf(msg, sizeof msg, "send: no bus named %s", m.send);
            return hld_fail(q, HELIOD_ENOBUS, msg);
        }
        rc = hld_buses_send(b, bus, t, m.send_db, ramp, msg, sizeof msg);
        if (rc != 0) return hld_fail(q, rc, msg);
    }
    hld_vm_mark_dirty(d->vm); /* path gains changed: re-rank */
    return hld_reply_ok(q);
}

int hld_op_buses(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_daemon_t *d = q->c->d;
    hld_bus_usage_t u;
    bus_usage(d, &u);
    hl_bus_info_t info[HL_MAX_BUSES + 1];
    uint32_t n = hld_buses_list(&d->buses, &u, info);
    hld_list_t l;
    hld_list_begin(&l, q);
    for (uint32_t i = 0; i < n; i++) {
        size_t before = q->w.len;
        hl_put_bus_info(&q->w, &info[i]);
        if (hld_list_entry_done(&l, before)) break;
    }
    return hld_list_end(&l);
}

int hld_op_fx(hld_req_t *q) {
    hl_fx_req_t m;
    hl_get_fx_req(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_fx(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    if (!bus_may_name(q, m.bus)) return 0; /* an effect can silence its bus */
    char msg[HL_MAX_MSG + 1];
    uint32_t index = 0;
    int rc = hld_buses_fx(&q->c->d->buses, &m, &index, msg, sizeof msg);
    if (rc != 0) return hld_fail(q, rc, msg);
    hld_snaps_rebase(&q->c->d->snaps); /* new base settings under any snapshot */
    return hld_reply_count(q, index);
}

int hld_op_fx_list(hld_req_t *q) {
    hl_name_t m;
    hl_get_name(&q->r, &m); /* a bus name, or "" for every bus */
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_buses_t *b = &q->c->d->buses;
    int only = HLD_BUS_NONE;
    if (m.name[0]) {
        only = hld_bus_index(b, m.name);
        if (only == HLD_BUS_NONE) {
            char msg[HL_MAX_MSG + 1];
            snprintf(msg, sizeof msg, "no bus named %s", m.name);
            return hld_fail(q, HELIOD_ENOBUS, msg);
        }
    }
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_list_t l;
    hld_list_begin(&l, q);
    for (int bus = HLD_BUS_MASTER; bus < HL_MAX_BUSES; bus++) {
        if (m.name[0] && bus != only) continue;
        if (!hld_bus_name(b, bus)) continue;
        hl_fx_info_t info[HL_MAX_FX];
        uint32_t n = hld_buses_fx_info(b, bus, info, HL_MAX_FX);
        for (uint32_t i = 0; i < n; i++) {
            size_t before = q->w.len;
            hl_put_fx_info(&q->w, &info[i]);
            if (hld_list_entry_done(&l, before)) return hld_list_end(&l);
        }
    }
    return hld_list_end(&l);
}

int hld_op_duck(hld_req_t *q) {
    hl_duck_rule_t m;
    hl_get_duck_rule(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_duck(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    if (!bus_may_name(q, m.bus)) return 0; /* a rule lowers the ducked bus */
    char msg[HL_MAX_MSG + 1];
    int rc = hld_buses_duck(&q->c->d->buses, &m, msg, sizeof msg);
    if (rc != 0) return hld_fail(q, rc, msg);
    return hld_reply_ok(q);
}

int hld_op_ducks(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_buses_t *b = &q->c->d->buses;
    hl_mixer_stats_t st;
    hl_mixer_stats(q->c->d->engine.mixer, &st);
    hld_list_t l;
    hld_list_begin(&l, q);
    for (int i = 0; i < HL_MAX_DUCKS; i++) {
        if (!b->duck_used[i]) continue;
        hl_duck_info_t e = {.rule = b->duck[i]};
        int t = b->duck_bus[i];
        float g = t >= 0 ? st.duck_gain[t] : 1.0f;
        e.gain_db = g > 1e-7f ? hl_lin_to_db(g) : HL_MIN_DB;
        size_t before = q->w.len;
        hl_put_duck_info(&q->w, &e);
        if (hld_list_entry_done(&l, before)) break;
    }
    return hld_list_end(&l);
}

/* ---- [bus NAME] sections of the config file ---------------------------------- */

static int config_bus_fx(hld_daemon_t *d, const hld_config_bus_t *cb, const char *line) {
    char buf[256], *args[32];
    snprintf(buf, sizeof buf, "%s", line);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t && n < 32;
         t = strtok_r(NULL, " \t", &save))
        args[n++] = t;
    hl_fx_req_t m = {.action = HL_FX_ADD, .index = UINT32_MAX};
    snprintf(m.bus, sizeof m.bus, "%s", cb->name);
    char msg[HL_MAX_MSG + 1];
    const char *why = NULL;
    int kind = n ? hl_fx_kind_from(args[0]) : -1;
    if (kind < 0) {
        fprintf(stderr, "heliod: %s:%d: [bus %s] fx = %s: unknown effect (eq, comp, reverb)\n",
                cb->file, cb->line, cb->name, line);
        return -1;
    }
    m.kind = (uint8_t)kind;
    if (hl_fx_parse_args(&m, n - 1, args + 1, msg, sizeof msg) != 0 ||
        (hl_validate_fx(&m, &why) != 0 && snprintf(msg, sizeof msg, "%s", why) >= 0)) {
        fprintf(stderr, "heliod: %s:%d: [bus %s] fx = %s: %s\n", cb->file, cb->line, cb->name, line,
                msg);
        return -1;
    }
    uint32_t index = 0;
    if (hld_buses_fx(&d->buses, &m, &index, msg, sizeof msg) != 0) {
        fprintf(stderr, "heliod: [bus %s]: %s\n", cb->name, msg);
        return -1;
    }
    return 0;
}

int hld_config_buses(hld_daemon_t *d) {
    const hld_config_t *c = &d->cfg;
    hld_buses_t *b = &d->buses;
    char msg[HL_MAX_MSG + 1];
    /* create in passes so a section may name a parent defined further down */
    uint32_t done = 0;
    uint8_t made[HL_MAX_BUSES] = {0};
    for (uint32_t pass = 0; pass <= c->n_buses && done < c->n_buses; pass++) {
        for (uint32_t i = 0; i < c->n_buses; i++) {
            const hld_config_bus_t *cb = &c->buses[i];
            if (made[i]) continue;
            if (cb->parent[0] && hld_bus_index(b, cb->parent) == HLD_BUS_NONE) continue;
            int rc =
                hld_bus_index(b, cb->name) != HLD_BUS_NONE
                    ? (cb->parent[0] ? hld_buses_reparent(b, cb->name, cb->parent, msg, sizeof msg)
                                     : 0)
                    : hld_buses_create(b, cb->name, cb->parent, msg, sizeof msg);
            if (rc != 0) {
                fprintf(stderr, "heliod: %s:%d: [bus %s]: %s\n", cb->file, cb->line, cb->name, msg);
                return -1;
            }
            made[i] = 1;
            done++;
        }
    }
    for (uint32_t i = 0; i < c->n_buses; i++) {
        const hld_config_bus_t *cb = &c->buses[i];
        if (!made[i]) {
            fprintf(stderr, "heliod: %s:%d: [bus %s]: no bus named %s (its parent)\n", cb->file,
                    cb->line, cb->name, cb->parent);
            return -1;
        }
        int bus = hld_bus_index(b, cb->name);
        if (cb->has_gain) {
            if (!hl_gain_valid(cb->gain_db)) {
                fprintf(stderr,
                        "heliod: [bus %s]: gain must be finite and <= +" HL_RANGE_STR(
                            HL_R_GAIN_DB_HI) " dB\n",
                        cb->name);
                return -1;
            }
            hl_mixer_set_bus_gain(d->engine.mixer, bus, hl_db_to_lin(cb->gain_db), 0, hld_now_ns());
        }
        if (cb->mute) hl_mixer_set_bus_mute(d->engine.mixer, bus, 1, 0, hld_now_ns());
        for (uint32_t k = 0; k < cb->nfx; k++)
            if (config_bus_fx(d, cb, cb->fx[k]) != 0) return -1;
    }
    for (uint32_t i = 0; i < c->n_buses; i++) {
        const hld_config_bus_t *cb = &c->buses[i];
        if (!cb->duck_by[0]) continue;
        hl_duck_rule_t r = {.on = 1,
                            .depth_db = cb->duck[0],
                            .threshold_db = cb->duck[1],
                            .attack_ms = cb->duck[2],
                            .hold_ms = cb->duck[3],
                            .release_ms = cb->duck[4]};
        snprintf(r.bus, sizeof r.bus, "%s", cb->name);
        snprintf(r.by, sizeof r.by, "%s", cb->duck_by);
        const char *why = NULL;
        if (hl_validate_duck(&r, &why) != 0) {
            fprintf(stderr, "heliod: [bus %s] duck: %s\n", cb->name, why);
            return -1;
        }
        if (hld_buses_duck(b, &r, msg, sizeof msg) != 0) {
            fprintf(stderr, "heliod: [bus %s]: %s\n", cb->name, msg);
            return -1;
        }
    }
    return 0;
}

/* ---- reverb zones ------------------------------------------------------------ */

int hld_op_rzone(hld_req_t *q) {
    hl_rzone_t m;
    hl_get_rzone(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_rzone(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    hld_rzone_t *old = hld_rzones_find(&d->rzones, m.name);
    if (old && !hld_may_change(q, old->owner, "reverb zone", m.name)) return 0;
    if (m.action != HL_RZONE_SET) {
        uint32_t owner = old ? old->owner : 0;
        int bus = old && old->owns_bus ? old->bus_ix : HLD_BUS_NONE;
        int rc = hld_rzones_remove(&d->rzones, m.name, msg, sizeof msg);
        if (rc != 0) return hld_fail(q, rc, msg);
        hld_clients_obj_gone(&d->ledger, owner, HLD_QUOTA_RZONES);
        if (bus >= 0 && !hld_bus_at(&d->buses, bus)) /* its bus went with it */
            hld_clients_obj_gone(&d->ledger, owner, HLD_QUOTA_BUSES);
        return hld_reply_ok(q);
    }
    /* the zone's sends are its feed's: a feed of another client's is not
     * this one's to take (the default feed is shared) */
    if (m.feed[0] && !bus_may_name(q, m.feed)) return 0;
    const char *busname = m.bus[0] ? m.bus : m.name;
    int new_bus = hld_bus_index(&d->buses, busname) == HLD_BUS_NONE;
    if (!old) {
        int rc = q->c->cl ? hld_client_check_obj(q->c->cl, HLD_QUOTA_RZONES, msg, sizeof msg) : 0;
        if (rc < 0) return hld_fail(q, rc, msg);
    }
    if (new_bus && !bus_room(q)) return 0;
    int rc = hld_rzones_set(&d->rzones, &m, msg, sizeof msg);
    if (rc != 0) return hld_fail(q, rc, msg);
    hld_rzone_t *z = hld_rzones_find(&d->rzones, m.name);
    if (z) hld_take_ownership(q, &z->owner, HLD_QUOTA_RZONES, !old);
    hld_bus_t *nb = new_bus && z ? hld_bus_at(&d->buses, z->bus_ix) : NULL;
    if (nb) {
        hld_take_ownership(q, &nb->owner, HLD_QUOTA_BUSES, 1);
        nb->shared = q->c->control;
    }
    return hld_reply_ok(q);
}

int hld_op_rzones(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hl_rzone_info_t info[HL_MAX_RZONES];
    uint32_t n = hld_rzones_list(&q->c->d->rzones, info, HL_MAX_RZONES);
    hld_list_t l;
    hld_list_begin(&l, q);
    for (uint32_t i = 0; i < n; i++) {
        size_t before = q->w.len;
        hl_put_rzone_info(&q->w, &info[i]);
        if (hld_list_entry_done(&l, before)) break;
    }
    return hld_list_end(&l);
}
