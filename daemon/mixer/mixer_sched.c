/*
 * mixer_sched.c - time on the audio thread: the command drain, the schedule
 * of commands for later frames, and the clock it publishes.
 *
 * The scheduler never applies a command itself: it hands each one that is
 * due back to its caller (mixer_rt.c), which applies it and asks for the
 * next, so the dependency runs one way (mixer_rt.c -> mixer_sched.c). A
 * command handed out stays where it is (the ring, the pool) until the next
 * call of the same iterator: only then is its ring slot released, its pool
 * slot freed and, if it was scheduled, counted done (stats.sched_done, which
 * the control side's count of commands in flight reads, mixer_cmdq.c).
 *
 * The drain (hl_sched_drain_next_rt) takes whole bundles (the per-block cap
 * yields before a bundle, except the first, which it always takes whole). It
 * stops when the ring is empty, at the count cap (cfg.cmds_per_block, by
 * default the ring's capacity, so a producer refilling behind it cannot keep
 * it going) or at its deadline (it->deadline, set by hl_mixer_process_rt to
 * cfg.drain_budget_pct of the call's duration), looked at on the engine's
 * clock (cfg.clock_ns) every HL_DRAIN_CHECK commands: the budget is time,
 * not a count, so whatever rate the audio thread can apply is applied, and
 * only what it cannot waits in the ring (EBUSY once that is full). A
 * command for a frame the thread has not reached goes into a binary min-heap
 * over a preallocated pool (ordered by frame, then arrival);
 * hl_mixer_process_rt() cuts its internal blocks at the next scheduled frame
 * and applies what is due there (hl_sched_due_next_rt), so a voice starts on
 * its exact sample. A command whose frame is already past is handed out at
 * once and counted late. A call is cut at most HL_SCHED_SPLITS times at exact
 * frames; its later cuts fall on the HL_SCHED_GRID grid and what was due
 * before one is handed out there, late.
 *
 * Owners: a CANCEL command for a tag (hl_mixer_sched_cancel), taken from the
 * ring like any other, sweeps the heap once (only the entries at or after
 * its `from` frame, hl_mixer_sched_cancel_from): a cancelled PLAY is handed out
 * and then a STOP for its voice, silent on the spot (so it ends through the
 * usual ENDED path and its stream comes back), a cancelled stream switch is
 * handed out (its stream comes back), the rest is dropped.
 *
 *   ring ──drain──▶ at <= clock ? hand out (late if <) : heap
 *   render [clock, next) ─▶ hand out heap items due at next ─▶ render on
 */
#include <string.h>

#include "mixer_internal.h"

static uint64_t load_u64(const _Atomic uint64_t *a) {
    return atomic_load_explicit((_Atomic uint64_t *)(uintptr_t)a, memory_order_relaxed);
}

static void store_u64(_Atomic uint64_t *a, uint64_t v) {
    atomic_store_explicit(a, v, memory_order_relaxed);
}

void hl_sched_clock_rt(hl_mixer_t *m, uint64_t now_ns) {
    uint32_t s = atomic_load_explicit(&m->clk_seq, memory_order_relaxed);
    atomic_store_explicit(&m->clk_seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&m->clk_frame, m->clock, memory_order_relaxed);
    atomic_store_explicit(&m->clk_ns, now_ns, memory_order_relaxed);
    atomic_store_explicit(&m->clk_seq, s + 2, memory_order_release);
    /* the clock is visible before the ring is read: a main thread that
     * pushed and then saw the old clock knows this drain takes its push
     * (hl_mixer_phase's fence) */
    atomic_thread_fence(memory_order_seq_cst);
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

/* What follows the application of the command handed out last: its pool
 * slot back to the free stack, and one scheduled command done. */
static void finish_rt(hl_mixer_t *m, hl_sched_it_t *it) {
    if (it->free_idx) m->pool_free[m->n_pool_free++] = it->free_idx - 1;
    if (it->done) sched_done_rt(m);
    it->free_idx = 0;
    it->done = 0;
}

void hl_sched_begin_rt(hl_mixer_t *m, hl_sched_it_t *it) {
    /* field by field: the STOP buffer is written only when used */
    it->free_idx = it->done = 0;
    it->avail = it->k = it->applied = it->bj = it->bn = 0;
    it->cap = m->cfg.cmds_per_block;
    it->deadline = 0;
    it->check = HL_DRAIN_CHECK;
    it->reading = it->in_bundle = it->yield = it->over = 0;
    it->cancel = NULL;
    it->ci = it->keep = it->stop_idx = 0;
}

const hl_cmd_t *hl_sched_due_next_rt(hl_mixer_t *m, hl_sched_it_t *it) {
    finish_rt(m, it);
    if (m->n_heap == 0 || m->heap[0].at > m->clock) return NULL;
    hl_sched_ent_t e = heap_pop_rt(m);
    if (e.at < m->clock) count_late_rt(m, e.at); /* held to a grid cut */
    it->free_idx = e.idx + 1;
    it->done = 1;
    return &m->pool[e.idx];
}

/* CANCEL (it->cancel): one pass over the heap (at most HL_SCHED_MAX
 * entries), resumed at it->ci after each command it hands out; the kept
 * ones are compacted (it->keep) and re-heaped (Floyd, linear) at the end. */
static const hl_cmd_t *cancel_next_rt(hl_mixer_t *m, hl_sched_it_t *it) {
    const hl_cmd_t *c = it->cancel;
    if (it->stop_idx) {
        /* the cancelled PLAY was applied: its voice exists for one silent
         * block, then ends as usual */
        const hl_cmd_t *x = &m->pool[it->stop_idx - 1];
        hl_cmd_t *st = &it->stop;
        memset(st, 0, sizeof *st);
        st->type = HL_CMD_STOP;
        st->slot = x->slot;
        st->gen = x->gen;
        st->enq_ns = c->enq_ns;
        st->at_frame = x->at_frame; /* a scheduled start: stopped without a sound */
        st->u.stop.release_frames = HL_STOP_FADE_MIN;
        st->u.stop.reason = c->u.cancel.reason;
        it->free_idx = it->stop_idx;
        it->done = 1;
        it->stop_idx = 0;
        return st;
    }
    while (it->ci < m->n_heap) {
        hl_sched_ent_t e = m->heap[it->ci++];
        const hl_cmd_t *x = &m->pool[e.idx];
        if (x->owner != c->owner || e.at < c->u.cancel.from) {
            m->heap[it->keep++] = e;
            continue;
        }
        if (x->type == HL_CMD_PLAY) {
            it->stop_idx = e.idx + 1; /* then its STOP */
            return x;
        }
        if (x->type == HL_CMD_SET && (x->u.set.mask & HL_MIX_SET_STREAM) && x->u.set.stream) {
            it->free_idx = e.idx + 1; /* its stream comes back the usual way */
            it->done = 1;
            return x;
        }
        m->pool_free[m->n_pool_free++] = e.idx;
        sched_done_rt(m);
    }
    uint32_t keep = it->keep;
    m->n_heap = keep;
    for (uint32_t i = keep / 2; i-- > 0;)
        sift_down_rt(m, i, m->heap[i], keep);
    it->cancel = NULL;
    return NULL;
}

/* The drain is over: its figures. */
static void drain_end_rt(hl_mixer_t *m, hl_sched_it_t *it) {
    it->over = 1;
    uint64_t a = load_u64(&m->stats.cmds_applied);
    store_u64(&m->stats.cmds_applied, a + it->applied);
    if ((it->yield || it->applied >= it->cap) && hl_ring_readable(&m->cmd_ring) > 0) {
        uint64_t h = load_u64(&m->stats.cmd_cap_hits);
        store_u64(&m->stats.cmd_cap_hits, h + 1);
    }
}

/* The next command off the ring in order, whole bundles, at most cap of
 * them (the first bundle whole); NULL once the drain is over. A span batch
 * is released (hl_ring_read_advance) only when the next one is needed, after
 * the commands handed out from it were applied. */
static const hl_cmd_t *ring_next_rt(hl_mixer_t *m, hl_sched_it_t *it) {
    for (;;) {
        if (it->in_bundle) {
            if (it->bj < it->bn) return span_at(&it->s, it->k + ++it->bj);
            it->k += it->bn + 1;
            it->applied += it->bn;
            it->in_bundle = 0;
        }
        if (it->reading) {
            if (it->deadline && it->applied >= it->check) {
                it->check = it->applied + HL_DRAIN_CHECK;
                if (it->applied < it->cap && m->cfg.clock_ns() > it->deadline)
                    it->cap = it->applied; /* out of time: the count cap ends the drain */
            }
            if (it->k < it->avail && it->applied < it->cap) {
                const hl_cmd_t *c = span_at(&it->s, it->k);
                if (c->type != HL_CMD_BUNDLE) {
                    it->k++;
                    it->applied++;
                    return c;
                }
                /* one ring write carried the whole bundle: all of it is here */
                uint32_t n = c->u.bundle.n;
                if (n > it->avail - it->k - 1) n = it->avail - it->k - 1;
                if (!(it->applied > 0 && it->applied + n > it->cap)) {
                    it->in_bundle = 1;
                    it->bn = n;
                    it->bj = 0;
                    continue;
                }
                it->yield = 1; /* before it: the next block takes it whole */
            }
            hl_ring_read_advance(&m->cmd_ring, it->k);
            it->reading = 0;
            if (it->k < it->avail) break;
        }
        if (it->yield || it->applied >= it->cap) break;
        it->avail = hl_ring_read_spans(&m->cmd_ring, &it->s);
        if (it->avail == 0) break;
        it->reading = 1;
        it->k = 0;
    }
    drain_end_rt(m, it);
    return NULL;
}

const hl_cmd_t *hl_sched_drain_next_rt(hl_mixer_t *m, hl_sched_it_t *it) {
    finish_rt(m, it);
    while (!it->over) {
        if (it->cancel) {
            const hl_cmd_t *x = cancel_next_rt(m, it);
            if (x) return x;
            continue;
        }
        /* a command as it leaves the ring: to the schedule, or handed out now */
        const hl_cmd_t *c = ring_next_rt(m, it);
        if (!c) break;
        if (c->type == HL_CMD_CANCEL) {
            it->cancel = c;
            it->ci = it->keep = 0;
            continue;
        }
        if (c->at_frame > m->clock && m->n_pool_free > 0) {
            uint32_t idx = m->pool_free[--m->n_pool_free];
            m->pool[idx] = *c;
            heap_push_rt(m, (hl_sched_ent_t){.at = c->at_frame, .seq = m->sched_seq++, .idx = idx});
            continue;
        }
        if (c->at_frame && c->at_frame < m->clock) count_late_rt(m, c->at_frame);
        it->done = c->at_frame != 0;
        return c;
    }
    return NULL;
}

void hl_sched_apply_due_rt(hl_mixer_t *m, uint64_t now_ns) {
    hl_sched_it_t it;
    hl_sched_begin_rt(m, &it);
    for (const hl_cmd_t *c; (c = hl_sched_due_next_rt(m, &it)) != NULL;)
        hl_cmd_apply_rt(m, c, now_ns);
}

void hl_sched_apply_drained_rt(hl_mixer_t *m, uint32_t frames, uint64_t now_ns) {
    hl_sched_it_t it;
    hl_sched_begin_rt(m, &it);
    uint32_t pct = m->cfg.drain_budget_pct;
    if (pct < 100 && m->cfg.clock_ns) {
        uint64_t budget = (uint64_t)frames * 10000000u * pct / m->cfg.rate; /* 1e9 / 100 */
        it.deadline = m->cfg.clock_ns() + budget;
    }
    for (const hl_cmd_t *c; (c = hl_sched_drain_next_rt(m, &it)) != NULL;)
        hl_cmd_apply_rt(m, c, now_ns);
}
