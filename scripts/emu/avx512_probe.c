/* avx512_probe.c - checks that a CPU (real or emulated) runs AVX-512 correctly.
 *
 * Prints what __builtin_cpu_supports says about avx512f and avx512vl (the pair
 * daemon/mixer picks its AVX-512 kernels with), then, if both are there, runs a
 * handful of AVX-512F and AVX-512VL instructions (512-bit arithmetic and FMA,
 * mask registers, 256-bit masked ops, permutes, gathers, compress, conversions)
 * and compares each result with the same computation done in scalar code.
 *
 * Build: gcc -O2 -o avx512_probe scripts/emu/avx512_probe.c
 *        (no -mavx512f: only the functions marked with the target attribute
 *        use AVX-512, so the binary starts on any x86-64)
 * Exit:  0 all checks passed, 1 a check failed, 77 the CPU lacks AVX-512.
 */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define AVX512 __attribute__((target("avx512f,avx512vl"), noinline))

static int failures;

static void check(const char *what, int ok) {
    printf("  %-34s %s\n", what, ok ? "ok" : "MISMATCH");
    if (!ok) failures++;
}

/* Inputs come from here at run time so the compiler cannot fold the
 * intrinsics into constants: the instructions really execute. */
static volatile float seed = 0.25f;

AVX512 static void run_checks(void) {
    float a[16], b[16], c[16], out[16];
    int32_t idx[16], iout[16];
    for (int i = 0; i < 16; i++) {
        a[i] = seed * (float)(i + 1);
        b[i] = seed * (float)(16 - i) - 1.0f;
        c[i] = seed * (float)(i * i) * 0.5f;
        idx[i] = (i * 7) & 15;
    }
    __m512 va = _mm512_loadu_ps(a), vb = _mm512_loadu_ps(b), vc = _mm512_loadu_ps(c);

    /* 512-bit add and fused multiply-add (zmm registers, EVEX encoding). */
    _mm512_storeu_ps(out, _mm512_add_ps(va, vb));
    int ok = 1;
    for (int i = 0; i < 16; i++)
        ok &= out[i] == a[i] + b[i];
    check("avx512f add_ps (zmm)", ok);

    _mm512_storeu_ps(out, _mm512_fmadd_ps(va, vb, vc));
    ok = 1;
    for (int i = 0; i < 16; i++)
        ok &= out[i] == fmaf(a[i], b[i], c[i]);
    check("avx512f fmadd_ps (zmm)", ok);

    /* Compare into a mask register, then a masked blend. */
    __mmask16 gt = _mm512_cmp_ps_mask(va, vb, _CMP_GT_OQ);
    uint16_t want_gt = 0;
    for (int i = 0; i < 16; i++)
        want_gt |= (uint16_t)((a[i] > b[i]) << i);
    check("avx512f cmp_ps_mask (k regs)", gt == want_gt);

    _mm512_storeu_ps(out, _mm512_mask_blend_ps(gt, vc, va));
    ok = 1;
    for (int i = 0; i < 16; i++)
        ok &= out[i] == ((want_gt >> i & 1) ? a[i] : c[i]);
    check("avx512f mask_blend_ps", ok);

    /* Zero-masked multiply: lanes outside the mask must be 0. */
    __mmask16 odd = 0xAAAA;
    _mm512_storeu_ps(out, _mm512_maskz_mul_ps(odd, va, vb));
    ok = 1;
    for (int i = 0; i < 16; i++)
        ok &= out[i] == ((i & 1) ? a[i] * b[i] : 0.0f);
    check("avx512f maskz_mul_ps", ok);

    /* Cross-lane permute and a gather. */
    __m512i vidx = _mm512_loadu_si512(idx);
    _mm512_storeu_ps(out, _mm512_permutexvar_ps(vidx, va));
    ok = 1;
    for (int i = 0; i < 16; i++)
        ok &= out[i] == a[idx[i]];
    check("avx512f permutexvar_ps", ok);

    _mm512_storeu_ps(out, _mm512_i32gather_ps(vidx, c, 4));
    ok = 1;
    for (int i = 0; i < 16; i++)
        ok &= out[i] == c[idx[i]];
    check("avx512f i32gather_ps", ok);

    /* Compress the lanes selected by a mask to the front. */
    memset(out, 0, sizeof out);
    _mm512_mask_compressstoreu_ps(out, gt, va);
    ok = 1;
    for (int i = 0, j = 0; i < 16; i++)
        if (want_gt >> i & 1) ok &= out[j++] == a[i];
    check("avx512f mask_compressstoreu_ps", ok);

    /* Conversion and horizontal reduction. */
    _mm512_storeu_si512(iout, _mm512_cvttps_epi32(_mm512_mul_ps(va, _mm512_set1_ps(10.0f))));
    ok = 1;
    for (int i = 0; i < 16; i++)
        ok &= iout[i] == (int32_t)(a[i] * 10.0f);
    check("avx512f cvttps_epi32", ok);

    float sum = 0.0f;
    for (int i = 0; i < 16; i++)
        sum += a[i];
    check("avx512f reduce_add_ps", fabsf(_mm512_reduce_add_ps(va) - sum) <= 1e-4f * sum);

    /* AVX-512VL: EVEX-encoded 256- and 128-bit ops with mask registers. */
    __m256 ya = _mm256_loadu_ps(a), yb = _mm256_loadu_ps(b);
    _mm256_storeu_ps(out, _mm256_mask_add_ps(yb, 0x5A, ya, yb));
    ok = 1;
    for (int i = 0; i < 8; i++)
        ok &= out[i] == ((0x5A >> i & 1) ? a[i] + b[i] : b[i]);
    check("avx512vl mask_add_ps (ymm)", ok);

    __mmask8 ylt = _mm256_cmp_ps_mask(ya, yb, _CMP_LT_OQ);
    __mmask8 want_lt = 0;
    for (int i = 0; i < 8; i++)
        want_lt |= (__mmask8)((a[i] < b[i]) << i);
    check("avx512vl cmp_ps_mask (ymm)", ylt == want_lt);

    __m128 xa = _mm_loadu_ps(a), xc = _mm_loadu_ps(c);
    _mm_storeu_ps(out, _mm_maskz_fmadd_ps(0x9, xa, xa, xc));
    ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= out[i] == ((0x9 >> i & 1) ? fmaf(a[i], a[i], c[i]) : 0.0f);
    check("avx512vl maskz_fmadd_ps (xmm)", ok);

    /* A register only EVEX can name (xmm16-31 / zmm16-31). */
    float hi = 0.0f;
    __asm__ volatile("vmovss %1, %%xmm24\n\t"
                     "vaddss %%xmm24, %%xmm24, %%xmm24\n\t"
                     "vmovss %%xmm24, %0"
                     : "=m"(hi)
                     : "m"(a[3])
                     : "xmm24");
    check("avx512f upper register xmm24", hi == a[3] + a[3]);
}

int main(void) {
    __builtin_cpu_init();
    int f = __builtin_cpu_supports("avx512f") != 0;
    int vl = __builtin_cpu_supports("avx512vl") != 0;
    printf("avx512f=%d avx512vl=%d\n", f, vl);
    if (!f || !vl) {
        printf("avx512_probe: this CPU has no AVX-512F+VL; checks not run\n");
        return 77;
    }
    run_checks();
    printf(failures ? "avx512_probe: %d check(s) FAILED\n" : "avx512_probe: all checks passed\n",
           failures);
    return failures ? 1 : 0;
}
