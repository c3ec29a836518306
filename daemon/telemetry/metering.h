/*
 * metering.h - the daemon's meters: one hld_meter_t (peak, peak hold, rms)
 * per live bus and the master, and an EBU R128 loudness meter on the master
 * output, fed on the main thread from what the audio thread publishes
 * (meter_tap.h); read by STATS and pushed to subscribers as METER events.
 *
 *   poll tick (loop.c)   ---------> hld_metering_poll: drain the tap
 *   feed timer (feeds.h, every HLD_METER_TICK_MS while anyone subscribed):
 *       drain the tap, encode one METER event, send it to each subscriber
 *       whose next due time passed (its own rate, 1..100 Hz), skipping one
 *       whose unsent output is over HLD_METER_OUTQ_MAX
 *
 * Buses are addressed by index; hld_metering_bus_name() is the one place
 * that turns an index into the name the wire and STATS use. A bus that stops
 * being live drops out of the readings; one that becomes live starts from
 * silence. Main thread only.
 */
#ifndef HLD_METERING_H
#define HLD_METERING_H

#include <stddef.h>
#include <stdint.h>

#include "telemetry.h"
#include "hl_proto.h"

/* Sets up the meters and registers the METER feed (feeds.h) on d's loop
 * (after the engine is open). 0 or HELIOD_ENOMEM. */
int hld_metering_open(const hld_telemetry_t *t);
/* Feeds the meters with everything the audio thread published since the
 * last call. Cheap when nothing is new. */
void hld_metering_poll(const hld_telemetry_t *t);
/* The readings now: master, every live bus (by index order), loudness; on a
 * surround layout the channels past the front pair into *more (may be NULL;
 * more->channels 2 on stereo). */
void hld_metering_read(const hld_telemetry_t *t, hl_meter_t *out, hl_meter_more_t *more);
/* The louder of a level's channels: its front pair and, with more (channels
 * > 2), the rest r. */
float hld_metering_louder(const float front[2], const hl_meter_more_t *more, const float *rest);
/* Restarts the integrated loudness and the loudness range (STATS reset). */
void hld_metering_reset_loudness(const hld_telemetry_t *t);
/* Name of bus index b for the meters, from the bus registry: its label
 * (buses.h hld_bus_label: "sfx", a control client's bus by its name, a
 * plain client's as NAME-cID, so two namespaces' buses of one name stay
 * apart); an index without a bus (never read: only live buses are metered)
 * would read "busN". buf has room for HL_MAX_NAME + 1. */
const char *hld_metering_bus_name(const hld_telemetry_t *t, uint32_t b, char *buf);
/* Counters for STATS. */
typedef struct {
    uint64_t events_sent;    /* METER events queued to clients */
    uint64_t events_skipped; /* not queued: the client had too much unsent output */
    uint64_t coalesced;      /* audio-thread calls folded together (level ring full) */
    uint64_t pcm_dropped;    /* output frames the loudness meter missed (pcm ring full) */
} hld_metering_stats_t;
void hld_metering_stats(const hld_telemetry_t *t, hld_metering_stats_t *out);
/* Unregisters the METER feed (shutdown; the last feed stops the timer). */
void hld_metering_close(void);
/* Frees the meters after the loop ended. Idempotent. */
void hld_metering_free(void);

#endif /* HLD_METERING_H */
