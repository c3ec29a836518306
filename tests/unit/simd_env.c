/*
 * simd_env.c - linked into the unit tests of code with SIMD kernels: before
 * main, HELIOD_SIMD (portable|avx2|avx512, set by meson for each run of such
 * a test) caps the instruction set the mixer's kernels use, as the daemon
 * does; a level this CPU lacks skips the run (exit 77). Unset: the widest the
 * CPU has.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hl_simd.h"

__attribute__((constructor)) static void simd_env(void) {
    const char *var, *v = hl_isa_env(&var);
    if (!v) return;
    int want = hl_simd_parse(v);
    if (want < 0) {
        fprintf(stderr, "%s must be generic, avx2 or avx512 (got '%s')\n", var, v);
        exit(1);
    }
    if (want > hl_simd_cpu()) {
        printf("# this CPU does not run %s (it runs %s): skipped\n", v,
               hl_simd_name(hl_simd_cpu()));
        exit(77);
    }
    if (hl_simd_set_cap(want) != want) exit(1);
    printf("# kernels capped at %s\n", v);
}
