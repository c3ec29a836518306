/*
 * buses.c - bus names and tree, insert effects and ducking rules over the
 * mixer graph (see buses.h). Main thread only.
 */
#include "buses.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heliod_errors.h"
#include "hld_limits.h"
#include "hl_dsp.h"
#include "engine.h"

static const char *const k_default[HL_NUM_BUSES] = {"sfx", "music", "dialog", "ui"};

void hld_buses_init(hld_buses_t *b, hl_mixer_t *mx, uint32_t rate) {
    memset(b, 0, sizeof *b);
    b->mx = mx;
    b->rate = (float)rate;
    for (int i = 0; i < HL_MAX_BUSES; i++) {
        b->bus[i].parent = HLD_BUS_MASTER;
        for (int k = 0; k < HL_BUS_SENDS; k++)
            b->bus[i].send_to[k] = -1;
    }
    for (int i = 0; i < HL_NUM_BUSES; i++)
        snprintf(b->bus[i].name, sizeof b->bus[i].name, "%s", k_default[i]);
    snprintf(b->master.name, sizeof b->master.name, "master");
    b->master.parent = HLD_BUS_MASTER;
}

static void fx_free(hld_fx_t *f) {
    if (!f) return;
    free(f->rev_mem);
    free(f);
}

void hld_buses_close(hld_buses_t *b) {
    for (int i = -1; i < HL_MAX_BUSES; i++) {
        hld_bus_t *bus = i < 0 ? &b->master : &b->bus[i];
        for (uint32_t k = 0; k < bus->nfx; k++)
            fx_free(bus->fx[k]);
        bus->nfx = 0;
    }
    while (b->retiring) {
        hld_fx_t *f = b->retiring;
        b->retiring = f->next_retiring;
        fx_free(f);
    }
}

int hld_bus_index(const hld_buses_t *b, const char *name) {
    if (!name) return HLD_BUS_NONE;
    if (!name[0]) return HL_BUS_SFX;
    if (strcmp(name, "master") == 0) return HLD_BUS_MASTER;
    int best = HLD_BUS_NONE, best_rank = 0;
    for (int i = 0; i < HL_MAX_BUSES; i++) {
        if (!b->bus[i].name[0] || strcmp(b->bus[i].name, name) != 0) continue;
        uint32_t owner = b->bus[i].owner;
        if (owner == HLD_OWNER_GONE) continue; /* its process has gone: no name finds it */
        int r = b->ns_rank ? b->ns_rank(b->ns_ctx, owner) : owner == 0 ? 2 : 1;
        if (r > best_rank) {
            best_rank = r;
            best = i;
        }
    }
    return best;
}

hld_bus_t *hld_bus_at(hld_buses_t *b, int bus) {
    if (bus == HLD_BUS_MASTER) return &b->master;
    if (bus < 0 || bus >= HL_MAX_BUSES || !b->bus[bus].name[0]) return NULL;
    return &b->bus[bus];
}

const char *hld_bus_name(const hld_buses_t *b, int bus) {
    if (bus == HLD_BUS_MASTER) return b->master.name;
    if (bus < 0 || bus >= HL_MAX_BUSES || !b->bus[bus].name[0]) return NULL;
    return b->bus[bus].name;
}

const char *hld_bus_label(const hld_buses_t *b, int bus, char *buf) {
    const char *n = hld_bus_name(b, bus);
    if (!n || bus == HLD_BUS_MASTER) return n;
    const hld_bus_t *e = &b->bus[bus];
    if (!e->owner || e->shared) return n;
    uint32_t id = e->owner == HLD_OWNER_GONE ? e->gone_from : e->owner; /* an orphan keeps it */
    char suffix[16];
    int sl = snprintf(suffix, sizeof suffix, "-c%u", id);
    snprintf(buf, HL_MAX_NAME + 1, "%.*s%s", HLD_BUS_LABEL_MAX - sl, n, suffix);
    return buf;
}

static hld_bus_t *bus_at(hld_buses_t *b, int bus) {
    return bus == HLD_BUS_MASTER ? &b->master : &b->bus[bus];
}

static int fail(char *msg, size_t cap, int code, const char *fmt, const char *a, const char *b) {
    snprintf(msg, cap, fmt, a, b);
    return code;
}

/* The tree as the mixer takes it, with bus `over` given `parent` (or
 * removed, `parent` HLD_BUS_NONE); pushes it. */
static int push_graph(hld_buses_t *b, int over, int parent) {
    int8_t par[HL_MAX_BUSES];
    uint32_t live = 0;
    for (int i = 0; i < HL_MAX_BUSES; i++) {
        int p = b->bus[i].parent;
        int is_live = b->bus[i].name[0] != 0;
        if (i == over) {
            is_live = parent != HLD_BUS_NONE;
            p = parent;
        }
        par[i] = (int8_t)(is_live ? p : -1);
        if (is_live) live |= 1u << i;
    }
    return hl_mixer_bus_graph(b->mx, par, live, hld_now_ns());
}

/* 1 if `anc` is `bus` or one of its ancestors. */
static int is_ancestor(const hld_buses_t *b, int anc, int bus) {
    for (int steps = 0; bus >= 0 && steps <= HL_MAX_BUSES; steps++) {
        if (bus == anc) return 1;
        bus = b->bus[bus].parent;
    }
    return 0;
}

int hld_buses_create(hld_buses_t *b, const char *name, const char *parent, char *msg, size_t cap) {
    if (hld_bus_index(b, name) != HLD_BUS_NONE || !name[0])
        return fail(msg, cap, HELIOD_EEXIST, "a bus named %s already exists%s", name, "");
    int par = parent[0] ? hld_bus_index(b, parent) : HLD_BUS_MASTER;
    if (par == HLD_BUS_NONE)
        return fail(msg, cap, HELIOD_ENOBUS, "no bus named %s (the parent of %s)", parent, name);
    int slot = -1;
    for (int i = HL_NUM_BUSES; i < HL_MAX_BUSES && slot < 0; i++)
        if (!b->bus[i].name[0]) slot = i;
    if (slot < 0)
        return fail(msg, cap, HELIOD_ENOMEM, "%s: already %s buses (the most a mix has)", name,
                    "32");
    int rc = push_graph(b, slot, par);
    if (rc != 0)
        return fail(msg, cap, rc, "bus %s: %s", name,
                    rc == HELIOD_EBUSY ? "engine busy, try again" : "the mixer refused it");
    hld_bus_t *nb = &b->bus[slot];
    memset(nb, 0, sizeof *nb);
    snprintf(nb->name, sizeof nb->name, "%s", name);
    nb->parent = par;
    for (int k = 0; k < HL_BUS_SENDS; k++)
        nb->send_to[k] = -1;
    return 0;
}

int hld_buses_send(hld_buses_t *b, int bus, int target, float db, uint32_t ramp_frames, char *msg,
                   size_t cap) {
    if (bus < 0 || bus >= HL_MAX_BUSES || !b->bus[bus].name[0] || target < 0 ||
        target >= HL_MAX_BUSES || !b->bus[target].name[0])
        return fail(msg, cap, HELIOD_ENOBUS, "bus send: no such bus%s%s", "", "");
    hld_bus_t *e = &b->bus[bus];
    int slot = -1, free_slot = -1;
    for (int k = 0; k < HL_BUS_SENDS; k++) {
        if (e->send_to[k] == target) slot = k;
        if (e->send_to[k] < 0 && free_slot < 0) free_slot = k;
    }
    int off = db <= HL_MIN_DB;
    if (off && slot < 0)
        return fail(msg, cap, HELIOD_EINVAL, "%s does not send to %s", e->name,
                    b->bus[target].name);
    if (slot < 0) slot = free_slot;
    if (slot < 0) return fail(msg, cap, HELIOD_ENOMEM, "%s already has %s sends", e->name, "4");
    int rc = hl_mixer_bus_send(b->mx, bus, (uint32_t)slot, off ? -1 : target,
                               off ? 0.0f : hl_db_to_lin(db), ramp_frames, hld_now_ns());
    if (rc != 0)
        return fail(msg, cap, rc, "send %s -> %s: a loop through parents and sends, or busy",
                    e->name, b->bus[target].name);
    e->send_to[slot] = off ? -1 : target;
    e->send_db[slot] = off ? HL_MIN_DB : db;
    return 0;
}

int hld_buses_send_fade(hld_buses_t *b, int bus, int target, uint32_t ramp_frames) {
    if (bus < 0 || bus >= HL_MAX_BUSES) return -1;
    hld_bus_t *e = &b->bus[bus];
    for (int k = 0; k < HL_BUS_SENDS; k++) {
        if (e->send_to[k] != target) continue;
        if (hl_mixer_bus_send(b->mx, bus, (uint32_t)k, target, 0.0f, ramp_frames, hld_now_ns()))
            return -1;
        e->send_db[k] = HL_MIN_DB;
        return 0;
    }
    return -1;
}

float hld_buses_send_db(const hld_buses_t *b, int bus, int target) {
    if (bus < 0 || bus >= HL_MAX_BUSES) return HL_MIN_DB;
    for (int k = 0; k < HL_BUS_SENDS; k++)
        if (b->bus[bus].send_to[k] == target) return b->bus[bus].send_db[k];
    return HL_MIN_DB;
}

int hld_buses_reparent(hld_buses_t *b, const char *name, const char *parent, char *msg,
                       size_t cap) {
    int bus = hld_bus_index(b, name);
    if (bus < 0 || !name[0]) return fail(msg, cap, HELIOD_ENOBUS, "no bus named %s%s", name, "");
    int par = parent[0] ? hld_bus_index(b, parent) : HLD_BUS_MASTER;
    if (par == HLD_BUS_NONE) return fail(msg, cap, HELIOD_ENOBUS, "no bus named %s%s", parent, "");
    if (par >= 0 && is_ancestor(b, bus, par))
        return fail(msg, cap, HELIOD_EINVAL, "%s cannot go under %s: that makes a loop", name,
                    parent);
    int rc = push_graph(b, bus, par);
    if (rc != 0)
        return fail(msg, cap, rc, "bus %s: %s", name,
                    rc == HELIOD_EBUSY ? "engine busy, try again" : "the mixer refused it");
    b->bus[bus].parent = par;
    return 0;
}

int hld_buses_reparent_at(hld_buses_t *b, int bus, int parent) {
    if (bus < 0 || bus >= HL_MAX_BUSES || !b->bus[bus].name[0]) return HELIOD_ENOBUS;
    if (parent >= 0 && is_ancestor(b, bus, parent)) return HELIOD_EINVAL;
    int rc = push_graph(b, bus, parent);
    if (rc == 0) b->bus[bus].parent = parent;
    return rc;
}

/* Detaches every effect of `bus`, every ducking rule naming it and every
 * other bus's send into it. */
static int strip_bus(hld_buses_t *b, int bus) {
    hld_bus_t *e = bus_at(b, bus);
    for (int s = 0; s < HL_MAX_BUSES && bus >= 0; s++)
        for (int k = 0; k < HL_BUS_SENDS; k++)
            if (b->bus[s].name[0] && b->bus[s].send_to[k] == bus) {
                int rc = hl_mixer_bus_send(b->mx, s, (uint32_t)k, -1, 0.0f, 0, hld_now_ns());
                if (rc != 0) return rc;
                b->bus[s].send_to[k] = -1;
            }
    if (e->nfx) {
        int rc = hl_mixer_bus_fx(b->mx, bus, NULL, 0, hld_now_ns());
        if (rc != 0) return rc;
        for (uint32_t k = 0; k < e->nfx; k++) {
            e->fx[k]->next_retiring = b->retiring;
            b->retiring = e->fx[k];
        }
        e->nfx = 0;
    }
    for (int i = 0; i < HL_MAX_DUCKS; i++) {
        if (!b->duck_used[i]) continue;
        if (b->duck_bus[i] != bus && b->duck_by[i] != bus) continue;
        int rc = hl_mixer_duck(b->mx, (uint32_t)i, 0, 0, 0, 0, 0, 0, 0, 0, hld_now_ns());
        if (rc != 0) return rc;
        b->duck_used[i] = 0;
    }
    return 0;
}

uint32_t hld_buses_remove_cmds(const hld_buses_t *b, const char *name) {
    int bus = hld_bus_index(b, name);
    if (bus < 0 || !name[0]) return 1;
    uint32_t n = 1 + (b->bus[bus].nfx ? 1u : 0u);
    for (int s = 0; s < HL_MAX_BUSES; s++)
        for (int k = 0; k < HL_BUS_SENDS; k++)
            n += b->bus[s].name[0] && b->bus[s].send_to[k] == bus;
    for (int i = 0; i < HL_MAX_DUCKS; i++)
        n += b->duck_used[i] && (b->duck_bus[i] == bus || b->duck_by[i] == bus);
    return n;
}

int hld_buses_remove(hld_buses_t *b, const char *name, const hld_bus_usage_t *use, char *msg,
                     size_t cap) {
    int bus = hld_bus_index(b, name);
    if (bus < 0 || !name[0]) return fail(msg, cap, HELIOD_ENOBUS, "no bus named %s%s", name, "");
    return hld_buses_remove_at(b, bus, use, msg, cap);
}

int hld_buses_remove_at(hld_buses_t *b, int bus, const hld_bus_usage_t *use, char *msg,
                        size_t cap) {
    if (bus < 0 || bus >= HL_MAX_BUSES || !b->bus[bus].name[0])
        return fail(msg, cap, HELIOD_ENOBUS, "no such bus%s%s", "", "");
    char name[HL_MAX_NAME + 1];
    snprintf(name, sizeof name, "%s", b->bus[bus].name);
    if (bus < HL_NUM_BUSES)
        return fail(msg, cap, HELIOD_EINVAL, "%s is a default bus: it cannot be removed%s", name,
                    "");
    char n[24];
    if (use->voices[bus] || use->sends[bus]) {
        snprintf(n, sizeof n, "%u", use->voices[bus] + use->sends[bus]);
        return fail(msg, cap, HELIOD_EBUSINUSE, "bus %s: %s voices play on it or send to it", name,
                    n);
    }
    for (int i = 0; i < HL_MAX_BUSES; i++)
        if (b->bus[i].name[0] && b->bus[i].parent == bus)
            return fail(msg, cap, HELIOD_EBUSINUSE, "bus %s: %s is a child of it", name,
                        b->bus[i].name);
    int rc = strip_bus(b, bus);
    if (rc == 0) rc = push_graph(b, bus, HLD_BUS_NONE);
    if (rc != 0)
        return fail(msg, cap, rc == HELIOD_EINVAL ? HELIOD_EBUSINUSE : rc, "bus %s: %s", name,
                    rc == HELIOD_EBUSY ? "engine busy, try again"
                                       : "a voice still fading out uses it; try again");
    memset(&b->bus[bus], 0, sizeof b->bus[bus]);
    b->bus[bus].parent = HLD_BUS_MASTER;
    for (int k = 0; k < HL_BUS_SENDS; k++)
        b->bus[bus].send_to[k] = -1;
    return 0;
}

int hld_buses_create_reverb(hld_buses_t *b, const char *name, int preset, char *msg, size_t cap) {
    int rc = hld_buses_create(b, name, "", msg, cap);
    if (rc != 0) return rc;
    hl_fx_req_t m = {.action = HL_FX_ADD,
                     .index = 0,
                     .kind = HL_FXK_REVERB,
                     .type = (uint8_t)preset,
                     .mask = HL_FXP_TYPE | (1u << 4) | (1u << 5),
                     .p = {[4] = 1.0f, [5] = 0.0f}};
    snprintf(m.bus, sizeof m.bus, "%s", name);
    uint32_t index = 0;
    return hld_buses_fx(b, &m, &index, msg, cap);
}

/* ---- effects ---------------------------------------------------------------- */

static void fx_defaults(uint8_t kind, uint8_t type, float p[HL_FX_PARAMS]) {
    memset(p, 0, sizeof(float) * HL_FX_PARAMS);
    if (kind == HL_FXK_EQ) {
        p[0] = 1000.0f;
        p[1] = 0.70710678f;
        p[2] = 0.0f;
    } else if (kind == HL_FXK_COMP) {
        const float d[6] = {-20.0f, 4.0f, 6.0f, 5.0f, 100.0f, 0.0f};
        memcpy(p, d, sizeof d);
    } else {
        hl_reverb_params_t r;
        hl_reverb_preset(hl_fx_type_name(HL_FXK_REVERB, type), &r);
        p[0] = r.rt60_s;
        p[1] = r.damping;
        p[2] = r.predelay_ms;
        p[3] = r.size;
        p[4] = r.wet;
        p[5] = r.dry;
    }
}

static hl_reverb_params_t rev_params(const float p[HL_FX_PARAMS]) {
    return (hl_reverb_params_t){.rt60_s = p[0],
                                .damping = p[1],
                                .predelay_ms = p[2],
                                .size = p[3],
                                .wet = p[4],
                                .dry = p[5]};
}

/* A new effect of m's kind with defaults overridden by m's given fields,
 * set up completely here (the audio thread only ever sees it ready). */
static hld_fx_t *fx_new(hld_buses_t *b, const hl_fx_req_t *m) {
    hld_fx_t *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->kind = m->kind;
    f->type = (m->mask & HL_FXP_TYPE)    ? m->type
              : m->kind == HL_FXK_EQ     ? HL_EQ_PEAK
              : m->kind == HL_FXK_REVERB ? HL_REV_HALL
                                         : 0;
    fx_defaults(f->kind, f->type, f->p);
    for (int i = 0; i < HL_FX_PARAMS; i++)
        if (m->mask & (1u << i)) f->p[i] = m->p[i];
    f->fx.kind = m->kind; /* HL_FXK_* and HL_FX_* agree */
    if (m->kind == HL_FXK_EQ) {
        hl_eq_init(&f->fx.u.eq, b->rate, f->type, f->p[0], f->p[1], f->p[2]);
    } else if (m->kind == HL_FXK_COMP) {
        hl_comp_init(&f->fx.u.comp, b->rate);
        hl_comp_set_rt(&f->fx.u.comp, f->p[0], f->p[1], f->p[2], f->p[3], f->p[4], f->p[5]);
    } else {
        size_t bytes = hl_reverb_size(b->rate);
        f->rev_mem = malloc(bytes);
        f->fx.u.rev = f->rev_mem ? hl_reverb_init(f->rev_mem, bytes, b->rate) : NULL;
        if (!f->fx.u.rev) {
            fx_free(f);
            return NULL;
        }
        hl_reverb_params_t rp = rev_params(f->p);
        hl_reverb_set_rt(f->fx.u.rev, &rp);
        /* no glide from the init preset: the effect is not running yet */
        hl_reverb_clear(f->fx.u.rev);
    }
    return f;
}

static int push_chain(hld_buses_t *b, int bus, hld_fx_t *const *chain, uint32_t n) {
    hl_fx_t *fx[HL_MAX_FX];
    for (uint32_t k = 0; k < n; k++)
        fx[k] = &chain[k]->fx;
    return hl_mixer_bus_fx(b->mx, bus, fx, n, hld_now_ns());
}

/* Pushes parameters p (type `type`) to effect f, gliding over ramp_frames
 * where its kind glides (EQ); the registry is not changed. */
static int fx_push(hld_buses_t *b, hld_fx_t *f, uint8_t type, const float p[HL_FX_PARAMS],
                   uint32_t ramp_frames) {
    hl_fx_params_t fp = {.kind = f->kind,
                         .eq_type = type,
                         .freq = p[0],
                         .q = p[1],
                         .gain_db = p[2],
                         .threshold_db = p[0],
                         .ratio = p[1],
                         .knee_db = p[2],
                         .attack_ms = p[3],
                         .release_ms = p[4],
                         .makeup_db = p[5],
                         .rev = rev_params(p),
                         .ramp_frames = ramp_frames};
    return hl_mixer_fx_param(b->mx, &f->fx, &fp, hld_now_ns());
}

static int fx_set(hld_buses_t *b, hld_fx_t *f, const hl_fx_req_t *m) {
    float p[HL_FX_PARAMS];
    uint8_t type = f->type;
    memcpy(p, f->p, sizeof p);
    if (m->mask & HL_FXP_TYPE) {
        type = m->type;
        if (f->kind == HL_FXK_REVERB) fx_defaults(f->kind, type, p); /* a preset: all of it */
    }
    for (int i = 0; i < HL_FX_PARAMS; i++)
        if (m->mask & (1u << i)) p[i] = m->p[i];
    int rc = fx_push(b, f, type, p, (uint32_t)lroundf(m->ramp_ms * b->rate / 1000.0f));
    if (rc != 0) return rc;
    f->type = type;
    memcpy(f->p, p, sizeof p);
    return 0;
}

int hld_buses_fx_push(hld_buses_t *b, int bus, uint32_t index, const float p[HL_FX_PARAMS],
                      uint32_t ramp_frames) {
    hld_bus_t *e = hld_bus_at(b, bus);
    if (!e || index >= e->nfx) return HELIOD_ENOFX;
    return fx_push(b, e->fx[index], e->fx[index]->type, p, ramp_frames);
}

int hld_buses_fx(hld_buses_t *b, const hl_fx_req_t *m, uint32_t *index, char *msg, size_t cap) {
    int bus = hld_bus_index(b, m->bus);
    if (bus == HLD_BUS_NONE) return fail(msg, cap, HELIOD_ENOBUS, "no bus named %s%s", m->bus, "");
    hld_bus_t *e = bus_at(b, bus);
    char idx[16];
    snprintf(idx, sizeof idx, "%u", m->index);
    if (m->action != HL_FX_ADD && m->index >= e->nfx)
        return fail(msg, cap, HELIOD_ENOFX, "bus %s has no effect %s", m->bus, idx);
    hld_fx_t *chain[HL_MAX_FX];
    memcpy(chain, e->fx, sizeof chain);
    int rc;
    if (m->action == HL_FX_ADD) {
        if (e->nfx >= HL_MAX_FX)
            return fail(msg, cap, HELIOD_ENOMEM, "bus %s: already %s effects", m->bus, "8");
        hld_fx_t *f = fx_new(b, m);
        if (!f)
            return fail(msg, cap, HELIOD_ENOMEM, "bus %s: out of memory for the %s", m->bus,
                        hl_fx_kind_name(m->kind));
        uint32_t at = m->index < e->nfx ? m->index : e->nfx;
        memmove(&chain[at + 1], &chain[at], (e->nfx - at) * sizeof chain[0]);
        chain[at] = f;
        rc = push_chain(b, bus, chain, e->nfx + 1);
        if (rc != 0) {
            fx_free(f);
            return fail(msg, cap, rc, "bus %s: %s", m->bus, "engine busy, try again");
        }
        memcpy(e->fx, chain, sizeof chain);
        e->nfx++;
        *index = at;
        return 0;
    }
    hld_fx_t *f = e->fx[m->index];
    if (m->action == HL_FX_SET) {
        if (f->kind != m->kind)
            return fail(msg, cap, HELIOD_EINVAL, "effect %s is a %s", idx,
                        hl_fx_kind_name(f->kind));
        rc = fx_set(b, f, m);
        if (rc != 0) return fail(msg, cap, rc, "bus %s: %s", m->bus, "engine busy, try again");
        *index = m->index;
        return 0;
    }
    memmove(&chain[m->index], &chain[m->index + 1], (e->nfx - m->index - 1) * sizeof chain[0]);
    rc = push_chain(b, bus, chain, e->nfx - 1);
    if (rc != 0) return fail(msg, cap, rc, "bus %s: %s", m->bus, "engine busy, try again");
    memcpy(e->fx, chain, sizeof chain);
    e->nfx--;
    f->next_retiring = b->retiring;
    b->retiring = f;
    *index = m->index;
    return 0;
}

void hld_buses_fx_retired(hld_buses_t *b, hl_fx_t *fx) {
    for (hld_fx_t **pp = &b->retiring; *pp; pp = &(*pp)->next_retiring) {
        if (&(*pp)->fx != fx) continue;
        hld_fx_t *f = *pp;
        *pp = f->next_retiring;
        fx_free(f);
        return;
    }
}

uint32_t hld_buses_fx_info(const hld_buses_t *b, int bus, hl_fx_info_t *out, uint32_t cap) {
    const hld_bus_t *e = bus == HLD_BUS_MASTER ? &b->master : &b->bus[bus];
    uint32_t n = 0;
    for (uint32_t k = 0; k < e->nfx && n < cap; k++, n++) {
        const hld_fx_t *f = e->fx[k];
        hl_fx_info_t *o = &out[n];
        memset(o, 0, sizeof *o);
        snprintf(o->bus, sizeof o->bus, "%s", e->name);
        o->index = k;
        o->kind = f->kind;
        o->type = f->type;
        memcpy(o->p, f->p, sizeof o->p);
    }
    return n;
}

/* ---- ducking ---------------------------------------------------------------- */

int hld_buses_duck(hld_buses_t *b, const hl_duck_rule_t *m, char *msg, size_t cap) {
    int target = hld_bus_index(b, m->bus), side = hld_bus_index(b, m->by);
    if (target < 0 || !m->bus[0])
        return fail(msg, cap, HELIOD_ENOBUS, "no bus named %s%s", m->bus,
                    target == HLD_BUS_MASTER ? " (the master cannot be ducked)" : "");
    if (side < 0 || !m->by[0])
        return fail(msg, cap, HELIOD_ENOBUS, "no bus named %s%s", m->by,
                    side == HLD_BUS_MASTER ? " (the master cannot be a sidechain)" : "");
    int slot = -1, free_slot = -1;
    for (int i = 0; i < HL_MAX_DUCKS; i++) {
        if (!b->duck_used[i]) {
            if (free_slot < 0) free_slot = i;
            continue;
        }
        if (b->duck_bus[i] == target && b->duck_by[i] == side) slot = i;
    }
    if (!m->on && slot < 0)
        return fail(msg, cap, HELIOD_EINVAL, "no ducking of %s by %s", m->bus, m->by);
    if (slot < 0) slot = free_slot;
    if (slot < 0) return fail(msg, cap, HELIOD_ENOMEM, "already %s ducking rules%s", "16", "");
    int rc =
        hl_mixer_duck(b->mx, (uint32_t)slot, m->on, (uint32_t)side, (uint32_t)target, m->depth_db,
                      m->threshold_db, m->attack_ms, m->hold_ms, m->release_ms, hld_now_ns());
    if (rc != 0) /* the ranges are the wire's (hl_ranges.h): only a full ring is left */
        return fail(msg, cap, rc,
                    rc == HELIOD_EBUSY ? "duck %s by %s: engine busy, try again"
                                       : "duck %s by %s: the mixer refused it",
                    m->bus, m->by);
    b->duck_used[slot] = m->on;
    b->duck[slot] = *m;
    b->duck_bus[slot] = target;
    b->duck_by[slot] = side;
    return 0;
}

/* ---- listing ---------------------------------------------------------------- */

static float lin_to_db(float g) {
    return g > 1e-7f ? 20.0f * log10f(g) : HL_MIN_DB;
}

static void info_of(const hld_buses_t *b, int bus, const hld_bus_usage_t *use,
                    const hl_mixer_stats_t *st, hl_bus_info_t *o) {
    const hld_bus_t *e = bus == HLD_BUS_MASTER ? &b->master : &b->bus[bus];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", e->name);
    if (bus != HLD_BUS_MASTER)
        snprintf(o->parent, sizeof o->parent, "%s", hld_bus_name(b, e->parent));
    o->gain_db = lin_to_db(hl_mixer_get_bus_gain(b->mx, bus));
    o->mute = (uint8_t)hl_mixer_get_bus_mute(b->mx, bus);
    o->fx = (uint8_t)e->nfx;
    if (bus >= 0) {
        o->voices = use->voices[bus];
        o->sends = use->sends[bus];
        o->duck_db = lin_to_db(st->duck_gain[bus]);
    }
    o->path_gain_db = lin_to_db(hl_mixer_bus_path_gain(b->mx, bus));
    for (int k = 0; bus >= 0 && k < HL_BUS_SENDS && k < HL_BUS_SENDS_MAX; k++) {
        const char *t = e->send_to[k] >= 0 ? hld_bus_name(b, e->send_to[k]) : NULL;
        snprintf(o->send[k], sizeof o->send[k], "%s", t ? t : "");
        o->send_db[k] = t ? e->send_db[k] : HL_MIN_DB;
    }
}

uint32_t hld_buses_list(const hld_buses_t *b, const hld_bus_usage_t *use,
                        hl_bus_info_t out[HL_MAX_BUSES + 1]) {
    hl_mixer_stats_t st;
    hl_mixer_stats(b->mx, &st);
    uint32_t n = 0;
    info_of(b, HLD_BUS_MASTER, use, &st, &out[n++]);
    /* breadth first from the master: parents before children */
    int queue[HL_MAX_BUSES + 1], head = 0, tail = 0;
    queue[tail++] = HLD_BUS_MASTER;
    while (head < tail) {
        int p = queue[head++];
        for (int i = 0; i < HL_MAX_BUSES; i++) {
            if (!b->bus[i].name[0] || b->bus[i].parent != p) continue;
            info_of(b, i, use, &st, &out[n++]);
            queue[tail++] = i;
        }
    }
    return n;
}
