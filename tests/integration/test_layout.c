/*
 * test_layout.c - output layouts through the real daemon (`--layout`, null
 * driver, --record): the recording has the layout's channels and its WAVE
 * channel mask (WAVE_FORMAT_EXTENSIBLE), a 2D stereo voice comes out on the
 * front pair only, bit-exact, with every other channel silent; a bad
 * --layout and --hrtf with a layout other than stereo are refused at start
 * with a clear message; a 5.1 and a 7.1 file played 2D on stereo come out
 * with the ITU-R BS.775 downmix coefficients (within 0.01).
 */
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

#define RATE 48000

static void wait_engine(heliod_t *h, double s) {
    heliod_clock_t k;
    assert_int_equal(heliod_clock(h, &k), 0);
    uint64_t until = k.frame + (uint64_t)(s * k.rate);
    for (int i = 0; i < 1000 && k.frame < until; i++) {
        th_sleep_ms(10);
        assert_int_equal(heliod_clock(h, &k), 0);
    }
    assert_true(k.frame >= until);
}

/* left: a ramp of distinct values, right: its negation (so each side is known) */
static void gen_lr(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    assert_int_equal(channels, 2);
    float x = (float)((frame % 977) + 1) / 2048.0f;
    out[0] = x;
    out[1] = -x * 0.5f;
}

/* The dwChannelMask of a WAVE_FORMAT_EXTENSIBLE file, or 0. */
static uint32_t wav_mask(const char *path, uint16_t *format_tag) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char b[4096];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    for (size_t i = 12; i + 8 <= n;) {
        uint32_t len = b[i + 4] | b[i + 5] << 8 | b[i + 6] << 16 | (uint32_t)b[i + 7] << 24;
        if (memcmp(b + i, "fmt ", 4) == 0) {
            *format_tag = (uint16_t)(b[i + 8] | b[i + 9] << 8);
            if (*format_tag != 0xFFFE || len < 40) return 0;
            const unsigned char *m = b + i + 8 + 20;
            return m[0] | m[1] << 8 | m[2] << 16 | (uint32_t)m[3] << 24;
        }
        i += 8 + len + (len & 1);
    }
    return 0;
}

static void run_layout(const char *layout, int want_ch, uint32_t want_mask) {
    const char *args[] = {"--layout", layout, NULL};
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 1, args), 0);
    char snd[400];
    snprintf(snd, sizeof snd, "%s/lr.wav", d.dir);
    assert_int_equal(
        th_write_sound(snd, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 2, RATE, RATE, gen_lr, NULL), 0);
    heliod_t *h = th_connect(&d, "layout-test", 0);
    assert_non_null(h);
    assert_true(th_stat(h, "output_channels") == (double)want_ch);
    assert_int_equal(heliod_load(h, "lr", snd, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.fade_in_ms = 0;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "lr", &pp, &v, NULL), 0);
    wait_engine(h, 0.2);
    /* the per-speaker peaks: the front pair sounds, the surrounds do not */
    assert_true(th_stat(h, "output_peak.FL") > 0.0);
    if (want_ch > 2) assert_true(th_stat(h, "output_peak.BL") == 0.0);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);

    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(d.record, &x, &frames, &ch, &rate), 0);
    assert_int_equal(ch, want_ch);
    assert_int_equal(rate, RATE);
    uint16_t tag = 0;
    uint32_t mask = wav_mask(d.record, &tag);
    if (want_ch > 2) {
        assert_int_equal(tag, 0xFFFE);
        assert_int_equal(mask, want_mask);
    }
    /* the onset: the first frame with sound; from there the front pair is
     * the file's frames exactly (0 dB, no fade), the rest silent throughout */
    size_t a = frames;
    for (size_t i = 0; i < frames && a == frames; i++)
        if (x[i * (size_t)ch] != 0.0f) a = i;
    assert_true(a + RATE / 10 < frames);
    size_t checked = 0;
    for (size_t i = 0; i < frames; i++) {
        for (int c = 2; c < ch; c++)
            assert_true(x[i * (size_t)ch + (size_t)c] == 0.0f);
        if (i >= a && i < a + RATE / 10) {
            float l = (float)(((i - a) % 977) + 1) / 2048.0f;
            assert_true(x[i * (size_t)ch] == l);
            assert_true(x[i * (size_t)ch + 1] == -l * 0.5f);
            checked++;
        }
    }
    fprintf(stderr, "# --layout %s: %d channels, mask 0x%x, %zu frames bit-exact on FL/FR\n",
            layout, ch, mask, checked);
    free(x);
    th_daemon_cleanup(&d);
}

static void test_stereo(void **state) {
    (void)state;
    run_layout("stereo", 2, 0x3);
}

static void test_51(void **state) {
    (void)state;
    run_layout("5.1", 6, 0x3f);
}

static void test_71(void **state) {
    (void)state;
    run_layout("7.1", 8, 0x63f);
}

static void test_quad(void **state) {
    (void)state;
    run_layout("quad", 4, 0x33);
}

#define BLOCK 4800 /* frames per channel block of the downmix probe */
#define LEVEL 0.25f

/* Channel c alone plays LEVEL on frames [c * BLOCK, (c + 1) * BLOCK). */
static void gen_blocks(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    for (int c = 0; c < channels; c++)
        out[c] = (int)(frame / BLOCK) == c ? LEVEL : 0.0f;
}

/* A `ch`-channel file played 2D at 0 dB on the stereo layout: each input
 * channel's gain into L and R, read in the middle of its block. */
static void downmix_of(int ch, float gl[8], float gr[8]) {
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 1, NULL), 0);
    char snd[400];
    snprintf(snd, sizeof snd, "%s/mc.wav", d.dir);
    assert_int_equal(th_write_sound(snd, SF_FORMAT_WAVEX | SF_FORMAT_FLOAT, ch, RATE,
                                    (uint32_t)ch * BLOCK, gen_blocks, NULL),
                     0);
    heliod_t *h = th_connect(&d, "downmix-test", 0);
    assert_non_null(h);
    assert_int_equal(heliod_load(h, "mc", snd, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.fade_in_ms = 0;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "mc", &pp, &v, NULL), 0);
    wait_engine(h, (double)(ch * BLOCK) / RATE + 0.1);
    heliod_close(h);
    size_t frames = 0;
    float *x = th_stop_read_stereo(&d, &frames, RATE);
    size_t a = frames; /* the onset: FL's block starts with sound on L */
    for (size_t i = 0; i < frames && a == frames; i++)
        if (x[2 * i] != 0.0f) a = i;
    assert_true(a + (size_t)ch * BLOCK <= frames);
    for (int c = 0; c < ch; c++) {
        size_t i = a + (size_t)c * BLOCK + BLOCK / 2;
        gl[c] = x[2 * i] / LEVEL;
        gr[c] = x[2 * i + 1] / LEVEL;
    }
    free(x);
    th_daemon_cleanup(&d);
}

static void test_downmix_bs775(void **state) {
    (void)state;
    const float k = 0.70710678f;
    /* 5.1 FL FR FC LFE BL BR: L = FL + k FC + k BL, R = FR + k FC + k BR */
    const float l51[6] = {1, 0, k, 0, k, 0}, r51[6] = {0, 1, k, 0, 0, k};
    /* 7.1 FL FR FC LFE BL BR SL SR: the side and back pairs at k into 5.1's
     * surrounds, then as 5.1: each at k * k = 0.5 */
    const float l71[8] = {1, 0, k, 0, 0.5f, 0, 0.5f, 0}, r71[8] = {0, 1, k, 0, 0, 0.5f, 0, 0.5f};
    float gl[8], gr[8];
    downmix_of(6, gl, gr);
    for (int c = 0; c < 6; c++) {
        fprintf(stderr, "# 5.1 channel %d -> L %.4f R %.4f\n", c, gl[c], gr[c]);
        assert_true(fabsf(gl[c] - l51[c]) <= 0.01f && fabsf(gr[c] - r51[c]) <= 0.01f);
    }
    downmix_of(8, gl, gr);
    for (int c = 0; c < 8; c++) {
        fprintf(stderr, "# 7.1 channel %d -> L %.4f R %.4f\n", c, gl[c], gr[c]);
        assert_true(fabsf(gl[c] - l71[c]) <= 0.01f && fabsf(gr[c] - r71[c]) <= 0.01f);
    }
}

static void test_refused(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-layout-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sock[300], err[4096];
    snprintf(sock, sizeof sock, "%s/s.sock", dir);
    const char *a1[] = {"--driver", "null", "--socket", sock, "--layout", "7.1.4", NULL};
    assert_true(th_heliod_run(dir, a1, err, sizeof err) > 0);
    assert_non_null(strstr(err, "--layout must be stereo, quad, 5.1 or 7.1"));
    const char *a2[] = {"--driver", "null", "--socket", sock, "--layout", "5.1", "--hrtf", NULL};
    assert_true(th_heliod_run(dir, a2, err, sizeof err) > 0);
    assert_non_null(strstr(err, "--hrtf renders for headphones and needs --layout stereo"));
    assert_int_equal(access(sock, F_OK), -1); /* never listened */
    rmdir(dir);
}

/* A render's directory (a mkdtemp template) and its score and output paths. */
static void render_paths(char *dir, char score[300], char out[300]) {
    assert_non_null(mkdtemp(dir));
    snprintf(score, 300, "%s/score.txt", dir);
    snprintf(out, 300, "%s/out.wav", dir);
}

/* --render --out follows the layout too: a 7.1 WAVEX file with its mask. */
static void test_render_layout(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-layout-XXXXXX", score[300], out[300], err[4096];
    render_paths(dir, score, out);
    FILE *f = fopen(score, "w");
    assert_non_null(f);
    fputs("@+100 end\n", f);
    fclose(f);
    const char *a[] = {"--render", score, "--out", out, "--layout", "7.1", NULL};
    assert_int_equal(th_heliod_run(dir, a, err, sizeof err), 0);
    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(out, &x, &frames, &ch, &rate), 0);
    free(x);
    assert_int_equal(ch, 8);
    assert_true(frames >= RATE / 10);
    uint16_t tag = 0;
    assert_int_equal(wav_mask(out, &tag), 0x63f);
    assert_int_equal(tag, 0xFFFE);
    unlink(out);
    unlink(score);
    rmdir(dir);
}

/* ---- surround panning through the daemon (--render: offline, fast) ---- */

#define SEG  2400 /* frames between the sweep's plays */
#define SLEN 1200 /* frames of the DC sound each play plays */
#define DC   0.5f
#define DIRS 36

static void gen_dc(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    (void)frame;
    (void)channels;
    out[0] = DC;
}

/* Speaker azimuths (degrees, positive left) of a layout's channels, -999 for
 * the LFE: the WAVE order of hl_layout.h. */
static const float k_az51[6] = {30, -30, 0, -999, 110, -110};
static const float k_az71[8] = {30, -30, 0, -999, 150, -150, 90, -90};

static float wrap360(float d) {
    while (d < 0)
        d += 360;
    while (d >= 360)
        d -= 360;
    return d;
}

/* The two channels whose arc holds az (degrees), from the speaker table. */
static void bracket(const float *spk, int ch, float az, int *a, int *b) {
    float best_ccw = 1e9f, best_cw = 1e9f;
    *a = *b = -1;
    for (int c = 0; c < ch; c++) {
        if (spk[c] < -900) continue;
        float ccw = wrap360(spk[c] - az), cw = wrap360(az - spk[c]);
        if (ccw < best_ccw) best_ccw = ccw, *a = c;
        if (cw < best_cw) best_cw = cw, *b = c;
    }
}

/* Renders a score on `layout`: DIRS 3D plays of a DC sound at 1 m round the
 * listener (az = k * 10 + 3 degrees), then a 2D play with --lfe 0.5 and a 3D
 * play at 2 m (gain 0.5) with --lfe 1, each SEG frames apart. Checks per
 * direction: the summed power within +-0.5 dB of the source's, sound in the
 * two speakers bracketing the direction only, none in the LFE; and the LFE
 * carrying exactly the sends. */
static void run_sweep(const char *layout, int want_ch, const float *spk) {
    char dir[] = "/tmp/heliod-layout-XXXXXX", score[300], out[300], snd[300], err[4096];
    render_paths(dir, score, out);
    snprintf(snd, sizeof snd, "%s/dc.wav", dir);
    assert_int_equal(
        th_write_sound(snd, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, SLEN, gen_dc, NULL), 0);
    FILE *f = fopen(score, "w");
    assert_non_null(f);
    fprintf(f, "load dc %s\n", snd);
    for (int k = 0; k < DIRS; k++) {
        double az = (k * 10 + 3) * M_PI / 180.0; /* x right, -z ahead */
        fprintf(f, "@%d play dc --fade-in 0 --pos %.6f,0,%.6f\n", (k + 1) * SEG, -sin(az),
                -cos(az));
    }
    fprintf(f, "@%d play dc --fade-in 0 --lfe 0.5\n", (DIRS + 1) * SEG);
    fprintf(f, "@%d play dc --fade-in 0 --lfe 1 --pos 0,0,-2\n", (DIRS + 2) * SEG);
    fprintf(f, "@%d end\n", (DIRS + 3) * SEG);
    fclose(f);
    const char *a[] = {"--render", score, "--out", out, "--layout", layout, NULL};
    assert_int_equal(th_heliod_run(dir, a, err, sizeof err), 0);
    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(out, &x, &frames, &ch, &rate), 0);
    assert_int_equal(ch, want_ch);
    assert_true(frames >= (size_t)(DIRS + 3) * SEG);
    const int lfe = 3;
    double pmin = 1e9, pmax = -1e9;
    for (int k = 0; k < DIRS; k++) {
        const float az = (float)(k * 10 + 3);
        int sa, sb;
        bracket(spk, ch, az, &sa, &sb);
        /* the middle of the play: steady (the voice's first block is its own) */
        const size_t i = (size_t)(k + 1) * SEG + SLEN / 2;
        double p = 0;
        for (int c = 0; c < ch; c++) {
            const float g = x[i * (size_t)ch + (size_t)c] / DC;
            p += (double)g * g;
            if (c != sa && c != sb) assert_true(g == 0.0f); /* two speakers, LFE silent */
        }
        const double db = 10 * log10(p);
        fprintf(stderr, "# %s az %3.0f: speakers %d+%d gains %.4f %.4f power %+.3f dB\n", layout,
                (double)az, sa, sb, (double)(x[i * (size_t)ch + (size_t)sa] / DC),
                (double)(x[i * (size_t)ch + (size_t)sb] / DC), db);
        assert_true(fabs(db) <= 0.5);
        pmin = db < pmin ? db : pmin;
        pmax = db > pmax ? db : pmax;
        /* between the plays: silence, and the LFE is 0 throughout */
        for (size_t j = (size_t)(k + 1) * SEG; j < (size_t)(k + 2) * SEG; j++)
            assert_true(x[j * (size_t)ch + lfe] == 0.0f);
    }
    /* the LFE: the 2D voice's pre-pan level x 0.5, the 3D voice's (gain 0.5 at
     * 2 m) x 1: both DC x 0.25 */
    const size_t i2 = (size_t)(DIRS + 1) * SEG + SLEN / 2, i3 = (size_t)(DIRS + 2) * SEG + SLEN / 2;
    fprintf(stderr, "# %s LFE: 2D --lfe 0.5 %.5f, 3D at 2 m --lfe 1 %.5f (want %.5f)\n", layout,
            (double)x[i2 * (size_t)ch + lfe], (double)x[i3 * (size_t)ch + lfe], DC * 0.5);
    assert_true(fabsf(x[i2 * (size_t)ch + lfe] - DC * 0.5f) < 1e-4f);
    assert_true(fabsf(x[i3 * (size_t)ch + lfe] - DC * 0.5f) < 1e-4f);
    /* the 2D voice stays on the front pair */
    for (int c = 2; c < ch; c++)
        if (c != lfe) assert_true(x[i2 * (size_t)ch + (size_t)c] == 0.0f);
    fprintf(stderr, "# %s sweep: %d directions, power %+.3f .. %+.3f dB\n", layout, DIRS, pmin,
            pmax);
    free(x);
    char log[400];
    snprintf(log, sizeof log, "%s/start.log", dir);
    unlink(log);
    unlink(out);
    unlink(snd);
    unlink(score);
    rmdir(dir);
}

static void test_sweep_51(void **state) {
    (void)state;
    run_sweep("5.1", 6, k_az51);
}

static void test_sweep_71(void **state) {
    (void)state;
    run_sweep("7.1", 8, k_az71);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_stereo),
        cmocka_unit_test(test_51),
        cmocka_unit_test(test_71),
        cmocka_unit_test(test_quad),
        cmocka_unit_test(test_downmix_bs775),
        cmocka_unit_test(test_render_layout),
        cmocka_unit_test(test_sweep_51),
        cmocka_unit_test(test_sweep_71),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
