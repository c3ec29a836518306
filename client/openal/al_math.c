/*
 * al_math.c - OpenAL's 3D math, computed here once for every source: the
 * listener's frame, the distance models with rolloff and clamping, cones,
 * relative sources, min/max gain, the listener's gain and Doppler give
 * each daemon voice one gain, one pan and one pitch (OpenAL 1.1, section
 * 3.4, with OpenAL Soft's order of clamping). The daemon's voices are 2D:
 * it only applies them. Mono sources are spatialised with the "openal"
 * pan law (proto/defs/hl_panlaw.h), stereo ones pass through.
 */
#include <math.h>

#include "al_int.h"
#include "hl_panlaw.h"

static float dot3(const float *a, const float *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const float *a, const float *b, float *o) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}
static int norm3(float *v) {
    const float n = sqrtf(dot3(v, v));
    if (!(n > 1e-12f)) return 0;
    v[0] /= n;
    v[1] /= n;
    v[2] /= n;
    return 1;
}

/* The distance attenuation of model m at distance d. */
static float attenuation(ALenum m, float d, float ref, float maxd, float rolloff) {
    switch (m) {
    case AL_INVERSE_DISTANCE_CLAMPED:
    case AL_LINEAR_DISTANCE_CLAMPED:
    case AL_EXPONENT_DISTANCE_CLAMPED:
        if (maxd < ref) break; /* no clamp range: unclamped */
        if (d < ref) d = ref;
        if (d > maxd) d = maxd;
        break;
    default: break;
    }
    switch (m) {
    case AL_INVERSE_DISTANCE:
    case AL_INVERSE_DISTANCE_CLAMPED: {
        if (!(ref > 0.0f)) return 1.0f;
        const float den = ref + rolloff * (d - ref);
        return den > 0.0f ? ref / den : 1.0f;
    }
    case AL_LINEAR_DISTANCE:
    case AL_LINEAR_DISTANCE_CLAMPED: {
        if (maxd == ref) return 1.0f;
        if (m == AL_LINEAR_DISTANCE && d > maxd) d = maxd;
        const float g = 1.0f - rolloff * (d - ref) / (maxd - ref);
        return g > 0.0f ? g : 0.0f;
    }
    case AL_EXPONENT_DISTANCE:
    case AL_EXPONENT_DISTANCE_CLAMPED:
        if (!(d > 0.0f) || !(ref > 0.0f)) return 1.0f;
        return powf(d / ref, -rolloff);
    default: /* AL_NONE */ return 1.0f;
    }
}

void alh_spatialise(const ALCcontext *c, const alh_source_t *s, int channels, int openal_law,
                    alh_voice_mix_t *out) {
    const alh_listener_t *lis = &c->lis;
    /* the source in the listener's frame: x right, y up, -z ahead */
    float fwd[3] = {lis->at[0], lis->at[1], lis->at[2]},
          up[3] = {lis->up[0], lis->up[1], lis->up[2]};
    float right[3];
    if (!norm3(fwd)) fwd[2] = -1.0f;
    cross3(fwd, up, right);
    if (!norm3(right)) right[0] = 1.0f, right[1] = right[2] = 0.0f;
    cross3(right, fwd, up);
    float rel[3], vs[3], vl[3] = {0, 0, 0}, dirw[3];
    if (s->relative) {
        for (int a = 0; a < 3; a++)
            rel[a] = s->pos[a], vs[a] = s->vel[a], dirw[a] = s->dir[a];
    } else {
        float p[3], v[3], dv[3];
        for (int a = 0; a < 3; a++)
            p[a] = s->pos[a] - lis->pos[a];
        for (int a = 0; a < 3; a++)
            v[a] = s->vel[a];
        for (int a = 0; a < 3; a++)
            dv[a] = s->dir[a];
        rel[0] = dot3(p, right), rel[1] = dot3(p, up), rel[2] = -dot3(p, fwd);
        vs[0] = dot3(v, right), vs[1] = dot3(v, up), vs[2] = -dot3(v, fwd);
        vl[0] = dot3(lis->vel, right), vl[1] = dot3(lis->vel, up), vl[2] = -dot3(lis->vel, fwd);
        dirw[0] = dot3(dv, right), dirw[1] = dot3(dv, up), dirw[2] = -dot3(dv, fwd);
    }
    const float dist = sqrtf(dot3(rel, rel));
    float gain = s->gain * attenuation(c->dist_model, dist, s->ref_dist, s->max_dist, s->rolloff);
    /* the cone: the angle between the source's direction and the way to
     * the listener, compared as a full angle with the inner and outer ones */
    if (norm3(dirw) && dist > 0.0f) {
        float to_lis[3] = {-rel[0] / dist, -rel[1] / dist, -rel[2] / dist};
        float cosang = dot3(dirw, to_lis);
        if (cosang > 1.0f) cosang = 1.0f;
        if (cosang < -1.0f) cosang = -1.0f;
        const float angle = acosf(cosang) * (360.0f / 3.14159265f);
        float cone = 1.0f;
        if (angle > s->cone_in && angle <= s->cone_out && s->cone_out > s->cone_in)
            cone = 1.0f +
                   (s->cone_out_gain - 1.0f) * (angle - s->cone_in) / (s->cone_out - s->cone_in);
        else if (angle > s->cone_out)
            cone = s->cone_out_gain;
        gain *= cone;
    }
    if (gain < s->min_gain) gain = s->min_gain;
    if (gain > s->max_gain) gain = s->max_gain;
    gain *= lis->gain;
    /* Doppler (OpenAL 1.1, 3.5.2): velocities along the source-to-listener line */
    float pitch = s->pitch;
    const float ss = c->sound_speed * c->doppler_vel, df = c->doppler;
    if (df > 0.0f && ss > 0.0f && dist > 0.0f) {
        const float sl[3] = {-rel[0] / dist, -rel[1] / dist, -rel[2] / dist};
        float vls = dot3(sl, vl), vss = dot3(sl, vs);
        const float vmax = ss / df;
        if (vls > vmax) vls = vmax;
        if (vss > vmax) vss = vmax;
        const float den = ss - df * vss;
        if (den > 0.0f) pitch *= (ss - df * vls) / den;
    }
    out->pitch = pitch;
    out->hrtf = 0;
    out->dir[0] = out->dir[1] = 0.0f, out->dir[2] = -1.0f; /* at the listener: ahead */
    if (dist > 0.0f)
        for (int a = 0; a < 3; a++)
            out->dir[a] = rel[a] / dist;
    if (channels == 1 && c->dev->hrtf_on) { /* the daemon's HRTF pans it */
        out->hrtf = 1;
        out->gain = gain;
        out->pan = 0.0f;
        return;
    }
    if (channels == 2) { /* stereo passes through at its gain */
        out->gain = gain;
        out->pan = 0.0f;
        return;
    }
    float l, r;
    hl_panlaw_openal_dir(rel, &l, &r);
    l *= gain;
    r *= gain;
    if (openal_law)
        hl_panlaw_openal_fit(l, r, &out->pan, &out->gain);
    else
        hl_panlaw_equal_power_fit(l, r, &out->pan, &out->gain);
}
