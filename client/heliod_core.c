/*
 * heliod_core.c - libheliod's transport core: the C client of the heliod
 * daemon over its Unix socket.
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
 *   The core is this file (framing, the output batch, input and the deferred
 *   queue, request/reply matching, async dispatch, ping) and heliod_conn.c
 *   (connect, handshake, close); they share heliod_core.h. Every public call
 *   lives above it, on the request helpers heliod_int.h declares:
 *   heliod_sounds.c (load, upload, unload, sounds), heliod_voice.c (play,
 *   stop, set, listener, lists, subscriptions), heliod_vm.c (cues,
 *   categories, emitters, group pause), heliod_graph.c (buses, effects,
 *   ducking, reverb zones), heliod_assets.c (banks, world zones),
 *   heliod_time.c (clock, scheduling, bundles), heliod_events.c (the event
 *   callback); public structs go to and from the wire through heliod_conv.h.
 *   The core calls none of them: decoded events go up through the sink that
 *   heliod_events.c registers (hlc_set_event_sink).
 */
#include "heliod_core.h"
#include "heliod.h"
#include "heliod_int.h"

#include "hl_proto.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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

/* Marks the connection dead; later calls fail with the same code. */
int hlc_conn_fail(heliod_t *h, int err) {
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
        return hlc_conn_fail(h, HELIOD_ECLOSED);
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

deferred_t *hlc_dq_pop(heliod_t *h) {
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
    if (rc < 0) return hlc_conn_fail(h, rc == HELIOD_ENOMEM ? HELIOD_ENOMEM : HELIOD_EPROTO);
    return 0;
}

/* Reads what is available now. 0 = would block, 1 = got bytes, or error. */
int hlc_in_read(heliod_t *h) {
    int got = 0;
    for (;;) {
        if (h->in_len == CLIENT_IN_CAP) {
            int rc = in_parse(h);
            if (rc < 0) return rc;
            if (h->in_len == CLIENT_IN_CAP) return hlc_conn_fail(h, HELIOD_EPROTO);
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
        return hlc_conn_fail(h, HELIOD_ECLOSED);
    }
    int rc = in_parse(h);
    return rc < 0 ? rc : got;
}

/*
 * Runs the socket until h->wait_done (when wait_id != 0) or the batch is fully
 * written (when wait_id == 0), or the deadline passes. Blocking; main thread of
 * the caller.
 */
int hlc_pump(heliod_t *h, int timeout_ms) {
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
        if (n < 0) return hlc_conn_fail(h, HELIOD_EIO);
        if (n == 0) continue; /* the deadline check above ends the loop */
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            rc = hlc_in_read(h);
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
    int rc = hlc_pump(h, h->timeout_ms);
    int done = h->wait_done;
    h->wait_id = 0;
    h->wait_done = 0;
    if (!done) return hlc_set_error(h, rc < 0 ? rc : HELIOD_ETIMEDOUT, NULL);
    hl_rbuf_init(r, h->reply, h->reply_len);
    hl_reply_head_t head;
    hl_get_reply_head(r, &head);
    if (r->err || head.req_op != op) return hlc_conn_fail(h, HELIOD_EPROTO);
    if (head.status < 0) {
        char msg[HL_MAX_MSG + 1];
        hl_get_str(r, msg, sizeof msg);
        if (hl_rbuf_finish(r) < 0) return hlc_conn_fail(h, HELIOD_EPROTO);
        return hlc_set_error(h, head.status, msg[0] ? msg : NULL);
    }
    return 0;
}

/* Checks that a reply body was consumed exactly. */
int hlc_reply_done(heliod_t *h, const hl_rbuf_t *r) {
    if (hl_rbuf_finish(r) < 0) return hlc_conn_fail(h, HELIOD_EPROTO);
    return 0;
}

/* A request with an empty reply body. */
int hlc_simple_call(heliod_t *h, uint32_t id, uint16_t op) {
    hl_rbuf_t r;
    int rc = hlc_wait_reply(h, id, op, &r);
    if (rc < 0) return rc;
    return hlc_reply_done(h, &r);
}

void hlc_set_event_sink(heliod_t *h, hlc_event_sink_fn sink, heliod_event_fn fn, void *user) {
    h->ev_sink = sink;
    h->ev_fn = fn;
    h->ev_user = user;
}

uint64_t hlc_at_frame(const heliod_t *h) {
    return h->at_frame;
}

void hlc_set_at_frame(heliod_t *h, uint64_t frame) {
    h->at_frame = frame;
}

uint64_t hlc_last_late(const heliod_t *h) {
    return h->last_late;
}

int hlc_in_bundle(const heliod_t *h) {
    return h->in_bundle;
}

void hlc_set_bundle(heliod_t *h, int open) {
    h->in_bundle = open;
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

/* Writes the whole output batch, waiting for the socket (blocking). 0 or error. */
int hlc_out_drain(heliod_t *h) {
    for (;;) {
        int rc = out_write(h);
        if (rc <= 0) return rc;
        struct pollfd p = {.fd = h->fd, .events = POLLOUT};
        int n = poll(&p, 1, h->timeout_ms > 0 ? h->timeout_ms : -1);
        if (n == 0) return hlc_set_error(h, HELIOD_ETIMEDOUT, NULL);
        if (n < 0 && errno != EINTR) return hlc_conn_fail(h, HELIOD_ECLOSED);
    }
}

/* Writes the start of the output batch with fd attached (SCM_RIGHTS), waiting
 * for the socket; the rest of the batch goes out as usual. The batch must
 * start with the frame the descriptor belongs to (hlc_out_drain first).
 * 0 or error; fd stays the caller's. */
int hlc_send_fd(heliod_t *h, int fd) {
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
    memcpy(CMSG_DATA(cm), &fd, sizeof(int));
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
        return hlc_conn_fail(h, HELIOD_ECLOSED);
    }
    if (h->out_off == h->out_len) h->out_off = h->out_len = 0;
    return 0;
}

int hlc_count_call(heliod_t *h, uint32_t id, uint16_t op, uint32_t *count) {
    hl_rbuf_t r;
    int rc = hlc_wait_reply(h, id, op, &r);
    if (rc < 0) return rc;
    hl_count_reply_t c;
    hl_get_count_reply(&r, &c);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (count) *count = c.count;
    return 0;
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
    if (r->err) return hlc_conn_fail(h, HELIOD_EPROTO);
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
            rc = hlc_pump(h, h->timeout_ms);
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
/* Hands one event to the event sink (heliod_events.c), dropped when there is
 * no callback; a NOREPLY request's ERROR goes to its raw callback first. */
static void deliver_event(heliod_t *h, const deferred_t *d) {
    hl_rbuf_t r;
    hl_rbuf_init(&r, d->body, d->len);
    hl_event_t e; /* ~3 KiB with a METER body; on the stack, so a callback may call
                   * back into the library (reentrant) */
    hl_get_event(&r, &e);
    if (hl_rbuf_finish(&r) < 0) {
        hlc_conn_fail(h, HELIOD_EPROTO);
        return;
    }
    if (e.type == HL_EVENT_ERROR) {
        /* a NOREPLY request failed: forget any callback registered for it */
        pending_t p;
        if (pend_take(h, d->hdr.id, &p) && p.raw)
            p.raw(p.user, d->hdr.id, e.status, e.message, NULL, 0);
    }
    if (h->ev_sink && h->ev_fn) h->ev_sink(h, d->hdr.id, &e, h->ev_fn, h->ev_user);
}

/* Delivers the deferred queue; returns the number of frames handled. */
static int deliver_all(heliod_t *h) {
    int n = 0;
    deferred_t *d;
    while ((d = hlc_dq_pop(h))) {
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
        if (rc >= 0) rc = hlc_in_read(h);
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
        if (poll(&p, 1, wait) < 0 && errno != EINTR) return hlc_conn_fail(h, HELIOD_EIO);
        rc = hlc_in_read(h);
        deliver_all(h);
        if (rc > 0) rc = 0;
    }
    return rc;
}
