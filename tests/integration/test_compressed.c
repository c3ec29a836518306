/*
 * test_compressed.c - sounds kept compressed in memory (LOAD
 * HL_LOAD_COMPRESSED, `load --compressed`) and pack files
 * (`FILE@OFFSET+LENGTH`), through the real daemon: `heliod --render` runs
 * the scores (deterministic, faster than real time, parsed by heliodctl's
 * own parser), a daemon on the null driver answers the error cases.
 *
 * - FLAC, Ogg Vorbis and Ogg Opus kept compressed play sample for sample
 *   what the same file decoded and preloaded plays, also across the end of
 *   the prefetched head (with pitch, looping over it, shorter than it); the
 *   head is charged as sample memory and a play at frame 0 starts from it;
 *   pitched through the 44.1 kHz resampler at 1.25 it plays the same
 *   samples whatever frame it starts at, compressed or streamed;
 * - at pitches that are no multiple of 2^-12 (1.3, 0.77), linear, cubic and
 *   sinc, mono, stereo and 3D, looping (crossfaded too), seeking, to the
 *   sound's end: kept
 *   compressed, streamed and preloaded play the same samples, bit for bit,
 *   with each instruction set's kernels (HELIOD_ISA=generic|avx2|avx512);
 * - seek, loop points, loop count and pitch render byte for byte as the same
 *   file streamed from disk, and a seek lands on its source frame (±1);
 * - a corrupt compressed file is EDECODE (at load, or when a voice opens
 *   it) and the daemon plays on;
 * - pack-file ranges: a sound inside a pack plays as the file on its own,
 *   preloaded, streamed or compressed; a range outside the file is EINVAL
 *   naming the range, an overflowing one is refused.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"

#define RATE  48000
#define LEN   24000 /* frames of each test sound (0.5 s) */
#define JUNK  777   /* bytes before the first sound in the pack */
#define FADE  64    /* HL_SEEK_FADE: a seek fades the old position out, then jumps */
#define SHORT 3000  /* frames of a sound shorter than the prefetched head */
#define HEAD  8192  /* HLD_HEAD_FRAMES: a compressed sound's prefetched head */
#define ELEN  9600  /* frames of test_exact_pitches' sounds: past the head */

static char g_dir[256];

static void path_of(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", g_dir, name);
}

/* Deterministic noise plus a tone: no two offsets look alike (the seek
 * check aligns on it), and the first frame is not silent. */
static void gen_noise(void *user, uint32_t i, float *out, int ch) {
    (void)user;
    uint32_t x = i * 2654435761u + 12345u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    float n = (float)((double)(x & 0xffff) / 65535.0 - 0.5);
    for (int c = 0; c < ch; c++)
        out[c] = 0.3f * n + (float)(0.2 * sin(2.0 * M_PI * (331.0 + 40 * c) * i / RATE)) + 0.05f;
}

static long file_size(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* Appends the bytes of src to f. */
static void append(FILE *f, const char *src) {
    FILE *s = fopen(src, "rb");
    assert_non_null(s);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, s)) > 0)
        assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(s);
}

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/heliod-comp-XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    static const struct {
        const char *name;
        int format;
    } files[] = {
        {"s.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24},
        {"s.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS},
        {"s.opus", SF_FORMAT_OGG | SF_FORMAT_OPUS},
    };
    char p[300];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        path_of(p, sizeof p, files[i].name);
        if (th_write_sound(p, files[i].format, 2, RATE, LEN, gen_noise, NULL) != 0) return -1;
    }
    /* shorter than the prefetched head (HLD_HEAD_FRAMES, 8192): played from it alone */
    path_of(p, sizeof p, "short.opus");
    if (th_write_sound(p, SF_FORMAT_OGG | SF_FORMAT_OPUS, 2, RATE, SHORT, gen_noise, NULL) != 0)
        return -1;
    /* at 44.1 kHz: the head goes through the resampler */
    path_of(p, sizeof p, "s44.ogg");
    if (th_write_sound(p, SF_FORMAT_OGG | SF_FORMAT_VORBIS, 2, 44100, LEN, gen_noise, NULL) != 0)
        return -1;
    path_of(p, sizeof p, "e.flac"); /* short ones: test_exact_pitches */
    if (th_write_sound(p, SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 2, RATE, ELEN, gen_noise, NULL) != 0)
        return -1;
    path_of(p, sizeof p, "m.flac"); /* mono: the mono kernels */
    if (th_write_sound(p, SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 1, RATE, ELEN, gen_noise, NULL) != 0)
        return -1;
    path_of(p, sizeof p, "long.flac");
    if (th_write_sound(p, SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 2, RATE, 4 * LEN, gen_noise, NULL) !=
        0)
        return -1;
    /* the pack: junk, the FLAC, the Ogg */
    path_of(p, sizeof p, "game.pak");
    FILE *f = fopen(p, "wb");
    if (!f) return -1;
    for (int i = 0; i < JUNK; i++)
        fputc(i * 7 & 0xff, f);
    char src[300];
    path_of(src, sizeof src, "s.flac");
    append(f, src);
    path_of(src, sizeof src, "s.ogg");
    append(f, src);
    fclose(f);
    /* a corrupt one: an Ogg header over garbage */
    path_of(p, sizeof p, "bad.ogg");
    f = fopen(p, "wb");
    if (!f) return -1;
    fputs("OggS", f);
    for (int i = 0; i < 5000; i++)
        fputc((i * 131 + 7) & 0xff, f);
    fclose(f);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* heliod --render SCORE --out OUT [--voices N]: its exit status. */
static int render(const char *score, const char *out, const char *voices) {
    char log[300];
    path_of(log, sizeof log, "render.log");
    const char *const args[] = {"--voices", voices, NULL};
    return th_render(score, out, log, voices ? args : NULL);
}

/* Renders the score text; the interleaved stereo output (caller frees). */
static float *render_voices(const char *name, const char *text, const char *voices,
                            size_t *frames) {
    char score[300], out[310];
    path_of(score, sizeof score, name);
    snprintf(out, sizeof out, "%s.wav", score);
    FILE *f = fopen(score, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(render(score, out, voices), 0);
    float *x = NULL;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(out, &x, frames, &ch, &rate), 0);
    assert_int_equal(ch, 2);
    return x;
}

static float *render_text(const char *name, const char *text, size_t *frames) {
    return render_voices(name, text, NULL, frames);
}

/* Frames [a, a + n) and [b, b + n) of x are the same, bit for bit. */
static void assert_same(const float *x, size_t frames, size_t a, size_t b, size_t n,
                        const char *what) {
    assert_true(a + n <= frames && b + n <= frames);
    size_t diff = 0, loud = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        if (memcmp(&x[2 * a + i], &x[2 * b + i], sizeof(float)) != 0) diff++;
        if (fabsf(x[2 * a + i]) > 0.05f) loud++;
    }
    print_message("%s: %zu frames compared, %zu samples differ, %zu loud\n", what, n, diff, loud);
    assert_true(loud > n / 2); /* there is sound to compare */
    assert_int_equal(diff, 0);
}

/* Compressed FLAC, Vorbis and Opus play what the preloaded decode plays.
 * Then the prefetched head (decoder.h): a compressed voice starting at
 * frame 0 plays its first HEAD frames from the head while a decoder thread
 * opens the bytes and decodes on from the head's end; across that boundary
 * it still plays what the preloaded decode plays: Opus (a lossy codec's
 * decoder state) with pitch, FLAC looping over the boundary with pitch, an
 * Opus shorter than the head looping from it alone, a 44.1 kHz Vorbis (the
 * head through the stream's resampler). FLAC looping with a crossfade whose
 * prefix is in the head (XF1) or after it (XF2: read when the decoder
 * resumes) plays what the stream from disk plays. */
#define XF1 "--fade-in 0 --loop-start 3000 --loop-end 7000 --loop-count 1 --xfade 10"
#define XF2 "--fade-in 0 --loop-start 10000 --loop-end 16000 --loop-count 1 --xfade 20"
static void test_equals_preloaded(void **state) {
    (void)state;
    char t[8192];
    char fl[300], og[300], op[300], sh[300], o4[300];
    path_of(fl, sizeof fl, "s.flac");
    path_of(og, sizeof og, "s.ogg");
    path_of(op, sizeof op, "s.opus");
    path_of(sh, sizeof sh, "short.opus");
    path_of(o4, sizeof o4, "s44.ogg");
    snprintf(t, sizeof t,
             "load pf %s\nload cf %s --compressed\n"
             "load pv %s\nload cv %s --compressed\n"
             "load po %s\nload co %s --compressed\n"
             "load ps %s\nload cs %s --compressed\n"
             "load p4 %s\nload c4 %s --compressed\nload sf %s --stream\n"
             "@1000 play pf --fade-in 0\n@30000 play cf --fade-in 0\n"
             "@60000 play pv --fade-in 0\n@90000 play cv --fade-in 0\n"
             "@120000 play po --fade-in 0\n@150000 play co --fade-in 0\n"
             "@180000 play po --fade-in 0 --pitch 1.5\n@200000 play co --fade-in 0 --pitch 1.5\n"
             "@220000 play pf --fade-in 0 --pitch 1.25 --loop-start 6000 --loop-end 12000 "
             "--loop-count 2\n"
             "@250000 play cf --fade-in 0 --pitch 1.25 --loop-start 6000 --loop-end 12000 "
             "--loop-count 2\n"
             "@280000 play ps --fade-in 0 --loop-count 5\n"
             "@300000 play cs --fade-in 0 --loop-count 5\n"
             "@320000 play p4 --fade-in 0\n@350000 play c4 --fade-in 0\n"
             "@380000 play sf " XF1 "\n@409000 play cf " XF1 "\n"
             "@438000 play sf " XF2 "\n@469000 play cf " XF2 "\n"
             "load s4 %s --stream\n"
             "@500000 play p4 --fade-in 0 --pitch 1.25\n@524003 play c4 --fade-in 0 --pitch 1.25\n"
             "@548101 play c4 --fade-in 0 --pitch 1.25\n@572005 play s4 --fade-in 0 --pitch 1.25\n"
             "@596000 end\n",
             fl, fl, og, og, op, op, sh, sh, o4, o4, fl, o4);
    size_t frames = 0;
    float *x = render_text("equal.txt", t, &frames);
    assert_same(x, frames, 1000, 30000, LEN, "FLAC compressed vs preloaded");
    assert_same(x, frames, 60000, 90000, LEN, "Vorbis compressed vs preloaded");
    assert_same(x, frames, 120000, 150000, LEN, "Opus compressed vs preloaded");
    assert_same(x, frames, 180000, 200000, LEN * 2 / 3, "Opus from the head on, pitch 1.5");
    assert_same(x, frames, 220000, 250000, (LEN + 2 * 6000) * 4 / 5,
                "FLAC looping across the head's end, pitch 1.25");
    assert_same(x, frames, 280000, 300000, 6 * SHORT, "Opus shorter than the head, 6 passes");
    assert_same(x, frames, 320000, 350000, 20000, "44.1 kHz Vorbis (resampled) vs preloaded");
    assert_same(x, frames, 380000, 409000, LEN + 4000, "FLAC loop crossfade inside the head");
    assert_same(x, frames, 438000, 469000, LEN + 6000, "FLAC loop crossfade after the head");
    /* pitched through the 44.1 kHz resampler, started at frames of every
     * phase in the block: the same samples (a run's end, where a block or a
     * ring refill cuts it, does not change a frame) */
    const size_t n44 = (size_t)((double)LEN * RATE / 44100 / 1.25) - 300;
    assert_same(x, frames, 500000, 524003, n44, "44.1 kHz Vorbis compressed at 1.25, start 1");
    assert_same(x, frames, 500000, 548101, n44, "44.1 kHz Vorbis compressed at 1.25, start 2");
    assert_same(x, frames, 500000, 572005, n44, "44.1 kHz Vorbis streamed at 1.25");
    free(x);
}

/* One past the last frame of [a, a + n) that is not silent. */
static size_t last_sound(const float *x, size_t a, size_t n) {
    size_t e = a + n;
    while (e > a && x[2 * e - 2] == 0.0f && x[2 * e - 1] == 0.0f)
        e--;
    return e;
}

/* Voices at pitches whose step is no multiple of 2^-12, each played
 * preloaded (P), kept compressed (C) and streamed (S), one after the
 * other, each to its end: name, options, frames of output a play takes
 * (its slot: whole blocks, so that a fade-in's ramp meets the same block
 * boundaries). The seek comes first: its voice is handle 1, 2, 3. */
static const struct {
    const char *what, *sound, *opts;
    size_t slot;
} g_exact[] = {
    {"stereo, linear 0.77, seek", "f", "--pitch 0.77", 9216},
    {"stereo, linear 1.3, fade-in", "f", "--pitch 1.3 --fade-in 30", 7680},
    {"stereo, cubic 0.77", "f", "--pitch 0.77 --interp cubic", 12800},
    {"mono, linear 1.3", "m", "--pitch 1.3", 7680},
    {"mono, cubic 1.3, looping", "m",
     "--pitch 1.3 --interp cubic --loop-start 1000 --loop-end 6000 --loop-count 1", 11520},
    {"stereo 3D, cubic 0.77", "f", "--pitch 0.77 --interp cubic --pos 0.6,0,-0.6", 12800},
    {"stereo, sinc 1.3, looping, crossfade", "f",
     "--pitch 1.3 --interp sinc --loop-start 2000 --loop-end 7000 --loop-count 1 --xfade 20",
     11776},
    {"mono, sinc 0.77", "m", "--pitch 0.77 --interp sinc", 12800},
};
#define NEXACT (sizeof g_exact / sizeof g_exact[0])

/* Preloaded, compressed and streamed play the same samples bit for bit at
 * those pitches, start and end of the sound, loop points and a seek
 * included, with each instruction set's kernels (the CPU's best when it
 * lacks one: the daemon falls back). */
static void test_exact_pitches(void **state) {
    (void)state;
    static const char *const isa[] = {"generic", "avx2", "avx512"};
    char t[8192], fl[300], mo[300];
    path_of(fl, sizeof fl, "e.flac");
    path_of(mo, sizeof mo, "m.flac");
    int len = snprintf(t, sizeof t,
                       "load Pf %s\nload Cf %s --compressed\nload Sf %s --stream\n"
                       "load Pm %s\nload Cm %s --compressed\nload Sm %s --stream\n",
                       fl, fl, fl, mo, mo, mo);
    size_t at = 1000, start[NEXACT][3];
    for (size_t c = 0; c < NEXACT; c++)
        for (int k = 0; k < 3; k++) {
            start[c][k] = at;
            len += snprintf(t + len, sizeof t - (size_t)len, "@%zu play %c%s --fade-in 0 %s\n", at,
                            "PCS"[k], g_exact[c].sound, g_exact[c].opts);
            if (c == 0) /* the seek, 2000 frames in, to frame 4800 */
                len += snprintf(t + len, sizeof t - (size_t)len, "@%zu set %llu --seek 0.1\n",
                                at + 2000, (unsigned long long)(k + 1) << 32);
            at += g_exact[c].slot;
        }
    snprintf(t + len, sizeof t - (size_t)len, "@%zu end\n", at);
    for (int i = 0; i < 3; i++) {
        setenv("HELIOD_ISA", isa[i], 1); /* for the renderer only */
        size_t frames = 0;
        float *x = render_text("exact.txt", t, &frames);
        unsetenv("HELIOD_ISA");
        for (size_t c = 0; c < NEXACT; c++)
            for (int k = 1; k < 3; k++) {
                char what[128];
                snprintf(what, sizeof what, "%s: %s %s vs preloaded", isa[i], g_exact[c].what,
                         k == 1 ? "compressed" : "streamed");
                size_t a = start[c][0], b = start[c][k], n = g_exact[c].slot;
                if (c == 0) { /* a stream seeks later: the last 4000 frames, aligned on the end */
                    a = last_sound(x, a, n) - 4000;
                    b = last_sound(x, b, n) - 4000;
                    n = 4000;
                }
                assert_same(x, frames, a, b, n, what);
            }
        free(x);
    }
}

/* The score of a seek, a loop and a pitched loop, with `how` as the load
 * option (--compressed or --stream). Handles: the only voice then playing
 * takes logical voice 0, generation 1, 2, 3 in turn. */
static float *render_moves(const char *name, const char *how, size_t *frames) {
    char t[4096], fl[300];
    path_of(fl, sizeof fl, "s.flac");
    snprintf(t, sizeof t,
             "load s %s %s\n"
             "@1000 play s --fade-in 0\n"
             "@6000 set %llu --seek 0.25\n"
             "@40000 play s --fade-in 0 --loop-start 4000 --loop-end 9000 --loop-count 2\n"
             "@80000 play s --fade-in 0 --pitch 1.5 --loop-start 1000 --loop-end 20000 "
             "--loop-count 1\n"
             "@120000 end\n",
             fl, how, (unsigned long long)(1ull << 32));
    return render_text(name, t, frames);
}

/* Seek, loop points, loop count and pitch: compressed renders what the
 * file streamed from disk renders, byte for byte; and the seek lands on
 * source frame 12000 (±1) where the new position starts to sound. */
static void test_seek_loop_pitch(void **state) {
    (void)state;
    size_t fc = 0, fs = 0;
    float *c = render_moves("moves_c.txt", "--compressed", &fc);
    float *s = render_moves("moves_s.txt", "--stream", &fs);
    assert_int_equal(fc, fs);
    size_t diff = 0;
    for (size_t i = 0; i < 2 * fc; i++)
        if (memcmp(&c[i], &s[i], sizeof(float)) != 0) diff++;
    print_message("compressed vs streamed (seek, loops, pitch): %zu frames, %zu samples differ\n",
                  fc, diff);
    assert_int_equal(diff, 0);
    /* the loop region really repeats: 2 extra passes of 5000 frames */
    size_t a = 40000 + 9000, b = a + 5000;
    assert_same(c, fc, a, b, 5000, "loop pass 1 vs pass 2");
    /* seek accuracy: the source itself, decoded */
    char fl[300];
    path_of(fl, sizeof fl, "s.flac");
    float *src = NULL;
    size_t sn = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(fl, &src, &sn, &ch, &rate), 0);
    assert_int_equal(ch, 2);
    /* the voice's gain per channel, from a frame before the seek
     * (out[t] = g * src[t - 1000]) */
    size_t t0 = 3000;
    double g = c[2 * t0] / src[2 * (t0 - 1000)];
    assert_true(g > 0.3 && g < 1.5);
    /* where the output leaves the old position: the fade-out, FADE frames
     * before the jump */
    size_t sw = 0;
    for (size_t t = t0; t < 12000 && !sw; t++)
        if (fabs(c[2 * t] - g * src[2 * (t - 1000)]) > 1e-4) sw = t;
    assert_true(sw > 0);
    /* well after it (any crossfade over), out[t] = g * src[t + k] for one k */
    long best_k = 0;
    double best = INFINITY;
    for (long k = 11000 - (long)sw - 2000; k < 13000 - (long)sw + 2000; k++) {
        double e = 0;
        for (size_t t = sw + 2400; t < sw + 4400; t++)
            e += fabs(c[2 * t] - g * src[2 * (size_t)((long)t + k)]);
        if (e < best) {
            best = e;
            best_k = k;
        }
    }
    long landed = (long)sw + FADE + best_k; /* the source frame heard after the jump */
    print_message("seek to frame 12000: fade-out from output frame %zu, then source frame %ld "
                  "(error %.3g over 2000 frames)\n",
                  sw, landed, best);
    assert_true(best < 1e-2);
    assert_true(labs(landed - 12000) <= 1);
    free(src);
    free(c);
    free(s);
}

/* A virtual voice of a compressed sound: with one real voice, a louder
 * play takes it (the compressed voice goes virtual and keeps time), and
 * when that one stops the compressed voice comes back real at its place:
 * what the same file streamed from disk renders, byte for byte, and from a
 * few periods after it is back, exactly what it would have played had it
 * never gone virtual. */
static float *render_virtual(const char *name, const char *how, int interrupt, size_t *frames) {
    char t[4096], lg[300], og[300];
    path_of(lg, sizeof lg, "long.flac");
    path_of(og, sizeof og, "s.ogg");
    int n =
        snprintf(t, sizeof t, "load s %s %s\nload d %s\n@1000 play s --fade-in 0 --priority 1\n",
                 lg, how, og);
    if (interrupt)
        n += snprintf(t + n, sizeof t - (size_t)n,
                      "@5000 play d --fade-in 0 --priority 900 --loop\n"
                      "@20000 stop %llu --fade 0\n",
                      (unsigned long long)((1ull << 32) | 1));
    snprintf(t + n, sizeof t - (size_t)n, "@80000 end\n");
    return render_voices(name, t, "1", frames);
}

static void test_virtual(void **state) {
    (void)state;
    size_t fb = 0, fc = 0, fs = 0;
    float *base = render_virtual("virt_base.txt", "--compressed", 0, &fb);
    float *c = render_virtual("virt_c.txt", "--compressed", 1, &fc);
    float *s = render_virtual("virt_s.txt", "--stream", 1, &fs);
    assert_true(fb == fc && fc == fs);
    assert_memory_equal(c, s, fc * 2 * sizeof(float));
    /* virtual meanwhile: the other sound plays, not this one */
    size_t diff = 0;
    for (size_t i = 2 * 5000; i < 2 * 20000; i++)
        if (c[i] != base[i]) diff++;
    /* back: from some frame on, exactly the uninterrupted voice */
    size_t back = fc;
    while (back > 20000 &&
           memcmp(&c[2 * (back - 1)], &base[2 * (back - 1)], 2 * sizeof(float)) == 0)
        back--;
    print_message("virtual compressed voice: %zu samples differ while virtual; the uninterrupted "
                  "signal again from frame %zu (real again at 20000)\n",
                  diff, back);
    assert_true(diff > 15000);
    assert_true(back > 20000 && back < 20000 + 4096); /* a stream open, a fade-in */
    free(base);
    free(c);
    free(s);
}

/* A sound inside a pack file plays as the file on its own: preloaded,
 * streamed and compressed. */
static void test_pack_plays(void **state) {
    (void)state;
    char fl[300], og[300], pak[300], t[4096];
    path_of(fl, sizeof fl, "s.flac");
    path_of(og, sizeof og, "s.ogg");
    path_of(pak, sizeof pak, "game.pak");
    long nf = file_size(fl), no = file_size(og);
    assert_true(nf > 0 && no > 0);
    snprintf(t, sizeof t,
             "load f %s\nload v %s\n"
             "load pf %s@%d+%ld\nload sf %s@%d+%ld --stream\nload cv %s@%ld --compressed\n"
             "@1000 play f --fade-in 0\n@30000 play pf --fade-in 0\n"
             "@60000 play sf --fade-in 0\n"
             "@90000 play v --fade-in 0\n@120000 play cv --fade-in 0\n"
             "@150000 end\n",
             fl, og, pak, JUNK, nf, pak, JUNK, nf, pak, JUNK + nf);
    size_t frames = 0;
    float *x = render_text("pack.txt", t, &frames);
    assert_same(x, frames, 1000, 30000, LEN, "pack FLAC preloaded vs the file");
    assert_same(x, frames, 1000, 60000, LEN, "pack FLAC streamed vs the file");
    assert_same(x, frames, 90000, 120000, LEN, "pack Ogg (to the end) compressed vs the file");
    free(x);
}

/* The text form PATH@OFFSET+LENGTH (hl_pack_split: heliodctl, scores,
 * bank manifests). */
static void test_pack_split(void **state) {
    (void)state;
    char p[64];
    uint64_t off = 9, len = 9;
    assert_int_equal(hl_pack_split("/a/b.ogg", p, sizeof p, &off, &len), 0);
    assert_string_equal(p, "/a/b.ogg");
    assert_true(off == 0 && len == 0);
    assert_int_equal(hl_pack_split("/a/g.pak@1024+300", p, sizeof p, &off, &len), 1);
    assert_string_equal(p, "/a/g.pak");
    assert_true(off == 1024 && len == 300);
    assert_int_equal(hl_pack_split("/a/g.pak@77", p, sizeof p, &off, &len), 1);
    assert_true(off == 77 && len == 0);
    /* not a range: the whole text is the path */
    assert_int_equal(hl_pack_split("/a/me@home.ogg", p, sizeof p, &off, &len), 0);
    assert_string_equal(p, "/a/me@home.ogg");
    assert_int_equal(hl_pack_split("/a/x@1+2+3", p, sizeof p, &off, &len), 0);
    assert_int_equal(hl_pack_split("/a/x@+5", p, sizeof p, &off, &len), 0);
    assert_int_equal(hl_pack_split("/a/x@5+", p, sizeof p, &off, &len), 0);
    /* refused */
    assert_int_equal(hl_pack_split("/a/x@5+0", p, sizeof p, &off, &len), -1);
    assert_int_equal(hl_pack_split("/a/x@18446744073709551615+1", p, sizeof p, &off, &len), -1);
    assert_int_equal(hl_pack_split("/a/x@18446744073709551616", p, sizeof p, &off, &len), -1);
    assert_int_equal(hl_pack_split("/a/x@18446744073709551614+1", p, sizeof p, &off, &len), 1);
    assert_int_equal(hl_pack_split("/a/very/long/path.ogg", p, 8, &off, &len), -1);
}

/* A bank's sound kept compressed from inside a pack file; a bank whose
 * range is outside its pack fails naming it. */
static void test_bank(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    char fl[300], man[300], man2[300];
    path_of(fl, sizeof fl, "s.flac");
    path_of(man, sizeof man, "level.ini");
    path_of(man2, sizeof man2, "broken.ini");
    FILE *f = fopen(man, "w");
    assert_non_null(f);
    fprintf(f,
            "name = level\n[sound packed]\npath = game.pak@%d+%ld\ncompressed = yes\n"
            "[sound tail]\npath = game.pak@%ld\n",
            JUNK, file_size(fl), JUNK + file_size(fl));
    fclose(f);
    f = fopen(man2, "w");
    assert_non_null(f);
    fprintf(f, "name = broken\n[sound far]\npath = game.pak@99999999+10\ncompressed = yes\n");
    fclose(f);
    char out_s[4096], err_s[2048];
    const char *a1[] = {"bank", "load", man, NULL};
    assert_int_equal(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a1), 0);
    const char *a2[] = {"sounds", NULL};
    assert_int_equal(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a2), 0);
    print_message("bank sounds:\n%s", out_s);
    assert_non_null(strstr(out_s, "packed"));
    assert_non_null(strstr(out_s, "tail"));
    const char *a3[] = {"play", "packed", NULL};
    assert_int_equal(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a3), 0);
    const char *a4[] = {"bank", "load", man2, NULL};
    int rc = th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a4);
    const char *a5[] = {"banks", NULL};
    assert_int_equal(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a5), 0);
    print_message("broken bank: rc %d, %s; banks:\n%s", rc, err_s, out_s);
    assert_non_null(strstr(out_s, "outside"));
    /* a world zone estimates its bank's size from the headers: at the
     * range's offset, the encoded size for a compressed sound */
    const char *z1[] = {"zone",  "add",       "far",      "--bank", man,
                        "--pos", "0,0,-5000", "--radius", "10",     NULL};
    rc = th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, z1);
    print_message("zone over the pack's bank: rc %d %s%s", rc, out_s, err_s);
    assert_int_equal(rc, 0);
    const char *z2[] = {"zone",  "add",       "farther",  "--bank", man2,
                        "--pos", "0,0,-9000", "--radius", "10",     NULL};
    rc = th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, z2);
    print_message("zone over the broken bank: rc %d %s", rc, err_s);
    assert_true(rc != 0);
    assert_non_null(strstr(err_s, "outside"));
    assert_true(th_daemon_alive(&d));
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

/* ---- the wire, by hand: what a client that skips libheliod's checks sends */

static void raw_send(int fd, const uint8_t *p, size_t len) {
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        assert_true(n > 0);
        p += n;
        len -= (size_t)n;
    }
}

static void raw_recv(int fd, uint8_t *p, size_t len) {
    while (len) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        assert_true(poll(&pf, 1, 5000) == 1);
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR) continue;
        assert_true(n > 0);
        p += n;
        len -= (size_t)n;
    }
}

/* Sends a HELLO (1.1) or a LOAD and returns the reply's status (msg: its text). */
static int32_t raw_request(int fd, uint16_t op, const void *m, uint32_t id, char *msg, size_t cap) {
    static uint8_t out[HL_MAX_FRAME], in[HL_MAX_FRAME];
    hl_wbuf_t w;
    hl_wbuf_init(&w, out, sizeof out);
    hl_frame_begin(&w, op, 0, id);
    if (op == HL_OP_HELLO)
        hl_put_hello(&w, m);
    else
        hl_put_load(&w, m);
    int n = hl_frame_end(&w);
    assert_true(n > 0);
    raw_send(fd, out, (size_t)n);
    for (;;) {
        raw_recv(fd, in, HL_FRAME_HDR);
        hl_frame_hdr_t h;
        assert_int_equal(hl_frame_peek(in, HL_FRAME_HDR, &h), 0);
        raw_recv(fd, in + HL_FRAME_HDR, h.size - HL_FRAME_HDR);
        if (h.op != HL_OP_REPLY || h.id != id) continue;
        hl_rbuf_t r;
        hl_rbuf_init(&r, in + HL_FRAME_HDR, h.size - HL_FRAME_HDR);
        hl_reply_head_t rh;
        hl_get_reply_head(&r, &rh);
        msg[0] = 0;
        if (rh.status < 0) hl_get_str(&r, msg, cap);
        return rh.status;
    }
}

/* LOAD's offset and length on the wire: an overflowing range is EINVAL
 * before anything is opened; past the end of the file, EINVAL naming it. */
static void test_wire_ranges(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    int fd = th_raw_connect(d.sock);
    assert_true(fd >= 0);
    char msg[HL_MAX_MSG + 1];
    hl_hello_t hello = {.version = HL_PROTO_VERSION, .minor = 1};
    snprintf(hello.client_name, sizeof hello.client_name, "wire");
    assert_int_equal(raw_request(fd, HL_OP_HELLO, &hello, 1, msg, sizeof msg), 0);
    hl_load_t l;
    memset(&l, 0, sizeof l);
    snprintf(l.name, sizeof l.name, "w");
    path_of(l.path, sizeof l.path, "game.pak");
    l.offset = UINT64_MAX - 3;
    l.length = 10;
    assert_int_equal(raw_request(fd, HL_OP_LOAD, &l, 2, msg, sizeof msg), HELIOD_EINVAL);
    print_message("wire range overflowing: %s\n", msg);
    assert_non_null(strstr(msg, "overflows"));
    l.offset = (uint64_t)file_size(l.path);
    l.length = 1;
    l.flags = HL_LOAD_COMPRESSED;
    assert_int_equal(raw_request(fd, HL_OP_LOAD, &l, 3, msg, sizeof msg), HELIOD_EINVAL);
    assert_non_null(strstr(msg, "outside"));
    char fl[300];
    path_of(fl, sizeof fl, "s.flac");
    l.offset = JUNK;
    l.length = (uint64_t)file_size(fl);
    assert_int_equal(raw_request(fd, HL_OP_LOAD, &l, 4, msg, sizeof msg), 0);
    close(fd);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

/* The error cases on a live daemon, which plays on through them. */
static void test_errors(void **state) {
    (void)state;
    th_daemon_t d;
    assert_int_equal(th_daemon_start(&d, 0, NULL), 0);
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "test_compressed"), 0);
    char bad[300], fl[300], pak[300];
    path_of(bad, sizeof bad, "bad.ogg");
    path_of(fl, sizeof fl, "s.flac");
    path_of(pak, sizeof pak, "game.pak");
    /* the prefetched head counts as the sound's sample memory, and a play
     * at frame 0 starts from it (the render above would wait for any open) */
    char op[300];
    path_of(op, sizeof op, "s.opus");
    double before = th_stat(h, "sample_bytes");
    assert_int_equal(heliod_load(h, "c", op, HELIOD_LOAD_COMPRESSED, NULL), 0);
    double charged = th_stat(h, "sample_bytes") - before;
    print_message("Opus kept compressed: %ld encoded bytes, %.0f bytes charged\n", file_size(op),
                  charged);
    assert_true(charged >= (double)file_size(op) + HEAD * 2 * sizeof(float));
    double heads = th_stat(h, "stream_opens_head");
    {
        heliod_play_params_t pp;
        heliod_play_params_init(&pp);
        heliod_voice_t v = 0;
        assert_int_equal(heliod_play(h, "c", &pp, &v, NULL), 0);
        assert_true(th_stat(h, "stream_opens_head") == heads + 1);
        assert_int_equal(heliod_stop(h, v, 0.0f), 0);
    }
    /* corrupt: EDECODE, nothing kept */
    assert_int_equal(heliod_load(h, "bad", bad, HELIOD_LOAD_COMPRESSED, NULL), HELIOD_EDECODE);
    print_message("corrupt compressed: %s\n", heliod_last_error(h));
    /* a FLAC whose second half is garbage: the load takes it (only the
     * start is probed); the voices decoding it meet the garbage, and the
     * daemon plays on */
    char half[300];
    path_of(half, sizeof half, "half.flac");
    FILE *in = fopen(fl, "rb"), *out = fopen(half, "wb");
    assert_non_null(in);
    assert_non_null(out);
    long n = file_size(fl);
    for (long i = 0; i < n; i++) {
        int c = fgetc(in);
        fputc(i > n / 2 ? (int)((i * 97) & 0xff) : c, out);
    }
    fclose(in);
    fclose(out);
    int rc = heliod_load(h, "half", half, HELIOD_LOAD_COMPRESSED, NULL);
    print_message("FLAC corrupt past its start, compressed: load %d\n", rc);
    assert_int_equal(rc, 0);
    {
        heliod_play_params_t p;
        heliod_play_params_init(&p);
        for (int i = 0; i < 4; i++)
            (void)heliod_play_async(h, "half", &p, NULL, NULL);
        assert_int_equal(heliod_sync(h), 0);
        /* the voices end (the garbage ends them or they play it out) */
        double active = 1;
        for (int i = 0; i < 500 && active != 0; i++) {
            th_sleep_ms(20);
            active = th_stat(h, "streams_active");
        }
        print_message("streams of the corrupt FLAC ended: %s\n", active == 0 ? "yes" : "no");
        assert_true(active == 0);
    }
    /* libheliod: a range, and its own overflow check */
    assert_int_equal(heliod_load_range(h, "ranged", pak, JUNK, (uint64_t)file_size(fl),
                                       HELIOD_LOAD_COMPRESSED, NULL),
                     0);
    assert_int_equal(heliod_load_range(h, "over", pak, UINT64_MAX, 2, 0, NULL), HELIOD_EINVAL);
    /* compressed and streamed together: refused */
    assert_int_equal(heliod_load(h, "both", fl, HELIOD_LOAD_COMPRESSED | HELIOD_LOAD_STREAM, NULL),
                     HELIOD_EINVAL);
    assert_int_equal(heliod_ping(h, NULL), 0);
    assert_true(th_daemon_alive(&d));
    /* pack ranges through heliodctl: outside the file, overflowing, valid */
    long pn = file_size(pak);
    char spec[400], out_s[2048], err_s[2048];
    snprintf(spec, sizeof spec, "%s@%ld+10", pak, pn - 5);
    const char *a1[] = {"load", "r1", spec, NULL};
    assert_true(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a1) != 0);
    print_message("range past the end: %s", err_s);
    assert_non_null(strstr(err_s, "outside"));
    snprintf(spec, sizeof spec, "%s@%ld", pak, pn + 1);
    const char *a2[] = {"load", "r2", spec, "--compressed", NULL};
    assert_true(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a2) != 0);
    assert_non_null(strstr(err_s, "outside"));
    snprintf(spec, sizeof spec, "%s@18446744073709551615+2", pak);
    const char *a3[] = {"load", "r3", spec, NULL};
    assert_true(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a3) != 0);
    print_message("range overflowing: %s", err_s);
    snprintf(spec, sizeof spec, "%s@99999999999999999999999+2", pak);
    const char *a4[] = {"load", "r4", spec, NULL};
    assert_true(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a4) != 0);
    /* a range cutting the FLAC short of its frames decodes what is there or
     * fails cleanly; a range of the junk is EDECODE */
    snprintf(spec, sizeof spec, "%s@0+%d", pak, JUNK);
    const char *a5[] = {"load", "r5", spec, NULL};
    assert_true(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a5) != 0);
    snprintf(spec, sizeof spec, "%s@%d+%ld", pak, JUNK, file_size(fl));
    const char *a6[] = {"load", "r6", spec, "--compressed", NULL};
    assert_int_equal(th_ctl(&d, out_s, sizeof out_s, err_s, sizeof err_s, a6), 0);
    assert_int_equal(heliod_ping(h, NULL), 0);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equals_preloaded),
        cmocka_unit_test(test_exact_pitches),
        cmocka_unit_test(test_seek_loop_pitch),
        cmocka_unit_test(test_virtual),
        cmocka_unit_test(test_pack_plays),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_pack_split),
        cmocka_unit_test(test_wire_ranges),
        cmocka_unit_test(test_bank),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
