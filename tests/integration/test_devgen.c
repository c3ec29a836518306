/*
 * test_devgen.c - device generations: a DEVICE request whose device cannot
 * be opened never touches the device that plays (no JACK server needed; the
 * daemon runs on the null driver and PortAudio finds no such device).
 *
 * 50 looping voices play; 100 DEVICE "nosuch" requests go one after another
 * from a control connection (the switch of one waits for the one before).
 * Each must answer ENODEV; the engine clock (CLOCK's frame) must have moved
 * by at least a period after every 10 requests, and after the last one
 * (each wait bounded by a generous wall-clock time: progress, not speed, is
 * what is checked); every voice must still be there afterwards and its
 * position must have moved; heliodctl's `device nosuch` then exits 1 with
 * ENODEV and the clock still runs. Before engine.c's ports were claimed only by a
 * successful open, the 16th request overwrote the playing port's generation
 * and the engine stopped for good.
 *
 * Prints the frames the clock advanced during the requests, the voices
 * before and after, the ENODEV count and the time taken.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"

#define VOICES   50
#define REQUESTS 100
#define GROUP    10    /* the clock is checked after every GROUP requests */
#define WAIT_MS  10000 /* at most this long for one period of progress (a loaded VM, TSan) */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static uint64_t clock_frame(heliod_t *h) {
    heliod_clock_t c;
    assert_int_equal(heliod_clock(h, &c), 0);
    return c.frame;
}

/* Waits until the engine clock is at least `period` frames past `from`:
 * the frame reached, or 0 when it did not move within WAIT_MS. */
static uint64_t clock_past(heliod_t *h, uint64_t from, uint32_t period) {
    double end = now_ms() + WAIT_MS;
    for (;;) {
        uint64_t f = clock_frame(h);
        if (f >= from + period) return f;
        if (now_ms() > end) return 0;
        th_sleep_ms(2);
    }
}

typedef struct {
    heliod_voice_t v;
    double pos;
} voice_t;

/* Positions of the voices in vs (-1 for one that is gone); returns how many
 * of them are still listed. */
static size_t voice_positions(heliod_t *h, voice_t *vs, size_t n) {
    static heliod_voice_info_t vi[256];
    size_t count = 0, found = 0;
    assert_int_equal(heliod_voices(h, vi, 256, &count), 0);
    for (size_t k = 0; k < n; k++) {
        vs[k].pos = -1;
        for (size_t i = 0; i < count && i < 256; i++)
            if (vi[i].voice == vs[k].v) {
                vs[k].pos = vi[i].position_s;
                found++;
                break;
            }
    }
    return found;
}

static void test_device_nosuch_storm(void **state) {
    th_fixture_t *f = *state;
    heliod_t *game = th_fixture_connect(f, "game");
    heliod_t *ctl = NULL;
    assert_int_equal(heliod_connect_flags(&ctl, f->d.sock, "devgen-ctl", HELIOD_CONNECT_CONTROL),
                     0);
    char path[400];
    snprintf(path, sizeof path, "%s/tone.wav", f->d.dir);
    assert_int_equal(th_write_sine(path, 48000, 30.0, 440.0, 0.01), 0);
    assert_int_equal(heliod_load(game, "tone", path, 0, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    voice_t vs[VOICES], after[VOICES];
    for (int i = 0; i < VOICES; i++)
        assert_int_equal(heliod_play(game, "tone", &pp, &vs[i].v, NULL), 0);
    heliod_clock_t c0;
    assert_int_equal(heliod_clock(game, &c0), 0);
    uint32_t period = c0.period;
    /* every voice has started and moved */
    assert_true(clock_past(game, c0.frame, 2 * period) != 0);
    size_t before = voice_positions(game, vs, VOICES);
    double active0 = th_stat(game, "voices_active");
    assert_int_equal(before, VOICES);

    uint64_t f0 = clock_frame(game), last = f0;
    double t0 = now_ms();
    int enodev = 0, stuck_at = -1;
    for (int i = 1; i <= REQUESTS; i++) {
        heliod_device_reply_t r;
        int rc = heliod_device(ctl, "nosuch", &r);
        if (rc == HELIOD_ENODEV)
            enodev++;
        else
            fprintf(stderr, "# request %d: %s\n", i, heliod_strerror(rc));
        if (i % GROUP == 0 && stuck_at < 0) {
            uint64_t f1 = clock_past(game, last, period);
            if (!f1)
                stuck_at = i;
            else
                last = f1;
        }
    }
    double took = now_ms() - t0;
    uint64_t f1 = stuck_at < 0 ? clock_past(game, last, period) : 0;
    if (!f1 && stuck_at < 0) stuck_at = REQUESTS;
    uint64_t f_end = clock_frame(game);
    memcpy(after, vs, sizeof vs);
    size_t still = voice_positions(game, after, VOICES);
    int moved = 0;
    for (int i = 0; i < VOICES; i++)
        if (after[i].pos >= 0 && after[i].pos != vs[i].pos) moved++;
    double active1 = th_stat(game, "voices_active");
    printf("# %d x DEVICE nosuch in %.0f ms: %d ENODEV; the clock advanced %llu frames "
           "(%.0f ms of audio at %u Hz) during them\n",
           REQUESTS, took, enodev, (unsigned long long)(f_end - f0),
           (double)(f_end - f0) * 1e3 / c0.rate, c0.rate);
    printf("# voices: %zu listed before, %zu after (voices_active %.0f -> %.0f), %d moved\n",
           before, still, active0, active1, moved);
    if (stuck_at >= 0)
        printf("# the engine clock stopped: no period of progress in %d ms after request %d\n",
               WAIT_MS, stuck_at);
    assert_int_equal(stuck_at, -1);
    assert_int_equal(enodev, REQUESTS);
    assert_int_equal(still, VOICES);
    assert_int_equal(moved, VOICES);
    assert_true(active1 == active0);
    assert_true(th_stat(ctl, "device_portaudio") == 0);
    assert_true(th_stat(ctl, "device_state") == 0);
    /* and once more as an operator types it */
    char out[512], err[512];
    const char *const cmd[] = {"device", "nosuch", NULL};
    int rc = th_ctl(&f->d, out, sizeof out, err, sizeof err, cmd);
    printf("# heliodctl device nosuch: exit %d, %s", rc, err);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(err, "ENODEV"));
    assert_true(clock_past(game, clock_frame(game), period) != 0);
    assert_true(th_daemon_alive(&f->d));
    heliod_close(ctl);
    heliod_close(game);
}

static int setup(void **state) {
    static const char *const args[] = {"--voices", "128", NULL};
    return th_fixture_start(state, 0, args);
}

int main(void) {
    /* PortAudio probes JACK on every try: never let libjack start a server */
    setenv("JACK_NO_START_SERVER", "1", 1);
    setenv("JACK_DEFAULT_SERVER", "heliod-devgen-none", 1);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_device_nosuch_storm, setup),
    };
    return cmocka_run_group_tests_name("devgen", tests, NULL, NULL);
}
