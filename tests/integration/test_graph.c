/*
 * test_graph.c - the mixer graph through the real daemon, socket and
 * libheliod: the bus tree and its refusals, filter and EQ magnitudes
 * measured on recorded tones, ducking's envelope over time, and the reverb's
 * RT60 by Schroeder backward integration of an impulse response.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"

#define RATE 48000

typedef th_fixture_t fixture_t;

static int setup_record(void **state) {
    return th_fixture_start(state, 1, NULL);
}

/* A control client: these tests tune the whole mix (the master and the
 * default buses belong to the daemon: a plain client may not change them). */
static heliod_t *connect_or_fail(fixture_t *f) {
    return th_connect(&f->d, "test_graph", HELIOD_CONNECT_CONTROL);
}

static void sine_file(fixture_t *f, const char *name, double freq, double amp, char *path,
                      size_t cap) {
    snprintf(path, cap, "%s/%s", f->d.dir, name);
    assert_int_equal(th_write_sine(path, RATE, 2.0, freq, amp), 0);
}

static float *stop_and_read(fixture_t *f, size_t *frames) {
    return th_stop_read_stereo(&f->d, frames, RATE);
}

/* Segments of the recording louder than thr (left channel, 10 ms windows):
 * up to max [start, end) frame pairs. */
static int segments(const float *x, size_t frames, float thr, size_t seg[][2], int max) {
    int n = 0, in = 0;
    const size_t w = RATE / 100;
    for (size_t i = 0; i + w <= frames && n < max; i += w) {
        float pk = 0;
        for (size_t k = i; k < i + w; k++)
            pk = fmaxf(pk, fabsf(x[2 * k]));
        if (pk > thr && !in) {
            seg[n][0] = i;
            in = 1;
        } else if (pk <= thr && in) {
            seg[n++][1] = i;
            in = 0;
        }
    }
    if (in && n < max) seg[n++][1] = frames / w * w; /* still sounding at the end */
    return n;
}

/* RMS in dB of the left channel over the middle half of a segment (away
 * from the fades and the filter's settling). */
static double mid_rms_db(const float *x, const size_t s[2]) {
    size_t len = s[1] - s[0], a = s[0] + len / 4, b = s[1] - len / 4;
    double e = 0;
    for (size_t k = a; k < b; k++)
        e += (double)x[2 * k] * x[2 * k];
    return 10.0 * log10(e / (double)(b - a) + 1e-30);
}

/* Plays `sound` looping on `bus` with the post stage p for 500 ms, then a
 * 300 ms gap. */
static void burst(heliod_t *h, const char *sound, const char *bus, const heliod_post_t *p) {
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    pp.fade_in_ms = 10;
    snprintf(pp.bus, sizeof pp.bus, "%s", bus);
    if (p) pp.post = *p;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, sound, &pp, &v, NULL), 0);
    th_sleep_ms(500);
    assert_int_equal(heliod_stop(h, v, 10), 0);
    th_sleep_ms(300);
}

/* ---- the bus tree ----------------------------------------------------------- */

static int find_bus(const heliod_bus_info_t *b, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(b[i].name, name) == 0) return (int)i;
    return -1;
}

static void test_bus_tree(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char tone[512];
    sine_file(f, "t.wav", 440, 0.25, tone, sizeof tone);
    assert_int_equal(heliod_load(h, "t", tone, 0, NULL), 0);

    assert_int_equal(heliod_bus_create(h, "world", NULL), 0);
    assert_int_equal(heliod_bus_create(h, "steps", "world"), 0);
    assert_int_equal(heliod_bus_create(h, "world", NULL), HELIOD_EEXIST);
    assert_int_equal(heliod_bus_create(h, "x", "nope"), HELIOD_ENOBUS);
    assert_int_equal(heliod_bus_parent(h, "world", "steps"), HELIOD_EINVAL); /* a loop */
    assert_int_equal(heliod_bus_remove(h, "music"), HELIOD_EINVAL);          /* a default */
    assert_int_equal(heliod_bus_remove(h, "world"), HELIOD_EBUSINUSE);       /* has a child */
    assert_int_equal(heliod_bus_gain(h, "world", -6, 0), 0);
    assert_int_equal(heliod_bus_gain(h, "steps", -6, 0), 0);

    heliod_bus_info_t b[40];
    size_t n = 0;
    assert_int_equal(heliod_buses(h, b, 40, &n), 0);
    assert_int_equal(n, 7);
    assert_string_equal(b[0].name, "master");
    int w = find_bus(b, n, "world"), s = find_bus(b, n, "steps");
    assert_true(w > 0 && s > w); /* parents before children */
    assert_string_equal(b[s].parent, "world");
    assert_true(fabsf(b[s].path_gain_db + 12.0f) < 0.01f);

    /* a voice on it, real or virtual, keeps it */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    snprintf(pp.bus, sizeof pp.bus, "steps");
    heliod_voice_t real, quiet;
    assert_int_equal(heliod_play(h, "t", &pp, &real, NULL), 0);
    assert_int_equal(heliod_bus_remove(h, "steps"), HELIOD_EBUSINUSE);
    assert_non_null(strstr(heliod_last_error(h), "voices"));
    assert_int_equal(heliod_stop(h, real, 5), 0);
    pp.gain_db = -140; /* below the audibility floor: virtual at once */
    assert_int_equal(heliod_play(h, "t", &pp, &quiet, NULL), 0);
    heliod_voice_info_t vi[8];
    size_t nv = 0;
    assert_true(heliod_voices(h, vi, 8, &nv) >= 0);
    int virt = 0;
    for (size_t i = 0; i < nv; i++)
        if (vi[i].voice == quiet) virt = vi[i].state == HELIOD_VOICE_VIRTUAL;
    assert_true(virt);
    assert_int_equal(heliod_bus_remove(h, "steps"), HELIOD_EBUSINUSE);
    assert_int_equal(heliod_stop(h, quiet, 0), 0);

    /* a send into it keeps it too */
    pp.gain_db = 0;
    snprintf(pp.bus, sizeof pp.bus, "sfx");
    snprintf(pp.post.send[0], sizeof pp.post.send[0], "steps");
    pp.post.send_db[0] = -12;
    heliod_voice_t sender;
    assert_int_equal(heliod_play(h, "t", &pp, &sender, NULL), 0);
    assert_int_equal(heliod_bus_remove(h, "steps"), HELIOD_EBUSINUSE);
    assert_int_equal(heliod_stop(h, sender, 5), 0);
    th_sleep_ms(100);

    /* effects and ducking rules go with the bus */
    heliod_fx_t fx;
    assert_int_equal(heliod_fx_parse(h, "eq --type peak --freq 500 --gain 3", &fx, NULL, 0), 0);
    assert_int_equal(heliod_fx_add(h, "steps", 99, &fx, NULL), 0);
    heliod_duck_t dk;
    heliod_duck_init(&dk);
    snprintf(dk.bus, sizeof dk.bus, "steps");
    snprintf(dk.by, sizeof dk.by, "dialog");
    assert_int_equal(heliod_duck(h, &dk), 0);
    assert_int_equal(heliod_bus_remove(h, "steps"), 0);
    heliod_duck_info_t di[4];
    assert_int_equal(heliod_ducks(h, di, 4, &n), 0);
    assert_int_equal(n, 0);
    heliod_fx_info_t fi[4];
    assert_int_equal(heliod_fx_list(h, NULL, fi, 4, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(heliod_bus_remove(h, "world"), 0);
    assert_int_equal(heliod_buses(h, b, 40, &n), 0);
    assert_int_equal(n, 5);
    /* the index is free again: a new bus starts at unity */
    assert_int_equal(heliod_bus_create(h, "again", NULL), 0);
    assert_int_equal(heliod_buses(h, b, 40, &n), 0);
    assert_true(fabsf(b[find_bus(b, n, "again")].gain_db) < 0.01f);

    /* bad effects are refused before they reach the daemon */
    assert_int_equal(heliod_fx_parse(h, "eq --freq 5", &fx, NULL, 0), HELIOD_EINVAL);
    assert_int_equal(heliod_fx_parse(h, "comp --q 1", &fx, NULL, 0), HELIOD_EINVAL);
    assert_int_equal(heliod_fx_parse(h, "flanger", &fx, NULL, 0), HELIOD_EINVAL);
    assert_int_equal(heliod_fx_remove(h, "music", 0), HELIOD_ENOFX);
    heliod_close(h);
}

/* ---- magnitudes ----------------------------------------------------------------- */

/* The recording's bursts in order: their level relative to the first. */
static void burst_levels(fixture_t *f, int expect, double *db) {
    size_t frames = 0;
    float *x = stop_and_read(f, &frames);
    size_t seg[16][2];
    int n = segments(x, frames, 1e-4f, seg, 16);
    assert_int_equal(n, expect);
    for (int i = 0; i < n; i++)
        db[i] = mid_rms_db(x, seg[i]);
    for (int i = n - 1; i >= 0; i--)
        db[i] -= db[0];
    free(x);
}

static void test_filter_magnitude(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char k1[512], k4[512];
    sine_file(f, "k1.wav", 1000, 0.25, k1, sizeof k1);
    sine_file(f, "k4.wav", 4000, 0.25, k4, sizeof k4);
    assert_int_equal(heliod_load(h, "k1", k1, 0, NULL), 0);
    assert_int_equal(heliod_load(h, "k4", k4, 0, NULL), 0);
    heliod_post_t lp = {.lp_hz = 1000}, hp = {.hp_hz = 1000}, far = {.lp_hz = 250};
    burst(h, "k1", "sfx", NULL); /* reference */
    burst(h, "k1", "sfx", &lp);  /* low-pass at the tone: -3 dB */
    burst(h, "k1", "sfx", &hp);  /* high-pass at the tone: -3 dB */
    burst(h, "k4", "sfx", &far); /* 4 octaves above a 12 dB/oct low-pass: about -48 dB */
    /* bus EQ on music: a peak of -6 dB at the tone, then a high shelf of
     * -6 dB whose midpoint is 4 octaves below the tone (its full gain) */
    heliod_fx_t fx;
    assert_int_equal(heliod_fx_parse(h, "eq --type peak --freq 1000 --q 1 --gain -6", &fx, NULL, 0),
                     0);
    assert_int_equal(heliod_fx_add(h, "music", 0, &fx, NULL), 0);
    th_sleep_ms(50);
    burst(h, "k1", "music", NULL); /* peak: -6 dB */
    assert_int_equal(heliod_fx_parse(h, "eq --type highshelf --freq 62 --gain -6", &fx, NULL, 0),
                     0);
    assert_int_equal(heliod_fx_set(h, "music", 0, &fx), 0);
    th_sleep_ms(100);
    burst(h, "k1", "music", NULL); /* 4 octaves above a high shelf's midpoint: -6 dB */
    heliod_close(h);

    double db[6];
    burst_levels(f, 6, db);
    printf("lp@fc %.2f dB, hp@fc %.2f dB, lp 4 octaves %.1f dB, peak %.2f dB, shelf %.2f dB\n",
           db[1], db[2], db[3], db[4], db[5]);
    assert_true(fabs(db[1] + 3.01) < 0.5);
    assert_true(fabs(db[2] + 3.01) < 0.5);
    assert_true(db[3] < -40.0);
    assert_true(fabs(db[4] + 6.0) < 0.2);
    assert_true(fabs(db[5] + 6.0) < 0.2);
}

static void test_occlusion_curve(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char lo[512];
    sine_file(f, "lo.wav", 100, 0.25, lo, sizeof lo);
    assert_int_equal(heliod_load(h, "lo", lo, 0, NULL), 0);
    /* at 100 Hz the occlusion's low-pass (500 Hz at 1) barely acts: the
     * gain is the curve's -24 dB x occlusion; obstruction is filter only */
    heliod_post_t half = {.occlusion = 0.5f}, full = {.occlusion = 1.0f},
                  obs = {.obstruction = 1.0f};
    burst(h, "lo", "sfx", NULL);
    burst(h, "lo", "sfx", &half);
    burst(h, "lo", "sfx", &full);
    burst(h, "lo", "sfx", &obs);
    heliod_close(h);
    double db[4];
    burst_levels(f, 4, db);
    printf("occlusion 0.5 %.2f dB, 1.0 %.2f dB, obstruction 1.0 %.2f dB\n", db[1], db[2], db[3]);
    assert_true(fabs(db[1] + 12.0) < 0.3);
    assert_true(fabs(db[2] + 24.0) < 0.6); /* + the 500 Hz low-pass at 100 Hz: ~-0.0x dB */
    assert_true(db[3] > -0.3 && db[3] < 0.1);
}

/* ---- ducking ---------------------------------------------------------------- */

/* Amplitude of freq over [a, a + n) by correlation with a sine and cosine
 * (n a whole number of its periods). */
static double tone_amp(const float *x, size_t a, size_t n, double freq) {
    double s = 0, c = 0;
    for (size_t k = 0; k < n; k++) {
        double ph = 2.0 * M_PI * freq * (double)(a + k) / RATE;
        s += x[2 * (a + k)] * sin(ph);
        c += x[2 * (a + k)] * cos(ph);
    }
    return 2.0 * sqrt(s * s + c * c) / (double)n;
}

static void test_ducking(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char mus[512], dia[512], sil[512];
    sine_file(f, "m.wav", 100, 0.25, mus, sizeof mus);
    sine_file(f, "d.wav", 4000, 0.25, dia, sizeof dia);
    sine_file(f, "s.wav", 1000, 0.0, sil, sizeof sil);
    assert_int_equal(heliod_load(h, "mus", mus, 0, NULL), 0);
    assert_int_equal(heliod_load(h, "dia", dia, 0, NULL), 0);
    assert_int_equal(heliod_load(h, "sil", sil, 0, NULL), 0);
    heliod_duck_t dk;
    heliod_duck_init(&dk);
    snprintf(dk.bus, sizeof dk.bus, "music");
    snprintf(dk.by, sizeof dk.by, "dialog");
    assert_int_equal(heliod_duck(h, &dk), 0); /* defaults: 9 dB, 80 / 200 / 600 ms */

    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    pp.fade_in_ms = 0;
    snprintf(pp.bus, sizeof pp.bus, "music");
    heliod_voice_t m, d, s;
    assert_int_equal(heliod_play(h, "mus", &pp, &m, NULL), 0);
    th_sleep_ms(300);
    /* a silent voice on the sidechain never ducks (threshold -40 dBFS) */
    snprintf(pp.bus, sizeof pp.bus, "dialog");
    assert_int_equal(heliod_play(h, "sil", &pp, &s, NULL), 0);
    th_sleep_ms(300);
    heliod_duck_info_t di[2];
    size_t n = 0;
    assert_int_equal(heliod_ducks(h, di, 2, &n), 0);
    assert_int_equal(n, 1);
    assert_true(di[0].gain_db > -0.01f);
    assert_int_equal(heliod_stop(h, s, 0), 0);
    th_sleep_ms(100);
    pp.fade_in_ms = 0;
    assert_int_equal(heliod_play(h, "dia", &pp, &d, NULL), 0);
    th_sleep_ms(500);
    assert_int_equal(heliod_ducks(h, di, 2, &n), 0);
    assert_true(fabsf(di[0].gain_db + 9.0f) < 0.1f);
    assert_int_equal(heliod_stop(h, d, 0), 0);
    th_sleep_ms(1200);
    assert_int_equal(heliod_stop(h, m, 10), 0);
    th_sleep_ms(100);
    heliod_close(h);

    size_t frames = 0;
    float *x = stop_and_read(f, &frames);
    const size_t w = RATE / 100; /* 10 ms: one period of 100 Hz, 40 of 4 kHz */
    size_t nw = frames / w;
    double *mu = calloc(nw, sizeof *mu), *dl = calloc(nw, sizeof *dl);
    for (size_t i = 0; i < nw; i++) {
        mu[i] = 20.0 * log10(tone_amp(x, i * w, w, 100.0) + 1e-12);
        dl[i] = tone_amp(x, i * w, w, 4000.0);
    }
    size_t on = 0, off = 0;
    for (size_t i = 0; i < nw && !off; i++) {
        if (!on && dl[i] > 0.01) on = i;
        if (on && i > on && dl[i] < 0.001) off = i;
    }
    assert_true(on > 0 && off > on);
    size_t base_w = on > 20 ? on - 20 : 0;
    double ref = mu[base_w];
    /* level of the music relative to before the dialogue, at time t ms after
     * the dialogue started (window centres) */
#define REL(i) (mu[(i)] - ref)
    /* attack: linear in dB over 80 ms -> half depth 40 ms in (+-1 window + 1 block) */
    size_t half = 0;
    for (size_t i = on; i < off && !half; i++)
        if (REL(i) < -4.5) half = i;
    double t_half = ((double)half - (double)on) * 10.0;
    printf("duck: half depth after %.0f ms, depth %.2f dB, ", t_half, REL(off - 2));
    assert_true(t_half >= 25.0 && t_half <= 60.0);
    assert_true(fabs(REL(off - 2) + 9.0) < 0.3);
    /* hold: still fully down 150 ms after the dialogue ended */
    assert_true(fabs(REL(off + 15) + 9.0) < 0.3);
    /* release: half way back 200 + 300 ms after, back to 0 after 200 + 600 ms */
    double mid = REL(off + 50), back = REL(off + 90);
    printf("half release %.2f dB, back %.2f dB\n", mid, back);
    assert_true(fabs(mid + 4.5) < 1.2);
    assert_true(fabs(back) < 0.3);
    free(mu);
    free(dl);
    free(x);
}

/* ---- reverb ----------------------------------------------------------------- */

static void click_gen(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    for (int c = 0; c < channels; c++)
        out[c] = frame == 0 ? 0.9f : 0.0f;
}

/* RT60 from an impulse response by Schroeder backward integration, the
 * decay fitted between -5 and -25 dB (T20, x 3). */
static double rt60_of(const float *x, size_t a, size_t n) {
    double *edc = calloc(n, sizeof *edc), acc = 0;
    for (size_t k = n; k-- > 0;) {
        double l = x[2 * (a + k)], r = x[2 * (a + k) + 1];
        acc += l * l + r * r;
        edc[k] = acc;
    }
    double t5 = -1, t25 = -1;
    for (size_t k = 0; k < n; k++) {
        double db = 10.0 * log10(edc[k] / edc[0] + 1e-300);
        if (t5 < 0 && db <= -5.0) t5 = (double)k / RATE;
        if (t25 < 0 && db <= -25.0) t25 = (double)k / RATE;
    }
    free(edc);
    return t5 < 0 || t25 < 0 ? -1.0 : 3.0 * (t25 - t5);
}

static void test_reverb_rt60(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char click[512];
    snprintf(click, sizeof click, "%s/click.wav", f->d.dir);
    assert_int_equal(
        th_write_sound(click, 0x010006 /* WAV float */, 1, RATE, RATE / 10, click_gen, NULL), 0);
    assert_int_equal(heliod_load(h, "click", click, 0, NULL), 0);
    /* the dry path on a muted bus: only the reverb's return reaches the output */
    assert_int_equal(heliod_bus_create(h, "dry", NULL), 0);
    assert_int_equal(heliod_bus_mute(h, "dry", 1, 0), 0);
    assert_int_equal(heliod_bus_create(h, "verb", NULL), 0);
    heliod_fx_t fx;
    assert_int_equal(heliod_fx_parse(h,
                                     "reverb --preset hall --rt60 1.5 --damping 0 --predelay 0 "
                                     "--dry 0 --wet 1",
                                     &fx, NULL, 0),
                     0);
    assert_int_equal(heliod_fx_add(h, "verb", 0, &fx, NULL), 0);
    double over0 = th_stat(h, "callback_overruns");
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.fade_in_ms = 0;
    snprintf(pp.bus, sizeof pp.bus, "dry");
    snprintf(pp.post.send[0], sizeof pp.post.send[0], "verb");
    pp.post.send_db[0] = 0;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "click", &pp, &v, NULL), 0);
    th_sleep_ms(3000);
    /* the longest decay stays bounded: play into it for 3 s, its callback
     * times counted on their own (a stats reset, by an operator's client) */
    heliod_t *ctl = NULL;
    assert_int_equal(
        heliod_connect_flags(&ctl, f->d.sock, "test_graph_ctl", HELIOD_CONNECT_CONTROL), 0);
    heliod_stat_t st[512]; /* every key */
    size_t nst = 0;
    assert_int_equal(heliod_stats(ctl, st, 512, &nst, 1), 0);
    fx.mask = 1; /* rt60 only */
    fx.p[0] = 20.0f;
    assert_int_equal(heliod_fx_set(h, "verb", 0, &fx), 0);
    assert_int_equal(heliod_play(h, "click", &pp, &v, NULL), 0);
    th_sleep_ms(3000);
    /* No denormal stall: that would slow every block of the tail, so the
     * median block shows it, at many times its usual cost (one voice and one
     * reverb take about 1% of the period here; half of it is a margin of
     * some fifty, for a machine much slower than this one). Late blocks of a
     * preempted thread on a loaded machine are a few, not half of them: they
     * move the p99 and the max (printed), not the median, and
     * th_deadlines_ok tells them from a cost. */
    double p50 = th_stat(ctl, "callback_us_p50") / th_stat(ctl, "period_us");
    printf("reverb tail: callback load p50 %.3f, p99 %.3f, max %.3f, %.0f overrun(s)\n", p50,
           th_stat(ctl, "callback_load_p99"), th_stat(ctl, "callback_load_max"),
           th_stat(ctl, "callback_overruns") - over0);
    assert_true(p50 < 0.5);
    assert_true(th_deadlines_ok(h, 0, over0));
    heliod_close(ctl);
    heliod_close(h);

    size_t frames = 0;
    float *x = stop_and_read(f, &frames);
    for (size_t k = 0; k < 2 * frames; k++)
        assert_true(isfinite(x[k]));
    size_t seg[4][2];
    int n = segments(x, frames, 1e-4f, seg, 4);
    assert_true(n >= 1);
    size_t start = seg[0][0];
    double rt = rt60_of(x, start, (size_t)(2.8 * RATE));
    printf("reverb: RT60 %.3f s for 1.5 s\n", rt);
    assert_true(fabs(rt - 1.5) <= 0.15);
    /* 20 s decay: the second impulse's tail never grows (energy in its last
     * 0.5 s at most that of its first 0.5 s) */
    size_t s2 = start + (size_t)(3.0 * RATE), best = s2;
    for (size_t k = s2; k < s2 + RATE / 2 && k < frames; k++)
        if (fabsf(x[2 * k]) > 1e-3f) {
            best = k;
            break;
        }
    double e_first = 0, e_last = 0;
    for (size_t k = best; k < best + RATE / 2 && k < frames; k++)
        e_first += (double)x[2 * k] * x[2 * k];
    for (size_t k = best + (size_t)(2.0 * RATE); k < best + (size_t)(2.5 * RATE) && k < frames; k++)
        e_last += (double)x[2 * k] * x[2 * k];
    printf("reverb 20 s: first 0.5 s energy %.3g, 2 s later %.3g\n", e_first, e_last);
    assert_true(e_first > 0 && e_last <= e_first);
    free(x);
}

/* ---- reverb zones ---------------------------------------------------------- */

static void make_return(heliod_t *h, const char *name, const char *rt60) {
    char text[200];
    snprintf(text, sizeof text,
             "reverb --preset room --rt60 %s --damping 0 --predelay 0 "
             "--dry 0 --wet 1",
             rt60);
    heliod_fx_t fx;
    assert_int_equal(heliod_bus_create(h, name, NULL), 0);
    assert_int_equal(heliod_fx_parse(h, text, &fx, NULL, 0), 0);
    assert_int_equal(heliod_fx_add(h, name, 0, &fx, NULL), 0);
}

static void listener_at(heliod_t *h, float x) {
    heliod_listener_t l = {.mask = HELIOD_LIS_POS, .pos = {x, 0, 0}};
    assert_int_equal(heliod_set_listener(h, &l), 0);
}

static void test_reverb_zones(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char click[512];
    snprintf(click, sizeof click, "%s/click.wav", f->d.dir);
    assert_int_equal(th_write_sound(click, 0x010006, 1, RATE, RATE / 10, click_gen, NULL), 0);
    assert_int_equal(heliod_load(h, "click", click, 0, NULL), 0);
    make_return(h, "short", "0.6");
    make_return(h, "long", "1.8");
    assert_int_equal(heliod_bus_create(h, "dry", NULL), 0);
    assert_int_equal(heliod_bus_mute(h, "dry", 1, 0), 0);
    heliod_reverb_zone_t za = {
        .name = "a", .pos = {0, 0, 0}, .radius = 5, .fade = 10, .bus = "short"};
    heliod_reverb_zone_t zb = {
        .name = "b", .pos = {40, 0, 0}, .radius = 5, .fade = 10, .bus = "long"};
    assert_int_equal(heliod_reverb_zone_set(h, &za), 0);
    assert_int_equal(heliod_reverb_zone_set(h, &zb), 0);
    heliod_reverb_zone_t bad = za;
    snprintf(bad.name, sizeof bad.name, "c");
    snprintf(bad.bus, sizeof bad.bus, "nope");
    snprintf(bad.feed, sizeof bad.feed, "nofeed");
    assert_int_equal(heliod_reverb_zone_set(h, &bad), HELIOD_ENOBUS);
    /* the weights follow the listener: inside a, between (a fading, b rising), inside b */
    heliod_reverb_zone_info_t zi[4];
    size_t n = 0;
    const float xs[3] = {0, 30, 40};
    const float wa[3] = {1, 0, 0}, wb[3] = {0, 0.5f, 1};
    for (int k = 0; k < 3; k++) {
        listener_at(h, xs[k]);
        assert_int_equal(heliod_reverb_zones(h, zi, 4, &n), 0);
        assert_int_equal(n, 2);
        printf("listener x=%g: a %.2f (%.1f dB), b %.2f (%.1f dB)\n", (double)xs[k],
               (double)zi[0].weight, (double)zi[0].send_db, (double)zi[1].weight,
               (double)zi[1].send_db);
        assert_true(fabsf(zi[0].weight - wa[k]) < 1e-4f);
        assert_true(fabsf(zi[1].weight - wb[k]) < 1e-4f);
    }
    listener_at(h, 12); /* a at 0.3, b at 0.0: only a is heard */
    assert_int_equal(heliod_reverb_zones(h, zi, 4, &n), 0);
    assert_true(fabsf(zi[0].send_db - 20.0f * log10f(0.3f)) < 0.05f);
    assert_true(zi[1].send_db <= -144.0f);

    /* what is heard: a click in zone a rings 0.6 s, in zone b 1.8 s */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.fade_in_ms = 0;
    snprintf(pp.bus, sizeof pp.bus, "dry");
    snprintf(pp.post.send[0], sizeof pp.post.send[0], "reverb_zones");
    heliod_voice_t v;
    listener_at(h, 0);
    th_sleep_ms(300);
    assert_int_equal(heliod_play(h, "click", &pp, &v, NULL), 0);
    th_sleep_ms(2500);
    listener_at(h, 40);
    th_sleep_ms(600); /* the glide, and a's tail out of the way */
    assert_int_equal(heliod_play(h, "click", &pp, &v, NULL), 0);
    th_sleep_ms(4000);
    heliod_close(h);
    size_t frames = 0;
    float *x = stop_and_read(f, &frames);
    size_t seg[8][2];
    int ns = segments(x, frames, 1e-3f, seg, 8);
    assert_true(ns >= 2);
    /* the second click: the first onset well after the first's */
    size_t b0 = 0;
    for (int i = 1; i < ns && !b0; i++)
        if (seg[i][0] > seg[0][0] + (size_t)(1.5 * RATE)) b0 = seg[i][0];
    assert_true(b0 > 0 && b0 + (size_t)(3.5 * RATE) <= frames);
    double rt_a = rt60_of(x, seg[0][0], (size_t)(2.0 * RATE));
    double rt_b = rt60_of(x, b0, (size_t)(3.5 * RATE));
    printf("zone a RT60 %.3f s (0.6), zone b RT60 %.3f s (1.8)\n", rt_a, rt_b);
    assert_true(fabs(rt_a - 0.6) <= 0.06);
    assert_true(fabs(rt_b - 1.8) <= 0.18);
    free(x);
}

/* Walking between two zones while a tone feeds them: the crossfade of the
 * two reverbs never steps (no sample-to-sample jump beyond the signal's). */
static void test_zone_walk_is_smooth(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    char tone[512];
    sine_file(f, "t.wav", 220, 0.5, tone, sizeof tone);
    assert_int_equal(heliod_load(h, "t", tone, 0, NULL), 0);
    make_return(h, "short", "0.5");
    make_return(h, "long", "2.5");
    heliod_reverb_zone_t za = {
        .name = "a", .pos = {0, 0, 0}, .radius = 2, .fade = 6, .bus = "short"};
    heliod_reverb_zone_t zb = {
        .name = "b", .pos = {10, 0, 0}, .radius = 2, .fade = 6, .bus = "long"};
    assert_int_equal(heliod_reverb_zone_set(h, &za), 0);
    assert_int_equal(heliod_reverb_zone_set(h, &zb), 0);
    assert_int_equal(heliod_bus_create(h, "dry", NULL), 0);
    assert_int_equal(heliod_bus_mute(h, "dry", 1, 0), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    snprintf(pp.bus, sizeof pp.bus, "dry");
    snprintf(pp.post.send[0], sizeof pp.post.send[0], "reverb_zones");
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "t", &pp, &v, NULL), 0);
    th_sleep_ms(800);
    for (int step = 0; step <= 50; step++) { /* 10 m in 1.5 s, and a jump back */
        listener_at(h, 0.2f * (float)step);
        th_sleep_ms(30);
    }
    listener_at(h, 0);
    th_sleep_ms(800);
    assert_int_equal(heliod_stop(h, v, 50), 0);
    th_sleep_ms(100);
    heliod_close(h);
    size_t frames = 0;
    float *x = stop_and_read(f, &frames);
    size_t seg[4][2];
    int ns = segments(x, frames, 1e-3f, seg, 4);
    assert_true(ns >= 1);
    /* a 220 Hz sine of amplitude A moves at most 2 pi 220 A / 48000 per
     * sample; the reverbs' sum stays within about the tone's own level */
    double peak = 0, step = 0;
    for (size_t k = seg[0][0] + RATE / 2; k + 1 < seg[0][1]; k++) {
        peak = fmax(peak, fabs(x[2 * k]));
        step = fmax(step, fabs(x[2 * (k + 1)] - x[2 * k]));
    }
    double sine_step = 2.0 * M_PI * 220.0 / RATE * peak;
    printf("walk: peak %.3f, largest step %.4f (a %g-peak 220 Hz sine's: %.4f)\n", peak, step, peak,
           sine_step);
    assert_true(peak > 0.01);
    assert_true(step <= 2.0 * sine_step);
    free(x);
}

/* ---- [bus NAME] sections of the config file ----------------------------------- */

static void test_config_buses(void **state) {
    (void)state;
    char path[] = "/tmp/heliod-graph-conf-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "# a game's mix\n"
                       "voices = 64\n"
                       "[bus reverb_hall]\n"
                       "parent = amb\n" /* defined further down */
                       "fx = reverb --preset hall --dry 0\n"
                       "[bus amb]    # inline comments, as in the README\n"
                       "gain = -6    ; quieter\n"
                       "fx = eq --type highpass --freq 80\n"
                       "fx = comp --threshold -24 --ratio 2\n"
                       "[bus music]\n"
                       "duck-by = dialog\n"
                       "duck-depth = 12\n"
                       "duck-release = 900\n";
    assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    th_daemon_t d;
    const char *args[] = {"--config", path, NULL};
    assert_int_equal(th_daemon_start(&d, 0, args), 0);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect_flags(&h, d.sock, "conf", HELIOD_CONNECT_CONTROL), 0);
    heliod_bus_info_t b[40];
    size_t n = 0;
    assert_int_equal(heliod_buses(h, b, 40, &n), 0);
    assert_int_equal(n, 7);
    int amb = find_bus(b, n, "amb"), hall = find_bus(b, n, "reverb_hall");
    assert_true(amb > 0 && hall > amb);
    assert_string_equal(b[hall].parent, "amb");
    assert_true(fabsf(b[amb].gain_db + 6.0f) < 0.01f);
    assert_int_equal(b[amb].fx, 2);
    heliod_fx_info_t fi[8];
    assert_int_equal(heliod_fx_list(h, "amb", fi, 8, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(fi[0].kind, HELIOD_FX_EQ);
    assert_int_equal(fi[0].type, 1); /* highpass */
    assert_int_equal(fi[1].kind, HELIOD_FX_COMP);
    heliod_duck_info_t di[2];
    assert_int_equal(heliod_ducks(h, di, 2, &n), 0);
    assert_int_equal(n, 1);
    assert_true(di[0].rule.depth_db == 12.0f && di[0].rule.release_ms == 900.0f);
    assert_true(di[0].rule.attack_ms == 80.0f); /* the default */
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);

    /* a bad section stops the daemon at start with a message naming it */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[bus amb]\nfx = eq --type notch\n", f);
    fclose(f);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "\"%s\" --driver null --config %s --socket %s.sock 2>&1",
             getenv("HELIOD_BIN"), path, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[1024] = "";
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    int status = pclose(p);
    assert_true(status != 0);
    assert_non_null(strstr(out, "[bus amb]"));
    assert_non_null(strstr(out, "notch"));
    unlink(path);
}

int main(void) {
    /* longest first: meson runs them in three parts (i % 3), side by side */
    const struct CMUnitTest tests[] = {
        TH_TEST(test_reverb_zones, setup_record),
        TH_TEST(test_reverb_rt60, setup_record),
        TH_TEST(test_filter_magnitude, setup_record),
        cmocka_unit_test(test_config_buses),
        TH_TEST(test_zone_walk_is_smooth, setup_record),
        TH_TEST(test_occlusion_curve, setup_record),
        TH_TEST(test_ducking, setup_record),
        TH_TEST(test_bus_tree, setup_record),
    };
    return TH_RUN(tests);
}
