/*
 * dispatch_int.h - what a request handler needs, shared by dispatch.c and the
 * domain modules that own their opcodes (voice_ops.c, cue_ops.c,
 * emitter_ops.c): the opcode table, the permission rule, the reply helpers
 * of replies.h.
 *
 * A handler decodes its whole body first (hld_body_ok false: the EPROTO
 * reply is queued, return HLD_CLOSE_CONN), validates (an error reply via
 * hld_fail, the connection stays), then acts and replies. With
 * HL_FLAG_NOREPLY success is silent and failure becomes an EVENT_ERROR.
 * Main thread only.
 */
#ifndef HLD_DISPATCH_INT_H
#define HLD_DISPATCH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "daemon.h"
#include "hl_proto.h"
#include "ns.h"
#include "replies.h"

#define HLD_OPS 73 /* opcode table size: every request opcode is below it */

typedef int (*hld_op_fn)(hld_req_t *q);

/* The error reply "no KIND named NAME" with status (dispatch.c). */
int hld_fail_unknown(hld_req_t *q, int status, const char *kind, const char *name);

/* time_ops.c: mixer or voice-manager result -> error reply; counts EBUSY
 * and says which room ran out (hld_busy_msg). */
int hld_mixer_fail(hld_req_t *q, int rc);

/* param_ops.c */
int hld_op_param_def(hld_req_t *q);
int hld_op_param(hld_req_t *q);
int hld_op_params(hld_req_t *q);
int hld_op_bind(hld_req_t *q);

/* voice_play.c */
int hld_op_play(hld_req_t *q);
/* voice_ops.c */
int hld_op_stop(hld_req_t *q);
int hld_op_stop_all(hld_req_t *q);
int hld_op_set(hld_req_t *q);
int hld_op_pause(hld_req_t *q);
int hld_op_voices(hld_req_t *q);
/* music_ops.c: [music NAME] transitions */
int hld_op_music(hld_req_t *q);
/* stream_ops.c: client-fed streams */
int hld_op_stream(hld_req_t *q);
/* cue_ops.c */
int hld_op_cue(hld_req_t *q);
int hld_op_category(hld_req_t *q);
int hld_op_cues(hld_req_t *q);
int hld_op_cues_load(hld_req_t *q);
/* CUE_DETAIL (1.1): a cue's bindings, cone and attenuation curve, as set */
int hld_op_cue_detail(hld_req_t *q);
/* SHEET_KEYS (1.1): tempo maps and music sections, as cue-sheet lines */
int hld_op_sheet_keys(hld_req_t *q);
/* emitter_ops.c */
int hld_op_emitter(hld_req_t *q);
/* bus_ops.c */
int hld_op_bus(hld_req_t *q);
int hld_op_buses(hld_req_t *q);
int hld_op_fx(hld_req_t *q);
int hld_op_fx_list(hld_req_t *q);
int hld_op_duck(hld_req_t *q);
int hld_op_ducks(hld_req_t *q);
int hld_op_rzone(hld_req_t *q);
int hld_op_rzones(hld_req_t *q);
/* snapshot_ops.c */
int hld_op_snapshot(hld_req_t *q);
int hld_op_snapshots(hld_req_t *q);
/* SNAPSHOT_DETAIL (1.1): one snapshot's settings, as SNAPSHOT set them */
int hld_op_snapshot_detail(hld_req_t *q);
/* voice_ops.c */
int hld_op_cone(hld_req_t *q);
int hld_op_atten(hld_req_t *q);

/* capture_ops.c */
int hld_op_capture(hld_req_t *q);

/* asset_ops.c */
/* A request answered later, once its file work on the worker pool is done
 * (fileio.h): it holds the connection until hld_later_end. */
typedef struct {
    hld_conn_t *c;
    hl_frame_hdr_t h; /* op, flags, id of the request */
} hld_later_t;
void hld_later_begin(hld_later_t *l, const hld_req_t *q);
/* 1 if the connection is still open: q is set up to answer (hld_fail,
 * hld_reply_*); 0 if it closed meanwhile. */
int hld_later_req(hld_later_t *l, hld_req_t *q);
/* Sends what was answered and lets the connection go. */
void hld_later_end(hld_later_t *l);
int hld_op_bank(hld_req_t *q);
int hld_op_banks(hld_req_t *q);
int hld_op_zone(hld_req_t *q);
int hld_op_zones(hld_req_t *q);
/* time_ops.c: the clock, scheduled requests (HL_FLAG_AT) and bundles */
int hld_op_clock(hld_req_t *q);
int hld_op_bundle_begin(hld_req_t *q);
int hld_op_bundle_end(hld_req_t *q);
/* A request with HL_FLAG_AT: reads the frame, runs fn with the mixer's
 * commands scheduled for it. */
int hld_dispatch_at(hld_req_t *q, hld_op_fn fn);
/* A request arriving while c holds a bundle open: kept for BUNDLE_END. */
int hld_bundle_hold(hld_req_t *q);
/* While one of c's requests runs: its scheduled commands are charged to it
 * and limited to what its quota leaves (begin saves the mixer's previous
 * context in s, end restores it; they nest). */
typedef struct {
    int on;
    uint32_t charge, limit;
} hld_sched_ctx_t;
void hld_sched_begin(hld_conn_t *c, hld_sched_ctx_t *s);
void hld_sched_end(hld_conn_t *c, const hld_sched_ctx_t *s);
/* The message of an EBUSY from the mixer: the client's schedule quota, the
 * full schedule, or the full command ring. msg: scratch for the first. */
const char *hld_busy_msg(hld_conn_t *c, char *msg, size_t cap);

/* cues.h snap_fn (snapshot_ops.c): a cue sheet's [snapshot NAME] section as requests */
int hld_snapshot_sheet(void *user, uint32_t client, const hl_snapshot_t *m, int check, char *msg,
                       size_t cap);

/* capture_ops.c: starts the session capture into path (capture.h; fd: the
 * file opened, or -1) with this daemon's rate, period, channels, clock and
 * the cues' random state; NULL on failure (fd is not taken). */
struct hld_capture *hld_capture_begin(hld_daemon_t *d, const char *path, int fd, int include_audio);
/* voice_ops.c: what VOICES lists of logical voice lv (handle voice). */
void hld_voice_describe(hld_daemon_t *d, uint64_t voice, const hld_lvoice_t *lv,
                        hl_voice_info_t *out);
/* capture_state.c: the state preamble of a capture started on a running
 * daemon (after its connections' HELLOs, before its first live record):
 * the STATE records that recreate what was defined before it. Returns
 * how many. */
uint32_t hld_capture_state(hld_daemon_t *d, uint64_t frame);

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

#endif /* HLD_DISPATCH_INT_H */
