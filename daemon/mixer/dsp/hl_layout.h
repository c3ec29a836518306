/*
 * hl_layout.h - output speaker layouts: channel counts and order, the WAVE
 * channel mask, pairwise constant-power panning (VBAP in the horizontal
 * plane) over a layout's speakers, and the ITU-R BS.775 downmix matrices.
 *
 * Channel order is the WAVEFORMATEXTENSIBLE order of the layout's mask:
 *
 *   stereo  FL FR                      mask 0x003
 *   quad    FL FR BL BR                mask 0x033
 *   5.1     FL FR FC LFE BL BR         mask 0x03F
 *   7.1     FL FR FC LFE BL BR SL SR   mask 0x63F
 *   7.1.4   FL FR FC LFE BL BR SL SR TFL TFR TBL TBR   mask 0x2D63F
 *
 * Speaker azimuths (degrees, 0 = front, positive to the left, as the mixer's
 * listener frame): FL 30, FR -30, FC 0; 5.1's BL/BR 110/-110; quad's BL/BR
 * 135/-135; 7.1's SL/SR 90/-90 and BL/BR 150/-150. LFE has no direction:
 * panning never feeds it. 7.1.4 is 7.1's bed plus four top speakers at
 * elevation 45 degrees: TFL 45, TFR -45, TBL 135, TBR -135.
 *
 * Panning (hl_layout_pan): the direction falls between two adjacent
 * speakers of the ring (LFE left out); their gains are cos/sin of the
 * fraction of the arc, scaled to a quarter turn, so g1^2 + g2^2 = 1 exactly
 * (constant power) and every other speaker gets 0. This is the sine/cosine
 * pairwise law (a constant-power equivalent of 2D VBAP: same pair, same
 * power, the image follows the arc linearly rather than by the tangent law).
 *
 * Height (hl_layout_pan3, 7.1.4): VBAP over speaker triplets. The upper
 * hemisphere is cut into 13 fixed triangles (bed ring to top ring in a
 * zipper, the top square along its TFL-TBR diagonal); a direction gets the
 * gains g of the triangle that holds it (g = p L^-1, L the triangle's
 * speaker unit vectors), normalised so g1^2 + g2^2 + g3^2 = 1 (constant
 * power): at most three speakers carry energy, a direction at ear height
 * (elevation 0) lies on a bed edge and gets the bed pair alone (by VBAP's
 * tangent law, not hl_layout_pair's sine law: no jump as it rises), one
 * at a speaker gets that speaker alone. There are no speakers below the
 * ear plane: a direction below it is panned as its projection onto that
 * plane (straight down, or no direction: the centre).
 *
 * Downmix (hl_layout_downmix): the BS.775 coefficients, centre and surrounds
 * at -3 dB (0.7071) into the front pair (or the surround pair of a quad),
 * 7.1's side and back pairs each at 0.7071 into 5.1's surround pair, LFE
 * dropped; 7.1.4's top speakers each at 0.7071 into the bed speaker below
 * them (TFL -> FL, TFR -> FR, TBL -> BL, TBR -> BR), the bed unchanged. Pure functions: safe on any
 * thread.
 */
#ifndef HL_LAYOUT_H
#define HL_LAYOUT_H

#include <stdint.h>

#define HL_LAYOUT_MAX_CH 12 /* 7.1.4 */

typedef enum {
    HL_LAYOUT_STEREO = 0,
    HL_LAYOUT_QUAD,
    HL_LAYOUT_51,
    HL_LAYOUT_71,
    HL_LAYOUT_714,
    HL_LAYOUT_COUNT
} hl_layout_t;

/* Speaker positions (the WAVE channel-mask bits). */
#define HL_SPK_FL  0x001u
#define HL_SPK_FR  0x002u
#define HL_SPK_FC  0x004u
#define HL_SPK_LFE 0x008u
#define HL_SPK_BL  0x010u
#define HL_SPK_BR  0x020u
#define HL_SPK_SL  0x200u
#define HL_SPK_SR  0x400u
#define HL_SPK_TFL 0x1000u
#define HL_SPK_TFR 0x4000u
#define HL_SPK_TBL 0x8000u
#define HL_SPK_TBR 0x20000u

/* "stereo", "quad", "5.1", "7.1", "7.1.4" -> layout, or -1. */
int hl_layout_parse(const char *name);
const char *hl_layout_name(hl_layout_t l);  /* NULL if out of range */
uint32_t hl_layout_channels(hl_layout_t l); /* 0 if out of range */
uint32_t hl_layout_mask(hl_layout_t l);     /* WAVE dwChannelMask */
/* The speaker (HL_SPK_*) on channel ch, 0 if none. */
uint32_t hl_layout_speaker(hl_layout_t l, uint32_t ch);
/* The channel of speaker spk, or -1. */
int hl_layout_channel_of(hl_layout_t l, uint32_t spk);
/* The layout with this channel count in hl_layout_t's list (1 -> -1). */
int hl_layout_for_channels(uint32_t channels);

/* The pair of speakers bracketing azimuth az (radians, 0 = front,
 * positive to the left) and their constant-power gains: cl is the one
 * counter-clockwise (to the left seen from the listener facing the arc),
 * cr the other; gl^2 + gr^2 = 1. A layout without 2 speakers gives
 * channels 0, 1 at gain 0. Pure (any thread, the audio thread too). */
typedef struct {
    uint8_t cl, cr;
    float gl, gr;
} hl_layout_pair_t;
void hl_layout_pair(hl_layout_t l, float az, hl_layout_pair_t *p);

/* Constant-power gains for a source at azimuth az (radians, 0 = front,
 * positive to the left) into g[hl_layout_channels(l)]: two speakers at
 * most are non-zero; LFE is 0. */
void hl_layout_pan(hl_layout_t l, float az, float *g);

/* 1 if the layout has speakers above the ear plane (7.1.4). */
int hl_layout_has_height(hl_layout_t l);

/* VBAP with height (see Height above) for direction dir in the listener's
 * frame (x right, y up, z back; any length, (0,0,0) = front): the three
 * channels ch[] and their gains g[] (g[0]^2 + g[1]^2 + g[2]^2 = 1, each
 * >= 0; a speaker not used has gain 0). On a layout without height it is
 * hl_layout_pair of the direction's azimuth, g[2] = 0. Pure (any thread). */
typedef struct {
    uint8_t ch[3];
    float g[3];
} hl_layout_tri_t;
void hl_layout_pan3(hl_layout_t l, const float dir[3], hl_layout_tri_t *t);
/* hl_layout_pan3 into g[hl_layout_channels(l)] (0 elsewhere). */
void hl_layout_pan_dir(hl_layout_t l, const float dir[3], float *g);

/* The BS.775 matrix from layout `from` to layout `to` (from's channels at
 * least to's): m[o * HL_LAYOUT_MAX_CH + i] is input channel i's gain into
 * output channel o. from == to gives the identity. Returns 0, or -1 when
 * to has more channels than from. */
int hl_layout_downmix(hl_layout_t from, hl_layout_t to, float *m);

/* Audio thread: stereo frames st[2 * n] into out[channels * n], L and R to
 * the front pair, the other channels zero (a stereo mix on a wider layout). */
void hl_layout_expand_rt(const float *st, float *out, uint32_t n, uint32_t channels);

#endif /* HL_LAYOUT_H */
