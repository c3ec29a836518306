/*
 * conn.h - one client connection: a bounded input buffer that never holds
 * more than one maximal frame, hl_frame_peek on every frame before its body
 * is buffered, batched replies, and backpressure.
 *
 *   read -> in[HL_MAX_FRAME] -> peek -> dispatch (complete frames only)
 *   replies/events -> out batch -> one uv_write per batch
 *   unsent bytes > HL_OUTQ_PAUSE: stop reading until they drain to half
 *   unsent bytes > HL_OUTQ_MAX:   drop the client
 *   all clients' unsent bytes > HLD_OUTQ_TOTAL_MAX: drop the biggest
 *     non-reading clients first (pause the biggest if it still reads)
 *   command ring (hooks->cmd_room) under net->hold_room free: hold
 *
 * Holding (back-pressure from the audio thread): a complete frame is not
 * dispatched while the command ring has fewer than net->hold_room free slots
 * (HLD_RING_QUEUE_MAX commands queued); its connection is held instead: reads stop (the client's
 * socket fills and its writes block), its buffered frames wait, its replies and events still go
 * out. While any connection is held, a frame from another one makes it held too, so nobody
 * overtakes the queue. A timer (HLD_RING_HOLD_POLL_MS) serves the held connections once the ring
 * has room, in rounds of HLD_RING_HOLD_QUANTUM frames each, so one flooding client cannot starve
 * another's requests; a connection whose buffer has no complete frame left reads again. If the ring
 * gains no room for HLD_RING_HOLD_MAX_MS (the audio thread stuck), the held frames are dispatched
 * anyway and a full ring answers EBUSY, as without holding.
 *
 * A request that needs more ring slots at once than are free (STOP_ALL on
 * thousands of voices: all or nothing) is not refused either: its handler
 * returns HLD_DISPATCH_WAIT with the count in c->wait_room, the frame stays
 * in the buffer and c is held until the ring has that much room. Meanwhile
 * every other connection waits for that room too, and the waiting ones are
 * served first, so a flood cannot keep taking the room a big request needs.
 * Under HLD_RING_HOLD_MAX_MS's force (hld_conn_forcing) the handler answers
 * EBUSY instead.
 *
 * A paused connection (its unsent replies over HL_OUTQ_PAUSE) is never held:
 * it dispatches nothing until they drain, so pausing drops its hold and the
 * room it waited for (nobody waits for room it cannot take, and the hold
 * timer stops once no connection is left held). When it reads again its
 * frames pass the gate again, and a request that waited waits again.
 *
 * Deadlines (one uv_timer per connection): HELLO within HLD_HANDSHAKE_MS of
 * connecting; a frame whose first bytes arrived complete within
 * HLD_FRAME_TIMEOUT_MS (not counted while reads are paused by backpressure
 * or the connection is held);
 * after a graceful close (error reply, then shutdown; or the peer's EOF, which
 * may be a half-close after its last request) the peer has HLD_LINGER_MS to
 * take the queued replies before the socket is closed anyway.
 *
 * Descriptors (SCM_RIGHTS, for LOAD_FD): the pipe is a libuv IPC pipe, so
 * libuv reads with recvmsg and queues what arrives; after every read the
 * connection takes them out at once. One may be held, for the LOAD_FD frame
 * it came with (the kernel delivers it with that frame's first byte, so it
 * is held before the frame is dispatched); a second one, or one still held
 * once every buffered frame was dispatched (it came with another frame), is
 * a protocol error: closed, EPROTO, the connection closed. Whatever is held
 * or queued when the connection closes is closed with it.
 *
 * A connection is freed when both its handles (pipe, timer) are closed and no
 * load or stream job still refers to it (refs). Main thread only.
 */
#ifndef HLD_CONN_H
#define HLD_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "clients.h"
#include "config.h"
#include "counters.h"
#include "hl_proto.h"
#include "sounds.h"

/* The application's state, opaque here: each connection carries it for the
 * request handlers (app/daemon.h), and the hooks get it back. */
typedef struct hld_daemon hld_daemon_t;
typedef struct hld_conn hld_conn_t;
typedef struct hld_net hld_net_t;

/* The periodic event feeds a connection may subscribe to (telemetry/feeds.h). */
enum { HLD_FEED_METER, HLD_FEED_PROFILE, HLD_FEEDS };

struct hld_conn {
    hld_net_t *net;  /* the layer it belongs to */
    hld_daemon_t *d; /* the application's (hld_net_t.owner) */
    uv_pipe_t pipe;
    uv_timer_t timer; /* handshake, frame and linger deadlines */
    uv_shutdown_t shutdown_req;
    hld_conn_t *prev, *next; /* in net->conns while open, then in net->lingering */
    uint32_t id;             /* client id, also the owner tag of its voices */
    hld_client_t *cl;        /* its ledger record (quotas) */
    int control;             /* HELLO said HL_HELLO_CONTROL */
    int placed;              /* holds one of the --max-clients places (net->placed) */
    int reserved;            /* holds one of the places above them (control, one per process) */
    uint16_t minor;          /* protocol 1.minor this connection speaks: min(HELLO's, ours) */
    uint8_t *in;
    size_t in_len;
    uint8_t *out; /* batch not yet handed to uv_write */
    size_t out_len, out_cap;
    int hello, closing, paused, reading;
    int held;           /* waits for room in the command ring (see the top); never paused */
    uint32_t wait_room; /* its next frame needs this many free ring slots (0: the usual) */
    int listed;         /* in net->conns (counted in net->clients) */
    int lingering;      /* closed gracefully, replies still draining (in net->lingering) */
    uint32_t sub;       /* HL_SUB_* */
    /* the periodic feeds (telemetry/feeds.c), by HLD_FEED_*: events per
     * second (0 = the feed's default) and the next one's due time */
    struct {
        float hz;
        uint64_t next_ns;
    } feed[HLD_FEEDS];
    uint32_t refs;
    char name[HL_MAX_NAME + 1];
    /* an upload in progress (LOAD_DATA), at most one per connection */
    uint8_t *up_data;
    uint64_t up_total, up_have, up_reserved;
    hld_client_t *up_cl; /* its client, charged up_reserved bytes (until decoding starts) */
    uint64_t up_last_ns; /* its last chunk: idle HLD_UPLOAD_IDLE_MS, it is dropped */
    uint32_t up_flags;
    char up_name[HL_MAX_NAME + 1];
    /* a descriptor that came with SCM_RIGHTS, held for the LOAD_FD frame it
     * was sent with (-1: none); at most one: see conn.c */
    int rx_fd;
    /* time_ops.c: the requests held between BUNDLE_BEGIN and BUNDLE_END */
    uint8_t *bundle; /* NULL: no bundle open */
    size_t bundle_len;
    uint32_t bundle_n;
};

/* What the connection layer calls above it: the application gives the
 * table (hld_conn_set_hooks) before the first connection; conn.c calls
 * nothing above net/ otherwise. */
typedef struct hld_conn_hooks {
    /* one complete frame: 0, negative to close after the replies flush, or
     * HLD_DISPATCH_WAIT: not taken, c->wait_room set (see the top) */
    int (*dispatch)(hld_conn_t *c, const hl_frame_hdr_t *h, const uint8_t *body, size_t len);
    /* the LOAD_DATA upload in progress sat idle HLD_UPLOAD_IDLE_MS */
    void (*upload_timeout)(hld_conn_t *c);
    /* free slots in the audio thread's command ring (NULL: no ring, never held) */
    uint32_t (*cmd_room)(hld_daemon_t *d);
    /* c is closing, its client record still there: give back what it holds */
    void (*closing)(hld_conn_t *c);
    /* a connection closed: its voices may be orphans now */
    void (*closed)(hld_daemon_t *d);
} hld_conn_hooks_t;

/* The connection layer: the listening socket (server.c) and the
 * connections (conn.c). The application fills in the first part before
 * hld_server_listen; the rest is the layer's. */
struct hld_net {
    uv_loop_t *loop;
    const hld_config_t *cfg;       /* socket_path, max_clients */
    hld_clients_t *ledger;         /* each connection's client record */
    hld_sounds_t *sounds;          /* a closed client's private sounds go */
    hld_counters_t *n;             /* clients_*, protocol_errors, fds_* */
    const int *shutting_down;      /* the application's: 1 fading, 2 closing handles */
    hld_daemon_t *owner;           /* each connection's d, the hooks' argument */
    const hld_conn_hooks_t *hooks; /* the calls upward */
    /* server.c */
    uv_pipe_t listener;
    int listener_open, unlink_on_exit, activated;
    uint64_t last_accept_err_log_ns;
    /* conn.c */
    hld_conn_t *conns;     /* live connections (doubly linked) */
    hld_conn_t *lingering; /* closed, their last replies draining (HLD_LINGER_MS at most) */
    uint32_t clients;      /* listed connections (control ones included) */
    uint32_t plain;        /* of those, past HELLO and not control: at most cfg->max_clients */
    uint32_t placed;       /* past HELLO in one of the cfg->max_clients places (control or not) */
    uint32_t reserved;     /* control clients in the places kept above them (one per process) */
    uint32_t next_client_id;
    /* holding (see the top) */
    uv_timer_t hold_timer;
    int hold_timer_state; /* 0 not initialised, 1 initialised, 2 closed */
    int serving;          /* in the pass that serves the held connections */
    uint32_t held;        /* connections held */
    uint64_t hold_ns;     /* the ring last had room (or the first hold began) */
    uint64_t holds;       /* times a connection was held (STATS conn_holds) */
    uint32_t wait_room;   /* the most a held connection's next frame needs (0: none) */
    uint32_t hold_room;   /* held below this many free slots (0: HLD_RING_HOLD_ROOM); the
                           * application sets it from its ring's size (hld_cmd_ring_for) */
    int forcing;          /* serving the held frames anyway (HLD_RING_HOLD_MAX_MS) */
    uint64_t waits;       /* times a request waited for more room (STATS conn_waits) */
};

/* A dispatch hook's answer: the frame was not taken; hold its connection
 * until the ring has c->wait_room free slots (see the top). */
#define HLD_DISPATCH_WAIT 1
/* Is the frame being dispatched served under force (the ring had no room
 * for HLD_RING_HOLD_MAX_MS)? Then a request must not wait again. */
static inline int hld_conn_forcing(const hld_conn_t *c) {
    return c->net->forcing;
}

/* server.c: listens on cfg->socket_path or a socket-activated fd. 0 or a
 * negative HELIOD_* code after logging why. */
int hld_server_listen(hld_net_t *net);
/* Stops accepting and removes the socket file we created. Idempotent. */
void hld_server_close(hld_net_t *net);

/* Takes over fd, a connection accepted by server.c (peer credentials already
 * checked), or rejects it with a "server full" error reply when
 * cfg.max_clients are connected. Closes fd on failure. */
void hld_conn_accept(hld_net_t *net, int fd);
/* Queues an error answer to request (op, id): an EVENT_ERROR if the request
 * had HL_FLAG_NOREPLY, else a REPLY with the status and message. */
void hld_send_error(hld_conn_t *c, uint16_t op, uint16_t flags, uint32_t id, int status,
                    const char *msg);
/* The frame being encoded (HL_MAX_FRAME bytes; main thread only): replies
 * are built here, then copied into a connection's batch. */
uint8_t *hld_conn_scratch(void);
/* Appends an encoded frame to the output batch. 0 or HELIOD_ENOMEM. */
int hld_conn_send(hld_conn_t *c, const void *frame, size_t len);
/* Takes the descriptor received with the LOAD_FD frame being dispatched
 * (the caller closes it), or -1 if none came. */
int hld_conn_take_fd(hld_conn_t *c);
/* Hands the batch to libuv and applies backpressure. */
void hld_conn_flush(hld_conn_t *c);
/* Closes: graceful = after pending replies are written. Idempotent. */
void hld_conn_close(hld_conn_t *c, int graceful);
/* Reference held by an asynchronous job (load); unref may free. */
void hld_conn_ref(hld_conn_t *c);
void hld_conn_unref(hld_conn_t *c);
/* May c act on what client `owner` created (its voice, sound, emitter)?
 * Its own, or anything for a control client. */
static inline int hld_conn_may(const hld_conn_t *c, uint32_t owner) {
    return c->control || c->id == owner;
}
/* The open connection with that client id, or NULL. */
hld_conn_t *hld_conn_find(hld_net_t *net, uint32_t id);
/* Bytes queued for c and not yet written to its socket. */
size_t hld_conn_outq(hld_conn_t *c);
/* The same over every connection, open or lingering (STATS outq_bytes). */
size_t hld_conn_outq_total(hld_net_t *net);
/* Flushes every connection with a pending batch. */
void hld_conn_flush_all(hld_net_t *net);
/* Closes every connection now, open or lingering (shutdown). */
void hld_conn_close_all(hld_net_t *net);

#endif /* HLD_CONN_H */
