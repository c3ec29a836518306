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
#include <sndfile.h>

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

/* The six tones of check_surround_tones, one a channel (LFE: 150 Hz). */
static const double k_tone_hz[6] = {500, 700, 1100, 150, 1700, 2300};
static const double k_tone_amp[6] = {0.5, 0.3, 0.4, 0.6, 0.2, 0.35};

static void gen_tones(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    for (int c = 0; c < channels; c++)
        out[c] = (float)(k_tone_amp[c] * sin(2 * M_PI * k_tone_hz[c] * frame / 48000.0));
}

/* Channel c of x (n frames of ch) against a sine of freq at rate (least
 * squares): its amplitude, and the power of what is left relative to it
 * (dB, lower is cleaner). */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double fit_tone(const float *x, size_t n, int ch, int c, double freq, double rate,
                       double *rest_db) {
    double ss = 0, sc = 0, cc = 0, xs = 0, xc = 0, xx = 0;
    for (size_t i = 0; i < n; i++) {
        double w = 2 * M_PI * freq * (double)i / rate, s = sin(w), co = cos(w), v = x[i * ch + c];
        ss += s * s, sc += s * co, cc += co * co, xs += v * s, xc += v * co, xx += v * v;
    }
    double det = ss * cc - sc * sc, a = (xs * cc - xc * sc) / det, b = (xc * ss - xs * sc) / det;
    double fitted = a * xs + b * xc; /* the fit's energy */
    *rest_db = 10 * log10((xx - fitted + 1e-30) / (fitted + 1e-30));
    return sqrt(a * a + b * b);
}

/* A 6-channel sound, a tone on each channel, played 2D at 0 dB on --layout
 * 5.1 with the JACK server at 44.1 kHz and the engine at 48 kHz: jack_rec
 * records heliod's six ports, and each carries its own tone at its level
 * (within 0.2 dB) and frequency (unconverted it would sit 8% low), clean. */
static void check_surround_tones(heliod_t *h, const char *dir) {
    FILE *p = popen("jack_lsp 2>/dev/null", "r");
    assert_non_null(p);
    char line[256], ports[1200] = "";
    int nports = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "system:", 7) != 0 && strchr(line, ':') && nports < 6) {
            size_t l = strlen(ports);
            snprintf(ports + l, sizeof ports - l, " '%s'", line);
            nports++;
        }
    }
    pclose(p);
    printf("# heliod's JACK ports:%s\n", ports);
    assert_int_equal(nports, 6);
    char snd[400], wav[400], cmd[2000];
    snprintf(snd, sizeof snd, "%s/tones.wav", dir);
    snprintf(wav, sizeof wav, "%s/jack_rec.wav", dir);
    assert_int_equal(
        th_write_sound(snd, SF_FORMAT_WAVEX | SF_FORMAT_FLOAT, 6, 48000, 48000, gen_tones, NULL),
        0); /* one second: every tone a whole number of cycles, so it loops clean */
    assert_int_equal(heliod_load(h, "tones", snd, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "tones", &pp, &v, NULL), 0);
    snprintf(cmd, sizeof cmd, "jack_rec -f '%s' -d 1 -b 32%s >/dev/null 2>&1", wav, ports);
    assert_int_equal(system(cmd), 0);
    heliod_stop(h, v, 5);
    float *x = NULL;
    size_t n = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(wav, &x, &n, &ch, &rate), 0);
    assert_int_equal(ch, 6);
    assert_int_equal(rate, 44100);
    assert_true(n > 22050);
    const size_t skip = 4410; /* 100 ms: the voice starts within a period of the PLAY's reply */
    for (int c = 0; c < 6; c++) {
        const float *y = x + skip * 6;
        /* level and cleanness: the median of 100 ms windows, so that an xrun
         * of a slow (sanitizer) build, a gap in a window or two, is not
         * taken for the converter's noise */
        enum { WIN = 4410, MAXW = 64 };
        double wa[MAXW], wr[MAXW];
        size_t nw = 0;
        for (size_t o = 0; o + WIN <= n - skip && nw < MAXW; o += WIN, nw++)
            wa[nw] = fit_tone(y + o * 6, WIN, ch, c, k_tone_hz[c], rate, &wr[nw]);
        assert_true(nw >= 3);
        qsort(wa, nw, sizeof wa[0], cmp_double);
        qsort(wr, nw, sizeof wr[0], cmp_double);
        double amp = wa[nw / 2], rest = wr[nw / 2];
        double rest_low, /* the pitch: over the whole recording */
            low = fit_tone(y, n - skip, ch, c, k_tone_hz[c] * 0.91875, rate, &rest_low);
        printf("# channel %d at 44.1 kHz: %.0f Hz amplitude %.4f (played %.2f), the rest %.1f dB; "
               "at the unconverted pitch %.4f\n",
               c, k_tone_hz[c], amp, k_tone_amp[c], rest, low);
        assert_true(fabs(20 * log10(amp / k_tone_amp[c])) < 0.2);
        assert_true(rest < -50.0);
        assert_true(low < 0.05 * k_tone_amp[c]);
        (void)rest_low;
    }
    free(x);
    unlink(wav);
    unlink(snd);
}

/* --layout against a real device's channel count: a 2-channel JACK server
 * refuses 5.1 at start with a message naming both counts (under --driver
 * portaudio and under the default auto, which does not fall back to the
 * null driver for a surround layout), and a 6-channel one refuses 7.1.4 (12);
 * a 6-channel one at 44.1 kHz opens 5.1 under the 48 kHz engine (the output converted:
 * check_surround_tones), and the recording has 6 channels. */
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

    assert_int_equal(th_jackd_start_at("heliodlay", 256, 0, 6, 44100), 0);
    /* 7.1.4 needs 12: the 6-channel device is refused as clearly */
    char dir3[] = "/tmp/heliod-jacklayout-XXXXXX";
    assert_non_null(mkdtemp(dir3));
    snprintf(sock, sizeof sock, "%s/s.sock", dir3);
    const char *a3[] = {"--driver", "portaudio", "--device", "system", "--socket",
                        sock,       "--layout",  "7.1.4",    NULL};
    const int rc3 = th_heliod_run(dir3, a3, err, sizeof err);
    if (rc3 <= 0 || !strstr(err, "has 6 output channels; the layout needs 12")) {
        fprintf(stderr, "%s", err);
        th_jackd_stop();
    }
    assert_true(rc3 > 0);
    assert_non_null(strstr(err, "has 6 output channels; the layout needs 12"));
    rmdir(dir3);
    th_daemon_t d;
    const char *args[] = {"--driver", "portaudio", "--device", "system", "--layout", "5.1", NULL};
    int started = th_daemon_start(&d, 1, args);
    if (started != 0) th_jackd_stop();
    assert_int_equal(started, 0);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "jack-layout"), 0);
    assert_true(th_stat(h, "output_channels") == 6.0);
    assert_true(th_stat(h, "device_rate") == 44100 && th_stat(h, "rate") == 48000);
    double cb0 = th_stat(h, "callbacks");
    check_surround_tones(h, d.dir);
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
