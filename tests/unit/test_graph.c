/*
 * test_graph.c - the mixer graph (daemon/mixer/mixer_bus.c): a bus tree
 * with parents, mute, inserts handed back when detached, sends, ducking,
 * and the per-voice filter and occlusion gain, all through the mixer's API.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_mixer.h"
#include "mix_helpers.h"

#define N 9600 /* 0.2 s */

static double rms_l(const float *out, uint32_t from, uint32_t to) {
    double s = 0;
    for (uint32_t i = from; i < to; i++)
        s += (double)out[2 * i] * out[2 * i];
    return sqrt(s / (to - from));
}

static double db(double x) {
    return 20.0 * log10(x > 1e-12 ? x : 1e-12);
}

/* bus 4 under music; bus 5 under bus 4 */
static void tree(hl_mixer_t *m) {
    int8_t parent[HL_MAX_BUSES];
    for (int b = 0; b < HL_MAX_BUSES; b++)
        parent[b] = -1;
    parent[4] = HL_BUS_MUSIC;
    parent[5] = 4;
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x3F, 0), 0);
}

static void test_tree_gains_and_mute(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    hl_pcm_t *pcm = test_pcm_dc(48000, 1, 0.5f);
    float *out = calloc(2 * N, sizeof(float));
    assert_non_null(out);
    tree(m);
    hl_voice_params_t p = test_params(pcm);
    p.bus = 5;
    p.flags = HL_MIX_LOOP;
    uint64_t v = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
    test_render(m, out, 512, 256, &now);
    const float centre = 0.5f * 0.70710678f;
    assert_float_equal(out[2 * 511], centre, 1e-6);
    /* the grandparent's gain reaches the grandchild */
    assert_int_equal(hl_mixer_set_bus_gain(m, HL_BUS_MUSIC, 0.5f, 0, 0), 0);
    test_render(m, out, 512, 256, &now);
    assert_float_equal(out[2 * 511], centre * 0.5f, 1e-6);
    /* mute bus 4: silence after the ramp, gain kept */
    assert_int_equal(hl_mixer_set_bus_mute(m, 4, 1, 256, 0), 0);
    test_render(m, out, 512, 256, &now);
    assert_float_equal(out[2 * 511], 0.0f, 1e-9);
    assert_true(hl_mixer_get_bus_mute(m, 4));
    assert_int_equal(hl_mixer_set_bus_mute(m, 4, 0, 256, 0), 0);
    test_render(m, out, 512, 256, &now);
    assert_float_equal(out[2 * 511], centre * 0.5f, 1e-6);
    /* removing a bus a voice uses, or leaving a child without its parent, or a cycle */
    int8_t parent[HL_MAX_BUSES];
    for (int b = 0; b < HL_MAX_BUSES; b++)
        parent[b] = -1;
    parent[4] = HL_BUS_MUSIC;
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x1F, 0), HELIOD_EINVAL); /* voice on 5 */
    parent[5] = 4;
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x2F, 0), HELIOD_EINVAL); /* 5 without 4 */
    parent[4] = 5;
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x3F, 0), HELIOD_EINVAL); /* cycle */
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x3E, 0), HELIOD_EINVAL); /* sfx missing */
    /* a play onto a bus that does not exist */
    p.bus = 9;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), HELIOD_EINVAL);
    free(out);
    test_pcm_free(pcm);
    test_mixer_free(m);
}

typedef struct {
    int retired;
    hl_fx_t *fx;
} fx_log_t;

static void on_event(void *user, const hl_mix_event_t *ev) {
    fx_log_t *l = user;
    if (ev->type == HL_MIX_EV_FX_RETIRED) {
        l->retired++;
        l->fx = ev->fx;
    }
}

static void test_insert_eq_and_retire(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    hl_pcm_t *pcm = test_pcm_sine(48000, 1, 1000.0 / TEST_RATE, 0.0, 0.5f);
    float *out = calloc(2 * N, sizeof(float));
    assert_non_null(out);
    hl_voice_params_t p = test_params(pcm);
    p.flags = HL_MIX_LOOP;
    uint64_t v = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
    test_render(m, out, N, 256, &now);
    double ref = rms_l(out, N / 2, N);
    hl_fx_t *eq = calloc(1, sizeof *eq);
    assert_non_null(eq);
    eq->kind = HL_FX_EQ;
    hl_eq_init(&eq->u.eq, TEST_RATE, HL_BQ_PEAK, 1000.0f, 1.0f, -6.0f);
    assert_int_equal(hl_mixer_bus_fx(m, HL_BUS_SFX, &eq, 1, 0), 0);
    assert_int_equal(hl_mixer_bus_fx(m, HL_BUS_MUSIC, &eq, 1, 0), HELIOD_EINVAL); /* shared */
    test_render(m, out, N, 256, &now);
    assert_float_equal(db(rms_l(out, N / 2, N) / ref), -6.0, 0.2);
    /* a glide to -12 dB */
    hl_fx_params_t fp = {.kind = HL_FX_EQ,
                         .eq_type = HL_BQ_PEAK,
                         .freq = 1000.0f,
                         .q = 1.0f,
                         .gain_db = -12.0f,
                         .ramp_frames = 2400};
    assert_int_equal(hl_mixer_fx_param(m, eq, &fp, 0), 0);
    test_render(m, out, N, 256, &now);
    assert_float_equal(db(rms_l(out, N / 2, N) / ref), -12.0, 0.2);
    fx_log_t log = {0};
    hl_mixer_poll(m, on_event, &log);
    assert_int_equal(log.retired, 0);
    /* detached: handed back on the event ring, then the caller frees it */
    assert_int_equal(hl_mixer_bus_fx(m, HL_BUS_SFX, NULL, 0, 0), 0);
    test_render(m, out, N, 256, &now);
    hl_mixer_poll(m, on_event, &log);
    assert_int_equal(log.retired, 1);
    assert_ptr_equal(log.fx, eq);
    assert_float_equal(db(rms_l(out, N / 2, N) / ref), 0.0, 0.05);
    free(eq);
    free(out);
    test_pcm_free(pcm);
    test_mixer_free(m);
}

static void test_send_filter_occlusion(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    hl_pcm_t *pcm = test_pcm_sine(48000, 1, 1000.0 / TEST_RATE, 0.0, 0.5f);
    float *out = calloc(2 * N, sizeof(float));
    assert_non_null(out);
    tree(m);
    hl_voice_params_t p = test_params(pcm);
    p.flags = HL_MIX_LOOP;
    uint64_t v = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
    test_render(m, out, N, 256, &now);
    double ref = rms_l(out, N / 2, N);
    /* a send of 0.5 to bus 4 adds half again */
    hl_voice_set_t s = {.mask = HL_MIX_SET_SENDS, .ramp_frames = 256};
    s.send_bus[0] = 4;
    s.send_gain[0] = 0.5f;
    assert_int_equal(hl_mixer_set(m, v, &s, 0), 0);
    test_render(m, out, N, 256, &now);
    assert_float_equal(rms_l(out, N / 2, N) / ref, 1.5, 1e-3);
    /* a bus a send uses cannot go */
    int8_t parent[HL_MAX_BUSES];
    for (int b = 0; b < HL_MAX_BUSES; b++)
        parent[b] = -1;
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x0F, 0), HELIOD_EINVAL);
    s.send_gain[0] = 0.0f;
    assert_int_equal(hl_mixer_set(m, v, &s, 0), 0);
    test_render(m, out, N, 256, &now);
    assert_float_equal(rms_l(out, N / 2, N) / ref, 1.0, 1e-3);
    /* nor can a bus a ducking rule names, until the rule goes */
    assert_int_equal(hl_mixer_duck(m, 1, 1, 4, HL_BUS_SFX, 6.0f, -40.0f, 10.0f, 0.0f, 10.0f, 0), 0);
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x0F, 0), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_duck(m, 1, 0, 0, 0, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0), 0);
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x0F, 0), 0);
    /* a low-pass at the tone's frequency: -3 dB; occlusion -6 dB on top */
    hl_voice_set_t f = {.mask = HL_MIX_SET_FILTER, .lp_hz = 1000.0f, .ramp_frames = 2400};
    assert_int_equal(hl_mixer_set(m, v, &f, 0), 0);
    test_render(m, out, N, 256, &now);
    assert_float_equal(db(rms_l(out, N / 2, N) / ref), -3.0, 0.5);
    double max_step = 0;
    for (uint32_t i = 1; i < N; i++) {
        double d = fabs(out[2 * i] - out[2 * i - 2]);
        if (d > max_step) max_step = d;
    }
    assert_true(max_step < 0.5 * 0.7072 * 2 * M_PI * 1000.0 / TEST_RATE * 1.05); /* no zipper */
    f.occ_db = -6.0f;
    assert_int_equal(hl_mixer_set(m, v, &f, 0), 0);
    test_render(m, out, N, 256, &now);
    assert_float_equal(db(rms_l(out, N / 2, N) / ref), -9.0, 0.5);
    /* all off again: the voice leaves the post stage, bit-exact with none */
    f.lp_hz = 0.0f;
    f.occ_db = 0.0f;
    assert_int_equal(hl_mixer_set(m, v, &f, 0), 0);
    test_render(m, out, N, 256, &now);
    assert_float_equal(db(rms_l(out, N / 2, N) / ref), 0.0, 0.05);
    free(out);
    test_pcm_free(pcm);
    test_mixer_free(m);
}

static void test_ducking(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    hl_pcm_t *music = test_pcm_dc(96000, 1, 0.25f);
    hl_pcm_t *speech = test_pcm_dc(96000, 1, 0.25f);
    enum { T = 48000 };
    float *out = calloc(2 * T, sizeof(float));
    assert_non_null(out);
    hl_voice_params_t p = test_params(music);
    p.bus = HL_BUS_MUSIC;
    p.flags = HL_MIX_LOOP;
    uint64_t vm = 0, vd = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &vm, &st), 0);
    /* a silent sidechain never ducks */
    assert_int_equal(
        hl_mixer_duck(m, 0, 1, HL_BUS_DIALOG, HL_BUS_MUSIC, 9.0f, -40.0f, 80.0f, 200.0f, 600.0f, 0),
        0);
    test_render(m, out, T / 4, 256, &now);
    hl_mixer_stats_t ms;
    hl_mixer_stats(m, &ms);
    assert_float_equal(ms.duck_gain[HL_BUS_MUSIC], 1.0f, 1e-6);
    /* dialog speaks: music goes down 9 dB within the attack (+ a block) */
    p.bus = HL_BUS_DIALOG;
    p.pcm = speech;
    assert_int_equal(hl_mixer_play(m, &p, 0, &vd, &st), 0);
    test_render(m, out, 4800 + 256, 256, &now); /* attack 80 ms = 3840 frames */
    hl_mixer_stats(m, &ms);
    assert_float_equal(20.0 * log10(ms.duck_gain[HL_BUS_MUSIC]), -9.0, 0.1);
    assert_float_equal(ms.bus_peak[HL_BUS_MUSIC], 0.25f * 0.7071f * powf(10.0f, -9.0f / 20.0f),
                       2e-3);
    /* dialog stops: hold, then release back to 0 dB */
    assert_int_equal(hl_mixer_stop(m, vd, 0, HL_MIX_END_STOPPED, 0), 0);
    test_render(m, out, 4800, 256, &now); /* within the hold */
    hl_mixer_stats(m, &ms);
    assert_float_equal(20.0 * log10(ms.duck_gain[HL_BUS_MUSIC]), -9.0, 0.1);
    test_render(m, out, T, 256, &now); /* past hold + release */
    hl_mixer_stats(m, &ms);
    assert_float_equal(ms.duck_gain[HL_BUS_MUSIC], 1.0f, 1e-4);
    free(out);
    test_pcm_free(music);
    test_pcm_free(speech);
    test_mixer_free(m);
}

/* Bus sends: pre-fader, into a target that may come earlier in the tree's
 * own order, ramped, and guarded against loops and removal. */
static void test_bus_sends(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    hl_pcm_t *pcm = test_pcm_dc(48000, 1, 0.5f);
    float *out = calloc(2 * N, sizeof(float));
    assert_non_null(out);
    /* bus 4 (the target) and bus 5 (the sender), both under the master;
     * without the send, 4 would be processed before 5 */
    int8_t parent[HL_MAX_BUSES];
    for (int b = 0; b < HL_MAX_BUSES; b++)
        parent[b] = -1;
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x3F, 0), 0);
    hl_voice_params_t p = test_params(pcm);
    p.bus = 5;
    p.flags = HL_MIX_LOOP;
    uint64_t v = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
    const float centre = 0.5f * 0.70710678f;
    /* the sender's fader at 0 and a send of 0.5 into 4: only the send is heard */
    assert_int_equal(hl_mixer_set_bus_gain(m, 5, 0.0f, 0, 0), 0);
    assert_int_equal(hl_mixer_bus_send(m, 5, 0, 4, 0.5f, 0, 0), 0);
    test_render(m, out, 1024, 256, &now);
    assert_float_equal(out[2 * 1023], centre * 0.5f, 1e-6);
    /* the target's fader applies to what it receives */
    assert_int_equal(hl_mixer_set_bus_gain(m, 4, 0.5f, 0, 0), 0);
    test_render(m, out, 1024, 256, &now);
    assert_float_equal(out[2 * 1023], centre * 0.25f, 1e-6);
    /* a ramped level: monotonic, no step larger than the ramp's */
    assert_int_equal(hl_mixer_bus_send(m, 5, 0, 4, 1.0f, 480, 0), 0);
    test_render(m, out, 1024, 256, &now);
    float maxstep = 0;
    for (int i = 1; i < 1024; i++)
        maxstep = fmaxf(maxstep, fabsf(out[2 * i] - out[2 * i - 2]));
    assert_true(maxstep < centre * 0.5f * 0.5f / 400.0f);
    assert_float_equal(out[2 * 1023], centre * 0.5f, 1e-6);
    /* loops through sends (4 -> 5 while 5 -> 4), or into itself, are refused */
    assert_int_equal(hl_mixer_bus_send(m, 4, 0, 5, 1.0f, 0, 0), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_bus_send(m, 4, 0, 4, 1.0f, 0, 0), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_bus_send(m, 4, HL_BUS_SENDS, 1, 1.0f, 0, 0), HELIOD_EINVAL);
    /* nor through a parent: 4 under 5 while 5 sends to 4 */
    parent[4] = 5;
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x3F, 0), HELIOD_EINVAL);
    parent[4] = -1;
    /* the target cannot go while the send is there */
    assert_int_equal(hl_mixer_stop(m, v, 0, HL_MIX_END_STOPPED, 0), 0);
    test_render(m, out, 1024, 256, &now);
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x2F, 0), HELIOD_EINVAL);
    assert_int_equal(hl_mixer_bus_send(m, 5, 0, -1, 0.0f, 0, 0), 0);
    assert_int_equal(hl_mixer_bus_graph(m, parent, 0x2F, 0), 0);
    test_render(m, out, 256, 256, &now);
    free(out);
    test_pcm_free(pcm);
    test_mixer_free(m);
}

/* The figures the meters get (hl_mixer_meter_rt): per call, for each bus
 * where it joins its parent and for the master after the limiter, the peak
 * and the sum of squares of each channel over the call's frames (a call of
 * 600 frames spans three internal blocks); a bus that did not run reads 0. */
static void test_meter_figures(void **state) {
    (void)state;
    hl_mixer_t *m = test_mixer_new(8, 0);
    hl_pcm_t *pcm = test_pcm_dc(48000, 1, 0.5f);
    static float out[2 * 600];
    tree(m);
    hl_voice_params_t p = test_params(pcm);
    p.bus = 5;
    p.flags = HL_MIX_LOOP;
    uint64_t v = 0, st = 0, now = 0;
    assert_int_equal(hl_mixer_play(m, &p, 0, &v, &st), 0);
    test_render(m, out, 512, 256, &now); /* past any ramp */
    const double c = 0.5 * 0.70710678;   /* centre pan, each channel */
    hl_mixer_process_rt(m, out, 600, 0);
    const hl_mix_meter_t *mt = hl_mixer_meter_rt(m);
    assert_int_equal(mt->frames, 600);
    assert_true(mt->now_frames == 512 + 600);
    const int carry[] = {5, 4, HL_BUS_MUSIC, HL_MIX_METER_MASTER};
    for (int k = 0; k < 4; k++)
        for (int ch = 0; ch < 2; ch++) {
            assert_float_equal(mt->peak[carry[k]][ch], c, 1e-6);
            assert_float_equal(mt->sumsq[carry[k]][ch], 600 * c * c, 1e-3);
        }
    assert_true(mt->peak[HL_BUS_SFX][0] == 0.0f && mt->sumsq[HL_BUS_SFX][1] == 0.0);
    assert_true(mt->peak[HL_BUS_DIALOG][1] == 0.0f);
    /* half the gain on bus 4: bus 5 is metered before it, its parents after */
    assert_int_equal(hl_mixer_set_bus_gain(m, 4, 0.5f, 0, 0), 0);
    hl_mixer_process_rt(m, out, 600, 0); /* the ramp (one block) */
    hl_mixer_process_rt(m, out, 600, 0);
    mt = hl_mixer_meter_rt(m);
    assert_float_equal(mt->peak[5][0], c, 1e-6);
    assert_float_equal(mt->sumsq[5][1], 600 * c * c, 1e-3);
    for (int k = 1; k < 4; k++) {
        assert_float_equal(mt->peak[carry[k]][0], 0.5 * c, 1e-6);
        assert_float_equal(mt->sumsq[carry[k]][1], 600 * 0.25 * c * c, 1e-3);
    }
    /* hard left: the right channel reads nothing */
    hl_voice_set_t s = {.mask = HL_MIX_SET_PAN, .pan = -1.0f, .ramp_frames = 1};
    assert_int_equal(hl_mixer_set(m, v, &s, 0), 0);
    hl_mixer_process_rt(m, out, 600, 0);
    hl_mixer_process_rt(m, out, 600, 0);
    mt = hl_mixer_meter_rt(m);
    assert_float_equal(mt->peak[HL_MIX_METER_MASTER][0], 0.25, 1e-6);
    assert_true(mt->peak[HL_MIX_METER_MASTER][1] == 0.0f);
    assert_true(mt->sumsq[HL_MIX_METER_MASTER][1] == 0.0);
    test_mixer_free(m);
    test_pcm_free(pcm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_gains_and_mute),
        cmocka_unit_test(test_insert_eq_and_retire),
        cmocka_unit_test(test_send_filter_occlusion),
        cmocka_unit_test(test_ducking),
        cmocka_unit_test(test_bus_sends),
        cmocka_unit_test(test_meter_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
