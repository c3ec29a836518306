/*
 * music_flow.c - transitions at a marker and at the end of a pass, a
 * transition segment, tails; layers driven by one parameter; a gone
 * process's [music] sections (test_music.c runs them).
 *
 * render_when: three looping tracks and a one-shot segment of distinct DC
 * levels at 8 kHz (a bar at 120 BPM is 16000 frames). a starts at 1000; a
 * request at 10000 for b (`end`) waits for a's pass end (its 40000 frames)
 * at 41000; one at 50000 for c (`marker segment:seg`) waits for b's next
 * WAV cue point (b's markers at 7000 and 23000: 64000), plays the segment
 * from there and c when it ends (6000 frames: 70000); one at 75000 for a
 * (`bar xfade:0 tail`) starts a on c's next bar (86000) while c rings out to
 * its pass end (20000 frames: 90000). Each level holds exactly on its
 * frames (the cuts' old tracks leave with the mixer's declick ramp).
 *
 * render_layers: a [music] state with two layers (layer = STATE CUE) whose
 * cues bind their gain to the parameter `intensity`; the three stems
 * (different periodic signals, looping every bar) start on one frame. In
 * three windows, at intensity 0, 0.5 and 1 (scheduled PARAMs), a
 * least-squares fit of the output by the three stems at their common
 * position leaves no residual (they are sample-locked, through the loop
 * passes) and gives the layers' gains of their curves; a transition to a
 * plain state on the next bar takes the layers away with the track.
 *
 * reclaim_music: a client process loads a bank whose cue sheet has 16
 * [music] sections (the daemon's cap), starts one, leaves a transition
 * waiting, exits: its sections are reclaimed (a MUSIC of one is EINVAL, no
 * music by that name) and a second process's 16 sections fit.
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
#include "music_test.h"

char g_dir[256];

void path_of(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", g_dir, name);
}

int render(const char *score, const char *out, const char *events) {
    char log[300];
    path_of(log, sizeof log, "render.log");
    const char *const args[] = {"--render-events", events, "--rate", "8000", NULL};
    return th_render(score, out, log, args);
}

int same_files(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int x = fgetc(fa), y = fgetc(fb);
        if (x != y) same = 0;
        if (x == EOF || y == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

float *render_read(const char *score, const char *out, const char *out2, const char *ev,
                   size_t min_frames) {
    assert_int_equal(render(score, out, ev), 0);
    if (out2) {
        assert_int_equal(render(score, out2, ev), 0);
        assert_true(same_files(out, out2));
    }
    float *x = NULL;
    size_t n = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(out, &x, &n, &ch, &rate), 0);
    assert_int_equal(ch, 2);
    assert_true(n >= min_frames);
    return x;
}

void gen_dc(void *user, uint32_t i, float *out, int ch) {
    (void)i;
    for (int c = 0; c < ch; c++)
        out[c] = *(const float *)user;
}

/* A mono float WAV of `frames` at the DC level lv, with cue points at pos[0..n). */
static void write_dc(const char *path, uint32_t frames, float lv, const uint32_t *pos, int n) {
    SF_INFO si = {.samplerate = RATE, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &si);
    assert_non_null(sf);
    if (n) {
        SF_CUES cues;
        memset(&cues, 0, sizeof cues);
        cues.cue_count = (uint32_t)n;
        for (int i = 0; i < n; i++) {
            cues.cue_points[i].indx = i + 1;
            cues.cue_points[i].position = pos[i];
            cues.cue_points[i].fcc_chunk = 0x61746164; /* "data" */
            cues.cue_points[i].sample_offset = pos[i];
        }
        assert_int_equal(sf_command(sf, SFC_SET_CUE, &cues, sizeof cues), SF_TRUE);
    }
    float buf[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = lv;
    for (uint32_t done = 0; done < frames;) {
        uint32_t k = frames - done < 1000 ? frames - done : 1000;
        assert_int_equal(sf_writef_float(sf, buf, k), k);
        done += k;
    }
    assert_int_equal(sf_close(sf), 0);
}

/* Every left sample of [lo, hi) is want (1e-6). */
static void level(const float *x, size_t lo, size_t hi, float want, const char *what) {
    for (size_t i = lo; i < hi; i++)
        if (fabsf(x[2 * i] - want) > 1e-6f)
            fail_msg("%s: frame %zu is %g, want %g", what, i, (double)x[2 * i], (double)want);
}

void render_when(void **state) {
    (void)state;
    static const char *const names[8] = {"w_a.wav",   "w_b.wav",  "w_c.wav",  "w_s.wav",
                                         "when.cues", "when.txt", "when.wav", "when.ev"};
    char p[8][300];
    for (int i = 0; i < 8; i++)
        path_of(p[i], sizeof p[i], names[i]);
    char *wa = p[0], *wb = p[1], *wc = p[2], *ws = p[3], *cues = p[4], *score = p[5], *out = p[6],
         *ev = p[7];
    static const uint32_t marks[2] = {7000, 23000};
    write_dc(wa, 40000, 0.125f, NULL, 0);
    write_dc(wb, 30000, 0.25f, marks, 2);
    write_dc(wc, 20000, 0.375f, NULL, 0);
    write_dc(ws, 6000, 0.0625f, NULL, 0);
    FILE *f = fopen(cues, "w");
    assert_non_null(f);
    fprintf(f, "[cue a_cue]\nsound = w_a\nloop = yes\ntempo = 120 4/4\n"
               "[cue b_cue]\nsound = w_b\nloop = yes\n"
               "[cue c_cue]\nsound = w_c\nloop = yes\ntempo = 120 4/4\n"
               "[cue seg_cue]\nsound = w_s\n"
               "[music flow]\nstate = a a_cue\nstate = b b_cue\nstate = c c_cue\n"
               "transition = a b end xfade:0\n"
               "transition = b c marker segment:seg_cue\n"
               "transition = c a bar xfade:0 tail\n");
    fclose(f);
    f = fopen(score, "w");
    assert_non_null(f);
    fprintf(f, "load w_a %s\nload w_b %s\nload w_c %s\nload w_s %s\ncues load %s\n", wa, wb, wc, ws,
            cues);
    fprintf(f, "@1000 music flow --to a\n@10000 music flow --to b\n@50000 music flow --to c\n"
               "@75000 music flow --to a\n@100000 end\n");
    fclose(f);
    float *x = render_read(score, out, NULL, ev, 100000);
    float a = x[2 * 2000]; /* a's level out; the others are its multiples */
    assert_true(a > 0.0f);
    level(x, 0, 1000, 0.0f, "before a");
    level(x, 1200, 41000, a, "a until its pass ends (its cue's fade-in before)");
    assert_true(x[2 * 41000] >= 2.0f * a - 1e-6f);
    level(x, 41200, 64000, 2.0f * a, "b until its next marker");
    level(x, 64200, 70000, 0.5f * a, "the segment");
    level(x, 70000, 86000, 3.0f * a, "c until its next bar");
    level(x, 86000, 90000, 4.0f * a, "a over c's tail");
    level(x, 90200, 100000, a, "a once c's pass ended");
    printf("render_when: a end@41000, b marker@64000, segment 64000..70000, c bar@86000, tail "
           "to 90000: each level exact on its frames\n");
    free(x);
}

/* ---- layers ---- */

#define LAYER_LEN 16000u /* a bar: the stems loop every bar */
static float stem(int k, uint32_t i) {
    i %= LAYER_LEN;
    if (k == 0) return 0.2f * sinf(2.0f * (float)M_PI * (float)i / 400.0f);
    if (k == 1) return 0.2f * sinf(2.0f * (float)M_PI * (float)i / 123.0f + 0.3f);
    return 0.2f * ((float)(i % 77u) / 77.0f - 0.5f);
}
static void gen_stem(void *user, uint32_t i, float *out, int ch) {
    for (int c = 0; c < ch; c++)
        out[c] = stem(*(const int *)user, i);
}

/* Least squares of x[lo, hi) (left) by the three stems from frame s: g[3]
 * and the residual's RMS over the signal's. */
static double fit(const float *x, size_t lo, size_t hi, size_t s, double g[3]) {
    double A[3][4] = {{0}};
    for (size_t i = lo; i < hi; i++) {
        double b[3];
        for (int k = 0; k < 3; k++)
            b[k] = stem(k, (uint32_t)(i - s));
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                A[r][c] += b[r] * b[c];
            A[r][3] += b[r] * x[2 * i];
        }
    }
    for (int p = 0; p < 3; p++) /* Gauss-Jordan: the matrix is positive definite */
        for (int r = 0; r < 3; r++) {
            if (r == p) continue;
            double m = A[r][p] / A[p][p];
            for (int c = 0; c < 4; c++)
                A[r][c] -= m * A[p][c];
        }
    for (int k = 0; k < 3; k++)
        g[k] = A[k][3] / A[k][k];
    double e = 0, t = 0;
    for (size_t i = lo; i < hi; i++) {
        double y = 0;
        for (int k = 0; k < 3; k++)
            y += g[k] * stem(k, (uint32_t)(i - s));
        e += (x[2 * i] - y) * (x[2 * i] - y);
        t += (double)x[2 * i] * x[2 * i];
    }
    return sqrt(e / t);
}

void render_layers(void **state) {
    (void)state;
    char w[3][300], wc[300], cues[300], score[300], out[300], out2[300], ev[300];
    static const int ks[3] = {0, 1, 2};
    for (int k = 0; k < 3; k++) {
        char nm[32];
        snprintf(nm, sizeof nm, "stem%d.wav", k);
        path_of(w[k], sizeof w[k], nm);
        assert_int_equal(th_write_sound(w[k], SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, LAYER_LEN,
                                        gen_stem, (void *)&ks[k]),
                         0);
    }
    path_of(wc, sizeof wc, "lcalm.wav");
    write_dc(wc, 20000, 0.125f, NULL, 0);
    path_of(cues, sizeof cues, "layers.cues");
    path_of(score, sizeof score, "layers.txt");
    path_of(out, sizeof out, "layers.wav");
    path_of(out2, sizeof out2, "layers2.wav");
    path_of(ev, sizeof ev, "layers.ev");
    FILE *f = fopen(cues, "w");
    assert_non_null(f);
    fprintf(f, "[parameter intensity] 0 1 0 0\n"
               "[cue base]\nsound = stem0\nloop = yes\ntempo = 120 4/4\n"
               "[cue lay1]\nsound = stem1\nloop = yes\nbind = intensity gain 0:-40 1:0\n"
               "[cue lay2]\nsound = stem2\nloop = yes\nbind = intensity gain 0:0 1:-12\n"
               "[cue calm]\nsound = lcalm\nloop = yes\n"
               "[music lay]\nstate = main base\nstate = calm calm\n"
               "layer = main lay1\nlayer = main lay2\n"
               "transition = main calm bar xfade:0\n");
    fclose(f);
    f = fopen(score, "w");
    assert_non_null(f);
    fprintf(f, "load stem0 %s\nload stem1 %s\nload stem2 %s\nload lcalm %s\ncues load %s\n", w[0],
            w[1], w[2], wc, cues);
    fprintf(f, "@1000 music lay --to main\n@24000 param intensity 0.5\n"
               "@48000 param intensity 1\n@60000 music lay --to calm\n@72000 end\n");
    fclose(f);
    float *x = render_read(score, out, out2, ev, 72000);
    static const struct {
        size_t lo, hi;
        double in;
    } win[3] = {{4000, 20000, 0.0}, {30000, 46000, 0.5}, {52000, 60000, 1.0}};
    for (int k = 0; k < 3; k++) {
        double g[3];
        double res = fit(x, win[k].lo, win[k].hi, 1000, g);
        double w1 = pow(10.0, (-40.0 + 40.0 * win[k].in) / 20.0);
        double w2 = pow(10.0, -12.0 * win[k].in / 20.0);
        printf("render_layers: intensity %.1f: gains %.5f %.5f %.5f (layers / base %.5f %.5f, "
               "curves %.5f %.5f), residual %.2e\n",
               win[k].in, g[0], g[1], g[2], g[1] / g[0], g[2] / g[0], w1, w2, res);
        assert_true(res < 1e-4);
        assert_true(fabs(g[1] / g[0] / w1 - 1.0) < 0.01 && fabs(g[2] / g[0] / w2 - 1.0) < 0.01);
    }
    /* the next bar after 60000 is 65000: calm alone (the layers went with the track) */
    level(x, 65200, 72000, x[2 * 66000], "calm, no layer");
    assert_true(x[2 * 66000] > 0.0f);
    free(x);
}

/* ---- a gone process's sections ---- */

typedef struct {
    const char *sock, *man, *prefix;
} child_t;

/* In a child process: a plain client loads the bank, starts `PREFIX0` and
 * leaves a transition waiting (a bar at 15 BPM is 16 s). Exit status: 0 ok,
 * 1 + the step that failed. */
static int child(const child_t *c) {
    heliod_t *h = NULL;
    if (heliod_connect(&h, c->sock, "musician") != 0) return 1;
    heliod_bank_info_t bi;
    if (heliod_bank_load(h, c->man, &bi) != 0) return 2;
    for (int i = 0; i < 3000; i++) {
        heliod_bank_info_t b[4];
        size_t nb = 0;
        if (heliod_banks(h, b, 4, &nb) != 0) return 3;
        for (size_t k = 0; k < nb; k++)
            if (!strcmp(b[k].name, c->prefix)) {
                if (b[k].state == HELIOD_BANK_LOADING) continue;
                if (b[k].state != HELIOD_BANK_LOADED) {
                    fprintf(stderr, "# bank %s: %s\n", c->prefix, b[k].error);
                    return 4;
                }
                char m[32];
                snprintf(m, sizeof m, "%s0", c->prefix);
                uint64_t fr = 0, v = 0;
                if (heliod_music(h, m, "s", &fr, &v) != 0 || !v) return 5;
                if (heliod_music(h, m, "t", &fr, &v) != 0 || v) return 6;
                heliod_close(h);
                return 0;
            }
        th_sleep_ms(10);
    }
    return 7;
}

static int run_child(const child_t *c) {
    pid_t pid = fork();
    if (pid == 0) _exit(child(c));
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

static void write_bank(const char *dir, const char *prefix, char *man, size_t cap) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s.cues", dir, prefix);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "[cue %s_c]\nsound = %s_s\nloop = yes\ntempo = 15 4/4\n", prefix, prefix);
    for (int i = 0; i < 16; i++)
        fprintf(f, "[music %s%d]\nstate = s %s_c\nstate = t %s_c\ntransition = s t bar xfade:0\n",
                prefix, i, prefix, prefix);
    fclose(f);
    snprintf(man, cap, "%s/%s.bank", dir, prefix);
    assert_non_null(f = fopen(man, "w"));
    fprintf(f, "name = %s\ncues = %s.cues\n[sound %s_s]\npath = rm.wav\n", prefix, prefix, prefix);
    fclose(f);
}

void reclaim_music(void **state) {
    th_fixture_t *f = *state;
    char wav[400], m1[600], m2[600];
    snprintf(wav, sizeof wav, "%s/rm.wav", f->d.dir);
    write_dc(wav, 8000, 0.01f, NULL, 0);
    write_bank(f->d.dir, "ra", m1, sizeof m1);
    write_bank(f->d.dir, "rb", m2, sizeof m2);
    child_t c1 = {f->d.sock, m1, "ra"}, c2 = {f->d.sock, m2, "rb"};
    assert_int_equal(run_child(&c1), 0);
    /* the operator sees a gone process's shared names: not its music, reclaimed */
    struct heliod *op = th_fixture_connect_control(f, "op");
    uint64_t fr = 0, v = 0;
    int rc = 0;
    for (int i = 0; i < 200 && (rc = heliod_music(op, "ra3", "s", &fr, &v)) == 0; i++)
        th_sleep_ms(10); /* the close reaches the daemon */
    assert_int_equal(rc, HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(op), "no music named ra3"));
    /* its 16 sections gave their room back: another process's 16 fit */
    assert_int_equal(run_child(&c2), 0);
    heliod_close(op);
}
