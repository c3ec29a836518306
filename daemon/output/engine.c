/*
 * engine.c - mixer memory, backend choice, the RT render wrapper and its
 * timing histogram (see engine.h).
 *
 * Histogram: bucket index from the position of the top bit of the duration
 * in ns and the next HLD_CB_HIST_SUB bits below it, i.e. 4 log-spaced buckets
 * per octave, 256 buckets covering all of uint64. The audio thread only does
 * relaxed fetch_adds; readers take a snapshot and subtract a baseline, so a
 * reset never has to write memory the audio thread is incrementing.
 */
#include "engine.h"
#include "hl_layout.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fp_mode.h"
#include "hrtf_load.h"
#include "hugemem.h"
#include "log.h"
#include "mix_workers.h"

_Thread_local int heliod_rt_thread_flag;

#define HIST_SUB_BITS 2 /* log2(HLD_CB_HIST_SUB) */

static unsigned hist_bucket(uint64_t ns) {
    if (ns < 2 * HLD_CB_HIST_SUB) return (unsigned)ns;
    unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
    return msb * HLD_CB_HIST_SUB +
           (unsigned)((ns >> (msb - HIST_SUB_BITS)) & (HLD_CB_HIST_SUB - 1));
}

/* Representative value (ns) of a bucket: the middle of its range. */
static double hist_value(unsigned b) {
    if (b < 2 * HLD_CB_HIST_SUB) return (double)b;
    unsigned msb = b / HLD_CB_HIST_SUB, sub = b % HLD_CB_HIST_SUB;
    double lo = (double)((uint64_t)(HLD_CB_HIST_SUB + sub) << (msb - HIST_SUB_BITS));
    double hi = (double)((uint64_t)(HLD_CB_HIST_SUB + sub + 1) << (msb - HIST_SUB_BITS));
    return (lo + hi) / 2;
}

double hld_engine_hist_ns(unsigned b) {
    return b < HLD_CB_HIST_BUCKETS ? hist_value(b) : 0.0;
}

/* The output fade of device switches: a linear ramp towards the target; free
 * once settled at 1, a memset at 0. */
static void fade_rt(hld_engine_t *e, float *out, uint32_t frames) {
    int target = atomic_load_explicit(&e->fade_target, memory_order_acquire);
    float g = e->fade_gain;
    if (target && g >= 1.0f) return;
    if (!target && g <= 0.0f) {
        memset(out, 0, (size_t)frames * e->channels * sizeof(float));
        atomic_store_explicit(&e->fade_silent, 1, memory_order_release);
        return;
    }
    float step = target ? e->fade_step : -e->fade_step;
    for (uint32_t i = 0; i < frames; i++) {
        g += step;
        g = g < 0.0f ? 0.0f : g > 1.0f ? 1.0f : g;
        for (unsigned c = 0; c < e->channels; c++)
            out[i * e->channels + c] *= g;
    }
    e->fade_gain = g;
    if (!target && g <= 0.0f) atomic_store_explicit(&e->fade_silent, 1, memory_order_release);
}

/* The mixer's command-drain budget clock (hl_mixer_config_t.clock_ns): the
 * daemon's, so a render's virtual clock, which stands still within a call,
 * leaves the drain to its count cap and a render does not depend on the
 * machine's speed. */
static uint64_t drain_clock_rt(void) {
    return hld_now_ns();
}

/* The engine's output for `frames` frames at the engine rate: the mixer,
 * then the recording and the meters' tap (both at the engine rate). */
static void render_block_rt(hld_engine_t *e, float *out, uint32_t frames, uint64_t t0) {
    hl_mixer_process_rt(e->mixer, out, frames, t0);
    if (e->rec) hld_recorder_write_rt(e->rec, out, frames);
    if (e->tap)
        hld_meter_tap_write_rt(e->tap, hl_mixer_meter_rt(e->mixer), out, frames, e->channels);
}

typedef struct {
    hld_engine_t *e;
    uint64_t t0;
} pull_ctx_t;

/* The converter's input: engine blocks (a device at another rate). */
static void pull_block_rt(void *user, float *buf, uint32_t frames) {
    pull_ctx_t *c = user;
    render_block_rt(c->e, buf, frames, c->t0);
}

/* The audio thread's whole job: called by the backend once per period.
 * Only the active generation renders, and only one thread at a time is in
 * the mixer: in_render is taken first, the generation checked after (a
 * stale stream that read the old active_gen before a swap cannot slip in
 * once the swapper holds in_render: it takes it after the swapper's release
 * and so sees the new generation). A cheap check first keeps a stale stream
 * from taking in_render at all in the common case. */
static void engine_render_rt(void *user, float *out, uint32_t frames, uint32_t xrun) {
    hld_engine_port_t *port = user;
    hld_engine_t *e = port->e;
    if (port->gen != atomic_load_explicit(&e->active_gen, memory_order_acquire) ||
        atomic_exchange_explicit(&e->in_render, 1, memory_order_acquire)) {
        memset(out, 0, (size_t)frames * e->channels * sizeof(float)); /* a retired backend */
        return;
    }
    if (port->gen != atomic_load_explicit(&e->active_gen, memory_order_acquire)) {
        atomic_store_explicit(&e->in_render, 0, memory_order_release); /* retired meanwhile */
        memset(out, 0, (size_t)frames * e->channels * sizeof(float));
        return;
    }
    heliod_rt_thread_flag = 1;
    uint64_t t0 = hld_now_ns();
    atomic_store_explicit(&e->last_cb_ns, t0, memory_order_relaxed);
    if (port->rs) {
        pull_ctx_t c = {e, t0};
        hl_resample_process_rt(port->rs, out, frames, pull_block_rt, &c);
    } else {
        render_block_rt(e, out, frames, t0);
    }
    fade_rt(e, out, frames); /* the mix has the layout's channels (hl_mixer_config_t.layout) */
    uint64_t dur = hld_now_ns() - t0;

    atomic_fetch_add_explicit(&e->callbacks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&e->cb_ns_sum, dur, memory_order_relaxed);
    atomic_fetch_add_explicit(&e->cb_hist[hist_bucket(dur)], 1, memory_order_relaxed);
    if (dur > atomic_load_explicit(&e->cb_ns_max, memory_order_relaxed))
        atomic_store_explicit(&e->cb_ns_max, dur, memory_order_relaxed);
    if (dur > atomic_load_explicit(&e->cb_ns_recent, memory_order_relaxed))
        atomic_store_explicit(&e->cb_ns_recent, dur, memory_order_relaxed); /* governor.c */
    if (dur > e->period_ns) /* the callback itself missed its deadline: our cost, not the OS */
        atomic_fetch_add_explicit(&e->overruns, 1, memory_order_relaxed);
    if (xrun) atomic_fetch_add_explicit(&e->xruns, 1, memory_order_relaxed);
    if (xrun & HLD_XRUN_UNDERFLOW)
        atomic_fetch_add_explicit(&e->underruns, 1, memory_order_relaxed);
    heliod_rt_thread_flag = 0;
    atomic_store_explicit(&e->in_render, 0, memory_order_release);
}

/* Ports. A port is what a backend's callback gets as its user pointer: the
 * engine, the generation and the converter. The thread that owns the
 * backends (the device worker; the main thread before and after it) claims
 * one for each open, and only a port no callback can reach any more:
 *   FREE     never used, or its backend was closed and no callback can come
 *   OPEN     its backend is open (maybe running, maybe the active one)
 *   CLOSING  its backend was closed by handing the stream to backend_pa.c's
 *            closer thread: a late callback may still read the port (its
 *            generation is retired, so it renders silence) until the closer
 *            is done (hld_pa_busy() 0); then it is as good as FREE
 * A failed open gives its port back at once (the backend never started) and
 * never touches another port: the active port's generation and converter
 * are never written while it is in use. A converter is freed only when its
 * port is free; the audio thread only uses one under in_render with its
 * generation active, which a retired port's never is again. */
enum { PORT_FREE, PORT_OPEN, PORT_CLOSING };

static void port_free_converter(hld_engine_port_t *port) {
    free(port->rs_mem);
    port->rs_mem = NULL;
    port->rs = NULL;
}

/* A port no callback can reach, its old converter freed; NULL when all are
 * in use (a closer thread stuck on a stream, and that many switches). */
static hld_engine_port_t *port_claim(hld_engine_t *e) {
    int busy = -1; /* hld_pa_busy(), asked once, only if needed */
    for (unsigned i = 0; i < HLD_ENGINE_PORTS; i++) {
        hld_engine_port_t *port = &e->ports[i];
        if (port->state == PORT_CLOSING) {
            if (busy < 0) busy = hld_pa_busy();
            if (!busy) port->state = PORT_FREE;
        }
        if (port->state != PORT_FREE) continue;
        port_free_converter(port);
        port->e = e;
        port->state = PORT_OPEN;
        return port;
    }
    return NULL;
}

static hld_engine_port_t *port_of(hld_engine_t *e, uint32_t gen) {
    for (unsigned i = 0; i < HLD_ENGINE_PORTS; i++)
        if (e->ports[i].state == PORT_OPEN && e->ports[i].gen == gen) return &e->ports[i];
    return NULL;
}

void hld_engine_backend_close(hld_engine_t *e, hld_backend_t *b) {
    if (!b->ops) return;
    uint32_t gen = b->gen;
    b->closing = 0;
    hld_backend_close(b);
    hld_engine_port_t *port = port_of(e, gen);
    if (!port) return;
    if (b->closing) {
        port->state = PORT_CLOSING; /* reclaimed once the closer is done */
    } else {
        port_free_converter(port); /* stopped and closed: no callback comes */
        port->state = PORT_FREE;
    }
}

/* The port's converter for a backend at another rate, for the layout's
 * channels (off the audio thread: the port's generation is not active yet;
 * its buffers are sized here for the engine period). 0, HELIOD_EINVAL or
 * HELIOD_ENOMEM. */
static int port_converter(hld_engine_t *e, hld_engine_port_t *port, uint32_t dev_rate) {
    port_free_converter(port);
    if (dev_rate == 0 || dev_rate == e->rate) return 0;
    size_t size = hl_resample_size(e->rate, dev_rate, e->period, e->channels);
    if (!size) return HELIOD_EINVAL;
    port->rs_mem = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!port->rs_mem) return HELIOD_ENOMEM;
    port->rs = hl_resample_init(port->rs_mem, size, e->rate, dev_rate, e->period, e->channels);
    if (!port->rs) {
        port_free_converter(port);
        return HELIOD_EINVAL;
    }
    hld_info("output: converting %u Hz to the device's %u Hz (%.1f frames of delay)", e->rate,
             dev_rate, hl_resample_delay_frames(port->rs));
    return 0;
}

int hld_engine_backend_open(hld_engine_t *e, int null_driver, const char *device,
                            hld_backend_t *out) {
    hld_engine_port_t *port = port_claim(e);
    if (!port) {
        hld_warn("output: every render port is still in use by a closing device");
        return HELIOD_EBUSY;
    }
    uint32_t gen = ++e->next_gen;
    if (gen == 0) gen = ++e->next_gen; /* 0: no generation (active_gen before the first) */
    port->gen = gen;
    hld_backend_config_t bc = {
        .rate = e->rate,
        .period = e->period,
        .channels = e->channels,
        .device = device,
        .render = engine_render_rt,
        .user = port,
    };
    int rc = null_driver == HLD_BACKEND_RENDER ? hld_backend_render_open(out, &bc)
             : null_driver                     ? hld_backend_null_open(out, &bc)
                                               : hld_backend_pa_open(out, &bc);
    int opened = rc == 0;
    if (opened) rc = port_converter(e, port, out->rate);
    if (rc != 0) {
        if (opened) hld_backend_close(out); /* opened, never started */
        port_free_converter(port);
        port->state = PORT_FREE; /* no callback ever had it */
        return rc;
    }
    out->gen = gen;
    return 0;
}

static int open_backend_any(hld_engine_t *e, const hld_config_t *cfg) {
    if (cfg->driver == HLD_DRIVER_NULL) return hld_engine_backend_open(e, 1, NULL, &e->backend);
    if (cfg->driver == HLD_DRIVER_RENDER)
        return hld_engine_backend_open(e, HLD_BACKEND_RENDER, NULL, &e->backend);
    int rc = hld_engine_backend_open(e, 0, cfg->device, &e->backend);
    /* a surround --layout asked for speakers: no silent fallback to no sound */
    if (rc == 0 || cfg->driver == HLD_DRIVER_PORTAUDIO || e->channels != HLD_CHANNELS) return rc;
    hld_warn("no usable PortAudio output device: using the null driver (no sound)");
    return hld_engine_backend_open(e, 1, NULL, &e->backend);
}

static int open_backend(hld_engine_t *e, const hld_config_t *cfg) {
    int rc = open_backend_any(e, cfg);
    if (rc == 0) atomic_store(&e->active_gen, e->backend.gen);
    return rc;
}

static void sleep_ns(uint64_t ns) {
    struct timespec t = {.tv_sec = (time_t)(ns / HLD_NS_PER_S),
                         .tv_nsec = (long)(ns % HLD_NS_PER_S)};
    while (nanosleep(&t, &t) != 0) {
    }
}

/* Renders, silently, the periods wall time passed since the last callback
 * (the recording gets them), so the engine clock keeps time while no device
 * runs. The swapping thread, holding in_render. */
static void catch_up(hld_engine_t *e) {
    uint64_t last = atomic_load_explicit(&e->last_cb_ns, memory_order_relaxed);
    uint64_t now = hld_now_ns();
    uint64_t gap = last && now > last ? now - last : 0;
    uint64_t blocks = gap / e->period_ns;
    blocks = blocks > 0 ? blocks - 1 : 0; /* the next callback covers one */
    uint64_t cap = 2 * HLD_NS_PER_S / e->period_ns;
    if (blocks > cap) blocks = cap;
    hld_fp_mode_t fp = hld_fp_mode_save(); /* the mixer sets FTZ/DAZ: not this thread's */
    heliod_rt_thread_flag = 1;             /* the RT rule holds here too (tests/rt checks) */
    for (uint64_t i = 0; i < blocks; i++)
        render_block_rt(e, e->scratch, e->period, hld_now_ns());
    heliod_rt_thread_flag = 0;
    hld_fp_mode_restore(fp);
}

int hld_engine_swap(hld_engine_t *e, hld_backend_t *nb, int old_lost, pthread_mutex_t *lock) {
    int was_started = e->started;
    if (was_started && !old_lost) {
        /* fade out, then let the device play what it holds (the ramp's tail) */
        atomic_store_explicit(&e->fade_silent, 0, memory_order_release);
        atomic_store_explicit(&e->fade_target, 0, memory_order_release);
        uint64_t deadline = hld_now_ns() + 100 * HLD_NS_PER_MS;
        while (!atomic_load_explicit(&e->fade_silent, memory_order_acquire) &&
               hld_now_ns() < deadline)
            sleep_ns(HLD_NS_PER_MS);
        double lat = e->backend.latency_s < 0.05 ? e->backend.latency_s : 0.05;
        sleep_ns((uint64_t)(lat * HLD_NS_PER_S) + e->period_ns);
    }
    hld_backend_t old = e->backend;
    old.dead = old_lost;
    /* a lost backend is abandoned (not stopped): retire its generation */
    atomic_store_explicit(&e->active_gen, nb->gen, memory_order_release);
    if (was_started && !old_lost) hld_backend_stop(&old);
    atomic_store_explicit(&e->fade_target, 0, memory_order_release);
    /* No callback renders now: the mixer is this thread's until nb starts
     * (catch_up keeps the clock), under the callback's own guard. A stream
     * declared lost may be in the mixer now or wake up any time later, and
     * two threads in it at once would be two consumers of its command ring;
     * once this thread holds in_render, such a callback sees its generation
     * retired and renders silence. A callback that stays inside (its thread
     * stopped mid-render) is waited for a bounded time only: then there is
     * no catch-up, and nb's callbacks skip until it leaves (never two in the
     * mixer; the device worker never hangs). */
    uint64_t give_up = hld_now_ns() + HLD_ENGINE_SWAP_WAIT_MS * HLD_NS_PER_MS;
    int owned;
    while (!(owned = !atomic_exchange_explicit(&e->in_render, 1, memory_order_acquire)) &&
           hld_now_ns() < give_up)
        sleep_ns(HLD_NS_PER_MS / 10);
    if (!owned) {
        hld_warn("output: a lost stream's callback is still in the mixer after %d ms: no "
                 "catch-up render",
                 HLD_ENGINE_SWAP_WAIT_MS);
    } else {
        e->fade_gain = 0.0f; /* only now: a late callback may have been fading it */
        if (was_started && e->scratch) catch_up(e);
        atomic_store_explicit(&e->in_render, 0, memory_order_release);
    }
    if (lock) pthread_mutex_lock(lock);
    e->backend = *nb;
    if (lock) pthread_mutex_unlock(lock);
    atomic_store_explicit(&e->fade_target, 1, memory_order_release);
    int rc = was_started ? hld_backend_start(&e->backend) : 0;
    if (rc != 0) {
        hld_backend_t failed = e->backend;
        if (lock) pthread_mutex_lock(lock);
        e->backend = old;
        e->backend.dead = 0;
        if (lock) pthread_mutex_unlock(lock);
        atomic_store_explicit(&e->active_gen, old.gen, memory_order_release);
        hld_engine_backend_close(e, &failed);
        if (!old_lost && hld_backend_start(&e->backend) != 0) e->started = 0;
        return HELIOD_EIO;
    }
    /* a lost one is closed by the device worker (its copy), on PortAudio's
     * closer thread (backend_pa.c) */
    if (!old_lost) hld_engine_backend_close(e, &old);
    return 0;
}

static const char *driver_name(hld_driver_t d) {
    switch (d) {
    case HLD_DRIVER_PORTAUDIO: return "portaudio";
    case HLD_DRIVER_NULL: return "null";
    case HLD_DRIVER_RENDER: return "render";
    default: return "auto";
    }
}

/* Frees the mixer, its sinc table and its HRTF set (no audio thread runs). */
static void free_mixer(hld_engine_t *e) {
    hld_mix_workers_close(e->mixw, e->mixer); /* the audio thread is gone */
    e->mixw = NULL;
    hld_huge_free(e->mem);
    e->mem = NULL;
    e->mixer = NULL;
    free(e->sinc_mem);
    e->sinc_mem = NULL;
    hld_hrtf_free(e->hrtf_mem);
    e->hrtf_mem = NULL;
    e->hrtf = NULL;
}

int hld_engine_open(hld_engine_t *e, const hld_config_t *cfg) {
    memset(e, 0, sizeof *e);
    e->rate = cfg->rate;
    e->period = cfg->period;
    e->channels = cfg->channels ? cfg->channels : HLD_CHANNELS;
    e->period_ns = (uint64_t)cfg->period * HLD_NS_PER_S / cfg->rate;
    e->fade_gain = 1.0f;
    e->fade_step = 1.0f / ((float)cfg->rate * HLD_ENGINE_FADE_MS / 1000.0f);
    atomic_store(&e->fade_target, 1);
    if (cfg->hrtf) {
        char err[256];
        hl_hrtf_set_t *set = NULL;
        uint64_t t0 = hld_now_ns();
        const char *path = cfg->hrtf_path[0] ? cfg->hrtf_path : NULL;
        int rc = hld_hrtf_load(path, cfg->rate, &e->hrtf_mem, &set, err, sizeof err);
        if (rc) {
            hld_error("%s", err);
            return rc;
        }
        e->hrtf = set;
        hld_info("hrtf: %s at %u Hz, %u x %u directions, %d taps, loaded in %.0f ms",
                 path ? path : HLD_HRTF_DEFAULT_PATH, set->rate, set->n_az, set->n_el, HL_HRTF_TAPS,
                 (double)(hld_now_ns() - t0) / HLD_NS_PER_MS);
    }
    hl_mixer_config_t mc = {.rate = cfg->rate,
                            .voices = cfg->voices,
                            .cmd_capacity = hld_cmd_ring_for(cfg->voices),
                            .speed_of_sound = cfg->speed_of_sound,
                            .hrtf = e->hrtf != NULL,
                            .clock_ns = drain_clock_rt,
                            .layout = cfg->layout};
    size_t size = hl_mixer_size(&mc);
    if (!size) {
        hld_error("mixer: invalid configuration (rate %u, voices %u)", cfg->rate, cfg->voices);
        hld_engine_close(e);
        return HELIOD_EINVAL;
    }
    size_t align = 64;
    size = (size + align - 1) / align * align;
    /* voices, buses, scratch: read all over every block, so on huge pages
     * (hugemem.h; normal pages or malloc where refused) */
    const char *hp = getenv("HELIOD_HUGE_PAGES");
    if (hp && hld_huge_parse_mode(hp) < 0)
        hld_warn("HELIOD_HUGE_PAGES must be off, pages or on (got '%s'): on", hp);
    e->mem = hld_huge_alloc(HLD_HUGE_MIXER, size);
    e->mem_bytes = e->mem ? size : 0;
    if (e->mem)
        hld_info("mixer memory: %zu KiB on %s pages (HELIOD_HUGE_PAGES=%s)", size / 1024,
                 hld_huge_is_huge(e->mem) ? "2 MiB" : "normal",
                 (const char *[]){"on", "pages", "off"}[hld_huge_mode()]);
    if (!e->mem) {
        hld_engine_close(e);
        return HELIOD_ENOMEM;
    }
    memset(e->mem, 0, size); /* also faults every page in before the audio thread runs */
    e->mixer = hl_mixer_init(e->mem, size, &mc);
    /* the sinc interpolator's tables (0.5 MB, ~4 ms): built here, before
     * the audio thread, and faulted in by being written */
    size_t ssize = hl_sinc_size();
    e->sinc_mem = aligned_alloc(64, (ssize + 63) / 64 * 64);
    const hl_sinc_t *sinc = e->sinc_mem ? hl_sinc_init(e->sinc_mem, ssize) : NULL;
    if (e->mixer) hl_mixer_set_sinc(e->mixer, sinc);
    if (!e->mixer || !sinc || hl_mixer_set_hrtf(e->mixer, e->hrtf) != 0) {
        hld_error("mixer: init failed");
        e->mixer = NULL;
        hld_engine_close(e);
        return HELIOD_EINVAL;
    }
    int rc = hld_mix_workers_open(&e->mixw, e->mixer,
                                  cfg->mix_threads ? cfg->mix_threads : hld_mix_threads_default());
    if (rc) {
        free_mixer(e);
        return rc;
    }
    rc = open_backend(e, cfg);
    if (rc) {
        hld_error("cannot open the %s output driver: %s", driver_name(cfg->driver),
                  rc == HELIOD_ENODEV ? "no such device" : "device error");
        free_mixer(e);
        return rc;
    }
    if (cfg->record[0]) {
        rc = hld_recorder_open(&e->rec, cfg->record, cfg->rate, cfg->layout);
        if (rc) {
            hld_engine_backend_close(e, &e->backend);
            free_mixer(e);
            return rc;
        }
    }
    rc = hld_meter_tap_open(&e->tap, cfg->rate, e->channels);
    if (rc) {
        hld_engine_close(e);
        return rc;
    }
    e->scratch = calloc((size_t)cfg->period * e->channels, sizeof(float));
    if (!e->scratch) {
        hld_engine_close(e);
        return HELIOD_ENOMEM;
    }
    return 0;
}

int hld_engine_start(hld_engine_t *e) {
    int rc = hld_backend_start(&e->backend);
    if (rc == 0) e->started = 1;
    return rc;
}

void hld_engine_stop(hld_engine_t *e) {
    if (e->started) hld_backend_stop(&e->backend);
    e->started = 0;
    hld_recorder_close(e->rec);
    e->rec = NULL;
}

void hld_engine_close(hld_engine_t *e) {
    hld_engine_stop(e);
    hld_engine_backend_close(e, &e->backend);
    free_mixer(e); /* the audio thread is gone: nothing reads them */
    free(e->scratch);
    e->scratch = NULL;
    for (unsigned i = 0; i < HLD_ENGINE_PORTS; i++)
        port_free_converter(&e->ports[i]); /* no callback renders any more */
    hld_meter_tap_close(e->tap);           /* after the backend: the audio thread is gone */
    e->tap = NULL;
}

static double percentile(const uint64_t *h, uint64_t total, double q) {
    if (!total) return 0;
    uint64_t want = (uint64_t)(q * (double)total);
    if (want < 1) want = 1;
    uint64_t acc = 0;
    for (unsigned b = 0; b < HLD_CB_HIST_BUCKETS; b++) {
        acc += h[b];
        if (acc >= want) return hist_value(b);
    }
    return hist_value(HLD_CB_HIST_BUCKETS - 1);
}

void hld_engine_stats(hld_engine_t *e, hld_engine_stats_t *o) {
    memset(o, 0, sizeof *o);
    uint64_t h[HLD_CB_HIST_BUCKETS], total = 0;
    for (unsigned b = 0; b < HLD_CB_HIST_BUCKETS; b++) {
        h[b] = atomic_load_explicit(&e->cb_hist[b], memory_order_relaxed) - e->base_hist[b];
        total += h[b];
    }
    o->callbacks = atomic_load_explicit(&e->callbacks, memory_order_relaxed);
    o->xruns = atomic_load_explicit(&e->xruns, memory_order_relaxed);
    o->overruns = atomic_load_explicit(&e->overruns, memory_order_relaxed);
    o->underruns = atomic_load_explicit(&e->underruns, memory_order_relaxed);
    uint64_t n = o->callbacks - e->base_callbacks;
    uint64_t sum = atomic_load_explicit(&e->cb_ns_sum, memory_order_relaxed) - e->base_sum;
    o->avg_us = n ? (double)sum / (double)n / HLD_NS_PER_US : 0;
    o->p50_us = percentile(h, total, 0.50) / HLD_NS_PER_US;
    o->p99_us = percentile(h, total, 0.99) / HLD_NS_PER_US;
    o->max_us = (double)atomic_load_explicit(&e->cb_ns_max, memory_order_relaxed) / HLD_NS_PER_US;
    /* Buckets are ~19% wide: a percentile is the bucket's middle, never above the true max. */
    if (o->p50_us > o->max_us) o->p50_us = o->max_us;
    if (o->p99_us > o->max_us) o->p99_us = o->max_us;

    hl_mixer_stats_t ms;
    hl_mixer_stats(e->mixer, &ms);
    uint64_t wtotal = 0, wh[HL_MIX_WAIT_BUCKETS];
    int top = -1;
    for (unsigned i = 0; i < HL_MIX_WAIT_BUCKETS; i++) {
        wh[i] = ms.wait_hist[i] - e->base_wait_hist[i];
        wtotal += wh[i];
        if (wh[i]) top = (int)i;
    }
    if (wtotal) {
        uint64_t want = (uint64_t)(0.99 * (double)wtotal), acc = 0;
        if (want < 1) want = 1;
        for (unsigned i = 0; i < HL_MIX_WAIT_BUCKETS; i++) {
            acc += wh[i];
            if (acc >= want) {
                o->wait_p99_us = hl_mixer_wait_bucket_upper_us(i);
                break;
            }
        }
        /* the mixer's max is never reset: after a reset, bound it by the histogram */
        double mx = (double)ms.wait_max_ns / HLD_NS_PER_US;
        double bound = hl_mixer_wait_bucket_upper_us((unsigned)top);
        o->wait_max_us = mx < bound ? mx : bound;
        if (o->wait_p99_us > o->wait_max_us) o->wait_p99_us = o->wait_max_us;
    }
}

void hld_engine_reset_stats(hld_engine_t *e) {
    for (unsigned b = 0; b < HLD_CB_HIST_BUCKETS; b++)
        e->base_hist[b] = atomic_load_explicit(&e->cb_hist[b], memory_order_relaxed);
    e->base_callbacks = atomic_load_explicit(&e->callbacks, memory_order_relaxed);
    e->base_sum = atomic_load_explicit(&e->cb_ns_sum, memory_order_relaxed);
    atomic_store_explicit(&e->cb_ns_max, 0, memory_order_relaxed);
    hl_mixer_stats_t ms;
    hl_mixer_stats(e->mixer, &ms);
    memcpy(e->base_wait_hist, ms.wait_hist, sizeof e->base_wait_hist);
}
