/*
 * test_listeners.c - several listeners (protocol 1.1). Rendered offline: a
 * voice 2 m from listener 1 (30 m from listener 0) is heard at listener 1's
 * distance (inverse law, 2 m: -6.02 dB, centred), and at listener 0's
 * (30.07 m) once listener 1 is off; with weights 0.5 (listener 0) and 0.25
 * (listener 1) at the weighted sum of its gains there within 0.1 dB, still
 * centred (the nearest's pan); a second render is byte-identical. Live: a client's own listener is
 * not another live client's to move (EPERM), STATS counts the voices each listener hears, bad
 * indices are refused.
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
#define SEG  4800

/* 1 if files a and b hold the same bytes. */
static int same_bytes(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        same = ca == cb;
        if (ca == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

static void test_listener_render(void **state) {
    (void)state;
    th_scratch_t r;
    th_scratch_open(&r, "lis", RATE);
    FILE *f = fopen(r.score, "w");
    assert_non_null(f);
    /* nearest (listener 1, 2 m), then listener 0 alone (30.07 m), then the
     * weighted rule: listener 0 at 0.5 and listener 1 (on again) at 0.25 */
    fprintf(f,
            "load dc %s\nlistener --index 1 --pos 30,0,0\n"
            "emitter create e --pos 30,0,-2\n"
            "@1 play dc --emitter e --loop --fade-in 0\n"
            "@%d listener --index 1 --off\n"
            "@%d listener --weight 0.5\nlistener --index 1 --pos 30,0,0 --weight 0.25\n"
            "@%d end\n",
            r.dc, SEG, 2 * SEG, 3 * SEG);
    fclose(f);
    size_t n = 0;
    float *x = th_scratch_render(&r, &n);
    /* inverse distance, min 1 m: g = 1 / d; equal-power pan: L^2 + R^2 = g^2 x 0.01 */
    double near = 10.0 * log10(th_power_stereo(x, SEG / 2, SEG - 600) / 0.01);
    double far = 10.0 * log10(th_power_stereo(x, SEG + SEG / 2, 2 * SEG - 600) / 0.01);
    double both = 10.0 * log10(th_power_stereo(x, 2 * SEG + SEG / 2, 3 * SEG - 600) / 0.01);
    double want_near = 20.0 * log10(1.0 / 2.0), want_far = 20.0 * log10(1.0 / sqrt(904.0));
    double want_both = 20.0 * log10(0.5 / sqrt(904.0) + 0.25 / 2.0);
    print_message("near listener 1: %.3f dB (1/2 m: %.3f); listener 0 only: %.3f dB (%.3f)\n", near,
                  want_near, far, want_far);
    print_message("weighted 0.5 x g(30.07 m) + 0.25 x g(2 m): %.3f dB (%.3f)\n", both, want_both);
    assert_true(fabs(near - want_near) < 0.05);
    assert_true(fabs(far - want_far) < 0.05);
    assert_true(fabs(both - want_both) < 0.1);
    /* heard at listener 1 straight ahead: centred; at listener 0 from the
     * right; weighted, the pan is the nearest's (listener 1): centred */
    assert_true(fabs(x[2 * (SEG / 2)] - x[2 * (SEG / 2) + 1]) < 1e-6);
    assert_true(x[2 * (SEG + SEG / 2) + 1] > x[2 * (SEG + SEG / 2)]);
    assert_true(fabs(x[2 * (2 * SEG + SEG / 2)] - x[2 * (2 * SEG + SEG / 2) + 1]) < 1e-6);
    free(x);
    /* rendered again: the same bytes */
    char again[160];
    snprintf(again, sizeof again, "%s/again.wav", r.dir);
    assert_int_equal(th_render(r.score, again, NULL, NULL), 0);
    assert_true(same_bytes(r.out, again));
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
        cmocka_unit_test(test_listener_render),
        cmocka_unit_test_setup_teardown(test_ownership_and_stats, setup_daemon,
                                        th_fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
