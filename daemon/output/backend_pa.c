/*
 * backend_pa.c - the PortAudio output driver, plus device listing for
 * --list-devices and the DEVICES request.
 *
 * The stream is opened with a fixed framesPerBuffer equal to the engine
 * period, float32 interleaved in the layout's channels (cfg->channels). The PortAudio callback is
 * the audio thread: it only forwards to the engine's render function with the underflow flag.
 * PortAudio reference-counts Pa_Initialize/Pa_Terminate, so listing devices while a stream is open
 * is safe (it just does not rescan).
 *
 * A stream that stops by itself (the finished callback; the JACK server
 * died, which libjack reports through the shutdown callback below) raises
 * `lost`, which the main loop reads through ops->lost (device.c).
 *
 * A lost stream is never stopped on the caller's thread: close hands it to a
 * closer thread ("heliod-paclose") that aborts and closes it and releases
 * PortAudio (Pa_Terminate), so that the next Pa_Initialize really rescans and
 * finds a device that came back. Until that thread is done, PortAudio
 * belongs to it: hld_backend_pa_open and hld_pa_list_devices answer
 * HELIOD_EBUSY. At most one closer exists (nothing opens while one runs), so a
 * close that never returns costs one thread and one stream, once, and
 * recovery waits for it; it never blocks the device worker.
 *
 * Why a lost JACK stream needs help (pa_jack.c of PortAudio 19.6, 19.7 and
 * master; line numbers of 19.6): Pa_AbortStream, Pa_StopStream, and so
 * Pa_CloseStream and Pa_Terminate of a running stream, go through RealStop(),
 * which sets doAbort and waits on the host API's condition variable for the
 * JACK process callback to act on it:
 *   pthread_cond_timedwait   <- WaitCondition (pa_jack.c:1014, 10 minutes)
 *   <- RealStop (:1671) <- AbortStream <- Pa_CloseStream <- Pa_Terminate
 * When the server died, no process callback ever comes. PortAudio's shutdown
 * callback (JackOnShutdown) marks the streams inactive, sets jackIsDown and
 * signals that condition, but libjack calls it once, when it notices the
 * death, before we stop the stream: the wake-up is lost and RealStop waits
 * 10 minutes. And even once RealStop returns, CleanUpStream and Terminate
 * assert() that jack_port_unregister, jack_deactivate and jack_client_close
 * return 0, which they do not on a client whose server is gone (Debian
 * builds PortAudio with assertions: the daemon would abort). So the dead
 * stream was leaked, PortAudio stayed initialised (its reference count never
 * reached 0), and no Pa_Initialize ever rescanned: the zombie JACK client was
 * reused and jack_port_register failed on every retry.
 *
 * The fix wraps the four JACK calls PortAudio makes for this (heliod is
 * linked with --export-dynamic, so its definitions come before libjack's;
 * each forwards to libjack's through dlsym(RTLD_NEXT)):
 *   jack_on_shutdown      registers a trampoline that records that the
 *                         client's server died (g_jack_deaths: fast loss
 *                         detection) before calling PortAudio's callback
 *   jack_port_unregister, jack_deactivate, jack_client_close
 *                         report success for a client whose server died
 *                         (they still run: the client is freed, its threads
 *                         joined)
 * and while the closer runs, hld_pa_busy() calls PortAudio's shutdown
 * callback again for dead clients, so RealStop's wait is woken; it then sees
 * the stream inactive and returns paNoError at once. jack_deactivate retires
 * a client before PortAudio destroys the mutex the callback locks. Nothing
 * changes for a live server.
 */
#include "backend.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include <portaudio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl_resample.h"
#include "hld_limits.h"
#include "log.h"

/* ---- JACK server death (see the top of the file) ----------------------------- */

typedef struct _jack_client jack_client_t; /* as <jack/types.h> */
typedef struct _jack_port jack_port_t;
typedef void (*jack_shutdown_fn)(void *arg);

#define JACK_WATCH_SLOTS 4 /* PortAudio holds one JACK client per initialisation */

typedef struct {
    jack_client_t *client; /* NULL = free */
    jack_shutdown_fn fn;   /* PortAudio's JackOnShutdown */
    void *arg;             /* its host API */
    int dead;              /* libjack said the server is gone */
    int retired;           /* being torn down: PortAudio's callback must not run */
} jack_watch_t;

static pthread_mutex_t g_jw_lock = PTHREAD_MUTEX_INITIALIZER;
static jack_watch_t g_jw[JACK_WATCH_SLOTS];
static atomic_uint g_jack_deaths; /* shutdown callbacks seen, ever */

static struct {
    void (*on_shutdown)(jack_client_t *, jack_shutdown_fn, void *);
    int (*port_unregister)(jack_client_t *, jack_port_t *);
    int (*deactivate)(jack_client_t *);
    int (*client_close)(jack_client_t *);
} g_jack;
static pthread_once_t g_jack_once = PTHREAD_ONCE_INIT;

static void jack_resolve_one(void *fnp, const char *name) {
    void *sym = dlsym(RTLD_NEXT, name);
    memcpy(fnp, &sym, sizeof sym); /* ISO C has no object -> function pointer cast */
}

static void jack_resolve(void) {
    jack_resolve_one(&g_jack.on_shutdown, "jack_on_shutdown");
    jack_resolve_one(&g_jack.port_unregister, "jack_port_unregister");
    jack_resolve_one(&g_jack.deactivate, "jack_deactivate");
    jack_resolve_one(&g_jack.client_close, "jack_client_close");
}

/* The slot of `client` or NULL. g_jw_lock held. */
static jack_watch_t *jw_find(jack_client_t *client) {
    for (int i = 0; i < JACK_WATCH_SLOTS; i++)
        if (client && g_jw[i].client == client) return &g_jw[i];
    return NULL;
}

static int jw_dead(jack_client_t *client) {
    pthread_mutex_lock(&g_jw_lock);
    jack_watch_t *w = jw_find(client);
    int dead = w && w->dead;
    pthread_mutex_unlock(&g_jw_lock);
    return dead;
}

/* Marks the client as being torn down; returns whether its server died. */
static int jw_retire(jack_client_t *client) {
    pthread_mutex_lock(&g_jw_lock);
    jack_watch_t *w = jw_find(client);
    if (w) w->retired = 1;
    int dead = w && w->dead;
    pthread_mutex_unlock(&g_jw_lock);
    return dead;
}

/* libjack's thread, once, when the server went away. */
static void jack_shutdown_tramp(void *arg) {
    jack_watch_t *w = arg;
    atomic_fetch_add_explicit(&g_jack_deaths, 1, memory_order_release);
    pthread_mutex_lock(&g_jw_lock);
    w->dead = 1;
    if (w->client && !w->retired) w->fn(w->arg);
    pthread_mutex_unlock(&g_jw_lock);
}

/* PortAudio's shutdown callback again for every dead client still in use:
 * wakes a RealStop waiting for a process callback that will never come. */
static void jack_kick_dead(void) {
    pthread_mutex_lock(&g_jw_lock);
    for (int i = 0; i < JACK_WATCH_SLOTS; i++)
        if (g_jw[i].client && g_jw[i].fn && g_jw[i].dead && !g_jw[i].retired)
            g_jw[i].fn(g_jw[i].arg);
    pthread_mutex_unlock(&g_jw_lock);
}

void jack_on_shutdown(jack_client_t *client, jack_shutdown_fn fn, void *arg);
int jack_port_unregister(jack_client_t *client, jack_port_t *port);
int jack_deactivate(jack_client_t *client);
int jack_client_close(jack_client_t *client);

void jack_on_shutdown(jack_client_t *client, jack_shutdown_fn fn, void *arg) {
    pthread_once(&g_jack_once, jack_resolve);
    if (!g_jack.on_shutdown) return;
    pthread_mutex_lock(&g_jw_lock);
    jack_watch_t *w = jw_find(client);
    for (int i = 0; !w && i < JACK_WATCH_SLOTS; i++)
        if (!g_jw[i].client) w = &g_jw[i];
    if (w) *w = (jack_watch_t){.client = client, .fn = fn, .arg = arg};
    pthread_mutex_unlock(&g_jw_lock);
    if (w && fn)
        g_jack.on_shutdown(client, jack_shutdown_tramp, w);
    else
        g_jack.on_shutdown(client, fn, arg); /* no slot: as before, undetected */
}

int jack_port_unregister(jack_client_t *client, jack_port_t *port) {
    pthread_once(&g_jack_once, jack_resolve);
    int rc = g_jack.port_unregister ? g_jack.port_unregister(client, port) : -1;
    return rc != 0 && jw_dead(client) ? 0 : rc;
}

int jack_deactivate(jack_client_t *client) {
    pthread_once(&g_jack_once, jack_resolve);
    int dead = jw_retire(client); /* PortAudio destroys its mutex next */
    int rc = g_jack.deactivate ? g_jack.deactivate(client) : -1;
    return rc != 0 && dead ? 0 : rc;
}

int jack_client_close(jack_client_t *client) {
    pthread_once(&g_jack_once, jack_resolve);
    int dead = jw_retire(client);
    int rc = g_jack.client_close ? g_jack.client_close(client) : -1;
    pthread_mutex_lock(&g_jw_lock);
    jack_watch_t *w = jw_find(client);
    if (w) *w = (jack_watch_t){0}; /* its threads are joined: no late callback */
    pthread_mutex_unlock(&g_jw_lock);
    return rc != 0 && dead ? 0 : rc;
}

/* ---- the stream ------------------------------------------------------------------ */

typedef struct pa_impl {
    hld_backend_config_t cfg;
    PaStream *stream;
    atomic_int finished;  /* the stream stopped without being asked (finished callback) */
    atomic_int stopping;  /* we asked: the finished callback is expected */
    int jack;             /* on PortAudio's JACK host API */
    unsigned jack_deaths; /* g_jack_deaths before it was opened */
    struct pa_impl *next; /* in the closer's queue */
} pa_impl_t;

#define PA_CLOSE_WAIT_MS 250 /* close waits this long for a lost stream's closer */

/* The closer: lost streams waiting to be closed, and whether its thread runs
 * (then it owns PortAudio). */
static struct {
    pthread_mutex_t lock;
    pa_impl_t *queue;
    int running;
} g_close = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The message of the last failed open: a retry that fails the same way logs
 * at debug level (the device worker retries every few hundred ms). */
static char g_last_fail[256];

static void pa_fail(hld_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void pa_fail(hld_log_level_t level, const char *fmt, ...) {
    char msg[sizeof g_last_fail];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (strcmp(msg, g_last_fail) == 0)
        level = HLD_LOG_DEBUG;
    else
        memcpy(g_last_fail, msg, sizeof msg);
    hld_log(level, "%s", msg);
}

static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * HLD_NS_PER_S + (uint64_t)t.tv_nsec;
}

/* PortAudio's finished callback (its thread): the stream became inactive. */
static void pa_finished(void *user) {
    pa_impl_t *p = user;
    if (!atomic_load_explicit(&p->stopping, memory_order_acquire))
        atomic_store_explicit(&p->finished, 1, memory_order_release);
}

static int impl_lost(pa_impl_t *p) {
    return atomic_load_explicit(&p->finished, memory_order_acquire) ||
           (p->jack &&
            atomic_load_explicit(&g_jack_deaths, memory_order_acquire) != p->jack_deaths);
}

static int pa_lost(hld_backend_t *b) {
    pa_impl_t *p = b->impl;
    return p && impl_lost(p);
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
    atomic_store_explicit(&p->stopping, 0, memory_order_release);
    PaError e = Pa_StartStream(p->stream);
    if (e != paNoError) {
        hld_error("portaudio: cannot start stream: %s", Pa_GetErrorText(e));
        return HELIOD_EIO;
    }
    return 0;
}

/* Whether close must go through the closer: the stream is lost, or the
 * closer still owns PortAudio (a close that has not returned: PortAudio is
 * not thread-safe, so nothing else calls it meanwhile). */
static int pa_defer(hld_backend_t *b) {
    return b->dead || impl_lost(b->impl) || hld_pa_busy();
}

static void pa_stop(hld_backend_t *b) {
    pa_impl_t *p = b->impl;
    atomic_store_explicit(&p->stopping, 1, memory_order_release);
    if (pa_defer(b)) return; /* close aborts it, on the closer's thread */
    if (Pa_IsStreamActive(p->stream) == 1) Pa_StopStream(p->stream);
}

/* The closer thread: aborts and closes lost streams and releases PortAudio
 * for each (the last Pa_Terminate really terminates: the next Pa_Initialize
 * rescans). May block for as long as PortAudio does; hld_pa_busy() meanwhile
 * wakes PortAudio's JACK waits on a dead server. */
static void *closer_main(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "heliod-paclose");
    pthread_mutex_lock(&g_close.lock);
    for (pa_impl_t *p; (p = g_close.queue) != NULL;) {
        g_close.queue = p->next;
        pthread_mutex_unlock(&g_close.lock);
        uint64_t t0 = mono_ns();
        Pa_AbortStream(p->stream); /* nothing to drain into a device that is gone */
        PaError e = Pa_CloseStream(p->stream);
        Pa_Terminate();
        hld_debug("portaudio: lost stream closed in %.1f ms (%s)",
                  (double)(mono_ns() - t0) / HLD_NS_PER_MS, Pa_GetErrorText(e));
        free(p);
        pthread_mutex_lock(&g_close.lock);
    }
    g_close.running = 0;
    pthread_mutex_unlock(&g_close.lock);
    return NULL;
}

int hld_pa_busy(void) {
    pthread_mutex_lock(&g_close.lock);
    if (g_close.queue && !g_close.running) {
        pthread_attr_t a;
        pthread_t t;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &a, closer_main, NULL) == 0)
            g_close.running = 1; /* else the next call tries again */
        pthread_attr_destroy(&a);
    }
    int running = g_close.running, busy = running || g_close.queue;
    pthread_mutex_unlock(&g_close.lock);
    if (running) jack_kick_dead();
    return busy;
}

static void pa_close(hld_backend_t *b) {
    pa_impl_t *p = b->impl;
    if (!pa_defer(b)) {
        pa_stop(b);
        Pa_CloseStream(p->stream);
        Pa_Terminate();
        free(p);
        b->impl = NULL;
        return;
    }
    b->impl = NULL;
    b->closing = 1; /* the closer owns it from here */
    atomic_store_explicit(&p->stopping, 1, memory_order_release);
    pthread_mutex_lock(&g_close.lock);
    p->next = g_close.queue;
    g_close.queue = p;
    pthread_mutex_unlock(&g_close.lock);
    uint64_t end = mono_ns() + PA_CLOSE_WAIT_MS * HLD_NS_PER_MS;
    struct timespec t = {0, (long)HLD_NS_PER_MS};
    while (hld_pa_busy() && mono_ns() < end)
        nanosleep(&t, NULL);
    if (hld_pa_busy())
        hld_warn("portaudio: the lost stream is still closing; PortAudio is busy until it is done");
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
    if (hld_pa_busy()) {
        pa_fail(HLD_LOG_WARN, "portaudio: busy closing the lost stream");
        return HELIOD_EBUSY;
    }
    unsigned deaths = atomic_load_explicit(&g_jack_deaths, memory_order_acquire);
    PaError e = pa_init_quiet();
    if (e != paNoError) {
        pa_fail(HLD_LOG_WARN, "portaudio: cannot initialise: %s", Pa_GetErrorText(e));
        return HELIOD_EIO;
    }
    PaDeviceIndex dev =
        (cfg->device && cfg->device[0]) ? find_device(cfg->device) : Pa_GetDefaultOutputDevice();
    if (dev == paNoDevice) {
        if (cfg->device && cfg->device[0])
            pa_fail(HLD_LOG_ERROR, "portaudio: no output device matches '%s' (see --list-devices)",
                    cfg->device);
        else
            pa_fail(HLD_LOG_WARN, "portaudio: no default output device");
        Pa_Terminate();
        return HELIOD_ENODEV;
    }
    const PaDeviceInfo *di = Pa_GetDeviceInfo(dev);
    uint32_t ch = cfg->channels ? cfg->channels : HLD_CHANNELS;
    if (di && (uint32_t)di->maxOutputChannels < ch) { /* --layout wider than the device */
        pa_fail(HLD_LOG_ERROR,
                "portaudio: '%s' has %d output channels; the layout needs %u (see "
                "--list-devices, or --layout stereo)",
                di->name, di->maxOutputChannels, ch);
        Pa_Terminate();
        return HELIOD_EINVAL;
    }
    pa_impl_t *p = calloc(1, sizeof *p);
    if (!p) {
        Pa_Terminate();
        return HELIOD_ENOMEM;
    }
    p->cfg = *cfg;
    const PaHostApiInfo *hi = Pa_GetHostApiInfo(di->hostApi);
    p->jack = hi && hi->type == paJACK;
    p->jack_deaths = deaths;
    PaStreamParameters op = {
        .device = dev,
        .channelCount = (int)ch,
        .sampleFormat = paFloat32,
        .suggestedLatency = di->defaultLowOutputLatency,
        .hostApiSpecificStreamInfo = NULL,
    };
    /* The engine rate if the device runs at it; else the device's own
     * default rate, which the engine converts to (hld_engine_backend_open:
     * voices, streams and the clock keep the engine rate, so nothing changes
     * pitch). A device that does neither, or whose rate is out of the
     * converter's range, is refused (EINVAL). */
    uint32_t rate = cfg->rate, period = cfg->period;
    if (Pa_IsFormatSupported(NULL, &op, cfg->rate) == paInvalidSampleRate) {
        double dr = di->defaultSampleRate;
        uint32_t alt = dr >= HL_RS_MIN_RATE && dr <= HL_RS_MAX_RATE ? (uint32_t)lround(dr) : 0;
        if (!alt || !hl_resample_size(cfg->rate, alt, cfg->period, cfg->channels) ||
            Pa_IsFormatSupported(NULL, &op, alt) != paFormatIsSupported) {
            pa_fail(HLD_LOG_WARN,
                    "portaudio: '%s' runs neither at %u Hz (the engine rate) nor at a rate "
                    "heliod converts to (its default: %.0f Hz)",
                    di->name, cfg->rate, dr);
            free(p);
            Pa_Terminate();
            return HELIOD_EINVAL;
        }
        rate = alt;
        period = (uint32_t)(((uint64_t)cfg->period * alt + cfg->rate / 2) / cfg->rate);
        if (period < 16) period = 16;
        hld_info("portaudio: '%s' runs at %u Hz, not %u: converting the engine's output to it",
                 di->name, alt, cfg->rate);
    }
    e = Pa_OpenStream(&p->stream, NULL, &op, rate, period, paClipOff, pa_callback_rt, p);
    if (e == paNoError) e = Pa_SetStreamFinishedCallback(p->stream, pa_finished);
    if (e != paNoError) {
        if (p->stream) Pa_CloseStream(p->stream);
        pa_fail(HLD_LOG_WARN, "portaudio: cannot open '%s' at %u Hz: %s", di->name, rate,
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
    b->rate = rate;
    b->impl = p;
    g_last_fail[0] = '\0';
    return 0;
}

int hld_pa_list_devices(hl_device_info_t *arr, size_t cap, size_t *total, int current_index) {
    if (hld_pa_busy()) {
        *total = 0;
        return HELIOD_EBUSY;
    }
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
