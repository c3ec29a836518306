/*
 * test_stream.c - streaming end to end: the real heliod on the null driver
 * with --record, driven through libheliod. Test audio is generated here with
 * libsndfile (Ogg Vorbis, FLAC, WAV, and MP3 when this libsndfile can write
 * it). Checks: clear errors for missing/corrupt streamed files; a streamed
 * and a preloaded copy of one FLAC, started in one batch hard left / hard
 * right, match sample for sample once aligned (a stream starts when the
 * decoder pool has primed it, so it may land some blocks later: the lag is
 * found by cross-correlation, up to MAX_LAG); the same with a loop
 * crossfade; a looped stream whose ends join has no discontinuity;
 * loop_count N plays N+1 times (streamed and preloaded); seek and
 * pause/resume are click-free on both kinds; a stream PLAY whose file was
 * deleted after LOAD answers EFILE and the daemon keeps serving; a client
 * that disconnects right after sending stream plays leaks nothing, nor does
 * a shutdown with opens in flight; an open that blocks (a FIFO) stalls only
 * its own request, not other clients; a seek keeps the loop passes left as
 * heard, and the filter sent with it stays the voice's; a start/stop storm
 * of stream voices leaves fds and streams_active where they were, with no
 * xrun.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"

#define RATE    48000
#define AMP     0.5
#define MAX_LAG (RATE / 4) /* how late a stream may start after its batch: 0.25 s */
#define XC_WIN  8192       /* frames the cross-correlation compares */

typedef struct {
    th_daemon_t d;
} fixture_t;

static void path_in(const th_daemon_t *d, char *dst, size_t cap, const char *name) {
    snprintf(dst, cap, "%s/%s", d->dir, name);
}

static int setup(void **state) {
    return th_fixture_alloc(state, sizeof(fixture_t), 1, NULL);
}

/* A control client: the pause and stop tests act on everyone's voices. */
static heliod_t *connect_or_fail(fixture_t *f) {
    return th_connect(&f->d, "test_stream", HELIOD_CONNECT_CONTROL);
}

/* ---- generated audio ------------------------------------------------------ */

typedef struct {
    double freq;
} sine_t;

static void gen_sine(void *user, uint32_t i, float *out, int ch) {
    const sine_t *s = user;
    float v = (float)(AMP * sin(2 * M_PI * s->freq * i / RATE));
    for (int c = 0; c < ch; c++)
        out[c] = v;
}

/* Music-like test signal: two partials and a slow chirp, never silent. */
static void gen_music(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    double t = (double)i / RATE;
    double v = 0.3 * sin(2 * M_PI * 220 * t) + 0.15 * sin(2 * M_PI * 1337 * t + 0.3) +
               0.1 * sin(2 * M_PI * (300 + 200 * t) * t);
    for (int c = 0; c < ch; c++)
        out[c] = (float)v;
}

static void write_or_fail(const char *path, int fmt, int ch, uint32_t frames, th_gen_fn g,
                          void *u) {
    assert_int_equal(th_write_sound(path, fmt, ch, RATE, frames, g, u), 0);
}

/* A client of f (connect_or_fail) with a sound written to p (400 bytes:
 * f's directory/file; write_or_fail's format, channels, frames and
 * generator) and loaded streamed as name. */
static heliod_t *stream_loaded(fixture_t *f, char *p, const char *file, const char *name, int fmt,
                               int ch, uint32_t frames, th_gen_fn g, void *u) {
    heliod_t *h = connect_or_fail(f);
    path_in(&f->d, p, 400, file);
    write_or_fail(p, fmt, ch, frames, g, u);
    assert_int_equal(heliod_load(h, name, p, HELIOD_LOAD_STREAM, NULL), 0);
    return h;
}

/* ---- the recording --------------------------------------------------------- */

typedef struct {
    float *x;
    size_t frames;
} rec_t;

static void stop_and_read(fixture_t *f, rec_t *r) {
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0);
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(f->d.record, &r->x, &r->frames, &ch, &rate), 0);
    assert_int_equal(ch, 2);
    assert_int_equal(rate, RATE);
}

/* First and last frame of channel c above thr, or -1. */
static long first_above(const rec_t *r, int c, float thr) {
    for (size_t i = 0; i < r->frames; i++)
        if (fabsf(r->x[i * 2 + c]) > thr) return (long)i;
    return -1;
}
static long last_above(const rec_t *r, int c, float thr) {
    for (size_t i = r->frames; i-- > 0;)
        if (fabsf(r->x[i * 2 + c]) > thr) return (long)i;
    return -1;
}

/* Largest sample-to-sample step of channel c. */
static float max_step(const rec_t *r, int c) {
    float m = 0;
    for (size_t i = 1; i < r->frames; i++) {
        float d = fabsf(r->x[i * 2 + c] - r->x[(i - 1) * 2 + c]);
        if (d > m) m = d;
    }
    return m;
}

/* Longest run of frames where channel c stays below thr, after `from`. */
static size_t longest_quiet(const rec_t *r, int c, float thr, size_t from, size_t to) {
    size_t best = 0, run = 0;
    for (size_t i = from; i < to && i < r->frames; i++) {
        if (fabsf(r->x[i * 2 + c]) < thr) {
            if (++run > best) best = run;
        } else {
            run = 0;
        }
    }
    return best;
}

/* The lag (|lag| <= MAX_LAG) at which the right channel best matches the
 * left one over XC_WIN frames from `from`, by cross-correlation. */
static long best_lag(const rec_t *r, long from) {
    long found = 0;
    double best = -INFINITY;
    for (long lag = -MAX_LAG; lag <= MAX_LAG; lag++) {
        if (from + lag < 0 || (size_t)(from + lag + XC_WIN) > r->frames) continue;
        if ((size_t)(from + XC_WIN) > r->frames) break;
        double c = 0;
        const float *x = r->x + from * 2, *y = r->x + (from + lag) * 2 + 1;
        for (long i = 0; i < XC_WIN; i++)
            c += (double)x[i * 2] * y[i * 2];
        if (c > best) {
            best = c;
            found = lag;
        }
    }
    return found;
}

/* Aligns right on left (best_lag) and returns the frames compared and the
 * largest |left - right| in *worst. */
static size_t aligned_diff(const rec_t *r, long from, const char *what, float *worst) {
    long lag = best_lag(r, from);
    print_message("%s: lag %ld frames (%.1f ms)\n", what, lag, lag * 1000.0 / RATE);
    size_t n = 0;
    *worst = 0;
    for (long i = from; (size_t)i < r->frames; i++) {
        long j = i + lag;
        if (j < 0 || (size_t)j >= r->frames) continue;
        float d = fabsf(r->x[i * 2] - r->x[j * 2 + 1]);
        if (d > *worst) *worst = d;
        n++;
    }
    print_message("%s: max |preloaded - streamed| = %g over %zu frames\n", what, (double)*worst, n);
    return n;
}

static heliod_voice_t play_or_fail(heliod_t *h, const char *sound, heliod_play_params_t *p) {
    heliod_voice_t v = 0;
    int rc = heliod_play(h, sound, p, &v, NULL);
    if (rc != 0) fail_msg("play %s: %s (%s)", sound, heliod_strerror(rc), heliod_last_error(h));
    return v;
}

/* Waits (up to 5 s, a wide margin on a loaded machine) until the daemon's
 * stat key is 0, and checks it is. */
static void wait_stat_zero(heliod_t *h, const char *key) {
    for (int i = 0; i < 500 && th_stat(h, key) != 0; i++)
        th_sleep_ms(10);
    assert_int_equal(th_stat(h, key), 0);
}

/* A client of f whose voice *v plays (default parameters) `seconds` of
 * gen_music, a mono WAV written to f's directory as file and loaded
 * streamed as name. */
static heliod_t *music_streaming(fixture_t *f, const char *file, const char *name, uint32_t seconds,
                                 heliod_voice_t *v) {
    char p[400];
    heliod_t *h = stream_loaded(f, p, file, name, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1,
                                RATE * seconds, gen_music, NULL);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    *v = play_or_fail(h, name, &pp);
    return h;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_load_errors_and_formats(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char p[400];
    heliod_sound_info_t si;

    path_in(&f->d, p, sizeof p, "missing.ogg");
    assert_int_equal(heliod_load(h, "m", p, HELIOD_LOAD_STREAM, NULL), HELIOD_EFILE);
    assert_non_null(strstr(heliod_last_error(h), "No such file"));

    path_in(&f->d, p, sizeof p, "corrupt.ogg");
    FILE *c = fopen(p, "wb");
    assert_non_null(c);
    for (int i = 0; i < 4096; i++)
        fputc((i * 7919) & 0xFF, c);
    fclose(c);
    assert_int_equal(heliod_load(h, "c", p, HELIOD_LOAD_STREAM, NULL), HELIOD_EDECODE);
    assert_true(strlen(heliod_last_error(h)) > 0);

    static const struct {
        const char *file;
        int fmt;
    } kinds[] = {
        {"s.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS},
        {"s.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16},
        {"s.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16},
    };
    sine_t s = {440};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        path_in(&f->d, p, sizeof p, kinds[k].file);
        write_or_fail(p, kinds[k].fmt, 2, RATE, gen_sine, &s);
        char name[16];
        snprintf(name, sizeof name, "k%zu", k);
        assert_int_equal(heliod_load(h, name, p, HELIOD_LOAD_STREAM, &si), 0);
        assert_true(si.flags & HELIOD_LOAD_STREAM);
        assert_int_equal(si.channels, 2);
        assert_int_equal(si.source_rate, RATE);
        assert_true(si.frames >= RATE - 2048 && si.frames <= RATE + 2048);
    }
    /* MP3: only if this libsndfile can write it (1.1+ with LAME) */
    path_in(&f->d, p, sizeof p, "s.mp3");
    if (th_write_sound(p, SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, 2, RATE, RATE, gen_sine, &s) ==
        0) {
        assert_int_equal(heliod_load(h, "mp3", p, HELIOD_LOAD_STREAM, &si), 0);
        assert_true(si.frames > RATE / 2);
    } else {
        print_message("MP3: this libsndfile cannot write MP3, skipped\n");
    }

    /* validation against the sound: loop end past the end, seek past the end */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    pp.loop_end = RATE * 4;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "k0", &pp, &v, NULL), HELIOD_EINVAL);
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    v = play_or_fail(h, "k0", &pp);
    heliod_voice_set_t vs = {.mask = HELIOD_SET_SEEK, .seek_s = 5.0};
    assert_int_equal(heliod_set(h, v, &vs), HELIOD_EINVAL);
    vs.seek_s = 0.5;
    assert_int_equal(heliod_set(h, v, &vs), 0);
    /* a streamed sound in use cannot be unloaded */
    assert_int_equal(heliod_unload(h, "k0"), HELIOD_EINUSE);
    assert_int_equal(heliod_stop(h, v, 0), 0);
    th_sleep_ms(100);
    assert_int_equal(heliod_unload(h, "k0"), 0);
    assert_int_equal(th_stat(h, "streams_active"), 0);
    heliod_close(h);
}

static void test_streamed_matches_preloaded(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char p[400];
    path_in(&f->d, p, sizeof p, "music.flac");
    write_or_fail(p, SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 1, RATE * 3 / 2, gen_music, NULL);
    assert_int_equal(heliod_load(h, "pre", p, 0, NULL), 0);
    assert_int_equal(heliod_load(h, "str", p, HELIOD_LOAD_STREAM, NULL), 0);

    heliod_play_params_t a, b;
    heliod_play_params_init(&a);
    heliod_play_params_init(&b);
    a.pan = 1.0f;  /* streamed: hard right */
    b.pan = -1.0f; /* preloaded: hard left */
    /* one batch: both requests reach the daemon in one read */
    assert_true(heliod_play_async(h, "str", &a, NULL, NULL) > 0);
    assert_true(heliod_play_async(h, "pre", &b, NULL, NULL) > 0);
    assert_int_equal(heliod_sync(h), 0);
    th_sleep_ms(1800);
    double underruns = th_stat(h, "stream_underruns");
    heliod_close(h);
    rec_t r;
    stop_and_read(f, &r);
    assert_true(underruns == 0);

    long on_l = first_above(&r, 0, 1e-3f), on_r = first_above(&r, 1, 1e-3f);
    assert_true(on_l >= 0 && on_r >= 0);
    float worst = 0;
    size_t n = aligned_diff(&r, on_l, "streamed vs preloaded", &worst);
    assert_true(n > RATE);
    assert_true(worst < 1e-4f);
    free(r.x);
}

static void test_stream_xfade_matches_preloaded(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char p[400];
    path_in(&f->d, p, sizeof p, "xf.wav");
    write_or_fail(p, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, gen_music, NULL);
    assert_int_equal(heliod_load(h, "xpre", p, 0, NULL), 0);
    assert_int_equal(heliod_load(h, "xstr", p, HELIOD_LOAD_STREAM, NULL), 0);
    heliod_play_params_t a;
    heliod_play_params_init(&a);
    a.flags = HELIOD_PLAY_LOOP;
    a.loop_start = RATE / 4;
    a.loop_end = RATE * 3 / 4;
    a.loop_count = 2;
    a.loop_xfade_ms = 50; /* 2400 frames, < loop_start and < the region */
    a.fade_in_ms = 0;
    heliod_play_params_t b = a;
    a.pan = 1.0f;
    b.pan = -1.0f;
    /* a crossfade longer than the audio before loop_start is refused, streamed too */
    heliod_play_params_t bad = a;
    bad.loop_xfade_ms = 300;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "xstr", &bad, &v, NULL), HELIOD_EINVAL);
    assert_true(heliod_play_async(h, "xstr", &a, NULL, NULL) > 0);
    assert_true(heliod_play_async(h, "xpre", &b, NULL, NULL) > 0);
    assert_int_equal(heliod_sync(h), 0);
    th_sleep_ms(2200); /* 0.25 + 3 x 0.5 + 0.25 s */
    heliod_close(h);
    rec_t r;
    stop_and_read(f, &r);
    long on_l = first_above(&r, 0, 1e-3f);
    assert_true(on_l >= 0);
    float worst = 0;
    size_t n = aligned_diff(&r, on_l, "loop crossfade, streamed vs preloaded", &worst);
    assert_true(n > RATE * 3 / 2);
    assert_true(worst < 1e-4f);
    /* the mixer crossfades the preloaded copy: a decoder that ignored
     * loop_xfade_ms would differ by up to the signal's amplitude at the seams */
    free(r.x);
}

static void test_loop_seamless_stream(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char p[400];
    path_in(&f->d, p, sizeof p, "loop.wav");
    sine_t s = {480}; /* 100 frames per cycle: 120 whole cycles, the ends join */
    write_or_fail(p, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, 12000, gen_sine, &s);
    assert_int_equal(heliod_load(h, "loop", p, HELIOD_LOAD_STREAM, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    pp.pan = -1;
    pp.fade_in_ms = 10;
    heliod_voice_t v = play_or_fail(h, "loop", &pp);
    th_sleep_ms(1200); /* about 4.8 loop seams */
    assert_int_equal(heliod_stop(h, v, 20), 0);
    th_sleep_ms(100);
    heliod_close(h);
    rec_t r;
    stop_and_read(f, &r);
    long a = first_above(&r, 0, 1e-3f), b = last_above(&r, 0, 1e-3f);
    assert_true(b - a > RATE); /* played through several seams */
    /* a seam that does not join shows as a step far above the sine's own */
    float step = max_step(&r, 0), bound = (float)(AMP * 2 * M_PI * 480 / RATE) * 1.1f;
    print_message("looped stream: max step %g (sine's own %g)\n", (double)step,
                  (double)bound / 1.1);
    assert_true(step < bound);
    /* and it never went quiet inside */
    assert_true(longest_quiet(&r, 0, 1e-4f, (size_t)a, (size_t)b) < 4);
    free(r.x);
}

static void test_loop_count(void **state) {
    fixture_t *f = *state;
    sine_t s = {480};
    char p[400];
    heliod_t *h = stream_loaded(f, p, "burst.wav", "bs", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, 4800,
                                gen_sine, &s); /* 0.1 s */
    assert_int_equal(heliod_load(h, "bp", p, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    pp.loop_count = 2; /* plays 3 times */
    pp.fade_in_ms = 0;
    pp.pan = 1;
    play_or_fail(h, "bs", &pp);
    pp.pan = -1;
    play_or_fail(h, "bp", &pp);
    th_sleep_ms(600);
    heliod_close(h);
    rec_t r;
    stop_and_read(f, &r);
    for (int c = 0; c < 2; c++) {
        long a = first_above(&r, c, 1e-3f), b = last_above(&r, c, 1e-3f);
        print_message("loop_count 2, %s: sounded %ld frames (3 x 4800 = 14400)\n",
                      c ? "streamed" : "preloaded", b - a);
        assert_true(a >= 0);
        assert_true(labs((b - a) - 14400) < 200);
    }
    free(r.x);
}

static void test_seek_click_free(void **state) {
    fixture_t *f = *state;
    sine_t s = {440};
    char p[400];
    heliod_t *h = stream_loaded(f, p, "long.ogg", "ls", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 1,
                                RATE * 5, gen_sine, &s);
    assert_int_equal(heliod_load(h, "lp", p, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.fade_in_ms = 10;
    pp.pan = 1;
    heliod_voice_t vs = play_or_fail(h, "ls", &pp);
    pp.pan = -1;
    heliod_voice_t vp = play_or_fail(h, "lp", &pp);
    for (int k = 0; k < 4; k++) {
        th_sleep_ms(150);
        heliod_voice_set_t set = {.mask = HELIOD_SET_SEEK, .seek_s = 0.5 + 0.77317 * k};
        assert_int_equal(heliod_set(h, vs, &set), 0);
        assert_int_equal(heliod_set(h, vp, &set), 0);
    }
    th_sleep_ms(200);
    assert_int_equal(heliod_stop(h, vs, 20), 0);
    assert_int_equal(heliod_stop(h, vp, 20), 0);
    wait_stat_zero(h, "streams_active");
    heliod_close(h);
    rec_t r;
    stop_and_read(f, &r);
    /* a raw jump at a random phase would step up to 2 * AMP; the seek fades
     * (64 frames out, 64 in) keep it near the sine's own step (0.029) */
    for (int c = 0; c < 2; c++) {
        float st = max_step(&r, c);
        print_message("seek, %s: max step %g\n", c ? "streamed" : "preloaded", (double)st);
        assert_true(st < 0.05f);
        long a = first_above(&r, c, 1e-3f), b = last_above(&r, c, 1e-3f);
        assert_true(b - a > RATE * 3 / 4);
    }
    free(r.x);
}

static void test_seek_keeps_loop_count(void **state) {
    fixture_t *f = *state;
    sine_t s = {480};
    char p[400];
    heliod_t *h = stream_loaded(f, p, "lc.wav", "lcs", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, 4800,
                                gen_sine, &s); /* 0.1 s */
    assert_int_equal(heliod_load(h, "lcp", p, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    pp.loop_count = 5; /* 6 passes, 0.6 s: the stream's decoder runs them all ahead */
    pp.fade_in_ms = 0;
    pp.pan = 1;
    heliod_voice_t vs = play_or_fail(h, "lcs", &pp);
    pp.pan = -1;
    heliod_voice_t vp = play_or_fail(h, "lcp", &pp);
    th_sleep_ms(230);
    /* back to the start with the passes left as heard (3 more after the one
     * under way at 0.23 s),
     * as the mixer does for the preloaded voice: not a restart of the count,
     * and not the decoder's count, which is up to a ring (0.5 s) ahead */
    heliod_voice_set_t set = {.mask = HELIOD_SET_SEEK, .seek_s = 0.0};
    assert_int_equal(heliod_set(h, vs, &set), 0);
    assert_int_equal(heliod_set(h, vp, &set), 0);
    wait_stat_zero(h, "voices_active"); /* both played their passes out */
    heliod_close(h);
    rec_t r;
    stop_and_read(f, &r);
    long len[2];
    for (int c = 0; c < 2; c++) {
        long a = first_above(&r, c, 1e-3f), b = last_above(&r, c, 1e-3f);
        assert_true(a >= 0);
        len[c] = b - a;
        print_message("seek keeps loop_count, %s: sounded %ld frames\n",
                      c ? "streamed" : "preloaded", len[c]);
    }
    /* a lost or restarted count is off by at least one pass (4800 frames) */
    assert_true(labs(len[0] - len[1]) < 2400);
    assert_true(len[0] > 6 * 4800 + 480); /* the seek replayed part of a pass */
    free(r.x);
}

typedef struct {
    int errors, enovoices;
} err_count_t;

static void on_error_event(void *user, const heliod_event_t *ev) {
    err_count_t *e = user;
    if (ev->type != HELIOD_EVENT_ERROR) return;
    e->errors++;
    if (ev->status == HELIOD_ENOVOICES) e->enovoices++;
}

/* A seek that fails after an earlier seek of the voice was queued (here: no
 * stream left for its decoder, HL_MAX_STREAMS = 256) must not drop that
 * earlier one, which was or will be answered OK: the voice plays from the
 * earlier seek's position. One batch: the voice's own stream and 255 seeks
 * to 8 s hold every stream; the seeks to 1 s after them fail. */
static void test_failed_seek_keeps_earlier_seek(void **state) {
    heliod_voice_t v = 0;
    heliod_t *h = music_streaming(*state, "seekfail.wav", "sf", 20, &v);
    err_count_t e = {0};
    heliod_set_event_callback(h, on_error_event, &e);
    enum { GOOD = 255, BAD = 8 };
    heliod_voice_set_t good = {.mask = HELIOD_SET_SEEK, .seek_s = 8.0};
    heliod_voice_set_t bad = {.mask = HELIOD_SET_SEEK, .seek_s = 1.0};
    for (int i = 0; i < GOOD + BAD; i++)
        assert_true(heliod_set_async(h, v, i < GOOD ? &good : &bad) > 0);
    assert_int_equal(heliod_sync(h), 0);
    for (int i = 0; i < 100 && th_stat(h, "streams_active") > 1; i++)
        th_sleep_ms(20);
    assert_int_equal(th_stat(h, "streams_active"), 1);
    print_message("failed seeks: %d errors, %d ENOVOICES\n", e.errors, e.enovoices);
    assert_true(e.enovoices >= 1);
    assert_int_equal(e.errors, e.enovoices);
    heliod_voice_info_t vi[8];
    size_t n = 0;
    assert_int_equal(heliod_voices(h, vi, 8, &n), 0);
    assert_int_equal(n, 1);
    assert_true(vi[0].voice == v);
    print_message("position after the failed seeks: %.3f s\n", vi[0].position_s);
    assert_true(vi[0].position_s > 7.9 && vi[0].position_s < 12.0);
    assert_int_equal(heliod_stop(h, v, 0), 0);
    heliod_close(h);
}

/* A filter sent in the same SET as a seek of a real stream voice (the SET
 * answered when the new stream is primed) is the voice's filter from then
 * on: a later SET of the high-pass alone keeps that low-pass, and VOICES
 * reports both. */
static void test_seek_keeps_filter_set_with_it(void **state) {
    heliod_voice_t v = 0;
    heliod_t *h = music_streaming(*state, "seekfilt.wav", "sk", 2, &v);
    heliod_voice_set_t s = {.mask = HELIOD_SET_SEEK | HELIOD_SET_LP, .seek_s = 1.0};
    s.post.lp_hz = 1500;
    assert_int_equal(heliod_set(h, v, &s), 0);
    s = (heliod_voice_set_t){.mask = HELIOD_SET_HP};
    s.post.hp_hz = 120;
    assert_int_equal(heliod_set(h, v, &s), 0);
    heliod_voice_info_t vi[2];
    size_t n = 0;
    assert_int_equal(heliod_voices(h, vi, 2, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(vi[0].state, HELIOD_VOICE_PLAYING); /* real: the seek opened a stream */
    print_message("after seek+lp, then hp: lp %g Hz, hp %g Hz, position %.3f s\n",
                  (double)vi[0].post.lp_hz, (double)vi[0].post.hp_hz, vi[0].position_s);
    assert_true(vi[0].position_s >= 1.0);
    assert_float_equal(vi[0].post.lp_hz, 1500, 0);
    assert_float_equal(vi[0].post.hp_hz, 120, 0);
    assert_int_equal(heliod_stop(h, v, 0), 0);
    heliod_close(h);
}

static int setup_192k(void **state) {
    const char *const args[] = {"--rate", "192000", NULL};
    return th_fixture_alloc(state, sizeof(fixture_t), 0, args);
}

/* The largest values every field accepts, at 192 kHz: a seek a day in
 * (86400 s), fades and ramps of 60 s, a 10 s loop crossfade, loop points
 * at UINT32_MAX. Each is answered (EINVAL where it is past the sound) and
 * the daemon keeps serving; the sanitizer build checks that no frame count
 * was converted out of its type's range on the way. */
static void test_huge_values_192k(void **state) {
    fixture_t *f = *state;
    char p[400];
    heliod_t *h = stream_loaded(f, p, "huge.wav", "hs", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1,
                                RATE * 3, gen_music, NULL);
    assert_int_equal(heliod_load(h, "hp", p, 0, NULL), 0);
    const char *names[] = {"hs", "hp"};
    for (int k = 0; k < 2; k++) {
        heliod_play_params_t pp;
        heliod_play_params_init(&pp);
        heliod_voice_t v = 0;
        pp.flags = HELIOD_PLAY_LOOP;
        pp.loop_start = UINT32_MAX - 1;
        pp.loop_end = UINT32_MAX;
        assert_int_equal(heliod_play(h, names[k], &pp, &v, NULL), HELIOD_EINVAL);
        pp.loop_start = RATE;
        pp.loop_end = 2 * RATE;
        pp.loop_xfade_ms = 10000;
        assert_int_equal(heliod_play(h, names[k], &pp, &v, NULL), HELIOD_EINVAL);
        pp.loop_xfade_ms = 0;
        pp.loop_count = UINT32_MAX;
        pp.fade_in_ms = 60000;
        v = play_or_fail(h, names[k], &pp);
        heliod_voice_set_t s = {.mask = HELIOD_SET_SEEK, .seek_s = 86400.0};
        assert_int_equal(heliod_set(h, v, &s), HELIOD_EINVAL);
        s = (heliod_voice_set_t){.mask = HELIOD_SET_SEEK | HELIOD_SET_GAIN,
                                 .seek_s = 2.5,
                                 .gain_db = -6,
                                 .ramp_ms = 60000};
        assert_int_equal(heliod_set(h, v, &s), 0);
        th_sleep_ms(50);
        s = (heliod_voice_set_t){.mask = HELIOD_SET_PAUSE, .ramp_ms = 60000};
        assert_int_equal(heliod_set(h, v, &s), 0);
        s.mask = HELIOD_SET_RESUME;
        assert_int_equal(heliod_set(h, v, &s), 0);
        assert_int_equal(heliod_stop(h, v, 60000), 0);
    }
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    play_or_fail(h, "hp", &pp);
    uint32_t n = 0;
    assert_int_equal(heliod_stop_all(h, 60000, 1, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(heliod_ping(h, NULL), 0);
    heliod_close(h);
}

static void test_pause_resume(void **state) {
    fixture_t *f = *state;
    sine_t s = {440};
    char p[400];
    heliod_t *h = stream_loaded(f, p, "pz.flac", "pz", SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 1,
                                RATE * 3, gen_sine, &s);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.pan = -1;
    pp.fade_in_ms = 10;
    heliod_voice_t v = play_or_fail(h, "pz", &pp);
    th_sleep_ms(200);
    heliod_voice_set_t set = {.mask = HELIOD_SET_PAUSE, .ramp_ms = 10};
    assert_int_equal(heliod_set(h, v, &set), 0);
    th_sleep_ms(400);
    heliod_voice_info_t vi[8];
    size_t n = 0;
    assert_true(heliod_voices(h, vi, 8, &n) >= 0);
    assert_int_equal(n, 1);
    assert_int_equal(vi[0].state, HELIOD_VOICE_PAUSED);
    assert_string_equal(vi[0].sound, "pz");
    uint32_t count = 0;
    assert_int_equal(heliod_pause_all(h, 0, 0, &count), 0); /* resume mine */
    assert_int_equal(count, 1);
    th_sleep_ms(200);
    assert_int_equal(heliod_pause_all(h, 1, 1, &count), 0); /* pause everyone's */
    assert_int_equal(count, 1);
    th_sleep_ms(200);
    assert_int_equal(th_stat(h, "stream_underruns"), 0);
    assert_int_equal(heliod_stop(h, v, 10), 0);
    th_sleep_ms(100);
    heliod_close(h);
    rec_t r;
    stop_and_read(f, &r);
    long a = first_above(&r, 0, 1e-3f), b = last_above(&r, 0, 1e-3f);
    assert_true(a >= 0 && b > a);
    /* held silent for most of the 400 ms pause, no click in or out */
    size_t quiet = longest_quiet(&r, 0, 1e-4f, (size_t)a, (size_t)b);
    print_message("pause: silent for %zu frames\n", quiet);
    assert_true(quiet > RATE * 3 / 10);
    assert_true(max_step(&r, 0) < 0.035f);
    free(r.x);
}

static int count_fds(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void test_start_stop_storm(void **state) {
    fixture_t *f = *state;
    char p[400];
    heliod_t *h = stream_loaded(f, p, "storm.ogg", "st", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 2,
                                RATE * 2, gen_music, NULL);
    th_sleep_ms(50);
    int fds0 = count_fds(f->d.pid);
    double active0 = th_stat(h, "streams_active");
    assert_true(fds0 > 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.gain_db = -30;
    heliod_voice_t live[8] = {0};
    unsigned starts = 0, refused = 0;
    double t0 = now_s();
    while (now_s() - t0 < 2.0) {
        heliod_voice_t v = 0;
        int rc = heliod_play(h, "st", &pp, &v, NULL);
        if (rc == 0) {
            starts++;
            unsigned k = starts % 8;
            if (live[k]) heliod_stop_async(h, live[k], 0);
            live[k] = v;
        } else {
            refused++;
        }
    }
    for (unsigned k = 0; k < 8; k++)
        if (live[k]) heliod_stop_async(h, live[k], 0);
    assert_int_equal(heliod_sync(h), 0);
    double rate = starts / (now_s() - t0);
    print_message("storm: %u stream starts (%.0f/s), %u refused\n", starts, rate, refused);
    assert_true(rate > 100); /* ~1000/s on a 2-vCPU VM */
    /* the stopped streams close on the decoder threads: as long as it takes
     * (10 s at most) */
    for (int i = 0; i < 1000 && th_stat(h, "streams_active") != active0; i++)
        th_sleep_ms(10);
    assert_true(th_stat(h, "streams_active") == active0);
    double xruns = th_stat(h, "xruns");
    print_message("storm: xruns %.0f\n", xruns);
    assert_true(th_deadlines_ok(h, 0, 0));
    assert_true(th_stat(h, "voices_active") == 0);
    int fds1 = count_fds(f->d.pid);
    print_message("storm: daemon fds %d before, %d after\n", fds0, fds1);
    assert_int_equal(fds1, fds0);
    heliod_close(h);
}

typedef struct {
    int calls, status;
    heliod_voice_t voice;
} got_t;

static void on_reply(void *user, const heliod_reply_t *r) {
    got_t *g = user;
    g->calls++;
    g->status = r->status;
    g->voice = r->voice;
}

typedef struct {
    int errors, status;
    uint32_t request_id;
    char message[256];
} errev_t;

static void on_event(void *user, const heliod_event_t *ev) {
    errev_t *e = user;
    if (ev->type != HELIOD_EVENT_ERROR) return;
    e->errors++;
    e->status = ev->status;
    e->request_id = ev->request_id;
    snprintf(e->message, sizeof e->message, "%s", ev->message ? ev->message : "");
}

static void test_stream_file_deleted_after_load(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char gone[400], keep[400];
    path_in(&f->d, gone, sizeof gone, "gone.flac");
    path_in(&f->d, keep, sizeof keep, "keep.flac");
    sine_t s = {440};
    write_or_fail(gone, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 1, RATE, gen_sine, &s);
    write_or_fail(keep, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 1, RATE, gen_sine, &s);
    assert_int_equal(heliod_load(h, "gone", gone, HELIOD_LOAD_STREAM, NULL), 0);
    assert_int_equal(heliod_load(h, "keep", keep, HELIOD_LOAD_STREAM, NULL), 0);
    th_sleep_ms(50);
    int fds0 = count_fds(f->d.pid);
    double active0 = th_stat(h, "streams_active");
    assert_int_equal(unlink(gone), 0);

    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.gain_db = -30;
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(h, "gone", &pp, &v, NULL), HELIOD_EFILE);
    print_message("deleted stream file: %s\n", heliod_last_error(h));
    assert_non_null(strstr(heliod_last_error(h), "No such file"));

    /* async with callbacks: the failing play and a good one, answered by id */
    got_t bad = {0}, good = {0};
    assert_true(heliod_play_async(h, "gone", &pp, on_reply, &bad) > 0);
    assert_true(heliod_play_async(h, "keep", &pp, on_reply, &good) > 0);
    assert_int_equal(heliod_sync(h), 0);
    assert_int_equal(bad.calls, 1);
    assert_int_equal(bad.status, HELIOD_EFILE);
    assert_int_equal(good.calls, 1);
    assert_int_equal(good.status, 0);
    assert_true(good.voice != 0);

    /* NOREPLY: the failure comes back as an ERROR event naming the request */
    errev_t e = {0};
    heliod_set_event_callback(h, on_event, &e);
    int id = heliod_play_async(h, "gone", &pp, NULL, NULL);
    assert_true(id > 0);
    assert_int_equal(heliod_sync(h), 0);
    for (int i = 0; i < 100 && !e.errors; i++) {
        th_sleep_ms(10);
        assert_true(heliod_dispatch(h) >= 0);
    }
    assert_int_equal(e.errors, 1);
    assert_int_equal(e.status, HELIOD_EFILE);
    assert_int_equal(e.request_id, (uint32_t)id);
    assert_non_null(strstr(e.message, "No such file"));

    /* the daemon keeps serving, and nothing of the failed opens is left */
    assert_int_equal(heliod_ping(h, NULL), 0);
    assert_int_equal(heliod_stop(h, good.voice, 0), 0);
    th_sleep_ms(100);
    assert_true(th_stat(h, "streams_active") == active0);
    assert_true(th_stat(h, "stream_opens_pending") == 0);
    assert_true(th_stat(h, "voices_active") == 0);
    assert_int_equal(count_fds(f->d.pid), fds0);
    assert_int_equal(heliod_unload(h, "gone"), 0);
    heliod_close(h);
}

static void test_disconnect_with_stream_plays_in_flight(void **state) {
    fixture_t *f = *state;
    char p[400];
    heliod_t *h = stream_loaded(f, p, "dc.ogg", "dc", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 2, RATE * 2,
                                gen_music, NULL);
    th_sleep_ms(50);
    int fds0 = count_fds(f->d.pid);
    double active0 = th_stat(h, "streams_active");
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.gain_db = -30;
    unsigned sent = 0;
    for (int round = 0; round < 4; round++) {
        heliod_t *g = connect_or_fail(f);
        got_t ignored = {0};
        for (int k = 0; k < 32; k++, sent++)
            assert_true(heliod_play_async(g, "dc", &pp, k % 2 ? on_reply : NULL, &ignored) > 0);
        heliod_close(g); /* flushes the batch, then hangs up at once */
    }
    print_message("disconnect: %u stream plays sent by clients that hung up\n", sent);
    th_sleep_ms(400);
    assert_int_equal(heliod_ping(h, NULL), 0);
    double active1 = th_stat(h, "streams_active");
    int fds1 = count_fds(f->d.pid);
    print_message("disconnect: streams_active %g -> %g, daemon fds %d -> %d\n", active0, active1,
                  fds0, fds1);
    assert_true(active1 == active0);
    assert_true(th_stat(h, "stream_opens_pending") == 0);
    assert_true(th_stat(h, "voices_active") == 0);
    assert_int_equal(fds1, fds0);
    /* the sound is free again: nothing holds it */
    assert_int_equal(heliod_unload(h, "dc"), 0);
    heliod_close(h);
}

static void test_shutdown_with_stream_opens_in_flight(void **state) {
    fixture_t *f = *state;
    char p[400];
    heliod_t *h = stream_loaded(f, p, "sd.ogg", "sd", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 2, RATE * 2,
                                gen_music, NULL);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.gain_db = -30;
    for (int k = 0; k < 64; k++)
        assert_true(heliod_play_async(h, "sd", &pp, NULL, NULL) > 0);
    while (heliod_flush(h) == 1)
        th_sleep_ms(1);
    /* SIGTERM with opens queued, running or finished: a clean exit (and no
     * leak under the sanitizers) means every one was answered or dropped */
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0);
    heliod_close(h);
}

/* A streamed file that became a FIFO after LOAD (an open that would block a
 * decoder thread until some writer appears): the open is refused at once
 * with EFILE instead of wedging one of the decoder threads, and the daemon's
 * loop keeps answering meanwhile. */
static void test_fifo_stream_refused_without_stalling(void **state) {
    fixture_t *f = *state;
    sine_t s = {440};
    char p[400];
    heliod_t *h = stream_loaded(f, p, "slow.wav", "slow", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, RATE,
                                gen_sine, &s);
    th_sleep_ms(50);
    int fds0 = count_fds(f->d.pid);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkfifo(p, 0600), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    got_t r = {0};
    heliod_t *g = connect_or_fail(f);
    for (int k = 0; k < 4; k++) { /* more than the decoder threads */
        double t0 = now_s();
        assert_true(heliod_play_async(h, "slow", &pp, on_reply, &r) > 0);
        assert_int_equal(heliod_sync(h), 0);
        assert_true(now_s() - t0 < 1.0);
    }
    double t0 = now_s();
    assert_int_equal(heliod_ping(g, NULL), 0);
    double ping = now_s() - t0;
    print_message("fifo open: another client's ping answered in %.2f ms\n", ping * 1e3);
    assert_true(ping < 0.1);
    assert_int_equal(r.calls, 4);
    print_message("fifo open: answered %s\n", heliod_strerror(r.status));
    assert_int_equal(r.status, HELIOD_EFILE);
    assert_true(th_stat(g, "stream_opens_pending") == 0);
    assert_true(th_stat(g, "streams_active") == 0);
    heliod_close(g);
    th_sleep_ms(50);
    assert_int_equal(count_fds(f->d.pid), fds0);
    unlink(p);
    heliod_close(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        TH_TEST(test_load_errors_and_formats, setup),
        TH_TEST(test_streamed_matches_preloaded, setup),
        TH_TEST(test_stream_xfade_matches_preloaded, setup),
        TH_TEST(test_loop_seamless_stream, setup),
        TH_TEST(test_loop_count, setup),
        TH_TEST(test_seek_click_free, setup),
        TH_TEST(test_seek_keeps_loop_count, setup),
        TH_TEST(test_failed_seek_keeps_earlier_seek, setup),
        TH_TEST(test_seek_keeps_filter_set_with_it, setup),
        TH_TEST(test_huge_values_192k, setup_192k),
        TH_TEST(test_pause_resume, setup),
        TH_TEST(test_start_stop_storm, setup),
        TH_TEST(test_stream_file_deleted_after_load, setup),
        TH_TEST(test_disconnect_with_stream_plays_in_flight, setup),
        TH_TEST(test_shutdown_with_stream_opens_in_flight, setup),
        TH_TEST(test_fifo_stream_refused_without_stalling, setup),
    };
    return TH_RUN(tests); /* each test's time printed */
}
