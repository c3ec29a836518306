/*
 * layout.c - speaker layouts, constant-power pairwise panning and the BS.775
 * downmix matrices (hl_layout.h).
 */
#include <math.h>
#include <string.h>

#include "hl_layout.h"

#define SQRT1_2 0.70710678f

typedef struct {
    const char *name;
    uint32_t channels;
    uint32_t spk[HL_LAYOUT_MAX_CH]; /* HL_SPK_* per channel */
    float az[HL_LAYOUT_MAX_CH];     /* degrees, positive left; LFE unused */
} layout_def_t;

static const layout_def_t k_layouts[HL_LAYOUT_COUNT] = {
    [HL_LAYOUT_STEREO] = {"stereo", 2, {HL_SPK_FL, HL_SPK_FR}, {30, -30}},
    [HL_LAYOUT_QUAD] = {"quad",
                        4,
                        {HL_SPK_FL, HL_SPK_FR, HL_SPK_BL, HL_SPK_BR},
                        {30, -30, 135, -135}},
    [HL_LAYOUT_51] = {"5.1",
                      6,
                      {HL_SPK_FL, HL_SPK_FR, HL_SPK_FC, HL_SPK_LFE, HL_SPK_BL, HL_SPK_BR},
                      {30, -30, 0, 0, 110, -110}},
    [HL_LAYOUT_71] = {"7.1",
                      8,
                      {HL_SPK_FL, HL_SPK_FR, HL_SPK_FC, HL_SPK_LFE, HL_SPK_BL, HL_SPK_BR, HL_SPK_SL,
                       HL_SPK_SR},
                      {30, -30, 0, 0, 150, -150, 90, -90}},
};

/* strcmp without libc (the mixer library links memcpy/memset and libm only) */
static int same(const char *a, const char *b) {
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

int hl_layout_parse(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < HL_LAYOUT_COUNT; i++)
        if (same(name, k_layouts[i].name)) return i;
    return -1;
}

const char *hl_layout_name(hl_layout_t l) {
    return (unsigned)l < HL_LAYOUT_COUNT ? k_layouts[l].name : NULL;
}

uint32_t hl_layout_channels(hl_layout_t l) {
    return (unsigned)l < HL_LAYOUT_COUNT ? k_layouts[l].channels : 0;
}

uint32_t hl_layout_mask(hl_layout_t l) {
    uint32_t m = 0;
    for (uint32_t c = 0; c < hl_layout_channels(l); c++)
        m |= k_layouts[l].spk[c];
    return m;
}

uint32_t hl_layout_speaker(hl_layout_t l, uint32_t ch) {
    return ch < hl_layout_channels(l) ? k_layouts[l].spk[ch] : 0;
}

int hl_layout_channel_of(hl_layout_t l, uint32_t spk) {
    for (uint32_t c = 0; c < hl_layout_channels(l); c++)
        if (k_layouts[l].spk[c] == spk) return (int)c;
    return -1;
}

int hl_layout_for_channels(uint32_t channels) {
    for (int i = 0; i < HL_LAYOUT_COUNT; i++)
        if (k_layouts[i].channels == channels) return i;
    return -1;
}

void hl_layout_pair(hl_layout_t l, float az, hl_layout_pair_t *p) {
    p->cl = 0;
    p->cr = 1;
    p->gl = p->gr = 0.0f;
    uint32_t n = hl_layout_channels(l);
    if (n < 2) return;
    /* the ring: directional speakers sorted by azimuth */
    uint32_t ring[HL_LAYOUT_MAX_CH], nr = 0;
    const layout_def_t *d = &k_layouts[l];
    for (uint32_t c = 0; c < n; c++) {
        if (d->spk[c] == HL_SPK_LFE) continue;
        uint32_t j = nr++;
        while (j > 0 && d->az[ring[j - 1]] > d->az[c]) {
            ring[j] = ring[j - 1];
            j--;
        }
        ring[j] = c;
    }
    float deg = az * (180.0f / (float)M_PI);
    if (!isfinite(deg)) deg = 0.0f;
    deg = fmodf(deg, 360.0f);
    if (deg >= 180.0f) deg -= 360.0f;
    if (deg < -180.0f) deg += 360.0f;
    /* the pair (a, b) whose arc from a counter-clockwise to b holds deg */
    uint32_t a = ring[nr - 1], b = ring[0];
    float t = 0.0f;
    for (uint32_t i = 0; i < nr; i++) {
        float lo = d->az[ring[i]], hi = d->az[ring[(i + 1) % nr]];
        if (i + 1 == nr) hi += 360.0f;
        float x = deg < lo ? deg + 360.0f : deg;
        if (x >= lo && x < hi) {
            a = ring[i];
            b = ring[(i + 1) % nr];
            t = (x - lo) / (hi - lo);
            break;
        }
    }
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    p->cl = (uint8_t)b; /* counter-clockwise: the left one of the pair */
    p->cr = (uint8_t)a;
    p->gl = sinf(t * (float)M_PI_2);
    p->gr = cosf(t * (float)M_PI_2);
}

void hl_layout_pan(hl_layout_t l, float az, float *g) {
    uint32_t n = hl_layout_channels(l);
    if (!n) return;
    for (uint32_t c = 0; c < n; c++)
        g[c] = 0.0f;
    hl_layout_pair_t p;
    hl_layout_pair(l, az, &p);
    g[p.cr] = p.gr;
    g[p.cl] = p.gl;
}

/* One downmix step: 7.1 -> 5.1, 5.1 -> quad, quad -> stereo. */
static void step(hl_layout_t from, float *m) {
    memset(m, 0, sizeof(float) * HL_LAYOUT_MAX_CH * HL_LAYOUT_MAX_CH);
#define M(o, i) m[(o)*HL_LAYOUT_MAX_CH + (i)]
    switch (from) {
    case HL_LAYOUT_71: /* FL FR FC LFE BL BR SL SR -> FL FR FC LFE BL BR */
        for (int c = 0; c < 4; c++)
            M(c, c) = 1.0f;
        M(4, 4) = M(4, 6) = SQRT1_2;
        M(5, 5) = M(5, 7) = SQRT1_2;
        break;
    case HL_LAYOUT_51: /* -> FL FR BL BR: centre -3 dB into the front pair, LFE dropped */
        M(0, 0) = M(1, 1) = 1.0f;
        M(0, 2) = M(1, 2) = SQRT1_2;
        M(2, 4) = M(3, 5) = 1.0f;
        break;
    case HL_LAYOUT_QUAD: /* -> FL FR: surrounds -3 dB into the front pair */
        M(0, 0) = M(1, 1) = 1.0f;
        M(0, 2) = M(1, 3) = SQRT1_2;
        break;
    default: break;
    }
#undef M
}

int hl_layout_downmix(hl_layout_t from, hl_layout_t to, float *m) {
    if ((unsigned)from >= HL_LAYOUT_COUNT || (unsigned)to >= HL_LAYOUT_COUNT || to > from)
        return -1;
    enum { N = HL_LAYOUT_MAX_CH };
    float acc[N * N], s[N * N], t[N * N];
    memset(acc, 0, sizeof acc);
    for (int c = 0; c < N; c++)
        acc[c * N + c] = 1.0f;
    for (int l = (int)from; l > (int)to; l--) {
        step((hl_layout_t)l, s);
        for (int o = 0; o < N; o++)
            for (int i = 0; i < N; i++) {
                float v = 0.0f;
                for (int k = 0; k < N; k++)
                    v += s[o * N + k] * acc[k * N + i];
                t[o * N + i] = v;
            }
        memcpy(acc, t, sizeof acc);
    }
    memcpy(m, acc, sizeof acc);
    return 0;
}

void hl_layout_expand_rt(const float *st, float *out, uint32_t n, uint32_t channels) {
    if (channels == 2) {
        if (out != st) memmove(out, st, (size_t)n * 2 * sizeof(float));
        return;
    }
    /* back to front, so st may be the start of out */
    for (uint32_t i = n; i-- > 0;) {
        float l = st[2 * i], r = st[2 * i + 1];
        float *o = out + (size_t)i * channels;
        for (uint32_t c = 2; c < channels; c++)
            o[c] = 0.0f;
        o[0] = l;
        o[1] = r;
    }
}
