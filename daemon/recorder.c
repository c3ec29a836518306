/*
 * recorder.c - WAV tap of the master output (see recorder.h). The writer
 * thread polls instead of being woken so the audio thread never makes a
 * system call for it.
 */
#include "recorder.h"

#include <errno.h>
#include <pthread.h>
#include <sndfile.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heliod_errors.h"
#include "hl_limits.h"
#include "hl_ring.h"
#include "hld_limits.h"
#include "log.h"

struct hld_recorder {
    hl_ring_t ring;
    void *storage;
    SNDFILE *sf;
    pthread_t thread;
    atomic_int quit;
    _Atomic uint64_t frames, dropped;
};

static uint32_t pow2_at_least(uint64_t n) {
    uint32_t p = 2;
    while (p < n && p < (1u << 30))
        p <<= 1;
    return p;
}

/* Writes everything readable; returns frames written. Writer thread. */
static uint64_t drain(hld_recorder_t *r) {
    hl_ring_spans_t s;
    uint32_t n = hl_ring_read_spans(&r->ring, &s);
    if (!n) return 0;
    sf_count_t w = sf_writef_float(r->sf, s.p1, s.n1);
    if (s.n2) w += sf_writef_float(r->sf, s.p2, s.n2);
    hl_ring_read_advance(&r->ring, n);
    atomic_fetch_add_explicit(&r->frames, (uint64_t)n, memory_order_relaxed);
    if (w != (sf_count_t)n) hld_warn("record: short write: %s", sf_strerror(r->sf));
    return n;
}

static void *writer_thread(void *arg) {
    hld_recorder_t *r = arg;
    struct timespec ts = {0, (long)(HLD_RECORD_POLL_MS * HLD_NS_PER_MS)};
    while (!atomic_load_explicit(&r->quit, memory_order_acquire)) {
        drain(r);
        nanosleep(&ts, NULL);
    }
    while (drain(r)) {
    }
    return NULL;
}

int hld_recorder_open(hld_recorder_t **out, const char *path, uint32_t rate) {
    hld_recorder_t *r = calloc(1, sizeof *r);
    if (!r) return HELIOD_ENOMEM;
    uint32_t frame_bytes = HLD_CHANNELS * sizeof(float);
    uint32_t cap = pow2_at_least((uint64_t)rate * HL_RECORD_SECONDS);
    r->storage = calloc(cap, frame_bytes);
    if (!r->storage || hl_ring_init(&r->ring, r->storage, cap, frame_bytes) != 0) {
        free(r->storage);
        free(r);
        return HELIOD_ENOMEM;
    }
    SF_INFO info = {.samplerate = (int)rate,
                    .channels = HLD_CHANNELS,
                    .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
    r->sf = sf_open(path, SFM_WRITE, &info);
    if (!r->sf) {
        hld_error("record: cannot create %s: %s", path, sf_strerror(NULL));
        free(r->storage);
        free(r);
        return HELIOD_EFILE;
    }
    if (pthread_create(&r->thread, NULL, writer_thread, r) != 0) {
        sf_close(r->sf);
        free(r->storage);
        free(r);
        return HELIOD_EIO;
    }
    pthread_setname_np(r->thread, "heliod-record");
    *out = r;
    return 0;
}

void hld_recorder_write_rt(hld_recorder_t *r, const float *buf, uint32_t frames) {
    uint32_t w = hl_ring_write(&r->ring, buf, frames);
    if (w < frames)
        atomic_fetch_add_explicit(&r->dropped, (uint64_t)(frames - w), memory_order_relaxed);
}

uint64_t hld_recorder_frames(const hld_recorder_t *r) {
    return r ? atomic_load_explicit(&r->frames, memory_order_relaxed) : 0;
}

uint64_t hld_recorder_dropped(const hld_recorder_t *r) {
    return r ? atomic_load_explicit(&r->dropped, memory_order_relaxed) : 0;
}

void hld_recorder_close(hld_recorder_t *r) {
    if (!r) return;
    atomic_store_explicit(&r->quit, 1, memory_order_release);
    pthread_join(r->thread, NULL);
    if (sf_close(r->sf) != 0) hld_warn("record: closing the file failed");
    free(r->storage);
    free(r);
}
