/*
 * throughput.c - commands per second held over the socket, and proof that
 * none is lost.
 *
 * Starts heliod on the null driver, then for each client count C (default
 * 1 and 16) runs C threads, each with its own connection. Each client first
 * starts a few looping voices (blocking), then pipelines fire-and-forget
 * commands as fast as the socket takes them: mostly heliod_set_async (gain
 * and position, alternating), plus every PLAY_EVERY-th command a
 * heliod_play_async of a new looping voice and, once such a voice exists, a
 * heliod_stop_async of the oldest one. Finally heliod_sync.
 *
 * Accounting: every command is either applied by the audio thread (the
 * STATS cmds_applied delta) or answered with an explicit error (EBUSY when
 * the command ring was full, anything else counted as other):
 *
 *   throughput clients=C mode=paced|flood sent=... applied=... busy=...
 *              other_errors=... lost=... xruns=... cmds_per_s=...
 *              applied_per_s=... ... callback_p99_pct=... cmd_wait_p99_periods=...
 *              target=met|missed
 *
 * lost = sent - applied - busy - other_errors and must be 0. The target
 * (issue 28): paced, every command applied, 0 EBUSY, 0 xruns, callback p99
 * <= 25% of the 256-frame period and command wait p99 <= 2 periods; flood,
 * >= 1,000,000 applied per second.
 *
 * By default each client count runs paced at 500,000 commands/s (split over
 * the clients), then flooding; --rate R runs paced at R only, --rate 0 the
 * flood only.
 *
 * usage: throughput [--heliod PATH] [--clients 1,16] [--commands N] [--rate R]
 *        (N = commands per run, split across the clients)
 */
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define TP_DEF_CLIENTS   "1,16"
#define TP_DEF_COMMANDS  1000000
#define TP_DEF_RATE      500000.0  /* the paced runs' commands/s (issue 28's target) */
#define TP_PERIOD        256       /* the daemon's period, frames at BD_RATE */
#define TP_CB_P99_PCT    25.0      /* target: callback p99, % of the period */
#define TP_WAIT_PERIODS  2.0       /* target: command wait p99, periods */
#define TP_FLOOD_TARGET  1000000.0 /* target: commands applied per second, flooding */
#define TP_MAX_RUNS      8
#define TP_MAX_CLIENTS   64
#define TP_BASE_VOICES   8    /* looping voices each client keeps for set commands */
#define TP_PLAY_EVERY    64   /* one play and one stop per this many commands */
#define TP_EXTRA_MAX     1024 /* ring of a client's extra (played, later stopped) voices */
#define TP_EXTRA_KEEP    32   /* more extra voices than this: a stop replaces the next set */
#define TP_CHUNK         256  /* commands queued between dispatch calls */
#define TP_HIGH_WATER    (512 * 1024) /* unsent bytes at which a client waits for the socket */
#define TP_POLL_MS       100
#define TP_SETTLE_S      0.05  /* let the audio thread apply the setup plays before the snapshot */
#define TP_DRAIN_POLL_S  0.002 /* STATS poll interval while the command ring drains */
#define TP_DRAIN_IDLE_S  0.03  /* cmds_applied unchanged this long: the ring is empty */
#define TP_DRAIN_MAX_S   5.0
#define TP_DAEMON_VOICES 4096
#define TP_NUM_LEN       32
#define TP_GAIN_LO_DB    -12.0f
#define TP_GAIN_HI_DB    -6.0f
#define TP_POS_SPAN      4.0f

typedef struct {
    int index;
    long quota;
    double rate; /* commands/s for this client; 0 = as fast as the socket takes them */
    const bd_daemon_t *d;
    pthread_barrier_t *barrier;
    /* results */
    long sent, busy, other, local_err;
    int failed;
    /* state */
    heliod_voice_t base[TP_BASE_VOICES];
    heliod_voice_t extra[TP_EXTRA_MAX];
    unsigned extra_head, extra_tail; /* ring of extra voices: [tail, head) */
} client_t;

static void count_status(client_t *c, int status) {
    if (status == HELIOD_EBUSY)
        c->busy++;
    else if (status != 0)
        c->other++;
}

static void on_play_reply(void *user, const heliod_reply_t *r) {
    client_t *c = user;
    count_status(c, r->status);
    if (r->status == 0 && c->extra_head - c->extra_tail < TP_EXTRA_MAX)
        c->extra[c->extra_head++ % TP_EXTRA_MAX] = r->voice;
}

static void on_event(void *user, const heliod_event_t *ev) {
    if (ev->type == HELIOD_EVENT_ERROR) count_status(user, ev->status);
}

static int wait_socket(heliod_t *h) {
    struct pollfd pfd = {heliod_fd(h), POLLIN | POLLOUT, 0};
    poll(&pfd, 1, TP_POLL_MS);
    return heliod_dispatch(h);
}

static void *client_main(void *arg) {
    client_t *c = arg;
    heliod_t *h = NULL;
    c->failed = 1;
    int err = bd_connect(c->d, "throughput", &h);
    if (err) {
        fprintf(stderr, "client %d: connect: %s\n", c->index, heliod_strerror(err));
        pthread_barrier_wait(c->barrier);
        pthread_barrier_wait(c->barrier);
        return NULL;
    }
    heliod_set_event_callback(h, on_event, c);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D;
    pp.gain_db = TP_GAIN_LO_DB;
    pp.pos[2] = -1.0f;
    for (int i = 0; i < TP_BASE_VOICES && !err; i++)
        err = heliod_play(h, "noise", &pp, &c->base[i], NULL);
    if (err) fprintf(stderr, "client %d: play: %s\n", c->index, heliod_last_error(h));
    pthread_barrier_wait(c->barrier); /* everyone connected: main takes the STATS snapshot */
    pthread_barrier_wait(c->barrier); /* go */
    if (err) goto out;

    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    uint64_t start = bd_now_ns();
    for (long k = 0; k < c->quota; k++) {
        int id;
        if (k % TP_PLAY_EVERY == 0) {
            pp.pos[0] = (float)(k % TP_EXTRA_MAX) / TP_EXTRA_MAX * TP_POS_SPAN;
            id = heliod_play_async(h, "noise", &pp, on_play_reply, c);
        } else if ((k % TP_PLAY_EVERY == TP_PLAY_EVERY / 2 && c->extra_head != c->extra_tail) ||
                   c->extra_head - c->extra_tail > TP_EXTRA_KEEP) {
            /* the play replies come in bursts: a stop skipped while none had
             * come is caught up, so the voices do not pile up to the cap */
            id = heliod_stop_async(h, c->extra[c->extra_tail++ % TP_EXTRA_MAX], 0.0f);
        } else {
            heliod_voice_t v = c->base[k % TP_BASE_VOICES];
            if (k & 1) {
                s.mask = HELIOD_SET_GAIN;
                s.gain_db = (k & 2) ? TP_GAIN_LO_DB : TP_GAIN_HI_DB;
            } else {
                s.mask = HELIOD_SET_POS;
                s.pos[0] = (float)(k % TP_CHUNK) / TP_CHUNK * TP_POS_SPAN;
                s.pos[1] = 0.0f;
                s.pos[2] = -1.0f;
            }
            id = heliod_set_async(h, v, &s);
        }
        if (id < 0) {
            c->local_err++;
            if (id == HELIOD_ECLOSED) goto out;
            continue;
        }
        c->sent++;
        if (k % TP_CHUNK == TP_CHUNK - 1) {
            if (heliod_dispatch(h) < 0) goto out;
            while (heliod_pending(h) > TP_HIGH_WATER)
                if (wait_socket(h) < 0) goto out;
            if (c->rate > 0.0) { /* paced: sleep until this chunk is due */
                double due = (double)(k + 1) / c->rate;
                double ahead = due - (double)(bd_now_ns() - start) / (double)BD_NS_PER_S;
                if (ahead > 0.0) bd_sleep(ahead);
            }
        }
    }
    err = heliod_sync(h);
    if (err) {
        fprintf(stderr, "client %d: sync: %s\n", c->index, heliod_strerror(err));
        goto out;
    }
    c->failed = 0;
out:
    /* Keep the connection (and its voices) until main has read STATS. */
    pthread_barrier_wait(c->barrier);
    pthread_barrier_wait(c->barrier);
    heliod_close(h);
    return NULL;
}

/* Polls STATS until cmds_applied reaches `want` (every command sent and not
 * refused: nothing more can come) or stops moving (the command ring is
 * empty: some were lost); returns the time of its last change and leaves
 * the final snapshot in st. */
static uint64_t wait_drained(heliod_t *h, bd_stats_t *st, int *rc, double want) {
    double last = NAN;
    uint64_t changed = bd_now_ns(), start = changed;
    for (;;) {
        if ((*rc = bd_stats(h, st, 0)) != 0) return changed;
        double v = bd_stat(st, "cmds_applied");
        uint64_t now = bd_now_ns();
        if (v != last) {
            last = v;
            changed = now;
            if (v >= want) return changed;
        } else if (now - changed > (uint64_t)(TP_DRAIN_IDLE_S * (double)BD_NS_PER_S)) {
            return changed;
        }
        if (now - start > (uint64_t)(TP_DRAIN_MAX_S * (double)BD_NS_PER_S)) return changed;
        bd_sleep(TP_DRAIN_POLL_S);
    }
}

static int run(const bd_daemon_t *d, heliod_t *h, int nclients, long commands, double rate) {
    client_t *cl = calloc((size_t)nclients, sizeof *cl);
    pthread_t *th = calloc((size_t)nclients, sizeof *th);
    pthread_barrier_t barrier;
    if (!cl || !th) return 1;
    pthread_barrier_init(&barrier, NULL, (unsigned)nclients + 1);
    for (int i = 0; i < nclients; i++) {
        cl[i].index = i;
        cl[i].quota = commands / nclients + (i < commands % nclients ? 1 : 0);
        cl[i].rate = rate / nclients;
        cl[i].d = d;
        cl[i].barrier = &barrier;
        pthread_create(&th[i], NULL, client_main, &cl[i]);
    }
    bd_stats_t st;
    pthread_barrier_wait(&barrier); /* clients connected, setup plays sent */
    bd_sleep(TP_SETTLE_S);
    int rc = bd_stats(h, &st, 1);
    double applied0 = bd_stat(&st, "cmds_applied"), xr0 = bd_stat(&st, "xruns");
    double busy0 = bd_stat(&st, "cmds_busy"), cap0 = bd_stat(&st, "cmd_cap_hits");
    uint64_t t0 = bd_now_ns();
    pthread_barrier_wait(&barrier);
    pthread_barrier_wait(&barrier); /* every client synced (or failed) */
    uint64_t t1 = bd_now_ns();
    long accounted = 0; /* the commands applied or refused, once all are */
    for (int i = 0; i < nclients; i++)
        accounted += cl[i].sent - cl[i].busy - cl[i].other;
    uint64_t t2 = rc ? t1 : wait_drained(h, &st, &rc, applied0 + (double)accounted);
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < nclients; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    bd_sleep(TP_SETTLE_S); /* the closed clients' voices are released before the next run */

    long sent = 0, busy = 0, other = 0, local = 0;
    int failed = 0;
    for (int i = 0; i < nclients; i++) {
        sent += cl[i].sent;
        busy += cl[i].busy;
        other += cl[i].other;
        local += cl[i].local_err;
        failed += cl[i].failed;
    }
    double applied = bd_stat(&st, "cmds_applied") - applied0;
    double wall = (double)(t1 - t0) / (double)BD_NS_PER_S;
    double applied_wall = (double)(t2 > t1 ? t2 - t0 : t1 - t0) / (double)BD_NS_PER_S;
    double lost = (double)sent - applied - (double)busy - (double)other;
    double period_us = (double)TP_PERIOD * 1e6 / BD_RATE;
    double cb_pct = 100.0 * bd_stat(&st, "callback_load_p99");
    double wait_periods = bd_stat(&st, "cmd_wait_us_p99") / period_us;
    double xruns = bd_stat(&st, "xruns") - xr0, applied_s = applied / applied_wall;
    int met = rate > 0.0
                  ? busy == 0 && other == 0 && lost == 0.0 && applied == (double)sent &&
                        xruns == 0.0 && cb_pct <= TP_CB_P99_PCT && wait_periods <= TP_WAIT_PERIODS
                  : applied_s >= TP_FLOOD_TARGET;
    printf("throughput clients=%d mode=%s sent=%ld applied=%.0f busy=%ld other_errors=%ld "
           "lost=%.0f xruns=%.0f cmds_per_s=%.0f applied_per_s=%.0f wall_s=%.4f "
           "applied_wall_s=%.4f local_errors=%ld daemon_cmds_busy=%.0f cmd_cap_hits=%.0f "
           "cmd_wait_us_p99=%.1f cmd_wait_us_max=%.1f callback_load_p99=%.4f "
           "callback_load_max=%.4f failed_clients=%d rate=%.0f callback_p99_pct=%.2f "
           "cmd_wait_p99_periods=%.2f target=%s\n",
           nclients, rate > 0.0 ? "paced" : "flood", sent, applied, busy, other, lost, xruns,
           (double)sent / wall, applied_s, wall, applied_wall, local,
           bd_stat(&st, "cmds_busy") - busy0, bd_stat(&st, "cmd_cap_hits") - cap0,
           bd_stat(&st, "cmd_wait_us_p99"), bd_stat(&st, "cmd_wait_us_max"),
           bd_stat(&st, "callback_load_p99"), bd_stat(&st, "callback_load_max"), failed, rate,
           cb_pct, wait_periods, met ? "met" : "missed");
    fflush(stdout);
    free(cl);
    free(th);
    return (rc || failed || lost != 0.0) ? 1 : 0;
}

int main(int argc, char **argv) {
    const char *heliod_arg = NULL, *clients_arg = TP_DEF_CLIENTS;
    long commands = TP_DEF_COMMANDS;
    double rate = -1.0; /* both: paced at TP_DEF_RATE, then the flood */
    const bo_opt_t opts[] = {{"heliod", 's', &heliod_arg},
                             {"rate", 'd', &rate},
                             {"clients", 's', &clients_arg},
                             {"commands", 'l', &commands},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts,
             "[--heliod PATH] [--clients N,N] [--commands N] [--rate CMDS_PER_S]");
    int runs[TP_MAX_RUNS], nruns = 0;
    char *list = strdup(clients_arg);
    for (char *t = strtok(list, ","); t && nruns < TP_MAX_RUNS; t = strtok(NULL, ",")) {
        int n = atoi(t);
        if (n < 1 || n > TP_MAX_CLIENTS) return 2;
        runs[nruns++] = n;
    }
    free(list);
    if (nruns == 0 || commands < 1 || (rate < 0.0 && rate != -1.0)) return 2;

    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    char voices_s[TP_NUM_LEN];
    snprintf(voices_s, sizeof voices_s, "%d", TP_DAEMON_VOICES);
    /* every client is a thread of this process: the per-client voice quota
     * is raised to the daemon's voices so that 16 clients' plays all fit */
    char period_s[TP_NUM_LEN], rate_s[TP_NUM_LEN];
    snprintf(period_s, sizeof period_s, "%d", TP_PERIOD);
    snprintf(rate_s, sizeof rate_s, "%d", BD_RATE);
    /* no CPU governor: it would make voices virtual past its budget (16
     * clients' plays exceed it on a small machine), and a virtual voice's
     * SETs reach no mixer (counted lost) or wait for its start (EBUSY at
     * the schedule quota): the commands' path is measured, not the governor */
    const char *args[] = {
        "--driver", "null",   "--rate",          rate_s,   "--period",     period_s,
        "--voices", voices_s, "--client-voices", voices_s, "--cpu-budget", "0",
        NULL};
    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    int rc = 1;
    char wav[BD_PATH_MAX];
    snprintf(wav, sizeof wav, "%s/noise.wav", d.dir);
    if (bd_write_noise_wav(wav, BD_RATE, 3) != 0) goto out;
    /* shared: the clients play it from their own connections (a sound is
     * otherwise its loader's alone, and every play would be ENOSOUND) */
    int err = heliod_load(h, "noise", wav, HELIOD_LOAD_SHARED, NULL);
    if (err) {
        fprintf(stderr, "load: %s (%s)\n", heliod_strerror(err), heliod_last_error(h));
        goto out;
    }
    rc = 0;
    if (rate != 0.0) /* paced */
        for (int r = 0; r < nruns; r++)
            rc |= run(&d, h, runs[r], commands, rate > 0.0 ? rate : TP_DEF_RATE);
    if (rate <= 0.0) /* the flood */
        for (int r = 0; r < nruns; r++)
            rc |= run(&d, h, runs[r], commands, 0.0);
out:
    heliod_close(h);
    bd_daemon_stop(&d, rc != 0);
    return rc;
}
