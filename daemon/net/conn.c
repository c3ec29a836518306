/*
 * conn.c - client connections (see conn.h): accept, framing, batched writes,
 * backpressure, close.
 */
#include "conn.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hl_limits.h"
#include "clock.h"
#include "hld_limits.h"
#include "log.h"

typedef struct {
    uv_write_t req;
    uint8_t *data;
} write_req_t;

static void conn_process(hld_conn_t *c);
static void flush(hld_conn_t *c, int force);

/* Unsent output: queued in libuv plus the batch not yet handed to it. */
static size_t outq(hld_conn_t *c) {
    return uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe) + c->out_len;
}

size_t hld_conn_outq(hld_conn_t *c) {
    return outq(c);
}

size_t hld_conn_outq_total(hld_net_t *net) {
    size_t total = 0;
    for (hld_conn_t *c = net->conns; c; c = c->next)
        total += outq(c);
    for (hld_conn_t *c = net->lingering; c; c = c->next)
        total += outq(c);
    return total;
}

hld_conn_t *hld_conn_find(hld_net_t *net, uint32_t id) {
    for (hld_conn_t *c = net->conns; c; c = c->next)
        if (c->id == id) return c;
    return NULL;
}

void hld_conn_ref(hld_conn_t *c) {
    c->refs++;
}

/* Closes a descriptor the connection holds (none consumed it). */
static void rx_fd_drop(hld_conn_t *c) {
    if (c->rx_fd < 0) return;
    close(c->rx_fd);
    c->rx_fd = -1;
    c->net->n->fds_closed++;
}

int hld_conn_take_fd(hld_conn_t *c) {
    int fd = c->rx_fd;
    c->rx_fd = -1;
    return fd;
}

static void on_fd_pipe_closed(uv_handle_t *h) {
    free(h);
}

/* Takes every descriptor libuv queued on the pipe during the last read:
 * accepted into a scratch pipe handle (libuv's only public way out),
 * duplicated, and the handle closed (closing the original). 0, or -1 when
 * more than one is held now (the extra ones are closed). */
static int take_fds(hld_conn_t *c) {
    int excess = 0;
    while (uv_pipe_pending_count(&c->pipe) > 0) {
        uv_pipe_t *tmp = malloc(sizeof *tmp);
        int fd = -1;
        if (tmp && uv_pipe_init(c->net->loop, tmp, 0) == 0) {
            uv_os_fd_t ofd;
            if (uv_accept((uv_stream_t *)&c->pipe, (uv_stream_t *)tmp) == 0 &&
                uv_fileno((uv_handle_t *)tmp, &ofd) == 0)
                fd = fcntl(ofd, F_DUPFD_CLOEXEC, 3);
            uv_close((uv_handle_t *)tmp, on_fd_pipe_closed);
        } else {
            free(tmp);
            excess = 1; /* cannot take it out: the connection goes, and libuv closes it */
            break;
        }
        if (fd < 0) continue;
        c->net->n->fds_received++;
        if (c->rx_fd >= 0) {
            close(fd);
            c->net->n->fds_closed++;
            excess = 1;
        } else {
            c->rx_fd = fd;
        }
    }
    return excess ? -1 : 0;
}

/* A descriptor arrived that no LOAD_FD frame can take: EPROTO, close. */
static void fd_violation(hld_conn_t *c, const char *why) {
    rx_fd_drop(c);
    c->net->n->protocol_errors++;
    hld_debug("client %u: %s", c->id, why);
    hld_send_error(c, HL_OP_LOAD_FD, 0, 0, HELIOD_EPROTO, why);
    hld_conn_close(c, 1);
}

void hld_conn_unref(hld_conn_t *c) {
    if (--c->refs) return;
    rx_fd_drop(c);
    if (c->up_data) { /* an upload the connection left unfinished */
        free(c->up_data);
        hld_sounds_unreserve(c->net->sounds, c->up_reserved);
    }
    free(c->in);
    free(c->bundle);
    free(c->out);
    free(c);
}

static void on_close(uv_handle_t *h) {
    hld_conn_unref(h->data);
}

/* Closes the pipe and the timer now (each holds a reference). Idempotent. */
static void close_handles(hld_conn_t *c) {
    if (c->lingering) {
        hld_net_t *net = c->net;
        if (c->prev)
            c->prev->next = c->next;
        else
            net->lingering = c->next;
        if (c->next) c->next->prev = c->prev;
        c->prev = c->next = NULL;
        c->lingering = 0;
    }
    if (!uv_is_closing((uv_handle_t *)&c->pipe)) uv_close((uv_handle_t *)&c->pipe, on_close);
    if (!uv_is_closing((uv_handle_t *)&c->timer)) uv_close((uv_handle_t *)&c->timer, on_close);
}

static void on_shutdown(uv_shutdown_t *req, int status) {
    (void)status; /* UV_ECANCELED when the linger deadline closed it first */
    close_handles(req->data);
}

static void on_timer(uv_timer_t *t);

/* A closing connection: graceful = let the queued replies drain (at most
 * HLD_LINGER_MS, then the socket is closed anyway), else close now. */
static void finish_close(hld_conn_t *c, int graceful) {
    hld_net_t *net = c->net;
    c->shutdown_req.data = c;
    if (!graceful || uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->pipe, on_shutdown) != 0) {
        close_handles(c);
        return;
    }
    c->lingering = 1;
    c->prev = NULL;
    c->next = net->lingering;
    if (net->lingering) net->lingering->prev = c;
    net->lingering = c;
    uv_timer_start(&c->timer, on_timer, HLD_LINGER_MS, 0);
}

static void release(hld_conn_t *c);

void hld_conn_close(hld_conn_t *c, int graceful) {
    if (c->closing) return;
    hld_net_t *net = c->net;
    flush(c, 1);
    if (c->closing) return; /* the flush itself dropped it */
    c->closing = 1;
    rx_fd_drop(c); /* libuv closes what it still queues with the pipe */
    if (c->reading) uv_read_stop((uv_stream_t *)&c->pipe);
    c->reading = 0;
    release(c);
    /* unlink: it no longer gets events, and its voices become orphans (a
     * rejected connection was never listed) */
    if (c->listed) {
        if (c->prev)
            c->prev->next = c->next;
        else
            net->conns = c->next;
        if (c->next) c->next->prev = c->prev;
        c->prev = c->next = NULL;
        c->listed = 0;
        net->clients--;
        if (c->hello && !c->control) net->plain--;
        if (c->placed) net->placed--;
        if (c->reserved && c->cl && c->cl->proc->reserved) c->cl->proc->reserved--;
        if (c->reserved && net->reserved) net->reserved--;
        c->placed = c->reserved = 0;
    }
    /* its upload, while its client record is there to give the bytes back
     * to; its scheduled commands, before its voices' stops */
    net->hooks->closing(c);
    if (c->cl) { /* its private sounds go; what it still holds stays charged to it */
        hld_sounds_drop_client(net->sounds, c->id);
        hld_clients_disconnect(c->cl);
        c->cl = NULL;
    }
    hld_debug("client %u (%s) disconnected", c->id, c->name);
    finish_close(c, graceful);
    net->hooks->closed(net->owner);
}

static uint8_t g_scratch[HL_MAX_FRAME]; /* main thread only */

uint8_t *hld_conn_scratch(void) {
    return g_scratch;
}

void hld_send_error(hld_conn_t *c, uint16_t op, uint16_t flags, uint32_t id, int status,
                    const char *msg) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, g_scratch, sizeof g_scratch);
    if (!msg) msg = hl_strerror(status);
    if (flags & HL_FLAG_NOREPLY) {
        hl_event_t ev = {.type = HL_EVENT_ERROR, .req_op = op, .status = status};
        snprintf(ev.message, sizeof ev.message, "%s", msg);
        hl_frame_begin(&w, HL_OP_EVENT, 0, id);
        hl_put_event(&w, &ev);
    } else {
        hl_reply_head_t rh = {.req_op = op, .status = status};
        char m[HL_MAX_MSG + 1];
        snprintf(m, sizeof m, "%s", msg);
        hl_frame_begin(&w, HL_OP_REPLY, 0, id);
        hl_put_reply_head(&w, &rh);
        hl_put_str(&w, m, HL_MAX_MSG);
    }
    int n = hl_frame_end(&w);
    if (n > 0) hld_conn_send(c, g_scratch, (size_t)n);
}

void hld_conn_close_all(hld_net_t *net) {
    if (net->hold_timer_state == 1) uv_close((uv_handle_t *)&net->hold_timer, NULL);
    net->hold_timer_state = 2;
    while (net->conns)
        hld_conn_close(net->conns, 0);
    while (net->lingering)
        close_handles(net->lingering);
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
    (void)hint;
    hld_conn_t *c = h->data;
    buf->base = (char *)c->in + c->in_len;
    buf->len = HL_MAX_FRAME - c->in_len;
}

static void start_reading(hld_conn_t *c);

/* A descriptor arrived with the read whose bytes start at offset `at` of
 * the buffer (the kernel hands it over with the read that holds the first
 * byte of the frame it was sent with). 1 if a LOAD_FD frame begins in that
 * read, or continues into it, or a frame's header is still incomplete (the
 * check after dispatch decides); 0: it came with other frames only, which
 * are then refused before any of them runs. */
static int fd_has_frame(const hld_conn_t *c, size_t at) {
    size_t off = 0;
    while (off < c->in_len) {
        if (c->in_len - off < HL_FRAME_HDR) return 1;
        hl_frame_hdr_t h;
        if (hl_frame_peek(c->in + off, c->in_len - off, &h) < 0) return 1; /* EPROTO anyway */
        if (off + h.size > at && (h.op == HL_OP_LOAD_FD || h.op == HL_OP_STREAM)) return 1;
        off += h.size;
    }
    return 0;
}
static void arm_upload_deadline(hld_conn_t *c);

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
    (void)buf;
    hld_conn_t *c = s->data;
    if (nread < 0) {
        /* EOF: the peer may only have shut down its write side after its last
         * request; the replies already queued are still delivered (graceful
         * close, bounded by HLD_LINGER_MS). Any other error: it is gone. */
        hld_conn_close(c, nread == UV_EOF);
        return;
    }
    int had_fd = c->rx_fd >= 0;
    c->in_len += (size_t)nread;
    if (take_fds(c) != 0) {
        fd_violation(c, "more than one descriptor at once (one per LOAD_FD or STREAM frame)");
        return;
    }
    if (!had_fd && c->rx_fd >= 0 && !fd_has_frame(c, c->in_len - (size_t)nread)) {
        fd_violation(c, "a descriptor came with a frame other than LOAD_FD or STREAM");
        return;
    }
    conn_process(c);
}

static void start_reading(hld_conn_t *c) {
    if (c->reading || c->closing || c->paused || c->held) return;
    if (uv_read_start((uv_stream_t *)&c->pipe, on_alloc, on_read) == 0) c->reading = 1;
}

static void stop_reading(hld_conn_t *c) {
    if (!c->reading) return;
    uv_read_stop((uv_stream_t *)&c->pipe);
    c->reading = 0;
}

static uint32_t rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A deadline passed: the linger of a closing connection, the handshake, or
 * the completion of a started frame. */
static void on_timer(uv_timer_t *t) {
    hld_conn_t *c = t->data;
    if (c->closing) {
        hld_debug("client %u: last replies not taken within %d ms, closing", c->id, HLD_LINGER_MS);
        close_handles(c);
        return;
    }
    if (!c->hello) {
        char msg[HL_MAX_MSG + 1];
        snprintf(msg, sizeof msg, "no HELLO within %d ms of connecting", HLD_HANDSHAKE_MS);
        hld_debug("client %u: %s", c->id, msg);
        hld_send_error(c, HL_OP_HELLO, 0, 0, HELIOD_EHANDSHAKE, msg);
        hld_conn_close(c, 1);
        return;
    }
    if (!c->in_len && !c->paused && !c->held &&
        c->up_data) { /* an upload waiting for its next chunk */
        if ((hld_now_ns() - c->up_last_ns) / 1000000u >= HLD_UPLOAD_IDLE_MS)
            c->net->hooks->upload_timeout(c);
        else
            arm_upload_deadline(c);
        return;
    }
    if (!c->in_len || c->paused || c->held) return; /* backpressure is ours, not the client's */
    const uint8_t *p = c->in;
    uint16_t op = c->in_len >= HL_FRAME_HDR ? (uint16_t)(p[4] | p[5] << 8) : 0;
    uint32_t id = c->in_len >= HL_FRAME_HDR ? rd_u32(p + 8) : 0;
    char msg[HL_MAX_MSG + 1];
    snprintf(msg, sizeof msg, "frame not completed within %d ms (%zu bytes received)",
             HLD_FRAME_TIMEOUT_MS, c->in_len);
    hld_debug("client %u: %s", c->id, msg);
    c->net->n->protocol_errors++;
    hld_send_error(c, op, 0, id, HELIOD_EPROTO, msg);
    hld_conn_close(c, 1);
}

/* After input was processed (handshake done): a partial frame in the buffer
 * starts the completion deadline (restarted when frames were consumed, so
 * it runs from the first byte of the frame now pending); none stops it. */
/* No frame pending and an upload in progress: its idle deadline. */
static void arm_upload_deadline(hld_conn_t *c) {
    uint64_t idle_ms = (hld_now_ns() - c->up_last_ns) / 1000000u;
    uint64_t left = idle_ms < HLD_UPLOAD_IDLE_MS ? HLD_UPLOAD_IDLE_MS - idle_ms : 0;
    uv_timer_start(&c->timer, on_timer, left, 0);
}

static void arm_frame_deadline(hld_conn_t *c, size_t consumed) {
    if (!c->hello) return; /* the handshake deadline runs from the connect */
    if (!c->in_len && !c->paused && !c->held && c->up_data)
        arm_upload_deadline(c);
    else if (!c->in_len || c->paused || c->held)
        uv_timer_stop(&c->timer);
    else if (consumed || !uv_is_active((uv_handle_t *)&c->timer))
        uv_timer_start(&c->timer, on_timer, HLD_FRAME_TIMEOUT_MS, 0);
}

/* ---- holding: back-pressure from the command ring (conn.h) ---------------------- */

/* Free slots in the command ring (UINT32_MAX: no ring, never held). */
static uint32_t ring_room(hld_net_t *net) {
    return net->hooks->cmd_room ? net->hooks->cmd_room(net->owner) : UINT32_MAX;
}

static int ring_low(hld_net_t *net) {
    uint32_t line = net->hold_room ? net->hold_room : HLD_RING_HOLD_ROOM;
    uint32_t want = net->wait_room > line ? net->wait_room : line;
    return ring_room(net) < want;
}

/* The most any held connection's next frame needs (after one was served). */
static void wait_room_update(hld_net_t *net) {
    uint32_t w = 0;
    for (hld_conn_t *c = net->conns; c; c = c->next)
        if (c->held && c->wait_room > w) w = c->wait_room;
    net->wait_room = w;
}

static void serve_held(hld_net_t *net, int force);

static void on_hold_timer(uv_timer_t *t) {
    hld_net_t *net = t->data;
    uint64_t now = hld_now_ns();
    if (!ring_low(net)) {
        net->hold_ns = now;
        serve_held(net, 0);
    } else if (now - net->hold_ns >= (uint64_t)HLD_RING_HOLD_MAX_MS * HLD_NS_PER_MS) {
        hld_debug("command ring without room for %d ms: %u held connection(s) served anyway",
                  HLD_RING_HOLD_MAX_MS, net->held);
        net->hold_ns = now;
        serve_held(net, 1); /* a full ring answers EBUSY */
    }
    if (!net->held) uv_timer_stop(t);
}

static void hold(hld_conn_t *c) {
    hld_net_t *net = c->net;
    /* paused (by the flush after its run): on_write runs its frames again */
    if (c->held || c->paused || net->hold_timer_state == 2) return;
    if (net->hold_timer_state == 0) {
        uv_timer_init(net->loop, &net->hold_timer);
        net->hold_timer.data = net;
        net->hold_timer_state = 1;
    }
    c->held = 1;
    stop_reading(c);
    net->holds++;
    if (net->held++ == 0) {
        net->hold_ns = hld_now_ns();
        uv_timer_start(&net->hold_timer, on_hold_timer, HLD_RING_HOLD_POLL_MS,
                       HLD_RING_HOLD_POLL_MS);
    }
}

/* c is no longer held: closing, paused (it dispatches nothing until its
 * output drains, then its frames pass the gate again: on_write), or served.
 * The room it waited for is nobody's now; the hold timer stops when it finds
 * none held. */
static void release(hld_conn_t *c) {
    if (c->held) {
        c->held = 0;
        c->net->held--;
    }
    if (c->wait_room) {
        c->wait_room = 0;
        wait_room_update(c->net);
    }
}

static void unhold(hld_conn_t *c) {
    if (!c->held) return;
    release(c);
    start_reading(c);
}

/* Backpressure on c's output: no reading, no dispatching, and no hold (a
 * paused connection is never held, see conn.h) until on_write finds it
 * drained. */
static void pause_reads(hld_conn_t *c) {
    c->paused = 1;
    stop_reading(c);
    release(c);
}

/* ---- dispatch -------------------------------------------------------------------- */

enum { RUN_DONE, RUN_QUOTA, RUN_GATE, RUN_CLOSED };

/* Dispatches up to max complete frames from c's buffer, *off bytes in:
 * RUN_DONE when no complete frame is left (or c stopped: paused), RUN_QUOTA
 * after max, RUN_GATE when the next one must wait (the ring is low, or others
 * are held and c is not: unless force), RUN_CLOSED when c was closed. */
static int run_frames(hld_conn_t *c, size_t *off, unsigned max, int force) {
    hld_net_t *net = c->net;
    for (unsigned n = 0;; n++) {
        if (c->closing) return RUN_CLOSED;
        if (c->paused) return RUN_DONE;
        hl_frame_hdr_t h;
        size_t avail = c->in_len - *off;
        int rc = hl_frame_peek(c->in + *off, avail, &h);
        if (rc == 1) return RUN_DONE;
        if (rc < 0) {
            /* the stream cannot be resynchronised: answer with what we can read, then close */
            const uint8_t *p = c->in + *off;
            uint16_t op = (uint16_t)(p[4] | p[5] << 8);
            uint32_t id = avail >= HL_FRAME_HDR ? rd_u32(p + 8) : 0;
            net->n->protocol_errors++;
            hld_debug("client %u: unparseable frame (%s)", c->id, hl_errname(rc));
            hld_send_error(c, op, 0, id, HELIOD_EPROTO,
                           rc == HELIOD_ETOOBIG ? "frame larger than the maximum"
                                                : "malformed frame header");
            hld_conn_close(c, 1);
            return RUN_CLOSED;
        }
        if (h.size > avail) return RUN_DONE;
        if (n == max) return RUN_QUOTA;
        if (!force && c->hello && ((net->held && !c->held) || ring_low(net))) return RUN_GATE;
        net->forcing = force;
        rc = net->hooks->dispatch(c, &h, c->in + *off + HL_FRAME_HDR, h.size - HL_FRAME_HDR);
        net->forcing = 0;
        if (rc == HLD_DISPATCH_WAIT) { /* not taken: it waits for c->wait_room */
            net->waits++;
            if (c->paused) /* meanwhile: it asks again once it reads (on_write) */
                release(c);
            else if (c->wait_room > net->wait_room)
                net->wait_room = c->wait_room;
            return RUN_GATE;
        }
        if (c->wait_room) { /* taken at last */
            c->wait_room = 0;
            wait_room_update(net);
        }
        *off += h.size;
        if (rc < 0) {
            hld_conn_close(c, 1);
            return RUN_CLOSED;
        }
    }
}

/* After frames were dispatched: the buffer compacted, the descriptor rule,
 * the deadline, the replies flushed. 0, or -1 if c was closed. */
static int after_run(hld_conn_t *c, size_t off) {
    if (c->closing) {
        rx_fd_drop(c);
        return -1;
    }
    if (off) {
        memmove(c->in, c->in + off, c->in_len - off);
        c->in_len -= off;
    }
    if (c->rx_fd >= 0 && !c->in_len && !c->paused && !c->held) {
        fd_violation(c, "a descriptor came with a frame other than LOAD_FD or STREAM");
        return -1;
    }
    arm_frame_deadline(c, off);
    hld_conn_flush(c);
    return c->closing ? -1 : 0;
}

/* Serves the held connections while the ring has room (or all of them,
 * force): rounds of HLD_RING_HOLD_QUANTUM frames each, in list order; a
 * connection left with no complete frame reads again. */
static void serve_held(hld_net_t *net, int force) {
    if (net->serving) return;
    net->serving = 1;
    /* first the requests that wait for more room than the usual: the room
     * is theirs (others were held until it came) */
    for (hld_conn_t *c = net->conns; c && net->wait_room; c = c->next) {
        if (!c->held || !c->wait_room) continue;
        if (!force && c->wait_room > ring_room(net)) continue;
        size_t off = 0;
        int r = run_frames(c, &off, HLD_RING_HOLD_QUANTUM, force);
        if (r == RUN_DONE) unhold(c);
        if (after_run(c, off) != 0) break; /* closed: the list changed */
    }
    int more = 1;
    while (more && net->held) {
        more = 0;
        hld_conn_t *c = net->conns;
        while (c) {
            hld_conn_t *next = c->next;
            if (c->held) {
                if (!force && ring_low(net)) goto out;
                size_t off = 0;
                int r = run_frames(c, &off, HLD_RING_HOLD_QUANTUM, force);
                /* done: reading again before the compaction, so that a
                 * partial frame left starts its completion deadline */
                if (r == RUN_DONE) unhold(c);
                if (after_run(c, off) == 0 && r == RUN_QUOTA) more = 1;
            }
            if (next && !next->listed) next = net->conns; /* closed meanwhile: start over */
            c = next;
        }
    }
out:
    net->serving = 0;
}

/* Dispatches the complete frames in the input buffer (none while c is held:
 * serve_held does). */
static void conn_process(hld_conn_t *c) {
    if (c->held) return;
    size_t off = 0;
    int r = run_frames(c, &off, UINT32_MAX, 0);
    if (after_run(c, off) != 0 || r != RUN_GATE) return;
    hold(c);
    if (!ring_low(c->net)) serve_held(c->net, 0); /* others were held: c queues behind them */
}

int hld_conn_send(hld_conn_t *c, const void *frame, size_t len) {
    if (c->closing) return 0;
    if (c->out_len + len > c->out_cap) {
        if (c->out_len) flush(c, 1);
        if (c->closing) return 0;
        if (!c->out) {
            size_t cap = len > HLD_WRITE_BATCH ? len : HLD_WRITE_BATCH;
            c->out = malloc(cap);
            if (!c->out) return HELIOD_ENOMEM;
            c->out_cap = cap;
        }
    }
    memcpy(c->out + c->out_len, frame, len);
    c->out_len += len;
    return 0;
}

static void on_write(uv_write_t *req, int status) {
    write_req_t *w = (write_req_t *)req;
    hld_conn_t *c = req->data;
    free(w->data);
    free(w);
    if (status < 0 || c->closing) return;
    flush(c, 0); /* the batch held back while this write was queued */
    if (c->closing) return;
    if (c->paused && outq(c) <= HL_OUTQ_PAUSE / 2) {
        c->paused = 0;
        hld_debug("client %u: output drained, reading again", c->id);
        conn_process(c);
        start_reading(c);
    }
}

/* The daemon-wide bound on unsent output (HLD_OUTQ_TOTAL_MAX): while all the
 * queues together exceed it, the biggest non-reading client (paused by
 * backpressure, or already closing and lingering) is dropped; if the biggest
 * is still reading, it is paused instead, which stops its replies growing. A
 * client that reads its replies keeps its queue under HL_OUTQ_PAUSE and is
 * never chosen while a non-reader is bigger. O(clients), and only run when one
 * queue passed HLD_OUTQ_TOTAL_CHECK. */
static void enforce_total(hld_net_t *net) {
    for (;;) {
        size_t total = 0, big = 0;
        hld_conn_t *victim = NULL;
        for (int list = 0; list < 2; list++)
            for (hld_conn_t *c = list ? net->lingering : net->conns; c; c = c->next) {
                size_t q = outq(c);
                total += q;
                if (q > big) {
                    big = q;
                    victim = c;
                }
            }
        if (total <= HLD_OUTQ_TOTAL_MAX || !victim) return;
        if (!victim->closing && !victim->paused) {
            hld_debug("client %u: %zu bytes queued, all clients %zu: pausing reads", victim->id,
                      big, total);
            pause_reads(victim);
            return;
        }
        hld_warn("client %u (%s): %zu bytes of replies unread while all clients hold %zu "
                 "(cap %u): dropping it",
                 victim->id, victim->name, big, total, (unsigned)HLD_OUTQ_TOTAL_MAX);
        if (victim->closing)
            close_handles(victim); /* lingering: its deadline comes early */
        else
            hld_conn_close(victim, 0);
    }
}

/* Hands the batch to libuv and applies backpressure. Unless force, a batch
 * under half of HLD_WRITE_BATCH waits while an earlier write is still queued
 * (on_write sends it when that one completes): a client that does not read
 * then costs one buffer per batch of bytes, not one (of HLD_WRITE_BATCH
 * bytes) per event tick, so its memory is what the queue limits count. */
static void flush(hld_conn_t *c, int force) {
    if (!c->out_len || c->closing) return;
    if (!force && c->out_len < HLD_WRITE_BATCH / 2 &&
        uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe) > 0)
        return;
    write_req_t *w = malloc(sizeof *w);
    if (!w) {
        hld_conn_close(c, 0);
        return;
    }
    w->data = c->out;
    w->req.data = c;
    uv_buf_t b = uv_buf_init((char *)c->out, (unsigned)c->out_len);
    c->out = NULL;
    c->out_len = c->out_cap = 0;
    if (uv_write(&w->req, (uv_stream_t *)&c->pipe, &b, 1, on_write) != 0) {
        free(w->data);
        free(w);
        hld_conn_close(c, 0);
        return;
    }
    size_t q = outq(c);
    if (q > HL_OUTQ_MAX) {
        hld_warn("client %u (%s): %zu bytes of replies unread, dropping it", c->id, c->name, q);
        hld_conn_close(c, 0);
        return;
    }
    if (q > HL_OUTQ_PAUSE && !c->paused) {
        hld_debug("client %u: %zu bytes queued, pausing reads", c->id, q);
        pause_reads(c);
    }
    if (q > HLD_OUTQ_TOTAL_CHECK) enforce_total(c->net);
}

void hld_conn_flush(hld_conn_t *c) {
    flush(c, 0);
}

void hld_conn_flush_all(hld_net_t *net) {
    hld_conn_t *c = net->conns;
    while (c) {
        hld_conn_t *next = c->next; /* flush may close (unlink) c */
        hld_conn_flush(c);
        if (next && !next->listed) next = net->conns; /* the total cap dropped it: start over */
        c = next;
    }
}

static void reject(hld_conn_t *c) {
    hld_net_t *net = c->net;
    net->n->clients_rejected++;
    char msg[HL_MAX_MSG + 1];
    if (*net->shutting_down)
        snprintf(msg, sizeof msg, "daemon is shutting down");
    else
        snprintf(msg, sizeof msg,
                 "server full: too many clients (%u connected, --max-clients %u and %d places "
                 "kept for control clients)",
                 net->clients, net->cfg->max_clients, HLD_CONTROL_PLACES);
    hld_send_error(c, HL_OP_HELLO, 0, 0, *net->shutting_down ? HELIOD_ESHUTDOWN : HELIOD_EBUSY,
                   msg);
    flush(c, 1);
    if (c->closing) return; /* the flush failed and closed it */
    c->closing = 1;
    finish_close(c, 1);
}

void hld_conn_accept(hld_net_t *net, int fd) {
    hld_conn_t *c = calloc(1, sizeof *c);
    if (c) c->in = malloc(HL_MAX_FRAME);
    /* an IPC pipe: libuv reads with recvmsg and keeps descriptors (LOAD_FD) */
    if (!c || !c->in || uv_pipe_init(net->loop, &c->pipe, 1) != 0) {
        if (c) free(c->in);
        free(c);
        close(fd);
        net->n->clients_rejected++;
        hld_error("out of memory accepting a client");
        return;
    }
    c->net = net;
    c->d = net->owner;
    c->rx_fd = -1;
    c->refs = 2; /* the pipe and the timer */
    c->pipe.data = c;
    uv_timer_init(net->loop, &c->timer);
    c->timer.data = c;
    if (uv_pipe_open(&c->pipe, fd) != 0) {
        close(fd);
        net->n->clients_rejected++;
        close_handles(c);
        return;
    }
    /* plain clients are held to max at HELLO; the places above it are kept for
     * control clients, so heliodctl gets in when games fill the daemon */
    uint32_t max = net->cfg->max_clients ? net->cfg->max_clients : HL_MAX_CLIENTS;
    if (net->clients >= max + HLD_CONTROL_PLACES || *net->shutting_down) {
        reject(c);
        return;
    }
    c->id = ++net->next_client_id;
    /* 0 means "owned by nobody"; HLD_TAG_SNAPSHOTS tags the snapshot plans */
    while (c->id == 0 || c->id == HLD_TAG_SNAPSHOTS)
        c->id = ++net->next_client_id;
    struct ucred cr = {0}; /* the quotas are per process: its pid */
    socklen_t crlen = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) != 0 || crlen != sizeof cr) cr.pid = 0;
    c->cl = hld_clients_open(net->ledger, c->id, cr.pid > 0 ? (uint32_t)cr.pid : 0);
    if (!c->cl) {
        net->n->clients_rejected++;
        hld_error("out of memory accepting a client");
        c->closing = 1;
        finish_close(c, 0);
        return;
    }
    snprintf(c->name, sizeof c->name, "client-%u", c->id);
    c->next = net->conns;
    if (net->conns) net->conns->prev = c;
    net->conns = c;
    c->listed = 1;
    net->clients++;
    net->n->clients_total++;
    uv_timer_start(&c->timer, on_timer, HLD_HANDSHAKE_MS, 0);
    start_reading(c);
}
