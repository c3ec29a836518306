/*
 * al_src.h - heliod's OpenAL library: the inside of a source, shared by the
 * files that make one up, each calling only the ones above it in this list:
 *
 *   al_queue.c   a source as data: its buffer queue (storage, references,
 *                frame counts along it)
 *   al_voice.c   its daemon voices, one per queued buffer: start, stop, mix
 *   al_stream.c  or one client-fed stream carrying a whole queue
 *   al_play.c    its play state from the engine clock; play, pause, stop,
 *                rewind; what the event thread and the device do to sources
 *   al_source.c  the source API: names, properties, queueing
 *
 * A source is a local record: alGenSources costs no message. alSourcePlay
 * starts one daemon voice per queued buffer (a static source has a queue of
 * one), or one stream for a queue, and the voices end when the source
 * stops, pauses or runs out: a voice exists only while its source plays.
 * The state and the offsets are computed from the engine clock
 * (heliod_clock, extrapolated with CLOCK_MONOTONIC) and the frame each voice
 * started on, and corrected by the daemon's STARTED and ENDED events, which
 * the event thread dispatches: alGetSourcei(AL_SOURCE_STATE) never waits
 * for the socket. Everything here runs locked (g_al.lock).
 */
#ifndef AL_SRC_H
#define AL_SRC_H

#include <math.h>

#include "al_int.h"

/* The buffer of queue entry i (NULL if it was 0). */
static inline alh_buffer_t *alh_qbuf(const alh_source_t *s, int i) {
    return alh_buffer_get(s->q[i].buf);
}
/* A linear gain in dB, as the daemon takes it. */
static inline float alh_db(float lin) {
    return lin > 1e-15f ? 20.0f * log10f(lin) : -300.0f;
}
/* A pitch within the daemon's range. */
static inline float alh_clamp_pitch(float p) {
    return p < 0.25f ? 0.25f : p > 4.0f ? 4.0f : p;
}

/* ---- al_queue.c ---- */
alh_source_t *alh_source_get(ALCcontext *c, ALuint id); /* NULL if not c's */
/* n ids of c's sources (alDeleteSources, alSourcePlayv...): 1, or 0 and the
 * error (AL_INVALID_VALUE, AL_INVALID_NAME) set. */
int alh_sources_ok(ALCcontext *c, ALsizei n, const ALuint *ids);
/* Room for n entries in s's queue. 0 or -1 (out of memory). */
int alh_queue_room(alh_source_t *s, int n);
/* Empties the queue, giving its buffers' references back. */
void alh_queue_release(alh_source_t *s);
/* Source frames from q[0]'s start to the end of entry i (the whole queue:
 * i = qn - 1). */
double alh_queue_frames(const alh_source_t *s, int i);
/* The channels of the queue's buffers (1 while there are none). */
int alh_source_channels(const alh_source_t *s);
/* Source frames per engine frame of entry i at pitch. */
double alh_entry_ratio(const alh_source_t *s, int i, float pitch);

/* ---- al_voice.c ---- */
/* The voice of entry i from `off` source frames into its buffer, at engine
 * frame `at` (0 = now). Returns 0 or -1 (nothing to play or a failure). */
int alh_voice_start(alh_source_t *s, int i, double off, uint64_t at, const alh_voice_mix_t *m);
/* Stops the source's voices (and closes its stream); flushes. */
void alh_voices_stop(alh_source_t *s);
/* Sends the source's gain, pan and pitch to its voices when they changed
 * (force: in any case), without a flush. */
void alh_voices_mix(alh_source_t *s, int force);
/* ALC_SOFT_HRTF on: the play parameters of a daemon 3D voice. */
void alh_hrtf_params(heliod_play_params_t *p, const alh_voice_mix_t *m);

/* ---- al_stream.c ---- */
/* Opens the stream of a STREAMING source and starts filling it from `from`
 * source frames into the queue (entry first, `in` frames into it). 0, or -1
 * to fall back to one voice per buffer (a daemon without streams). */
int alh_stream_start(alh_source_t *s, int first, double in, double from, const alh_voice_mix_t *m);
/* Copies what the ring takes of the queue, from where the last copy stopped. */
void alh_stream_pump(alh_source_t *s);
/* Source frames the daemon took from the stream, counted from q[0]'s start. */
double alh_stream_pos(const alh_source_t *s);

/* ---- al_play.c ---- */
void alh_source_update(alh_source_t *s); /* state from the clock */
/* Source frames into the queue now (PLAYING). */
double alh_playing_offset(alh_source_t *s, uint64_t now);
/* AL_BUFFERS_PROCESSED. */
int alh_processed_count(alh_source_t *s);
/* alSourcePlay: from the pending offset, the paused one or the start. */
void alh_source_play(ALCcontext *c, alh_source_t *s);
/* The source goes: its voices stopped, its queue released, its slot free. */
void alh_source_free(alh_source_t *s);

#endif
