/*
 * zone_sched.h - the world-zone loading scheduler's core: which zones (banks
 * with a position and a radius) to load, cancel, unload or evict at each
 * tick, from the listener's position. Pure and deterministic: no clock, no
 * I/O, no randomness; the caller supplies the loader (start, cancel,
 * unload) and reports completions, and the same inputs in the same order
 * give the same decisions and the same report, byte for byte. The daemon
 * drives it from a libuv timer (zones.c); the unit test drives it with a
 * simulated clock and a fake loader.
 *
 * Each tick, in this order:
 *   1. completions reported since the last tick apply (loading -> loaded,
 *      or failed with a retry after a backoff of 2, 4, 8 .. 64 ticks);
 *   2. a zone loading beyond its unload radius is cancelled at once (its
 *      memory given back by the loader);
 *   3. a loaded zone beyond its unload radius is unloaded;
 *   4. zones within their load radius that are not resident, not loading,
 *      not cooling down and not waiting for a retry are started nearest
 *      first (ties by name), as long as the tick's bytes stay within the
 *      per-tick budget (a zone larger than the budget may start alone in an
 *      otherwise empty tick), and the resident plus in-flight bytes stay
 *      within the cap: to make room, loaded zones farther than the
 *      candidate and outside the pin radius are evicted farthest first (a
 *      candidate within the pin radius may evict any zone outside it); a
 *      zone within the pin radius is never evicted; a zone that cannot
 *      fit waits. An evicted or cancelled zone cools down for `cooldown`
 *      ticks (not re-requested in the same or the next tick).
 * Between 1 and 2, a completion whose real size is larger than its estimate
 * and takes the held bytes over the cap evicts loaded zones (unpinned ones
 * first, farthest first) until they are within it again: the cap holds at
 * every tick, pinned or not.
 * The unload radius is the load radius x unload_factor (> 1): standing on
 * the border never makes a zone load and unload repeatedly.
 */
#ifndef HLD_ZONE_SCHED_H
#define HLD_ZONE_SCHED_H

#include <stddef.h>
#include <stdint.h>

#define HLD_ZS_MAX_ZONES 256
#define HLD_ZS_NAME      64

enum { HLD_ZS_OUT = 0, HLD_ZS_LOADING, HLD_ZS_LOADED };

typedef struct {
    char name[HLD_ZS_NAME];
    float pos[3];
    float radius;   /* load radius, m */
    uint64_t bytes; /* what loading it costs (its bank's decoded size, estimated until loaded) */
    /* state */
    int state;           /* HLD_ZS_* */
    uint64_t cool_until; /* not requested before this tick */
    uint64_t retry_at;   /* after a failure: not requested before this tick */
    uint32_t failures;   /* consecutive: the backoff's exponent */
    int done_pending;    /* a completion arrived: 1 ok, -1 failed, 0 none */
    uint64_t done_bytes; /* its real size, with an ok completion */
    int used;            /* slot in use */
} hld_zs_zone_t;

typedef struct {
    float unload_factor;     /* unload radius = radius x this (default 1.25) */
    uint64_t budget_bytes;   /* started per tick (--zone-budget-kb) */
    uint64_t cap_bytes;      /* resident + in flight (--zone-cap-mb) */
    float pin_radius;        /* zones whose centre is this near are never evicted */
    uint32_t cooldown_ticks; /* after an eviction or a cancel (default 2) */
} hld_zs_config_t;

typedef struct {
    void *user;
    /* start loading zone i: 0, or a negative code (a failure, retried) */
    int (*load)(void *user, uint32_t i);
    void (*cancel)(void *user, uint32_t i); /* stop a load in flight, free what it holds */
    void (*unload)(void *user, uint32_t i); /* drop a loaded zone */
} hld_zs_ops_t;

/* What one tick did. Lists are zone indices, in the order acted on. */
typedef struct {
    uint64_t tick;
    uint32_t requested[HLD_ZS_MAX_ZONES], n_requested;
    uint32_t completed[HLD_ZS_MAX_ZONES], n_completed;
    uint32_t failed[HLD_ZS_MAX_ZONES], n_failed;
    uint32_t cancelled[HLD_ZS_MAX_ZONES], n_cancelled;
    uint32_t unloaded[HLD_ZS_MAX_ZONES], n_unloaded;
    uint32_t evicted[HLD_ZS_MAX_ZONES], n_evicted;
    uint32_t resident;       /* zones loaded after the tick */
    uint64_t resident_bytes; /* their bytes */
    uint32_t in_flight;      /* zones loading after the tick */
    uint64_t in_flight_bytes;
    uint64_t requested_bytes; /* started this tick */
} hld_zs_report_t;

typedef struct {
    uint64_t ticks, requested, completed, failed, cancelled, unloaded, evicted;
    uint64_t peak_resident_bytes, peak_in_flight, largest_tick_bytes;
} hld_zs_totals_t;

typedef struct {
    hld_zs_config_t cfg;
    hld_zs_ops_t ops;
    hld_zs_zone_t zone[HLD_ZS_MAX_ZONES];
    uint32_t n; /* slots used so far (a removed zone leaves a hole) */
    uint64_t tick;
    hld_zs_totals_t tot;
} hld_zs_t;

/* Defaults: unload factor 1.25, budget 4 MiB a tick, cap 256 MiB, pin
 * radius 0, cooldown 2 ticks. */
void hld_zs_config_default(hld_zs_config_t *c);
void hld_zs_init(hld_zs_t *z, const hld_zs_config_t *cfg, const hld_zs_ops_t *ops);
/* Adds a zone (out of memory); its index, or -1 when full or the name too
 * long. A name may repeat (the daemon keeps one per client namespace,
 * world_zones.c): find gives the first. */
int hld_zs_add(hld_zs_t *z, const char *name, const float pos[3], float radius, uint64_t bytes);
/* The index of a zone, or -1. */
int hld_zs_find(const hld_zs_t *z, const char *name);
/* Removes a zone: a load in flight is cancelled, a loaded zone unloaded. */
void hld_zs_remove(hld_zs_t *z, uint32_t i);
/* A load finished (ok 1 with its real size, or 0 failed); applied at the
 * next tick. Ignored unless the zone is loading (a late completion of a
 * cancelled load is the loader's to drop). */
void hld_zs_done(hld_zs_t *z, uint32_t i, int ok, uint64_t bytes);
/* One tick from the listener's position. */
void hld_zs_tick(hld_zs_t *z, const float lis[3], hld_zs_report_t *rep);
/* The report as one line of text (names, not indices), into buf; returns
 * the length (truncated to cap - 1). */
size_t hld_zs_report_text(const hld_zs_t *z, const hld_zs_report_t *rep, char *buf, size_t cap);

#endif /* HLD_ZONE_SCHED_H */
