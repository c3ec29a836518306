/*
 * test_vm.c - unit tests of the voice manager (daemon/voice/vm.c) on the real mixer
 * and the real cue table: admission order with each refusal's error code and
 * counters, what counts toward the limits, every overflow policy, handle
 * retirement and fades, real/virtual ranking (priority weighting, hysteresis,
 * floor), the position of virtual voices and where they come back, virt and
 * beyond policies, emitters, and pause/resume by bus and category.
 *
 * Sounds are hld_sound_t values built by hand over synthetic float PCM: a DC
 * level (levels and fades), a ramp (sample i = i * RAMP_SCALE, so the output
 * tells the position exactly) and a short DC (ends while virtual).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cues.h"
#include "hl_dsp.h"
#include "hl_limits.h"
#include "hl_mixer.h"
#include "hl_proto.h"
#include "sounds.h"
#include "vm.h"

#define RATE       48000u
#define BLOCK      256u
#define DC_LEVEL   0.25f
#define DC_FRAMES  48000u
#define RAMP_SCALE 1e-5f
#define RAMP_N     48000u
#define SHORT_N    4800u
#define FADE       480u /* each play's fade_out_frames (10 ms) */
#define T0         1000000000ull
#define MAX_REC    1024

/* ---- fixture -------------------------------------------------------------------- */

typedef struct {
    uint16_t type;
    uint64_t voice;
    uint8_t reason;
} rec_t;

typedef struct {
    void *mem;
    hl_mixer_t *mx;
    hld_cues_t *cues;
    hld_vm_t *vm;
    uint64_t now;
    rec_t rec[MAX_REC];
    size_t nrec;
    size_t released; /* sound_released calls */
    float *out;      /* scratch render buffer */
} fx_t;

static fx_t F;
static hld_sound_t snd_dc, snd_ramp, snd_short;

static void on_notify(void *user, uint32_t owner, uint16_t type, uint64_t voice, uint8_t reason,
                      uint64_t time_ns) {
    (void)user;
    (void)owner;
    (void)time_ns;
    if (F.nrec < MAX_REC) F.rec[F.nrec++] = (rec_t){type, voice, reason};
}

static void on_released(void *user, struct hld_sound *snd) {
    (void)user;
    (void)snd;
    F.released++;
}

static void make_sound(hld_sound_t *s, const char *name, uint32_t frames, int ramp) {
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    float *d = malloc(frames * sizeof(float));
    assert_non_null(d);
    for (uint32_t i = 0; i < frames; i++)
        d[i] = ramp ? (float)i * RAMP_SCALE : DC_LEVEL;
    s->pcm.data = d;
    s->pcm.frames = frames;
    s->pcm.channels = 1;
    s->source_rate = RATE;
}

/* A mixer with `real` voices and a command ring of cmd_cap (0 = the
 * default), a cue table and a voice manager with `logical`. */
static void fx_open_cmd(uint32_t real, uint32_t logical, uint32_t cmd_cap) {
    memset(&F, 0, sizeof F);
    hl_mixer_config_t mc = {.rate = RATE, .voices = real, .cmd_capacity = cmd_cap};
    size_t size = hl_mixer_size(&mc);
    assert_true(size > 0);
    F.mem = aligned_alloc(64, (size + 63) / 64 * 64);
    assert_non_null(F.mem);
    F.mx = hl_mixer_init(F.mem, size, &mc);
    assert_non_null(F.mx);
    F.cues = malloc(sizeof *F.cues);
    assert_non_null(F.cues);
    hld_cues_init(F.cues, 0);
    hld_vm_config_t vc = {
        .logical = logical, .floor_db = HLD_VM_FLOOR_DB, .rate = RATE, .period = BLOCK};
    hld_vm_ops_t ops = {.notify = on_notify, .sound_released = on_released};
    F.vm = hld_vm_create(&vc, F.mx, F.cues, &ops);
    if (F.vm) hld_vm_set_rank_lead(F.vm, 0); /* rankings take effect at once */
    assert_non_null(F.vm);
    F.now = T0;
    F.out = calloc(2 * (size_t)RATE, sizeof(float));
    assert_non_null(F.out);
    make_sound(&snd_dc, "dc", DC_FRAMES, 0);
    make_sound(&snd_ramp, "ramp", RAMP_N, 1);
    make_sound(&snd_short, "short", SHORT_N, 0);
}

static void fx_open(uint32_t real, uint32_t logical) {
    fx_open_cmd(real, logical, 0);
}

static int fx_close(void **state) {
    (void)state;
    if (F.vm) hld_vm_destroy(F.vm);
    if (F.cues) {
        hld_cues_close(F.cues);
        free(F.cues);
    }
    free(F.mem);
    free(F.out);
    free((void *)snd_dc.pcm.data);
    free((void *)snd_ramp.pcm.data);
    free((void *)snd_short.pcm.data);
    memset(&snd_dc, 0, sizeof snd_dc);
    memset(&snd_ramp, 0, sizeof snd_ramp);
    memset(&snd_short, 0, sizeof snd_short);
    memset(&F, 0, sizeof F);
    return 0;
}

static void route(void *user, const hl_mix_event_t *ev) {
    (void)user;
    hld_vm_on_mix_event(F.vm, ev);
}

/* Renders `frames` frames (blocks of BLOCK) into out (or the scratch buffer
 * when NULL, at most RATE frames per call there), then routes the mixer's
 * events to the voice manager. */
static void render_to(float *out, uint32_t frames) {
    for (uint32_t done = 0; done < frames;) {
        uint32_t n = frames - done < BLOCK ? frames - done : BLOCK;
        float *o = out ? out + 2 * (size_t)done : F.out + 2 * (size_t)(done % RATE);
        if (!out && done % RATE + n > RATE) o = F.out;
        hl_mixer_process_rt(F.mx, o, n, F.now);
        F.now += (uint64_t)n * 1000000000ull / RATE;
        done += n;
        hl_mixer_poll(F.mx, route, NULL);
    }
}

static void render(uint32_t frames) {
    render_to(NULL, frames);
}

/* Renders past one ranking period and ranks. */
static void tick(void) {
    render(1024); /* 21.3 ms > HLD_VM_TICK_MS */
    hld_vm_tick(F.vm, F.now);
}

/* Events recorded of type for voice (0 = any) with reason (-1 = any). */
static size_t nev(uint16_t type, uint64_t voice, int reason) {
    size_t c = 0;
    for (size_t i = 0; i < F.nrec; i++)
        if (F.rec[i].type == type && (!voice || F.rec[i].voice == voice) &&
            (reason < 0 || F.rec[i].reason == reason))
            c++;
    return c;
}

static hld_vm_stats_t stats(void) {
    hld_vm_stats_t s;
    hld_vm_stats(F.vm, &s);
    return s;
}

static hld_category_t *def_cat(const char *name, uint32_t max, int overflow, float fade_ms) {
    hl_category_t m;
    hl_category_init(&m);
    snprintf(m.name, sizeof m.name, "%s", name);
    m.max_instances = max;
    m.overflow = (uint8_t)overflow;
    m.fade_out_ms = fade_ms;
    hld_category_t *c = NULL;
    assert_int_equal(hld_cues_define_category(F.cues, &m, &c, NULL), 0);
    return c;
}

static hld_cue_t *def_cue(const char *name, const char *cat, uint32_t max, int overflow,
                          float interval_ms) {
    hl_cue_t m;
    hl_cue_init(&m);
    snprintf(m.name, sizeof m.name, "%s", name);
    m.nsounds = 1;
    strcpy(m.sounds[0], "dc");
    if (cat) snprintf(m.category, sizeof m.category, "%s", cat);
    m.max_instances = max;
    m.overflow = (uint8_t)overflow;
    m.min_interval_ms = interval_ms;
    hld_cue_t *c = NULL;
    assert_int_equal(hld_cues_define(F.cues, &m, &c, NULL), 0);
    return c;
}

/* What dispatch would build for a plain pcm play of snd (2D, centre, gain 1). */
static hld_vm_play_t mkplay(hld_sound_t *snd, hld_cue_t *cue) {
    hld_vm_play_t pl;
    memset(&pl, 0, sizeof pl);
    pl.cue = cue;
    pl.snd = snd;
    pl.p.pcm = &snd->pcm;
    pl.p.gain = 1.0f;
    pl.p.pitch = 1.0f;
    pl.p.min_distance = 1.0f;
    pl.p.max_distance = 100.0f;
    pl.p.rolloff = 1.0f;
    pl.p.model = HL_DIST_INVERSE;
    pl.p.bus = HL_BUS_SFX;
    pl.p.priority = cue ? cue->def.priority : 0;
    pl.owner = 1;
    pl.fade_out_frames = FADE;
    pl.fade_curve = HL_CURVE_LINEAR;
    pl.beyond = cue ? cue->def.beyond : HL_BEYOND_VIRTUAL;
    pl.virt = cue ? cue->def.virt : HL_VIRT_RESUME;
    pl.rate = 1.0;
    pl.len = snd->pcm.frames;
    pl.ls = 0.0;
    pl.le = snd->pcm.frames;
    pl.loops = 0;
    return pl;
}

/* 3D at distance d straight ahead. */
static void at_dist(hld_vm_play_t *pl, float d) {
    pl->p.flags |= HL_MIX_3D;
    pl->p.pos[0] = pl->p.pos[1] = 0.0f;
    pl->p.pos[2] = -d;
}

static uint64_t play_ok(const hld_vm_play_t *pl) {
    uint64_t v = 0, st = 0;
    assert_int_equal(hld_vm_play(F.vm, pl, F.now, &v, &st), 0);
    assert_true(v != 0);
    return v;
}

static int play_rc(const hld_vm_play_t *pl) {
    uint64_t v = 123, st = 0;
    int rc = hld_vm_play(F.vm, pl, F.now, &v, &st);
    if (rc < 0) assert_int_equal(v, 0);
    return rc;
}

static int set_mask(uint64_t v, uint32_t mask) {
    hl_voice_set_t s = {.mask = mask};
    return hld_vm_set(F.vm, v, &s, F.now);
}

static int set_gain(uint64_t v, float gain) {
    hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN, .gain = gain};
    return hld_vm_set(F.vm, v, &s, F.now);
}

static int is_real(uint64_t v) {
    hld_lvoice_t *lv = hld_vm_get(F.vm, v);
    assert_non_null(lv);
    return lv->real;
}

static hl_voice_view_t mix_view(uint64_t v) {
    hld_lvoice_t *lv = hld_vm_get(F.vm, v);
    assert_non_null(lv);
    assert_true(lv->real && lv->mix);
    hl_voice_view_t vv;
    assert_int_equal(hl_mixer_voice(F.mx, lv->mix, &vv), 0);
    return vv;
}

/* Largest sample-to-sample jump of the left channel over [0, n). */
static float max_jump(const float *o, uint32_t n) {
    float m = 0.0f;
    for (uint32_t i = 1; i < n; i++) {
        float d = fabsf(o[2 * i] - o[2 * (i - 1)]);
        if (d > m) m = d;
    }
    return m;
}

/* ---- admission ------------------------------------------------------------------ */

/* min-interval: a refusal records nothing and does not restart the interval;
 * interval 0 never refuses. Counters: cue, category and global. */
static void test_admission_interval(void **state) {
    (void)state;
    fx_open(8, 16);
    def_cat("fx", 0, HL_OVERFLOW_REFUSE, -1.0f);
    hld_cue_t *c = def_cue("step", "fx", 0, HL_OVERFLOW_REFUSE, 100.0f);
    hld_cue_t *z = def_cue("free", "fx", 0, HL_OVERFLOW_REFUSE, 0.0f);
    hld_vm_play_t pl = mkplay(&snd_dc, c);
    uint64_t t = F.now;
    uint64_t a = play_ok(&pl);
    assert_int_equal(c->last_play_ns, t);
    struct {
        uint64_t at_ms;
        int rc;
    } seq[] = {{50, HELIOD_EINTERVAL},
               {99, HELIOD_EINTERVAL},
               {120, 0},
               {150, HELIOD_EINTERVAL},
               {221, 0}};
    uint64_t plays = 1, refused = 0;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        size_t nrec = F.nrec;
        uint32_t active = c->n.active;
        uint64_t last = c->last_play_ns;
        uint64_t v = 7;
        int rc = hld_vm_play(F.vm, &pl, t + seq[i].at_ms * 1000000ull, &v, NULL);
        assert_int_equal(rc, seq[i].rc);
        if (rc) {
            refused++;
            assert_int_equal(v, 0);
            assert_int_equal(F.nrec, nrec);          /* no event */
            assert_int_equal(c->n.active, active);   /* no voice */
            assert_int_equal(c->last_play_ns, last); /* the interval is not restarted */
        } else {
            plays++;
            assert_int_equal(c->last_play_ns, t + seq[i].at_ms * 1000000ull);
        }
        assert_int_equal(c->n.refused_interval, refused);
        assert_int_equal(c->cat->n.refused_interval, refused);
        assert_int_equal(stats().n.refused_interval, refused);
        assert_int_equal(c->n.plays, plays);
    }
    assert_int_equal(c->cat->n.plays, plays);
    /* interval 0: back-to-back plays at the same instant */
    hld_vm_play_t pz = mkplay(&snd_dc, z);
    for (int i = 0; i < 4; i++)
        play_ok(&pz);
    assert_int_equal(z->n.refused_interval, 0);
    assert_int_equal(z->n.plays, 4);
    assert_non_null(hld_vm_get(F.vm, a));
}

/* Beyond max distance at start: EDISTANCE unless beyond = clamp; a voice on
 * an emitter is judged at the emitter's position. */
static void test_admission_distance(void **state) {
    (void)state;
    fx_open(8, 16);
    def_cat("fx", 0, HL_OVERFLOW_REFUSE, -1.0f);
    hld_cue_t *c = def_cue("far", "fx", 0, HL_OVERFLOW_REFUSE, 0.0f);
    const struct {
        uint8_t beyond;
        float dist;
        int rc;
    } rows[] = {
        {HL_BEYOND_VIRTUAL, 150.0f, HELIOD_EDISTANCE},
        {HL_BEYOND_RELEASE, 150.0f, HELIOD_EDISTANCE},
        {HL_BEYOND_VIRTUAL, 100.0f, HELIOD_EDISTANCE}, /* at max: beyond */
        {HL_BEYOND_CLAMP, 150.0f, 0},
        {HL_BEYOND_VIRTUAL, 99.0f, 0},
        {HL_BEYOND_RELEASE, 50.0f, 0},
    };
    uint64_t refused = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        hld_vm_play_t pl = mkplay(&snd_dc, c);
        pl.beyond = rows[i].beyond;
        at_dist(&pl, rows[i].dist);
        uint32_t active = c->n.active;
        int rc = play_rc(&pl);
        assert_int_equal(rc, rows[i].rc);
        if (rc) refused++;
        assert_int_equal(c->n.active, active + (rc == 0));
        assert_int_equal(c->n.refused_distance, refused);
        assert_int_equal(c->cat->n.refused_distance, refused);
        assert_int_equal(stats().n.refused_distance, refused);
    }
    /* the clamped one is real too (audible at the max-distance gain) */
    assert_int_equal(stats().real, 3);
    /* emitters: the play's own position is not where the voice will be */
    float far[3] = {0, 0, -500.0f}, near[3] = {0, 0, -5.0f};
    hld_emitter_t *ef = NULL, *en = NULL;
    assert_int_equal(hld_vm_emitter_create(F.vm, "far", 1, far, NULL, &ef), 0);
    assert_int_equal(hld_vm_emitter_create(F.vm, "near", 1, near, NULL, &en), 0);
    hld_vm_play_t pl = mkplay(&snd_dc, c);
    at_dist(&pl, 1.0f);
    pl.em = ef;
    assert_int_equal(play_rc(&pl), HELIOD_EDISTANCE);
    assert_int_equal(ef->count, 0);
    pl = mkplay(&snd_dc, c);
    at_dist(&pl, 500.0f);
    pl.em = en;
    uint64_t v = play_ok(&pl);
    assert_float_equal(hld_vm_get(F.vm, v)->p.pos[2], -5.0f, 0.0f);
}

/* Each refusal with its code and counter, and stealing from a full pool. */
typedef struct {
    const char *name;
    uint32_t logical, cue_max, cat_max;
    int32_t prio[3];   /* voices already playing (3 of them, all one cue) */
    int32_t new_prio;  /* the play tried */
    int rc;            /* expected answer */
    int stolen;        /* index of the stolen voice, -1 none */
    size_t counter_of; /* offsetof the hl_cue_counters_t field bumped */
} refusal_case_t;

#define CNT(f) offsetof(hl_cue_counters_t, f)
static const refusal_case_t refusal_cases[] = {
    {"cue limit", 8, 3, 0, {0, 0, 0}, 0, HELIOD_ECUELIMIT, -1, CNT(refused_cue_limit)},
    {"cat limit", 8, 0, 3, {0, 0, 0}, 0, HELIOD_ECATLIMIT, -1, CNT(refused_cat_limit)},
    {"cue before cat", 8, 3, 3, {0, 0, 0}, 0, HELIOD_ECUELIMIT, -1, CNT(refused_cue_limit)},
    {"no voice, equal", 3, 0, 0, {0, 0, 0}, 0, HELIOD_ENOVOICES, -1, CNT(refused_no_voice)},
    {"no voice, lower", 3, 0, 0, {5, 6, 7}, 4, HELIOD_ENOVOICES, -1, CNT(refused_no_voice)},
    {"steal lowest", 3, 0, 0, {5, -2, 1}, 3, 0, 1, CNT(stolen)},
    {"steal oldest lowest", 3, 0, 0, {4, -2, -2}, 0, 0, 1, CNT(stolen)},
    {"steal strictly lower", 3, 0, 0, {3, 9, 3}, 4, 0, 0, CNT(stolen)},
};

static void test_admission_refusals(void **state) {
    (void)state;
    for (size_t r = 0; r < sizeof refusal_cases / sizeof refusal_cases[0]; r++) {
        const refusal_case_t *k = &refusal_cases[r];
        fx_open(8, k->logical);
        def_cat("fx", k->cat_max, HL_OVERFLOW_REFUSE, -1.0f);
        hld_cue_t *c = def_cue("c", "fx", k->cue_max, HL_OVERFLOW_REFUSE, 0.0f);
        uint64_t v[3];
        for (int i = 0; i < 3; i++) {
            hld_vm_play_t pl = mkplay(&snd_dc, c);
            pl.p.priority = k->prio[i];
            v[i] = play_ok(&pl);
        }
        hld_vm_play_t pl = mkplay(&snd_dc, c);
        pl.p.priority = k->new_prio;
        uint64_t nv = 9, st = 9;
        int rc = hld_vm_play(F.vm, &pl, F.now, &nv, &st);
        if (rc != k->rc) fail_msg("%s: rc %d, want %d", k->name, rc, k->rc);
        uint64_t got = *(const uint64_t *)((const char *)&c->n + k->counter_of);
        uint64_t got_cat = *(const uint64_t *)((const char *)&c->cat->n + k->counter_of);
        if (got != 1 || got_cat != 1) fail_msg("%s: counters %lu/%lu", k->name, got, got_cat);
        hld_vm_stats_t s = stats();
        if (k->stolen >= 0) {
            assert_int_equal(st, v[k->stolen]);
            assert_null(hld_vm_get(F.vm, v[k->stolen]));
            assert_int_equal(nev(HL_EVENT_ENDED, 0, -1), 1);
            assert_int_equal(nev(HL_EVENT_ENDED, v[k->stolen], HL_END_STOLEN), 1);
            assert_int_equal(s.n.stolen, 1);
            assert_int_equal(s.n.plays, 4);
            assert_non_null(hld_vm_get(F.vm, nv));
            for (int i = 0; i < 3; i++)
                if (i != k->stolen) assert_non_null(hld_vm_get(F.vm, v[i]));
        } else {
            assert_int_equal(nv, 0);
            assert_int_equal(st, 0);
            assert_int_equal(F.nrec, 0);
            assert_int_equal(s.active, 3);
            assert_int_equal(s.n.plays, 3);
            assert_int_equal(s.n.refused_cue_limit + s.n.refused_cat_limit + s.n.refused_no_voice,
                             1);
            assert_int_equal(c->n.plays, 3);
        }
        fx_close(NULL);
    }
}

/* ---- the counting table ----------------------------------------------------------- */

enum { ST_PLAYING, ST_PAUSED, ST_FADING, ST_FREE };
static const struct {
    int st;
    uint32_t logical;
    int rc;          /* a second play of the cue (max-instances 1) */
    uint32_t active; /* cue's counted voices before it */
} count_cases[] = {
    {ST_PLAYING, 4, HELIOD_ECUELIMIT, 1},
    {ST_PAUSED, 4, HELIOD_ECUELIMIT, 1},
    {ST_FADING, 4, 0, 0},
    {ST_FREE, 4, 0, 0},
    {ST_FADING, 1, HELIOD_ENOVOICES, 0}, /* its logical slot is still held */
    {ST_FREE, 1, 0, 0},
};

static void test_counting(void **state) {
    (void)state;
    for (size_t r = 0; r < sizeof count_cases / sizeof count_cases[0]; r++) {
        fx_open(8, count_cases[r].logical);
        hld_cue_t *c = def_cue("c", NULL, 1, HL_OVERFLOW_REFUSE, 0.0f);
        hld_vm_play_t pl = mkplay(&snd_dc, c);
        uint64_t a = play_ok(&pl);
        render(512);
        switch (count_cases[r].st) {
        case ST_PAUSED: assert_int_equal(set_mask(a, HL_MIX_SET_PAUSE), 0); break;
        case ST_FADING:
            assert_int_equal(hld_vm_stop(F.vm, a, 4800, 0, HL_END_STOPPED, F.now), 0);
            break;
        case ST_FREE: assert_int_equal(hld_vm_stop(F.vm, a, 0, 0, HL_END_STOPPED, F.now), 0); break;
        default: break;
        }
        hld_vm_stats_t s = stats();
        assert_int_equal(c->n.active, count_cases[r].active);
        assert_int_equal(s.active, count_cases[r].active);
        assert_int_equal(s.fading, count_cases[r].st == ST_FADING);
        assert_int_equal(hld_vm_busy(F.vm), count_cases[r].st != ST_FREE);
        assert_int_equal(play_rc(&pl), count_cases[r].rc);
        if (count_cases[r].st == ST_FADING) {
            assert_int_equal(nev(HL_EVENT_ENDED, a, -1), 0);
            render(4800 + 2 * BLOCK); /* the mixer's ENDED frees the slot */
            assert_int_equal(nev(HL_EVENT_ENDED, a, HL_END_STOPPED), 1);
            assert_int_equal(stats().fading, 0);
            if (count_cases[r].rc) play_ok(&pl);
        }
        fx_close(NULL);
    }
}

/* A pool full of fading voices: ENOVOICES until their ENDED. */
static void test_pool_of_fading(void **state) {
    (void)state;
    fx_open(8, 3);
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        hld_vm_play_t pl = mkplay(&snd_dc, NULL);
        pl.p.priority = -10;
        v[i] = play_ok(&pl);
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(hld_vm_stop(F.vm, v[i], 2400, 0, HL_END_STOPPED, F.now), 0);
    assert_int_equal(stats().fading, 3);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    pl.p.priority = 100; /* fading voices are never stolen */
    assert_int_equal(play_rc(&pl), HELIOD_ENOVOICES);
    assert_int_equal(stats().n.refused_no_voice, 1);
    render(2400 + 2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, 0, HL_END_STOPPED), 3);
    assert_int_equal(hld_vm_busy(F.vm), 0);
    for (int i = 0; i < 3; i++)
        play_ok(&pl);
    assert_int_equal(snd_dc.playing, 3);
}

/* ---- overflow policies ------------------------------------------------------------- */

typedef struct {
    const char *name;
    int policy;
    int32_t prio[3];
    float gain[3];
    float dist[3]; /* 0 = 2D */
    int32_t new_prio;
    int victim;  /* -1: refused (ECUELIMIT) */
    int at_once; /* the victim's slot is free at once */
} policy_case_t;

static const policy_case_t policy_cases[] = {
    {"stop-oldest", HL_OVERFLOW_STOP_OLDEST, {0, 0, 0}, {1, 1, 1}, {0}, 0, 0, 1},
    {"fade-oldest", HL_OVERFLOW_FADE_OLDEST, {0, 0, 0}, {1, 1, 1}, {0}, 0, 0, 0},
    {"fade-oldest ignores priority", HL_OVERFLOW_FADE_OLDEST, {9, 0, 0}, {1, 1, 1}, {0}, 0, 0, 0},
    {"steal-lowest", HL_OVERFLOW_STEAL_LOWEST, {5, -3, 1}, {1, 1, 1}, {0}, 4, 1, 0},
    {"steal-lowest oldest", HL_OVERFLOW_STEAL_LOWEST, {5, -3, -3}, {1, 1, 1}, {0}, 4, 1, 0},
    {"steal-lowest equal", HL_OVERFLOW_STEAL_LOWEST, {4, 6, 7}, {1, 1, 1}, {0}, 4, 0, 0},
    {"steal-lowest never higher", HL_OVERFLOW_STEAL_LOWEST, {5, 6, 7}, {1, 1, 1}, {0}, 4, -1, 0},
    {"steal-quietest", HL_OVERFLOW_STEAL_QUIETEST, {0, 0, 0}, {1, .25f, .5f}, {0}, 0, 1, 0},
    {"steal-quietest 3D",
     HL_OVERFLOW_STEAL_QUIETEST,
     {0, 0, 0},
     {.1f, 1, 1},
     {10, 50, 20},
     0,
     0,
     0},
    {"steal-farthest", HL_OVERFLOW_STEAL_FARTHEST, {0, 0, 0}, {.1f, 1, 1}, {10, 50, 20}, 0, 1, 0},
};

static void test_overflow_policies(void **state) {
    (void)state;
    for (size_t r = 0; r < sizeof policy_cases / sizeof policy_cases[0]; r++) {
        const policy_case_t *k = &policy_cases[r];
        fx_open(8, 8);
        def_cat("fx", 0, HL_OVERFLOW_REFUSE, -1.0f);
        hld_cue_t *c = def_cue("c", "fx", 3, k->policy, 0.0f);
        uint64_t v[3];
        for (int i = 0; i < 3; i++) {
            hld_vm_play_t pl = mkplay(&snd_dc, c);
            pl.p.priority = k->prio[i];
            pl.p.gain = k->gain[i];
            if (k->dist[i] > 0) at_dist(&pl, k->dist[i]);
            v[i] = play_ok(&pl);
        }
        assert_int_equal(stats().real, 3);
        render(1024);
        hld_vm_play_t pl = mkplay(&snd_dc, c);
        pl.p.priority = k->new_prio;
        uint64_t nv = 0, st = 77;
        int rc = hld_vm_play(F.vm, &pl, F.now, &nv, &st);
        if (k->victim < 0) {
            if (rc != HELIOD_ECUELIMIT) fail_msg("%s: rc %d", k->name, rc);
            assert_int_equal(c->n.refused_cue_limit, 1);
            assert_int_equal(c->cat->n.refused_cue_limit, 1);
            assert_int_equal(nev(HL_EVENT_ENDED, 0, -1), 0);
            for (int i = 0; i < 3; i++)
                assert_non_null(hld_vm_get(F.vm, v[i]));
            fx_close(NULL);
            continue;
        }
        if (rc != 0) fail_msg("%s: rc %d", k->name, rc);
        assert_int_equal(st, 0); /* an eviction is not a steal */
        uint64_t victim = v[k->victim];
        for (int i = 0; i < 3; i++)
            if (i == k->victim)
                assert_null(hld_vm_get(F.vm, v[i]));
            else if (!hld_vm_get(F.vm, v[i]))
                fail_msg("%s: voice %d evicted, want %d", k->name, i, k->victim);
        assert_int_equal(c->n.active, 3);
        assert_int_equal(c->n.evicted_cue, 1);
        assert_int_equal(c->cat->n.evicted_cue, 1);
        hld_vm_stats_t s = stats();
        assert_int_equal(s.n.evicted, 1);
        assert_int_equal(s.n.stolen, 0);
        assert_int_equal(s.fading, !k->at_once);
        assert_int_equal(nev(HL_EVENT_ENDED, victim, HL_END_EVICTED), k->at_once);
        render(FADE + 3 * BLOCK);
        assert_int_equal(nev(HL_EVENT_ENDED, 0, -1), 1);
        assert_int_equal(nev(HL_EVENT_ENDED, victim, HL_END_EVICTED), 1);
        assert_int_equal(stats().fading, 0);
        assert_int_equal(hl_mixer_active(F.mx), 3);
        fx_close(NULL);
    }
}

/* fade-oldest: the fade keeps the victim's slot, so the new play needs
 * another; with none the play is refused (ENOVOICES) and nothing is cut. A
 * paused victim or a fade of 0 stops at once. */
static void test_fade_oldest_slots(void **state) {
    (void)state;
    fx_open(8, 3);
    hld_cue_t *c = def_cue("c", NULL, 2, HL_OVERFLOW_FADE_OLDEST, 0.0f);
    hld_vm_play_t pl = mkplay(&snd_dc, c);
    uint64_t a = play_ok(&pl), b = play_ok(&pl);
    render(512);
    /* one slot free: a fades in its own, c takes the last one */
    uint64_t cc = play_ok(&pl);
    assert_null(hld_vm_get(F.vm, a));
    assert_int_equal(stats().fading, 1);
    /* none free: refused, b untouched */
    assert_int_equal(play_rc(&pl), HELIOD_ENOVOICES);
    assert_int_equal(c->n.refused_no_voice, 1);
    assert_int_equal(stats().n.refused_no_voice, 1);
    assert_non_null(hld_vm_get(F.vm, b));
    assert_int_equal(c->n.evicted_cue, 1);
    /* a paused victim stops at once and frees its slot */
    assert_int_equal(set_mask(b, HL_MIX_SET_PAUSE), 0);
    uint64_t d = play_ok(&pl);
    assert_null(hld_vm_get(F.vm, b));
    assert_int_equal(nev(HL_EVENT_ENDED, b, HL_END_EVICTED), 1);
    assert_int_equal(nev(HL_EVENT_ENDED, a, -1), 0); /* still fading */
    render(FADE + 2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, a, HL_END_EVICTED), 1);
    /* fade 0: at once */
    hld_vm_stop(F.vm, cc, 0, 0, HL_END_STOPPED, F.now);
    hld_vm_stop(F.vm, d, 0, 0, HL_END_STOPPED, F.now);
    pl.fade_out_frames = 0;
    uint64_t e = play_ok(&pl), f = play_ok(&pl);
    (void)f;
    uint64_t g = play_ok(&pl);
    (void)g;
    assert_null(hld_vm_get(F.vm, e));
    assert_int_equal(nev(HL_EVENT_ENDED, e, HL_END_EVICTED), 1);
    assert_int_equal(stats().fading, 0);
}

/* A steal policy that needs the victim's slot (pool full) takes it at once:
 * one play evicts exactly one voice, and a refusal changes nothing. */
static void test_steal_policy_full_pool(void **state) {
    (void)state;
    fx_open(8, 2);
    hld_cue_t *c = def_cue("c", NULL, 2, HL_OVERFLOW_STEAL_QUIETEST, 0.0f);
    hld_vm_play_t pl = mkplay(&snd_dc, c);
    pl.p.gain = 0.25f;
    uint64_t a = play_ok(&pl);
    pl.p.gain = 1.0f;
    uint64_t b = play_ok(&pl);
    render(512);
    uint64_t n = play_ok(&pl);
    assert_null(hld_vm_get(F.vm, a));
    assert_non_null(hld_vm_get(F.vm, b));
    assert_non_null(hld_vm_get(F.vm, n));
    render(FADE + 2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, 0, -1), 1);
    assert_int_equal(nev(HL_EVENT_ENDED, a, HL_END_EVICTED), 1);
    assert_int_equal(stats().n.evicted, 1);
    assert_int_equal(stats().n.stolen, 0);
}

/* Room made under the cue limit is also a category place: one eviction. */
static void test_cue_room_frees_category(void **state) {
    (void)state;
    static const struct {
        int cue_pol, cat_pol;
    } rows[] = {
        {HL_OVERFLOW_STOP_OLDEST, HL_OVERFLOW_STOP_OLDEST},
        {HL_OVERFLOW_FADE_OLDEST, HL_OVERFLOW_STOP_OLDEST},
        {HL_OVERFLOW_STEAL_QUIETEST, HL_OVERFLOW_REFUSE},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        fx_open(8, 8);
        def_cat("fx", 3, rows[r].cat_pol, 20.0f);
        hld_cue_t *c = def_cue("c", "fx", 2, rows[r].cue_pol, 0.0f);
        hld_cue_t *o = def_cue("o", "fx", 0, HL_OVERFLOW_REFUSE, 0.0f);
        hld_vm_play_t pc = mkplay(&snd_dc, c), po = mkplay(&snd_dc, o);
        uint64_t other = play_ok(&po);
        pc.p.gain = 0.9f; /* the oldest is also the quietest */
        uint64_t a = play_ok(&pc);
        pc.p.gain = 1.0f;
        uint64_t b = play_ok(&pc);
        assert_int_equal(c->cat->n.active, 3);
        play_ok(&pc);
        render(FADE + 3 * BLOCK);
        assert_int_equal(nev(HL_EVENT_ENDED, 0, -1), 1);
        assert_int_equal(nev(HL_EVENT_ENDED, a, HL_END_EVICTED), 1);
        assert_non_null(hld_vm_get(F.vm, other));
        assert_non_null(hld_vm_get(F.vm, b));
        assert_int_equal(c->cat->n.active, 3);
        assert_int_equal(c->n.evicted_cue, 1);
        assert_int_equal(c->cat->n.evicted_cat, 0);
        assert_int_equal(stats().n.evicted, 1);
        fx_close(NULL);
    }
    /* and the category's own policy when the cue has room */
    fx_open(8, 8);
    def_cat("fx", 2, HL_OVERFLOW_STOP_OLDEST, -1.0f);
    hld_cue_t *c = def_cue("c", "fx", 0, HL_OVERFLOW_REFUSE, 0.0f);
    hld_cue_t *o = def_cue("o", "fx", 0, HL_OVERFLOW_REFUSE, 0.0f);
    hld_vm_play_t pc = mkplay(&snd_dc, c), po = mkplay(&snd_dc, o);
    uint64_t first = play_ok(&po);
    play_ok(&pc);
    play_ok(&pc);
    assert_null(hld_vm_get(F.vm, first));
    assert_int_equal(nev(HL_EVENT_ENDED, first, HL_END_EVICTED), 1);
    assert_int_equal(o->n.evicted_cat, 1);
    assert_int_equal(c->cat->n.evicted_cat, 1);
}

/* ---- handles and fades ----------------------------------------------------------- */

static void test_retired_handle(void **state) {
    (void)state;
    fx_open(4, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    uint64_t a = play_ok(&pl);
    render(1024);
    assert_int_equal(snd_dc.playing, 1);
    hld_lvoice_t *lv = hld_vm_get(F.vm, a);
    uint64_t mix = lv->mix;
    assert_int_equal(hld_vm_stop(F.vm, a, 9600, 0, HL_END_STOPPED, F.now), 0);
    assert_null(hld_vm_get(F.vm, a));
    assert_int_equal(hld_vm_stop(F.vm, a, 0, 0, HL_END_STOPPED, F.now), HELIOD_ENOVOICE);
    assert_int_equal(set_gain(a, 0.0f), HELIOD_ENOVOICE);
    assert_int_equal(set_mask(a, HL_MIX_SET_PAUSE), HELIOD_ENOVOICE);
    hl_voice_set_t sk = {.mask = HL_MIX_SET_SEEK};
    assert_int_equal(hld_vm_set(F.vm, a, &sk, F.now), HELIOD_ENOVOICE);
    assert_int_equal(hld_vm_seek(F.vm, a, 0.0, 0, F.now), HELIOD_ENOVOICE);
    hl_voice_view_t vv;
    assert_int_equal(hl_mixer_voice(F.mx, mix, &vv), 0);
    assert_int_equal(vv.state, HL_MIX_STATE_STOPPING);
    assert_int_equal(snd_dc.playing, 1); /* the fade still reads the pcm */
    float *o = calloc(2 * 9600, sizeof(float));
    render_to(o, 9600);
    /* the fade ran its whole course: half way at 4800, never cut */
    float full = o[0];
    assert_true(full > 0.1f);
    assert_float_equal(o[2 * 4800] / full, 0.5f, 0.01f);
    assert_true(o[2 * 9000] > 0.0f);
    assert_true(max_jump(o, 9600) < 1e-3f);
    free(o);
    render(2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, a, HL_END_STOPPED), 1);
    assert_int_equal(nev(HL_EVENT_ENDED, 0, -1), 1);
    assert_int_equal(snd_dc.playing, 0);
    assert_int_equal(snd_dc.mixing, 0);
    assert_int_equal(F.released, 2); /* the logical voice, then the mixer voice */
}

/* A stop with fade 0 frees the logical voice at once, but the mixer still
 * reads the pcm for its anti-click tail: the sound stays referenced
 * (`mixing`) until the mixer's ENDED, so an UNLOAD in between is refused. */
static void test_mixing_ref_outlives_logical(void **state) {
    (void)state;
    fx_open(4, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    uint64_t a = play_ok(&pl);
    render(1024);
    assert_int_equal(snd_dc.playing, 1);
    assert_int_equal(snd_dc.mixing, 1);
    assert_int_equal(hld_vm_stop(F.vm, a, 0, 0, HL_END_STOPPED, F.now), 0);
    assert_null(hld_vm_get(F.vm, a));
    assert_int_equal(snd_dc.playing, 0); /* the logical voice is gone ... */
    assert_int_equal(snd_dc.mixing, 1);  /* ... its mixer voice still fades */
    render(2 * BLOCK);
    assert_int_equal(snd_dc.mixing, 0);
}

/* A stop during the fade-in fades from where the level is: no step. */
static void test_fade_out_from_fade_in(void **state) {
    (void)state;
    fx_open(4, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    pl.p.attack_frames = 4800;
    uint64_t a = play_ok(&pl);
    float *o = calloc(2 * 8000, sizeof(float));
    render_to(o, 1200);
    float at_stop = o[2 * 1199];
    assert_true(at_stop > 0.02f && at_stop < 0.06f); /* a quarter of the way in */
    assert_int_equal(hld_vm_stop(F.vm, a, 4800, 0, HL_END_STOPPED, F.now), 0);
    render_to(o + 2 * 1200, 6800);
    assert_true(max_jump(o, 8000) < 1e-4f);
    for (uint32_t i = 1200; i < 6000; i++)
        assert_true(o[2 * i] <= at_stop + 1e-6f);
    assert_float_equal(o[2 * 6100], 0.0f, 0.0f);
    free(o);
    assert_int_equal(nev(HL_EVENT_ENDED, a, HL_END_STOPPED), 1);
}

/* Pause freezes position and fades; a stop while paused ends at once. */
static void test_pause_and_stop(void **state) {
    (void)state;
    fx_open(4, 8);
    hld_vm_play_t pl = mkplay(&snd_ramp, NULL);
    uint64_t a = play_ok(&pl);
    render(2048);
    assert_int_equal(set_mask(a, HL_MIX_SET_PAUSE), 0);
    double p0 = hld_vm_position(F.vm, hld_vm_get(F.vm, a));
    assert_true(p0 >= 2048.0 - BLOCK && p0 <= 2048.0 + BLOCK);
    render(4800);
    assert_true(hld_vm_position(F.vm, hld_vm_get(F.vm, a)) == p0);
    assert_int_equal(hld_vm_state(hld_vm_get(F.vm, a)), HL_VOICE_PAUSED);
    assert_int_equal(hld_vm_stop(F.vm, a, 48000, 0, HL_END_STOPPED, F.now), 0);
    assert_int_equal(nev(HL_EVENT_ENDED, a, HL_END_STOPPED), 1);
    hld_vm_stats_t s = stats();
    assert_int_equal(s.fading, 0);
    assert_int_equal(s.active, 0);
    assert_int_equal(hld_vm_busy(F.vm), 0);
    render(2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, 0, -1), 1);
    assert_int_equal(hl_mixer_active(F.mx), 0);
    /* resume goes on where it paused */
    uint64_t b = play_ok(&pl);
    render(1000);
    assert_int_equal(set_mask(b, HL_MIX_SET_PAUSE), 0);
    double q = hld_vm_position(F.vm, hld_vm_get(F.vm, b));
    render(3000);
    assert_int_equal(set_mask(b, HL_MIX_SET_RESUME), 0);
    render(1000);
    assert_float_equal(hld_vm_position(F.vm, hld_vm_get(F.vm, b)), q + 1000.0, 1.0);
}

/* ---- ranking --------------------------------------------------------------------- */

static int all_voices(void *user, const hld_lvoice_t *lv) {
    (void)user;
    (void)lv;
    return 1;
}

/* With N real voices and many logical ones, exactly the N most important are
 * real after a tick; the others get VIRTUAL (rank). */
/* The governor's quality ladder: a sinc voice holds two steps (sinc over
 * cubic over linear), a cubic one one; as the cap falls the least important
 * voice goes sinc -> cubic -> linear before the next one loses anything, and
 * quality comes back, the most important first, as it rises. */
static void test_quality_ladder(void **state) {
    (void)state;
    fx_open(4, 16);
    uint64_t v[3];
    for (int i = 0; i < 3; i++) { /* v[0] the least important */
        hld_vm_play_t pl = mkplay(&snd_dc, NULL);
        pl.p.gain = hl_db_to_lin(-20.0f + 6.0f * (float)i);
        pl.p.pitch = 0.9f;
        pl.p.flags |= HL_MIX_SINC | HL_MIX_LOOP;
        v[i] = play_ok(&pl);
    }
    /* a voice at pitch 1 asks for nothing (it does not resample) */
    hld_vm_play_t p1 = mkplay(&snd_dc, NULL);
    p1.p.flags |= HL_MIX_SINC | HL_MIX_LOOP;
    p1.p.gain = hl_db_to_lin(-40.0f);
    uint64_t flat = play_ok(&p1);
    tick();
    assert_int_equal(hld_vm_cubic_count(F.vm), 6);
    /* cap: steps kept -> interpolator of v[0], v[1], v[2] (2 sinc, 1 cubic, 0 linear) */
    const struct {
        uint32_t cap;
        int want[3];
        uint32_t lowq;
    } ladder[] = {
        {UINT32_MAX, {2, 2, 2}, 0}, {5, {1, 2, 2}, 1},          {4, {0, 2, 2}, 1},
        {3, {0, 1, 2}, 2},          {1, {0, 0, 1}, 3},          {0, {0, 0, 0}, 3},
        {4, {0, 2, 2}, 1},          {UINT32_MAX, {2, 2, 2}, 0},
    };
    for (unsigned s = 0; s < sizeof ladder / sizeof ladder[0]; s++) {
        hld_vm_set_cubic_limit(F.vm, ladder[s].cap);
        tick();
        for (int i = 0; i < 3; i++) {
            uint32_t f = mix_view(v[i]).params.flags;
            int got = (f & HL_MIX_SINC) ? 2 : (f & HL_MIX_CUBIC) ? 1 : 0;
            if (got != ladder[s].want[i])
                fail_msg("cap %u: voice %d mixed with %d, want %d", ladder[s].cap, i, got,
                         ladder[s].want[i]);
        }
        assert_int_equal(hld_vm_lowq_count(F.vm), ladder[s].lowq);
        assert_true(mix_view(flat).params.flags & HL_MIX_SINC); /* never stepped */
    }
}

static void test_rank_top_n(void **state) {
    (void)state;
    enum { N = 8, M = 40 };
    fx_open(N, 64);
    uint64_t v[M];
    float imp[M];
    uint32_t x = 12345;
    for (int i = 0; i < M; i++) {
        x = x * 1103515245u + 12345u;
        int k = (int)((x >> 8) % M);
        /* distinct importances, shuffled: gain from -30 dB up, priority -50..50 */
        hld_vm_play_t pl = mkplay(&snd_dc, NULL);
        pl.p.gain = hl_db_to_lin(-30.0f + 0.7f * (float)i);
        pl.p.priority = (k % 11) * 10 - 50;
        pl.p.flags |= HL_MIX_PAUSED; /* virtual at admission: nobody is an incumbent */
        v[i] = play_ok(&pl);
        imp[i] = pl.p.gain * exp2f((float)pl.p.priority / 100.0f);
        assert_false(is_real(v[i]));
        assert_int_equal(nev(HL_EVENT_VIRTUAL, v[i], HL_VIRT_WHY_PAUSED), 1);
        assert_int_equal(hld_vm_state(hld_vm_get(F.vm, v[i])), HL_VOICE_VPAUSED);
    }
    assert_int_equal(hld_vm_pause_matching(F.vm, all_voices, NULL, 0, F.now), M);
    tick();
    int nreal = 0;
    for (int i = 0; i < M; i++) {
        int above = 0; /* voices more important than i */
        for (int j = 0; j < M; j++)
            above += imp[j] > imp[i];
        int r = is_real(v[i]);
        nreal += r;
        if (r != (above < N)) fail_msg("voice %d (rank %d): real %d", i, above, r);
        assert_int_equal(nev(HL_EVENT_REAL, v[i], -1), r);
        assert_int_equal(hld_vm_state(hld_vm_get(F.vm, v[i])),
                         r ? HL_VOICE_PLAYING : HL_VOICE_VIRTUAL);
    }
    assert_int_equal(nreal, N);
    assert_int_equal(stats().real, N);
    assert_int_equal(stats().virtual_now, M - N);
    render(BLOCK);
    assert_int_equal(hl_mixer_active(F.mx), N);
    /* new louder voices: the quietest real ones go virtual with reason rank */
    size_t before = nev(HL_EVENT_VIRTUAL, 0, HL_VIRT_WHY_RANK);
    uint64_t loud[3];
    for (int i = 0; i < 3; i++) {
        hld_vm_play_t pl = mkplay(&snd_dc, NULL);
        pl.p.gain = 4.0f;
        pl.p.priority = 100;
        loud[i] = play_ok(&pl);
        assert_true(is_real(loud[i])); /* beats the weakest real at once */
    }
    assert_int_equal(nev(HL_EVENT_VIRTUAL, 0, HL_VIRT_WHY_RANK), before + 3);
    tick();
    assert_int_equal(stats().real, N);
    for (int i = 0; i < 3; i++)
        assert_true(is_real(loud[i]));
}

/* importance = audibility x 2^(priority / 100), among non-incumbents. */
static void test_rank_priority_weight(void **state) {
    (void)state;
    static const struct {
        float db_a;
        int32_t prio_a;
        float db_b;
        int32_t prio_b;
        int a_wins;
    } rows[] = {
        {-6.0f, 100, 0.0f, 0, 1},  /* 0.501 x 2 > 1 */
        {-6.0f, 90, 0.0f, 0, 0},   /* 0.501 x 1.866 < 1 */
        {-6.0f, 0, 0.0f, 0, 0},    /* louder wins */
        {0.0f, -100, -5.0f, 0, 0}, /* 0.5 < 0.562 */
        {-12.0f, 200, 0.0f, 0, 1}, /* 0.251 x 4 > 1 */
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        fx_open(1, 8);
        hld_vm_play_t pl = mkplay(&snd_dc, NULL);
        pl.p.flags |= HL_MIX_PAUSED;
        pl.p.gain = hl_db_to_lin(rows[r].db_a);
        pl.p.priority = rows[r].prio_a;
        uint64_t a = play_ok(&pl);
        pl.p.gain = hl_db_to_lin(rows[r].db_b);
        pl.p.priority = rows[r].prio_b;
        uint64_t b = play_ok(&pl);
        assert_int_equal(hld_vm_pause_matching(F.vm, all_voices, NULL, 0, F.now), 2);
        tick();
        if (is_real(a) != rows[r].a_wins || is_real(b) == rows[r].a_wins)
            fail_msg("row %zu: a real %d, b real %d", r, is_real(a), is_real(b));
        fx_close(NULL);
    }
}

/* Hysteresis: 1 dB louder does not displace the incumbent, 6 dB does. */
static void test_rank_hysteresis(void **state) {
    (void)state;
    fx_open(1, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    pl.p.gain = 0.5f;
    uint64_t r = play_ok(&pl);
    tick();
    assert_true(is_real(r));
    pl.p.gain = 0.5f * hl_db_to_lin(1.0f);
    uint64_t v = play_ok(&pl);
    assert_false(is_real(v)); /* not enough to beat the weakest at admission */
    assert_int_equal(nev(HL_EVENT_VIRTUAL, v, HL_VIRT_WHY_RANK), 1);
    for (int i = 0; i < 5; i++)
        tick();
    assert_true(is_real(r));
    assert_false(is_real(v));
    assert_int_equal(nev(HL_EVENT_VIRTUAL, r, -1), 0);
    assert_int_equal(set_gain(v, 0.5f * hl_db_to_lin(6.0f)), 0);
    tick();
    assert_true(is_real(v));
    assert_false(is_real(r));
    assert_int_equal(nev(HL_EVENT_REAL, v, -1), 1);
    assert_int_equal(nev(HL_EVENT_VIRTUAL, r, HL_VIRT_WHY_RANK), 1);
    assert_int_equal(stats().n.virtualised, 1); /* v was virtual from the start */
    assert_int_equal(stats().n.realised, 1);
    /* and a new play 6 dB over the weakest real takes its place at once */
    tick();
    pl.p.gain = 0.5f * hl_db_to_lin(12.1f);
    uint64_t w = play_ok(&pl);
    assert_true(is_real(w));
    assert_false(is_real(v));
    assert_int_equal(nev(HL_EVENT_VIRTUAL, v, HL_VIRT_WHY_RANK), 2);
    assert_int_equal(stats().real, 1);
}

/* Below the audibility floor: virtual even with real voices to spare. */
static void test_rank_floor(void **state) {
    (void)state;
    fx_open(4, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    pl.p.gain = hl_db_to_lin(-70.0f);
    uint64_t q = play_ok(&pl);
    assert_false(is_real(q));
    assert_int_equal(nev(HL_EVENT_VIRTUAL, q, HL_VIRT_WHY_FLOOR), 1);
    tick();
    assert_false(is_real(q));
    assert_int_equal(stats().real, 0);
    assert_int_equal(hl_mixer_active(F.mx), 0);
    /* far in 3D: the same through distance attenuation (1/2000 < -60 dB) */
    pl = mkplay(&snd_dc, NULL);
    pl.p.max_distance = 5000.0f;
    at_dist(&pl, 2000.0f);
    uint64_t f = play_ok(&pl);
    assert_false(is_real(f));
    /* brought over the floor it becomes real */
    assert_int_equal(set_gain(q, 1.0f), 0);
    tick();
    assert_true(is_real(q));
    assert_int_equal(nev(HL_EVENT_REAL, q, -1), 1);
    assert_false(is_real(f));
}

/* ---- virtual voices: position, end, where they come back ----------------------------- */

/* Start position of the ramp voice read off the output: out = c * (P + k)
 * after the fade-in, so two points give c and P. */
static double ramp_start(const float *o, uint32_t k1, uint32_t k2) {
    double c = ((double)o[2 * k2] - (double)o[2 * k1]) / (double)(k2 - k1);
    return (double)o[2 * k1] / c - (double)k1;
}

static void test_virtual_position_and_return(void **state) {
    (void)state;
    fx_open(1, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    uint64_t loud = play_ok(&pl);
    tick();
    uint64_t f0 = hl_mixer_frames(F.mx);
    pl = mkplay(&snd_ramp, NULL);
    pl.p.gain = 0.5f;
    uint64_t v = play_ok(&pl);
    assert_false(is_real(v));
    for (int i = 0; i < 10; i++)
        tick();
    hld_lvoice_t *lv = hld_vm_get(F.vm, v);
    double pos = hld_vm_position(F.vm, lv);
    assert_float_equal(pos, (double)(hl_mixer_frames(F.mx) - f0), 0.0);
    assert_int_equal(hld_vm_state(lv), HL_VOICE_VIRTUAL);
    /* the loud one goes; the ramp comes back where it would be */
    assert_int_equal(hld_vm_stop(F.vm, loud, 0, 0, HL_END_STOPPED, F.now), 0);
    render(BLOCK);
    tick();
    assert_true(is_real(v));
    assert_int_equal(nev(HL_EVENT_REAL, v, -1), 1);
    pos = hld_vm_position(F.vm, hld_vm_get(F.vm, v));
    hl_voice_view_t vv = mix_view(v);
    assert_true(fabs((double)vv.params.start_frame - pos) <= 1.0);
    float *o = calloc(2 * 2048, sizeof(float));
    render_to(o, 2048);
    double got = ramp_start(o, 1200, 2000);
    assert_true(fabs(got - pos) <= BLOCK);
    free(o);
    /* and the model keeps following the real voice */
    assert_float_equal(hld_vm_position(F.vm, hld_vm_get(F.vm, v)), got + 2048.0, BLOCK);
}

/* A real voice made virtual keeps advancing and comes back at the position
 * it would have reached (the mixer's cursor re-anchors it). */
static void test_virtual_round_trip(void **state) {
    (void)state;
    fx_open(1, 8);
    hld_vm_play_t pl = mkplay(&snd_ramp, NULL);
    pl.p.gain = 0.5f;
    uint64_t v = play_ok(&pl);
    render(4096);
    tick();
    assert_true(is_real(v));
    pl = mkplay(&snd_dc, NULL);
    pl.p.gain = 2.0f;
    uint64_t loud = play_ok(&pl); /* 12 dB over: v goes virtual at once */
    assert_false(is_real(v));
    assert_int_equal(nev(HL_EVENT_VIRTUAL, v, HL_VIRT_WHY_RANK), 1);
    for (int i = 0; i < 8; i++)
        tick();
    assert_int_equal(hld_vm_stop(F.vm, loud, 0, 0, HL_END_STOPPED, F.now), 0);
    render(BLOCK);
    double before = hld_vm_position(F.vm, hld_vm_get(F.vm, v));
    /* wall clock: 4096 + 1024 (tick) + 8 * 1024 + 256 frames since the start */
    assert_float_equal(before, (double)hl_mixer_frames(F.mx), 2.0);
    hld_vm_tick(F.vm, F.now + 30000000ull);
    assert_true(is_real(v));
    float *o = calloc(2 * 2048, sizeof(float));
    render_to(o, 2048);
    assert_true(fabs(ramp_start(o, 1200, 2000) - before) <= BLOCK);
    free(o);
}

/* One real voice (a loud DC) holding the pool's only real slot, a tick, and
 * a looping quiet play of the short sound that will be virtual: *f0 is the
 * frame it starts on. */
static hld_vm_play_t virtual_loop_scene(uint64_t *f0) {
    fx_open(1, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    pl.p.gain = 2.0f;
    play_ok(&pl);
    tick();
    *f0 = hl_mixer_frames(F.mx);
    hld_vm_play_t lp = mkplay(&snd_short, NULL);
    lp.p.gain = 0.5f;
    lp.p.flags |= HL_MIX_LOOP;
    return lp;
}

/* A looping virtual voice wraps; a one-shot that passes its end while virtual
 * ends (finished) at the next tick. */
static void test_virtual_wrap_and_end(void **state) {
    (void)state;
    uint64_t f0 = 0;
    hld_vm_play_t lp = virtual_loop_scene(&f0);
    lp.loops = -1;
    uint64_t loop = play_ok(&lp);
    hld_vm_play_t lp2 = lp;
    lp2.loops = 1; /* one extra pass, then to the end */
    uint64_t twice = play_ok(&lp2);
    hld_vm_play_t op = mkplay(&snd_short, NULL);
    op.p.gain = 0.5f;
    uint64_t once = play_ok(&op);
    assert_false(is_real(loop));
    assert_false(is_real(once));
    tick();
    tick();
    tick(); /* 3072 + 1024 < 4800: all alive */
    assert_int_equal(nev(HL_EVENT_ENDED, 0, -1), 0);
    tick(); /* 4096 frames */
    tick(); /* 5120 frames: once passed its end */
    uint64_t el = hl_mixer_frames(F.mx) - f0;
    assert_int_equal(nev(HL_EVENT_ENDED, once, HL_END_FINISHED), 1);
    assert_null(hld_vm_get(F.vm, once));
    assert_float_equal(hld_vm_position(F.vm, hld_vm_get(F.vm, loop)), (double)(el % SHORT_N), 0.0);
    assert_float_equal(hld_vm_position(F.vm, hld_vm_get(F.vm, twice)), (double)(el % SHORT_N), 0.0);
    for (int i = 0; i < 5; i++)
        tick(); /* 10240 frames: past two passes */
    el = hl_mixer_frames(F.mx) - f0;
    assert_float_equal(hld_vm_position(F.vm, hld_vm_get(F.vm, loop)), (double)(el % SHORT_N), 0.0);
    assert_int_equal(nev(HL_EVENT_ENDED, twice, HL_END_FINISHED), 1);
    assert_int_equal(stats().active, 2);
    assert_int_equal(snd_short.playing, 1);
}

/* SET loops on a virtual voice: its position model leaves the loop region
 * at the end of the pass it is in, plays the rest of the sound and ends
 * there, as the mixer would; loops -1 on a one-shot loops it whole. */
static void test_virtual_set_loops(void **state) {
    (void)state;
    uint64_t f0 = 0;
    hld_vm_play_t lp = virtual_loop_scene(&f0);
    lp.p.loop_start = 1200;
    lp.p.loop_end = 2400;
    lp.ls = 1200.0;
    lp.le = 2400.0;
    lp.loops = -1;
    uint64_t v = play_ok(&lp);
    hld_vm_play_t op = mkplay(&snd_short, NULL);
    op.p.gain = 0.5f;
    uint64_t once = play_ok(&op);
    assert_false(is_real(v));
    assert_false(is_real(once));
    tick();
    tick(); /* 2048: in v's first pass of the region */
    hl_voice_set_t s = {.mask = HL_MIX_SET_LOOPS, .loops = 0};
    assert_int_equal(hld_vm_set(F.vm, v, &s, F.now), 0);
    s.loops = -1;
    assert_int_equal(hld_vm_set(F.vm, once, &s, F.now), 0);
    uint64_t end = 0;
    assert_int_equal(hld_vm_pass_end(F.vm, v, hl_mixer_frames(F.mx), &end), 0);
    assert_int_equal(end - f0, SHORT_N); /* no pass left: it ends with the sound */
    tick();
    tick(); /* 4096: past the region, on through the sound */
    uint64_t el = hl_mixer_frames(F.mx) - f0;
    assert_float_equal(hld_vm_position(F.vm, hld_vm_get(F.vm, v)), (double)el, 0.0);
    tick(); /* 5120: the sound's end (4800) passed */
    assert_int_equal(nev(HL_EVENT_ENDED, v, HL_END_FINISHED), 1);
    el = hl_mixer_frames(F.mx) - f0;
    assert_non_null(hld_vm_get(F.vm, once)); /* looping whole now */
    assert_float_equal(hld_vm_position(F.vm, hld_vm_get(F.vm, once)), (double)(el % SHORT_N), 0.0);
}

/* virt = restart comes back from 0; virt = kill ends instead of going virtual. */
static void test_virt_restart_and_kill(void **state) {
    (void)state;
    fx_open(1, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    pl.p.gain = 2.0f;
    uint64_t loud = play_ok(&pl);
    tick();
    hld_vm_play_t rp = mkplay(&snd_ramp, NULL);
    rp.p.gain = 0.5f;
    rp.virt = HL_VIRT_RESTART;
    uint64_t r = play_ok(&rp);
    assert_false(is_real(r));
    for (int i = 0; i < 5; i++)
        tick();
    assert_true(hld_vm_position(F.vm, hld_vm_get(F.vm, r)) > 5000.0);
    hld_vm_stop(F.vm, loud, 0, 0, HL_END_STOPPED, F.now);
    tick();
    assert_true(is_real(r));
    assert_int_equal(mix_view(r).params.start_frame, 0);
    float *o = calloc(2 * 2048, sizeof(float));
    render_to(o, 2048);
    assert_true(fabs(ramp_start(o, 1200, 2000)) <= BLOCK);
    free(o);

    /* kill, displaced by a louder play at admission */
    hld_vm_play_t kp = mkplay(&snd_dc, NULL);
    kp.p.gain = 0.25f;
    kp.virt = HL_VIRT_KILL;
    hld_vm_stop(F.vm, r, 0, 0, HL_END_STOPPED, F.now);
    tick();
    uint64_t k = play_ok(&kp);
    tick();
    assert_true(is_real(k));
    uint64_t l2 = play_ok(&pl);
    assert_true(is_real(l2));
    assert_null(hld_vm_get(F.vm, k));
    assert_int_equal(nev(HL_EVENT_VIRTUAL, k, -1), 0);
    render(FADE + 2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, k, HL_END_KILLED), 1);
    /* kill, displaced at a tick */
    hld_vm_stop(F.vm, l2, 0, 0, HL_END_STOPPED, F.now);
    tick();
    uint64_t k2 = play_ok(&kp);
    assert_true(is_real(k2));
    pl.p.flags |= HL_MIX_PAUSED;
    uint64_t l3 = play_ok(&pl);
    assert_int_equal(set_mask(l3, HL_MIX_SET_RESUME), 0);
    tick();
    assert_true(is_real(l3));
    assert_null(hld_vm_get(F.vm, k2));
    render(FADE + 2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, k2, HL_END_KILLED), 1);
    assert_int_equal(nev(HL_EVENT_VIRTUAL, k2, -1), 0);
    /* kill that cannot be real at admission is refused */
    kp.p.gain = 0.1f;
    assert_int_equal(play_rc(&kp), HELIOD_ENOVOICES);
}

/* beyond = release fades out (ENDED distance) when it moves past max
 * distance; beyond = virtual goes virtual (distance) and comes back. */
static void test_beyond_release_and_virtual(void **state) {
    (void)state;
    fx_open(4, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    at_dist(&pl, 10.0f);
    pl.beyond = HL_BEYOND_RELEASE;
    uint64_t rel = play_ok(&pl);
    pl.beyond = HL_BEYOND_VIRTUAL;
    uint64_t vir = play_ok(&pl);
    tick();
    assert_true(is_real(rel) && is_real(vir));
    hl_voice_set_t s = {.mask = HL_MIX_SET_POS, .pos = {0, 0, -150.0f}};
    assert_int_equal(hld_vm_set(F.vm, rel, &s, F.now), 0);
    assert_int_equal(hld_vm_set(F.vm, vir, &s, F.now), 0);
    tick();
    assert_null(hld_vm_get(F.vm, rel));
    assert_false(is_real(vir));
    assert_int_equal(nev(HL_EVENT_VIRTUAL, vir, HL_VIRT_WHY_DISTANCE), 1);
    assert_int_equal(stats().n.released_distance, 1);
    render(FADE + 2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, rel, HL_END_DISTANCE), 1);
    assert_int_equal(nev(HL_EVENT_ENDED, 0, -1), 1);
    s.pos[2] = -20.0f;
    assert_int_equal(hld_vm_set(F.vm, vir, &s, F.now), 0);
    tick();
    assert_true(is_real(vir));
}

/* ---- emitters --------------------------------------------------------------------- */

static int owner_one_gone(void *user, uint32_t owner) {
    (void)user;
    return owner == 1;
}

static void test_emitters(void **state) {
    (void)state;
    fx_open(8, 16);
    float p0[3] = {1.0f, 0.0f, -10.0f}, vel[3] = {0, 0, 2.0f};
    hld_emitter_t *e = NULL;
    assert_int_equal(hld_vm_emitter_create(F.vm, "car", 5, p0, vel, &e), 0);
    assert_int_equal(hld_vm_emitter_create(F.vm, "car", 5, p0, vel, NULL), HELIOD_EEXIST);
    assert_ptr_equal(hld_vm_emitter_find(F.vm, "car"), e);
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        hld_vm_play_t pl = mkplay(&snd_dc, NULL);
        pl.em = e;
        v[i] = play_ok(&pl);
        hld_lvoice_t *lv = hld_vm_get(F.vm, v[i]);
        assert_memory_equal(lv->p.pos, p0, sizeof p0);
        assert_memory_equal(lv->p.vel, vel, sizeof vel);
        assert_true(lv->p.flags & HL_MIX_3D);
        assert_memory_equal(mix_view(v[i]).params.pos, p0, sizeof p0);
    }
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    uint64_t free_voice = play_ok(&pl);
    assert_int_equal(e->count, 3);
    render(1024);
    float p1[3] = {-3.0f, 2.0f, 4.0f};
    assert_int_equal(hld_vm_emitter_set(F.vm, e, HL_EM_POS, p1, NULL, 0, F.now), 0);
    assert_memory_equal(e->pos, p1, sizeof p1);
    assert_memory_equal(e->vel, vel, sizeof vel);
    for (int i = 0; i < 3; i++) {
        assert_memory_equal(hld_vm_get(F.vm, v[i])->p.pos, p1, sizeof p1);
        assert_memory_equal(mix_view(v[i]).params.pos, p1, sizeof p1);
    }
    assert_float_equal(hld_vm_get(F.vm, free_voice)->p.pos[0], 0.0f, 0.0f);
    /* a voice stopped on its own leaves the emitter */
    assert_int_equal(hld_vm_stop(F.vm, v[2], 0, 0, HL_END_STOPPED, F.now), 0);
    assert_int_equal(e->count, 2);
    assert_int_equal(hld_vm_emitter_destroy(F.vm, e, 960, F.now), 2);
    assert_null(hld_vm_emitter_find(F.vm, "car"));
    assert_null(hld_vm_get(F.vm, v[0]));
    assert_null(hld_vm_get(F.vm, v[1]));
    assert_int_equal(nev(HL_EVENT_ENDED, 0, HL_END_EMITTER), 0); /* fading */
    assert_int_equal(stats().fading, 2);
    render(960 + 2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, v[0], HL_END_EMITTER), 1);
    assert_int_equal(nev(HL_EVENT_ENDED, v[1], HL_END_EMITTER), 1);
    assert_non_null(hld_vm_get(F.vm, free_voice));
    assert_int_equal(stats().emitters, 0);

    /* drop: only emitters whose owner is gone (detached ones stay) */
    hld_emitter_t *a = NULL, *b = NULL, *d = NULL, *a2 = NULL;
    assert_int_equal(hld_vm_emitter_create(F.vm, "a", 1, p0, NULL, &a), 0);
    assert_int_equal(hld_vm_emitter_create(F.vm, "b", 2, p0, NULL, &b), 0);
    assert_int_equal(hld_vm_emitter_create(F.vm, "d", 0, p0, NULL, &d), 0);
    assert_int_equal(hld_vm_emitter_create(F.vm, "a2", 1, p0, NULL, &a2), 0);
    uint64_t va = 0, vb = 0;
    pl = mkplay(&snd_dc, NULL);
    pl.em = a;
    va = play_ok(&pl);
    pl.em = b;
    vb = play_ok(&pl);
    assert_int_equal(hld_vm_emitters_drop(F.vm, owner_one_gone, NULL, F.now), 0);
    assert_null(hld_vm_emitter_find(F.vm, "a"));
    assert_null(hld_vm_emitter_find(F.vm, "a2"));
    assert_ptr_equal(hld_vm_emitter_find(F.vm, "b"), b);
    assert_ptr_equal(hld_vm_emitter_find(F.vm, "d"), d);
    assert_int_equal(b->index < 2 && d->index < 2, 1);
    assert_null(hld_vm_get(F.vm, va));
    assert_non_null(hld_vm_get(F.vm, vb));
    render(FADE + 2 * BLOCK);
    assert_int_equal(nev(HL_EVENT_ENDED, va, HL_END_EMITTER), 1);
    assert_int_equal(stats().emitters, 2);
}

/* ---- pause / resume by group -------------------------------------------------------- */

static int match_bus(void *user, const hld_lvoice_t *lv) {
    return lv->p.bus == *(const uint32_t *)user;
}

static int match_cat(void *user, const hld_lvoice_t *lv) {
    return lv->cat == user;
}

static void test_pause_matching(void **state) {
    (void)state;
    fx_open(8, 16);
    hld_category_t *fx = def_cat("fx", 0, HL_OVERFLOW_REFUSE, -1.0f);
    def_cat("ui", 0, HL_OVERFLOW_REFUSE, -1.0f);
    hld_cue_t *cfx = def_cue("boom", "fx", 0, HL_OVERFLOW_REFUSE, 0.0f);
    hld_cue_t *cui = def_cue("click", "ui", 0, HL_OVERFLOW_REFUSE, 0.0f);
    static const struct {
        int cue; /* 0 none, 1 fx, 2 ui */
        uint32_t bus;
    } vs[] = {
        {1, HL_BUS_SFX}, {0, HL_BUS_MUSIC}, {2, HL_BUS_SFX}, {1, HL_BUS_MUSIC}, {2, HL_BUS_UI}};
    enum { NV = 5 };
    uint64_t v[NV];
    for (int i = 0; i < NV; i++) {
        hld_vm_play_t pl = mkplay(&snd_dc, vs[i].cue == 1 ? cfx : vs[i].cue == 2 ? cui : NULL);
        pl.p.bus = vs[i].bus;
        v[i] = play_ok(&pl);
    }
    render(512);
    uint32_t music = HL_BUS_MUSIC;
    assert_int_equal(hld_vm_pause_matching(F.vm, match_bus, &music, 1, F.now), 2);
    assert_int_equal(hld_vm_pause_matching(F.vm, match_bus, &music, 1, F.now), 0);
    for (int i = 0; i < NV; i++) {
        int paused = vs[i].bus == HL_BUS_MUSIC;
        assert_int_equal(hld_vm_get(F.vm, v[i])->paused, paused);
        assert_int_equal(mix_view(v[i]).state, paused ? HL_MIX_STATE_PAUSED : HL_MIX_STATE_PLAYING);
    }
    /* paused voices still count */
    assert_int_equal(stats().active, NV);
    /* category fx: one paused (music) and one playing; pause then resume */
    assert_int_equal(hld_vm_pause_matching(F.vm, match_cat, fx, 1, F.now), 1);
    assert_true(hld_vm_get(F.vm, v[0])->paused);
    assert_int_equal(hld_vm_pause_matching(F.vm, match_cat, fx, 0, F.now), 2);
    assert_false(hld_vm_get(F.vm, v[0])->paused);
    assert_false(hld_vm_get(F.vm, v[3])->paused);
    assert_true(hld_vm_get(F.vm, v[1])->paused); /* music, no category */
    assert_false(hld_vm_get(F.vm, v[2])->paused);
    assert_int_equal(mix_view(v[3]).state, HL_MIX_STATE_PLAYING);
    /* stop by category */
    assert_int_equal(hld_vm_stop_matching(F.vm, match_cat, cui->cat, 0, HL_END_STOPPED, F.now), 2);
    assert_null(hld_vm_get(F.vm, v[2]));
    assert_null(hld_vm_get(F.vm, v[4]));
    assert_int_equal(stats().active, NV - 2);
}

/* ---- a full command ring: all or nothing ---------------------------------------- */

/* Queues gain sets on v until the command ring has `room` places left. */
static void fill_ring(uint64_t v, uint32_t room) {
    while (hl_mixer_cmd_room(F.mx) > room)
        assert_int_equal(set_gain(v, 0.9f), 0);
    assert_int_equal(hl_mixer_cmd_room(F.mx), room);
}

/* STOP_ALL, PAUSE, EMITTER set and destroy need one command per real voice
 * they touch: when the ring cannot take them all they answer EBUSY and
 * nothing changed (no voice stopped, paused or moved, the emitter kept);
 * virtual voices need no command. */
static void test_busy_ring_all_or_nothing(void **state) {
    (void)state;
    fx_open_cmd(8, 16, 32);
    float p0[3] = {1.0f, 0.0f, -5.0f}, p1[3] = {-2.0f, 0.0f, -3.0f};
    hld_emitter_t *e = NULL;
    assert_int_equal(hld_vm_emitter_create(F.vm, "car", 1, p0, NULL, &e), 0);
    enum { NV = 6, NE = 4 };
    uint64_t v[NV];
    for (int i = 0; i < NV; i++) {
        hld_vm_play_t pl = mkplay(&snd_dc, NULL);
        if (i < NE) pl.em = e;
        v[i] = play_ok(&pl);
        assert_true(is_real(v[i]));
    }
    hld_vm_play_t pp = mkplay(&snd_dc, NULL);
    pp.p.flags |= HL_MIX_PAUSED; /* virtual from the start: no command needed */
    uint64_t vp = play_ok(&pp);
    assert_false(is_real(vp));
    render(BLOCK);
    uint64_t filler = v[NV - 1];
    size_t nrec = F.nrec;

    fill_ring(filler, NV - 1); /* one short for the real voices */
    assert_int_equal(hld_vm_stop_matching(F.vm, NULL, NULL, 0, HL_END_STOPPED, F.now),
                     HELIOD_EBUSY);
    assert_int_equal(stats().active, NV + 1);
    assert_int_equal(stats().real, NV);
    assert_int_equal(F.nrec, nrec);
    assert_int_equal(hl_mixer_cmd_room(F.mx), NV - 1);
    assert_int_equal(hld_vm_pause_matching(F.vm, NULL, NULL, 1, F.now), HELIOD_EBUSY);
    for (int i = 0; i < NV; i++) {
        assert_false(hld_vm_get(F.vm, v[i])->paused);
        assert_int_equal(mix_view(v[i]).state, HL_MIX_STATE_PLAYING);
    }
    assert_int_equal(hl_mixer_cmd_room(F.mx), NV - 1);

    fill_ring(filler, NE - 1);
    assert_int_equal(hld_vm_emitter_set(F.vm, e, HL_EM_POS, p1, NULL, 0, F.now), HELIOD_EBUSY);
    assert_memory_equal(e->pos, p0, sizeof p0);
    for (int i = 0; i < NE; i++) {
        assert_memory_equal(hld_vm_get(F.vm, v[i])->p.pos, p0, sizeof p0);
        assert_memory_equal(mix_view(v[i]).params.pos, p0, sizeof p0);
    }
    assert_int_equal(hld_vm_emitter_destroy(F.vm, e, 0, F.now), HELIOD_EBUSY);
    assert_ptr_equal(hld_vm_emitter_find(F.vm, "car"), e);
    assert_int_equal(e->count, NE);
    for (int i = 0; i < NE; i++)
        assert_true(is_real(v[i]));
    assert_int_equal(F.nrec, nrec);
    assert_int_equal(hl_mixer_cmd_room(F.mx), NE - 1);

    /* exactly enough room: every voice changes */
    render(BLOCK);
    fill_ring(filler, NE);
    assert_int_equal(hld_vm_emitter_set(F.vm, e, HL_EM_POS, p1, NULL, 0, F.now), 0);
    for (int i = 0; i < NE; i++)
        assert_memory_equal(mix_view(v[i]).params.pos, p1, sizeof p1);
    assert_int_equal(hl_mixer_cmd_room(F.mx), 0);
    render(BLOCK);
    fill_ring(filler, NV);
    assert_int_equal(hld_vm_pause_matching(F.vm, NULL, NULL, 1, F.now), NV); /* vp is paused */
    render(BLOCK);
    fill_ring(filler, NE);
    assert_int_equal(hld_vm_emitter_destroy(F.vm, e, 0, F.now), NE);
    assert_null(hld_vm_emitter_find(F.vm, "car"));
    render(BLOCK);
    fill_ring(filler, NV - NE);
    assert_int_equal(hld_vm_stop_matching(F.vm, NULL, NULL, 0, HL_END_STOPPED, F.now), NV - NE + 1);
    assert_int_equal(stats().active, 0);
}

/* A virt = kill play that cannot be real is refused before its cue's
 * overflow policy evicts anything; one whose eviction frees a real voice
 * still plays (real). */
static void test_kill_refused_without_evicting(void **state) {
    (void)state;
    fx_open(1, 8);
    hld_cue_t *c = def_cue("k", NULL, 1, HL_OVERFLOW_STOP_OLDEST, 0.0f);
    hld_vm_play_t lp = mkplay(&snd_dc, NULL);
    lp.p.gain = 2.0f;
    uint64_t loud = play_ok(&lp);
    tick();
    assert_true(is_real(loud));
    hld_vm_play_t first = mkplay(&snd_dc, c);
    first.p.gain = 0.5f; /* virt resume: virtual, counted in its cue */
    uint64_t a = play_ok(&first);
    assert_false(is_real(a));
    size_t nrec = F.nrec;
    hld_vm_play_t kp = mkplay(&snd_dc, c);
    kp.virt = HL_VIRT_KILL;
    /* loses to the loud real voice, and the victim is virtual: nothing to gain */
    kp.p.gain = 0.25f;
    assert_int_equal(play_rc(&kp), HELIOD_ENOVOICES);
    /* below the floor: never real */
    kp.p.gain = 1e-4f;
    assert_int_equal(play_rc(&kp), HELIOD_ENOVOICES);
    assert_non_null(hld_vm_get(F.vm, a));
    assert_int_equal(c->n.active, 1);
    assert_int_equal(c->n.evicted_cue, 0);
    assert_int_equal(stats().n.evicted, 0);
    assert_int_equal(c->n.refused_no_voice, 2);
    assert_int_equal(F.nrec, nrec);
    /* the victim is real: evicting it frees the real voice the kill play takes */
    assert_int_equal(hld_vm_stop(F.vm, loud, 0, 0, HL_END_STOPPED, F.now), 0);
    assert_int_equal(hld_vm_stop(F.vm, a, 0, 0, HL_END_STOPPED, F.now), 0);
    first.p.gain = 2.0f;
    uint64_t b = play_ok(&first);
    tick();
    assert_true(is_real(b));
    kp.p.gain = 0.25f;
    uint64_t k = play_ok(&kp);
    assert_true(is_real(k));
    assert_null(hld_vm_get(F.vm, b));
    assert_int_equal(c->n.evicted_cue, 1);
}

/* Positions past what the integer fields hold (a bogus length, a seek or an
 * anchor beyond UINT32_MAX frames) are clamped before they are converted:
 * the mixer refuses them as past the end instead of the daemon computing
 * an undefined conversion (the UBSan build checks). */
static void test_huge_positions_clamped(void **state) {
    (void)state;
    fx_open(2, 8);
    hld_vm_play_t pl = mkplay(&snd_dc, NULL);
    pl.len = pl.le = 1e10; /* longer than any pcm: the mixer has the last word */
    pl.ls = 4294967000.0;
    pl.loops = INT64_MAX;
    uint64_t v = play_ok(&pl);
    assert_true(is_real(v));
    assert_int_equal(hld_vm_seek(F.vm, v, 5e9, 0, F.now), HELIOD_EINVAL); /* seek_frame >= frames */
    assert_int_equal(hld_vm_seek(F.vm, v, 1e10, 0, F.now), HELIOD_EINVAL); /* >= len */
    assert_true(hld_vm_position(F.vm, hld_vm_get(F.vm, v)) < (double)DC_FRAMES);
    /* a virtual voice moved past UINT32_MAX frames cannot come back: it ends */
    pl.p.flags |= HL_MIX_PAUSED;
    uint64_t w = play_ok(&pl);
    assert_false(is_real(w));
    assert_int_equal(hld_vm_seek(F.vm, w, 6e9, 0, F.now), 0);
    assert_int_equal(set_mask(w, HL_MIX_SET_RESUME), 0);
    tick();
    assert_null(hld_vm_get(F.vm, w));
    assert_int_equal(nev(HL_EVENT_ENDED, w, HL_END_FINISHED), 1);
    assert_non_null(hld_vm_get(F.vm, v));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_quality_ladder, fx_close),
        cmocka_unit_test_teardown(test_admission_interval, fx_close),
        cmocka_unit_test_teardown(test_admission_distance, fx_close),
        cmocka_unit_test_teardown(test_admission_refusals, fx_close),
        cmocka_unit_test_teardown(test_counting, fx_close),
        cmocka_unit_test_teardown(test_pool_of_fading, fx_close),
        cmocka_unit_test_teardown(test_overflow_policies, fx_close),
        cmocka_unit_test_teardown(test_fade_oldest_slots, fx_close),
        cmocka_unit_test_teardown(test_steal_policy_full_pool, fx_close),
        cmocka_unit_test_teardown(test_cue_room_frees_category, fx_close),
        cmocka_unit_test_teardown(test_retired_handle, fx_close),
        cmocka_unit_test_teardown(test_mixing_ref_outlives_logical, fx_close),
        cmocka_unit_test_teardown(test_fade_out_from_fade_in, fx_close),
        cmocka_unit_test_teardown(test_pause_and_stop, fx_close),
        cmocka_unit_test_teardown(test_rank_top_n, fx_close),
        cmocka_unit_test_teardown(test_rank_priority_weight, fx_close),
        cmocka_unit_test_teardown(test_rank_hysteresis, fx_close),
        cmocka_unit_test_teardown(test_rank_floor, fx_close),
        cmocka_unit_test_teardown(test_virtual_position_and_return, fx_close),
        cmocka_unit_test_teardown(test_virtual_round_trip, fx_close),
        cmocka_unit_test_teardown(test_virtual_wrap_and_end, fx_close),
        cmocka_unit_test_teardown(test_virtual_set_loops, fx_close),
        cmocka_unit_test_teardown(test_virt_restart_and_kill, fx_close),
        cmocka_unit_test_teardown(test_beyond_release_and_virtual, fx_close),
        cmocka_unit_test_teardown(test_emitters, fx_close),
        cmocka_unit_test_teardown(test_pause_matching, fx_close),
        cmocka_unit_test_teardown(test_busy_ring_all_or_nothing, fx_close),
        cmocka_unit_test_teardown(test_kill_refused_without_evicting, fx_close),
        cmocka_unit_test_teardown(test_huge_positions_clamped, fx_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
