/*
 * test_params.c - game parameters on their own (daemon/assets/params.c and
 * the cue sheet's [parameter] sections and bind keys): curve evaluation at,
 * between and beyond the points for every segment shape, the switch and
 * blend rules (boundaries, equal power), seeking at the seek speed, scoped
 * values (voice over emitter over global) and their removal, scheduled
 * values, the combination of several bindings, and hostile sheets and
 * BIND messages refused with their reasons.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cues.h"
#include "hld_limits.h"
#include "params.h"

static hld_curve_t curve3(void) {
    hld_curve_t c;
    memset(&c, 0, sizeof c);
    c.n = 3;
    c.x[0] = 0.0f, c.y[0] = -24.0f;
    c.x[1] = 0.5f, c.y[1] = -6.0f;
    c.x[2] = 1.0f, c.y[2] = 0.0f;
    return c;
}

static void test_curve_linear(void **state) {
    (void)state;
    hld_curve_t c = curve3();
    assert_float_equal(hld_curve_eval(&c, -1.0f), -24.0f, 0.0f); /* held before the first */
    assert_float_equal(hld_curve_eval(&c, 0.0f), -24.0f, 0.0f);
    assert_float_equal(hld_curve_eval(&c, 0.25f), -15.0f, 1e-5f);
    assert_float_equal(hld_curve_eval(&c, 0.5f), -6.0f, 0.0f);
    assert_float_equal(hld_curve_eval(&c, 0.75f), -3.0f, 1e-5f);
    assert_float_equal(hld_curve_eval(&c, 1.0f), 0.0f, 0.0f);
    assert_float_equal(hld_curve_eval(&c, 7.0f), 0.0f, 0.0f);  /* held after the last */
    assert_float_equal(hld_curve_eval(&c, NAN), -24.0f, 0.0f); /* never NaN out */
    hld_curve_t one = {.n = 1, .x = {3.0f}, .y = {-9.0f}};
    assert_float_equal(hld_curve_eval(&one, -5.0f), -9.0f, 0.0f);
    assert_float_equal(hld_curve_eval(&one, 5.0f), -9.0f, 0.0f);
    /* 16 points: the last segment is reached */
    hld_curve_t c16;
    memset(&c16, 0, sizeof c16);
    c16.n = 16;
    for (int i = 0; i < 16; i++) {
        c16.x[i] = (float)i;
        c16.y[i] = (float)(i * i);
    }
    assert_float_equal(hld_curve_eval(&c16, 14.5f), (196.0f + 225.0f) / 2.0f, 1e-3f);
    assert_float_equal(hld_curve_eval(&c16, 0.5f), 0.5f, 1e-6f);
}

static void test_curve_shapes(void **state) {
    (void)state;
    for (uint8_t s = 0; s <= HL_SHAPE_SCURVE; s++) {
        assert_float_equal(hld_curve_shape(s, 0.0f), 0.0f, 0.0f);
        assert_float_equal(hld_curve_shape(s, 1.0f), 1.0f, 0.0f);
        float prev = 0.0f;
        for (int i = 1; i <= 100; i++) { /* monotonic */
            float v = hld_curve_shape(s, (float)i / 100.0f);
            assert_true(v >= prev);
            prev = v;
        }
    }
    assert_float_equal(hld_curve_shape(HL_SHAPE_LINEAR, 0.3f), 0.3f, 1e-6f);
    assert_float_equal(hld_curve_shape(HL_SHAPE_SCURVE, 0.5f), 0.5f, 1e-6f);
    assert_float_equal(hld_curve_shape(HL_SHAPE_SCURVE, 0.25f), 0.15625f, 1e-6f);
    /* exponential: slow start (below the line), log: its mirror (above) */
    float e = hld_curve_shape(HL_SHAPE_EXP, 0.5f), l = hld_curve_shape(HL_SHAPE_LOG, 0.5f);
    assert_true(e < 0.5f && l > 0.5f);
    assert_float_equal(e + l, 1.0f, 1e-5f);
    assert_float_equal(e, (expf(4.6f * 0.5f) - 1.0f) / (expf(4.6f) - 1.0f), 1e-6f);
    /* a shape per segment, from the BIND bits */
    hl_bind_t m;
    hl_bind_init(&m);
    m.npoints = 3;
    m.x[1] = 1.0f, m.x[2] = 2.0f;
    m.y[1] = 10.0f, m.y[2] = 20.0f;
    m.shapes = (uint32_t)HL_SHAPE_EXP | (uint32_t)HL_SHAPE_SCURVE << 2;
    hld_curve_t c;
    hld_curve_from_bind(&c, &m);
    assert_float_equal(hld_curve_eval(&c, 0.5f), 10.0f * e, 1e-4f);
    assert_float_equal(hld_curve_eval(&c, 1.25f), 10.0f + 10.0f * 0.15625f, 1e-4f);
    hl_bind_t back;
    hl_bind_init(&back);
    hld_curve_to_bind(&c, &back);
    assert_int_equal(back.npoints, 3);
    assert_int_equal(back.shapes, m.shapes);
}

static hld_param_t *define(hld_params_t *P, const char *name, float min, float max, float def,
                           float seek) {
    hl_param_def_t m;
    hl_param_def_init(&m);
    snprintf(m.name, sizeof m.name, "%s", name);
    m.min = min, m.max = max, m.def = def, m.seek = seek;
    const char *why = NULL;
    assert_int_equal(hl_validate_param_def(&m, &why), 0);
    hld_param_t *p = NULL;
    assert_int_equal(hld_params_define(P, &m, hld_params_find(P, name), 0, &p), 0);
    return p;
}

static void test_switch_and_blend(void **state) {
    (void)state;
    hld_params_t P;
    assert_int_equal(hld_params_init(&P), 0);
    hld_param_t *p = define(&P, "surface", 0, 1, 0, 0);
    hld_bind_t b = {.param = p->index, .prop = HL_PROP_SWITCH};
    b.curve.n = 2;
    b.curve.x[0] = 0.3f, b.curve.x[1] = 0.6f;
    /* each boundary belongs to the range above it */
    assert_int_equal(hld_params_switch(p, &b, 0.0f, 3), 0);
    assert_int_equal(hld_params_switch(p, &b, nextafterf(0.3f, 0.0f), 3), 0);
    assert_int_equal(hld_params_switch(p, &b, 0.3f, 3), 1);
    assert_int_equal(hld_params_switch(p, &b, nextafterf(0.6f, 0.0f), 3), 1);
    assert_int_equal(hld_params_switch(p, &b, 0.6f, 3), 2);
    assert_int_equal(hld_params_switch(p, &b, 1.0f, 3), 2);
    assert_int_equal(hld_params_switch(p, &b, 1.0f, 2), 1); /* never past the variations */
    b.curve.n = 0;                                          /* even split of [min, max] */
    assert_int_equal(hld_params_switch(p, &b, 0.24f, 4), 0);
    assert_int_equal(hld_params_switch(p, &b, 0.25f, 4), 1);
    assert_int_equal(hld_params_switch(p, &b, 0.99f, 4), 3);
    assert_int_equal(hld_params_switch(p, &b, 1.0f, 4), 3);

    hld_bind_t bl = {.param = p->index, .prop = HL_PROP_BLEND};
    for (uint32_t n = 2; n <= 4; n++)
        for (int i = 0; i <= 100; i++) {
            float v = (float)i / 100.0f, sum = 0.0f;
            for (uint32_t k = 0; k < n; k++) {
                float w = hld_params_blend(p, &bl, v, k, n);
                assert_true(w >= 0.0f && w <= 1.0f);
                sum += w * w;
            }
            assert_float_equal(sum, 1.0f, 1e-5f); /* equal power everywhere */
        }
    assert_float_equal(hld_params_blend(p, &bl, 0.0f, 0, 2), 1.0f, 0.0f);
    assert_float_equal(hld_params_blend(p, &bl, 0.5f, 0, 2), sqrtf(0.5f), 1e-6f);
    assert_float_equal(hld_params_blend(p, &bl, 1.0f, 1, 2), 1.0f, 0.0f);
    hld_params_close(&P);
}

/* hld_params_sweep's judge: emitters live on, voices ended. */
static int only_emitters_live(void *user, int kind, uint64_t key, const char *name) {
    (void)key, (void)name;
    (*(int *)user)++;
    return kind == HL_PSCOPE_EMITTER;
}

static void test_seek_and_scopes(void **state) {
    (void)state;
    hld_params_t P;
    assert_int_equal(hld_params_init(&P), 0);
    hld_param_t *p = define(&P, "rpm", 0, 8000, 800, 4000); /* 4000 per second */
    const uint64_t s = P.rate;                              /* seeks count engine frames */
    hld_params_seek(&P, 1 * s);
    assert_int_equal(hld_params_set(&P, p, HL_PSCOPE_GLOBAL, 0, NULL, 6000, 1), 0);
    assert_true(P.dirty);
    hld_params_seek(&P, 1 * s + s / 4); /* 250 ms: 1000 units */
    assert_float_equal(p->g.cur, 1800.0f, 0.5f);
    hld_params_seek(&P, 2 * s + s / 4); /* 4000 more units */
    assert_float_equal(p->g.cur, 5800.0f, 0.5f);
    assert_int_equal(P.moving, 1);
    hld_params_seek(&P, 3 * s); /* past the target: it stops there */
    assert_float_equal(p->g.cur, 6000.0f, 0.0f);
    assert_int_equal(P.moving, 0);
    /* out of range values are clamped by the module (the request refuses them) */
    assert_int_equal(hld_params_set(&P, p, HL_PSCOPE_GLOBAL, 0, NULL, 9e9f, 1), 0);
    assert_float_equal(p->g.target, 8000.0f, 0.0f);

    /* scopes: voice over emitter over global; a new value starts at the global */
    hld_param_t *q = define(&P, "health", 0, 100, 100, 0); /* jumps */
    uint64_t em = 0x1000, voice = (1ull << 32) | 7;
    assert_int_equal(hld_params_set(&P, q, HL_PSCOPE_EMITTER, em, "car", 40, 1), 0);
    assert_float_equal(hld_params_value(&P, q->index, voice, em, "car"), 40.0f, 0.0f);
    assert_float_equal(hld_params_value(&P, q->index, voice, em, "boat"), 100.0f, 0.0f);
    assert_float_equal(hld_params_value(&P, q->index, voice, 0, ""), 100.0f, 0.0f);
    assert_int_equal(hld_params_set(&P, q, HL_PSCOPE_VOICE, voice, NULL, 10, 1), 0);
    assert_float_equal(hld_params_value(&P, q->index, voice, em, "car"), 10.0f, 0.0f);
    assert_int_equal(q->scoped, 2);
    /* the binding sum: gains add, lp lowest, hp highest, occlusion largest */
    hld_bind_t b[5];
    memset(b, 0, sizeof b);
    for (int i = 0; i < 5; i++) {
        b[i].param = q->index;
        b[i].curve.n = 1;
    }
    b[0].prop = HL_PROP_GAIN, b[0].curve.y[0] = -3.0f;
    b[1].prop = HL_PROP_GAIN, b[1].curve.y[0] = -4.5f;
    b[2].prop = HL_PROP_LP, b[2].curve.y[0] = 900.0f;
    b[3].prop = HL_PROP_LP, b[3].curve.y[0] = 1200.0f;
    b[4].prop = HL_PROP_PITCH, b[4].curve.y[0] = 100.0f;
    hld_pcontrib_t pc;
    hld_params_contrib(&P, b, 5, voice, em, "car", 0, 0, &pc);
    assert_float_equal(pc.gain_db, -7.5f, 1e-6f);
    assert_float_equal(pc.lp_hz, 900.0f, 0.0f);
    assert_float_equal(pc.cents, 100.0f, 0.0f);
    /* the sweep drops what its owner no longer has */
    int live_calls = 0;
    hld_params_sweep(&P, only_emitters_live, &live_calls);
    assert_int_equal(live_calls, 2);
    assert_int_equal(q->scoped, 1);
    assert_float_equal(hld_params_value(&P, q->index, voice, em, "car"), 40.0f, 0.0f);
    hld_params_close(&P);
}

static void test_scheduled(void **state) {
    (void)state;
    hld_params_t P;
    assert_int_equal(hld_params_init(&P), 0);
    hld_param_t *p = define(&P, "tod", 0, 24, 12, 0);
    hl_param_t m;
    hl_param_init(&m);
    snprintf(m.name, sizeof m.name, "tod");
    m.value = 18;
    assert_int_equal(hld_params_schedule(&P, 48000, &m, p->index, 0, 1), 0);
    m.value = 6;
    assert_int_equal(hld_params_schedule(&P, 24000, &m, p->index, 0, 1), 0);
    hld_params_due(&P, 23999);
    assert_float_equal(p->g.target, 12.0f, 0.0f);
    hld_params_due(&P, 24000);
    assert_float_equal(p->g.target, 6.0f, 0.0f);
    hld_params_due(&P, 100000);
    assert_float_equal(p->g.target, 18.0f, 0.0f); /* in frame order */
    for (int i = 0; i < HLD_MAX_PSCHED; i++)
        assert_int_equal(hld_params_schedule(&P, 1u << 30, &m, p->index, 0, 1), 0);
    assert_int_equal(hld_params_schedule(&P, 1u << 30, &m, p->index, 0, 1), HELIOD_EBUSY);
    hld_params_close(&P);
}

static void test_bind_validation(void **state) {
    (void)state;
    hl_bind_t m;
    const char *why = NULL;
    hl_bind_init(&m);
    snprintf(m.cue, sizeof m.cue, "engine");
    snprintf(m.param, sizeof m.param, "rpm");
    m.prop = HL_PROP_GAIN;
    m.npoints = 2;
    m.x[1] = 1.0f;
    assert_int_equal(hl_validate_bind(&m, &why), 0);
    m.npoints = 17;
    assert_int_equal(hl_validate_bind(&m, &why), HELIOD_EINVAL);
    assert_non_null(strstr(why, "16"));
    m.npoints = 0;
    assert_int_equal(hl_validate_bind(&m, &why), HELIOD_EINVAL);
    m.npoints = 2;
    m.x[1] = 0.0f; /* not increasing */
    assert_int_equal(hl_validate_bind(&m, &why), HELIOD_EINVAL);
    assert_non_null(strstr(why, "increasing"));
    m.x[1] = NAN;
    assert_int_equal(hl_validate_bind(&m, &why), HELIOD_EINVAL);
    m.x[1] = 1.0f;
    m.y[1] = NAN;
    assert_int_equal(hl_validate_bind(&m, &why), HELIOD_EINVAL);
    m.y[1] = 30.0f; /* gain above +24 dB */
    assert_int_equal(hl_validate_bind(&m, &why), HELIOD_EINVAL);
    m.y[1] = 0.0f;
    m.shapes = 1u << 2; /* a shape past the last segment */
    assert_int_equal(hl_validate_bind(&m, &why), HELIOD_EINVAL);
    m.shapes = 0;
    m.index = 1; /* an index on a gain */
    assert_int_equal(hl_validate_bind(&m, &why), HELIOD_EINVAL);
    m.index = 0;
    m.prop = HL_PROP_LP;
    m.y[0] = 100.0f, m.y[1] = 200000.0f;
    assert_int_equal(hl_validate_bind(&m, &why), HELIOD_EINVAL);
    hl_param_t pm;
    hl_param_init(&pm);
    snprintf(pm.name, sizeof pm.name, "rpm");
    pm.value = NAN;
    assert_int_equal(hl_validate_param(&pm, &why), HELIOD_EINVAL);
    pm.value = 1.0f;
    pm.scope = HL_PSCOPE_VOICE; /* voice 0 */
    assert_int_equal(hl_validate_param(&pm, &why), HELIOD_EINVAL);
    hl_param_def_t d;
    hl_param_def_init(&d);
    snprintf(d.name, sizeof d.name, "x");
    d.min = 1, d.max = 1;
    assert_int_equal(hl_validate_param_def(&d, &why), HELIOD_EINVAL);
    d.max = 2, d.def = 3;
    assert_int_equal(hl_validate_param_def(&d, &why), HELIOD_EINVAL);
    d.def = 1.5f, d.seek = -1;
    assert_int_equal(hl_validate_param_def(&d, &why), HELIOD_EINVAL);
}

/* ---- cue sheets ---- */

static int load(hld_cues_t *c, const char *text, char *err, size_t cap) {
    return hld_cues_load_mem(c, "sheet.ini", text, strlen(text), NULL, NULL, err, cap);
}

/* Hostile sheets: each refused with its reason in the message. */
typedef struct {
    const char *text, *want;
} bad_sheet_t;

static void expect_refused(hld_cues_t *c, const bad_sheet_t *bad, size_t n) {
    char err[256];
    for (size_t i = 0; i < n; i++) {
        err[0] = 0;
        assert_int_not_equal(load(c, bad[i].text, err, sizeof err), 0);
        if (!strstr(err, bad[i].want)) fail_msg("sheet %zu: '%s' lacks '%s'", i, err, bad[i].want);
    }
}

/* A cue table with a parameter table, as the daemon has them. */
static void tables_open(hld_cues_t *c, hld_params_t *P) {
    hld_cues_init(c, 1);
    assert_int_equal(hld_params_init(P), 0);
    c->params = P;
}

static void test_sheet(void **state) {
    (void)state;
    hld_cues_t c;
    hld_params_t P;
    tables_open(&c, &P);
    char err[256];
    const char *sheet = "[parameter rpm] 0 8000 800 4000\n"
                        "[cue engine]\n"
                        "sound = idle, low, high\n"
                        "bind = rpm gain 0:-12 4000:-3:scurve 8000:0\n"
                        "bind = rpm pitch 0:-200 8000:400\n"
                        "bind = load send:1 0:-20 1:-6\n"
                        "bind = rpm switch 2000 5000\n"
                        "[parameter load] 0 1 0 0\n"; /* defined after its use */
    assert_int_equal(load(&c, sheet, err, sizeof err), 0);
    hld_param_t *rpm = hld_params_find(&P, "rpm");
    assert_non_null(rpm);
    assert_float_equal(rpm->def.seek, 4000.0f, 0.0f);
    assert_float_equal(rpm->g.cur, 800.0f, 0.0f);
    hld_cue_t *e = hld_cues_find(&c, "engine");
    assert_int_equal(e->nbinds, 4);
    assert_int_equal(e->binds[0].curve.n, 3);
    assert_int_equal(e->binds[0].curve.shape[1], HL_SHAPE_SCURVE);
    assert_int_equal(e->binds[2].prop, HL_PROP_SEND);
    assert_int_equal(e->binds[2].index, 1);
    assert_int_equal(e->binds[2].param, hld_params_find(&P, "load")->index);
    assert_int_equal(e->binds[3].prop, HL_PROP_SWITCH);
    assert_int_equal(hld_params_switch(rpm, &e->binds[3], 2000, 3), 1);

    /* hostile sheets: refused with the line and the reason, nothing changes */
    static const bad_sheet_t bad[] = {
        {"[parameter p] 0 1 0\n", "MIN MAX DEFAULT SEEK"},
        {"[parameter p] 1 0 0 0\n", "max: must be greater than min"},
        {"[parameter p] 0 1 nan 0\n", "not a number"},
        {"[parameter p] 0 1 0 -1\n", "seek"},
        {"[parameter p] 0 1 0 0\n[parameter p] 0 1 0 0\n", "already defined at line 1"},
        {"[parameter bad name] 0 1 0 0\n", "invalid name"},
        {"[cue x]\nsound = a\nbind = nosuch gain 0:0\n", "no parameter named nosuch"},
        {"[cue x]\nsound = a\nbind = rpm loudness 0:0\n", "unknown property"},
        {"[cue x]\nsound = a\nbind = rpm gain 0:0 10000:0\n", "outside parameter rpm's range"},
        {"[cue x]\nsound = a\nbind = rpm gain 5:0 1:0\n", "strictly increasing"},
        {"[cue x]\nsound = a\nbind = rpm gain 0:0:wobbly\n", "unknown shape"},
        {"[cue x]\nsound = a\nbind = rpm gain 0\n", "X:Y"},
        {"[cue x]\nsound = a\nbind = rpm gain:1 0:0\n", "only send takes an index"},
        {"[cue x]\nsound = a\nbind = rpm gain 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 "
         "12:0 13:0 14:0 15:0 16:0\n",
         "at most 16 points"},
        {"[cue x]\nsound = a\nbind = rpm gain 0:nan\n", "X:Y"},
    };
    expect_refused(&c, bad, sizeof bad / sizeof bad[0]);
    assert_int_equal(P.n, 2); /* nothing defined by a refused sheet */
    assert_int_equal(hld_cues_find(&c, "engine")->nbinds, 4);
    /* a sheet that redefines the cue says all of it: its bindings too */
    assert_int_equal(load(&c, "[cue engine]\nsound = idle\n", err, sizeof err), 0);
    assert_int_equal(hld_cues_find(&c, "engine")->nbinds, 0);
    hld_cues_close(&c);
    hld_params_close(&P);
    /* without a parameter table (a caller that has none) parameters are refused */
    hld_cues_init(&c, 1);
    assert_int_not_equal(load(&c, "[parameter p] 0 1 0 0\n", err, sizeof err), 0);
    assert_non_null(strstr(err, "not supported"));
    hld_cues_close(&c);
}

/* A gone process's parameters (owner HLD_OWNER_GONE) are released once
 * nothing holds their index: a named cue's binding or a scheduled PARAM
 * keeps one; a released one loses its name and scoped values, and the next
 * definition takes its index. */
static void test_release(void **state) {
    (void)state;
    hld_cues_t c;
    hld_params_t P;
    tables_open(&c, &P);
    char err[256];
    assert_int_equal(load(&c,
                          "[parameter a] 0 1 0 0\n[parameter b] 0 1 0 0\n[parameter c] 0 1 0 0\n"
                          "[cue x]\nsound = s\nbind = a gain 0:0 1:-6\n",
                          err, sizeof err),
                     0);
    hld_param_t *a = hld_params_find(&P, "a"), *b = hld_params_find(&P, "b");
    hld_param_t *cp = hld_params_find(&P, "c");
    assert_int_equal(hld_params_set(&P, b, HL_PSCOPE_VOICE, 5, NULL, 0.5f, 7), 0);
    hl_param_t m = {.scope = HL_PSCOPE_GLOBAL, .value = 1.0f};
    assert_int_equal(hld_params_schedule(&P, 1000, &m, cp->index, 0, 7), 0);
    assert_int_equal(hld_params_release(&P, &c), 0); /* nobody's gone yet */
    a->owner = b->owner = cp->owner = HLD_OWNER_GONE;
    const uint32_t bi = b->index;
    assert_int_equal(hld_params_release(&P, &c), 2); /* a: cue x binds it; c: scheduled */
    assert_null(hld_params_find(&P, "b"));
    assert_int_equal(P.nent, 0);
    assert_int_equal(P.npfree, 1);
    assert_int_equal(hld_params_room(&P), HLD_MAX_PARAMS - 2);
    hl_param_def_t d = {.name = "d", .min = 0, .max = 1};
    hld_param_t *dp = NULL;
    assert_int_equal(hld_params_define(&P, &d, NULL, 3, &dp), 0);
    assert_int_equal(dp->index, bi); /* b's index again */
    assert_ptr_equal(hld_params_find(&P, "d"), dp);
    assert_int_equal(P.n, 3);
    /* the cue goes (no voice), the schedule comes due: both released */
    assert_int_equal(hld_cues_orphan(&c, 0), 1);
    uint8_t none[HLD_MAX_CUES] = {0}, nocat[HLD_MAX_CATEGORIES] = {0};
    assert_int_equal(hld_cues_release(&c, none, nocat), 0);
    hld_params_due(&P, 1000);
    assert_int_equal(hld_params_release(&P, &c), 0);
    assert_int_equal(P.npfree, 2);
    assert_null(hld_params_find(&P, "a"));
    assert_ptr_equal(hld_params_find(&P, "d"), dp);
    hld_cues_close(&c);
    hld_params_close(&P);
}

/* A cue sheet's `cone`, `attenuation`, `distance-lp` and `distance-send`
 * keys (cue_spatial.c): what CONE and ATTEN (kinds 0, 1, 2) set, the same
 * checks, and a sheet that redefines the cue without them clears them. */
static void test_sheet_spatial(void **state) {
    (void)state;
    hld_cues_t c;
    hld_cues_init(&c, 1);
    char err[256] = "";
    int rc = load(&c,
                  "[cue horn]\nsound = s\ncone = 0,0,1 60 180 0.25 2000\n"
                  "attenuation = 1:0 10:-12 40:-40\n"
                  "distance-lp = 2:20000 30:800\ndistance-send = 0:-20 25:0\n"
                  "[cue bell]\nsound = s\ncone = 1,0,0 30 90 0.5\n",
                  err, sizeof err);
    if (rc) fail_msg("%s", err);
    const hld_cue_t *h = hld_cues_find(&c, "horn"), *b = hld_cues_find(&c, "bell");
    const float want[7] = {0, 0, 1, 60, 180, 0.25f, 2000};
    assert_memory_equal(h->cone, want, sizeof want);
    assert_int_equal(h->curve_n, 3);
    assert_float_equal(h->curve_d[1], 10.0f, 0.0f);
    assert_float_equal(h->curve_db[2], -40.0f, 0.0f);
    assert_int_equal(h->dist_lp.n, 2);
    assert_float_equal(h->dist_lp.v[1], 800.0f, 0.0f);
    assert_int_equal(h->dist_send.n, 2);
    assert_float_equal(h->dist_send.d[1], 25.0f, 0.0f);
    assert_float_equal(h->dist_send.v[0], -20.0f, 0.0f);
    assert_float_equal(b->cone[6], 0.0f, 0.0f); /* no outer low-pass */
    assert_int_equal(b->dist_lp.n + b->dist_send.n, 0);
    assert_int_equal(b->curve_n, 0);
    static const bad_sheet_t bad[] = {
        {"[cue x]\nsound = s\ncone = 0,0 60 90 0.5\n", "X,Y,Z INNER OUTER"},
        {"[cue x]\nsound = s\ncone = 0,0,1 90 60 0.5\n", "inner_deg"},
        {"[cue x]\nsound = s\ncone = 0,0,1 60 90 0.5 -3\n", "outer_lp_hz"},
        {"[cue x]\nsound = s\ncone = 0,0,1 60 90 0.5 1000 7\n", "X,Y,Z INNER OUTER"},
        {"[cue x]\nsound = s\ncone = 0,0,1 60 90 0.5\ncone = 0,0,1 60 90 0.5\n",
         "cone: already set at line 3"},
        {"[cue x]\nsound = s\nattenuation = 5:0 1:-6\n", "increasing"},
        {"[cue x]\nsound = s\nattenuation = 1:0 2\n", "D:DB"},
        {"[cue x]\nsound = s\nattenuation = 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0\n", "at most 8"},
        {"[cue x]\nsound = s\ndistance-lp = 1:5\n", "[10, 96000] Hz"},
        {"[cue x]\nsound = s\ndistance-lp = 1:500 2\n", "D:HZ"},
        {"[cue x]\nsound = s\ndistance-send = 1:0 1:-6\n", "increasing"},
        {"[cue x]\nsound = s\ndistance-send = 1:30\n", "[-144, +24]"},
        {"[cue x]\nsound = s\ndistance-send = 1:0\ndistance-send = 2:0\n",
         "distance-send: already set at line 3"},
        {"[category k]\ncone = 0,0,1 60 90 0.5\n", "unknown key 'cone'"},
    };
    expect_refused(&c, bad, sizeof bad / sizeof bad[0]);
    assert_int_equal(hld_cues_find(&c, "horn")->curve_n, 3); /* refused sheets change nothing */
    assert_int_equal(load(&c, "[cue horn]\nsound = s\n", err, sizeof err), 0);
    assert_float_equal(hld_cues_find(&c, "horn")->cone[2], 0.0f, 0.0f);
    assert_int_equal(hld_cues_find(&c, "horn")->curve_n, 0);
    assert_int_equal(hld_cues_find(&c, "horn")->dist_lp.n, 0);
    assert_int_equal(hld_cues_find(&c, "horn")->dist_send.n, 0);
    hld_cues_close(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sheet_spatial),
        cmocka_unit_test(test_release),
        cmocka_unit_test(test_curve_linear),
        cmocka_unit_test(test_curve_shapes),
        cmocka_unit_test(test_switch_and_blend),
        cmocka_unit_test(test_seek_and_scopes),
        cmocka_unit_test(test_scheduled),
        cmocka_unit_test(test_bind_validation),
        cmocka_unit_test(test_sheet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
