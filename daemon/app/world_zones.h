/*
 * world_zones.h - the world-zone loading scheduler in the daemon: zones are
 * banks with a position and a radius, loaded and dropped from the
 * listener's position by zone_sched.c's core, ticked by a libuv timer
 * (--zone-tick-hz; in `heliod --render`, by the renderer on its virtual
 * clock, each load completing before the next period), with banks.c as the
 * loader. Each tick's report goes to
 * ZONE_TICK subscribers; the totals go to STATS. Main thread only.
 */
#ifndef HLD_WORLD_ZONES_H
#define HLD_WORLD_ZONES_H

#include <uv.h>

#include "banks.h"
#include "hl_proto.h"
#include "zone_sched.h"

struct hld_daemon;

typedef struct hld_wzones {
    hld_zs_t zs;
    char (*bank_path)[HL_MAX_PATH + 1];          /* per zone slot */
    hld_bank_t *bank[HLD_ZS_MAX_ZONES];          /* its bank while loading or loaded */
    struct zone_read *reading[HLD_ZS_MAX_ZONES]; /* its manifest being read, or NULL */
    float last_dist[HLD_ZS_MAX_ZONES];
    uint32_t owner[HLD_ZS_MAX_ZONES]; /* client id that added it (asset_ops.c) */
    uv_timer_t timer;
    int timer_init;
    struct hld_daemon *d;
    uint64_t ticks_with_work;
} hld_wzones_t;

/* Sets up the scheduler from the config (budget, cap, pin radius, rate). */
int hld_wzones_init(hld_wzones_t *w, struct hld_daemon *d);
/* Starts the tick timer. */
int hld_wzones_start(hld_wzones_t *w);
/* One tick now: what the timer does (the renderer calls it on its virtual
 * clock instead, so a render with zones is deterministic). */
void hld_wzones_tick(hld_wzones_t *w);
/* 1 while a zone's bank is loading (its result not in yet: the next tick takes it). */
int hld_wzones_loading(const hld_wzones_t *w);
/* The tick interval (--zone-tick-hz), ns. */
uint64_t hld_wzones_tick_ns(const hld_wzones_t *w);
/* Closes the tick timer (shutdown). */
void hld_wzones_stop(hld_wzones_t *w);
/* Frees what init allocated (after the loop ran down). */
void hld_wzones_close(hld_wzones_t *w);
/* Zone names live in namespaces like cue names (cues.h hld_ns_rank_fn, the
 * owner being the client that added the zone): the slot of the zone called
 * name that rank ranks highest (> 0; rank NULL: any), or -1; *r (may be
 * NULL) gets its rank. */
int hld_wzones_find(const hld_wzones_t *w, const char *name, hld_ns_rank_fn rank, const void *ctx,
                    int *r);
/* Adds a zone whose bank was read (bytes: its estimated decoded size) for
 * client id owner; EEXIST when a zone of that name ranks 2 or more for the
 * requester (its process's or a shared one: rank/ctx, NULL: any). */
int hld_wzones_add(hld_wzones_t *w, const hl_zone_t *m, uint32_t owner, uint64_t bytes,
                   hld_ns_rank_fn rank, const void *ctx, char *msg, size_t cap);
/* Removes the zone in slot i (hld_wzones_find). */
void hld_wzones_remove_at(hld_wzones_t *w, int i);
/* A bank changed (banks.c's callback): a zone's load completed or failed. */
void hld_wzones_bank_changed(hld_wzones_t *w, const hld_bank_t *b);
/* The zones rank/ctx sees (rank > 0; NULL: every zone). */
uint32_t hld_wzones_list(const hld_wzones_t *w, hl_zone_info_t *out, uint32_t cap,
                         hld_ns_rank_fn rank, const void *ctx);

#endif /* HLD_WORLD_ZONES_H */
