/*
 * snapshots.c - mixer snapshots (see snapshots.h for the blending rule).
 * Main thread only; the mixer sees ordinary ramped bus gains and effect
 * parameters.
 */
#include "snapshots.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "hl_dsp.h"

#define SNAP_FLOOR_DB (-144.0)

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int bad(char *msg, size_t cap, int code, const char *fmt, const char *a) {
    snprintf(msg, cap, fmt, a);
    return code;
}

void hld_snaps_init(hld_snaps_t *s, hld_buses_t *b, hl_mixer_t *mx, uint32_t rate) {
    memset(s, 0, sizeof *s);
    s->buses = b;
    s->mx = mx;
    s->rate = rate;
}

hld_snap_t *hld_snaps_find(hld_snaps_t *s, const char *name) {
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++)
        if (s->s[i].name[0] && strcmp(s->s[i].name, name) == 0) return &s->s[i];
    return NULL;
}

static double seg_at(double i0, double i1, uint64_t f0, uint64_t f1, uint64_t f) {
    if (f >= f1) return i1;
    if (f <= f0) return i0;
    return i0 + (i1 - i0) * (double)(f - f0) / (double)(f1 - f0);
}

static double intensity_at(const hld_snap_t *p, uint64_t f) {
    if (!p->active) return 0.0;
    if (f < p->f0) /* before the latest glide: the one that ran then */
        for (uint32_t k = p->npast; k-- > 0;)
            if (f >= p->past[k].f0 || k == 0)
                return seg_at(p->past[k].i0, p->past[k].i1, p->past[k].f0, p->past[k].f1, f);
    return seg_at(p->i0, p->i1, p->f0, p->f1, f);
}

double hld_snap_intensity_now(const hld_snaps_t *s, const hld_snap_t *p) {
    return intensity_at(p, hl_mixer_frames(s->mx));
}

static uint32_t ms_frames(const hld_snaps_t *s, float ms) {
    return (uint32_t)llround((double)ms * s->rate / 1000.0);
}

/* The active snapshots in blending order: priority, then start order. */
static uint32_t stack(hld_snaps_t *s, hld_snap_t **out) {
    uint32_t n = 0;
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++) {
        hld_snap_t *p = &s->s[i];
        if (!p->name[0] || !p->active) continue;
        uint32_t k = n++;
        while (k > 0 && (out[k - 1]->priority > p->priority ||
                         (out[k - 1]->priority == p->priority && out[k - 1]->seq > p->seq))) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = p;
    }
    return n;
}

/* A setting still applies: its bus is the one it named. */
static int set_live(const hld_snaps_t *s, const hld_snap_set_t *e) {
    const char *nm = hld_bus_name(s->buses, e->bus);
    return nm && strcmp(nm, e->bus_name) == 0;
}

static float base_db(hld_snaps_t *s, int bus) {
    int k = bus + 1;
    if (!s->base_set[k]) {
        float g = hl_mixer_get_bus_gain(s->mx, bus);
        s->base_db[k] = g > 0.0f ? hl_lin_to_db(g) : (float)SNAP_FLOOR_DB;
        s->base_set[k] = 1;
    }
    return s->base_db[k];
}

/* Sends the blend at frame t to the mixer, ramped over `ramp` frames: bus
 * gains and every effect parameter that glides (all but the compressor's
 * attack and release and the reverb's size and pre-delay, which move at
 * the ramp's start) reach their values on frame t, however the polls fall. */
static void push_values(hld_snaps_t *s, hld_snap_t **st, uint32_t n, uint64_t t, uint32_t ramp) {
    double inten[HL_MAX_SNAPSHOTS];
    for (uint32_t j = 0; j < n; j++)
        inten[j] = intensity_at(st[j], t);
    uint8_t touched[HL_MAX_BUSES + 1] = {0}, fxt[HL_MAX_BUSES + 1] = {0};
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t e = 0; e < st[j]->nset; e++) {
            const hld_snap_set_t *x = &st[j]->set[e];
            if (!set_live(s, x)) continue;
            if (x->target == HL_SNAPT_FX)
                fxt[x->bus + 1] |= (uint8_t)(1u << x->fx_index);
            else
                touched[x->bus + 1] = 1;
        }
    for (int k = 0; k <= HL_MAX_BUSES; k++) {
        int bus = k - 1;
        if (touched[k] || s->touched[k]) {
            double db = base_db(s, bus), mute = 0.0;
            for (uint32_t j = 0; j < n; j++)
                for (uint32_t e = 0; e < st[j]->nset; e++) {
                    const hld_snap_set_t *x = &st[j]->set[e];
                    if (x->bus != bus || x->target == HL_SNAPT_FX || !set_live(s, x)) continue;
                    if (x->target == HL_SNAPT_GAIN) {
                        double v = x->value > SNAP_FLOOR_DB ? x->value : SNAP_FLOOR_DB;
                        db += (v - db) * inten[j];
                    } else {
                        mute += (x->value - mute) * inten[j];
                    }
                }
            float lin = db <= SNAP_FLOOR_DB ? 0.0f : hl_db_to_lin((float)db) * (float)(1.0 - mute);
            if (!(lin >= 0.0f)) lin = 0.0f;
            if (!s->touched[k] || lin != s->sent_lin[k] || ramp == 0 || s->force) {
                if (hl_mixer_set_bus_gain(s->mx, bus, lin, ramp, hld_now_ns()) == 0) {
                    s->cmds++;
                    s->sent_lin[k] = lin;
                } else {
                    s->sent_lin[k] = -1.0f; /* not sent: the next plan sends it */
                }
            }
            s->touched[k] = touched[k];
        }
        uint8_t fxall = fxt[k] | s->fx_touched[k];
        hld_bus_t *rec = hld_bus_at(s->buses, bus);
        for (uint32_t f = 0; fxall && rec && f < rec->nfx && f < 8; f++) {
            if (!(fxall >> f & 1u)) continue;
            const hld_fx_t *fx = rec->fx[f];
            float p[HL_FX_PARAMS];
            memcpy(p, fx->p, sizeof p);
            for (uint32_t j = 0; j < n; j++)
                for (uint32_t e = 0; e < st[j]->nset; e++) {
                    const hld_snap_set_t *x = &st[j]->set[e];
                    if (x->bus != bus || x->target != HL_SNAPT_FX || x->fx_index != f ||
                        x->fx_kind != fx->kind || !set_live(s, x))
                        continue;
                    p[x->param] += (float)((x->value - p[x->param]) * inten[j]);
                }
            if (hld_buses_fx_push(s->buses, bus, f, p, ramp) == 0) s->cmds++;
        }
        s->fx_touched[k] = fxt[k];
    }
}

/* Plans from frame now: ramps every blended setting to its value at the
 * next breakpoint; drops the snapshots that finished fading out. */
static void plan(hld_snaps_t *s, uint64_t now, uint32_t ramp_none) {
    uint64_t t0 = mono_ns();
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++) {
        hld_snap_t *p = &s->s[i];
        if (p->name[0] && p->active && p->stopping && now >= p->f1) p->active = p->stopping = 0;
    }
    hld_snap_t *st[HL_MAX_SNAPSHOTS];
    uint32_t n = stack(s, st);
    uint64_t brk = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (st[j]->f0 > now && (!brk || st[j]->f0 < brk)) brk = st[j]->f0;
        if (st[j]->f1 > now && (!brk || st[j]->f1 < brk)) brk = st[j]->f1;
    }
    uint32_t ramp = brk ? (uint32_t)(brk - now) : ramp_none;
    push_values(s, st, n, brk ? brk : now, ramp);
    s->next_break = brk;
    uint64_t dt = mono_ns() - t0;
    s->plans++;
    s->plan_ns_total += dt;
    if (dt > s->plan_ns_max) s->plan_ns_max = dt;
}

/* The frame a change made now takes effect at (a scheduled request's). */
static uint64_t effect_frame(const hld_snaps_t *s) {
    return hl_mixer_effect_frame(s->mx);
}

void hld_snaps_tick(hld_snaps_t *s) {
    if (!s->next_break) return;
    uint64_t now = hl_mixer_frames(s->mx);
    if (now < s->next_break) return;
    uint64_t save = hl_mixer_at_frame(s->mx);
    hl_mixer_at(s->mx, 0);
    plan(s, now, 0); /* between breakpoints everything glides on the audio thread */
    hl_mixer_at(s->mx, save);
}

/* Snapshot p glides from its intensity at `now` to x over `frames`. */
static void glide(hld_snaps_t *s, hld_snap_t *p, uint64_t now, double x, uint32_t frames) {
    double cur = intensity_at(p, now);
    if (!p->active) {
        p->seq = ++s->seq;
        p->npast = 0;
    } else { /* the glides from `now` on are replaced, the earlier ones kept */
        while (p->npast && p->past[p->npast - 1].f0 >= now)
            p->npast--;
        if (p->f0 < now) {
            if (p->npast == HLD_SNAP_PAST) {
                memmove(&p->past[0], &p->past[1], (HLD_SNAP_PAST - 1) * sizeof p->past[0]);
                p->npast--;
            }
            p->past[p->npast].i0 = p->i0;
            p->past[p->npast].i1 = p->i1;
            p->past[p->npast].f0 = p->f0;
            p->past[p->npast].f1 = p->f1;
            p->npast++;
        }
    }
    p->active = 1;
    p->i0 = cur;
    p->i1 = x;
    p->f0 = now;
    p->f1 = now + frames;
}

/* Room in the command ring for a plan of the stack with p in it: one
 * command per setting at most, and the buses a finished plan lets go. */
static int plan_room(const hld_snaps_t *s, const hld_snap_t *p) {
    uint32_t need = p->active ? 0 : p->nset;
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++)
        if (s->s[i].name[0] && s->s[i].active) need += s->s[i].nset;
    need += HL_MAX_BUSES + 1;
    return hl_mixer_cmd_room(s->mx) >= need;
}

static int start_stop(hld_snaps_t *s, hld_snap_t *p, int start, float x, float fade_ms) {
    if (!plan_room(s, p)) return HELIOD_EBUSY; /* nothing changed: the client retries */
    uint64_t now = effect_frame(s);
    float ms = fade_ms >= 0.0f ? fade_ms : p->fade_ms;
    if (start) {
        glide(s, p, now, x, ms_frames(s, ms));
        p->stopping = 0;
    } else {
        if (!p->active) return 0;
        glide(s, p, now, 0.0, ms_frames(s, ms));
        p->stopping = 1;
    }
    plan(s, now, 0);
    return 0;
}

int hld_snaps_set_intensity(hld_snaps_t *s, const char *name, float x, float ramp_ms, char *msg,
                            size_t cap) {
    hld_snap_t *p = hld_snaps_find(s, name);
    if (!p) return bad(msg, cap, HELIOD_EINVAL, "no snapshot named %s", name);
    if (!(x >= 0.0f && x <= 1.0f))
        return bad(msg, cap, HELIOD_EINVAL, "%s", "intensity: must be in [0, 1]");
    if (!(ramp_ms >= 0.0f && ramp_ms <= HL_MAX_FADE_MS))
        return bad(msg, cap, HELIOD_EINVAL, "%s", "ramp_ms: must be in [0, 60000]");
    if (!p->active && x == 0.0f) return 0;
    int rc = start_stop(s, p, 1, x, ramp_ms);
    if (rc == HELIOD_EBUSY) return bad(msg, cap, rc, "%s", "engine busy, try again");
    return rc;
}

/* Checks an effect setting against the effect there now. */
static int check_fx(hld_snaps_t *s, int bus, const hl_snapshot_t *m, char *msg, size_t cap) {
    hld_bus_t *rec = hld_bus_at(s->buses, bus);
    if (!rec || m->fx_index >= rec->nfx) {
        snprintf(msg, cap, "bus %s has no effect %u", m->bus, (unsigned)m->fx_index);
        return HELIOD_ENOFX;
    }
    const hld_fx_t *fx = rec->fx[m->fx_index];
    hl_fx_req_t r = {
        .action = HL_FX_SET, .kind = fx->kind, .index = m->fx_index, .mask = 1u << m->param};
    snprintf(r.bus, sizeof r.bus, "%s", m->bus);
    r.p[m->param] = m->value;
    const char *why = NULL;
    if (hl_validate_fx(&r, &why) != 0) {
        snprintf(msg, cap, "fx %u (%s): %s", (unsigned)m->fx_index, hl_fx_kind_name(fx->kind),
                 why ? why : "invalid");
        return HELIOD_EINVAL;
    }
    return 0;
}

int hld_snaps_check_set(hld_snaps_t *s, const hl_snapshot_t *m, char *msg, size_t cap) {
    int bus = hld_bus_index(s->buses, m->bus);
    if (bus == HLD_BUS_NONE) return bad(msg, cap, HELIOD_ENOBUS, "no bus named %s", m->bus);
    return m->target == HL_SNAPT_FX ? check_fx(s, bus, m, msg, cap) : 0;
}

static int set_entry(hld_snaps_t *s, hld_snap_t *p, const hl_snapshot_t *m, char *msg, size_t cap) {
    int bus = hld_bus_index(s->buses, m->bus);
    if (bus == HLD_BUS_NONE) return bad(msg, cap, HELIOD_ENOBUS, "no bus named %s", m->bus);
    if (m->target == HL_SNAPT_FX) {
        int rc = check_fx(s, bus, m, msg, cap);
        if (rc != 0) return rc;
    }
    uint32_t k = 0;
    for (; k < p->nset; k++) {
        const hld_snap_set_t *e = &p->set[k];
        if (e->bus == bus && e->target == m->target &&
            (m->target != HL_SNAPT_FX || (e->fx_index == m->fx_index && e->param == m->param)))
            break;
    }
    if (k == p->nset && p->nset >= HL_SNAP_ENTRIES)
        return bad(msg, cap, HELIOD_ENOMEM, "snapshot %s: already 32 settings", p->name);
    hld_snap_set_t *e = &p->set[k];
    e->bus = bus;
    snprintf(e->bus_name, sizeof e->bus_name, "%s", hld_bus_name(s->buses, bus));
    e->target = m->target;
    e->fx_index = (uint8_t)m->fx_index;
    if (m->target == HL_SNAPT_FX) e->fx_kind = hld_bus_at(s->buses, bus)->fx[m->fx_index]->kind;
    e->param = m->param;
    e->value = m->value;
    if (k == p->nset) p->nset++;
    if (p->active) plan(s, effect_frame(s), 0);
    return 0;
}

int hld_snaps_request(hld_snaps_t *s, const hl_snapshot_t *m, uint32_t owner, char *msg,
                      size_t cap) {
    hld_snap_t *p = hld_snaps_find(s, m->name);
    if (m->action == HL_SNAP_DEFINE) {
        if (!p) {
            for (int i = 0; i < HL_MAX_SNAPSHOTS && !p; i++)
                if (!s->s[i].name[0]) p = &s->s[i];
            if (!p) return bad(msg, cap, HELIOD_ENOMEM, "%s", "already 64 snapshots defined");
            memset(p, 0, sizeof *p);
            snprintf(p->name, sizeof p->name, "%s", m->name);
            p->owner = owner;
            s->n++;
        }
        p->priority = m->priority;
        p->fade_ms = m->fade_ms >= 0.0f ? m->fade_ms : 0.0f;
        if (p->active) plan(s, effect_frame(s), 0);
        return 0;
    }
    if (!p) return bad(msg, cap, HELIOD_EINVAL, "no snapshot named %s", m->name);
    int rc = 0;
    switch (m->action) {
    case HL_SNAP_SET: return set_entry(s, p, m, msg, cap);
    case HL_SNAP_START: rc = start_stop(s, p, 1, m->intensity, m->fade_ms); break;
    case HL_SNAP_STOP: rc = start_stop(s, p, 0, 0.0f, m->fade_ms); break;
    default: break;
    }
    if (m->action == HL_SNAP_START || m->action == HL_SNAP_STOP) {
        if (rc == HELIOD_EBUSY) return bad(msg, cap, rc, "%s", "engine busy, try again");
        return rc;
    }
    /* REMOVE: cut back at once */
    int was = p->active;
    memset(p, 0, sizeof *p);
    s->n--;
    if (was) plan(s, effect_frame(s), 0);
    return 0;
}

int hld_snaps_bus_gain(hld_snaps_t *s, int bus, float db, uint32_t ramp_frames) {
    int k = bus + 1;
    if (k < 0 || k > HL_MAX_BUSES) return HELIOD_ENOBUS;
    if (!s->touched[k]) {
        int rc = hl_mixer_set_bus_gain(s->mx, bus, hl_db_to_lin(db), ramp_frames, hld_now_ns());
        if (rc == 0) {
            s->base_db[k] = db;
            s->base_set[k] = 1;
        }
        return rc;
    }
    s->base_db[k] = db;
    s->base_set[k] = 1;
    plan(s, effect_frame(s), ramp_frames); /* the running segment, from the new base */
    return 0;
}

void hld_snaps_rebase(hld_snaps_t *s) {
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++)
        if (s->s[i].name[0] && s->s[i].active) {
            plan(s, effect_frame(s), 0);
            return;
        }
}

uint32_t hld_snaps_list(hld_snaps_t *s, hl_snapshot_info_t *out, uint32_t cap) {
    uint32_t n = 0;
    uint64_t now = hl_mixer_frames(s->mx);
    for (int i = 0; i < HL_MAX_SNAPSHOTS && n < cap; i++) {
        const hld_snap_t *p = &s->s[i];
        if (!p->name[0]) continue;
        hl_snapshot_info_t *e = &out[n++];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", p->name);
        e->priority = p->priority;
        e->fade_ms = p->fade_ms;
        e->settings = p->nset;
        e->owner = p->owner;
        e->intensity = (float)intensity_at(p, now);
        e->target = p->active ? (float)p->i1 : 0.0f;
        e->state = !p->active    ? HL_SNAP_STATE_IDLE
                   : p->stopping ? HL_SNAP_STATE_OUT
                   : now < p->f1 ? HL_SNAP_STATE_IN
                                 : HL_SNAP_STATE_ON;
    }
    return n;
}
