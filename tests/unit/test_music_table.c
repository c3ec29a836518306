/*
 * test_music_table.c - the transition table of a [music NAME] section
 * (daemon/assets/music_table.c): states, transitions, their refusals, the
 * lookup (exact FROM before '*') and the plan's frames.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "music_table.h"

static void states(hld_music_def_t *m) {
    const char *why = NULL;
    memset(m, 0, sizeof *m);
    assert_int_equal(hld_music_add_state(m, "explore explore_loop", &why), 0);
    assert_int_equal(hld_music_add_state(m, "combat  combat_loop", &why), 0);
    assert_int_equal(hld_music_add_state(m, "boss boss_loop", &why), 0);
    assert_int_equal(m->nstates, 3);
    assert_string_equal(m->cue[1], "combat_loop");
}

static void t_parse(void **st) {
    (void)st;
    hld_music_def_t m;
    states(&m);
    const char *why = NULL;
    assert_int_equal(hld_music_add_transition(&m, "explore combat bar xfade:500:linear", &why), 0);
    assert_int_equal(hld_music_add_transition(&m, "* boss bars:2 segment:riser:250 tail", &why), 0);
    assert_int_equal(hld_music_add_transition(&m, "combat explore beat fadeout:1000", &why), 0);
    assert_int_equal(m.ntrans, 3);
    const hld_music_trans_t *t = hld_music_find(&m, 0, 1);
    assert_non_null(t);
    assert_int_equal(t->when, HLD_MW_BAR);
    assert_int_equal(t->how, HLD_MH_XFADE);
    assert_int_equal(t->curve, HL_CURVE_LINEAR);
    assert_true(t->fade_ms == 500.0f);
    t = hld_music_find(&m, 1, 2); /* only '*' */
    assert_non_null(t);
    assert_int_equal(t->from, -1);
    assert_int_equal(t->when, HLD_MW_BARS);
    assert_int_equal(t->bars, 2);
    assert_int_equal(t->how, HLD_MH_SEGMENT);
    assert_string_equal(t->segment, "riser");
    assert_int_equal(t->tail, 1);
    t = hld_music_find(&m, 1, 0);
    assert_non_null(t);
    assert_int_equal(t->curve, HL_CURVE_EQUAL_POWER); /* the default */
    assert_null(hld_music_find(&m, 2, 0));            /* none: a hard cut */
    /* an exact FROM wins over '*' whatever their order */
    assert_int_equal(hld_music_add_transition(&m, "explore boss now xfade:10", &why), 0);
    assert_int_equal(hld_music_find(&m, 0, 2)->when, HLD_MW_NOW);
    assert_int_equal(hld_music_find(&m, 1, 2)->when, HLD_MW_BARS);
}

static void t_refusals(void **st) {
    (void)st;
    hld_music_def_t m;
    states(&m);
    const char *why = NULL;
    static const struct {
        const char *line, *why;
    } bad[] = {
        {"explore nowhere bar xfade:10", "TO"},
        {"nowhere combat bar xfade:10", "FROM"},
        {"explore combat bars:0 xfade:10", "WHEN"},
        {"explore combat bars:65 xfade:10", "WHEN"},
        {"explore combat soon xfade:10", "WHEN"},
        {"explore combat bar xfade", "HOW"},
        {"explore combat bar xfade:-1", "HOW"},
        {"explore combat bar xfade:nan", "HOW"},
        {"explore combat bar xfade:99999999", "HOW"},
        {"explore combat bar xfade:10:cubic", "HOW"},
        {"explore combat bar segment:", "HOW"},
        {"explore combat bar xfade:10 tail extra", "only"},
        {"explore combat", "WHEN"},
        {"explore", "expected FROM TO"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why = NULL;
        assert_int_equal(hld_music_add_transition(&m, bad[i].line, &why), -1);
        assert_non_null(why);
        if (!strstr(why, bad[i].why)) fail_msg("%s: %s", bad[i].line, why);
    }
    assert_int_equal(m.ntrans, 0);
    assert_int_equal(hld_music_add_transition(&m, "explore combat bar xfade:10", &why), 0);
    assert_int_equal(hld_music_add_transition(&m, "explore combat beat xfade:10", &why), -1);
    assert_non_null(strstr(why, "twice"));
    assert_int_equal(hld_music_add_state(&m, "explore other", &why), -1);
    assert_int_equal(hld_music_add_state(&m, "lonely", &why), -1);
    for (uint32_t i = m.nstates; i < HLD_MUSIC_MAX_STATES; i++) {
        char line[64];
        snprintf(line, sizeof line, "s%u c", (unsigned)i);
        assert_int_equal(hld_music_add_state(&m, line, &why), 0);
    }
    assert_int_equal(hld_music_add_state(&m, "one_more c", &why), -1); /* a flood stops at 32 */
}

static void t_plan(void **st) {
    (void)st;
    hld_music_def_t m;
    states(&m);
    const char *why = NULL;
    assert_int_equal(hld_music_add_transition(&m, "explore combat bar xfade:500", &why), 0);
    assert_int_equal(hld_music_add_transition(&m, "combat explore bar fadeout:250", &why), 0);
    assert_int_equal(hld_music_add_transition(&m, "* boss bar segment:riser:100", &why), 0);
    assert_int_equal(hld_music_add_transition(&m, "boss explore end fadeout:100 tail", &why), 0);
    hld_music_plan_t p;
    hld_music_plan(hld_music_find(&m, 0, 1), 96000, 48000, 0, &p);
    assert_int_equal(p.old_stop, 96000);
    assert_int_equal(p.old_fade, 24000);
    assert_int_equal(p.new_start, 96000);
    assert_int_equal(p.new_fade_in, 24000);
    assert_int_equal(p.seg_start, UINT64_MAX);
    hld_music_plan(hld_music_find(&m, 1, 0), 96000, 48000, 0, &p);
    assert_int_equal(p.old_stop, 96000);
    assert_int_equal(p.new_start, 96000 + 12000);
    assert_int_equal(p.new_fade_in, 0);
    hld_music_plan(hld_music_find(&m, 0, 2), 96000, 48000, 48000, &p);
    assert_int_equal(p.seg_start, 96000);
    assert_int_equal(p.old_fade, 4800);
    assert_int_equal(p.new_start, 96000 + 48000);
    hld_music_plan(hld_music_find(&m, 2, 0), 96000, 48000, 0, &p);
    assert_int_equal(p.old_stop, UINT64_MAX); /* tail: rings out */
    assert_int_equal(p.new_start, 96000);
}

/* layer = STATE CUE: declared states only, 8 a state, 16 a section. */
static void t_layers(void **st) {
    (void)st;
    hld_music_def_t m;
    states(&m);
    const char *why = NULL;
    assert_int_equal(hld_music_add_layer(&m, "combat drums_hi", &why), 0);
    assert_int_equal(hld_music_add_layer(&m, " combat\tstrings ", &why), 0);
    assert_int_equal(m.nlayers, 2);
    assert_int_equal(m.layer_state[1], 1);
    assert_string_equal(m.layer_cue[1], "strings");
    static const char *const bad[] = {"nosuch drums", "combat", "combat a b", "combat bad!name",
                                      ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why = NULL;
        assert_int_equal(hld_music_add_layer(&m, bad[i], &why), -1);
        assert_non_null(why);
        assert_non_null(strstr(why, "layer"));
    }
    for (int i = 2; i < 8; i++)
        assert_int_equal(hld_music_add_layer(&m, "combat more", &why), 0);
    assert_int_equal(hld_music_add_layer(&m, "combat ninth", &why), -1);
    assert_non_null(strstr(why, "8 layers"));
    for (int i = 0; i < 8; i++)
        assert_int_equal(hld_music_add_layer(&m, "boss more", &why), 0);
    assert_int_equal(hld_music_add_layer(&m, "explore more", &why), -1);
    assert_non_null(strstr(why, "16"));
    assert_int_equal(m.nlayers, 16);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_parse),
        cmocka_unit_test(t_refusals),
        cmocka_unit_test(t_plan),
        cmocka_unit_test(t_layers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
