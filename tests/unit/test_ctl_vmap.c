/*
 * test_ctl_vmap.c - heliodctl replay's voice handle map (client/ctl_vmap.c)
 * on a hand-made capture: a slot the replay fills (the first reply naming
 * a voice directly after its REQUEST) starts PENDING, a stray reply's (a
 * corrupt capture) NONE, so a request naming its handle does not wait for
 * it forever.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ctl_vmap.h"
#include "hl_proto.h"

static uint8_t cap[1024];
static size_t ncap;

static void put(const void *p, size_t n) {
    assert_true(ncap + n <= sizeof cap);
    memcpy(cap + ncap, p, n);
    ncap += n;
}
static void put32(uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, 4);
}
static void put64(uint64_t v) {
    put32((uint32_t)v);
    put32((uint32_t)(v >> 32));
}
/* A record: u32 length, then kind, flags, two zero bytes. */
static void head(uint32_t len, uint8_t kind) {
    put32(len);
    put(&(uint8_t[4]){kind, 0, 0, 0}, 4);
}
static void request(void) { /* a wire frame of a bare header (u32 size first) */
    head(28 + HL_FRAME_HDR, CTL_CAP_REQUEST);
    put64(0); /* frame */
    put64(0); /* time_ns */
    put32(1); /* client */
    put32(0); /* status */
    uint8_t fr[HL_FRAME_HDR] = {HL_FRAME_HDR};
    put(fr, sizeof fr);
}
static void reply(uint8_t kind, uint64_t voice) {
    head(12, kind);
    put64(voice);
}
static void closerec(void) {
    head(16, CTL_CAP_CLOSE);
    put64(0);
    put32(1);
}
static void process(void) {
    head(12, CTL_CAP_PROCESS);
    put32(1);
    put32(42);
}

static uint64_t slot_of(const ctl_vmap_t *m, uint64_t rec) {
    long k = ctl_vmap_find(m, rec, (uint32_t)m->n);
    assert_true(k >= 0);
    return ctl_vmap_get(m, k);
}

static void test_stray_replies_none(void **state) {
    (void)state;
    ncap = 0;
    put(CTL_CAP_MAGIC, 8);
    put(&(uint8_t[CTL_CAP_HDR - 8]){0}, CTL_CAP_HDR - 8);
    reply(CTL_CAP_REPLY, 7); /* before any request */
    request();
    reply(CTL_CAP_REPLY, 5); /* filled */
    reply(CTL_CAP_REPLY, 6); /* a second one after the same request */
    request();
    reply(CTL_CAP_REPLY, 0);  /* names no voice */
    reply(CTL_CAP_MREPLY, 8); /* the first that does: filled */
    process();
    reply(CTL_CAP_REPLY, 9); /* after a PROCESS */
    request();
    closerec();
    reply(CTL_CAP_MREPLY, 10); /* after a CLOSE */
    ctl_vmap_t m;
    assert_int_equal(ctl_vmap_init(&m, cap, ncap), 0);
    assert_int_equal(m.n, 6);
    assert_true(slot_of(&m, 5) == CTL_VMAP_PENDING);
    assert_true(slot_of(&m, 8) == CTL_VMAP_PENDING);
    assert_true(slot_of(&m, 7) == CTL_VMAP_NONE);
    assert_true(slot_of(&m, 6) == CTL_VMAP_NONE);
    assert_true(slot_of(&m, 9) == CTL_VMAP_NONE);
    assert_true(slot_of(&m, 10) == CTL_VMAP_NONE);
    ctl_vmap_destroy(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_stray_replies_none)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
