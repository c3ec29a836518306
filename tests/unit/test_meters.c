/*
 * test_meters.c - unit tests of the bus ducking envelope (daemon/mixer/
 * hl_duck.h), the meter ballistics (daemon/telemetry/meters.h) and the EBU R128
 * loudness wrapper (daemon/telemetry/loudness.h).
 *
 * Ducking is checked against a per-frame reference of the documented curve
 * (linear in dB, hold, release) at several block sizes, and against the
 * ideal times. Meters get block figures computed here from real samples (a
 * -6 dBFS sine reads -6 dB peak, -9 dB rms) or exact ones (hold and fall
 * against their closed form), and the rms window is compared with a direct
 * mean over the samples it covers. Loudness follows EBU Tech 3341 test case 1
 * as libebur128's own tests do: a 1 kHz stereo sine with peak -23 dBFS per
 * channel reads -23.0 LUFS (and -33 dBFS reads -33.0).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "heliod_errors.h"
#include "hl_duck.h"
#include "hl_layout.h"
#include "hl_limits.h"
#include "loudness.h"
#include "meters.h"

#define RATE   48000u
#define T_PI   3.14159265358979323846
#define DB_EPS 1e-3

/* ---- ducking ---- */

/* The documented curve one frame at a time, in double: the reference. */
typedef struct {
    double db, depth, down, up; /* level; depth; dB per frame of attack / release */
    uint32_t hold, hold_left;
} ref_duck_t;

static ref_duck_t ref_init(double depth, double attack_ms, double hold_ms, double release_ms) {
    ref_duck_t r = {0};
    r.depth = depth;
    double af = fmax(1.0, round(attack_ms * RATE / 1000.0));
    double rf = fmax(1.0, round(release_ms * RATE / 1000.0));
    r.down = depth / af;
    r.up = depth / rf;
    r.hold = (uint32_t)(hold_ms * RATE / 1000.0 + 0.5);
    return r;
}

static void ref_frame(ref_duck_t *r, int trig) {
    if (trig) {
        r->hold_left = r->hold;
        r->db = fmax(r->db - r->down, -r->depth);
    } else if (r->hold_left > 0) {
        r->hold_left--;
    } else {
        r->db = fmin(r->db + r->up, 0.0);
    }
}

/* Trigger pattern by time (frame of the block's start): dialogue for 0.5 s, a
 * 100 ms pause (inside the hold), 50 ms more (inside the attack slope from the
 * level reached), then silence long enough for hold and release. */
static int pattern(uint64_t f) {
    double t = (double)f / RATE;
    return t < 0.5 || (t >= 0.6 && t < 0.65);
}

static void test_duck_curve_matches_reference(void **state) {
    (void)state;
    const uint32_t sizes[] = {256, 64, 173, 1};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        uint32_t bs = sizes[s];
        hl_duck_t d;
        hl_duck_init_rt(&d, (float)RATE, 9.0f, -INFINITY, 80.0f, 200.0f, 600.0f);
        assert_true(d.voices_mode);
        ref_duck_t r = ref_init(9.0, 80.0, 200.0, 600.0);
        double min_db = 0.0;
        for (uint64_t f = 0; f < 2 * RATE; f += bs) {
            int trig = pattern(f);
            float g = hl_duck_step_rt(&d, 0.0f, trig ? 2u : 0u, bs);
            for (uint32_t i = 0; i < bs; i++)
                ref_frame(&r, trig);
            assert_true(fabs((double)hl_duck_db(&d) - r.db) < DB_EPS);
            assert_true(fabs((double)g - pow(10.0, r.db / 20.0)) < 1e-5);
            assert_true(g == hl_duck_gain(&d));
            min_db = fmin(min_db, r.db);
        }
        assert_true(fabs(min_db + 9.0) < DB_EPS); /* it did reach the depth */
        assert_true(hl_duck_gain(&d) == 1.0f);    /* and came all the way back */
    }
}

/* The ideal times, at the mixer's 256-frame blocks: full depth exactly
 * attack_ms after the trigger starts, held hold_ms after it ends, 0 dB again
 * release_ms after that, each within one block. */
static void test_duck_ideal_times(void **state) {
    (void)state;
    const uint32_t bs = 256;
    const uint64_t attack = 80 * RATE / 1000, hold = 200 * RATE / 1000,
                   release = 600 * RATE / 1000; /* 3840, 9600, 28800 frames */
    hl_duck_t d;
    hl_duck_init_rt(&d, (float)RATE, HL_DUCK_DEFAULT_DEPTH_DB, HL_DUCK_DEFAULT_THRESHOLD_DB,
                    HL_DUCK_DEFAULT_ATTACK_MS, HL_DUCK_DEFAULT_HOLD_MS, HL_DUCK_DEFAULT_RELEASE_MS);
    assert_false(d.voices_mode);
    uint64_t t = 0;
    const float loud = 0.1f;   /* -20 dBFS, over the -40 dBFS threshold */
    while (t + bs <= attack) { /* 15 blocks: linear in dB */
        hl_duck_step_rt(&d, loud, 0, bs);
        t += bs;
        assert_true(fabs(hl_duck_db(&d) + 9.0 * (double)t / (double)attack) < DB_EPS);
    }
    assert_true(fabs(hl_duck_db(&d) + 9.0) < DB_EPS); /* at attack_ms exactly */
    assert_true(fabs(hl_duck_gain(&d) - pow(10.0, -9.0 / 20.0)) < 1e-5);
    for (int i = 0; i < 40; i++) /* stays at the depth while triggered */
        hl_duck_step_rt(&d, loud, 0, bs);
    assert_true(hl_duck_db(&d) == -9.0f);
    /* trigger ends: held for hold frames (37.5 blocks) */
    uint64_t end = 0;
    while (end + bs <= hold) {
        hl_duck_step_rt(&d, 0.001f, 0, bs); /* -60 dBFS: below the threshold */
        end += bs;
        assert_true(hl_duck_db(&d) == -9.0f);
    }
    /* then rises 9 dB over release frames, from end-of-hold exactly */
    for (;;) {
        hl_duck_step_rt(&d, 0.0f, 0, bs);
        end += bs;
        double since = (double)end - (double)hold;
        double want = fmin(-9.0 + 9.0 * since / (double)release, 0.0);
        assert_true(fabs(hl_duck_db(&d) - want) < DB_EPS);
        if (want == 0.0) break;
    }
    assert_true(hl_duck_gain(&d) == 1.0f);
    /* back at 0 dB in the block where hold + release ends, not before */
    assert_true(end >= hold + release && end < hold + release + bs);
}

static void test_duck_trigger_modes(void **state) {
    (void)state;
    hl_duck_t d;
    /* threshold mode: quiet sidechain never ducks, whatever its voices */
    hl_duck_init_rt(&d, (float)RATE, 9.0f, -40.0f, 80.0f, 200.0f, 600.0f);
    for (int i = 0; i < 1000; i++)
        assert_true(hl_duck_step_rt(&d, 0.009f, 5, 256) == 1.0f); /* -40.9 dBFS */
    assert_true(hl_duck_step_rt(&d, 0.011f, 0, 256) < 1.0f);      /* -39.2 dBFS */
    assert_true(d.triggered);
    /* NaN peak: no trigger */
    hl_duck_init_rt(&d, (float)RATE, 9.0f, -40.0f, 80.0f, 200.0f, 600.0f);
    assert_true(hl_duck_step_rt(&d, NAN, 3, 256) == 1.0f);
    /* voices mode (<= -144 dB, -inf, NaN): loud but voiceless never ducks */
    const float vm[] = {-144.0f, -200.0f, -INFINITY, NAN};
    for (size_t k = 0; k < sizeof vm / sizeof *vm; k++) {
        hl_duck_init_rt(&d, (float)RATE, 9.0f, vm[k], 80.0f, 200.0f, 600.0f);
        assert_true(d.voices_mode);
        for (int i = 0; i < 100; i++)
            assert_true(hl_duck_step_rt(&d, 1.0f, 0, 256) == 1.0f);
        assert_true(hl_duck_step_rt(&d, 0.0f, 1, 256) < 1.0f);
    }
}

static void test_duck_edges(void **state) {
    (void)state;
    hl_duck_t d;
    /* zero times: jump down in one block, jump back after the hold */
    hl_duck_init_rt(&d, (float)RATE, 12.0f, -INFINITY, 0.0f, 0.0f, 0.0f);
    assert_true(fabs(hl_duck_step_rt(&d, 0.0f, 1, 64) - pow(10.0, -12.0 / 20.0)) < 1e-6);
    assert_true(hl_duck_step_rt(&d, 0.0f, 0, 64) == 1.0f);
    /* 0 frames: nothing moves */
    hl_duck_init_rt(&d, (float)RATE, 9.0f, -INFINITY, 80.0f, 200.0f, 600.0f);
    assert_true(hl_duck_step_rt(&d, 0.0f, 1, 0) == 1.0f);
    /* depth 0 (or negative, NaN) never ducks; huge depth clamps at -144 = gain 0 */
    const float depths[] = {0.0f, -6.0f, NAN};
    for (size_t k = 0; k < sizeof depths / sizeof *depths; k++) {
        hl_duck_init_rt(&d, (float)RATE, depths[k], -INFINITY, 10.0f, 10.0f, 10.0f);
        for (int i = 0; i < 100; i++)
            assert_true(hl_duck_step_rt(&d, 1.0f, 4, 256) == 1.0f);
    }
    hl_duck_init_rt(&d, (float)RATE, 500.0f, -INFINITY, 0.0f, 0.0f, 0.0f);
    assert_true(d.depth_db == -HL_MIN_DB);
    assert_true(hl_duck_step_rt(&d, 0.0f, 1, 256) == 0.0f);
    /* NaN / negative times behave as 0; bad rate falls back */
    hl_duck_init_rt(&d, NAN, 6.0f, -INFINITY, NAN, -5.0f, NAN);
    assert_true(d.rate > 0.0f && d.attack_ms == 0.0f && d.hold_ms == 0.0f);
    assert_true(fabs(hl_duck_step_rt(&d, 0.0f, 1, 16) - pow(10.0, -6.0 / 20.0)) < 1e-6);
    /* a live edit keeps the level; a smaller depth clamps it */
    hl_duck_init_rt(&d, (float)RATE, 9.0f, -INFINITY, 0.0f, 200.0f, 600.0f);
    hl_duck_step_rt(&d, 0.0f, 1, 256);
    assert_true(hl_duck_db(&d) == -9.0f);
    hl_duck_set_rt(&d, 12.0f, -INFINITY, 80.0f, 200.0f, 600.0f);
    assert_true(hl_duck_db(&d) == -9.0f);
    hl_duck_set_rt(&d, 6.0f, -INFINITY, 80.0f, 200.0f, 600.0f);
    assert_true(hl_duck_db(&d) == -6.0f);
    assert_true(fabs(hl_duck_gain(&d) - pow(10.0, -6.0 / 20.0)) < 1e-6);
}

/* ---- meters ---- */

/* Block figures of planar samples, as the audio thread computes them. */
static void block_figures(const float *l, const float *r, uint32_t n, float peak[2],
                          double sumsq[2]) {
    peak[0] = peak[1] = 0.0f;
    sumsq[0] = sumsq[1] = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        peak[0] = fmaxf(peak[0], fabsf(l[i]));
        peak[1] = fmaxf(peak[1], fabsf(r[i]));
        sumsq[0] += (double)l[i] * l[i];
        sumsq[1] += (double)r[i] * r[i];
    }
}

static void test_meter_sine(void **state) {
    (void)state;
    hld_meter_t m;
    assert_int_equal(hld_meter_init(&m, RATE, 0.0f, 0.0f, 0.0f), 0); /* defaults */
    float pk[2], hold[2], rms[2];
    hld_meter_read(&m, pk, hold, rms); /* nothing fed: silence */
    for (int c = 0; c < 2; c++)
        assert_true(pk[c] == HL_MIN_DB && hold[c] == HL_MIN_DB && rms[c] == HL_MIN_DB);

    const uint32_t bs = 256;
    const float amp_l = 0.5012f, amp_r = 0.2512f; /* -6 dBFS and -12 dBFS */
    float l[256], r[256];
    uint64_t now = 0;
    for (int b = 0; b < 2 * (int)RATE / (int)bs; b++) { /* 2 s */
        for (uint32_t i = 0; i < bs; i++) {
            double ph = 2.0 * T_PI * 997.0 * (double)(now + i) / RATE;
            l[i] = amp_l * (float)sin(ph);
            r[i] = amp_r * (float)sin(ph + 1.0);
        }
        float peak[2];
        double sumsq[2];
        block_figures(l, r, bs, peak, sumsq);
        now += bs;
        hld_meter_feed(&m, peak[0], peak[1], sumsq[0], sumsq[1], bs, now);
    }
    hld_meter_read(&m, pk, hold, rms);
    assert_true(fabsf(pk[0] + 6.0f) < 0.1f);
    assert_true(fabsf(hold[0] + 6.0f) < 0.1f);
    assert_true(fabsf(rms[0] + 9.0f) < 0.1f); /* -6 - 3.01 */
    assert_true(fabsf(pk[1] + 12.0f) < 0.1f);
    assert_true(fabsf(rms[1] + 15.0f) < 0.1f);
    hld_meter_free(&m);
    hld_meter_free(&m); /* twice is fine */
}

/* Feeds n blocks of bs frames with the same figures on both channels. */
static uint64_t feed_const(hld_meter_t *m, uint64_t now, int n, uint32_t bs, float peak,
                           double sumsq) {
    for (int i = 0; i < n; i++) {
        now += bs;
        hld_meter_feed(m, peak, peak, sumsq, sumsq, bs, now);
    }
    return now;
}

static void test_meter_hold_and_fall(void **state) {
    (void)state;
    hld_meter_t m;
    assert_int_equal(hld_meter_init(&m, RATE, 300.0f, 1500.0f, 20.0f), 0);
    const uint32_t bs = 256;
    const double p_db = 20.0 * log10(0.5); /* -6.02 */
    uint64_t now = feed_const(&m, 0, 400, bs, 0.5f, 0.25 * bs);
    const uint64_t t_end = now; /* the last peak counts here */
    float pk[2], hold[2], rms[2];
    hld_meter_read(&m, pk, hold, rms);
    assert_true(fabs(pk[0] - p_db) < DB_EPS && fabs(hold[0] - p_db) < DB_EPS);
    assert_true(fabs(rms[0] - p_db) < DB_EPS); /* a square wave: rms = peak */

    /* silence: the bar falls at once at 20 dB/s, the marker holds 1.5 s */
    uint64_t hold_frames = 3 * RATE / 2;
    while (now - t_end + bs <= hold_frames) {
        now = feed_const(&m, now, 1, bs, 0.0f, 0.0);
        hld_meter_read(&m, pk, hold, rms);
        double fall = 20.0 * (double)(now - t_end) / RATE;
        assert_true(fabs(pk[0] - fmax(p_db - fall, -144.0)) < DB_EPS);
        assert_true(fabs(hold[0] - p_db) < DB_EPS && fabs(hold[1] - p_db) < DB_EPS);
        if (now - t_end >= 14592) /* the window is 300 ms and < 1 block: only silence */
            assert_true(rms[0] == HL_MIN_DB && rms[1] == HL_MIN_DB);
    }
    /* then the marker falls at 20 dB/s too: check over the next 2 s */
    for (int i = 0; i < 2 * (int)RATE / (int)bs; i++) {
        now = feed_const(&m, now, 1, bs, 0.0f, 0.0);
        hld_meter_read(&m, pk, hold, rms);
        double since = (double)(now - t_end) - (double)hold_frames;
        double want = since > 0.0 ? p_db - 20.0 * since / RATE : p_db;
        assert_true(fabs(hold[0] - want) < DB_EPS);
    }
    /* a new peak above the falling marker takes its place; one below does not */
    now = feed_const(&m, now, 1, bs, 0.25f, 0.0); /* -12.04 dB over the marker's ~ -43 */
    hld_meter_read(&m, pk, hold, rms);
    assert_true(fabs(hold[0] - 20.0 * log10(0.25)) < DB_EPS);
    assert_true(fabs(pk[0] - 20.0 * log10(0.25)) < DB_EPS);
    now = feed_const(&m, now, 1, bs, 0.1f, 0.0); /* -20 dB: under both */
    hld_meter_read(&m, pk, hold, rms);
    assert_true(fabs(hold[0] - 20.0 * log10(0.25)) < DB_EPS);
    assert_true(fabs(pk[0] - (20.0 * log10(0.25) - 20.0 * bs / RATE)) < DB_EPS);

    /* silence for hold + 144/20 s: everything reads the floor exactly */
    now = feed_const(&m, now, (int)(10 * RATE / bs), bs, 0.0f, 0.0);
    hld_meter_read(&m, pk, hold, rms);
    for (int c = 0; c < 2; c++)
        assert_true(pk[c] == HL_MIN_DB && hold[c] == HL_MIN_DB && rms[c] == HL_MIN_DB);

    /* a gap in now_frames (blocks not published): the fall goes on over it */
    now = feed_const(&m, now, 1, bs, 0.5f, 0.25 * bs);
    now += RATE; /* one second unseen */
    now = feed_const(&m, now, 1, bs, 0.0f, 0.0);
    hld_meter_read(&m, pk, hold, rms);
    assert_true(fabs(pk[0] - (p_db - 20.0 * (double)(RATE + bs) / RATE)) < DB_EPS);
    /* the counter going backwards (device restart) starts over */
    now = feed_const(&m, 0, 1, bs, 0.1f, 0.01 * bs);
    hld_meter_read(&m, pk, hold, rms);
    assert_true(fabs(hold[0] + 20.0) < DB_EPS && fabs(rms[0] + 20.0) < DB_EPS);
    hld_meter_free(&m);
}

/* Cheap deterministic noise in [-1, 1). */
static uint32_t rng_state = 12345u;
static float noise(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 8388608.0f - 1.0f;
}

/* The rms window, block sizes 16..300 frames at 192 kHz (and down to 1 frame,
 * below the ring's sizing): always the exact mean over the newest blocks
 * that cover window_ms. */
static void test_meter_rms_window_exact(void **state) {
    (void)state;
    const uint32_t rate = 192000, total = 3 * rate;
    const uint64_t window = 300 * rate / 1000;
    float *l = malloc(total * sizeof *l), *r = malloc(total * sizeof *r);
    uint32_t *ends = malloc(total * sizeof *ends);
    assert_non_null(l);
    assert_non_null(r);
    assert_non_null(ends);
    for (int pass = 0; pass < 2; pass++) {
        hld_meter_t m;
        assert_int_equal(hld_meter_init(&m, rate, 300.0f, 1500.0f, 20.0f), 0);
        uint32_t pos = 0, nb = 0;
        while (pos < total) {
            /* pass 0: 16..300 frames; pass 1: 1..20 (ring overflows) */
            uint32_t bs = pass == 0 ? 16 + (uint32_t)((noise() + 1.0f) * 142.0f)
                                    : 1 + (uint32_t)((noise() + 1.0f) * 9.5f);
            if (bs > total - pos) bs = total - pos;
            /* loudness steps every ~0.25 s so the window's edges matter */
            float a = 0.05f + 0.4f * (float)((pos / (rate / 4)) % 3);
            for (uint32_t i = pos; i < pos + bs; i++) {
                l[i] = a * noise();
                r[i] = 0.5f * a * noise();
            }
            float peak[2];
            double sumsq[2];
            block_figures(l + pos, r + pos, bs, peak, sumsq);
            pos += bs;
            ends[nb++] = pos;
            hld_meter_feed(&m, peak[0], peak[1], sumsq[0], sumsq[1], bs, pos);
            if (nb % 97 != 0 && pos != total) continue;
            /* reference: the fewest newest blocks covering the window (pass 0),
             * or the newest cap blocks if that is fewer (pass 1) */
            uint32_t k = 0; /* index of the oldest block kept */
            while (k + 1 < nb && (uint64_t)(pos - ends[k]) >= window)
                k++;
            if (pass == 1 && nb - k > m.cap) k = nb - (uint32_t)m.cap;
            uint32_t from = k > 0 ? ends[k - 1] : 0;
            double s0 = 0.0, s1 = 0.0;
            for (uint32_t i = from; i < pos; i++) {
                s0 += (double)l[i] * l[i];
                s1 += (double)r[i] * r[i];
            }
            float rms[2];
            hld_meter_read(&m, NULL, NULL, rms);
            assert_true(fabs(rms[0] - 10.0 * log10(s0 / (pos - from))) < 1e-3);
            assert_true(fabs(rms[1] - 10.0 * log10(s1 / (pos - from))) < 1e-3);
            if (pass == 0) assert_true(pos - from >= window || from == 0);
        }
        assert_true(m.count <= m.cap);
        hld_meter_free(&m);
    }
    free(l);
    free(r);
    free(ends);
}

static void test_meter_bad_input(void **state) {
    (void)state;
    hld_meter_t m;
    assert_int_equal(hld_meter_init(&m, 0, 300.0f, 1500.0f, 20.0f), HELIOD_EINVAL);
    hld_meter_feed(&m, 1.0f, 1.0f, 256.0, 256.0, 256, 256); /* ignored */
    float pk[2], hold[2], rms[2];
    hld_meter_read(&m, pk, hold, rms);
    assert_true(pk[0] == HL_MIN_DB && rms[0] == HL_MIN_DB);
    hld_meter_free(&m);

    assert_int_equal(hld_meter_init(&m, RATE, NAN, -1.0f, INFINITY), 0); /* defaults */
    assert_true(m.window_frames == 14400 && m.hold_frames == 72000);
    assert_true(fabs(m.fall_db_per_frame * RATE - 20.0) < 1e-9);
    /* non-finite and negative figures are silence */
    hld_meter_feed(&m, NAN, INFINITY, NAN, -5.0, 256, 256);
    hld_meter_feed(&m, -1.0f, 0.0f, INFINITY, 0.0, 256, 512);
    hld_meter_feed(&m, 0.5f, 0.5f, 64.0, 64.0, 0, 768); /* 0 frames: ignored */
    hld_meter_read(&m, pk, hold, rms);
    for (int c = 0; c < 2; c++)
        assert_true(pk[c] == HL_MIN_DB && hold[c] == HL_MIN_DB && rms[c] == HL_MIN_DB);
    hld_meter_read(&m, NULL, NULL, NULL);
    hld_meter_free(&m);
}

/* ---- loudness ---- */

/* seconds of a 1 kHz stereo sine with peak `dbfs` on both channels, fed in
 * 480-frame pieces (a 10 ms output tap). */
static void feed_sine(hld_loudness_t *lm, double dbfs, double seconds) {
    static float buf[480 * 2];
    const float amp = (float)pow(10.0, dbfs / 20.0);
    uint64_t frames = (uint64_t)(seconds * RATE);
    for (uint64_t f = 0; f < frames; f += 480) {
        for (int i = 0; i < 480; i++) {
            /* phase from the index mod the 48-frame period: exact, no drift */
            float s = amp * (float)sin(2.0 * T_PI * (double)((f + (uint64_t)i) % 48) / 48.0);
            buf[2 * i] = buf[2 * i + 1] = s;
        }
        hld_loudness_feed(lm, buf, 480);
    }
}

static void test_loudness_ebu_3341_case1(void **state) {
    (void)state;
    hld_loudness_t *lm = hld_loudness_create(RATE);
    assert_non_null(lm);
    double mo, st, in, lra;
    /* nothing fed yet: the floor, and 0 LU of range */
    assert_int_equal(hld_loudness_read(lm, &mo, &st, &in, &lra), 0);
    assert_true(mo == HLD_LOUDNESS_FLOOR && st == HLD_LOUDNESS_FLOOR && in == HLD_LOUDNESS_FLOOR);
    assert_true(lra == 0.0);

    const double levels[] = {-23.0, -33.0};
    for (int k = 0; k < 2; k++) {
        hld_loudness_reset(lm);
        feed_sine(lm, levels[k], 20.0);
        assert_int_equal(hld_loudness_read(lm, &mo, &st, &in, &lra), 0);
        assert_true(fabs(mo - levels[k]) < 0.1);
        assert_true(fabs(st - levels[k]) < 0.1);
        assert_true(fabs(in - levels[k]) < 0.1);
        assert_true(lra < 0.1); /* a steady tone has no range */
        assert_true(fabs(hld_loudness_sample_peak(lm) - levels[k]) < 0.01);
    }
    hld_loudness_destroy(lm);
}

static void test_loudness_silence_and_nonfinite(void **state) {
    (void)state;
    assert_null(hld_loudness_create(0));
    assert_null(hld_loudness_create(1000000));
    hld_loudness_destroy(NULL);

    hld_loudness_t *lm = hld_loudness_create(RATE);
    assert_non_null(lm);
    static float zeros[RATE * 2];
    for (int i = 0; i < 5; i++) /* 5 s of digital silence: -inf everywhere -> the floor */
        hld_loudness_feed(lm, zeros, RATE);
    double mo, st, in, lra;
    assert_int_equal(hld_loudness_read(lm, &mo, &st, &in, &lra), 0);
    assert_true(mo == HLD_LOUDNESS_FLOOR && st == HLD_LOUDNESS_FLOOR && in == HLD_LOUDNESS_FLOOR);
    assert_true(lra == 0.0);
    assert_true(hld_loudness_sample_peak(lm) == HLD_LOUDNESS_FLOOR);
    assert_int_equal(hld_loudness_read(lm, NULL, NULL, NULL, NULL), 0);

    /* a NaN and an Inf in the tap are measured as 0, not kept forever */
    hld_loudness_reset(lm);
    feed_sine(lm, -23.0, 10.0);
    float bad[8] = {NAN, NAN, INFINITY, -INFINITY, 0.0f, 0.0f, 0.0f, 0.0f};
    hld_loudness_feed(lm, bad, 4);
    feed_sine(lm, -23.0, 10.0);
    assert_int_equal(hld_loudness_read(lm, &mo, &st, &in, &lra), 0);
    assert_true(isfinite(mo) && isfinite(st) && isfinite(in) && isfinite(lra));
    assert_true(fabs(in + 23.0) < 0.1);
    assert_true(fabs(hld_loudness_sample_peak(lm) + 23.0) < 0.01);
    hld_loudness_destroy(lm);
}

/* A 1 kHz sine at -23 dBFS on channel `only` of an 8-wide frame, 1 s:
 * the momentary loudness a meter for `layout` reads. */
static double loudness_of_channel(uint32_t layout, uint32_t ch, uint32_t only) {
    hld_loudness_t *lm = hld_loudness_create_layout(RATE, layout);
    assert_non_null(lm);
    static float buf[480 * 12];
    const float amp = (float)pow(10.0, -23.0 / 20.0);
    for (uint64_t f = 0; f < RATE; f += 480) {
        memset(buf, 0, sizeof buf);
        for (int i = 0; i < 480; i++)
            buf[(size_t)i * ch + only] =
                amp * (float)sin(2.0 * T_PI * (double)((f + (uint64_t)i) % 48) / 48.0);
        hld_loudness_feed(lm, buf, 480);
    }
    double mo;
    assert_int_equal(hld_loudness_read(lm, &mo, NULL, NULL, NULL), 0);
    hld_loudness_destroy(lm);
    return mo;
}

/* Surround loudness: BS.1770-4's weights per channel, relative to FL: the
 * centre 0 dB, the LFE left out, 5.1's surrounds (110 degrees) and 7.1's
 * sides (90) +1.5 dB, quad's surrounds (135), 7.1's backs (150) and
 * 7.1.4's top speakers (45 up) 0 dB. */
static void test_loudness_surround_weights(void **state) {
    (void)state;
    assert_null(hld_loudness_create_layout(RATE, 99));
    const double s = 10.0 * log10(1.41), no = 1e9; /* no: not measured (the floor) */
    const struct {
        uint32_t layout, ch;
        double want[12]; /* each channel's reading minus FL's */
    } t[] = {
        {HL_LAYOUT_QUAD, 4, {0, 0, 0, 0}},                          /* quad FL FR BL BR */
        {HL_LAYOUT_51, 6, {0, 0, 0, no, s, s}},                     /* 5.1 FL FR FC LFE BL BR */
        {HL_LAYOUT_71, 8, {0, 0, 0, no, 0, 0, s, s}},               /* 7.1 ... BL BR SL SR */
        {HL_LAYOUT_714, 12, {0, 0, 0, no, 0, 0, s, s, 0, 0, 0, 0}}, /* ... TFL TFR TBL TBR */
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        const double fl = loudness_of_channel(t[k].layout, t[k].ch, 0);
        assert_true(fabs(fl - (-23.0 - 10.0 * log10(2.0))) < 0.1); /* one of stereo's two */
        for (uint32_t c = 1; c < t[k].ch; c++) {
            const double m = loudness_of_channel(t[k].layout, t[k].ch, c);
            if (t[k].want[c] == no)
                assert_true(m == HLD_LOUDNESS_FLOOR);
            else
                assert_true(fabs(m - fl - t[k].want[c]) < 0.05);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duck_curve_matches_reference),
        cmocka_unit_test(test_duck_ideal_times),
        cmocka_unit_test(test_duck_trigger_modes),
        cmocka_unit_test(test_duck_edges),
        cmocka_unit_test(test_meter_sine),
        cmocka_unit_test(test_meter_hold_and_fall),
        cmocka_unit_test(test_meter_rms_window_exact),
        cmocka_unit_test(test_meter_bad_input),
        cmocka_unit_test(test_loudness_ebu_3341_case1),
        cmocka_unit_test(test_loudness_silence_and_nonfinite),
        cmocka_unit_test(test_loudness_surround_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
