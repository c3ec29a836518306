/*
 * heliod_time.h - libheliod: time: the clock, scheduled requests, bundles.
 *
 * Part of heliod.h, which includes it after its common types (heliod_t,
 * heliod_voice_t): a game includes <heliod.h> only.
 */
#ifndef HELIOD_TIME_H
#define HELIOD_TIME_H

#ifndef HELIOD_H
#error "include <heliod.h>, not heliod_time.h"
#endif

/* ---- time: the clock, scheduled requests, bundles ---- */

/* The engine clock: engine frame `frame` began playing into the device
 * buffer at CLOCK_MONOTONIC time time_ns (the start of the audio thread's
 * latest period) and reaches the output output_latency_ns later. */
typedef struct {
    uint64_t frame;
    uint64_t time_ns;
    uint32_t rate, period;
    uint64_t output_latency_ns;
} heliod_clock_t;
int heliod_clock(heliod_t *h, heliod_clock_t *out);
/* The engine frame voice started on (its STARTED frame; for a voice not yet
 * started, the frame it is scheduled for), e.g. the reference of a musical
 * grid. 0 or HELIOD_ENOVOICE. */
int heliod_voice_start_frame(heliod_t *h, heliod_voice_t voice, uint64_t *frame);
/* The engine frame due at CLOCK_MONOTONIC time time_ns by clock c (exact
 * integer arithmetic; times before c->time_ns give c->frame). */
uint64_t heliod_clock_frame_at(const heliod_clock_t *c, uint64_t time_ns);
/* Schedules every play, stop, set, bus, listener and param request sent after this
 * call (blocking or async) for engine frame `frame`: the daemon applies it
 * on that exact sample. 0 turns scheduling off. Other requests are not
 * affected. A frame more than 24 h ahead of the clock, or a bus create,
 * remove, parent or send (they apply at once), is HELIOD_EINVAL; past the
 * daemon's schedule or this client's share of it (--client-scheduled) a
 * request is HELIOD_EBUSY, heliod_last_error() says which. */
void heliod_at_frame(heliod_t *h, uint64_t frame);
/* As heliod_at_frame for the frame `ms` milliseconds from now (one CLOCK
 * round trip); *frame (may be NULL) gets it. */
int heliod_at_ms(heliod_t *h, double ms, uint64_t *frame);
/* Frames the last scheduled request answered was already late when the
 * daemon got it (0: on time); such a request is applied at once. Inside the
 * callback of an async request's reply, the figure of that reply. */
uint64_t heliod_late_frames(const heliod_t *h);
/* Bundles: the play, stop, set, bus and listener requests sent between
 * begin and end are applied together, in one audio block (each at its own
 * frame when scheduled), never split. Inside a bundle use the async calls:
 * a blocking call answers HELIOD_EINVAL, as its reply only comes at the end.
 * At most 64 requests. heliod_bundle_end sends the bundle and waits for it:
 * *count (may be NULL) gets the number of requests it carried; HELIOD_EBUSY
 * when the daemon had no room for all of them (then none was applied). */
int heliod_bundle_begin(heliod_t *h);
int heliod_bundle_end(heliod_t *h, uint32_t *count);

#endif /* HELIOD_TIME_H */
