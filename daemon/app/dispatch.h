/*
 * dispatch.h - the request handlers: one function per opcode, each decoding
 * its body with the proto codec, validating every field, acting on the
 * sound table or the mixer, and replying. Main thread only.
 */
#ifndef HLD_DISPATCH_H
#define HLD_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "hl_proto.h"

/* Handles one complete frame. Returns 0 (the connection stays, whatever the
 * request's outcome) or a negative code when the connection must be closed
 * after its replies are flushed (malformed body, version mismatch). */
int hld_dispatch(hld_conn_t *c, const hl_frame_hdr_t *h, const uint8_t *body, size_t len);

/* Queues an error answer to request (op, id): an EVENT_ERROR if the request
 * had HL_FLAG_NOREPLY, else a REPLY with the status and message. */
void hld_send_error(hld_conn_t *c, uint16_t op, uint16_t flags, uint32_t id, int status,
                    const char *msg);

/* Drops c's LOAD_DATA upload in progress, giving its memory back (close). */
void hld_upload_drop(hld_conn_t *c);
/* The upload sat idle HLD_UPLOAD_IDLE_MS: dropped, an ETIMEDOUT error (id 0). */
void hld_upload_timeout(hld_conn_t *c);
/* time_ops.c: installs the mixer's schedule hook (scheduled commands are
 * charged to their clients' ledger records). After hld_clients_init. */
void hld_time_init(hld_daemon_t *d);
/* time_ops.c: connection c is closing: the scheduled commands on its
 * non-detached voices are cancelled and no longer charged. */
void hld_time_conn_closed(hld_conn_t *c);

#endif /* HLD_DISPATCH_H */
