/*
 * al_names.c - heliod's OpenAL library: its names, for programs that look
 * entry points and enums up at run time (alGetProcAddress,
 * alcGetProcAddress, alGetEnumValue, alcGetEnumValue). The name table
 * points at every entry point of the library: this file stands above all
 * the others and nothing calls into it.
 */
#include <string.h>

#include <AL/alext.h>

#include "al_int.h"

// clang-format off
#define ALH_FUNCS(X) \
    X(alBuffer3f) X(alBuffer3i) X(alBufferData) X(alBufferf) X(alBufferfv) X(alBufferi)            \
    X(alBufferiv) X(alDeleteBuffers) X(alDeleteSources) X(alDisable) X(alDistanceModel)            \
    X(alDopplerFactor) X(alDopplerVelocity) X(alEnable) X(alGenBuffers) X(alGenSources)            \
    X(alGetBoolean) X(alGetBooleanv) X(alGetBuffer3f) X(alGetBuffer3i) X(alGetBufferf)             \
    X(alGetBufferfv) X(alGetBufferi) X(alGetBufferiv) X(alGetDouble) X(alGetDoublev)               \
    X(alGetEnumValue) X(alGetError) X(alGetFloat) X(alGetFloatv) X(alGetInteger)                   \
    X(alGetIntegerv) X(alGetListener3f) X(alGetListener3i) X(alGetListenerf) X(alGetListenerfv)    \
    X(alGetListeneri) X(alGetListeneriv) X(alGetProcAddress) X(alGetSource3f) X(alGetSource3i)     \
    X(alGetSourcef) X(alGetSourcefv) X(alGetSourcei) X(alGetSourceiv) X(alGetString)               \
    X(alIsBuffer) X(alIsEnabled) X(alIsExtensionPresent) X(alIsSource) X(alListener3f)             \
    X(alListener3i) X(alListenerf) X(alListenerfv) X(alListeneri) X(alListeneriv) X(alSource3f)    \
    X(alSource3i) X(alSourcePause) X(alSourcePausev) X(alSourcePlay) X(alSourcePlayv)              \
    X(alSourceQueueBuffers) X(alSourceRewind) X(alSourceRewindv) X(alSourceStop)                   \
    X(alSourceStopv) X(alSourceUnqueueBuffers) X(alSourcef) X(alSourcefv) X(alSourcei)             \
    X(alSourceiv) X(alSpeedOfSound) X(alcCaptureCloseDevice) X(alcCaptureOpenDevice)               \
    X(alcCaptureSamples) X(alcCaptureStart) X(alcCaptureStop) X(alcCloseDevice)                    \
    X(alcCreateContext) X(alcDestroyContext) X(alcGetContextsDevice) X(alcGetCurrentContext)       \
    X(alcGetEnumValue) X(alcGetError) X(alcGetIntegerv) X(alcGetProcAddress) X(alcGetString)       \
    X(alcIsExtensionPresent) X(alcMakeContextCurrent) X(alcOpenDevice) X(alcProcessContext)        \
    X(alcSuspendContext) X(alcSetThreadContext) X(alcGetThreadContext) X(alcDevicePauseSOFT)     \
    X(alcDeviceResumeSOFT) X(alcGetStringiSOFT) X(alcResetDeviceSOFT)
// clang-format on

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"
#pragma GCC diagnostic ignored "-Wpedantic"
static const struct {
    const char *name;
    void *fn;
} funcs[] = {
#define ENT_(f) {#f, (void *)f},
    ALH_FUNCS(ENT_)
#undef ENT_
};
#pragma GCC diagnostic pop

static void *proc(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
        if (strcmp(funcs[i].name, name) == 0) return funcs[i].fn;
    return NULL;
}

static const struct {
    const char *name;
    int value;
} enums[] = {
#define E(n) {#n, n},
#include "al_enums.inc"
#undef E
};

static int enum_value(const char *name, int *value) {
    if (!name) return 0;
    for (size_t i = 0; i < sizeof enums / sizeof enums[0]; i++)
        if (strcmp(enums[i].name, name) == 0) {
            *value = enums[i].value;
            return 1;
        }
    return 0;
}

ALH_EXPORT void *AL_APIENTRY alGetProcAddress(const ALchar *fname) {
    ALH_ENTER(NULL);
    void *f = proc(fname);
    if (!fname) alh_set_error(c, AL_INVALID_VALUE);
    ALH_LEAVE(f);
}

ALH_EXPORT ALenum AL_APIENTRY alGetEnumValue(const ALchar *ename) {
    ALH_ENTER(0);
    int v = 0;
    if (!enum_value(ename, &v)) alh_set_error(c, AL_INVALID_VALUE);
    ALH_LEAVE(v);
}

ALH_EXPORT void *ALC_APIENTRY alcGetProcAddress(ALCdevice *device, const ALCchar *funcname) {
    void *f = proc(funcname);
    if (!f || strncmp(funcname, "alc", 3) != 0) {
        alh_lock();
        if (!funcname) alh_dev_error(device, ALC_INVALID_VALUE);
        alh_unlock();
    }
    return f;
}

ALH_EXPORT ALCenum ALC_APIENTRY alcGetEnumValue(ALCdevice *device, const ALCchar *enumname) {
    int v = 0;
    if (!enum_value(enumname, &v)) {
        alh_lock();
        alh_dev_error(device, ALC_INVALID_VALUE);
        alh_unlock();
        return 0;
    }
    return v;
}
