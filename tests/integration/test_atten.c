/*
 * test_atten.c - custom attenuation curves (protocol 1.1) against their
 * definition: a cue's curve (distance -> dB, linear in dB between points,
 * the end values beyond) rendered offline (`heliod --render`) with the
 * cue's voice on an emitter moved to 8 distances, straight ahead (the pan
 * stays centred): each distance's level relative to the first point's is
 * the curve's value within 0.05 dB. In the same render, then, a 6 kHz tone's
 * cue with a flat gain curve, a low-pass curve (ATTEN kind 1) and a send
 * curve (kind 2) on its send to a bus, at 3 distances: each level relative
 * to the first (no filter, the send at 0 dB) is the Butterworth response at
 * the curve's cutoff plus the send's share, within 0.3 dB. Then a voice's
 * own curve set live, and the refusals (decreasing distances, NaN, too
 * many points, an unknown cue, a cutoff under 10 Hz).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"

#define RATE  48000
#define SEG   4800
#define NDIST 8

static const float k_d[4] = {1, 10, 40, 80}, k_db[4] = {0, -12, -30, -33};
static const double k_dist[NDIST] = {3, 7.5, 10, 17, 25, 39, 60, 95};

#define TONE_HZ 6000.0
#define NTONE   3
static const double k_tdist[NTONE] = {1.5, 22, 60};

/* The tone cue's curves: low-pass 2:30000 42:1000 (30 kHz is no filter at
 * 48 kHz), send 2:0 42:-20; the level relative to 1.5 m (direct + send at
 * 0 dB, unfiltered): the 2nd-order Butterworth at the cutoff (the voice
 * filter's bilinear design) and (1 + send) / 2. */
static double tone_def(double d) {
    const double t = d <= 2 ? 0 : d >= 42 ? 1 : (d - 2) / 40;
    double db = 20.0 * log10((1.0 + pow(10.0, -20.0 * t / 20.0)) / 2.0);
    if (t > 0) {
        const double fc = 30000.0 * pow(1000.0 / 30000.0, t);
        const double r = tan(3.14159265358979 * TONE_HZ / RATE) / tan(3.14159265358979 * fc / RATE);
        db += -10.0 * log10(1.0 + pow(r, 4.0));
    }
    return db;
}

/* The emitter's curve 1:0 EMT_D1:EMT_DB1, heard at EMT_D m (under EMT_D1). */
#define EMT_D   10.0
#define EMT_D1  20.0
#define EMT_DB1 (-20.0)

static double curve_def(double d) {
    if (d <= k_d[0]) return k_db[0];
    for (int i = 1; i < 4; i++)
        if (d <= k_d[i])
            return k_db[i - 1] + (k_db[i] - k_db[i - 1]) * (d - k_d[i - 1]) / (k_d[i] - k_d[i - 1]);
    return k_db[3];
}

static void test_cue_curve_render(void **state) {
    (void)state;
    th_scratch_t r;
    th_scratch_open(&r, "atten", RATE);
    char tone[160];
    snprintf(tone, sizeof tone, "%s/tone.wav", r.dir);
    assert_int_equal(th_write_sine(tone, RATE, 1.0, TONE_HZ, 0.1), 0);
    FILE *f = fopen(r.score, "w");
    assert_non_null(f);
    fprintf(f, "load dc %s\ncue c --sound dc --loop --max-distance 1000\n", r.dc);
    fprintf(f, "attenuation --cue c --points 1:0,10:-12,40:-30,80:-33\n");
    /* the tone: its cue's low-pass and send curves at NTONE distances */
    const int t0 = (NDIST + 1) * SEG;
    fprintf(f, "load tone %s\nbus create rev\n", tone);
    fprintf(f, "cue t --sound tone --loop --max-distance 1000 --send rev:0\n");
    fprintf(f, "attenuation --cue t --points 0:0\n");
    fprintf(f, "attenuation --cue t --kind lowpass --points 2:30000,42:1000\n");
    fprintf(f, "attenuation --cue t --kind send --points 2:0,42:-20\n");
    fprintf(f, "emitter create e2 --pos 0,0,%.3f\n", -k_tdist[0]);
    fprintf(f, "emitter create e3 --pos 0,0,%g\n", -EMT_D);
    fprintf(f, "emitter create e --pos 0,0,-1\n@1 play c --emitter e --fade-in 0\n");
    for (int k = 0; k < NDIST; k++)
        fprintf(f, "@%d emitter set e --pos 0,0,%.3f\n", (k + 1) * SEG, -k_dist[k]);
    fprintf(f, "@%d stop --all --fade 0\n@%d play t --emitter e2 --fade-in 0\n", t0, t0 + 1);
    for (int k = 1; k < NTONE; k++)
        fprintf(f, "@%d emitter set e2 --pos 0,0,%.3f\n", t0 + k * SEG, -k_tdist[k]);
    /* an emitter's curve (EMT_DB at EMT_D m) wins over its cue's, on its
     * voice playing now and on one started on it later */
    const int t1 = t0 + NTONE * SEG;
    fprintf(f, "@%d stop --all --fade 0\n@%d play c --emitter e3 --fade-in 0\n", t1, t1 + 1);
    fprintf(f, "@%d attenuation --emitter e3 --points 1:0,%g:%g\n", t1 + SEG, EMT_D1, EMT_DB1);
    fprintf(f, "@%d stop --all --fade 0\n@%d play c --emitter e3 --fade-in 0\n", t1 + 2 * SEG,
            t1 + 2 * SEG + 1);
    fprintf(f, "@%d end\n", t1 + 3 * SEG);
    fclose(f);
    size_t n = 0;
    float *x = th_scratch_render(&r, &n);
    /* emitter set is not scheduled: the render applies it at the start of
     * the period it falls in, so each window ends a period (and more) early */
    double p0 = th_power_stereo(x, SEG / 2, SEG - 600);
    assert_true(p0 > 0);
    for (int k = 0; k < NDIST; k++) {
        double got = 10.0 * log10(th_power_stereo(x, (size_t)(k + 1) * SEG + SEG / 2,
                                                  (size_t)(k + 2) * SEG - 600) /
                                  p0);
        print_message("distance %5.1f m: %8.3f dB, curve %8.3f dB\n", k_dist[k], got,
                      curve_def(k_dist[k]));
        assert_true(fabs(got - curve_def(k_dist[k])) < 0.05);
    }
    const double q0 = th_power_stereo(x, (size_t)t0 + SEG / 2, (size_t)t0 + SEG - 600);
    assert_true(q0 > 0);
    for (int k = 1; k < NTONE; k++) {
        const size_t a = (size_t)(t0 + k * SEG + SEG / 2), b = (size_t)(t0 + (k + 1) * SEG - 600);
        const double got = 10.0 * log10(th_power_stereo(x, a, b) / q0);
        print_message("tone at %4.1f m: %8.3f dB, low-pass and send curves %8.3f dB\n", k_tdist[k],
                      got, tone_def(k_tdist[k]));
        assert_true(fabs(got - tone_def(k_tdist[k])) < 0.3);
    }
    /* the emitter's curve: the cue's at first, then the emitter's on the
     * same voice, and on a voice started after */
    const double emt[3] = {curve_def(EMT_D), EMT_DB1 * (EMT_D - 1.0) / (EMT_D1 - 1.0), 0};
    for (int k = 0; k < 3; k++) {
        const double want = k == 2 ? emt[1] : emt[k];
        const size_t a = (size_t)(t1 + k * SEG + SEG / 2), b = (size_t)(t1 + (k + 1) * SEG - 600);
        const double got = 10.0 * log10(th_power_stereo(x, a, b) / p0);
        print_message("emitter curve, segment %d: %8.3f dB, want %8.3f dB\n", k, got, want);
        assert_true(fabs(got - want) < 0.05);
    }
    free(x);
    th_scratch_remove(&r);
}

/* The audibility (dB) the voice manager ranks voice v with, once it is
 * within 0.01 dB of want (the ranking runs at its tick; 5 s at most). */
static double ranked_db(heliod_t *h, heliod_voice_t v, double want) {
    heliod_voice_info_t vi[8];
    double got = NAN;
    for (int t = 0; t < 250; t++) {
        size_t n = 0;
        assert_int_equal(heliod_voices(h, vi, 8, &n), 0);
        for (size_t i = 0; i < n; i++)
            if (vi[i].voice == v) got = vi[i].audibility_db;
        if (fabs(got - want) < 0.01) break;
        th_sleep_ms(20);
    }
    return got;
}

/* An emitter's curve reaches its voices but the one given its own (ATTEN
 * on the voice), which keeps it; the voice manager ranks with the curve. */
static void emitter_curve_spares_own(heliod_t *h, const char *dir) {
    char path[300];
    snprintf(path, sizeof path, "%s/s.wav", dir);
    assert_int_equal(th_write_sine(path, RATE, 1.0, 440.0, 0.5), 0);
    assert_int_equal(heliod_load(h, "s", path, 0, NULL), 0);
    const float pos[3] = {0, 0, -(float)EMT_D};
    assert_int_equal(heliod_emitter_create(h, "em", pos, NULL, 0), 0);
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D;
    p.max_distance = 1000;
    snprintf(p.emitter, sizeof p.emitter, "em");
    heliod_voice_t own = 0, other = 0;
    assert_int_equal(heliod_play(h, "s", &p, &own, NULL), 0);
    assert_int_equal(heliod_play(h, "s", &p, &other, NULL), 0);
    const float od[2] = {1, (float)EMT_D}, odb[2] = {0, -6};
    assert_int_equal(heliod_attenuation(h, HELIOD_CONE_VOICE, own, NULL, 2, od, odb), 0);
    const float ed[2] = {1, (float)EMT_D1}, edb[2] = {0, (float)EMT_DB1};
    assert_int_equal(heliod_attenuation(h, HELIOD_CONE_EMITTER, 0, "em", 2, ed, edb), 0);
    const double want = EMT_DB1 * (EMT_D - 1.0) / (EMT_D1 - 1.0);
    const double got_other = ranked_db(h, other, want), got_own = ranked_db(h, own, -6.0);
    print_message("ranked: emitter's curve %.3f dB (want %.3f), own curve %.3f dB (want -6)\n",
                  got_other, want, got_own);
    assert_true(fabs(got_other - want) < 0.01);
    assert_true(fabs(got_own - -6.0) < 0.01);
    assert_int_equal(heliod_attenuation(h, HELIOD_CONE_EMITTER, 0, "nope", 2, ed, edb),
                     HELIOD_ENOEMITTER);
    assert_int_equal(heliod_stop_all(h, 0, 0, NULL), 0);
}

static void test_refusals(void **state) {
    th_fixture_t *fx = *state;
    heliod_t *h = th_fixture_connect(fx, "atten");
    assert_non_null(h);
    emitter_curve_spares_own(h, fx->d.dir);
    const float d[3] = {1, 5, 3}, db[3] = {0, -6, -12};
    assert_int_equal(heliod_attenuation(h, HELIOD_CONE_CUE, 0, "c", 3, d, db), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "strictly increasing"));
    const float dn[2] = {1, NAN}, dbn[2] = {0, -6};
    assert_int_equal(heliod_attenuation(h, HELIOD_CONE_CUE, 0, "c", 2, dn, dbn), HELIOD_EINVAL);
    const float dd[2] = {1, 2}, dbb[2] = {0, 30};
    assert_int_equal(heliod_attenuation(h, HELIOD_CONE_CUE, 0, "c", 2, dd, dbb), HELIOD_EINVAL);
    float many[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    assert_int_equal(heliod_attenuation(h, HELIOD_CONE_CUE, 0, "c", 9, many, many), HELIOD_EINVAL);
    const float ok_d[2] = {1, 10}, ok_db[2] = {0, -20};
    assert_int_equal(heliod_attenuation(h, HELIOD_CONE_CUE, 0, "nosuch", 2, ok_d, ok_db),
                     HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "no cue named nosuch"));
    assert_int_equal(heliod_attenuation(h, HELIOD_CONE_VOICE, 777, NULL, 2, ok_d, ok_db),
                     HELIOD_ENOVOICE);
    const float hz[2] = {2000, 5};
    assert_int_equal(
        heliod_distance_curve(h, HELIOD_CONE_CUE, 0, "c", HELIOD_ATTEN_LOWPASS, 2, ok_d, hz),
        HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "[10, 96000] Hz"));
    assert_int_equal(heliod_distance_curve(h, HELIOD_CONE_CUE, 0, "c", 3, 2, ok_d, ok_db),
                     HELIOD_EINVAL);
    heliod_close(h);
}

static int setup_daemon(void **state) {
    return th_fixture_start(state, 0, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cue_curve_render),
        cmocka_unit_test_setup_teardown(test_refusals, setup_daemon, th_fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
