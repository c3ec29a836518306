/*
 * mixer_clock.c - the engine clock as the main thread reads it: the frames
 * rendered, without copying the whole statistics block (the voice manager
 * asks on every play), and the (frame, time) pair the audio thread
 * publishes at each call's start (a seqlock, hl_sched_clock_rt).
 */
#include "hl_mixer.h"
#include "mixer_internal.h"

uint64_t hl_mixer_frames(const hl_mixer_t *m) {
    return atomic_load_explicit(&m->stats.frames, memory_order_relaxed);
}

int hl_mixer_phase(const hl_mixer_t *m, uint64_t *frames) {
    hl_mixer_t *w = (hl_mixer_t *)(uintptr_t)m; /* atomic loads only */
    /* the commands pushed before are visible before the clock is read (a
     * store then a load: only a full fence orders them, paired with the
     * audio thread's after its clock's publication) */
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t f = atomic_load_explicit(&w->stats.frames, memory_order_acquire), clk = 0;
    hl_mixer_clock(m, &clk, NULL);
    uint64_t dr = atomic_load_explicit(&w->clk_drained, memory_order_acquire);
    uint64_t f2 = atomic_load_explicit(&w->stats.frames, memory_order_acquire);
    *frames = f;
    if (f2 != f || clk > f) return HL_MIX_PHASE_DRAINING; /* a call ended meanwhile */
    if (clk < f || !f) return HL_MIX_PHASE_IDLE;          /* the next call starts on f */
    return dr == f + 1 ? HL_MIX_PHASE_DRAINED : HL_MIX_PHASE_DRAINING;
}

uint64_t hl_mixer_next_frame(const hl_mixer_t *m) {
    hl_mixer_t *w = (hl_mixer_t *)(uintptr_t)m;
    uint64_t f = 0;
    if (hl_mixer_phase(m, &f) != HL_MIX_PHASE_DRAINED) return f;
    /* published before clk_drained (release), read after it (acquire) */
    return f + atomic_load_explicit(&w->clk_len, memory_order_relaxed);
}

uint32_t hl_mixer_cmds_pushed(const hl_mixer_t *m) {
    hl_mixer_t *w = (hl_mixer_t *)(uintptr_t)m;
    return atomic_load_explicit(&w->cmd_ring.head, memory_order_relaxed);
}

int hl_mixer_last_drain(const hl_mixer_t *m, uint64_t *frame, uint32_t *taken) {
    hl_mixer_t *w = (hl_mixer_t *)(uintptr_t)m;
    uint64_t d0 = atomic_load_explicit(&w->clk_drained, memory_order_acquire);
    uint32_t t = atomic_load_explicit(&w->clk_tail, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    uint64_t d1 = atomic_load_explicit(&w->clk_drained, memory_order_relaxed);
    if (!d0 || d0 != d1) return 0;
    *frame = d0 - 1;
    *taken = t;
    return 1;
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
