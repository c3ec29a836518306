/*
 * test_ring.c - unit tests of the SPSC ring (hl_ring.h): wrap-around, full and
 * empty rings, multi-float elements (2-channel frames) and a two-thread
 * stress test with a sequence check (run it under TSan too).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hl_ring.h"

#define SMALL_CAP    8
#define STRESS_CAP   1024
#define STRESS_N     10000000u
#define STRESS_BATCH 37 /* odd batch size so transfers straddle the wrap point */

static void test_init_rejects(void **state) {
    (void)state;
    hl_ring_t r;
    uint32_t buf[SMALL_CAP];
    assert_int_equal(hl_ring_init(&r, buf, 0, 4), -1);
    assert_int_equal(hl_ring_init(&r, buf, 1, 4), -1);
    assert_int_equal(hl_ring_init(&r, buf, 6, 4), -1);
    assert_int_equal(hl_ring_init(&r, buf, SMALL_CAP, 0), -1);
    assert_int_equal(hl_ring_init(&r, buf, SMALL_CAP, 4), 0);
}

static void test_empty_and_full(void **state) {
    (void)state;
    hl_ring_t r;
    uint32_t buf[SMALL_CAP], v[SMALL_CAP + 4];
    assert_int_equal(hl_ring_init(&r, buf, SMALL_CAP, sizeof(uint32_t)), 0);
    assert_int_equal(hl_ring_readable(&r), 0);
    assert_int_equal(hl_ring_writable(&r), SMALL_CAP);
    assert_int_equal(hl_ring_read(&r, v, 1), 0); /* empty: nothing */
    for (uint32_t i = 0; i < SMALL_CAP + 4; i++)
        v[i] = i;
    assert_int_equal(hl_ring_write(&r, v, SMALL_CAP + 4), SMALL_CAP); /* only what fits */
    assert_int_equal(hl_ring_writable(&r), 0);
    assert_int_equal(hl_ring_write(&r, v, 1), 0); /* full: refused */
    uint32_t out[SMALL_CAP];
    assert_int_equal(hl_ring_read(&r, out, SMALL_CAP), SMALL_CAP);
    for (uint32_t i = 0; i < SMALL_CAP; i++)
        assert_int_equal(out[i], i);
    assert_int_equal(hl_ring_readable(&r), 0);
}

static void test_wrap_around(void **state) {
    (void)state;
    hl_ring_t r;
    uint32_t buf[SMALL_CAP];
    assert_int_equal(hl_ring_init(&r, buf, SMALL_CAP, sizeof(uint32_t)), 0);
    uint32_t next_w = 0, next_r = 0;
    for (int round = 0; round < 100; round++) {
        uint32_t in[5], out[5];
        for (int i = 0; i < 5; i++)
            in[i] = next_w++;
        assert_int_equal(hl_ring_write(&r, in, 5), 5);
        assert_int_equal(hl_ring_read(&r, out, 5), 5);
        for (int i = 0; i < 5; i++)
            assert_int_equal(out[i], next_r++);
    }
    /* spans: a region that straddles the end comes as two spans */
    hl_ring_spans_t s;
    uint32_t in[6] = {1, 2, 3, 4, 5, 6};
    assert_int_equal(hl_ring_write(&r, in, 6), 6);
    assert_int_equal(hl_ring_read_spans(&r, &s), 6);
    assert_int_equal(s.n1 + s.n2, 6);
    assert_true(s.n2 > 0); /* 500 written so far: offset 4, 4 + 6 > 8 */
    assert_int_equal(((uint32_t *)s.p1)[0], 1);
    assert_int_equal(((uint32_t *)s.p2)[0], 1 + s.n1);
    hl_ring_read_advance(&r, 6);
    assert_int_equal(hl_ring_readable(&r), 0);
}

static void test_frames(void **state) {
    (void)state;
    hl_ring_t r;
    float buf[SMALL_CAP * 2];
    assert_int_equal(hl_ring_init(&r, buf, SMALL_CAP, 2 * sizeof(float)), 0);
    float in[3][2] = {{0.1f, -0.1f}, {0.2f, -0.2f}, {0.3f, -0.3f}}, out[3][2];
    for (int round = 0; round < 7; round++) {
        assert_int_equal(hl_ring_write(&r, in, 3), 3);
        assert_int_equal(hl_ring_readable(&r), 3); /* counts frames, not floats */
        assert_int_equal(hl_ring_read(&r, out, 3), 3);
        assert_memory_equal(in, out, sizeof in);
    }
}

typedef struct {
    hl_ring_t r;
    uint64_t buf[STRESS_CAP];
} stress_t;

static void *producer(void *arg) {
    stress_t *s = arg;
    uint64_t batch[STRESS_BATCH];
    uint64_t next = 0;
    while (next < STRESS_N) {
        uint32_t n = 0;
        while (n < STRESS_BATCH && next + n < STRESS_N) {
            batch[n] = next + n;
            n++;
        }
        uint32_t w = hl_ring_write(&s->r, batch, n);
        next += w;
        if (w == 0) sched_yield();
    }
    return NULL;
}

static void test_two_threads(void **state) {
    (void)state;
    static stress_t s;
    assert_int_equal(hl_ring_init(&s.r, s.buf, STRESS_CAP, sizeof(uint64_t)), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, producer, &s), 0);
    uint64_t expect = 0, batch[STRESS_BATCH + 5];
    uint64_t bad = 0;
    while (expect < STRESS_N) {
        uint32_t n = hl_ring_read(&s.r, batch, STRESS_BATCH + 5);
        for (uint32_t i = 0; i < n; i++)
            bad += batch[i] != expect + i;
        expect += n;
        if (n == 0) sched_yield();
    }
    pthread_join(th, NULL);
    assert_int_equal(bad, 0);
    assert_int_equal(expect, STRESS_N);
    assert_int_equal(hl_ring_readable(&s.r), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_rejects), cmocka_unit_test(test_empty_and_full),
        cmocka_unit_test(test_wrap_around),  cmocka_unit_test(test_frames),
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
