/*
 * decoder.c - the streaming decoder pool (see decoder.h).
 *
 * The pool is a fixed array of HL_MAX_STREAMS slots under one mutex. A
 * decoder thread scans the slots, claims a stream (busy = 1) whose ring has
 * room for one more decode step, drops the lock, decodes until the ring is
 * full or the stream ended, retakes the lock and releases the claim; a
 * stream the main thread released meanwhile (detach) is freed right there.
 * After a pass with nothing to do the thread sleeps on the condition
 * variable for HLD_DECODER_WAIT_MS (hld_dstream_open signals it). The audio
 * thread is never involved: it only reads the rings.
 */
#include "decoder.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heliod_errors.h"
#include "log.h"

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
    free(ds->storage);
    free(ds);
    atomic_fetch_sub_explicit(&p->active, 1, memory_order_relaxed);
}

/* Writes n frames of ds->out (or src) to the ring, resampling first if needed. */
static void emit(hld_dstream_t *ds, const float *in, uint32_t n) {
    if (!ds->soxr) {
        hl_stream_write(&ds->stream, in, n);
        return;
    }
    size_t idone = 0, odone = 0;
    soxr_process(ds->soxr, in, n, &idone, ds->out, ds->out_cap, &odone);
    if (odone) hl_stream_write(&ds->stream, ds->out, (uint32_t)odone);
}

/* One decode step: a chunk of source frames, a loop jump, or the end. The
 * caller made sure the ring has room for out_cap frames. */
static void decode_step(hld_dstream_t *ds) {
    if (ds->flushing) { /* end of input: drain the resampler's tail */
        size_t odone = 0;
        soxr_process(ds->soxr, NULL, 0, NULL, ds->out, ds->out_cap, &odone);
        if (odone) hl_stream_write(&ds->stream, ds->out, (uint32_t)odone);
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
        ds->pos += (uint64_t)got;
        if (ds->src_ch > 2) hld_downmix(ds->dec, (uint32_t)got, ds->src_ch);
        emit(ds, ds->dec, (uint32_t)got);
        return;
    }
    if (looping && ds->pos > ds->loop_start &&
        sf_seek(ds->sf, (sf_count_t)ds->loop_start, SEEK_SET) >= 0) {
        ds->pos = ds->loop_start;
        if (ds->loops_left > 0) ds->loops_left--;
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

static void *decoder_main(void *arg) {
    thread_arg_t *a = arg;
    hld_decoder_t *p = a->p;
    pthread_mutex_lock(&p->lock);
    while (!p->quit) {
        int worked = 0;
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
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    p->nthreads = 0;
    for (int i = 0; i < HL_MAX_STREAMS; i++) {
        if (p->slots[i]) dstream_free(p, p->slots[i]);
        p->slots[i] = NULL;
    }
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    p->rate = 0;
}

static int open_fail(hld_decoder_t *p, hld_dstream_t *ds, int rc, const char **msg, const char *m) {
    *msg = m;
    dstream_free(p, ds);
    return rc;
}

int hld_dstream_open(hld_decoder_t *p, struct hld_sound *snd, const char *path,
                     const hld_stream_opts_t *o, hld_dstream_t **out, const char **msg) {
    if (atomic_load_explicit(&p->active, memory_order_relaxed) >= HL_MAX_STREAMS) {
        *msg = "too many streams playing (HL_MAX_STREAMS = 256)";
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
    SF_INFO info = {0};
    ds->sf = sf_open(path, SFM_READ, &info);
    if (!ds->sf) return open_fail(p, ds, HELIOD_EFILE, msg, "cannot open the streamed file");
    if (info.channels < 1 || info.samplerate < 1 || info.frames <= 0)
        return open_fail(p, ds, HELIOD_EDECODE, msg, "the streamed file has no audio");
    ds->src_ch = (uint32_t)info.channels;
    ds->ch = ds->src_ch > 2 ? 2 : ds->src_ch;
    ds->src_rate = (uint32_t)info.samplerate;
    ds->rate = p->rate;
    ds->src_frames = (uint64_t)info.frames;
    ds->loop_start = o->loop_start;
    ds->loop_end = o->loop_end ? o->loop_end : ds->src_frames;
    ds->loops_left = ds->loops = o->loops;
    if (o->start && sf_seek(ds->sf, (sf_count_t)o->start, SEEK_SET) < 0)
        return open_fail(p, ds, HELIOD_EDECODE, msg, "cannot seek in the streamed file");
    ds->pos = o->start;
    double ratio = (double)ds->rate / ds->src_rate;
    ds->out_cap = (uint32_t)ceil(HLD_STREAM_CHUNK * ratio) + HLD_STREAM_SLACK;
    if (ds->src_rate != ds->rate) {
        soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
        soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0); /* as the preload path */
        soxr_error_t err = NULL;
        ds->soxr = soxr_create(ds->src_rate, ds->rate, ds->ch, &err, &io, &q, NULL);
        if (!ds->soxr) return open_fail(p, ds, HELIOD_EDECODE, msg, "cannot create the resampler");
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
        return open_fail(p, ds, HELIOD_ENOMEM, msg, "out of memory for the stream");
    fill(ds, HLD_STREAM_PREFILL);
    if (sf_error(ds->sf) != SF_ERR_NO_ERROR && hl_stream_readable_rt(&ds->stream) == 0)
        return open_fail(p, ds, HELIOD_EDECODE, msg, "cannot decode the streamed file");

    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < HL_MAX_STREAMS; i++) {
        if (!p->slots[i]) {
            p->slots[i] = ds;
            ds->slot = i;
            break;
        }
    }
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    if (ds->slot < 0) return open_fail(p, ds, HELIOD_ENOVOICES, msg, "too many streams playing");
    *out = ds;
    return 0;
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
