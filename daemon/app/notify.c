/*
 * notify.c - EVENT frames to subscribers (notify.h).
 */
#include "notify.h"

#include "replies.h"

void hld_notify_send(hld_conn_t *c, const hl_event_t *ev) {
    static uint8_t buf[HL_MAX_FRAME / 16]; /* events are small; main thread only */
    int n = hld_event_frame(ev, buf, sizeof buf);
    if (n > 0) hld_conn_send(c, buf, (size_t)n);
}

void hld_notify_watchers(hld_net_t *net, uint32_t owner, uint32_t bit, const hl_event_t *ev) {
    for (hld_conn_t *c = net->conns; c; c = c->next) {
        if (!(c->sub & bit)) continue;
        if ((owner && c->id == owner) || (c->sub & HL_SUB_ALL)) hld_notify_send(c, ev);
    }
}
