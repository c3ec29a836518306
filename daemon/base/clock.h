/*
 * clock.h - the daemon's clock: CLOCK_MONOTONIC in ns, or the render
 * driver's virtual time while it runs. Any thread (RT safe: vDSO).
 */
#ifndef HLD_CLOCK_H
#define HLD_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "hld_limits.h"

/* The render driver's clock (render.c): while non-zero, hld_now_ns() is this
 * virtual time (engine frames at the engine rate), so whatever the daemon
 * decides by the clock (the voice manager's ticks, cue retrigger limits)
 * follows the rendered audio, not the wall. 0 = the real clock. */
extern _Atomic uint64_t hld_virtual_ns;

/* CLOCK_MONOTONIC in ns. Any thread (RT safe: vDSO). */
static inline uint64_t hld_now_ns(void) {
    uint64_t v = atomic_load_explicit(&hld_virtual_ns, memory_order_relaxed);
    if (v) return v;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * HLD_NS_PER_S + (uint64_t)t.tv_nsec;
}

#endif /* HLD_CLOCK_H */
