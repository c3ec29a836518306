/*
 * events.c - what the mixer and the voice manager report to the main
 * thread, and the voices the daemon ends on its own.
 *
 * The voice manager's callbacks (hld_vm_ops_t): a logical voice's event to
 * its owner and watchers (notify.c), the ledger following every voice, a
 * private sound released with its last voice, a stream given back (the
 * decoder's, or a client-fed one: stream_ops.c), a virtual stream voice
 * reopened (stream_jobs.c), a beat reported before a re-anchor (music.c).
 *
 * The mixer's event ring (hld_events_mix, every poll tick: loop.c): ENDED
 * and STREAM_RETIRED free the stream the mixer let go of; ENDED and STARTED
 * go to the voice manager; FX_RETIRED to the bus registry.
 *
 * Voices ended by the daemon: those of closed connections (the owner sweep,
 * retried while the command ring is full), detached loops older than
 * --detached-loop-max-s, and every voice at shutdown.
 */
#include "replies.h"
#include "daemon.h"
#include "dispatch_int.h"
#include "hld_limits.h"
#include "notify.h"
#include "stream_jobs.h"

/* hld_vm_ops_t.notify: a logical voice's event to its owner and watchers. */
static void vm_notify(void *user, uint32_t owner_id, uint16_t type, uint64_t voice, uint8_t reason,
                      uint64_t time_ns) {
    hld_daemon_t *d = user;
    hl_event_t out = {.type = type, .voice = voice, .reason = reason, .time_ns = time_ns};
    uint32_t bit = type == HL_EVENT_ENDED     ? HL_SUB_ENDED
                   : type == HL_EVENT_STARTED ? HL_SUB_STARTED
                                              : HL_SUB_VIRTUAL;
    hld_notify_watchers(&d->net, owner_id, bit, &out);
}

/* hld_vm_ops_t.charge: the ledger follows every logical voice's life. */
static void vm_charge(void *user, const hld_lvoice_t *lv, int delta) {
    hld_daemon_t *d = user;
    hld_clients_charge_voice(&d->ledger, lv->creator, lv->owner == 0, lv->is_stream, delta);
}

/* hld_vm_ops_t.sound_released: an orphaned private sound goes with its last voice. */
static void vm_sound_released(void *user, struct hld_sound *snd) {
    hld_daemon_t *d = user;
    hld_sounds_release(&d->sounds, snd);
}

/* hld_vm_ops_t.release_stream */
static void vm_release_stream(void *user, hl_stream_t *s) {
    hld_daemon_t *d = user;
    if (s && hld_cstream_is(s))
        hld_cstream_release(d, s, HL_END_STOPPED);
    else if (s)
        hld_dstream_release(&d->decoder, hld_dstream_from(s));
}

static void on_mix_event(void *user, const hl_mix_event_t *ev) {
    hld_daemon_t *d = user;
    /* the mixer is done with a stream (a voice ended or a seek replaced it) */
    if ((ev->type == HL_MIX_EV_STREAM_RETIRED || ev->type == HL_MIX_EV_ENDED) && ev->stream) {
        if (hld_cstream_is(ev->stream))
            hld_cstream_release(d, ev->stream, ev->reason);
        else
            hld_dstream_release(&d->decoder, hld_dstream_from(ev->stream));
    }
    if (ev->type == HL_MIX_EV_FX_RETIRED) {
        hld_buses_fx_retired(&d->buses, ev->fx);
        return;
    }
    if (ev->type != HL_MIX_EV_STREAM_RETIRED) hld_vm_on_mix_event(d->vm, ev);
}

void hld_events_mix(hld_daemon_t *d) {
    hl_mixer_poll(d->engine.mixer, on_mix_event, d);
}

static int owner_gone(void *user, const hld_lvoice_t *lv) {
    hld_daemon_t *d = user;
    return lv->owner != 0 && !hld_conn_find(&d->net, lv->owner);
}

static int owner_id_gone(void *user, uint32_t owner) {
    hld_daemon_t *d = user;
    return owner != 0 && !hld_conn_find(&d->net, owner);
}

/* Stops every active voice matching: orphans (owner gone) or all (shutdown).
 * Returns 0, or HELIOD_EBUSY if the command ring filled (try again later). */
static int stop_voices(hld_daemon_t *d, int all, int reason) {
    uint64_t now = hld_now_ns();
    if (!all && hld_vm_emitters_drop(d->vm, owner_id_gone, d, now) == HELIOD_EBUSY) {
        d->n.cmds_busy++;
        return HELIOD_EBUSY;
    }
    int rc = hld_vm_stop_matching(d->vm, all ? NULL : owner_gone, d,
                                  hld_ms_to_frames(d, HLD_OWNER_FADE_MS), reason, now);
    if (rc == HELIOD_EBUSY) {
        d->n.cmds_busy++;
        return rc;
    }
    return 0;
}

/* --detached-loop-max-s: detached voices looping forever end (with their
 * fade-out) once they are older than the cap; collected first, stopped
 * after the walk, at most EXPIRE_BATCH per check (the rest next time). */
#define EXPIRE_BATCH 64
typedef struct {
    uint64_t now, cap_ns;
    uint64_t voice[EXPIRE_BATCH];
    uint32_t n;
} expire_t;

static int expire_entry(void *user, uint64_t voice, const hld_lvoice_t *lv) {
    expire_t *x = user;
    if (lv->owner == 0 && lv->loops_left < 0 && lv->state != HLD_LV_FADING &&
        x->now - lv->born_ns >= x->cap_ns)
        x->voice[x->n++] = voice;
    return x->n == EXPIRE_BATCH;
}

void hld_events_expire(hld_daemon_t *d, uint64_t now) {
    if (!(d->cfg.detached_loop_max_s > 0) || now < d->expire_next_ns) return;
    d->expire_next_ns = now + HLD_LIFETIME_CHECK_MS * HLD_NS_PER_MS;
    expire_t x = {.now = now, .cap_ns = hld_frames_u64(d->cfg.detached_loop_max_s * 1e9)};
    hld_vm_foreach(d->vm, expire_entry, &x);
    for (uint32_t i = 0; i < x.n; i++) {
        hld_lvoice_t *lv = hld_vm_get(d->vm, x.voice[i]);
        if (!lv) continue;
        if (hld_vm_stop(d->vm, x.voice[i], lv->fade_out_frames, lv->fade_curve, HL_END_LIFETIME,
                        now) == 0)
            d->n.detached_expired++;
    }
}

int hld_events_stop_all(hld_daemon_t *d) {
    return stop_voices(d, 1, HL_END_SHUTDOWN);
}

void hld_events_owner_sweep(hld_daemon_t *d) {
    d->owner_sweep = 1; /* until its stops are all queued (retried while EBUSY) */
    if (!d->engine.mixer || !d->vm) return;
    if (stop_voices(d, 0, HL_END_OWNER) == 0) d->owner_sweep = 0;
}

int hld_events_busy(hld_daemon_t *d) {
    hl_mixer_t *mx = d->engine.mixer;
    uint32_t slots = hl_mixer_slots(mx);
    for (uint32_t i = 0; i < slots; i++) {
        hl_voice_view_t v;
        if (hl_mixer_slot_view(mx, i, &v) == 0 && v.state != HL_MIX_STATE_FREE) return 1;
    }
    return hld_vm_busy(d->vm);
}

/* The voice manager: logical voices over the mixer's real ones. */
int hld_events_vm_open(hld_daemon_t *d) {
    hld_vm_config_t vc = {
        .logical = d->cfg.virtual_voices,
        .floor_db = d->cfg.floor_db,
        .rate = d->engine.rate,
        .period = d->engine.period,
    };
    hld_vm_ops_t ops = {
        .user = d,
        .notify = vm_notify,
        .open_stream = hld_voice_open_stream,
        .release_stream = vm_release_stream,
        .sound_released = vm_sound_released,
        .charge = vm_charge,
        .beat = hld_music_vm_beat,
        .params_applied = hld_params_bus_apply,
    };
    d->vm = hld_vm_create(&vc, d->engine.mixer, &d->cues, &ops);
    return d->vm ? 0 : HELIOD_ENOMEM;
}
