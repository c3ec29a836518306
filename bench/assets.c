/*
 * assets.c - what loading costs, through the real daemon:
 *
 *   (a) decode throughput per format: a bank of one 60 s stereo file at
 *       48 kHz (--seconds S: S s files, default 60; the test suite's smoke
 *       run uses 2), timed from BANK load to its loaded event; MB/s of decoded
 *       samples (float32) and times real time:
 *         assets-decode format=wav seconds=60 load_s=... mb_per_s=... realtime=...
 *   (b) the event loop while a large bank loads (8 files of 60 s stereo,
 *       ~180 MB decoded): pings every millisecond, before and during:
 *         assets-stall idle_ping_p99_ms=... load_ping_p99_ms=... load_ping_max_ms=...
 *                      load_s=...
 *
 * usage: assets [--heliod PATH] [--seconds S]
 */
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sndfile.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define PINGS 20000

static int write_music(const char *path, int format, int seconds) {
    SF_INFO info = {.samplerate = BD_RATE, .channels = 2, .format = format};
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    if (!f) return -1;
    static float buf[2 * 4096];
    double ph[4] = {0};
    const double fr[4] = {110.0, 220.5, 441.3, 1763.0};
    for (long done = 0; done < (long)seconds * BD_RATE; done += 4096) {
        for (int i = 0; i < 4096; i++) {
            double s = 0;
            for (int k = 0; k < 4; k++) {
                ph[k] += 2 * M_PI * fr[k] / BD_RATE;
                s += 0.1 * sin(ph[k]);
            }
            buf[2 * i] = (float)s;
            buf[2 * i + 1] = (float)(0.9 * s);
        }
        sf_writef_float(f, buf, 4096);
    }
    sf_close(f);
    return 0;
}

typedef struct {
    const char *name;
    int loaded;
} wait_t;

static void on_bank(void *user, const heliod_event_t *ev) {
    wait_t *w = user;
    if (ev->type == HELIOD_EVENT_BANK && ev->bank && strcmp(ev->bank->name, w->name) == 0 &&
        (ev->bank->state == HELIOD_BANK_LOADED || ev->bank->state == HELIOD_BANK_FAILED))
        w->loaded = ev->bank->state == HELIOD_BANK_LOADED ? 1 : -1;
}

/* Loads the bank at man and waits for its end; seconds, or -1. */
static double load_bank(heliod_t *h, const char *man, const char *name) {
    wait_t w = {.name = name};
    heliod_set_event_callback(h, on_bank, &w);
    if (heliod_subscribe(h, HELIOD_SUB_BANK) < 0) return -1;
    uint64_t t0 = bd_now_ns();
    if (heliod_bank_load(h, man, NULL) < 0) return -1;
    while (!w.loaded) {
        if (heliod_dispatch(h) < 0) return -1;
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        poll(&p, 1, 10);
    }
    double s = (double)(bd_now_ns() - t0) / 1e9;
    heliod_bank_unload(h, name);
    return w.loaded == 1 ? s : -1;
}

int main(int argc, char **argv) {
    char heliod[BD_PATH_MAX];
    const char *arg = NULL;
    int seconds = 60; /* each file's length */
    const bo_opt_t opts[] = {{"heliod", 's', &arg}, {"seconds", 'i', &seconds}, {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, "[--heliod PATH] [--seconds S]");
    if (seconds < 1 || seconds > 600) {
        fprintf(stderr, "assets: --seconds must be 1..600 (got %d)\n", seconds);
        return 2;
    }
    if (bd_heliod_path(arg, heliod, sizeof heliod) != 0) return 2;
    bd_daemon_t d;
    heliod_t *h = NULL;
    const char *args[] = {"--driver", "null", "--max-sample-mb", "2048", NULL};
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    static const struct {
        const char *name;
        int format;
    } fmts[] = {{"wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16},
                {"flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16},
                {"vorbis", SF_FORMAT_OGG | SF_FORMAT_VORBIS},
                {"mp3", SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III}};
    const double decoded_mb = (double)seconds * BD_RATE * 2 * 4 / 1e6;
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        char path[BD_PATH_MAX + 32], man[BD_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/m.%s", d.dir, fmts[k].name);
        if (write_music(path, fmts[k].format, seconds) != 0) {
            printf("assets-decode format=%s skipped=1 (libsndfile cannot write it)\n",
                   fmts[k].name);
            continue;
        }
        snprintf(man, sizeof man, "%s/%s.ini", d.dir, fmts[k].name);
        FILE *m = fopen(man, "w");
        if (!m) return 1;
        fprintf(m, "name = %s\n[sound m_%s]\npath = m.%s\n", fmts[k].name, fmts[k].name,
                fmts[k].name);
        fclose(m);
        double s = load_bank(h, man, fmts[k].name);
        printf("assets-decode format=%s seconds=%d load_s=%.3f mb_per_s=%.1f realtime=%.0f\n",
               fmts[k].name, seconds, s, s > 0 ? decoded_mb / s : 0.0, s > 0 ? seconds / s : 0.0);
        fflush(stdout);
        bd_sleep(0.3);
    }
    /* (b) the event loop while 8 x 60 s FLAC files decode */
    char man[BD_PATH_MAX + 32];
    snprintf(man, sizeof man, "%s/big.ini", d.dir);
    FILE *m = fopen(man, "w");
    if (!m) return 1;
    fprintf(m, "name = big\n");
    for (int i = 0; i < 8; i++) {
        char path[BD_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/big%d.flac", d.dir, i);
        write_music(path, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, seconds);
        fprintf(m, "[sound big%d]\npath = big%d.flac\n", i, i);
    }
    fclose(m);
    heliod_t *probe = NULL;
    if (bd_connect(&d, "probe", &probe) != 0) return 1;
    static double idle[PINGS], busy[PINGS];
    size_t ni = 0, nb = 0;
    for (int i = 0; i < 500; i++) {
        uint64_t t0 = bd_now_ns();
        heliod_ping(probe, NULL);
        idle[ni++] = (double)(bd_now_ns() - t0) / 1e6;
        bd_sleep(0.001);
    }
    wait_t w = {.name = "big"};
    heliod_set_event_callback(h, on_bank, &w);
    heliod_subscribe(h, HELIOD_SUB_BANK);
    uint64_t t0 = bd_now_ns();
    if (heliod_bank_load(h, man, NULL) < 0) return 1;
    while (!w.loaded && nb < PINGS) {
        uint64_t p0 = bd_now_ns();
        heliod_ping(probe, NULL);
        busy[nb++] = (double)(bd_now_ns() - p0) / 1e6;
        heliod_dispatch(h);
        bd_sleep(0.001);
    }
    double load_s = (double)(bd_now_ns() - t0) / 1e9;
    double idle99 = bd_percentile(idle, ni, 99), busy99 = bd_percentile(busy, nb, 99);
    double busymax = nb ? busy[nb - 1] : NAN; /* sorted by bd_percentile */
    printf("assets-stall idle_ping_p99_ms=%.3f load_ping_p99_ms=%.3f load_ping_max_ms=%.3f "
           "pings=%zu load_s=%.3f decoded_mb=%.0f\n",
           idle99, busy99, busymax, nb, load_s, 8 * decoded_mb);
    heliod_close(probe);
    heliod_close(h);
    bd_daemon_stop(&d, 0);
    return 0;
}
