/*
 * heliod_conn.c - libheliod's connection: the default socket, connect and the
 * HELLO handshake (the protocol minor both sides speak), close, and the
 * per-connection settings and facts. Part of the transport core: it shares
 * heliod_core.h with heliod_core.c.
 */
#include "heliod_core.h"

#include "hl_paths.h"
#include "hl_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int heliod_default_socket(char *buf, size_t cap) {
    /* the daemon computes its default with the same function */
    return hl_default_socket_path(buf, cap, NULL) == 0 ? 0 : HELIOD_EINVAL;
}

/* Why the last heliod_connect() of this thread failed: heliod_last_error(NULL). */
static _Thread_local char g_connect_error[HL_MAX_MSG + 1];

static int connect_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int connect_error(int err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_connect_error, sizeof g_connect_error, fmt, ap);
    va_end(ap);
    return err;
}

static void free_all(heliod_t *h) {
    deferred_t *d;
    while ((d = hlc_dq_pop(h)))
        free(d);
    free(h->out);
    free(h->in);
    free(h->reply);
    free(h->pend);
    free(h);
}

/* The handshake failed on the transport (the daemon closed): it may have said
 * why first, in an error reply with request id 0 (server full, handshake
 * timeout, peer refused), possibly before it read our HELLO. Reads what is
 * left and returns that reply's code (message in last_error), else err. */
static int handshake_refusal(heliod_t *h, int err) {
    h->wait_id = 0;
    hlc_in_read(h); /* the connection is already failed: only collects frames */
    for (deferred_t *d = h->dq_head; d; d = d->next) {
        if (d->hdr.op != HL_OP_REPLY || d->hdr.id != 0) continue;
        hl_rbuf_t r;
        hl_rbuf_init(&r, d->body, d->len);
        hl_reply_head_t head;
        hl_get_reply_head(&r, &head);
        char msg[HL_MAX_MSG + 1];
        hl_get_str(&r, msg, sizeof msg);
        if (hl_rbuf_finish(&r) < 0 || head.status >= 0) continue;
        return hlc_set_error(h, head.status, msg[0] ? msg : NULL);
    }
    return err;
}

_Static_assert(HELIOD_CONNECT_CONTROL == HL_HELLO_CONTROL, "connect flags are HELLO's");

int heliod_connect(heliod_t **out, const char *path, const char *client_name) {
    return heliod_connect_flags(out, path, client_name, 0);
}

/* A daemon of protocol 1.0 (commit 4550bf8) reads HELLO to its 1.0 end
 * (version, client_name, flags) and refuses a longer body: it answers our
 * HELLO with EPROTO ("malformed request body") and closes the connection.
 * Such a reply to our HELLO (a decode error of ours never fills h->reply)
 * says: dial again with a 1.0 HELLO. */
static int refused_as_1_0(const heliod_t *h) {
    if (h->reply_len == 0) return 0;
    hl_rbuf_t r;
    hl_rbuf_init(&r, h->reply, h->reply_len);
    hl_reply_head_t head;
    hl_get_reply_head(&r, &head);
    return !r.err && head.req_op == HL_OP_HELLO && head.status == HELIOD_EPROTO;
}

/* One connection and handshake, HELLO with `minor` (0: the 1.0 body, no
 * minor). *old_daemon = 1 when a 1.0 daemon refused the minor. */
static int dial(heliod_t **out, const char *path, const char *client_name, uint32_t flags,
                uint16_t minor, int *old_daemon) {
    struct sockaddr_un sa;
    heliod_t *h = calloc(1, sizeof *h);
    if (!h) return connect_error(HELIOD_ENOMEM, "out of memory");
    h->fd = -1;
    h->timeout_ms = CLIENT_DEFAULT_TIMEOUT_MS;
    h->next_id = 1;
    h->in = malloc(CLIENT_IN_CAP);
    h->reply = malloc(HL_MAX_FRAME);
    if (!h->in || !h->reply) {
        free_all(h);
        return connect_error(HELIOD_ENOMEM, "out of memory");
    }
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    h->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (h->fd < 0) {
        free_all(h);
        return connect_error(HELIOD_ECONNECT, "socket: %s", strerror(errno));
    }
    int rc;
    do {
        rc = connect(h->fd, (struct sockaddr *)&sa, sizeof sa);
    } while (rc < 0 && errno == EINTR);
    if (rc < 0 || fcntl(h->fd, F_SETFL, fcntl(h->fd, F_GETFL) | O_NONBLOCK) < 0) {
        int e = errno;
        close(h->fd);
        free_all(h);
        return connect_error(HELIOD_ECONNECT, "cannot connect to %s: %s", path, strerror(e));
    }

    hl_wbuf_t w;
    uint32_t id;
    hl_hello_t hello = {.version = HL_PROTO_VERSION, .flags = flags, .minor = minor};
    snprintf(hello.client_name, sizeof hello.client_name, "%s", client_name);
    hlc_req_begin(h, &w, HL_OP_HELLO, 0, &id);
    hl_put_hello(&w, &hello);
    rc = hlc_req_end(h, &w);
    hl_rbuf_t r;
    if (rc == 0) rc = hlc_wait_reply(h, id, HL_OP_HELLO, &r);
    if (rc == HELIOD_EPROTO && minor && refused_as_1_0(h)) *old_daemon = 1;
    if (rc == HELIOD_ECLOSED || rc == HELIOD_EPROTO || (rc < 0 && h->closed))
        rc = handshake_refusal(h, rc);
    if (rc == 0) {
        hl_hello_reply_t hr;
        hl_get_hello_reply(&r, &hr);
        rc = hlc_reply_done(h, &r);
        if (rc == 0) {
            h->info.protocol_version = hr.version;
            /* the reply's minor is the daemon's (absent: a 1.0 daemon): we speak the lower */
            h->proto_minor = hr.minor < HL_PROTO_MINOR ? hr.minor : HL_PROTO_MINOR;
            h->info.rate = hr.rate;
            h->info.period = hr.period;
            h->info.voices = hr.voices;
            h->info.client_id = hr.client_id;
            h->info.flags = hr.flags;
            snprintf(h->info.server_version, sizeof h->info.server_version, "%s",
                     hr.server_version);
        }
    }
    if (rc < 0) {
        snprintf(g_connect_error, sizeof g_connect_error, "%s", h->last_error);
        close(h->fd);
        free_all(h);
        return rc;
    }
    *out = h;
    return 0;
}

int heliod_connect_flags(heliod_t **out, const char *path, const char *client_name,
                         uint32_t flags) {
    char def[sizeof(((struct sockaddr_un *)0)->sun_path) + 64];
    *out = NULL;
    g_connect_error[0] = '\0';
    if (!path) {
        if (heliod_default_socket(def, sizeof def) < 0)
            return connect_error(HELIOD_EINVAL, "default socket path too long");
        path = def;
    }
    if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return connect_error(HELIOD_EINVAL, "socket path too long: %s", path);
    if (!client_name) client_name = "libheliod";
    if (!hl_name_valid(client_name)) return connect_error(HELIOD_ENAME, "invalid client name");
    if (flags & ~(uint32_t)HELIOD_CONNECT_CONTROL)
        return connect_error(HELIOD_EINVAL, "unknown connect flags");
    int old_daemon = 0;
    int rc = dial(out, path, client_name, flags, HL_PROTO_MINOR, &old_daemon);
    /* a daemon of protocol 1.0 refused the 1.1 HELLO (and closed): a new
     * game still talks to it, in 1.0 (heliod_protocol_minor() 0) */
    if (rc < 0 && old_daemon) {
        g_connect_error[0] = '\0';
        rc = dial(out, path, client_name, flags, 0, &old_daemon);
    }
    return rc;
}

void heliod_close(heliod_t *h) {
    if (!h) return;
    if (!h->closed && h->out_off < h->out_len) {
        h->wait_id = 0;
        hlc_pump(h, h->timeout_ms);
    }
    if (h->fd >= 0) close(h->fd);
    free_all(h);
}

const heliod_server_info_t *heliod_server_info(const heliod_t *h) {
    return &h->info;
}

unsigned heliod_protocol_minor(const heliod_t *h) {
    return h->proto_minor;
}

const char *heliod_last_error(const heliod_t *h) {
    if (h) return h->last_error;
    return g_connect_error[0] ? g_connect_error : "no connection";
}

void heliod_set_timeout(heliod_t *h, int timeout_ms) {
    h->timeout_ms = timeout_ms;
}
