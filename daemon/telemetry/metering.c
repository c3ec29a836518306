/*
 * metering.c - meters and loudness on the main thread (metering.h).
 *
 * The level records come one per audio-thread call (or a few folded into
 * one when the main thread was late, see meter_tap.h); each feeds the
 * ballistics of every live bus and of the master. The output frames go
 * straight into libebur128 through loudness.c. Both are drained at every
 * poll tick, so STATS is always current, and again just before a METER
 * event is encoded. One METER event is encoded per timer tick that has a
 * subscriber due, and the same bytes are queued to each of them.
 */
#include "metering.h"

#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "hld_limits.h"
#include "log.h"
#include "loudness.h"
#include "meter_tap.h"
#include "meters.h"

_Static_assert(HL_MAX_BUSES <= HL_METER_MAX_BUSES, "a METER event carries every bus");

#define DRAIN_BATCH 32 /* level records copied out at a time */

static struct {
    int open;
    hld_meter_t meter[HL_MIX_METERS]; /* buses by index, then the master */
    uint32_t live;                    /* buses being metered (bit per bus) */
    hld_loudness_t *loud;
    uv_timer_t timer;
    int timer_on, timer_init;
    uint64_t sent, skipped;
    uint8_t frame[HL_MAX_FRAME / 4]; /* one encoded METER event (~3 KiB at 32 buses) */
} g;

static void on_timer(uv_timer_t *t);

int hld_metering_open(hld_daemon_t *d) {
    uint32_t rate = d->engine.rate;
    for (int i = 0; i < HL_MIX_METERS; i++)
        if (hld_meter_init(&g.meter[i], rate, HLD_METER_WINDOW_MS, HLD_METER_HOLD_MS,
                           HLD_METER_FALL_DB_S) != 0) {
            hld_metering_free();
            return HELIOD_ENOMEM;
        }
    g.loud = hld_loudness_create(rate);
    if (!g.loud) {
        hld_metering_free();
        return HELIOD_ENOMEM;
    }
    uv_timer_init(d->loop, &g.timer);
    g.timer.data = d;
    g.timer_init = 1;
    g.open = 1;
    return 0;
}

const char *hld_metering_bus_name(hld_daemon_t *d, uint32_t b, char *buf) {
    const char *n = hld_bus_name(&d->buses, (int)b); /* the registry (buses.c) */
    if (n) return n;
    snprintf(buf, HL_MAX_NAME + 1, "bus%u", b);
    return buf;
}

/* Live buses now; one that just became live starts from silence. */
static void track_live(hld_daemon_t *d) {
    uint32_t live = 0;
    for (int b = 0; b < HL_MAX_BUSES; b++)
        if (hl_mixer_bus_live(d->engine.mixer, b)) live |= 1u << b;
    uint32_t born = live & ~g.live;
    for (int b = 0; b < HL_MAX_BUSES; b++)
        if (born >> b & 1u) hld_meter_reset(&g.meter[b]);
    g.live = live;
}

void hld_metering_poll(hld_daemon_t *d) {
    hld_meter_tap_t *tap = d->engine.tap;
    if (!g.open || !tap) return;
    track_live(d);
    hl_mix_meter_t rec[DRAIN_BATCH];
    uint32_t n;
    while ((n = hld_meter_tap_read_levels(tap, rec, DRAIN_BATCH)) > 0)
        for (uint32_t k = 0; k < n; k++) {
            const hl_mix_meter_t *r = &rec[k];
            for (int i = 0; i < HL_MIX_METERS; i++)
                if (i == HL_MIX_METER_MASTER || (g.live >> i & 1u))
                    hld_meter_feed(&g.meter[i], r->peak[i][0], r->peak[i][1], r->sumsq[i][0],
                                   r->sumsq[i][1], r->frames, r->now_frames);
        }
    hl_ring_spans_t s;
    uint32_t frames = hld_meter_tap_read_pcm(tap, &s);
    if (frames) {
        hld_loudness_feed(g.loud, s.p1, s.n1);
        if (s.n2) hld_loudness_feed(g.loud, s.p2, s.n2);
        hld_meter_tap_pcm_done(tap, frames);
    }
}

static void read_level(const hld_meter_t *m, hl_meter_level_t *l) {
    hld_meter_read(m, l->peak_db, l->peak_hold_db, l->rms_db);
}

void hld_metering_read(hld_daemon_t *d, hl_meter_t *out) {
    memset(out, 0, sizeof *out);
    if (!g.open) {
        out->momentary = out->short_term = out->integrated = HL_METER_FLOOR_DB;
        for (int c = 0; c < 2; c++)
            out->master.peak_db[c] = out->master.peak_hold_db[c] = out->master.rms_db[c] =
                HL_METER_FLOOR_DB;
        return;
    }
    out->frame = g.meter[HL_MIX_METER_MASTER].now;
    double m, s, i, r;
    if (hld_loudness_read(g.loud, &m, &s, &i, &r) != 0)
        hld_debug("loudness: libebur128 ran out of memory: some audio went unmeasured");
    out->momentary = (float)m;
    out->short_term = (float)s;
    out->integrated = (float)i;
    out->range = (float)r;
    read_level(&g.meter[HL_MIX_METER_MASTER], &out->master);
    for (uint32_t b = 0; b < HL_MAX_BUSES; b++) {
        if (!(g.live >> b & 1u)) continue;
        hl_meter_level_t *l = &out->bus[out->nbuses++];
        char buf[HL_MAX_NAME + 1];
        snprintf(l->name, sizeof l->name, "%s", hld_metering_bus_name(d, b, buf));
        read_level(&g.meter[b], l);
    }
}

void hld_metering_reset_loudness(hld_daemon_t *d) {
    if (!g.open) return;
    hld_metering_poll(d); /* what came before the reset is not measured after it */
    hld_loudness_reset(g.loud);
}

static float interval_ns(const hld_conn_t *c) {
    float hz = c->meter_hz > 0.0f ? c->meter_hz : HL_METER_DEFAULT_HZ; /* the wire's default */
    return (float)HLD_NS_PER_S / hz;
}

void hld_metering_subscribed(hld_daemon_t *d, hld_conn_t *c) {
    if (!g.open || !(c->sub & HL_SUB_METER)) return;
    c->meter_next_ns = hld_now_ns(); /* the first event at the next tick */
    if (!g.timer_on && !d->shutting_down &&
        uv_timer_start(&g.timer, on_timer, HLD_METER_TICK_MS, HLD_METER_TICK_MS) == 0)
        g.timer_on = 1;
}

static void on_timer(uv_timer_t *t) {
    hld_daemon_t *d = t->data;
    uint64_t now = hld_now_ns();
    int subscribers = 0, due = 0;
    for (hld_conn_t *c = d->conns; c; c = c->next)
        if (c->sub & HL_SUB_METER) {
            subscribers++;
            due |= now >= c->meter_next_ns;
        }
    if (!subscribers || d->shutting_down) {
        uv_timer_stop(&g.timer);
        g.timer_on = 0;
        return;
    }
    if (!due) return;
    hld_metering_poll(d);
    static hl_event_t ev; /* ~3 KiB: off the stack */
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_METER;
    hld_metering_read(d, &ev.meter);
    hl_wbuf_t w;
    hl_wbuf_init(&w, g.frame, sizeof g.frame);
    hl_frame_begin(&w, HL_OP_EVENT, 0, 0);
    hl_put_event(&w, &ev);
    int len = hl_frame_end(&w);
    if (len < 0) {
        hld_warn("meters: cannot encode a METER event (%s)", hl_errname(len));
        return;
    }
    for (hld_conn_t *c = d->conns; c; c = c->next) {
        if (!(c->sub & HL_SUB_METER) || now < c->meter_next_ns) continue;
        /* next due time: keeps the average rate; after a stall, start afresh */
        uint64_t iv = (uint64_t)interval_ns(c);
        c->meter_next_ns = c->meter_next_ns + iv > now ? c->meter_next_ns + iv : now + iv;
        if (hld_conn_outq(c) > HLD_METER_OUTQ_MAX) {
            g.skipped++; /* a snapshot: the next one replaces it */
            continue;
        }
        if (hld_conn_send(c, g.frame, (size_t)len) == 0) g.sent++;
    }
    hld_conn_flush_all(d);
}

void hld_metering_stats(hld_daemon_t *d, hld_metering_stats_t *out) {
    out->events_sent = g.sent;
    out->events_skipped = g.skipped;
    out->coalesced = hld_meter_tap_coalesced(d->engine.tap);
    out->pcm_dropped = hld_meter_tap_dropped(d->engine.tap);
}

void hld_metering_close(hld_daemon_t *d) {
    (void)d;
    if (!g.timer_init) return;
    uv_timer_stop(&g.timer);
    g.timer_on = 0;
    if (!uv_is_closing((uv_handle_t *)&g.timer)) uv_close((uv_handle_t *)&g.timer, NULL);
}

void hld_metering_free(void) {
    for (int i = 0; i < HL_MIX_METERS; i++)
        hld_meter_free(&g.meter[i]);
    hld_loudness_destroy(g.loud);
    g.loud = NULL;
    g.open = 0;
}
