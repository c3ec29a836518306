/*
 * backend_pa.c - the PortAudio output driver, plus device listing for
 * --list-devices and the DEVICES request.
 *
 * The stream is opened with a fixed framesPerBuffer equal to the engine
 * period, stereo float32 interleaved. The PortAudio callback is the audio
 * thread: it only forwards to the engine's render function with the
 * underflow flag. PortAudio reference-counts Pa_Initialize/Pa_Terminate, so
 * listing devices while a stream is open is safe.
 */
#include "backend.h"

#include <fcntl.h>
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
} pa_impl_t;

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
    PaError e = Pa_StartStream(p->stream);
    if (e != paNoError) {
        hld_error("portaudio: cannot start stream: %s", Pa_GetErrorText(e));
        return HELIOD_EIO;
    }
    return 0;
}

static void pa_stop(hld_backend_t *b) {
    pa_impl_t *p = b->impl;
    if (Pa_IsStreamActive(p->stream) == 1) Pa_StopStream(p->stream);
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
 * at /dev/null for the duration of Pa_Initialize. Main thread, at open/list time
 * only; returns the saved descriptor for quiet_end (-1 = nothing to restore).
 */
static int quiet_begin(void) {
    if (hld_log_enabled(HLD_LOG_DEBUG)) return -1;
    int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (nul < 0) return -1;
    fflush(stderr);
    int saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (saved >= 0) dup2(nul, 2);
    close(nul);
    return saved;
}

static void quiet_end(int saved) {
    if (saved < 0) return;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

/* Pa_Initialize without the host APIs' probing noise. */
static PaError pa_init_quiet(void) {
    int saved = quiet_begin();
    PaError e = Pa_Initialize();
    quiet_end(saved);
    return e;
}

static const hld_backend_ops_t g_pa_ops = {pa_start, pa_stop, pa_close};

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
    e = Pa_OpenStream(&p->stream, NULL, &op, cfg->rate, cfg->period, paClipOff, pa_callback_rt, p);
    if (e != paNoError) {
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
