/*
 * test_mix_mod.c - modulation slots (hl_mixer_mod_alloc / _set): the
 * voices attached to a slot follow its factor sample for sample as they
 * would follow one SET of gain each (2D and 3D voices, the gain cap, a
 * voice started while the slot ramps, a voice that took a gain of its own
 * and left), and a freed slot's voices follow no later slot of its number;
 * the slot's filter (HL_MOD_FILTER): its voices glide bit for bit as by
 * SETs of filter each, sharing the slot's glide while in step with it.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_limits.h"
#include "hl_simd.h"
#include "mix_helpers.h"
#include "mixer_internal.h"

#define LEVEL 0.5f
#define TOTAL 4096u
#define BLK   256u
#define CAP   0.6f /* the gain cap (HL_MAX_GAIN_DB's part) */
#define F0    0.5f
#define F1    0.9f
#define F2    0.2f

static const float base[3] = {0.8f, 0.5f, 0.7f}; /* the voices' own gains */

typedef struct {
    hl_mixer_t *m;
    uint32_t mod, gen; /* 0: the per-voice path */
    uint64_t v[3];
    int on[3]; /* follows the factor */
    uint64_t now;
    float *out;
    uint32_t done;
} rig_t;

static float capped(float g) {
    return g > CAP ? CAP : g;
}

static void start(rig_t *r, int i, hl_voice_params_t p, float f) {
    p.gain = capped(base[i] * f);
    if (r->mod) {
        p.mod = r->mod;
        p.mod_gen = r->gen;
        p.mod_base = base[i];
    }
    assert_int_equal(hl_mixer_play(r->m, &p, r->now, &r->v[i], NULL), 0);
    r->on[i] = 1;
}

/* The factor becomes f on frame `at`, ramped over `ramp` frames. */
static void change(rig_t *r, float f, uint32_t ramp, uint64_t at) {
    hl_mixer_at(r->m, at);
    if (r->mod) {
        assert_int_equal(hl_mixer_mod_set(r->m, r->mod, f, CAP, ramp, r->now), 0);
    } else {
        for (int i = 0; i < 3; i++) {
            if (!r->on[i]) continue;
            hl_voice_set_t s;
            memset(&s, 0, sizeof s);
            s.mask = HL_MIX_SET_GAIN;
            s.gain = capped(base[i] * f);
            s.ramp_frames = ramp;
            assert_int_equal(hl_mixer_set(r->m, r->v[i], &s, r->now), 0);
        }
    }
    hl_mixer_at(r->m, 0);
}

static void render_to(rig_t *r, uint32_t frame) {
    test_render(r->m, r->out + 2 * (size_t)r->done, frame - r->done, BLK, &r->now);
    r->done = frame;
}

/* One scenario, through the slot (shared) or by SETs per voice. */
static void run(rig_t *r, int shared, const hl_pcm_t *dc) {
    memset(r, 0, sizeof *r);
    r->m = test_mixer_new(8, 0);
    r->out = calloc(2 * (size_t)TOTAL, sizeof(float));
    if (shared) assert_int_equal(hl_mixer_mod_alloc(r->m, &r->mod, &r->gen), 0);
    hl_voice_params_t p = test_params(dc);
    p.flags |= HL_MIX_LOOP;
    p.pan = -1.0f; /* 2D, left only */
    start(r, 0, p, F0);
    hl_voice_params_t q = p; /* 3D, 2 m straight ahead: both sides alike */
    q.flags |= HL_MIX_3D;
    q.pos[2] = -2.0f;
    q.model = HL_MIX_DIST_INVERSE;
    start(r, 1, q, F0);
    render_to(r, 512);
    change(r, F1, 1000, 600); /* voice 0 reaches the cap */
    render_to(r, 1024);
    start(r, 2, p, F1); /* mid-ramp: starts at the value the control side has */
    render_to(r, 2048);
    /* voice 1 takes a gain of its own: off the slot */
    hl_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HL_MIX_SET_GAIN;
    s.gain = 0.3f;
    s.ramp_frames = 64;
    hl_mixer_at(r->m, 2100);
    assert_int_equal(hl_mixer_set(r->m, r->v[1], &s, r->now), 0);
    hl_mixer_at(r->m, 0);
    r->on[1] = 0;
    change(r, F2, 500, 2200);
    render_to(r, TOTAL);
}

static void test_slot_matches_sets(void **state) {
    (void)state;
    hl_pcm_t *dc = test_pcm_dc(1000, 1, LEVEL);
    rig_t a, b;
    run(&a, 1, dc);
    run(&b, 0, dc);
    assert_int_equal(memcmp(a.out, b.out, 2 * (size_t)TOTAL * sizeof(float)), 0);
    /* and the factor did move them: at the end, left - right is voices 0
     * and 2 (2D, left) at F2; voice 1 (3D, centre) cancels out */
    const float *e = a.out + 2 * (size_t)(TOTAL - 1);
    assert_true(fabsf((e[0] - e[1]) - LEVEL * (base[0] + base[2]) * F2) < 1e-5f);
    /* mid-way (frame 1700: the ramp over, voices 0 and 2 capped) */
    const float *mid = a.out + 2 * 1700;
    assert_true(fabsf((mid[0] - mid[1]) - LEVEL * (CAP + capped(base[2] * F1))) < 1e-5f);
    /* a freed slot's voices follow no later slot of its number */
    hl_mixer_mod_free(a.m, a.mod);
    assert_int_equal(hl_mixer_mod_set(a.m, a.mod, 1.0f, CAP, 0, a.now), HELIOD_EINVAL);
    uint32_t mod2 = 0, gen2 = 0;
    assert_int_equal(hl_mixer_mod_alloc(a.m, &mod2, &gen2), 0);
    assert_int_equal(mod2, a.mod);
    assert_true(gen2 != a.gen);
    assert_int_equal(hl_mixer_mod_set(a.m, mod2, 1.0f, CAP, 0, a.now), 0);
    test_render(a.m, a.out, 2 * BLK, BLK, &a.now);
    e = a.out + 2 * (size_t)(2 * BLK - 1);
    assert_true(fabsf((e[0] - e[1]) - LEVEL * (base[0] + base[2]) * F2) < 1e-5f);
    for (int k = 0; k < 2; k++) {
        rig_t *r = k ? &b : &a;
        test_mixer_free(r->m);
        free(r->out);
    }
    test_pcm_free(dc);
}

/* ---- the slot's filter ---------------------------------------------------- */

#define FT 6144u /* frames of the filter scenario */
#define FB 100u  /* process calls: blocks that cut the glides' cells anywhere */

typedef struct {
    hl_mixer_t *m;
    uint32_t mod, gen; /* 0: the per-voice path */
    uint64_t v[4];
    int gain_on[4], filt_on[4]; /* what follows the slot's changes */
    float lp, hp;               /* the cutoffs now */
    uint64_t now;
    float *out;
    uint32_t done;
} frig_t;

static void fstart(frig_t *r, int i, hl_voice_params_t p, float f) {
    p.gain = capped(base[i % 3] * f);
    p.lp_hz = r->lp;
    p.hp_hz = r->hp;
    if (r->mod) {
        p.mod = r->mod;
        p.mod_gen = r->gen;
        p.mod_base = base[i % 3];
        p.mod_what = HL_MOD_GAIN | HL_MOD_FILTER;
    }
    assert_int_equal(hl_mixer_play(r->m, &p, r->now, &r->v[i], NULL), 0);
    r->gain_on[i] = r->filt_on[i] = 1;
}

/* A change of the factor (gain: 1) and the cutoffs on frame `at`. */
static void fchange(frig_t *r, int gain, float f, float lp, float hp, uint32_t ramp, uint64_t at) {
    hl_mixer_at(r->m, at);
    if (r->mod) {
        hl_mod_change_t c = {.mask = HL_MOD_FILTER | (gain ? HL_MOD_GAIN : 0u),
                             .factor = f,
                             .max_gain = CAP,
                             .lp_hz = lp,
                             .hp_hz = hp,
                             .lp_from = r->lp,
                             .hp_from = r->hp,
                             .ramp_frames = ramp};
        assert_int_equal(hl_mixer_mod_change(r->m, r->mod, &c, r->now), 0);
    } else {
        for (int i = 0; i < 4; i++) {
            hl_voice_set_t s;
            memset(&s, 0, sizeof s);
            s.ramp_frames = ramp;
            if (gain && r->gain_on[i]) {
                s.mask |= HL_MIX_SET_GAIN;
                s.gain = capped(base[i % 3] * f);
            }
            if (r->filt_on[i]) {
                s.mask |= HL_MIX_SET_FILTER | HL_MIX_SET_FSTEP;
                s.lp_hz = lp;
                s.hp_hz = hp;
            }
            if (s.mask) assert_int_equal(hl_mixer_set(r->m, r->v[i], &s, r->now), 0);
        }
    }
    hl_mixer_at(r->m, 0);
    r->lp = lp;
    r->hp = hp;
}

static void fset(frig_t *r, int i, uint32_t mask, uint64_t at) {
    hl_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = mask;
    s.ramp_frames = 64;
    s.lp_hz = 5000.0f;
    hl_mixer_at(r->m, at);
    assert_int_equal(hl_mixer_set(r->m, r->v[i], &s, r->now), 0);
    hl_mixer_at(r->m, 0);
    if (mask & HL_MIX_SET_FILTER) r->filt_on[i] = 0;
}

static void frender(frig_t *r, uint32_t frame) {
    test_render(r->m, r->out + 2 * (size_t)r->done, frame - r->done, FB, &r->now);
    r->done = frame;
}

/* Voices (by index) that follow the slot's glide now. */
static uint32_t sharing(const frig_t *r) {
    uint32_t bits = 0;
    for (int i = 0; i < 4; i++)
        if (r->v[i] && r->m->rt[(uint32_t)r->v[i]].vf.sh) bits |= 1u << i;
    return bits;
}

/* The voices on the slot's list (checked both ways). */
static int slot_voices(const hl_mixer_t *m, uint32_t mod) {
    int n = 0;
    uint32_t prev = 0;
    for (uint32_t k = m->rt_mod[mod - 1].head; k; k = m->rt[k - 1].mod_next, n++) {
        assert_int_equal(m->rt[k - 1].mod_prev, prev);
        assert_true(m->rt[k - 1].live);
        prev = k;
    }
    return n;
}

/* The scenarios' start: voices 0 (2D, left), 1 (3D, ahead) and 2 (2D,
 * right) on a 2 kHz low-pass; returns voice 2's parameters. */
static hl_voice_params_t fbegin(frig_t *r, int shared, const hl_pcm_t *src) {
    memset(r, 0, sizeof *r);
    r->m = test_mixer_new(8, 0);
    r->out = calloc(2 * (size_t)FT, sizeof(float));
    r->lp = 2000.0f;
    if (shared) assert_int_equal(hl_mixer_mod_alloc(r->m, &r->mod, &r->gen), 0);
    hl_voice_params_t p = test_params(src);
    p.flags |= HL_MIX_LOOP;
    p.pan = -0.5f;
    fstart(r, 0, p, F0);
    hl_voice_params_t q = p; /* 3D, ahead */
    q.flags |= HL_MIX_3D;
    q.pos[2] = -2.0f;
    q.model = HL_MIX_DIST_INVERSE;
    fstart(r, 1, q, F0);
    p.pan = 0.7f;
    fstart(r, 2, p, F0);
    return p;
}

static void frun(frig_t *r, int shared, const hl_pcm_t *src) {
    hl_voice_params_t p = fbegin(r, shared, src);
    /* followers share a glide through its plan (AVX2): the checks of who
     * shares hold there; the bits everywhere */
    const int plan = shared && hl_simd_level() >= HL_SIMD_AVX2;
    frender(r, 512);
    fchange(r, 1, F1, 600.0f, 0.0f, 144, 600); /* gain and low-pass in one change */
    frender(r, 650);
    if (plan) assert_int_equal(sharing(r), 7u); /* all three in the slot's glide */
    frender(r, 700);
    fstart(r, 3, p, F1); /* mid-glide: its own filter at the target, settled */
    fset(r, 2, HL_MIX_SET_PAUSE, 800);
    frender(r, 1000);
    fchange(r, 0, F1, 3000.0f, 0.0f, 480, 1150); /* the low-pass alone, over two blocks */
    frender(r, 1200);
    /* voice 3 in step again; 2 too, paused: it falls out of step as it runs */
    if (plan) assert_int_equal(sharing(r), 0xFu);
    fset(r, 2, HL_MIX_SET_RESUME, 1300);
    frender(r, 1500);
    if (plan) assert_int_equal(sharing(r) & 4u, 0u); /* it missed blocks: its own glide */
    fset(r, 1, HL_MIX_SET_FILTER, 1800);             /* a filter of its own: off the slot's */
    fchange(r, 1, F2, 800.0f, 200.0f, 300, 2000);    /* a high-pass turns on: glides of their own */
    frender(r, 2600);
    fchange(r, 1, F0, 1500.0f, 200.0f, 200, 2700);
    frender(r, 3000);
    fchange(r, 0, F0, 700.0f, 0.0f, 144, 3100); /* and off */
    frender(r, 4000);
    fchange(r, 1, F1, 2500.0f, 0.0f, 144, 4100); /* settled alike again: shared again */
    frender(r, 4150);
    if (plan) assert_int_equal(sharing(r), 0xDu);
    frender(r, FT);
}

static void test_filter_slot_matches_sets(void **state) {
    (void)state;
    hl_pcm_t *src = test_pcm_sine(4800, 1, 0.031, 0.0, LEVEL); /* ~1.5 kHz */
    frig_t a, b;
    frun(&a, 1, src);
    frun(&b, 0, src);
    assert_int_equal(memcmp(a.out, b.out, 2 * (size_t)FT * sizeof(float)), 0);
    /* and the cutoffs did move it: the 1.5 kHz tone is far quieter under
     * the 600 Hz low-pass (frames 1000..1100) than under 2.5 kHz (5000..) */
    double lo = 0.0, hi = 0.0;
    for (uint32_t t = 1000; t < 1100; t++)
        lo += fabs(a.out[2 * t] - (double)a.out[2 * t + 1]) + fabs(a.out[2 * t + 1]);
    for (uint32_t t = 5000; t < 5100; t++)
        hi += fabs(a.out[2 * t] - (double)a.out[2 * t + 1]) + fabs(a.out[2 * t + 1]);
    assert_true(lo < 0.5 * hi);
    /* a change walks the slot's voices alone, listed as they start and
     * unlisted as they end (their mixer slot may play another voice) */
    assert_int_equal(slot_voices(a.m, a.mod), 4);
    assert_int_equal(hl_mixer_stop(a.m, a.v[3], 64, 0, a.now), 0);
    test_render(a.m, a.out, 512, FB, &a.now);
    assert_int_equal(slot_voices(a.m, a.mod), 3);
    hl_voice_params_t p = test_params(src);
    uint64_t w = 0;
    assert_int_equal(hl_mixer_play(a.m, &p, a.now, &w, NULL), 0); /* not on the slot */
    test_render(a.m, a.out, 512, FB, &a.now);
    assert_int_equal(slot_voices(a.m, a.mod), 3);
    /* the slot's filter takes the same checks as its gain */
    hl_mod_change_t c = {.mask = HL_MOD_FILTER, .lp_hz = -1.0f};
    assert_int_equal(hl_mixer_mod_change(a.m, a.mod, &c, a.now), HELIOD_EINVAL);
    c.lp_hz = 100.0f;
    c.mask = 4;
    assert_int_equal(hl_mixer_mod_change(a.m, a.mod, &c, a.now), HELIOD_EINVAL);
    c.mask = 0;
    assert_int_equal(hl_mixer_mod_change(a.m, a.mod, &c, a.now), HELIOD_EINVAL);
    for (int k = 0; k < 2; k++) {
        frig_t *r = k ? &b : &a;
        test_mixer_free(r->m);
        free(r->out);
    }
    test_pcm_free(src);
}

/* ---- a change taken lazily ------------------------------------------------- */

#define LT 3000u /* frames of the scenario (of FT) */

/* A slot's change is recorded by its command and taken by each voice when
 * it is next mixed or given a command of its own: changes that meet other
 * commands in one drain (each would show a miss or a double take: a SET of the
 * voice's own after the change would be undone by the change taken late,
 * a voice that took it at its SET and again when mixed restarts its ramp). */
static void lrun(frig_t *r, int shared, const hl_pcm_t *src) {
    hl_voice_params_t p = fbegin(r, shared, src);
    frender(r, 500);
    /* two changes on one frame, then a SET of voice 0's pan: each in turn */
    fchange(r, 1, F1, 600.0f, 0.0f, 144, 600);
    fchange(r, 1, F2, 900.0f, 0.0f, 300, 600);
    fset(r, 0, HL_MIX_SET_PAN, 600);
    frender(r, 800);
    if (shared) assert_int_equal(r->m->mod_pend_any, 0u); /* all taken in that block */
    /* a SET before a change on its frame, a STOP after it */
    fset(r, 2, HL_MIX_SET_PAN, 900);
    fchange(r, 1, F0, 1200.0f, 0.0f, 200, 900);
    hl_mixer_at(r->m, 900);
    assert_int_equal(hl_mixer_stop(r->m, r->v[1], 256, 0, r->now), 0);
    hl_mixer_at(r->m, 0);
    r->gain_on[1] = r->filt_on[1] = 0;
    frender(r, 1100);
    /* voice 1 leaves the list (its release ends at 1156); a play and a
     * change in one drain: the voice joins the list, then takes it */
    frender(r, 1200);
    fstart(r, 3, p, F0);
    fchange(r, 1, F1, 1500.0f, 0.0f, 144, 1200);
    frender(r, 1600);
    /* a voice paused through a change takes it as it is mixed, paused */
    fset(r, 2, HL_MIX_SET_PAUSE, 1650);
    fchange(r, 1, F2, 800.0f, 0.0f, 144, 1700);
    fset(r, 2, HL_MIX_SET_RESUME, 1900);
    frender(r, LT);
    if (shared) assert_int_equal(r->m->rt_mod[r->mod - 1].pend, 0u);
}

static void test_lazy_takes_once(void **state) {
    (void)state;
    hl_pcm_t *src = test_pcm_sine(4800, 1, 0.031, 0.0, LEVEL);
    frig_t a, b;
    lrun(&a, 1, src);
    lrun(&b, 0, src);
    assert_int_equal(memcmp(a.out, b.out, 2 * (size_t)LT * sizeof(float)), 0);
    for (int k = 0; k < 2; k++) {
        frig_t *r = k ? &b : &a;
        test_mixer_free(r->m);
        free(r->out);
    }
    test_pcm_free(src);
}

static void test_slot_limits(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(2, 0);
    uint32_t mod = 0, gen = 0, n = 0;
    while (hl_mixer_mod_alloc(m, &mod, &gen) == 0)
        n++;
    assert_int_equal(n, HL_MIX_MODS);
    assert_int_equal(hl_mixer_mod_set(m, 0, 1.0f, CAP, 0, 0), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_mod_set(m, HL_MIX_MODS + 1, 1.0f, CAP, 0, 0), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_mod_set(m, 1, -1.0f, CAP, 0, 0), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_mod_set(m, 1, NAN, CAP, 0, 0), HELIOD_EINVAL);
    hl_mixer_mod_free(m, 7);
    assert_int_equal(hl_mixer_mod_alloc(m, &mod, &gen), 0);
    assert_int_equal(mod, 7);
    hl_pcm_t *dc = test_pcm_dc(100, 1, LEVEL);
    hl_voice_params_t p = test_params(dc);
    p.mod = HL_MIX_MODS + 1;
    uint64_t v = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), HELIOD_EINVAL);
    test_mixer_free(m);
    test_pcm_free(dc);
}

/* Plain steady voices next to each other share a kernel call (voice_pair.h,
 * AVX-512): one off the slot followed by one due to take its change is
 * not paired (the second would be mixed without it); the same bits as SETs. */
static void pair_run(int shared, const hl_pcm_t *src, float *out) {
    hl_mixer_t *m = test_mixer_new(8, 0);
    uint32_t mod = 0, gen = 0;
    uint64_t v[4], now = 0;
    if (shared) assert_int_equal(hl_mixer_mod_alloc(m, &mod, &gen), 0);
    for (int i = 0; i < 4; i++) {
        hl_voice_params_t p = test_params(src);
        p.flags |= HL_MIX_LOOP;
        p.pitch = 1.5f; /* off the copy path */
        p.pan = 0.25f * (float)i - 0.4f;
        p.gain = base[i % 3] * F0;
        if (shared && i % 2) {
            p.mod = mod;
            p.mod_gen = gen;
            p.mod_base = base[i % 3];
        }
        assert_int_equal(hl_mixer_play(m, &p, now, &v[i], NULL), 0);
    }
    for (uint32_t k = 0, done = 0; k < 2; k++) {
        test_render(m, out + 2 * (size_t)done, 512, BLK, &now);
        done += 512;
        const float f = k ? F2 : F1;
        hl_mixer_at(m, done); /* on a block's start: a whole block after it */
        if (shared) assert_int_equal(hl_mixer_mod_set(m, mod, f, CAP, 64, now), 0);
        for (int i = 1; !shared && i < 4; i += 2) {
            hl_voice_set_t s = {
                .mask = HL_MIX_SET_GAIN, .gain = capped(base[i % 3] * f), .ramp_frames = 64};
            assert_int_equal(hl_mixer_set(m, v[i], &s, now), 0);
        }
        hl_mixer_at(m, 0);
        test_render(m, out + 2 * (size_t)done, 512, BLK, &now);
        done += 512;
    }
    test_mixer_free(m);
}

static void test_lazy_pairs(void **state) {
    (void)state;
    hl_pcm_t *src = test_pcm_sine(48000, 1, 0.013, 0.0, LEVEL);
    float *a = calloc(2 * 2048, sizeof(float)), *b = calloc(2 * 2048, sizeof(float));
    pair_run(1, src, a);
    pair_run(0, src, b);
    assert_int_equal(memcmp(a, b, 2 * 2048 * sizeof(float)), 0);
    free(a);
    free(b);
    test_pcm_free(src);
}

/* Two slots gliding at once: each block plans both, and a plan's lookups
 * may replace table entries (its misses), so the cells each slot's
 * followers run from the table (hl_vf_share_hold_rt) are found after both
 * plans, still valid as the voices run; found between them, the first
 * slot's went stale every block and its followers looked them up again. */
static void test_two_glides_hold(void **state) {
    (void)state;
    if (hl_simd_level() < HL_SIMD_AVX2) skip(); /* no plan without AVX2 */
    hl_pcm_t *src = test_pcm_sine(4800, 1, 0.031, 0.0, LEVEL);
    hl_mixer_t *m = test_mixer_new(8, 0);
    float *out = calloc(2 * HL_MIX_BLOCK, sizeof(float));
    uint64_t now = 0;
    uint32_t mod[2], gen[2];
    for (int s = 0; s < 2; s++) {
        assert_int_equal(hl_mixer_mod_alloc(m, &mod[s], &gen[s]), 0);
        hl_voice_params_t p = test_params(src);
        p.flags |= HL_MIX_LOOP;
        p.lp_hz = 2000.0f;
        p.mod = mod[s];
        p.mod_gen = gen[s];
        p.mod_base = 1.0f;
        p.mod_what = HL_MOD_FILTER;
        uint64_t v;
        assert_int_equal(hl_mixer_play(m, &p, now, &v, NULL), 0);
    }
    test_render(m, out, HL_MIX_BLOCK, HL_MIX_BLOCK, &now);
    for (int s = 0; s < 2; s++) {
        hl_mod_change_t c = {.mask = HL_MOD_FILTER,
                             .factor = 1.0f,
                             .max_gain = CAP,
                             .lp_hz = s ? 4000.0f : 500.0f,
                             .lp_from = 2000.0f,
                             .ramp_frames = 4800};
        assert_int_equal(hl_mixer_mod_change(m, mod[s], &c, now), 0);
    }
    for (int b = 0; b < 4; b++) {
        test_render(m, out, HL_MIX_BLOCK, HL_MIX_BLOCK, &now);
        const hl_vf_share_t *sh0 = &m->rt_mod[mod[0] - 1].vf, *sh1 = &m->rt_mod[mod[1] - 1].vf;
        for (int s = 0; s < 2; s++) {
            const hl_vf_share_t *sh = &m->rt_mod[mod[s] - 1].vf;
            assert_int_equal(sh->n, HL_MIX_BLOCK); /* planned, gliding */
            assert_true(sh->kf > 0);
        }
        /* both found after both plans: at the same count of the table's misses
         * (which each block's plans raise: new designs all along the glides) */
        assert_int_equal(sh0->kf_misses, sh1->kf_misses);
    }
    free(out);
    test_mixer_free(m);
    test_pcm_free(src);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slot_matches_sets),
        cmocka_unit_test(test_slot_limits),
        cmocka_unit_test(test_filter_slot_matches_sets),
        cmocka_unit_test(test_lazy_takes_once),
        cmocka_unit_test(test_lazy_pairs),
        cmocka_unit_test(test_two_glides_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
