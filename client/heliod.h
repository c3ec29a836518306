/*
 * heliod.h - libheliod, the C client library of the heliod audio daemon.
 *
 * A connection is a heliod_t. It is not thread-safe: use one connection per
 * thread, or serialise calls. Two ways to use it:
 *
 *  - Blocking: every request function sends its request and waits for the
 *    reply (events that arrive meanwhile are queued for the event callback).
 *  - Non-blocking: the *_async functions only append the request to an
 *    output batch and return at once; heliod_flush() writes the batch,
 *    heliod_fd() gives a descriptor to poll for input, and heliod_dispatch()
 *    reads what has arrived and invokes the reply and event callbacks. A game
 *    calls heliod_dispatch() once per frame.
 *
 * Every function returns 0 (or a count), or a negative heliod_errno_t code;
 * heliod_strerror() gives its message and heliod_last_error() the server's
 * own message for the last failed request on that connection.
 */
#ifndef HELIOD_H
#define HELIOD_H

#include <stddef.h>
#include <stdint.h>

#include "heliod_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HELIOD_VERSION_STRING "0.1.0"

typedef struct heliod heliod_t;
typedef uint64_t heliod_voice_t; /* 0 is never a valid voice */

/* Message for any heliod_errno_t code; never NULL. */
const char *heliod_strerror(int err);

/* Default socket path: $HELIOD_SOCKET, else $XDG_RUNTIME_DIR/heliod/heliod.sock,
 * else /tmp/heliod-$UID/heliod.sock. Writes into buf; returns 0 or HELIOD_EINVAL. */
int heliod_default_socket(char *buf, size_t cap);

typedef struct {
    uint32_t protocol_version;
    uint32_t rate, period, voices;
    uint32_t client_id;
    char server_version[64];
} heliod_server_info_t;

/* Connects and performs the handshake. path NULL = heliod_default_socket().
 * client_name NULL = "libheliod". Blocking. */
int heliod_connect(heliod_t **out, const char *path, const char *client_name);
/* Flushes pending async requests (best effort), closes, frees. NULL is fine. */
void heliod_close(heliod_t *h);
const heliod_server_info_t *heliod_server_info(const heliod_t *h);
/* Server's message for the last failed request (or a local one); never NULL. */
const char *heliod_last_error(const heliod_t *h);
/* Timeout for blocking calls in ms (default 5000; <= 0 = wait forever). */
void heliod_set_timeout(heliod_t *h, int timeout_ms);

/* ---- sounds ---- */
/* HELIOD_LOAD_STREAM: open and validate now, decode while playing (music,
 * long sounds): each voice gets its own decoder position and a small ring. */
#define HELIOD_LOAD_STREAM 0x1u
typedef struct {
    char name[64];
    uint32_t frames; /* at the engine rate */
    uint32_t channels;
    uint32_t source_rate;
    uint32_t flags;
    uint32_t playing;
} heliod_sound_info_t;
int heliod_ping(heliod_t *h, uint64_t *server_time_ns);
/* Decodes path (any format libsndfile reads) into a named sound. info may be NULL. */
int heliod_load(heliod_t *h, const char *name, const char *path, uint32_t flags,
                heliod_sound_info_t *info);
int heliod_unload(heliod_t *h, const char *name);
/* Fills up to cap entries; *count = entries filled. Returns 0 or 1 if the
 * server's list was truncated, or an error. */
int heliod_sounds(heliod_t *h, heliod_sound_info_t *arr, size_t cap, size_t *count);

/* ---- voices ---- */
#define HELIOD_PLAY_LOOP        0x1u
#define HELIOD_PLAY_3D          0x2u
#define HELIOD_PLAY_DETACHED    0x4u
#define HELIOD_PLAY_PAUSED      0x8u
#define HELIOD_PLAY_CUBIC       0x10u /* 4-point cubic interpolation (default: linear) */
#define HELIOD_DIST_LINEAR      0
#define HELIOD_DIST_INVERSE     1
#define HELIOD_DIST_EXPONENTIAL 2
typedef struct {
    uint32_t flags;
    float gain_db;                             /* default 0 */
    float pan;                                 /* default 0 (centre) */
    float pos[3];                              /* used with HELIOD_PLAY_3D */
    float pitch;                               /* default 1 */
    int32_t priority;                          /* default 0 */
    float fade_in_ms;                          /* default -1 = the server's short anti-click fade */
    float min_distance, max_distance, rolloff; /* default 1, 100, 1 */
    int distance_model;                        /* default HELIOD_DIST_INVERSE */
    char bus[64];                              /* default "" = "sfx" */
    /* Loop region in frames at the sound's SOURCE rate (0/0 = whole sound),
     * used with HELIOD_PLAY_LOOP: loop_count 0 = forever, N = N extra passes
     * then on to the end. loop_xfade_ms: crossfade at the loop end (preloaded
     * and streamed sounds; 0 = sample-exact). Defaults 0. */
    uint32_t loop_start, loop_end, loop_count;
    float loop_xfade_ms;
} heliod_play_params_t;
void heliod_play_params_init(heliod_play_params_t *p);

/* Blocking play: *voice gets the handle (stolen may be NULL). */
int heliod_play(heliod_t *h, const char *sound, const heliod_play_params_t *p,
                heliod_voice_t *voice, heliod_voice_t *stolen);
int heliod_stop(heliod_t *h, heliod_voice_t voice, float fade_ms);
/* Stops every voice this connection started (everyone = 0) or every voice of
 * every client (everyone = 1); *count (may be NULL) gets how many. */
int heliod_stop_all(heliod_t *h, float fade_ms, int everyone, uint32_t *count);

#define HELIOD_SET_GAIN   0x1u
#define HELIOD_SET_PAN    0x2u
#define HELIOD_SET_POS    0x4u
#define HELIOD_SET_PITCH  0x8u
#define HELIOD_SET_PAUSE  0x10u /* fade out over ramp_ms, then hold (fades do not advance) */
#define HELIOD_SET_RESUME 0x20u /* fade back in */
#define HELIOD_SET_SEEK   0x40u /* jump to seek_s seconds, click-free (preloaded or streamed) */
typedef struct {
    uint32_t mask;
    float gain_db, pan, pos[3], pitch;
    float ramp_ms; /* every change ramps over this (default 0 = the server's one-block ramp) */
    double seek_s; /* HELIOD_SET_SEEK: position in seconds from the sound's start */
} heliod_voice_set_t;
int heliod_set(heliod_t *h, heliod_voice_t voice, const heliod_voice_set_t *s);
/* Pauses (pause = 1) or resumes (0) every voice this connection started
 * (everyone = 0) or every voice of every client (1); *count (may be NULL)
 * gets how many changed. Blocking. */
int heliod_pause_all(heliod_t *h, int pause, int everyone, uint32_t *count);

#define HELIOD_LIS_POS 0x1u
#define HELIOD_LIS_FWD 0x2u
#define HELIOD_LIS_UP  0x4u
#define HELIOD_LIS_VEL 0x8u
typedef struct {
    uint32_t mask;
    float pos[3], fwd[3], up[3], vel[3];
} heliod_listener_t;
int heliod_set_listener(heliod_t *h, const heliod_listener_t *l);

/* Bus gain ("sfx", "music", "dialog", "ui", "master"). */
int heliod_bus_gain(heliod_t *h, const char *bus, float gain_db, float ramp_ms);

#define HELIOD_VOICE_PLAYING  0
#define HELIOD_VOICE_STOPPING 1
#define HELIOD_VOICE_PAUSED   2
#define HELIOD_VOICE_VIRTUAL  3
typedef struct {
    heliod_voice_t voice;
    char sound[64];
    uint32_t owner;
    int32_t priority;
    uint32_t flags;
    uint32_t state;
    float gain_db, pan, pos[3], pitch;
    char bus[64];
} heliod_voice_info_t;
int heliod_voices(heliod_t *h, heliod_voice_info_t *arr, size_t cap, size_t *count);

typedef struct {
    uint32_t index;
    char name[256];
    char hostapi[64];
    uint32_t max_channels;
    double default_rate;
    uint32_t flags; /* 1 = default, 2 = in use */
} heliod_device_info_t;
int heliod_devices(heliod_t *h, heliod_device_info_t *arr, size_t cap, size_t *count);

typedef struct {
    char key[64];
    double value;
} heliod_stat_t;
/* Statistics as key/value pairs (keys listed in proto/PROTOCOL.md). reset = 1
 * restarts the callback-time histogram after reading. */
int heliod_stats(heliod_t *h, heliod_stat_t *arr, size_t cap, size_t *count, int reset);

/* ---- events ---- */
#define HELIOD_SUB_ENDED   0x1u
#define HELIOD_SUB_STARTED 0x2u
#define HELIOD_SUB_ALL     0x4u /* events of every client's voices, not only this connection's */
int heliod_subscribe(heliod_t *h, uint32_t mask);

#define HELIOD_EVENT_ERROR   1
#define HELIOD_EVENT_ENDED   2
#define HELIOD_EVENT_STARTED 3
#define HELIOD_END_FINISHED  0
#define HELIOD_END_STOPPED   1
#define HELIOD_END_STOLEN    2
#define HELIOD_END_OWNER     3
#define HELIOD_END_SHUTDOWN  4
typedef struct {
    int type;
    uint32_t request_id; /* the request it answers (ERROR), or 0 */
    int status;          /* ERROR: the heliod_errno_t code */
    const char *message; /* ERROR: the server's message; valid during the callback */
    heliod_voice_t voice;
    int reason;       /* ENDED: HELIOD_END_* */
    uint64_t time_ns; /* STARTED: server CLOCK_MONOTONIC when its first block was mixed */
} heliod_event_t;
typedef void (*heliod_event_fn)(void *user, const heliod_event_t *ev);
void heliod_set_event_callback(heliod_t *h, heliod_event_fn fn, void *user);

/* ---- non-blocking use ---- */

/* Descriptor to poll for POLLIN (and POLLOUT while heliod_pending() > 0). */
int heliod_fd(const heliod_t *h);
/* Bytes of batched requests not yet written. */
size_t heliod_pending(const heliod_t *h);
/* Writes the batch without blocking as far as the socket takes it.
 * Returns 0 when all is written, 1 if some remains, or an error. */
int heliod_flush(heliod_t *h);
/* Flushes, reads whatever has arrived without blocking, and invokes the reply
 * and event callbacks. Returns the number of frames handled, or an error
 * (HELIOD_ECLOSED if the daemon went away). */
int heliod_dispatch(heliod_t *h);

/* Async requests: appended to the batch (flushed automatically when it
 * exceeds 64 KiB). They return the request id (> 0) or an error. With a NULL
 * reply callback the request is fire-and-forget: success is silent and a
 * failure arrives as a HELIOD_EVENT_ERROR carrying the request id. */
typedef struct {
    uint32_t request_id;
    int status;            /* 0 or heliod_errno_t */
    const char *message;   /* on error */
    heliod_voice_t voice;  /* play */
    heliod_voice_t stolen; /* play */
} heliod_reply_t;
typedef void (*heliod_reply_fn)(void *user, const heliod_reply_t *r);
int heliod_play_async(heliod_t *h, const char *sound, const heliod_play_params_t *p,
                      heliod_reply_fn fn, void *user);
int heliod_stop_async(heliod_t *h, heliod_voice_t voice, float fade_ms);
int heliod_set_async(heliod_t *h, heliod_voice_t voice, const heliod_voice_set_t *s);
int heliod_set_listener_async(heliod_t *h, const heliod_listener_t *l);
/* Low-level escape hatch (heliodctl's pipelined batch uses it): appends a
 * request with an already-encoded body (proto/PROTOCOL.md layouts) to the
 * batch. fn receives status 0 and the op-specific reply body (after the reply
 * head; valid during the callback only), or an error status and the server's
 * message with body NULL. With fn NULL the request is sent NOREPLY. Returns the
 * request id (> 0) or an error (HELIOD_EBADOP for HELLO, REPLY, EVENT or an
 * unknown op). Same thread rules as the other async calls. */
typedef void (*heliod_raw_fn)(void *user, uint32_t request_id, int status, const char *message,
                              const uint8_t *body, size_t len);
int heliod_raw_async(heliod_t *h, uint16_t op, const void *body, size_t len, heliod_raw_fn fn,
                     void *user);

/* Blocks until every async request sent so far has been answered or failed:
 * sends a PING, waits for its reply, delivers every reply and event that came
 * before it, then keeps reading until no reply callback is outstanding (the
 * daemon may answer a LOAD after later requests). Returns 0, HELIOD_ETIMEDOUT
 * after the connection's timeout, or a connection error. */
int heliod_sync(heliod_t *h);

#ifdef __cplusplus
}
#endif

#endif /* HELIOD_H */
