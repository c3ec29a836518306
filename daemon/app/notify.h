/*
 * notify.h - EVENT frames to the connections that subscribed to them: the
 * one way the handlers and the ticks (voice ends, music beats, client-fed
 * streams) reach a subscriber. Below every file that sends events, so that
 * none of them needs the event loop's (events.c, loop.c). Main thread only.
 */
#ifndef HLD_NOTIFY_H
#define HLD_NOTIFY_H

#include <stdint.h>

#include "conn.h"
#include "hl_proto.h"

/* Queues an EVENT frame for c. */
void hld_notify_send(hld_conn_t *c, const hl_event_t *ev);
/* ev (of subscription bit `bit`, HL_SUB_*) to the connection with id owner
 * (0: none) if it subscribed bit, and to every connection that subscribed
 * bit with HL_SUB_ALL (each at most once). */
void hld_notify_watchers(hld_net_t *net, uint32_t owner, uint32_t bit, const hl_event_t *ev);

#endif /* HLD_NOTIFY_H */
