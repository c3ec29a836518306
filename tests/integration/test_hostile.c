/*
 * test_hostile.c - tries to knock the daemon over: clients that never read,
 * slowloris and silent connections, more connections than HL_MAX_CLIENTS,
 * descriptor exhaustion, malformed bodies for every opcode, LOAD floods and
 * hostile files, unload/stop/set races with ending voices, play storms with
 * stealing, and clients that vanish in the middle of requests.
 *
 * After every attack a probe connection opened before it must still be served
 * promptly (ping round trip), the daemon must be alive, no callback may have
 * run past its period (th_deadlines_ok: late wake-ups of a descheduled
 * machine are printed, not failed, unless HELIOD_TEST_XRUNS_STRICT=1), and
 * its resident memory and descriptor count must stay within
 * bounds read from /proc. Raw frames are built with the proto codec so that
 * every malformation is deliberate.
 *
 * The memory bounds mean the same on every machine: how much a freed
 * allocation leaves resident depends on how many malloc arenas glibc gives
 * the daemon's threads (8 per core at most, so more on a bigger machine) and
 * on transparent huge pages (a touched 4 KiB page can make 2 MiB resident).
 * The daemons this test starts get MALLOC_ARENA_MAX=2 and no huge pages
 * (PR_SET_THP_DISABLE, inherited), so the slack is about heliod, not the
 * machine: a leak still grows, with every attack.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <sndfile.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

#define MAX_CLIENTS    256 /* HL_MAX_CLIENTS, as documented in PROTOCOL.md */
#define OUTQ_MAX       (4 * 1024 * 1024)
#define HANDSHAKE_MS   5000 /* documented handshake / frame completion deadline */
#define PING_BUDGET_MS 250.0
#define RSS_SLACK_KB   (48 * 1024)
#define FD_SLACK       16
#define RX_TIMEOUT_MS  3000

/* Under AddressSanitizer the daemon's RSS includes the allocator's quarantine
 * and the machine is too slow to promise a timer-paced device no late
 * wake-up: memory is checked by LeakSanitizer there, not by VmRSS. */
#define SANITIZED TH_SANITIZED

/* ---- small helpers ---------------------------------------------------------- */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* VmRSS of pid in KiB, or -1. */
static long rss_kb(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
    fclose(f);
    return kb;
}

/* Open descriptors of pid, or -1. */
static int fd_count(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    int n = -1;
    FILE *p = NULL;
    char cmd[96];
    snprintf(cmd, sizeof cmd, "ls %s | wc -l", path);
    p = popen(cmd, "r");
    if (!p) return -1;
    if (fscanf(p, "%d", &n) != 1) n = -1;
    pclose(p);
    return n;
}

/* utime + stime of pid in seconds, or -1. */
static double cpu_s(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    unsigned long ut = 0, st = 0;
    /* fields after the comm: state(3) ... utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int write_all(int fd, const void *buf, size_t len) {
    const uint8_t *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads exactly len bytes within timeout_ms: 1 done, 0 EOF/reset, -1 timeout. */
static int read_exact(int fd, uint8_t *buf, size_t len, int timeout_ms) {
    double end = now_ms() + timeout_ms;
    size_t got = 0;
    while (got < len) {
        int left = (int)(end - now_ms());
        if (left <= 0) return -1;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, left) <= 0) continue;
        ssize_t n = recv(fd, buf + got, len - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        got += (size_t)n;
    }
    return 1;
}

typedef struct {
    uint16_t op;
    uint32_t id;
    uint16_t req_op;
    int32_t status;
    uint16_t ev_type;
    char msg[HL_MAX_MSG + 1];
    uint8_t body[HL_MAX_FRAME];
    size_t body_len; /* after the reply head for replies */
} frame_t;

/* Reads one frame: 1, 0 on EOF, -1 on timeout or garbage. */
static int read_frame(int fd, frame_t *f, int timeout_ms) {
    uint8_t hdr[HL_FRAME_HDR];
    int rc = read_exact(fd, hdr, sizeof hdr, timeout_ms);
    if (rc <= 0) return rc;
    hl_frame_hdr_t h;
    if (hl_frame_peek(hdr, sizeof hdr, &h) != 0) return -1;
    size_t blen = h.size - HL_FRAME_HDR;
    rc = read_exact(fd, f->body, blen, timeout_ms);
    if (rc <= 0) return rc;
    f->op = h.op;
    f->id = h.id;
    f->msg[0] = 0;
    f->status = 0;
    f->ev_type = 0;
    hl_rbuf_t r;
    hl_rbuf_init(&r, f->body, blen);
    if (h.op == HL_OP_REPLY) {
        hl_reply_head_t rh;
        hl_get_reply_head(&r, &rh);
        f->req_op = rh.req_op;
        f->status = rh.status;
        if (rh.status < 0) hl_get_str(&r, f->msg, sizeof f->msg);
    } else if (h.op == HL_OP_EVENT) {
        hl_event_t ev;
        hl_get_event(&r, &ev);
        f->ev_type = ev.type;
        f->req_op = ev.req_op;
        f->status = ev.type == HL_EVENT_ERROR ? ev.status : 0;
        snprintf(f->msg, sizeof f->msg, "%s", ev.type == HL_EVENT_ERROR ? ev.message : "");
    }
    f->body_len = blen;
    return 1;
}

/* Reads frames until the reply (or ERROR event) with this id: 1, 0 EOF, -1 timeout. */
static int read_reply(int fd, uint32_t id, frame_t *f, int timeout_ms) {
    for (;;) {
        int rc = read_frame(fd, f, timeout_ms);
        if (rc <= 0) return rc;
        if (f->id == id && (f->op == HL_OP_REPLY || f->ev_type == HL_EVENT_ERROR)) return 1;
    }
}

static uint8_t g_buf[HL_MAX_FRAME + 64];

/* Sends a frame with an explicit body. */
static int send_raw(int fd, uint16_t op, uint16_t flags, uint32_t id, const void *body,
                    size_t len) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, g_buf, sizeof g_buf);
    hl_frame_begin(&w, op, flags, id);
    for (size_t i = 0; i < len; i++)
        hl_put_u8(&w, ((const uint8_t *)body)[i]);
    int n = hl_frame_end(&w);
    if (n < 0) return -1;
    return write_all(fd, g_buf, (size_t)n);
}

static size_t enc_hello_flags(uint8_t *b, size_t cap, uint32_t flags) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, cap);
    hl_hello_t m = {.version = HL_PROTO_VERSION, .flags = flags};
    snprintf(m.client_name, sizeof m.client_name, "hostile");
    hl_put_hello(&w, &m);
    return w.len;
}

static size_t enc_hello(uint8_t *b, size_t cap) {
    return enc_hello_flags(b, cap, 0);
}

/* Connects and says HELLO: the fd, or -1. */
static int raw_open(const char *sock) {
    int fd = th_raw_connect(sock);
    if (fd < 0) return -1;
    uint8_t b[128];
    size_t n = enc_hello(b, sizeof b);
    frame_t *f = malloc(sizeof *f);
    int ok = f && send_raw(fd, HL_OP_HELLO, 0, 1, b, n) == 0 &&
             read_reply(fd, 1, f, RX_TIMEOUT_MS) == 1 && f->status == 0;
    free(f);
    if (!ok) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Ping round trip on a raw connection: ms, or -1. */
static double raw_ping_ms(int fd, uint32_t id) {
    frame_t *f = malloc(sizeof *f);
    double t0 = now_ms();
    int ok = f && send_raw(fd, HL_OP_PING, 0, id, NULL, 0) == 0 &&
             read_reply(fd, id, f, RX_TIMEOUT_MS) == 1 && f->status == 0;
    free(f);
    return ok ? now_ms() - t0 : -1;
}

/* 1 if the daemon closed fd (EOF within timeout_ms, frames before it ignored). */
static int closed_by_peer(int fd, int timeout_ms) {
    double end = now_ms() + timeout_ms;
    uint8_t junk[4096];
    while (now_ms() < end) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, 50) <= 0) continue;
        ssize_t n = recv(fd, junk, sizeof junk, 0);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return 1;
    }
    return 0;
}

/* ---- the fixture: a daemon, a probe connection, baselines ------------------- */

typedef struct {
    th_daemon_t d;
    heliod_t *probe;
    long rss0;
    int fds0;
    double xruns0, overruns0;
    double worst_ping_ms;
} fx_t;

static fx_t *g_fx; /* the running fixture, for the teardown after a failed assertion */

static void fx_start(fx_t *x, const char *const *args) {
    memset(x, 0, sizeof *x);
    g_fx = x;
    assert_int_equal(th_daemon_start(&x->d, 0, args), 0);
    /* the probe watches like an operator's tool: a control client (it may
     * stop everyone's voices, and it has a place kept when games fill up) */
    assert_int_equal(heliod_connect_flags(&x->probe, x->d.sock, "probe", HELIOD_CONNECT_CONTROL),
                     0);
    heliod_set_timeout(x->probe, RX_TIMEOUT_MS);
    x->rss0 = rss_kb(x->d.pid);
    x->fds0 = fd_count(x->d.pid);
    x->xruns0 = th_stat(x->probe, "xruns");
    x->overruns0 = th_stat(x->probe, "callback_overruns");
    assert_true(x->rss0 > 0);
    assert_true(x->fds0 > 0);
    assert_false(isnan(x->xruns0));
}

/* Sanitizer builds run several times slower: deadlines are not checked
 * there, nor with HOSTILE_XRUNS_OK=1. */
static int xruns_relaxed(void) {
    const char *e = getenv("HOSTILE_XRUNS_OK");
    return SANITIZED || (e && *e == '1');
}

/* After an attack: alive, prompt, no new xruns, memory and fds bounded. */
static void fx_check(fx_t *x, const char *what, long rss_slack_kb) {
    assert_true(th_daemon_alive(&x->d));
    double t0 = now_ms();
    assert_int_equal(heliod_ping(x->probe, NULL), 0);
    double rtt = now_ms() - t0;
    if (rtt > x->worst_ping_ms) x->worst_ping_ms = rtt;
    /* a fresh connection is served too */
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, x->d.sock, "fresh"), 0);
    assert_int_equal(heliod_ping(h, NULL), 0);
    heliod_close(h);
    double xr = th_stat(x->probe, "xruns");
    long rss = rss_kb(x->d.pid);
    int fds = fd_count(x->d.pid);
    fprintf(stderr, "# %-28s ping %.2f ms, rss %ld kB (+%ld), fds %d (base %d), xruns %.0f\n", what,
            rtt, rss, rss - x->rss0, fds, x->fds0, xr);
    assert_true(rtt < PING_BUDGET_MS);
    if (!xruns_relaxed()) assert_true(th_deadlines_ok(x->probe, x->xruns0, x->overruns0));
    if (!SANITIZED) assert_true(rss - x->rss0 < rss_slack_kb);
    assert_true(fds <= x->fds0 + FD_SLACK);
}

static void fx_stop(fx_t *x) {
    heliod_close(x->probe);
    x->probe = NULL;
    /* a clean exit: under ASan a leak makes this non-zero */
    int rc = th_daemon_stop(&x->d, NULL);
    if (rc != 0) fprintf(stderr, "# daemon exit status %d, log %s\n", rc, x->d.log);
    assert_int_equal(rc, 0);
    th_daemon_cleanup(&x->d);
    g_fx = NULL;
}

static int teardown(void **state) {
    (void)state;
    if (g_fx) {
        if (g_fx->probe) heliod_close(g_fx->probe);
        if (g_fx->d.pid > 0) {
            kill(g_fx->d.pid, SIGKILL);
            waitpid(g_fx->d.pid, NULL, 0);
            g_fx->d.pid = 0;
        }
        th_daemon_cleanup(&g_fx->d);
        g_fx = NULL;
    }
    return 0;
}

/* Ping latency measured on the probe while fn keeps attacking (worst case). */
static double probe_ping_ms(fx_t *x) {
    double t0 = now_ms();
    if (heliod_ping(x->probe, NULL) != 0) return 1e9;
    double rtt = now_ms() - t0;
    if (rtt > x->worst_ping_ms) x->worst_ping_ms = rtt;
    return rtt;
}

/* ---- attacks ---------------------------------------------------------------- */

/* A client that writes requests and never reads: its reads are paused (the
 * daemon does not buffer past HL_OUTQ_PAUSE for it); a subscriber that stops
 * reading while events pile past HL_OUTQ_MAX is dropped. */
static void test_unread_replies(void **state) {
    (void)state;
    static fx_t x;
    const char *args[] = {"--voices", "512", NULL};
    fx_start(&x, args);
    int fd = raw_open(x.d.sock);
    assert_true(fd >= 0);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    /* STATS replies are ~2 KiB for a 4-byte request: amplification */
    uint8_t frame[HL_FRAME_HDR + 4];
    hl_wbuf_t w;
    hl_wbuf_init(&w, frame, sizeof frame);
    hl_frame_begin(&w, HL_OP_STATS, 0, 7);
    hl_put_u32(&w, 0);
    assert_int_equal(hl_frame_end(&w), (int)sizeof frame);
    size_t sent = 0;
    double worst = 0, end = now_ms() + 1500;
    while (now_ms() < end) {
        ssize_t n = send(fd, frame, sizeof frame, MSG_NOSIGNAL);
        if (n == (ssize_t)sizeof frame) {
            sent += (size_t)n;
            continue;
        }
        if (n > 0) { /* partial: finish the frame so the stream stays well formed */
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            poll(&pf, 1, 100);
            size_t rest = sizeof frame - (size_t)n;
            if (send(fd, frame + n, rest, MSG_NOSIGNAL) == (ssize_t)rest) sent += sizeof frame;
        }
        double r = probe_ping_ms(&x);
        if (r > worst) worst = r;
        th_sleep_ms(20);
    }
    fprintf(stderr,
            "# non-reader wrote %zu bytes of requests before the daemon stopped reading; "
            "worst probe ping %.2f ms\n",
            sent, worst);
    assert_true(sent > 0);
    assert_true(sent < 64u * 1024 * 1024); /* the daemon did stop reading it */
    assert_true(worst < PING_BUDGET_MS);
    assert_int_equal(th_stat(x.probe, "clients"), 2); /* paused, not dropped */
    fx_check(&x, "non-reader paused", RSS_SLACK_KB);

    /* now a watcher that stops reading while events flood */
    int watcher = raw_open(x.d.sock);
    assert_true(watcher >= 0);
    uint8_t sb[4];
    hl_wbuf_init(&w, sb, sizeof sb);
    hl_put_u32(&w, HL_SUB_ALL | HL_SUB_ENDED | HL_SUB_STARTED);
    frame_t *f = malloc(sizeof *f);
    assert_non_null(f);
    assert_int_equal(send_raw(watcher, HL_OP_SUBSCRIBE, 0, 2, sb, 4), 0);
    assert_int_equal(read_reply(watcher, 2, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, 0);
    int rcvbuf = 4096;
    setsockopt(watcher, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    char path[400];
    snprintf(path, sizeof path, "%s/tick.wav", x.d.dir);
    assert_int_equal(th_write_sine(path, 48000, 0.001, 1000, 0.1), 0);
    heliod_t *player = NULL;
    assert_int_equal(heliod_connect(&player, x.d.sock, "player"), 0);
    assert_int_equal(heliod_load(player, "tick", path, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.fade_in_ms = 0;
    int dropped = 0;
    end = now_ms() + 20000;
    while (!dropped && now_ms() < end) {
        for (int i = 0; i < 400; i++)
            heliod_play_async(player, "tick", &pp, NULL, NULL);
        heliod_sync(player);
        if (th_stat(x.probe, "clients") < 4) dropped = 1; /* probe, non-reader, player */
    }
    heliod_close(player);
    free(f);
    fprintf(stderr, "# event flood: unread watcher %s\n", dropped ? "dropped" : "NOT dropped");
    assert_true(dropped);
    assert_true(closed_by_peer(watcher, 2000) || 1); /* its socket may still hold data */
    close(watcher);
    close(fd);
    fx_check(&x, "after event flood", RSS_SLACK_KB);
    fx_stop(&x);
}

/* Slowloris and silent connections: the handshake must complete within
 * HANDSHAKE_MS of connecting and a started frame within HANDSHAKE_MS of its
 * first byte, so neither can hold a client slot; meanwhile others are served. */
static void test_slowloris(void **state) {
    (void)state;
    static fx_t x;
    fx_start(&x, NULL);
    enum { N = 60 };
    int silent[N], slow[N], slow_hello[N];
    uint8_t hello[128];
    hl_wbuf_t w;
    hl_wbuf_init(&w, g_buf, sizeof g_buf);
    size_t hb = enc_hello(hello, sizeof hello);
    hl_frame_begin(&w, HL_OP_HELLO, 0, 1);
    for (size_t i = 0; i < hb; i++)
        hl_put_u8(&w, hello[i]);
    int hlen = hl_frame_end(&w);
    uint8_t hframe[128];
    memcpy(hframe, g_buf, (size_t)hlen);
    for (int i = 0; i < N; i++) {
        silent[i] = th_raw_connect(x.d.sock);
        slow[i] = th_raw_connect(x.d.sock);
        slow_hello[i] = raw_open(x.d.sock); /* handshaken, then dribbles a PING header */
        assert_true(silent[i] >= 0 && slow[i] >= 0 && slow_hello[i] >= 0);
    }
    uint8_t ping[HL_FRAME_HDR];
    hl_wbuf_init(&w, ping, sizeof ping);
    hl_frame_begin(&w, HL_OP_PING, 0, 9);
    hl_frame_end(&w);
    /* one more silent connection, watched for its EHANDSHAKE error while the
     * attack runs (it arrives with the others' deadlines: one wait for all) */
    int s = th_raw_connect(x.d.sock);
    assert_true(s >= 0);
    double worst = 0, t0 = now_ms(), ts = t0, t_err = -1;
    int step = 0;
    int slow_closed = 0, hello_closed = 0;
    /* until the daemon has closed every attacker (only the probe is left;
     * each deadline is HANDSHAKE_MS from its first byte), at most a margin
     * of 2.5 s beyond the deadline */
    int attackers_left = 1;
    while (now_ms() - t0 < HANDSHAKE_MS + 2500 && (attackers_left || t_err < 0)) {
        for (int i = 0; i < N; i++) {
            if (step < hlen && slow[i] >= 0 && send(slow[i], hframe + step, 1, MSG_NOSIGNAL) != 1) {
                close(slow[i]);
                slow[i] = -1;
                slow_closed++;
            }
            if (step < HL_FRAME_HDR - 1 && slow_hello[i] >= 0 &&
                send(slow_hello[i], ping + step, 1, MSG_NOSIGNAL) != 1) {
                close(slow_hello[i]);
                slow_hello[i] = -1;
                hello_closed++;
            }
        }
        step = step < hlen - 2 ? step + 1 : step; /* never complete the frame */
        double r = probe_ping_ms(&x);
        if (r > worst) worst = r;
        if (now_ms() - t0 >= HANDSHAKE_MS - 200) attackers_left = th_stat(x.probe, "clients") > 1;
        /* 100 ms between steps; the silent connection's error is timed as
         * it arrives */
        struct pollfd pf = {.fd = s, .events = POLLIN};
        if (t_err < 0 && poll(&pf, 1, 100) == 1)
            t_err = now_ms();
        else if (t_err >= 0)
            th_sleep_ms(100);
    }
    fprintf(stderr, "# slowloris: worst probe ping %.2f ms, clients now %.0f\n", worst,
            th_stat(x.probe, "clients"));
    assert_true(worst < PING_BUDGET_MS);
    /* every attacker was closed by the deadline */
    for (int i = 0; i < N; i++) {
        assert_true(closed_by_peer(silent[i], 500));
        if (slow[i] >= 0) assert_true(closed_by_peer(slow[i], 500));
        if (slow_hello[i] >= 0) assert_true(closed_by_peer(slow_hello[i], 500));
    }
    assert_int_equal(th_stat(x.probe, "clients"), 1);
    /* a silent connection gets an EHANDSHAKE error (not before its
     * deadline) before it is closed */
    frame_t *f = malloc(sizeof *f);
    assert_non_null(f);
    assert_int_equal(read_frame(s, f, 2000), 1);
    assert_int_equal(f->status, HELIOD_EHANDSHAKE);
    fprintf(stderr, "# slowloris: EHANDSHAKE after %.0f ms (deadline %d ms)\n", t_err - ts,
            HANDSHAKE_MS);
    assert_true(t_err >= 0 && t_err - ts >= HANDSHAKE_MS - 200);
    assert_true(closed_by_peer(s, 1000));
    close(s);
    free(f);
    for (int i = 0; i < N; i++) {
        close(silent[i]);
        if (slow[i] >= 0) close(slow[i]);
        if (slow_hello[i] >= 0) close(slow_hello[i]);
    }
    (void)slow_closed;
    (void)hello_closed;
    fx_check(&x, "slowloris", RSS_SLACK_KB);
    fx_stop(&x);
}

/* More than HL_MAX_CLIENTS clients: HL_MAX_CLIENTS plain clients handshake;
 * the next plain HELLO is answered "server full" (EBUSY) and closed; the
 * CONTROL_PLACES places above are kept for control clients, one per process
 * (the probe holds this process's: a second control HELLO is refused);
 * connections beyond those get the error frame at accept. Every refusal is counted in
 * clients_rejected; the first clients keep working. */
#define CONTROL_PLACES 4 /* HLD_CONTROL_PLACES */
static void test_too_many_clients(void **state) {
    (void)state;
    static fx_t x;
    fx_start(&x, NULL);
    double rej0 = th_stat(x.probe, "clients_rejected");
    enum { EXTRA = 20 };
    int fds[MAX_CLIENTS + CONTROL_PLACES];
    int n = 0;
    uint8_t b[128];
    size_t hb = enc_hello(b, sizeof b);
    frame_t *f = malloc(sizeof *f);
    assert_non_null(f);
    for (int i = 0; i < MAX_CLIENTS; i++) { /* every plain place */
        fds[n] = th_raw_connect(x.d.sock);
        assert_true(fds[n] >= 0);
        assert_int_equal(send_raw(fds[n], HL_OP_HELLO, 0, 1, b, hb), 0);
        assert_int_equal(read_reply(fds[n], 1, f, RX_TIMEOUT_MS), 1);
        assert_int_equal(f->status, 0);
        n++;
    }
    /* one plain client more: server full at HELLO */
    int fd = th_raw_connect(x.d.sock);
    assert_true(fd >= 0);
    assert_int_equal(send_raw(fd, HL_OP_HELLO, 0, 1, b, hb), 0);
    assert_int_equal(read_frame(fd, f, RX_TIMEOUT_MS), 1); /* id 0, as at accept */
    assert_int_equal(f->op, HL_OP_REPLY);
    assert_int_equal(f->status, HELIOD_EBUSY);
    assert_non_null(strstr(f->msg, "server full"));
    assert_true(closed_by_peer(fd, 1000));
    close(fd);
    /* the kept places are one per process: the probe (a control client of
     * this process) holds one, so another control HELLO from this process
     * finds neither a kept place nor an ordinary one */
    size_t hc = enc_hello_flags(b, sizeof b, HL_HELLO_CONTROL);
    fd = th_raw_connect(x.d.sock);
    assert_true(fd >= 0);
    assert_int_equal(send_raw(fd, HL_OP_HELLO, 0, 1, b, hc), 0);
    assert_int_equal(read_frame(fd, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, HELIOD_EBUSY);
    assert_non_null(strstr(f->msg, "one each"));
    assert_true(closed_by_peer(fd, 1000));
    close(fd);
    /* the other kept places: connections not past HELLO yet hold them too */
    for (int i = 0; i < CONTROL_PLACES - 1; i++) {
        fds[n] = th_raw_connect(x.d.sock);
        assert_true(fds[n] >= 0);
        n++;
    }
    for (int i = 0; i < 200 && th_stat(x.probe, "clients") < MAX_CLIENTS + CONTROL_PLACES; i++)
        th_sleep_ms(5);
    /* now every place is taken: refused at accept */
    for (int i = 0; i < EXTRA; i++) {
        fd = th_raw_connect(x.d.sock);
        assert_true(fd >= 0);
        assert_int_equal(read_frame(fd, f, RX_TIMEOUT_MS), 1);
        assert_int_equal(f->op, HL_OP_REPLY);
        assert_int_equal(f->status, HELIOD_EBUSY);
        assert_non_null(strstr(f->msg, "too many"));
        assert_true(closed_by_peer(fd, 1000));
        close(fd);
    }
    assert_true(probe_ping_ms(&x) < PING_BUDGET_MS);
    assert_int_equal(th_stat(x.probe, "clients_rejected") - rej0, EXTRA + 2);
    assert_int_equal(th_stat(x.probe, "clients"), MAX_CLIENTS + CONTROL_PLACES);
    assert_int_equal(th_stat(x.probe, "clients_control"), CONTROL_PLACES);
    /* the accepted ones still work */
    assert_int_equal(send_raw(fds[0], HL_OP_PING, 0, 2, NULL, 0), 0);
    assert_int_equal(read_reply(fds[0], 2, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, 0);
    free(f);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    th_sleep_ms(200);
    fx_check(&x, "over HL_MAX_CLIENTS", RSS_SLACK_KB);
    fx_stop(&x);
}

/* Descriptor exhaustion: the daemon's RLIMIT_NOFILE is lowered below what the
 * attackers open. No busy loop (CPU stays low), the probe is served, and the
 * daemon accepts again once they close. */
static void test_fd_exhaustion(void **state) {
    (void)state;
    static fx_t x;
    fx_start(&x, NULL);
    int used = fd_count(x.d.pid);
    struct rlimit orig, rl;
    assert_int_equal(prlimit(x.d.pid, RLIMIT_NOFILE, NULL, &orig), 0);
    rl = orig;
    rl.rlim_cur = (rlim_t)used + 24; /* soft limit only: it can be raised back */
    assert_int_equal(prlimit(x.d.pid, RLIMIT_NOFILE, &rl, NULL), 0);
    enum { N = 80 };
    int fds[N];
    for (int i = 0; i < N; i++)
        fds[i] = th_raw_connect(x.d.sock); /* backlog accepts at kernel level */
    double c0 = cpu_s(x.d.pid);
    double worst = 0;
    for (int i = 0; i < 15; i++) {
        double r = probe_ping_ms(&x);
        if (r > worst) worst = r;
        th_sleep_ms(100);
    }
    double used_cpu = cpu_s(x.d.pid) - c0;
    fprintf(stderr, "# fd exhaustion: daemon cpu %.3f s over 1.5 s, worst ping %.2f ms\n", used_cpu,
            worst);
    assert_true(used_cpu < 0.5);
    assert_true(worst < PING_BUDGET_MS);
    assert_true(th_daemon_alive(&x.d));
    for (int i = 0; i < N; i++)
        if (fds[i] >= 0) close(fds[i]);
    th_sleep_ms(300);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, x.d.sock, "after"), 0);
    assert_int_equal(heliod_ping(h, NULL), 0);
    heliod_close(h);
    assert_int_equal(prlimit(x.d.pid, RLIMIT_NOFILE, &orig, NULL), 0);
    fx_check(&x, "fd exhaustion", RSS_SLACK_KB);
    fx_stop(&x);
}

/* ---- malformed bodies for every opcode --------------------------------------- */

typedef struct {
    const char *what;
    uint16_t op;
    uint8_t body[256];
    size_t len;
    int32_t want;   /* expected status */
    int must_close; /* protocol error: the daemon closes after the reply */
} bad_t;

static void put_str_raw(hl_wbuf_t *w, const char *s, size_t n) {
    hl_put_u16(w, (uint16_t)n);
    for (size_t i = 0; i < n; i++)
        hl_put_u8(w, (uint8_t)s[i]);
}

/* An empty post stage (PLAY, SET): no filters, no sends. */
static void put_post_none(hl_wbuf_t *w) {
    for (int i = 0; i < 4; i++)
        hl_put_f32(w, 0);
    for (int i = 0; i < HL_VOICE_SENDS; i++) {
        put_str_raw(w, "", 0);
        hl_put_f32(w, 0);
    }
}

static size_t enc_play(uint8_t *b, size_t cap, const char *sound, uint32_t flags, float gain,
                       float pan, float pitch, int32_t prio, float fade, float mind, float maxd,
                       uint8_t model, const char *bus) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, cap);
    hl_play_t m = {.flags = flags,
                   .gain_db = gain,
                   .pan = pan,
                   .pitch = pitch,
                   .priority = prio,
                   .fade_in_ms = fade,
                   .min_distance = mind,
                   .max_distance = maxd,
                   .rolloff = 1,
                   .model = model};
    snprintf(m.sound, sizeof m.sound, "%s", sound);
    snprintf(m.bus, sizeof m.bus, "%s", bus);
    /* write by hand so out-of-range values reach the wire */
    put_str_raw(&w, m.sound, strlen(m.sound));
    hl_put_u32(&w, m.flags);
    hl_put_f32(&w, m.gain_db);
    hl_put_f32(&w, m.pan);
    for (int i = 0; i < 3; i++)
        hl_put_f32(&w, 0);
    hl_put_f32(&w, m.pitch);
    hl_put_i32(&w, m.priority);
    hl_put_f32(&w, m.fade_in_ms);
    hl_put_f32(&w, m.min_distance);
    hl_put_f32(&w, m.max_distance);
    hl_put_f32(&w, m.rolloff);
    hl_put_u8(&w, model);
    put_str_raw(&w, m.bus, strlen(m.bus));
    for (int i = 0; i < 4; i++)
        hl_put_u32(&w, 0);
    for (int i = 0; i < 3; i++) /* vel */
        hl_put_f32(&w, 0);
    put_str_raw(&w, "", 0); /* emitter */
    hl_put_u32(&w, 0);      /* over */
    put_post_none(&w);
    return w.len;
}

static size_t enc_stop(uint8_t *b, uint64_t voice, float fade) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, 64);
    hl_put_u64(&w, voice);
    hl_put_f32(&w, fade);
    hl_put_u8(&w, 0); /* curve: the voice's own */
    return w.len;
}

static size_t enc_set(uint8_t *b, uint64_t voice, uint32_t mask, float gain, float pitch,
                      float ramp, double seek) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, 128);
    hl_put_u64(&w, voice);
    hl_put_u32(&w, mask);
    hl_put_f32(&w, gain);
    hl_put_f32(&w, 0);
    for (int i = 0; i < 3; i++)
        hl_put_f32(&w, 0);
    hl_put_f32(&w, pitch);
    hl_put_f32(&w, ramp);
    hl_put_f64(&w, seek);
    for (int i = 0; i < 3; i++) /* vel */
        hl_put_f32(&w, 0);
    put_post_none(&w);
    return w.len;
}

static size_t enc_bus(uint8_t *b, const char *name, uint32_t mask, float gain, float ramp) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, 128);
    put_str_raw(&w, name, strlen(name));
    hl_put_u32(&w, mask);
    hl_put_f32(&w, gain);
    hl_put_f32(&w, ramp);
    hl_put_u8(&w, 0);       /* mute */
    put_str_raw(&w, "", 0); /* parent */
    put_str_raw(&w, "", 0); /* send */
    hl_put_f32(&w, 0);      /* send_db */
    return w.len;
}

static size_t enc_listener(uint8_t *b, uint32_t mask, float v) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, 128);
    hl_put_u32(&w, mask);
    for (int i = 0; i < 12; i++)
        hl_put_f32(&w, v);
    return w.len;
}

/* Sends one bad request on a fresh handshaken connection and checks the answer
 * and whether the connection survived. */
static void try_bad(fx_t *x, const bad_t *b, frame_t *f) {
    int fd = raw_open(x->d.sock);
    assert_true(fd >= 0);
    assert_int_equal(send_raw(fd, b->op, 0, 42, b->body, b->len), 0);
    int rc = read_reply(fd, 42, f, RX_TIMEOUT_MS);
    if (rc != 1 || f->status != b->want)
        fprintf(stderr, "# %s: rc %d status %d (%s), want %d\n", b->what, rc, f->status, f->msg,
                b->want);
    assert_int_equal(rc, 1);
    assert_int_equal(f->status, b->want);
    assert_true(f->msg[0] != 0); /* a clear message */
    if (b->must_close) {
        assert_true(closed_by_peer(fd, 2000));
    } else {
        assert_true(raw_ping_ms(fd, 43) >= 0);
    }
    close(fd);
}

static void test_malformed_bodies(void **state) {
    (void)state;
    static fx_t x;
    fx_start(&x, NULL);
    char path[400];
    snprintf(path, sizeof path, "%s/s.wav", x.d.dir);
    assert_int_equal(th_write_sine(path, 48000, 0.5, 440, 0.2), 0);
    assert_int_equal(heliod_load(x.probe, "s", path, HELIOD_LOAD_SHARED, NULL), 0);
    heliod_voice_t stale = 0;
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(x.probe, "s", &pp, &stale, NULL), 0);
    assert_int_equal(heliod_stop(x.probe, stale, 0), 0);
    th_sleep_ms(100); /* ended: the handle is stale */

    static bad_t t[96];
    size_t n = 0;
    hl_wbuf_t w;
    const int P = HELIOD_EPROTO, I = HELIOD_EINVAL;
#define ADD(desc, opc, st, cl)                                                                     \
    do {                                                                                           \
        t[n].what = desc;                                                                          \
        t[n].op = opc;                                                                             \
        t[n].want = st;                                                                            \
        t[n].must_close = cl;                                                                      \
        n++;                                                                                       \
    } while (0)
    /* every fixed-size opcode: one byte short, one byte long */
    struct {
        uint16_t op;
        size_t len;
    } fixed[] = {{HL_OP_STOP, 13},     {HL_OP_STOP_ALL, 5}, {HL_OP_SET, 88}, {HL_OP_LISTENER, 52},
                 {HL_OP_SUBSCRIBE, 4}, {HL_OP_PAUSE, 4},    {HL_OP_PING, 0}, {HL_OP_SOUNDS, 0},
                 {HL_OP_VOICES, 0},    {HL_OP_DEVICES, 0},  {HL_OP_STATS, 4}};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
        if (fixed[k].len) {
            memset(t[n].body, 0, sizeof t[n].body);
            t[n].len = fixed[k].len - 1;
            ADD("truncated", fixed[k].op, P, 1);
        }
        memset(t[n].body, 0, sizeof t[n].body);
        t[n].len = fixed[k].len + 1;
        ADD("over-long", fixed[k].op, P, 1);
    }
    /* strings: length past the body, over the limit, NUL inside */
    hl_wbuf_init(&w, t[n].body, 256);
    hl_put_u16(&w, 200);
    put_str_raw(&w, "abc", 3);
    t[n].len = w.len;
    ADD("unload: string length past body", HL_OP_UNLOAD, P, 1);
    hl_wbuf_init(&w, t[n].body, 256);
    put_str_raw(&w, "0123456789012345678901234567890123456789012345678901234567890123", 64);
    t[n].len = w.len;
    ADD("unload: name of 64 bytes", HL_OP_UNLOAD, P, 1);
    hl_wbuf_init(&w, t[n].body, 256);
    put_str_raw(&w, "a\0b", 3);
    t[n].len = w.len;
    ADD("unload: NUL inside", HL_OP_UNLOAD, P, 1);
    hl_wbuf_init(&w, t[n].body, 256);
    put_str_raw(&w, "a b/..", 6);
    t[n].len = w.len;
    ADD("unload: bad characters", HL_OP_UNLOAD, HELIOD_ENOSOUND, 0);
    hl_wbuf_init(&w, t[n].body, 256);
    put_str_raw(&w, "nope", 4);
    t[n].len = w.len;
    ADD("unload: unknown", HL_OP_UNLOAD, HELIOD_ENOSOUND, 0);
    hl_wbuf_init(&w, t[n].body, 256);
    put_str_raw(&w, "x", 1);
    put_str_raw(&w, path, strlen(path));
    hl_put_u32(&w, 0x80);
    t[n].len = w.len;
    ADD("load: unknown flag", HL_OP_LOAD, P, 1);
    hl_wbuf_init(&w, t[n].body, 256);
    put_str_raw(&w, "bad name!", 9);
    put_str_raw(&w, path, strlen(path));
    hl_put_u32(&w, 0);
    t[n].len = w.len;
    ADD("load: bad name", HL_OP_LOAD, HELIOD_ENAME, 0);
    hl_wbuf_init(&w, t[n].body, 256);
    put_str_raw(&w, "rel", 3);
    put_str_raw(&w, "", 0);
    hl_put_u32(&w, 0);
    t[n].len = w.len;
    ADD("load: empty path", HL_OP_LOAD, I, 0);
    hl_wbuf_init(&w, t[n].body, 256);
    put_str_raw(&w, "s", 1);
    put_str_raw(&w, path, strlen(path));
    hl_put_u32(&w, HL_LOAD_SHARED); /* the probe loaded a shared "s" */
    t[n].len = w.len;
    ADD("load: existing name", HL_OP_LOAD, HELIOD_EEXIST, 0);
    /* PLAY: NaN, Inf, huge, enums, flags, names */
    t[n].len = enc_play(t[n].body, 256, "s", 0, NAN, 0, 1, 0, -1, 1, 100, 1, "");
    ADD("play: gain NaN", HL_OP_PLAY, I, 0);
    t[n].len = enc_play(t[n].body, 256, "s", 0, INFINITY, 0, 1, 0, -1, 1, 100, 1, "");
    ADD("play: gain +Inf", HL_OP_PLAY, I, 0);
    t[n].len = enc_play(t[n].body, 256, "s", 0, 0, NAN, 1, 0, -1, 1, 100, 1, "");
    ADD("play: pan NaN", HL_OP_PLAY, I, 0);
    t[n].len = enc_play(t[n].body, 256, "s", 0, 0, 0, 1e30f, 0, -1, 1, 100, 1, "");
    ADD("play: pitch huge", HL_OP_PLAY, I, 0);
    t[n].len = enc_play(t[n].body, 256, "s", 0, 0, 0, 1, 1 << 30, -1, 1, 100, 1, "");
    ADD("play: priority huge", HL_OP_PLAY, I, 0);
    t[n].len = enc_play(t[n].body, 256, "s", 0, 0, 0, 1, 0, -2, 1, 100, 1, "");
    ADD("play: fade -2", HL_OP_PLAY, I, 0);
    t[n].len = enc_play(t[n].body, 256, "s", 0, 0, 0, 1, 0, -1, 5, 5, 1, "");
    ADD("play: max == min distance", HL_OP_PLAY, I, 0);
    t[n].len = enc_play(t[n].body, 256, "s", 0, 0, 0, 1, 0, -1, 1, 100, 7, "");
    ADD("play: model 7", HL_OP_PLAY, P, 1);
    t[n].len = enc_play(t[n].body, 256, "s", 0x100, 0, 0, 1, 0, -1, 1, 100, 1, "");
    ADD("play: unknown flag", HL_OP_PLAY, P, 1);
    t[n].len = enc_play(t[n].body, 256, "nosuch", 0, 0, 0, 1, 0, -1, 1, 100, 1, "");
    ADD("play: unknown sound", HL_OP_PLAY, HELIOD_ENOSOUND, 0);
    t[n].len = enc_play(t[n].body, 256, "s", 0, 0, 0, 1, 0, -1, 1, 100, 1, "nobus");
    ADD("play: unknown bus", HL_OP_PLAY, HELIOD_ENOBUS, 0);
    /* handles: 0, max, stale */
    t[n].len = enc_stop(t[n].body, 0, -1);
    ADD("stop: handle 0", HL_OP_STOP, HELIOD_ENOVOICE, 0);
    t[n].len = enc_stop(t[n].body, UINT64_MAX, -1);
    ADD("stop: handle max", HL_OP_STOP, HELIOD_ENOVOICE, 0);
    t[n].len = enc_stop(t[n].body, stale, -1);
    ADD("stop: stale handle", HL_OP_STOP, HELIOD_ENOVOICE, 0);
    t[n].len = enc_stop(t[n].body, stale, NAN);
    ADD("stop: fade NaN", HL_OP_STOP, I, 0);
    t[n].len = enc_stop(t[n].body, stale, -5);
    ADD("stop: fade -5", HL_OP_STOP, I, 0);
    t[n].len = enc_set(t[n].body, 0, HL_SET_GAIN, 0, 1, 0, 0);
    ADD("set: handle 0", HL_OP_SET, I, 0);
    t[n].len = enc_set(t[n].body, UINT64_MAX, HL_SET_GAIN, 0, 1, 0, 0);
    ADD("set: handle max", HL_OP_SET, HELIOD_ENOVOICE, 0);
    t[n].len = enc_set(t[n].body, stale, HL_SET_SEEK, 0, 1, 0, 0.1);
    ADD("set: seek stale", HL_OP_SET, HELIOD_ENOVOICE, 0);
    t[n].len = enc_set(t[n].body, stale, HL_SET_GAIN, INFINITY, 1, 0, 0);
    ADD("set: gain Inf", HL_OP_SET, I, 0);
    t[n].len = enc_set(t[n].body, stale, HL_SET_PITCH, 0, NAN, 0, 0);
    ADD("set: pitch NaN", HL_OP_SET, I, 0);
    t[n].len = enc_set(t[n].body, stale, HL_SET_SEEK, 0, 1, 0, NAN);
    ADD("set: seek NaN", HL_OP_SET, I, 0);
    t[n].len = enc_set(t[n].body, stale, HL_SET_GAIN, 0, 1, 1e9f, 0);
    ADD("set: ramp huge", HL_OP_SET, I, 0);
    t[n].len = enc_set(t[n].body, stale, HL_SET_MASK + 1u, 0, 1, 0, 0);
    ADD("set: unknown mask", HL_OP_SET, P, 1);
    t[n].len = enc_bus(t[n].body, "sfx", HL_BUS_GAIN, -INFINITY, 0);
    ADD("bus: gain -Inf", HL_OP_BUS, I, 0);
    t[n].len = enc_bus(t[n].body, "sfx", HL_BUS_GAIN, NAN, 0);
    ADD("bus: gain NaN", HL_OP_BUS, I, 0);
    t[n].len = enc_bus(t[n].body, "sfx", HL_BUS_GAIN, 0, -3);
    ADD("bus: ramp negative", HL_OP_BUS, I, 0);
    t[n].len = enc_bus(t[n].body, "nobus", HL_BUS_GAIN, 0, 0);
    ADD("bus: unknown bus", HL_OP_BUS, HELIOD_ENOBUS, 0);
    t[n].len = enc_bus(t[n].body, "sfx", 0x80, 0, 0);
    ADD("bus: unknown mask", HL_OP_BUS, P, 1);
    t[n].len = enc_listener(t[n].body, HL_LIS_POS, NAN);
    ADD("listener: pos NaN", HL_OP_LISTENER, I, 0);
    t[n].len = enc_listener(t[n].body, HL_LIS_FWD, 0);
    ADD("listener: zero forward", HL_OP_LISTENER, I, 0);
    t[n].len = enc_listener(t[n].body, HL_LIS_VEL, 1e30f);
    ADD("listener: velocity huge", HL_OP_LISTENER, I, 0);
    t[n].len = enc_listener(t[n].body, 0x100, 0);
    ADD("listener: unknown mask", HL_OP_LISTENER, P, 1);
    hl_wbuf_init(&w, t[n].body, 256);
    hl_put_f32(&w, -1);
    hl_put_u8(&w, 9);
    t[n].len = w.len;
    ADD("stop-all: scope 9", HL_OP_STOP_ALL, P, 1);
    hl_wbuf_init(&w, t[n].body, 256);
    hl_put_f32(&w, -7);
    hl_put_u8(&w, 0);
    t[n].len = w.len;
    ADD("stop-all: fade -7", HL_OP_STOP_ALL, I, 0);
    hl_wbuf_init(&w, t[n].body, 256);
    hl_put_u8(&w, 5);
    hl_put_u8(&w, 0);
    t[n].len = w.len;
    ADD("pause: pause 5", HL_OP_PAUSE, P, 1);
    hl_wbuf_init(&w, t[n].body, 256);
    hl_put_u32(&w, 0x800); /* 0x200 STREAM, 0x400 MUSIC (1.1) */
    t[n].len = w.len;
    ADD("subscribe: unknown bit", HL_OP_SUBSCRIBE, P, 1);
    hl_wbuf_init(&w, t[n].body, 256);
    hl_put_u32(&w, 0x80);
    t[n].len = w.len;
    ADD("stats: unknown flag", HL_OP_STATS, P, 1);
    t[n].len = 0;
    ADD("unknown opcode", 77, HELIOD_EBADOP, 0);
    hl_wbuf_init(&w, t[n].body, 256);
    hl_put_u16(&w, 1);
    put_str_raw(&w, "x", 1);
    hl_put_u32(&w, 0); /* flags */
    t[n].len = w.len;
    ADD("second hello", HL_OP_HELLO, I, 0);
#undef ADD
    assert_true(n <= sizeof t / sizeof t[0]);
    frame_t *f = malloc(sizeof *f);
    assert_non_null(f);
    for (size_t i = 0; i < n; i++)
        try_bad(&x, &t[i], f);

    /* frame headers: size below 12, above the maximum, unknown flag bits */
    uint32_t sizes[] = {0, 11, HL_MAX_FRAME + 1, UINT32_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] + 1; i++) {
        int fd = raw_open(x.d.sock);
        assert_true(fd >= 0);
        uint8_t h[HL_FRAME_HDR];
        hl_wbuf_init(&w, h, sizeof h);
        hl_put_u32(&w, i < 4 ? sizes[i] : HL_FRAME_HDR);
        hl_put_u16(&w, HL_OP_PING);
        hl_put_u16(&w, i < 4 ? 0 : 0x8000);
        hl_put_u32(&w, 5);
        assert_int_equal(write_all(fd, h, sizeof h), 0);
        assert_int_equal(read_frame(fd, f, RX_TIMEOUT_MS), 1);
        assert_int_equal(f->status, HELIOD_EPROTO);
        assert_true(closed_by_peer(fd, 2000));
        close(fd);
    }
    /* a protocol error from a client that never reads its replies: the
     * daemon must not keep the half-closed connection (and its descriptor)
     * forever. The replies queued before it overflow the socket buffer (about
     * 208 KiB) but stay under the 256 KiB at which reads would pause. */
    int fd = raw_open(x.d.sock);
    assert_true(fd >= 0);
    uint8_t sq[HL_FRAME_HDR + 4];
    hl_wbuf_init(&w, sq, sizeof sq);
    hl_frame_begin(&w, HL_OP_STATS, 0, 3);
    hl_put_u32(&w, 0);
    assert_int_equal(hl_frame_end(&w), (int)sizeof sq);
    assert_int_equal(write_all(fd, sq, sizeof sq), 0);
    assert_int_equal(read_reply(fd, 3, f, RX_TIMEOUT_MS), 1);
    size_t reply = f->body_len + HL_FRAME_HDR;
    int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    size_t nreq = (size_t)(340 * 1024) / reply;
    uint8_t *flood = malloc(nreq * sizeof sq + HL_FRAME_HDR);
    assert_non_null(flood);
    for (size_t i = 0; i < nreq; i++)
        memcpy(flood + i * sizeof sq, sq, sizeof sq);
    memset(flood + nreq * sizeof sq, 0, HL_FRAME_HDR); /* size 0: unparseable */
    assert_int_equal(write_all(fd, flood, nreq * sizeof sq + HL_FRAME_HDR), 0);
    free(flood);
    th_sleep_ms(300);
    int fds_during = fd_count(x.d.pid);
    th_sleep_ms(2500);
    int fds_now = fd_count(x.d.pid);
    fprintf(stderr,
            "# unread protocol error: %zu replies of %zu bytes; daemon fds %d -> %d (base %d)\n",
            nreq, reply, fds_during, fds_now, x.fds0);
    assert_int_equal(th_stat(x.probe, "clients"), 1);
    assert_true(fds_now <= x.fds0); /* its descriptor was released */
    close(fd);
    free(f);
    fx_check(&x, "malformed bodies", RSS_SLACK_KB);
    fx_stop(&x);
}

/* ---- hostile files and LOAD floods ------------------------------------------ */

static void gen_silence(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    for (int c = 0; c < channels; c++)
        out[c] = (frame & 1) ? 0.01f : -0.01f;
}

static int load_status(heliod_t *h, const char *name, const char *path, uint32_t flags,
                       double *ms) {
    double t0 = now_ms();
    int rc = heliod_load(h, name, path, flags, NULL);
    if (ms) *ms = now_ms() - t0;
    return rc;
}

static void test_hostile_files(void **state) {
    (void)state;
    static fx_t x;
    fx_start(&x, NULL);
    char fifo[400], dir[400], empty[400], longf[400], junk[400], good[400];
    snprintf(fifo, sizeof fifo, "%s/fifo", x.d.dir);
    snprintf(dir, sizeof dir, "%s/adir", x.d.dir);
    snprintf(empty, sizeof empty, "%s/empty.wav", x.d.dir);
    snprintf(longf, sizeof longf, "%s/long.wav", x.d.dir);
    snprintf(junk, sizeof junk, "%s/junk.wav", x.d.dir);
    snprintf(good, sizeof good, "%s/good.wav", x.d.dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    int e = open(empty, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(e >= 0);
    close(e);
    e = open(junk, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(e >= 0);
    assert_int_equal(write(e, "RIFF\xff\xff\xff\x7fWAVEfmt garbage", 24), 24);
    close(e);
    /* just over an hour at 8 kHz (the lowest rate accepted), 8-bit mono: 29 MB */
    assert_int_equal(th_write_sound(longf, SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 1, 8000,
                                    (uint32_t)(3601 * 8000), gen_silence, NULL),
                     0);
    assert_int_equal(th_write_sine(good, 48000, 0.2, 440, 0.2), 0);

    struct {
        const char *name, *path;
        uint32_t flags;
        int want;
    } t[] = {
        {"fifo", fifo, 0, HELIOD_EFILE},
        {"fifo2", fifo, 0, HELIOD_EFILE},
        {"fifo3", fifo, 0, HELIOD_EFILE},
        {"fifo4", fifo, 0, HELIOD_EFILE},
        {"fifo5", fifo, HL_LOAD_STREAM, HELIOD_EFILE},
        {"zero", "/dev/zero", 0, HELIOD_EFILE},
        {"zeros", "/dev/zero", HL_LOAD_STREAM, HELIOD_EFILE},
        {"dir", dir, 0, HELIOD_EFILE},
        {"mem", "/proc/self/mem", 0, HELIOD_EDECODE},
        {"empty", empty, 0, HELIOD_EDECODE},
        {"junk", junk, 0, HELIOD_EDECODE},
        {"missing", "/nonexistent/x.wav", 0, HELIOD_EFILE},
        {"long", longf, 0, HELIOD_ETOOBIG},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        double ms = 0;
        int rc = load_status(x.probe, t[i].name, t[i].path, t[i].flags, &ms);
        fprintf(stderr, "# load %-8s -> %s (%s) in %.1f ms\n", t[i].name, heliod_strerror(rc),
                heliod_last_error(x.probe), ms);
        assert_int_equal(rc, t[i].want);
        assert_true(strlen(heliod_last_error(x.probe)) > 0);
        assert_true(ms < 2000);
    }
    /* the loader still works (the FIFOs did not wedge the worker threads) */
    double ms = 0;
    assert_int_equal(load_status(x.probe, "good", good, 0, &ms), 0);
    assert_true(ms < 2000);
    /* a streamed sound whose file becomes a FIFO after LOAD: PLAY fails clearly */
    char sp[400];
    snprintf(sp, sizeof sp, "%s/swap.wav", x.d.dir);
    assert_int_equal(th_write_sine(sp, 48000, 1.0, 440, 0.2), 0);
    assert_int_equal(heliod_load(x.probe, "swap", sp, HL_LOAD_STREAM, NULL), 0);
    assert_int_equal(unlink(sp), 0);
    assert_int_equal(mkfifo(sp, 0600), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    for (int i = 0; i < 4; i++) {
        heliod_voice_t v = 0;
        double t0 = now_ms();
        int rc = heliod_play(x.probe, "swap", &pp, &v, NULL);
        assert_int_equal(rc, HELIOD_EFILE);
        assert_true(now_ms() - t0 < 2000);
    }
    /* the decoder threads are not wedged: a good stream still plays */
    char sp2[400];
    snprintf(sp2, sizeof sp2, "%s/ok.wav", x.d.dir);
    assert_int_equal(th_write_sine(sp2, 48000, 1.0, 440, 0.2), 0);
    assert_int_equal(heliod_load(x.probe, "okstream", sp2, HL_LOAD_STREAM, NULL), 0);
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(x.probe, "okstream", &pp, &v, NULL), 0);
    assert_true(v != 0);
    fx_check(&x, "hostile files", RSS_SLACK_KB);
    fx_stop(&x);
}

/* Hundreds of LOADs of one big file at once, under a small sample cap:
 * EBUSY past HL_MAX_LOADS_INFLIGHT, ENOMEM past the cap, and the daemon's
 * memory never goes far past the cap while the decodes run. */
static void test_load_flood(void **state) {
    (void)state;
    enum { CAP_MB = 24, LOADS = 300 };
    static fx_t x;
    /* one client floods: its quotas are opened up to the daemon's limits,
     * which are what this attack tests (test_isolation covers the quotas) */
    const char *args[] = {
        "--max-sample-mb", "24", "--client-sample-mb", "24", "--client-loads", "64", NULL};
    fx_start(&x, args);
    char big[400];
    snprintf(big, sizeof big, "%s/big.wav", x.d.dir);
    /* 20 s mono at 48 kHz: 3.84 MB of float at the engine rate */
    assert_int_equal(th_write_sine(big, 48000, 20.0, 220, 0.3), 0);
    int fd = raw_open(x.d.sock);
    assert_true(fd >= 0);
    for (uint32_t i = 0; i < LOADS; i++) {
        uint8_t b[600];
        hl_wbuf_t w;
        hl_wbuf_init(&w, b, sizeof b);
        char name[32];
        snprintf(name, sizeof name, "big%u", i);
        put_str_raw(&w, name, strlen(name));
        put_str_raw(&w, big, strlen(big));
        hl_put_u32(&w, 0);
        assert_int_equal(send_raw(fd, HL_OP_LOAD, 0, 100 + i, b, w.len), 0);
    }
    int ok = 0, busy = 0, nomem = 0, other = 0;
    long peak = 0;
    frame_t *f = malloc(sizeof *f);
    assert_non_null(f);
    for (int i = 0; i < LOADS; i++) {
        assert_int_equal(read_frame(fd, f, 20000), 1);
        assert_int_equal(f->op, HL_OP_REPLY);
        if (f->status == 0)
            ok++;
        else if (f->status == HELIOD_EBUSY)
            busy++;
        else if (f->status == HELIOD_ENOMEM)
            nomem++;
        else
            other++;
        long r = rss_kb(x.d.pid);
        if (r > peak) peak = r;
    }
    free(f);
    fprintf(stderr, "# load flood: %d ok, %d EBUSY, %d ENOMEM, %d other; rss peak +%ld kB\n", ok,
            busy, nomem, other, peak - x.rss0);
    /* the budget evicts loaded sounds nobody plays to make room, so more than
     * CAP_MB / 3 may succeed one after another; what bounds memory is that
     * at most the budget is ever held (the RSS check below) */
    double evictions = th_stat(x.probe, "samples_evictions");
    fprintf(stderr, "# load flood: %.0f evictions\n", evictions);
    assert_true(ok >= 1);
    assert_true(ok <= CAP_MB / 3 || evictions >= ok - CAP_MB / 3);
    assert_true(busy > 0);
    assert_true(nomem > 0);
    assert_int_equal(other, 0);
    if (!SANITIZED) assert_true(peak - x.rss0 < (CAP_MB + 40) * 1024);
    assert_true(th_stat(x.probe, "sample_bytes") <= CAP_MB * 1024.0 * 1024.0);
    close(fd);
    fx_check(&x, "load flood", (CAP_MB + 40) * 1024);
    fx_stop(&x);
}

/* ---- races with ending voices, stealing storms ------------------------------- */

static void test_races_and_storms(void **state) {
    (void)state;
    static fx_t x;
    const char *args[] = {"--voices", "4", "--virtual-voices", "4", "--client-voices", "8", NULL};
    fx_start(&x, args);
    char p[400];
    snprintf(p, sizeof p, "%s/blip.wav", x.d.dir);
    assert_int_equal(th_write_sine(p, 48000, 0.02, 880, 0.2), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    int inuse = 0, unloaded = 0;
    for (int round = 0; round < 40; round++) {
        assert_int_equal(heliod_load(x.probe, "blip", p, 0, NULL), 0);
        heliod_voice_t v[4] = {0};
        for (int i = 0; i < 4; i++)
            assert_int_equal(heliod_play(x.probe, "blip", &pp, &v[i], NULL), 0);
        for (int i = 0; i < 4; i++) {
            heliod_voice_set_t s = {
                .mask = HELIOD_SET_GAIN | HELIOD_SET_PITCH, .gain_db = -3, .pitch = 1.5f};
            int rc = heliod_set(x.probe, v[i], &s);
            assert_true(rc == 0 || rc == HELIOD_ENOVOICE);
            rc = heliod_stop(x.probe, v[i], (float)(round % 3));
            assert_true(rc == 0 || rc == HELIOD_ENOVOICE);
            rc = heliod_stop(x.probe, v[i], 0); /* stop a voice that is ending */
            assert_true(rc == 0 || rc == HELIOD_ENOVOICE);
        }
        for (;;) {
            int rc = heliod_unload(x.probe, "blip");
            if (rc == 0) {
                unloaded++;
                break;
            }
            assert_int_equal(rc, HELIOD_EINUSE);
            inuse++;
            th_sleep_ms(2);
        }
    }
    fprintf(stderr, "# unload races: %d unloads, %d EINUSE answers\n", unloaded, inuse);
    assert_int_equal(unloaded, 40);
    /* play storm with stealing on 4 voices */
    snprintf(p, sizeof p, "%s/long.wav", x.d.dir);
    assert_int_equal(th_write_sine(p, 48000, 2.0, 330, 0.1), 0);
    assert_int_equal(heliod_load(x.probe, "tone", p, 0, NULL), 0);
    int played = 0, refused = 0, stolen_n = 0;
    for (int i = 0; i < 2000; i++) {
        pp.priority = (i * 37) % 2001 - 1000;
        heliod_voice_t v = 0, st = 0;
        int rc = heliod_play(x.probe, "tone", &pp, &v, &st);
        if (rc == 0) {
            played++;
            if (st) stolen_n++;
        } else {
            assert_int_equal(rc, HELIOD_ENOVOICES);
            refused++;
        }
        if (i % 200 == 0) {
            double va = th_stat(x.probe, "voices_active");
            assert_true(va <= 8); /* 4 logical voices, 2 slots each */
        }
    }
    fprintf(stderr, "# storm: %d played (%d stole), %d refused\n", played, stolen_n, refused);
    assert_true(played > 4 && refused > 0 && stolen_n > 0);
    assert_int_equal(heliod_stop_all(x.probe, 0, 1, NULL), 0);
    th_sleep_ms(100);
    assert_int_equal(heliod_unload(x.probe, "tone"), 0);
    fx_check(&x, "races and storms", RSS_SLACK_KB);
    fx_stop(&x);
}

/* ---- clients that vanish mid-request ----------------------------------------- */

static void test_vanishing_clients(void **state) {
    (void)state;
    static fx_t x;
    fx_start(&x, NULL);
    char p[400], sp[400];
    snprintf(p, sizeof p, "%s/v.wav", x.d.dir);
    snprintf(sp, sizeof sp, "%s/music.wav", x.d.dir);
    assert_int_equal(th_write_sine(p, 48000, 3.0, 440, 0.2), 0);
    assert_int_equal(th_write_sine(sp, 44100, 5.0, 220, 0.2), 0);
    assert_int_equal(heliod_load(x.probe, "v", p, 0, NULL), 0);
    assert_int_equal(heliod_load(x.probe, "music", sp, HL_LOAD_STREAM, NULL), 0);
    long rss_warm = 0;
    double samples_warm = 0;
    for (int round = 0; round < 30; round++) {
        uint8_t b[600];
        hl_wbuf_t w;
        /* 1: half a frame of every opcode, then gone */
        for (uint16_t op = HL_OP_HELLO; op <= HL_OP_PAUSE; op++) {
            int fd = raw_open(x.d.sock);
            assert_true(fd >= 0);
            uint8_t h[HL_FRAME_HDR + 8] = {0};
            hl_wbuf_init(&w, h, sizeof h);
            hl_put_u32(&w, 200);
            hl_put_u16(&w, op);
            hl_put_u16(&w, 0);
            hl_put_u32(&w, 1);
            assert_int_equal(write_all(fd, h, sizeof h), 0);
            close(fd);
        }
        /* 2: a LOAD in flight, then gone */
        int fd = raw_open(x.d.sock);
        assert_true(fd >= 0);
        hl_wbuf_init(&w, b, sizeof b);
        char name[32];
        snprintf(name, sizeof name, "gone%d", round);
        put_str_raw(&w, name, strlen(name));
        put_str_raw(&w, p, strlen(p));
        hl_put_u32(&w, 0);
        assert_int_equal(send_raw(fd, HL_OP_LOAD, 0, 2, b, w.len), 0);
        /* 3: streamed plays in flight (one detached), a seek, then gone */
        for (int k = 0; k < 3; k++) {
            size_t n = enc_play(b, sizeof b, "music", k == 2 ? HL_PLAY_DETACHED : 0, -20, 0, 1, 0,
                                -1, 1, 100, 1, "");
            assert_int_equal(send_raw(fd, HL_OP_PLAY, 0, 3 + (uint32_t)k, b, n), 0);
        }
        size_t n = enc_play(b, sizeof b, "v", 0, -20, 0, 1, 0, -1, 1, 100, 1, "");
        assert_int_equal(send_raw(fd, HL_OP_PLAY, 0, 9, b, n), 0);
        close(fd);
        if (round == 5) {
            th_sleep_ms(200);
            rss_warm = rss_kb(x.d.pid);
            samples_warm = th_stat(x.probe, "sample_bytes");
        }
    }
    th_sleep_ms(500);
    /* every voice the vanished clients started has faded (the detached streams
     * play on); let the detached ones end */
    assert_int_equal(heliod_stop_all(x.probe, 0, 1, NULL), 0);
    th_sleep_ms(300);
    assert_int_equal(th_stat(x.probe, "streams_active"), 0);
    assert_int_equal(th_stat(x.probe, "stream_opens_pending"), 0);
    assert_int_equal(th_stat(x.probe, "voices_active"), 0);
    long rss_end = rss_kb(x.d.pid);
    double samples = th_stat(x.probe, "sample_bytes") - samples_warm; /* the orphaned loads */
    fprintf(stderr,
            "# vanishing: rss after 6 rounds %ld kB, after 30 %ld kB (%.0f kB of them "
            "the sounds loaded meanwhile)\n",
            rss_warm, rss_end, samples / 1024);
    if (!SANITIZED) /* no other growth */
        assert_true((double)(rss_end - rss_warm) - samples / 1024 < 8 * 1024);
    /* the orphaned loads completed and are usable or refused cleanly */
    heliod_sound_info_t si[64];
    size_t cnt = 0;
    assert_true(heliod_sounds(x.probe, si, 64, &cnt) >= 0);
    assert_true(cnt >= 2 && cnt <= 32);
    fx_check(&x, "vanishing clients", 64 * 1024);
    fx_stop(&x);
}

/* Time requests from a hostile client: HL_FLAG_AT on a request that cannot
 * be scheduled (EINVAL, the connection stays), an AT frame cut short
 * (EPROTO, closed), BUNDLE_END with no bundle, a nested BUNDLE_BEGIN, a
 * LOAD inside a bundle, a bundle past HL_BUNDLE_REQS (EBUSY for the extra
 * request at once, the held ones answered at the end), a CLOCK with a body
 * (EPROTO, closed); the daemon keeps its deadlines and leaks nothing. */
static void test_time_hostile(void **state) {
    (void)state;
    static fx_t x;
    fx_start(&x, NULL);
    frame_t *f = malloc(sizeof *f);
    assert_non_null(f);
    int fd = raw_open(x.d.sock);
    assert_true(fd >= 0);
    uint8_t b[512];
    hl_wbuf_t w;
    /* STOP_ALL with AT: EINVAL */
    hl_wbuf_init(&w, b, sizeof b);
    hl_put_u64(&w, 123456);
    hl_stop_all_t sa = {.fade_ms = 0};
    hl_put_stop_all(&w, &sa);
    assert_int_equal(send_raw(fd, HL_OP_STOP_ALL, HL_FLAG_AT, 2, b, w.len), 0);
    assert_int_equal(read_reply(fd, 2, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, HELIOD_EINVAL);
    /* a scheduled PLAY of a missing sound: ENOSOUND, no lateness trailer */
    size_t pl = enc_play(b + 8, sizeof b - 8, "nosuch", 0, 0, 0, 1, 0, -1, 1, 100, 1, "");
    memset(b, 0, 8);
    b[0] = 1;
    assert_int_equal(send_raw(fd, HL_OP_PLAY, HL_FLAG_AT, 3, b, pl + 8), 0);
    assert_int_equal(read_reply(fd, 3, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, HELIOD_ENOSOUND);
    /* BUNDLE_END with none open; BEGIN twice; LOAD inside; 65 requests */
    assert_int_equal(send_raw(fd, HL_OP_BUNDLE_END, 0, 4, NULL, 0), 0);
    assert_int_equal(read_reply(fd, 4, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, HELIOD_EINVAL);
    assert_int_equal(send_raw(fd, HL_OP_BUNDLE_BEGIN, 0, 5, NULL, 0), 0);
    assert_int_equal(read_reply(fd, 5, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, 0);
    assert_int_equal(send_raw(fd, HL_OP_BUNDLE_BEGIN, 0, 6, NULL, 0), 0);
    assert_int_equal(read_reply(fd, 6, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, HELIOD_EINVAL);
    hl_wbuf_init(&w, b, sizeof b);
    hl_load_t ld = {.flags = 0};
    snprintf(ld.name, sizeof ld.name, "x");
    snprintf(ld.path, sizeof ld.path, "/nonexistent.wav");
    hl_put_load(&w, &ld);
    assert_int_equal(send_raw(fd, HL_OP_LOAD, 0, 7, b, w.len), 0);
    assert_int_equal(read_reply(fd, 7, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, HELIOD_EINVAL);
    pl = enc_play(b, sizeof b, "nosuch", 0, 0, 0, 1, 0, -1, 1, 100, 1, "");
    for (uint32_t i = 0; i < HL_BUNDLE_REQS + 1; i++)
        assert_int_equal(send_raw(fd, HL_OP_PLAY, 0, 100 + i, b, pl), 0);
    /* the one over the bound is answered at once; the others are held */
    assert_int_equal(read_reply(fd, 100 + HL_BUNDLE_REQS, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, HELIOD_EBUSY);
    assert_int_equal(send_raw(fd, HL_OP_BUNDLE_END, 0, 8, NULL, 0), 0);
    for (uint32_t i = 0; i < HL_BUNDLE_REQS; i++) {
        assert_int_equal(read_reply(fd, 100 + i, f, RX_TIMEOUT_MS), 1);
        assert_int_equal(f->status, HELIOD_ENOSOUND);
    }
    assert_int_equal(read_reply(fd, 8, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, 0);
    assert_true(raw_ping_ms(fd, 9) >= 0);
    /* a scheduled frame cut short: EPROTO, closed */
    assert_int_equal(send_raw(fd, HL_OP_STOP, HL_FLAG_AT, 10, b, 4), 0);
    assert_int_equal(read_reply(fd, 10, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, HELIOD_EPROTO);
    assert_true(closed_by_peer(fd, RX_TIMEOUT_MS));
    close(fd);
    /* a bundle left open by a client that goes away: freed with it */
    fd = raw_open(x.d.sock);
    assert_true(fd >= 0);
    assert_int_equal(send_raw(fd, HL_OP_BUNDLE_BEGIN, HL_FLAG_NOREPLY, 2, NULL, 0), 0);
    assert_int_equal(send_raw(fd, HL_OP_PLAY, 0, 3, b, pl), 0);
    close(fd);
    /* CLOCK with a body: EPROTO, closed */
    fd = raw_open(x.d.sock);
    assert_true(fd >= 0);
    assert_int_equal(send_raw(fd, HL_OP_CLOCK, 0, 2, b, 1), 0);
    assert_int_equal(read_reply(fd, 2, f, RX_TIMEOUT_MS), 1);
    assert_int_equal(f->status, HELIOD_EPROTO);
    assert_true(closed_by_peer(fd, RX_TIMEOUT_MS));
    close(fd);
    free(f);
    fx_stop(&x);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    /* the daemons inherit both (see the top of the file) */
    setenv("MALLOC_ARENA_MAX", "2", 1);
    if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) perror("# PR_SET_THP_DISABLE");
    const char *only = getenv("HOSTILE_ONLY"); /* e.g. HOSTILE_ONLY=test_slowloris */
    if (only && *only) cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_malformed_bodies, teardown),
        cmocka_unit_test_teardown(test_hostile_files, teardown),
        cmocka_unit_test_teardown(test_load_flood, teardown),
        cmocka_unit_test_teardown(test_races_and_storms, teardown),
        cmocka_unit_test_teardown(test_vanishing_clients, teardown),
        cmocka_unit_test_teardown(test_too_many_clients, teardown),
        cmocka_unit_test_teardown(test_fd_exhaustion, teardown),
        cmocka_unit_test_teardown(test_unread_replies, teardown),
        cmocka_unit_test_teardown(test_slowloris, teardown),
        cmocka_unit_test_teardown(test_time_hostile, teardown),
    };
    return TH_RUN(tests); /* each test's time printed */
}
