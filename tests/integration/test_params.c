/*
 * test_params.c - game parameters through the real daemon.
 *
 * Offline renders (`heliod --render`: the engine's own frames, faster than
 * real time, no dependence on the machine's speed), measured in the output:
 *   - a parameter seeking 0 -> 1 over 100 ms (seek 10/s) bound to gain through
 *     a 3-point curve: after its seek time the level is the curve's within
 *     0.1 dB, at the end of the ramp and at 10 more values across both
 *     segments; the ramp itself rises monotonically;
 *   - a low-pass binding: a sine at the cutoff the curve gives comes out
 *     3.01 dB down (the 2nd-order Butterworth's response at its cutoff) within
 *     0.087 dB, i.e. the cutoff within 1%;
 *   - a blend of two variations keeps the summed power within 0.5 dB of one
 *     variation's at 11 values across the range;
 *   - a bus-gain binding and an EQ-gain binding on the same bus give the
 *     bus's level within 0.1 dB of their sum;
 *   - two renders of the score are byte-identical;
 *   - a parameter that jumps while another one seeks changes its voice's
 *     and its bus's gain from its own frame on, not from the seek's next
 *     grid step (against the same score without the jump).
 * Against a running daemon (libheliod, heliodctl): a switch picks the right
 * variation on each side of each boundary; hostile inputs (unknown names,
 * out-of-range values, NaN, a 17-point curve, a quota flood) get their
 * error codes and messages naming the problem.
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
#include "hl_proto.h"

#define RATE 48000

static char g_dir[256];

static void path_of(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", g_dir, name);
}

static int write_text(const char *name, const char *text) {
    char p[300];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

/* heliod --render SCORE --out OUT; its exit status. */
static int render(const char *score, const char *out) {
    char sp[300], op[300], lp[300];
    path_of(sp, sizeof sp, score);
    path_of(op, sizeof op, out);
    path_of(lp, sizeof lp, "render.log");
    return th_render(sp, op, lp, NULL);
}

/* The left channel of a render. */
static float *read_left(const char *out, size_t *frames) {
    char p[300];
    path_of(p, sizeof p, out);
    float *d = NULL;
    int ch = 0, rate = 0;
    if (th_read_sound(p, &d, frames, &ch, &rate) != 0) return NULL;
    assert_int_equal(rate, RATE);
    for (size_t i = 0; i < *frames; i++)
        d[i] = d[i * (size_t)ch];
    return d;
}

/* Mean power of x[a, a + n), in dB. */
static double power_db(const float *x, size_t a, size_t n) {
    double s = 0;
    for (size_t i = a; i < a + n; i++)
        s += (double)x[i] * x[i];
    return 10.0 * log10(s / (double)n + 1e-30);
}

/* Power of the component at f Hz in x[a, a + n), in dB (a sine of power P
 * over whole cycles gives P). */
static double tone_db(const float *x, size_t a, size_t n, double f) {
    double re = 0, im = 0;
    for (size_t i = a; i < a + n; i++) {
        re += x[i] * cos(2.0 * M_PI * f * (double)i / RATE);
        im += x[i] * sin(2.0 * M_PI * f * (double)i / RATE);
    }
    return 10.0 * log10(2.0 * (re * re + im * im) / ((double)n * n) + 1e-30);
}

static double curve3(double v) { /* the gain curve of the sheet: 0:-24 0.5:-6 1:0 */
    if (v <= 0.5) return -24.0 + (v / 0.5) * 18.0;
    return -6.0 + ((v - 0.5) / 0.5) * 6.0;
}

static int setup_dir(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/heliod-params-XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    char p[300];
    path_of(p, sizeof p, "s1k.wav");
    if (th_write_sine(p, RATE, 1.0, 1000.0, 0.5) != 0) return -1; /* 1000 cycles: loops clean */
    path_of(p, sizeof p, "s1100.wav");
    if (th_write_sine(p, RATE, 1.0, 1100.0, 0.5) != 0) return -1;
    path_of(p, sizeof p, "s500.wav");
    if (th_write_sine(p, RATE, 1.0, 500.0, 0.3) != 0) return -1;
    path_of(p, sizeof p, "s700.wav");
    if (th_write_sine(p, RATE, 1.0, 700.0, 0.3) != 0) return -1;
    return 0;
}

static int teardown_dir(void **state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

#define GAIN_T0 60000 /* the 0 -> 1 ramp starts */
#define STEP0   72000 /* the 10 values, STEP frames apart */
#define STEP    9600
#define WIN     2400 /* 50 ms: whole cycles of every test tone */
static const double k_values[10] = {0.95, 0.05, 0.85, 0.15, 0.75, 0.25, 0.65, 0.35, 0.55, 0.45};

/* The gain score: a reference play of the sine, then the bound cue. Uses the
 * cue sheet (the [parameter] section and bind key) and heliodctl's param. */
static void write_gain_score(void) {
    char sheet[300], s1k[300];
    path_of(sheet, sizeof sheet, "gain.ini");
    path_of(s1k, sizeof s1k, "s1k.wav");
    assert_int_equal(write_text("gain.ini", "[parameter p] 0 1 0 10\n"
                                            "[cue c]\nsound = s1k\nloop = true\nfade-in = 0\n"
                                            "bind = p gain 0:-24 0.5:-6 1:0\n"),
                     0);
    char score[4096];
    int n = snprintf(score, sizeof score,
                     "load s1k %s\ncues load %s\n"
                     "@0 play s1k --loop --fade-in 0\n@24000 stop --all --fade 0\n"
                     "@48000 play c\n@%d param p 1\n",
                     s1k, sheet, GAIN_T0);
    for (int k = 0; k < 10; k++)
        n += snprintf(score + n, sizeof score - (size_t)n, "@%d param p %g\n", STEP0 + k * STEP,
                      k_values[k]);
    snprintf(score + n, sizeof score - (size_t)n, "@%d end\n", STEP0 + 10 * STEP);
    assert_int_equal(write_text("gain.score", score), 0);
}

static void test_render_gain_curve(void **state) {
    (void)state;
    write_gain_score();
    assert_int_equal(render("gain.score", "gain.wav"), 0);
    size_t frames = 0;
    float *x = read_left("gain.wav", &frames);
    assert_non_null(x);
    assert_true(frames >= (size_t)(STEP0 + 10 * STEP));
    double ref = power_db(x, 4800, WIN); /* the sound at 0 dB */
    /* before the ramp: the default 0 -> -24 dB */
    assert_true(fabs(power_db(x, GAIN_T0 - WIN, WIN) - ref - curve3(0.0)) < 0.1);
    /* the ramp rises monotonically (10 ms windows) ... */
    double prev = -200.0;
    for (int t = GAIN_T0; t < GAIN_T0 + 4800 + 960; t += 480) {
        double l = power_db(x, (size_t)t, 480) - ref;
        assert_true(l >= prev - 0.01);
        prev = l;
    }
    /* ... and after its 100 ms of seek time it sits on the curve's end */
    double end = power_db(x, GAIN_T0 + 9600, WIN) - ref;
    printf("gain ramp 0->1: %.3f dB after the seek (curve 0)\n", end);
    assert_true(fabs(end - curve3(1.0)) < 0.1);
    for (int k = 0; k < 10; k++) { /* each value 100 ms after it was set */
        double l = power_db(x, (size_t)(STEP0 + k * STEP + 4800), WIN) - ref;
        printf("p = %.2f: %.3f dB, curve %.3f dB\n", k_values[k], l, curve3(k_values[k]));
        assert_true(fabs(l - curve3(k_values[k])) < 0.1);
    }
    free(x);
    /* the same score again: the same bytes */
    assert_int_equal(render("gain.score", "gain2.wav"), 0);
    char a[300], b[300];
    path_of(a, sizeof a, "gain.wav");
    path_of(b, sizeof b, "gain2.wav");
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    assert_non_null(fa);
    assert_non_null(fb);
    size_t same = 0;
    int ca, cb;
    do {
        ca = fgetc(fa);
        cb = fgetc(fb);
        assert_int_equal(ca, cb);
        same++;
    } while (ca != EOF);
    fclose(fa);
    fclose(fb);
    assert_true(same > (size_t)(STEP0 + 10 * STEP) * 8);
}

static void test_render_lowpass(void **state) {
    (void)state;
    char s[300];
    path_of(s, sizeof s, "s1100.wav");
    char score[2048];
    /* bound over the protocol this time: param-def and bind lines */
    snprintf(score, sizeof score,
             "load s1100 %s\nparam-def q 0 1 0 0\n"
             "cue lpc --sound s1100 --loop --fade-in 0\n"
             "bind lpc q lp 0:200 1:2000\n"
             "@0 play s1100 --loop --fade-in 0\n@24000 stop --all --fade 0\n"
             "@48000 play lpc\n@52800 param q 0.5\n@72000 end\n",
             s);
    assert_int_equal(write_text("lp.score", score), 0);
    assert_int_equal(render("lp.score", "lp.wav"), 0);
    size_t frames = 0;
    float *x = read_left("lp.wav", &frames);
    assert_non_null(x);
    double ref = power_db(x, 4800, 4800);
    double at200 = power_db(x, 48000 + 2400, WIN) - ref; /* q = 0: 200 Hz, far below */
    double atfc = power_db(x, 62400, 4800) - ref;        /* q = 0.5: 1100 Hz, the tone's */
    printf("lp 200 Hz: %.2f dB; lp 1100 Hz: %.3f dB at 1100 Hz (Butterworth -3.010)\n", at200,
           atfc);
    assert_true(at200 < -20.0);
    /* |H(f)|^2 = 1 / (1 + (f/fc)^4): 1% of cutoff moves it 0.087 dB at fc */
    assert_true(fabs(atfc + 3.0103) < 0.087);
    free(x);
}

static void test_render_blend(void **state) {
    (void)state;
    char a[300], b[300];
    path_of(a, sizeof a, "s500.wav");
    path_of(b, sizeof b, "s700.wav");
    char score[4096];
    int n = snprintf(score, sizeof score,
                     "load lo %s\nload hi %s\nparam-def m 0 1 0 0\n"
                     "cue bl --sound lo --sound hi --loop --fade-in 0\n"
                     "bind bl m blend\n"
                     "@0 play lo --loop --fade-in 0\n@24000 stop --all --fade 0\n"
                     "@48000 play bl\n",
                     a, b);
    for (int k = 0; k <= 10; k++)
        n += snprintf(score + n, sizeof score - (size_t)n, "@%d param m %g\n", 52800 + k * STEP,
                      k / 10.0);
    snprintf(score + n, sizeof score - (size_t)n, "@%d end\n", 52800 + 11 * STEP);
    assert_int_equal(write_text("blend.score", score), 0);
    assert_int_equal(render("blend.score", "blend.wav"), 0);
    size_t frames = 0;
    float *x = read_left("blend.wav", &frames);
    assert_non_null(x);
    double ref = power_db(x, 4800, WIN);
    for (int k = 0; k <= 10; k++) {
        double l = power_db(x, (size_t)(52800 + k * STEP + 4800), WIN) - ref;
        /* the layers really crossfade: 500 Hz at cos, 700 Hz at sin of m x 90 degrees */
        size_t at = (size_t)(52800 + k * STEP + 4800);
        double lo = tone_db(x, at, WIN, 500.0) - ref, hi = tone_db(x, at, WIN, 700.0) - ref;
        double want_lo = 20.0 * log10(cos(k / 10.0 * M_PI / 2) + 1e-9);
        double want_hi = 20.0 * log10(sin(k / 10.0 * M_PI / 2) + 1e-9);
        printf("m = %.1f: summed power %.3f dB (500 Hz %.2f dB, 700 Hz %.2f dB)\n", k / 10.0, l, lo,
               hi);
        assert_true(fabs(l) < 0.5);
        if (want_lo > -40.0)
            assert_true(fabs(lo - want_lo) < 0.5);
        else
            assert_true(lo < -40.0);
        if (want_hi > -40.0)
            assert_true(fabs(hi - want_hi) < 0.5);
        else
            assert_true(hi < -40.0);
    }
    free(x);
}

static void test_render_bus_and_fx(void **state) {
    (void)state;
    char s1k[300];
    path_of(s1k, sizeof s1k, "s1k.wav");
    char score[2048];
    /* a peaking EQ at the tone's frequency: its gain is the tone's level */
    snprintf(score, sizeof score,
             "load s1k %s\nparam-def g 0 1 0 0\nparam-def eq 0 1 0 0\n"
             "fx add sfx eq --type peak --freq 1000 --q 1 --gain 0\n"
             "bind sfx g bus-gain 0:0 1:-6\n"
             "bind sfx eq fx:0:2 0:0 0.5:-3 1:-12\n"
             "@0 play s1k --loop --fade-in 0\n"
             "@24000 param g 1\n@48000 param eq 0.5\n@72000 param eq 1\n@96000 end\n",
             s1k);
    assert_int_equal(write_text("bus.score", score), 0);
    assert_int_equal(render("bus.score", "bus.wav"), 0);
    size_t frames = 0;
    float *x = read_left("bus.wav", &frames);
    assert_non_null(x);
    double ref = power_db(x, 9600, WIN);
    double g = power_db(x, 24000 + 9600, WIN) - ref, e1 = power_db(x, 48000 + 9600, WIN) - ref,
           e2 = power_db(x, 72000 + 9600, WIN) - ref;
    printf("bus gain bound: %.3f dB (-6); + EQ gain bound: %.3f dB (-9), %.3f dB (-18)\n", g, e1,
           e2);
    assert_true(fabs(g + 6.0) < 0.1);
    assert_true(fabs(e1 + 9.0) < 0.1);
    assert_true(fabs(e2 + 18.0) < 0.1);
    free(x);
}

/* A parameter bound to a mixer snapshot's intensity: the snapshot pulls
 * sfx to -12 dB, so at intensity 1, 0.5 and 0 the bus is -12, -6 and 0 dB
 * (a gain blends in dB: base + (value - base) x intensity). */
static void test_render_snapshot_intensity(void **state) {
    (void)state;
    char s1k[300];
    path_of(s1k, sizeof s1k, "s1k.wav");
    char score[2048];
    snprintf(score, sizeof score,
             "load s1k %s\nparam-def s 0 1 0 0\n"
             "snapshot define duck --fade 0\nsnapshot set duck sfx gain -12\n"
             "bind duck s snapshot 0:0 1:1\n"
             "@0 play s1k --loop --fade-in 0\n"
             "@24000 param s 1\n@48000 param s 0.5\n@72000 param s 0\n@96000 end\n",
             s1k);
    assert_int_equal(write_text("snap.score", score), 0);
    assert_int_equal(render("snap.score", "snap.wav"), 0);
    size_t frames = 0;
    float *x = read_left("snap.wav", &frames);
    assert_non_null(x);
    double ref = power_db(x, 9600, WIN);
    double i1 = power_db(x, 24000 + 9600, WIN) - ref, ih = power_db(x, 48000 + 9600, WIN) - ref,
           i0 = power_db(x, 72000 + 9600, WIN) - ref;
    printf("snapshot intensity bound: %.3f dB at 1 (-12), %.3f dB at 0.5 (-6), %.3f dB at 0 (0)\n",
           i1, ih, i0);
    assert_true(fabs(i1 + 12.0) < 0.1);
    assert_true(fabs(ih + 6.0) < 0.1);
    assert_true(fabs(i0) < 0.1);
    free(x);
}

/* A jump of one parameter (j, bound to a voice's gain and its bus's gain)
 * while another (s) seeks: applied on the jump's own frame. The render
 * sends it in the period before that frame, when the seek's grid steps
 * have gone out a ranking lead ahead; the same score without the jump is
 * the same to the sample up to that frame and differs from it on. */
#define JUMP_AT 26011 /* not on a period, nor on the seek's 10 ms grid */
static void test_render_jump_while_seeking(void **state) {
    (void)state;
    char s500[300];
    path_of(s500, sizeof s500, "s500.wav");
    char score[2048];
    for (int with = 0; with < 2; with++) {
        char jump[64] = "";
        if (with) snprintf(jump, sizeof jump, "@%d param j 1\n", JUMP_AT);
        snprintf(score, sizeof score,
                 "load s500 %s\nparam-def s 0 1 0 10\nparam-def j 0 1 0 0\n"
                 "cue b --sound s500 --loop\nbind b j gain 0:0 1:-12\n"
                 "bind sfx j bus-gain 0:0 1:-6\n"
                 "@0 play b --fade-in 0\n@24000 param s 1\n%s@36000 end\n",
                 s500, jump);
        const char *name = with ? "jump.score" : "nojump.score";
        assert_int_equal(write_text(name, score), 0);
        assert_int_equal(render(name, with ? "jump.wav" : "nojump.wav"), 0);
    }
    size_t na = 0, nb = 0;
    float *a = read_left("nojump.wav", &na), *b = read_left("jump.wav", &nb);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(na, nb);
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < na && first == SIZE_MAX; i++)
        if (a[i] != b[i]) first = i;
    printf("a jump at frame %d while another parameter seeks: heard from frame %zu\n", JUMP_AT,
           first);
    assert_true(first >= JUMP_AT && first <= JUMP_AT + 2);
    /* and it lands: -18 dB (the voice's -12 and the bus's -6) */
    double d = power_db(b, 30000, WIN) - power_db(a, 30000, WIN);
    assert_true(fabs(d + 18.0) < 0.1);
    free(a);
    free(b);
}

/* ---- against a running daemon ---- */

typedef struct {
    th_daemon_t d;
} fx_t;

static int setup_daemon(void **state) {
    fx_t *f = calloc(1, sizeof *f);
    const char *args[] = {"--client-params", "8", NULL};
    if (!f || th_daemon_start(&f->d, 0, args) != 0) return -1;
    *state = f;
    return 0;
}

static int teardown_daemon(void **state) {
    fx_t *f = *state;
    int rc = th_daemon_stop(&f->d, NULL);
    th_daemon_cleanup(&f->d);
    free(f);
    return rc == 0 ? 0 : -1;
}

static const char *sound_of(heliod_t *h, heliod_voice_t v) {
    static heliod_voice_info_t vi[64];
    size_t n = 0;
    if (heliod_voices(h, vi, 64, &n) != 0) return "?";
    for (size_t i = 0; i < n && i < 64; i++)
        if (vi[i].voice == v) return vi[i].sound;
    return "-";
}

static void test_switch_boundaries(void **state) {
    fx_t *f = *state;
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, f->d.sock, "switch"), 0);
    const char *names[3] = {"v0", "v1", "v2"};
    for (int i = 0; i < 3; i++) {
        char p[300];
        snprintf(p, sizeof p, "%s/%s.wav", f->d.dir, names[i]);
        assert_int_equal(th_write_sine(p, RATE, 0.5, 300.0 + 100.0 * i, 0.1), 0);
        assert_int_equal(heliod_load(h, names[i], p, 0, NULL), 0);
    }
    assert_int_equal(heliod_param_define(h, "surface", 0, 1, 0, 0), 0);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    cue.nsounds = 3;
    for (int i = 0; i < 3; i++)
        snprintf(cue.sounds[i], sizeof cue.sounds[i], "%s", names[i]);
    cue.flags |= HELIOD_CUE_LOOP;
    snprintf(cue.name, sizeof cue.name, "steps");
    assert_int_equal(heliod_cue_define(h, &cue), 0);
    heliod_curve_point_t bounds[2] = {{.x = 0.3f}, {.x = 0.6f}};
    assert_int_equal(heliod_bind(h, "steps", "surface", HELIOD_PROP_SWITCH, 0, bounds, 2), 0);
    const struct {
        float v;
        const char *want;
    } cases[] = {
        {0.0f, "v0"}, {nextafterf(0.3f, 0.0f), "v0"},
        {0.3f, "v1"}, {nextafterf(0.6f, 0.0f), "v1"},
        {0.6f, "v2"}, {1.0f, "v2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(heliod_param_set(h, "surface", HELIOD_PSCOPE_GLOBAL, NULL, 0, cases[i].v),
                         0);
        heliod_voice_t v = 0;
        assert_int_equal(heliod_play(h, "steps", NULL, &v, NULL), 0);
        const char *got = sound_of(h, v);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("surface %.9g: played %s, want %s", (double)cases[i].v, got, cases[i].want);
        assert_int_equal(heliod_stop(h, v, 0), 0);
    }
    heliod_param_info_t pi[4];
    size_t n = 0;
    assert_int_equal(heliod_params(h, pi, 4, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(pi[0].name, "surface");
    assert_float_equal(pi[0].value, 1.0f, 0.0f);
    heliod_close(h);
}

static float gain_of(heliod_t *h, heliod_voice_t v) {
    static heliod_voice_info_t vi[64];
    size_t n = 0;
    if (heliod_voices(h, vi, 64, &n) != 0) return NAN;
    for (size_t i = 0; i < n && i < 64; i++)
        if (vi[i].voice == v) return vi[i].gain_db;
    return NAN;
}

/* Emitter and voice values over the global one; a blend's layers follow its
 * first voice's STOP; the counters in STATS. */
static void test_scopes_and_layers(void **state) {
    fx_t *f = *state;
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, f->d.sock, "scopes"), 0);
    char p[300];
    snprintf(p, sizeof p, "%s/t.wav", f->d.dir);
    assert_int_equal(th_write_sine(p, RATE, 0.5, 440.0, 0.1), 0);
    assert_int_equal(heliod_load(h, "t", p, 0, NULL), 0);
    assert_int_equal(heliod_param_define(h, "rpm", 0, 1, 1, 0), 0);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "eng");
    cue.nsounds = 2;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "t");
    snprintf(cue.sounds[1], sizeof cue.sounds[1], "t");
    cue.flags |= HELIOD_CUE_LOOP;
    assert_int_equal(heliod_cue_define(h, &cue), 0);
    heliod_curve_point_t pts[2] = {{.x = 0, .y = -20}, {.x = 1, .y = 0}};
    assert_int_equal(heliod_bind(h, "eng", "rpm", HELIOD_PROP_GAIN, 0, pts, 2), 0);
    const float pos[3] = {0, 0, -1};
    assert_int_equal(heliod_emitter_create(h, "car1", pos, NULL, 0), 0);
    assert_int_equal(heliod_emitter_create(h, "car2", pos, NULL, 0), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    heliod_voice_t v1 = 0, v2 = 0, v3 = 0;
    snprintf(pp.emitter, sizeof pp.emitter, "car1");
    assert_int_equal(heliod_play(h, "eng", &pp, &v1, NULL), 0);
    snprintf(pp.emitter, sizeof pp.emitter, "car2");
    assert_int_equal(heliod_play(h, "eng", &pp, &v2, NULL), 0);
    assert_int_equal(heliod_play(h, "eng", &pp, &v3, NULL), 0);
    float g1 = gain_of(h, v1);
    assert_int_equal(heliod_param_set(h, "rpm", HELIOD_PSCOPE_EMITTER, "car1", 0, 0.0f), 0);
    assert_int_equal(heliod_param_set(h, "rpm", HELIOD_PSCOPE_VOICE, NULL, v3, 0.5f), 0);
    double sets0 = th_stat(h, "param_sets");
    for (int i = 0; i < 100 && gain_of(h, v3) == g1; i++) /* the daemon's next pass */
        th_sleep_ms(10);
    th_sleep_ms(50);
    assert_float_equal(gain_of(h, v1) - g1, -20.0f, 0.01f); /* its emitter's value */
    assert_float_equal(gain_of(h, v2) - g1, 0.0f, 0.01f);   /* the global one */
    assert_float_equal(gain_of(h, v3) - g1, -10.0f, 0.01f); /* its own */
    assert_true(th_stat(h, "param_sets") >= 2 && th_stat(h, "param_values") == 2);
    (void)sets0;
    assert_int_equal(th_stat(h, "params"), 1);
    /* a blend: two layers, one STOP */
    heliod_curve_point_t none[1];
    assert_int_equal(heliod_bind(h, "eng", "rpm", HELIOD_PROP_BLEND, 0, none, 0), 0);
    heliod_voice_t b = 0;
    assert_int_equal(heliod_play(h, "eng", NULL, &b, NULL), 0);
    heliod_voice_info_t vi[16];
    size_t n = 0;
    assert_int_equal(heliod_voices(h, vi, 16, &n), 0);
    assert_int_equal(n, 5); /* three on emitters, two layers */
    assert_int_equal(heliod_stop(h, b, 0), 0);
    for (int i = 0; i < 200; i++) {
        assert_int_equal(heliod_voices(h, vi, 16, &n), 0);
        if (n == 3) break;
        th_sleep_ms(10);
    }
    assert_int_equal(n, 3);
    /* a bundle of PARAMs beside many real voices of unbound sounds: bounded
     * by what an evaluation can push (the bound voices), so it fits; a bound
     * of two per real voice made it "bundle too large" */
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    pp.gain_db = -40;
    uint32_t extra = heliod_server_info(h)->voices - 4;
    for (uint32_t i = 0; i < extra; i++)
        assert_true(heliod_play_async(h, "t", &pp, NULL, NULL) > 0);
    assert_int_equal(heliod_sync(h), 0);
    assert_true(th_stat(h, "voices_real") >= 60);
    assert_int_equal(heliod_bundle_begin(h), 0);
    for (int i = 0; i < 3; i++)
        assert_true(heliod_param_set_async(h, "rpm", HELIOD_PSCOPE_GLOBAL, NULL, 0,
                                           0.2f * (float)(i + 1)) > 0);
    uint32_t count = 0;
    assert_int_equal(heliod_bundle_end(h, &count), 0);
    assert_int_equal(count, 3);
    heliod_close(h);
}

/* A raw request's answer. */
typedef struct {
    int status, done;
    char msg[256];
} raw_t;
static void on_raw(void *user, uint32_t id, int status, const char *message, const uint8_t *body,
                   size_t len) {
    (void)id, (void)body, (void)len;
    raw_t *r = user;
    r->status = status;
    r->done = 1;
    snprintf(r->msg, sizeof r->msg, "%s", message ? message : "");
}

static raw_t raw_call(heliod_t *h, uint16_t op, const uint8_t *body, size_t len) {
    raw_t r = {0};
    assert_true(heliod_raw_async(h, op, body, len, on_raw, &r) > 0);
    assert_int_equal(heliod_sync(h), 0);
    assert_true(r.done);
    return r;
}

static void test_hostile(void **state) {
    fx_t *f = *state;
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, f->d.sock, "hostile"), 0);
    assert_int_equal(heliod_param_define(h, "rpm", 0, 8000, 800, 4000), 0);
    /* unknown names */
    assert_int_equal(heliod_param_set(h, "nosuch", HELIOD_PSCOPE_GLOBAL, NULL, 0, 1),
                     HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "no parameter named nosuch"));
    assert_int_equal(heliod_param_set(h, "rpm", HELIOD_PSCOPE_EMITTER, "ghost", 0, 1),
                     HELIOD_ENOEMITTER);
    assert_int_equal(heliod_param_set(h, "rpm", HELIOD_PSCOPE_VOICE, NULL, 12345, 1),
                     HELIOD_ENOVOICE);
    heliod_curve_point_t pts[17];
    for (int i = 0; i < 17; i++)
        pts[i] = (heliod_curve_point_t){.x = (float)i * 100.0f, .y = 0.0f};
    assert_int_equal(heliod_bind(h, "nocue", "rpm", HELIOD_PROP_GAIN, 0, pts, 2), HELIOD_ENOSOUND);
    assert_non_null(strstr(heliod_last_error(h), "no cue named nocue"));
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "x");
    snprintf(cue.name, sizeof cue.name, "eng");
    assert_int_equal(heliod_cue_define(h, &cue), 0);
    assert_int_equal(heliod_bind(h, "eng", "nosuch", HELIOD_PROP_GAIN, 0, pts, 2), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "no parameter named nosuch"));
    /* out of range values */
    assert_int_equal(heliod_param_set(h, "rpm", HELIOD_PSCOPE_GLOBAL, NULL, 0, 9000),
                     HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "[0, 8000]"));
    pts[1].x = 9000;
    assert_int_equal(heliod_bind(h, "eng", "rpm", HELIOD_PROP_GAIN, 0, pts, 2), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "outside parameter rpm's range"));
    pts[1].x = 100;
    /* a snapshot binding: the snapshot must exist, the intensity be in [0, 1] */
    assert_int_equal(heliod_bind_bus(h, "nosnap", "rpm", HELIOD_PROP_SNAPSHOT, 0, 0, pts, 2),
                     HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "no snapshot named nosnap"));
    assert_int_equal(heliod_snapshot_define(h, "hsnap", 0, 0), 0);
    pts[1].y = 2;
    assert_int_equal(heliod_bind_bus(h, "hsnap", "rpm", HELIOD_PROP_SNAPSHOT, 0, 0, pts, 2),
                     HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "snapshot intensity"));
    pts[1].y = 0;
    /* 17 points: refused by the library, and by the daemon when sent anyway */
    assert_int_equal(heliod_bind(h, "eng", "rpm", HELIOD_PROP_GAIN, 0, pts, 17), HELIOD_EINVAL);
    hl_bind_t m;
    hl_bind_init(&m);
    snprintf(m.cue, sizeof m.cue, "eng");
    snprintf(m.param, sizeof m.param, "rpm");
    m.npoints = 17;
    uint8_t buf[1024];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_bind(&w, &m);
    raw_t r = raw_call(h, HL_OP_BIND, buf, w.len);
    assert_int_equal(r.status, HELIOD_EINVAL);
    assert_non_null(strstr(r.msg, "at most 16 points"));
    /* NaN sent anyway: a value, a curve point */
    hl_param_t pm;
    hl_param_init(&pm);
    snprintf(pm.name, sizeof pm.name, "rpm");
    pm.value = NAN;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_param(&w, &pm);
    r = raw_call(h, HL_OP_PARAM, buf, w.len);
    assert_int_equal(r.status, HELIOD_EINVAL);
    assert_non_null(strstr(r.msg, "value"));
    m.npoints = 2;
    m.x[1] = NAN;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_bind(&w, &m);
    r = raw_call(h, HL_OP_BIND, buf, w.len);
    assert_int_equal(r.status, HELIOD_EINVAL);
    hl_param_def_t pd;
    hl_param_def_init(&pd);
    snprintf(pd.name, sizeof pd.name, "bad");
    pd.min = NAN;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_param_def(&w, &pd);
    r = raw_call(h, HL_OP_PARAM_DEF, buf, w.len);
    assert_int_equal(r.status, HELIOD_EINVAL);
    /* a quota flood: --client-params 8, rpm is one */
    int ok = 1, rc = 0;
    for (int i = 0; i < 100 && rc == 0; i++) {
        char name[32];
        snprintf(name, sizeof name, "flood%d", i);
        rc = heliod_param_define(h, name, 0, 1, 0, 0);
        if (rc == 0) ok++;
    }
    assert_int_equal(rc, HELIOD_EQUOTA);
    assert_int_equal(ok, 8);
    assert_non_null(strstr(heliod_last_error(h), "--client-params"));
    assert_int_equal(heliod_param_define(h, "rpm", 0, 10000, 800, 0),
                     0); /* redefining: no charge */
    /* a flood of voice values of voices that end: dropped, never refused */
    heliod_close(h);
}

static void test_heliodctl(void **state) {
    fx_t *f = *state;
    char out[4096], err[1024];
    const char *def[] = {"param-def", "tod", "0", "24", "12", "0", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, def), 0);
    const char *set[] = {"param", "tod", "18", "--at", "+20", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, set), 0);
    th_sleep_ms(200);
    /* a plain client sets the shared parameter's global value (as it plays a shared cue) */
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, f->d.sock, "game"), 0);
    assert_int_equal(heliod_param_set(h, "tod", HELIOD_PSCOPE_GLOBAL, NULL, 0, 20.0f), 0);
    assert_int_equal(heliod_param_set(h, "tod", HELIOD_PSCOPE_GLOBAL, NULL, 0, 18.0f), 0);
    heliod_close(h);
    const char *list[] = {"params", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, list), 0);
    assert_non_null(strstr(out, "tod min=0 max=24 default=12 seek=0 value=18"));
    const char *bad[] = {"param", "tod", "99", NULL};
    assert_int_not_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, bad), 0);
    assert_non_null(strstr(err, "outside parameter tod's range [0, 24]"));
    const char *bad2[] = {"bind", "c", "tod", "gain", "0:0:wobbly", NULL};
    assert_int_not_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, bad2), 0);
    assert_non_null(strstr(err, "unknown shape"));
}

/* A forked process of its own fills the parameter table (all 1,024, one
 * bound to its cue's gain) and exits; the next one gets the whole table
 * again: the daemon releases a gone process's parameters once its cue
 * (their binding) has gone. Before, the second found the table full for
 * good. It retries its first definition while the daemon has not yet seen
 * the previous one go (the sweep runs every 20 ms). */
static int fill_table(const char *sock) {
    heliod_t *h = NULL;
    if (heliod_connect(&h, sock, "short-lived") != 0) return -1;
    char name[32];
    int ok = 0, rc = HELIOD_ENOMEM;
    for (int t = 0; t < 400 && rc == HELIOD_ENOMEM; t++) {
        rc = heliod_param_define(h, "gp0", 0, 1, 0, 0);
        if (rc == HELIOD_ENOMEM) usleep(5000);
    }
    ok += rc == 0;
    for (int i = 1; i < 1024 && rc == 0; i++) {
        snprintf(name, sizeof name, "gp%d", i);
        rc = heliod_param_define(h, name, 0, 1, 0, 0);
        ok += rc == 0;
    }
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "bound");
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "none");
    heliod_curve_point_t pts[2] = {{.x = 0, .y = -20}, {.x = 1, .y = 0}};
    if (heliod_cue_define(h, &cue) != 0 ||
        heliod_bind(h, "bound", "gp0", HELIOD_PROP_GAIN, 0, pts, 2) != 0)
        ok = -2;
    heliod_close(h);
    return ok;
}

static void test_gone_process_params_freed(void **state) {
    fx_t *f = *state;
    for (int round = 0; round < 2; round++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) { /* its count says how it went: exit 0 only with all 1024 */
            int ok = fill_table(f->d.sock);
            fprintf(stderr, "round %d: %d parameters defined\n", round, ok);
            _exit(ok == 1024 ? 0 : 1);
        }
        int st = 0;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
}

static int setup_full_quota(void **state) {
    fx_t *f = calloc(1, sizeof *f);
    const char *args[] = {"--client-params", "1024", NULL};
    if (!f || th_daemon_start(&f->d, 0, args) != 0) return -1;
    *state = f;
    return 0;
}

int main(void) {
    const struct CMUnitTest render_tests[] = {
        cmocka_unit_test(test_render_gain_curve),
        cmocka_unit_test(test_render_lowpass),
        cmocka_unit_test(test_render_blend),
        cmocka_unit_test(test_render_bus_and_fx),
        cmocka_unit_test(test_render_snapshot_intensity),
        cmocka_unit_test(test_render_jump_while_seeking),
    };
    const struct CMUnitTest daemon_tests[] = {
        cmocka_unit_test_setup_teardown(test_switch_boundaries, setup_daemon, teardown_daemon),
        cmocka_unit_test_setup_teardown(test_hostile, setup_daemon, teardown_daemon),
        cmocka_unit_test_setup_teardown(test_scopes_and_layers, setup_daemon, teardown_daemon),
        cmocka_unit_test_setup_teardown(test_heliodctl, setup_daemon, teardown_daemon),
        cmocka_unit_test_setup_teardown(test_gone_process_params_freed, setup_full_quota,
                                        teardown_daemon),
    };
    int rc = cmocka_run_group_tests(render_tests, setup_dir, teardown_dir);
    return rc | cmocka_run_group_tests(daemon_tests, NULL, NULL);
}
