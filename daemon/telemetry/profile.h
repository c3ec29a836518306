/*
 * profile.h - the PROFILE event: the engine's load, voices, streams and bus
 * levels, pushed to subscribers at their own rate so that a live view
 * (`heliodctl top`) or a recording (`heliodctl profile`) needs no polling.
 *
 *   feed timer (feeds.h, every HLD_METER_TICK_MS while anyone subscribed):
 *       if a subscriber is due: build one event (the window since the
 *       previous one: callbacks, their mean and longest, an 8-bin load
 *       histogram, decoder CPU; plus voices per bus, stream fills and the
 *       meters now), encode it once, queue it to each due subscriber whose
 *       unsent output is under HLD_METER_OUTQ_MAX (a snapshot: skipping one
 *       loses a refresh, nothing else)
 *
 * Everything is read on the main thread from counters the audio thread
 * already publishes (engine.h's callback histogram, the meter tap, the
 * stream rings' indices): a PROFILE subscriber costs the audio thread
 * nothing. Main thread only.
 */
#ifndef HLD_PROFILE_H
#define HLD_PROFILE_H

#include "telemetry.h"
#include "hl_proto.h"

/* Registers the PROFILE feed (feeds.h) on d's loop (after hld_metering_open). */
void hld_profile_open(const hld_telemetry_t *t);
/* Fills out with the figures now, the window ending now (and starting at
 * the previous call). Exposed for tests and STATS-like readers. */
void hld_profile_read(const hld_telemetry_t *t, hl_profile_t *out);
/* Unregisters the PROFILE feed (shutdown; the last feed stops the timer). */
void hld_profile_close(void);

#endif /* HLD_PROFILE_H */
