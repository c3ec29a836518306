/*
 * mixer_cmdq.c - the command queue's control side (main thread): every
 * command the control calls (mixer_ctl.c, mixer_bus.c) send to the audio
 * thread leaves through hl_cmd_push(), which stamps it with the frame set by
 * hl_mixer_at() (0: now) and either adds it to the open bundle or writes it
 * to the command ring. A command on a voice whose PLAY is scheduled later is
 * held until that frame, so it can never reach the audio thread's voice
 * before the voice exists. Scheduled commands in flight are counted (pushed
 * here, applied on the audio thread: stats.sched_done), so a full schedule is
 * refused with HELIOD_EBUSY before anything is pushed, never dropped on the
 * audio thread.
 *
 * A bundle is built in a staging array whose slot 0 is a BUNDLE header with
 * the count; bundle_end writes header and commands with one hl_ring_write,
 * so the audio thread sees all of them or none. Room is checked at each push
 * (the ring only gains room while the main thread is the only producer), so
 * the final write cannot fail.
 *
 * Owners: a voice played while an owner tag is set (hl_mixer_owner) gives
 * the tag to its scheduled commands, and a command not on a voice (a bus
 * gain, an effect's parameters) takes the tag set with hl_mixer_cmd_tag;
 * hl_mixer_sched_cancel(_from) sends a CANCEL for the tag (the audio
 * thread's schedule, mixer_sched.c, sweeps it). The
 * control side can cap the scheduled pushes of one request
 * (hl_mixer_sched_limit) and is told of each one (hl_mixer_sched_hook):
 * per-client quotas live in the caller, not here.
 *
 * Below the control calls, above nothing of the mixer but the ring and the
 * clock (hl_mixer_frames): the lowest module of the control side.
 */
#include <string.h>

#include "mixer_internal.h"

void hl_mixer_at(hl_mixer_t *m, uint64_t at_frame) {
    m->at_ctl = at_frame;
}

uint64_t hl_mixer_at_frame(const hl_mixer_t *m) {
    return m->at_ctl;
}

uint64_t hl_mixer_effect_frame(hl_mixer_t *m) {
    /* a bundle's commands apply in one block: every request in it is "now"
     * on the same frame (the clock may move while the main thread admits
     * them; a voice that starts virtual keeps the frame it gets here).
     * Outside one: the frame the next drain applies a push on, so what the
     * main thread plans from "now" starts where its commands do (inside a
     * call whose drain is over: the next call's start) */
    uint64_t now = m->bundle_open ? m->bundle_frame
                   : m->at_ctl    ? hl_mixer_frames(m) /* a frame of its own: as before */
                                  : hl_mixer_next_frame(m);
    /* the record of "now"s read (main thread: hl_mixer_now_seen) */
    if (!m->now_reads++ || now < m->now_lo) m->now_lo = now;
    if (now > m->now_hi || m->now_reads == 1) m->now_hi = now;
    return m->at_ctl > now ? m->at_ctl : now;
}

void hl_mixer_now_track(hl_mixer_t *m) {
    m->now_reads = 0;
}

uint32_t hl_mixer_now_seen(const hl_mixer_t *m, uint64_t *lo, uint64_t *hi) {
    *lo = m->now_lo;
    *hi = m->now_hi;
    return m->now_reads;
}

uint64_t hl_mixer_late_frames(const hl_mixer_t *m) {
    uint64_t now = hl_mixer_frames(m);
    return m->at_ctl && m->at_ctl < now ? now - m->at_ctl : 0;
}

static uint32_t sched_inflight(const hl_mixer_t *m) {
    /* acquire pairs with the audio thread's release: a counted slot is free */
    uint64_t done = atomic_load_explicit((_Atomic uint64_t *)(uintptr_t)&m->stats.sched_done,
                                         memory_order_acquire);
    return (uint32_t)(m->sched_pushed - done);
}

uint32_t hl_mixer_sched_pending(const hl_mixer_t *m) {
    return sched_inflight(m);
}

uint32_t hl_mixer_sched_room(const hl_mixer_t *m) {
    uint32_t n = sched_inflight(m);
    uint32_t r = n < HL_SCHED_MAX ? HL_SCHED_MAX - n : 0;
    return r < m->sched_limit ? r : m->sched_limit;
}

uint32_t hl_mixer_owner(hl_mixer_t *m, uint32_t tag) {
    uint32_t prev = m->owner_ctl;
    m->owner_ctl = tag;
    return prev;
}

uint32_t hl_mixer_cmd_tag(hl_mixer_t *m, uint32_t tag) {
    uint32_t prev = m->tag_ctl;
    m->tag_ctl = tag;
    return prev;
}

uint32_t hl_mixer_charge(hl_mixer_t *m, uint32_t id) {
    uint32_t prev = m->charge_ctl;
    m->charge_ctl = id;
    return prev;
}

void hl_mixer_sched_hook(hl_mixer_t *m, hl_sched_fn fn, void *user) {
    m->sched_fn = fn;
    m->sched_user = user;
}

uint32_t hl_mixer_sched_limit(hl_mixer_t *m, uint32_t n) {
    uint32_t prev = m->sched_limit;
    m->sched_limit = n;
    return prev;
}

uint32_t hl_mixer_cmd_room(const hl_mixer_t *m) {
    uint32_t r = hl_ring_writable((hl_ring_t *)&m->cmd_ring);
    if (m->bundle_open) {
        uint32_t used = m->n_bundle + 1; /* the header too */
        r = r > used ? r - used : 0;
        uint32_t left = HL_BUNDLE_MAX - m->n_bundle;
        r = r < left ? r : left;
    }
    if (m->at_ctl) {
        uint32_t s = hl_mixer_sched_room(m);
        r = r < s ? r : s;
    }
    return r;
}

int hl_cmd_push(hl_mixer_t *m, hl_cmd_t *c) {
    uint64_t at = m->at_ctl;
    int on_voice = (c->type == HL_CMD_PLAY || c->type == HL_CMD_STOP || c->type == HL_CMD_SET) &&
                   c->slot < m->slots;
    const hl_ctl_voice_t *cv = on_voice ? &m->ctl[c->slot] : NULL;
    if (cv && c->type != HL_CMD_PLAY) {
        /* never before the voice's own (scheduled) start */
        uint64_t start = cv->start_at;
        if (start > at && start > hl_mixer_frames(m)) at = start;
    }
    c->at_frame = at;
    if (c->type != HL_CMD_CANCEL) /* a CANCEL names the tag it drops */
        c->owner = c->type == HL_CMD_PLAY ? m->owner_ctl : cv ? cv->owner : m->tag_ctl;
    uint32_t charge = m->charge_ctl;
    if (!charge && cv && c->type != HL_CMD_PLAY) charge = cv->charge;
    if (at && hl_mixer_sched_room(m) == 0) return HELIOD_EBUSY;
    if (m->bundle_open) {
        if (m->n_bundle >= HL_BUNDLE_MAX ||
            hl_ring_writable(&m->cmd_ring) < m->n_bundle + 2) /* header + staged + this */
            return HELIOD_EBUSY;
        m->bundle[1 + m->n_bundle++] = *c;
    } else if (hl_ring_write(&m->cmd_ring, c, 1) != 1) {
        return HELIOD_EBUSY;
    }
    if (at) {
        m->sched_pushed++;
        if (m->sched_limit != UINT32_MAX) m->sched_limit--;
        if (m->sched_fn) m->sched_fn(m->sched_user, at, charge, c->owner);
    }
    if (c->type == HL_CMD_PLAY && cv) {
        hl_ctl_voice_t *w = &m->ctl[c->slot];
        w->start_at = at;
        w->owner = m->owner_ctl;
        w->charge = m->charge_ctl;
    }
    return 0;
}

int hl_mixer_sched_cancel_from(hl_mixer_t *m, uint32_t tag, uint64_t from, int reason,
                               uint64_t now_ns) {
    if (!tag) return HELIOD_EINVAL;
    hl_cmd_t c = {.type = HL_CMD_CANCEL, .owner = tag, .enq_ns = now_ns};
    c.u.cancel.reason = (uint32_t)reason;
    c.u.cancel.from = from;
    uint64_t at = m->at_ctl;
    m->at_ctl = 0; /* the cancel itself applies as soon as it is drained */
    int rc = hl_cmd_push(m, &c);
    m->at_ctl = at;
    if (rc != 0) return rc;
    /* the tagged voices' starts are cancelled: nothing more is held for them */
    for (uint32_t i = 0; i < m->slots; i++)
        if (m->ctl[i].owner == tag && m->ctl[i].start_at >= from) {
            m->ctl[i].start_at = 0;
            m->ctl[i].owner = 0;
        }
    return 0;
}

int hl_mixer_sched_cancel(hl_mixer_t *m, uint32_t tag, int reason, uint64_t now_ns) {
    return hl_mixer_sched_cancel_from(m, tag, 0, reason, now_ns);
}

int hl_mixer_bundle_begin(hl_mixer_t *m) {
    if (m->bundle_open) return HELIOD_EINVAL;
    m->bundle_open = 1;
    m->bundle_frame = hl_mixer_next_frame(m);
    m->n_bundle = 0;
    return 0;
}

int hl_mixer_bundle_end(hl_mixer_t *m) {
    if (!m->bundle_open) return HELIOD_EINVAL;
    m->bundle_open = 0;
    if (m->n_bundle == 0) return 0;
    hl_cmd_t *h = &m->bundle[0];
    memset(h, 0, sizeof *h);
    h->type = HL_CMD_BUNDLE;
    h->u.bundle.n = m->n_bundle;
    h->enq_ns = m->bundle[1].enq_ns;
    /* room was checked at every push and only grows meanwhile */
    uint32_t n = m->n_bundle + 1, w = hl_ring_write(&m->cmd_ring, m->bundle, n);
    m->n_bundle = 0;
    return w == n ? 0 : HELIOD_EBUSY;
}
