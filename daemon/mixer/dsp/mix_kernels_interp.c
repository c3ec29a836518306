/*
 * mix_kernels_interp.c - the vector part of the AVX2 unfused interpolators
 * (hl_mix_kernels_t.interp_mono and cubic_mono, eight output frames an
 * iteration): what the post stage's mono input (voice_post.c) runs for a
 * pitched voice. mix_kernels.c instantiates the kernels and finishes each
 * run with the scalar loop they had before (HL_KERNEL_BODIES).
 *
 * The compiler vectorised that loop itself, but a position frac + t x step
 * in 64 bits cost it six 32-bit multiplies, shifts and four cross-lane
 * shuffles per eight frames, and each tap eight scalar loads and inserts.
 * Here the positions come from lanes8 / lanes8_at (mix_kernels_avx512.h:
 * three vector operations an iteration, exact); the taps at step <= 1 from
 * windows of contiguous frames permuted into lanes, as in the fused AVX2
 * kernels, above by one load of each lane's taps (hl_lane_taps8). Each lane
 * computes what the scalar loop does for its frame, with the same
 * operations in the same order (nothing fused), so the output bits do not
 * depend on which frames the vector loop takes, and are the ones the
 * compiler's loop gave.
 *
 * An unfused kernel knows no `avail`: it may read only the frames its run
 * needs (mix_kernels.h), the last one being the last position's last tap.
 * A window reads past an iteration's last lane, so near the run's end the
 * window loop stops and the lanes' loads, which read only the taps, go on.
 */
#include "mix_kernels_avx512.h"

#if defined(__x86_64__) && defined(__GNUC__)

#define HL_LANES 8

/* hl_catmull_rom (mix_kernels.h) at eight lanes: the same operations in
 * the same order, none fused. */
HL_AVX2_ATTR static inline __attribute__((always_inline)) __m256
catmull_rom_plain(__m256 a, __m256 b, __m256 c, __m256 d, __m256 f) {
    const __m256 s3 = _mm256_mul_ps(_mm256_set1_ps(3.0f), _mm256_sub_ps(b, c));
    const __m256 in3 = _mm256_sub_ps(_mm256_add_ps(s3, d), a);
    __m256 in2 = _mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(2.0f), a),
                               _mm256_mul_ps(_mm256_set1_ps(5.0f), b));
    in2 = _mm256_sub_ps(_mm256_add_ps(in2, _mm256_mul_ps(_mm256_set1_ps(4.0f), c)), d);
    in2 = _mm256_add_ps(in2, _mm256_mul_ps(f, in3));
    const __m256 in1 = _mm256_add_ps(_mm256_sub_ps(c, a), _mm256_mul_ps(f, in2));
    return _mm256_add_ps(b, _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), f), in1));
}

/* Frames t .. of a run (t a multiple of 8) while eight remain and, in a
 * window loop (`win`, a constant in each instance: step <= 1), the window
 * ends at or before frame `last` of src; returns where it stopped.
 * `cubic` (a constant too): Catmull-Rom, else linear. */
HL_AVX2_ATTR static inline __attribute__((always_inline)) uint32_t
interp_loop(float *d, const float *s, uint32_t t, uint32_t n, uint32_t frac, uint64_t step,
            const hl_lanes8_t *ln, uint32_t last, const int cubic, const int win) {
    /* frames a window reads past s + i0: from the first tap (Catmull-Rom:
     * one before) on, one load a tap */
    const uint32_t past = (cubic ? 2 : 1) + HL_LANES - 1;
    const int first = cubic ? -1 : 0, taps = cubic ? 4 : 2;
    uint64_t x0 = frac + (uint64_t)t * step; /* lane 0's position */
    for (; t + HL_LANES <= n; t += HL_LANES, x0 += HL_LANES * step) {
        const int i0 = (int)(x0 >> 32);
        __m256 f, p[4];
        const __m256i rel = lanes8_at(ln, (uint32_t)x0, &f);
        if (win) { /* lane offsets from the first lane's frame in 0 .. 7 */
            if ((uint32_t)i0 + past > last) break; /* the rest loads by lane */
#pragma GCC unroll 4
            for (int o = 0; o < taps; o++)
                p[o] = _mm256_permutevar8x32_ps(_mm256_loadu_ps(s + i0 + first + o), rel);
        } else {
            hl_lane_taps8(s, x0, step, cubic, 1, p);
        }
        const __m256 v = cubic ? catmull_rom_plain(p[0], p[1], p[2], p[3], f)
                               : _mm256_add_ps(p[0], _mm256_mul_ps(f, _mm256_sub_ps(p[1], p[0])));
        _mm256_storeu_ps(d + t, v);
    }
    return t;
}

/* Windows up to step 1 (measured faster there: 46 vs 76 ns a 256-frame
 * linear call, 114 vs 135 Catmull-Rom), then each lane's taps. */
#define HL_INTERP_RUN(CUBIC)                                                                       \
    do {                                                                                           \
        if (n < HL_LANES) return 0;                                                                \
        const hl_lanes8_t ln = lanes8(step);                                                       \
        /* the last frame the run reads: its last position's last tap */                           \
        const uint32_t last = (uint32_t)((frac + (uint64_t)(n - 1) * step) >> 32) + 1 + (CUBIC);   \
        uint32_t t = 0;                                                                            \
        if (step <= HL_FP_ONE) t = interp_loop(d, s, 0, n, frac, step, &ln, last, CUBIC, 1);       \
        return interp_loop(d, s, t, n, frac, step, &ln, last, CUBIC, 0);                           \
    } while (0)

HL_AVX2_ATTR uint32_t hl_interp_mono_avx2(float *d, const float *s, uint32_t n, uint32_t frac,
                                          uint64_t step) {
    HL_INTERP_RUN(0);
}

HL_AVX2_ATTR uint32_t hl_cubic_mono_avx2(float *d, const float *s, uint32_t n, uint32_t frac,
                                         uint64_t step) {
    HL_INTERP_RUN(1);
}
#endif
