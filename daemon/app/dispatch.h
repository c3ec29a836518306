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
 * back, the owner sweep (main.c gives it to conn.c). */
extern const hld_conn_hooks_t hld_dispatch_hooks;

/* cues.h snap_fn (snapshot_ops.c): a cue sheet's [snapshot NAME] section as requests */
int hld_snapshot_sheet(void *user, uint32_t client, const hl_snapshot_t *m, int check, char *msg,
                       size_t cap);

/* capture_ops.c: starts the session capture into path (capture.h; fd: the
 * file opened, or -1) with this daemon's rate, period, channels, clock and
 * the cues' random state; NULL on failure (fd is not taken). */
struct hld_capture *hld_capture_begin(hld_daemon_t *d, const char *path, int fd, int include_audio);

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
/* owners.c: plain connection c is closing: its objects move to another
 * connection of its process, or (its process has gone) are reclaimed. */
void hld_owners_conn_closing(hld_conn_t *c);
/* owners.c: releases what a gone process left once no voice needs it
 * (every poll; works at most every HLD_RECLAIM_MS while some is pending). */
void hld_owners_sweep(hld_daemon_t *d, uint64_t now_ns);

#endif /* HLD_DISPATCH_H */
