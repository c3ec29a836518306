/*
 * world_zones.c - the world-zone loading scheduler in the daemon (see
 * world_zones.h): the loader behind zone_sched.c's decisions, the tick
 * timer, the reports.
 */
#include "world_zones.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replies.h"
#include "daemon.h"
#include "ns.h"
#include "log.h"

/* ---- the loader zone_sched.c drives ---------------------------------------------- */

/* A zone's manifest being read on the worker pool (fileio.h). */
typedef struct zone_read {
    hld_wzones_t *w;
    uint32_t i;
    int cancelled; /* the zone was cancelled or removed meanwhile */
} zone_read_t;

static void zl_read(void *user, int status, const char *msg, hld_manifest_t *m) {
    zone_read_t *r = user;
    hld_wzones_t *w = r->w;
    uint32_t i = r->i;
    int cancelled = r->cancelled;
    free(r);
    if (cancelled) return;
    w->reading[i] = NULL;
    if (w->d->shutting_down) status = HELIOD_ESHUTDOWN, msg = "the daemon is shutting down";
    char why[HL_MAX_MSG + 1];
    hld_bank_t *b = NULL;
    if (status == 0) {
        status = hld_banks_start(&w->d->banks, m, 0, 0, hld_clients_who(&w->d->ledger, w->owner[i]),
                                 NULL, NULL, &b, why, sizeof why);
        msg = why;
    }
    if (status != 0) {
        hld_warn("zone %s: %s", w->zs.zone[i].name, msg);
        hld_zs_done(&w->zs, i, 0, 0); /* a failure: retried with backoff */
        return;
    }
    if (b->state == HLD_BANK_FAILED) { /* no sound could even start: a failure, retried */
        hld_warn("zone %s: bank %s: %s", w->zs.zone[i].name, b->name, b->error);
        hld_banks_unload(&w->d->banks, b, why, sizeof why);
        hld_zs_done(&w->zs, i, 0, 0);
        return;
    }
    w->bank[i] = b;
    b->tag = &w->zs.zone[i];
}

static int zl_load(void *user, uint32_t i) {
    hld_wzones_t *w = user;
    char msg[HL_MAX_MSG + 1];
    zone_read_t *r = calloc(1, sizeof *r);
    if (!r) return HELIOD_ENOMEM;
    r->w = w;
    r->i = i;
    int rc =
        hld_banks_read(&w->d->banks, w->bank_path[i], 0, w->d->engine.rate,
                       hld_clients_who(&w->d->ledger, w->owner[i]), zl_read, r, msg, sizeof msg);
    if (rc != 0) {
        free(r);
        hld_warn("zone %s: %s", w->zs.zone[i].name, msg);
        return rc;
    }
    w->reading[i] = r;
    return 0;
}

static void zl_drop(void *user, uint32_t i) {
    hld_wzones_t *w = user;
    if (w->reading[i]) { /* its manifest is being read: the result is dropped */
        w->reading[i]->cancelled = 1;
        w->reading[i] = NULL;
    }
    hld_bank_t *b = w->bank[i];
    if (!b) return;
    b->tag = NULL;
    w->bank[i] = NULL;
    char msg[HL_MAX_MSG + 1];
    /* a load in flight is cancelled (decodes stop, memory comes back); a
     * loaded bank goes as its voices end */
    hld_banks_unload(&w->d->banks, b, msg, sizeof msg);
}

void hld_wzones_bank_changed(hld_wzones_t *w, const hld_bank_t *b) {
    if (!b->tag) return;
    uint32_t i = (uint32_t)((const hld_zs_zone_t *)b->tag - w->zs.zone);
    if (i >= w->zs.n || w->bank[i] != b) return;
    if (b->state == HLD_BANK_LOADED) hld_zs_done(&w->zs, i, 1, b->bytes);
    if (b->state == HLD_BANK_FAILED) {
        hld_zs_done(&w->zs, i, 0, 0);
        zl_drop(w, i); /* what loaded of it goes; the scheduler retries with backoff */
    }
}

/* ---- ticks ----------------------------------------------------------------------- */

/* Sends the report line to c as a ZONE_TICK event. */
static void send_line(hld_conn_t *c, const char *line) {
    static hl_event_t ev; /* large (the meter body): not on the stack */
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_ZONE_TICK;
    snprintf(ev.report, sizeof ev.report, "%s", line);
    static uint8_t buf[HL_MAX_REPORT + 64];
    int n = hld_event_frame(&ev, buf, sizeof buf);
    if (n > 0) hld_conn_send(c, buf, (size_t)n);
}

/* The zones of list[0..*n) that c sees (ZONES' rule: its own and the shared). */
static void keep_visible(const hld_wzones_t *w, const hld_conn_t *c, uint32_t *list, uint32_t *n) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < *n; i++)
        if (hld_ns_rank(c, w->owner[list[i]]) > 0) list[k++] = list[i];
    *n = k;
}

/* The tick's report to ZONES subscribers: a control client gets the whole
 * line; a plain client the zones it may see by name (the totals are the
 * daemon's, as in STATS). */
static void broadcast(hld_wzones_t *w, const hld_zs_report_t *rep, const char *line) {
    static hld_zs_report_t mine; /* large: not on the stack */
    static char own[HL_MAX_REPORT + 1];
    for (hld_conn_t *c = w->d->net.conns; c; c = c->next) {
        if (!(c->sub & HL_SUB_ZONES)) continue;
        if (c->control) {
            send_line(c, line);
            continue;
        }
        mine = *rep;
        keep_visible(w, c, mine.requested, &mine.n_requested);
        keep_visible(w, c, mine.completed, &mine.n_completed);
        keep_visible(w, c, mine.failed, &mine.n_failed);
        keep_visible(w, c, mine.cancelled, &mine.n_cancelled);
        keep_visible(w, c, mine.unloaded, &mine.n_unloaded);
        keep_visible(w, c, mine.evicted, &mine.n_evicted);
        hld_zs_report_text(&w->zs, &mine, own, sizeof own);
        send_line(c, own);
    }
}

static void on_tick(uv_timer_t *t) {
    hld_wzones_t *w = t->data;
    if (w->d->shutting_down) return;
    hld_wzones_tick(w);
}

void hld_wzones_tick(hld_wzones_t *w) {
    hl_listener_state_t l;
    hl_mixer_get_listener(w->d->engine.mixer, &l);
    hld_zs_report_t rep;
    hld_zs_tick(&w->zs, l.pos, &rep);
    for (uint32_t i = 0; i < w->zs.n; i++) {
        const hld_zs_zone_t *e = &w->zs.zone[i];
        float dx = e->pos[0] - l.pos[0], dy = e->pos[1] - l.pos[1], dz = e->pos[2] - l.pos[2];
        w->last_dist[i] = sqrtf(dx * dx + dy * dy + dz * dz);
    }
    if (rep.n_requested | rep.n_completed | rep.n_failed | rep.n_cancelled | rep.n_unloaded |
        rep.n_evicted)
        w->ticks_with_work++;
    static char line[HL_MAX_REPORT + 1];
    hld_zs_report_text(&w->zs, &rep, line, sizeof line);
    broadcast(w, &rep, line);
}

int hld_wzones_loading(const hld_wzones_t *w) {
    for (uint32_t i = 0; i < w->zs.n; i++)
        if (w->zs.zone[i].state == HLD_ZS_LOADING && !w->zs.zone[i].done_pending) return 1;
    return 0;
}

uint64_t hld_wzones_tick_ns(const hld_wzones_t *w) {
    uint32_t hz = w->d->cfg.zone_tick_hz ? w->d->cfg.zone_tick_hz : 20;
    return HLD_NS_PER_S / hz;
}

int hld_wzones_init(hld_wzones_t *w, hld_daemon_t *d) {
    memset(w, 0, sizeof *w);
    w->d = d;
    w->bank_path = calloc(HLD_ZS_MAX_ZONES, sizeof *w->bank_path);
    if (!w->bank_path) return -1;
    hld_zs_config_t c;
    hld_zs_config_default(&c);
    if (d->cfg.zone_budget_kb) c.budget_bytes = (uint64_t)d->cfg.zone_budget_kb * 1024u;
    if (d->cfg.zone_cap_mb) c.cap_bytes = (uint64_t)d->cfg.zone_cap_mb * 1024u * 1024u;
    c.pin_radius = d->cfg.zone_pin_radius;
    hld_zs_ops_t ops = {.user = w, .load = zl_load, .cancel = zl_drop, .unload = zl_drop};
    hld_zs_init(&w->zs, &c, &ops);
    return 0;
}

int hld_wzones_start(hld_wzones_t *w) {
    uint32_t hz = w->d->cfg.zone_tick_hz ? w->d->cfg.zone_tick_hz : 20;
    uint64_t ms = 1000 / hz ? 1000 / hz : 1;
    if (uv_timer_init(w->d->loop, &w->timer) != 0) return -1;
    w->timer_init = 1;
    w->timer.data = w;
    return uv_timer_start(&w->timer, on_tick, ms, ms) == 0 ? 0 : -1;
}

void hld_wzones_stop(hld_wzones_t *w) {
    if (w->timer_init && !uv_is_closing((uv_handle_t *)&w->timer)) {
        uv_timer_stop(&w->timer);
        uv_close((uv_handle_t *)&w->timer, NULL);
    }
}

void hld_wzones_close(hld_wzones_t *w) {
    free(w->bank_path);
    w->bank_path = NULL;
}

int hld_wzones_find(const hld_wzones_t *w, const char *name, hld_ns_rank_fn rank, const void *ctx,
                    int *r) {
    int best = -1, br = 0;
    for (uint32_t i = 0; i < w->zs.n; i++) {
        const hld_zs_zone_t *e = &w->zs.zone[i];
        if (!e->used || strcmp(e->name, name) != 0) continue;
        int zr = rank ? rank(ctx, w->owner[i]) : 1;
        if (zr > br) {
            best = (int)i;
            br = zr;
        }
    }
    if (r) *r = br;
    return best;
}

int hld_wzones_add(hld_wzones_t *w, const hl_zone_t *m, uint32_t owner, uint64_t bytes,
                   hld_ns_rank_fn rank, const void *ctx, char *msg, size_t cap) {
    int r = 0;
    if (hld_wzones_find(w, m->name, rank, ctx, &r) >= 0 && r >= 2) {
        snprintf(msg, cap, "a zone named %s exists (zone remove %s first)", m->name, m->name);
        return HELIOD_EEXIST;
    }
    int i = hld_zs_add(&w->zs, m->name, m->pos, m->radius, bytes);
    if (i < 0) {
        snprintf(msg, cap, "already %d zones", HLD_ZS_MAX_ZONES);
        return HELIOD_ENOMEM;
    }
    snprintf(w->bank_path[i], sizeof w->bank_path[i], "%s", m->bank);
    w->bank[i] = NULL;
    w->reading[i] = NULL;
    w->owner[i] = owner;
    return 0;
}

void hld_wzones_remove_at(hld_wzones_t *w, int i) {
    if (i >= 0) hld_zs_remove(&w->zs, (uint32_t)i); /* cancels or unloads through the loader */
}

uint32_t hld_wzones_list(const hld_wzones_t *w, hl_zone_info_t *out, uint32_t cap,
                         hld_ns_rank_fn rank, const void *ctx) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->zs.n && n < cap; i++) {
        const hld_zs_zone_t *e = &w->zs.zone[i];
        if (!e->used || (rank && rank(ctx, w->owner[i]) <= 0)) continue;
        hl_zone_info_t *o = &out[n++];
        memset(o, 0, sizeof *o);
        snprintf(o->zone.name, sizeof o->zone.name, "%s", e->name);
        snprintf(o->zone.bank, sizeof o->zone.bank, "%s", w->bank_path[i]);
        memcpy(o->zone.pos, e->pos, sizeof o->zone.pos);
        o->zone.radius = e->radius;
        o->state = (uint8_t)e->state;
        o->bytes = e->bytes;
        o->distance = w->last_dist[i];
    }
    return n;
}
