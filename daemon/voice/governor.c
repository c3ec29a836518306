/*
 * governor.c - the CPU-budget governor (see governor.h).
 */
#include "governor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "governor_calib.h"
#include "hl_layout.h"
#include "hld_limits.h"
#include "log.h"
#include "mix_workers.h"
#include "vm.h"

void hld_governor_init(hld_governor_t *g, const hld_engine_t *e, hld_vm_t *vm, float cpu_budget,
                       float speed_of_sound) {
    memset(g, 0, sizeof *g);
    hld_vm_stats_t vs;
    hld_vm_stats(vm, &vs);
    g->limit = vs.real_cap;
    g->cubic_limit = UINT32_MAX;
    if (cpu_budget <= 0) return; /* off */
    g->budget_ns = (double)e->period_ns * cpu_budget / 100.0;
    /* priced on the engine's layout, and on as many threads as the daemon
     * mixes on (--mix-threads) */
    const int layout = hl_layout_for_channels(e->channels);
    hl_mix_part_t *parts = hld_mix_workers_parts(e->mixw);
    uint64_t shared = 0;
    g->calib_ns = hld_governor_calibrate(e->rate, e->period, layout > 0 ? (uint32_t)layout : 0,
                                         speed_of_sound, e->hrtf, parts, &shared);
    if (parts) hl_mixer_set_parts(e->mixer, parts); /* lent to the calibration: back */
    const uint32_t threads = shared ? hld_mix_workers_threads(e->mixw) : 1;
    g->voice_ns = g->calib_ns * HLD_GOV_CALIB_SAFETY;
    if (g->voice_ns > 0) {
        double fit = g->budget_ns * HLD_GOV_GROW_TO / g->voice_ns * HLD_GOV_START;
        g->limit = hld_vm_set_real_limit(vm, fit < 1 ? 1 : (uint32_t)fit);
    }
    hld_info("cpu budget %.0f us of %.0f us: a worst-case voice costs %.2f us on %u mix "
             "thread%s, %u real voices allowed to start",
             g->budget_ns / 1e3, (double)e->period_ns / 1e3, g->voice_ns / 1e3, threads,
             threads > 1 ? "s" : "", g->limit);
}

void hld_governor_tick(hld_governor_t *g, hld_engine_t *e, hld_vm_t *vm) {
    if (g->budget_ns <= 0) return;
    uint64_t worst = atomic_exchange_explicit(&e->cb_ns_recent, 0, memory_order_relaxed);
    uint64_t cb = atomic_load_explicit(&e->callbacks, memory_order_relaxed);
    uint64_t sum = atomic_load_explicit(&e->cb_ns_sum, memory_order_relaxed);
    uint64_t ncb = cb - g->last_cb;
    hld_gov_sample_t in = {.worst_ns = worst,
                           .mean_ns = ncb ? (double)(sum - g->last_sum) / (double)ncb : 0,
                           .callbacks = ncb,
                           .now_ns = hld_now_ns()};
    g->last_cb = cb;
    g->last_sum = sum;
    hld_vm_stats_t vs;
    hld_vm_stats(vm, &vs);
    hl_mixer_stats_t ms;
    hl_mixer_stats(e->mixer, &ms);
    in.real = vs.real;
    in.mixed = ms.voices_mixed;
    in.hq = vs.cubic_real;
    in.lowq = vs.lowq;
    in.governed = vs.governed;
    unsigned act = hld_governor_step(g, &in);
    if (act & HLD_GOV_SET_QUALITY) hld_vm_set_cubic_limit(vm, g->cubic_limit);
    if (act & HLD_GOV_SET_LIMIT) g->limit = hld_vm_set_real_limit(vm, g->limit);
}
