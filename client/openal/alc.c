/*
 * alc.c - heliod's OpenAL library: devices (one heliod connection each),
 * contexts, the current context (process-wide and thread-local), ALC
 * queries, errors, the event thread (voice ends, play replies, reconnects),
 * and the name tables of alGetProcAddress / alGetEnumValue.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <AL/alext.h>

#include "al_int.h"

#ifndef ALC_CONNECTED
#define ALC_CONNECTED 0x313
#endif

ALH_EXPORT void ALC_APIENTRY alcDevicePauseSOFT(ALCdevice *device);
ALH_EXPORT void ALC_APIENTRY alcDeviceResumeSOFT(ALCdevice *device);
ALH_EXPORT ALCboolean ALC_APIENTRY alcSetThreadContext(ALCcontext *context);
ALH_EXPORT const ALCchar *ALC_APIENTRY alcGetStringiSOFT(ALCdevice *device, ALCenum param,
                                                         ALCsizei index);
ALH_EXPORT ALCboolean ALC_APIENTRY alcResetDeviceSOFT(ALCdevice *device, const ALCint *attribs);
ALH_EXPORT ALCcontext *ALC_APIENTRY alcGetThreadContext(void);

alh_global_t g_al = {.lock = PTHREAD_MUTEX_INITIALIZER};
__thread ALCcontext *alh_tls_ctx;

#define DEVICE_NAME "heliod"
static const char alc_extensions[] =
    "ALC_ENUMERATE_ALL_EXT ALC_ENUMERATION_EXT ALC_EXT_disconnect "
    "ALC_EXT_thread_local_context ALC_SOFT_HRTF ALC_SOFT_pause_device";

void alh_lock(void) {
    pthread_mutex_lock(&g_al.lock);
}
void alh_unlock(void) {
    pthread_mutex_unlock(&g_al.lock);
}

uint64_t alh_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

ALCcontext *alh_ctx(void) {
    ALCcontext *c = alh_tls_ctx ? alh_tls_ctx : g_al.current;
    return c && c->used ? c : NULL;
}

void alh_set_error(ALCcontext *c, ALenum e) {
    if (c && c->error == AL_NO_ERROR) c->error = e;
}

ALCdevice *alh_dev_ok(ALCdevice *d) {
    for (size_t i = 0; i < sizeof g_al.devs / sizeof g_al.devs[0]; i++)
        if (d == &g_al.devs[i] && d->used) return d;
    return NULL;
}

static void dev_error(ALCdevice *d, ALCenum e) {
    ALCdevice *ok = alh_dev_ok(d);
    if (ok) {
        if (ok->error == ALC_NO_ERROR) ok->error = e;
    } else if (g_al.null_error == ALC_NO_ERROR) {
        g_al.null_error = e;
    }
}

uint64_t alh_now_frame(ALCdevice *d) {
    if (d->paused) return d->pause_frame; /* sources do not advance */
    const uint64_t now = alh_mono_ns();
    if (!d->clk.rate) return 0;
    return heliod_clock_frame_at(&d->clk, now);
}

void alh_flush(ALCdevice *d) {
    if (d->h && !d->suspended) alh_conn_check(d, heliod_flush(d->h));
}

void alh_req(ALCdevice *d) {
    if (!d->suspended || !d->h) return;
    if (++d->bundle_n < 60) return;
    d->bundle_n = 1;
    alh_conn_check(d, heliod_bundle_end(d->h, NULL));
    if (d->h && heliod_bundle_begin(d->h) != 0) d->suspended = 0;
}

/* ---- the connection ---- */

static void on_event(void *user, const heliod_event_t *ev) {
    alh_on_event(user, ev);
}

static void hrtf_status(ALCdevice *d);

/* Connects d to heliod (locked). 0 or a heliod error. */
static int dev_connect(ALCdevice *d) {
    heliod_t *h = NULL;
    int rc = heliod_connect(&h, d->socket[0] ? d->socket : NULL, "openal");
    if (rc < 0) return rc;
    heliod_set_timeout(h, 3000);
    if ((rc = heliod_subscribe(h, HELIOD_SUB_ENDED | HELIOD_SUB_STARTED)) < 0 ||
        (rc = heliod_clock(h, &d->clk)) < 0) {
        heliod_close(h);
        return rc;
    }
    const heliod_server_info_t *si = heliod_server_info(h);
    d->rate = si->rate;
    d->period = si->period;
    d->pan_law = heliod_protocol_minor(h) >= 1;
    d->daemon_hrtf = 0;
    heliod_stat_t st[256];
    size_t n = 0;
    if (heliod_stats(h, st, sizeof st / sizeof st[0], &n, 0) == 0)
        for (size_t i = 0; i < n; i++)
            if (!strcmp(st[i].key, "hrtf")) d->daemon_hrtf = st[i].value != 0.0;
    hrtf_status(d); /* a daemon back with or without --hrtf */
    d->clk_read_ns = alh_mono_ns();
    d->h = h;
    d->connected = 1;
    heliod_set_event_callback(h, on_event, d);
    alh_buffers_reupload(d);
    return 0;
}

static void dev_lost(ALCdevice *d) {
    if (!d->h) return;
    alh_sources_lost(d); /* closes its streams first */
    heliod_close(d->h);
    d->h = NULL;
    d->connected = 0;
    d->suspended = 0;
    d->retry_ns = alh_mono_ns() + 200000000ull;
}

void alh_conn_check(ALCdevice *d, int rc) {
    if (rc == HELIOD_ECLOSED || rc == HELIOD_EIO || rc == HELIOD_ETIMEDOUT ||
        rc == HELIOD_ECONNECT || rc == HELIOD_EPROTO)
        dev_lost(d);
}

/* The event thread: dispatches what each device's daemon sends, keeps the
 * clock fresh, and reconnects a device whose daemon went away. */
static void *event_thread(void *arg) {
    (void)arg;
    for (;;) {
        struct pollfd pfd[5];
        int n = 0;
        alh_lock();
        if (g_al.thread_stop) {
            alh_unlock();
            break;
        }
        pfd[n++] = (struct pollfd){.fd = g_al.wake[0], .events = POLLIN};
        for (size_t i = 0; i < 4; i++) {
            ALCdevice *d = &g_al.devs[i];
            if (d->used && d->h)
                pfd[n++] = (struct pollfd){.fd = heliod_fd(d->h), .events = POLLIN};
        }
        alh_unlock();
        int pr = poll(pfd, (nfds_t)n, 5);
        if (pr > 0 && g_al.wake[0] > 0 && (pfd[0].revents & POLLIN)) {
            char buf[64];
            ssize_t r = read(g_al.wake[0], buf, sizeof buf);
            (void)r;
        }
        alh_lock();
        const uint64_t now = alh_mono_ns();
        for (size_t i = 0; i < 4; i++) {
            ALCdevice *d = &g_al.devs[i];
            if (!d->used) continue;
            if (!d->h) {
                if (now >= d->retry_ns) {
                    if (dev_connect(d) < 0) d->retry_ns = now + 250000000ull;
                }
                continue;
            }
            int rc = heliod_dispatch(d->h);
            if (rc < 0) {
                alh_conn_check(d, rc);
                continue;
            }
            if (now - d->clk_read_ns > 1000000000ull && !d->suspended) {
                heliod_clock_t c;
                rc = heliod_clock(d->h, &c);
                if (rc == 0)
                    d->clk = c;
                else
                    alh_conn_check(d, rc);
                d->clk_read_ns = now;
            }
            if (d->h) alh_sources_tick(d);
        }
        alh_unlock();
    }
    return NULL;
}

/* Wakes the event thread out of its poll (it stops sooner). */
static void thread_wake(void) {
    if (g_al.wake[1] > 0) {
        const char c = 1;
        ssize_t n = write(g_al.wake[1], &c, 1);
        (void)n;
    }
}

static void thread_start(void) {
    if (g_al.thread_running) return;
    if (g_al.wake[0] <= 0 && pipe2(g_al.wake, O_CLOEXEC | O_NONBLOCK) != 0)
        g_al.wake[0] = g_al.wake[1] = -1; /* poll skips it: the thread stops within 5 ms */
    g_al.thread_stop = 0;
    if (pthread_create(&g_al.thread, NULL, event_thread, NULL) == 0) g_al.thread_running = 1;
}

static void thread_stop_if_idle(void) {
    for (size_t i = 0; i < 4; i++)
        if (g_al.devs[i].used) return;
    if (!g_al.thread_running) return;
    g_al.thread_stop = 1;
    thread_wake();
    alh_unlock();
    pthread_join(g_al.thread, NULL);
    alh_lock();
    g_al.thread_running = 0;
}

/* The library unloaded (dlclose) or the process exiting: the event thread
 * must not run on in unmapped code. */
__attribute__((destructor)) static void alh_fini(void) {
    alh_lock();
    if (g_al.thread_running) {
        g_al.thread_stop = 1;
        thread_wake();
        thread_wake();
        alh_unlock();
        pthread_join(g_al.thread, NULL);
        alh_lock();
        g_al.thread_running = 0;
    }
    alh_unlock();
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
    if (dev_connect(d) < 0) {
        g_al.null_error = ALC_INVALID_VALUE;
        alh_unlock();
        return NULL;
    }
    d->used = 1;
    thread_start();
    alh_unlock();
    return d;
}

ALH_EXPORT ALCboolean ALC_APIENTRY alcCloseDevice(ALCdevice *device) {
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    if (!d) {
        g_al.null_error = ALC_INVALID_DEVICE;
        alh_unlock();
        return ALC_FALSE;
    }
    /* contexts still there go with it (as OpenAL Soft: games close the
     * device without destroying its context), their sources stopped */
    if (d->suspended && d->h) heliod_bundle_end(d->h, NULL);
    d->suspended = 0;
    for (size_t i = 0; i < sizeof g_al.ctxs / sizeof g_al.ctxs[0]; i++) {
        ALCcontext *c = &g_al.ctxs[i];
        if (!c->used || c->dev != d) continue;
        alh_sources_context_gone(c);
        if (g_al.current == c) g_al.current = NULL;
        if (alh_tls_ctx == c) alh_tls_ctx = NULL;
        c->used = 0;
    }
    alh_buffers_drop_device(d);
    if (d->h) heliod_close(d->h);
    d->h = NULL;
    d->used = 0;
    thread_stop_if_idle();
    alh_unlock();
    return ALC_TRUE;
}

/* ALC_SOFT_HRTF onto heliod's binaural renderer (`heliod --hrtf`): an
 * ALC_HRTF_SOFT request (ALC_FALSE, ALC_TRUE or ALC_DONT_CARE_SOFT). With
 * ALC_TRUE and a daemon that renders HRTF, the mono sources play as daemon
 * 3D voices in their direction from the listener (al_source.c,
 * hrtf_params): ALC_HRTF_ENABLED_SOFT. A daemon without --hrtf has none to
 * give: ALC_HRTF_DENIED_SOFT (and no HRTF is listed). Not asked (or
 * ALC_DONT_CARE_SOFT, as OpenAL Soft on speakers): ALC_HRTF_DISABLED_SOFT,
 * OpenAL Soft's stereo panning. Locked. */
static void hrtf_status(ALCdevice *d) {
    d->hrtf_on = d->hrtf_req && d->daemon_hrtf;
    d->hrtf_status = !d->hrtf_req ? ALC_HRTF_DISABLED_SOFT
                     : d->hrtf_on ? ALC_HRTF_ENABLED_SOFT
                                  : ALC_HRTF_DENIED_SOFT;
}

static void hrtf_request(ALCdevice *d, ALCint v) {
    d->hrtf_req = v == ALC_TRUE;
    hrtf_status(d);
}

#define HRTF_NAME "heliod --hrtf"

ALH_EXPORT const ALCchar *ALC_APIENTRY alcGetStringiSOFT(ALCdevice *device, ALCenum param,
                                                         ALCsizei index) {
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    if (!d)
        g_al.null_error = ALC_INVALID_DEVICE;
    else if (param != ALC_HRTF_SPECIFIER_SOFT)
        dev_error(d, ALC_INVALID_ENUM);
    else if (!d->daemon_hrtf || index != 0)
        dev_error(d, ALC_INVALID_VALUE); /* the daemon's one set, when it has one */
    else {
        alh_unlock();
        return HRTF_NAME;
    }
    alh_unlock();
    return NULL;
}

/* ALC_SOFT_HRTF's reset: the only attribute it acts on is ALC_HRTF_SOFT
 * (the others are requests the daemon's device answers, as at
 * alcCreateContext). */
ALH_EXPORT ALCboolean ALC_APIENTRY alcResetDeviceSOFT(ALCdevice *device, const ALCint *attribs) {
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    if (!d) {
        g_al.null_error = ALC_INVALID_DEVICE;
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
    ALCdevice *d = alh_dev_ok(device);
    if (!d) {
        g_al.null_error = ALC_INVALID_DEVICE;
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
        dev_error(d, ALC_OUT_OF_MEMORY);
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

static ALCcontext *ctx_ok(ALCcontext *c) {
    for (size_t i = 0; i < sizeof g_al.ctxs / sizeof g_al.ctxs[0]; i++)
        if (c == &g_al.ctxs[i] && c->used) return c;
    return NULL;
}

ALH_EXPORT ALCboolean ALC_APIENTRY alcMakeContextCurrent(ALCcontext *context) {
    alh_lock();
    if (context && !ctx_ok(context)) {
        g_al.null_error = ALC_INVALID_CONTEXT;
        alh_unlock();
        return ALC_FALSE;
    }
    g_al.current = context;
    alh_tls_ctx = NULL; /* as OpenAL Soft: the thread's own context is released */
    alh_unlock();
    return ALC_TRUE;
}

ALH_EXPORT ALCboolean ALC_APIENTRY alcSetThreadContext(ALCcontext *context) {
    alh_lock();
    if (context && !ctx_ok(context)) {
        g_al.null_error = ALC_INVALID_CONTEXT;
        alh_unlock();
        return ALC_FALSE;
    }
    alh_tls_ctx = context;
    alh_unlock();
    return ALC_TRUE;
}

ALH_EXPORT ALCcontext *ALC_APIENTRY alcGetThreadContext(void) {
    return alh_tls_ctx;
}

ALH_EXPORT void ALC_APIENTRY alcProcessContext(ALCcontext *context) {
    alh_lock();
    ALCcontext *c = ctx_ok(context);
    if (!c) {
        g_al.null_error = ALC_INVALID_CONTEXT;
    } else if (c->dev->suspended) {
        c->dev->suspended = 0;
        if (c->dev->h) alh_conn_check(c->dev, heliod_bundle_end(c->dev->h, NULL));
        alh_flush(c->dev);
    }
    alh_unlock();
}

ALH_EXPORT void ALC_APIENTRY alcSuspendContext(ALCcontext *context) {
    alh_lock();
    ALCcontext *c = ctx_ok(context);
    if (!c) {
        g_al.null_error = ALC_INVALID_CONTEXT;
    } else if (!c->dev->suspended && c->dev->h) {
        /* until alcProcessContext, changes go out as one bundle (one block) */
        if (heliod_bundle_begin(c->dev->h) == 0) c->dev->suspended = 1, c->dev->bundle_n = 0;
    }
    alh_unlock();
}

ALH_EXPORT void ALC_APIENTRY alcDestroyContext(ALCcontext *context) {
    alh_lock();
    ALCcontext *c = ctx_ok(context);
    if (!c) {
        g_al.null_error = ALC_INVALID_CONTEXT;
        alh_unlock();
        return;
    }
    if (c->dev->suspended && c->dev->h) {
        c->dev->suspended = 0;
        heliod_bundle_end(c->dev->h, NULL);
    }
    alh_sources_context_gone(c);
    if (g_al.current == c) g_al.current = NULL;
    if (alh_tls_ctx == c) alh_tls_ctx = NULL;
    c->used = 0;
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
    ALCcontext *c = ctx_ok(context);
    ALCdevice *d = c ? c->dev : NULL;
    if (!c) g_al.null_error = ALC_INVALID_CONTEXT;
    alh_unlock();
    return d;
}

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

static int ext_in(const char *list, const char *name) {
    const size_t n = strlen(name);
    if (!n) return 0;
    for (const char *p = list; *p;) {
        while (*p == ' ')
            p++;
        const char *e = strchr(p, ' ');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncasecmp(p, name, n) == 0) return 1;
        p += len;
    }
    return 0;
}

ALCboolean alh_alc_ext(const char *name) {
    return ext_in(alc_extensions, name) ? ALC_TRUE : ALC_FALSE;
}

ALH_EXPORT ALCboolean ALC_APIENTRY alcIsExtensionPresent(ALCdevice *device,
                                                         const ALCchar *extname) {
    (void)device;
    if (!extname) {
        alh_lock();
        dev_error(device, ALC_INVALID_VALUE);
        alh_unlock();
        return ALC_FALSE;
    }
    return alh_alc_ext(extname);
}

/* ---- names: functions and enums ---- */
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

void *alh_proc(const char *name) {
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

int alh_enum(const char *name, int *value) {
    if (!name) return 0;
    for (size_t i = 0; i < sizeof enums / sizeof enums[0]; i++)
        if (strcmp(enums[i].name, name) == 0) {
            *value = enums[i].value;
            return 1;
        }
    return 0;
}

ALH_EXPORT void *ALC_APIENTRY alcGetProcAddress(ALCdevice *device, const ALCchar *funcname) {
    void *f = alh_proc(funcname);
    if (!f || strncmp(funcname, "alc", 3) != 0) {
        alh_lock();
        if (!funcname) dev_error(device, ALC_INVALID_VALUE);
        alh_unlock();
    }
    return f;
}

ALH_EXPORT ALCenum ALC_APIENTRY alcGetEnumValue(ALCdevice *device, const ALCchar *enumname) {
    int v = 0;
    if (!alh_enum(enumname, &v)) {
        alh_lock();
        dev_error(device, ALC_INVALID_VALUE);
        alh_unlock();
        return 0;
    }
    return v;
}

ALH_EXPORT const ALCchar *ALC_APIENTRY alcGetString(ALCdevice *device, ALCenum param) {
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    const char *s = NULL;
    switch (param) {
    case ALC_NO_ERROR: s = "No Error"; break;
    case ALC_INVALID_DEVICE: s = "Invalid Device"; break;
    case ALC_INVALID_CONTEXT: s = "Invalid Context"; break;
    case ALC_INVALID_ENUM: s = "Invalid Enum"; break;
    case ALC_INVALID_VALUE: s = "Invalid Value"; break;
    case ALC_OUT_OF_MEMORY: s = "Out of Memory"; break;
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
            dev_error(device, ALC_INVALID_DEVICE);
        break;
    default: dev_error(device, ALC_INVALID_ENUM); break;
    }
    alh_unlock();
    return s;
}

ALH_EXPORT void ALC_APIENTRY alcGetIntegerv(ALCdevice *device, ALCenum param, ALCsizei size,
                                            ALCint *values) {
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    if (!values || size <= 0) {
        dev_error(device, ALC_INVALID_VALUE);
        alh_unlock();
        return;
    }
    ALCcontext *c = NULL; /* the attributes of the device's current context, else defaults */
    ALCcontext *cur = alh_ctx();
    if (d && cur && cur->dev == d) c = cur;
    const int mono = c ? c->attr_mono : 255, stereo = c ? c->attr_stereo : 1;
    const int freq = d ? (int)d->rate : 0;
    const int refresh = d && d->period ? (int)(d->rate / d->period) : 50;
    switch (param) {
    case ALC_MAJOR_VERSION: values[0] = 1; break;
    case ALC_MINOR_VERSION: values[0] = 1; break;
    case ALC_ATTRIBUTES_SIZE:
        if (!d) goto bad_device;
        values[0] = 13;
        break;
    case ALC_ALL_ATTRIBUTES: {
        if (!d) goto bad_device;
        if (size < 13) {
            dev_error(device, ALC_INVALID_VALUE);
            break;
        }
        const ALCint a[13] = {ALC_FREQUENCY,
                              freq,
                              ALC_REFRESH,
                              refresh,
                              ALC_SYNC,
                              0,
                              ALC_MONO_SOURCES,
                              mono,
                              ALC_STEREO_SOURCES,
                              stereo,
                              ALC_CONNECTED,
                              d->connected,
                              0};
        memcpy(values, a, sizeof a);
        break;
    }
    case ALC_FREQUENCY:
        if (!d) goto bad_device;
        values[0] = freq;
        break;
    case ALC_REFRESH:
        if (!d) goto bad_device;
        values[0] = refresh;
        break;
    case ALC_SYNC:
        if (!d) goto bad_device;
        values[0] = 0;
        break;
    case ALC_MONO_SOURCES:
        if (!d) goto bad_device;
        values[0] = mono;
        break;
    case ALC_STEREO_SOURCES:
        if (!d) goto bad_device;
        values[0] = stereo;
        break;
    case ALC_CONNECTED:
        if (!d) goto bad_device;
        values[0] = d->connected;
        break;
    case ALC_HRTF_SOFT:
        if (!d) goto bad_device;
        values[0] = d->hrtf_on ? ALC_TRUE : ALC_FALSE;
        break;
    case ALC_HRTF_STATUS_SOFT:
        if (!d) goto bad_device;
        values[0] = d->hrtf_status;
        break;
    case ALC_NUM_HRTF_SPECIFIERS_SOFT:
        if (!d) goto bad_device;
        values[0] = d->daemon_hrtf ? 1 : 0;
        break;
    case ALC_CAPTURE_SAMPLES: goto bad_device; /* no capture device is ever open */
    default: dev_error(device, ALC_INVALID_ENUM); break;
    }
    alh_unlock();
    return;
bad_device:
    dev_error(device, ALC_INVALID_DEVICE);
    alh_unlock();
}

/* ---- ALC_SOFT_pause_device: every voice of the device held, its clock frozen ---- */
ALH_EXPORT void ALC_APIENTRY alcDevicePauseSOFT(ALCdevice *device) {
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    if (!d) {
        g_al.null_error = ALC_INVALID_DEVICE;
    } else if (!d->paused) {
        d->pause_frame = alh_now_frame(d);
        d->paused = 1;
        if (d->h) alh_conn_check(d, heliod_pause_all(d->h, 1, 0, NULL));
    }
    alh_unlock();
}

ALH_EXPORT void ALC_APIENTRY alcDeviceResumeSOFT(ALCdevice *device) {
    alh_lock();
    ALCdevice *d = alh_dev_ok(device);
    if (!d) {
        g_al.null_error = ALC_INVALID_DEVICE;
    } else if (d->paused) {
        d->paused = 0;
        const uint64_t now = alh_now_frame(d);
        if (now > d->pause_frame) alh_sources_shift(d, now - d->pause_frame);
        if (d->h) alh_conn_check(d, heliod_pause_all(d->h, 0, 0, NULL));
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
