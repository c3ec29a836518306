/*
 * heliod_stream.h - client-fed streams: a voice that plays PCM the client
 * pushes, through a ring in memory shared with the daemon (PROTOCOL.md,
 * STREAM). Included by heliod.h; not meant to be included on its own.
 *
 * The library creates a sealed memfd holding a small header and a
 * single-producer/single-consumer ring of `frames` frames in the stream's
 * own format and rate, maps it, and hands it to the daemon with the STREAM
 * request; the daemon maps it too and its voice reads the ring on the audio
 * thread (no round trip per buffer). The daemon converts the format and the
 * rate as it does for files. An empty ring is an underrun: the voice decays
 * to silence, fades back in when frames come, and counts it.
 *
 *   heliod_stream_params_t p;
 *   heliod_stream_params_init(&p);
 *   p.rate = 44100; p.channels = 2; p.format = HELIOD_STREAM_S16;
 *   heliod_stream_t *s;
 *   if (heliod_stream_open(h, &p, &s) == 0) {
 *       while (more) {
 *           size_t n = heliod_stream_write(s, pcm, frames);   // non-blocking
 *           pcm += n * 4; frames -= n;
 *           if (frames) heliod_stream_wait(s, 100);           // room or timeout
 *       }
 *       heliod_stream_end(s);                  // plays out what is queued
 *       while (!heliod_stream_ended(s, NULL)) heliod_stream_wait(s, 100);
 *       heliod_stream_close(s);
 *   }
 *
 * Threads: heliod_stream_open and heliod_stream_close make requests on the
 * connection and follow its rule (one thread at a time per heliod_t). Every
 * other function here touches only the shared memory, never the socket:
 * heliod_stream_write, heliod_stream_wait and heliod_stream_end belong to
 * ONE writer thread per stream (which may differ from the connection's);
 * heliod_stream_writable, _consumed, _underruns, _ended and _voice may be
 * called from any thread. Close every stream before heliod_close().
 */
#ifndef HELIOD_STREAM_H
#define HELIOD_STREAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct heliod_stream heliod_stream_t;

/* Sample formats, interleaved frames in the host's byte order. */
#define HELIOD_STREAM_F32 0 /* float, full scale +-1.0 */
#define HELIOD_STREAM_S16 1 /* int16_t, full scale 32768 */
#define HELIOD_STREAM_U8  2 /* uint8_t, 128 = silence (OpenAL's AL_FORMAT_*8) */

/* Limits (the daemon refuses others with HELIOD_EINVAL, naming the field). */
#define HELIOD_STREAM_MIN_RATE   8000u
#define HELIOD_STREAM_MAX_RATE   384000u
#define HELIOD_STREAM_MIN_FRAMES 256u     /* ring capacity: a power of two in */
#define HELIOD_STREAM_MAX_FRAMES 4194304u /* [256, 4 Mi] (open rounds up) */

typedef struct {
    uint32_t rate;     /* the PCM's sample rate in Hz; 0 = the engine's (default) */
    uint32_t channels; /* 1 or 2 (default 2) */
    uint32_t format;   /* HELIOD_STREAM_* (default F32) */
    uint32_t frames;   /* ring capacity in frames, rounded up to a power of two;
                        * 0 = about 0.25 s at `rate` (default 0) */
    /* The voice: gain, pan, pitch, 3D position and distances, priority,
     * fade_in_ms, bus, vel, emitter, post stage, flags HELIOD_PLAY_3D /
     * PAUSED / CUBIC / SINC / LINEAR, as for heliod_play. LOOP, DETACHED and
     * the loop fields do not apply to a stream (HELIOD_EINVAL); `over` is
     * ignored (there is no cue). A stream voice is never made virtual: it
     * is mixed, or refused HELIOD_ENOVOICES when no real voice can be had. */
    heliod_play_params_t play;
} heliod_stream_params_t;

/* Defaults: engine rate, stereo, F32, ~0.25 s ring, heliod_play_params_init. */
void heliod_stream_params_init(heliod_stream_params_t *p);

/* Creates the ring, sends STREAM and waits for the voice. *out gets the
 * stream (its voice: heliod_stream_voice). The ring's memory counts against
 * the connection's process's sample-memory quota. Returns 0, HELIOD_EINVAL
 * (a parameter out of range: heliod_last_error names it), HELIOD_EQUOTA /
 * HELIOD_ENOMEM (memory), HELIOD_ENOVOICES, HELIOD_EVERSION (the daemon
 * speaks protocol 1.0), or a connection error. Blocking. The voice starts
 * when the first frames arrive (an empty ring is silent, not an underrun,
 * until the first frame was played). */
int heliod_stream_open(heliod_t *h, const heliod_stream_params_t *p, heliod_stream_t **out);

/* The voice's handle, for heliod_set, heliod_stop, events. */
heliod_voice_t heliod_stream_voice(const heliod_stream_t *s);

/* Writer thread: copies up to nframes interleaved frames of the stream's
 * format into the ring; never blocks. Returns the frames accepted (0 when
 * the ring is full, after heliod_stream_end, or once the voice ended). */
size_t heliod_stream_write(heliod_stream_t *s, const void *frames, size_t nframes);
/* Frames heliod_stream_write would accept now. */
size_t heliod_stream_writable(const heliod_stream_t *s);
/* Frames the daemon has taken from the ring since the stream opened (read
 * from shared memory, no round trip; at most a few frames ahead of what
 * was mixed, for the interpolator). */
uint64_t heliod_stream_consumed(const heliod_stream_t *s);
/* Underrun episodes: times the voice found the ring empty while playing. */
uint64_t heliod_stream_underruns(const heliod_stream_t *s);
/* 0 while the voice lives; 1 once it ended, *reason (may be NULL) = its
 * HELIOD_END_* (FINISHED: the stream was ended and played out, set as soon
 * as its last frame was mixed). */
int heliod_stream_ended(const heliod_stream_t *s, int *reason);

/* Writer thread: waits until the ring has room (or the voice ended) or
 * timeout_ms passed (-1 = no limit). Returns 1 (room, or ended: check
 * heliod_stream_ended), 0 on timeout. The daemon wakes the writer from its
 * main loop, about once per audio period. */
int heliod_stream_wait(heliod_stream_t *s, int timeout_ms);

/* Writer thread: no more frames. The voice plays what the ring holds, then
 * ends (HELIOD_EVENT_ENDED, reason FINISHED). Returns 0. */
int heliod_stream_end(heliod_stream_t *s);

/* Stops the voice now (a short fade, HELIOD_END_STOPPED) unless it already
 * ended, and frees the stream. NULL is a no-op. Connection thread. */
void heliod_stream_close(heliod_stream_t *s);

/* HELIOD_EVENT_STREAM (subscription HELIOD_SUB_STREAM): the daemon took
 * frames from a stream's ring. voice: the stream's voice; frames: frames
 * consumed since the previous STREAM event of that voice; reason: 1 if it
 * underran since then, else 0; time_ns: server CLOCK_MONOTONIC when the
 * event was built. At most one per voice per audio period, only while the
 * voice consumes. The totals: heliod_stream_consumed / _underruns. */
#define HELIOD_SUB_STREAM   0x200u
#define HELIOD_EVENT_STREAM 12

#ifdef __cplusplus
}
#endif

#endif /* HELIOD_STREAM_H */
