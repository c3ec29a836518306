/*
 * test_daemon.c - end-to-end tests of the real heliod daemon on the null
 * driver, driven through libheliod over the real socket: handshake, loading
 * real files decoded by libsndfile, playback checked in the recorded WAV
 * (level, pan, fades without clicks), voice stealing, ownership, and every
 * kind of bad input (missing/corrupt files, unknown names, stale voices,
 * garbage bytes, a client killed mid-frame, a command flood).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

typedef struct {
    th_daemon_t d;
    char sine[400];
    char stereo[400];
} fixture_t;

static void path_in(const th_daemon_t *d, char *dst, size_t cap, const char *name) {
    snprintf(dst, cap, "%s/%s", d->dir, name);
}

static int start_with(void **state, int record, const char *const *args) {
    if (th_fixture_alloc(state, sizeof(fixture_t), record, args) != 0) return -1;
    fixture_t *f = *state;
    path_in(&f->d, f->sine, sizeof f->sine, "sine.wav");
    if (th_write_sine(f->sine, 48000, 2.0, 440.0, 0.5) != 0) return -1;
    return 0;
}

static int setup_plain(void **state) {
    return start_with(state, 0, NULL);
}

static int setup_record(void **state) {
    return start_with(state, 1, NULL);
}

/* 4096 frames: 85 ms between two drains of the command ring */
static int setup_long_period(void **state) {
    const char *args[] = {"--period", "4096", NULL};
    return start_with(state, 0, args);
}

/* room for test_many_voices_wait_for_room's voices, all of them real */
static int setup_many_voices(void **state) {
    const char *args[] = {"--voices", "4480", "--cpu-budget", "0", NULL};
    return start_with(state, 0, args);
}

static int teardown(void **state) {
    fixture_t *f = *state;
    if (!f) return 0;
    int alive = th_daemon_alive(&f->d);
    int rc = th_daemon_stop(&f->d, NULL);
    th_daemon_cleanup(&f->d);
    free(f);
    /* Every test ends with the daemon still alive and exiting cleanly. */
    return alive && rc == 0 ? 0 : -1;
}

static heliod_t *connect_or_fail(fixture_t *f) {
    heliod_t *h = NULL;
    int rc = heliod_connect(&h, f->d.sock, "test");
    assert_int_equal(rc, 0);
    assert_non_null(h);
    return h;
}

/* ---- handshake and basic requests ---------------------------------------- */

static void test_handshake(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    const heliod_server_info_t *si = heliod_server_info(h);
    assert_int_equal(si->protocol_version, HL_PROTO_VERSION);
    assert_int_equal(si->rate, 48000);
    assert_int_equal(si->period, 256);
    assert_int_equal(si->voices, 64);
    uint64_t t = 0;
    assert_int_equal(heliod_ping(h, &t), 0);
    assert_true(t > 0);
    heliod_close(h);
}

static void test_load_list_unload(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    heliod_sound_info_t info;
    assert_int_equal(heliod_load(h, "sine", f->sine, 0, &info), 0);
    assert_int_equal(info.channels, 1);
    assert_int_equal(info.frames, 96000);
    assert_int_equal(info.source_rate, 48000);

    /* A 22050 Hz stereo FLAC is converted to the engine rate. */
    char flac[400];
    path_in(&f->d, flac, sizeof flac, "s.flac");
    assert_int_equal(th_write_sine(flac, 22050, 1.0, 300.0, 0.3), 0);
    assert_int_equal(heliod_load(h, "flac-one", flac, 0, &info), 0);
    assert_int_equal(info.source_rate, 22050);
    assert_true(info.frames >= 47990 && info.frames <= 48010);

    heliod_sound_info_t list[8];
    size_t n = 0;
    assert_true(heliod_sounds(h, list, 8, &n) >= 0);
    assert_int_equal(n, 2);
    assert_int_equal(heliod_unload(h, "flac-one"), 0);
    assert_int_equal(heliod_unload(h, "flac-one"), HELIOD_ENOSOUND);
    assert_true(heliod_sounds(h, list, 8, &n) >= 0);
    assert_int_equal(n, 1);
    assert_string_equal(list[0].name, "sine");
    heliod_close(h);
}

/* ---- bad input ------------------------------------------------------------ */

static void test_bad_files_and_names(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char p[400];

    path_in(&f->d, p, sizeof p, "missing.wav");
    assert_int_equal(heliod_load(h, "missing", p, 0, NULL), HELIOD_EFILE);
    assert_true(strlen(heliod_last_error(h)) > 0);

    /* A file with a WAV name and garbage inside. */
    path_in(&f->d, p, sizeof p, "corrupt.wav");
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    for (int i = 0; i < 4096; i++)
        fputc((i * 7919) & 0xff, fp);
    fclose(fp);
    int rc = heliod_load(h, "corrupt", p, 0, NULL);
    assert_true(rc == HELIOD_EDECODE || rc == HELIOD_EFILE);

    /* A truncated real WAV: header promises more than is there. */
    path_in(&f->d, p, sizeof p, "trunc.wav");
    fp = fopen(p, "wb");
    FILE *src = fopen(f->sine, "rb");
    assert_non_null(fp);
    assert_non_null(src);
    for (int i = 0; i < 30; i++)
        fputc(fgetc(src), fp);
    fclose(src);
    fclose(fp);
    rc = heliod_load(h, "trunc", p, 0, NULL);
    assert_true(rc == HELIOD_EDECODE || rc == HELIOD_EFILE);

    assert_int_equal(heliod_load(h, "bad name!", f->sine, 0, NULL), HELIOD_ENAME);
    assert_int_equal(heliod_load(h, "", f->sine, 0, NULL), HELIOD_ENAME);
    assert_int_equal(heliod_load(h, "dup", f->sine, 0, NULL), 0);
    assert_int_equal(heliod_load(h, "dup", f->sine, 0, NULL), HELIOD_EEXIST);

    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(h, "nosuch", &pp, &v, NULL), HELIOD_ENOSOUND);
    pp.pitch = 9.0f;
    assert_int_equal(heliod_play(h, "dup", &pp, &v, NULL), HELIOD_EINVAL);
    heliod_play_params_init(&pp);
    strcpy(pp.bus, "nobus");
    assert_int_equal(heliod_play(h, "dup", &pp, &v, NULL), HELIOD_ENOBUS);
    assert_int_equal(heliod_stop(h, 12345, 10), HELIOD_ENOVOICE);

    /* Unloading a playing sound is refused, then works once it stopped. */
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    assert_int_equal(heliod_play(h, "dup", &pp, &v, NULL), 0);
    assert_int_equal(heliod_unload(h, "dup"), HELIOD_EINUSE);
    assert_int_equal(heliod_stop(h, v, 5), 0);
    int unloaded = -1;
    for (int i = 0; i < 100 && unloaded != 0; i++) {
        th_sleep_ms(10);
        unloaded = heliod_unload(h, "dup");
    }
    assert_int_equal(unloaded, 0);
    /* The handle is stale now. */
    heliod_voice_set_t s = {.mask = HELIOD_SET_GAIN, .gain_db = -3};
    assert_int_equal(heliod_set(h, v, &s), HELIOD_ENOVOICE);
    heliod_close(h);
}

static int raw_connect(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t sl = strlen(path);
    assert_true(sl < sizeof a.sun_path);
    memcpy(a.sun_path, path, sl + 1);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Reads until EOF (or 3 s); returns bytes read into buf. */
static size_t read_until_close(int fd, uint8_t *buf, size_t cap, int *closed) {
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    size_t len = 0;
    *closed = 0;
    for (;;) {
        ssize_t n = recv(fd, buf + len, cap - len, 0);
        if (n == 0) {
            *closed = 1;
            break;
        }
        if (n < 0) {
            if (errno == EINTR) continue;
            *closed = errno == ECONNRESET;
            break;
        }
        len += (size_t)n;
        if (len == cap) break;
    }
    return len;
}

static void send_hello(int fd) {
    uint8_t buf[256];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_HELLO, 0, 1);
    hl_hello_t m = {.version = HL_PROTO_VERSION};
    strcpy(m.client_name, "raw");
    hl_put_hello(&w, &m);
    int n = hl_frame_end(&w);
    assert_true(n > 0);
    assert_int_equal(send(fd, buf, (size_t)n, MSG_NOSIGNAL), n);
}

static void assert_other_clients_served(fixture_t *f) {
    heliod_t *h = connect_or_fail(f);
    assert_int_equal(heliod_ping(h, NULL), 0);
    heliod_close(h);
}

static void test_garbage_bytes(void **state) {
    fixture_t *f = *state;
    /* 1: a size field far beyond the frame cap: answered EPROTO/ETOOBIG, then closed. */
    int fd = raw_connect(f->d.sock);
    send_hello(fd);
    uint8_t junk[64];
    memset(junk, 0xff, sizeof junk);
    assert_int_equal(send(fd, junk, sizeof junk, MSG_NOSIGNAL), (ssize_t)sizeof junk);
    uint8_t in[4096];
    int closed = 0;
    size_t len = read_until_close(fd, in, sizeof in, &closed);
    assert_true(closed);
    /* The stream holds the HELLO reply, then an error reply before the close. */
    hl_frame_hdr_t hdr;
    size_t off = 0;
    int saw_error = 0;
    while (off < len && hl_frame_peek(in + off, len - off, &hdr) == 0 && hdr.size <= len - off) {
        hl_rbuf_t r;
        hl_rbuf_init(&r, in + off + HL_FRAME_HDR, hdr.size - HL_FRAME_HDR);
        if (hdr.op == HL_OP_REPLY) {
            hl_reply_head_t rh;
            hl_get_reply_head(&r, &rh);
            if (rh.status == HELIOD_EPROTO || rh.status == HELIOD_ETOOBIG) saw_error = 1;
        }
        off += hdr.size;
    }
    assert_true(saw_error);
    close(fd);

    /* 2: garbage before any handshake. */
    fd = raw_connect(f->d.sock);
    const char *text = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    send(fd, text, strlen(text), MSG_NOSIGNAL);
    len = read_until_close(fd, in, sizeof in, &closed);
    assert_true(closed);
    close(fd);

    /* 3: a valid frame with an unknown opcode is a bad argument: error, stays open. */
    fd = raw_connect(f->d.sock);
    send_hello(fd);
    uint8_t buf[64];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, 77, 0, 9);
    int n = hl_frame_end(&w);
    hl_frame_begin(&w, HL_OP_PING, 0, 10);
    n = hl_frame_end(&w);
    assert_true(n > 0);
    assert_int_equal(send(fd, buf, w.len, MSG_NOSIGNAL), (ssize_t)w.len);
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    len = 0;
    int got_ping = 0, got_badop = 0;
    while (!got_ping) {
        ssize_t r = recv(fd, in + len, sizeof in - len, 0);
        assert_true(r > 0);
        len += (size_t)r;
        off = 0;
        got_badop = 0;
        while (off < len && hl_frame_peek(in + off, len - off, &hdr) == 0 &&
               hdr.size <= len - off) {
            hl_rbuf_t rb;
            hl_rbuf_init(&rb, in + off + HL_FRAME_HDR, hdr.size - HL_FRAME_HDR);
            hl_reply_head_t rh;
            hl_get_reply_head(&rb, &rh);
            if (hdr.id == 9 && rh.status == HELIOD_EBADOP) got_badop = 1;
            if (hdr.id == 10 && rh.status == 0) got_ping = 1;
            off += hdr.size;
        }
    }
    assert_true(got_badop);
    close(fd);

    assert_other_clients_served(f);
    heliod_t *h = connect_or_fail(f);
    assert_true(th_stat(h, "protocol_errors") >= 2);
    heliod_close(h);
}

static void test_client_killed_mid_frame(void **state) {
    fixture_t *f = *state;
    for (int round = 0; round < 3; round++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            int fd = socket(AF_UNIX, SOCK_STREAM, 0);
            struct sockaddr_un a = {.sun_family = AF_UNIX};
            size_t sl = strlen(f->d.sock);
            if (sl >= sizeof a.sun_path) _exit(3);
            memcpy(a.sun_path, f->d.sock, sl + 1);
            if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) _exit(1);
            uint8_t buf[512];
            hl_wbuf_t w;
            hl_wbuf_init(&w, buf, sizeof buf);
            hl_frame_begin(&w, HL_OP_HELLO, 0, 1);
            hl_hello_t m = {.version = HL_PROTO_VERSION};
            strcpy(m.client_name, "dying");
            hl_put_hello(&w, &m);
            hl_frame_end(&w);
            hl_frame_begin(&w, HL_OP_PLAY, 0, 2);
            hl_play_t p = {.pitch = 1, .fade_in_ms = -1, .min_distance = 1, .max_distance = 10};
            strcpy(p.sound, "x");
            hl_put_play(&w, &p);
            hl_frame_end(&w);
            /* All of HELLO and half of PLAY, then die without closing. */
            size_t cut = w.len - 20;
            if (send(fd, buf, cut, MSG_NOSIGNAL) != (ssize_t)cut) _exit(2);
            kill(getpid(), SIGKILL);
        }
        int st;
        waitpid(pid, &st, 0);
        assert_true(WIFSIGNALED(st));
    }
    assert_other_clients_served(f);
    heliod_t *h = connect_or_fail(f);
    /* Only this connection remains once the dead ones are reaped. */
    double clients = 0;
    for (int i = 0; i < 50; i++) {
        clients = th_stat(h, "clients");
        if (clients == 1) break;
        th_sleep_ms(20);
    }
    assert_true(clients == 1);
    heliod_close(h);
}

static void on_event_count(void *user, const heliod_event_t *ev) {
    int *counts = user;
    if (ev->type == HELIOD_EVENT_ERROR) {
        if (ev->status == HELIOD_EBUSY)
            counts[0]++;
        else
            counts[1]++;
    }
}

/* B's plays: each reply counted, and whether it was refused. */
static void on_b_reply(void *user, const heliod_reply_t *r) {
    int *b = user;
    b[0]++;
    if (r->status != 0) b[1]++;
}

#define FLOOD_RING 16384 /* HL_CMD_RING: the audio thread's command ring */

/* Back-pressure (issue 28): client A floods SETs, several times what the
 * command ring holds, at a period (4096 frames, 85 ms) long enough for the
 * main thread to fill the ring many times over between two drains. None is
 * refused EBUSY and every one is applied: the daemon stops reading A while
 * the ring is low (conn_holds counts it), A's socket fills. Meanwhile B's
 * plays are answered (4 round trips) while A still floods: A keeps sending
 * until B has its replies, or fails at a cap no fair daemon reaches.
 * Everything is counted (commands, replies), nothing is timed. A
 * sanitizer build floods less and may never need a hold (see below). */
/* Two clients, A and B, the fixture's sine loaded shared as `name` by A,
 * and *pp a looping play at gain_db. */
static void two_clients(fixture_t *f, heliod_t **a, heliod_t **b, const char *name, float gain_db,
                        heliod_play_params_t *pp) {
    *a = connect_or_fail(f);
    *b = connect_or_fail(f);
    assert_int_equal(heliod_load(*a, name, f->sine, HELIOD_LOAD_SHARED, NULL), 0);
    heliod_play_params_init(pp);
    pp->flags = HELIOD_PLAY_LOOP;
    pp->gain_db = gain_db;
}

static void test_flood_held_not_refused(void **state) {
    fixture_t *f = *state;
    heliod_t *a, *b;
    heliod_play_params_t pp;
    two_clients(f, &a, &b, "flood", -40, &pp);
    heliod_voice_t v;
    assert_int_equal(heliod_play(a, "flood", &pp, &v, NULL), 0);
    int counts[2] = {0, 0}, breply[2] = {0, 0}, bsent = 0;
    heliod_set_event_callback(a, on_event_count, counts);
    double applied0 = th_stat(b, "cmds_applied"), busy0 = th_stat(b, "cmds_busy");
    double holds0 = th_stat(b, "conn_holds");
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    const int slow_build = 1;
#else
    const int slow_build = 0;
#endif
    /* a sanitizer build floods one ring's worth, B asking from half of it
     * (the flood's time there goes to the sanitizer, not to the daemon) */
    const long min_total = (slow_build ? 1 : 3) * FLOOD_RING, cap = 40 * FLOOD_RING;
    const long b_from = slow_build ? FLOOD_RING / 2 : 2 * FLOOD_RING;
    long sent = 0, checked = 0;
    /* A was held at least once: looked at once per ring's worth past
     * min_total, flooding on until it was (a loaded machine's slow moment) */
    int held = slow_build;
    while (sent < cap && (breply[0] < 4 || sent < min_total || (!held && sent < cap / 2))) {
        if (sent >= min_total && sent - checked >= FLOOD_RING) {
            checked = sent;
            held = th_stat(b, "conn_holds") > holds0;
        }
        while (heliod_pending(a) < 256 * 1024 && sent < cap) {
            heliod_voice_set_t s = {.mask = HELIOD_SET_GAIN, .gain_db = -40.0f + (float)(sent % 7)};
            assert_true(heliod_set_async(a, v, &s) > 0);
            sent++;
        }
        assert_true(heliod_dispatch(a) >= 0);
        /* B asks once A has sent b_from SETs: one play at a time */
        if (sent >= b_from && bsent == breply[0] && bsent < 4) {
            heliod_play_params_t bp;
            heliod_play_params_init(&bp);
            bp.gain_db = -60;
            assert_true(heliod_play_async(b, "flood", &bp, on_b_reply, breply) > 0);
            bsent++;
        }
        assert_true(heliod_dispatch(b) >= 0);
        struct pollfd pfd[2] = {{heliod_fd(a), POLLIN | POLLOUT, 0}, {heliod_fd(b), POLLIN, 0}};
        poll(pfd, 2, 100);
    }
    long sent_when_b_done = sent;
    assert_int_equal(heliod_sync(a), 0);
    assert_int_equal(heliod_sync(b), 0);
    print_message("flood: A sent %ld SETs (B done at %ld), %d refused EBUSY, %d other errors; "
                  "B: %d replies, %d refused\n",
                  sent, sent_when_b_done, counts[0], counts[1], breply[0], breply[1]);
    assert_int_equal(breply[0], 4); /* B was answered while A flooded */
    assert_int_equal(breply[1], 0);
    assert_true(sent_when_b_done < cap);
    assert_int_equal(counts[0], 0); /* none of A's refused EBUSY */
    assert_int_equal(counts[1], 0);
    /* every command applied: wait for the ring to drain (counted, not timed;
     * the bound only ends a failing run) */
    double want = (double)sent + 4, applied = 0;
    for (int i = 0; i < 2000 && applied < want; i++) {
        applied = th_stat(b, "cmds_applied") - applied0;
        if (applied < want) th_sleep_ms(10);
    }
    assert_true(applied >= want);
    assert_true(th_stat(b, "cmds_busy") == busy0);
    /* A was held, not refused. A sanitizer build's main thread may be too
     * slow to fill the ring between two drains (seen under TSan: 119,265
     * SETs and no hold); then nothing needed holding: printed, not failed */
    if (slow_build && th_stat(b, "conn_holds") == holds0)
        print_message("# sanitizer build: the ring never ran low, A was never held\n");
    else
        assert_true(th_stat(b, "conn_holds") > holds0);
    assert_int_equal(heliod_stop(a, v, 5), 0);
    heliod_close(b);
    heliod_close(a);
}

/* A request that needs more ring room at once than is free waits for it
 * (issue 28), it is not refused. B holds WAIT_VOICES voices (paused: cheap
 * to keep); the audio thread is frozen (ptrace: the ring cannot drain) and
 * A's SETs fill the ring until its free room is above the hold line (4096)
 * and below what B's STOP_ALL needs. B's STOP_ALL must then wait, not be
 * answered EBUSY; once the audio thread runs again it stops every voice. */
#define WAIT_VOICES 4400

typedef struct {
    int replies, status;
    uint32_t count;
} stop_all_reply_t;

static void on_stop_all(void *user, uint32_t id, int status, const char *msg, const uint8_t *body,
                        size_t len) {
    (void)id;
    (void)msg;
    stop_all_reply_t *r = user;
    r->replies++;
    r->status = status;
    if (status == 0 && len >= 4)
        r->count = (uint32_t)body[0] | (uint32_t)body[1] << 8 | (uint32_t)body[2] << 16 |
                   (uint32_t)body[3] << 24;
}

static void test_many_voices_wait_for_room(void **state) {
    fixture_t *f = *state;
#if defined(__SANITIZE_THREAD__)
    /* main-thread logic alone (the audio thread is frozen): the TSan pass
     * would spend 10+ s mixing the voices for nothing it checks */
    print_message("# ThreadSanitizer build: skipped (the other passes run it)\n");
    (void)f;
    skip();
#endif
    heliod_t *a, *b;
    heliod_play_params_t pp;
    two_clients(f, &a, &b, "w", -20, &pp);
    for (int i = 0; i < WAIT_VOICES; i++)
        assert_true(heliod_play_async(b, "w", &pp, NULL, NULL) > 0);
    assert_int_equal(heliod_sync(b), 0);
    uint32_t n = 0;
    assert_int_equal(heliod_pause_all(b, 1, 0, &n), 0);
    assert_int_equal(n, WAIT_VOICES);
    assert_true(th_stat(b, "voices_real") >= WAIT_VOICES);
    heliod_voice_t v;
    assert_int_equal(heliod_play(a, "w", &pp, &v, NULL), 0);
    while (th_stat(a, "cmd_ring_free") < FLOOD_RING - 64)
        th_sleep_ms(5); /* drained */
    pid_t tid = th_freeze_thread(f->d.pid, "heliod-audio");
    assert_true(tid != 0);
    if (tid < 0) skip();
    /* A's SETs in batches, down to the window between the hold line and
     * B's need (nothing else pushes while the voices stand still) */
    double room = th_stat(a, "cmd_ring_free");
    const double lo = 4096 + 100, hi = WAIT_VOICES - 100;
    while (room > hi) {
        int k = (int)(room - (lo + hi) / 2);
        k = k > 2048 ? 2048 : k < 1 ? 1 : k;
        for (int i = 0; i < k; i++) {
            heliod_voice_set_t s = {.mask = HELIOD_SET_GAIN, .gain_db = -20.0f - (float)(i % 5)};
            assert_true(heliod_set_async(a, v, &s) > 0);
        }
        assert_int_equal(heliod_sync(a), 0);
        room = th_stat(a, "cmd_ring_free");
    }
    assert_true(room >= lo);
    double waits0 = th_stat(a, "conn_waits"), busy0 = th_stat(a, "cmds_busy");
    /* B's STOP_ALL (scope mine): sent, then no request of anyone's until the
     * thaw, since every connection now waits behind it (that is the rule) */
    uint8_t body[16];
    hl_wbuf_t w;
    hl_wbuf_init(&w, body, sizeof body);
    hl_stop_all_t m = {.fade_ms = 0.0f, .scope = HL_STOP_ALL_MINE};
    hl_put_stop_all(&w, &m);
    stop_all_reply_t r = {0};
    assert_true(heliod_raw_async(b, HL_OP_STOP_ALL, body, w.len, on_stop_all, &r) > 0);
    while (heliod_pending(b) > 0)
        assert_int_equal(heliod_flush(b), 0);
    /* the daemon takes it within this (the thaw comes well before the
     * 250 ms after which a ring that made no room answers EBUSY) */
    th_sleep_ms(80);
    struct pollfd pfd = {heliod_fd(b), POLLIN, 0};
    if (poll(&pfd, 1, 0) > 0) assert_true(heliod_dispatch(b) >= 0);
    int answered_frozen = r.replies;
    assert_int_equal(th_thaw_thread(tid), 0);
    assert_int_equal(heliod_sync(b), 0);
    double waits = th_stat(a, "conn_waits") - waits0;
    print_message("# ring %.0f free, STOP_ALL of %d: waits %.0f, answered while frozen %d, "
                  "status %d, count %u\n",
                  room, WAIT_VOICES, waits, answered_frozen, r.status, r.count);
    assert_int_equal(answered_frozen, 0);
    assert_int_equal(r.replies, 1);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.count, WAIT_VOICES);
    assert_true(waits >= 1);
    assert_true(th_stat(a, "cmds_busy") == busy0);
    assert_int_equal(heliod_ping(a, NULL), 0); /* A was held behind it, and served again */
    heliod_close(b);
    heliod_close(a);
}

/* With more voices than 12288 the ring grows so that one request can
 * touch them all (the power of two above voices + 4096): 13000 voices,
 * 32768 entries, free when idle. */
static int setup_ring_voices(void **state) {
    const char *args[] = {"--voices", "13000", "--cpu-budget", "0", NULL};
    return start_with(state, 0, args);
}

static void test_ring_sized_by_voices(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    double room = 0;
    for (int i = 0; i < 200 && room < 32768 - 64; i++) {
        room = th_stat(h, "cmd_ring_free");
        if (room < 32768 - 64) th_sleep_ms(5);
    }
    assert_true(room >= 32768 - 64 && room <= 32768);
    heliod_close(h);
}

static void gen_quad(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    for (int c = 0; c < channels; c++)
        out[c] = 0.1f * (float)(c + 1) * (frame % 2 ? 1.f : -1.f);
}

static void test_multichannel_file_is_downmixed(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char p[400];
    path_in(&f->d, p, sizeof p, "quad.wav");
    assert_int_equal(
        th_write_sound(p, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 4, 48000, 4800, gen_quad, NULL), 0);
    heliod_sound_info_t info;
    assert_int_equal(heliod_load(h, "quad", p, 0, &info), 0);
    assert_int_equal(info.channels, 2);
    assert_int_equal(info.frames, 4800);
    assert_int_equal(heliod_unload(h, "quad"), 0);
    heliod_close(h);
}

static void test_watch_sees_other_clients_voices(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    assert_int_equal(heliod_load(h, "watched", f->sine, 0, NULL), 0);
    char out_path[400];
    path_in(&f->d, out_path, sizeof out_path, "watch.txt");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 1);
        const char *ctl = getenv("HELIODCTL_BIN");
        execlp(ctl, ctl, "--socket", f->d.sock, "watch", (char *)NULL);
        _exit(127);
    }
    th_sleep_ms(200); /* let it subscribe */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.pitch = 4.0f; /* the 2 s tone ends after 0.5 s */
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "watched", &pp, &v, NULL), 0);
    char want[64], buf[4096] = "";
    snprintf(want, sizeof want, "ended %llu finished", (unsigned long long)v);
    for (int i = 0; i < 300 && !strstr(buf, want); i++) {
        th_sleep_ms(10);
        FILE *fp = fopen(out_path, "r");
        if (!fp) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, fp);
        buf[n] = 0;
        fclose(fp);
    }
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    assert_non_null(strstr(buf, want));
    snprintf(want, sizeof want, "started %llu", (unsigned long long)v);
    assert_non_null(strstr(buf, want));
    heliod_close(h);
}

/* ---- voices, stealing, ownership --------------------------------------- */

static int setup_two_voices(void **state) {
    const char *args[] = {"--voices", "2", "--virtual-voices", "2", "--client-voices", "4", NULL};
    return start_with(state, 0, args);
}

static void test_stealing_and_stale_handles(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    assert_int_equal(heliod_server_info(h)->voices, 2);
    assert_int_equal(heliod_load(h, "s", f->sine, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t a, b, c, stolen = 0;
    assert_int_equal(heliod_play(h, "s", &pp, &a, NULL), 0);
    th_sleep_ms(5);
    assert_int_equal(heliod_play(h, "s", &pp, &b, NULL), 0);
    /* Equal priority is refused. */
    assert_int_equal(heliod_play(h, "s", &pp, &c, NULL), HELIOD_ENOVOICES);
    /* Strictly higher steals the oldest of the lowest. */
    pp.priority = 5;
    assert_int_equal(heliod_play(h, "s", &pp, &c, &stolen), 0);
    assert_true(stolen == a);
    heliod_voice_set_t s = {.mask = HELIOD_SET_PAN, .pan = 0.5f};
    assert_int_equal(heliod_set(h, a, &s), HELIOD_ENOVOICE);
    assert_int_equal(heliod_set(h, b, &s), 0);
    /* Now b (priority 0) is the victim of the next higher-priority voice. */
    heliod_voice_t d;
    assert_int_equal(heliod_play(h, "s", &pp, &d, &stolen), 0);
    assert_true(stolen == b);
    heliod_voice_info_t vi[8];
    size_t n = 0;
    assert_true(heliod_voices(h, vi, 8, &n) >= 0);
    int live = 0;
    for (size_t i = 0; i < n; i++)
        if (vi[i].state != HELIOD_VOICE_STOPPING) live++;
    assert_int_equal(live, 2);
    assert_true(th_stat(h, "voices_stolen") >= 2);
    uint32_t count = 0;
    assert_int_equal(heliod_stop_all(h, 5, 0, &count), 0);
    assert_int_equal(count, 2);
    heliod_close(h);
}

static void test_owner_disconnect_fades_its_voices(void **state) {
    fixture_t *f = *state;
    heliod_t *a = connect_or_fail(f);
    heliod_t *b = connect_or_fail(f);
    assert_int_equal(heliod_load(a, "own", f->sine, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t va, vb;
    assert_int_equal(heliod_play(a, "own", &pp, &va, NULL), 0);
    pp.flags |= HELIOD_PLAY_DETACHED;
    assert_int_equal(heliod_play(a, "own", &pp, &vb, NULL), 0);
    heliod_close(a);
    th_sleep_ms(400);
    heliod_voice_info_t vi[8];
    size_t n = 0;
    assert_true(heliod_voices(b, vi, 8, &n) >= 0);
    assert_int_equal(n, 1);
    assert_true(vi[0].voice == vb);
    /* b is a plain client: a's detached voice is not b's to stop */
    assert_int_equal(heliod_stop(b, vb, 5), HELIOD_EPERM);
    assert_non_null(strstr(heliod_last_error(b), "belongs to client"));
    heliod_t *ctl = NULL;
    assert_int_equal(heliod_connect_flags(&ctl, f->d.sock, "ctl", HELIOD_CONNECT_CONTROL), 0);
    assert_int_equal(heliod_stop(ctl, vb, 5), 0);
    heliod_close(ctl);
    heliod_close(b);
}

/* ---- what the mix sounds like: the recorded WAV ------------------------- */

typedef struct {
    double rms_l, rms_r, peak_l, peak_r, max_step;
    size_t first, last; /* first/last frame above -60 dBFS */
} analysis_t;

static analysis_t analyse(const float *x, size_t frames) {
    analysis_t a = {0};
    double sl = 0, sr = 0;
    size_t loud = 0;
    a.first = (size_t)-1;
    for (size_t i = 0; i < frames; i++) {
        float l = x[2 * i], r = x[2 * i + 1];
        if (fabsf(l) > 1e-3f || fabsf(r) > 1e-3f) {
            if (a.first == (size_t)-1) a.first = i;
            a.last = i;
        }
        if (fabsf(l) > a.peak_l) a.peak_l = fabsf(l);
        if (fabsf(r) > a.peak_r) a.peak_r = fabsf(r);
        if (i > 0) {
            double dl = fabs((double)l - x[2 * i - 2]), dr = fabs((double)r - x[2 * i - 1]);
            if (dl > a.max_step) a.max_step = dl;
            if (dr > a.max_step) a.max_step = dr;
        }
    }
    /* RMS over the loud middle part. */
    if (a.first != (size_t)-1) {
        size_t from = a.first + (a.last - a.first) / 4, to = a.last - (a.last - a.first) / 4;
        for (size_t i = from; i < to; i++) {
            sl += (double)x[2 * i] * x[2 * i];
            sr += (double)x[2 * i + 1] * x[2 * i + 1];
            loud++;
        }
    }
    if (loud) {
        a.rms_l = sqrt(sl / loud);
        a.rms_r = sqrt(sr / loud);
    }
    return a;
}

/* A recording test stopped its daemon to read the WAV: remove that daemon's
 * directory and start a fresh one, so the teardown checks a live daemon. */
static void restart_for_teardown(fixture_t *f) {
    th_daemon_cleanup(&f->d);
    assert_int_equal(th_daemon_start(&f->d, 0, NULL), 0);
}

/* Stops the fixture's daemon (which finalises its --record WAV) and returns
 * the recording as interleaved stereo at 48 kHz; the caller frees it. */
static float *stop_and_read_recording(fixture_t *f, size_t *frames, int *rate) {
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0);
    float *x = NULL;
    int ch = 0;
    assert_int_equal(th_read_sound(f->d.record, &x, frames, &ch, rate), 0);
    assert_int_equal(ch, 2);
    assert_int_equal(*rate, 48000);
    return x;
}

static void play_and_record(void **state, float pan, analysis_t *out, size_t *rate_out) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    assert_int_equal(heliod_load(h, "tone", f->sine, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    pp.pan = pan;
    pp.fade_in_ms = 20;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "tone", &pp, &v, NULL), 0);
    th_sleep_ms(400);
    assert_int_equal(heliod_stop(h, v, 50), 0);
    th_sleep_ms(200);
    heliod_close(h);
    size_t frames = 0;
    int rate = 0;
    float *x = stop_and_read_recording(f, &frames, &rate);
    *out = analyse(x, frames);
    *rate_out = (size_t)rate;
    free(x);
}

static void test_record_hard_left_level_and_clean_fades(void **state) {
    analysis_t a;
    size_t rate;
    play_and_record(state, -1.0f, &a, &rate);
    /* A 0.5 amplitude sine hard left: left RMS 0.5/sqrt(2), right silent. */
    assert_true(fabs(a.rms_l - 0.5 / sqrt(2.0)) < 0.01);
    assert_true(a.rms_r < 1e-4);
    assert_true(a.peak_l <= 0.5 + 1e-3);
    /* No clicks anywhere, start and stop included: the largest step between
     * samples is that of the sine itself (2*pi*440/48000*0.5 = 0.029). */
    assert_true(a.max_step < 0.035);
    /* It sounded for about 400 ms + the 50 ms fade (timing within a few periods). */
    double dur = (double)(a.last - a.first) / (double)rate;
    assert_true(dur > 0.35 && dur < 0.60);
    restart_for_teardown(*state);
}

static void test_record_centre_pan_equal_power(void **state) {
    analysis_t a;
    size_t rate;
    play_and_record(state, 0.0f, &a, &rate);
    double expect = 0.5 / sqrt(2.0) * 0.70710678;
    assert_true(fabs(a.rms_l - expect) < 0.01);
    assert_true(fabs(a.rms_r - expect) < 0.01);
    assert_true(fabs(a.rms_l - a.rms_r) < 1e-3);
    restart_for_teardown(*state);
}

static double window_rms(const float *x, size_t from, size_t to, int ch) {
    double e = 0;
    for (size_t i = from; i < to; i++)
        e += (double)x[2 * i + ch] * x[2 * i + ch];
    return sqrt(e / (double)(to - from));
}

static void test_record_3d_position_pan_and_distance(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    assert_int_equal(heliod_load(h, "tone", f->sine, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D;
    pp.pos[0] = 2.0f; /* listener at the origin facing -z: +x is to the right */
    pp.min_distance = 1.0f;
    pp.max_distance = 50.0f;
    pp.distance_model = HELIOD_DIST_INVERSE;
    pp.fade_in_ms = 5;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "tone", &pp, &v, NULL), 0);
    th_sleep_ms(300);
    heliod_voice_set_t s = {.mask = HELIOD_SET_POS, .pos = {-8.0f, 0, 0}, .ramp_ms = 20};
    assert_int_equal(heliod_set(h, v, &s), 0);
    th_sleep_ms(300);
    assert_int_equal(heliod_stop(h, v, 20), 0);
    th_sleep_ms(100);
    heliod_close(h);
    size_t frames = 0;
    int rate = 0;
    float *x = stop_and_read_recording(f, &frames, &rate);
    analysis_t a = analyse(x, frames);
    assert_true(a.first != (size_t)-1);
    /* 2 m away, inverse model (min 1, rolloff 1): gain 1/2, hard right. */
    size_t w0 = a.first + (size_t)(0.05 * rate), w1 = a.first + (size_t)(0.25 * rate);
    double sine_rms = 0.5 / sqrt(2.0);
    assert_true(fabs(window_rms(x, w0, w1, 1) - 0.5 * sine_rms) < 0.1 * 0.5 * sine_rms);
    assert_true(window_rms(x, w0, w1, 0) < 0.01 * sine_rms);
    /* Then 8 m away on the left: gain 1/8, hard left. */
    size_t w2 = a.first + (size_t)(0.40 * rate), w3 = a.first + (size_t)(0.55 * rate);
    assert_true(w3 < frames);
    assert_true(fabs(window_rms(x, w2, w3, 0) - 0.125 * sine_rms) < 0.1 * 0.125 * sine_rms);
    assert_true(window_rms(x, w2, w3, 1) < 0.01 * sine_rms);
    /* The move itself is ramped: no click. */
    assert_true(a.max_step < 0.035);
    free(x);
    restart_for_teardown(f);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest shared[] = {
        cmocka_unit_test(test_handshake),
        cmocka_unit_test(test_load_list_unload),
        cmocka_unit_test(test_bad_files_and_names),
        cmocka_unit_test(test_garbage_bytes),
        cmocka_unit_test(test_client_killed_mid_frame),
        cmocka_unit_test(test_multichannel_file_is_downmixed),
        cmocka_unit_test(test_watch_sees_other_clients_voices),
    };
    const struct CMUnitTest own[] = {
        cmocka_unit_test_setup_teardown(test_stealing_and_stale_handles, setup_two_voices,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_flood_held_not_refused, setup_long_period, teardown),
        cmocka_unit_test_setup_teardown(test_many_voices_wait_for_room, setup_many_voices,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ring_sized_by_voices, setup_ring_voices, teardown),
        cmocka_unit_test_setup_teardown(test_owner_disconnect_fades_its_voices, setup_plain,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_record_hard_left_level_and_clean_fades, setup_record,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_record_centre_pan_equal_power, setup_record, teardown),
        cmocka_unit_test_setup_teardown(test_record_3d_position_pan_and_distance, setup_record,
                                        teardown),
    };
    int failed = cmocka_run_group_tests_name("daemon_shared", shared, setup_plain, teardown);
    failed += cmocka_run_group_tests_name("daemon_own", own, NULL, NULL);
    return failed;
}
