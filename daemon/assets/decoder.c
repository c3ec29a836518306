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
#include "hl_util.h"
#include "log.h"
#include "sounds.h"

#define NS_PER_S  1000000000ull
#define NS_PER_MS 1000000ull

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * NS_PER_S + (uint64_t)t.tv_nsec;
}

static void dstream_free(hld_decoder_t *p, hld_dstream_t *ds) {
    if (ds->nonfinite)
        hld_warn("stream of %s: %llu samples non-finite (zeroed) or beyond +-%g (clipped)",
                 ds->name, (unsigned long long)ds->nonfinite, (double)HLD_MAX_SAMPLE);
    if (ds->owner && ds->budget_bytes) {
        hld_sounds_unreserve(ds->owner, ds->budget_bytes);
        atomic_fetch_sub_explicit(&ds->owner->stream_bytes, ds->budget_bytes, memory_order_relaxed);
    }
    if (ds->sf) sf_close(ds->sf);
    if (ds->fd >= 0) close(ds->fd);
    hld_blob_unref(ds->blob);
    if (ds->soxr) soxr_delete(ds->soxr);
    free(ds->dec);
    free(ds->out);
    free(ds->xbuf);
    free(ds->storage);
    free(ds);
    atomic_fetch_sub_explicit(&p->active, 1, memory_order_relaxed);
}

/* Resamples the decoded frames soxr has not taken yet (pend_n from
 * pend_off in dec) into at most out_cap frames of the ring. soxr takes only
 * as much input as out_cap can hold (idone): the rest stays pending for the
 * next step, never dropped. */
/* Writes n frames of buf into the ring, bounded again first: a resampler
 * can overshoot what hld_sanitize bounded (a clipped square rings). */
static void put(hld_dstream_t *ds, float *buf, uint32_t n) {
    ds->nonfinite += hld_sanitize(buf, (size_t)n * ds->ch);
    ds->written += hl_stream_write(&ds->stream, buf, n);
}

static void emit_pending(hld_dstream_t *ds) {
    size_t idone = 0, odone = 0;
    soxr_process(ds->soxr, ds->dec + (size_t)ds->pend_off * ds->ch, ds->pend_n, &idone, ds->out,
                 ds->out_cap, &odone);
    if (odone) put(ds, ds->out, (uint32_t)odone);
    if (idone > ds->pend_n || (idone == 0 && odone == 0)) idone = ds->pend_n; /* never spin */
    ds->pend_off += (uint32_t)idone;
    ds->pend_n -= (uint32_t)idone;
    if (ds->pend_n == 0) ds->pend_off = 0;
}

/* A loop jump: remember where it is in the ring, publish the count. One
 * writer (the thread filling the stream); readers use the seqlock: seq is
 * odd while the three fields change, so no reader takes a mix of two jumps. */
static void mark_jump(hld_dstream_t *ds) {
    uint32_t q = atomic_load_explicit(&ds->seq, memory_order_relaxed);
    atomic_store_explicit(&ds->seq, q + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release); /* odd before any field changes */
    uint32_t n = atomic_load_explicit(&ds->jumps, memory_order_relaxed);
    atomic_store_explicit(&ds->jump_at[n % HLD_LOOP_MARKS], ds->written, memory_order_relaxed);
    atomic_store_explicit(&ds->loops_now, ds->loops_left, memory_order_relaxed);
    atomic_store_explicit(&ds->jumps, n + 1, memory_order_relaxed);
    atomic_store_explicit(&ds->seq, q + 2, memory_order_release);
}

int64_t hld_dstream_loops_left(hld_dstream_t *ds) {
    for (;;) {
        uint32_t q = atomic_load_explicit(&ds->seq, memory_order_acquire);
        if (q & 1) continue; /* a jump is being published */
        uint32_t n = atomic_load_explicit(&ds->jumps, memory_order_relaxed);
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
        if (atomic_load_explicit(&ds->seq, memory_order_relaxed) == q) return left;
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

/* n decoded frames in dec as the ring takes them: WAVE order (an Ogg
 * file's), folded to the layout (hld_fold_frames). */
static void to_layout(hld_dstream_t *ds, uint32_t n) {
    if (ds->ogg_order) hld_ogg_to_wave(ds->dec, n, ds->src_ch);
    hld_fold_frames(ds->dec, n, ds->src_ch, ds->layout);
}

/* One decode step: a chunk of source frames, a loop jump, or the end. The
 * caller made sure the ring has room for out_cap frames. */
static void decode_step(hld_dstream_t *ds) {
    if (ds->pend_n) { /* what the resampler could not take last step comes first */
        emit_pending(ds);
        return;
    }
    if (ds->flushing) { /* end of input: drain the resampler's tail */
        size_t odone = 0;
        soxr_process(ds->soxr, NULL, 0, NULL, ds->out, ds->out_cap, &odone);
        if (odone) put(ds, ds->out, (uint32_t)odone);
        if (odone < ds->out_cap) {
            hl_stream_finish(&ds->stream);
            ds->eos = 1;
        }
        return;
    }
    int looping = ds->loops_left != 0 && ds->pos <= ds->loop_end;
    uint64_t limit = looping ? ds->loop_end : ds->src_frames;
    uint64_t want = limit > ds->pos ? limit - ds->pos : 0;
    if (want > ds->step) want = ds->step;
    sf_count_t got = want ? sf_readf_float(ds->sf, ds->dec, (sf_count_t)want) : 0;
    if (got > 0) {
        ds->nonfinite += hld_sanitize(ds->dec, (size_t)got * ds->src_ch);
        to_layout(ds, (uint32_t)got);
        if (looping && ds->xfade) crossfade(ds, ds->pos, (uint32_t)got);
        ds->pos += (uint64_t)got;
        if (!ds->soxr) {
            ds->written += hl_stream_write(&ds->stream, ds->dec, (uint32_t)got); /* bounded */
            return;
        }
        ds->pend_off = 0;
        ds->pend_n = (uint32_t)got;
        emit_pending(ds);
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
        ds->nonfinite += hld_sanitize(ds->dec, (size_t)got * ds->src_ch);
        to_layout(ds, (uint32_t)got);
        memcpy(ds->xbuf + (size_t)done * ds->ch, ds->dec, (size_t)got * ds->ch * sizeof(float));
        done += (uint32_t)got;
    }
    return 0;
}

/* The job (an opener thread, which owns ds until it is queued as done):
 * opens the file, sets up the resampler, the ring and the loop, seeks and
 * prefills. Returns 0, or an error with ds->status/msg set. */
static int prime(hld_decoder_t *p, hld_dstream_t *ds) {
    SF_INFO info = {0};
    char m[HL_MAX_MSG + 1];
    if (p->test_delay_ms && strstr(ds->path, p->test_delay_match)) { /* tests only */
        struct timespec t = {(time_t)(p->test_delay_ms / 1000),
                             (long)(p->test_delay_ms % 1000) * (long)NS_PER_MS};
        while (nanosleep(&t, &t) != 0 && errno == EINTR) {
        }
    }
    if (ds->blob) { /* kept compressed: decoded from memory, no file I/O */
        ds->vio = (hld_vio_t){.mem = ds->blob->data, .fd = -1, .len = ds->blob->len};
        ds->sf = hld_vio_open(&ds->vio, &info);
    } else if (ds->off || ds->len) { /* a range of a pack file, read with pread */
        uint64_t n = 0;
        int fd = hld_sound_open_range(ds->path, ds->off, ds->len, &n, m, sizeof m);
        if (fd < 0) return prime_fail(ds, fd, m);
        ds->fd = fd;
        ds->vio = (hld_vio_t){.fd = fd, .base = ds->off, .len = (size_t)n};
        ds->sf = hld_vio_open(&ds->vio, &info);
    } else {
        int fd = hld_sound_open(ds->path, m, sizeof m); /* a FIFO now would block this thread */
        if (fd < 0) return prime_fail(ds, fd, m);
        ds->sf = sf_open_fd(fd, SFM_READ, &info, SF_TRUE);
    }
    if (!ds->sf) { /* not sf_strerror(NULL): a buffer every thread shares */
        snprintf(m, sizeof m, "cannot open the streamed file %s: %s", ds->path,
                 sf_error_number(sf_error(NULL)));
        return prime_fail(ds, HELIOD_EFILE, m);
    }
    int rc = hld_sound_check_info(&info, 1, m, sizeof m);
    if (rc < 0) return prime_fail(ds, rc, m);
    ds->src_ch = (uint32_t)info.channels;
    ds->ch = hld_fold_channels(ds->src_ch, ds->layout); /* as a preload's */
    ds->ogg_order = hld_ogg_order(&info);
    ds->src_rate = (uint32_t)info.samplerate;
    ds->src_frames = (uint64_t)info.frames;
    if (ds->loop_end == 0 || ds->loop_end > ds->src_frames) ds->loop_end = ds->src_frames;
    if (ds->loop_start >= ds->loop_end || ds->start >= ds->src_frames)
        return prime_fail(ds, HELIOD_EDECODE, "the streamed file is shorter than when loaded");
    if (ds->xfade > ds->loop_start || ds->xfade > ds->loop_end - ds->loop_start) ds->xfade = 0;
    /* a step's output is about HLD_STREAM_CHUNK engine frames whatever the
     * ratio: upsampling reads fewer source frames per step */
    double ratio = (double)ds->rate / ds->src_rate;
    ds->step = HLD_STREAM_CHUNK;
    if (ratio > 1.0) {
        ds->step = (uint32_t)(HLD_STREAM_CHUNK / ratio);
        if (ds->step < 16) ds->step = 16;
    }
    ds->out_cap = (uint32_t)ceil(ds->step * ratio) + HLD_STREAM_SLACK;
    if (ds->src_rate != ds->rate) {
        soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
        soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0); /* as the preload path */
        soxr_error_t err = NULL;
        ds->soxr = soxr_create(ds->src_rate, ds->rate, ds->ch, &err, &io, &q, NULL);
        if (!ds->soxr) return prime_fail(ds, HELIOD_EDECODE, "cannot create the resampler");
    }
    uint32_t cap =
        hl_pow2_at_least((uint64_t)ds->rate * HLD_STREAM_RING_MS / (uint64_t)HLD_MS_PER_S);
    uint64_t least = 2 * (uint64_t)ds->out_cap + HLD_STREAM_PREFILL; /* prefill + a step */
    if (cap < least) cap = hl_pow2_at_least(least);
    size_t bytes = (hl_stream_size(cap, ds->ch) + 63) / 64 * 64;
    /* decoded, then folded in place: room for the wider of the two */
    size_t dec_bytes =
        (size_t)HLD_STREAM_CHUNK * (ds->ch > ds->src_ch ? ds->ch : ds->src_ch) * sizeof(float);
    size_t out_bytes = (size_t)ds->out_cap * ds->ch * sizeof(float);
    int want_xfade = ds->xfade && ds->loops_left != 0;
    size_t xf_bytes = want_xfade ? (size_t)ds->xfade * ds->ch * sizeof(float) : 0;
    uint64_t total = (uint64_t)bytes + dec_bytes + out_bytes + xf_bytes;
    if (ds->owner) { /* counted against --max-sample-mb while the stream exists */
        if (hld_sounds_reserve(ds->owner, total) != 0)
            return prime_fail(ds, HELIOD_ENOMEM,
                              "over the sample memory limit (--max-sample-mb) for the stream");
        ds->budget_bytes = total;
        atomic_fetch_add_explicit(&ds->owner->stream_bytes, total, memory_order_relaxed);
    }
    ds->storage = bytes ? aligned_alloc(64, bytes) : NULL;
    ds->dec = malloc(dec_bytes);
    ds->out = malloc(out_bytes);
    if (!ds->storage || !ds->dec || !ds->out ||
        hl_stream_init(&ds->stream, ds->storage, cap, ds->ch) != 0)
        return prime_fail(ds, HELIOD_ENOMEM, "out of memory for the stream");
    if (want_xfade && read_xfade(ds) != 0) return ds->status;
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

/* A finished open (lock held): into a slot of the pool, then answered. */
static void finish_job(hld_decoder_t *p, hld_dstream_t *ds, int rc) {
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

#define TIMEOUT_MSG "opening the streamed file took longer than the open budget (2 s)"

/* Answers ds ETIMEDOUT (lock held). Its opener, if any, still holds it
 * (busy): hld_dstream_release then only marks it, and the opener frees it. */
static void answer_timeout(hld_decoder_t *p, hld_dstream_t *ds) {
    ds->timed_out = 1;
    atomic_fetch_add_explicit(&p->open_timeouts, 1, memory_order_relaxed);
    done_push(p, ds);
    if (p->notify) p->notify(p->notify_user);
}

static void *opener_main(void *arg);

/* Starts an opener thread in place i (lock held). 0 or -1. */
static int spawn_opener(hld_decoder_t *p, int i) {
    hld_opener_t *o = calloc(1, sizeof *o);
    if (!o) return -1;
    o->p = p;
    o->index = i;
    if (pthread_create(&o->th, NULL, opener_main, o) != 0) {
        free(o);
        return -1;
    }
    p->openers[i] = o;
    return 0;
}

static hld_dstream_t *job_pop(hld_decoder_t *p) {
    hld_dstream_t *ds = p->jobs;
    if (ds) {
        p->jobs = ds->job_next;
        if (!p->jobs) p->jobs_tail = NULL;
    }
    return ds;
}

/* An opener: takes the oldest queued open and runs it. One that the
 * watchdog abandoned meanwhile (its open timed out) frees the stream if it
 * was released already, starts a fresh opener in an empty place, and ends. */
static void *opener_main(void *arg) {
    hld_opener_t *o = arg;
    hld_decoder_t *p = o->p;
    pthread_mutex_lock(&p->lock);
    while (!p->quit && !o->abandoned) {
        hld_dstream_t *ds = job_pop(p);
        if (!ds) {
            pthread_cond_wait(&p->open_cond, &p->lock);
            continue;
        }
        o->job = ds;
        o->started_ns = now_ns();
        ds->busy = 1;
        pthread_mutex_unlock(&p->lock);
        int rc = prime(p, ds);
        pthread_mutex_lock(&p->lock);
        o->job = NULL;
        ds->busy = 0;
        if (!o->abandoned) {
            finish_job(p, ds, rc);
            continue;
        }
        if (ds->detach) dstream_free(p, ds); /* else hld_dstream_release frees it */
    }
    if (o->abandoned) {
        p->abandoned--;
        for (int i = 0; i < HLD_OPEN_THREADS && !p->quit; i++)
            if (!p->openers[i]) spawn_opener(p, i);
        pthread_cond_broadcast(&p->open_cond); /* hld_decoder_stop may wait for this */
        pthread_mutex_unlock(&p->lock);
        free(o);
        return NULL;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* The open budget (lock held; decoding threads call it every pass): opens
 * queued or running for longer than HLD_OPEN_TIMEOUT_MS are answered
 * ETIMEDOUT; a running one's opener is abandoned and replaced while at most
 * HLD_OPEN_ABANDON_MAX are. */
static void check_opens(hld_decoder_t *p) {
    const uint64_t now = now_ns(), budget = HLD_OPEN_TIMEOUT_MS * NS_PER_MS;
    int live = 0;
    for (int i = 0; i < HLD_OPEN_THREADS; i++) {
        hld_opener_t *o = p->openers[i];
        if (o) live++;
        if (!o || !o->job || now - o->started_ns <= budget) continue;
        hld_dstream_t *ds = o->job;
        o->abandoned = 1;
        o->job = NULL;
        p->openers[i] = NULL;
        p->abandoned++;
        pthread_detach(o->th);
        hld_warn("stream open of %s: no answer after %d ms, its thread is left behind (%d)",
                 ds->path, HLD_OPEN_TIMEOUT_MS, p->abandoned);
        answer_timeout(p, ds);
        if (p->abandoned <= HLD_OPEN_ABANDON_MAX && spawn_opener(p, i) == 0) live++;
        live--;
    }
    /* a burst of queued opens waits its turn; only with no opener left (all
     * abandoned, at the cap) does the queue itself time out */
    while (!live && p->jobs && now - p->jobs->queued_ns > budget)
        answer_timeout(p, job_pop(p));
}

static void *decoder_main(void *arg) {
    thread_arg_t *a = arg;
    hld_decoder_t *p = a->p;
    pthread_mutex_lock(&p->lock);
    while (!p->quit) {
        int worked = 0;
        check_opens(p);
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
        if (worked || p->quit) continue;
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
    const char *td = getenv("HELIOD_TEST_OPEN_DELAY"); /* "MS:TEXT", tests only (decoder.h) */
    if (td) {
        char *end = NULL;
        unsigned long ms = strtoul(td, &end, 10);
        if (end && *end == ':' && end[1] && ms > 0 && ms < 600000) {
            p->test_delay_ms = (uint32_t)ms;
            snprintf(p->test_delay_match, sizeof p->test_delay_match, "%s", end + 1);
            hld_warn("HELIOD_TEST_OPEN_DELAY: opens of *%s* sleep %lu ms (tests only)",
                     p->test_delay_match, ms);
        }
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&p->lock, NULL) != 0 || pthread_cond_init(&p->cond, &ca) != 0 ||
        pthread_cond_init(&p->open_cond, &ca) != 0) {
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
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < HLD_OPEN_THREADS; i++) {
        if (spawn_opener(p, i) != 0) {
            pthread_mutex_unlock(&p->lock);
            hld_error("cannot start stream opener thread %d: %s", i, strerror(errno));
            hld_decoder_stop(p);
            return HELIOD_EIO;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return 0;
}

void hld_decoder_stop(hld_decoder_t *p) {
    if (!p->rate) return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    p->notify = NULL;
    pthread_cond_broadcast(&p->cond);
    pthread_cond_broadcast(&p->open_cond);
    hld_opener_t *op[HLD_OPEN_THREADS];
    for (int i = 0; i < HLD_OPEN_THREADS; i++) {
        op[i] = p->openers[i];
        p->openers[i] = NULL;
        if (op[i] && op[i]->job) { /* still opening: not waited for (it may hang) */
            hld_opener_t *o = op[i];
            hld_dstream_t *ds = o->job;
            o->abandoned = 1;
            o->job = NULL;
            p->abandoned++;
            pthread_detach(o->th);
            answer_timeout(p, ds);
            op[i] = NULL;
        }
    }
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    p->nthreads = 0;
    for (int i = 0; i < HLD_OPEN_THREADS; i++) {
        if (!op[i]) continue;
        pthread_join(op[i]->th, NULL); /* idle: it sees quit at once */
        free(op[i]);
    }
    /* abandoned openers: give them the open budget to come back, then leave
     * them (and the lock they will take) to the process's exit */
    pthread_mutex_lock(&p->lock);
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += HLD_OPEN_TIMEOUT_MS / 1000 + 1;
    while (p->abandoned > 0 &&
           pthread_cond_timedwait(&p->open_cond, &p->lock, &until) != ETIMEDOUT) {
    }
    int left = p->abandoned;
    pthread_mutex_unlock(&p->lock);
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
    if (left) {
        hld_warn("%d stream opens still hung at exit", left);
    } else {
        pthread_cond_destroy(&p->cond);
        pthread_cond_destroy(&p->open_cond);
        pthread_mutex_destroy(&p->lock);
    }
    p->rate = 0;
}

/* A compressed sound's open, primed here on the caller's thread while the
 * batch's inline budget lasts (decoder.h "Inline opens"); its completion
 * is queued as an opener's is. 1 if it ran, 0 to queue it. */
static int open_inline(hld_decoder_t *p, hld_dstream_t *ds, uint64_t batch) {
    if (!ds->blob || (p->test_delay_ms && strstr(ds->path, p->test_delay_match))) return 0;
    if (batch != p->inline_batch) {
        p->inline_batch = batch;
        p->inline_spent_ns = 0;
    }
    if (p->inline_spent_ns >= (uint64_t)HLD_INLINE_OPEN_MS * NS_PER_MS) return 0;
    const uint64_t t0 = now_ns();
    int rc = prime(p, ds);
    p->inline_spent_ns += now_ns() - t0;
    atomic_fetch_add_explicit(&p->inline_opens, 1, memory_order_relaxed);
    pthread_mutex_lock(&p->lock);
    p->jobs_queued++; /* pending until its completion runs (hld_decoder_complete) */
    finish_job(p, ds, rc);
    pthread_mutex_unlock(&p->lock);
    return 1;
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
    ds->owner = snd ? snd->owner : NULL;
    ds->fd = -1;
    if (snd) {
        ds->blob = hld_blob_ref(snd->blob);
        ds->off = snd->off;
        ds->len = snd->len;
    }
    if (snd) snprintf(ds->name, sizeof ds->name, "%s", snd->name);
    ds->queued_ns = now_ns();
    ds->slot = -1;
    snprintf(ds->path_copy, sizeof ds->path_copy, "%s", path ? path : "");
    ds->path = ds->path_copy;
    ds->rate = p->rate;
    ds->start = o->start;
    ds->loop_start = o->loop_start;
    ds->loop_end = o->loop_end; /* 0 = the file's end, known once it is open */
    ds->loops_left = ds->loops = o->loops;
    atomic_store_explicit(&ds->loops_now, o->loops, memory_order_relaxed);
    ds->xfade = o->xfade;
    ds->layout = o->layout;
    ds->done = done;
    ds->done_user = user;
    if (open_inline(p, ds, o->batch)) return 0;
    pthread_mutex_lock(&p->lock);
    if (p->jobs_tail)
        p->jobs_tail->job_next = ds;
    else
        p->jobs = ds;
    p->jobs_tail = ds;
    p->jobs_queued++;
    pthread_cond_signal(&p->open_cond);
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
        if (ds->timed_out) /* its opener may still write status and msg: not read here */
            ds->done(ds->done_user, ds, HELIOD_ETIMEDOUT, TIMEOUT_MSG);
        else
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

int hld_decoder_settled(hld_decoder_t *p) {
    pthread_mutex_lock(&p->lock);
    int settled = p->jobs_queued == 0;
    for (int i = 0; i < HL_MAX_STREAMS && settled; i++) {
        hld_dstream_t *ds = p->slots[i];
        if (ds && (ds->busy || needs_work(ds))) settled = 0;
    }
    if (!settled) pthread_cond_broadcast(&p->cond); /* no waiting out a decoder's nap */
    pthread_mutex_unlock(&p->lock);
    return settled;
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

uint32_t hld_decoder_fills(hld_decoder_t *p, char (*name)[HL_MAX_NAME + 1], float *fill,
                           uint32_t cap) {
    uint32_t n = 0;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < HL_MAX_STREAMS; i++) {
        hld_dstream_t *ds = p->slots[i];
        if (!ds) continue;
        if (n < cap) {
            const hl_ring_t *r = &ds->stream.ring;
            uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
            uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
            uint32_t used = head - tail;
            float f = r->capacity ? (float)used / (float)r->capacity : 0.0f;
            fill[n] = f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f;
            snprintf(name[n], HL_MAX_NAME + 1, "%s", ds->name);
        }
        n++;
    }
    pthread_mutex_unlock(&p->lock);
    return n;
}

uint64_t hld_decoder_wakeups(hld_decoder_t *p) {
    return atomic_load_explicit(&p->wakeups, memory_order_relaxed);
}

uint64_t hld_decoder_open_timeouts(hld_decoder_t *p) {
    return atomic_load_explicit(&p->open_timeouts, memory_order_relaxed);
}

uint64_t hld_decoder_inline_opens(hld_decoder_t *p) {
    return atomic_load_explicit(&p->inline_opens, memory_order_relaxed);
}
