/*
 * mix_prefetch.h - the block loop's prefetches (mixer_rt.c alone includes
 * it): a voice's steady line, the rest of its hot state, its post stage and
 * its source span, fetched some voices ahead of its turn. Audio thread.
 */
#ifndef HL_MIX_PREFETCH_H
#define HL_MIX_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#include "mixer_internal.h"
#include "voice_state.h"

/* Prefetch distances, in voices of the active list: the RT state of a voice is
 * fetched HL_PF_STATE_AHEAD voices before it is mixed, so that its source
 * span can be fetched HL_PF_SRC_AHEAD voices before (the span needs the
 * cursor). Tuned by measurement with bench/mix at 1024 and 4096 voices. */
#define HL_PF_STATE_AHEAD 16
#define HL_PF_SRC_AHEAD   8
#define HL_PF_LINE        64                          /* cache line, bytes */
#define HL_PF_HOT_BYTES   offsetof(hl_rt_voice_t, lv) /* the fields read every block */

/* Both prefetch helpers are always_inline: gcc's IPA otherwise finds a
 * function whose only statements are prefetches "pure" and deletes the call. */
static inline __attribute__((always_inline)) void prefetch_state(const hl_rt_voice_t *v) {
    __builtin_prefetch(v); /* the steady line: often all the block reads */
}

/* The rest of the hot state, for a voice that will take the full path
 * (its first line is in cache by now: prefetch_state ran earlier). */
static inline __attribute__((always_inline)) void prefetch_rest(const hl_rt_voice_t *v) {
    const char *p = (const char *)v;
    for (size_t o = HL_PF_LINE; o < HL_PF_HOT_BYTES; o += HL_PF_LINE)
        __builtin_prefetch(p + o);
}

/* The post stage's state (filter, occlusion, sends) at the record's cold
 * end, for a voice that has one (f.post, read from its first line). */
static inline __attribute__((always_inline)) void prefetch_post(const hl_rt_voice_t *v) {
    const char *p = (const char *)&v->vf, *e = (const char *)(v + 1);
    p = (const char *)((uintptr_t)p & ~(uintptr_t)(HL_PF_LINE - 1));
    for (; p < e; p += HL_PF_LINE)
        __builtin_prefetch(p);
}

/* The source bytes a steady voice reads over the next n frames at its
 * pitch, from the steady line alone: [*b, *e), *b at a line's start. */
static inline __attribute__((always_inline)) void steady_span(const hl_rt_fast_t *f, uint32_t n,
                                                              const char **b, const char **e) {
    uint64_t c = f->cursor, last = ((c + (uint64_t)n * f->step) >> 32) + HL_INTERP_TAPS / 2;
    last = last < f->frames ? last : f->frames;
    *b = (const char *)((uintptr_t)(f->data + (c >> 32)) & ~(uintptr_t)(HL_PF_LINE - 1));
    *e = (const char *)(f->data + last);
}

/* 1 when a steady voice's next n frames reach past its interior (a loop
 * point, the end): the block takes the full path, which reads the rest of
 * its state (a loop point comes every few hundred blocks a voice; the
 * rest of the state is long out of cache by then). */
static inline __attribute__((always_inline)) int steady_leaves(const hl_rt_fast_t *f, uint32_t n) {
    return f->cursor + (uint64_t)n * f->step > f->lim_fp;
}

static inline __attribute__((always_inline)) void prefetch_span(const char *p, const char *e) {
    for (; p < e; p += HL_PF_LINE)
        __builtin_prefetch(p);
}

/* Prefetches the source frames voice v will read over the next n frames at
 * its current pitch (stream voices read the shared scratch: nothing to do). */
static inline __attribute__((always_inline)) void prefetch_src(const hl_rt_voice_t *v, uint32_t n) {
    const hl_rt_fast_t *f = &v->f;
    if (f->post) prefetch_post(v);
    if (f->steady) { /* exact span from the steady line alone */
        const char *p, *e;
        steady_span(f, n, &p, &e);
        prefetch_span(p, e);
        if (steady_leaves(f, n)) prefetch_rest(v); /* the full path reads it all */
        return;
    }
    prefetch_rest(v);
    if (v->stream || !v->src.data) return;
    uint32_t idx = (uint32_t)(v->f.cursor >> 32);
    if (idx >= v->src.frames) return;
    float rate = v->pitch_to * v->doppler;
    rate = rate > 0.0f && rate < HL_PITCH_MAX * HL_DOPPLER_MAX ? rate : HL_PITCH_MAX;
    uint32_t span = (uint32_t)((float)n * rate) + HL_INTERP_TAPS;
    uint32_t end = v->src.frames - idx < span ? v->src.frames : idx + span;
    const char *p = (const char *)(v->src.data + (size_t)idx * v->src.ch);
    const char *e = (const char *)(v->src.data + (size_t)end * v->src.ch);
    p = (const char *)((uintptr_t)p & ~(uintptr_t)(HL_PF_LINE - 1));
    for (; p < e; p += HL_PF_LINE)
        __builtin_prefetch(p);
}

/* prefetch_src of voice slot s, or what taking its slot's pending change
 * reads and writes (gain pair, filter, occlusion, sends, slot fields) */
static inline __attribute__((always_inline)) void prefetch_ahead(const hl_mixer_t *m, uint32_t s,
                                                                 uint32_t n) {
    const hl_rt_voice_t *v = &m->rt[s];
    if (!m->mod_pend_any || !hl_mod_pending(m, s)) {
        prefetch_src(v, n);
        return;
    }
    prefetch_rest(v);
    prefetch_post(v);
    __builtin_prefetch(&v->mod);
}

/* The pair kernel's prefetch reach: two lines per iteration of
 * HL_PF_PAIR_FRAMES frames (pair_prefetch in mix_kernels_avx512.c). */
#define HL_PF_PAIR_FRAMES 16

/* What prefetch_ahead of voice slot s would fetch when that is its source
 * span alone (a steady voice without a post stage or a pending change) and
 * the pair kernel covers it in n frames (2 lines per HL_PF_PAIR_FRAMES):
 * the span into [*b, *e) and 1, for the pair kernel to prefetch while it
 * mixes (hl_mix_mono_run_t.pf); 0 (nothing set) otherwise, a longer span
 * (a fast voice) included: prefetch_ahead then fetches it whole. */
static inline __attribute__((always_inline)) int
span_ahead(const hl_mixer_t *m, uint32_t s, uint32_t n, const char **b, const char **e) {
    const hl_rt_fast_t *f = &m->rt[s].f;
    if (!f->steady || f->post || steady_leaves(f, n) || (m->mod_pend_any && hl_mod_pending(m, s)))
        return 0;
    const char *sb, *se;
    steady_span(f, n, &sb, &se);
    if (se - sb > (ptrdiff_t)(2 * HL_PF_LINE * (size_t)(n / HL_PF_PAIR_FRAMES))) return 0;
    *b = sb;
    *e = se;
    return 1;
}

#endif /* HL_MIX_PREFETCH_H */
