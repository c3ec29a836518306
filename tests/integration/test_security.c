/*
 * test_security.c - who may connect and what a connection may cost:
 * a peer of another user is refused (SO_PEERCRED) and counted, "server full"
 * reaches libheliod and heliodctl with the daemon's message, a half-closed
 * client still gets every reply queued for it, descriptor exhaustion is
 * counted and logged once, and the output queues of many non-reading clients
 * together stay under the daemon-wide cap.
 *
 * Raw frames are built with the proto codec. The uid test needs root (it
 * plays another user with setuid) and is skipped otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

#define OTHER_UID   65534 /* nobody */
#define OUTQ_CAP_MB 64    /* HLD_OUTQ_TOTAL_MAX, as documented in PROTOCOL.md */
#define OUTQ_SLACK_MB                                                                              \
    40 /* batches in flight, allocator slack, the rest of the daemon: a STATS                      \
        * reply is ~5 KiB now (151 keys), so a batch read before a client                          \
        * pauses leaves more behind than the cap itself accounts for */
#define RX_TIMEOUT_MS 3000

/* ---- helpers ---------------------------------------------------------------- */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A "Vm...:" line of /proc/pid/status in KiB, or -1. */
static long proc_kb(pid_t pid, const char *key) {
    char path[64], line[256], fmt[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    snprintf(fmt, sizeof fmt, "%s: %%ld kB", key);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, fmt, &kb) == 1) break;
    fclose(f);
    return kb;
}

static int fd_count(pid_t pid) {
    char cmd[96];
    snprintf(cmd, sizeof cmd, "ls /proc/%d/fd | wc -l", (int)pid);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (!p) return -1;
    if (fscanf(p, "%d", &n) != 1) n = -1;
    pclose(p);
    return n;
}

/* How many lines of the daemon's log contain s. */
static int log_count(const th_daemon_t *d, const char *s) {
    FILE *f = fopen(d->log, "r");
    if (!f) return -1;
    char line[2048];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, s)) n++;
    fclose(f);
    return n;
}

static int write_all(int fd, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            poll(&pf, 1, 100);
            continue;
        }
        if (w <= 0) return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Encodes one frame with a raw body into buf: its size, or -1. */
static int enc_frame(uint8_t *buf, size_t cap, uint16_t op, uint32_t id, const void *body,
                     size_t len) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, cap);
    hl_frame_begin(&w, op, 0, id);
    for (size_t i = 0; i < len; i++)
        hl_put_u8(&w, ((const uint8_t *)body)[i]);
    return hl_frame_end(&w);
}

static int enc_hello(uint8_t *buf, size_t cap, uint32_t id) {
    uint8_t b[128];
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, sizeof b);
    hl_hello_t m = {.version = HL_PROTO_VERSION};
    snprintf(m.client_name, sizeof m.client_name, "security");
    hl_put_hello(&w, &m);
    return enc_frame(buf, cap, HL_OP_HELLO, id, b, w.len);
}

/* Reads frames until EOF: how many REPLY frames with status 0 arrived, or -1
 * on timeout (no byte for timeout_ms) or garbage. */
static long count_ok_replies_until_eof(int fd, int timeout_ms) {
    static uint8_t in[4 * HL_MAX_FRAME];
    size_t len = 0;
    long ok = 0;
    for (;;) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, timeout_ms) <= 0) return -1;
        ssize_t n = recv(fd, in + len, sizeof in - len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return len ? -1 : ok;
        len += (size_t)n;
        size_t off = 0;
        for (;;) {
            hl_frame_hdr_t h;
            int rc = hl_frame_peek(in + off, len - off, &h);
            if (rc == 1 || (rc == 0 && h.size > len - off)) break;
            if (rc < 0) return -1;
            if (h.op == HL_OP_REPLY) {
                hl_rbuf_t r;
                hl_rbuf_init(&r, in + off + HL_FRAME_HDR, h.size - HL_FRAME_HDR);
                hl_reply_head_t rh;
                hl_get_reply_head(&r, &rh);
                if (rh.status == 0) ok++;
            }
            off += h.size;
        }
        memmove(in, in + off, len - off);
        len -= off;
    }
}

/* ---- SO_PEERCRED -------------------------------------------------------------- */

/* A connection from another uid is refused with a message and counted in
 * clients_refused_uid; the refusals are logged once per interval. The
 * socket's and its directory's modes are widened so that only the daemon's
 * own check stands between that user and the daemon. */
static void test_other_uid_refused(void **state) {
    (void)state;
    if (geteuid() != 0) skip();
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    heliod_t *probe = NULL;
    assert_int_equal(heliod_connect(&probe, d.sock, "probe"), 0);
    assert_int_equal(chmod(d.dir, 0711), 0);
    assert_int_equal(chmod(d.sock, 0666), 0);
    double refused0 = th_stat(probe, "clients_refused_uid");
    assert_true(refused0 == 0);
    enum { TRIES = 3 };
    for (int i = 0; i < TRIES; i++) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(p[0]);
            if (setgid(OTHER_UID) != 0 || setuid(OTHER_UID) != 0) _exit(2);
            heliod_t *h = NULL;
            int rc = heliod_connect(&h, d.sock, "intruder");
            char msg[512];
            snprintf(msg, sizeof msg, "%d %s", rc, heliod_last_error(NULL));
            if (write(p[1], msg, strlen(msg)) < 0) _exit(3);
            heliod_close(h);
            _exit(rc == 0 ? 1 : 0);
        }
        close(p[1]);
        char msg[512] = "";
        ssize_t n = read(p[0], msg, sizeof msg - 1);
        msg[n > 0 ? n : 0] = 0;
        close(p[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        fprintf(stderr, "# uid %d: %s\n", OTHER_UID, msg);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(atoi(msg), HELIOD_EHANDSHAKE);
        assert_non_null(strstr(msg, "permission denied"));
    }
    assert_true(th_stat(probe, "clients_refused_uid") - refused0 == TRIES);
    assert_true(th_stat(probe, "clients") == 1);
    assert_int_equal(heliod_ping(probe, NULL), 0);
    assert_int_equal(log_count(&d, "refused a connection from uid"), 1);
    heliod_close(probe);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

/* ---- server full ---------------------------------------------------------------- */

/* With --max-clients 2 the third plain client is refused: libheliod returns
 * the daemon's EBUSY and message. Control clients (heliodctl) get one of the
 * CONTROL_PLACES kept above it; once those are taken too, heliodctl prints
 * the refusal. */
#define CONTROL_PLACES 4 /* HLD_CONTROL_PLACES */
static void test_server_full_reaches_the_user(void **state) {
    (void)state;
    th_daemon_t d;
    const char *args[] = {"--max-clients", "2", NULL};
    assert_int_equal(th_daemon_start(&d, 0, args), 0);
    heliod_t *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(heliod_connect(&a, d.sock, "a"), 0);
    /* the harness's own connection may still be closing */
    int rc = -1;
    for (int i = 0; i < 100 && rc != 0; i++) {
        rc = heliod_connect(&b, d.sock, "b");
        if (rc) th_sleep_ms(20);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(heliod_connect(&c, d.sock, "c"), HELIOD_EBUSY);
    assert_null(c);
    fprintf(stderr, "# third client: %s\n", heliod_last_error(NULL));
    assert_non_null(strstr(heliod_last_error(NULL), "server full"));

    /* heliodctl is a control client: the places kept above --max-clients let
     * it in while games fill the daemon */
    char out[4096], err[4096];
    const char *ping[] = {"ping", NULL};
    assert_int_equal(th_ctl(&d, out, sizeof out, err, sizeof err, ping), 0);
    /* the kept places are one per process: a second control connection of
     * this process is refused, heliodctl (a process of its own) still gets in */
    heliod_t *mine = NULL, *again = NULL;
    rc = -1; /* heliodctl's connection may still be closing */
    for (int k = 0; k < 100 && rc != 0; k++) {
        rc = heliod_connect_flags(&mine, d.sock, "tool", HELIOD_CONNECT_CONTROL);
        if (rc) th_sleep_ms(20);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(heliod_connect_flags(&again, d.sock, "tool", HELIOD_CONNECT_CONTROL),
                     HELIOD_EBUSY);
    fprintf(stderr, "# second control connection of one process: %s\n", heliod_last_error(NULL));
    assert_non_null(strstr(heliod_last_error(NULL), "one each"));
    assert_int_equal(th_ctl(&d, out, sizeof out, err, sizeof err, ping), 0);
    /* with every kept place taken by processes of their own, heliodctl prints
     * the daemon's refusal */
    int go[2], ready[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(ready), 0);
    pid_t kids[CONTROL_PLACES - 1];
    for (int i = 0; i < CONTROL_PLACES - 1; i++) {
        kids[i] = fork();
        assert_true(kids[i] >= 0);
        if (kids[i] == 0) {
            /* not the parent's connections: its closes must reach the daemon */
            for (int fd = 3; fd < 1024; fd++)
                if (fd != go[0] && fd != ready[1]) close(fd);
            heliod_t *k = NULL;
            char ok = 0;
            for (int t = 0; t < 100 && !ok; t++) {
                ok = heliod_connect_flags(&k, d.sock, "tool", HELIOD_CONNECT_CONTROL) == 0;
                if (!ok) th_sleep_ms(20);
            }
            if (write(ready[1], &ok, 1) != 1) _exit(2);
            char c1;
            while (read(go[0], &c1, 1) > 0) { /* until the parent closes it */
            }
            if (k) heliod_close(k);
            _exit(0);
        }
    }
    close(go[0]);
    close(ready[1]);
    for (int i = 0; i < CONTROL_PLACES - 1; i++) {
        char ok = 0;
        assert_int_equal(read(ready[0], &ok, 1), 1);
        assert_int_equal(ok, 1);
    }
    assert_int_equal(th_ctl(&d, out, sizeof out, err, sizeof err, ping), 1);
    fprintf(stderr, "# heliodctl: %s", err);
    assert_non_null(strstr(err, "server full"));
    assert_null(strstr(err, "connection closed"));

    heliod_close(mine);
    rc = -1;
    for (int i = 0; i < 100 && rc != 0; i++) {
        rc = th_ctl(&d, out, sizeof out, err, sizeof err, ping);
        if (rc) th_sleep_ms(20);
    }
    assert_int_equal(rc, 0);
    close(go[1]); /* the children let go */
    for (int i = 0; i < CONTROL_PLACES - 1; i++)
        waitpid(kids[i], NULL, 0);
    close(ready[0]);
    assert_true(th_stat(a, "clients_rejected") >= 2);
    heliod_close(b);
    heliod_close(a);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

/* ---- half-close ------------------------------------------------------------------- */

/* A client sends its requests, shuts down its write side, then reads: every
 * reply queued for it arrives before the daemon closes. STATS replies (~2 KiB
 * each) make far more output than the socket holds, so most of it is still
 * in the daemon's queue (and reads are paused) when the EOF is seen. */
static void test_half_close_gets_every_reply(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    enum { N = 2000 };
    static uint8_t reqs[64 + N * (HL_FRAME_HDR + 4)];
    size_t len = 0;
    int n = enc_hello(reqs, sizeof reqs, 1);
    assert_true(n > 0);
    len += (size_t)n;
    uint8_t zero[4] = {0};
    for (uint32_t i = 0; i < N; i++) {
        n = enc_frame(reqs + len, sizeof reqs - len, HL_OP_STATS, 2 + i, zero, sizeof zero);
        assert_true(n > 0);
        len += (size_t)n;
    }
    int fd = th_raw_connect(d.sock);
    assert_true(fd >= 0);
    assert_int_equal(write_all(fd, reqs, len), 0);
    assert_int_equal(shutdown(fd, SHUT_WR), 0);
    th_sleep_ms(200); /* let the daemon see the EOF with its queue full */
    long got = count_ok_replies_until_eof(fd, RX_TIMEOUT_MS);
    close(fd);
    fprintf(stderr, "# half-closed client: %ld of %d replies\n", got, N + 1);
    assert_int_equal(got, N + 1);
    assert_true(th_daemon_alive(&d));
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

/* ---- descriptor exhaustion ------------------------------------------------------------ */

/* With its descriptors exhausted the daemon closes the pending connections
 * at once, counts every one in clients_rejected and logs one warning per
 * interval (not one per connection); it serves again once they are gone. */
static void test_emfile_counted_and_logged_once(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    heliod_t *probe = NULL;
    assert_int_equal(heliod_connect(&probe, d.sock, "probe"), 0);
    double rej0 = th_stat(probe, "clients_rejected");
    int used = fd_count(d.pid);
    assert_true(used > 0);
    struct rlimit orig, rl;
    assert_int_equal(prlimit(d.pid, RLIMIT_NOFILE, NULL, &orig), 0);
    rl = orig;
    rl.rlim_cur = (rlim_t)used + 6;
    assert_int_equal(prlimit(d.pid, RLIMIT_NOFILE, &rl, NULL), 0);
    enum { N = 40 };
    int fds[2 * N];
    for (int burst = 0; burst < 2; burst++) {
        for (int i = 0; i < N; i++)
            fds[burst * N + i] = th_raw_connect(d.sock);
        th_sleep_ms(300);
    }
    double rejected = th_stat(probe, "clients_rejected") - rej0;
    int lines = log_count(&d, "accept failed");
    fprintf(stderr, "# EMFILE: %.0f connections rejected, %d log line(s)\n", rejected, lines);
    assert_int_equal(prlimit(d.pid, RLIMIT_NOFILE, &orig, NULL), 0);
    for (int i = 0; i < 2 * N; i++)
        if (fds[i] >= 0) close(fds[i]);
    assert_true(rejected >= N);
    assert_int_equal(lines, 1);
    assert_int_equal(heliod_ping(probe, NULL), 0);
    th_sleep_ms(200);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "after"), 0);
    heliod_close(h);
    heliod_close(probe);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

/* ---- all clients' output together ------------------------------------------------------- */

/* Many clients subscribe to every event, flood requests and never read; a
 * player makes events for all of them. Each alone stays under HL_OUTQ_MAX
 * (4 MiB) until it is dropped, but together they would hold NONREADERS x
 * 4 MiB: the daemon-wide cap drops the biggest first, so the daemon's peak
 * resident memory grows by about the cap, not by that product. */
static void test_total_output_bounded(void **state) {
    (void)state;
    if (TH_SANITIZED) skip(); /* RSS is not a measure of queues under ASan */
    th_daemon_t d;
    /* the player makes events as fast as it can: its voice quota is the whole pool */
    const char *args[] = {"--voices", "256", "--client-voices", "1024", NULL};
    assert_int_equal(th_daemon_start(&d, 0, args), 0);
    heliod_t *probe = NULL;
    assert_int_equal(heliod_connect(&probe, d.sock, "probe"), 0);
    char path[400];
    snprintf(path, sizeof path, "%s/tick.wav", d.dir);
    assert_int_equal(th_write_sine(path, 48000, 0.001, 1000, 0.1), 0);
    heliod_t *player = NULL;
    assert_int_equal(heliod_connect(&player, d.sock, "player"), 0);
    assert_int_equal(heliod_load(player, "tick", path, 0, NULL), 0);

    enum { NONREADERS = 32, FLOOD = 400 };
    static uint8_t buf[HL_FRAME_HDR * 4 + 256 + FLOOD * (HL_FRAME_HDR + 4)];
    int fds[NONREADERS];
    for (int i = 0; i < NONREADERS; i++) {
        fds[i] = th_raw_connect(d.sock);
        assert_true(fds[i] >= 0);
        size_t len = 0;
        int n = enc_hello(buf, sizeof buf, 1);
        len += (size_t)n;
        uint8_t sub[4];
        hl_wbuf_t w;
        hl_wbuf_init(&w, sub, sizeof sub);
        hl_put_u32(&w, HL_SUB_ALL | HL_SUB_ENDED | HL_SUB_STARTED);
        n = enc_frame(buf + len, sizeof buf - len, HL_OP_SUBSCRIBE, 2, sub, sizeof sub);
        len += (size_t)n;
        uint8_t zero[4] = {0};
        for (uint32_t k = 0; k < FLOOD; k++) { /* ~2 KiB of STATS reply per 12-byte request */
            n = enc_frame(buf + len, sizeof buf - len, HL_OP_STATS, 3 + k, zero, sizeof zero);
            len += (size_t)n;
        }
        assert_int_equal(write_all(fds[i], buf, len), 0);
    }
    th_sleep_ms(300);
    long base_kb = proc_kb(d.pid, "VmRSS");
    assert_true(base_kb > 0);
    assert_true(th_stat(probe, "clients") == NONREADERS + 2);

    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.fade_in_ms = 0;
    double end = now_ms() + 60000;
    double clients = NONREADERS + 2;
    while (clients > 2 && now_ms() < end) {
        for (int i = 0; i < 200; i++)
            heliod_play_async(player, "tick", &pp, NULL, NULL);
        heliod_sync(player);
        clients = th_stat(probe, "clients");
    }
    long peak_kb = proc_kb(d.pid, "VmHWM");
    long grew_mb = (peak_kb - base_kb) / 1024;
    fprintf(stderr,
            "# %d non-readers: %.0f clients left, daemon peak RSS grew by %ld MiB "
            "(cap %d MiB, %d MiB without it)\n",
            NONREADERS, clients, grew_mb, OUTQ_CAP_MB, NONREADERS * 4);
    for (int i = 0; i < NONREADERS; i++)
        close(fds[i]);
    assert_true(clients == 2); /* every non-reader dropped, the probe and the player kept */
    assert_int_equal(heliod_ping(probe, NULL), 0);
    assert_true(grew_mb < OUTQ_CAP_MB + OUTQ_SLACK_MB);
    heliod_close(player);
    heliod_close(probe);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_other_uid_refused),
        cmocka_unit_test(test_server_full_reaches_the_user),
        cmocka_unit_test(test_half_close_gets_every_reply),
        cmocka_unit_test(test_emfile_counted_and_logged_once),
        cmocka_unit_test(test_total_output_bounded),
    };
    return TH_RUN(tests); /* each test's time printed */
}
