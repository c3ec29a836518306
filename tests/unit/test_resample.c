/*
 * test_resample.c - the output rate converter (hl_resample.h): a sine keeps
 * its frequency across the conversion (no pitch error) with a clean spectrum
 * (SINAD against a fitted sine), a tone above the device's Nyquist is
 * removed rather than folded back, DC passes at exactly 1, the input is
 * consumed at exactly in/out per output frame over a long run (no drift),
 * and bad rate pairs are refused. The pull callback renders a sine at the
 * input rate in engine-sized blocks, as the engine does. Surround layouts
 * (6 and 8 channels): each channel carries its own tone at its own level
 * through the conversion, and each comes out the same bit for bit as that
 * tone through a stereo converter.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_resample.h"
#include "sinad.h"

typedef struct {
    double freq, rate, amp;
    uint64_t pos; /* input frames rendered so far */
    uint32_t pulls;
} src_t;

static void pull_sine(void *user, float *buf, uint32_t frames) {
    src_t *s = user;
    for (uint32_t i = 0; i < frames; i++) {
        double v = s->amp * sin(2 * M_PI * s->freq * (double)(s->pos + i) / s->rate);
        buf[2 * i] = (float)v;
        buf[2 * i + 1] = (float)(-v);
    }
    s->pos += frames;
    s->pulls++;
}

static hl_resample_t *make_ch(uint32_t in, uint32_t out, uint32_t block, uint32_t ch, void **mem) {
    size_t size = hl_resample_size(in, out, block, ch);
    assert_true(size > 0);
    *mem = aligned_alloc(64, (size + 63) / 64 * 64);
    assert_non_null(*mem);
    hl_resample_t *r = hl_resample_init(*mem, size, in, out, block, ch);
    assert_non_null(r);
    return r;
}

static hl_resample_t *make(uint32_t in, uint32_t out, uint32_t block, void **mem) {
    return make_ch(in, out, block, 2, mem);
}

static double sinad_db(const float *x, size_t stride, size_t n, double freq, double fs,
                       double *amp) {
    return test_sinad_db(x, stride, n, freq, fs, amp);
}

/* One second of a tone through the converter: the output fits a sine at the
 * source frequency (SINAD >= min_db, amplitude kept) and does not fit one
 * 0.5% away (so a pitch error would show). */
static void check_tone(uint32_t in, uint32_t out, uint32_t block, double freq, double min_db) {
    void *mem;
    hl_resample_t *r = make(in, out, block, &mem);
    src_t s = {.freq = freq, .rate = in, .amp = 0.5};
    size_t n = out; /* one second of output */
    float *o = malloc(n * 2 * sizeof(float));
    assert_non_null(o);
    hl_resample_process_rt(r, o, (uint32_t)n, pull_sine, &s);
    size_t skip = 256; /* the kernel's start-up from silence */
    double amp, db = sinad_db(o + skip * 2, 2, n - skip, freq, out, &amp);
    double amp_r, db_r = sinad_db(o + skip * 2 + 1, 2, n - skip, freq, out, &amp_r);
    /* 0.5% off in frequency (a pitch error of 9 cents) must fit far worse */
    double amp_off, db_off = sinad_db(o + skip * 2, 2, n - skip, freq * 1.005, out, &amp_off);
    print_message("# %u -> %u Hz, %.0f Hz: SINAD %.1f dB (right %.1f), amplitude %.4f; "
                  "at +0.5%%: %.1f dB\n",
                  in, out, freq, db, db_r, amp, db_off);
    assert_true(db >= min_db);
    assert_true(db_r >= min_db);
    assert_true(fabs(amp - 0.5) < 0.5 * 0.012); /* passband within 0.1 dB */
    assert_true(db_off < 10.0);
    free(o);
    free(mem);
}

static void test_tone_48k_to_44k(void **state) {
    (void)state;
    check_tone(48000, 44100, 256, 1000.0, 70.0);
    check_tone(48000, 44100, 256, 10000.0, 70.0);
    check_tone(48000, 44100, 64, 15000.0, 70.0);
}

static void test_tone_44k_to_48k_and_others(void **state) {
    (void)state;
    check_tone(44100, 48000, 256, 1000.0, 70.0);
    check_tone(44100, 48000, 256, 15000.0, 70.0);
    check_tone(48000, 96000, 512, 5000.0, 70.0);
    check_tone(48000, 16000, 256, 1000.0, 70.0);
    check_tone(96000, 44100, 128, 3000.0, 70.0);
}

/* 23 kHz at 48 kHz is above 44.1 kHz's Nyquist: it must be removed, not
 * folded back to 21.1 kHz. */
static void test_alias_rejected(void **state) {
    (void)state;
    void *mem;
    hl_resample_t *r = make(48000, 44100, 256, &mem);
    src_t s = {.freq = 23000.0, .rate = 48000, .amp = 0.5};
    size_t n = 44100;
    float *o = malloc(n * 2 * sizeof(float));
    assert_non_null(o);
    hl_resample_process_rt(r, o, (uint32_t)n, pull_sine, &s);
    double p = 0;
    for (size_t i = 512; i < n; i++)
        p += (double)o[2 * i] * o[2 * i];
    double rms = sqrt(p / (double)(n - 512));
    double db = 20 * log10(rms / (0.5 / sqrt(2.0)));
    print_message("# 23 kHz into 44.1 kHz: what is left %.1f dB\n", db);
    assert_true(db < -60.0);
    free(o);
    free(mem);
}

static void pull_dc(void *user, float *buf, uint32_t frames) {
    (void)user;
    for (uint32_t i = 0; i < 2 * frames; i++)
        buf[i] = 0.25f;
}

static void test_dc_and_reset(void **state) {
    (void)state;
    void *mem;
    hl_resample_t *r = make(48000, 44100, 256, &mem);
    float o[2 * 1000];
    hl_resample_process_rt(r, o, 1000, pull_dc, NULL);
    for (int i = 200; i < 1000; i++)
        assert_float_equal(o[2 * i], 0.25f, 1e-5f);
    /* the first output sits on the first input frame, with silence before
     * it: about half way up (the kernel's right half) */
    assert_true(o[0] > 0.1f && o[0] < 0.24f);
    hl_resample_reset_rt(r);
    hl_resample_process_rt(r, o, 10, pull_dc, NULL);
    assert_true(o[0] > 0.1f && o[0] < 0.24f);
    double d = hl_resample_delay_frames(r);
    assert_true(d > 10 && d < 64);
    free(mem);
}

/* Six minutes of output in device-sized calls: the input consumed is exactly
 * out x in/out (within the look-ahead and one block), so the device clock
 * and the engine clock never drift apart. Six minutes take the input past
 * 2^24 frames (17.3 M), where a position kept in a float would stop
 * counting single frames. Under AddressSanitizer one minute: the same calls
 * on the same paths (what that pass checks is their memory accesses), while
 * the drift bound over six minutes is checked by the optimised build. */
#if defined(__SANITIZE_ADDRESS__)
#define DRIFT_SECONDS 60
#else
#define DRIFT_SECONDS 360
#endif
static void test_no_drift(void **state) {
    (void)state;
    void *mem;
    const uint32_t block = 256, dev_period = 235;
    hl_resample_t *r = make(48000, 44100, block, &mem);
    src_t s = {.freq = 440.0, .rate = 48000, .amp = 0.1};
    float o[2 * 235];
    uint64_t out_frames = 0, target = 44100ull * DRIFT_SECONDS;
    while (out_frames < target) {
        hl_resample_process_rt(r, o, dev_period, pull_sine, &s);
        out_frames += dev_period;
    }
    double expect = (double)out_frames * 48000.0 / 44100.0;
    double diff = (double)s.pos - expect;
    print_message("# %llu output frames pulled %llu input frames (exact %.1f, +%.1f)\n",
                  (unsigned long long)out_frames, (unsigned long long)s.pos, expect, diff);
    if (DRIFT_SECONDS >= 360) assert_true(s.pos > (1u << 24));
    assert_true(diff >= 0 && diff <= block + 2 * HL_RS_HALF_TAPS * 2);
    free(mem);
}

/* ch channels, channel j a tone of k_mc_freq[j] at k_mc_amp[j] (the LFE
 * slot too: the converter knows no speakers). */
#define MC_MAX 8
static const double k_mc_freq[MC_MAX] = {440, 1000, 2500, 200, 5000, 7500, 12000, 15000};
static const double k_mc_amp[MC_MAX] = {0.5, 0.25, 0.4, 0.8, 0.1, 0.3, 0.2, 0.05};

typedef struct {
    uint32_t ch, rate;
    int first; /* >= 0: a stereo source of channels first and first + 1's tones */
    uint64_t pos;
} mc_src_t;

static void pull_mc(void *user, float *buf, uint32_t frames) {
    mc_src_t *s = user;
    for (uint32_t i = 0; i < frames; i++)
        for (uint32_t j = 0; j < s->ch; j++) {
            int t = s->first >= 0 ? s->first + (int)j : (int)j;
            double x = 2 * M_PI * k_mc_freq[t % MC_MAX] * (double)(s->pos + i) / s->rate;
            buf[(size_t)i * s->ch + j] = (float)(k_mc_amp[t % MC_MAX] * sin(x));
        }
    s->pos += frames;
}

/* A converter's output for `n` frames in device-sized calls. */
static void convert_mc(uint32_t in, uint32_t out, uint32_t block, mc_src_t *s, float *o, size_t n) {
    void *mem;
    hl_resample_t *r = make_ch(in, out, block, s->ch, &mem);
    const size_t call = 235;
    for (size_t done = 0; done < n; done += call)
        hl_resample_process_rt(r, o + done * s->ch, (uint32_t)(n - done < call ? n - done : call),
                               pull_mc, s);
    free(mem);
}

/* One second of a ch-channel mix converted in device-sized calls: each
 * channel fits its own tone (SINAD >= 70 dB at its level, frequency kept:
 * 0.5% off fits far worse) and equals, bit for bit, its tone converted by a
 * stereo converter (two channels' tones at a time). */
static void check_mc(uint32_t in, uint32_t out, uint32_t block, uint32_t ch) {
    const size_t n = out, skip = 256;
    float *o = malloc(n * ch * sizeof(float)), *o2 = malloc(n * 2 * sizeof(float));
    assert_non_null(o);
    assert_non_null(o2);
    mc_src_t s = {.ch = ch, .rate = in, .first = -1};
    convert_mc(in, out, block, &s, o, n);
    for (uint32_t j = 0; j < ch; j++) {
        double amp, db = sinad_db(o + skip * ch + j, ch, n - skip, k_mc_freq[j], out, &amp);
        double amp_off,
            db_off = sinad_db(o + skip * ch + j, ch, n - skip, k_mc_freq[j] * 1.005, out, &amp_off);
        print_message("# %u ch %u -> %u Hz, channel %u (%.0f Hz at %.2f): SINAD %.1f dB, "
                      "amplitude %.4f; at +0.5%%: %.1f dB\n",
                      ch, in, out, j, k_mc_freq[j], k_mc_amp[j], db, amp, db_off);
        assert_true(db >= 70.0);
        assert_true(fabs(amp - k_mc_amp[j]) < k_mc_amp[j] * 0.012); /* within 0.1 dB */
        assert_true(db_off < 10.0);
        if (j % 2) continue;
        mc_src_t s2 = {.ch = 2, .rate = in, .first = (int)j};
        convert_mc(in, out, block, &s2, o2, n);
        assert_int_equal(s2.pos, s.pos); /* the same input consumed */
        for (size_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < 2 && j + k < ch; k++)
                if (memcmp(&o[i * ch + j + k], &o2[2 * i + k], sizeof(float)) != 0)
                    fail_msg("channel %u frame %zu: %.9g, stereo %.9g", j + k, i, o[i * ch + j + k],
                             o2[2 * i + k]);
    }
    free(o);
    free(o2);
}

static void test_surround(void **state) {
    (void)state;
    check_mc(48000, 44100, 256, 6); /* 5.1 */
    check_mc(48000, 44100, 256, 8); /* 7.1 */
    check_mc(44100, 48000, 128, 4); /* quad, up */
    check_mc(48000, 96000, 256, 1); /* mono */
}

static void test_bad_rates(void **state) {
    (void)state;
    assert_int_equal(hl_resample_size(48000, 48000, 256, 2), 0);
    assert_int_equal(hl_resample_size(48000, 8000, 256, 2), 0); /* 6:1 down */
    assert_int_equal(hl_resample_size(4000, 48000, 256, 2), 0);
    assert_int_equal(hl_resample_size(48000, 768000, 256, 2), 0);
    assert_int_equal(hl_resample_size(48000, 44100, 0, 2), 0);
    assert_int_equal(hl_resample_size(48000, 44100, 256, 0), 0);
    assert_int_equal(hl_resample_size(48000, 44100, 256, HL_RS_MAX_CHANNELS + 1), 0);
    assert_true(hl_resample_size(48000, 12000, 256, 2) > 0); /* 4:1 is the limit */
    assert_true(hl_resample_size(48000, 44100, 256, 8) > hl_resample_size(48000, 44100, 256, 2));
    char small[64] __attribute__((aligned(16)));
    assert_null(hl_resample_init(small, sizeof small, 48000, 44100, 256, 2));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tone_48k_to_44k), cmocka_unit_test(test_tone_44k_to_48k_and_others),
        cmocka_unit_test(test_alias_rejected),  cmocka_unit_test(test_dc_and_reset),
        cmocka_unit_test(test_no_drift),        cmocka_unit_test(test_bad_rates),
        cmocka_unit_test(test_surround),
    };
    return cmocka_run_group_tests_name("resample", tests, NULL, NULL);
}
