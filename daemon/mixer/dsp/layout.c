/*
 * layout.c - speaker layouts, constant-power pairwise panning, VBAP over
 * triplets for layouts with height, and the BS.775 downmix matrices
 * (hl_layout.h).
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
    float el[HL_LAYOUT_MAX_CH];     /* degrees above the ear plane (0: the bed) */
} layout_def_t;

#define TOP_EL 45.0f

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
    [HL_LAYOUT_714] = {"7.1.4",
                       12,
                       {HL_SPK_FL, HL_SPK_FR, HL_SPK_FC, HL_SPK_LFE, HL_SPK_BL, HL_SPK_BR,
                        HL_SPK_SL, HL_SPK_SR, HL_SPK_TFL, HL_SPK_TFR, HL_SPK_TBL, HL_SPK_TBR},
                       {30, -30, 0, 0, 150, -150, 90, -90, 45, -45, 135, -135},
                       {0, 0, 0, 0, 0, 0, 0, 0, TOP_EL, TOP_EL, TOP_EL, TOP_EL}},
};

/* 7.1.4's triangulation of the upper hemisphere (channels in its WAVE
 * order): the bed ring zipped to the top ring, going round from the front
 * counter-clockwise, then the top square cut along TFL-TBR. */
enum { FL, FR, FC, LFE_, BL, BR, SL, SR, TFL, TFR, TBL, TBR };
static const uint8_t k_tri_714[][3] = {
    {FC, FL, TFL},  {FL, SL, TFL},   {SL, TBL, TFL},  {SL, BL, TBL}, {BL, BR, TBL},
    {BR, TBR, TBL}, {BR, SR, TBR},   {SR, TFR, TBR},  {SR, FR, TFR}, {FR, FC, TFR},
    {FC, TFR, TFL}, {TFL, TFR, TBR}, {TFL, TBR, TBL},
};
#define N_TRI_714 (sizeof k_tri_714 / sizeof k_tri_714[0])

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
        if (d->spk[c] == HL_SPK_LFE || d->el[c] != 0.0f) continue;
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

int hl_layout_has_height(hl_layout_t l) {
    return l == HL_LAYOUT_714;
}

/* The unit vector of channel c (x right, y up, z back). */
static void spk_vec(const layout_def_t *d, uint32_t c, double v[3]) {
    const float az = d->az[c] * ((float)M_PI / 180.0f), el = d->el[c] * ((float)M_PI / 180.0f);
    v[0] = (double)(-sinf(az) * cosf(el));
    v[1] = (double)sinf(el);
    v[2] = (double)(-cosf(az) * cosf(el));
}

/* g with g0 a + g1 b + g2 c = p (Cramer's rule); 0 if the triangle is flat. */
static int solve3(const double a[3], const double b[3], const double c[3], const double p[3],
                  double g[3]) {
#define DET(x, y, z)                                                                               \
    ((x)[0] * ((y)[1] * (z)[2] - (y)[2] * (z)[1]) - (x)[1] * ((y)[0] * (z)[2] - (y)[2] * (z)[0]) + \
     (x)[2] * ((y)[0] * (z)[1] - (y)[1] * (z)[0]))
    const double det = DET(a, b, c);
    if (fabs(det) < 1e-12) return 0;
    g[0] = DET(p, b, c) / det;
    g[1] = DET(a, p, c) / det;
    g[2] = DET(a, b, p) / det;
#undef DET
    return 1;
}

void hl_layout_pan3(hl_layout_t l, const float dir[3], hl_layout_tri_t *t) {
    t->ch[0] = 0;
    t->ch[1] = 1;
    t->ch[2] = 0;
    t->g[0] = t->g[1] = t->g[2] = 0.0f;
    double p[3] = {dir[0], dir[1] > 0.0f ? dir[1] : 0.0f, dir[2]}; /* below: onto the plane */
    if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))) p[0] = p[1] = p[2] = 0.0;
    double len = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (len < 1e-12) { /* no direction (or straight down): the front */
        p[0] = p[1] = 0.0;
        p[2] = -1.0;
        len = 1.0;
    }
    if (!hl_layout_has_height(l)) { /* the pair of the azimuth */
        const float az = atan2f((float)-p[0], (float)-p[2]);
        hl_layout_pair_t pr;
        hl_layout_pair(l, az, &pr);
        t->ch[0] = pr.cl;
        t->ch[1] = pr.cr;
        t->ch[2] = pr.cl;
        t->g[0] = pr.gl;
        t->g[1] = pr.gr;
        return;
    }
    for (int a = 0; a < 3; a++)
        p[a] /= len;
    const layout_def_t *d = &k_layouts[l];
    double v[HL_LAYOUT_MAX_CH][3]; /* each speaker's once, not once a triangle */
    for (uint32_t c = 0; c < HL_LAYOUT_MAX_CH; c++)
        spk_vec(d, c, v[c]);
    double best[3] = {0, 0, 0}, best_min = -1e300;
    uint32_t bi = 0;
    for (uint32_t i = 0; i < N_TRI_714; i++) {
        double g[3];
        if (!solve3(v[k_tri_714[i][0]], v[k_tri_714[i][1]], v[k_tri_714[i][2]], p, g)) continue;
        const double mn = fmin(g[0], fmin(g[1], g[2]));
        if (mn > best_min) { /* the triangle holding p has every gain >= 0 */
            best_min = mn;
            bi = i;
            memcpy(best, g, sizeof best);
        }
    }
    double pw = 0.0;
    for (int k = 0; k < 3; k++) {
        if (best[k] < 1e-7) best[k] = 0.0; /* on an edge: the third speaker is silent */
        pw += best[k] * best[k];
    }
    const double s = pw > 0.0 ? 1.0 / sqrt(pw) : 0.0;
    for (int k = 0; k < 3; k++) {
        t->ch[k] = k_tri_714[bi][k];
        t->g[k] = (float)(best[k] * s);
    }
}

void hl_layout_pan_dir(hl_layout_t l, const float dir[3], float *g) {
    const uint32_t n = hl_layout_channels(l);
    for (uint32_t c = 0; c < n; c++)
        g[c] = 0.0f;
    if (!n) return;
    hl_layout_tri_t t;
    hl_layout_pan3(l, dir, &t);
    for (int k = 0; k < 3; k++)
        if (t.g[k] != 0.0f) g[t.ch[k]] = t.g[k];
}

/* One downmix step: 7.1.4 -> 7.1, 7.1 -> 5.1, 5.1 -> quad, quad -> stereo. */
static void step(hl_layout_t from, float *m) {
    memset(m, 0, sizeof(float) * HL_LAYOUT_MAX_CH * HL_LAYOUT_MAX_CH);
#define M(o, i) m[(o)*HL_LAYOUT_MAX_CH + (i)]
    switch (from) {
    case HL_LAYOUT_714: /* the bed as it is; each top speaker -3 dB into the one below */
        for (int c = 0; c < 8; c++)
            M(c, c) = 1.0f;
        M(0, 8) = M(1, 9) = M(4, 10) = M(5, 11) = SQRT1_2;
        break;
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
