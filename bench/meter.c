/*
 * meter.c - cost of the meters, in CPU nanoseconds per frame at 48 kHz:
 *
 *   meter part=rt_bus      audio thread: one bus's per-block figures (peak of
 *                          each channel, sum of squares of each channel), as
 *                          mixer_bus.c takes them for a bus that ran
 *   meter part=rt_call     audio thread: a whole 256-frame call of an idle
 *                          mixer (bus clears, master copy, limiter, stats and
 *                          the master's meter figures) plus the tap write
 *                          (level record + output into the rings)
 *   meter part=main_levels main thread: feeding 33 meters (32 buses + master)
 *                          one record per 256-frame period, and reading them
 *                          all at 20 Hz
 *   meter part=main_loudness main thread: libebur128 (M, S, I, LRA, sample
 *                          peak) on the stereo output
 *
 * Each part runs until at least -s seconds of CPU time (default 0.5) have
 * passed. Line: meter part=P frames=N cpu_s=S ns_per_frame=X
 * load_pct=L (L: percent of one core at 48 kHz real time).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_opts.h"
#include "hl_mixer.h"
#include "loudness.h"
#include "meter_tap.h"
#include "meters.h"

#define MB_RATE  48000
#define MB_BLOCK 256

/* the mixer core's own helpers (mixer_internal.h): what a bus pays */
double hl_sumsq_rt(const float *x, uint32_t n);
float hl_peak_abs_rt(const float *x, uint32_t n, float pk);

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void report(const char *part, uint64_t frames, double s) {
    double ns = s * 1e9 / (double)frames;
    printf("meter part=%s frames=%llu cpu_s=%.3f ns_per_frame=%.3f load_pct=%.4f\n", part,
           (unsigned long long)frames, s, ns, ns * MB_RATE / 1e7);
}

int main(int argc, char **argv) {
    double secs = 0.5;
    const bo_opt_t opts[] = {{"s", 'd', &secs}, {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, "[-s CPU_SECONDS]   CPU seconds per figure, at least (default 0.5)");
    if (optind < argc) bo_usage(argv[0], "[-s CPU_SECONDS]");
    static float l[MB_BLOCK], r[MB_BLOCK], out[2 * MB_BLOCK];
    for (int t = 0; t < MB_BLOCK; t++) {
        l[t] = 0.5f * sinf(0.1f * (float)t);
        r[t] = 0.25f * cosf(0.07f * (float)t);
        out[2 * t] = l[t];
        out[2 * t + 1] = r[t];
    }

    /* rt_bus */
    volatile double sink = 0;
    uint64_t frames = 0;
    double t0 = cpu_s(), t;
    do {
        for (int k = 0; k < 256; k++) {
            float pl = hl_peak_abs_rt(l, MB_BLOCK, 0.0f), pr = hl_peak_abs_rt(r, MB_BLOCK, 0.0f);
            sink += pl + pr + hl_sumsq_rt(l, MB_BLOCK) + hl_sumsq_rt(r, MB_BLOCK);
        }
        frames += 256 * MB_BLOCK;
    } while ((t = cpu_s() - t0) < secs);
    report("rt_bus", frames, t);

    /* rt_call */
    hl_mixer_config_t cfg = {.rate = MB_RATE, .voices = 64};
    size_t size = (hl_mixer_size(&cfg) + 63) / 64 * 64;
    void *mem = aligned_alloc(64, size);
    hl_mixer_t *m = mem ? hl_mixer_init(mem, size, &cfg) : NULL;
    hld_meter_tap_t *tap = NULL;
    if (!m || hld_meter_tap_open(&tap, MB_RATE, 2) != 0) return 1;
    static hl_mix_meter_t drain[64];
    static float pcm[2 * MB_BLOCK];
    frames = 0;
    t0 = cpu_s();
    do {
        for (int k = 0; k < 64; k++) {
            hl_mixer_process_rt(m, pcm, MB_BLOCK, 0);
            hld_meter_tap_write_rt(tap, hl_mixer_meter_rt(m), pcm, MB_BLOCK, 2);
        }
        frames += 64 * MB_BLOCK;
        (void)hld_meter_tap_read_levels(tap, drain, 64); /* the consumer, off the clock */
        hl_ring_spans_t s;
        hld_meter_tap_pcm_done(tap, hld_meter_tap_read_pcm(tap, &s));
    } while ((t = cpu_s() - t0) < secs);
    report("rt_call", frames, t);
    hld_meter_tap_close(tap);
    free(mem);

    /* main_levels */
    static hld_meter_t meters[HL_MIX_METERS];
    for (int i = 0; i < HL_MIX_METERS; i++)
        if (hld_meter_init(&meters[i], MB_RATE, 0, -1, 0) != 0) return 1;
    frames = 0;
    uint64_t now = 0, next_read = 0;
    float pk[2], hold[2], rms[2];
    t0 = cpu_s();
    do {
        for (int k = 0; k < 256; k++) {
            now += MB_BLOCK;
            for (int i = 0; i < HL_MIX_METERS; i++)
                hld_meter_feed(&meters[i], 0.5f, 0.25f, 40.0, 10.0, MB_BLOCK, now);
            if (now >= next_read) { /* 20 Hz */
                next_read = now + MB_RATE / 20;
                for (int i = 0; i < HL_MIX_METERS; i++)
                    hld_meter_read(&meters[i], pk, hold, rms);
                sink += pk[0] + hold[1] + rms[0];
            }
        }
        frames += 256 * MB_BLOCK;
    } while ((t = cpu_s() - t0) < secs);
    report("main_levels", frames, t);
    for (int i = 0; i < HL_MIX_METERS; i++)
        hld_meter_free(&meters[i]);

    /* main_loudness */
    hld_loudness_t *ld = hld_loudness_create(MB_RATE);
    if (!ld) return 1;
    frames = 0;
    t0 = cpu_s();
    do {
        for (int k = 0; k < 64; k++)
            hld_loudness_feed(ld, out, MB_BLOCK);
        frames += 64 * MB_BLOCK;
    } while ((t = cpu_s() - t0) < secs);
    double mo, st, in, ra;
    hld_loudness_read(ld, &mo, &st, &in, &ra);
    report("main_loudness", frames, t);
    hld_loudness_destroy(ld);
    return sink == 12345.0 ? 3 : 0;
}
