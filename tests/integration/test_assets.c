/*
 * test_assets.c - banks, the sample-memory budget and world zones through
 * the real daemon, socket, libheliod and heliodctl, with files made here
 * by libsndfile.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

typedef th_fixture_t fixture_t;

static int start(void **state, const char *budget_mb) {
    const char *args[] = {"--max-sample-mb",
                          budget_mb,
                          "--client-sample-mb",
                          budget_mb,
                          "--zone-tick-hz",
                          "50",
                          NULL};
    return th_fixture_start(state, 0, args);
}
static int setup(void **state) {
    return start(state, "64");
}
static int setup_watch(void **state) {
    const char *args[] = {"--watch-assets", "--max-sample-mb", "64", NULL};
    return th_fixture_start(state, 0, args);
}
static int setup_small(void **state) {
    return start(state, "2"); /* 2 MiB: three 3 s mono sounds at 48 kHz (576 kB each) fit */
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static heliod_t *conn(fixture_t *f) {
    heliod_t *h = th_fixture_connect(f, "test_assets");
    assert_non_null(h);
    return h;
}

static void tone(fixture_t *f, const char *name, double seconds, char *path, size_t cap) {
    snprintf(path, cap, "%s/%s.wav", f->d.dir, name);
    assert_int_equal(th_write_sine(path, 48000, seconds, 440.0, 0.2), 0);
}

static void manifest(const char *path, const char *text) {
    FILE *m = fopen(path, "w");
    assert_non_null(m);
    fputs(text, m);
    fclose(m);
}

typedef struct {
    int loaded, failed, gone, events;
} bank_ev_t;

static void on_bank(void *user, const heliod_event_t *ev) {
    bank_ev_t *b = user;
    if (ev->type != HELIOD_EVENT_BANK || !ev->bank) return;
    b->events++;
    b->loaded |= ev->bank->state == HELIOD_BANK_LOADED;
    b->failed |= ev->bank->state == HELIOD_BANK_FAILED;
    b->gone |= ev->bank->state == HELIOD_BANK_GONE;
}

/* Waits (dispatching events) until cond or ~5 s. */
#define WAIT_FOR(h, cond)                                                                          \
    for (int w_ = 0; w_ < 500 && !(cond); w_++) {                                                  \
        heliod_dispatch(h);                                                                        \
        th_sleep_ms(10);                                                                           \
    }

static int find_bank(heliod_t *h, const char *name, heliod_bank_info_t *out) {
    static heliod_bank_info_t b[8];
    size_t n = 0;
    assert_true(heliod_banks(h, b, 8, &n) >= 0);
    for (size_t i = 0; i < n; i++)
        if (strcmp(b[i].name, name) == 0) {
            if (out) *out = b[i];
            return 1;
        }
    return 0;
}

/* A bank of real files loads (events report progress), plays, and unloads
 * only after its last voice ends. */
static void test_bank_lifecycle(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400], man[400];
    tone(f, "b1", 2.0, p, sizeof p);
    tone(f, "b2", 2.0, p, sizeof p);
    snprintf(man, sizeof man, "%s/forest.ini", f->d.dir);
    manifest(man, "# the forest\nname = forest\n[sound birds]\npath = b1.wav\n"
                  "[sound wind]\npath = b2.wav\npin = yes\n");
    bank_ev_t ev = {0};
    heliod_set_event_callback(h, on_bank, &ev);
    assert_int_equal(heliod_subscribe(h, HELIOD_SUB_BANK), 0);
    heliod_bank_info_t info;
    assert_int_equal(heliod_bank_load(h, man, &info), 0);
    assert_string_equal(info.name, "forest");
    assert_int_equal(info.sounds, 2);
    WAIT_FOR(h, ev.loaded);
    assert_true(ev.loaded);
    assert_true(ev.events >= 2); /* progress, then loaded */
    assert_true(find_bank(h, "forest", &info));
    assert_int_equal(info.state, HELIOD_BANK_LOADED);
    assert_int_equal(info.done, 2);
    assert_int_equal(info.bytes, 2u * 96000u * 4u);
    assert_int_equal(heliod_bank_load(h, man, NULL), HELIOD_EEXIST);

    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "birds", &pp, &v, NULL), 0);
    assert_int_equal(heliod_bank_unload(h, "forest"), 0);
    th_sleep_ms(100);
    assert_true(find_bank(h, "forest", &info)); /* birds still plays */
    assert_int_equal(info.state, HELIOD_BANK_UNLOADING);
    assert_int_equal(info.bytes, 96000u * 4u);
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(h, "wind", &pp, NULL, NULL), HELIOD_ENOSOUND); /* gone */
    assert_int_equal(heliod_stop(h, v, 5), 0);
    WAIT_FOR(h, ev.gone);
    assert_true(ev.gone);
    assert_false(find_bank(h, "forest", NULL));
    assert_int_equal(heliod_bank_unload(h, "forest"), HELIOD_ENOSOUND);

    /* a bad manifest: a clear error naming the line */
    manifest(man, "name = forest\n[sound birds]\npath = b1.wav\ncolour = green\n");
    assert_int_equal(heliod_bank_load(h, man, NULL), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), ":4:"));
    /* a missing file in it: the bank fails with that sound's error */
    manifest(man, "name = broken\n[sound a]\npath = b1.wav\n[sound b]\npath = nope.wav\n");
    ev.failed = 0;
    assert_int_equal(heliod_bank_load(h, man, NULL), 0);
    WAIT_FOR(h, ev.failed);
    assert_true(ev.failed);
    assert_true(find_bank(h, "broken", &info));
    assert_int_equal(info.failed, 1);
    assert_non_null(strstr(info.error, "nope.wav"));
    heliod_close(h);
}

/* A play of a sound whose bank is still loading answers ELOADING, never a
 * silent drop. The file is long and at 44.1 kHz (decoded, then resampled:
 * over 100 ms), the play goes out at once. */
static void test_play_while_loading(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400], man[400];
    snprintf(p, sizeof p, "%s/long.wav", f->d.dir);
    assert_int_equal(th_write_sine(p, 44100, 40.0, 220.0, 0.2), 0);
    snprintf(man, sizeof man, "%s/level.ini", f->d.dir);
    manifest(man, "[sound ambience]\npath = long.wav\n");
    assert_int_equal(heliod_bank_load(h, man, NULL), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    int rc = heliod_play(h, "ambience", &pp, NULL, NULL);
    assert_int_equal(rc, HELIOD_ELOADING);
    assert_non_null(strstr(heliod_last_error(h), "bank level"));
    heliod_bank_info_t info;
    for (int i = 0; i < 3000 && find_bank(h, "level", &info) && info.state != HELIOD_BANK_LOADED;
         i++) /* up to 30 s: sanitizer builds decode and resample several times slower */
        th_sleep_ms(10);
    assert_int_equal(info.state, HELIOD_BANK_LOADED);
    assert_int_equal(heliod_play(h, "ambience", &pp, NULL, NULL), 0);
    heliod_close(h);
}

static double stat(heliod_t *h, const char *key) {
    return th_stat(h, key);
}

/* The budget evicts what no voice plays, least recently played first, and
 * never a pinned sound; a load that cannot fit is refused clearly. */
static void test_budget_eviction(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400];
    const char *names[] = {"pinned", "a", "b", "c", "d"};
    for (int i = 0; i < 5; i++) {
        tone(f, names[i], 3.0, p, sizeof p); /* 576,000 bytes each decoded */
    }
    snprintf(p, sizeof p, "%s/pinned.wav", f->d.dir);
    assert_int_equal(heliod_load(h, "pinned", p, HELIOD_LOAD_SHARED | HELIOD_LOAD_PIN, NULL), 0);
    for (int i = 1; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s.wav", f->d.dir, names[i]);
        assert_int_equal(heliod_load(h, names[i], p, HELIOD_LOAD_SHARED, NULL), 0);
    }
    /* played order: b, then a: a is the most recent */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "b", &pp, &v, NULL), 0);
    assert_int_equal(heliod_stop(h, v, 0), 0);
    assert_int_equal(heliod_play(h, "a", &pp, &v, NULL), 0);
    assert_int_equal(heliod_stop(h, v, 0), 0);
    th_sleep_ms(100);
    assert_true(stat(h, "samples_pinned_bytes") == 576000.0);
    assert_true(stat(h, "samples_evictable_bytes") == 1152000.0);
    assert_true(stat(h, "samples_evictions") == 0.0);
    /* c does not fit in 2 MiB beside the three: b goes (played before a) */
    snprintf(p, sizeof p, "%s/c.wav", f->d.dir);
    assert_int_equal(heliod_load(h, "c", p, HELIOD_LOAD_SHARED, NULL), 0);
    assert_int_equal(heliod_play(h, "b", &pp, NULL, NULL), HELIOD_ENOSOUND);
    assert_int_equal(heliod_play(h, "a", &pp, &v, NULL), 0); /* still there, now playing */
    assert_int_equal(heliod_play(h, "pinned", &pp, NULL, NULL), 0);
    assert_true(stat(h, "samples_evictions") == 1.0);
    /* d: a and pinned play, c is the only candidate, so c goes */
    snprintf(p, sizeof p, "%s/d.wav", f->d.dir);
    assert_int_equal(heliod_load(h, "d", p, HELIOD_LOAD_SHARED, NULL), 0);
    assert_int_equal(heliod_play(h, "c", &pp, NULL, NULL), HELIOD_ENOSOUND);
    assert_true(stat(h, "samples_evictions") == 2.0);
    /* nothing evictable left (a, pinned play; d is playing now too): refused */
    assert_int_equal(heliod_play(h, "d", &pp, NULL, NULL), 0);
    snprintf(p, sizeof p, "%s/b.wav", f->d.dir);
    int rc = heliod_load(h, "b2", p, HELIOD_LOAD_SHARED, NULL);
    assert_int_equal(rc, HELIOD_ENOMEM);
    assert_non_null(strstr(heliod_last_error(h), "max-sample-mb"));
    heliod_close(h);
}

/* World zones through the daemon: the listener walks to a zone, its bank
 * loads; away beyond 1.25 x the radius, it unloads; the scheduler's reports
 * arrive as events and its totals in STATS. */
typedef struct {
    int ticks;
    int saw_request, saw_unload;
} zone_ev_t;

static void on_zone(void *user, const heliod_event_t *ev) {
    zone_ev_t *z = user;
    if (ev->type != HELIOD_EVENT_ZONE_TICK || !ev->message) return;
    z->ticks++;
    if (strstr(ev->message, "requested=near")) z->saw_request = 1;
    if (strstr(ev->message, "unloaded=near")) z->saw_unload = 1;
}

static void test_world_zones(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400], man[400];
    tone(f, "z1", 1.0, p, sizeof p);
    snprintf(man, sizeof man, "%s/near.ini", f->d.dir);
    manifest(man, "name = near\n[sound zone_hum]\npath = z1.wav\n");
    const float pos[3] = {100, 0, 0};
    assert_int_equal(heliod_zone_add(h, "near", man, pos, 20.0f), 0);
    assert_int_equal(heliod_zone_add(h, "near", man, pos, 20.0f), HELIOD_EEXIST);
    zone_ev_t ze = {0};
    heliod_set_event_callback(h, on_zone, &ze);
    assert_int_equal(heliod_subscribe(h, HELIOD_SUB_ZONES), 0);
    heliod_zone_info_t zi[4];
    size_t n = 0;
    assert_int_equal(heliod_zones(h, zi, 4, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(zi[0].state, 0);
    assert_int_equal(zi[0].bytes, 48000u * 4u); /* estimated from the header */
    heliod_listener_t l = {.mask = HELIOD_LIS_POS, .pos = {90, 0, 0}};
    assert_int_equal(heliod_set_listener(h, &l), 0);
    for (int i = 0; i < 300; i++) {
        heliod_dispatch(h);
        assert_int_equal(heliod_zones(h, zi, 4, &n), 0);
        if (zi[0].state == 2) break;
        th_sleep_ms(10);
    }
    assert_int_equal(zi[0].state, 2);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(h, "zone_hum", &pp, NULL, NULL), 0);
    /* 24 m away: inside 1.25 x 20, it stays */
    l.pos[0] = 76;
    assert_int_equal(heliod_set_listener(h, &l), 0);
    th_sleep_ms(200);
    assert_int_equal(heliod_zones(h, zi, 4, &n), 0);
    assert_int_equal(zi[0].state, 2);
    /* far away: unloaded */
    l.pos[0] = 0;
    assert_int_equal(heliod_set_listener(h, &l), 0);
    for (int i = 0; i < 300; i++) {
        heliod_dispatch(h);
        assert_int_equal(heliod_zones(h, zi, 4, &n), 0);
        if (zi[0].state == 0 && ze.saw_unload) break;
        th_sleep_ms(10);
    }
    assert_int_equal(zi[0].state, 0);
    assert_true(ze.ticks > 10 && ze.saw_request && ze.saw_unload);
    assert_true(th_stat(h, "zones_completed") >= 1.0);
    assert_true(th_stat(h, "zones_unloaded") >= 1.0);
    assert_int_equal(heliod_zone_remove(h, "near"), 0);
    assert_int_equal(heliod_zone_remove(h, "near"), HELIOD_EINVAL);
    heliod_close(h);
}

/* An Ogg file uploaded over the socket (LOAD_DATA chunks): decoded from
 * memory, playable; out-of-order chunks and oversize totals refused; the
 * CLI's `load NAME -` reads stdin. */
static void test_upload(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400];
    snprintf(p, sizeof p, "%s/up.ogg", f->d.dir);
    SF_INFO info = {.samplerate = 44100, .channels = 2, .format = SF_FORMAT_OGG | SF_FORMAT_VORBIS};
    SNDFILE *sf = sf_open(p, SFM_WRITE, &info);
    assert_non_null(sf);
    static float buf[2 * 44100 * 8];
    uint32_t seed = 12345; /* noise: Vorbis cannot squeeze it below a chunk */
    for (int i = 0; i < 44100 * 8; i++) {
        seed = seed * 1664525u + 1013904223u;
        buf[2 * i] = 0.2f * ((float)(seed >> 8) / 8388608.0f - 1.0f);
        seed = seed * 1664525u + 1013904223u;
        buf[2 * i + 1] = 0.2f * ((float)(seed >> 8) / 8388608.0f - 1.0f);
    }
    sf_writef_float(sf, buf, 44100 * 8);
    sf_close(sf);
    FILE *in = fopen(p, "rb");
    assert_non_null(in);
    static unsigned char file[1 << 20];
    size_t n = fread(file, 1, sizeof file, in);
    fclose(in);
    assert_true(n > 65536); /* more than one chunk */
    heliod_sound_info_t si;
    double t0 = now_ms();
    assert_int_equal(heliod_load_memory(h, "up", file, n, HELIOD_LOAD_SHARED, &si), 0);
    double t_fd = now_ms() - t0;
    /* it went as a memfd (LOAD_FD), not in chunks */
    assert_true(th_stat(h, "uploads_fd") == 1.0);
    assert_true(th_stat(h, "uploads_chunked") == 0.0);
    assert_true(th_stat(h, "fds_received") == 1.0);
    assert_string_equal(si.name, "up");
    assert_int_equal(si.channels, 2);
    assert_int_equal(si.source_rate, 44100);
    assert_true(si.frames >= 383990 && si.frames <= 384010); /* 8 s at 48 kHz */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(h, "up", &pp, NULL, NULL), 0);
    /* the fallback: chunks (as when memfd_create fails or an older daemon
     * answers LOAD_FD with EBADOP) decode the same file the same way */
    setenv("HELIOD_UPLOAD", "chunks", 1);
    heliod_sound_info_t sc;
    t0 = now_ms();
    assert_int_equal(heliod_load_memory(h, "upc", file, n, HELIOD_LOAD_SHARED, &sc), 0);
    print_message(
        "upload of %zu bytes of Ogg (8 s stereo), decoded: memfd %.0f ms, chunks %.0f ms\n", n,
        t_fd, now_ms() - t0);
    unsetenv("HELIOD_UPLOAD");
    assert_int_equal(sc.frames, si.frames);
    assert_true(th_stat(h, "uploads_chunked") == 1.0);
    assert_true(th_stat(h, "uploads_fd") == 1.0);
    assert_int_equal(heliod_play(h, "upc", &pp, NULL, NULL), 0);
    /* garbage decodes to a clear error */
    memset(file, 0x5a, 4096);
    assert_int_equal(heliod_load_memory(h, "junk", file, 4096, 0, NULL), HELIOD_EDECODE);
    assert_int_equal(heliod_load_memory(h, "big", file, (size_t)HL_MAX_UPLOAD + 1, 0, NULL),
                     HELIOD_EINVAL);
    /* the CLI: stdin */
    char cmd[1200], out[512];
    snprintf(cmd, sizeof cmd, "\"%s\" --socket %s load up2 - < %s", getenv("HELIODCTL_BIN"),
             f->d.sock, p);
    FILE *pc = popen(cmd, "r");
    assert_non_null(pc);
    size_t got = fread(out, 1, sizeof out - 1, pc);
    out[got] = '\0';
    assert_int_equal(pclose(pc), 0);
    assert_non_null(strstr(out, "up2 frames="));
    assert_non_null(strstr(out, "uploaded"));
    assert_true(th_stat(h, "uploads_fd") == 3.0); /* up, junk, up2 */
    assert_true(th_stat(h, "fds_received") == 3.0);
    heliod_close(h);
}

/* ---- hot reload (--watch-assets) ------------------------------------------ */

typedef struct {
    int ok, failed;
    uint32_t frames;
    int status;
    char msg[256];
} reload_ev_t;

static void on_reload(void *user, const heliod_event_t *ev) {
    reload_ev_t *r = user;
    if (ev->type != HELIOD_EVENT_RELOAD || !ev->sound || strcmp(ev->sound, "hot") != 0) return;
    if (ev->status == 0)
        r->ok++;
    else
        r->failed++;
    r->frames = ev->frames;
    r->status = ev->status;
    snprintf(r->msg, sizeof r->msg, "%s", ev->message ? ev->message : "");
}

static uint32_t sound_frames(heliod_t *h, const char *name) {
    static heliod_sound_info_t si[64];
    size_t n = 0;
    assert_true(heliod_sounds(h, si, 64, &n) >= 0);
    for (size_t i = 0; i < n; i++)
        if (strcmp(si[i].name, name) == 0) return si[i].frames;
    return 0;
}

/* Waits (dispatching events) until STATS key reaches want, up to ~10 s
 * (sanitizer builds decode slower); returns the value seen. */
static double wait_stat(heliod_t *h, const char *key, double want) {
    double v = th_stat(h, key);
    for (int i = 0; i < 1000 && v < want; i++) {
        heliod_dispatch(h);
        th_sleep_ms(10);
        v = th_stat(h, key);
    }
    heliod_dispatch(h);
    return v;
}

/* A loaded file that changes on disk is decoded again: written to a
 * temporary name and renamed over (an editor's save), then rewritten in
 * place (five times at once: one reload), then corrupted (the old data
 * stays, the error is reported). New plays get the new data; a voice that
 * was playing keeps the old, which is freed once it ends; both count in the
 * budget meanwhile. A streamed sound's description follows its file too. */
static void test_hot_reload(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    char p[400], tmp[400];
    snprintf(p, sizeof p, "%s/hot.wav", f->d.dir);
    snprintf(tmp, sizeof tmp, "%s/.hot.wav.tmp", f->d.dir);
    assert_int_equal(th_write_sine(p, 48000, 1.0, 440.0, 0.2), 0);
    assert_int_equal(heliod_load(h, "hot", p, HELIOD_LOAD_SHARED, NULL), 0);
    assert_int_equal(sound_frames(h, "hot"), 48000);
    reload_ev_t rev = {0};
    heliod_set_event_callback(h, on_reload, &rev);
    assert_int_equal(heliod_subscribe(h, HELIOD_SUB_BANK), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t old;
    assert_int_equal(heliod_play(h, "hot", &pp, &old, NULL), 0);
    th_sleep_ms(100);

    /* 1: write a temporary file, rename it over the loaded one */
    assert_int_equal(th_write_sine(tmp, 48000, 0.5, 880.0, 0.2), 0);
    double t0 = now_ms();
    assert_int_equal(rename(tmp, p), 0);
    assert_true(wait_stat(h, "reloads", 1) == 1.0);
    double took = now_ms() - t0;
    print_message("hot reload: rename to new plays in %.0f ms (debounce 150 ms)\n", took);
    assert_true(took < 10000);
    WAIT_FOR(h, rev.ok == 1);
    assert_int_equal(rev.ok, 1);
    assert_int_equal(rev.frames, 24000);
    assert_int_equal(sound_frames(h, "hot"), 24000); /* SOUNDS: the new data */
    /* the old data lives on for the voice playing it, and counts */
    assert_true(th_stat(h, "sounds_retired") == 1.0);
    assert_true(th_stat(h, "samples_resident_bytes") == (48000.0 + 24000.0) * 4.0);
    /* the old voice loops over the old second: its position passes 0.5 s */
    double maxpos = 0;
    for (int i = 0; i < 150 && maxpos < 0.6; i++) {
        heliod_voice_info_t vi[8];
        size_t n = 0;
        assert_true(heliod_voices(h, vi, 8, &n) >= 0);
        for (size_t k = 0; k < n; k++)
            if (vi[k].voice == old && vi[k].position_s > maxpos) maxpos = vi[k].position_s;
        th_sleep_ms(20);
    }
    assert_true(maxpos > 0.6);
    /* a new play gets the new data: it ends after 0.5 s */
    heliod_play_params_init(&pp);
    heliod_voice_t nv;
    assert_int_equal(heliod_play(h, "hot", &pp, &nv, NULL), 0);
    th_sleep_ms(50);
    {
        heliod_voice_info_t vi[8];
        size_t n = 0;
        assert_true(heliod_voices(h, vi, 8, &n) >= 0);
        int seen = 0;
        for (size_t k = 0; k < n; k++)
            if (vi[k].voice == nv) seen = vi[k].position_s < 0.5;
        assert_true(seen);
    }

    /* 2: rewritten in place, five times in quick succession: one reload */
    double ev0 = th_stat(h, "reload_events");
    for (int i = 0; i < 5; i++)
        assert_int_equal(th_write_sine(p, 48000, 0.75, 660.0, 0.2), 0);
    assert_true(wait_stat(h, "reloads", 2) == 2.0);
    th_sleep_ms(400); /* longer than the debounce: no second reload follows */
    assert_true(th_stat(h, "reloads") == 2.0);
    assert_true(th_stat(h, "reload_events") >= ev0 + 5);
    assert_int_equal(sound_frames(h, "hot"), 36000);
    /* the old voice still plays the first data; the 0.5 s one was unused */
    assert_true(th_stat(h, "sounds_retired") == 1.0);

    /* the old voice ends: its data goes */
    assert_int_equal(heliod_stop(h, old, 0), 0);
    for (int i = 0; i < 500 && th_stat(h, "sounds_retired") > 0; i++)
        th_sleep_ms(10);
    assert_true(th_stat(h, "sounds_retired") == 0.0);
    assert_true(th_stat(h, "samples_resident_bytes") == 36000.0 * 4.0);

    /* 3: a corrupt rewrite: the old data stays, the error is reported (also
     * to `heliodctl watch`) */
    char wout[400];
    snprintf(wout, sizeof wout, "%s/watch.out", f->d.dir);
    double clients0 = th_stat(h, "clients");
    pid_t wp = fork();
    assert_true(wp >= 0);
    if (wp == 0) {
        int o = open(wout, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (o < 0 || dup2(o, 1) < 0) _exit(127);
        execl(getenv("HELIODCTL_BIN"), "heliodctl", "--socket", f->d.sock, "watch", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 500 && th_stat(h, "clients") <= clients0; i++)
        th_sleep_ms(10);
    th_sleep_ms(200); /* its SUBSCRIBE follows its HELLO */
    FILE *c = fopen(p, "wb");
    assert_non_null(c);
    for (int i = 0; i < 4096; i++)
        fputc(0x5a, c);
    fclose(c);
    assert_true(wait_stat(h, "reload_failures", 1) == 1.0);
    WAIT_FOR(h, rev.failed == 1);
    assert_int_equal(rev.failed, 1);
    assert_int_equal(rev.status, HELIOD_EDECODE);
    assert_non_null(strstr(rev.msg, "decode"));
    assert_int_equal(sound_frames(h, "hot"), 36000);
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(h, "hot", &pp, NULL, NULL), 0);
    assert_true(th_stat(h, "reloads") == 2.0);
    char wtext[2048] = "";
    for (int i = 0; i < 300 && !strstr(wtext, "reload hot failed EDECODE"); i++) {
        th_sleep_ms(10);
        FILE *wf = fopen(wout, "r");
        if (!wf) continue;
        size_t got = fread(wtext, 1, sizeof wtext - 1, wf);
        wtext[got] = '\0';
        fclose(wf);
    }
    kill(wp, SIGTERM);
    waitpid(wp, NULL, 0);
    assert_non_null(strstr(wtext, "reload hot failed EDECODE"));

    /* a streamed sound: new plays open the new file; SOUNDS follows it */
    snprintf(p, sizeof p, "%s/music.wav", f->d.dir);
    assert_int_equal(th_write_sine(p, 48000, 2.0, 220.0, 0.2), 0);
    assert_int_equal(heliod_load(h, "music", p, HELIOD_LOAD_SHARED | HELIOD_LOAD_STREAM, NULL), 0);
    assert_int_equal(sound_frames(h, "music"), 96000);
    snprintf(tmp, sizeof tmp, "%s/music.new", f->d.dir);
    assert_int_equal(th_write_sine(tmp, 48000, 3.0, 330.0, 0.2), 0);
    assert_int_equal(rename(tmp, p), 0);
    assert_true(wait_stat(h, "reloads", 3) == 3.0);
    assert_int_equal(sound_frames(h, "music"), 144000);
    /* the new play reads the new file: still playing after the old one's 2 s
     * (a decoder that read the old file would have ended it at its EOF) */
    heliod_voice_t mv;
    assert_int_equal(heliod_play(h, "music", &pp, &mv, NULL), 0);
    th_sleep_ms(2400);
    {
        heliod_voice_info_t vi[8];
        size_t n = 0;
        assert_true(heliod_voices(h, vi, 8, &n) >= 0);
        int playing = 0;
        for (size_t k = 0; k < n; k++)
            if (vi[k].voice == mv) playing = vi[k].position_s > 2.0;
        assert_true(playing);
    }
    /* a bank's sound: the bank's size follows */
    char man[400];
    snprintf(p, sizeof p, "%s/bk.wav", f->d.dir);
    assert_int_equal(th_write_sine(p, 48000, 1.0, 220.0, 0.2), 0);
    snprintf(man, sizeof man, "%s/hotbank.ini", f->d.dir);
    manifest(man, "name = hotbank\n[sound bk]\npath = bk.wav\n");
    assert_int_equal(heliod_bank_load(h, man, NULL), 0);
    heliod_bank_info_t bi;
    for (int i = 0; i < 500 && (!find_bank(h, "hotbank", &bi) || bi.state != HELIOD_BANK_LOADED);
         i++)
        th_sleep_ms(10);
    assert_int_equal(bi.bytes, 48000u * 4u);
    snprintf(tmp, sizeof tmp, "%s/bk.new", f->d.dir);
    assert_int_equal(th_write_sine(tmp, 48000, 0.25, 220.0, 0.2), 0);
    assert_int_equal(rename(tmp, p), 0);
    assert_true(wait_stat(h, "reloads", 4) == 4.0);
    assert_true(find_bank(h, "hotbank", &bi));
    assert_int_equal(bi.bytes, 12000u * 4u);
    assert_int_equal(sound_frames(h, "bk"), 12000);
    /* unwatched: a file that is not loaded changes, nothing happens */
    snprintf(tmp, sizeof tmp, "%s/other.wav", f->d.dir);
    assert_int_equal(th_write_sine(tmp, 48000, 0.1, 220.0, 0.2), 0);
    th_sleep_ms(300);
    assert_true(th_stat(h, "reloads") == 4.0);
    heliod_close(h);
}

/* ---- descriptors (LOAD_FD) on a raw connection ------------------------------ */

static int fd_count(pid_t pid) {
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(p);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* Sends buf with nfds descriptors on its first byte. 0 or -1. */
static int send_with_fds(int sock, const void *buf, size_t len, const int *fds, int nfds) {
    union {
        char b[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {.iov_base = (void *)(uintptr_t)buf, .iov_len = len};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        msg.msg_control = ctl.b;
        msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
    }
    return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* A frame of op with body into b: its length. */
static size_t frame(uint8_t *b, size_t cap, uint16_t op, uint32_t id, const hl_load_fd_t *lf,
                    int truncate) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, cap);
    hl_frame_begin(&w, op, 0, id);
    if (op == HL_OP_HELLO) {
        hl_hello_t m = {.version = HL_PROTO_VERSION};
        snprintf(m.client_name, sizeof m.client_name, "fds");
        hl_put_hello(&w, &m);
    } else if (lf) {
        hl_put_load_fd(&w, lf);
        if (truncate) w.len -= 4; /* the size's last bytes missing: malformed */
    }
    int n = hl_frame_end(&w);
    if (truncate && n > 0) { /* fix the size field to what is really there */
        b[0] = (uint8_t)n;
        b[1] = (uint8_t)(n >> 8);
    }
    return n > 0 ? (size_t)n : 0;
}

/* Reads frames until the reply or ERROR event of id: its status (0 ok),
 * msg filled; 1 on EOF (the daemon closed), 2 on timeout. */
static uint8_t g_rx[HL_MAX_FRAME]; /* one raw connection at a time: what was read ahead */
static size_t g_rx_have;
static int raw_reply(int sock, uint32_t id, char *msg, size_t cap) {
    uint8_t *buf = g_rx;
    size_t have = g_rx_have;
    msg[0] = 0;
    for (;;) {
        hl_frame_hdr_t h;
        while (have < HL_FRAME_HDR || hl_frame_peek(buf, have, &h) == 1 ||
               (hl_frame_peek(buf, have, &h) == 0 && h.size > have)) {
            struct pollfd p = {.fd = sock, .events = POLLIN};
            g_rx_have = have;
            if (poll(&p, 1, 10000) <= 0) return 2;
            ssize_t n = recv(sock, buf + have, sizeof g_rx - have, 0);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return 1;
            have += (size_t)n;
        }
        hl_rbuf_t r;
        hl_rbuf_init(&r, buf + HL_FRAME_HDR, h.size - HL_FRAME_HDR);
        int status = 0, mine = h.id == id || (id == 0 && h.op == HL_OP_EVENT);
        if (h.op == HL_OP_REPLY) {
            hl_reply_head_t rh;
            hl_get_reply_head(&r, &rh);
            status = rh.status;
            if (status < 0) hl_get_str(&r, msg, cap);
        } else if (h.op == HL_OP_EVENT) {
            static hl_event_t ev;
            hl_get_event(&r, &ev);
            status = ev.status;
            snprintf(msg, cap, "%s", ev.message);
            mine = mine && ev.type == HL_EVENT_ERROR;
        }
        memmove(buf, buf + h.size, have - h.size);
        have -= h.size;
        g_rx_have = have;
        if (mine) return status;
    }
}

static int raw_hello(const char *sock) {
    int fd = th_raw_connect(sock);
    assert_true(fd >= 0);
    g_rx_have = 0;
    uint8_t b[256];
    char msg[256];
    size_t n = frame(b, sizeof b, HL_OP_HELLO, 1, NULL, 0);
    assert_int_equal(send_with_fds(fd, b, n, NULL, 0), 0);
    assert_int_equal(raw_reply(fd, 1, msg, sizeof msg), 0);
    return fd;
}

static int memfd_of(size_t size) {
    int fd = memfd_create("t", MFD_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0); /* sparse: nothing is written */
    return fd;
}

/* Hostile descriptors: an oversized file, a size that lies, a pipe, a frame
 * without its descriptor, two at once, one on a malformed frame or on a
 * PING, one left with a half-sent frame: each refused with a clear error
 * (EPROTO closes the connection), and the daemon holds no more descriptors
 * afterwards than before. A good one loads. */
static void test_fd_hygiene(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f);
    int base = fd_count(f->d.pid);
    assert_true(base > 0);
    uint8_t b[512];
    char msg[256];
    hl_load_fd_t lf = {.flags = 0};
    snprintf(lf.name, sizeof lf.name, "x");
    int sent = 0, refused = 0;

    int s = raw_hello(f->d.sock);
    /* 1: larger than HL_MAX_UPLOAD (a sparse memfd): ETOOBIG, nothing mapped */
    int m = memfd_of((size_t)HL_MAX_UPLOAD + 1);
    lf.size = (uint64_t)HL_MAX_UPLOAD + 1;
    size_t n = frame(b, sizeof b, HL_OP_LOAD_FD, 10, &lf, 0);
    assert_int_equal(send_with_fds(s, b, n, &m, 1), 0);
    assert_int_equal(raw_reply(s, 10, msg, sizeof msg), HELIOD_ETOOBIG);
    assert_non_null(strstr(msg, "upload limit"));
    close(m);
    sent++, refused++;
    /* 2: the frame says 200 bytes, the file holds 100: EINVAL */
    m = memfd_of(100);
    lf.size = 200;
    n = frame(b, sizeof b, HL_OP_LOAD_FD, 11, &lf, 0);
    assert_int_equal(send_with_fds(s, b, n, &m, 1), 0);
    assert_int_equal(raw_reply(s, 11, msg, sizeof msg), HELIOD_EINVAL);
    assert_non_null(strstr(msg, "holds 100 bytes"));
    close(m);
    sent++; /* taken by the load, closed by its completion */
    /* 3: a pipe is not a file */
    int pp[2];
    assert_int_equal(pipe(pp), 0);
    lf.size = 100;
    n = frame(b, sizeof b, HL_OP_LOAD_FD, 12, &lf, 0);
    assert_int_equal(send_with_fds(s, b, n, &pp[0], 1), 0);
    assert_int_equal(raw_reply(s, 12, msg, sizeof msg), HELIOD_EINVAL);
    assert_non_null(strstr(msg, "not a regular file"));
    close(pp[0]);
    close(pp[1]);
    sent++;
    /* 4: no descriptor at all */
    n = frame(b, sizeof b, HL_OP_LOAD_FD, 13, &lf, 0);
    assert_int_equal(send_with_fds(s, b, n, NULL, 0), 0);
    assert_int_equal(raw_reply(s, 13, msg, sizeof msg), HELIOD_EINVAL);
    assert_non_null(strstr(msg, "no descriptor"));
    /* 5: a good one (a WAV in a memfd) loads, on the same connection */
    char p[400];
    tone(f, "viafd", 0.5, p, sizeof p);
    FILE *in = fopen(p, "rb");
    assert_non_null(in);
    static uint8_t wav[200000];
    size_t wl = fread(wav, 1, sizeof wav, in);
    fclose(in);
    m = memfd_create("wav", MFD_CLOEXEC);
    assert_int_equal(write(m, wav, wl), (ssize_t)wl);
    snprintf(lf.name, sizeof lf.name, "viafd");
    lf.size = wl;
    n = frame(b, sizeof b, HL_OP_LOAD_FD, 14, &lf, 0);
    assert_int_equal(send_with_fds(s, b, n, &m, 1), 0);
    assert_int_equal(raw_reply(s, 14, msg, sizeof msg), 0);
    close(m);
    sent++;
    heliod_play_params_t pl;
    heliod_play_params_init(&pl);
    assert_int_equal(heliod_play(h, "viafd", &pl, NULL, NULL), HELIOD_ENOSOUND); /* private */
    close(s);

    /* 6: two descriptors with one frame: EPROTO, closed */
    s = raw_hello(f->d.sock);
    int two[2] = {memfd_of(10), memfd_of(10)};
    lf.size = 10;
    n = frame(b, sizeof b, HL_OP_LOAD_FD, 20, &lf, 0);
    assert_int_equal(send_with_fds(s, b, n, two, 2), 0);
    assert_int_equal(raw_reply(s, 0, msg, sizeof msg), HELIOD_EPROTO);
    assert_non_null(strstr(msg, "more than one descriptor"));
    assert_int_equal(raw_reply(s, 20, msg, sizeof msg), 1); /* closed */
    close(two[0]);
    close(two[1]);
    close(s);
    sent += 2, refused += 2;
    /* 7: a descriptor on a PING: refused before the PING runs (EPROTO, id 0,
     * then closed: the PING is never answered) */
    s = raw_hello(f->d.sock);
    m = memfd_of(10);
    n = frame(b, sizeof b, HL_OP_PING, 30, NULL, 0);
    assert_int_equal(send_with_fds(s, b, n, &m, 1), 0);
    /* read to the close: the PING's reply never comes (it did when the
     * descriptor was refused only after the frame ran) */
    assert_int_equal(raw_reply(s, 30, msg, sizeof msg), 1);
    close(m);
    close(s);
    sent++, refused++;
    /* 8: a malformed LOAD_FD body with its descriptor: EPROTO, closed */
    s = raw_hello(f->d.sock);
    m = memfd_of(10);
    n = frame(b, sizeof b, HL_OP_LOAD_FD, 40, &lf, 1);
    assert_int_equal(send_with_fds(s, b, n, &m, 1), 0);
    assert_int_equal(raw_reply(s, 40, msg, sizeof msg), HELIOD_EPROTO);
    close(m);
    close(s);
    sent++, refused++;
    /* 9: half a frame with its descriptor, then gone */
    s = raw_hello(f->d.sock);
    m = memfd_of(10);
    n = frame(b, sizeof b, HL_OP_LOAD_FD, 50, &lf, 0);
    assert_int_equal(send_with_fds(s, b, 5, &m, 1), 0);
    th_sleep_ms(100);
    close(m);
    close(s);
    sent++, refused++;

    /* every descriptor is gone again (closing connections linger up to 2 s) */
    int now = fd_count(f->d.pid);
    for (int i = 0; i < 400 && now > base; i++) {
        th_sleep_ms(10);
        now = fd_count(f->d.pid);
    }
    print_message("fd hygiene: daemon fds %d before, %d after; STATS fds_received=%.0f "
                  "fds_closed=%.0f\n",
                  base, now, th_stat(h, "fds_received"), th_stat(h, "fds_closed"));
    assert_int_equal(now, base);
    assert_true(th_stat(h, "fds_received") == (double)sent);
    assert_true(th_stat(h, "fds_closed") == (double)refused);
    assert_true(th_stat(h, "uploads_fd") == 3.0); /* 2, 3 and 5 reached the loader */
    heliod_close(h);
}

/* heliodctl bank load waits and reports progress (plain lines off a tty). */
static void test_ctl_bank(void **state) {
    fixture_t *f = *state;
    char p[400], man[400];
    tone(f, "c1", 1.0, p, sizeof p);
    snprintf(man, sizeof man, "%s/ui.ini", f->d.dir);
    manifest(man, "name = ui\n[sound click]\npath = c1.wav\n");
    char out[4096], err[4096];
    const char *load[] = {"bank", "load", man, NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, load), 0);
    assert_non_null(strstr(out, "ui loaded: 1 sounds"));
    assert_non_null(strstr(err, "bank ui: 1/1 sounds"));
    const char *banks[] = {"banks", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, banks), 0);
    assert_non_null(strstr(out, "ui loaded sounds=1/1"));
    const char *unload[] = {"bank", "unload", "ui", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, unload), 0);
    const char *bad[] = {"bank", "load", "/nonexistent/x.ini", NULL};
    assert_int_not_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, bad), 0);
    assert_non_null(strstr(err, "cannot open bank"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        TH_TEST(test_bank_lifecycle, setup),
        TH_TEST(test_play_while_loading, setup),
        TH_TEST(test_budget_eviction, setup_small),
        TH_TEST(test_world_zones, setup),
        TH_TEST(test_ctl_bank, setup),
        TH_TEST(test_upload, setup),
        TH_TEST(test_hot_reload, setup_watch),
        TH_TEST(test_fd_hygiene, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
