/*
 * kernels.c - the fused pitched kernels (daemon/mixer/dsp/mix_kernels.h) called
 * directly, linear against Catmull-Rom, in CPU nanoseconds per 256-frame
 * call: the cost `mix -r worst` vs `mix -r pitched` is made of, without the
 * mixer around it.
 *
 * Scene: V voices, each with its own 1 s source at 44.1 kHz (mono, or
 * interleaved stereo for the stereo and downmix kernels) and the pitch of
 * the mix bench's pitched variant, voice i at step
 * 44100/48000 * (0.9 + 0.2 * frac(i * golden)) (about 6% of the voices above
 * step 1), or one fixed step (-p). Every call mixes 256 frames of one voice
 * into a 256-frame accumulator pair and moves that voice on by 256 * step
 * frames, as the mixer does block after block; voices are visited in turn,
 * so with many voices each call reads source memory that is not in cache
 * (the mix bench's case at 1024 and 4096 voices) and with -v 1 it is hot.
 *
 * The kernels are timed in rounds, interleaved (linear, cubic, linear,
 * cubic, ...), each round a pass over all voices repeated until it has
 * taken at least -s CPU seconds of the thread (CLOCK_THREAD_CPUTIME_ID);
 * the line gives the median and the minimum over -r rounds, and for each
 * Catmull-Rom kernel its median over the linear kernel's of the same shape.
 *
 * -k post: the unfused mono interpolators instead (interp_mono, cubic_mono:
 * the post stage's input for a pitched voice), 256 frames into a buffer; the
 * gains do not apply to them.
 *
 * Line: kernels table=T kernel=K gains=flat|ramped voices=V step=scene|S
 *       rounds=R ns_per_call_med=X ns_per_call_min=Y [cubic_over_linear=Z]
 *
 * usage: kernels [-v voices] [-p step] [-s seconds] [-r rounds]
 *                [-t auto|avx512|avx2|generic] [-k mono|stereo|downmix|post|all]
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__SSE2__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include "bench_opts.h"
#include "hl_limits.h"
#include "mix_kernels.h"

#define KB_SRC_LEN  44100 /* 1 s source at 44.1 kHz */
#define KB_N        HL_MIX_BLOCK
#define KB_PAD      8 /* frames before and after each source (cubic reads one before) */
#define KB_GOLDEN   0.61803398874989485
#define KB_MAX_RNDS 64

typedef void (*fused_fn)(float *acc_l, float *acc_r, const float *src, uint32_t avail, uint32_t n,
                         uint32_t frac, uint64_t step, const hl_gain_ramp_t *g);

typedef void (*unfused_fn)(float *dst, const float *src, uint32_t n, uint32_t frac, uint64_t step);

typedef struct {
    const char *name;
    size_t off; /* offset in hl_mix_kernels_t */
    int ch;
    const char *shape; /* -k */
} kb_kernel_t;

/* linear then cubic of each shape: the ratio pairs them */
static const kb_kernel_t all_kernels[] = {
    {"interp_mix_mono", offsetof(hl_mix_kernels_t, interp_mix_mono), 1, "mono"},
    {"cubic_mix_mono", offsetof(hl_mix_kernels_t, cubic_mix_mono), 1, "mono"},
    {"interp_mix_stereo", offsetof(hl_mix_kernels_t, interp_mix_stereo), 2, "stereo"},
    {"cubic_mix_stereo", offsetof(hl_mix_kernels_t, cubic_mix_stereo), 2, "stereo"},
    {"interp_mix_downmix", offsetof(hl_mix_kernels_t, interp_mix_downmix), 2, "downmix"},
    {"cubic_mix_downmix", offsetof(hl_mix_kernels_t, cubic_mix_downmix), 2, "downmix"},
    {"interp_mono", offsetof(hl_mix_kernels_t, interp_mono), 1, "post"},
    {"cubic_mono", offsetof(hl_mix_kernels_t, cubic_mono), 1, "post"},
};
#define KB_KINDS (sizeof all_kernels / sizeof all_kernels[0])

typedef struct {
    float *src;    /* first frame of the voice's source (KB_PAD frames before it valid) */
    uint64_t pos;  /* source position of the next call, 32.32 frames */
    uint64_t step; /* source frames per output frame, 32.32 */
} kb_voice_t;

static double thread_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x243F6A8885A308D3ull;
static float noise(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((int32_t)(uint32_t)(rng >> 32)) * (1.0f / 2147483648.0f);
}

#define KB_STR_(x) #x
#define KB_STR(x)  KB_STR_(x)
#define KB_USAGE                                                                                   \
    "[-v voices] [-p step] [-s seconds] [-r rounds]\n"                                             \
    "          [-t auto|avx512|avx2|generic] [-k mono|stereo|downmix|post|all]\n"                  \
    "  -v  voices, each with its own 1 s source (default 1024; 1 = hot cache)\n"                   \
    "  -p  one step for every voice (default: the mix bench's pitched spread)\n"                   \
    "  -s  CPU seconds per round and kernel (default 0.05)\n"                                      \
    "  -r  rounds, interleaved across kernels (default 9, at most " KB_STR(                        \
        KB_MAX_RNDS) ")\n"                                                                         \
                     "  -t  kernel table (default auto: the one the mixer picks)\n"                \
                     "  -k  source shapes to run (default mono; post: the unfused mono "           \
                     "interpolators)"

static _Noreturn void usage(const char *prog) {
    bo_usage(prog, KB_USAGE);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One pass over every voice with kernel fn; returns the calls made. The
 * voices move on as in the mixer, wrapping well inside their sources. */
static uint32_t pass(const hl_mix_kernels_t *k, const kb_kernel_t *kk, kb_voice_t *v, int nv,
                     float *al, float *ar, const hl_gain_ramp_t *g) {
    fused_fn fn;
    unfused_fn un;
    memcpy(&fn, (const char *)k + kk->off, sizeof fn);
    memcpy(&un, (const char *)k + kk->off, sizeof un);
    const int ch = kk->ch, post = !strcmp(kk->shape, "post");
    for (int i = 0; i < nv; i++) {
        kb_voice_t *x = &v[i];
        const uint64_t span = (uint64_t)KB_N * x->step;
        if (((x->pos + span) >> 32) + 4 >= KB_SRC_LEN) x->pos -= (uint64_t)(KB_SRC_LEN / 2) << 32;
        uint32_t idx = (uint32_t)(x->pos >> 32);
        const float *src = x->src + (size_t)idx * (size_t)ch;
        if (post)
            un(al, src, KB_N, (uint32_t)x->pos, x->step);
        else
            fn(al, ar, src, KB_SRC_LEN - idx, KB_N, (uint32_t)x->pos, x->step, g);
        x->pos += span;
    }
    return (uint32_t)nv;
}

int main(int argc, char **argv) {
    int nv = 1024, rounds = 9;
    double fixed_step = 0.0, secs = 0.05;
    const char *table = "auto", *shapes = "mono";
    const bo_opt_t opts[] = {{"v", 'i', &nv},     {"p", 'd', &fixed_step}, {"s", 'd', &secs},
                             {"r", 'i', &rounds}, {"t", 's', &table},      {"k", 's', &shapes},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, KB_USAGE);
    if (nv < 1 || rounds < 1 || rounds > KB_MAX_RNDS || secs <= 0.0 || fixed_step < 0.0 ||
        fixed_step > 4.0)
        usage(argv[0]);

    const hl_mix_kernels_t *k = &hl_mix_kernels_generic;
    const char *tname = "generic";
    int want512 = !strcmp(table, "auto") || !strcmp(table, "avx512");
    int want2 = !strcmp(table, "auto") || !strcmp(table, "avx2");
    if (want512 && hl_mix_kernels_avx512 && hl_mix_kernels_avx512_usable()) {
        k = hl_mix_kernels_avx512;
        tname = "avx512";
    } else if ((want2 || !strcmp(table, "avx512")) && hl_mix_kernels_avx2 &&
               hl_mix_kernels_avx2_usable()) {
        k = hl_mix_kernels_avx2;
        tname = "avx2";
    } else if (strcmp(table, "auto") && strcmp(table, "generic")) {
        if (strcmp(table, "avx512") && strcmp(table, "avx2")) usage(argv[0]);
    }
    if (strcmp(table, "auto") && strcmp(table, tname))
        fprintf(stderr, "# table %s not usable here: %s\n", table, tname);
#if defined(__SSE2__)
    /* as the mixer's audio thread runs */
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif

    /* one allocation per channel count, every voice its own source */
    size_t per_voice = (size_t)(KB_SRC_LEN + 2 * KB_PAD);
    float *mem1 = malloc(sizeof(float) * per_voice * (size_t)nv);
    float *mem2 = malloc(sizeof(float) * 2 * per_voice * (size_t)nv);
    kb_voice_t *v1 = calloc((size_t)nv, sizeof *v1), *v2 = calloc((size_t)nv, sizeof *v2);
    if (!mem1 || !mem2 || !v1 || !v2) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < per_voice * (size_t)nv; i++)
        mem1[i] = noise();
    for (size_t i = 0; i < 2 * per_voice * (size_t)nv; i++)
        mem2[i] = noise();
    for (int i = 0; i < nv; i++) {
        double g = fmod((double)i * KB_GOLDEN, 1.0);
        float step =
            fixed_step > 0.0 ? (float)fixed_step : (float)(44100.0 / 48000.0 * (0.9 + 0.2 * g));
        double start = (double)((i * 7919) % (KB_SRC_LEN / 2)) + 1.0 + g;
        const uint64_t pos = hl_fp_step(start), fstep = hl_fp_step(step);
        v1[i] = (kb_voice_t){mem1 + per_voice * (size_t)i + KB_PAD, pos, fstep};
        v2[i] = (kb_voice_t){mem2 + 2 * per_voice * (size_t)i + 2 * KB_PAD, pos, fstep};
    }

    static float al[KB_N], ar[KB_N];
    for (int t = 0; t < KB_N; t++)
        al[t] = ar[t] = 0.0f;
    static const hl_gain_ramp_t gains[2] = {
        {0.01f, 0.0f, 0.0f, 0.007f, 0.0f, 0.0f, 0.0f},      /* flat: the steady state */
        {0.01f, -2e-5f, 1e-8f, 0.007f, 3e-5f, -4e-8f, 0.0f} /* a ramp: a voice that moves */
    };
    static const char *gname[2] = {"flat", "ramped"};

    size_t nk = 0;
    const kb_kernel_t *ks[KB_KINDS];
    for (size_t i = 0; i < KB_KINDS; i++)
        if (!strcmp(shapes, "all") || strstr(shapes, all_kernels[i].shape))
            ks[nk++] = &all_kernels[i];
    if (!nk) usage(argv[0]);

    char stepname[32];
    if (fixed_step > 0.0)
        snprintf(stepname, sizeof stepname, "%g", fixed_step);
    else
        snprintf(stepname, sizeof stepname, "scene");

    for (int gi = 0; gi < 2; gi++) {
        static double ns[KB_KINDS][KB_MAX_RNDS];
        double best[KB_KINDS];
        for (size_t j = 0; j < nk; j++) /* warm-up: touch the code and the pages */
            for (int w = 0; w < 2; w++) {
                best[j] = 1e30;
                pass(k, ks[j], ks[j]->ch == 1 ? v1 : v2, nv, al, ar, &gains[gi]);
            }
        for (int r = 0; r < rounds; r++)
            for (size_t j = 0; j < nk; j++) {
                kb_voice_t *v = ks[j]->ch == 1 ? v1 : v2;
                uint64_t calls = 0;
                double t0 = thread_now(), t1;
                do { /* the CPU clock is a system call: read it every 1024 calls or more */
                    uint32_t bc = 0;
                    double b0 = wall_now();
                    while (bc < 1024)
                        bc += pass(k, ks[j], v, nv, al, ar, &gains[gi]);
                    double b = (wall_now() - b0) * 1e9 / (double)bc;
                    if (b < best[j]) best[j] = b;
                    calls += bc;
                    t1 = thread_now();
                } while (t1 - t0 < secs);
                ns[j][r] = (t1 - t0) * 1e9 / (double)calls;
            }
        double med[KB_KINDS];
        for (size_t j = 0; j < nk; j++) {
            qsort(ns[j], (size_t)rounds, sizeof(double), cmp_double);
            med[j] = ns[j][rounds / 2];
            printf("kernels table=%s kernel=%s gains=%s voices=%d step=%s rounds=%d "
                   "ns_per_call_med=%.1f ns_per_call_min=%.1f ns_per_call_best=%.1f",
                   tname, ks[j]->name, gname[gi], nv, stepname, rounds, med[j], ns[j][0], best[j]);
            if (j > 0 && !strncmp(ks[j]->name, "cubic", 5) &&
                !strcmp(strrchr(ks[j]->name, '_'), strrchr(ks[j - 1]->name, '_')))
                printf(" cubic_over_linear=%.2f best_cubic_over_linear=%.2f", med[j] / med[j - 1],
                       best[j] / best[j - 1]);
            printf("\n");
            fflush(stdout);
        }
    }
    volatile float sink = al[0] + ar[KB_N - 1];
    (void)sink;
    free(mem1);
    free(mem2);
    free(v1);
    free(v2);
    return 0;
}
