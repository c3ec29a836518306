/*
 * al_state.c - heliod's OpenAL library: the context's global state (errors,
 * strings, distance model, Doppler, speed of sound), the listener, and the
 * name queries (alGetProcAddress, alGetEnumValue, alIsExtensionPresent).
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "al_int.h"

void *alh_proc(const char *name);
int alh_enum(const char *name, int *value);

static const char al_extensions[] =
    "AL_EXT_FLOAT32 AL_EXT_OFFSET AL_EXT_LINEAR_DISTANCE "
    "AL_EXT_EXPONENT_DISTANCE AL_EXT_MCFORMATS AL_SOFT_direct_channels";

/* Every entry point: lock, the current context (an error-less return when
 * there is none, as OpenAL Soft). */
#define ENTER(ret)                                                                                 \
    alh_lock();                                                                                    \
    ALCcontext *c = alh_ctx();                                                                     \
    if (!c) {                                                                                      \
        alh_unlock();                                                                              \
        return ret;                                                                                \
    }
#define LEAVE(ret)                                                                                 \
    do {                                                                                           \
        alh_unlock();                                                                              \
        return ret;                                                                                \
    } while (0)

ALH_EXPORT ALenum AL_APIENTRY alGetError(void) {
    ENTER(AL_INVALID_OPERATION);
    const ALenum e = c->error;
    c->error = AL_NO_ERROR;
    LEAVE(e);
}

ALH_EXPORT void AL_APIENTRY alEnable(ALenum capability) {
    ENTER();
    (void)capability;
    alh_set_error(c, AL_INVALID_ENUM); /* no capability is implemented */
    LEAVE();
}
ALH_EXPORT void AL_APIENTRY alDisable(ALenum capability) {
    ENTER();
    (void)capability;
    alh_set_error(c, AL_INVALID_ENUM);
    LEAVE();
}
ALH_EXPORT ALboolean AL_APIENTRY alIsEnabled(ALenum capability) {
    ENTER(AL_FALSE);
    (void)capability;
    alh_set_error(c, AL_INVALID_ENUM);
    LEAVE(AL_FALSE);
}

ALH_EXPORT const ALchar *AL_APIENTRY alGetString(ALenum param) {
    ENTER(NULL);
    const char *s = NULL;
    switch (param) {
    case AL_VENDOR: s = "heliod"; break;
    case AL_VERSION: s = "1.1 heliod " HELIOD_VERSION_STRING; break;
    case AL_RENDERER: s = "heliod"; break;
    case AL_EXTENSIONS: s = al_extensions; break;
    case AL_NO_ERROR: s = "No Error"; break;
    case AL_INVALID_NAME: s = "Invalid Name"; break;
    case AL_INVALID_ENUM: s = "Invalid Enum"; break;
    case AL_INVALID_VALUE: s = "Invalid Value"; break;
    case AL_INVALID_OPERATION: s = "Invalid Operation"; break;
    case AL_OUT_OF_MEMORY: s = "Out of Memory"; break;
    default: alh_set_error(c, AL_INVALID_ENUM); break;
    }
    LEAVE(s);
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
    ENTER();
    double v;
    if (!values)
        alh_set_error(c, AL_INVALID_VALUE);
    else if (get_state(c, param, &v))
        values[0] = v;
    LEAVE();
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
ALH_EXPORT ALboolean AL_APIENTRY alGetBoolean(ALenum param) {
    ALboolean b = AL_FALSE;
    alGetBooleanv(param, &b);
    return b;
}
ALH_EXPORT ALint AL_APIENTRY alGetInteger(ALenum param) {
    ALint i = 0;
    alGetIntegerv(param, &i);
    return i;
}
ALH_EXPORT ALfloat AL_APIENTRY alGetFloat(ALenum param) {
    ALfloat f = 0;
    alGetFloatv(param, &f);
    return f;
}
ALH_EXPORT ALdouble AL_APIENTRY alGetDouble(ALenum param) {
    ALdouble d = 0;
    alGetDoublev(param, &d);
    return d;
}

static void set_positive(ALenum which, ALfloat value) {
    ENTER();
    if (!(value >= 0.0f) || !isfinite(value) || (which != AL_DOPPLER_FACTOR && value == 0.0f)) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    if (which == AL_DOPPLER_FACTOR) c->doppler = value;
    if (which == AL_DOPPLER_VELOCITY) c->doppler_vel = value;
    if (which == AL_SPEED_OF_SOUND) c->sound_speed = value;
    alh_sources_respatialise(c);
    LEAVE();
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
    ENTER();
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
    LEAVE();
}

ALH_EXPORT ALboolean AL_APIENTRY alIsExtensionPresent(const ALchar *extname) {
    ENTER(AL_FALSE);
    if (!extname) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE(AL_FALSE);
    }
    const size_t n = strlen(extname);
    ALboolean found = AL_FALSE;
    for (const char *p = al_extensions; *p && n;) {
        const char *e = strchr(p, ' ');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncasecmp(p, extname, n) == 0) found = AL_TRUE;
        p += len;
        while (*p == ' ')
            p++;
    }
    LEAVE(found);
}

ALH_EXPORT void *AL_APIENTRY alGetProcAddress(const ALchar *fname) {
    ENTER(NULL);
    void *f = alh_proc(fname);
    if (!fname) alh_set_error(c, AL_INVALID_VALUE);
    LEAVE(f);
}

ALH_EXPORT ALenum AL_APIENTRY alGetEnumValue(const ALchar *ename) {
    ENTER(0);
    int v = 0;
    if (!alh_enum(ename, &v)) alh_set_error(c, AL_INVALID_VALUE);
    LEAVE(v);
}

/* ---- the listener ---- */
static int finite3(const float *v) {
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

ALH_EXPORT void AL_APIENTRY alListenerfv(ALenum param, const ALfloat *values) {
    ENTER();
    if (!values) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
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
    default: alh_set_error(c, AL_INVALID_ENUM); LEAVE();
    }
    alh_sources_respatialise(c);
    LEAVE();
bad:
    alh_set_error(c, AL_INVALID_VALUE);
    LEAVE();
}
ALH_EXPORT void AL_APIENTRY alListenerf(ALenum param, ALfloat value) {
    if (param != AL_GAIN) {
        alh_lock();
        ALCcontext *c = alh_ctx();
        alh_set_error(c, AL_INVALID_ENUM);
        alh_unlock();
        return;
    }
    alListenerfv(param, &value);
}
ALH_EXPORT void AL_APIENTRY alListener3f(ALenum param, ALfloat v1, ALfloat v2, ALfloat v3) {
    if (param != AL_POSITION && param != AL_VELOCITY) {
        alh_lock();
        ALCcontext *c = alh_ctx();
        alh_set_error(c, AL_INVALID_ENUM);
        alh_unlock();
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
        alh_lock();
        alh_set_error(alh_ctx(), AL_INVALID_ENUM);
        alh_unlock();
        return;
    }
    alListenerfv(param, f);
}
ALH_EXPORT void AL_APIENTRY alListeneri(ALenum param, ALint value) {
    (void)value;
    alh_lock();
    alh_set_error(alh_ctx(), param == AL_GAIN ? AL_INVALID_ENUM : AL_INVALID_ENUM);
    alh_unlock();
}
ALH_EXPORT void AL_APIENTRY alListener3i(ALenum param, ALint v1, ALint v2, ALint v3) {
    const ALint v[3] = {v1, v2, v3};
    if (param != AL_POSITION && param != AL_VELOCITY) {
        alh_lock();
        alh_set_error(alh_ctx(), AL_INVALID_ENUM);
        alh_unlock();
        return;
    }
    alListeneriv(param, v);
}

ALH_EXPORT void AL_APIENTRY alGetListenerfv(ALenum param, ALfloat *values) {
    ENTER();
    if (!values) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
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
    LEAVE();
}
ALH_EXPORT void AL_APIENTRY alGetListenerf(ALenum param, ALfloat *value) {
    if (param != AL_GAIN) {
        alh_lock();
        alh_set_error(alh_ctx(), value ? AL_INVALID_ENUM : AL_INVALID_VALUE);
        alh_unlock();
        return;
    }
    alGetListenerfv(param, value);
}
ALH_EXPORT void AL_APIENTRY alGetListener3f(ALenum param, ALfloat *v1, ALfloat *v2, ALfloat *v3) {
    ALfloat v[3] = {0, 0, 0};
    if (!v1 || !v2 || !v3 || (param != AL_POSITION && param != AL_VELOCITY)) {
        alh_lock();
        alh_set_error(alh_ctx(), !v1 || !v2 || !v3 ? AL_INVALID_VALUE : AL_INVALID_ENUM);
        alh_unlock();
        return;
    }
    alGetListenerfv(param, v);
    *v1 = v[0], *v2 = v[1], *v3 = v[2];
}
ALH_EXPORT void AL_APIENTRY alGetListeneriv(ALenum param, ALint *values) {
    ALfloat f[6] = {0};
    if (!values || param == AL_GAIN) {
        alh_lock();
        alh_set_error(alh_ctx(), !values ? AL_INVALID_VALUE : AL_INVALID_ENUM);
        alh_unlock();
        return;
    }
    alGetListenerfv(param, f);
    const int n = param == AL_ORIENTATION ? 6 : 3;
    for (int i = 0; i < n; i++)
        values[i] = (ALint)f[i];
}
ALH_EXPORT void AL_APIENTRY alGetListeneri(ALenum param, ALint *value) {
    (void)param;
    alh_lock();
    alh_set_error(alh_ctx(), value ? AL_INVALID_ENUM : AL_INVALID_VALUE);
    alh_unlock();
}
ALH_EXPORT void AL_APIENTRY alGetListener3i(ALenum param, ALint *v1, ALint *v2, ALint *v3) {
    ALint v[3] = {0, 0, 0};
    if (!v1 || !v2 || !v3 || (param != AL_POSITION && param != AL_VELOCITY)) {
        alh_lock();
        alh_set_error(alh_ctx(), !v1 || !v2 || !v3 ? AL_INVALID_VALUE : AL_INVALID_ENUM);
        alh_unlock();
        return;
    }
    alGetListeneriv(param, v);
    *v1 = v[0], *v2 = v[1], *v3 = v[2];
}
