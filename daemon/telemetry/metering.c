/*
 * metering.c - meters and loudness on the main thread (metering.h).
 *
 * The level records come one per audio-thread call (or a few folded into
 * one when the main thread was late, see meter_tap.h); each feeds the
 * ballistics of every live bus and of the master. The output frames go
 * straight into libebur128 through loudness.c. Both are drained at every
 * poll tick, so STATS is always current, and again just before a METER
 * event is built. METER events are a feed of the subscriber scheduler
 * (feeds.h): one event per tick with a subscriber due, the same bytes
 * queued to each of them.
 */
#include "metering.h"

#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "feeds.h"
#include "hl_layout.h"
#include "hld_limits.h"
#include "log.h"
#include "loudness.h"
#include "meter_tap.h"
#include "meters.h"

_Static_assert(HL_MAX_BUSES <= HL_METER_MAX_BUSES, "a METER event carries every bus");
_Static_assert(HL_MIX_MAX_CH <= HL_METER_MAX_CH && HL_MIX_MAX_CH <= HLD_METER_CHANNELS,
               "the meters carry every channel of the layout");

#define DRAIN_BATCH 32 /* level records copied out at a time */

static struct {
    int open;
    hld_meter_t meter[HL_MIX_METERS]; /* buses by index, then the master */
    uint32_t live;                    /* buses being metered (bit per bus) */
    uint32_t channels;                /* the layout's: each meter's */
    hld_loudness_t *loud;
} g;

static hld_feed_t feed;

int hld_metering_open(const hld_telemetry_t *t) {
    uint32_t rate = t->engine->rate;
    /* every channel of the layout, on every bus and the master */
    g.channels = t->engine->channels > 2 ? t->engine->channels : 2;
    for (int i = 0; i < HL_MIX_METERS; i++)
        if (hld_meter_init_ch(&g.meter[i], rate, g.channels, HLD_METER_WINDOW_MS, HLD_METER_HOLD_MS,
                              HLD_METER_FALL_DB_S) != 0) {
            hld_metering_free();
            return HELIOD_ENOMEM;
        }
    /* every output channel, BS.1770-4 weighted (the tap carries them all) */
    const int lay = hl_layout_for_channels(t->engine->channels);
    g.loud = hld_loudness_create_layout(rate, lay > 0 ? (uint32_t)lay : 0);
    if (!g.loud) {
        hld_metering_free();
        return HELIOD_ENOMEM;
    }
    hld_feed_add(t->net, &feed, t);
    g.open = 1;
    return 0;
}

const char *hld_metering_bus_name(const hld_telemetry_t *t, uint32_t b, char *buf) {
    const char *n = hld_bus_label(t->buses, (int)b, buf); /* the registry's label (buses.c) */
    if (n) return n;
    snprintf(buf, HL_MAX_NAME + 1, "bus%u", b);
    return buf;
}

/* Live buses now; one that just became live starts from silence. */
static void track_live(const hld_telemetry_t *t) {
    uint32_t live = 0;
    for (int b = 0; b < HL_MAX_BUSES; b++)
        if (hl_mixer_bus_live(t->engine->mixer, b)) live |= 1u << b;
    uint32_t born = live & ~g.live;
    for (int b = 0; b < HL_MAX_BUSES; b++)
        if (born >> b & 1u) hld_meter_reset(&g.meter[b]);
    g.live = live;
}

void hld_metering_poll(const hld_telemetry_t *t) {
    hld_meter_tap_t *tap = t->engine->tap;
    if (!g.open || !tap) return;
    track_live(t);
    hl_mix_meter_t rec[DRAIN_BATCH];
    uint32_t n;
    while ((n = hld_meter_tap_read_levels(tap, rec, DRAIN_BATCH)) > 0)
        for (uint32_t k = 0; k < n; k++) {
            const hl_mix_meter_t *r = &rec[k];
            for (int i = 0; i < HL_MIX_METERS; i++)
                if (i == HL_MIX_METER_MASTER || (g.live >> i & 1u))
                    hld_meter_feed_ch(&g.meter[i], r->peak[i], r->sumsq[i], r->frames,
                                      r->now_frames);
        }
    hl_ring_spans_t s;
    uint32_t frames = hld_meter_tap_read_pcm(tap, &s);
    if (frames) {
        hld_loudness_feed(g.loud, s.p1, s.n1);
        if (s.n2) hld_loudness_feed(g.loud, s.p2, s.n2);
        hld_meter_tap_pcm_done(tap, frames);
    }
}

/* A meter's readings: the front pair into l, the rest (if any) into r. */
static void read_level(const hld_meter_t *m, hl_meter_level_t *l, hl_meter_rest_t *r) {
    float pk[HLD_METER_CHANNELS], hold[HLD_METER_CHANNELS], rms[HLD_METER_CHANNELS];
    hld_meter_read(m, pk, hold, rms);
    for (int c = 0; c < 2; c++) {
        l->peak_db[c] = pk[c];
        l->peak_hold_db[c] = hold[c];
        l->rms_db[c] = rms[c];
    }
    for (uint32_t c = 2; r && c < m->nch; c++) {
        r->peak_db[c - 2] = pk[c];
        r->peak_hold_db[c - 2] = hold[c];
        r->rms_db[c - 2] = rms[c];
    }
}

float hld_metering_louder(const float front[2], const hl_meter_more_t *more, const float *rest) {
    float top = front[0] > front[1] ? front[0] : front[1];
    for (uint32_t c = 2; more && c < more->channels; c++)
        top = rest[c - 2] > top ? rest[c - 2] : top;
    return top;
}

void hld_metering_read(const hld_telemetry_t *t, hl_meter_t *out, hl_meter_more_t *more) {
    memset(out, 0, sizeof *out);
    if (more) {
        memset(more, 0, sizeof *more);
        more->channels = (uint8_t)(g.open ? g.channels : 2);
    }
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
    read_level(&g.meter[HL_MIX_METER_MASTER], &out->master, more ? &more->master : NULL);
    for (uint32_t b = 0; b < HL_MAX_BUSES; b++) {
        if (!(g.live >> b & 1u)) continue;
        hl_meter_rest_t *rest = more ? &more->bus[out->nbuses] : NULL;
        hl_meter_level_t *l = &out->bus[out->nbuses++];
        char buf[HL_MAX_NAME + 1];
        snprintf(l->name, sizeof l->name, "%s", hld_metering_bus_name(t, b, buf));
        read_level(&g.meter[b], l, rest);
    }
}

void hld_metering_reset_loudness(const hld_telemetry_t *t) {
    if (!g.open) return;
    hld_metering_poll(t); /* what came before the reset is not measured after it */
    hld_loudness_reset(g.loud);
}

static void fill_meter(const void *user, hl_event_t *ev) {
    const hld_telemetry_t *t = user;
    hld_metering_poll(t);
    hld_metering_read(t, &ev->meter, &ev->meter_more);
}

static hld_feed_t feed = HLD_FEED("meters", METER, fill_meter);

void hld_metering_stats(const hld_telemetry_t *t, hld_metering_stats_t *out) {
    out->events_sent = feed.sent;
    out->events_skipped = feed.skipped;
    out->coalesced = hld_meter_tap_coalesced(t->engine->tap);
    out->pcm_dropped = hld_meter_tap_dropped(t->engine->tap);
}

void hld_metering_close(void) {
    hld_feed_remove(&feed);
}

void hld_metering_free(void) {
    for (int i = 0; i < HL_MIX_METERS; i++)
        hld_meter_free(&g.meter[i]);
    hld_loudness_destroy(g.loud);
    g.loud = NULL;
    g.open = 0;
}
