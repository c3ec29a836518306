/*
 * render_int.h - what the offline renderer's two inputs share (render.c): a
 * score (render.c) and a session capture (replay.c) both talk to the daemon
 * through in-process connections (one end of a socketpair accepted like any
 * client) and drive the same period loop.
 */
#ifndef HLD_RENDER_INT_H
#define HLD_RENDER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "daemon.h"
#include "hl_proto.h"

typedef struct hld_rconn hld_rconn_t;
/* A reply or event read on c (the renderer's error report runs first). */
typedef void (*hld_rconn_reply_fn)(void *user, hld_rconn_t *c, const hl_frame_hdr_t *h,
                                   const uint8_t *body, size_t len);

struct hld_rconn {
    hld_daemon_t *d;
    int fd;
    uint8_t in[2 * HL_MAX_FRAME];
    size_t in_len;
    uint32_t next_id;
    uint32_t waiting; /* requests sent whose reply has not come */
    int failed;       /* requests answered with an error */
    int quiet;        /* 1: errors are not printed (the replay compares them) */
    hld_rconn_reply_fn on_reply;
    void *user;
};

/* Opens c: a socketpair whose far end the daemon accepts (no HELLO sent).
 * Its peer is this process; hld_rconn_open_as charges it to process
 * `process` instead (0: one of its own), for a replay's recorded clients. */
int hld_rconn_open(hld_daemon_t *d, hld_rconn_t *c);
int hld_rconn_open_as(hld_daemon_t *d, hld_rconn_t *c, uint32_t process);
/* Sends one request (HL_FLAG_AT: at goes first); its id is c->next_id. */
int hld_rconn_send(hld_rconn_t *c, uint16_t op, uint16_t flags, uint64_t at, const uint8_t *body,
                   size_t len);
/* Reads what the daemon answered; -1 if the connection broke. */
int hld_rconn_read(hld_rconn_t *c);
/* Runs the loop until every request sent on c has its reply. */
int hld_rconn_wait(hld_rconn_t *c);
/* Closes c and runs the loop until the daemon has seen it go. */
void hld_rconn_close(hld_rconn_t *c);

/* The period loop's input. */
typedef struct {
    void *user;
    /* Sends what is due before the period [frame, until) renders. <0: stop. */
    int (*send_due)(void *user, uint64_t frame, uint64_t until);
    /* Reads every connection's replies (after each period). <0: stop. */
    int (*read)(void *user);
    /* 1 once nothing is left to send. */
    int (*sent_all)(void *user);
    uint64_t end;  /* the output ends at this frame; 0: once idle after `last` */
    uint64_t last; /* the last request's frame */
} hld_render_feed_t;

/* The virtual clock at frame 0 (before the first connection opens). */
void hld_render_clock_start(void);
/* Renders d->cfg.out from f. Returns 0, -1 on an I/O error, 4 when cut at
 * --max-seconds. */
int hld_render_loop(hld_daemon_t *d, const hld_render_feed_t *f);

#endif /* HLD_RENDER_INT_H */
