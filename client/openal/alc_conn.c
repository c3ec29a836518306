/*
 * alc_conn.c - heliod's OpenAL library: a device's connection to heliod
 * (connect, lose, reconnect with the buffers uploaded again) and the event
 * thread that dispatches what each device's daemon sends (play replies,
 * voice ends), keeps the engine clock fresh and reconnects a device whose
 * daemon went away. A lost connection reaches here from any request
 * through the core's hook (g_al.conn_lost).
 */
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <AL/alext.h>

#include "al_int.h"

static void on_event(void *user, const heliod_event_t *ev) {
    alh_on_event(user, ev);
}

/* The daemon went away: the sources stop (their streams closed first), the
 * buffers' sounds are gone with it, and the event thread retries soon. */
static void dev_lost(ALCdevice *d) {
    if (!d->h) return;
    alh_sources_lost(d); /* closes its streams first */
    alh_buffers_lost(d);
    heliod_close(d->h);
    d->h = NULL;
    d->connected = 0;
    d->suspended = 0;
    d->retry_ns = alh_mono_ns() + 200000000ull;
}

int alh_dev_connect(ALCdevice *d) {
    heliod_t *h = NULL;
    int rc = heliod_connect(&h, d->socket[0] ? d->socket : NULL, "openal");
    if (rc < 0) return rc;
    heliod_set_timeout(h, 3000);
    if ((rc = heliod_subscribe(h, HELIOD_SUB_ENDED | HELIOD_SUB_STARTED)) < 0 ||
        (rc = heliod_clock(h, &d->clk)) < 0) {
        heliod_close(h);
        return rc;
    }
    const heliod_server_info_t *si = heliod_server_info(h);
    d->rate = si->rate;
    d->period = si->period;
    d->pan_law = heliod_protocol_minor(h) >= 1;
    d->daemon_hrtf = 0;
    heliod_stat_t st[256];
    size_t n = 0;
    if (heliod_stats(h, st, sizeof st / sizeof st[0], &n, 0) == 0)
        for (size_t i = 0; i < n; i++)
            if (!strcmp(st[i].key, "hrtf")) d->daemon_hrtf = st[i].value != 0.0;
    alh_hrtf_status(d); /* a daemon back with or without --hrtf */
    d->clk_read_ns = alh_mono_ns();
    d->h = h;
    d->connected = 1;
    heliod_set_event_callback(h, on_event, d);
    g_al.conn_lost = dev_lost;
    alh_buffers_reupload(d);
    return 0;
}

/* ALC_SOFT_HRTF onto heliod's binaural renderer (`heliod --hrtf`): an
 * ALC_HRTF_SOFT request (ALC_FALSE, ALC_TRUE or ALC_DONT_CARE_SOFT). With
 * ALC_TRUE and a daemon that renders HRTF, the mono sources play as daemon
 * 3D voices in their direction from the listener (al_voice.c,
 * alh_hrtf_params): ALC_HRTF_ENABLED_SOFT. A daemon without --hrtf has none to
 * give: ALC_HRTF_DENIED_SOFT (and no HRTF is listed). Not asked (or
 * ALC_DONT_CARE_SOFT, as OpenAL Soft on speakers): ALC_HRTF_DISABLED_SOFT,
 * OpenAL Soft's stereo panning. Locked. */
void alh_hrtf_status(ALCdevice *d) {
    d->hrtf_on = d->hrtf_req && d->daemon_hrtf;
    d->hrtf_status = !d->hrtf_req ? ALC_HRTF_DISABLED_SOFT
                     : d->hrtf_on ? ALC_HRTF_ENABLED_SOFT
                                  : ALC_HRTF_DENIED_SOFT;
}

/* The event thread: dispatches what each device's daemon sends, keeps the
 * clock fresh, and reconnects a device whose daemon went away. */
static void *event_thread(void *arg) {
    (void)arg;
    for (;;) {
        struct pollfd pfd[5];
        int n = 0;
        alh_lock();
        if (g_al.thread_stop) {
            alh_unlock();
            break;
        }
        pfd[n++] = (struct pollfd){.fd = g_al.wake[0], .events = POLLIN};
        for (size_t i = 0; i < 4; i++) {
            ALCdevice *d = &g_al.devs[i];
            if (d->used && d->h)
                pfd[n++] = (struct pollfd){.fd = heliod_fd(d->h), .events = POLLIN};
        }
        alh_unlock();
        int pr = poll(pfd, (nfds_t)n, 5);
        if (pr > 0 && g_al.wake[0] > 0 && (pfd[0].revents & POLLIN)) {
            char buf[64];
            ssize_t r = read(g_al.wake[0], buf, sizeof buf);
            (void)r;
        }
        alh_lock();
        const uint64_t now = alh_mono_ns();
        for (size_t i = 0; i < 4; i++) {
            ALCdevice *d = &g_al.devs[i];
            if (!d->used) continue;
            if (!d->h) {
                if (now >= d->retry_ns) {
                    if (alh_dev_connect(d) < 0) d->retry_ns = now + 250000000ull;
                }
                continue;
            }
            int rc = heliod_dispatch(d->h);
            if (rc < 0) {
                alh_conn_check(d, rc);
                continue;
            }
            if (now - d->clk_read_ns > 1000000000ull && !d->suspended) {
                heliod_clock_t c;
                rc = heliod_clock(d->h, &c);
                if (rc == 0)
                    d->clk = c;
                else
                    alh_conn_check(d, rc);
                d->clk_read_ns = now;
            }
            if (d->h) alh_sources_tick(d);
        }
        alh_unlock();
    }
    return NULL;
}

/* Wakes the event thread out of its poll (it stops sooner). */
static void thread_wake(void) {
    if (g_al.wake[1] > 0) {
        const char c = 1;
        ssize_t n = write(g_al.wake[1], &c, 1);
        (void)n;
    }
}

void alh_thread_start(void) {
    if (g_al.thread_running) return;
    if (g_al.wake[0] <= 0 && pipe2(g_al.wake, O_CLOEXEC | O_NONBLOCK) != 0)
        g_al.wake[0] = g_al.wake[1] = -1; /* poll skips it: the thread stops within 5 ms */
    g_al.thread_stop = 0;
    if (pthread_create(&g_al.thread, NULL, event_thread, NULL) == 0) g_al.thread_running = 1;
}

void alh_thread_stop_if_idle(void) {
    for (size_t i = 0; i < 4; i++)
        if (g_al.devs[i].used) return;
    if (!g_al.thread_running) return;
    g_al.thread_stop = 1;
    thread_wake();
    alh_unlock();
    pthread_join(g_al.thread, NULL);
    alh_lock();
    g_al.thread_running = 0;
}

/* The library unloaded (dlclose) or the process exiting: the event thread
 * must not run on in unmapped code. */
__attribute__((destructor)) static void alh_fini(void) {
    alh_lock();
    if (g_al.thread_running) {
        g_al.thread_stop = 1;
        thread_wake();
        thread_wake();
        alh_unlock();
        pthread_join(g_al.thread, NULL);
        alh_lock();
        g_al.thread_running = 0;
    }
    alh_unlock();
}
