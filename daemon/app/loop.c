/*
 * loop.c - the main loop's clock: the poll tick that drives every
 * subsystem's periodic work, and the daemon's lifecycle (start, signals,
 * shutdown, the systemd watchdog). The top of the daemon under main.c and
 * render.c: it calls down into each subsystem's tick, none calls it.
 *
 * A uv_timer fires about once per device period (render.c calls
 * hld_loop_poll after every period instead): it drains the mixer's event
 * ring (events.c), retries fading out the voices of closed connections if
 * the command ring was full, runs the ticks of the device watchdog, the
 * meters, the governor, the voice manager (ranking, virtual voices), game
 * parameters, reverb zones, snapshots, banks, file jobs, detached loops,
 * gone owners, client-fed streams and music, then flushes the replies. A
 * uv_async wakes the loop when the decoder pool finished opening a streamed
 * play or seek; its handler runs their completions (stream_jobs.c).
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

#include "loop.h"

#include "capture.h"
#include "daemon.h"
#include "world_zones.h"
#include "dispatch_int.h"
#include "hl_config.h"
#include "hld_limits.h"
#include "log.h"
#include "metering.h"
#include "profile.h"

#if HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

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
    hld_wzones_stop(d->wzones); /* its tick timer would keep the loop alive */
    hld_watch_stop(&d->watch);
    hld_files_stop(&d->files); /* live file jobs still finish; stuck ones are left behind */
    hld_profile_close();
    hld_engine_stop(&d->engine);
    hld_events_mix(d);
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
    hld_loop_poll(t->data);
}

void hld_loop_poll(hld_daemon_t *d) {
    if (d->shutting_down == 2) return;
    hld_device_tick(&d->devices); /* device watchdog (device.c); stops its worker at shutdown */
    hld_events_mix(d);
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
        hld_events_expire(d, now);
        hld_owners_sweep(d, now); /* what gone processes left, once no voice needs it */
    }
    hld_cstreams_tick(d);                     /* STREAM events, writers' wake-ups */
    if (!d->shutting_down) hld_music_tick(d); /* BEAT and BAR events */
    if (!d->shutting_down) hld_music_trans_tick(d);
    if (d->shutting_down) {
        if (d->shutdown_stop_pending && hld_events_stop_all(d) == 0) d->shutdown_stop_pending = 0;
        uint64_t waited = hld_now_ns() - d->shutdown_start_ns;
        /* a render's output is written and nothing pulls its fades: no wait */
        if ((!d->shutdown_stop_pending && !hld_events_busy(d)) || d->cfg.render[0] ||
            waited >= HLD_SHUTDOWN_WAIT_MS * HLD_NS_PER_MS) {
            finish_shutdown(d);
            return;
        }
    }
    hld_conn_flush_all(&d->net);
}

void hld_loop_shutdown(hld_daemon_t *d) {
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
    d->shutdown_stop_pending = hld_events_stop_all(d) != 0;
    uv_timer_stop(&d->poll_timer);
    uv_timer_start(&d->poll_timer, on_poll, HLD_SHUTDOWN_TICK_MS, HLD_SHUTDOWN_TICK_MS);
}

static void on_signal(uv_signal_t *s, int signum) {
    hld_daemon_t *d = s->data;
    hld_debug("signal %d", signum);
    hld_loop_shutdown(d);
}

int hld_loop_start(hld_daemon_t *d) {
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
