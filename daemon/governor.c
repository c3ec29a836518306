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

static uint32_t governed(hld_daemon_t *d) {
    hld_vm_stats_t vs;
    hld_vm_stats(d->vm, &vs);
    return vs.governed;
}

void hld_governor_tick(hld_daemon_t *d) {
    hld_governor_t *g = &d->governor;
    if (g->budget_ns <= 0 || d->shutting_down) return;
    hld_engine_t *e = &d->engine;
    uint64_t worst = atomic_exchange_explicit(&e->cb_ns_recent, 0, memory_order_relaxed);
    uint64_t cb = atomic_load_explicit(&e->callbacks, memory_order_relaxed);
    uint64_t sum = atomic_load_explicit(&e->cb_ns_sum, memory_order_relaxed);
    uint64_t ncb = cb - g->last_cb;
    double mean = ncb ? (double)(sum - g->last_sum) / (double)ncb : 0;
    g->last_cb = cb;
    g->last_sum = sum;
    if (!ncb || !worst) return; /* no callback since the last look */
    uint32_t real = hld_vm_real_count(d->vm);
    /* the cost of a voice, from the mean (a preempted block says nothing
     * about voices) over the voices mixed (real ones and those still fading
     * out after going virtual): rises at once, decays slowly */
    hl_mixer_stats_t ms;
    hl_mixer_stats(e->mixer, &ms);
    uint32_t mixed = ms.voices_mixed > real ? ms.voices_mixed : real;
    if (mixed >= HLD_GOV_MIN_SAMPLE) {
        double per = (mean - g->base_ns) / mixed;
        if (per > g->voice_ns)
            g->voice_ns = per;
        else
            g->voice_ns += (per - g->voice_ns) * HLD_GOV_DECAY;
    } else if (real == 0) {
        g->base_ns = mean;
    }
    uint32_t limit = g->limit;
    uint64_t now = hld_now_ns();
    /* what the voices are believed to cost: a late block while they cost
     * well under the budget (a preempted thread, a stalled machine) is not
     * theirs to pay for, and cutting them would not make it on time */
    double explained = g->base_ns + mixed * g->voice_ns;
    if ((double)worst > g->budget_ns && real > 0) {
        g->hits++;
        if (explained < g->budget_ns * HLD_GOV_LOW && mean < g->budget_ns * HLD_GOV_LOW) {
            g->spikes++;
            return;
        }
        /* quality before voices: real voices on the sinc or cubic interpolator step
         * down to linear (the least important first) as far as that saves
         * what the worst block is over */
        uint32_t cubic = hld_vm_cubic_count(d->vm);
        uint32_t hq = g->cubic_limit < cubic ? g->cubic_limit : cubic;
        if (hq > 0) {
            double over = (double)worst - g->budget_ns * HLD_GOV_CUT_TO;
            double per = g->voice_ns * HLD_GOV_CUBIC_SAVING;
            double steps = per > 0 ? over / per + 1 : hq;
            g->cubic_limit = steps >= hq ? 0 : hq - (uint32_t)steps;
            g->steps_down++;
            g->hold_ns = now + HLD_GOV_HOLD_MS * HLD_NS_PER_MS;
            hld_vm_set_cubic_limit(d->vm, g->cubic_limit);
            return;
        }
        /* cut to what the worst block says fits; a single late block (the
         * mean is fine) cuts by a tenth at most */
        double scale = g->budget_ns * HLD_GOV_CUT_TO / (double)worst;
        if (mean < g->budget_ns * HLD_GOV_LOW && scale < 0.9) scale = 0.9;
        /* the voices cut fade out on the full path, costing more for a few
         * blocks: a quarter of them at most per poll */
        if (scale < HLD_GOV_CUT_MIN) scale = HLD_GOV_CUT_MIN;
        uint32_t want = (uint32_t)(real * scale);
        if (want < limit) limit = want;
        g->hold_ns = now + HLD_GOV_HOLD_MS * HLD_NS_PER_MS;
    } else if ((double)worst < g->budget_ns * HLD_GOV_LOW && g->voice_ns > 0 && now >= g->hold_ns) {
        double fit = (g->budget_ns * HLD_GOV_GROW_TO - g->base_ns) / g->voice_ns;
        /* the voices a step brings in fade in on the full path: what the
         * headroom pays for at that price, an eighth of the limit at most */
        double room =
            (g->budget_ns * HLD_GOV_GROW_TO - (double)worst) / (g->voice_ns * HLD_GOV_TRANSITION);
        uint32_t step = limit / 8 > HLD_GOV_MIN_STEP ? limit / 8 : HLD_GOV_MIN_STEP;
        if (room < step) step = room > 1 ? (uint32_t)room : 1;
        if (fit > limit) {
            limit = fit > (double)limit + step ? limit + step : (uint32_t)fit;
        } else if (g->cubic_limit != UINT32_MAX && hld_vm_lowq_count(d->vm) > 0 &&
                   governed(d) == 0) {
            /* every voice that can be is real: quality comes back, the most
             * important voices first, as far as the headroom pays for */
            double q = (g->budget_ns * HLD_GOV_GROW_TO - (double)worst) /
                       (g->voice_ns * HLD_GOV_CUBIC_SAVING);
            uint32_t hq = g->cubic_limit,
                     qs = hq / 8 > HLD_GOV_MIN_STEP ? hq / 8 : HLD_GOV_MIN_STEP;
            if (q < qs) qs = q > 1 ? (uint32_t)q : 1;
            g->cubic_limit = hq + qs >= hld_vm_cubic_count(d->vm) ? UINT32_MAX : hq + qs;
            hld_vm_set_cubic_limit(d->vm, g->cubic_limit);
        }
    }
    if (limit < 1) limit = 1;
    if (limit != g->limit) {
        if (limit < g->limit) g->cuts++;
        g->limit = hld_vm_set_real_limit(d->vm, limit);
    }
}
