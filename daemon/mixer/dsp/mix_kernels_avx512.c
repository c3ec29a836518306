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
 *  - positions come from the voice's 32.32 cursor, exact (mix_kernels.h):
 *    once a call, lane l's distance from lane 0 (l x step: its fraction
 *    bits and whole frames) and lane 0's fraction bits of each of the
 *    sixteen iterations (stored); an iteration adds its lane 0's fraction,
 *    broadcast from memory, to the lanes' (a carry is one frame more: one
 *    compare into a mask, one masked add) and converts the sum to the
 *    fraction (hl_fp_frac_simd: one conversion, one fused multiply-add):
 *    five vector operations, as many as the float position x = f0 + t x
 *    step took (one rounding, which depended on where the run began).
 *    Lane 0's frame, the windows' address, is counted in scalar (a 64-bit
 *    add and a shift beside the vector work); t + 1 for a ramp is read
 *    from a table of floats;
 *  - how many iterations keep their window inside `avail` is decided once
 *    (from the last iteration's frame; a division only when it leaves);
 *  - at step <= HL_AVX512_NARROW the taps of an iteration's sixteen
 *    positions lie within 32 frames of the first lane's first tap: two
 *    loads and one two-source permute (vpermt2ps) per tap (stereo: four
 *    loads split into left and right halves by four more). There a lane's
 *    index is at most floor(15 * 1.75 + 1) = 27 frames past the first
 *    lane's, so its last tap (Catmull-Rom: 3 past it, in a window that
 *    starts a frame early) is inside the window without a clamp. Faster
 *    steps load each lane's taps (lane_taps16: two hl_lane_taps8, one
 *    load a lane, and a transpose): sixteen-lane vgatherdps measured 2-5x
 *    slower on Zen 4 (a hot 256-frame call at step 2.3: linear mono 278
 *    vs 127 ns, Catmull-Rom stereo 1177 vs 230).
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

/* The positions of a call, from the 32.32 cursor: lane l's distance from
 * lane 0 of an iteration (l x step: its fraction bits with the top bit
 * flipped, lx, and its whole frames, h), and lane 0's fraction bits of each
 * iteration j (frac + 16 j step) into fb0s[j]; its frame is counted in
 * scalar (iteration_frame). AVX-512F alone: mul_epu32 gives the 64-bit
 * products l x (step mod 2^32), whose halves the permutes gather. */
HL_AVX512_ATTR static inline __attribute__((always_inline)) void
positions(uint32_t frac, uint64_t step, __m512i *lx, __m512i *h, uint32_t *fb0s) {
    const __m512i slo = _mm512_set1_epi64((long long)(step & 0xFFFFFFFFu));
    const __m512i evens =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i pa = _mm512_mul_epu32(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), slo);
    const __m512i pb = _mm512_mul_epu32(_mm512_setr_epi64(8, 9, 10, 11, 12, 13, 14, 15), slo);
    const __m512i l = _mm512_permutex2var_epi32(pa, evens, pb);
    *h = _mm512_add_epi32(_mm512_permutex2var_epi32(pa, odds, pb),
                          _mm512_mullo_epi32(lane, _mm512_set1_epi32((int)(step >> 32))));
    *lx = _mm512_xor_si512(l, _mm512_set1_epi32((int)0x80000000u));
    /* 16 j step mod 2^32 = 16 l_j mod 2^32 */
    _mm512_store_si512(fb0s,
                       _mm512_add_epi32(_mm512_slli_epi32(l, 4), _mm512_set1_epi32((int)frac)));
}

/* How many of the first `iters` iterations from frac at step keep a window
 * of reach frames from lane 0's frame + first inside avail (lane 0's frame
 * never decreases: a prefix). All of them unless the last one leaves. */
static inline uint32_t windows_fit(uint32_t frac, uint64_t step, uint32_t iters, uint32_t avail,
                                   int first, uint32_t reach) {
    const uint64_t s16 = step * HL_AVX512_LANES;
    if (!iters || ((frac + (iters - 1) * s16) >> 32) + first + reach <= avail) return iters;
    const int64_t lim = (int64_t)avail - reach - first; /* the last frame lane 0 may be at */
    if (lim < 0) return 0;
    const uint64_t top = ((uint64_t)(lim + 1) << 32) - frac; /* j s16 < top */
    const uint64_t fit = (top + s16 - 1) / s16;
    return fit < iters ? (uint32_t)fit : iters;
}

/* An iteration's sixteen positions from lane 0's fraction bits fb0: each
 * lane's frame relative to lane 0's (returned) and its fraction (*f,
 * hl_fp_frac_simd in every lane). */
HL_AVX512_ATTR static inline __attribute__((always_inline)) __m512i
lanes_at(__m512i lx, __m512i h, uint32_t fb0, __m512 *f) {
    const __m512i fbx = _mm512_add_epi32(lx, _mm512_set1_epi32((int)fb0));
    *f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(fbx), _mm512_set1_ps(0x1p-32f), _mm512_set1_ps(0.5f));
    /* the fractions' sum carried: one frame further */
    return _mm512_mask_add_epi32(h, _mm512_cmpgt_epi32_mask(lx, fbx), h, _mm512_set1_epi32(1));
}

/* Two AVX2 halves as one vector: lanes 0 .. 7 from a, 8 .. 15 from b. */
HL_AVX512_ATTR static inline __attribute__((always_inline)) __m512 join8(__m256 a, __m256 b) {
    return _mm512_castpd_ps(
        _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(a)), _mm256_castps_pd(b), 1));
}

/* The taps of an iteration past the window reach: hl_lane_taps8 for lanes
 * 0 .. 7 and 8 .. 15 (lane 8 at x + 8 step), joined: the frames a gather
 * would read (floor(x) + first + o, exact), by one load a lane (mono: 64
 * bits linear, 128 Catmull-Rom; stereo: two frames' left and right, 128
 * bits, a load per two taps) and a transpose, where sixteen-lane
 * vgatherdps measured slower on Zen 4 (bench/README.md). One transpose at
 * sixteen lanes (512-bit rows of four 128-bit inserts, 512-bit unpacks)
 * measured about twice as slow as the two halves (step 2.3, in cache). */
HL_AVX512_ATTR static inline __attribute__((always_inline)) void
lane_taps16(const float *s, uint64_t x, uint64_t step, const int stereo, const int cubic,
            __m512 *tl, __m512 *tr) {
    const uint64_t xb = x + 8 * step;
    __m256 pa[4], pb[4];
    if (!stereo) {
        hl_lane_taps8(s, x, step, cubic, 1, pa);
        hl_lane_taps8(s, xb, step, cubic, 1, pb);
        tl[0] = join8(pa[0], pb[0]), tl[1] = join8(pa[1], pb[1]);
        if (cubic) tl[2] = join8(pa[2], pb[2]), tl[3] = join8(pa[3], pb[3]);
        return;
    }
    /* frames floor(x) + first + o and one on (o = 0, Catmull-Rom: and 2),
     * written out: a loop here kept the taps in memory */
    const float *so = s + (cubic ? -1 : 1);
    hl_lane_taps8(so, x, step, 1, 2, pa);
    hl_lane_taps8(so, xb, step, 1, 2, pb);
    tl[0] = join8(pa[0], pb[0]), tr[0] = join8(pa[1], pb[1]);
    tl[1] = join8(pa[2], pb[2]), tr[1] = join8(pa[3], pb[3]);
    if (!cubic) return;
    hl_lane_taps8(so + 4, x, step, 1, 2, pa);
    hl_lane_taps8(so + 4, xb, step, 1, 2, pb);
    tl[2] = join8(pa[0], pb[0]), tr[2] = join8(pa[1], pb[1]);
    tl[3] = join8(pa[2], pb[2]), tr[3] = join8(pa[3], pb[3]);
}

HL_AVX512_ATTR static inline __attribute__((always_inline)) uint32_t
pitched_loop(float *__restrict__ al, float *__restrict__ ar, const float *__restrict__ s,
             uint32_t avail, uint32_t n, uint32_t frac, uint64_t step, const hl_gain_ramp_t *g,
             const int flat, const int stereo, const int cubic, const int down, const int wide,
             const int w16) {
    const __m512 half = _mm512_set1_ps(0.5f), k0 = _mm512_set1_ps(g->k0);
    const __m512 l0 = _mm512_set1_ps(g->l0), dl = _mm512_set1_ps(g->dl), ql = _mm512_set1_ps(g->ql);
    const __m512 r0 = _mm512_set1_ps(g->r0), dr = _mm512_set1_ps(g->dr), qr = _mm512_set1_ps(g->qr);
    const __m512i evens =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
    const int taps = cubic ? 4 : 2, first = cubic ? -1 : 0, ch = stereo ? 2 : 1;
    uint32_t iters = (n < HL_MIX_BLOCK ? n : HL_MIX_BLOCK) / HL_AVX512_LANES;
    if (!iters) return 0; /* an edge frame (n = 1): no vector setup */
    uint32_t fb0s[HL_AVX512_LANES] __attribute__((aligned(64)));
    __m512i lx, h;
    positions(frac, step, &lx, &h, fb0s);
    /* a window reads frames i0 + first .. i0 + first + 31 */
    if (!wide) iters = windows_fit(frac, step, iters, avail, first, HL_AVX512_WINDOW);
    uint64_t x0 = frac; /* lane 0's position */
    uint32_t j = 0;
    for (; j < iters; j++, x0 += step * HL_AVX512_LANES) {
        const uint32_t t = j * HL_AVX512_LANES;
        const int32_t i0 = (int32_t)(x0 >> 32);
        __m512 f;
        const __m512i rel = lanes_at(lx, h, fb0s[j], &f);
        __m512 tl[4], tr[4];
        if (!wide) {
            const float *w = s + ch * (i0 + first);
            __m512 lo = _mm512_loadu_ps(w), hi = w16 ? lo : _mm512_loadu_ps(w + HL_AVX512_LANES);
            __m512 rlo = lo, rhi = hi;
            if (stereo) { /* 32 frames as 64 floats: left and right halves */
                const __m512 v2 = _mm512_loadu_ps(w + 32), v3 = _mm512_loadu_ps(w + 48);
                rlo = _mm512_permutex2var_ps(lo, odds, hi);
                rhi = _mm512_permutex2var_ps(v2, odds, v3);
                lo = _mm512_permutex2var_ps(lo, evens, hi);
                hi = _mm512_permutex2var_ps(v2, evens, v3);
            }
#pragma GCC unroll 4
            for (int o = 0; o < taps; o++) { /* taps floor(x) + first + o */
                const __m512i at = o ? _mm512_add_epi32(rel, _mm512_set1_epi32(o)) : rel;
                tl[o] = w16 ? _mm512_permutexvar_ps(at, lo) : _mm512_permutex2var_ps(lo, at, hi);
                if (stereo) tr[o] = _mm512_permutex2var_ps(rlo, at, rhi);
            }
        } else { /* each lane's taps by one load (lane_taps16), no vgatherdps */
            lane_taps16(s, x0, step, stereo, cubic, tl, tr);
        }
        __m512 vl, vr;
        if (stereo && down) { /* (L + R) / 2 first: both interpolators are linear in the taps */
#pragma GCC unroll 4
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
            const __m512 k = _mm512_add_ps(_mm512_loadu_ps(hl_kt + t + 1), k0);
            gl = _mm512_fmadd_ps(k, _mm512_fmadd_ps(k, ql, dl), l0);
            gr = _mm512_fmadd_ps(k, _mm512_fmadd_ps(k, qr, dr), r0);
        }
        _mm512_storeu_ps(al + t, _mm512_fmadd_ps(vl, gl, _mm512_loadu_ps(al + t)));
        _mm512_storeu_ps(ar + t, _mm512_fmadd_ps(vr, gr, _mm512_loadu_ps(ar + t)));
    }
    return j * HL_AVX512_LANES;
}

/* One instance per (flat gains; one 16-frame window (mono), two, or lane loads). */
#define HL_PITCHED_WIN(FLAT, STEREO, CUBIC, DOWN)                                                  \
    (!(STEREO) && step <= ((CUBIC) ? HL_AVX512_NARROW16_CUBIC : HL_AVX512_NARROW16)                \
         ? pitched_loop(al, ar, s, avail, n, frac, step, g, FLAT, STEREO, CUBIC, DOWN, 0, 1)       \
     : step <= HL_AVX512_NARROW                                                                    \
         ? pitched_loop(al, ar, s, avail, n, frac, step, g, FLAT, STEREO, CUBIC, DOWN, 0, 0)       \
         : pitched_loop(al, ar, s, avail, n, frac, step, g, FLAT, STEREO, CUBIC, DOWN, 1, 0))
#define HL_PITCHED_LOOP(STEREO, CUBIC, DOWN)                                                       \
    (hl_gain_is_const(g) ? HL_PITCHED_WIN(1, STEREO, CUBIC, DOWN)                                  \
                         : HL_PITCHED_WIN(0, STEREO, CUBIC, DOWN))

#define HL_PITCHED_ENTRY(NAME, STEREO, CUBIC, DOWN)                                                \
    HL_AVX512_ATTR uint32_t hl_##NAME##_avx512(float *al, float *ar, const float *s,               \
                                               uint32_t avail, uint32_t n, uint32_t frac,          \
                                               uint64_t step, const hl_gain_ramp_t *g) {           \
        return HL_PITCHED_LOOP(STEREO, CUBIC, DOWN);                                               \
    }
HL_PITCHED_ENTRY(interp_mix_mono, 0, 0, 0)
HL_PITCHED_ENTRY(cubic_mix_mono, 0, 1, 0)
HL_PITCHED_ENTRY(interp_mix_stereo, 1, 0, 0)
HL_PITCHED_ENTRY(cubic_mix_stereo, 1, 1, 0)
HL_PITCHED_ENTRY(interp_mix_downmix, 1, 0, 1)
HL_PITCHED_ENTRY(cubic_mix_downmix, 1, 1, 1)

/* One linear mono run's setup for pair_loop: its positions (positions());
 * 0 unless every iteration's window is inside avail (the single kernel
 * would then finish in scalar: the pair declines). */
typedef struct {
    __m512i lx, h;
    uint32_t fb0s[HL_AVX512_LANES] __attribute__((aligned(64)));
} hl_pair_pos_t;

HL_AVX512_ATTR static inline __attribute__((always_inline)) int
pair_setup(const hl_mix_mono_run_t *r, uint32_t iters, hl_pair_pos_t *p) {
    if (windows_fit(r->frac, r->step, iters, r->avail, 0, HL_AVX512_WINDOW) < iters) return 0;
    positions(r->frac, r->step, &p->lx, &p->h, p->fb0s);
    return 1;
}

/* pitched_loop's linear mono value of iteration j (lane 0 at frame i0). */
HL_AVX512_ATTR static inline __attribute__((always_inline)) __m512
pair_value(const float *s, const hl_pair_pos_t *p, uint32_t j, int32_t i0, const int w16) {
    __m512 f;
    const __m512i rel = lanes_at(p->lx, p->h, p->fb0s[j], &f);
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
          uint32_t iters, const hl_pair_pos_t *pa, const hl_pair_pos_t *pb, const int w16a,
          const int w16b, const char *const *pf) {
    /* no span: the accumulator's first line, in cache */
    const char *qa = pf && pf[0] ? pf[0] : (const char *)al, *ea = pf && pf[0] ? pf[2] : qa;
    const char *qb = pf && pf[1] ? pf[1] : (const char *)al, *eb = pf && pf[1] ? pf[3] : qb;
    const __m512 gla = _mm512_set1_ps(r[0].gl), gra = _mm512_set1_ps(r[0].gr);
    const __m512 glb = _mm512_set1_ps(r[1].gl), grb = _mm512_set1_ps(r[1].gr);
    uint64_t xa = r[0].frac, xb = r[1].frac; /* lane 0's positions */
    const uint64_t sa = r[0].step * HL_AVX512_LANES, sb = r[1].step * HL_AVX512_LANES;
    for (uint32_t j = 0; j < iters; j++, xa += sa, xb += sb) {
        const uint32_t t = j * HL_AVX512_LANES;
        pair_prefetch(qa, ea, j);
        pair_prefetch(qb, eb, j);
        const __m512 va = pair_value(r[0].src, pa, j, (int32_t)(xa >> 32), w16a);
        const __m512 vb = pair_value(r[1].src, pb, j, (int32_t)(xb >> 32), w16b);
        const __m512 l = _mm512_fmadd_ps(va, gla, _mm512_loadu_ps(al + t));
        const __m512 rr = _mm512_fmadd_ps(va, gra, _mm512_loadu_ps(ar + t));
        _mm512_storeu_ps(al + t, _mm512_fmadd_ps(vb, glb, l));
        _mm512_storeu_ps(ar + t, _mm512_fmadd_ps(vb, grb, rr));
    }
}

HL_AVX512_ATTR int hl_interp_mix_mono2_avx512(float *al, float *ar, const hl_mix_mono_run_t r[2],
                                              uint32_t n, const char *const *pf) {
    hl_pair_pos_t pa, pb;
    if (n > HL_MIX_BLOCK || n % HL_AVX512_LANES || r[0].step > HL_AVX512_NARROW ||
        r[1].step > HL_AVX512_NARROW)
        return 0;
    const uint32_t iters = n / HL_AVX512_LANES;
    if (!pair_setup(&r[0], iters, &pa) || !pair_setup(&r[1], iters, &pb)) return 0;
    const int na = r[0].step <= HL_AVX512_NARROW16, nb = r[1].step <= HL_AVX512_NARROW16;
    if (na && nb)
        pair_loop(al, ar, r, iters, &pa, &pb, 1, 1, pf);
    else if (na)
        pair_loop(al, ar, r, iters, &pa, &pb, 1, 0, pf);
    else if (nb)
        pair_loop(al, ar, r, iters, &pa, &pb, 0, 1, pf);
    else
        pair_loop(al, ar, r, iters, &pa, &pb, 0, 0, pf);
    return 1;
}
#endif
