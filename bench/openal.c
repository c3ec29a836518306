/*
 * openal.c - the cost of heliod's OpenAL library (client/openal) as games
 * use it: alGetSourcei(AL_SOURCE_STATE) (a local read, no round trip),
 * alSourcePlay on a new source, alListenerfv per frame with sources
 * playing, and the latency from alSourcePlay to the first recorded sample.
 * Starts its own heliod (null driver, --record). Prints one line:
 *   openal state_ns=... play_us=... listener_us=... latency_ms=... errors=N
 * Usage: openal [--calls N] [--plays N] [--heliod PATH]
 */
#include <AL/al.h>
#include <AL/alc.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_daemon.h"
#include "bench_opts.h"

static double median(double *v, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            const double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return n ? v[n / 2] : 0.0;
}

int main(int argc, char **argv) {
    long calls = 1000000, plays = 255;
    const char *heliod_arg = NULL;
    const bo_opt_t opts[] = {{"calls", 'l', &calls},
                             {"plays", 'l', &plays},
                             {"heliod", 's', &heliod_arg},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts,
             "[--calls N] [--plays N] [--heliod PATH]\n"
             "  --calls   alGetSourcei calls timed (default 1000000)\n"
             "  --plays   sources played (default 255, at most 4000)\n"
             "  --heliod  the daemon to start (default: the build's)");
    if (calls < 1 || plays < 1 || plays > 4000) return 2;
    char heliod[BD_PATH_MAX], recdir[] = "/tmp/hl-bench-openal-XXXXXX", rec[600];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) < 0 || !mkdtemp(recdir)) return 1;
    snprintf(rec, sizeof rec, "%s/out.wav", recdir);
    const char *args[] = {"--driver", "null", "--record", rec, "--log-level", "warn", NULL};
    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, args, &h) < 0) return 1;
    setenv("HELIOD_SOCKET", d.socket, 1);
    ALCdevice *dev = alcOpenDevice(NULL);
    ALCcontext *ctx = dev ? alcCreateContext(dev, NULL) : NULL;
    if (!ctx || !alcMakeContextCurrent(ctx)) {
        fprintf(stderr, "openal: no device\n");
        bd_daemon_stop(&d, 0);
        return 1;
    }
    int errors = 0;
    /* a 0.2 s mono buffer */
    static short pcm[9600];
    for (int i = 0; i < 9600; i++)
        pcm[i] = (short)((i % 96) < 48 ? 8000 : -8000);
    ALuint buf;
    alGenBuffers(1, &buf);
    alBufferData(buf, AL_FORMAT_MONO16, pcm, sizeof pcm, 48000);

    /* 1. alGetSourcei(AL_SOURCE_STATE) on a playing source */
    ALuint s0;
    alGenSources(1, &s0);
    alSourcei(s0, AL_BUFFER, (ALint)buf);
    alSourcei(s0, AL_LOOPING, AL_TRUE);
    alSourcePlay(s0);
    ALint st = 0;
    uint64_t t0 = bd_now_ns();
    for (long i = 0; i < calls; i++)
        alGetSourcei(s0, AL_SOURCE_STATE, &st);
    const double state_ns = (double)(bd_now_ns() - t0) / (double)calls;
    if (st != AL_PLAYING) errors++;

    /* 2. alSourcePlay on a new source (the play itself) */
    ALuint *src = calloc((size_t)plays, sizeof *src);
    alGenSources((ALsizei)plays, src);
    double play_total = 0;
    for (long i = 0; i < plays; i++) {
        alSourcei(src[i], AL_BUFFER, (ALint)buf);
        alSourcei(src[i], AL_LOOPING, AL_TRUE);
        alSource3f(src[i], AL_POSITION, (float)(i % 20) - 10.0f, 0.0f, -2.0f);
        t0 = bd_now_ns();
        alSourcePlay(src[i]);
        play_total += (double)(bd_now_ns() - t0);
    }
    const double play_us = play_total / (double)plays / BD_NS_PER_US;

    /* 3. a frame's listener update with every source playing */
    const int frames = 60;
    double lis_total = 0;
    for (int f = 0; f < frames; f++) { /* paced as a game's frames (the daemon's ring is finite) */
        const float pos[3] = {(float)f * 0.01f, 0.0f, 0.0f};
        const float ori[6] = {0.0f, 0.0f, -1.0f, 0.0f, 1.0f, 0.0f};
        t0 = bd_now_ns();
        alListenerfv(AL_POSITION, pos);
        alListenerfv(AL_ORIENTATION, ori);
        lis_total += (double)(bd_now_ns() - t0);
        bd_sleep(0.016); /* 60 frames per second */
    }
    const double listener_us = lis_total / frames / BD_NS_PER_US;
    alSourceStopv((ALsizei)plays, src);
    alSourceStop(s0);
    alDeleteSources((ALsizei)plays, src); /* room for the next ones (256 per context) */
    alDeleteSources(1, &s0);
    if (alGetError() != AL_NO_ERROR) errors++;

    /* 4. alSourcePlay -> first recorded sample, against the engine clock. A
     * marker played through libheliod on a scheduled engine frame tells
     * where the recording's frame 0 is on that clock. */
    bd_sleep(0.5); /* silence */
    heliod_clock_t clk;
    char marker[700];
    snprintf(marker, sizeof marker, "%s/marker.wav", recdir);
    uint64_t marker_frame = 0;
    if (bd_write_noise_wav(marker, 2400, 1) < 0 || heliod_load(h, "marker", marker, 0, NULL) < 0 ||
        heliod_clock(h, &clk) < 0) {
        errors++;
    } else {
        marker_frame = clk.frame + 9600;
        heliod_at_frame(h, marker_frame);
        if (heliod_play(h, "marker", NULL, NULL, NULL) < 0) errors++;
        heliod_at_frame(h, 0);
    }
    bd_sleep(0.5);
    const int tries = 5;
    uint64_t want[5];
    for (int k = 0; k < tries; k++) {
        if (heliod_clock(h, &clk) < 0) errors++;
        ALuint s;
        alGenSources(1, &s);
        alSourcei(s, AL_BUFFER, (ALint)buf);
        const uint64_t t = bd_now_ns();
        alSourcePlay(s);
        want[k] = heliod_clock_frame_at(&clk, t);
        bd_sleep(0.35);
        alDeleteSources(1, &s);
    }
    alDeleteBuffers(1, &buf);
    alcMakeContextCurrent(NULL);
    alcDestroyContext(ctx);
    alcCloseDevice(dev);
    heliod_close(h);
    bd_daemon_stop(&d, 0);
    double lat[5];
    int nlat = 0;
    SF_INFO info = {0};
    SNDFILE *sf = sf_open(rec, SFM_READ, &info);
    if (sf && info.channels == 2) {
        float *x = malloc((size_t)info.frames * 2 * sizeof *x);
        const sf_count_t n = x ? sf_readf_float(sf, x, info.frames) : 0;
        /* the marker's onset (recording frame m is engine frame marker_frame):
         * the first sound after 0.15 s of silence (what came before stopped) */
        sf_count_t m = 0, zeros = 0;
        for (; m < n; m++) {
            const int silent = x[2 * m] == 0.0f && x[2 * m + 1] == 0.0f;
            if (!silent && zeros >= 7200) break;
            zeros = silent ? zeros + 1 : 0;
        }
        const int64_t shift =
            (int64_t)marker_frame - (int64_t)m; /* engine frame - recorded index */
        for (int k = 0; k < tries && m < n; k++) {
            sf_count_t i = (sf_count_t)((int64_t)want[k] - shift);
            if (i < 0) i = 0;
            const sf_count_t from = i;
            while (i < n && x[2 * i] == 0.0f && x[2 * i + 1] == 0.0f)
                i++;
            if (i < n) lat[nlat++] = (double)(i - from) * 1000.0 / info.samplerate;
            if (getenv("OPENAL_BENCH_DEBUG"))
                fprintf(stderr, "m=%lld shift=%lld want=%llu from=%lld onset=%lld\n", (long long)m,
                        (long long)shift, (unsigned long long)want[k], (long long)from,
                        (long long)i);
        }
        free(x);
    }
    if (sf) sf_close(sf);
    unlink(rec);
    unlink(marker);
    rmdir(recdir);
    if (nlat < tries) errors++;
    printf("openal state_ns=%.1f play_us=%.2f listener_us=%.2f sources=%ld latency_ms=%.2f "
           "calls=%ld errors=%d\n",
           state_ns, play_us, listener_us, plays + 1, median(lat, nlat), calls, errors);
    free(src);
    return errors ? 1 : 0;
}
