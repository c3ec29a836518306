/*
 * mix_kernels_avx512.c - the vector loops of the AVX-512 fused pitched
 * kernels (linear and Catmull-Rom; mono, interleaved stereo and stereo
 * downmixed), sixteen output frames an iteration. mix_kernels.c owns the
 * tables and finishes each run in scalar.
 *
 * Written for the CPU where a 512-bit operation costs most: Zen 4 runs
 * each as two 256-bit halves, so the vector operations per output frame
 * are what bounds the loop (bench/README.md, issue 28), and every one
 * that a load can do instead is taken out:
 *  - positions are x = f0 + t * step with one rounding, as the portable
 *    kernels compute them, t (and t + 1 for a ramp) read from a table of
 *    floats instead of counted with an add (counting measured 1.5 ns a
 *    256-frame call slower);
 *  - the first lane's index of all sixteen iterations comes from one
 *    fused multiply-add, one conversion and one store, and each iteration
 *    broadcasts its own from memory: no scalar float arithmetic and no
 *    register moves on the loads' address path;
 *  - how many iterations keep their window inside `avail` is decided once;
 *  - at step <= HL_AVX512_NARROW the taps of an iteration's sixteen
 *    positions lie within 32 frames of the first lane's first tap: two
 *    loads and one two-source permute (vpermt2ps) per tap (stereo: four
 *    loads split into left and right halves by four more). There a lane's
 *    index is at most floor(15 * 1.75 + 1) = 27 frames past the first
 *    lane's, 28 where a rounding lands on the next frame, so its last tap
 *    (Catmull-Rom: 3 past it, in a window that starts a frame early) is
 *    inside the window without a clamp, and the fraction is x - floor(x),
 *    the portable kernels' own. Faster steps gather.
 *  - a mono iteration at step <= HL_AVX512_NARROW16 (0.93; Catmull-Rom
 *    0.79) has its taps within 16 frames of the window's start: one load
 *    and the one-source vpermps instead (mix_kernels_avx512.h says why).
 * interp_mix_mono2 (the end of the file) runs two flat linear mono voices
 * in one pass over the accumulators: each sum rounded as in two calls.
 * The gain pair is flat (the steady state) or the ramp polynomial of
 * mix_kernels.h; `flat`, `stereo`, `cubic`, `down`, `wide` and `w16` are constants
 * in each instance, so nothing is decided per iteration.
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
pitched_loop(float *__restrict__ al, float *__restrict__ ar, const float *__restrict__ s,
             uint32_t avail, uint32_t n, float f0, float step, const hl_gain_ramp_t *g,
             const int flat, const int stereo, const int cubic, const int down, const int wide,
             const int w16) {
    const __m512 vstep = _mm512_set1_ps(step), vf0 = _mm512_set1_ps(f0);
    const __m512 half = _mm512_set1_ps(0.5f);
    const __m512 l0 = _mm512_set1_ps(g->l0), dl = _mm512_set1_ps(g->dl), ql = _mm512_set1_ps(g->ql);
    const __m512 r0 = _mm512_set1_ps(g->r0), dr = _mm512_set1_ps(g->dr), qr = _mm512_set1_ps(g->qr);
    const __m512i evens =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
    const int taps = cubic ? 4 : 2, first = cubic ? -1 : 0, ch = stereo ? 2 : 1;
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
        __m512 tl[4], tr[4];
        if (!wide) {
            const __m512i rel = _mm512_sub_epi32(i, _mm512_set1_epi32(i0s[j]));
            const float *w = s + ch * (i0s[j] + first);
            __m512 lo = _mm512_loadu_ps(w), hi = w16 ? lo : _mm512_loadu_ps(w + HL_AVX512_LANES);
            __m512 rlo = lo, rhi = hi;
            if (stereo) { /* 32 frames as 64 floats: left and right halves */
                const __m512 v2 = _mm512_loadu_ps(w + 32), v3 = _mm512_loadu_ps(w + 48);
                rlo = _mm512_permutex2var_ps(lo, odds, hi);
                rhi = _mm512_permutex2var_ps(v2, odds, v3);
                lo = _mm512_permutex2var_ps(lo, evens, hi);
                hi = _mm512_permutex2var_ps(v2, evens, v3);
            }
            for (int o = 0; o < taps; o++) { /* taps floor(x) + first + o */
                const __m512i at = o ? _mm512_add_epi32(rel, _mm512_set1_epi32(o)) : rel;
                tl[o] = w16 ? _mm512_permutexvar_ps(at, lo) : _mm512_permutex2var_ps(lo, at, hi);
                if (stereo) tr[o] = _mm512_permutex2var_ps(rlo, at, rhi);
            }
        } else {
            const __m512i ix = stereo ? _mm512_add_epi32(i, i) : i;
            for (int o = 0; o < taps; o++) {
                tl[o] = _mm512_i32gather_ps(ix, s + ch * (first + o), sizeof(float));
                if (stereo) tr[o] = _mm512_i32gather_ps(ix, s + 2 * (first + o) + 1, sizeof(float));
            }
        }
        __m512 vl, vr;
        if (stereo && down) { /* (L + R) / 2 first: both interpolators are linear in the taps */
            for (int o = 0; o < taps; o++)
                tl[o] = _mm512_add_ps(tl[o], tr[o]);
        }
        if (cubic) {
            vl = catmull_rom_avx512(tl[0], tl[1], tl[2], tl[3], f);
            vr = stereo && !down ? catmull_rom_avx512(tr[0], tr[1], tr[2], tr[3], f) : vl;
        } else {
            vl = _mm512_fmadd_ps(f, _mm512_sub_ps(tl[1], tl[0]), tl[0]);
            vr = stereo && !down ? _mm512_fmadd_ps(f, _mm512_sub_ps(tr[1], tr[0]), tr[0]) : vl;
        }
        if (stereo && down) vl = vr = _mm512_mul_ps(vl, half);
        __m512 gl = l0, gr = r0;
        if (!flat) {
            const __m512 k = _mm512_loadu_ps(hl_kt + t + 1);
            gl = _mm512_fmadd_ps(k, _mm512_fmadd_ps(k, ql, dl), l0);
            gr = _mm512_fmadd_ps(k, _mm512_fmadd_ps(k, qr, dr), r0);
        }
        _mm512_storeu_ps(al + t, _mm512_fmadd_ps(vl, gl, _mm512_loadu_ps(al + t)));
        _mm512_storeu_ps(ar + t, _mm512_fmadd_ps(vr, gr, _mm512_loadu_ps(ar + t)));
    }
    return j * HL_AVX512_LANES;
}

/* One instance per (flat gains; one 16-frame window (mono), two, or gather). */
#define HL_PITCHED_WIN(FLAT, STEREO, CUBIC, DOWN)                                                  \
    (!(STEREO) && step <= ((CUBIC) ? HL_AVX512_NARROW16_CUBIC : HL_AVX512_NARROW16)                \
         ? pitched_loop(al, ar, s, avail, n, f0, step, g, FLAT, STEREO, CUBIC, DOWN, 0, 1)         \
     : step <= HL_AVX512_NARROW                                                                    \
         ? pitched_loop(al, ar, s, avail, n, f0, step, g, FLAT, STEREO, CUBIC, DOWN, 0, 0)         \
         : pitched_loop(al, ar, s, avail, n, f0, step, g, FLAT, STEREO, CUBIC, DOWN, 1, 0))
#define HL_PITCHED_LOOP(STEREO, CUBIC, DOWN)                                                       \
    (hl_gain_is_const(g) ? HL_PITCHED_WIN(1, STEREO, CUBIC, DOWN)                                  \
                         : HL_PITCHED_WIN(0, STEREO, CUBIC, DOWN))

#define HL_PITCHED_ENTRY(NAME, STEREO, CUBIC, DOWN)                                                \
    HL_AVX512_ATTR uint32_t hl_##NAME##_avx512(float *al, float *ar, const float *s,               \
                                               uint32_t avail, uint32_t n, float f0, float step,   \
                                               const hl_gain_ramp_t *g) {                          \
        return HL_PITCHED_LOOP(STEREO, CUBIC, DOWN);                                               \
    }
HL_PITCHED_ENTRY(interp_mix_mono, 0, 0, 0)
HL_PITCHED_ENTRY(cubic_mix_mono, 0, 1, 0)
HL_PITCHED_ENTRY(interp_mix_stereo, 1, 0, 0)
HL_PITCHED_ENTRY(cubic_mix_stereo, 1, 1, 0)
HL_PITCHED_ENTRY(interp_mix_downmix, 1, 0, 1)
HL_PITCHED_ENTRY(cubic_mix_downmix, 1, 1, 1)

/* One linear mono run's setup for pair_loop: lane 0's index of each
 * iteration into i0s; 0 unless every iteration's window is inside avail
 * (the single kernel would then finish in scalar: the pair declines). */
HL_AVX512_ATTR static inline __attribute__((always_inline)) int
pair_setup(const hl_mix_mono_run_t *r, uint32_t iters, int32_t *i0s) {
    const __m512 tj = _mm512_setr_ps(0.0f, 16.0f, 32.0f, 48.0f, 64.0f, 80.0f, 96.0f, 112.0f, 128.0f,
                                     144.0f, 160.0f, 176.0f, 192.0f, 208.0f, 224.0f, 240.0f);
    const __m512i i0v =
        _mm512_cvttps_epi32(_mm512_fmadd_ps(tj, _mm512_set1_ps(r->step), _mm512_set1_ps(r->f0)));
    _mm512_store_si512(i0s, i0v);
    const __mmask16 in =
        _mm512_cmple_epu32_mask(_mm512_add_epi32(i0v, _mm512_set1_epi32(HL_AVX512_WINDOW)),
                                _mm512_set1_epi32((int)r->avail));
    return (uint32_t)__builtin_ctz(~(uint32_t)in) >= iters;
}

/* pitched_loop's linear mono value of the iteration at t (lane 0's index i0). */
HL_AVX512_ATTR static inline __attribute__((always_inline)) __m512
pair_value(const float *s, int32_t i0, uint32_t t, __m512 vstep, __m512 vf0, const int w16) {
    const __m512 x = _mm512_fmadd_ps(_mm512_load_ps(hl_kt + t), vstep, vf0);
    const __m512i i = _mm512_cvttps_epi32(x);
    const __m512 f = _mm512_sub_ps(x, _mm512_cvtepi32_ps(i));
    const __m512i rel = _mm512_sub_epi32(i, _mm512_set1_epi32(i0));
    const __m512i rel1 = _mm512_add_epi32(rel, _mm512_set1_epi32(1));
    const float *w = s + i0;
    const __m512 lo = _mm512_loadu_ps(w);
    const __m512 hi = w16 ? lo : _mm512_loadu_ps(w + HL_AVX512_LANES);
    const __m512 a = w16 ? _mm512_permutexvar_ps(rel, lo) : _mm512_permutex2var_ps(lo, rel, hi);
    const __m512 b = w16 ? _mm512_permutexvar_ps(rel1, lo) : _mm512_permutex2var_ps(lo, rel1, hi);
    return _mm512_fmadd_ps(f, _mm512_sub_ps(b, a), a);
}

/* Lines 2j and 2j + 1 of a run's prefetch span [b, e), the first line
 * where they lie past its end: the block loop's per-voice prefetch loop,
 * spread over the iterations in branch-free scalar work, which the vector
 * loop leaves room for (two lines an iteration: 32 lines, a span of up to
 * 256 frames at step 1.9). */
static inline __attribute__((always_inline)) void pair_prefetch(const char *b, const char *e,
                                                                uint32_t j) {
    const char *q = b + 2 * 64 * (size_t)j, *q1 = q + 64;
    __builtin_prefetch(q < e ? q : b);
    __builtin_prefetch(q1 < e ? q1 : b);
}

/* Two runs, one accumulator pass: run 0's multiply-add, then run 1's, on
 * the same loaded accumulators: each sum is rounded as in two calls. */
HL_AVX512_ATTR static inline __attribute__((always_inline)) void
pair_loop(float *__restrict__ al, float *__restrict__ ar, const hl_mix_mono_run_t *r,
          uint32_t iters, const int32_t *i0a, const int32_t *i0b, const int w16a, const int w16b,
          const char *const *pf) {
    /* no span: the accumulator's first line, in cache */
    const char *pa = pf && pf[0] ? pf[0] : (const char *)al, *ea = pf && pf[0] ? pf[2] : pa;
    const char *pb = pf && pf[1] ? pf[1] : (const char *)al, *eb = pf && pf[1] ? pf[3] : pb;
    const __m512 sa = _mm512_set1_ps(r[0].step), fa = _mm512_set1_ps(r[0].f0);
    const __m512 sb = _mm512_set1_ps(r[1].step), fb = _mm512_set1_ps(r[1].f0);
    const __m512 gla = _mm512_set1_ps(r[0].gl), gra = _mm512_set1_ps(r[0].gr);
    const __m512 glb = _mm512_set1_ps(r[1].gl), grb = _mm512_set1_ps(r[1].gr);
    for (uint32_t j = 0; j < iters; j++) {
        const uint32_t t = j * HL_AVX512_LANES;
        pair_prefetch(pa, ea, j);
        pair_prefetch(pb, eb, j);
        const __m512 va = pair_value(r[0].src, i0a[j], t, sa, fa, w16a);
        const __m512 vb = pair_value(r[1].src, i0b[j], t, sb, fb, w16b);
        const __m512 l = _mm512_fmadd_ps(va, gla, _mm512_loadu_ps(al + t));
        const __m512 rr = _mm512_fmadd_ps(va, gra, _mm512_loadu_ps(ar + t));
        _mm512_storeu_ps(al + t, _mm512_fmadd_ps(vb, glb, l));
        _mm512_storeu_ps(ar + t, _mm512_fmadd_ps(vb, grb, rr));
    }
}

HL_AVX512_ATTR int hl_interp_mix_mono2_avx512(float *al, float *ar, const hl_mix_mono_run_t r[2],
                                              uint32_t n, const char *const *pf) {
    int32_t i0a[HL_AVX512_LANES] __attribute__((aligned(64)));
    int32_t i0b[HL_AVX512_LANES] __attribute__((aligned(64)));
    if (n > HL_MIX_BLOCK || n % HL_AVX512_LANES || r[0].step > HL_AVX512_NARROW ||
        r[1].step > HL_AVX512_NARROW)
        return 0;
    const uint32_t iters = n / HL_AVX512_LANES;
    if (!pair_setup(&r[0], iters, i0a) || !pair_setup(&r[1], iters, i0b)) return 0;
    const int na = r[0].step <= HL_AVX512_NARROW16, nb = r[1].step <= HL_AVX512_NARROW16;
    if (na && nb)
        pair_loop(al, ar, r, iters, i0a, i0b, 1, 1, pf);
    else if (na)
        pair_loop(al, ar, r, iters, i0a, i0b, 1, 0, pf);
    else if (nb)
        pair_loop(al, ar, r, iters, i0a, i0b, 0, 1, pf);
    else
        pair_loop(al, ar, r, iters, i0a, i0b, 0, 0, pf);
    return 1;
}
#endif
