/*
 * hrtf_rt.c - the RT half of binaural rendering (hl_hrtf.h): set layout,
 * bilinear filter lookup and the per-voice FIR renderer with its crossfade.
 *
 * The FIR runs tap-outer, frame-inner: for each group of four taps one pass
 * over the block does y[t] += h0 x[t] + h1 x[t-1] + h2 x[t-2] + h3 x[t-3],
 * which the vectoriser turns into unaligned loads across frames (no
 * reduction, so no -ffast-math is needed and the result does not depend on
 * the vector width beyond FMA contraction). The input is linearised on the
 * stack behind the voice's history so every read is a plain array access.
 * The loop bodies are written once and built twice, portable and
 * AVX2+FMA (as in mix_kernels.c); the choice is made per call with
 * hl_simd_level() (the CPU's bits, capped by HELIOD_SIMD): loads and bit tests.
 *
 * Filter build (once per block, only when direction/gain/set changed): the
 * lookup's IR is convolved with the Lagrange kernel of the delay's
 * fractional part and scaled by the gain, so a block costs two FIR passes
 * (one per ear) when static and four plus a crossfade when moving.
 */
#include "hl_hrtf.h"

#include <math.h>
#include <string.h>

#include "hl_limits.h"
#include "hl_simd.h"

#define HL_RESTRICT __restrict__
#define HL_TWO_PI   6.28318530717958647692f

size_t hl_hrtf_set_size(uint32_t n_az, uint32_t n_el) {
    if (n_az == 0 || n_el == 0 || n_az > 65536u || n_el > 65536u) return 0;
    return sizeof(hl_hrtf_set_t) + (size_t)n_az * n_el * sizeof(hl_hrtf_entry_t);
}

hl_hrtf_set_t *hl_hrtf_set_init(void *mem, uint32_t rate, uint32_t n_az, uint32_t n_el,
                                float el_min_rad, float el_step_rad) {
    size_t size = hl_hrtf_set_size(n_az, n_el);
    if (!mem || size == 0 || rate == 0) return NULL;
    if (n_el > 1 && !(el_step_rad > 0.0f)) return NULL;
    if (!isfinite(el_min_rad)) return NULL;
    memset(mem, 0, size);
    hl_hrtf_set_t *s = mem;
    s->rate = rate;
    s->n_az = n_az;
    s->n_el = n_el;
    s->taps = HL_HRTF_TAPS;
    s->az_step = HL_TWO_PI / (float)n_az;
    s->inv_az_step = (float)n_az / HL_TWO_PI;
    s->el_min = el_min_rad;
    s->el_step = n_el > 1 ? el_step_rad : 0.0f;
    s->inv_el_step = n_el > 1 ? 1.0f / el_step_rad : 0.0f;
    return s;
}

hl_hrtf_entry_t *hl_hrtf_set_entry(hl_hrtf_set_t *s, uint32_t az_i, uint32_t el_i) {
    if (az_i >= s->n_az || el_i >= s->n_el) return NULL;
    return &s->entry[(size_t)el_i * s->n_az + az_i];
}

void hl_hrtf_lookup_rt(const hl_hrtf_set_t *s, float az_rad, float el_rad, float *ir_l, float *ir_r,
                       float *delay_l, float *delay_r) {
    /* azimuth: position on the circle in grid units, wrapped to [0, n_az) */
    float a = isfinite(az_rad) ? az_rad * s->inv_az_step : 0.0f;
    float na = (float)s->n_az;
    a -= na * floorf(a / na);
    uint32_t a0 = (uint32_t)a;
    if (a0 >= s->n_az) a0 = 0; /* a rounded up to n_az */
    float fa = a - (float)a0;
    if (!(fa >= 0.0f && fa <= 1.0f)) fa = 0.0f;
    uint32_t a1 = a0 + 1 == s->n_az ? 0 : a0 + 1;

    /* elevation: clamped to the rows */
    uint32_t e0 = 0, e1 = 0;
    float fe = 0.0f;
    if (s->n_el > 1) {
        float e = isfinite(el_rad) ? (el_rad - s->el_min) * s->inv_el_step : 0.0f;
        float top = (float)(s->n_el - 1);
        if (!(e > 0.0f)) e = 0.0f;
        if (e > top) e = top;
        e0 = (uint32_t)e;
        if (e0 >= s->n_el - 1) e0 = s->n_el - 2;
        fe = e - (float)e0;
        e1 = e0 + 1;
    }

    const hl_hrtf_entry_t *p00 = &s->entry[(size_t)e0 * s->n_az + a0];
    const hl_hrtf_entry_t *p01 = &s->entry[(size_t)e0 * s->n_az + a1];
    const hl_hrtf_entry_t *p10 = &s->entry[(size_t)e1 * s->n_az + a0];
    const hl_hrtf_entry_t *p11 = &s->entry[(size_t)e1 * s->n_az + a1];
    const float w00 = (1.0f - fa) * (1.0f - fe), w01 = fa * (1.0f - fe);
    const float w10 = (1.0f - fa) * fe, w11 = fa * fe;
    for (int k = 0; k < HL_HRTF_TAPS; k++) {
        ir_l[k] =
            w00 * p00->ir[0][k] + w01 * p01->ir[0][k] + w10 * p10->ir[0][k] + w11 * p11->ir[0][k];
        ir_r[k] =
            w00 * p00->ir[1][k] + w01 * p01->ir[1][k] + w10 * p10->ir[1][k] + w11 * p11->ir[1][k];
    }
    *delay_l =
        w00 * p00->delay[0] + w01 * p01->delay[0] + w10 * p10->delay[0] + w11 * p11->delay[0];
    *delay_r =
        w00 * p00->delay[1] + w01 * p01->delay[1] + w10 * p10->delay[1] + w11 * p11->delay[1];
}

void hl_hrtf_voice_reset_rt(hl_hrtf_voice_t *v) {
    memset(v, 0, sizeof *v);
}

/* Listener coordinates (x right, y up, -z forward) -> (azimuth counter-
 * clockwise from the front, elevation). Zero, tiny or non-finite = front. */
static void dir_to_angles(const float dir[3], float *az, float *el) {
    float x = dir[0], y = dir[1], z = dir[2];
    float h2 = x * x + z * z, r2 = h2 + y * y;
    if (!(r2 > 1e-30f) || !isfinite(r2)) {
        *az = 0.0f;
        *el = 0.0f;
        return;
    }
    *az = h2 > 0.0f ? atan2f(-x, -z) : 0.0f;
    *el = atan2f(y, sqrtf(h2));
}

/* One ear's FIR: gain x (ir (*) Lagrange-3 kernel of the delay's fraction),
 * applied at integer offset *off. */
static void build_fir(float *HL_RESTRICT fir, uint32_t *off, const float *HL_RESTRICT ir,
                      float delay, float gain) {
    const float dmax = (float)(HL_HRTF_MAX_DELAY - 3);
    if (!(delay > 0.0f)) delay = 0.0f;
    if (delay > dmax) delay = dmax;
    /* taps of the kernel sit at offsets off .. off + 3 with off = floor(delay),
     * so the kernel's own delay is D = 1 + frac in [1, 2): the well-centred
     * range of a third-order Lagrange interpolator */
    uint32_t di = (uint32_t)delay;
    float D = 1.0f + (delay - (float)di);
    float l0 = -(D - 1.0f) * (D - 2.0f) * (D - 3.0f) * (1.0f / 6.0f);
    float l1 = D * (D - 2.0f) * (D - 3.0f) * 0.5f;
    float l2 = -D * (D - 1.0f) * (D - 3.0f) * 0.5f;
    float l3 = D * (D - 1.0f) * (D - 2.0f) * (1.0f / 6.0f);
    l0 *= gain;
    l1 *= gain;
    l2 *= gain;
    l3 *= gain;
    float h[HL_HRTF_TAPS + 6] = {0}; /* ir with three zeros either side */
    memcpy(h + 3, ir, sizeof(float) * HL_HRTF_TAPS);
    for (int k = 0; k < HL_HRTF_TAPS + 3; k++) /* fir[k] = sum_j l_j ir[k - j] */
        fir[k] = l0 * h[k + 3] + l1 * h[k + 2] + l2 * h[k + 1] + l3 * h[k];
    for (int k = HL_HRTF_TAPS + 3; k < HL_HRTF_FIR; k++)
        fir[k] = 0.0f;
    /* off = floor(delay): the kernel's D = 1 + frac adds one frame, so the
     * FIR reads x[t - off - k] and the total delay is delay + 1 */
    *off = di;
}

/* The loop bodies, instantiated per ISA. fir_acc: y[t] += sum_k h[k] x[t - k],
 * t < n, x readable from x[-(HL_HRTF_FIR - 1)]. xfade: y[t] += a[t] + (b[t] -
 * a[t]) * (t + 1) / n. */
#define HL_HRTF_BODIES(SUFFIX, ATTR)                                                               \
    ATTR static void fir_acc_##SUFFIX(float *HL_RESTRICT y, const float *HL_RESTRICT x,            \
                                      const float *HL_RESTRICT h, uint32_t n) {                    \
        const int nn = (int)n;                                                                     \
        for (int k = 0; k < HL_HRTF_FIR; k += 4) {                                                 \
            const float h0 = h[k], h1 = h[k + 1], h2 = h[k + 2], h3 = h[k + 3];                    \
            const float *HL_RESTRICT xk = x - k;                                                   \
            for (int t = 0; t < nn; t++)                                                           \
                y[t] += h0 * xk[t] + h1 * xk[t - 1] + h2 * xk[t - 2] + h3 * xk[t - 3];             \
        }                                                                                          \
    }                                                                                              \
    ATTR static void xfade_acc_##SUFFIX(float *HL_RESTRICT y, const float *HL_RESTRICT a,          \
                                        const float *HL_RESTRICT b, uint32_t n) {                  \
        const float inv = 1.0f / (float)n;                                                         \
        const int nn = (int)n;                                                                     \
        for (int t = 0; t < nn; t++)                                                               \
            y[t] += a[t] + (b[t] - a[t]) * ((float)(t + 1) * inv);                                 \
    }

#if HL_HRTF_FIR % 4 != 0
#error "HL_HRTF_FIR must be a multiple of 4"
#endif

HL_HRTF_BODIES(portable, )

#if defined(__x86_64__) && defined(__GNUC__)
#define HL_HRTF_HAVE_AVX2 1
HL_HRTF_BODIES(avx2, __attribute__((target("avx2,fma"))))
#else
#define HL_HRTF_HAVE_AVX2 0
#endif

int hl_hrtf_isa_supported(int isa) {
    switch (isa) {
    case HL_HRTF_ISA_AUTO:
    case HL_HRTF_ISA_PORTABLE: return 1;
    case HL_HRTF_ISA_AVX2:
#if HL_HRTF_HAVE_AVX2
        return hl_simd_level() >= HL_SIMD_AVX2; /* the CPU's, capped by HELIOD_SIMD */
#else
        return 0;
#endif
    default: return 0;
    }
}

/* Bitwise equality (NaN == NaN, -0 != +0): "unchanged" must mean exactly
 * what the voice was built from. memcmp could be a libc call; this is not. */
static inline int same_bits(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

typedef void (*fir_fn)(float *, const float *, const float *, uint32_t);
typedef void (*xfade_fn)(float *, const float *, const float *, uint32_t);

/* One block of at most HL_MIX_BLOCK frames. */
static void process_block(const hl_hrtf_set_t *s, hl_hrtf_voice_t *v, const float *in, uint32_t n,
                          const float dir[3], float gain, float *out_l, float *out_r, fir_fn fir,
                          xfade_fn xfade) {
    float buf[HL_HRTF_HIST + HL_MIX_BLOCK];
    memcpy(buf, v->hist, sizeof v->hist);
    memcpy(buf + HL_HRTF_HIST, in, sizeof(float) * n);
    const float *x = buf + HL_HRTF_HIST;

    int changed = !v->valid || v->set != s || !same_bits(v->dir[0], dir[0]) ||
                  !same_bits(v->dir[1], dir[1]) || !same_bits(v->dir[2], dir[2]) ||
                  !same_bits(v->gain, gain);
    if (!changed) {
        fir(out_l, x - v->off[0], v->fir[0], n);
        fir(out_r, x - v->off[1], v->fir[1], n);
    } else {
        float az, el, ir[2][HL_HRTF_TAPS], dl, dr;
        float g = isfinite(gain) ? gain : 0.0f;
        dir_to_angles(dir, &az, &el);
        hl_hrtf_lookup_rt(s, az, el, ir[0], ir[1], &dl, &dr);
        float nf[2][HL_HRTF_FIR];
        uint32_t noff[2];
        build_fir(nf[0], &noff[0], ir[0], dl, g);
        build_fir(nf[1], &noff[1], ir[1], dr, g);
        if (!v->valid) {
            fir(out_l, x - noff[0], nf[0], n);
            fir(out_r, x - noff[1], nf[1], n);
        } else {
            float a[2][HL_MIX_BLOCK], b[2][HL_MIX_BLOCK];
            memset(a, 0, sizeof a);
            memset(b, 0, sizeof b);
            for (int e = 0; e < 2; e++) {
                fir(a[e], x - v->off[e], v->fir[e], n);
                fir(b[e], x - noff[e], nf[e], n);
            }
            xfade(out_l, a[0], b[0], n);
            xfade(out_r, a[1], b[1], n);
        }
        memcpy(v->fir, nf, sizeof nf);
        v->off[0] = noff[0];
        v->off[1] = noff[1];
        memcpy(v->dir, dir, sizeof v->dir);
        memcpy(&v->gain, &gain, sizeof gain);
        v->set = s;
        v->valid = 1;
    }
    memcpy(v->hist, buf + n, sizeof v->hist);
}

void hl_hrtf_process_isa_rt(const hl_hrtf_set_t *s, hl_hrtf_voice_t *v, const float *in, uint32_t n,
                            const float dir[3], float gain, float *out_l, float *out_r, int isa) {
    fir_fn fir = fir_acc_portable;
    xfade_fn xfade = xfade_acc_portable;
#if HL_HRTF_HAVE_AVX2
    if (isa != HL_HRTF_ISA_PORTABLE && hl_simd_level() >= HL_SIMD_AVX2) {
        fir = fir_acc_avx2;
        xfade = xfade_acc_avx2;
    }
#else
    (void)isa;
#endif
    /* longer calls are split; the first piece carries any change */
    while (n > 0) {
        uint32_t m = n < HL_MIX_BLOCK ? n : HL_MIX_BLOCK;
        process_block(s, v, in, m, dir, gain, out_l, out_r, fir, xfade);
        in += m;
        out_l += m;
        out_r += m;
        n -= m;
    }
}

void hl_hrtf_process_rt(const hl_hrtf_set_t *s, hl_hrtf_voice_t *v, const float *in, uint32_t n,
                        const float dir[3], float gain, float *out_l, float *out_r) {
    hl_hrtf_process_isa_rt(s, v, in, n, dir, gain, out_l, out_r, HL_HRTF_ISA_AUTO);
}
