/*
 * heliod_stream.c - libheliod's client-fed streams (heliod_stream.h): the
 * sealed memfd with the header and ring of hl_shm_stream.h, the STREAM
 * request, and the writer's side of the ring. Writing, waiting and the
 * counters touch the shared memory only (acquire/release atomics, a futex
 * to sleep on), never the connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "heliod_conv.h"
#include "heliod_int.h"
#include "hl_shm_stream.h"

_Static_assert(HELIOD_STREAM_F32 == HL_SHM_F32 && HELIOD_STREAM_S16 == HL_SHM_S16 &&
                   HELIOD_STREAM_U8 == HL_SHM_U8 && HELIOD_STREAM_MIN_FRAMES == HL_SHM_MIN_FRAMES &&
                   HELIOD_STREAM_MAX_FRAMES == HL_SHM_MAX_FRAMES &&
                   HELIOD_STREAM_MIN_RATE == HL_SHM_MIN_RATE &&
                   HELIOD_STREAM_MAX_RATE == HL_SHM_MAX_RATE,
               "the public constants are the wire's");
_Static_assert(HELIOD_SUB_STREAM == HL_SUB_STREAM && HELIOD_EVENT_STREAM == HL_EVENT_STREAM,
               "stream subscription and event are the wire's");

struct heliod_stream {
    heliod_t *h;
    heliod_voice_t voice;
    hl_shm_hdr_t *hdr;
    unsigned char *ring;
    size_t len;
    uint32_t frames, fsize; /* capacity, bytes per frame */
    uint64_t wpos;          /* the writer's own position (never read back) */
    int ended_by_writer;
};

void heliod_stream_params_init(heliod_stream_params_t *p) {
    memset(p, 0, sizeof *p);
    p->channels = 2;
    p->format = HELIOD_STREAM_F32;
    heliod_play_params_init(&p->play);
}

static uint32_t pow2_at_least(uint32_t n) {
    uint32_t p = HL_SHM_MIN_FRAMES;
    while (p < n && p < HL_SHM_MAX_FRAMES)
        p <<= 1;
    return p;
}

int heliod_stream_open(heliod_t *h, const heliod_stream_params_t *p, heliod_stream_t **out) {
    if (!h || !p || !out) return HELIOD_EINVAL;
    *out = NULL;
    if (heliod_protocol_minor(h) < 1)
        return hlc_set_error(h, HELIOD_EVERSION, "stream: the daemon speaks protocol 1.0");
    if (p->channels != 1 && p->channels != 2)
        return hlc_set_error(h, HELIOD_EINVAL, "channels: must be 1 or 2");
    if (p->format > HELIOD_STREAM_U8)
        return hlc_set_error(h, HELIOD_EINVAL, "format: must be F32, S16 or U8");
    if (p->rate && (p->rate < HL_SHM_MIN_RATE || p->rate > HL_SHM_MAX_RATE))
        return hlc_set_error(h, HELIOD_EINVAL, "rate: must be 0 or in [8000, 384000] Hz");
    if (p->frames > HL_SHM_MAX_FRAMES)
        return hlc_set_error(h, HELIOD_EINVAL, "frames: at most 4194304");
    uint32_t rate = p->rate ? p->rate : heliod_server_info(h)->rate;
    uint32_t frames = pow2_at_least(p->frames ? p->frames : rate / 4);
    uint64_t size = hl_shm_size(frames, p->channels, p->format);
    if (!size) return hlc_set_error(h, HELIOD_EINVAL, "stream: bad ring");
    hl_stream_req_t m;
    memset(&m, 0, sizeof m);
    m.rate = p->rate;
    m.channels = (uint8_t)p->channels;
    m.format = (uint8_t)p->format;
    m.frames = frames;
    m.size = size;
    if (memchr(p->play.bus, '\0', sizeof p->play.bus) == NULL ||
        memchr(p->play.emitter, '\0', sizeof p->play.emitter) == NULL)
        return hlc_set_error(h, HELIOD_EINVAL, "play: bus or emitter not terminated");
    heliod_play_params_t play = p->play; /* HELIOD_PLAY_PAN_OPENAL: PLAY's pan_law field */
    play.flags &= ~HELIOD_PLAY_PAN_OPENAL;
    hlc_to_play(&play, &m.play);
    if (p->play.flags & HELIOD_PLAY_PAN_OPENAL) m.play.pan_law = HL_PAN_LAW_OPENAL;
    snprintf(m.play.sound, sizeof m.play.sound, "stream");
    const char *why = NULL;
    if (hl_validate_play(&m.play, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);

    heliod_stream_t *s = calloc(1, sizeof *s);
    if (!s) return hlc_set_error(h, HELIOD_ENOMEM, NULL);
    int fd = memfd_create("heliod-stream", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        if (fd >= 0) close(fd);
        free(s);
        return hlc_set_error(h, HELIOD_ENOMEM, "stream: memfd");
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        if (map != MAP_FAILED) munmap(map, (size_t)size);
        close(fd);
        free(s);
        return hlc_set_error(h, HELIOD_ENOMEM, "stream: mapping the memfd");
    }
    s->h = h;
    s->hdr = map;
    s->ring = (unsigned char *)map + HL_SHM_HDR;
    s->len = (size_t)size;
    s->frames = frames;
    s->fsize = p->channels * hl_shm_sample_size(p->format);
    s->hdr->magic = HL_SHM_MAGIC;
    s->hdr->version = HL_SHM_VERSION;
    s->hdr->frames = frames;
    s->hdr->channels = p->channels;
    s->hdr->format = p->format;
    s->hdr->rate = rate;

    int rc = hlc_out_drain(h); /* the descriptor goes with the frame's first byte */
    hl_wbuf_t w;
    uint32_t id = 0;
    if (rc == 0) rc = hlc_req_begin(h, &w, HL_OP_STREAM, 0, &id);
    if (rc == 0) {
        hl_put_stream_req(&w, &m);
        rc = hlc_req_end(h, &w);
    }
    if (rc == 0) rc = hlc_send_fd(h, fd);
    close(fd); /* the daemon has its own now */
    hl_rbuf_t r;
    if (rc == 0) rc = hlc_wait_reply(h, id, HL_OP_STREAM, &r);
    hl_play_reply_t pr = {0};
    if (rc == 0) {
        hl_get_play_reply(&r, &pr);
        rc = hlc_reply_done(h, &r);
    }
    if (rc < 0) {
        munmap(map, s->len);
        free(s);
        return rc;
    }
    s->voice = pr.voice;
    *out = s;
    return 0;
}

heliod_voice_t heliod_stream_voice(const heliod_stream_t *s) {
    return s ? s->voice : 0;
}

static uint64_t read_pos(const heliod_stream_t *s) {
    return atomic_load_explicit(&s->hdr->read, memory_order_acquire);
}

size_t heliod_stream_writable(const heliod_stream_t *s) {
    if (!s || atomic_load_explicit(&s->hdr->state, memory_order_acquire)) return 0;
    uint64_t used = s->wpos - read_pos(s);
    return used >= s->frames ? 0 : (size_t)(s->frames - used);
}

size_t heliod_stream_write(heliod_stream_t *s, const void *frames, size_t nframes) {
    if (!s || !frames || s->ended_by_writer) return 0;
    size_t room = heliod_stream_writable(s);
    size_t n = nframes < room ? nframes : room;
    const unsigned char *src = frames;
    size_t done = 0;
    while (done < n) {
        uint32_t idx = (uint32_t)((s->wpos + done) & (s->frames - 1));
        size_t run = s->frames - idx;
        if (run > n - done) run = n - done;
        memcpy(s->ring + (size_t)idx * s->fsize, src + done * s->fsize, run * s->fsize);
        done += run;
    }
    if (n) {
        s->wpos += n;
        /* release: the frames are in the ring before the daemon sees them counted */
        atomic_store_explicit(&s->hdr->write, s->wpos, memory_order_release);
    }
    return n;
}

uint64_t heliod_stream_consumed(const heliod_stream_t *s) {
    return s ? read_pos(s) : 0;
}

uint64_t heliod_stream_underruns(const heliod_stream_t *s) {
    return s ? atomic_load_explicit(&s->hdr->underruns, memory_order_acquire) : 0;
}

int heliod_stream_ended(const heliod_stream_t *s, int *reason) {
    uint32_t st = s ? atomic_load_explicit(&s->hdr->state, memory_order_acquire) : 1u;
    if (!st) return 0;
    if (reason) *reason = (int)st - 1;
    return 1;
}

int heliod_stream_wait(heliod_stream_t *s, int timeout_ms) {
    if (!s) return 1;
    struct timespec until, now;
    clock_gettime(CLOCK_MONOTONIC, &until);
    if (timeout_ms >= 0) {
        until.tv_sec += timeout_ms / 1000;
        until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
    }
    for (;;) {
        uint32_t seen = atomic_load_explicit(&s->hdr->wake, memory_order_acquire);
        atomic_store_explicit(&s->hdr->waiting, 1u, memory_order_seq_cst);
        /* after saying so, look again: the daemon checks `waiting` after `read` moved */
        if (heliod_stream_writable(s) > 0 || heliod_stream_ended(s, NULL)) {
            atomic_store_explicit(&s->hdr->waiting, 0u, memory_order_relaxed);
            return 1;
        }
        struct timespec rel, *prel = NULL;
        if (timeout_ms >= 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long ns = (long long)(until.tv_sec - now.tv_sec) * 1000000000LL +
                           (until.tv_nsec - now.tv_nsec);
            if (ns <= 0) {
                atomic_store_explicit(&s->hdr->waiting, 0u, memory_order_relaxed);
                return 0;
            }
            rel.tv_sec = (time_t)(ns / 1000000000LL);
            rel.tv_nsec = (long)(ns % 1000000000LL);
            prel = &rel;
        }
        (void)syscall(SYS_futex, &s->hdr->wake, FUTEX_WAIT, seen, prel, NULL, 0);
    }
}

int heliod_stream_end(heliod_stream_t *s) {
    if (!s) return HELIOD_EINVAL;
    s->ended_by_writer = 1;
    atomic_store_explicit(&s->hdr->eos, 1u, memory_order_release);
    return 0;
}

void heliod_stream_close(heliod_stream_t *s) {
    if (!s) return;
    if (!heliod_stream_ended(s, NULL)) (void)heliod_stop(s->h, s->voice, -1.0f);
    munmap(s->hdr, s->len);
    free(s);
}
