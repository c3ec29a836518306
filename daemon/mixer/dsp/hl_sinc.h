/*
 * hl_sinc.h - the band-limited interpolator (HL_MIX_SINC): a Kaiser-windowed
 * sinc evaluated from polyphase tables, for voices whose pitch is not 1.
 *
 * A table set holds HL_SINC_LEVELS kernels. Level k is for steps (pitch x
 * Doppler) up to 2^(k/8): its cutoff is HL_SINC_CUTOFF / 2^(k/8) of the
 * source's Nyquist (so at pitch > 1 nothing above the output's Nyquist folds
 * back) and it is 2 x HL_SINC_HALF x 2^(k/8) taps long, rounded up to a
 * multiple of 8 (the transition band keeps its width in output terms: 24
 * taps at level 0, 96 at level 16). Level 0 serves every step <= 1. Steps
 * above 2^(16/8) = 4 (only a pitch of 4 with a Doppler shift up gets there)
 * use the last level: what lies between the source's Nyquist / step and /4
 * can then fold back.
 *
 * Each level has HL_SINC_PHASES rows over the fractional position; a row is
 * the kernel's taps followed by the difference to the next row, so the
 * kernel at any position is row + w x delta (w the position between rows).
 * Output at source position x = i + f (i = floor) is
 *   sum_k kernel_f[k] x src[i - half + 1 + k],  k = 0 .. 2 half - 1.
 * Positions are 32.32 fixed point (the mixer's cursor), never float: a float
 * position 2000 frames into a block would already cost 60 dB of SINAD.
 *
 * hl_sinc_size/hl_sinc_init build the tables off the audio thread (0.5 MB,
 * about 4 ms); the rest is RT safe.
 */
#ifndef HL_SINC_H
#define HL_SINC_H

#include <stddef.h>
#include <stdint.h>

#include "mix_kernels.h"

#define HL_SINC_HALF     12 /* taps each side at steps <= 1 */
#define HL_SINC_LEVELS   17 /* steps up to 2^(16/8) = 4 */
#define HL_SINC_PHASES   64 /* rows per level (linear interpolation between them) */
#define HL_SINC_MAX_HALF 48 /* HL_SINC_HALF x 4 */
#define HL_SINC_CUTOFF   0.94
#define HL_SINC_BETA     9.5 /* Kaiser: sidelobes ~ -95 dB */

typedef struct {
    uint32_t half, taps; /* taps = 2 half */
    uint64_t max_step;   /* 32.32: the largest step this level is for */
    const float *rows;   /* HL_SINC_PHASES rows of 2 x taps floats */
} hl_sinc_level_t;

typedef struct hl_sinc {
    hl_sinc_level_t lv[HL_SINC_LEVELS];
} hl_sinc_t;

/* Bytes hl_sinc_init needs. Any thread. */
size_t hl_sinc_size(void);
/* Builds the tables in mem (16-byte aligned, hl_sinc_size bytes). NULL if
 * mem is too small or misaligned. Not on the audio thread. */
const hl_sinc_t *hl_sinc_init(void *mem, size_t size);

/* RT: the level for a 32.32 step. */
static inline const hl_sinc_level_t *hl_sinc_level(const hl_sinc_t *s, uint64_t step) {
    unsigned k = 0;
    while (k + 1 < HL_SINC_LEVELS && step > s->lv[k].max_step)
        k++;
    return &s->lv[k];
}

/* RT: the kernel for the fractional position frac (0.32) into k[0..taps). */
void hl_sinc_kernel(const hl_sinc_level_t *lv, uint32_t frac, float *k);

/* RT, fused resample + mix (see mix_kernels.h for the gain ramp): for
 * t = 0 .. n-1 the source position is pos + t x step (32.32, relative to
 * src: src[0] is frame floor(pos) - (pos >> 32) = the run's base frame);
 * reads src[floor(x) - half + 1 .. floor(x) + half]. Mono: acc += v x gain;
 * stereo (interleaved src): left into acc_l with gl, right into acc_r with
 * gr; downmix: (L + R) / 2 panned with the gain pair. */
typedef void (*hl_sinc_mix_fn)(float *acc_l, float *acc_r, const float *src, uint32_t n,
                               uint64_t pos, uint64_t step, const hl_gain_ramp_t *g,
                               const hl_sinc_level_t *lv);
typedef struct {
    hl_sinc_mix_fn mono, stereo, downmix;
} hl_sinc_kernels_t;

/* The portable kernels, and the best the CPU runs (chosen once, at first
 * call of hl_sinc_kernels_best; call it off the audio thread first). At the
 * AVX-512 level that is each kernel from the set measured faster (sinc.c:
 * on Zen 4 the AVX2 mono kernel), all AVX-512 under HELIOD_ISA=avx512
 * (hl_simd_strict). */
extern const hl_sinc_kernels_t hl_sinc_kernels_generic;
const hl_sinc_kernels_t *hl_sinc_kernels_best(void);
/* AVX2+FMA kernels, and AVX-512 (F + VL) ones, or NULL when the build or
 * the CPU lacks them. */
const hl_sinc_kernels_t *hl_sinc_kernels_avx2(void);
const hl_sinc_kernels_t *hl_sinc_kernels_avx512(void);

#endif /* HL_SINC_H */
