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
 * already past is applied at once and counted late. A call is cut at most
 * HL_SCHED_SPLITS times at exact frames; its later cuts fall on the
 * HL_SCHED_GRID grid and what was due before one is applied there, late.
 *
 * Owners: a voice played while an owner tag is set (hl_mixer_owner) gives
 * the tag to its scheduled commands; a CANCEL command for the tag, taken
 * from the ring like any other, sweeps the heap once: a cancelled PLAY is
 * applied and its voice stopped silently on the spot (so it ends through
 * the usual ENDED path and its stream comes back), a cancelled stream
 * switch is applied (its stream comes back), the rest is dropped. The
 * control side can cap the scheduled pushes of one request
 * (hl_mixer_sched_limit) and is told of each one (hl_mixer_sched_hook):
 * per-client quotas live in the caller, not here.
 *
 *   ring ──drain──▶ at <= clock ? apply (late if <) : heap
 *   render [clock, next) ─▶ apply heap items due at next ─▶ render on
 */
#include <string.h>

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
        c->owner = c->type == HL_CMD_PLAY ? m->owner_ctl : cv ? cv->owner : 0;
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

int hl_mixer_sched_cancel(hl_mixer_t *m, uint32_t tag, int reason, uint64_t now_ns) {
    if (!tag) return HELIOD_EINVAL;
    hl_cmd_t c = {.type = HL_CMD_CANCEL, .owner = tag, .enq_ns = now_ns};
    c.u.stop.reason = (uint32_t)reason;
    uint64_t at = m->at_ctl;
    m->at_ctl = 0; /* the cancel itself applies as soon as it is drained */
    int rc = hl_cmd_push(m, &c);
    m->at_ctl = at;
    if (rc != 0) return rc;
    /* the tagged voices' starts are cancelled: nothing more is held for them */
    for (uint32_t i = 0; i < m->slots; i++)
        if (m->ctl[i].owner == tag) {
            m->ctl[i].start_at = 0;
            m->ctl[i].owner = 0;
        }
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

/* Puts e at position i (a hole) and sifts it down among the first n. */
static void sift_down_rt(hl_mixer_t *m, uint32_t i, hl_sched_ent_t e, uint32_t n) {
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ent_less(&m->heap[c + 1], &m->heap[c])) c++;
        if (!ent_less(&m->heap[c], &e)) break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    m->heap[i] = e;
}

static hl_sched_ent_t heap_pop_rt(hl_mixer_t *m) {
    hl_sched_ent_t top = m->heap[0], last = m->heap[--m->n_heap];
    if (m->n_heap) sift_down_rt(m, 0, last, m->n_heap);
    return top;
}

static void sched_done_rt(hl_mixer_t *m) {
    uint64_t d = atomic_load_explicit(&m->stats.sched_done, memory_order_relaxed);
    atomic_store_explicit(&m->stats.sched_done, d + 1, memory_order_release);
}

static void count_late_rt(hl_mixer_t *m, uint64_t at) {
    uint64_t late = m->clock - at;
    store_u64(&m->stats.sched_late, load_u64(&m->stats.sched_late) + 1);
    if (late > load_u64(&m->stats.sched_late_max)) store_u64(&m->stats.sched_late_max, late);
}

/* CANCEL: one pass over the heap (at most HL_SCHED_MAX entries), the kept
 * ones compacted and re-heaped (Floyd, linear). */
static void cancel_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    uint32_t keep = 0;
    for (uint32_t i = 0; i < m->n_heap; i++) {
        hl_sched_ent_t e = m->heap[i];
        const hl_cmd_t *x = &m->pool[e.idx];
        if (x->owner != c->owner) {
            m->heap[keep++] = e;
            continue;
        }
        if (x->type == HL_CMD_PLAY) {
            /* the voice exists for one silent block, then ends as usual */
            hl_cmd_apply_rt(m, x, now_ns);
            hl_cmd_t st = {.type = HL_CMD_STOP, .slot = x->slot, .gen = x->gen};
            st.enq_ns = c->enq_ns;
            st.at_frame = x->at_frame; /* a scheduled start: stopped without a sound */
            st.u.stop.release_frames = HL_STOP_FADE_MIN;
            st.u.stop.reason = c->u.stop.reason;
            hl_cmd_apply_rt(m, &st, now_ns);
        } else if (x->type == HL_CMD_SET && (x->u.set.mask & HL_MIX_SET_STREAM) &&
                   x->u.set.stream) {
            hl_cmd_apply_rt(m, x, now_ns); /* its stream comes back the usual way */
        }
        m->pool_free[m->n_pool_free++] = e.idx;
        sched_done_rt(m);
    }
    m->n_heap = keep;
    for (uint32_t i = keep / 2; i-- > 0;)
        sift_down_rt(m, i, m->heap[i], keep);
}

/* A command as it leaves the ring: to the schedule, or applied now. */
static void take_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    if (c->type == HL_CMD_CANCEL) {
        cancel_rt(m, c, now_ns);
        return;
    }
    if (c->at_frame > m->clock && m->n_pool_free > 0) {
        uint32_t idx = m->pool_free[--m->n_pool_free];
        m->pool[idx] = *c;
        heap_push_rt(m, (hl_sched_ent_t){.at = c->at_frame, .seq = m->sched_seq++, .idx = idx});
        return;
    }
    if (c->at_frame && c->at_frame < m->clock) count_late_rt(m, c->at_frame);
    hl_cmd_apply_rt(m, c, now_ns);
    if (c->at_frame) sched_done_rt(m);
}

void hl_sched_due_rt(hl_mixer_t *m, uint64_t now_ns) {
    while (m->n_heap > 0 && m->heap[0].at <= m->clock) {
        hl_sched_ent_t e = heap_pop_rt(m);
        if (e.at < m->clock) count_late_rt(m, e.at); /* held to a grid cut */
        hl_cmd_apply_rt(m, &m->pool[e.idx], now_ns);
        m->pool_free[m->n_pool_free++] = e.idx;
        sched_done_rt(m);
    }
}

uint64_t hl_sched_next_rt(const hl_mixer_t *m) {
    return m->n_heap > 0 ? m->heap[0].at : UINT64_MAX;
}

uint64_t hl_sched_cut_rt(hl_mixer_t *m) {
    uint64_t next = hl_sched_next_rt(m);
    if (next == UINT64_MAX || m->splits < HL_SCHED_SPLITS) return next;
    uint64_t g = (next + HL_SCHED_GRID - 1) / HL_SCHED_GRID * HL_SCHED_GRID;
    return g > next ? g : next; /* no wrap near UINT64_MAX */
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
