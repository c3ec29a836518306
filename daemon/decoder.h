/*
 * decoder.h - the streaming decoder pool: a bounded set of threads
 * (HLD_DECODER_THREADS) that keep the ring of every streaming voice filled.
 *
 * Each streaming voice owns one heap hld_dstream_t: the hl_stream_t the mixer
 * pulls from, its ring storage (~HLD_STREAM_RING_MS at the engine rate, a
 * power of two), its own SNDFILE (one fd), a libsoxr streaming resampler when
 * the file's rate differs from the engine's (same quality as the preload
 * path), downmix of more than two channels, and the loop state (seek back to
 * loop_start at loop_end, loop count, then hl_stream_finish at the end).
 *
 *   main thread                 decoder threads             audio thread
 *   hld_dstream_open:           wake on signal or every
 *     sf_open, seek, prefill    HLD_DECODER_WAIT_MS, take
 *     -> slot in the pool       a non-busy stream whose     hl_mixer_process_rt
 *   hl_mixer_play(stream)       ring has room, decode,      pulls frames from
 *   ... ENDED / RETIRED ...     resample, hl_stream_write   the ring
 *   hld_dstream_release ------> unlink (or mark detach if busy: the
 *                               decoder unlinks and frees it when done)
 *
 * Lifecycle handshake: a stream is freed only once the mixer handed it back
 * (the main thread calls hld_dstream_release after ENDED / STREAM_RETIRED, or
 * after a play that the mixer refused) AND no decoder thread is working on it
 * (the pool lock and the busy flag). Freeing closes its SNDFILE, hence its fd.
 */
#ifndef HLD_DECODER_H
#define HLD_DECODER_H

#include <pthread.h>
#include <sndfile.h>
#include <soxr.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hl_stream.h"
#include "hld_limits.h"

struct hld_sound;

typedef struct hld_dstream {
    hl_stream_t stream; /* first member: hl_stream_t * <-> hld_dstream_t * */
    void *storage;
    struct hld_sound *snd; /* the sound it plays (main thread reads it) */
    int64_t loops;         /* as opened (immutable): what a seek's new stream gets */
    /* decoder side: touched by one thread at a time (prefill, then the pool) */
    SNDFILE *sf;
    soxr_t soxr;
    uint32_t src_ch, ch, src_rate, rate, out_cap;
    uint64_t src_frames, pos, loop_start, loop_end;
    int64_t loops_left; /* -1 forever, N more passes, 0 none */
    int flushing, eos;
    float *dec, *out;
    /* pool: guarded by the pool lock */
    int slot, busy, detach;
} hld_dstream_t;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t threads[HLD_DECODER_THREADS];
    int nthreads, quit;
    uint32_t rate;
    hld_dstream_t *slots[HL_MAX_STREAMS];
    _Atomic uint32_t active;  /* streams allocated and not yet freed */
    _Atomic uint64_t wakeups; /* decoder thread passes over the pool */
    _Atomic uint64_t cpu_ns[HLD_DECODER_THREADS];
} hld_decoder_t;

/* Where and how a stream voice plays: positions in SOURCE frames. */
typedef struct {
    uint64_t start;                /* first frame to decode (seek) */
    uint64_t loop_start, loop_end; /* 0/0 = whole file */
    int64_t loops;                 /* -1 forever, N extra passes, 0 no loop */
} hld_stream_opts_t;

/* Starts the pool's threads. Returns 0 or HELIOD_EIO. Main thread, once. */
int hld_decoder_start(hld_decoder_t *p, uint32_t engine_rate);
/* Joins the threads and frees every stream still in the pool (call after
 * the audio thread stopped). Idempotent. Main thread. */
void hld_decoder_stop(hld_decoder_t *p);

/* Opens path for snd, seeks to o->start, decodes HLD_STREAM_PREFILL frames
 * into a new ring and hands it to the pool. Returns 0 and the stream in *out
 * (owned by the caller until hld_dstream_release), or HELIOD_ENOVOICES (too
 * many streams), HELIOD_EFILE, HELIOD_EDECODE, HELIOD_ENOMEM with *msg.
 * Main thread (it does the file I/O of the prefill, bounded). */
int hld_dstream_open(hld_decoder_t *p, struct hld_sound *snd, const char *path,
                     const hld_stream_opts_t *o, hld_dstream_t **out, const char **msg);
/* The mixer handed the stream back (or never took it): frees it now, or
 * lets the decoder thread working on it free it when it is done. Main thread. */
void hld_dstream_release(hld_decoder_t *p, hld_dstream_t *ds);
/* The pool object around a stream the mixer returned. */
static inline hld_dstream_t *hld_dstream_from(hl_stream_t *s) {
    return (hld_dstream_t *)(void *)s;
}

/* Streams alive, decoder threads' CPU seconds and wake-ups. Any thread. */
uint32_t hld_decoder_active(hld_decoder_t *p);
double hld_decoder_cpu_s(hld_decoder_t *p);
uint64_t hld_decoder_wakeups(hld_decoder_t *p);

/* Downmix (sounds.c): interleaved frames of ch > 2 channels to stereo, in place. */
void hld_downmix(float *d, uint32_t frames, uint32_t ch);

#endif /* HLD_DECODER_H */
