/*
 * al_state.c - heliod's OpenAL library: the context's global state (errors,
 * strings, distance model, Doppler, speed of sound), the listener, and
 * alIsExtensionPresent.
 */
#include <math.h>
#include <string.h>

#include "al_int.h"

static const char al_extensions[] =
    "AL_EXT_FLOAT32 AL_EXT_OFFSET AL_EXT_LINEAR_DISTANCE "
    "AL_EXT_EXPONENT_DISTANCE AL_EXT_MCFORMATS AL_SOFT_direct_channels";

ALH_EXPORT ALenum AL_APIENTRY alGetError(void) {
    ALH_ENTER(AL_INVALID_OPERATION);
    const ALenum e = c->error;
    c->error = AL_NO_ERROR;
    ALH_LEAVE(e);
}

ALH_EXPORT void AL_APIENTRY alEnable(ALenum capability) {
    ALH_ENTER();
    (void)capability;
    alh_set_error(c, AL_INVALID_ENUM); /* no capability is implemented */
    ALH_LEAVE();
}
ALH_EXPORT void AL_APIENTRY alDisable(ALenum capability) {
    ALH_ENTER();
    (void)capability;
    alh_set_error(c, AL_INVALID_ENUM);
    ALH_LEAVE();
}
ALH_EXPORT ALboolean AL_APIENTRY alIsEnabled(ALenum capability) {
    ALH_ENTER(AL_FALSE);
    (void)capability;
    alh_set_error(c, AL_INVALID_ENUM);
    ALH_LEAVE(AL_FALSE);
}

ALH_EXPORT const ALchar *AL_APIENTRY alGetString(ALenum param) {
    ALH_ENTER(NULL);
    const char *s = NULL;
    switch (param) {
    case AL_VENDOR: s = "heliod"; break;
    case AL_VERSION: s = "1.1 heliod " HELIOD_VERSION_STRING; break;
    case AL_RENDERER: s = "heliod"; break;
    case AL_EXTENSIONS: s = al_extensions; break;
    default:
        if (!(s = alh_error_text(param, 0))) alh_set_error(c, AL_INVALID_ENUM);
        break;
    }
    ALH_LEAVE(s);
}

/* A global double parameter; 0 and an error if unknown. */
static int get_state(ALCcontext *c, ALenum p, double *v) {
    switch (p) {
    case AL_DOPPLER_FACTOR: *v = c->doppler; return 1;
    case AL_DOPPLER_VELOCITY: *v = c->doppler_vel; return 1;
    case AL_SPEED_OF_SOUND: *v = c->sound_speed; return 1;
    case AL_DISTANCE_MODEL: *v = c->dist_model; return 1;
    default: alh_set_error(c, AL_INVALID_ENUM); return 0;
    }
}

ALH_EXPORT void AL_APIENTRY alGetDoublev(ALenum param, ALdouble *values) {
    ALH_ENTER();
    double v;
    if (!values)
        alh_set_error(c, AL_INVALID_VALUE);
    else if (get_state(c, param, &v))
        values[0] = v;
    ALH_LEAVE();
}
ALH_EXPORT void AL_APIENTRY alGetFloatv(ALenum param, ALfloat *values) {
    double v = 0;
    alGetDoublev(param, values ? &v : NULL);
    if (values) values[0] = (float)v;
}
ALH_EXPORT void AL_APIENTRY alGetIntegerv(ALenum param, ALint *values) {
    double v = 0;
    alGetDoublev(param, values ? &v : NULL);
    if (values) values[0] = (ALint)v;
}
ALH_EXPORT void AL_APIENTRY alGetBooleanv(ALenum param, ALboolean *values) {
    double v = 0;
    alGetDoublev(param, values ? &v : NULL);
    if (values) values[0] = v != 0 ? AL_TRUE : AL_FALSE;
}
/* A global parameter, 0 if unknown (the error set). */
static double state_of(ALenum param) {
    double v = 0;
    alGetDoublev(param, &v);
    return v;
}
ALH_EXPORT ALboolean AL_APIENTRY alGetBoolean(ALenum param) {
    ALboolean b = AL_FALSE; /* read back from memory: returned zero-extended */
    alGetBooleanv(param, &b);
    return b;
}
ALH_EXPORT ALint AL_APIENTRY alGetInteger(ALenum param) {
    return (ALint)state_of(param);
}
ALH_EXPORT ALfloat AL_APIENTRY alGetFloat(ALenum param) {
    return (ALfloat)state_of(param);
}
ALH_EXPORT ALdouble AL_APIENTRY alGetDouble(ALenum param) {
    return state_of(param);
}

static void set_positive(ALenum which, ALfloat value) {
    ALH_ENTER();
    if (!(value >= 0.0f) || !isfinite(value) || (which != AL_DOPPLER_FACTOR && value == 0.0f)) {
        alh_set_error(c, AL_INVALID_VALUE);
        ALH_LEAVE();
    }
    if (which == AL_DOPPLER_FACTOR) c->doppler = value;
    if (which == AL_DOPPLER_VELOCITY) c->doppler_vel = value;
    if (which == AL_SPEED_OF_SOUND) c->sound_speed = value;
    alh_sources_respatialise(c);
    ALH_LEAVE();
}
ALH_EXPORT void AL_APIENTRY alDopplerFactor(ALfloat value) {
    set_positive(AL_DOPPLER_FACTOR, value);
}
ALH_EXPORT void AL_APIENTRY alDopplerVelocity(ALfloat value) {
    set_positive(AL_DOPPLER_VELOCITY, value);
}
ALH_EXPORT void AL_APIENTRY alSpeedOfSound(ALfloat value) {
    set_positive(AL_SPEED_OF_SOUND, value);
}
ALH_EXPORT void AL_APIENTRY alDistanceModel(ALenum model) {
    ALH_ENTER();
    switch (model) {
    case AL_NONE:
    case AL_INVERSE_DISTANCE:
    case AL_INVERSE_DISTANCE_CLAMPED:
    case AL_LINEAR_DISTANCE:
    case AL_LINEAR_DISTANCE_CLAMPED:
    case AL_EXPONENT_DISTANCE:
    case AL_EXPONENT_DISTANCE_CLAMPED:
        c->dist_model = model;
        alh_sources_respatialise(c);
        break;
    default: alh_set_error(c, AL_INVALID_VALUE); break;
    }
    ALH_LEAVE();
}

ALH_EXPORT ALboolean AL_APIENTRY alIsExtensionPresent(const ALchar *extname) {
    ALH_ENTER(AL_FALSE);
    if (!extname) {
        alh_set_error(c, AL_INVALID_VALUE);
        ALH_LEAVE(AL_FALSE);
    }
    const int found = alh_ext_in(al_extensions, extname);
    ALH_LEAVE((ALboolean)found);
}

/* ---- the listener ---- */
static int finite3(const float *v) {
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

ALH_EXPORT void AL_APIENTRY alListenerfv(ALenum param, const ALfloat *values) {
    ALH_ENTER();
    if (!values) {
        alh_set_error(c, AL_INVALID_VALUE);
        ALH_LEAVE();
    }
    alh_listener_t *l = &c->lis;
    switch (param) {
    case AL_GAIN:
        if (!(values[0] >= 0.0f) || !isfinite(values[0])) goto bad;
        l->gain = values[0];
        break;
    case AL_POSITION:
        if (!finite3(values)) goto bad;
        memcpy(l->pos, values, sizeof l->pos);
        break;
    case AL_VELOCITY:
        if (!finite3(values)) goto bad;
        memcpy(l->vel, values, sizeof l->vel);
        break;
    case AL_ORIENTATION:
        if (!finite3(values) || !finite3(values + 3)) goto bad;
        memcpy(l->at, values, sizeof l->at);
        memcpy(l->up, values + 3, sizeof l->up);
        break;
    default: alh_set_error(c, AL_INVALID_ENUM); ALH_LEAVE();
    }
    alh_sources_respatialise(c);
    ALH_LEAVE();
bad:
    alh_set_error(c, AL_INVALID_VALUE);
    ALH_LEAVE();
}
ALH_EXPORT void AL_APIENTRY alListenerf(ALenum param, ALfloat value) {
    if (param != AL_GAIN) {
        alh_error(AL_INVALID_ENUM);
        return;
    }
    alListenerfv(param, &value);
}
ALH_EXPORT void AL_APIENTRY alListener3f(ALenum param, ALfloat v1, ALfloat v2, ALfloat v3) {
    if (param != AL_POSITION && param != AL_VELOCITY) {
        alh_error(AL_INVALID_ENUM);
        return;
    }
    const ALfloat v[3] = {v1, v2, v3};
    alListenerfv(param, v);
}
ALH_EXPORT void AL_APIENTRY alListeneriv(ALenum param, const ALint *values) {
    if (!values) {
        alListenerfv(param, NULL);
        return;
    }
    ALfloat f[6];
    const int n = param == AL_ORIENTATION ? 6 : param == AL_GAIN ? 1 : 3;
    for (int i = 0; i < n; i++)
        f[i] = (ALfloat)values[i];
    if (param == AL_GAIN) { /* no integer form of AL_GAIN */
        alh_error(AL_INVALID_ENUM);
        return;
    }
    alListenerfv(param, f);
}
ALH_EXPORT void AL_APIENTRY alListeneri(ALenum param, ALint value) {
    (void)param, (void)value;
    alh_error(AL_INVALID_ENUM); /* no integer scalar listener parameter */
}
ALH_EXPORT void AL_APIENTRY alListener3i(ALenum param, ALint v1, ALint v2, ALint v3) {
    const ALint v[3] = {v1, v2, v3};
    if (param != AL_POSITION && param != AL_VELOCITY) {
        alh_error(AL_INVALID_ENUM);
        return;
    }
    alListeneriv(param, v);
}

ALH_EXPORT void AL_APIENTRY alGetListenerfv(ALenum param, ALfloat *values) {
    ALH_ENTER();
    if (!values) {
        alh_set_error(c, AL_INVALID_VALUE);
        ALH_LEAVE();
    }
    const alh_listener_t *l = &c->lis;
    switch (param) {
    case AL_GAIN: values[0] = l->gain; break;
    case AL_POSITION: memcpy(values, l->pos, sizeof l->pos); break;
    case AL_VELOCITY: memcpy(values, l->vel, sizeof l->vel); break;
    case AL_ORIENTATION:
        memcpy(values, l->at, sizeof l->at);
        memcpy(values + 3, l->up, sizeof l->up);
        break;
    default: alh_set_error(c, AL_INVALID_ENUM); break;
    }
    ALH_LEAVE();
}
ALH_EXPORT void AL_APIENTRY alGetListenerf(ALenum param, ALfloat *value) {
    if (param != AL_GAIN) {
        alh_error(value ? AL_INVALID_ENUM : AL_INVALID_VALUE);
        return;
    }
    alGetListenerfv(param, value);
}
/* alGetListener3f/3i: three pointers (ptrs) and a 3-vector parameter, else
 * the error (not locked). */
static int get3_ok(ALenum param, int ptrs) {
    if (ptrs && (param == AL_POSITION || param == AL_VELOCITY)) return 1;
    alh_error(!ptrs ? AL_INVALID_VALUE : AL_INVALID_ENUM);
    return 0;
}

ALH_EXPORT void AL_APIENTRY alGetListener3f(ALenum param, ALfloat *v1, ALfloat *v2, ALfloat *v3) {
    ALfloat v[3] = {0, 0, 0};
    if (!get3_ok(param, v1 && v2 && v3)) return;
    alGetListenerfv(param, v);
    *v1 = v[0], *v2 = v[1], *v3 = v[2];
}
ALH_EXPORT void AL_APIENTRY alGetListeneriv(ALenum param, ALint *values) {
    ALfloat f[6] = {0};
    if (!values || param == AL_GAIN) {
        alh_error(!values ? AL_INVALID_VALUE : AL_INVALID_ENUM);
        return;
    }
    alGetListenerfv(param, f);
    const int n = param == AL_ORIENTATION ? 6 : 3;
    for (int i = 0; i < n; i++)
        values[i] = (ALint)f[i];
}
ALH_EXPORT void AL_APIENTRY alGetListeneri(ALenum param, ALint *value) {
    (void)param;
    alh_error(value ? AL_INVALID_ENUM : AL_INVALID_VALUE);
}
ALH_EXPORT void AL_APIENTRY alGetListener3i(ALenum param, ALint *v1, ALint *v2, ALint *v3) {
    ALint v[3] = {0, 0, 0};
    if (!get3_ok(param, v1 && v2 && v3)) return;
    alGetListeneriv(param, v);
    *v1 = v[0], *v2 = v[1], *v3 = v[2];
}
