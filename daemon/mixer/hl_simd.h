/*
 * hl_simd.h - which instruction set the mixer's kernels use (mix, sinc, HRTF,
 * voice filters): the widest this CPU runs, capped by hl_simd_set_cap. The
 * daemon sets the cap from the HELIOD_SIMD environment variable
 * (portable|avx2|avx512); the tests run once per level the CPU has, so a
 * machine with AVX-512 checks all three.
 */
#ifndef HL_SIMD_H
#define HL_SIMD_H

#include <string.h>

#define HL_SIMD_PORTABLE 0
#define HL_SIMD_AVX2     1 /* AVX2 + FMA */
#define HL_SIMD_AVX512   2 /* AVX-512 F + VL (with AVX2 + FMA) */

/* The widest level this CPU and this build run (ignores the cap). */
int hl_simd_cpu(void);
/* Caps every kernel choice made afterwards at level (kernels already chosen,
 * e.g. by a running mixer, keep theirs); returns the level now in effect,
 * min(level, hl_simd_cpu()). Main thread, before the audio thread starts. */
int hl_simd_set_cap(int level);
/* The level in effect: min(cap, hl_simd_cpu()). Any thread, no lock. */
int hl_simd_level(void);

/* "portable", "avx2" or "avx512" (a HELIOD_SIMD value): its level, or -1. */
static inline int hl_simd_parse(const char *s) {
    if (!s) return -1;
    if (strcmp(s, "portable") == 0) return HL_SIMD_PORTABLE;
    if (strcmp(s, "avx2") == 0) return HL_SIMD_AVX2;
    if (strcmp(s, "avx512") == 0) return HL_SIMD_AVX512;
    return -1;
}

/* The name of a level ("portable", "avx2", "avx512"). */
static inline const char *hl_simd_name(int level) {
    return level >= HL_SIMD_AVX512 ? "avx512" : level == HL_SIMD_AVX2 ? "avx2" : "portable";
}

#endif /* HL_SIMD_H */
