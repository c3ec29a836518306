/*
 * governor_calib.c - the governor's start-up price of a worst-case voice
 * (see governor_calib.h): a private mixer renders HLD_GOV_CALIB_VOICES of
 * them on the calling thread, which keeps its own floating-point mode; with
 * several mix threads, on the daemon's partitions and workers, lent to it.
 */
#include "governor_calib.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "fp_mode.h"
#include "hl_layout.h"
#include "hl_mix_part.h"
#include "hl_mixer.h"
#include "hl_proto.h"
#include "hld_limits.h"

#define CALIB_SEND_BUS 4 /* the first bus past the four defaults */

/* CLOCK_MONOTONIC in ns: the calibration prices CPU time, never a
 * render's virtual clock (engine.h's hld_now_ns). */
static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * HLD_NS_PER_S + (uint64_t)t.tv_nsec;
}

_Static_assert(HLD_GOV_CALIB_SLOTS == HLD_GOV_CALIB_VOICES * HL_MIX_THREADS * HL_SLOT_FACTOR,
               "the partitions are sized for the calibration's mixer (mix_workers.c)");

/* The daemon's partitions lent to mx (its workers then mix mx's voices):
 * 1, or 0 when there are none or too few slots for mx (one thread). */
static int parts_lend(hl_mixer_t *mx, hl_mix_part_t *parts, hl_mix_part_stats_t *before) {
    if (!parts || hl_mixer_set_parts(mx, parts) != 0) return 0;
    hl_mix_part_stats(parts, before);
    return 1;
}

/* Back from mx once every worker is done with its voices (mx is freed next). */
static void parts_return(hl_mixer_t *mx, hl_mix_part_t *parts, const hl_mix_part_stats_t *before,
                         uint64_t *shared) {
    hl_mix_part_settle(parts, sched_yield);
    hl_mix_part_stats_t after;
    hl_mix_part_stats(parts, &after);
    if (shared) *shared = after.shared - before->shared;
    hl_mixer_set_parts(mx, NULL);
}

double hld_governor_calibrate(uint32_t rate, uint32_t period, uint32_t layout, float speed_of_sound,
                              const hl_hrtf_set_t *hrtf, hl_mix_part_t *parts, uint64_t *shared) {
    enum { SRC_FRAMES = 48000 };
    if (shared) *shared = 0;
    const uint32_t nch = hl_layout_channels((hl_layout_t)layout);
    if (nch == 0) return 0;
    /* several threads: HL_MIX_THREADS full partitions, claimed by the threads */
    const uint32_t nv = parts ? HLD_GOV_CALIB_VOICES * HL_MIX_THREADS : HLD_GOV_CALIB_VOICES;
    hl_mixer_config_t mc = {.rate = rate,
                            .layout = layout,
                            .voices = nv,
                            .cmd_capacity = 2 * nv, /* every play at once */
                            .cmds_per_block = 2 * nv,
                            .speed_of_sound = speed_of_sound,
                            .hrtf = hrtf != NULL};
    size_t size = hl_mixer_size(&mc);
    void *mem = size ? aligned_alloc(64, (size + 63) / 64 * 64) : NULL;
    float *src = malloc(SRC_FRAMES * sizeof *src);
    float *out = malloc((size_t)period * nch * sizeof *out);
    double best = 0;
    hl_mixer_t *mx = mem ? hl_mixer_init(mem, size, &mc) : NULL;
    if (mx && hl_mixer_set_hrtf(mx, hrtf) != 0) mx = NULL;
    /* the post stage's send target: a bus under the master past the defaults */
    int8_t parent[HL_MAX_BUSES];
    for (int b = 0; b < HL_MAX_BUSES; b++)
        parent[b] = -1;
    if (mx && hl_mixer_bus_graph(mx, parent, (1u << (CALIB_SEND_BUS + 1)) - 1u, 0) != 0) mx = NULL;
    hl_mix_part_stats_t before;
    int lent = mx && parts_lend(mx, parts, &before);
    if (mx && src && out) {
        uint32_t x = 12345u;
        for (int i = 0; i < SRC_FRAMES; i++) {
            x = x * 1664525u + 1013904223u;
            src[i] = (float)((int32_t)x >> 8) / 8388608.0f * 0.25f;
        }
        hl_pcm_t pcm = {.data = src, .frames = SRC_FRAMES, .channels = 1, .finite = 1};
        for (uint32_t v = 0; v < nv; v++) {
            double a = v * 2.399963;
            hl_voice_params_t p = {
                .pcm = &pcm,
                .flags = HL_MIX_LOOP | HL_MIX_3D | HL_MIX_CUBIC,
                .gain = 1.0f / (float)nv,
                .pos = {(float)(5 * cos(a)), 1.0f, (float)(5 * sin(a))},
                .pitch = 1.37f + 0.001f * (float)v,
                .min_distance = 1,
                .max_distance = 100,
                .rolloff = 1,
                .model = HL_DIST_INVERSE,
                .vel = {3.0f, 0, 0},
                .doppler_factor = 1,
                .start_frame = v * 97 % SRC_FRAMES,
                /* the post stage on every plane it feeds: filtered, occluded, sent */
                .lp_hz = 2000.0f,
                .occ_db = -6.0f,
                .send_bus = {CALIB_SEND_BUS},
                .send_gain = {0.25f},
            };
            uint64_t h = 0;
            if (hl_mixer_play(mx, &p, 0, &h, NULL) != 0) break;
        }
        /* the mixer sets flush-to-zero and denormals-are-zero for the thread
         * it runs on: this one is not the audio thread, so they go back */
        hld_fp_mode_t fp = hld_fp_mode_save();
        for (int b = 0; b < HLD_GOV_CALIB_BLOCKS; b++) {
            uint64_t t0 = mono_ns();
            hl_mixer_process_rt(mx, out, period, t0);
            double ns = (double)(mono_ns() - t0);
            if (b >= 2 && (best == 0 || ns < best)) best = ns; /* the first ones warm up */
        }
        hld_fp_mode_restore(fp);
    }
    if (lent) parts_return(mx, parts, &before, shared);
    free(out);
    free(src);
    free(mem);
    return best / nv;
}
