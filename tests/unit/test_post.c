/*
 * test_post.c - the fast forms of the voice post stage against the
 * straightforward ones:
 *   - the settled voice filter in blocks (four-sample SSE, eight-sample AVX2
 *     mono) against the per-sample SVF (hl_vfilter_simd(0)), through glides,
 *     odd chunk sizes and both stages;
 *   - the filter run once before the pan (hl_vfilter_process_mono_rt) against
 *     the stereo filter on the panned pair, including gain changes (the
 *     states disagree until the difference dies away), glides and hard pans;
 *   - the whole post stage in the mixer (filter, occlusion, one or two
 *     sends, steady voices filtered before the pan) against the same voice
 *     rendered dry by a second mixer and post-processed here in double:
 *     2D and 3D, pitch 1, linear and cubic interpolation, with a pan or
 *     position ramp in the middle, occlusion and send levels ramping and
 *     the low-pass gliding;
 *   - ramped SETs (gain, pan, filter, sends) on steady voices, kept on the
 *     steady path, against the same SETs through the full path.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_fx.h"
#include "mix_helpers.h"

#define RATE    48000.0f
#define SQRT2_D 1.4142135623730951

static uint32_t rng = 0x2545F491u;

static float noise(void) {
    rng = rng * 1664525u + 1013904223u;
    return (float)((int32_t)rng) * (1.0f / 2147483648.0f);
}

/* ---- reference: the trapezoidal SVF in double, sample by sample ---------- */

typedef struct {
    double g, s1, s2;
    int hp, on;
} ref_stage_t;

static void ref_stage_init(ref_stage_t *r, double hz, int hp) {
    r->on = hz > 0.0;
    r->g = r->on ? tan(TEST_PI * hz / RATE) : 0.0;
    r->s1 = r->s2 = 0.0;
    r->hp = hp;
}

static double ref_stage_run(ref_stage_t *r, double x) {
    if (!r->on) return x;
    const double a1 = 1.0 / (1.0 + r->g * (r->g + SQRT2_D)), a2 = r->g * a1, a3 = r->g * a2;
    const double v3 = x - r->s2;
    const double v1 = a1 * r->s1 + a2 * v3;
    const double v2 = r->s2 + a2 * r->s1 + a3 * v3;
    r->s1 = 2.0 * v1 - r->s1;
    r->s2 = 2.0 * v2 - r->s2;
    return r->hp ? x - SQRT2_D * v1 - v2 : v2;
}

static float max_abs_diff(const float *a, const float *b, uint32_t n) {
    float m = 0.0f;
    for (uint32_t i = 0; i < n; i++) {
        float d = fabsf(a[i] - b[i]);
        if (!(d <= m)) m = d; /* a NaN sticks */
    }
    return m;
}

/* ---- 1. block forms against the per-sample form ---------------------------- */

#define BF_CHUNKS 96

static void test_block_forms(void **state) {
    (void)state;
    const int best = hl_vfilter_simd(-1);
    if (best == 0) {
        print_message("no block form on this build: nothing to compare\n");
        return;
    }
    static const float cfg[][4] = {
        /* lp, hp, then the glide's lp, hp */
        {2000.0f, 0.0f, 500.0f, 0.0f},     {0.0f, 150.0f, 0.0f, 600.0f},
        {5000.0f, 200.0f, 3000.0f, 80.0f}, {40.0f, 0.0f, 60.0f, 0.0f},
        {15000.0f, 0.0f, 0.0f, 0.0f},      {0.0f, 8000.0f, 0.0f, 12000.0f},
        {0.0f, 0.0f, 1000.0f, 50.0f},
    };
    static const uint32_t chunks[] = {256, 61, 3, 1, 128, 8, 5, 200, 7, 256};
    enum { NC = sizeof chunks / sizeof chunks[0] };
    float worst = 0.0f;
    for (int level = 1; level <= best; level++) {
        for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
            for (uint32_t nch = 1; nch <= 2; nch++) {
                hl_vfilter_t ref, fast;
                hl_vfilter_init_rt(&ref, RATE, cfg[c][0], cfg[c][1]);
                hl_vfilter_init_rt(&fast, RATE, cfg[c][0], cfg[c][1]);
                for (int k = 0; k < BF_CHUNKS; k++) {
                    const uint32_t n = chunks[k % NC];
                    float a[2][HL_MIX_BLOCK], b[2][HL_MIX_BLOCK];
                    for (uint32_t i = 0; i < n; i++) {
                        a[0][i] = b[0][i] = noise();
                        a[1][i] = b[1][i] = 0.5f * noise();
                    }
                    if (k == BF_CHUNKS / 3) { /* a glide: per sample in both, then settled */
                        hl_vfilter_set_rt(&ref, cfg[c][2], cfg[c][3], 1000);
                        hl_vfilter_set_rt(&fast, cfg[c][2], cfg[c][3], 1000);
                    }
                    float *ca[2] = {a[0], a[1]}, *cb[2] = {b[0], b[1]};
                    assert_int_equal(hl_vfilter_simd(0), 0);
                    hl_vfilter_process_rt(&ref, ca, nch, n);
                    assert_int_equal(hl_vfilter_simd(level), level);
                    hl_vfilter_process_rt(&fast, cb, nch, n);
                    for (uint32_t ch = 0; ch < nch; ch++) {
                        float d = max_abs_diff(a[ch], b[ch], n);
                        if (!(d <= worst)) worst = d;
                        assert_true(d < 1e-5f);
                    }
                }
                assert_int_equal(hl_vfilter_active(&ref), hl_vfilter_active(&fast));
            }
        }
    }
    hl_vfilter_simd(-1);
    print_message("block forms (levels 1..%d) vs per sample: largest difference %.3g\n", best,
                  (double)worst);
}

/* ---- 2. the filter before the pan ------------------------------------------ */

typedef struct {
    float gl, gr; /* pan gains of the segment */
    float lp, hp; /* a set at its first block (lp < 0: none) */
} mono_seg_t;

#define MONO_SEG_BLOCKS 12 /* 256-frame blocks: long enough for a state gap to die away */

static void test_mono_path(void **state) {
    (void)state;
    static const mono_seg_t segs[] = {
        {0.6f, 0.8f, -1.0f, 0.0f},   /* the filter starts from zero states */
        {0.9f, 0.1f, -1.0f, 0.0f},   /* new pan: the states are the old pan's */
        {0.9f, 0.1f, 700.0f, 90.0f}, /* a glide alone: the mono path through it */
        {0.0f, 0.7f, -1.0f, 0.0f},   /* hard right */
        {0.7f, 0.0f, 2500.0f, 0.0f}, /* hard left, the high-pass fading out */
        {0.3f, 0.3f, 3000.0f, 120.0f},
    };
    enum { NS = sizeof segs / sizeof segs[0] };
    const int best = hl_vfilter_simd(-1);
    float worst = 0.0f;
    for (int level = 0; level <= best; level++) {
        for (int lens = 0; lens < 2; lens++) {
            const uint32_t n = lens ? 100u : HL_MIX_BLOCK; /* 100: not a whole block of 8 */
            const int blocks = lens ? MONO_SEG_BLOCKS * 3 : MONO_SEG_BLOCKS;
            hl_vfilter_t ref, fast;
            hl_vfilter_init_rt(&ref, RATE, 3000.0f, 120.0f);
            hl_vfilter_init_rt(&fast, RATE, 3000.0f, 120.0f);
            int monos = 0, total = 0;
            for (int rep = 0; rep < 2; rep++) {
                for (int k = 0; k < NS; k++) {
                    const mono_seg_t *s = &segs[k];
                    if (s->lp >= 0.0f) {
                        float lp = rep == 1 ? s->lp * 1.5f : s->lp;
                        hl_vfilter_set_rt(&ref, lp, s->hp, 300);
                        hl_vfilter_set_rt(&fast, lp, s->hp, 300);
                    }
                    for (int b = 0; b < blocks; b++) {
                        float x[HL_MIX_BLOCK], l[HL_MIX_BLOCK], r[HL_MIX_BLOCK];
                        float fl[HL_MIX_BLOCK], fr[HL_MIX_BLOCK];
                        for (uint32_t i = 0; i < n; i++) {
                            x[i] = noise();
                            l[i] = s->gl * x[i];
                            r[i] = s->gr * x[i];
                        }
                        float *ch[2] = {l, r};
                        hl_vfilter_simd(0); /* the reference: stereo, per sample */
                        hl_vfilter_process_rt(&ref, ch, 2, n);
                        hl_vfilter_simd(level);
                        const int mono = hl_vfilter_mono_ok(&fast, s->gl, s->gr);
                        /* shut where the pan just moved (the states are the old pan's),
                         * open again by the segment's end; a glide alone keeps it open */
                        const mono_seg_t *prev = &segs[(k + NS - 1) % NS];
                        if (b == 0 && (k > 0 || rep > 0) &&
                            (prev->gl != s->gl || prev->gr != s->gr))
                            assert_false(mono);
                        if (b == 0 && k == 2) assert_true(mono);
                        if (b == blocks - 1) assert_true(mono);
                        if (mono) {
                            float u[HL_MIX_BLOCK];
                            hl_vfilter_process_mono_rt(&fast, x, u, n, s->gl, s->gr);
                            for (uint32_t i = 0; i < n; i++) {
                                fl[i] = s->gl * u[i];
                                fr[i] = s->gr * u[i];
                            }
                            monos++;
                        } else {
                            for (uint32_t i = 0; i < n; i++) {
                                fl[i] = s->gl * x[i];
                                fr[i] = s->gr * x[i];
                            }
                            float *fc[2] = {fl, fr};
                            hl_vfilter_process_rt(&fast, fc, 2, n);
                        }
                        total++;
                        float d = fmaxf(max_abs_diff(l, fl, n), max_abs_diff(r, fr, n));
                        if (!(d <= worst)) worst = d;
                        assert_true(d < 1e-5f);
                    }
                }
            }
            assert_true(2 * monos > total); /* most blocks took the mono path */
        }
    }
    /* no recoverable mono state: silent, or a gain that is not a number */
    hl_vfilter_t f;
    hl_vfilter_init_rt(&f, RATE, 1000.0f, 0.0f);
    assert_true(hl_vfilter_mono_ok(&f, 0.5f, 0.5f));
    assert_false(hl_vfilter_mono_ok(&f, 0.0f, 0.0f));
    assert_false(hl_vfilter_mono_ok(&f, NAN, 0.5f));
    assert_false(hl_vfilter_mono_ok(&f, 0.5f, INFINITY));
    /* nothing on: a copy */
    hl_vfilter_init_rt(&f, RATE, 0.0f, 0.0f);
    assert_true(hl_vfilter_mono_ok(&f, 0.5f, 0.2f));
    float in[37], out[37];
    for (int i = 0; i < 37; i++)
        in[i] = noise();
    hl_vfilter_process_mono_rt(&f, in, out, 37, 0.5f, 0.2f);
    assert_memory_equal(in, out, sizeof in);
    hl_vfilter_simd(-1);
    print_message("mono path vs stereo per sample: largest difference %.3g\n", (double)worst);
}

/* ---- 3. the post stage in the mixer ------------------------------------------ */

#define PM_FRAMES 24064 /* 94 blocks */
#define PM_SET_AT 12032 /* the pan or position ramp starts at this block */
#define PM_RAMP   512
#define PM_LP     2000.0f
#define PM_HP     90.0f
#define PM_OCC_DB (-6.0f)

static hl_pcm_t *noise_pcm(uint32_t frames) {
    hl_pcm_t *p = calloc(1, sizeof *p);
    float *d = malloc(sizeof(float) * frames);
    assert_non_null(p);
    assert_non_null(d);
    for (uint32_t i = 0; i < frames; i++)
        d[i] = 0.5f * noise();
    p->data = d;
    p->frames = frames;
    p->channels = 1;
    p->finite = 1;
    return p;
}

static void free_pcm(hl_pcm_t *p) {
    free((void *)p->data);
    free(p);
}

/* Buses 4 and 5 under the master, for the sends. */
static void send_buses(hl_mixer_t *m) {
    int8_t parent[HL_MAX_BUSES];
    for (int b = 0; b < HL_MAX_BUSES; b++)
        parent[b] = -1;
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x3F, 0), 0);
}

typedef struct {
    const char *name;
    int three_d;
    float pitch;
    uint32_t flags;
    int sends;
    float hp;
    int ramp_levels; /* with the pan/position ramp, occlusion and send levels ramp too */
    int glide;       /* ... and the low-pass glides to PM_LP2 (referenced by hl_vfilter_t
                        per sample, stereo: the glide's own trajectory) */
} pm_case_t;

#define PM_LP2 600.0f

#define PM_LEVEL_RAMP 700
#define PM_OCC2_DB    (-12.0f)

/* Renders the voice dry in one mixer and with its post stage in another;
 * returns the largest difference between the second and the first run
 * through the straightforward post stage (filter each channel in double,
 * times the occlusion gain, times 1 + the send levels). */
static float post_case(const pm_case_t *c, int level) {
    hl_pcm_t *pcm = noise_pcm(48000);
    float *dry = calloc(2 * PM_FRAMES, sizeof(float));
    float *wet = calloc(2 * PM_FRAMES, sizeof(float));
    assert_non_null(dry);
    assert_non_null(wet);
    const float send[2] = {0.25f, 0.125f}, send2[2] = {0.5f, 0.0f};
    for (int pass = 0; pass < 2; pass++) {
        hl_mixer_t *m = test_mixer_new(4, 0);
        send_buses(m);
        hl_voice_params_t p = test_params(pcm);
        p.flags = HL_MIX_LOOP | c->flags | (c->three_d ? HL_MIX_3D : 0u);
        p.gain = 0.5f;
        p.pan = 0.4f;
        p.pitch = c->pitch;
        p.pos[0] = 2.0f;
        p.pos[2] = -1.0f;
        p.min_distance = 1.0f;
        p.max_distance = 100.0f;
        p.rolloff = 1.0f;
        p.model = HL_MIX_DIST_INVERSE;
        if (pass == 1) {
            p.lp_hz = PM_LP;
            p.hp_hz = c->hp;
            p.occ_db = PM_OCC_DB;
            for (int s = 0; s < c->sends; s++) {
                p.send_bus[s] = 4u + (uint32_t)s;
                p.send_gain[s] = send[s];
            }
        }
        uint64_t v = 0, st = 0, now = 0;
        assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
        float *out = pass ? wet : dry;
        test_render(m, out, PM_SET_AT, 256, &now);
        hl_voice_set_t s = {.mask = c->three_d ? HL_MIX_SET_POS : HL_MIX_SET_PAN,
                            .pan = -0.5f,
                            .pos = {-1.0f, 0.5f, 1.5f},
                            .ramp_frames = PM_RAMP};
        assert_int_equal(hl_mixer_set(m, v, &s, now), 0);
        if (pass == 1 && (c->ramp_levels || c->glide)) {
            hl_voice_set_t f = {.mask = HL_MIX_SET_FILTER | HL_MIX_SET_SENDS,
                                .lp_hz = c->glide ? PM_LP2 : PM_LP,
                                .hp_hz = c->hp,
                                .occ_db = c->ramp_levels ? PM_OCC2_DB : PM_OCC_DB,
                                .ramp_frames = PM_LEVEL_RAMP};
            for (int k = 0; k < HL_MAX_SENDS; k++) {
                f.send_bus[k] = p.send_bus[k];
                f.send_gain[k] = k < c->sends ? (c->ramp_levels ? send2 : send)[k] : 0.0f;
            }
            assert_int_equal(hl_mixer_set(m, v, &f, now), 0);
        }
        test_render(m, out + 2 * PM_SET_AT, PM_FRAMES - PM_SET_AT, 256, &now);
        test_mixer_free(m);
    }
    /* a glide: the dry pair through the per-sample stereo filter, the glide
     * set at the same frame (its grid counts from there) */
    float *glided = NULL;
    if (c->glide) {
        glided = malloc(sizeof(float) * 2 * PM_FRAMES);
        assert_non_null(glided);
        hl_vfilter_t gf;
        hl_vfilter_init_rt(&gf, RATE, PM_LP, c->hp);
        hl_vfilter_simd(0);
        for (uint32_t at = 0; at < PM_FRAMES; at += HL_MIX_BLOCK) {
            float l[HL_MIX_BLOCK], r[HL_MIX_BLOCK];
            for (uint32_t i = 0; i < HL_MIX_BLOCK; i++) {
                l[i] = dry[2 * (at + i)];
                r[i] = dry[2 * (at + i) + 1];
            }
            if (at == PM_SET_AT) hl_vfilter_set_rt(&gf, PM_LP2, c->hp, PM_LEVEL_RAMP);
            float *ch[2] = {l, r};
            hl_vfilter_process_rt(&gf, ch, 2, HL_MIX_BLOCK);
            for (uint32_t i = 0; i < HL_MIX_BLOCK; i++) {
                glided[2 * (at + i)] = l[i];
                glided[2 * (at + i) + 1] = r[i];
            }
        }
        hl_vfilter_simd(level);
    }
    ref_stage_t lp[2], hp[2];
    const double k0 = pow(10.0, PM_OCC_DB / 20.0), k1 = pow(10.0, PM_OCC2_DB / 20.0);
    double ks0 = 1.0, ks1 = 1.0;
    for (int s = 0; s < c->sends; s++) {
        ks0 += send[s];
        ks1 += send2[s];
    }
    for (int ch = 0; ch < 2; ch++) {
        ref_stage_init(&lp[ch], PM_LP, 0);
        ref_stage_init(&hp[ch], c->hp, 1);
    }
    float worst = 0.0f, peak = 0.0f;
    for (uint32_t i = 0; i < PM_FRAMES; i++) {
        /* the levels' ramps: linear per frame, landing on the last frame */
        double a = 0.0;
        if (c->ramp_levels && i >= PM_SET_AT)
            a = i - PM_SET_AT < PM_LEVEL_RAMP ? (double)(i - PM_SET_AT + 1) / PM_LEVEL_RAMP : 1.0;
        const double k = k0 + (k1 - k0) * a, ks = ks0 + (ks1 - ks0) * a;
        for (int ch = 0; ch < 2; ch++) {
            double y = ref_stage_run(&lp[ch], ref_stage_run(&hp[ch], dry[2 * i + ch]));
            if (glided) y = glided[2 * i + ch];
            float want = (float)(y * k * ks), d = fabsf(wet[2 * i + ch] - want);
            if (!(d <= worst)) worst = d;
            if (fabsf(want) > peak) peak = fabsf(want);
        }
    }
    print_message("post %-16s largest difference %.3g (peak %.3f)\n", c->name, (double)worst,
                  (double)peak);
    assert_true(peak > 0.02f); /* the scene is audible */
    free(glided);
    free(dry);
    free(wet);
    free_pcm(pcm);
    return worst;
}

static void test_mixer_post(void **state) {
    (void)state;
    static const pm_case_t cases[] = {
        {"2d", 0, 1.0f, 0u, 1, 0.0f, 0, 0},
        {"2d-2sends-hp", 0, 1.0f, 0u, 2, PM_HP, 0, 0},
        {"2d-pitched", 0, 0.93f, 0u, 1, 0.0f, 0, 0},
        {"2d-cubic", 0, 1.07f, HL_MIX_CUBIC, 1, 0.0f, 0, 0},
        {"3d", 1, 1.0f, 0u, 1, 0.0f, 0, 0},
        {"3d-pitched-2sends", 1, 0.93f, 0u, 2, PM_HP, 0, 0},
        {"2d-nosend", 0, 1.0f, 0u, 0, 0.0f, 0, 0},
        {"2d-level-ramps", 0, 1.0f, 0u, 2, 0.0f, 1, 0},
        {"3d-level-ramps", 1, 0.93f, 0u, 1, PM_HP, 1, 0},
        {"2d-glide", 0, 1.0f, 0u, 1, PM_HP, 0, 1},
        {"3d-glide-ramps", 1, 1.0f, 0u, 2, 0.0f, 1, 1},
    };
    const int best = hl_vfilter_simd(-1);
    for (int level = 0; level <= best; level++) {
        hl_vfilter_simd(level);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            assert_true(post_case(&cases[i], level) < 2e-6f); /* -94 dB under the peak */
    }
    hl_vfilter_simd(-1);
}

/* ---- 4. ramped SETs on the steady path against the full path -------------- */

/* Steady 2D voices (pitch 1, pitched linear, cubic, filtered before the pan,
 * filtered with a send) get ramped SETs of gain, pan, filter (interpolated
 * and stepped, as a game parameter sends them) and sends, in
 * render chunks that cut the ramps anywhere; mixer A keeps them on the
 * steady path (the kernels ramp the pair per sample), mixer B sends them
 * through the full path, as before. The two outputs agree within float
 * rounding of the same ramps, at every SIMD level (meson runs this binary
 * per HELIOD_SIMD). */
static void test_fast_ramps(void **state) {
    (void)state;
    enum { NV = 5, FRAMES = 9000 };
    hl_pcm_t *pcm[NV];
    static const float pitch[NV] = {1.0f, 0.93f, 1.07f, 1.0f, 1.13f};
    static const uint32_t flags[NV] = {0, 0, HL_MIX_CUBIC, 0, 0};
    static const float lp[NV] = {0.0f, 0.0f, 0.0f, 2000.0f, 5000.0f};
    hl_mixer_t *mx[2] = {test_mixer_new(8, 0), test_mixer_new(8, 0)};
    assert_non_null(mx[0]);
    assert_non_null(mx[1]);
    hl_mixer_set_fast_ramps(mx[1], 0);
    float *out[2];
    uint64_t id[2][NV], now[2] = {1000000, 1000000};
    for (int v = 0; v < NV; v++)
        pcm[v] = test_pcm_sine(24000, 1, 0.013 + 0.007 * v, 0.3 * v, 0.15f);
    for (int k = 0; k < 2; k++) {
        out[k] = calloc(2 * (size_t)FRAMES, sizeof(float));
        assert_non_null(out[k]);
        for (int v = 0; v < NV; v++) {
            hl_voice_params_t p = test_params(pcm[v]);
            p.flags = flags[v] | HL_MIX_LOOP;
            p.pitch = pitch[v];
            p.pan = -0.5f + 0.25f * (float)v;
            p.lp_hz = lp[v];
            if (v == NV - 1) {
                p.send_bus[0] = HL_BUS_MUSIC;
                p.send_gain[0] = 0.5f;
            }
            uint64_t st = 0;
            assert_int_equal(hl_mixer_play(mx[k], &p, now[k], &id[k][v], &st), 0);
        }
    }
    /* SETs at frame at[i] (each in its own chunk, so the chunks cut the ramps) */
    static const uint32_t at[] = {1024, 1500, 2700, 4100, 5000, 6300, 7000};
    static const uint32_t chunk[] = {256, 100, 77, 256, 31, 200, 256};
    uint32_t done = 0;
    for (size_t i = 0; i <= sizeof at / sizeof at[0]; i++) {
        const uint32_t end = i < sizeof at / sizeof at[0] ? at[i] : FRAMES;
        for (int k = 0; k < 2; k++)
            test_render(mx[k], out[k] + 2 * (size_t)done, end - done, chunk[i % 7], &now[k]);
        done = end;
        if (i == sizeof at / sizeof at[0]) break;
        for (int k = 0; k < 2; k++)
            for (int v = 0; v < NV; v++) {
                hl_voice_set_t s;
                memset(&s, 0, sizeof s);
                switch (i) {
                case 0: s.mask = HL_MIX_SET_GAIN, s.gain = 0.3f, s.ramp_frames = 144; break;
                case 1: /* longer than a block, cut by the next SET */
                    s.mask = HL_MIX_SET_GAIN | HL_MIX_SET_PAN, s.gain = 1.4f, s.pan = 0.7f;
                    s.ramp_frames = 900 + 37 * (uint32_t)v;
                    break;
                case 2: s.mask = HL_MIX_SET_GAIN, s.gain = 0.8f, s.ramp_frames = 0; break;
                case 3: /* filter glide and gain together */
                    s.mask = HL_MIX_SET_GAIN | HL_MIX_SET_FILTER, s.gain = 0.5f;
                    s.lp_hz = 800.0f + 300.0f * (float)v, s.occ_db = -3.0f;
                    s.ramp_frames = 480;
                    break;
                case 4:
                    s.mask = HL_MIX_SET_SENDS, s.send_bus[0] = HL_BUS_MUSIC;
                    s.send_gain[0] = 0.25f, s.ramp_frames = 300;
                    break;
                case 5: s.mask = HL_MIX_SET_GAIN, s.gain = 1.0f, s.ramp_frames = 1; break;
                default: /* a game parameter's: gain and a stepped glide, occlusion kept */
                    s.mask = HL_MIX_SET_GAIN | HL_MIX_SET_FILTER | HL_MIX_SET_FSTEP;
                    s.gain = 0.6f, s.lp_hz = 1500.0f + 200.0f * (float)v, s.occ_db = -3.0f;
                    s.ramp_frames = 333;
                    break;
                }
                assert_int_equal(hl_mixer_set(mx[k], id[k][v], &s, now[k]), 0);
            }
    }
    float peak = 0.0f;
    for (size_t i = 0; i < 2 * (size_t)FRAMES; i++)
        peak = fabsf(out[1][i]) > peak ? fabsf(out[1][i]) : peak;
    assert_true(peak > 0.1f); /* audible throughout */
    const float d = max_abs_diff(out[0], out[1], 2 * FRAMES);
    print_message("fast ramps: max |steady - full| = %.3g (peak %.3f)\n", (double)d, (double)peak);
    assert_true(d < 2e-6f); /* float rounding: -114 dB under the peak */
    for (int k = 0; k < 2; k++)
        free(out[k]);
    for (int v = 0; v < NV; v++)
        test_pcm_free(pcm[v]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_forms),
        cmocka_unit_test(test_mono_path),
        cmocka_unit_test(test_mixer_post),
        cmocka_unit_test(test_fast_ramps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
