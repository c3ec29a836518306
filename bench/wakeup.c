/*
 * wakeup.c - the platform's floor for small periods: how late a real-time
 * thread that does nothing but wake once per period is woken.
 *
 * An audio callback can only be on time if the thread that runs it is
 * woken on time. This measures that alone, with no mixing and no device: a
 * thread at SCHED_FIFO (when permitted) with its memory locked sleeps to
 * absolute deadlines one period apart (CLOCK_MONOTONIC, clock_nanosleep)
 * and records how late each wake-up is. A wake-up later than a whole period
 * is a block an audio device would have missed whatever the engine did; if
 * this machine shows any, `--period` that small cannot run with 0 xruns on
 * it (a busy or shared VM typically shows several per minute).
 *
 * With -d DEVICE it measures the same floor one level up, through the
 * audio stack the daemon uses: a PortAudio output stream on DEVICE (for
 * example "system", a JACK server's ports) whose callback only writes
 * silence, counting the callbacks PortAudio flags as output underflow (the
 * count the daemon reports as underruns/xruns) and the gaps between
 * callbacks. A client that does no work at all getting underruns means no
 * client can get 0 at that period on this machine and server.
 *
 * Usage: wakeup [-s seconds] [-p frames]... [-r rate] [-d device]
 *   defaults: 10 s per period, periods 64 128 256, rate 48000
 * One line per period:
 *   wakeup period=64 period_us=1333.3 seconds=10 rt=1 wakeups=7500
 *          mean_late_us=... p99_late_us=... max_late_us=...
 *          late_over_half=... late_over_period=...
 *   wakeup driver=portaudio device="system" period=64 period_us=1333.3
 *          seconds=10 callbacks=... underruns=... max_gap_us=...
 *          gaps_over_2_periods=...
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <portaudio.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage_to(FILE *f, int rc, const char *argv0) {
    fprintf(f,
            "usage: %s [-s seconds] [-p frames]... [-r rate] [-d device]\n"
            "  -s   seconds to measure per period (default 10)\n"
            "  -p   a period in frames; repeat for several (default 64 128 256)\n"
            "  -r   sample rate the periods are at (default 48000)\n"
            "  -d   instead, open this PortAudio output device (name or part of it,\n"
            "       e.g. system for JACK) with a callback that only writes silence,\n"
            "       and count the underruns PortAudio reports\n"
            "Prints one line per period: how late a SCHED_FIFO thread doing nothing\n"
            "but waking once per period is woken (mean, p99, max; and how many\n"
            "wake-ups were later than half a period and than a whole one); with -d,\n"
            "the idle client's callbacks, underruns and longest gap between callbacks.\n",
            argv0);
    exit(rc);
}

static void usage(const char *argv0) {
    usage_to(stderr, 2, argv0);
}

static void measure(double seconds, long frames, double rate, int rt) {
    const long period_ns = (long)((double)frames * 1e9 / rate + 0.5);
    const long n = (long)(seconds * 1e9 / (double)period_ns);
    double *late = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!late || n <= 0) {
        fprintf(stderr, "wakeup: nothing to measure\n");
        exit(1);
    }
    struct timespec next, now;
    clock_gettime(CLOCK_MONOTONIC, &next);
    long over_half = 0, over_period = 0;
    double sum = 0.0;
    for (long i = 0; i < n; i++) {
        next.tv_nsec += period_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        double us =
            (double)(now.tv_sec - next.tv_sec) * 1e6 + (double)(now.tv_nsec - next.tv_nsec) / 1e3;
        late[i] = us;
        sum += us;
        if (us * 1e3 > (double)period_ns / 2) over_half++;
        if (us * 1e3 > (double)period_ns) over_period++;
    }
    qsort(late, (size_t)n, sizeof(double), cmp_double);
    printf("wakeup period=%ld period_us=%.1f seconds=%g rt=%d wakeups=%ld mean_late_us=%.1f "
           "p99_late_us=%.1f max_late_us=%.1f late_over_half=%ld late_over_period=%ld\n",
           frames, (double)period_ns / 1e3, seconds, rt, n, sum / (double)n,
           late[(size_t)((double)(n - 1) * 0.99)], late[n - 1], over_half, over_period);
    fflush(stdout);
    free(late);
}

/* The idle PortAudio client: what its callback sees. */
typedef struct {
    atomic_long callbacks, underruns, gaps_over_2;
    atomic_long max_gap_ns;
    struct timespec last;
    int have_last;
    long period_ns;
} idle_t;

/* audio thread: writes silence and counts; no lock, no allocation. */
static int idle_cb(const void *in, void *out, unsigned long frames,
                   const PaStreamCallbackTimeInfo *ti, PaStreamCallbackFlags flags, void *user) {
    (void)in;
    (void)ti;
    idle_t *s = user;
    memset(out, 0, frames * 2 * sizeof(float));
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (s->have_last) {
        long gap = (now.tv_sec - s->last.tv_sec) * 1000000000L + (now.tv_nsec - s->last.tv_nsec);
        if (gap > atomic_load_explicit(&s->max_gap_ns, memory_order_relaxed))
            atomic_store_explicit(&s->max_gap_ns, gap, memory_order_relaxed);
        if (gap > 2 * s->period_ns)
            atomic_fetch_add_explicit(&s->gaps_over_2, 1, memory_order_relaxed);
    }
    s->last = now;
    s->have_last = 1;
    atomic_fetch_add_explicit(&s->callbacks, 1, memory_order_relaxed);
    if (flags & paOutputUnderflow)
        atomic_fetch_add_explicit(&s->underruns, 1, memory_order_relaxed);
    return paContinue;
}

static int find_output(const char *name) {
    int n = Pa_GetDeviceCount();
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            const PaDeviceInfo *di = Pa_GetDeviceInfo(i);
            if (!di || di->maxOutputChannels < 2) continue;
            if (pass == 0 ? strcmp(di->name, name) == 0 : strcasestr(di->name, name) != NULL)
                return i;
        }
    return -1;
}

static int measure_pa(const char *device, double seconds, long frames, double rate) {
    int dev = find_output(device);
    if (dev < 0) {
        fprintf(stderr, "wakeup: no PortAudio output device matches \"%s\"\n", device);
        return 1;
    }
    static idle_t s;
    memset(&s, 0, sizeof s);
    s.period_ns = (long)((double)frames * 1e9 / rate + 0.5);
    PaStreamParameters op = {.device = dev,
                             .channelCount = 2,
                             .sampleFormat = paFloat32,
                             .suggestedLatency = Pa_GetDeviceInfo(dev)->defaultLowOutputLatency};
    PaStream *st = NULL;
    PaError e = Pa_OpenStream(&st, NULL, &op, rate, (unsigned long)frames, paClipOff, idle_cb, &s);
    if (e == paNoError) e = Pa_StartStream(st);
    if (e != paNoError) {
        fprintf(stderr, "wakeup: cannot run a stream on \"%s\": %s\n", device, Pa_GetErrorText(e));
        if (st) Pa_CloseStream(st);
        return 1;
    }
    struct timespec d = {.tv_sec = (time_t)seconds,
                         .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&d, &d) == -1 && errno == EINTR) {
    }
    Pa_StopStream(st);
    Pa_CloseStream(st);
    printf("wakeup driver=portaudio device=\"%s\" period=%ld period_us=%.1f seconds=%g "
           "callbacks=%ld underruns=%ld max_gap_us=%.1f gaps_over_2_periods=%ld\n",
           Pa_GetDeviceInfo(dev)->name, frames, (double)s.period_ns / 1e3, seconds,
           atomic_load(&s.callbacks), atomic_load(&s.underruns),
           (double)atomic_load(&s.max_gap_ns) / 1e3, atomic_load(&s.gaps_over_2));
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    double seconds = 10.0, rate = 48000.0;
    const char *device = NULL;
    long periods[16];
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            rate = atof(argv[++i]);
        else if (!strcmp(argv[i], "-p") && i + 1 < argc && np < 16)
            periods[np++] = atol(argv[++i]);
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            usage_to(stdout, 0, argv[0]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc)
            device = argv[++i];
        else
            usage(argv[0]);
    }
    if (seconds <= 0.0 || rate < 8000.0) usage(argv[0]);
    for (int i = 0; i < np; i++)
        if (periods[i] < 16 || periods[i] > 8192) usage(argv[0]);
    if (np == 0) {
        periods[np++] = 64;
        periods[np++] = 128;
        periods[np++] = 256;
    }
    (void)mlockall(MCL_CURRENT | MCL_FUTURE); /* best effort, as the daemon */
    if (device) {
        /* The stream's thread is the audio stack's (JACK gives it its
         * real-time priority), as for the daemon. */
        if (Pa_Initialize() != paNoError) {
            fprintf(stderr, "wakeup: PortAudio does not start\n");
            return 1;
        }
        int rc = 0;
        for (int i = 0; i < np && rc == 0; i++)
            rc = measure_pa(device, seconds, periods[i], rate);
        Pa_Terminate();
        return rc;
    }
    struct sched_param sp = {.sched_priority = 70};
    int rt = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
    if (!rt)
        fprintf(stderr, "wakeup: no SCHED_FIFO here (%s): measuring at normal priority\n",
                strerror(errno));
    for (int i = 0; i < np; i++)
        measure(seconds, periods[i], rate, rt);
    return 0;
}
