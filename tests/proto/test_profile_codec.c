/*
 * test_profile_codec.c - the PROFILE event and SUBSCRIBE's profile_hz in the
 * wire codec: a full event round-trips field for field; every bounded field
 * just inside its limit decodes and just outside it is EPROTO (loads, fills,
 * levels, counts, names); the encoder refuses counts it cannot send; a
 * SUBSCRIBE without profile_hz (8 bytes) reads as 0 and the validator keeps
 * the rate to 0 or 1..100.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "heliod_errors.h"
#include "hl_proto.h"

static hl_event_t g_in, g_out; /* ~8 KiB each: off the stack */
static uint8_t g_buf[HL_MAX_FRAME];

static void full_profile(hl_profile_t *p) {
    memset(p, 0, sizeof *p);
    p->time_ns = 123456789012ull;
    p->period_us = 5333.333f;
    p->callbacks = 19;
    p->load_now = 0.25f;
    p->load_peak = 0.5f;
    p->load_p99 = 0.4f;
    p->load_max = 1.5f;
    for (int k = 0; k < HL_PROFILE_HIST; k++)
        p->hist[k] = (uint32_t)k * 3u;
    p->xruns = 7;
    p->underruns = 9;
    p->voices_real = 64;
    p->voices_virtual = 200;
    p->decode_load = 0.03f;
    p->streams = 20;
    p->nstreams = HL_PROFILE_MAX_STREAMS;
    for (int i = 0; i < HL_PROFILE_MAX_STREAMS; i++) {
        snprintf(p->stream[i].sound, sizeof p->stream[i].sound, "music_%d", i);
        p->stream[i].fill = (float)i / (HL_PROFILE_MAX_STREAMS - 1);
    }
    p->master_peak_db = -3.0f;
    p->master_rms_db = -12.0f;
    p->nbuses = HL_PROFILE_MAX_BUSES;
    for (int i = 0; i < HL_PROFILE_MAX_BUSES; i++) {
        hl_profile_bus_t *b = &p->bus[i];
        snprintf(b->name, sizeof b->name, "bus.%02d-x_%s", i, i == 0 ? "a" : "b");
        b->peak_db = -144.0f + (float)i;
        b->peak_hold_db = 800.0f;
        b->rms_db = -20.0f;
        b->real = (uint16_t)i;
        b->virt = 65535;
    }
}

/* Encodes g_in as an EVENT body; returns its length (asserts success). */
static size_t encode(void) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, g_buf, sizeof g_buf);
    hl_put_event(&w, &g_in);
    assert_int_equal(w.err, 0);
    return w.len;
}

static int decode(size_t len) {
    hl_rbuf_t r;
    hl_rbuf_init(&r, g_buf, len);
    hl_get_event(&r, &g_out);
    return hl_rbuf_finish(&r);
}

static void test_round_trip(void **state) {
    (void)state;
    memset(&g_in, 0, sizeof g_in);
    g_in.type = HL_EVENT_PROFILE;
    full_profile(&g_in.profile);
    size_t len = encode();
    assert_true(len < HL_MAX_FRAME / 4); /* the daemon's frame buffer */
    assert_int_equal(decode(len), 0);
    assert_int_equal(g_out.type, HL_EVENT_PROFILE);
    assert_memory_equal(&g_out.profile, &g_in.profile, sizeof g_in.profile);
    /* every byte short is EPROTO, one byte over too */
    for (size_t cut = 0; cut < len; cut += 37)
        assert_int_equal(decode(cut), HELIOD_EPROTO);
    g_buf[len] = 0;
    assert_int_equal(decode(len + 1), HELIOD_EPROTO);
}

/* Re-encodes g_in after `edit`, decodes it, and returns the decoder's verdict. */
typedef void (*edit_fn)(hl_profile_t *p);
static int verdict(edit_fn edit) {
    memset(&g_in, 0, sizeof g_in);
    g_in.type = HL_EVENT_PROFILE;
    full_profile(&g_in.profile);
    edit(&g_in.profile);
    hl_wbuf_t w;
    hl_wbuf_init(&w, g_buf, sizeof g_buf);
    hl_put_event(&w, &g_in);
    if (w.err) return w.err;
    return decode(w.len);
}

static void load_max(hl_profile_t *p) {
    p->load_now = HL_PROFILE_MAX_LOAD;
}
static void load_over(hl_profile_t *p) {
    p->load_peak = HL_PROFILE_MAX_LOAD * 1.01f;
}
static void load_neg(hl_profile_t *p) {
    p->load_p99 = -0.001f;
}
static void load_nan(hl_profile_t *p) {
    p->load_max = NAN;
}
static void decode_inf(hl_profile_t *p) {
    p->decode_load = INFINITY;
}
static void period_zero(hl_profile_t *p) {
    p->period_us = 0.0f;
}
static void fill_one(hl_profile_t *p) {
    p->stream[3].fill = 1.0f;
}
static void fill_over(hl_profile_t *p) {
    p->stream[3].fill = 1.0001f;
}
static void fill_neg(hl_profile_t *p) {
    p->stream[0].fill = -0.0001f;
}
static void db_floor(hl_profile_t *p) {
    p->bus[1].rms_db = HL_METER_FLOOR_DB;
}
static void db_under(hl_profile_t *p) {
    p->bus[1].rms_db = -144.01f;
}
static void db_over(hl_profile_t *p) {
    p->master_peak_db = 800.5f;
}
static void buses_zero(hl_profile_t *p) {
    p->nbuses = 0;
    p->nstreams = 0;
}
static void buses_over(hl_profile_t *p) {
    p->nbuses = HL_PROFILE_MAX_BUSES + 1;
}
static void streams_over(hl_profile_t *p) {
    p->nstreams = HL_PROFILE_MAX_STREAMS + 1;
}
static void bad_bus_name(hl_profile_t *p) {
    strcpy(p->bus[2].name, "has space");
}
static void empty_bus_name(hl_profile_t *p) {
    p->bus[2].name[0] = 0;
}

static void test_limits(void **state) {
    (void)state;
    assert_int_equal(verdict(load_max), 0);
    assert_int_equal(verdict(load_over), HELIOD_EPROTO);
    assert_int_equal(verdict(load_neg), HELIOD_EPROTO);
    assert_int_equal(verdict(load_nan), HELIOD_EPROTO);
    assert_int_equal(verdict(decode_inf), HELIOD_EPROTO);
    assert_int_equal(verdict(period_zero), HELIOD_EPROTO);
    assert_int_equal(verdict(fill_one), 0);
    assert_int_equal(verdict(fill_over), HELIOD_EPROTO);
    assert_int_equal(verdict(fill_neg), HELIOD_EPROTO);
    assert_int_equal(verdict(db_floor), 0);
    assert_int_equal(verdict(db_under), HELIOD_EPROTO);
    assert_int_equal(verdict(db_over), HELIOD_EPROTO);
    assert_int_equal(verdict(buses_zero), 0);
    /* the encoder will not send what the decoder refuses */
    assert_int_equal(verdict(buses_over), HELIOD_ETOOBIG);
    assert_int_equal(verdict(streams_over), HELIOD_ETOOBIG);
    assert_int_equal(verdict(bad_bus_name), HELIOD_EINVAL);
    assert_int_equal(verdict(empty_bus_name), HELIOD_EINVAL);
}

/* Counts on the wire beyond the limits, written by hand. */
static void test_hostile_counts(void **state) {
    (void)state;
    memset(&g_in, 0, sizeof g_in);
    g_in.type = HL_EVENT_PROFILE;
    full_profile(&g_in.profile);
    g_in.profile.nstreams = 0;
    g_in.profile.nbuses = 0;
    size_t len = encode();
    /* nstreams sits right after u16 type + the fixed fields (96 bytes) */
    size_t at_nstreams = 2 + 94;
    assert_int_equal(g_buf[at_nstreams], 0);
    g_buf[at_nstreams] = HL_PROFILE_MAX_STREAMS + 1;
    assert_int_equal(decode(len), HELIOD_EPROTO);
    g_buf[at_nstreams] = 0;
    assert_int_equal(decode(len), 0);
    g_buf[len - 1] = HL_PROFILE_MAX_BUSES + 1; /* nbuses is the last byte */
    assert_int_equal(decode(len), HELIOD_EPROTO);
    g_buf[len - 1] = 255;
    assert_int_equal(decode(len), HELIOD_EPROTO);
}

static void test_subscribe(void **state) {
    (void)state;
    hl_subscribe_t s = {.mask = HL_SUB_PROFILE | HL_SUB_METER, .meter_hz = 20.0f};
    const char *why = NULL;
    hl_wbuf_t w;
    hl_wbuf_init(&w, g_buf, sizeof g_buf);
    hl_put_subscribe(&w, &s); /* profile_hz 0: not on the wire */
    assert_int_equal(w.len, 8);
    hl_rbuf_t r;
    hl_rbuf_init(&r, g_buf, w.len);
    hl_subscribe_t got;
    memset(&got, 0xff, sizeof got);
    hl_get_subscribe(&r, &got);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_int_equal(got.mask, s.mask);
    assert_true(got.profile_hz == 0.0f);
    s.profile_hz = 33.0f;
    hl_wbuf_init(&w, g_buf, sizeof g_buf);
    hl_put_subscribe(&w, &s);
    assert_int_equal(w.len, 12);
    hl_rbuf_init(&r, g_buf, w.len);
    hl_get_subscribe(&r, &got);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_true(got.profile_hz == 33.0f);
    /* a 13th byte is left over */
    hl_rbuf_init(&r, g_buf, 13);
    hl_get_subscribe(&r, &got);
    assert_int_equal(hl_rbuf_finish(&r), HELIOD_EPROTO);
    /* the rate: 0, or 1..100 */
    const float ok[] = {0.0f, HL_PROFILE_MIN_HZ, 10.0f, HL_PROFILE_MAX_HZ};
    const float bad[] = {0.999f, 100.001f, -1.0f, NAN, INFINITY};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        s.profile_hz = ok[i];
        assert_int_equal(hl_validate_subscribe(&s, &why), 0);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s.profile_hz = bad[i];
        assert_int_equal(hl_validate_subscribe(&s, &why), HELIOD_EINVAL);
        assert_non_null(strstr(why, "profile_hz"));
    }
    s.profile_hz = 0.0f;
    s.mask = 0x800; /* a bit nobody defined (0x400 is MUSIC) */
    assert_int_equal(hl_validate_subscribe(&s, &why), HELIOD_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_hostile_counts),
        cmocka_unit_test(test_subscribe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
