/*
 * governor_calib.c - the governor's start-up price of a worst-case voice
 * (see governor_calib.h): a private mixer renders HLD_GOV_CALIB_VOICES of
 * them on the calling thread, which keeps its own floating-point mode; with
 * several mix threads, partitioned over that many threads of its own.
 */
#include "governor_calib.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "fp_mode.h"
#include "hl_mix_part.h"
#include "hl_mixer.h"
#include "hl_proto.h"
#include "hld_limits.h"

/* CLOCK_MONOTONIC in ns: the calibration prices CPU time, never a
 * render's virtual clock (engine.h's hld_now_ns). */
static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * HLD_NS_PER_S + (uint64_t)t.tv_nsec;
}

typedef struct {
    hl_mix_part_t *p;
    uint32_t w;
    _Atomic int running;
    pthread_t th;
} calib_worker_t;

/* A calibration worker: spins on its task word (the daemon's, mix_workers.c,
 * spins too between close blocks) until it is asked to leave. */
static void *calib_worker(void *arg) {
    calib_worker_t *cw = arg;
    atomic_store(&cw->running, 1);
    hl_mix_part_spin(cw->p, cw->w, sched_yield);
    return NULL;
}

/* The partitions and threads - 1 workers for mx (threads > 1), each seen
 * running; NULL when there is none (one thread, or out of memory: the
 * price is then the one-thread one). */
static void *parts_open(hl_mixer_t *mx, uint32_t threads, calib_worker_t *cw, uint32_t *started) {
    *started = 0;
    hl_mix_part_config_t pc = {
        .threads = threads, .slots = hl_mixer_slots(mx), .clock_ns = mono_ns};
    size_t size = threads > 1 ? hl_mix_part_size(&pc) : 0;
    void *mem = size ? aligned_alloc(64, (size + 63) / 64 * 64) : NULL;
    hl_mix_part_t *p = mem ? hl_mix_part_init(mem, (size + 63) / 64 * 64, &pc) : NULL;
    if (!p || hl_mixer_set_parts(mx, p) != 0) {
        free(mem);
        return NULL;
    }
    for (uint32_t w = 1; w < threads; w++, (*started)++) {
        cw[w].p = p;
        cw[w].w = w;
        atomic_store(&cw[w].running, 0);
        if (pthread_create(&cw[w].th, NULL, calib_worker, &cw[w]) != 0) break;
    }
    for (uint32_t w = 1; w <= *started; w++)
        while (!atomic_load(&cw[w].running))
            sched_yield();
    return mem;
}

static void parts_close(hl_mixer_t *mx, void *mem, calib_worker_t *cw, uint32_t started,
                        uint64_t *shared) {
    if (!mem) return;
    hl_mix_part_t *p = (hl_mix_part_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    hl_mix_part_stats_t st;
    hl_mix_part_stats(p, &st);
    if (shared) *shared = st.shared;
    hl_mix_part_quit(p);
    for (uint32_t w = 1; w <= started; w++)
        pthread_join(cw[w].th, NULL);
    hl_mixer_set_parts(mx, NULL);
    free(mem);
}

double hld_governor_calibrate(uint32_t rate, uint32_t period, float speed_of_sound,
                              const hl_hrtf_set_t *hrtf, uint32_t threads, uint64_t *shared) {
    enum { SRC_FRAMES = 48000 };
    if (shared) *shared = 0;
    threads = threads < 1 ? 1 : threads > HL_MIX_PARTS ? HL_MIX_PARTS : threads;
    /* several threads: every partition full, each thread's share of them */
    const uint32_t nv = threads > 1 ? HLD_GOV_CALIB_VOICES * HL_MIX_PARTS : HLD_GOV_CALIB_VOICES;
    hl_mixer_config_t mc = {.rate = rate,
                            .voices = nv,
                            .cmd_capacity = 2 * nv, /* every play at once */
                            .cmds_per_block = 2 * nv,
                            .speed_of_sound = speed_of_sound,
                            .hrtf = hrtf != NULL};
    size_t size = hl_mixer_size(&mc);
    void *mem = size ? aligned_alloc(64, (size + 63) / 64 * 64) : NULL;
    float *src = malloc(SRC_FRAMES * sizeof *src);
    float *out = malloc((size_t)period * HLD_CHANNELS * sizeof *out);
    double best = 0;
    hl_mixer_t *mx = mem ? hl_mixer_init(mem, size, &mc) : NULL;
    if (mx && hl_mixer_set_hrtf(mx, hrtf) != 0) mx = NULL;
    calib_worker_t cw[HL_MIX_PARTS];
    uint32_t started = 0;
    void *pmem = mx ? parts_open(mx, threads, cw, &started) : NULL;
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
    parts_close(mx, pmem, cw, started, shared);
    free(out);
    free(src);
    free(mem);
    return best / nv;
}
