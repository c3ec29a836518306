/*
 * hrtf.c - cost of binaural rendering (daemon/mixer/dsp/hrtf_rt.c): N voices of
 * mono noise, each through its own hl_hrtf_voice_t, accumulated into one
 * stereo block of `period` frames at 48 kHz, with the default SOFA set built
 * by daemon/assets/hrtf_load.c.
 *
 *   static  every voice at a fixed direction (Fibonacci sphere): one FIR
 *           pass per ear per block
 *   moving  every voice changes direction every block (turning ~2 degrees
 *           per block, plus its own gain wobble): lookup, filter build, two
 *           FIR passes per ear and the crossfade, every block
 *
 * Each mode runs once with the kernels hl_hrtf_process_rt picks (auto) and
 * once with the portable ones. Then the same voices through the real mixer
 * (hl_mixer_process_rt with hl_mixer_set_hrtf): 3D looping mono noise 2 m
 * away, static, or moving (every voice gets a new position each block,
 * ramped over the block, so every convolver crossfades every block), with
 * HRTF on and, for the difference, off (the same voices panned):
 *   hrtf-mixer voices=V period=P mode=M hrtf=on|off ns_per_voice_frame=X
 *              load_pct_of_period=Y
 * The mixer lines are the daemon's cost: envelope, distance gains, the mono
 * mix, the convolver, the bus tree and the limiter. Timing is thread CPU time over at least
 * -s seconds (default 0.5) after a warm-up; the result lines are
 *   hrtf voices=V period=P mode=M isa=I ns_per_voice_frame=X load_pct_of_period=Y
 * where load_pct_of_period is the CPU time of one period's rendering over
 * the period's duration (256 frames = 5.33 ms at 48 kHz).
 *
 * Usage: hrtf [-v voices] [-p period] [-s seconds] [-f sofa]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_opts.h"
#include "hl_hrtf.h"
#include "hl_limits.h"
#include "hl_mixer.h"
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
        hl_hrtf_voice_reset_rt(&voices[i]);
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

/* Fibonacci-sphere direction i of n, 2 m away, in listener coordinates
 * (the default listener: origin, facing -z), turned by `turn` radians. */
static void pos_of(int i, int n, float turn, float p[3]) {
    float y = 1.0f - 2.0f * ((float)i + 0.5f) / (float)n;
    src_t s = {fmodf((float)i * 2.39996323f, 2.0f * PI_F) + turn, asinf(y), 1.0f};
    dir_of(&s, p);
    for (int a = 0; a < 3; a++)
        p[a] *= 2.0f;
}

/* The real mixer with nv 3D voices, HRTF on (set) or off (NULL): CPU
 * seconds per process call of `period` frames, after a warm-up. */
static double run_mixer(const hl_hrtf_set_t *set, int nv, uint32_t period, const float *in,
                        uint32_t in_frames, int moving, double seconds, float *sink) {
    uint32_t cap = 2;
    while (cap < 4u * (uint32_t)nv)
        cap <<= 1;
    hl_mixer_config_t cfg = {.rate = RATE,
                             .voices = (uint32_t)nv,
                             .cmd_capacity = cap,
                             .cmds_per_block = 2u * (uint32_t)nv,
                             .hrtf = 1};
    size_t size = hl_mixer_size(&cfg);
    void *mem = size ? aligned_alloc(64, (size + 63) / 64 * 64) : NULL;
    float *out = malloc(sizeof(float) * 2 * period);
    hl_mixer_t *m = mem ? hl_mixer_init(mem, (size + 63) / 64 * 64, &cfg) : NULL;
    if (!m || !out || hl_mixer_set_hrtf(m, set) != 0) {
        fprintf(stderr, "hrtf: mixer setup failed\n");
        exit(1);
    }
    hl_pcm_t pcm = {.data = in, .frames = in_frames, .channels = 1, .finite = 1};
    uint64_t *h = malloc(sizeof(uint64_t) * (size_t)nv);
    for (int i = 0; i < nv; i++) {
        hl_voice_params_t p = {.pcm = &pcm,
                               .flags = HL_MIX_LOOP | HL_MIX_3D,
                               .gain = 0.5f / (float)nv,
                               .pitch = 1.0f,
                               .min_distance = 1.0f,
                               .max_distance = 100.0f,
                               .rolloff = 1.0f,
                               .model = HL_MIX_DIST_INVERSE,
                               .start_frame = (uint32_t)i * 997u % in_frames};
        pos_of(i, nv, 0.0f, p.pos);
        if (!h || hl_mixer_play(m, &p, 0, &h[i], NULL) != 0) {
            fprintf(stderr, "hrtf: play failed\n");
            exit(1);
        }
    }
    uint64_t blocks = 0, warm = 50;
    double cpu = 0.0, wall0 = thread_cpu_s();
    float turn = 0.0f;
    for (;;) {
        if (blocks == warm) {
            cpu = 0.0;
            wall0 = thread_cpu_s();
        }
        if (blocks > warm && (blocks - warm) % 64 == 0 && thread_cpu_s() - wall0 >= seconds) break;
        if (moving) { /* a new position for every voice, ramped over this block */
            turn += 0.035f;
            for (int i = 0; i < nv; i++) {
                hl_voice_set_t st = {.mask = HL_MIX_SET_POS, .ramp_frames = period};
                pos_of(i, nv, turn, st.pos);
                (void)hl_mixer_set(m, h[i], &st, 0);
            }
        }
        double t0 = thread_cpu_s();
        hl_mixer_process_rt(m, out, period, blocks);
        cpu += thread_cpu_s() - t0;
        *sink += out[blocks % (2 * period)];
        blocks++;
    }
    hl_mixer_stats_t ms;
    hl_mixer_stats(m, &ms);
    if (ms.hrtf_voices != (set ? (uint32_t)nv : 0u) || ms.voices_mixed != (uint32_t)nv) {
        fprintf(stderr, "hrtf: expected %d voices mixed (binaural: %s), got %u (%u)\n", nv,
                set ? "all" : "none", ms.voices_mixed, ms.hrtf_voices);
        exit(1);
    }
    free(h);
    free(out);
    free(mem);
    return cpu / (double)(blocks - warm);
}

int main(int argc, char **argv) {
    int nv = 128;
    int per = HL_MIX_BLOCK;
    double seconds = 0.5;
    const char *path = NULL;
    const bo_opt_t opts[] = {{"v", 'i', &nv},
                             {"p", 'i', &per},
                             {"s", 'd', &seconds},
                             {"f", 's', &path},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts,
             "[-v voices] [-p period] [-s seconds] [-f sofa]\n"
             "  -v  voices, each binaural (default 128)\n"
             "  -p  frames per block, at most the mixer's block, 256 (default 256)\n"
             "  -s  CPU seconds per mode, at least, after a warm-up (default 0.5)\n"
             "  -f  a SOFA file (default: the daemon's default set)");
    uint32_t period = (uint32_t)per;
    if (nv < 1 || per < 1 || period > HL_MIX_BLOCK || !(seconds > 0.0)) {
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
    for (int mode = 0; mode < 2; mode++) {
        for (int on = 1; on >= 0; on--) {
            double per_block =
                run_mixer(on ? set : NULL, nv, period, in, in_frames, mode, seconds, &sink);
            printf("hrtf-mixer voices=%d period=%u mode=%s hrtf=%s ns_per_voice_frame=%.2f "
                   "load_pct_of_period=%.2f\n",
                   nv, period, modes[mode], on ? "on" : "off",
                   per_block * 1e9 / ((double)nv * period), 100.0 * per_block / period_s);
        }
    }
    if (sink == 12345.0f) printf("#\n"); /* keeps the rendering observable */
    free(src);
    free(voices);
    free(in);
    hld_hrtf_free(mem);
    return 0;
}
