/*
 * stats.h - the STATS answer: the fixed list of key/value pairs documented
 * in proto/PROTOCOL.md, gathered from the daemon counters, the engine's
 * callback histogram and the mixer's counters. Main thread only.
 */
#ifndef HLD_STATS_H
#define HLD_STATS_H

#include <stddef.h>

#include "daemon.h"
#include "hl_proto.h"

#define HLD_MAX_STATS 400 /* room for every key below (a gain and 3 meter keys per bus of 32) */

/* Fills up to cap entries; returns how many. */
size_t hld_stats_collect(hld_daemon_t *d, hl_stat_t *out, size_t cap);

#endif /* HLD_STATS_H */
