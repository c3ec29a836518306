/*
 * decoder.c - the streaming decoder pool (see decoder.h).
 *
 * The pool is a fixed array of HL_MAX_STREAMS slots under one mutex. A
 * decoder thread scans the slots, claims a stream (busy = 1) whose ring has
 * room for one more decode step (the emptiest), drops the lock, decodes
 * HLD_DECODER_QUANTUM frames into it (or until it is full or the stream
 * ended), retakes the lock and releases the claim; a
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
 * the voices already playing. Streams primed from a prefetched head
 * (decoder.h) enter a slot at once, marked need_open: a decoder thread
 * takes them first (hld_ds_resume). Otherwise it serves the ring with the
 * fewest frames ready, HLD_DECODER_QUANTUM frames at a time, until every
 * ring is full: streams started together are filled evenly.
 *
 * One stream's decoding (the step, loop jumps, the crossfade, the primes)
 * is dstream.c's.
 */
#include "decoder.h"
#include "decoder_int.h"

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

/* A stream a decoder thread should take: one to open after its head, or
 * one whose ring has room for a step. */
static int needs_work(hld_dstream_t *ds) {
    if (ds->busy || ds->detach) return 0;
    if (ds->need_open) return ds->handed; /* once its voice is handed to the mixer */
    return !ds->eos && hl_stream_writable(&ds->stream) >= ds->out_cap;
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
        if (ds->slot < 0) hld_ds_fail(ds, HELIOD_ENOVOICES, "too many streams playing");
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
        int rc = hld_ds_prime(p, ds);
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

/* The stream a decoder thread serves next (lock held): a handed stream to
 * resume after its head first, else the one with the fewest frames ready
 * (the nearest underrun). NULL: nothing to do. */
static hld_dstream_t *pick(hld_decoder_t *p) {
    hld_dstream_t *best = NULL;
    uint32_t room = 0;
    for (int i = 0; i < HL_MAX_STREAMS; i++) {
        hld_dstream_t *ds = p->slots[i];
        if (!ds || !needs_work(ds)) continue;
        if (ds->need_open) return ds;
        uint32_t w = hl_stream_writable(&ds->stream);
        if (!best || w > room) {
            best = ds;
            room = w;
        }
    }
    return best;
}

static void *decoder_main(void *arg) {
    thread_arg_t *a = arg;
    hld_decoder_t *p = a->p;
    pthread_mutex_lock(&p->lock);
    while (!p->quit) {
        check_opens(p);
        atomic_fetch_add_explicit(&p->wakeups, 1, memory_order_relaxed);
        hld_dstream_t *ds = pick(p);
        if (ds) {
            /* a resume is topped up to a head's worth; any other ring gets
             * HLD_DECODER_QUANTUM more frames, then the neediest is picked
             * again: a burst of streams is served evenly, none waits for
             * the others' rings to be full */
            int resume = ds->need_open;
            ds->need_open = 0;
            ds->busy = 1;
            pthread_mutex_unlock(&p->lock);
            if (resume) hld_ds_resume(ds);
            uint32_t ready = hl_stream_readable_rt(&ds->stream);
            hld_ds_fill(ds, resume ? HLD_HEAD_FRAMES : ready + HLD_DECODER_QUANTUM);
            pthread_mutex_lock(&p->lock);
            ds->busy = 0;
            if (ds->detach) {
                p->slots[ds->slot] = NULL;
                dstream_free(p, ds);
            }
            atomic_store_explicit(&p->cpu_ns[a->index], thread_cpu_ns(), memory_order_relaxed);
            continue;
        }
        atomic_store_explicit(&p->cpu_ns[a->index], thread_cpu_ns(), memory_order_relaxed);
        if (p->quit) break;
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
        hld_ds_fail(ds, HELIOD_ESHUTDOWN, "the daemon is shutting down");
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

/* A compressed sound's open, primed here on the caller's thread: from its
 * prefetched head at the engine's rate (decoder.h "Prefetched head": a
 * copy, no decoding, so always), else (a head that needs the resampler, or
 * none) while the batch's inline budget lasts (decoder.h "Inline opens");
 * its completion is queued as an opener's is. 1 if it ran, 0 to queue it. */
static int open_inline(hld_decoder_t *p, hld_dstream_t *ds, uint64_t batch) {
    if (!ds->blob || (p->test_delay_ms && strstr(ds->path, p->test_delay_match))) return 0;
    if (batch != p->inline_batch) {
        p->inline_batch = batch;
        p->inline_spent_ns = 0;
    }
    const int head = hld_ds_head_usable(ds);
    const int copy = head && (uint32_t)ds->blob->info.samplerate == p->rate;
    if (!copy && p->inline_spent_ns >= (uint64_t)HLD_INLINE_OPEN_MS * NS_PER_MS) return 0;
    const uint64_t t0 = now_ns();
    int rc = head ? hld_ds_prime_head(ds) : hld_ds_prime(p, ds);
    p->inline_spent_ns += now_ns() - t0;
    atomic_fetch_add_explicit(&p->inline_opens, 1, memory_order_relaxed);
    if (head) atomic_fetch_add_explicit(&p->head_opens, 1, memory_order_relaxed);
    pthread_mutex_lock(&p->lock);
    p->jobs_queued++; /* pending until its completion runs (hld_decoder_complete) */
    finish_job(p, ds, rc);
    if (ds->slot < 0 || ds->status != 0) ds->need_open = 0; /* else resumed once handed */
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
    uint32_t handed = 0;
    for (hld_dstream_t *k = ds; k; k = k->job_next)
        if (k->need_open && !k->timed_out) { /* decoder threads may resume it from now on */
            k->handed = 1;
            handed++;
        }
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
    /* after the voices went to the mixer: a resume competes with no start.
     * Only threads asleep need the call: a thread sleeps only when it finds
     * no stream to take, and one handed earlier is found before that */
    if (handed) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
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

uint64_t hld_decoder_head_opens(hld_decoder_t *p) {
    return atomic_load_explicit(&p->head_opens, memory_order_relaxed);
}
