/*
 * test_surround.c - the mixer on a surround layout (hl_mixer_config_t.layout):
 * a 3D source moved round the listener block by block, and one that jumps
 * behind it, through the real mixer: every frame at most two speakers sound
 * (the pair's slots, also while a slot changes speaker), the LFE stays
 * silent, the summed power stays within 0.5 dB and no sample jumps (the
 * slot that leaves a speaker fades out, then the new speaker fades in).
 * On 7.1.4 (height): at ear height the bed alone; a source moved round
 * above ear height and over the top sounds on at most three speakers, the
 * top ones among them, at constant power, without a step; the listener's up
 * vector decides what is above.
 * A 2D voice plays on the front pair exactly as on stereo; one of a sound
 * with the layout's channels plays each on its speaker, and so does one of
 * a stream with them (underrun decay and fade back in on every channel).
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
#include "hl_layout.h"
#include "hl_limits.h"
#include "hl_stream.h"
#include "mix_helpers.h"
#include "mixer_internal.h"

#define BLK 256
#define DCV 0.5f

static hl_mixer_t *surround_mixer(hl_layout_t layout, void **mem) {
    /* a small command ring: these tests send a few commands a block, and a
     * mixer the size of the default one is most of their time (page faults) */
    hl_mixer_config_t cfg = {
        .rate = TEST_RATE, .voices = 4, .cmd_capacity = 256, .layout = (uint32_t)layout};
    size_t size = hl_mixer_size(&cfg);
    assert_true(size > 0);
    *mem = malloc(size);
    assert_non_null(*mem);
    hl_mixer_t *m = hl_mixer_init(*mem, size, &cfg);
    assert_non_null(m);
    return m;
}

/* Position at azimuth deg (positive left) 1 m from the default listener
 * (at the origin facing -z, +x right). */
static void at_az(double deg, float pos[3]) {
    pos[0] = (float)-sin(deg * TEST_PI / 180.0);
    pos[1] = 0.0f;
    pos[2] = (float)-cos(deg * TEST_PI / 180.0);
}

typedef struct {
    float prev[HL_LAYOUT_MAX_CH];
    double pmin, pmax, max_step;
    int centre_used, started;
    int most;     /* speakers sounding at once, at most (0: 2) */
    int top;      /* first top speaker's channel (7.1.4), 0: none */
    int top_used; /* a top speaker sounded */
    int bed_only; /* the top speakers must stay silent */
} sweep_stats_t;

/* Checks one rendered block (ch channels) frame by frame. */
static void check_block(const float *x, uint32_t ch, int lfe, int fc, sweep_stats_t *s) {
    for (uint32_t t = 0; t < BLK; t++) {
        const float *f = x + (size_t)t * ch;
        int sounding = 0;
        double p = 0;
        for (uint32_t c = 0; c < ch; c++) {
            if ((int)c == lfe) {
                assert_true(f[c] == 0.0f);
                continue;
            }
            sounding += f[c] != 0.0f;
            if (s->top && (int)c >= s->top && f[c] != 0.0f) {
                assert_false(s->bed_only);
                s->top_used = 1;
            }
            p += (double)f[c] * f[c];
            if (s->started) {
                const double d = fabs((double)f[c] - s->prev[c]);
                s->max_step = d > s->max_step ? d : s->max_step;
            }
            s->prev[c] = f[c];
        }
        assert_true(sounding <= (s->most ? s->most : 2));
        if (fc >= 0 && f[fc] != 0.0f) s->centre_used = 1;
        const double db = 10 * log10(p / ((double)DCV * DCV));
        s->pmin = db < s->pmin ? db : s->pmin;
        s->pmax = db > s->pmax ? db : s->pmax;
        s->started = 1;
    }
}

/* A looping 3D voice's parameters: a mono DC of DCV (*dc, the caller frees
 * it) at azimuth az, elevation el, 1 m away. */
static hl_voice_params_t dc_3d(hl_pcm_t **dc, double az, double el) {
    *dc = test_pcm_dc(TEST_RATE, 1, DCV);
    hl_voice_params_t p = test_params(*dc);
    p.flags = HL_MIX_3D | HL_MIX_LOOP;
    test_dir_of(az, el, p.pos);
    return p;
}

static void sweep_on(hl_layout_t layout) {
    void *mem;
    hl_mixer_t *m = surround_mixer(layout, &mem);
    const uint32_t ch = hl_layout_channels(layout);
    const int lfe = hl_layout_channel_of(layout, HL_SPK_LFE);
    const int fc = hl_layout_channel_of(layout, HL_SPK_FC);
    hl_pcm_t *dc;
    hl_voice_params_t p = dc_3d(&dc, 0.0, 0.0);
    uint64_t v = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float *x = calloc((size_t)BLK * ch, sizeof(float));
    assert_non_null(x);
    const int top = hl_layout_has_height(layout) ? 8 : 0;
    sweep_stats_t s = {.pmin = 1e9, .pmax = -1e9, .top = top, .bed_only = 1};
    /* 2 degrees a block, each move ramped over the block: one turn */
    for (int k = 1; k <= 180; k++) {
        hl_voice_set_t set = {.mask = HL_MIX_SET_POS, .ramp_frames = BLK};
        at_az(2.0 * k, set.pos);
        assert_int_equal(hl_mixer_set(m, v, &set, now), 0);
        hl_mixer_process_rt(m, x, BLK, now);
        now += (uint64_t)BLK * 1000000000u / TEST_RATE;
        check_block(x, ch, lfe, fc, &s);
    }
    print_message("# %s: moving turn, power %+.3f .. %+.3f dB, largest step %.5f, centre %s\n",
                  hl_layout_name(layout), s.pmin, s.pmax, s.max_step,
                  s.centre_used ? "used" : "unused");
    assert_true(s.pmin >= -0.5 && s.pmax <= 0.5);
    assert_true(s.max_step < 0.01); /* DC 0.5: a jump would be a sizeable part of it */
    assert_true(s.centre_used == (fc >= 0));

    /* a jump behind: the old speakers fade out over a block, then the new
     * ones fade in; never more than two at once, no step */
    hl_voice_set_t jump = {.mask = HL_MIX_SET_POS, .ramp_frames = 0};
    at_az(185.0, jump.pos);
    assert_int_equal(hl_mixer_set(m, v, &jump, now), 0);
    s.max_step = 0;
    if (top) s.most = 3; /* three slots: the new pair fades in as the old speaker fades out */
    for (int k = 0; k < 4; k++) {
        hl_mixer_process_rt(m, x, BLK, now);
        now += (uint64_t)BLK * 1000000000u / TEST_RATE;
        sweep_stats_t j = s;
        j.pmin = 1e9; /* the jump's power dips while the new pair fades in */
        check_block(x, ch, lfe, fc, &j);
        s.max_step = j.max_step;
        memcpy(s.prev, j.prev, sizeof s.prev);
    }
    assert_true(s.max_step < 0.01);
    /* settled behind: the two rear speakers of the arc, full power */
    const float *f = x + (size_t)(BLK - 1) * ch;
    double pw = 0;
    for (uint32_t c = 0; c < ch; c++)
        pw += (double)f[c] * f[c];
    assert_true(fabs(10 * log10(pw / ((double)DCV * DCV))) <= 0.5);
    assert_true(f[0] == 0.0f && f[1] == 0.0f); /* nothing left in front */
    free(x);
    test_pcm_free(dc);
    free(mem);
}

/* 7.1.4: a turn at elevation 30 degrees, then over the top to behind
 * (elevation 30 .. 180 at azimuth 20), 2 degrees a block. */
static void test_height(void **state) {
    (void)state;
    void *mem;
    hl_mixer_t *m = surround_mixer(HL_LAYOUT_714, &mem);
    hl_pcm_t *dc;
    hl_voice_params_t p = dc_3d(&dc, 20.0, 30.0);
    uint64_t v = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    float x[BLK * 12];
    sweep_stats_t s = {.pmin = 1e9, .pmax = -1e9, .most = 3, .top = 8};
    for (int k = 1; k <= 255; k++) {
        hl_voice_set_t set = {.mask = HL_MIX_SET_POS, .ramp_frames = BLK};
        if (k <= 180)
            test_dir_of(20.0 + 2.0 * k, 30.0, set.pos);
        else
            test_dir_of(20.0, 30.0 + 2.0 * (k - 180), set.pos);
        assert_int_equal(hl_mixer_set(m, v, &set, now), 0);
        hl_mixer_process_rt(m, x, BLK, now);
        now += (uint64_t)BLK * 1000000000u / TEST_RATE;
        check_block(x, 12, 3, 2, &s);
    }
    print_message("# 7.1.4: turn at 30 deg and over the top, power %+.3f .. %+.3f dB, "
                  "largest step %.5f\n",
                  s.pmin, s.pmax, s.max_step);
    assert_true(s.pmin >= -0.5 && s.pmax <= 0.5);
    assert_true(s.max_step < 0.01);
    assert_true(s.top_used);
    /* the listener lying on its right side (up = +x): the source at world
     * +x is straight above it (the top square's diagonal, TFL and TBR), one
     * at world +y is at its left (SL) */
    hl_listener_state_t lis = {.fwd = {0, 0, -1}, .up = {1, 0, 0}};
    assert_int_equal(hl_mixer_set_listener(m, &lis, now), 0);
    const float where[2][3] = {{1, 0, 0}, {0, 1, 0}};
    for (int w = 0; w < 2; w++) {
        hl_voice_set_t set = {.mask = HL_MIX_SET_POS, .ramp_frames = 0};
        memcpy(set.pos, where[w], sizeof set.pos);
        assert_int_equal(hl_mixer_set(m, v, &set, now), 0);
        for (int k = 0; k < 3; k++) { /* the jump's fades, then settled */
            hl_mixer_process_rt(m, x, BLK, now);
            now += (uint64_t)BLK * 1000000000u / TEST_RATE;
        }
        const float *f = x + (size_t)(BLK - 1) * 12;
        for (int c = 0; c < 12; c++) {
            const float want =
                w == 0 ? (c == 8 || c == 11 ? DCV * 0.70710678f : 0.0f) : (c == 6 ? DCV : 0.0f);
            assert_float_equal(f[c], want, 1e-4);
        }
    }
    test_pcm_free(dc);
    free(mem);
}

/* 7.1.4, steady height voices (3D, settled: one kernel run, then their three
 * speakers) against the same voices through the full path
 * (hl_mixer_set_fast_height off), sample for sample, at every kernel level:
 * pitch 1 (the copy), pitched linear, cubic and sinc, on one, two and three
 * speakers, in chunks that cut blocks; the listener turns (full path for
 * a block) and the voices settle again. */
static void test_height_steady(void **state) {
    (void)state;
    enum { NV = 4, FR = 4 * BLK };
    static const float pitch[NV] = {1.0f, 0.93f, 1.07f, 0.81f};
    static const uint32_t flags[NV] = {0, 0, HL_MIX_CUBIC, HL_MIX_SINC};
    /* on one speaker (FL), two (between FL and SL), three (above, twice) */
    static const double az[NV] = {30.0, 60.0, 105.0, 185.0}, el[NV] = {0.0, 0.0, 27.0, 34.0};
    static float x[2][FR * 12];
    hl_pcm_t *pcm[NV];
    void *mem[2];
    hl_mixer_t *m[2];
    uint64_t now[2] = {0, 0};
    for (int i = 0; i < NV; i++)
        pcm[i] = test_pcm_sine(TEST_RATE / 4, 1, 0.011 + 0.005 * i, 0.2 * i, 0.25f);
    for (int k = 0; k < 2; k++) { /* mixer 0 steady, mixer 1 the full path */
        m[k] = surround_mixer(HL_LAYOUT_714, &mem[k]);
        hl_mixer_set_fast_height(m[k], k == 0);
        for (int i = 0; i < NV; i++) {
            hl_voice_params_t p = test_params(pcm[i]);
            p.flags = HL_MIX_3D | HL_MIX_LOOP | flags[i];
            p.pitch = pitch[i];
            test_dir_of(az[i], el[i], p.pos);
            assert_int_equal(hl_mixer_play(m[k], &p, now[k], NULL, NULL), 0);
        }
    }
    int on[4] = {0, 0, 0, 0};
    for (int ph = 0; ph < 6; ph++) { /* each kernel level, then the listener turns */
        for (int k = 0; k < 2; k++) {
            hl_mixer_use_simd(m[k], ph / 2);
            if (ph & 1) { /* a full-path block, then steady again */
                hl_listener_state_t lis;
                hl_mixer_get_listener(m[k], &lis);
                test_dir_of(-15.0 * ph, 0.0, lis.fwd);
                assert_int_equal(hl_mixer_set_listener(m[k], &lis, now[k]), 0);
            }
            test_render(m[k], x[k], FR, ph & 1 ? 100 : BLK, &now[k]);
        }
        int steady = 0;
        for (uint32_t i = 0; i < m[0]->n_rt_active; i++) {
            const hl_rt_voice_t *v = &m[0]->rt[m[0]->rt_active[i]];
            steady += v->f.ramp == HL_FAST_HEIGHT;
            on[(v->hq[0].cur != 0.0f) + (v->hq[1].cur != 0.0f) + (v->hq[2].cur != 0.0f)]++;
        }
        assert_int_equal(steady, NV);
        assert_memory_equal(x[0], x[1], sizeof x[0]);
    }
    print_message("# voices x phases on 1, 2, 3 speakers: %d %d %d\n", on[1], on[2], on[3]);
    assert_true(on[1] && on[2] && on[3] >= 6 * NV / 2);
    for (int k = 0; k < 2; k++)
        free(mem[k]);
    for (int i = 0; i < NV; i++)
        test_pcm_free(pcm[i]);
}

/* 7.1.4, the post stage of a height voice: occlusion and a send reach the
 * bus and the send bus on the voice's speaker (TFL) only. */
static void test_height_post(void **state) {
    (void)state;
    void *mem;
    hl_mixer_t *m = surround_mixer(HL_LAYOUT_714, &mem);
    int8_t parent[HL_MAX_BUSES];
    for (int b = 0; b < HL_MAX_BUSES; b++)
        parent[b] = -1; /* every bus under the master */
    assert_int_equal(hl_mixer_bus_graph(m, parent, (1u << 5) - 1u, 0), 0);
    hl_pcm_t *dc;
    hl_voice_params_t p = dc_3d(&dc, 45.0, 45.0); /* TFL */
    p.occ_db = -6.0f;
    p.send_bus[0] = 4;
    p.send_gain[0] = 0.5f;
    uint64_t v = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    float x[BLK * 12];
    for (int k = 0; k < 2; k++)
        hl_mixer_process_rt(m, x, BLK, 0);
    const float o = powf(10.0f, -6.0f / 20.0f), *f = x + (size_t)(BLK - 1) * 12;
    for (int c = 0; c < 12; c++)
        assert_float_equal(f[c], c == 8 ? DCV * o * 1.5f : 0.0f, 1e-4);
    test_pcm_free(dc);
    free(mem);
}

/* state: the hl_layout_t to sweep */
static void test_sweep(void **state) {
    sweep_on(*(const hl_layout_t *)*state);
}

/* A 2D voice (stereo source, 0 dB) renders the same front pair on 7.1 as on
 * stereo, bit for bit, and nothing elsewhere. */
static void test_2d_front_pair(void **state) {
    (void)state;
    void *mem;
    hl_mixer_t *m7 = surround_mixer(HL_LAYOUT_71, &mem);
    hl_mixer_t *m2 = test_mixer_new(4, 0);
    assert_non_null(m2);
    hl_pcm_t *src = test_pcm_sine(4096, 2, 0.013, 0.3, 0.7f);
    hl_voice_params_t p = test_params(src);
    p.pan = 0.3f;
    uint64_t v;
    assert_int_equal(hl_mixer_play(m7, &p, 0, &v, NULL), 0);
    assert_int_equal(hl_mixer_play(m2, &p, 0, &v, NULL), 0);
    float x7[BLK * 8], x2[BLK * 2];
    for (int k = 0; k < 8; k++) {
        hl_mixer_process_rt(m7, x7, BLK, 0);
        hl_mixer_process_rt(m2, x2, BLK, 0);
        for (int t = 0; t < BLK; t++) {
            assert_true(x7[8 * t] == x2[2 * t] && x7[8 * t + 1] == x2[2 * t + 1]);
            for (int c = 2; c < 8; c++)
                assert_true(x7[8 * t + c] == 0.0f);
        }
    }
    test_pcm_free(src);
    test_mixer_free(m2);
    free(mem);
}

/* One 3D sine voice on the speaker at az degrees (alone: the end of its
 * arc) through a low-pass EQ on its bus, or a reverb with the dry path only
 * (wet 0: its input folded to the front pair comes out there): the 7.1
 * output, BLK x 8 frames into x. */
static void through_insert(hl_layout_t layout, int kind, double az, double el, float *x) {
    void *mem;
    hl_mixer_t *m = surround_mixer(layout, &mem);
    hl_fx_t fx = {.kind = kind};
    void *rmem = NULL;
    if (kind == HL_FX_EQ) {
        hl_eq_init(&fx.u.eq, (float)TEST_RATE, HL_BQ_LOWPASS, 500.0f, 0.7071f, 0.0f);
    } else {
        size_t rsz = hl_reverb_size((float)TEST_RATE);
        rmem = malloc(rsz);
        assert_non_null(rmem);
        fx.u.rev = hl_reverb_init(rmem, rsz, (float)TEST_RATE);
        hl_reverb_params_t rp;
        assert_int_equal(hl_reverb_preset("hall", &rp), 0);
        rp.wet = 0.0f;
        rp.dry = 1.0f;
        hl_reverb_set_rt(fx.u.rev, &rp);
    }
    hl_fx_t *chain[1] = {&fx};
    assert_int_equal(hl_mixer_bus_fx(m, HL_BUS_SFX, chain, 1, 0), 0);
    hl_pcm_t *src = test_pcm_sine(TEST_RATE, 1, 0.01, 0.0, 0.5f);
    hl_voice_params_t p = test_params(src);
    p.flags = HL_MIX_3D;
    test_dir_of(az, el, p.pos);
    uint64_t v;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    hl_mixer_process_rt(m, x, BLK, 0);
    test_pcm_free(src);
    free(mem);
    free(rmem);
}

/* Inserts on a surround bus: the EQ filters every channel alike (a voice on
 * BL comes out exactly as the same voice on FL; on 7.1.4 one on TFL as one
 * on FL), the reverb takes the surrounds (and the top speakers) folded into
 * its front pair (nothing stays behind). */
static void test_inserts(void **state) {
    (void)state;
    static float front[BLK * 12], back[BLK * 12];
    for (int h = 0; h < 2; h++) {
        const hl_layout_t l = h ? HL_LAYOUT_714 : HL_LAYOUT_71;
        const int ch = h ? 12 : 8, other = h ? 8 : 4;  /* TFL : BL */
        through_insert(l, HL_FX_EQ, 30.0, 0.0, front); /* FL */
        through_insert(l, HL_FX_EQ, h ? 45.0 : 150.0, h ? 45.0 : 0.0, back);
        double e = 0;
        for (int t = 0; t < BLK; t++) {
            assert_float_equal(back[ch * t + other], front[ch * t + 0], 1e-6);
            e += (double)back[ch * t + other] * back[ch * t + other];
        }
        assert_true(e > 1e-3);                                                    /* it played */
        through_insert(l, HL_FX_REVERB, h ? 135.0 : 150.0, h ? 45.0 : 0.0, back); /* BL, TBL */
        double fl = 0;
        for (int t = 0; t < BLK; t++) {
            for (int c = 2; c < ch; c++)
                assert_true(back[ch * t + c] == 0.0f);
            fl += (double)back[ch * t] * back[ch * t];
        }
        assert_true(fl > 1e-3); /* folded into FL */
    }
}

/* HRTF is stereo only: a surround mixer with HRTF state is refused. */
/* Source frame i, channel c of the multichannel test sound (a ramp per channel). */
static float mc_src(int64_t i, int c) {
    return 0.01f * (float)(c + 1) + 0.001f * (float)i;
}

/* A 2D voice of a 6-channel sound on 5.1 (mixer_multi.c): each channel on
 * its own speaker at the voice's gain, pitched (linear interpolation) and
 * looping ([20, 100), the frame after 99 is 20); 3D play, or a sound whose
 * channels are not the layout's, is refused. */
static void test_multichannel(void **state) {
    (void)state;
    enum { N = 100, LS = 20, CH = 6 };
    hl_pcm_t *src = test_pcm_dc(N, CH, 0.0f);
    float *d = (float *)(uintptr_t)src->data;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < CH; c++)
            d[i * CH + c] = mc_src(i, c);
    void *mem, *mem7;
    hl_mixer_t *m = surround_mixer(HL_LAYOUT_51, &mem), *m7 = surround_mixer(HL_LAYOUT_71, &mem7);
    hl_mixer_t *m2 = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(src);
    uint64_t v;
    assert_int_equal(hl_mixer_play(m7, &p, 0, &v, NULL), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_play(m2, &p, 0, &v, NULL), HELIOD_EINVAL);
    p.flags |= HL_MIX_3D;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), HELIOD_EINVAL);
    p.flags = HL_MIX_LOOP;
    p.loop_start = LS;
    p.gain = 0.5f;
    p.pan = -1.0f; /* no pan on a multichannel voice */
    p.pitch = 0.5f;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    float x[BLK * CH];
    for (int k = 0; k < 3; k++) {
        hl_mixer_process_rt(m, x, BLK, 0);
        for (int t = 0; t < BLK; t++) {
            const double pos = 0.5 * (double)(k * BLK + t);
            int64_t i = (int64_t)pos;
            const float f = (float)(pos - (double)i);
            if (i >= N) i = LS + (i - LS) % (N - LS);
            const int64_t j = i + 1 >= N ? LS : i + 1;
            for (int c = 0; c < CH; c++) {
                const float a = mc_src(i, c), b = mc_src(j, c);
                const float want = 0.5f * (f != 0.0f ? a + f * (b - a) : a);
                assert_true(fabsf(x[t * CH + c] - want) < 1e-6f);
            }
        }
    }
    test_pcm_free(src);
    test_mixer_free(m2);
    free(mem);
    free(mem7);
}

/* A 2D voice of a 6-channel stream on 5.1 (voice_stream.c's multichannel
 * runs): channel c plays (c + 1) / 8 on its own speaker exactly; starved, every
 * channel decays linearly to 0 over HL_UNDERRUN_FADE frames (one underrun);
 * fed again, every channel fades back in. A 3D play of it, or one on
 * stereo, is refused. */
static void test_multichannel_stream(void **state) {
    (void)state;
    enum { CH = 6, CAP = 4096, N = 300, LOOKAHEAD = 2, OUT = 4 * BLK };
    const size_t bytes = (hl_stream_size(CAP, CH) + 63) / 64 * 64;
    void *storage = aligned_alloc(64, bytes);
    hl_stream_t *s = aligned_alloc(64, (sizeof *s + 63) / 64 * 64);
    assert_true(storage && s);
    memset(s, 0, sizeof *s);
    assert_int_equal(hl_stream_init(s, storage, CAP, CH), 0);
    float frames[CAP * CH];
    for (int i = 0; i < CAP; i++)
        for (int c = 0; c < CH; c++)
            frames[i * CH + c] = (float)(c + 1) / 8.0f;
    assert_int_equal(hl_stream_write(s, frames, N), N);
    void *mem;
    hl_mixer_t *m = surround_mixer(HL_LAYOUT_51, &mem), *m2 = test_mixer_new(4, 0);
    hl_voice_params_t p = test_params(NULL);
    p.stream = s;
    uint64_t v;
    assert_int_equal(hl_mixer_play(m2, &p, 0, &v, NULL), HELIOD_EINVAL);
    p.flags |= HL_MIX_3D;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), HELIOD_EINVAL);
    p.flags = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    static float x[OUT * CH];
    for (int k = 0; k < OUT / BLK; k++)
        hl_mixer_process_rt(m, x + (size_t)k * BLK * CH, BLK, 0);
    const int played = N - LOOKAHEAD;
    for (int t = 0; t < OUT; t++)
        for (int c = 0; c < CH; c++) {
            const float lv = (float)(c + 1) / 8.0f, j = (float)(t - played + 1);
            const float want = t < played                      ? lv
                               : t < played + HL_UNDERRUN_FADE ? lv * (1.0f - j / HL_UNDERRUN_FADE)
                                                               : 0.0f;
            if (fabsf(x[t * CH + c] - want) > 1e-6f)
                fail_msg("frame %d channel %d: %.9g, want %.9g", t, c, x[t * CH + c], want);
        }
    assert_int_equal(hl_stream_underruns(s), 1);
    assert_int_equal(hl_stream_write(s, frames, 2 * BLK), 2 * BLK); /* fed again */
    hl_mixer_process_rt(m, x, BLK, 0);
    for (int t = 0; t < BLK; t++)
        for (int c = 0; c < CH; c++) {
            const float lv = (float)(c + 1) / 8.0f;
            const float want = t < HL_UNDERRUN_FADE ? lv * (float)(t + 1) / HL_UNDERRUN_FADE : lv;
            if (fabsf(x[t * CH + c] - want) > 1e-6f)
                fail_msg("back: frame %d channel %d: %.9g, want %.9g", t, c, x[t * CH + c], want);
        }
    assert_int_equal(hl_stream_underruns(s), 1);
    test_mixer_free(m2);
    free(mem);
    free(s);
    free(storage);
}

static void test_hrtf_stereo_only(void **state) {
    (void)state;
    hl_mixer_config_t cfg = {.rate = TEST_RATE, .voices = 4, .layout = HL_LAYOUT_51, .hrtf = 1};
    assert_int_equal(hl_mixer_size(&cfg), 0);
    cfg.layout = HL_LAYOUT_COUNT;
    cfg.hrtf = 0;
    assert_int_equal(hl_mixer_size(&cfg), 0);
}

int main(void) {
    static const hl_layout_t l51 = HL_LAYOUT_51, l71 = HL_LAYOUT_71, lquad = HL_LAYOUT_QUAD,
                             l714 = HL_LAYOUT_714;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_sweep, (void *)&l51),
        cmocka_unit_test_prestate(test_sweep, (void *)&l71),
        cmocka_unit_test_prestate(test_sweep, (void *)&lquad),
        cmocka_unit_test_prestate(test_sweep, (void *)&l714),
        cmocka_unit_test(test_height),
        cmocka_unit_test(test_height_post),
        cmocka_unit_test(test_height_steady),
        cmocka_unit_test(test_2d_front_pair),
        cmocka_unit_test(test_inserts),
        cmocka_unit_test(test_multichannel),
        cmocka_unit_test(test_multichannel_stream),
        cmocka_unit_test(test_hrtf_stereo_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
