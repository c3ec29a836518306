/*
 * test_rt.c - the real-time proof: the real heliod, on the null driver, under
 * the rt_hook LD_PRELOAD library, driven through libheliod with a workload
 * that exercises every command path (loads, plays at several priorities so
 * voices are stolen and refused, stops, gain/pan/position/pitch changes,
 * listener moves, bus ramps, voices ending on their own, a client that
 * disconnects with voices playing, fire-and-forget floods), then SIGTERM.
 * The hook must have counted zero allocator and mutex calls on the audio
 * thread, while the daemon reports callbacks > 0 and the hook saw the flag.
 *
 *   test_rt selftest CANARY HOOK   the hook counts a deliberate violation
 *   test_rt daemon HELIOD HOOK     the daemon has none (null driver)
 *   test_rt record HELIOD HOOK     the same with --record (the record tap on
 *                                  the audio thread), and the WAV is checked
 *   test_rt jack HELIOD HOOK       the same on PortAudio against a JACK dummy
 *                                  server (jackd -d dummy): the PortAudio
 *                                  callback path; exit 77 without jackd
 *   test_rt hrtf HELIOD HOOK       the same with --hrtf: every 3D voice binaural,
 *                                  played, moved round the head, stolen, ended
 *   test_rt layout HELIOD HOOK     the record workload with --layout 7.1: the
 *                                  8-channel device buffer and recording
 *   test_rt mix HELIOD HOOK        --mix-threads 2, --voices 8192, 560 playing: the mix
 *                                  worker threads (partitioned blocks) too
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "heliod.h"

#define TEST_RATE     44100 /* differs from the engine rate: the load resamples */
#define VOICES        8
#define CONNECT_TRIES 200
#define TRY_SLEEP_MS  25
#define EXIT_WAIT_MS  5000
#define MAX_STATS     512

static const char *g_mode, *g_prog, *g_hook;
static char g_dir[256];
static pid_t g_jackd;

/* A private JACK server with the dummy backend, as tests/integration/test_jack.c
 * starts it: it calls PortAudio's JACK client in real time like a sound card. */
static int start_jackd(void) {
    static char server[64];
    snprintf(server, sizeof server, "heliodrt%d", (int)getpid());
    setenv("JACK_DEFAULT_SERVER", server, 1);
    setenv("JACK_NO_AUDIO_RESERVATION", "1", 1);
    g_jackd = fork();
    if (g_jackd < 0) return -1;
    if (g_jackd == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        FILE *devnull = freopen("/dev/null", "w", stdout);
        (void)devnull;
        execlp("jackd", "jackd", "--no-realtime", "-d", "dummy", "-r", "48000", "-p", "256",
               (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 100; i++) {
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
        if (waitpid(g_jackd, NULL, WNOHANG) != 0) return -1;
        char path[256];
        snprintf(path, sizeof path, "/dev/shm/jack-%d/%s", (int)getuid(), server);
        if (access(path, F_OK) == 0) break;
        snprintf(path, sizeof path, "/dev/shm/jack_%s_%d_0", server, (int)getuid());
        if (access(path, F_OK) == 0) break;
    }
    struct timespec ts = {0, 200 * 1000000L};
    nanosleep(&ts, NULL);
    return waitpid(g_jackd, NULL, WNOHANG) == 0 ? 0 : -1;
}

static void stop_jackd(void) {
    if (g_jackd > 0) {
        kill(g_jackd, SIGTERM);
        waitpid(g_jackd, NULL, 0);
        g_jackd = 0;
    }
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Writes a sine of `seconds` with `channels` channels in the given libsndfile format. */
static void write_sine_as(const char *path, int format, int channels, double seconds, double freq) {
    SF_INFO info = {.samplerate = TEST_RATE, .channels = channels, .format = format};
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    assert_non_null(f);
    int frames = (int)(seconds * TEST_RATE);
    for (int i = 0; i < frames; i++) {
        float s[2];
        s[0] = s[1] = (float)(0.5 * sin(2 * M_PI * freq * i / TEST_RATE));
        assert_int_equal(sf_writef_float(f, s, 1), 1);
    }
    sf_close(f);
}

static void write_sine(const char *path, int channels, double seconds, double freq) {
    write_sine_as(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, channels, seconds, freq);
}

static pid_t spawn(const char *const *argv, const char *out) {
    pid_t pid = fork();
    if (pid == 0) {
        /* dies with the test, so a failed assert does not leave it holding
         * meson's output pipe until the timeout */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        setenv("LD_PRELOAD", g_hook, 1);
        setenv("HELIOD_RT_HOOK_OUT", out, 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static int wait_exit(pid_t pid) {
    for (int t = 0; t < EXIT_WAIT_MS / TRY_SLEEP_MS; t++) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        sleep_ms(TRY_SLEEP_MS);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

/* Value of `key` in the hook's output, or -1. */
static long hook_value(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char k[64];
    long v, found = -1;
    while (fscanf(f, "%63s %ld", k, &v) == 2)
        if (strcmp(k, key) == 0) found = v;
    fclose(f);
    return found;
}

static void dump(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[128];
    while (fgets(line, sizeof line, f))
        fprintf(stderr, "  hook: %s", line);
    fclose(f);
}

static void test_selftest(void **state) {
    (void)state;
    char out[300];
    snprintf(out, sizeof out, "%s/canary.out", g_dir);
    const char *argv[] = {g_prog, NULL};
    pid_t pid = spawn(argv, out);
    assert_true(pid > 0);
    assert_int_equal(wait_exit(pid), 0);
    dump(out);
    assert_int_equal(hook_value(out, "flag_resolved"), 1);
    assert_true(hook_value(out, "malloc") >= 1);
    assert_true(hook_value(out, "free") >= 1);
    assert_true(hook_value(out, "mutex_lock") >= 1);
}

static double stat_of(heliod_t *h, const char *key) {
    heliod_stat_t st[MAX_STATS];
    size_t n = 0;
    assert_true(heliod_stats(h, st, MAX_STATS, &n, 0) >= 0);
    for (size_t i = 0; i < n; i++)
        if (strcmp(st[i].key, key) == 0) return st[i].value;
    fail_msg("stat %s missing", key);
    return -1;
}

/* A control client: the test drives everything the audio thread can be asked
 * to do, the master and the default buses included (a plain client may not
 * change those). */
static heliod_t *connect_retry(const char *sock, const char *name) {
    heliod_t *h = NULL;
    for (int i = 0; i < CONNECT_TRIES; i++) {
        if (heliod_connect_flags(&h, sock, name, HELIOD_CONNECT_CONTROL) == 0) return h;
        sleep_ms(TRY_SLEEP_MS);
    }
    fail_msg("cannot connect to %s", sock);
    return NULL;
}

static void play(heliod_t *h, const char *snd, uint32_t flags, int prio, heliod_voice_t *v,
                 int expect) {
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = flags;
    p.priority = prio;
    p.pos[0] = 3;
    p.pos[2] = -2;
    heliod_voice_t stolen = 0;
    int rc = heliod_play(h, snd, &p, v, &stolen);
    if (rc != expect) fail_msg("play %s prio %d: %d (%s)", snd, prio, rc, heliod_last_error(h));
}

/* Waits up to 3 s until voice v is mixed (state PLAYING). */
static int wait_real(heliod_t *h, heliod_voice_t v) {
    static heliod_voice_info_t vi[64];
    for (int tries = 0; tries < 300; tries++) {
        size_t n = 0;
        if (heliod_voices(h, vi, sizeof vi / sizeof vi[0], &n) == 0)
            for (size_t i = 0; i < n && i < sizeof vi / sizeof vi[0]; i++)
                if (vi[i].voice == v && vi[i].state == HELIOD_VOICE_PLAYING) return 1;
        sleep_ms(10);
    }
    fprintf(stderr, "voice %llu never became real\n", (unsigned long long)v);
    return 0;
}

static void test_daemon(void **state) {
    (void)state;
    char sock[300], out[300], beep[300], loop[300], music[300];
    snprintf(sock, sizeof sock, "%s/heliod.sock", g_dir);
    snprintf(out, sizeof out, "%s/daemon.out", g_dir);
    snprintf(beep, sizeof beep, "%s/beep.wav", g_dir);
    snprintf(loop, sizeof loop, "%s/loop.wav", g_dir);
    write_sine(beep, 1, 0.05, 880);
    write_sine(loop, 2, 0.5, 220);
    snprintf(music, sizeof music, "%s/music.ogg", g_dir);
    write_sine_as(music, SF_FORMAT_OGG | SF_FORMAT_VORBIS, 2, 2.0, 330);

    char rec[300];
    snprintf(rec, sizeof rec, "%s/out.wav", g_dir);
    int layout = strcmp(g_mode, "layout") == 0;
    int jack = strcmp(g_mode, "jack") == 0, record = strcmp(g_mode, "record") == 0 || layout;
    int hrtf = strcmp(g_mode, "hrtf") == 0;
    /* one client drives every path: its voice quota is above the pool, so
     * the pool's own refusals and steals are what it meets */
    const char *argv[24] = {g_prog, "--voices", "8",  "--virtual-voices", "24",  "--client-voices",
                            "48",   "--socket", sock, "--log-level",      "warn"};
    int an = 11;
    argv[an++] = "--driver";
    argv[an++] = jack ? "portaudio" : "null";
    if (jack) {
        argv[an++] = "--device";
        argv[an++] = "system";
        assert_int_equal(start_jackd(), 0);
    }
    if (record) {
        argv[an++] = "--record";
        argv[an++] = rec;
    }
    if (hrtf) argv[an++] = "--hrtf"; /* the default set, loaded before the audio thread */
    if (layout) {
        argv[an++] = "--layout";
        argv[an++] = "7.1";
    }
    argv[an] = NULL;
    pid_t pid = spawn(argv, out);
    assert_true(pid > 0);
    heliod_t *a = connect_retry(sock, "rt-a");
    assert_int_equal(heliod_load(a, "beep", beep, HELIOD_LOAD_SHARED, NULL), 0);
    assert_int_equal(heliod_load(a, "loop", loop, HELIOD_LOAD_SHARED, NULL), 0);
    assert_int_equal(heliod_subscribe(a, HELIOD_SUB_ENDED | HELIOD_SUB_STARTED), 0);

    /* fill the logical pool (8 real + 16 virtual) with looping voices, then
     * steal with higher priorities (virtual voices become real and back) */
    heliod_voice_t v[4 * VOICES] = {0};
    for (int i = 0; i < 3 * VOICES; i++)
        play(a, "loop", HELIOD_PLAY_LOOP | (i % 2 ? HELIOD_PLAY_3D : 0), i % 3,
             &v[i < VOICES ? i : 2 * VOICES + i % VOICES], 0);
    for (int i = 0; i < VOICES / 2; i++)
        play(a, "loop", HELIOD_PLAY_LOOP | HELIOD_PLAY_3D, 10 + i, &v[VOICES + i], 0);
    heliod_voice_t refused;
    play(a, "beep", 0, -5, &refused, HELIOD_ENOVOICES);
    double virt = stat_of(a, "voices_virtual"); /* 24 logical on 8 real */
    sleep_ms(50);

    /* change everything that can change, while it plays */
    heliod_voice_set_t s = {.mask = HELIOD_SET_GAIN | HELIOD_SET_PAN | HELIOD_SET_POS |
                                    HELIOD_SET_PITCH,
                            .gain_db = -6,
                            .pan = 0.5f,
                            .pos = {1, 2, 3},
                            .pitch = 1.5f,
                            .ramp_ms = 20};
    for (int i = VOICES; i < VOICES + VOICES / 2; i++)
        assert_int_equal(heliod_set(a, v[i], &s), 0);
    heliod_listener_t lis = {.mask = HELIOD_LIS_POS | HELIOD_LIS_FWD | HELIOD_LIS_VEL,
                             .pos = {0, 0, 5},
                             .fwd = {1, 0, 0},
                             .vel = {3, 0, 0}};
    assert_int_equal(heliod_set_listener(a, &lis), 0);
    assert_int_equal(heliod_bus_gain(a, "sfx", -3, 30), 0);
    assert_int_equal(heliod_bus_gain(a, "master", -1, 10), 0);
    assert_int_equal(heliod_stop(a, v[VOICES], 5), 0);
    assert_int_equal(heliod_stop(a, v[VOICES + 1], 0), 0);
    heliod_voice_info_t vi[4 * VOICES];
    size_t nv = 0;
    assert_true(heliod_voices(a, vi, 4 * VOICES, &nv) >= 0);
    assert_true(nv > 0);
    assert_int_equal(heliod_unload(a, "loop"), HELIOD_EINUSE);
    sleep_ms(50);

    /* short voices that end on their own, and a fire-and-forget flood */
    uint32_t stopped = 0;
    assert_int_equal(heliod_stop_all(a, 10, 0, &stopped), 0);
    sleep_ms(30);
    for (int i = 0; i < 4 * VOICES; i++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.priority = i % 7;
        p.pan = (float)(i % 5) / 2 - 1;
        assert_true(heliod_play_async(a, "beep", &p, NULL, NULL) > 0);
        heliod_voice_set_t g = {.mask = HELIOD_SET_GAIN, .gain_db = -1};
        assert_true(heliod_set_async(a, (heliod_voice_t)1 << 32, &g) > 0);
    }
    assert_int_equal(heliod_sync(a), 0);
    sleep_ms(150);
    heliod_dispatch(a);

    /* a second client disconnects with voices playing: they fade as orphans */
    heliod_t *b = connect_retry(sock, "rt-b");
    heliod_voice_t bv;
    for (int i = 0; i < VOICES / 2; i++)
        play(b, "loop", HELIOD_PLAY_LOOP, 50, &bv, 0);
    sleep_ms(30);
    heliod_close(b);
    sleep_ms(100);

    /* streamed voices (decoder rings pulled by the audio thread), seeks that
     * switch streams, pause/resume, loop regions, cubic interpolation with a
     * pitch ramp, and a 3D voice beyond its max distance (virtual) */
    assert_int_equal(heliod_load(a, "music", music, HELIOD_LOAD_STREAM | HELIOD_LOAD_SHARED, NULL),
                     0);
    heliod_voice_t sv[3];
    for (int i = 0; i < 3; i++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.flags = HELIOD_PLAY_LOOP | (i == 2 ? HELIOD_PLAY_CUBIC : 0);
        p.priority = 100;
        assert_int_equal(heliod_play(a, "music", &p, &sv[i], NULL), 0);
    }
    heliod_play_params_t lp;
    heliod_play_params_init(&lp);
    lp.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_CUBIC;
    lp.priority = 100;
    lp.loop_start = 1000;
    lp.loop_end = 9000;
    lp.loop_count = 3;
    heliod_voice_t lv, far;
    assert_int_equal(heliod_play(a, "loop", &lp, &lv, NULL), 0);
    heliod_play_params_init(&lp);
    lp.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D;
    lp.priority = 100;
    lp.pos[0] = 500;
    lp.max_distance = 100;
    /* beyond its max distance at start: refused (it would be inaudible) */
    assert_int_equal(heliod_play(a, "loop", &lp, &far, NULL), HELIOD_EDISTANCE);
    sleep_ms(60);
    heliod_voice_set_t seek = {.mask = HELIOD_SET_SEEK, .seek_s = 1.0};
    assert_int_equal(heliod_set(a, sv[0], &seek), 0);
    assert_int_equal(heliod_set(a, lv, &seek), HELIOD_EINVAL); /* past the end of 0.5 s */
    seek.seek_s = 0.25;
    assert_int_equal(heliod_set(a, lv, &seek), 0);
    heliod_voice_set_t pz = {.mask = HELIOD_SET_PAUSE, .ramp_ms = 5};
    assert_int_equal(heliod_set(a, sv[1], &pz), 0);
    heliod_voice_set_t pr = {.mask = HELIOD_SET_PITCH, .pitch = 2.5f, .ramp_ms = 40};
    assert_int_equal(heliod_set(a, sv[2], &pr), 0);
    sleep_ms(60);
    pz.mask = HELIOD_SET_RESUME;
    assert_int_equal(heliod_set(a, sv[1], &pz), 0);
    uint32_t paused = 0;
    assert_int_equal(heliod_pause_all(a, 1, 0, &paused), 0);
    assert_true(paused > 0);
    sleep_ms(30);
    assert_int_equal(heliod_pause_all(a, 0, 0, &paused), 0);
    sleep_ms(60);
    double streams = stat_of(a, "streams_active");
    assert_true(streams >= 3);
    assert_int_equal(heliod_stop(a, sv[0], 5), 0);
    assert_int_equal(heliod_stop_all(a, 5, 0, &stopped), 0);
    sleep_ms(40);

    /* client-fed streams (shared rings read on the audio thread): f32 at
     * another rate, s16 mono in 3D, u8 with the sinc; one plays out its end,
     * one underruns and recovers, one is closed mid-way */
    heliod_stream_t *cs[3];
    const uint32_t cfmt[3] = {HELIOD_STREAM_F32, HELIOD_STREAM_S16, HELIOD_STREAM_U8};
    const uint32_t crate[3] = {44100, 48000, 22050}, cch[3] = {2, 1, 2};
    static unsigned char cbuf[4096 * 8];
    for (size_t i = 0; i < sizeof cbuf; i++)
        cbuf[i] = (unsigned char)(i * 37u); /* noise in every format (f32: some not finite) */
    for (int i = 0; i < 3; i++) {
        heliod_stream_params_t p;
        heliod_stream_params_init(&p);
        p.rate = crate[i];
        p.channels = cch[i];
        p.format = cfmt[i];
        p.frames = 8192;
        p.play.priority = 200;
        p.play.flags = i == 1 ? HELIOD_PLAY_3D : i == 2 ? HELIOD_PLAY_SINC : 0;
        assert_int_equal(heliod_stream_open(a, &p, &cs[i]), 0);
        assert_true(heliod_stream_write(cs[i], cbuf, 4096) == 4096);
    }
    assert_int_equal(heliod_stream_end(cs[0]), 0);
    sleep_ms(150); /* the others run dry: underruns */
    assert_true(heliod_stream_underruns(cs[1]) > 0);
    assert_true(heliod_stream_write(cs[1], cbuf, 4096) == 4096);
    heliod_stream_close(cs[2]);
    sleep_ms(60);
    assert_int_equal(heliod_stream_ended(cs[0], NULL), 1);
    heliod_stream_close(cs[0]);
    heliod_stream_close(cs[1]);
    sleep_ms(40);

    /* voice management: a category and cues with every overflow policy,
     * virtual voices coming and going as the listener moves, an emitter
     * carrying voices moved by one command, then destroyed */
    heliod_category_t cat;
    heliod_category_init(&cat);
    snprintf(cat.name, sizeof cat.name, "weapons");
    cat.max_instances = 6;
    cat.overflow = HELIOD_OVERFLOW_FADE_OLDEST;
    cat.fade_out_ms = 20;
    assert_int_equal(heliod_category_define(a, &cat), 0);
    for (int pol = 0; pol <= HELIOD_OVERFLOW_STEAL_FARTHEST; pol++) {
        heliod_cue_t cue;
        heliod_cue_init(&cue);
        snprintf(cue.name, sizeof cue.name, "cue%d", pol);
        cue.nsounds = 2;
        snprintf(cue.sounds[0], sizeof cue.sounds[0], "loop");
        snprintf(cue.sounds[1], sizeof cue.sounds[1], "beep");
        cue.pick = HELIOD_PICK_SHUFFLE;
        cue.flags = HELIOD_CUE_LOOP | HELIOD_CUE_3D;
        cue.max_instances = 2;
        cue.overflow = pol;
        cue.fade_out_ms = pol % 2 ? 0 : 15;
        cue.fade_curve = pol % 3;
        cue.gain_rand_db = 3;
        cue.pitch_rand_cents = 100;
        cue.max_distance = 40;
        cue.virt = pol % 3; /* resume, restart, kill */
        if (pol >= 3) snprintf(cue.category, sizeof cue.category, "weapons");
        assert_int_equal(heliod_cue_define(a, &cue), 0);
        for (int k = 0; k < 4; k++) {
            heliod_play_params_t p;
            heliod_play_params_init(&p);
            p.pos[0] = (float)(5 * k + pol);
            p.vel[2] = 10;
            heliod_voice_t cv;
            (void)heliod_play(a, cue.name, &p, &cv, NULL); /* refusals are expected */
        }
    }
    float epos[3] = {2, 0, 0}, evel[3] = {0, 0, 30};
    assert_int_equal(heliod_emitter_create(a, "car", epos, evel, 0), 0);
    for (int k = 0; k < 6; k++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.flags = HELIOD_PLAY_LOOP;
        snprintf(p.emitter, sizeof p.emitter, "car");
        heliod_voice_t ev;
        assert_int_equal(heliod_play(a, "loop", &p, &ev, NULL), 0);
    }
    for (int step = 0; step < 10; step++) {
        float np[3] = {2.0f + 10.0f * (float)step, 0, 0};
        assert_int_equal(heliod_emitter_set(a, "car", HELIOD_EM_POS | HELIOD_EM_VEL, np, evel, 20),
                         0);
        heliod_listener_t lm = {.mask = HELIOD_LIS_POS, .pos = {(float)(step % 4) * 15, 0, 0}};
        assert_int_equal(heliod_set_listener(a, &lm), 0);
        sleep_ms(25);
    }
    uint32_t paused_n = 0;
    assert_int_equal(heliod_pause_group(a, HELIOD_PAUSE_CATEGORY, "weapons", 1, &paused_n), 0);
    sleep_ms(30);
    assert_int_equal(heliod_pause_group(a, HELIOD_PAUSE_CATEGORY, "weapons", 0, &paused_n), 0);
    double virtualised = stat_of(a, "voices_virtualised");
    double realised = stat_of(a, "voices_realised");
    uint32_t destroyed = 0;
    assert_int_equal(heliod_emitter_destroy(a, "car", -1, &destroyed), 0);
    assert_true(destroyed > 0);
    sleep_ms(60);

    /* the mixer graph changes under playing voices: buses made and
     * re-parented, effects added, changed and removed, ducking, filters and
     * sends moving; the audio thread takes and hands back, never allocates */
    assert_int_equal(heliod_bus_create(a, "room", NULL), 0);
    assert_int_equal(heliod_bus_create(a, "hall", "room"), 0);
    const char *fxs[] = {"reverb --preset cave --dry 0 --wet 0.6", "eq --type lowshelf --gain 4",
                         "comp --threshold -18 --ratio 3"};
    for (int i = 0; i < 3; i++) {
        heliod_fx_t fx;
        assert_int_equal(heliod_fx_parse(a, fxs[i], &fx, NULL, 0), 0);
        assert_int_equal(heliod_fx_add(a, i == 0 ? "hall" : "music", 99, &fx, NULL), 0);
    }
    heliod_duck_t dk;
    heliod_duck_init(&dk);
    snprintf(dk.bus, sizeof dk.bus, "music");
    snprintf(dk.by, sizeof dk.by, "sfx");
    dk.threshold_db = -144; /* while sfx has voices */
    assert_int_equal(heliod_duck(a, &dk), 0);
    heliod_voice_t gv[8];
    for (int i = 0; i < 8; i++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.flags = HELIOD_PLAY_LOOP;
        snprintf(p.bus, sizeof p.bus, "%s", i % 2 ? "music" : "sfx");
        p.post.lp_hz = 800.0f + 300.0f * (float)i;
        p.post.occlusion = 0.1f * (float)i;
        snprintf(p.post.send[0], sizeof p.post.send[0], "hall");
        p.post.send_db[0] = -10;
        assert_int_equal(heliod_play(a, "loop", &p, &gv[i], NULL), 0);
    }
    for (int round = 0; round < 10; round++) {
        heliod_voice_set_t s = {.mask = HELIOD_SET_OCCLUSION | HELIOD_SET_HP | HELIOD_SET_SENDS,
                                .ramp_ms = 20};
        s.post.occlusion = (float)(round % 5) / 5.0f;
        s.post.hp_hz = round % 2 ? 200.0f : 0.0f;
        snprintf(s.post.send[0], sizeof s.post.send[0], "%s", round % 2 ? "room" : "hall");
        s.post.send_db[0] = -6;
        assert_int_equal(heliod_set(a, gv[round % 8], &s), 0);
        heliod_fx_t eq;
        assert_int_equal(
            heliod_fx_parse(a, round % 2 ? "eq --gain -3 --ramp 20" : "eq --gain 2", &eq, NULL, 0),
            0);
        assert_int_equal(heliod_fx_set(a, "music", 0, &eq), 0);
        assert_int_equal(heliod_bus_parent(a, "hall", round % 2 ? "sfx" : "room"), 0);
        assert_int_equal(heliod_bus_mute(a, "room", round % 2, 10), 0);
        heliod_fx_t tmp;
        assert_int_equal(heliod_fx_parse(a, "reverb --preset room", &tmp, NULL, 0), 0);
        assert_int_equal(heliod_fx_add(a, "room", 0, &tmp, NULL), 0);
        sleep_ms(15);
        assert_int_equal(heliod_fx_remove(a, "room", 0), 0); /* handed back, freed here */
    }
    for (int i = 0; i < 8; i++)
        assert_int_equal(heliod_stop(a, gv[i], 5), 0);
    sleep_ms(60);
    assert_int_equal(heliod_bus_remove(a, "hall"), 0);
    assert_int_equal(heliod_bus_remove(a, "room"), 0);
    assert_int_equal(heliod_fx_remove(a, "music", 1), 0);
    /* 3D voices (binaural with --hrtf) moving round the head in ramped
     * steps while the listener turns: the convolvers crossfade every block */
    heliod_listener_t home = {.mask = HELIOD_LIS_POS | HELIOD_LIS_FWD, .fwd = {0, 0, -1}};
    assert_int_equal(heliod_set_listener(a, &home), 0);
    heliod_voice_t mv[4];
    for (int i = 0; i < 4; i++)
        play(a, "loop", HELIOD_PLAY_LOOP | HELIOD_PLAY_3D, 200, &mv[i], 0);
    for (int step = 0; step < 24; step++) {
        for (int i = 0; i < 4; i++) {
            double az = (step * 30 + i * 90) * M_PI / 180.0;
            heliod_voice_set_t mp = {.mask = HELIOD_SET_POS, .ramp_ms = 10};
            mp.pos[0] = (float)(-2 * sin(az));
            mp.pos[1] = (float)(step % 3 - 1);
            mp.pos[2] = (float)(-2 * cos(az));
            assert_int_equal(heliod_set(a, mv[i], &mp), 0);
        }
        if (step % 6 == 5) {
            double t = step * 0.2;
            heliod_listener_t turn = {.mask = HELIOD_LIS_FWD,
                                      .fwd = {(float)sin(t), 0, (float)-cos(t)}};
            assert_int_equal(heliod_set_listener(a, &turn), 0);
        }
        sleep_ms(10);
    }
    double hrtf_on = stat_of(a, "hrtf"), hrtf_voices = stat_of(a, "hrtf_voices");
    for (int i = 0; i < 4; i++)
        assert_int_equal(heliod_stop(a, mv[i], i * 5), 0);
    sleep_ms(30);

    /* time: plays, sets, stops, bus and listener changes scheduled at exact
     * frames inside coming blocks (the audio thread splits its blocks and
     * keeps them in its preallocated schedule), late ones, a full schedule,
     * and bundles: the schedule's heap and pool are the mixer's own memory */
    heliod_clock_t clk;
    assert_int_equal(heliod_clock(a, &clk), 0);
    uint64_t t = clk.frame + clk.rate / 20, sched0 = (uint64_t)stat_of(a, "sched_late");
    heliod_voice_t tv[6];
    for (int i = 0; i < 6; i++) {
        heliod_at_frame(a, t + (uint64_t)i * 37);
        play(a, i % 2 ? "beep" : "loop", i % 2 ? 0 : HELIOD_PLAY_LOOP, 100, &tv[i], 0);
        heliod_voice_set_t ts = {.mask = HELIOD_SET_GAIN | HELIOD_SET_PITCH,
                                 .gain_db = -6,
                                 .pitch = 1.25f,
                                 .ramp_ms = 5};
        heliod_at_frame(a, t + 500 + (uint64_t)i * 11);
        assert_int_equal(heliod_set(a, tv[i], &ts), 0);
        heliod_at_frame(a, t + 4000 + (uint64_t)i * 3);
        assert_int_equal(heliod_stop(a, tv[i], 2), 0);
    }
    heliod_at_frame(a, t + 1234);
    assert_int_equal(heliod_bus_gain(a, "sfx", -3, 5), 0);
    heliod_listener_t tl = {.mask = HELIOD_LIS_POS, .pos = {0.5f, 0, 0}};
    assert_int_equal(heliod_set_listener(a, &tl), 0);
    heliod_at_frame(a, 5); /* long past: applied at once, counted late */
    assert_int_equal(heliod_bus_gain(a, "sfx", 0, 5), 0);
    heliod_at_frame(a, 0);
    for (int round = 0; round < 4; round++) {
        assert_int_equal(heliod_bundle_begin(a), 0);
        heliod_play_params_t bp;
        heliod_play_params_init(&bp);
        for (int i = 0; i < 8; i++)
            assert_true(heliod_play_async(a, "beep", &bp, NULL, NULL) > 0);
        uint32_t bn = 0;
        assert_int_equal(heliod_bundle_end(a, &bn), 0);
        assert_int_equal(bn, 8);
        sleep_ms(20);
    }
    /* fill the schedule past its bound: the rest is refused busy */
    heliod_voice_t fv = 0;
    play(a, "loop", HELIOD_PLAY_LOOP, 300, &fv, 0);
    /* only a real voice's sets go through the mixer's schedule: on a busy
     * machine the play may start virtual (the pool full of the bundles'
     * beeps, or the CPU governor's limit) until a ranking pass */
    assert_true(wait_real(a, fv));
    heliod_at_frame(a, t + 10 * clk.rate);
    heliod_voice_set_t fset = {.mask = HELIOD_SET_GAIN, .gain_db = -1};
    int busy = 0;
    for (int i = 0; i < 4200 && !busy; i++)
        busy = heliod_set(a, fv, &fset) == HELIOD_EBUSY;
    heliod_at_frame(a, 0);
    assert_true(busy);
    /* held until its sets are done; the flood may have filled the command
     * ring too, and EBUSY means "try again" once the audio thread drains it
     * (on a loaded machine that takes a few periods) */
    int sr = HELIOD_EBUSY;
    for (int i = 0; i < 500 && sr == HELIOD_EBUSY; i++) {
        sr = heliod_stop(a, fv, 5);
        if (sr == HELIOD_EBUSY) sleep_ms(10);
    }
    assert_int_equal(sr, 0);
    sleep_ms(150);
    assert_true(stat_of(a, "sched_late") >= (double)sched0 + 1);

    /* voices still playing at shutdown fade out on the audio thread */
    play(a, "loop", HELIOD_PLAY_LOOP, 0, &v[0], 0);
    play(a, "loop", HELIOD_PLAY_LOOP | HELIOD_PLAY_DETACHED, 0, &v[1], 0);
    double callbacks = stat_of(a, "callbacks");
    double stolen = stat_of(a, "voices_stolen");
    heliod_close(a);

    assert_int_equal(kill(pid, SIGTERM), 0);
    assert_int_equal(wait_exit(pid), 0);
    dump(out);
    assert_true(callbacks > 0);
    assert_true(stolen > 0);
    assert_true(virt >= 2 * VOICES);
    assert_true(virtualised >= 1);
    assert_true(realised >= 1);
    assert_true(hrtf_on == (hrtf ? 1.0 : 0.0));
    assert_true(hrtf ? hrtf_voices >= 1 : hrtf_voices == 0);
    assert_int_equal(hook_value(out, "flag_resolved"), 1);
    assert_int_equal(hook_value(out, "total"), 0);
    if (record) { /* the tap really ran: the file holds the session */
        SF_INFO info = {0};
        SNDFILE *f = sf_open(rec, SFM_READ, &info);
        assert_non_null(f);
        sf_close(f);
        fprintf(stderr, "  record: %lld frames, %d channels\n", (long long)info.frames,
                info.channels);
        assert_true(info.frames > 48000 / 2);
        assert_int_equal(info.channels, layout ? 8 : 2);
    }
    stop_jackd();
}

/* The mix workers: a scene above HL_MIX_PART_MIN voices (3D, looping, own
 * pitch, cubic; 2D ones filtered on the full path), moved, re-pitched and
 * stopped while the worker shares its blocks; its thread carries the RT flag. */
static void test_mix(void **state) {
    (void)state;
    char sock[300], out[300], loop[300];
    snprintf(sock, sizeof sock, "%s/heliod.sock", g_dir);
    snprintf(out, sizeof out, "%s/mix.out", g_dir);
    snprintf(loop, sizeof loop, "%s/loop.wav", g_dir);
    write_sine(loop, 1, 0.5, 220);
    /* --voices above the old cap of 4096: the tables sized at start */
    const char *argv[] = {g_prog, "--voices",        "8192", "--virtual-voices",
                          "8192", "--client-voices", "8192", "--mix-threads",
                          "2",    "--cpu-budget",    "0",    "--audibility-floor",
                          "-144", "--socket",        sock,   "--driver",
                          "null", "--log-level",     "warn", NULL};
    pid_t pid = spawn(argv, out);
    assert_true(pid > 0);
    heliod_t *a = connect_retry(sock, "rt-mix");
    assert_int_equal(heliod_server_info(a)->voices, 8192);
    assert_int_equal(heliod_load(a, "loop", loop, HELIOD_LOAD_SHARED, NULL), 0);
    for (int i = 0; i < 560; i++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.flags = HELIOD_PLAY_LOOP | (i % 8 ? HELIOD_PLAY_3D | HELIOD_PLAY_CUBIC : 0);
        p.pitch = 0.9f + 0.2f * (float)(i % 13) / 13.0f;
        p.gain_db = -40;
        p.pos[0] = (float)(i % 7) - 3;
        p.pos[2] = -2;
        if (i % 8 == 0) p.post.lp_hz = 1000.0f;
        assert_true(heliod_play_async(a, "loop", &p, NULL, NULL) > 0);
    }
    assert_int_equal(heliod_sync(a), 0);
    double shared = 0;
    for (int tries = 0; tries < 500 && shared < 40; tries++) { /* engine blocks, not time */
        sleep_ms(10);
        shared = stat_of(a, "mix_blocks_shared");
    }
    heliod_listener_t lis = {
        .mask = HELIOD_LIS_POS | HELIOD_LIS_FWD, .pos = {1, 0, 0}, .fwd = {1, 0, -1}};
    assert_int_equal(heliod_set_listener(a, &lis), 0);
    heliod_voice_set_t s = {
        .mask = HELIOD_SET_PITCH | HELIOD_SET_GAIN, .pitch = 1.2f, .gain_db = -30, .ramp_ms = 10};
    for (uint32_t i = 1; i <= 64; i++)
        (void)heliod_set_async(a, ((heliod_voice_t)1 << 32) | i, &s);
    sleep_ms(60);
    uint32_t stopped = 0;
    assert_int_equal(heliod_stop_all(a, 10, 0, &stopped), 0);
    sleep_ms(60);
    double threads = stat_of(a, "mix_threads");
    heliod_close(a);
    assert_int_equal(kill(pid, SIGTERM), 0);
    assert_int_equal(wait_exit(pid), 0);
    dump(out);
    assert_true(threads == 2);
    assert_true(shared >= 40); /* the worker mixed its share of 40 blocks at least */
    assert_true(stopped > 256);
    assert_int_equal(hook_value(out, "flag_resolved"), 1);
    assert_int_equal(hook_value(out, "total"), 0);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr,
                "usage: test_rt selftest|daemon|record|jack|hrtf|layout|mix PROGRAM HOOK\n");
        return 2;
    }
    g_mode = argv[1];
    g_prog = argv[2];
    g_hook = argv[3];
    if (strcmp(g_mode, "jack") == 0 && system("command -v jackd >/dev/null 2>&1") != 0) {
        fprintf(stderr, "jackd not installed: skipped\n");
        return 77;
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/heliod-rt-XXXXXX");
    if (!mkdtemp(g_dir)) return 2;
    const struct CMUnitTest self[] = {cmocka_unit_test(test_selftest)};
    const struct CMUnitTest daemon[] = {cmocka_unit_test(test_daemon)};
    const struct CMUnitTest mix[] = {cmocka_unit_test(test_mix)};
    int rc = strcmp(g_mode, "selftest") == 0 ? cmocka_run_group_tests(self, NULL, NULL)
             : strcmp(g_mode, "mix") == 0    ? cmocka_run_group_tests(mix, NULL, NULL)
                                             : cmocka_run_group_tests(daemon, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
    stop_jackd();
    return rc;
}
