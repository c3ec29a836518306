/*
 * zone_sched.c - the world-zone loading scheduler's core (see zone_sched.h).
 */
#include "zone_sched.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RETRY_MAX_SHIFT 5 /* backoff 2 .. 64 ticks */

void hld_zs_config_default(hld_zs_config_t *c) {
    c->unload_factor = 1.25f;
    c->budget_bytes = 4u << 20;
    c->cap_bytes = 256u << 20;
    c->pin_radius = 0.0f;
    c->cooldown_ticks = 2;
}

void hld_zs_init(hld_zs_t *z, const hld_zs_config_t *cfg, const hld_zs_ops_t *ops) {
    memset(z, 0, sizeof *z);
    z->cfg = *cfg;
    if (!(z->cfg.unload_factor > 1.0f)) z->cfg.unload_factor = 1.25f;
    z->ops = *ops;
}

int hld_zs_find(const hld_zs_t *z, const char *name) {
    for (uint32_t i = 0; i < z->n; i++)
        if (z->zone[i].used && strcmp(z->zone[i].name, name) == 0) return (int)i;
    return -1;
}

int hld_zs_add(hld_zs_t *z, const char *name, const float pos[3], float radius, uint64_t bytes) {
    if (!name || strlen(name) >= HLD_ZS_NAME) return -1; /* names: the caller's namespaces */
    uint32_t i = 0;
    while (i < z->n && z->zone[i].used)
        i++;
    if (i == z->n) {
        if (z->n >= HLD_ZS_MAX_ZONES) return -1;
        z->n++;
    }
    hld_zs_zone_t *e = &z->zone[i];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    memcpy(e->pos, pos, sizeof e->pos);
    e->radius = radius;
    e->bytes = bytes;
    e->used = 1;
    return (int)i;
}

void hld_zs_remove(hld_zs_t *z, uint32_t i) {
    if (i >= z->n || !z->zone[i].used) return;
    hld_zs_zone_t *e = &z->zone[i];
    if (e->state == HLD_ZS_LOADING && z->ops.cancel) z->ops.cancel(z->ops.user, i);
    if (e->state == HLD_ZS_LOADED && z->ops.unload) z->ops.unload(z->ops.user, i);
    e->used = 0;
}

void hld_zs_done(hld_zs_t *z, uint32_t i, int ok, uint64_t bytes) {
    if (i >= z->n || !z->zone[i].used || z->zone[i].state != HLD_ZS_LOADING) return;
    z->zone[i].done_pending = ok ? 1 : -1;
    z->zone[i].done_bytes = bytes;
}

static float dist(const hld_zs_zone_t *e, const float lis[3]) {
    float dx = e->pos[0] - lis[0], dy = e->pos[1] - lis[1], dz = e->pos[2] - lis[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

/* Nearest first, ties by name: the order of every decision. */
static int closer(const hld_zs_t *z, uint32_t a, uint32_t b, const float *d) {
    if (d[a] != d[b]) return d[a] < d[b];
    return strcmp(z->zone[a].name, z->zone[b].name) < 0;
}

static void sort_by(const hld_zs_t *z, uint32_t *idx, uint32_t n, const float *d, int farthest) {
    for (uint32_t i = 1; i < n; i++) { /* insertion sort: n is small, and stable */
        uint32_t v = idx[i], j = i;
        while (j > 0 && (farthest ? closer(z, idx[j - 1], v, d) : closer(z, v, idx[j - 1], d))) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

/* Unloads loaded zone j to make room (cools down; counted as evicted). */
static void evict(hld_zs_t *z, uint32_t j, hld_zs_report_t *rep, uint64_t *held) {
    hld_zs_zone_t *o = &z->zone[j];
    if (z->ops.unload) z->ops.unload(z->ops.user, j);
    o->state = HLD_ZS_OUT;
    o->cool_until = z->tick + z->cfg.cooldown_ticks;
    *held -= o->bytes;
    rep->evicted[rep->n_evicted++] = j;
}

void hld_zs_tick(hld_zs_t *z, const float lis[3], hld_zs_report_t *rep) {
    memset(rep, 0, sizeof *rep);
    rep->tick = ++z->tick;
    float d[HLD_ZS_MAX_ZONES];
    for (uint32_t i = 0; i < z->n; i++)
        d[i] = z->zone[i].used ? dist(&z->zone[i], lis) : 0.0f;
    /* 1. completions */
    for (uint32_t i = 0; i < z->n; i++) {
        hld_zs_zone_t *e = &z->zone[i];
        if (!e->used || !e->done_pending) continue;
        if (e->done_pending > 0) {
            e->state = HLD_ZS_LOADED;
            if (e->done_bytes) e->bytes = e->done_bytes;
            e->failures = 0;
            rep->completed[rep->n_completed++] = i;
        } else {
            e->state = HLD_ZS_OUT;
            uint32_t sh = e->failures < RETRY_MAX_SHIFT ? e->failures : RETRY_MAX_SHIFT;
            e->failures++;
            e->retry_at = z->tick + (2ull << sh);
            rep->failed[rep->n_failed++] = i;
        }
        e->done_pending = 0;
    }
    /* 1b. a completion bigger than its estimate must not leave the cap
     * crossed: evict loaded zones, unpinned ones first, farthest first */
    uint64_t held = 0; /* resident + in flight */
    for (uint32_t i = 0; i < z->n; i++)
        if (z->zone[i].used && z->zone[i].state != HLD_ZS_OUT) held += z->zone[i].bytes;
    while (held > z->cfg.cap_bytes) {
        int far = -1, far_pinned = 1;
        for (uint32_t j = 0; j < z->n; j++) {
            const hld_zs_zone_t *o = &z->zone[j];
            if (!o->used || o->state != HLD_ZS_LOADED) continue;
            int pin = d[j] <= z->cfg.pin_radius;
            if (far < 0 || (far_pinned && !pin) ||
                (pin == far_pinned && closer(z, (uint32_t)far, j, d))) {
                far = (int)j;
                far_pinned = pin;
            }
        }
        if (far < 0) break; /* only loads in flight: they were admitted within it */
        evict(z, (uint32_t)far, rep, &held);
    }
    /* 2. cancel and 3. unload beyond the unload radius */
    for (uint32_t i = 0; i < z->n; i++) {
        hld_zs_zone_t *e = &z->zone[i];
        if (!e->used || d[i] <= e->radius * z->cfg.unload_factor) continue;
        if (e->state == HLD_ZS_LOADING) {
            if (z->ops.cancel) z->ops.cancel(z->ops.user, i);
            e->state = HLD_ZS_OUT;
            e->cool_until = z->tick + z->cfg.cooldown_ticks;
            rep->cancelled[rep->n_cancelled++] = i;
        } else if (e->state == HLD_ZS_LOADED) {
            if (z->ops.unload) z->ops.unload(z->ops.user, i);
            e->state = HLD_ZS_OUT;
            rep->unloaded[rep->n_unloaded++] = i;
        }
    }
    /* 4. loads, nearest first */
    held = 0;
    for (uint32_t i = 0; i < z->n; i++)
        if (z->zone[i].used && z->zone[i].state != HLD_ZS_OUT) held += z->zone[i].bytes;
    uint32_t cand[HLD_ZS_MAX_ZONES], nc = 0;
    for (uint32_t i = 0; i < z->n; i++) {
        const hld_zs_zone_t *e = &z->zone[i];
        if (e->used && e->state == HLD_ZS_OUT && d[i] <= e->radius && z->tick >= e->cool_until &&
            z->tick >= e->retry_at)
            cand[nc++] = i;
    }
    sort_by(z, cand, nc, d, 0);
    uint64_t spent = 0;
    for (uint32_t k = 0; k < nc; k++) {
        uint32_t i = cand[k];
        hld_zs_zone_t *e = &z->zone[i];
        if (spent && spent + e->bytes > z->cfg.budget_bytes) continue; /* next tick */
        const int pinned = d[i] <= z->cfg.pin_radius;
        if (held + e->bytes > z->cfg.cap_bytes) {
            /* room: evict loaded zones farther than this one (a pinned one
             * evicts any unpinned zone), never a pinned one, farthest
             * first; what cannot fit waits (the cap holds at every instant) */
            uint32_t ev[HLD_ZS_MAX_ZONES], ne = 0;
            uint64_t freeable = 0;
            for (uint32_t j = 0; j < z->n; j++) {
                const hld_zs_zone_t *o = &z->zone[j];
                if (o->used && o->state == HLD_ZS_LOADED && d[j] > z->cfg.pin_radius &&
                    (pinned || closer(z, i, j, d))) {
                    ev[ne++] = j;
                    freeable += o->bytes;
                }
            }
            if (held - freeable + e->bytes > z->cfg.cap_bytes) continue; /* cannot fit */
            sort_by(z, ev, ne, d, 1);
            for (uint32_t q = 0; q < ne && held + e->bytes > z->cfg.cap_bytes; q++)
                evict(z, ev[q], rep, &held);
        }
        spent += e->bytes; /* a failed start counts against the budget too */
        rep->requested[rep->n_requested++] = i;
        if (z->ops.load && z->ops.load(z->ops.user, i) != 0) {
            uint32_t sh = e->failures < RETRY_MAX_SHIFT ? e->failures : RETRY_MAX_SHIFT;
            e->failures++;
            e->retry_at = z->tick + (2ull << sh);
            rep->failed[rep->n_failed++] = i;
            continue;
        }
        e->state = HLD_ZS_LOADING;
        held += e->bytes;
    }
    rep->requested_bytes = spent;
    for (uint32_t i = 0; i < z->n; i++) {
        const hld_zs_zone_t *e = &z->zone[i];
        if (!e->used) continue;
        if (e->state == HLD_ZS_LOADED) {
            rep->resident++;
            rep->resident_bytes += e->bytes;
        } else if (e->state == HLD_ZS_LOADING) {
            rep->in_flight++;
            rep->in_flight_bytes += e->bytes;
        }
    }
    hld_zs_totals_t *t = &z->tot;
    t->ticks++;
    t->requested += rep->n_requested;
    t->completed += rep->n_completed;
    t->failed += rep->n_failed;
    t->cancelled += rep->n_cancelled;
    t->unloaded += rep->n_unloaded;
    t->evicted += rep->n_evicted;
    if (rep->resident_bytes > t->peak_resident_bytes) t->peak_resident_bytes = rep->resident_bytes;
    if (rep->in_flight > t->peak_in_flight) t->peak_in_flight = rep->in_flight;
    if (spent > t->largest_tick_bytes) t->largest_tick_bytes = spent;
}

static size_t put_list(const hld_zs_t *z, char *buf, size_t cap, size_t len, const char *key,
                       const uint32_t *idx, uint32_t n) {
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, " %s=", key);
    for (uint32_t k = 0; k < n && len < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? "," : "", z->zone[idx[k]].name);
    return len;
}

size_t hld_zs_report_text(const hld_zs_t *z, const hld_zs_report_t *r, char *buf, size_t cap) {
    if (!cap) return 0;
    size_t len = (size_t)snprintf(buf, cap, "tick %llu", (unsigned long long)r->tick);
    len = put_list(z, buf, cap, len, "requested", r->requested, r->n_requested);
    len = put_list(z, buf, cap, len, "completed", r->completed, r->n_completed);
    len = put_list(z, buf, cap, len, "failed", r->failed, r->n_failed);
    len = put_list(z, buf, cap, len, "cancelled", r->cancelled, r->n_cancelled);
    len = put_list(z, buf, cap, len, "unloaded", r->unloaded, r->n_unloaded);
    len = put_list(z, buf, cap, len, "evicted", r->evicted, r->n_evicted);
    if (len < cap)
        len += (size_t)snprintf(
            buf + len, cap - len, " resident=%u/%llu in_flight=%u/%llu requested_bytes=%llu",
            r->resident, (unsigned long long)r->resident_bytes, r->in_flight,
            (unsigned long long)r->in_flight_bytes, (unsigned long long)r->requested_bytes);
    return len < cap ? len : cap - 1;
}
