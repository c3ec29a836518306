/*
 * test_ctl_args.c - heliodctl's command language without a daemon: strict
 * number parsing, global options, every command's options into wire messages,
 * rejections with a message, body encoding, and batch line splitting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ctl_args.h"

static char err[CTL_ERR_LEN];

/* Splits a command line written as one string and parses it. */
static int parse(const char *line, ctl_cmd_t *c) {
    static char copy[1024];
    char *argv[CTL_MAX_ARGS];
    snprintf(copy, sizeof copy, "%s", line);
    int argc = ctl_split_line(copy, argv, CTL_MAX_ARGS, err, sizeof err);
    assert_true(argc > 0);
    err[0] = '\0';
    int rc = ctl_parse_command(argc, argv, c, err, sizeof err);
    if (rc < 0) assert_true(err[0] != '\0'); /* every rejection says why */
    return rc;
}

/* Time options: --at in its three forms, --at-frame, --quantize, the
 * commands that cannot be scheduled, and how a time resolves to a frame. */
static void test_time(void **state) {
    (void)state;
    ctl_cmd_t c;
    assert_int_equal(parse("play boom --at +20ms --gain -3", &c), 0);
    assert_int_equal(c.at.kind, CTL_AT_MS);
    assert_true(c.at.ms == 20.0);
    assert_true(c.m.play.gain_db == -3.0f);
    assert_int_equal(parse("play boom --at +1.5s", &c), 0);
    assert_true(c.at.ms == 1500.0);
    assert_int_equal(parse("play boom --at +7", &c), 0);
    assert_true(c.at.ms == 7.0);
    assert_int_equal(parse("stop 42 --at 123456", &c), 0);
    assert_int_equal(c.at.kind, CTL_AT_FRAME);
    assert_int_equal(c.at.frame, 123456);
    assert_int_equal(parse("--at-frame 9 set 42 --gain -6", &c), -1); /* the command comes first */
    assert_int_equal(parse("set 42 --at-frame 9 --gain -6", &c), 0);
    assert_int_equal(c.at.frame, 9);
    assert_int_equal(parse("bus sfx --gain -6 --at +0ms", &c), 0);
    assert_int_equal(parse("listener --pos 1,2,3 --at 5", &c), 0);
    assert_int_equal(parse("play boom --quantize 4800 --quantize-ref 100", &c), 0);
    assert_int_equal(c.at.kind, CTL_AT_NONE);
    assert_int_equal(c.at.quantize, 4800);
    assert_int_equal(c.at.qref, 100);
    /* refused: bad times, a time on what cannot be scheduled */
    assert_int_equal(parse("play boom --at", &c), -1);
    assert_int_equal(parse("play boom --at 0", &c), 0); /* frame 0: now (a score's start) */
    assert_int_equal(c.at.kind, CTL_AT_NONE);
    assert_int_equal(parse("play boom --at -5", &c), -1);
    assert_int_equal(parse("play boom --at +5min", &c), -1);
    assert_int_equal(parse("play boom --at +ms", &c), -1);
    assert_int_equal(parse("play boom --at-frame +5ms", &c), -1);
    assert_int_equal(parse("play boom --quantize 0", &c), -1);
    assert_int_equal(parse("stop --all --at +5ms", &c), -1);
    assert_int_equal(parse("load x /tmp/x.wav --at-frame 5", &c), -1);
    assert_int_equal(parse("sounds --quantize 10", &c), -1);
    assert_int_equal(parse("fx add master comp --at 0 --threshold -12", &c), 0); /* its own --at */
    assert_int_equal(parse("clock", &c), 0);
    assert_int_equal(c.op, HL_OP_CLOCK);
    /* resolving */
    ctl_at_t a = {.kind = CTL_AT_MS, .ms = 20.0};
    assert_int_equal(ctl_at_resolve(&a, 1000, 48000), 1000 + 960);
    a = (ctl_at_t){.kind = CTL_AT_FRAME, .frame = 5000};
    assert_int_equal(ctl_at_resolve(&a, 1000, 48000), 5000);
    a.quantize = 4800;
    a.qref = 100;
    assert_int_equal(ctl_at_resolve(&a, 0, 48000), 100 + 2 * 4800); /* 5000 -> 9700 */
    a.frame = 4900;                                                 /* on the grid: stays */
    assert_int_equal(ctl_at_resolve(&a, 0, 48000), 4900);
    a.frame = 50; /* before the reference: the reference */
    assert_int_equal(ctl_at_resolve(&a, 0, 48000), 100);
}

static void test_numbers(void **state) {
    (void)state;
    float f;
    long l;
    uint64_t u;
    float v[3];
    assert_int_equal(ctl_parse_float("-6", &f), 0);
    assert_true(f == -6.0f);
    assert_int_equal(ctl_parse_float("1e-3", &f), 0);
    assert_int_equal(ctl_parse_float("", &f), -1);
    assert_int_equal(ctl_parse_float("1x", &f), -1);
    assert_int_equal(ctl_parse_float("nan", &f), -1);
    assert_int_equal(ctl_parse_float("inf", &f), -1);
    assert_int_equal(ctl_parse_float("1e39", &f), -1);
    assert_int_equal(ctl_parse_float(" 1", &f), 0); /* strtod skips leading space only */
    assert_int_equal(ctl_parse_float("1 ", &f), -1);
    assert_int_equal(ctl_parse_int("1000", -1000, 1000, &l), 0);
    assert_int_equal(ctl_parse_int("1001", -1000, 1000, &l), -1);
    assert_int_equal(ctl_parse_int("-1001", -1000, 1000, &l), -1);
    assert_int_equal(ctl_parse_int("1.5", -1000, 1000, &l), -1);
    assert_int_equal(ctl_parse_int("99999999999999999999", 0, 10, &l), -1);
    assert_int_equal(ctl_parse_u64("4294967297", &u), 0);
    assert_true(u == 4294967297ull);
    assert_int_equal(ctl_parse_u64("-1", &u), -1);
    assert_int_equal(ctl_parse_u64("18446744073709551616", &u), -1);
    assert_int_equal(ctl_parse_u64("12a", &u), -1);
    assert_int_equal(ctl_parse_vec3("1,-2,3.5", v), 0);
    assert_true(v[0] == 1 && v[1] == -2 && v[2] == 3.5f);
    assert_int_equal(ctl_parse_vec3("1,2", v), -1);
    assert_int_equal(ctl_parse_vec3("1,2,3,4", v), -1);
    assert_int_equal(ctl_parse_vec3("1,,3", v), -1);
    assert_int_equal(ctl_parse_vec3("1,2,nan", v), -1);
}

static void test_global(void **state) {
    (void)state;
    ctl_opts_t o;
    int next;
    char *a1[] = {"heliodctl", "--socket", "/tmp/s", "--json", "--timeout=250", "ping", NULL};
    assert_int_equal(ctl_parse_global(6, a1, &o, &next, err, sizeof err), 0);
    assert_string_equal(o.socket, "/tmp/s");
    assert_int_equal(o.json, 1);
    assert_int_equal(o.timeout_ms, 250);
    assert_int_equal(next, 5);
    char *a2[] = {"heliodctl", "--timeout", "abc", "ping", NULL};
    assert_int_equal(ctl_parse_global(4, a2, &o, &next, err, sizeof err), -1);
    char *a3[] = {"heliodctl", "--frobnicate", NULL};
    assert_int_equal(ctl_parse_global(2, a3, &o, &next, err, sizeof err), -1);
    assert_non_null(strstr(err, "--frobnicate"));
    char *a4[] = {"heliodctl", "--socket", NULL};
    assert_int_equal(ctl_parse_global(2, a4, &o, &next, err, sizeof err), -1);
    char *a5[] = {"heliodctl", NULL};
    assert_int_equal(ctl_parse_global(1, a5, &o, &next, err, sizeof err), 0);
    assert_int_equal(next, 1);
    assert_int_equal(o.timeout_ms, CTL_DEFAULT_TIMEOUT_MS);
}

static void test_play(void **state) {
    (void)state;
    ctl_cmd_t c;
    assert_int_equal(parse("play boom", &c), 0);
    assert_int_equal(c.kind, CTL_PLAY);
    assert_int_equal(c.op, HL_OP_PLAY);
    assert_string_equal(c.m.play.sound, "boom");
    assert_int_equal(c.m.play.flags, HL_PLAY_DETACHED);
    assert_true(c.m.play.pitch == 1.0f && c.m.play.fade_in_ms == -1.0f);
    assert_int_equal(c.m.play.model, HL_DIST_INVERSE);

    assert_int_equal(parse("play boom --gain -6 --pan=-0.5 --pos 1,2,3 --pitch 2 --loop "
                           "--priority -7 --fade-in 20 --bus music --min-dist 2 --max-dist 50 "
                           "--rolloff 0.5 --model exponential --wait",
                           &c),
                     0);
    assert_true(c.m.play.gain_db == -6.0f && c.m.play.pan == -0.5f);
    assert_true(c.m.play.pos[2] == 3.0f && c.m.play.pitch == 2.0f);
    assert_int_equal(c.m.play.flags, HL_PLAY_3D | HL_PLAY_LOOP); /* --wait: not detached */
    assert_int_equal(c.wait, 1);
    assert_int_equal(c.m.play.priority, -7);
    assert_string_equal(c.m.play.bus, "music");
    assert_int_equal(c.m.play.model, HL_DIST_EXPONENTIAL);

    assert_int_equal(parse("play", &c), -1);
    assert_int_equal(parse("play a b", &c), -1);
    assert_int_equal(parse("play 'bad name'", &c), -1);
    assert_int_equal(parse("play boom --gain", &c), -1);
    assert_int_equal(parse("play boom --gain loud", &c), -1);
    assert_int_equal(parse("play boom --gain 25", &c), -1); /* > +24 */
    assert_int_equal(parse("play boom --pan 1.01", &c), -1);
    assert_int_equal(parse("play boom --pitch 0.2", &c), -1);
    assert_int_equal(parse("play boom --priority 1001", &c), -1);
    assert_int_equal(parse("play boom --model cubic", &c), -1);
    assert_int_equal(parse("play boom --pos 1,2", &c), -1);
    assert_int_equal(parse("play boom --min-dist 5 --max-dist 5", &c), -1);
    assert_int_equal(parse("play boom --volume 3", &c), -1);
    assert_non_null(strstr(err, "--volume"));
    assert_int_equal(parse("play boom --help", &c), 0);
    assert_int_equal(c.help, 1);
}

/* play --wait is the request play without it sends, byte for byte, but for
 * HL_PLAY_DETACHED (a waited-for voice stays attached): heliodctl sends both
 * through one path, so no option may be parsed differently with --wait. */
static void test_play_wait_same_request(void **state) {
    (void)state;
    static const char *const opts[] = {
        "",
        " --gain -6 --pitch 1.5 --loop --bus music",
        " --pos 1,0,-2 --lp 800 --hp 120 --occlusion 0.5 --obstruction 0.25",
        " --send reverb_hall:-12 --fade-in 20",
        " --at +50ms",
    };
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        char line[256];
        ctl_cmd_t plain, waited;
        snprintf(line, sizeof line, "play boom%s", opts[k]);
        assert_int_equal(parse(line, &plain), 0);
        snprintf(line, sizeof line, "play boom --wait%s", opts[k]);
        assert_int_equal(parse(line, &waited), 0);
        assert_int_equal(plain.wait, 0);
        assert_int_equal(waited.wait, 1);
        assert_true(plain.m.play.flags & HL_PLAY_DETACHED);
        assert_false(waited.m.play.flags & HL_PLAY_DETACHED);
        assert_int_equal(plain.at.kind, waited.at.kind);
        plain.m.play.flags &= ~HL_PLAY_DETACHED;
        uint8_t a[HL_MAX_FRAME], b[HL_MAX_FRAME];
        int la = ctl_encode(&plain, a, sizeof a), lb = ctl_encode(&waited, b, sizeof b);
        assert_true(la > 0);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, (size_t)la);
    }
}

static void test_streaming_options(void **state) {
    (void)state;
    ctl_cmd_t c;
    uint8_t buf[HL_MAX_FRAME];
    assert_int_equal(parse("play music --loop-start 100 --loop-end 48000 --loop-count 3 "
                           "--xfade 5 --interp cubic",
                           &c),
                     0);
    assert_int_equal(c.m.play.loop_start, 100);
    assert_int_equal(c.m.play.loop_end, 48000);
    assert_int_equal(c.m.play.loop_count, 3);
    assert_true(c.m.play.flags & HL_PLAY_LOOP); /* --loop-count implies --loop */
    assert_true(c.m.play.flags & HL_PLAY_CUBIC);
    assert_true(c.m.play.loop_xfade_ms == 5.0f);
    assert_true(ctl_encode(&c, buf, sizeof buf) > 0);
    assert_int_equal(parse("play music --interp linear", &c), 0);
    assert_int_equal(c.m.play.flags & HL_PLAY_INTERP, HL_PLAY_LINEAR);
    assert_int_equal(parse("play music --interp sinc", &c), 0);
    assert_int_equal(c.m.play.flags & HL_PLAY_INTERP, HL_PLAY_SINC);
    assert_int_equal(parse("play music --interp cubic --interp sinc", &c), 0);
    assert_int_equal(c.m.play.flags & HL_PLAY_INTERP, HL_PLAY_SINC); /* the last one */
    assert_true(ctl_encode(&c, buf, sizeof buf) > 0);
    assert_int_equal(parse("play music --interp lanczos", &c), -1);
    assert_int_equal(parse("play music --loop --loop-start 10 --loop-end 10", &c), -1);
    assert_int_equal(parse("play music --loop-end 10 --loop-start 20", &c), -1);
    assert_int_equal(parse("play music --loop-count 0", &c), -1);
    assert_int_equal(parse("play music --loop-start -1", &c), -1);
    assert_int_equal(parse("play music --xfade -1", &c), -1);
    assert_int_equal(parse("play music --xfade 10001", &c), -1);

    assert_int_equal(parse("set 7 --seek 12.5", &c), 0);
    assert_int_equal(c.m.set.mask, HL_SET_SEEK);
    assert_true(c.m.set.seek_s == 12.5);
    assert_true(ctl_encode(&c, buf, sizeof buf) > 0);
    assert_int_equal(parse("set 7 --seek -1", &c), -1);
    assert_int_equal(parse("set 7 --pause", &c), 0);
    assert_int_equal(c.m.set.mask, HL_SET_PAUSE);
    assert_int_equal(parse("set 7 --resume --ramp 50", &c), 0);
    assert_int_equal(c.m.set.mask, HL_SET_RESUME);
    assert_int_equal(parse("set 7 --pause --resume", &c), -1);

    assert_int_equal(parse("pause 7", &c), 0);
    assert_int_equal(c.kind, CTL_SET);
    assert_int_equal(c.op, HL_OP_SET);
    assert_int_equal(c.m.set.mask, HL_SET_PAUSE);
    assert_int_equal(parse("resume 7 --ramp 20", &c), 0);
    assert_int_equal(c.m.set.mask, HL_SET_RESUME);
    assert_int_equal(parse("pause --all", &c), 0);
    assert_int_equal(c.kind, CTL_PAUSE_ALL);
    assert_int_equal(c.op, HL_OP_PAUSE);
    assert_int_equal(c.m.pause.pause, 1);
    assert_int_equal(c.m.pause.scope, HL_PAUSE_EVERYONE);
    int n = ctl_encode(&c, buf, sizeof buf);
    assert_int_equal(n, 4); /* pause, scope, empty group */
    assert_int_equal(parse("resume --all", &c), 0);
    assert_int_equal(c.m.pause.pause, 0);
    assert_int_equal(parse("pause", &c), -1);
    assert_int_equal(parse("pause 7 --all", &c), -1);
    assert_int_equal(parse("resume 0", &c), -1);
    assert_int_equal(parse("pause 7 --now", &c), -1);
    assert_int_equal(parse("pause --help", &c), 0);
    assert_non_null(strstr(ctl_usage("play"), "--loop-start"));
    assert_non_null(strstr(ctl_usage("set"), "--seek"));
    assert_non_null(strstr(ctl_usage("resume"), "--all"));
}

static void test_other_commands(void **state) {
    (void)state;
    ctl_cmd_t c;
    assert_int_equal(parse("stop 4294967297 --fade 50", &c), 0);
    assert_int_equal(c.kind, CTL_STOP);
    assert_true(c.m.stop.voice == 4294967297ull && c.m.stop.fade_ms == 50.0f);
    assert_int_equal(parse("stop --all", &c), 0);
    assert_int_equal(c.kind, CTL_STOP_ALL);
    assert_int_equal(c.op, HL_OP_STOP_ALL);
    assert_int_equal(c.m.stop_all.scope, HL_STOP_ALL_EVERYONE);
    assert_int_equal(parse("stop", &c), -1);
    assert_int_equal(parse("stop 0", &c), -1);
    assert_int_equal(parse("stop -5", &c), -1);
    assert_int_equal(parse("stop 1 --all", &c), -1);
    assert_int_equal(parse("stop 1 --fade 60001", &c), -1);

    assert_int_equal(parse("set 7 --gain -3 --pos 0,0,1 --ramp 20", &c), 0);
    assert_int_equal(c.m.set.mask, HL_SET_GAIN | HL_SET_POS);
    assert_true(c.m.set.ramp_ms == 20.0f);
    assert_int_equal(parse("set 7", &c), -1);
    assert_int_equal(parse("set --gain 1", &c), -1);
    assert_int_equal(parse("set 7 --pitch 5", &c), -1);

    assert_int_equal(parse("listener --pos 1,2,3 --forward 0,0,-1 --up 0,1,0 --vel 1,0,0", &c), 0);
    assert_int_equal(c.m.listener.mask, HL_LIS_MASK);
    assert_int_equal(parse("listener", &c), -1);
    assert_int_equal(parse("listener --forward 0,0,0", &c), -1);
    assert_int_equal(parse("listener --spin 1,2,3", &c), -1);
    assert_int_equal(parse("listener --index 1 --weight 0.5", &c), 0); /* the weighted rule */
    assert_true(c.m.listener.weight == 0.5f && c.m.listener.mask == 0);
    assert_int_equal(parse("listener --weight nearest", &c), 0);
    assert_true(c.m.listener.weight == -1.0f);
    assert_int_equal(parse("listener --weight 1.5", &c), -1);
    assert_int_equal(parse("listener --weight 0", &c), -1);
    /* distance curves: --kind */
    assert_int_equal(parse("attenuation 7 --kind lowpass --points 1:16000,40:800", &c), 0);
    assert_true(c.m.atten.kind == HL_ATTEN_LOWPASS && c.m.atten.npoints == 2);
    assert_true(c.m.atten.gain_db[1] == 800.0f);
    assert_int_equal(parse("attenuation --cue e --kind send --off", &c), 0);
    assert_true(c.m.atten.kind == HL_ATTEN_SEND && c.m.atten.npoints == 0);
    assert_int_equal(parse("attenuation 7 --kind lowpass --points 1:5", &c), -1);
    assert_int_equal(parse("attenuation 7 --kind pitch --points 1:0", &c), -1);

    assert_int_equal(parse("bus music --gain -12 --ramp 100", &c), 0);
    assert_string_equal(c.m.bus.name, "music");
    assert_int_equal(c.m.bus.mask, HL_BUS_GAIN);
    assert_int_equal(parse("bus music", &c), -1); /* nothing to do */
    assert_int_equal(parse("bus --gain 0", &c), -1);

    assert_int_equal(parse("load boom /nonexistent/boom.wav", &c), 0);
    assert_string_equal(c.m.load.path, "/nonexistent/boom.wav");
    assert_int_equal(c.m.load.flags, HL_LOAD_SHARED); /* heliodctl's connection ends: shared */
    assert_int_equal(parse("load boom rel.wav --stream", &c), 0);
    assert_int_equal(c.m.load.flags, HL_LOAD_STREAM | HL_LOAD_SHARED);
    assert_int_equal(parse("load boom rel.wav --private --stream", &c), 0);
    assert_int_equal(c.m.load.flags, HL_LOAD_STREAM);
    assert_int_equal(parse("load boom rel.wav --private --shared", &c), 0);
    assert_int_equal(c.m.load.flags, HL_LOAD_SHARED);
    assert_int_equal(parse("load boom", &c), -1);
    assert_int_equal(parse("load b@d x.wav", &c), -1);
    assert_int_equal(parse("unload boom", &c), 0);
    assert_int_equal(parse("unload", &c), -1);
    assert_int_equal(parse("unload a b", &c), -1);

    assert_int_equal(parse("stats --reset", &c), 0);
    assert_int_equal(c.m.stats.flags, HL_STATS_RESET);
    assert_int_equal(parse("stats --now", &c), -1);
    assert_int_equal(parse("status", &c), 0);
    assert_int_equal(c.op, HL_OP_STATS);
    assert_int_equal(parse("voices extra", &c), -1);
    assert_int_equal(parse("batch cmds.txt", &c), 0);
    assert_string_equal(c.file, "cmds.txt");
    assert_int_equal(parse("batch -", &c), 0);
    assert_int_equal(parse("frobnicate", &c), -1);
    assert_non_null(strstr(err, "frobnicate"));
}

/* Parses line, encodes it and decodes the body back with decoder `get`. */
#define ENCODE_BACK(type, get, line, out)                                                          \
    do {                                                                                           \
        ctl_cmd_t c_;                                                                              \
        uint8_t b_[HL_MAX_FRAME];                                                                  \
        assert_int_equal(parse(line, &c_), 0);                                                     \
        int n_ = ctl_encode(&c_, b_, sizeof b_);                                                   \
        assert_true(n_ >= 0);                                                                      \
        hl_rbuf_t r_;                                                                              \
        hl_rbuf_init(&r_, b_, (size_t)n_);                                                         \
        get(&r_, out);                                                                             \
        assert_int_equal(hl_rbuf_finish(&r_), 0);                                                  \
    } while (0)

static void test_cue(void **state) {
    (void)state;
    ctl_cmd_t c;
    hl_cue_t def;
    hl_cue_init(&def);
    assert_int_equal(parse("cue step --sound step1", &c), 0);
    assert_int_equal(c.kind, CTL_CUE);
    assert_int_equal(c.op, HL_OP_CUE);
    assert_string_equal(c.m.cue.name, "step");
    assert_int_equal(c.m.cue.nsounds, 1);
    assert_string_equal(c.m.cue.sounds[0], "step1");
    /* defaults from hl_cue_init */
    hl_cue_t got = c.m.cue;
    memset(got.name, 0, sizeof got.name);
    memset(got.sounds, 0, sizeof got.sounds);
    got.nsounds = 0;
    assert_memory_equal(&got, &def, sizeof def);

    assert_int_equal(
        parse("cue gun --sound g1 --sound g2 --sound=g3 --pick shuffle --gain -3 --gain-rand 2 "
              "--pitch 1.5 --pitch-rand 50 --bus sfx --category weapons --priority 20 --pan -0.5 "
              "--3d --loop --interp cubic --min-distance 2 --max-distance 80 --rolloff 0.5 "
              "--model linear --fade-in 5 --fade-out 120 --fade-curve equal-power "
              "--max-instances 4 --overflow steal-quietest --min-interval 30 --beyond clamp "
              "--virtual restart --doppler 0.5",
              &c),
        0);
    hl_cue_t *m = &c.m.cue;
    assert_int_equal(m->nsounds, 3);
    assert_string_equal(m->sounds[2], "g3");
    assert_int_equal(m->pick, HL_PICK_SHUFFLE);
    assert_true(m->gain_db == -3.0f && m->gain_rand_db == 2.0f);
    assert_true(m->pitch == 1.5f && m->pitch_rand_cents == 50.0f);
    assert_string_equal(m->bus, "sfx");
    assert_string_equal(m->category, "weapons");
    assert_int_equal(m->priority, 20);
    assert_true(m->pan == -0.5f);
    assert_int_equal(m->flags, HL_CUE_3D | HL_CUE_LOOP | HL_CUE_CUBIC);
    assert_true(m->min_distance == 2.0f && m->max_distance == 80.0f && m->rolloff == 0.5f);
    assert_int_equal(m->model, HL_DIST_LINEAR);
    assert_true(m->fade_in_ms == 5.0f && m->fade_out_ms == 120.0f);
    assert_int_equal(m->fade_curve, HL_CURVE_EQUAL_POWER);
    assert_int_equal(m->max_instances, 4);
    assert_int_equal(m->overflow, HL_OVERFLOW_STEAL_QUIETEST);
    assert_true(m->min_interval_ms == 30.0f);
    assert_int_equal(m->beyond, HL_BEYOND_CLAMP);
    assert_int_equal(m->virt, HL_VIRT_RESTART);
    assert_true(m->doppler == 0.5f);
    hl_cue_t back;
    ENCODE_BACK(hl_cue_t, hl_get_cue, "cue gun --sound g1 --sound g2 --overflow fade-oldest",
                &back);
    assert_int_equal(back.nsounds, 2);
    assert_int_equal(back.overflow, HL_OVERFLOW_FADE_OLDEST);

    /* every overflow name */
    const char *pol[] = {"refuse",         "stop-oldest",   "fade-oldest", "steal-lowest-priority",
                         "steal-quietest", "steal-farthest"};
    for (int k = 0; k < 6; k++) {
        char line[128];
        snprintf(line, sizeof line, "cue x --sound s --overflow %s", pol[k]);
        assert_int_equal(parse(line, &c), 0);
        assert_int_equal(c.m.cue.overflow, k);
    }

    /* 16 sounds are fine, 17 are refused */
    char line[1024];
    size_t len = (size_t)snprintf(line, sizeof line, "cue many");
    for (int k = 0; k < HL_MAX_CUE_SOUNDS; k++)
        len += (size_t)snprintf(line + len, sizeof line - len, " --sound s%d", k);
    assert_int_equal(parse(line, &c), 0);
    assert_int_equal(c.m.cue.nsounds, HL_MAX_CUE_SOUNDS);
    snprintf(line + len, sizeof line - len, " --sound s16");
    assert_int_equal(parse(line, &c), -1);
    assert_non_null(strstr(err, "16"));

    assert_int_equal(parse("cue", &c), -1);
    assert_int_equal(parse("cue x", &c), -1); /* no --sound */
    assert_non_null(strstr(err, "--sound"));
    assert_int_equal(parse("cue x y --sound s", &c), -1);
    assert_int_equal(parse("cue 'bad name' --sound s", &c), -1);
    assert_int_equal(parse("cue x --sound", &c), -1);
    assert_int_equal(parse("cue x --sound b@d", &c), -1);
    assert_int_equal(parse("cue x --sound s --pick often", &c), -1);
    assert_non_null(strstr(err, "sequence")); /* lists the accepted names */
    assert_int_equal(parse("cue x --sound s --overflow steal", &c), -1);
    assert_non_null(strstr(err, "steal-farthest"));
    assert_int_equal(parse("cue x --sound s --overflow", &c), -1);
    assert_int_equal(parse("cue x --sound s --beyond far", &c), -1);
    assert_int_equal(parse("cue x --sound s --virtual pause", &c), -1);
    assert_int_equal(parse("cue x --sound s --fade-curve cosine", &c), -1);
    assert_int_equal(parse("cue x --sound s --model cubic", &c), -1);
    assert_int_equal(parse("cue x --sound s --interp lanczos", &c), -1);
    assert_int_equal(parse("cue x --sound s --interp sinc", &c), 0);
    assert_int_equal(c.m.cue.flags & HL_PLAY_INTERP, HL_CUE_SINC);
    assert_int_equal(parse("cue x --sound s --gain 24", &c), 0);
    assert_int_equal(parse("cue x --sound s --gain 24.01", &c), -1);
    assert_int_equal(parse("cue x --sound s --gain-rand 48", &c), 0);
    assert_int_equal(parse("cue x --sound s --gain-rand 49", &c), -1);
    assert_int_equal(parse("cue x --sound s --gain-rand -1", &c), -1);
    assert_int_equal(parse("cue x --sound s --pitch-rand 2401", &c), -1);
    assert_int_equal(parse("cue x --sound s --pitch 0.24", &c), -1);
    assert_int_equal(parse("cue x --sound s --priority 1001", &c), -1);
    assert_int_equal(parse("cue x --sound s --priority -1000", &c), 0);
    assert_int_equal(parse("cue x --sound s --max-instances 65536", &c), 0);
    assert_int_equal(parse("cue x --sound s --max-instances 65537", &c), -1);
    assert_int_equal(parse("cue x --sound s --max-instances -1", &c), -1);
    assert_int_equal(parse("cue x --sound s --min-interval 60001", &c), -1);
    assert_int_equal(parse("cue x --sound s --min-interval -1", &c), -1);
    assert_int_equal(parse("cue x --sound s --doppler 10.5", &c), -1);
    assert_int_equal(parse("cue x --sound s --min-distance 0", &c), -1);
    assert_int_equal(parse("cue x --sound s --max-distance 1000001", &c), -1);
    assert_int_equal(parse("cue x --sound s --fade-out -2", &c), -1);
    assert_int_equal(parse("cue x --sound s --fade-out -1", &c), 0);
    assert_int_equal(parse("cue x --sound s --pan 2", &c), -1);
    assert_int_equal(parse("cue x --sound s --category 'a b'", &c), -1);
    assert_int_equal(parse("cue x --sound s --volume 3", &c), -1);
    assert_non_null(strstr(err, "--volume"));
    assert_int_equal(parse("cue --help", &c), 0);
    assert_int_equal(c.help, 1);

    /* category */
    assert_int_equal(parse("category foot", &c), 0);
    assert_int_equal(c.kind, CTL_CATEGORY);
    assert_int_equal(c.op, HL_OP_CATEGORY);
    assert_int_equal(c.m.category.max_instances, 0);
    assert_int_equal(c.m.category.overflow, HL_OVERFLOW_REFUSE);
    assert_true(c.m.category.fade_out_ms == -1.0f);
    assert_int_equal(parse("category foot --max-instances 8 --overflow steal-farthest "
                           "--fade-out 80 --fade-curve log",
                           &c),
                     0);
    assert_int_equal(c.m.category.max_instances, 8);
    assert_int_equal(c.m.category.overflow, HL_OVERFLOW_STEAL_FARTHEST);
    assert_true(c.m.category.fade_out_ms == 80.0f);
    assert_int_equal(c.m.category.fade_curve, HL_CURVE_LOG);
    hl_category_t cat;
    ENCODE_BACK(hl_category_t, hl_get_category, "category foot --max-instances 2", &cat);
    assert_int_equal(cat.max_instances, 2);
    assert_int_equal(parse("category", &c), -1);
    assert_int_equal(parse("category foot --overflow never", &c), -1);
    assert_int_equal(parse("category foot --fade-curve", &c), -1);
    assert_int_equal(parse("category foot --max-instances 65537", &c), -1);
    assert_int_equal(parse("category foot --fade-out 60001", &c), -1);
    assert_int_equal(parse("category foot --sound s", &c), -1);
}

static void test_cues_and_emitters(void **state) {
    (void)state;
    ctl_cmd_t c;
    uint8_t buf[HL_MAX_FRAME];
    assert_int_equal(parse("cues", &c), 0);
    assert_int_equal(c.kind, CTL_CUES);
    assert_int_equal(c.op, HL_OP_CUES);
    assert_int_equal(ctl_encode(&c, buf, sizeof buf), 0);
    assert_int_equal(c.json, 0);
    assert_int_equal(parse("cues --json", &c), 0);
    assert_int_equal(c.json, 1);
    assert_int_equal(parse("stats --cues", &c), 0);
    assert_int_equal(c.kind, CTL_CUES);
    assert_int_equal(c.op, HL_OP_CUES);
    assert_int_equal(parse("stats --cues --json", &c), 0);
    assert_int_equal(c.json, 1);
    assert_int_equal(parse("stats --reset --cues", &c), -1);
    assert_int_equal(parse("stats --cues --reset", &c), -1);
    assert_int_equal(parse("cues extra", &c), -1);
    assert_int_equal(parse("cues --all", &c), -1);

    assert_int_equal(parse("cues load /etc/cues.ini", &c), 0);
    assert_int_equal(c.kind, CTL_CUES_LOAD);
    assert_int_equal(c.op, HL_OP_CUES_LOAD);
    assert_string_equal(c.m.cues_load.path, "/etc/cues.ini");
    assert_int_equal(parse("cues load no/such/cues.ini", &c), 0); /* absolute even if missing */
    assert_int_equal(c.m.cues_load.path[0], '/');
    assert_non_null(strstr(c.m.cues_load.path, "/no/such/cues.ini"));
    hl_cues_load_t cl;
    ENCODE_BACK(hl_cues_load_t, hl_get_cues_load, "cues load /x.ini", &cl);
    assert_string_equal(cl.path, "/x.ini");
    assert_int_equal(parse("cues load", &c), -1);
    assert_int_equal(parse("cues load a b", &c), -1);

    /* emitters: heliodctl's are detached */
    assert_int_equal(parse("emitter create car --pos 1,2,3", &c), 0);
    assert_int_equal(c.kind, CTL_EMITTER);
    assert_int_equal(c.op, HL_OP_EMITTER);
    assert_int_equal(c.m.emitter.action, HL_EMITTER_CREATE);
    assert_string_equal(c.m.emitter.name, "car");
    assert_int_equal(c.m.emitter.mask, HL_EM_POS | HL_EM_DETACHED);
    assert_true(c.m.emitter.pos[2] == 3.0f);
    assert_int_equal(parse("emitter create car --pos 1,2,3 --vel 0,0,-20", &c), 0);
    assert_int_equal(c.m.emitter.mask, HL_EM_POS | HL_EM_VEL | HL_EM_DETACHED);
    assert_true(c.m.emitter.vel[2] == -20.0f);
    hl_emitter_t em;
    ENCODE_BACK(hl_emitter_t, hl_get_emitter, "emitter set car --pos 4,5,6 --ramp 100", &em);
    assert_int_equal(em.action, HL_EMITTER_SET);
    assert_int_equal(em.mask, HL_EM_POS);
    assert_true(em.ramp_ms == 100.0f && em.pos[0] == 4.0f);
    assert_int_equal(parse("emitter set car --vel 1,0,0", &c), 0);
    assert_int_equal(c.m.emitter.mask, HL_EM_VEL);
    assert_int_equal(parse("emitter destroy car", &c), 0);
    assert_int_equal(c.kind, CTL_EMITTER_DESTROY);
    assert_int_equal(c.op, HL_OP_EMITTER);
    assert_true(c.m.emitter.fade_ms == -1.0f);
    assert_int_equal(parse("emitter destroy car --fade 300", &c), 0);
    assert_true(c.m.emitter.fade_ms == 300.0f);
    assert_int_equal(parse("emitter", &c), -1);
    assert_int_equal(parse("emitter move car --pos 1,2,3", &c), -1);
    assert_int_equal(parse("emitter create car", &c), -1); /* --pos required */
    assert_int_equal(parse("emitter create --pos 1,2,3", &c), -1);
    assert_int_equal(parse("emitter create car --pos 1,2", &c), -1);
    assert_int_equal(parse("emitter create car --pos 2e6,0,0", &c), -1);
    assert_int_equal(parse("emitter create car --pos 1,2,3 --ramp 5", &c), -1);
    assert_int_equal(parse("emitter set car", &c), -1); /* nothing to set */
    assert_int_equal(parse("emitter set car --pos 1,2,3 --ramp 60001", &c), -1);
    assert_int_equal(parse("emitter set car --pos", &c), -1);
    assert_int_equal(parse("emitter destroy car --fade -2", &c), -1);
    assert_int_equal(parse("emitter destroy car --pos 1,2,3", &c), -1);
    assert_int_equal(parse("emitter destroy a b", &c), -1);
    assert_int_equal(parse("emitter destroy b@d", &c), -1);

    /* play: emitter, velocity and the override bits */
    assert_int_equal(parse("play step", &c), 0);
    assert_int_equal(c.m.play.over, 0);
    assert_int_equal(c.m.play.emitter[0], '\0');
    assert_int_equal(parse("play step --emitter car --vel 1,2,3", &c), 0);
    assert_string_equal(c.m.play.emitter, "car");
    assert_true(c.m.play.vel[1] == 2.0f);
    assert_true(c.m.play.flags & HL_PLAY_3D);
    assert_int_equal(c.m.play.over, 0);
    assert_int_equal(parse("play step --priority 5", &c), 0);
    assert_int_equal(c.m.play.over, HL_OVER_PRIORITY);
    assert_int_equal(parse("play step --bus ui --fade-in 2 --pan 0.5", &c), 0);
    assert_int_equal(c.m.play.over, HL_OVER_BUS | HL_OVER_FADE_IN | HL_OVER_PAN);
    assert_int_equal(parse("play step --max-distance 50", &c), 0);
    assert_int_equal(c.m.play.over, HL_OVER_DISTANCE);
    assert_true(c.m.play.max_distance == 50.0f);
    assert_int_equal(parse("play step --min-dist 2", &c), 0);
    assert_int_equal(c.m.play.over, HL_OVER_DISTANCE);
    assert_int_equal(parse("play step --rolloff 2", &c), 0);
    assert_int_equal(c.m.play.over, HL_OVER_DISTANCE);
    assert_int_equal(parse("play step --model linear", &c), 0);
    assert_int_equal(c.m.play.over, HL_OVER_DISTANCE);
    assert_int_equal(parse("play step --gain -3 --pitch 2 --pos 1,0,0", &c), 0);
    assert_int_equal(c.m.play.over, 0); /* gain adds, pitch multiplies, pos is the play's */
    hl_play_t pl;
    ENCODE_BACK(hl_play_t, hl_get_play, "play step --emitter car --priority 3", &pl);
    assert_string_equal(pl.emitter, "car");
    assert_int_equal(pl.over, HL_OVER_PRIORITY);
    assert_int_equal(parse("play step --emitter", &c), -1);
    assert_int_equal(parse("play step --emitter 'c r'", &c), -1);
    assert_int_equal(parse("play step --vel 1,2", &c), -1);
    assert_int_equal(parse("play step --vel 1,2,nan", &c), -1);

    /* set --vel */
    assert_int_equal(parse("set 7 --vel 0,0,-10", &c), 0);
    assert_int_equal(c.m.set.mask, HL_SET_VEL);
    assert_true(c.m.set.vel[2] == -10.0f);
    assert_int_equal(parse("set 7 --vel 1,2", &c), -1);
    assert_int_equal(parse("set 7 --vel 2e6,0,0", &c), -1);

    /* pause / resume of a bus or a category */
    assert_int_equal(parse("pause --bus music", &c), 0);
    assert_int_equal(c.kind, CTL_PAUSE_ALL);
    assert_int_equal(c.op, HL_OP_PAUSE);
    assert_int_equal(c.m.pause.pause, 1);
    assert_int_equal(c.m.pause.scope, HL_PAUSE_BUS);
    assert_string_equal(c.m.pause.group, "music");
    hl_pause_t pz;
    ENCODE_BACK(hl_pause_t, hl_get_pause, "resume --category foot", &pz);
    assert_int_equal(pz.pause, 0);
    assert_int_equal(pz.scope, HL_PAUSE_CATEGORY);
    assert_string_equal(pz.group, "foot");
    assert_int_equal(parse("pause --bus", &c), -1);
    assert_int_equal(parse("pause --bus 'a b'", &c), -1);
    assert_int_equal(parse("pause --bus music --category foot", &c), -1);
    assert_int_equal(parse("pause --all --bus music", &c), -1);
    assert_int_equal(parse("pause 7 --category foot", &c), -1);
    assert_int_equal(parse("resume --category", &c), -1);
}

static void test_encode(void **state) {
    (void)state;
    ctl_cmd_t c;
    uint8_t buf[HL_MAX_FRAME];
    assert_int_equal(parse("play boom --gain -6", &c), 0);
    int n = ctl_encode(&c, buf, sizeof buf);
    assert_true(n > 0);
    hl_rbuf_t r;
    hl_rbuf_init(&r, buf, (size_t)n);
    hl_play_t m;
    hl_get_play(&r, &m);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_string_equal(m.sound, "boom");
    assert_true(m.gain_db == -6.0f);
    assert_int_equal(parse("ping", &c), 0);
    assert_int_equal(ctl_encode(&c, buf, sizeof buf), 0);
    assert_int_equal(parse("stop --all --fade 5", &c), 0);
    assert_int_equal(ctl_encode(&c, buf, sizeof buf), 5);
    assert_int_equal(ctl_encode(&c, buf, 4), HELIOD_ETOOBIG);
}

static void test_split(void **state) {
    (void)state;
    char *argv[CTL_MAX_ARGS];
    char l1[] = "  play boom   --gain -6\t--loop\n";
    assert_int_equal(ctl_split_line(l1, argv, CTL_MAX_ARGS, err, sizeof err), 5);
    assert_string_equal(argv[0], "play");
    assert_string_equal(argv[3], "-6");
    assert_string_equal(argv[4], "--loop");
    char l2[] = "# a comment";
    assert_int_equal(ctl_split_line(l2, argv, CTL_MAX_ARGS, err, sizeof err), 0);
    char l3[] = "   \t \r\n";
    assert_int_equal(ctl_split_line(l3, argv, CTL_MAX_ARGS, err, sizeof err), 0);
    char l4[] = "load x '/tmp/a b.wav' # trailing comment";
    assert_int_equal(ctl_split_line(l4, argv, CTL_MAX_ARGS, err, sizeof err), 3);
    assert_string_equal(argv[2], "/tmp/a b.wav");
    char l5[] = "load x \"/tmp/q\\\"uote.wav\" a\\ b";
    assert_int_equal(ctl_split_line(l5, argv, CTL_MAX_ARGS, err, sizeof err), 4);
    assert_string_equal(argv[2], "/tmp/q\"uote.wav");
    assert_string_equal(argv[3], "a b");
    char l6[] = "load x 'unterminated";
    assert_int_equal(ctl_split_line(l6, argv, CTL_MAX_ARGS, err, sizeof err), -1);
    char l7[] = "a b c d";
    assert_int_equal(ctl_split_line(l7, argv, 3, err, sizeof err), -1);
    char l8[] = "play x#notacomment";
    assert_int_equal(ctl_split_line(l8, argv, CTL_MAX_ARGS, err, sizeof err), 2);
    assert_string_equal(argv[1], "x#notacomment");
    char l9[] = "ping ''";
    assert_int_equal(ctl_split_line(l9, argv, CTL_MAX_ARGS, err, sizeof err), 2);
    assert_string_equal(argv[1], "");
}

static void test_graph(void **state) {
    (void)state;
    ctl_cmd_t c;
    assert_int_equal(parse("bus create reverb_hall --parent sfx", &c), 0);
    assert_int_equal(c.m.bus.mask, HL_BUS_CREATE);
    assert_string_equal(c.m.bus.parent, "sfx");
    assert_int_equal(parse("bus create world --parent master --gain -3 --mute", &c), 0);
    assert_int_equal(c.m.bus.mask, HL_BUS_CREATE | HL_BUS_GAIN | HL_BUS_MUTE);
    assert_string_equal(c.m.bus.parent, ""); /* master */
    assert_int_equal(parse("bus remove world", &c), 0);
    assert_int_equal(c.m.bus.mask, HL_BUS_REMOVE);
    assert_int_equal(parse("bus remove world --gain 1", &c), -1); /* remove goes alone */
    assert_int_equal(parse("bus world --parent music --unmute --ramp 50", &c), 0);
    assert_int_equal(c.m.bus.mask, HL_BUS_PARENT | HL_BUS_MUTE);
    assert_int_equal(c.m.bus.mute, 0);
    assert_int_equal(parse("bus world --parent world", &c), -1);
    assert_int_equal(parse("bus create master", &c), -1);
    assert_int_equal(parse("buses", &c), 0);
    assert_int_equal(c.op, HL_OP_BUSES);

    assert_int_equal(parse("fx add music eq --type peak --freq 1000 --q 1 --gain -6", &c), 0);
    assert_int_equal(c.kind, CTL_FX);
    assert_int_equal(c.m.fx.action, HL_FX_ADD);
    assert_int_equal(c.m.fx.kind, HL_FXK_EQ);
    assert_int_equal(c.m.fx.type, HL_EQ_PEAK);
    assert_int_equal(c.m.fx.mask, HL_FXP_TYPE | 0x7);
    assert_true(c.m.fx.p[0] == 1000.0f && c.m.fx.p[1] == 1.0f && c.m.fx.p[2] == -6.0f);
    assert_int_equal(c.m.fx.index, UINT32_MAX);
    assert_int_equal(parse("fx add master comp --at 0 --threshold -12 --ratio 3", &c), 0);
    assert_int_equal(c.m.fx.index, 0);
    assert_int_equal(c.m.fx.mask, 0x3);
    assert_int_equal(parse("fx add hall reverb --preset cave --dry 0", &c), 0);
    assert_int_equal(c.m.fx.type, HL_REV_CAVE);
    assert_int_equal(c.m.fx.mask, HL_FXP_TYPE | 0x20);
    assert_int_equal(parse("fx set music 2 eq --gain -3 --ramp 100", &c), 0);
    assert_int_equal(c.m.fx.action, HL_FX_SET);
    assert_int_equal(c.m.fx.index, 2);
    assert_true(c.m.fx.ramp_ms == 100.0f);
    assert_int_equal(parse("fx remove music 1", &c), 0);
    assert_int_equal(c.m.fx.action, HL_FX_REMOVE);
    assert_int_equal(parse("fx list", &c), 0);
    assert_int_equal(c.op, HL_OP_FX_LIST);
    assert_int_equal(parse("fx list music", &c), 0);
    assert_string_equal(c.m.name.name, "music");
    assert_int_equal(parse("fx add music eq --freq 5", &c), -1);     /* below 10 Hz */
    assert_int_equal(parse("fx add music eq --type notch", &c), -1); /* no such type */
    assert_int_equal(parse("fx add music comp --q 1", &c), -1);      /* not a comp param */
    assert_int_equal(parse("fx add music flanger", &c), -1);         /* no such kind */
    assert_int_equal(parse("fx set music eq --gain 1", &c), -1);     /* no INDEX */
    assert_int_equal(parse("fx add music reverb --wet 2", &c), -1);  /* range */
    assert_int_equal(parse("fx add music eq --gain", &c), -1);       /* no value */
    assert_int_equal(parse("fx spin music", &c), -1);

    assert_int_equal(parse("duck music --by dialog --depth 9 --attack 80 --release 600", &c), 0);
    assert_int_equal(c.kind, CTL_DUCK);
    assert_int_equal(c.m.duck.on, 1);
    assert_true(c.m.duck.depth_db == 9.0f && c.m.duck.hold_ms == HL_DUCK_HOLD_MS);
    assert_int_equal(parse("duck music --by dialog --voices", &c), 0);
    assert_true(c.m.duck.threshold_db == -144.0f);
    assert_int_equal(parse("duck music --by dialog --off", &c), 0);
    assert_int_equal(c.m.duck.on, 0);
    assert_int_equal(parse("duck music", &c), -1);
    assert_int_equal(parse("duck music --by music", &c), -1);
    assert_int_equal(parse("duck music --by dialog --depth -3", &c), -1);

    assert_int_equal(parse("play boom --occlusion 0.7 --send reverb_hall:-12 --send room:-6", &c),
                     0);
    assert_int_equal(c.m.play.over, HL_OVER_FILTER | HL_OVER_SENDS);
    assert_true(c.m.play.post.occlusion == 0.7f);
    assert_string_equal(c.m.play.post.send[1], "room");
    assert_true(c.m.play.post.send_db[1] == -6.0f);
    assert_int_equal(parse("play boom --send a:-1 --send b:-2 --send c:-3", &c), -1);
    assert_int_equal(parse("play boom --send hall", &c), -1);
    assert_int_equal(parse("play boom --occlusion 2", &c), -1);
    assert_int_equal(parse("set 7 --occlusion 0.2 --ramp 100", &c), 0);
    assert_int_equal(c.m.set.mask, HL_SET_OCCLUSION);
    assert_int_equal(parse("set 7 --lp 2000 --hp 100 --obstruction 1 --send hall:0", &c), 0);
    assert_int_equal(c.m.set.mask, HL_SET_LP | HL_SET_HP | HL_SET_OBSTRUCTION | HL_SET_SENDS);
    assert_int_equal(parse("set 7 --hp 30000", &c), -1);

    assert_int_equal(parse("bus amb --send reverb_hall:-9 --ramp 50", &c), 0);
    assert_int_equal(c.m.bus.mask, HL_BUS_SEND);
    assert_string_equal(c.m.bus.send, "reverb_hall");
    assert_true(c.m.bus.send_db == -9.0f);
    assert_int_equal(parse("bus amb --send reverb_hall:off", &c), 0);
    assert_true(c.m.bus.send_db == -144.0f);
    assert_int_equal(parse("bus amb --send amb:-3", &c), -1);    /* itself */
    assert_int_equal(parse("bus amb --send master:-3", &c), -1); /* the master */
    assert_int_equal(parse("bus master --send amb:-3", &c), -1); /* the master has none */
    assert_int_equal(parse("bus amb --send hall", &c), -1);

    assert_int_equal(parse("reverb-zone cave --pos 0,0,-30 --radius 12 --fade 6 --preset cave", &c),
                     0);
    assert_int_equal(c.kind, CTL_RZONE);
    assert_int_equal(c.m.rzone.action, HL_RZONE_SET);
    assert_true(c.m.rzone.pos[2] == -30.0f && c.m.rzone.radius == 12.0f && c.m.rzone.fade == 6.0f);
    assert_int_equal(c.m.rzone.preset, HL_REV_CAVE);
    assert_int_equal(parse("reverb-zone hall --pos 1,2,3 --radius 5 --bus verb --feed amb", &c), 0);
    assert_string_equal(c.m.rzone.bus, "verb");
    assert_string_equal(c.m.rzone.feed, "amb");
    assert_int_equal(c.m.rzone.preset, HL_REV_HALL); /* the default */
    assert_int_equal(parse("reverb-zone remove cave", &c), 0);
    assert_int_equal(c.m.rzone.action, HL_RZONE_REMOVE);
    assert_int_equal(parse("reverb-zone cave --radius 3", &c), -1); /* no --pos */
    assert_int_equal(parse("reverb-zone cave --pos 0,0,0 --radius 0", &c), -1);
    assert_int_equal(parse("reverb-zone cave --pos 0,0,0 --radius 1 --fade -1", &c), -1);
    assert_int_equal(parse("reverb-zone cave --pos 0,0,0 --radius 1 --preset plate", &c), -1);
    assert_int_equal(parse("reverb-zones", &c), 0);
    assert_int_equal(c.op, HL_OP_RZONES);
}

static void test_meter(void **state) {
    (void)state;
    ctl_cmd_t c;
    uint8_t b[64];
    assert_int_equal(parse("meter", &c), 0);
    assert_int_equal(c.kind, CTL_METER);
    assert_int_equal(c.op, HL_OP_SUBSCRIBE);
    assert_true(c.m.meter.hz == 0.0f && c.m.meter.count == 0);
    /* the body: the METER bit alone, and the rate */
    int n = ctl_encode(&c, b, sizeof b);
    assert_int_equal(n, 8);
    hl_rbuf_t r;
    hl_rbuf_init(&r, b, (size_t)n);
    hl_subscribe_t m;
    hl_get_subscribe(&r, &m);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_int_equal(m.mask, HL_SUB_METER);
    assert_true(m.meter_hz == 0.0f);
    assert_int_equal(parse("meter --rate 50 --count 3 --json", &c), 0);
    assert_true(c.m.meter.hz == 50.0f && c.m.meter.count == 3 && c.json);
    n = ctl_encode(&c, b, sizeof b);
    hl_rbuf_init(&r, b, (size_t)n);
    hl_get_subscribe(&r, &m);
    assert_true(m.meter_hz == 50.0f);
    assert_int_equal(parse("meter --rate=1", &c), 0);
    assert_int_equal(parse("meter --rate 100", &c), 0);
    assert_int_equal(parse("meter --rate 0", &c), -1);
    assert_int_equal(parse("meter --rate 0.5", &c), -1);
    assert_int_equal(parse("meter --rate 101", &c), -1);
    assert_int_equal(parse("meter --rate x", &c), -1);
    assert_int_equal(parse("meter --count 0", &c), -1);
    assert_int_equal(parse("meter --count -1", &c), -1);
    assert_int_equal(parse("meter --count", &c), -1);
    assert_int_equal(parse("meter sfx", &c), -1);
    /* watch never asks for meters: they have their own command */
    assert_int_equal(parse("watch", &c), 0);
    n = ctl_encode(&c, b, sizeof b);
    hl_rbuf_init(&r, b, (size_t)n);
    hl_get_subscribe(&r, &m);
    assert_int_equal(m.mask & HL_SUB_METER, 0);
    assert_int_equal(m.mask, HL_SUB_MASK & ~HL_SUB_METER);
    assert_non_null(strstr(ctl_usage("meter"), "--rate HZ"));
    assert_non_null(strstr(ctl_usage("meter"), "--count N"));
}

static void test_usage(void **state) {
    (void)state;
    assert_non_null(strstr(ctl_usage(NULL), "usage: heliodctl"));
    /* the tool's help lists every command */
    const char *all[] = {"status",   "devices", "load",        "unload",      "sounds",   "play",
                         "stop",     "set",     "pause",       "resume",      "listener", "bus",
                         "voices",   "stats",   "ping",        "watch",       "batch",    "cue",
                         "category", "cues",    "emitter",     "buses",       "fx",       "duck",
                         "ducks",    "meter",   "reverb-zone", "reverb-zones"};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        char line[32];
        snprintf(line, sizeof line, "\n  %s ", all[k]);
        assert_non_null(strstr(ctl_usage(NULL), line));
    }
    assert_non_null(strstr(ctl_usage("play"), "--max-dist"));
    assert_non_null(strstr(ctl_usage("stop"), "--all"));
    assert_non_null(strstr(ctl_usage("cue"), "--overflow"));
    assert_non_null(strstr(ctl_usage("cue"), "steal-lowest-priority"));
    assert_non_null(strstr(ctl_usage("category"), "--max-instances"));
    assert_non_null(strstr(ctl_usage("cues"), "cues load FILE"));
    assert_non_null(strstr(ctl_usage("emitter"), "destroy ID [--fade MS]"));
    assert_non_null(strstr(ctl_usage("play"), "--emitter"));
    assert_non_null(strstr(ctl_usage("set"), "--vel"));
    assert_non_null(strstr(ctl_usage("pause"), "--category"));
    assert_non_null(strstr(ctl_usage("stats"), "--cues"));
    assert_non_null(strstr(ctl_usage("nope"), "usage: heliodctl"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_global),
        cmocka_unit_test(test_play),
        cmocka_unit_test(test_play_wait_same_request),
        cmocka_unit_test(test_other_commands),
        cmocka_unit_test(test_streaming_options),
        cmocka_unit_test(test_cue),
        cmocka_unit_test(test_cues_and_emitters),
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_graph),
        cmocka_unit_test(test_meter),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
