/*
 * test_listeners.c - several listeners (protocol 1.1). Rendered offline: a
 * voice 2 m from listener 1 (30 m from listener 0) is heard at listener 1's
 * distance (inverse law, 2 m: -6.02 dB, centred), and at listener 0's
 * (30.07 m) once listener 1 is off. Live: a client's own listener is not
 * another live client's to move (EPERM), STATS counts the voices each
 * listener hears, bad indices are refused.
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

#define RATE 48000
#define SEG  9600

static void test_nearest_listener_render(void **state) {
    (void)state;
    th_scratch_t r;
    th_scratch_open(&r, "lis", RATE);
    FILE *f = fopen(r.score, "w");
    assert_non_null(f);
    fprintf(f,
            "load dc %s\nlistener --index 1 --pos 30,0,0\n"
            "emitter create e --pos 30,0,-2\n"
            "@1 play dc --emitter e --loop --fade-in 0\n"
            "@%d listener --index 1 --off\n@%d end\n",
            r.dc, SEG, 2 * SEG);
    fclose(f);
    size_t n = 0;
    float *x = th_scratch_render(&r, &n);
    /* inverse distance, min 1 m: g = 1 / d; equal-power pan: L^2 + R^2 = g^2 x 0.01 */
    double near = 10.0 * log10(th_power_stereo(x, SEG / 2, SEG - 600) / 0.01);
    double far = 10.0 * log10(th_power_stereo(x, SEG + SEG / 2, 2 * SEG) / 0.01);
    double want_near = 20.0 * log10(1.0 / 2.0), want_far = 20.0 * log10(1.0 / sqrt(904.0));
    print_message("near listener 1: %.3f dB (1/2 m: %.3f); listener 0 only: %.3f dB (%.3f)\n", near,
                  want_near, far, want_far);
    assert_true(fabs(near - want_near) < 0.05);
    assert_true(fabs(far - want_far) < 0.05);
    /* heard at listener 1 straight ahead: centred; at listener 0 from the right */
    assert_true(fabs(x[2 * (SEG / 2)] - x[2 * (SEG / 2) + 1]) < 1e-6);
    assert_true(x[2 * (SEG + SEG / 2) + 1] > x[2 * (SEG + SEG / 2)]);
    free(x);
    th_scratch_remove(&r);
}

static void test_ownership_and_stats(void **state) {
    th_fixture_t *fx = *state;
    heliod_t *a = th_fixture_connect(fx, "game-a"), *b = th_fixture_connect(fx, "game-a2");
    assert_non_null(a);
    assert_non_null(b);
    char path[128];
    snprintf(path, sizeof path, "/tmp/heliod-lis-dc-%d.wav", (int)getpid());
    assert_int_equal(
        th_write_sound(path, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, RATE / 10, th_gen_dc, NULL),
        0);
    heliod_sound_info_t si;
    assert_int_equal(heliod_load(a, "dc", path, HELIOD_LOAD_SHARED, &si), 0);
    heliod_listener_t l = {.mask = HELIOD_LIS_POS, .pos = {50, 0, 0}};
    assert_int_equal(heliod_set_listener_at(a, 2, &l, 0), 0);
    /* game b, another process, cannot move or turn off game a's listener; it
     * makes its own (the global one stays everyone's and always on) */
    heliod_close(b);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        heliod_t *c = th_fixture_connect(fx, "game-b");
        heliod_listener_t m = {.mask = HELIOD_LIS_POS, .pos = {-50, 0, 0}};
        int ok = c && heliod_set_listener_at(c, 2, &m, 0) == HELIOD_EPERM &&
                 heliod_set_listener_at(c, 2, NULL, 1) == HELIOD_EPERM &&
                 heliod_set_listener_at(c, 3, &m, 0) == 0 &&
                 heliod_set_listener_at(c, 0, NULL, 1) == HELIOD_EINVAL &&
                 heliod_set_listener_at(c, 4, &m, 0) == HELIOD_EINVAL;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(heliod_emitter_create(a, "near2", (const float[3]){49, 0, 0}, NULL, 0), 0);
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    snprintf(p.emitter, sizeof p.emitter, "near2");
    p.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(a, "dc", &p, &v, NULL), 0);
    double n2 = NAN;
    for (int tries = 0; tries < 200 && !(n2 == 1.0); tries++) {
        n2 = th_stat(a, "listener2_voices");
        if (!(n2 == 1.0)) th_sleep_ms(5);
    }
    assert_true(n2 == 1.0);
    /* game b's listener 3 went off with its process (owners.c): 0 and 2 */
    double on = NAN;
    for (int tries = 0; tries < 200 && !(on == 2.0); tries++) {
        on = th_stat(a, "listeners");
        if (!(on == 2.0)) th_sleep_ms(5);
    }
    assert_true(on == 2.0);
    assert_true(th_stat(a, "listener0_voices") == 0.0);
    assert_int_equal(heliod_set_listener_at(a, 2, NULL, 1), 0);
    assert_true(th_stat(a, "listener0_voices") == 1.0); /* the global one hears it now */
    unlink(path);
    heliod_close(a);
}

static int setup_daemon(void **state) {
    return th_fixture_start(state, 0, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nearest_listener_render),
        cmocka_unit_test_setup_teardown(test_ownership_and_stats, setup_daemon,
                                        th_fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
