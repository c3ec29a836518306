/*
 * alc.c - heliod's OpenAL library: devices (one heliod connection each,
 * alc_conn.c) and contexts, the current context (process-wide and
 * thread-local), bundles (alcSuspendContext .. alcProcessContext), and the
 * device extensions ALC_SOFT_HRTF and ALC_SOFT_pause_device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <AL/alext.h>

#include "al_int.h"

/* The device / context an ALC call names: NULL, and the error on the NULL
 * device, if it is not one of ours. Locked. */
static ALCdevice *dev_arg(ALCdevice *device) {
    ALCdevice *d = alh_dev_ok(device);
    if (!d) g_al.null_error = ALC_INVALID_DEVICE;
    return d;
}
static ALCcontext *ctx_arg(ALCcontext *context) {
    ALCcontext *c = alh_ctx_ok(context);
    if (!c) g_al.null_error = ALC_INVALID_CONTEXT;
    return c;
}

static int init_tables(void) {
    if (!g_al.src) g_al.src = calloc(ALH_MAX_SOURCES, sizeof *g_al.src);
    if (!g_al.buf) g_al.buf = calloc(ALH_MAX_BUFFERS, sizeof *g_al.buf);
    return g_al.src && g_al.buf ? 0 : -1;
}

ALH_EXPORT ALCdevice *ALC_APIENTRY alcOpenDevice(const ALCchar *devicename) {
    (void)devicename; /* any name: games pass names of other implementations */
    alh_lock();
    ALCdevice *d = NULL;
    for (size_t i = 0; i < 4; i++)
        if (!g_al.devs[i].used) {
            d = &g_al.devs[i];
            break;
        }
    if (!d || init_tables() < 0) {
        g_al.null_error = ALC_OUT_OF_MEMORY;
        alh_unlock();
        return NULL;
    }
    memset(d, 0, sizeof *d);
    const char *sock = getenv("HELIOD_SOCKET");
    if (sock) snprintf(d->socket, sizeof d->socket, "%s", sock);
    if (alh_dev_connect(d) < 0) {
        g_al.null_error = ALC_INVALID_VALUE;
        alh_unlock();
        return NULL;
    }
    d->used = 1;
    alh_thread_start();
    alh_unlock();
    return d;
}

/* A context goes: its sources stopped and deleted, no longer current. Locked. */
static void context_drop(ALCcontext *c) {
    alh_sources_context_gone(c);
    if (g_al.current == c) g_al.current = NULL;
    if (alh_tls_ctx == c) alh_tls_ctx = NULL;
    c->used = 0;
}

ALH_EXPORT ALCboolean ALC_APIENTRY alcCloseDevice(ALCdevice *device) {
    alh_lock();
    ALCdevice *d = dev_arg(device);
    if (!d) {
        alh_unlock();
        return ALC_FALSE;
    }
    /* contexts still there go with it (as OpenAL Soft: games close the
     * device without destroying its context), their sources stopped */
    if (d->suspended && d->h) heliod_bundle_end(d->h, NULL);
    d->suspended = 0;
    for (size_t i = 0; i < sizeof g_al.ctxs / sizeof g_al.ctxs[0]; i++) {
        ALCcontext *c = &g_al.ctxs[i];
        if (c->used && c->dev == d) context_drop(c);
    }
    alh_buffers_drop_device(d);
    if (d->h) heliod_close(d->h);
    d->h = NULL;
    d->used = 0;
    alh_thread_stop_if_idle();
    alh_unlock();
    return ALC_TRUE;
}

/* An ALC_HRTF_SOFT request (ALC_FALSE, ALC_TRUE or ALC_DONT_CARE_SOFT), at
 * alcCreateContext and alcResetDeviceSOFT (alc_conn.c, alh_hrtf_status,
 * says what it gets). Locked. */
static void hrtf_request(ALCdevice *d, ALCint v) {
    d->hrtf_req = v == ALC_TRUE;
    alh_hrtf_status(d);
}

#define HRTF_NAME "heliod --hrtf"

ALH_EXPORT const ALCchar *ALC_APIENTRY alcGetStringiSOFT(ALCdevice *device, ALCenum param,
                                                         ALCsizei index) {
    alh_lock();
    ALCdevice *d = dev_arg(device);
    const char *s = NULL;
    if (d && param != ALC_HRTF_SPECIFIER_SOFT)
        alh_dev_error(d, ALC_INVALID_ENUM);
    else if (d && (!d->daemon_hrtf || index != 0))
        alh_dev_error(d, ALC_INVALID_VALUE); /* the daemon's one set, when it has one */
    else if (d)
        s = HRTF_NAME;
    alh_unlock();
    return s;
}

/* ALC_SOFT_HRTF's reset: the only attribute it acts on is ALC_HRTF_SOFT
 * (the others are requests the daemon's device answers, as at
 * alcCreateContext). */
ALH_EXPORT ALCboolean ALC_APIENTRY alcResetDeviceSOFT(ALCdevice *device, const ALCint *attribs) {
    alh_lock();
    ALCdevice *d = dev_arg(device);
    if (!d) {
        alh_unlock();
        return ALC_FALSE;
    }
    hrtf_request(d, ALC_FALSE);
    for (int i = 0; attribs && attribs[i] != 0 && i < 64; i += 2)
        if (attribs[i] == ALC_HRTF_SOFT) hrtf_request(d, attribs[i + 1]);
    /* sources started from now on; a playing one keeps how it was started
     * (a 2D voice cannot become a 3D one) */
    alh_unlock();
    return ALC_TRUE;
}

ALH_EXPORT ALCcontext *ALC_APIENTRY alcCreateContext(ALCdevice *device, const ALCint *attrs) {
    alh_lock();
    ALCdevice *d = dev_arg(device);
    if (!d) {
        alh_unlock();
        return NULL;
    }
    ALCcontext *c = NULL;
    for (size_t i = 0; i < sizeof g_al.ctxs / sizeof g_al.ctxs[0]; i++)
        if (!g_al.ctxs[i].used) {
            c = &g_al.ctxs[i];
            break;
        }
    if (!c) {
        alh_dev_error(d, ALC_OUT_OF_MEMORY);
        alh_unlock();
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->dev = d;
    c->attr_freq = (int)d->rate;
    c->attr_mono = 255;
    c->attr_stereo = 1;
    c->attr_refresh = d->rate && d->period ? (int)(d->rate / d->period) : 50;
    hrtf_request(d, ALC_FALSE); /* a new context resets the device */
    for (int i = 0; attrs && attrs[i] != 0 && i < 64; i += 2) {
        const ALCint k = attrs[i], v = attrs[i + 1];
        if (k == ALC_MONO_SOURCES && v > 255) c->attr_mono = v;
        if (k == ALC_STEREO_SOURCES && v > 1) c->attr_stereo = v;
        if (k == ALC_SYNC) c->attr_sync = v != 0;
        if (k == ALC_HRTF_SOFT) hrtf_request(d, v);
        /* ALC_FREQUENCY and ALC_REFRESH are requests: the daemon's run on */
    }
    if (c->attr_mono + c->attr_stereo > ALH_MAX_SOURCES) {
        c->attr_mono = ALH_MAX_SOURCES - 1;
        c->attr_stereo = 1;
    }
    c->lis.gain = 1.0f;
    c->lis.at[2] = -1.0f;
    c->lis.up[1] = 1.0f;
    c->dist_model = AL_INVERSE_DISTANCE_CLAMPED;
    c->doppler = 1.0f;
    c->doppler_vel = 1.0f;
    c->sound_speed = 343.3f;
    c->used = 1;
    alh_unlock();
    return c;
}

/* The process-wide current context, or this thread's (NULL: none). */
static ALCboolean make_current(ALCcontext *context, int thread) {
    alh_lock();
    if (context && !alh_ctx_ok(context)) {
        g_al.null_error = ALC_INVALID_CONTEXT;
        alh_unlock();
        return ALC_FALSE;
    }
    if (thread) {
        alh_tls_ctx = context;
    } else {
        g_al.current = context;
        alh_tls_ctx = NULL; /* as OpenAL Soft: the thread's own context is released */
    }
    alh_unlock();
    return ALC_TRUE;
}

ALH_EXPORT ALCboolean ALC_APIENTRY alcMakeContextCurrent(ALCcontext *context) {
    return make_current(context, 0);
}

ALH_EXPORT ALCboolean ALC_APIENTRY alcSetThreadContext(ALCcontext *context) {
    return make_current(context, 1);
}

ALH_EXPORT ALCcontext *ALC_APIENTRY alcGetThreadContext(void) {
    return alh_tls_ctx;
}

ALH_EXPORT void ALC_APIENTRY alcProcessContext(ALCcontext *context) {
    alh_lock();
    ALCcontext *c = ctx_arg(context);
    if (c && c->dev->suspended) {
        c->dev->suspended = 0;
        if (c->dev->h) alh_conn_check(c->dev, heliod_bundle_end(c->dev->h, NULL));
        alh_flush(c->dev);
    }
    alh_unlock();
}

ALH_EXPORT void ALC_APIENTRY alcSuspendContext(ALCcontext *context) {
    alh_lock();
    ALCcontext *c = ctx_arg(context);
    if (c && !c->dev->suspended && c->dev->h) {
        /* until alcProcessContext, changes go out as one bundle (one block) */
        if (heliod_bundle_begin(c->dev->h) == 0) c->dev->suspended = 1, c->dev->bundle_n = 0;
    }
    alh_unlock();
}

ALH_EXPORT void ALC_APIENTRY alcDestroyContext(ALCcontext *context) {
    alh_lock();
    ALCcontext *c = ctx_arg(context);
    if (!c) {
        alh_unlock();
        return;
    }
    if (c->dev->suspended && c->dev->h) {
        c->dev->suspended = 0;
        heliod_bundle_end(c->dev->h, NULL);
    }
    context_drop(c);
    alh_unlock();
}

ALH_EXPORT ALCcontext *ALC_APIENTRY alcGetCurrentContext(void) {
    alh_lock();
    ALCcontext *c = alh_ctx();
    alh_unlock();
    return c;
}

ALH_EXPORT ALCdevice *ALC_APIENTRY alcGetContextsDevice(ALCcontext *context) {
    alh_lock();
    ALCcontext *c = ctx_arg(context);
    ALCdevice *d = c ? c->dev : NULL;
    alh_unlock();
    return d;
}

/* ---- ALC_SOFT_pause_device: every voice of the device held, its clock frozen ---- */
ALH_EXPORT void ALC_APIENTRY alcDevicePauseSOFT(ALCdevice *device) {
    alh_lock();
    ALCdevice *d = dev_arg(device);
    if (d && !d->paused) {
        d->pause_frame = alh_now_frame(d);
        d->paused = 1;
        if (d->h) alh_conn_check(d, heliod_pause_all(d->h, 1, 0, NULL));
    }
    alh_unlock();
}

ALH_EXPORT void ALC_APIENTRY alcDeviceResumeSOFT(ALCdevice *device) {
    alh_lock();
    ALCdevice *d = dev_arg(device);
    if (d && d->paused) {
        d->paused = 0;
        const uint64_t now = alh_now_frame(d);
        if (now > d->pause_frame) alh_sources_shift(d, now - d->pause_frame);
        if (d->h) alh_conn_check(d, heliod_pause_all(d->h, 0, 0, NULL));
    }
    alh_unlock();
}
