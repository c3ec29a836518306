/*
 * reverb_zones.c - reverb zones following the listener (see zones.h).
 */
#include "reverb_zones.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "heliod_errors.h"
#include "hl_dsp.h"

#define DEFAULT_FEED "reverb_zones"

void hld_rzones_init(hld_rzones_t *z, hld_buses_t *buses, uint32_t rate) {
    memset(z, 0, sizeof *z);
    z->buses = buses;
    z->rate = rate;
}

static hld_rzone_t *find(hld_rzones_t *z, const char *name) {
    const hld_buses_t *b = z->buses;
    hld_rzone_t *best = NULL;
    int best_rank = 0;
    for (uint32_t i = 0; i < z->n; i++) {
        if (strcmp(z->zone[i].z.name, name) != 0) continue;
        uint32_t owner = z->zone[i].owner;
        int r = b->ns_rank ? b->ns_rank(b->ns_ctx, owner) : owner == 0 ? 2 : 1;
        if (r > best_rank) {
            best_rank = r;
            best = &z->zone[i];
        }
    }
    return best;
}

hld_rzone_t *hld_rzones_find(hld_rzones_t *z, const char *name) {
    return find(z, name);
}

static uint32_t ramp_frames(const hld_rzones_t *z) {
    return (uint32_t)lroundf(HLD_RZONE_RAMP_MS * (float)z->rate / 1000.0f);
}

/* Lets go of zone e's send (already silent). */
static void release(hld_rzones_t *z, hld_rzone_t *e) {
    if (!e->sending) return;
    char msg[HL_MAX_MSG + 1];
    int feed = e->feed_ix, bus = e->bus_ix;
    if (feed >= 0 && bus >= 0 &&
        hld_buses_send(z->buses, feed, bus, HL_MIN_DB, 0, msg, sizeof msg) == HELIOD_EBUSY)
        return; /* retried at the next tick */
    e->sending = 0;
    e->silent_ns = 0;
}

/* An update at the listener's current position. */
static void update_here(hld_rzones_t *z) {
    hl_listener_state_t l;
    hl_mixer_get_listener(z->buses->mx, &l);
    hld_rzones_update(z, l.pos, hld_now_ns());
}

int hld_rzones_set(hld_rzones_t *z, const hl_rzone_t *m, char *msg, size_t cap) {
    hld_rzone_t *e = find(z, m->name);
    if (!e && z->n >= HL_MAX_RZONES) {
        snprintf(msg, cap, "already %d zones", HL_MAX_RZONES);
        return HELIOD_ENOMEM;
    }
    hl_rzone_t r = *m;
    if (!r.bus[0]) snprintf(r.bus, sizeof r.bus, "%s", r.name);
    if (!r.feed[0]) snprintf(r.feed, sizeof r.feed, DEFAULT_FEED);
    if (strcmp(r.bus, r.feed) == 0) {
        snprintf(msg, cap, "reverb zone %s: its bus and its feed are the same bus", r.name);
        return HELIOD_EINVAL;
    }
    int made_bus = 0, rc;
    if (hld_bus_index(z->buses, r.feed) == HLD_BUS_NONE) {
        /* the default feed: a muted bus voices send to; only its sends are heard */
        if (strcmp(r.feed, DEFAULT_FEED) != 0) {
            snprintf(msg, cap, "reverb zone %s: no bus named %s (its feed)", r.name, r.feed);
            return HELIOD_ENOBUS;
        }
        if ((rc = hld_buses_create(z->buses, r.feed, "", msg, cap)) != 0) return rc;
        hl_mixer_set_bus_mute(z->buses->mx, hld_bus_index(z->buses, r.feed), 1, 0, hld_now_ns());
    }
    if (hld_bus_index(z->buses, r.bus) == HLD_BUS_NONE) {
        if ((rc = hld_buses_create_reverb(z->buses, r.bus, r.preset, msg, cap)) != 0) return rc;
        made_bus = 1;
    }
    int feed_ix = hld_bus_index(z->buses, r.feed), bus_ix = hld_bus_index(z->buses, r.bus);
    if (e && (e->bus_ix != bus_ix || e->feed_ix != feed_ix)) {
        /* moved to another bus or feed: the old send goes at once (a rare edit) */
        int feed = e->feed_ix, bus = e->bus_ix;
        if (e->sending && feed >= 0 && bus >= 0)
            hld_buses_send(z->buses, feed, bus, HL_MIN_DB, 0, msg, cap);
        e->sending = 0;
    }
    if (!e) {
        e = &z->zone[z->n++];
        memset(e, 0, sizeof *e);
    }
    e->owns_bus = made_bus || (e->owns_bus && e->bus_ix == bus_ix);
    e->z = r;
    e->feed_ix = feed_ix;
    e->bus_ix = bus_ix;
    e->z.action = HL_RZONE_SET;
    update_here(z);
    return 0;
}

void hld_rzones_drop(hld_rzones_t *z, hld_rzone_t *e) {
    release(z, e);
    *e = z->zone[--z->n];
    update_here(z);
}

int hld_rzones_remove(hld_rzones_t *z, const char *name, char *msg, size_t cap) {
    hld_rzone_t *e = find(z, name);
    if (!e) {
        snprintf(msg, cap, "no zone named %s", name);
        return HELIOD_EINVAL;
    }
    release(z, e);
    int bus = e->bus_ix, owned = e->owns_bus;
    *e = z->zone[--z->n];
    if (owned) {
        /* its bus goes too if nothing else uses it (else it stays, harmless) */
        hld_bus_usage_t none;
        memset(&none, 0, sizeof none);
        (void)hld_buses_remove_at(z->buses, bus, &none, msg, cap);
    }
    msg[0] = '\0';
    update_here(z);
    return 0;
}

static float weight_of(const hl_rzone_t *m, const float lis[3]) {
    float dx = lis[0] - m->pos[0], dy = lis[1] - m->pos[1], dz = lis[2] - m->pos[2];
    float d = sqrtf(dx * dx + dy * dy + dz * dz);
    if (d <= m->radius) return 1.0f;
    if (m->fade <= 0.0f || d >= m->radius + m->fade) return 0.0f;
    return (m->radius + m->fade - d) / m->fade;
}

void hld_rzones_update(hld_rzones_t *z, const float lis[3], uint64_t now_ns) {
    memcpy(z->lis, lis, sizeof z->lis);
    char msg[HL_MAX_MSG + 1];
    for (uint32_t i = 0; i < z->n; i++)
        z->zone[i].weight = weight_of(&z->zone[i].z, lis);
    /* per feed: the heaviest HL_BUS_SENDS zones are heard, normalised */
    for (uint32_t i = 0; i < z->n; i++) {
        hld_rzone_t *e = &z->zone[i];
        float sum = 0.0f;
        int rank = 0; /* zones on the same feed heavier than e (ties: earlier first) */
        for (uint32_t j = 0; j < z->n; j++) {
            const hld_rzone_t *o = &z->zone[j];
            if (o->feed_ix != e->feed_ix) continue;
            sum += o->weight;
            if (j != i && (o->weight > e->weight || (o->weight == e->weight && j < i))) rank++;
        }
        e->level = e->weight > 0.0f && rank < HL_BUS_SENDS ? e->weight / fmaxf(1.0f, sum) : 0.0f;
    }
    for (int pass = 0; pass < 2; pass++) { /* silence first, so slots free up for the rest */
        for (uint32_t i = 0; i < z->n; i++) {
            hld_rzone_t *e = &z->zone[i];
            if ((pass == 0) != (e->level == 0.0f)) continue;
            int feed = e->feed_ix, bus = e->bus_ix;
            if (feed < 0 || bus < 0) continue; /* a bus removed under it: inert */
            if (e->level == 0.0f) {
                if (!e->sending || e->silent_ns) continue;
                if (hld_buses_send_fade(z->buses, feed, bus, ramp_frames(z)) == 0)
                    e->silent_ns = now_ns;
                continue;
            }
            float db = fmaxf(hl_lin_to_db(e->level), HL_MIN_DB + 1.0f);
            /* a full feed (slots still fading out) is retried by the tick that frees one */
            if (hld_buses_send(z->buses, feed, bus, db, ramp_frames(z), msg, sizeof msg) == 0) {
                e->sending = 1;
                e->silent_ns = 0;
            }
        }
    }
}

void hld_rzones_tick(hld_rzones_t *z, uint64_t now_ns) {
    const uint64_t hold = (uint64_t)(HLD_RZONE_RAMP_MS * 1e6f) + 20000000ull; /* + 20 ms margin */
    int freed = 0;
    for (uint32_t i = 0; i < z->n; i++) {
        hld_rzone_t *e = &z->zone[i];
        if (e->sending && e->silent_ns && now_ns - e->silent_ns >= hold) {
            release(z, e);
            freed = 1;
        }
    }
    if (freed) hld_rzones_update(z, z->lis, now_ns); /* a zone waiting for a slot gets it */
}

const hld_rzone_t *hld_rzones_using(const hld_rzones_t *z, int bus) {
    for (uint32_t i = 0; i < z->n; i++)
        if (z->zone[i].bus_ix == bus || z->zone[i].feed_ix == bus) return &z->zone[i];
    return NULL;
}

uint32_t hld_rzones_list(const hld_rzones_t *z, hl_rzone_info_t *out, uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < z->n && n < cap; i++, n++) {
        const hld_rzone_t *e = &z->zone[i];
        out[n].zone = e->z;
        out[n].weight = e->weight;
        int feed = e->feed_ix, bus = e->bus_ix;
        out[n].send_db = feed >= 0 && bus >= 0 && e->level > 0.0f
                             ? hld_buses_send_db(z->buses, feed, bus)
                             : HL_MIN_DB;
    }
    return n;
}
