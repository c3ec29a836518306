/*
 * governor.h - the CPU-budget governor: keeps the audio callback inside a
 * budget (--cpu-budget, default 70% of the period) by limiting how many
 * voices are real. The voices it cannot afford become virtual with their
 * fade (VIRTUAL reason GOVERNED) in the voice manager's importance order
 * (audibility x priority), keep their position, and come back when there is
 * room again.
 *
 *   audio thread: engine.c records the longest callback since the last look
 *   main thread (every poll tick, about one period):
 *     the typical block: the median of the last HLD_GOV_WINDOW ticks' mean
 *                         block costs. A preempted block (a busy or
 *                         virtual machine stalls a thread for several ms)
 *                         is one tick's mean and moves neither the median
 *                         nor the cost per voice taken from it; a real
 *                         rise in cost moves the median within half the
 *                         window.
 *     over budget      -> first the quality step: the least important
 *                         sinc voices go cubic and cubic voices go linear
 *                         (a voice's sinc first, then its cubic), as many
 *                         steps as the excess needs; when no step is left:
 *                         limit = real voices x budget / cost (at once,
 *                         a quarter at most), then held for 1 s; unless
 *                         the voices' measured cost and the typical block
 *                         are under 75% of the budget and so was the
 *                         tick before: a late block they do not explain
 *                         (the thread was preempted) is counted, not cut
 *                         for
 *     under 75% of it  -> limit grows towards what the measured cost per
 *                         voice says fits in 85%, an eighth at a time;
 *                         with no voice left governed, the stepped-down
 *                         voices step back up, the most important first
 *   at start-up a private mixer renders worst-case voices (3D, looping,
 *   pitched, cubic, with their post stage: low-pass, occlusion, a send) on
 *   the engine's output layout (a 7.1 voice's post stage costs ~1.7x a
 *   stereo one's) to estimate the cost of one; the limit starts at a
 *   quarter of what that says fits (a busy machine costs more) and grows as
 *   measured costs allow, so a burst of plays before any measurement is
 *   already limited.
 *
 * Main thread only.
 */
#ifndef HLD_GOVERNOR_H
#define HLD_GOVERNOR_H

#include <stdint.h>

#include "governor_policy.h"

struct hld_engine;
struct hld_vm;

/* Sets the budget from cpu_budget (cfg.cpu_budget: % of the engine's
 * period, 0 = off) and measures the worst-case voice cost (a few ms of
 * rendering, before the audio thread starts); vm's real limit follows. */
void hld_governor_init(hld_governor_t *g, const struct hld_engine *e, struct hld_vm *vm,
                       float cpu_budget, float speed_of_sound);
/* Once per poll tick (not while shutting down): reads the engine's
 * callback costs, moves vm's limits. */
void hld_governor_tick(hld_governor_t *g, struct hld_engine *e, struct hld_vm *vm);

#endif /* HLD_GOVERNOR_H */
