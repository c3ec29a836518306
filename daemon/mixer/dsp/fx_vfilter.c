/*
 * fx_vfilter.c - the per-voice low-pass/high-pass filter of the effects DSP
 * (hl_fx.h) and the occlusion/obstruction curve that drives it.
 *
 * The per-voice filter uses the trapezoidal state-variable filter
 * (Zavalishin's TPT / Simper's linear trapezoidal SVF): with k = 1/Q it has
 * exactly the bilinear Butterworth response of the cookbook biquad, but its
 * state is the integrators' charge rather than a mix of past inputs and
 * outputs, so a cutoff that moves every 16 frames (occlusion sweeps, distance
 * filtering) never zippers, and coefficients cost one tanf and a division.
 * The cutoff glides geometrically (a constant factor per grid step, i.e.
 * linear in log frequency); the coefficient g = tan(pi f / rate) computed at
 * each grid point is interpolated linearly across the cell, frame by frame
 * (a1 follows with one division): with the 16-frame steps alone, a 20 kHz ->
 * 500 Hz sweep left a 100 Hz tone's largest sample step 0.3% above the
 * tone's own; interpolated, it stays below it. A stage that is off costs nothing; turning one on
 * starts it from the off position (low-pass 0.45 * rate, high-pass 10 Hz) with
 * the low-pass integrator seeded from the signal, so it fades in without a
 * step, and crossfades from the dry signal over HL_VF_FADE frames while it
 * glides; turning one off glides it there, then crossfades to the dry signal
 * over HL_VF_FADE frames (at 10 Hz a high-pass still turns a 100 Hz tone by
 * 8 degrees, and the seed cannot know the signal's slope: switching straight
 * would step the waveform) and bypasses it.
 *
 * A settled stage (no glide, no crossfade) runs in blocks of four (SSE) or
 * eight (AVX2 + FMA) samples in state-space form, the same filter with the
 * same state but without the per-sample dependency chain (see "settled
 * stage" below); a panned mono voice may run it once before the pan
 * (hl_vfilter_process_mono_rt) while its channels' states agree.
 */
#include "hl_fx.h"
#include "hl_simd.h"

#include "hl_util.h"
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "fx_filter.h"
#include "fx_vfblock.h"

#define VF_MAX_STEPS   65535u /* hl_vf_stage_t.steps is 16 bits: ~21 s glides at 48 kHz */
#define VF_FADE_CELLS  (HL_VF_FADE / HL_FX_GRID)
#define VF_HP_IN_CELLS 1 /* a high-pass fades in over one cell (see vf_fade_cells) */
#define OCC_GAIN_DB    (-24.0f)
#define OCC_TOP_HZ     20000.0f
#define OCC_RATIO      (1.0f / 40.0f) /* 20 kHz -> 500 Hz at x = 1 */
#define OCC_OBS_K      0.81211702f    /* ln 20 / ln 40: obstruction alone reaches 1 kHz */

/* ---- per-voice filter --------------------------------------------------- */

static inline float vf_rate(const hl_vfilter_t *f) {
    return (float)HL_PI / f->pi_rate;
}

/* Coefficient at the stage's cutoff, reached at once (no interpolation):
 * a stepped glide's from the shared table (the same bits as tanf here; the
 * voices a parameter moves start their glides from the same cutoffs). */
static void vf_design(hl_vfilter_t *f, hl_vf_stage_t *st, int stage) {
    if (f->stepped && f->cache) {
        hl_vf_design_t scratch;
        (void)hl_vf_design_get(f->cache, f->pi_rate, st->f, stage, &st->g, &scratch);
        st->g0 = st->g;
        return;
    }
    st->g = st->g0 = tanf(st->f * f->pi_rate);
}

/* The per-step factor of a glide from f0 to f1 in `steps` steps: the last
 * one the table saw when it is the same glide (every voice of a cue). */
static float vf_glide_mul(hl_vfilter_t *f, float f0, float f1, uint32_t steps) {
    hl_vf_cache_t *c = f->stepped ? f->cache : NULL;
    uint32_t key[3] = {0, 0, steps};
    memcpy(&key[0], &f0, sizeof f0);
    memcpy(&key[1], &f1, sizeof f1);
    /* word by word: memcmp could be a libc call on the audio thread */
    if (c && key[0] == c->glide_key[0] && key[1] == c->glide_key[1] && key[2] == c->glide_key[2])
        return c->glide_mul;
    const float mul = powf(f1 / f0, 1.0f / (float)steps);
    if (c) {
        memcpy(c->glide_key, key, sizeof key);
        c->glide_mul = mul;
    }
    return mul;
}

static float vf_lp_off(const hl_vfilter_t *f) {
    return HL_VF_LP_OFF_FRAC * vf_rate(f);
}

/* Target of the low-pass: 0 = off, else the clamped cutoff. */
static float vf_lp_target(const hl_vfilter_t *f, float hz) {
    float rate = vf_rate(f);
    if (!(hz > 0.0f) || hz >= HL_VF_LP_MAX_FRAC * rate) return 0.0f;
    return hl_clampf(hz, BQ_MIN_HZ, BQ_MAX_FRAC * rate);
}

static float vf_hp_target(const hl_vfilter_t *f, float hz) {
    if (!(hz > HL_VF_HP_OFF_HZ)) return 0.0f;
    return hl_clampf(hz, BQ_MIN_HZ, BQ_MAX_FRAC * vf_rate(f));
}

static void vf_clear(hl_vfilter_t *f, int stage) {
    for (int c = 0; c < 2; c++)
        f->s[stage][c][0] = f->s[stage][c][1] = 0.0f;
}

/* Cells of a crossfade. Fading out, and the low-pass fading in: HL_VF_FADE
 * frames. The high-pass fades in over one cell only: started from a zero
 * state at 10 Hz it differs from its input by ~g k x at first (0.2% of the
 * sample), which one cell hides, while its start-up transient (a slow sag of
 * a few % over ~20 ms) is smoother left alone than crossfaded. */
static inline uint32_t vf_fade_cells(int stage, int out) {
    return (out || stage == 0) ? VF_FADE_CELLS : VF_HP_IN_CELLS;
}

/* Counter of a reversed crossfade (in <-> out) that starts from the mix the
 * old one has reached: k cells left of from_total leave the mix at
 * (from_total - k) / from_total of the way, i.e. the new one has that share
 * of to_total left. */
static inline uint8_t vf_flip(uint32_t k, uint32_t from_total, uint32_t to_total) {
    return (uint8_t)(((from_total - k) * to_total + from_total / 2) / from_total);
}

/* A quick stepped glide (an anti-click ramp of at most HL_VF_QUICK_MS: a
 * game parameter that jumps) between two cutoffs of a stage that is on
 * takes no more steps than its size needs at a quarter octave a step
 * (HL_VF_QUICK_STEP; at least one): a small move lands within a few cells, a large one
 * keeps a step per cell, each step no larger than a large move's. Longer
 * glides (a seeking parameter's ticks, a sweep) keep a step per cell: they
 * move the cutoff at the pace asked for. No libm: the thresholds are the
 * powers of HL_VF_QUICK_STEP, the same float products everywhere. */
static uint32_t vf_quick_steps(const hl_vfilter_t *f, const hl_vf_stage_t *st, float target,
                               uint32_t steps) {
    if ((float)(steps * HL_FX_GRID) > vf_rate(f) * (HL_VF_QUICK_MS / 1000.0f)) return steps;
    const float q = HL_VF_QUICK_STEP;
    const float r = target > st->f ? target / st->f : st->f / target;
    float top = q;
    for (uint32_t k = 1; k < steps; k++, top *= q)
        if (r <= top) return k;
    return steps;
}

/* Points a stage at `target` (0 = off; its off position is `off_hz`). */
static void vf_stage_set(hl_vfilter_t *f, int stage, float target, float off_hz,
                         uint32_t ramp_frames) {
    hl_vf_stage_t *st = stage == 0 ? &f->lp : &f->hp;
    uint32_t steps = (ramp_frames + HL_FX_GRID - 1) / HL_FX_GRID;
    if (steps > VF_MAX_STEPS) steps = VF_MAX_STEPS;
    if (target > 0.0f) {
        if (st->mode == HL_VF_OFF) { /* glide in from the off position, fading in */
            st->f = off_hz;
            vf_clear(f, stage);
            st->mode = stage == 0 ? HL_VF_SEED : HL_VF_ON; /* a zeroed high-pass passes x */
            st->fade = (uint8_t)vf_fade_cells(stage, 0);
        } else if (st->mode == HL_VF_FADING) { /* fade back in from where the mix is */
            st->mode = HL_VF_ON;
            st->fade = vf_flip(st->fade, VF_FADE_CELLS, vf_fade_cells(stage, 0));
        } else if (st->mode == HL_VF_ENDING) {
            st->mode = HL_VF_ON;
        }
    } else {
        if (st->mode == HL_VF_OFF || st->mode == HL_VF_FADING) return;
        if (steps == 0 || st->f == off_hz) { /* off now: fade out where it stands */
            st->mode = HL_VF_FADING;
            st->fade = vf_flip(st->fade, vf_fade_cells(stage, 0), VF_FADE_CELLS);
            st->steps = 0;
            st->g0 = st->g;
            return;
        }
        st->mode = HL_VF_ENDING;
        target = off_hz;
    }
    st->target = target;
    if (steps == 0 || st->f == target) {
        st->steps = 0;
        st->f = target;
        vf_design(f, st, stage);
        return;
    }
    if (f->stepped && st->mode == HL_VF_ON && !st->fade)
        steps = vf_quick_steps(f, st, target, steps);
    st->steps = (uint16_t)steps;
    st->mul = vf_glide_mul(f, st->f, target, steps);
    vf_design(f, st, stage); /* the glide starts from f */
}

void hl_vfilter_init_rt(hl_vfilter_t *f, float rate, float lp_hz, float hp_hz) {
    if (!(rate >= 1000.0f)) rate = 48000.0f;
    *f = (hl_vfilter_t){0};
    f->pi_rate = (float)HL_PI / rate;
    f->lp.mode = f->hp.mode = HL_VF_OFF;
    f->lp.f = vf_lp_off(f);
    f->hp.f = HL_VF_HP_OFF_HZ;
    vf_stage_set(f, 0, vf_lp_target(f, lp_hz), vf_lp_off(f), 0);
    vf_stage_set(f, 1, vf_hp_target(f, hp_hz), HL_VF_HP_OFF_HZ, 0);
    f->lp.fade = f->hp.fade = 0; /* a new voice starts from silence: no fade-in */
    if (f->lp.mode == HL_VF_SEED) f->lp.mode = HL_VF_ON;
}

void hl_vfilter_glide_rt(hl_vfilter_t *f, float lp_hz, float hp_hz, uint32_t ramp_frames,
                         int stepped) {
    f->sh = NULL; /* its own glide from here (hl_vfilter_follow_at_rt may share it again) */
    f->stepped = stepped != 0;
    vf_stage_set(f, 0, vf_lp_target(f, lp_hz), vf_lp_off(f), ramp_frames);
    vf_stage_set(f, 1, vf_hp_target(f, hp_hz), HL_VF_HP_OFF_HZ, ramp_frames);
    f->grid_pos = 0;
}

void hl_vfilter_set_rt(hl_vfilter_t *f, float lp_hz, float hp_hz, uint32_t ramp_frames) {
    hl_vfilter_glide_rt(f, lp_hz, hp_hz, ramp_frames, 0);
}

int hl_vfilter_active(const hl_vfilter_t *f) {
    return f->lp.mode != HL_VF_OFF || f->hp.mode != HL_VF_OFF;
}

/* One grid step, at a cell's first frame: a fade-out that has run its course
 * turns the stage off; the glide moves (the last step lands on the target;
 * an ending glide then starts the fade-out with this cell). g0 -> g is what
 * the cell interpolates. A fade counter k (cells left, this one included,
 * counted down as each cell completes) makes the cell's mix run from
 * k / cells to (k - 1) / cells (out) or from 1 - k / cells to
 * 1 - (k - 1) / cells (in). A stepped glide's step returns the new
 * cutoff's block design (from the table, else computed into *scratch),
 * anything else NULL. */
static inline __attribute__((always_inline)) const hl_vf_design_t *
vf_step(hl_vfilter_t *f, int stage, hl_vf_design_t *scratch) {
    hl_vf_stage_t *st = stage == 0 ? &f->lp : &f->hp;
    st->g0 = st->g;
    if (st->mode == HL_VF_FADING) {
        if (st->fade == 0) {
            st->mode = HL_VF_OFF;
            vf_clear(f, stage);
        }
        return NULL;
    }
    if (st->steps == 0) return NULL;
    if (--st->steps == 0) {
        st->f = st->target;
        if (st->mode == HL_VF_ENDING) {
            st->mode = HL_VF_FADING; /* an unfinished fade-in is cut short */
            st->fade = VF_FADE_CELLS;
        }
    } else {
        st->f *= st->mul;
    }
    if (f->stepped) { /* the step at once: g from the shared table, no interpolation */
        const hl_vf_design_t *d = vf_design_hinted(f->cache, f->pi_rate, st->f, stage, st->steps,
                                                   &st->g); /* inline: the common case */
        if (!d)
            d = hl_vf_design_step(f->cache, f->pi_rate, st->f, stage, st->steps, &st->g, scratch);
        st->g0 = st->g;
        return d;
    }
    st->g = tanf(st->f * f->pi_rate);
    return NULL;
}

#if defined(__SSE2__)
#define VF_BLK        4 /* the four-sample form (fx_vfsse.c) */
#define vf_run_blocks hl_vf_run_blocks
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include "fx_vfblock.h"

/* The same, called from the forms that are not AVX2 code themselves. */
VF_AVX2_ATTR uint32_t hl_vf_run_avx2(float (*st)[2], const float *const ins[], float *const outs[],
                                     uint32_t nch, uint32_t n, const hl_vf_design_t *dp) {
    return vf_run_avx2_in(st, ins, outs, nch, n, dp);
}
#endif

/* Which form the settled stages take: 0 per sample, 1 four-sample blocks
 * (SSE), 2 eight-sample blocks (AVX2 + FMA, mono path); -1 = the best this
 * CPU runs. */
static int vf_level = -1;

static int vf_best_level(void) {
#if defined(VF_HAVE_AVX2)
    if (hl_simd_level() >= HL_SIMD_AVX2) return 2; /* the CPU's, capped by HELIOD_SIMD */
#endif
#if defined(__SSE2__)
    return 1;
#else
    return 0;
#endif
}

int hl_vfilter_simd(int level) {
    const int best = vf_best_level();
    vf_level = level < 0 || level > best ? best : level;
    return vf_level;
}

int hl_vf_level_now(void) {
    return vf_level < 0 ? vf_best_level() : vf_level;
}

/* The block design of a settled stage at coefficient g: the mixer's shared
 * one when the filter has the table (the same bits: the table computes it
 * from the same cutoff), else computed into *scratch. */
const hl_vf_design_t *hl_vf_design_at(const hl_vfilter_t *f, float f_hz, int hp, float g,
                                      hl_vf_design_t *scratch) {
    if (f->cache) {
        float gc;
        const hl_vf_design_t *d = hl_vf_design_get(f->cache, f->pi_rate, f_hz, hp, &gc, scratch);
        if (gc == g) return d;
    }
    hl_vf_design(scratch, g, hp);
    return scratch;
}

static const hl_vf_design_t *vf_design_of(const hl_vfilter_t *f, const hl_vf_stage_t *st, int hp,
                                          float g, hl_vf_design_t *scratch) {
    return hl_vf_design_at(f, st->f, hp, g, scratch);
}

/* Runs one stage over a chunk starting gp frames into its grid cell. */
static void vf_run_stage(hl_vfilter_t *f, int stage, float *const ch[], uint32_t nch, uint32_t off,
                         uint32_t m, uint32_t gp) {
    const hl_vf_stage_t *st = stage == 0 ? &f->lp : &f->hp;
    const float inv_grid = 1.0f / (float)HL_FX_GRID;
    float dg = (st->g - st->g0) * inv_grid;
    float g = st->g0 + dg * (float)(gp + 1); /* the cell's last frame gets g exactly */
    if (dg == 0.0f) g = st->g;
    int out = st->mode == HL_VF_FADING, fade = out || st->fade > 0;
    float dmix = 1.0f / (float)(vf_fade_cells(stage, out) * HL_FX_GRID);
    float mix = (float)(st->fade * HL_FX_GRID - gp) * dmix; /* fade-out mix at frame 0 */
    if (!out) mix = 1.0f - mix;                             /* fading in */
#if defined(__SSE2__)
    if (dg == 0.0f && !fade && hl_vf_level_now() >= 1) { /* settled: whole blocks, then the tail */
        uint32_t done = 0;
        hl_vf_design_t scratch;
        const hl_vf_design_t *d = m >= 4 ? vf_design_of(f, st, stage, g, &scratch) : NULL;
#if defined(VF_HAVE_AVX2)
        if (d && hl_vf_level_now() >= 2) {
            const float *ins[2] = {ch[0] + off, nch > 1 ? ch[1] + off : NULL};
            float *outs[2] = {ch[0] + off, nch > 1 ? ch[1] + off : NULL};
            done = hl_vf_run_avx2(f->s[stage], ins, outs, nch, m, d);
        } else
#endif
            if (d)
            done = vf_run_blocks(f->s[stage], ch, nch, off, m, d);
        off += done;
        m -= done;
    }
#endif
    if (nch == 2 && (dg != 0.0f || fade)) {
        hl_vf_svf_run2(f->s[stage][0], f->s[stage][1], ch[0] + off, ch[1] + off, m, stage == 1, g,
                       dg, fade, mix, out ? dmix : -dmix);
        return;
    }
    for (uint32_t c = 0; c < nch; c++)
        hl_vf_svf_run(f->s[stage][c], ch[c] + off, m, stage == 1, g, dg, fade, mix,
                      out ? dmix : -dmix);
}

/* A stepped glide of the low-pass alone (high-pass off, no crossfade: what
 * a game parameter bound to a low-pass gives every voice of its cue), cell
 * by cell with the design its step looked up: the same chunks, forms and
 * bits as the loop of hl_vfilter_process_rt, without its per-cell
 * bookkeeping and second lookup (a gliding voice had cost ~3x a settled
 * one). Returns the frames done: up to the glide's end, then the settled
 * form takes the rest. */
#if defined(VF_HAVE_AVX2)
/* The cells themselves, in one AVX2 function (the block form inlined: no
 * call and no set-up of its own a cell beyond loading the cell's design). */
VF_AVX2_ATTR static inline __attribute__((always_inline)) uint32_t
vf_glide_cells_in(hl_vfilter_t *f, float *const ch[], uint32_t nch, uint32_t n) {
    hl_vf_stage_t *st = &f->lp;
    uint32_t done = 0;
    hl_vf_design_t scratch;
    while (done < n && vf_busy(st)) {
        const uint32_t gp = f->grid_pos;
        const hl_vf_design_t *d = gp == 0 ? vf_step(f, 0, &scratch) : NULL;
        if (gp == 0) (void)vf_step(f, 1, NULL); /* off and still: no lookup */
        if (!d) d = vf_design_of(f, st, 0, st->g, &scratch);
        uint32_t m = n - done;
        if (m > HL_FX_GRID - gp) m = HL_FX_GRID - gp;
        f->grid_pos = (uint16_t)((gp + m) % HL_FX_GRID);
        const float *ins[2] = {ch[0] + done, nch > 1 ? ch[1] + done : NULL};
        float *outs[2] = {ch[0] + done, nch > 1 ? ch[1] + done : NULL};
        const uint32_t k = m >= VF_BLK8 ? vf_run_avx2_in(f->s[0], ins, outs, nch, m, d) : 0;
        for (uint32_t c = 0; k < m && c < nch; c++)
            hl_vf_svf_run(f->s[0][c], ch[c] + done + k, m - k, 0, st->g, 0.0f, 0, 0.0f, 0.0f);
        done += m;
    }
    return done;
}

/* ... built for AVX2 and for AVX-512 F + VL (the same bits; see
 * vf_plan_run_avx512). */
VF_AVX2_ATTR static uint32_t vf_glide_cells_avx2(hl_vfilter_t *f, float *const ch[], uint32_t nch,
                                                 uint32_t n) {
    return vf_glide_cells_in(f, ch, nch, n);
}

VF_AVX512_ATTR static uint32_t vf_glide_cells_avx512(hl_vfilter_t *f, float *const ch[],
                                                     uint32_t nch, uint32_t n) {
    return vf_glide_cells_in(f, ch, nch, n);
}
#endif

/* A stepped glide of the low-pass alone, the form the cells run (and a
 * shared glide's plan covers). */
static inline int vf_glide_plain(const hl_vfilter_t *f) {
    return f->stepped && f->lp.mode == HL_VF_ON && !f->lp.fade && f->hp.mode == HL_VF_OFF &&
           !vf_busy(&f->hp) && hl_vf_level_now() >= 2;
}

static uint32_t vf_glide_cells(hl_vfilter_t *f, float *const ch[], uint32_t nch, uint32_t n) {
#if defined(VF_HAVE_AVX2)
    if (vf_glide_plain(f))
        return hl_simd_level() >= HL_SIMD_AVX512 ? vf_glide_cells_avx512(f, ch, nch, n)
                                                 : vf_glide_cells_avx2(f, ch, nch, n);
#endif
    (void)f, (void)ch, (void)nch, (void)n;
    return 0;
}

/* ---- a shared glide (hl_vf_share_t) ----------------------------------------- */

/* Two stages with the same future (a settled one's stale glide fields aside). */
static int vf_stage_same(const hl_vf_stage_t *a, const hl_vf_stage_t *b) {
    if (a->mode != b->mode || a->fade != b->fade || a->steps != b->steps || a->f != b->f ||
        a->g != b->g || a->g0 != b->g0)
        return 0;
    return a->steps == 0 || (a->mul == b->mul && a->target == b->target);
}

static int vf_ctl_same(const hl_vfilter_t *a, const hl_vfilter_t *b) {
    if (a->pi_rate != b->pi_rate || a->stepped != b->stepped || a->cache != b->cache ||
        !vf_stage_same(&a->lp, &b->lp) || !vf_stage_same(&a->hp, &b->hp))
        return 0;
    return a->grid_pos == b->grid_pos || (!vf_busy(&a->lp) && !vf_busy(&a->hp));
}

static void vf_ctl_copy(hl_vfilter_t *d, const hl_vfilter_t *s) {
    d->lp = s->lp;
    d->hp = s->hp;
    d->grid_pos = s->grid_pos;
    d->stepped = s->stepped;
}

void hl_vf_share_init_rt(hl_vf_share_t *sh, float rate, float lp_hz, float hp_hz,
                         hl_vf_cache_t *cache) {
    hl_vfilter_init_rt(&sh->ctl, rate, lp_hz, hp_hz);
    sh->ctl.cache = cache;
    sh->prev = ++sh->pos;
    sh->n = 0;
}

void hl_vf_share_set_rt(hl_vf_share_t *sh, float lp_hz, float hp_hz, uint32_t ramp_frames) {
    sh->prev = sh->pos++;
    sh->n = 0;
    hl_vfilter_glide_rt(&sh->ctl, lp_hz, hp_hz, ramp_frames, 1);
}

int hl_vfilter_follow_at_rt(hl_vfilter_t *f, hl_vf_share_t *sh, const hl_vf_change_t *at,
                            float lp_hz, float hp_hz, uint32_t ramp_frames) {
    if (f->sh == sh && f->sh_pos == at->prev) { /* in step: the change is the share's */
        vf_ctl_copy(f, &at->ctl);
    } else {
        hl_vfilter_glide_rt(f, lp_hz, hp_hz, ramp_frames, 1);
        if (!vf_ctl_same(f, &at->ctl)) return 0;
        f->sh = sh;
    }
    f->sh_pos = at->pos;
    return 1;
}

void hl_vf_share_mark_rt(const hl_vf_share_t *sh, hl_vf_change_t *at) {
    at->ctl = sh->ctl;
    at->prev = sh->prev;
    at->pos = sh->pos;
}

#if defined(VF_HAVE_AVX2)
/* The share's plan over the next n frames from its control: the cells
 * vf_glide_cells_avx2 would run, each step's design looked up once for
 * all the followers. 0 when the plan does not cover the glide (nothing
 * done). */
static int vf_plan(hl_vf_share_t *sh, uint32_t n) {
    hl_vfilter_t *c = &sh->ctl;
    if (n > (HL_VF_PLAN - 2) * HL_FX_GRID || !vf_glide_plain(c)) return 0;
    hl_vf_design_t scratch;
    uint32_t done = 0, k = 0;
    while (done < n && vf_busy(&c->lp)) {
        const uint32_t gp = c->grid_pos;
        const hl_vf_design_t *d = gp == 0 ? vf_step(c, 0, &scratch) : NULL;
        if (gp == 0) (void)vf_step(c, 1, NULL);
        if (!d) d = vf_design_of(c, &c->lp, 0, c->lp.g, &scratch);
        uint32_t m = n - done;
        if (m > HL_FX_GRID - gp) m = HL_FX_GRID - gp;
        c->grid_pos = (uint16_t)((gp + m) % HL_FX_GRID);
        sh->cell[k].m = (uint16_t)m;
        sh->cell[k].idx = c->cache && d != &scratch ? (uint16_t)(d - c->cache->d) : UINT16_MAX;
        sh->cell[k].f = c->lp.f;
        sh->cell[k].g = c->lp.g;
        k++;
        done += m;
    }
    sh->pos0 = sh->pos;
    sh->pos += done;
    sh->n = n;
    sh->done = done;
    sh->ncell = k;
    return 1;
}

/* A cell's design when the plan's entry still holds it (no lookup, no
 * change to the table), else NULL. */
static inline const hl_vf_design_t *vf_plan_held(const hl_vf_share_t *sh, uint32_t k) {
    const hl_vf_cache_t *cache = sh->ctl.cache;
    const uint32_t i = sh->cell[k].idx;
    const float fc = sh->cell[k].f;
    uint32_t fb;
    memcpy(&fb, &fc, sizeof fb);
    return i != UINT16_MAX && cache->k[i].fbits == fb && !cache->k[i].hp ? &cache->d[i] : NULL;
}

/* The plan's first cells whose designs the table holds and whose frames
 * are whole blocks: how many, their designs into dc (when not NULL) and
 * their frames into *frames. */
static inline __attribute__((always_inline)) uint32_t
vf_plan_held_run(const hl_vf_share_t *sh, const hl_vf_design_t **dc, uint32_t *frames) {
    uint32_t kf = 0, fr = 0;
    for (; kf < sh->ncell && sh->cell[kf].m % VF_BLK8 == 0; kf++) {
        const hl_vf_design_t *d = vf_plan_held(sh, kf);
        if (!d) break;
        if (dc) dc[kf] = d;
        fr += sh->cell[kf].m;
    }
    *frames = fr;
    return kf;
}

/* A cell's design: the plan's entry while the table still holds it, else
 * looked up again (the same design). */
static inline const hl_vf_design_t *vf_plan_design(hl_vfilter_t *f, const hl_vf_share_t *sh,
                                                   uint32_t k, hl_vf_design_t *scratch) {
    const hl_vf_design_t *d = vf_plan_held(sh, k);
    return d ? d : hl_vf_design_at(f, sh->cell[k].f, 0, sh->cell[k].g, scratch);
}

/* The settled low-pass per sample over m frames of channel c from in
 * into out (may be in). */
static void vf_svf_io(float *s, const float *in, float *out, uint32_t m, float g) {
    if (out != in) memcpy(out, in, m * sizeof(float));
    hl_vf_svf_run(s, out, m, 0, g, 0.0f, 0, 0.0f, 0.0f);
}

/* A follower's block through the plan: vf_glide_cells_avx2's cells on its
 * own state with the plan's designs, channel c from ins[c] into outs[c]
 * (may be the same). When the glide ends in the block the rest runs
 * settled on the last cell's design, as hl_vfilter_process_rt's loop would
 * (vf_run_stage: the same design, form and bits, without its lookup);
 * returns the frames done (outs[c] holds them). */
VF_AVX2_ATTR static inline __attribute__((always_inline)) uint32_t
vf_plan_run_in(hl_vfilter_t *f, const hl_vf_share_t *sh, const float *const ins[],
               float *const outs[], uint32_t nch, uint32_t n) {
    hl_vf_design_t scratch;
    const hl_vf_design_t *d = NULL;
    /* the first cells whose designs the table still holds where the plan
     * found them and whose frames are whole blocks (all of them, as a
     * rule): each channel through them with its state in a register. Held
     * entries only: a lookup that misses may replace an entry, and so one
     * an earlier cell's pointer names; the cells from the first miss on
     * run below, one lookup each as they come. */
    const hl_vf_design_t *dc[HL_VF_PLAN];
    uint32_t kf = 0, done = 0;
    const hl_vf_cache_t *cache = sh->ctl.cache;
    if (cache && sh->kf_ok && sh->kf_misses == cache->misses) { /* none replaced since */
        for (; kf < sh->kf; kf++)
            dc[kf] = &cache->d[sh->cell[kf].idx];
        done = sh->kf_frames;
    } else {
        kf = vf_plan_held_run(sh, dc, &done);
    }
    d = kf ? dc[kf - 1] : NULL;
    for (uint32_t c = 0; kf && c < nch; c++) {
        const float *x = ins[c];
        float *y = outs[c], *s = f->s[0][c];
        __m128 sv = _mm_setr_ps(s[0], s[1], s[0], s[1]);
        for (uint32_t k = 0; k < kf; k++) {
            sv = vf_cell_sv(sv, x, y, sh->cell[k].m, dc[k]);
            x += sh->cell[k].m;
            y += sh->cell[k].m;
        }
        float o4[4];
        _mm_storeu_ps(o4, sv);
        s[0] = o4[0];
        s[1] = o4[1];
    }
    for (uint32_t k = kf; k < sh->ncell; k++) {
        const uint32_t m = sh->cell[k].m;
        const float g = sh->cell[k].g;
        d = vf_plan_design(f, sh, k, &scratch);
        const uint32_t b = m / VF_BLK8 * VF_BLK8;
        for (uint32_t c = 0; c < nch; c++) {
            if (b) vf_cell_avx2(f->s[0][c], ins[c] + done, outs[c] + done, b, d);
            if (b < m) vf_svf_io(f->s[0][c], ins[c] + done + b, outs[c] + done + b, m - b, g);
        }
        done += m;
    }
    /* settled from here (the control's low-pass on and still, the
     * high-pass off): the loop's vf_run_stage, its lookup saved */
    const hl_vf_stage_t *st = &sh->ctl.lp;
    if (done >= n || !d || d == &scratch || vf_busy(st) || st->mode != HL_VF_ON ||
        sh->ctl.hp.mode != HL_VF_OFF || vf_busy(&sh->ctl.hp) || st->g != sh->cell[sh->ncell - 1].g)
        return done;
    const uint32_t m = n - done;
    const float *ri[2] = {ins[0] + done, nch > 1 ? ins[1] + done : NULL};
    float *ro[2] = {outs[0] + done, nch > 1 ? outs[1] + done : NULL};
    const uint32_t k = m >= 4 ? vf_run_avx2_in(f->s[0], ri, ro, nch, m, d) : 0;
    for (uint32_t c = 0; k < m && c < nch; c++)
        vf_svf_io(f->s[0][c], ri[c] + k, ro[c] + k, m - k, st->g);
    return n;
}

/* The plan's run in AVX2 code, and the same compiled for AVX-512 F + VL
 * (hl_simd_level, HELIOD_ISA): the same eight-lane operations, so the same
 * bits, but with 32 vector registers a cell's design and inputs stay in
 * registers where AVX2's 16 reload them (a gliding voice ~10% cheaper). */
VF_AVX2_ATTR static uint32_t vf_plan_run_avx2(hl_vfilter_t *f, const hl_vf_share_t *sh,
                                              const float *const ins[], float *const outs[],
                                              uint32_t nch, uint32_t n) {
    return vf_plan_run_in(f, sh, ins, outs, nch, n);
}

VF_AVX512_ATTR static uint32_t vf_plan_run_avx512(hl_vfilter_t *f, const hl_vf_share_t *sh,
                                                  const float *const ins[], float *const outs[],
                                                  uint32_t nch, uint32_t n) {
    return vf_plan_run_in(f, sh, ins, outs, nch, n);
}
#endif

/* A follower's glide, shared when it is in step with its share (whose
 * plan for this block hl_vf_share_block_rt made); returns the frames done. Out of
 * step, or a glide the plan does not cover: it leaves the share (its own
 * control goes on) and 0. Settled: 0, still in step. */
static uint32_t vf_shared_cells(hl_vfilter_t *f, const float *const ins[], float *const outs[],
                                uint32_t nch, uint32_t n) {
    hl_vf_share_t *sh = f->sh;
    if (!vf_busy(&f->lp) && !vf_busy(&f->hp)) return 0;
#if defined(VF_HAVE_AVX2)
    if (sh->n == n && f->sh_pos == sh->pos0) {
        const uint32_t done = hl_simd_level() >= HL_SIMD_AVX512
                                  ? vf_plan_run_avx512(f, sh, ins, outs, nch, n)
                                  : vf_plan_run_avx2(f, sh, ins, outs, nch, n);
        vf_ctl_copy(f, &sh->ctl);
        f->sh_pos = sh->pos;
        return done;
    }
#endif
    (void)ins, (void)outs, (void)nch, (void)n;
    f->sh = NULL;
    return 0;
}

void hl_vf_share_hold_rt(hl_vf_share_t *sh) {
#if defined(VF_HAVE_AVX2)
    if (!sh->n) return; /* no plan this block */
    const hl_vf_cache_t *cache = sh->ctl.cache;
    sh->kf = vf_plan_held_run(sh, NULL, &sh->kf_frames);
    sh->kf_misses = cache ? cache->misses : 0;
    sh->kf_ok = 1;
#else
    (void)sh;
#endif
}

int hl_vf_share_block_rt(hl_vf_share_t *sh, uint32_t n) {
    hl_vfilter_t *c = &sh->ctl;
    sh->n = 0;
    sh->kf_ok = 0; /* until hl_vf_share_hold_rt */
    if (!vf_busy(&c->lp) && !vf_busy(&c->hp)) return 0;
#if defined(VF_HAVE_AVX2)
    if (vf_plan(sh, n)) return 1;
#endif
    /* no plan: the control moves on as a follower's own would (no channel) */
    float none = 0.0f;
    float *ch[2] = {&none, &none};
    sh->pos0 = sh->pos++;
    hl_vfilter_process_rt(c, ch, 0, n);
    return 1;
}

/* hl_vfilter_process_rt from `done` frames on (those a shared glide's
 * plan ran; 0: none). */
static void vf_process_from(hl_vfilter_t *f, float *const ch[], uint32_t nch, uint32_t n,
                            uint32_t done) {
    if (!done) done = vf_glide_cells(f, ch, nch, n);
    hl_vf_design_t scratch;
    while (done < n) {
        uint32_t m = n - done, gp = f->grid_pos;
        if (vf_busy(&f->lp) || vf_busy(&f->hp)) {
            if (gp == 0) {
                (void)vf_step(f, 0, &scratch);
                (void)vf_step(f, 1, &scratch);
                if (!hl_vfilter_active(f)) return; /* the fades ended: bypass from here */
            }
            if (m > HL_FX_GRID - gp) m = HL_FX_GRID - gp;
            f->grid_pos = (gp + m) % HL_FX_GRID;
        }
        if (f->lp.mode == HL_VF_SEED) { /* DC steady state at the first sample: no step */
            for (uint32_t c = 0; c < nch; c++) {
                f->s[0][c][0] = 0.0f;
                f->s[0][c][1] = ch[c][done];
            }
            f->lp.mode = HL_VF_ON;
        }
        if (f->hp.mode != HL_VF_OFF) vf_run_stage(f, 1, ch, nch, done, m, gp);
        if (f->lp.mode != HL_VF_OFF) vf_run_stage(f, 0, ch, nch, done, m, gp);
        if (gp + m == HL_FX_GRID) { /* a cell completed: the crossfades move on */
            if (f->lp.fade > 0) f->lp.fade--;
            if (f->hp.fade > 0) f->hp.fade--;
        }
        done += m;
    }
    for (int st = 0; st < 2; st++)
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 2; k++)
                f->s[st][c][k] = flush(f->s[st][c][k]);
}

void hl_vfilter_process_rt(hl_vfilter_t *f, float *const ch[], uint32_t nch, uint32_t n) {
    if (!hl_vfilter_active(f) || n == 0) return;
    if (nch > 2) nch = 2;
    const float *ins[2] = {ch[0], nch > 1 ? ch[1] : NULL};
    vf_process_from(f, ch, nch, n, f->sh ? vf_shared_cells(f, ins, ch, nch, n) : 0);
}

void hl_vf_process_io_rt(hl_vfilter_t *f, const float *in, float *out, uint32_t n) {
    uint32_t done = 0;
    if (hl_vfilter_active(f) && n && f->sh) {
        const float *ins[1] = {in};
        float *outs[1] = {out};
        done = vf_shared_cells(f, ins, outs, 1, n); /* the plan's frames: in -> out */
    }
    if (out != in) memcpy(out + done, in + done, (n - done) * sizeof(float));
    float *ch[1] = {out};
    if (hl_vfilter_active(f) && n) vf_process_from(f, ch, 1, n, done);
}

/* ---- occlusion / obstruction curve ---------------------------------------- */

void hl_occlusion_map(float occlusion, float obstruction, float rate, float *gain, float *lp_hz) {
    float occ = occlusion == occlusion ? hl_clampf(occlusion, 0.0f, 1.0f) : 0.0f;
    float obs = obstruction == obstruction ? hl_clampf(obstruction, 0.0f, 1.0f) : 0.0f;
    *gain = occ > 0.0f ? powf(10.0f, OCC_GAIN_DB * occ / 20.0f) : 1.0f;
    float x = 1.0f - (1.0f - occ) * (1.0f - OCC_OBS_K * obs);
    if (!(x > 0.0f)) { /* neither: no low-pass (and no powf per bound voice per change) */
        *lp_hz = 0.0f;
        return;
    }
    float hz = OCC_TOP_HZ * powf(OCC_RATIO, x);
    *lp_hz = (x > 0.0f && hz < HL_VF_LP_OFF_FRAC * rate) ? hz : 0.0f;
}
