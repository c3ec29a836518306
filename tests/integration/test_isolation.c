/*
 * test_isolation.c - clients must not hurt each other: per-client sound
 * names, shared sounds only their loader (or a control client) unloads,
 * voice requests that reach only the client's own voices, per-client quotas
 * (voices, detached, streams, loads in flight, sample memory) with refusals
 * that name the quota, detached voices charged to their creator after it
 * left, and the lifetime cap of detached loops. Real daemon, real libheliod,
 * real files.
 */
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

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

typedef struct {
    th_daemon_t d;
    char tone[400], big[400], song[400];
} fx_t;

static fx_t g_fx;

static int start(fx_t *f, const char *const *args) {
    memset(f, 0, sizeof *f);
    if (th_daemon_start(&f->d, 0, args) != 0) return -1;
    snprintf(f->tone, sizeof f->tone, "%s/tone.wav", f->d.dir);
    snprintf(f->big, sizeof f->big, "%s/big.wav", f->d.dir);
    snprintf(f->song, sizeof f->song, "%s/song.wav", f->d.dir);
    /* big: 8 s mono at 48 kHz = 1.5 MiB of float, over a 1 MiB client quota */
    if (th_write_sine(f->tone, 48000, 1.0, 440, 0.2) != 0 ||
        th_write_sine(f->big, 48000, 8.0, 220, 0.2) != 0 ||
        th_write_sine(f->song, 48000, 4.0, 330, 0.2) != 0)
        return -1;
    return 0;
}

static int teardown(void **state) {
    return th_daemon_finish(&((fx_t *)*state)->d);
}

static heliod_t *conn(fx_t *f, const char *name, uint32_t flags) {
    return th_connect(&f->d, name, flags);
}

static heliod_voice_t play(heliod_t *h, const char *sound, uint32_t flags, int priority) {
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = flags;
    pp.priority = priority;
    heliod_voice_t v = 0;
    int rc = heliod_play(h, sound, &pp, &v, NULL);
    if (rc != 0) fprintf(stderr, "# play %s: %d %s\n", sound, rc, heliod_last_error(h));
    assert_int_equal(rc, 0);
    return v;
}

static int play_rc(heliod_t *h, const char *sound, uint32_t flags, int priority,
                   heliod_voice_t *stolen) {
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = flags;
    pp.priority = priority;
    heliod_voice_t v = 0;
    return heliod_play(h, sound, &pp, &v, stolen);
}

/* ---- names and ownership ------------------------------------------------------- */

static int setup_default(void **state) {
    *state = &g_fx;
    return start(&g_fx, NULL);
}

static size_t count_sounds(heliod_t *h, const char *name) {
    heliod_sound_info_t s[32];
    size_t n = 0, hits = 0;
    assert_true(heliod_sounds(h, s, 32, &n) >= 0);
    for (size_t i = 0; i < n; i++)
        if (strcmp(s[i].name, name) == 0) hits++;
    return hits;
}

static void test_names_are_per_client(void **state) {
    fx_t *f = *state;
    heliod_t *a = conn(f, "game-a", 0), *b = conn(f, "game-b", 0);
    heliod_t *ctl = conn(f, "tool", HELIOD_CONNECT_CONTROL);
    assert_true(heliod_server_info(ctl)->flags & HELIOD_CONNECT_CONTROL);
    assert_false(heliod_server_info(a)->flags & HELIOD_CONNECT_CONTROL);

    /* a's own "boom" is invisible to b: b's "play boom" never plays a's audio */
    assert_int_equal(heliod_load(a, "boom", f->tone, 0, NULL), 0);
    assert_int_equal(play_rc(b, "boom", 0, 0, NULL), HELIOD_ENOSOUND);
    assert_int_equal(heliod_unload(b, "boom"), HELIOD_ENOSOUND);
    /* b may have a "boom" of its own; a second one of a's is EEXIST */
    heliod_sound_info_t si;
    assert_int_equal(heliod_load(b, "boom", f->song, 0, &si), 0);
    assert_false(si.flags & HELIOD_LOAD_SHARED);
    assert_int_equal(si.owner, heliod_server_info(b)->client_id);
    assert_int_equal(heliod_load(a, "boom", f->song, 0, NULL), HELIOD_EEXIST);
    assert_int_equal(count_sounds(a, "boom"), 1);
    assert_int_equal(count_sounds(b, "boom"), 1);
    assert_int_equal(count_sounds(ctl, "boom"), 2); /* a control client lists every sound */

    /* shared: everyone plays it; only its loader or a control client unloads it */
    assert_int_equal(heliod_load(a, "amb", f->tone, HELIOD_LOAD_SHARED, &si), 0);
    assert_true(si.flags & HELIOD_LOAD_SHARED);
    assert_int_equal(heliod_load(b, "amb", f->tone, HELIOD_LOAD_SHARED, NULL), HELIOD_EEXIST);
    heliod_voice_t vb = play(b, "amb", 0, 0);
    assert_int_equal(heliod_stop(b, vb, 0), 0);
    th_sleep_ms(100);
    assert_int_equal(heliod_unload(b, "amb"), HELIOD_EPERM);
    fprintf(stderr, "# b unloads a's shared sound: %s\n", heliod_last_error(b));
    assert_non_null(strstr(heliod_last_error(b), "shared by client"));
    assert_int_equal(count_sounds(b, "amb"), 1);
    assert_int_equal(heliod_unload(ctl, "amb"), 0);
    assert_int_equal(count_sounds(a, "amb"), 0);

    /* a client's own sound hides a shared one of the same name from it only */
    assert_int_equal(heliod_load(ctl, "boom", f->big, HELIOD_LOAD_SHARED, NULL), 0);
    heliod_t *c = conn(f, "game-c", 0);
    heliod_voice_t vc = play(c, "boom", HELIOD_PLAY_LOOP, 0);
    heliod_voice_info_t vi[16];
    size_t n = 0;
    assert_true(heliod_voices(c, vi, 16, &n) >= 0);
    assert_int_equal(n, 1);
    assert_true(vi[0].voice == vc);
    assert_int_equal(heliod_stop(c, vc, 0), 0);
    heliod_close(c);

    /* a's private sounds go with a (the shared ones stay) */
    double sounds0 = th_stat(ctl, "sounds");
    heliod_close(a);
    th_sleep_ms(150);
    assert_true(th_stat(ctl, "sounds") == sounds0 - 1);
    assert_int_equal(count_sounds(ctl, "boom"), 2); /* b's and the shared one */
    assert_int_equal(heliod_unload(ctl, "boom"), 0);
    heliod_close(b);
    heliod_close(ctl);
}

static void test_voices_are_their_creators(void **state) {
    fx_t *f = *state;
    heliod_t *a = conn(f, "game-a", 0), *b = conn(f, "game-b", 0);
    heliod_t *ctl = conn(f, "tool", HELIOD_CONNECT_CONTROL);
    assert_int_equal(heliod_load(a, "loop", f->tone, HELIOD_LOAD_SHARED, NULL), 0);
    heliod_voice_t va = play(a, "loop", HELIOD_PLAY_LOOP, 0);
    heliod_voice_t vd = play(a, "loop", HELIOD_PLAY_LOOP | HELIOD_PLAY_DETACHED, 0);
    double denied0 = th_stat(ctl, "denied");

    /* b reaches none of a's voices, detached or not */
    assert_int_equal(heliod_stop(b, va, 0), HELIOD_EPERM);
    assert_non_null(strstr(heliod_last_error(b), "belongs to client"));
    assert_int_equal(heliod_stop(b, vd, 0), HELIOD_EPERM);
    heliod_voice_set_t s = {.mask = HELIOD_SET_GAIN, .gain_db = -144};
    assert_int_equal(heliod_set(b, va, &s), HELIOD_EPERM);
    s = (heliod_voice_set_t){.mask = HELIOD_SET_PAUSE};
    assert_int_equal(heliod_set(b, va, &s), HELIOD_EPERM);
    uint32_t count = 99;
    assert_int_equal(heliod_stop_all(b, 0, 1, &count), HELIOD_EPERM); /* everyone's */
    assert_int_equal(heliod_pause_all(b, 1, 1, &count), HELIOD_EPERM);
    assert_int_equal(heliod_stop_all(b, 0, 0, &count), 0); /* its own: none */
    assert_int_equal(count, 0);
    assert_int_equal(heliod_pause_group(b, HELIOD_PAUSE_BUS, "sfx", 1, &count), 0);
    assert_int_equal(count, 0); /* a bus pause reaches only b's own voices */
    assert_true(th_stat(ctl, "denied") - denied0 >= 6);

    /* a's voices played on, untouched */
    heliod_voice_info_t vi[16];
    size_t n = 0;
    assert_true(heliod_voices(ctl, vi, 16, &n) >= 0);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(vi[i].state, HELIOD_VOICE_PLAYING);

    /* a pauses its own by bus; a control client acts on everyone's */
    assert_int_equal(heliod_pause_group(a, HELIOD_PAUSE_BUS, "sfx", 1, &count), 0);
    assert_int_equal(count, 2);
    assert_int_equal(heliod_pause_all(ctl, 0, 1, &count), 0);
    assert_int_equal(count, 2);
    /* a's stop-all "mine" includes its detached voice */
    assert_int_equal(heliod_stop_all(a, 0, 0, &count), 0);
    assert_int_equal(count, 2);
    th_sleep_ms(100);
    assert_int_equal(heliod_unload(a, "loop"), 0);
    heliod_close(a);
    heliod_close(b);
    heliod_close(ctl);
}

static void test_emitters_are_their_creators(void **state) {
    fx_t *f = *state;
    heliod_t *a = conn(f, "game-a", 0), *b = conn(f, "game-b", 0);
    heliod_t *ctl = conn(f, "tool", HELIOD_CONNECT_CONTROL);
    const float pos[3] = {1, 0, 0};
    assert_int_equal(heliod_emitter_create(a, "truck", pos, NULL, 0), 0);
    assert_int_equal(heliod_emitter_set(b, "truck", HELIOD_EM_POS, pos, NULL, 0), HELIOD_EPERM);
    assert_int_equal(heliod_emitter_destroy(b, "truck", 0, NULL), HELIOD_EPERM);
    assert_int_equal(heliod_emitter_set(a, "truck", HELIOD_EM_POS, pos, NULL, 0), 0);
    assert_int_equal(heliod_emitter_destroy(ctl, "truck", 0, NULL), 0);
    heliod_close(a);
    heliod_close(b);
    heliod_close(ctl);
}

/* ---- quotas -------------------------------------------------------------------- */

static int setup_quotas(void **state) {
    *state = &g_fx;
    const char *args[] = {"--client-voices",
                          "4",
                          "--client-detached",
                          "2",
                          "--client-streams",
                          "1",
                          "--client-loads",
                          "1",
                          "--client-sample-mb",
                          "1",
                          "--detached-loop-max-s",
                          "0.5",
                          NULL};
    return start(&g_fx, args);
}

static void load_done(void *user, uint32_t request_id, int status, const char *message,
                      const uint8_t *body, size_t len) {
    (void)request_id;
    (void)message;
    (void)body;
    (void)len;
    *(int *)user = status;
}

/* A play from a process of its own (quotas are per process): its result. */
static int other_process_plays(fx_t *f, const char *sound, uint32_t flags) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        heliod_t *h = NULL;
        if (heliod_connect(&h, f->d.sock, "game-b") != 0) _exit(99);
        int rc = play_rc(h, sound, flags, 0, NULL);
        heliod_close(h);
        _exit(rc == 0 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_quotas_refuse_and_name_themselves(void **state) {
    fx_t *f = *state;
    heliod_t *a = conn(f, "game-a", 0);
    heliod_t *ctl = conn(f, "tool", HELIOD_CONNECT_CONTROL);
    assert_true(th_stat(ctl, "quota_voices") == 4);
    assert_int_equal(heliod_load(ctl, "tone", f->tone, HELIOD_LOAD_SHARED, NULL), 0);

    /* voices: at 4, a play of no higher priority than a's lowest voice is
     * refused; a higher one replaces that voice, as a full pool would */
    heliod_voice_t v[4];
    for (int i = 0; i < 4; i++)
        v[i] = play(a, "tone", HELIOD_PLAY_LOOP, i == 2 ? -5 : 0);
    assert_int_equal(play_rc(a, "tone", HELIOD_PLAY_LOOP, -5, NULL), HELIOD_EQUOTA);
    fprintf(stderr, "# fifth voice: %s\n", heliod_last_error(a));
    assert_non_null(strstr(heliod_last_error(a), "--client-voices"));
    heliod_voice_t stolen = 0;
    assert_int_equal(play_rc(a, "tone", HELIOD_PLAY_LOOP, 10, &stolen), 0);
    assert_true(stolen == v[2]);
    /* another process is not held back by a's quota */
    assert_int_equal(other_process_plays(f, "tone", 0), 0);
    assert_int_equal(heliod_stop_all(a, 0, 0, NULL), 0);
    th_sleep_ms(100);

    /* detached: 2 */
    play(a, "tone", HELIOD_PLAY_DETACHED, 0);
    play(a, "tone", HELIOD_PLAY_DETACHED, 0);
    assert_int_equal(play_rc(a, "tone", HELIOD_PLAY_DETACHED, 0, NULL), HELIOD_EQUOTA);
    assert_non_null(strstr(heliod_last_error(a), "detached"));
    assert_int_equal(heliod_stop_all(a, 0, 0, NULL), 0);

    /* streams: 1 */
    assert_int_equal(
        heliod_load(ctl, "song", f->song, HELIOD_LOAD_STREAM | HELIOD_LOAD_SHARED, NULL), 0);
    heliod_voice_t vs = play(a, "song", 0, 0);
    assert_int_equal(play_rc(a, "song", 0, 0, NULL), HELIOD_EQUOTA);
    assert_non_null(strstr(heliod_last_error(a), "streamed"));
    assert_int_equal(other_process_plays(f, "song", 0), 0); /* its own stream quota */
    assert_int_equal(heliod_stop(a, vs, 0), 0);

    /* sample memory: 1 MiB per client, checked before anything is decoded */
    assert_int_equal(heliod_load(a, "big", f->big, 0, NULL), HELIOD_EQUOTA);
    fprintf(stderr, "# big load: %s\n", heliod_last_error(a));
    assert_non_null(strstr(heliod_last_error(a), "--client-sample-mb"));
    assert_int_equal(heliod_load(a, "small", f->tone, 0, NULL), 0); /* 188 KiB fits */
    /* the quota is the process's: ctl's shared tone counts too; make room */
    assert_int_equal(heliod_unload(a, "small"), 0);

    /* loads in flight: 1; two pipelined loads, the second refused */
    uint8_t body[2][HL_MAX_PATH + 128];
    size_t len[2];
    for (int i = 0; i < 2; i++) {
        hl_load_t m = {.flags = 0};
        snprintf(m.name, sizeof m.name, "p%d", i);
        snprintf(m.path, sizeof m.path, "%s", f->song);
        hl_wbuf_t w;
        hl_wbuf_init(&w, body[i], sizeof body[i]);
        hl_put_load(&w, &m);
        len[i] = w.len;
    }
    int st[2] = {1, 1};
    for (int i = 0; i < 2; i++)
        assert_true(heliod_raw_async(a, HL_OP_LOAD, body[i], len[i], load_done, &st[i]) > 0);
    assert_int_equal(heliod_sync(a), 0);
    fprintf(stderr, "# two pipelined loads: %d, %d\n", st[0], st[1]);
    assert_int_equal(st[0], 0);
    assert_int_equal(st[1], HELIOD_EQUOTA);
    assert_true(th_stat(ctl, "quota_refused_loads") >= 1);
    assert_true(th_stat(ctl, "quota_refused_sample_bytes") >= 1);
    assert_true(th_stat(ctl, "quota_refused_voices") >= 1);
    assert_true(th_stat(ctl, "quota_refused_detached") >= 1);
    assert_true(th_stat(ctl, "quota_refused_streams") >= 1);
    heliod_close(a);
    heliod_close(ctl);
}

static void test_detached_voices_outlive_and_stay_charged(void **state) {
    fx_t *f = *state;
    heliod_t *ctl = conn(f, "tool", HELIOD_CONNECT_CONTROL);
    heliod_t *a = conn(f, "game-a", 0);
    assert_int_equal(heliod_load(a, "mine", f->tone, 0, NULL), 0);
    double records0 = th_stat(ctl, "client_records");
    double sounds0 = th_stat(ctl, "sounds");
    /* one-shots (1 s) left behind: they play on after a left, charged to a,
     * and a's private sound lives as long as they use it */
    play(a, "mine", HELIOD_PLAY_DETACHED, 0);
    play(a, "mine", HELIOD_PLAY_DETACHED, 0);
    heliod_close(a);
    th_sleep_ms(150);
    assert_true(th_stat(ctl, "voices_active") == 2);
    assert_true(th_stat(ctl, "client_records") == records0); /* a's record stays */
    assert_true(th_stat(ctl, "sounds") == sounds0);          /* and its sound */
    th_sleep_ms(1200);
    assert_true(th_stat(ctl, "voices_active") == 0);
    assert_true(th_stat(ctl, "client_records") == records0 - 1);
    assert_true(th_stat(ctl, "sounds") == sounds0 - 1);
    heliod_close(ctl);
}

static void test_detached_loops_end_at_the_cap(void **state) {
    fx_t *f = *state;
    heliod_t *ctl = conn(f, "tool", HELIOD_CONNECT_CONTROL);
    heliod_t *a = conn(f, "game-a", 0);
    assert_int_equal(heliod_load(a, "hum", f->tone, HELIOD_LOAD_SHARED, NULL), 0);
    double expired0 = th_stat(ctl, "detached_expired");
    play(a, "hum", HELIOD_PLAY_LOOP | HELIOD_PLAY_DETACHED, 0);
    heliod_voice_t kept = play(a, "hum", HELIOD_PLAY_LOOP, 0); /* attached: no cap */
    heliod_close(ctl);
    ctl = conn(f, "tool", HELIOD_CONNECT_CONTROL);
    th_sleep_ms(1200); /* cap 0.5 s, checked every 250 ms, default fade-out */
    assert_true(th_stat(ctl, "detached_expired") - expired0 == 1);
    heliod_voice_info_t vi[8];
    size_t n = 0;
    assert_true(heliod_voices(ctl, vi, 8, &n) >= 0);
    assert_int_equal(n, 1);
    assert_true(vi[0].voice == kept);
    assert_int_equal(heliod_stop(a, kept, 0), 0);
    th_sleep_ms(100);
    assert_int_equal(heliod_unload(a, "hum"), 0);
    heliod_close(a);
    heliod_close(ctl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_names_are_per_client, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_voices_are_their_creators, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_emitters_are_their_creators, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_quotas_refuse_and_name_themselves, setup_quotas,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_detached_voices_outlive_and_stay_charged, setup_quotas,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_detached_loops_end_at_the_cap, setup_quotas, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
