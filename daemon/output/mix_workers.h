/*
 * mix_workers.h - the mix threads of --mix-threads N: N - 1 worker threads
 * beside the audio thread, which share the voices of large mixes with it
 * (daemon/mixer/hl_mix_part.h: partitions, their claims, the bounded wait;
 * here only the threads).
 *
 * Created at start, before the audio thread: each is named heliod-mixN, runs
 * SCHED_FIFO at the audio thread's priority where the user may have it, is
 * pinned to one of the CPUs the process may use (the last ones, where there
 * are more than one), touches its stack and sets the real-time flag the
 * tests/rt hook reads. Between blocks a worker spins briefly on its task
 * word, then sleeps on it (a futex) with a flag the audio thread checks: the
 * audio thread never takes a lock, only a futex wake when one sleeps. It
 * spins only while tasks come close together (hld_mix_spin_ns).
 */
#ifndef HLD_MIX_WORKERS_H
#define HLD_MIX_WORKERS_H

#include <stdint.h>

#include "hl_mix_part.h"
#include "hl_mixer.h"

typedef struct hld_mix_workers hld_mix_workers_t;

/* How long a worker spins on its task word before it sleeps: 300 us, but
 * not at all when its last wait for a task (`idle_ns`, from the end of one
 * task to the sight of the next) was longer than twice that. A task comes
 * once a block, so at a device period the spin ends before the next one
 * and only burns a CPU (300 us of every 5.3 ms block at 256 frames); it
 * catches tasks that come back to back (a render, the calibration, a block
 * that leaves the worker little slack). A worker woken late costs only
 * speed-up: the audio thread takes the partitions it has not (hl_mix_part.h). */
#define HLD_MIX_SPIN_NS 300000u
static inline uint64_t hld_mix_spin_ns(uint64_t idle_ns) {
    return idle_ns <= 2u * HLD_MIX_SPIN_NS ? HLD_MIX_SPIN_NS : 0;
}

/* The default --mix-threads: the CPUs this process may run on, at most
 * HL_MIX_THREADS (1 on a one-CPU machine). */
uint32_t hld_mix_threads_default(void);

/* Sizes the partitions for m, starts threads - 1 workers and gives the mixer
 * its partitions. 0, HELIOD_ENOMEM or HELIOD_EIO (after logging). Main
 * thread, before the audio thread starts. */
int hld_mix_workers_open(hld_mix_workers_t **out, hl_mixer_t *m, uint32_t threads);
/* Stops and joins the workers, takes the partitions back from the mixer and
 * frees them. NULL is fine. Main thread, after the audio thread stopped. */
void hld_mix_workers_close(hld_mix_workers_t *w, hl_mixer_t *m);
/* Counters (any thread). */
void hld_mix_workers_stats(const hld_mix_workers_t *w, hl_mix_part_stats_t *out);
uint32_t hld_mix_workers_threads(const hld_mix_workers_t *w);
/* The partitions, when there are workers (else NULL): the governor's
 * calibration borrows them before the audio thread starts. */
hl_mix_part_t *hld_mix_workers_parts(const hld_mix_workers_t *w);

#endif /* HLD_MIX_WORKERS_H */
