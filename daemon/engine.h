/*
 * engine.h - the daemon's audio engine: owns the mixer memory, the output
 * backend and the record tap, and runs the real-time render wrapper.
 *
 *   backend audio thread --> hld_engine render_rt (RT):
 *        heliod_rt_thread_flag = 1
 *        t0 = CLOCK_MONOTONIC (vDSO, no syscall)
 *        hl_mixer_process_rt(out)   -> commands applied, voices mixed
 *        hld_recorder_write_rt(out) -> tap ring (never blocks)
 *        duration -> log-spaced histogram of relaxed atomics, max, sum
 *        heliod_rt_thread_flag = 0
 *
 * The main thread reads the counters (p50/p99/max) and can restart them.
 * heliod_rt_thread_flag is exported (the executable links with
 * export_dynamic) so tests/rt's LD_PRELOAD hook can tell which allocator and
 * lock calls happen on the audio thread.
 */
#ifndef HLD_ENGINE_H
#define HLD_ENGINE_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "backend.h"
#include "config.h"
#include "hl_mixer.h"
#include "hld_limits.h"
#include "recorder.h"

/* 1 on the audio thread while the render wrapper runs, else 0. */
extern _Thread_local int heliod_rt_thread_flag;

typedef struct {
    hl_mixer_t *mixer;
    void *mem;
    uint32_t rate, period;
    hld_backend_t backend;
    int started;
    hld_recorder_t *rec;

    /* written by the audio thread (relaxed) */
    _Atomic uint64_t callbacks, xruns, underruns, cb_ns_sum, cb_ns_max;
    _Atomic uint64_t overruns; /* callbacks that took longer than a period */
    uint64_t period_ns;        /* set before the audio thread starts */
    _Atomic uint64_t cb_hist[HLD_CB_HIST_BUCKETS];

    /* main thread: baselines taken by hld_engine_reset_stats */
    uint64_t base_callbacks, base_sum;
    uint64_t base_hist[HLD_CB_HIST_BUCKETS];
    uint64_t base_wait_hist[HL_MIX_WAIT_BUCKETS];
} hld_engine_t;

typedef struct {
    uint64_t callbacks, xruns, underruns;
    uint64_t overruns; /* xruns the callback's own duration explains (the rest: late wake-ups) */
    double avg_us, p50_us, p99_us, max_us;
    double wait_max_us, wait_p99_us;
} hld_engine_stats_t;

/* CLOCK_MONOTONIC in ns. Any thread (RT safe: vDSO). */
static inline uint64_t hld_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * HLD_NS_PER_S + (uint64_t)t.tv_nsec;
}

/* Allocates the mixer, opens the backend chosen by cfg (auto falls back to
 * null with a warning) and the recorder. Returns 0 or a negative HELIOD_*
 * code after logging why. Main thread; the engine is not running yet. */
int hld_engine_open(hld_engine_t *e, const hld_config_t *cfg);
/* Starts the audio thread. 0 or HELIOD_EIO. Main thread. */
int hld_engine_start(hld_engine_t *e);
/* Stops the audio thread, then finalises the recording. Idempotent. Main thread. */
void hld_engine_stop(hld_engine_t *e);
/* Stops if needed and frees everything. Main thread. */
void hld_engine_close(hld_engine_t *e);

/* Callback-time and command-wait figures since start or the last reset. Main thread. */
void hld_engine_stats(hld_engine_t *e, hld_engine_stats_t *out);
/* Restarts the histograms, average and maxima. Main thread. */
void hld_engine_reset_stats(hld_engine_t *e);

#endif /* HLD_ENGINE_H */
