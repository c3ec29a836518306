/*
 * hrtf.c - cost of binaural rendering (daemon/mixer/hrtf_rt.c): N voices of
 * mono noise, each through its own hl_hrtf_voice_t, accumulated into one
 * stereo block of `period` frames at 48 kHz, with the default SOFA set built
 * by daemon/hrtf_load.c.
 *
 *   static  every voice at a fixed direction (Fibonacci sphere): one FIR
 *           pass per ear per block
 *   moving  every voice changes direction every block (turning ~2 degrees
 *           per block, plus its own gain wobble): lookup, filter build, two
 *           FIR passes per ear and the crossfade, every block
 *
 * Each mode runs once with the kernels hl_hrtf_process_rt picks (auto) and
 * once with the portable ones. Timing is thread CPU time over at least
 * -s seconds (default 0.5) after a warm-up; the result lines are
 *   hrtf voices=V period=P mode=M isa=I ns_per_voice_frame=X load_pct_of_period=Y
 * where load_pct_of_period is the CPU time of one period's rendering over
 * the period's duration (256 frames = 5.33 ms at 48 kHz).
 *
 * Usage: hrtf [-v voices] [-p period] [-s seconds] [-f sofa]
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hl_hrtf.h"
#include "hl_limits.h"
#include "hrtf_load.h"

#define RATE 48000u
#define PI_F 3.14159265358979f

static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t rng = 1u;
static float noise(void) {
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / 8388608.0f - 1.0f;
}

typedef struct {
    float az, el, gain;
} src_t;

static void dir_of(const src_t *s, float d[3]) {
    d[0] = -sinf(s->az) * cosf(s->el);
    d[1] = sinf(s->el);
    d[2] = -cosf(s->az) * cosf(s->el);
}

/* Renders blocks until `seconds` of thread CPU have passed; returns CPU
 * seconds per block. */
static double run(const hl_hrtf_set_t *set, hl_hrtf_voice_t *voices, src_t *src, int nv,
                  uint32_t period, const float *in, uint32_t in_frames, int moving, int isa,
                  double seconds, float *sink) {
    static float out_l[HL_MIX_BLOCK], out_r[HL_MIX_BLOCK];
    for (int i = 0; i < nv; i++)
        hl_hrtf_voice_reset(&voices[i]);
    uint64_t blocks = 0, warm = 50;
    double t0 = 0.0;
    uint32_t pos = 0;
    for (;;) {
        if (blocks == warm) t0 = thread_cpu_s();
        if (blocks > warm && (blocks - warm) % 64 == 0 && thread_cpu_s() - t0 >= seconds) break;
        memset(out_l, 0, sizeof(float) * period);
        memset(out_r, 0, sizeof(float) * period);
        for (int i = 0; i < nv; i++) {
            if (moving) {
                src[i].az += 0.035f; /* ~2 degrees per block */
                if (src[i].az > 2.0f * PI_F) src[i].az -= 2.0f * PI_F;
                src[i].gain = 0.5f + 0.1f * sinf(src[i].az * 3.0f);
            }
            float d[3];
            dir_of(&src[i], d);
            /* each voice reads the noise at its own offset */
            const float *x = in + (pos + (uint32_t)i * 997u) % (in_frames - period);
            hl_hrtf_process_isa_rt(set, &voices[i], x, period, d, src[i].gain, out_l, out_r, isa);
        }
        *sink += out_l[blocks % period] + out_r[(blocks * 7) % period];
        pos = (pos + period) % (in_frames - period);
        blocks++;
    }
    return (thread_cpu_s() - t0) / (double)(blocks - warm);
}

int main(int argc, char **argv) {
    int nv = 128;
    uint32_t period = HL_MIX_BLOCK;
    double seconds = 0.5;
    const char *path = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "v:p:s:f:")) != -1) {
        switch (opt) {
        case 'v': nv = atoi(optarg); break;
        case 'p': period = (uint32_t)atoi(optarg); break;
        case 's': seconds = atof(optarg); break;
        case 'f': path = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-v voices] [-p period<=%d] [-s seconds] [-f sofa]\n",
                    argv[0], HL_MIX_BLOCK);
            return 2;
        }
    }
    if (nv < 1 || period < 1 || period > HL_MIX_BLOCK || !(seconds > 0.0)) {
        fprintf(stderr, "hrtf: bad arguments\n");
        return 2;
    }

    void *mem = NULL;
    hl_hrtf_set_t *set = NULL;
    char err[256];
    double l0 = thread_cpu_s();
    int rc = hld_hrtf_load(path, RATE, &mem, &set, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "hrtf: %s (%d)\n", err, rc);
        return 1;
    }
    printf("# hrtf set %ux%u directions, %d taps, %zu bytes at %u Hz, loaded in %.2f s CPU; "
           "sizeof(hl_hrtf_voice_t)=%zu; avx2 %s\n",
           set->n_az, set->n_el, HL_HRTF_TAPS, hl_hrtf_set_size(set->n_az, set->n_el), RATE,
           thread_cpu_s() - l0, sizeof(hl_hrtf_voice_t),
           hl_hrtf_isa_supported(HL_HRTF_ISA_AVX2) ? "yes" : "no");

    const uint32_t in_frames = RATE; /* 1 s of noise */
    float *in = malloc(sizeof(float) * in_frames);
    hl_hrtf_voice_t *voices =
        aligned_alloc(64, ((sizeof(hl_hrtf_voice_t) * (size_t)nv) + 63) / 64 * 64);
    src_t *src = malloc(sizeof(src_t) * (size_t)nv);
    if (!in || !voices || !src) {
        fprintf(stderr, "hrtf: out of memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < in_frames; i++)
        in[i] = 0.5f * noise();

    const double period_s = (double)period / RATE;
    float sink = 0.0f;
    static const char *const modes[2] = {"static", "moving"};
    static const int isas[2] = {HL_HRTF_ISA_AUTO, HL_HRTF_ISA_PORTABLE};
    static const char *const isa_names[2] = {"auto", "portable"};
    for (int mode = 0; mode < 2; mode++) {
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < nv; i++) { /* Fibonacci sphere */
                float y = 1.0f - 2.0f * ((float)i + 0.5f) / (float)nv;
                src[i].el = asinf(y);
                src[i].az = fmodf((float)i * 2.39996323f, 2.0f * PI_F);
                src[i].gain = 0.5f;
            }
            double per_block =
                run(set, voices, src, nv, period, in, in_frames, mode, isas[k], seconds, &sink);
            printf("hrtf voices=%d period=%u mode=%s isa=%s ns_per_voice_frame=%.2f "
                   "load_pct_of_period=%.2f\n",
                   nv, period, modes[mode], isa_names[k], per_block * 1e9 / ((double)nv * period),
                   100.0 * per_block / period_s);
        }
    }
    if (sink == 12345.0f) printf("#\n"); /* keeps the rendering observable */
    free(src);
    free(voices);
    free(in);
    hld_hrtf_free(mem);
    return 0;
}
