/*
 * hl_mix_part.h - the mix spread over several threads (--mix-threads).
 *
 * Above HL_MIX_PART_MIN active voices the voice list is cut into P fixed
 * partitions (P depends on the voice count alone, at most HL_MIX_PARTS).
 * The steady voices of each partition (hl_rt_fast_t, no post stage) are
 * mixed into that partition's own bus accumulators; the audio thread then
 * adds the partitions into the buses in partition order and mixes the
 * remaining voices itself, in list order. The partitions' sums do not depend
 * on which thread computed them, so the output is the same to the bit with
 * 1, 2 or HL_MIX_PARTS threads (tests/unit/test_mix_part.c).
 *
 * Thread t of T (t = 0: the audio thread) takes partitions t*P/T .. in
 * chunks of HL_MIX_CHUNK voices claimed with one atomic add each. A worker
 * that has not finished when the audio thread is done and its share is
 * over (twice the time the audio thread took for its own share plus
 * HL_MIX_LATE_MIN_NS, at most cfg.late_pct of the block's duration) is late:
 * the audio thread claims the chunks it has not started and mixes them
 * itself (counted: late); the one chunk it is inside is waited for until the
 * block's whole duration, then dropped for this block (counted: dropped;
 * its voices are left alone until the worker is back, and it gets no work
 * until then; nor are commands applied until then: each waits in the ring
 * or the schedule, counted: held). The threads themselves (creation, priority, pinning,
 * sleeping) belong to the daemon (daemon/output/mix_workers.c): here are
 * only the memory, atomics and the work.
 */
#ifndef HL_MIX_PART_H
#define HL_MIX_PART_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hl_layout.h"
#include "hl_mixer.h"

/* clang-format off */
#define HL_MIX_PARTS       4   /* partitions, so also mix threads at most: the summation order */
#define HL_MIX_PART_MIN    256 /* voices per partition at least: a smaller mix is one partition,
                                * the plain single-threaded loop */
#define HL_MIX_CHUNK       32  /* voices per claim */
#define HL_MIX_PART_CH     8 /* planes per bus of a partition's accumulators: a steady voice's
                                * (7.1's; on 7.1.4 a steady 3D voice is left: f.ramp, a 2D one FL/FR) */
#define HL_MIX_LATE_PCT    50  /* % of a block's duration the workers have at most before the
                                * audio thread takes their unstarted chunks */
#define HL_MIX_LATE_MIN_NS 50000 /* and beyond twice the audio thread's own share, this much:
                                  * a worker that has not woken costs a bounded wait */
/* clang-format on */

typedef struct hl_mix_part hl_mix_part_t;

typedef struct {
    uint32_t threads;  /* 1..HL_MIX_PARTS, the audio thread included */
    uint32_t slots;    /* the mixer's physical slots (hl_mixer_slots) */
    uint32_t late_pct; /* 0 = HL_MIX_LATE_PCT; >= 1000: no time bound (tests) */
    /* wakes worker w (1..threads-1) if it sleeps on *hl_mix_part_go(p, w):
     * called on the audio thread, RT safe (a futex wake) */
    void (*wake)(void *user, uint32_t w);
    void *user;
    /* the bound's clock, ns (RT safe; not the mixer's: a render's stands
     * still); NULL: a spin count */
    uint64_t (*clock_ns)(void);
    /* tests: called by worker w as it starts chunk k of a task (NULL: none) */
    void (*stall)(void *user, uint32_t w, uint32_t k);
} hl_mix_part_config_t;

size_t hl_mix_part_size(const hl_mix_part_config_t *cfg);
/* Lays it out in mem (caller's, 64-byte aligned, zeroed by this call). NULL
 * on a bad config. Main thread. */
hl_mix_part_t *hl_mix_part_init(void *mem, size_t size, const hl_mix_part_config_t *cfg);
/* The mixer mixes through p from now on (NULL: the one-thread loop). Main
 * thread, while the audio thread is not running. Returns -1 if p was sized
 * for fewer slots than m has. */
int hl_mixer_set_parts(hl_mixer_t *m, hl_mix_part_t *p);

/* Worker side, worker w in 1..threads-1. The word a worker sleeps on (its
 * task generation) and the flag it raises before sleeping. */
_Atomic uint32_t *hl_mix_part_go(hl_mix_part_t *p, uint32_t w);
_Atomic uint32_t *hl_mix_part_sleeping(hl_mix_part_t *p, uint32_t w);
/* Runs worker w's task for generation go (its chunks, then marks it idle). */
void hl_mix_part_run_rt(hl_mix_part_t *p, uint32_t w);
/* A plain worker w (no real-time rule: the tests', the governor's
 * calibration): spins on its go word, calling idle (e.g. sched_yield)
 * between looks, and runs each task, until HL_MIX_PART_QUIT. The daemon's
 * own sleep on a futex (daemon/output/mix_workers.c). */
void hl_mix_part_spin(hl_mix_part_t *p, uint32_t w, int (*idle)(void));
/* Waits, calling idle between looks, until every worker is done with the
 * task it was last handed (a stuck one too), then lifts the quarantine:
 * the mixer's voices are the caller's alone. Main thread, while the audio
 * thread is not running (the governor's calibration, before it frees the
 * mixer it lent p to). */
void hl_mix_part_settle(hl_mix_part_t *p, int (*idle)(void));
/* Asks the workers to leave: their go word becomes HL_MIX_PART_QUIT. Main thread. */
#define HL_MIX_PART_QUIT UINT32_MAX
void hl_mix_part_quit(hl_mix_part_t *p);

typedef struct {
    uint64_t blocks;  /* blocks mixed in partitions */
    uint64_t shared;  /* of those, blocks a worker took part in */
    uint64_t late;    /* blocks a worker missed its share of and the audio thread finished */
    uint64_t dropped; /* chunks dropped: a worker stuck for a whole block */
    uint64_t held;    /* command drains (a call's, a scheduled frame's) put off while a
                       * worker stuck in a dropped chunk still holds voices */
} hl_mix_part_stats_t;
void hl_mix_part_stats(const hl_mix_part_t *p, hl_mix_part_stats_t *out);

#endif /* HL_MIX_PART_H */
