/*
 * test_profile.c - the profiler and the live view through the real daemon
 * (null driver), the real socket, libheliod and heliodctl:
 *   - PROFILE events at the rate a client chose, carrying the voice that
 *     plays on its bus (real count per bus and in total), a bus level that
 *     matches the sine, a load histogram that accounts for every callback of
 *     its window, and a rate outside 1..100 refused; a streamed voice's
 *     sound and ring fill;
 *   - METER and PROFILE subscribed together (one timer serves both, feeds.c),
 *     each at its own rate; dropping one leaves the other at its rate;
 *   - `heliodctl profile --out` records valid JSON that
 *     bench/plot_profile.py draws as a PNG;
 *   - `heliodctl top` in a tmux pane: shows the master meter, the buses and the voice, follows
 *     a resize, selects a bus with the arrows and sets its fader (left/right,
 *     shift+right, PgUp/PgDn) and mute (m) in the daemon, changes the sort
 *     on `s`, says so when the daemon goes away,
 *     and `q` gives back a working shell; without a terminal it refuses and
 *     points at `stats --json`;
 *   - `heliodctl wait VOICE` returns when the voice ends, with the reason;
 *     `heliodctl events` prints the watch events as JSON lines.
 * Test sounds are written with libsndfile here.
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

#include <signal.h>

#include <cmocka.h>
#include <unistd.h>

#include "harness.h"
#include "heliod.h"

#define RATE 48000

typedef struct {
    th_daemon_t d;
    char wav[400];
} fixture_t;

static int setup(void **state) {
    if (th_fixture_alloc(state, sizeof(fixture_t), 0, NULL) != 0) return -1;
    fixture_t *f = *state;
    snprintf(f->wav, sizeof f->wav, "%s/tone.wav", f->d.dir);
    /* 1 kHz loops seamlessly at 48 kHz; peak 0.5 = -6 dBFS */
    if (th_write_sine(f->wav, RATE, 2.0, 1000.0, 0.5) != 0) return -1;
    return 0;
}

static char g_tsock[400]; /* the tmux server of test_top_tmux, while it runs */

static int teardown(void **state) {
    if (g_tsock[0]) { /* a failed top test leaves no tmux server (nor top) behind */
        char cmd[2 * sizeof g_tsock + 64];
        snprintf(cmd, sizeof cmd, "tmux -S %s kill-server 2>/dev/null; rm -f %s", g_tsock, g_tsock);
        if (system(cmd) != 0) fprintf(stderr, "could not stop tmux at %s\n", g_tsock);
        g_tsock[0] = 0;
    }
    return th_fixture_teardown(state);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Loads the tone and plays it looping on bus `bus`; returns the connection. */
static heliod_t *play_tone(fixture_t *f, const char *bus) {
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, f->d.sock, "test_profile"), 0);
    assert_int_equal(heliod_load(h, "tone", f->wav, HELIOD_LOAD_SHARED, NULL),
                     0); /* heliodctl plays it too */
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP;
    snprintf(p.bus, sizeof p.bus, "%s", bus);
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(h, "tone", &p, &v, NULL), 0);
    assert_true(v != 0);
    return h;
}

typedef struct {
    int n;
    heliod_profile_t last;
    int hist_ok, bus_ok;
} prof_t;

static void on_profile(void *user, const heliod_event_t *ev) {
    prof_t *p = user;
    if (ev->type != HELIOD_EVENT_PROFILE) return;
    assert_non_null(ev->profile);
    p->n++;
    p->last = *ev->profile;
    uint64_t sum = 0;
    for (int k = 0; k < HELIOD_PROFILE_HIST; k++)
        sum += ev->profile->hist[k];
    p->hist_ok += sum == ev->profile->callbacks;
}

static void pump(heliod_t *h, double seconds) {
    double end = now_s() + seconds;
    while (now_s() < end) {
        assert_true(heliod_dispatch(h) >= 0);
        th_sleep_ms(5);
    }
}

static void test_profile_event(void **state) {
    fixture_t *f = *state;
    heliod_t *h = play_tone(f, "music");
    prof_t p = {0};
    heliod_set_event_callback(h, on_profile, &p);
    assert_int_equal(heliod_subscribe_profile(h, HELIOD_SUB_PROFILE, 0.0f, 20.0f), 0);
    pump(h, 0.4); /* the meters settle (300 ms rms) */
    int n0 = p.n;
    pump(h, 1.0);
    int got = p.n - n0;
    /* 20 a second, kept on average (5 ms timer jitter) */
    assert_in_range(got, 16, 24);
    assert_int_equal(p.hist_ok, p.n);
    const heliod_profile_t *q = &p.last;
    assert_true(q->callbacks > 0);
    assert_true(q->load_now > 0.0f && q->load_now < 1.0f);
    assert_true(q->load_peak >= q->load_now * 0.8f); /* bucket resolution */
    assert_true(q->load_max >= q->load_p99);
    assert_true(fabs(q->period_us - 256.0 * 1e6 / RATE) < 1.0);
    assert_int_equal(q->voices_real, 1);
    assert_int_equal(q->voices_virtual, 0);
    int music = -1;
    unsigned real_sum = 0;
    for (unsigned i = 0; i < q->nbuses; i++) {
        real_sum += q->bus[i].real;
        if (!strcmp(q->bus[i].name, "music")) music = (int)i;
    }
    assert_true(music >= 0);
    assert_int_equal(q->bus[music].real, 1);
    assert_int_equal(real_sum, 1);
    /* a mono -6 dBFS sine panned centre (equal power: -3 dB): peak ~ -9 dBFS */
    assert_true(q->bus[music].peak_db > -12.0f && q->bus[music].peak_db < -6.0f);
    assert_true(q->bus[music].rms_db < q->bus[music].peak_db);
    assert_true(q->master_peak_db > -12.0f);

    /* unsubscribed: no more PROFILE events (one in flight may still come) */
    assert_int_equal(heliod_subscribe(h, 0), 0);
    pump(h, 0.1);
    int n1 = p.n;
    pump(h, 0.5);
    assert_int_equal(p.n, n1);

    /* rates outside 1..100 are refused */
    assert_int_equal(heliod_subscribe_profile(h, HELIOD_SUB_PROFILE, 0.0f, 0.5f), HELIOD_EINVAL);
    assert_int_equal(heliod_subscribe_profile(h, HELIOD_SUB_PROFILE, 0.0f, 101.0f), HELIOD_EINVAL);
    assert_int_equal(heliod_subscribe_profile(h, HELIOD_SUB_PROFILE, 0.0f, NAN), HELIOD_EINVAL);
    heliod_close(h);
}

typedef struct {
    int meter, profile;
} both_t;

static void on_both(void *user, const heliod_event_t *ev) {
    both_t *b = user;
    b->meter += ev->type == HELIOD_EVENT_METER;
    b->profile += ev->type == HELIOD_EVENT_PROFILE;
}

/* Counts the events of 2 s after 0.1 s for what was already on its way. */
static both_t count_2s(heliod_t *h, both_t *b) {
    pump(h, 0.1);
    *b = (both_t){0};
    pump(h, 2.0);
    fprintf(stderr, "# 2 s: %d METER, %d PROFILE\n", b->meter, b->profile);
    return *b;
}

/* One subscriber scheduler serves METER and PROFILE: both at once, each at
 * its own rate (margins as in test_profile_event and test_meter's
 * test_events: 5 ms timer jitter); dropping one leaves the other running at
 * its rate (the timer stays on while any feed has a subscriber). */
static void test_meter_and_profile(void **state) {
    fixture_t *f = *state;
    heliod_t *h = play_tone(f, "music");
    both_t b = {0};
    heliod_set_event_callback(h, on_both, &b);
    assert_int_equal(
        heliod_subscribe_profile(h, HELIOD_SUB_METER | HELIOD_SUB_PROFILE, 50.0f, 20.0f), 0);
    count_2s(h, &b);
    assert_in_range(b.meter, 85, 110);
    assert_in_range(b.profile, 36, 44);
    /* METER alone: PROFILE stops, METER keeps its rate */
    assert_int_equal(heliod_subscribe_meter(h, HELIOD_SUB_METER, 50.0f), 0);
    count_2s(h, &b);
    assert_in_range(b.meter, 85, 110);
    assert_int_equal(b.profile, 0);
    /* PROFILE alone, at 10 Hz: METER stops */
    assert_int_equal(heliod_subscribe_profile(h, HELIOD_SUB_PROFILE, 0.0f, 10.0f), 0);
    count_2s(h, &b);
    assert_int_equal(b.meter, 0);
    assert_in_range(b.profile, 17, 23);
    heliod_close(h);
}

/* A streamed voice shows in PROFILE with its sound and a primed ring. */
static void test_profile_streams(void **state) {
    fixture_t *f = *state;
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, f->d.sock, "test_profile"), 0);
    assert_int_equal(heliod_load(h, "bed", f->wav, HELIOD_LOAD_STREAM, NULL), 0);
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP;
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(h, "bed", &p, &v, NULL), 0);
    prof_t pr = {0};
    heliod_set_event_callback(h, on_profile, &pr);
    assert_int_equal(heliod_subscribe_profile(h, HELIOD_SUB_PROFILE, 0.0f, 50.0f), 0);
    pump(h, 0.5);
    assert_true(pr.n >= 10);
    const heliod_profile_t *q = &pr.last;
    assert_int_equal(q->streams, 1);
    assert_int_equal(q->nstreams, 1);
    assert_string_equal(q->stream[0].sound, "bed");
    /* the decoder keeps the ring well ahead of the mixer */
    assert_true(q->stream[0].fill > 0.25f && q->stream[0].fill <= 1.0f);
    assert_true(q->decode_load >= 0.0f && q->decode_load < 1.0f);
    assert_int_equal(q->underruns, 0);
    /* stopped: the stream goes with its voice */
    assert_int_equal(heliod_stop(h, v, 0.0f), 0);
    pump(h, 0.5);
    assert_int_equal(pr.last.streams, 0);
    assert_int_equal(pr.last.nstreams, 0);
    heliod_close(h);
}

/* Runs a shell command, returns its exit status; its stdout into out. */
static int sh(char *out, size_t cap, const char *fmt, ...) {
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = 0;
    if (out && cap) {
        n = fread(out, 1, cap - 1, p);
        out[n] = 0;
    } else {
        char tmp[4096];
        while (fread(tmp, 1, sizeof tmp, p) > 0) {
        }
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_ctl_profile_plot(void **state) {
    fixture_t *f = *state;
    heliod_t *h = play_tone(f, "sfx");
    char out[4096], err[4096], json[400], png[400];
    snprintf(json, sizeof json, "%s/prof.json", f->d.dir);
    snprintf(png, sizeof png, "%s/prof.png", f->d.dir);
    const char *args[] = {"profile", "--seconds", "1", "--hz", "20", "--out", json, NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, args), 0);
    assert_non_null(strstr(err, "samples in"));
    const char *bad[] = {"profile", "--hz", "500", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, bad), 2);
    const char *plot = getenv("PLOT_PROFILE");
    if (!plot || sh(NULL, 0, "command -v python3 >/dev/null") != 0) {
        heliod_close(h);
        skip(); /* python3 is not installed: the recording was checked above */
    }
    /* python3 reads it as JSON (the plotter's json.load) and draws it */
    char line[1024];
    assert_int_equal(sh(line, sizeof line, "python3 %s %s %s", plot, json, png), 0);
    assert_non_null(strstr(line, "voices max 1"));
    assert_non_null(strstr(line, "sfx"));
    int samples = atoi(strstr(line, "plot_profile: ") + 14);
    assert_in_range(samples, 15, 25);
    FILE *pf = fopen(png, "rb");
    assert_non_null(pf);
    unsigned char sig[8];
    assert_int_equal(fread(sig, 1, 8, pf), 8);
    fclose(pf);
    assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
    heliod_close(h);
}

static void test_top_not_tty(void **state) {
    fixture_t *f = *state;
    char out[1024], err[1024];
    const char *args[] = {"top", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, args), 1);
    assert_non_null(strstr(err, "stats --json"));
}

/* Waits until the pane shows `want` (or `gone` is absent); 1 if it did. */
static int pane_has(const char *tsock, const char *want, int present, double seconds) {
    static char screen[65536];
    double end = now_s() + seconds;
    do {
        sh(screen, sizeof screen, "tmux -S %s capture-pane -p -t top", tsock);
        if ((strstr(screen, want) != NULL) == present) return 1;
        th_sleep_ms(50);
    } while (now_s() < end);
    fprintf(stderr, "pane (wanted %s\"%s\"):\n%s\n", present ? "" : "no ", want, screen);
    return 0;
}

/* Waits until the pane has a "master" line whose peak (its first number)
 * shows the tone: above the meter's -60 dB floor. 1 if it did. */
static int master_shows_level(const char *tsock, double seconds) {
    static char screen[65536];
    double end = now_s() + seconds;
    do {
        sh(screen, sizeof screen, "tmux -S %s capture-pane -p -t top", tsock);
        for (char *l = screen; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
            if (strncmp(l + 2, "master ", 7) == 0 && strtod(l + 9, NULL) > -60.0) return 1;
        th_sleep_ms(50);
    } while (now_s() < end);
    fprintf(stderr, "pane (wanted a master meter line):\n%s\n", screen);
    return 0;
}

/* music's fader and mute as the daemon has them (BUSES). */
static void music_bus(heliod_t *h, float *gain_db, int *mute) {
    heliod_bus_info_t b[64];
    size_t n = 0;
    assert_int_equal(heliod_buses(h, b, 64, &n), 0);
    for (size_t i = 0; i < n && i < 64; i++)
        if (!strcmp(b[i].name, "music")) *gain_db = b[i].gain_db, *mute = b[i].mute;
}

/* Edit mode: the arrows select music (the master is selected first) and move
 * its fader, m mutes it; the daemon has what the keys asked for. */
static void top_edit_music(heliod_t *h, const char *tsock) {
    float g = -1;
    int mute = -1;
    music_bus(h, &g, &mute);
    assert_true(g == 0.0f && mute == 0);
    assert_true(pane_has(tsock, "> master", 1, 2.0));
    /* the rows: master, sfx, music, dialog, ui (the daemon's bus order) */
    assert_int_equal(sh(NULL, 0, "tmux -S %s send-keys -t top Down Down", tsock), 0);
    assert_true(pane_has(tsock, "> music", 1, 3.0));
    /* +0.5 +0.5 +3 +3 -3 -0.5 = +3.5 dB, then muted */
    assert_int_equal(
        sh(NULL, 0, "tmux -S %s send-keys -t top Right Right S-Right PPage NPage Left m", tsock),
        0);
    assert_true(pane_has(tsock, "bus music: fader 3.5 dB, muted", 1, 3.0));
    for (int i = 0; i < 60 && !(g == 3.5f && mute == 1); i++, th_sleep_ms(50))
        music_bus(h, &g, &mute);
    assert_true(g == 3.5f && mute == 1);
    /* m again unmutes, the fader kept; Up goes back towards the master */
    assert_int_equal(sh(NULL, 0, "tmux -S %s send-keys -t top m Up", tsock), 0);
    for (int i = 0; i < 60 && mute != 0; i++, th_sleep_ms(50))
        music_bus(h, &g, &mute);
    assert_true(g == 3.5f && mute == 0);
    assert_true(pane_has(tsock, "> music", 0, 2.0));
}

static void test_top_tmux(void **state) {
    fixture_t *f = *state;
    if (sh(NULL, 0, "command -v tmux >/dev/null") != 0) skip(); /* scripts/deps.sh installs it */
    heliod_t *h = play_tone(f, "music");
    const char *ctl = getenv("HELIODCTL_BIN");
    assert_non_null(ctl);
    char *tsock = g_tsock; /* outside the daemon's dir: the test stops the daemon */
    snprintf(g_tsock, sizeof g_tsock, "/tmp/heliod-test-top-%ld.sock", (long)getpid());
    assert_int_equal(
        sh(NULL, 0, "tmux -S %s -f /dev/null new-session -d -s top -x 120 -y 40 'sh'", tsock), 0);
    assert_int_equal(sh(NULL, 0, "tmux -S %s send-keys -t top '%s --socket %s top' Enter", tsock,
                        ctl, f->d.sock),
                     0);
    assert_true(pane_has(tsock, "heliod top", 1, 5.0));
    assert_true(pane_has(tsock, "music", 1, 3.0));
    assert_true(pane_has(tsock, "tone", 1, 3.0)); /* the voice in the table */
    assert_true(pane_has(tsock, "audio p99", 1, 3.0));
    assert_true(master_shows_level(tsock, 3.0)); /* the master meter, first of the buses */
    top_edit_music(h, tsock);
    /* resize: the frame follows (narrower header, nothing scrolled off) */
    assert_int_equal(sh(NULL, 0, "tmux -S %s resize-window -t top -x 72 -y 22", tsock), 0);
    static char screen[65536];
    int fits = 0;
    for (double end = now_s() + 5.0; !fits && now_s() < end; th_sleep_ms(50)) {
        sh(screen, sizeof screen, "tmux -S %s capture-pane -p -t top", tsock);
        fits = strncmp(screen, "heliod top", 10) == 0 && strstr(screen, "VOICES") != NULL;
        for (char *l = screen; fits && *l;) { /* no line wider than the pane */
            char *nl = strchr(l, '\n');
            size_t len = nl ? (size_t)(nl - l) : strlen(l);
            fits = len <= 72;
            if (!nl) break;
            l = nl + 1;
        }
    }
    if (!fits) fprintf(stderr, "pane after resize:\n%s\n", screen);
    assert_true(fits);
    /* s: the next sort; p: paused */
    assert_int_equal(sh(NULL, 0, "tmux -S %s send-keys -t top s", tsock), 0);
    assert_true(pane_has(tsock, "sorted by gain", 1, 2.0));
    assert_int_equal(sh(NULL, 0, "tmux -S %s send-keys -t top p", tsock), 0);
    assert_true(pane_has(tsock, "[PAUSED]", 1, 2.0)); /* the header's end, at 72 columns */
    assert_int_equal(sh(NULL, 0, "tmux -S %s send-keys -t top p", tsock), 0);
    /* the daemon goes away: top says so and waits */
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&f->d, NULL), 0);
    assert_true(pane_has(tsock, "went away", 1, 5.0) || pane_has(tsock, "not running", 1, 1.0));
    /* back at the same socket: top reconnects by itself */
    char pidbuf[32];
    assert_int_equal(sh(pidbuf, sizeof pidbuf,
                        "%s --socket %s --driver null >/dev/null 2>&1 & echo $!",
                        getenv("HELIOD_BIN"), f->d.sock),
                     0);
    long again = atol(pidbuf);
    assert_true(again > 0);
    int back = pane_has(tsock, "commands/s", 1, 10.0) && pane_has(tsock, "went away", 0, 3.0);
    kill((pid_t)again, SIGTERM);
    for (int i = 0; i < 200 && kill((pid_t)again, 0) == 0; i++)
        th_sleep_ms(25);
    assert_true(back);
    /* q: back to a shell that echoes and reads lines again */
    assert_int_equal(sh(NULL, 0, "tmux -S %s send-keys -t top q", tsock), 0);
    assert_true(pane_has(tsock, "heliod top", 0, 3.0));
    assert_int_equal(
        sh(NULL, 0, "tmux -S %s send-keys -t top 'echo CLEAN-$((20+22))' Enter", tsock), 0);
    assert_true(pane_has(tsock, "CLEAN-42", 1, 3.0));
    assert_true(pane_has(tsock, "Sanitizer", 0, 0.1)); /* an ASan build's top left no report */
    sh(screen, sizeof screen, "tmux -S %s display -p -t top '#{alternate_on}'", tsock);
    assert_int_equal(atoi(screen), 0); /* the main screen is back */
    sh(NULL, 0, "tmux -S %s kill-server", tsock);
    unlink(tsock);
    g_tsock[0] = 0;
}

/* The file at path into out once it holds a (and b, when given), or what
 * it holds after 5 s. */
static void read_when(const char *path, char *out, size_t cap, const char *a, const char *b) {
    out[0] = 0;
    for (int i = 0; i < 100; i++) {
        FILE *fp = fopen(path, "r");
        if (fp) {
            size_t n = fread(out, 1, cap - 1, fp);
            out[n] = 0;
            fclose(fp);
        }
        if (strstr(out, a) && (!b || strstr(out, b))) return;
        th_sleep_ms(50);
    }
}

static void test_ctl_wait_and_events(void **state) {
    fixture_t *f = *state;
    char out[4096], err[4096], vbuf[64], log[400];
    heliod_t *h = play_tone(f, "sfx"); /* loads "tone" (2 s), plays it looping */
    const char *play[] = {"play", "tone", NULL};
    /* events: `watch --json` under another name, in the background meanwhile */
    snprintf(log, sizeof log, "%s/events.log", f->d.dir);
    assert_int_equal(sh(NULL, 0, "(timeout 4 %s --socket %s events > %s 2>&1 &)",
                        getenv("HELIODCTL_BIN"), f->d.sock, log),
                     0);
    th_sleep_ms(300);
    double t0 = now_s();
    assert_int_equal(th_ctl(&f->d, vbuf, sizeof vbuf, err, sizeof err, play), 0);
    const char *wait[] = {"wait", vbuf, NULL};
    vbuf[strcspn(vbuf, "\n")] = 0;
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, wait), 0);
    double took = now_s() - t0;
    assert_string_equal(out, "finished\n");
    assert_true(took > 1.8 && took < 3.5); /* the 2 s sound, played to its end */
    /* no such voice; a loop outlasting --max-s */
    const char *none[] = {"wait", "4294967295", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, none), 1);
    assert_non_null(strstr(err, "not playing"));
    heliod_voice_t loop = 0;
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP;
    assert_int_equal(heliod_play(h, "tone", &p, &loop, NULL), 0);
    char lv[32];
    snprintf(lv, sizeof lv, "%llu", (unsigned long long)loop);
    const char *capped[] = {"wait", lv, "--max-s", "0.3", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, capped), 1);
    assert_non_null(strstr(err, "still playing"));
    /* --json, stopped while waiting */
    char wj[400];
    snprintf(wj, sizeof wj, "%s/wait.json", f->d.dir);
    assert_int_equal(sh(NULL, 0, "(%s --socket %s --json wait %s > %s 2>&1 &)",
                        getenv("HELIODCTL_BIN"), f->d.sock, lv, wj),
                     0);
    th_sleep_ms(400);
    assert_int_equal(heliod_stop(h, loop, 0.0f), 0);
    char jwant[128];
    snprintf(jwant, sizeof jwant, "{\"event\":\"ended\",\"voice\":%s,\"reason\":\"stopped\"}\n",
             lv);
    /* heliodctl's output is line-buffered: each file holds its lines as
     * soon as they are printed (waited for, at most 5 s) */
    read_when(wj, out, sizeof out, jwant, NULL);
    assert_string_equal(out, jwant);
    char want[128];
    snprintf(want, sizeof want, "{\"event\":\"ended\",\"voice\":%s,\"reason\":\"finished\"", vbuf);
    read_when(log, out, sizeof out, want, "\"event\":\"started\"");
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "\"event\":\"started\""));
    heliod_close(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_profile_event, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meter_and_profile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_profile_streams, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ctl_profile_plot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_top_not_tty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_top_tmux, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ctl_wait_and_events, setup, teardown),
    };
    return TH_RUN(tests);
}
