/*
 * feeds.h - the subscriber scheduler: periodic events pushed to the
 * connections that subscribed to them, each connection at its own rate, on
 * one timer for all of them. A feed is one kind of event (METER from
 * metering.c, PROFILE from profile.c); its owner registers it once and
 * tells it when a connection subscribes.
 *
 *   timer (every HLD_METER_TICK_MS while any feed has a subscriber), per feed
 *   with a subscriber due: fill the event once, encode it once, queue the
 *   same bytes to each due subscriber whose unsent output is under
 *   HLD_METER_OUTQ_MAX (a snapshot: skipping one loses a refresh, nothing
 *   else); a subscriber's next due time keeps its average rate and, after a
 *   stall, starts afresh.
 *
 * Main thread only.
 */
#ifndef HLD_FEEDS_H
#define HLD_FEEDS_H

#include <stdint.h>

#include "conn.h"
#include "hl_proto.h"

typedef struct hld_feed hld_feed_t;
struct hld_feed {
    /* set by the owner before hld_feed_add */
    const char *name;  /* the log's prefix: "meters" */
    const char *event; /* the event's name in the log: "METER" */
    uint32_t sub;      /* the HL_SUB_* bit its subscribers set */
    uint32_t type;     /* HL_EVENT_*: the event it pushes */
    unsigned slot;     /* HLD_FEED_*: its subscribers' rate and due time, hld_conn_t.feed[] */
    float default_hz;  /* the rate of a subscriber that asked for 0 (the wire's default) */
    void (*fill)(const void *user, hl_event_t *ev); /* the event now (type already set) */
    const void *user;                               /* fill's argument (hld_feed_add) */
    /* counters */
    uint64_t sent, skipped; /* events queued; not queued (too much unsent output) */
    /* the scheduler's */
    hld_feed_t *next;
    int added;
};

/* A feed of event KIND (METER, PROFILE): its subscription bit, event type,
 * rate slot and default rate are HL_SUB_KIND, HL_EVENT_KIND, HLD_FEED_KIND
 * and HL_KIND_DEFAULT_HZ; NAME prefixes its log lines; FILL fills it. */
#define HLD_FEED(NAME, KIND, FILL)                                                                 \
    {                                                                                              \
        .name = NAME, .event = #KIND, .sub = HL_SUB_##KIND, .type = HL_EVENT_##KIND,               \
        .slot = HLD_FEED_##KIND, .default_hz = HL_##KIND##_DEFAULT_HZ, .fill = FILL                \
    }

/* Registers f, filled with user, for net's connections (the first one sets
 * the timer up on net's loop). */
void hld_feed_add(hld_net_t *net, hld_feed_t *f, const void *user);
/* A connection's SUBSCRIBE changed (its rates already stored): each feed it
 * subscribed to sends its first event at the next tick; starts the timer. */
void hld_feeds_subscribed(hld_conn_t *c);
/* Unregisters f; the last one stops the timer (shutdown; the loop closes
 * it). */
void hld_feed_remove(hld_feed_t *f);

#endif /* HLD_FEEDS_H */
