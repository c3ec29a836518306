/*
 * owners.c - what a client leaves behind when it goes.
 *
 * Named objects (cues, categories, game parameters, buses with their effects
 * and ducking rules, reverb zones, banks, world zones, mixer snapshots) and
 * the listeners 1..3 a client turned on are owned by the connection that
 * created them, and all the connections of one process (peer pid) share
 * them. When a plain connection closes:
 *
 *   - another plain connection of its process is open: its objects become
 *     that connection's (the process keeps them, its quota too);
 *   - else its process has gone: its objects are reclaimed. Reverb zones,
 *     [music NAME] sections (with their instances and waiting
 *     transitions; the tracks are its voices, swept with them),
 *     snapshots (removed: the mix cuts back), listeners (turned off),
 *     banks and world zones go at once (a bank's sounds as their voices let
 *     go, banks.c). Cues, categories and buses are orphaned (owner
 *     HLD_OWNER_GONE: no name finds them, nobody may change them) and
 *     released by hld_owners_sweep once no voice refers to them: a detached
 *     voice (the only thing a client asks to outlive it) keeps its cue and
 *     its bus until it ends. Game parameters are orphaned (invisible, the
 *     quota given back; a new definition of the name by another process is
 *     a new parameter) and released by the same sweep once no binding of a
 *     cue, bus or snapshot and no scheduled PARAM holds their index
 *     (hld_params_release): their slots serve the next definitions. A bus goes through
 * hld_buses_remove_at, the command ring's path of BUS remove: never while the mixer may route a
 * voice to it.
 *
 * A plain client's banks do not wait for this: their sounds are its
 * connection's own, so they are unloaded when it closes, before this runs
 * (banks.c hld_banks_drop_client); the bank loops below meet them only
 * unloading.
 *
 * Its quota is given back at once (the ledger's counts of that connection).
 * A control client's objects stay: they are the house mix the operator set
 * up with heliodctl, which exits at once; they become the daemon's (only a
 * control client changes them). Emitters follow their own rule (vm.c: a
 * connection's own go when it closes, HL_EM_DETACHED ones outlive it), and
 * so do sounds (sounds.c: a private sound goes with its connection, or with
 * the last voice playing it; a shared one stays until unloaded).
 */
#include <stdio.h>
#include <string.h>

#include "clients.h"
#include "conn.h"
#include "daemon.h"
#include "world_zones.h"
#include "dispatch_int.h"
#include "hld_limits.h"

/* Another open plain connection of c's process, or NULL. */
static hld_conn_t *sibling(const hld_conn_t *c) {
    if (!c->cl || !c->cl->proc->pid) return NULL; /* unknown pid: a process of its own */
    for (hld_conn_t *x = c->d->net.conns; x; x = x->next)
        if (x != c && !x->closing && !x->control && x->cl && x->cl->proc == c->cl->proc) return x;
    return NULL;
}

/* Every object of owner `from` becomes `to`'s. */
static void reown(hld_daemon_t *d, uint32_t from, uint32_t to) {
    hld_cues_reown(&d->cues, from, to);
    for (uint32_t i = 0; i < d->params.n; i++)
        if (d->params.p[i]->owner == from) d->params.p[i]->owner = to;
    for (int i = 0; i < HL_MAX_BUSES; i++)
        if (d->buses.bus[i].name[0] && d->buses.bus[i].owner == from) d->buses.bus[i].owner = to;
    for (uint32_t i = 0; i < d->rzones.n; i++)
        if (d->rzones.zone[i].owner == from) d->rzones.zone[i].owner = to;
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        hld_bank_t *k = d->banks.bank[i];
        if (k && !k->tag && k->client == from) k->client = to;
    }
    for (uint32_t i = 0; i < d->wzones->zs.n; i++)
        if (d->wzones->zs.zone[i].used && d->wzones->owner[i] == from) d->wzones->owner[i] = to;
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++)
        if (d->snaps.s[i].name[0] && d->snaps.s[i].owner == from) d->snaps.s[i].owner = to;
    for (int k = 1; k < HL_MIX_LISTENERS; k++)
        if (d->lis_owner[k] == from) d->lis_owner[k] = to;
}

/* The objects of `owner`, whose process has gone: reverb zones, banks and
 * world zones go now, cues, categories, parameters and buses are orphaned. */
static void reclaim(hld_daemon_t *d, uint32_t owner) {
    char msg[HL_MAX_MSG + 1];
    uint32_t orphans = hld_cues_orphan(&d->cues, owner);
    hld_music_reclaim(d, owner);               /* its [music] sections and their transitions */
    for (uint32_t i = 0; i < d->params.n; i++) /* released by the sweep once unbound */
        if (d->params.p[i]->owner == owner && d->params.p[i]->def.name[0]) {
            d->params.p[i]->owner = HLD_OWNER_GONE;
            orphans++;
        }
    for (uint32_t i = d->rzones.n; i-- > 0;)
        if (d->rzones.zone[i].owner == owner) hld_rzones_drop(&d->rzones, &d->rzones.zone[i]);
    for (int i = 0; i < HL_MAX_BUSES; i++)
        if (d->buses.bus[i].name[0] && d->buses.bus[i].owner == owner) {
            d->buses.bus[i].gone_from = owner; /* its label stays (buses.h hld_bus_label) */
            d->buses.bus[i].owner = HLD_OWNER_GONE;
            orphans++;
        }
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        hld_bank_t *k = d->banks.bank[i];
        if (k && !k->tag && k->client == owner && k->state != HLD_BANK_UNLOADING)
            (void)hld_banks_unload(&d->banks, k, msg, sizeof msg);
    }
    for (uint32_t i = 0; i < d->wzones->zs.n; i++)
        if (d->wzones->zs.zone[i].used && d->wzones->owner[i] == owner) {
            d->wzones->owner[i] = 0;
            hld_wzones_remove_at(d->wzones, (int)i);
        }
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++) /* removed: the mix cuts back at once */
        if (d->snaps.s[i].name[0] && d->snaps.s[i].owner == owner) {
            hl_snapshot_t m = {.action = HL_SNAP_REMOVE};
            memcpy(m.name, d->snaps.s[i].name, sizeof m.name);
            (void)hld_snaps_request(&d->snaps, &m, owner, msg, sizeof msg);
        }
    hl_listener_state_t l;
    for (int k = 1; k < HL_MIX_LISTENERS; k++) /* its listeners go off */
        if (d->lis_owner[k] == owner) {
            if (hl_mixer_get_listener_at(d->engine.mixer, (uint32_t)k, &l))
                (void)hl_mixer_set_listener_at(d->engine.mixer, (uint32_t)k, NULL, hld_now_ns());
            d->lis_owner[k] = 0;
        }
    if (orphans) d->reclaim_pending = 1;
    hld_vm_mark_dirty(d->vm); /* bus paths changed, listeners went off */
}

void hld_owners_conn_closing(hld_conn_t *c) {
    if (c->control || !c->cl) return; /* the house mix stays */
    hld_daemon_t *d = c->d;
    hld_conn_t *s = sibling(c);
    if (s) {
        reown(d, c->id, s->id);
        hld_clients_obj_move(c->cl, s->cl);
        return;
    }
    reclaim(d, c->id);
    hld_clients_obj_drop(c->cl);
}

/* What the live voices refer to: cues and categories by index, buses by
 * routing and sends (what BUS remove checks, bus_ops.c). */
typedef struct {
    uint8_t cue[HLD_MAX_CUES], cat[HLD_MAX_CATEGORIES];
    hld_bus_usage_t use;
} refs_t;

static int ref_entry(void *user, uint64_t voice, const hld_lvoice_t *lv) {
    (void)voice;
    refs_t *r = user;
    if (lv->cue) r->cue[lv->cue->index] = 1;
    if (lv->cat) r->cat[lv->cat->index] = 1;
    if (lv->p.bus < HL_MAX_BUSES) r->use.voices[lv->p.bus]++;
    for (int i = 0; i < HL_MAX_SENDS; i++)
        if (lv->p.send_gain[i] > 0.0f && lv->p.send_bus[i] < HL_MAX_BUSES)
            r->use.sends[lv->p.send_bus[i]]++;
    return 0;
}

/* Drops the bus and snapshot bindings of gone parameters whose bus or
 * snapshot has gone too (nothing else can remove them: their process is
 * gone), so that hld_params_release may free the parameters. */
static void drop_dead_binds(hld_daemon_t *d) {
    hld_params_t *P = &d->params;
    for (uint32_t k = 0; k < P->nbus;) {
        const hld_busbind_t *b = &P->bus[k];
        int alive = 1;
        if (b->bus == HLD_BIND_SNAPSHOT)
            alive = hld_snaps_find(&d->snaps, b->bus_name) != NULL;
        else if (b->bus != HLD_BUS_MASTER)
            alive = b->bus >= 0 && b->bus < HL_MAX_BUSES &&
                    strcmp(d->buses.bus[b->bus].name, b->bus_name) == 0;
        if (!alive && b->param < P->n && P->p[b->param]->owner == HLD_OWNER_GONE) {
            memmove(&P->bus[k], &P->bus[k + 1], (P->nbus - k - 1u) * sizeof P->bus[0]);
            P->nbus--;
        } else {
            k++;
        }
    }
}

void hld_owners_sweep(hld_daemon_t *d, uint64_t now_ns) {
    if (!d->reclaim_pending || now_ns < d->reclaim_next_ns || !d->vm) return;
    d->reclaim_next_ns = now_ns + HLD_RECLAIM_MS * HLD_NS_PER_MS;
    static refs_t r; /* 8 KiB: main thread only */
    memset(&r, 0, sizeof r);
    hld_vm_foreach(d->vm, ref_entry, &r);
    uint32_t left = hld_cues_release(&d->cues, r.cue, r.cat);
    char msg[HL_MAX_MSG + 1];
    /* a bus of someone else under an orphan (a control client may put one
     * there) moves up to the orphan's parent: it would hold it for good */
    hld_bus_t *bus = d->buses.bus;
    for (int i = 0; i < HL_MAX_BUSES; i++)
        if (bus[i].name[0] && bus[i].owner != HLD_OWNER_GONE && bus[i].parent >= 0 &&
            bus[bus[i].parent].owner == HLD_OWNER_GONE) {
            int up = bus[i].parent;
            while (up >= 0 && bus[up].owner == HLD_OWNER_GONE)
                up = bus[up].parent;
            (void)hld_buses_reparent_at(&d->buses, i, up); /* EBUSY: the next sweep */
        }
    /* children before parents: a pass removes what has no child left */
    for (int progress = 1; progress;) {
        progress = 0;
        for (int i = 0; i < HL_MAX_BUSES; i++)
            if (bus[i].name[0] && bus[i].owner == HLD_OWNER_GONE &&
                hld_buses_remove_at(&d->buses, i, &r.use, msg, sizeof msg) == 0)
                progress = 1;
    }
    for (int i = 0; i < HL_MAX_BUSES; i++)
        left += bus[i].name[0] && bus[i].owner == HLD_OWNER_GONE;
    /* parameters last: the cues and buses just released bind them no more */
    drop_dead_binds(d);
    left += hld_params_release(&d->params, &d->cues);
    d->reclaim_pending = left != 0;
}
