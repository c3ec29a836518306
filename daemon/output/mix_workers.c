/*
 * mix_workers.c - the mix threads (see mix_workers.h).
 */
#include "mix_workers.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "heliod_errors.h"
#include "hld_limits.h"
#include "log.h"

#define SPIN_CHECK  64          /* looks at the task word between two looks at the clock */
#define STACK_TOUCH (64 * 1024) /* bytes of stack faulted in at start */

extern _Thread_local int heliod_rt_thread_flag; /* engine.c: the tests/rt hook's flag */

typedef struct {
    hld_mix_workers_t *ws;
    uint32_t w;
    pthread_t th;
    int started;
} worker_t;

struct hld_mix_workers {
    hl_mix_part_t *p;
    void *mem;
    uint32_t threads;
    worker_t w[HL_MIX_THREADS];
};

/* CLOCK_MONOTONIC (the wall's, also under --render's virtual clock). */
static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val) {
    return syscall(SYS_futex, (uint32_t *)(void *)addr, op, val, NULL, NULL, 0);
}

/* The audio thread's wake of a sleeping worker: one system call, no lock. */
static void wake_rt(void *user, uint32_t w) {
    hld_mix_workers_t *ws = user;
    futex(hl_mix_part_go(ws->p, w), FUTEX_WAKE_PRIVATE, 1);
}

static void touch_stack(void) {
    volatile unsigned char buf[STACK_TOUCH];
    for (size_t i = 0; i < sizeof buf; i += 4096)
        buf[i] = 0;
}

static void *worker_main(void *arg) {
    worker_t *wk = arg;
    hl_mix_part_t *p = wk->ws->p;
    _Atomic uint32_t *go = hl_mix_part_go(p, wk->w), *sleeping = hl_mix_part_sleeping(p, wk->w);
    touch_stack();
    heliod_rt_thread_flag = 1; /* the real-time rule holds here (tests/rt checks) */
    uint32_t seen = 0;
    uint64_t idle_from = mono_ns(), spin = HLD_MIX_SPIN_NS;
    for (;;) {
        uint32_t g = atomic_load_explicit(go, memory_order_acquire);
        const uint64_t until = idle_from + spin;
        for (uint32_t s = 1; g == seen && spin; s++) {
            if (s % SPIN_CHECK == 0 && mono_ns() > until) break;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            g = atomic_load_explicit(go, memory_order_acquire);
        }
        if (g == seen) {
            atomic_store(sleeping, 1); /* seq_cst: against the audio thread's go, then look */
            if (atomic_load(go) == seen) futex(go, FUTEX_WAIT_PRIVATE, seen);
            atomic_store(sleeping, 0);
            continue;
        }
        if (g == HL_MIX_PART_QUIT) break;
        spin = hld_mix_spin_ns(mono_ns() - idle_from);
        hl_mix_part_run_rt(p, wk->w);
        seen = g;
        idle_from = mono_ns();
    }
    heliod_rt_thread_flag = 0;
    return NULL;
}

uint32_t hld_mix_threads_default(void) {
    cpu_set_t set;
    uint32_t n = 1;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = (uint32_t)CPU_COUNT(&set);
    if (n < 1) n = 1;
    return n > HL_MIX_THREADS ? HL_MIX_THREADS : n;
}

/* Real-time priority where the user may have it. Pinned to a CPU of its own
 * only where the process may use more CPUs than there are mix threads: the
 * audio thread is the driver's and not pinned, and an audio thread spinning
 * for a worker on the CPU the worker is pinned to, both SCHED_FIFO at one
 * priority, would wait for it until the bound; unpinned, the scheduler's
 * real-time push and pull keep them on different CPUs. */
static void place(worker_t *wk, uint32_t threads) {
    char name[16];
    snprintf(name, sizeof name, "heliod-mix%u", wk->w);
    pthread_setname_np(wk->th, name);
    struct sched_param sp = {.sched_priority = HLD_RT_PRIORITY};
    int rc = pthread_setschedparam(wk->th, SCHED_FIFO, &sp);
    cpu_set_t set;
    int cpu = -1;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && (uint32_t)CPU_COUNT(&set) > threads) {
        /* the w-th allowed CPU from the top: the audio thread keeps the lower ones */
        uint32_t k = 0;
        for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
            if (CPU_ISSET(c, &set) && ++k == wk->w) cpu = c;
    }
    if (cpu >= 0) {
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (pthread_setaffinity_np(wk->th, sizeof set, &set) != 0) cpu = -1;
    }
    hld_info("mix thread %u: %s, %s%d", wk->w, rc == 0 ? "SCHED_FIFO" : "normal priority",
             cpu >= 0 ? "CPU " : "not pinned (no spare CPU) ", cpu >= 0 ? cpu : 0);
}

int hld_mix_workers_open(hld_mix_workers_t **out, hl_mixer_t *m, uint32_t threads) {
    *out = NULL;
    hld_mix_workers_t *ws = calloc(1, sizeof *ws);
    if (!ws) return HELIOD_ENOMEM;
    ws->threads = threads;
    /* slots enough for the governor's calibration too, which borrows them */
    const uint32_t slots = hl_mixer_slots(m);
    /* planes for the output's channels: the calibration's mixer has the same layout */
    hl_mix_part_config_t pc = {.threads = threads,
                               .slots = slots > HLD_GOV_CALIB_SLOTS ? slots : HLD_GOV_CALIB_SLOTS,
                               .channels = hl_mixer_channels(m),
                               .wake = wake_rt,
                               .user = ws,
                               .clock_ns = mono_ns};
    size_t size = hl_mix_part_size(&pc);
    ws->mem = size ? aligned_alloc(64, (size + 63) / 64 * 64) : NULL;
    ws->p = ws->mem ? hl_mix_part_init(ws->mem, (size + 63) / 64 * 64, &pc) : NULL;
    if (!ws->p) {
        hld_error("mix threads: cannot allocate %zu KiB of partitions", size / 1024);
        free(ws->mem);
        free(ws);
        return HELIOD_ENOMEM;
    }
    for (uint32_t w = 1; w < threads; w++) {
        worker_t *wk = &ws->w[w];
        wk->ws = ws;
        wk->w = w;
        int rc = pthread_create(&wk->th, NULL, worker_main, wk);
        if (rc) {
            hld_error("mix threads: cannot start thread %u: %s", w, strerror(rc));
            hld_mix_workers_close(ws, NULL);
            return HELIOD_EIO;
        }
        wk->started = 1;
        place(wk, threads);
    }
    hl_mixer_set_parts(m, ws->p);
    hld_info("mix threads: %u (the audio thread and %u workers), %zu KiB of partitions", threads,
             threads - 1, size / 1024);
    *out = ws;
    return 0;
}

void hld_mix_workers_close(hld_mix_workers_t *ws, hl_mixer_t *m) {
    if (!ws) return;
    if (m) hl_mixer_set_parts(m, NULL);
    hl_mix_part_quit(ws->p);
    for (uint32_t w = 1; w < ws->threads; w++)
        if (ws->w[w].started) pthread_join(ws->w[w].th, NULL);
    free(ws->mem);
    free(ws);
}

void hld_mix_workers_stats(const hld_mix_workers_t *ws, hl_mix_part_stats_t *out) {
    memset(out, 0, sizeof *out);
    if (ws) hl_mix_part_stats(ws->p, out);
}

hl_mix_part_t *hld_mix_workers_parts(const hld_mix_workers_t *ws) {
    return ws && ws->threads > 1 ? ws->p : NULL;
}

uint32_t hld_mix_workers_threads(const hld_mix_workers_t *ws) {
    return ws ? ws->threads : 1;
}
