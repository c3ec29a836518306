/*
 * test_ctl.c - heliodctl end to end against the real daemon: every command a
 * script would use, its output and exit status, and one-line errors for bad
 * input.
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

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"

static th_daemon_t d;
static char sine[400];
static char out[65536], err[8192];

static int setup(void **state) {
    (void)state;
    if (th_daemon_start(&d, 0, NULL) != 0) return -1;
    snprintf(sine, sizeof sine, "%s/sine.wav", d.dir);
    return th_write_sine(sine, 44100, 1.0, 440.0, 0.5);
}

static int teardown(void **state) {
    (void)state;
    int alive = th_daemon_alive(&d);
    int rc = th_daemon_stop(&d, NULL);
    th_daemon_cleanup(&d);
    return alive && rc == 0 ? 0 : -1;
}

#define CTL(...)                                                                                   \
    th_ctl(&d, out, sizeof out, err, sizeof err, (const char *const[]){__VA_ARGS__, NULL})

static int one_line(const char *s) {
    const char *nl = strchr(s, '\n');
    return s[0] && (!nl || nl[1] == 0);
}

static void test_basic_commands(void **state) {
    (void)state;
    assert_int_equal(CTL("ping"), 0);
    assert_int_equal(CTL("status"), 0);
    assert_non_null(strstr(out, "48000"));
    assert_int_equal(CTL("load", "tone", sine), 0);
    assert_int_equal(CTL("sounds"), 0);
    assert_non_null(strstr(out, "tone"));

    assert_int_equal(CTL("play", "tone", "--loop", "--gain", "-6", "--pan", "-0.5"), 0);
    char *end = NULL;
    unsigned long long v = strtoull(out, &end, 10);
    assert_true(v > 0);
    char vs[32];
    snprintf(vs, sizeof vs, "%llu", v);

    assert_int_equal(CTL("set", vs, "--gain", "-12", "--pos", "1,0,-2", "--ramp", "20"), 0);
    assert_int_equal(CTL("voices"), 0);
    assert_non_null(strstr(out, vs));
    assert_int_equal(CTL("--json", "voices"), 0);
    assert_non_null(strstr(out, "{"));
    assert_int_equal(CTL("listener", "--pos", "3,4,-5", "--forward", "0,0,-1", "--up", "0,1,0"), 0);
    assert_int_equal(CTL("bus", "sfx", "--gain", "-3", "--ramp", "10"), 0);
    assert_int_equal(CTL("stats"), 0);
    assert_non_null(strstr(out, "callbacks"));
    /* the listener's position (top's distances are from it) */
    assert_non_null(strstr(out, "listener_x 3\n"));
    assert_non_null(strstr(out, "listener_y 4\n"));
    assert_non_null(strstr(out, "listener_z -5\n"));
    assert_int_equal(CTL("listener", "--pos", "0,0,0"), 0);
    assert_int_equal(CTL("--json", "stats"), 0);
    assert_non_null(strstr(out, "\"xruns\""));
    assert_int_equal(CTL("devices"), 0);
    assert_int_equal(CTL("stop", vs, "--fade", "10"), 0);
    th_sleep_ms(100);
    /* The handle is stale now: a clear one-line error and a non-zero exit. */
    assert_int_not_equal(CTL("stop", vs), 0);
    assert_true(one_line(err));
    assert_non_null(strstr(err, "voice"));
}

static void test_play_wait_returns_when_voice_ends(void **state) {
    (void)state;
    assert_int_equal(CTL("play", "tone", "--wait", "--pitch", "2"), 0);
    assert_int_equal(CTL("voices"), 0);
    /* The voice is gone once --wait returned. */
    assert_null(strstr(out, "tone"));
}

static void test_errors_are_one_line_and_nonzero(void **state) {
    (void)state;
    assert_int_not_equal(CTL("play", "nosuch"), 0);
    assert_true(one_line(err));
    assert_int_not_equal(CTL("play", "tone", "--gain", "loud"), 0);
    assert_true(one_line(err));
    assert_int_not_equal(CTL("play", "tone", "--pan", "2"), 0);
    assert_true(one_line(err));
    assert_int_not_equal(CTL("frobnicate"), 0);
    assert_true(one_line(err));
    assert_int_not_equal(CTL("load", "x", "/nonexistent/file.wav"), 0);
    assert_true(one_line(err));
    th_daemon_t gone = d;
    snprintf(gone.sock, sizeof gone.sock, "%s/nobody.sock", d.dir);
    assert_int_not_equal(
        th_ctl(&gone, out, sizeof out, err, sizeof err, (const char *const[]){"ping", NULL}), 0);
    assert_true(one_line(err));
    assert_int_equal(CTL("--help"), 0);
    assert_non_null(strstr(out, "batch"));
}

static void test_batch(void **state) {
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/cmds.txt", d.dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "# a comment\n\nping\nplay tone --gain -20\nplay tone --pan 0.5 --gain -20\n"
               "listener --pos 0,1,0\nstop --all --fade 5\n");
    fclose(f);
    assert_int_equal(CTL("batch", path), 0);
    /* One result line per command. */
    int lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 5);

    f = fopen(path, "w");
    fprintf(f, "ping\nplay nosuch\nping\n");
    fclose(f);
    assert_int_not_equal(CTL("batch", path), 0);
    assert_non_null(strstr(err, "2"));

    /* a private load is the batch connection's own, and is waited for: the
     * next line plays it; many lines (the result table grows while replies
     * are in flight) */
    char blip[400]; /* 0.1 s: its play ends soon */
    snprintf(blip, sizeof blip, "%s/blip.wav", d.dir);
    assert_int_equal(th_write_sine(blip, 44100, 0.1, 440.0, 0.5), 0);
    f = fopen(path, "w");
    fprintf(f, "load mine %s --private\nplay mine --gain -30\nsounds\n", blip);
    for (int i = 0; i < 300; i++)
        fprintf(f, "ping\n");
    fclose(f);
    assert_int_equal(CTL("batch", path), 0);
    assert_non_null(strstr(out, "mine frames="));
    assert_non_null(strstr(out, "private"));
    lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 303);
    /* the 0.1 s play (detached: heliodctl's) ends, then the sound goes */
    int gone = 0;
    for (int i = 0; i < 250 && !gone; i++) {
        assert_int_equal(CTL("sounds"), 0);
        gone = strstr(out, "mine") == NULL;
        if (!gone) th_sleep_ms(20);
    }
    assert_true(gone);
}

/* batch from a pipe: each line goes out when it arrives (a script that
 * sleeps between lines, someone typing), not when the input ends: the
 * connection and what it owns (its voices, its music) live meanwhile */
static void test_batch_from_pipe(void **state) {
    (void)state;
    assert_int_equal(CTL("load", "pipetone", sine), 0);
    int in[2];
    assert_int_equal(pipe(in), 0);
    const char *bin = getenv("HELIODCTL_BIN") ? getenv("HELIODCTL_BIN") : "heliodctl";
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(in[0], 0);
        close(in[0]);
        close(in[1]);
        if (!freopen("/dev/null", "w", stdout)) _exit(126);
        execlp(bin, bin, "--socket", d.sock, "batch", "-", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    struct heliod *h = th_connect(&d, "pipewatch", 0);
    assert_non_null(h);
    const double before = th_stat(h, "voices_active");
    assert_true(dprintf(in[1], "play pipetone --loop --gain -40\n") > 0);
    int seen = 0; /* the line's voice plays while the pipe is still open */
    for (int i = 0; i < 250 && !seen; i++) {
        seen = th_stat(h, "voices_active") > before;
        if (!seen) th_sleep_ms(20);
    }
    assert_true(dprintf(in[1], "stop --all --fade 5\n") > 0);
    close(in[1]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    heliod_close(h);
    assert_true(seen);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static char *slurp_text(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[2][16384];
    static int which;
    char *b = buf[which ^= 1];
    size_t n = fread(b, 1, sizeof buf[0] - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

/* cues save: the definitions as a cue sheet (with distance curves, tempo
 * maps and a music section); loaded into a fresh daemon and saved again,
 * the same file byte for byte (and the file says what the sheet said,
 * floats to the bit). */
static void on_raw(void *user, uint32_t id, int status, const char *msg, const uint8_t *body,
                   size_t len) {
    (void)id, (void)msg, (void)body, (void)len;
    *(int *)user = status;
}

/* CUE_DETAIL and SNAPSHOT_DETAIL of a name nothing has: refused, each with
 * its error. */
static void detail_of_unknown(void) {
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "test_ctl"), 0);
    static const uint8_t nope[] = {4, 0, 'n', 'o', 'p', 'e'}; /* NAME: str(63) "nope" */
    int cue = 1, snap = 1;
    assert_true(heliod_raw_async(h, 70, nope, sizeof nope, on_raw, &cue) > 0);  /* CUE_DETAIL */
    assert_true(heliod_raw_async(h, 71, nope, sizeof nope, on_raw, &snap) > 0); /* SNAPSHOT_ */
    assert_int_equal(heliod_sync(h), 0);
    assert_int_equal(cue, HELIOD_ENOSOUND);
    assert_int_equal(snap, HELIOD_EINVAL);
    heliod_close(h);
}

static void test_cues_save_round_trip(void **state) {
    (void)state;
    char sheet[300], a[300], b[300];
    snprintf(sheet, sizeof sheet, "%s/sheet.ini", d.dir);
    snprintf(a, sizeof a, "%s/saved_a.ini", d.dir);
    snprintf(b, sizeof b, "%s/saved_b.ini", d.dir);
    FILE *f = fopen(sheet, "w");
    assert_non_null(f);
    fprintf(f, "[parameter wind] 0 1 0.25 2\n[parameter rpm] 0 8000 800 0\n"
               "[category steps]\nmax-instances = 4\noverflow = stop-oldest\nfade-out = 30\n"
               "[cue step]\nsound = tone, hum\npick = shuffle\ngain = -3.5\ngain-rand = 2\n"
               "pitch-rand = 50\ncategory = steps\n3d = yes\nmax-distance = 40\n"
               "rolloff = 0.7\nmodel = linear\nlp = 8000\nsend = reverb:-6\n"
               "bind = wind gain 0:-12 0.5:-3:exp 1:0\nbind = rpm send:0 0:-20 8000:0\n"
               "cone = 0,0,1 60 180 0.25 2000\nattenuation = 1:0 10:-6 50:-30\n"
               "distance-lp = 2:16000 30:1500.5\ndistance-send = 1:0 20:-12.25 60:-40\n"
               "[cue engine]\nsound = hum\nloop = yes\ninterp = cubic\npriority = 10\n"
               "min-interval = 120\ndoppler = 0.5\nbus = music\nfade-in = 12.5\n"
               "tempo = 120.5 3/4\ntempo-change = 64:140, 128:90.25\n"
               "[music score]\nstate = calm engine\nstate = fight engine\n"
               "transition = calm fight bar xfade:500:linear\n"
               "transition = * calm bars:2 segment:step:250 tail\nlayer = fight step\n"
               "[snapshot pause]\npriority = 10\nfade = 300\ngain = music -6.5\nmute = sfx\n"
               "gain = ui -inf\n[snapshot quiet]\nmute = music off\n");
    fclose(f);
    assert_int_equal(CTL("cues", "load", sheet), 0);
    assert_int_equal(CTL("cues", "save", a), 0);
    th_daemon_t d2; /* a restart: nothing but the saved file */
    assert_int_equal(th_daemon_start(&d2, 0, NULL), 0);
    const char *load[] = {"cues", "load", a, NULL}, *save[] = {"cues", "save", b, NULL};
    assert_int_equal(th_ctl(&d2, out, sizeof out, err, sizeof err, load), 0);
    assert_string_equal(out, "2 cues, 1 categories\n");
    assert_int_equal(th_ctl(&d2, out, sizeof out, err, sizeof err, save), 0);
    assert_int_equal(th_daemon_stop(&d2, NULL), 0);
    th_daemon_cleanup(&d2);
    const char *ta = slurp_text(a), *tb = slurp_text(b);
    assert_non_null(ta);
    assert_non_null(tb);
    assert_string_equal(ta, tb);
    static const char *want[] = {"[parameter wind] 0 1 0.25 2\n",
                                 "[category steps]\n",
                                 "overflow = stop-oldest\n",
                                 "sound = tone, hum\n",
                                 "rolloff = 0.699999988\n",
                                 "send = reverb:-6\n",
                                 "interp = cubic\n",
                                 "bus = music\n",
                                 "fade-in = 12.5\n",
                                 "category = steps\n",
                                 "bind = wind gain 0:-12 0.5:-3:exp 1:0\n",
                                 "bind = rpm send:0 0:-20 8000:0\n",
                                 "cone = 0,0,1 60 180 0.25 2000\n",
                                 "attenuation = 1:0 10:-6 50:-30\n",
                                 "distance-lp = 2:16000 30:1500.5\n",
                                 "distance-send = 1:0 20:-12.25 60:-40\n",
                                 "tempo = 120.5 3/4\ntempo-change = 64:140\n"
                                 "tempo-change = 128:90.25\n",
                                 "[music score]\nstate = calm engine\nstate = fight engine\n"
                                 "layer = fight step\n"
                                 "transition = calm fight bar xfade:500:linear\n"
                                 "transition = * calm bars:2 segment:step:250 tail\n",
                                 "[snapshot pause]\npriority = 10\nfade = 300\ngain = music -6.5\n"
                                 "mute = sfx on\ngain = ui -inf\n",
                                 "[snapshot quiet]\npriority = 0\nfade = 0\nmute = music off\n"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(ta, want[i])) fail_msg("the saved sheet lacks '%s'", want[i]);
    detail_of_unknown();
    /* the categories come first: a cue names one */
    assert_true(strstr(ta, "[category steps]") < strstr(ta, "[cue step]"));
    /* one cue, one snapshot read back: the sections the sheet holds */
    assert_int_equal(CTL("cue", "show", "step"), 0);
    assert_true(strncmp(out, "[cue step]\n", 11) == 0);
    assert_non_null(strstr(out, "bind = wind gain 0:-12 0.5:-3:exp 1:0\n"));
    assert_non_null(strstr(ta, out)); /* what cues save wrote for it, whole */
    assert_int_equal(CTL("cue", "show", "step", "--json"), 0);
    assert_true(one_line(out) && out[0] == '{');
    static const char *jwant[] = {
        "\"name\":\"step\",\"sounds\":[\"tone\",\"hum\"]", "\"pick\":\"shuffle\"",
        "\"binds\":[{\"param\":\"wind\",\"prop\":\"gain\",\"index\":0,\"points\":[{\"x\":0,"
        "\"y\":-12,\"shape\":\"linear\"},{\"x\":0.5,\"y\":-3,\"shape\":\"exp\"}",
        "\"cone\":{\"dir\":[0,0,1],\"inner_deg\":60", "{\"distance\":10,\"gain_db\":-6}"};
    for (size_t i = 0; i < sizeof jwant / sizeof jwant[0]; i++)
        if (!strstr(out, jwant[i])) fail_msg("cue show --json lacks '%s': %s", jwant[i], out);
    assert_int_equal(CTL("snapshot", "show", "pause"), 0);
    const char *sec = strstr(out, "[snapshot pause]\n");
    assert_non_null(sec);
    assert_non_null(strstr(out, "# state idle"));
    assert_non_null(strstr(ta, sec));
    assert_int_equal(CTL("--json", "snapshot", "show", "pause"), 0);
    assert_non_null(strstr(out, "\"settings\":[{\"bus\":\"music\",\"target\":\"gain\","
                                "\"value\":-6.5},{\"bus\":\"sfx\",\"target\":\"mute\""));
    assert_non_null(strstr(out, "\"value\":\"-inf\""));
    /* unknown names: one line, exit 1; --help: the usage */
    assert_int_equal(CTL("cue", "show", "nosuch"), 1);
    assert_true(one_line(err) && strstr(err, "no cue named nosuch"));
    assert_int_equal(CTL("snapshot", "show", "nosuch"), 1);
    assert_true(one_line(err) && strstr(err, "no snapshot named nosuch"));
    assert_int_equal(CTL("snapshot", "show", "--help"), 0);
    assert_non_null(strstr(out, "usage: heliodctl snapshot show NAME [--json]"));
    assert_int_equal(CTL("cue", "--help"), 0);
    assert_non_null(strstr(out, "cue show NAME [--json]"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_commands),
        cmocka_unit_test(test_play_wait_returns_when_voice_ends),
        cmocka_unit_test(test_errors_are_one_line_and_nonzero),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_batch_from_pipe),
        cmocka_unit_test(test_cues_save_round_trip),
    };
    return cmocka_run_group_tests_name("heliodctl", tests, setup, teardown);
}
