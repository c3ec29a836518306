/*
 * backend_null.c - the null output driver: no device, a thread named
 * "heliod-audio" that calls the engine once per period, paced in real time by
 * clock_nanosleep(TIMER_ABSTIME) on CLOCK_MONOTONIC against absolute
 * deadlines (so the pace does not drift with the render time). A wake-up more
 * than a period past its deadline counts as an xrun and the schedule restarts
 * from now instead of bursting to catch up.
 */
#include "backend.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hld_limits.h"
#include "log.h"

typedef struct {
    hld_backend_config_t cfg;
    pthread_t thread;
    int running;
    atomic_int quit;
    float *buf;
    unsigned speed; /* periods per period of wall time (HELIOD_NULL_SPEED, tests) */
} null_impl_t;

static void ts_add_ns(struct timespec *t, uint64_t ns) {
    uint64_t v = (uint64_t)t->tv_nsec + ns;
    t->tv_sec += (time_t)(v / HLD_NS_PER_S);
    t->tv_nsec = (long)(v % HLD_NS_PER_S);
}

static int64_t ts_diff_ns(const struct timespec *a, const struct timespec *b) {
    return (int64_t)(a->tv_sec - b->tv_sec) * (int64_t)HLD_NS_PER_S + (a->tv_nsec - b->tv_nsec);
}

/* The audio thread of the null driver. */
static void *null_thread_rt(void *arg) {
    null_impl_t *n = arg;
    uint64_t period_ns = (uint64_t)n->cfg.period * HLD_NS_PER_S / n->cfg.rate / n->speed;
    struct timespec next, now;
    uint32_t xrun = 0;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!atomic_load_explicit(&n->quit, memory_order_acquire)) {
        n->cfg.render(n->cfg.user, n->buf, n->cfg.period, xrun);
        xrun = 0;
        ts_add_ns(&next, period_ns);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (ts_diff_ns(&now, &next) > (int64_t)period_ns) {
            xrun = HLD_XRUN_LATE;
            next = now;
        }
    }
    return NULL;
}

static int null_start(hld_backend_t *b) {
    null_impl_t *n = b->impl;
    if (n->running) return 0;
    atomic_store(&n->quit, 0);
    if (pthread_create(&n->thread, NULL, null_thread_rt, n) != 0) return HELIOD_EIO;
    pthread_setname_np(n->thread, "heliod-audio");
    /* Real-time scheduling where the user may have it (root, rtprio limit); else stays normal. */
    struct sched_param sp = {.sched_priority = HLD_RT_PRIORITY};
    int rc = pthread_setschedparam(n->thread, SCHED_FIFO, &sp);
    if (rc == 0)
        hld_info("null driver: audio thread runs SCHED_FIFO priority %d", HLD_RT_PRIORITY);
    else
        hld_debug("null driver: no real-time scheduling (%s)", strerror(rc));
    n->running = 1;
    return 0;
}

static void null_stop(hld_backend_t *b) {
    null_impl_t *n = b->impl;
    if (!n->running) return;
    atomic_store_explicit(&n->quit, 1, memory_order_release);
    pthread_join(n->thread, NULL);
    n->running = 0;
}

static void null_close(hld_backend_t *b) {
    null_stop(b);
    null_impl_t *n = b->impl;
    free(n->buf);
    free(n);
    b->impl = NULL;
}

static const hld_backend_ops_t g_null_ops = {null_start, null_stop, null_close, NULL};

int hld_backend_null_open(hld_backend_t *b, const hld_backend_config_t *cfg) {
    null_impl_t *n = calloc(1, sizeof *n);
    if (!n) return HELIOD_ENOMEM;
    n->cfg = *cfg;
    /* tests: HELIOD_NULL_SPEED=N (2..100) renders N times faster than real
     * time: long audio in a short test (the main loop's ticks stay wall-clock) */
    const char *sp = getenv("HELIOD_NULL_SPEED");
    unsigned long speed = sp && *sp ? strtoul(sp, NULL, 10) : 1;
    n->speed = speed >= 2 && speed <= 100 ? (unsigned)speed : 1;
    if (n->speed > 1) hld_info("null driver: %u times real time (HELIOD_NULL_SPEED)", n->speed);
    n->buf =
        calloc((size_t)cfg->period * (cfg->channels ? cfg->channels : HLD_CHANNELS), sizeof(float));
    if (!n->buf) {
        free(n);
        return HELIOD_ENOMEM;
    }
    memset(b, 0, sizeof *b);
    b->ops = &g_null_ops;
    b->name = "null";
    b->device_index = -1;
    b->latency_s = (double)cfg->period / cfg->rate;
    b->rate = cfg->rate;
    b->impl = n;
    return 0;
}
