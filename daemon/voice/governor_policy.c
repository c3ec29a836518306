/*
 * governor_policy.c - the governor's decisions (see governor.h): what one
 * poll's figures do to the real-voice limit and the quality limit. No
 * daemon state: governor.c gathers the figures and applies the result, and
 * tests/unit/test_governor.c drives this with made-up block costs.
 */
#include "governor_policy.h"

#include <stdint.h>

/* Adds this tick's mean block cost to the window and returns the window's
 * median: the typical block, which a few preempted ones do not move. */
static double typical_block(hld_governor_t *g, double mean) {
    g->window[g->window_at] = mean;
    g->window_at = (g->window_at + 1) % HLD_GOV_WINDOW;
    if (g->window_n < HLD_GOV_WINDOW) g->window_n++;
    double v[HLD_GOV_WINDOW];
    uint32_t n = g->window_n;
    for (uint32_t i = 0; i < n; i++) { /* insertion sort: at most HLD_GOV_WINDOW */
        double x = g->window[i];
        uint32_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The cost of a voice, from the typical block over the voices mixed (real
 * ones and those still fading out after going virtual): rises at once,
 * decays slowly. With too few voices to tell, an empty engine's typical
 * block is the base cost. */
static void learn_costs(hld_governor_t *g, double typical, uint32_t real, uint32_t mixed) {
    if (mixed >= HLD_GOV_MIN_SAMPLE) {
        double per = (typical - g->base_ns) / mixed;
        if (per > g->voice_ns)
            g->voice_ns = per;
        else
            g->voice_ns += (per - g->voice_ns) * HLD_GOV_DECAY;
    } else if (real == 0) {
        g->base_ns = typical;
    }
}

/* Over budget: the quality step, else a cut. Returns what changed. */
static unsigned over_budget(hld_governor_t *g, const hld_gov_sample_t *in, double typical,
                            uint32_t *limit) {
    /* quality before voices: real voices on the sinc or cubic interpolator
     * step down to linear (the least important first) as far as that saves
     * what the worst block is over */
    uint32_t hq = g->cubic_limit < in->hq ? g->cubic_limit : in->hq;
    g->hold_ns = in->now_ns + HLD_GOV_HOLD_MS * HLD_NS_PER_MS;
    if (hq > 0) {
        double over = (double)in->worst_ns - g->budget_ns * HLD_GOV_CUT_TO;
        double per = g->voice_ns * HLD_GOV_CUBIC_SAVING;
        double steps = per > 0 ? over / per + 1 : hq;
        g->cubic_limit = steps >= hq ? 0 : hq - (uint32_t)steps;
        g->steps_down++;
        return HLD_GOV_SET_QUALITY;
    }
    /* cut to what the worst block says fits; when the typical block is
     * fine (a few late blocks), by a tenth at most */
    double scale = g->budget_ns * HLD_GOV_CUT_TO / (double)in->worst_ns;
    if (typical < g->budget_ns * HLD_GOV_LOW && scale < 0.9) scale = 0.9;
    /* the voices cut fade out on the full path, costing more for a few
     * blocks: a quarter of them at most per poll */
    if (scale < HLD_GOV_CUT_MIN) scale = HLD_GOV_CUT_MIN;
    uint32_t want = (uint32_t)(in->real * scale);
    if (want < *limit) *limit = want;
    return 0;
}

/* Room under the budget: more real voices, then quality back. */
static unsigned under_budget(hld_governor_t *g, const hld_gov_sample_t *in, uint32_t *limit) {
    double fit = (g->budget_ns * HLD_GOV_GROW_TO - g->base_ns) / g->voice_ns;
    /* the voices a step brings in fade in on the full path: what the
     * headroom pays for at that price, an eighth of the limit at most */
    double room = (g->budget_ns * HLD_GOV_GROW_TO - (double)in->worst_ns) /
                  (g->voice_ns * HLD_GOV_TRANSITION);
    uint32_t step = *limit / 8 > HLD_GOV_MIN_STEP ? *limit / 8 : HLD_GOV_MIN_STEP;
    if (room < step) step = room > 1 ? (uint32_t)room : 1;
    if (fit > *limit) {
        *limit = fit > (double)*limit + step ? *limit + step : (uint32_t)fit;
        return 0;
    }
    if (g->cubic_limit != UINT32_MAX && in->lowq > 0 && in->governed == 0) {
        /* every voice that can be is real: quality comes back, the most
         * important voices first, as far as the headroom pays for */
        double q = (g->budget_ns * HLD_GOV_GROW_TO - (double)in->worst_ns) /
                   (g->voice_ns * HLD_GOV_CUBIC_SAVING);
        uint32_t hq = g->cubic_limit, qs = hq / 8 > HLD_GOV_MIN_STEP ? hq / 8 : HLD_GOV_MIN_STEP;
        if (q < qs) qs = q > 1 ? (uint32_t)q : 1;
        g->cubic_limit = hq + qs >= in->hq ? UINT32_MAX : hq + qs;
        return HLD_GOV_SET_QUALITY;
    }
    return 0;
}

unsigned hld_governor_step(hld_governor_t *g, const hld_gov_sample_t *in) {
    if (g->budget_ns <= 0 || !in->callbacks || !in->worst_ns) return 0; /* nothing to judge */
    double before =
        g->window_n ? g->window[(g->window_at + HLD_GOV_WINDOW - 1) % HLD_GOV_WINDOW] : 0;
    double typical = typical_block(g, in->mean_ns);
    uint32_t mixed = in->mixed > in->real ? in->mixed : in->real;
    learn_costs(g, typical, in->real, mixed);
    const double low = g->budget_ns * HLD_GOV_LOW;
    uint32_t limit = g->limit;
    unsigned act = 0;
    if ((double)in->worst_ns > g->budget_ns && in->real > 0) {
        g->hits++;
        /* what the voices are believed to cost: a late block while they
         * cost well under the budget (a preempted thread, a stalled
         * machine) is not theirs to pay for, and cutting them would not
         * make it on time. A real overload is heavy block after block: two
         * heavy polls in a row are not a spike, even before the typical
         * block has moved. */
        double explained = g->base_ns + mixed * g->voice_ns;
        if (explained < low && typical < low && (in->mean_ns < low || before < low)) {
            g->spikes++;
            return 0;
        }
        act = over_budget(g, in, typical, &limit);
        if (act) return act;
    } else if ((double)in->worst_ns < low && g->voice_ns > 0 && in->now_ns >= g->hold_ns) {
        act = under_budget(g, in, &limit);
    }
    if (limit < 1) limit = 1;
    if (limit != g->limit) {
        if (limit < g->limit) g->cuts++;
        g->limit = limit;
        act |= HLD_GOV_SET_LIMIT;
    }
    return act;
}
