/*
 * hl_mix_part.h - the mix spread over several threads (--mix-threads).
 *
 * Above HL_MIX_PART_MIN active voices the voice list is cut into P fixed
 * partitions of at least HL_MIX_PART_MIN voices (P depends on the voice
 * count alone, at most HL_MIX_PARTS). Every thread of the block, the audio
 * thread too, claims whole partitions one at a time from one shared counter
 * (an atomic add, then a compare-and-swap on the partition's owner word,
 * tagged with the block's generation) and mixes the steady voices of each
 * (hl_rt_fast_t, no post stage) into that partition's own bus accumulators.
 * The audio thread then adds the partitions into the buses in partition
 * order and mixes the remaining voices itself, in list order (a steady
 * voice whose block reaches a loop point or another edge of its source
 * stays in its partition, on the full path, when that block touches only
 * the voice: mixer_rt.c, edge_in_part). A partition
 * is mixed whole by one thread into one accumulator set: its sum does not
 * depend on the thread, so the output is the same to the bit with any
 * number of threads, whoever mixed what (tests/unit/test_mix_part.c).
 *
 * The claims balance the threads: a worker that wakes late or runs slow
 * takes fewer partitions, and the audio thread, once the counter is past
 * the last, takes every partition still unclaimed (a worker that took none
 * is late, counted). It waits only for the partition a worker is inside,
 * at most cfg.wait_pct of the block's duration from the block's start (a
 * wait beyond twice the audio thread's mean partition time plus
 * HL_MIX_LATE_MIN_NS is counted late too); past that the partition is
 * dropped for this block (counted: dropped; its voices are left alone
 * until the worker is back, and it gets no work until then; nor are
 * commands applied until then: each waits in the ring or the schedule,
 * counted: held). The threads themselves (creation, priority, pinning,
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
#define HL_MIX_PARTS       32  /* partitions at most: the summation order; claims balance the
                                * threads to within one partition */
#define HL_MIX_THREADS     4   /* mix threads at most, the audio thread included */
#define HL_MIX_PART_MIN    256 /* voices per partition at least: a smaller mix is one partition,
                                * the plain single-threaded loop */
#define HL_MIX_PART_CH     8 /* planes per bus of a partition's accumulators at most (cfg.channels
                                * sizes them): a steady voice's (7.1's; on 7.1.4 a steady 3D voice
                                * is left: f.ramp, a 2D one FL/FR) */
#define HL_MIX_WAIT_PCT    50  /* % of a block's duration, from its start, the audio thread
                                * waits at most for a partition a worker is inside: a worker
                                * preempted mid-partition (a VM's stolen time: 10 ms stalls)
                                * costs that partition's voices one block, not the whole
                                * output a callback past its period (at 100%: 4 xruns in 30 s
                                * at 8192 voices on this 2-vCPU VM) */
#define HL_MIX_LATE_MIN_NS 50000 /* a wait beyond twice the audio thread's mean partition
                                  * time and this much: the worker is counted late */
/* clang-format on */

typedef struct hl_mix_part hl_mix_part_t;

typedef struct {
    uint32_t threads; /* 1..HL_MIX_THREADS, the audio thread included */
    uint32_t slots;   /* the mixer's physical slots (hl_mixer_slots) */
    /* the output channels of the mixers it serves (hl_mixer_channels): the
     * planes per bus of its accumulators, HL_MIX_PART_CH at most (0: that
     * many); a mixer with more is refused (hl_mixer_set_parts) */
    uint32_t channels;
    uint32_t wait_pct; /* 0 = HL_MIX_WAIT_PCT; >= 1000: no time bound (tests) */
    /* wakes worker w (1..threads-1) if it sleeps on *hl_mix_part_go(p, w):
     * called on the audio thread, RT safe (a futex wake) */
    void (*wake)(void *user, uint32_t w);
    void *user;
    /* the bound's clock, ns (RT safe; not the mixer's: a render's stands
     * still); NULL: a spin count */
    uint64_t (*clock_ns)(void);
    /* tests: called by thread w (0: the audio thread) as it starts the k-th
     * partition it claimed in a block (NULL: none) */
    void (*stall)(void *user, uint32_t w, uint32_t k);
} hl_mix_part_config_t;

size_t hl_mix_part_size(const hl_mix_part_config_t *cfg);
/* Lays it out in mem (caller's, 64-byte aligned, zeroed by this call). NULL
 * on a bad config. Main thread. */
hl_mix_part_t *hl_mix_part_init(void *mem, size_t size, const hl_mix_part_config_t *cfg);
/* The mixer mixes through p from now on (NULL: the one-thread loop). Main
 * thread, while the audio thread is not running. Returns -1 if p was sized
 * for fewer slots or channels than m has. */
int hl_mixer_set_parts(hl_mixer_t *m, hl_mix_part_t *p);

/* Worker side, worker w in 1..threads-1. The word a worker sleeps on (its
 * task generation) and the flag it raises before sleeping. */
_Atomic uint32_t *hl_mix_part_go(hl_mix_part_t *p, uint32_t w);
_Atomic uint32_t *hl_mix_part_sleeping(hl_mix_part_t *p, uint32_t w);
/* Runs worker w's task for generation go (claims and mixes partitions
 * until none is left, then marks it idle). */
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
    uint64_t blocks;       /* blocks mixed in partitions */
    uint64_t shared;       /* of those, blocks handed to a worker too */
    uint64_t late;         /* blocks a worker missed its share of: took no partition, or the
                            * audio thread waited long for it (see above) */
    uint64_t dropped;      /* partitions dropped: a worker stuck in one for a whole block */
    uint64_t parts;        /* partitions mixed, every thread's */
    uint64_t worker_parts; /* of those, the workers' */
    uint64_t held;         /* command drains (a call's, a scheduled frame's) put off while a
                            * worker stuck in a dropped partition still holds voices */
    uint64_t left;         /* voices left to the audio thread's second pass, all blocks' */
} hl_mix_part_stats_t;
void hl_mix_part_stats(const hl_mix_part_t *p, hl_mix_part_stats_t *out);

#endif /* HL_MIX_PART_H */
