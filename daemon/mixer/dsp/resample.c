/*
 * resample.c - the output rate converter (see hl_resample.h).
 *
 * Output frame n sits at input position idx + frac/den (frac counts in units
 * of 1/den; the step is num/den with num/den = in_rate/out_rate reduced, so
 * the position is exact forever). It is the sum over the 2H input frames
 * idx-H+1 .. idx+H of the frame times the kernel at that distance, the kernel
 * row for the phase frac/den taken from the table by linear interpolation
 * between its two nearest rows.
 *
 * Kernel: h(t) = fc sinc(fc t) w(t/H), fc the cutoff relative to the input's
 * Nyquist (0.92 of the lower of the two Nyquists), w a Kaiser window
 * (beta 7.5: sidelobes ~ -75 dB). Each row is normalised to a DC gain of 1.
 * H = HL_RS_HALF_TAPS at a ratio of 1 or more, HL_RS_HALF_TAPS x in/out when
 * the device rate is lower, which keeps the transition band the same width
 * in output terms.
 *
 * Input comes in whole blocks into a linear buffer of 2H + 2 + 2 x block
 * frames; when the next block does not fit, the frames still needed are
 * moved to the front (memmove).
 */
#include "hl_resample.h"

#include <math.h>
#include <string.h>

#include "hl_util.h"

#define RS_BETA   7.5
#define RS_CUTOFF 0.92

struct hl_resample {
    uint32_t in_rate, out_rate, block;
    uint32_t num, den; /* in/out reduced */
    uint32_t half, taps;
    float phase_scale; /* HL_RS_PHASES / den */
    float *table;      /* (HL_RS_PHASES + 1) rows of taps */
    float *buf;        /* cap stereo frames */
    uint32_t cap, fill, idx, frac;
};

static uint32_t gcd_u32(uint32_t a, uint32_t b) {
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int rates_ok(uint32_t in_rate, uint32_t out_rate, uint32_t block) {
    return in_rate >= HL_RS_MIN_RATE && in_rate <= HL_RS_MAX_RATE && out_rate >= HL_RS_MIN_RATE &&
           out_rate <= HL_RS_MAX_RATE && in_rate != out_rate &&
           in_rate <= (uint64_t)HL_RS_MAX_DOWN * out_rate && block >= 1 && block <= 65536;
}

static uint32_t half_taps(uint32_t in_rate, uint32_t out_rate) {
    if (out_rate >= in_rate) return HL_RS_HALF_TAPS;
    return (uint32_t)(((uint64_t)HL_RS_HALF_TAPS * in_rate + out_rate - 1) / out_rate);
}

static size_t align16(size_t n) {
    return (n + 15) & ~(size_t)15;
}

static size_t layout(uint32_t half, uint32_t block, size_t *table_off, size_t *buf_off,
                     uint32_t *cap) {
    uint32_t taps = 2 * half;
    *cap = taps + 2 + 2 * block;
    *table_off = align16(sizeof(hl_resample_t));
    *buf_off = *table_off + align16((size_t)(HL_RS_PHASES + 1) * taps * sizeof(float));
    return *buf_off + (size_t)*cap * 2 * sizeof(float);
}

size_t hl_resample_size(uint32_t in_rate, uint32_t out_rate, uint32_t block) {
    if (!rates_ok(in_rate, out_rate, block)) return 0;
    size_t t, b;
    uint32_t cap;
    return layout(half_taps(in_rate, out_rate), block, &t, &b, &cap);
}

hl_resample_t *hl_resample_init(void *mem, size_t size, uint32_t in_rate, uint32_t out_rate,
                                uint32_t block) {
    if (!mem || ((uintptr_t)mem & 15) || !rates_ok(in_rate, out_rate, block)) return NULL;
    uint32_t half = half_taps(in_rate, out_rate), cap;
    size_t toff, boff;
    if (layout(half, block, &toff, &boff, &cap) > size) return NULL;
    hl_resample_t *r = mem;
    memset(r, 0, sizeof *r);
    r->in_rate = in_rate;
    r->out_rate = out_rate;
    r->block = block;
    uint32_t g = gcd_u32(in_rate, out_rate);
    r->num = in_rate / g;
    r->den = out_rate / g;
    r->half = half;
    r->taps = 2 * half;
    r->phase_scale = (float)HL_RS_PHASES / (float)r->den;
    r->table = (float *)((char *)mem + toff);
    r->buf = (float *)((char *)mem + boff);
    r->cap = cap;

    double ratio = out_rate < in_rate ? (double)out_rate / in_rate : 1.0;
    double fc = RS_CUTOFF * ratio, i0b = hl_bessel_i0(RS_BETA);
    for (uint32_t p = 0; p <= HL_RS_PHASES; p++) {
        float *row = r->table + (size_t)p * r->taps;
        double sum = 0.0, v[2 * 4 * HL_RS_HALF_TAPS];
        for (uint32_t k = 0; k < r->taps; k++) {
            double t = (double)k - (double)(half - 1) - (double)p / HL_RS_PHASES;
            double x = t / (double)half, w = 0.0;
            if (x > -1.0 && x < 1.0) w = hl_bessel_i0(RS_BETA * sqrt(1.0 - x * x)) / i0b;
            double a = M_PI * fc * t;
            double s = fabs(a) < 1e-12 ? 1.0 : sin(a) / a;
            v[k] = fc * s * w;
            sum += v[k];
        }
        for (uint32_t k = 0; k < r->taps; k++)
            row[k] = (float)(v[k] / sum);
    }
    hl_resample_reset_rt(r);
    return r;
}

/* RT */
void hl_resample_reset_rt(hl_resample_t *r) {
    memset(r->buf, 0, (size_t)r->cap * 2 * sizeof(float));
    r->idx = r->half - 1; /* the first input frame lands at index half - 1 */
    r->fill = r->half - 1;
    r->frac = 0;
}

/* RT: make room for one block at the end by moving what is still needed
 * (from idx - half + 1) to the front. */
static void compact_rt(hl_resample_t *r) {
    uint32_t first = r->idx + 1 - r->half;
    if (first == 0) return;
    memmove(r->buf, r->buf + (size_t)first * 2, (size_t)(r->fill - first) * 2 * sizeof(float));
    r->fill -= first;
    r->idx -= first;
}

/* RT */
void hl_resample_process_rt(hl_resample_t *r, float *out, uint32_t frames, hl_resample_pull_fn pull,
                            void *user) {
    const uint32_t taps = r->taps, half = r->half;
    for (uint32_t n = 0; n < frames; n++) {
        while (r->idx + half >= r->fill) {
            if (r->fill + r->block > r->cap) compact_rt(r);
            pull(user, r->buf + (size_t)r->fill * 2, r->block);
            r->fill += r->block;
        }
        float fp = (float)r->frac * r->phase_scale;
        uint32_t pi = (uint32_t)fp;
        if (pi >= HL_RS_PHASES) pi = HL_RS_PHASES - 1;
        float f = fp - (float)pi;
        const float *restrict t0 = r->table + (size_t)pi * taps;
        const float *restrict t1 = t0 + taps;
        const float *restrict x = r->buf + (size_t)(r->idx + 1 - half) * 2;
        float l = 0.0f, rr = 0.0f;
        for (uint32_t k = 0; k < taps; k++) {
            float c = t0[k] + f * (t1[k] - t0[k]);
            l += c * x[2 * k];
            rr += c * x[2 * k + 1];
        }
        out[2 * n] = l;
        out[2 * n + 1] = rr;
        r->frac += r->num;
        r->idx += r->frac / r->den;
        r->frac %= r->den;
    }
}

double hl_resample_delay_frames(const hl_resample_t *r) {
    return (double)r->half * r->out_rate / r->in_rate;
}
