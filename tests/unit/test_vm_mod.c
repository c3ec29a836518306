/*
 * test_vm_mod.c - a cue's gain bound to a global parameter moves its voices
 * through the cue's modulation slot (daemon/voice/vm_params.c): one mixer
 * command per change instead of a SET per voice, and the mix is the same,
 * sample for sample, as by the SETs per voice it replaces (the path taken
 * when every slot is taken): a jump, a seek (ramped steps on the grid),
 * voices started while the value seeks, a voice leaving the slot for a
 * gain of its own; a cue without voices gives its slot back. The same with
 * a low-pass bound too: the cutoffs go in the same command (the slot's
 * shared glide), but for a voice with a low-pass of its own. And the
 * walks over the logical voices stop at the highest slot in use.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cues.h"
#include "hl_mixer.h"
#include "mix_helpers.h"
#include "hl_dsp.h"
#include "params.h"
#include "sounds.h"
#include "vm.h"

#define RATE   48000u
#define PERIOD 256u
#define FRAMES 48000u
#define NS     1000000000ull
#define STEPS  96u

typedef struct {
    void *mem;
    hl_mixer_t *mx;
    hld_cues_t cues;
    hld_params_t params;
    hld_vm_t *vm;
    hld_sound_t snd;
    hl_pcm_t *pcm;
    float *out; /* STEPS periods, stereo */
    uint64_t now, v[8];
    uint32_t nv, step;
    int exhaust; /* every slot taken before */
    int lp;      /* a low-pass binding too */
} rig_t;

static void on_event(void *user, const hl_mix_event_t *ev) {
    rig_t *r = user;
    if (ev->type != HL_MIX_EV_STREAM_RETIRED) hld_vm_on_mix_event(r->vm, ev);
}

/* cmd_ring: the mixer's command ring (0: the default) */
static void setup_ring(rig_t *r, int exhaust, int lp, uint32_t cmd_ring) {
    memset(r, 0, sizeof *r);
    r->exhaust = exhaust;
    r->lp = lp;
    hl_mixer_config_t mc = {.rate = RATE, .voices = 16, .cmd_capacity = cmd_ring};
    size_t size = hl_mixer_size(&mc);
    r->mem = aligned_alloc(64, (size + 63) / 64 * 64);
    assert_non_null(r->mem);
    r->mx = hl_mixer_init(r->mem, size, &mc);
    assert_non_null(r->mx);
    for (uint32_t mod, gen, i = 0; exhaust && i < HL_MIX_MODS; i++)
        assert_int_equal(hl_mixer_mod_alloc(r->mx, &mod, &gen), 0);
    r->pcm = test_pcm_sine(FRAMES, 1, 441.0 / RATE, 0.0, 0.1f);
    r->out = calloc(2 * (size_t)PERIOD * STEPS, sizeof(float));
    snprintf(r->snd.name, sizeof r->snd.name, "noise");
    r->snd.pcm = *r->pcm;
    r->snd.source_rate = RATE;
    r->snd.src_frames = FRAMES;
    hld_cues_init(&r->cues, 1);
    assert_int_equal(hld_params_init(&r->params), 0);
    r->cues.params = &r->params;
    char sheet[256];
    snprintf(sheet, sizeof sheet, "%s%s",
             "[parameter speed] 0 1 0 4\n[cue engine]\nsound = noise\nloop = true\n"
             "bind = speed gain 0:-12 0.5:-3:scurve 1:0\n",
             lp ? "bind = speed lp 0:300:exp 1:12000\n" : "");
    char err[256];
    assert_int_equal(
        hld_cues_load_mem(&r->cues, "t", sheet, strlen(sheet), NULL, NULL, err, sizeof err), 0);
    hld_vm_config_t vc = {
        .logical = 16, .floor_db = HLD_VM_FLOOR_DB, .rate = RATE, .period = PERIOD};
    hld_vm_ops_t ops = {.user = r};
    r->vm = hld_vm_create(&vc, r->mx, &r->cues, &ops);
    assert_non_null(r->vm);
    r->now = NS;
}

static void setup(rig_t *r, int exhaust, int lp) {
    setup_ring(r, exhaust, lp, 0);
}

static void teardown(rig_t *r) {
    hld_vm_destroy(r->vm);
    hld_cues_close(&r->cues);
    hld_params_close(&r->params);
    free(r->mem);
    test_pcm_free(r->pcm);
    free(r->out);
}

/* A voice of the cue as the daemon's build_play makes one: own gain `base`,
 * the bindings' contribution now folded in; 2D, panned by `pan`. */
static void play_lp(rig_t *r, float base, float pan, float own_lp) {
    hld_cue_t *cue = hld_cues_find(&r->cues, "engine");
    hld_vm_play_t pl = {
        .cue = cue,
        .snd = &r->snd,
        .pv = {.bound = 1, .base_gain = base, .base_pitch = 1.0f},
        .p = test_params(&r->snd.pcm),
        .owner = 1,
        .rate = 1.0,
        .len = FRAMES,
        .le = FRAMES,
        .loops = -1,
    };
    hld_params_contrib(&r->params, cue->binds, cue->nbinds, 0, 0, "", 0, 0, &pl.pv.pc);
    pl.p.flags = HL_MIX_LOOP;
    pl.p.gain = base * powf(10.0f, pl.pv.pc.gain_db / 20.0f);
    pl.p.pan = pan;
    pl.post_user[0] = own_lp; /* the low-pass it asked for (0: none) */
    float occ_db;
    hld_vm_post_map(RATE, pl.post_user, &pl.pv.pc, &pl.p.lp_hz, &pl.p.hp_hz, &occ_db);
    uint64_t st = 0;
    assert_int_equal(hld_vm_play(r->vm, &pl, r->now, &r->v[r->nv++], &st), 0);
}

static void play(rig_t *r, float base, float pan) {
    play_lp(r, base, pan, 0.0f);
}

static void periods(rig_t *r, uint32_t n) {
    for (uint32_t i = 0; i < n; i++, r->step++) {
        r->now += (uint64_t)PERIOD * NS / RATE;
        hld_vm_tick(r->vm, r->now);
        hld_vm_params_tick(r->vm, &r->params, r->now);
        hl_mixer_process_rt(r->mx, r->out + 2 * (size_t)PERIOD * r->step, PERIOD, r->now);
        hl_mixer_poll(r->mx, on_event, r);
    }
}

static void speed(rig_t *r, float v) {
    hld_param_t *p = hld_params_find(&r->params, "speed");
    assert_int_equal(hld_params_set(&r->params, p, HL_PSCOPE_GLOBAL, 0, NULL, v, 1), 0);
}

static void scenario(rig_t *r) {
    for (int i = 0; i < 5; i++)
        play(r, i % 2 ? 0.5f : 1.0f, -0.8f + 0.4f * (float)i);
    periods(r, 8);
    speed(r, 1.0f); /* seeks over 0.25 s: ramped steps */
    periods(r, 10);
    play(r, 0.7f, 0.3f); /* while it seeks */
    play(r, 1.2f, -0.3f);
    play_lp(r, 0.9f, 0.1f, 2000.0f);       /* a low-pass of its own: its filter by SETs */
    for (uint32_t i = 0; i < r->nv; i++) { /* on the slot when there is one */
        const hl_voice_params_t *p = &hld_vm_get(r->vm, r->v[i])->p;
        assert_int_equal(p->mod != 0, r->exhaust == 0);
        if (p->mod)
            assert_int_equal(p->mod_what,
                             r->lp && i + 1 < r->nv ? HL_MOD_GAIN | HL_MOD_FILTER : HL_MOD_GAIN);
    }
    periods(r, 40);
    hl_voice_set_t s; /* voice 1 takes a gain of its own: off the slot */
    memset(&s, 0, sizeof s);
    s.mask = HL_MIX_SET_GAIN;
    s.gain = 0.25f;
    s.ramp_frames = 64;
    assert_int_equal(hld_vm_params_user_set(r->vm, r->v[1], &s, NULL, r->now), 0);
    periods(r, 6);
    speed(r, 0.2f);
    periods(r, STEPS - r->step);
}

static double rms(const float *x, size_t n) {
    double a = 0;
    for (size_t i = 0; i < n; i++)
        a += (double)x[i] * x[i];
    return sqrt(a / (double)n);
}

static void slot_equals_sets(int lp) {
    rig_t a, b;
    setup(&a, 0, lp);
    scenario(&a);
    setup(&b, 1, lp); /* every slot taken: SETs per voice */
    scenario(&b);
    assert_int_equal(hld_vm_real_count(a.vm), 8);
    for (size_t i = 0; i < 2 * (size_t)PERIOD * STEPS; i++)
        if (a.out[i] != b.out[i]) {
            print_message("DIFF at frame %zu ch %zu: %.9g %.9g sets %llu %llu\n", i / 2, i % 2,
                          a.out[i], b.out[i], (unsigned long long)a.params.sets,
                          (unsigned long long)b.params.sets);
            break;
        }
    assert_int_equal(memcmp(a.out, b.out, 2 * (size_t)PERIOD * STEPS * sizeof(float)), 0);
    /* one command per change on the slot (and the SETs of the voice that
     * left it and, with the low-pass, of the voice with a low-pass of its
     * own); a SET per voice (5 to 8) and change without */
    assert_true(a.params.sets > 0);
    print_message("sets: slot %llu, per voice %llu\n", (unsigned long long)a.params.sets,
                  (unsigned long long)b.params.sets);
    assert_true(b.params.sets >= (lp ? 2 : 4) * a.params.sets);
    /* and the parameter moved the mix: -12 dB at the start, about 0 at 1 */
    double lo = rms(a.out + 2 * PERIOD * 4, 2 * PERIOD);
    double top = rms(a.out + 2 * PERIOD * 50, 2 * PERIOD);
    assert_true(top > 2.5 * lo);
    teardown(&a);
    teardown(&b);
}

static void test_slot_equals_sets(void **state) {
    (void)state;
    slot_equals_sets(0);
}

static void test_slot_filter_equals_sets(void **state) {
    (void)state;
    slot_equals_sets(1);
}

/* n periods without the ranking (which brings every voice's copy up to
 * its slot): only what reads a voice does. */
static void periods_unranked(rig_t *r, uint32_t n) {
    for (uint32_t i = 0; i < n; i++, r->step++) {
        r->now += (uint64_t)PERIOD * NS / RATE;
        hld_vm_params_tick(r->vm, &r->params, r->now);
        hl_mixer_process_rt(r->mx, r->out + 2 * (size_t)PERIOD * r->step, PERIOD, r->now);
        hl_mixer_poll(r->mx, on_event, r);
    }
}

/* Each voice's gain, cutoffs and bindings' contribution as the control side
 * reports them (hld_vm_get) in a (on the slot) equal, bit for bit, what the
 * SETs per voice of b gave its twin (eval_voice's own arithmetic), and the
 * gain is the base times the bindings' gain. */
static float copies_equal(rig_t *a, rig_t *b, const float *base) {
    float sum = 0.0f;
    for (uint32_t i = 0; i < a->nv; i++) {
        const hld_lvoice_t *x = hld_vm_get(a->vm, a->v[i]), *y = hld_vm_get(b->vm, b->v[i]);
        assert_non_null(x);
        assert_non_null(y);
        if (x->p.gain != y->p.gain || x->p.lp_hz != y->p.lp_hz || x->p.hp_hz != y->p.hp_hz)
            print_message("voice %u: gain %.9g %.9g lp %.9g %.9g\n", i, x->p.gain, y->p.gain,
                          x->p.lp_hz, y->p.lp_hz);
        assert_true(x->p.gain == y->p.gain);
        assert_true(x->p.lp_hz == y->p.lp_hz);
        assert_true(x->p.hp_hz == y->p.hp_hz);
        assert_int_equal(memcmp(&x->pv.pc, &y->pv.pc, sizeof x->pv.pc), 0);
        if (base[i] > 0.0f) assert_true(x->p.gain == base[i] * hl_db_to_lin(x->pv.pc.gain_db));
        sum += x->p.gain + x->p.lp_hz;
    }
    return sum;
}

/* The control side's copies of voices on the slot are brought up to it
 * when read, after several of its changes unread (no ranking, no walk over
 * the voices: every voice on the slot): the same, bit for bit, as the SETs
 * per voice give them, through seeks; then with a voice with a low-pass of
 * its own (the evaluations walk), and one that left the slot for a gain of
 * its own. */
static void test_slot_copies_follow(void **state) {
    (void)state;
    rig_t a, b;
    setup(&a, 0, 1);
    setup(&b, 1, 1); /* every slot taken: SETs per voice */
    float base[] = {1.0f, 0.5f, 0.25f, 0.8f};
    for (int k = 0; k < 2; k++) {
        rig_t *r = k ? &b : &a;
        play(r, base[0], -0.5f);
        play(r, base[1], 0.5f);
        play(r, base[2], 0.2f);
        periods(r, 4);
    }
    static const float vals[] = {1.0f, 0.3f, 0.8f, 0.0f, 0.6f, 0.95f, 0.1f};
    float last = copies_equal(&a, &b, base);
    for (uint32_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        if (k == 2) { /* a ranking after changes unread: audibility by the gains now */
            speed(&a, 0.6f);
            speed(&b, 0.6f);
            periods_unranked(&a, 2);
            periods_unranked(&b, 2);
            periods(&a, 4);
            periods(&b, 4);
            for (uint32_t i = 0; i < a.nv; i++)
                assert_true(hld_vm_get(a.vm, a.v[i])->aud == hld_vm_get(b.vm, b.v[i])->aud);
        }
        if (k == 2) { /* mid-seek, a voice with a low-pass of its own: its filter by SETs */
            play_lp(&a, base[3], 0.0f, 2000.0f);
            play_lp(&b, base[3], 0.0f, 2000.0f);
        }
        if (k == 4) { /* voice 1 takes a gain of its own: off the slot */
            /* (once the seek is over: while it runs, the SETs per voice
             * already scheduled ahead with its former own gain land after
             * this one, and the two mixes part until the next) */
            periods_unranked(&a, 36);
            periods_unranked(&b, 36);
            copies_equal(&a, &b, base);
            hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN, .gain = 0.7f, .ramp_frames = 64};
            assert_int_equal(hld_vm_params_user_set(a.vm, a.v[1], &s, NULL, a.now), 0);
            assert_int_equal(hld_vm_params_user_set(b.vm, b.v[1], &s, NULL, b.now), 0);
            base[1] = 0.0f; /* its gain is its own times the bindings' (gain_of) */
        }
        const uint64_t evals = a.params.evals, sets = a.params.sets;
        speed(&a, vals[k]);
        speed(&b, vals[k]);
        periods(&a, 7); /* a seek: an evaluation every 10 ms */
        periods(&b, 7);
        assert_true(a.params.evals >= evals + 3);
        assert_true(a.params.sets >= sets + 3); /* the slot's changes, unread until now */
        float now = copies_equal(&a, &b, base);
        assert_true(now != last); /* they moved */
        last = now;
    }
    assert_true(a.step <= STEPS);
    assert_int_equal(memcmp(a.out, b.out, 2 * (size_t)PERIOD * a.step * sizeof(float)), 0);
    teardown(&a);
    teardown(&b);
}

/* A client's SET the mixer refuses (its command ring full: EBUSY) changes
 * nothing, the voice's base gain and its filter as asked (post_user)
 * neither: the parameter's next changes move the voice from the base the
 * mixer has. The mix and the control side's copies equal, bit for bit, a
 * twin's that never asked (on the slot, and by SETs per voice). */
static void refused_set_changes_nothing(int exhaust) {
    rig_t a, b;
    float base[] = {1.0f, 0.5f};
    for (int k = 0; k < 2; k++) {
        rig_t *r = k ? &b : &a;
        setup_ring(r, exhaust, 0, 64);
        play(r, base[0], -0.5f);
        play(r, base[1], 0.5f);
        periods(r, 4);
        hl_voice_set_t pan = {.mask = HL_MIX_SET_PAN, .pan = -0.4f};
        while (hl_mixer_cmd_room(r->mx) > 0) /* the same commands in both */
            assert_int_equal(hld_vm_set(r->vm, r->v[0], &pan, r->now), 0);
    }
    hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN | HL_MIX_SET_FILTER,
                        .gain = 0.25f,
                        .lp_hz = 800,
                        .ramp_frames = 64};
    const float post[4] = {800, 0, 0, 0}; /* the low-pass as asked */
    assert_int_equal(hld_vm_params_user_set(a.vm, a.v[1], &s, post, a.now), HELIOD_EBUSY);
    const float none[4] = {0};
    assert_memory_equal(hld_vm_get(a.vm, a.v[1])->post_user, none, sizeof none); /* not recorded */
    for (int k = 0; k < 2; k++) {
        rig_t *r = k ? &b : &a;
        periods(r, 4); /* the ring drains */
        speed(r, 0.5f);
        periods(r, 30); /* a seek of 0.125 s: its steps are the voices' own SETs or the slot's */
    }
    assert_true(a.params.sets >= 10);
    copies_equal(&a, &b, base);
    assert_int_equal(memcmp(a.out, b.out, 2 * (size_t)PERIOD * a.step * sizeof(float)), 0);
    teardown(&a);
    teardown(&b);
}

static void test_refused_set_keeps_base(void **state) {
    (void)state;
    refused_set_changes_nothing(0);
    refused_set_changes_nothing(1);
}

/* A change of a cue whose voices are all on its slot, their other bindings
 * unchanged, evaluates none of them one by one: the slot's command is all.
 * A voice that needs SETs of its own (a low-pass of its own while the
 * cutoffs move, a gain of its own) makes the evaluations look at each. */
static void test_slot_change_visits_none(void **state) {
    (void)state;
    rig_t r;
    setup(&r, 0, 1);
    for (int i = 0; i < 4; i++)
        play(&r, 1.0f, 0.0f);
    periods(&r, 2);
    speed(&r, 1.0f);
    uint64_t evals = r.params.evals, visits = r.params.visits;
    periods(&r, 10);
    assert_true(r.params.evals >= evals + 4);
    assert_int_equal(r.params.visits, visits);
    play_lp(&r, 1.0f, 0.0f, 2000.0f); /* mid-seek: its own cutoffs by SETs */
    speed(&r, 0.0f);
    evals = r.params.evals;
    visits = r.params.visits;
    periods(&r, 10);
    assert_true(r.params.evals >= evals + 4);
    assert_true(r.params.visits >= visits + 4 * 5);
    teardown(&r);
}

/* A cue without voices gives its slot back at the next evaluation. */
static void test_slot_reclaimed(void **state) {
    (void)state;
    rig_t r;
    setup(&r, 0, 0);
    uint32_t mod, gen;
    for (uint32_t i = 0; i + 1 < HL_MIX_MODS; i++)
        assert_int_equal(hl_mixer_mod_alloc(r.mx, &mod, &gen), 0);
    play(&r, 1.0f, 0.0f); /* takes the last slot */
    play(&r, 0.5f, 0.0f);
    periods(&r, 2);
    assert_int_equal(hl_mixer_mod_alloc(r.mx, &mod, &gen), HELIOD_EBUSY);
    for (uint32_t i = 0; i < r.nv; i++)
        assert_int_equal(hld_vm_stop(r.vm, r.v[i], 0, HL_FADE_LINEAR, HL_END_STOPPED, r.now), 0);
    periods(&r, 2);
    speed(&r, 0.5f);
    periods(&r, 2);
    assert_int_equal(hl_mixer_mod_alloc(r.mx, &mod, &gen), 0);
    teardown(&r);
}

/* The main thread's walks over the logical voices on each poll (ranking,
 * beats, counts) stop at the highest slot in use, not at the table's size:
 * 3 voices of 16 walk 3, none walk 0 (the daemon's 16,384 slots were all
 * walked every 5 ms, whatever played). */
static void test_walk_span(void **state) {
    (void)state;
    rig_t r;
    setup(&r, 0, 0);
    assert_int_equal(hld_vm_span(r.vm), 0);
    for (int i = 0; i < 3; i++)
        play(&r, 1.0f, 0.0f);
    periods(&r, 2);
    assert_int_equal(hld_vm_span(r.vm), 3);
    assert_int_equal(hld_vm_stop(r.vm, r.v[2], 0, HL_FADE_LINEAR, HL_END_STOPPED, r.now), 0);
    assert_int_equal(hld_vm_span(r.vm), 2);
    assert_int_equal(hld_vm_stop(r.vm, r.v[0], 0, HL_FADE_LINEAR, HL_END_STOPPED, r.now), 0);
    assert_int_equal(hld_vm_span(r.vm), 2); /* the voice in slot 1 still plays */
    assert_int_equal(hld_vm_stop(r.vm, r.v[1], 0, HL_FADE_LINEAR, HL_END_STOPPED, r.now), 0);
    assert_int_equal(hld_vm_span(r.vm), 0);
    periods(&r, 2);
    teardown(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slot_equals_sets),
        cmocka_unit_test(test_slot_filter_equals_sets),
        cmocka_unit_test(test_slot_reclaimed),
        cmocka_unit_test(test_slot_copies_follow),
        cmocka_unit_test(test_slot_change_visits_none),
        cmocka_unit_test(test_refused_set_keeps_base),
        cmocka_unit_test(test_walk_span),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
