/*
 * hl_stream.h - the per-voice ring that feeds a streaming voice: a decoder
 * thread pushes frames already resampled to the ENGINE rate, the audio thread
 * pulls them inside hl_mixer_process_rt(). Music and long sounds stream
 * through it instead of being preloaded.
 *
 * A stream is an hl_ring_t whose element is one frame of `channels` floats,
 * so the producer publishes whole frames only: the consumer can never see
 * half a frame. Storage is the caller's (hl_stream_size() bytes); nothing here
 * allocates. The producer flags end of stream with hl_stream_finish() so the
 * mixer ends the voice (ENDED FINISHED) once the ring is drained instead of
 * counting an underrun. The audio thread keeps two counters (relaxed atomics,
 * single writer): underrun episodes and frames consumed.
 *
 * Thread rules:
 *   - init: the owner (main thread), before the stream is given to the mixer;
 *   - writable / write / write_spans / write_commit / finish: the ONE producer
 *     (the decoder thread), any time;
 *   - readable_rt / read_rt / peek: the ONE consumer (the audio thread, via
 *     the mixer; tests may call them when no mixer uses the stream);
 *   - the counters and hl_stream_finished: any thread.
 * The stream is freed by its owner only after the mixer handed it back
 * (HL_MIX_EV_ENDED or HL_MIX_EV_STREAM_RETIRED with ev->stream == it).
 * Every function is RT safe: no locks, no allocation, no waiting.
 */
#ifndef HL_STREAM_H
#define HL_STREAM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hl_limits.h"
#include "hl_ring.h"
#include "hl_shm_stream.h"

typedef struct hl_stream {
    hl_ring_t ring;    /* element = channels floats */
    uint32_t channels; /* 1 or 2; a decoder's up to HL_STREAM_MAX_CH (a surround layout's) */
    _Alignas(64) _Atomic uint32_t eos;       /* set once by the producer */
    _Alignas(64) _Atomic uint64_t underruns; /* written by the audio thread only */
    _Atomic uint64_t consumed;               /* frames, written by the audio thread only */
    /* the audio thread's: the last HL_STREAM_HIST frames the voice consumed
     * (interleaved), what its interpolator reads behind the ring */
    _Alignas(64) float hist[HL_STREAM_HIST * HL_STREAM_MAX_CH];
    float hold[HL_STREAM_MAX_CH]; /* the audio thread's: a multichannel voice's last output
                                   * frame (pre-gain), which decays in an underrun */
    /* Source frames per engine frame at pitch 1: 1 for decoder streams
     * (already at the engine rate), rate / engine rate for client-fed ones. */
    double ratio;
    /* Client-fed (hl_stream_init_shm): the ring is the client's, in shared
     * memory (hl_shm_stream.h), read in its own format; NULL for a decoder
     * ring. The audio thread keeps its own read position and never reads
     * back what it publishes there; `write` is clamped to the capacity. */
    hl_shm_hdr_t *shm;
    const unsigned char *shm_ring;
    uint32_t shm_mask, shm_format, shm_fsize; /* frames - 1, HL_SHM_*, bytes per frame */
    uint64_t shm_read;                        /* audio thread: frames taken */
    uint32_t primed;                          /* audio thread: a frame was taken (before it an
                                               * empty ring is silence, not an underrun) */
} hl_stream_t;

/* Bytes of storage a stream of capacity_frames (a power of two >= 2) frames
 * of `channels` channels needs; 0 if the arguments are invalid. A stream
 * should hold more than the frames one process call pulls
 * (HL_MIX_BLOCK * HL_PITCH_MAX plus a few) or it underruns every block. */
size_t hl_stream_size(uint32_t capacity_frames, uint32_t channels);

/* Lays the stream over storage (hl_stream_size bytes, float aligned, owned by
 * the caller). Returns 0 or HELIOD_EINVAL. Owner thread, before use. */
int hl_stream_init(hl_stream_t *s, void *storage, uint32_t capacity_frames, uint32_t channels);

/* A client-fed stream over the shared memory at hdr (a header whose
 * frames/channels/format the caller checked against hl_shm_size and the
 * mapping's length), read at `ratio` source frames per engine frame.
 * Returns 0 or HELIOD_EINVAL. Owner thread, before use. */
int hl_stream_init_shm(hl_stream_t *s, hl_shm_hdr_t *hdr, uint32_t frames, uint32_t channels,
                       uint32_t format, double ratio);

/* Producer: free frames. */
uint32_t hl_stream_writable(hl_stream_t *s);
/* Producer: copies up to `frames` whole frames (frames * channels floats,
 * interleaved) and publishes them at once. Returns the frames written. */
uint32_t hl_stream_write(hl_stream_t *s, const float *src, uint32_t frames);
/* Producer, zero-copy: the writable region as up to two spans of whole
 * frames; fill them, then hl_stream_write_commit(frames). Nothing is visible
 * to the consumer before the commit. Returns the frames available. */
uint32_t hl_stream_write_spans(hl_stream_t *s, hl_ring_spans_t *spans);
void hl_stream_write_commit(hl_stream_t *s, uint32_t frames);
/* Producer: no more frames will come. The voice ends once it drained them. */
void hl_stream_finish(hl_stream_t *s);

/* Any thread: 1 once the producer called hl_stream_finish. */
int hl_stream_finished(const hl_stream_t *s);
/* Any thread: underrun episodes the mixer counted on this stream. */
uint64_t hl_stream_underruns(const hl_stream_t *s);
/* Any thread: frames the mixer consumed. */
uint64_t hl_stream_consumed(const hl_stream_t *s);

/* Consumer (audio thread): readable frames, and a copy of up to `frames`
 * frames into dst (consumed, counted in hl_stream_consumed). */
uint32_t hl_stream_readable_rt(hl_stream_t *s);
uint32_t hl_stream_read_rt(hl_stream_t *s, float *dst, uint32_t frames);

#endif /* HL_STREAM_H */
