/*
 * clients.c - the per-client ledger (see clients.h): a small hash of
 * records by client id, each pointing at its process's record (by peer
 * pid), counters charged and discharged by the voice manager and the
 * loader, and the quota checks of admission, LOAD and object creation.
 */
#include "clients.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl_proto.h"

#define MIB (1024.0 * 1024.0)

static unsigned bucket_of(uint32_t id) {
    return (id * 2654435761u) >> 24 & (HLD_CLIENT_BUCKETS - 1);
}

uint64_t hld_quota_limit(const hld_quota_t *q, int k) {
    switch (k) {
    case HLD_QUOTA_VOICES: return q->voices;
    case HLD_QUOTA_DETACHED: return q->detached;
    case HLD_QUOTA_STREAMS: return q->streams;
    case HLD_QUOTA_LOADS: return q->loads;
    case HLD_QUOTA_BYTES: return q->bytes;
    case HLD_QUOTA_SCHED: return q->scheduled;
    case HLD_QUOTA_CUES: return q->cues;
    case HLD_QUOTA_CATEGORIES: return q->categories;
    case HLD_QUOTA_EMITTERS: return q->emitters;
    case HLD_QUOTA_BUSES: return q->buses;
    case HLD_QUOTA_RZONES: return q->rzones;
    case HLD_QUOTA_PARAMS: return q->params;
    case HLD_QUOTA_SNAPSHOTS: return q->snapshots;
    default: return 0;
    }
}

void hld_clients_init(hld_clients_t *t, const hld_quota_t *quota) {
    memset(t, 0, sizeof *t);
    t->quota = *quota;
}

void hld_clients_close(hld_clients_t *t) {
    for (unsigned b = 0; b < HLD_CLIENT_BUCKETS; b++) {
        hld_client_t *c = t->buckets[b];
        while (c) {
            hld_client_t *next = c->next;
            free(c);
            c = next;
        }
        t->buckets[b] = NULL;
    }
    while (t->procs) {
        hld_proc_t *p = t->procs;
        t->procs = p->next;
        free(p->sched);
        free(p);
    }
    t->count = t->nprocs = 0;
}

hld_client_t *hld_clients_get(hld_clients_t *t, uint32_t id) {
    for (hld_client_t *c = t->buckets[bucket_of(id)]; c; c = c->next)
        if (c->id == id) return c;
    return NULL;
}

/* The record of process pid (a new one for pid 0), one more client on it. */
static hld_proc_t *proc_get(hld_clients_t *t, uint32_t pid) {
    hld_proc_t *p = NULL;
    if (pid)
        for (p = t->procs; p && p->pid != pid; p = p->next) {
        }
    if (!p) {
        p = calloc(1, sizeof *p);
        if (!p) return NULL;
        p->pid = pid;
        p->next = t->procs;
        t->procs = p;
        t->nprocs++;
    }
    p->records++;
    return p;
}

static void proc_put(hld_clients_t *t, hld_proc_t *p) {
    if (--p->records) return;
    hld_proc_t **pp = &t->procs;
    while (*pp && *pp != p)
        pp = &(*pp)->next;
    if (*pp) *pp = p->next;
    t->nprocs--;
    free(p->sched); /* what it scheduled and did not cancel stays in the mixer, uncharged */
    free(p);
}

hld_client_t *hld_clients_open(hld_clients_t *t, uint32_t id, uint32_t pid) {
    hld_client_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->proc = proc_get(t, pid);
    if (!c->proc) {
        free(c);
        return NULL;
    }
    c->table = t;
    c->id = id;
    c->connected = 1;
    snprintf(c->name, sizeof c->name, "client-%u", id);
    unsigned b = bucket_of(id);
    c->next = t->buckets[b];
    t->buckets[b] = c;
    t->count++;
    return c;
}

int hld_clients_rehome(hld_client_t *c, uint32_t pid) {
    hld_proc_t *p = proc_get(c->table, pid);
    if (!p) return HELIOD_ENOMEM;
    proc_put(c->table, c->proc);
    c->proc = p;
    return 0;
}

/* Frees a record nothing is charged to any more. A plain client's objects
 * were moved or reclaimed when it closed (owners.c); a control client's
 * stay, the daemon's now (the house mix), and stop counting against its
 * process. */
static void maybe_free(hld_client_t *c) {
    if (c->connected || c->voices || c->loads || c->sounds ||
        atomic_load_explicit(&c->bytes, memory_order_relaxed))
        return;
    hld_clients_t *t = c->table;
    hld_client_t **pp = &t->buckets[bucket_of(c->id)];
    while (*pp && *pp != c)
        pp = &(*pp)->next;
    if (*pp) *pp = c->next;
    t->count--;
    for (int k = 0; k < HLD_OBJ_KINDS; k++)
        c->proc->objs[k] -= c->objs[k] < c->proc->objs[k] ? c->objs[k] : c->proc->objs[k];
    proc_put(t, c->proc);
    free(c);
}

void hld_clients_disconnect(hld_client_t *c) {
    c->connected = 0;
    maybe_free(c);
}

void hld_client_refused(hld_client_t *c, int kind) {
    if (kind >= 0 && kind < HLD_QUOTA_KINDS) c->table->refused[kind]++;
}

static int refuse(hld_client_t *c, int kind, char *msg, size_t cap, const char *what,
                  uint64_t limit, const char *option) {
    hld_client_refused(c, kind);
    snprintf(msg, cap, "client quota: %s %llu reached (%s; one budget per process)", what,
             (unsigned long long)limit, option);
    return HELIOD_EQUOTA;
}

int hld_client_voices_full(const hld_client_t *c) {
    return c->proc->voices >= c->table->quota.voices;
}

int hld_client_refuse_voices(hld_client_t *c, char *msg, size_t cap) {
    return refuse(c, HLD_QUOTA_VOICES, msg, cap, "voices", c->table->quota.voices,
                  "--client-voices");
}

int hld_client_check_play(hld_client_t *c, int detached, int stream, char *msg, size_t cap) {
    const hld_quota_t *q = &c->table->quota;
    if (detached && c->proc->detached >= q->detached)
        return refuse(c, HLD_QUOTA_DETACHED, msg, cap, "detached voices", q->detached,
                      "--client-detached");
    if (stream && c->proc->streams >= q->streams)
        return refuse(c, HLD_QUOTA_STREAMS, msg, cap, "streamed voices", q->streams,
                      "--client-streams");
    return 0;
}

static void dec(uint32_t *v) {
    if (*v) (*v)--;
}

void hld_clients_charge_voice(hld_clients_t *t, uint32_t id, int detached, int stream, int delta) {
    hld_client_t *c = hld_clients_get(t, id);
    if (!c) return; /* the daemon's own voices (tests) are charged to nobody */
    hld_proc_t *p = c->proc;
    if (delta > 0) {
        c->voices++;
        p->voices++;
        c->detached += detached != 0;
        p->detached += detached != 0;
        c->streams += stream != 0;
        p->streams += stream != 0;
        return;
    }
    if (c->voices) {
        c->voices--;
        dec(&p->voices);
    }
    if (detached && c->detached) {
        c->detached--;
        dec(&p->detached);
    }
    if (stream && c->streams) {
        c->streams--;
        dec(&p->streams);
    }
    maybe_free(c);
}

int hld_client_check_load(hld_client_t *c, char *msg, size_t cap) {
    const hld_quota_t *q = &c->table->quota;
    if (c->proc->loads >= q->loads)
        return refuse(c, HLD_QUOTA_LOADS, msg, cap, "loads in flight", q->loads, "--client-loads");
    return hld_client_check_bytes(c, msg, cap);
}

int hld_client_check_bytes(hld_client_t *c, char *msg, size_t cap) {
    const hld_quota_t *q = &c->table->quota;
    if (atomic_load_explicit(&c->proc->bytes, memory_order_relaxed) >= q->bytes) {
        hld_client_refused(c, HLD_QUOTA_BYTES);
        snprintf(msg, cap,
                 "client quota: sample memory %.0f MiB reached (--client-sample-mb; one budget "
                 "per process)",
                 (double)q->bytes / MIB);
        return HELIOD_EQUOTA;
    }
    return 0;
}

void hld_client_load_started(hld_client_t *c) {
    c->loads++;
    c->proc->loads++;
}

void hld_client_load_ended(hld_client_t *c) {
    if (c->loads) {
        c->loads--;
        dec(&c->proc->loads);
    }
    maybe_free(c);
}

void hld_client_sound_added(hld_client_t *c) {
    c->sounds++;
}

void hld_client_sound_gone(hld_client_t *c) {
    if (c->sounds) c->sounds--;
    maybe_free(c);
}

void hld_client_sched_add(hld_client_t *cl, uint64_t at, uint32_t tag) {
    hld_proc_t *c = cl->proc;
    if (c->n_sched == c->cap_sched) {
        uint32_t cap = c->cap_sched ? 2 * c->cap_sched : 64;
        hld_sched_ent_t *e = realloc(c->sched, cap * sizeof *e);
        if (!e) return; /* uncounted: the mixer's own bound still holds */
        c->sched = e;
        c->cap_sched = cap;
    }
    if (c->n_sched == 0 || at < c->sched_min) c->sched_min = at;
    c->sched[c->n_sched++] = (hld_sched_ent_t){.at = at, .tag = tag};
}

uint32_t hld_client_sched_left(hld_client_t *cl, uint64_t now_frame) {
    hld_proc_t *c = cl->proc;
    if (c->n_sched && now_frame >= c->sched_min) { /* once per due frame passed, not per call */
        uint64_t min = UINT64_MAX;
        for (uint32_t i = 0; i < c->n_sched;) {
            if (c->sched[i].at <= now_frame) {
                c->sched[i] = c->sched[--c->n_sched];
                continue;
            }
            if (c->sched[i].at < min) min = c->sched[i].at;
            i++;
        }
        c->sched_min = min;
    }
    uint32_t q = cl->table->quota.scheduled;
    return c->n_sched < q ? q - c->n_sched : 0;
}

void hld_client_sched_drop(hld_client_t *cl, uint32_t tag) {
    hld_proc_t *c = cl->proc;
    for (uint32_t i = 0; i < c->n_sched;)
        if (c->sched[i].tag == tag)
            c->sched[i] = c->sched[--c->n_sched];
        else
            i++;
    c->sched_min = 0; /* recomputed by the next hld_client_sched_left */
}

int hld_client_refuse_sched(hld_client_t *c, char *msg, size_t cap) {
    hld_client_refused(c, HLD_QUOTA_SCHED);
    snprintf(msg, cap,
             "client quota: %u scheduled commands pending (--client-scheduled); retry when some "
             "are due",
             c->table->quota.scheduled);
    return HELIOD_EBUSY;
}

int hld_client_reserve_bytes(hld_client_t *c, uint64_t bytes) {
    uint64_t max = c->table->quota.bytes;
    _Atomic uint64_t *pb = &c->proc->bytes;
    uint64_t before = atomic_fetch_add_explicit(pb, bytes, memory_order_relaxed);
    if (before + bytes > max || before + bytes < before) {
        atomic_fetch_sub_explicit(pb, bytes, memory_order_relaxed);
        return -1;
    }
    atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_relaxed);
    return 0;
}

void hld_client_unreserve_bytes(hld_client_t *c, uint64_t bytes) {
    atomic_fetch_sub_explicit(&c->bytes, bytes, memory_order_relaxed);
    atomic_fetch_sub_explicit(&c->proc->bytes, bytes, memory_order_relaxed);
}

static const char *const obj_what[HLD_OBJ_KINDS] = {
    "cues", "categories", "emitters", "buses", "reverb zones", "parameters", "snapshots"};
static const char *const obj_option[HLD_OBJ_KINDS] = {
    "--client-cues",         "--client-categories", "--client-emitters",           "--client-buses",
    "--client-reverb-zones", "--client-params",     "a quarter of the daemon's 64"};

int hld_client_check_obj(hld_client_t *c, int kind, char *msg, size_t cap) {
    int k = kind - HLD_QUOTA_OBJ0;
    if (k < 0 || k >= HLD_OBJ_KINDS) return 0;
    uint64_t limit = hld_quota_limit(&c->table->quota, kind);
    if (c->proc->objs[k] < limit) return 0;
    return refuse(c, kind, msg, cap, obj_what[k], limit, obj_option[k]);
}

void hld_clients_obj_add(hld_clients_t *t, uint32_t id, int kind) {
    int k = kind - HLD_QUOTA_OBJ0;
    hld_client_t *c = id ? hld_clients_get(t, id) : NULL;
    if (!c || k < 0 || k >= HLD_OBJ_KINDS) return;
    c->objs[k]++;
    c->proc->objs[k]++;
}

void hld_clients_obj_gone(hld_clients_t *t, uint32_t id, int kind) {
    int k = kind - HLD_QUOTA_OBJ0;
    hld_client_t *c = id ? hld_clients_get(t, id) : NULL;
    if (!c || k < 0 || k >= HLD_OBJ_KINDS || !c->objs[k]) return;
    c->objs[k]--;
    dec(&c->proc->objs[k]);
}

uint64_t hld_client_who(const hld_client_t *c) {
    if (!c) return 0;
    if (c->proc && c->proc->pid) return c->proc->pid;
    return 1ull << 32 | c->id;
}

uint64_t hld_clients_who(hld_clients_t *t, uint32_t id) {
    if (!id) return 0;
    hld_client_t *c = hld_clients_get(t, id);
    return c ? hld_client_who(c) : 1ull << 32 | id;
}

void hld_clients_obj_move(hld_client_t *c, hld_client_t *to) {
    for (int k = 0; k < HLD_OBJ_KINDS; k++) {
        uint32_t n = c->objs[k];
        c->objs[k] = 0;
        if (to && to->proc == c->proc) {
            to->objs[k] += n;
            continue;
        }
        c->proc->objs[k] -= n < c->proc->objs[k] ? n : c->proc->objs[k];
        if (to) {
            to->objs[k] += n;
            to->proc->objs[k] += n;
        }
    }
}

void hld_clients_obj_drop(hld_client_t *c) {
    hld_clients_obj_move(c, NULL);
}

void hld_client_release_bytes(hld_client_t *c, uint64_t bytes) {
    hld_client_unreserve_bytes(c, bytes);
    maybe_free(c);
}
