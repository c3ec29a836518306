/*
 * test_decode.c - decoding untrusted files (the real daemon): NaN samples
 * never reach the mix, the caps (channels, rate, length, claimed length) are
 * checked before anything is allocated, streams count against
 * --max-sample-mb, and a hung stream open (simulated with the test-only
 * HELIOD_TEST_OPEN_DELAY, see daemon/assets/decoder.h) neither stalls the streams
 * already playing nor holds later opens past the open budget.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"

#define RATE 48000

typedef struct {
    th_daemon_t d;
} fixture_t;

static int start(void **state, int record, const char *const *args) {
    return th_fixture_alloc(state, sizeof(fixture_t), record, args);
}
static int setup(void **state) {
    return start(state, 1, NULL);
}
static int setup_small(void **state) {
    const char *const args[] = {"--max-sample-mb", "1", NULL};
    return start(state, 0, args);
}
static int setup_slow(void **state) {
    setenv("HELIOD_TEST_OPEN_DELAY", "4000:slow", 1);
    setenv("HELIOD_TEST_FILE_OPEN_DELAY", "", 1); /* its LOAD opens at once, its plays hang */
    int rc = start(state, 0, NULL);
    unsetenv("HELIOD_TEST_OPEN_DELAY");
    unsetenv("HELIOD_TEST_FILE_OPEN_DELAY");
    return rc;
}
static heliod_t *conn(fixture_t *f) {
    return th_connect(&f->d, "test_decode", 0);
}

static void path_in(const fixture_t *f, char *p, size_t cap, const char *name) {
    snprintf(p, cap, "%s/%s", f->d.dir, name);
}

static void gen_nan(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    for (int c = 0; c < ch; c++)
        out[c] = (i % 3 == 0) ? NAN : (i % 3 == 1 ? INFINITY : -INFINITY);
}

static void gen_quiet(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    for (int c = 0; c < ch; c++)
        out[c] = 0.1f * (float)sin(i * 0.05);
}

/* Writes a file libsndfile describes with the given info (a few frames). */
static int write_info(const char *path, int format, int channels, int rate, sf_count_t frames) {
    SF_INFO info = {.samplerate = rate, .channels = channels, .format = format};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    if (!sf) return -1;
    float *buf = calloc((size_t)frames * (size_t)channels, sizeof(float));
    sf_writef_float(sf, buf, frames);
    free(buf);
    sf_close(sf);
    return 0;
}

/* A float WAV of NaN and infinities at -144 dB on the ui bus beside a sine:
 * the recording carries the sine, and nothing but finite samples. */
static void test_nan_wav_never_reaches_the_mix(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char pn[400], ps[400];
    path_in(f, pn, sizeof pn, "nan.wav");
    path_in(f, ps, sizeof ps, "sine.wav");
    assert_int_equal(
        th_write_sound(pn, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, RATE, gen_nan, NULL), 0);
    assert_int_equal(th_write_sine(ps, RATE, 1.0, 440.0, 0.5), 0);
    assert_int_equal(heliod_load(h, "nan", pn, 0, NULL), 0);
    assert_int_equal(heliod_load(h, "nans", pn, HELIOD_LOAD_STREAM, NULL), 0);
    assert_int_equal(heliod_load(h, "sine", ps, 0, NULL), 0);
    heliod_play_params_t bad, good;
    heliod_play_params_init(&bad);
    heliod_play_params_init(&good);
    bad.gain_db = -144.0f;
    snprintf(bad.bus, sizeof bad.bus, "ui");
    snprintf(good.bus, sizeof good.bus, "ui");
    assert_true(heliod_play_async(h, "nan", &bad, NULL, NULL) > 0);
    assert_true(heliod_play_async(h, "nans", &bad, NULL, NULL) > 0);
    assert_true(heliod_play_async(h, "sine", &good, NULL, NULL) > 0);
    assert_int_equal(heliod_sync(h), 0);
    th_sleep_ms(1300);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0);
    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(f->d.record, &x, &frames, &ch, &rate), 0);
    size_t loud = 0, bad_samples = 0;
    for (size_t i = 0; i < frames * (size_t)ch; i++) {
        if (!isfinite(x[i])) bad_samples++;
        if (fabsf(x[i]) > 0.2f) loud++;
    }
    free(x);
    print_message("recording: %zu frames, %zu loud samples, %zu non-finite\n", frames, loud,
                  bad_samples);
    assert_int_equal(bad_samples, 0);
    assert_true(loud > RATE / 4); /* the sine (0.5 peak, panned centre) is there */
}

static void gen_music(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    double t = (double)i / 44100.0;
    float v = (float)(0.3 * sin(2 * M_PI * 330 * t) + 0.2 * sin(2 * M_PI * 2750 * t + 0.3));
    for (int c = 0; c < ch; c++)
        out[c] = v;
}

/* A 44.1 kHz file streamed (decoder.c: soxr step by step, the input soxr
 * did not take kept for the next step) and preloaded (one-shot soxr) plays
 * the same samples: streamed hard right, preloaded hard left. */
static void test_stream_44k1_matches_preloaded(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400];
    path_in(f, p, sizeof p, "m44.flac");
    assert_int_equal(th_write_sound(p, SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 1, 44100, 44100 * 3 / 2,
                                    gen_music, NULL),
                     0);
    assert_int_equal(heliod_load(h, "pre", p, 0, NULL), 0);
    assert_int_equal(heliod_load(h, "str", p, HELIOD_LOAD_STREAM, NULL), 0);
    heliod_play_params_t a, b;
    heliod_play_params_init(&a);
    heliod_play_params_init(&b);
    a.pan = 1.0f;
    b.pan = -1.0f;
    assert_true(heliod_play_async(h, "str", &a, NULL, NULL) > 0);
    assert_true(heliod_play_async(h, "pre", &b, NULL, NULL) > 0);
    assert_int_equal(heliod_sync(h), 0);
    th_sleep_ms(1800);
    double underruns = th_stat(h, "stream_underruns");
    heliod_close(h);
    size_t frames = 0;
    float *x = th_stop_read_stereo(&f->d, &frames, 0);
    assert_true(underruns == 0);
    long on[2] = {-1, -1};
    for (int c = 0; c < 2; c++)
        for (size_t i = 0; i < frames && on[c] < 0; i++)
            if (fabsf(x[i * 2 + (size_t)c]) > 1e-3f) on[c] = (long)i;
    assert_true(on[0] >= 0 && on[1] >= 0);
    size_t n = 0;
    float worst = 0;
    for (size_t i = 0; (size_t)on[0] + i < frames && (size_t)on[1] + i < frames; i++, n++) {
        float d = fabsf(x[((size_t)on[0] + i) * 2] - x[((size_t)on[1] + i) * 2 + 1]);
        if (d > worst) worst = d;
    }
    free(x);
    print_message("44.1 kHz streamed vs preloaded: onsets %ld/%ld, %zu frames, worst %.2g\n", on[0],
                  on[1], n, (double)worst);
    assert_true(n > RATE);
    assert_true(worst < 1e-4f);
}

/* Caps are checked from what the header says, before decoding. */
static void test_caps(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400];
    path_in(f, p, sizeof p, "ch13.wav"); /* 12 (7.1.4) at most */
    assert_int_equal(write_info(p, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 13, RATE, 100), 0);
    assert_int_equal(heliod_load(h, "ch13", p, 0, NULL), HELIOD_ETOOBIG);
    assert_int_equal(heliod_load(h, "ch13s", p, HELIOD_LOAD_STREAM, NULL), HELIOD_ETOOBIG);
    path_in(f, p, sizeof p, "ch12.wav");
    assert_int_equal(write_info(p, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 12, RATE, 100), 0);
    assert_int_equal(heliod_load(h, "ch12", p, 0, NULL), 0);
    /* 1 Hz: a 14 KB file that would be hours at the engine rate */
    path_in(f, p, sizeof p, "1hz.wav");
    assert_int_equal(write_info(p, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 1, 7000), 0);
    assert_int_equal(heliod_load(h, "1hz", p, 0, NULL), HELIOD_EDECODE);
    assert_int_equal(heliod_load(h, "1hzs", p, HELIOD_LOAD_STREAM, NULL), HELIOD_EDECODE);
    path_in(f, p, sizeof p, "400k.wav");
    assert_int_equal(write_info(p, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 400000, 100), 0);
    assert_int_equal(heliod_load(h, "400k", p, 0, NULL), HELIOD_EDECODE);
    path_in(f, p, sizeof p, "8k.wav");
    assert_int_equal(write_info(p, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 8000, 100), 0);
    assert_int_equal(heliod_load(h, "8k", p, 0, NULL), 0);
    heliod_close(h);
}

/* A tiny FLAC whose STREAMINFO claims total_samples: patched in place. */
static void write_bomb(const char *p, uint64_t total) {
    assert_int_equal(write_info(p, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 2, RATE, 4096), 0);
    FILE *fp = fopen(p, "r+b");
    assert_non_null(fp);
    unsigned char b[26];
    assert_int_equal(fread(b, 1, sizeof b, fp), sizeof b);
    assert_memory_equal(b, "fLaC", 4);
    b[21] = (unsigned char)((b[21] & 0xF0) | ((total >> 32) & 0x0F));
    b[22] = (unsigned char)(total >> 24);
    b[23] = (unsigned char)(total >> 16);
    b[24] = (unsigned char)(total >> 8);
    b[25] = (unsigned char)total;
    fseek(fp, 0, SEEK_SET);
    fwrite(b, 1, sizeof b, fp);
    fclose(fp);
}

static void test_decompression_bomb(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400];
    path_in(f, p, sizeof p, "bomb.flac");
    write_bomb(p, (uint64_t)RATE * 7200); /* two hours */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(heliod_load(h, "bomb", p, 0, NULL), HELIOD_ETOOBIG);
    /* 50 minutes of stereo: 1.1 GiB, over --max-sample-mb 1 before allocating */
    write_bomb(p, (uint64_t)RATE * 3000);
    assert_int_equal(heliod_load(h, "bomb2", p, 0, NULL), HELIOD_ENOMEM);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    print_message("bomb refused in %.3f s\n", s);
    assert_true(s < 2.0);
    assert_true(th_stat(h, "rss_bytes") < 200e6);
    heliod_close(h);
}

typedef struct {
    int replies, ok, enomem, etimedout, other;
} tally_t;

static void on_reply(void *user, const heliod_reply_t *r) {
    tally_t *t = user;
    t->replies++;
    if (r->status == 0)
        t->ok++;
    else if (r->status == HELIOD_ENOMEM)
        t->enomem++;
    else if (r->status == HELIOD_ETIMEDOUT)
        t->etimedout++;
    else
        t->other++;
}

/* --max-sample-mb 1: each stream voice's ring (~130 KiB at 48 kHz) counts,
 * so 16 voices of one streamed sound cannot all start; stopping them gives
 * the memory back. */
static void test_streams_count_against_budget(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400];
    path_in(f, p, sizeof p, "s.wav");
    assert_int_equal(
        th_write_sound(p, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, RATE, RATE * 4, gen_quiet, NULL), 0);
    assert_int_equal(heliod_load(h, "s", p, HELIOD_LOAD_STREAM, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    tally_t t = {0};
    for (int i = 0; i < 16; i++)
        assert_true(heliod_play_async(h, "s", &pp, on_reply, &t) > 0);
    assert_int_equal(heliod_sync(h), 0);
    print_message("16 stream plays under 1 MiB: %d ok, %d ENOMEM, %d other\n", t.ok, t.enomem,
                  t.other);
    assert_int_equal(t.replies, 16);
    assert_true(t.ok >= 1);
    assert_true(t.enomem >= 1);
    assert_int_equal(t.other, 0);
    assert_int_equal(heliod_stop_all(h, 0, 0, NULL), 0);
    th_sleep_ms(300);
    tally_t t2 = {0};
    assert_true(heliod_play_async(h, "s", &pp, on_reply, &t2) > 0);
    assert_int_equal(heliod_sync(h), 0);
    assert_int_equal(t2.ok, 1);
    heliod_close(h);
}

/* Opens of *slow* files sleep 4 s (HELIOD_TEST_OPEN_DELAY): three of them
 * at once are answered ETIMEDOUT after the 2 s budget, a stream already
 * playing never underruns meanwhile, a sound kept compressed plays while
 * they hang (its open needs no opener thread), and a new open succeeds at
 * once. */
static void test_hung_open_does_not_stall(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char pa[400], ps[400], pc[400];
    path_in(f, pa, sizeof pa, "a.wav");
    path_in(f, ps, sizeof ps, "slow.wav");
    path_in(f, pc, sizeof pc, "c.flac");
    assert_int_equal(
        th_write_sound(pa, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, RATE, RATE * 8, gen_quiet, NULL),
        0);
    assert_int_equal(
        th_write_sound(ps, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, RATE, RATE, gen_quiet, NULL), 0);
    assert_int_equal(heliod_load(h, "a", pa, HELIOD_LOAD_STREAM, NULL), 0);
    assert_int_equal(heliod_load(h, "slow", ps, HELIOD_LOAD_STREAM, NULL), 0);
    assert_int_equal(
        th_write_sound(pc, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 1, RATE, RATE, gen_quiet, NULL), 0);
    assert_int_equal(heliod_load(h, "c", pc, HELIOD_LOAD_COMPRESSED, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "a", &pp, &v, NULL), 0);
    double ur0 = th_stat(h, "stream_underruns");
    tally_t t = {0};
    struct timespec t0, t1, ts0;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    for (int i = 0; i < 3; i++)
        assert_true(heliod_play_async(h, "slow", &pp, on_reply, &t) > 0);
    /* both openers hang: a sound kept compressed still plays at once (its
     * open runs on the main thread, no file to wait for); queued behind
     * the hung ones it would wait for the 2 s budget */
    double inl = th_stat(h, "stream_opens_inline");
    heliod_voice_t vc;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(heliod_play(h, "c", &pp, &vc, NULL), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sc = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    print_message("a compressed play while the openers hang: %.3f s\n", sc);
    assert_true(sc < 1.0);
    assert_true(th_stat(h, "stream_opens_inline") == inl + 1);
    assert_int_equal(heliod_stop(h, vc, 0), 0);
    assert_int_equal(heliod_sync(h), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - ts0.tv_sec) + (double)(t1.tv_nsec - ts0.tv_nsec) / 1e9;
    print_message("3 hung opens: %d ETIMEDOUT, %d ok after %.2f s\n", t.etimedout, t.ok, s);
    assert_int_equal(t.etimedout, 3);
    /* STATS counts them apart from the file jobs' (LOAD's open was not one) */
    double sto = th_stat(h, "stream_open_timeouts"), fto = th_stat(h, "file_open_timeouts");
    print_message("stream_open_timeouts %.0f, file_open_timeouts %.0f\n", sto, fto);
    assert_true(sto == 3);
    assert_true(fto == 0);
    /* two openers: the first two at the 2 s budget, the third on a fresh
     * opener 2 s later (it hangs too); without a budget, 4 s and 8 s */
    assert_true(s < 5.0);
    /* a normal open right after: a fresh opener takes it at once */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    heliod_voice_t v2;
    assert_int_equal(heliod_play(h, "a", &pp, &v2, NULL), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    print_message("next open: %.3f s\n", s);
    assert_true(s < 1.0);
    double ur = th_stat(h, "stream_underruns") - ur0;
    print_message("underruns of the playing stream meanwhile: %.0f\n", ur);
    assert_true(ur == 0);
    heliod_close(h);
    th_sleep_ms(2500); /* the abandoned openers come back before the daemon stops */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        TH_TEST(test_nan_wav_never_reaches_the_mix, setup),
        TH_TEST(test_stream_44k1_matches_preloaded, setup),
        TH_TEST(test_caps, setup),
        TH_TEST(test_decompression_bomb, setup_small),
        TH_TEST(test_streams_count_against_budget, setup_small),
        TH_TEST(test_hung_open_does_not_stall, setup_slow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
