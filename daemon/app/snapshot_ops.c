/*
 * snapshot_ops.c - SNAPSHOT (define, set, start, stop, remove) and SNAPSHOTS
 * (protocol 1.1). The snapshots and their blend live in graph/snapshots.c.
 *
 * Permissions follow the buses': a snapshot belongs to the client that
 * defined it (0: the daemon's, from a cue sheet); defining it again, adding
 * a setting or removing it is its owner's or a control client's (hld_may_change,
 * adoptable once its process has gone). A setting may name only a bus this
 * client may change, and starting or stopping a snapshot needs leave to
 * change every bus it sets: a plain client cannot move, through a snapshot,
 * a bus it could not move with BUS. A new snapshot is charged to its
 * process's quota before its slot is taken.
 */
#include <stdio.h>
#include <string.h>

#include "clients.h"
#include "dispatch_int.h"

/* May q's client change every bus snapshot p sets? Else the EPERM reply. */
static int may_all_buses(hld_req_t *q, const hld_snap_t *p) {
    hld_buses_t *b = &q->c->d->buses;
    for (uint32_t i = 0; i < p->nset; i++) {
        const hld_bus_t *bus = hld_bus_at(b, p->set[i].bus);
        if (!bus || hld_conn_may_change(q->c, bus->owner)) continue;
        return hld_may_change(q, bus->owner, "bus", p->set[i].bus_name);
    }
    return 1;
}

int hld_op_snapshot(hld_req_t *q) {
    hl_snapshot_t m;
    hl_get_snapshot(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_snapshot(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    if (hl_mixer_at_frame(d->engine.mixer) && m.action != HL_SNAP_START && m.action != HL_SNAP_STOP)
        return hld_fail(q, HELIOD_EINVAL,
                        "snapshot define, set and remove apply at once: only start and stop can "
                        "be scheduled");
    char msg[HL_MAX_MSG + 1];
    hld_snap_t *p = hld_snaps_find(&d->snaps, m.name);
    if (m.action == HL_SNAP_START || m.action == HL_SNAP_STOP) {
        if (p && !may_all_buses(q, p)) return 0;
    } else if (p && !hld_may_change(q, p->owner, "snapshot", m.name)) {
        return 0;
    }
    if (m.action == HL_SNAP_SET) {
        hld_buses_t *b = &d->buses;
        const hld_bus_t *bus = hld_bus_at(b, hld_bus_index(b, m.bus));
        if (bus && !hld_may_change(q, bus->owner, "bus", m.bus)) return 0;
    }
    int created = m.action == HL_SNAP_DEFINE && !p;
    if (created) {
        int rc =
            q->c->cl ? hld_client_check_obj(q->c->cl, HLD_QUOTA_SNAPSHOTS, msg, sizeof msg) : 0;
        if (rc < 0) return hld_fail(q, rc, msg);
    }
    uint32_t owner = p ? p->owner : 0;
    int rc = hld_snaps_request(&d->snaps, &m, q->c->id, msg, sizeof msg);
    if (rc != 0) return hld_fail(q, rc, msg);
    if (created) {
        hld_snap_t *np = hld_snaps_find(&d->snaps, m.name);
        if (np) hld_take_ownership(q, &np->owner, HLD_QUOTA_SNAPSHOTS, 1);
    } else if (m.action == HL_SNAP_REMOVE) {
        hld_clients_obj_gone(&d->ledger, owner, HLD_QUOTA_SNAPSHOTS);
    }
    hld_vm_mark_dirty(d->vm); /* path gains change: re-rank */
    return hld_reply_ok(q);
}

int hld_op_snapshots(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    static hl_snapshot_info_t info[HL_MAX_SNAPSHOTS]; /* main thread only */
    uint32_t n = hld_snaps_list(&q->c->d->snaps, info, HL_MAX_SNAPSHOTS);
    hld_list_t l;
    hld_list_begin(&l, q);
    for (uint32_t i = 0; i < n; i++) {
        size_t before = q->w.len;
        hl_put_snapshot_info(&q->w, &info[i]);
        if (hld_list_entry_done(&l, before)) break;
    }
    return hld_list_end(&l);
}

int hld_op_snapshot_detail(hld_req_t *q) {
    hl_name_t m;
    hl_get_name(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const hld_snap_t *p = hld_snaps_find(&q->c->d->snaps, m.name);
    if (!p) return hld_fail_unknown(q, HELIOD_EINVAL, "snapshot", m.name);
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_list_t l;
    hld_list_begin(&l, q);
    for (uint32_t i = 0; i < p->nset; i++) {
        const hld_snap_set_t *e = &p->set[i];
        hl_snapshot_setting_t s = {
            .target = e->target, .fx_index = e->fx_index, .param = e->param, .value = e->value};
        memcpy(s.bus, e->bus_name, sizeof s.bus);
        size_t before = q->w.len;
        hl_put_snapshot_setting(&q->w, &s);
        if (hld_list_entry_done(&l, before)) break;
    }
    return hld_list_end(&l);
}

/* A cue sheet's snapshot, as the client that loads it (0: the daemon, whose
 * sheets --cues and CUES_LOAD, a control client's, are): the same checks as
 * SNAPSHOT, all made before anything of the sheet changes. */
int hld_snapshot_sheet(void *user, uint32_t client, const hl_snapshot_t *m, int check, char *msg,
                       size_t cap) {
    hld_daemon_t *d = user;
    hld_conn_t *c = client ? hld_conn_find(&d->net, client) : NULL;
    if (client && !c) {
        snprintf(msg, cap, "client %u that loaded it is gone", (unsigned)client);
        return HELIOD_ECANCELED;
    }
    hld_snap_t *p = hld_snaps_find(&d->snaps, m->name);
    if (check) {
        if (p && c && !hld_conn_may_change(c, p->owner)) {
            snprintf(msg, cap, "it belongs to client %u", (unsigned)p->owner);
            return HELIOD_EPERM;
        }
        if (m->action == HL_SNAP_DEFINE && !p) {
            if (d->snaps.n >= HL_MAX_SNAPSHOTS) {
                snprintf(msg, cap, "already 64 snapshots defined");
                return HELIOD_ENOMEM;
            }
            int rc = c && c->cl ? hld_client_check_obj(c->cl, HLD_QUOTA_SNAPSHOTS, msg, cap) : 0;
            if (rc < 0) return rc;
        }
        if (m->action == HL_SNAP_SET) {
            hld_buses_t *b = &d->buses;
            const hld_bus_t *bus = hld_bus_at(b, hld_bus_index(b, m->bus));
            if (!bus) {
                snprintf(msg, cap, "no bus named %s", m->bus);
                return HELIOD_ENOBUS;
            }
            if (c && !hld_conn_may_change(c, bus->owner)) {
                snprintf(msg, cap, "bus %s is not this client's to change", m->bus);
                return HELIOD_EPERM;
            }
            if (m->target == HL_SNAPT_FX) return hld_snaps_check_set(&d->snaps, m, msg, cap);
        }
        return 0;
    }
    int created = m->action == HL_SNAP_DEFINE && !p;
    int rc = hld_snaps_request(&d->snaps, m, client, msg, cap);
    if (rc == 0 && created && client) hld_clients_obj_add(&d->ledger, client, HLD_QUOTA_SNAPSHOTS);
    return rc;
}
