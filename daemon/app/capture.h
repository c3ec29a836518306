/*
 * capture.h - the session capture (heliod --capture FILE): every request that
 * changes engine state, from every client, with its client id, the engine
 * frame of its dispatch and its status, written to FILE by a thread of its
 * own (format: proto/PROTOCOL.md, "Capture files").
 *
 * hld_capture_request is called on the main thread after a request's handler
 * ran; it copies the frame into a bounded queue (HLD_CAPTURE_QUEUE_BYTES) and
 * never waits for the disk: a record that does not fit is dropped and counted
 * (stats capture_dropped; the file's trailer says how many). The writer
 * opens the file (a regular file only), writes the records and, after a
 * LOAD, the identity of the file it named (size, mtime, FNV-1a 64 hash; the
 * bytes themselves with include_audio). The audio thread is not involved.
 */
#ifndef HLD_CAPTURE_H
#define HLD_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_capfile.h"
#include "hl_proto.h"

/* the file's layout: ctl_capfile.h, its reader */
#define HLD_CAPTURE_MAGIC        CTL_CAP_MAGIC /* 8 bytes */
#define HLD_CAPTURE_VERSION      CTL_CAP_VERSION
#define HLD_CAPTURE_HDR          CTL_CAP_HDR
#define HLD_CAPTURE_QUEUE_BYTES  (8u << 20)
#define HLD_CAPTURE_REC_REQUEST  CTL_CAP_REQUEST
#define HLD_CAPTURE_REC_SOUND    CTL_CAP_SOUND
#define HLD_CAPTURE_REC_TRAILER  CTL_CAP_TRAILER
#define HLD_CAPTURE_REC_REPLY    CTL_CAP_REPLY    /* after its REQUEST: the voice its reply named */
#define HLD_CAPTURE_REC_SESSION  CTL_CAP_SESSION  /* first: period, channels, random state */
#define HLD_CAPTURE_REC_CLOSE    CTL_CAP_CLOSE    /* a connection closed */
#define HLD_CAPTURE_REC_PROCESS  CTL_CAP_PROCESS  /* after a HELLO: its process */
#define HLD_CAPTURE_REC_MREPLY   CTL_CAP_MREPLY   /* after its MUSIC: the voice its reply named */
#define HLD_CAPTURE_REQ_INPERIOD CTL_CAP_INPERIOD /* REQUEST: applies from frame + period */
#define HLD_CAPTURE_REQ_LATE     CTL_CAP_LATE     /* REQUEST: scheduled, applied after its frame */
#define HLD_CAPTURE_REQ_OPEN     CTL_CAP_OPEN     /* REQUEST: a HELLO written at the start */
#define HLD_CAPTURE_REQ_STATE    CTL_CAP_STATE    /* REQUEST: the state preamble's */
#define HLD_CAPTURE_SOUND_NOFILE CTL_CAP_NOFILE   /* the file could not be read */
#define HLD_CAPTURE_SOUND_AUDIO  CTL_CAP_AUDIO    /* the file's bytes follow */

typedef struct hld_capture hld_capture_t;

/* Starts the writer on path (opened by the writer; an open error is logged
 * and counted as the capture failing: every record is dropped). NULL on
 * allocation or thread failure. */
typedef struct {
    uint32_t rate, period, channels;
    uint64_t frame; /* the engine frame the capture starts on */
    uint64_t rng;   /* the cues' random state then */
} hld_capture_session_t;
/* fd: the file, opened for writing (CAPTURE opens it on a file job), or
 * -1: the writer opens path itself (--capture). */
hld_capture_t *hld_capture_start(const char *path, int fd, int include_audio,
                                 const hld_capture_session_t *s);
/* Opens path for a capture as the writer would (write, create, truncate,
 * never blocking on a FIFO; a regular file only): the fd, or -1 with errno. */
int hld_capture_open(const char *path);
/* Queues one request record (main thread): flags HLD_CAPTURE_REQ_*; voice:
 * the voice handle its reply named (a PLAY's: a REPLY record; a MUSIC's:
 * MREPLY), 0 for none. A record with
 * HLD_CAPTURE_REQ_OPEN or _STATE is not counted among the requests captured. */
void hld_capture_request(hld_capture_t *cap, uint64_t frame, uint32_t flags, uint32_t client,
                         int32_t status, uint64_t voice, const hl_frame_hdr_t *h,
                         const uint8_t *body, size_t len);
/* Queues a CLOSE record: connection `client` closed at `frame` (flags:
 * HLD_CAPTURE_REQ_INPERIOD as a request's) (main thread). */
void hld_capture_close(hld_capture_t *cap, uint64_t frame, uint32_t flags, uint32_t client);
/* Queues a PROCESS record (main thread, after a HELLO's): connection
 * `client` is of process `process` (its peer's pid; 0: unknown), so that a
 * replay charges the connections of one process to one quota account. */
void hld_capture_process(hld_capture_t *cap, uint32_t client, uint32_t process);
/* The engine frame the capture ended on, for the trailer (main thread,
 * before hld_capture_end). */
void hld_capture_set_end(hld_capture_t *cap, uint64_t frame);
/* Records dropped so far (main thread). */
uint64_t hld_capture_dropped(const hld_capture_t *cap);
/* Request records queued so far (main thread). */
uint64_t hld_capture_records(const hld_capture_t *cap);
/* Ends the capture without waiting: no more records; the writer drains
 * the queue, writes the trailer and closes the file on its own. */
void hld_capture_end(hld_capture_t *cap);
/* Waits for an ended capture's writer and frees cap. */
void hld_capture_join(hld_capture_t *cap);
/* hld_capture_end, then hld_capture_join. */
void hld_capture_stop(hld_capture_t *cap);
/* 1 if a request with this opcode may change engine state (is captured). */
int hld_capture_op(uint16_t op);

#endif
