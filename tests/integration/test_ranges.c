/*
 * test_ranges.c - one range per parameter, on the wire: raw requests (the
 * library's own validation bypassed) carry each parameter whose range both
 * the wire validator and the mixer know (proto/defs/hl_ranges.h) just below, at
 * and just above each end of its range (nextafterf: -1, 0, +1 ulp; around
 * 0 the smallest normal floats). Inside
 * (the ends included) the daemon must accept it all the way down: the mixer
 * applies it (status 0; before hl_ranges.h a duck depth of 60..96 dB or a
 * phase of 10..60 s passed the wire and came back "engine busy" from the
 * mixer). Outside it is EINVAL with a message naming the parameter and its
 * range ("depth_db: must be in [0, 96]").
 *
 * Covered: DUCK depth_db, threshold_db, attack_ms, hold_ms, release_ms; FX
 * every parameter of the EQ, the compressor and the reverb (FX SET on an
 * effect added first); PLAY and SET pitch.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "hl_proto.h"
#include "hl_ranges.h"

#define RX_MS 5000

static uint8_t g_out[HL_MAX_FRAME];
static uint8_t g_in[HL_MAX_FRAME];
static uint32_t g_id = 1;

typedef struct {
    int32_t status;
    char msg[HL_MAX_MSG + 1];
    hl_rbuf_t body; /* after the reply head (status 0) */
} reply_t;

static void write_all(int fd, const uint8_t *p, size_t len) {
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        assert_true(n > 0);
        p += n;
        len -= (size_t)n;
    }
}

static void read_exact(int fd, uint8_t *p, size_t len) {
    while (len) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        assert_true(poll(&pf, 1, RX_MS) == 1);
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR) continue;
        assert_true(n > 0);
        p += n;
        len -= (size_t)n;
    }
}

/* Sends op with the body `put` encodes from m and returns its reply (events
 * in between are skipped). */
typedef void (*put_fn)(hl_wbuf_t *w, const void *m);
static void request(int fd, uint16_t op, put_fn put, const void *m, reply_t *r) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, g_out, sizeof g_out);
    uint32_t id = g_id++;
    hl_frame_begin(&w, op, 0, id);
    if (put) put(&w, m);
    int n = hl_frame_end(&w);
    assert_true(n > 0);
    write_all(fd, g_out, (size_t)n);
    for (;;) {
        read_exact(fd, g_in, HL_FRAME_HDR);
        hl_frame_hdr_t h;
        assert_int_equal(hl_frame_peek(g_in, HL_FRAME_HDR, &h), 0);
        read_exact(fd, g_in + HL_FRAME_HDR, h.size - HL_FRAME_HDR);
        if (h.op != HL_OP_REPLY || h.id != id) continue;
        hl_rbuf_init(&r->body, g_in + HL_FRAME_HDR, h.size - HL_FRAME_HDR);
        hl_reply_head_t rh;
        hl_get_reply_head(&r->body, &rh);
        r->status = rh.status;
        r->msg[0] = 0;
        if (rh.status < 0) hl_get_str(&r->body, r->msg, sizeof r->msg);
        return;
    }
}

static void put_hello(hl_wbuf_t *w, const void *m) {
    hl_put_hello(w, m);
}
static void put_load(hl_wbuf_t *w, const void *m) {
    hl_put_load(w, m);
}
static void put_duck(hl_wbuf_t *w, const void *m) {
    hl_put_duck_rule(w, m);
}
static void put_fx(hl_wbuf_t *w, const void *m) {
    hl_put_fx_req(w, m);
}
static void put_play(hl_wbuf_t *w, const void *m) {
    hl_put_play(w, m);
}
static void put_set(hl_wbuf_t *w, const void *m) {
    hl_put_set(w, m);
}

/* The three values around one end of a range and whether each is inside. */
static void around(float edge, int is_hi, float v[3], int in[3]) {
    /* around 0 the next floats are subnormal, which a thread with
     * denormals-are-zero set reads as 0: the smallest normals instead */
    v[0] = edge == 0.0f ? -FLT_MIN : nextafterf(edge, -INFINITY);
    v[1] = edge;
    v[2] = edge == 0.0f ? FLT_MIN : nextafterf(edge, INFINITY);
    in[0] = is_hi ? 1 : 0;
    in[1] = 1;
    in[2] = is_hi ? 0 : 1;
}

static int g_checked;

/* The reply to a value: accepted inside, EINVAL naming want outside. */
static void expect(const char *what, float v, int inside, const reply_t *r, const char *want) {
    g_checked++;
    if (inside && r->status != 0)
        fail_msg("%s = %.9g (inside its range): status %d \"%s\"", what, (double)v, r->status,
                 r->msg);
    if (!inside && (r->status != HELIOD_EINVAL || !strstr(r->msg, want)))
        fail_msg("%s = %.9g (outside): status %d \"%s\", expected EINVAL \"%s\"", what, (double)v,
                 r->status, r->msg, want);
}

typedef struct {
    const char *name;
    float lo, hi;
    const char *msg;
} range_t;

static void test_duck_edges(int fd) {
    const range_t rs[] = {
        {"depth_db", HL_R_DUCK_DEPTH_LO, HL_R_DUCK_DEPTH_HI,
         HL_RANGE_MSG("depth_db", HL_R_DUCK_DEPTH)},
        {"threshold_db", HL_R_DUCK_THRESH_LO, HL_R_DUCK_THRESH_HI,
         HL_RANGE_MSG("threshold_db", HL_R_DUCK_THRESH)},
        {"attack_ms", HL_R_DUCK_MS_LO, HL_R_DUCK_MS_HI, HL_RANGE_MSG("attack_ms", HL_R_DUCK_MS)},
        {"hold_ms", HL_R_DUCK_MS_LO, HL_R_DUCK_MS_HI, HL_RANGE_MSG("hold_ms", HL_R_DUCK_MS)},
        {"release_ms", HL_R_DUCK_MS_LO, HL_R_DUCK_MS_HI, HL_RANGE_MSG("release_ms", HL_R_DUCK_MS)},
    };
    for (int k = 0; k < 5; k++)
        for (int end = 0; end < 2; end++) {
            float v[3];
            int in[3];
            around(end ? rs[k].hi : rs[k].lo, end, v, in);
            for (int i = 0; i < 3; i++) {
                hl_duck_rule_t d;
                hl_duck_rule_init(&d);
                snprintf(d.bus, sizeof d.bus, "music");
                snprintf(d.by, sizeof d.by, "dialog");
                d.on = 1;
                float *f[] = {&d.depth_db, &d.threshold_db, &d.attack_ms, &d.hold_ms,
                              &d.release_ms};
                *f[k] = v[i];
                reply_t r;
                request(fd, HL_OP_DUCK, put_duck, &d, &r);
                char what[64];
                snprintf(what, sizeof what, "duck %s", rs[k].name);
                expect(what, v[i], in[i], &r, rs[k].msg);
            }
        }
}

static void test_fx_edges(int fd) {
    const struct {
        int kind;
        const char *bus;
        int n;
        range_t p[6];
    } ks[] = {
        {HL_FXK_EQ,
         "sfx",
         3,
         {{"freq", HL_R_EQ_FREQ_LO, HL_R_EQ_FREQ_HI, HL_RANGE_MSG("freq", HL_R_EQ_FREQ)},
          {"q", HL_R_EQ_Q_LO, HL_R_EQ_Q_HI, HL_RANGE_MSG("q", HL_R_EQ_Q)},
          {"gain", HL_R_EQ_GAIN_LO, HL_R_EQ_GAIN_HI, HL_RANGE_MSG("gain", HL_R_EQ_GAIN)}}},
        {HL_FXK_COMP,
         "music",
         6,
         {{"threshold", HL_R_COMP_THRESH_LO, HL_R_COMP_THRESH_HI,
           HL_RANGE_MSG("threshold", HL_R_COMP_THRESH)},
          {"ratio", HL_R_COMP_RATIO_LO, HL_R_COMP_RATIO_HI, HL_RANGE_MSG("ratio", HL_R_COMP_RATIO)},
          {"knee", HL_R_COMP_KNEE_LO, HL_R_COMP_KNEE_HI, HL_RANGE_MSG("knee", HL_R_COMP_KNEE)},
          {"attack", HL_R_COMP_ATTACK_LO, HL_R_COMP_ATTACK_HI,
           HL_RANGE_MSG("attack", HL_R_COMP_ATTACK)},
          {"release", HL_R_COMP_RELEASE_LO, HL_R_COMP_RELEASE_HI,
           HL_RANGE_MSG("release", HL_R_COMP_RELEASE)},
          {"makeup", HL_R_COMP_MAKEUP_LO, HL_R_COMP_MAKEUP_HI,
           HL_RANGE_MSG("makeup", HL_R_COMP_MAKEUP)}}},
        {HL_FXK_REVERB,
         "ui",
         6,
         {{"rt60", HL_R_REV_RT60_LO, HL_R_REV_RT60_HI, HL_RANGE_MSG("rt60", HL_R_REV_RT60)},
          {"damping", HL_R_REV_DAMPING_LO, HL_R_REV_DAMPING_HI,
           HL_RANGE_MSG("damping", HL_R_REV_DAMPING)},
          {"predelay", HL_R_REV_PREDELAY_LO, HL_R_REV_PREDELAY_HI,
           HL_RANGE_MSG("predelay", HL_R_REV_PREDELAY)},
          {"size", HL_R_REV_SIZE_LO, HL_R_REV_SIZE_HI, HL_RANGE_MSG("size", HL_R_REV_SIZE)},
          {"wet", HL_R_REV_WET_LO, HL_R_REV_WET_HI, HL_RANGE_MSG("wet", HL_R_REV_WET)},
          {"dry", HL_R_REV_DRY_LO, HL_R_REV_DRY_HI, HL_RANGE_MSG("dry", HL_R_REV_DRY)}}},
    };
    for (int k = 0; k < 3; k++) {
        hl_fx_req_t a = {.action = HL_FX_ADD, .kind = (uint8_t)ks[k].kind};
        snprintf(a.bus, sizeof a.bus, "%s", ks[k].bus);
        if (ks[k].kind == HL_FXK_EQ) {
            a.type = HL_EQ_PEAK;
            a.mask = HL_FXP_TYPE;
        }
        reply_t r;
        request(fd, HL_OP_FX, put_fx, &a, &r);
        assert_int_equal(r.status, 0);
        for (int i = 0; i < ks[k].n; i++)
            for (int end = 0; end < 2; end++) {
                float v[3];
                int in[3];
                around(end ? ks[k].p[i].hi : ks[k].p[i].lo, end, v, in);
                for (int j = 0; j < 3; j++) {
                    hl_fx_req_t s = {.action = HL_FX_SET, .kind = (uint8_t)ks[k].kind};
                    snprintf(s.bus, sizeof s.bus, "%s", ks[k].bus);
                    s.index = 0;
                    s.mask = 1u << i;
                    s.p[i] = v[j];
                    request(fd, HL_OP_FX, put_fx, &s, &r);
                    char what[64];
                    snprintf(what, sizeof what, "fx %s", ks[k].p[i].name);
                    expect(what, v[j], in[j], &r, ks[k].p[i].msg);
                }
            }
    }
}

static void play_init(hl_play_t *p) {
    memset(p, 0, sizeof *p);
    snprintf(p->sound, sizeof p->sound, "tone");
    p->pitch = 1.0f;
    p->fade_in_ms = -1.0f;
    p->min_distance = 1.0f;
    p->max_distance = 100.0f;
    p->rolloff = 1.0f;
    p->model = HL_DIST_INVERSE;
}

static void test_pitch_edges(int fd) {
    const char *msg = HL_RANGE_MSG("pitch", HL_R_PITCH);
    hl_play_t p;
    play_init(&p);
    p.flags = HL_PLAY_LOOP;
    reply_t r;
    request(fd, HL_OP_PLAY, put_play, &p, &r);
    assert_int_equal(r.status, 0);
    hl_play_reply_t pr;
    hl_get_play_reply(&r.body, &pr);
    for (int end = 0; end < 2; end++) {
        float v[3];
        int in[3];
        around(end ? HL_R_PITCH_HI : HL_R_PITCH_LO, end, v, in);
        for (int i = 0; i < 3; i++) {
            play_init(&p);
            p.pitch = v[i];
            request(fd, HL_OP_PLAY, put_play, &p, &r);
            expect("play pitch", v[i], in[i], &r, msg);
            hl_set_t s;
            memset(&s, 0, sizeof s);
            s.voice = pr.voice;
            s.mask = HL_SET_PITCH;
            s.pitch = v[i];
            request(fd, HL_OP_SET, put_set, &s, &r);
            expect("set pitch", v[i], in[i], &r, msg);
        }
    }
}

static void test_edges(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    int fd = th_raw_connect(d.sock);
    assert_true(fd >= 0);
    /* a control client: the edges are tried on the daemon's music bus */
    hl_hello_t hello = {.version = HL_PROTO_VERSION, .flags = HL_HELLO_CONTROL};
    snprintf(hello.client_name, sizeof hello.client_name, "ranges");
    reply_t r;
    request(fd, HL_OP_HELLO, put_hello, &hello, &r);
    assert_int_equal(r.status, 0);
    char path[400];
    snprintf(path, sizeof path, "%s/tone.wav", d.dir);
    assert_int_equal(th_write_sine(path, 48000, 0.5, 440.0, 0.1), 0);
    hl_load_t l = {.flags = 0};
    snprintf(l.name, sizeof l.name, "tone");
    snprintf(l.path, sizeof l.path, "%s", path);
    request(fd, HL_OP_LOAD, put_load, &l, &r);
    assert_int_equal(r.status, 0);

    test_duck_edges(fd);
    test_fx_edges(fd);
    test_pitch_edges(fd);
    printf("%d edge values checked\n", g_checked);
    assert_int_equal(g_checked, (5 + 15) * 6 + 2 * 6);
    close(fd);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
