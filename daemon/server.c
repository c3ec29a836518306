/*
 * server.c - the listening socket.
 *
 * Path rules (checked before binding): the path must fit in sun_path; its
 * directory is created 0700 if missing; an existing symlink or regular file
 * is refused (never followed or removed); an existing socket is probed with
 * connect(): ECONNREFUSED means a dead daemon left it and it is replaced,
 * success means another heliod is live and we refuse to start. The socket is
 * chmod 0600. With systemd socket activation (sd_listen_fds) the passed fd is
 * used instead and the path is left alone.
 *
 * Accept errors: libuv answers EMFILE on accept with its own reserve-fd trick
 * (it closes a spare descriptor, accepts and closes the pending connections,
 * reopens the spare), so the listener never spins; we only log it, at most
 * every HLD_ERRLOG_INTERVAL_S.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "conn.h"
#include "daemon.h"
#include "hl_config.h"
#include "hld_limits.h"
#include "log.h"

#if HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

static void on_connection(uv_stream_t *server, int status) {
    hld_daemon_t *d = server->data;
    if (status < 0) {
        uint64_t now = hld_now_ns();
        if (now - d->last_accept_err_log_ns > HLD_ERRLOG_INTERVAL_S * HLD_NS_PER_S) {
            hld_warn("accept failed: %s (pending connections were refused)", uv_strerror(status));
            d->last_accept_err_log_ns = now;
        }
        d->n.clients_rejected++;
        return;
    }
    hld_conn_accept(d);
}

static int make_parent_dir(const char *path) {
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = '\0';
    if (mkdir(dir, HLD_DIR_MODE) == 0) return 0;
    if (errno != EEXIST) {
        hld_error("cannot create socket directory %s: %s", dir, strerror(errno));
        return HELIOD_EIO;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        hld_error("socket directory %s is not a directory", dir);
        return HELIOD_EINVAL;
    }
    return 0;
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

static int listen_activated(hld_daemon_t *d) {
#if HAVE_LIBSYSTEMD
    int n = sd_listen_fds(1);
    if (n <= 0) return 0;
    if (n > 1) hld_warn("socket activation passed %d sockets; using the first", n);
    int fd = SD_LISTEN_FDS_START;
    if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
        hld_error("socket activation: fd %d is not a listening Unix stream socket", fd);
        return HELIOD_EINVAL;
    }
    int rc = uv_pipe_open(&d->listener, fd);
    if (rc == 0) rc = uv_listen((uv_stream_t *)&d->listener, HLD_LISTEN_BACKLOG, on_connection);
    if (rc) {
        hld_error("socket activation: %s", uv_strerror(rc));
        return HELIOD_EIO;
    }
    d->activated = 1;
    hld_info("listening on the socket passed by systemd");
    return 1;
#else
    (void)d;
    return 0;
#endif
}

int hld_server_listen(hld_daemon_t *d) {
    const char *path = d->cfg.socket_path;
    if (uv_pipe_init(d->loop, &d->listener, 0) != 0) return HELIOD_EIO;
    d->listener.data = d;
    d->listener_open = 1;
    int rc = listen_activated(d);
    if (rc) return rc < 0 ? rc : 0;

    if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        hld_error("socket path is too long (%zu bytes, at most %zu): %s", strlen(path),
                  sizeof(((struct sockaddr_un *)0)->sun_path) - 1, path);
        return HELIOD_ETOOBIG;
    }
    if ((rc = make_parent_dir(path)) != 0) return rc;
    if ((rc = clear_path(path)) != 0) return rc;
    rc = uv_pipe_bind(&d->listener, path);
    if (rc) {
        hld_error("cannot bind %s: %s", path, uv_strerror(rc));
        return HELIOD_EIO;
    }
    d->unlink_on_exit = 1;
    if (chmod(path, HLD_SOCK_MODE) != 0) hld_warn("chmod %s: %s", path, strerror(errno));
    rc = uv_listen((uv_stream_t *)&d->listener, HLD_LISTEN_BACKLOG, on_connection);
    if (rc) {
        hld_error("cannot listen on %s: %s", path, uv_strerror(rc));
        return HELIOD_EIO;
    }
    hld_info("listening on %s", path);
    return 0;
}

void hld_server_close(hld_daemon_t *d) {
    if (d->listener_open && !uv_is_closing((uv_handle_t *)&d->listener))
        uv_close((uv_handle_t *)&d->listener, NULL);
    if (d->unlink_on_exit) unlink(d->cfg.socket_path);
    d->unlink_on_exit = 0;
}
