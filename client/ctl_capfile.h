/*
 * ctl_capfile.h - reading a session capture (PROTOCOL.md "Capture files"),
 * shared by heliod --render CAPTURE (daemon/app/replay.c) and heliodctl
 * replay (ctl_replay.c): the records of a file read whole, the identity
 * check of a LOADed file against its SOUND record, and the rewrite of the
 * voice handles a request names.
 */
#ifndef CTL_CAPFILE_H
#define CTL_CAPFILE_H

#include <stddef.h>
#include <stdint.h>

#define CTL_CAP_MAGIC     "HLDCAPT\n"
#define CTL_CAP_HDR       32
#define CTL_CAP_VERSION   2
#define CTL_CAP_REQUEST   1
#define CTL_CAP_SOUND     2
#define CTL_CAP_TRAILER   3
#define CTL_CAP_REPLY     4
#define CTL_CAP_SESSION   5
#define CTL_CAP_CLOSE     6
#define CTL_CAP_PROCESS   7    /* after a HELLO: the process the connection was of */
#define CTL_CAP_MREPLY    8    /* after a MUSIC: the voice its reply named (as REPLY) */
#define CTL_CAP_INPERIOD  0x1u /* REQUEST flags */
#define CTL_CAP_LATE      0x2u /* a scheduled request applied after its frame: at `frame` */
#define CTL_CAP_OPEN      0x4u /* a HELLO of a connection open before the capture started */
#define CTL_CAP_STATE     0x8u /* the state preamble: a definition made before it started */
#define CTL_CAP_NOFILE    0x1u /* SOUND flags */
#define CTL_CAP_AUDIO     0x2u
#define CTL_CAP_MAX_BYTES (4ull << 30) /* a capture read whole: 4 GiB at most */

typedef struct {
    uint16_t version;
    uint32_t rate;
    uint64_t frame; /* the engine frame the capture started on */
} ctl_cap_hdr_t;

/* One record. REQUEST: frame, flags, time_ns, client, status, req/req_len
 * (the wire frame); REPLY, MREPLY: voice; SESSION: period, channels, rng; CLOSE:
 * frame, client; PROCESS: client, process; SOUND: frame, client, flags, size, mtime_ns, hash,
 * path/path_len, audio (size bytes, or NULL); TRAILER: records, dropped,
 * bytes, end (0 if the file is of version 1). */
typedef struct {
    uint8_t kind, flags;
    uint64_t frame, time_ns;
    uint32_t client;
    int32_t status;
    const uint8_t *req;
    uint32_t req_len;
    uint64_t voice;
    uint32_t period, channels, process;
    uint64_t rng;
    uint64_t size, hash;
    int64_t mtime_ns;
    const char *path;
    uint16_t path_len;
    const uint8_t *audio;
    uint64_t records, dropped, bytes, end;
} ctl_cap_rec_t;

#define CTL_CAP_RANK_MS 20 /* the voice manager's ranking grid (HLD_VM_TICK_MS) */

/* The little-endian unsigned integer of `bytes` bytes at p. */
uint64_t ctl_cap_le(const uint8_t *p, int bytes);
/* The frames a replay's start may move by and keep every frame's place
 * on the periods and the ranking grid: their least common multiple. */
uint64_t ctl_cap_grid(uint32_t rate, uint32_t period);
/* The whole capture at path (a regular file of at most CTL_CAP_MAX_BYTES,
 * never a FIFO; format 1 or 2: a replay needs 2) into *buf (malloc'd) and
 * its header. 0, or -1 with why. */
int ctl_cap_read(const char *path, uint8_t **buf, size_t *n, ctl_cap_hdr_t *h, char *why,
                 size_t cap);
/* The record at *off (then past it): 1, 0 at the end, -1 cut short. A kind
 * it does not know comes back with only `kind` set (skip it). */
int ctl_cap_next(const uint8_t *f, size_t n, size_t *off, ctl_cap_rec_t *r);
/* FNV-1a 64 of p, from h (start: CTL_CAP_FNV0). */
#define CTL_CAP_FNV0 1469598103934665603ull
uint64_t ctl_cap_fnv(uint64_t h, const uint8_t *p, size_t n);
/* The file at path is the one a SOUND record names: 0, or -1 with why (its
 * size or content differs, it cannot be read). *mtime_differs: the same
 * bytes with another mtime. */
int ctl_cap_check_sound(const ctl_cap_rec_t *s, const char *path, int *mtime_differs, char *why,
                        size_t cap);
/* Rewrites the voice handles the body of a request of op names (STOP, SET,
 * PARAM voice scope, CONE and ATTEN voice targets, a stinger's sync_voice)
 * through map: 1 with the new body in out (HL_MAX_FRAME bytes), 0 if none
 * changed. */
typedef uint64_t (*ctl_cap_map_fn)(void *user, uint64_t voice);
int ctl_cap_remap(uint16_t op, const uint8_t *body, size_t len, ctl_cap_map_fn map, void *user,
                  uint8_t *out, size_t *out_len);

#endif /* CTL_CAPFILE_H */
