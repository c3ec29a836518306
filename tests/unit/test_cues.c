/*
 * test_cues.c - unit tests of the cue and category table (daemon/assets/cues.c):
 * define and redefine in place (stable index and pointer, counters kept, pick
 * state reset when the variation count changes, category re-resolved), every
 * validation rule just inside and just outside its limits, ENOCATEGORY and the
 * caps, hashed lookup of 4096 cues, a gone owner's entries orphaned
 * (invisible), released once unused and their places reused, the three pick modes, the gain and
 * pitch rolls, and the INI loader: a good file, each kind of error with its exact "path:line:"
 * prefix and nothing applied after it, a FIFO refused without blocking and a missing file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cues.h"

static void good_cue(hl_cue_t *m, const char *name) {
    hl_cue_init(m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->nsounds = 1;
    strcpy(m->sounds[0], "snd");
}

static hld_cues_t *new_cues(void) {
    hld_cues_t *c = malloc(sizeof *c);
    assert_non_null(c);
    hld_cues_init(c, 0);
    return c;
}

static void free_cues(hld_cues_t *c) {
    hld_cues_close(c);
    free(c);
}

/* ---- define / redefine ------------------------------------------------- */

static void test_define_redefine(void **state) {
    (void)state;
    hld_cues_t *c = new_cues();
    hl_category_t cat;
    hl_category_init(&cat);
    strcpy(cat.name, "weapons");
    hld_category_t *pc = NULL, *pc2 = NULL;
    assert_int_equal(hld_cues_define_category(c, &cat, &pc, NULL), 0);
    strcpy(cat.name, "ui");
    assert_int_equal(hld_cues_define_category(c, &cat, &pc2, NULL), 0);
    assert_int_equal(pc->index, 0);
    assert_int_equal(pc2->index, 1);

    hl_cue_t m;
    good_cue(&m, "first");
    hld_cue_t *a = NULL, *b = NULL, *again = NULL;
    assert_int_equal(hld_cues_define(c, &m, &a, NULL), 0);
    good_cue(&m, "gun");
    m.nsounds = 3;
    strcpy(m.sounds[1], "s2");
    strcpy(m.sounds[2], "s3");
    m.pick = HL_PICK_SEQUENCE;
    strcpy(m.category, "weapons");
    assert_int_equal(hld_cues_define(c, &m, &b, NULL), 0);
    assert_int_equal(c->ncues, 2);
    assert_int_equal(a->index, 0);
    assert_int_equal(b->index, 1);
    assert_ptr_equal(b->cat, pc);
    assert_int_equal(b->last_pick, -1);
    assert_int_equal(hld_cue_pick(c, b), 0);
    assert_int_equal(hld_cue_pick(c, b), 1);
    b->n.plays = 7;
    b->n.active = 2;
    b->last_play_ns = 1234;

    /* same nsounds: pointer, index, counters and pick state kept */
    m.gain_db = -6.0f;
    strcpy(m.category, "ui");
    assert_int_equal(hld_cues_define(c, &m, &again, NULL), 0);
    assert_ptr_equal(again, b);
    assert_int_equal(c->ncues, 2);
    assert_int_equal(b->index, 1);
    assert_int_equal(b->n.plays, 7);
    assert_int_equal(b->n.active, 2);
    assert_int_equal(b->last_play_ns, 1234);
    assert_true(b->def.gain_db == -6.0f);
    assert_ptr_equal(b->cat, pc2);
    assert_int_equal(b->seq_next, 2);
    assert_int_equal(hld_cue_pick(c, b), 2);
    assert_int_equal(hld_cue_pick(c, b), 0);
    assert_int_equal(b->seq_next, 1);

    /* fewer sounds: pick state reset, category dropped */
    m.nsounds = 2;
    m.category[0] = '\0';
    assert_int_equal(hld_cues_define(c, &m, &again, NULL), 0);
    assert_ptr_equal(again, b);
    assert_int_equal(b->seq_next, 0);
    assert_int_equal(b->last_pick, -1);
    assert_null(b->cat);
    assert_int_equal(b->n.plays, 7);
    assert_int_equal(hld_cue_pick(c, b), 0);

    /* redefining a category keeps its entry and the cues pointing at it */
    strcpy(cat.name, "weapons");
    cat.max_instances = 4;
    pc->n.plays = 3;
    assert_int_equal(hld_cues_define_category(c, &cat, &pc2, NULL), 0);
    assert_ptr_equal(pc2, pc);
    assert_int_equal(pc->index, 0);
    assert_int_equal(pc->n.plays, 3);
    assert_int_equal(pc->def.max_instances, 4);
    assert_int_equal(c->ncats, 2);
    assert_ptr_equal(hld_cues_find(c, "gun"), b);
    assert_ptr_equal(hld_cues_find_category(c, "weapons"), pc);
    free_cues(c);
}

/* ---- validation at the edges ------------------------------------------- */

typedef enum { F32, I32, U32, U8 } ftype_t;

typedef struct {
    const char *prefix; /* of *why when rejected */
    size_t off;
    ftype_t type;
    double limit;
    int ok_below, ok_at, ok_above; /* limit -1 step, limit, limit +1 step */
    /* optional second field set first (for dependent limits) */
    size_t off2;
    float v2;
    const char *prefix_above; /* of *why at limit +1 step when it differs (else prefix) */
} vcase_t;

#define CF(f) offsetof(hl_cue_t, f)
#define GF(f) offsetof(hl_category_t, f)
#define NONE  ((size_t)-1)

static const vcase_t k_cue_cases[] = {
    {"sounds:", CF(nsounds), U8, 1, 0, 1, 1, NONE, 0, NULL},
    {"sounds:", CF(nsounds), U8, 16, 1, 1, 0, NONE, 0, NULL},
    {"pick:", CF(pick), U8, HL_PICK_SEQUENCE, 1, 1, 0, NONE, 0, NULL},
    {"gain_db:", CF(gain_db), F32, 24, 1, 1, 0, NONE, 0, NULL},
    {"gain_rand_db:", CF(gain_rand_db), F32, 0, 0, 1, 1, NONE, 0, NULL},
    {"gain_rand_db:", CF(gain_rand_db), F32, 48, 1, 1, 0, NONE, 0, NULL},
    {"pitch:", CF(pitch), F32, 0.25, 0, 1, 1, NONE, 0, NULL},
    {"pitch:", CF(pitch), F32, 4, 1, 1, 0, NONE, 0, NULL},
    {"pitch_rand_cents:", CF(pitch_rand_cents), F32, 0, 0, 1, 1, NONE, 0, NULL},
    {"pitch_rand_cents:", CF(pitch_rand_cents), F32, 2400, 1, 1, 0, NONE, 0, NULL},
    {"priority:", CF(priority), I32, -1000, 0, 1, 1, NONE, 0, NULL},
    {"priority:", CF(priority), I32, 1000, 1, 1, 0, NONE, 0, NULL},
    {"pan:", CF(pan), F32, -1, 0, 1, 1, NONE, 0, NULL},
    {"pan:", CF(pan), F32, 1, 1, 1, 0, NONE, 0, NULL},
    {"min_distance:", CF(min_distance), F32, 0, 0, 0, 1, NONE, 0, NULL},
    /* with max_distance 1e6, min_distance must stay below it (and <= 1e6) */
    {"max_distance:", CF(min_distance), F32, 1e6, 1, 0, 0, CF(max_distance), 1e6f, "min_distance:"},
    {"max_distance:", CF(max_distance), F32, 1, 0, 0, 1, NONE, 0, NULL}, /* min_distance 1 */
    {"max_distance:", CF(max_distance), F32, 1e6, 1, 1, 0, NONE, 0, NULL},
    {"rolloff:", CF(rolloff), F32, 0, 0, 1, 1, NONE, 0, NULL},
    {"model:", CF(model), U8, HL_DIST_EXPONENTIAL, 1, 1, 0, NONE, 0, NULL},
    {"fade_in_ms:", CF(fade_in_ms), F32, -1, 0, 1, 0, NONE, 0, NULL},
    {"fade_in_ms:", CF(fade_in_ms), F32, 0, 0, 1, 1, NONE, 0, NULL},
    {"fade_in_ms:", CF(fade_in_ms), F32, 60000, 1, 1, 0, NONE, 0, NULL},
    {"fade_out_ms:", CF(fade_out_ms), F32, -1, 0, 1, 0, NONE, 0, NULL},
    {"fade_out_ms:", CF(fade_out_ms), F32, 0, 0, 1, 1, NONE, 0, NULL},
    {"fade_out_ms:", CF(fade_out_ms), F32, 60000, 1, 1, 0, NONE, 0, NULL},
    {"fade_curve:", CF(fade_curve), U8, HL_CURVE_LOG, 1, 1, 0, NONE, 0, NULL},
    {"max_instances:", CF(max_instances), U32, 65536, 1, 1, 0, NONE, 0, NULL},
    {"overflow:", CF(overflow), U8, HL_OVERFLOW_STEAL_FARTHEST, 1, 1, 0, NONE, 0, NULL},
    {"min_interval_ms:", CF(min_interval_ms), F32, 0, 0, 1, 1, NONE, 0, NULL},
    {"min_interval_ms:", CF(min_interval_ms), F32, 60000, 1, 1, 0, NONE, 0, NULL},
    {"beyond:", CF(beyond), U8, HL_BEYOND_CLAMP, 1, 1, 0, NONE, 0, NULL},
    {"virt:", CF(virt), U8, HL_VIRT_KILL, 1, 1, 0, NONE, 0, NULL},
    {"doppler:", CF(doppler), F32, 0, 0, 1, 1, NONE, 0, NULL},
    {"doppler:", CF(doppler), F32, 10, 1, 1, 0, NONE, 0, NULL},
};

static const vcase_t k_cat_cases[] = {
    {"max_instances:", GF(max_instances), U32, 65536, 1, 1, 0, NONE, 0, NULL},
    {"overflow:", GF(overflow), U8, HL_OVERFLOW_STEAL_FARTHEST, 1, 1, 0, NONE, 0, NULL},
    {"fade_out_ms:", GF(fade_out_ms), F32, -1, 0, 1, 0, NONE, 0, NULL},
    {"fade_out_ms:", GF(fade_out_ms), F32, 0, 0, 1, 1, NONE, 0, NULL},
    {"fade_out_ms:", GF(fade_out_ms), F32, 60000, 1, 1, 0, NONE, 0, NULL},
    {"fade_curve:", GF(fade_curve), U8, HL_CURVE_LOG, 1, 1, 0, NONE, 0, NULL},
};

/* Writes limit stepped by step (-1, 0, +1: one float ulp or one integer) into obj. */
static void set_field(void *obj, const vcase_t *t, int step) {
    char *p = (char *)obj + t->off;
    float f = (float)t->limit;
    int64_t i = (int64_t)t->limit + step;
    switch (t->type) {
    case F32:
        if (step) f = nextafterf(f, step < 0 ? -INFINITY : INFINITY);
        memcpy(p, &f, sizeof f);
        break;
    case I32: *(int32_t *)p = (int32_t)i; break;
    case U32: *(uint32_t *)p = (uint32_t)i; break;
    case U8: *(uint8_t *)p = (uint8_t)i; break;
    }
}

static void run_cases(const vcase_t *cases, size_t n, int is_cat) {
    for (size_t k = 0; k < n; k++) {
        const vcase_t *t = &cases[k];
        const int ok[3] = {t->ok_below, t->ok_at, t->ok_above};
        for (int step = -1; step <= 1; step++) {
            if (t->type != F32 && t->limit + step < 0) continue; /* unsigned: no value below 0 */
            hld_cues_t *c = new_cues();
            hl_cue_t m;
            hl_category_t g;
            good_cue(&m, "c");
            m.nsounds = HL_MAX_CUE_SOUNDS; /* so nsounds cases never name empty sounds */
            for (int s = 0; s < HL_MAX_CUE_SOUNDS; s++)
                snprintf(m.sounds[s], sizeof m.sounds[s], "s%d", s);
            m.nsounds = 1;
            hl_category_init(&g);
            strcpy(g.name, "g");
            void *obj = is_cat ? (void *)&g : (void *)&m;
            if (t->off2 != NONE) memcpy((char *)obj + t->off2, &t->v2, sizeof t->v2);
            set_field(obj, t, step);
            const char *why = NULL;
            int rc = is_cat ? hld_cues_define_category(c, &g, NULL, &why)
                            : hld_cues_define(c, &m, NULL, &why);
            if (ok[step + 1]) {
                if (rc != 0)
                    fail_msg("%s limit %g step %d: rejected (%s)", t->prefix, t->limit, step,
                             why ? why : "?");
                assert_int_equal(is_cat ? c->ncats : c->ncues, 1);
            } else {
                if (rc != HELIOD_EINVAL)
                    fail_msg("%s limit %g step %d: rc %d, want EINVAL", t->prefix, t->limit, step,
                             rc);
                const char *want = step > 0 && t->prefix_above ? t->prefix_above : t->prefix;
                assert_non_null(why);
                if (strncmp(why, want, strlen(want)) != 0)
                    fail_msg("%s limit %g step %d: why '%s'", t->prefix, t->limit, step, why);
                assert_int_equal(is_cat ? c->ncats : c->ncues, 0);
            }
            free_cues(c);
        }
    }
}

static void test_validate_cue_limits(void **state) {
    (void)state;
    run_cases(k_cue_cases, sizeof k_cue_cases / sizeof k_cue_cases[0], 0);
}

static void test_validate_category_limits(void **state) {
    (void)state;
    run_cases(k_cat_cases, sizeof k_cat_cases / sizeof k_cat_cases[0], 1);
}

typedef struct {
    const char *what;
    void (*mutate)(hl_cue_t *m);
    const char *prefix;
} vmut_t;

static void m_name_empty(hl_cue_t *m) {
    m->name[0] = '\0';
}
static void m_name_space(hl_cue_t *m) {
    strcpy(m->name, "a b");
}
static void m_name_slash(hl_cue_t *m) {
    memset(m->name, 'n', HL_MAX_NAME); /* longest name, but with a '/' at its end */
    m->name[HL_MAX_NAME] = '\0';
    m->name[HL_MAX_NAME - 1] = '/';
}
static void m_sound_bad(hl_cue_t *m) {
    strcpy(m->sounds[0], "x/y");
}
static void m_sound_empty2(hl_cue_t *m) {
    m->nsounds = 2;
    m->sounds[1][0] = '\0';
}
static void m_flags(hl_cue_t *m) {
    m->flags = HL_CUE_MASK + 1u;
}
static void m_bus_bad(hl_cue_t *m) {
    strcpy(m->bus, "bus!");
}
static void m_cat_bad(hl_cue_t *m) {
    strcpy(m->category, "c d");
}
static void m_gain_nan(hl_cue_t *m) {
    m->gain_db = NAN;
}
static void m_gain_ninf(hl_cue_t *m) {
    m->gain_db = -INFINITY;
}
static void m_rolloff_inf(hl_cue_t *m) {
    m->rolloff = INFINITY;
}
static void m_doppler_nan(hl_cue_t *m) {
    m->doppler = NAN;
}
static void m_interval_nan(hl_cue_t *m) {
    m->min_interval_ms = NAN;
}

static void test_validate_cue_other(void **state) {
    (void)state;
    static const vmut_t cases[] = {
        {"empty name", m_name_empty, "name:"},
        {"name with space", m_name_space, "name:"},
        {"bad char in name", m_name_slash, "name:"},
        {"bad sound name", m_sound_bad, "sounds:"},
        {"empty second sound", m_sound_empty2, "sounds:"},
        {"unknown flag", m_flags, "flags:"},
        {"bad bus name", m_bus_bad, "bus:"},
        {"bad category name", m_cat_bad, "category:"},
        {"gain NaN", m_gain_nan, "gain_db:"},
        {"gain -inf", m_gain_ninf, "gain_db:"},
        {"rolloff inf", m_rolloff_inf, "rolloff:"},
        {"doppler NaN", m_doppler_nan, "doppler:"},
        {"interval NaN", m_interval_nan, "min_interval_ms:"},
    };
    hld_cues_t *c = new_cues();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hl_cue_t m;
        good_cue(&m, "c");
        cases[i].mutate(&m);
        const char *why = NULL;
        int rc = hld_cues_define(c, &m, NULL, &why);
        if (rc != HELIOD_EINVAL) fail_msg("%s: rc %d", cases[i].what, rc);
        if (!why || strncmp(why, cases[i].prefix, strlen(cases[i].prefix)) != 0)
            fail_msg("%s: why '%s'", cases[i].what, why ? why : "(null)");
    }
    assert_int_equal(c->ncues, 0);
    /* flags within the mask and a valid bus are fine; the bus need not exist */
    hl_cue_t m;
    good_cue(&m, "c");
    m.flags = HL_CUE_MASK;
    strcpy(m.bus, "nosuchbus");
    assert_int_equal(hld_cues_define(c, &m, NULL, NULL), 0);
    hl_category_t g;
    hl_category_init(&g);
    strcpy(g.name, "bad name");
    const char *why = NULL;
    assert_int_equal(hld_cues_define_category(c, &g, NULL, &why), HELIOD_EINVAL);
    assert_string_equal(why, "name: invalid category name");
    assert_int_equal(c->ncats, 0);
    free_cues(c);
}

static void test_no_category(void **state) {
    (void)state;
    hld_cues_t *c = new_cues();
    hl_cue_t m;
    good_cue(&m, "step");
    strcpy(m.category, "footsteps");
    const char *why = NULL;
    hld_cue_t *out = (hld_cue_t *)&why; /* must be reset to NULL */
    assert_int_equal(hld_cues_define(c, &m, &out, &why), HELIOD_ENOCATEGORY);
    assert_string_equal(why, "category: no such category");
    assert_null(out);
    assert_int_equal(c->ncues, 0);
    assert_null(hld_cues_find(c, "step"));
    hl_category_t g;
    hl_category_init(&g);
    strcpy(g.name, "footsteps");
    hld_category_t *pg;
    assert_int_equal(hld_cues_define_category(c, &g, &pg, NULL), 0);
    assert_int_equal(hld_cues_define(c, &m, &out, &why), 0);
    assert_ptr_equal(out->cat, pg);
    free_cues(c);
}

/* ---- lookup and caps --------------------------------------------------- */

static void test_lookup_4096(void **state) {
    (void)state;
    hld_cues_t *c = new_cues();
    hl_cue_t m;
    char name[32];
    for (int i = 0; i < HLD_MAX_CUES; i++) {
        snprintf(name, sizeof name, "cue.%d", i);
        good_cue(&m, name);
        assert_int_equal(hld_cues_define(c, &m, NULL, NULL), 0);
    }
    assert_int_equal(c->ncues, HLD_MAX_CUES);
    for (int i = 0; i < HLD_MAX_CUES; i++) {
        snprintf(name, sizeof name, "cue.%d", i);
        hld_cue_t *e = hld_cues_find(c, name);
        assert_non_null(e);
        assert_int_equal(e->index, i);
        assert_string_equal(e->def.name, name);
        assert_ptr_equal(c->cues[i], e);
    }
    assert_null(hld_cues_find(c, "cue.4096"));
    assert_null(hld_cues_find(c, "cue."));
    assert_null(hld_cues_find(c, ""));
    assert_null(hld_cues_find(c, NULL));
    /* full: a new name is refused, a redefinition is not */
    good_cue(&m, "one.more");
    const char *why = NULL;
    assert_int_equal(hld_cues_define(c, &m, NULL, &why), HELIOD_ENOMEM);
    assert_non_null(why);
    good_cue(&m, "cue.17");
    m.gain_db = -3.0f;
    assert_int_equal(hld_cues_define(c, &m, NULL, NULL), 0);
    assert_true(hld_cues_find(c, "cue.17")->def.gain_db == -3.0f);
    assert_int_equal(c->ncues, HLD_MAX_CUES);

    hl_category_t g;
    for (int i = 0; i < HLD_MAX_CATEGORIES; i++) {
        hl_category_init(&g);
        snprintf(g.name, sizeof g.name, "cat%d", i);
        assert_int_equal(hld_cues_define_category(c, &g, NULL, NULL), 0);
    }
    for (int i = 0; i < HLD_MAX_CATEGORIES; i++) {
        snprintf(name, sizeof name, "cat%d", i);
        assert_int_equal(hld_cues_find_category(c, name)->index, i);
    }
    strcpy(g.name, "extra");
    assert_int_equal(hld_cues_define_category(c, &g, NULL, NULL), HELIOD_ENOMEM);
    assert_null(hld_cues_find_category(c, "extra"));
    free_cues(c);
}

/* ---- a gone owner's entries: orphaned, then released and reused ---------- */

static void test_orphan_release_reuse(void **state) {
    (void)state;
    hld_cues_t *c = new_cues();
    hl_cue_t m;
    char name[32];
    hld_cue_t *e = NULL;
    /* the table full: half of it owner 7's, one of those in its category */
    hl_category_t g;
    hl_category_init(&g);
    strcpy(g.name, "gone.cat");
    hld_category_t *gc = NULL;
    assert_int_equal(hld_cues_define_category(c, &g, &gc, NULL), 0);
    gc->owner = 7;
    for (int i = 0; i < HLD_MAX_CUES; i++) {
        snprintf(name, sizeof name, "cue.%d", i);
        good_cue(&m, name);
        assert_int_equal(hld_cues_define(c, &m, &e, NULL), 0);
        e->owner = i % 2 ? 7 : 0;
    }
    good_cue(&m, "cue.0"); /* another owner's cue (the daemon's) in 7's category */
    strcpy(m.category, "gone.cat");
    assert_int_equal(hld_cues_define_in(c, &m, c->cues[0], gc, NULL, NULL), 0);
    good_cue(&m, "one.more");
    assert_int_equal(hld_cues_define(c, &m, NULL, NULL), HELIOD_ENOMEM);
    /* 7 goes: its entries vanish from every lookup at once */
    assert_int_equal(hld_cues_orphan(c, 7), HLD_MAX_CUES / 2 + 1);
    assert_null(hld_cues_find(c, "cue.1"));
    assert_null(hld_cues_find_category(c, "gone.cat"));
    assert_non_null(hld_cues_find(c, "cue.2"));
    /* a voice still plays through cue.3 (and its category): those stay */
    static uint8_t cue_ref[HLD_MAX_CUES], cat_ref[HLD_MAX_CATEGORIES];
    cue_ref[3] = 1;
    cat_ref[gc->index] = 1;
    assert_int_equal(hld_cues_release(c, cue_ref, cat_ref), 2);
    assert_int_equal(hld_cues_count(c), HLD_MAX_CUES / 2 + 1);
    assert_int_equal(hld_cues_count_categories(c), 1);
    assert_string_equal(c->cues[3]->def.name, "cue.3"); /* its pointer still valid */
    assert_ptr_equal(c->cues[0]->cat, gc);
    /* the freed places serve again, with their memory and indices */
    for (int i = 0; i < HLD_MAX_CUES / 2 - 1; i++) {
        snprintf(name, sizeof name, "new.%d", i);
        good_cue(&m, name);
        assert_int_equal(hld_cues_define(c, &m, &e, NULL), 0);
        assert_true(e->index % 2 == 1 && e->index != 3);
        assert_ptr_equal(c->cues[e->index], e);
        assert_int_equal(e->owner, 0);
    }
    assert_int_equal(c->ncues, HLD_MAX_CUES);
    good_cue(&m, "one.more");
    assert_int_equal(hld_cues_define(c, &m, NULL, NULL), HELIOD_ENOMEM);
    for (int i = 0; i < HLD_MAX_CUES / 2 - 1; i++) {
        snprintf(name, sizeof name, "new.%d", i);
        assert_non_null(hld_cues_find(c, name));
    }
    assert_non_null(hld_cues_find(c, "cue.4094"));
    /* the voice ends: the last two go; the other owner's cue leaves the category */
    memset(cue_ref, 0, sizeof cue_ref);
    memset(cat_ref, 0, sizeof cat_ref);
    assert_int_equal(hld_cues_release(c, cue_ref, cat_ref), 0);
    assert_null(c->cues[0]->cat);
    assert_string_equal(c->cues[0]->def.category, "");
    assert_ptr_equal(hld_cues_find(c, "cue.0"), c->cues[0]);
    assert_int_equal(hld_cues_count(c), HLD_MAX_CUES - 1);
    assert_int_equal(hld_cues_count_categories(c), 0);
    assert_int_equal(hld_cues_define_category(c, &g, &gc, NULL), 0);
    assert_int_equal(gc->index, 0); /* its index again */
    assert_ptr_equal(hld_cues_find_category(c, "gone.cat"), gc);
    free_cues(c);
}

/* ---- picks and rolls --------------------------------------------------- */

static hld_cue_t *define_n(hld_cues_t *c, const char *name, int n, uint8_t pick) {
    hl_cue_t m;
    good_cue(&m, name);
    m.nsounds = (uint8_t)n;
    for (int i = 0; i < n; i++)
        snprintf(m.sounds[i], sizeof m.sounds[i], "s%d", i);
    m.pick = pick;
    hld_cue_t *e = NULL;
    assert_int_equal(hld_cues_define(c, &m, &e, NULL), 0);
    return e;
}

static void test_pick_sequence(void **state) {
    (void)state;
    hld_cues_t *c = new_cues();
    hld_cue_t *e = define_n(c, "seq", 4, HL_PICK_SEQUENCE);
    for (uint32_t i = 0; i < 12; i++)
        assert_int_equal(hld_cue_pick(c, e), i % 4);
    hld_cue_t *one = define_n(c, "one", 1, HL_PICK_SEQUENCE);
    for (int i = 0; i < 5; i++)
        assert_int_equal(hld_cue_pick(c, one), 0);
    free_cues(c);
}

static void test_pick_shuffle(void **state) {
    (void)state;
    hld_cues_t *c = new_cues();
    hld_cue_t *e = define_n(c, "shuf", 3, HL_PICK_SHUFFLE);
    uint32_t count[3] = {0}, prev = hld_cue_pick(c, e);
    for (int i = 0; i < 1000; i++) {
        uint32_t p = hld_cue_pick(c, e);
        assert_true(p < 3);
        assert_int_not_equal(p, prev);
        count[p]++;
        prev = p;
    }
    for (int i = 0; i < 3; i++)
        assert_true(count[i] > 200); /* ~333 each */
    hld_cue_t *one = define_n(c, "one", 1, HL_PICK_SHUFFLE);
    for (int i = 0; i < 5; i++)
        assert_int_equal(hld_cue_pick(c, one), 0);
    free_cues(c);
}

static void test_pick_random(void **state) {
    (void)state;
    hld_cues_t *c = new_cues();
    hld_cue_t *e = define_n(c, "rnd", 5, HL_PICK_RANDOM);
    uint32_t count[5] = {0}, repeats = 0, prev = 99;
    for (int i = 0; i < 5000; i++) {
        uint32_t p = hld_cue_pick(c, e);
        assert_true(p < 5);
        count[p]++;
        repeats += p == prev;
        prev = p;
    }
    for (int i = 0; i < 5; i++)
        assert_true(count[i] > 800); /* ~1000 each */
    assert_true(repeats > 0);        /* random may repeat, unlike shuffle */
    /* same seed, same sequence; different seed, different sequence */
    hld_cues_t *a = new_cues(), *b = new_cues(), *d = new_cues();
    hld_cues_close(d);
    hld_cues_init(d, 42);
    hld_cue_t *ea = define_n(a, "r", 16, HL_PICK_RANDOM), *eb = define_n(b, "r", 16, 0),
              *ed = define_n(d, "r", 16, 0);
    int same_ab = 1, same_ad = 1;
    for (int i = 0; i < 32; i++) {
        uint32_t pa = hld_cue_pick(a, ea);
        same_ab &= pa == hld_cue_pick(b, eb);
        same_ad &= pa == hld_cue_pick(d, ed);
    }
    assert_true(same_ab);
    assert_false(same_ad);
    free_cues(a);
    free_cues(b);
    free_cues(d);
    free_cues(c);
}

typedef struct {
    float gain, gain_rand, pitch, cents;
    float gmin, gmax, pmin, pmax; /* bounds every roll must respect */
} roll_case_t;

static void test_rolls(void **state) {
    (void)state;
    static const roll_case_t cases[] = {
        {-3.0f, 2.0f, 1.0f, 1200.0f, -5.0f, -1.0f, 0.5f, 2.0f},
        {24.0f, 48.0f, 0.25f, 2400.0f, -24.0f, 72.0f, 0.25f, 1.0f}, /* pitch clamped below */
        {0.0f, 0.5f, 4.0f, 100.0f, -0.5f, 0.5f, 3.7754f, 4.0f},     /* clamped above */
        {-6.0f, 0.0f, 1.5f, 0.0f, -6.0f, -6.0f, 1.5f, 1.5f},        /* exact */
    };
    hld_cues_t *c = new_cues();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const roll_case_t *t = &cases[k];
        hl_cue_t m;
        good_cue(&m, "roll");
        m.gain_db = t->gain;
        m.gain_rand_db = t->gain_rand;
        m.pitch = t->pitch;
        m.pitch_rand_cents = t->cents;
        hld_cue_t *e;
        assert_int_equal(hld_cues_define(c, &m, &e, NULL), 0);
        float glo = INFINITY, ghi = -INFINITY, plo = INFINITY, phi = -INFINITY;
        for (int i = 0; i < 20000; i++) {
            float g = hld_cue_roll_gain_db(c, e), p = hld_cue_roll_pitch(c, e);
            if (g < t->gmin - 1e-4f || g > t->gmax + 1e-4f)
                fail_msg("case %zu: gain %g outside [%g, %g]", k, g, t->gmin, t->gmax);
            if (p < t->pmin - 1e-4f || p > t->pmax + 1e-4f || p < HL_MIN_PITCH || p > HL_MAX_PITCH)
                fail_msg("case %zu: pitch %g outside [%g, %g]", k, p, t->pmin, t->pmax);
            glo = fminf(glo, g);
            ghi = fmaxf(ghi, g);
            plo = fminf(plo, p);
            phi = fmaxf(phi, p);
        }
        if (t->gain_rand == 0.0f) {
            /* exact, bit for bit */
            assert_true(glo == t->gain && ghi == t->gain);
        } else {
            /* the range is used up to (nearly) both ends */
            assert_true(glo < t->gmin + 0.02f * t->gain_rand);
            assert_true(ghi > t->gmax - 0.02f * t->gain_rand);
        }
        if (t->cents == 0.0f) {
            assert_true(plo == t->pitch && phi == t->pitch);
        } else {
            assert_true(plo < t->pmin * 1.02f);
            assert_true(phi > t->pmax * 0.98f);
        }
    }
    free_cues(c);
}

/* ---- INI files --------------------------------------------------------- */

typedef struct {
    char dir[64];
    char path[128];
    hld_cues_t *c;
} ini_fx_t;

static int ini_setup(void **state) {
    ini_fx_t *f = calloc(1, sizeof *f);
    if (!f) return -1;
    strcpy(f->dir, "/tmp/test_cues.XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->path, sizeof f->path, "%s/cues.ini", f->dir);
    f->c = malloc(sizeof *f->c);
    if (!f->c) return -1;
    hld_cues_init(f->c, 0);
    *state = f;
    return 0;
}

static int ini_teardown(void **state) {
    ini_fx_t *f = *state;
    unlink(f->path);
    char fifo[160];
    snprintf(fifo, sizeof fifo, "%s/fifo", f->dir);
    unlink(fifo);
    rmdir(f->dir);
    hld_cues_close(f->c);
    free(f->c);
    free(f);
    return 0;
}

static void write_file(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    assert_int_equal(fputs(text, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
}

static const char k_good[] = "# a cue sheet\n"
                             "; another comment\n"
                             "\n"
                             "[cue gunshot]\n"
                             "  sound = gun1, gun2  \n"
                             "sound=gun3\n"
                             "pick = shuffle\n"
                             "gain = -3\n"
                             "gain-rand = 2\n"
                             "pitch = 1.1\n"
                             "pitch-rand = 50\n"
                             "bus = sfx\n"
                             "category = weapons\n"
                             "priority = 10\n"
                             "pan = -0.5\n"
                             "3d = yes\n"
                             "loop = 0\n"
                             "interp = cubic\n"
                             "min-distance = 2\n"
                             "max-distance = 80\n"
                             "rolloff = 1.5\n"
                             "model = exponential\n"
                             "fade-in = 5\n"
                             "fade-out = 120\n"
                             "fade-curve = equal-power\n"
                             "max-instances = 6\n"
                             "overflow = steal-quietest\n"
                             "min-interval = 30\n"
                             "beyond = clamp\n"
                             "virtual = restart\n"
                             "doppler = 0.5\n"
                             "lp = 5000\n"
                             "hp = 80\n"
                             "occlusion = 0.25\n"
                             "obstruction = 0.5\n"
                             "send = reverb_hall:-12, room : -6.5\n"
                             "\n"
                             "[cue click]\n"
                             "sound = ui_click\n"
                             "category = ui\n"
                             "loop = true\n"
                             "interp = sinc\n"
                             "\n"
                             "[category weapons]\n"
                             "max-instances = 8\n"
                             "overflow = fade-oldest\n"
                             "fade-out = 80\n"
                             "fade-curve = log\n"
                             "[category ui]\n";

static void test_ini_good(void **state) {
    ini_fx_t *f = *state;
    write_file(f->path, k_good);
    char err[256] = "untouched";
    uint32_t nc = 99, ng = 99;
    assert_int_equal(hld_cues_load_file(f->c, f->path, &nc, &ng, err, sizeof err), 0);
    assert_int_equal(nc, 2);
    assert_int_equal(ng, 2);
    assert_string_equal(err, "");
    hld_cue_t *g = hld_cues_find(f->c, "gunshot");
    hld_category_t *w = hld_cues_find_category(f->c, "weapons");
    assert_non_null(g);
    assert_non_null(w);
    assert_ptr_equal(g->cat, w);
    const hl_cue_t *d = &g->def;
    assert_int_equal(d->nsounds, 3);
    assert_string_equal(d->sounds[0], "gun1");
    assert_string_equal(d->sounds[1], "gun2");
    assert_string_equal(d->sounds[2], "gun3");
    assert_int_equal(d->pick, HL_PICK_SHUFFLE);
    assert_true(d->gain_db == -3.0f && d->gain_rand_db == 2.0f);
    assert_true(d->pitch == 1.1f && d->pitch_rand_cents == 50.0f);
    assert_string_equal(d->bus, "sfx");
    assert_int_equal(d->priority, 10);
    assert_true(d->pan == -0.5f);
    assert_int_equal(d->flags, HL_CUE_3D | HL_CUE_CUBIC);
    assert_true(d->min_distance == 2.0f && d->max_distance == 80.0f && d->rolloff == 1.5f);
    assert_int_equal(d->model, HL_DIST_EXPONENTIAL);
    assert_true(d->fade_in_ms == 5.0f && d->fade_out_ms == 120.0f);
    assert_int_equal(d->fade_curve, HL_CURVE_EQUAL_POWER);
    assert_int_equal(d->max_instances, 6);
    assert_int_equal(d->overflow, HL_OVERFLOW_STEAL_QUIETEST);
    assert_true(d->min_interval_ms == 30.0f);
    assert_int_equal(d->beyond, HL_BEYOND_CLAMP);
    assert_int_equal(d->virt, HL_VIRT_RESTART);
    assert_true(d->doppler == 0.5f);
    assert_true(d->post.lp_hz == 5000.0f && d->post.hp_hz == 80.0f);
    assert_true(d->post.occlusion == 0.25f && d->post.obstruction == 0.5f);
    assert_string_equal(d->post.send[0], "reverb_hall");
    assert_string_equal(d->post.send[1], "room");
    assert_true(d->post.send_db[0] == -12.0f && d->post.send_db[1] == -6.5f);
    assert_int_equal(w->def.max_instances, 8);
    assert_int_equal(w->def.overflow, HL_OVERFLOW_FADE_OLDEST);
    assert_true(w->def.fade_out_ms == 80.0f);
    assert_int_equal(w->def.fade_curve, HL_CURVE_LOG);
    hld_cue_t *k = hld_cues_find(f->c, "click");
    assert_non_null(k);
    assert_int_equal(k->def.flags, HL_CUE_LOOP | HL_CUE_SINC);
    assert_ptr_equal(k->cat, hld_cues_find_category(f->c, "ui"));
    /* defaults where the file says nothing */
    hl_category_t dflt;
    hl_category_init(&dflt);
    assert_memory_equal(&hld_cues_find_category(f->c, "ui")->def.max_instances, &dflt.max_instances,
                        sizeof dflt.max_instances);

    /* loading again redefines in place: same entries, counters kept */
    g->n.plays = 5;
    assert_int_equal(hld_cues_load_file(f->c, f->path, &nc, &ng, err, sizeof err), 0);
    assert_ptr_equal(hld_cues_find(f->c, "gunshot"), g);
    assert_int_equal(g->n.plays, 5);
    assert_int_equal(f->c->ncues, 2);
    assert_int_equal(f->c->ncats, 2);
    /* a cue may name a category that already exists (not in the file) */
    write_file(f->path, "[cue late]\nsound = x\ncategory = weapons\n");
    assert_int_equal(hld_cues_load_file(f->c, f->path, NULL, NULL, err, sizeof err), 0);
    assert_ptr_equal(hld_cues_find(f->c, "late")->cat, w);
}

typedef struct {
    const char *what;
    const char *text;
    int rc;
    unsigned line;
    const char *contains;
} ini_err_t;

static char g_long_line[9000];

static void test_ini_errors(void **state) {
    ini_fx_t *f = *state;
    /* something already defined that no error may change */
    hl_cue_t keep;
    good_cue(&keep, "keep");
    keep.gain_db = -6.0f;
    assert_int_equal(hld_cues_define(f->c, &keep, NULL, NULL), 0);
    hl_category_t kc;
    hl_category_init(&kc);
    strcpy(kc.name, "kept");
    kc.max_instances = 3;
    assert_int_equal(hld_cues_define_category(f->c, &kc, NULL, NULL), 0);

    /* 8193 bytes on line 3 (8192 is fine: see below) */
    memset(g_long_line, 0, sizeof g_long_line);
    strcpy(g_long_line, "[cue a]\nsound = x\n#");
    memset(g_long_line + strlen(g_long_line), 'x', 8192);
    strcat(g_long_line, "\n");

    static const ini_err_t cases[] = {
        {"unknown key", "[category c]\n[cue keep]\nsound = s\n\nloudness = 3\n", HELIOD_EINVAL, 5,
         "unknown key 'loudness'"},
        {"category key in cue", "[cue x]\nsound = s\nfade_out = 3\n", HELIOD_EINVAL, 3,
         "unknown key"},
        {"bad number", "[cue keep]\nsound = s\ngain = -3dB\n", HELIOD_EINVAL, 3,
         "gain: '-3dB' is not a finite number"},
        {"empty number", "[cue keep]\nsound = s\npitch =\n", HELIOD_EINVAL, 3, "pitch: no value"},
        {"nan", "[cue keep]\nsound = s\npan = nan\n", HELIOD_EINVAL, 3, "not a finite number"},
        {"bad integer", "[cue keep]\nsound = s\npriority = 1.5\n", HELIOD_EINVAL, 3, "priority:"},
        {"negative count", "[category kept]\nmax-instances = -1\n", HELIOD_EINVAL, 2,
         "max-instances:"},
        {"bad enum", "[cue keep]\nsound = s\n# c\npick = roundrobin\n", HELIOD_EINVAL, 4,
         "pick: unknown value 'roundrobin' (one of: random, shuffle, sequence)"},
        {"bad enum in category", "[category kept]\noverflow = steal\n", HELIOD_EINVAL, 2,
         "overflow: unknown value 'steal'"},
        {"bad bool", "[cue keep]\nsound = s\n3d = maybe\n", HELIOD_EINVAL, 3, "3d:"},
        {"bad interp", "[cue keep]\nsound = s\ninterp = lanczos\n", HELIOD_EINVAL, 3, "interp:"},
        {"bad send", "[cue keep]\nsound = s\nsend = hall\n", HELIOD_EINVAL, 3,
         "send: 'hall' is not BUS:DB"},
        {"three sends", "[cue keep]\nsound = s\nsend = a:-1, b:-2, c:-3\n", HELIOD_EINVAL, 3,
         "send: more than 2 sends"},
        {"occlusion range", "[cue keep]\nsound = s\n\nocclusion = 1.5\n", HELIOD_EINVAL, 4,
         "occlusion"},
        {"missing sound", "[cue keep]\nsound = s\n[cue nosound]\ngain = 1\n", HELIOD_EINVAL, 3,
         "cue nosound: no sound"},
        {"bad sound name", "[cue keep]\nsound = a, b c\n", HELIOD_EINVAL, 2,
         "sound: invalid sound name 'b c'"},
        {"too many sounds",
         "[cue keep]\nsound = a,b,c,d,e,f,g,h\nsound = i,j,k,l,m,n,o,p\nsound = q\n", HELIOD_EINVAL,
         4, "more than 16 sounds"},
        {"unknown category", "[cue keep]\nsound = s\n\ncategory = nope\n[category other]\n",
         HELIOD_ENOCATEGORY, 4, "cue keep: category: no such category 'nope'"},
        {"duplicate cue", "[cue a]\nsound = s\n[cue b]\nsound = s\n[cue a]\nsound = t\n",
         HELIOD_EINVAL, 5, "cue a: already defined at line 1"},
        {"duplicate category", "[category g]\n[cue a]\nsound = s\n[category g]\n", HELIOD_EINVAL, 4,
         "category g: already defined at line 1"},
        {"duplicate key", "[cue a]\nsound = s\ngain = 1\ngain = 2\n", HELIOD_EINVAL, 4,
         "gain: already set at line 3"},
        {"over-long line", g_long_line, HELIOD_EINVAL, 3, "line longer than 8192 bytes"},
        {"key outside section", "# hi\ngain = 1\n[cue a]\nsound = s\n", HELIOD_EINVAL, 2,
         "outside a"},
        {"unknown section kind", "[cue a]\nsound = s\n[bank b]\n", HELIOD_EINVAL, 3,
         "unknown section kind 'bank'"},
        {"section without name", "[cue]\n", HELIOD_EINVAL, 1, "invalid name"},
        {"unclosed section", "[cue a\n", HELIOD_EINVAL, 1, "missing ']'"},
        {"no equals", "[cue a]\nsound s\n", HELIOD_EINVAL, 2, "expected KEY = VALUE"},
        {"range error at its key",
         "[cue a]\nsound = s\nmin-distance = 5\nmax-distance = 4\ngain = 0\n", HELIOD_EINVAL, 4,
         "cue a: max_distance: must be > min_distance"},
        {"range error in category", "[category g]\n\nfade-out = 60001\n", HELIOD_EINVAL, 3,
         "category g: fade_out_ms:"},
        {"gain over +24", "[cue keep]\nsound = s\ngain = 25\n", HELIOD_EINVAL, 3,
         "cue keep: gain_db:"},
    };
    char err[300], want[200];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const ini_err_t *t = &cases[i];
        write_file(f->path, t->text);
        uint32_t nc = 77, ng = 77;
        err[0] = '\0';
        int rc = hld_cues_load_file(f->c, f->path, &nc, &ng, err, sizeof err);
        if (rc != t->rc) fail_msg("%s: rc %d want %d (%s)", t->what, rc, t->rc, err);
        snprintf(want, sizeof want, "%s:%u: ", f->path, t->line);
        if (strncmp(err, want, strlen(want)) != 0)
            fail_msg("%s: '%s' does not start with '%s'", t->what, err, want);
        if (!strstr(err, t->contains))
            fail_msg("%s: '%s' does not contain '%s'", t->what, err, t->contains);
        assert_int_equal(nc, 0);
        assert_int_equal(ng, 0);
        /* nothing applied */
        assert_int_equal(f->c->ncues, 1);
        assert_int_equal(f->c->ncats, 1);
        hld_cue_t *k = hld_cues_find(f->c, "keep");
        assert_true(k->def.gain_db == -6.0f);
        assert_int_equal(k->def.nsounds, 1);
        assert_string_equal(k->def.sounds[0], "snd");
        assert_int_equal(hld_cues_find_category(f->c, "kept")->def.max_instances, 3);
    }

    /* exactly 8192 bytes is accepted */
    g_long_line[strlen(g_long_line) - 2] = '\n';
    write_file(f->path, g_long_line);
    assert_int_equal(hld_cues_load_file(f->c, f->path, NULL, NULL, err, sizeof err), 0);
    assert_non_null(hld_cues_find(f->c, "a"));

    /* a tiny err buffer is truncated, never overrun */
    write_file(f->path, "[cue a]\nsound = s\nbogus = 1\n");
    char small[8];
    memset(small, '#', sizeof small);
    assert_int_equal(hld_cues_load_file(f->c, f->path, NULL, NULL, small, 6), HELIOD_EINVAL);
    assert_int_equal(small[5], '\0');
    assert_int_equal(small[6], '#');
    assert_int_equal(hld_cues_load_file(f->c, f->path, NULL, NULL, NULL, 0), HELIOD_EINVAL);
}

/* `tempo` and `tempo-change`: the map, beat positions, and refusals naming the key */
/* [music NAME] sections: states and transitions reach the table; a cue
 * that does not exist, a state-less section, a bad line and a duplicate
 * refuse the whole sheet (nothing applied); a redefinition replaces. */
static void test_ini_music(void **state) {
    ini_fx_t *f = *state;
    char err[256] = "";
    uint32_t nc = 0, ng = 0;
    write_file(f->path, "[cue calm]\nsound = a\n[cue fight]\nsound = b\n[cue riser]\nsound = c\n"
                        "[music score]\nstate = explore calm\nstate = combat fight\n"
                        "transition = explore combat bar xfade:500:linear\n"
                        "transition = * explore bars:2 segment:riser:100 tail\n");
    assert_int_equal(hld_cues_load_file(f->c, f->path, &nc, &ng, err, sizeof err), 0);
    hld_music_t *m = hld_cues_find_music(f->c, "score");
    assert_non_null(m);
    assert_int_equal(m->def.nstates, 2);
    assert_string_equal(m->def.cue[1], "fight");
    assert_int_equal(m->def.ntrans, 2);
    assert_int_equal(hld_music_find(&m->def, 0, 1)->when, HLD_MW_BAR);
    static const struct {
        const char *text, *why;
        int rc;
    } bad[] = {
        {"[music x]\nstate = a nosuchcue\n", "no such cue 'nosuchcue'", HELIOD_ENOSOUND},
        {"[music x]\nstate = a calm\ntransition = a a bar segment:nope\n", "no such cue 'nope'",
         HELIOD_ENOSOUND},
        {"[music x]\n", "no state", HELIOD_EINVAL},
        {"[music x]\nstate = a calm\ntransition = a b bar xfade:1\n", "TO: no such state",
         HELIOD_EINVAL},
        {"[music x]\nstate = a calm\ngain = 3\n", "unknown key 'gain' in a music section",
         HELIOD_EINVAL},
        {"[music x]\nstate = a calm\n[music x]\nstate = a calm\n", "already defined",
         HELIOD_EINVAL},
        {"[musik x]\n", "cue, category, snapshot or music", HELIOD_EINVAL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(f->path, bad[i].text);
        err[0] = '\0';
        assert_int_equal(hld_cues_load_file(f->c, f->path, &nc, &ng, err, sizeof err), bad[i].rc);
        assert_non_null(strstr(err, bad[i].why));
        assert_null(hld_cues_find_music(f->c, "x"));
    }
    write_file(f->path, "[music score]\nstate = only calm\n");
    assert_int_equal(hld_cues_load_file(f->c, f->path, &nc, &ng, err, sizeof err), 0);
    assert_ptr_equal(hld_cues_find_music(f->c, "score"), m); /* replaced in place */
    assert_int_equal(m->def.nstates, 1);
    assert_int_equal(m->def.ntrans, 0);
    /* a flood of sections stops at the cap, nothing applied */
    char big[4096];
    size_t n = 0;
    for (int i = 0; i < HLD_MAX_MUSIC + 1; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "[music m%d]\nstate = s calm\n", i);
    write_file(f->path, big);
    assert_int_equal(hld_cues_load_file(f->c, f->path, &nc, &ng, err, sizeof err), HELIOD_ENOMEM);
    assert_null(hld_cues_find_music(f->c, "m0"));
    assert_int_equal(f->c->nmusic, 1);
}

static void test_ini_tempo(void **state) {
    ini_fx_t *f = *state;
    char err[256];
    write_file(f->path, "[cue m]\nsound = s\ntempo = 120 3/4\ntempo-change = 64:140, 80:90.5\n");
    assert_int_equal(hld_cues_load_file(f->c, f->path, NULL, NULL, err, sizeof err), 0);
    const hld_tempo_t *t = &hld_cues_find(f->c, "m")->tempo;
    assert_int_equal(t->n, 3);
    assert_int_equal(t->num, 3);
    assert_int_equal(t->den, 4);
    assert_int_equal(t->seg[1].beat, 64);
    assert_int_equal(t->seg[2].mbpm, 90500);
    assert_int_equal(hld_tempo_beat_pos(t, 63, 48000), 63u * 24000u);
    assert_int_equal(hld_tempo_beat_pos(t, 65, 48000), 64u * 24000u + 20572u);  /* ceil */
    assert_int_equal(hld_tempo_beat_pos(t, 71, 48000), 64u * 24000u + 144000u); /* 7 exact */
    assert_int_equal(hld_tempo_beat_at(t, 64.0 * 24000 + 1, 48000), 65);
    assert_int_equal(hld_tempo_beat_at(t, 64.0 * 24000, 48000), 64);
    /* a sheet without tempo clears it */
    write_file(f->path, "[cue m]\nsound = s\n");
    assert_int_equal(hld_cues_load_file(f->c, f->path, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(hld_cues_find(f->c, "m")->tempo.n, 0);
    static const char *bad[][2] = {
        {"tempo = fast\n", "tempo: expected BPM"},
        {"tempo = 120 5/3\n", "time signature"},
        {"tempo = 2000\n", "tempo: expected BPM"},
        {"tempo-change = 64:140\n", "set tempo"},
        {"tempo = 120\ntempo-change = 64:140, 32:100\n", "beats must increase"},
        {"tempo = 120\ntempo = 130\n", "already set"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[200];
        snprintf(text, sizeof text, "[cue m]\nsound = s\n%s", bad[i][0]);
        write_file(f->path, text);
        assert_int_equal(hld_cues_load_file(f->c, f->path, NULL, NULL, err, sizeof err),
                         HELIOD_EINVAL);
        if (!strstr(err, bad[i][1])) fail_msg("%s: '%s' lacks '%s'", bad[i][0], err, bad[i][1]);
    }
}

static void test_ini_caps(void **state) {
    ini_fx_t *f = *state;
    /* 4097 cues in one file: refused, nothing applied */
    FILE *fp = fopen(f->path, "w");
    assert_non_null(fp);
    for (int i = 0; i <= HLD_MAX_CUES; i++)
        fprintf(fp, "[cue c%d]\nsound = s\n", i);
    assert_int_equal(fclose(fp), 0);
    char err[256];
    assert_int_equal(hld_cues_load_file(f->c, f->path, NULL, NULL, err, sizeof err), HELIOD_ENOMEM);
    char want[200];
    snprintf(want, sizeof want, "%s:%d: ", f->path, 2 * HLD_MAX_CUES + 1);
    assert_int_equal(strncmp(err, want, strlen(want)), 0);
    assert_int_equal(f->c->ncues, 0);
    /* 4096 fit; then one more new name over the table's cap is refused whole */
    fp = fopen(f->path, "w");
    assert_non_null(fp);
    for (int i = 0; i < HLD_MAX_CUES; i++)
        fprintf(fp, "[cue c%d]\nsound = s\n", i);
    assert_int_equal(fclose(fp), 0);
    uint32_t nc = 0;
    assert_int_equal(hld_cues_load_file(f->c, f->path, &nc, NULL, err, sizeof err), 0);
    assert_int_equal(nc, HLD_MAX_CUES);
    assert_int_equal(hld_cues_find(f->c, "c4095")->index, 4095);
    write_file(f->path, "[cue c1]\nsound = t\n[cue new]\nsound = s\n");
    assert_int_equal(hld_cues_load_file(f->c, f->path, NULL, NULL, err, sizeof err), HELIOD_ENOMEM);
    assert_string_equal(hld_cues_find(f->c, "c1")->def.sounds[0], "s");
    assert_null(hld_cues_find(f->c, "new"));
}

static void test_ini_fifo_and_missing(void **state) {
    ini_fx_t *f = *state;
    char fifo[160], err[512], want[200];
    snprintf(fifo, sizeof fifo, "%s/fifo", f->dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(10); /* a blocking open would kill the test instead of hanging it */
    assert_int_equal(hld_cues_load_file(f->c, fifo, NULL, NULL, err, sizeof err), HELIOD_EFILE);
    alarm(0);
    snprintf(want, sizeof want, "%s: cannot open: ", fifo);
    assert_int_equal(strncmp(err, want, strlen(want)), 0);

    assert_int_equal(hld_cues_load_file(f->c, f->dir, NULL, NULL, err, sizeof err), HELIOD_EFILE);
    snprintf(want, sizeof want, "%s: cannot open: ", f->dir);
    assert_int_equal(strncmp(err, want, strlen(want)), 0);

    char missing[160];
    snprintf(missing, sizeof missing, "%s/missing.ini", f->dir);
    assert_int_equal(hld_cues_load_file(f->c, missing, NULL, NULL, err, sizeof err), HELIOD_EFILE);
    snprintf(want, sizeof want, "%s: cannot open: %s", missing, strerror(ENOENT));
    assert_string_equal(err, want);
    assert_int_equal(f->c->ncues, 0);
}

/* ---- names per namespace ---------------------------------------------- */

/* ctx: the requester's owner id; its own ranks 3, the daemon's 2, others 0 */
static int rank_of(const void *ctx, uint32_t owner) {
    uint32_t me = *(const uint32_t *)ctx;
    return owner == me ? 3 : owner == 0 ? 2 : 0;
}

static void test_names_per_namespace(void **state) {
    (void)state;
    hld_cues_t *c = new_cues();
    hl_category_t cat;
    hl_category_init(&cat);
    strcpy(cat.name, "weapons");
    hld_category_t *k7 = NULL, *k9 = NULL;
    uint32_t seven = 7, nine = 9, other = 5;
    assert_null(hld_cues_find_category_in(c, "weapons", rank_of, &seven));
    assert_int_equal(hld_cues_define_category_in(c, &cat, NULL, &k7, NULL), 0);
    k7->owner = 7;
    cat.max_instances = 2;
    /* 9 does not see 7's: it defines its own of that name */
    assert_null(hld_cues_find_category_in(c, "weapons", rank_of, &nine));
    assert_int_equal(hld_cues_define_category_in(c, &cat, NULL, &k9, NULL), 0);
    k9->owner = 9;
    assert_ptr_not_equal(k7, k9);
    assert_int_equal(c->ncats, 2);
    assert_ptr_equal(hld_cues_find_category_in(c, "weapons", rank_of, &seven), k7);
    assert_ptr_equal(hld_cues_find_category_in(c, "weapons", rank_of, &nine), k9);

    hl_cue_t m;
    good_cue(&m, "gun");
    strcpy(m.category, "weapons");
    hld_cue_t *g7 = NULL, *g9 = NULL, *g0 = NULL, *again = NULL;
    assert_int_equal(hld_cues_define_in(c, &m, NULL, k7, &g7, NULL), 0);
    g7->owner = 7;
    m.gain_db = -6;
    assert_int_equal(hld_cues_define_in(c, &m, NULL, k9, &g9, NULL), 0);
    g9->owner = 9;
    assert_ptr_equal(g7->cat, k7); /* each in its definer's category */
    assert_ptr_equal(g9->cat, k9);
    assert_ptr_equal(hld_cues_find_in(c, "gun", rank_of, &seven), g7);
    assert_ptr_equal(hld_cues_find_in(c, "gun", rank_of, &nine), g9);
    assert_null(hld_cues_find_in(c, "gun", rank_of, &other));
    /* the daemon's: shared, behind a client's own */
    strcpy(m.category, "");
    assert_int_equal(hld_cues_define_in(c, &m, NULL, NULL, &g0, NULL), 0);
    assert_ptr_equal(hld_cues_find_in(c, "gun", rank_of, &other), g0);
    assert_ptr_equal(hld_cues_find_in(c, "gun", rank_of, &seven), g7);
    assert_ptr_equal(hld_cues_find(c, "gun"), g0); /* no requester: the daemon's */
    /* a redefinition stays in place */
    m.gain_db = -12;
    strcpy(m.category, "weapons");
    assert_int_equal(hld_cues_define_in(c, &m, g9, k9, &again, NULL), 0);
    assert_ptr_equal(again, g9);
    assert_true(g9->def.gain_db == -12.0f);
    assert_true(g7->def.gain_db == 0.0f);
    assert_int_equal(c->ncues, 3);
    /* a category named but not resolved in the definer's namespace */
    assert_int_equal(hld_cues_define_in(c, &m, NULL, NULL, NULL, NULL), HELIOD_ENOCATEGORY);
    free_cues(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_define_redefine),
        cmocka_unit_test(test_names_per_namespace),
        cmocka_unit_test(test_validate_cue_limits),
        cmocka_unit_test(test_validate_category_limits),
        cmocka_unit_test(test_validate_cue_other),
        cmocka_unit_test(test_no_category),
        cmocka_unit_test(test_lookup_4096),
        cmocka_unit_test(test_orphan_release_reuse),
        cmocka_unit_test(test_pick_sequence),
        cmocka_unit_test(test_pick_shuffle),
        cmocka_unit_test(test_pick_random),
        cmocka_unit_test(test_rolls),
        cmocka_unit_test_setup_teardown(test_ini_good, ini_setup, ini_teardown),
        cmocka_unit_test_setup_teardown(test_ini_errors, ini_setup, ini_teardown),
        cmocka_unit_test_setup_teardown(test_ini_tempo, ini_setup, ini_teardown),
        cmocka_unit_test_setup_teardown(test_ini_music, ini_setup, ini_teardown),
        cmocka_unit_test_setup_teardown(test_ini_caps, ini_setup, ini_teardown),
        cmocka_unit_test_setup_teardown(test_ini_fifo_and_missing, ini_setup, ini_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
