/*
 * emitter_ops.c - the EMITTER request: create, move or destroy a named
 * emitter (a moving object that voices follow; the voices and the emitter
 * table belong to the voice manager, vm.c). One SET moves every voice on the
 * emitter. An emitter belongs to the connection that created it and is
 * destroyed when it closes (its voices fade out), unless created detached
 * (heliodctl does: the next heliodctl can play on it). Names are per
 * process: a client sees its own process's emitters and the shared ones (a
 * control client's, a gone process's) and plays on those; only its creator
 * or a control client moves or destroys one.
 */
#include <stdio.h>

#include "clients.h"
#include "dispatch_int.h"

int hld_op_emitter(hld_req_t *q) {
    hl_emitter_t m;
    hl_get_emitter(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_emitter(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    uint64_t now = hld_now_ns();
    if (m.action == HL_EMITTER_CREATE) {
        uint32_t owner = (m.mask & HL_EM_DETACHED) ? 0 : q->c->id;
        /* its own process's or a shared one of that name; another live
         * process's does not block it (names are per process) */
        hld_emitter_t *em = hld_vm_emitter_find_in(d->vm, m.name, hld_ns_rank, q->c);
        if (em && hld_ns_rank(q->c, em->creator) > 1) {
            snprintf(msg, sizeof msg, "an emitter named %s already exists (client %u's)", m.name,
                     em->creator);
            return hld_fail(q, HELIOD_EEXIST, msg);
        }
        int rc = q->c->cl ? hld_client_check_obj(q->c->cl, HLD_QUOTA_EMITTERS, msg, sizeof msg) : 0;
        if (rc < 0) return hld_fail(q, rc, msg);
        rc = hld_vm_emitter_create(d->vm, m.name, owner, m.pos, (m.mask & HL_EM_VEL) ? m.vel : NULL,
                                   &em);
        if (rc == 0 && em) {
            em->creator = q->c->id;
            hld_clients_obj_add(&d->ledger, q->c->id, HLD_QUOTA_EMITTERS);
        }
        if (rc == HELIOD_EEXIST) {
            snprintf(msg, sizeof msg, "an emitter named %s already exists", m.name);
            return hld_fail(q, rc, msg);
        }
        if (rc < 0) return hld_fail(q, rc, rc == HELIOD_ENOMEM ? "too many emitters" : NULL);
        return hld_reply_ok(q);
    }
    hld_emitter_t *em = hld_vm_emitter_find_in(d->vm, m.name, hld_ns_rank, q->c);
    if (!em) {
        snprintf(msg, sizeof msg, "no emitter named %s", m.name);
        return hld_fail(q, HELIOD_ENOEMITTER, msg);
    }
    if (!hld_conn_may(q->c, em->creator)) {
        d->n.denied++;
        snprintf(msg, sizeof msg,
                 "emitter %s belongs to client %u: only it or a control client may %s it", m.name,
                 em->creator, m.action == HL_EMITTER_SET ? "move" : "destroy");
        return hld_fail(q, HELIOD_EPERM, msg);
    }
    if (m.action == HL_EMITTER_SET) {
        int rc = hld_vm_emitter_set(d->vm, em, m.mask, m.pos, m.vel, hld_ms_to_frames(d, m.ramp_ms),
                                    now);
        if (rc < 0) return hld_mixer_fail(q, rc);
        return hld_reply_ok(q);
    }
    int64_t fade = m.fade_ms < 0 ? -1 : (int64_t)hld_ms_to_frames(d, m.fade_ms);
    uint32_t creator = em->creator;
    int n = hld_vm_emitter_destroy(d->vm, em, fade, now);
    if (n < 0) return hld_mixer_fail(q, n);
    hld_clients_obj_gone(&d->ledger, creator, HLD_QUOTA_EMITTERS);
    return hld_reply_count(q, (uint32_t)n);
}
