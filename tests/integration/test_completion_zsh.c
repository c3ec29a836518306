/*
 * test_completion_zsh.c - heliodctl's zsh completion (client/completions/_heliodctl)
 * run by zsh itself: zsh_complete.zsh types a line and TAB into an
 * interactive `zsh -f` in a pseudo-terminal (compinit, our completion dir
 * first in fpath, the built heliodctl first in PATH) and reports the line
 * after TAB and the words offered. Checked: a unique command completes to
 * `heliodctl play `, an ambiguous one to its common prefix with every
 * candidate listed (hyphenated commands included), global and command
 * options, sound, cue and bus names from a real daemon (named through
 * --socket), files for load, and nothing, quickly, when the daemon is not
 * there.
 * Exits 77 (skipped) when zsh or its zpty module is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

typedef struct {
    th_daemon_t d;
} fixture_t;

typedef struct {
    char raw[8192];
    char buffer[1024];  /* the line after TAB */
    char source[1024];  /* where _heliodctl was loaded from */
    double elapsed;     /* seconds from TAB to the line being read */
    char matches[4096]; /* the words offered, one per line */
} completion_t;

static int setup(void **state) {
    if (th_fixture_alloc(state, sizeof(fixture_t), 0, NULL) != 0) return -1;
    fixture_t *f = *state;
    char out[1024], err[1024], wav[400];
    snprintf(wav, sizeof wav, "%s/tone.wav", f->d.dir);
    const char *load[] = {"load", "thunder", wav, NULL};
    const char *cue[] = {"cue", "tremor", "--sound", "thunder", NULL};
    if (th_write_sine(wav, 48000, 0.5, 440.0, 0.5) != 0 ||
        th_ctl(&f->d, out, sizeof out, err, sizeof err, load) != 0 ||
        th_ctl(&f->d, out, sizeof out, err, sizeof err, cue) != 0) {
        th_daemon_stop(&f->d, NULL);
        th_daemon_cleanup(&f->d);
        free(f);
        return -1;
    }
    return 0;
}

/* Copies the rest of the line after `key` in raw into dst. */
static void field(const char *raw, const char *key, char *dst, size_t cap) {
    const char *p = strstr(raw, key);
    assert_non_null(p);
    p += strlen(key);
    size_t n = strcspn(p, "\n");
    if (n >= cap) n = cap - 1;
    memcpy(dst, p, n);
    dst[n] = 0;
}

/* The slowest completion so far (seconds from TAB to the line): what this
 * machine, loaded or not, takes for one. */
static double g_slowest;

/* Types `line` and TAB into zsh; fills c from zsh_complete.zsh's report. */
static void complete(const char *line, completion_t *c) {
    const char *driver = getenv("ZSH_COMPLETE");
    const char *compdir = getenv("COMPLETION_DIR");
    const char *ctl = getenv("HELIODCTL_BIN");
    assert_non_null(driver);
    assert_non_null(compdir);
    assert_non_null(ctl);
    char bindir[512];
    snprintf(bindir, sizeof bindir, "%s", ctl);
    char *slash = strrchr(bindir, '/');
    assert_non_null(slash);
    *slash = 0;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "zsh -f '%s' '%s' '%s' '%s'", driver, compdir, bindir, line);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(c->raw, 1, sizeof c->raw - 1, p);
    c->raw[n] = 0;
    assert_int_equal(pclose(p), 0);
    field(c->raw, "buffer: ", c->buffer, sizeof c->buffer);
    field(c->raw, "source: ", c->source, sizeof c->source);
    char num[64];
    field(c->raw, "elapsed: ", num, sizeof num);
    c->elapsed = atof(num);
    if (c->elapsed > g_slowest) g_slowest = c->elapsed;
    c->matches[0] = 0;
    for (const char *m = c->raw; (m = strstr(m, "match: ")) != NULL;) {
        m += 7;
        size_t len = strcspn(m, "\n");
        size_t used = strlen(c->matches);
        if (used + len + 2 > sizeof c->matches) break;
        memcpy(c->matches + used, m, len);
        memcpy(c->matches + used + len, "\n", 2);
    }
    /* the completion under test, not one installed on the system */
    char want[1100];
    snprintf(want, sizeof want, "%s/_heliodctl", compdir);
    assert_string_equal(c->source, want);
}

static int offered(const completion_t *c, const char *word) {
    size_t n = strlen(word);
    for (const char *l = c->matches; *l;) {
        size_t len = strcspn(l, "\n");
        if (len == n && !strncmp(l, word, n)) return 1;
        l += len + (l[len] == '\n');
    }
    return 0;
}

static void test_commands(void **state) {
    (void)state;
    completion_t c;
    complete("heliodctl pl", &c);
    assert_string_equal(c.buffer, "heliodctl play ");
    assert_true(offered(&c, "play"));
    assert_false(offered(&c, "stop"));

    complete("heliodctl ", &c);
    assert_string_equal(c.buffer, "heliodctl ");
    assert_true(offered(&c, "top") && offered(&c, "profile") && offered(&c, "stats") &&
                offered(&c, "meter") && offered(&c, "wait") && offered(&c, "events") &&
                offered(&c, "help"));

    /* hyphenated commands: the common prefix, then both listed */
    complete("heliodctl rev", &c);
    assert_string_equal(c.buffer, "heliodctl reverb-zone");
    assert_true(offered(&c, "reverb-zone") && offered(&c, "reverb-zones"));

    complete("heliodctl --js", &c);
    assert_string_equal(c.buffer, "heliodctl --json ");
    complete("heliodctl help prof", &c);
    assert_string_equal(c.buffer, "heliodctl help profile ");
}

static void test_options(void **state) {
    (void)state;
    completion_t c;
    complete("heliodctl play --lo", &c);
    assert_string_equal(c.buffer, "heliodctl play --loop");
    assert_true(offered(&c, "--loop") && offered(&c, "--loop-start"));
    assert_false(offered(&c, "--gain"));

    complete("heliodctl play --loop-s", &c);
    assert_string_equal(c.buffer, "heliodctl play --loop-start ");

    complete("heliodctl --json profile --", &c);
    assert_true(offered(&c, "--seconds") && offered(&c, "--out"));
}

static void test_names(void **state) {
    fixture_t *f = *state;
    completion_t c;
    char line[1024], want[1024];

    snprintf(line, sizeof line, "heliodctl --socket %s play t", f->d.sock);
    complete(line, &c);
    assert_string_equal(c.buffer, line); /* two candidates, no longer prefix */
    assert_true(offered(&c, "thunder"));
    assert_true(offered(&c, "tremor"));

    snprintf(line, sizeof line, "heliodctl --socket %s unload t", f->d.sock);
    complete(line, &c);
    snprintf(want, sizeof want, "heliodctl --socket %s unload thunder ", f->d.sock);
    assert_string_equal(c.buffer, want); /* a cue is not a sound */
    assert_false(offered(&c, "tremor"));

    snprintf(line, sizeof line, "heliodctl --socket %s play thunder --bus mu", f->d.sock);
    complete(line, &c);
    snprintf(want, sizeof want, "heliodctl --socket %s play thunder --bus music ", f->d.sock);
    assert_string_equal(c.buffer, want);
    snprintf(line, sizeof line, "heliodctl --socket %s cue boom --sound th", f->d.sock);
    complete(line, &c);
    snprintf(want, sizeof want, "heliodctl --socket %s cue boom --sound thunder ", f->d.sock);
    assert_string_equal(c.buffer, want);
    snprintf(line, sizeof line, "heliodctl --socket %s fx ma", f->d.sock);
    complete(line, &c);
    snprintf(want, sizeof want, "heliodctl --socket %s fx master ", f->d.sock);
    assert_string_equal(c.buffer, want);

    /* files for load's path */
    snprintf(line, sizeof line, "heliodctl load x %s/to", f->d.dir);
    complete(line, &c);
    snprintf(want, sizeof want, "heliodctl load x %s/tone.wav ", f->d.dir);
    assert_string_equal(c.buffer, want);

    /* no daemon there: nothing, and soon: no slower than the slowest
     * completion that asked a daemon, give or take a second of a loaded
     * machine (a completion that waited for a daemon would take seconds
     * more), whatever this machine's speed */
    double slowest = g_slowest;
    snprintf(line, sizeof line, "heliodctl --socket %s/none.sock play t", f->d.dir);
    complete(line, &c);
    assert_string_equal(c.buffer, line);
    assert_string_equal(c.matches, "");
    print_message("# no daemon: %.3f s; the slowest completion before: %.3f s\n", c.elapsed,
                  slowest);
    assert_true(c.elapsed < slowest + 1.0);
}

int main(void) {
    /* meson counts 77 as skipped: zsh (scripts/deps.sh installs it) or zpty missing */
    if (system("zsh -fc 'zmodload zsh/zpty' >/dev/null 2>&1") != 0) {
        fprintf(stderr, "zsh with zsh/zpty not found: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_options),
        TH_TEST(test_names, setup),
    };
    return TH_RUN(tests);
}
