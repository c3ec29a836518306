/*
 * test_signal.c - one client's broken file must not silence the others: a
 * float WAV whose samples are finite but huge (1e6 ... 1e30, an
 * unnormalised asset from a broken pipeline) is bounded at load to
 * |x| <= 16 on every load path (a file LOAD, an upload by descriptor and in
 * LOAD_DATA chunks, a stream, a bank, a resampled preload), and the master
 * limiter's reduction is bounded (at most 40 dB, back within 1 dB 225 ms
 * after the overload ends).
 *
 * heliod runs on the null driver with --record (frame k of the recording is
 * engine frame k). A "game" client plays its music (a 1 kHz sine at
 * -12 dBFS, looping) from a scheduled frame; a "loud" client plays the huge
 * file, once per load path, at -50 dB for a quarter second each, every play
 * and stop scheduled on an exact frame; then once at 0 dB (+24 dBFS: an
 * overload of the master). The victim's level is its 1 kHz component in
 * 10 ms windows (the loud file is a square wave of period 480 frames at
 * 48 kHz, half-wave symmetric: it has no 1 kHz component over any such
 * window, also after the limiter's constant gain). Checks:
 *   - at -50 dB, in every window while the loud voice plays and after it
 *     stopped: the victim within 1 dB of its level alone;
 *   - at 0 dB: the documented ducking while it plays (the limiter reduces
 *     the mix by at least the overload, 20 log10(peak / threshold), and by
 *     40 dB at most), and
 *     within 1 dB from 225 ms (the limiter's bounded recovery) after the
 *     stop on.
 * Before the bound, the -50 dB voice held the victim ~560 dB down while it
 * played and for 3.2 s after.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"

#define RATE      48000
#define WIN       480            /* 10 ms: 10 cycles of the victim, 1 of the loud square */
#define SLOT      (RATE * 3 / 5) /* frames between the loud plays: 0.35 s after each stop, */
#define LOUD_LEN  (RATE / 4)     /* 0.12 s of it beyond the recovery: 12 windows of 10 ms */
#define STOP_MS   5.0f           /* its stop fade */
#define VICTIM_HZ 1000.0
#define VICTIM_A  0.25        /* -12 dBFS */
#define THRESH    0.891250938 /* the limiter's threshold (-1 dBFS) */
#define MAX_S     16.0        /* the load-time bound on |sample| */
#define MAX_DUCK  40.0        /* the limiter's deepest reduction (dB) */
#define RECOVER_S 0.2245      /* 50 ms x ln(100 / 1.122): the limiter's bounded recovery */

/* A mono float WAV of `frames` frames at `rate`: a square wave of period
 * `period` frames whose magnitudes run through 1e6 ... 1e30 (finite, huge). */
typedef struct {
    uint32_t period;
} loud_t;

static void gen_loud(void *user, uint32_t frame, float *out, int channels) {
    const loud_t *l = user;
    static const float mag[] = {1e6f, 1e12f, 1e18f, 1e24f, 1e30f};
    float s = (frame % l->period) < l->period / 2 ? 1.0f : -1.0f;
    for (int c = 0; c < channels; c++)
        out[c] = s * mag[frame % 5];
}

static void write_loud(const char *path, int rate) {
    loud_t l = {(uint32_t)(rate / 100)}; /* 100 Hz: 480 frames at 48 kHz */
    assert_int_equal(th_write_sound(path, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, rate, (uint32_t)rate,
                                    gen_loud, &l),
                     0);
}

static void *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* The victim's 1 kHz amplitude (dB) in the left channel of x over
 * [at, at + WIN). */
static double victim_db(const float *x, size_t at) {
    double a = 0, b = 0;
    for (size_t k = 0; k < WIN; k++) {
        double ph = 2.0 * M_PI * VICTIM_HZ * (double)(at + k) / RATE;
        a += x[2 * (at + k)] * cos(ph);
        b += x[2 * (at + k)] * sin(ph);
    }
    double amp = 2.0 / WIN * sqrt(a * a + b * b);
    return 20.0 * log10(amp > 1e-30 ? amp : 1e-30);
}

typedef struct {
    const char *what;
    const char *sound;
    float gain_db;
} loud_case_t;

/* min and max of victim_db - ref over the windows in [from, to). */
static void span(const float *x, size_t from, size_t to, double ref, double *lo, double *hi) {
    *lo = 1e9;
    *hi = -1e9;
    for (size_t w = from; w + WIN <= to; w += WIN) {
        double d = victim_db(x, w) - ref;
        if (d < *lo) *lo = d;
        if (d > *hi) *hi = d;
    }
}

static int bank_loaded(heliod_t *h, const char *name) {
    heliod_bank_info_t b[8];
    size_t n = 0;
    if (heliod_banks(h, b, 8, &n) < 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(b[i].name, name) == 0) return b[i].state == HELIOD_BANK_LOADED;
    return 0;
}

static void test_huge_samples(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 1, NULL), 0);
    heliod_t *game = NULL, *loud = NULL;
    assert_int_equal(heliod_connect(&game, d.sock, "game"), 0);
    assert_int_equal(heliod_connect(&loud, d.sock, "loud"), 0);

    char path[400], p96[400], man[400];
    snprintf(path, sizeof path, "%s/music.wav", d.dir);
    assert_int_equal(th_write_sine(path, RATE, 2.0, VICTIM_HZ, VICTIM_A), 0);
    assert_int_equal(heliod_load(game, "music", path, 0, NULL), 0);

    /* the huge file, through every load path */
    snprintf(path, sizeof path, "%s/huge.wav", d.dir);
    snprintf(p96, sizeof p96, "%s/huge96.wav", d.dir);
    write_loud(path, RATE);
    write_loud(p96, 2 * RATE); /* resampled 96 -> 48 kHz: ringing bounded again */
    assert_int_equal(heliod_load(loud, "file", path, 0, NULL), 0);
    assert_int_equal(heliod_load(loud, "file96", p96, 0, NULL), 0);
    assert_int_equal(heliod_load(loud, "stream96", p96, HELIOD_LOAD_STREAM, NULL), 0);
    size_t size = 0;
    void *bytes = read_all(path, &size);
    assert_int_equal(heliod_load_memory(loud, "byfd", bytes, size, 0, NULL), 0);
    assert_int_equal(setenv("HELIOD_UPLOAD", "chunks", 1), 0);
    assert_int_equal(heliod_load_memory(loud, "bychunks", bytes, size, 0, NULL), 0);
    assert_int_equal(unsetenv("HELIOD_UPLOAD"), 0);
    free(bytes);
    snprintf(man, sizeof man, "%s/hugebank.ini", d.dir);
    FILE *m = fopen(man, "w");
    assert_non_null(m);
    fputs("name = hugebank\n[sound inbank]\npath = huge.wav\n", m);
    fclose(m);
    assert_int_equal(heliod_bank_load(loud, man, NULL), 0);
    while (!bank_loaded(loud, "hugebank"))
        th_sleep_ms(10);
    assert_true(th_stat(loud, "uploads_fd") >= 1.0);
    assert_true(th_stat(loud, "uploads_chunked") >= 1.0);

    const loud_case_t cases[] = {
        {"file LOAD", "file", -50.0f},
        {"LOAD_FD upload", "byfd", -50.0f},
        {"LOAD_DATA upload", "bychunks", -50.0f},
        {"bank", "inbank", -50.0f},
        {"resampled preload", "file96", -50.0f},
        {"resampled stream", "stream96", -50.0f},
        {"file LOAD at 0 dB (+24 dBFS)", "file", 0.0f},
    };
    enum { NC = sizeof cases / sizeof cases[0] };

    /* the schedule: music from base on, each loud play in its slot */
    heliod_clock_t c;
    assert_int_equal(heliod_clock(game, &c), 0);
    assert_int_equal(c.rate, RATE);
    const uint64_t base = c.frame + RATE; /* a second ahead: every request is in by then */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    snprintf(pp.bus, sizeof pp.bus, "music");
    heliod_voice_t mv = 0;
    heliod_at_frame(game, base);
    assert_int_equal(heliod_play(game, "music", &pp, &mv, NULL), 0);
    assert_int_equal(heliod_late_frames(game), 0);
    heliod_at_frame(game, 0);
    for (int i = 0; i < NC; i++) {
        uint64_t at = base + (uint64_t)(i + 1) * SLOT;
        heliod_play_params_init(&pp);
        pp.flags = HELIOD_PLAY_LOOP;
        pp.gain_db = cases[i].gain_db;
        heliod_voice_t v = 0;
        heliod_at_frame(loud, at);
        assert_int_equal(heliod_play(loud, cases[i].sound, &pp, &v, NULL), 0);
        assert_int_equal(heliod_late_frames(loud), 0);
        heliod_at_frame(loud, at + LOUD_LEN);
        assert_int_equal(heliod_stop(loud, v, STOP_MS), 0);
    }
    heliod_at_frame(loud, 0);
    const uint64_t end = base + (uint64_t)(NC + 1) * SLOT;
    for (;;) {
        assert_int_equal(heliod_clock(game, &c), 0);
        if (c.frame > end + RATE / 10) break;
        th_sleep_ms(50);
    }
    assert_true(th_stat(game, "record_dropped_frames") == 0.0);
    heliod_close(game);
    heliod_close(loud);

    size_t frames = 0;
    float *x = th_stop_read_stereo(&d, &frames, 0);
    assert_true(frames >= end);

    /* the victim alone: its level (the first 100 ms skipped: fade-in) */
    double ref_lo, ref_hi;
    span(x, base + RATE / 10, base + SLOT, 0.0, &ref_lo, &ref_hi);
    assert_true(ref_hi - ref_lo < 0.1); /* steady */
    const double ref = (ref_lo + ref_hi) / 2;
    printf("victim alone: %.2f dB\n", ref);
    assert_true(fabs(ref - (20 * log10(VICTIM_A * M_SQRT1_2))) < 0.5); /* centre pan */

    const size_t stop_fade = (size_t)(STOP_MS / 1000.0f * RATE);
    for (int i = 0; i < NC; i++) {
        size_t at = base + (size_t)(i + 1) * SLOT, stop = at + LOUD_LEN;
        size_t next = at + SLOT;
        double dlo, dhi, alo, ahi;
        if (cases[i].gain_db < -20.0f) {
            /* below the limiter's threshold: nothing is ducked, ever */
            span(x, at, stop + stop_fade, ref, &dlo, &dhi);
            span(x, stop, next, ref, &alo, &ahi);
            printf("%-30s victim during %+.2f..%+.2f dB, after %+.2f..%+.2f dB\n", cases[i].what,
                   dlo, dhi, alo, ahi);
            assert_true(dlo >= -1.0 && dhi <= 1.0);
            assert_true(alo >= -1.0 && ahi <= 1.0);
        } else {
            /* an overload: the limiter ducks the mix by at least the
             * overload (peak over threshold; a fast peak limiter riding
             * on the loud wave takes a little more of the victim), never
             * by more than its documented maximum, 40 dB */
            double peak =
                MAX_S * pow(10.0, cases[i].gain_db / 20.0) * M_SQRT1_2 + VICTIM_A * M_SQRT1_2;
            double duck = 20.0 * log10(peak / THRESH);
            span(x, at + WIN * 2, stop, ref, &dlo, &dhi); /* past the 5 ms fade-in */
            size_t rec = stop + stop_fade + (size_t)ceil(RECOVER_S * RATE);
            span(x, rec, next, ref, &alo, &ahi);
            printf("%-30s victim during %+.2f..%+.2f dB (overload %.2f dB, ducking at most "
                   "%.0f dB), %.0f ms after the stop %+.2f..%+.2f dB\n",
                   cases[i].what, dlo, dhi, duck, MAX_DUCK, RECOVER_S * 1000 + STOP_MS, alo, ahi);
            assert_true(duck < MAX_DUCK);
            assert_true(dlo >= -MAX_DUCK && dhi <= -duck + 1.0);
            assert_true(alo >= -1.0 && ahi <= 1.0);
        }
    }
    free(x);
    th_daemon_cleanup(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_huge_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
