/*
 * server.c - the listening socket.
 *
 * Path rules (checked before binding): the path must fit in sun_path; its
 * directory is created 0700 if missing; an existing directory must be a real
 * directory owned by us (or root) and not writable by others unless sticky
 * (/tmp itself), and the fallback directory /tmp/heliod-$UID (no
 * XDG_RUNTIME_DIR) must be ours with mode exactly 0700: anyone may pre-create
 * it, so a foreign or wider one is refused, never used or repaired. An
 * existing symlink or regular file at the path is refused (never followed or
 * removed); an existing socket is probed with connect(): ECONNREFUSED means a
 * dead daemon left it and it is replaced, success means another heliod is
 * live and we refuse to start. bind() runs under umask HLD_BIND_UMASK, so the
 * socket is 0600 from its first instant (no bind-then-chmod window). With
 * systemd socket activation (sd_listen_fds) the passed fd is used instead and
 * the path is left alone.
 *
 * Accepting is ours, not libuv's (uv_listen would hide descriptor
 * exhaustion: its own reserve-fd trick closes the pending connections without
 * telling us): a uv_poll on the listening fd, accept4() of at most
 * HLD_ACCEPT_BATCH connections per wake-up, then for each:
 *   SO_PEERCRED: a peer whose uid is neither ours nor root's gets a one-frame
 *     error reply and is closed at once (counted in clients_refused_uid,
 *     logged at most every HLD_ERRLOG_INTERVAL_S): the socket's 0600 mode is
 *     the first fence, this one holds when the mode or the directory was
 *     widened or a socket-activation unit set SocketMode=0666;
 *   EMFILE/ENFILE: a spare descriptor is closed, every pending connection is
 *     accepted and closed at once (each counted in clients_rejected), the
 *     spare is reopened, and one warning is logged per interval; with no spare
 *     left, accepting pauses HLD_ACCEPT_BACKOFF_MS instead of spinning.
 *
 * Main thread only; one listener per process (the state below is static).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "conn.h"
#include "hl_config.h"
#include "hl_paths.h"
#include "clock.h"
#include "hld_limits.h"
#include "log.h"

#if HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

static struct {
    uv_poll_t poll;     /* readable listening fd: connections are pending */
    uv_timer_t backoff; /* resumes accepting after an EMFILE with no spare */
    int poll_open, backoff_open;
    int spare; /* a descriptor given up to shed connections when out of them */
    uint64_t last_refused_log_ns;
} g_srv = {.spare = -1};

static void start_accepting(hld_net_t *net);

static void on_backoff(uv_timer_t *t) {
    start_accepting(t->data);
}

/* At most one line every HLD_ERRLOG_INTERVAL_S per kind. */
static int log_due(uint64_t *last) {
    uint64_t now = hld_now_ns();
    if (*last && now - *last < HLD_ERRLOG_INTERVAL_S * HLD_NS_PER_S) return 0;
    *last = now;
    return 1;
}

static void open_spare(void) {
    if (g_srv.spare < 0) g_srv.spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* A peer of another user: one error frame (the socket buffer of a new
 * connection is empty, so it fits), then closed; nothing is allocated. */
static void refuse_peer(hld_net_t *net, int fd, unsigned uid) {
    net->n->clients_refused_uid++;
    if (log_due(&g_srv.last_refused_log_ns))
        hld_warn("refused a connection from uid %u: only uid %u (and root) may connect "
                 "(further refusals are counted in clients_refused_uid, not logged, for %d s)",
                 uid, (unsigned)geteuid(), HLD_ERRLOG_INTERVAL_S);
    uint8_t buf[HL_FRAME_HDR + 2 * HL_MAX_MSG];
    char msg[HL_MAX_MSG + 1];
    snprintf(msg, sizeof msg, "permission denied: uid %u may not use this daemon", uid);
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_REPLY, 0, 0);
    hl_reply_head_t rh = {.req_op = HL_OP_HELLO, .status = HELIOD_EHANDSHAKE};
    hl_put_reply_head(&w, &rh);
    hl_put_str(&w, msg, HL_MAX_MSG);
    int n = hl_frame_end(&w);
    if (n > 0 && send(fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
        /* nothing to do: the close below tells it anyway */
    }
    close(fd);
}

/* 1 if the peer may use us: our own uid, or root. */
static int peer_allowed(int fd, unsigned *uid) {
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof cr) {
        *uid = (unsigned)-1;
        return 0;
    }
    *uid = (unsigned)cr.uid;
    return cr.uid == geteuid() || cr.uid == 0;
}

/* Out of descriptors: shed the pending connections through the spare. */
static void shed_pending(hld_net_t *net, int lfd, int err) {
    uint64_t shed = 0;
    if (g_srv.spare >= 0) {
        close(g_srv.spare);
        g_srv.spare = -1;
        for (;;) {
            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd < 0) {
                if (errno == EINTR || errno == ECONNABORTED) continue;
                break;
            }
            close(fd);
            shed++;
        }
        open_spare();
    }
    net->n->clients_rejected += shed ? shed : 1;
    if (log_due(&net->last_accept_err_log_ns))
        hld_warn("accept failed: %s; %llu pending connection(s) closed unanswered "
                 "(counted in clients_rejected; not logged again for %d s)",
                 strerror(err), (unsigned long long)shed, HLD_ERRLOG_INTERVAL_S);
    if (!shed && g_srv.spare < 0 && g_srv.poll_open && g_srv.backoff_open) {
        /* nothing could be shed: the listener stays readable, so do not spin on it */
        uv_poll_stop(&g_srv.poll);
        uv_timer_start(&g_srv.backoff, on_backoff, HLD_ACCEPT_BACKOFF_MS, 0);
    }
}

static void on_acceptable(uv_poll_t *p, int status, int events) {
    (void)events;
    hld_net_t *net = p->data;
    if (status < 0) {
        if (log_due(&net->last_accept_err_log_ns))
            hld_warn("listening socket: %s", uv_strerror(status));
        return;
    }
    int lfd = -1;
    if (uv_fileno((uv_handle_t *)&net->listener, &lfd) != 0) return;
    for (int i = 0; i < HLD_ACCEPT_BATCH; i++) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            int err = errno;
            if (err == EINTR || err == ECONNABORTED) continue;
            if (err == EAGAIN || err == EWOULDBLOCK) return;
            if (err == EMFILE || err == ENFILE) {
                shed_pending(net, lfd, err);
                return;
            }
            net->n->clients_rejected++;
            if (log_due(&net->last_accept_err_log_ns))
                hld_warn("accept failed: %s (not logged again for %d s)", strerror(err),
                         HLD_ERRLOG_INTERVAL_S);
            return;
        }
        unsigned uid;
        if (!peer_allowed(fd, &uid)) {
            refuse_peer(net, fd, uid);
            continue;
        }
        hld_conn_accept(net, fd);
    }
}

static void start_accepting(hld_net_t *net) {
    if (!g_srv.poll_open || *net->shutting_down > 1) return;
    uv_poll_start(&g_srv.poll, UV_READABLE, on_acceptable);
}

/* Watches the listener's fd (already listening). 0 or HELIOD_EIO. */
static int watch_listener(hld_net_t *net) {
    int lfd = -1;
    if (uv_fileno((uv_handle_t *)&net->listener, &lfd) != 0) return HELIOD_EIO;
    if (uv_timer_init(net->loop, &g_srv.backoff) != 0) return HELIOD_EIO;
    g_srv.backoff.data = net;
    g_srv.backoff_open = 1;
    if (uv_poll_init(net->loop, &g_srv.poll, lfd) != 0) {
        hld_error("cannot watch the listening socket");
        return HELIOD_EIO;
    }
    g_srv.poll.data = net;
    g_srv.poll_open = 1;
    open_spare();
    start_accepting(net);
    return 0;
}

/* The socket's directory must be ours (or root's) and closed to others
 * (sticky excepted); the fallback directory must be ours, mode 0700. */
static int check_dir(const char *dir, const struct stat *st) {
    char fallback[64];
    uid_t me = geteuid();
    mode_t mode = st->st_mode & 07777;
    if (hl_fallback_socket_dir(fallback, sizeof fallback) == 0 && strcmp(dir, fallback) == 0) {
        if (st->st_uid != me || (mode & 0777) != HLD_DIR_MODE) {
            hld_error("refusing socket directory %s: it must be owned by uid %u with mode %04o "
                      "(it is owned by uid %u, mode %04o); another user may have created it. "
                      "Remove it, or set XDG_RUNTIME_DIR or use --socket",
                      dir, (unsigned)me, HLD_DIR_MODE, (unsigned)st->st_uid, (unsigned)mode);
            return HELIOD_EINVAL;
        }
        return 0;
    }
    if (st->st_uid != me && st->st_uid != 0) {
        hld_error("refusing socket directory %s: it belongs to uid %u, not to us (uid %u)", dir,
                  (unsigned)st->st_uid, (unsigned)me);
        return HELIOD_EINVAL;
    }
    if ((mode & (S_IWGRP | S_IWOTH)) && !(mode & S_ISVTX)) {
        hld_error("refusing socket directory %s: mode %04o lets other users replace the socket",
                  dir, (unsigned)mode);
        return HELIOD_EINVAL;
    }
    return 0;
}

static int make_parent_dir(const char *path) {
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return 0; /* relative, in the working directory */
    if (slash == dir)
        slash[1] = '\0';
    else
        *slash = '\0';
    if (mkdir(dir, HLD_DIR_MODE) != 0 && errno != EEXIST) {
        hld_error("cannot create socket directory %s: %s", dir, strerror(errno));
        return HELIOD_EIO;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        hld_error("socket directory %s is not a directory", dir);
        return HELIOD_EINVAL;
    }
    return check_dir(dir, &st);
}

/* 0 if path is free or held by a stale socket (removed), else an error. */
static int clear_path(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : HELIOD_EIO;
    if (S_ISLNK(st.st_mode)) {
        hld_error("refusing socket path %s: it is a symbolic link", path);
        return HELIOD_EINVAL;
    }
    if (!S_ISSOCK(st.st_mode)) {
        hld_error("refusing socket path %s: it exists and is not a socket", path);
        return HELIOD_EINVAL;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return HELIOD_EIO;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int err = errno;
    close(fd);
    if (rc == 0) {
        hld_error("another heliod is already listening on %s", path);
        return HELIOD_EINVAL;
    }
    if (err != ECONNREFUSED) {
        hld_error("cannot probe existing socket %s: %s", path, strerror(err));
        return HELIOD_EIO;
    }
    hld_info("removing stale socket %s", path);
    if (unlink(path) != 0 && errno != ENOENT) {
        hld_error("cannot remove stale socket %s: %s", path, strerror(errno));
        return HELIOD_EIO;
    }
    return 0;
}

static int listen_activated(hld_net_t *net) {
#if HAVE_LIBSYSTEMD
    int n = sd_listen_fds(1);
    if (n <= 0) return 0;
    if (n > 1) hld_warn("socket activation passed %d sockets; using the first", n);
    int fd = SD_LISTEN_FDS_START;
    if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
        hld_error("socket activation: fd %d is not a listening Unix stream socket", fd);
        return HELIOD_EINVAL;
    }
    int rc = uv_pipe_open(&net->listener, fd);
    if (rc) {
        hld_error("socket activation: %s", uv_strerror(rc));
        return HELIOD_EIO;
    }
    net->activated = 1;
    if ((rc = watch_listener(net)) != 0) return rc;
    hld_info("listening on the socket passed by systemd");
    return 1;
#else
    (void)net;
    return 0;
#endif
}

int hld_server_listen(hld_net_t *net) {
    const char *path = net->cfg->socket_path;
    if (uv_pipe_init(net->loop, &net->listener, 0) != 0) return HELIOD_EIO;
    net->listener.data = net;
    net->listener_open = 1;
    int rc = listen_activated(net);
    if (rc) return rc < 0 ? rc : 0;

    if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        hld_error("socket path is too long (%zu bytes, at most %zu): %s", strlen(path),
                  sizeof(((struct sockaddr_un *)0)->sun_path) - 1, path);
        return HELIOD_ETOOBIG;
    }
    if ((rc = make_parent_dir(path)) != 0) return rc;
    if ((rc = clear_path(path)) != 0) return rc;
    mode_t old_mask = umask(HLD_BIND_UMASK);
    rc = uv_pipe_bind(&net->listener, path);
    umask(old_mask);
    if (rc) {
        hld_error("cannot bind %s: %s", path, uv_strerror(rc));
        return HELIOD_EIO;
    }
    net->unlink_on_exit = 1;
    struct stat st;
    if (lstat(path, &st) != 0 || (st.st_mode & 0777) != HLD_SOCK_MODE) {
        hld_error("socket %s was not created with mode %04o", path, HLD_SOCK_MODE);
        return HELIOD_EIO;
    }
    int lfd = -1;
    if (uv_fileno((uv_handle_t *)&net->listener, &lfd) != 0 ||
        listen(lfd, HLD_LISTEN_BACKLOG) != 0) {
        hld_error("cannot listen on %s: %s", path, strerror(errno));
        return HELIOD_EIO;
    }
    if ((rc = watch_listener(net)) != 0) return rc;
    hld_info("listening on %s", path);
    return 0;
}

void hld_server_close(hld_net_t *net) {
    /* the poll first: it watches the fd that closing the listener closes */
    if (g_srv.poll_open) uv_close((uv_handle_t *)&g_srv.poll, NULL);
    if (g_srv.backoff_open) uv_close((uv_handle_t *)&g_srv.backoff, NULL);
    g_srv.poll_open = g_srv.backoff_open = 0;
    if (g_srv.spare >= 0) close(g_srv.spare);
    g_srv.spare = -1;
    if (net->listener_open && !uv_is_closing((uv_handle_t *)&net->listener))
        uv_close((uv_handle_t *)&net->listener, NULL);
    if (net->unlink_on_exit) unlink(net->cfg->socket_path);
    net->unlink_on_exit = 0;
}
