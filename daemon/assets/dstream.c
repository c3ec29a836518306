/*
 * dstream.c - one stream's decoding (see decoder.h): the decode step (read,
 * bound, reorder, fold, loop crossfade, resample, into the ring), the loop
 * jumps, and the prime of a stream: from its file (an opener thread, or the
 * main thread for a sound kept compressed), or from a compressed sound's
 * head at once (decoder.h "Prefetched head") and the file resumed after it
 * on a decoder thread. decoder.c runs the threads and the pool.
 *
 * Loop crossfade (xfade source frames): while the decoder still loops, the
 * region's last xfade frames are blended with the xfade frames before
 * loop_start, out = x + w * (pre - x) with w = (i - (loop_end - xfade)) /
 * xfade for source frame i, the weighting the mixer applies to preloaded
 * voices (mixer_rt.c sample_at), so a streamed and a preloaded copy match.
 * The frames before loop_start are read once when the stream opens (from
 * the head when it holds them).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decoder.h"
#include "decoder_int.h"
#include "heliod_errors.h"
#include "hl_util.h"
#include "log.h"
#include "sounds.h"

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

/* n decoded frames in buf as the ring takes them: bounded (hld_sanitize),
 * WAVE order (an Ogg file's), folded to the layout (hld_fold_frames). */
static void to_layout(hld_dstream_t *ds, float *buf, uint32_t n) {
    ds->nonfinite += hld_sanitize(buf, (size_t)n * ds->src_ch);
    if (ds->ogg_order) hld_ogg_to_wave(buf, n, ds->src_ch);
    hld_fold_frames(buf, n, ds->src_ch, ds->layout);
}

/* Source frames [from, from + n) of the head into buf (the caller checked
 * they are in it): the decoder's output as it was at load. */
static void head_read(const hld_dstream_t *ds, float *buf, uint64_t from, uint64_t n) {
    memcpy(buf, ds->blob->head + (size_t)from * ds->src_ch, (size_t)n * ds->src_ch * sizeof(float));
}

/* Reads up to want source frames at pos into dec: from the file, or from
 * the head while the file is not open yet. */
static sf_count_t src_read(hld_dstream_t *ds, uint64_t want) {
    if (ds->sf) return sf_readf_float(ds->sf, ds->dec, (sf_count_t)want);
    uint64_t have = ds->blob->head_frames > ds->pos ? ds->blob->head_frames - ds->pos : 0;
    if (want > have) want = have;
    head_read(ds, ds->dec, ds->pos, want);
    return (sf_count_t)want;
}

/* Back to loop_start (< pos): a seek in the file, or, still in the head,
 * only the position. 1 if done. */
static int src_rewind(hld_dstream_t *ds) {
    return !ds->sf || sf_seek(ds->sf, (sf_count_t)ds->loop_start, SEEK_SET) >= 0;
}

/* One decode step: a chunk of source frames, a loop jump, or the end. The
 * caller made sure the ring has room for out_cap frames. Returns 1 when
 * nothing can be done before the file is open (the head is used up). */
static int decode_step(hld_dstream_t *ds) {
    if (ds->pend_n) { /* what the resampler could not take last step comes first */
        emit_pending(ds);
        return 0;
    }
    if (ds->flushing) { /* end of input: drain the resampler's tail */
        size_t odone = 0;
        soxr_process(ds->soxr, NULL, 0, NULL, ds->out, ds->out_cap, &odone);
        if (odone) put(ds, ds->out, (uint32_t)odone);
        if (odone < ds->out_cap) {
            hl_stream_finish(&ds->stream);
            ds->eos = 1;
        }
        return 0;
    }
    int looping = ds->loops_left != 0 && ds->pos <= ds->loop_end;
    uint64_t limit = looping ? ds->loop_end : ds->src_frames;
    uint64_t want = limit > ds->pos ? limit - ds->pos : 0;
    if (want > ds->step) want = ds->step;
    if (want && !ds->sf && ds->pos >= ds->blob->head_frames && !ds->blob->head_whole)
        return 1; /* the head ends here: the rest needs the file */
    sf_count_t got = want ? src_read(ds, want) : 0;
    if (got > 0) {
        to_layout(ds, ds->dec, (uint32_t)got);
        if (looping && ds->xfade) crossfade(ds, ds->pos, (uint32_t)got);
        ds->pos += (uint64_t)got;
        if (!ds->soxr) {
            ds->written += hl_stream_write(&ds->stream, ds->dec, (uint32_t)got); /* bounded */
            return 0;
        }
        ds->pend_off = 0;
        ds->pend_n = (uint32_t)got;
        emit_pending(ds);
        return 0;
    }
    if (looping && ds->pos > ds->loop_start && src_rewind(ds)) {
        ds->pos = ds->loop_start;
        if (ds->loops_left > 0) ds->loops_left--;
        mark_jump(ds);
        return 0;
    }
    if (ds->soxr) {
        ds->flushing = 1;
        return 0;
    }
    hl_stream_finish(&ds->stream);
    ds->eos = 1;
    return 0;
}

void hld_ds_fill(hld_dstream_t *ds, uint32_t target) {
    while (!ds->eos && hl_stream_writable(&ds->stream) >= ds->out_cap) {
        if (target && hl_stream_readable_rt(&ds->stream) >= target) break;
        if (decode_step(ds)) break;
    }
}

int hld_ds_fail(hld_dstream_t *ds, int rc, const char *m) {
    ds->status = rc;
    snprintf(ds->msg, sizeof ds->msg, "%s", m);
    return rc;
}

/* Reads the xfade frames before loop_start into ds->xbuf, decoded into buf
 * (HLD_STREAM_CHUNK frames of the wider channel count): from the head
 * while the file is not open (the caller checked they are in it), else
 * after a seek. 0 or an error. */
static int read_xfade(hld_dstream_t *ds, float *buf) {
    ds->xbuf = malloc((size_t)ds->xfade * ds->ch * sizeof(float));
    if (!ds->xbuf) return hld_ds_fail(ds, HELIOD_ENOMEM, "out of memory for the stream");
    const uint64_t from = ds->loop_start - ds->xfade;
    if (ds->sf && sf_seek(ds->sf, (sf_count_t)from, SEEK_SET) < 0)
        return hld_ds_fail(ds, HELIOD_EDECODE, "cannot seek in the streamed file");
    uint32_t done = 0;
    while (done < ds->xfade) {
        uint32_t want = ds->xfade - done;
        if (want > HLD_STREAM_CHUNK) want = HLD_STREAM_CHUNK;
        sf_count_t got = want;
        if (ds->sf)
            got = sf_readf_float(ds->sf, buf, (sf_count_t)want);
        else
            head_read(ds, buf, from + done, want);
        if (got <= 0) return hld_ds_fail(ds, HELIOD_EDECODE, "cannot decode the streamed file");
        to_layout(ds, buf, (uint32_t)got);
        memcpy(ds->xbuf + (size_t)done * ds->ch, buf, (size_t)got * ds->ch * sizeof(float));
        done += (uint32_t)got;
    }
    return 0;
}

/* Opens ds's source into ds->sf and describes it in *info: the encoded
 * bytes in memory, a range of a pack file, or the file. 0 or an error. */
static int open_src(hld_decoder_t *p, hld_dstream_t *ds, SF_INFO *info) {
    char m[HL_MAX_MSG + 1];
    if (p && p->test_delay_ms && strstr(ds->path, p->test_delay_match)) { /* tests only */
        struct timespec t = {(time_t)(p->test_delay_ms / 1000),
                             (long)(p->test_delay_ms % 1000) * 1000000L};
        while (nanosleep(&t, &t) != 0 && errno == EINTR) {
        }
    }
    if (ds->blob) { /* kept compressed: decoded from memory, no file I/O */
        ds->vio = (hld_vio_t){.mem = ds->blob->data, .fd = -1, .len = ds->blob->len};
        ds->sf = hld_vio_open(&ds->vio, info);
    } else if (ds->off || ds->len) { /* a range of a pack file, read with pread */
        uint64_t n = 0;
        int fd = hld_sound_open_range(ds->path, ds->off, ds->len, &n, m, sizeof m);
        if (fd < 0) return hld_ds_fail(ds, fd, m);
        ds->fd = fd;
        ds->vio = (hld_vio_t){.fd = fd, .base = ds->off, .len = (size_t)n};
        ds->sf = hld_vio_open(&ds->vio, info);
    } else {
        int fd = hld_sound_open(ds->path, m, sizeof m); /* a FIFO now would block this thread */
        if (fd < 0) return hld_ds_fail(ds, fd, m);
        ds->sf = sf_open_fd(fd, SFM_READ, info, SF_TRUE);
    }
    if (!ds->sf) { /* not sf_strerror(NULL): a buffer every thread shares */
        snprintf(m, sizeof m, "cannot open the streamed file %s: %s", ds->path,
                 sf_error_number(sf_error(NULL)));
        return hld_ds_fail(ds, HELIOD_EFILE, m);
    }
    return 0;
}

/* From the source's description: the channels, the loop, the resampler,
 * the ring and its buffers (reserved from the budget first). 0 or an error. */
static int setup(hld_dstream_t *ds, const SF_INFO *info) {
    char m[HL_MAX_MSG + 1];
    int rc = hld_sound_check_info(info, 1, m, sizeof m);
    if (rc < 0) return hld_ds_fail(ds, rc, m);
    ds->src_ch = (uint32_t)info->channels;
    ds->ch = hld_fold_channels(ds->src_ch, ds->layout); /* as a preload's */
    ds->ogg_order = hld_ogg_order(info);
    ds->src_rate = (uint32_t)info->samplerate;
    ds->src_frames = (uint64_t)info->frames;
    if (ds->loop_end == 0 || ds->loop_end > ds->src_frames) ds->loop_end = ds->src_frames;
    if (ds->loop_start >= ds->loop_end || ds->start >= ds->src_frames)
        return hld_ds_fail(ds, HELIOD_EDECODE, "the streamed file is shorter than when loaded");
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
        if (!ds->soxr) return hld_ds_fail(ds, HELIOD_EDECODE, "cannot create the resampler");
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
            return hld_ds_fail(ds, HELIOD_ENOMEM,
                               "over the sample memory limit (--max-sample-mb) for the stream");
        ds->budget_bytes = total;
        atomic_fetch_add_explicit(&ds->owner->stream_bytes, total, memory_order_relaxed);
    }
    ds->storage = bytes ? aligned_alloc(64, bytes) : NULL;
    ds->dec = malloc(dec_bytes);
    ds->out = malloc(out_bytes);
    if (!ds->storage || !ds->dec || !ds->out ||
        hl_stream_init(&ds->stream, ds->storage, cap, ds->ch) != 0)
        return hld_ds_fail(ds, HELIOD_ENOMEM, "out of memory for the stream");
    return 0;
}

int hld_ds_prime(hld_decoder_t *p, hld_dstream_t *ds) {
    SF_INFO info = {0};
    int rc = open_src(p, ds, &info);
    if (rc == 0) rc = setup(ds, &info);
    if (rc < 0) return rc;
    if (ds->xfade && ds->loops_left != 0 && read_xfade(ds, ds->dec) != 0) return ds->status;
    if ((ds->start || ds->xfade) && sf_seek(ds->sf, (sf_count_t)ds->start, SEEK_SET) < 0)
        return hld_ds_fail(ds, HELIOD_EDECODE, "cannot seek in the streamed file");
    ds->pos = ds->start;
    hld_ds_fill(ds, HLD_STREAM_PREFILL);
    if (sf_error(ds->sf) != SF_ERR_NO_ERROR && hl_stream_readable_rt(&ds->stream) == 0)
        return hld_ds_fail(ds, HELIOD_EDECODE, "cannot decode the streamed file");
    return 0;
}

/* ---- the prefetched head (decoder.h) ---- */

int hld_ds_head_usable(const hld_dstream_t *ds) {
    return ds->blob && ds->blob->head && ds->start == 0;
}

int hld_ds_prime_head(hld_dstream_t *ds) {
    const hld_blob_t *b = ds->blob;
    if (setup(ds, &b->info) < 0) return ds->status;
    /* the crossfade prefix, if the head holds it (else the resume reads it:
     * the head then ends before the crossfade starts) */
    if (ds->xfade && ds->loops_left != 0 && ds->loop_start <= b->head_frames &&
        read_xfade(ds, ds->dec) != 0)
        return ds->status;
    ds->pos = 0;
    hld_ds_fill(ds, HLD_HEAD_FRAMES);
    ds->need_open = !ds->eos && !b->head_whole;
    return 0;
}

void hld_ds_resume(hld_dstream_t *ds) {
    SF_INFO info = {0};
    const char *why = NULL;
    size_t cap = (size_t)HLD_STREAM_CHUNK * (ds->ch > ds->src_ch ? ds->ch : ds->src_ch);
    float *buf = malloc(cap * sizeof(float)); /* dec may hold frames the resampler has not taken */
    if (!buf || open_src(NULL, ds, &info) < 0) {
        why = buf ? ds->msg : "out of memory";
    } else if (info.channels != (int)ds->src_ch || info.frames != (sf_count_t)ds->src_frames) {
        why = "the encoded bytes describe another file than at load";
    } else if (ds->xfade && ds->loops_left != 0 && !ds->xbuf &&
               (read_xfade(ds, buf) != 0 || sf_seek(ds->sf, 0, SEEK_SET) < 0)) {
        why = ds->status < 0 ? ds->msg : "cannot seek in the streamed file";
    } else { /* decoded from the start and dropped: the decoder's state is a whole decode's */
        for (uint64_t left = ds->pos; left && !why;) {
            sf_count_t got = sf_readf_float(
                ds->sf, buf, (sf_count_t)(left < HLD_STREAM_CHUNK ? left : HLD_STREAM_CHUNK));
            if (got <= 0) why = "cannot decode the streamed file";
            left -= got > 0 ? (uint64_t)got : left;
        }
    }
    free(buf);
    if (!why) return;
    hld_warn("stream of %s: %s: it ends after its prefetched head", ds->name, why);
    if (ds->sf) sf_close(ds->sf);
    ds->sf = NULL;
    hl_stream_finish(&ds->stream);
    ds->eos = 1;
}
