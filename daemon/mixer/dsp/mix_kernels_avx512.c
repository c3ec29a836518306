/*
 * mix_kernels_avx512.c - the vector loops of the AVX-512 fused mono pitched
 * kernels (linear and Catmull-Rom), sixteen output frames an iteration.
 * mix_kernels.c owns the tables and finishes each run in scalar.
 *
 * Written for the CPU where a 512-bit operation costs most: Zen 4 runs
 * each as two 256-bit halves, so the vector operations per output frame
 * are what bounds the loop (bench/README.md, issue 28), and every one
 * that a load can do instead is taken out:
 *  - positions are x = f0 + t * step with one rounding, as the portable
 *    kernels compute them, t (and t + 1 for a ramp) read from a table of
 *    floats instead of counted with an add;
 *  - the first lane's index of all sixteen iterations comes from one
 *    fused multiply-add, one conversion and one store, and each iteration
 *    broadcasts its own from memory: no scalar float arithmetic and no
 *    register moves on the loads' address path;
 *  - how many iterations keep their window inside `avail` is decided once;
 *  - at step <= HL_AVX512_NARROW the taps of an iteration's sixteen
 *    positions lie within 32 frames of the first lane's first tap: two
 *    loads and one two-source permute (vpermt2ps) per tap. There the lane
 *    offsets stay below 15 * 1.75 + 2 plus one for a rounding that lands
 *    on the next frame, so every tap is inside the window without a clamp
 *    and the fraction is x - floor(x), the portable kernels' own. Faster
 *    steps gather.
 * The gain pair is flat (the steady state) or the ramp polynomial of
 * mix_kernels.h; `flat`, `cubic` and `wide` are constants in each
 * instance, so nothing is decided per iteration.
 */
#include "mix_kernels_avx512.h"

#include "hl_limits.h"

#if defined(__x86_64__) && defined(__GNUC__)

_Static_assert(HL_MIX_BLOCK == 256, "the position table covers one block");

/* t as floats, 0 .. HL_MIX_BLOCK + 15 (t + 1 + lane for the ramp's k) */
#define HL_K16(b)                                                                                  \
    (float)(b), (float)((b) + 1), (float)((b) + 2), (float)((b) + 3), (float)((b) + 4),            \
        (float)((b) + 5), (float)((b) + 6), (float)((b) + 7), (float)((b) + 8), (float)((b) + 9),  \
        (float)((b) + 10), (float)((b) + 11), (float)((b) + 12), (float)((b) + 13),                \
        (float)((b) + 14), (float)((b) + 15)
static const float hl_kt[HL_MIX_BLOCK + HL_AVX512_LANES] __attribute__((aligned(64))) = {
    HL_K16(0),   HL_K16(16),  HL_K16(32),  HL_K16(48),  HL_K16(64),  HL_K16(80),
    HL_K16(96),  HL_K16(112), HL_K16(128), HL_K16(144), HL_K16(160), HL_K16(176),
    HL_K16(192), HL_K16(208), HL_K16(224), HL_K16(240), HL_K16(256)};

HL_AVX512_ATTR static inline __attribute__((always_inline)) uint32_t
mono_loop(float *__restrict__ al, float *__restrict__ ar, const float *__restrict__ s,
          uint32_t avail, uint32_t n, float f0, float step, const hl_gain_ramp_t *g, const int flat,
          const int cubic, const int wide) {
    const __m512 vstep = _mm512_set1_ps(step), vf0 = _mm512_set1_ps(f0);
    const __m512 l0 = _mm512_set1_ps(g->l0), dl = _mm512_set1_ps(g->dl), ql = _mm512_set1_ps(g->ql);
    const __m512 r0 = _mm512_set1_ps(g->r0), dr = _mm512_set1_ps(g->dr), qr = _mm512_set1_ps(g->qr);
    const int taps = cubic ? 4 : 2, first = cubic ? -1 : 0;
    uint32_t iters = (n < HL_MIX_BLOCK ? n : HL_MIX_BLOCK) / HL_AVX512_LANES;
    int32_t i0s[HL_AVX512_LANES] __attribute__((aligned(64)));
    if (!wide) {
        /* lane 0 of iteration j sits at t = 16 j: the same multiply-add */
        const __m512 tj =
            _mm512_setr_ps(0.0f, 16.0f, 32.0f, 48.0f, 64.0f, 80.0f, 96.0f, 112.0f, 128.0f, 144.0f,
                           160.0f, 176.0f, 192.0f, 208.0f, 224.0f, 240.0f);
        const __m512i i0v = _mm512_cvttps_epi32(_mm512_fmadd_ps(tj, vstep, vf0));
        _mm512_store_si512(i0s, i0v);
        /* a window reads frames i0 + first .. i0 + first + 31; i0 never
         * decreases, so the iterations inside avail are a prefix */
        const __mmask16 in = _mm512_cmple_epu32_mask(
            _mm512_add_epi32(i0v, _mm512_set1_epi32(HL_AVX512_WINDOW + first)),
            _mm512_set1_epi32((int)avail));
        const uint32_t fit = (uint32_t)__builtin_ctz(~(uint32_t)in);
        iters = fit < iters ? fit : iters;
    }
    uint32_t j = 0;
    for (; j < iters; j++) {
        const uint32_t t = j * HL_AVX512_LANES;
        const __m512 x = _mm512_fmadd_ps(_mm512_load_ps(hl_kt + t), vstep, vf0);
        const __m512i i = _mm512_cvttps_epi32(x);
        const __m512 f = _mm512_sub_ps(x, _mm512_cvtepi32_ps(i));
        __m512 tap[4];
        if (!wide) {
            const __m512i rel = _mm512_sub_epi32(i, _mm512_set1_epi32(i0s[j]));
            const float *w = s + i0s[j] + first;
            const __m512 lo = _mm512_loadu_ps(w), hi = _mm512_loadu_ps(w + HL_AVX512_LANES);
            for (int o = 0; o < taps; o++) /* taps floor(x) + first + o */
                tap[o] = _mm512_permutex2var_ps(
                    lo, o ? _mm512_add_epi32(rel, _mm512_set1_epi32(o)) : rel, hi);
        } else {
            for (int o = 0; o < taps; o++)
                tap[o] = _mm512_i32gather_ps(i, s + first + o, sizeof(float));
        }
        const __m512 v = cubic ? catmull_rom_avx512(tap[0], tap[1], tap[2], tap[3], f)
                               : _mm512_fmadd_ps(f, _mm512_sub_ps(tap[1], tap[0]), tap[0]);
        __m512 gl = l0, gr = r0;
        if (!flat) {
            const __m512 k = _mm512_loadu_ps(hl_kt + t + 1);
            gl = _mm512_fmadd_ps(k, _mm512_fmadd_ps(k, ql, dl), l0);
            gr = _mm512_fmadd_ps(k, _mm512_fmadd_ps(k, qr, dr), r0);
        }
        _mm512_storeu_ps(al + t, _mm512_fmadd_ps(v, gl, _mm512_loadu_ps(al + t)));
        _mm512_storeu_ps(ar + t, _mm512_fmadd_ps(v, gr, _mm512_loadu_ps(ar + t)));
    }
    return j * HL_AVX512_LANES;
}

/* One instance per (flat gains, window or gather). */
#define HL_MONO_LOOP(CUBIC)                                                                        \
    (hl_gain_is_const(g)                                                                           \
         ? (step <= HL_AVX512_NARROW ? mono_loop(al, ar, s, avail, n, f0, step, g, 1, CUBIC, 0)    \
                                     : mono_loop(al, ar, s, avail, n, f0, step, g, 1, CUBIC, 1))   \
         : (step <= HL_AVX512_NARROW ? mono_loop(al, ar, s, avail, n, f0, step, g, 0, CUBIC, 0)    \
                                     : mono_loop(al, ar, s, avail, n, f0, step, g, 0, CUBIC, 1)))

HL_AVX512_ATTR uint32_t hl_interp_mix_mono_avx512(float *al, float *ar, const float *s,
                                                  uint32_t avail, uint32_t n, float f0, float step,
                                                  const hl_gain_ramp_t *g) {
    return HL_MONO_LOOP(0);
}

HL_AVX512_ATTR uint32_t hl_cubic_mix_mono_avx512(float *al, float *ar, const float *s,
                                                 uint32_t avail, uint32_t n, float f0, float step,
                                                 const hl_gain_ramp_t *g) {
    return HL_MONO_LOOP(1);
}
#endif
