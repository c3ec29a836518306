/*
 * stream_ops.c - STREAM: client-fed streams (PROTOCOL.md, "Client-fed
 * streams"). The client sends a sealed memfd holding a header and a ring
 * (hl_shm_stream.h); this checks the seals, the size and the header before
 * anything is mapped, charges the mapping to the client's process (sample
 * memory) and the daemon's budget, maps it and starts a voice on it that the
 * mixer reads on the audio thread (voice_stream.c). The memory stays mapped
 * until the mixer hands the stream back (the voice ended, was stopped, or
 * its client left): then the header says so, a waiting writer is woken and
 * the mapping goes, on this thread.
 *
 * Wake-ups never leave the main thread: every poll tick looks at each
 * stream's consumed count (the audio thread's own counter, not the
 * client's memory); when it moved while the writer said it waits, the
 * futex word in the header is bumped and FUTEX_WAKE'd (a syscall that
 * never blocks, whatever the client does). The same tick sends STREAM
 * events to an owner that subscribed to them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "conn.h"
#include "daemon.h"
#include "dispatch_int.h"
#include "voice_play.h"
#include "hl_shm_stream.h"
#include "log.h"
#include "notify.h"

#define SEALS_NEEDED (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

typedef struct hld_cstream {
    hl_stream_t st; /* first: the mixer's view, handed back as &st */
    struct hld_cstream *prev, *next;
    hl_shm_hdr_t *hdr; /* the mapping */
    size_t len;
    hld_client_t *cl; /* charged len bytes (NULL: an internal connection) */
    uint32_t owner;   /* client id */
    uint64_t voice;
    uint64_t ev_consumed, ev_underruns; /* as of its last STREAM event */
    uint64_t wake_read;                 /* consumed as of the last tick */
    uint32_t rate;                      /* its frames' rate (Hz), for VOICES */
    char name[HL_MAX_NAME + 1];         /* "stream:<client name>", for VOICES */
} hld_cstream_t;

int hld_cstream_describe(const hld_daemon_t *d, uint64_t voice, char *name, size_t cap,
                         double *position_s) {
    for (const hld_cstream_t *cs = d->cstreams; cs; cs = cs->next) {
        if (cs->voice != voice) continue;
        snprintf(name, cap, "%s", cs->name);
        *position_s = cs->rate ? (double)hl_stream_consumed(&cs->st) / cs->rate : 0.0;
        return 0;
    }
    return -1;
}

/* Client streams are told apart from the decoder's by their shared header. */
int hld_cstream_is(const hl_stream_t *s) {
    return s && s->shm != NULL;
}

static void wake(hld_cstream_t *cs) {
    atomic_fetch_add_explicit(&cs->hdr->wake, 1u, memory_order_release);
    (void)syscall(SYS_futex, &cs->hdr->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void cstream_free(hld_daemon_t *d, hld_cstream_t *cs) {
    if (cs->prev)
        cs->prev->next = cs->next;
    else if (d->cstreams == cs)
        d->cstreams = cs->next;
    if (cs->next) cs->next->prev = cs->prev;
    munmap(cs->hdr, cs->len);
    if (cs->cl) hld_client_release_bytes(cs->cl, cs->len);
    hld_sounds_unreserve(&d->sounds, cs->len);
    free(cs);
}

void hld_cstream_release(hld_daemon_t *d, hl_stream_t *s, int reason) {
    hld_cstream_t *cs = (hld_cstream_t *)(void *)s;
    uint32_t z = 0; /* FINISHED was written by the audio thread as it happened */
    atomic_compare_exchange_strong_explicit(&cs->hdr->state, &z, 1u + (uint32_t)reason,
                                            memory_order_release, memory_order_relaxed);
    wake(cs);
    cstream_free(d, cs);
}

void hld_cstreams_close(hld_daemon_t *d) {
    while (d->cstreams)
        hld_cstream_release(d, &d->cstreams->st, HL_END_SHUTDOWN);
}

void hld_cstreams_tick(hld_daemon_t *d) {
    uint64_t now = 0;
    for (hld_cstream_t *cs = d->cstreams; cs; cs = cs->next) {
        uint64_t rd = hl_stream_consumed(&cs->st);
        if (rd == cs->wake_read) continue;
        cs->wake_read = rd;
        /* the writer sets `waiting`, then looks at `read` again: one of us sees the other */
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load_explicit(&cs->hdr->waiting, memory_order_relaxed)) wake(cs);
        hld_conn_t *c = hld_conn_find(&d->net, cs->owner);
        if (!c || !(c->sub & HL_SUB_STREAM)) continue;
        uint64_t ur = hl_stream_underruns(&cs->st), delta = rd - cs->ev_consumed;
        if (!now) now = hld_now_ns();
        hl_event_t ev = {.type = HL_EVENT_STREAM,
                         .voice = cs->voice,
                         .consumed = rd,
                         .underruns = ur,
                         .frames = delta > UINT32_MAX ? UINT32_MAX : (uint32_t)delta,
                         .reason = ur != cs->ev_underruns,
                         .time_ns = now};
        cs->ev_consumed = rd;
        cs->ev_underruns = ur;
        hld_notify_send(c, &ev);
    }
}

/* The request's own fields, each refusal naming its field. */
static int check_fields(hld_req_t *q, const hl_stream_req_t *m, uint64_t *size) {
    char msg[HL_MAX_MSG + 1];
    if (m->channels != 1 && m->channels != 2)
        return hld_fail(q, HELIOD_EINVAL, "channels: must be 1 or 2"), -1;
    if (m->format > HL_SHM_U8)
        return hld_fail(q, HELIOD_EINVAL, "format: must be 0 (f32), 1 (s16) or 2 (u8)"), -1;
    if (m->rate && (m->rate < HL_SHM_MIN_RATE || m->rate > HL_SHM_MAX_RATE))
        return hld_fail(q, HELIOD_EINVAL, "rate: must be 0 (the engine's) or in [8000, 384000] Hz"),
               -1;
    if (m->frames < HL_SHM_MIN_FRAMES || m->frames > HL_SHM_MAX_FRAMES ||
        (m->frames & (m->frames - 1)))
        return hld_fail(q, HELIOD_EINVAL, "frames: must be a power of two in [256, 4194304]"), -1;
    const hl_play_t *p = &m->play;
    if (p->flags & (HL_PLAY_LOOP | HL_PLAY_DETACHED))
        return hld_fail(q, HELIOD_EINVAL, "play.flags: LOOP and DETACHED do not apply to a stream"),
               -1;
    if (p->loop_start || p->loop_end || p->loop_count || p->loop_xfade_ms != 0.0f)
        return hld_fail(q, HELIOD_EINVAL, "play: the loop fields do not apply to a stream"), -1;
    const char *why = NULL;
    if (hl_validate_play(p, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why), -1;
    *size = hl_shm_size(m->frames, m->channels, m->format);
    if (m->size != *size) {
        snprintf(msg, sizeof msg,
                 "size: must be 256 + frames x channels x sample size = %llu bytes, not %llu",
                 (unsigned long long)*size, (unsigned long long)m->size);
        return hld_fail(q, HELIOD_EINVAL, msg), -1;
    }
    return 0;
}

/* The descriptor: a memfd sealed against shrinking, growing and new seals
 * (so the mapping can never lose its pages under the audio thread: no
 * SIGBUS), exactly `size` bytes. Seals first: once they hold, the size
 * read after them cannot change. */
static int check_fd(hld_req_t *q, int fd, uint64_t size) {
    char msg[HL_MAX_MSG + 1];
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0)
        return hld_fail(q, HELIOD_EINVAL,
                        "stream: the descriptor is not a sealable memfd (memfd_create with "
                        "MFD_ALLOW_SEALING)"),
               -1;
    if ((seals & SEALS_NEEDED) != SEALS_NEEDED)
        return hld_fail(q, HELIOD_EINVAL,
                        "stream: the memfd must be sealed F_SEAL_SHRINK | F_SEAL_GROW | "
                        "F_SEAL_SEAL"),
               -1;
    if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
        return hld_fail(q, HELIOD_EINVAL, "stream: the memfd must stay writable (no write seal)"),
               -1;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return hld_fail(q, HELIOD_EINVAL, "stream: the descriptor is not a memfd"), -1;
    if ((uint64_t)sb.st_size != size) {
        snprintf(msg, sizeof msg, "stream: the memfd holds %lld bytes, the request says %llu",
                 (long long)sb.st_size, (unsigned long long)size);
        return hld_fail(q, HELIOD_EINVAL, msg), -1;
    }
    return 0;
}

/* Charges the mapping to the client's process and the daemon's budget. */
static int charge(hld_req_t *q, hld_client_t *cl, uint64_t size) {
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    if (cl && hld_client_reserve_bytes(cl, size) != 0) {
        hld_client_refused(cl, HLD_QUOTA_BYTES);
        snprintf(msg, sizeof msg,
                 "stream: its ring (%llu bytes) would put this process over its sample-memory "
                 "quota (--client-sample-mb)",
                 (unsigned long long)size);
        return hld_fail(q, HELIOD_EQUOTA, msg), -1;
    }
    if (hld_sounds_reserve(&d->sounds, size) != 0) {
        if (cl) hld_client_release_bytes(cl, size);
        snprintf(msg, sizeof msg,
                 "stream: its ring (%llu bytes) would go over the sample memory "
                 "(--max-sample-mb)",
                 (unsigned long long)size);
        return hld_fail(q, HELIOD_ENOMEM, msg), -1;
    }
    return 0;
}

int hld_op_stream(hld_req_t *q) {
    hl_stream_req_t m;
    hl_get_stream_req(&q->r, &m);
    if (!hld_body_ok(q)) return HLD_CLOSE_CONN;
    hld_conn_t *c = q->c;
    hld_daemon_t *d = c->d;
    int fd = hld_conn_take_fd(c);
    uint64_t size = 0;
    int rc = -1;
    if (c->minor < 1)
        hld_fail(q, HELIOD_EVERSION, "stream: a protocol 1.1 request (say minor 1 in HELLO)");
    else if (fd < 0)
        hld_fail(q, HELIOD_EINVAL,
                 "stream: no descriptor came with the frame (the memfd, SCM_RIGHTS)");
    else if (d->shutting_down)
        hld_fail(q, HELIOD_ESHUTDOWN, "stream: shutting down");
    else if (check_fields(q, &m, &size) == 0 && check_fd(q, fd, size) == 0)
        rc = charge(q, c->cl, size);
    if (rc != 0) {
        if (fd >= 0) {
            close(fd);
            d->n.fds_closed++;
        }
        return 0;
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    hld_cstream_t *cs = map == MAP_FAILED ? NULL : aligned_alloc(64, sizeof *cs);
    if (!cs) {
        int err = errno;
        if (map != MAP_FAILED) munmap(map, (size_t)size);
        if (c->cl) hld_client_release_bytes(c->cl, size);
        hld_sounds_unreserve(&d->sounds, size);
        char msg[HL_MAX_MSG + 1];
        snprintf(msg, sizeof msg, "stream: cannot map the memfd: %s", strerror(err));
        return hld_fail(q, HELIOD_ENOMEM, msg);
    }
    memset(cs, 0, sizeof *cs);
    cs->hdr = map;
    cs->len = (size_t)size;
    cs->cl = c->cl;
    cs->owner = c->id;
    uint32_t rate = m.rate ? m.rate : d->engine.rate;
    cs->rate = rate;
    snprintf(cs->name, sizeof cs->name, "stream:%.56s", c->name[0] ? c->name : "client");
    /* what the client wrote in its header must say the same as its request
     * (read once, here: the audio thread uses the request's values only) */
    const hl_shm_hdr_t *h = cs->hdr;
    if (h->magic != HL_SHM_MAGIC || h->version != HL_SHM_VERSION || h->frames != m.frames ||
        h->channels != m.channels || h->format != m.format || h->rate != rate) {
        cstream_free(d, cs);
        return hld_fail(q, HELIOD_EINVAL,
                        "stream: the ring's header does not match the request (magic, version, "
                        "frames, channels, format, rate)");
    }
    atomic_store_explicit(&cs->hdr->read, 0, memory_order_relaxed);
    atomic_store_explicit(&cs->hdr->underruns, 0, memory_order_relaxed);
    atomic_store_explicit(&cs->hdr->state, 0, memory_order_release);
    double ratio = (double)rate / (double)d->engine.rate;
    if (hl_stream_init_shm(&cs->st, cs->hdr, m.frames, m.channels, m.format, ratio) != 0) {
        cstream_free(d, cs);
        return hld_fail(q, HELIOD_EINVAL, "stream: bad ring");
    }
    /* listed first: a late failure hands it back through hld_cstream_release */
    cs->next = d->cstreams;
    if (d->cstreams) d->cstreams->prev = cs;
    d->cstreams = cs;
    uint64_t voice = 0;
    rc = hld_voice_play_stream(q, &m.play, &cs->st, ratio, &voice);
    if (rc < 0) {
        cstream_free(d, cs);
        return 0;
    }
    if (rc > 0) return 0; /* answered; the stream came back through the voice manager */
    cs->voice = voice;
    hld_debug("client %u: stream voice %llu, %u frames x %u ch, format %u, %u Hz", c->id,
              (unsigned long long)voice, m.frames, m.channels, m.format, rate);
    if (!(q->h->flags & HL_FLAG_NOREPLY)) {
        hl_play_reply_t pr = {.voice = voice, .stolen = 0};
        hld_reply_begin(q);
        hl_put_play_reply(&q->w, &pr);
        hld_reply_end(q);
    }
    return 0;
}
