/*
 * test_jack.c - the real device path: heliod's PortAudio backend against a
 * JACK server with the dummy backend (jackd -d dummy -r 48000 -p 256), which
 * calls back in real time exactly like a sound card. The test starts and
 * stops its own JACK server under a private server name, plays a tone through
 * heliod on PortAudio and checks the callbacks ran, nothing underran, and the
 * master tap heard the tone at the right level.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"

static void test_portaudio_on_jack_dummy(void **state) {
    (void)state;
    assert_int_equal(th_jackd_start("heliodtest", 256, 0), 0);
    th_daemon_t d;
    const char *args[] = {"--driver", "portaudio", "--device", "system", NULL};
    int started = th_daemon_start(&d, 1, args);
    if (started != 0) th_jackd_stop();
    assert_int_equal(started, 0);

    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "jack-test"), 0);
    heliod_device_info_t dev[16];
    size_t n = 0;
    assert_true(heliod_devices(h, dev, 16, &n) >= 0);
    int current_is_jack = 0;
    for (size_t i = 0; i < n; i++)
        if ((dev[i].flags & 2) && strstr(dev[i].hostapi, "JACK")) current_is_jack = 1;
    assert_true(current_is_jack);

    char sine[400];
    snprintf(sine, sizeof sine, "%s/tone.wav", d.dir);
    assert_int_equal(th_write_sine(sine, 48000, 1.0, 1000.0, 0.4), 0);
    assert_int_equal(heliod_load(h, "tone", sine, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    pp.pan = 1.0f;
    heliod_voice_t v;
    double cb0 = th_stat(h, "callbacks");
    assert_int_equal(heliod_play(h, "tone", &pp, &v, NULL), 0);
    th_sleep_ms(600);
    double cb1 = th_stat(h, "callbacks");
    /* 600 ms at 256 frames / 48 kHz is ~112 periods: JACK really called us. */
    assert_true(cb1 - cb0 > 50);
    /* hard right: the master meter's right channel reads the tone's peak
     * (0.4, -7.96 dBFS), the left one silence */
    assert_true(fabs(th_stat(h, "master.peak_r_db") - 20.0 * log10(0.4)) < 0.1);
    assert_true(th_stat(h, "master.peak_l_db") == -144.0);
    assert_int_equal(heliod_stop(h, v, 20), 0);
    th_sleep_ms(100);
    heliod_close(h);

    size_t frames = 0;
    float *x = th_stop_read_stereo(&d, &frames, 0);
    double er = 0, el = 0;
    for (size_t i = 0; i < frames; i++) {
        el += (double)x[2 * i] * x[2 * i];
        er += (double)x[2 * i + 1] * x[2 * i + 1];
    }
    free(x);
    assert_true(frames > 48000 / 4);
    assert_true(er > 100.0 * (el + 1e-9));
    th_daemon_cleanup(&d);
    th_jackd_stop();
}

/* --layout against a real device's channel count: a 2-channel JACK server
 * refuses 5.1 at start with a message naming both counts (under --driver
 * portaudio and under the default auto, which does not fall back to the
 * null driver for a surround layout); a 6-channel one
 * opens it, and the recording has 6 channels. */
static void test_layout_channels(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-jacklayout-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sock[300], err[8192];
    snprintf(sock, sizeof sock, "%s/s.sock", dir);
    assert_int_equal(th_jackd_start_ports("heliodlay", 256, 0, 2), 0);
    const char *a1[] = {"--driver", "portaudio", "--device", "system", "--socket",
                        sock,       "--layout",  "5.1",      NULL};
    int rc = th_heliod_run(dir, a1, err, sizeof err);
    /* the default driver (auto) does not fall back to the null driver either */
    const char *a2[] = {"--device", "system", "--socket", sock, "--layout", "5.1", NULL};
    char err2[8192];
    int rc2 = th_heliod_run(dir, a2, err2, sizeof err2);
    th_jackd_stop();
    if (rc2 <= 0) fprintf(stderr, "%s", err2);
    assert_true(rc2 > 0);
    assert_non_null(strstr(err2, "has 2 output channels; the layout needs 6"));
    if (rc <= 0) fprintf(stderr, "%s", err);
    assert_true(rc > 0);
    assert_non_null(strstr(err, "has 2 output channels; the layout needs 6"));
    assert_int_equal(access(sock, F_OK), -1);
    rmdir(dir);

    assert_int_equal(th_jackd_start_ports("heliodlay", 256, 0, 6), 0);
    th_daemon_t d;
    const char *args[] = {"--driver", "portaudio", "--device", "system", "--layout", "5.1", NULL};
    int started = th_daemon_start(&d, 1, args);
    if (started != 0) th_jackd_stop();
    assert_int_equal(started, 0);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "jack-layout"), 0);
    assert_true(th_stat(h, "output_channels") == 6.0);
    double cb0 = th_stat(h, "callbacks");
    th_sleep_ms(300);
    assert_true(th_stat(h, "callbacks") - cb0 > 10); /* JACK calls the 6-channel stream */
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(d.record, &x, &frames, &ch, &rate), 0);
    assert_int_equal(ch, 6);
    free(x);
    th_daemon_cleanup(&d);
    th_jackd_stop();
}

int main(void) {
    if (system("command -v jackd >/dev/null 2>&1") != 0) {
        fprintf(stderr, "jackd not installed (scripts/deps.sh installs jackd2)\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_portaudio_on_jack_dummy),
        cmocka_unit_test(test_layout_channels),
    };
    int rc = cmocka_run_group_tests_name("jack", tests, NULL, NULL);
    th_jackd_stop();
    return rc;
}
