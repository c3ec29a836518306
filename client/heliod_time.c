/*
 * heliod_time.c - libheliod's time: the engine clock, a voice's start frame,
 * scheduled requests (heliod_at_frame, heliod_at_ms: the transport core puts
 * the frame on every schedulable request), late frames, and bundles. Built on
 * the transport core's request helpers (heliod_int.h).
 */
#include "heliod.h"
#include "heliod_int.h"

#include "hl_proto.h"

#include <time.h>

int heliod_clock(heliod_t *h, heliod_clock_t *out) {
    if (!h || !out) return HELIOD_EINVAL;
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_CLOCK, 0, &id);
    if (rc < 0 || (rc = hlc_req_end(h, &w)) < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_CLOCK, &r)) < 0) return rc;
    hl_clock_t k;
    hl_get_clock(&r, &k);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    out->frame = k.frame;
    out->time_ns = k.time_ns;
    out->rate = k.rate;
    out->period = k.period;
    out->output_latency_ns = k.output_latency_ns;
    return 0;
}
int heliod_voice_start_frame(heliod_t *h, heliod_voice_t voice, uint64_t *frame) {
    if (!h || !frame) return HELIOD_EINVAL;
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_CLOCK, 0, &id);
    if (rc < 0) return rc;
    hl_put_u64(&w, voice);
    if ((rc = hlc_req_end(h, &w)) < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_CLOCK, &r)) < 0) return rc;
    hl_clock_t k;
    hl_get_clock(&r, &k);
    uint64_t f = hl_get_u64(&r);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    *frame = f;
    return 0;
}
uint64_t heliod_clock_frame_at(const heliod_clock_t *c, uint64_t time_ns) {
    if (!c || !c->rate) return 0;
    if (time_ns <= c->time_ns) return c->frame;
    /* exact integer arithmetic: (dt * rate) / 1e9, dt split to avoid overflow */
    uint64_t dt = time_ns - c->time_ns, s = dt / 1000000000u, ns = dt % 1000000000u;
    return c->frame + s * c->rate + ns * c->rate / 1000000000u;
}
void heliod_at_frame(heliod_t *h, uint64_t frame) {
    if (h) hlc_set_at_frame(h, frame);
}
int heliod_at_ms(heliod_t *h, double ms, uint64_t *frame) {
    if (!h || !(ms >= 0.0 && ms <= 86400000.0)) return HELIOD_EINVAL;
    uint64_t saved = hlc_at_frame(h);
    hlc_set_at_frame(h, 0);
    heliod_clock_t c;
    int rc = heliod_clock(h, &c);
    hlc_set_at_frame(h, saved);
    if (rc < 0) return rc;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t now = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
    uint64_t f = heliod_clock_frame_at(&c, now) + (uint64_t)(ms * c.rate / 1000.0 + 0.5);
    hlc_set_at_frame(h, f ? f : 1);
    if (frame) *frame = f ? f : 1;
    return 0;
}
uint64_t heliod_late_frames(const heliod_t *h) {
    return h ? hlc_last_late(h) : 0;
}
int heliod_bundle_begin(heliod_t *h) {
    if (!h) return HELIOD_EINVAL;
    if (hlc_in_bundle(h)) return hlc_set_error(h, HELIOD_EINVAL, "a bundle is already open");
    hl_wbuf_t w;
    uint32_t id;
    /* no reply: a failure arrives as an ERROR event (and BUNDLE_END says so) */
    int rc = hlc_req_begin(h, &w, HL_OP_BUNDLE_BEGIN, HL_FLAG_NOREPLY, &id);
    if (rc < 0 || (rc = hlc_req_end(h, &w)) < 0) return rc;
    hlc_set_bundle(h, 1);
    return 0;
}
int heliod_bundle_end(heliod_t *h, uint32_t *count) {
    if (!h) return HELIOD_EINVAL;
    if (!hlc_in_bundle(h)) return hlc_set_error(h, HELIOD_EINVAL, "no bundle open");
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_BUNDLE_END, 0, &id);
    if (rc < 0 || (rc = hlc_req_end(h, &w)) < 0) {
        hlc_set_bundle(h, 0);
        return rc;
    }
    rc = hlc_count_call(h, id, HL_OP_BUNDLE_END, count);
    hlc_set_bundle(h, 0);
    return rc;
}
