/*
 * stream.c - the decoder -> audio thread frame ring of a streaming voice
 * (hl_stream.h). A thin layer over hl_ring_t whose element is one whole
 * frame, plus the end-of-stream flag (release by the producer, acquire by the
 * consumer, so every frame written before finish() is visible once the flag
 * is) and the consumer's counters. RT safe throughout.
 */
#include "hl_stream.h"

#include <string.h>

#include "heliod_errors.h"

static int stream_args_ok(uint32_t capacity_frames, uint32_t channels) {
    return channels >= 1 && channels <= HL_STREAM_MAX_CH && capacity_frames >= 2 &&
           (capacity_frames & (capacity_frames - 1)) == 0;
}

size_t hl_stream_size(uint32_t capacity_frames, uint32_t channels) {
    if (!stream_args_ok(capacity_frames, channels)) return 0;
    return (size_t)hl_ring_storage_size(capacity_frames, channels * (uint32_t)sizeof(float));
}

int hl_stream_init(hl_stream_t *s, void *storage, uint32_t capacity_frames, uint32_t channels) {
    if (!s || !storage || !stream_args_ok(capacity_frames, channels)) return HELIOD_EINVAL;
    if (hl_ring_init(&s->ring, storage, capacity_frames, channels * (uint32_t)sizeof(float)) != 0)
        return HELIOD_EINVAL;
    s->channels = channels;
    s->ratio = 1.0;
    s->shm = NULL;
    atomic_init(&s->eos, 0);
    atomic_init(&s->underruns, 0);
    atomic_init(&s->consumed, 0);
    return 0;
}

uint32_t hl_stream_writable(hl_stream_t *s) {
    return hl_ring_writable(&s->ring);
}

uint32_t hl_stream_write(hl_stream_t *s, const float *src, uint32_t frames) {
    return hl_ring_write(&s->ring, src, frames);
}

uint32_t hl_stream_write_spans(hl_stream_t *s, hl_ring_spans_t *spans) {
    return hl_ring_write_spans(&s->ring, spans);
}

void hl_stream_write_commit(hl_stream_t *s, uint32_t frames) {
    hl_ring_write_advance(&s->ring, frames);
}

void hl_stream_finish(hl_stream_t *s) {
    atomic_store_explicit(&s->eos, 1, memory_order_release);
}

int hl_stream_finished(const hl_stream_t *s) {
    hl_stream_t *w = (hl_stream_t *)(uintptr_t)s; /* atomic load only */
    return (int)atomic_load_explicit(&w->eos, memory_order_acquire);
}

uint64_t hl_stream_underruns(const hl_stream_t *s) {
    hl_stream_t *w = (hl_stream_t *)(uintptr_t)s;
    return atomic_load_explicit(&w->underruns, memory_order_relaxed);
}

uint64_t hl_stream_consumed(const hl_stream_t *s) {
    hl_stream_t *w = (hl_stream_t *)(uintptr_t)s;
    return atomic_load_explicit(&w->consumed, memory_order_relaxed);
}

uint32_t hl_stream_readable_rt(hl_stream_t *s) {
    return hl_ring_readable(&s->ring);
}

uint32_t hl_stream_read_rt(hl_stream_t *s, float *dst, uint32_t frames) {
    uint32_t n = hl_ring_read(&s->ring, dst, frames);
    uint64_t c = atomic_load_explicit(&s->consumed, memory_order_relaxed);
    atomic_store_explicit(&s->consumed, c + n, memory_order_relaxed);
    return n;
}

int hl_stream_init_shm(hl_stream_t *s, hl_shm_hdr_t *hdr, uint32_t frames, uint32_t channels,
                       uint32_t format, double ratio) {
    if (!s || !hdr || !hl_shm_size(frames, channels, format) || !(ratio > 0.0))
        return HELIOD_EINVAL;
    memset(s, 0, sizeof *s);
    s->channels = channels;
    s->ratio = ratio;
    s->shm = hdr;
    s->shm_ring = (const unsigned char *)hdr + HL_SHM_HDR;
    s->shm_mask = frames - 1;
    s->shm_format = format;
    s->shm_fsize = channels * hl_shm_sample_size(format);
    atomic_init(&s->eos, 0);
    atomic_init(&s->underruns, 0);
    atomic_init(&s->consumed, 0);
    return 0;
}
