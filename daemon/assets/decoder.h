/*
 * decoder.h - the streaming decoder pool: a bounded set of threads
 * (HLD_DECODER_THREADS) that keep the ring of every streaming voice filled.
 *
 * Each streaming voice owns one heap hld_dstream_t: the hl_stream_t the mixer
 * pulls from, its ring storage (~HLD_STREAM_RING_MS at the engine rate, a
 * power of two), its own SNDFILE (one fd), a libsoxr streaming resampler when
 * the file's rate differs from the engine's (same quality as the preload
 * path), the fold of more than two channels to the output layout (as a
 * preload's: hld_fold_frames; stereo for a 3D voice), and the loop state (seek back to
 * loop_start at loop_end, loop count, then hl_stream_finish at the end).
 *
 *   main thread                 decoder threads             audio thread
 *   hld_dstream_open_async:     take the oldest job first:
 *     validate, count, queue --> sf_open, seek, resampler,
 *     (no file I/O)              prefill HLD_STREAM_PREFILL
 *                                -> slot in the pool, done
 *   hld_decoder_complete  <----- queue, notify (uv_async)
 *     done(): hl_mixer_play     then, like every stream: wake
 *     (or SET_STREAM), reply    on signal or every
 *                               HLD_DECODER_WAIT_MS, take
 *                               a non-busy stream whose     hl_mixer_process_rt
 *                               ring has room, decode,      pulls frames from
 *   ... ENDED / RETIRED ...     resample, hl_stream_write   the ring
 *   hld_dstream_release ------> unlink (or mark detach if busy: the
 *                               decoder unlinks and frees it when done)
 *
 * The main thread never opens or decodes a file per play or seek: a slow
 * disk delays only the request that needs it, never the loop. The job and
 * completion queues are under the pool lock (decoder threads are not
 * real-time); the notify hook (uv_async_send in the daemon) is called with
 * the lock held so hld_decoder_set_notify(p, NULL, NULL) is a clean cut-off.
 *
 * Opens are not run by the decoding threads: HLD_OPEN_THREADS opener threads
 * take the jobs, so a slow or hung open (a dead network mount, a disk
 * retrying) never stops the streams already playing. Every open has a time
 * budget, HLD_OPEN_TIMEOUT_MS from when an opener took it: the decoding
 * threads (they wake every HLD_DECODER_WAIT_MS) answer an open past it
 * ETIMEDOUT and abandon its opener thread (detached; the stream object stays
 * with it and is freed when the open finally returns, through the usual
 * busy/detach handshake); a fresh opener takes its place while at most
 * HLD_OPEN_ABANDON_MAX threads are abandoned. Past that the place stays
 * empty until an abandoned thread comes back and starts a fresh opener in
 * it; with no opener left at all, queued opens are answered ETIMEDOUT after
 * the same budget (a burst of opens otherwise just waits its turn). So hung
 * opens hold at most HLD_OPEN_THREADS + HLD_OPEN_ABANDON_MAX threads (and
 * their file descriptors), and never a decoding thread.
 *
 * Inline opens: a sound kept compressed (its encoded bytes in memory, no
 * file I/O) is opened and primed on the caller's (main) thread itself, in
 * hld_dstream_open_async, and its completion queued at once: a PLAY of it
 * waits for no other thread (an opener's wake-up, the loop's wake-up from
 * it: on a loaded machine each can cost several ms), only for its own
 * prime (opening the bytes, decoding HLD_STREAM_PREFILL frames, under a ms
 * for stereo Opus). To keep the loop responsive, the inline opens of one
 * batch (hld_stream_opts_t.batch: the requests one loop turn handles) take
 * at most HLD_INLINE_OPEN_MS of the main thread's time; past that, opens
 * queue for the openers as any other (a burst of plays is spread over the
 * threads as before). A play primed from a prefetched head (below) decodes
 * nothing there: it always runs inline, and its time counts in the budget.
 *
 * Prefetched head: a sound kept compressed keeps, beside its encoded bytes,
 * its first HLD_HEAD_FRAMES frames (at most HLD_HEAD_MAX_BYTES) as float
 * PCM, decoded once by the load worker that loads it (sound_decode.c;
 * hld_blob_t.head, charged to the budget and the client's quota with the
 * bytes). A voice of it that starts at frame 0 (a PLAY, looping or not, a
 * seek to 0; not a seek elsewhere, nor a virtual voice coming back
 * mid-sound: those prime as before) is primed from
 * the head on the main thread, in hld_dstream_open_async (always when the
 * file is at the engine's rate: a copy; through the resampler only while
 * the batch's inline budget lasts, else on a decoder thread as before, so
 * a burst of them cannot hold the loop): the ring is filled
 * from the head through the decoder's own steps (bound, reorder, fold, loop
 * jumps and crossfade inside the head, resampler), no file opened, nothing
 * decoded, so it starts at the next period whatever the other plays of the
 * loop turn. The stream goes into the pool at once marked need_open; once
 * its completion ran (hld_decoder_complete: the voice is the mixer's, and
 * the decoding threads are woken only then, so that a burst's resumes do
 * not take the CPU from the loop before every voice started), a decoder
 * thread takes such streams before any ring top-up
 * (hld_ds_resume): it opens the bytes, decodes from frame 0 up to where the
 * head left off and drops those frames (a seek there would start the
 * decoder from another state: a lossy codec's pre-roll differs), then
 * carries on into the ring as for any stream. The output is the decode from
 * the start, sample for sample. A sound no longer than the head never opens
 * the bytes at all. The head holds 170 ms at 48 kHz; the resume costs an
 * open and a decode of the head's frames, so a burst of 16 plays on the two
 * decoding threads resumes well inside it.
 *
 * Test-only hook: HELIOD_TEST_OPEN_DELAY="MS:TEXT", read once by
 * hld_decoder_start, makes every open of a path containing TEXT sleep MS
 * milliseconds first (a slow disk without a slow disk). Unset, it costs
 * nothing; it is not an option and not documented for users.
 *
 * Memory: a stream's ring, decode, resampler-output and crossfade buffers are
 * reserved from the sounds' sample budget (--max-sample-mb, sounds.c
 * hld_sounds_reserve) before they are allocated and given back when it is
 * freed; a decode step reads at most ceil(HLD_STREAM_CHUNK / ratio) source
 * frames so its output, and the ring, stay bounded at any file rate (the
 * file's rate is within HLD_MIN_SRC_RATE..HLD_MAX_SRC_RATE anyway).
 *
 * Lifecycle handshake: a stream is freed only once the mixer handed it back
 * (the main thread calls hld_dstream_release after ENDED / STREAM_RETIRED, or
 * after a play that the mixer refused, or from the done callback of an open
 * that failed or is no longer wanted) AND no decoder thread is working on it
 * (the pool lock and the busy flag). Freeing closes its SNDFILE, hence its fd.
 */
#ifndef HLD_DECODER_H
#define HLD_DECODER_H

#include <pthread.h>
#include <sndfile.h>
#include <soxr.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hl_proto.h"
#include "hl_stream.h"
#include "hld_limits.h"
#include "sounds.h"

typedef struct hld_dstream {
    hl_stream_t stream; /* first member: hl_stream_t * <-> hld_dstream_t * */
    void *storage;
    struct hld_sound *snd; /* the sound it plays (main thread reads it) */
    int64_t loops;         /* as opened (immutable) */
    /* loop passes as heard, for a seek (hld_dstream_loops_left): the decoder
     * publishes loops_left and, per loop jump, the frames it had written to
     * the ring (the mixer's consumed count tells which jumps were heard) */
    _Atomic int64_t loops_now;
    _Atomic uint32_t jumps;
    _Atomic uint32_t seq; /* seqlock over loops_now, jumps, jump_at: odd while written */
    _Atomic uint64_t jump_at[HLD_LOOP_MARKS];
    uint64_t written; /* decoder side: frames written to the ring */
    /* asynchronous open: set by the main thread before queuing, then the job's.
     * path is path_copy's: the sound (and its path) may go before an
     * abandoned opener returns */
    const char *path;
    char path_copy[HL_MAX_PATH + 1];
    struct hld_sounds *owner;   /* the budget its buffers count against (NULL: none) */
    char name[HL_MAX_NAME + 1]; /* the sound's, for the log (snd may go before ds) */
    uint64_t queued_ns;         /* when the open was queued (its deadline's start) */
    int timed_out;              /* pool lock: answered ETIMEDOUT, the opener still holds it */
    uint64_t start;
    uint32_t xfade; /* loop crossfade, source frames (0 = none) */
    float *xbuf;    /* the xfade frames before loop_start, ch channels */
    void (*done)(void *user, struct hld_dstream *ds, int status, const char *msg);
    void *done_user;
    int status;
    char msg[HL_MAX_MSG + 1];
    struct hld_dstream *job_next; /* in the job or the completion queue */
    /* where it decodes from (set by open_async from the sound): the sound's
     * encoded bytes in memory (HL_LOAD_COMPRESSED: no file I/O at all), or
     * bytes [off, off + len) of path (a pack file; len 0: the whole file) */
    struct hld_blob *blob; /* a reference, dropped when it is freed */
    uint64_t off, len;
    int fd;        /* the pack file's descriptor (-1: none; sf owns it otherwise) */
    hld_vio_t vio; /* libsndfile's virtual I/O state over blob or fd */
    /* decoder side: touched by one thread at a time (prefill, then the pool) */
    SNDFILE *sf;
    soxr_t soxr;
    uint32_t src_ch, ch, src_rate, rate, out_cap;
    uint32_t layout;           /* the fold's (hld_stream_opts_t.layout): ch = hld_fold_channels */
    int ogg_order;             /* the file's channels are in Vorbis order (hld_ogg_order) */
    uint32_t step;             /* source frames per decode step: out_cap bounded at any rate */
    uint32_t pend_off, pend_n; /* decoded frames in dec the resampler has not taken yet */
    uint64_t budget_bytes;     /* reserved from owner while it exists */
    uint64_t nonfinite;        /* samples zeroed or clipped (hld_sanitize; logged when freed) */
    uint64_t src_frames, pos, loop_start, loop_end;
    int64_t loops_left; /* -1 forever, N more passes, 0 none */
    int flushing, eos;
    int need_open; /* primed from the head: the bytes are not open yet (pool lock) */
    int handed;    /* pool lock: its completion ran (decoder threads resume it from then) */
    float *dec, *out;
    /* pool: guarded by the pool lock */
    int slot, busy, detach;
} hld_dstream_t;

/* One opener thread (heap: an abandoned one keeps its record). */
typedef struct hld_opener {
    struct hld_decoder *p;
    pthread_t th;
    int index;           /* in p->openers while it is not abandoned */
    int abandoned;       /* pool lock: its open timed out, the pool moved on */
    hld_dstream_t *job;  /* pool lock: the open it runs, or NULL */
    uint64_t started_ns; /* when it took job */
} hld_opener_t;

typedef struct hld_decoder {
    pthread_mutex_t lock;
    pthread_cond_t cond, open_cond;
    pthread_t threads[HLD_DECODER_THREADS];
    int nthreads, quit;
    hld_opener_t *openers[HLD_OPEN_THREADS]; /* NULL: none in that place (abandoned at the cap) */
    int abandoned;                           /* opener threads stuck in a timed-out open */
    uint32_t test_delay_ms;                  /* HELIOD_TEST_OPEN_DELAY (tests only) */
    char test_delay_match[64];
    uint32_t rate;
    hld_dstream_t *slots[HL_MAX_STREAMS];
    hld_dstream_t *jobs, *jobs_tail; /* opens waiting for a decoder thread (FIFO) */
    hld_dstream_t *done, *done_tail; /* opens finished, for hld_decoder_complete */
    uint32_t jobs_queued;            /* queued + running + done, not yet completed */
    void (*notify)(void *user);      /* called (lock held) when `done` gains an entry */
    void *notify_user;
    _Atomic uint32_t active;  /* streams allocated and not yet freed */
    _Atomic uint64_t wakeups; /* decoder thread passes over the pool */
    _Atomic uint64_t cpu_ns[HLD_DECODER_THREADS];
    _Atomic uint64_t open_timeouts; /* opens answered ETIMEDOUT */
    /* the main thread's: inline opens (hld_dstream_open_async) of the current batch */
    uint64_t inline_batch, inline_spent_ns;
    _Atomic uint64_t inline_opens; /* opens primed on the caller's thread (head ones too) */
    _Atomic uint64_t head_opens;   /* ... of them, from a prefetched head */
} hld_decoder_t;

/* Where and how a stream voice plays: positions in SOURCE frames. */
typedef struct {
    uint64_t start;                /* first frame to decode (seek) */
    uint64_t loop_start, loop_end; /* 0/0 = whole file */
    int64_t loops;                 /* -1 forever, N extra passes, 0 no loop */
    uint32_t xfade;                /* loop crossfade in source frames: <= loop_start and
                                    * <= the region (the caller checks); 0 = none */
    uint32_t layout; /* HL_LAYOUT_* the channels fold to (hld_fold_frames): the output's for a
                      * 2D voice, stereo (0) for a 3D one */
    uint64_t batch;  /* the caller's loop turn (its loop time): inline opens share a budget */
} hld_stream_opts_t;

/* Starts the pool's threads. Returns 0 or HELIOD_EIO. Main thread, once. */
int hld_decoder_start(hld_decoder_t *p, uint32_t engine_rate);
/* Joins the threads, completes every open still queued with
 * HELIOD_ESHUTDOWN (its done callback runs here, on the calling thread) and
 * frees every stream still in the pool (call after the audio thread
 * stopped). Idempotent. Main thread. */
void hld_decoder_stop(hld_decoder_t *p);

/* Completion of hld_dstream_open_async. status 0: the stream is primed
 * (HLD_STREAM_PREFILL frames, or the whole sound if shorter) and in the
 * pool, which keeps filling it; else a negative HELIOD_* code (HELIOD_EFILE,
 * HELIOD_EDECODE, HELIOD_ENOMEM, HELIOD_ESHUTDOWN when the pool stopped
 * first, HELIOD_ETIMEDOUT when the open took longer than
 * HLD_OPEN_TIMEOUT_MS) and a message. Either way the callee owns ds: it hands it to the
 * mixer or calls hld_dstream_release (msg lives in ds: use it before
 * that). Runs on the main thread. */
typedef void (*hld_open_done_fn)(void *user, hld_dstream_t *ds, int status, const char *msg);

/* Queues the opening of path (which must stay valid until done runs) for
 * snd: a decoder thread opens it, seeks to o->start, sets up the resampler
 * and the loop, and prefills the ring; then done(user, ...) runs on the main
 * thread from hld_decoder_complete (or from hld_decoder_stop). Returns 0
 * (done will be called exactly once, later), or HELIOD_ENOVOICES (streams
 * and queued opens together reach HL_MAX_STREAMS), HELIOD_ENOMEM with *msg
 * (done is not called). No file I/O. Main thread. */
int hld_dstream_open_async(hld_decoder_t *p, struct hld_sound *snd, const char *path,
                           const hld_stream_opts_t *o, hld_open_done_fn done, void *user,
                           const char **msg);
/* Runs the done callbacks of every finished open, oldest first. Returns how
 * many. Main thread (call it from the notify hook's handler). */
int hld_decoder_complete(hld_decoder_t *p);
/* The hook a decoder thread calls (pool lock held, so it must not block or
 * call back into the pool) after queuing a completion; NULL stops the calls.
 * Main thread. */
void hld_decoder_set_notify(hld_decoder_t *p, void (*fn)(void *user), void *user);
/* Opens queued, running or finished but not yet completed. Main thread. */
uint32_t hld_decoder_pending(hld_decoder_t *p);
/* 1 when no open is pending and every stream's ring is as full as the
 * decoder keeps it (or its file ended); else 0, and the decoder threads are
 * woken. The renderer waits for this before each period, so streamed voices
 * never underrun and render the same every time. Any thread. */
int hld_decoder_settled(hld_decoder_t *p);
/* Loop passes still to play as the listener hears it (-1 forever, N more,
 * 0 none): the decoder's count plus the jumps it made that the mixer has not
 * played yet (the last HLD_LOOP_MARKS of them). What a seek's new stream
 * carries on with. Main thread (any thread may call it). */
int64_t hld_dstream_loops_left(hld_dstream_t *ds);

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
/* The profiler's view of the open streams: up to cap of them, the sound's
 * name (name[i], HL_MAX_NAME + 1 bytes each) and how full its ring is
 * (fill[i], 0..1, read from the ring's indices without disturbing either
 * side). Returns how many streams are open (may exceed cap). Takes the pool
 * lock briefly; main thread. */
uint32_t hld_decoder_fills(hld_decoder_t *p, char (*name)[HL_MAX_NAME + 1], float *fill,
                           uint32_t cap);
uint64_t hld_decoder_wakeups(hld_decoder_t *p);
/* Opens answered ETIMEDOUT so far. Any thread. */
uint64_t hld_decoder_open_timeouts(hld_decoder_t *p);
/* Opens primed on the main thread (Inline opens). Any thread. */
uint64_t hld_decoder_inline_opens(hld_decoder_t *p);
/* Of them, primed from a compressed sound's prefetched head. Any thread. */
uint64_t hld_decoder_head_opens(hld_decoder_t *p);

#endif /* HLD_DECODER_H */
