/*
 * replies.c - the answers to requests (see replies.h): encoded into the
 * connection layer's scratch frame (hld_conn_scratch) and copied into the
 * connection's output batch. Main thread only.
 */
#include "replies.h"

int hld_fail(hld_req_t *q, int status, const char *msg) {
    q->status = status;
    hld_send_error(q->c, q->h->op, q->h->flags, q->h->id, status, msg);
    return 0;
}

/* Starts a success reply in q->w (body follows). */
void hld_reply_begin(hld_req_t *q) {
    hl_wbuf_init(&q->w, hld_conn_scratch(), HL_MAX_FRAME);
    hl_frame_begin(&q->w, HL_OP_REPLY, 0, q->h->id);
    hl_reply_head_t rh = {.req_op = q->h->op, .status = 0};
    hl_put_reply_head(&q->w, &rh);
}

int hld_reply_end(hld_req_t *q) {
    if (q->h->flags & HL_FLAG_AT) { /* a scheduled request: how late it was, at the end */
        hl_put_u64(&q->w, q->late);
        if (q->w.len >= q->w.frame_start + 8) q->w.buf[q->w.frame_start + 6] |= HL_FLAG_AT;
    }
    int n = hl_frame_end(&q->w);
    if (n < 0) return hld_fail(q, HELIOD_ETOOBIG, "reply too large");
    hld_conn_send(q->c, hld_conn_scratch(), (size_t)n);
    return 0;
}

/* Success with an empty body (silent with NOREPLY). */
int hld_reply_ok(hld_req_t *q) {
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_reply_begin(q);
    return hld_reply_end(q);
}

/* 0 if the body was consumed exactly; else the EPROTO reply is queued. */
int hld_body_ok(hld_req_t *q) {
    if (hl_rbuf_finish(&q->r) == 0) return 1;
    q->c->net->n->protocol_errors++;
    hld_send_error(q->c, q->h->op, q->h->flags, q->h->id, HELIOD_EPROTO, "malformed request body");
    return 0;
}

int hld_reply_count(hld_req_t *q, uint32_t count) {
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hl_count_reply_t cr = {.count = count};
    hld_reply_begin(q);
    hl_put_count_reply(&q->w, &cr);
    return hld_reply_end(q);
}

void hld_list_begin(hld_list_t *l, hld_req_t *q) {
    l->q = q;
    hld_reply_begin(q);
    l->head_off = q->w.len;
    l->head = (hl_list_head_t){0, 0};
    hl_put_list_head(&q->w, &l->head);
}

/* Call after putting an entry; returns 0 to continue, 1 when full. */
int hld_list_entry_done(hld_list_t *l, size_t before) {
    hl_wbuf_t *w = &l->q->w;
    /* keep room for the frame to close */
    if (w->err || l->head.count >= HL_MAX_LIST) {
        w->len = before;
        w->err = 0;
        l->head.truncated = 1;
        return 1;
    }
    l->head.count++;
    return 0;
}

int hld_list_end(hld_list_t *l) {
    hl_wbuf_t *w = &l->q->w;
    size_t end = w->len;
    w->len = l->head_off;
    hl_put_list_head(w, &l->head);
    w->len = end;
    return hld_reply_end(l->q);
}

int hld_event_frame_minor(const hl_event_t *ev, unsigned minor, uint8_t *buf, size_t cap) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, cap);
    hl_frame_begin(&w, HL_OP_EVENT, 0, 0);
    hl_put_event_minor(&w, ev, minor);
    return hl_frame_end(&w);
}

int hld_event_frame(const hl_event_t *ev, uint8_t *buf, size_t cap) {
    return hld_event_frame_minor(ev, 0, buf, cap);
}

void hld_event_broadcast(hld_conn_t *conns, uint32_t sub, const hl_event_t *ev, uint8_t *buf,
                         size_t cap) {
    int n = hld_event_frame(ev, buf, cap);
    if (n > 0)
        for (hld_conn_t *c = conns; c; c = c->next)
            if (c->sub & sub) hld_conn_send(c, buf, (size_t)n);
}
