/*
 * layout_height.c - --layout 7.1.4 through the real daemon (--render,
 * offline), linked into test_layout: the output has 12 channels and the
 * WAVE mask 0x2D63F; a 3D source at a top speaker sounds there alone, one
 * above ear height on at most three speakers (a top one among them) at
 * constant power, one at ear height on the bed alone; a 7.1 file played 2D
 * lands on the bed bit-exact; the render is byte-identical twice. A 7.1.4
 * file played 2D on 7.1 and on stereo gets the documented downmix (each top
 * speaker at -3 dB into the bed speaker below it, then BS.775). A live
 * 7.1.4 daemon's METER: a 1.1 connection gets the 7.1 bed's 8 channels,
 * which a client built before 7.1.4 reads (its decoder took 3..8), a 1.2 one
 * all 12, a 1.0 one the 1.0 body. Also: 5- and 7-channel Ogg Vorbis files
 * are read in WAVE order (Vorbis I 4.3.9).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "hl_proto.h"
#include "layout_height.h"

#define HRATE 48000
#define HSEG  4800 /* frames between plays */
#define HLEN  2400 /* frames of each file */
#define HDC   0.5f

/* Channel c of a file: a DC level of its own, 0.02 (c + 1) (mono: HDC); the
 * sums of the downmixes below stay under the master limiter's threshold. */
#define LV(c) (0.02f * (float)((c) + 1))
static void gen_levels(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    (void)frame;
    for (int c = 0; c < channels; c++)
        out[c] = channels == 1 ? HDC : LV(c);
}

static void pos_of(double az, double el, char *buf, size_t cap) {
    const double a = az * M_PI / 180.0, e = el * M_PI / 180.0;
    snprintf(buf, cap, "%.6f,%.6f,%.6f", -sin(a) * cos(e), sin(e), -cos(a) * cos(e));
}

float *lh_render(const char *dir, const char *name, const char *text, const char *layout, int *ch,
                 size_t *n) {
    char score[300], out[300], err[4096];
    snprintf(score, sizeof score, "%s/score.txt", dir);
    snprintf(out, sizeof out, "%s/%s", dir, name);
    FILE *f = fopen(score, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    const char *a[] = {"--render", score, "--out", out, "--layout", layout, NULL};
    const int rc = th_heliod_run(dir, a, err, sizeof err);
    if (rc != 0) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 0);
    float *x = NULL;
    int rate = 0;
    assert_int_equal(th_read_sound(out, &x, n, ch, &rate), 0);
    unlink(score);
    return x;
}

void lh_clean(char *dir, const char *const *names) {
    char p[400];
    for (; *names; names++) {
        snprintf(p, sizeof p, "%s/%s", dir, *names);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/start.log", dir);
    unlink(p);
    rmdir(dir);
}

/* Writes dir/name (th_write_sound at HRATE), its path into path. */
static void write_in(const char *dir, const char *name, int format, int ch, uint32_t frames,
                     th_gen_fn gen, char path[300]) {
    snprintf(path, 300, "%s/%s", dir, name);
    assert_int_equal(th_write_sound(path, format, ch, HRATE, frames, gen, NULL), 0);
}

static int same_bytes(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    assert_true(fa && fb);
    int same = 1, ca, cb;
    do {
        ca = fgetc(fa);
        cb = fgetc(fb);
        same = ca == cb;
    } while (same && ca != EOF);
    fclose(fa);
    fclose(fb);
    return same;
}

void test_height_render(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-height-XXXXXX", dc[300], bed[300], p1[80], p2[80], p3[80];
    assert_non_null(mkdtemp(dir));
    write_in(dir, "dc.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, HLEN, gen_levels, dc);
    write_in(dir, "bed.wav", SF_FORMAT_WAVEX | SF_FORMAT_FLOAT, 8, HLEN, gen_levels, bed);
    pos_of(45, 45, p1, sizeof p1); /* TFL itself */
    pos_of(60, 20, p2, sizeof p2); /* above ear height, between FL, SL and TFL */
    pos_of(100, 0, p3, sizeof p3); /* ear height, between SL and BL */
    char text[1024];
    snprintf(text, sizeof text,
             "load dc %s\nload bed %s\n@%d play dc --fade-in 0 --pos %s\n"
             "@%d play dc --fade-in 0 --pos %s\n@%d play dc --fade-in 0 --pos %s\n"
             "@%d play bed --fade-in 0\n@%d end\n",
             dc, bed, HSEG, p1, 2 * HSEG, p2, 3 * HSEG, p3, 4 * HSEG, 5 * HSEG);
    int ch = 0;
    size_t n = 0;
    float *x = lh_render(dir, "a.wav", text, "7.1.4", &ch, &n);
    assert_int_equal(ch, 12);
    assert_true(n >= 5 * HSEG);
    char a[300], b[300];
    snprintf(a, sizeof a, "%s/a.wav", dir);
    snprintf(b, sizeof b, "%s/b.wav", dir);
    uint16_t tag = 0;
    assert_int_equal(th_wav_mask(a, &tag), 0x2d63f);
    assert_int_equal(tag, 0xFFFE);
    for (int k = 0; k < 3; k++) { /* the three 3D plays, in the middle */
        const float *f = x + ((size_t)(k + 1) * HSEG + HLEN / 2) * 12;
        double p = 0, top = 0;
        int on = 0;
        for (int c = 0; c < 12; c++) {
            const double g = f[c] / HDC;
            p += g * g;
            on += fabsf(f[c]) > 1e-3f; /* a position in 6 decimals: near, not at */
            if (c >= 8) top += g * g;
        }
        fprintf(stderr,
                "# 7.1.4 play %d: %d speakers, power %+.4f dB, top speakers %.4f of it; "
                "FL %.4f SL %.4f BL %.4f TFL %.4f\n",
                k, on, 10 * log10(p), top / p, (double)(f[0] / HDC), (double)(f[6] / HDC),
                (double)(f[4] / HDC), (double)(f[8] / HDC));
        assert_true(fabs(10 * log10(p)) < 0.01); /* constant power */
        assert_true(f[3] == 0.0f);               /* LFE: only what is sent to it */
        if (k == 0) assert_true(on == 1 && fabsf(f[8] - HDC) < 1e-4f);
        if (k == 1) assert_true(on == 3 && f[0] > 0 && f[6] > 0 && f[8] > 0);
        if (k == 2) assert_true(on == 2 && f[6] > 0 && f[4] > 0 && top == 0); /* exact 0 */
    }
    const float *f = x + ((size_t)4 * HSEG + HLEN / 2) * 12; /* 7.1 on the bed, exact */
    for (int c = 0; c < 12; c++)
        assert_true(f[c] == (c < 8 ? LV(c) : 0.0f));
    free(x);
    x = lh_render(dir, "b.wav", text, "7.1.4", &ch, &n);
    free(x);
    assert_true(same_bytes(a, b));
    fprintf(stderr, "# 7.1.4 render byte-identical twice\n");
    static const char *const files[] = {"a.wav", "b.wav", "dc.wav", "bed.wav", NULL};
    lh_clean(dir, files);
}

void test_height_downmix(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-height-XXXXXX", f12[300], text[600];
    assert_non_null(mkdtemp(dir));
    write_in(dir, "f12.wav", SF_FORMAT_WAVEX | SF_FORMAT_FLOAT, 12, HLEN, gen_levels, f12);
    snprintf(text, sizeof text, "load t %s\n@%d play t --fade-in 0\n@%d end\n", f12, HSEG,
             2 * HSEG);
    float lv[12];
    for (int c = 0; c < 12; c++)
        lv[c] = LV(c);
    const float k = 0.70710678f;
    int ch = 0;
    size_t n = 0;
    float *x = lh_render(dir, "o.wav", text, "7.1", &ch, &n);
    assert_int_equal(ch, 8);
    const float *f = x + ((size_t)HSEG + HLEN / 2) * 8;
    const float w71[8] = {lv[0] + k * lv[8],  lv[1] + k * lv[9],  lv[2], lv[3],
                          lv[4] + k * lv[10], lv[5] + k * lv[11], lv[6], lv[7]};
    for (int c = 0; c < 8; c++)
        assert_float_equal(f[c], w71[c], 1e-5);
    free(x);
    x = lh_render(dir, "o.wav", text, "stereo", &ch, &n);
    assert_int_equal(ch, 2);
    f = x + ((size_t)HSEG + HLEN / 2) * 2;
    /* then BS.775 from 7.1: FC -3 dB, 7.1's back and side pairs at 0.7071 x
     * 0.7071 into the front pair, LFE dropped */
    const float l = w71[0] + k * w71[2] + 0.5f * (w71[4] + w71[6]);
    const float r = w71[1] + k * w71[2] + 0.5f * (w71[5] + w71[7]);
    fprintf(stderr, "# 7.1.4 file on stereo: L %.5f (want %.5f), R %.5f (want %.5f)\n",
            (double)f[0], (double)l, (double)f[1], (double)r);
    assert_float_equal(f[0], l, 1e-4);
    assert_float_equal(f[1], r, 1e-4);
    free(x);
    static const char *const files[] = {"o.wav", "f12.wav", NULL};
    lh_clean(dir, files);
}

/* ---- 5- and 7-channel Ogg Vorbis: Vorbis order to WAVE order ---- */

#define OLEN 12000 /* frames of each Ogg file: 0.25 s */
static const double k_ohz[7] = {440, 660, 880, 110, 1320, 1760, 2200};
static const double k_oamp[7] = {0.2, 0.15, 0.18, 0.25, 0.12, 0.16, 0.1};

/* An Ogg file of ch (5 or 7) channels in Vorbis order: file channel j holds
 * the tone of WAVE channel wave[j] (5.0: FL FR FC BL BR; 6.1: FL FR FC LFE
 * BC SL SR). */
static void gen_ogg(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    static const int wave5[5] = {0, 2, 1, 3, 4};       /* FL C FR BL BR */
    static const int wave7[7] = {0, 2, 1, 5, 6, 4, 3}; /* FL C FR SL SR BC LFE */
    for (int j = 0; j < channels; j++) {
        const int w = channels == 5 ? wave5[j] : wave7[j];
        out[j] = (float)(k_oamp[w] * cos(2 * M_PI * k_ohz[w] * frame / HRATE));
    }
}

/* Each WAVE channel's tone in the stereo output (L, R) of a play at frame
 * `at`, against the 5.0 / 6.1 downmix (FC and the surrounds -3 dB, 6.1's
 * back centre 0.5 into each side, LFE dropped). */
static void check_ogg(const float *x, size_t at, int ch, const char *what) {
    static const double l5[5] = {1, 0, M_SQRT1_2, M_SQRT1_2, 0},
                        r5[5] = {0, 1, M_SQRT1_2, 0, M_SQRT1_2};
    static const double l7[7] = {1, 0, M_SQRT1_2, 0, 0.5, M_SQRT1_2, 0},
                        r7[7] = {0, 1, M_SQRT1_2, 0, 0.5, 0, M_SQRT1_2};
    for (int c = 0; c < ch; c++) {
        const double wl = (ch == 5 ? l5 : l7)[c] * k_oamp[c],
                     wr = (ch == 5 ? r5 : r7)[c] * k_oamp[c];
        const double gl = th_tone_amp(x + at * 2, OLEN - 2000, 2, 0, k_ohz[c], HRATE);
        const double gr = th_tone_amp(x + at * 2, OLEN - 2000, 2, 1, k_ohz[c], HRATE);
        fprintf(stderr, "# %s, WAVE channel %d: L %.4f (want %.4f) R %.4f (want %.4f)\n", what, c,
                gl, wl, gr, wr);
        assert_true(fabs(gl - wl) < 0.01 && fabs(gr - wr) < 0.01);
    }
}

void test_ogg_5_7(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-height-XXXXXX", o5[300], o7[300], text[2048];
    assert_non_null(mkdtemp(dir));
    write_in(dir, "o5.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 5, OLEN, gen_ogg, o5);
    write_in(dir, "o7.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 7, OLEN, gen_ogg, o7);
    /* preloaded and kept compressed (the stream decoder's path) */
    snprintf(text, sizeof text,
             "load p5 %s\nload c5 %s --compressed\nload p7 %s\nload c7 %s --compressed\n"
             "@%d play p5 --fade-in 0\n@%d play c5 --fade-in 0\n@%d play p7 --fade-in 0\n"
             "@%d play c7 --fade-in 0\n@%d end\n",
             o5, o5, o7, o7, HSEG, HSEG + OLEN + HSEG, HSEG + 2 * (OLEN + HSEG),
             HSEG + 3 * (OLEN + HSEG), HSEG + 4 * (OLEN + HSEG));
    int ch = 0;
    size_t n = 0;
    float *x = lh_render(dir, "o.wav", text, "stereo", &ch, &n);
    assert_int_equal(ch, 2);
    static const char *what[4] = {"5-ch Ogg preloaded", "5-ch Ogg compressed", "7-ch Ogg preloaded",
                                  "7-ch Ogg compressed"};
    for (int k = 0; k < 4; k++) {
        /* a compressed voice may start a block or two late: 1000 frames in */
        const size_t at = (size_t)HSEG + (size_t)k * (OLEN + HSEG) + 1000;
        check_ogg(x, at, k < 2 ? 5 : 7, what[k]);
    }
    free(x);
    static const char *const files[] = {"o.wav", "o5.ogg", "o7.ogg", NULL};
    lh_clean(dir, files);
}

int lh_meter_channels(const char *sock, uint16_t minor) {
    int fd = th_raw_meter(sock, "meter-minor", minor);
    assert_true(fd >= 0);
    static uint8_t body[HL_MAX_FRAME];
    size_t n = 0;
    assert_int_equal(th_raw_event(fd, body, &n), 0);
    close(fd);
    hl_rbuf_t r;
    hl_rbuf_init(&r, body, n);
    static hl_event_t ev;
    hl_get_event(&r, &ev);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_int_equal(ev.type, HL_EVENT_METER);
    const int ch = ev.meter_more.channels;
    fprintf(stderr, "# METER to a 1.%u connection: %zu bytes, %d channels\n", minor, n, ch);
    if (minor < 2 && ch > HL_METER_MAX_CH_1_1)
        fail_msg("a 1.%u client's decoder (3..8 channels) cannot read %d", minor, ch);
    return ch;
}

void test_height_meter_minor(void **state) {
    (void)state;
    const char *args[] = {"--layout", "7.1.4", NULL};
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, args), 0);
    assert_int_equal(lh_meter_channels(d.sock, 0), 0);
    assert_int_equal(lh_meter_channels(d.sock, 1), 8);
    assert_int_equal(lh_meter_channels(d.sock, 2), 12);
    assert_int_equal(lh_meter_channels(d.sock, HL_PROTO_MINOR + 1), 12); /* served at ours */
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
}
