/*
 * heliod_events.c - libheliod's events: heliod_set_event_callback and the
 * sink the transport core hands each decoded event to, which turns it into
 * the public heliod_event_t (heliod_conv.h) for the application's callback.
 * The core knows only the sink's pointer, never this file.
 */
#include "heliod.h"
#include "heliod_conv.h"
#include "heliod_int.h"

#include "hl_proto.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(HELIOD_SUB_BANK == HL_SUB_BANK && HELIOD_SUB_ZONES == HL_SUB_ZONES &&
                   HELIOD_EVENT_BANK == HL_EVENT_BANK &&
                   HELIOD_EVENT_ZONE_TICK == HL_EVENT_ZONE_TICK && HELIOD_LOAD_PIN == HL_LOAD_PIN &&
                   HELIOD_EVENT_RELOAD == HL_EVENT_RELOAD,
               "asset subscriptions, events and flags are the wire's");
_Static_assert(HELIOD_SUB_METER == HL_SUB_METER && HELIOD_EVENT_METER == HL_EVENT_METER &&
                   HELIOD_METER_MAX_BUSES == HL_METER_MAX_BUSES,
               "meter subscription and event are the wire's");
_Static_assert(HELIOD_SUB_PROFILE == HL_SUB_PROFILE && HELIOD_EVENT_PROFILE == HL_EVENT_PROFILE &&
                   HELIOD_PROFILE_HIST == HL_PROFILE_HIST &&
                   HELIOD_PROFILE_MAX_STREAMS == HL_PROFILE_MAX_STREAMS &&
                   HELIOD_PROFILE_MAX_BUSES == HL_PROFILE_MAX_BUSES,
               "profile subscription and event are the wire's");
_Static_assert(HELIOD_SUB_MUSIC == HL_SUB_MUSIC && HELIOD_EVENT_BEAT == HL_EVENT_BEAT &&
                   HELIOD_EVENT_BAR == HL_EVENT_BAR && HELIOD_EVENT_MARKER == HL_EVENT_MARKER,
               "music subscription and events are the wire's");

/* A BEAT or BAR event as the callback gets it: the public event first, its
 * beat beside it (heliod_event_beat finds it from the event's address). */
#define BEAT_MAGIC 0x6265617475736963ull
typedef struct {
    heliod_event_t ev;
    uint64_t magic;
    heliod_beat_t beat;
} beat_event_t;

const heliod_beat_t *heliod_event_beat(const heliod_event_t *ev) {
    if (!ev || (ev->type != HELIOD_EVENT_BEAT && ev->type != HELIOD_EVENT_BAR &&
                ev->type != HELIOD_EVENT_MARKER))
        return NULL;
    const beat_event_t *be = (const beat_event_t *)(const void *)ev;
    return be->magic == BEAT_MAGIC ? &be->beat : NULL;
}

/* A METER event's meter as the callback gets it: the public meter first,
 * every channel beside it (heliod_meter_channels finds them from its address). */
#define METER_MAGIC 0x6d65746572636873ull
typedef struct {
    heliod_meter_t meter;
    uint64_t magic;
    heliod_meter_channels_t ch;
    heliod_meter_all_t all;
} meter_event_t;
_Static_assert(HELIOD_METER_ALL_CH == HL_METER_MAX_CH, "a level's channels are the wire's");

const heliod_meter_channels_t *heliod_meter_channels(const heliod_meter_t *meter) {
    if (!meter) return NULL;
    const meter_event_t *me = (const meter_event_t *)(const void *)meter;
    return me->magic == METER_MAGIC ? &me->ch : NULL;
}

const heliod_meter_all_t *heliod_meter_all(const heliod_meter_t *meter) {
    if (!meter) return NULL;
    const meter_event_t *me = (const meter_event_t *)(const void *)meter;
    return me->magic == METER_MAGIC ? &me->all : NULL;
}

/* A level's front pair (w) and the channels past it (r, n - 2 of them),
 * the first n into o (channels 0..n-1), the first HELIOD_METER_MAX_CH into c. */
static void level_ch(const hl_meter_level_t *w, const hl_meter_rest_t *r, unsigned n,
                     heliod_level_all_t *o, heliod_level_ch_t *c8) {
    memset(o, 0, sizeof *o);
    memset(c8, 0, sizeof *c8);
    const float *f[3] = {w->peak_db, w->peak_hold_db, w->rms_db};
    const float *x[3] = {r->peak_db, r->peak_hold_db, r->rms_db};
    float *d[3] = {o->peak_db, o->peak_hold_db, o->rms_db};
    float *e[3] = {c8->peak_db, c8->peak_hold_db, c8->rms_db};
    for (int k = 0; k < 3; k++)
        for (unsigned c = 0; c < n; c++) {
            d[k][c] = c < 2 ? f[k][c] : x[k][c - 2];
            if (c < HELIOD_METER_MAX_CH) e[k][c] = d[k][c];
        }
}

/* The core's event sink: one event for fn (never NULL here). */
static void event_sink(heliod_t *h, uint32_t request_id, const hl_event_t *e, heliod_event_fn fn,
                       void *user) {
    meter_event_t meter; /* ~11 KiB on the stack, so a callback may call back into the library */
    heliod_event_t ev = {
        .type = e->type,
        .request_id = e->type == HL_EVENT_ERROR ? request_id : 0,
        .status = e->status,
        .message = e->type == HL_EVENT_ERROR || e->type == HL_EVENT_DEVICE_LOST ||
                           e->type == HL_EVENT_DEVICE_BACK || e->type == HL_EVENT_RELOAD
                       ? e->message
                   : e->type == HL_EVENT_ZONE_TICK ? e->report
                                                   : NULL,
        .voice = e->voice,
        .reason = e->reason,
        .time_ns = e->time_ns,
        .sound = e->type == HL_EVENT_RELOAD ? e->sound : NULL,
        .frames = e->frames,
    };
    if (e->type == HL_EVENT_MARKER) {
        beat_event_t be = {
            .ev = ev,
            .beat = {
                .voice = e->voice, .frame = e->frame, .time_ns = e->time_ns, .beat = e->marker_id}};
        be.ev.message = e->label;
        be.ev.frames = e->marker_id;
        be.magic = BEAT_MAGIC;
        fn(user, &be.ev);
        return;
    }
    if (e->type == HL_EVENT_BEAT || e->type == HL_EVENT_BAR) {
        beat_event_t be = {.ev = ev,
                           .beat = {.voice = e->voice,
                                    .frame = e->frame,
                                    .time_ns = e->time_ns,
                                    .beat = e->beat,
                                    .bar = e->bar,
                                    .beat_in_bar = e->beat_in_bar,
                                    .bpm = e->bpm}};
        be.ev.reason = e->beat_in_bar;
        be.ev.frames = e->bar;
        be.magic = BEAT_MAGIC;
        fn(user, &be.ev);
        return;
    }
    if (e->type == HL_EVENT_METER) {
        hlc_from_meter_event(&e->meter, &meter.meter);
        meter.magic = METER_MAGIC;
        const hl_meter_more_t *mo = &e->meter_more;
        const unsigned n = mo->channels > 2 ? mo->channels : 2;
        meter.all.channels = n;
        meter.ch.channels = n < HELIOD_METER_MAX_CH ? n : HELIOD_METER_MAX_CH; /* 7.1.4: its bed */
        level_ch(&e->meter.master, &mo->master, n, &meter.all.master, &meter.ch.master);
        for (unsigned i = 0; i < e->meter.nbuses && i < HELIOD_METER_MAX_BUSES; i++)
            level_ch(&e->meter.bus[i], &mo->bus[i], n, &meter.all.bus[i], &meter.ch.bus[i]);
        ev.meter = &meter.meter;
    }
    if (e->type == HL_EVENT_BANK) {
        heliod_bank_info_t *bank = malloc(sizeof *bank); /* ~4 KiB (a path): not on the stack */
        if (!bank) {
            hlc_conn_fail(h, HELIOD_ENOMEM);
            return;
        }
        hlc_from_bank_info(&e->bank, bank);
        ev.bank = bank;
        fn(user, &ev);
        free(bank);
        return;
    }
    if (e->type == HL_EVENT_PROFILE) {
        heliod_profile_t *prof = malloc(sizeof *prof); /* ~5 KiB: the stack holds two events */
        if (!prof) {
            hlc_conn_fail(h, HELIOD_ENOMEM);
            return;
        }
        hlc_from_profile_event(&e->profile, prof);
        ev.profile = prof;
        fn(user, &ev);
        free(prof);
        return;
    }
    fn(user, &ev);
}

void heliod_set_event_callback(heliod_t *h, heliod_event_fn fn, void *user) {
    hlc_set_event_sink(h, event_sink, fn, user);
}
