/*
 * time_ops.c - the requests of time: CLOCK, scheduled requests (HL_FLAG_AT)
 * and bundles (BUNDLE_BEGIN ... BUNDLE_END).
 *
 * The clock is the engine frame counter. A scheduled request is the usual
 * handler run with the mixer's commands stamped with the requested frame
 * (hl_mixer_at), so the voice manager, the bus registry and every other
 * domain need not know about time: whatever the request pushes to the audio
 * thread is applied at that frame, on that sample. The reply says how many
 * frames the requested frame was already behind the clock at dispatch; the
 * audio thread may pass a few more before it drains the command (it counts
 * those in stats: sched_late, sched_late_max_frames).
 *
 * A bundle is held whole on its connection: the requests between
 * BUNDLE_BEGIN and BUNDLE_END are copied aside (at most HL_BUNDLE_REQS, in
 * one HL_MAX_FRAME of bytes), then run one after the other inside one mixer
 * bundle at BUNDLE_END, so their commands reach the audio thread in one ring
 * write and apply in the same block, each at its own frame. Holding them
 * until the end means another client's requests, dispatched meanwhile,
 * never land inside this bundle. Each held request is answered as usual
 * (its own id), then BUNDLE_END with the count run.
 */
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "dispatch.h"
#include "dispatch_int.h"
#include "engine.h"
#include "vm.h"

int hld_op_clock(hld_req_t *q) {
    /* an optional voice handle: its start frame follows the clock */
    int with_voice = q->r.len == sizeof(uint64_t);
    uint64_t voice = with_voice ? hl_get_u64(&q->r) : 0;
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_daemon_t *d = q->c->d;
    const hld_lvoice_t *lv = with_voice ? hld_vm_get(d->vm, voice) : NULL;
    if (with_voice && !lv) return hld_fail(q, HELIOD_ENOVOICE, NULL);
    hl_clock_t k = {0};
    hl_mixer_clock(d->engine.mixer, &k.frame, &k.time_ns);
    if (k.time_ns == 0) { /* no period rendered yet: frame 0 is about to start */
        k.frame = hl_mixer_frames(d->engine.mixer);
        k.time_ns = hld_now_ns();
    }
    hld_device_stats_t ds;
    hld_device_stats(d, &ds);
    k.rate = d->engine.rate;
    k.period = d->engine.period;
    k.output_latency_ns = ds.latency_s > 0 ? (uint64_t)(ds.latency_s * HLD_NS_PER_S) : 0;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_reply_begin(q);
    hl_put_clock(&q->w, &k);
    if (lv) hl_put_u64(&q->w, lv->start_frame);
    return hld_reply_end(q);
}

int hld_dispatch_at(hld_req_t *q, hld_op_fn fn) {
    if (!hl_op_schedulable(q->h->op))
        return hld_fail(q, HELIOD_EINVAL,
                        "only play, stop, set, bus and listener can be scheduled");
    uint64_t at = hl_get_u64(&q->r);
    if (q->r.err) return hld_body_ok(q) ? 0 : CLOSE_CONN; /* truncated: EPROTO */
    hl_mixer_t *mx = q->c->d->engine.mixer;
    uint64_t saved = hl_mixer_at_frame(mx);
    /* frame 0 is "now" for the mixer; as a request it is simply late */
    hl_mixer_at(mx, at ? at : 1);
    q->late = hl_mixer_late_frames(mx);
    int rc = fn(q);
    hl_mixer_at(mx, saved);
    return rc;
}

/* ---- bundles --------------------------------------------------------------- */

/* A held request: its header, then its body, packed. */
typedef struct {
    hl_frame_hdr_t h;
    uint32_t len;
} held_t;

int hld_op_bundle_begin(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_conn_t *c = q->c;
    if (c->bundle) return hld_fail(q, HELIOD_EINVAL, "a bundle is already open");
    c->bundle = malloc(HL_MAX_FRAME);
    if (!c->bundle) return hld_fail(q, HELIOD_ENOMEM, NULL);
    c->bundle_len = 0;
    c->bundle_n = 0;
    return hld_reply_ok(q);
}

int hld_bundle_hold(hld_req_t *q) {
    hld_conn_t *c = q->c;
    if (q->h->op == HL_OP_BUNDLE_BEGIN)
        return hld_fail(q, HELIOD_EINVAL, "a bundle is already open");
    if (!hl_op_schedulable(q->h->op))
        return hld_fail(q, HELIOD_EINVAL, "only play, stop, set, bus and listener go in a bundle");
    size_t need = sizeof(held_t) + q->r.len;
    if (c->bundle_n >= HL_BUNDLE_REQS || c->bundle_len + need > HL_MAX_FRAME)
        return hld_fail(q, HELIOD_EBUSY, "bundle full");
    held_t hd = {.h = *q->h, .len = (uint32_t)q->r.len};
    memcpy(c->bundle + c->bundle_len, &hd, sizeof hd);
    memcpy(c->bundle + c->bundle_len + sizeof hd, q->r.buf, q->r.len);
    c->bundle_len += need;
    c->bundle_n++;
    return 0; /* answered at BUNDLE_END */
}

int hld_op_bundle_end(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_conn_t *c = q->c;
    if (!c->bundle) return hld_fail(q, HELIOD_EINVAL, "no bundle open");
    uint8_t *buf = c->bundle;
    size_t len = c->bundle_len;
    uint32_t n = c->bundle_n;
    c->bundle = NULL; /* the held requests dispatch normally now */
    hl_mixer_t *mx = c->d->engine.mixer;
    /* room for all of it first (a steal takes two commands): all or nothing */
    int busy = hl_mixer_cmd_room(mx) < 2 * n + 1;
    int rc = 0;
    if (!busy) (void)hl_mixer_bundle_begin(mx);
    for (size_t off = 0; off < len && rc >= 0;) {
        held_t hd;
        memcpy(&hd, buf + off, sizeof hd);
        const uint8_t *body = buf + off + sizeof hd;
        off += sizeof hd + hd.len;
        if (busy) {
            c->d->n.cmds_busy++;
            hld_send_error(c, hd.h.op, hd.h.flags, hd.h.id, HELIOD_EBUSY, "command queue full");
            continue;
        }
        rc = hld_dispatch(c, &hd.h, body, hd.len);
    }
    if (!busy) (void)hl_mixer_bundle_end(mx);
    free(buf);
    if (rc < 0) return rc;
    if (busy) return hld_mixer_fail(q, HELIOD_EBUSY);
    return hld_reply_count(q, n);
}
