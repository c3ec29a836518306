/*
 * test_zone_sched.c - the world-zone loading scheduler's core on the
 * world-streaming scenario: 16 zones in a 4x4 grid and a listener sweeping
 * across and back, with a simulated clock (ticks) and a fake loader that
 * holds memory while it loads and after: the per-tick budget, the cap, no
 * flapping on a border, cancellation freeing memory at once, retries with
 * backoff, and determinism (two runs, identical reports).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "zone_sched.h"

#define MB (1ull << 20)

/* The fake loader: a load of zone i takes 3 ticks per MB; memory is
 * held from the start of a load until it is cancelled or unloaded. */
typedef struct {
    hld_zs_t *z;
    uint64_t held; /* bytes the loader holds now */
    uint64_t finish_at[HLD_ZS_MAX_ZONES];
    int loading[HLD_ZS_MAX_ZONES];
    int fail_left[HLD_ZS_MAX_ZONES]; /* starts of zone i that fail at once */
    uint32_t loads[HLD_ZS_MAX_ZONES], unloads[HLD_ZS_MAX_ZONES];
    uint64_t cancel_freed; /* bytes given back by cancels */
} fake_t;

static int fake_load(void *u, uint32_t i) {
    fake_t *f = u;
    if (f->fail_left[i] > 0) {
        f->fail_left[i]--;
        return -1;
    }
    f->loading[i] = 1;
    f->held += f->z->zone[i].bytes;
    f->finish_at[i] = f->z->tick + 3 * ((f->z->zone[i].bytes + MB - 1) / MB);
    f->loads[i]++;
    return 0;
}

static void fake_cancel(void *u, uint32_t i) {
    fake_t *f = u;
    f->loading[i] = 0;
    f->held -= f->z->zone[i].bytes;
    f->cancel_freed += f->z->zone[i].bytes;
}

static void fake_unload(void *u, uint32_t i) {
    fake_t *f = u;
    f->held -= f->z->zone[i].bytes;
    f->unloads[i]++;
}

/* Completions due by now (the simulated clock is the tick count). */
static void fake_complete(fake_t *f) {
    for (uint32_t i = 0; i < f->z->n; i++)
        if (f->loading[i] && f->z->tick >= f->finish_at[i]) {
            f->loading[i] = 0;
            hld_zs_done(f->z, i, 1, f->z->zone[i].bytes);
        }
}

static hld_zs_t g_z;
static int g_near[HLD_ZS_MAX_ZONES]; /* the sweep passed within 50 m of zone i */

static void grid(hld_zs_t *z, fake_t *f, const hld_zs_config_t *cfg, float radius) {
    memset(f, 0, sizeof *f);
    f->z = z;
    hld_zs_ops_t ops = {.user = f, .load = fake_load, .cancel = fake_cancel, .unload = fake_unload};
    hld_zs_init(z, cfg, &ops);
    for (int gy = 0; gy < 4; gy++)
        for (int gx = 0; gx < 4; gx++) {
            char name[16];
            snprintf(name, sizeof name, "z%d%d", gx, gy);
            const float pos[3] = {100.0f * (float)gx, 0.0f, 100.0f * (float)gy};
            uint64_t bytes = (1 + (uint64_t)((gx + 2 * gy) % 3)) * MB; /* 1..3 MB */
            assert_true(hld_zs_add(z, name, pos, radius, bytes) >= 0);
        }
}

static hld_zs_config_t config(void) {
    hld_zs_config_t c;
    hld_zs_config_default(&c);
    c.budget_bytes = 3 * MB;
    c.cap_bytes = 8 * MB;
    c.pin_radius = 40.0f;
    return c;
}

/* The sweep: across the grid's diagonal rows and back, 5 m a tick. Returns
 * the concatenated reports; checks every tick's invariants. */
static char *sweep(int check) {
    static fake_t f;
    hld_zs_config_t cfg = config();
    grid(&g_z, &f, &cfg, 130.0f); /* wide: several zones in reach at once, so the cap bites */
    f.fail_left[5] = 2;           /* z11 fails twice, then loads */
    size_t cap = 1 << 20, len = 0;
    char *all = malloc(cap);
    assert_non_null(all);
    all[0] = '\0';
    int ticks = 0;
    for (int dir = 0; dir < 2; dir++)
        for (int s = 0; s <= 40; s++, ticks++) { /* 10 m a tick: loads are overtaken */
            float x = dir == 0 ? -50.0f + 10.0f * (float)s : 350.0f - 10.0f * (float)s;
            const float lis[3] = {x, 0.0f, x * 0.75f};
            for (uint32_t i = 0; i < g_z.n; i++) {
                float dx = g_z.zone[i].pos[0] - lis[0], dz = g_z.zone[i].pos[2] - lis[2];
                if (dx * dx + dz * dz < 50.0f * 50.0f) g_near[i] = 1;
            }
            fake_complete(&f);
            hld_zs_report_t r;
            uint64_t before_cancel = f.cancel_freed, held_before = f.held;
            hld_zs_tick(&g_z, lis, &r);
            char line[2048];
            hld_zs_report_text(&g_z, &r, line, sizeof line);
            len += (size_t)snprintf(all + len, cap - len, "%s\n", line);
            if (!check) continue;
            /* the budget: within it, or a single zone alone in its tick */
            assert_true(r.requested_bytes <= cfg.budget_bytes || r.n_requested == 1);
            /* the cap: resident + in flight within it at every tick, pinned or not */
            assert_true(f.held <= cfg.cap_bytes);
            /* the scheduler's books agree with the loader's */
            assert_int_equal(r.resident_bytes + r.in_flight_bytes, f.held);
            /* a cancel gives its memory back within the tick that decided it */
            if (r.n_cancelled) assert_true(f.cancel_freed > before_cancel);
            if (r.n_cancelled) assert_true(f.held < held_before + r.requested_bytes);
        }
    if (check) {
        /* the failing zone was retried with backoff and loaded in the end */
        assert_true(f.loads[5] >= 1);
        assert_true(g_z.tot.failed >= 2);
        /* every zone the listener passed well inside of was loaded */
        for (uint32_t i = 0; i < g_z.n; i++)
            if (g_near[i]) assert_true(f.loads[i] >= 1);
        assert_true(g_z.tot.completed > 0);
        /* the scenario exercises the cap and cancellation */
        assert_true(g_z.tot.evicted > 0);
        assert_true(g_z.tot.cancelled > 0);
        printf("sweep: %d ticks, requested %llu, completed %llu, failed %llu, cancelled %llu, "
               "unloaded %llu, evicted %llu, peak resident %llu B, peak in flight %llu, largest "
               "tick %llu B\n",
               ticks, (unsigned long long)g_z.tot.requested, (unsigned long long)g_z.tot.completed,
               (unsigned long long)g_z.tot.failed, (unsigned long long)g_z.tot.cancelled,
               (unsigned long long)g_z.tot.unloaded, (unsigned long long)g_z.tot.evicted,
               (unsigned long long)g_z.tot.peak_resident_bytes,
               (unsigned long long)g_z.tot.peak_in_flight,
               (unsigned long long)g_z.tot.largest_tick_bytes);
    }
    return all;
}

static void test_sweep_invariants(void **state) {
    (void)state;
    free(sweep(1));
}

static void test_deterministic(void **state) {
    (void)state;
    char *a = sweep(0), *b = sweep(0);
    assert_string_equal(a, b);
    assert_true(strstr(a, "requested=z00") != NULL);
    free(a);
    free(b);
}

/* Standing on a zone's border, jittering by a metre, never makes it load
 * and unload repeatedly: one load, no unload. */
static void test_border_hysteresis(void **state) {
    (void)state;
    static fake_t f;
    hld_zs_config_t cfg = config();
    cfg.cap_bytes = 64 * MB;
    grid(&g_z, &f, &cfg, 70.0f);
    for (int t = 0; t < 200; t++) {
        const float lis[3] = {-70.0f + (t % 2 ? 1.0f : -1.0f), 0.0f, 0.0f}; /* z00's border */
        fake_complete(&f);
        hld_zs_report_t r;
        hld_zs_tick(&g_z, lis, &r);
    }
    assert_int_equal(f.loads[0], 1);
    assert_int_equal(f.unloads[0], 0);
}

/* A load in flight whose zone falls behind the unload radius is cancelled
 * at once and its memory is given back; it is not requested again in the
 * same or the next tick. */
static void test_cancel(void **state) {
    (void)state;
    static fake_t f;
    hld_zs_config_t cfg = config();
    cfg.cap_bytes = 64 * MB;
    grid(&g_z, &f, &cfg, 70.0f);
    int z = hld_zs_find(&g_z, "z20"); /* 1 + (2 % 3) = 3 MB: nine ticks to load */
    assert_true(z >= 0);
    const float at[3] = {200.0f, 0.0f, 0.0f}, far[3] = {200.0f, 0.0f, 500.0f};
    hld_zs_report_t r;
    hld_zs_tick(&g_z, at, &r);
    assert_int_equal(g_z.zone[z].state, HLD_ZS_LOADING);
    uint64_t held = f.held;
    hld_zs_tick(&g_z, far, &r);
    assert_int_equal(r.n_cancelled, 1);
    assert_int_equal(r.cancelled[0], (uint32_t)z);
    assert_int_equal(f.held, held - g_z.zone[z].bytes);
    assert_int_equal(g_z.zone[z].state, HLD_ZS_OUT);
    hld_zs_tick(&g_z, at, &r); /* back at once: cooling down */
    for (uint32_t k = 0; k < r.n_requested; k++)
        assert_int_not_equal(r.requested[k], (uint32_t)z);
    hld_zs_tick(&g_z, at, &r);
    int again = 0;
    for (uint32_t k = 0; k < r.n_requested; k++)
        again |= r.requested[k] == (uint32_t)z;
    assert_true(again);
}

/* One zone larger than the budget starts alone in an empty tick. */
static void test_large_zone_alone(void **state) {
    (void)state;
    static fake_t f;
    hld_zs_config_t cfg = config();
    cfg.cap_bytes = 64 * MB;
    memset(&f, 0, sizeof f);
    f.z = &g_z;
    hld_zs_ops_t ops = {
        .user = &f, .load = fake_load, .cancel = fake_cancel, .unload = fake_unload};
    hld_zs_init(&g_z, &cfg, &ops);
    const float p[3] = {0, 0, 0};
    assert_int_equal(hld_zs_add(&g_z, "big", p, 10.0f, 10 * MB), 0);
    assert_int_equal(hld_zs_add(&g_z, "small", p, 10.0f, 1 * MB), 1);
    char longname[HLD_ZS_NAME + 1];
    memset(longname, 'x', HLD_ZS_NAME);
    longname[HLD_ZS_NAME] = '\0';
    assert_int_equal(hld_zs_add(&g_z, longname, p, 10.0f, 1), -1); /* too long */
    hld_zs_report_t r;
    hld_zs_tick(&g_z, p, &r);
    /* "big" and "small" tie on distance: by name, big first, alone */
    assert_int_equal(r.n_requested, 1);
    assert_int_equal(r.requested[0], 0);
    hld_zs_tick(&g_z, p, &r);
    assert_int_equal(r.n_requested, 1);
    assert_int_equal(r.requested[0], 1);
}

/* Three zones of 0.8 MB under a 2 MB cap, pin radius 1 m: standing on the
 * third one's centre evicts the farthest unpinned zone first, it never
 * loads over the cap. */
static void test_pinned_within_cap(void **state) {
    (void)state;
    static fake_t f;
    hld_zs_config_t cfg = config();
    cfg.cap_bytes = 2 * MB;
    cfg.pin_radius = 1.0f;
    memset(&f, 0, sizeof f);
    f.z = &g_z;
    hld_zs_ops_t ops = {
        .user = &f, .load = fake_load, .cancel = fake_cancel, .unload = fake_unload};
    hld_zs_init(&g_z, &cfg, &ops);
    const float pa[3] = {0, 0, 0}, pb[3] = {10, 0, 0}, pc[3] = {20, 0, 0};
    const uint64_t sz = 4 * MB / 5;
    assert_int_equal(hld_zs_add(&g_z, "a", pa, 100.0f, sz), 0);
    assert_int_equal(hld_zs_add(&g_z, "b", pb, 100.0f, sz), 1);
    assert_int_equal(hld_zs_add(&g_z, "c", pc, 100.0f, sz), 2);
    hld_zs_report_t r;
    for (int t = 0; t < 20; t++) {
        fake_complete(&f);
        hld_zs_tick(&g_z, pa, &r);
        assert_true(f.held <= cfg.cap_bytes);
    }
    assert_int_equal(g_z.zone[0].state, HLD_ZS_LOADED);
    assert_int_equal(g_z.zone[1].state, HLD_ZS_LOADED);
    assert_int_equal(g_z.zone[2].state, HLD_ZS_OUT);
    for (int t = 0; t < 20; t++) {
        fake_complete(&f);
        hld_zs_tick(&g_z, pc, &r);
        assert_true(f.held <= cfg.cap_bytes);
    }
    assert_int_equal(g_z.zone[2].state, HLD_ZS_LOADED); /* pinned: it made room */
    assert_int_equal(g_z.zone[0].state, HLD_ZS_OUT);    /* the farthest went */
    assert_true(g_z.tot.peak_resident_bytes <= cfg.cap_bytes);
}

/* A load that turns out larger than its estimate evicts to stay within the cap. */
static void test_completion_over_estimate(void **state) {
    (void)state;
    static fake_t f;
    hld_zs_config_t cfg = config();
    cfg.cap_bytes = 2 * MB;
    cfg.pin_radius = 0.0f;
    memset(&f, 0, sizeof f);
    f.z = &g_z;
    hld_zs_ops_t ops = {
        .user = &f, .load = fake_load, .cancel = fake_cancel, .unload = fake_unload};
    hld_zs_init(&g_z, &cfg, &ops);
    const float pa[3] = {0, 0, 0}, pb[3] = {10, 0, 0}, lis[3] = {-5, 0, 0};
    assert_int_equal(hld_zs_add(&g_z, "a", pa, 100.0f, MB / 2), 0);
    assert_int_equal(hld_zs_add(&g_z, "b", pb, 100.0f, MB), 1);
    hld_zs_report_t r;
    hld_zs_tick(&g_z, lis, &r);
    assert_int_equal(r.n_requested, 2);
    hld_zs_done(&g_z, 1, 1, MB);
    f.loading[1] = 0;
    hld_zs_tick(&g_z, lis, &r);
    /* a's real size is 1.5 MB: with b's 1 MB, over the cap */
    hld_zs_done(&g_z, 0, 1, 3 * MB / 2);
    f.loading[0] = 0;
    f.held += MB;
    hld_zs_tick(&g_z, lis, &r);
    assert_int_equal(r.n_evicted, 1);
    assert_int_equal(r.evicted[0], 1); /* b, the farther */
    assert_true(f.held <= cfg.cap_bytes);
    assert_true(r.resident_bytes <= cfg.cap_bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_invariants),         cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_border_hysteresis),        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_large_zone_alone),         cmocka_unit_test(test_pinned_within_cap),
        cmocka_unit_test(test_completion_over_estimate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
