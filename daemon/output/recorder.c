/*
 * recorder.c - WAV tap of the master output (see recorder.h). The writer
 * thread polls instead of being woken so the audio thread never makes a
 * system call for it.
 *
 * Every page of the ring is written (and, where RLIMIT_MEMLOCK allows,
 * locked) before the audio thread can see it, so its first writes never
 * take a page fault. Finalising is bounded: the writer is joined with a
 * deadline, so a file system that hangs delays shutdown by at most that long
 * (the file is then left as it is, and the writer is abandoned). The one open
 * recorder is also reachable through hld_recorder_finalise_live() for the
 * shutdown guard (loop.c), which finalises it before a hard exit.
 */
#include "recorder.h"

#include <errno.h>
#include <pthread.h>
#include <sndfile.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "heliod_errors.h"
#include "hl_layout.h"
#include "hl_limits.h"
#include "hl_ring.h"
#include "hl_util.h"
#include "hld_limits.h"
#include "log.h"

struct hld_recorder {
    hl_ring_t ring;
    void *storage;
    size_t storage_bytes;
    int locked;
    SNDFILE *sf;
    pthread_t thread;
    atomic_int quit;
    int finalised; /* under g_fin_lock */
    _Atomic uint64_t frames, dropped;
    uint32_t channels; /* the file's and the ring's frames: the layout's (the mix has them) */
};

/* Writes n frames. Writer thread. */
static sf_count_t write_frames(hld_recorder_t *r, const float *p, uint32_t n) {
    return sf_writef_float(r->sf, p, n);
}

/* Finalisation may be asked for by the main thread (hld_recorder_close) and by
 * the shutdown guard thread at once: g_fin_lock makes it happen once, and
 * g_live is the open recorder (NULL once closed). */
static pthread_mutex_t g_fin_lock = PTHREAD_MUTEX_INITIALIZER;
static hld_recorder_t *g_live;

/* Writes everything readable; returns frames written. Writer thread. */
static uint64_t drain(hld_recorder_t *r) {
    hl_ring_spans_t s;
    uint32_t n = hl_ring_read_spans(&r->ring, &s);
    if (!n) return 0;
    sf_count_t w = write_frames(r, s.p1, s.n1);
    if (s.n2) w += write_frames(r, s.p2, s.n2);
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
    /* Normally the audio thread has stopped and one or two drains empty the
     * ring; if it still runs (a hard exit), do not chase it forever. */
    for (int i = 0; i < HLD_RECORD_FINAL_DRAINS && drain(r); i++) {
    }
    return NULL;
}

/* Writes one byte in every page so the pages exist before the audio thread
 * touches them (calloc's zero pages would fault on first write), then locks
 * them if the limit allows (mlockall may already have). Main thread. */
static void prefault(hld_recorder_t *r) {
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    volatile unsigned char *p = r->storage;
    for (size_t off = 0; off < r->storage_bytes; off += (size_t)page)
        p[off] = 0;
    if (r->storage_bytes) p[r->storage_bytes - 1] = 0;
    r->locked = mlock(r->storage, r->storage_bytes) == 0;
    if (!r->locked)
        hld_debug("record: ring not locked in memory (%s); pre-faulted only", strerror(errno));
}

/* The libsndfile channel map of a layout: a WAVEX file then carries the
 * layout's WAVE channel mask (dwChannelMask). */
static int channel_map(uint32_t layout, int *map) {
    for (uint32_t c = 0; c < hl_layout_channels((hl_layout_t)layout); c++) {
        switch (hl_layout_speaker((hl_layout_t)layout, c)) {
        case HL_SPK_FL: map[c] = SF_CHANNEL_MAP_LEFT; break;
        case HL_SPK_FR: map[c] = SF_CHANNEL_MAP_RIGHT; break;
        case HL_SPK_FC: map[c] = SF_CHANNEL_MAP_CENTER; break;
        case HL_SPK_LFE: map[c] = SF_CHANNEL_MAP_LFE; break;
        case HL_SPK_BL: map[c] = SF_CHANNEL_MAP_REAR_LEFT; break;
        case HL_SPK_BR: map[c] = SF_CHANNEL_MAP_REAR_RIGHT; break;
        case HL_SPK_SL: map[c] = SF_CHANNEL_MAP_SIDE_LEFT; break;
        case HL_SPK_SR: map[c] = SF_CHANNEL_MAP_SIDE_RIGHT; break;
        case HL_SPK_TFL: map[c] = SF_CHANNEL_MAP_TOP_FRONT_LEFT; break;
        case HL_SPK_TFR: map[c] = SF_CHANNEL_MAP_TOP_FRONT_RIGHT; break;
        case HL_SPK_TBL: map[c] = SF_CHANNEL_MAP_TOP_REAR_LEFT; break;
        case HL_SPK_TBR: map[c] = SF_CHANNEL_MAP_TOP_REAR_RIGHT; break;
        default: return -1;
        }
    }
    return 0;
}

int hld_wav_set_layout(SNDFILE *sf, uint32_t layout) {
    int map[HL_LAYOUT_MAX_CH];
    uint32_t n = hl_layout_channels((hl_layout_t)layout);
    if (!n || channel_map(layout, map) != 0) return -1;
    if (n == HLD_CHANNELS) return 0;
    return sf_command(sf, SFC_SET_CHANNEL_MAP_INFO, map, (int)(n * sizeof(int))) == SF_TRUE ? 0
                                                                                            : -1;
}

int hld_recorder_open(hld_recorder_t **out, const char *path, uint32_t rate, uint32_t layout) {
    uint32_t channels = hl_layout_channels((hl_layout_t)layout);
    if (!channels) return HELIOD_EINVAL;
    hld_recorder_t *r = calloc(1, sizeof *r);
    if (!r) return HELIOD_ENOMEM;
    r->channels = channels;
    uint32_t frame_bytes = channels * sizeof(float);
    uint32_t cap = hl_pow2_at_least((uint64_t)rate * HL_RECORD_SECONDS);
    r->storage_bytes = (size_t)cap * frame_bytes;
    r->storage = calloc(cap, frame_bytes);
    if (!r->storage || hl_ring_init(&r->ring, r->storage, cap, frame_bytes) != 0) {
        free(r->storage);
        free(r);
        return HELIOD_ENOMEM;
    }
    prefault(r);
    /* stereo: a plain WAV as before; wider: WAVE_FORMAT_EXTENSIBLE with the mask */
    SF_INFO info = {.samplerate = (int)rate,
                    .channels = (int)channels,
                    .format = (channels == HLD_CHANNELS ? SF_FORMAT_WAV : SF_FORMAT_WAVEX) |
                              SF_FORMAT_FLOAT};
    r->sf = sf_open(path, SFM_WRITE, &info);
    if (r->sf && hld_wav_set_layout(r->sf, layout) != 0) {
        hld_error("record: cannot set the channel map of %s: %s", path, sf_strerror(r->sf));
        sf_close(r->sf);
        r->sf = NULL;
    }
    if (!r->sf) {
        if (channels == HLD_CHANNELS)
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
    pthread_mutex_lock(&g_fin_lock);
    g_live = r;
    pthread_mutex_unlock(&g_fin_lock);
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

static void deadline_in(struct timespec *t, unsigned ms) {
    clock_gettime(CLOCK_REALTIME, t); /* pthread_timedjoin_np and timedlock use CLOCK_REALTIME */
    uint64_t ns = (uint64_t)t->tv_nsec + (uint64_t)ms * HLD_NS_PER_MS;
    t->tv_sec += (time_t)(ns / HLD_NS_PER_S);
    t->tv_nsec = (long)(ns % HLD_NS_PER_S);
}

/* Stops the writer (bounded by `until`), closes the file. g_fin_lock held.
 * 0 if the file is finalised, -1 if the writer did not finish in time. */
static int finalise_locked(hld_recorder_t *r, const struct timespec *until) {
    if (r->finalised) return 0;
    atomic_store_explicit(&r->quit, 1, memory_order_release);
    if (pthread_timedjoin_np(r->thread, NULL, until) != 0) {
        hld_warn("record: the writer is stuck in I/O; the recording is left unfinished");
        return -1;
    }
    if (sf_close(r->sf) != 0) hld_warn("record: closing the file failed");
    r->sf = NULL;
    r->finalised = 1;
    return 0;
}

int hld_recorder_finalise_live(unsigned timeout_ms) {
    struct timespec until;
    deadline_in(&until, timeout_ms);
    if (pthread_mutex_timedlock(&g_fin_lock, &until) != 0) return -1;
    int rc = g_live ? finalise_locked(g_live, &until) : 1;
    pthread_mutex_unlock(&g_fin_lock);
    return rc;
}

void hld_recorder_close(hld_recorder_t *r) {
    if (!r) return;
    struct timespec until;
    deadline_in(&until, HLD_RECORD_CLOSE_MS);
    if (pthread_mutex_timedlock(&g_fin_lock, &until) != 0) return; /* a finaliser is stuck */
    int rc = finalise_locked(r, &until);
    if (g_live == r) g_live = NULL;
    pthread_mutex_unlock(&g_fin_lock);
    if (rc != 0) return; /* the writer still uses r: leave it (the process is exiting) */
    if (r->locked) munlock(r->storage, r->storage_bytes);
    free(r->storage);
    free(r);
}
