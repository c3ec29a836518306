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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture_test.h"
#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

uint8_t *slurp(const char *path, size_t *n) {
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
uint16_t g16(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}
uint32_t g32(const uint8_t *p) {
    return g16(p) | (uint32_t)g16(p + 2) << 16;
}
uint64_t g64(const uint8_t *p) {
    return g32(p) | (uint64_t)g32(p + 4) << 32;
}

/* /tmp/hl_NAME_PID.EXT into buf (320 bytes). */
void tmp_file(char *buf, const char *name, const char *ext) {
    snprintf(buf, 320, "/tmp/hl_%s_%d%s", name, (int)getpid(), ext);
}

/* A session's files (320 bytes each): the capture, a tone, a score, the
 * render's output. */
void session_files(const char *tag, char *cap, char *tone, char *score, char *out) {
    char t[64];
    tmp_file(cap, tag, ".bin");
    snprintf(t, sizeof t, "%s_tone", tag);
    tmp_file(tone, t, ".wav");
    tmp_file(score, tag, ".txt");
    snprintf(t, sizeof t, "%s_out", tag);
    tmp_file(out, t, ".wav");
}

/* Starts heliod --render CAPTURE --out OUT [more options] (its stderr to
 * OUT.err): its pid. */
static pid_t render_start(const char *cap, const char *out, const char *more) {
    pid_t p = fork();
    if (p == 0) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "\"%s\" --render %s --out %s --log-level warn %s 2>%s.err",
                 getenv("HELIOD_BIN"), cap, out, more, out);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return p;
}

/* A started render's exit status; its stderr into err (may be NULL). */
static int render_wait(pid_t p, const char *out, char *err) {
    int st = 0;
    int got = p > 0 && waitpid(p, &st, 0) == p;
    char ef[360];
    snprintf(ef, sizeof ef, "%s.err", out);
    if (err) {
        FILE *f = fopen(ef, "r");
        size_t n = f ? fread(err, 1, 1023, f) : 0;
        err[n] = 0;
        if (f) fclose(f);
    }
    unlink(ef);
    return got && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs heliod --render CAPTURE --out OUT [more options]; its exit status;
 * its stderr into err (may be NULL). */
int render_capture_with(const char *cap, const char *out, const char *more, char *err) {
    return render_wait(render_start(cap, out, more), out, err);
}

static int render_capture(const char *cap, const char *out, char *err) {
    return render_capture_with(cap, out, "", err);
}

/* Waits until h's engine clock reaches frame f, looking every ms; *k: the clock then. */
void wait_clock(heliod_t *h, uint64_t f, unsigned ms, heliod_clock_t *k) {
    do {
        th_sleep_ms(ms);
        assert_int_equal(heliod_clock(h, k), 0);
    } while (k->frame < f);
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
    assert_int_equal(g16(f + 8), 2);
    assert_int_equal(f[10], HL_PROTO_VERSION);
    assert_int_equal(g32(f + 12), 48000);
    uint16_t ops[32];
    int32_t status[32];
    uint32_t clients[32];
    int nreq = 0, sounds = 0, trailer = 0, replies = 0, sessions = 0, closes = 0, procs = 0;
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
        } else if (r[0] == 4) { /* REPLY: the handle the play before it answered */
            replies++;
            assert_int_equal(nreq, 5);
            assert_true(g64(r + 4) == v);
        } else if (r[0] == 5) { /* SESSION, first */
            sessions++;
            assert_int_equal(off, 32);
            assert_int_equal(g32(r + 8), 2); /* channels */
        } else if (r[0] == 6) {              /* CLOSE */
            closes++;
        } else if (r[0] == 7) { /* PROCESS, after a HELLO: whose connection it is */
            procs++;
            assert_true(nreq > 0 && ops[nreq - 1] == HL_OP_HELLO);
            assert_int_equal(g32(r + 4), clients[nreq - 1]);
            assert_int_equal(g32(r + 8), (uint32_t)getpid()); /* every client is this process */
        } else if (r[0] == 2) {                               /* SOUND */
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
    assert_int_equal(replies, 1);
    assert_int_equal(sessions, 1);
    assert_int_equal(closes, 3); /* the harness's, a, b */
    assert_int_equal(procs, 3);
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
    /* header, session, requests, processes, reply, sound, closes, trailer */
    assert_int_equal(lines, 1 + 1 + 8 + 3 + 1 + 1 + 3 + 1);
    /* not a capture file: refused */
    snprintf(cmd, sizeof cmd, "\"%s\" capture show %s 2>/dev/null", getenv("HELIODCTL_BIN"), wav);
    o = popen(cmd, "r");
    assert_non_null(o);
    while (fgets(line, sizeof line, o)) {
    }
    assert_int_not_equal(pclose(o), 0);
    /* the capture holds the file's bytes: it replays with the file gone */
    char out[340];
    snprintf(out, sizeof out, "%s.out.wav", cap);
    unlink(wav);
    assert_int_equal(render_capture(cap, out, NULL), 0);
    unlink(out);
    unlink(cap);
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
    const char *args[] = {"--client-voices", "2", NULL}; /* for the mid-session capture */
    assert_int_equal(th_daemon_start(&d, 1, args), 0);
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
    /* a path the daemon cannot write, a FIFO (no reader: never waited on),
     * a directory: an error answer, nothing captured */
    char fifo[320];
    snprintf(fifo, sizeof fifo, "/tmp/hl_capfifo_%d", (int)getpid());
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *bad[][4] = {{"capture", "start", "/nonexistent-hl-dir/c.bin", NULL},
                            {"capture", "start", fifo, NULL},
                            {"capture", "start", "/tmp", NULL}};
    for (int i = 0; i < 3; i++) {
        assert_int_not_equal(th_ctl(&d, out, sizeof out, err, sizeof err, bad[i]), 0);
        assert_non_null(strstr(err, "EFILE"));
        assert_non_null(strstr(err, bad[i][2]));
    }
    unlink(fifo);
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
    mid_t mid;
    mid_session_live(&d, &mid); /* its start joins the first capture's writer */
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    mid_session_check(&d, &mid);
    th_daemon_cleanup(&d);
    size_t n = 0;
    uint8_t *f = slurp(cap, &n);
    assert_non_null(f);
    assert_memory_equal(f, "HLDCAPT\n", 8);
    size_t off = 32, last = 0;
    int reqs = 0, open = 0, procs = 0;
    uint16_t first_op = 0, last_op = 0;
    while (off + 4 <= n) {
        uint32_t len = g32(f + off);
        const uint8_t *r = f + off + 4;
        if (r[0] == 1 && (r[1] & 0x4)) { /* OPEN: a connection open when it started */
            assert_int_equal(reqs, 0);   /* before every captured request */
            assert_int_equal(g16(r + 32), HL_OP_HELLO);
            open++;
        } else if (r[0] == 1) {
            if (!reqs) first_op = g16(r + 32);
            last_op = g16(r + 32);
            reqs++;
        }
        if (r[0] == 7 && g32(r + 8) == (uint32_t)getpid()) procs++;
        last = off;
        off += 4 + len;
    }
    assert_int_equal(off, n);
    /* open then: the raw "game" client (this process) and heliodctl's */
    assert_int_equal(open, 2);
    assert_int_equal(procs, 2); /* "game" (then), game2 (later) */
    assert_int_equal(reqs, 7);
    assert_int_equal(first_op, HL_OP_CAPTURE);
    assert_int_equal(last_op, HL_OP_CAPTURE);
    assert_int_equal(f[last + 4], 3); /* the trailer */
    assert_int_equal(g64(f + last + 8), 7);
    free(f);
    unlink(cap);
}

/* A session captured live (--record, the null driver) and rendered from the
 * capture: the same samples. Plays, a cue bound to a parameter, listener
 * moves, bus changes and parameter values, scheduled (heliodctl batch) and
 * not (libheliod, applied on whichever period the request met: the capture
 * says which); a voice a later SET and STOP name by the handle its PLAY
 * answered; clients that come and go. */
static void test_replay_equals_live(void **state) {
    (void)state;
    th_daemon_t d;
    char cap[320], tone[320], hum[320], score[320], out[320], o[4096], e[4096];
    session_files("replay", cap, tone, score, out);
    tmp_file(hum, "replay_hum", ".wav");
    assert_int_equal(th_write_sine(tone, 48000, 0.5, 440, 0.4), 0);
    assert_int_equal(th_write_sine(hum, 48000, 0.5, 110, 0.3), 0);
    /* the batch's six plays fill its process's quota; this process holds its own */
    const char *args[] = {"--capture", cap, "--client-voices", "6", NULL};
    assert_int_equal(th_daemon_start(&d, 1, args), 0);
    heliod_t *h = th_connect(&d, "game", 0);
    assert_int_equal(heliod_load(h, "tone", tone, HELIOD_LOAD_SHARED, NULL), 0);
    assert_int_equal(heliod_load(h, "hum", hum, HELIOD_LOAD_SHARED, NULL), 0);
    heliod_clock_t k;
    assert_int_equal(heliod_clock(h, &k), 0);
    uint64_t t =
        k.frame + 4800; /* the score's first frame: ahead (late: applied late, replayed so) */
    FILE *f = fopen(score, "w");
    assert_non_null(f);
    fprintf(f,
            "param-def wind 0 1 0 0\n"
            "param-def gale 0 1 0 20\n" /* seeks: 20 a second */
            "cue gust --sound hum --loop --3d\n"
            "bind gust wind gain 0:-30 1:0\n"
            "cue whoosh --sound tone --loop\n"
            "bind whoosh gale gain 0:-40 1:0\n"
            /* a seeking parameter on a bus's gain and a snapshot's intensity */
            "param-def tide 0 1 0 40\n"
            "bus create amb\n"
            "bind amb tide bus-gain 0:0 1:-12\n"
            "bind amb wind bus-gain 0:0 1:-6\n" /* a jump on it too: they add up */
            "snapshot define hush --fade 0\n"
            "snapshot set hush sfx gain -9\n"
            "bind hush tide snapshot 0:0 0.5:0.2 1:1\n"
            "snapshot define duck --fade 10\n" /* started and stopped live below */
            "snapshot set duck music gain -8\n"
            "@%llu play hum --loop --bus amb --pitch 2.5 --fade-in 0\n"
            "@%llu play tone --pos 3,0,-2 --loop --fade-in 0\n"
            "@%llu play gust --pos -2,0,-1 --fade-in 0\n"
            "@%llu play whoosh --pitch 0.7 --fade-in 0\n"
            "@%llu param gale 1\n" /* over 50 ms (2400 frames) */
            "@%llu play hum --loop --bus music --gain -12 --fade-in 0\n"
            "@%llu listener --pos 1,0,0 --vel 0,0,3\n"
            "@%llu bus music --gain -20 --ramp 5\n"
            "@%llu param wind 1\n"
            "@%llu play tone --pitch 1.3 --fade-in 0\n"
            "@%llu param tide 1\n"    /* over 25 ms, after gale's seek */
            "@%llu param wind 0.6\n", /* a jump while tide seeks */
            (unsigned long long)t, (unsigned long long)t, (unsigned long long)t + 250,
            (unsigned long long)t + 500, (unsigned long long)t + 600, (unsigned long long)t + 750,
            (unsigned long long)t + 2000, (unsigned long long)t + 3000,
            (unsigned long long)t + 4000, (unsigned long long)t + 5000,
            (unsigned long long)t + 4100, (unsigned long long)t + 4400);
    fclose(f);
    const char *batch[] = {"batch", score, NULL};
    assert_int_equal(th_ctl(&d, o, sizeof o, e, sizeof e, batch), 0);
    /* not scheduled: from the frame the daemon met them on */
    wait_clock(h, t + 6000, 20, &k);
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags |= HELIOD_PLAY_LOOP;
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(h, "tone", &p, &v, NULL), 0);
    th_sleep_ms(30);
    heliod_voice_set_t vs = {.mask = HELIOD_SET_PITCH, .pitch = 0.8f};
    assert_int_equal(heliod_set(h, v, &vs), 0);
    heliod_listener_t l = {0};
    l.mask = HELIOD_LIS_POS;
    l.pos[2] = 2;
    assert_int_equal(heliod_set_listener(h, &l), 0);
    const char *bus[] = {"bus", "music", "--gain", "-6", NULL}; /* heliodctl's bus */
    assert_int_equal(th_ctl(&d, o, sizeof o, e, sizeof e, bus), 0);
    const char *tide[] = {"param", "tide", "0.4", NULL}; /* a seek of the bus bindings */
    assert_int_equal(th_ctl(&d, o, sizeof o, e, sizeof e, tide), 0);
    th_sleep_ms(30);
    /* a seek and, while it runs, a jump of another parameter: on the jump's
     * own frame, live and replayed (one connection: heliodctl replay sends
     * both ahead of their frames; a request right after another client's
     * close, which is replayed on its frame, could come too late) */
    assert_int_equal(heliod_param_set(h, "gale", HELIOD_PSCOPE_GLOBAL, NULL, 0, 0.1f), 0);
    assert_int_equal(heliod_param_set(h, "wind", HELIOD_PSCOPE_GLOBAL, NULL, 0, 0.2f), 0);
    th_sleep_ms(30);
    assert_int_equal(heliod_stop(h, v, 5), 0);
    /* a scheduled play sent after its frame: applied late live (one
     * sched_late), recorded LATE, replayed where live applied it */
    assert_int_equal(heliod_clock(h, &k), 0);
    heliod_play_params_t p1;
    heliod_play_params_init(&p1);
    heliod_at_frame(h, k.frame - 480);
    assert_int_equal(heliod_play(h, "hum", &p1, NULL, NULL), 0);
    heliod_at_frame(h, 0);
    th_sleep_ms(20);
    /* snapshot glides started and stopped live, not scheduled: each planned
     * from the frame the capture records (the next call's when the audio
     * thread had drained its ring already: the in-period case, see
     * test_sched's test_now_in_period), from a second client tuning the
     * mix (a control client: the daemon's music bus). The render replays
     * them exactly, and so does heliodctl replay, which sends each ahead,
     * scheduled: the plans the parameter seeks above make on their frames
     * meanwhile (a hush bound to tide) know them then, and must plan as
     * live, where they came later */
    heliod_t *tuner = th_connect(&d, "tuner", HELIOD_CONNECT_CONTROL);
    for (int i = 0; i < 3; i++) {
        if (heliod_snapshot_start(tuner, "duck", 12.0f, 1.0f - 0.25f * (float)i) != 0)
            fail_msg("snapshot start: %s", heliod_last_error(tuner));
        th_sleep_ms(4);
        assert_int_equal(heliod_snapshot_stop(tuner, "duck", 7.0f), 0);
        th_sleep_ms(2);
    }
    heliod_close(tuner);
    assert_int_equal(heliod_clock(h, &k), 0);
    uint64_t before_visitor = k.frame;          /* heliodctl replay's window ends here */
    heliod_t *g = th_connect(&d, "visitor", 0); /* comes, plays, goes: its voice stops */
    assert_int_equal(heliod_play(g, "hum", &p, &v, NULL), 0);
    th_sleep_ms(20);
    heliod_close(g);
    th_sleep_ms(50);
    assert_true(th_stat(h, "record_dropped_frames") == 0.0);
    assert_true(th_stat(h, "capture_dropped") == 0.0);
    /* what breaks a session's timeline: a device underrun, a ranking the
     * main thread applied after its frame, a request the audio thread met
     * mid-drain (its frame of effect unknown), the CPU governor stepping
     * voices down by how long the callbacks took (a loaded machine) */
    static const char *const broke[] = {"xruns",         "callback_overruns",  "rank_late",
                                        "param_late",    "capture_unsure",     "sched_late",
                                        "governor_cuts", "governor_steps_down"};
    double xruns = 0;
    for (size_t i = 0; i < sizeof broke / sizeof broke[0]; i++) {
        double n =
            th_stat(h, broke[i]) - (strcmp(broke[i], "sched_late") == 0); /* the late play's */
        if (n > 0) print_message("# %s %.0f\n", broke[i], n);
        xruns += n;
    }
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);

    /* the live quota: each recorded process its own account (PROCESS
     * records), so none of the plays diverges (EQUOTA: exit 3); rendered
     * twice (the same bytes), both while heliodctl replay below runs on
     * the clock */
    char err[1024], out2[340];
    snprintf(out2, sizeof out2, "%s.2.wav", out);
    pid_t r1 = render_start(cap, out, "--client-voices 6"),
          r2 = render_start(cap, out2, "--client-voices 6");
    float *y = NULL;
    size_t ny = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(d.record, &y, &ny, &ch, &rate), 0);
    size_t diff = 0, first = SIZE_MAX;
    /* heliodctl replay into another daemon: every request on its frame
     * shifted by what it prints, so the same samples (up to the visitor's
     * close, which happens when its connection goes, not on a frame) */
    th_daemon_t d2; /* the live quota: each recorded process's connections from a process of
                       their own (replayed from one, the batch's six and this process's plays
                       would pass it) */
    /* its --capture is a directory: refused by the writer (a warning), the
     * daemon serves on (the replay) and nothing is created */
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/hl_capdir_%d", (int)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    const char *args2[] = {"--capture", dir, "--client-voices", "6", NULL};
    assert_int_equal(th_daemon_start(&d2, 1, args2), 0);
    const char *badspeed[] = {"replay", cap, "--speed", "0", NULL};
    assert_int_equal(th_ctl(&d2, o, sizeof o, e, sizeof e, badspeed), 2);
    assert_non_null(strstr(e, "--speed"));
    const char *rp[] = {"replay", cap, NULL};
    int rprc = th_ctl(&d2, o, sizeof o, e, sizeof e, rp);
    if (rprc != 0) fail_msg("replay: %d: %s / %s", rprc, o, e);
    const char *sh = strstr(o, "(shift ");
    assert_non_null(sh);
    size_t shift = (size_t)strtoull(sh + 7, NULL, 10);
    assert_non_null(strstr(o, " 0 diverged"));
    heliod_t *h2 = th_connect(&d2, "test", 0);
    double xruns2 = th_stat(h2, "xruns") + th_stat(h2, "callback_overruns") +
                    th_stat(h2, "rank_late") + th_stat(h2, "sched_late") +
                    th_stat(h2, "param_late");
    heliod_close(h2);
    assert_int_equal(th_daemon_stop(&d2, NULL), 0);
    size_t nl = 0;
    uint8_t *log = slurp(d2.log, &nl);
    assert_non_null(log);
    log[nl] = 0;
    assert_non_null(strstr((char *)log, "capture:"));
    free(log);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(rmdir(dir), 0);
    float *z = NULL;
    size_t nz = 0;
    assert_int_equal(th_read_sound(d2.record, &z, &nz, &ch, &rate), 0);
    assert_true(nz >= shift + before_visitor);
    diff = 0;
    first = SIZE_MAX;
    for (size_t i = 0; i < 2 * before_visitor; i++) {
        if (y[i] != z[2 * shift + i]) {
            diff++;
            if (first == SIZE_MAX) first = i / 2;
        }
    }
    if (diff && xruns + xruns2 == 0.0)
        fail_msg("replay: %zu samples differ, the first at frame %zu (t %llu): %.9f vs %.9f", diff,
                 first, (unsigned long long)t, y[2 * first], z[2 * (shift + first)]);
    free(z);
    /* the render: the live session's samples */
    int rrc = render_wait(r1, out, err);
    if (rrc != 0) fail_msg("render: exit %d: %s", rrc, err);
    float *x = NULL;
    size_t nx = 0;
    assert_int_equal(th_read_sound(out, &x, &nx, &ch, &rate), 0);
    assert_true(nx > t + 9000);
    assert_true(ny >= nx);
    diff = 0;
    first = SIZE_MAX;
    size_t loud = 0;
    for (size_t i = 0; i < 2 * nx; i++) {
        loud += x[i] != 0.0f;
        if (x[i] != y[i]) {
            diff++;
            if (first == SIZE_MAX) first = i / 2;
        }
    }
    assert_true(loud > 2 * 9000);
    /* a device underrun (a loaded machine) breaks the session's timeline:
     * only then may the two differ. Under a sanitizer on a loaded machine
     * the main thread is slow enough that a request can take effect later
     * live than recorded with no counter saying so (seen 3 times in 96
     * runs under ASan, 6 at once; never in 32 optimised runs): printed,
     * not failed there (a known gap: issue 27) */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    const int slow_build = 1;
#else
    const int slow_build = 0;
#endif
    if (diff && xruns == 0.0 && !slow_build)
        fail_msg("%zu samples differ, the first at frame %zu: %.9f vs %.9f", diff, first,
                 x[2 * first], y[2 * first]);
    if (diff && xruns == 0.0)
        print_message("# sanitizer build: %zu samples differ with no counter set, the first at "
                      "frame %zu\n",
                      diff, first);
    if (diff) print_message("# %zu samples differ (the session's timeline broke)\n", diff);
    free(x);
    /* the capture rendered again: the same bytes */
    assert_int_equal(render_wait(r2, out2, NULL), 0);
    size_t n1 = 0, n2 = 0;
    uint8_t *b1 = slurp(out, &n1), *b2 = slurp(out2, &n2);
    assert_non_null(b1);
    assert_non_null(b2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
    unlink(out2);
    free(y);
    th_daemon_cleanup(&d2);
    th_daemon_cleanup(&d);
    /* a LOADed file that changed since: refused before anything renders,
     * naming the sound */
    assert_int_equal(th_write_sine(tone, 48000, 0.5, 441, 0.4), 0);
    assert_int_equal(render_capture(cap, out, err), 2);
    assert_non_null(strstr(err, "sound 'tone'"));
    unlink(cap);
    unlink(tone);
    unlink(hum);
    unlink(score);
    unlink(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_records),
        cmocka_unit_test(test_capture_start_stop),
        cmocka_unit_test(test_replay_equals_live),
    };
    return TH_RUN(tests);
}
