/*
 * mixer_sched.c - time in the mixer: scheduled commands, bundles and the
 * clock.
 *
 * Control side (main thread): every command leaves through hl_cmd_push(),
 * which stamps it with the frame set by hl_mixer_at() (0: now) and either
 * adds it to the open bundle or writes it to the command ring. A command on
 * a voice whose PLAY is scheduled later is held until that frame, so it can
 * never reach the audio thread's voice before the voice exists. Scheduled
 * commands in flight are counted (pushed here, applied on the audio thread:
 * stats.sched_done), so a full schedule is refused with HELIOD_EBUSY before
 * anything is pushed, never dropped on the audio thread.
 *
 * A bundle is built in a staging array whose slot 0 is a BUNDLE header with
 * the count; bundle_end writes header and commands with one hl_ring_write,
 * so the audio thread sees all of them or none. Room is checked at each push
 * (the ring only gains room while the main thread is the only producer), so
 * the final write cannot fail.
 *
 * Audio thread: the drain takes whole bundles (the per-block cap yields
 * before a bundle, except the first, which it always takes whole). A command
 * for a frame the thread has not reached goes into a binary min-heap over a
 * preallocated pool (ordered by frame, then arrival); hl_mixer_process_rt()
 * cuts its internal blocks at the next scheduled frame and applies what is
 * due there, so a voice starts on its exact sample. A command whose frame is
 * already past is applied at once and counted late.
 *
 *   ring ──drain──▶ at <= clock ? apply (late if <) : heap
 *   render [clock, next) ─▶ apply heap items due at next ─▶ render on
 */
#include <string.h>

#include "hl_proto.h"
#include "mixer_internal.h"

static uint64_t load_u64(const _Atomic uint64_t *a) {
    return atomic_load_explicit((_Atomic uint64_t *)(uintptr_t)a, memory_order_relaxed);
}

static void store_u64(_Atomic uint64_t *a, uint64_t v) {
    atomic_store_explicit(a, v, memory_order_relaxed);
}

/* ---- control side ------------------------------------------------------ */

void hl_mixer_at(hl_mixer_t *m, uint64_t at_frame) {
    m->at_ctl = at_frame;
}

uint64_t hl_mixer_at_frame(const hl_mixer_t *m) {
    return m->at_ctl;
}

uint64_t hl_mixer_effect_frame(const hl_mixer_t *m) {
    uint64_t now = hl_mixer_frames(m);
    return m->at_ctl > now ? m->at_ctl : now;
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

uint32_t hl_mixer_sched_room(const hl_mixer_t *m) {
    uint32_t n = sched_inflight(m);
    return n < HL_SCHED_MAX ? HL_SCHED_MAX - n : 0;
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
    if (c->type == HL_CMD_STOP || c->type == HL_CMD_SET) {
        /* never before the voice's own (scheduled) start */
        uint64_t start = c->slot < m->slots ? m->ctl[c->slot].start_at : 0;
        if (start > at && start > hl_mixer_frames(m)) at = start;
    }
    c->at_frame = at;
    if (at && hl_mixer_sched_room(m) == 0) return HELIOD_EBUSY;
    if (m->bundle_open) {
        if (m->n_bundle >= HL_BUNDLE_MAX ||
            hl_ring_writable(&m->cmd_ring) < m->n_bundle + 2) /* header + staged + this */
            return HELIOD_EBUSY;
        m->bundle[1 + m->n_bundle++] = *c;
    } else if (hl_ring_write(&m->cmd_ring, c, 1) != 1) {
        return HELIOD_EBUSY;
    }
    if (at) m->sched_pushed++;
    if (c->type == HL_CMD_PLAY && c->slot < m->slots) m->ctl[c->slot].start_at = at;
    return 0;
}

int hl_mixer_bundle_begin(hl_mixer_t *m) {
    if (m->bundle_open) return HELIOD_EINVAL;
    m->bundle_open = 1;
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

void hl_mixer_clock(const hl_mixer_t *m, uint64_t *frame, uint64_t *ns) {
    hl_mixer_t *w = (hl_mixer_t *)(uintptr_t)m; /* atomic loads only */
    uint32_t s0, s1;
    uint64_t f, t;
    do {
        s0 = atomic_load_explicit(&w->clk_seq, memory_order_acquire);
        f = atomic_load_explicit(&w->clk_frame, memory_order_relaxed);
        t = atomic_load_explicit(&w->clk_ns, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        s1 = atomic_load_explicit(&w->clk_seq, memory_order_relaxed);
    } while ((s0 & 1u) || s0 != s1);
    if (frame) *frame = f;
    if (ns) *ns = t;
}

/* ---- audio thread ------------------------------------------------------ */

void hl_sched_clock_rt(hl_mixer_t *m, uint64_t now_ns) {
    uint32_t s = atomic_load_explicit(&m->clk_seq, memory_order_relaxed);
    atomic_store_explicit(&m->clk_seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&m->clk_frame, m->clock, memory_order_relaxed);
    atomic_store_explicit(&m->clk_ns, now_ns, memory_order_relaxed);
    atomic_store_explicit(&m->clk_seq, s + 2, memory_order_release);
}

static int ent_less(const hl_sched_ent_t *a, const hl_sched_ent_t *b) {
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void heap_push_rt(hl_mixer_t *m, hl_sched_ent_t e) {
    uint32_t i = m->n_heap++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!ent_less(&e, &m->heap[p])) break;
        m->heap[i] = m->heap[p];
        i = p;
    }
    m->heap[i] = e;
}

static hl_sched_ent_t heap_pop_rt(hl_mixer_t *m) {
    hl_sched_ent_t top = m->heap[0], last = m->heap[--m->n_heap];
    uint32_t i = 0, n = m->n_heap;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ent_less(&m->heap[c + 1], &m->heap[c])) c++;
        if (!ent_less(&m->heap[c], &last)) break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    if (n) m->heap[i] = last;
    return top;
}

static void sched_done_rt(hl_mixer_t *m) {
    uint64_t d = atomic_load_explicit(&m->stats.sched_done, memory_order_relaxed);
    atomic_store_explicit(&m->stats.sched_done, d + 1, memory_order_release);
}

/* A command as it leaves the ring: to the schedule, or applied now. */
static void take_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    if (c->at_frame > m->clock && m->n_pool_free > 0) {
        uint32_t idx = m->pool_free[--m->n_pool_free];
        m->pool[idx] = *c;
        heap_push_rt(m, (hl_sched_ent_t){.at = c->at_frame, .seq = m->sched_seq++, .idx = idx});
        return;
    }
    if (c->at_frame && c->at_frame < m->clock) {
        uint64_t late = m->clock - c->at_frame;
        store_u64(&m->stats.sched_late, load_u64(&m->stats.sched_late) + 1);
        if (late > load_u64(&m->stats.sched_late_max)) store_u64(&m->stats.sched_late_max, late);
    }
    hl_cmd_apply_rt(m, c, now_ns);
    if (c->at_frame) sched_done_rt(m);
}

void hl_sched_due_rt(hl_mixer_t *m, uint64_t now_ns) {
    while (m->n_heap > 0 && m->heap[0].at <= m->clock) {
        hl_sched_ent_t e = heap_pop_rt(m);
        hl_cmd_apply_rt(m, &m->pool[e.idx], now_ns);
        m->pool_free[m->n_pool_free++] = e.idx;
        sched_done_rt(m);
    }
}

uint64_t hl_sched_next_rt(const hl_mixer_t *m) {
    return m->n_heap > 0 ? m->heap[0].at : UINT64_MAX;
}

static const hl_cmd_t *span_at(const hl_ring_spans_t *s, uint32_t k) {
    return k < s->n1 ? (const hl_cmd_t *)s->p1 + k : (const hl_cmd_t *)s->p2 + (k - s->n1);
}

void hl_sched_drain_rt(hl_mixer_t *m, uint64_t now_ns) {
    uint32_t cap = m->cfg.cmds_per_block, applied = 0;
    int yield = 0;
    hl_ring_spans_t s;
    while (!yield && applied < cap) {
        uint32_t avail = hl_ring_read_spans(&m->cmd_ring, &s);
        if (avail == 0) break;
        uint32_t k = 0;
        while (k < avail && applied < cap) {
            const hl_cmd_t *c = span_at(&s, k);
            if (c->type != HL_CMD_BUNDLE) {
                take_rt(m, c, now_ns);
                k++;
                applied++;
                continue;
            }
            /* one ring write carried the whole bundle: all of it is here */
            uint32_t n = c->u.bundle.n;
            if (n > avail - k - 1) n = avail - k - 1;
            if (applied > 0 && applied + n > cap) {
                yield = 1; /* before it: the next block takes it whole */
                break;
            }
            for (uint32_t j = 1; j <= n; j++)
                take_rt(m, span_at(&s, k + j), now_ns);
            k += n + 1;
            applied += n;
        }
        hl_ring_read_advance(&m->cmd_ring, k);
        if (k < avail) break;
    }
    uint64_t a = load_u64(&m->stats.cmds_applied);
    store_u64(&m->stats.cmds_applied, a + applied);
    if ((yield || applied >= cap) && hl_ring_readable(&m->cmd_ring) > 0) {
        uint64_t h = load_u64(&m->stats.cmd_cap_hits);
        store_u64(&m->stats.cmd_cap_hits, h + 1);
    }
}
