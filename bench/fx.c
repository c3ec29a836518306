/*
 * fx.c - cost of the effects DSP (daemon/mixer/dsp/hl_fx.h), in CPU nanoseconds
 * per frame at 48 kHz in 256-frame blocks, one line per effect kind:
 *
 *   fx kind=biquad        one channel through a cookbook peak biquad
 *   fx kind=vfilter       one mono voice, low-pass at 2 kHz (settled)
 *   fx kind=vfilter_sweep the same with its cutoff gliding all the time
 *   fx kind=vfilter_stereo a voice's panned pair, low-pass at 2 kHz (settled):
 *                         the post stage's form for voices not steady
 *   fx kind=vfilter_mono  the same filter run once before the pan
 *                         (hl_vfilter_process_mono_rt): steady mono voices
 *   fx kind=eq            one stereo bus, one peak band (settled)
 *   fx kind=eq_sweep      the same, gain gliding all the time
 *   fx kind=comp          one stereo bus, signal above the threshold
 *   fx kind=reverb        one stereo bus, the "hall" preset
 *
 * Each kind runs a short warm-up, then blocks until at least -s seconds of
 * CPU time (CLOCK_PROCESS_CPUTIME_ID, default 0.5) have passed. The input is
 * white noise at -12 dBFS copied into the block before each call (the copy is
 * included; it is ~1% of the cheapest kind). FTZ/DAZ are set as the mixer's
 * audio thread sets them.
 *
 * Line: fx kind=K channels=C rate=48000 block=256 frames=N cpu_s=S
 *       ns_per_frame=X realtime_factor=R
 * (realtime_factor: audio seconds per CPU second for that one instance).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#include <pmmintrin.h>
#endif

#include "bench_opts.h"
#include "hl_fx.h"

#define FB_RATE   48000.0f
#define FB_BLOCK  256
#define FB_SRC    (FB_BLOCK * 64) /* noise source, cycled through block by block */
#define FB_WARMUP 200             /* blocks */
#define FB_CHECK  64              /* blocks between clock reads */

typedef struct {
    const char *kind;
    int channels;
    void (*run)(void *ctx, float *l, float *r);
    void *ctx;
} fb_case_t;

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static float src_l[FB_SRC], src_r[FB_SRC];
static volatile float sink; /* keeps the output alive */

static void fill_noise(void) {
    uint32_t s = 0x5EED1234u;
    for (int i = 0; i < FB_SRC; i++) {
        s = s * 1664525u + 1013904223u;
        src_l[i] = 0.25f * (float)(int32_t)s * (1.0f / 2147483648.0f);
        s = s * 1664525u + 1013904223u;
        src_r[i] = 0.25f * (float)(int32_t)s * (1.0f / 2147483648.0f);
    }
}

/* ---- the kinds ------------------------------------------------------------ */

typedef struct {
    hl_bq_coef_t c;
    hl_bq_state_t s;
} fb_bq_t;

static void run_biquad(void *ctx, float *l, float *r) {
    fb_bq_t *b = ctx;
    (void)r;
    hl_bq_process_rt(&b->c, &b->s, l, FB_BLOCK);
}

typedef struct {
    hl_vfilter_t f;
    int sweep;
    uint32_t blocks;
} fb_vf_t;

static void run_vfilter(void *ctx, float *l, float *r) {
    fb_vf_t *v = ctx;
    float *ch[1] = {l};
    (void)r;
    if (v->sweep && v->blocks++ % 32 == 0) /* a new 32-block glide as the last ends */
        hl_vfilter_set_rt(&v->f, (v->blocks / 32) % 2 ? 500.0f : 8000.0f, 0.0f, 32 * FB_BLOCK);
    hl_vfilter_process_rt(&v->f, ch, 1, FB_BLOCK);
}

static void run_vfilter_stereo(void *ctx, float *l, float *r) {
    fb_vf_t *v = ctx;
    float *ch[2] = {l, r};
    hl_vfilter_process_rt(&v->f, ch, 2, FB_BLOCK);
}

#define FB_PAN_L 0.6f /* vfilter_mono: the pan the stereo state is kept for */
#define FB_PAN_R 0.8f

static void run_vfilter_mono(void *ctx, float *l, float *r) {
    fb_vf_t *v = ctx;
    (void)r;
    hl_vfilter_process_mono_rt(&v->f, l, l, FB_BLOCK, FB_PAN_L, FB_PAN_R);
}

typedef struct {
    hl_eq_t e;
    int sweep;
    uint32_t blocks;
} fb_eq_t;

static void run_eq(void *ctx, float *l, float *r) {
    fb_eq_t *q = ctx;
    if (q->sweep && q->blocks++ % 32 == 0)
        hl_eq_set_rt(&q->e, HL_BQ_PEAK, 1000.0f, 1.0f, (q->blocks / 32) % 2 ? 6.0f : -6.0f,
                     32 * FB_BLOCK);
    hl_eq_process_rt(&q->e, l, r, FB_BLOCK);
}

static void run_comp(void *ctx, float *l, float *r) {
    hl_comp_process_rt(ctx, l, r, FB_BLOCK);
}

static void run_reverb(void *ctx, float *l, float *r) {
    hl_reverb_process_rt(ctx, l, r, FB_BLOCK);
}

static void bench(const fb_case_t *c, double min_cpu) {
    static float l[FB_BLOCK], r[FB_BLOCK];
    uint32_t off = 0;
    for (int b = 0; b < FB_WARMUP; b++) {
        memcpy(l, src_l + off, sizeof l);
        memcpy(r, src_r + off, sizeof r);
        c->run(c->ctx, l, r);
        off = (off + FB_BLOCK) % FB_SRC;
    }
    uint64_t blocks = 0;
    double t0 = cpu_now(), t1 = t0;
    float acc = 0.0f;
    while (t1 - t0 < min_cpu) {
        for (int b = 0; b < FB_CHECK; b++) {
            memcpy(l, src_l + off, sizeof l);
            memcpy(r, src_r + off, sizeof r);
            c->run(c->ctx, l, r);
            acc += l[b] + r[FB_BLOCK - 1 - b];
            off = (off + FB_BLOCK) % FB_SRC;
        }
        blocks += FB_CHECK;
        t1 = cpu_now();
    }
    sink = acc;
    double cpu = t1 - t0, frames = (double)blocks * FB_BLOCK;
    printf("fx kind=%s channels=%d rate=%.0f block=%d frames=%.0f cpu_s=%.4f ns_per_frame=%.2f "
           "realtime_factor=%.0f\n",
           c->kind, c->channels, FB_RATE, FB_BLOCK, frames, cpu, cpu * 1e9 / frames,
           frames / FB_RATE / cpu);
    fflush(stdout);
}

int main(int argc, char **argv) {
    double min_cpu = 0.5;
    const bo_opt_t opts[] = {{"s", 'd', &min_cpu}, {NULL, 0, NULL}};
    const char *usage = "[-s min_cpu_seconds_per_kind (default 0.5)]";
    bo_parse(argc, argv, opts, usage);
    if (optind < argc || !(min_cpu > 0.0)) bo_usage(argv[0], usage);
#if defined(__SSE2__)
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
    fill_noise();

    fb_bq_t bq = {.s = {0}};
    hl_bq_design(&bq.c, HL_BQ_PEAK, FB_RATE, 1000.0f, 1.0f, 6.0f);
    fb_vf_t vf = {.sweep = 0}, vfs = {.sweep = 1}, vf2 = {.sweep = 0}, vfm = {.sweep = 0};
    hl_vfilter_init_rt(&vf.f, FB_RATE, 2000.0f, 0.0f);
    hl_vfilter_init_rt(&vfs.f, FB_RATE, 2000.0f, 0.0f);
    hl_vfilter_init_rt(&vf2.f, FB_RATE, 2000.0f, 0.0f);
    hl_vfilter_init_rt(&vfm.f, FB_RATE, 2000.0f, 0.0f);
    if (!hl_vfilter_mono_ok(&vfm.f, FB_PAN_L, FB_PAN_R)) {
        fprintf(stderr, "vfilter_mono: the mono path is shut\n");
        return 1;
    }
    fb_eq_t eq = {.sweep = 0}, eqs = {.sweep = 1};
    hl_eq_init(&eq.e, FB_RATE, HL_BQ_PEAK, 1000.0f, 1.0f, 6.0f);
    hl_eq_init(&eqs.e, FB_RATE, HL_BQ_PEAK, 1000.0f, 1.0f, 6.0f);
    hl_comp_t comp;
    hl_comp_init(&comp, FB_RATE);
    hl_comp_set_rt(&comp, -30.0f, 4.0f, 6.0f, 5.0f, 100.0f, 6.0f); /* always compressing */
    size_t rsz = hl_reverb_size(FB_RATE);
    void *rmem = malloc(rsz);
    hl_reverb_t *rev = rmem ? hl_reverb_init(rmem, rsz, FB_RATE) : NULL;
    if (!rev) {
        fprintf(stderr, "hl_reverb_init failed\n");
        return 1;
    }
    hl_reverb_params_t hall;
    hl_reverb_preset("hall", &hall);
    hl_reverb_set_rt(rev, &hall);

    const fb_case_t cases[] = {
        {"biquad", 1, run_biquad, &bq},
        {"vfilter", 1, run_vfilter, &vf},
        {"vfilter_sweep", 1, run_vfilter, &vfs},
        {"eq", 2, run_eq, &eq},
        {"eq_sweep", 2, run_eq, &eqs},
        {"comp", 2, run_comp, &comp},
        {"reverb", 2, run_reverb, rev},
        {"vfilter_stereo", 2, run_vfilter_stereo, &vf2},
        {"vfilter_mono", 1, run_vfilter_mono, &vfm},
    };
    printf("# hl_fx: sizeof(hl_vfilter_t)=%zu sizeof(hl_eq_t)=%zu sizeof(hl_comp_t)=%zu "
           "hl_reverb_size(48000)=%zu\n",
           sizeof(hl_vfilter_t), sizeof(hl_eq_t), sizeof(hl_comp_t), rsz);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        bench(&cases[i], min_cpu);
    free(rmem);
    return 0;
}
