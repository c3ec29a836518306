/*
 * meter_tap.c - the audio thread's side of the meters (meter_tap.h): two SPSC
 * rings, a carried level record for when the main thread falls behind, and
 * the counters of both. The record is ~800 bytes and the output one period:
 * a few hundred nanoseconds of copying per call.
 */
#include "meter_tap.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heliod_errors.h"
#include "hl_util.h"
#include "hld_limits.h"
#include "log.h"

struct hld_meter_tap {
    hl_ring_t levels, pcm;
    uint32_t ch; /* channels per pcm frame: the layout's, 2 if opened for stereo */
    void *lv_storage, *pcm_storage;
    size_t lv_bytes, pcm_bytes;
    /* audio thread only */
    hl_mix_meter_t carry;
    int carrying;
    /* written by the audio thread (relaxed) */
    _Atomic uint64_t coalesced, dropped;
};

/* Writes every page (calloc's zero pages would fault on the audio thread's
 * first write), then locks them if the limit allows. */
static void prefault(void *mem, size_t bytes) {
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    volatile unsigned char *p = mem;
    for (size_t off = 0; off < bytes; off += (size_t)page)
        p[off] = 0;
    if (bytes) p[bytes - 1] = 0;
    if (mlock(mem, bytes) != 0)
        hld_debug("meters: ring not locked in memory (%s); pre-faulted only", strerror(errno));
}

int hld_meter_tap_open(hld_meter_tap_t **out, uint32_t rate, uint32_t channels) {
    *out = NULL;
    if (channels < HLD_CHANNELS || channels > HL_MIX_MAX_CH) return HELIOD_EINVAL;
    hld_meter_tap_t *t = calloc(1, sizeof *t);
    if (!t) return HELIOD_ENOMEM;
    t->ch = channels;
    uint32_t lv_cap = HLD_METER_LEVEL_RING;
    uint32_t pcm_cap = hl_pow2_at_least((uint64_t)rate * HLD_METER_PCM_SECONDS);
    uint32_t frame_bytes = channels * sizeof(float);
    t->lv_bytes = (size_t)lv_cap * sizeof(hl_mix_meter_t);
    t->pcm_bytes = (size_t)pcm_cap * frame_bytes;
    t->lv_storage = calloc(lv_cap, sizeof(hl_mix_meter_t));
    t->pcm_storage = calloc(pcm_cap, frame_bytes);
    if (!t->lv_storage || !t->pcm_storage ||
        hl_ring_init(&t->levels, t->lv_storage, lv_cap, sizeof(hl_mix_meter_t)) != 0 ||
        hl_ring_init(&t->pcm, t->pcm_storage, pcm_cap, frame_bytes) != 0) {
        hld_meter_tap_close(t);
        return HELIOD_ENOMEM;
    }
    prefault(t->lv_storage, t->lv_bytes);
    prefault(t->pcm_storage, t->pcm_bytes);
    *out = t;
    return 0;
}

/* Folds record b into a (a came first). */
static void fold(hl_mix_meter_t *a, const hl_mix_meter_t *b) {
    for (int i = 0; i < HL_MIX_METERS; i++)
        for (int c = 0; c < HL_MIX_MAX_CH; c++) {
            if (b->peak[i][c] > a->peak[i][c]) a->peak[i][c] = b->peak[i][c];
            a->sumsq[i][c] += b->sumsq[i][c];
        }
    a->frames += b->frames;
    a->now_frames = b->now_frames;
}

void hld_meter_tap_write_rt(hld_meter_tap_t *t, const hl_mix_meter_t *lv, const float *out,
                            uint32_t frames, uint32_t channels) {
    if (t->carrying) {
        fold(&t->carry, lv);
        atomic_fetch_add_explicit(&t->coalesced, 1, memory_order_relaxed);
        if (hl_ring_write(&t->levels, &t->carry, 1) == 1) t->carrying = 0;
    } else if (hl_ring_write(&t->levels, lv, 1) != 1) {
        t->carry = *lv;
        t->carrying = 1;
        atomic_fetch_add_explicit(&t->coalesced, 1, memory_order_relaxed);
    }
    uint32_t n = 0;
    if (channels == t->ch) {
        n = hl_ring_write(&t->pcm, out, frames);
    } else { /* a tap opened for stereo: the front pair, through a stage on the stack */
        enum { STAGE = 256 };
        float st[STAGE * HLD_CHANNELS];
        for (uint32_t i = 0; i < frames; i += STAGE) {
            const uint32_t k = frames - i < STAGE ? frames - i : STAGE;
            for (uint32_t j = 0; j < k; j++) {
                st[2 * j] = out[(size_t)(i + j) * channels];
                st[2 * j + 1] = out[(size_t)(i + j) * channels + 1];
            }
            const uint32_t w = hl_ring_write(&t->pcm, st, k);
            n += w;
            if (w < k) break;
        }
    }
    if (n < frames) atomic_fetch_add_explicit(&t->dropped, frames - n, memory_order_relaxed);
}

uint32_t hld_meter_tap_read_levels(hld_meter_tap_t *t, hl_mix_meter_t *dst, uint32_t max) {
    return hl_ring_read(&t->levels, dst, max);
}

uint32_t hld_meter_tap_read_pcm(hld_meter_tap_t *t, hl_ring_spans_t *s) {
    return hl_ring_read_spans(&t->pcm, s);
}

void hld_meter_tap_pcm_done(hld_meter_tap_t *t, uint32_t n) {
    hl_ring_read_advance(&t->pcm, n);
}

uint64_t hld_meter_tap_coalesced(const hld_meter_tap_t *t) {
    return t ? atomic_load_explicit(&t->coalesced, memory_order_relaxed) : 0;
}

uint64_t hld_meter_tap_dropped(const hld_meter_tap_t *t) {
    return t ? atomic_load_explicit(&t->dropped, memory_order_relaxed) : 0;
}

void hld_meter_tap_close(hld_meter_tap_t *t) {
    if (!t) return;
    if (t->lv_storage) munlock(t->lv_storage, t->lv_bytes);
    if (t->pcm_storage) munlock(t->pcm_storage, t->pcm_bytes);
    free(t->lv_storage);
    free(t->pcm_storage);
    free(t);
}
