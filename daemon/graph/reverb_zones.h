/*
 * reverb_zones.h - reverb zones: spheres in the world whose reverb bus is fed from a
 * feed bus (voices send to the feed: --send reverb_zones:-6) at a level that follows
 * the listener's distance to the zone. Main thread only.
 *
 *   weight w = 1 inside the radius, falling linearly to 0 at radius + fade
 *   level    = w / max(1, sum of the weights of the zones on the same feed)
 *
 * so walking from one zone into the next crossfades their reverbs and two
 * overlapping zones never add up to more than one. Each heard zone holds one
 * of its feed bus's HL_BUS_SENDS sends (the heaviest zones win when more
 * overlap); the levels glide over HLD_RZONE_RAMP_MS, and a zone that stops
 * being heard keeps its send, fading to silence, for that long before the
 * send is let go, so a jump of the listener never cuts a tail off.
 */
#ifndef HLD_REVERB_ZONES_H
#define HLD_REVERB_ZONES_H

#include <stdint.h>

#include "buses.h"
#include "hl_proto.h"

#define HLD_RZONE_RAMP_MS 100.0f /* 14 cm of walking at 1.4 m/s: smooth, yet follows */

typedef struct {
    hl_rzone_t z;        /* bus and feed resolved to names */
    int owns_bus;        /* the bus was made for the zone: removed with it */
    float weight, level; /* last update */
    int sending;         /* holds a send on its feed */
    uint64_t silent_ns;  /* when its level went to 0 while sending, else 0 */
    uint32_t owner;      /* client id that set it (bus_ops.c) */
    int feed_ix, bus_ix; /* its feed and bus, resolved in its setter's namespace */
} hld_rzone_t;

typedef struct {
    hld_rzone_t zone[HL_MAX_RZONES];
    uint32_t n;
    hld_buses_t *buses;
    uint32_t rate;
    float lis[3]; /* listener position of the last update */
} hld_rzones_t;

void hld_rzones_init(hld_rzones_t *z, hld_buses_t *buses, uint32_t rate);
/* Adds or changes a zone (validated with hl_validate_rzone). 0 or a code
 * with a message. */
int hld_rzones_set(hld_rzones_t *z, const hl_rzone_t *m, char *msg, size_t cap);
int hld_rzones_remove(hld_rzones_t *z, const char *name, char *msg, size_t cap);
/* Removes zone e (its process has gone) and lets go of its send; its bus
 * stays (removed with the other buses of that process, once unused). */
void hld_rzones_drop(hld_rzones_t *z, hld_rzone_t *e);
/* The listener moved (or a zone changed): new weights and send levels. */
void hld_rzones_update(hld_rzones_t *z, const float lis[3], uint64_t now_ns);
/* Lets go of sends that have been silent for a ramp (call periodically). */
void hld_rzones_tick(hld_rzones_t *z, uint64_t now_ns);
/* The zone named `name`, or NULL. Zone names are per process namespace
 * like bus names (buses.h hld_bus_index: the buses' ns_rank decides). */
hld_rzone_t *hld_rzones_find(hld_rzones_t *z, const char *name);
/* The zone using bus index `bus` as its reverb or feed, or NULL. */
const hld_rzone_t *hld_rzones_using(const hld_rzones_t *z, int bus);
/* ZONES entries; returns the count. */
uint32_t hld_rzones_list(const hld_rzones_t *z, hl_rzone_info_t *out, uint32_t cap);

#endif /* HLD_REVERB_ZONES_H */
