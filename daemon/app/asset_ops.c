/*
 * asset_ops.c - the asset requests: BANK (load, unload), BANKS, ZONE (add,
 * remove), ZONES; BANK events to subscribers. The banks live in banks.c,
 * the world-zone scheduler in world_zones.c and zone_sched.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch_int.h"
#include "world_zones.h"

/* banks.c's change callback: a BANK event to subscribers, then the zone a
 * bank belongs to (which may unload it: the event goes first). */
void hld_assets_bank_changed(void *user, const hld_bank_t *b) {
    hld_daemon_t *d = user;
    static hl_event_t ev; /* large (the meter body): not on the stack */
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_BANK;
    hld_bank_info(b, &ev.bank);
    static uint8_t buf[HL_MAX_PATH + HL_MAX_MSG + 256];
    int n = hld_event_frame(&ev, buf, sizeof buf);
    if (n > 0) /* to those who see the bank (BANKS' rule) */
        for (hld_conn_t *c = d->net.conns; c; c = c->next)
            if ((c->sub & HL_SUB_BANK) && hld_ns_rank(c, b->client) > 0)
                hld_conn_send(c, buf, (size_t)n);
    if (b->tag) hld_wzones_bank_changed(d->wzones, b);
}

/* sounds.c's reload callback: a RELOAD event to BANK subscribers who may
 * see the sound (its own client's private sound, or a shared one). */
void hld_assets_reloaded(void *user, const hld_sound_t *snd, int status, const char *msg) {
    hld_daemon_t *d = user;
    static hl_event_t ev; /* large (the meter body): not on the stack */
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_RELOAD;
    snprintf(ev.sound, sizeof ev.sound, "%s", snd->name);
    ev.status = status;
    ev.frames = snd->pcm.frames;
    snprintf(ev.message, sizeof ev.message, "%s", msg ? msg : "");
    uint8_t buf[HL_MAX_NAME + HL_MAX_MSG + 64];
    int n = hld_event_frame(&ev, buf, sizeof buf);
    if (n > 0)
        for (hld_conn_t *c = d->net.conns; c; c = c->next)
            if ((c->sub & HL_SUB_BANK) && (snd->ns == 0 || snd->ns == c->id))
                hld_conn_send(c, buf, (size_t)n);
}

/* ---- requests answered after their file work ------------------------------------ */

void hld_later_begin(hld_later_t *l, const hld_req_t *q) {
    l->c = q->c;
    l->h = *q->h;
    l->h.flags &= (uint16_t)~HL_FLAG_AT; /* not schedulable: answered as a plain request */
    hld_conn_ref(q->c);
}

int hld_later_req(hld_later_t *l, hld_req_t *q) {
    if (l->c->closing) return 0;
    memset(q, 0, sizeof *q);
    q->c = l->c;
    q->h = &l->h;
    return 1;
}

void hld_later_end(hld_later_t *l) {
    if (!l->c->closing) hld_conn_flush(l->c);
    hld_conn_unref(l->c);
}

/* A plain client's bank's cue sheet is applied as its loader, by CUE's and
 * CATEGORY's rules (cue_ops.c): names resolve in its namespace (its
 * process's, then the shared ones, never another live process's); the
 * daemon's and a control client's shared entries are not its to change
 * (EPERM naming the entry, the whole sheet unapplied); a name of another
 * live process's only is a new entry of its own; new entries count in its
 * quota, reserved as they are checked and given back if the sheet fails. */
typedef struct {
    hld_conn_t *c;
    uint32_t reserved[2]; /* [cat]: entries charged ahead of the apply */
} sheet_as_t;

static int sheet_rank(const void *ctx, uint32_t owner) {
    return hld_ns_rank(((const sheet_as_t *)ctx)->c, owner);
}

static int sheet_admit(const void *ctx, int cat, const char *name, const uint32_t *old_owner,
                       char *msg, size_t cap) {
    sheet_as_t *x = (sheet_as_t *)(uintptr_t)ctx;
    hld_conn_t *c = x->c;
    const char *what = cat == 2 ? "parameter" : cat ? "category" : "cue";
    if (old_owner) {
        if (hld_conn_may_change(c, *old_owner)) return 0;
        hld_conn_t *o = hld_conn_find(&c->d->net, *old_owner);
        c->d->n.denied++;
        if (!*old_owner)
            snprintf(msg, cap,
                     "%s %s belongs to the daemon (defaults or config): only a control client "
                     "may change it",
                     what, name);
        else
            snprintf(msg, cap,
                     "%s %s belongs to client %u (%s): only it or a control client may change it",
                     what, name, *old_owner, o ? o->name : "its process");
        return HELIOD_EPERM;
    }
    int kind = cat == 2 ? HLD_QUOTA_PARAMS : cat ? HLD_QUOTA_CATEGORIES : HLD_QUOTA_CUES;
    int rc = c->cl ? hld_client_check_obj(c->cl, kind, msg, cap) : 0;
    if (rc) return rc;
    hld_clients_obj_add(&c->d->ledger, c->id, kind); /* reserved: the next one counts it */
    x->reserved[cat ? 1 : 0]++;
    return 0;
}

static void sheet_own(const void *ctx, int cat, uint32_t *owner, int created) {
    const sheet_as_t *x = ctx;
    hld_conn_t *c = x->c;
    int kind = cat == 2 ? HLD_QUOTA_PARAMS : cat ? HLD_QUOTA_CATEGORIES : HLD_QUOTA_CUES;
    if (created) { /* charged when admitted */
        *owner = c->id;
        return;
    }
    if (*owner == c->id) return;
    if (*owner) hld_clients_obj_gone(&c->d->ledger, *owner, kind); /* another of its process */
    *owner = c->id;
    hld_clients_obj_add(&c->d->ledger, c->id, kind);
}

int hld_assets_bank_sheet(void *user, uint32_t client, const char *path, const char *text,
                          size_t len, char *err, size_t cap) {
    hld_daemon_t *d = user;
    hld_conn_t *c = hld_conn_find(&d->net, client);
    if (!c) { /* no namespace to apply it in: never the daemon's, nor anyone's */
        snprintf(err, cap, "%s: client %u that loaded the bank is gone", path, client);
        return HELIOD_ECANCELED;
    }
    if (c->control) /* banks.c sends the operator's banks to hld_cues_load_mem */
        return hld_cues_load_mem(&d->cues, path, text, len, NULL, NULL, err, cap);
    sheet_as_t x = {.c = c};
    hld_cues_as_t as = {
        .rank = sheet_rank, .ctx = &x, .admit = sheet_admit, .own = sheet_own, .client = c->id};
    int rc = hld_cues_load_mem_as(&d->cues, &as, path, text, len, NULL, NULL, err, cap);
    if (rc != 0)
        for (int k = 0; k < 2; k++)
            for (uint32_t i = 0; i < x.reserved[k]; i++)
                hld_clients_obj_gone(&d->ledger, c->id, k ? HLD_QUOTA_CATEGORIES : HLD_QUOTA_CUES);
    return rc;
}

/* BANK load: the manifest is read on the worker pool, then its sounds start. */
static void bank_read(void *user, int status, const char *msg, hld_manifest_t *m) {
    hld_later_t *l = user;
    hld_req_t q;
    if (hld_later_req(l, &q)) {
        hld_daemon_t *d = l->c->d;
        char why[HL_MAX_MSG + 1];
        hld_bank_t *b = NULL;
        if (status == 0) {
            /* charged to the client that asked: its id travels with the
             * bank to where each queued sound starts (banks.c) */
            /* a plain client's bank: named in its process's namespace, its
             * sounds private to it; a control client's: shared */
            status =
                hld_banks_start(&d->banks, m, l->c->id, !l->c->control, hld_client_who(l->c->cl),
                                hld_ns_rank, l->c, &b, why, sizeof why);
            if (status == 0) b->control = l->c->control; /* its cue sheet: the daemon's names */
            msg = why;
        }
        if (status != 0) {
            hld_fail(&q, status, msg);
        } else if (!(l->h.flags & HL_FLAG_NOREPLY)) {
            hl_bank_info_t info;
            hld_bank_info(b, &info);
            hld_reply_begin(&q);
            hl_put_bank_info(&q.w, &info);
            hld_reply_end(&q);
        }
    }
    hld_later_end(l);
    free(l);
}

int hld_op_bank(hld_req_t *q) {
    hl_bank_t m;
    hl_get_bank(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    if (!m.arg[0])
        return hld_fail(q, HELIOD_EINVAL, "a manifest path (load) or bank name (unload)");
    if (m.action == HL_BANK_UNLOAD) {
        /* the name resolves in the requester's namespace (another live
         * process's bank is not there: ENOSOUND); its loader's process's,
         * or a control client's; a world zone's bank is the zone
         * scheduler's (ZONE remove) */
        hld_bank_t *k = hld_banks_find_in(&d->banks, m.arg, hld_ns_rank, q->c, NULL);
        if (!k) {
            snprintf(msg, sizeof msg, "no bank named %.64s", m.arg);
            return hld_fail(q, HELIOD_ENOSOUND, msg);
        }
        /* one already going (the find prefers a live one of the name) is no
         * longer anyone's to unload: ENOSOUND, before the owner is asked
         * (a gone process's bank unloads while its sounds finish loading
         * or their voices let go: EPERM to another process was wrong) */
        if (k->state == HLD_BANK_UNLOADING) {
            snprintf(msg, sizeof msg, "no bank named %.64s (already unloading)", m.arg);
            return hld_fail(q, HELIOD_ENOSOUND, msg);
        }
        if (!hld_may_change(q, k->tag ? 0 : k->client, "bank", m.arg)) return 0;
        int rc = hld_banks_unload(&d->banks, k, msg, sizeof msg);
        if (rc != 0) return hld_fail(q, rc, msg);
        return hld_reply_ok(q);
    }
    hld_later_t *l = malloc(sizeof *l);
    if (!l) return hld_fail(q, HELIOD_ENOMEM, NULL);
    int rc = hld_banks_read(&d->banks, m.arg, 0, d->engine.rate, hld_client_who(q->c->cl),
                            bank_read, l, msg, sizeof msg);
    if (rc != 0) {
        free(l);
        return hld_fail(q, rc, msg);
    }
    hld_later_begin(l, q);
    return 0;
}

int hld_op_banks(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_list_t l;
    hld_list_begin(&l, q);
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        const hld_bank_t *b = q->c->d->banks.bank[i];
        if (!b || hld_ns_rank(q->c, b->client) <= 0) continue; /* its own and the shared */
        hl_bank_info_t info;
        hld_bank_info(b, &info);
        size_t before = q->w.len;
        hl_put_bank_info(&q->w, &info);
        if (hld_list_entry_done(&l, before)) break;
    }
    return hld_list_end(&l);
}

/* ZONE add: the manifest and its sounds' headers are read on the worker
 * pool (the zone's size estimate), then the zone joins the scheduler. */
typedef struct {
    hld_later_t l;
    hl_zone_t m;
} zone_add_t;

static void zone_read(void *user, int status, const char *msg, hld_manifest_t *man) {
    zone_add_t *z = user;
    hld_req_t q;
    if (hld_later_req(&z->l, &q)) {
        char why[HL_MAX_MSG + 1];
        if (status == 0) {
            /* its adder's, named in its process's namespace */
            status = hld_wzones_add(z->l.c->d->wzones, &z->m, z->l.c->id, hld_manifest_bytes(man),
                                    hld_ns_rank, z->l.c, why, sizeof why);
            msg = why;
        }
        if (status != 0)
            hld_fail(&q, status, msg);
        else
            hld_reply_ok(&q);
    }
    hld_later_end(&z->l);
    free(z);
}

int hld_op_zone(hld_req_t *q) {
    hl_zone_t m;
    hl_get_zone(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_zone(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    char msg[HL_MAX_MSG + 1];
    hld_daemon_t *d = q->c->d;
    /* zone names: the requester's namespace (its process's, then the
     * shared ones; another live process's zone is not there) */
    int rank = 0;
    int slot = hld_wzones_find(d->wzones, m.name, hld_ns_rank, q->c, &rank);
    if (m.action != HL_ZONE_ADD) { /* its adder's, or a control client's */
        if (slot < 0) {
            snprintf(msg, sizeof msg, "no zone named %s", m.name);
            return hld_fail(q, HELIOD_EINVAL, msg);
        }
        if (!hld_may_change(q, d->wzones->owner[slot], "zone", m.name)) return 0;
        hld_wzones_remove_at(d->wzones, slot);
        return hld_reply_ok(q);
    }
    if (slot >= 0 && rank >= 2) { /* at once; again when the bank is read */
        snprintf(msg, sizeof msg, "a zone named %s exists (zone remove %s first)", m.name, m.name);
        return hld_fail(q, HELIOD_EEXIST, msg);
    }
    zone_add_t *z = malloc(sizeof *z);
    if (!z) return hld_fail(q, HELIOD_ENOMEM, NULL);
    z->m = m;
    int rc = hld_banks_read(&d->banks, m.bank, 1, d->engine.rate, hld_client_who(q->c->cl),
                            zone_read, z, msg, sizeof msg);
    if (rc != 0) {
        free(z);
        return hld_fail(q, rc, msg);
    }
    hld_later_begin(&z->l, q);
    return 0;
}

int hld_op_zones(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    static hl_zone_info_t info[HLD_ZS_MAX_ZONES]; /* 1 MB of paths: not on the stack */
    uint32_t n = hld_wzones_list(q->c->d->wzones, info, HLD_ZS_MAX_ZONES, hld_ns_rank, q->c);
    hld_list_t l;
    hld_list_begin(&l, q);
    for (uint32_t i = 0; i < n; i++) {
        size_t before = q->w.len;
        hl_put_zone_info(&q->w, &info[i]);
        if (hld_list_entry_done(&l, before)) break;
    }
    return hld_list_end(&l);
}
