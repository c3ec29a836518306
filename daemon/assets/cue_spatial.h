/*
 * cue_spatial.h - a cue sheet's spatial keys (cue_spatial.c): the sound
 * cone and the custom attenuation curve of a cue's voices, as CONE and
 * ATTEN (protocol 1.1) set them on the wire:
 *
 *   cone        = X,Y,Z INNER OUTER OUTER_GAIN [OUTER_LP_HZ]
 *   attenuation   = D:DB [D:DB ...]    (1..8 points, metres and dB)
 *   distance-lp   = D:HZ [D:HZ ...]    (low-pass cutoff by distance, Hz)
 *   distance-send = D:DB [D:DB ...]    (the sends' level by distance, dB)
 *
 * checked by the wire's validators (hl_validate_cone, hl_validate_atten).
 * Main thread only.
 */
#ifndef HLD_CUE_SPATIAL_H
#define HLD_CUE_SPATIAL_H

#include <stdint.h>

#include "cues.h"

typedef struct {
    float cone[7]; /* dir x3, inner, outer, outer gain, outer low-pass; dir 0 = none */
    uint32_t cone_line;
    /* the distance curves by ATTEN kind (gain, low-pass, send): points,
     * 0 = none (the distance model for the gain) */
    uint32_t curve_n[3];
    float curve_d[3][8], curve_v[3][8];
    uint32_t curve_line[3];
} hld_cue_spatial_t;

/* One key of a [cue] section at `line`: 1 when it was a spatial key and
 * is taken, 0 when it is not one of them, -1 when refused: *prev the line
 * that set it already (a repeat), else *why the reason. */
int hld_cue_spatial_key(hld_cue_spatial_t *s, const char *key, const char *val, uint32_t line,
                        uint32_t *prev, const char **why);
/* Gives the cue what the section said (a section without a key clears it:
 * a sheet says all of its cue). */
void hld_cue_spatial_apply(const hld_cue_spatial_t *s, hld_cue_t *cue);

#endif /* HLD_CUE_SPATIAL_H */
