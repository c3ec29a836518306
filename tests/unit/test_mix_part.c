/*
 * test_mix_part.c - the partitioned mix (hl_mix_part.h, --mix-threads):
 *
 * - The same scene (four partitions of more than HL_MIX_PART_MIN voices:
 *   looping 3D voices at their own pitch, cubic and linear, 2D voices at
 *   pitch 1, filtered voices on the full path, a listener move, modulation
 *   changes) rendered with 1, 2 and 4 mix threads, every thread made to mix
 *   a partition of every block (a barrier at each one's first), gives the
 *   same output to the bit: a partition's sum does not depend on the thread
 *   that mixed it.
 * - A slow worker (held at its first partition of each block until the
 *   audio thread has started its last): the audio thread takes every
 *   partition the worker has not, the same bits.
 * - A worker that never runs (its thread not started): the audio thread
 *   takes every partition itself, counts the worker late, gives the same
 *   bits, and mixes the later blocks alone.
 * - Below HL_MIX_PART_MIN voices the mix is the one-thread loop's exactly.
 * - The accumulators sized for the output's channels (2 threads) give the
 *   bits of those with 8 planes (1 and 4); sized for fewer than the
 *   mixer's, they are refused.
 * - Voices wrapping their loops within a block stay in their partitions:
 *   the one-thread loop's bits where summation order cannot differ.
 * - A worker stalled inside a partition through whole blocks (a hook): the
 *   partition is dropped, its voices left alone, no command applied and the
 *   list compacted under it while it is away (each put off, counted held),
 *   every voice advanced exactly once a block; the commands apply once it
 *   is back. Under ThreadSanitizer the worker resumes without a
 *   happens-before edge to the blocks it missed: any voice, list or
 *   listener they touched under it is reported.
 * Nothing depends on the machine's speed: the real workers are waited for
 * without a time bound (wait_pct >= 1000), the late one on the test's clock;
 * between blocks every started worker is waited for (hl_mix_part_settle),
 * so each block is handed to all of them.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hl_layout.h"
#include "hl_mix_part.h"
#include "mix_helpers.h"
#include "mixer_internal.h"

#define VOICES  1024 /* logical: 2048 slots */
#define PLAYED  800  /* four partitions */
#define NPARTS  4
#define BLOCKS  16
#define CHUNK   256
#define NCH_MAX 12 /* output channels at most (7.1.4) */
#define OUT_N   ((size_t)BLOCKS * CHUNK * NCH_MAX)

/* The partition hooks of render_on (hl_mix_part_config_t.stall). */
enum { HOOK_NONE, HOOK_BARRIER, HOOK_SLOW };
static int hook;
static uint32_t hook_threads;
static _Atomic uint32_t hook_in, hook_go;
static uint32_t hook_round[HL_MIX_THREADS];

/* HOOK_BARRIER: each thread at its first partition of a block waits until
 * every thread has taken one. HOOK_SLOW: worker 1 at its first partition
 * waits until the audio thread starts its last (its NPARTS - 1-th: the
 * worker holds the other), and the audio thread at its first waits until
 * the worker has taken one. */
static void part_hook(void *user, uint32_t w, uint32_t k) {
    (void)user;
    if (hook == HOOK_BARRIER && k == 0) {
        const uint32_t r = ++hook_round[w];
        atomic_fetch_add(&hook_in, 1);
        while (atomic_load(&hook_in) < hook_threads * r)
            sched_yield();
    } else if (hook == HOOK_SLOW && w == 1 && k == 0) {
        const uint32_t r = ++hook_round[1];
        atomic_fetch_add(&hook_in, 1);
        while (atomic_load(&hook_go) < r)
            sched_yield();
    } else if (hook == HOOK_SLOW && w == 0 && k == 0) {
        const uint32_t r = ++hook_round[0];
        while (atomic_load(&hook_in) < r)
            sched_yield();
    } else if (hook == HOOK_SLOW && w == 0 && k == NPARTS - 2) {
        atomic_fetch_add(&hook_go, 1);
    }
}

static hl_mix_part_stats_t render_on(uint32_t layout, uint32_t threads, uint32_t run,
                                     uint64_t (*clock)(void), float *out);
static hl_mix_part_stats_t render(uint32_t threads, uint32_t run, uint64_t (*clock)(void),
                                  float *out) {
    return render_on(HL_LAYOUT_STEREO, threads, run, clock, out);
}

typedef struct {
    hl_mix_part_t *p;
    uint32_t w;
} worker_arg_t;

/* A test worker: spins on its go word (the daemon's sleep on a futex). */
static void *worker(void *arg) {
    worker_arg_t *a = arg;
    hl_mix_part_spin(a->p, a->w, sched_yield);
    return NULL;
}

/* A mix_part of config pc, lent to m if lend, with workers 1..run-1
 * started on it (parts_close: its stats, then all of it gone). */
typedef struct {
    void *mem;
    hl_mix_part_t *p;
    uint32_t run;
    pthread_t th[HL_MIX_THREADS];
    worker_arg_t args[HL_MIX_THREADS];
} parts_t;

static void parts_open(parts_t *r, hl_mixer_t *m, const hl_mix_part_config_t *pc, int lend,
                       uint32_t run) {
    size_t size = hl_mix_part_size(pc);
    assert_true(size > 0);
    r->mem = malloc(size);
    r->p = hl_mix_part_init(r->mem, size, pc);
    assert_non_null(r->p);
    if (lend) assert_int_equal(hl_mixer_set_parts(m, r->p), 0);
    r->run = run;
    for (uint32_t w = 1; w < run; w++) {
        r->args[w] = (worker_arg_t){r->p, w};
        assert_int_equal(pthread_create(&r->th[w], NULL, worker, &r->args[w]), 0);
    }
}

static hl_mix_part_stats_t parts_close(parts_t *r) {
    hl_mix_part_stats_t st;
    hl_mix_part_stats(r->p, &st);
    hl_mix_part_quit(r->p);
    for (uint32_t w = 1; w < r->run; w++)
        pthread_join(r->th[w], NULL);
    free(r->mem);
    return st;
}

static uint64_t fake_ns;
static uint64_t fake_clock(void) {
    return fake_ns += 1000000; /* 1 ms a look: past a 256-frame block's share at once */
}

/* A modulation slot over every fifth voice of the scene (3D, looping):
 * mod_run 1 through the slot (half of them take its gain, half only its
 * filter, which the changes leave alone: they stay on the steady path),
 * 2 by a SET of gain per voice taking it, 0 none. */
static int mod_run;
static uint32_t mod_id, mod_gen;
static uint64_t mod_v[PLAYED];
#define MOD_BASE (1.0f / 64.0f)

/* Block 3: a change; block 11: two in one drain. */
static void mod_step(hl_mixer_t *m, uint32_t b, uint64_t now) {
    if (!mod_run || (b != 3 && b != 11)) return;
    const float f[2] = {b == 3 ? 0.5f : 2.0f, 1.5f};
    for (int k = 0; k < (b == 3 ? 1 : 2); k++) {
        if (mod_run == 1) {
            assert_int_equal(hl_mixer_mod_set(m, mod_id, f[k], 1.0f, 300, now), 0);
            continue;
        }
        for (uint32_t i = 0; i < PLAYED; i += 10) {
            hl_voice_set_t s = {
                .mask = HL_MIX_SET_GAIN, .gain = MOD_BASE * f[k], .ramp_frames = 300};
            assert_int_equal(hl_mixer_set(m, mod_v[i], &s, now), 0);
        }
    }
}

static void play_scene(hl_mixer_t *m, hl_pcm_t *const pcm[4]) {
    if (mod_run == 1) assert_int_equal(hl_mixer_mod_alloc(m, &mod_id, &mod_gen), 0);
    for (uint32_t i = 0; i < PLAYED; i++) {
        hl_voice_params_t p = test_params(pcm[i % 3]);
        p.gain = 1.0f / 64.0f;
        if (mod_run == 1 && i % 5 == 0) {
            p.mod = mod_id;
            p.mod_gen = mod_gen;
            p.mod_base = MOD_BASE;
            p.mod_what = i % 10 == 0 ? HL_MOD_GAIN : HL_MOD_FILTER;
        }
        if (i % 5 != 4) { /* 3D, looping, own pitch */
            p.flags = HL_MIX_3D | HL_MIX_LOOP | (i % 2 ? HL_MIX_CUBIC : 0u);
            p.pos[0] = (float)(i % 17) - 8.0f;
            p.pos[2] = -1.0f - (float)(i % 7);
            p.pitch = 0.9f + 0.2f * (float)((i * 0.618034) - (uint32_t)(i * 0.618034));
            p.min_distance = 1.0f;
            p.max_distance = 50.0f;
            p.rolloff = 1.0f;
        } else if (i % 10 == 4) { /* 2D, pitch 1, filtered: the full path */
            p.flags = HL_MIX_LOOP;
            p.lp_hz = 2000.0f;
            p.bus = HL_BUS_MUSIC;
        } else { /* 2D, pitch 1, once: plays through the test (the partitions stay four) */
            p.pcm = pcm[3];
            p.pan = (float)(i % 3) - 1.0f;
        }
        assert_int_equal(hl_mixer_play(m, &p, 0, &mod_v[i], NULL), 0);
    }
}

/* Renders the scene on `layout` with `threads` mix threads (0: no
 * partitions, the one-thread loop), `run` of them started (the others never
 * run), into out (NCH_MAX planes' room per frame). Returns the partition stats. */
static hl_mix_part_stats_t render_on(uint32_t layout, uint32_t threads, uint32_t run,
                                     uint64_t (*clock)(void), float *out) {
    hl_mixer_config_t cfg = {
        .rate = TEST_RATE, .voices = VOICES, .clock_ns = clock, .layout = layout};
    void *mem = malloc(hl_mixer_size(&cfg));
    hl_mixer_t *m = hl_mixer_init(mem, hl_mixer_size(&cfg), &cfg);
    assert_non_null(m);
    /* 2 threads: planes for the layout's channels alone, else 8 (the same bits) */
    hl_mix_part_config_t pc = {.threads = threads ? threads : 1,
                               .slots = VOICES * 2,
                               .channels = threads == 2 ? hl_mixer_channels(m) : 0,
                               .wait_pct = clock ? 0 : 1000,
                               .clock_ns = clock,
                               .stall = part_hook};
    if (pc.channels > 2) { /* planes for fewer channels than the mixer's: refused */
        hl_mix_part_config_t st = pc;
        st.channels = 2;
        void *smem = malloc(hl_mix_part_size(&st));
        hl_mix_part_t *sp = hl_mix_part_init(smem, hl_mix_part_size(&st), &st);
        assert_int_equal(hl_mixer_set_parts(m, sp), -1);
        free(smem);
    }
    hook_threads = pc.threads;
    atomic_store(&hook_in, 0);
    atomic_store(&hook_go, 0);
    memset(hook_round, 0, sizeof hook_round);
    parts_t r;
    parts_open(&r, m, &pc, threads != 0, run);
    /* short loops: the looping voices wrap within the test, most of them
     * in more than one block (the partitions keep them: mixer_rt.c,
     * edge_in_part); the last, long, for the voices played once */
    hl_pcm_t *pcm[4] = {
        test_pcm_sine(1100, 1, 0.01, 0.0, 0.5f), test_pcm_sine(700, 1, 0.0137, 0.3, 0.4f),
        test_pcm_sine(450, 1, 0.002, 0.0, 0.6f), test_pcm_sine(9000, 1, 0.002, 0.0, 0.6f)};
    play_scene(m, pcm);
    uint64_t now = 0;
    for (uint32_t b = 0; b < BLOCKS; b++) {
        if (b == BLOCKS / 2) { /* the listener turns: every 3D voice's gains move */
            hl_listener_state_t l = {
                {0.5f, 0.0f, 0.0f}, {0.3f, 0.0f, -1.0f}, {0, 1, 0}, {0, 0, 0}, 0};
            assert_int_equal(hl_mixer_set_listener(m, &l, now), 0);
        }
        mod_step(m, b, now);
        hl_mixer_process_rt(m, out + (size_t)b * CHUNK * NCH_MAX, CHUNK, now);
        now += (uint64_t)CHUNK * 1000000000u / TEST_RATE;
        if (run == threads) hl_mix_part_settle(r.p, sched_yield); /* the next block: to all */
    }
    hl_mix_part_stats_t st = parts_close(&r);
    for (int i = 0; i < 4; i++)
        test_pcm_free(pcm[i]);
    free(mem);
    return st;
}

static int same_bits(const float *a, const float *b, size_t n) {
    return memcmp(a, b, n * sizeof(float)) == 0;
}

/* The scene carries a modulation slot's changes, taken by its voices as
 * they are mixed: on a worker's chunk a voice due to take one is left to
 * the audio thread's pass (where a SET of its own would have sent it), one
 * that takes none stays on the worker's steady path. One thread mixes the
 * scene with a SET of gain per voice instead, 2 and 4 with the slot: the
 * same bits (the slot's against SETs on one thread: unit_mix_mod). */
static void test_threads_bit_exact(void **state) {
    (void)state;
    size_t n = OUT_N;
    float *one = calloc(n, sizeof(float)), *two = calloc(n, sizeof(float)),
          *four = calloc(n, sizeof(float));
    mod_run = 2;
    hook = HOOK_BARRIER;
    hl_mix_part_stats_t s1 = render(1, 1, NULL, one);
    mod_run = 1;
    hl_mix_part_stats_t s2 = render(2, 2, NULL, two);
    hl_mix_part_stats_t s4 = render(4, 4, NULL, four);
    mod_run = 0;
    hook = HOOK_NONE;
    assert_int_equal(s1.blocks, BLOCKS);
    assert_int_equal(s1.parts, NPARTS * BLOCKS);
    assert_int_equal(s1.shared, 0);
    assert_int_equal(s2.shared, BLOCKS); /* the workers were handed every block */
    assert_int_equal(s4.shared, BLOCKS);
    assert_true(s2.worker_parts >= BLOCKS); /* and each mixed a partition of it at least */
    assert_true(s4.worker_parts >= 3 * BLOCKS);
    assert_int_equal(s4.parts, NPARTS * BLOCKS);
    assert_int_equal(s2.late + s4.late + s2.dropped + s4.dropped, 0);
    double e = 0.0;
    for (size_t i = 0; i < n; i++)
        e += (double)one[i] * one[i];
    assert_true(e > 1.0); /* something plays */
    assert_true(same_bits(one, two, n));
    assert_true(same_bits(one, four, n));
    free(one);
    free(two);
    free(four);
}

/* The scene on one thread, stereo, no hook, no modulation: rendered once,
 * for the tests that compare with it. */
static const float *stereo_one(void) {
    static float *one;
    if (!one) {
        one = calloc(OUT_N, sizeof(float));
        render(1, 1, NULL, one);
    }
    return one;
}

/* The slow worker: it mixes one partition a block, the audio thread the
 * other three, and the bits are the one thread's. */
static void test_slow_worker_partitions_taken(void **state) {
    (void)state;
    const float *one = stereo_one();
    float *two = calloc(OUT_N, sizeof(float));
    hook = HOOK_SLOW;
    hl_mix_part_stats_t s = render(2, 2, NULL, two);
    hook = HOOK_NONE;
    assert_int_equal(s.shared, BLOCKS);
    assert_int_equal(s.worker_parts, BLOCKS); /* the one it held each block */
    assert_int_equal(s.parts, NPARTS * BLOCKS);
    assert_int_equal(s.late + s.dropped, 0);
    assert_true(same_bits(one, two, OUT_N));
    free(two);
}

static void test_late_worker_rescued(void **state) {
    (void)state;
    size_t n = OUT_N;
    float *one = calloc(n, sizeof(float)), *late = calloc(n, sizeof(float));
    render(1, 1, fake_clock, one); /* the same clock: the drain's budget runs on it too */
    hl_mix_part_stats_t s = render(2, 1, fake_clock, late); /* worker 1 never runs */
    assert_int_equal(s.late, 1);    /* took no partition, then never handed work again */
    assert_int_equal(s.dropped, 0); /* it had started none */
    assert_int_equal(s.shared, 1);
    assert_int_equal(s.worker_parts, 0);
    assert_true(same_bits(one, late, n));
    free(one);
    free(late);
}

/* The partitions against the one-thread loop: the same mix up to the
 * rounding of another summation order, on stereo and on 5.1 (3D voices on
 * every speaker pair: each plane a voice's pair reaches is summed) and on
 * 7.1.4 (the partitions hold 8 planes: its 3D voices take the full path);
 * 1 and 2 threads the same bits on 5.1 and 7.1.4 too. */
static void test_parts_match_one_loop(void **state) {
    (void)state;
    static const uint32_t layouts[3] = {HL_LAYOUT_STEREO, HL_LAYOUT_51, HL_LAYOUT_714};
    for (int k = 0; k < 3; k++) {
        float *ref = calloc(OUT_N, sizeof(float)), *one = calloc(OUT_N, sizeof(float)),
              *two = calloc(OUT_N, sizeof(float));
        render_on(layouts[k], 0, 0, NULL, ref);
        if (k == 0)
            memcpy(one, stereo_one(), OUT_N * sizeof(float));
        else
            render_on(layouts[k], 1, 1, NULL, one);
        render_on(layouts[k], 2, 2, NULL, two);
        double peak = 0.0, worst = 0.0;
        for (size_t i = 0; i < OUT_N; i++) {
            double d = fabs((double)ref[i] - one[i]), a = fabs((double)ref[i]);
            peak = a > peak ? a : peak;
            worst = d > worst ? d : worst;
        }
        print_message("# layout %u: peak %.3f, worst difference %.2g\n", layouts[k], peak, worst);
        assert_true(peak > 0.05);
        assert_true(worst <= 1e-5 * peak); /* float rounding only, no voice lost or doubled */
        assert_true(same_bits(one, two, OUT_N));
        free(ref);
        free(one);
        free(two);
    }
}

/* Voices at their loop points: a steady voice whose block wraps its loop
 * (or reaches another edge) is mixed on the full path inside its
 * partition, in list order, not on the audio thread's second pass. The
 * scene's audible voices all lie in the first of two partitions (the
 * rest play at gain 0: they add exact zeros), so the partitioned sum is
 * the one-thread loop's to the bit only if each wrapping voice joins its
 * partition where the loop adds it to the bus, with the full path's own
 * bits: 2D at pitch 1 (the copy path), 2D pitched, 3D cubic at their own
 * pitch, some with a loop crossfade, on a 300-frame loop. */
#define WRAP_PLAYED 300 /* two partitions */
#define WRAP_LOUD   100 /* in the first */
#define WRAP_BLOCKS 8   /* each voice wraps five times or more */
static hl_mix_part_stats_t render_wrap(uint32_t threads, float *out) {
    hl_mixer_config_t cfg = {.rate = TEST_RATE, .voices = VOICES, .layout = HL_LAYOUT_STEREO};
    void *mem = malloc(hl_mixer_size(&cfg));
    hl_mixer_t *m = hl_mixer_init(mem, hl_mixer_size(&cfg), &cfg);
    assert_non_null(m);
    hl_mix_part_config_t pc = {
        .threads = threads ? threads : 1, .slots = VOICES * 2, .wait_pct = 1000};
    parts_t r;
    parts_open(&r, m, &pc, threads != 0, pc.threads);
    hl_pcm_t *pcm = test_pcm_sine(400, 1, 0.0123, 0.2, 0.5f);
    for (uint32_t i = 0; i < WRAP_PLAYED; i++) {
        hl_voice_params_t v = test_params(pcm);
        v.flags = HL_MIX_LOOP;
        v.loop_start = 60;
        v.loop_end = 360;
        v.loop_xfade = i % 4 == 1 ? 40 : 0;
        v.start_frame = (i * 37) % 350;
        v.gain = i < WRAP_LOUD ? 1.0f / 16.0f : 0.0f;
        if (i % 3 == 1) v.pitch = 0.85f + 0.3f * (float)((i * 0.618034) - (uint32_t)(i * 0.618034));
        if (i % 3 == 2) {
            v.flags |= HL_MIX_3D | HL_MIX_CUBIC;
            v.pitch = 0.9f + 0.2f * (float)((i * 0.414214) - (uint32_t)(i * 0.414214));
            v.pos[0] = (float)(i % 11) - 5.0f;
            v.pos[2] = -1.0f - (float)(i % 5);
            v.min_distance = 1.0f;
            v.max_distance = 50.0f;
            v.rolloff = 1.0f;
        }
        assert_int_equal(hl_mixer_play(m, &v, 0, NULL, NULL), 0);
    }
    uint64_t now = 0;
    for (uint32_t b = 0; b < WRAP_BLOCKS; b++) {
        hl_mixer_process_rt(m, out + (size_t)b * CHUNK * 2, CHUNK, now);
        now += (uint64_t)CHUNK * 1000000000u / TEST_RATE;
        hl_mix_part_settle(r.p, sched_yield);
    }
    hl_mix_part_stats_t st = parts_close(&r);
    test_pcm_free(pcm);
    free(mem);
    return st;
}

static void test_wrapping_voices_in_partitions(void **state) {
    (void)state;
    const size_t n = (size_t)WRAP_BLOCKS * CHUNK * 2;
    float *ref = calloc(n, sizeof(float)), *out = calloc(n, sizeof(float));
    render_wrap(0, ref);
    double e = 0.0;
    for (size_t i = 0; i < n; i++)
        e += (double)ref[i] * ref[i];
    assert_true(e > 1.0);
    static const uint32_t threads[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        memset(out, 0, n * sizeof(float));
        hl_mix_part_stats_t st = render_wrap(threads[k], out);
        assert_int_equal(st.blocks, WRAP_BLOCKS);
        /* the first block is every voice's full path (none started yet,
         * the audio thread's); after it, none is left, though a 300-frame
         * loop wraps in most blocks of a voice */
        print_message("# %u threads: %llu voices left to the second pass\n", threads[k],
                      (unsigned long long)st.left);
        assert_int_equal(st.left, WRAP_PLAYED);
        assert_true(same_bits(ref, out, n));
    }
    free(ref);
    free(out);
}

/* Few voices: the parts stay out of the way (the one-thread loop's bits). */
static void test_small_mix_unchanged(void **state) {
    (void)state;
    float a[CHUNK * 2 * 4], b[CHUNK * 2 * 4];
    for (int with = 0; with < 2; with++) {
        hl_mixer_t *m = test_mixer_new(64, 0);
        hl_mix_part_config_t pc = {.threads = 2, .slots = 128, .wait_pct = 1000};
        void *pmem = malloc(hl_mix_part_size(&pc));
        hl_mix_part_t *p = hl_mix_part_init(pmem, hl_mix_part_size(&pc), &pc);
        if (with) assert_int_equal(hl_mixer_set_parts(m, p), 0);
        hl_pcm_t *pcm = test_pcm_sine(4800, 1, 0.01, 0.0, 0.5f);
        for (int i = 0; i < 40; i++) {
            hl_voice_params_t vp = test_params(pcm);
            vp.flags = HL_MIX_LOOP;
            vp.pitch = 1.0f + 0.01f * (float)i;
            assert_int_equal(hl_mixer_play(m, &vp, 0, NULL, NULL), 0);
        }
        uint64_t now = 0;
        test_render(m, with ? b : a, CHUNK * 4, CHUNK, &now);
        hl_mix_part_stats_t st;
        hl_mix_part_stats(p, &st);
        assert_int_equal(st.blocks, 0);
        test_mixer_free(m);
        test_pcm_free(pcm);
        free(pmem);
    }
    assert_true(same_bits(a, b, CHUNK * 2 * 4));
}

/* The stall: worker 1 stops as it starts its first partition of a task
 * while `armed`, until `resume` (relaxed both ways: no happens-before edge
 * from the blocks mixed meanwhile), and the audio thread, at its first
 * partition of that block, waits until it has. Time stands still but while
 * it is stalled. */
static _Atomic int armed, stalled, resume, audio_waits;
static _Atomic uint64_t stall_ns;
static uint64_t stall_clock(void) {
    if (!atomic_load(&stalled) || atomic_load_explicit(&resume, memory_order_relaxed))
        return atomic_load(&stall_ns);
    return atomic_fetch_add(&stall_ns, 1000000) + 1000000; /* 1 ms a look */
}
static void stall_hook(void *user, uint32_t w, uint32_t k) {
    (void)user;
    if (w == 0 && k == 0 && atomic_load(&audio_waits)) {
        while (!atomic_load(&stalled))
            sched_yield();
        atomic_store(&audio_waits, 0);
    }
    if (w != 1 || k != 0 || !atomic_load_explicit(&armed, memory_order_relaxed)) return;
    atomic_store_explicit(&armed, 0, memory_order_relaxed);
    atomic_store(&stalled, 1);
    while (!atomic_load_explicit(&resume, memory_order_relaxed))
        sched_yield();
}

#define STUCK_VOICES 600 /* three partitions: the worker takes the second */

static void test_stuck_worker_holds_commands(void **state) {
    (void)state;
    hl_mixer_config_t cfg = {.rate = TEST_RATE, .voices = VOICES, .clock_ns = stall_clock};
    void *mem = malloc(hl_mixer_size(&cfg));
    hl_mixer_t *m = hl_mixer_init(mem, hl_mixer_size(&cfg), &cfg);
    hl_mix_part_config_t pc = {
        .threads = 2, .slots = VOICES * 2, .clock_ns = stall_clock, .stall = stall_hook};
    void *pmem = malloc(hl_mix_part_size(&pc));
    hl_mix_part_t *p = hl_mix_part_init(pmem, hl_mix_part_size(&pc), &pc);
    assert_int_equal(hl_mixer_set_parts(m, p), 0);
    pthread_t th;
    worker_arg_t arg = {p, 1};
    assert_int_equal(pthread_create(&th, NULL, worker, &arg), 0);
    /* voice 0 (first in the list) ends while the worker is away: the list
     * compacts; the others loop at pitch 1 from frame 0, so every voice
     * mixed once a block has the same cursor */
    hl_pcm_t *once = test_pcm_sine(6 * CHUNK + 100, 1, 0.01, 0.0, 0.5f);
    hl_pcm_t *loop = test_pcm_sine(48000, 1, 0.003, 0.0, 0.5f);
    uint64_t h[STUCK_VOICES];
    uint32_t mod = 0, gen = 0; /* the odd voices on a slot */
    assert_int_equal(hl_mixer_mod_alloc(m, &mod, &gen), 0);
    for (uint32_t i = 0; i < STUCK_VOICES; i++) {
        hl_voice_params_t vp = test_params(i ? loop : once);
        vp.gain = 1.0f / 64.0f;
        vp.flags = i ? HL_MIX_LOOP : 0u;
        if (i % 2) {
            vp.mod = mod;
            vp.mod_gen = gen;
            vp.mod_base = vp.gain;
        }
        assert_int_equal(hl_mixer_play(m, &vp, 0, &h[i], NULL), 0);
    }
    float out[CHUNK * 2];
    uint64_t now = 0;
    for (int b = 0; b < 4; b++) /* settled: every looping voice on the steady path */
        test_render(m, out, CHUNK, CHUNK, &now);
    hl_mix_part_stats_t st;
    hl_mix_part_settle(p, sched_yield); /* block 4 is handed to the worker */
    atomic_store(&audio_waits, 1);
    atomic_store_explicit(&armed, 1, memory_order_relaxed);
    /* a slot change the stuck chunk's voices do not take in block 4: still
     * pending for them until they are mixed again */
    assert_int_equal(hl_mixer_mod_set(m, mod, 2.0f, 1.0f, CHUNK, now), 0);
    test_render(m, out, CHUNK, CHUNK, &now); /* block 4: the worker stalls, dropped */
    hl_mix_part_stats(p, &st);
    assert_int_equal(st.dropped, 1);
    /* a voice of the stuck partition (the second: from position STUCK_VOICES / 3) */
    const uint32_t qs = m->rt_active[STUCK_VOICES / 3];
    hl_voice_set_t set = {.mask = HL_MIX_SET_GAIN, .gain = 0.5f, .ramp_frames = CHUNK};
    assert_int_equal(hl_mixer_set(m, h[STUCK_VOICES / 3], &set, now), 0);
    for (int b = 0; b < 2; b++) /* blocks 5 and 6: voice 0 ends in the second */
        test_render(m, out, CHUNK, CHUNK, &now);
    hl_mix_part_stats(p, &st);
    assert_true(st.held >= 2);
    assert_int_equal(m->n_rt_active, STUCK_VOICES - 1);
    assert_true(m->rt[qs].gain_2d != 0.5f); /* not applied under the worker */
    atomic_store_explicit(&resume, 1, memory_order_relaxed);
    /* until the worker is back: blocks, each put its commands off */
    uint64_t held = st.held;
    for (uint32_t i = 0; i < 1000000; i++) {
        test_render(m, out, CHUNK, CHUNK, &now);
        hl_mix_part_stats(p, &st);
        if (st.held == held) break;
        held = st.held;
        sched_yield();
    }
    test_render(m, out, CHUNK, CHUNK, &now); /* the SET applies */
    assert_true(m->rt[qs].gain_2d == 0.5f);
    /* every voice on the slot took its change, the stuck chunk's too */
    for (uint32_t i = 1; i < STUCK_VOICES; i += 2)
        assert_true(m->rt[(uint32_t)h[i]].gain_2d == 2.0f / 64.0f);
    assert_int_equal(m->rt_mod[mod - 1].pend, 0u);
    /* every voice mixed once a block (the stuck partition's skipped the
     * blocks the worker was away): no voice mixed twice, none lost; the
     * partition's voices due to take the slot's change were left by the worker
     * in block 4 (as a SET's ramp leaves them), one block further behind */
    const uint64_t ref = m->rt[(uint32_t)h[2]].f.cursor;
    uint64_t behind = 0;
    uint32_t n_ref = 0, n_behind = 0, n_odd = 0;
    for (uint32_t i = 2; i < STUCK_VOICES; i += 2) {
        uint64_t c = m->rt[(uint32_t)h[i]].f.cursor;
        if (c == ref) {
            n_ref++;
        } else {
            assert_true(behind == 0 || c == behind);
            behind = c;
            n_behind++;
        }
    }
    for (uint32_t i = 1; i < STUCK_VOICES; i += 2) {
        uint64_t c = m->rt[(uint32_t)h[i]].f.cursor;
        assert_true(c == ref || c == behind - ((uint64_t)CHUNK << 32));
        n_odd += c != ref;
    }
    print_message("# held %llu, %u voices on time, %u behind by %.0f blocks\n",
                  (unsigned long long)st.held, n_ref, n_behind,
                  (double)((ref - behind) >> 32) / CHUNK);
    assert_int_equal(n_behind, STUCK_VOICES / 3 / 2);
    assert_int_equal(n_odd, STUCK_VOICES / 3 / 2);
    assert_true(behind < ref);
    hl_mix_part_stats(p, &st);
    assert_int_equal(st.dropped, 1);
    hl_mix_part_quit(p);
    pthread_join(th, NULL);
    test_pcm_free(once);
    test_pcm_free(loop);
    free(mem);
    free(pmem);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_bit_exact),
        cmocka_unit_test(test_slow_worker_partitions_taken),
        cmocka_unit_test(test_late_worker_rescued),
        cmocka_unit_test(test_parts_match_one_loop),
        cmocka_unit_test(test_small_mix_unchanged),
        cmocka_unit_test(test_wrapping_voices_in_partitions),
        cmocka_unit_test(test_stuck_worker_holds_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
