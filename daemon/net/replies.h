/*
 * replies.h - answering a request: the request being handled (its
 * connection, header, body reader and the reply under construction), error,
 * success, count and list replies. The request handlers of every folder
 * share these; they only queue bytes on the connection (conn.h).
 *
 * A handler decodes its whole body first (hld_body_ok false: the EPROTO
 * reply is queued, return HLD_CLOSE_CONN), validates (an error reply via
 * hld_fail, the connection stays), then acts and replies. With
 * HL_FLAG_NOREPLY success is silent and failure becomes an EVENT_ERROR.
 * Main thread only.
 */
#ifndef HLD_REPLIES_H
#define HLD_REPLIES_H

#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "hl_proto.h"

#define HLD_CLOSE_CONN (-1) /* handler result: reply queued, now close */
#define CLOSE_CONN     HLD_CLOSE_CONN

typedef struct {
    hld_conn_t *c;
    const hl_frame_hdr_t *h;
    hl_rbuf_t r;
    hl_wbuf_t w;    /* reply under construction */
    uint64_t late;  /* HL_FLAG_AT: frames the requested frame was behind at dispatch */
    int status;     /* the error hld_fail answered (0: none); the capture records it */
    uint64_t voice; /* the voice handle the reply names (a PLAY's, streamed too; a MUSIC's
                       track); the capture records it */
} hld_req_t;

/* Queues the error answer to q; returns 0 (the handler's result). */
int hld_fail(hld_req_t *q, int status, const char *msg);
/* Starts a success reply in q->w (the body follows), then ends and queues it. */
void hld_reply_begin(hld_req_t *q);
int hld_reply_end(hld_req_t *q);
/* Success with an empty body (silent with NOREPLY). */
int hld_reply_ok(hld_req_t *q);
/* A COUNT reply (silent with NOREPLY). */
int hld_reply_count(hld_req_t *q, uint32_t count);
/* 1 if the body was consumed exactly; else the EPROTO reply is queued: 0. */
int hld_body_ok(hld_req_t *q);

/* List replies: the head is rewritten with the final count; an entry that
 * does not fit in the frame is rolled back and sets 'truncated'. */
typedef struct {
    hld_req_t *q;
    size_t head_off;
    hl_list_head_t head;
} hld_list_t;
void hld_list_begin(hld_list_t *l, hld_req_t *q);
/* Call after putting an entry; returns 0 to continue, 1 when full. */
int hld_list_entry_done(hld_list_t *l, size_t before);
int hld_list_end(hld_list_t *l);

/* Events: ev encoded as an EVENT frame (id 0) into buf: its length, or a
 * negative HELIOD_* code. */
int hld_event_frame(const hl_event_t *ev, uint8_t *buf, size_t cap);
/* The same for a connection of protocol 1.minor: from 1.1 on with the
 * trailing fields the event's appended members hold (hl_put_event_minor). */
int hld_event_frame_minor(const hl_event_t *ev, unsigned minor, uint8_t *buf, size_t cap);
/* ev encoded into buf and queued to each connection of the list `conns`
 * that subscribed to a bit of `sub`. */
void hld_event_broadcast(hld_conn_t *conns, uint32_t sub, const hl_event_t *ev, uint8_t *buf,
                         size_t cap);

#endif /* HLD_REPLIES_H */
