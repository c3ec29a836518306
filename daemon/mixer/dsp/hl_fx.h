/*
 * hl_fx.h - the mixer's effects DSP: RBJ biquads, a one-band EQ insert, the
 * per-voice low-pass/high-pass filter with the occlusion/obstruction curve,
 * a stereo-linked compressor, an 8-line feedback-delay-network reverb and a
 * small tagged wrapper so a bus can hold a chain of inserts.
 *
 * Real-time rules as in the rest of daemon/mixer: no allocation, no locks,
 * no I/O; the only outside calls are libm and memcpy/memset. All state lives
 * in structs (or, for the reverb, memory) the caller owns. Functions suffixed
 * _rt run on the audio thread; the others (init, design, presets, the
 * occlusion map) are cheap and allocation-free too, so they may also be
 * called there.
 *
 * Buffers are planar float (one array per channel), processed in place.
 * Blocks of any length work; the mixer passes at most HL_MIX_BLOCK frames.
 * Rates from 8000 to 192000 Hz. The caller sets FTZ/DAZ on the audio thread,
 * but every feedback path here is also denormal-safe without it: tiny
 * filter states are flushed to zero at block ends, and the reverb quantises
 * its loop and diffuser states (x + 1e-18 - 1e-18) so they never go
 * subnormal. NaN/Inf: the reverb turns such input into 0, so its output is
 * always finite; the filters pass a bad sample on, but a state that is not
 * finite (or beyond 1e30) is reset at the block's end, so one bad block
 * cannot silence a bus for good; the compressor's detector ignores NaN and
 * clamps Inf to +120 dBFS.
 *
 * Parameter changes glide. Coefficients of the filters are recomputed on a
 * grid of HL_FX_GRID frames while a glide runs and not at all once settled;
 * gains glide per sample.
 */
#ifndef HL_FX_H
#define HL_FX_H

#include <stddef.h>
#include <stdint.h>

#include "hl_ranges.h"

/* A table reads better aligned than wrapped. */
/* clang-format off */
#define HL_FX_PLANES      12     /* channels a bus insert takes at most (a 7.1.4 bus) */
#define HL_FX_GRID        16     /* frames: filter coefficients step on this grid in a glide */
#define HL_FX_GLIDE_MS    50.0f  /* comp makeup, reverb decay/damping/wet/dry glide time */
#define HL_VF_LP_OFF_FRAC 0.45f  /* low-pass "off" position: 0.45 * rate */
#define HL_VF_LP_MAX_FRAC 0.49f  /* lp_hz >= 0.49 * rate (or <= 0) turns the low-pass off */
#define HL_VF_HP_OFF_HZ   10.0f  /* high-pass "off" position; hp_hz <= 10 turns it off */
#define HL_VF_QUICK_MS    5.0f   /* a stepped glide this short takes steps by its size: */
#define HL_VF_QUICK_STEP  1.18920712f /* ... each at most this ratio: 2^(1/4), a quarter octave */
#define HL_VF_FADE        256    /* frames: crossfade of a stage turned on or off */
#define HL_REVERB_LINES   8
#define HL_REVERB_MAX_PREDELAY_MS ((float)HL_R_REV_PREDELAY_HI) /* the ranges: hl_ranges.h */
#define HL_REVERB_MIN_SIZE ((float)HL_R_REV_SIZE_LO)
#define HL_REVERB_MAX_SIZE ((float)HL_R_REV_SIZE_HI)
#define HL_REVERB_MIN_RT60 ((float)HL_R_REV_RT60_LO)
#define HL_REVERB_MAX_RT60 ((float)HL_R_REV_RT60_HI)
/* clang-format on */

/* ---- 1. Biquad (RBJ Audio EQ Cookbook) ----------------------------------- */

enum { HL_BQ_LOWPASS, HL_BQ_HIGHPASS, HL_BQ_LOWSHELF, HL_BQ_HIGHSHELF, HL_BQ_PEAK };

/* Normalised (a0 = 1) coefficients: y = b0 x + b1 x1 + b2 x2 - a1 y1 - a2 y2. */
typedef struct {
    float b0, b1, b2, a1, a2;
} hl_bq_coef_t;

/* Designs a cookbook filter (computed in double, rounded to float).
 * freq is clamped to [10, 0.49 * rate]; q to [0.1, 40] (NaN -> 0.7071);
 * gain_db to [-48, 48] and used by the shelves and the peak only.
 * Low/high-pass: Q as given (0.7071 = Butterworth, -3 dB at freq).
 * Shelves: q is the cookbook's Q (0.7071 = the steepest slope without
 * overshoot, S = 1); freq is the shelf midpoint (gain_db / 2 there).
 * Peak: gain_db at freq, bandwidth from q (constant-Q form of the cookbook).
 * An unknown type gives the identity. */
void hl_bq_design(hl_bq_coef_t *c, int type, float rate, float freq, float q, float gain_db);

/* Transposed direct form II state, one channel. */
typedef struct {
    float s1, s2;
} hl_bq_state_t;
static inline void hl_bq_reset(hl_bq_state_t *s) {
    s->s1 = s->s2 = 0.0f;
}
/* In place over n samples. At the end a state under 1e-20 is flushed to 0
 * and one that is NaN, Inf or over 1e30 is reset to 0. */
void hl_bq_process_rt(const hl_bq_coef_t *c, hl_bq_state_t *s, float *x, uint32_t n);

/* ---- 2. EQ insert (one band, stereo) -------------------------------------- */

typedef struct {
    int type; /* targets, as last set */
    float freq, q, gain_db;
    float rate;
    float cur_lf, cur_q, cur_db; /* current point of the glide: log(freq), Q, dB */
    float d_lf, d_q, d_db;       /* per-grid-step increments */
    uint32_t steps;              /* grid steps left in the glide (0 = settled) */
    uint32_t grid_pos;           /* frames into the current grid cell */
    hl_bq_coef_t c;
    hl_bq_state_t st[2];
    hl_bq_state_t stx[HL_FX_PLANES - 2]; /* the planes after the front pair (surround) */
} hl_eq_t;

void hl_eq_init(hl_eq_t *e, float rate, int type, float freq, float q, float gain_db);
/* Glides to the new settings over ramp_frames (0 = at once): frequency in
 * log space, gain in dB, Q linearly, in ceil(ramp_frames / HL_FX_GRID)
 * steps, each recomputing the coefficients; none are recomputed once it
 * has settled. A type change jumps straight to the new settings (filter
 * state kept: it may click; change type while the bus is silent). */
void hl_eq_set_rt(hl_eq_t *e, int type, float freq, float q, float gain_db, uint32_t ramp_frames);
void hl_eq_process_rt(hl_eq_t *e, float *l, float *r, uint32_t n);

/* ---- 3. Per-voice filter ------------------------------------------------ */

/* One stage (the low-pass or the high-pass): a 2nd-order Butterworth
 * (Q = 0.7071, -3 dB at the cutoff) as a trapezoidal state-variable filter
 * (Simper/Zavalishin): the same bilinear response as the cookbook biquad,
 * but its state is the integrators' charge, so it stays smooth however the
 * cutoff moves. Settled, a stage costs ~10 flops a sample; gliding, one
 * division more (a1 = 1 / (1 + g (g + k)) follows the interpolated g). */
typedef struct {
    float f;        /* current cutoff (Hz) */
    float mul;      /* per-grid-step cutoff factor during a glide (log-frequency glide) */
    float target;   /* where the glide ends */
    float g0, g;    /* SVF coefficient g = tan(pi f / rate) at the start and end of the grid
                       cell: g moves linearly between them frame by frame, the cutoff itself
                       is recomputed (tanf) once a cell */
    uint16_t steps; /* grid steps left in the glide (0 = settled) */
    uint8_t mode;   /* HL_VF_OFF / _ON / _SEED / _ENDING / _FADING */
    uint8_t fade;   /* grid cells left in the crossfade: out when FADING, else in */
} hl_vf_stage_t;

/* OFF: bypassed. ON. SEED: on, low-pass state to be seeded from the next
 * input sample. ENDING: gliding to the off position. FADING: at the off
 * position, crossfading to the dry signal over HL_VF_FADE frames (the
 * filter's small phase shift there would otherwise step the waveform). A
 * stage turned on crossfades from the dry signal the same way while it
 * starts gliding. */
enum { HL_VF_OFF, HL_VF_ON, HL_VF_SEED, HL_VF_ENDING, HL_VF_FADING };

/* The block matrices of a settled stage at one coefficient (fx_vfdesign.c):
 * everything the four- and eight-sample forms load. Laid out on 64-byte
 * lines so that no load of the eight-sample form straddles two (a glide's
 * cells read the design where it is used, every eight samples): hz, n1/n2,
 * pc8 and q8 first, each vector within a line, the rest after. */
#define HL_VF_DMAX 8 /* the longest block form */
typedef struct {
    _Alignas(64) float hz[2 * HL_VF_DMAX]; /* HL_VF_DMAX zeros, then h[0..HL_VF_DMAX): from
                                              hz + HL_VF_DMAX - j, column j of the lower-triangular
                                              Toeplitz matrix of h */
    float n1[HL_VF_DMAX], n2[HL_VF_DMAX];  /* C A^i: output i's response to ic1, ic2 */
    float pc8[HL_VF_DMAX][4]; /* the eight-sample form's vectors, ready to load: st[8 - j] twice */
    float q8[2][4];           /* columns of A^8, twice: (a8[0][c], a8[1][c]) x 2 */
    float st[HL_VF_DMAX + 1][2]; /* A^(m-1) B: the state m samples after a unit impulse */
    float a4[2][2], a8[2][2];    /* A^4 and A^8, [row][column] */
} hl_vf_design_t;

/* Designs shared by the voices of one mixer (one audio thread, one rate):
 * a direct-mapped table keyed by cutoff and stage. Voices that sit at, or
 * glide through, the same cutoffs (a global game parameter bound to a
 * low-pass moves every voice of a cue alike) compute tan() and the block
 * matrices once between them instead of once each a block. */
#define HL_VF_CACHE 64 /* entries: HL_VF_CACHE / HL_VF_WAYS sets of HL_VF_WAYS */
#define HL_VF_WAYS  4
#define HL_VF_HINTS 64 /* step hints (a power of two) */
/* The keys apart from the designs: a lookup reads one line of keys, not the
 * head of four ~400-byte designs (a gliding voice looks one up a cell). */
typedef struct {
    uint32_t fbits; /* the cutoff's bits; 0 = empty */
    uint32_t hp;    /* 1 = high-pass */
    uint32_t used;  /* the table's clock at its last use (least recently used goes) */
    float g;        /* tan(pi f / rate) */
} hl_vf_ckey_t;
typedef struct {
    float pi_rate; /* of the filters it serves (0 until the first use) */
    uint32_t clock;
    uint32_t hits, misses;        /* since the table began (wrap) */
    uint32_t glide_key[3];        /* the last glide's start and end cutoffs (bits) and steps */
    float glide_mul;              /* its per-step factor (powf once for the voices gliding alike) */
    uint8_t hint[2][HL_VF_HINTS]; /* [hp][steps left % HL_VF_HINTS]: the entry the last
                                     stepped glide found at that step (hl_vf_design_step) */
    hl_vf_ckey_t k[HL_VF_CACHE];
    hl_vf_design_t d[HL_VF_CACHE];
} hl_vf_cache_t;

typedef struct {
    float pi_rate;     /* pi / rate */
    uint16_t grid_pos; /* frames into the current grid cell */
    uint8_t stepped;   /* the glide steps once a cell (hl_vfilter_glide_rt) */
    uint8_t pad_;
    hl_vf_stage_t lp, hp;   /* low-pass, high-pass */
    float s[2][2][2];       /* [stage lp/hp][channel][ic1eq, ic2eq] */
    hl_vf_cache_t *cache;   /* shared designs (the mixer's), or NULL: computed each time */
    struct hl_vf_share *sh; /* the shared glide it follows (hl_vfilter_follow_at_rt), or NULL */
    uint64_t sh_pos;        /* sh->pos when its control last equalled sh->ctl */
} hl_vfilter_t;

/* A glide shared by the filters that follow it (a modulation slot's: a
 * game parameter bound to the cutoff of a cue's voices): its control (the
 * cutoffs' steps, each step's design) is advanced once a block, by the
 * first follower that runs, into a plan of cells; every follower in step
 * runs the plan on its own state, with the bits its own glide would give
 * (the same designs, cells and block forms), and takes the new control
 * with one copy. A follower out of step (it missed a block the glide moved
 * in: paused, virtual; a block of another length) or a glide the plan does
 * not cover (a high-pass on, a stage turning on or off, no AVX2) goes on
 * with its own control, which is always kept: nothing is lost but the
 * sharing. pos grows with every change and every plan, so a follower's
 * sh_pos names the control it holds. */
#define HL_VF_PLAN 18 /* cells of a plan: a block of up to (HL_VF_PLAN - 2) x HL_FX_GRID frames */
typedef struct hl_vf_share {
    hl_vfilter_t ctl; /* the control (its state words unused) */
    uint64_t pos;     /* grows with every change and every plan */
    uint64_t pos0;    /* pos before the plan (valid while n > 0) */
    uint64_t prev;    /* pos before the last change (hl_vf_share_set_rt) */
    uint32_t n;       /* frames the plan was made for (0: none) */
    uint32_t done;    /* of those, the frames its cells cover (the glide's end) */
    uint32_t ncell;
    uint32_t kf,
        kf_frames; /* the first cells that run in a register (vf_plan_run_avx2), their frames */
    uint32_t kf_misses; /* the table's misses when kf was found: still valid while equal */
    uint32_t kf_ok;     /* kf found for this block's plan (hl_vf_share_hold_rt) */
    struct {
        uint16_t m;   /* frames */
        uint16_t idx; /* the design's entry in the cache, or UINT16_MAX */
        float f, g;   /* the low-pass cutoff and coefficient over the cell */
    } cell[HL_VF_PLAN];
} hl_vf_share_t;

/* The share set up as a filter would be (hl_vfilter_init_rt, designs from
 * cache), a new pos: followers of what it held before are out of step. */
void hl_vf_share_init_rt(hl_vf_share_t *sh, float rate, float lp_hz, float hp_hz,
                         hl_vf_cache_t *cache);
/* A change of the shared glide: hl_vfilter_glide_rt(ctl, ..., stepped 1). */
void hl_vf_share_set_rt(hl_vf_share_t *sh, float lp_hz, float hp_hz, uint32_t ramp_frames);
/* Once a block, before its followers run (n frames): the plan, or the
 * control moved on without one (the followers then leave it). Returns 0
 * once the glide has settled (no call needed until the next change). */
int hl_vf_share_block_rt(hl_vf_share_t *sh, uint32_t n);
/* After every share's hl_vf_share_block_rt of the block (a plan's lookups
 * may replace another's entries): the plan's first cells whose designs the
 * table holds and whose frames are whole blocks, found once for the
 * followers (vf_plan_run_avx2, fx_vfilter.c), valid while the table
 * replaces no entry (its misses count each replacement). Without it the
 * followers find them each. */
void hl_vf_share_hold_rt(hl_vf_share_t *sh);
/* A change of sh as it stood just after hl_vf_share_set_rt (its control
 * and positions), for followers that take it later, before or in the next
 * block (hl_vf_share_block_rt moves sh on meanwhile): hl_vf_share_mark_rt
 * right after the set, then hl_vfilter_follow_at_rt: filter f takes that
 * change (in step before it, one copy; else its own
 * hl_vfilter_glide_rt(stepped)) and follows sh from then on when both
 * controls are equal; returns 1 when f follows sh. */
typedef struct {
    hl_vfilter_t ctl;
    uint64_t prev, pos;
} hl_vf_change_t;
void hl_vf_share_mark_rt(const hl_vf_share_t *sh, hl_vf_change_t *at);
int hl_vfilter_follow_at_rt(hl_vfilter_t *f, hl_vf_share_t *sh, const hl_vf_change_t *at,
                            float lp_hz, float hp_hz, uint32_t ramp_frames);

/* lp_hz >= 0.49 * rate or <= 0 (or NaN): low-pass off (bypassed, costs
 * nothing); hp_hz <= 10 Hz: high-pass off. Cutoffs otherwise clamped to
 * [10, 0.49 * rate]. State cleared. RT safe: the audio thread sets a voice's
 * filter up as the voice starts. */
void hl_vfilter_init_rt(hl_vfilter_t *f, float rate, float lp_hz, float hp_hz);
/* Glides the cutoffs in log-frequency over ramp_frames (0 = at once):
 * coefficients recomputed every HL_FX_GRID frames and interpolated linearly
 * frame by frame in between, so no step of the glide shows in the output. Turning a stage on starts
 * it from its off position (lp at 0.45 * rate, hp at 10 Hz, where it is all
 * but transparent), crossfading from the dry signal over its first
 * HL_VF_FADE frames; turning one off glides it to that position, crossfades
 * to the dry signal over HL_VF_FADE frames and then bypasses it. The
 * crossfades run also when ramp_frames is 0 (turned off at once, a stage
 * fades out at the cutoff it had). */
void hl_vfilter_set_rt(hl_vfilter_t *f, float lp_hz, float hp_hz, uint32_t ramp_frames);
/* hl_vfilter_set_rt, but with stepped != 0 a glide (and a settled stage)
 * takes its coefficients from f->cache and moves them once per HL_FX_GRID
 * frames, without the frame-by-frame interpolation between steps: every
 * frame then runs in the block forms (as a settled stage does), so a glide
 * costs about what a settled block costs. The price: a step of the cutoff
 * every 16 frames, 1/9 of a 3 ms glide (a 500 Hz -> 12 kHz glide over
 * 3 ms leaves a tone's largest sample step within 1.5x of the tone's own,
 * the interpolated glide within 1.3x; no click). For many voices moving
 * alike: game parameters. The mode holds until the next set. A quick
 * stepped glide (ramp_frames within HL_VF_QUICK_MS, a parameter's jump)
 * between two cutoffs of a stage that is on takes no more steps than a
 * quarter octave a step needs (HL_VF_QUICK_STEP; one at least) and lands
 * early: a 0.2-octave move is one step, the 500 Hz -> 12 kHz move keeps
 * its nine; a longer glide keeps a step per HL_FX_GRID frames. */
void hl_vfilter_glide_rt(hl_vfilter_t *f, float lp_hz, float hp_hz, uint32_t ramp_frames,
                         int stepped);
/* The block design of a stage at cutoff f_hz (high-pass when hp), its
 * coefficient in *g: from the cache when there (cache may be NULL), else
 * computed into the cache's slot, or into *scratch. RT safe. */
const hl_vf_design_t *hl_vf_design_get(hl_vf_cache_t *cache, float pi_rate, float f_hz, int hp,
                                       float *g, hl_vf_design_t *scratch);
/* hl_vf_design_get for a stepped glide's step with `left` steps to go:
 * voices gliding alike (a parameter moving every voice of a cue) reach the
 * same cutoff with the same steps left, so the table first tries the entry
 * the last of them found there (one compare instead of the set's search);
 * the same design and bits either way. RT safe. */
const hl_vf_design_t *hl_vf_design_step(hl_vf_cache_t *cache, float pi_rate, float f_hz, int hp,
                                        uint32_t left, float *g, hl_vf_design_t *scratch);
/* In place over nch planar channels (1 or 2; more are left untouched). */
void hl_vfilter_process_rt(hl_vfilter_t *f, float *const ch[], uint32_t nch, uint32_t n);
/* 0 when both stages are off and settled: the caller may skip the call. */
int hl_vfilter_active(const hl_vfilter_t *f);

/* A voice panned from a mono source: its stereo filter (two channels, as
 * hl_vfilter_process_rt runs it) fed with l = gl x and r = gr x can run once
 * on x instead, before the pan (the filter is linear in its input and state,
 * gliding or not, and the gains are constant).
 * hl_vfilter_mono_ok: 1 when that is exact to within float rounding: gl and
 * gr finite, max(|gl|, |gr|) >= 1e-12, and the two channels' states are the pan of one
 * state (the quieter channel's state words within 1e-6 of the louder one's
 * state, -120 dB, of the louder one's times the gain ratio; a gain ramp
 * leaves them apart, and a settled filter brings them back as the
 * difference, a free response, dies away). */
int hl_vfilter_mono_ok(const hl_vfilter_t *f, float gl, float gr);
/* Filters mono in[0..n) into out (in == out allowed, else no overlap) so
 * that gl out and gr out are what hl_vfilter_process_rt would have given on
 * (gl in, gr in); the stereo state is kept (as gl and gr times the mono
 * state), so the next block may take either path. Only after
 * hl_vfilter_mono_ok said 1. */
void hl_vfilter_process_mono_rt(hl_vfilter_t *f, const float *in, float *out, uint32_t n, float gl,
                                float gr);
/* How settled stages run: 0 sample by sample (the reference form), 1 in
 * four-sample blocks (SSE), 2 in eight-sample blocks (AVX2 + FMA); -1 (the
 * default) or a level the CPU lacks picks the best it has. Interpolated
 * glides and crossfades run sample by sample; a stepped glide's cells run
 * in the form its level gives a settled stage (at 2, in a build for
 * AVX-512 F + VL where hl_simd_level has it: the same bits).
 * Returns the level now in use. For tests and benchmarks: call while no
 * filter runs (it sets a process-wide switch). */
int hl_vfilter_simd(int level);

/* The game-facing curve, occlusion (a wall between: gain and low-pass) and
 * obstruction (something in the direct path: low-pass only), both clamped to
 * [0, 1] (NaN -> 0):
 *   gain   = 10^(-24 * occ / 20)                    (linear in dB, -24 dB at 1)
 *   x      = 1 - (1 - occ) * (1 - K * obs),  K = ln(20) / ln(40) = 0.8121
 *   cutoff = 20000 * (1/40)^x                      (log-frequency: 20 kHz .. 500 Hz)
 *   lp_hz  = 0 (off) when x == 0 or cutoff >= 0.45 * rate, else cutoff
 * so occlusion alone reaches 500 Hz at 1, obstruction alone 1 kHz at 1, both
 * combine like independent losses (never past 500 Hz); 0/0 gives gain 1 and
 * the low-pass off. Monotonic in both arguments. */
void hl_occlusion_map(float occlusion, float obstruction, float rate, float *gain, float *lp_hz);

/* ---- 4. Compressor ------------------------------------------------------ */

/* Stereo-linked feed-forward compressor after Giannoulis, Massberg & Reiss
 * (JAES 2012): level xG = 20 log10(max(|l|, |r|)), soft-knee gain computer,
 * xL = xG - yG smoothed in dB by their smooth decoupled peak detector (an
 * instant-attack release one-pole, then an attack one-pole), gain =
 * makeup - yL dB. A steady tone settles on the static curve at its peaks. */
typedef struct {
    float threshold_db, ratio, knee_db, attack_ms, release_ms, makeup_db; /* settings */
    float rate;
    float att, rel;                        /* one-pole coefficients exp(-1 / (t * rate)) */
    float slope;                           /* 1 / ratio - 1 */
    float thr_cur, knee_cur, slope_cur;    /* where the settings glide is (dB, dB, slope) */
    float thr_step, knee_step, slope_step; /* its per-sample steps */
    uint32_t set_left;                     /* samples left in it (0 = settled) */
    float peak_db;                         /* detector's release stage y1 (dB, >= 0) */
    float env_db;                          /* smoothed gain reduction yL (dB, >= 0) */
    float makeup_cur;                      /* makeup in dB, gliding to makeup_db */
    float makeup_step;                     /* per-sample dB step of the glide */
    uint32_t makeup_left;                  /* samples left in the glide */
    /* the detector of each channel pair after the front pair (surround) */
    float xpeak_db[HL_FX_PLANES / 2 - 1], xenv_db[HL_FX_PLANES / 2 - 1];
} hl_comp_t;

/* Defaults: threshold -20 dB, ratio 4, knee 6 dB, attack 5 ms, release
 * 100 ms, makeup 0 dB. */
void hl_comp_init(hl_comp_t *c, float rate);
/* threshold clamped to [-80, 0] dB, ratio to [1, 100], knee to [0, 24] dB,
 * attack to [0.05, 500] ms, release to [1, 5000] ms, makeup to [-24, 24] dB.
 * Takes effect at once except makeup, which glides over HL_FX_GLIDE_MS. */
void hl_comp_set_rt(hl_comp_t *c, float threshold_db, float ratio, float knee_db, float attack_ms,
                    float release_ms, float makeup_db);
/* hl_comp_set_rt, but with ramp_frames > 0 the threshold, knee, ratio (as
 * its slope 1/ratio - 1) and makeup glide linearly, sample by sample, from
 * where they are to the new values, which they reach on the ramp_frames-th
 * sample processed after the call (a snapshot fade or a parameter binding
 * lands on its frame, whatever the main thread's polls); attack and release
 * take effect at once. ramp_frames 0: as hl_comp_set_rt (a glide under way
 * to the same threshold, knee and ratio goes on). */
void hl_comp_glide_rt(hl_comp_t *c, float threshold_db, float ratio, float knee_db, float attack_ms,
                      float release_ms, float makeup_db, uint32_t ramp_frames);
void hl_comp_process_rt(hl_comp_t *c, float *l, float *r, uint32_t n);
/* Current gain reduction in dB, >= 0 (a meter shows it as -x); makeup excluded. */
float hl_comp_reduction_db(const hl_comp_t *c);

/* ---- 5. Reverb ---------------------------------------------------------- */

/* Stereo FDN reverb, see fx_reverb.c. Opaque; lives at the start of the
 * memory passed to hl_reverb_init. */
typedef struct hl_reverb hl_reverb_t;

typedef struct {
    float rt60_s;      /* broadband decay time at damping 0 (low-frequency RT60): 0.1..20 s */
    float damping;     /* 0..1: high-frequency RT60 = rt60 * (1 - 0.9 * damping) */
    float predelay_ms; /* 0..200 */
    float size;        /* 0.25..2: delay-length scale (1 = 30..70 ms lines) */
    float wet, dry;    /* linear gains 0..1 */
} hl_reverb_params_t;

/* Bytes hl_reverb_init needs at this rate (largest size and pre-delay). */
size_t hl_reverb_size(float rate);
/* Lays the reverb out in mem (any alignment; bytes >= hl_reverb_size(rate)),
 * clears it and loads the "hall" preset. NULL if mem is NULL, bytes is too
 * small or rate is outside 8000..192000. Call off the audio thread (it
 * clears the whole block). */
hl_reverb_t *hl_reverb_init(void *mem, size_t bytes, float rate);
/* Values clamped to their ranges. rt60, damping, wet and dry glide over
 * HL_FX_GLIDE_MS; size and pre-delay apply at once (may click). */
void hl_reverb_set_rt(hl_reverb_t *r, const hl_reverb_params_t *p);
/* hl_reverb_set_rt, but with ramp_frames > 0 the glide runs over
 * ramp_frames from where it is, even to the same targets: wet and dry
 * linearly sample by sample, reaching the targets on the ramp_frames-th
 * sample processed after the call; rt60 (in log) and damping in
 * ceil(ramp_frames / HL_FX_GRID) grid steps, the last within HL_FX_GRID
 * frames before that sample. ramp_frames 0: as hl_reverb_set_rt. */
void hl_reverb_glide_rt(hl_reverb_t *r, const hl_reverb_params_t *p, uint32_t ramp_frames);
void hl_reverb_get(const hl_reverb_t *r, hl_reverb_params_t *p);
/* "room", "hall", "cave", "outdoor" (ASCII case-insensitive): fills *p, 0;
 * else -1 and *p untouched. Presets have dry = 1 (insert use); set dry = 0
 * for a send/return bus. */
int hl_reverb_preset(const char *name, hl_reverb_params_t *p);
/* Preset names by index, NULL past the end. */
const char *hl_reverb_preset_name(int i);
/* In place, stereo. Never outputs NaN/Inf (bad input samples count as 0). */
void hl_reverb_process_rt(hl_reverb_t *r, float *l, float *r_, uint32_t n);
/* Clears the delay memory and filter states (tail cut). Cost ~ size. */
void hl_reverb_clear(hl_reverb_t *r);

/* ---- 6. Insert wrapper -------------------------------------------------- */

enum { HL_FX_NONE = 0, HL_FX_EQ = 1, HL_FX_COMP, HL_FX_REVERB };

typedef struct hl_fx {
    int kind; /* HL_FX_*; HL_FX_NONE (or an unknown kind) passes through */
    union {
        hl_eq_t eq;
        hl_comp_t comp;
        hl_reverb_t *rev; /* in caller memory (hl_reverb_init) */
    } u;
} hl_fx_t;

void hl_fx_process_rt(hl_fx_t *fx, float *l, float *r, uint32_t n);
/* The same insert on a surround bus: planes p[0..nch-1] in the order of
 * layout (hl_layout_t; nch its channels, even, at most HL_FX_PLANES). The EQ
 * filters every plane (one state each, the front pair's coefficients and
 * glide); the compressor runs on each channel pair with its own detector
 * (linked within the pair); the reverb takes the planes after the front pair
 * folded into it (BS.775: centre, surrounds and top speakers at 0.7071, LFE dropped) and
 * returns on the front pair, those planes silent. Stereo (nch 2) is
 * hl_fx_process_rt. */
void hl_fx_process_planes_rt(hl_fx_t *fx, float *const *p, uint32_t layout, uint32_t nch,
                             uint32_t n);
/* Runs count inserts in order. */
void hl_fx_chain_process_rt(hl_fx_t *chain, uint32_t count, float *l, float *r, uint32_t n);

#endif /* HL_FX_H */
