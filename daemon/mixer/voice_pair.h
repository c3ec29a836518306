/*
 * voice_pair.h - two steady voices in one kernel call (mixer_rt.c: the
 * block loop and a partition's chunk), audio thread. Private to the mixer.
 *
 * Two plain steady voices next to each other in the list (mono, linear,
 * flat gains, no post stage, off the pitch-1 copy path, inside the
 * interior) that go to the same bus planes share one pass over the
 * accumulators (interp_mix_mono2, AVX-512): each loaded accumulator gets
 * the first voice's multiply-add and then the second's before it is
 * stored, so every sum is rounded as with one call per voice and the
 * output is the same bit for bit; the loads and stores of the
 * accumulators, the call and the kernel's setup are paid once for two
 * voices (bench/README "the AVX-512 pitched path, fourth pass").
 */
#ifndef HL_VOICE_PAIR_H
#define HL_VOICE_PAIR_H

#include "mix_part_int.h"
#include "voice_state.h"

/* A steady voice's run for interp_mix_mono2 into r: 0 unless it is plain
 * (linear, flat gains, no post stage, off the copy path, inside the
 * interior), i.e. unless process_fast would make that one kernel call. */
static inline __attribute__((always_inline)) int
pair_run(const hl_mixer_t *m, const hl_rt_fast_t *f, uint32_t n, hl_mix_mono_run_t *r) {
    const uint64_t c = f->cursor, step = f->step;
    const uint32_t idx = (uint32_t)(c >> 32), frac = (uint32_t)(c & HL_FP_FRAC);
    if (!f->steady || f->ramp || f->post || f->cubic || (f->lgen && f->lgen != m->listener_gen) ||
        (step == HL_FP_ONE && frac == 0 && idx < f->copy_end) || c >= f->lim_fp ||
        (uint64_t)n * step > f->lim_fp - c)
        return 0;
    *r = (hl_mix_mono_run_t){f->data + idx, f->frames - idx, frac, step, f->gl, f->gr};
    return 1;
}

/* Two plain steady voices in a row on the same bus planes, into those
 * planes of m->acc or (part) of a partition's accumulators: one pass over
 * them for both (interp_mix_mono2), the same sums as two process_fast
 * calls; the cursors move on. Returns 0 (nothing done) otherwise. pf
 * (or NULL): two byte spans [pf[k], pf[k + 2]) (or pf[k] NULL) of other
 * voices' sources, prefetched during the call. */
static inline __attribute__((always_inline)) int mix_pair(hl_mixer_t *m, hl_rt_fast_t *a,
                                                          hl_rt_fast_t *b, uint32_t n, float *part,
                                                          const char *const *pf) {
    hl_mix_mono_run_t r[2];
    if (!pair_run(m, a, n, &r[0]) || a->bus != b->bus || a->cl != b->cl || a->cr != b->cr ||
        !pair_run(m, b, n, &r[1]))
        return 0;
    float *al = part ? HL_PART_ACC(m, part, a->bus, a->cl) : m->acc[a->bus][a->cl];
    float *ar = part ? HL_PART_ACC(m, part, a->bus, a->cr) : m->acc[a->bus][a->cr];
    if (!m->k->interp_mix_mono2(al, ar, r, n, pf)) return 0;
    a->cursor += (uint64_t)n * a->step;
    b->cursor += (uint64_t)n * b->step;
    return 1;
}

#endif /* HL_VOICE_PAIR_H */
