/*
 * governor_policy.h - the governor's state and its policy (governor_policy.c):
 * what one poll's figures do to the real-voice limit and the quality
 * steps, with no daemon state, so the unit tests drive it with figures of
 * their own. governor.h (the daemon's side: engine readings, the voice
 * manager's limits) includes it; see it for the design.
 */
#ifndef HLD_GOVERNOR_POLICY_H
#define HLD_GOVERNOR_POLICY_H

#include <stdint.h>

#include "hld_limits.h"

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

#endif /* HLD_GOVERNOR_POLICY_H */
