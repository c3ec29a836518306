/*
 * ns.h - the names clients give objects, and who may change them: the
 * namespace rank a name lookup sorts by (hld_ns_rank_fn of cues.h, banks.h,
 * world_zones.h, ...) and the permission rule of every named object a
 * client creates. Lookups over the connections and the ledger only: below
 * the request handlers (dispatch_int.h includes it) and the world zones.
 * Main thread only.
 */
#ifndef HLD_NS_H
#define HLD_NS_H

#include <stdint.h>

#include "conn.h"
#include "replies.h"

/* The permission rule of every named object a client creates (cues,
 * categories, buses with their effects, sends and ducking, reverb zones,
 * banks, world zones): may q's client change or remove one owned by client
 * `owner` (0: the daemon's: the default buses, the master, the config file,
 * the --cues sheet)? Yes for a control client and for the owner and the
 * other connections of its process; never for an orphan (HLD_OWNER_GONE:
 * its process has gone, owners.c reclaims it), and a gone control client's
 * object is the daemon's (control only): nothing is adoptable. Otherwise
 * the EPERM reply naming the owner is queued (counted in `denied`) and 0 is
 * returned; `what` and `name` name the object. */
int hld_may_change(hld_req_t *q, uint32_t owner, const char *what, const char *name);
/* The same rule without a reply: 1 if c may change (or use) it. */
int hld_conn_may_change(const hld_conn_t *c, uint32_t owner);
/* Name namespaces (hld_ns_rank_fn, ctx: the hld_conn_t): how connection ctx
 * sees an object owned by owner: 3 its process's own, 2 shared (the
 * daemon's, a control client's, a gone control client's or a detached
 * emitter's), 1 another live process's for a control client, 0 invisible
 * (an orphan, HLD_OWNER_GONE, to everyone). */
int hld_ns_rank(const void *ctx, uint32_t owner);
/* After q's client created (created = 1) or changed an object: a created
 * one is its own; a changed one of another connection of its process
 * becomes its own (a control client changing another's object does not
 * take it over). The new owner's
 * process is charged (kind HLD_QUOTA_*), the previous owner's discharged. */
void hld_take_ownership(hld_req_t *q, uint32_t *owner, int kind, int created);

#endif /* HLD_NS_H */
