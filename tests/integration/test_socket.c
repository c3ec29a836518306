/*
 * test_socket.c - how heliod claims its socket path and how it is started:
 * a live daemon's socket is never stolen, a stale one (daemon killed) is
 * replaced, a symlink or a regular file at the path is refused, a path longer
 * than sun_path fails clearly, and a socket passed by systemd socket
 * activation (LISTEN_FDS) is used as is.
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

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_socket_is_not_stolen),
        cmocka_unit_test(test_stale_socket_is_replaced),
        cmocka_unit_test(test_symlink_regular_file_and_long_path_refused),
        cmocka_unit_test(test_socket_activation),
    };
    return cmocka_run_group_tests_name("socket", tests, NULL, NULL);
}
