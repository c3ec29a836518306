/*
 * heliod_core.h - the inside of libheliod's transport core, shared by its two
 * files alone: heliod_core.c (framing, the output batch, the input and the
 * deferred queue, request/reply matching, async dispatch) and heliod_conn.c
 * (connect, handshake, close). Everything else in the library sees the
 * connection as an opaque heliod_t through heliod_int.h.
 */
#ifndef HELIOD_CORE_H
#define HELIOD_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "heliod.h"
#include "heliod_int.h"
#include "hl_proto.h"

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

    hlc_event_sink_fn ev_sink; /* heliod_events.c's, with the application's callback */
    heliod_event_fn ev_fn;
    void *ev_user;

    /* the reply a blocking call waits for */
    uint32_t wait_id;
    int wait_done;
    uint8_t *reply; /* body copy, HL_MAX_FRAME bytes */
    size_t reply_len;

    /* time (heliod_time.c, through hlc_at_frame & co.) */
    uint64_t at_frame;  /* schedulable requests carry HL_FLAG_AT and this frame; 0 = none */
    uint64_t last_late; /* the late-frames trailer of the last scheduled reply taken */
    int in_bundle;      /* between heliod_bundle_begin and _end: blocking calls refused */
    int req_async;      /* the request being begun is an async one */
};

/* Reads what the socket has and splits it into frames: >= 0 or error. */
int hlc_in_read(heliod_t *h);
/* Writes and reads until the awaited reply arrived or timeout_ms passed. */
int hlc_pump(heliod_t *h, int timeout_ms);
/* Takes the oldest deferred frame (the caller frees it), or NULL. */
deferred_t *hlc_dq_pop(heliod_t *h);

#endif /* HELIOD_CORE_H */
