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
 *
 * Every channel uses the same kernel row per output frame; stereo has its
 * own loop (two accumulators, the order of operations it always had), any
 * other count one accumulator per channel in the same order, so a stereo
 * output is the same bit for bit whichever loop ran it.
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
    float *buf;        /* cap frames of ch channels */
    uint32_t cap, fill, idx, frac, ch;
};

static uint32_t gcd_u32(uint32_t a, uint32_t b) {
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int rates_ok(uint32_t in_rate, uint32_t out_rate, uint32_t block, uint32_t channels) {
    return channels >= 1 && channels <= HL_RS_MAX_CHANNELS && in_rate >= HL_RS_MIN_RATE &&
           in_rate <= HL_RS_MAX_RATE && out_rate >= HL_RS_MIN_RATE && out_rate <= HL_RS_MAX_RATE &&
           in_rate != out_rate && in_rate <= (uint64_t)HL_RS_MAX_DOWN * out_rate && block >= 1 &&
           block <= 65536;
}

static uint32_t half_taps(uint32_t in_rate, uint32_t out_rate) {
    if (out_rate >= in_rate) return HL_RS_HALF_TAPS;
    return (uint32_t)(((uint64_t)HL_RS_HALF_TAPS * in_rate + out_rate - 1) / out_rate);
}

static size_t align16(size_t n) {
    return (n + 15) & ~(size_t)15;
}

static size_t layout(uint32_t half, uint32_t block, uint32_t channels, size_t *table_off,
                     size_t *buf_off, uint32_t *cap) {
    uint32_t taps = 2 * half;
    *cap = taps + 2 + 2 * block;
    *table_off = align16(sizeof(hl_resample_t));
    *buf_off = *table_off + align16((size_t)(HL_RS_PHASES + 1) * taps * sizeof(float));
    return *buf_off + (size_t)*cap * channels * sizeof(float);
}

size_t hl_resample_size(uint32_t in_rate, uint32_t out_rate, uint32_t block, uint32_t channels) {
    if (!rates_ok(in_rate, out_rate, block, channels)) return 0;
    size_t t, b;
    uint32_t cap;
    return layout(half_taps(in_rate, out_rate), block, channels, &t, &b, &cap);
}

hl_resample_t *hl_resample_init(void *mem, size_t size, uint32_t in_rate, uint32_t out_rate,
                                uint32_t block, uint32_t channels) {
    if (!mem || ((uintptr_t)mem & 15) || !rates_ok(in_rate, out_rate, block, channels)) return NULL;
    uint32_t half = half_taps(in_rate, out_rate), cap;
    size_t toff, boff;
    if (layout(half, block, channels, &toff, &boff, &cap) > size) return NULL;
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
    r->ch = channels;

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
    memset(r->buf, 0, (size_t)r->cap * r->ch * sizeof(float));
    r->idx = r->half - 1; /* the first input frame lands at index half - 1 */
    r->fill = r->half - 1;
    r->frac = 0;
}

/* RT: make room for one block at the end by moving what is still needed
 * (from idx - half + 1) to the front. */
static void compact_rt(hl_resample_t *r) {
    uint32_t first = r->idx + 1 - r->half;
    if (first == 0) return;
    memmove(r->buf, r->buf + (size_t)first * r->ch,
            (size_t)(r->fill - first) * r->ch * sizeof(float));
    r->fill -= first;
    r->idx -= first;
}

/* RT: one output frame of two channels from the 2H input frames at x. */
static inline void frame2_rt(const float *restrict t0, const float *restrict t1, float f,
                             const float *restrict x, uint32_t taps, float *restrict out) {
    float l = 0.0f, rr = 0.0f;
    for (uint32_t k = 0; k < taps; k++) {
        float c = t0[k] + f * (t1[k] - t0[k]);
        l += c * x[2 * k];
        rr += c * x[2 * k + 1];
    }
    out[0] = l;
    out[1] = rr;
}

/* RT: the same for ch channels (any count up to HL_RS_MAX_CHANNELS). */
static inline void frame_n_rt(const float *restrict t0, const float *restrict t1, float f,
                              const float *restrict x, uint32_t taps, uint32_t ch,
                              float *restrict out) {
    float acc[HL_RS_MAX_CHANNELS] = {0};
    for (uint32_t k = 0; k < taps; k++) {
        float c = t0[k] + f * (t1[k] - t0[k]);
        const float *xk = x + (size_t)k * ch;
        for (uint32_t j = 0; j < ch; j++)
            acc[j] += c * xk[j];
    }
    for (uint32_t j = 0; j < ch; j++)
        out[j] = acc[j];
}

/* RT */
void hl_resample_process_rt(hl_resample_t *r, float *out, uint32_t frames, hl_resample_pull_fn pull,
                            void *user) {
    const uint32_t taps = r->taps, half = r->half, ch = r->ch;
    for (uint32_t n = 0; n < frames; n++) {
        while (r->idx + half >= r->fill) {
            if (r->fill + r->block > r->cap) compact_rt(r);
            pull(user, r->buf + (size_t)r->fill * ch, r->block);
            r->fill += r->block;
        }
        float fp = (float)r->frac * r->phase_scale;
        uint32_t pi = (uint32_t)fp;
        if (pi >= HL_RS_PHASES) pi = HL_RS_PHASES - 1;
        float f = fp - (float)pi;
        const float *t0 = r->table + (size_t)pi * taps;
        const float *x = r->buf + (size_t)(r->idx + 1 - half) * ch;
        if (ch == 2)
            frame2_rt(t0, t0 + taps, f, x, taps, out + (size_t)n * 2);
        else
            frame_n_rt(t0, t0 + taps, f, x, taps, ch, out + (size_t)n * ch);
        r->frac += r->num;
        r->idx += r->frac / r->den;
        r->frac %= r->den;
    }
}

double hl_resample_delay_frames(const hl_resample_t *r) {
    return (double)r->half * r->out_rate / r->in_rate;
}
