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
 *   pitched, cubic) to estimate the cost of one; the limit starts at a
 *   quarter of what that says fits (a busy machine costs more) and grows as
 *   measured costs allow, so a burst of plays before any measurement is
 *   already limited.
 *
 * Main thread only.
 */
#ifndef HLD_GOVERNOR_H
#define HLD_GOVERNOR_H

#include <stdint.h>

#include "hld_limits.h"

struct hld_engine;
struct hld_vm;

typedef struct {
    double budget_ns;     /* the callback budget; 0 = the governor is off */
    double voice_ns;      /* estimated cost of one real voice per callback */
    double base_ns;       /* cost of a callback with no voice */
    double calib_ns;      /* the start-up worst-case estimate of voice_ns */
    uint32_t limit;       /* real voices allowed now */
    uint32_t cubic_limit; /* quality steps real voices keep (sinc 2, cubic 1; UINT32_MAX: all) */
    uint64_t steps_down;  /* over-budget polls answered by the quality step alone */
    uint64_t hits;        /* polls that found a callback over the budget */
    uint64_t cuts;        /* times the limit went down */
    uint64_t spikes;      /* hits the voices could not explain (no cut) */
    uint64_t last_cb;     /* engine callbacks at the last look */
    uint64_t last_sum;    /* and their summed duration */
    uint64_t hold_ns;     /* no growth before this: set by a cut (hysteresis) */
    double window[HLD_GOV_WINDOW]; /* the last ticks' mean block costs (ns), a ring */
    uint32_t window_n, window_at;  /* how many are in it; where the next goes */
} hld_governor_t;

/* One poll's figures, as governor.c reads them from the engine and the
 * voice manager. */
typedef struct {
    uint64_t worst_ns;  /* the longest callback since the last poll */
    double mean_ns;     /* the mean callback since then */
    uint64_t callbacks; /* how many callbacks that was */
    uint64_t now_ns;    /* CLOCK_MONOTONIC */
    uint32_t real;      /* real voices */
    uint32_t mixed;     /* voices the mixer mixed (real, and virtual ones still fading) */
    uint32_t hq;        /* real voices on sinc or cubic */
    uint32_t lowq;      /* voices the quality step holds down */
    uint32_t governed;  /* voices virtual for the budget */
} hld_gov_sample_t;

enum { HLD_GOV_SET_LIMIT = 1, HLD_GOV_SET_QUALITY = 2 };

/* The policy (governor_policy.c; no daemon state): moves g->limit and
 * g->cubic_limit for one poll and returns which of them the voice manager
 * must be told (HLD_GOV_SET_*). */
unsigned hld_governor_step(hld_governor_t *g, const hld_gov_sample_t *in);

/* Sets the budget from cpu_budget (cfg.cpu_budget: % of the engine's
 * period, 0 = off) and measures the worst-case voice cost (a few ms of
 * rendering, before the audio thread starts); vm's real limit follows. */
void hld_governor_init(hld_governor_t *g, const struct hld_engine *e, struct hld_vm *vm,
                       float cpu_budget, float speed_of_sound);
/* Once per poll tick (not while shutting down): reads the engine's
 * callback costs, moves vm's limits. */
void hld_governor_tick(hld_governor_t *g, struct hld_engine *e, struct hld_vm *vm);

#endif /* HLD_GOVERNOR_H */
