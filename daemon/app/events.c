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
 *   t=750ms  if the process is still there (a loader or decoder thread hung
 *            in I/O keeps uv_run or a join from returning), the shutdown
 *            guard thread started at t=0 finalises the recording (bounded,
 *            HLD_SHUTDOWN_FINAL_MS), logs shutdown_ms and calls _exit: the
 *            process is gone within 1 s whatever its threads are stuck in.
 *
 * systemd watchdog (Type=notify, WatchdogSec=): a uv_timer at half of
 * WATCHDOG_USEC sends WATCHDOG=1 only if the engine's callback counter moved
 * since the last ping, so a ping proves both the event loop (the timer ran)
 * and the audio thread (it rendered) are alive.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replies.h"
#include "capture.h"
#include "daemon.h"
#include "dispatch.h"
#include "device.h"
#include "hl_config.h"
#include "hld_limits.h"
#include "log.h"
#include "metering.h"
#include "profile.h"

#if HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

void hld_events_send(hld_conn_t *c, const hl_event_t *ev) {
    static uint8_t buf[HL_MAX_FRAME / 16]; /* events are small; main thread only */
    int n = hld_event_frame(ev, buf, sizeof buf);
    if (n > 0) hld_conn_send(c, buf, (size_t)n);
}

/* Sends ev (of subscription bit `bit`) to the voice's owner if it subscribed,
 * and to every other connection that watches all voices (HL_SUB_ALL). */
static void notify(hld_daemon_t *d, hld_conn_t *owner, uint32_t bit, const hl_event_t *ev) {
    if (owner && (owner->sub & bit)) hld_events_send(owner, ev);
    for (hld_conn_t *c = d->net.conns; c; c = c->next)
        if (c != owner && (c->sub & HL_SUB_ALL) && (c->sub & bit)) hld_events_send(c, ev);
}

/* hld_vm_ops_t.notify: a logical voice's event to its owner and watchers. */
static void vm_notify(void *user, uint32_t owner_id, uint16_t type, uint64_t voice, uint8_t reason,
                      uint64_t time_ns) {
    hld_daemon_t *d = user;
    hld_conn_t *owner = owner_id ? hld_conn_find(&d->net, owner_id) : NULL;
    hl_event_t out = {.type = type, .voice = voice, .reason = reason, .time_ns = time_ns};
    uint32_t bit = type == HL_EVENT_ENDED     ? HL_SUB_ENDED
                   : type == HL_EVENT_STARTED ? HL_SUB_STARTED
                                              : HL_SUB_VIRTUAL;
    notify(d, owner, bit, &out);
}

/* hld_vm_ops_t.release_stream */
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

static void expire_detached_loops(hld_daemon_t *d, uint64_t now) {
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

void hld_events_owner_sweep(hld_daemon_t *d) {
    d->owner_sweep = 1; /* until its stops are all queued (retried while EBUSY) */
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
        .sound_released = vm_sound_released,
        .charge = vm_charge,
        .beat = hld_music_vm_beat,
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

/* ---- systemd watchdog ---------------------------------------------------- */

static uv_timer_t g_wd_timer;
static int g_wd_open, g_wd_stall_logged;
static uint64_t g_wd_last_callbacks, g_wd_interval_ms;

#if HAVE_LIBSYSTEMD
static void on_watchdog(uv_timer_t *t) {
    hld_daemon_t *d = t->data;
    uint64_t cb = atomic_load_explicit(&d->engine.callbacks, memory_order_relaxed);
    if (cb != g_wd_last_callbacks) {
        g_wd_last_callbacks = cb;
        g_wd_stall_logged = 0;
        sd_notify(0, "WATCHDOG=1");
    } else if (!g_wd_stall_logged) {
        hld_warn("audio thread stalled (no callback in %llu ms): withholding the watchdog ping",
                 (unsigned long long)g_wd_interval_ms);
        g_wd_stall_logged = 1;
    }
}
#endif

static int watchdog_start(hld_daemon_t *d) {
#if HAVE_LIBSYSTEMD
    uint64_t usec = 0;
    if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return 0;
    g_wd_interval_ms = usec / 2 / 1000;
    if (g_wd_interval_ms < HLD_WATCHDOG_MIN_MS) g_wd_interval_ms = HLD_WATCHDOG_MIN_MS;
    uv_timer_init(d->loop, &g_wd_timer);
    g_wd_timer.data = d;
    g_wd_open = 1;
    g_wd_last_callbacks = atomic_load_explicit(&d->engine.callbacks, memory_order_relaxed);
    if (uv_timer_start(&g_wd_timer, on_watchdog, g_wd_interval_ms, g_wd_interval_ms) != 0)
        return HELIOD_EIO;
    hld_info("systemd watchdog: WATCHDOG=1 every %llu ms while the audio thread runs",
             (unsigned long long)g_wd_interval_ms);
#else
    (void)d;
#endif
    return 0;
}

static void watchdog_close(void) {
    if (!g_wd_open) return;
    uv_timer_stop(&g_wd_timer);
    uv_close((uv_handle_t *)&g_wd_timer, on_handle_closed);
    g_wd_open = 0;
}

/* ---- shutdown guard ------------------------------------------------------- */

static uint64_t g_guard_start_ns;
static int g_guard_exit_code;
static unsigned g_test_stall_ms; /* HELIOD_TEST_SHUTDOWN_STALL_MS (tests only) */
static sem_t g_final_done;
static atomic_int g_final_rc;

static void sleep_until_ns(uint64_t t) {
    struct timespec ts = {(time_t)(t / HLD_NS_PER_S), (long)(t % HLD_NS_PER_S)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static void *final_thread(void *arg) {
    (void)arg;
    atomic_store(&g_final_rc, hld_recorder_finalise_live(HLD_SHUTDOWN_FINAL_MS));
    sem_post(&g_final_done);
    return NULL;
}

/* Sleeps until HLD_SHUTDOWN_HARD_MS after the shutdown began; if the process
 * still exists then, the orderly teardown is stuck (a thread in hung I/O):
 * finalise the recording on a helper thread, waiting at most
 * HLD_SHUTDOWN_FINAL_MS for it (sf_close itself may hang), and exit. */
static void *guard_thread(void *arg) {
    (void)arg;
    sleep_until_ns(g_guard_start_ns + HLD_SHUTDOWN_HARD_MS * HLD_NS_PER_MS);
    hld_warn("shutdown: teardown still running after %d ms: exiting without waiting for it",
             HLD_SHUTDOWN_HARD_MS);
    atomic_store(&g_final_rc, -1);
    pthread_t t;
    int fin = -1;
    if (sem_init(&g_final_done, 0, 0) == 0 && pthread_create(&t, NULL, final_thread, NULL) == 0) {
        pthread_detach(t);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until); /* sem_timedwait's clock */
        uint64_t ns = (uint64_t)until.tv_nsec + HLD_SHUTDOWN_FINAL_MS * HLD_NS_PER_MS;
        until.tv_sec += (time_t)(ns / HLD_NS_PER_S);
        until.tv_nsec = (long)(ns % HLD_NS_PER_S);
        while ((fin = sem_timedwait(&g_final_done, &until)) != 0 && errno == EINTR) {
        }
        if (fin == 0) fin = atomic_load(&g_final_rc);
    }
    hld_info("stopped (hard exit), shutdown_ms=%.0f, %s",
             (double)(hld_now_ns() - g_guard_start_ns) / HLD_NS_PER_MS,
             fin == 0   ? "recording finalised"
             : fin == 1 ? "no recording open"
                        : "recording NOT finalised");
    fflush(stderr);
    _exit(g_guard_exit_code);
}

static void guard_start(hld_daemon_t *d) {
    g_guard_start_ns = d->shutdown_start_ns;
    g_guard_exit_code = d->exit_code;
    pthread_t t;
    pthread_attr_t a;
    if (pthread_attr_init(&a) != 0) return;
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, HLD_GUARD_STACK);
    if (pthread_create(&t, &a, guard_thread, NULL) != 0)
        hld_warn("shutdown: cannot start the guard thread: shutdown is not time-bounded");
    else
        pthread_setname_np(t, "heliod-guard");
    pthread_attr_destroy(&a);
}

static void finish_shutdown(hld_daemon_t *d) {
    d->shutting_down = 2;
    if (g_test_stall_ms) { /* tests: a teardown that hangs before the recording is final */
        struct timespec ts = {(time_t)(g_test_stall_ms / 1000),
                              (long)(g_test_stall_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
    watchdog_close();
    hld_metering_close();
    hld_wzones_stop(&d->wzones); /* its tick timer would keep the loop alive */
    hld_watch_stop(&d->watch);
    hld_files_stop(&d->files); /* live file jobs still finish; stuck ones are left behind */
    hld_profile_close();
    hld_engine_stop(&d->engine);
    hl_mixer_poll(d->engine.mixer, on_mix_event, d);
    hld_decoder_set_notify(&d->decoder, NULL, NULL);
    hld_decoder_complete(&d->decoder);
    hld_conn_flush_all(&d->net);
    hld_conn_close_all(&d->net);
    uv_timer_stop(&d->poll_timer);
    uv_close((uv_handle_t *)&d->poll_timer, on_handle_closed);
    uv_close((uv_handle_t *)&d->sig_int, on_handle_closed);
    uv_close((uv_handle_t *)&d->sig_term, on_handle_closed);
    if (d->decoder_async_open) uv_close((uv_handle_t *)&d->decoder_async, on_handle_closed);
    d->decoder_async_open = 0;
    hld_debug("handles closed after %.0f ms",
              (double)(hld_now_ns() - d->shutdown_start_ns) / HLD_NS_PER_MS);
}

static void on_poll(uv_timer_t *t) {
    hld_events_poll(t->data);
}

void hld_events_poll(hld_daemon_t *d) {
    if (d->shutting_down == 2) return;
    hld_device_tick(&d->devices); /* device watchdog (device.c); stops its worker at shutdown */
    hl_mixer_poll(d->engine.mixer, on_mix_event, d);
    hld_metering_poll(&d->tel); /* meters and loudness keep up whether or not anyone listens */
    if (d->owner_sweep) hld_events_owner_sweep(d);
    if (!d->shutting_down) {
        uint64_t now = hld_now_ns();
        hld_governor_tick(&d->governor, &d->engine, d->vm);
        hld_vm_tick(d->vm, now);
        hld_vm_params_tick(d->vm, &d->params, now); /* game parameters -> ramped SETs */
        hld_params_bus_tick(d);                     /* ... and bus gains, effect parameters */
        hld_rzones_tick(&d->rzones, now);
        hld_snaps_tick(&d->snaps); /* the next segment of a snapshot blend */
        hld_banks_tick(&d->banks); /* unloading banks whose last voice ended */
        hld_files_tick(&d->files); /* file reads past the open budget */
        expire_detached_loops(d, now);
        hld_owners_sweep(d, now); /* what gone processes left, once no voice needs it */
    }
    hld_cstreams_tick(d);                     /* STREAM events, writers' wake-ups */
    if (!d->shutting_down) hld_music_tick(d); /* BEAT and BAR events */
    if (!d->shutting_down) hld_music_trans_tick(d);
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
    hld_conn_flush_all(&d->net);
}

void hld_events_shutdown(hld_daemon_t *d) {
    if (d->shutting_down) return;
    d->shutting_down = 1;
    d->shutdown_start_ns = hld_now_ns();
    /* the session the capture replays ends here: the shutdown's fades are not its */
    hld_capture_set_end(d->capture, hl_mixer_frames(d->engine.mixer));
    guard_start(d);
    hld_info("shutting down");
#if HAVE_LIBSYSTEMD
    sd_notify(0, "STOPPING=1");
#endif
    hld_server_close(&d->net);
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
    const char *stall = getenv("HELIOD_TEST_SHUTDOWN_STALL_MS");
    if (stall && *stall) g_test_stall_ms = (unsigned)strtoul(stall, NULL, 10);
    if (watchdog_start(d) != 0) return HELIOD_EIO;
    if (hld_metering_open(&d->tel) != 0) return HELIOD_ENOMEM;
    hld_profile_open(&d->tel);
    uv_signal_init(d->loop, &d->sig_int);
    uv_signal_init(d->loop, &d->sig_term);
    d->sig_int.data = d->sig_term.data = d;
    if (uv_timer_start(&d->poll_timer, on_poll, ms, ms) != 0 ||
        uv_signal_start(&d->sig_int, on_signal, SIGINT) != 0 ||
        uv_signal_start(&d->sig_term, on_signal, SIGTERM) != 0)
        return HELIOD_EIO;
    return 0;
}
