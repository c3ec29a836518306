/*
 * fx_reverb.c - the stereo reverb of the effects DSP (hl_fx.h): a feedback
 * delay network (Jot & Chaigne 1991) in caller-provided memory.
 *
 * Signal flow, per frame:
 *   in (L, R) -> pre-delay (0..200 ms) -> two Schroeder allpasses per channel
 *   (input diffusion, 3..5 ms, different per side) -> injected into the 8
 *   lines (L into the even lines, R into the odd ones, with signs) ->
 *   line i: delay m_i, one-pole damping filter with decay gain
 *   H_i(z) = g_i (1 - b_i) / (1 - b_i z^-1) -> 8x8 Hadamard feedback matrix
 *   (orthonormal, applied as a fast Walsh-Hadamard transform: 24 adds) -> back
 *   into the lines. Outputs: the line outputs summed with two orthogonal sign
 *   patterns (L = + - + - + - + -, R = + + - - + + - -), so the two channels
 *   are decorrelated.
 *
 * Delay lengths: base lengths spread geometrically over 30..70 ms, times
 * `size` (0.25..2), each rounded up to a prime and kept strictly increasing,
 * so the eight are mutually prime (no common echo periods). Each line's
 * buffer holds its length at size 2, read and written at one index that
 * wraps at the current length (a delay of exactly m_i frames).
 *
 * Decay: with an orthonormal matrix the loop's only loss is the per-line gain,
 * so g_i = 10^(-3 m_i / (rt60 * rate)) gives every mode the same RT60 (60 dB
 * down after rt60 seconds). Damping: the one-pole's DC gain is g_i and its
 * Nyquist gain is the g_i of the high-frequency decay time
 * rt60_hf = rt60 * (1 - 0.9 * damping): with r = g_i(hf) / g_i,
 * b_i = (1 - r) / (1 + r). So `rt60_s` is exact at low frequencies for any
 * damping, and broadband at damping 0 (b_i = 0); with damping the top octaves
 * die faster and a broadband measurement comes out somewhat shorter.
 *
 * Glides: rt60 (in log) and damping move over HL_FX_GLIDE_MS in steps on the
 * HL_FX_GRID grid, recomputing the 8 gains and filters (16 expf) per step;
 * wet and dry ramp linearly per sample. Size and pre-delay jump (a size
 * change recomputes the primes, a few thousand integer divisions).
 *
 * Safety: input samples that are NaN become 0 and are clamped to +-1e4 (and
 * quantised like the states below, so a subnormal input is 0), so
 * the network, which is strictly stable (gains < 1 times an orthonormal
 * matrix), can only hold finite values. Every state that feeds back (the
 * damping filters, whose outputs are all the lines ever hold, and the
 * allpass buffers) is quantised with (v + 1e-18) - 1e-18: values under
 * ~1e-25 become exactly 0, so nothing goes subnormal and a tail that dies
 * out ends as true zeros, without FTZ/DAZ.
 */
#include "hl_fx.h"

#include "hl_util.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

#define RV_MIN_RATE  8000.0f
#define RV_MAX_RATE  192000.0f
#define RV_LN1000    6.90775528f /* 3 ln 10: 60 dB in nepers */
#define RV_INV_SQRT8 0.353553391f
#define RV_HF_RANGE  0.9f  /* damping 1: high-frequency RT60 is 10% of rt60 */
#define RV_OUT_GAIN  0.25f /* output scale of the line sum */
#define RV_IN_MAX    1e4f  /* input clamp */
#define RV_DNQ       1e-18f
#define RV_ALIGN     64
#define RV_AP        4 /* input allpasses: 0, 1 left, 2, 3 right */
#define RV_LINES     HL_REVERB_LINES

/* Line base lengths at size 1 (ms): 30 * (70/30)^(i/7), rounded. */
static const float rv_base_ms[RV_LINES] = {30.0f, 33.9f, 38.3f, 43.4f, 49.1f, 55.5f, 62.7f, 70.0f};
static const float rv_ap_ms[RV_AP] = {4.77f, 3.59f, 4.31f, 3.17f};
static const float rv_ap_g[RV_AP] = {0.6f, 0.5f, 0.6f, 0.5f};

struct hl_reverb {
    float rate;
    hl_reverb_params_t p;                   /* targets, clamped */
    float cur_lrt, cur_damp, d_lrt, d_damp; /* decay glide: ln(rt60), damping */
    uint32_t steps, grid_pos;
    float wet, dry, d_wet, d_dry; /* per-sample gain glide */
    uint32_t gain_left;
    float size; /* the size the lengths were computed for */
    uint32_t pre_len, pre_pos, pre_cap;
    float *pre[2];
    float *line[RV_LINES];
    uint32_t len[RV_LINES], cap[RV_LINES], pos[RV_LINES];
    float c[RV_LINES], b[RV_LINES], z[RV_LINES]; /* damping filter: z = c y + b z */
    float *ap[RV_AP];
    uint32_t ap_len[RV_AP], ap_pos[RV_AP];
};

typedef struct {
    const char *name;
    hl_reverb_params_t p;
} rv_preset_t;

/* clang-format off */
static const rv_preset_t rv_presets[] = {
    /*             rt60   damp  pre ms size  wet   dry */
    {"room",    {  0.6f, 0.50f,  5.0f, 0.50f, 0.25f, 1.0f}},
    {"hall",    {  2.2f, 0.35f, 20.0f, 1.25f, 0.30f, 1.0f}},
    {"cave",    {  5.0f, 0.20f, 35.0f, 2.00f, 0.35f, 1.0f}},
    {"outdoor", {  0.4f, 0.80f, 60.0f, 1.50f, 0.12f, 1.0f}},
};
/* clang-format on */
#define RV_NPRESETS ((int)(sizeof rv_presets / sizeof rv_presets[0]))

/* Quantises tiny values to exact 0 (never subnormal); exact for |v| >~ 1e-17. */
static inline float dnq(float v) {
    return (v + RV_DNQ) - RV_DNQ;
}

/* Input scrub: NaN -> 0, +-Inf clamped, subnormal -> 0 (dry path included). */
static inline float sane(float x) {
    if (!(x == x)) return 0.0f;
    return dnq(x > RV_IN_MAX ? RV_IN_MAX : x < -RV_IN_MAX ? -RV_IN_MAX : x);
}

static int is_prime(uint32_t n) {
    if (n < 4) return n >= 2;
    if (n % 2 == 0) return 0;
    for (uint32_t d = 3; d * d <= n; d += 2)
        if (n % d == 0) return 0;
    return 1;
}

static uint32_t next_prime(uint32_t n) {
    while (!is_prime(n))
        n++;
    return n;
}

/* Prime, strictly increasing line lengths for this rate and size; monotonic
 * in size, so the lengths at the largest size bound every other. */
static void rv_lengths(float rate, float size, uint32_t len[RV_LINES]) {
    uint32_t prev = 1;
    for (int i = 0; i < RV_LINES; i++) {
        uint32_t n = (uint32_t)(rv_base_ms[i] * size * rate * 0.001f + 0.5f);
        if (n <= prev) n = prev + 1;
        len[i] = next_prime(n);
        prev = len[i];
    }
}

static uint32_t rv_ms(float ms, float rate) {
    return (uint32_t)(ms * rate * 0.001f + 0.5f);
}

static int rate_ok(float rate) {
    return rate >= RV_MIN_RATE && rate <= RV_MAX_RATE;
}

/* Floats of delay memory at this rate; fills the capacities if r != NULL. */
static size_t rv_layout(float rate, hl_reverb_t *r) {
    uint32_t cap[RV_LINES];
    rv_lengths(rate, HL_REVERB_MAX_SIZE, cap);
    size_t floats = 0;
    for (int i = 0; i < RV_LINES; i++)
        floats += cap[i];
    uint32_t pre = rv_ms(HL_REVERB_MAX_PREDELAY_MS, rate) + 1;
    floats += 2 * (size_t)pre;
    for (int i = 0; i < RV_AP; i++)
        floats += rv_ms(rv_ap_ms[i], rate);
    if (r) {
        float *m = (float *)(void *)(r + 1);
        for (int i = 0; i < RV_LINES; i++) {
            r->cap[i] = cap[i];
            r->line[i] = m;
            m += cap[i];
        }
        r->pre_cap = pre;
        r->pre[0] = m;
        r->pre[1] = m + pre;
        m += 2 * pre;
        for (int i = 0; i < RV_AP; i++) {
            r->ap_len[i] = rv_ms(rv_ap_ms[i], rate);
            r->ap[i] = m;
            m += r->ap_len[i];
        }
    }
    return floats;
}

size_t hl_reverb_size(float rate) {
    if (!rate_ok(rate)) return 0;
    return RV_ALIGN + sizeof(hl_reverb_t) + rv_layout(rate, NULL) * sizeof(float);
}

/* Per-line damping filter and decay gain from the current glide point. */
static void rv_coefs(hl_reverb_t *r) {
    float t60 = expf(r->cur_lrt);
    float hf = t60 * (1.0f - RV_HF_RANGE * r->cur_damp);
    float extra = 1.0f / hf - 1.0f / t60; /* >= 0: how much faster the top decays */
    for (int i = 0; i < RV_LINES; i++) {
        float sec = (float)r->len[i] / r->rate;
        float g = expf(-RV_LN1000 * sec / t60);
        float ratio = expf(-RV_LN1000 * sec * extra); /* Nyquist gain / DC gain */
        float b = (1.0f - ratio) / (1.0f + ratio);
        r->b[i] = b;
        r->c[i] = g * (1.0f - b) * RV_INV_SQRT8; /* the Hadamard's 1/sqrt(8) folded in */
    }
}

static void rv_apply_size(hl_reverb_t *r, float size) {
    r->size = size;
    rv_lengths(r->rate, size, r->len);
    for (int i = 0; i < RV_LINES; i++) {
        if (r->len[i] > r->cap[i]) r->len[i] = r->cap[i]; /* cannot happen: rv_layout */
        r->pos[i] %= r->len[i];
    }
}

/* at_once: no glide (init); else over ramp frames (0: HL_FX_GLIDE_MS, and
 * only for the values that change). */
static void rv_set(hl_reverb_t *r, const hl_reverb_params_t *in, int at_once, uint32_t ramp) {
    hl_reverb_params_t p;
    p.rt60_s = hl_clampf(in->rt60_s, HL_REVERB_MIN_RT60, HL_REVERB_MAX_RT60);
    p.damping = hl_clampf(in->damping, 0.0f, 1.0f);
    p.predelay_ms = hl_clampf(in->predelay_ms, 0.0f, HL_REVERB_MAX_PREDELAY_MS);
    p.size = hl_clampf(in->size, HL_REVERB_MIN_SIZE, HL_REVERB_MAX_SIZE);
    p.wet = hl_clampf(in->wet, 0.0f, 1.0f);
    p.dry = hl_clampf(in->dry, 0.0f, 1.0f);

    uint32_t glide = ramp ? ramp : (uint32_t)(HL_FX_GLIDE_MS * 0.001f * r->rate);
    int coefs = 0;
    if (at_once) {
        r->cur_lrt = logf(p.rt60_s);
        r->cur_damp = p.damping;
        r->steps = 0;
        r->wet = p.wet;
        r->dry = p.dry;
        r->gain_left = 0;
        coefs = 1;
    } else {
        if (p.rt60_s != r->p.rt60_s || p.damping != r->p.damping || ramp) {
            uint32_t steps = (glide + HL_FX_GRID - 1) / HL_FX_GRID;
            r->d_lrt = (logf(p.rt60_s) - r->cur_lrt) / (float)steps;
            r->d_damp = (p.damping - r->cur_damp) / (float)steps;
            r->steps = steps;
            r->grid_pos = 0;
        }
        if (p.wet != r->p.wet || p.dry != r->p.dry || ramp) {
            r->d_wet = (p.wet - r->wet) / (float)glide;
            r->d_dry = (p.dry - r->dry) / (float)glide;
            r->gain_left = glide;
        }
    }
    if (at_once || p.size != r->size) {
        rv_apply_size(r, p.size);
        coefs = 1;
    }
    r->pre_len = rv_ms(p.predelay_ms, r->rate);
    if (r->pre_len >= r->pre_cap) r->pre_len = r->pre_cap - 1;
    if (r->pre_len > 0) r->pre_pos %= r->pre_len;
    r->p = p;
    if (coefs) rv_coefs(r);
}

void hl_reverb_clear(hl_reverb_t *r) {
    for (int i = 0; i < RV_LINES; i++) {
        memset(r->line[i], 0, r->cap[i] * sizeof(float));
        r->z[i] = 0.0f;
        r->pos[i] = 0;
    }
    memset(r->pre[0], 0, 2 * (size_t)r->pre_cap * sizeof(float));
    r->pre_pos = 0;
    for (int i = 0; i < RV_AP; i++) {
        memset(r->ap[i], 0, r->ap_len[i] * sizeof(float));
        r->ap_pos[i] = 0;
    }
}

hl_reverb_t *hl_reverb_init(void *mem, size_t bytes, float rate) {
    if (!mem || !rate_ok(rate) || bytes < hl_reverb_size(rate)) return NULL;
    uintptr_t a = ((uintptr_t)mem + RV_ALIGN - 1) & ~(uintptr_t)(RV_ALIGN - 1);
    hl_reverb_t *r = (hl_reverb_t *)a;
    memset(r, 0, sizeof *r);
    r->rate = rate;
    rv_layout(rate, r);
    hl_reverb_clear(r);
    hl_reverb_params_t p;
    hl_reverb_preset("hall", &p);
    rv_set(r, &p, 1, 0);
    return r;
}

void hl_reverb_set_rt(hl_reverb_t *r, const hl_reverb_params_t *p) {
    rv_set(r, p, 0, 0);
}

void hl_reverb_glide_rt(hl_reverb_t *r, const hl_reverb_params_t *p, uint32_t ramp_frames) {
    rv_set(r, p, 0, ramp_frames);
}

void hl_reverb_get(const hl_reverb_t *r, hl_reverb_params_t *p) {
    *p = r->p;
}

static int name_eq(const char *a, const char *b) {
    for (;; a++, b++) {
        char x = *a, y = *b;
        if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
        if (x != y) return 0;
        if (x == '\0') return 1;
    }
}

int hl_reverb_preset(const char *name, hl_reverb_params_t *p) {
    if (!name) return -1;
    for (int i = 0; i < RV_NPRESETS; i++) {
        if (name_eq(name, rv_presets[i].name)) {
            *p = rv_presets[i].p;
            return 0;
        }
    }
    return -1;
}

const char *hl_reverb_preset_name(int i) {
    return i >= 0 && i < RV_NPRESETS ? rv_presets[i].name : NULL;
}

/* One grid step of the decay glide; the last lands on the targets. */
static void rv_step(hl_reverb_t *r) {
    if (--r->steps == 0) {
        r->cur_lrt = logf(r->p.rt60_s);
        r->cur_damp = r->p.damping;
    } else {
        r->cur_lrt += r->d_lrt;
        r->cur_damp += r->d_damp;
    }
    rv_coefs(r);
}

/* Schroeder allpass (z^-D - g) / (1 - g z^-D): v = x + g v[n-D], y = v[n-D] - g v. */
static inline float rv_allpass(float *buf, uint32_t len, uint32_t *pos, float g, float x) {
    float vd = buf[*pos];
    float v = dnq(x + g * vd);
    buf[*pos] = v;
    if (++*pos == len) *pos = 0;
    return vd - g * v;
}

/* In-place unnormalised 8-point Walsh-Hadamard transform. */
static inline void wht8(float v[RV_LINES]) {
    for (int h = 1; h < RV_LINES; h <<= 1)
        for (int i = 0; i < RV_LINES; i += 2 * h)
            for (int j = i; j < i + h; j++) {
                float a = v[j], b = v[j + h];
                v[j] = a + b;
                v[j + h] = a - b;
            }
}

static void rv_run(hl_reverb_t *r, float *l, float *rr, uint32_t n) {
    float *line[RV_LINES];
    uint32_t pos[RV_LINES], len[RV_LINES];
    float c[RV_LINES], b[RV_LINES], z[RV_LINES];
    for (int i = 0; i < RV_LINES; i++) {
        line[i] = r->line[i];
        pos[i] = r->pos[i];
        len[i] = r->len[i];
        c[i] = r->c[i];
        b[i] = r->b[i];
        z[i] = r->z[i];
    }
    float *pl = r->pre[0], *pr = r->pre[1];
    const uint32_t plen = r->pre_len;
    uint32_t ppos = r->pre_pos;
    float wet = r->wet, dry = r->dry;

    for (uint32_t k = 0; k < n; k++) {
        float xl = sane(l[k]), xr = sane(rr[k]);
        float il = xl, ir = xr;
        if (plen > 0) {
            il = pl[ppos];
            ir = pr[ppos];
            pl[ppos] = xl;
            pr[ppos] = xr;
            if (++ppos == plen) ppos = 0;
        }
        il = rv_allpass(r->ap[0], r->ap_len[0], &r->ap_pos[0], rv_ap_g[0], il);
        il = rv_allpass(r->ap[1], r->ap_len[1], &r->ap_pos[1], rv_ap_g[1], il);
        ir = rv_allpass(r->ap[2], r->ap_len[2], &r->ap_pos[2], rv_ap_g[2], ir);
        ir = rv_allpass(r->ap[3], r->ap_len[3], &r->ap_pos[3], rv_ap_g[3], ir);

        float y[RV_LINES], u[RV_LINES];
        for (int i = 0; i < RV_LINES; i++) {
            y[i] = line[i][pos[i]];
            z[i] = dnq(c[i] * y[i] + b[i] * z[i]);
            u[i] = z[i];
        }
        wht8(u);
        u[0] += il;
        u[2] += il;
        u[4] -= il;
        u[6] -= il;
        u[1] += ir;
        u[3] -= ir;
        u[5] += ir;
        u[7] -= ir;
        for (int i = 0; i < RV_LINES; i++) {
            line[i][pos[i]] = u[i];
            if (++pos[i] == len[i]) pos[i] = 0;
        }
        float ol = (y[0] - y[1]) + (y[2] - y[3]) + (y[4] - y[5]) + (y[6] - y[7]);
        float orr = (y[0] + y[1]) - (y[2] + y[3]) + (y[4] + y[5]) - (y[6] + y[7]);

        if (r->gain_left > 0) {
            if (--r->gain_left == 0) {
                wet = r->p.wet;
                dry = r->p.dry;
            } else {
                wet += r->d_wet;
                dry += r->d_dry;
            }
        }
        float ws = wet * RV_OUT_GAIN;
        l[k] = dry * xl + ws * ol;
        rr[k] = dry * xr + ws * orr;
    }

    for (int i = 0; i < RV_LINES; i++) {
        r->pos[i] = pos[i];
        r->z[i] = z[i];
    }
    r->pre_pos = ppos;
    r->wet = wet;
    r->dry = dry;
}

void hl_reverb_process_rt(hl_reverb_t *r, float *l, float *r_, uint32_t n) {
    while (n > 0) {
        uint32_t m = n;
        if (r->steps > 0) {
            if (r->grid_pos == 0) rv_step(r);
            if (m > HL_FX_GRID - r->grid_pos) m = HL_FX_GRID - r->grid_pos;
            r->grid_pos = (r->grid_pos + m) % HL_FX_GRID;
        }
        rv_run(r, l, r_, m);
        l += m;
        r_ += m;
        n -= m;
    }
}
