/*
 * hl_hrtf.h - binaural (HRTF) rendering blocks of the mixer: an immutable
 * HRIR set on a regular direction grid, its RT lookup, and a per-voice FIR
 * renderer that turns a mono block into an accumulated ear pair.
 *
 * DESIGN
 *   Off the audio thread a loader (daemon/assets/hrtf_load.c, libmysofa) samples a
 *   measured HRTF on a regular grid and fills one caller-allocated block:
 *
 *     [hl_hrtf_set_t header][entry el=0 az=0][entry el=0 az=1] ... [el=n_el-1 az=n_az-1]
 *
 *   Azimuth runs counter-clockwise from straight ahead (pi/2 = left, as in
 *   SOFA's spherical coordinates) over the full circle in n_az equal steps;
 *   elevation from el_min up in n_el steps of el_step (the loader uses 5 and
 *   10 degrees, and the range the file covers: -40 .. +90 for MIT KEMAR).
 *   Directions below el_min or above the top row are clamped to it.
 *
 *   Each entry holds, per ear, a minimum-phase HRIR of HL_HRTF_TAPS taps
 *   (the measured IR's magnitude with its excess phase, mostly the time of
 *   flight, removed) and that ear's delay in fractional samples, relative to
 *   the earliest ear of the whole set. Splitting them is what makes
 *   interpolation work: minimum-phase IRs are time-aligned, so a weighted sum
 *   of neighbours is a sensible in-between filter (summing raw IRs with
 *   different onsets would comb-filter), and the interaural delay is
 *   interpolated as a number.
 *
 *   Taps: HL_HRTF_TAPS = 32 at 48 kHz (0.67 ms). Minimum phase puts each
 *   HRIR's energy at its start, so a short truncation keeps what matters:
 *   measured on the default (MIT KEMAR, diffuse-field equalised) set over 35
 *   directions and both ears against a 256-tap reference, the magnitude
 *   error is ~0.9 dB rms at 1-4 kHz and ~1.0 dB rms at 4-16 kHz (the head
 *   shadow and pinna notches; the worst single point is the bottom of a deep
 *   notch). What is lost is detail finer than the 1.5 kHz resolution of 32
 *   taps: below 1 kHz the response is smoothed (~2.4 dB rms), where the ILD
 *   is small and smooth anyway and the ITD, the dominant low-frequency cue,
 *   is kept exactly as a delay. 48 taps measured no better (0.9-1.0 dB above
 *   1 kHz, 2.7 below: the residue is longer than 48 taps too) for 1.5x the
 *   FIR cost and voice state, so 32 it is. The tail is faded with a
 *   half-Hann window over its last quarter so truncation does not ripple.
 *
 *   Rendering (hl_hrtf_process_rt): per ear the filter in use is the HRIR
 *   times the gain, convolved with a 4-tap third-order Lagrange fractional-
 *   delay kernel (flat to -1 dB at 12 kHz at the worst, half-sample, delay;
 *   linear interpolation would lose 3 dB there and make the timbre move
 *   with the ITD), applied at the delay's integer part: one FIR of
 *   HL_HRTF_FIR taps per ear, so the delay costs 3 taps, not a pass. The
 *   Lagrange kernel needs one sample of look-behind, so every delay gets one
 *   extra sample of latency (uniform, inaudible). The FIR is direct form,
 *   looped tap-outer / frame-inner over the block so the compiler
 *   vectorises it across frames (a portable build and an AVX2+FMA build of
 *   the same body, chosen per call by hl_simd_level(), hl_simd.h).
 *
 *   A voice keeps the filter it used last (so a set may be replaced under a
 *   voice: the old filter stays valid) and the parameters it was built
 *   from. When the direction, the gain or the set differs from last time,
 *   the block is rendered with the old and the new filter and crossfaded
 *   linearly over the block, the new one reaching weight 1 on the last
 *   frame; otherwise it is one FIR pass. The first block after a reset
 *   starts on the new filter directly (the history is silent; the mixer's
 *   envelope does the fade-in).
 *
 *   Everything here is RT safe: no allocation, state in the caller's memory.
 *   The set is written only by the loader before the audio thread sees it
 *   and read-only afterwards.
 */
#ifndef HL_HRTF_H
#define HL_HRTF_H

#include <stddef.h>
#include <stdint.h>

#define HL_HRTF_TAPS 32 /* HRIR length per ear (see DESIGN) */
/* Frames of delay a voice can apply: per-ear delays lie in [0, HL_HRTF_MAX_DELAY
 * - 3]; a head's onset spread is ~0.7 ms = 34 frames at 48 kHz. */
#define HL_HRTF_MAX_DELAY 64
/* Taps of the filter a voice runs: HRIR (*) 4-tap Lagrange fractional delay
 * (+3), plus one zero tap so the FIR loops go in groups of four. */
#define HL_HRTF_FIR  (HL_HRTF_TAPS + 4)
#define HL_HRTF_HIST (HL_HRTF_TAPS + HL_HRTF_MAX_DELAY) /* input frames a voice keeps */

/* One grid direction. */
typedef struct {
    float ir[2][HL_HRTF_TAPS]; /* [0] left, [1] right: minimum phase, delay removed */
    float delay[2];            /* frames, in [0, HL_HRTF_MAX_DELAY - 3] */
} hl_hrtf_entry_t;

/* The immutable set: this header then n_el * n_az entries, row-major by
 * elevation (entry index el * n_az + az). */
typedef struct {
    uint32_t rate; /* sample rate the IRs and delays are for */
    uint32_t n_az; /* azimuths over the full circle, >= 1 */
    uint32_t n_el; /* elevation rows, >= 1 */
    uint32_t taps; /* HL_HRTF_TAPS (a check for the loader's build) */
    float az_step; /* radians, 2 pi / n_az */
    float el_min;  /* radians, elevation of row 0 */
    float el_step; /* radians between rows (0 when n_el == 1) */
    float inv_az_step, inv_el_step;
    float pad_[3];
    hl_hrtf_entry_t entry[];
} hl_hrtf_set_t;

/* Bytes of one set with this grid (0 if a count is 0 or too large). */
size_t hl_hrtf_set_size(uint32_t n_az, uint32_t n_el);
/* Writes the header for the grid into mem (hl_hrtf_set_size bytes, 16-byte
 * aligned) and zeroes the entries; returns the set or NULL on a bad grid
 * (n_el > 1 needs el_step_rad > 0). Off the audio thread. */
hl_hrtf_set_t *hl_hrtf_set_init(void *mem, uint32_t rate, uint32_t n_az, uint32_t n_el,
                                float el_min_rad, float el_step_rad);
/* The entry at grid point (az_i, el_i), for the loader to fill. */
hl_hrtf_entry_t *hl_hrtf_set_entry(hl_hrtf_set_t *s, uint32_t az_i, uint32_t el_i);

/* Filter for a direction: bilinear interpolation between the 4 surrounding
 * grid points, of the minimum-phase IRs (HL_HRTF_TAPS floats each into ir_l
 * and ir_r) and of the delays (frames). az_rad counter-clockwise from the
 * front (pi/2 = left, any value, wraps), el_rad up (clamped to the grid). */
void hl_hrtf_lookup_rt(const hl_hrtf_set_t *s, float az_rad, float el_rad, float *ir_l, float *ir_r,
                       float *delay_l, float *delay_r);

/* Per-voice state (lives in the voice slot; no pointers into it). */
typedef struct {
    float hist[HL_HRTF_HIST];  /* last input frames, oldest first */
    float fir[2][HL_HRTF_FIR]; /* filter in use per ear: gain x HRIR x fractional delay */
    uint32_t off[2];           /* integer delay the FIR is applied at, frames */
    float dir[3];              /* direction and gain the filter was built from */
    float gain;
    const hl_hrtf_set_t *set; /* set it was built from (compared, never read: a new set
                               * at another address crossfades in; one reusing the old
                               * address is only noticed at the next dir/gain change,
                               * so reset voices when doing that) */
    uint32_t valid;           /* 0 after reset: no filter yet */
    uint32_t pad_;
} hl_hrtf_voice_t;

/* Silence the history, forget the filter. RT safe: the audio thread resets a
 * voice's state as it starts or stops; any thread that owns the voice may. */
void hl_hrtf_voice_reset_rt(hl_hrtf_voice_t *v);

/* Renders n <= HL_MIX_BLOCK mono frames `in` for a source in direction dir
 * (listener coordinates, OpenAL convention: x right, y up, -z forward; any
 * length, zero or non-finite = straight ahead) at linear gain `gain`, and
 * ADDS the result to out_l/out_r (n frames each). A change of dir, gain or
 * set since the last call crossfades old -> new filter over the block.
 * in, out_l and out_r must not overlap each other or *v. */
void hl_hrtf_process_rt(const hl_hrtf_set_t *s, hl_hrtf_voice_t *v, const float *in, uint32_t n,
                        const float dir[3], float gain, float *out_l, float *out_r);

/* Kernel selection, for tests and benchmarks: HL_HRTF_ISA_AUTO picks the
 * best the CPU has (what hl_hrtf_process_rt does), PORTABLE the baseline
 * build, AVX2 the AVX2+FMA build (falls back to portable where unsupported). */
#define HL_HRTF_ISA_AUTO     0
#define HL_HRTF_ISA_PORTABLE 1
#define HL_HRTF_ISA_AVX2     2
/* 1 if this CPU (and build) can run that kernel set. */
int hl_hrtf_isa_supported(int isa);
void hl_hrtf_process_isa_rt(const hl_hrtf_set_t *s, hl_hrtf_voice_t *v, const float *in, uint32_t n,
                            const float dir[3], float gain, float *out_l, float *out_r, int isa);

#endif /* HL_HRTF_H */
