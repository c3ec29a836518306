/*
 * events.c - the main thread's periodic work and the daemon's lifecycle.
 *
 * A uv_timer fires about once per device period: it drains the mixer's event
 * ring (ENDED and STREAM_RETIRED free the stream the mixer let go of; ENDED
 * and STARTED go to the voice manager, which notifies owners and watchers
 * through vm_notify), retries fading out the voices of closed connections if
 * the command ring was full, runs the voice manager's tick (ranking, virtual
 * voices) and flushes the replies. A
 * uv_async wakes the loop when the decoder pool finished opening a streamed
 * play or seek; its handler runs their completions (dispatch.c).
 *
 * Shutdown (SIGINT/SIGTERM):
 *   t=0      stop accepting; every voice gets a HLD_OWNER_FADE_MS fade,
 *            reason SHUTDOWN; sd_notify STOPPING=1
 *   t<=150ms every HLD_SHUTDOWN_TICK_MS: poll events; once no slot holds a
 *            voice (or HLD_SHUTDOWN_WAIT_MS passed): stop the device,
 *            finalise the recording, answer the finished stream opens
 *            (ESHUTDOWN), close every connection and handle, and let uv_run
 *            return (opens still queued are answered by hld_decoder_stop).
 */
#include <string.h>

#include "conn.h"
#include "daemon.h"
#include "hl_config.h"
#include "hld_limits.h"
#include "log.h"

#if HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

static void send_event(hld_conn_t *c, const hl_event_t *ev) {
    static uint8_t buf[HL_MAX_FRAME / 16]; /* events are small; main thread only */
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_EVENT, 0, 0);
    hl_put_event(&w, ev);
    int n = hl_frame_end(&w);
    if (n > 0) hld_conn_send(c, buf, (size_t)n);
}

/* Sends ev (of subscription bit `bit`) to the voice's owner if it subscribed,
 * and to every other connection that watches all voices (HL_SUB_ALL). */
static void notify(hld_daemon_t *d, hld_conn_t *owner, uint32_t bit, const hl_event_t *ev) {
    if (owner && (owner->sub & bit)) send_event(owner, ev);
    for (hld_conn_t *c = d->conns; c; c = c->next)
        if (c != owner && (c->sub & HL_SUB_ALL) && (c->sub & bit)) send_event(c, ev);
}

/* hld_vm_ops_t.notify: a logical voice's event to its owner and watchers. */
static void vm_notify(void *user, uint32_t owner_id, uint16_t type, uint64_t voice, uint8_t reason,
                      uint64_t time_ns) {
    hld_daemon_t *d = user;
    hld_conn_t *owner = owner_id ? hld_conn_find(d, owner_id) : NULL;
    hl_event_t out = {.type = type, .voice = voice, .reason = reason, .time_ns = time_ns};
    uint32_t bit = type == HL_EVENT_ENDED     ? HL_SUB_ENDED
                   : type == HL_EVENT_STARTED ? HL_SUB_STARTED
                                              : HL_SUB_VIRTUAL;
    notify(d, owner, bit, &out);
}

/* hld_vm_ops_t.release_stream */
static void vm_release_stream(void *user, hl_stream_t *s) {
    hld_daemon_t *d = user;
    if (s) hld_dstream_release(&d->decoder, hld_dstream_from(s));
}

static void on_mix_event(void *user, const hl_mix_event_t *ev) {
    hld_daemon_t *d = user;
    /* the mixer is done with a stream (a voice ended or a seek replaced it) */
    if ((ev->type == HL_MIX_EV_STREAM_RETIRED || ev->type == HL_MIX_EV_ENDED) && ev->stream)
        hld_dstream_release(&d->decoder, hld_dstream_from(ev->stream));
    if (ev->type != HL_MIX_EV_STREAM_RETIRED) hld_vm_on_mix_event(d->vm, ev);
}

static int owner_gone(void *user, const hld_lvoice_t *lv) {
    hld_daemon_t *d = user;
    return lv->owner != 0 && !hld_conn_find(d, lv->owner);
}

static int owner_id_gone(void *user, uint32_t owner) {
    hld_daemon_t *d = user;
    return owner != 0 && !hld_conn_find(d, owner);
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

void hld_events_owner_sweep(hld_daemon_t *d) {
    if (!d->engine.mixer || !d->vm) return;
    if (stop_voices(d, 0, HL_END_OWNER) == 0) d->owner_sweep = 0;
}

static int slots_busy(hld_daemon_t *d) {
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
    };
    d->vm = hld_vm_create(&vc, d->engine.mixer, &d->cues, &ops);
    return d->vm ? 0 : HELIOD_ENOMEM;
}

static void on_handle_closed(uv_handle_t *h) {
    (void)h;
}

/* Decoder thread, pool lock held: wake the loop (uv_async_send is the one
 * thread-safe libuv call; it coalesces). */
static void wake_main(void *user) {
    hld_daemon_t *d = user;
    uv_async_send(&d->decoder_async);
}

static void on_decoder_done(uv_async_t *a) {
    hld_daemon_t *d = a->data;
    hld_decoder_complete(&d->decoder);
}

static void finish_shutdown(hld_daemon_t *d) {
    d->shutting_down = 2;
    hld_engine_stop(&d->engine);
    hl_mixer_poll(d->engine.mixer, on_mix_event, d);
    hld_decoder_set_notify(&d->decoder, NULL, NULL);
    hld_decoder_complete(&d->decoder);
    hld_conn_flush_all(d);
    hld_conn_close_all(d);
    uv_timer_stop(&d->poll_timer);
    uv_close((uv_handle_t *)&d->poll_timer, on_handle_closed);
    uv_close((uv_handle_t *)&d->sig_int, on_handle_closed);
    uv_close((uv_handle_t *)&d->sig_term, on_handle_closed);
    if (d->decoder_async_open) uv_close((uv_handle_t *)&d->decoder_async, on_handle_closed);
    d->decoder_async_open = 0;
    hld_info("stopped after %.0f ms",
             (double)(hld_now_ns() - d->shutdown_start_ns) / HLD_NS_PER_MS);
}

static void on_poll(uv_timer_t *t) {
    hld_daemon_t *d = t->data;
    if (d->shutting_down == 2) return;
    hl_mixer_poll(d->engine.mixer, on_mix_event, d);
    if (d->owner_sweep) hld_events_owner_sweep(d);
    if (!d->shutting_down) hld_vm_tick(d->vm, hld_now_ns());
    if (d->shutting_down) {
        if (d->shutdown_stop_pending && stop_voices(d, 1, HL_END_SHUTDOWN) == 0)
            d->shutdown_stop_pending = 0;
        uint64_t waited = hld_now_ns() - d->shutdown_start_ns;
        if ((!d->shutdown_stop_pending && !slots_busy(d)) ||
            waited >= HLD_SHUTDOWN_WAIT_MS * HLD_NS_PER_MS) {
            finish_shutdown(d);
            return;
        }
    }
    hld_conn_flush_all(d);
}

void hld_events_shutdown(hld_daemon_t *d) {
    if (d->shutting_down) return;
    d->shutting_down = 1;
    d->shutdown_start_ns = hld_now_ns();
    hld_info("shutting down");
#if HAVE_LIBSYSTEMD
    sd_notify(0, "STOPPING=1");
#endif
    hld_server_close(d);
    d->shutdown_stop_pending = stop_voices(d, 1, HL_END_SHUTDOWN) != 0;
    uv_timer_stop(&d->poll_timer);
    uv_timer_start(&d->poll_timer, on_poll, HLD_SHUTDOWN_TICK_MS, HLD_SHUTDOWN_TICK_MS);
}

static void on_signal(uv_signal_t *s, int signum) {
    hld_daemon_t *d = s->data;
    hld_debug("signal %d", signum);
    hld_events_shutdown(d);
}

int hld_events_start(hld_daemon_t *d) {
    uint64_t ms = (uint64_t)d->engine.period * (uint64_t)HLD_MS_PER_S / d->engine.rate;
    if (ms < HLD_POLL_MIN_MS) ms = HLD_POLL_MIN_MS;
    uv_timer_init(d->loop, &d->poll_timer);
    d->poll_timer.data = d;
    if (uv_async_init(d->loop, &d->decoder_async, on_decoder_done) != 0) return HELIOD_EIO;
    d->decoder_async.data = d;
    d->decoder_async_open = 1;
    hld_decoder_set_notify(&d->decoder, wake_main, d);
    uv_signal_init(d->loop, &d->sig_int);
    uv_signal_init(d->loop, &d->sig_term);
    d->sig_int.data = d->sig_term.data = d;
    if (uv_timer_start(&d->poll_timer, on_poll, ms, ms) != 0 ||
        uv_signal_start(&d->sig_int, on_signal, SIGINT) != 0 ||
        uv_signal_start(&d->sig_term, on_signal, SIGTERM) != 0)
        return HELIOD_EIO;
    return 0;
}
