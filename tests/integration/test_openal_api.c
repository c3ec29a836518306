/*
 * test_openal_api.c - heliod's OpenAL library (client/openal) through its C
 * API against the real daemon: ALC queries and attributes, enum and
 * extension names, contexts (several per device, thread-local), the
 * semantics games rely on (AL_PLAYING at once, AL_STOPPED at the end without
 * a round trip, offsets, a buffer in use cannot go), queues that run dry and
 * restart, two threads calling at once (the TSan pass runs this too), and
 * the daemon going away and coming back (sources stop, errors are set, the
 * library reconnects and uploads its buffers again).
 */
#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"

#ifndef ALC_CONNECTED
#define ALC_CONNECTED 0x313
#endif

typedef ALCboolean(ALC_APIENTRY *set_thread_ctx_fn)(ALCcontext *);
typedef ALCcontext *(ALC_APIENTRY *get_thread_ctx_fn)(void);

static short pcm[48000];

static void fill_pcm(void) {
    for (int i = 0; i < 48000; i++)
        pcm[i] = (short)((i % 100) < 50 ? 6000 : -6000);
}

static ALuint make_buffer(ALsizei frames) {
    ALuint b = 0;
    alGenBuffers(1, &b);
    alBufferData(b, AL_FORMAT_MONO16, pcm, frames * 2, 48000);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    return b;
}

/* Polls AL_SOURCE_STATE until it leaves AL_PLAYING (at most 10 s). */
static ALint wait_not_playing(ALuint s) {
    ALint st = AL_PLAYING;
    for (int i = 0; i < 2000 && st == AL_PLAYING; i++) {
        alGetSourcei(s, AL_SOURCE_STATE, &st);
        if (st == AL_PLAYING) th_sleep_ms(5);
    }
    return st;
}

static int daemon_hrtf; /* the fixture's daemon runs with --hrtf */

static int setup(void **state) {
    fill_pcm();
    daemon_hrtf = 0;
    if (th_fixture_start(state, 0, NULL) != 0) return -1;
    th_fixture_t *f = *state;
    setenv("HELIOD_SOCKET", f->d.sock, 1);
    return 0;
}

static int teardown(void **state) {
    return th_fixture_teardown(state);
}

static void open_ctx(ALCdevice **dev, ALCcontext **ctx, const ALCint *attrs) {
    *dev = alcOpenDevice(NULL);
    assert_non_null(*dev);
    *ctx = alcCreateContext(*dev, attrs);
    assert_non_null(*ctx);
    assert_true(alcMakeContextCurrent(*ctx));
}

static void close_ctx(ALCdevice *dev, ALCcontext *ctx) {
    alcMakeContextCurrent(NULL);
    alcDestroyContext(ctx);
    assert_true(alcCloseDevice(dev));
}

static void test_alc_queries(void **state) {
    (void)state;
    const ALCint attrs[] = {ALC_FREQUENCY, 22050, ALC_MONO_SOURCES, 64, 0};
    ALCdevice *dev;
    ALCcontext *ctx;
    open_ctx(&dev, &ctx, attrs);
    ALCint v = 0;
    alcGetIntegerv(dev, ALC_FREQUENCY, 1, &v);
    assert_int_equal(v, 48000); /* requested 22050: the daemon's real rate is reported */
    ALCint mono = 0, stereo = 0;
    alcGetIntegerv(dev, ALC_MONO_SOURCES, 1, &mono);
    alcGetIntegerv(dev, ALC_STEREO_SOURCES, 1, &stereo);
    assert_true(mono + stereo >= 255);
    ALCint n = 0, all[32];
    alcGetIntegerv(dev, ALC_ATTRIBUTES_SIZE, 1, &n);
    assert_true(n > 2 && n <= 32 && n % 2 == 1);
    alcGetIntegerv(dev, ALC_ALL_ATTRIBUTES, n, all);
    assert_int_equal(all[n - 1], 0);
    int saw_freq = 0;
    for (int i = 0; i + 1 < n; i += 2)
        if (all[i] == ALC_FREQUENCY && all[i + 1] == 48000) saw_freq = 1;
    assert_true(saw_freq);
    alcGetIntegerv(dev, ALC_CONNECTED, 1, &v);
    assert_int_equal(v, 1);
    assert_int_equal(alcGetError(dev), ALC_NO_ERROR);
    alcGetIntegerv(dev, 0x7fff, 1, &v);
    assert_int_equal(alcGetError(dev), ALC_INVALID_ENUM);
    /* names */
    assert_true(alcIsExtensionPresent(dev, "alc_ext_THREAD_local_context"));
    assert_true(alcIsExtensionPresent(NULL, "ALC_ENUMERATE_ALL_EXT"));
    assert_non_null(strstr(alcGetString(NULL, ALC_EXTENSIONS), "ALC_ENUMERATION_EXT"));
    assert_false(alcIsExtensionPresent(dev, "ALC_EXT_EFX")); /* not implemented: not advertised */
    assert_true(alIsExtensionPresent("al_ext_float32"));
    assert_true(alIsExtensionPresent("al_ext_mcformats"));
    assert_int_equal(alGetEnumValue("AL_FORMAT_71CHN32"), AL_FORMAT_71CHN32);
    assert_int_equal(alGetEnumValue("AL_FORMAT_MONO_FLOAT32"), AL_FORMAT_MONO_FLOAT32);
    assert_int_equal(alGetEnumValue("AL_FORMAT_STEREO16"), AL_FORMAT_STEREO16);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    assert_int_equal(alGetEnumValue("AL_NO_SUCH_THING"), 0);
    assert_int_equal(alGetError(), AL_INVALID_VALUE);
    assert_string_equal(alcGetString(dev, ALC_DEVICE_SPECIFIER), "heliod");
    const ALCchar *list = alcGetString(NULL, ALC_ALL_DEVICES_SPECIFIER);
    assert_non_null(list);
    assert_string_equal(list, "heliod");
    assert_int_equal(list[strlen(list) + 1], '\0'); /* a double-NUL list */
    assert_non_null(alGetProcAddress("alSourcePlay"));
    assert_ptr_equal(alcGetProcAddress(dev, "alcSetThreadContext"),
                     alGetProcAddress("alcSetThreadContext"));
    /* unimplemented: the proper errors */
    assert_null(alcCaptureOpenDevice(NULL, 44100, AL_FORMAT_MONO16, 1024));
    assert_int_equal(alcGetError(NULL), ALC_INVALID_VALUE);
    assert_false(alcIsExtensionPresent(dev, "ALC_EXT_CAPTURE")); /* no input path */
    assert_false(alcIsExtensionPresent(NULL, "ALC_EXT_CAPTURE"));
    alEnable(AL_SOURCE_DISTANCE_MODEL);
    assert_int_equal(alGetError(), AL_INVALID_ENUM);
    close_ctx(dev, ctx);
}

static void test_contexts(void **state) {
    (void)state;
    ALCdevice *dev;
    ALCcontext *a;
    open_ctx(&dev, &a, NULL);
    ALCcontext *b = alcCreateContext(dev, NULL);
    assert_non_null(b);
    assert_ptr_equal(alcGetContextsDevice(b), dev);
    ALuint sa;
    alGenSources(1, &sa);
    assert_true(alIsSource(sa));
    set_thread_ctx_fn set_tc;
    get_thread_ctx_fn get_tc;
    void *p1 = alcGetProcAddress(dev, "alcSetThreadContext"),
         *p2 = alcGetProcAddress(dev, "alcGetThreadContext");
    memcpy(&set_tc, &p1, sizeof set_tc); /* as every program does with a function's address */
    memcpy(&get_tc, &p2, sizeof get_tc);
    assert_non_null(set_tc);
    assert_non_null(get_tc);
    assert_true(set_tc(b)); /* this thread now uses b */
    assert_ptr_equal(get_tc(), b);
    assert_ptr_equal(alcGetCurrentContext(), b);
    assert_false(alIsSource(sa)); /* a's source is not b's */
    alListenerf(AL_GAIN, 0.5f);
    assert_true(set_tc(NULL));
    assert_ptr_equal(alcGetCurrentContext(), a);
    ALfloat g = 0;
    alGetListenerf(AL_GAIN, &g);
    assert_true(g == 1.0f); /* each context has its own listener */
    alDeleteSources(1, &sa);
    alcDestroyContext(b);
    /* a device closed with its context still current: the context goes too */
    ALuint left;
    alGenSources(1, &left);
    assert_true(alcCloseDevice(dev));
    assert_null(alcGetCurrentContext());
    ALCint v = 0;
    alcGetIntegerv(dev, ALC_CONNECTED, 1, &v);
    assert_int_equal(alcGetError(dev), ALC_INVALID_DEVICE);
    (void)a;
}

static void test_source_semantics(void **state) {
    (void)state;
    ALCdevice *dev;
    ALCcontext *ctx;
    open_ctx(&dev, &ctx, NULL);
    ALuint src[256];
    alGenSources(256, src); /* games create them all at start */
    assert_int_equal(alGetError(), AL_NO_ERROR);
    ALuint extra = 0;
    alGenSources(1, &extra); /* the 257th: as OpenAL Soft, out of memory */
    assert_int_equal(alGetError(), AL_OUT_OF_MEMORY);
    ALuint b = make_buffer(4800); /* 0.1 s */
    alSourcei(src[0], AL_BUFFER, (ALint)b);
    alSourcePlay(src[0]);
    ALint st = 0;
    alGetSourcei(src[0], AL_SOURCE_STATE, &st);
    assert_int_equal(st, AL_PLAYING); /* at once, no round trip */
    alDeleteBuffers(1, &b);
    assert_int_equal(alGetError(), AL_INVALID_OPERATION); /* in use */
    assert_true(alIsBuffer(b));
    ALint off = 0, last = 0;
    for (int i = 0; i < 2000; i++) {
        alGetSourcei(src[0], AL_SOURCE_STATE, &st);
        if (st != AL_PLAYING) break;
        alGetSourcei(src[0], AL_SAMPLE_OFFSET, &off);
        assert_true(off >= last && off <= 4800);
        last = off;
        th_sleep_ms(2);
    }
    assert_int_equal(st, AL_STOPPED);
    /* a source starting inside its buffer */
    alSourcei(src[1], AL_BUFFER, (ALint)b);
    alSourcei(src[1], AL_SAMPLE_OFFSET, 2400);
    alGetSourcei(src[1], AL_SOURCE_STATE, &st);
    assert_int_equal(st, AL_INITIAL);
    alSourcePlay(src[1]);
    alGetSourcei(src[1], AL_SAMPLE_OFFSET, &off);
    assert_true(off >= 2400);
    assert_int_equal(wait_not_playing(src[1]), AL_STOPPED);
    /* pause keeps the offset, rewind goes back to INITIAL */
    alSourcei(src[2], AL_BUFFER, (ALint)b);
    alSourcei(src[2], AL_LOOPING, AL_TRUE);
    alSourcePlay(src[2]);
    th_sleep_ms(30);
    alSourcePause(src[2]);
    alGetSourcei(src[2], AL_SOURCE_STATE, &st);
    assert_int_equal(st, AL_PAUSED);
    ALint p1 = 0, p2 = 0;
    alGetSourcei(src[2], AL_SAMPLE_OFFSET, &p1);
    th_sleep_ms(20);
    alGetSourcei(src[2], AL_SAMPLE_OFFSET, &p2);
    assert_int_equal(p1, p2);
    alSourceRewind(src[2]);
    alGetSourcei(src[2], AL_SOURCE_STATE, &st);
    assert_int_equal(st, AL_INITIAL);
    /* parameters read back; bad values are errors */
    alSourcef(src[3], AL_PITCH, 0.0f);
    assert_int_equal(alGetError(), AL_INVALID_VALUE);
    alSource3f(src[3], AL_DIRECTION, 0.0f, 0.0f, -1.0f);
    ALfloat x, y, z;
    alGetSource3f(src[3], AL_DIRECTION, &x, &y, &z);
    assert_true(x == 0.0f && y == 0.0f && z == -1.0f);
    alSourcei(src[3], AL_SOURCE_STATE, AL_PLAYING);
    assert_int_equal(alGetError(), AL_INVALID_OPERATION);
    alDeleteSources(256, src);
    alDeleteBuffers(1, &b);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    assert_false(alIsBuffer(b));
    close_ctx(dev, ctx);
}

static void test_queue_runs_dry(void **state) {
    (void)state;
    ALCdevice *dev;
    ALCcontext *ctx;
    open_ctx(&dev, &ctx, NULL);
    ALuint b[3], s;
    for (int i = 0; i < 3; i++)
        b[i] = make_buffer(2400);
    alGenSources(1, &s);
    alSourceQueueBuffers(s, 2, b);
    ALint v = 0;
    alGetSourcei(s, AL_BUFFERS_QUEUED, &v);
    assert_int_equal(v, 2);
    alGetSourcei(s, AL_SOURCE_TYPE, &v);
    assert_int_equal(v, AL_STREAMING);
    alSourcePlay(s);
    assert_int_equal(wait_not_playing(s), AL_STOPPED); /* ran dry: stopped */
    alGetSourcei(s, AL_BUFFERS_PROCESSED, &v);
    assert_int_equal(v, 2);
    ALuint got[2];
    alSourceUnqueueBuffers(s, 2, got);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    assert_int_equal(got[0], b[0]);
    assert_int_equal(got[1], b[1]);
    alSourceQueueBuffers(s, 1, &b[2]);
    alSourcePlay(s); /* and restarts */
    alGetSourcei(s, AL_SOURCE_STATE, &v);
    assert_int_equal(v, AL_PLAYING);
    assert_int_equal(wait_not_playing(s), AL_STOPPED);
    alSourceUnqueueBuffers(s, 5, got);
    assert_int_equal(alGetError(), AL_INVALID_VALUE); /* more than processed */
    ALuint one;
    alSourceUnqueueBuffers(s, 1, &one);
    /* a long queue of small buffers (no fixed limit): all played, all processed */
    enum { MANY = 150 };
    ALuint many[MANY], back[MANY];
    for (int i = 0; i < MANY; i++) {
        alGenBuffers(1, &many[i]);
        alBufferData(many[i], AL_FORMAT_MONO16, pcm, 96 * 2, 48000);
    }
    alSourceQueueBuffers(s, MANY, many);
    alGetSourcei(s, AL_BUFFERS_QUEUED, &v);
    assert_int_equal(v, MANY);
    alSourcePlay(s);
    assert_int_equal(wait_not_playing(s), AL_STOPPED);
    alGetSourcei(s, AL_BUFFERS_PROCESSED, &v);
    assert_int_equal(v, MANY);
    alSourceUnqueueBuffers(s, MANY, back);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    assert_int_equal(back[MANY - 1], many[MANY - 1]);
    alDeleteBuffers(MANY, many);
    alDeleteSources(1, &s);
    alDeleteBuffers(3, b);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    close_ctx(dev, ctx);
}

static ALuint shared_buf;

static void *worker(void *arg) {
    const int id = (int)(intptr_t)arg;
    int errors = 0;
    for (int i = 0; i < 40; i++) {
        ALuint s;
        alGenSources(1, &s);
        alSourcei(s, AL_BUFFER, (ALint)shared_buf);
        alSource3f(s, AL_POSITION, (float)id - 0.5f, 0.0f, -1.0f);
        alSourcePlay(s);
        ALint st = 0;
        for (int k = 0; k < 50; k++)
            alGetSourcei(s, AL_SOURCE_STATE, &st);
        const float pos[3] = {(float)i * 0.1f, 0.0f, 0.0f};
        alListenerfv(AL_POSITION, pos);
        if (i % 2) alSourceStop(s);
        alDeleteSources(1, &s);
        if (alGetError() != AL_NO_ERROR) errors++;
    }
    return (void *)(intptr_t)errors;
}

static void test_two_threads(void **state) {
    (void)state;
    ALCdevice *dev;
    ALCcontext *ctx;
    open_ctx(&dev, &ctx, NULL);
    shared_buf = make_buffer(960);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i), 0);
    for (int i = 0; i < 2; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_int_equal((int)(intptr_t)r, 0);
    }
    alDeleteBuffers(1, &shared_buf);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    close_ctx(dev, ctx);
}

typedef void(ALC_APIENTRY *dev_fn)(ALCdevice *);

/* ALC_SOFT_pause_device: voices held in the daemon, sources stay PLAYING with
 * their offsets frozen; AL_SOFT_direct_channels is a source parameter. */
static void test_pause_device(void **state) {
    th_fixture_t *f = *state;
    ALCdevice *dev;
    ALCcontext *ctx;
    open_ctx(&dev, &ctx, NULL);
    assert_true(alcIsExtensionPresent(dev, "ALC_SOFT_pause_device"));
    assert_true(alIsExtensionPresent("AL_SOFT_direct_channels"));
    dev_fn pause_fn, resume_fn;
    void *p1 = alcGetProcAddress(dev, "alcDevicePauseSOFT"),
         *p2 = alcGetProcAddress(dev, "alcDeviceResumeSOFT");
    assert_non_null(p1);
    assert_non_null(p2);
    memcpy(&pause_fn, &p1, sizeof pause_fn);
    memcpy(&resume_fn, &p2, sizeof resume_fn);
    ALuint b = make_buffer(48000), s;
    alGenSources(1, &s);
    alSourcei(s, AL_DIRECT_CHANNELS_SOFT, AL_TRUE);
    ALint v = 0;
    alGetSourcei(s, AL_DIRECT_CHANNELS_SOFT, &v);
    assert_int_equal(v, AL_TRUE);
    alSourcei(s, AL_BUFFER, (ALint)b);
    alSourcei(s, AL_LOOPING, AL_TRUE);
    alSourcePlay(s);
    th_sleep_ms(20);
    pause_fn(dev);
    ALint o1 = 0, o2 = 0, st = 0;
    alGetSourcei(s, AL_SAMPLE_OFFSET, &o1);
    th_sleep_ms(30);
    alGetSourcei(s, AL_SAMPLE_OFFSET, &o2);
    alGetSourcei(s, AL_SOURCE_STATE, &st);
    assert_int_equal(st, AL_PLAYING);
    assert_int_equal(o1, o2);
    heliod_t *h = th_fixture_connect_control(f, "check");
    assert_non_null(h);
    static heliod_voice_info_t vi[8];
    size_t n = 0;
    assert_true(heliod_voices(h, vi, 8, &n) >= 0);
    assert_int_equal(n, 1);
    assert_true(vi[0].state == HELIOD_VOICE_PAUSED || vi[0].state == HELIOD_VOICE_VPAUSED);
    resume_fn(dev);
    assert_true(heliod_voices(h, vi, 8, &n) >= 0);
    assert_int_equal(n, 1);
    assert_true(vi[0].state != HELIOD_VOICE_PAUSED && vi[0].state != HELIOD_VOICE_VPAUSED);
    heliod_close(h);
    for (int i = 0; i < 400 && o2 <= o1; i++) {
        th_sleep_ms(5);
        alGetSourcei(s, AL_SAMPLE_OFFSET, &o2);
    }
    assert_true(o2 > o1);
    alDeleteSources(1, &s);
    alDeleteBuffers(1, &b);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    close_ctx(dev, ctx);
}

static int setup_hrtf(void **state) {
    fill_pcm();
    const char *const args[] = {"--hrtf", NULL};
    if (th_fixture_start(state, 0, args) != 0) return -1;
    th_fixture_t *f = *state;
    setenv("HELIOD_SOCKET", f->d.sock, 1);
    daemon_hrtf = 1;
    return 0;
}

typedef const ALCchar *(ALC_APIENTRY *get_stringi_fn)(ALCdevice *, ALCenum, ALCsizei);
typedef ALCboolean(ALC_APIENTRY *reset_dev_fn)(ALCdevice *, const ALCint *);

/* The daemon's "hrtf_voices" (voices rendered binaurally in the last block)
 * and "voices_real". */
static double hrtf_voices(const char *sock, double *real) {
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, sock, "probe"), 0);
    heliod_stat_t st[256];
    size_t n = 0;
    double v = -1;
    assert_int_equal(heliod_stats(h, st, 256, &n, 0), 0);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(st[i].key, "hrtf_voices")) v = st[i].value;
        if (!strcmp(st[i].key, "voices_real")) *real = st[i].value;
    }
    heliod_close(h);
    return v;
}

/* A looping mono source 2 m to the right, playing: is it rendered
 * binaurally (the daemon's hrtf_voices, read for five polls once its voice
 * is real)? */
static int plays_binaural(const char *sock) {
    ALuint b = make_buffer(4800), s;
    alGenSources(1, &s);
    alSourcei(s, AL_BUFFER, (ALint)b);
    alSourcei(s, AL_LOOPING, AL_TRUE);
    alSource3f(s, AL_POSITION, 2.0f, 0.0f, 0.0f);
    alSourcePlay(s);
    double v = 0, real = 0;
    for (int i = 0, seen = 0; i < 200 && v < 1 && seen < 5; i++) {
        th_sleep_ms(10);
        v = hrtf_voices(getenv("HELIOD_SOCKET"), &real);
        if (real >= 1) seen++;
        alSource3f(s, AL_POSITION, 2.0f, 0.0f, (float)i * 0.01f); /* moving: SET with POS */
    }
    (void)sock;
    alSourceStop(s);
    alDeleteSources(1, &s);
    alDeleteBuffers(1, &b);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    return v >= 1;
}

/* ALC_SOFT_HRTF onto `heliod --hrtf`, reporting the truth: a daemon without
 * HRTF lists none and a request gets ALC_HRTF_DENIED_SOFT; one with it lists
 * its set ("heliod --hrtf"), a request gets ALC_HRTF_ENABLED_SOFT and the
 * mono sources are rendered binaurally by the daemon (hrtf_voices), and not
 * asking is ALC_HRTF_DISABLED_SOFT (OpenAL Soft's stereo panning, no
 * binaural voice). Both entry points come from alcGetProcAddress. */
static void test_hrtf_status(void **state) {
    (void)state;
    const ALCint want = daemon_hrtf ? ALC_HRTF_ENABLED_SOFT : ALC_HRTF_DENIED_SOFT;
    const ALCint attrs[] = {ALC_HRTF_SOFT, ALC_TRUE, 0};
    ALCdevice *dev;
    ALCcontext *ctx;
    open_ctx(&dev, &ctx, attrs);
    assert_true(alcIsExtensionPresent(dev, "ALC_SOFT_HRTF"));
    assert_true(alcIsExtensionPresent(dev, "alc_soft_hrtf")); /* case-insensitive */
    ALCint v = -1;
    alcGetIntegerv(dev, ALC_HRTF_STATUS_SOFT, 1, &v);
    assert_int_equal(v, want);
    alcGetIntegerv(dev, ALC_HRTF_SOFT, 1, &v);
    assert_int_equal(v, daemon_hrtf ? ALC_TRUE : ALC_FALSE);
    alcGetIntegerv(dev, ALC_NUM_HRTF_SPECIFIERS_SOFT, 1, &v);
    assert_int_equal(v, daemon_hrtf ? 1 : 0);
    assert_int_equal(alcGetError(dev), ALC_NO_ERROR);
    get_stringi_fn stringi;
    reset_dev_fn reset;
    void *p1 = alcGetProcAddress(dev, "alcGetStringiSOFT"),
         *p2 = alcGetProcAddress(dev, "alcResetDeviceSOFT");
    assert_non_null(p1);
    assert_non_null(p2);
    memcpy(&stringi, &p1, sizeof stringi);
    memcpy(&reset, &p2, sizeof reset);
    const ALCchar *name = stringi(dev, ALC_HRTF_SPECIFIER_SOFT, 0);
    if (daemon_hrtf) {
        assert_non_null(name);
        assert_string_equal(name, "heliod --hrtf");
        assert_null(stringi(dev, ALC_HRTF_SPECIFIER_SOFT, 1));
    } else {
        assert_null(name);
    }
    assert_int_equal(alcGetError(dev), ALC_INVALID_VALUE);
    assert_null(stringi(dev, ALC_FREQUENCY, 0));
    assert_int_equal(alcGetError(dev), ALC_INVALID_ENUM);
    assert_int_equal(plays_binaural(NULL), daemon_hrtf);
    /* reset without asking: disabled, stereo panning; asking again: the same answer */
    const ALCint none[] = {ALC_HRTF_SOFT, ALC_FALSE, 0};
    assert_true(reset(dev, none));
    alcGetIntegerv(dev, ALC_HRTF_STATUS_SOFT, 1, &v);
    assert_int_equal(v, ALC_HRTF_DISABLED_SOFT);
    assert_int_equal(plays_binaural(NULL), 0);
    assert_true(reset(dev, attrs));
    alcGetIntegerv(dev, ALC_HRTF_STATUS_SOFT, 1, &v);
    assert_int_equal(v, want);
    assert_false(reset(NULL, attrs));
    assert_int_equal(alcGetEnumValue(dev, "ALC_HRTF_STATUS_SOFT"), ALC_HRTF_STATUS_SOFT);
    close_ctx(dev, ctx);
}

static int setup_rec(void **state) {
    fill_pcm();
    if (th_fixture_start(state, 1, NULL) != 0) return -1;
    th_fixture_t *f = *state;
    setenv("HELIOD_SOCKET", f->d.sock, 1);
    return 0;
}

/* Every buffer format, static and queued (on a stream), in the recording:
 * mono 8/16-bit/float at OpenAL Soft's centre level (0.596 per channel),
 * stereo 8/16-bit/float channel for channel. */
static void test_formats_recorded(void **state) {
    th_fixture_t *f = *state;
    ALCdevice *dev;
    ALCcontext *ctx;
    open_ctx(&dev, &ctx, NULL);
    enum { N = 2400 };
    static uint8_t u8m[N], u8s[2 * N];
    static short s16s[2 * N];
    static float f32m[N], f32s[2 * N];
    for (int i = 0; i < N; i++) {
        u8m[i] = 192;                          /* +0.5 */
        u8s[2 * i] = 160, u8s[2 * i + 1] = 96; /* +0.25, -0.25 */
        s16s[2 * i] = 8192, s16s[2 * i + 1] = -16384;
        f32m[i] = -0.375f;
        f32s[2 * i] = 0.125f, f32s[2 * i + 1] = 0.5f;
    }
    const struct {
        ALenum fmt;
        const void *data;
        ALsizei size;
        float l, r;
    } cases[] = {
        {AL_FORMAT_MONO8, u8m, N, 0.5f * 0.59566f, 0.5f * 0.59566f},
        {AL_FORMAT_MONO16, pcm, 2 * N, 0.0f, 0.0f}, /* the square wave: level checked below */
        {AL_FORMAT_STEREO8, u8s, 2 * N, 0.25f, -0.25f},
        {AL_FORMAT_STEREO16, s16s, 4 * N, 0.25f, -0.5f},
        {AL_FORMAT_MONO_FLOAT32, f32m, 4 * N, -0.375f * 0.59566f, -0.375f * 0.59566f},
        {AL_FORMAT_STEREO_FLOAT32, f32s, 8 * N, 0.125f, 0.5f},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    ALuint s;
    alGenSources(1, &s);
    for (int pass = 0; pass < 2; pass++) { /* static, then queued */
        for (int k = 0; k < ncases; k++) {
            ALuint b;
            alGenBuffers(1, &b);
            alBufferData(b, cases[k].fmt, cases[k].data, cases[k].size, 48000);
            assert_int_equal(alGetError(), AL_NO_ERROR);
            if (pass == 0)
                alSourcei(s, AL_BUFFER, (ALint)b);
            else
                alSourceQueueBuffers(s, 1, &b);
            alSourcePlay(s);
            assert_int_equal(wait_not_playing(s), AL_STOPPED);
            th_sleep_ms(30); /* a gap of silence between the cases */
            if (pass == 0) {
                alSourcei(s, AL_BUFFER, 0);
            } else {
                ALuint got;
                alSourceUnqueueBuffers(s, 1, &got);
                assert_int_equal(got, b);
            }
            alDeleteBuffers(1, &b);
            assert_int_equal(alGetError(), AL_NO_ERROR);
        }
    }
    alDeleteSources(1, &s);
    close_ctx(dev, ctx);
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0);
    float *x;
    size_t frames;
    int ch, rate;
    assert_int_equal(th_read_sound(f->d.record, &x, &frames, &ch, &rate), 0);
    assert_int_equal(ch, 2);
    /* segments of sound between 10 ms of silence */
    int seg = 0;
    size_t i = 0;
    while (i < frames && seg < 2 * ncases) {
        while (i < frames && x[2 * i] == 0.0f && x[2 * i + 1] == 0.0f)
            i++;
        if (i >= frames) break;
        const size_t a = i;
        size_t quiet = 0, b = i;
        for (; i < frames && quiet < 480; i++) {
            if (x[2 * i] == 0.0f && x[2 * i + 1] == 0.0f)
                quiet++;
            else
                quiet = 0, b = i;
        }
        const int k = seg % ncases;
        /* its whole length; a queue that runs dry ends in the stream's
         * underrun fade (64 frames from its last sample to silence) */
        const size_t tail = seg >= ncases ? 64 : 0;
        if (b - a + 1 < N - 8 || b - a + 1 > N + 8 + tail)
            fail_msg("segment %d (case %d): %zu frames, want %d", seg, k, b - a + 1, (int)N);
        double sl = 0, sr = 0, al = 0, ar = 0;
        const size_t m0 = a + (b - a) / 4, m1 = a + 3 * (b - a) / 4;
        for (size_t j = m0; j < m1; j++) {
            sl += x[2 * j], sr += x[2 * j + 1];
            al += fabs(x[2 * j]), ar += fabs(x[2 * j + 1]);
        }
        const double n = (double)(m1 - m0);
        if (cases[k].fmt == AL_FORMAT_MONO16) { /* +-6000 square: its magnitude */
            assert_true(fabs(al / n - 6000.0 / 32768 * 0.59566) < 0.01);
            assert_true(fabs(ar / n - 6000.0 / 32768 * 0.59566) < 0.01);
        } else {
            if (fabs(sl / n - cases[k].l) >= 0.003 || fabs(sr / n - cases[k].r) >= 0.003)
                fail_msg("segment %d (case %d): %.4f %.4f, want %.4f %.4f", seg, k, sl / n, sr / n,
                         (double)cases[k].l, (double)cases[k].r);
        }
        seg++;
    }
    free(x);
    assert_int_equal(seg, 2 * ncases);
}

/* The daemon goes away and comes back: HELIOD_SOCKET names a symlink that
 * is pointed at the new daemon's socket. */
static void test_daemon_restart(void **state) {
    th_fixture_t *f = *state;
    char dir[] = "/tmp/hl-openal-link-XXXXXX", link[64];
    assert_non_null(mkdtemp(dir)); /* outside the daemon's directory, which goes with it */
    snprintf(link, sizeof link, "%s/heliod.sock", dir);
    assert_int_equal(symlink(f->d.sock, link), 0);
    setenv("HELIOD_SOCKET", link, 1);
    ALCdevice *dev;
    ALCcontext *ctx;
    open_ctx(&dev, &ctx, NULL);
    ALuint b = make_buffer(4800), s;
    alGenSources(1, &s);
    alSourcei(s, AL_BUFFER, (ALint)b);
    alSourcei(s, AL_LOOPING, AL_TRUE);
    alSourcePlay(s);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0); /* a clean exit with our client on it */
    ALint st = AL_PLAYING;
    for (int i = 0; i < 2000 && st == AL_PLAYING; i++) {
        alGetSourcei(s, AL_SOURCE_STATE, &st);
        if (st == AL_PLAYING) th_sleep_ms(5);
    }
    assert_int_equal(st, AL_STOPPED); /* stopped softly */
    assert_int_equal(alGetError(), AL_INVALID_OPERATION);
    ALCint conn = 1;
    alcGetIntegerv(dev, ALC_CONNECTED, 1, &conn);
    assert_int_equal(conn, 0);
    alSourcePlay(s); /* fails softly */
    alGetSourcei(s, AL_SOURCE_STATE, &st);
    assert_int_equal(st, AL_STOPPED);
    alGetError();
    /* back: a new daemon behind the same path */
    th_daemon_cleanup(&f->d);
    assert_int_equal(th_daemon_start(&f->d, 0, NULL), 0);
    unlink(link);
    assert_int_equal(symlink(f->d.sock, link), 0);
    for (int i = 0; i < 2000 && !conn; i++) {
        alcGetIntegerv(dev, ALC_CONNECTED, 1, &conn);
        if (!conn) th_sleep_ms(5);
    }
    assert_int_equal(conn, 1);
    alSourcei(s, AL_LOOPING, AL_FALSE);
    alSourcePlay(s); /* the buffer was uploaded again */
    alGetSourcei(s, AL_SOURCE_STATE, &st);
    assert_int_equal(st, AL_PLAYING);
    heliod_t *h = th_fixture_connect_control(f, "check"); /* sees every client's voices */
    assert_non_null(h);
    static heliod_voice_info_t vi[16];
    size_t n = 0;
    int seen = 0;
    for (int i = 0; i < 400 && !seen; i++) {
        assert_true(heliod_voices(h, vi, 16, &n) >= 0);
        for (size_t k = 0; k < n; k++)
            if (strncmp(vi[k].sound, "al.", 3) == 0) seen = 1;
        alGetSourcei(s, AL_SOURCE_STATE, &st);
        if (!seen && st != AL_PLAYING) break;
    }
    heliod_close(h);
    assert_true(seen); /* the daemon plays the re-uploaded buffer */
    assert_int_equal(wait_not_playing(s), AL_STOPPED);
    assert_int_equal(alGetError(), AL_NO_ERROR);
    alDeleteSources(1, &s);
    alDeleteBuffers(1, &b);
    close_ctx(dev, ctx);
    unlink(link);
    rmdir(dir);
    setenv("HELIOD_SOCKET", f->d.sock, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_alc_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_contexts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_semantics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_runs_dry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pause_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hrtf_status, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hrtf_status, setup_hrtf, teardown),
        cmocka_unit_test_setup_teardown(test_formats_recorded, setup_rec, teardown),
        cmocka_unit_test_setup_teardown(test_daemon_restart, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
