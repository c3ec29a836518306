/*
 * test_compat.c - protocol 1.0 clients against today's daemon.
 *
 * corpus: every frame of tests/proto/compat/corpus_1.0.txt (what the
 *   libheliod, heliodctl and Python client of commit 4550bf8 sent) is
 *   replayed on a connection of its own after its client's 1.0 HELLO; the
 *   HELLO reply must be the 1.0 layout (no minor), and each request must be
 *   answered (or, fire-and-forget, pass silently) with a status other than
 *   EPROTO and EVERSION, on a connection the daemon keeps open.
 * negotiation: a 1.0 client and today's libheliod on the same daemon at the
 *   same time, each served in its own version; a client of a later minor
 *   with fields we do not know is served at ours; another major gets
 *   EVERSION with a message naming the versions heliod speaks.
 *
 * argv[1]: the corpus.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "corpus_read.h"
#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

#define REPLY_MS 20000 /* a reply's wait: the file requests' budget is 2 s; generous for load */

static const char *g_path;
static corpus_t g_c;

static int read_exact(int fd, uint8_t *buf, size_t len, int timeout_ms) {
    size_t got = 0;
    while (got < len) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int pr = poll(&pf, 1, timeout_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) return -1;
        ssize_t n = recv(fd, buf + got, len - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        got += (size_t)n;
    }
    return 1;
}

typedef struct {
    uint16_t op, flags;
    uint32_t id;
    uint8_t body[HL_MAX_FRAME];
    size_t len;
} frame_t;

/* 1, 0 on EOF, -1 on timeout or garbage. */
static int read_frame(int fd, frame_t *f) {
    uint8_t hdr[HL_FRAME_HDR];
    int rc = read_exact(fd, hdr, sizeof hdr, REPLY_MS);
    if (rc <= 0) return rc;
    hl_frame_hdr_t h;
    if (hl_frame_peek(hdr, sizeof hdr, &h) != 0) return -1;
    f->len = h.size - HL_FRAME_HDR;
    rc = read_exact(fd, f->body, f->len, REPLY_MS);
    if (rc <= 0) return rc;
    f->op = h.op;
    f->flags = h.flags;
    f->id = h.id;
    return 1;
}

/* The reply to id, or the ERROR event carrying it: 1 with *status (and the
 * message), 0 EOF, -1 timeout. */
static int wait_answer(int fd, uint32_t id, frame_t *f, uint16_t *req_op, int32_t *status,
                       char *msg, size_t cap) {
    for (;;) {
        int rc = read_frame(fd, f);
        if (rc <= 0) return rc;
        hl_rbuf_t r;
        hl_rbuf_init(&r, f->body, f->len);
        msg[0] = '\0';
        if (f->op == HL_OP_REPLY && f->id == id) {
            hl_reply_head_t rh;
            hl_get_reply_head(&r, &rh);
            *req_op = rh.req_op;
            *status = rh.status;
            if (rh.status < 0) hl_get_str(&r, msg, cap);
            return 1;
        }
        if (f->op == HL_OP_EVENT) {
            hl_event_t ev;
            hl_get_event(&r, &ev);
            if (ev.type == HL_EVENT_ERROR && (f->id == id || ev.status == HELIOD_EPROTO)) {
                *req_op = ev.req_op;
                *status = ev.status;
                snprintf(msg, cap, "%s", ev.message);
                return 1;
            }
        }
    }
}

/* Sends a frame; a LOAD_FD frame takes a memfd of `fd_size` bytes with it. */
static int send_frame(int fd, const uint8_t *frame, size_t len, size_t fd_size) {
    if (!fd_size) return send(fd, frame, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
    int mfd = memfd_create("compat", MFD_CLOEXEC);
    if (mfd < 0 || ftruncate(mfd, (off_t)fd_size) != 0) return -1;
    struct iovec iov = {.iov_base = (void *)frame, .iov_len = len};
    char ctl[CMSG_SPACE(sizeof(int))];
    memset(ctl, 0, sizeof ctl);
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &mfd, sizeof mfd);
    ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL);
    close(mfd);
    return n == (ssize_t)len ? 0 : -1;
}

/* Connects and sends a HELLO frame; checks the reply: status 0, a body the
 * 1.0 decoder reads exactly when want_minor is 0, else with that minor. */
static int hello(th_daemon_t *d, const uint8_t *frame, size_t len, uint16_t want_minor) {
    int fd = th_raw_connect(d->sock);
    assert_true(fd >= 0);
    assert_int_equal(send_frame(fd, frame, len, 0), 0);
    static frame_t f;
    uint16_t op;
    int32_t st;
    char msg[HL_MAX_MSG + 1];
    hl_frame_hdr_t h;
    assert_int_equal(hl_frame_peek(frame, len, &h), 0);
    assert_int_equal(wait_answer(fd, h.id, &f, &op, &st, msg, sizeof msg), 1);
    if (st != 0) fail_msg("HELLO refused: %s (%s)", hl_errname(st), msg);
    hl_rbuf_t r;
    hl_rbuf_init(&r, f.body, f.len);
    hl_reply_head_t rh;
    hl_get_reply_head(&r, &rh);
    hl_hello_reply_t hr;
    hl_get_hello_reply(&r, &hr);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_int_equal(hr.version, HL_PROTO_VERSION);
    assert_int_equal(hr.minor, want_minor); /* 0: the reply ends where 1.0's did */
    return fd;
}

static int setup(void **state) {
    if (corpus_load(&g_c, g_path) != 0) return -1;
    return th_fixture_start(state, 0, NULL);
}
static int teardown(void **state) {
    corpus_free(&g_c);
    return th_fixture_teardown(state);
}

static void test_corpus_replay(void **state) {
    th_fixture_t *fx = *state;
    static frame_t f;
    int counts[64] = {0}; /* by -status */
    size_t replayed = 0, silent = 0;
    for (size_t i = 0; i < g_c.n; i++) {
        const corpus_frame_t *cf = &g_c.f[i];
        const corpus_frame_t *hf = &g_c.f[cf->hello];
        assert_int_equal(hf->op, HL_OP_HELLO);
        int fd = hello(&fx->d, hf->frame, hf->len, 0);
        if (cf->op == HL_OP_HELLO) { /* the handshake itself was the request */
            close(fd);
            replayed++;
            continue;
        }
        size_t fd_size = cf->op == HL_OP_LOAD_FD ? corpus_field_u64(cf, "size") : 0;
        assert_int_equal(send_frame(fd, cf->frame, cf->len, fd_size), 0);
        uint32_t id = cf->id;
        if (cf->flags & HL_FLAG_NOREPLY) { /* silent on success: a PING must follow */
            static const uint8_t ping[HL_FRAME_HDR] = {12, 0, 0,    0,    HL_OP_PING, 0,
                                                       0,  0, 0xEF, 0xBE, 0xAD,       0xDE};
            assert_int_equal(send_frame(fd, ping, sizeof ping, 0), 0);
            id = 0xDEADBEEFu;
        }
        uint16_t op;
        int32_t st;
        char msg[HL_MAX_MSG + 1];
        int rc = wait_answer(fd, id, &f, &op, &st, msg, sizeof msg);
        if (rc != 1)
            fail_msg("frame %zu (%s, %s): %s", i + 1, cf->source, hl_op_name(cf->op),
                     rc == 0 ? "the daemon closed the connection" : "no answer");
        if (st == HELIOD_EPROTO || st == HELIOD_EVERSION)
            fail_msg("frame %zu (%s, %s): %s (%s)", i + 1, cf->source, hl_op_name(cf->op),
                     hl_errname(st), msg);
        if (id == cf->id) /* its own answer: to its own op */
            assert_int_equal(op, cf->op);
        else
            silent += op == HL_OP_PING && st == 0;
        if (id == cf->id && -st < 64) counts[-st]++;
        /* the connection is still served */
        static const uint8_t ping2[HL_FRAME_HDR] = {12, 0, 0, 0, HL_OP_PING, 0,
                                                    0,  0, 1, 0, 0,          0x7F};
        assert_int_equal(send_frame(fd, ping2, sizeof ping2, 0), 0);
        assert_int_equal(wait_answer(fd, 0x7F000001u, &f, &op, &st, msg, sizeof msg), 1);
        if (cf->op == HL_OP_BUNDLE_BEGIN)
            assert_int_equal(st, HELIOD_EINVAL); /* a bundle holds only the timed requests */
        else
            assert_int_equal(st, 0);
        close(fd);
        replayed++;
    }
    printf("replayed %zu corpus frames (%zu fire-and-forget, silent):", replayed, silent);
    for (int s = 0; s < 64; s++)
        if (counts[s]) printf(" %s %d", s ? hl_errname(-s) : "ok", counts[s]);
    printf("\n");
    assert_int_equal(replayed, g_c.n);
    assert_true(th_daemon_alive(&fx->d));
}

static void test_negotiation(void **state) {
    th_fixture_t *fx = *state;
    /* a 1.0 client (libheliod of 4550bf8's HELLO) ... */
    size_t h10 = 0, play = 0;
    for (size_t i = 0; i < g_c.n && !(h10 && play); i++) {
        if (!h10 && g_c.f[i].op == HL_OP_HELLO && strcmp(g_c.f[i].source, "libheliod") == 0)
            h10 = i + 1;
        if (!play && g_c.f[i].op == HL_OP_PLAY && !(g_c.f[i].flags & HL_FLAG_AT)) play = i + 1;
    }
    assert_true(h10 && play);
    int old = hello(&fx->d, g_c.f[h10 - 1].frame, g_c.f[h10 - 1].len, 0);
    /* ... and today's libheliod, at the same time */
    heliod_t *h = th_fixture_connect(fx, "today");
    assert_non_null(h);
    assert_int_equal(heliod_server_info(h)->protocol_version, HL_PROTO_VERSION);
    assert_int_equal(heliod_protocol_minor(h), HL_PROTO_MINOR);
    /* both are served: the 1.0 PLAY (an unknown sound) and today's ping */
    static frame_t f;
    uint16_t op;
    int32_t st;
    char msg[HL_MAX_MSG + 1];
    const corpus_frame_t *pf = &g_c.f[play - 1];
    assert_int_equal(send_frame(old, pf->frame, pf->len, 0), 0);
    assert_int_equal(wait_answer(old, pf->id, &f, &op, &st, msg, sizeof msg), 1);
    assert_int_equal(op, HL_OP_PLAY);
    assert_int_not_equal(st, HELIOD_EPROTO);
    uint64_t t;
    assert_int_equal(heliod_ping(h, &t), 0);
    close(old);
    heliod_close(h);
    /* heliodctl says the version it agreed */
    static char out[1 << 16], err[4096];
    const char *const status[] = {"status", NULL};
    assert_int_equal(th_ctl(&fx->d, out, sizeof out, err, sizeof err, status), 0);
    char agreed[64];
    snprintf(agreed, sizeof agreed, "(protocol %d.%d)", HL_PROTO_VERSION, HL_PROTO_MINOR);
    if (!strstr(out, agreed)) fail_msg("heliodctl status does not say %s: %.200s", agreed, out);

    /* a later minor with a field we do not know: served at our minor */
    uint8_t buf[256];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_HELLO, 0, 9);
    hl_hello_t m = {.version = HL_PROTO_VERSION, .minor = HL_PROTO_MINOR + 5};
    snprintf(m.client_name, sizeof m.client_name, "future");
    hl_put_hello(&w, &m);
    hl_put_u32(&w, 0xC0FFEEu); /* its new HELLO field */
    int n = hl_frame_end(&w);
    assert_true(n > 0);
    int fut = hello(&fx->d, buf, (size_t)n, HL_PROTO_MINOR);
    close(fut);

    /* another major: EVERSION, with the versions heliod speaks, and the door closes */
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_HELLO, 0, 10);
    hl_put_u16(&w, HL_PROTO_VERSION + 1);
    hl_put_u32(&w, 0xFFFFFFFFu); /* whatever 2.0's HELLO holds */
    n = hl_frame_end(&w);
    int fd = th_raw_connect(fx->d.sock);
    assert_true(fd >= 0);
    assert_int_equal(send_frame(fd, buf, (size_t)n, 0), 0);
    assert_int_equal(wait_answer(fd, 10, &f, &op, &st, msg, sizeof msg), 1);
    assert_int_equal(st, HELIOD_EVERSION);
    char want[64];
    snprintf(want, sizeof want, "protocol %d.x is not supported", HL_PROTO_VERSION + 1);
    if (!strstr(msg, want) || !strstr(msg, "speaks protocol 1.0 to 1."))
        fail_msg("EVERSION message: %s", msg);
    printf("another major: %s\n", msg);
    assert_int_equal(read_frame(fd, &f), 0); /* closed */
    close(fd);
}

int main(int argc, char **argv) {
    g_path = argc > 1 ? argv[1] : "corpus_1.0.txt";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_corpus_replay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_negotiation, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
