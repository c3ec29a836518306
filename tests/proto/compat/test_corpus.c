/*
 * test_corpus.c - protocol 1.0 is frozen: every frame of corpus_1.0.txt
 * (sent by the clients of commit 4550bf8: libheliod, heliodctl, the Python
 * client) decodes with today's codec to the request the 1.0 decoder read,
 * field by field; the fields appended since 1.0 get their documented
 * defaults from the shorter 1.0 bodies; HELLO's 1.1 minor is optional,
 * canonical, and skips a later minor's fields. A METER event of 7.1.4 (12
 * channels) to a 1.1 connection carries the 7.1 bed's 8, which the decoder
 * of a 1.1 client built before 7.1.4 (trailing channels 3..8) reads; to a
 * 1.2 one all 12; to a 1.0 one the 1.0 body; on 7.1 (8) 1.1 and 1.2 get the
 * same bytes.
 *
 * argv[1]: the corpus (meson passes tests/proto/compat/corpus_1.0.txt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "corpus_dump.h"
#include "corpus_read.h"
#include "hl_proto.h"

static const char *g_path;
static corpus_t g_c;

static int setup(void **state) {
    (void)state;
    return corpus_load(&g_c, g_path);
}
static int teardown(void **state) {
    (void)state;
    corpus_free(&g_c);
    return 0;
}

/* Prints the first line where two dumps differ. */
static void first_diff(const char *a, const char *b) {
    for (int line = 1;; line++) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || strncmp(a, b, la) != 0) {
            fprintf(stderr, "  line %d: 1.0 read \"%.*s\", today \"%.*s\"\n", line, (int)la, a,
                    (int)lb, b);
            return;
        }
        if (!a[la] || !b[lb]) return;
        a += la + 1;
        b += lb + 1;
    }
}

static void test_every_frame_decodes_the_same(void **state) {
    (void)state;
    static char out[1 << 16];
    size_t bad = 0;
    int seen[256] = {0};
    for (size_t i = 0; i < g_c.n; i++) {
        const corpus_frame_t *f = &g_c.f[i];
        int rc = corpus_dump(f->frame, f->len, out, sizeof out);
        if (rc != 0 || strcmp(out, f->expect) != 0) {
            fprintf(stderr, "frame %zu (%s, %s): %s\n", i + 1, f->source, hl_op_name(f->op),
                    rc ? "does not decode" : "decodes differently");
            first_diff(f->expect, out);
            bad++;
        }
        if (f->op < 256) seen[f->op]++;
    }
    int kinds = 0;
    for (int op = 0; op < 256; op++)
        kinds += seen[op] != 0;
    printf("corpus: %zu frames of %d request kinds, %zu differ\n", g_c.n, kinds, bad);
    assert_int_equal(bad, 0);
    /* the 1.0 clients sent every 1.0 request kind: the corpus covers them all */
    static const uint16_t ops10[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                     14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                                     27, 28, 29, 30, 31, 32, 33, 34, 35, 40, 41, 42};
    for (size_t k = 0; k < sizeof ops10 / sizeof ops10[0]; k++)
        if (!seen[ops10[k]]) fail_msg("the corpus has no %s frame", hl_op_name(ops10[k]));
}

/* The fields appended since 1.0 (HELLO.minor so far): a 1.0 body gets the default. */
static void test_appended_fields_default(void **state) {
    (void)state;
    int hellos = 0;
    for (size_t i = 0; i < g_c.n; i++) {
        const corpus_frame_t *f = &g_c.f[i];
        if (f->op != HL_OP_HELLO) continue;
        hl_rbuf_t r;
        hl_rbuf_init(&r, f->frame + HL_FRAME_HDR, f->len - HL_FRAME_HDR);
        hl_hello_t m;
        memset(&m, 0xAA, sizeof m);
        hl_get_hello(&r, &m);
        assert_int_equal(hl_rbuf_finish(&r), 0);
        assert_int_equal(m.version, 1);
        assert_int_equal(m.minor, 0); /* a 1.0 client */
        hellos++;
    }
    assert_true(hellos >= 3); /* libheliod (game and control), heliodctl, python */
}

static size_t enc_hello(uint8_t *buf, size_t cap, uint16_t version, uint16_t minor,
                        const uint8_t *extra, size_t nextra) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, cap);
    hl_hello_t m = {.version = version, .flags = HL_HELLO_CONTROL, .minor = minor};
    snprintf(m.client_name, sizeof m.client_name, "game");
    hl_put_hello(&w, &m);
    for (size_t i = 0; i < nextra; i++)
        hl_put_u8(&w, extra[i]);
    assert_int_equal(w.err, 0);
    return w.len;
}

static void test_hello_minor(void **state) {
    (void)state;
    uint8_t buf[256], b10[256];
    hl_rbuf_t r;
    hl_hello_t m;
    /* today's client: 1.HL_PROTO_MINOR, two bytes more than a 1.0 HELLO */
    size_t n = enc_hello(buf, sizeof buf, HL_PROTO_VERSION, HL_PROTO_MINOR, NULL, 0);
    size_t n10 = enc_hello(b10, sizeof b10, HL_PROTO_VERSION, 0, NULL, 0);
    assert_int_equal(n, n10 + 2);
    assert_memory_equal(buf, b10, n10); /* the 1.0 prefix, unchanged */
    hl_rbuf_init(&r, buf, n);
    hl_get_hello(&r, &m);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_int_equal(m.minor, HL_PROTO_MINOR);
    assert_int_equal(m.flags, HL_HELLO_CONTROL);
    /* cut to the 1.0 body: a 1.0 client */
    hl_rbuf_init(&r, buf, n10);
    hl_get_hello(&r, &m);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_int_equal(m.minor, 0);
    /* cut inside the minor, or an explicit minor 0 (1.0 is said by leaving it out) */
    hl_rbuf_init(&r, buf, n10 + 1);
    hl_get_hello(&r, &m);
    assert_int_equal(hl_rbuf_finish(&r), HELIOD_EPROTO);
    memcpy(buf, b10, n10);
    buf[n10] = buf[n10 + 1] = 0;
    hl_rbuf_init(&r, buf, n10 + 2);
    hl_get_hello(&r, &m);
    assert_int_equal(hl_rbuf_finish(&r), HELIOD_EPROTO);
    /* a later minor's HELLO with fields we do not know: read up to our minor */
    const uint8_t later[] = {1, 2, 3, 4, 5};
    n = enc_hello(buf, sizeof buf, HL_PROTO_VERSION, HL_PROTO_MINOR + 7, later, sizeof later);
    hl_rbuf_init(&r, buf, n);
    hl_get_hello(&r, &m);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_int_equal(m.minor, HL_PROTO_MINOR + 7);
    /* ... but our own minor is strict: trailing bytes are EPROTO */
    n = enc_hello(buf, sizeof buf, HL_PROTO_VERSION, HL_PROTO_MINOR, later, 1);
    hl_rbuf_init(&r, buf, n);
    hl_get_hello(&r, &m);
    assert_int_equal(hl_rbuf_finish(&r), HELIOD_EPROTO);
}

static void test_hello_reply_minor(void **state) {
    (void)state;
    uint8_t buf[256];
    hl_wbuf_t w;
    hl_rbuf_t r;
    hl_hello_reply_t m = {.version = 1,
                          .rate = 48000,
                          .period = 256,
                          .voices = 64,
                          .client_id = 3,
                          .server_version = "x",
                          .flags = 0,
                          .minor = 0};
    /* to a 1.0 client: the 1.0 reply, which a 1.0 decoder reads exactly */
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_hello_reply(&w, &m);
    size_t n10 = w.len;
    assert_int_equal(n10, 2 + 4 * 4 + 2 + 1 + 4);
    /* to a 1.1 client: the daemon's minor appended */
    m.minor = HL_PROTO_MINOR;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_hello_reply(&w, &m);
    assert_int_equal(w.len, n10 + 2);
    hl_hello_reply_t d;
    hl_rbuf_init(&r, buf, w.len);
    hl_get_hello_reply(&r, &d);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_int_equal(d.minor, HL_PROTO_MINOR);
    hl_rbuf_init(&r, buf, n10); /* a 1.0 daemon's reply: minor 0 */
    hl_get_hello_reply(&r, &d);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_int_equal(d.minor, 0);
}

/* A METER of `ch` channels (2 buses), every reading its own level. */
static void meter_event(hl_event_t *ev, unsigned ch) {
    memset(ev, 0, sizeof *ev);
    ev->type = HL_EVENT_METER;
    ev->meter.frame = 4800;
    ev->meter.momentary = ev->meter.short_term = ev->meter.integrated = -23.0f;
    ev->meter.range = 4.0f;
    ev->meter.nbuses = 2;
    snprintf(ev->meter.bus[0].name, sizeof ev->meter.bus[0].name, "music");
    snprintf(ev->meter.bus[1].name, sizeof ev->meter.bus[1].name, "sfx");
    ev->meter_more.channels = (uint8_t)ch;
    for (int b = -1; b < 2; b++) {
        hl_meter_level_t *l = b < 0 ? &ev->meter.master : &ev->meter.bus[b];
        hl_meter_rest_t *x = b < 0 ? &ev->meter_more.master : &ev->meter_more.bus[b];
        for (int c = 0; c < 2; c++)
            l->peak_db[c] = l->peak_hold_db[c] = l->rms_db[c] = -10.0f * (float)(b + 2) - (float)c;
        for (int c = 0; c < HL_METER_MAX_CH - 2; c++) {
            x->peak_db[c] = -10.0f * (float)(b + 2) - (float)(c + 2);
            x->peak_hold_db[c] = x->peak_db[c] + 1.0f;
            x->rms_db[c] = x->peak_db[c] - 3.0f;
        }
    }
}

/* ev for a connection of protocol 1.minor, then read back by a decoder that
 * takes at most `most` trailing channels (a 1.1 client built before 7.1.4:
 * 8; today's: 12), strict (no byte left over): 0 or EPROTO; n: the size. */
static int meter_roundtrip(const hl_event_t *ev, unsigned minor, unsigned most, hl_event_t *out,
                           uint8_t *buf, size_t cap, size_t *n) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, cap);
    hl_put_event_minor(&w, ev, minor);
    assert_int_equal(w.err, 0);
    *n = w.len;
    hl_rbuf_t r;
    hl_rbuf_init(&r, buf, w.len);
    hl_get_event(&r, out);
    int rc = hl_rbuf_finish(&r);
    return rc == 0 && out->meter_more.channels > most ? HELIOD_EPROTO : rc;
}

static void test_meter_minor(void **state) {
    (void)state;
    static hl_event_t ev, d;
    static uint8_t b10[8192], b11[8192], b12[8192];
    size_t n10, n11, n12;
    meter_event(&ev, 12); /* 7.1.4 */
    /* 1.0: the 1.0 body: type, frame, 4 loudness, the master's level block,
     * nbuses, then "music" and "sfx" each with theirs */
    assert_int_equal(meter_roundtrip(&ev, 0, 0, &d, b10, sizeof b10, &n10), 0);
    assert_int_equal(d.meter_more.channels, 0);
    assert_int_equal(n10, 2 + 8 + 4 * 4 + 24 + 1 + (2 + 5 + 24) + (2 + 3 + 24));
    /* 1.1: the 1.0 body, then the bed's 8 channels, which a 1.1 decoder reads */
    assert_int_equal(meter_roundtrip(&ev, 1, HL_METER_MAX_CH_1_1, &d, b11, sizeof b11, &n11), 0);
    assert_int_equal(d.meter_more.channels, 8);
    assert_int_equal(n11, n10 + 1 + 3 * 3 * 6 * 4);
    assert_memory_equal(b11, b10, n10);
    for (int b = -1; b < 2; b++) {
        const hl_meter_rest_t *x = b < 0 ? &ev.meter_more.master : &ev.meter_more.bus[b];
        const hl_meter_rest_t *y = b < 0 ? &d.meter_more.master : &d.meter_more.bus[b];
        assert_memory_equal(x->peak_db, y->peak_db, 6 * sizeof(float)); /* FC LFE BL BR SL SR */
        assert_memory_equal(x->peak_hold_db, y->peak_hold_db, 6 * sizeof(float));
        assert_memory_equal(x->rms_db, y->rms_db, 6 * sizeof(float));
    }
    /* 1.2: all 12, which that decoder refuses and today's reads */
    assert_int_equal(meter_roundtrip(&ev, 2, HL_METER_MAX_CH_1_1, &d, b12, sizeof b12, &n12),
                     HELIOD_EPROTO);
    assert_int_equal(meter_roundtrip(&ev, 2, HL_METER_MAX_CH, &d, b12, sizeof b12, &n12), 0);
    assert_int_equal(d.meter_more.channels, 12);
    assert_int_equal(n12, n10 + 1 + 3 * 3 * 10 * 4);
    assert_memory_equal(&d.meter_more.bus[1], &ev.meter_more.bus[1], sizeof d.meter_more.bus[1]);
    /* 7.1: 1.1 and 1.2 get the same bytes, what 1.1 got before 1.2 */
    meter_event(&ev, 8);
    assert_int_equal(meter_roundtrip(&ev, 1, HL_METER_MAX_CH_1_1, &d, b11, sizeof b11, &n11), 0);
    assert_int_equal(meter_roundtrip(&ev, 2, HL_METER_MAX_CH, &d, b12, sizeof b12, &n12), 0);
    assert_int_equal(n11, n12);
    assert_memory_equal(b11, b12, n11);
}

int main(int argc, char **argv) {
    g_path = argc > 1 ? argv[1] : "corpus_1.0.txt";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_frame_decodes_the_same),
        cmocka_unit_test(test_appended_fields_default),
        cmocka_unit_test(test_hello_minor),
        cmocka_unit_test(test_hello_reply_minor),
        cmocka_unit_test(test_meter_minor),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
