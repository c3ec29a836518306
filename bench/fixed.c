/*
 * fixed.c - the per-block fixed costs of the mixer core at small periods:
 * what a callback pays before and after its voices, in ns per block.
 *
 *   empty      a block with no voice: bus clears, the master copy, the
 *              transparent limiter, the stats stores (the floor of every
 *              callback)
 *   limiter    the limiter reducing gain (one voice at 6 dB over the
 *              threshold) minus the same voice under it: the limiter's work
 *   drain      per command: 64 gain sets queued before a block, minus the
 *              same block without them (ring read, wait histogram, apply)
 *   play       per play: 32 plays queued before a block (each starts, pushes
 *              its STARTED event and mixes its first block), minus the
 *              block without them; the voices are stopped between rounds
 *   event      per event: the same plays' STARTED and the stops' ENDED
 *              events drained by hl_mixer_poll on the main thread
 *
 * Each figure is the median of many rounds (blocks interleaved with their
 * baseline so drift cancels). Usage: fixed [-p PERIOD]... (default 64 128
 * 256); one line per period:
 *   fixed period=64 empty_ns=... limiter_ns=... drain_ns_per_cmd=...
 *         play_ns_per_voice=... event_ns=...
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hl_mixer.h"

#define ROUNDS  2001
#define N_SET   64
#define N_PLAY  32
#define PCM_LEN 48000

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double median(uint64_t *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return (double)v[n / 2];
}

static hl_mixer_t *mixer_new(void **mem) {
    hl_mixer_config_t cfg = {.rate = 48000, .voices = 256};
    size_t size = hl_mixer_size(&cfg);
    *mem = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!*mem) return NULL;
    return hl_mixer_init(*mem, size, &cfg);
}

static void drop(void *user, const hl_mix_event_t *ev) {
    (void)user;
    (void)ev;
}

static uint64_t block(hl_mixer_t *m, float *out, uint32_t period) {
    uint64_t t0 = now_ns();
    hl_mixer_process_rt(m, out, period, t0);
    return now_ns() - t0;
}

static int run(uint32_t period) {
    static float out[2 * 4096];
    float *dc = malloc(PCM_LEN * sizeof(float));
    uint64_t *a = malloc(ROUNDS * sizeof *a), *b = malloc(ROUNDS * sizeof *b);
    uint64_t *c = malloc(ROUNDS * sizeof *c);
    void *mem = NULL;
    hl_mixer_t *m = mixer_new(&mem);
    if (!dc || !a || !b || !c || !m) return 1;
    for (int i = 0; i < PCM_LEN; i++)
        dc[i] = 1.0f;
    hl_pcm_t pcm = {.data = dc, .frames = PCM_LEN, .channels = 1, .finite = 1};
    hl_voice_params_t p = {.pcm = &pcm, .gain = 1.0f, .pitch = 1.0f, .flags = HL_MIX_LOOP};
    for (int i = 0; i < 200; i++)
        block(m, out, period); /* warm */

    /* empty */
    for (int r = 0; r < ROUNDS; r++)
        a[r] = block(m, out, period);
    double empty = median(a, ROUNDS);

    /* limiter: one voice over the threshold (gain 2 = +6 dB) vs under (0.25) */
    uint64_t v = 0, st = 0;
    p.gain = 0.25f;
    hl_mixer_play(m, &p, now_ns(), &v, &st);
    for (int i = 0; i < 50; i++)
        block(m, out, period);
    hl_voice_set_t loud = {.mask = HL_MIX_SET_GAIN, .gain = 2.0f, .ramp_frames = 1};
    hl_voice_set_t soft = {.mask = HL_MIX_SET_GAIN, .gain = 0.25f, .ramp_frames = 1};
    for (int r = 0; r < ROUNDS; r++) {
        hl_mixer_set(m, v, &loud, now_ns());
        block(m, out, period); /* the ramp block */
        a[r] = block(m, out, period);
        hl_mixer_set(m, v, &soft, now_ns());
        for (int i = 0; i < 40; i++) /* the limiter's release back under */
            block(m, out, period);
        b[r] = block(m, out, period);
    }
    double lim = median(a, ROUNDS) - median(b, ROUNDS);

    /* drain: N_SET gain sets (to the same value: only the command's cost) */
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N_SET; i++)
            hl_mixer_set(m, v, &soft, now_ns());
        a[r] = block(m, out, period);
        b[r] = block(m, out, period);
    }
    double drain = (median(a, ROUNDS) - median(b, ROUNDS)) / N_SET;
    hl_mixer_stop(m, v, 0, HL_MIX_END_STOPPED, now_ns());
    for (int i = 0; i < 10; i++)
        block(m, out, period);
    hl_mixer_poll(m, drop, NULL);

    /* play + event: N_PLAY voices start in one block; stopped, they end */
    p.gain = 0.001f;
    p.flags = 0;
    uint64_t vs[N_PLAY];
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N_PLAY; i++)
            hl_mixer_play(m, &p, now_ns(), &vs[i], &st);
        a[r] = block(m, out, period); /* starts: play, STARTED, first mix */
        b[r] = block(m, out, period); /* the same voices, steady */
        for (int i = 0; i < N_PLAY; i++)
            hl_mixer_stop(m, vs[i], 1, HL_MIX_END_STOPPED, now_ns());
        block(m, out, period);
        block(m, out, period);
        uint64_t t0 = now_ns();
        size_t ne = hl_mixer_poll(m, drop, NULL);
        c[r] = ne ? (now_ns() - t0) / ne : 0;
    }
    double play = (median(a, ROUNDS) - median(b, ROUNDS)) / N_PLAY;
    double ev = median(c, ROUNDS);

    printf("fixed period=%u empty_ns=%.0f limiter_ns=%.0f drain_ns_per_cmd=%.1f "
           "play_ns_per_voice=%.0f event_ns=%.1f period_ns=%.0f empty_pct=%.3f\n",
           period, empty, lim, drain, play, ev, period * 1e9 / 48000.0,
           100.0 * empty / (period * 1e9 / 48000.0));
    free(mem);
    free(dc);
    free(a);
    free(b);
    free(c);
    return 0;
}

int main(int argc, char **argv) {
    uint32_t periods[16];
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: fixed [-p PERIOD]...\n"
                   "  per-block fixed costs of the mixer core (empty block, limiter,\n"
                   "  command drain, play start, event) at each period (default 64 128 256)\n");
            return 0;
        }
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc && np < 16) {
            long v = strtol(argv[++i], NULL, 10);
            if (v < 16 || v > 4096) {
                fprintf(stderr, "fixed: period must be 16..4096\n");
                return 2;
            }
            periods[np++] = (uint32_t)v;
        } else {
            fprintf(stderr, "fixed: unknown argument %s (see --help)\n", argv[i]);
            return 2;
        }
    }
    if (np == 0) {
        periods[np++] = 64;
        periods[np++] = 128;
        periods[np++] = 256;
    }
    for (int i = 0; i < np; i++)
        if (run(periods[i]) != 0) return 1;
    return 0;
}
