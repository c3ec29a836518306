/*
 * test_completion.c - heliodctl's bash completion (client/completions/heliodctl.bash)
 * driven the way bash drives it (COMP_WORDS, COMP_CWORD, the _heliodctl
 * function, COMPREPLY) against the real heliodctl and a real daemon: the
 * commands, a command's options, the sounds and cues loaded in the daemon
 * (named through --socket), files for load; and nothing (quickly) when the
 * daemon is not there. The zsh one is checked for syntax by zsh itself here
 * and run by zsh in a pseudo-terminal in test_completion_zsh.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <unistd.h>

#include "harness.h"
#include "heliod.h"

typedef struct {
    th_daemon_t d;
} fixture_t;

static int setup(void **state) {
    return th_fixture_alloc(state, sizeof(fixture_t), 0, NULL);
}

/* Completes `line` (words separated by spaces; the last one is the word being
 * completed, possibly empty) and returns COMPREPLY one per line in out. */
static void complete(const char *line, char *out, size_t cap) {
    const char *script = getenv("COMPLETION_BASH");
    const char *ctl = getenv("HELIODCTL_BIN");
    assert_non_null(script);
    assert_non_null(ctl);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", ctl);
    char *slash = strrchr(dir, '/');
    assert_non_null(slash);
    *slash = 0;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "PATH='%s':\"$PATH\" bash --norc --noprofile -c '"
             "source \"$0\"; read -ra COMP_WORDS <<< \"$1\"; "
             "case \"$1\" in *\" \") COMP_WORDS+=(\"\");; esac; "
             "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _heliodctl; "
             "printf \"%%s\\n\" \"${COMPREPLY[@]}\"' '%s' '%s'",
             dir, script, line);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    assert_int_equal(pclose(p), 0);
}

static int has_line(const char *out, const char *word) {
    size_t n = strlen(word);
    for (const char *l = out; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (len == n && !strncmp(l, word, n)) return 1;
        if (!nl) break;
        l = nl + 1;
    }
    return 0;
}

static void test_bash(void **state) {
    fixture_t *f = *state;
    char wav[400], out[8192], line[1024], err[1024];
    snprintf(wav, sizeof wav, "%s/tone.wav", f->d.dir);
    assert_int_equal(th_write_sine(wav, 48000, 0.5, 440.0, 0.5), 0);
    const char *load[] = {"load", "thunder", wav, NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, load), 0);
    const char *cue[] = {"cue", "tremor", "--sound", "thunder", NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, cue), 0);

    complete("heliodctl pl", out, sizeof out);
    assert_true(has_line(out, "play"));
    assert_false(has_line(out, "stop"));
    complete("heliodctl ", out, sizeof out);
    assert_true(has_line(out, "top") && has_line(out, "profile") && has_line(out, "stats") &&
                has_line(out, "meter") && has_line(out, "wait") && has_line(out, "events"));
    size_t tops = 0; /* each once */
    for (const char *p = out; (p = strstr(p, "top\n")) != NULL; p += 4)
        tops += p == out || p[-1] == '\n';
    assert_int_equal(tops, 1);
    complete("heliodctl rev", out, sizeof out); /* hyphenated commands too */
    assert_true(has_line(out, "reverb-zone") && has_line(out, "reverb-zones"));
    complete("heliodctl play --lo", out, sizeof out);
    assert_true(has_line(out, "--loop") && has_line(out, "--loop-start"));
    assert_false(has_line(out, "--gain"));
    complete("heliodctl --json profile --", out, sizeof out);
    assert_true(has_line(out, "--seconds") && has_line(out, "--out"));

    /* names from the daemon the line points at */
    snprintf(line, sizeof line, "heliodctl --socket %s play t", f->d.sock);
    complete(line, out, sizeof out);
    assert_true(has_line(out, "thunder"));
    assert_true(has_line(out, "tremor"));
    snprintf(line, sizeof line, "heliodctl --socket %s unload ", f->d.sock);
    complete(line, out, sizeof out);
    assert_true(has_line(out, "thunder"));
    assert_false(has_line(out, "tremor")); /* a cue is not a sound */
    snprintf(line, sizeof line, "heliodctl --socket %s cue show tr", f->d.sock);
    complete(line, out, sizeof out); /* cue show NAME: the daemon's cues */
    assert_true(has_line(out, "tremor"));
    complete("heliodctl snapshot sh", out, sizeof out);
    assert_true(has_line(out, "show"));
    snprintf(line, sizeof line, "heliodctl --socket %s play thunder --bus mu", f->d.sock);
    complete(line, out, sizeof out);
    assert_true(has_line(out, "music"));

    /* files for load's path */
    snprintf(line, sizeof line, "heliodctl load x %s/to", f->d.dir);
    complete(line, out, sizeof out);
    assert_true(has_line(out, wav));

    /* no daemon there: nothing, and soon */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    snprintf(line, sizeof line, "heliodctl --socket %s/none.sock play t", f->d.dir);
    complete(line, out, sizeof out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_string_equal(out, "\n");
    assert_true((double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 < 3.0);
}

static void test_zsh_syntax(void **state) {
    (void)state;
    const char *z = getenv("COMPLETION_ZSH");
    assert_non_null(z);
    if (system("command -v zsh >/dev/null") != 0) skip(); /* scripts/deps.sh installs zsh */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "zsh -n '%s'", z);
    assert_int_equal(system(cmd), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        TH_TEST(test_bash, setup),
        cmocka_unit_test(test_zsh_syntax),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
