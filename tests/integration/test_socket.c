/*
 * test_socket.c - how heliod claims its socket path and how it is started:
 * a live daemon's socket is never stolen, a stale one (daemon killed) is
 * replaced, a symlink or a regular file at the path is refused, a path longer
 * than sun_path fails clearly, and a socket passed by systemd socket
 * activation (LISTEN_FDS) is used as is. The fallback directory
 * /tmp/heliod-$UID is used only when it is ours with mode 0700, the socket is
 * 0600 whatever the umask, and with no --socket the daemon listens where
 * $HELIOD_SOCKET says, where heliodctl finds it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"

static const char *heliod_bin(void) {
    const char *b = getenv("HELIOD_BIN");
    return b && *b ? b : "heliod";
}

/* Runs heliod --driver null --socket path and returns its exit status if it
 * exits within 3 s, or -1 (still running: it is killed). Its stderr goes to err. */
static int run_expect_exit(const char *path, char *err, size_t cap) {
    int pe[2];
    assert_int_equal(pipe(pe), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(pe[1], 2);
        close(pe[0]);
        execlp(heliod_bin(), heliod_bin(), "--driver", "null", "--socket", path, (char *)NULL);
        _exit(127);
    }
    close(pe[1]);
    int status = 0, exited = 0;
    for (int i = 0; i < 300; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            exited = 1;
            break;
        }
        th_sleep_ms(10);
    }
    if (!exited) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    ssize_t n = read(pe[0], err, cap - 1);
    err[n > 0 ? n : 0] = 0;
    close(pe[0]);
    return exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_live_socket_is_not_stolen(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    char err[4096];
    int rc = run_expect_exit(d.sock, err, sizeof err);
    assert_true(rc > 0);
    assert_non_null(strstr(err, d.sock));
    /* The first daemon still serves. */
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "t"), 0);
    assert_int_equal(heliod_ping(h, NULL), 0);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

static void test_stale_socket_is_replaced(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    /* A daemon that dies without cleaning up leaves its socket file behind. */
    kill(d.pid, SIGKILL);
    waitpid(d.pid, NULL, 0);
    d.pid = 0;
    struct stat st;
    assert_int_equal(stat(d.sock, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));

    th_daemon_t d2;
    assert_int_equal(th_daemon_start(&d2, 0, NULL), 0);
    /* Start a third on the first one's (stale) path: it must come up. */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 2);
        execlp(heliod_bin(), heliod_bin(), "--driver", "null", "--socket", d.sock, (char *)NULL);
        _exit(127);
    }
    int up = 0;
    for (int i = 0; i < 300 && !up; i++) {
        heliod_t *h = NULL;
        if (heliod_connect(&h, d.sock, "t") == 0) {
            up = heliod_ping(h, NULL) == 0;
            heliod_close(h);
        }
        if (!up) th_sleep_ms(10);
    }
    kill(pid, SIGTERM);
    int status;
    waitpid(pid, &status, 0);
    assert_true(up);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(th_daemon_stop(&d2, NULL), 0);
    th_daemon_cleanup(&d2);
    th_daemon_cleanup(&d);
}

static void test_symlink_regular_file_and_long_path_refused(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-sock-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char target[256], link_path[256], file_path[256], err[4096];
    snprintf(target, sizeof target, "%s/target", dir);
    snprintf(link_path, sizeof link_path, "%s/link.sock", dir);
    snprintf(file_path, sizeof file_path, "%s/file.sock", dir);

    assert_int_equal(symlink(target, link_path), 0);
    assert_true(run_expect_exit(link_path, err, sizeof err) > 0);
    assert_true(strlen(err) > 0);
    /* Nothing was created at the symlink's target. */
    assert_int_not_equal(access(target, F_OK), 0);

    FILE *f = fopen(file_path, "w");
    assert_non_null(f);
    fputs("precious data\n", f);
    fclose(f);
    assert_true(run_expect_exit(file_path, err, sizeof err) > 0);
    f = fopen(file_path, "r");
    char line[64] = "";
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "precious data\n");

    char long_path[400];
    memset(long_path, 0, sizeof long_path);
    snprintf(long_path, sizeof long_path, "%s/", dir);
    memset(long_path + strlen(long_path), 'x', 200);
    assert_true(run_expect_exit(long_path, err, sizeof err) > 0);
    assert_true(strlen(err) > 0);

    unlink(link_path);
    unlink(file_path);
    rmdir(dir);
}

static void test_socket_activation(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-act-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/activated.sock", dir);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 16), 0);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* As systemd does: the socket at fd 3, LISTEN_PID = our pid. */
        if (fd != 3) {
            dup2(fd, 3);
            close(fd);
        }
        char pidbuf[32];
        snprintf(pidbuf, sizeof pidbuf, "%d", (int)getpid());
        setenv("LISTEN_PID", pidbuf, 1);
        setenv("LISTEN_FDS", "1", 1);
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 2);
        /* --socket names a path the daemon must NOT bind: the passed fd wins. */
        execlp(heliod_bin(), heliod_bin(), "--driver", "null", "--socket", "/nonexistent/x.sock",
               (char *)NULL);
        _exit(127);
    }
    close(fd);
    int up = 0;
    for (int i = 0; i < 300 && !up; i++) {
        heliod_t *h = NULL;
        if (heliod_connect(&h, path, "activated") == 0) {
            up = heliod_ping(h, NULL) == 0;
            heliod_close(h);
        }
        if (!up) th_sleep_ms(10);
    }
    kill(pid, SIGTERM);
    int status;
    waitpid(pid, &status, 0);
    unlink(path);
    rmdir(dir);
    assert_true(up);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Starts heliod --driver null with no --socket, as uid (when >= 0, we are
 * root) and with $HELIOD_SOCKET = env_sock (NULL: unset), XDG_RUNTIME_DIR
 * unset; stderr to errfd (or /dev/null). Returns the pid. */
static pid_t spawn_default(int uid, const char *env_sock, int errfd) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (errfd < 0) errfd = open("/dev/null", O_WRONLY);
        dup2(errfd, 2);
        unsetenv("XDG_RUNTIME_DIR");
        if (env_sock)
            setenv("HELIOD_SOCKET", env_sock, 1);
        else
            unsetenv("HELIOD_SOCKET");
        if (uid >= 0 && (setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0)) _exit(126);
        execlp(heliod_bin(), heliod_bin(), "--driver", "null", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* 1 once a handshake on path succeeds (within 3 s). */
static int comes_up(const char *path) {
    for (int i = 0; i < 300; i++) {
        heliod_t *h = NULL;
        if (heliod_connect(&h, path, "probe") == 0) {
            heliod_close(h);
            return 1;
        }
        th_sleep_ms(10);
    }
    return 0;
}

/* Runs heliod as uid with the fallback socket directory in its given state:
 * its exit status within 3 s (stderr in err), or 0 if it came up and
 * answered on sock (it is then stopped). */
static int run_fallback(int uid, const char *sock, char *err, size_t cap) {
    int pe[2];
    assert_int_equal(pipe(pe), 0);
    pid_t pid = spawn_default(uid, NULL, pe[1]);
    close(pe[1]);
    int rc;
    int status = 0;
    for (int i = 0;; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            break;
        }
        heliod_t *h = NULL;
        if (heliod_connect(&h, sock, "probe") == 0) {
            heliod_close(h);
            kill(pid, SIGTERM);
            waitpid(pid, NULL, 0);
            rc = 0;
            break;
        }
        if (i == 300) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            rc = -1;
            break;
        }
        th_sleep_ms(10);
    }
    ssize_t n = read(pe[0], err, cap - 1);
    err[n > 0 ? n : 0] = 0;
    close(pe[0]);
    return rc;
}

/* The fallback directory (no XDG_RUNTIME_DIR) may have been created by anyone
 * before us: heliod uses it only if it belongs to its user with mode 0700.
 * Needs root, to play both the daemon's user and the other one. */
static void test_fallback_dir_must_be_ours(void **state) {
    (void)state;
    if (geteuid() != 0) skip();
    const int uid = 65533; /* a uid with no files: the fallback dir is ours to stage */
    char dir[64], sock[128], err[4096];
    snprintf(dir, sizeof dir, "/tmp/heliod-%d", uid);
    snprintf(sock, sizeof sock, "%s/heliod.sock", dir);
    unlink(sock);
    rmdir(dir);

    /* world-writable, owned by root (another user, for the daemon) */
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    assert_true(run_fallback(uid, sock, err, sizeof err) > 0);
    assert_non_null(strstr(err, dir));
    assert_non_null(strstr(err, "0700"));
    assert_int_not_equal(access(sock, F_OK), 0);

    /* owned by root, 0700: foreign */
    assert_int_equal(chmod(dir, 0700), 0);
    assert_true(run_fallback(uid, sock, err, sizeof err) > 0);
    assert_non_null(strstr(err, "owned by uid"));

    /* ours but world-writable */
    assert_int_equal(chown(dir, (uid_t)uid, (gid_t)uid), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    assert_true(run_fallback(uid, sock, err, sizeof err) > 0);
    assert_non_null(strstr(err, dir));

    /* ours and 0700: used */
    assert_int_equal(chmod(dir, 0700), 0);
    assert_int_equal(run_fallback(uid, sock, err, sizeof err), 0);
    unlink(sock);
    assert_int_equal(rmdir(dir), 0);

    /* missing: created 0700 and used */
    assert_int_equal(run_fallback(uid, sock, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(dir, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(st.st_uid, (uid_t)uid);
    unlink(sock);
    rmdir(dir);
}

/* The socket is created 0600 whatever the umask the daemon was started with
 * (bound under umask 0177, not chmod-ed afterwards). */
static void test_socket_mode_under_open_umask(void **state) {
    (void)state;
    mode_t old = umask(0);
    th_daemon_t d;
    int rc = th_daemon_start(&d, 0, NULL);
    umask(old);
    assert_int_equal(rc, 0);
    struct stat st;
    assert_int_equal(lstat(d.sock, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

/* With no --socket the daemon listens at $HELIOD_SOCKET, and heliodctl and
 * libheliod, with no --socket either, find it there. */
static void test_heliod_socket_env(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-env-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/from-env.sock", dir);
    pid_t pid = spawn_default(-1, path, -1);
    int up = comes_up(path);

    setenv("HELIOD_SOCKET", path, 1);
    heliod_t *h = NULL;
    int lib_rc = heliod_connect(&h, NULL, "env");
    if (lib_rc == 0) lib_rc = heliod_ping(h, NULL);
    heliod_close(h);
    const char *ctl = getenv("HELIODCTL_BIN");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s ping >/dev/null 2>&1", ctl && *ctl ? ctl : "heliodctl");
    int ctl_rc = system(cmd);
    unsetenv("HELIOD_SOCKET");

    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    unlink(path);
    rmdir(dir);
    assert_true(up);
    assert_int_equal(lib_rc, 0);
    assert_int_equal(ctl_rc, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_socket_is_not_stolen),
        cmocka_unit_test(test_stale_socket_is_replaced),
        cmocka_unit_test(test_symlink_regular_file_and_long_path_refused),
        cmocka_unit_test(test_socket_activation),
        cmocka_unit_test(test_fallback_dir_must_be_ours),
        cmocka_unit_test(test_socket_mode_under_open_umask),
        cmocka_unit_test(test_heliod_socket_env),
    };
    return cmocka_run_group_tests_name("socket", tests, NULL, NULL);
}
