/*
 * test_layout.c - output layouts through the real daemon (`--layout`, null
 * driver, --record): the recording has the layout's channels and its WAVE
 * channel mask (WAVE_FORMAT_EXTENSIBLE), a 2D stereo voice comes out on the
 * front pair only, bit-exact, with every other channel silent; a bad
 * --layout and --hrtf with a layout other than stereo are refused at start
 * with a clear message; a 5.1 and a 7.1 file played 2D on stereo come out
 * with the ITU-R BS.775 downmix coefficients (within 0.01); a 3D voice behind
 * the listener, on the rear pair only, reads on its bus meter (STATS and
 * METER per channel), a 1.0 client gets the 1.0 METER body and a 1.1 one
 * every channel. A 6-channel FLAC streamed or kept compressed, and a 5.1
 * Ogg Vorbis (Vorbis channel order) kept compressed or preloaded, keep their channels on 5.1 (FLAC
 * bit-exact per channel, Vorbis each tone at its level on its own speaker),
 * and on stereo a streamed one is the same BS.775 downmix as its preload.
 * 7.1.4: layout_height.c.
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
#include "hl_proto.h"
#include "layout_height.h"

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

typedef struct {
    int n, ch;             /* METER events seen; the channels of the last */
    float music[8], front; /* the music bus's peak per channel; its front pair's, louder */
} rear_seen_t;

static void on_rear_meter(void *user, const heliod_event_t *ev) {
    rear_seen_t *s = user;
    if (ev->type != HELIOD_EVENT_METER) return;
    const heliod_meter_channels_t *mc = heliod_meter_channels(ev->meter);
    assert_non_null(mc);
    for (unsigned i = 0; i < ev->meter->nbuses; i++)
        if (strcmp(ev->meter->bus[i].name, "music") == 0) {
            const heliod_level_t *l = &ev->meter->bus[i];
            s->front = l->peak_db[0] > l->peak_db[1] ? l->peak_db[0] : l->peak_db[1];
            memcpy(s->music, mc->bus[i].peak_db, sizeof s->music);
            s->ch = (int)mc->channels;
            s->n++;
        }
}

/* A 3D voice right behind the listener, on the music bus: the rear pair
 * only (BL/BR). The bus meter reads it in STATS (the louder of every
 * channel) and in METER events per channel (front pair silent); the master
 * reads it on its BL key. */
static void rear_meter(heliod_t *h, int ch, const char *sock) {
    const int bl = ch == 4 ? 2 : 4, br = bl + 1;
    rear_seen_t seen = {0};
    heliod_set_event_callback(h, on_rear_meter, &seen);
    assert_int_equal(heliod_subscribe_meter(h, HELIOD_SUB_METER, 100.0f), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.fade_in_ms = 0;
    pp.flags |= HELIOD_PLAY_3D;
    pp.pos[2] = 1.0f; /* -z ahead: +z behind */
    snprintf(pp.bus, sizeof pp.bus, "music");
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "lr", &pp, &v, NULL), 0);
    wait_engine(h, 0.05);
    const double bus_db = th_stat(h, "bus.music.peak_db");
    const double master_bl = th_stat(h, "master.peak_BL_db");
    for (int i = 0; i < 500 && !(seen.n > 0 && seen.music[bl] > -144.0f); i++) {
        assert_true(heliod_dispatch(h) >= 0);
        th_sleep_ms(2);
    }
    fprintf(stderr,
            "# %d channels, a voice behind: STATS bus.music.peak_db %.1f, master.peak_BL_db %.1f; "
            "METER music BL %.1f BR %.1f, front pair %.1f dBFS\n",
            ch, bus_db, master_bl, (double)seen.music[bl], (double)seen.music[br],
            (double)seen.front);
    assert_true(bus_db > -30.0);
    assert_true(master_bl > -30.0);
    assert_int_equal(seen.ch, ch);
    assert_true(seen.music[bl] > -30.0f && seen.music[br] > -30.0f);
    assert_true(seen.front == -144.0f && seen.music[0] == -144.0f && seen.music[1] == -144.0f);
    /* a 1.0 client (HELLO without a minor) gets the 1.0 body: its decoder
     * (strict: no byte left over) reads it exactly; a 1.1 one every channel */
    assert_int_equal(lh_meter_channels(sock, 0), 0);
    assert_int_equal(lh_meter_channels(sock, 1), ch);
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
    /* the C API's LFE send: out of range is refused by name; 0 is none */
    assert_int_equal(heliod_play_lfe(h, "lr", &pp, 4.5f, &v, NULL), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "lfe"));
    assert_int_equal(heliod_play_lfe(h, "lr", &pp, 0.0f, &v, NULL), 0);
    wait_engine(h, 0.2);
    /* the per-speaker peaks: the front pair sounds, the surrounds do not */
    assert_true(th_stat(h, "output_peak.FL") > 0.0);
    if (want_ch > 2) assert_true(th_stat(h, "output_peak.BL") == 0.0);
    const int lfe = want_ch >= 6 ? 3 : -1;
    assert_int_equal(heliod_set_lfe(h, v, -1.0f, 0), HELIOD_EINVAL);
    if (lfe > 0) { /* from here on the LFE carries the send: checked below */
        assert_int_equal(heliod_set_lfe(h, v, 1.0f, 0), 0);
        wait_engine(h, 0.05);
        assert_true(th_stat(h, "output_peak.LFE") > 0.0);
    }
    if (want_ch > 2) rear_meter(h, want_ch, d.sock);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);

    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(d.record, &x, &frames, &ch, &rate), 0);
    assert_int_equal(ch, want_ch);
    assert_int_equal(rate, RATE);
    uint16_t tag = 0;
    uint32_t mask = th_wav_mask(d.record, &tag);
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
    /* the rear pair: silent until rear_meter's voice behind the listener,
     * which starts at least 0.2 s (wait_engine) after the front voice */
    const int bl = ch == 4 ? 2 : 4;
    size_t rear = frames;
    for (size_t i = 0; i < frames && rear == frames && ch > 2; i++)
        if (x[i * (size_t)ch + (size_t)bl] != 0.0f) rear = i;
    if (ch > 2) assert_true(rear < frames && rear >= a + RATE / 5);
    size_t checked = 0, sent = 0, exact = 0;
    for (size_t i = 0; i < frames; i++) {
        const float *y = x + i * (size_t)ch;
        for (int c = 2; c < ch; c++)
            if ((c != lfe || i < a + RATE / 10) && (i < rear || (c != bl && c != bl + 1)))
                assert_true(y[c] == 0.0f);
        if (lfe > 0 && y[lfe] != 0.0f) { /* the send: 1 x (L + R) / sqrt(2) at gains 1, 1 */
            const float want = (y[0] + y[1]) * 0.70710678f;
            assert_true(fabsf(y[lfe]) <= fabsf(want) + 1e-5f && y[lfe] * want > 0.0f);
            exact += fabsf(y[lfe] - want) <= 1e-5f; /* the rest: ramping up from 0 */
            sent++;
        }
        if (i >= a && i < a + RATE / 10) {
            float l = (float)(((i - a) % 977) + 1) / 2048.0f;
            assert_true(x[i * (size_t)ch] == l);
            assert_true(x[i * (size_t)ch + 1] == -l * 0.5f);
            checked++;
        }
    }
    fprintf(stderr,
            "# --layout %s: %d channels, mask 0x%x, %zu frames bit-exact on FL/FR, %zu frames "
            "of LFE send (heliod_set_lfe)\n",
            layout, ch, mask, checked, sent);
    if (lfe > 0) assert_true(exact >= RATE / 100 && sent - exact <= 1024);
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

static void render_paths(char *dir, char score[300], char out[300]);

/* A `ch`-channel WAVEX file of `frames` frames (gen) played 2D at 0 dB,
 * no fade, at frame 100 of an offline render (--render) on `layout`: the
 * render's frames (*och channels each) from the first one where channel
 * 0 sounds (the onset; at least `frames` of them), NULL-free. */
static float *render_mc_play(const char *layout, int ch, uint32_t frames, th_gen_fn gen, int *och,
                             const char *opts, const char *refused) {
    char dir[] = "/tmp/heliod-layout-XXXXXX", score[300], out[300], snd[300], err[4096];
    render_paths(dir, score, out);
    snprintf(snd, sizeof snd, "%s/mc.wav", dir);
    assert_int_equal(
        th_write_sound(snd, SF_FORMAT_WAVEX | SF_FORMAT_FLOAT, ch, RATE, frames, gen, NULL), 0);
    FILE *f = fopen(score, "w");
    assert_non_null(f);
    fprintf(f, "load mc %s\n@100 play mc --fade-in 0%s\n@%u end\n", snd, opts, frames + 2000);
    fclose(f);
    const char *a[] = {"--render", score, "--out", out, "--layout", layout, NULL};
    const int rc = th_heliod_run(dir, a, err, sizeof err);
    if (refused) { /* the play fails with this message: the render says so */
        assert_true(rc > 0);
        assert_non_null(strstr(err, refused));
    } else {
        assert_int_equal(rc, 0);
    }
    float *x = NULL;
    size_t n = 0;
    int rate = 0;
    assert_int_equal(th_read_sound(out, &x, &n, och, &rate), 0);
    size_t on = n; /* the onset */
    for (size_t i = 0; i < n && on == n; i++)
        if (x[i * (size_t)*och] != 0.0f) on = i;
    if (refused) { /* nothing played */
        assert_true(on == n);
        free(x);
        x = NULL;
    } else {
        assert_true(on + frames <= n);
    }
    if (x) memmove(x, x + on * (size_t)*och, (n - on) * (size_t)*och * sizeof(float));
    unlink(out);
    unlink(snd);
    unlink(score);
    rmdir(dir);
    return x;
}

static float *render_mc(const char *layout, int ch, uint32_t frames, th_gen_fn gen, int *och) {
    return render_mc_play(layout, ch, frames, gen, och, "", NULL);
}

/* A `ch`-channel file on `layout`: input channel c's gain into output
 * channel o, g[o * 8 + c], read in the middle of c's block. */
static void fold_of(const char *layout, int ch, int want_och, float g[64]) {
    int och = 0;
    float *x = render_mc(layout, ch, (uint32_t)ch * BLOCK, gen_blocks, &och);
    assert_int_equal(och, want_och);
    for (int c = 0; c < ch; c++)
        for (int o = 0; o < och; o++)
            g[o * 8 + c] = x[((size_t)c * BLOCK + BLOCK / 2) * (size_t)och + (size_t)o] / LEVEL;
    free(x);
}

/* A 5.1 and a 7.1 file played 2D on stereo: the BS.775 downmix. */
static void test_downmix_bs775(void **state) {
    (void)state;
    const float k = 0.70710678f;
    /* 5.1 FL FR FC LFE BL BR: L = FL + k FC + k BL, R = FR + k FC + k BR */
    const float l51[6] = {1, 0, k, 0, k, 0}, r51[6] = {0, 1, k, 0, 0, k};
    /* 7.1 FL FR FC LFE BL BR SL SR: the side and back pairs at k into 5.1's
     * surrounds, then as 5.1: each at k * k = 0.5 */
    const float l71[8] = {1, 0, k, 0, 0.5f, 0, 0.5f, 0}, r71[8] = {0, 1, k, 0, 0, 0.5f, 0, 0.5f};
    float g[64];
    fold_of("stereo", 6, 2, g);
    for (int c = 0; c < 6; c++) {
        fprintf(stderr, "# 5.1 channel %d -> L %.4f R %.4f\n", c, g[c], g[8 + c]);
        assert_true(fabsf(g[c] - l51[c]) <= 0.01f && fabsf(g[8 + c] - r51[c]) <= 0.01f);
    }
    fold_of("stereo", 8, 2, g);
    for (int c = 0; c < 8; c++) {
        fprintf(stderr, "# 7.1 channel %d -> L %.4f R %.4f\n", c, g[c], g[8 + c]);
        assert_true(fabsf(g[c] - l71[c]) <= 0.01f && fabsf(g[8 + c] - r71[c]) <= 0.01f);
    }
}

/* Channel c of frame i of the passthrough file: distinct per channel and
 * frame, both signs. */
static float mc_sample(uint32_t i, int c) {
    return (float)((int)(((i + 1) * (uint32_t)(c + 3)) % 1999) - 999) /
           2048.0f; /* under the limiter */
}

static void gen_mc(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    for (int c = 0; c < channels; c++)
        out[c] = mc_sample(frame, c);
}

/* A 5.1 file played 2D at 0 dB on 5.1 (and a 7.1 file on 7.1): every
 * channel bit-exact on its own speaker, silence after. */
static void run_passthrough(const char *layout, int ch) {
    const uint32_t frames = 4800;
    int och = 0;
    float *x = render_mc(layout, ch, frames, gen_mc, &och);
    assert_int_equal(och, ch);
    for (uint32_t i = 0; i < frames + 500; i++)
        for (int c = 0; c < ch; c++) {
            const float got = x[(size_t)i * (size_t)ch + (size_t)c];
            const float want = i < frames ? mc_sample(i, c) : 0.0f;
            if (got != want)
                fprintf(stderr, "# frame %u channel %d: %.9g, want %.9g\n", i, c, (double)got,
                        (double)want);
            assert_true(got == want);
        }
    fprintf(stderr, "# %d-channel file on --layout %s: %u frames bit-exact per channel\n", ch,
            layout, frames);
    free(x);
}

static void test_passthrough(void **state) {
    (void)state;
    run_passthrough("5.1", 6);
    run_passthrough("7.1", 8);
    /* 3D play of a multichannel sound is refused, naming why */
    int och = 0;
    free(render_mc_play("5.1", 6, 4800, gen_mc, &och, " --pos 1,0,0",
                        "sound mc has 6 channels: a multichannel sound plays 2D only"));
}

/* Folds to a surround layout: 7.1 on 5.1 (BS.775: side and back pairs at
 * 0.7071 into the surrounds), 5.1 on 7.1 and quad on 5.1 (speaker to
 * speaker), 5.1 on quad (centre at 0.7071 into the front pair, LFE out). */
static void test_fold_surround(void **state) {
    (void)state;
    const float k = 0.70710678f;
    struct {
        const char *layout;
        int ch, och;
        float want[64]; /* [o * 8 + c] */
    } t[] = {
        {"5.1",
         8,
         6,
         {[0] = 1,
          [8 + 1] = 1,
          [16 + 2] = 1,
          [24 + 3] = 1,
          [32 + 4] = k,
          [32 + 6] = k,
          [40 + 5] = k,
          [40 + 7] = k}},
        {"7.1",
         6,
         8,
         {[0] = 1, [8 + 1] = 1, [16 + 2] = 1, [24 + 3] = 1, [32 + 4] = 1, [40 + 5] = 1}},
        {"5.1", 4, 6, {[0] = 1, [8 + 1] = 1, [32 + 2] = 1, [40 + 3] = 1}},
        {"quad", 6, 4, {[0] = 1, [2] = k, [8 + 1] = 1, [8 + 2] = k, [16 + 4] = 1, [24 + 5] = 1}},
    };
    for (size_t n = 0; n < sizeof t / sizeof t[0]; n++) {
        float g[64];
        fold_of(t[n].layout, t[n].ch, t[n].och, g);
        for (int o = 0; o < t[n].och; o++)
            for (int c = 0; c < t[n].ch; c++) {
                if (fabsf(g[o * 8 + c] - t[n].want[o * 8 + c]) > 0.01f)
                    fprintf(stderr, "# %d ch on %s: in %d -> out %d: %.4f, want %.4f\n", t[n].ch,
                            t[n].layout, c, o, g[o * 8 + c], t[n].want[o * 8 + c]);
                assert_true(fabsf(g[o * 8 + c] - t[n].want[o * 8 + c]) <= 0.01f);
            }
        fprintf(stderr, "# %d-channel file on --layout %s: folded as documented\n", t[n].ch,
                t[n].layout);
    }
}

static void test_refused(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-layout-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sock[300], err[4096];
    snprintf(sock, sizeof sock, "%s/s.sock", dir);
    const char *a1[] = {"--driver", "null", "--socket", sock, "--layout", "7.1.2", NULL};
    assert_true(th_heliod_run(dir, a1, err, sizeof err) > 0);
    assert_non_null(strstr(err, "--layout must be stereo, quad, 5.1, 7.1 or 7.1.4"));
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
    assert_int_equal(th_wav_mask(out, &tag), 0x63f);
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

/* ---- multichannel streams and compressed sounds (--render) ---- */

#define TLEN 24000 /* frames of each tone file: 0.5 s */
static const double k_thz[6] = {440, 660, 880, 110, 1320, 1760};
static const double k_tamp[6] = {0.5, 0.3, 0.4, 0.6, 0.2, 0.35};

/* Channel c a cosine of its own (so frame 0 sounds on every channel). */
static void gen_tones6(void *user, uint32_t frame, float *out, int channels) {
    (void)user;
    for (int c = 0; c < channels; c++)
        out[c] = (float)(k_tamp[c] * cos(2 * M_PI * k_thz[c] * frame / RATE));
}

/* The same in Vorbis order (FL C FR BL BR LFE), as an Ogg file holds it:
 * the WAVE channel of each of the file's. */
static void gen_tones6_ogg(void *user, uint32_t frame, float *out, int channels) {
    static const int wave[6] = {0, 2, 1, 4, 5, 3};
    float w[6];
    gen_tones6(user, frame, w, channels);
    for (int c = 0; c < channels; c++)
        out[c] = w[wave[c]];
}

/* The first frame at or after `from` where any of ch channels sounds. */
static size_t onset(const float *x, size_t n, int ch, size_t from) {
    for (size_t i = from; i < n; i++)
        for (int c = 0; c < ch; c++)
            if (x[i * (size_t)ch + (size_t)c] != 0.0f) return i;
    return n;
}

/* Renders `plays` after the loads of the two files (FLAC: fs streamed, fc
 * compressed, fp preloaded; Vorbis: vc compressed, vp preloaded) on
 * `layout`; returns the output (*och channels, *n frames). */
static float *render_tones(const char *dir, const char *flac, const char *ogg, const char *layout,
                           const char *plays, int *och, size_t *n) {
    char text[2048], out[300];
    snprintf(text, sizeof text,
             "load fs %s --stream\nload fc %s --compressed\nload fp %s\n"
             "load vc %s --compressed\nload vp %s\n%s",
             flac, flac, flac, ogg, ogg, plays);
    float *x = lh_render(dir, "out.wav", text, layout, och, n);
    snprintf(out, sizeof out, "%s/out.wav", dir);
    unlink(out);
    return x;
}

static void test_stream_channels(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-layout-XXXXXX", flac[300], ogg[300];
    assert_non_null(mkdtemp(dir));
    snprintf(flac, sizeof flac, "%s/t6.flac", dir);
    snprintf(ogg, sizeof ogg, "%s/t6.ogg", dir);
    assert_int_equal(
        th_write_sound(flac, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 6, RATE, TLEN, gen_tones6, NULL),
        0);
    assert_int_equal(
        th_write_sound(ogg, SF_FORMAT_OGG | SF_FORMAT_VORBIS, 6, RATE, TLEN, gen_tones6_ogg, NULL),
        0);
    float *src = NULL;
    size_t sn = 0;
    int sch = 0, srate = 0;
    assert_int_equal(th_read_sound(flac, &src, &sn, &sch, &srate), 0); /* libsndfile's decode */
    assert_true(sch == 6 && sn == TLEN);
    float *vsrc = NULL; /* the Vorbis file decoded, its channels to WAVE order */
    assert_int_equal(th_read_sound(ogg, &vsrc, &sn, &sch, &srate), 0);
    assert_true(sch == 6 && sn == TLEN);
    for (size_t i = 0; i < TLEN; i++) {
        static const int from[6] = {0, 2, 1, 5, 3, 4}; /* FL FR FC LFE BL BR in the file */
        float y[6];
        for (int c = 0; c < 6; c++)
            y[c] = vsrc[i * 6 + (size_t)from[c]];
        memcpy(vsrc + i * 6, y, sizeof y);
    }

    /* 5.1: streamed FLAC, compressed FLAC, compressed Vorbis, 30000 frames apart */
    int och = 0;
    size_t n = 0;
    float *x = render_tones(dir, flac, ogg, "5.1",
                            "@100 play fs --fade-in 0\n@30100 play fc --fade-in 0\n"
                            "@60100 play vc --fade-in 0\n@90100 play vp --fade-in 0\n"
                            "@120000 end\n",
                            &och, &n);
    assert_int_equal(och, 6);
    /* each play, every channel bit-exact on its own speaker: libsndfile's
     * decode of the file (the Ogg one in WAVE order, as heliod reorders it) */
    static const char *const what[4] = {"FLAC streamed", "FLAC kept compressed",
                                        "Vorbis kept compressed", "Vorbis preloaded"};
    for (int k = 0; k < 4; k++) {
        const float *ref = k < 2 ? src : vsrc;
        size_t on = onset(x, n, 6, (size_t)k * 30000);
        assert_true(on < (size_t)k * 30000 + 2000 && on + TLEN <= n);
        for (size_t i = 0; i < TLEN; i++)
            for (int c = 0; c < 6; c++)
                if (x[(on + i) * 6 + (size_t)c] != ref[i * 6 + (size_t)c])
                    fail_msg("%s frame %zu channel %d: %.9g, want %.9g", what[k], i, c,
                             x[(on + i) * 6 + (size_t)c], ref[i * 6 + (size_t)c]);
        fprintf(stderr, "# 5.1 %s on --layout 5.1: %d frames bit-exact per channel", what[k], TLEN);
        for (int c = 0; c < 6; c++) /* and each tone is on its own speaker */
            fprintf(stderr, "%s%.0f Hz %.4f", c ? ", " : " (", k_thz[c],
                    th_tone_amp(x + (on + 1000) * 6, TLEN - 2000, 6, c, k_thz[c], RATE));
        fprintf(stderr, ")\n");
        for (int c = 0; c < 6; c++)
            assert_true(th_tone_amp(x + (on + 1000) * 6, TLEN - 2000, 6, c, k_thz[c], RATE) >
                        0.9 * k_tamp[c]);
    }
    free(x);

    /* stereo: the streamed FLAC is its preload's BS.775 downmix, bit for bit */
    x = render_tones(dir, flac, ogg, "stereo",
                     "@100 play fs --fade-in 0\n@30100 play fp --fade-in 0\n@60000 end\n", &och,
                     &n);
    assert_int_equal(och, 2);
    size_t a = onset(x, n, 2, 0), b = onset(x, n, 2, 30000);
    assert_true(a < 2000 && b < 32000 && b + TLEN <= n);
    for (size_t i = 0; i < 2 * TLEN; i++)
        if (x[2 * a + i] != x[2 * b + i])
            fail_msg("stereo sample %zu: streamed %.9g, preloaded %.9g", i, x[2 * a + i],
                     x[2 * b + i]);
    /* and that downmix is BS.775: L = FL + 0.7071 (FC + BL), the LFE dropped */
    double l_fl = th_tone_amp(x + 2 * a, TLEN, 2, 0, k_thz[0], RATE),
           l_fc = th_tone_amp(x + 2 * a, TLEN, 2, 0, k_thz[2], RATE);
    double l_lfe = th_tone_amp(x + 2 * a, TLEN, 2, 0, k_thz[3], RATE);
    fprintf(stderr, "# streamed 5.1 FLAC on stereo: left FL %.4f, FC %.4f, LFE %.5f\n", l_fl, l_fc,
            l_lfe);
    assert_true(fabs(l_fl - k_tamp[0]) < 0.01 && fabs(l_fc - 0.7071 * k_tamp[2]) < 0.01);
    assert_true(l_lfe < 0.001);
    free(x);
    free(src);
    free(vsrc);
    unlink(flac);
    unlink(ogg);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_stereo),
        cmocka_unit_test(test_51),
        cmocka_unit_test(test_71),
        cmocka_unit_test(test_quad),
        cmocka_unit_test(test_downmix_bs775),
        cmocka_unit_test(test_passthrough),
        cmocka_unit_test(test_fold_surround),
        cmocka_unit_test(test_render_layout),
        cmocka_unit_test(test_sweep_51),
        cmocka_unit_test(test_sweep_71),
        cmocka_unit_test(test_stream_channels),
        cmocka_unit_test(test_height_render),
        cmocka_unit_test(test_height_downmix),
        cmocka_unit_test(test_height_meter_minor),
        cmocka_unit_test(test_ogg_5_7),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
