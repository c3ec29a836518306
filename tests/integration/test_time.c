/*
 * test_time.c - time through the real daemon (null driver, --record), the
 * real socket, libheliod and heliodctl: the clock, plays scheduled for one
 * engine frame starting on that exact sample of the recording (two at once
 * sum sample for sample from their first frame), a scheduled gain change,
 * a scheduled voice's position not advancing before its start, late
 * requests answered with their lateness and counted, an overfull schedule
 * answered EBUSY, bundles of 8 plays never split while another client
 * floods the command ring, and heliodctl's --at, clock and batch '@' and
 * '{ }' lines. Hardening: at_frame at most 24 h ahead; each client process
 * holds at most its --client-scheduled quota of the schedule (EBUSY naming
 * it; the tests use processes of their own) and a connection's scheduled
 * commands on its non-detached voices go when it leaves; a
 * bundle is all or nothing against the ring, the schedule and the quota;
 * graph changes (bus create, remove, parent, send) cannot be scheduled, so
 * none can revert a later one; a gain scheduled for a bus removed before its
 * frame never reaches the bus that reuses its index. SET loops leaves a
 * loop (or loops a sound once more) on its exact frame.
 *
 * The recording's frame k is engine frame k: the recorder opens before the
 * engine starts and takes every period the mixer renders (also the silent
 * ones of a device switch), so with record_dropped_frames 0 the mapping is
 * exact; each test checks that.
 *
 * No wall-clock window: a test waits for the engine frames it needs (the
 * clock, polled), and requests for a frame are sent LEAD_MS ahead, time a
 * loaded machine needs to deliver them; a faster or slower machine waits
 * for the same frames.
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
#include <time.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

#define RATE    48000
#define LEN     24000 /* frames of the test sounds */
#define DC_AMP  0.25f
#define LEAD_MS 500 /* a request sent this far ahead of its frame is on time */

typedef th_fixture_t fixture_t;

static int setup(void **state) {
    return th_fixture_start(state, 1, NULL);
}

/* a small schedule quota: the quota tests stay short */
static int setup_quota(void **state) {
    static const char *const args[] = {"--client-scheduled", "64", NULL};
    return th_fixture_start(state, 1, args);
}

static heliod_t *conn(fixture_t *f) {
    heliod_t *h = th_fixture_connect_control(f, "test_time"); /* sets the default buses */
    assert_non_null(h);
    return h;
}

/* ---- another client process (the schedule quota is one budget per process) */

/* A client of a process of its own: fn runs on a plain connection and its
 * result (0: all as expected) comes back through a pipe; the connection
 * stays open (its scheduled commands stay pending) until proc_end. */
typedef int (*proc_fn)(heliod_t *h, void *arg);
typedef struct {
    pid_t pid;
    int ready, go; /* read: fn's result; write: close now */
} proc_t;

static proc_t proc_start(fixture_t *f, proc_fn fn, void *arg) {
    int r[2], g[2];
    assert_int_equal(pipe(r), 0);
    assert_int_equal(pipe(g), 0);
    proc_t p = {.pid = fork()};
    assert_true(p.pid >= 0);
    if (p.pid == 0) {
        /* not the parent's connections: their close must reach the daemon */
        for (int fd = 3; fd < 1024; fd++)
            if (fd != r[1] && fd != g[0]) close(fd);
        heliod_t *h = NULL;
        unsigned char rc = 99;
        if (heliod_connect(&h, f->d.sock, "other-process") == 0) rc = (unsigned char)fn(h, arg);
        if (write(r[1], &rc, 1) != 1) _exit(1);
        unsigned char c;
        if (read(g[0], &c, 1) < 0) _exit(1);
        if (h) heliod_close(h);
        _exit(0);
    }
    close(r[1]);
    close(g[0]);
    p.ready = r[0];
    p.go = g[1];
    return p;
}

/* fn's result in process p (its connection still open). */
static int proc_result(proc_t *p) {
    unsigned char rc = 98;
    if (read(p->ready, &rc, 1) != 1) rc = 97;
    return rc;
}

/* p closes its connection and exits. */
static void proc_end(proc_t *p) {
    unsigned char c = 1;
    assert_int_equal(write(p->go, &c, 1), 1);
    int st = 0;
    waitpid(p->pid, &st, 0);
    close(p->ready);
    close(p->go);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void gen_dc(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    (void)i;
    for (int c = 0; c < ch; c++)
        out[c] = DC_AMP;
}

/* a ramp that never repeats a value: a one-frame offset shows */
static void gen_ramp(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    for (int c = 0; c < ch; c++)
        out[c] = 0.25f * (float)(i + 1) / LEN;
}

/* Shared: every connection of the test may play it. */
static void load_len(fixture_t *f, heliod_t *h, const char *name, th_gen_fn gen, uint32_t len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.wav", f->d.dir, name);
    assert_int_equal(th_write_sound(path, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, len, gen, NULL),
                     0);
    assert_int_equal(heliod_load(h, name, path, HELIOD_LOAD_SHARED, NULL), 0);
}

static void load(fixture_t *f, heliod_t *h, const char *name, th_gen_fn gen) {
    load_len(f, h, name, gen, LEN);
}

/* Hard left, no fade-in: the left channel is the source sample for sample. */
static heliod_play_params_t left_params(void) {
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.pan = -1.0f;
    p.fade_in_ms = 0.0f;
    return p;
}

static uint64_t frame_in(heliod_t *h, double ms) {
    heliod_clock_t k;
    assert_int_equal(heliod_clock(h, &k), 0);
    assert_int_equal(k.rate, RATE);
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t now =
        heliod_clock_frame_at(&k, (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec);
    return now + (uint64_t)(ms * RATE / 1000.0);
}

static uint64_t frame_now(heliod_t *h) {
    heliod_clock_t k;
    assert_int_equal(heliod_clock(h, &k), 0);
    return k.frame;
}

/* Waits until the engine has begun frame F: engine time, whatever the
 * machine's speed (60 s at most: a clock that stops fails). */
static void wait_frame(heliod_t *h, uint64_t F) {
    for (int i = 0; i < 6000; i++) {
        if (frame_now(h) >= F) return;
        th_sleep_ms(10);
    }
    fail_msg("the engine clock did not reach frame %llu", (unsigned long long)F);
}

/* Waits until STATS key reads want (60 s at most), and returns it. */
static double wait_stat(heliod_t *h, const char *key, double want) {
    double v = NAN;
    for (int i = 0; i < 6000 && (v = th_stat(h, key)) != want; i++)
        th_sleep_ms(10);
    return v;
}

/* Stops the daemon and reads its recording (left channel). */
static float *recording(fixture_t *f, heliod_t *h, size_t *frames) {
    assert_true(th_stat(h, "record_dropped_frames") == 0.0);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0);
    float *data = NULL;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(f->d.record, &data, frames, &ch, &rate), 0);
    assert_int_equal(ch, 2);
    for (size_t i = 0; i < *frames; i++)
        data[i] = data[2 * i];
    return data;
}

/* Two plays scheduled for frame F: silence up to F, then exactly dc + ramp
 * from F on (one starting a frame late would leave a sample without the
 * other); a third voice at G alone starts on G. */
static void test_exact_start(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load(f, h, "dc", gen_dc);
    load(f, h, "ramp", gen_ramp);
    heliod_play_params_t p = left_params();
    uint64_t F = frame_in(h, LEAD_MS) | 37; /* inside a period, not on its edge */
    uint64_t G = F + 12345;
    heliod_at_frame(h, F);
    assert_int_equal(heliod_play(h, "dc", &p, NULL, NULL), 0);
    assert_int_equal(heliod_late_frames(h), 0);
    assert_int_equal(heliod_play(h, "ramp", &p, NULL, NULL), 0);
    heliod_at_frame(h, G);
    assert_int_equal(heliod_play(h, "dc", &p, NULL, NULL), 0);
    heliod_at_frame(h, 0);
    wait_frame(h, G + 2 * LEN);
    assert_true(th_stat(h, "sched_late") == 0.0);
    size_t n = 0;
    float *x = recording(f, h, &n);
    assert_true(n > G + LEN);
    for (uint64_t i = F - 2000; i < F; i++)
        assert_true(x[i] == 0.0f);
    for (uint64_t k = 0; k < G - F; k++) {
        float want = DC_AMP + 0.25f * (float)(k + 1) / LEN;
        if (fabsf(x[F + k] - want) > 1e-6f)
            fail_msg("frame F+%llu: %.9f, want %.9f", (unsigned long long)k, x[F + k], want);
    }
    /* at G the third voice joins: the sum steps up by DC_AMP on that sample */
    assert_true(fabsf(x[G] - x[G - 1] - DC_AMP) < 1e-4f);
    assert_true(fabsf(x[G - 1] - x[G - 2]) < 1e-4f);
    free(x);
}

/* A gain change scheduled at frame F: unchanged up to F, ramping after. */
static void test_scheduled_set(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load(f, h, "dc", gen_dc);
    heliod_play_params_t p = left_params();
    p.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(h, "dc", &p, &v, NULL), 0);
    uint64_t F = frame_in(h, LEAD_MS) | 101;
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    s.gain_db = -144.0f;
    s.ramp_ms = 10.0f;
    heliod_at_frame(h, F);
    assert_int_equal(heliod_set(h, v, &s), 0);
    heliod_at_frame(h, 0);
    wait_frame(h, F + RATE / 10);
    size_t n = 0;
    float *x = recording(f, h, &n);
    /* a ramp set at F takes its first step on sample F */
    for (uint64_t i = F - 1000; i < F; i++)
        assert_true(x[i] == DC_AMP);
    assert_true(x[F] < DC_AMP);
    assert_true(x[F + 1] < DC_AMP);
    assert_true(fabsf(x[F + 480 + 10]) < 1e-6f); /* 10 ms later: silent */
    free(x);
}

/* Lateness: a frame already past is applied at once, the reply says how
 * late, and STATS counts it. */
static void test_late(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load(f, h, "dc", gen_dc);
    heliod_play_params_t p = left_params();
    wait_frame(h, RATE / 10 + 10);
    heliod_at_frame(h, 10);
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(h, "dc", &p, &v, NULL), 0);
    heliod_at_frame(h, 0);
    assert_true(v != 0);
    assert_true(heliod_late_frames(h) >= RATE / 10 - 10);
    assert_true(wait_stat(h, "sched_late", 1.0) == 1.0);
    assert_true(th_stat(h, "sched_late_max_frames") >= RATE / 10 - 10);
    heliod_close(h);
}

/* In another process: a looped play of "dc" at frame a->start and then
 * a->sets gain sets of it at a->start + RATE / 2 (fill: all taken), or one
 * play at a->start refused EBUSY naming the full schedule (!a->sets). */
typedef struct {
    uint64_t start;
    int sets;
} fill_arg_t;

static int fill_proc(heliod_t *h, void *arg) {
    const fill_arg_t *a = arg;
    heliod_play_params_t p = left_params();
    p.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t v = 0;
    heliod_at_frame(h, a->start);
    int rc = heliod_play(h, "dc", &p, &v, NULL);
    if (!a->sets)
        return rc == HELIOD_EBUSY && strstr(heliod_last_error(h), "schedule full") ? 0 : 1;
    if (rc != 0) return 2;
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    s.gain_db = -6.0f;
    heliod_at_frame(h, a->start + RATE / 2);
    for (int i = 0; i < a->sets; i++)
        if (heliod_set_async(h, v, &s) <= 0) return 3;
    return heliod_sync(h) == 0 ? 0 : 4;
}

/* One client process holds at most a quarter of the schedule (the default
 * --client-scheduled, 1024): the next is EBUSY naming the quota. Four such
 * processes fill HL_SCHED_MAX (4096): a fifth is EBUSY naming the full
 * schedule, and the room comes back once they apply. A scheduled voice's
 * position stays at 0 until its start. */
static void test_full_schedule(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load_len(f, h, "dc", gen_dc, 4 * RATE); /* longer than the test: no wrap */
    heliod_play_params_t p = left_params();
    p.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t v = 0;
    uint64_t start = frame_in(h, 1500 + LEAD_MS); /* room for 4096 requests before it */
    heliod_at_frame(h, start);
    assert_int_equal(heliod_play(h, "dc", &p, &v, NULL), 0);
    heliod_at_frame(h, 0);
    heliod_voice_info_t vi[4];
    size_t nv = 0;
    assert_int_equal(heliod_voices(h, vi, 4, &nv), 0);
    assert_int_equal(nv, 1);
    if (frame_now(h) < start) assert_true(vi[0].position_s == 0.0); /* not started: not advancing */
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    s.gain_db = -6.0f;
    heliod_at_frame(h, start + RATE / 2);
    for (int i = 1; i < 1024; i++) /* the play holds one place */
        assert_true(heliod_set_async(h, v, &s) > 0);
    assert_int_equal(heliod_sync(h), 0);
    assert_true(th_stat(h, "sched_pending") == 1024.0);
    assert_int_equal(heliod_set(h, v, &s), HELIOD_EBUSY);
    assert_non_null(strstr(heliod_last_error(h), "--client-scheduled"));
    heliod_at_frame(h, 0);
    /* a second connection of this process shares its quota: refused too */
    heliod_t *h2 = conn(f);
    heliod_at_frame(h2, start);
    assert_int_equal(heliod_play(h2, "dc", &p, NULL, NULL), HELIOD_EBUSY);
    assert_non_null(strstr(heliod_last_error(h2), "--client-scheduled"));
    heliod_close(h2);
    proc_t o[3];
    fill_arg_t fa = {.start = start, .sets = 1023};
    for (int k = 0; k < 3; k++) { /* three more processes, a quarter each */
        o[k] = proc_start(f, fill_proc, &fa);
        assert_int_equal(proc_result(&o[k]), 0);
    }
    assert_true(th_stat(h, "sched_pending") == 4096.0);
    fill_arg_t ea = {.start = start, .sets = 0}; /* within its quota, but the schedule is full */
    proc_t e = proc_start(f, fill_proc, &ea);
    assert_int_equal(proc_result(&e), 0);
    proc_end(&e);
    /* unscheduled requests are still taken (a set on v is held for its
     * start, so it needs the schedule too: EBUSY) */
    assert_int_equal(heliod_set(h, v, &s), HELIOD_EBUSY);
    assert_int_equal(heliod_bus_gain(h, "sfx", -1.0f, 0.0f), 0);
    wait_frame(h, start + RATE / 2);
    assert_true(wait_stat(h, "sched_pending", 0.0) == 0.0);
    assert_true(th_stat(h, "sched_late") == 0.0);
    /* the position counts from the scheduled start: between the engine
     * frames read around the listing, give or take a period */
    heliod_clock_t k;
    assert_int_equal(heliod_clock(h, &k), 0);
    assert_int_equal(heliod_voices(h, vi, 4, &nv), 0);
    uint64_t f1 = frame_now(h);
    double lo = (double)(k.frame - start - k.period) / RATE,
           hi = (double)(f1 - start + k.period) / RATE;
    if (vi[0].position_s < lo || vi[0].position_s > hi)
        fail_msg("position %.4f s, want %.4f..%.4f s", vi[0].position_s, lo, hi);
    heliod_at_frame(h, start + RATE);
    assert_int_equal(heliod_set(h, v, &s), 0);
    heliod_at_frame(h, 0);
    for (int k = 0; k < 3; k++)
        proc_end(&o[k]);
    heliod_close(h);
}

/* In another process: a play at *far, 63 sets at *far + RATE (its quota
 * of 64), then a 65th refused EBUSY naming the quota. */
static int flood_proc(heliod_t *h, void *arg) {
    uint64_t far = *(const uint64_t *)arg;
    heliod_play_params_t p = left_params();
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    s.gain_db = -6.0f;
    heliod_voice_t v = 0;
    heliod_at_frame(h, far);
    if (heliod_play(h, "dc", &p, &v, NULL) != 0) return 1;
    heliod_at_frame(h, far + RATE);
    for (int i = 1; i < 64; i++)
        if (heliod_set_async(h, v, &s) <= 0) return 2;
    if (heliod_sync(h) != 0) return 3;
    if (heliod_set(h, v, &s) != HELIOD_EBUSY) return 4;
    return strstr(heliod_last_error(h), "--client-scheduled") ? 0 : 5;
}

/* --client-scheduled 64: a client process's 65th pending scheduled command
 * is EBUSY naming the quota, while a game's 16-note bar is still taken.
 * When the client leaves, its 64 (a play 60 s ahead and its sets) are cancelled at
 * once, the voice ends unheard; a client's detached voice's commands and
 * its bus ramp stay after it leaves, and the game's bar goes with the
 * game. */
static void test_quota_cancel(void **state) {
    fixture_t *f = *state;
    /* the game (g), b and the watcher are this process (21 scheduled of its
     * 64); the flooder (a) is a process of its own */
    heliod_t *b = conn(f), *g = conn(f), *watch = conn(f);
    load(f, watch, "dc", gen_dc);
    heliod_play_params_t p = left_params();
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    s.gain_db = -6.0f;
    uint64_t far = frame_in(watch, 60000);
    heliod_voice_t w = 0;
    proc_t a = proc_start(f, flood_proc, &far);
    assert_int_equal(proc_result(&a), 0);
    assert_true(th_stat(watch, "sched_pending") == 64.0);
    assert_true(th_stat(watch, "quota_scheduled") == 64.0);
    assert_true(th_stat(watch, "quota_refused_scheduled") == 1.0);
    /* the game's bar: 16 notes, 1/16 s apart, 30 s ahead */
    uint64_t bar = frame_in(watch, 30000);
    for (int i = 0; i < 16; i++) {
        heliod_at_frame(g, bar + (uint64_t)i * RATE / 16);
        assert_int_equal(heliod_play(g, "dc", &p, NULL, NULL), 0);
    }
    heliod_at_frame(g, 0);
    /* b: a detached voice with three sets, and a bus ramp, 60 s ahead */
    p.flags = HELIOD_PLAY_DETACHED;
    heliod_at_frame(b, far);
    assert_int_equal(heliod_play(b, "dc", &p, &w, NULL), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(heliod_set(b, w, &s), 0);
    assert_int_equal(heliod_bus_gain(b, "music", -3.0f, 100.0f), 0);
    heliod_at_frame(b, 0);
    assert_true(th_stat(watch, "sched_pending") == 64.0 + 16 + 5);
    proc_end(&a);
    assert_true(wait_stat(watch, "sched_pending", 16 + 5) == 16.0 + 5);
    heliod_close(b);
    th_sleep_ms(200);
    assert_true(th_stat(watch, "sched_pending") == 16.0 + 5);
    heliod_close(g);
    assert_true(wait_stat(watch, "sched_pending", 5) == 5.0);
    /* a's voice never started: only b's detached one is left */
    assert_true(wait_stat(watch, "voices_active", 1) == 1.0);
    heliod_close(watch);
}

/* In another process: one play at *far: taken (its own quota). */
static int one_play_proc(heliod_t *h, void *arg) {
    heliod_play_params_t p = left_params();
    heliod_at_frame(h, *(const uint64_t *)arg);
    return heliod_play(h, "dc", &p, NULL, NULL) == 0 ? 0 : 1;
}

/* --client-scheduled 64 is one budget per process, like the other quotas:
 * two connections of this process holding 40 + 24 leave the second none
 * (EBUSY naming the quota), while another process schedules as usual. The
 * cancellation stays per connection: when the first closes, its 40 go (not
 * the second's 24) and the process has room again. */
/* A play at far and n - 1 gain sets of it at far + RATE on h: n scheduled
 * commands (a pending play is one; sets are, whatever the voice count). */
static heliod_voice_t schedule_n(heliod_t *h, uint64_t far, int n) {
    heliod_play_params_t p = left_params();
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    s.gain_db = -6.0f;
    heliod_voice_t v = 0;
    heliod_at_frame(h, far);
    assert_int_equal(heliod_play(h, "dc", &p, &v, NULL), 0);
    heliod_at_frame(h, far + RATE);
    for (int i = 1; i < n; i++)
        assert_true(heliod_set_async(h, v, &s) > 0);
    assert_int_equal(heliod_sync(h), 0);
    return v;
}

static void test_quota_per_process(void **state) {
    fixture_t *f = *state;
    heliod_t *c1 = conn(f), *c2 = conn(f);
    load(f, c1, "dc", gen_dc);
    uint64_t far = frame_in(c1, 60000);
    schedule_n(c1, far, 40);
    heliod_voice_t v2 = schedule_n(c2, far, 24);
    assert_true(th_stat(c1, "sched_pending") == 64.0);
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    s.gain_db = -3.0f;
    assert_int_equal(heliod_set(c2, v2, &s), HELIOD_EBUSY); /* c2 holds 24, its process 64 */
    assert_non_null(strstr(heliod_last_error(c2), "--client-scheduled"));
    proc_t o = proc_start(f, one_play_proc, &far);
    assert_int_equal(proc_result(&o), 0);
    assert_true(th_stat(c2, "sched_pending") == 65.0);
    heliod_close(c1);
    assert_true(wait_stat(c2, "sched_pending", 25) == 25.0);
    assert_int_equal(heliod_set(c2, v2, &s), 0);
    assert_true(th_stat(c2, "sched_pending") == 26.0);
    heliod_at_frame(c2, 0);
    proc_end(&o);
    heliod_close(c2);
}

/* at_frame at most 24 h of engine frames ahead of the clock: beyond is
 * EINVAL naming the range; just inside is taken. */
static void test_at_bound(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load(f, h, "dc", gen_dc);
    heliod_clock_t k;
    assert_int_equal(heliod_clock(h, &k), 0);
    uint64_t day = 86400ull * RATE;
    heliod_play_params_t p = left_params();
    heliod_at_frame(h, k.frame + day + 60ull * RATE);
    assert_int_equal(heliod_play(h, "dc", &p, NULL, NULL), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "24 h"));
    assert_int_equal(heliod_bus_gain(h, "music", -3.0f, 0.0f), HELIOD_EINVAL);
    heliod_at_frame(h, UINT64_MAX);
    assert_int_equal(heliod_play(h, "dc", &p, NULL, NULL), HELIOD_EINVAL);
    heliod_at_frame(h, k.frame + day - 60ull * RATE);
    assert_int_equal(heliod_play(h, "dc", &p, NULL, NULL), 0);
    heliod_at_frame(h, 0);
    assert_true(th_stat(h, "sched_pending") == 1.0);
    heliod_close(h);
}

/* A bundle is all or nothing against the client's schedule quota (64):
 * with 5 places left, two scheduled plays (a play may take four: a steal,
 * an eviction, a quota victim) are refused whole (every request and the end
 * EBUSY, nothing applied); one play fits. */
static void test_bundle_atomic(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load(f, h, "dc", gen_dc);
    heliod_play_params_t p = left_params();
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    uint64_t far = frame_in(h, 60000);
    heliod_voice_t v = 0;
    heliod_at_frame(h, far);
    assert_int_equal(heliod_play(h, "dc", &p, &v, NULL), 0);
    for (int i = 1; i < 59; i++)
        assert_true(heliod_set_async(h, v, &s) > 0);
    assert_int_equal(heliod_sync(h), 0);
    assert_true(th_stat(h, "sched_pending") == 59.0);
    assert_int_equal(heliod_bundle_begin(h), 0);
    for (int i = 0; i < 2; i++)
        assert_true(heliod_play_async(h, "dc", &p, NULL, NULL) > 0);
    uint32_t count = 99;
    assert_int_equal(heliod_bundle_end(h, &count), HELIOD_EBUSY);
    assert_non_null(strstr(heliod_last_error(h), "--client-scheduled"));
    assert_true(th_stat(h, "sched_pending") == 59.0);
    heliod_voice_info_t vi[8];
    size_t nv = 0;
    assert_int_equal(heliod_voices(h, vi, 8, &nv), 0);
    assert_int_equal(nv, 1); /* none of the bundle's plays */
    assert_int_equal(heliod_bundle_begin(h), 0);
    assert_true(heliod_play_async(h, "dc", &p, NULL, NULL) > 0);
    assert_int_equal(heliod_bundle_end(h, &count), 0);
    assert_int_equal(count, 1);
    assert_true(th_stat(h, "sched_pending") == 60.0);
    heliod_at_frame(h, 0);
    heliod_close(h);
}

/* Graph changes are not schedulable: a scheduled bus create (then an
 * immediate one), and after an immediate create a scheduled re-parent,
 * send or remove, are EINVAL; the immediate changes stand after the frame
 * the refused ones asked for, and a voice on the immediately created bus
 * is heard at the level its scheduled (allowed) gain ramp gives it. */
static void test_bus_not_scheduled(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load(f, h, "dc", gen_dc);
    uint64_t at = 0;
    assert_int_equal(heliod_at_ms(h, 300, &at), 0);
    assert_int_equal(heliod_bus_create(h, "x", ""), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "at once"));
    heliod_at_frame(h, 0);
    assert_int_equal(heliod_bus_create(h, "y", ""), 0);
    /* the other order: an immediate change, then scheduled ones */
    assert_int_equal(heliod_bus_create(h, "z", ""), 0);
    heliod_at_frame(h, at);
    assert_int_equal(heliod_bus_parent(h, "z", "y"), HELIOD_EINVAL);
    assert_int_equal(heliod_bus_send(h, "z", "y", -6.0f, 0.0f), HELIOD_EINVAL);
    assert_int_equal(heliod_bus_remove(h, "z"), HELIOD_EINVAL);
    assert_int_equal(heliod_bus_create(h, "x", ""), HELIOD_EINVAL);
    assert_int_equal(heliod_bus_gain(h, "y", -6.0f, 0.0f), 0); /* a fader: schedulable */
    heliod_at_frame(h, 0);
    while (frame_in(h, 0) < at + RATE / 10) /* past the frame they asked for */
        th_sleep_ms(20);
    heliod_bus_info_t bi[40];
    size_t nb = 0;
    assert_int_equal(heliod_buses(h, bi, 40, &nb), 0);
    int seen_y = 0, seen_z = 0;
    for (size_t i = 0; i < nb; i++) {
        assert_string_not_equal(bi[i].name, "x");
        if (!strcmp(bi[i].name, "y")) seen_y = 1;
        if (!strcmp(bi[i].name, "z")) {
            seen_z = 1;
            assert_string_equal(bi[i].parent, "master"); /* not re-parented under y */
        }
    }
    assert_true(seen_y && seen_z);
    /* y is live in the engine: a voice on it plays at -6 dB from its frame */
    heliod_play_params_t p = left_params();
    snprintf(p.bus, sizeof p.bus, "y");
    heliod_voice_t yv = 0;
    heliod_at_frame(h, frame_in(h, 100));
    assert_int_equal(heliod_play(h, "dc", &p, &yv, NULL), 0);
    heliod_at_frame(h, 0);
    uint64_t g = 0; /* its start (later than asked if the request came late) */
    assert_int_equal(heliod_voice_start_frame(h, yv, &g), 0);
    while (frame_in(h, 0) < g + RATE / 5)
        th_sleep_ms(20);
    size_t frames = 0;
    float *rec = recording(f, h, &frames);
    assert_true(frames > g + RATE / 10);
    assert_true(rec[g - 1] == 0.0f);
    assert_float_equal(rec[g + 1000], DC_AMP * powf(10.0f, -6.0f / 20.0f), 1e-3f);
    free(rec);
}

/* A gain scheduled for bus x, which is removed before its frame: the bus
 * created next on the same index (y) is untouched by it, and starts at
 * unity whatever x's fader was (x at -12 dB now, -20 dB scheduled). */
static void test_bus_gain_reused_index(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load(f, h, "dc", gen_dc);
    assert_int_equal(heliod_bus_create(h, "x", ""), 0);
    assert_int_equal(heliod_bus_gain(h, "x", -12.0f, 0.0f), 0);
    uint64_t at = 0;
    assert_int_equal(heliod_at_ms(h, 300, &at), 0);
    assert_int_equal(heliod_bus_gain(h, "x", -20.0f, 0.0f), 0);
    assert_int_equal(heliod_bus_mute(h, "x", 1, 0.0f), 0);
    heliod_at_frame(h, 0);
    assert_int_equal(heliod_bus_remove(h, "x"), 0);
    assert_int_equal(heliod_bus_create(h, "y", ""), 0); /* the first free index: x's */
    while (frame_in(h, 0) < at + RATE / 10)             /* past the frame x's change was for */
        th_sleep_ms(20);
    heliod_play_params_t p = left_params();
    snprintf(p.bus, sizeof p.bus, "y");
    heliod_voice_t v = 0;
    heliod_at_frame(h, frame_in(h, 100));
    assert_int_equal(heliod_play(h, "dc", &p, &v, NULL), 0);
    heliod_at_frame(h, 0);
    uint64_t g = 0;
    assert_int_equal(heliod_voice_start_frame(h, v, &g), 0);
    while (frame_in(h, 0) < g + RATE / 5)
        th_sleep_ms(20);
    size_t frames = 0;
    float *rec = recording(f, h, &frames);
    assert_true(frames > g + RATE / 10);
    fprintf(stderr, "# bus y on x's index after x's scheduled -20 dB and mute: %.4f (unity %.4f)\n",
            (double)rec[g + 1000], (double)DC_AMP);
    assert_float_equal(rec[g + 1000], DC_AMP, 1e-3f);
    free(rec);
}

typedef struct {
    uint64_t started_ns[64];
    heliod_voice_t voice[64];
    int n;
} started_t;

static void on_event(void *user, const heliod_event_t *ev) {
    started_t *st = user;
    if (ev->type == HELIOD_EVENT_STARTED && st->n < 64) {
        st->voice[st->n] = ev->voice;
        st->started_ns[st->n++] = ev->time_ns;
    }
}

/* Bundles of 8 plays, sent while another client floods the ring with
 * thousands of sets: every bundle's 8 voices start in the same audio
 * callback (the same STARTED time). */
static void test_bundle(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f), *flood = conn(f);
    load(f, h, "dc", gen_dc);
    heliod_play_params_t p = left_params();
    p.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t fv = 0;
    assert_int_equal(heliod_play(flood, "dc", &p, &fv, NULL), 0);
    assert_int_equal(heliod_subscribe(h, HELIOD_SUB_STARTED), 0);
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    s.gain_db = -20.0f;
    p.flags = 0;
    p.gain_db = -40.0f;
    for (int round = 0; round < 5; round++) {
        started_t st = {0};
        heliod_set_event_callback(h, on_event, &st);
        for (int i = 0; i < 3000; i++)
            (void)heliod_set_async(flood, fv, &s);
        (void)heliod_flush(flood);
        assert_int_equal(heliod_bundle_begin(h), 0);
        heliod_voice_t tmp;
        assert_int_equal(heliod_play(h, "dc", &p, &tmp, NULL), HELIOD_EINVAL); /* blocking */
        for (int i = 0; i < 8; i++)
            assert_true(heliod_play_async(h, "dc", &p, NULL, NULL) > 0);
        uint32_t count = 0;
        assert_int_equal(heliod_bundle_end(h, &count), 0);
        assert_int_equal(count, 8);
        assert_int_equal(heliod_sync(flood), 0);
        for (int tries = 0; tries < 1000 && st.n < 8; tries++) { /* 10 s at most */
            th_sleep_ms(10);
            assert_true(heliod_dispatch(h) >= 0);
        }
        assert_int_equal(st.n, 8);
        for (int i = 1; i < 8; i++)
            assert_true(st.started_ns[i] == st.started_ns[0]);
        heliod_set_event_callback(h, NULL, NULL);
    }
    assert_int_equal(heliod_bundle_end(h, NULL), HELIOD_EINVAL); /* none open */
    heliod_close(flood);
    heliod_close(h);
}

/* heliodctl: clock, --at, batch with '@' lines and a '{ }' bundle. */
static void test_ctl(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load(f, h, "dc", gen_dc);
    char out[4096], err[4096];
    const char *clk[] = {"clock", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, clk), 0);
    assert_non_null(strstr(out, "frame="));
    assert_non_null(strstr(out, "rate=48000"));
    const char *at[] = {"play", "dc", "--pan", "-1", "--fade-in", "0", "--at", "+100ms", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, at), 0);
    /* heliodctl read the clock before it returned: the play starts by now
     * + 100 ms and lasts LEN frames */
    wait_frame(h, frame_now(h) + RATE / 10 + LEN + RATE / 10); /* the first play is over */
    const char *bad[] = {"stop-all", "--at", "+10ms", NULL};
    assert_true(th_ctl(&f->d, out, sizeof out, err, sizeof err, bad) != 0);
    char path[512];
    snprintf(path, sizeof path, "%s/score.txt", f->d.dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "# a score\n{\n@+300 play dc --pan -1 --fade-in 0\n"
                "@+300 play dc --pan -1 --fade-in 0\n}\n@+310ms bus sfx --gain -6\n");
    fclose(fp);
    const char *batch[] = {"batch", path, NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, batch), 0);
    wait_frame(h, frame_now(h) + 310 * RATE / 1000 + 2000 + RATE / 10);
    assert_true(th_stat(h, "sched_late") == 0.0);
    size_t n = 0;
    float *x = recording(f, h, &n);
    /* the single play: DC_AMP from its first sample */
    size_t a = 0;
    while (a < n && x[a] == 0.0f)
        a++;
    assert_true(a < n && x[a] == DC_AMP);
    while (a < n && x[a] != 0.0f)
        a++;
    /* the bundle: both voices from one sample, 10 ms later the bus ramps */
    while (a < n && x[a] == 0.0f)
        a++;
    assert_true(a + 2000 < n);
    assert_true(x[a] == 2.0f * DC_AMP);
    /* (a bus gain's ramp takes its first step on its own frame) */
    assert_true(x[a + 479] == 2.0f * DC_AMP);
    assert_true(x[a + 480] < 2.0f * DC_AMP);
    assert_true(fabsf(x[a + 1000] - 2.0f * DC_AMP * powf(10.0f, -6.0f / 20.0f)) < 1e-4f);
    free(x);
}

/* Quantised to a voice: B starts on a multiple of 4800 frames from the
 * frame A started on (heliodctl --quantize 4800 --quantize-ref A). */
static void test_quantize_voice(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load_len(f, h, "dc", gen_dc, 4 * RATE);
    heliod_play_params_t p = left_params();
    heliod_voice_t a = 0;
    assert_int_equal(heliod_play(h, "dc", &p, &a, NULL), 0);
    wait_frame(h, frame_now(h) + RATE / 20); /* it has started */
    uint64_t sa = 0;
    assert_int_equal(heliod_voice_start_frame(h, a, &sa), 0);
    assert_int_equal(heliod_voice_start_frame(h, a + 1, &sa), HELIOD_ENOVOICE);
    assert_int_equal(heliod_voice_start_frame(h, a, &sa), 0);
    char av[32], out[1024], err[1024];
    snprintf(av, sizeof av, "%llu", (unsigned long long)a);
    const char *args[] = {"play",       "dc",   "--pan",          "1", "--fade-in", "0",
                          "--quantize", "4800", "--quantize-ref", av,  NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, args), 0);
    wait_frame(h, frame_now(h) + 4800 + RATE / 10); /* the next multiple of 4800 is past */
    size_t n = 0;
    assert_true(th_stat(h, "record_dropped_frames") == 0.0);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0);
    float *data = NULL;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(f->d.record, &data, &n, &ch, &rate), 0);
    size_t l = 0, r = 0;
    while (l < n && data[2 * l] == 0.0f)
        l++;
    while (r < n && data[2 * r + 1] == 0.0f)
        r++;
    assert_int_equal(l, sa); /* the recording's frame is the engine frame */
    assert_true(r < n && r > l);
    assert_int_equal((r - l) % 4800, 0);
    free(data);
}

/* SET loops, on exact frames (the library and heliodctl): a looping voice
 * told 0 during a pass finishes that pass, then plays on through the rest
 * of the sound (the outro after the loop region) and ends; a voice played
 * without a loop told 1 plays its whole sound once more. The ramp's values
 * are its positions, so every sample says where each voice was. */
static void test_set_loops(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    load(f, h, "ramp", gen_ramp);
    heliod_play_params_t p = left_params();
    p.flags = HELIOD_PLAY_LOOP;
    p.loop_start = 6000;
    p.loop_end = 12000;
    heliod_voice_t a = 0, b = 0;
    uint64_t F = frame_in(h, LEAD_MS) | 37;
    heliod_at_frame(h, F);
    assert_int_equal(heliod_play(h, "ramp", &p, &a, NULL), 0);
    heliod_play_params_t q = left_params();
    q.pan = 1.0f;
    assert_int_equal(heliod_play(h, "ramp", &q, &b, NULL), 0);
    heliod_at_frame(h, F + 21000); /* inside a's second pass of the region */
    assert_int_equal(heliod_set_loops(h, a, 0), 0);
    heliod_at_frame(h, 0);
    assert_int_equal(heliod_set_loops(h, a, -2), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "loops"));
    char bv[32], at[32], out[1024], err[1024];
    snprintf(bv, sizeof bv, "%llu", (unsigned long long)b);
    snprintf(at, sizeof at, "%llu", (unsigned long long)(F + 10000));
    const char *args[] = {"set", bv, "--loops", "1", "--at", at, NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, args), 0);
    const char *bad[] = {"set", bv, "--loops", "sometimes", NULL};
    assert_true(th_ctl(&f->d, out, sizeof out, err, sizeof err, bad) != 0);
    assert_non_null(strstr(err, "--loops"));
    wait_frame(h, F + 2 * LEN + RATE / 10);
    assert_true(th_stat(h, "sched_late") == 0.0);
    assert_true(th_stat(h, "record_dropped_frames") == 0.0);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0);
    float *x = NULL;
    size_t n = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(f->d.record, &x, &n, &ch, &rate), 0);
    assert_true(n > F + 2 * LEN + 100);
    for (uint64_t k = 0; k < 2 * LEN + 100; k++) {
        /* a: 0..12000, the region twice more (the SET falls in the
         * second), then 12000..24000 and silence */
        int64_t pa = k < 12000   ? (int64_t)k
                     : k < 24000 ? 6000 + (int64_t)(k - 12000) % 6000
                     : k < 36000 ? (int64_t)k - 12000
                                 : -1;
        /* b: the whole sound, once more, then silence */
        int64_t pb = k < 2 * LEN ? (int64_t)(k % LEN) : -1;
        float wa = pa < 0 ? 0.0f : 0.25f * (float)(pa + 1) / LEN;
        float wb = pb < 0 ? 0.0f : 0.25f * (float)(pb + 1) / LEN;
        if (fabsf(x[2 * (F + k)] - wa) > 1e-6f || fabsf(x[2 * (F + k) + 1] - wb) > 1e-6f)
            fail_msg("frame F+%llu: %.7f %.7f, want %.7f %.7f", (unsigned long long)k,
                     x[2 * (F + k)], x[2 * (F + k) + 1], wa, wb);
    }
    free(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        TH_TEST(test_exact_start, setup),
        TH_TEST(test_scheduled_set, setup),
        TH_TEST(test_late, setup),
        TH_TEST(test_full_schedule, setup),
        TH_TEST(test_bundle, setup),
        TH_TEST(test_quota_cancel, setup_quota),
        TH_TEST(test_quota_per_process, setup_quota),
        TH_TEST(test_at_bound, setup),
        TH_TEST(test_bundle_atomic, setup_quota),
        TH_TEST(test_bus_not_scheduled, setup),
        TH_TEST(test_bus_gain_reused_index, setup),
        TH_TEST(test_ctl, setup),
        TH_TEST(test_quantize_voice, setup),
        TH_TEST(test_set_loops, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
