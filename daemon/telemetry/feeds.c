/*
 * feeds.c - the subscriber scheduler (feeds.h): one timer for every feed
 * (METER, PROFILE), one encoded event per feed and tick with a subscriber
 * due, the same bytes queued to each due subscriber.
 */
#include "feeds.h"

#include <string.h>

#include "replies.h"
#include "hld_limits.h"
#include "clock.h"
#include "log.h"

static struct {
    hld_net_t *net; /* the subscribers' layer */
    hld_feed_t *feeds;
    uv_timer_t timer;
    int timer_init, timer_on;
    hl_event_t ev; /* ~7 KiB (a PROFILE carries bus levels): off the stack */
    /* one encoded event per protocol minor (~4 KiB at 32 buses, ~8 KiB on 7.1.4): a
     * connection gets the body its minor knows (1.0: no METER channels; 1.1: 8 at most) */
    uint8_t frame[HL_PROTO_MINOR + 1][HL_MAX_FRAME / 4];
} g;

static void on_timer(uv_timer_t *t);

void hld_feed_add(hld_net_t *net, hld_feed_t *f, const void *user) {
    if (f->added) return;
    if (!g.timer_init) {
        uv_timer_init(net->loop, &g.timer);
        g.net = net;
        g.timer_init = 1;
    }
    f->user = user;
    f->next = g.feeds;
    g.feeds = f;
    f->added = 1;
}

void hld_feeds_subscribed(hld_conn_t *c) {
    int any = 0;
    for (hld_feed_t *f = g.feeds; f; f = f->next)
        if (c->sub & f->sub) {
            c->feed[f->slot].next_ns = hld_now_ns(); /* the first event at the next tick */
            any = 1;
        }
    if (any && !g.timer_on && !*c->net->shutting_down &&
        uv_timer_start(&g.timer, on_timer, HLD_METER_TICK_MS, HLD_METER_TICK_MS) == 0)
        g.timer_on = 1;
}

static float interval_ns(const hld_feed_t *f, const hld_conn_t *c) {
    const float hz = c->feed[f->slot].hz;
    return (float)HLD_NS_PER_S / (hz > 0.0f ? hz : f->default_hz);
}

/* f has a subscriber due at now: one event, queued to each due subscriber.
 * 1 if it was encoded (something may have been queued). */
static int feed_tick(hld_net_t *net, hld_feed_t *f, uint64_t now) {
    memset(&g.ev, 0, sizeof g.ev);
    g.ev.type = f->type;
    f->fill(f->user, &g.ev);
    int len[HL_PROTO_MINOR + 1] = {0}; /* 0: not encoded yet for that minor */
    len[HL_PROTO_MINOR] =
        hld_event_frame_minor(&g.ev, HL_PROTO_MINOR, g.frame[HL_PROTO_MINOR], sizeof g.frame[0]);
    if (len[HL_PROTO_MINOR] < 0) {
        hld_warn("%s: cannot encode a %s event (%s)", f->name, f->event,
                 hl_errname(len[HL_PROTO_MINOR]));
        return 0;
    }
    for (hld_conn_t *c = net->conns; c; c = c->next) {
        uint64_t *next = &c->feed[f->slot].next_ns;
        if (!(c->sub & f->sub) || now < *next) continue;
        /* events gain fields only for a connection whose minor knows them */
        const unsigned m = c->minor < HL_PROTO_MINOR ? c->minor : HL_PROTO_MINOR;
        if (len[m] == 0) len[m] = hld_event_frame_minor(&g.ev, m, g.frame[m], sizeof g.frame[m]);
        if (len[m] < 0) continue; /* cannot be: it is no longer than the one encoded */
        const uint8_t *fr = g.frame[m];
        size_t n = (size_t)len[m];
        /* next due time: keeps the average rate; after a stall, start afresh */
        uint64_t iv = (uint64_t)interval_ns(f, c);
        *next = *next + iv > now ? *next + iv : now + iv;
        if (hld_conn_outq(c) > HLD_METER_OUTQ_MAX) {
            f->skipped++; /* a snapshot: the next one replaces it */
            continue;
        }
        if (hld_conn_send(c, fr, n) == 0) f->sent++;
    }
    return 1;
}

static void on_timer(uv_timer_t *t) {
    (void)t;
    hld_net_t *net = g.net;
    uint64_t now = hld_now_ns();
    int subscribers = 0, queued = 0;
    for (hld_feed_t *f = g.feeds; f; f = f->next) {
        int n = 0, due = 0;
        for (hld_conn_t *c = net->conns; c; c = c->next)
            if (c->sub & f->sub) {
                n++;
                due |= now >= c->feed[f->slot].next_ns;
            }
        subscribers += n;
        if (n && due && !*net->shutting_down) queued |= feed_tick(net, f, now);
    }
    if (!subscribers || *net->shutting_down) {
        uv_timer_stop(&g.timer);
        g.timer_on = 0;
        return;
    }
    if (queued) hld_conn_flush_all(net);
}

void hld_feed_remove(hld_feed_t *f) {
    if (!f->added) return;
    for (hld_feed_t **p = &g.feeds; *p; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    f->added = 0;
    if (g.feeds || !g.timer_init) return;
    uv_timer_stop(&g.timer);
    g.timer_on = 0;
    if (!uv_is_closing((uv_handle_t *)&g.timer)) uv_close((uv_handle_t *)&g.timer, NULL);
}
