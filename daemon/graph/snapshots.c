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

typedef hld_snap_glide_t glide_t; /* snapshots.h */

/* The glide of p that a change on frame `known` knew as the latest: the
 * last to start on or before it (the first if none did: its i0 held). */
static glide_t glide_known(const hld_snap_t *p, uint64_t known) {
    glide_t g = {p->i0, p->i1, p->f0, p->f1};
    if (known < p->f0) /* before the latest glide: the one that ran then */
        for (uint32_t k = p->npast; k-- > 0;)
            if (known >= p->past[k].f0 || k == 0) {
                g = p->past[k];
                break;
            }
    if (known < g.f0) g = (glide_t){g.i0, g.i0, 0, 0}; /* not begun */
    return g;
}

/* p's intensity on frame f: with the glides begun by then. */
static double intensity_at(const hld_snap_t *p, uint64_t f) {
    if (!p->active) return 0.0;
    glide_t g = glide_known(p, f);
    return seg_at(g.i0, g.i1, g.f0, g.f1, f);
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

/* What a plan covers: the stack in blending order, its live settings in
 * that order, the settings it blends (the stack's and the last plan's), the
 * breakpoints after its frame, and the commands it makes. */
#define SNAP_BRK  (HL_MAX_SNAPSHOTS * (2 + 2 * HLD_SNAP_PAST))
#define SNAP_ENTS (HL_MAX_SNAPSHOTS * HL_SNAP_ENTRIES)
#define SNAP_CMDS (HLD_SNAP_SCHED_MAX + (HL_MAX_BUSES + 1) * (1 + HL_MAX_FX))
typedef struct {
    uint8_t j, target, f, param; /* stack index, HL_SNAPT_*, insert, parameter */
    int16_t k;                   /* bus + 1 */
    float value;
} plan_ent_t;
typedef struct {
    uint64_t at;   /* hl_mixer_at: the request's frame (segment 0), else a breakpoint */
    uint32_t ramp; /* frames */
    int16_t k;     /* bus + 1 */
    int8_t f;      /* insert, -1: the fader (v[0], linear) */
    float v[HL_FX_PARAMS];
} plan_cmd_t;
typedef struct {
    hld_snap_t *st[HL_MAX_SNAPSHOTS];
    uint32_t n;
    plan_ent_t ent[SNAP_ENTS];
    uint32_t nent;
    uint8_t gain[HL_MAX_BUSES + 1]; /* index bus + 1: its fader is blended */
    uint8_t fx[HL_MAX_BUSES + 1];   /* bit k: insert k is blended */
    uint8_t now_gain[HL_MAX_BUSES + 1], now_fx[HL_MAX_BUSES + 1]; /* the stack's own */
    uint64_t brk[SNAP_BRK];                                       /* ascending, distinct */
    uint8_t begins[SNAP_BRK]; /* brk[i] is a glide's start: a change made it */
    uint32_t nb;
    plan_cmd_t cmd[SNAP_CMDS];
    uint32_t ncmd, sched; /* commands, and how many of them are scheduled */
    int full;             /* more than cmd[] holds (then more than the cap) */
} plan_t;

static void add_brk(plan_t *pl, uint64_t f, uint64_t from, int begins) {
    if (f <= from) return;
    uint32_t k = pl->nb;
    while (k > 0 && pl->brk[k - 1] > f)
        k--;
    if (k > 0 && pl->brk[k - 1] == f) {
        pl->begins[k - 1] |= (uint8_t)begins;
        return;
    }
    memmove(&pl->brk[k + 1], &pl->brk[k], (pl->nb - k) * sizeof pl->brk[0]);
    memmove(&pl->begins[k + 1], &pl->begins[k], (pl->nb - k) * sizeof pl->begins[0]);
    pl->brk[k] = f;
    pl->begins[k] = (uint8_t)begins;
    pl->nb++;
}

/* The stack at frame from, its live settings (an effect's only while the
 * insert is of the kind it was set for), what it blends and its
 * breakpoints: every frame after `from` where an intensity starts or stops
 * gliding. */
static void plan_scope(hld_snaps_t *s, plan_t *pl, uint64_t from) {
    pl->n = stack(s, pl->st);
    pl->nb = pl->nent = 0;
    memset(pl->now_gain, 0, sizeof pl->now_gain);
    memset(pl->now_fx, 0, sizeof pl->now_fx);
    for (uint32_t j = 0; j < pl->n; j++) {
        const hld_snap_t *p = pl->st[j];
        for (uint32_t e = 0; e < p->nset; e++) {
            const hld_snap_set_t *x = &p->set[e];
            if (!set_live(s, x)) continue;
            int k = x->bus + 1;
            if (x->target == HL_SNAPT_FX) {
                const hld_bus_t *rec = hld_bus_at(s->buses, x->bus);
                if (!rec || x->fx_index >= rec->nfx || x->fx_index >= HL_MAX_FX ||
                    rec->fx[x->fx_index]->kind != x->fx_kind)
                    continue;
                pl->now_fx[k] |= (uint8_t)(1u << x->fx_index);
            } else {
                pl->now_gain[k] = 1;
            }
            pl->ent[pl->nent++] = (plan_ent_t){.j = (uint8_t)j,
                                               .target = x->target,
                                               .f = x->fx_index,
                                               .param = x->param,
                                               .k = (int16_t)k,
                                               .value = x->value};
        }
        for (uint32_t k = 0; k < p->npast; k++) { /* a past glide runs until the next starts */
            uint64_t until = k + 1 < p->npast ? p->past[k + 1].f0 : p->f0;
            add_brk(pl, p->past[k].f0, from, 1);
            if (p->past[k].f1 < until) add_brk(pl, p->past[k].f1, from, 0);
        }
        add_brk(pl, p->f0, from, 1);
        add_brk(pl, p->f1, from, 0);
    }
    for (int k = 0; k <= HL_MAX_BUSES; k++) {
        pl->gain[k] = pl->now_gain[k] | s->touched[k];
        pl->fx[k] = pl->now_fx[k] | s->fx_touched[k];
    }
}

/* One command of a segment (at: its frame) if its values differ from the
 * segment before's, or always where a change begins it (it takes over
 * whatever ramp ran); prev keeps the last values sent. */
static void plan_emit(plan_t *pl, int begins, uint64_t at, uint32_t ramp, int k, int f,
                      const float *v, float *prev) {
    size_t len = (f < 0 ? 1 : HL_FX_PARAMS) * sizeof *v;
    if (!begins && memcmp(v, prev, len) == 0) return;
    memcpy(prev, v, len);
    if (pl->ncmd == SNAP_CMDS) {
        pl->full = 1;
        return;
    }
    plan_cmd_t *c = &pl->cmd[pl->ncmd++];
    c->at = at;
    c->ramp = ramp;
    c->k = (int16_t)k;
    c->f = (int8_t)f;
    memcpy(c->v, v, len);
    pl->sched += at != 0;
}

/* The plan's commands, segment by segment: the first from `from` (on the
 * mixer's frame, hl_mixer_at: the request's), every later one scheduled on
 * the breakpoint it starts on. Each segment plans as the change on its
 * first frame did (or will) with what was known then -- the glides begun
 * by then: every setting ramps to its blend at the next breakpoint of
 * those (a glide a later change begins takes over on its own frame, as
 * live) -- so a plan made before a change that was sent ahead plans the
 * frames after it as that change's own plan does, whatever the order the
 * requests came in (a replay sends them ahead). A segment a change begins
 * sends every setting (it takes over whatever ramp ran), a later one what
 * changes over it. With nothing gliding: the blend, ramped over ramp_none
 * at `from`, at once on a later change. Effect parameters ride the same
 * ramps (the audio thread glides them) but the compressor's attack and
 * release and the reverb's size and pre-delay, which step to the segment's
 * end value on its first frame (time constants and delay lengths: see
 * PROTOCOL.md). One pass over the stack's settings per segment. */
static void plan_eval(hld_snaps_t *s, plan_t *pl, uint64_t from, uint32_t ramp_none) {
    static float cur[HL_MAX_BUSES + 1][1 + HL_MAX_FX][HL_FX_PARAMS]; /* [k][0][0]: the fader */
    static float prev[HL_MAX_BUSES + 1][1 + HL_MAX_FX][HL_FX_PARAMS];
    double db[HL_MAX_BUSES + 1], mute[HL_MAX_BUSES + 1], inten[HL_MAX_SNAPSHOTS];
    glide_t g[HL_MAX_SNAPSHOTS];
    const hld_bus_t *rec[HL_MAX_BUSES + 1];
    uint64_t at0 = hl_mixer_at_frame(s->mx);
    uint32_t nseg = pl->nb + 1; /* from, then every breakpoint */
    pl->ncmd = pl->sched = 0;
    pl->full = 0;
    for (int k = 0; k <= HL_MAX_BUSES; k++)
        rec[k] = pl->fx[k] ? hld_bus_at(s->buses, k - 1) : NULL;
    for (uint32_t i = 0; i < nseg && !pl->full; i++) {   /* full: plan() answers EBUSY */
        uint64_t t0 = i ? pl->brk[i - 1] : from, t1 = 0; /* t1: the next end known at t0 */
        for (uint32_t j = 0; j < pl->n; j++) {
            g[j] = glide_known(pl->st[j], t0);
            if (g[j].f1 > t0 && (!t1 || g[j].f1 < t1)) t1 = g[j].f1;
        }
        for (uint32_t j = 0; j < pl->n; j++) /* the stack's are active */
            inten[j] = seg_at(g[j].i0, g[j].i1, g[j].f0, g[j].f1, t1 ? t1 : t0);
        uint32_t ramp = t1 ? (uint32_t)(t1 - t0) : i ? 0 : ramp_none;
        uint64_t at = i ? t0 : at0;
        int begins = i == 0 || pl->begins[i - 1];
        for (int k = 0; k <= HL_MAX_BUSES; k++) { /* the bases */
            if (pl->gain[k]) {
                db[k] = base_db(s, k - 1);
                mute[k] = 0.0;
            }
            for (uint32_t f = 0; rec[k] && f < rec[k]->nfx && f < HL_MAX_FX; f++)
                if (pl->fx[k] >> f & 1u) memcpy(cur[k][1 + f], rec[k]->fx[f]->p, sizeof cur[k][0]);
        }
        for (uint32_t e = 0; e < pl->nent; e++) { /* lowest priority first */
            const plan_ent_t *x = &pl->ent[e];
            double w = inten[x->j];
            if (x->target == HL_SNAPT_GAIN) {
                double v = x->value > SNAP_FLOOR_DB ? x->value : SNAP_FLOOR_DB;
                db[x->k] += (v - db[x->k]) * w;
            } else if (x->target == HL_SNAPT_FX) {
                float *p = &cur[x->k][1 + x->f][x->param];
                *p += (float)((x->value - *p) * w);
            } else {
                mute[x->k] += (x->value - mute[x->k]) * w;
            }
        }
        for (int k = 0; k <= HL_MAX_BUSES; k++) {
            if (pl->gain[k]) {
                float lin = db[k] <= SNAP_FLOOR_DB
                                ? 0.0f
                                : hl_db_to_lin((float)db[k]) * (float)(1.0 - mute[k]);
                cur[k][0][0] = lin >= 0.0f ? lin : 0.0f;
                plan_emit(pl, begins, at, ramp, k, -1, cur[k][0], prev[k][0]);
            }
            for (uint32_t f = 0; rec[k] && f < rec[k]->nfx && f < HL_MAX_FX; f++)
                if (pl->fx[k] >> f & 1u)
                    plan_emit(pl, begins, at, ramp, k, (int)f, cur[k][1 + f], prev[k][1 + f]);
        }
    }
}

/* Pushes the plan's commands, each on its frame, recording the scheduled
 * ones' frames. 0, or the mixer's error (room was checked). */
static int plan_push(hld_snaps_t *s, const plan_t *pl) {
    uint64_t at0 = hl_mixer_at_frame(s->mx);
    int rc = 0;
    for (uint32_t c = 0; c < pl->ncmd && rc == 0; c++) {
        const plan_cmd_t *x = &pl->cmd[c];
        hl_mixer_at(s->mx, x->at);
        if (x->f < 0)
            rc = hl_mixer_set_bus_gain(s->mx, x->k - 1, x->v[0], x->ramp, hld_now_ns());
        else
            rc = hld_buses_fx_push(s->buses, x->k - 1, (uint32_t)x->f, x->v, x->ramp);
        if (rc == 0 && x->at && s->npend < HLD_SNAP_SCHED_MAX) s->pend[s->npend++] = x->at;
    }
    hl_mixer_at(s->mx, at0);
    return rc;
}

/* Keeps the pending scheduled commands' frames in [clock, until): those
 * before the clock were applied, those from `until` on are cancelled. */
static void pend_keep(hld_snaps_t *s, uint64_t clock, uint64_t until) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->npend; k++)
        if (s->pend[k] >= clock && s->pend[k] < until) s->pend[n++] = s->pend[k];
    s->npend = n;
}

/* Plans from frame `from` on: every breakpoint's segment, ahead, on its own
 * frame (so nothing depends on when the poll ticks fall); what an earlier
 * plan scheduled from `from` on is cancelled first (its tag), what it
 * scheduled before stays. Drops the snapshots that finished fading out.
 * 0, or HELIOD_EBUSY with s->why (nothing sent): the command ring, the
 * schedule, or the plans' own cap (HLD_SNAP_SCHED_MAX) has no room. */
static int plan(hld_snaps_t *s, uint64_t from, uint32_t ramp_none) {
    uint64_t t0 = mono_ns();
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++) {
        hld_snap_t *p = &s->s[i];
        if (p->name[0] && p->active && p->stopping && from >= p->f1) p->active = p->stopping = 0;
    }
    static plan_t pl; /* main thread only; big (breakpoints) */
    plan_scope(s, &pl, from);
    /* the scheduled commands of earlier plans still pending: those before
     * `from` stay, the rest is cancelled */
    uint64_t clock = hl_mixer_frames(s->mx);
    uint32_t keep = 0, later = 0;
    for (uint32_t k = 0; k < s->npend; k++)
        if (s->pend[k] >= from)
            later++;
        else if (s->pend[k] >= clock) /* (before: applied) */
            keep++;
    plan_eval(s, &pl, from, ramp_none);
    uint32_t cmds = pl.ncmd + (later > 0);
    uint64_t at = hl_mixer_at_frame(s->mx);
    hl_mixer_at(s->mx, 0);
    uint32_t ring = hl_mixer_cmd_room(s->mx);
    hl_mixer_at(s->mx, at);
    uint32_t charge = hl_mixer_charge(s->mx, 0); /* the daemon's commands, not the client's */
    uint32_t limit = hl_mixer_sched_limit(s->mx, UINT32_MAX);
    int rc = 0;
    if (pl.full || keep + pl.sched > HLD_SNAP_SCHED_MAX) {
        snprintf(s->why, sizeof s->why,
                 "snapshot schedule full: the blend needs %s%u more scheduled commands, %u are "
                 "pending (at most %d); retry once some are due",
                 pl.full ? "over " : "", (unsigned)pl.sched, (unsigned)keep, HLD_SNAP_SCHED_MAX);
        rc = HELIOD_EBUSY;
    } else if (cmds > ring || pl.sched > hl_mixer_sched_room(s->mx)) {
        snprintf(s->why, sizeof s->why, "%s", "engine busy, try again");
        rc = HELIOD_EBUSY;
    }
    pend_keep(s, clock, rc != 0 ? UINT64_MAX : from); /* refused: nothing is cancelled */
    if (rc == 0) {
        uint32_t tag = hl_mixer_cmd_tag(s->mx, HLD_TAG_SNAPSHOTS);
        if (later) rc = hl_mixer_sched_cancel_from(s->mx, HLD_TAG_SNAPSHOTS, from, 0, hld_now_ns());
        if (rc == 0) rc = plan_push(s, &pl);
        hl_mixer_cmd_tag(s->mx, tag);
        if (rc == 0) {
            s->cmds += pl.ncmd;
            memcpy(s->touched, pl.now_gain, sizeof s->touched);
            memcpy(s->fx_touched, pl.now_fx, sizeof s->fx_touched);
            s->retry = 0;
        } else { /* room was checked: not expected; the tick plans again */
            snprintf(s->why, sizeof s->why, "%s", "engine busy, try again");
            s->retry = 1;
        }
    }
    hl_mixer_charge(s->mx, charge);
    hl_mixer_sched_limit(s->mx, limit);
    /* the tick drops a stopped snapshot once its fade is over */
    s->next_break = 0;
    for (uint32_t j = 0; j < pl.n; j++)
        if (pl.st[j]->stopping && (!s->next_break || pl.st[j]->f1 < s->next_break))
            s->next_break = pl.st[j]->f1;
    uint64_t dt = mono_ns() - t0;
    s->plans++;
    s->plan_ns_total += dt;
    if (dt > s->plan_ns_max) s->plan_ns_max = dt;
    return rc;
}

/* The frame a change made now takes effect at (a scheduled request's). */
static uint64_t effect_frame(const hld_snaps_t *s) {
    return hl_mixer_effect_frame(s->mx);
}

/* A plan made for a change that cannot be refused (a definition, a base):
 * if it finds no room, the tick plans again from where the clock is. */
static void replan(hld_snaps_t *s) {
    if (plan(s, effect_frame(s), 0) != 0) s->retry = 1;
}

void hld_snaps_tick(hld_snaps_t *s) {
    uint64_t now = hl_mixer_frames(s->mx);
    if (s->retry) {
        uint64_t save = hl_mixer_at_frame(s->mx);
        hl_mixer_at(s->mx, 0);
        (void)plan(s, now, 0);
        hl_mixer_at(s->mx, save);
    }
    if (!s->next_break || now < s->next_break) return;
    /* every segment is in the mixer already: only the stack's book-keeping */
    s->next_break = 0;
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++) {
        hld_snap_t *p = &s->s[i];
        if (!p->name[0] || !p->active || !p->stopping) continue;
        if (now >= p->f1)
            p->active = p->stopping = 0;
        else if (!s->next_break || p->f1 < s->next_break)
            s->next_break = p->f1;
    }
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
            p->past[p->npast++] = (glide_t){p->i0, p->i1, p->f0, p->f1};
        }
    }
    p->active = 1;
    p->i0 = cur;
    p->i1 = x;
    p->f0 = now;
    p->f1 = now + frames;
}

static int start_stop(hld_snaps_t *s, hld_snap_t *p, int start, float x, float fade_ms) {
    if (!start && !p->active) return 0;
    uint64_t now = effect_frame(s), seq = s->seq;
    float ms = fade_ms >= 0.0f ? fade_ms : p->fade_ms;
    static hld_snap_t save; /* main thread only */
    save = *p;
    glide(s, p, now, start ? x : 0.0, ms_frames(s, ms));
    p->stopping = !start;
    int rc = plan(s, now, 0);
    if (rc != 0) { /* nothing changed: the client retries */
        *p = save;
        s->seq = seq;
    }
    return rc;
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
    if (rc == HELIOD_EBUSY) return bad(msg, cap, rc, "%s", s->why);
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
    if (p->active) replan(s);
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
        if (p->active) replan(s);
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
        if (rc == HELIOD_EBUSY) return bad(msg, cap, rc, "%s", s->why);
        return rc;
    }
    /* REMOVE: cut back at once */
    int was = p->active;
    memset(p, 0, sizeof *p);
    s->n--;
    if (was) replan(s);
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
    float old = s->base_db[k];
    uint8_t was = s->base_set[k];
    s->base_db[k] = db;
    s->base_set[k] = 1;
    int rc = plan(s, effect_frame(s), ramp_frames); /* the blend from the new base */
    if (rc != 0) {                                  /* nothing changed: the client retries */
        s->base_db[k] = old;
        s->base_set[k] = was;
    }
    return rc;
}

void hld_snaps_plan_bound(const hld_snaps_t *s, uint32_t plans, uint32_t *cmds, uint32_t *sched) {
    *cmds = *sched = 0;
    if (!plans) return;
    /* what a plan can blend: every fader and insert a defined snapshot
     * sets or the last plan left blended, one more for each request (a SET
     * adds at most one) */
    uint8_t gain[HL_MAX_BUSES + 1], fx[HL_MAX_BUSES + 1];
    memcpy(gain, s->touched, sizeof gain);
    memcpy(fx, s->fx_touched, sizeof fx);
    uint64_t now = hl_mixer_frames(s->mx);
    uint32_t brk = 0, g = plans;
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++) {
        const hld_snap_t *p = &s->s[i];
        if (!p->name[0]) continue;
        for (uint32_t e = 0; e < p->nset; e++) {
            int k = p->set[e].bus + 1;
            if (k < 0 || k > HL_MAX_BUSES) continue;
            if (p->set[e].target == HL_SNAPT_FX && p->set[e].fx_index < HL_MAX_FX)
                fx[k] |= (uint8_t)(1u << p->set[e].fx_index);
            else if (p->set[e].target != HL_SNAPT_FX)
                gain[k] = 1;
        }
        if (!p->active) continue; /* the stack's breakpoints still ahead */
        brk += (p->f0 > now) + (p->f1 > now);
        for (uint32_t k = 0; k < p->npast; k++)
            brk += (p->past[k].f0 > now) + (p->past[k].f1 > now);
    }
    for (int k = 0; k <= HL_MAX_BUSES; k++)
        g += gain[k] + (uint32_t)__builtin_popcount(fx[k]);
    /* each request moves at most one breakpoint ahead (its glide's end):
     * a segment a breakpoint, each sends every blended setting at most
     * once, the first now, the others scheduled; and the CANCEL */
    uint32_t segs = brk + plans;
    uint64_t c = (uint64_t)plans * ((uint64_t)segs * g + 1);
    uint64_t sc = (uint64_t)plans * (uint64_t)(segs - 1) * g;
    *cmds = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    *sched = sc > UINT32_MAX ? UINT32_MAX : (uint32_t)sc;
}

uint32_t hld_snaps_sched_left(const hld_snaps_t *s) {
    return s->npend < HLD_SNAP_SCHED_MAX ? HLD_SNAP_SCHED_MAX - s->npend : 0;
}

void hld_snaps_rebase(hld_snaps_t *s) {
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++)
        if (s->s[i].name[0] && s->s[i].active) {
            replan(s);
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
