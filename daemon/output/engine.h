/*
 * engine.h - the daemon's audio engine: owns the mixer memory, the output
 * backend and the record tap, and runs the real-time render wrapper.
 *
 *   backend audio thread --> hld_engine render_rt (RT):
 *        heliod_rt_thread_flag = 1
 *        t0 = CLOCK_MONOTONIC (vDSO, no syscall)
 *        hl_mixer_process_rt(out)   -> commands applied, voices mixed
 *        hld_recorder_write_rt(out) -> tap ring (never blocks)
 *        hld_meter_tap_write_rt()   -> level records + output for the meters
 *        duration -> log-spaced histogram of relaxed atomics, max, sum
 *        output fade (device switches): a linear ramp of HLD_ENGINE_FADE_MS
 *          towards fade_target, after the record tap (the recording is not faded)
 *        heliod_rt_thread_flag = 0
 *
 * The mixer and the recorder do not depend on the backend: hld_engine_swap
 * replaces the device under a running engine (device.c's worker calls it).
 *
 * The main thread reads the counters (p50/p99/max) and can restart them.
 * heliod_rt_thread_flag is exported (the executable links with
 * export_dynamic) so tests/rt's LD_PRELOAD hook can tell which allocator and
 * lock calls happen on the audio thread.
 */
#ifndef HLD_ENGINE_H
#define HLD_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "backend.h"
#include "clock.h"
#include "config.h"
#include "hl_mixer.h"
#include "hld_limits.h"
#include "hl_resample.h"
#include "hl_sinc.h"
#include "meter_tap.h"
#include "recorder.h"

#define HLD_ENGINE_PORTS 16 /* render ports: one per open backend (engine.c: claim and retire) */

/* 1 on the audio thread while the render wrapper runs, else 0. */
extern _Thread_local int heliod_rt_thread_flag;

struct hld_engine;
/* What a backend's render callback gets: the engine and the generation of
 * the backend. Only the active generation renders; a stale one (a stream
 * abandoned because its device died and PortAudio cannot stop it) outputs
 * silence. A port is claimed by a successful open only, and reused only
 * once no callback can reach it (engine.c: "Ports"). */
typedef struct {
    struct hld_engine *e;
    uint32_t gen;
    /* a device at another rate than the engine: the converter from the
     * engine rate to the device's (set up by hld_engine_backend_open before
     * the backend starts, freed when the port is free again or at close), else NULL */
    hl_resample_t *rs;
    void *rs_mem;
    int state; /* engine.c's PORT_*: the backends' owner's, never the audio thread's */
} hld_engine_port_t;

typedef struct hld_engine {
    hl_mixer_t *mixer;
    void *mem;
    size_t mem_bytes; /* mem's size: the mixer's, rounded to a cache line (rt_prep locks it) */
    uint32_t rate, period;
    uint32_t channels; /* the layout's (--layout): the devices' and the recording's */
    hld_backend_t backend;
    int started;
    hld_recorder_t *rec;
    hld_meter_tap_t *tap;         /* level figures and the output, for the meters (metering.c) */
    void *hrtf_mem;               /* --hrtf: the set's block (hld_hrtf_load), freed at close */
    void *sinc_mem;               /* the sinc interpolator's tables (hl_sinc.h) */
    const hl_hrtf_set_t *hrtf;    /* the set inside it, given to the mixer; NULL = off */
    struct hld_mix_workers *mixw; /* --mix-threads: the workers and partitions (mix_workers.h) */

    /* written by the audio thread (relaxed) */
    _Atomic uint64_t callbacks, xruns, underruns, cb_ns_sum, cb_ns_max;
    _Atomic uint64_t overruns;     /* callbacks that took longer than a period */
    _Atomic uint64_t cb_ns_recent; /* longest callback since the governor last took it */
    uint64_t period_ns;            /* set before the audio thread starts */
    _Atomic uint64_t cb_hist[HLD_CB_HIST_BUCKETS];

    _Atomic uint64_t last_cb_ns; /* CLOCK_MONOTONIC when the last callback began */
    _Atomic uint32_t active_gen; /* the backend generation allowed to render */
    atomic_int in_render; /* one thread in the mixer at a time: a callback skips, a swap waits */
    uint32_t next_gen;
    hld_engine_port_t ports[HLD_ENGINE_PORTS];

    /* output fade: the target is set by the thread that swaps backends; the
     * gain belongs to the audio thread (and to the swapper while none runs) */
    atomic_int fade_target; /* 1 = sound, 0 = silence */
    atomic_int fade_silent; /* the audio thread reached 0 with target 0 */
    float fade_gain, fade_step;
    float *scratch; /* period x channels floats: the frames rendered while no device runs */

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

/* Representative duration (ns) of bucket b of cb_hist, the middle of its
 * ~19% range (the profiler reads the raw counters for its windows). Any thread. */
double hld_engine_hist_ns(unsigned b);

#define HLD_BACKEND_RENDER 2 /* hld_engine_backend_open's null_driver: the render driver */

#define HLD_ENGINE_FADE_MS 5.0f /* a device switch's fade-out and fade-in */
/* A swap waits this long at most for a stale callback to leave the mixer. */
#define HLD_ENGINE_SWAP_WAIT_MS 200

/* Loads the HRTF set when cfg asks for one (at the engine rate, off the
 * audio thread: it is not running yet), allocates the mixer, opens the
 * backend chosen by cfg (auto falls back to null with a warning) and the
 * recorder. Returns 0 or a negative HELIOD_* code after logging why (an HRTF
 * file that cannot be loaded is an error: never a daemon without the
 * rendering it was asked for). Main thread; the engine is not running yet. */
int hld_engine_open(hld_engine_t *e, const hld_config_t *cfg);
/* Starts the audio thread. 0 or HELIOD_EIO. Main thread. */
int hld_engine_start(hld_engine_t *e);
/* Stops the audio thread, then finalises the recording. Idempotent. Main thread. */
void hld_engine_stop(hld_engine_t *e);
/* Stops if needed and frees everything. Main thread. */
void hld_engine_close(hld_engine_t *e);

/* Opens a backend at the engine's rate and period that calls the engine's
 * render: the null driver if null_driver, else PortAudio's device (NULL/""
 * = the default output). 0 or the backend's error (HELIOD_EBUSY: no render
 * port free, every one held by a device still closing). Not started. A
 * failed open changes nothing the running backend uses. */
int hld_engine_backend_open(hld_engine_t *e, int null_driver, const char *device,
                            hld_backend_t *out);
/* Closes b (hld_backend_close) and gives its port back: free at once, or
 * once backend_pa.c's closer is done when the stream went to it. Every
 * backend hld_engine_backend_open opened is closed through here. The thread
 * that owns the backends. */
void hld_engine_backend_close(hld_engine_t *e, hld_backend_t *b);
/* Replaces the running backend by nb: fades the output out over
 * HLD_ENGINE_FADE_MS and lets the device play the fade, stops the old
 * backend (a lost one is not stopped here: PortAudio's JACK host API blocks
 * stopping a stream whose server died; its generation is retired so a late
 * callback renders silence and never enters the mixer, and the caller closes
 * it on backend_pa.c's closer thread), renders the periods
 * that wall time passed meanwhile into a scratch buffer (so voice, stream and
 * recording positions keep wall time) holding in_render as a callback does
 * (a stale callback still inside is waited for HLD_ENGINE_SWAP_WAIT_MS at
 * most; then no catch-up), starts nb with a fade-in, closes the old one
 * (hld_engine_backend_close). The assignment of e->backend happens under `lock` (may be NULL).
 * If nb does not start it is closed, the old backend is restarted (unless
 * lost) and HELIOD_EIO returned. Never two audio threads at once. The thread
 * that owns the backends (device worker). */
int hld_engine_swap(hld_engine_t *e, hld_backend_t *nb, int old_lost, pthread_mutex_t *lock);

/* Callback-time and command-wait figures since start or the last reset. Main thread. */
void hld_engine_stats(hld_engine_t *e, hld_engine_stats_t *out);
/* Restarts the histograms, average and maxima. Main thread. */
void hld_engine_reset_stats(hld_engine_t *e);

/* The command ring for `voices` mixed voices: HL_CMD_RING, or the power of
 * two above voices + HLD_RING_HOLD_ROOM when more voices than that are
 * configured, so that a request touching every voice at once (STOP_ALL,
 * PAUSE, a client's voices when it goes) always fits, however many there
 * are. Connections are held once HLD_RING_QUEUE_MAX commands are queued,
 * whatever the size, so the queue's delay stays what it is by default. */
static inline uint32_t hld_cmd_ring_for(uint32_t voices) {
    uint32_t c = HL_CMD_RING;
    while (c < voices + HLD_RING_HOLD_ROOM)
        c <<= 1;
    return c;
}
/* The most commands one request may wait for (all or nothing): the ring
 * less the room kept for everyone else; more is EBUSY. */
static inline uint32_t hld_ring_wait_max(uint32_t voices) {
    return hld_cmd_ring_for(voices) - HLD_RING_HOLD_ROOM;
}

#endif /* HLD_ENGINE_H */
