/*
 * test_loops_seqlock.c - hld_dstream_loops_left (daemon/assets/dstream.c) never
 * returns a torn mix of two loop jumps. A writer thread publishes jumps
 * (mark_jump) while a reader calls hld_dstream_loops_left: with nothing
 * consumed and fewer than HLD_LOOP_MARKS jumps, every published jump is
 * still ahead of the listener, so the answer is always the opening count
 * (loops_now + jumps ahead): a reader that took a new loops_now with an old
 * jump count sees one less. Trials restart under the writer's control.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../daemon/assets/dstream.c"

#define LOOPS   1000
#define TRIALS  200000
#define PER_RUN (HLD_LOOP_MARKS - 1)

static hld_dstream_t g_ds;
static _Atomic uint32_t g_trial; /* odd: the writer resets or is done */
static _Atomic int g_done, g_torn;
static _Atomic uint64_t g_reads;

static void *reader(void *arg) {
    (void)arg;
    while (!atomic_load(&g_done)) {
        uint32_t t0 = atomic_load(&g_trial);
        if (t0 & 1) continue;
        int64_t left = hld_dstream_loops_left(&g_ds);
        if (atomic_load(&g_trial) != t0) continue; /* a reset overlapped: no verdict */
        atomic_fetch_add(&g_reads, 1);
        if (left != LOOPS) atomic_fetch_add(&g_torn, 1);
    }
    return NULL;
}

static void test_loops_left_never_torn(void **state) {
    (void)state;
    static uint8_t storage[1 << 16];
    assert_int_equal(hl_stream_init(&g_ds.stream, storage, 1024, 1), 0);
    atomic_store(&g_trial, 1);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, reader, NULL), 0);
    for (uint32_t t = 0; t < TRIALS; t++) {
        /* reset (odd trial: the reader gives no verdict) */
        g_ds.loops_left = LOOPS;
        g_ds.written = 1;
        atomic_store(&g_ds.loops_now, LOOPS);
        atomic_store(&g_ds.jumps, 0);
        atomic_store(&g_trial, 2 * t + 2);
        for (int k = 0; k < PER_RUN; k++) {
            g_ds.loops_left--;
            g_ds.written += 100;
            mark_jump(&g_ds);
        }
        atomic_store(&g_trial, 2 * t + 3);
    }
    atomic_store(&g_done, 1);
    pthread_join(th, NULL);
    print_message("%llu reads, %d torn\n", (unsigned long long)atomic_load(&g_reads),
                  atomic_load(&g_torn));
    assert_int_equal(atomic_load(&g_torn), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loops_left_never_torn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
