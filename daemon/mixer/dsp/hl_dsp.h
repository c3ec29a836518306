/*
 * hl_dsp.h - the pure maths of the mixer: gain law, pan law, distance models,
 * envelope steps and the output limiter. No state beyond what the caller
 * passes, no allocation: every function here is RT safe and unit-tested
 * directly.
 */
#ifndef HL_DSP_H
#define HL_DSP_H

#include <stdint.h>

/* 10^(db/20). -inf (or anything <= -144 dB) gives 0. */
float hl_db_to_lin(float db);
/* OpenAL 1.1's sound cone: the gain of a source at src pointing along dir
 * (not normalised; (0,0,0): 1) heard at lis. The angle between dir and the
 * source-to-listener vector, doubled, is compared with the full cone widths
 * inner <= outer (degrees, [0, 360]): 1 inside the inner, outer_gain beyond
 * the outer, linear in the angle between. A listener on the source: 1. */
float hl_cone_gain(const float dir[3], const float src[3], const float lis[3], float inner,
                   float outer, float outer_gain);
/* Custom attenuation: n points (d strictly increasing, db finite), the gain
 * at distance x linear in dB between them, the end values beyond. n 0: 1. */
#define HL_MIX_CURVE_POINTS 8
float hl_curve_gain(uint32_t n, const float *d, const float *db, float x);
/* 1 if n <= HL_MIX_CURVE_POINTS points are valid: d finite, >= 0, strictly
 * increasing; db finite in [-144, +24]. */
int hl_curve_valid(uint32_t n, const float *d, const float *db);
/* A distance curve of a 3D voice besides its gain's: n points of distance
 * (m, strictly increasing) and a value each (ATTEN kinds: the low-pass
 * cutoff in Hz, the send level in dB); n 0: none. */
#define HL_CONE_LP_OFF_FRAC 0.45f
typedef struct {
    uint32_t n;
    float d[HL_MIX_CURVE_POINTS], v[HL_MIX_CURVE_POINTS];
} hl_dcurve_t;
/* The low-pass cutoff of curve c at distance x: log-linear in frequency
 * (linear in octaves) between points, the end values beyond; 0 (none) for
 * no points or a cutoff at or above the off position (HL_CONE_LP_OFF_FRAC
 * x rate, where the per-voice low-pass is all but transparent). */
float hl_dcurve_lp(const hl_dcurve_t *c, float x, float rate);
/* 1 if c is a valid low-pass curve: hl_curve_valid's distances, each
 * cutoff in [10, 96000] Hz. A send curve is checked by hl_curve_valid. */
int hl_dcurve_lp_valid(const hl_dcurve_t *c);
/* 1 if the cone parameters are valid: dir finite, 0 <= inner <= outer <= 360,
 * outer_gain in [0, 1]. */
int hl_cone_valid(const float dir[3], float inner, float outer, float outer_gain);
/* Where the listener is between a cone's inner and outer widths: 0 within
 * the inner cone (or no cone), 1 beyond the outer one, linear in the angle
 * between (the fraction hl_cone_gain moves the gain by). */
float hl_cone_frac(const float dir[3], const float src[3], const float lis[3], float inner,
                   float outer);
/* The cone's low-pass at that fraction: 0 (none) at 0, outer_lp at 1,
 * between them log-linear from the off position (0.45 x rate, where the
 * per-voice low-pass is all but transparent). 0 when outer_lp is 0 or at
 * or above the off position. */
float hl_cone_lp(float frac, float outer_lp, float rate);
/* 20*log10(lin); 0 gives -144. */
float hl_lin_to_db(float lin);

/* Equal-power pan: theta = (pan+1)*pi/4, *l = cos(theta), *r = sin(theta).
 * pan is clamped to [-1, 1]. Centre = 0.7071/0.7071, -1 = (1, 0), +1 = (0, 1). */
void hl_pan_equal_power(float pan, float *l, float *r);

/* Distance models, the mixer's own. The wire's HL_DIST_* (hl_proto.h) have
 * the same values, so the daemon passes a request's model through
 * (tests/unit/test_dsp.c checks the two tables agree). */
#define HL_MIX_DIST_LINEAR      0
#define HL_MIX_DIST_INVERSE     1
#define HL_MIX_DIST_EXPONENTIAL 2

/* Distance attenuation (0..1) for distance d with the given model
 * (HL_MIX_DIST_LINEAR / HL_MIX_DIST_INVERSE / HL_MIX_DIST_EXPONENTIAL):
 *   d is clamped to [min_d, max_d] first;
 *   linear:      1 - rolloff * (d - min_d) / (max_d - min_d), floored at 0
 *   inverse:     min_d / (min_d + rolloff * (d - min_d))
 *   exponential: (d / min_d) ^ (-rolloff)
 * Callers treat d >= max_d as inaudible (virtual) separately. */
float hl_distance_gain(int model, float d, float min_d, float max_d, float rolloff);

/* 3D -> (gain, pan): source position relative to a listener given by pos,
 * forward and up (need not be normalised). Pan is the projection of the unit
 * direction on the listener's right axis (forward x up); a source at the
 * listener's position is centred. Returns the distance. */
float hl_spatial_pan(const float src[3], const float lis_pos[3], const float fwd[3],
                     const float up[3], float *pan);

/* Peak limiter state on the final stereo output. */
typedef struct {
    float env;     /* peak envelope, at most env_max */
    float release; /* per-sample release coefficient */
    float thresh;  /* linear threshold */
    float env_max; /* thresh x HL_LIMITER_MAX_GR: bounds the reduction and so the recovery */
    uint32_t active_blocks; /* blocks in which it reduced gain */
} hl_limiter_t;
void hl_limiter_init(hl_limiter_t *l, float thresh, float release_ms, uint32_t rate);
/* In place on interleaved stereo. Output is within [-1, 1] and never NaN/Inf
 * (NaN/Inf samples become 0). Transparent: while every sample is below the
 * threshold and the envelope has decayed under it, the buffer is untouched
 * bit for bit. The gain reduction is at most HL_LIMITER_MAX_GR (peaks
 * beyond it are clipped at full scale), so however loud the input was, the
 * release brings the gain back within 1 dB in release_ms x ln(MAX_GR /
 * 1.122) once it is quiet: one loud voice cannot hold the mix down for
 * longer than it plays plus that. Returns 1 if it changed any sample. RT
 * safe. */
int hl_limiter_process_rt(hl_limiter_t *l, float *buf, uint32_t frames);
/* The same on `channels` interleaved channels, one envelope for all (the
 * peak of every channel drives it: linked, the image does not move). */
int hl_limiter_process_n_rt(hl_limiter_t *l, float *buf, uint32_t frames, uint32_t channels);

#endif /* HL_DSP_H */
