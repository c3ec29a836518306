/*
 * test_snapshot.c - mixer snapshots through the real daemon (protocol 1.1):
 * an 8-bus snapshot crossfade rendered offline (`heliod --render`) lands on
 * its level and ends within one block of its fade time, and glides back on
 * stop; two renders of a score that stacks snapshots are byte-identical;
 * two snapshots whose fades overlap on one bus follow the plan frame by
 * frame (the rule's value on every breakpoint, planned ahead on its frame);
 * the blending rule (priority order, intensity interpolating in dB) read
 * back from the buses' faders; the permission, quota and hostile-input
 * refusals (unknown names and buses, NaN, out-of-range values, a flood of
 * definitions charged to the process before any slot is taken, the cap on
 * the plans' scheduled commands).
 */
#include <limits.h>
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

#define RATE  48000
#define BLOCK 256 /* the mixer's block: the most a ramp may be off by */
#define START 48000
#define FADE  4800 /* 100 ms */
#define STOP  96000
#define END   150000

static char g_dir[256];

static void gen_dc(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    (void)i;
    for (int c = 0; c < ch; c++)
        out[c] = 0.05f;
}

static void path_of(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", g_dir, name);
}

static int render(const char *score, const char *out) {
    char log[300];
    path_of(log, sizeof log, "render.log");
    return th_render(score, out, log, NULL);
}

/* Overlapping fades of a stack on one bus: A (-20 dB, priority 0) and B
 * (-3 dB, priority 5) start and stop while the other still fades, so the
 * stack has breakpoints no request falls on (A's fade-in ends while B's
 * runs, B's while A fades out, A's fade-out while B's does). The model of
 * the documented rule: at each request the daemon plans every breakpoint
 * ahead, the blend of the rule (dB, priority order) on each, a straight
 * ramp (linear gain) between, continuous at the request's frame; the
 * output's frame t carries the ramp's value at t + 1 (a ramp of L frames
 * reaches its target on its last frame). Part of the stacked score, so
 * rendered twice: byte-identical, the second time with the four requests
 * sent ahead in one bundle, B's first (a plan then knows a change on a
 * later frame: each frame must still be planned as its request planned
 * it, whatever the order they came in -- a replay sends requests ahead). */
#define OV_T 4900 /* off the 256-frame period grid */
static const struct {
    int snap, at;  /* 0: A, 1: B; frame after OV_T */
    double target; /* intensity (0: stop) */
    int fade;      /* frames */
} ov_req[] = {{0, 0, 1, 9600}, {1, 4800, 1, 9600}, {0, 12000, 0, 9600}, {1, 19200, 0, 4800}};
#define OV_NREQ 4

typedef struct {
    double i0, i1;
    long f0, f1;
} ov_glide_t;

static double ov_i(const ov_glide_t *g, long t) {
    if (g->f1 <= g->f0 || t >= g->f1) return t >= g->f0 ? g->i1 : g->i0;
    return t <= g->f0 ? g->i0 : g->i0 + (g->i1 - g->i0) * (double)(t - g->f0) / (g->f1 - g->f0);
}

/* The rule's gain (linear) at t with the glides g[2]. */
static double ov_rule(const ov_glide_t *g, long t) {
    double db = 0.0;
    db += (-20.0 - db) * ov_i(&g[0], t);
    db += (-3.0 - db) * ov_i(&g[1], t);
    return pow(10.0, db / 20.0);
}

/* The model's ramp value at frame t (absolute). */
static double ov_model(long t) {
    ov_glide_t g[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    double v = 1.0; /* the base: 0 dB */
    for (int k = 0; k < OV_NREQ; k++) {
        long r = OV_T + ov_req[k].at;
        ov_glide_t *p = &g[ov_req[k].snap];
        double cur = ov_i(p, r);
        *p = (ov_glide_t){cur, ov_req[k].target, r, r + ov_req[k].fade};
        long next = k + 1 < OV_NREQ ? OV_T + ov_req[k + 1].at : LONG_MAX;
        if (t < r) return v; /* before the first request */
        /* this plan's knots: (r, v), then every glide start or end after r */
        long kf[4];
        int nk = 0;
        for (int j = 0; j < 2; j++) {
            if (g[j].f0 > r) kf[nk++] = g[j].f0;
            if (g[j].f1 > r) kf[nk++] = g[j].f1;
        }
        for (int a = 1; a < nk; a++) /* sort */
            for (int b = a; b > 0 && kf[b] < kf[b - 1]; b--) {
                long x = kf[b];
                kf[b] = kf[b - 1];
                kf[b - 1] = x;
            }
        long x0 = r;
        double y0 = v;
        long until = t < next ? t : next; /* where this plan's line is read */
        double val = y0;
        int done = 0;
        for (int j = 0; j < nk && !done; j++) {
            double y1 = ov_rule(g, kf[j]);
            if (until <= kf[j]) {
                val = y0 + (y1 - y0) * (double)(until - x0) / (double)(kf[j] - x0);
                done = 1;
            }
            x0 = kf[j];
            y0 = y1;
        }
        if (!done) val = y0;
        if (t < next) return val;
        v = val; /* the next request starts from here */
    }
    return v;
}

/* The overlap's bus, heard on the right only (panned hard right: its left
 * gain is exactly 0, the stack's eight voices are centred): right - left. */
static double ov_level(const float *x, long t) {
    return (double)x[2 * t + 1] - (double)x[2 * t];
}

static void check_overlap(const float *x) {
    double l0 = ov_level(x, OV_T - 1000), worst = 0.0, worst_brk = 0.0;
    long at = 0;
    assert_true(l0 > 0.01);
    for (long t = OV_T - 100; t < OV_T + 30000; t++) {
        double err = fabs(ov_level(x, t) / l0 - ov_model(t + 1));
        if (err > worst) {
            worst = err;
            at = t;
        }
    }
    /* the breakpoints no request falls on: the rule's value, on their frame */
    static const long brk[] = {9600, 14400, 21600, 24000};
    static const ov_glide_t fin[2][2] = {{{0, 1, 0, 9600}, {1, 0, 12000, 21600}},
                                         {{0, 1, 4800, 14400}, {1, 0, 19200, 24000}}};
    for (int k = 0; k < 4; k++) {
        ov_glide_t g[2];
        for (int j = 0; j < 2; j++)
            g[j] = brk[k] >= fin[j][1].f0 ? fin[j][1] : fin[j][0];
        double err = fabs(ov_level(x, OV_T + brk[k] - 1) / l0 - ov_rule(g, brk[k]));
        if (err > worst_brk) worst_brk = err;
    }
    print_message("overlapping fades: worst %.2e off the plan (frame %ld), %.2e off the rule "
                  "at the breakpoints\n",
                  worst, at - OV_T, worst_brk);
    assert_true(worst < 1e-5);
    assert_true(worst_brk < 1e-5);
}

/* Eight buses, a looping DC voice on each, snapshot "duck" taking all eight
 * to -20 dB over 100 ms at START and back (stop) at STOP; with stack=1 a
 * second snapshot of higher priority at half intensity with its own fade,
 * and the overlap's voice (above) on the default bus ui (the process holds
 * its eight buses) panned hard right, its four requests first
 * (the lines go in time order: the renderer sends them so); with ahead,
 * those four sent at frame 200 in one bundle, B's two first. */
static void write_score(const char *path, int stack, int ahead) {
    char dc[300];
    path_of(dc, sizeof dc, "dc.wav");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "load dc %s\nsnapshot define duck --fade 100\n", dc);
    if (stack)
        fprintf(f, "snapshot define over --priority 5 --fade 37\n"
                   "snapshot define ova\nsnapshot set ova ui gain -20\n"
                   "snapshot define ovb --priority 5\nsnapshot set ovb ui gain -3\n");
    for (int b = 0; b < 8; b++) {
        fprintf(f, "bus create b%d\nsnapshot set duck b%d gain -20\n", b, b);
        if (stack) fprintf(f, "snapshot set over b%d gain %d\n", b, -b);
    }
    if (stack) fprintf(f, "@99 play dc --bus ui --loop --fade-in 0 --pan 1\n");
    for (int b = 0; b < 8; b++)
        fprintf(f, "@%d play dc --bus b%d --loop --fade-in 0\n", 100 + b, b);
    static const char *const ovn[2] = {"ova", "ovb"};
    static const int plain[OV_NREQ] = {0, 1, 2, 3}, early[OV_NREQ] = {1, 3, 0, 2};
    if (stack && ahead) fprintf(f, "@200 {\n");
    for (int i = 0; stack && i < OV_NREQ; i++) {
        int k = ahead ? early[i] : plain[i];
        fprintf(f, "@%d snapshot %s %s --fade %g\n", OV_T + ov_req[k].at,
                ov_req[k].target > 0 ? "start" : "stop", ovn[ov_req[k].snap],
                ov_req[k].fade * 1000.0 / RATE);
    }
    if (stack && ahead) fprintf(f, "}\n");
    fprintf(f, "@%d snapshot start duck\n", START);
    if (stack) fprintf(f, "@%d snapshot start over --intensity 0.5\n", START + 1000);
    fprintf(f, "@%d snapshot stop duck\n", STOP);
    if (stack) fprintf(f, "@%d snapshot stop over --fade 250\n", STOP + 333);
    fprintf(f, "@%d end\n", END);
    fclose(f);
}

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/heliod-snapshot-XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    char p[300];
    path_of(p, sizeof p, "dc.wav");
    return th_write_sound(p, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, RATE, gen_dc, NULL);
}

static int teardown(void **state) {
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The first frame from `from` on where the left channel stays within tol of
 * `level` until `to`. */
static size_t settles_at(const float *x, size_t from, size_t to, double level, double tol) {
    size_t at = to;
    for (size_t i = to; i-- > from;) {
        if (fabs(x[2 * i] - level) > tol) break;
        at = i;
    }
    return at;
}

static void test_crossfade_8_buses(void **state) {
    (void)state;
    char score[300], out[300];
    path_of(score, sizeof score, "score.txt");
    path_of(out, sizeof out, "out.wav");
    write_score(score, 0, 0);
    assert_int_equal(render(score, out), 0);
    float *x = NULL;
    size_t n = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(out, &x, &n, &ch, &rate), 0);
    assert_int_equal(ch, 2);
    assert_int_equal(n, END);
    double l0 = x[2 * (START - 1000)], l1 = x[2 * (STOP - 1000)];
    assert_true(l0 > 0.1);
    /* the eight faders at -20 dB: a tenth of the level, to float precision */
    assert_true(fabs(l1 / l0 - 0.1) < 1e-4);
    size_t end_in = settles_at(x, START, STOP, l1, 1e-6 * l0);
    print_message("fade in: ends at %zu, fade end %d (%+ld frames)\n", end_in, START + FADE,
                  (long)end_in - (START + FADE));
    assert_true(labs((long)end_in - (START + FADE)) <= BLOCK);
    /* halfway through it is on its way, not there */
    double mid = x[2 * (START + FADE / 2)];
    assert_true(mid < l0 * 0.99 && mid > l1 * 1.01);
    size_t end_out = settles_at(x, STOP, END, l0, 1e-6 * l0);
    print_message("fade out: ends at %zu, fade end %d (%+ld frames)\n", end_out, STOP + FADE,
                  (long)end_out - (STOP + FADE));
    assert_true(labs((long)end_out - (STOP + FADE)) <= BLOCK);
    free(x);
}

static uint64_t fnv1a_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint64_t h = 1469598103934665603ull;
    int c;
    *len = 0;
    while ((c = fgetc(f)) != EOF) {
        h = (h ^ (uint64_t)(unsigned char)c) * 1099511628211ull;
        (*len)++;
    }
    fclose(f);
    return h;
}

static void test_render_identical(void **state) {
    (void)state;
    char score[300], ahead[300], a[300], b[300];
    path_of(score, sizeof score, "stack.txt");
    path_of(ahead, sizeof ahead, "ahead.txt");
    path_of(a, sizeof a, "a.wav");
    path_of(b, sizeof b, "b.wav");
    write_score(score, 1, 0);
    write_score(ahead, 1, 1);
    assert_int_equal(render(score, a), 0);
    assert_int_equal(render(ahead, b), 0);
    size_t la = 0, lb = 0;
    uint64_t ha = fnv1a_file(a, &la), hb = fnv1a_file(b, &lb);
    assert_true(la > (size_t)END * 8);
    assert_int_equal(la, lb);
    assert_true(ha == hb);
    /* and the stack is heard: bus b7 under "over" (-7 dB at half intensity
     * over duck's -20) differs from duck alone */
    float *x = NULL;
    size_t n = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(a, &x, &n, &ch, &rate), 0);
    double l0 = x[2 * (START - 1000)], l = x[2 * (STOP - 1000)];
    /* per bus k: -20 + (-k + 20) * 0.5 dB; the eight summed */
    double want = 0.0;
    for (int k = 0; k < 8; k++)
        want += pow(10.0, (-20.0 + (20.0 - k) * 0.5) / 20.0) / 8.0;
    print_message("stacked level %.6f of the dry mix, rule says %.6f\n", l / l0, want);
    assert_true(fabs(l / l0 - want) < 1e-4);
    check_overlap(x);
    free(x);
}

/* Renders score NAME.txt: "load dc ..." then the lines fmt gives; returns
 * the stereo result (free it), its length in *n. */
static float *render_dc(const char *name, size_t *n, const char *fmt, ...) {
    char score[400], out[400], dc[300], base[64];
    snprintf(base, sizeof base, "%s.txt", name);
    path_of(score, sizeof score, base);
    snprintf(base, sizeof base, "%s.wav", name);
    path_of(out, sizeof out, base);
    path_of(dc, sizeof dc, "dc.wav");
    FILE *f = fopen(score, "w");
    assert_non_null(f);
    fprintf(f, "load dc %s\n", dc);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
    assert_int_equal(render(score, out), 0);
    float *x = NULL;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(out, &x, n, &ch, &rate), 0);
    assert_int_equal(ch, 2);
    return x;
}

/* Effect parameters in snapshots, one render (G_ frames, then the shelf):
 *  - a snapshot fading a reverb's dry gain (wet 0: the output is dry x
 *    input) and, later, a compressor's threshold (knee 0, ratio 100, fast
 *    detector: on a DC at L dBFS the output is L - 0.99 (L - T) dB once
 *    T < L): both glide on the audio thread, following the fade's straight
 *    line frame by frame to its end frame, whatever the polls (they used to
 *    be set once a poll tick);
 *  - a low shelf's gain (p2) on a DC voice is the DC gain, so the level
 *    follows the blend: -12 dB at full intensity, -6 at half, back to 0
 *    after stop; fx list keeps the base 0. */
#define G_START 4800
#define G_COMP  14400
#define G_END   24000
static void check_glides(const float *x) {
    double l0 = x[2 * (G_START - 100)], worst = 0.0;
    assert_true(l0 > 0.01);
    for (int t = G_START - 100; t < G_COMP - 2400; t++) { /* dry: 1 -> 0.2 over the fade */
        double u = t < G_START ? 0.0 : t >= G_START + FADE ? 1.0 : (t - G_START) / (double)FADE;
        double err = fabs(x[2 * t] / l0 - (1.0 - 0.8 * u));
        worst = err > worst ? err : worst;
    }
    print_message("reverb dry by snapshot: worst %.2e off the fade's straight line\n", worst);
    assert_true(worst < 2.0 / FADE); /* two frames' worth of the glide */
    double c0 = x[2 * (G_COMP - 100)], cworst = 0.0;
    assert_true(c0 > 0.01);
    double lv = 20.0 * log10(c0); /* the bus's input level: uncompressed at T = 0 */
    for (int t = G_COMP + FADE / 2; t < G_END - 400; t += 16) { /* T < -20 from half-way on */
        double u = t >= G_COMP + FADE ? 1.0 : (t - G_COMP) / (double)FADE;
        double thr = -40.0 * u, want = lv - 0.99 * (lv - thr);
        double got = 20.0 * log10(x[2 * t]);
        if (thr < lv - 0.5 && fabs(got - want) > cworst) cworst = fabs(got - want);
    }
    print_message("compressor threshold by snapshot: worst %.3f dB off the fade's line\n", cworst);
    assert_true(cworst < 0.05);
}

static void test_fx_render(void **state) {
    (void)state;
    size_t n = 0;
    float *x =
        render_dc("fx", &n,
                  "bus create rv\nbus create cp\nbus create fxb\n"
                  "fx add rv reverb --preset room --wet 0 --dry 1\n"
                  "fx add cp comp --threshold 0 --ratio 100 --knee 0 --attack 0.05 --release 1\n"
                  "fx add fxb eq --type lowshelf --freq 200 --gain 0\n"
                  "snapshot define dry --fade 100\nsnapshot set dry rv fx 0 5 0.2\n"
                  "snapshot define thr --fade 100\nsnapshot set thr cp fx 0 0 -40\n"
                  "snapshot define shelf --fade 0\nsnapshot set shelf fxb fx 0 2 -12\n"
                  "@100 play dc --bus rv --loop --fade-in 0\n@%d snapshot start dry\n"
                  "@%d stop --all --fade 0\n@%d play dc --bus cp --loop --fade-in 0\n"
                  "@%d snapshot start thr\n@%d stop --all --fade 0\n"
                  "@%d play dc --bus fxb --loop --fade-in 0\n"
                  "@%d snapshot start shelf\n@%d snapshot start shelf --intensity 0.5\n"
                  "@%d snapshot stop shelf\n@%d end\n",
                  G_START, G_COMP - 2000, G_COMP - 1000, G_COMP, G_END, G_END + 1000, START,
                  START + 24000, STOP, END);
    assert_int_equal(n, END);
    check_glides(x);
    double l0 = x[2 * (START - 1000)];
    double full = 20.0 * log10(x[2 * (START + 20000)] / l0);
    double half = 20.0 * log10(x[2 * (START + 44000)] / l0);
    double back = 20.0 * log10(x[2 * (END - 1000)] / l0);
    print_message("low shelf by snapshot: %.3f dB (full), %.3f dB (half), %.3f dB (stopped)\n",
                  full, half, back);
    assert_true(fabs(full + 12.0) < 0.1);
    assert_true(fabs(half + 6.0) < 0.1);
    assert_true(fabs(back) < 0.1);
    free(x);
}

/* The gain the BUSES list shows for `bus` (the blended fader). */
static float bus_gain(heliod_t *h, const char *bus) {
    heliod_bus_info_t info[40];
    size_t n = 0;
    assert_int_equal(heliod_buses(h, info, 40, &n), 0);
    for (size_t i = 0; i < n && i < 40; i++)
        if (strcmp(info[i].name, bus) == 0) return info[i].gain_db;
    fail_msg("no bus %s", bus);
    return 0;
}

static void wait_idle(heliod_t *h, const char *name, int want_state) {
    for (int tries = 0; tries < 400; tries++) {
        heliod_snapshot_info_t s[64];
        size_t n = 0;
        assert_int_equal(heliod_snapshots(h, s, 64, &n), 0);
        for (size_t i = 0; i < n; i++)
            if (strcmp(s[i].name, name) == 0 && s[i].state == want_state) return;
        th_sleep_ms(5);
    }
    fail_msg("snapshot %s never reached state %d", name, want_state);
}

/* A bundle with SNAPSHOT requests is all or nothing: each re-blends the
 * stack (a command for every blended fader and insert, a segment per
 * breakpoint), so the bundle is bounded by what the plans can push. One
 * bus with 8 EQ inserts, three snapshots on all of them: a bundle of two
 * starts is applied whole; one of twelve starts and stops (more commands
 * than a bundle holds: before the bound counted each as one, a plan was
 * refused half way, after the ones before it had run) is refused whole,
 * EBUSY, nothing started. */
static void bundle_whole(th_fixture_t *fx) {
    heliod_t *h = th_fixture_connect(fx, "snapb");
    assert_non_null(h);
    char path[300], out[4096], err[4096];
    snprintf(path, sizeof path, "%s/bundle_setup.txt", fx->d.dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "bus create wide\n");
    for (int i = 0; i < 8; i++)
        fprintf(f, "fx add wide eq --type peak --freq %d --gain 0\n", 200 * (i + 1));
    for (int s = 0; s < 3; s++) {
        fprintf(f, "snapshot define sb%d --priority %d --fade %d\n", s, s, 100 + 50 * s);
        fprintf(f, "snapshot set sb%d wide gain -%d\n", s, 3 + s);
        for (int i = 0; i < 8; i++)
            fprintf(f, "snapshot set sb%d wide fx %d 2 -%d\n", s, i, 2 + s + i % 3);
    }
    fclose(f);
    const char *setup[] = {"batch", path, NULL};
    if (th_ctl(&fx->d, out, sizeof out, err, sizeof err, setup) != 0) fail_msg("setup: %s", err);
    snprintf(path, sizeof path, "%s/bundle_big.txt", fx->d.dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\n");
    for (int r = 0; r < 8; r++)
        for (int s = 0; s < 3; s++)
            fprintf(f, "snapshot %s sb%d --fade %d\n", r & 1 ? "stop" : "start", s,
                    40 + 30 * r + 10 * s);
    fprintf(f, "}\n");
    fclose(f);
    const char *big[] = {"batch", path, NULL};
    int rc = th_ctl(&fx->d, out, sizeof out, err, sizeof err, big);
    print_message("a bundle of 24 snapshot starts/stops: exit %d: %s", rc, err);
    assert_true(rc != 0);
    heliod_snapshot_info_t si[64];
    size_t ns = 0;
    assert_int_equal(heliod_snapshots(h, si, 64, &ns), 0);
    for (size_t i = 0; i < ns; i++) /* none of it ran */
        if (strncmp(si[i].name, "sb", 2) == 0 && si[i].state != HELIOD_SNAP_IDLE)
            fail_msg("%s started by a refused bundle (state %d)", si[i].name, si[i].state);
    assert_non_null(strstr(err, "bundle too large"));
    snprintf(path, sizeof path, "%s/bundle_small.txt", fx->d.dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\nsnapshot start sb0 --fade 0\nsnapshot start sb1 --fade 0\n}\n");
    fclose(f);
    const char *small[] = {"batch", path, NULL};
    if (th_ctl(&fx->d, out, sizeof out, err, sizeof err, small) != 0)
        fail_msg("a bundle of two starts: %s", err);
    assert_int_equal(heliod_snapshots(h, si, 64, &ns), 0);
    int on = 0;
    for (size_t i = 0; i < ns; i++)
        on += (strcmp(si[i].name, "sb0") == 0 || strcmp(si[i].name, "sb1") == 0) &&
              si[i].state != HELIOD_SNAP_IDLE;
    assert_int_equal(on, 2);
    f = fopen(path, "w"); /* gone again: the stack is the rest's */
    assert_non_null(f);
    fprintf(f, "snapshot remove sb0\nsnapshot remove sb1\nsnapshot remove sb2\nbus remove wide\n");
    fclose(f);
    if (th_ctl(&fx->d, out, sizeof out, err, sizeof err, small) != 0) fail_msg("cleanup: %s", err);
    heliod_close(h);
}

static void test_rule_and_refusals(void **state) {
    th_fixture_t *fx = *state;
    bundle_whole(fx); /* (on the fresh daemon: no snapshot schedule pending) */
    heliod_t *h = th_fixture_connect(fx, "snap");
    assert_non_null(h);
    assert_int_equal(heliod_bus_create(h, "mine", ""), 0);
    assert_int_equal(heliod_snapshot_define(h, "low", 0, 0), 0);
    assert_int_equal(heliod_snapshot_set(h, "low", "mine", HELIOD_SNAP_GAIN, 0, 0, -20.0f), 0);
    assert_int_equal(heliod_snapshot_define(h, "high", 10, 0), 0);
    assert_int_equal(heliod_snapshot_set(h, "high", "mine", HELIOD_SNAP_GAIN, 0, 0, 0.0f), 0);
    assert_int_equal(heliod_snapshot_start(h, "low", 0, 1.0f), 0);
    assert_int_equal(heliod_snapshot_start(h, "high", 0, 0.5f), 0);
    wait_idle(h, "high", HELIOD_SNAP_ON);
    /* high (priority 10) at 0.5 goes half way from low's -20 toward 0 */
    assert_true(fabsf(bus_gain(h, "mine") - -10.0f) < 0.01f);
    /* re-prioritised below low: low overrides at intensity 1 */
    assert_int_equal(heliod_snapshot_define(h, "high", -10, 0), 0);
    assert_true(fabsf(bus_gain(h, "mine") - -20.0f) < 0.01f);
    /* a client fader change is the base under the blend */
    assert_int_equal(heliod_bus_gain(h, "mine", -6.0f, 0), 0);
    assert_true(fabsf(bus_gain(h, "mine") - -20.0f) < 0.01f);
    assert_int_equal(heliod_snapshot_stop(h, "low", 0), 0);
    wait_idle(h, "low", HELIOD_SNAP_IDLE);
    /* high alone at 0.5: from the base -6 half way to 0 */
    assert_true(fabsf(bus_gain(h, "mine") - -3.0f) < 0.01f);
    assert_int_equal(heliod_snapshot_remove(h, "high"), 0);

    /* hostile inputs: clear errors */
    assert_int_equal(heliod_snapshot_start(h, "nosuch", -1, 1.0f), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "no snapshot named nosuch"));
    assert_int_equal(heliod_snapshot_set(h, "low", "nobus", HELIOD_SNAP_GAIN, 0, 0, 0),
                     HELIOD_ENOBUS);
    assert_int_equal(heliod_snapshot_set(h, "low", "mine", HELIOD_SNAP_GAIN, 0, 0, NAN),
                     HELIOD_EINVAL);
    assert_int_equal(heliod_snapshot_set(h, "low", "mine", HELIOD_SNAP_GAIN, 0, 0, 30.0f),
                     HELIOD_EINVAL);
    assert_int_equal(heliod_snapshot_set(h, "low", "mine", HELIOD_SNAP_FX, 0, 0, 100.0f),
                     HELIOD_ENOFX);
    assert_int_equal(heliod_snapshot_start(h, "low", -1, NAN), HELIOD_EINVAL);
    assert_int_equal(heliod_snapshot_start(h, "low", -1, 1.5f), HELIOD_EINVAL);
    assert_int_equal(heliod_snapshot_start(h, "low", 1e9f, 1.0f), HELIOD_EINVAL);
    /* the default buses are the daemon's: a plain client cannot snapshot them */
    assert_int_equal(heliod_snapshot_set(h, "low", "music", HELIOD_SNAP_GAIN, 0, 0, -6),
                     HELIOD_EPERM);
    /* a flood of starts and stops: each is taken or refused EBUSY (nothing
     * changed), and once it settles the fader is its base again (1000 of
     * them: the scheduled flood below pays for the rest) */
    int busy = 0;
    for (int i = 0; i < 1000; i++) {
        int rc =
            (i & 1) ? heliod_snapshot_stop(h, "low", 0) : heliod_snapshot_start(h, "low", 5, 1);
        assert_true(rc == 0 || rc == HELIOD_EBUSY);
        busy += rc == HELIOD_EBUSY;
    }
    assert_int_equal(heliod_snapshot_stop(h, "low", 0), 0);
    wait_idle(h, "low", HELIOD_SNAP_IDLE);
    assert_true(fabsf(bus_gain(h, "mine") - -6.0f) < 0.01f);
    print_message("flood of 1000 starts/stops: %d refused EBUSY\n", busy);
    /* a flood of definitions: the process's quota (16) is refused before a slot */
    int ok = 0, quota = 0;
    for (int i = 0; i < 40; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "flood%d", i);
        int rc = heliod_snapshot_define(h, nm, 0, 0);
        ok += rc == 0;
        quota += rc == HELIOD_EQUOTA;
    }
    print_message("flood: %d defined, %d refused EQUOTA\n", ok, quota);
    assert_int_equal(ok + 1, 16); /* with low (high was removed) */
    assert_int_equal(quota, 40 - ok);
    /* the plans' scheduled commands are capped (HLD_SNAP_SCHED_MAX, 1024):
     * starts scheduled a frame apart a minute ahead (none falls due
     * meanwhile, however slow the machine) each keep the one
     * before's first command (on its frame), until the cap refuses one,
     * EBUSY naming it; the mix is unchanged by the refused one */
    heliod_clock_t k;
    assert_int_equal(heliod_clock(h, &k), 0);
    int taken = 0, rc = 0;
    for (int i = 0; i < 1100 && rc == 0; i++) {
        heliod_at_frame(h, k.frame + 60 * RATE + (uint64_t)i);
        rc = heliod_snapshot_start(h, "low", 1000, (i & 1) ? 1.0f : 0.5f);
        taken += rc == 0;
    }
    heliod_at_frame(h, 0);
    print_message("scheduled starts: %d taken, then %d: %s\n", taken, rc, heliod_last_error(h));
    assert_int_equal(rc, HELIOD_EBUSY);
    assert_non_null(strstr(heliod_last_error(h), "snapshot schedule full"));
    assert_true(taken >= 1000 && taken <= 1024);
    heliod_snapshot_info_t si[64];
    size_t ns = 0;
    assert_int_equal(heliod_snapshots(h, si, 64, &ns), 0);
    for (size_t i = 0; i < ns; i++) /* the last taken start's target, not the refused one's */
        if (strcmp(si[i].name, "low") == 0)
            assert_true(si[i].target == (((taken - 1) & 1) ? 1.0f : 0.5f));
    heliod_close(h);
}

static int setup_daemon(void **state) {
    return th_fixture_start(state, 0, NULL);
}

static char g_sheet[64];

/* A cue sheet's [snapshot NAME] section: the daemon's (--cues), on the
 * default buses; a bad section names its line and changes nothing. */
static int setup_sheet(void **state) {
    snprintf(g_sheet, sizeof g_sheet, "/tmp/heliod-snapsheet-XXXXXX");
    int fd = mkstemp(g_sheet);
    if (fd < 0) return -1;
    const char text[] = "[snapshot pause]\npriority = 3\nfade = 0\ngain = music -12\n"
                        "mute = sfx\n\n[category ui]\nmax-instances = 2\n";
    if (write(fd, text, sizeof text - 1) != (ssize_t)(sizeof text - 1)) return -1;
    close(fd);
    const char *args[] = {"--cues", g_sheet, NULL};
    return th_fixture_start(state, 0, args);
}

static int teardown_sheet(void **state) {
    unlink(g_sheet);
    return th_fixture_teardown(state);
}

static void test_cue_sheet(void **state) {
    th_fixture_t *fx = *state;
    heliod_t *h = th_fixture_connect_control(fx, "sheet");
    assert_non_null(h);
    heliod_snapshot_info_t s[8];
    size_t n = 0;
    assert_int_equal(heliod_snapshots(h, s, 8, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(s[0].name, "pause");
    assert_int_equal(s[0].priority, 3);
    assert_int_equal(s[0].settings, 2);
    assert_int_equal(s[0].owner, 0);
    assert_int_equal(heliod_snapshot_start(h, "pause", -1, 1.0f), 0);
    wait_idle(h, "pause", HELIOD_SNAP_ON);
    assert_true(fabsf(bus_gain(h, "music") - -12.0f) < 0.01f);
    assert_true(bus_gain(h, "sfx") <= -144.0f);
    /* a section naming a bus that does not exist: refused with its line */
    char bad[64];
    snprintf(bad, sizeof bad, "/tmp/heliod-snapbad-XXXXXX");
    int fd = mkstemp(bad);
    assert_true(fd >= 0);
    const char text[] = "[snapshot other]\ngain = music -3\nfx = nosuch 0 0 1\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    assert_int_equal(heliod_cues_load(h, bad, NULL, NULL), HELIOD_ENOBUS);
    assert_non_null(strstr(heliod_last_error(h), ":3: snapshot other: no bus named nosuch"));
    unlink(bad);
    assert_int_equal(heliod_snapshots(h, s, 8, &n), 0);
    assert_int_equal(n, 1); /* nothing of it was defined */
    heliod_close(h);
}

int main(void) {
    const struct CMUnitTest render_tests[] = {
        cmocka_unit_test(test_crossfade_8_buses),
        cmocka_unit_test(test_render_identical),
        cmocka_unit_test(test_fx_render),
    };
    const struct CMUnitTest live_tests[] = {
        cmocka_unit_test_setup_teardown(test_rule_and_refusals, setup_daemon, th_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_cue_sheet, setup_sheet, teardown_sheet),
    };
    int rc = cmocka_run_group_tests(render_tests, setup, teardown);
    return rc | cmocka_run_group_tests(live_tests, NULL, NULL);
}
