/*
 * latency.c - command-to-audio latency through the real daemon.
 *
 * Starts heliod on the null driver (period 256 by default), subscribes to
 * STARTED events and sends paced plays of a short generated sound (one every
 * --interval-us). For each play it reads CLOCK_MONOTONIC right before the
 * request leaves libheliod (between heliod_play_async, which only batches,
 * and heliod_flush, which writes it); the STARTED event carries the server's
 * CLOCK_MONOTONIC time of the callback block that first mixed the voice.
 * Same machine, same clock: latency = event time - send time. It includes
 * socket transfer, parsing, the command ring wait and the wait for the next
 * callback (up to one period, 5.3 ms at 256 frames).
 *
 *   latency driver=null period=256 plays=... matched=... p50_us=... p99_us=...
 *           max_us=... cmd_wait_us_p99=... cmd_wait_us_max=...
 *
 * usage: latency [--heliod PATH] [--plays N] [--interval-us US] [--period F]
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define LT_DEF_PLAYS    10000
#define LT_DEF_INTERVAL 2000 /* us between plays */
#define LT_DEF_PERIOD   256
#define LT_SOUND_FRAMES 480 /* 10 ms: ends on its own, the pool never fills */
#define LT_VOICES       64
#define LT_DRAIN_S      2.0 /* seconds to wait for the last STARTED events */
#define LT_NUM_LEN      32

typedef struct {
    uint64_t send_ns;
    heliod_voice_t voice;
    int status;
    int replied;
} play_rec_t;

typedef struct {
    heliod_voice_t voice;
    uint64_t time_ns;
} started_t;

typedef struct {
    started_t *ev;
    size_t n, cap;
    size_t errors;
} ctx_t;

static void on_reply(void *user, const heliod_reply_t *r) {
    play_rec_t *rec = user;
    rec->voice = r->voice;
    rec->status = r->status;
    rec->replied = 1;
}

static void on_event(void *user, const heliod_event_t *ev) {
    ctx_t *c = user;
    if (ev->type == HELIOD_EVENT_STARTED && c->n < c->cap) {
        c->ev[c->n].voice = ev->voice;
        c->ev[c->n].time_ns = ev->time_ns;
        c->n++;
    } else if (ev->type == HELIOD_EVENT_ERROR) {
        c->errors++;
    }
}

static int cmp_started(const void *a, const void *b) {
    heliod_voice_t x = ((const started_t *)a)->voice, y = ((const started_t *)b)->voice;
    return (x > y) - (x < y);
}

/* Waits for input until deadline_ns (or returns at once if it has passed),
 * then dispatches. Returns heliod_dispatch's result or 0. */
static int pump(heliod_t *h, uint64_t deadline_ns) {
    uint64_t now = bd_now_ns();
    struct timespec ts = {0, 0};
    if (deadline_ns > now) {
        uint64_t d = deadline_ns - now;
        ts.tv_sec = (time_t)(d / BD_NS_PER_S);
        ts.tv_nsec = (long)(d % BD_NS_PER_S);
    }
    struct pollfd pfd = {heliod_fd(h), POLLIN, 0};
    if (heliod_pending(h) > 0) pfd.events |= POLLOUT;
    int r = ppoll(&pfd, 1, &ts, NULL);
    if (r < 0 && errno != EINTR) return HELIOD_EIO;
    if (r > 0) return heliod_dispatch(h);
    return 0;
}

int main(int argc, char **argv) {
    const char *heliod_arg = NULL;
    long plays = LT_DEF_PLAYS, interval_us = LT_DEF_INTERVAL;
    int period = LT_DEF_PERIOD;
    const bo_opt_t opts[] = {{"heliod", 's', &heliod_arg},
                             {"plays", 'l', &plays},
                             {"interval-us", 'l', &interval_us},
                             {"period", 'i', &period},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, "[--heliod PATH] [--plays N] [--interval-us US] [--period FRAMES]");
    if (plays <= 0 || interval_us <= 0 || period <= 0) return 2;

    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    char period_s[LT_NUM_LEN], voices_s[LT_NUM_LEN];
    snprintf(period_s, sizeof period_s, "%d", period);
    snprintf(voices_s, sizeof voices_s, "%d", LT_VOICES);
    const char *args[] = {"--driver", "null", "--period", period_s, "--voices", voices_s, NULL};

    play_rec_t *rec = calloc((size_t)plays, sizeof *rec);
    ctx_t ctx = {calloc((size_t)plays, sizeof(started_t)), 0, (size_t)plays, 0};
    double *lat = calloc((size_t)plays, sizeof(double));
    if (!rec || !ctx.ev || !lat) return 1;

    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    int rc = 1;
    char wav[BD_PATH_MAX];
    snprintf(wav, sizeof wav, "%s/click.wav", d.dir);
    if (bd_write_noise_wav(wav, LT_SOUND_FRAMES, 2) != 0) goto out;
    int err = heliod_load(h, "click", wav, 0, NULL);
    if (!err) err = heliod_subscribe(h, HELIOD_SUB_STARTED);
    if (err) {
        fprintf(stderr, "setup: %s (%s)\n", heliod_strerror(err), heliod_last_error(h));
        goto out;
    }
    heliod_set_event_callback(h, on_event, &ctx);
    bd_stats_t st;
    if (bd_stats(h, &st, 1) != 0) goto out;
    double xr0 = bd_stat(&st, "xruns");

    heliod_play_params_t p;
    heliod_play_params_init(&p);
    uint64_t t0 = bd_now_ns(), step = (uint64_t)interval_us * 1000u;
    long sent = 0;
    for (long i = 0; i < plays; i++) {
        int id = heliod_play_async(h, "click", &p, on_reply, &rec[i]);
        if (id < 0) {
            fprintf(stderr, "play_async: %s\n", heliod_strerror(id));
            break;
        }
        rec[i].send_ns = bd_now_ns();
        if (heliod_flush(h) < 0) break;
        sent++;
        uint64_t next = t0 + (uint64_t)(i + 1) * step;
        while (bd_now_ns() < next)
            if (pump(h, next) < 0) goto out;
    }
    uint64_t drain_end = bd_now_ns() + (uint64_t)(LT_DRAIN_S * (double)BD_NS_PER_S);
    while (ctx.n < (size_t)sent && bd_now_ns() < drain_end)
        if (pump(h, drain_end) < 0) break;
    heliod_sync(h);
    if (bd_stats(h, &st, 0) != 0) goto out;

    qsort(ctx.ev, ctx.n, sizeof *ctx.ev, cmp_started);
    size_t matched = 0, failed = 0, negative = 0;
    for (long i = 0; i < sent; i++) {
        if (!rec[i].replied || rec[i].status != 0) {
            failed++;
            continue;
        }
        started_t key = {rec[i].voice, 0};
        started_t *e = bsearch(&key, ctx.ev, ctx.n, sizeof *ctx.ev, cmp_started);
        if (!e) continue;
        if (e->time_ns < rec[i].send_ns) negative++;
        lat[matched++] = ((double)e->time_ns - (double)rec[i].send_ns) / BD_NS_PER_US;
    }
    double mean = 0.0;
    for (size_t i = 0; i < matched; i++)
        mean += lat[i];
    mean = matched ? mean / (double)matched : NAN;
    double p50 = bd_percentile(lat, matched, 50.0);
    double p99 = bd_percentile(lat, matched, 99.0);
    double mx = matched ? lat[matched - 1] : NAN;
    double mn = matched ? lat[0] : NAN;
    printf("latency driver=null period=%d interval_us=%ld plays=%ld matched=%zu failed=%zu "
           "p50_us=%.1f p99_us=%.1f max_us=%.1f min_us=%.1f mean_us=%.1f negative=%zu "
           "cmd_wait_us_p99=%.1f cmd_wait_us_max=%.1f xruns=%.0f\n",
           (int)bd_stat(&st, "period"), interval_us, sent, matched, failed, p50, p99, mx, mn, mean,
           negative, bd_stat(&st, "cmd_wait_us_p99"), bd_stat(&st, "cmd_wait_us_max"),
           bd_stat(&st, "xruns") - xr0);
    fflush(stdout);
    rc = (matched == (size_t)sent && sent == plays) ? 0 : 1;
    if (rc) fprintf(stderr, "# %zu of %ld plays have no STARTED event\n", sent - matched, plays);
out:
    heliod_close(h);
    bd_daemon_stop(&d, rc != 0);
    free(rec);
    free(ctx.ev);
    free(lat);
    return rc;
}
