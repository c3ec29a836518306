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

/* The connection layer's calls upward: hld_dispatch, the upload's
 * timeout, the closing connection's uploads and scheduled commands given
 * back, the owner sweep (main.c gives it to conn.c). The handlers' own
 * calls are in dispatch_int.h. */
extern const hld_conn_hooks_t hld_dispatch_hooks;

/* Drops c's LOAD_DATA upload in progress, giving its memory back (close). */
void hld_upload_drop(hld_conn_t *c);
/* The upload sat idle HLD_UPLOAD_IDLE_MS: dropped, an ETIMEDOUT error (id 0). */
void hld_upload_timeout(hld_conn_t *c);
#endif /* HLD_DISPATCH_H */
