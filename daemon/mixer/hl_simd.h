/*
 * hl_simd.h - which instruction set the mixer's kernels use (mix, sinc, HRTF,
 * voice filters): the widest this CPU runs, capped by hl_simd_set_cap. The
 * daemon, the tests and bench/mix set the cap from the HELIOD_ISA environment
 * variable (generic|avx2|avx512; HELIOD_SIMD is its older name, portable
 * the older name of generic: both still work); the tests run once per level
 * the CPU has, so a machine with AVX-512 checks all three.
 */
#ifndef HL_SIMD_H
#define HL_SIMD_H

#include <stdlib.h>
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
/* 1 if the cap was set to avx512 itself (HELIOD_ISA=avx512): every kernel
 * of that level then, not the per-kernel choice of the fastest measured. */
int hl_simd_strict(void);

/* "generic" (or "portable"), "avx2" or "avx512": its level, or -1. */
static inline int hl_simd_parse(const char *s) {
    if (!s) return -1;
    if (strcmp(s, "generic") == 0 || strcmp(s, "portable") == 0) return HL_SIMD_PORTABLE;
    if (strcmp(s, "avx2") == 0) return HL_SIMD_AVX2;
    if (strcmp(s, "avx512") == 0) return HL_SIMD_AVX512;
    return -1;
}

/* The instruction-set override from the environment: HELIOD_ISA, else
 * HELIOD_SIMD (its alias); *var names the one read. NULL when neither is set.
 * Callers outside the real-time library only (getenv). */
static inline const char *hl_isa_env(const char **var) {
    const char *v = getenv("HELIOD_ISA");
    *var = "HELIOD_ISA";
    if (!v || !*v) {
        v = getenv("HELIOD_SIMD");
        *var = "HELIOD_SIMD";
    }
    return v && *v ? v : NULL;
}

/* The name of a level ("generic", "avx2", "avx512"). */
static inline const char *hl_simd_name(int level) {
    return level >= HL_SIMD_AVX512 ? "avx512" : level == HL_SIMD_AVX2 ? "avx2" : "generic";
}

#endif /* HL_SIMD_H */
