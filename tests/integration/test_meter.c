/*
 * test_meter.c - meters and loudness through the real daemon (null driver),
 * the real socket and libheliod: the held peak, peak-hold and rms readings in
 * STATS and in METER events for a known sine, EBU R128 loudness of a 1 kHz
 * tone as EBU Tech 3341 specifies it, METER events at the rate a client
 * chose and none after it unsubscribed, `heliodctl meter`, and a subscriber
 * that never reads: the daemon skips its events instead of queueing them.
 * Test signals are written with libsndfile here.
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
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

#define RATE 48000
#define TONE 1000.0 /* Hz: 48 samples a cycle, so a 2 s file loops seamlessly */

typedef th_fixture_t fixture_t;

static int setup(void **state) {
    return th_fixture_start(state, 0, NULL);
}

static heliod_t *conn(fixture_t *f) {
    heliod_t *h = th_fixture_connect_control(f, "test_meter"); /* resets the stats */
    assert_non_null(h);
    return h;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The same sine of peak amplitude amp on both channels of a stereo file. A
 * stereo source plays 2D at pan 0 with unity gain on each channel (the
 * balance law: pan moves one side down, it never lowers the centre), so the
 * bus and the master carry exactly the file's level; a mono source would be
 * panned equal-power, 3 dB down on each side. */
typedef struct {
    double amp;
} sine_t;

static void gen_sine(void *user, uint32_t i, float *out, int ch) {
    const sine_t *s = user;
    float v = (float)(s->amp * sin(2.0 * M_PI * TONE * (double)i / RATE));
    for (int c = 0; c < ch; c++)
        out[c] = v;
}

/* Loads a 2 s stereo float sine at dbfs (peak) as `name`. */
static void load_sine(fixture_t *f, heliod_t *h, const char *name, double dbfs) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.wav", f->d.dir, name);
    sine_t s = {pow(10.0, dbfs / 20.0)};
    assert_int_equal(
        th_write_sound(path, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 2, RATE, 2 * RATE, gen_sine, &s), 0);
    assert_int_equal(heliod_load(h, name, path, 0, NULL), 0);
}

static heliod_voice_t play_loop(heliod_t *h, const char *name, const char *bus) {
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP;
    snprintf(p.bus, sizeof p.bus, "%s", bus);
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(h, name, &p, &v, NULL), 0);
    return v;
}

/* rms of a sine of peak level L dBFS: L - 10 log10(2) (its mean square is amp^2 / 2). */
static double sine_rms_db(double peak_db) {
    return peak_db - 10.0 * log10(2.0);
}

#define NEAR(v, want, tol)                                                                         \
    do {                                                                                           \
        double v_ = (v), w_ = (want);                                                              \
        if (!(fabs(v_ - w_) <= (tol)))                                                             \
            fail_msg("%s = %.4f, expected %.4f +- %.2f", #v, v_, w_, (double)(tol));               \
    } while (0)

/* The music bus after a -6 dBFS tone stopped with its last loud frame in
 * [lo, hi] (seconds of engine time): each METER event is checked at its own
 * frame. The bar falls at 20 dB/s from the last loud block; the marker holds
 * -6 for 1.5 s, then falls at 20 dB/s too; the 300 ms rms window empties. */
typedef struct {
    double lo, hi, last;
    int n, falling, holding, released;
} decay_t;

static const heliod_level_t *bus_level(const heliod_meter_t *m, const char *name);

static void on_decay(void *user, const heliod_event_t *ev) {
    decay_t *d = user;
    if (ev->type != HELIOD_EVENT_METER) return;
    const heliod_level_t *l = bus_level(ev->meter, "music");
    assert_non_null(l);
    double t = (double)ev->meter->frame / RATE, peak = l->peak_db[0], hold = l->peak_hold_db[0];
    d->last = t;
    d->n++;
    if (t < d->hi) return;
    const double eps = 0.1; /* dB: float readings */
    double lo = -6.0 - 20.0 * (t - d->lo), hi = -6.0 - 20.0 * (t - d->hi);
    if (peak > -144.0) { /* not yet at the floor */
        if (!(peak <= hi + eps && peak >= lo - eps))
            fail_msg("%.3f s after the stop: peak %.2f dB, want %.2f..%.2f", t - d->hi, peak, lo,
                     hi);
        d->falling++;
    }
    if (t - d->lo <= 1.5) {
        NEAR(hold, -6.0, eps); /* held */
        d->holding++;
    } else if (t - d->hi > 1.5) {
        if (!(hold <= -6.0 - 20.0 * (t - d->hi - 1.5) + eps))
            fail_msg("%.3f s after the stop: hold %.2f dB, still held", t - d->hi, hold);
        d->released++;
    }
    if (t - d->hi > 0.3 + 0.01) /* the window holds silence only */
        assert_true(l->rms_db[0] == -144.0);
}

/* -6 dBFS on the music bus: -6.0 peak and -9.0 rms there and on the master
 * (STATS), silence on the other buses; after the stop the peak bar falls at
 * 20 dB/s while the hold marker stays 1.5 s, then falls too. */
static void test_levels(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load_sine(f, h, "s6", -6.0);
    heliod_voice_t v = play_loop(h, "s6", "music");
    th_sleep_ms(700);                     /* the fade-in and a whole 300 ms rms window behind us */
    const double rms = sine_rms_db(-6.0); /* -9.0103 */
    NEAR(th_stat(h, "bus.music.peak_db"), -6.0, 0.1);
    NEAR(th_stat(h, "bus.music.peak_hold_db"), -6.0, 0.1);
    NEAR(th_stat(h, "bus.music.rms_db"), rms, 0.1);
    NEAR(th_stat(h, "master.peak_db"), -6.0, 0.1);
    NEAR(th_stat(h, "master.peak_l_db"), -6.0, 0.1);
    NEAR(th_stat(h, "master.peak_r_db"), -6.0, 0.1);
    NEAR(th_stat(h, "master.peak_hold_db"), -6.0, 0.1);
    NEAR(th_stat(h, "master.rms_db"), rms, 0.1);
    NEAR(th_stat(h, "master.rms_l_db"), rms, 0.1);
    NEAR(th_stat(h, "master.rms_r_db"), rms, 0.1);
    /* the other buses never carried anything */
    assert_true(th_stat(h, "bus.sfx.peak_db") == -144.0);
    assert_true(th_stat(h, "bus.sfx.peak_hold_db") == -144.0);
    assert_true(th_stat(h, "bus.dialog.rms_db") == -144.0);
    /* the old last-block keys are gone */
    assert_true(isnan(th_stat(h, "peak_l")));
    assert_true(isnan(th_stat(h, "bus.music.peak")));

    /* stopped (5 ms fade): the bar falls, the marker holds, the rms empties,
     * all in engine time: METER events carry the frame they are as of, and
     * the last loud frame lies between the clock read before the stop and a
     * fade after the block that follows its reply */
    heliod_clock_t k0, k1;
    assert_int_equal(heliod_clock(h, &k0), 0);
    assert_int_equal(heliod_stop(h, v, 5), 0);
    assert_int_equal(heliod_clock(h, &k1), 0);
    decay_t dc = {.lo = (double)k0.frame / RATE,
                  .hi = (double)(k1.frame + 2 * k1.period) / RATE + 0.005};
    heliod_set_event_callback(h, on_decay, &dc);
    assert_int_equal(heliod_subscribe_meter(h, HELIOD_SUB_METER, 50.0f), 0);
    for (int i = 0; i < 2000 && dc.last < dc.hi + 2.2; i++) { /* 20 s at most */
        assert_true(heliod_dispatch(h) >= 0);
        th_sleep_ms(10);
    }
    heliod_set_event_callback(h, NULL, NULL);
    fprintf(stderr,
            "# the stop's last loud frame within %.1f ms; %d METER events up to %.2f s after "
            "it: %d on the falling bar, %d holding, %d after the hold\n",
            (dc.hi - dc.lo) * 1e3, dc.n, dc.last - dc.hi, dc.falling, dc.holding, dc.released);
    assert_true(dc.last >= dc.hi + 2.2);
    assert_true(dc.falling >= 5 && dc.holding >= 5 && dc.released >= 5);
    heliod_close(h);
}

/* K-weighting (ITU-R BS.1770-4) at 48 kHz: the two biquads the standard
 * gives, |H(e^jw)|^2 at f. */
static double biquad_pow(const double b[3], const double a[3], double f) {
    double w = 2.0 * M_PI * f / RATE;
    double nr = b[0] + b[1] * cos(w) + b[2] * cos(2 * w), ni = -(b[1] * sin(w) + b[2] * sin(2 * w));
    double dr = a[0] + a[1] * cos(w) + a[2] * cos(2 * w), di = -(a[1] * sin(w) + a[2] * sin(2 * w));
    return (nr * nr + ni * ni) / (dr * dr + di * di);
}

static double k_weight_pow(double f) {
    static const double sb[3] = {1.53512485958697, -2.69169618940638, 1.19839281085285};
    static const double sa[3] = {1.0, -1.69065929318241, 0.73248077421585};
    static const double hb[3] = {1.0, -2.0, 1.0};
    static const double ha[3] = {1.0, -1.99004745483398, 0.99007225036621};
    return biquad_pow(sb, sa, f) * biquad_pow(hb, ha, f);
}

/* A 1 kHz sine at -23 dBFS on both channels: EBU Tech 3341 test case 1 (and
 * libebur128's own test on it) reads -23.0 LUFS momentary, short-term and
 * integrated. Why, for this exact signal: BS.1770 loudness is
 *   L = -0.691 + 10 log10(sum over channels of G_c * z_c),
 * z_c the mean square of the K-weighted channel, G = 1 for left and right.
 * A sine of peak amplitude A has mean square A^2 / 2; two channels add to
 * A^2 |K(1 kHz)|^2, and -0.691 dB is exactly what the K filter adds at 1 kHz
 * (that is how the constant was chosen), so L = 20 log10(A) = -23.0 LUFS.
 * The expectation below is that sum computed from the standard's filter, not
 * a constant. Integrated is gated (-70 LUFS absolute, -10 LU relative): a
 * steady tone passes every gate, so it equals the momentary value; its
 * short-term loudness never changes, so the range is 0 LU. The test resets
 * the integration (STATS reset) once the tone plays, so no block straddles
 * its start. */
static void test_loudness(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load_sine(f, h, "s23", -23.0);
    double amp = pow(10.0, -23.0 / 20.0);
    double want = -0.691 + 10.0 * log10(2.0 * (amp * amp / 2.0) * k_weight_pow(TONE));
    fprintf(stderr, "# K-weighting at 1 kHz %+.4f dB: expected loudness %.3f LUFS\n",
            10.0 * log10(k_weight_pow(TONE)), want);
    NEAR(want, -23.0, 0.01); /* the standard's own calibration */
    /* nothing played yet: the floor */
    assert_true(th_stat(h, "loudness.momentary") == -144.0);
    assert_true(th_stat(h, "loudness.integrated") == -144.0);
    play_loop(h, "s23", "sfx");
    th_sleep_ms(1000);
    heliod_stat_t st[400];
    size_t n = 0;
    assert_int_equal(heliod_stats(h, st, 400, &n, 1), 0); /* reset: integrate from here */
    th_sleep_ms(3600); /* a whole short-term window (3 s) after the reset */
    double m = th_stat(h, "loudness.momentary"), s = th_stat(h, "loudness.short_term");
    double i = th_stat(h, "loudness.integrated"), lra = th_stat(h, "loudness.range");
    fprintf(stderr, "# loudness M %.3f S %.3f I %.3f LUFS, LRA %.3f LU\n", m, s, i, lra);
    NEAR(m, want, 0.1);
    NEAR(s, want, 0.1);
    NEAR(i, want, 0.1);
    assert_true(lra >= 0.0 && lra < 0.1);
    assert_true(th_stat(h, "loudness_dropped_frames") == 0.0);
    /* and the tone reads -23 dBFS peak, -26 dBFS rms on the meters */
    NEAR(th_stat(h, "master.peak_db"), -23.0, 0.1);
    NEAR(th_stat(h, "master.rms_db"), sine_rms_db(-23.0), 0.1);
    heliod_close(h);
}

typedef struct {
    int n;
    double first, last;
    heliod_meter_t m; /* the last one */
} meters_t;

static void on_meter(void *user, const heliod_event_t *ev) {
    meters_t *s = user;
    if (ev->type != HELIOD_EVENT_METER) return;
    assert_non_null(ev->meter);
    double t = now_s();
    if (s->n == 0) s->first = t;
    s->last = t;
    s->n++;
    s->m = *ev->meter;
}

/* Reads events for ms milliseconds. */
static void pump(heliod_t *h, int ms) {
    double end = now_s() + ms / 1000.0;
    while (now_s() < end) {
        assert_true(heliod_dispatch(h) >= 0);
        th_sleep_ms(2);
    }
}

static const heliod_level_t *bus_level(const heliod_meter_t *m, const char *name) {
    for (unsigned i = 0; i < m->nbuses; i++)
        if (strcmp(m->bus[i].name, name) == 0) return &m->bus[i];
    return NULL;
}

/* METER events at 50 Hz and at the default 20 Hz, their contents, nothing
 * after unsubscribing, and bad rates refused. */
static void test_events(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f), *g = conn(f);
    load_sine(f, g, "e6", -6.0);
    play_loop(g, "e6", "dialog");
    th_sleep_ms(600);
    meters_t s = {0};
    heliod_set_event_callback(h, on_meter, &s);
    assert_int_equal(heliod_subscribe_meter(h, HELIOD_SUB_METER, 50.0f), 0);
    pump(h, 2000);
    double hz = (s.n - 1) / (s.last - s.first);
    fprintf(stderr, "# 50 Hz asked: %d events, %.1f Hz\n", s.n, hz);
    assert_true(s.n >= 85 && s.n <= 110);
    NEAR(hz, 50.0, 5.0);
    /* the last event: master, the four default buses, the loudness */
    assert_string_equal(s.m.master.name, "master");
    assert_int_equal(s.m.nbuses, 4);
    const heliod_level_t *dl = bus_level(&s.m, "dialog");
    assert_non_null(dl);
    for (int c = 0; c < 2; c++) {
        NEAR(dl->peak_db[c], -6.0, 0.1);
        NEAR(dl->peak_hold_db[c], -6.0, 0.1);
        NEAR(dl->rms_db[c], sine_rms_db(-6.0), 0.1);
        NEAR(s.m.master.peak_db[c], -6.0, 0.1);
        NEAR(s.m.master.rms_db[c], sine_rms_db(-6.0), 0.1);
        assert_true(bus_level(&s.m, "ui")->peak_db[c] == -144.0f);
    }
    assert_true(s.m.frame > 0);
    NEAR(s.m.momentary, -6.0, 0.2); /* a stereo 1 kHz sine: its peak level in LUFS */
    assert_true(s.m.range >= 0.0f);

    /* unsubscribed: what was already on its way arrives, then nothing */
    assert_int_equal(heliod_subscribe(h, 0), 0);
    pump(h, 50);
    s.n = 0;
    pump(h, 600);
    assert_int_equal(s.n, 0);

    /* the default rate */
    assert_int_equal(heliod_subscribe_meter(h, HELIOD_SUB_METER | HELIOD_SUB_ENDED, 0.0f), 0);
    pump(h, 30);
    s.n = 0;
    pump(h, 2000);
    hz = (s.n - 1) / (s.last - s.first);
    fprintf(stderr, "# default rate: %d events in 2 s, %.1f Hz\n", s.n, hz);
    assert_true(s.n >= 36 && s.n <= 44);
    NEAR(hz, 20.0, 2.0);
    assert_int_equal(heliod_subscribe_meter(h, HELIOD_SUB_METER, 100.0f), 0);
    pump(h, 30);
    s.n = 0;
    pump(h, 1000);
    fprintf(stderr, "# 100 Hz asked: %d events in 1 s\n", s.n);
    assert_true(s.n >= 85 && s.n <= 110);
    /* rates outside 1..100 are refused, and change nothing */
    assert_int_equal(heliod_subscribe_meter(h, HELIOD_SUB_METER, 0.5f), HELIOD_EINVAL);
    assert_int_equal(heliod_subscribe_meter(h, HELIOD_SUB_METER, 101.0f), HELIOD_EINVAL);
    assert_int_equal(heliod_subscribe_meter(h, HELIOD_SUB_METER, NAN), HELIOD_EINVAL);
    assert_int_equal(heliod_subscribe(h, 0), 0);
    assert_true(th_stat(g, "meter_events") >= 200);
    heliod_close(h);
    heliod_close(g);
}

static int count_lines(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* heliodctl meter: one line per event, text and JSON, --count, --rate. */
static void test_ctl_meter(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load_sine(f, h, "c6", -6.0);
    play_loop(h, "c6", "ui");
    th_sleep_ms(600);
    static char out[65536], err[4096];
    const char *const text[] = {"meter", "--count", "3", "--rate", "50", NULL};
    double t0 = now_s();
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, text), 0);
    double dt = now_s() - t0;
    fprintf(stderr, "# heliodctl meter --count 3 --rate 50: %.2f s\n%s", dt, out);
    assert_int_equal(count_lines(out, "\n"), 3);
    assert_int_equal(count_lines(out, "master -6.0/-6.0/-9.0 "), 3);
    assert_int_equal(count_lines(out, " ui -6.0/-6.0/-9.0 "), 3);
    assert_int_equal(count_lines(out, " sfx -144.0/-144.0/-144.0 "), 3);
    assert_int_equal(count_lines(out, " LRA "), 3);
    const char *const json[] = {"--json", "meter", "--count", "2", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, json), 0);
    assert_int_equal(count_lines(out, "\n"), 2);
    assert_int_equal(count_lines(out, "{\"event\":\"meter\",\"frame\":"), 2);
    assert_int_equal(count_lines(out, "\"name\":\"ui\",\"peak_db\":[-6"), 2);
    assert_int_equal(count_lines(out, "\"loudness\":{\"momentary\":"), 2);
    const char *const bad[] = {"meter", "--rate", "500", NULL};
    assert_int_not_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, bad), 0);
    assert_non_null(strstr(err, "--rate"));
    const char *const help[] = {"meter", "--help", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, help), 0);
    assert_non_null(strstr(out, "--count N"));
    heliod_close(h);
}

/* VmRSS of pid in KiB, or -1. */
static long rss_kb(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    long kb = -1;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
    fclose(fp);
    return kb;
}

/* A subscriber at 100 Hz that never reads: once its socket buffer is full its
 * events are skipped, not queued; its unsent output stays under the skip
 * threshold, the daemon does not grow, and the client is neither paused nor
 * dropped: when it reads again, events flow. */
static void test_slow_subscriber(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f), *slow = conn(f);
    load_sine(f, h, "w6", -6.0);
    play_loop(h, "w6", "sfx");
    meters_t s = {0};
    heliod_set_event_callback(slow, on_meter, &s);
    assert_int_equal(heliod_subscribe_meter(slow, HELIOD_SUB_METER, 100.0f), 0);
    th_sleep_ms(1000);
    long rss0 = rss_kb(f->d.pid);
    double outq_max = 0;
    /* until 200 events were skipped (its socket buffer and its capped queue
     * long full: 2 s of events dropped, not queued), at most 8 s (~800
     * events, ~150 KiB if they were all queued) */
    double skipped = 0, t0 = now_s();
    while (skipped < 200 && now_s() - t0 < 8.0) {
        th_sleep_ms(250);
        double q = th_stat(h, "outq_bytes");
        if (q > outq_max) outq_max = q;
        skipped = th_stat(h, "meter_events_skipped");
    }
    long rss1 = rss_kb(f->d.pid);
    fprintf(stderr,
            "# non-reader at 100 Hz for %.1f s: %.0f events skipped, outq max %.0f bytes, "
            "rss %ld -> %ld kB\n",
            now_s() - t0, skipped, outq_max, rss0, rss1);
    assert_true(skipped > 100);
    assert_true(outq_max <= 32 * 1024 + 4096); /* HLD_METER_OUTQ_MAX + one event */
    if (!TH_SANITIZED) assert_true(rss1 - rss0 < 1024);
    assert_true(th_stat(h, "clients") == 2.0); /* still connected */
    /* it reads again: the backlog arrives, then fresh events at its rate */
    pump(slow, 300);
    assert_true(s.n > 0);
    s.n = 0;
    pump(slow, 1000);
    fprintf(stderr, "# after reading again: %d events in 1 s\n", s.n);
    assert_true(s.n >= 85 && s.n <= 110);
    assert_int_equal(heliod_ping(slow, NULL), 0);
    heliod_close(slow);
    heliod_close(h);
}

/* ---- the wire itself: a raw connection ---------------------------------- */

/* What a client in another language sees: METER frames the strict codec
 * decodes exactly (every level in range, names valid), id 0; a 4-byte
 * SUBSCRIBE (the mask alone, as before meter_hz) still works; an unknown bit
 * in it is a protocol error, a bad rate an argument error. */
static void test_wire(void **state) {
    fixture_t *f = *state;
    int fd = th_raw_meter_1_0(f->d.sock, "raw"); /* the mask alone: METER at the default rate */
    assert_true(fd >= 0);
    static uint8_t body[HL_MAX_FRAME];
    static hl_event_t ev;
    uint16_t op;
    uint32_t id;
    size_t n = 0;
    int meters = 0;
    double t0 = now_s();
    while (meters < 10) {
        assert_int_equal(th_raw_frame(fd, &op, &id, body, &n), 0);
        assert_int_equal(op, HL_OP_EVENT);
        assert_int_equal(id, 0);
        hl_rbuf_t r;
        hl_rbuf_init(&r, body, n);
        hl_get_event(&r, &ev);
        assert_int_equal(hl_rbuf_finish(&r), 0);
        assert_int_equal(ev.type, HL_EVENT_METER);
        assert_int_equal(ev.meter.nbuses, 4);
        assert_string_equal(ev.meter.bus[0].name, "sfx");
        assert_string_equal(ev.meter.bus[3].name, "ui");
        meters++;
    }
    double hz = 9.0 / (now_s() - t0);
    fprintf(stderr, "# raw 4-byte SUBSCRIBE: 10 METER frames, %.1f Hz\n", hz);
    assert_true(hz > 15.0 && hz < 27.0);
    /* a rate out of range: EINVAL, the connection stays */
    hl_subscribe_t sub = {.mask = HL_SUB_METER, .meter_hz = 500.0f};
    uint8_t b[128];
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, sizeof b);
    hl_put_subscribe(&w, &sub);
    assert_int_equal(th_raw_send(fd, HL_OP_SUBSCRIBE, 3, b, w.len), 0);
    assert_int_equal(th_raw_status(fd, 3), HELIOD_EINVAL);
    assert_int_equal(th_raw_send(fd, HL_OP_PING, 4, NULL, 0), 0);
    assert_int_equal(th_raw_status(fd, 4), 0);
    /* an unknown bit in the mask alone: EPROTO, then the daemon closes */
    const uint32_t unknown = HL_SUB_MASK + 1u; /* the bit past every known one */
    const uint8_t bad[4] = {(uint8_t)unknown, (uint8_t)(unknown >> 8), (uint8_t)(unknown >> 16),
                            (uint8_t)(unknown >> 24)};
    assert_int_equal(th_raw_send(fd, HL_OP_SUBSCRIBE, 5, bad, 4), 0);
    assert_int_equal(th_raw_status(fd, 5), HELIOD_EPROTO);
    while (th_raw_frame(fd, &op, &id, body, &n) == 0) {
    }
    close(fd);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        TH_TEST(test_levels, setup),          TH_TEST(test_loudness, setup),
        TH_TEST(test_events, setup),          TH_TEST(test_ctl_meter, setup),
        TH_TEST(test_slow_subscriber, setup), TH_TEST(test_wire, setup),
    };
    return TH_RUN(tests);
}
