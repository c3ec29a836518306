/*
 * test_governor.c - the CPU-budget governor's policy (daemon/voice/governor_policy.c)
 * driven poll by poll with made-up block costs, as the daemon would feed it:
 *
 *   - a steady scene well inside the budget, with single blocks stalled for
 *     7 ms (a preempted thread on a busy or virtual machine): nothing is cut
 *     or stepped down, the stalls are counted as spikes, and the cost per
 *     voice it learns stays the scene's;
 *   - the same at period 64, where a poll sees one block;
 *   - a real overload (every block over the budget): the first step comes by
 *     the second heavy poll, quality goes before voices, the limit then falls
 *     until the blocks fit, and after the hold it grows back when the load
 *     goes;
 *   - two stalls in a row cut by a tenth at most.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "governor.h"

/* A scene: `want` voices asking to be real, each costing voice_ns per
 * block (cubic ones stepped down to linear cost a quarter less), a base
 * cost per block, at `period` frames of 48 kHz with a 70% budget. */
typedef struct {
    hld_governor_t g;
    uint32_t want, hq_want;
    double base_ns, voice_ns, period_ns;
    uint64_t now_ns;
    unsigned acts;
} scene_t;

static void scene_init(scene_t *s, uint32_t period, uint32_t want, uint32_t hq, double voice_ns) {
    memset(s, 0, sizeof *s);
    s->period_ns = period * 1e9 / 48000.0;
    s->g.budget_ns = s->period_ns * 0.70;
    s->g.voice_ns = voice_ns; /* as if calibrated */
    s->g.limit = 4096;
    s->g.cubic_limit = UINT32_MAX;
    s->want = want;
    s->hq_want = hq;
    s->base_ns = 20e3;
    s->voice_ns = voice_ns;
    s->now_ns = 1000000000ull;
}

static uint32_t real_of(const scene_t *s) {
    return s->want < s->g.limit ? s->want : s->g.limit;
}

static uint32_t hq_of(const scene_t *s) {
    uint32_t real = real_of(s), hq = s->hq_want < real ? s->hq_want : real;
    return s->g.cubic_limit < hq ? s->g.cubic_limit : hq;
}

/* The block the scene costs now. */
static double block_ns(const scene_t *s) {
    uint32_t real = real_of(s), hq = hq_of(s), low = real - hq;
    return s->base_ns + hq * s->voice_ns + low * s->voice_ns * (1.0 - HLD_GOV_CUBIC_SAVING);
}

/* One poll of one block lasting `ns` (the scene's cost, or a stall). */
static unsigned poll_once(scene_t *s, double ns) {
    uint32_t real = real_of(s);
    uint32_t hq_real = s->hq_want < real ? s->hq_want : real;
    uint32_t hq = hq_of(s);
    hld_gov_sample_t in = {.worst_ns = (uint64_t)ns,
                           .mean_ns = ns,
                           .callbacks = 1,
                           .now_ns = s->now_ns,
                           .real = real,
                           .mixed = real,
                           .hq = hq_real, /* asking for sinc or cubic */
                           .lowq = hq_real - hq,
                           .governed = s->want - real};
    s->now_ns += (uint64_t)s->period_ns;
    unsigned act = hld_governor_step(&s->g, &in);
    s->acts |= act;
    return act;
}

static void stalls_are_not_cut_for(uint32_t period, void **state) {
    (void)state;
    scene_t s;
    /* 256 voices at 40% of the budget */
    double per = 0.7 * 0.4 * (period * 1e9 / 48000.0) / 256;
    scene_init(&s, period, 256, 128, per);
    for (int i = 0; i < 50; i++)
        poll_once(&s, block_ns(&s));
    assert_int_equal(s.g.cuts, 0);
    double learned = s.g.voice_ns;
    for (int i = 0; i < 3000; i++) {
        /* a 7 ms stall every 20th block, never two in a row */
        unsigned act = poll_once(&s, i % 20 == 10 ? 7e6 : block_ns(&s));
        assert_int_equal(act, 0);
    }
    assert_int_equal(s.g.cuts, 0);
    assert_int_equal(s.g.steps_down, 0);
    assert_int_equal(s.g.limit, 4096);
    assert_int_equal(s.g.cubic_limit, UINT32_MAX);
    assert_int_equal(s.g.hits, 150);
    assert_int_equal(s.g.spikes, 150);
    /* the cost per voice is the scene's, not the stalls' (no base cost was
     * learned: there was never a block without voices) */
    assert_true(s.g.voice_ns < learned * 1.05);
    assert_true(fabs(s.g.voice_ns * 256 - block_ns(&s)) < 0.05 * block_ns(&s));
}

static void test_stalls_period_256(void **state) {
    stalls_are_not_cut_for(256, state);
}

static void test_stalls_period_64(void **state) {
    stalls_are_not_cut_for(64, state);
}

static void test_overload_is_cut(void **state) {
    (void)state;
    scene_t s;
    const uint32_t period = 256;
    /* 1024 voices, half of them cubic, each at 1/400 of the budget: about
     * 2.5 budgets' worth */
    double budget = 0.7 * period * 1e9 / 48000.0;
    scene_init(&s, period, 1024, 512, budget / 400);
    s.g.voice_ns = budget / 4000; /* the start-up estimate was ten times too low */
    int first = -1;
    for (int i = 0; i < 20 && first < 0; i++)
        if (poll_once(&s, block_ns(&s))) first = i;
    /* the first heavy poll may be a spike; the second is not */
    assert_true(first >= 0 && first <= 1);
    assert_true(s.acts & HLD_GOV_SET_QUALITY); /* quality went first */
    assert_int_equal(s.g.cuts, 0);
    for (int i = 0; i < 200; i++)
        poll_once(&s, block_ns(&s));
    /* every step down taken, then voices cut until the blocks fit */
    assert_int_equal(s.g.cubic_limit, 0);
    assert_true(s.g.cuts > 0);
    assert_true(block_ns(&s) <= s.g.budget_ns);
    assert_true(real_of(&s) >= 300); /* what fits (about 400 linear ones) is kept, less a margin */
    uint32_t cut_to = s.g.limit;
    /* the load goes (most voices end): after the hold the limit grows back
     * and quality returns */
    s.want = 200;
    s.hq_want = 100;
    for (int i = 0; i < 2000; i++)
        poll_once(&s, block_ns(&s));
    assert_true(s.g.limit >= 200);
    assert_true(s.g.limit > cut_to || cut_to >= 200);
    assert_int_equal(s.g.cubic_limit, UINT32_MAX);
}

static void test_two_stalls_cut_a_tenth(void **state) {
    (void)state;
    scene_t s;
    double per = 0.7 * 0.4 * (256 * 1e9 / 48000.0) / 256;
    scene_init(&s, 256, 256, 0, per);
    for (int i = 0; i < 50; i++)
        poll_once(&s, block_ns(&s));
    poll_once(&s, 7e6);
    assert_int_equal(s.g.cuts, 0); /* one: a spike */
    poll_once(&s, 7e6);
    assert_int_equal(s.g.cuts, 1);                   /* two in a row: taken as load, but ... */
    assert_true(s.g.limit >= (uint32_t)(256 * 0.9)); /* ... a tenth at most */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stalls_period_256),
        cmocka_unit_test(test_stalls_period_64),
        cmocka_unit_test(test_overload_is_cut),
        cmocka_unit_test(test_two_stalls_cut_a_tenth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
