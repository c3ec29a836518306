/*
 * test_capture.c - heliod --capture FILE: the capture file's header, one
 * record per state-changing request (from every client, in dispatch order,
 * with its client, engine frame and status; read-only requests not at all),
 * the identity and bytes (--capture-audio) of a LOADed file, the trailer's
 * counts; a capture path that is not a regular file is refused and the
 * daemon runs on; heliodctl capture show lists the records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)sz + 1);
    *n = fread(b, 1, (size_t)sz, f);
    fclose(f);
    return b;
}
static uint16_t g16(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t g32(const uint8_t *p) {
    return g16(p) | (uint32_t)g16(p + 2) << 16;
}
static uint64_t g64(const uint8_t *p) {
    return g32(p) | (uint64_t)g32(p + 4) << 32;
}

static void test_capture_records(void **state) {
    (void)state;
    th_daemon_t d;
    char cap[320], wav[320];
    const char *args[] = {"--capture", cap, "--capture-audio", NULL};
    /* the daemon's directory is made by th_daemon_start: capture into /tmp */
    snprintf(cap, sizeof cap, "/tmp/hl_capture_%d.bin", (int)getpid());
    snprintf(wav, sizeof wav, "/tmp/hl_capture_%d.wav", (int)getpid());
    assert_int_equal(th_write_sine(wav, 48000, 0.25, 440, 0.5), 0);
    assert_int_equal(th_daemon_start(&d, 0, args), 0);
    struct heliod *a = th_connect(&d, "game", 0);
    struct heliod *b = th_connect(&d, "tool", 0);
    assert_int_equal(heliod_load(a, "tone", wav, HELIOD_LOAD_SHARED, NULL), 0);
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(a, "tone", &p, &v, NULL), 0);
    assert_int_equal(heliod_ping(a, NULL), 0); /* read-only: not captured */
    heliod_snapshot_info_t si[4];
    size_t nsi = 0;
    assert_int_equal(heliod_snapshots(a, si, 4, &nsi), 0); /* read-only: not captured */
    heliod_voice_t w = 0;
    assert_true(heliod_play(b, "no_such_sound", &p, &w, NULL) < 0); /* captured, failed */
    heliod_listener_t l = {0};
    l.mask = HELIOD_LIS_POS;
    l.pos[0] = 2;
    assert_int_equal(heliod_set_listener(b, &l), 0);
    assert_int_equal(heliod_stop(a, v, 0), 0);
    assert_true(th_stat(a, "capture_dropped") == 0);
    heliod_close(a);
    heliod_close(b);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);

    size_t n = 0, wn = 0;
    uint8_t *f = slurp(cap, &n);
    uint8_t *wf = slurp(wav, &wn);
    assert_non_null(f);
    assert_non_null(wf);
    assert_true(n >= 32);
    assert_memory_equal(f, "HLDCAPT\n", 8);
    assert_int_equal(g16(f + 8), 1);
    assert_int_equal(f[10], HL_PROTO_VERSION);
    assert_int_equal(g32(f + 12), 48000);
    uint16_t ops[32];
    int32_t status[32];
    uint32_t clients[32];
    int nreq = 0, sounds = 0, trailer = 0;
    uint64_t last_frame = 0;
    size_t off = 32;
    while (off + 4 <= n) {
        uint32_t len = g32(f + off);
        assert_true(off + 4 + len <= n);
        const uint8_t *r = f + off + 4;
        if (r[0] == 1) { /* REQUEST */
            assert_true(nreq < 32);
            uint64_t frame = g64(r + 4);
            assert_true(frame >= last_frame);
            last_frame = frame;
            clients[nreq] = g32(r + 20);
            status[nreq] = (int32_t)g32(r + 24);
            assert_int_equal(g32(r + 28), len - 28); /* the wire frame's size */
            ops[nreq++] = g16(r + 32);
        } else if (r[0] == 2) { /* SOUND */
            sounds++;
            assert_int_equal(r[1], 2); /* the bytes follow */
            assert_int_equal(g64(r + 16), wn);
            uint64_t h = 1469598103934665603ull;
            for (size_t i = 0; i < wn; i++)
                h = (h ^ wf[i]) * 1099511628211ull;
            assert_true(g64(r + 32) == h);
            uint16_t pl = g16(r + 40);
            assert_int_equal(pl, strlen(wav));
            assert_memory_equal(r + 42, wav, pl);
            assert_int_equal(len, 42 + pl + wn);
            assert_memory_equal(r + 42 + pl, wf, wn);
        } else {
            assert_int_equal(r[0], 3); /* TRAILER, last */
            assert_int_equal(off + 4 + len, n);
            assert_int_equal(g64(r + 4), (uint64_t)nreq);
            assert_int_equal(g64(r + 12), 0);
            trailer++;
        }
        off += 4 + len;
    }
    assert_int_equal(off, n);
    assert_int_equal(trailer, 1);
    assert_int_equal(sounds, 1);
    /* the harness's hello (its ping is not captured), then the two clients'
     * hellos, load, play, play (failed), listener, stop; no ping, snapshots, stats */
    static const uint16_t want[] = {HL_OP_HELLO, HL_OP_HELLO, HL_OP_HELLO,    HL_OP_LOAD,
                                    HL_OP_PLAY,  HL_OP_PLAY,  HL_OP_LISTENER, HL_OP_STOP};
    assert_int_equal(nreq, 8);
    for (int i = 0; i < nreq; i++)
        assert_int_equal(ops[i], want[i]);
    assert_int_equal(status[4], 0);
    assert_int_equal(status[5], HELIOD_ENOSOUND);
    assert_int_not_equal(clients[1], clients[2]);
    assert_int_equal(clients[3], clients[1]);
    assert_int_equal(clients[4], clients[1]);
    assert_int_equal(clients[5], clients[2]);
    assert_int_equal(clients[6], clients[2]);
    free(f);
    free(wf);
    /* heliodctl capture show: the same records, readable and as JSON */
    char cmd[600], line[512];
    snprintf(cmd, sizeof cmd, "\"%s\" capture show %s", getenv("HELIODCTL_BIN"), cap);
    FILE *o = popen(cmd, "r");
    assert_non_null(o);
    int plays = 0, failed = 0, ends = 0, sound_lines = 0;
    while (fgets(line, sizeof line, o)) {
        if (strstr(line, " play ")) plays++;
        if (strstr(line, " play ") && strstr(line, "no such sound")) failed++;
        if (strstr(line, "(sound)") && strstr(line, wav)) sound_lines++;
        if (!strncmp(line, "end: 8 requests captured, 0 dropped", 35)) ends++;
    }
    assert_int_equal(pclose(o), 0);
    assert_int_equal(plays, 2);
    assert_int_equal(failed, 1);
    assert_int_equal(sound_lines, 1);
    assert_int_equal(ends, 1);
    snprintf(cmd, sizeof cmd, "\"%s\" --json capture show %s", getenv("HELIODCTL_BIN"), cap);
    o = popen(cmd, "r");
    assert_non_null(o);
    int reqs = 0, lines = 0;
    while (fgets(line, sizeof line, o)) {
        lines++;
        assert_int_equal(line[0], '{');
        if (strstr(line, "\"kind\":\"request\"")) reqs++;
    }
    assert_int_equal(pclose(o), 0);
    assert_int_equal(reqs, 8);
    assert_int_equal(lines, 1 + 8 + 1 + 1); /* header, requests, sound, trailer */
    /* not a capture file: refused */
    snprintf(cmd, sizeof cmd, "\"%s\" capture show %s 2>/dev/null", getenv("HELIODCTL_BIN"), wav);
    o = popen(cmd, "r");
    assert_non_null(o);
    while (fgets(line, sizeof line, o)) {
    }
    assert_int_not_equal(pclose(o), 0);
    unlink(cap);
    unlink(wav);
}

/* A capture path that is not a regular file: refused by the writer, the
 * daemon serves on and the file is not created. */
static void test_capture_not_regular(void **state) {
    (void)state;
    th_daemon_t d;
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/hl_capdir_%d", (int)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    const char *args[] = {"--capture", dir, NULL};
    assert_int_equal(th_daemon_start(&d, 0, args), 0);
    struct heliod *a = th_connect(&d, "game", 0);
    assert_int_equal(heliod_ping(a, NULL), 0);
    heliod_close(a);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    size_t n = 0;
    uint8_t *log = slurp(d.log, &n);
    assert_non_null(log);
    log[n] = 0;
    assert_non_null(strstr((char *)log, "capture:"));
    free(log);
    th_daemon_cleanup(&d);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(rmdir(dir), 0);
}

/* One request on a raw connection; the reply's status. */
static int32_t raw_call(int fd, uint16_t op, uint32_t id, void (*put)(hl_wbuf_t *, const void *),
                        const void *m) {
    uint8_t buf[HL_MAX_FRAME];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, op, 0, id);
    put(&w, m);
    int n = hl_frame_end(&w);
    assert_true(n > 0);
    assert_int_equal(write(fd, buf, (size_t)n), n);
    for (;;) {
        uint8_t h[HL_FRAME_HDR];
        size_t got = 0;
        while (got < sizeof h) {
            ssize_t k = read(fd, h + got, sizeof h - got);
            assert_true(k > 0);
            got += (size_t)k;
        }
        hl_frame_hdr_t fh;
        assert_int_equal(hl_frame_peek(h, sizeof h, &fh), 0);
        size_t blen = fh.size - HL_FRAME_HDR;
        got = 0;
        while (got < blen) {
            ssize_t k = read(fd, buf + got, blen - got);
            assert_true(k > 0);
            got += (size_t)k;
        }
        if (fh.op != HL_OP_REPLY || fh.id != id) continue;
        hl_rbuf_t r;
        hl_rbuf_init(&r, buf, blen);
        hl_reply_head_t rh;
        hl_get_reply_head(&r, &rh);
        return rh.status;
    }
}
static void put_hello(hl_wbuf_t *w, const void *m) {
    hl_put_hello(w, m);
}
static void put_capture(hl_wbuf_t *w, const void *m) {
    hl_put_capture(w, m);
}

/* CAPTURE (heliodctl capture start/stop): a control client's only; one at a
 * time; stop answers the requests captured and the file ends with them. */
static void test_capture_start_stop(void **state) {
    (void)state;
    th_daemon_t d;
    char cap[320], out[4096], err[1024];
    snprintf(cap, sizeof cap, "/tmp/hl_capture2_%d.bin", (int)getpid());
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    /* a plain client: EPERM */
    int fd = th_raw_connect(d.sock);
    assert_true(fd >= 0);
    hl_hello_t hm = {.version = HL_PROTO_VERSION, .minor = HL_PROTO_MINOR};
    snprintf(hm.client_name, sizeof hm.client_name, "game");
    assert_int_equal(raw_call(fd, HL_OP_HELLO, 1, put_hello, &hm), 0);
    hl_capture_t cm = {.action = HL_CAPTURE_START};
    snprintf(cm.path, sizeof cm.path, "%s", cap);
    assert_int_equal(raw_call(fd, HL_OP_CAPTURE, 2, put_capture, &cm), HELIOD_EPERM);
    const char *stop[] = {"capture", "stop", NULL};
    assert_int_not_equal(th_ctl(&d, out, sizeof out, err, sizeof err, stop), 0); /* none */
    assert_non_null(strstr(err, "none is running"));
    const char *start[] = {"capture", "start", cap, NULL};
    assert_int_equal(th_ctl(&d, out, sizeof out, err, sizeof err, start), 0);
    assert_int_not_equal(th_ctl(&d, out, sizeof out, err, sizeof err, start),
                         0); /* one at a time */
    assert_non_null(strstr(err, "EBUSY"));
    struct heliod *a = th_connect(&d, "game2", 0);
    assert_int_equal(heliod_stop_all(a, 0, 0, NULL), 0);
    assert_int_equal(th_ctl(&d, out, sizeof out, err, sizeof err, stop), 0);
    /* start; a second heliodctl: hello + start (EBUSY); game2: hello, stop_all;
     * the last heliodctl: hello + stop */
    assert_string_equal(out, "captured 7 requests\n");
    heliod_close(a);
    close(fd);
    assert_int_equal(th_daemon_stop(&d, NULL), 0); /* joins the writer */
    th_daemon_cleanup(&d);
    size_t n = 0;
    uint8_t *f = slurp(cap, &n);
    assert_non_null(f);
    assert_memory_equal(f, "HLDCAPT\n", 8);
    size_t off = 32, last = 0;
    int reqs = 0;
    uint16_t first_op = 0, last_op = 0;
    while (off + 4 <= n) {
        uint32_t len = g32(f + off);
        const uint8_t *r = f + off + 4;
        if (r[0] == 1) {
            if (!reqs) first_op = g16(r + 32);
            last_op = g16(r + 32);
            reqs++;
        }
        last = off;
        off += 4 + len;
    }
    assert_int_equal(off, n);
    assert_int_equal(reqs, 7);
    assert_int_equal(first_op, HL_OP_CAPTURE);
    assert_int_equal(last_op, HL_OP_CAPTURE);
    assert_int_equal(f[last + 4], 3); /* the trailer */
    assert_int_equal(g64(f + last + 8), 7);
    free(f);
    unlink(cap);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_records),
        cmocka_unit_test(test_capture_not_regular),
        cmocka_unit_test(test_capture_start_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
