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
 * those in stats: sched_late, sched_late_max_frames). A frame more than
 * 24 h (HL_SCHED_AHEAD_S) ahead of the clock is EINVAL.
 *
 * Graph changes are never scheduled: a BUS create, remove, re-parent or
 * send with HL_FLAG_AT is EINVAL. The registry (buses.c) applies them at
 * once and the mixer takes the whole tree as one snapshot, so a snapshot
 * held for a later frame would undo every graph change made meanwhile.
 * Gain and mute ramps are per-bus commands and schedule as usual.
 *
 * Quotas: while a client's request runs (hld_sched_begin), the mixer
 * charges its scheduled commands to it (the hook below looks its id up with
 * hld_clients_get and adds them to its process record: one budget for all
 * the connections of a process) and stops at what its process's
 * --client-scheduled quota leaves:
 * beyond is EBUSY naming the quota. When a connection closes, the scheduled
 * commands on its non-detached voices are cancelled (hld_time_conn_closed):
 * those voices are ending anyway, and the schedule room is free at once.
 * Commands on detached voices and global ones (bus gain, listener) stay.
 *
 * A bundle is held whole on its connection: the requests between
 * BUNDLE_BEGIN and BUNDLE_END are copied aside (at most HL_BUNDLE_REQS, in
 * one HL_MAX_FRAME of bytes), then run one after the other inside one mixer
 * bundle at BUNDLE_END, so their commands reach the audio thread in one ring
 * write and apply in the same block, each at its own frame. Holding them
 * until the end means another client's requests, dispatched meanwhile,
 * never land inside this bundle. Each held request is answered as usual
 * (its own id), then BUNDLE_END with the count run. A bundle is all or
 * nothing: before any of it runs, the commands it can take at most (a PLAY
 * four: its own, a stolen voice's stop, a cue's eviction and the client's
 * quota victim; a SET two: a seek and the rest; a BUS one per part, a
 * remove what it detaches; a PARAM what an evaluation of the bound voices
 * can push (hld_vm_params_push_bound, two more per PLAY or MUSIC of the
 * bundle) and one for each bus binding; the snapshot plans of its SNAPSHOT, BUS gain and PARAM
 * requests what hld_snaps_plan_bound gives for all of them)
 * must fit in the command ring and the bundle (HL_BUNDLE_MAX: beyond, "bundle
 * too large") and, for the ones scheduled (HL_FLAG_AT, or held for a voice
 * whose start is later, or a plan's later segments), in the schedule, the
 * client's quota and the snapshot plans' cap; else every request in it is
 * EBUSY and none of it ran.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "dispatch_int.h"
#include "engine.h"
#include "hl_limits.h"
#include "vm.h"

/* ---- quotas and cancellation -------------------------------------------------- */

static void on_sched(void *user, uint64_t at, uint32_t charge, uint32_t tag) {
    hld_daemon_t *d = user;
    hld_client_t *c = charge ? hld_clients_get(&d->ledger, charge) : NULL;
    if (c) hld_client_sched_add(c, at, tag);
}

void hld_time_init(hld_daemon_t *d) {
    if (d->engine.mixer) hl_mixer_sched_hook(d->engine.mixer, on_sched, d);
}

void hld_sched_begin(hld_conn_t *c, hld_sched_ctx_t *s) {
    hl_mixer_t *mx = c->d->engine.mixer;
    s->on = mx && c->cl;
    if (!s->on) return;
    s->charge = hl_mixer_charge(mx, c->cl->id);
    s->limit = hl_mixer_sched_limit(mx, hld_client_sched_left(c->cl, hl_mixer_frames(mx)));
}

void hld_sched_end(hld_conn_t *c, const hld_sched_ctx_t *s) {
    if (!s->on) return;
    hl_mixer_t *mx = c->d->engine.mixer;
    (void)hl_mixer_charge(mx, s->charge);
    (void)hl_mixer_sched_limit(mx, s->limit);
}

const char *hld_busy_msg(hld_conn_t *c, char *msg, size_t cap) {
    static const char *const ring = "engine busy: command queue full, try again";
    hl_mixer_t *mx = c->d->engine.mixer;
    if (!mx || hl_mixer_sched_room(mx) > 0) return ring;
    uint64_t at = hl_mixer_at_frame(mx);
    hl_mixer_at(mx, 0); /* the ring's own room */
    uint32_t room = hl_mixer_cmd_room(mx);
    hl_mixer_at(mx, at);
    if (room == 0) return ring;
    uint32_t pending = hl_mixer_sched_pending(mx);
    if (pending < HL_SCHED_MAX && c->cl) {
        hld_client_refuse_sched(c->cl, msg, cap);
        return msg;
    }
    snprintf(msg, cap, "schedule full: %u scheduled commands pending (the most the engine holds)",
             (unsigned)HL_SCHED_MAX);
    return msg;
}

/* Mixer result -> reply; counts EBUSY and says which room ran out. */
int hld_mixer_fail(hld_req_t *q, int rc) {
    if (rc != HELIOD_EBUSY) return hld_fail(q, rc, NULL);
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    /* the voice manager refused before changing anything: more commands at
     * once than the ring has free (one per real voice: the ring is sized to
     * take them all, hld_cmd_ring_for). The request waits for that room
     * (conn.h), unless it is served under force (the audio thread made no
     * room for HLD_RING_HOLD_MAX_MS). Such requests (STOP_ALL, PAUSE, an
     * emitter's) are never bundled nor scheduled (hl_op_schedulable). */
    uint64_t need = hld_vm_ring_need(d->vm);
    if (need && need <= hld_ring_wait_max(d->cfg.voices) && !hld_conn_forcing(q->c)) {
        q->c->wait_room = (uint32_t)need;
        return HLD_DISPATCH_WAIT;
    }
    d->n.cmds_busy++;
    return hld_fail(q, rc, hld_busy_msg(q->c, msg, sizeof msg));
}

uint32_t hld_ms_to_frames(const hld_daemon_t *d, float ms) {
    if (!(ms > 0)) return 0;
    return (uint32_t)lround((double)ms * d->engine.rate / HLD_MS_PER_S);
}

void hld_time_conn_closed(hld_conn_t *c) {
    hld_daemon_t *d = c->d;
    hl_mixer_t *mx = d->engine.mixer;
    if (!mx) return;
    if (c->cl) hld_client_sched_drop(c->cl, c->id);
    int rc = hl_mixer_sched_cancel(mx, c->id, HL_END_OWNER, hld_now_ns());
    if (rc == HELIOD_EBUSY) d->n.cmds_busy++; /* they stay until due; counted */
}

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
    hld_device_stats(&d->devices, &ds);
    k.rate = d->engine.rate;
    k.period = d->engine.period;
    k.output_latency_ns = ds.latency_s > 0 ? (uint64_t)(ds.latency_s * HLD_NS_PER_S) : 0;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_reply_begin(q);
    hl_put_clock(&q->w, &k);
    if (lv) hl_put_u64(&q->w, lv->start_frame);
    return hld_reply_end(q);
}

/* The BUS mask of a BUS body (0 if it does not decode: its handler says so). */
static uint32_t bus_mask(const uint8_t *body, size_t len) {
    hl_rbuf_t r;
    hl_rbuf_init(&r, body, len);
    hl_bus_t m;
    hl_get_bus(&r, &m);
    return r.err ? 0 : m.mask;
}

#define GRAPH_BITS (HL_BUS_CREATE | HL_BUS_REMOVE | HL_BUS_PARENT | HL_BUS_SEND)

int hld_dispatch_at(hld_req_t *q, hld_op_fn fn) {
    if (!hl_op_schedulable(q->h->op))
        return hld_fail(q, HELIOD_EINVAL,
                        "only play, stop, set, bus, listener, param and snapshot can be scheduled");
    uint64_t at = hl_get_u64(&q->r);
    if (q->r.err) return hld_body_ok(q) ? 0 : CLOSE_CONN; /* truncated: EPROTO */
    hld_daemon_t *d = q->c->d;
    hl_mixer_t *mx = d->engine.mixer;
    uint64_t now = hl_mixer_frames(mx), ahead = (uint64_t)HL_SCHED_AHEAD_S * d->engine.rate;
    if (at > now && at - now > ahead) {
        char msg[HL_MAX_MSG + 1];
        snprintf(msg, sizeof msg,
                 "at_frame %llu: more than 24 h ahead; at most %llu (clock %llu + %u s at %u Hz)",
                 (unsigned long long)at, (unsigned long long)(now + ahead), (unsigned long long)now,
                 (unsigned)HL_SCHED_AHEAD_S, d->engine.rate);
        return hld_fail(q, HELIOD_EINVAL, msg);
    }
    if (q->h->op == HL_OP_BUS && (bus_mask(q->r.buf + q->r.off, q->r.len - q->r.off) & GRAPH_BITS))
        return hld_fail(q, HELIOD_EINVAL,
                        "bus create, remove, parent and send apply at once: only gain and mute "
                        "can be scheduled");
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
        return hld_fail(q, HELIOD_EINVAL,
                        "only play, stop, set, bus, listener and param go in a bundle");
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

/* A request of a bundle that can make a snapshot plan (the SNAPSHOT ones,
 * a BUS gain and a PARAM re-blend the stack): its commands
 * are bounded for all of them at once (hld_snaps_plan_bound). */
static int plans_snaps(const held_t *hd, const uint8_t *body) {
    if (hd->h.op == HL_OP_SNAPSHOT || hd->h.op == HL_OP_PARAM) return 1;
    if (hd->h.op != HL_OP_BUS) return 0;
    size_t skip = (hd->h.flags & HL_FLAG_AT) ? 8 : 0;
    return hd->len > skip && (bus_mask(body + skip, hd->len - skip) & HL_BUS_GAIN) != 0;
}

/* The most mixer commands a held request can push (*cmds) and of them the
 * most that can be scheduled (*sched): see the top of this file. `voices`
 * bounds what an evaluation of the bound voices pushes when it runs
 * (hld_vm_params_push_bound now, and two for each PLAY of the bundle). */
static void held_bound(hld_daemon_t *d, const held_t *hd, const uint8_t *body, uint32_t voices,
                       uint32_t *cmds, uint32_t *sched) {
    hl_rbuf_t r;
    hl_rbuf_init(&r, body, hd->len);
    int at = (hd->h.flags & HL_FLAG_AT) != 0;
    if (at) (void)hl_get_u64(&r);
    uint32_t n = 1, held = 0;
    switch (hd->h.op) {
    /* (STOP_ALL, PAUSE, EMITTER, CONE, ATTEN and FX are not held: EINVAL) */
    case HL_OP_PARAM: /* the bound voices' SETs and slots, each bus binding's */
        n = voices + d->params.nbus + 1;
        break;
    case HL_OP_PLAY: n = 4; break;  /* its own, a steal, a cue's eviction, the quota's victim */
    case HL_OP_MUSIC: n = 5; break; /* a transition scheduled at once: a PLAY's and a STOP */
    case HL_OP_STOP:
    case HL_OP_SET: {
        n = hd->h.op == HL_OP_SET ? 2 : 1;
        /* unscheduled, but held until the voice's later start */
        const hld_lvoice_t *lv = hld_vm_get(d->vm, hl_get_u64(&r));
        held = lv && lv->start_frame > hl_mixer_frames(d->engine.mixer);
        break;
    }
    case HL_OP_BUS: {
        uint32_t m = bus_mask(r.buf + r.off, r.len - r.off);
        n = !!(m & HL_BUS_GAIN) + !!(m & HL_BUS_MUTE) + !!(m & HL_BUS_CREATE) +
            !!(m & HL_BUS_PARENT) + 2 * !!(m & HL_BUS_SEND);
        if (m & HL_BUS_REMOVE) {
            hl_rbuf_t rn;
            hl_rbuf_init(&rn, r.buf + r.off, r.len - r.off);
            char name[HL_MAX_NAME + 1];
            hl_get_str(&rn, name, sizeof name);
            n += hld_buses_remove_cmds(&d->buses, name);
        }
        *cmds = n;
        *sched = at ? !!(m & HL_BUS_GAIN) + !!(m & HL_BUS_MUTE) : 0;
        return;
    }
    default: break;
    }
    *cmds = n;
    *sched = at || held ? n : 0;
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
    /* room for all of it first, in the ring and the schedule: all or nothing */
    uint32_t need = 1, sneed = 0; /* the bundle's header, then each request */
    /* what a PARAM's evaluation can push: the bound voices' now, and two
     * more for each voice a PLAY of the bundle may add */
    uint32_t plans = 0, voices = hld_vm_params_push_bound(c->d->vm);
    for (size_t off = 0; off < len;) { /* what runs before a request can change */
        held_t hd;
        memcpy(&hd, buf + off, sizeof hd);
        plans += (uint32_t)plans_snaps(&hd, buf + off + sizeof hd);
        voices += 2u * (hd.h.op == HL_OP_PLAY || hd.h.op == HL_OP_MUSIC);
        off += sizeof hd + hd.len;
    }
    for (size_t off = 0; off < len;) {
        held_t hd;
        memcpy(&hd, buf + off, sizeof hd);
        uint32_t k = 0, s = 0;
        held_bound(c->d, &hd, buf + off + sizeof hd, voices, &k, &s);
        need += k;
        sneed += s;
        off += sizeof hd + hd.len;
    }
    uint32_t pc = 0, ps = 0; /* the snapshot plans' */
    hld_snaps_plan_bound(&c->d->snaps, plans, &pc, &ps);
    need = need + pc < need ? UINT32_MAX : need + pc;
    sneed = sneed + ps < sneed ? UINT32_MAX : sneed + ps;
    uint32_t sroom = hl_mixer_sched_room(mx);
    int snaps_full = ps > hld_snaps_sched_left(&c->d->snaps);
    int busy =
        hl_mixer_cmd_room(mx) < need || need - 1 > HL_BUNDLE_MAX || sroom < sneed || snaps_full;
    char bmsg[HL_MAX_MSG + 1];
    const char *why = "engine busy: command queue full, try again";
    if (busy && need - 1 > HL_BUNDLE_MAX) { /* never fits: no retry helps */
        why = "bundle too large: its requests can take more commands than a bundle holds";
    } else if (busy && snaps_full) {
        why = "snapshot schedule full: the bundle's snapshot blends may need more scheduled "
              "commands than the snapshots hold; retry once some are due";
    } else if (busy && sroom < sneed) {
        if (HL_SCHED_MAX - hl_mixer_sched_pending(mx) >= sneed && c->cl) /* the quota's */
            why = (hld_client_refuse_sched(c->cl, bmsg, sizeof bmsg), bmsg);
        else
            why = "schedule full: the bundle's scheduled commands do not fit";
    }
    int rc = 0;
    if (!busy) (void)hl_mixer_bundle_begin(mx);
    for (size_t off = 0; off < len && rc >= 0;) {
        held_t hd;
        memcpy(&hd, buf + off, sizeof hd);
        const uint8_t *body = buf + off + sizeof hd;
        off += sizeof hd + hd.len;
        if (busy) {
            c->d->n.cmds_busy++;
            hld_send_error(c, hd.h.op, hd.h.flags, hd.h.id, HELIOD_EBUSY, why);
            continue;
        }
        /* dispatch.c through the table the connections were given */
        rc = c->net->hooks->dispatch(c, &hd.h, body, hd.len);
    }
    if (!busy) (void)hl_mixer_bundle_end(mx);
    free(buf);
    if (rc < 0) return rc;
    if (busy) {
        c->d->n.cmds_busy++;
        return hld_fail(q, HELIOD_EBUSY, why);
    }
    return hld_reply_count(q, n);
}
