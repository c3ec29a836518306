/*
 * test_perm.c - the permission model between client processes: a stranger
 * (a plain client of another process) cannot silence a game through any
 * object it does not own (cues, categories, buses, effects, ducking, reverb
 * zones, banks, the master, the device, stats reset), nor fill a table
 * (per-process caps); the places kept for control clients are one per
 * process; quotas are per process (20 connections, one budget); a stalled
 * upload is charged to its client and times out; a script's 256 detached
 * loops fit the default quotas; a bank's cue sheet is applied as its
 * loader (its namespace, its rights, its quota); bank and world-zone names
 * are per process and a game's bank sounds are its own (neither playable
 * nor evictable by a stranger); each bus has its own STATS keys and
 * profiler row; a gone process's objects are reclaimed (nothing adoptable).
 * Real daemon, real libheliod, the stranger a forked process of its own.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

typedef struct {
    th_daemon_t d;
    char tone[512];
} fx_t;

static fx_t g_fx;

static int start(const char *const *args) {
    fx_t *f = &g_fx;
    memset(f, 0, sizeof *f);
    if (th_daemon_start(&f->d, 0, args) != 0) return -1;
    snprintf(f->tone, sizeof f->tone, "%.256s/tone.wav", f->d.dir);
    return th_write_sine(f->tone, 48000, 1.0, 440, 0.2);
}

static int setup_default(void **state) {
    *state = &g_fx;
    return start(NULL);
}

static int setup_small(void **state) {
    static const char *const args[] = {"--client-cues",
                                       "16",
                                       "--client-emitters",
                                       "16",
                                       "--client-buses",
                                       "4",
                                       "--client-reverb-zones",
                                       "3",
                                       "--client-voices",
                                       "8",
                                       "--max-clients",
                                       "4",
                                       "--client-sample-mb",
                                       "1",
                                       NULL};
    *state = &g_fx;
    return start(args);
}

static int teardown(void **state) {
    return th_daemon_finish(&((fx_t *)*state)->d);
}

static heliod_t *conn(fx_t *f, const char *name, uint32_t flags) {
    return th_connect(&f->d, name, flags);
}

/* Runs fn(h, out) in a forked process of its own connected as a plain
 * client; its results come back through a pipe. Returns how many ints. */
typedef int (*child_fn)(heliod_t *h, int *out, void *arg);
static int in_child(fx_t *f, child_fn fn, void *arg, int *out, int cap) {
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        heliod_t *h = NULL;
        int res[256] = {0}, n = 0;
        if (heliod_connect(&h, f->d.sock, "stranger") == 0) {
            n = fn(h, res, arg);
            heliod_close(h);
        }
        if (write(p[1], res, sizeof(int) * (size_t)n) < 0) _exit(2);
        _exit(0);
    }
    close(p[1]);
    int n = 0;
    ssize_t r;
    while (n < cap && (r = read(p[0], out + n, sizeof(int) * (size_t)(cap - n))) > 0)
        n += (int)(r / (ssize_t)sizeof(int));
    close(p[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return n;
}

/* ---- a stranger cannot silence a game ---------------------------------------- */

static int attack(heliod_t *h, int *out, void *arg) {
    (void)arg;
    int n = 0;
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "gcue");
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "tone");
    cue.gain_db = -96;
    out[n++] = heliod_cue_define(h, &cue); /* 0: its own gcue (names are per process) */
    snprintf(cue.name, sizeof cue.name, "evil");
    snprintf(cue.category, sizeof cue.category, "gcat");
    cue.gain_db = 0;
    out[n++] = heliod_cue_define(h, &cue); /* 1: the game's category: not in its namespace */
    heliod_category_t cat;
    heliod_category_init(&cat);
    snprintf(cat.name, sizeof cat.name, "gcat");
    cat.max_instances = 1;
    out[n++] = heliod_category_define(h, &cat);      /* 2: its own gcat */
    out[n++] = heliod_bus_create(h, "pit", "");      /* 3: its own: 0 */
    out[n++] = heliod_bus_mute(h, "pit", 1, 0);      /* 4: its own: 0 */
    out[n++] = heliod_bus_parent(h, "gbus", "pit");  /* 5 */
    out[n++] = heliod_bus_gain(h, "gbus", -96, 0);   /* 6 */
    out[n++] = heliod_bus_mute(h, "gbus", 1, 0);     /* 7 */
    out[n++] = heliod_bus_remove(h, "gbus");         /* 8 */
    out[n++] = heliod_bus_mute(h, "master", 1, 0);   /* 9 */
    out[n++] = heliod_bus_gain(h, "master", -96, 0); /* 10 */
    out[n++] = heliod_bus_mute(h, "music", 1, 0);    /* 11: a default bus */
    heliod_fx_t fx;
    char err[256];
    out[n++] = heliod_fx_parse(h, "eq --type lowpass --freq 100", &fx, err, sizeof err); /* 12: 0 */
    out[n++] = heliod_fx_add(h, "gbus", UINT32_MAX, &fx, NULL);                          /* 13 */
    out[n++] = heliod_fx_add(h, "master", UINT32_MAX, &fx, NULL);                        /* 14 */
    heliod_duck_t dk;
    heliod_duck_init(&dk);
    snprintf(dk.bus, sizeof dk.bus, "gbus");
    snprintf(dk.by, sizeof dk.by, "pit");
    dk.depth_db = 60;
    dk.threshold_db = -144;
    out[n++] = heliod_duck(h, &dk); /* 15 */
    heliod_reverb_zone_t z;
    memset(&z, 0, sizeof z);
    snprintf(z.name, sizeof z.name, "gzone");
    z.radius = 0.001f;
    z.pos[0] = 1e5f;
    out[n++] = heliod_reverb_zone_set(h, &z);         /* 16: its own gzone */
    out[n++] = heliod_reverb_zone_remove(h, "gzone"); /* 17: its own */
    out[n++] = heliod_stats(h, NULL, 0, NULL, 1);     /* 18: reset */
    out[n++] = heliod_device(h, "default", NULL);     /* 19 */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    out[n++] = heliod_play(h, "gcue", &pp, NULL, NULL); /* 20: not its cue: no such sound */
    out[n++] = heliod_cues_load(h, "/nonexistent/sheet.ini", NULL, NULL); /* 21 */
    return n;
}

static void test_stranger_cannot_silence_game(void **state) {
    fx_t *f = *state;
    heliod_t *g = conn(f, "game", 0);
    assert_int_equal(heliod_load(g, "tone", f->tone, 0, NULL), 0);
    assert_int_equal(heliod_bus_create(g, "gbus", "music"), 0);
    assert_int_equal(heliod_bus_gain(g, "gbus", -3, 0), 0); /* a game sets its own bus */
    heliod_category_t cat;
    heliod_category_init(&cat);
    snprintf(cat.name, sizeof cat.name, "gcat");
    cat.max_instances = 4;
    assert_int_equal(heliod_category_define(g, &cat), 0);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "gcue");
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "tone");
    snprintf(cue.bus, sizeof cue.bus, "gbus");
    snprintf(cue.category, sizeof cue.category, "gcat");
    assert_int_equal(heliod_cue_define(g, &cue), 0);
    heliod_reverb_zone_t z;
    memset(&z, 0, sizeof z);
    snprintf(z.name, sizeof z.name, "gzone");
    z.radius = 10;
    z.fade = 2;
    assert_int_equal(heliod_reverb_zone_set(g, &z), 0);
    heliod_listener_t lis = {.mask = HELIOD_LIS_POS};
    assert_int_equal(heliod_set_listener(g, &lis), 0); /* a game moves it */

    int r[64];
    int n = in_child(f, attack, NULL, r, 64);
    assert_int_equal(n, 22);
    const int perm[] = {9, 10, 11, 14, 18, 19, 21};
    /* the game's gbus is not in the stranger's namespace: no such bus for it */
    const int nobus[] = {5, 6, 7, 8, 13, 15};
    for (size_t i = 0; i < sizeof nobus / sizeof nobus[0]; i++) {
        if (r[nobus[i]] != HELIOD_ENOBUS)
            fprintf(stderr, "# attack %d: %d\n", nobus[i], r[nobus[i]]);
        assert_int_equal(r[nobus[i]], HELIOD_ENOBUS);
    }
    assert_int_equal(r[16], 0); /* its own gzone (zone names are per process too), */
    assert_int_equal(r[17], 0); /* which it removes */
    for (size_t i = 0; i < sizeof perm / sizeof perm[0]; i++) {
        if (r[perm[i]] != HELIOD_EPERM) fprintf(stderr, "# attack %d: %d\n", perm[i], r[perm[i]]);
        assert_int_equal(r[perm[i]], HELIOD_EPERM);
    }
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], HELIOD_ENOCATEGORY);
    assert_int_equal(r[2], 0);
    assert_int_equal(r[3], 0);
    assert_int_equal(r[4], 0);
    assert_int_equal(r[12], 0);
    assert_int_equal(r[20], HELIOD_ENOSOUND);

    /* the game's mix is as it left it */
    heliod_bus_info_t b[40];
    size_t nb = 0;
    assert_int_equal(heliod_buses(g, b, 40, &nb), 0);
    int seen = 0;
    for (size_t i = 0; i < nb; i++) {
        if (strcmp(b[i].name, "gbus") == 0) {
            seen++;
            assert_string_equal(b[i].parent, "music");
            assert_true(b[i].gain_db > -3.01f && b[i].gain_db < -2.99f);
            assert_int_equal(b[i].mute, 0);
            assert_int_equal(b[i].fx, 0);
            assert_true(b[i].path_gain_db > -3.01f);
        }
        if (strcmp(b[i].name, "master") == 0 || strcmp(b[i].name, "music") == 0) {
            assert_int_equal(b[i].mute, 0);
            assert_true(b[i].gain_db > -0.01f);
            assert_int_equal(b[i].fx, 0);
        }
    }
    assert_int_equal(seen, 1);
    heliod_duck_info_t dk[20];
    size_t nd = 0;
    assert_int_equal(heliod_ducks(g, dk, 20, &nd), 0);
    assert_int_equal(nd, 0);
    heliod_reverb_zone_info_t zi[8];
    size_t nz = 0;
    assert_int_equal(heliod_reverb_zones(g, zi, 8, &nz), 0);
    assert_int_equal(nz, 1);
    assert_true(zi[0].zone.radius == 10.0f);
    heliod_cue_info_t ci[16];
    size_t nc = 0;
    assert_int_equal(heliod_cues(g, ci, 16, &nc), 0);
    int mine = 0; /* the stranger's gcue/gcat (its process has gone) are listed as shared */
    for (size_t i = 0; i < nc; i++)
        if (ci[i].kind == HELIOD_CUES_KIND_CUE)
            mine += strcmp(ci[i].cue.name, "gcue") == 0 && ci[i].cue.gain_db == 0.0f;
        else
            mine += strcmp(ci[i].category.name, "gcat") == 0 && ci[i].category.max_instances == 4;
    assert_int_equal(mine, 2);
    /* and it still plays, and still changes its own objects */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(g, "gcue", &pp, &v, NULL), 0);
    assert_int_equal(heliod_cue_define(g, &cue), 0);
    assert_int_equal(heliod_bus_gain(g, "gbus", 0, 0), 0);
    /* a control client (the operator) may change anything */
    heliod_t *op = conn(f, "operator", HELIOD_CONNECT_CONTROL);
    assert_int_equal(heliod_bus_gain(op, "master", -1, 0), 0);
    assert_int_equal(heliod_bus_gain(op, "gbus", -1, 0), 0);
    heliod_close(op);
    heliod_close(g);
}

/* ---- per-process caps on the tables ------------------------------------------ */

static int flood(heliod_t *h, int *out, void *arg) {
    (void)arg;
    int n = 0, ok = 0, rc = 0;
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "x");
    for (int i = 0; i < 100; i++) {
        snprintf(cue.name, sizeof cue.name, "flood%d", i);
        rc = heliod_cue_define(h, &cue);
        if (rc < 0) break;
        ok++;
    }
    out[n++] = ok;
    out[n++] = rc;
    float pos[3] = {0};
    ok = 0;
    for (int i = 0; i < 100; i++) {
        char name[32];
        snprintf(name, sizeof name, "em%d", i);
        if ((rc = heliod_emitter_create(h, name, pos, NULL, 0)) < 0) break;
        ok++;
    }
    out[n++] = ok;
    out[n++] = rc;
    ok = 0;
    for (int i = 0; i < 40; i++) {
        heliod_reverb_zone_t z;
        memset(&z, 0, sizeof z);
        snprintf(z.name, sizeof z.name, "rz%d", i);
        z.radius = 1;
        if ((rc = heliod_reverb_zone_set(h, &z)) < 0) break;
        ok++;
    }
    out[n++] = ok;
    out[n++] = rc;
    ok = 0;
    for (int i = 0; i < 40; i++) {
        char name[32];
        snprintf(name, sizeof name, "fb%d", i);
        if ((rc = heliod_bus_create(h, name, "")) < 0) break;
        ok++;
    }
    out[n++] = ok;
    out[n++] = rc;
    return n;
}

static void test_tables_capped_per_process(void **state) {
    fx_t *f = *state;
    int r[16];
    assert_int_equal(in_child(f, flood, NULL, r, 16), 8);
    fprintf(stderr,
            "# flood: %d cues (%d), %d emitters (%d), %d reverb zones (%d), %d more buses (%d)\n",
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    assert_int_equal(r[0], 16); /* --client-cues 16 */
    assert_int_equal(r[1], HELIOD_EQUOTA);
    assert_int_equal(r[2], 16);
    assert_int_equal(r[3], HELIOD_EQUOTA);
    assert_int_equal(r[4], 3); /* --client-reverb-zones 3, each with a bus of its own */
    assert_int_equal(r[5], HELIOD_EQUOTA);
    assert_int_equal(r[6], 1); /* --client-buses 4: three went to the zones */
    assert_int_equal(r[7], HELIOD_EQUOTA);
    /* the game still finds room in every table */
    heliod_t *g = conn(f, "game", 0);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "mine");
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "x");
    assert_int_equal(heliod_cue_define(g, &cue), 0);
    assert_int_equal(heliod_bus_create(g, "gbus", ""), 0);
    heliod_reverb_zone_t z;
    memset(&z, 0, sizeof z);
    snprintf(z.name, sizeof z.name, "gz");
    z.radius = 1;
    assert_int_equal(heliod_reverb_zone_set(g, &z), 0);
    heliod_close(g);
}

/* ---- control places: one per process ---------------------------------------- */

static void test_control_places_one_per_process(void **state) {
    fx_t *f = *state;
    heliod_t *hs[300];
    int n = 0;
    for (; n < 300; n++) { /* --max-clients 4: 4 places, then one kept place for this process */
        hs[n] = NULL;
        if (heliod_connect_flags(&hs[n], f->d.sock, "claims-control", HELIOD_CONNECT_CONTROL) != 0)
            break;
    }
    fprintf(stderr, "# connections claiming control from one process: %d admitted\n", n);
    assert_int_equal(n, 4 + 1);
    /* the operator's heliodctl, a process of its own, still gets in */
    char out[4096], err[1024];
    const char *const args[] = {"ping", NULL};
    int rc = th_ctl(&f->d, out, sizeof out, err, sizeof err, args);
    if (rc != 0) fprintf(stderr, "# heliodctl: %s\n", err);
    assert_int_equal(rc, 0);
    for (int i = 0; i < n; i++)
        heliod_close(hs[i]);
}

/* ---- quotas per process ------------------------------------------------------ */

static int play_one(heliod_t *h, int *out, void *arg) {
    (void)arg;
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    out[0] = heliod_play(h, "shared_tone", &pp, NULL, NULL);
    return 1;
}

static void test_quota_per_process(void **state) {
    fx_t *f = *state;
    heliod_t *op = conn(f, "op", HELIOD_CONNECT_CONTROL);
    assert_int_equal(heliod_load(op, "shared_tone", f->tone, HELIOD_LOAD_SHARED, NULL), 0);
    heliod_close(op);
    enum { NCONN = 20 };
    heliod_t *hs[NCONN];
    for (int i = 0; i < NCONN; i++)
        hs[i] = conn(f, "game", 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_LOOP;
    int admitted = 0, rc = 0;
    for (int i = 0; i < 10 * NCONN; i++) { /* round robin over its connections */
        rc = heliod_play(hs[i % NCONN], "shared_tone", &pp, NULL, NULL);
        if (rc < 0) break;
        admitted++;
    }
    fprintf(stderr,
            "# quota per process: %d connections of one process admitted %d voices "
            "(--client-voices 8; one connection alone: 8), then %s\n",
            NCONN, admitted, heliod_strerror(rc));
    assert_int_equal(admitted, 8);
    assert_int_equal(rc, HELIOD_EQUOTA);
    assert_non_null(strstr(heliod_last_error(hs[admitted % NCONN]), "per process"));
    /* another process has a budget of its own */
    int r[1];
    assert_int_equal(in_child(f, play_one, NULL, r, 1), 1);
    assert_int_equal(r[0], 0);
    for (int i = 0; i < NCONN; i++)
        heliod_close(hs[i]);
}

static int setup_voices(void **state) {
    static const char *const args[] = {"--client-voices", "8", NULL};
    *state = &g_fx;
    return start(args);
}

/* ---- uploads: charged first, and an idle one times out ------------------------ */

/* A raw connection past HELLO. */
static int raw_hello(const char *sock) {
    int s = th_raw_connect(sock);
    assert_true(s >= 0);
    uint8_t fr[256];
    hl_wbuf_t w;
    hl_wbuf_init(&w, fr, sizeof fr);
    hl_frame_begin(&w, HL_OP_HELLO, 0, 1);
    hl_hello_t hm = {.version = HL_PROTO_VERSION};
    hl_put_hello(&w, &hm);
    int n = hl_frame_end(&w);
    assert_true(n > 0 && write(s, fr, (size_t)n) == n);
    return s;
}

/* The status of the next reply with that id (frames with other ids are
 * skipped), 1 on EOF. */
static int raw_status(int s, uint32_t id) {
    static uint8_t buf[HL_MAX_FRAME];
    size_t have = 0;
    for (;;) {
        hl_frame_hdr_t h;
        while (hl_frame_peek(buf, have, &h) == 1 || (have >= HL_FRAME_HDR && h.size > have)) {
            ssize_t n = read(s, buf + have, sizeof buf - have);
            if (n <= 0) return 1;
            have += (size_t)n;
        }
        int status = 0;
        if (h.op == HL_OP_REPLY) {
            hl_rbuf_t r;
            hl_rbuf_init(&r, buf + HL_FRAME_HDR, h.size - HL_FRAME_HDR);
            hl_reply_head_t rh;
            hl_get_reply_head(&r, &rh);
            status = rh.status;
        }
        int mine = h.op == HL_OP_REPLY && h.id == id;
        memmove(buf, buf + h.size, have - h.size);
        have -= h.size;
        if (mine) return status;
    }
}

/* Starts a LOAD_DATA upload of `total` bytes with one chunk: its status. */
static int raw_upload(int s, uint32_t id, const char *name, uint64_t total) {
    static uint8_t fr[HL_MAX_FRAME], chunk[16384];
    hl_load_data_t ld;
    memset(&ld, 0, sizeof ld);
    snprintf(ld.name, sizeof ld.name, "%s", name);
    ld.total = total;
    ld.len = sizeof chunk;
    ld.data = chunk;
    hl_wbuf_t w;
    hl_wbuf_init(&w, fr, sizeof fr);
    hl_frame_begin(&w, HL_OP_LOAD_DATA, 0, id);
    hl_put_load_data(&w, &ld);
    int n = hl_frame_end(&w);
    assert_true(n > 0 && write(s, fr, (size_t)n) == n);
    return raw_status(s, id);
}

static void test_upload_charged_and_times_out(void **state) {
    fx_t *f = *state;
    heliod_t *h = conn(f, "watch", 0);
    /* 2 MiB over a 1 MiB client quota: refused before anything is allocated */
    int a = raw_hello(f->d.sock);
    assert_int_equal(raw_upload(a, 2, "big", 2u << 20), HELIOD_EQUOTA);
    /* a stalled upload of 900 KiB holds this process's quota ... */
    assert_int_equal(raw_upload(a, 3, "stalled", 900u << 10), 0);
    int b = raw_hello(f->d.sock);
    assert_int_equal(raw_upload(b, 4, "second", 200u << 10), HELIOD_EQUOTA);
    /* ... until, idle past the deadline, it is dropped and its memory given back */
    for (int i = 0; i < 1000 && th_stat(h, "uploads_timed_out") < 1.0; i++)
        th_sleep_ms(20);
    assert_true(th_stat(h, "uploads_timed_out") == 1.0);
    assert_int_equal(raw_upload(b, 5, "second", 200u << 10), 0);
    close(a);
    close(b);
    heliod_close(h);
}

/* ---- one client's upload never evicts another's sounds ---------------------- */

static int big_upload(heliod_t *h, int *out, void *arg) {
    (void)h;
    fx_t *f = arg;
    int s = raw_hello(f->d.sock);
    out[0] = raw_upload(s, 7, "stranger", 900u << 10);
    close(s);
    return 1;
}

static void test_upload_evicts_only_its_own(void **state) {
    fx_t *f = *state;
    heliod_t *g = conn(f, "game", 0);
    assert_int_equal(heliod_load(g, "g1", f->tone, 0, NULL), 0); /* 188 KiB each */
    assert_int_equal(heliod_load(g, "g2", f->tone, 0, NULL), 0);
    int r[1];
    assert_int_equal(in_child(f, big_upload, f, r, 1), 1);
    fprintf(stderr, "# a stranger's 900 KiB upload under a 1 MiB budget: %d\n", r[0]);
    assert_int_equal(r[0], HELIOD_ENOMEM); /* nothing of its own to evict */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(g, "g1", &pp, NULL, NULL), 0);
    assert_int_equal(heliod_play(g, "g2", &pp, NULL, NULL), 0);
    assert_true(th_stat(g, "samples_evictions") == 0.0);
    heliod_close(g);
}

static int setup_budget(void **state) {
    static const char *const args[] = {"--max-sample-mb", "1", "--client-sample-mb", "1", NULL};
    *state = &g_fx;
    return start(args);
}

/* ---- a bank's sounds are charged to the client that loads it ----------------- */

/* Waits (tries x 10 ms at most) until h sees exactly one bank and it is no
 * longer loading; its listing in bi (4 entries). */
static void one_bank_settled(heliod_t *h, heliod_bank_info_t *bi, int tries) {
    size_t n = 0;
    for (int i = 0; i < tries; i++) {
        assert_int_equal(heliod_banks(h, bi, 4, &n), 0);
        if (n == 1 && bi[0].state != HELIOD_BANK_LOADING) break;
        th_sleep_ms(10);
    }
    assert_int_equal(n, 1);
}

static int unload_bank(heliod_t *h, int *out, void *arg) {
    out[0] = heliod_bank_unload(h, (const char *)arg);
    return 1;
}

static void test_bank_charged_to_its_loader(void **state) {
    fx_t *f = *state;
    char a[600], b[600], man[600];
    snprintf(a, sizeof a, "%.256s/a.wav", f->d.dir);
    snprintf(b, sizeof b, "%.256s/b.wav", f->d.dir);
    snprintf(man, sizeof man, "%.256s/level.ini", f->d.dir);
    /* 4 s mono at 48 kHz: 750 KiB decoded each, two over a 1 MiB quota */
    assert_int_equal(th_write_sine(a, 48000, 4.0, 220, 0.2), 0);
    assert_int_equal(th_write_sine(b, 48000, 4.0, 330, 0.2), 0);
    FILE *fp = fopen(man, "w");
    assert_non_null(fp);
    fprintf(fp, "name = level\n[sound la]\npath = a.wav\n[sound lb]\npath = b.wav\n");
    fclose(fp);
    heliod_t *g = conn(f, "game", 0);
    assert_int_equal(heliod_bank_load(g, man, NULL), 0);
    heliod_bank_info_t bi[4];
    one_bank_settled(g, bi, 1000);
    fprintf(stderr,
            "# bank of two 750 KiB sounds under a 1 MiB client quota: %u loaded, %u "
            "failed (%s)\n",
            bi[0].done, bi[0].failed, bi[0].error);
    assert_int_equal(bi[0].done, 1);
    assert_int_equal(bi[0].failed, 1);
    assert_non_null(strstr(bi[0].error, "--client-sample-mb"));
    /* a stranger cannot unload it (bank names are per process: it has no
     * bank of that name); its loader can */
    int r[1];
    assert_int_equal(in_child(f, unload_bank, "level", r, 1), 1);
    assert_int_equal(r[0], HELIOD_ENOSOUND);
    assert_int_equal(heliod_bank_unload(g, "level"), 0);
    heliod_close(g);
}

/* A bank's sounds start 32 at a time (the banks' share of the loader); the
 * rest wait in its queue, read after the BANK reply. The client id travels
 * with the bank, so the queued ones are charged to its loader too, even
 * once it has gone (a control client's bank: shared, it outlives its
 * loader; a plain client's goes with it): 40 sounds of 30 KiB (1200 KiB)
 * under a 1 MiB quota do not all load (the first 32, 960 KiB, would fit;
 * charged to nobody the queued 8 would load as well). */
static void test_bank_queue_charged_to_its_loader(void **state) {
    fx_t *f = *state;
    char wav[600], man[600];
    snprintf(wav, sizeof wav, "%.256s/short.wav", f->d.dir);
    snprintf(man, sizeof man, "%.256s/many.ini", f->d.dir);
    /* 0.16 s mono at 48 kHz: 7680 frames, 30 KiB decoded */
    assert_int_equal(th_write_sine(wav, 48000, 0.16, 440, 0.2), 0);
    FILE *fp = fopen(man, "w");
    assert_non_null(fp);
    fprintf(fp, "name = many\n");
    for (int i = 0; i < 40; i++)
        fprintf(fp, "[sound m%02d]\npath = short.wav\n", i);
    fclose(fp);
    heliod_t *g = conn(f, "tool1", HELIOD_CONNECT_CONTROL);
    assert_int_equal(heliod_bank_load(g, man, NULL), 0);
    heliod_close(g); /* gone before its queued sounds start */
    heliod_t *ctl = conn(f, "tool", HELIOD_CONNECT_CONTROL);
    heliod_bank_info_t bi[4];
    one_bank_settled(ctl, bi, 3000);
    fprintf(stderr,
            "# bank of 40 x 30 KiB under a 1 MiB quota, loader gone: %u loaded, %u "
            "failed (%s)\n",
            bi[0].done, bi[0].failed, bi[0].error);
    assert_int_equal(bi[0].done + bi[0].failed, 40);
    assert_true(bi[0].done >= 32 && bi[0].done <= 34); /* 34 x 30 KiB = 1020 KiB */
    assert_non_null(strstr(bi[0].error, "--client-sample-mb"));
    assert_int_equal(heliod_bank_unload(ctl, "many"), 0);
    heliod_close(ctl);
}

/* ---- a script's batch of detached loops fits the defaults -------------------- */

static void test_batch_of_detached_loops(void **state) {
    fx_t *f = *state;
    char path[512], line[600];
    snprintf(path, sizeof path, "%s/batch.txt", f->d.dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "load amb %s --shared\n", f->tone);
    for (int i = 0; i < 256; i++)
        fprintf(fp, "play amb --loop --gain -40\n"); /* detached: no --wait */
    fclose(fp);
    static char out[1 << 16], err[1 << 16];
    const char *const args[] = {"batch", path, NULL};
    int rc = th_ctl(&f->d, out, sizeof out, err, sizeof err, args);
    if (rc != 0) fprintf(stderr, "# batch: %.400s\n", err);
    assert_int_equal(rc, 0);
    heliod_t *h = conn(f, "check", HELIOD_CONNECT_CONTROL);
    double voices = th_stat(h, "voices_active");
    snprintf(line, sizeof line, "%g", voices);
    fprintf(stderr,
            "# 256 detached loops from one batch (default quotas: detached %g): %s voices\n",
            th_stat(h, "quota_detached"), line);
    assert_true(voices == 256.0); /* detached loops: all still playing after heliodctl left */
    heliod_close(h);
}

/* ---- names are per process ---------------------------------------------------- */

/* A stranger: a child process running fn(f, ready, go, res), which takes
 * its names first (one byte on ready), waits for go, then tries the game's
 * objects and writes its results (ints) to res before it exits. */
typedef struct {
    pid_t pid;
    int ready[2], go[2], res[2];
} stranger_t;

/* Starts it and waits until it has taken its names. */
static void stranger_start(stranger_t *s, fx_t *f, void (*fn)(fx_t *, int, int, int)) {
    assert_int_equal(pipe(s->ready), 0);
    assert_int_equal(pipe(s->go), 0);
    assert_int_equal(pipe(s->res), 0);
    s->pid = fork();
    assert_true(s->pid >= 0);
    if (s->pid == 0) fn(f, s->ready[1], s->go[0], s->res[1]);
    close(s->res[1]); /* its results end when it exits */
    char b = 0;
    assert_int_equal(read(s->ready[0], &b, 1), 1); /* the stranger took the names first */
}

/* Lets it go on, reads its results (max ints at most), checks that it
 * exited cleanly and closes the pipes: how many ints it wrote. */
static int stranger_finish(stranger_t *s, int *r, int max) {
    char b = 1;
    assert_int_equal(write(s->go[1], &b, 1), 1);
    int n = 0;
    ssize_t got;
    while (n < max && (got = read(s->res[0], r + n, sizeof(int) * (size_t)(max - n))) > 0)
        n += (int)(got / (ssize_t)sizeof(int));
    int st = 0;
    waitpid(s->pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    int fds[] = {s->ready[0], s->ready[1], s->go[0], s->go[1], s->res[0]};
    for (size_t i = 0; i < 5; i++)
        close(fds[i]);
    return n;
}

/* A stranger that stays connected: defines gcat/gcue first (its own tone
 * at -40 dB), says so on rd[1], waits for a byte on go[0], then reports
 * what its own names resolve to. */
static void squatter(fx_t *f, int ready, int go, int res) {
    heliod_t *h = NULL;
    int out[16] = {0}, n = 0;
    if (heliod_connect(&h, f->d.sock, "stranger") != 0) _exit(3);
    out[n++] = heliod_load(h, "tone", f->tone, 0, NULL);
    heliod_category_t cat;
    heliod_category_init(&cat);
    snprintf(cat.name, sizeof cat.name, "gcat");
    cat.max_instances = 1;
    out[n++] = heliod_category_define(h, &cat);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "gcue");
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "tone");
    snprintf(cue.category, sizeof cue.category, "gcat");
    cue.gain_db = -40;
    out[n++] = heliod_cue_define(h, &cue);
    const float left[3] = {-5, 0, 0};
    out[n++] = heliod_emitter_create(h, "gcar", left, NULL, 0);
    char b = 1;
    /* a game side that failed never says go: the stranger gives up, so a
     * failure ends the test instead of hanging it */
    struct pollfd pf = {.fd = go, .events = POLLIN};
    if (write(ready, &b, 1) != 1 || poll(&pf, 1, 120000) != 1 || read(go, &b, 1) != 1) _exit(4);
    heliod_cue_info_t ci[16];
    size_t nc = 0;
    out[n++] = heliod_cues(h, ci, 16, &nc);
    int mine = 0, other = 0;
    for (size_t i = 0; i < nc; i++)
        if (ci[i].kind == HELIOD_CUES_KIND_CUE)
            ci[i].cue.gain_db == -40.0f ? mine++ : other++;
        else
            ci[i].category.max_instances == 1 ? mine++ : other++;
    out[n++] = mine;  /* 2: its gcue and gcat */
    out[n++] = other; /* 0: not the game's */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    heliod_voice_t v = 0;
    out[n++] = heliod_play(h, "gcue", &pp, &v, NULL);
    heliod_voice_info_t vi[8];
    size_t nv = 0;
    int gain_ok = 0;
    if (heliod_voices(h, vi, 8, &nv) == 0)
        for (size_t i = 0; i < nv; i++)
            if (vi[i].voice == v) gain_ok = vi[i].gain_db < -39.9f && vi[i].gain_db > -40.1f;
    out[n++] = gain_ok;
    snprintf(pp.emitter, sizeof pp.emitter, "gcar"); /* its own emitter, where it left it */
    pp.flags |= HELIOD_PLAY_3D;
    out[n++] = heliod_play(h, "tone", &pp, &v, NULL);
    int pos_ok = 0;
    if (heliod_voices(h, vi, 8, &nv) == 0)
        for (size_t i = 0; i < nv; i++)
            if (vi[i].voice == v) pos_ok = vi[i].pos[0] == -5.0f;
    out[n++] = pos_ok;
    heliod_close(h);
    if (write(res, out, sizeof(int) * (size_t)n) < 0) _exit(2);
    _exit(0);
}

static void test_names_per_process(void **state) {
    fx_t *f = *state;
    stranger_t sq;
    stranger_start(&sq, f, squatter);

    heliod_t *g = conn(f, "game", 0);
    assert_int_equal(heliod_load(g, "tone", f->tone, 0, NULL), 0);
    heliod_category_t cat;
    heliod_category_init(&cat);
    snprintf(cat.name, sizeof cat.name, "gcat");
    cat.max_instances = 4;
    assert_int_equal(heliod_category_define(g, &cat), 0); /* its own, not EPERM */
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "gcue");
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "tone");
    snprintf(cue.category, sizeof cue.category, "gcat");
    cue.gain_db = -3;
    assert_int_equal(heliod_cue_define(g, &cue), 0);
    cue.gain_db = -6;
    assert_int_equal(heliod_cue_define(g, &cue), 0); /* redefining its own */
    /* it plays through its cue, at its level, in its category */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    heliod_voice_t v[2] = {0};
    assert_int_equal(heliod_play(g, "gcue", &pp, &v[0], NULL), 0);
    assert_int_equal(heliod_play(g, "gcue", &pp, &v[1], NULL),
                     0); /* gcat: 4, not the stranger's 1 */
    heliod_voice_info_t vi[8];
    size_t nv = 0;
    assert_int_equal(heliod_voices(g, vi, 8, &nv), 0);
    int found = 0;
    for (size_t i = 0; i < nv; i++)
        if (vi[i].voice == v[0] || vi[i].voice == v[1]) {
            found++;
            assert_string_equal(vi[i].cue, "gcue");
            assert_string_equal(vi[i].category, "gcat");
            assert_true(vi[i].gain_db > -6.1f && vi[i].gain_db < -5.9f);
        }
    assert_int_equal(found, 2);
    /* its own emitter of the stranger's emitter's name, and voices on it */
    const float right[3] = {5, 0, 0};
    assert_int_equal(heliod_emitter_create(g, "gcar", right, NULL, 0), 0); /* not EEXIST */
    assert_int_equal(heliod_emitter_create(g, "gcar", right, NULL, 0), HELIOD_EEXIST);
    assert_int_equal(heliod_emitter_set(g, "gcar", HELIOD_EM_POS, right, NULL, 0), 0);
    snprintf(pp.emitter, sizeof pp.emitter, "gcar");
    pp.flags |= HELIOD_PLAY_3D;
    heliod_voice_t ve = 0;
    assert_int_equal(heliod_play(g, "tone", &pp, &ve, NULL), 0);
    assert_int_equal(heliod_voices(g, vi, 8, &nv), 0);
    found = 0;
    for (size_t i = 0; i < nv; i++)
        if (vi[i].voice == ve) found += vi[i].pos[0] == 5.0f;
    assert_int_equal(found, 1);
    /* its lookups see its own only */
    heliod_cue_info_t ci[16];
    size_t nc = 0;
    assert_int_equal(heliod_cues(g, ci, 16, &nc), 0);
    assert_int_equal(nc, 2);
    for (size_t i = 0; i < nc; i++)
        if (ci[i].kind == HELIOD_CUES_KIND_CUE)
            assert_true(ci[i].cue.gain_db == -6.0f);
        else
            assert_int_equal(ci[i].category.max_instances, 4);
    /* the operator sees both namespaces */
    heliod_t *op = conn(f, "operator", HELIOD_CONNECT_CONTROL);
    assert_int_equal(heliod_cues(op, ci, 16, &nc), 0);
    assert_int_equal(nc, 4);
    heliod_close(op);

    int r[16];
    int n = stranger_finish(&sq, r, 16);
    assert_int_equal(n, 11);
    for (int i = 0; i < 5; i++)
        assert_int_equal(r[i], 0); /* load, category, cue, emitter, list */
    assert_int_equal(r[5], 2);     /* the stranger's gcue/gcat untouched, */
    assert_int_equal(r[6], 0);     /* the game's not visible to it */
    assert_int_equal(r[7], 0);     /* and it plays its own */
    assert_int_equal(r[8], 1);     /* at its own -40 dB */
    assert_int_equal(r[9], 0);     /* on its own gcar */
    assert_int_equal(r[10], 1);    /* where it left it */
    heliod_close(g);
}

/* ---- a bank's cue sheet is applied as its loader ------------------------------- */

/* The state of bank name as h sees it once it is no longer loading (its
 * error into err); -1 if it never settles. */
static int bank_settled(heliod_t *h, const char *name, char *err, size_t cap) {
    heliod_bank_info_t bi[8];
    size_t n = 0;
    for (int i = 0; i < 6000; i++) { /* 60 s: reads on the worker pool, any load */
        if (heliod_banks(h, bi, 8, &n) != 0) return -1;
        for (size_t k = 0; k < n; k++)
            if (!strcmp(bi[k].name, name) && bi[k].state != HELIOD_BANK_LOADING) {
                snprintf(err, cap, "%s", bi[k].error);
                return bi[k].state;
            }
        th_sleep_ms(10);
    }
    return -1;
}

/* The gain of voice v as h sees it, or +1 if it is not listed. */
static float voice_gain(heliod_t *h, heliod_voice_t v, char *cat, size_t cap) {
    heliod_voice_info_t vi[16];
    size_t nv = 0;
    if (heliod_voices(h, vi, 16, &nv) != 0) return 1.0f;
    for (size_t i = 0; i < nv; i++)
        if (vi[i].voice == v) {
            if (cat) snprintf(cat, cap, "%s", vi[i].category);
            return vi[i].gain_db;
        }
    return 1.0f;
}

/* The stranger loads "sheetbank" (its sheet redefines the game's gcat and
 * gcue at -100 dB), then "opbank" (its sheet redefines the operator's
 * opcue), and reports: the first's state, its gcue's play and level, the
 * second's state and whether its error names opcue. */
static int sheet_loader(heliod_t *h, int *out, void *arg) {
    const char *const *man = arg;
    char err[256] = "";
    int n = 0;
    out[n++] = heliod_bank_load(h, man[0], NULL);
    out[n++] = bank_settled(h, "sheetbank", err, sizeof err);
    if (err[0]) fprintf(stderr, "# stranger's sheetbank: %s\n", err);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    heliod_voice_t v = 0;
    out[n++] = heliod_play(h, "gcue", &pp, &v, NULL);
    char cat[64] = "";
    float g = voice_gain(h, v, cat, sizeof cat);
    out[n++] = g < -99.9f && g > -100.1f && !strcmp(cat, "gcat");
    out[n++] = heliod_bank_load(h, man[1], NULL);
    out[n++] = bank_settled(h, "opbank", err, sizeof err);
    fprintf(stderr, "# stranger's opbank: %s\n", err);
    out[n++] = strstr(err, "cue opcue") != NULL && strstr(err, "control client") != NULL;
    return n;
}

static void test_bank_sheet_as_its_loader(void **state) {
    fx_t *f = *state;
    char sheet[600], man[600], opsheet[600], opman[600];
    snprintf(sheet, sizeof sheet, "%.256s/sheet.ini", f->d.dir);
    snprintf(man, sizeof man, "%.256s/sheetbank.ini", f->d.dir);
    snprintf(opsheet, sizeof opsheet, "%.256s/opsheet.ini", f->d.dir);
    snprintf(opman, sizeof opman, "%.256s/opbank.ini", f->d.dir);
    FILE *fp = fopen(sheet, "w");
    assert_non_null(fp);
    fprintf(fp, "[category gcat]\nmax-instances = 1\n\n[cue gcue]\nsound = btone\ngain = -100\n"
                "category = gcat\n");
    fclose(fp);
    assert_non_null(fp = fopen(man, "w"));
    fprintf(fp, "name = sheetbank\ncues = sheet.ini\n[sound btone]\npath = tone.wav\n");
    fclose(fp);
    assert_non_null(fp = fopen(opsheet, "w"));
    fprintf(fp, "[cue opcue]\nsound = btone\ngain = -100\n");
    fclose(fp);
    assert_non_null(fp = fopen(opman, "w"));
    fprintf(fp, "name = opbank\ncues = opsheet.ini\n[sound btone2]\npath = tone.wav\n");
    fclose(fp);

    /* the game's cue at -6 dB in its category of 4 */
    heliod_t *g = conn(f, "game", 0);
    assert_int_equal(heliod_load(g, "tone", f->tone, 0, NULL), 0);
    heliod_category_t cat;
    heliod_category_init(&cat);
    snprintf(cat.name, sizeof cat.name, "gcat");
    cat.max_instances = 4;
    assert_int_equal(heliod_category_define(g, &cat), 0);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "gcue");
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "tone");
    snprintf(cue.category, sizeof cue.category, "gcat");
    cue.gain_db = -6;
    assert_int_equal(heliod_cue_define(g, &cue), 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(g, "gcue", &pp, &v, NULL), 0);
    float gain = voice_gain(g, v, NULL, 0);
    assert_true(gain > -6.1f && gain < -5.9f);
    /* the operator's shared cue */
    heliod_t *op = conn(f, "operator", HELIOD_CONNECT_CONTROL);
    snprintf(cue.name, sizeof cue.name, "opcue");
    cue.category[0] = '\0';
    cue.gain_db = -3;
    assert_int_equal(heliod_cue_define(op, &cue), 0);

    const char *mans[] = {man, opman};
    int r[8];
    assert_int_equal(in_child(f, sheet_loader, (void *)mans, r, 8), 7);
    /* the game's gcue is unchanged: its level, its category of 4 (three
     * more voices fit, the first may still play) */
    heliod_voice_t w[3] = {0};
    for (int i = 0; i < 3; i++)
        assert_int_equal(heliod_play(g, "gcue", &pp, &w[i], NULL), 0);
    char cname[64] = "";
    gain = voice_gain(g, w[0], cname, sizeof cname);
    fprintf(stderr, "# game's gcue after a stranger's bank redefined it: %.1f dB, category %s\n",
            gain, cname);
    assert_true(gain > -6.1f && gain < -5.9f);
    assert_string_equal(cname, "gcat");
    heliod_cue_info_t ci[16];
    size_t nc = 0;
    /* its definitions are still there (the stranger's, its process gone,
     * are listed beside them as shared ones) */
    assert_int_equal(heliod_cues(g, ci, 16, &nc), 0);
    int mine = 0;
    for (size_t i = 0; i < nc; i++)
        if (ci[i].kind == HELIOD_CUES_KIND_CUE && !strcmp(ci[i].cue.name, "gcue"))
            mine += ci[i].cue.gain_db == -6.0f;
        else if (ci[i].kind == HELIOD_CUES_KIND_CATEGORY && !strcmp(ci[i].category.name, "gcat"))
            mine += ci[i].category.max_instances == 4;
    assert_int_equal(mine, 2);
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], HELIOD_BANK_LOADED); /* its sheet went into its own namespace */
    assert_int_equal(r[2], 0);                  /* its gcue plays */
    assert_int_equal(r[3], 1);                  /* at its -100 dB, in its gcat */
    assert_int_equal(r[4], 0);
    assert_int_equal(r[5], HELIOD_BANK_FAILED); /* the operator's cue is not its to change */
    assert_int_equal(r[6], 1);                  /* and the error names it */

    /* and the operator's opcue too */
    assert_int_equal(heliod_cues(op, ci, 16, &nc), 0);
    int seen = 0;
    for (size_t i = 0; i < nc; i++)
        if (ci[i].kind == HELIOD_CUES_KIND_CUE && !strcmp(ci[i].cue.name, "opcue")) {
            seen++;
            assert_true(ci[i].cue.gain_db == -3.0f);
        }
    assert_int_equal(seen, 1);
    heliod_close(op);
    heliod_close(g);
}

/* A plain client's bank's sheet counts in its cue quota (--client-cues 16):
 * 10 of its own plus a sheet of 10 fails the bank, nothing applied, and
 * the reservations are given back (6 more CUEs fit, the 7th does not). */
static void test_bank_sheet_in_its_quota(void **state) {
    fx_t *f = *state;
    char sheet[600], man[600];
    snprintf(sheet, sizeof sheet, "%.256s/ten.ini", f->d.dir);
    snprintf(man, sizeof man, "%.256s/tenbank.ini", f->d.dir);
    FILE *fp = fopen(sheet, "w");
    assert_non_null(fp);
    for (int i = 0; i < 10; i++)
        fprintf(fp, "[cue sheet%d]\nsound = ttone\n", i);
    fclose(fp);
    assert_non_null(fp = fopen(man, "w"));
    fprintf(fp, "name = tenbank\ncues = ten.ini\n[sound ttone]\npath = tone.wav\n");
    fclose(fp);
    heliod_t *g = conn(f, "game", 0);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "ttone");
    for (int i = 0; i < 10; i++) {
        snprintf(cue.name, sizeof cue.name, "own%d", i);
        assert_int_equal(heliod_cue_define(g, &cue), 0);
    }
    assert_int_equal(heliod_bank_load(g, man, NULL), 0);
    char err[256] = "";
    int st = bank_settled(g, "tenbank", err, sizeof err);
    fprintf(stderr, "# a 10-cue bank sheet over 10 of 16 cues: state %d (%s)\n", st, err);
    assert_int_equal(st, HELIOD_BANK_FAILED);
    assert_non_null(strstr(err, "--client-cues"));
    heliod_cue_info_t ci[32];
    size_t nc = 0;
    assert_int_equal(heliod_cues(g, ci, 32, &nc), 0);
    assert_int_equal(nc, 10); /* none of the sheet's */
    for (int i = 10; i < 16; i++) {
        snprintf(cue.name, sizeof cue.name, "own%d", i);
        assert_int_equal(heliod_cue_define(g, &cue), 0);
    }
    snprintf(cue.name, sizeof cue.name, "own16");
    assert_int_equal(heliod_cue_define(g, &cue), HELIOD_EQUOTA);
    heliod_close(g);
}

/* ---- bus and reverb-zone names are per process -------------------------------- */

/* Index of the bus entry named `name` at gain_db in arr[n], or -1. */
static int bus_entry(const heliod_bus_info_t *arr, size_t n, const char *name, float gain_db) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(arr[i].name, name) == 0 && arr[i].gain_db > gain_db - 0.1f &&
            arr[i].gain_db < gain_db + 0.1f)
            return (int)i;
    return -1;
}

/* A stranger that stays connected: creates bus gbus (at -30 dB, a loop on
 * it) and reverb zone gzone (at x = -5) first, says so on ready, waits for
 * a byte on go, then plays on its gbus again and reports what it sees. */
static void bus_squatter(fx_t *f, int ready, int go, int res) {
    heliod_t *h = NULL;
    int out[16] = {0}, n = 0;
    if (heliod_connect(&h, f->d.sock, "stranger") != 0) _exit(3);
    out[n++] = heliod_load(h, "tone", f->tone, 0, NULL);
    out[n++] = heliod_bus_create(h, "gbus", "");
    out[n++] = heliod_bus_gain(h, "gbus", -30, 0);
    heliod_reverb_zone_t z = {.pos = {-5, 0, 0}, .radius = 1, .preset = HELIOD_REV_ROOM};
    snprintf(z.name, sizeof z.name, "gzone");
    out[n++] = heliod_reverb_zone_set(h, &z);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags |= HELIOD_PLAY_LOOP;
    snprintf(pp.bus, sizeof pp.bus, "gbus");
    heliod_voice_t v = 0;
    out[n++] = heliod_play(h, "tone", &pp, &v, NULL);
    char b = 1;
    struct pollfd pf = {.fd = go, .events = POLLIN};
    if (write(ready, &b, 1) != 1 || poll(&pf, 1, 120000) != 1 || read(go, &b, 1) != 1) _exit(4);
    out[n++] = heliod_play(h, "tone", &pp, &v, NULL); /* its gbus, not the game's */
    heliod_bus_info_t bi[40];
    size_t nb = 0;
    out[n++] = heliod_buses(h, bi, 40, &nb);
    int mine = bus_entry(bi, nb, "gbus", -30);
    out[n++] = mine >= 0 ? (int)bi[mine].voices : -1; /* 2: both its plays */
    out[n++] = mine >= 0 && bi[mine].duck_db == 0.0f; /* the game's rule not on it */
    heliod_reverb_zone_info_t zi[8];
    size_t nz = 0;
    int zone_ok = 0;
    if (heliod_reverb_zones(h, zi, 8, &nz) == 0)
        for (size_t i = 0; i < nz; i++)
            if (strcmp(zi[i].zone.name, "gzone") == 0) zone_ok += zi[i].zone.pos[0] == -5.0f;
    out[n++] = zone_ok; /* 1: its zone where it left it */
    heliod_close(h);
    if (write(res, out, sizeof(int) * (size_t)n) < 0) _exit(2);
    _exit(0);
}

static void test_buses_per_process(void **state) {
    fx_t *f = *state;
    stranger_t sq;
    stranger_start(&sq, f, bus_squatter);

    heliod_t *g = conn(f, "game", 0);
    assert_int_equal(heliod_load(g, "tone", f->tone, 0, NULL), 0);
    assert_int_equal(heliod_bus_create(g, "gbus", ""), 0); /* its own, not EPERM */
    assert_int_equal(heliod_bus_create(g, "gbus", ""), HELIOD_EEXIST);
    assert_int_equal(heliod_bus_gain(g, "gbus", -6, 0), 0);
    heliod_reverb_zone_t z = {.pos = {5, 0, 0}, .radius = 1, .preset = HELIOD_REV_HALL};
    snprintf(z.name, sizeof z.name, "gzone");
    assert_int_equal(heliod_reverb_zone_set(g, &z), 0); /* its own zone (and bus gzone) */
    assert_int_equal(heliod_reverb_zone_set(g, &z), 0); /* changing its own */
    /* a play and a cue routed to gbus: the game's */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags |= HELIOD_PLAY_LOOP;
    snprintf(pp.bus, sizeof pp.bus, "gbus");
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(g, "tone", &pp, &v, NULL), 0);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "gbcue");
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "tone");
    snprintf(cue.bus, sizeof cue.bus, "gbus");
    assert_int_equal(heliod_cue_define(g, &cue), 0);
    heliod_play_params_init(&pp);
    pp.flags |= HELIOD_PLAY_LOOP;
    assert_int_equal(heliod_play(g, "gbcue", &pp, &v, NULL), 0);
    /* its ducking rule: its gbus under sfx while sfx has voices */
    heliod_duck_t dk;
    heliod_duck_init(&dk);
    snprintf(dk.bus, sizeof dk.bus, "gbus");
    snprintf(dk.by, sizeof dk.by, "sfx");
    dk.threshold_db = -144;
    dk.depth_db = 12;
    dk.attack_ms = 10;
    assert_int_equal(heliod_duck(g, &dk), 0);
    heliod_play_params_init(&pp);
    pp.flags |= HELIOD_PLAY_LOOP;
    assert_int_equal(heliod_play(g, "tone", &pp, &v, NULL), 0); /* on sfx */
    heliod_bus_info_t bi[40];
    size_t nb = 0;
    int mine = -1, theirs = -1;
    for (int tries = 0; tries < 1000; tries++) { /* until the engine has ducked it */
        assert_int_equal(heliod_buses(g, bi, 40, &nb), 0);
        mine = bus_entry(bi, nb, "gbus", -6);
        theirs = bus_entry(bi, nb, "gbus", -30);
        assert_true(mine >= 0 && theirs >= 0); /* both listed, each at its own gain */
        if (bi[mine].duck_db < -1.0f) break;
        th_sleep_ms(10);
    }
    assert_true(bi[mine].duck_db < -1.0f);
    assert_int_equal(bi[mine].voices, 2); /* its play and its cue's */
    assert_int_equal(bi[theirs].voices, 1);
    assert_true(bi[theirs].duck_db == 0.0f);
    int zones = 0;
    for (size_t i = 0; i < nb; i++)
        zones += strcmp(bi[i].name, "gzone") == 0;
    assert_int_equal(zones, 2); /* each zone made its own bus */

    int r[16];
    int n = stranger_finish(&sq, r, 16);
    assert_int_equal(n, 10);
    for (int i = 0; i < 7; i++)
        assert_int_equal(r[i], 0); /* load, bus, gain, zone, play, play again, list */
    assert_int_equal(r[7], 2);     /* its gbus carries both its plays */
    assert_int_equal(r[8], 1);     /* not ducked by the game's rule */
    assert_int_equal(r[9], 1);     /* its gzone untouched */
    heliod_close(g);
}

/* ---- bank and world-zone names are per process ----------------------------- */

/* Writes a bank manifest dir/file naming bank `bank` with one sound `snd`
 * of wav (a file name in dir). */
static void write_bank(const char *dir, const char *file, const char *bank, const char *snd,
                       const char *wav, char *path, size_t cap) {
    snprintf(path, cap, "%.256s/%s", dir, file);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "name = %s\n[sound %s]\npath = %s\n", bank, snd, wav);
    fclose(fp);
}

/* The state of bank name as h sees it once it is no longer loading (-1:
 * not listed, -2: a request failed). */
static int bank_state(heliod_t *h, const char *name) {
    heliod_bank_info_t bi[8];
    size_t n = 0;
    for (int i = 0; i < 1000; i++) {
        if (heliod_banks(h, bi, 8, &n) != 0) return -2;
        int st = -1;
        for (size_t k = 0; k < n && k < 8; k++)
            if (!strcmp(bi[k].name, name)) st = bi[k].state;
        if (st != HELIOD_BANK_LOADING) return st;
        th_sleep_ms(10);
    }
    return HELIOD_BANK_LOADING;
}

/* Frames of the sound `name` h lists (-1: none, -2: more than one). */
static int sound_frames(heliod_t *h, const char *name) {
    static heliod_sound_info_t si[64];
    size_t n = 0;
    if (heliod_sounds(h, si, 64, &n) != 0) return -3;
    int fr = -1;
    for (size_t i = 0; i < n && i < 64; i++)
        if (!strcmp(si[i].name, name)) fr = fr == -1 ? (int)si[i].frames : -2;
    return fr;
}

/* ZONE_TICK reports a client got, and how many named zone `name`. */
typedef struct {
    int ticks, named;
    const char *name;
} zone_ticks_t;

static void on_zone_tick(void *user, const heliod_event_t *ev) {
    zone_ticks_t *z = user;
    if (ev->type != HELIOD_EVENT_ZONE_TICK) return;
    z->ticks++;
    z->named += strstr(ev->message, z->name) != NULL;
}

/* A stranger that stays connected: loads its bank "level" (sound lsnd,
 * 0.5 s) and adds its world zone "wz" first, says so, waits for go (taking
 * the zone scheduler's reports meanwhile), then tries the game's bank and
 * zone and reports what it sees. */
static void bank_squatter(fx_t *f, int ready, int go, int res) {
    heliod_t *h = NULL;
    int out[24] = {0}, n = 0;
    if (heliod_connect(&h, f->d.sock, "stranger") != 0) _exit(3);
    char man[600], zman[600];
    write_bank(f->d.dir, "s_level.ini", "level", "lsnd", "half.wav", man, sizeof man);
    write_bank(f->d.dir, "s_zone.ini", "szbank", "szsnd", "half.wav", zman, sizeof zman);
    out[n++] = heliod_bank_load(h, man, NULL);
    out[n++] = bank_state(h, "level");
    const float far[3] = {1000, 0, 0}; /* never near the listener: never loads */
    out[n++] = heliod_zone_add(h, "wz", zman, far, 1.0f);
    zone_ticks_t zt = {.name = "gnear"};
    heliod_set_event_callback(h, on_zone_tick, &zt);
    if (heliod_subscribe(h, HELIOD_SUB_ZONES) != 0) _exit(5);
    char b = 1;
    if (write(ready, &b, 1) != 1) _exit(4);
    struct pollfd pf = {.fd = go, .events = POLLIN};
    for (int i = 0; poll(&pf, 1, 10) != 1; i++)
        if (heliod_dispatch(h) < 0 || i > 12000) _exit(4);
    /* the ticks sent before the ping's reply, queued by it, then delivered */
    if (read(go, &b, 1) != 1 || heliod_ping(h, NULL) != 0 || heliod_dispatch(h) < 0) _exit(4);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    out[n++] = heliod_play(h, "gsnd", &pp, NULL, NULL); /* the game's bank sound */
    out[n++] = heliod_bank_unload(h, "gbank");
    out[n++] = heliod_zone_remove(h, "gzone");
    out[n++] = heliod_bank_load(h, man, NULL); /* its own name: EEXIST */
    out[n++] = sound_frames(h, "lsnd");        /* its own lsnd (0.5 s), one of them */
    out[n++] = heliod_play(h, "lsnd", &pp, NULL, NULL);
    heliod_bank_info_t bi[8];
    size_t nb = 0;
    out[n++] = heliod_banks(h, bi, 8, &nb);
    out[n++] = (int)nb; /* level, the operator's opbank, a world zone's bank */
    heliod_zone_info_t zi[8];
    size_t nz = 0;
    out[n++] = heliod_zones(h, zi, 8, &nz);
    out[n++] = (int)nz;                                  /* its wz */
    out[n++] = heliod_bank_unload(h, "opbank");          /* the operator's: shared, not its own */
    out[n++] = heliod_play(h, "opsnd", &pp, NULL, NULL); /* its sounds: shared, anyone plays */
    out[n++] = zt.ticks > 0;                             /* it got the scheduler's reports, */
    out[n++] = zt.named;                                 /* without the game's zone's name */
    heliod_close(h);
    if (write(res, out, sizeof(int) * (size_t)n) < 0) _exit(2);
    _exit(0);
}

static void test_banks_and_zones_per_process(void **state) {
    fx_t *f = *state;
    char half[600], gman[600], lman[600], zman[600], oman[600];
    snprintf(half, sizeof half, "%.256s/half.wav", f->d.dir);
    assert_int_equal(th_write_sine(half, 48000, 0.5, 330, 0.2), 0);
    write_bank(f->d.dir, "g_level.ini", "level", "lsnd", "tone.wav", lman, sizeof lman);
    write_bank(f->d.dir, "g_bank.ini", "gbank", "gsnd", "tone.wav", gman, sizeof gman);
    write_bank(f->d.dir, "g_zone.ini", "gzbank", "gzsnd", "tone.wav", zman, sizeof zman);
    write_bank(f->d.dir, "op.ini", "opbank", "opsnd", "tone.wav", oman, sizeof oman);
    stranger_t sq;
    stranger_start(&sq, f, bank_squatter);

    heliod_t *g = conn(f, "game", 0);
    /* its own bank and zone of the stranger's names: not EEXIST */
    assert_int_equal(heliod_bank_load(g, lman, NULL), 0);
    assert_int_equal(bank_state(g, "level"), HELIOD_BANK_LOADED);
    assert_int_equal(heliod_bank_load(g, lman, NULL), HELIOD_EEXIST); /* its own, twice */
    assert_int_equal(heliod_bank_load(g, gman, NULL), 0);
    assert_int_equal(bank_state(g, "gbank"), HELIOD_BANK_LOADED);
    const float far[3] = {-1000, 0, 0};
    assert_int_equal(heliod_zone_add(g, "wz", zman, far, 1.0f), 0);
    assert_int_equal(heliod_zone_add(g, "wz", zman, far, 1.0f), HELIOD_EEXIST);
    assert_int_equal(heliod_zone_add(g, "gzone", zman, far, 1.0f), 0);
    /* its lsnd is its own 1 s tone, not the stranger's 0.5 s one */
    assert_int_equal(sound_frames(g, "lsnd"), 48000);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(g, "lsnd", &pp, NULL, NULL), 0);
    /* it lists its own banks and zones (and the shared ones), not the stranger's */
    heliod_bank_info_t bi[8];
    size_t nb = 0;
    assert_int_equal(heliod_banks(g, bi, 8, &nb), 0);
    assert_int_equal(nb, 2);
    heliod_zone_info_t zi[8];
    size_t nz = 0;
    assert_int_equal(heliod_zones(g, zi, 8, &nz), 0);
    assert_int_equal(nz, 2);
    /* the operator sees every namespace; its bank is shared */
    heliod_t *op = conn(f, "operator", HELIOD_CONNECT_CONTROL);
    assert_int_equal(heliod_banks(op, bi, 8, &nb), 0);
    assert_int_equal(nb, 3);
    assert_int_equal(heliod_zones(op, zi, 8, &nz), 0);
    assert_int_equal(nz, 3);
    assert_int_equal(heliod_bank_load(op, oman, NULL), 0);
    assert_int_equal(bank_state(op, "opbank"), HELIOD_BANK_LOADED);
    assert_int_equal(heliod_play(g, "opsnd", &pp, NULL, NULL), 0); /* shared: anyone plays it */
    /* the game's zone gnear loads (at the listener): the operator's ZONE_TICK
     * reports name it, the stranger's (checked below) do not */
    zone_ticks_t zt = {.name = "gnear"};
    heliod_set_event_callback(op, on_zone_tick, &zt);
    assert_int_equal(heliod_subscribe(op, HELIOD_SUB_ZONES), 0);
    const float here[3] = {0, 0, 0};
    assert_int_equal(heliod_zone_add(g, "gnear", zman, here, 10.0f), 0);
    for (int i = 0; i < 2000 && !zt.named; i++) {
        assert_true(heliod_dispatch(op) >= 0);
        th_sleep_ms(2);
    }
    assert_true(zt.named > 0);

    int r[24];
    int n = stranger_finish(&sq, r, 24);
    assert_int_equal(n, 17);
    fprintf(stderr,
            "# stranger: bank %d (state %d), zone %d; then play gsnd %d, unload gbank %d, "
            "remove gzone %d, its level again %d, its lsnd %d frames, play %d, banks %d (%d), "
            "zones %d (%d), unload opbank %d, play opsnd %d, zone ticks %d naming gnear %d\n",
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13],
            r[14], r[15], r[16]);
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], HELIOD_BANK_LOADED);
    assert_int_equal(r[2], 0);
    assert_int_equal(r[3], HELIOD_ENOSOUND); /* the game's bank sounds are not its */
    assert_int_equal(r[4], HELIOD_ENOSOUND); /* no bank gbank in its namespace */
    assert_int_equal(r[5], HELIOD_EINVAL);   /* no zone gzone in its namespace */
    assert_int_equal(r[6], HELIOD_EEXIST);
    assert_int_equal(r[7], 24000);
    assert_int_equal(r[8], 0);
    assert_int_equal(r[9], 0);
    assert_int_equal(r[10], 3); /* its level, opbank and gnear's bank (a zone's: shared) */
    assert_int_equal(r[11], 0);
    assert_int_equal(r[12], 1);
    assert_int_equal(r[13], HELIOD_EPERM);
    assert_int_equal(r[14], 0);
    assert_int_equal(r[15], 1);
    assert_int_equal(r[16], 0); /* the game's zone is not the stranger's to see */

    /* the game's bank, sounds and zone are untouched */
    assert_int_equal(bank_state(g, "gbank"), HELIOD_BANK_LOADED);
    assert_int_equal(heliod_play(g, "gsnd", &pp, NULL, NULL), 0);
    /* its zones (wz, gzone, gnear); the stranger's wz went with its process
     * (reclaimed, nothing adoptable): the operator sees the game's three */
    int left = 0;
    for (int i = 0; i < 500 && left != 3; i++) {
        assert_int_equal(heliod_zones(op, zi, 8, &nz), 0);
        left = (int)nz;
        if (left != 3) th_sleep_ms(10);
    }
    assert_int_equal(left, 3);
    assert_int_equal(heliod_zones(g, zi, 8, &nz), 0);
    assert_int_equal(nz, 3);
    int gz = 0;
    for (size_t i = 0; i < nz; i++)
        gz += !strcmp(zi[i].name, "gzone");
    assert_int_equal(gz, 1);
    assert_int_equal(heliod_zone_remove(g, "wz"), 0);             /* its own */
    assert_int_equal(heliod_zone_remove(g, "wz"), HELIOD_EINVAL); /* none left */
    /* the stranger's private bank went with its connection */
    int gone = 0;
    for (int i = 0; i < 500 && !gone; i++) {
        assert_int_equal(heliod_banks(op, bi, 8, &nb), 0);
        gone = nb == 4; /* the game's two, opbank and gnear's zone bank */
        if (!gone) th_sleep_ms(10);
    }
    assert_true(gone);
    assert_int_equal(heliod_bank_unload(op, "opbank"), 0);
    heliod_close(op);
    heliod_close(g);
}

/* A stranger can neither play nor evict a game's bank sounds: under a
 * 1 MiB budget full of the game's bank, its 900 KiB upload is ENOMEM. */
static int bank_evicter(heliod_t *h, int *out, void *arg) {
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    out[0] = heliod_play(h, "b1", &pp, NULL, NULL);
    big_upload(h, out + 1, arg);
    return 2;
}

static void test_bank_sounds_not_evicted_by_stranger(void **state) {
    fx_t *f = *state;
    char man[600];
    snprintf(man, sizeof man, "%.256s/evb.ini", f->d.dir);
    FILE *fp = fopen(man, "w");
    assert_non_null(fp);
    fprintf(fp, "name = evb\n[sound b1]\npath = tone.wav\n[sound b2]\npath = tone.wav\n");
    fclose(fp);
    heliod_t *g = conn(f, "game", 0);
    assert_int_equal(heliod_bank_load(g, man, NULL), 0);
    assert_int_equal(bank_state(g, "evb"), HELIOD_BANK_LOADED);
    int r[2];
    assert_int_equal(in_child(f, bank_evicter, f, r, 2), 2);
    fprintf(stderr, "# stranger: play of the game's bank sound %d, 900 KiB upload %d\n", r[0],
            r[1]);
    assert_int_equal(r[0], HELIOD_ENOSOUND);
    assert_int_equal(r[1], HELIOD_ENOMEM);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(g, "b1", &pp, NULL, NULL), 0);
    assert_int_equal(heliod_play(g, "b2", &pp, NULL, NULL), 0);
    assert_true(th_stat(g, "samples_evictions") == 0.0);
    heliod_close(g);
}

/* ---- one STATS key and one profiler row per bus ------------------------------ */

/* A stranger that stays connected with its own bus "gamebus" at -20 dB and
 * a loop on it; sends its client id on ready, exits on go. */
static void label_squatter(fx_t *f, int ready, int go) {
    heliod_t *h = NULL;
    if (heliod_connect(&h, f->d.sock, "stranger") != 0) _exit(3);
    if (heliod_load(h, "tone", f->tone, 0, NULL) != 0 || heliod_bus_create(h, "gamebus", "") != 0 ||
        heliod_bus_gain(h, "gamebus", -20, 0) != 0)
        _exit(5);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags |= HELIOD_PLAY_LOOP;
    snprintf(pp.bus, sizeof pp.bus, "gamebus");
    if (heliod_play(h, "tone", &pp, NULL, NULL) != 0) _exit(6);
    int id = (int)heliod_server_info(h)->client_id;
    char b = 0;
    struct pollfd pf = {.fd = go, .events = POLLIN};
    if (write(ready, &id, sizeof id) != (ssize_t)sizeof id || poll(&pf, 1, 120000) != 1 ||
        read(go, &b, 1) != 1)
        _exit(4);
    heliod_close(h);
    _exit(0);
}

typedef struct {
    int n;
    heliod_profile_t last;
} prof_seen_t;

static void on_prof(void *user, const heliod_event_t *ev) {
    prof_seen_t *p = user;
    if (ev->type != HELIOD_EVENT_PROFILE || !ev->profile) return;
    p->n++;
    p->last = *ev->profile;
}

static int prof_row(const heliod_profile_t *p, const char *name) {
    int k = -1;
    for (unsigned i = 0; i < p->nbuses; i++)
        if (!strcmp(p->bus[i].name, name)) k = k < 0 ? (int)i : -2;
    return k;
}

static void test_bus_labels_per_bus(void **state) {
    fx_t *f = *state;
    int ready[2], go[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) label_squatter(f, ready[1], go[0]);
    int sid = 0;
    assert_int_equal(read(ready[0], &sid, sizeof sid), (ssize_t)sizeof sid);

    heliod_t *g = conn(f, "game", 0);
    int gid = (int)heliod_server_info(g)->client_id;
    assert_int_equal(heliod_bus_create(g, "gamebus", ""), 0);
    assert_int_equal(heliod_bus_gain(g, "gamebus", -3, 0), 0);
    heliod_t *op = conn(f, "operator", HELIOD_CONNECT_CONTROL);
    assert_int_equal(heliod_bus_create(op, "opbus", ""), 0);
    assert_int_equal(heliod_bus_gain(op, "opbus", -7, 0), 0);
    char gk[80], sk[80], sm[80];
    snprintf(gk, sizeof gk, "bus.gamebus-c%d.gain_db", gid);
    snprintf(sk, sizeof sk, "bus.gamebus-c%d.gain_db", sid);
    snprintf(sm, sizeof sm, "bus.gamebus-c%d.peak_db", sid);
    double gv = th_stat(g, gk), sv = th_stat(g, sk), plain = th_stat(g, "bus.gamebus.gain_db");
    fprintf(stderr, "# STATS: %s = %.1f, %s = %.1f, bus.gamebus.gain_db = %.1f, opbus %.1f\n", gk,
            gv, sk, sv, plain, th_stat(g, "bus.opbus.gain_db"));
    assert_true(fabs(gv - -3.0) < 0.01);
    assert_true(fabs(sv - -20.0) < 0.01);
    assert_true(isnan(plain));                                        /* no shared key */
    assert_true(fabs(th_stat(g, "bus.opbus.gain_db") - -7.0) < 0.01); /* a control client's */
    assert_true(th_stat(g, "bus.sfx.gain_db") == 0.0);                /* the daemon's */
    assert_false(isnan(th_stat(g, sm))); /* the stranger's live bus, metered under its label */

    /* the profiler: one row each, the stranger's voice on its own row */
    prof_seen_t p = {0};
    heliod_set_event_callback(g, on_prof, &p);
    assert_int_equal(heliod_subscribe_profile(g, HELIOD_SUB_PROFILE, 0.0f, 20.0f), 0);
    for (int i = 0; i < 400 && p.n < 2; i++) {
        assert_true(heliod_dispatch(g) >= 0);
        th_sleep_ms(5);
    }
    assert_true(p.n >= 2);
    char gl[64], sl[64];
    snprintf(gl, sizeof gl, "gamebus-c%d", gid);
    snprintf(sl, sizeof sl, "gamebus-c%d", sid);
    int gr = prof_row(&p.last, gl), sr = prof_row(&p.last, sl);
    fprintf(stderr, "# PROFILE rows: %s at %d, %s at %d (real %u), gamebus at %d, opbus at %d\n",
            gl, gr, sl, sr, sr >= 0 ? p.last.bus[sr].real : 0, prof_row(&p.last, "gamebus"),
            prof_row(&p.last, "opbus"));
    assert_true(gr >= 0 && sr >= 0 && gr != sr);
    assert_int_equal(p.last.bus[sr].real, 1);
    assert_int_equal(p.last.bus[gr].real, 0);
    assert_int_equal(prof_row(&p.last, "gamebus"), -1);
    assert_true(prof_row(&p.last, "opbus") >= 0);
    assert_true(prof_row(&p.last, "sfx") >= 0);

    char b = 1;
    assert_int_equal(write(go[1], &b, 1), 1);
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    heliod_close(op);
    heliod_close(g);
    int fds[] = {ready[0], ready[1], go[0], go[1]};
    for (size_t i = 0; i < 4; i++)
        close(fds[i]);
}

/* ---- what a gone process leaves behind ---------------------------------------- */

/* Process A (a child) fills every table to its caps under setup_small, plus
 * a bank, a world zone, an effect and a ducking rule; a second connection
 * of it defines a cue and closes (its process keeps the cue); then A plays
 * a detached loop of its private sound through its cue, on its bus, and
 * exits. out: counts, the sibling's cue seen, the voice handle. */
static int leave_behind(heliod_t *h, int *out, void *arg) {
    const char *const *paths = arg; /* tone, bank manifest */
    int n = 0, rc = 0, ok;
    out[n++] = heliod_load(h, "aloop", paths[0], 0, NULL); /* 0: private */
    heliod_t *h2 = NULL;
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "aloop");
    snprintf(cue.name, sizeof cue.name, "asib");
    out[n++] = heliod_connect(&h2, getenv("HELIOD_TEST_SOCK"), "sibling") == 0
                   ? heliod_cue_define(h2, &cue) /* 1 */
                   : -1;
    heliod_close(h2);
    heliod_cue_info_t ci[80];
    size_t nc = 0;
    int sib = 0;
    if (heliod_cues(h, ci, 80, &nc) == 0)
        for (size_t i = 0; i < nc; i++)
            sib += ci[i].kind == HELIOD_CUES_KIND_CUE && strcmp(ci[i].cue.name, "asib") == 0;
    out[n++] = sib; /* 2: its process keeps it */
    ok = 0;
    for (int i = 0; i < 100; i++) {
        heliod_category_t cat;
        heliod_category_init(&cat);
        snprintf(cat.name, sizeof cat.name, "acat%d", i);
        if ((rc = heliod_category_define(h, &cat)) < 0) break;
        ok++;
    }
    out[n++] = ok; /* 3 */
    out[n++] = rc; /* 4 */
    ok = 1;        /* asib */
    snprintf(cue.category, sizeof cue.category, "acat0");
    snprintf(cue.bus, sizeof cue.bus, "abus");
    out[n++] = heliod_bus_create(h, "abus", ""); /* 5 */
    for (int i = 0; i < 100; i++) {
        snprintf(cue.name, sizeof cue.name, "acue%d", i);
        if ((rc = heliod_cue_define(h, &cue)) < 0) break;
        ok++;
    }
    out[n++] = ok; /* 6 */
    out[n++] = rc; /* 7 */
    ok = 0;
    for (int i = 0; i < 10; i++) {
        heliod_reverb_zone_t z;
        memset(&z, 0, sizeof z);
        snprintf(z.name, sizeof z.name, "arz%d", i);
        z.radius = 1;
        if ((rc = heliod_reverb_zone_set(h, &z)) < 0) break;
        ok++;
    }
    out[n++] = ok;                                /* 8 */
    out[n++] = rc;                                /* 9 */
    out[n++] = heliod_bus_create(h, "abus2", ""); /* 10: the fifth bus */
    ok = 0;
    for (int i = 0; i < 100; i++) {
        char name[32];
        float pos[3] = {0};
        snprintf(name, sizeof name, "aem%d", i);
        if ((rc = heliod_emitter_create(h, name, pos, NULL, 0)) < 0) break;
        ok++;
    }
    out[n++] = ok; /* 11 */
    out[n++] = rc; /* 12 */
    heliod_fx_t fx;
    char err[256];
    out[n++] = heliod_fx_parse(h, "eq --type lowpass --freq 5000", &fx, err, sizeof err) |
               heliod_fx_add(h, "abus", UINT32_MAX, &fx, NULL); /* 13 */
    heliod_duck_t dk;
    heliod_duck_init(&dk);
    snprintf(dk.bus, sizeof dk.bus, "abus");
    snprintf(dk.by, sizeof dk.by, "music");
    dk.depth_db = 6;
    out[n++] = heliod_duck(h, &dk);                 /* 14 */
    out[n++] = heliod_bank_load(h, paths[1], NULL); /* 15 */
    float far[3] = {1e4f, 0, 0};
    out[n++] = heliod_zone_add(h, "awz", paths[2], far, 1); /* 16 */
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags = HELIOD_PLAY_DETACHED | HELIOD_PLAY_LOOP;
    heliod_voice_t v = 0;
    out[n++] = heliod_play(h, "acue0", &pp, &v, NULL);          /* 17 */
    out[n++] = (int)(v & 0xffffffffu);                          /* 18 */
    out[n++] = (int)(v >> 32);                                  /* 19 */
    out[n++] = heliod_param_define(h, "aparam", 0, 1, 0.5f, 0); /* 20 */
    /* a mixer snapshot on, pulling its bus down, and a listener of its own */
    out[n++] = heliod_snapshot_define(h, "asnap", 0, 0) |
               heliod_snapshot_set(h, "asnap", "abus", HELIOD_SNAP_GAIN, 0, 0, -20) |
               heliod_snapshot_start(h, "asnap", 0, 1); /* 21 */
    heliod_listener_t l;
    memset(&l, 0, sizeof l);
    l.mask = HELIOD_LIS_POS;
    l.pos[0] = 50;
    out[n++] = heliod_set_listener_at(h, 2, &l, 0); /* 22 */
    return n;
}

static int buses_named(const heliod_bus_info_t *b, size_t n, const char *name) {
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += strcmp(b[i].name, name) == 0;
    return k;
}

static int sounds_named(const heliod_sound_info_t *s, size_t n, const char *name) {
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += strcmp(s[i].name, name) == 0;
    return k;
}

static void test_gone_process_reclaimed(void **state) {
    fx_t *f = *state;
    char man[600], zman[600], tone2[600];
    snprintf(man, sizeof man, "%.256s/abank.ini", f->d.dir);
    snprintf(zman, sizeof zman, "%.256s/azone.ini", f->d.dir);
    snprintf(tone2, sizeof tone2, "%.256s/t2.wav", f->d.dir);
    assert_int_equal(th_write_sine(tone2, 48000, 0.05, 330, 0.2), 0);
    FILE *fp = fopen(man, "w");
    assert_non_null(fp);
    fprintf(fp, "name = abank\n[sound ab1]\npath = t2.wav\n");
    fclose(fp);
    fp = fopen(zman, "w");
    assert_non_null(fp);
    fprintf(fp, "name = azonebank\n[sound az1]\npath = t2.wav\n");
    fclose(fp);
    setenv("HELIOD_TEST_SOCK", f->d.sock, 1);
    heliod_t *op = conn(f, "operator", HELIOD_CONNECT_CONTROL);
    double cues0 = th_stat(op, "cues"), cats0 = th_stat(op, "categories");
    double ems0 = th_stat(op, "emitters"), snd0 = th_stat(op, "sounds");
    heliod_bus_info_t bi[40];
    size_t nb0 = 0, nb = 0;
    assert_int_equal(heliod_buses(op, bi, 40, &nb0), 0);

    const char *paths[] = {f->tone, man, zman};
    int r[32];
    double lis0 = th_stat(op, "listeners");
    assert_int_equal(in_child(f, leave_behind, (void *)paths, r, 32), 23);
    fprintf(stderr,
            "# A: %d categories (%d), %d cues (%d), %d reverb zones (%d), %d emitters (%d), "
            "fifth bus %d\n",
            r[3], r[4], r[6], r[7], r[8], r[9], r[11], r[12], r[10]);
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], 0);
    assert_int_equal(r[2], 1);  /* a closed connection's cue stays its process's */
    assert_int_equal(r[3], 64); /* the default --client-categories */
    assert_int_equal(r[4], HELIOD_EQUOTA);
    assert_int_equal(r[5], 0);
    assert_int_equal(r[6], 16); /* --client-cues 16, asib included */
    assert_int_equal(r[7], HELIOD_EQUOTA);
    assert_int_equal(r[8], 3); /* --client-reverb-zones 3 */
    assert_int_equal(r[9], HELIOD_EQUOTA);
    assert_int_equal(r[10], HELIOD_EQUOTA); /* --client-buses 4: abus and three zone buses */
    assert_int_equal(r[11], 16);
    assert_int_equal(r[12], HELIOD_EQUOTA);
    for (int i = 13; i <= 17; i++)
        assert_int_equal(r[i], 0);
    assert_int_equal(r[20], 0);
    assert_int_equal(r[21], 0);
    assert_int_equal(r[22], 0);
    heliod_voice_t v = (heliod_voice_t)(uint32_t)r[18] | (heliod_voice_t)(uint32_t)r[19] << 32;
    /* A's exit reaches the daemon as its connection's EOF, which may come
     * after B's first requests: its listener going off (owners.c reclaims
     * everything of A at once) says the daemon has seen it */
    for (int i = 0; i < 500 && th_stat(op, "listeners") != lis0; i++)
        th_sleep_ms(10);

    /* B, another process (this one), finds none of A's objects by name */
    heliod_t *b = conn(f, "b", 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(b, "acue1", &pp, NULL, NULL), HELIOD_ENOSOUND);
    assert_int_equal(heliod_play(b, "aloop", &pp, NULL, NULL), HELIOD_ENOSOUND);
    assert_int_equal(heliod_bus_gain(b, "abus", -6, 0), HELIOD_ENOBUS);
    assert_int_equal(heliod_bus_gain(b, "arz0", -6, 0), HELIOD_ENOBUS);
    assert_int_not_equal(heliod_reverb_zone_remove(b, "arz0"), 0);
    assert_int_equal(heliod_bank_unload(b, "abank"), HELIOD_ENOSOUND);
    float pos[3] = {1, 0, 0};
    assert_int_equal(heliod_emitter_set(b, "aem0", HELIOD_EM_POS, pos, NULL, 0), HELIOD_ENOEMITTER);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "x");
    snprintf(cue.name, sizeof cue.name, "bcue");
    snprintf(cue.category, sizeof cue.category, "acat0");
    assert_int_equal(heliod_cue_define(b, &cue), HELIOD_ENOCATEGORY);
    /* nor A's game parameter: B's name is a new one, the operator lists only B's */
    assert_int_equal(heliod_param_set(b, "aparam", HELIOD_PSCOPE_GLOBAL, NULL, 0, 1),
                     HELIOD_EINVAL);
    assert_int_equal(heliod_param_define(b, "aparam", 0, 2, 1, 0), 0);
    heliod_param_info_t pinf[16];
    size_t npi = 0;
    assert_int_equal(heliod_params(op, pinf, 16, &npi), 0);
    int aparams = 0;
    for (size_t i = 0; i < npi; i++)
        if (strcmp(pinf[i].name, "aparam") == 0) {
            aparams++;
            assert_true(pinf[i].max == 2.0f);
        }
    assert_int_equal(aparams, 1);
    /* nor can adopt them: not even the operator reaches them */
    assert_int_equal(heliod_bus_gain(op, "abus", -6, 0), HELIOD_ENOBUS);
    assert_int_equal(heliod_bus_mute(op, "arz1", 1, 0), HELIOD_ENOBUS);
    heliod_cue_info_t ci[400];
    size_t nc = 0;
    assert_int_equal(heliod_cues(op, ci, 400, &nc), 0);
    for (size_t i = 0; i < nc; i++)
        assert_true(ci[i].kind == HELIOD_CUES_KIND_CUE ? ci[i].cue.name[0] != 'a'
                                                       : ci[i].category.name[0] != 'a');
    heliod_reverb_zone_info_t zi[8];
    size_t nz = 0;
    assert_int_equal(heliod_reverb_zones(op, zi, 8, &nz), 0);
    assert_int_equal(nz, 0);
    heliod_zone_info_t wzi[4];
    size_t nwz = 0;
    assert_int_equal(heliod_zones(op, wzi, 4, &nwz), 0);
    assert_int_equal(nwz, 0);
    /* their table slots are free (the cue and category the detached voice
     * plays through stay until it ends) */
    for (int i = 0; i < 500 && th_stat(op, "cues") != cues0 + 1; i++)
        th_sleep_ms(10);
    fprintf(stderr, "# after A left: %.0f cues (%.0f before), %.0f categories (%.0f before)\n",
            th_stat(op, "cues"), cues0, th_stat(op, "categories"), cats0);
    assert_true(th_stat(op, "cues") == cues0 + 1);
    assert_true(th_stat(op, "categories") == cats0 + 1);
    assert_true(th_stat(op, "emitters") == ems0);
    /* its snapshot is removed (its bus's fader back at 0 dB, below) and its
     * listener is off */
    heliod_snapshot_info_t sni[8];
    size_t nsn = 0;
    assert_int_equal(heliod_snapshots(op, sni, 8, &nsn), 0);
    for (size_t i = 0; i < nsn; i++)
        assert_string_not_equal(sni[i].name, "asnap");
    assert_true(th_stat(op, "snapshots_active") == 0);
    fprintf(stderr, "# after A left: %.0f listener(s) on (%.0f before it)\n",
            th_stat(op, "listeners"), lis0);
    assert_true(th_stat(op, "listeners") == lis0);

    /* A's detached loop keeps sounding, on its bus, through its cue */
    heliod_clock_t c0, c1;
    assert_int_equal(heliod_clock(op, &c0), 0);
    heliod_voice_info_t vi[8];
    size_t nv = 0;
    for (int i = 0; i < 2000; i++) { /* two loops of the 0.2 s tone, in engine frames */
        assert_int_equal(heliod_clock(op, &c1), 0);
        if (c1.frame >= c0.frame + 2 * 9600) break;
        th_sleep_ms(5);
    }
    assert_true(c1.frame >= c0.frame + 2 * 9600);
    assert_int_equal(heliod_voices(op, vi, 8, &nv), 0);
    assert_int_equal(nv, 1);
    assert_true(vi[0].voice == v);
    assert_true(vi[0].state == HELIOD_VOICE_PLAYING || vi[0].state == HELIOD_VOICE_VIRTUAL);
    assert_string_equal(vi[0].bus, "abus");
    assert_string_equal(vi[0].cue, "acue0");
    /* the orphaned bus keeps its label: STATS bus.abus-cID with A's client
     * id, not the orphan mark (0xffffffff) */
    static heliod_stat_t st[512];
    size_t nst = 0;
    assert_int_equal(heliod_stats(op, st, 512, &nst, 0), 0);
    unsigned long long lid = 0;
    int labels = 0;
    for (size_t i = 0; i < nst; i++) {
        char tail[16];
        if (sscanf(st[i].key, "bus.abus-c%llu.%15s", &lid, tail) == 2 &&
            strcmp(tail, "gain_db") == 0) {
            labels++;
            assert_true(st[i].value == 0); /* its snapshot's -20 dB went with it */
        }
    }
    fprintf(stderr, "# A's orphaned bus in STATS: %d key(s) bus.abus-c%llu.gain_db\n", labels, lid);
    assert_int_equal(labels, 1);
    assert_true(lid > 0 && lid < 0xffffffffull);
    /* the zones' buses went (the daemon's reverb_zones feed, made for the
     * first zone, stays); its own bus stays while the voice plays on it */
    for (int i = 0; i < 500; i++) {
        assert_int_equal(heliod_buses(op, bi, 40, &nb), 0);
        if (nb == nb0 + 2) break;
        th_sleep_ms(10);
    }
    assert_int_equal(nb, nb0 + 2);
    assert_int_equal(buses_named(bi, nb, "reverb_zones"), 1);
    assert_int_equal(buses_named(bi, nb, "abus"), 1);

    /* it stops: its sound, cue, category and bus are reclaimed */
    assert_int_equal(heliod_stop(op, v, 0), 0);
    heliod_sound_info_t si[16];
    size_t ns = 0;
    for (int i = 0; i < 500; i++) {
        assert_int_equal(heliod_buses(op, bi, 40, &nb), 0);
        assert_int_equal(heliod_sounds(op, si, 16, &ns), 0);
        if (nb == nb0 + 1 && th_stat(op, "cues") == cues0 && th_stat(op, "categories") == cats0 &&
            sounds_named(si, ns, "aloop") == 0)
            break;
        th_sleep_ms(10);
    }
    assert_int_equal(nb, nb0 + 1);
    assert_int_equal(buses_named(bi, nb, "abus"), 0);
    assert_int_equal(sounds_named(si, ns, "aloop"), 0);
    assert_true(th_stat(op, "cues") == cues0);
    assert_true(th_stat(op, "categories") == cats0);
    assert_true(th_stat(op, "sounds") == snd0);
    /* the slots serve again: B defines cues and categories in them */
    assert_int_equal(heliod_cue_define(b, &cue), HELIOD_ENOCATEGORY);
    heliod_category_t cat;
    heliod_category_init(&cat);
    snprintf(cat.name, sizeof cat.name, "acat0");
    assert_int_equal(heliod_category_define(b, &cat), 0); /* its own, in a reused slot */
    assert_int_equal(heliod_cue_define(b, &cue), 0);
    assert_true(th_stat(op, "cues") == cues0 + 1);
    heliod_close(b);
    heliod_close(op);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_stranger_cannot_silence_game, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_tables_capped_per_process, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_control_places_one_per_process, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_quota_per_process, setup_voices, teardown),
        cmocka_unit_test_setup_teardown(test_upload_charged_and_times_out, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_upload_evicts_only_its_own, setup_budget, teardown),
        cmocka_unit_test_setup_teardown(test_bank_charged_to_its_loader, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_bank_queue_charged_to_its_loader, setup_small,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_batch_of_detached_loops, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_names_per_process, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_bank_sheet_as_its_loader, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_bank_sheet_in_its_quota, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_buses_per_process, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_banks_and_zones_per_process, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_bank_sounds_not_evicted_by_stranger, setup_budget,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bus_labels_per_bus, setup_default, teardown),
        cmocka_unit_test_setup_teardown(test_gone_process_reclaimed, setup_small, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
