/*
 * backend_pa.c - the PortAudio output driver, plus device listing for
 * --list-devices and the DEVICES request.
 *
 * The stream is opened with a fixed framesPerBuffer equal to the engine
 * period, stereo float32 interleaved. The PortAudio callback is the audio
 * thread: it only forwards to the engine's render function with the
 * underflow flag. PortAudio reference-counts Pa_Initialize/Pa_Terminate, so
 * listing devices while a stream is open is safe.
 *
 * A stream that stops by itself (the finished callback: JACK went away, the
 * device was unplugged) raises `finished`, which the main loop reads through
 * ops->lost (device.c). A lost stream is aborted, never drained.
 */
#include "backend.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <unistd.h>

#include <portaudio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hld_limits.h"
#include "log.h"

typedef struct {
    hld_backend_config_t cfg;
    PaStream *stream;
    atomic_int finished; /* the stream stopped without being asked (finished callback) */
    int stopping;        /* we asked: the finished callback is expected */
} pa_impl_t;

/* PortAudio's finished callback (its thread): the stream became inactive. */
static void pa_finished(void *user) {
    pa_impl_t *p = user;
    if (!p->stopping) atomic_store_explicit(&p->finished, 1, memory_order_release);
}

static int pa_lost(hld_backend_t *b) {
    pa_impl_t *p = b->impl;
    return p && atomic_load_explicit(&p->finished, memory_order_acquire);
}

static int pa_callback_rt(const void *in, void *out, unsigned long frames,
                          const PaStreamCallbackTimeInfo *ti, PaStreamCallbackFlags status,
                          void *user) {
    (void)in;
    (void)ti;
    pa_impl_t *p = user;
    uint32_t xrun = (status & paOutputUnderflow) ? HLD_XRUN_UNDERFLOW : 0;
    p->cfg.render(p->cfg.user, out, (uint32_t)frames, xrun);
    return paContinue;
}

/* Finds an output device by exact name, then case-insensitive substring. */
static PaDeviceIndex find_device(const char *name) {
    int n = Pa_GetDeviceCount();
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            const PaDeviceInfo *di = Pa_GetDeviceInfo(i);
            if (!di || di->maxOutputChannels < HLD_CHANNELS) continue;
            if (pass == 0 ? strcmp(di->name, name) == 0 : strcasestr(di->name, name) != NULL)
                return i;
        }
    }
    return paNoDevice;
}

static int pa_start(hld_backend_t *b) {
    pa_impl_t *p = b->impl;
    p->stopping = 0;
    PaError e = Pa_StartStream(p->stream);
    if (e != paNoError) {
        hld_error("portaudio: cannot start stream: %s", Pa_GetErrorText(e));
        return HELIOD_EIO;
    }
    return 0;
}

static void pa_stop(hld_backend_t *b) {
    pa_impl_t *p = b->impl;
    p->stopping = 1;
    if (b->dead || atomic_load_explicit(&p->finished, memory_order_acquire))
        Pa_AbortStream(p->stream); /* nothing to drain into a device that is gone */
    else if (Pa_IsStreamActive(p->stream) == 1)
        Pa_StopStream(p->stream);
}

static void pa_close(hld_backend_t *b) {
    pa_impl_t *p = b->impl;
    pa_stop(b);
    Pa_CloseStream(p->stream);
    Pa_Terminate();
    free(p);
    b->impl = NULL;
}

/*
 * PortAudio's host APIs print their probing (ALSA with no card, JACK with no
 * server) straight to stderr while they enumerate. Unless debugging, point fd 2
 * at a pipe for the duration of Pa_Initialize, then forward the lines that are
 * heliod's own log (other threads keep logging meanwhile: the device worker
 * runs this) and drop the rest. The pipe's write end is non-blocking, so a
 * flood of noise loses lines instead of blocking a writer.
 */
typedef struct {
    int saved; /* the real fd 2, -1 = nothing redirected */
    int rd;    /* the pipe's read end */
} quiet_t;

static quiet_t quiet_begin(void) {
    quiet_t q = {-1, -1};
    if (hld_log_enabled(HLD_LOG_DEBUG)) return q;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return q;
    fcntl(fds[0], F_SETPIPE_SZ, 1 << 20); /* best effort */
    fflush(stderr);
    q.saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (q.saved < 0 || dup2(fds[1], 2) < 0) {
        if (q.saved >= 0) close(q.saved);
        close(fds[0]);
        close(fds[1]);
        q.saved = -1;
        return q;
    }
    close(fds[1]);
    q.rd = fds[0];
    return q;
}

static void quiet_end(quiet_t q) {
    if (q.saved < 0) return;
    fflush(stderr);
    dup2(q.saved, 2); /* also closes the last write end: read sees EOF */
    close(q.saved);
    static char buf[1 << 16];
    size_t len = 0;
    for (;;) {
        ssize_t n = read(q.rd, buf + len, sizeof buf - 1 - len);
        if (n > 0) len += (size_t)n;
        if (n <= 0 || len == sizeof buf - 1) {
            buf[len] = '\0';
            for (char *line = buf, *nl; line < buf + len; line = nl + 1) {
                nl = strchr(line, '\n');
                if (!nl) nl = buf + len;
                if (strncmp(line, "heliod: ", 8) == 0)
                    (void)!write(2, line, (size_t)(nl - line) + (nl < buf + len));
            }
            len = 0;
            if (n <= 0) break;
        }
    }
    close(q.rd);
}

/* Pa_Initialize without the host APIs' probing noise. */
static PaError pa_init_quiet(void) {
    quiet_t q = quiet_begin();
    PaError e = Pa_Initialize();
    quiet_end(q);
    return e;
}

static const hld_backend_ops_t g_pa_ops = {pa_start, pa_stop, pa_close, pa_lost};

int hld_backend_pa_open(hld_backend_t *b, const hld_backend_config_t *cfg) {
    PaError e = pa_init_quiet();
    if (e != paNoError) {
        hld_warn("portaudio: cannot initialise: %s", Pa_GetErrorText(e));
        return HELIOD_EIO;
    }
    PaDeviceIndex dev =
        (cfg->device && cfg->device[0]) ? find_device(cfg->device) : Pa_GetDefaultOutputDevice();
    if (dev == paNoDevice) {
        if (cfg->device && cfg->device[0])
            hld_error("portaudio: no output device matches '%s' (see --list-devices)", cfg->device);
        else
            hld_warn("portaudio: no default output device");
        Pa_Terminate();
        return HELIOD_ENODEV;
    }
    const PaDeviceInfo *di = Pa_GetDeviceInfo(dev);
    pa_impl_t *p = calloc(1, sizeof *p);
    if (!p) {
        Pa_Terminate();
        return HELIOD_ENOMEM;
    }
    p->cfg = *cfg;
    PaStreamParameters op = {
        .device = dev,
        .channelCount = HLD_CHANNELS,
        .sampleFormat = paFloat32,
        .suggestedLatency = di->defaultLowOutputLatency,
        .hostApiSpecificStreamInfo = NULL,
    };
    /* The mixer runs at the engine rate: a device that cannot run at it is
     * refused (EINVAL), never opened at another rate (that would shift pitch). */
    if (Pa_IsFormatSupported(NULL, &op, cfg->rate) == paInvalidSampleRate) {
        hld_warn("portaudio: '%s' does not run at %u Hz (the engine rate)", di->name, cfg->rate);
        free(p);
        Pa_Terminate();
        return HELIOD_EINVAL;
    }
    e = Pa_OpenStream(&p->stream, NULL, &op, cfg->rate, cfg->period, paClipOff, pa_callback_rt, p);
    if (e == paNoError) e = Pa_SetStreamFinishedCallback(p->stream, pa_finished);
    if (e != paNoError) {
        if (p->stream) Pa_CloseStream(p->stream);
        hld_warn("portaudio: cannot open '%s' at %u Hz: %s", di->name, cfg->rate,
                 Pa_GetErrorText(e));
        free(p);
        Pa_Terminate();
        return HELIOD_EIO;
    }
    memset(b, 0, sizeof *b);
    b->ops = &g_pa_ops;
    b->name = "portaudio";
    snprintf(b->device_name, sizeof b->device_name, "%s", di->name);
    b->device_index = dev;
    const PaStreamInfo *si = Pa_GetStreamInfo(p->stream);
    b->latency_s = si ? si->outputLatency : 0.0;
    b->impl = p;
    return 0;
}

int hld_pa_list_devices(hl_device_info_t *arr, size_t cap, size_t *total, int current_index) {
    PaError e = pa_init_quiet();
    if (e != paNoError) {
        *total = 0;
        return HELIOD_EIO;
    }
    int n = Pa_GetDeviceCount();
    PaDeviceIndex def = Pa_GetDefaultOutputDevice();
    size_t filled = 0, count = 0;
    for (int i = 0; i < n; i++) {
        const PaDeviceInfo *di = Pa_GetDeviceInfo(i);
        if (!di || di->maxOutputChannels < 1) continue;
        count++;
        if (filled >= cap) continue;
        hl_device_info_t *d = &arr[filled++];
        memset(d, 0, sizeof *d);
        d->index = (uint32_t)i;
        snprintf(d->name, sizeof d->name, "%s", di->name);
        const PaHostApiInfo *hi = Pa_GetHostApiInfo(di->hostApi);
        snprintf(d->hostapi, sizeof d->hostapi, "%s", hi ? hi->name : "?");
        d->max_channels = (uint16_t)di->maxOutputChannels;
        d->default_rate = di->defaultSampleRate;
        d->flags =
            (uint8_t)((i == def ? HL_DEV_DEFAULT : 0) | (i == current_index ? HL_DEV_CURRENT : 0));
    }
    Pa_Terminate();
    *total = count;
    return (int)filled;
}
