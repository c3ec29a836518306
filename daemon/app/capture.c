/*
 * capture.c - the session capture's queue and writer thread (capture.h).
 *
 * The main thread appends whole records to a singly linked queue under a
 * mutex (never the audio thread); the writer takes the whole queue at once
 * and writes it with the mutex released. The queue is bounded in bytes: a
 * record beyond HLD_CAPTURE_QUEUE_BYTES is dropped and counted, so a slow
 * disk costs records, never a stall of the loop.
 */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"

typedef struct rec {
    struct rec *next;
    size_t len; /* bytes of data */
    uint8_t data[];
} rec_t;

struct hld_capture {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    rec_t *head, *tail;
    size_t queued; /* bytes in the queue */
    int stop;
    int include_audio;
    char path[HL_MAX_PATH + 1];
    hld_capture_session_t ses;
    uint64_t ns0;
    uint64_t end_frame;                    /* set by hld_capture_set_end, for the trailer */
    uint64_t records, dropped;             /* main thread */
    uint64_t final_records, final_dropped; /* set by hld_capture_end, for the trailer */
    uint64_t written;                      /* writer: bytes */
    int fd;
};

int hld_capture_op(uint16_t op) {
    switch (op) {
    case HL_OP_PING:
    case HL_OP_SOUNDS:
    case HL_OP_VOICES:
    case HL_OP_DEVICES:
    case HL_OP_STATS:
    case HL_OP_SUBSCRIBE:
    case HL_OP_CUES:
    case HL_OP_BUSES:
    case HL_OP_FX_LIST:
    case HL_OP_DUCKS:
    case HL_OP_RZONES:
    case HL_OP_BANKS:
    case HL_OP_ZONES:
    case HL_OP_CLOCK:
    case HL_OP_PARAMS:
    case HL_OP_SNAPSHOTS:
    case HL_OP_CUE_DETAIL:
    case HL_OP_SNAPSHOT_DETAIL:
    case HL_OP_SHEET_KEYS: return 0;
    default: return 1;
    }
}

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int write_all(hld_capture_t *cap, const void *buf, size_t n);

/* The writer's batch: records are copied here and written 64 KiB at a time. */
#define WBATCH (64u * 1024)
typedef struct {
    uint8_t buf[WBATCH];
    size_t len;
} wbatch_t;
static void batch_flush(hld_capture_t *cap, wbatch_t *b) {
    if (b->len) (void)write_all(cap, b->buf, b->len);
    b->len = 0;
}
static void batch_put(hld_capture_t *cap, wbatch_t *b, const uint8_t *p, size_t n) {
    if (b->len + n > WBATCH) batch_flush(cap, b);
    if (n > WBATCH) {
        (void)write_all(cap, p, n);
        return;
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}

static int write_all(hld_capture_t *cap, const void *buf, size_t n) {
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = write(cap->fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
        cap->written += (uint64_t)w;
    }
    return 0;
}

/* The identity of the file a LOAD named: a SOUND record (writer thread). */
static void write_sound(hld_capture_t *cap, const uint8_t *req) {
    /* req: the REQUEST record's payload after kind: frame, time, client, status, frame */
    uint64_t frame = 0;
    for (int i = 0; i < 8; i++)
        frame |= (uint64_t)req[i] << (8 * i);
    uint32_t client = 0;
    for (int i = 0; i < 4; i++)
        client |= (uint32_t)req[16 + i] << (8 * i);
    const uint8_t *fr = req + 24;
    uint32_t size = 0;
    for (int i = 0; i < 4; i++)
        size |= (uint32_t)fr[i] << (8 * i);
    hl_rbuf_t r;
    hl_rbuf_init(&r, fr + HL_FRAME_HDR, size - HL_FRAME_HDR);
    hl_load_t m;
    hl_get_load(&r, &m);
    if (hl_rbuf_finish(&r) != 0 || m.path[0] != '/') return;
    uint32_t flags = 0;
    uint64_t fsize = 0, hash = 1469598103934665603ull;
    int64_t mtime_ns = 0;
    uint8_t *audio = NULL;
    int fd = open(m.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        flags |= HLD_CAPTURE_SOUND_NOFILE;
    } else {
        fsize = (uint64_t)st.st_size;
        mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        if (cap->include_audio && fsize <= ((uint64_t)1 << 31)) audio = malloc(fsize ? fsize : 1);
        uint8_t buf[65536];
        uint64_t got = 0;
        for (;;) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            for (ssize_t i = 0; i < n; i++) {
                hash ^= buf[i];
                hash *= 1099511628211ull;
            }
            if (audio && got + (uint64_t)n <= fsize) memcpy(audio + got, buf, (size_t)n);
            got += (uint64_t)n;
        }
        if (got != fsize) {
            flags |= HLD_CAPTURE_SOUND_NOFILE;
            free(audio);
            audio = NULL;
            fsize = 0;
            hash = 0;
            mtime_ns = 0;
        }
    }
    if (fd >= 0) close(fd);
    if (flags & HLD_CAPTURE_SOUND_NOFILE) hash = 0;
    if (audio) flags |= HLD_CAPTURE_SOUND_AUDIO;
    size_t plen = strlen(m.path);
    /* kind u8, flags u8, pad u16, client u32, frame u64, size u64, mtime i64,
     * hash u64, path str(u16 + bytes), [audio bytes: size of them] */
    size_t body = 1 + 1 + 2 + 4 + 8 + 8 + 8 + 8 + 2 + plen;
    uint8_t head[4 + 1 + 1 + 2 + 4 + 8 + 8 + 8 + 8 + 2 + HL_MAX_PATH];
    uint64_t total = body + (audio ? fsize : 0);
    if (total > UINT32_MAX) {
        free(audio);
        return;
    }
    uint8_t *p = head;
    put32(p, (uint32_t)total), p += 4;
    *p++ = HLD_CAPTURE_REC_SOUND;
    *p++ = (uint8_t)flags;
    put16(p, 0), p += 2;
    put32(p, client), p += 4;
    put64(p, frame), p += 8;
    put64(p, fsize), p += 8;
    put64(p, (uint64_t)mtime_ns), p += 8;
    put64(p, hash), p += 8;
    put16(p, (uint16_t)plen), p += 2;
    memcpy(p, m.path, plen), p += plen;
    (void)write_all(cap, head, (size_t)(p - head));
    if (audio) (void)write_all(cap, audio, fsize);
    free(audio);
}

int hld_capture_open(const char *path) {
    /* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    return fd;
}

static void *writer_main(void *arg) {
    hld_capture_t *cap = arg;
    wbatch_t *wb = malloc(sizeof *wb);
    if (!wb) {
        hld_warn("capture: %s: out of memory; capturing nothing", cap->path);
        pthread_mutex_lock(&cap->mu);
        for (;;) { /* drain and discard until stopped */
            while (!cap->head && !cap->stop)
                pthread_cond_wait(&cap->cv, &cap->mu);
            while (cap->head) {
                rec_t *r = cap->head;
                cap->head = r->next;
                cap->queued -= r->len;
                free(r);
            }
            cap->tail = NULL;
            if (cap->stop) break;
        }
        pthread_mutex_unlock(&cap->mu);
        if (cap->fd >= 0) close(cap->fd);
        cap->fd = -1;
        return NULL;
    }
    wb->len = 0;
    if (cap->fd < 0) cap->fd = hld_capture_open(cap->path);
    if (cap->fd < 0) {
        hld_warn("capture: %s: %s (not a regular file we may write); capturing nothing", cap->path,
                 strerror(errno));
    } else {
        uint8_t h[HLD_CAPTURE_HDR] = {0};
        memcpy(h, HLD_CAPTURE_MAGIC, 8);
        put16(h + 8, HLD_CAPTURE_VERSION);
        h[10] = HL_PROTO_VERSION;
        h[11] = HL_PROTO_MINOR;
        put32(h + 12, cap->ses.rate);
        put64(h + 16, cap->ses.frame);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        put64(h + 24, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
        (void)write_all(cap, h, sizeof h);
        /* SESSION: len u32, kind u8, pad 3, period u32, channels u32, rng u64 */
        uint8_t se[4 + 4 + 16];
        put32(se, sizeof se - 4);
        se[4] = HLD_CAPTURE_REC_SESSION;
        se[5] = se[6] = se[7] = 0;
        put32(se + 8, cap->ses.period);
        put32(se + 12, cap->ses.channels);
        put64(se + 16, cap->ses.rng);
        (void)write_all(cap, se, sizeof se);
    }
    pthread_mutex_lock(&cap->mu);
    for (;;) {
        while (!cap->head && !cap->stop)
            pthread_cond_wait(&cap->cv, &cap->mu);
        rec_t *list = cap->head;
        cap->head = cap->tail = NULL;
        int stop = cap->stop;
        pthread_mutex_unlock(&cap->mu);
        while (list) {
            rec_t *next = list->next;
            if (cap->fd >= 0) {
                batch_put(cap, wb, list->data, list->len);
                const uint8_t *d = list->data;
                if (d[4] == HLD_CAPTURE_REC_REQUEST &&
                    (uint16_t)(d[4 + 1 + 3 + 24 + 4] | d[4 + 1 + 3 + 24 + 5] << 8) == HL_OP_LOAD) {
                    batch_flush(cap, wb);
                    write_sound(cap, list->data + 8);
                }
            }
            pthread_mutex_lock(&cap->mu);
            cap->queued -= list->len;
            pthread_mutex_unlock(&cap->mu);
            free(list);
            list = next;
        }
        if (cap->fd >= 0) batch_flush(cap, wb);
        pthread_mutex_lock(&cap->mu);
        if (stop && !cap->head) break;
    }
    uint64_t records = cap->final_records, dropped = cap->final_dropped;
    pthread_mutex_unlock(&cap->mu);
    if (cap->fd >= 0) {
        /* len u32, kind u8, pad 3, records u64, dropped u64, bytes before it
         * u64, the engine frame it ended on u64 */
        uint8_t t[4 + 4 + 32];
        put32(t, sizeof t - 4);
        t[4] = HLD_CAPTURE_REC_TRAILER;
        t[5] = t[6] = t[7] = 0;
        put64(t + 8, records);
        put64(t + 16, dropped);
        put64(t + 24, cap->written);
        put64(t + 32, cap->end_frame);
        (void)write_all(cap, t, sizeof t);
        if (close(cap->fd) != 0) hld_warn("capture: %s: %s", cap->path, strerror(errno));
        cap->fd = -1;
    }
    free(wb);
    return NULL;
}

hld_capture_t *hld_capture_start(const char *path, int fd, int include_audio,
                                 const hld_capture_session_t *ses) {
    hld_capture_t *cap = calloc(1, sizeof *cap);
    if (!cap) return NULL;
    snprintf(cap->path, sizeof cap->path, "%s", path);
    cap->include_audio = include_audio;
    cap->ses = *ses;
    cap->ns0 = hld_now_ns();
    cap->fd = fd;
    pthread_mutex_init(&cap->mu, NULL);
    pthread_cond_init(&cap->cv, NULL);
    if (pthread_create(&cap->thread, NULL, writer_main, cap) != 0) {
        pthread_mutex_destroy(&cap->mu);
        pthread_cond_destroy(&cap->cv);
        free(cap);
        return NULL;
    }
    return cap;
}

/* Queues r (a request: counted in records) or drops it (counted). */
static void enqueue(hld_capture_t *cap, rec_t *r, int request) {
    pthread_mutex_lock(&cap->mu);
    if (cap->queued + r->len > HLD_CAPTURE_QUEUE_BYTES) {
        pthread_mutex_unlock(&cap->mu);
        free(r);
        cap->dropped++;
        return;
    }
    cap->queued += r->len;
    int was_empty = !cap->head; /* the writer waits only on an empty queue */
    if (cap->tail)
        cap->tail->next = r;
    else
        cap->head = r;
    cap->tail = r;
    if (was_empty) pthread_cond_signal(&cap->cv);
    pthread_mutex_unlock(&cap->mu);
    if (request) cap->records++;
}

void hld_capture_request(hld_capture_t *cap, uint64_t frame, uint32_t flags, uint32_t client,
                         int32_t status, uint64_t voice, const hl_frame_hdr_t *h,
                         const uint8_t *body, size_t len) {
    if (!cap) return;
    /* len u32, kind u8, flags u8, pad 2, frame u64, time_ns u64, client u32,
     * status i32, then the request frame as it came (header + body); a REPLY
     * record (len u32, kind u8, pad 3, voice u64; a MUSIC's: MREPLY, which a
     * reader that only knows PLAY replies skips) in the same allocation */
    size_t n = 4 + 4 + 8 + 8 + 4 + 4 + HL_FRAME_HDR + len, reply = voice ? 4 + 4 + 8 : 0;
    rec_t *r = malloc(sizeof *r + n + reply);
    if (!r) {
        cap->dropped++;
        return;
    }
    r->next = NULL;
    r->len = n + reply;
    uint8_t *p = r->data;
    put32(p, (uint32_t)(n - 4));
    p[4] = HLD_CAPTURE_REC_REQUEST;
    p[5] = (uint8_t)flags;
    p[6] = p[7] = 0;
    p += 8;
    put64(p, frame), p += 8;
    put64(p, hld_now_ns() - cap->ns0), p += 8;
    put32(p, client), p += 4;
    put32(p, (uint32_t)status), p += 4;
    put32(p, (uint32_t)(HL_FRAME_HDR + len));
    put16(p + 4, h->op);
    put16(p + 6, h->flags);
    put32(p + 8, h->id);
    if (len) memcpy(p + HL_FRAME_HDR, body, len);
    if (reply) {
        p = r->data + n;
        put32(p, 4 + 8);
        p[4] = h->op == HL_OP_MUSIC ? HLD_CAPTURE_REC_MREPLY : HLD_CAPTURE_REC_REPLY;
        p[5] = p[6] = p[7] = 0;
        put64(p + 8, voice);
    }
    enqueue(cap, r, !(flags & (HLD_CAPTURE_REQ_OPEN | HLD_CAPTURE_REQ_STATE)));
}

/* A record of n bytes (its len field, kind and flags set, the 2 bytes
 * after zero), or NULL (counted dropped). */
static rec_t *small_rec(hld_capture_t *cap, size_t n, uint8_t kind, uint8_t flags) {
    rec_t *r = malloc(sizeof *r + n);
    if (!r) {
        cap->dropped++;
        return NULL;
    }
    r->next = NULL;
    r->len = n;
    put32(r->data, (uint32_t)(n - 4));
    r->data[4] = kind;
    r->data[5] = flags;
    r->data[6] = r->data[7] = 0;
    return r;
}

void hld_capture_close(hld_capture_t *cap, uint64_t frame, uint32_t flags, uint32_t client) {
    if (!cap) return;
    /* len u32, kind u8, flags u8, pad 2, frame u64, client u32 */
    rec_t *r = small_rec(cap, 4 + 4 + 8 + 4, HLD_CAPTURE_REC_CLOSE, (uint8_t)flags);
    if (!r) return;
    put64(r->data + 8, frame);
    put32(r->data + 16, client);
    enqueue(cap, r, 0);
}

void hld_capture_process(hld_capture_t *cap, uint32_t client, uint32_t process) {
    if (!cap) return;
    /* len u32, kind u8, pad 3, client u32, process u32 */
    rec_t *r = small_rec(cap, 4 + 4 + 4 + 4, HLD_CAPTURE_REC_PROCESS, 0);
    if (!r) return;
    put32(r->data + 8, client);
    put32(r->data + 12, process);
    enqueue(cap, r, 0);
}

void hld_capture_set_end(hld_capture_t *cap, uint64_t frame) {
    if (cap) cap->end_frame = frame;
}

uint64_t hld_capture_dropped(const hld_capture_t *cap) {
    return cap ? cap->dropped : 0;
}

uint64_t hld_capture_records(const hld_capture_t *cap) {
    return cap ? cap->records : 0;
}

void hld_capture_end(hld_capture_t *cap) {
    if (!cap) return;
    pthread_mutex_lock(&cap->mu);
    cap->final_records = cap->records;
    cap->final_dropped = cap->dropped;
    cap->stop = 1;
    pthread_cond_signal(&cap->cv);
    pthread_mutex_unlock(&cap->mu);
}

void hld_capture_join(hld_capture_t *cap) {
    if (!cap) return;
    pthread_join(cap->thread, NULL);
    pthread_mutex_destroy(&cap->mu);
    pthread_cond_destroy(&cap->cv);
    free(cap);
}

void hld_capture_stop(hld_capture_t *cap) {
    hld_capture_end(cap);
    hld_capture_join(cap);
}
