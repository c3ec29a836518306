/*
 * hl_panlaw.h - the "openal" pan law (PLAY pan_law 1): how a mono voice's
 * pan in [-1, 1] becomes the gains of the left and right channels when a
 * game was mixed by ear on OpenAL Soft's stereo output.
 *
 * Measured on OpenAL Soft 1.19.1's loopback device (ALC_SOFT_loopback, a
 * mono source at 1 m, no distance attenuation, 73 azimuths every 5 degrees
 * and three elevations), its stereo output is, for a source in direction
 * azimuth az (0 ahead, positive to the right) and elevation el:
 *
 *     az' = sign(az) * min(1.5 |az|, 90 deg)   for |az| < 90 deg (the front
 *           stage is widened by 1.5), az' = az behind
 *     L   = max(0, 1/2 + F cos(el) cos(az') - 1/2 cos(el) sin(az'))
 *     R   = max(0, 1/2 + F cos(el) cos(az') + 1/2 cos(el) sin(az'))
 *
 * with F = 0.0956571 (what a centred source gets above 1/2: 0.596 per
 * channel, -4.5 dB; a source behind gets 0.404). 30 deg to one side gives
 * 0.214 and 0.921, 12.7 dB apart. The measurement and the formula agree to
 * 1e-4 at every point measured.
 *
 * As a 2D pan law, pan p is the azimuth p x 90 deg in front, at elevation 0:
 * pan 0 is the centre (0.596, 0.596), pan +-1/3 is 30 deg, pan +-2/3 and
 * beyond is hard right or left (0, 1). The OpenAL library computes the
 * direction's (L, R) with hl_panlaw_openal_dir and turns it into the voice's
 * pan and gain with hl_panlaw_openal_fit; the mixer applies hl_panlaw_openal.
 * Header only, no state: the real-time mixer may call it.
 */
#ifndef HL_PANLAW_H
#define HL_PANLAW_H

#include <math.h>

#define HL_PAN_LAW_HELIOD 0 /* equal power: 0.707 per channel at the centre */
#define HL_PAN_LAW_OPENAL 1 /* OpenAL Soft's stereo output, above */
#define HL_PANLAW_F       0.0956571f
#define HL_PANLAW_PI_2    1.57079632679f

/* Gains of a direction given by the sine and cosine of its widened azimuth
 * and the cosine of its elevation. */
static inline void hl_panlaw_openal_gains(float s, float c, float ce, float *l, float *r) {
    const float front = 0.5f + HL_PANLAW_F * ce * c, side = 0.5f * ce * s;
    *l = front - side > 0.0f ? front - side : 0.0f;
    *r = front + side > 0.0f ? front + side : 0.0f;
}

/* The law: pan in [-1, 1] (clamped) -> left and right gains. */
static inline void hl_panlaw_openal(float pan, float *l, float *r) {
    if (!(pan >= -1.0f)) pan = -1.0f; /* NaN too */
    if (pan > 1.0f) pan = 1.0f;
    float az = 1.5f * pan * HL_PANLAW_PI_2;
    if (az > HL_PANLAW_PI_2) az = HL_PANLAW_PI_2;
    if (az < -HL_PANLAW_PI_2) az = -HL_PANLAW_PI_2;
    hl_panlaw_openal_gains(sinf(az), cosf(az), 1.0f, l, r);
}

/* (L, R) of a unit direction in the listener's frame (x right, y up, -z
 * ahead); the zero vector is straight ahead. */
static inline void hl_panlaw_openal_dir(const float d[3], float *l, float *r) {
    float n = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(n > 1e-9f)) {
        hl_panlaw_openal_gains(0.0f, 1.0f, 1.0f, l, r);
        return;
    }
    const float x = d[0] / n, y = d[1] / n, z = d[2] / n;
    float ce = sqrtf(x * x + z * z);
    if (ce > 1.0f) ce = 1.0f;
    float az = atan2f(x, -z);
    if (fabsf(az) < HL_PANLAW_PI_2) {
        az *= 1.5f;
        if (az > HL_PANLAW_PI_2) az = HL_PANLAW_PI_2;
        if (az < -HL_PANLAW_PI_2) az = -HL_PANLAW_PI_2;
    }
    (void)y;
    hl_panlaw_openal_gains(sinf(az), cosf(az), ce, l, r);
}

/* The pan p and gain g with which hl_panlaw_openal(p) x g gives (l, r).
 * The ratio k = quiet / loud side fixes the widened azimuth a in [0, 90 deg]:
 * with q = (1 - k) / (1 + k), the law's ratio gives sin a - 2 q F cos a = q,
 * so a = atan(2 q F) + asin(q / sqrt(1 + (2 q F)^2)); the sum fixes g. */
static inline void hl_panlaw_openal_fit(float l, float r, float *pan, float *gain) {
    if (!(l + r > 1e-30f)) {
        *pan = 0.0f;
        *gain = 0.0f;
        return;
    }
    const float lo = l < r ? l : r, hi = l < r ? r : l;
    const float k = lo / hi, q = (1.0f - k) / (1.0f + k), A = 2.0f * q * HL_PANLAW_F;
    float x = q / sqrtf(1.0f + A * A);
    if (x > 1.0f) x = 1.0f;
    float a = atanf(A) + asinf(x);
    if (a > HL_PANLAW_PI_2) a = HL_PANLAW_PI_2;
    const float p = a / (1.5f * HL_PANLAW_PI_2);
    float ql, qr;
    hl_panlaw_openal(p, &ql, &qr);
    *pan = r >= l ? p : -p;
    *gain = (l + r) / (ql + qr);
}

/* The same fit for the equal-power law (a daemon without pan laws):
 * l = g cos((p + 1) pi / 4), r = g sin((p + 1) pi / 4). */
static inline void hl_panlaw_equal_power_fit(float l, float r, float *pan, float *gain) {
    if (!(l + r > 1e-30f)) {
        *pan = 0.0f;
        *gain = 0.0f;
        return;
    }
    const float t = atan2f(r, l); /* [0, pi/2] */
    *pan = t / (HL_PANLAW_PI_2 / 2.0f) - 1.0f;
    *gain = sqrtf(l * l + r * r);
}

#endif
