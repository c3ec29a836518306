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

/* Default socket path, the same one heliod listens on by default (both use
 * proto/hl_paths.h): $HELIOD_SOCKET, else $XDG_RUNTIME_DIR/heliod/heliod.sock,
 * else /tmp/heliod-$UID/heliod.sock. Writes into buf; returns 0 or HELIOD_EINVAL. */
int heliod_default_socket(char *buf, size_t cap);

typedef struct {
    uint32_t protocol_version;
    uint32_t rate, period, voices;
    uint32_t client_id;
    char server_version[64];
    uint32_t flags; /* HELIOD_CONNECT_* granted */
} heliod_server_info_t;

/* heliod_connect_flags: a control client (tools such as heliodctl, an
 * editor) may stop, change and pause every client's voices, unload every
 * shared sound, move every emitter, and uses the places the daemon keeps
 * above --max-clients. A game connects without it: its requests reach its
 * own voices, sounds and emitters only (see PROTOCOL.md, "Clients"). */
#define HELIOD_CONNECT_CONTROL 0x1u

/* Connects and performs the handshake. path NULL = heliod_default_socket().
 * client_name NULL = "libheliod". Blocking. On failure returns the daemon's own
 * code when it refused the connection (HELIOD_EBUSY "server full ...",
 * HELIOD_EHANDSHAKE for a handshake timeout or a peer of another user,
 * HELIOD_ESHUTDOWN), HELIOD_ECONNECT when nothing listens or the socket cannot
 * be reached, or another transport error; heliod_last_error(NULL) then gives
 * the message (the daemon's, or e.g. "cannot connect to PATH: Permission
 * denied"), per thread, until the next heliod_connect() of that thread.
 * A daemon of protocol 1.0 refuses this library's HELLO (its minor) with
 * HELIOD_EPROTO and closes: heliod_connect then connects again with the 1.0
 * HELLO and the connection speaks 1.0 (heliod_protocol_minor() 0). */
int heliod_connect(heliod_t **out, const char *path, const char *client_name);
/* heliod_connect with HELIOD_CONNECT_* flags. */
int heliod_connect_flags(heliod_t **out, const char *path, const char *client_name, uint32_t flags);
/* Flushes pending async requests (best effort), closes, frees. NULL is fine. */
void heliod_close(heliod_t *h);
const heliod_server_info_t *heliod_server_info(const heliod_t *h);
/* The protocol minor version the handshake agreed (the major is
 * heliod_server_info()->protocol_version): the lower of the daemon's and
 * this library's; 0 against a daemon of protocol 1.0. */
unsigned heliod_protocol_minor(const heliod_t *h);
/* Server's message for the last failed request (or a local one); never NULL.
 * h NULL: why this thread's last heliod_connect() failed ("no connection" if
 * it did not). */
const char *heliod_last_error(const heliod_t *h);
/* Timeout for blocking calls in ms (default 5000; <= 0 = wait forever). */
void heliod_set_timeout(heliod_t *h, int timeout_ms);

/* The areas of the API, one header each (installed alongside, included here
 * in this order: each may use the types of those before it). */
// clang-format off
#include "heliod_sounds.h"
#include "heliod_voice.h"
#include "heliod_graph.h"
#include "heliod_device.h"
#include "heliod_cues.h"
#include "heliod_events.h"
#include "heliod_assets.h"
#include "heliod_time.h"
#include "heliod_stream.h" /* client-fed streams */
#include "heliod_params.h"
// clang-format on

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
