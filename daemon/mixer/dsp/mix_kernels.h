/*
 * mix_kernels.h - the inner loops of the mixer, kept apart so they can be
 * vectorised (and given an AVX2 variant) without the voice logic around them.
 *
 * Every kernel works on n <= HL_MIX_BLOCK frames, adds into planar float
 * accumulators and applies a ramped gain pair, quadratic in time because it
 * is the product of two linear ramps (envelope x gain/pan):
 *   gain(t) = g0 + k * (d + k * q),  k = t + 1,  t = 0 .. n-1
 * where g0 is the value applied before the run (the ramps' previous values),
 * so ramps that end on the last frame land exactly on their targets. A run
 * that starts d frames into a ramp takes it with k0 = d (k = k0 + t + 1,
 * integers, exact in float): the gains do not depend on where runs are
 * split, bit for bit. No branches per sample.
 * All RT safe.
 *
 * Positions are the voice's 32.32 fixed-point cursor relative to src:
 * output frame t of a run reads at p_t = frac + t x step (exact, 64-bit), so
 * its taps are src[p_t >> 32 ...] and its fraction comes from the low 32
 * bits alone (hl_fp_frac: the same bits whatever frame src starts at). A
 * frame therefore gets the same value whether its run starts at it or
 * hundreds of frames before, and a voice read from a stream's window gets
 * what the same voice read from the whole buffer gets, at every step.
 */
#ifndef HL_MIX_KERNELS_H
#define HL_MIX_KERNELS_H

#include <stdint.h>

#include "hl_gain_ramp.h"

/* One flat-gain linear mono run, as interp_mix_mono's arguments (gains
 * {gl, 0, 0, gr, 0, 0}). */
typedef struct {
    const float *src;
    uint32_t avail;
    uint32_t frac; /* the cursor's fraction (32.32) */
    uint64_t step; /* 32.32 */
    float gl, gr;
} hl_mix_mono_run_t;

typedef struct {
    /* acc_l/r += src[t] * gain(t); src mono, contiguous */
    void (*mix_mono)(float *acc_l, float *acc_r, const float *src, uint32_t n,
                     const hl_gain_ramp_t *g);
    /* acc_l += src[2t] * gl(t), acc_r += src[2t+1] * gr(t); interleaved stereo */
    void (*mix_stereo)(float *acc_l, float *acc_r, const float *src, uint32_t n,
                       const hl_gain_ramp_t *g);
    /* mono = (src[2t] + src[2t+1]) / 2 panned with the gain pair */
    void (*mix_downmix)(float *acc_l, float *acc_r, const float *src, uint32_t n,
                        const hl_gain_ramp_t *g);
    /* dst[k] = lerp(src, x), x = frac + k * step (32.32), src mono;
     * reads src[0 .. floor(x_max) + 1] */
    void (*interp_mono)(float *dst, const float *src, uint32_t n, uint32_t frac, uint64_t step);
    /* same on interleaved stereo into two planar buffers */
    void (*interp_stereo)(float *dst_l, float *dst_r, const float *src, uint32_t n, uint32_t frac,
                          uint64_t step);
    /* same on interleaved stereo, downmixed (L+R)/2 into one buffer */
    void (*interp_downmix)(float *dst, const float *src, uint32_t n, uint32_t frac, uint64_t step);
    /* Fused mono resample + mix: acc += lerp(src, x_t) * gain(t), x_t = frac + t * step.
     * avail = frames readable from src (the kernel may read whole windows up to
     * it); positions never reach avail - 1. */
    void (*interp_mix_mono)(float *acc_l, float *acc_r, const float *src, uint32_t avail,
                            uint32_t n, uint32_t frac, uint64_t step, const hl_gain_ramp_t *g);
    /* acc_l += l[t] * gl(t), acc_r += r[t] * gr(t); planar stereo */
    void (*mix_planar)(float *acc_l, float *acc_r, const float *l, const float *r, uint32_t n,
                       const hl_gain_ramp_t *g);
    /* 4-point Catmull-Rom versions of interp_mono/stereo/downmix: read
     * src[floor(x) - 1 .. floor(x) + 2] (frames), so src[-1] must be valid. */
    void (*cubic_mono)(float *dst, const float *src, uint32_t n, uint32_t frac, uint64_t step);
    void (*cubic_stereo)(float *dst_l, float *dst_r, const float *src, uint32_t n, uint32_t frac,
                         uint64_t step);
    void (*cubic_downmix)(float *dst, const float *src, uint32_t n, uint32_t frac, uint64_t step);
    /* Fused mono cubic resample + mix: acc += catmull_rom(src, x_t) * gain(t),
     * x_t = frac + t * step. Reads src[floor(x) - 1 .. floor(x) + 2], so src[-1]
     * must be valid; avail = frames readable from src (the kernel may read
     * whole windows up to it); positions never reach avail - 2. */
    void (*cubic_mix_mono)(float *acc_l, float *acc_r, const float *src, uint32_t avail, uint32_t n,
                           uint32_t frac, uint64_t step, const hl_gain_ramp_t *g);
    /* Fused interleaved-stereo resample + mix, Catmull-Rom and linear: left
     * into acc_l with gl(t), right into acc_r with gr(t) (2D voices), or
     * downmixed (L+R)/2 and panned with the gain pair (3D voices). Same reads
     * and avail (in frames) as cubic_mix_mono / interp_mix_mono. */
    void (*cubic_mix_stereo)(float *acc_l, float *acc_r, const float *src, uint32_t avail,
                             uint32_t n, uint32_t frac, uint64_t step, const hl_gain_ramp_t *g);
    void (*cubic_mix_downmix)(float *acc_l, float *acc_r, const float *src, uint32_t avail,
                              uint32_t n, uint32_t frac, uint64_t step, const hl_gain_ramp_t *g);
    void (*interp_mix_stereo)(float *acc_l, float *acc_r, const float *src, uint32_t avail,
                              uint32_t n, uint32_t frac, uint64_t step, const hl_gain_ramp_t *g);
    void (*interp_mix_downmix)(float *acc_l, float *acc_r, const float *src, uint32_t avail,
                               uint32_t n, uint32_t frac, uint64_t step, const hl_gain_ramp_t *g);
    /* Two runs into the same accumulators in one pass over them, with the
     * result of interp_mix_mono on r[0] then on r[1], bit for bit. Returns
     * 1 when done, 0 having written nothing when a run needs more than the
     * vector loop (n not a multiple of the lanes, a window past avail, a
     * step beyond the window's reach): the caller then makes the two
     * calls. NULL in a table without it (one call per voice). pf: NULL,
     * or two byte spans [pf[k], pf[k + 2]) of other voices' sources (pf[k]
     * NULL: none) that the call prefetches while it mixes, a line-aligned
     * start each (the block loop's prefetch, in the vector loop's shadow). */
    int (*interp_mix_mono2)(float *acc_l, float *acc_r, const hl_mix_mono_run_t r[2], uint32_t n,
                            const char *const *pf);
} hl_mix_kernels_t;

#define HL_FP_ONE ((uint64_t)1 << 32) /* 32.32 fixed-point cursor: one source frame */

/* The fraction of a 32.32 position as the portable kernels take it (the
 * mixer's per-frame readers too: interp_at, hl_multi_interp_rt): its low
 * 32 bits to float, times 2^-32. */
static inline float hl_fp_frac(uint32_t fb) {
    return (float)fb * (1.0f / 4294967296.0f);
}

/* The 32.32 step of a pitch given as a float factor (voice_step, tests,
 * benches). */
static inline uint64_t hl_fp_step(double step) {
    return (uint64_t)(step * 4294967296.0 + 0.5);
}

/* Catmull-Rom through b (f = 0) and c (f = 1) with outer points a and d.
 * Shared by the kernels and the mixer's scalar edge path so both agree. */
static inline float hl_catmull_rom(float a, float b, float c, float d, float f) {
    return b +
           0.5f * f *
               (c - a + f * (2.0f * a - 5.0f * b + 4.0f * c - d + f * (3.0f * (b - c) + d - a)));
}

/* The portable kernels (auto-vectorised by the compiler). */
extern const hl_mix_kernels_t hl_mix_kernels_generic;
/* AVX2+FMA kernels, or NULL when the build cannot provide them. Callers check
 * hl_mix_kernels_avx2_usable() (CPU support) before using them. */
extern const hl_mix_kernels_t *const hl_mix_kernels_avx2;
int hl_mix_kernels_avx2_usable(void);
/* AVX-512 (F + VL) kernels: the plain mono mix and every fused pitched
 * kernel at 16 lanes, the rest of the table AVX2; or NULL.
 * hl_mix_kernels_avx512_usable() says whether the CPU runs them. */
extern const hl_mix_kernels_t *const hl_mix_kernels_avx512;
int hl_mix_kernels_avx512_usable(void);
/* The default at the AVX-512 level: each kernel from the set measured faster
 * (mix_kernels.c says which and gives the figures; on Zen 4 every AVX-512
 * kernel, so the AVX-512 table itself); the strict AVX-512
 * table when the cap was set to avx512
 * (hl_simd_strict). */
extern const hl_mix_kernels_t *const hl_mix_kernels_avx512_best;

#endif /* HL_MIX_KERNELS_H */
