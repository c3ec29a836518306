/*
 * test_vm.c - voice management end to end on the real daemon (null driver,
 * --record): 4096 logical voices on 64 real ones with the listener moving,
 * a probe voice that goes virtual and comes back at the position it would
 * have reached, no clicks in the output; an emitter carrying 100 voices moved
 * by one command and destroyed; cues, categories, cue sheets, group pause and
 * emitters through heliodctl as a user types them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"

#define RATE      48000
#define LOOP      48000 /* the probe's loop: one tick a second */
#define TICK_LEN  480   /* a 10 ms 1 kHz burst at the loop's start */
#define BLOCK     256
#define N_FILLERS 4095

typedef struct {
    th_daemon_t d;
    char probe[400], filler[400];
} fixture_t;

static void gen_probe(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    float v = 0.0f;
    if (i < TICK_LEN) {
        double w = 0.5 - 0.5 * cos(2.0 * M_PI * i / TICK_LEN); /* Hann: no click of its own */
        v = (float)(0.5 * w * sin(2.0 * M_PI * 1000.0 * i / RATE));
    }
    for (int c = 0; c < ch; c++)
        out[c] = v;
}

static void gen_filler(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    float v = (float)(0.25 * sin(2.0 * M_PI * 150.0 * i / RATE)); /* 150 cycles: a seamless loop */
    for (int c = 0; c < ch; c++)
        out[c] = v;
}

static int setup(void **state) {
    const char *args[] = {"--voices", "64",  "--virtual-voices", "4096",
                          "--period", "256", "--client-voices",  "4096",
                          NULL};
    if (th_fixture_alloc(state, sizeof(fixture_t), 1, args) != 0) return -1;
    fixture_t *f = *state;
    snprintf(f->probe, sizeof f->probe, "%s/probe.wav", f->d.dir);
    snprintf(f->filler, sizeof f->filler, "%s/filler.wav", f->d.dir);
    if (th_write_sound(f->probe, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, LOOP, gen_probe, NULL) !=
            0 ||
        th_write_sound(f->filler, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, RATE, gen_filler,
                       NULL) != 0)
        return -1;
    return 0;
}

static int teardown(void **state) {
    fixture_t *f = *state;
    if (!f) return 0;
    th_daemon_stop(&f->d, NULL);
    th_daemon_cleanup(&f->d);
    free(f);
    return 0;
}

static heliod_t *connect_or_fail(fixture_t *f) {
    return th_connect(&f->d, "test-vm", 0);
}

typedef struct {
    heliod_voice_t probe;
    int virt, real;
} events_t;

static void on_event(void *user, const heliod_event_t *ev) {
    events_t *e = user;
    if (ev->voice != e->probe) return;
    if (ev->type == HELIOD_EVENT_VIRTUAL) e->virt++;
    if (ev->type == HELIOD_EVENT_REAL) e->real++;
}

static void move_listener(heliod_t *h, float x) {
    heliod_listener_t l = {.mask = HELIOD_LIS_POS, .pos = {x, 0, 0}};
    assert_int_equal(heliod_set_listener(h, &l), 0);
}

/* Onsets of the probe's ticks: the 1 kHz burst moves the output by far more
 * per sample than the 150 Hz fillers can (|x[n] - x[n-1]|). */
static size_t find_ticks(const float *x, size_t frames, size_t *out, size_t cap) {
    size_t n = 0, last = 0;
    for (size_t i = 1; i < frames && n < cap; i++) {
        float d = fabsf(x[2 * i] - x[2 * (i - 1)]) + fabsf(x[2 * i + 1] - x[2 * (i - 1) + 1]);
        if (d > 0.02f && (n == 0 || i - last > RATE / 2)) {
            out[n++] = i;
            last = i;
        }
    }
    return n;
}

static void test_4096_logical_on_64_real(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    events_t ev = {0};
    heliod_set_event_callback(h, on_event, &ev);
    assert_int_equal(heliod_subscribe(h, HELIOD_SUB_VIRTUAL), 0);
    assert_int_equal(heliod_load(h, "probe", f->probe, 0, NULL), 0);
    assert_int_equal(heliod_load(h, "filler", f->filler, 0, NULL), 0);

    /* the probe at the origin, where the listener starts: the loudest voice */
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D;
    p.max_distance = 100;
    p.priority = 10;
    assert_int_equal(heliod_play(h, "probe", &p, &ev.probe, NULL), 0);
    /* fillers: half around the origin, half around x = 150, all within reach
     * of both listener positions (max distance 1000) but quiet */
    for (int i = 0; i < N_FILLERS; i++) {
        heliod_play_params_t q;
        heliod_play_params_init(&q);
        q.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D;
        q.gain_db = -12;
        double a = i * 2.399963; /* golden angle: spread evenly */
        float r = 8.0f + (float)(i % 40);
        q.pos[0] = (i % 2 ? 150.0f : 0.0f) + r * (float)cos(a);
        q.pos[2] = r * (float)sin(a);
        q.max_distance = 1000;
        assert_true(heliod_play_async(h, "filler", &q, NULL, NULL) > 0);
    }
    assert_int_equal(heliod_sync(h), 0);
    assert_true(th_stat(h, "voices_active") == 4096);
    assert_true(th_stat(h, "voices_real") <= 64);
    assert_true(th_stat(h, "voices_virtual") >= 4096 - 64);

    th_sleep_ms(1600); /* ticks while real */
    move_listener(h, 150);
    th_sleep_ms(1700); /* the probe is beyond its max distance: virtual */
    heliod_dispatch(h);
    size_t nv = 0;
    int virt_state = 0;
    {
        heliod_voice_info_t *all = calloc(1024, sizeof *all);
        assert_true(heliod_voices(h, all, 1024, &nv) >= 0);
        for (size_t i = 0; i < nv; i++)
            if (all[i].voice == ev.probe) virt_state = all[i].state == HELIOD_VOICE_VIRTUAL;
        free(all);
    }
    assert_true(virt_state);
    move_listener(h, 0);
    th_sleep_ms(2300); /* real again: at least two ticks */
    heliod_dispatch(h);
    print_message("probe: %d virtual, %d real events; virtualised %.0f realised %.0f xruns %.0f\n",
                  ev.virt, ev.real, th_stat(h, "voices_virtualised"), th_stat(h, "voices_realised"),
                  th_stat(h, "xruns"));
    assert_true(ev.virt >= 1 && ev.real >= 1);
    assert_true(th_stat(h, "voices_realised") > 0);
    assert_true(th_deadlines_ok(h, 0, 0));
    heliod_close(h);

    size_t frames = 0;
    float *x = th_stop_read_stereo(&f->d, &frames, 0);

    size_t ticks[64];
    size_t n = find_ticks(x, frames, ticks, 64);
    assert_true(n >= 3);
    /* every tick, before and after the virtual stretch, sits on the probe's
     * own grid: a voice that came back at the wrong place (restarted, or
     * frozen while virtual) would be off by up to a second */
    size_t gap = 0, before = 0, after = 0;
    for (size_t i = 0; i < n; i++) {
        long off = (long)((ticks[i] - ticks[0]) % LOOP);
        if (off > LOOP / 2) off -= LOOP;
        print_message("tick %zu at %zu (%+ld frames from the grid)\n", i, ticks[i], off);
        assert_true(labs(off) <= BLOCK);
        if (i && ticks[i] - ticks[i - 1] > LOOP + LOOP / 2) gap = i;
    }
    assert_true(gap > 0); /* the silent (virtual) stretch is there ... */
    before = gap;
    after = n - gap;
    assert_true(before >= 1 && after >= 1); /* ... with ticks on both sides */

    /* no clicks: the largest step between samples is the probe's own burst
     * (0.5 x 2 pi 1000 / 48000 = 0.065 at gain 1) plus the fillers' slope */
    float step = 0.0f;
    for (size_t i = 1; i < frames; i++)
        for (int c = 0; c < 2; c++) {
            float d = fabsf(x[2 * i + c] - x[2 * (i - 1) + c]);
            if (d > step) step = d;
        }
    print_message("largest step %.4f over %zu frames\n", step, frames);
    assert_true(step < 0.1f);
    free(x);
}

static void test_emitter_100_voices(void **state) {
    fixture_t *f = *state;
    heliod_t *h = connect_or_fail(f);
    assert_int_equal(heliod_load(h, "filler", f->filler, HELIOD_LOAD_SHARED, NULL), 0);
    float pos[3] = {3, 0, -4}, vel[3] = {0, 0, 0};
    assert_int_equal(heliod_emitter_create(h, "truck", pos, vel, 0), 0);
    assert_int_equal(heliod_emitter_create(h, "truck", pos, vel, 0), HELIOD_EEXIST);
    for (int i = 0; i < 100; i++) {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        p.flags = HELIOD_PLAY_LOOP;
        p.gain_db = -40;
        snprintf(p.emitter, sizeof p.emitter, "truck");
        assert_true(heliod_play_async(h, "filler", &p, NULL, NULL) > 0);
    }
    assert_int_equal(heliod_sync(h), 0);
    heliod_play_params_t bad;
    heliod_play_params_init(&bad);
    snprintf(bad.emitter, sizeof bad.emitter, "nope");
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "filler", &bad, &v, NULL), HELIOD_ENOEMITTER);

    /* one command moves all 100 */
    float to[3] = {-20, 1, 5};
    assert_int_equal(heliod_emitter_set(h, "truck", HELIOD_EM_POS, to, NULL, 50), 0);
    heliod_voice_info_t *vi = calloc(256, sizeof *vi);
    size_t n = 0;
    assert_true(heliod_voices(h, vi, 256, &n) >= 0);
    int on = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(vi[i].emitter, "truck") != 0) continue;
        on++;
        assert_true(vi[i].pos[0] == to[0] && vi[i].pos[1] == to[1] && vi[i].pos[2] == to[2]);
    }
    assert_int_equal(on, 100);
    assert_true(th_stat(h, "voices_real") <= 64); /* the rest ride along virtual */

    uint32_t count = 0;
    assert_int_equal(heliod_emitter_destroy(h, "truck", 30, &count), 0);
    assert_int_equal(count, 100);
    assert_int_equal(heliod_emitter_destroy(h, "truck", 30, &count), HELIOD_ENOEMITTER);
    th_sleep_ms(150);
    assert_true(heliod_voices(h, vi, 256, &n) >= 0);
    assert_int_equal(n, 0);
    assert_true(th_stat(h, "voices_active") == 0);
    free(vi);

    /* a connection's own emitter goes when it closes, its voices fade out */
    heliod_t *g = connect_or_fail(f);
    assert_int_equal(heliod_emitter_create(g, "mine", pos, NULL, 0), 0);
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_DETACHED;
    snprintf(p.emitter, sizeof p.emitter, "mine");
    assert_int_equal(heliod_play(g, "filler", &p, &v, NULL), 0);
    heliod_close(g);
    th_sleep_ms(200);
    assert_true(th_stat(h, "emitters") == 0);
    assert_true(th_stat(h, "voices_active") == 0);
    heliod_close(h);
}

/* heliodctl, as a user types it: exit status and output. */
static int ctl(fixture_t *f, char *out, size_t cap, const char *const *args) {
    char err[512];
    int rc = th_ctl(&f->d, out, cap, err, sizeof err, args);
    if (rc != 0) print_message("heliodctl %s: exit %d: %s", args[0], rc, err);
    return rc;
}

static void test_heliodctl_cues(void **state) {
    fixture_t *f = *state;
    char out[16384];
    const char *load[] = {"load", "tick", f->probe, NULL};
    assert_int_equal(ctl(f, out, sizeof out, load), 0);
    const char *cat[] = {"category",   "weapons",    "--max-instances",
                         "2",          "--overflow", "fade-oldest",
                         "--fade-out", "40",         NULL};
    assert_int_equal(ctl(f, out, sizeof out, cat), 0);
    const char *cue[] = {"cue",        "gun",          "--sound", "tick",
                         "--category", "weapons",      "--loop",  "--gain",
                         "-6",         "--pitch-rand", "50",      "--max-instances",
                         "3",          "--overflow",   "refuse",  NULL};
    assert_int_equal(ctl(f, out, sizeof out, cue), 0);
    const char *bad[] = {"cue", "x", "--sound", "tick", "--category", "nope", NULL};
    assert_int_equal(ctl(f, out, sizeof out, bad), 1);
    const char *play[] = {"play", "gun", NULL};
    for (int i = 0; i < 3; i++)
        assert_int_equal(ctl(f, out, sizeof out, play), 0);
    /* the category holds 2: the third play faded the oldest out */
    const char *voices[] = {"voices", NULL};
    assert_int_equal(ctl(f, out, sizeof out, voices), 0);
    const char *cues[] = {"--json", "cues", NULL};
    assert_int_equal(ctl(f, out, sizeof out, cues), 0);
    assert_non_null(strstr(out, "\"gun\""));
    assert_non_null(strstr(out, "\"weapons\""));
    const char *stats[] = {"stats", "--cues", NULL};
    assert_int_equal(ctl(f, out, sizeof out, stats), 0);
    assert_non_null(strstr(out, "gun"));

    /* group pause: the category, then the bus */
    const char *pause[] = {"pause", "--category", "weapons", NULL};
    assert_int_equal(ctl(f, out, sizeof out, pause), 0);
    assert_non_null(strstr(out, "2"));
    const char *resume[] = {"resume", "--bus", "sfx", NULL};
    assert_int_equal(ctl(f, out, sizeof out, resume), 0);
    const char *pause_bad[] = {"pause", "--category", "nope", NULL};
    assert_int_equal(ctl(f, out, sizeof out, pause_bad), 1);

    /* a cue sheet, loaded at run time, all or nothing */
    char sheet[400], broken[400];
    snprintf(sheet, sizeof sheet, "%s/cues.ini", f->d.dir);
    snprintf(broken, sizeof broken, "%s/broken.ini", f->d.dir);
    FILE *fp = fopen(sheet, "w");
    assert_non_null(fp);
    fprintf(fp, "# footsteps\n[cue step]\nsound = tick\npick = shuffle\ncategory = feet\n"
                "min-interval = 500\n\n[category feet]\nmax-instances = 4\n");
    fclose(fp);
    fp = fopen(broken, "w");
    assert_non_null(fp);
    fprintf(fp, "[cue other]\nsound = tick\noverflow = sometimes\n");
    fclose(fp);
    const char *cl[] = {"cues", "load", sheet, NULL};
    assert_int_equal(ctl(f, out, sizeof out, cl), 0);
    assert_non_null(strstr(out, "1 cue"));
    const char *cb[] = {"cues", "load", broken, NULL};
    char err[512];
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, cb), 1);
    assert_non_null(strstr(err, "broken.ini:3"));
    /* min-interval: the second play inside 500 ms is refused */
    const char *step[] = {"play", "step", NULL};
    assert_int_equal(ctl(f, out, sizeof out, step), 0);
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, step), 1);
    assert_non_null(strstr(err, "min-interval"));

    /* a stop with its own fade curve; a curve that does not exist is a usage error */
    const char *pl[] = {"play", "tick", "--loop", NULL};
    assert_int_equal(ctl(f, out, sizeof out, pl), 0);
    char handle[32];
    snprintf(handle, sizeof handle, "%.*s", (int)strcspn(out, "\n"), out);
    const char *sc_bad[] = {"stop", handle, "--curve", "cubic", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, sc_bad), 2);
    const char *sc[] = {"stop", handle, "--fade", "40", "--curve", "equal-power", NULL};
    assert_int_equal(ctl(f, out, sizeof out, sc), 0);
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, sc), 1); /* retired */

    /* emitters from the shell: create, play on it, move, destroy */
    const char *ec[] = {"emitter", "create", "door", "--pos", "1,0,-2", NULL};
    assert_int_equal(ctl(f, out, sizeof out, ec), 0);
    const char *pe[] = {"play", "tick", "--emitter", "door", "--loop", NULL};
    assert_int_equal(ctl(f, out, sizeof out, pe), 0);
    const char *es[] = {"emitter", "set", "door", "--pos", "4,0,0", "--vel", "0,0,3", NULL};
    assert_int_equal(ctl(f, out, sizeof out, es), 0);
    const char *ed[] = {"emitter", "destroy", "door", "--fade", "20", NULL};
    assert_int_equal(ctl(f, out, sizeof out, ed), 0);
    assert_non_null(strstr(out, "1"));
}

/* --cues FILE at start: applied before the first client; a broken sheet
 * stops the daemon with the file and line. */
static void test_cues_at_start(void **state) {
    (void)state;
    char dir[] = "/tmp/heliod-cues-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char good[300], bad[300];
    snprintf(good, sizeof good, "%s/good.ini", dir);
    snprintf(bad, sizeof bad, "%s/bad.ini", dir);
    FILE *fp = fopen(good, "w");
    assert_non_null(fp);
    fprintf(fp, "[category ui]\nmax-instances = 3\n[cue click]\nsound = c1, c2\n"
                "category = ui\nbus = ui\npick = sequence\n");
    fclose(fp);
    fp = fopen(bad, "w");
    assert_non_null(fp);
    fprintf(fp, "[cue click]\nsound = c1\nmax-instances = lots\n");
    fclose(fp);

    th_daemon_t d;
    const char *args[] = {"--cues", good, NULL};
    assert_int_equal(th_daemon_start(&d, 0, args), 0);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "cues-at-start"), 0);
    heliod_cue_info_t ci[8];
    size_t n = 0;
    assert_true(heliod_cues(h, ci, 8, &n) >= 0);
    assert_int_equal(n, 2);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (ci[i].kind == HELIOD_CUES_KIND_CUE && strcmp(ci[i].cue.name, "click") == 0 &&
            ci[i].cue.nsounds == 2 && strcmp(ci[i].cue.category, "ui") == 0)
            found = 1;
    assert_true(found);
    /* a cue whose sounds are not loaded yet: a clear error, nothing plays */
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "click", &p, &v, NULL), HELIOD_ENOSOUND);
    assert_non_null(strstr(heliod_last_error(h), "not loaded"));
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);

    /* the broken sheet: heliod exits 2 and says where */
    char cmd[800];
    snprintf(cmd, sizeof cmd, "'%s' --driver null --socket %s/s.sock --cues %s 2>%s/err.txt",
             getenv("HELIOD_BIN"), dir, bad, dir);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    char errpath[300], msg[512] = "";
    snprintf(errpath, sizeof errpath, "%s/err.txt", dir);
    fp = fopen(errpath, "r");
    assert_non_null(fp);
    size_t got = fread(msg, 1, sizeof msg - 1, fp);
    msg[got] = 0;
    fclose(fp);
    print_message("broken sheet: %s", msg);
    assert_non_null(strstr(msg, "bad.ini:3"));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_4096_logical_on_64_real, setup, teardown),
        cmocka_unit_test_setup_teardown(test_emitter_100_voices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heliodctl_cues, setup, teardown),
        cmocka_unit_test(test_cues_at_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
