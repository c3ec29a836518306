/*
 * clients.c - the per-client ledger (see clients.h): a small hash of
 * records by client id, counters charged and discharged by the voice
 * manager and the loader, and the quota checks of admission and LOAD.
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

void hld_clients_init(hld_clients_t *t, const hld_quota_t *quota) {
    memset(t, 0, sizeof *t);
    t->quota = *quota;
}

void hld_clients_close(hld_clients_t *t) {
    for (unsigned b = 0; b < HLD_CLIENT_BUCKETS; b++) {
        hld_client_t *c = t->buckets[b];
        while (c) {
            hld_client_t *next = c->next;
            free(c->sched);
            free(c);
            c = next;
        }
        t->buckets[b] = NULL;
    }
    t->count = 0;
}

hld_client_t *hld_clients_get(hld_clients_t *t, uint32_t id) {
    for (hld_client_t *c = t->buckets[bucket_of(id)]; c; c = c->next)
        if (c->id == id) return c;
    return NULL;
}

hld_client_t *hld_clients_open(hld_clients_t *t, uint32_t id) {
    hld_client_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
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

/* Frees a record nothing is charged to any more. */
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
    free(c->sched); /* what it scheduled and did not cancel stays in the mixer, uncharged */
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
    snprintf(msg, cap, "client quota: %s %llu reached (%s)", what, (unsigned long long)limit,
             option);
    return HELIOD_EQUOTA;
}

int hld_client_voices_full(const hld_client_t *c) {
    return c->voices >= c->table->quota.voices;
}

int hld_client_refuse_voices(hld_client_t *c, char *msg, size_t cap) {
    return refuse(c, HLD_QUOTA_VOICES, msg, cap, "voices", c->table->quota.voices,
                  "--client-voices");
}

int hld_client_check_play(hld_client_t *c, int detached, int stream, char *msg, size_t cap) {
    const hld_quota_t *q = &c->table->quota;
    if (detached && c->detached >= q->detached)
        return refuse(c, HLD_QUOTA_DETACHED, msg, cap, "detached voices", q->detached,
                      "--client-detached");
    if (stream && c->streams >= q->streams)
        return refuse(c, HLD_QUOTA_STREAMS, msg, cap, "streamed voices", q->streams,
                      "--client-streams");
    return 0;
}

void hld_clients_charge_voice(hld_clients_t *t, uint32_t id, int detached, int stream, int delta) {
    hld_client_t *c = hld_clients_get(t, id);
    if (!c) return; /* the daemon's own voices (tests) are charged to nobody */
    if (delta > 0) {
        c->voices++;
        c->detached += detached != 0;
        c->streams += stream != 0;
        return;
    }
    if (c->voices) c->voices--;
    if (detached && c->detached) c->detached--;
    if (stream && c->streams) c->streams--;
    maybe_free(c);
}

int hld_client_check_load(hld_client_t *c, char *msg, size_t cap) {
    const hld_quota_t *q = &c->table->quota;
    if (c->loads >= q->loads)
        return refuse(c, HLD_QUOTA_LOADS, msg, cap, "loads in flight", q->loads, "--client-loads");
    if (atomic_load_explicit(&c->bytes, memory_order_relaxed) >= q->bytes) {
        hld_client_refused(c, HLD_QUOTA_BYTES);
        snprintf(msg, cap, "client quota: sample memory %.0f MiB reached (--client-sample-mb)",
                 (double)q->bytes / MIB);
        return HELIOD_EQUOTA;
    }
    return 0;
}

void hld_client_load_started(hld_client_t *c) {
    c->loads++;
}

void hld_client_load_ended(hld_client_t *c) {
    if (c->loads) c->loads--;
    maybe_free(c);
}

void hld_client_sound_added(hld_client_t *c) {
    c->sounds++;
}

void hld_client_sound_gone(hld_client_t *c) {
    if (c->sounds) c->sounds--;
    maybe_free(c);
}

void hld_client_sched_add(hld_client_t *c, uint64_t at, uint32_t tag) {
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

uint32_t hld_client_sched_left(hld_client_t *c, uint64_t now_frame) {
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
    uint32_t q = c->table->quota.scheduled;
    return c->n_sched < q ? q - c->n_sched : 0;
}

void hld_client_sched_drop(hld_client_t *c, uint32_t tag) {
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
    uint64_t before = atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_relaxed);
    if (before + bytes > max || before + bytes < before) {
        atomic_fetch_sub_explicit(&c->bytes, bytes, memory_order_relaxed);
        return -1;
    }
    return 0;
}

void hld_client_unreserve_bytes(hld_client_t *c, uint64_t bytes) {
    atomic_fetch_sub_explicit(&c->bytes, bytes, memory_order_relaxed);
}
