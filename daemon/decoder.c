/*
 * decoder.c - the streaming decoder pool (see decoder.h).
 *
 * The pool is a fixed array of HL_MAX_STREAMS slots under one mutex. A
 * decoder thread scans the slots, claims a stream (busy = 1) whose ring has
 * room for one more decode step, drops the lock, decodes until the ring is
 * full or the stream ended, retakes the lock and releases the claim; a
 * stream the main thread released meanwhile (detach) is freed right there.
 * After a pass with nothing to do the thread sleeps on the condition
 * variable for HLD_DECODER_WAIT_MS (a new job or stream signals it). The
 * audio thread is never involved: it only reads the rings.
 *
 * Opens are jobs: the main thread allocates the stream object (no file
 * I/O), queues it, and returns to its loop; a decoder thread takes the
 * oldest job before its pass over the streams, opens the file, seeks,
 * prefills, puts the stream in a slot (it keeps being filled from then on),
 * moves the job to the completion queue and calls the notify hook. The main
 * thread runs the done callbacks in hld_decoder_complete. One job per
 * iteration, then a pass over the streams: a burst of opens cannot starve
 * the voices already playing.
 *
 * Loop crossfade (xfade source frames): while the decoder still loops, the
 * region's last xfade frames are blended with the xfade frames before
 * loop_start, out = x + w * (pre - x) with w = (i - (loop_end - xfade)) /
 * xfade for source frame i, the weighting the mixer applies to preloaded
 * voices (mixer_rt.c sample_at), so a streamed and a preloaded copy match.
 * The frames before loop_start are read once when the stream opens.
 */
#include "decoder.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "heliod_errors.h"
#include "log.h"
#include "sounds.h"

#define NS_PER_S  1000000000ull
#define NS_PER_MS 1000000ull

static uint32_t pow2_at_least(uint64_t n) {
    uint32_t c = 2;
    while (c < n)
        c <<= 1;
    return c;
}

static void dstream_free(hld_decoder_t *p, hld_dstream_t *ds) {
    if (ds->sf) sf_close(ds->sf);
    if (ds->soxr) soxr_delete(ds->soxr);
    free(ds->dec);
    free(ds->out);
    free(ds->xbuf);
    free(ds->storage);
    free(ds);
    atomic_fetch_sub_explicit(&p->active, 1, memory_order_relaxed);
}

/* Writes n frames of ds->out (or src) to the ring, resampling first if needed. */
static void emit(hld_dstream_t *ds, const float *in, uint32_t n) {
    if (!ds->soxr) {
        ds->written += hl_stream_write(&ds->stream, in, n);
        return;
    }
    size_t idone = 0, odone = 0;
    soxr_process(ds->soxr, in, n, &idone, ds->out, ds->out_cap, &odone);
    if (odone) ds->written += hl_stream_write(&ds->stream, ds->out, (uint32_t)odone);
}

/* A loop jump: remember where it is in the ring, publish the count. */
static void mark_jump(hld_dstream_t *ds) {
    uint32_t n = atomic_load_explicit(&ds->jumps, memory_order_relaxed);
    atomic_store_explicit(&ds->jump_at[n % HLD_LOOP_MARKS], ds->written, memory_order_relaxed);
    atomic_store_explicit(&ds->loops_now, ds->loops_left, memory_order_relaxed);
    atomic_store_explicit(&ds->jumps, n + 1, memory_order_release);
}

int64_t hld_dstream_loops_left(hld_dstream_t *ds) {
    for (;;) {
        uint32_t n = atomic_load_explicit(&ds->jumps, memory_order_acquire);
        int64_t left = atomic_load_explicit(&ds->loops_now, memory_order_relaxed);
        uint64_t heard = hl_stream_consumed(&ds->stream);
        if (left >= 0) {
            uint32_t first = n > HLD_LOOP_MARKS ? n - HLD_LOOP_MARKS : 0;
            for (uint32_t k = first; k < n; k++)
                if (atomic_load_explicit(&ds->jump_at[k % HLD_LOOP_MARKS], memory_order_relaxed) >
                    heard)
                    left++; /* jumped ahead of the listener: that pass is still to come */
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&ds->jumps, memory_order_relaxed) == n) return left;
    }
}

/* Blends the decoded frames [from, from + n) that fall in the loop's last
 * xfade frames with the frames before loop_start (see the file comment). */
static void crossfade(hld_dstream_t *ds, uint64_t from, uint32_t n) {
    uint64_t xs = ds->loop_end - ds->xfade;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t i = from + k;
        if (i < xs || i >= ds->loop_end) continue;
        float w = (float)((double)(i - xs) / (double)ds->xfade);
        float *x = ds->dec + (size_t)k * ds->ch;
        const float *pre = ds->xbuf + (size_t)(i - xs) * ds->ch;
        for (uint32_t c = 0; c < ds->ch; c++)
            x[c] += w * (pre[c] - x[c]);
    }
}

/* One decode step: a chunk of source frames, a loop jump, or the end. The
 * caller made sure the ring has room for out_cap frames. */
static void decode_step(hld_dstream_t *ds) {
    if (ds->flushing) { /* end of input: drain the resampler's tail */
        size_t odone = 0;
        soxr_process(ds->soxr, NULL, 0, NULL, ds->out, ds->out_cap, &odone);
        if (odone) ds->written += hl_stream_write(&ds->stream, ds->out, (uint32_t)odone);
        if (odone < ds->out_cap) {
            hl_stream_finish(&ds->stream);
            ds->eos = 1;
        }
        return;
    }
    int looping = ds->loops_left != 0 && ds->pos <= ds->loop_end;
    uint64_t limit = looping ? ds->loop_end : ds->src_frames;
    uint64_t want = limit > ds->pos ? limit - ds->pos : 0;
    if (want > HLD_STREAM_CHUNK) want = HLD_STREAM_CHUNK;
    sf_count_t got = want ? sf_readf_float(ds->sf, ds->dec, (sf_count_t)want) : 0;
    if (got > 0) {
        if (ds->src_ch > 2) hld_downmix(ds->dec, (uint32_t)got, ds->src_ch);
        if (looping && ds->xfade) crossfade(ds, ds->pos, (uint32_t)got);
        ds->pos += (uint64_t)got;
        emit(ds, ds->dec, (uint32_t)got);
        return;
    }
    if (looping && ds->pos > ds->loop_start &&
        sf_seek(ds->sf, (sf_count_t)ds->loop_start, SEEK_SET) >= 0) {
        ds->pos = ds->loop_start;
        if (ds->loops_left > 0) ds->loops_left--;
        mark_jump(ds);
        return;
    }
    if (ds->soxr) {
        ds->flushing = 1;
        return;
    }
    hl_stream_finish(&ds->stream);
    ds->eos = 1;
}

/* Decodes until the ring cannot take another step, the stream ended, or
 * `target` readable frames are reached (0 = fill up). */
static void fill(hld_dstream_t *ds, uint32_t target) {
    while (!ds->eos && hl_stream_writable(&ds->stream) >= ds->out_cap) {
        if (target && hl_stream_readable_rt(&ds->stream) >= target) break;
        decode_step(ds);
    }
}

static int needs_work(hld_dstream_t *ds) {
    return !ds->busy && !ds->detach && !ds->eos && hl_stream_writable(&ds->stream) >= ds->out_cap;
}

static uint64_t thread_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * NS_PER_S + (uint64_t)t.tv_nsec;
}

typedef struct {
    hld_decoder_t *p;
    int index;
} thread_arg_t;

static thread_arg_t g_args[HLD_DECODER_THREADS];

/* The job's failure: status and message, for the done callback. */
static int prime_fail(hld_dstream_t *ds, int rc, const char *m) {
    ds->status = rc;
    snprintf(ds->msg, sizeof ds->msg, "%s", m);
    return rc;
}

/* Reads the xfade frames before loop_start into ds->xbuf. 0 or an error. */
static int read_xfade(hld_dstream_t *ds) {
    ds->xbuf = malloc((size_t)ds->xfade * ds->ch * sizeof(float));
    if (!ds->xbuf) return prime_fail(ds, HELIOD_ENOMEM, "out of memory for the stream");
    if (sf_seek(ds->sf, (sf_count_t)(ds->loop_start - ds->xfade), SEEK_SET) < 0)
        return prime_fail(ds, HELIOD_EDECODE, "cannot seek in the streamed file");
    uint32_t done = 0;
    while (done < ds->xfade) {
        uint32_t want = ds->xfade - done;
        if (want > HLD_STREAM_CHUNK) want = HLD_STREAM_CHUNK;
        sf_count_t got = sf_readf_float(ds->sf, ds->dec, (sf_count_t)want);
        if (got <= 0) return prime_fail(ds, HELIOD_EDECODE, "cannot decode the streamed file");
        if (ds->src_ch > 2) hld_downmix(ds->dec, (uint32_t)got, ds->src_ch);
        memcpy(ds->xbuf + (size_t)done * ds->ch, ds->dec, (size_t)got * ds->ch * sizeof(float));
        done += (uint32_t)got;
    }
    return 0;
}

/* The job (a decoder thread, which owns ds until it is queued as done):
 * opens the file, sets up the resampler, the ring and the loop, seeks and
 * prefills. Returns 0, or an error with ds->status/msg set. */
static int prime(hld_dstream_t *ds) {
    SF_INFO info = {0};
    char m[HL_MAX_MSG + 1];
    int fd = hld_sound_open(ds->path, m, sizeof m); /* a FIFO now would block this thread */
    if (fd < 0) return prime_fail(ds, fd, m);
    ds->sf = sf_open_fd(fd, SFM_READ, &info, SF_TRUE);
    if (!ds->sf) {
        snprintf(m, sizeof m, "cannot open the streamed file %s: %s", ds->path, sf_strerror(NULL));
        return prime_fail(ds, HELIOD_EFILE, m);
    }
    if (info.channels < 1 || info.samplerate < 1 || info.frames <= 0)
        return prime_fail(ds, HELIOD_EDECODE, "the streamed file has no audio");
    ds->src_ch = (uint32_t)info.channels;
    ds->ch = ds->src_ch > 2 ? 2 : ds->src_ch;
    ds->src_rate = (uint32_t)info.samplerate;
    ds->src_frames = (uint64_t)info.frames;
    if (ds->loop_end == 0 || ds->loop_end > ds->src_frames) ds->loop_end = ds->src_frames;
    if (ds->loop_start >= ds->loop_end || ds->start >= ds->src_frames)
        return prime_fail(ds, HELIOD_EDECODE, "the streamed file is shorter than when loaded");
    if (ds->xfade > ds->loop_start || ds->xfade > ds->loop_end - ds->loop_start) ds->xfade = 0;
    double ratio = (double)ds->rate / ds->src_rate;
    ds->out_cap = (uint32_t)ceil(HLD_STREAM_CHUNK * ratio) + HLD_STREAM_SLACK;
    if (ds->src_rate != ds->rate) {
        soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
        soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0); /* as the preload path */
        soxr_error_t err = NULL;
        ds->soxr = soxr_create(ds->src_rate, ds->rate, ds->ch, &err, &io, &q, NULL);
        if (!ds->soxr) return prime_fail(ds, HELIOD_EDECODE, "cannot create the resampler");
    }
    uint32_t cap = pow2_at_least((uint64_t)ds->rate * HLD_STREAM_RING_MS / (uint64_t)HLD_MS_PER_S);
    uint64_t least = 2 * (uint64_t)ds->out_cap + HLD_STREAM_PREFILL; /* prefill + a step */
    if (cap < least) cap = pow2_at_least(least);
    size_t bytes = hl_stream_size(cap, ds->ch);
    ds->storage = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
    ds->dec = malloc((size_t)HLD_STREAM_CHUNK * ds->src_ch * sizeof(float));
    ds->out = malloc((size_t)ds->out_cap * ds->ch * sizeof(float));
    if (!ds->storage || !ds->dec || !ds->out ||
        hl_stream_init(&ds->stream, ds->storage, cap, ds->ch) != 0)
        return prime_fail(ds, HELIOD_ENOMEM, "out of memory for the stream");
    if (ds->xfade && ds->loops_left != 0 && read_xfade(ds) != 0) return ds->status;
    if ((ds->start || ds->xfade) && sf_seek(ds->sf, (sf_count_t)ds->start, SEEK_SET) < 0)
        return prime_fail(ds, HELIOD_EDECODE, "cannot seek in the streamed file");
    ds->pos = ds->start;
    fill(ds, HLD_STREAM_PREFILL);
    if (sf_error(ds->sf) != SF_ERR_NO_ERROR && hl_stream_readable_rt(&ds->stream) == 0)
        return prime_fail(ds, HELIOD_EDECODE, "cannot decode the streamed file");
    return 0;
}

/* Appends a finished open to the completion queue (caller holds the lock, or
 * the decoder threads are gone). */
static void done_push(hld_decoder_t *p, hld_dstream_t *ds) {
    ds->job_next = NULL;
    if (p->done_tail)
        p->done_tail->job_next = ds;
    else
        p->done = ds;
    p->done_tail = ds;
}

/* Runs one queued open (lock held on entry and exit, dropped meanwhile). */
static void run_job(hld_decoder_t *p, hld_dstream_t *ds) {
    pthread_mutex_unlock(&p->lock);
    int rc = prime(ds);
    pthread_mutex_lock(&p->lock);
    if (rc == 0) {
        for (int i = 0; i < HL_MAX_STREAMS; i++) { /* active <= HL_MAX_STREAMS: one is free */
            if (!p->slots[i]) {
                p->slots[i] = ds;
                ds->slot = i;
                break;
            }
        }
        if (ds->slot < 0) prime_fail(ds, HELIOD_ENOVOICES, "too many streams playing");
    }
    done_push(p, ds);
    if (p->notify) p->notify(p->notify_user);
}

static hld_dstream_t *job_pop(hld_decoder_t *p) {
    hld_dstream_t *ds = p->jobs;
    if (ds) {
        p->jobs = ds->job_next;
        if (!p->jobs) p->jobs_tail = NULL;
    }
    return ds;
}

static void *decoder_main(void *arg) {
    thread_arg_t *a = arg;
    hld_decoder_t *p = a->p;
    pthread_mutex_lock(&p->lock);
    while (!p->quit) {
        int worked = 0;
        hld_dstream_t *job = job_pop(p);
        if (job) {
            run_job(p, job);
            worked = 1;
        }
        for (int i = 0; i < HL_MAX_STREAMS && !p->quit; i++) {
            hld_dstream_t *ds = p->slots[i];
            if (!ds || !needs_work(ds)) continue;
            ds->busy = 1;
            pthread_mutex_unlock(&p->lock);
            fill(ds, 0);
            pthread_mutex_lock(&p->lock);
            ds->busy = 0;
            worked = 1;
            if (ds->detach) {
                p->slots[ds->slot] = NULL;
                dstream_free(p, ds);
            }
        }
        atomic_fetch_add_explicit(&p->wakeups, 1, memory_order_relaxed);
        atomic_store_explicit(&p->cpu_ns[a->index], thread_cpu_ns(), memory_order_relaxed);
        if (worked || p->quit || p->jobs) continue;
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        uint64_t ns = (uint64_t)until.tv_nsec + HLD_DECODER_WAIT_MS * NS_PER_MS;
        until.tv_sec += (time_t)(ns / NS_PER_S);
        until.tv_nsec = (long)(ns % NS_PER_S);
        pthread_cond_timedwait(&p->cond, &p->lock, &until);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int hld_decoder_start(hld_decoder_t *p, uint32_t engine_rate) {
    memset(p, 0, sizeof *p);
    p->rate = engine_rate;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&p->lock, NULL) != 0 || pthread_cond_init(&p->cond, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        return HELIOD_EIO;
    }
    pthread_condattr_destroy(&ca);
    for (int i = 0; i < HLD_DECODER_THREADS; i++) {
        g_args[i] = (thread_arg_t){p, i};
        if (pthread_create(&p->threads[i], NULL, decoder_main, &g_args[i]) != 0) {
            hld_error("cannot start decoder thread %d: %s", i, strerror(errno));
            hld_decoder_stop(p);
            return HELIOD_EIO;
        }
        p->nthreads++;
    }
    return 0;
}

void hld_decoder_stop(hld_decoder_t *p) {
    if (!p->rate) return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    p->notify = NULL;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    p->nthreads = 0;
    /* opens never run: answer them (their callbacks release the streams) */
    hld_dstream_t *ds;
    while ((ds = job_pop(p))) {
        prime_fail(ds, HELIOD_ESHUTDOWN, "the daemon is shutting down");
        done_push(p, ds);
    }
    hld_decoder_complete(p);
    for (int i = 0; i < HL_MAX_STREAMS; i++) {
        if (p->slots[i]) dstream_free(p, p->slots[i]);
        p->slots[i] = NULL;
    }
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    p->rate = 0;
}

int hld_dstream_open_async(hld_decoder_t *p, struct hld_sound *snd, const char *path,
                           const hld_stream_opts_t *o, hld_open_done_fn done, void *user,
                           const char **msg) {
    if (atomic_load_explicit(&p->active, memory_order_relaxed) >= HL_MAX_STREAMS) {
        *msg = "too many streams playing or starting (HL_MAX_STREAMS = 256)";
        return HELIOD_ENOVOICES;
    }
    hld_dstream_t *ds = calloc(1, sizeof *ds);
    if (!ds) {
        *msg = "out of memory";
        return HELIOD_ENOMEM;
    }
    atomic_fetch_add_explicit(&p->active, 1, memory_order_relaxed);
    ds->snd = snd;
    ds->slot = -1;
    ds->path = path;
    ds->rate = p->rate;
    ds->start = o->start;
    ds->loop_start = o->loop_start;
    ds->loop_end = o->loop_end; /* 0 = the file's end, known once it is open */
    ds->loops_left = ds->loops = o->loops;
    atomic_store_explicit(&ds->loops_now, o->loops, memory_order_relaxed);
    ds->xfade = o->xfade;
    ds->done = done;
    ds->done_user = user;
    pthread_mutex_lock(&p->lock);
    if (p->jobs_tail)
        p->jobs_tail->job_next = ds;
    else
        p->jobs = ds;
    p->jobs_tail = ds;
    p->jobs_queued++;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

int hld_decoder_complete(hld_decoder_t *p) {
    pthread_mutex_lock(&p->lock);
    hld_dstream_t *ds = p->done;
    p->done = p->done_tail = NULL;
    pthread_mutex_unlock(&p->lock);
    int n = 0;
    while (ds) {
        hld_dstream_t *next = ds->job_next;
        ds->job_next = NULL;
        p->jobs_queued--;
        n++;
        ds->done(ds->done_user, ds, ds->status, ds->status < 0 ? ds->msg : NULL);
        ds = next;
    }
    return n;
}

void hld_decoder_set_notify(hld_decoder_t *p, void (*fn)(void *user), void *user) {
    pthread_mutex_lock(&p->lock);
    p->notify = fn;
    p->notify_user = user;
    pthread_mutex_unlock(&p->lock);
}

uint32_t hld_decoder_pending(hld_decoder_t *p) {
    return p->jobs_queued;
}

void hld_dstream_release(hld_decoder_t *p, hld_dstream_t *ds) {
    if (!ds) return;
    pthread_mutex_lock(&p->lock);
    if (ds->busy) {
        ds->detach = 1; /* the decoder thread frees it when its step ends */
        pthread_mutex_unlock(&p->lock);
        return;
    }
    if (ds->slot >= 0) p->slots[ds->slot] = NULL;
    pthread_mutex_unlock(&p->lock);
    dstream_free(p, ds);
}

uint32_t hld_decoder_active(hld_decoder_t *p) {
    return atomic_load_explicit(&p->active, memory_order_relaxed);
}

double hld_decoder_cpu_s(hld_decoder_t *p) {
    uint64_t ns = 0;
    for (int i = 0; i < HLD_DECODER_THREADS; i++)
        ns += atomic_load_explicit(&p->cpu_ns[i], memory_order_relaxed);
    return (double)ns / NS_PER_S;
}

uint64_t hld_decoder_wakeups(hld_decoder_t *p) {
    return atomic_load_explicit(&p->wakeups, memory_order_relaxed);
}
