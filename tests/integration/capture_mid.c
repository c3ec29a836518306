/*
 * capture_mid.c - a capture started mid-session (heliodctl capture start)
 * and its render, for test_capture.c's test_capture_start_stop: the HELLO
 * and PROCESS records of the connections open then, and the state
 * preamble that recreates what was defined before it; heliodctl replay of
 * a capture where one process sets and stops another's voice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture_test.h"

/* What the daemon has before the capture starts, its state preamble's
 * (PROTOCOL.md "Capture files"): a sound of game-a's (shared), a bus of
 * game-a's at -3 dB with an EQ, and heliodctl's (the daemon's once it
 * left): the bus's send to music and music's ducking by it, a parameter at
 * 0.4, a category, a cue on that bus bound to the parameter, a snapshot
 * taking 2 dB off the bus (on), the listener moved. heliodctl plays
 * the cue and sets the parameter after the capture started: without the
 * preamble the render fails the play (ENOSOUND: a divergence, exit 3). */
static void state_before(th_daemon_t *d, heliod_t *a, mid_t *m) {
    char o[4096], e[4096];
    tmp_file(m->pre, "mid_pre", ".wav");
    assert_int_equal(th_write_sine(m->pre, 48000, 0.5, 550, 0.3), 0);
    assert_int_equal(heliod_load(a, "pre", m->pre, HELIOD_LOAD_SHARED, NULL), 0);
    assert_int_equal(heliod_bus_create(a, "pre_bus", ""), 0);
    assert_int_equal(heliod_bus_gain(a, "pre_bus", -3.0f, 0.0f), 0);
    FILE *f = fopen(m->score, "w");
    assert_non_null(f);
    fprintf(f, "fx add pre_bus eq --type lowshelf --freq 300 --gain -6\n"
               "bus pre_bus --send music:-12\n"
               "duck music --by pre_bus --depth 6\n"
               "param-def pre_p 0 1 0 0\n"
               "param pre_p 0.4\n"
               "category pre_cat --max-instances 4\n"
               "cue pre_cue --sound pre --loop --bus pre_bus --category pre_cat\n"
               "bind pre_cue pre_p gain 0:-20 1:0\n"
               "snapshot define pre_snap --fade 0\n"
               "snapshot set pre_snap pre_bus gain -2\n"
               "snapshot start pre_snap\n"
               "listener --pos 0,0,1\n");
    fclose(f);
    const char *batch[] = {"batch", m->score, NULL};
    assert_int_equal(th_ctl(d, o, sizeof o, e, sizeof e, batch), 0);
    /* the preamble says where things are, not a fader still ramping: let
     * the bus's gain reach -3 dB first (two periods) */
    heliod_clock_t k;
    assert_int_equal(heliod_clock(a, &k), 0);
    wait_clock(a, k.frame + 512, 2, &k);
}

/* First in the third capture, from a control client of a process of its
 * own (its own quota account): a cue sheet's [music band] starts, and the
 * track's voice, which only MUSIC's reply names (recorded in an MREPLY
 * record), is set and stopped by that handle. A replay must send them the
 * handle its own MUSIC got (the recorded one, stopped live, is answered
 * ENOVOICE by heliodctl replay's daemon; in a render it is another
 * generation of the slot: voices_live), else it diverges. */
static void music_voice(const th_daemon_t *d, mid_t *m) {
    tmp_file(m->sheet, "mid_band", ".cues");
    FILE *f = fopen(m->sheet, "w");
    assert_non_null(f);
    fprintf(f, "[cue band_calm]\nsound = tone\nloop = yes\ngain = -20\n"
               "[music band]\nstate = calm band_calm\n");
    fclose(f);
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        heliod_t *h = th_connect(d, "band", HELIOD_CONNECT_CONTROL);
        uint64_t frame = 0;
        heliod_voice_t v = 0;
        heliod_voice_set_t s = {.mask = HELIOD_SET_GAIN, .gain_db = -6.0f};
        int rc = heliod_cues_load(h, m->sheet, NULL, NULL) != 0               ? 2
                 : heliod_music(h, "band", "calm", &frame, &v) != 0 || v == 0 ? 3
                 : heliod_set(h, v, &s) != 0                                  ? 4
                                                                              : 0;
        if (rc == 0 && heliod_stop(h, v, 5) != 0) rc = 5;
        if (rc) fprintf(stderr, "music_voice: step %d: %s\n", rc, heliod_last_error(h));
        heliod_close(h);
        _exit(rc);
    }
    int st = 0;
    assert_int_equal(waitpid(p, &st, 0), p);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* A third capture, started while the voices of the mid session play
 * (game-a's tone, game-b's hum, heliodctl's detached cue): its preamble
 * plays each again on its first frame where it was (a seek: approximate).
 * In it a music's voice is set and stopped (music_voice), and one
 * heliodctl plays a tone (detached: it outlives that process)
 * and another sets it and stops it: a voice handle is the daemon's, so
 * the replay below, each recorded process from a child of its own, must
 * send the second the handle the first's replayed PLAY got (the recorded
 * one, stopped live, would be answered ENOVOICE: a divergence). */
static void voices_live(th_daemon_t *d, heliod_t *a, mid_t *m) {
    char o[4096], e[4096];
    tmp_file(m->cap3, "mid3", ".bin");
    tmp_file(m->out3, "mid3_out", ".wav");
    const char *start[] = {"capture", "start", m->cap3, NULL}, *stop[] = {"capture", "stop", NULL};
    /* a voice gone before the capture starts: its slot, freed, is the next
     * one live (the voice manager's free stack), not a fresh render's, so
     * the voice played next has another handle there (another generation) */
    const char *gone[] = {"play", "tone", "--gain", "-60", NULL};
    if (th_ctl(d, o, sizeof o, e, sizeof e, gone) != 0) fail_msg("play: %s / %s", o, e);
    char v[32];
    snprintf(v, sizeof v, "%llu", strtoull(o, NULL, 10));
    const char *stop0[] = {"stop", v, "--fade", "0", NULL};
    if (th_ctl(d, o, sizeof o, e, sizeof e, stop0) != 0) fail_msg("stop: %s / %s", o, e);
    heliod_clock_t k;
    assert_int_equal(heliod_clock(a, &k), 0);
    wait_clock(a, k.frame + 960, 2, &k);
    assert_int_equal(th_ctl(d, o, sizeof o, e, sizeof e, start), 0);
    assert_int_equal(heliod_clock(a, &k), 0);
    uint64_t c0 = k.frame;
    music_voice(d, m);
    const char *play[] = {"play", "tone", "--gain", "-20", "--loop", NULL};
    if (th_ctl(d, o, sizeof o, e, sizeof e, play) != 0) fail_msg("play: %s / %s", o, e);
    snprintf(v, sizeof v, "%llu", strtoull(o, NULL, 10));
    const char *set[] = {"set", v, "--gain", "-26", NULL}, *stopv[] = {"stop", v, NULL};
    if (th_ctl(d, o, sizeof o, e, sizeof e, set) != 0) fail_msg("set: %s / %s", o, e);
    if (th_ctl(d, o, sizeof o, e, sizeof e, stopv) != 0) fail_msg("stop: %s / %s", o, e);
    wait_clock(a, c0 + 3600, 10, &k);
    assert_int_equal(th_ctl(d, o, sizeof o, e, sizeof e, stop), 0);
    /* heliodctl replay into this daemon, which has the preamble's
     * definitions already: none diverges (EEXIST is no difference) */
    const char *rp[] = {"replay", m->cap3, "--speed", "100", NULL};
    int rc = th_ctl(d, o, sizeof o, e, sizeof e, rp);
    if (rc != 0 || !strstr(o, " 0 diverged")) fail_msg("replay: %d: %s / %s", rc, o, e);
}

/* RMS of frames [from, to) of interleaved stereo x. */
static double rms(const float *x, size_t from, size_t to) {
    double s = 0;
    for (size_t i = 2 * from; i < 2 * to; i++)
        s += (double)x[i] * x[i];
    return to > from ? sqrt(s / (double)(2 * (to - from))) : 0.0;
}

/* The third capture renders with its three voices at their live level
 * (from 20 ms after its first frame: the seeks' crossfades are over). */
static void voices_check(th_daemon_t *d, mid_t *m) {
    char err[1024];
    int rrc = render_capture_with(m->cap3, m->out3, "--client-voices 2", err);
    if (rrc != 0) fail_msg("render: exit %d: %s", rrc, err);
    size_t n = 0;
    uint8_t *f = slurp(m->cap3, &n);
    assert_non_null(f);
    uint64_t f0 = g64(f + 16), grid = 3840; /* 80 ms: the 20 ms grid and 256-frame periods */
    assert_int_equal(g32(f + 32 + 8), 256);
    free(f);
    uint64_t base = f0 / grid * grid - grid;
    float *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(m->out3, &x, &nx, &ch, &rate), 0);
    assert_int_equal(th_read_sound(d->record, &y, &ny, &ch, &rate), 0);
    size_t from = (size_t)(f0 - base) + 960;
    assert_true(nx > from + 2400 && ny >= base + nx);
    double rx = rms(x, from, nx), ry = rms(y + 2 * base, from, nx);
    if (!(ry > 0.05) || fabs(20.0 * log10(rx / ry)) > 1.0)
        fail_msg("voices at the capture's start: rendered %.4f, live %.4f (RMS)", rx, ry);
    assert_true(rms(x, 0, (size_t)(f0 - base)) == 0.0); /* silent before its first frame */
    free(x);
    free(y);
}

/* heliodctl capture show lists the preamble's records, marked state, with
 * the object each defines (and --json). */
static void state_shown(th_daemon_t *d, mid_t *m) {
    char o[65536], e[1024];
    const char *show[] = {"capture", "show", m->cap, NULL},
               *json[] = {"capture", "show", m->cap3, "--json", NULL};
    assert_int_equal(th_ctl(d, o, sizeof o, e, sizeof e, show), 0);
    static const char *const want[] = {
        "load          ok state pre\n",     "bus           ok state pre_bus\n",
        "fx            ok state pre_bus\n", "param-def     ok state pre_p\n",
        "param         ok state pre_p\n",   "cue           ok state pre_cue\n",
        "bind          ok state pre_cue\n", "duck          ok state music\n",
        "category      ok state pre_cat\n", "snapshot      ok state pre_snap\n",
        "listener      ok state 0\n"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(o, want[i])) fail_msg("capture show: no '%s' in:\n%s", want[i], o);
    /* the third capture's MUSIC reply (music_voice) has a name of its own,
     * apart from its PLAYs' replies */
    const char *show3[] = {"capture", "show", m->cap3, NULL};
    assert_int_equal(th_ctl(d, o, sizeof o, e, sizeof e, show3), 0);
    assert_non_null(strstr(o, " (music reply) voice "));
    assert_non_null(strstr(o, " (reply)       voice "));
    assert_int_equal(th_ctl(d, o, sizeof o, e, sizeof e, json), 0); /* the third capture's */
    assert_non_null(strstr(o, "{\"kind\":\"mreply\",\"voice\":"));
    assert_non_null(strstr(o, "{\"kind\":\"reply\",\"voice\":"));
    assert_non_null(strstr(o, "\"command\":\"cue\",\"flags\":0,\"id\":0,\"status\":0"));
    assert_non_null(strstr(o, "\"state\":true,\"object\":\"pre_cue\"}"));
    assert_non_null(strstr(o, "\"command\":\"play\",\"flags\":2,"));
    assert_non_null(strstr(o, "\"state\":true,\"object\":\"hum\"}"));
}

/* A capture started mid-session (heliodctl capture start) after two
 * connections of this process opened, under --client-voices 2: it writes
 * their HELLO and PROCESS records first, so the render opens them and
 * charges them to one account, as live (a play of higher priority at the
 * full quota replaces a voice of the process; with an account each it
 * would not, and without their HELLO they were refused EHANDSHAKE). A
 * scheduled play sent after its frame: applied late live (STATS
 * requests_late), recorded LATE, rendered on the frame live applied it. */
/* The live part, on d (--client-voices 2, recording); its capture is the
 * CAPTURE start's: the previous capture's writer is joined then. */
void mid_session_live(th_daemon_t *dp, mid_t *m) {
    th_daemon_t d = *dp;
    char o[4096], e[4096];
    session_files("mid", m->cap, m->tone, m->score, m->out);
    tmp_file(m->hum, "mid_hum", ".wav");
    assert_int_equal(th_write_sine(m->tone, 48000, 0.5, 440, 0.4), 0);
    assert_int_equal(th_write_sine(m->hum, 48000, 0.5, 110, 0.3), 0);
    heliod_t *a = th_connect(&d, "game-a", 0), *b = th_connect(&d, "game-b", 0);
    state_before(&d, a, m);
    const char *start[] = {"capture", "start", m->cap, NULL};
    assert_int_equal(th_ctl(&d, o, sizeof o, e, sizeof e, start), 0);
    FILE *sf = fopen(m->score, "w"); /* heliodctl's play (detached) and set */
    assert_non_null(sf);
    fprintf(sf, "play pre_cue\nparam pre_p 1\n");
    fclose(sf);
    const char *batch[] = {"batch", m->score, NULL};
    assert_int_equal(th_ctl(&d, o, sizeof o, e, sizeof e, batch), 0);
    const char *tone = m->tone, *hum = m->hum;
    assert_int_equal(heliod_load(a, "tone", tone, HELIOD_LOAD_SHARED, NULL), 0);
    assert_int_equal(heliod_load(a, "hum", hum, HELIOD_LOAD_SHARED, NULL), 0);
    double late0 = th_stat(a, "requests_late");
    assert_true(late0 == 0.0);
    heliod_clock_t k;
    assert_int_equal(heliod_clock(a, &k), 0);
    uint64_t c0 = k.frame; /* past the capture's start */
    wait_clock(a, c0 + 960, 5, &k);
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags |= HELIOD_PLAY_LOOP;
    heliod_voice_t v = 0;
    heliod_at_frame(a, k.frame - 480); /* behind the clock already, after the capture's start */
    assert_int_equal(heliod_play(a, "tone", &p, &v, NULL), 0);
    assert_true(heliod_late_frames(a) > 0);
    heliod_at_frame(a, 0);
    assert_true(th_stat(a, "requests_late") == 1.0);
    th_sleep_ms(20);
    assert_int_equal(heliod_play(b, "hum", &p, &v, NULL), 0); /* the process's quota: full */
    th_sleep_ms(20);
    p.priority = 5; /* replaces the process's oldest voice of lower priority: a's tone */
    p.pitch = 1.5f;
    assert_int_equal(heliod_play(a, "tone", &p, &v, NULL), 0);
    th_sleep_ms(40);
    const char *stop[] = {"capture", "stop", NULL};
    assert_int_equal(th_ctl(&d, o, sizeof o, e, sizeof e, stop), 0);
    static const char *const broke[] = {"xruns",      "callback_overruns",
                                        "rank_late",  "capture_unsure",
                                        "sched_late", "governor_steps_down"};
    double xruns = 0;
    for (size_t i = 0; i < sizeof broke / sizeof broke[0]; i++)
        xruns += th_stat(a, broke[i]);
    m->xruns = xruns - 1; /* the late play's own sched_late */
    voices_live(&d, a, m);
    heliod_close(a);
    heliod_close(b);
}

/* After the daemon stopped: the render equals the live recording. */
void mid_session_check(th_daemon_t *dp, mid_t *m) {
    th_daemon_t d = *dp;
    char err[1024];
    const char *cap = m->cap, *out = m->out;
    double xruns = m->xruns;
    int rrc = render_capture_with(cap, out, "--client-voices 2", err);
    if (rrc != 0) fail_msg("render: exit %d: %s", rrc, err);
    assert_non_null(strstr(err, "live applied this request"));
    /* the render's frame 0 is the capture's start rounded down to the
     * period and the 20 ms ranking grid, a step of it earlier with a state
     * preamble */
    size_t n = 0;
    uint8_t *f = slurp(cap, &n);
    assert_non_null(f);
    uint64_t f0 = g64(f + 16), period = g32(f + 32 + 8), a0 = 960, b0 = period;
    while (b0) {
        uint64_t t = a0 % b0;
        a0 = b0;
        b0 = t;
    }
    uint64_t grid = 960 / a0 * period, base = f0 / grid * grid;
    if (base >= grid) base -= grid; /* a state preamble: it settles a grid step before */
    free(f);
    float *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(out, &x, &nx, &ch, &rate), 0);
    assert_int_equal(th_read_sound(d.record, &y, &ny, &ch, &rate), 0);
    assert_true(ny >= base + nx);
    assert_true(nx > 4800);
    size_t diff = 0, first = SIZE_MAX, loud = 0;
    for (size_t i = 0; i < 2 * nx; i++) {
        loud += x[i] != 0.0f;
        if (x[i] != y[2 * base + i]) {
            diff++;
            if (first == SIZE_MAX) first = i / 2;
        }
    }
    assert_true(loud > 2 * 2400);
    if (diff && xruns <= 0.0)
        fail_msg("%zu samples differ, the first at frame %zu: %.9f vs %.9f", diff, first,
                 x[2 * first], y[2 * (base + first)]);
    if (diff) print_message("# %zu samples differ (the session's timeline broke)\n", diff);
    free(x);
    free(y);
    state_shown(&d, m);
    voices_check(&d, m);
    const char *files[] = {m->cap, m->tone, m->hum, m->pre, m->out, m->cap3, m->out3, m->sheet};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(files[i]);
}
