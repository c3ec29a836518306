/*
 * evict.c - the sample-memory budget's eviction with many sounds, through
 * the real daemon: N tiny sounds (0.01 s mono, in banks of 1024) fill
 * --max-sample-mb, then one big LOAD needs nearly all of them evicted while
 * another client pings every millisecond:
 *
 *   evict sounds=N evicted=... scanned=... evict_max_ms=... load_ms=...
 *         ping_max_ms=... pings=...
 *
 * evict_max_ms is the daemon's longest single eviction walk (STATS
 * samples_evict_max_us), scanned the entries it looked at; ping_max_ms is
 * the worst stall another client saw while the big load ran.
 *
 * usage: evict [--heliod PATH] [--sounds N]   (N: 1 .. 16383, default 16000)
 */
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sndfile.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define TINY_FRAMES 480 /* 0.01 s: 1920 decoded bytes */
#define PER_BANK    1024

typedef struct {
    const bd_daemon_t *d;
    atomic_int stop;
    double max_ms;
    long pings;
    int failed;
} pinger_t;

static void *pinger(void *arg) {
    pinger_t *p = arg;
    heliod_t *h = NULL;
    if (bd_connect(p->d, "pinger", &h) != 0) {
        p->failed = 1;
        return NULL;
    }
    while (!atomic_load(&p->stop)) {
        uint64_t t0 = bd_now_ns();
        if (heliod_ping(h, NULL) < 0) {
            p->failed = 1;
            break;
        }
        double ms = (double)(bd_now_ns() - t0) / 1e6;
        if (ms > p->max_ms) p->max_ms = ms;
        p->pings++;
        bd_sleep(0.001);
    }
    heliod_close(h);
    return NULL;
}

static int bank_loaded(heliod_t *h, const char *name) {
    static heliod_bank_info_t b[256];
    size_t n = 0;
    if (heliod_banks(h, b, 256, &n) < 0) return -1;
    for (size_t k = 0; k < n && k < 256; k++)
        if (!strcmp(b[k].name, name))
            return b[k].state == HELIOD_BANK_LOADING  ? 0
                   : b[k].state == HELIOD_BANK_LOADED ? 1
                                                      : -1;
    return -1;
}

int main(int argc, char **argv) {
    char heliod[BD_PATH_MAX];
    const char *arg = NULL;
    long nsounds = 16000; /* HL_MAX_SOUNDS is 16384: the big one needs a place too */
    const bo_opt_t opts[] = {{"heliod", 's', &arg}, {"sounds", 'l', &nsounds}, {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, "[--heliod PATH] [--sounds N]");
    if (nsounds < 1 || nsounds >= 16 * PER_BANK) {
        fprintf(stderr, "evict: --sounds is 1 .. %d\n", 16 * PER_BANK - 1);
        return 2;
    }
    if (bd_heliod_path(arg, heliod, sizeof heliod) != 0) return 2;
    /* the budget holds every tiny sound with a little room */
    unsigned long mb = (unsigned long)((nsounds * TINY_FRAMES * 4L) >> 20) + 1;
    char mbs[32];
    snprintf(mbs, sizeof mbs, "%lu", mb);
    bd_daemon_t d;
    heliod_t *h = NULL;
    const char *args[] = {"--driver", "null", "--max-sample-mb", mbs, "--client-sample-mb",
                          mbs,        NULL};
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    heliod_set_timeout(h, 60000);
    for (int i = 0; i < PER_BANK; i++) {
        char p[BD_PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/t%04d.wav", d.dir, i);
        if (bd_write_noise_wav(p, TINY_FRAMES, (uint64_t)i + 1) != 0) return 1;
    }
    for (long k = 0; k * PER_BANK < nsounds; k++) {
        long in_bank = nsounds - k * PER_BANK < PER_BANK ? nsounds - k * PER_BANK : PER_BANK;
        char man[BD_PATH_MAX + 32], name[32];
        snprintf(name, sizeof name, "tiny%ld", k);
        snprintf(man, sizeof man, "%s/%s.ini", d.dir, name);
        FILE *m = fopen(man, "w");
        if (!m) return 1;
        fprintf(m, "name = %s\n", name);
        for (int i = 0; i < in_bank; i++)
            fprintf(m, "[sound s%02ld_%04d]\npath = t%04d.wav\n", k, i, i);
        fclose(m);
        if (heliod_bank_load(h, man, NULL) < 0) {
            fprintf(stderr, "evict: bank load: %s\n", heliod_last_error(h));
            return 1;
        }
        int st;
        while ((st = bank_loaded(h, name)) == 0)
            bd_sleep(0.005);
        if (st != 1) {
            fprintf(stderr, "evict: bank %s did not load\n", name);
            return 1;
        }
    }
    /* the big sound: the budget less a few tiny sounds' worth */
    uint64_t big_frames = ((uint64_t)mb << 20) / 4 - 4 * TINY_FRAMES;
    char big[BD_PATH_MAX + 32];
    snprintf(big, sizeof big, "%s/big.wav", d.dir);
    if (bd_write_noise_wav(big, (uint32_t)big_frames, 7) != 0) return 1;
    bd_stats_t st0, st1;
    bd_stats(h, &st0, 0);
    pinger_t p = {.d = &d};
    pthread_t th;
    if (pthread_create(&th, NULL, pinger, &p) != 0) return 1;
    bd_sleep(0.05);
    uint64_t t0 = bd_now_ns();
    int rc = heliod_load(h, "big", big, 0, NULL);
    double load_ms = (double)(bd_now_ns() - t0) / 1e6;
    if (rc < 0) fprintf(stderr, "evict: big load: %s\n", heliod_last_error(h));
    bd_sleep(0.05);
    atomic_store(&p.stop, 1);
    pthread_join(th, NULL);
    bd_stats(h, &st1, 0);
    double evicted = bd_stat(&st1, "samples_evictions") - bd_stat(&st0, "samples_evictions");
    double scanned =
        bd_stat(&st1, "samples_evict_scanned") - bd_stat(&st0, "samples_evict_scanned");
    printf("evict sounds=%ld evicted=%.0f scanned=%.0f evict_max_ms=%.3f load_ms=%.1f "
           "ping_max_ms=%.3f pings=%ld load=%s failed_clients=%d\n",
           nsounds, evicted, scanned, bd_stat(&st1, "samples_evict_max_us") / 1000.0, load_ms,
           p.max_ms, p.pings, rc == 0 ? "ok" : heliod_strerror(rc), p.failed);
    heliod_close(h);
    bd_daemon_stop(&d, 0);
    return rc == 0 && !p.failed ? 0 : 1;
}
