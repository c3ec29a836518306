/*
 * alc_query.c - heliod's OpenAL library: what the ALC layer answers about
 * itself and a device: errors, extensions, strings and integer attributes;
 * and capture, which heliod does not offer (no capture device is listed).
 */
#include <string.h>

#include <AL/alext.h>

#include "al_int.h"

#ifndef ALC_CONNECTED
#define ALC_CONNECTED 0x313
#endif

#define DEVICE_NAME "heliod"
static const char alc_extensions[] =
    "ALC_ENUMERATE_ALL_EXT ALC_ENUMERATION_EXT ALC_EXT_disconnect "
    "ALC_EXT_thread_local_context ALC_SOFT_HRTF ALC_SOFT_pause_device";

ALH_EXPORT ALCenum ALC_APIENTRY alcGetError(ALCdevice *device) {
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    ALCenum e;
    if (d) {
        e = d->error;
        d->error = ALC_NO_ERROR;
    } else {
        e = g_al.null_error;
        g_al.null_error = ALC_NO_ERROR;
    }
    alh_unlock();
    return e;
}

ALH_EXPORT ALCboolean ALC_APIENTRY alcIsExtensionPresent(ALCdevice *device,
                                                         const ALCchar *extname) {
    (void)device;
    if (!extname) {
        alh_lock();
        alh_dev_error(device, ALC_INVALID_VALUE);
        alh_unlock();
        return ALC_FALSE;
    }
    return (ALCboolean)alh_ext_in(alc_extensions, extname);
}

ALH_EXPORT const ALCchar *ALC_APIENTRY alcGetString(ALCdevice *device, ALCenum param) {
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    const char *s = NULL;
    switch (param) {
    case ALC_DEFAULT_DEVICE_SPECIFIER:
    case ALC_DEFAULT_ALL_DEVICES_SPECIFIER: s = DEVICE_NAME; break;
    case ALC_DEVICE_SPECIFIER:
    case ALC_ALL_DEVICES_SPECIFIER:
        s = d ? DEVICE_NAME : DEVICE_NAME "\0"; /* NULL device: the list */
        break;
    case ALC_CAPTURE_DEVICE_SPECIFIER: s = d ? "" : "\0"; break; /* no capture devices */
    case ALC_CAPTURE_DEFAULT_DEVICE_SPECIFIER: s = ""; break;
    case ALC_EXTENSIONS: /* the same list without a device (programs print it) */
        if (d || !device)
            s = alc_extensions;
        else
            alh_dev_error(device, ALC_INVALID_DEVICE);
        break;
    default:
        if (!(s = alh_error_text(param, 1))) alh_dev_error(device, ALC_INVALID_ENUM);
        break;
    }
    alh_unlock();
    return s;
}

/* An integer of device d (or of a blank one: the parameter's name alone is
 * known without a device): 1, or 0 if param names none. Locked. */
static int dev_int(const ALCdevice *d, ALCenum param, ALCint *v) {
    const ALCcontext *c = alh_ctx(); /* its current context's attributes, else defaults */
    if (c && c->dev != d) c = NULL;
    switch (param) {
    case ALC_FREQUENCY: *v = (int)d->rate; return 1;
    case ALC_REFRESH: *v = d->period ? (int)(d->rate / d->period) : 50; return 1;
    case ALC_SYNC: *v = 0; return 1;
    case ALC_MONO_SOURCES: *v = c ? c->attr_mono : 255; return 1;
    case ALC_STEREO_SOURCES: *v = c ? c->attr_stereo : 1; return 1;
    case ALC_CONNECTED: *v = d->connected; return 1;
    case ALC_ATTRIBUTES_SIZE: *v = 13; return 1;
    case ALC_HRTF_SOFT: *v = d->hrtf_on ? ALC_TRUE : ALC_FALSE; return 1;
    case ALC_HRTF_STATUS_SOFT: *v = d->hrtf_status; return 1;
    case ALC_NUM_HRTF_SPECIFIERS_SOFT: *v = d->daemon_hrtf ? 1 : 0; return 1;
    default: return 0;
    }
}

ALH_EXPORT void ALC_APIENTRY alcGetIntegerv(ALCdevice *device, ALCenum param, ALCsizei size,
                                            ALCint *values) {
    /* ALC_ALL_ATTRIBUTES: these, each followed by its value, and a 0 */
    static const ALCenum all[6] = {ALC_FREQUENCY,    ALC_REFRESH,        ALC_SYNC,
                                   ALC_MONO_SOURCES, ALC_STEREO_SOURCES, ALC_CONNECTED};
    static const ALCdevice blank;
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    ALCint v = 0;
    if (!values || size <= 0) {
        alh_dev_error(device, ALC_INVALID_VALUE);
    } else if (param == ALC_MAJOR_VERSION || param == ALC_MINOR_VERSION) {
        values[0] = 1;
    } else if (param == ALC_CAPTURE_SAMPLES || /* no capture device is ever open */
               (!d && (param == ALC_ALL_ATTRIBUTES || dev_int(&blank, param, &v)))) {
        alh_dev_error(device, ALC_INVALID_DEVICE);
    } else if (param == ALC_ALL_ATTRIBUTES) {
        if (size < 13) {
            alh_dev_error(device, ALC_INVALID_VALUE);
        } else {
            for (int i = 0; i < 6; i++) {
                values[2 * i] = all[i];
                dev_int(d, all[i], &values[2 * i + 1]);
            }
            values[12] = 0;
        }
    } else if (d && dev_int(d, param, &v)) {
        values[0] = v;
    } else {
        alh_dev_error(device, ALC_INVALID_ENUM);
    }
    alh_unlock();
}

/* ---- capture: not implemented (no capture device is listed) ---- */
ALH_EXPORT ALCdevice *ALC_APIENTRY alcCaptureOpenDevice(const ALCchar *devicename,
                                                        ALCuint frequency, ALCenum format,
                                                        ALCsizei buffersize) {
    (void)devicename, (void)frequency, (void)format, (void)buffersize;
    alh_lock();
    g_al.null_error = ALC_INVALID_VALUE;
    alh_unlock();
    return NULL;
}
static void capture_bad(void) {
    alh_lock();
    g_al.null_error = ALC_INVALID_DEVICE;
    alh_unlock();
}
ALH_EXPORT ALCboolean ALC_APIENTRY alcCaptureCloseDevice(ALCdevice *device) {
    (void)device;
    capture_bad();
    return ALC_FALSE;
}
ALH_EXPORT void ALC_APIENTRY alcCaptureStart(ALCdevice *device) {
    (void)device;
    capture_bad();
}
ALH_EXPORT void ALC_APIENTRY alcCaptureStop(ALCdevice *device) {
    (void)device;
    capture_bad();
}
ALH_EXPORT void ALC_APIENTRY alcCaptureSamples(ALCdevice *device, ALCvoid *buffer,
                                               ALCsizei samples) {
    (void)device, (void)buffer, (void)samples;
    capture_bad();
}
