/*
 * rt_prep.h - real-time preparation of the process's memory, done once by
 * main() after the engine is open and before its audio thread starts.
 *
 * With RLIMIT_MEMLOCK unlimited: mlockall(MCL_CURRENT | MCL_FUTURE), so the
 * mixer, the sample memory, the rings and every thread's stack stay resident.
 * With a finite limit mlockall is not attempted: MCL_CURRENT counts every
 * mapping (glibc reserves 64 MiB of address space per malloc arena) against
 * the limit and MCL_FUTURE would make later thread stacks and allocations
 * fail. Then only the audio thread's own memory is locked (the mixer here;
 * the record ring locks itself) and one info line says so, with the limit.
 */
#ifndef HLD_RT_PREP_H
#define HLD_RT_PREP_H

#include "engine.h"

/* Returns 1 if mlockall is in force, 0 if only the audio buffers (or
 * nothing) could be locked. Logs once at info. Main thread. */
int hld_rt_lock_memory(const hld_engine_t *e);

#endif /* HLD_RT_PREP_H */
