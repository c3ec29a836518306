/*
 * test_ctl_play.c - heliodctl play keeps every field on every path, and says
 * what happened in its JSON:
 *   - `play NAME --lp 1000 --wait` is filtered (the --wait path used to copy
 *     the play fields one by one and left out the post stage: filters,
 *     occlusion, obstruction, sends), measured on the daemon's recording;
 *   - `--json play ... --at-frame F` with F already past carries
 *     "late_frames" in its JSON object (it used to go to stderr only), in a
 *     single command, a --wait play and a batch line.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static char out[65536], err[8192];

#define CTL(d, ...)                                                                                \
    th_ctl(d, out, sizeof out, err, sizeof err, (const char *const[]){__VA_ARGS__, NULL})

/* Peak of the recording (both channels). */
static double record_peak(th_daemon_t *d) {
    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(d->record, &x, &frames, &ch, &rate), 0);
    double pk = 0;
    for (size_t i = 0; i < frames * (size_t)ch; i++)
        pk = fmax(pk, fabs(x[i]));
    free(x);
    return pk;
}

/* An 8 kHz tone (0.5, 0.3 s) played through --lp 1000, with and without
 * --wait: the low-pass takes it down by far more than 20 dB either way
 * (unfiltered, the centred mono voice peaks at 0.354). */
static void test_wait_play_is_filtered(void **state) {
    (void)state;
    double peak[2];
    for (int wait = 0; wait < 2; wait++) {
        th_daemon_t d;
        assert_int_equal(th_daemon_start(&d, 1, NULL), 0);
        char path[400];
        snprintf(path, sizeof path, "%s/hi.wav", d.dir);
        assert_int_equal(th_write_sine(path, 48000, 0.3, 8000.0, 0.5), 0);
        assert_int_equal(CTL(&d, "load", "hi", path), 0);
        if (wait) {
            assert_int_equal(CTL(&d, "play", "hi", "--lp", "1000", "--wait"), 0);
        } else {
            assert_int_equal(CTL(&d, "play", "hi", "--lp", "1000"), 0);
            th_sleep_ms(100);
            do { /* until it ended */
                assert_int_equal(CTL(&d, "voices"), 0);
                th_sleep_ms(50);
            } while (strstr(out, "hi"));
        }
        assert_int_equal(th_daemon_stop(&d, NULL), 0);
        peak[wait] = record_peak(&d);
        th_daemon_cleanup(&d);
    }
    printf("8 kHz tone through --lp 1000: peak %.4f without --wait, %.4f with\n", peak[0], peak[1]);
    assert_true(peak[0] > 0.0 && peak[0] < 0.0354);
    assert_true(peak[1] > 0.0 && peak[1] < 0.0354);
}

/* "late_frames":N in the JSON object; N > 0. */
static unsigned long long late_in(const char *s) {
    const char *p = strstr(s, "\"late_frames\":");
    if (!p) return 0;
    return strtoull(p + strlen("\"late_frames\":"), NULL, 10);
}

static void test_json_late_frames(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    char path[400], batch[400];
    snprintf(path, sizeof path, "%s/tone.wav", d.dir);
    assert_int_equal(th_write_sine(path, 48000, 0.2, 440.0, 0.1), 0);
    assert_int_equal(CTL(&d, "load", "tone", path), 0);
    /* frame 1 is long gone once the daemon answered a ping */
    assert_int_equal(CTL(&d, "--json", "play", "tone", "--at-frame", "1"), 0);
    assert_non_null(strstr(out, "\"ok\":true"));
    assert_true(late_in(out) > 0);
    assert_null(strstr(err, "late by"));
    assert_int_equal(CTL(&d, "--json", "play", "tone", "--at-frame", "1", "--wait"), 0);
    assert_true(late_in(out) > 0);
    assert_non_null(strstr(out, "\"event\":\"ended\""));
    /* on time: no late_frames */
    assert_int_equal(CTL(&d, "--json", "play", "tone"), 0);
    assert_null(strstr(out, "late_frames"));
    /* a batch line */
    snprintf(batch, sizeof batch, "%s/b.txt", d.dir);
    FILE *f = fopen(batch, "w");
    assert_non_null(f);
    fputs("play tone\nplay tone --at-frame 1\n", f);
    fclose(f);
    assert_int_equal(CTL(&d, "--json", "batch", batch), 0);
    char *second = strchr(out, '\n');
    assert_non_null(second);
    *second = 0;
    assert_null(strstr(out, "late_frames"));
    assert_true(late_in(second + 1) > 0);
    /* text mode: still said on stderr */
    assert_int_equal(CTL(&d, "play", "tone", "--at-frame", "1"), 0);
    assert_non_null(strstr(err, "late by"));
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_play_is_filtered),
        cmocka_unit_test(test_json_late_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
