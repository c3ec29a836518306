/*
 * governor.c - the CPU-budget governor (see governor.h).
 */
#include "governor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "hld_limits.h"
#include "log.h"

/* ---- start-up estimate --------------------------------------------------------- */

/* Renders HLD_GOV_CALIB_VOICES worst-case voices (3D, looping, pitch 1.37
 * with Doppler, cubic, mono noise; binaural when the daemon runs with an
 * HRTF set) on a private mixer and returns the cheapest block's cost per
 * voice (the cheapest: preemption only adds). */
static double calibrate(uint32_t rate, uint32_t period, float speed_of_sound,
                        const hl_hrtf_set_t *hrtf) {
    enum { SRC_FRAMES = 48000 };
    hl_mixer_config_t mc = {.rate = rate,
                            .voices = HLD_GOV_CALIB_VOICES,
                            .cmd_capacity = 2 * HLD_GOV_CALIB_VOICES, /* every play at once */
                            .cmds_per_block = 2 * HLD_GOV_CALIB_VOICES,
                            .speed_of_sound = speed_of_sound,
                            .hrtf = hrtf != NULL};
    size_t size = hl_mixer_size(&mc);
    void *mem = size ? aligned_alloc(64, (size + 63) / 64 * 64) : NULL;
    float *src = malloc(SRC_FRAMES * sizeof *src);
    float *out = malloc((size_t)period * HLD_CHANNELS * sizeof *out);
    double best = 0;
    hl_mixer_t *mx = mem ? hl_mixer_init(mem, size, &mc) : NULL;
    if (mx && hl_mixer_set_hrtf(mx, hrtf) != 0) mx = NULL;
    if (mx && src && out) {
        uint32_t x = 12345u;
        for (int i = 0; i < SRC_FRAMES; i++) {
            x = x * 1664525u + 1013904223u;
            src[i] = (float)((int32_t)x >> 8) / 8388608.0f * 0.25f;
        }
        hl_pcm_t pcm = {.data = src, .frames = SRC_FRAMES, .channels = 1, .finite = 1};
        for (uint32_t v = 0; v < HLD_GOV_CALIB_VOICES; v++) {
            double a = v * 2.399963;
            hl_voice_params_t p = {
                .pcm = &pcm,
                .flags = HL_MIX_LOOP | HL_MIX_3D | HL_MIX_CUBIC,
                .gain = 1.0f / HLD_GOV_CALIB_VOICES,
                .pos = {(float)(5 * cos(a)), 1.0f, (float)(5 * sin(a))},
                .pitch = 1.37f + 0.001f * (float)v,
                .min_distance = 1,
                .max_distance = 100,
                .rolloff = 1,
                .model = HL_DIST_INVERSE,
                .vel = {3.0f, 0, 0},
                .doppler_factor = 1,
                .start_frame = v * 97 % SRC_FRAMES,
            };
            uint64_t h = 0;
            if (hl_mixer_play(mx, &p, 0, &h, NULL) != 0) break;
        }
        for (int b = 0; b < HLD_GOV_CALIB_BLOCKS; b++) {
            uint64_t t0 = hld_now_ns();
            hl_mixer_process_rt(mx, out, period, t0);
            double ns = (double)(hld_now_ns() - t0);
            if (b >= 2 && (best == 0 || ns < best)) best = ns; /* the first ones warm up */
        }
    }
    free(out);
    free(src);
    free(mem);
    return best / HLD_GOV_CALIB_VOICES;
}

void hld_governor_init(hld_daemon_t *d) {
    hld_governor_t *g = &d->governor;
    memset(g, 0, sizeof *g);
    hld_vm_stats_t vs;
    hld_vm_stats(d->vm, &vs);
    g->limit = vs.real_cap;
    g->cubic_limit = UINT32_MAX;
    if (d->cfg.cpu_budget <= 0) return; /* off */
    g->budget_ns = (double)d->engine.period_ns * d->cfg.cpu_budget / 100.0;
    g->calib_ns =
        calibrate(d->engine.rate, d->engine.period, d->cfg.speed_of_sound, d->engine.hrtf);
    g->voice_ns = g->calib_ns * HLD_GOV_CALIB_SAFETY;
    if (g->voice_ns > 0) {
        double fit = g->budget_ns * HLD_GOV_GROW_TO / g->voice_ns * HLD_GOV_START;
        g->limit = hld_vm_set_real_limit(d->vm, fit < 1 ? 1 : (uint32_t)fit);
    }
    hld_info("cpu budget %.0f us of %.0f us: a worst-case voice costs %.2f us, %u real voices "
             "allowed to start",
             g->budget_ns / 1e3, (double)d->engine.period_ns / 1e3, g->voice_ns / 1e3, g->limit);
}

void hld_governor_tick(hld_daemon_t *d) {
    hld_governor_t *g = &d->governor;
    if (g->budget_ns <= 0 || d->shutting_down) return;
    hld_engine_t *e = &d->engine;
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
    hld_vm_stats(d->vm, &vs);
    hl_mixer_stats_t ms;
    hl_mixer_stats(e->mixer, &ms);
    in.real = vs.real;
    in.mixed = ms.voices_mixed;
    in.hq = vs.cubic_real;
    in.lowq = vs.lowq;
    in.governed = vs.governed;
    unsigned act = hld_governor_step(g, &in);
    if (act & HLD_GOV_SET_QUALITY) hld_vm_set_cubic_limit(d->vm, g->cubic_limit);
    if (act & HLD_GOV_SET_LIMIT) g->limit = hld_vm_set_real_limit(d->vm, g->limit);
}
