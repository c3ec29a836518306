/*
 * ns.c - name namespaces and the permission rule (ns.h).
 */
#include "ns.h"

#include <stdio.h>

#include "daemon.h"
#include "hld_limits.h"

int hld_conn_may_change(const hld_conn_t *c, uint32_t owner) {
    if (owner == HLD_OWNER_GONE) return 0; /* orphaned (owners.c): nobody's to change */
    if (c->control || owner == c->id) return 1;
    if (!owner) return 0;
    hld_client_t *ocl = hld_clients_get(&c->d->ledger, owner);
    hld_proc_t *op = ocl ? ocl->proc : NULL;
    if (op && c->cl && op == c->cl->proc) return 1; /* another connection of its process */
    /* another live process's; or a gone control client's (the house mix,
     * the daemon's now): a plain client's objects never outlive its
     * process (owners.c), so nothing is adoptable */
    return 0;
}

int hld_ns_rank(const void *ctx, uint32_t owner) {
    const hld_conn_t *c = ctx;
    if (owner == HLD_OWNER_GONE) return 0; /* orphaned: no name finds it */
    if (owner == c->id) return 3;
    if (!owner) return 2;
    hld_client_t *ocl = hld_clients_get(&c->d->ledger, owner);
    hld_proc_t *op = ocl ? ocl->proc : NULL;
    if (op && c->cl && op == c->cl->proc) return 3; /* its process's namespace */
    hld_conn_t *o = hld_conn_find(&c->d->net, owner);
    if (o && o->control) return 2; /* the operator's objects are shared */
    int live = o != NULL;
    for (hld_conn_t *x = c->d->net.conns; x && !live && op && op->pid; x = x->next)
        live = x->cl && x->cl->proc == op;
    if (!live) return 2;       /* its process has gone (a control client's, a detached emitter's) */
    return c->control ? 1 : 0; /* another live process's: a control client's last resort */
}

int hld_may_change(hld_req_t *q, uint32_t owner, const char *what, const char *name) {
    hld_conn_t *c = q->c;
    if (hld_conn_may_change(c, owner)) return 1;
    hld_conn_t *o = hld_conn_find(&c->d->net, owner);
    char msg[HL_MAX_MSG + 1];
    c->d->n.denied++;
    if (!owner)
        snprintf(msg, sizeof msg,
                 "%s %s belongs to the daemon (defaults or config): only a control client may "
                 "change it",
                 what, name);
    else
        snprintf(msg, sizeof msg,
                 "%s %s belongs to client %u (%s): only it or a control client may change it", what,
                 name, owner, o ? o->name : "its process");
    hld_fail(q, HELIOD_EPERM, msg);
    return 0;
}

void hld_take_ownership(hld_req_t *q, uint32_t *owner, int kind, int created) {
    hld_conn_t *c = q->c;
    if (created)
        *owner = 0;
    else if (*owner == c->id || c->control)
        return;
    if (*owner) hld_clients_obj_gone(&c->d->ledger, *owner, kind);
    *owner = c->id;
    hld_clients_obj_add(&c->d->ledger, c->id, kind);
}
