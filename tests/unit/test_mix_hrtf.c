/*
 * test_mix_hrtf.c - the mixer with HRTF on (hl_mixer_set_hrtf): memory and
 * API checks, 2D voices bit-identical to a mixer without HRTF, a 3D voice
 * equal to the convolver run by hand on its mono mix (direction from the
 * listener frame, distance gain, the pan law's centre level), a turned
 * listener moving the source to the other ear, the post stage (occlusion)
 * applied to the binaural pair, the convolver state reset when a slot
 * starts a new voice, and the convolver's ring-out played after a source
 * that ends on its own (ENDED then one block later, with the frame and
 * cursor of the block the source ended in).
 *
 * The set is built by hand on a small grid (hl_hrtf_set_init) with
 * different left and right filters and delays, so the tests do not depend
 * on a SOFA file and every expected value is computed independently.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_hrtf.h"
#include "hl_mixer.h"
#include "mix_helpers.h"

#define N_AZ     8
#define BLOCK    HL_MIX_BLOCK
#define CENTRE_L 0.70710678f /* the level the mixer feeds a binaural voice's convolver */

static void *g_set_mem;
static hl_hrtf_set_t *g_set;

/* Deterministic values in [-1, 1). */
static uint32_t rng = 777u;
static float noise(void) {
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / 8388608.0f - 1.0f;
}

static int group_setup(void **state) {
    (void)state;
    size_t size = hl_hrtf_set_size(N_AZ, 1);
    g_set_mem = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!g_set_mem) return -1;
    g_set = hl_hrtf_set_init(g_set_mem, TEST_RATE, N_AZ, 1, 0.0f, 0.0f);
    if (!g_set) return -1;
    for (uint32_t a = 0; a < N_AZ; a++) {
        hl_hrtf_entry_t *e = hl_hrtf_set_entry(g_set, a, 0);
        for (int k = 0; k < HL_HRTF_TAPS; k++) {
            float decay = powf(0.8f, (float)k);
            e->ir[0][k] = 0.4f * decay * noise();
            e->ir[1][k] = 0.4f * decay * noise();
        }
        e->ir[0][0] += 0.5f;
        e->ir[1][0] += 0.5f;
        e->delay[0] = 1.0f + (float)a * 1.5f; /* distinct per direction and ear */
        e->delay[1] = 12.0f - (float)a;
    }
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    free(g_set_mem);
    return 0;
}

/* A mixer with HRTF state (and the set when set_it). */
typedef struct {
    hl_mixer_t *m;
    void *mem;
} hmix_t;

static hmix_t hmix_new(uint32_t voices, int hrtf, int set_it) {
    hmix_t h = {0};
    hl_mixer_config_t cfg = {.rate = TEST_RATE, .voices = voices, .hrtf = (uint32_t)hrtf};
    size_t size = hl_mixer_size(&cfg);
    assert_true(size > 0);
    h.mem = malloc(size);
    assert_non_null(h.mem);
    h.m = hl_mixer_init(h.mem, size, &cfg);
    assert_non_null(h.m);
    if (set_it) assert_int_equal(hl_mixer_set_hrtf(h.m, g_set), 0);
    return h;
}

static void hmix_free(hmix_t *h) {
    free(h->mem);
    h->mem = NULL;
    h->m = NULL;
}

static void render(hl_mixer_t *m, float *out, uint32_t frames) {
    uint64_t now = 1;
    test_render(m, out, frames, BLOCK, &now);
}

/* ---- API and memory ------------------------------------------------------------- */

static void test_size_and_api(void **state) {
    (void)state;
    hl_mixer_config_t off = {.rate = TEST_RATE, .voices = 32};
    hl_mixer_config_t on = off;
    on.hrtf = 1;
    /* one convolver state per physical slot, only when asked for */
    size_t grow = hl_mixer_size(&on) - hl_mixer_size(&off);
    size_t per_slot = 32u * HL_SLOT_FACTOR * sizeof(hl_hrtf_voice_t);
    assert_true(grow >= per_slot && grow < per_slot + 64);

    hmix_t plain = hmix_new(4, 0, 0);
    assert_int_equal(hl_mixer_set_hrtf(plain.m, g_set), HELIOD_EINVAL); /* no state */
    assert_int_equal(hl_mixer_set_hrtf(plain.m, NULL), 0);
    assert_null(hl_mixer_hrtf(plain.m));
    hmix_free(&plain);

    hmix_t h = hmix_new(4, 1, 0);
    g_set->rate = 44100; /* a set for another rate */
    assert_int_equal(hl_mixer_set_hrtf(h.m, g_set), HELIOD_EINVAL);
    g_set->rate = TEST_RATE;
    assert_int_equal(hl_mixer_set_hrtf(h.m, g_set), 0);
    assert_ptr_equal(hl_mixer_hrtf(h.m), g_set);
    assert_int_equal(hl_mixer_set_hrtf(h.m, NULL), 0);
    assert_null(hl_mixer_hrtf(h.m));
    hmix_free(&h);
}

/* ---- 2D voices are untouched ---------------------------------------------------- */

static void play_2d_scene(hl_mixer_t *m, hl_pcm_t *mono, hl_pcm_t *stereo) {
    hl_voice_params_t p = test_params(mono);
    p.pan = -0.4f;
    p.gain = 0.3f;
    p.flags = HL_MIX_LOOP;
    uint64_t v;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    p = test_params(stereo);
    p.pan = 0.7f;
    p.gain = 0.2f;
    p.pitch = 1.31f; /* the interpolating path */
    p.flags = HL_MIX_LOOP | HL_MIX_CUBIC;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
    p = test_params(mono);
    p.gain = 0.25f;
    p.lp_hz = 2000.0f; /* the post stage without HRTF */
    p.send_bus[0] = HL_BUS_MUSIC;
    p.send_gain[0] = 0.5f;
    p.flags = HL_MIX_LOOP;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, NULL), 0);
}

static void test_2d_bit_identical(void **state) {
    (void)state;
    enum { FRAMES = 8 * BLOCK };
    hl_pcm_t *mono = test_pcm_sine(3000, 1, 0.013, 0.0, 0.5f);
    hl_pcm_t *stereo = test_pcm_sine(3000, 2, 0.007, 0.3, 0.5f);
    hmix_t off = hmix_new(8, 0, 0), on = hmix_new(8, 1, 1);
    play_2d_scene(off.m, mono, stereo);
    play_2d_scene(on.m, mono, stereo);
    float *a = calloc(2 * FRAMES, sizeof(float)), *b = calloc(2 * FRAMES, sizeof(float));
    render(off.m, a, FRAMES);
    render(on.m, b, FRAMES);
    double e = 0;
    for (size_t i = 0; i < 2 * FRAMES; i++)
        e += (double)a[i] * a[i];
    assert_true(e > 1.0); /* something played */
    assert_memory_equal(a, b, 2 * FRAMES * sizeof(float));
    hl_mixer_stats_t st;
    hl_mixer_stats(on.m, &st);
    assert_int_equal(st.hrtf_voices, 0);
    assert_int_equal(st.voices_mixed, 3);
    free(a);
    free(b);
    hmix_free(&off);
    hmix_free(&on);
    test_pcm_free(mono);
    test_pcm_free(stereo);
}

/* ---- a 3D voice through the convolver ------------------------------------------- */

/* The mixer's output for one 3D voice at pos, minus nothing: returns frames
 * of interleaved stereo in out. */
static void render_3d(hmix_t *h, const hl_pcm_t *pcm, const float pos[3], float occ_db, float *out,
                      uint32_t frames) {
    hl_voice_params_t p = test_params(pcm);
    p.flags = HL_MIX_3D | HL_MIX_LOOP;
    memcpy(p.pos, pos, sizeof p.pos);
    p.model = HL_MIX_DIST_INVERSE;
    p.occ_db = occ_db;
    uint64_t v;
    assert_int_equal(hl_mixer_play(h->m, &p, 0, &v, NULL), 0);
    render(h->m, out, frames);
}

/* The same by hand: the source (looped, or followed by silence) x level
 * through a fresh convolver at dir. */
static void expect_3d_src(const hl_pcm_t *pcm, int loop, const float dir[3], float level,
                          float *out, uint32_t frames) {
    hl_hrtf_voice_t st;
    hl_hrtf_voice_reset_rt(&st);
    float in[BLOCK], l[BLOCK], r[BLOCK];
    for (uint32_t done = 0; done < frames; done += BLOCK) {
        for (uint32_t t = 0; t < BLOCK; t++)
            in[t] =
                loop || done + t < pcm->frames ? pcm->data[(done + t) % pcm->frames] * level : 0.0f;
        memset(l, 0, sizeof l);
        memset(r, 0, sizeof r);
        hl_hrtf_process_rt(g_set, &st, in, BLOCK, dir, 1.0f, l, r);
        for (uint32_t t = 0; t < BLOCK; t++) {
            out[2 * (done + t)] = l[t];
            out[2 * (done + t) + 1] = r[t];
        }
    }
}

static void expect_3d(const hl_pcm_t *pcm, const float dir[3], float level, float *out,
                      uint32_t frames) {
    expect_3d_src(pcm, 1, dir, level, out, frames);
}

static double max_diff(const float *a, const float *b, size_t n) {
    double d = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs((double)a[i] - b[i]) > d) d = fabs((double)a[i] - b[i]);
    return d;
}

static void test_3d_is_the_convolver(void **state) {
    (void)state;
    enum { FRAMES = 6 * BLOCK };
    hl_pcm_t *src = test_pcm_sine(1000, 1, 0.021, 0.0, 0.25f);
    float *got = calloc(2 * FRAMES, sizeof(float)), *want = calloc(2 * FRAMES, sizeof(float));

    /* 1 m to the left of the default listener (facing -z, up +y): distance
     * gain 1, direction (-1, 0, 0), i.e. azimuth 90 degrees (grid point 2) */
    hmix_t h = hmix_new(4, 1, 1);
    const float left[3] = {-1.0f, 0.0f, 0.0f};
    render_3d(&h, src, left, 0.0f, got, FRAMES);
    expect_3d(src, left, CENTRE_L, want, FRAMES);
    assert_true(max_diff(got, want, 2 * FRAMES) < 1e-6);
    hl_mixer_stats_t st;
    hl_mixer_stats(h.m, &st);
    assert_int_equal(st.hrtf_voices, 1);
    hmix_free(&h);

    /* 4 m behind: inverse distance gain 1/4, direction (0, 0, 4) */
    h = hmix_new(4, 1, 1);
    const float behind[3] = {0.0f, 0.0f, 4.0f};
    render_3d(&h, src, behind, 0.0f, got, FRAMES);
    expect_3d(src, behind, CENTRE_L * 0.25f, want, FRAMES);
    assert_true(max_diff(got, want, 2 * FRAMES) < 1e-6);
    hmix_free(&h);

    /* the listener turned to face +x (right = +z): a source at +x is in
     * front of it now, i.e. listener direction (0, 0, -2) */
    h = hmix_new(4, 1, 1);
    hl_listener_state_t lis = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}, 0};
    assert_int_equal(hl_mixer_set_listener(h.m, &lis, 0), 0);
    const float ahead_x[3] = {2.0f, 0.0f, 0.0f}, front[3] = {0.0f, 0.0f, -2.0f};
    render_3d(&h, src, ahead_x, 0.0f, got, FRAMES);
    expect_3d(src, front, CENTRE_L * 0.5f, want, FRAMES);
    assert_true(max_diff(got, want, 2 * FRAMES) < 1e-6);
    hmix_free(&h);

    /* the post stage takes the binaural pair: -6 dB of occlusion scales it */
    h = hmix_new(4, 1, 1);
    render_3d(&h, src, left, -6.0f, got, FRAMES);
    expect_3d(src, left, CENTRE_L, want, FRAMES);
    const float occ = powf(10.0f, -6.0f / 20.0f);
    for (size_t i = 0; i < 2 * FRAMES; i++)
        want[i] *= occ;
    assert_true(max_diff(got, want, 2 * FRAMES) < 1e-6);
    hmix_free(&h);

    /* with HRTF state but no set, 3D voices pan as before (no binaural) */
    h = hmix_new(4, 1, 0);
    render_3d(&h, src, left, 0.0f, got, FRAMES);
    double er = 0;
    for (size_t i = 0; i < FRAMES; i++)
        er += (double)got[2 * i + 1] * got[2 * i + 1];
    assert_true(er < 1e-12); /* hard left: nothing on the right */
    hmix_free(&h);

    free(got);
    free(want);
    test_pcm_free(src);
}

/* ---- state reset when a slot starts a new voice --------------------------------- */

static void log_ev(void *user, const hl_mix_event_t *ev) {
    uint64_t *ended = user;
    if (ev->type == HL_MIX_EV_ENDED) *ended = ev->voice;
}

static void test_state_reset_on_reuse(void **state) {
    (void)state;
    /* A: loud looping noise stopped with a fade of exactly one block, so it
     * ends with its convolver's history full of the fade's last frames */
    hl_pcm_t *loud = test_pcm_dc(3 * BLOCK, 1, 0.0f);
    for (uint32_t i = 0; i < loud->frames; i++)
        ((float *)loud->data)[i] = 0.5f * noise();
    hl_pcm_t *silent = test_pcm_dc(4 * BLOCK, 1, 0.0f);
    hmix_t h = hmix_new(1, 1, 1);
    hl_voice_params_t p = test_params(loud);
    p.flags = HL_MIX_3D | HL_MIX_LOOP;
    p.pos[0] = -1.0f;
    p.model = HL_MIX_DIST_INVERSE;
    uint64_t a, b, ended = 0;
    assert_int_equal(hl_mixer_play(h.m, &p, 0, &a, NULL), 0);
    float out[2 * 3 * BLOCK];
    render(h.m, out, 2 * BLOCK);
    assert_int_equal(hl_mixer_stop(h.m, a, BLOCK, HL_MIX_END_STOPPED, 0), 0);
    render(h.m, out, BLOCK); /* the fade, and the end */
    assert_true(hl_mixer_poll(h.m, log_ev, &ended) > 0);
    assert_int_equal(ended, a);

    /* B in the same slot plays silence: a history left from A would ring
     * into its first block */
    p.pcm = silent;
    p.flags = HL_MIX_3D;
    assert_int_equal(hl_mixer_play(h.m, &p, 0, &b, NULL), 0);
    assert_int_equal((uint32_t)b, (uint32_t)a); /* same slot, new generation */
    render(h.m, out, 2 * BLOCK);
    for (size_t i = 0; i < 2 * 2 * BLOCK; i++)
        assert_true(out[i] == 0.0f);
    hl_mixer_stats_t st;
    hl_mixer_stats(h.m, &st);
    assert_int_equal(st.hrtf_voices, 1);
    hmix_free(&h);
    test_pcm_free(loud);
    test_pcm_free(silent);
}

/* ---- the convolver rings out after the source ends ------------------------------ */

static void keep_ended(void *user, const hl_mix_event_t *ev) {
    if (ev->type == HL_MIX_EV_ENDED) *(hl_mix_event_t *)user = *ev;
}

static void test_ring_out_after_natural_end(void **state) {
    (void)state;
    enum { FRAMES = 4 * BLOCK };
    /* noise ending 5 frames before the end of its second block, loud to the
     * last sample: the far ear's delay and the HRIR hold ~50 more frames */
    hl_pcm_t *src = test_pcm_dc(2 * BLOCK - 5, 1, 0.0f);
    for (uint32_t i = 0; i < src->frames; i++)
        ((float *)src->data)[i] = 0.4f * noise();
    hmix_t h = hmix_new(2, 1, 1);
    hl_voice_params_t p = test_params(src);
    p.flags = HL_MIX_3D;
    p.pos[0] = -1.0f;
    p.model = HL_MIX_DIST_INVERSE;
    uint64_t v, ended = 0;
    assert_int_equal(hl_mixer_play(h.m, &p, 0, &v, NULL), 0);
    float *got = calloc(2 * FRAMES, sizeof(float)), *want = calloc(2 * FRAMES, sizeof(float));
    render(h.m, got, 2 * BLOCK);
    assert_int_equal(hl_mixer_poll(h.m, log_ev, &ended), 1); /* STARTED only: still ringing */
    assert_int_equal(ended, 0);
    render(h.m, got + 4 * BLOCK, 2 * BLOCK);
    const float left[3] = {-1.0f, 0.0f, 0.0f};
    expect_3d_src(src, 0, left, CENTRE_L, want, FRAMES);
    double tail = 0;
    for (size_t i = 2 * BLOCK; i < 3 * BLOCK; i++)
        tail += fabs((double)want[2 * i]) + fabs((double)want[2 * i + 1]);
    assert_true(tail > 0.1); /* there is a ring-out to lose */
    assert_true(max_diff(got, want, 2 * FRAMES) < 1e-6);
    hl_mix_event_t end = {0};
    assert_int_equal(hl_mixer_poll(h.m, keep_ended, &end), 1);
    assert_int_equal(end.voice, v);
    assert_int_equal(end.reason, HL_MIX_END_FINISHED);
    assert_int_equal(end.frame, 2 * BLOCK); /* the block its source ended in */
    assert_int_equal(end.cursor, src->frames);
    hmix_free(&h);
    free(got);
    free(want);
    test_pcm_free(src);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_and_api),
        cmocka_unit_test(test_2d_bit_identical),
        cmocka_unit_test(test_3d_is_the_convolver),
        cmocka_unit_test(test_state_reset_on_reuse),
        cmocka_unit_test(test_ring_out_after_natural_end),
    };
    return cmocka_run_group_tests_name("mix_hrtf", tests, group_setup, group_teardown);
}
