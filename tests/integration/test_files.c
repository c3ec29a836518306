/*
 * test_files.c - the files a request names (BANK manifests, ZONE banks and
 * their sounds, CUES_LOAD sheets) never block the event loop, and banks
 * and zones of any size load within their limits.
 *
 * Each bad file (a FIFO, /dev/zero, a directory, a symlink loop, a hung
 * open, a relative path, an oversized or over-long-lined manifest, a FIFO
 * listed as a zone's sound) is requested by one client in a child process
 * while another client pings the daemon: every ping must come back (within
 * a margin far beyond any machine's ping and far below "forever", which is
 * what a FIFO on the loop meant), and the bad request gets its error code
 * and a message naming the problem. The hung open is decoder.c's test hook
 * HELIOD_TEST_OPEN_DELAY (opens of *hungopen* sleep 4 s), which the file
 * reader honours too: the request is answered ETIMEDOUT at the 2 s budget.
 * LOAD's open has the same budget, and one process's hung LOADs hold one
 * file worker: other clients' LOADs and banks go on (test_load_hung_open).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"

typedef th_fixture_t fixture_t;

#define PING_MARGIN_MS 1000.0 /* a ping is a few µs of work: 1 s is any machine, loaded */

static int setup(void **state) {
    setenv("HELIOD_TEST_OPEN_DELAY", "4000:hungopen", 1); /* decoder.c / fileio.c test hook */
    const char *args[] = {"--max-sample-mb", "256", NULL};
    int rc = th_fixture_start(state, 0, args);
    unsetenv("HELIOD_TEST_OPEN_DELAY");
    return rc;
}

/* Opens of *hungopen* hang 2.6 s: past the 2 s budget by a margin far
 * beyond the poll tick that answers it, and short for the suite. */
static int setup_hung_load(void **state) {
    setenv("HELIOD_TEST_OPEN_DELAY", "2600:hungopen", 1);
    int rc = th_fixture_start(state, 0, NULL);
    unsetenv("HELIOD_TEST_OPEN_DELAY");
    return rc;
}

static int setup_zones(void **state) {
    const char *args[] = {
        "--zone-cap-mb", "1", "--zone-tick-hz", "50", "--zone-pin-radius", "1", NULL};
    return th_fixture_start(state, 0, args);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static heliod_t *conn(fixture_t *f, const char *name) {
    heliod_t *h = th_fixture_connect(f, name);
    assert_non_null(h);
    return h;
}

static void write_text(const char *path, const char *text) {
    FILE *m = fopen(path, "w");
    assert_non_null(m);
    fputs(text, m);
    fclose(m);
}

/* ---- one bad request against another client's pings ------------------------ */

typedef int (*req_fn)(heliod_t *h, const char *arg);

static int do_bank(heliod_t *h, const char *p) {
    return heliod_bank_load(h, p, NULL);
}
static int do_zone(heliod_t *h, const char *p) {
    const float pos[3] = {0, 0, 0};
    return heliod_zone_add(h, "z", p, pos, 10.0f);
}
static int do_cues(heliod_t *h, const char *p) {
    return heliod_cues_load(h, p, NULL, NULL);
}

typedef struct {
    int rc;
    double ms; /* until the bad request was answered */
    char msg[256];
} outcome_t;

typedef struct {
    outcome_t o;
    int pings;
    double ping_max_ms;
} result_t;

static result_t run_bad(fixture_t *f, req_fn fn, const char *path) {
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        outcome_t o = {.rc = -999};
        heliod_t *h = NULL;
        /* CUES_LOAD is a control client's (a sheet redefines any name) */
        uint32_t flags = fn == do_cues ? HELIOD_CONNECT_CONTROL : 0;
        if (heliod_connect_flags(&h, f->d.sock, "bad-file", flags) == 0) {
            heliod_set_timeout(h, 30000);
            double t0 = now_ms();
            o.rc = fn(h, path);
            o.ms = now_ms() - t0;
            snprintf(o.msg, sizeof o.msg, "%s", heliod_last_error(h));
            heliod_close(h);
        }
        ssize_t w = write(pfd[1], &o, sizeof o);
        _exit(w == (ssize_t)sizeof o ? 0 : 1);
    }
    close(pfd[1]);
    heliod_t *g = conn(f, "pinger");
    heliod_set_timeout(g, 3000);
    result_t r = {0};
    int got = 0;
    double t0 = now_ms();
    while (!got && now_ms() - t0 < 20000) {
        double a = now_ms();
        int rc = heliod_ping(g, NULL);
        double lat = now_ms() - a;
        assert_int_equal(rc, 0); /* a timed-out ping: the loop is blocked */
        r.pings++;
        if (lat > r.ping_max_ms) r.ping_max_ms = lat;
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        if (poll(&p, 1, 5) > 0) got = read(pfd[0], &r.o, sizeof r.o) == (ssize_t)sizeof r.o;
    }
    if (!got) kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(pfd[0]);
    heliod_close(g);
    assert_true(got); /* the bad request was answered */
    return r;
}

static void expect(fixture_t *f, const char *what, req_fn fn, const char *path, int code,
                   const char *needle) {
    result_t r = run_bad(f, fn, path);
    print_message("%-28s %-10s in %7.1f ms: \"%s\"; %d pings meanwhile, max %.2f ms\n", what,
                  heliod_strerror(r.o.rc), r.o.ms, r.o.msg, r.pings, r.ping_max_ms);
    assert_int_equal(r.o.rc, code);
    assert_non_null(strstr(r.o.msg, needle));
    assert_true(r.ping_max_ms < PING_MARGIN_MS);
}

static void test_bad_files(void **state) {
    fixture_t *f = *state;
    char fifo[400], dir[400], loop_a[400], loop_b[400], hung[400], big[400], longl[400];
    char zfifo[400], cfifo[400];
    snprintf(fifo, sizeof fifo, "%s/bank.fifo", f->d.dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(dir, sizeof dir, "%s/adir", f->d.dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(loop_a, sizeof loop_a, "%s/loop_a.ini", f->d.dir);
    snprintf(loop_b, sizeof loop_b, "%s/loop_b.ini", f->d.dir);
    assert_int_equal(symlink(loop_b, loop_a), 0);
    assert_int_equal(symlink(loop_a, loop_b), 0);
    snprintf(hung, sizeof hung, "%s/hungopen.ini", f->d.dir);
    write_text(hung, "[sound s]\npath = x.wav\n");

    /* a manifest of 100k entries: refused whole, never parsed without bound */
    snprintf(big, sizeof big, "%s/big.ini", f->d.dir);
    FILE *b = fopen(big, "w");
    assert_non_null(b);
    for (int i = 0; i < 100000; i++)
        fprintf(b, "[sound s%06d]\npath = /nonexistent/s%06d.wav\n", i, i);
    fclose(b);
    /* a line longer than the limit: an error, not two lines */
    snprintf(longl, sizeof longl, "%s/long.ini", f->d.dir);
    b = fopen(longl, "w");
    assert_non_null(b);
    fprintf(b, "[sound s]\npath = /");
    for (int i = 0; i < 5000; i++)
        fputc('a', b);
    fprintf(b, "\n");
    fclose(b);
    /* a zone's bank that lists a FIFO as a sound: its header is read to
     * estimate the zone's size */
    snprintf(zfifo, sizeof zfifo, "%s/zfifo.ini", f->d.dir);
    char text[600];
    snprintf(text, sizeof text, "[sound s]\npath = %s\n", fifo);
    write_text(zfifo, text);
    snprintf(cfifo, sizeof cfifo, "%s/cues.fifo", f->d.dir);
    assert_int_equal(mkfifo(cfifo, 0600), 0);

    expect(f, "bank load FIFO", do_bank, fifo, HELIOD_EFILE, "not a regular file");
    expect(f, "bank load /dev/zero", do_bank, "/dev/zero", HELIOD_EFILE, "not a regular file");
    expect(f, "bank load directory", do_bank, dir, HELIOD_EFILE, "not a regular file");
    expect(f, "bank load symlink loop", do_bank, loop_a, HELIOD_EFILE, "symbolic links");
    expect(f, "bank load relative path", do_bank, "bank.ini", HELIOD_EINVAL, "absolute");
    expect(f, "bank load 100k entries", do_bank, big, HELIOD_ETOOBIG, "at most");
    expect(f, "bank load over-long line", do_bank, longl, HELIOD_EINVAL, "line longer than");
    expect(f, "bank load hung open", do_bank, hung, HELIOD_ETIMEDOUT, "open budget");
    expect(f, "zone add FIFO", do_zone, fifo, HELIOD_EFILE, "not a regular file");
    expect(f, "zone add /dev/zero", do_zone, "/dev/zero", HELIOD_EFILE, "not a regular file");
    expect(f, "zone add FIFO sound", do_zone, zfifo, HELIOD_EFILE, "not a regular file");
    expect(f, "zone add hung open", do_zone, hung, HELIOD_ETIMEDOUT, "open budget");
    expect(f, "zone add relative path", do_zone, "zone.ini", HELIOD_EINVAL, "absolute");
    expect(f, "cues load FIFO", do_cues, cfifo, HELIOD_EFILE, "not a regular file");
    expect(f, "cues load /dev/zero", do_cues, "/dev/zero", HELIOD_EFILE, "not a regular file");
    expect(f, "cues load directory", do_cues, dir, HELIOD_EFILE, "not a regular file");
    expect(f, "cues load symlink loop", do_cues, loop_a, HELIOD_EFILE, "symbolic links");

    /* the daemon still works: a good bank loads */
    heliod_t *h = conn(f, "after");
    char wav[400], man[400];
    snprintf(wav, sizeof wav, "%s/ok.wav", f->d.dir);
    assert_int_equal(th_write_sine(wav, 48000, 0.1, 440.0, 0.2), 0);
    snprintf(man, sizeof man, "%s/ok.ini", f->d.dir);
    write_text(man, "name = ok\n[sound ok_s]\npath = ok.wav\n");
    heliod_bank_info_t bi;
    assert_int_equal(heliod_bank_load(h, man, &bi), 0);
    assert_string_equal(bi.name, "ok");
    heliod_close(h);
    /* the hung opens' threads are still asleep: the daemon stops without
     * waiting for them (written off, they keep nothing alive) */
}

/* Real hung I/O: a FUSE mount nobody serves (as test_lifecycle's `fuse`):
 * every open under it waits in the kernel for good. BANK load, ZONE add and
 * CUES_LOAD of a file there are answered ETIMEDOUT at the open budget while
 * another client's pings keep coming back; closing the FUSE connection
 * afterwards lets the stuck workers return. Needs root and /dev/fuse. */
static void test_fuse_hung_open(void **state) {
    fixture_t *f = *state;
    if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) != 0) {
        print_message("needs root and /dev/fuse to mount a hung file system: skipped\n");
        skip();
    }
    char mnt[400], opts[160], path[500];
    snprintf(mnt, sizeof mnt, "%s/mnt", f->d.dir);
    assert_int_equal(mkdir(mnt, 0700), 0);
    int fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=%d,group_id=%d", fuse, (int)getuid(),
             (int)getgid());
    if (fuse < 0 || mount("heliodtest", mnt, "fuse", MS_NOSUID | MS_NODEV, opts) != 0) {
        print_message("cannot mount FUSE (%s): skipped\n", strerror(errno));
        if (fuse >= 0) close(fuse);
        skip();
    }
    snprintf(path, sizeof path, "%s/hung.ini", mnt);
    expect(f, "bank load on hung FUSE", do_bank, path, HELIOD_ETIMEDOUT, "open budget");
    expect(f, "cues load on hung FUSE", do_cues, path, HELIOD_ETIMEDOUT, "open budget");
    umount2(mnt, MNT_DETACH);
    close(fuse); /* aborts the connection: the stuck opens fail and their workers return */
    th_sleep_ms(200);
    heliod_t *h = conn(f, "after-fuse");
    assert_int_equal(heliod_ping(h, NULL), 0);
    heliod_close(h);
}

/* A bank's cue sheet is read off the loop too: one that is a FIFO fails the
 * bank (its error names it), the loop answers meanwhile. */
static void test_bank_cue_sheet_fifo(void **state) {
    fixture_t *f = *state;
    char wav[400], man[400], cf[400], text[1200];
    snprintf(wav, sizeof wav, "%s/c.wav", f->d.dir);
    assert_int_equal(th_write_sine(wav, 48000, 0.1, 440.0, 0.2), 0);
    snprintf(cf, sizeof cf, "%s/sheet.fifo", f->d.dir);
    assert_int_equal(mkfifo(cf, 0600), 0);
    snprintf(man, sizeof man, "%s/withcues.ini", f->d.dir);
    snprintf(text, sizeof text, "name = withcues\ncues = %s\n[sound c_s]\npath = c.wav\n", cf);
    write_text(man, text);
    heliod_t *h = conn(f, "cuesheet");
    assert_int_equal(heliod_bank_load(h, man, NULL), 0);
    heliod_bank_info_t b[4];
    size_t n = 0;
    int state_ = -1;
    for (int i = 0; i < 500 && state_ != HELIOD_BANK_FAILED; i++) {
        assert_int_equal(heliod_banks(h, b, 4, &n), 0); /* answered: the loop runs */
        for (size_t k = 0; k < n; k++)
            if (!strcmp(b[k].name, "withcues")) state_ = b[k].state;
        th_sleep_ms(10);
    }
    assert_int_equal(state_, HELIOD_BANK_FAILED);
    for (size_t k = 0; k < n; k++)
        if (!strcmp(b[k].name, "withcues")) {
            print_message("bank with a FIFO cue sheet: failed, \"%s\"\n", b[k].error);
            assert_non_null(strstr(b[k].error, "not a regular file"));
        }
    heliod_close(h);
}

/* ---- a bank of 1024 sounds ---------------------------------------------------- */

static void test_bank_1024(void **state) {
    fixture_t *f = *state;
    char p[400], man[400];
    snprintf(man, sizeof man, "%s/big1024.ini", f->d.dir);
    FILE *m = fopen(man, "w");
    assert_non_null(m);
    fprintf(m, "name = big1024\n");
    for (int i = 0; i < 1024; i++) {
        snprintf(p, sizeof p, "%s/b%04d.wav", f->d.dir, i);
        assert_int_equal(th_write_sine(p, 48000, 0.02, 200.0 + i, 0.1), 0);
        fprintf(m, "[sound b%04d]\npath = b%04d.wav\n", i, i);
    }
    fclose(m);
    heliod_t *h = conn(f, "bank1024");
    heliod_bank_info_t bi;
    double t0 = now_ms();
    assert_int_equal(heliod_bank_load(h, man, &bi), 0);
    assert_int_equal(bi.sounds, 1024);
    heliod_bank_info_t b[4];
    size_t n = 0;
    heliod_bank_info_t *me = NULL;
    for (int i = 0; i < 3000; i++) {
        assert_int_equal(heliod_banks(h, b, 4, &n), 0);
        me = NULL;
        for (size_t k = 0; k < n; k++)
            if (!strcmp(b[k].name, "big1024")) me = &b[k];
        assert_non_null(me);
        if (me->state != HELIOD_BANK_LOADING) break;
        th_sleep_ms(10);
    }
    print_message("1024-sound bank: state %d, %u loaded, %u failed in %.0f ms%s%s\n", me->state,
                  me->done, me->failed, now_ms() - t0, me->error[0] ? ": " : "", me->error);
    assert_int_equal(me->state, HELIOD_BANK_LOADED);
    assert_int_equal(me->done, 1024);
    assert_int_equal(me->failed, 0);
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    assert_int_equal(heliod_play(h, "b1023", &pp, NULL, NULL), 0);
    heliod_close(h);
}

/* ---- eviction walks each sound once ---------------------------------------------- */

static int setup_evict(void **state) {
    const char *args[] = {"--max-sample-mb", "4", "--client-sample-mb", "4", NULL};
    return th_fixture_start(state, 0, args);
}

static int bank_state(heliod_t *h, const char *name, heliod_bank_info_t *out) {
    static heliod_bank_info_t b[8];
    size_t n = 0;
    assert_true(heliod_banks(h, b, 8, &n) >= 0);
    for (size_t k = 0; k < n; k++)
        if (!strcmp(b[k].name, name)) {
            *out = b[k];
            return b[k].state;
        }
    return -1;
}

/* 2048 tiny sounds (two banks) fill a 4 MiB budget; one big load then
 * evicts most of them. The eviction walk looks at each entry at most once
 * per eviction (STATS samples_evict_scanned), where a scan per evicted
 * sound looked at every entry for each: n^2/2 and more. Counted, not timed. */
static void test_eviction_linear(void **state) {
    fixture_t *f = *state;
    char p[400], man[2][400];
    for (int i = 0; i < 1024; i++) {
        snprintf(p, sizeof p, "%s/t%04d.wav", f->d.dir, i);
        assert_int_equal(th_write_sine(p, 48000, 0.01, 300.0, 0.1), 0);
    }
    for (int k = 0; k < 2; k++) {
        snprintf(man[k], sizeof man[k], "%s/tiny%d.ini", f->d.dir, k);
        FILE *m = fopen(man[k], "w");
        assert_non_null(m);
        fprintf(m, "name = tiny%d\n", k);
        for (int i = 0; i < 1024; i++)
            fprintf(m, "[sound %c%04d]\npath = t%04d.wav\n", 'a' + k, i, i);
        fclose(m);
    }
    heliod_t *h = conn(f, "evict");
    heliod_bank_info_t bi;
    for (int k = 0; k < 2; k++) {
        char name[16];
        snprintf(name, sizeof name, "tiny%d", k);
        assert_int_equal(heliod_bank_load(h, man[k], NULL), 0);
        for (int w = 0; w < 1000 && bank_state(h, name, &bi) == HELIOD_BANK_LOADING; w++)
            th_sleep_ms(10);
        assert_int_equal(bi.state, HELIOD_BANK_LOADED);
        assert_int_equal(bi.done, 1024);
    }
    double scanned0 = th_stat(h, "samples_evict_scanned");
    double ev0 = th_stat(h, "samples_evictions");
    snprintf(p, sizeof p, "%s/big.wav", f->d.dir);
    assert_int_equal(th_write_sine(p, 48000, 19.0, 220.0, 0.1), 0); /* 3.6 MB decoded */
    assert_int_equal(heliod_load(h, "big", p, 0, NULL), 0);
    double scanned = th_stat(h, "samples_evict_scanned") - scanned0;
    double evicted = th_stat(h, "samples_evictions") - ev0;
    double us = th_stat(h, "samples_evict_max_us");
    print_message("eviction: %.0f of 2048 sounds evicted, %.0f entries looked at, longest walk "
                  "%.0f us\n",
                  evicted, scanned, us);
    assert_true(evicted >= 1500);
    assert_true(scanned <= 2.0 * 2048); /* at most a walk or two over the table */
    heliod_close(h);
}

/* ---- the zone cap holds at every instant ---------------------------------------- */

static void test_zone_cap(void **state) {
    fixture_t *f = *state;
    heliod_t *h = conn(f, "zones");
    /* three zones of ~0.4 MiB (2.2 s mono at 48 kHz) under a 1 MiB cap: at
     * most two fit */
    const float pos[3][3] = {{10, 0, 0}, {20, 0, 0}, {30, 0, 0}};
    for (int i = 0; i < 3; i++) {
        char wav[400], man[400], text[600], name[16];
        snprintf(wav, sizeof wav, "%s/zc%d.wav", f->d.dir, i);
        assert_int_equal(th_write_sine(wav, 48000, 2.184, 300.0 + 50 * i, 0.2), 0);
        snprintf(man, sizeof man, "%s/zc%d.ini", f->d.dir, i);
        snprintf(text, sizeof text, "name = zc%d\n[sound zc%d_s]\npath = zc%d.wav\n", i, i, i);
        write_text(man, text);
        snprintf(name, sizeof name, "zc%d", i);
        assert_int_equal(heliod_zone_add(h, name, man, pos[i], 100.0f), 0);
    }
    /* the listener stands on each zone's centre in turn (within the pin
     * radius: a pinned zone must make room, not load over the cap) */
    heliod_listener_t l = {.mask = HELIOD_LIS_POS};
    const int order[] = {0, 2, 0, 1, 2};
    for (int s = 0; s < 5; s++) {
        memcpy(l.pos, pos[order[s]], sizeof l.pos);
        assert_int_equal(heliod_set_listener(h, &l), 0);
        heliod_zone_info_t zi[4];
        size_t n = 0;
        int loaded = 0;
        for (int w = 0; w < 300 && !loaded; w++) { /* until the pinned zone is in (3 s at most) */
            th_sleep_ms(10);
            assert_int_equal(heliod_zones(h, zi, 4, &n), 0);
            for (size_t k = 0; k < n; k++)
                if (zi[k].state == 2 && zi[k].distance < 1.0f) loaded = 1;
        }
        assert_true(loaded);
    }
    double peak = th_stat(h, "zones_peak_resident_bytes");
    double req = th_stat(h, "zones_requested");
    print_message("zones: peak resident %.0f bytes under a cap of %d bytes (%.0f loads)\n", peak,
                  1 << 20, req);
    assert_true(req >= 2);
    assert_true(peak > 0);
    assert_true(peak <= (double)(1 << 20));
    heliod_close(h);
}

/* ---- heliod --render trusts its score no more than a client ------------------- */

static char g_rdir[256];

/* heliod --render SCORE --out OUT [args]: its exit status (-2: still
 * running after 60 s, killed); its stderr into err. */
static int render(const char *score, const char *out, const char *const *args, char *err,
                  size_t cap) {
    char logp[300];
    snprintf(logp, sizeof logp, "%s/render.err", g_rdir);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        const char *bin = getenv("HELIOD_BIN") ? getenv("HELIOD_BIN") : "heliod";
        if (!freopen(logp, "w", stderr)) _exit(126);
        const char *av[16] = {bin, "--render", score, "--out", out, "--log-level", "warn"};
        int n = 7;
        for (int i = 0; args && args[i] && n < 15; i++)
            av[n++] = args[i];
        av[n] = NULL;
        execv(bin, (char *const *)av);
        _exit(127);
    }
    int st = 0, done = 0;
    for (int i = 0; i < 6000 && !done; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            done = 1;
        else
            th_sleep_ms(10);
    }
    if (!done) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    err[0] = '\0';
    FILE *f = fopen(logp, "r");
    if (f) {
        size_t n = fread(err, 1, cap - 1, f);
        err[n] = '\0';
        fclose(f);
    }
    if (!done) return -2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int setup_render(void **state) {
    (void)state;
    snprintf(g_rdir, sizeof g_rdir, "/tmp/heliod-render-XXXXXX");
    return mkdtemp(g_rdir) ? 0 : -1;
}

static int teardown_render(void **state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_rdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_render_limits(void **state) {
    (void)state;
    char score[300], out[300], err[4096], wav[300], fifo[300], text[1200];
    snprintf(out, sizeof out, "%s/out.wav", g_rdir);
    snprintf(wav, sizeof wav, "%s/tone.wav", g_rdir);
    assert_int_equal(th_write_sine(wav, 48000, 0.5, 440.0, 0.2), 0);

    /* one line that would write hours: refused before anything renders */
    snprintf(score, sizeof score, "%s/long.score", g_rdir);
    snprintf(text, sizeof text, "load t %s\n@0 play t\n@+20000000 end\n", wav);
    write_text(score, text);
    unlink(out);
    int rc = render(score, out, NULL, err, sizeof err);
    print_message("score ending at 20000 s: exit %d: %s", rc, err);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "beyond --max-seconds (600 s)"));
    struct stat st;
    assert_true(stat(out, &st) != 0 || st.st_size < 1024); /* nothing rendered */
    snprintf(text, sizeof text, "load t %s\n@+700000 play t\n", wav);
    write_text(score, text);
    rc = render(score, out, NULL, err, sizeof err);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "beyond --max-seconds"));

    /* a loop with no end: cut at --max-seconds, with an error */
    snprintf(text, sizeof text, "load t %s\n@0 play t --loop\n", wav);
    write_text(score, text);
    const char *two[] = {"--max-seconds", "2", NULL};
    rc = render(score, out, two, err, sizeof err);
    print_message("endless loop, --max-seconds 2: exit %d: %s", rc, err);
    assert_int_equal(rc, 4);
    assert_non_null(strstr(err, "still playing at --max-seconds (2 s)"));
    float *data = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(out, &data, &frames, &ch, &rate), 0);
    free(data);
    assert_int_equal(frames, 2 * 48000); /* exactly the cap */

    /* not a regular file: refused at once, never read */
    snprintf(fifo, sizeof fifo, "%s/score.fifo", g_rdir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    rc = render(fifo, out, NULL, err, sizeof err);
    print_message("FIFO score: exit %d: %s", rc, err);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "not a regular file"));
    rc = render("/dev/zero", out, NULL, err, sizeof err);
    print_message("/dev/zero score: exit %d: %s", rc, err);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "not a regular file"));

    /* a line over the limit is an error, not two lines */
    FILE *f = fopen(score, "w");
    assert_non_null(f);
    fprintf(f, "load t %s\n@0 play t --gain -6", wav);
    for (int i = 0; i < 6000; i++)
        fputc(' ', f);
    fprintf(f, "--pitch 2\n");
    fclose(f);
    rc = render(score, out, NULL, err, sizeof err);
    print_message("over-long line: exit %d: %s", rc, err);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, ":2: line longer than 5119 bytes"));

    /* --max-seconds is range-checked */
    const char *bad[] = {"--max-seconds", "100000", NULL};
    snprintf(text, sizeof text, "load t %s\n@0 play t\n", wav);
    write_text(score, text);
    rc = render(score, out, bad, err, sizeof err);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(err, "--max-seconds"));
    /* and a sane score still renders */
    rc = render(score, out, NULL, err, sizeof err);
    assert_int_equal(rc, 0);
}

/* ---- LOAD's open has the open budget, per process -------------------------- */

#define HUNG_LOADS 4 /* as many as the worker pool has threads */

typedef struct {
    const char *sock, *path;
    int rc;
    char msg[256];
} hung_load_t;

static void *hung_load(void *arg) {
    hung_load_t *l = arg;
    heliod_t *h = NULL;
    l->rc = -999;
    if (heliod_connect(&h, l->sock, "hung-loader") != 0) return NULL;
    heliod_set_timeout(h, 30000);
    l->rc = heliod_load(h, "hung", l->path, 0, NULL);
    snprintf(l->msg, sizeof l->msg, "%s", heliod_last_error(h));
    heliod_close(h);
    return NULL;
}

/* A process (a child) sends HUNG_LOADS LOADs of files whose open hangs 2.6 s
 * (HELIOD_TEST_OPEN_DELAY, *hungopen*), one per connection, at once: one
 * holds its process's file-worker place, the others wait behind it; every
 * one is answered ETIMEDOUT by the 2 s open budget (the open itself would
 * succeed after 2.6 s: ETIMEDOUT cannot come from it). Meanwhile another
 * client's LOAD, a FIFO LOAD and a bank load are answered, the LOAD before
 * any hung open reached the budget (it did not wait behind them: before,
 * four hung LOADs held all four pool threads and it waited for them). */
static void test_load_hung_open(void **state) {
    fixture_t *f = *state;
    char paths[HUNG_LOADS][400], ok[400], fifo[400], man[400];
    for (int i = 0; i < HUNG_LOADS; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/hungopen%d.wav", f->d.dir, i);
        assert_int_equal(th_write_sine(paths[i], 48000, 0.1, 440.0, 0.2), 0);
    }
    snprintf(ok, sizeof ok, "%s/fine.wav", f->d.dir);
    assert_int_equal(th_write_sine(ok, 48000, 0.1, 440.0, 0.2), 0);
    snprintf(fifo, sizeof fifo, "%s/load.fifo", f->d.dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(man, sizeof man, "%s/fine.ini", f->d.dir);
    write_text(man, "name = fine\n[sound f1]\npath = fine.wav\n[sound f2]\npath = fine.wav\n");
    heliod_t *g = conn(f, "game");
    double jobs0 = th_stat(g, "file_jobs");

    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        hung_load_t l[HUNG_LOADS];
        pthread_t t[HUNG_LOADS];
        double t0 = now_ms();
        for (int i = 0; i < HUNG_LOADS; i++) {
            l[i] = (hung_load_t){.sock = f->d.sock, .path = paths[i]};
            if (pthread_create(&t[i], NULL, hung_load, &l[i]) != 0) _exit(3);
        }
        for (int i = 0; i < HUNG_LOADS; i++)
            pthread_join(t[i], NULL);
        double ms = now_ms() - t0;
        ssize_t w = write(pfd[1], l, sizeof l);
        w += write(pfd[1], &ms, sizeof ms);
        _exit(w == (ssize_t)(sizeof l + sizeof ms) ? 0 : 1);
    }
    close(pfd[1]);
    /* the stranger's LOADs are all in the file workers' hands */
    int in = 0;
    for (int i = 0; i < 2000 && !in; i++) {
        in = th_stat(g, "file_jobs_pending") >= HUNG_LOADS && th_stat(g, "file_jobs") > jobs0;
        if (!in) th_sleep_ms(1);
    }
    assert_true(in);
    double t0 = now_ms();
    int rc = heliod_load(g, "fine", ok, 0, NULL);
    double load_ms = now_ms() - t0, timeouts = th_stat(g, "file_open_timeouts");
    print_message("another client's LOAD while %d hung: %s in %.1f ms (%.0f open timeouts yet)\n",
                  HUNG_LOADS, heliod_strerror(rc), load_ms, timeouts);
    assert_int_equal(rc, 0);
    assert_true(timeouts == 0); /* answered before any hung open reached its budget */
    assert_int_equal(heliod_load(g, "fifo", fifo, 0, NULL), HELIOD_EFILE);
    print_message("LOAD of a FIFO: \"%s\"\n", heliod_last_error(g));
    assert_non_null(strstr(heliod_last_error(g), "not a regular file"));
    assert_int_equal(heliod_bank_load(g, man, NULL), 0);
    int state_ = -1;
    for (int i = 0; i < 3000 && state_ != HELIOD_BANK_LOADED; i++) {
        heliod_bank_info_t bi[4];
        size_t n = 0;
        assert_int_equal(heliod_banks(g, bi, 4, &n), 0);
        state_ = n == 1 ? bi[0].state : -1;
        if (state_ == HELIOD_BANK_FAILED) break;
        if (state_ != HELIOD_BANK_LOADED) th_sleep_ms(5);
    }
    assert_int_equal(state_, HELIOD_BANK_LOADED);

    hung_load_t l[HUNG_LOADS];
    double ms = 0;
    assert_int_equal(read(pfd[0], l, sizeof l), (ssize_t)sizeof l);
    assert_int_equal(read(pfd[0], &ms, sizeof ms), (ssize_t)sizeof ms);
    close(pfd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    for (int i = 0; i < HUNG_LOADS; i++) {
        print_message("hung LOAD %d: %s \"%s\"\n", i, heliod_strerror(l[i].rc), l[i].msg);
        assert_int_equal(l[i].rc, HELIOD_ETIMEDOUT);
        assert_true(strstr(l[i].msg, "open budget") || strstr(l[i].msg, "hung opens"));
    }
    print_message("%d hung LOADs of one process all answered in %.0f ms (the opens hang 2.6 s; "
                  "the budget is 2 s)\n",
                  HUNG_LOADS, ms);
    /* the hung opens come back (2.6 s after they began) before the daemon stops */
    int back = 0;
    for (int i = 0; i < 1000 && !back; i++) {
        back = th_stat(g, "file_jobs_hung") == 0 && th_stat(g, "file_jobs_pending") == 0;
        if (!back) th_sleep_ms(10);
    }
    assert_true(back);
    heliod_close(g);
}

/* ---- hostile processes whose opens hang ------------------------------------ */

#define STUCK_PER_PROC 2 /* fileio.h HLD_FILE_STUCK_PER_PROC */
#define HOSTILE        3
#define HOSTILE_LOADS  (STUCK_PER_PROC + 1)

/* Opens of *hungopen* hang 5 s: the first two of a hostile process's LOADs
 * are written off at 2 s and 4 s and are still stuck when its third comes
 * (refused at once), and the test ends before any returns. */
static int setup_hostile(void **state) {
    setenv("HELIOD_TEST_OPEN_DELAY", "5000:hungopen", 1);
    int rc = th_fixture_start(state, 0, NULL);
    unsetenv("HELIOD_TEST_OPEN_DELAY");
    return rc;
}

typedef struct {
    int rc[HOSTILE_LOADS];
    double ms[HOSTILE_LOADS];
    char msg[HOSTILE_LOADS][200];
} hostile_t;

/* A hostile process: LOADs of hung paths, one after the other, on one
 * connection (the next as soon as the last is answered). */
static pid_t spawn_hostile(fixture_t *f, int k, int *rfd) {
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        hostile_t r;
        memset(&r, 0, sizeof r);
        heliod_t *h = NULL;
        if (heliod_connect(&h, f->d.sock, "hostile") != 0) _exit(3);
        heliod_set_timeout(h, 30000);
        for (int i = 0; i < HOSTILE_LOADS; i++) {
            char path[400], name[32];
            snprintf(path, sizeof path, "%s/hungopen-%d-%d.wav", f->d.dir, k, i);
            snprintf(name, sizeof name, "h%d", i);
            double t0 = now_ms();
            r.rc[i] = heliod_load(h, name, path, 0, NULL);
            r.ms[i] = now_ms() - t0;
            snprintf(r.msg[i], sizeof r.msg[i], "%s", heliod_last_error(h));
        }
        heliod_close(h);
        _exit(write(pfd[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    close(pfd[1]);
    *rfd = pfd[0];
    return pid;
}

/* Waits (up to 10 s) until STATS key >= v. */
static int wait_stat_ge(heliod_t *g, const char *key, double v) {
    for (double t0 = now_ms(); now_ms() - t0 < 10000;) {
        if (th_stat(g, key) >= v) return 1;
        th_sleep_ms(1);
    }
    return 0;
}

/* A well-behaved client's LOAD and bank load (of a two-sound bank), timed:
 * both must succeed well within the open budget. */
static void well_behaved(heliod_t *g, fixture_t *f, int round, const char *when) {
    char wav[400], man[400], text[1200], name[32], bank[32];
    snprintf(wav, sizeof wav, "%s/fine.wav", f->d.dir);
    snprintf(name, sizeof name, "fine%d", round);
    snprintf(bank, sizeof bank, "b%d", round);
    snprintf(man, sizeof man, "%s/fine%d.ini", f->d.dir, round);
    snprintf(text, sizeof text, "name = %s\n[sound %s_1]\npath = %s\n[sound %s_2]\npath = %s\n",
             bank, bank, wav, bank, wav);
    write_text(man, text);
    double t0 = now_ms();
    int rc = heliod_load(g, name, wav, 0, NULL);
    double load_ms = now_ms() - t0;
    int brc = heliod_bank_load(g, man, NULL);
    int st = -1;
    while (brc == 0 && st != HELIOD_BANK_LOADED && st != HELIOD_BANK_FAILED &&
           now_ms() - t0 < 5000) {
        heliod_bank_info_t bi[8];
        size_t n = 0;
        assert_int_equal(heliod_banks(g, bi, 8, &n), 0);
        for (size_t i = 0; i < n; i++)
            if (!strcmp(bi[i].name, bank)) st = bi[i].state;
        if (st != HELIOD_BANK_LOADED) th_sleep_ms(1);
    }
    double all_ms = now_ms() - t0;
    print_message("%s: LOAD %s in %.1f ms, LOAD + bank loaded in %.1f ms (%.0f file jobs hung, "
                  "%.0f pending)\n",
                  when, heliod_strerror(rc), load_ms, all_ms, th_stat(g, "file_jobs_hung"),
                  th_stat(g, "file_jobs_pending"));
    assert_int_equal(rc, 0);
    assert_int_equal(brc, 0);
    assert_int_equal(st, HELIOD_BANK_LOADED);
    assert_true(all_ms < 1000.0); /* half the open budget: it waited behind nobody's hung open */
}

/* Two, then three hostile processes (children) LOAD files whose open hangs
 * 5 s, one after the other. Each holds one place while its open is live; at
 * the 2 s budget it is written off (ETIMEDOUT, its thread left behind) and
 * its place freed; its second LOAD hangs too; its third finds two stuck
 * opens and is refused EBUSY at once. Meanwhile this (well-behaved)
 * process's LOAD and bank load succeed in well under the budget: while two
 * and three hostile opens are live, and again while they have stuck ones
 * and new live ones. (Before: two file places, each held by a hung open
 * until it returned: every other file job waited and timed out.) */
static void test_hostile_hung_opens(void **state) {
    fixture_t *f = *state;
    char wav[400];
    snprintf(wav, sizeof wav, "%s/fine.wav", f->d.dir);
    assert_int_equal(th_write_sine(wav, 48000, 0.1, 440.0, 0.2), 0);
    for (int k = 0; k < HOSTILE; k++)
        for (int i = 0; i < HOSTILE_LOADS; i++) {
            char p[400];
            snprintf(p, sizeof p, "%s/hungopen-%d-%d.wav", f->d.dir, k, i);
            assert_int_equal(th_write_sine(p, 48000, 0.1, 440.0, 0.2), 0);
        }
    heliod_t *g = conn(f, "game");
    heliod_set_timeout(g, 10000);
    pid_t pid[HOSTILE];
    int rfd[HOSTILE];
    double jobs0 = th_stat(g, "file_jobs");
    pid[0] = spawn_hostile(f, 0, &rfd[0]);
    pid[1] = spawn_hostile(f, 1, &rfd[1]);
    assert_true(wait_stat_ge(g, "file_jobs", jobs0 + 2));
    assert_true(th_stat(g, "file_jobs_pending") >= 2);
    well_behaved(g, f, 1, "2 hostile opens live");
    double jobs1 = th_stat(g, "file_jobs");
    pid[2] = spawn_hostile(f, 2, &rfd[2]);
    assert_true(wait_stat_ge(g, "file_jobs", jobs1 + 1));
    assert_true(th_stat(g, "file_jobs_pending") >= 3);
    well_behaved(g, f, 2, "3 hostile opens live");
    /* the first ones written off at the budget, each process's second live */
    double jobs2 = th_stat(g, "file_jobs");
    assert_true(wait_stat_ge(g, "file_open_timeouts", HOSTILE));
    assert_true(wait_stat_ge(g, "file_jobs", jobs2 + HOSTILE));
    double to = th_stat(g, "file_open_timeouts");
    well_behaved(g, f, 3, "3 hostile stuck + 3 live");
    assert_true(th_stat(g, "file_jobs_hung") >= HOSTILE);
    for (int k = 0; k < HOSTILE; k++) {
        hostile_t r;
        assert_int_equal(read(rfd[k], &r, sizeof r), (ssize_t)sizeof r);
        close(rfd[k]);
        int st = 0;
        waitpid(pid[k], &st, 0);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        for (int i = 0; i < HOSTILE_LOADS; i++)
            print_message("hostile %d LOAD %d: %-10s in %7.1f ms \"%s\"\n", k, i,
                          heliod_strerror(r.rc[i]), r.ms[i], r.msg[i]);
        for (int i = 0; i < STUCK_PER_PROC; i++)
            assert_int_equal(r.rc[i], HELIOD_ETIMEDOUT);
        assert_int_equal(r.rc[STUCK_PER_PROC], HELIOD_EBUSY); /* refused, not queued */
        assert_true(r.ms[STUCK_PER_PROC] < 1000.0);
        assert_non_null(strstr(r.msg[STUCK_PER_PROC], "hung past the open budget"));
    }
    print_message("file_open_timeouts %.0f (%.0f when the third LOAD ran), file_jobs_hung %.0f, "
                  "file_jobs_refused %.0f\n",
                  th_stat(g, "file_open_timeouts"), to, th_stat(g, "file_jobs_hung"),
                  th_stat(g, "file_jobs_refused"));
    assert_true(th_stat(g, "file_jobs_refused") >= HOSTILE);
    assert_true(th_stat(g, "file_jobs_hung") <= HOSTILE * STUCK_PER_PROC);
    heliod_close(g);
}

/* ---- hot reload under the file-job rules ---------------------------------- */

static int setup_watch(void **state) {
    const char *args[] = {"--watch-assets", NULL};
    return th_fixture_start(state, 0, args);
}

/* Another process's LOAD of path (a child, at most 4 s): its outcome. */
static outcome_t load_elsewhere(fixture_t *f, const char *path) {
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        outcome_t o = {.rc = -999};
        heliod_t *h = NULL;
        if (heliod_connect(&h, f->d.sock, "other") == 0) {
            heliod_set_timeout(h, 4000);
            double t0 = now_ms();
            o.rc = heliod_load(h, "other", path, 0, NULL);
            o.ms = now_ms() - t0;
            snprintf(o.msg, sizeof o.msg, "%s", heliod_last_error(h));
            heliod_close(h);
        }
        _exit(write(pfd[1], &o, sizeof o) == (ssize_t)sizeof o ? 0 : 1);
    }
    close(pfd[1]);
    outcome_t o = {.rc = -999, .ms = -1};
    struct pollfd p = {.fd = pfd[0], .events = POLLIN};
    if (poll(&p, 1, 6000) <= 0 || read(pfd[0], &o, sizeof o) != (ssize_t)sizeof o)
        kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(pfd[0]);
    return o;
}

#define WATCHED 4 /* as many as libuv's pool has threads (the decodes') */

/* A watched sound's file swapped for a FIFO is refused (the old data stays);
 * WATCHED sounds' files swapped for symlinks into a FUSE mount nobody serves
 * (opens hang for good) fail their reloads ETIMEDOUT at the open budget,
 * and another client's LOAD meanwhile is answered at once (before: each
 * reload opened its file on a decode thread without a budget: the four
 * wedged every decode thread, no reload ever failed and every LOAD hung). */
static void test_reload_hung_open(void **state) {
    fixture_t *f = *state;
    heliod_t *g = conn(f, "watcher");
    heliod_set_timeout(g, 10000);
    char wav[WATCHED + 1][400], other[400], tmp[400];
    for (int i = 0; i <= WATCHED; i++) {
        snprintf(wav[i], sizeof wav[i], "%s/w%d.wav", f->d.dir, i);
        assert_int_equal(th_write_sine(wav[i], 48000, 0.1, 440.0, 0.2), 0);
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        assert_int_equal(heliod_load(g, name, wav[i], 0, NULL), 0);
    }
    snprintf(other, sizeof other, "%s/other.wav", f->d.dir);
    assert_int_equal(th_write_sine(other, 48000, 0.1, 440.0, 0.2), 0);
    /* a FIFO renamed over a watched file */
    snprintf(tmp, sizeof tmp, "%s/swap.fifo", f->d.dir);
    assert_int_equal(mkfifo(tmp, 0600), 0);
    double fails0 = th_stat(g, "reload_failures");
    assert_int_equal(rename(tmp, wav[0]), 0);
    assert_true(wait_stat_ge(g, "reload_failures", fails0 + 1));
    print_message("reload of a file swapped for a FIFO: failed (reload_failures %.0f)\n",
                  th_stat(g, "reload_failures"));
    assert_int_equal(th_stat(g, "reloads"), 0);

    if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) != 0) {
        print_message("needs root and /dev/fuse to mount a hung file system: rest skipped\n");
        heliod_close(g);
        return;
    }
    char mnt[400], opts[160], hung[500];
    snprintf(mnt, sizeof mnt, "%s/mnt", f->d.dir);
    assert_int_equal(mkdir(mnt, 0700), 0);
    int fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=%d,group_id=%d", fuse, (int)getuid(),
             (int)getgid());
    if (fuse < 0 || mount("heliodtest", mnt, "fuse", MS_NOSUID | MS_NODEV, opts) != 0) {
        print_message("cannot mount FUSE (%s): rest skipped\n", strerror(errno));
        if (fuse >= 0) close(fuse);
        heliod_close(g);
        return;
    }
    snprintf(hung, sizeof hung, "%s/hung.wav", mnt);
    fails0 = th_stat(g, "reload_failures");
    double ev0 = th_stat(g, "reload_events"), t0 = now_ms();
    for (int i = 1; i <= WATCHED; i++) {
        snprintf(tmp, sizeof tmp, "%s/swap%d.lnk", f->d.dir, i);
        assert_int_equal(symlink(hung, tmp), 0);
        assert_int_equal(rename(tmp, wav[i]), 0);
    }
    /* the changes are seen; the reloads' opens begin after the 150 ms debounce */
    (void)wait_stat_ge(g, "reload_events", ev0 + WATCHED);
    th_sleep_ms(300);
    outcome_t o = load_elsewhere(f, other);
    print_message("another client's LOAD while %d reloads hang: %s in %.1f ms\n", WATCHED,
                  heliod_strerror(o.rc), o.ms);
    int all = wait_stat_ge(g, "reload_failures", fails0 + WATCHED);
    print_message("%d hung reloads failed after %.0f ms (reload_failures %.0f, "
                  "file_open_timeouts %.0f)\n",
                  WATCHED, now_ms() - t0, th_stat(g, "reload_failures"),
                  th_stat(g, "file_open_timeouts"));
    umount2(mnt, MNT_DETACH);
    close(fuse);               /* the stuck opens fail and their threads return */
    assert_int_equal(o.rc, 0); /* (asserted once the mount is gone) */
    assert_true(o.ms < 1000.0);
    assert_true(all);
    assert_true(th_stat(g, "reloads") == 0);
    for (int i = 0; i <= WATCHED; i++) { /* the old data stays */
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        heliod_voice_t v = 0;
        assert_int_equal(heliod_play(g, name, NULL, &v, NULL), 0);
    }
    heliod_close(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        TH_TEST(test_bad_files, setup),
        TH_TEST(test_load_hung_open, setup_hung_load),
        TH_TEST(test_hostile_hung_opens, setup_hostile),
        TH_TEST(test_reload_hung_open, setup_watch),
        TH_TEST(test_fuse_hung_open, setup),
        TH_TEST(test_bank_cue_sheet_fifo, setup),
        TH_TEST(test_bank_1024, setup),
        TH_TEST(test_eviction_linear, setup_evict),
        TH_TEST(test_zone_cap, setup_zones),
        cmocka_unit_test_setup_teardown(test_render_limits, setup_render, teardown_render),
    };
    return TH_RUN(tests);
}
