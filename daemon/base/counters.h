/*
 * counters.h - the daemon's event counters (STATS): what the connection
 * layer and the request handlers count as they go. Main thread only.
 */
#ifndef HLD_COUNTERS_H
#define HLD_COUNTERS_H

#include <stdint.h>

typedef struct {
    uint64_t clients_total, clients_rejected, protocol_errors;
    uint64_t cmds_busy, voices_stolen, voices_refused;
    uint64_t clients_refused_uid; /* peers of another user (SO_PEERCRED), closed at accept */
    uint64_t denied;              /* EPERM: acts on another client's voice, sound or emitter */
    uint64_t detached_expired;    /* detached loops ended by --detached-loop-max-s */
    uint64_t fds_received;        /* descriptors received (SCM_RIGHTS) */
    uint64_t fds_closed;          /* of those, closed unconsumed (refused, disconnect) */
    uint64_t uploads_fd, uploads_chunked; /* uploads decoded: LOAD_FD, LOAD_DATA */
    uint64_t uploads_timed_out;           /* LOAD_DATA uploads dropped idle (HLD_UPLOAD_IDLE_MS) */
    uint64_t capture_unsure; /* captured requests the audio thread met mid-drain (dispatch.c) */
    uint64_t requests_late;  /* scheduled requests applied after their frame (dispatch.c) */
} hld_counters_t;

#endif /* HLD_COUNTERS_H */
