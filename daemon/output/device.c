/*
 * device.c - the device state machine and its worker thread (see device.h).
 *
 * States (main thread's view):
 *   RUNNING   the engine runs on the device the user asked for; the watchdog
 *             watches a PortAudio device
 *   LOST      the device stopped: the engine runs on the null driver (same
 *             clock: voices, streams and the recording keep wall time), the
 *             worker retries the device with backoff; DEVICE_BACK when it runs
 *   a DEVICE request in flight suspends the watchdog (the swap stops callbacks)
 *
 * Main <-> worker: requests and results are flags and small records under
 * `lock`; the worker wakes the loop with uv_async_send. The worker assigns
 * engine.backend under the same lock, so the main thread reads the current
 * backend's name and index under it. Only the worker touches PortAudio once
 * the loop runs; the main thread again only after joining it at shutdown.
 */
#include "device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "conn.h"
#include "replies.h"
#include "hld_limits.h"
#include "log.h"

enum { ST_RUNNING, ST_LOST };

typedef struct {
    uint32_t conn, id;
    uint16_t op, flags;
} pend_t;

typedef struct hld_device {
    hld_devices_t *x; /* its place in the daemon */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread;
    int thread_started;
    uv_async_t async;

    /* under lock: main -> worker */
    int quit, scan_req, lost_req, switch_req;
    char switch_name[HL_MAX_DEVNAME + 1];
    /* under lock: worker -> main */
    int switch_done, switch_rc, back_done, scan_done, went_null;
    hl_device_reply_t switch_reply;
    char back_name[HL_MAX_DEVNAME + 1];
    uint64_t back_ns;
    uint64_t rate_refused;
    uint64_t retries;        /* re-opens tried while lost */
    hl_device_info_t *cache; /* HL_MAX_LIST entries */
    size_t cache_n, cache_total;
    int cache_valid, scanning;

    /* worker only */
    int lost;                      /* recovering */
    char want[HL_MAX_DEVNAME + 1]; /* the device to recover ("" = the default) */
    int want_default;              /* the device was opened as the default */
    uint64_t next_try_ns, backoff_ms;
    hl_device_info_t scan_buf[HL_MAX_LIST];

    /* main thread only */
    int state, switching;
    uint64_t watch_cb, watch_ns, lost_at_ns;
    pend_t pend[HLD_DEVICE_PENDING];
    size_t npend;
    uint64_t n_lost, n_back, n_switches;
    double lost_ms_last, recover_ms_last;
} hld_device_t;

/* ---- worker ---------------------------------------------------------------- */

static int is_pa(const hld_backend_t *b) {
    return b->name && strcmp(b->name, "portaudio") == 0;
}

static void wake_main(hld_device_t *v) {
    uv_async_send(&v->async);
}

/* Waits until the engine's callback counter moves: 1, or 0 after ms. */
static int callbacks_run(hld_engine_t *e, unsigned ms) {
    uint64_t c0 = atomic_load_explicit(&e->callbacks, memory_order_relaxed);
    uint64_t end = hld_now_ns() + (uint64_t)ms * HLD_NS_PER_MS;
    struct timespec t = {0, 2 * (long)HLD_NS_PER_MS};
    while (hld_now_ns() < end) {
        if (atomic_load_explicit(&e->callbacks, memory_order_relaxed) != c0) return 1;
        nanosleep(&t, NULL);
    }
    return atomic_load_explicit(&e->callbacks, memory_order_relaxed) != c0;
}

/* Leaves the current backend, which stopped (lost, or never called back),
 * for the null driver, then closes it. hld_engine_swap abandons a lost
 * backend without stopping it; this closes the worker's copy: the stream is
 * aborted and PortAudio released on backend_pa.c's closer thread (waits at
 * most 250 ms here), so the next try re-initialises PortAudio for real. */
static int to_null(hld_device_t *v) {
    hld_engine_t *e = v->x->engine;
    hld_backend_t old = e->backend; /* the worker is the only writer */
    hld_backend_t nb;
    int rc = hld_engine_backend_open(e, 1, NULL, &nb);
    if (rc == 0) rc = hld_engine_swap(e, &nb, 1, &v->lock);
    if (rc) {
        hld_error("device: cannot start the null driver: %s", hl_strerror(rc));
        return rc; /* old is still the engine's */
    }
    old.dead = 1;
    uint64_t t0 = hld_now_ns();
    hld_engine_backend_close(e, &old);
    hld_debug("device: lost backend handed over in %.1f ms%s",
              (double)(hld_now_ns() - t0) / HLD_NS_PER_MS, hld_pa_busy() ? " (still closing)" : "");
    return 0;
}

/* Opens `device` (NULL = default, or null_driver) and swaps it in; for a
 * PortAudio device waits for its first callback and falls back to null if
 * none comes. 0 or a HELIOD_* code (nothing changed unless fell back). */
static int open_and_swap(hld_device_t *v, int null_driver, const char *device, int *fell_back) {
    hld_engine_t *e = v->x->engine;
    hld_backend_t nb;
    *fell_back = 0;
    int rc = hld_engine_backend_open(e, null_driver, device, &nb);
    if (rc) return rc;
    rc = hld_engine_swap(e, &nb, 0, &v->lock);
    if (rc) return rc;
    if (!null_driver && !callbacks_run(e, HLD_DEVICE_CONFIRM_MS)) {
        hld_warn("device: '%s' started but never called back", e->backend.device_name);
        to_null(v);
        *fell_back = 1;
        return HELIOD_EIO;
    }
    return 0;
}

static void fill_reply(hld_device_t *v, hl_device_reply_t *r) {
    hld_engine_t *e = v->x->engine;
    memset(r, 0, sizeof *r);
    pthread_mutex_lock(&v->lock);
    snprintf(r->driver, sizeof r->driver, "%s", e->backend.name ? e->backend.name : "");
    snprintf(r->name, sizeof r->name, "%s", e->backend.device_name);
    pthread_mutex_unlock(&v->lock);
    r->rate = e->rate;
    r->period = e->period;
}

static void begin_recovery(hld_device_t *v) {
    v->lost = 1;
    v->backoff_ms = HLD_DEVICE_RETRY_MIN_MS;
    v->next_try_ns = hld_now_ns() + v->backoff_ms * HLD_NS_PER_MS;
}

static void do_lost(hld_device_t *v) {
    hld_engine_t *e = v->x->engine;
    if (!is_pa(&e->backend)) return;
    snprintf(v->want, sizeof v->want, "%s", e->backend.device_name);
    hld_warn("device: '%s' stopped; running on the null driver's clock, retrying", v->want);
    to_null(v);
    begin_recovery(v);
    pthread_mutex_lock(&v->lock);
    v->went_null = 1;
    pthread_mutex_unlock(&v->lock);
    wake_main(v);
}

static void do_retry(hld_device_t *v) {
    int fell_back = 0;
    pthread_mutex_lock(&v->lock);
    v->retries++;
    pthread_mutex_unlock(&v->lock);
    int rc = open_and_swap(v, 0, v->want_default ? NULL : v->want, &fell_back);
    if (rc == 0) {
        v->lost = 0;
        hld_info("device: '%s' is back", v->x->engine->backend.device_name);
        pthread_mutex_lock(&v->lock);
        v->back_done = 1;
        v->back_ns = hld_now_ns();
        snprintf(v->back_name, sizeof v->back_name, "%s", v->x->engine->backend.device_name);
        v->scan_req = 1; /* the set of devices changed */
        pthread_mutex_unlock(&v->lock);
        wake_main(v);
        return;
    }
    if (rc == HELIOD_EINVAL) {
        /* back at a rate the engine cannot convert to: stay on null, try
         * again slowly */
        pthread_mutex_lock(&v->lock);
        v->rate_refused++;
        pthread_mutex_unlock(&v->lock);
        v->backoff_ms = HLD_DEVICE_RETRY_MAX_MS * 5;
    } else {
        v->backoff_ms *= 2;
        if (v->backoff_ms > HLD_DEVICE_RETRY_MAX_MS) v->backoff_ms = HLD_DEVICE_RETRY_MAX_MS;
    }
    v->next_try_ns = hld_now_ns() + v->backoff_ms * HLD_NS_PER_MS;
}

static void do_switch(hld_device_t *v, const char *name) {
    hld_engine_t *e = v->x->engine;
    int null_driver = strcmp(name, "null") == 0;
    int def = strcmp(name, "default") == 0;
    int rc = 0, fell_back = 0;
    pthread_mutex_lock(&v->lock);
    int same = !v->lost && (null_driver ? !is_pa(&e->backend)
                                        : is_pa(&e->backend) && !def &&
                                              strcmp(e->backend.device_name, name) == 0);
    pthread_mutex_unlock(&v->lock);
    if (!same) rc = open_and_swap(v, null_driver, def ? NULL : name, &fell_back);
    if (rc == 0) {
        v->lost = 0;
        v->want_default = def;
        snprintf(v->want, sizeof v->want, "%s", e->backend.device_name);
        hld_info("device: now on %s%s%s", e->backend.name, e->backend.device_name[0] ? " " : "",
                 e->backend.device_name);
    } else if (fell_back) {
        v->want_default = def;
        snprintf(v->want, sizeof v->want, "%s", def ? "" : name);
        begin_recovery(v);
    }
    hl_device_reply_t r;
    fill_reply(v, &r);
    pthread_mutex_lock(&v->lock);
    v->switch_done = 1;
    v->switch_rc = rc;
    v->switch_reply = r;
    v->went_null = v->went_null || fell_back;
    pthread_mutex_unlock(&v->lock);
    wake_main(v);
}

static void do_scan(hld_device_t *v) {
    size_t total = 0;
    int n = hld_pa_list_devices(v->scan_buf, HL_MAX_LIST, &total, -1);
    pthread_mutex_lock(&v->lock);
    if (n == HELIOD_EBUSY && v->cache_valid) {
        /* PortAudio is still closing a lost stream: keep the last list */
        v->scanning = 0;
        v->scan_done = 1;
        pthread_mutex_unlock(&v->lock);
        wake_main(v);
        return;
    }
    if (n < 0) {
        n = 0; /* no PortAudio: an empty list, not an error */
        total = 0;
    }
    memcpy(v->cache, v->scan_buf, (size_t)n * sizeof *v->cache);
    v->cache_n = (size_t)n;
    v->cache_total = total;
    v->cache_valid = 1;
    v->scanning = 0;
    v->scan_done = 1;
    pthread_mutex_unlock(&v->lock);
    wake_main(v);
}

static void *worker(void *arg) {
    hld_device_t *v = arg;
    pthread_mutex_lock(&v->lock);
    while (!v->quit) {
        if (v->lost_req) {
            v->lost_req = 0;
            pthread_mutex_unlock(&v->lock);
            do_lost(v);
        } else if (v->switch_req) {
            char name[HL_MAX_DEVNAME + 1];
            snprintf(name, sizeof name, "%s", v->switch_name);
            v->switch_req = 0;
            pthread_mutex_unlock(&v->lock);
            do_switch(v, name);
        } else if (v->lost && hld_now_ns() >= v->next_try_ns) {
            pthread_mutex_unlock(&v->lock);
            do_retry(v);
        } else if (v->scan_req) {
            v->scan_req = 0;
            v->scanning = 1;
            pthread_mutex_unlock(&v->lock);
            do_scan(v);
        } else if (v->lost) {
            struct timespec t = {.tv_sec = (time_t)(v->next_try_ns / HLD_NS_PER_S),
                                 .tv_nsec = (long)(v->next_try_ns % HLD_NS_PER_S)};
            pthread_cond_timedwait(&v->cond, &v->lock, &t);
            continue;
        } else {
            pthread_cond_wait(&v->cond, &v->lock);
            continue;
        }
        pthread_mutex_lock(&v->lock);
    }
    pthread_mutex_unlock(&v->lock);
    return NULL;
}

/* ---- main thread ------------------------------------------------------------ */

static void on_async(uv_async_t *a);

static hld_device_t *dev_get(hld_devices_t *x) {
    if (x->state || *x->net->shutting_down) return x->state;
    hld_device_t *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->cache = calloc(HL_MAX_LIST, sizeof *v->cache);
    if (!v->cache || uv_async_init(x->net->loop, &v->async, on_async) != 0) {
        free(v->cache);
        free(v);
        return NULL;
    }
    v->async.data = v;
    v->x = x;
    pthread_mutex_init(&v->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&v->cond, &ca);
    pthread_condattr_destroy(&ca);
    v->want_default = !x->want[0];
    v->watch_ns = hld_now_ns();
    x->state = v;
    return v;
}

/* Posts work to the worker (starting it on first use). Lock held by caller. */
static int post_locked(hld_device_t *v) {
    if (!v->thread_started) {
        if (pthread_create(&v->thread, NULL, worker, v) != 0) return HELIOD_EIO;
        pthread_setname_np(v->thread, "heliod-device");
        v->thread_started = 1;
    }
    pthread_cond_signal(&v->cond);
    return 0;
}

static void broadcast(hld_devices_t *x, uint16_t type, const char *name, uint64_t t) {
    hl_event_t ev = {.type = type, .time_ns = t};
    snprintf(ev.message, sizeof ev.message, "%s", name);
    static uint8_t buf[HL_MAX_FRAME / 16];
    hld_event_broadcast(x->net->conns, HL_SUB_DEVICE, &ev, buf, sizeof buf);
}

static void watch_reset(hld_device_t *v) {
    v->watch_cb = atomic_load_explicit(&v->x->engine->callbacks, memory_order_relaxed);
    v->watch_ns = hld_now_ns();
}

/* The list from the cache, CURRENT marked by name (indices change across
 * PortAudio re-initialisations). Lock held. */
static int answer_devices(hld_device_t *v, hld_req_t *q) {
    hld_engine_t *e = v->x->engine;
    const char *cur = is_pa(&e->backend) ? e->backend.device_name : NULL;
    hld_list_t l;
    hld_list_begin(&l, q);
    size_t i;
    for (i = 0; i < v->cache_n; i++) {
        hl_device_info_t di = v->cache[i];
        di.flags &= (uint8_t)~HL_DEV_CURRENT;
        if (cur && strcmp(di.name, cur) == 0) di.flags |= HL_DEV_CURRENT;
        size_t before = q->w.len;
        hl_put_device_info(&q->w, &di);
        if (hld_list_entry_done(&l, before)) break;
    }
    if (v->cache_total > i) l.head.truncated = 1;
    return hld_list_end(&l);
}

static int add_pending(hld_device_t *v, const hld_req_t *q) {
    if (v->npend == HLD_DEVICE_PENDING) return HELIOD_EBUSY;
    v->pend[v->npend++] = (pend_t){q->c->id, q->h->id, q->h->op, q->h->flags};
    return 0;
}

static void on_async(uv_async_t *a) {
    hld_device_t *v = a->data;
    hld_devices_t *x = v->x;
    pthread_mutex_lock(&v->lock);
    int sw = v->switch_done, back = v->back_done, scan = v->scan_done, went_null = v->went_null;
    int rc = v->switch_rc;
    hl_device_reply_t r = v->switch_reply;
    char back_name[HL_MAX_DEVNAME + 1];
    snprintf(back_name, sizeof back_name, "%s", v->back_name);
    uint64_t back_ns = v->back_ns;
    v->switch_done = v->back_done = v->scan_done = v->went_null = 0;
    pthread_mutex_unlock(&v->lock);

    if (went_null && v->state != ST_LOST && !sw) v->state = ST_LOST;
    if (back) {
        v->state = ST_RUNNING;
        v->n_back++;
        v->recover_ms_last = (double)(back_ns - v->lost_at_ns) / HLD_NS_PER_MS;
        hld_info("device: '%s' back %.0f ms after the loss was detected", back_name,
                 v->recover_ms_last);
        broadcast(x, HL_EVENT_DEVICE_BACK, back_name, back_ns);
        watch_reset(v);
    }
    size_t keep = 0;
    for (size_t i = 0; i < v->npend; i++) {
        pend_t p = v->pend[i];
        int is_switch = p.op == HL_OP_DEVICE;
        if (is_switch ? !sw : !scan) {
            v->pend[keep++] = p;
            continue;
        }
        hld_conn_t *c = hld_conn_find(x->net, p.conn);
        if (!c) continue;
        hl_frame_hdr_t h = {.op = p.op, .flags = p.flags, .id = p.id};
        hld_req_t q = {.c = c, .h = &h};
        if (!is_switch) {
            pthread_mutex_lock(&v->lock);
            answer_devices(v, &q);
            pthread_mutex_unlock(&v->lock);
        } else if (rc < 0) {
            char msg[HL_MAX_MSG + 1];
            snprintf(msg, sizeof msg, "%s",
                     rc == HELIOD_ENODEV ? "no output device matches (see `heliodctl devices`)"
                     : rc == HELIOD_EINVAL
                         ? "the device runs neither at the engine rate nor at one "
                           "heliod converts to (8-384 kHz, at most 4:1 down)"
                     : rc == HELIOD_EBUSY ? "the lost device is still being closed; try again"
                                          : "cannot open or start the device");
            hld_fail(&q, rc, msg);
        } else if (!(p.flags & HL_FLAG_NOREPLY)) {
            hld_reply_begin(&q);
            hl_put_device_reply(&q.w, &r);
            hld_reply_end(&q);
        }
    }
    v->npend = keep;
    if (sw) {
        v->switching = 0;
        if (rc == 0) {
            v->n_switches++;
            v->state = ST_RUNNING;
        } else if (went_null) {
            v->state = ST_LOST;
            v->lost_at_ns = hld_now_ns();
        }
        watch_reset(v);
    }
    hld_conn_flush_all(x->net);
}

static void on_closed(uv_handle_t *h) {
    hld_device_t *v = h->data;
    pthread_mutex_destroy(&v->lock);
    pthread_cond_destroy(&v->cond);
    free(v->cache);
    free(v);
}

static void dev_shutdown(hld_devices_t *x) {
    hld_device_t *v = x->state;
    if (!v) return;
    if (v->thread_started) {
        pthread_mutex_lock(&v->lock);
        v->quit = 1;
        pthread_cond_signal(&v->cond);
        pthread_mutex_unlock(&v->lock);
        pthread_join(v->thread, NULL);
    }
    for (size_t i = 0; i < v->npend; i++) {
        hld_conn_t *c = hld_conn_find(x->net, v->pend[i].conn);
        if (c)
            hld_send_error(c, v->pend[i].op, v->pend[i].flags, v->pend[i].id, HELIOD_ESHUTDOWN,
                           NULL);
    }
    x->state = NULL;
    uv_close((uv_handle_t *)&v->async, on_closed);
}

void hld_device_tick(hld_devices_t *x) {
    if (*x->net->shutting_down) {
        dev_shutdown(x);
        return;
    }
    hld_engine_t *e = x->engine;
    if (!e->started) return;
    hld_device_t *v = dev_get(x);
    if (!v || v->state != ST_RUNNING || v->switching) return;
    uint64_t now = hld_now_ns();
    uint64_t cb = atomic_load_explicit(&e->callbacks, memory_order_relaxed);
    if (cb != v->watch_cb) {
        v->watch_cb = cb;
        v->watch_ns = now;
    }
    /* before the worker is told: its catch-up renders move last_cb_ns */
    uint64_t last = atomic_load_explicit(&e->last_cb_ns, memory_order_relaxed);
    pthread_mutex_lock(&v->lock);
    int pa = is_pa(&e->backend);
    int gone = pa && (hld_backend_lost(&e->backend) ||
                      now - v->watch_ns >= (uint64_t)HLD_DEVICE_WATCHDOG_MS * HLD_NS_PER_MS);
    char name[HL_MAX_DEVNAME + 1];
    snprintf(name, sizeof name, "%s", e->backend.device_name);
    if (gone) {
        v->lost_req = 1;
        post_locked(v);
    }
    pthread_mutex_unlock(&v->lock);
    if (!gone) return;
    v->state = ST_LOST;
    v->n_lost++;
    v->lost_at_ns = now;
    v->lost_ms_last = last && now > last ? (double)(now - last) / HLD_NS_PER_MS : 0;
    hld_warn("device: '%s' lost (no callback for %.0f ms)", name, v->lost_ms_last);
    broadcast(x, HL_EVENT_DEVICE_LOST, name, last);
}

int hld_op_device(hld_devices_t *x, hld_req_t *q) {
    hl_device_req_t m;
    hl_get_device_req(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (!m.name[0])
        return hld_fail(q, HELIOD_EINVAL, "name: a device name, \"null\" or \"default\"");
    hld_device_t *v = dev_get(x);
    if (!v) return hld_fail(q, HELIOD_ENOMEM, NULL);
    if (v->switching) return hld_fail(q, HELIOD_EBUSY, "a device switch is in progress");
    if (add_pending(v, q) < 0) return hld_fail(q, HELIOD_EBUSY, NULL);
    pthread_mutex_lock(&v->lock);
    snprintf(v->switch_name, sizeof v->switch_name, "%s", m.name);
    v->switch_req = 1;
    int rc = post_locked(v);
    pthread_mutex_unlock(&v->lock);
    if (rc < 0) {
        v->npend--;
        return hld_fail(q, rc, NULL);
    }
    v->switching = 1;
    return 0;
}

int hld_op_devices(hld_devices_t *x, hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_device_t *v = dev_get(x);
    if (!v) return hld_fail(q, HELIOD_ENOMEM, NULL);
    pthread_mutex_lock(&v->lock);
    int valid = v->cache_valid;
    if (valid) answer_devices(v, q);
    if (!v->scanning) v->scan_req = 1; /* refresh for the next request */
    int rc = post_locked(v);
    pthread_mutex_unlock(&v->lock);
    if (valid) return 0;
    if (rc < 0) return hld_fail(q, rc, NULL);
    if (add_pending(v, q) < 0) return hld_fail(q, HELIOD_EBUSY, NULL);
    return 0; /* answered when the first scan ends */
}

void hld_device_stats(hld_devices_t *x, hld_device_stats_t *o) {
    memset(o, 0, sizeof *o);
    hld_engine_t *e = x->engine;
    hld_device_t *v = x->state;
    if (v) pthread_mutex_lock(&v->lock);
    o->driver_portaudio = is_pa(&e->backend);
    o->index = e->backend.device_index;
    o->latency_s = e->backend.latency_s;
    o->device_rate = e->backend.rate ? e->backend.rate : e->rate;
    if (v) {
        o->rate_refused = v->rate_refused;
        o->retries = v->retries;
        pthread_mutex_unlock(&v->lock);
        o->state = v->state == ST_LOST ? 2 : v->switching ? 1 : 0;
        o->lost = v->n_lost;
        o->back = v->n_back;
        o->switches = v->n_switches;
        o->lost_ms_last = v->lost_ms_last;
        o->recover_ms_last = v->recover_ms_last;
    }
}
