/*
 * heliod.c - libheliod: the C client of the heliod daemon over its Unix socket.
 *
 * DESIGN
 *   One non-blocking SOCK_STREAM socket per connection. Requests are encoded
 *   with the proto/ codec straight into an output batch; blocking calls append
 *   their frame behind any batched async requests (so ordering is kept), then
 *   poll() until the whole batch is written and the reply with their request id
 *   has arrived, or the timeout passes. Frames that arrive meanwhile (events,
 *   replies to async requests) are copied to a deferred queue and delivered by
 *   the next heliod_dispatch()/heliod_sync(), never from inside another call,
 *   so callbacks may themselves make blocking calls.
 *
 *     app ──*_async──▶ out batch ──send(MSG_NOSIGNAL)──▶ daemon
 *     app ◀─callbacks── deferred queue ◀──recv── in buffer ◀── daemon
 *
 *   Every read and write handles partial transfers and EINTR; a closed peer
 *   turns into HELIOD_ECLOSED (never SIGPIPE); an unparseable frame from the
 *   daemon turns into HELIOD_EPROTO and closes the connection.
 *
 *   Not thread-safe: one connection per thread, or serialise calls.
 *
 *   This file is the transport (connection, handshake, batches, replies,
 *   async dispatch, events), sounds and uploads, and time. The other calls
 *   live beside it on the request helpers it exports through heliod_int.h:
 *   heliod_voice.c (play, stop, set, listener, lists, subscriptions),
 *   heliod_vm.c (cues, categories, emitters, group pause), heliod_graph.c
 *   (buses, effects, ducking, reverb zones), heliod_assets.c (banks, world
 *   zones); public structs go to and from the wire through heliod_conv.h.
 */
#include "heliod.h"
#include "heliod_conv.h"
#include "heliod_int.h"

#include "hl_paths.h"
#include "hl_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CLIENT_DEFAULT_TIMEOUT_MS 5000          /* blocking calls give up after this */
#define CLIENT_AUTOFLUSH_BYTES    (64 * 1024)   /* async batch is flushed past this */
#define CLIENT_OUT_HARD_BYTES     (1024 * 1024) /* past this an async append waits for the socket */
#define CLIENT_IN_CAP             (2 * HL_MAX_FRAME) /* one full frame plus the start of the next */
#define CLIENT_NS_PER_MS          1000000LL

typedef struct deferred {
    struct deferred *next;
    hl_frame_hdr_t hdr;
    uint64_t late; /* a scheduled request's reply: its late-frames trailer */
    size_t len;    /* body length */
    uint8_t body[];
} deferred_t;

typedef struct {
    uint32_t id;
    uint16_t op;
    heliod_reply_fn fn;
    heliod_raw_fn raw;
    void *user;
} pending_t;

struct heliod {
    int fd;
    int closed; /* ECLOSED or EPROTO once the connection is unusable, else 0 */
    int timeout_ms;
    uint32_t next_id;
    heliod_server_info_t info;
    uint16_t proto_minor; /* the protocol 1.minor the handshake agreed */
    char last_error[HL_MAX_MSG + 1];

    uint8_t *out; /* batch: bytes [out_off, out_len) not yet written */
    size_t out_len, out_off, out_cap;

    uint8_t *in; /* received bytes not yet split into frames */
    size_t in_len;

    deferred_t *dq_head, *dq_tail;

    pending_t *pend; /* async requests waiting for a reply callback */
    size_t npend, pend_cap;

    heliod_event_fn ev_fn;
    void *ev_user;

    /* the reply a blocking call waits for */
    uint32_t wait_id;
    int wait_done;
    uint8_t *reply; /* body copy, HL_MAX_FRAME bytes */
    size_t reply_len;

    /* time (heliod_time.c) */
    uint64_t at_frame;  /* schedulable requests carry HL_FLAG_AT and this frame; 0 = none */
    uint64_t last_late; /* the late-frames trailer of the last scheduled reply taken */
    int in_bundle;      /* between heliod_bundle_begin and _end: blocking calls refused */
    int req_async;      /* the request being begun is an async one */
};

/* ---- small helpers ------------------------------------------------------ */

const char *heliod_strerror(int err) {
    return hl_strerror(err);
}

int hlc_set_error(heliod_t *h, int err, const char *msg) {
    snprintf(h->last_error, sizeof h->last_error, "%s", msg ? msg : hl_strerror(err));
    return err;
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / CLIENT_NS_PER_MS;
}

int heliod_default_socket(char *buf, size_t cap) {
    /* the daemon computes its default with the same function */
    return hl_default_socket_path(buf, cap, NULL) == 0 ? 0 : HELIOD_EINVAL;
}

/* Why the last heliod_connect() of this thread failed: heliod_last_error(NULL). */
static _Thread_local char g_connect_error[HL_MAX_MSG + 1];

static int connect_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int connect_error(int err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_connect_error, sizeof g_connect_error, fmt, ap);
    va_end(ap);
    return err;
}

/* An absolute form of path into *out (malloc'd; NULL when path already is
 * absolute): the daemon has its own working directory and refuses relative
 * paths. realpath() when the file exists, else the working directory joined
 * with path (the daemon then reports the missing file by its full name). */
static int absolute_path(heliod_t *h, const char *path, char **out) {
    *out = NULL;
    if (path[0] == '/') return 0;
    char *p = realpath(path, NULL);
    if (!p) {
        char *cwd = getcwd(NULL, 0);
        if (!cwd) return hlc_set_error(h, HELIOD_EINVAL, "relative path and no working directory");
        size_t n = strlen(cwd) + 1 + strlen(path) + 1;
        p = malloc(n);
        if (p) snprintf(p, n, "%s/%s", cwd, path);
        free(cwd);
        if (!p) return hlc_set_error(h, HELIOD_ENOMEM, NULL);
    }
    if (strlen(p) > HL_MAX_PATH) {
        free(p);
        return hlc_set_error(h, HELIOD_EINVAL, "path too long once made absolute");
    }
    *out = p;
    return 0;
}

/* Marks the connection dead; later calls fail with the same code. */
static int conn_fail(heliod_t *h, int err) {
    if (!h->closed) h->closed = err;
    hlc_set_error(h, h->closed, NULL);
    return h->closed;
}

/* ---- output ------------------------------------------------------------- */

/* Ensures room for one more maximal frame in the batch. */
static int out_reserve(heliod_t *h) {
    if (h->out_off > 0 && h->out_off == h->out_len) {
        h->out_off = h->out_len = 0;
    }
    if (h->out_cap - h->out_len >= HL_MAX_FRAME) return 0;
    if (h->out_off > 0) {
        memmove(h->out, h->out + h->out_off, h->out_len - h->out_off);
        h->out_len -= h->out_off;
        h->out_off = 0;
        if (h->out_cap - h->out_len >= HL_MAX_FRAME) return 0;
    }
    size_t ncap = h->out_cap ? h->out_cap * 2 : 2 * HL_MAX_FRAME;
    while (ncap - h->out_len < HL_MAX_FRAME)
        ncap *= 2;
    uint8_t *p = realloc(h->out, ncap);
    if (!p) return HELIOD_ENOMEM;
    h->out = p;
    h->out_cap = ncap;
    return 0;
}

size_t heliod_pending(const heliod_t *h) {
    return h ? h->out_len - h->out_off : 0;
}

int heliod_fd(const heliod_t *h) {
    return h ? h->fd : -1;
}

/* Writes what the socket takes now. 0 all written, 1 some left, or error. */
static int out_write(heliod_t *h) {
    while (h->out_off < h->out_len) {
        ssize_t n = send(h->fd, h->out + h->out_off, h->out_len - h->out_off, MSG_NOSIGNAL);
        if (n > 0) {
            h->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 1;
        return conn_fail(h, HELIOD_ECLOSED);
    }
    h->out_off = h->out_len = 0;
    return 0;
}

int heliod_flush(heliod_t *h) {
    if (!h) return HELIOD_EINVAL;
    if (h->closed) return h->closed;
    return out_write(h);
}

/* ---- input -------------------------------------------------------------- */

static void dq_push(heliod_t *h, deferred_t *d) {
    d->next = NULL;
    if (h->dq_tail)
        h->dq_tail->next = d;
    else
        h->dq_head = d;
    h->dq_tail = d;
}

static deferred_t *dq_pop(heliod_t *h) {
    deferred_t *d = h->dq_head;
    if (d) {
        h->dq_head = d->next;
        if (!h->dq_head) h->dq_tail = NULL;
    }
    return d;
}

/* Takes one complete frame: the awaited reply is copied to h->reply, anything
 * else goes to the deferred queue. */
static int take_frame(heliod_t *h, const hl_frame_hdr_t *hdr, const uint8_t *body, size_t len) {
    if (hdr->op != HL_OP_REPLY && hdr->op != HL_OP_EVENT) return HELIOD_EPROTO;
    uint64_t late = 0;
    if (hdr->op == HL_OP_REPLY && (hdr->flags & HL_FLAG_AT)) {
        /* the reply to a scheduled request ends with how late it was */
        if (len < 8) return HELIOD_EPROTO;
        len -= 8;
        for (int i = 7; i >= 0; i--)
            late = late << 8 | body[len + (size_t)i];
        h->last_late = late;
    }
    if (hdr->op == HL_OP_REPLY && h->wait_id != 0 && hdr->id == h->wait_id && !h->wait_done) {
        memcpy(h->reply, body, len);
        h->reply_len = len;
        h->wait_done = 1;
        return 0;
    }
    deferred_t *d = malloc(sizeof *d + len);
    if (!d) return HELIOD_ENOMEM;
    d->hdr = *hdr;
    d->late = late;
    d->len = len;
    if (len) memcpy(d->body, body, len);
    dq_push(h, d);
    return 0;
}

/* Splits every complete frame out of the input buffer. */
static int in_parse(heliod_t *h) {
    size_t off = 0;
    int rc = 0;
    while (h->in_len - off >= HL_FRAME_HDR) {
        hl_frame_hdr_t hdr;
        rc = hl_frame_peek(h->in + off, h->in_len - off, &hdr);
        if (rc < 0) break;
        if (hdr.size > h->in_len - off) {
            rc = 0;
            break;
        }
        rc = take_frame(h, &hdr, h->in + off + HL_FRAME_HDR, hdr.size - HL_FRAME_HDR);
        if (rc < 0) break;
        off += hdr.size;
    }
    if (off) {
        memmove(h->in, h->in + off, h->in_len - off);
        h->in_len -= off;
    }
    if (rc < 0) return conn_fail(h, rc == HELIOD_ENOMEM ? HELIOD_ENOMEM : HELIOD_EPROTO);
    return 0;
}

/* Reads what is available now. 0 = would block, 1 = got bytes, or error. */
static int in_read(heliod_t *h) {
    int got = 0;
    for (;;) {
        if (h->in_len == CLIENT_IN_CAP) {
            int rc = in_parse(h);
            if (rc < 0) return rc;
            if (h->in_len == CLIENT_IN_CAP) return conn_fail(h, HELIOD_EPROTO);
        }
        ssize_t n = recv(h->fd, h->in + h->in_len, CLIENT_IN_CAP - h->in_len, 0);
        if (n > 0) {
            h->in_len += (size_t)n;
            got = 1;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        /* EOF or hard error: keep what was complete, then report closed */
        in_parse(h);
        return conn_fail(h, HELIOD_ECLOSED);
    }
    int rc = in_parse(h);
    return rc < 0 ? rc : got;
}

/*
 * Runs the socket until h->wait_done (when wait_id != 0) or the batch is fully
 * written (when wait_id == 0), or the deadline passes. Blocking; main thread of
 * the caller.
 */
static int pump(heliod_t *h, int timeout_ms) {
    int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : -1;
    for (;;) {
        if (h->closed && !(h->wait_id && h->wait_done)) return h->closed;
        int rc = out_write(h);
        if (rc < 0) return rc;
        if (h->wait_id ? h->wait_done : h->out_off == h->out_len) return 0;
        struct pollfd p = {.fd = h->fd, .events = POLLIN};
        if (h->out_off < h->out_len) p.events |= POLLOUT;
        int wait = -1;
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            if (left <= 0) return hlc_set_error(h, HELIOD_ETIMEDOUT, NULL);
            wait = (int)left;
        }
        int n = poll(&p, 1, wait);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return conn_fail(h, HELIOD_EIO);
        if (n == 0) continue; /* the deadline check above ends the loop */
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            rc = in_read(h);
            if (rc < 0 && !(h->wait_id && h->wait_done)) return rc;
        }
    }
}

/* ---- request plumbing --------------------------------------------------- */

static uint32_t new_id(heliod_t *h) {
    uint32_t id = h->next_id++;
    if (h->next_id == 0 || h->next_id > INT32_MAX) h->next_id = 1;
    return id;
}

/* Opens a frame at the end of the batch. */
int hlc_req_begin(heliod_t *h, hl_wbuf_t *w, uint16_t op, uint16_t flags, uint32_t *id) {
    if (h->closed) return hlc_set_error(h, h->closed, NULL);
    /* inside a bundle a blocking call would wait for a reply that only comes
     * at its end: refused before anything is sent */
    if (h->in_bundle && !h->req_async && op != HL_OP_BUNDLE_END)
        return hlc_set_error(h, HELIOD_EINVAL,
                             "blocking call inside a bundle: use the async calls");
    int rc = out_reserve(h);
    if (rc < 0) return hlc_set_error(h, rc, NULL);
    hl_wbuf_init(w, h->out, h->out_cap);
    w->len = h->out_len;
    *id = new_id(h);
    if (h->at_frame && hl_op_schedulable(op)) { /* heliod_at_frame: the frame first */
        hl_frame_begin(w, op, flags | HL_FLAG_AT, *id);
        hl_put_u64(w, h->at_frame);
        return 0;
    }
    hl_frame_begin(w, op, flags, *id);
    return 0;
}

/* Closes the frame and commits it to the batch (or drops it on error). */
int hlc_req_end(heliod_t *h, hl_wbuf_t *w) {
    int rc = hl_frame_end(w);
    if (rc < 0) return hlc_set_error(h, rc, "request too large");
    h->out_len = w->len;
    return 0;
}

/*
 * Waits for the reply to request `id` and checks its head: returns 0 with an
 * rbuf positioned on the op-specific body, or the server's error code (message
 * in last_error), or a transport error.
 */
int hlc_wait_reply(heliod_t *h, uint32_t id, uint16_t op, hl_rbuf_t *r) {
    if (h->in_bundle && op != HL_OP_BUNDLE_END) /* its reply only comes at the bundle's end */
        return hlc_set_error(h, HELIOD_EINVAL,
                             "blocking call inside a bundle: use the async calls");
    h->wait_id = id;
    h->wait_done = 0;
    int rc = pump(h, h->timeout_ms);
    int done = h->wait_done;
    h->wait_id = 0;
    h->wait_done = 0;
    if (!done) return hlc_set_error(h, rc < 0 ? rc : HELIOD_ETIMEDOUT, NULL);
    hl_rbuf_init(r, h->reply, h->reply_len);
    hl_reply_head_t head;
    hl_get_reply_head(r, &head);
    if (r->err || head.req_op != op) return conn_fail(h, HELIOD_EPROTO);
    if (head.status < 0) {
        char msg[HL_MAX_MSG + 1];
        hl_get_str(r, msg, sizeof msg);
        if (hl_rbuf_finish(r) < 0) return conn_fail(h, HELIOD_EPROTO);
        return hlc_set_error(h, head.status, msg[0] ? msg : NULL);
    }
    return 0;
}

/* Checks that a reply body was consumed exactly. */
int hlc_reply_done(heliod_t *h, const hl_rbuf_t *r) {
    if (hl_rbuf_finish(r) < 0) return conn_fail(h, HELIOD_EPROTO);
    return 0;
}

/* A request with an empty reply body. */
int hlc_simple_call(heliod_t *h, uint32_t id, uint16_t op) {
    hl_rbuf_t r;
    int rc = hlc_wait_reply(h, id, op, &r);
    if (rc < 0) return rc;
    return hlc_reply_done(h, &r);
}

/* ---- connection --------------------------------------------------------- */

static void free_all(heliod_t *h) {
    deferred_t *d;
    while ((d = dq_pop(h)))
        free(d);
    free(h->out);
    free(h->in);
    free(h->reply);
    free(h->pend);
    free(h);
}

/* The handshake failed on the transport (the daemon closed): it may have said
 * why first, in an error reply with request id 0 (server full, handshake
 * timeout, peer refused), possibly before it read our HELLO. Reads what is
 * left and returns that reply's code (message in last_error), else err. */
static int handshake_refusal(heliod_t *h, int err) {
    h->wait_id = 0;
    in_read(h); /* the connection is already failed: only collects frames */
    for (deferred_t *d = h->dq_head; d; d = d->next) {
        if (d->hdr.op != HL_OP_REPLY || d->hdr.id != 0) continue;
        hl_rbuf_t r;
        hl_rbuf_init(&r, d->body, d->len);
        hl_reply_head_t head;
        hl_get_reply_head(&r, &head);
        char msg[HL_MAX_MSG + 1];
        hl_get_str(&r, msg, sizeof msg);
        if (hl_rbuf_finish(&r) < 0 || head.status >= 0) continue;
        return hlc_set_error(h, head.status, msg[0] ? msg : NULL);
    }
    return err;
}

_Static_assert(HELIOD_LOAD_STREAM == HL_LOAD_STREAM && HELIOD_LOAD_SHARED == HL_LOAD_SHARED,
               "load flags are the protocol's");
_Static_assert(HELIOD_CONNECT_CONTROL == HL_HELLO_CONTROL, "connect flags are HELLO's");
_Static_assert(HELIOD_SUB_BANK == HL_SUB_BANK && HELIOD_SUB_ZONES == HL_SUB_ZONES &&
                   HELIOD_EVENT_BANK == HL_EVENT_BANK &&
                   HELIOD_EVENT_ZONE_TICK == HL_EVENT_ZONE_TICK && HELIOD_LOAD_PIN == HL_LOAD_PIN &&
                   HELIOD_EVENT_RELOAD == HL_EVENT_RELOAD,
               "asset subscriptions, events and flags are the wire's");
_Static_assert(HELIOD_SUB_METER == HL_SUB_METER && HELIOD_EVENT_METER == HL_EVENT_METER &&
                   HELIOD_METER_MAX_BUSES == HL_METER_MAX_BUSES,
               "meter subscription and event are the wire's");

int heliod_connect(heliod_t **out, const char *path, const char *client_name) {
    return heliod_connect_flags(out, path, client_name, 0);
}

int heliod_connect_flags(heliod_t **out, const char *path, const char *client_name,
                         uint32_t flags) {
    char def[sizeof(((struct sockaddr_un *)0)->sun_path) + 64];
    struct sockaddr_un sa;
    *out = NULL;
    g_connect_error[0] = '\0';
    if (!path) {
        if (heliod_default_socket(def, sizeof def) < 0)
            return connect_error(HELIOD_EINVAL, "default socket path too long");
        path = def;
    }
    if (strlen(path) >= sizeof sa.sun_path)
        return connect_error(HELIOD_EINVAL, "socket path too long: %s", path);
    if (!client_name) client_name = "libheliod";
    if (!hl_name_valid(client_name)) return connect_error(HELIOD_ENAME, "invalid client name");
    if (flags & ~(uint32_t)HELIOD_CONNECT_CONTROL)
        return connect_error(HELIOD_EINVAL, "unknown connect flags");

    heliod_t *h = calloc(1, sizeof *h);
    if (!h) return connect_error(HELIOD_ENOMEM, "out of memory");
    h->fd = -1;
    h->timeout_ms = CLIENT_DEFAULT_TIMEOUT_MS;
    h->next_id = 1;
    h->in = malloc(CLIENT_IN_CAP);
    h->reply = malloc(HL_MAX_FRAME);
    if (!h->in || !h->reply) {
        free_all(h);
        return connect_error(HELIOD_ENOMEM, "out of memory");
    }
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    h->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (h->fd < 0) {
        free_all(h);
        return connect_error(HELIOD_ECONNECT, "socket: %s", strerror(errno));
    }
    int rc;
    do {
        rc = connect(h->fd, (struct sockaddr *)&sa, sizeof sa);
    } while (rc < 0 && errno == EINTR);
    if (rc < 0 || fcntl(h->fd, F_SETFL, fcntl(h->fd, F_GETFL) | O_NONBLOCK) < 0) {
        int e = errno;
        close(h->fd);
        free_all(h);
        return connect_error(HELIOD_ECONNECT, "cannot connect to %s: %s", path, strerror(e));
    }

    hl_wbuf_t w;
    uint32_t id;
    hl_hello_t hello = {.version = HL_PROTO_VERSION, .flags = flags, .minor = HL_PROTO_MINOR};
    snprintf(hello.client_name, sizeof hello.client_name, "%s", client_name);
    hlc_req_begin(h, &w, HL_OP_HELLO, 0, &id);
    hl_put_hello(&w, &hello);
    rc = hlc_req_end(h, &w);
    hl_rbuf_t r;
    if (rc == 0) rc = hlc_wait_reply(h, id, HL_OP_HELLO, &r);
    if (rc == HELIOD_ECLOSED || rc == HELIOD_EPROTO || (rc < 0 && h->closed))
        rc = handshake_refusal(h, rc);
    if (rc == 0) {
        hl_hello_reply_t hr;
        hl_get_hello_reply(&r, &hr);
        rc = hlc_reply_done(h, &r);
        if (rc == 0) {
            h->info.protocol_version = hr.version;
            /* the reply's minor is the daemon's (absent: a 1.0 daemon): we speak the lower */
            h->proto_minor = hr.minor < HL_PROTO_MINOR ? hr.minor : HL_PROTO_MINOR;
            h->info.rate = hr.rate;
            h->info.period = hr.period;
            h->info.voices = hr.voices;
            h->info.client_id = hr.client_id;
            h->info.flags = hr.flags;
            snprintf(h->info.server_version, sizeof h->info.server_version, "%s",
                     hr.server_version);
        }
    }
    if (rc < 0) {
        snprintf(g_connect_error, sizeof g_connect_error, "%s", h->last_error);
        close(h->fd);
        free_all(h);
        return rc;
    }
    *out = h;
    return 0;
}

void heliod_close(heliod_t *h) {
    if (!h) return;
    if (!h->closed && h->out_off < h->out_len) {
        h->wait_id = 0;
        pump(h, h->timeout_ms);
    }
    if (h->fd >= 0) close(h->fd);
    free_all(h);
}

const heliod_server_info_t *heliod_server_info(const heliod_t *h) {
    return &h->info;
}

unsigned heliod_protocol_minor(const heliod_t *h) {
    return h->proto_minor;
}

const char *heliod_last_error(const heliod_t *h) {
    if (h) return h->last_error;
    return g_connect_error[0] ? g_connect_error : "no connection";
}

void heliod_set_timeout(heliod_t *h, int timeout_ms) {
    h->timeout_ms = timeout_ms;
}

void heliod_set_event_callback(heliod_t *h, heliod_event_fn fn, void *user) {
    h->ev_fn = fn;
    h->ev_user = user;
}

/* ---- blocking requests -------------------------------------------------- */

int heliod_ping(heliod_t *h, uint64_t *server_time_ns) {
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_PING, 0, &id);
    if (rc < 0 || (rc = hlc_req_end(h, &w)) < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_PING, &r)) < 0) return rc;
    uint64_t t = hl_get_u64(&r);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (server_time_ns) *server_time_ns = t;
    return 0;
}

int heliod_load(heliod_t *h, const char *name, const char *path, uint32_t flags,
                heliod_sound_info_t *info) {
    if (!hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid sound name");
    if (!path || !*path || strlen(path) > HL_MAX_PATH)
        return hlc_set_error(h, HELIOD_EINVAL, "path empty or too long");
    if (flags & ~(HELIOD_LOAD_STREAM | HELIOD_LOAD_SHARED | HELIOD_LOAD_PIN))
        return hlc_set_error(h, HELIOD_EINVAL, "unknown load flags");
    char *abs;
    int rc = absolute_path(h, path, &abs);
    if (rc < 0) return rc;
    hl_load_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "%s", name);
    snprintf(m.path, sizeof m.path, "%s", abs ? abs : path);
    free(abs);
    m.flags = flags;
    hl_wbuf_t w;
    uint32_t id;
    rc = hlc_req_begin(h, &w, HL_OP_LOAD, 0, &id);
    if (rc < 0) return rc;
    hl_put_load(&w, &m);
    if ((rc = hlc_req_end(h, &w)) < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_LOAD, &r)) < 0) return rc;
    hl_sound_info_t s;
    hl_get_sound_info(&r, &s);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (info) hlc_from_sound_info(&s, info);
    return 0;
}

/* Writes the whole output batch, waiting for the socket (blocking). 0 or error. */
static int out_drain(heliod_t *h) {
    for (;;) {
        int rc = out_write(h);
        if (rc <= 0) return rc;
        struct pollfd p = {.fd = h->fd, .events = POLLOUT};
        int n = poll(&p, 1, h->timeout_ms > 0 ? h->timeout_ms : -1);
        if (n == 0) return hlc_set_error(h, HELIOD_ETIMEDOUT, NULL);
        if (n < 0 && errno != EINTR) return conn_fail(h, HELIOD_ECLOSED);
    }
}

/* The bytes in a sealed memfd (NULL-free: -1 when memfd_create or a write
 * fails, so the caller falls back to chunks). */
static int upload_memfd(const void *data, size_t size) {
    int fd = memfd_create("heliod-upload", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    for (size_t off = 0; off < size;) {
        ssize_t n = write(fd, (const char *)data + off, size - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)n;
    }
    /* sealed: the daemon reads exactly what we wrote (best effort: it reads
     * with pread, so even an unsealed file cannot hurt it) */
    (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    return fd;
}

/* The upload as a descriptor (LOAD_FD). Returns 0 with *fallback = 1 when
 * fd passing is not available (memfd_create failed, HELIOD_UPLOAD=chunks,
 * or a daemon that does not know LOAD_FD: EBADOP); else the result. */
static int load_fd(heliod_t *h, const char *name, const void *data, size_t size, uint32_t flags,
                   heliod_sound_info_t *info, int *fallback) {
    *fallback = 1;
    const char *how = getenv("HELIOD_UPLOAD");
    if (how && strcmp(how, "chunks") == 0) return 0;
    int mfd = upload_memfd(data, size);
    if (mfd < 0) return 0;
    *fallback = 0;
    int rc = out_drain(h); /* the descriptor goes with the frame's first byte: send it alone */
    if (rc < 0) {
        close(mfd);
        return rc;
    }
    hl_load_fd_t m = {.flags = flags, .size = size};
    snprintf(m.name, sizeof m.name, "%s", name);
    hl_wbuf_t w;
    uint32_t id;
    if ((rc = hlc_req_begin(h, &w, HL_OP_LOAD_FD, 0, &id)) < 0) {
        close(mfd);
        return rc;
    }
    hl_put_load_fd(&w, &m);
    if ((rc = hlc_req_end(h, &w)) < 0) {
        close(mfd);
        return rc;
    }
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {.iov_base = h->out + h->out_off, .iov_len = h->out_len - h->out_off};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &mfd, sizeof(int));
    for (;;) {
        ssize_t n = sendmsg(h->fd, &msg, MSG_NOSIGNAL);
        if (n > 0) {
            h->out_off += (size_t)n; /* the rest (if any) goes out as usual */
            break;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = h->fd, .events = POLLOUT};
            int pn = poll(&p, 1, h->timeout_ms > 0 ? h->timeout_ms : -1);
            if (pn > 0 || (pn < 0 && errno == EINTR)) continue;
        }
        close(mfd);
        return conn_fail(h, HELIOD_ECLOSED);
    }
    close(mfd); /* the daemon has its own now */
    if (h->out_off == h->out_len) h->out_off = h->out_len = 0;
    hl_rbuf_t r;
    rc = hlc_wait_reply(h, id, HL_OP_LOAD_FD, &r);
    if (rc == HELIOD_EBADOP) { /* an older daemon: chunks */
        *fallback = 1;
        return 0;
    }
    if (rc < 0) return rc;
    hl_sound_info_t s;
    hl_get_sound_info(&r, &s);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (info) hlc_from_sound_info(&s, info);
    return 0;
}

int heliod_load_memory(heliod_t *h, const char *name, const void *data, size_t size, uint32_t flags,
                       heliod_sound_info_t *info) {
    if (!hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid sound name");
    if (!data || size == 0 || size > HL_MAX_UPLOAD)
        return hlc_set_error(h, HELIOD_EINVAL, "upload: 1 byte to 256 MiB of an encoded file");
    if (flags & ~(HELIOD_LOAD_SHARED | HELIOD_LOAD_PIN))
        return hlc_set_error(h, HELIOD_EINVAL, "upload: shared and pin are the only flags");
    if (!h->in_bundle) {
        int fallback = 0;
        int frc = load_fd(h, name, data, size, flags, info, &fallback);
        if (!fallback) return frc;
    }
    hl_load_data_t m = {.flags = flags, .total = size};
    snprintf(m.name, sizeof m.name, "%s", name);
    int rc = 0;
    for (uint64_t off = 0; off < size; off += m.len) {
        m.offset = off;
        m.len = (uint32_t)(size - off < HL_MAX_CHUNK ? size - off : HL_MAX_CHUNK);
        m.data = (const uint8_t *)data + off;
        hl_wbuf_t w;
        uint32_t id;
        if ((rc = hlc_req_begin(h, &w, HL_OP_LOAD_DATA, 0, &id)) < 0) return rc;
        hl_put_load_data(&w, &m);
        if ((rc = hlc_req_end(h, &w)) < 0) return rc;
        hl_rbuf_t r;
        if ((rc = hlc_wait_reply(h, id, HL_OP_LOAD_DATA, &r)) < 0) return rc;
        if (off + m.len < size) { /* a chunk: empty reply */
            if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
            continue;
        }
        hl_sound_info_t s; /* the last: the sound, decoded */
        hl_get_sound_info(&r, &s);
        if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
        if (info) hlc_from_sound_info(&s, info);
    }
    return 0;
}

int heliod_unload(heliod_t *h, const char *name) {
    if (!hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid sound name");
    hl_name_t m;
    snprintf(m.name, sizeof m.name, "%s", name);
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_UNLOAD, 0, &id);
    if (rc < 0) return rc;
    hl_put_name(&w, &m);
    if ((rc = hlc_req_end(h, &w)) < 0) return rc;
    return hlc_simple_call(h, id, HL_OP_UNLOAD);
}

/* Sends a request with an empty body (or a STATS request) and reads the list
 * head of its reply. */
int hlc_list_call(heliod_t *h, uint16_t op, const hl_stats_req_t *sreq, hl_rbuf_t *r,
                  hl_list_head_t *head) {
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, op, 0, &id);
    if (rc < 0) return rc;
    if (sreq) hl_put_stats_req(&w, sreq);
    if ((rc = hlc_req_end(h, &w)) < 0) return rc;
    if ((rc = hlc_wait_reply(h, id, op, r)) < 0) return rc;
    hl_get_list_head(r, head);
    if (r->err) return conn_fail(h, HELIOD_EPROTO);
    return 0;
}

/* Result of a list call: 1 if anything was left out, else 0. */
int hlc_list_result(heliod_t *h, const hl_rbuf_t *r, const hl_list_head_t *head, size_t cap,
                    size_t *count) {
    int rc = hlc_reply_done(h, r);
    if (rc < 0) return rc;
    size_t n = head->count < cap ? head->count : cap;
    if (count) *count = n;
    return head->truncated || head->count > cap;
}

int heliod_sounds(heliod_t *h, heliod_sound_info_t *arr, size_t cap, size_t *count) {
    hl_rbuf_t r;
    hl_list_head_t head;
    int rc = hlc_list_call(h, HL_OP_SOUNDS, NULL, &r, &head);
    if (rc < 0) return rc;
    for (size_t i = 0; i < head.count && !r.err; i++) {
        hl_sound_info_t s;
        hl_get_sound_info(&r, &s);
        if (i < cap && !r.err) hlc_from_sound_info(&s, &arr[i]);
    }
    return hlc_list_result(h, &r, &head, cap, count);
}

/* ---- async requests and dispatch ---------------------------------------- */

static int pend_add(heliod_t *h, uint32_t id, uint16_t op, heliod_reply_fn fn, void *user) {
    if (h->npend == h->pend_cap) {
        size_t ncap = h->pend_cap ? h->pend_cap * 2 : 16;
        pending_t *p = realloc(h->pend, ncap * sizeof *p);
        if (!p) return HELIOD_ENOMEM;
        h->pend = p;
        h->pend_cap = ncap;
    }
    h->pend[h->npend++] = (pending_t){.id = id, .op = op, .fn = fn, .user = user};
    return 0;
}

/* Removes and returns the pending entry for id (0 if none). */
static int pend_take(heliod_t *h, uint32_t id, pending_t *out) {
    for (size_t i = 0; i < h->npend; i++) {
        if (h->pend[i].id == id) {
            *out = h->pend[i];
            memmove(&h->pend[i], &h->pend[i + 1], (h->npend - i - 1) * sizeof *h->pend);
            h->npend--;
            return 1;
        }
    }
    return 0;
}

/* After appending an async frame: keeps the batch moving. */
int hlc_async_commit(heliod_t *h, hl_wbuf_t *w, uint32_t id) {
    int rc = hlc_req_end(h, w);
    if (rc < 0) return rc;
    if (heliod_pending(h) > CLIENT_AUTOFLUSH_BYTES) {
        rc = out_write(h);
        if (rc < 0) return rc;
        if (heliod_pending(h) > CLIENT_OUT_HARD_BYTES) {
            uint32_t saved = h->wait_id;
            h->wait_id = 0;
            rc = pump(h, h->timeout_ms);
            h->wait_id = saved;
            if (rc < 0) return rc;
        }
    }
    return (int)id;
}

/* Begins an async frame: NOREPLY when no callback will take the answer. */
int hlc_async_begin(heliod_t *h, hl_wbuf_t *w, uint16_t op, heliod_reply_fn fn, void *user,
                    uint32_t *id) {
    h->req_async = 1;
    int rc = hlc_req_begin(h, w, op, fn ? 0 : HL_FLAG_NOREPLY, id);
    h->req_async = 0;
    if (rc < 0) return rc;
    if (fn && (rc = pend_add(h, *id, op, fn, user)) < 0) return hlc_set_error(h, rc, NULL);
    return 0;
}

int heliod_raw_async(heliod_t *h, uint16_t op, const void *body, size_t len, heliod_raw_fn fn,
                     void *user) {
    if (!h) return HELIOD_EINVAL;
    if (!hl_op_name(op) || op >= HL_OP_REPLY || op == HL_OP_HELLO)
        return hlc_set_error(h, HELIOD_EBADOP, NULL);
    if (len > HL_MAX_FRAME - HL_FRAME_HDR) return hlc_set_error(h, HELIOD_ETOOBIG, NULL);
    hl_wbuf_t w;
    uint32_t id;
    h->req_async = 1;
    int rc = hlc_req_begin(h, &w, op, fn ? 0 : HL_FLAG_NOREPLY, &id);
    h->req_async = 0;
    if (rc < 0) return rc;
    if (fn) {
        if ((rc = pend_add(h, id, op, NULL, user)) < 0) return hlc_set_error(h, rc, NULL);
        h->pend[h->npend - 1].raw = fn;
    }
    for (size_t i = 0; i < len; i++)
        hl_put_u8(&w, ((const uint8_t *)body)[i]);
    return hlc_async_commit(h, &w, id);
}

/* Delivers one reply to its async callback. */
static void deliver_reply(heliod_t *h, const deferred_t *d) {
    pending_t p;
    if (!pend_take(h, d->hdr.id, &p))
        return; /* a reply nobody waits for (a blocking call that timed out) */
    if (d->hdr.flags & HL_FLAG_AT) h->last_late = d->late; /* this reply's, in its callback */
    hl_rbuf_t r;
    hl_rbuf_init(&r, d->body, d->len);
    hl_reply_head_t head;
    hl_get_reply_head(&r, &head);
    char msg[HL_MAX_MSG + 1] = "";
    int status = (r.err || head.req_op != p.op) ? HELIOD_EPROTO : head.status;
    if (status < 0 && status != HELIOD_EPROTO) {
        hl_get_str(&r, msg, sizeof msg);
        if (hl_rbuf_finish(&r) < 0) status = HELIOD_EPROTO;
    }
    if (status < 0 && !msg[0]) snprintf(msg, sizeof msg, "%s", hl_strerror(status));
    if (p.raw) {
        if (status < 0)
            p.raw(p.user, d->hdr.id, status, msg, NULL, 0);
        else
            p.raw(p.user, d->hdr.id, 0, NULL, d->body + r.off, d->len - r.off);
        return;
    }
    heliod_reply_t rep = {.request_id = d->hdr.id, .status = status, .message = NULL};
    if (status < 0) {
        rep.message = msg;
    } else if (p.op == HL_OP_PLAY) {
        hl_play_reply_t pr;
        hl_get_play_reply(&r, &pr);
        if (hl_rbuf_finish(&r) < 0) {
            rep.status = HELIOD_EPROTO;
            rep.message = hl_strerror(HELIOD_EPROTO);
        } else {
            rep.voice = pr.voice;
            rep.stolen = pr.stolen;
        }
    }
    p.fn(p.user, &rep);
}

/* The public form of a METER event's levels. */
_Static_assert(HELIOD_SUB_PROFILE == HL_SUB_PROFILE && HELIOD_EVENT_PROFILE == HL_EVENT_PROFILE &&
                   HELIOD_PROFILE_HIST == HL_PROFILE_HIST &&
                   HELIOD_PROFILE_MAX_STREAMS == HL_PROFILE_MAX_STREAMS &&
                   HELIOD_PROFILE_MAX_BUSES == HL_PROFILE_MAX_BUSES,
               "profile subscription and event are the wire's");

/* Delivers one event to the event callback (dropped if there is none). */
static void deliver_event(heliod_t *h, const deferred_t *d) {
    hl_rbuf_t r;
    hl_rbuf_init(&r, d->body, d->len);
    hl_event_t e;         /* ~3 KiB each with a METER body; on the stack, so a callback may */
    heliod_meter_t meter; /* call back into the library (reentrant) */
    hl_get_event(&r, &e);
    if (hl_rbuf_finish(&r) < 0) {
        conn_fail(h, HELIOD_EPROTO);
        return;
    }
    if (e.type == HL_EVENT_ERROR) {
        /* a NOREPLY request failed: forget any callback registered for it */
        pending_t p;
        if (pend_take(h, d->hdr.id, &p) && p.raw)
            p.raw(p.user, d->hdr.id, e.status, e.message, NULL, 0);
    }
    if (!h->ev_fn) return;
    heliod_event_t ev = {
        .type = e.type,
        .request_id = e.type == HL_EVENT_ERROR ? d->hdr.id : 0,
        .status = e.status,
        .message = e.type == HL_EVENT_ERROR || e.type == HL_EVENT_DEVICE_LOST ||
                           e.type == HL_EVENT_DEVICE_BACK || e.type == HL_EVENT_RELOAD
                       ? e.message
                   : e.type == HL_EVENT_ZONE_TICK ? e.report
                                                  : NULL,
        .voice = e.voice,
        .reason = e.reason,
        .time_ns = e.time_ns,
        .sound = e.type == HL_EVENT_RELOAD ? e.sound : NULL,
        .frames = e.frames,
    };
    if (e.type == HL_EVENT_METER) {
        hlc_from_meter_event(&e.meter, &meter);
        ev.meter = &meter;
    }
    if (e.type == HL_EVENT_BANK) {
        heliod_bank_info_t *bank = malloc(sizeof *bank); /* ~4 KiB (a path): not on the stack */
        if (!bank) {
            conn_fail(h, HELIOD_ENOMEM);
            return;
        }
        hlc_from_bank_info(&e.bank, bank);
        ev.bank = bank;
        h->ev_fn(h->ev_user, &ev);
        free(bank);
        return;
    }
    if (e.type == HL_EVENT_PROFILE) {
        heliod_profile_t *prof = malloc(sizeof *prof); /* ~5 KiB: the stack holds two events */
        if (!prof) {
            conn_fail(h, HELIOD_ENOMEM);
            return;
        }
        hlc_from_profile_event(&e.profile, prof);
        ev.profile = prof;
        h->ev_fn(h->ev_user, &ev);
        free(prof);
        return;
    }
    h->ev_fn(h->ev_user, &ev);
}

/* Delivers the deferred queue; returns the number of frames handled. */
static int deliver_all(heliod_t *h) {
    int n = 0;
    deferred_t *d;
    while ((d = dq_pop(h))) {
        if (d->hdr.op == HL_OP_REPLY)
            deliver_reply(h, d);
        else
            deliver_event(h, d);
        free(d);
        n++;
    }
    return n;
}

int heliod_dispatch(heliod_t *h) {
    if (!h) return HELIOD_EINVAL;
    int rc = 0;
    if (!h->closed) {
        rc = out_write(h);
        if (rc >= 0) rc = in_read(h);
    }
    int n = deliver_all(h);
    if (h->closed) return h->closed;
    return rc < 0 ? rc : n;
}

int heliod_sync(heliod_t *h) {
    if (!h) return HELIOD_EINVAL;
    int rc = heliod_ping(h, NULL);
    deliver_all(h);
    /* the daemon answers some requests (LOAD) after later ones: wait for every
     * reply a callback still expects */
    int64_t deadline = h->timeout_ms > 0 ? now_ms() + h->timeout_ms : -1;
    while (rc == 0 && h->npend > 0) {
        int wait = -1;
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            if (left <= 0) return hlc_set_error(h, HELIOD_ETIMEDOUT, NULL);
            wait = (int)left;
        }
        struct pollfd p = {.fd = h->fd, .events = POLLIN};
        if (poll(&p, 1, wait) < 0 && errno != EINTR) return conn_fail(h, HELIOD_EIO);
        rc = in_read(h);
        deliver_all(h);
        if (rc > 0) rc = 0;
    }
    return rc;
}

/* ---- time: the clock, scheduled requests, bundles ------------------------- */

int heliod_clock(heliod_t *h, heliod_clock_t *out) {
    if (!h || !out) return HELIOD_EINVAL;
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_CLOCK, 0, &id);
    if (rc < 0 || (rc = hlc_req_end(h, &w)) < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_CLOCK, &r)) < 0) return rc;
    hl_clock_t k;
    hl_get_clock(&r, &k);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    out->frame = k.frame;
    out->time_ns = k.time_ns;
    out->rate = k.rate;
    out->period = k.period;
    out->output_latency_ns = k.output_latency_ns;
    return 0;
}

int heliod_voice_start_frame(heliod_t *h, heliod_voice_t voice, uint64_t *frame) {
    if (!h || !frame) return HELIOD_EINVAL;
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_CLOCK, 0, &id);
    if (rc < 0) return rc;
    hl_put_u64(&w, voice);
    if ((rc = hlc_req_end(h, &w)) < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_CLOCK, &r)) < 0) return rc;
    hl_clock_t k;
    hl_get_clock(&r, &k);
    uint64_t f = hl_get_u64(&r);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    *frame = f;
    return 0;
}

uint64_t heliod_clock_frame_at(const heliod_clock_t *c, uint64_t time_ns) {
    if (!c || !c->rate) return 0;
    if (time_ns <= c->time_ns) return c->frame;
    /* exact integer arithmetic: (dt * rate) / 1e9, dt split to avoid overflow */
    uint64_t dt = time_ns - c->time_ns, s = dt / 1000000000u, ns = dt % 1000000000u;
    return c->frame + s * c->rate + ns * c->rate / 1000000000u;
}

void heliod_at_frame(heliod_t *h, uint64_t frame) {
    if (h) h->at_frame = frame;
}

int heliod_at_ms(heliod_t *h, double ms, uint64_t *frame) {
    if (!h || !(ms >= 0.0 && ms <= 86400000.0)) return HELIOD_EINVAL;
    uint64_t saved = h->at_frame;
    h->at_frame = 0;
    heliod_clock_t c;
    int rc = heliod_clock(h, &c);
    h->at_frame = saved;
    if (rc < 0) return rc;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t now = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
    uint64_t f = heliod_clock_frame_at(&c, now) + (uint64_t)(ms * c.rate / 1000.0 + 0.5);
    h->at_frame = f ? f : 1;
    if (frame) *frame = h->at_frame;
    return 0;
}

uint64_t heliod_late_frames(const heliod_t *h) {
    return h ? h->last_late : 0;
}

int heliod_bundle_begin(heliod_t *h) {
    if (!h) return HELIOD_EINVAL;
    if (h->in_bundle) return hlc_set_error(h, HELIOD_EINVAL, "a bundle is already open");
    hl_wbuf_t w;
    uint32_t id;
    /* no reply: a failure arrives as an ERROR event (and BUNDLE_END says so) */
    int rc = hlc_req_begin(h, &w, HL_OP_BUNDLE_BEGIN, HL_FLAG_NOREPLY, &id);
    if (rc < 0 || (rc = hlc_req_end(h, &w)) < 0) return rc;
    h->in_bundle = 1;
    return 0;
}

int heliod_bundle_end(heliod_t *h, uint32_t *count) {
    if (!h) return HELIOD_EINVAL;
    if (!h->in_bundle) return hlc_set_error(h, HELIOD_EINVAL, "no bundle open");
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_BUNDLE_END, 0, &id);
    if (rc < 0 || (rc = hlc_req_end(h, &w)) < 0) {
        h->in_bundle = 0;
        return rc;
    }
    rc = hlc_count_call(h, id, HL_OP_BUNDLE_END, count);
    h->in_bundle = 0;
    return rc;
}
