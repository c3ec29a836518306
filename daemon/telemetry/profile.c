/*
 * profile.c - PROFILE events (profile.h), a feed of the subscriber
 * scheduler (feeds.h) like METER events: one encoded event per tick with a
 * subscriber due, the same bytes queued to each of them.
 *
 * The window: the figures that are rates or distributions (callbacks, their
 * mean and longest, the load histogram, decoder CPU) cover the time since
 * the previous event was built, whoever it was for, so two subscribers at
 * different rates each see consecutive windows of the same series rather
 * than overlapping ones. The callback histogram is read raw (not the STATS
 * view, which a STATS reset rebases) and differenced here.
 */
#include "profile.h"

#include <string.h>

#include "conn.h"
#include "engine.h"
#include "feeds.h"
#include "hl_dsp.h"
#include "hld_limits.h"
#include "log.h"
#include "metering.h"
#include "vm.h"

static struct {
    /* the previous window's end */
    uint64_t at_ns, callbacks, cb_sum;
    uint64_t hist[HLD_CB_HIST_BUCKETS];
    double decoder_s;
} g;

static hld_feed_t feed;

void hld_profile_open(const hld_telemetry_t *t) {
    hld_feed_add(t->net, &feed, t);
    g.at_ns = hld_now_ns();
}

typedef struct {
    uint16_t real[HL_MAX_BUSES], virt[HL_MAX_BUSES];
} count_ctx_t;

static int count_voice(void *user, uint64_t voice, const hld_lvoice_t *lv) {
    (void)voice;
    count_ctx_t *x = user;
    uint32_t b = lv->p.bus;
    if (b >= HL_MAX_BUSES) return 0; /* on the master directly: counted in the totals */
    uint8_t st = hld_vm_state(lv);
    if (st == HL_VOICE_VIRTUAL || st == HL_VOICE_VPAUSED)
        x->virt[b]++;
    else
        x->real[b]++;
    return 0;
}

/* The callback figures of the window [g.at_ns, now]. */
static void read_window(hld_engine_t *e, hl_profile_t *out) {
    uint64_t cbs = atomic_load_explicit(&e->callbacks, memory_order_relaxed);
    uint64_t sum = atomic_load_explicit(&e->cb_ns_sum, memory_order_relaxed);
    double period_ns = (double)e->period * HLD_NS_PER_S / e->rate;
    uint64_t n = cbs - g.callbacks;
    out->load_now = n ? (float)((double)(sum - g.cb_sum) / (double)n / period_ns) : 0.0f;
    double longest = 0.0;
    uint64_t total = 0;
    for (unsigned b = 0; b < HLD_CB_HIST_BUCKETS; b++) {
        uint64_t h = atomic_load_explicit(&e->cb_hist[b], memory_order_relaxed);
        uint64_t dh = h - g.hist[b];
        g.hist[b] = h;
        if (!dh) continue;
        double ns = hld_engine_hist_ns(b);
        longest = ns;
        double bin = ns / period_ns * HL_PROFILE_HIST;
        unsigned k = bin >= HL_PROFILE_HIST - 1 ? HL_PROFILE_HIST - 1 : (unsigned)bin;
        uint64_t acc = out->hist[k] + dh;
        out->hist[k] = acc > UINT32_MAX ? UINT32_MAX : (uint32_t)acc;
        total += dh;
    }
    /* the count is the histogram's own: the audio thread bumps the callback
     * counter and the histogram one after the other, so reading both could
     * straddle a callback; the bins then add up to callbacks by construction */
    out->callbacks = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
    /* the bucket's middle may sit above the true maximum */
    double max_ns = (double)atomic_load_explicit(&e->cb_ns_max, memory_order_relaxed);
    if (longest > max_ns) longest = max_ns;
    out->load_peak = (float)(longest / period_ns);
    g.callbacks = cbs;
    g.cb_sum = sum;
}

void hld_profile_read(const hld_telemetry_t *t, hl_profile_t *out) {
    memset(out, 0, sizeof *out);
    hld_engine_t *e = t->engine;
    uint64_t now = hld_now_ns();
    double period_us = (double)e->period * HLD_MS_PER_S * HLD_MS_PER_S / e->rate;
    out->time_ns = now - t->start_ns;
    out->period_us = (float)period_us;
    read_window(e, out);

    hld_engine_stats_t es;
    hld_engine_stats(e, &es);
    out->load_p99 = (float)(es.p99_us / period_us);
    out->load_max = (float)(es.max_us / period_us);
    out->xruns = es.xruns;
    hl_mixer_stats_t ms;
    hl_mixer_stats(e->mixer, &ms);
    out->underruns = ms.underruns;

    hld_vm_stats_t vs;
    hld_vm_stats(t->vm, &vs);
    out->voices_real = vs.real;
    out->voices_virtual = vs.virtual_now;

    double dec_s = hld_decoder_cpu_s(t->decoder);
    double wall_s = (double)(now - g.at_ns) / HLD_NS_PER_S;
    out->decode_load = wall_s > 0.0 ? (float)((dec_s - g.decoder_s) / wall_s) : 0.0f;
    if (!(out->decode_load >= 0.0f)) out->decode_load = 0.0f;
    g.decoder_s = dec_s;
    g.at_ns = now;

    char names[HL_PROFILE_MAX_STREAMS][HL_MAX_NAME + 1];
    float fill[HL_PROFILE_MAX_STREAMS];
    uint32_t open = hld_decoder_fills(t->decoder, names, fill, HL_PROFILE_MAX_STREAMS);
    out->streams = open > UINT16_MAX ? UINT16_MAX : (uint16_t)open;
    out->nstreams = (uint8_t)(open < HL_PROFILE_MAX_STREAMS ? open : HL_PROFILE_MAX_STREAMS);
    for (unsigned i = 0; i < out->nstreams; i++) {
        /* a longer name is cut (the event's field is 63 bytes) */
        snprintf(out->stream[i].sound, sizeof out->stream[i].sound, "%.*s",
                 (int)sizeof out->stream[i].sound - 1, names[i]);
        out->stream[i].fill = fill[i];
    }

    static hl_meter_t m;       /* ~3 KiB: off the stack; main thread only */
    static hl_meter_more_t mo; /* the same: a surround layout's other channels */
    hld_metering_poll(t);
    hld_metering_read(t, &m, &mo);
    out->master_peak_db = hld_metering_louder(m.master.peak_db, &mo, mo.master.peak_db);
    out->master_rms_db = hld_metering_louder(m.master.rms_db, &mo, mo.master.rms_db);
    count_ctx_t x = {0};
    hld_vm_foreach(t->vm, count_voice, &x);
    for (int b = 0; b < HL_MAX_BUSES && out->nbuses < HL_PROFILE_MAX_BUSES; b++) {
        char lb[HL_MAX_NAME + 1];
        const char *name = hld_bus_label(t->buses, b, lb); /* one row per bus (METER's label) */
        if (!name) continue;
        hl_profile_bus_t *pb = &out->bus[out->nbuses++];
        snprintf(pb->name, sizeof pb->name, "%s", name);
        pb->peak_db = pb->peak_hold_db = pb->rms_db = HL_METER_FLOOR_DB;
        for (unsigned i = 0; i < m.nbuses; i++) /* live buses only: a dead one reads silence */
            if (strcmp(m.bus[i].name, name) == 0) {
                pb->peak_db = hld_metering_louder(m.bus[i].peak_db, &mo, mo.bus[i].peak_db);
                pb->peak_hold_db =
                    hld_metering_louder(m.bus[i].peak_hold_db, &mo, mo.bus[i].peak_hold_db);
                pb->rms_db = hld_metering_louder(m.bus[i].rms_db, &mo, mo.bus[i].rms_db);
                break;
            }
        pb->real = x.real[b];
        pb->virt = x.virt[b];
    }
}

static void fill_profile(const void *user, hl_event_t *ev) {
    const hld_telemetry_t *t = user;
    hld_profile_read(t, &ev->profile);
}

static hld_feed_t feed = HLD_FEED("profile", PROFILE, fill_profile);

void hld_profile_close(void) {
    hld_feed_remove(&feed);
}
