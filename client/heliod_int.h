/*
 * heliod_int.h - the transport core's internal API (heliod_core.c,
 * heliod_conn.c): what the per-area files of libheliod call down into
 * (heliod_sounds.c, heliod_voice.c, heliod_vm.c, heliod_graph.c,
 * heliod_assets.c, heliod_time.c, heliod_events.c). The core never calls an
 * area file: the one thing it hands up, a decoded event, goes through the sink
 * that heliod_events.c registers. Not installed; the `hlc_` names stay inside
 * the library (libheliod.map exports heliod_* only).
 *
 * Every helper returns 0 (or a request id, a count) or a negative
 * heliod_errno_t, and records the message heliod_last_error() gives.
 */
#ifndef HELIOD_INT_H
#define HELIOD_INT_H

#include <stddef.h>
#include <stdint.h>

#include "heliod.h"
#include "hl_proto.h"

/* Records err and its message (msg, or the code's own) as the last error; returns err. */
int hlc_set_error(heliod_t *h, int err, const char *msg);
/* Starts a request frame of op in the output batch: *id gets its request id. */
int hlc_req_begin(heliod_t *h, hl_wbuf_t *w, uint16_t op, uint16_t flags, uint32_t *id);
/* Closes the frame begun by hlc_req_begin. */
int hlc_req_end(heliod_t *h, hl_wbuf_t *w);
/* Flushes and waits for the reply to request id (events meanwhile are queued):
 * 0 with r over its body, or the server's error code. */
int hlc_wait_reply(heliod_t *h, uint32_t id, uint16_t op, hl_rbuf_t *r);
/* The reply body was read exactly: 0, else the connection is failed (EPROTO). */
int hlc_reply_done(heliod_t *h, const hl_rbuf_t *r);
/* Waits for an empty-bodied reply. */
int hlc_simple_call(heliod_t *h, uint32_t id, uint16_t op);
/* Waits for a COUNT reply to request id: *count (may be NULL) gets it. */
int hlc_count_call(heliod_t *h, uint32_t id, uint16_t op, uint32_t *count);
/* Sends an empty-bodied request (or a STATS one) and reads its list head. */
int hlc_list_call(heliod_t *h, uint16_t op, const hl_stats_req_t *sreq, hl_rbuf_t *r,
                  hl_list_head_t *head);
/* Finishes a list: *count = entries kept (<= cap); 1 if any were left out. */
int hlc_list_result(heliod_t *h, const hl_rbuf_t *r, const hl_list_head_t *head, size_t cap,
                    size_t *count);
/* The whole of a list call: op's entries, each read as hl_WIRE_t and
 * converted by hlc_from_WIRE (heliod_conv.h) into arr[0..cap); returns as
 * hlc_list_result. */
#define HLC_LIST(h, op, wire, arr, cap, count)                                                     \
    do {                                                                                           \
        hl_rbuf_t r_;                                                                              \
        hl_list_head_t head_;                                                                      \
        int rc_ = hlc_list_call(h, op, NULL, &r_, &head_);                                         \
        if (rc_ < 0) return rc_;                                                                   \
        for (size_t i_ = 0; i_ < head_.count && !r_.err; i_++) {                                   \
            hl_##wire##_t e_;                                                                      \
            hl_get_##wire(&r_, &e_);                                                               \
            if (i_ < (cap) && !r_.err) hlc_from_##wire(&e_, &(arr)[i_]);                           \
        }                                                                                          \
        return hlc_list_result(h, &r_, &head_, cap, count);                                        \
    } while (0)
/* Async: begins a request whose reply goes to fn (NULL: fire-and-forget) ... */
int hlc_async_begin(heliod_t *h, hl_wbuf_t *w, uint16_t op, heliod_reply_fn fn, void *user,
                    uint32_t *id);
/* ... and queues it: returns the request id. */
int hlc_async_commit(heliod_t *h, hl_wbuf_t *w, uint32_t id);

/* hlc_req_NAME, for every message of the schema: a whole request frame of
 * op (begun, its body m put, closed) in the output batch; 0 with *id its
 * request id, or an error. hlc_call_NAME also waits for an empty-bodied
 * reply: 0 or the error. hlc_async_NAME queues it as an async request
 * (hlc_async_begin's fn and user): its id or an error. */
#define HLC_REQ_(name, doc, codec)                                                                 \
    static inline int hlc_req_##name(heliod_t *h, uint16_t op, uint16_t flags,                     \
                                     const hl_##name##_t *m, uint32_t *id) {                       \
        hl_wbuf_t w;                                                                               \
        int rc = hlc_req_begin(h, &w, op, flags, id);                                              \
        if (rc < 0) return rc;                                                                     \
        hl_put_##name(&w, m);                                                                      \
        return hlc_req_end(h, &w);                                                                 \
    }                                                                                              \
    /* ... and waits for its empty-bodied reply */                                                 \
    static inline int hlc_call_##name(heliod_t *h, uint16_t op, const hl_##name##_t *m) {          \
        uint32_t id;                                                                               \
        int rc = hlc_req_##name(h, op, 0, m, &id);                                                 \
        return rc < 0 ? rc : hlc_simple_call(h, id, op);                                           \
    }                                                                                              \
    static inline int hlc_async_##name(heliod_t *h, uint16_t op, heliod_reply_fn fn, void *user,   \
                                       const hl_##name##_t *m) {                                   \
        hl_wbuf_t w;                                                                               \
        uint32_t id;                                                                               \
        int rc = hlc_async_begin(h, &w, op, fn, user, &id);                                        \
        if (rc < 0) return rc;                                                                     \
        hl_put_##name(&w, m);                                                                      \
        return hlc_async_commit(h, &w, id);                                                        \
    }
HL_SCHEMA(HLC_REQ_)
#undef HLC_REQ_

/* Marks the connection dead (later calls fail with the same code); returns err. */
int hlc_conn_fail(heliod_t *h, int err);
/* Writes the whole output batch, waiting for the socket (blocking). 0 or error. */
int hlc_out_drain(heliod_t *h);
/* Writes the start of the output batch with fd attached (SCM_RIGHTS), waiting
 * for the socket; the batch must start with the descriptor's frame (drain
 * first). 0 or error; fd stays the caller's. */
int hlc_send_fd(heliod_t *h, int fd);

/* Where the core hands each decoded event (heliod_events.c's sink, with the
 * application's callback fn, never NULL when called). */
typedef void (*hlc_event_sink_fn)(heliod_t *h, uint32_t request_id, const hl_event_t *e,
                                  heliod_event_fn fn, void *user);
void hlc_set_event_sink(heliod_t *h, hlc_event_sink_fn sink, heliod_event_fn fn, void *user);

/* Time state the core puts on requests: the frame schedulable requests carry
 * (0 = now), the late-frames trailer of the last scheduled reply taken, and
 * whether a bundle is open (blocking calls are then refused). */
uint64_t hlc_at_frame(const heliod_t *h);
void hlc_set_at_frame(heliod_t *h, uint64_t frame);
uint64_t hlc_last_late(const heliod_t *h);
int hlc_in_bundle(const heliod_t *h);
void hlc_set_bundle(heliod_t *h, int open);

/* The conversions between public and wire structs: heliod_conv.h. */

#endif /* HELIOD_INT_H */
