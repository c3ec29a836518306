/*
 * vm.c - cost of the voice manager (daemon/voice/vm.c) on the main thread, in
 * process: admission per play with the logical pool full, and the ranking
 * pass of hld_vm_tick.
 *
 * Links daemon/voice/vm.c and daemon/assets/cues.c (built with the daemon's own flags,
 * see bench/meson.build) and the mixer library, as the daemon does. The
 * mixer is real (hl_mixer_init in malloc'd memory, `--real` voices); its
 * audio side is driven from this thread by hl_mixer_process_rt between
 * batches, outside the timed sections, so the command ring never fills and
 * the ENDED / STARTED events reach hld_vm_on_mix_event as in the daemon.
 *
 * Scene: one 1 s mono noise sound (a hand-built hld_sound_t); `--cues` cues
 * over it, all in one category whose max-instances is the logical capacity,
 * each with max-instances = logical / cues (so the limits add up to exactly
 * the pool), min-interval 1 us, distances 1..200 m (inverse), and overflow
 * policies stop-oldest, steal-quietest, steal-farthest and steal-lowest in
 * turn (priorities 0, 10, 20, 30 by play; a steal-lowest cue plays at 30).
 * Eviction fade-outs are 0: an evicted voice frees its logical slot at once
 * (with the pool full the voice manager cuts an eviction's fade to 0 anyway,
 * fade-oldest aside, so the new play has a slot). Voices are looping 3D voices at
 * random positions in a ball of 1..100 m around the origin.
 *
 * play: the pool is filled (logical plays), ranked once, then `--plays`
 * plays go through hld_vm_play in batches of `--batch`, cue k % cues for
 * play k, the clock advancing 2 us per play. Every play does the full
 * admission: min-interval check, distance check, the cue limit (full: an
 * eviction by the cue's policy), the category limit (checked, not full
 * after the eviction), a free logical voice, and the real-or-virtual
 * decision against the weakest real voice. Each play is timed on its own
 * (CLOCK_MONOTONIC around the call; `timer_ns` is the cost of one clock
 * read pair, included). After each batch, untimed: the clock moves to the
 * next HLD_VM_TICK_MS boundary, the mixer renders 4 blocks of 256 frames
 * (20 ms) or more until its command ring is empty, events are polled, and
 * hld_vm_tick ranks (one batch = one 20 ms tick of a busy game).
 *
 *   vm logical=4096 real=64 cues=128 plays=200000 batch=64 ns_per_play_p50=...
 *      ns_per_play_mean=... ns_per_play_p99=... ns_per_play_max=... real_frac=...
 *      evicted=... refused=... timer_ns=...
 *   vm-policy logical=4096 real=64 cues=128 policy=steal-quietest plays=...
 *      ns_per_play_p50=... ns_per_play_mean=... ns_per_play_p99=...
 *
 * rank: the pool is filled, then `--ranks` ranking passes are timed, each by
 * calling hld_vm_tick with the clock HLD_VM_TICK_MS + 1 ns later; between
 * passes (untimed) the mixer renders 4 blocks (the virtualisation fades end)
 * and events are polled. moving=1 moves the listener by 1/20 turn of a 40 m
 * circle before every pass (the worst case: a big share of the real set
 * changes every tick); moving=0 leaves it (the scan and selection alone).
 *
 *   vm-rank logical=65536 real=1024 moving=1 ranks=... ns_per_rank=... (median)
 *      ns_per_rank_mean=... ns_per_rank_max=... ns_per_voice=... (median / logical)
 *      virtualised_per_rank=... realised_per_rank=...
 *
 * usage: vm [--logical N] [--real R] [--cues C] [--plays N] [--batch B]
 *           [--ranks K] [--moving 0|1|both] [--seed S]
 *        --plays 0 skips the admission run, --ranks 0 the ranking run.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_opts.h"
#include "cues.h"
#include "hl_mixer.h"
#include "sounds.h"
#include "vm.h"

#define VM_RATE          48000u
#define VM_BLOCK         256u
#define VM_BLOCKS_TICK   4u /* blocks rendered between batches / ranks: >= 20 ms */
#define VM_SOUND_FRAMES  VM_RATE
#define VM_NS_PER_S      1000000000ull
#define VM_TICK_NS       ((uint64_t)HLD_VM_TICK_MS * 1000000ull)
#define VM_PLAY_STEP_NS  2000ull /* clock step per play: past the 1 us min-interval */
#define VM_MIN_INTERVAL  0.001f  /* ms */
#define VM_MIN_D         1.0     /* positions: ball of 1..100 m */
#define VM_MAX_D         100.0
#define VM_MAX_DISTANCE  200.0f /* nothing beyond it, even with the listener moved */
#define VM_LIS_RADIUS    40.0   /* moving listener: circle radius, m */
#define VM_LIS_STEPS     20     /* per turn */
#define VM_ATTACK_FRAMES 144u   /* 3 ms: the daemon's default fade-in */
#define VM_NPOL          4
#define VM_TIMER_REPS    1000
#define VM_DEF_LOGICAL   4096u
#define VM_DEF_REAL      64u
#define VM_DEF_CUES      128u
#define VM_DEF_PLAYS     200000L
#define VM_DEF_BATCH     64L
#define VM_DEF_RANKS     100L
#define VM_NAME_LEN      32

static const uint8_t policy_of[VM_NPOL] = {HL_OVERFLOW_STOP_OLDEST, HL_OVERFLOW_STEAL_QUIETEST,
                                           HL_OVERFLOW_STEAL_FARTHEST, HL_OVERFLOW_STEAL_LOWEST};
static const char *const policy_name[VM_NPOL] = {"stop-oldest", "steal-quietest", "steal-farthest",
                                                 "steal-lowest"};

typedef struct {
    uint32_t logical, real, ncues;
    void *mixer_mem;
    hl_mixer_t *mx;
    uint32_t cmd_cap;
    hld_cues_t *cues;
    hld_cue_t **cue;
    hld_vm_t *vm;
    hld_sound_t snd;
    float *pcm_data;
    uint64_t now;          /* simulated CLOCK_MONOTONIC */
    uint64_t rng;          /* splitmix64 */
    uint64_t events;       /* notify() calls */
    uint64_t block_ns_max; /* longest hl_mixer_process_rt block (audio-thread cost) */
    float out[2 * VM_BLOCK];
} bench_t;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * VM_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) {
    return (double)(splitmix64(s) >> 11) / (double)(1ull << 53);
}

/* A point in the ball shell VM_MIN_D..VM_MAX_D, uniform in volume. */
static void random_pos(uint64_t *s, float pos[3]) {
    double z = 2.0 * uniform(s) - 1.0, phi = 2.0 * M_PI * uniform(s);
    double r3 = VM_MIN_D * VM_MIN_D * VM_MIN_D;
    double d = cbrt(r3 + uniform(s) * (VM_MAX_D * VM_MAX_D * VM_MAX_D - r3));
    double xy = sqrt(1.0 - z * z);
    pos[0] = (float)(d * xy * cos(phi));
    pos[1] = (float)(d * z);
    pos[2] = (float)(d * xy * sin(phi));
}

static void on_notify(void *user, uint32_t owner, uint16_t type, uint64_t voice, uint8_t reason,
                      uint64_t time_ns) {
    (void)owner;
    (void)type;
    (void)voice;
    (void)reason;
    (void)time_ns;
    ((bench_t *)user)->events++;
}

static void on_mix_event(void *user, const hl_mix_event_t *ev) {
    bench_t *b = user;
    if (ev->type != HL_MIX_EV_STREAM_RETIRED) hld_vm_on_mix_event(b->vm, ev);
}

/* Renders `blocks` blocks, then more until the command ring is empty;
 * polls events after each. */
static void render(bench_t *b, unsigned blocks) {
    for (unsigned i = 0; i < blocks || hl_mixer_cmd_room(b->mx) < b->cmd_cap; i++) {
        uint64_t t0 = now_ns();
        hl_mixer_process_rt(b->mx, b->out, VM_BLOCK, b->now);
        uint64_t dt = now_ns() - t0;
        if (dt > b->block_ns_max) b->block_ns_max = dt;
        hl_mixer_poll(b->mx, on_mix_event, b);
    }
}

static void bench_free(bench_t *b) {
    if (b->vm) hld_vm_destroy(b->vm);
    if (b->cues) {
        hld_cues_close(b->cues);
        free(b->cues);
    }
    free(b->cue);
    free(b->mixer_mem);
    free(b->pcm_data);
    memset(b, 0, sizeof *b);
}

static int bench_init(bench_t *b, uint32_t logical, uint32_t real, uint32_t ncues, uint64_t seed) {
    memset(b, 0, sizeof *b);
    b->logical = logical;
    b->real = real;
    b->ncues = ncues;
    b->rng = seed;
    b->now = VM_NS_PER_S;
    hl_mixer_config_t mc = {.rate = VM_RATE, .voices = real};
    size_t size = hl_mixer_size(&mc);
    if (!size) {
        fprintf(stderr, "vm: bad mixer config (voices %u)\n", real);
        return -1;
    }
    b->mixer_mem = aligned_alloc(64, (size + 63) / 64 * 64);
    b->mx = b->mixer_mem ? hl_mixer_init(b->mixer_mem, size, &mc) : NULL;
    if (!b->mx) return -1;
    b->cmd_cap = hl_mixer_cmd_room(b->mx);

    b->pcm_data = malloc(sizeof(float) * VM_SOUND_FRAMES);
    if (!b->pcm_data) return -1;
    uint64_t ns = seed ^ 0x5eedull;
    for (uint32_t i = 0; i < VM_SOUND_FRAMES; i++)
        b->pcm_data[i] = (float)(0.5 * (2.0 * uniform(&ns) - 1.0));
    snprintf(b->snd.name, sizeof b->snd.name, "noise");
    b->snd.pcm =
        (hl_pcm_t){.data = b->pcm_data, .frames = VM_SOUND_FRAMES, .channels = 1, .finite = 1};
    b->snd.source_rate = VM_RATE;
    b->snd.src_frames = VM_SOUND_FRAMES;

    b->cues = calloc(1, sizeof *b->cues);
    b->cue = calloc(ncues, sizeof *b->cue);
    if (!b->cues || !b->cue) return -1;
    hld_cues_init(b->cues, seed);
    const char *why = NULL;
    hl_category_t cat;
    hl_category_init(&cat);
    snprintf(cat.name, sizeof cat.name, "all");
    cat.max_instances = logical;
    cat.overflow = HL_OVERFLOW_STOP_OLDEST;
    cat.fade_out_ms = 0.0f;
    if (hld_cues_define_category(b->cues, &cat, NULL, &why) != 0) {
        fprintf(stderr, "vm: category: %s\n", why);
        return -1;
    }
    for (uint32_t i = 0; i < ncues; i++) {
        hl_cue_t c;
        hl_cue_init(&c);
        snprintf(c.name, sizeof c.name, "cue%u", i);
        c.nsounds = 1;
        snprintf(c.sounds[0], sizeof c.sounds[0], "noise");
        snprintf(c.category, sizeof c.category, "all");
        c.flags = HL_CUE_LOOP | HL_CUE_3D;
        c.max_distance = VM_MAX_DISTANCE;
        c.fade_out_ms = 0.0f;
        c.max_instances = logical / ncues;
        c.overflow = policy_of[i % VM_NPOL];
        c.min_interval_ms = VM_MIN_INTERVAL;
        if (hld_cues_define(b->cues, &c, &b->cue[i], &why) != 0) {
            fprintf(stderr, "vm: cue %u: %s\n", i, why);
            return -1;
        }
    }
    hld_vm_config_t vc = {
        .logical = logical, .floor_db = HLD_VM_FLOOR_DB, .rate = VM_RATE, .period = VM_BLOCK};
    hld_vm_ops_t ops = {.user = b, .notify = on_notify};
    b->vm = hld_vm_create(&vc, b->mx, b->cues, &ops);
    if (!b->vm) {
        fprintf(stderr, "vm: hld_vm_create failed\n");
        return -1;
    }
    return 0;
}

/* What the daemon's build_play makes of a PLAY of cue `c` at pos. */
static void make_play(bench_t *b, uint32_t c, uint32_t k, const float pos[3], hld_vm_play_t *pl) {
    memset(pl, 0, sizeof *pl);
    hld_cue_t *cue = b->cue[c];
    int32_t prio = cue->def.overflow == HL_OVERFLOW_STEAL_LOWEST ? 30 : (int32_t)(k % 4) * 10;
    pl->cue = cue;
    pl->snd = &b->snd;
    pl->p = (hl_voice_params_t){
        .pcm = &b->snd.pcm,
        .flags = HL_MIX_LOOP | HL_MIX_3D,
        .gain = 1.0f,
        .pos = {pos[0], pos[1], pos[2]},
        .pitch = 1.0f,
        .priority = prio,
        .attack_frames = VM_ATTACK_FRAMES,
        .min_distance = cue->def.min_distance,
        .max_distance = cue->def.max_distance,
        .rolloff = cue->def.rolloff,
        .model = cue->def.model,
        .bus = HL_BUS_SFX,
        .doppler_factor = cue->def.doppler,
        .attack_curve = HL_FADE_LINEAR,
    };
    pl->owner = 1;
    pl->fade_out_frames = 0;
    pl->fade_curve = HL_CURVE_LINEAR;
    pl->beyond = cue->def.beyond;
    pl->virt = cue->def.virt;
    pl->rate = 1.0;
    pl->len = pl->le = (double)b->snd.pcm.frames;
    pl->ls = 0.0;
    pl->loops = -1;
}

/* Fills the pool: every cue up to its limit, then one ranking. */
static int fill(bench_t *b) {
    for (uint32_t k = 0; k < b->logical; k++) {
        float pos[3];
        random_pos(&b->rng, pos);
        hld_vm_play_t pl;
        make_play(b, k % b->ncues, k, pos, &pl);
        uint64_t voice, stolen;
        b->now += VM_PLAY_STEP_NS;
        int rc = hld_vm_play(b->vm, &pl, b->now, &voice, &stolen);
        if (rc == HELIOD_EBUSY) {
            render(b, 1);
            k--;
            continue;
        }
        if (rc != 0) {
            fprintf(stderr, "vm: fill play %u: error %d\n", k, rc);
            return -1;
        }
        if (hl_mixer_cmd_room(b->mx) < b->cmd_cap / 2) render(b, 1);
    }
    b->now += VM_TICK_NS + 1;
    hld_vm_tick(b->vm, b->now);
    render(b, VM_BLOCKS_TICK);
    hld_vm_stats_t st;
    hld_vm_stats(b->vm, &st);
    if (st.active != b->logical) {
        fprintf(stderr, "vm: pool not full after the fill: %u of %u\n", st.active, b->logical);
        return -1;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* p-th percentile (nearest rank) of sorted v[0..n). */
static double pct(const uint64_t *v, size_t n, double p) {
    if (n == 0) return NAN;
    size_t r = (size_t)ceil(p / 100.0 * (double)n);
    if (r < 1) r = 1;
    if (r > n) r = n;
    return (double)v[r - 1];
}

static double mean_u64(const uint64_t *v, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (double)v[i];
    return n ? s / (double)n : NAN;
}

/* Median cost of a back-to-back pair of clock reads. */
static double timer_cost(void) {
    uint64_t v[VM_TIMER_REPS];
    for (int i = 0; i < VM_TIMER_REPS; i++) {
        uint64_t t0 = now_ns();
        v[i] = now_ns() - t0;
    }
    qsort(v, VM_TIMER_REPS, sizeof *v, cmp_u64);
    return pct(v, VM_TIMER_REPS, 50.0);
}

static int run_plays(uint32_t logical, uint32_t real, uint32_t ncues, long plays, long batch,
                     uint64_t seed) {
    bench_t b;
    int rc = 1;
    uint64_t *ns = malloc(sizeof(uint64_t) * (size_t)plays);
    uint8_t *pol = malloc((size_t)plays);
    uint64_t *tmp = malloc(sizeof(uint64_t) * (size_t)plays);
    float(*pos)[3] = malloc(sizeof(float[3]) * (size_t)batch);
    if (!ns || !pol || !tmp || !pos) goto out;
    if (bench_init(&b, logical, real, ncues, seed) != 0 || fill(&b) != 0) goto out_b;

    hld_vm_stats_t st0, st1;
    hld_vm_stats(b.vm, &st0);
    long nref = 0, made_real = 0, done = 0;
    while (done < plays) {
        long n = plays - done < batch ? plays - done : batch;
        for (long j = 0; j < n; j++)
            random_pos(&b.rng, pos[j]);
        uint64_t t_batch = b.now;
        for (long j = 0; j < n; j++) {
            uint32_t k = (uint32_t)(done + j);
            uint32_t c = k % ncues;
            hld_vm_play_t pl;
            make_play(&b, c, k, pos[j], &pl);
            uint64_t voice, stolen;
            b.now += VM_PLAY_STEP_NS;
            uint64_t t0 = now_ns();
            int r = hld_vm_play(b.vm, &pl, b.now, &voice, &stolen);
            uint64_t t1 = now_ns();
            ns[k] = t1 - t0;
            pol[k] = (uint8_t)(c % VM_NPOL);
            if (r < 0) {
                nref++;
                continue;
            }
            const hld_lvoice_t *lv = hld_vm_get(b.vm, voice);
            if (lv && lv->real) made_real++;
        }
        done += n;
        b.now = t_batch + VM_TICK_NS + 1; /* one batch per tick */
        render(&b, VM_BLOCKS_TICK);
        hld_vm_tick(b.vm, b.now);
        render(&b, 0);
    }
    hld_vm_stats(b.vm, &st1);

    memcpy(tmp, ns, sizeof(uint64_t) * (size_t)plays);
    qsort(tmp, (size_t)plays, sizeof *tmp, cmp_u64);
    printf("vm logical=%u real=%u cues=%u plays=%ld batch=%ld ns_per_play_p50=%.0f "
           "ns_per_play_mean=%.1f ns_per_play_p99=%.0f ns_per_play_max=%.0f real_frac=%.4f "
           "evicted=%llu stolen=%llu refused=%ld active=%u timer_ns=%.0f\n",
           logical, real, ncues, plays, batch, pct(tmp, (size_t)plays, 50.0),
           mean_u64(tmp, (size_t)plays), pct(tmp, (size_t)plays, 99.0), (double)tmp[plays - 1],
           (double)made_real / (double)plays, (unsigned long long)(st1.n.evicted - st0.n.evicted),
           (unsigned long long)(st1.n.stolen - st0.n.stolen), nref, st1.active, timer_cost());
    for (int p = 0; p < VM_NPOL && (uint32_t)p < ncues; p++) {
        size_t m = 0;
        for (long k = 0; k < plays; k++)
            if (pol[k] == p) tmp[m++] = ns[k];
        qsort(tmp, m, sizeof *tmp, cmp_u64);
        printf("vm-policy logical=%u real=%u cues=%u policy=%s plays=%zu ns_per_play_p50=%.0f "
               "ns_per_play_mean=%.1f ns_per_play_p99=%.0f\n",
               logical, real, ncues, policy_name[p], m, pct(tmp, m, 50.0), mean_u64(tmp, m),
               pct(tmp, m, 99.0));
    }
    fflush(stdout);
    if (nref)
        fprintf(stderr,
                "# vm: %ld plays refused (interval %llu distance %llu cue %llu cat %llu "
                "no-voice %llu)\n",
                nref, (unsigned long long)(st1.n.refused_interval - st0.n.refused_interval),
                (unsigned long long)(st1.n.refused_distance - st0.n.refused_distance),
                (unsigned long long)(st1.n.refused_cue_limit - st0.n.refused_cue_limit),
                (unsigned long long)(st1.n.refused_cat_limit - st0.n.refused_cat_limit),
                (unsigned long long)(st1.n.refused_no_voice - st0.n.refused_no_voice));
    rc = nref ? 1 : 0;
out_b:
    bench_free(&b);
out:
    free(ns);
    free(pol);
    free(tmp);
    free(pos);
    return rc;
}

static int run_ranks(uint32_t logical, uint32_t real, uint32_t ncues, long ranks, int moving,
                     uint64_t seed) {
    bench_t b;
    int rc = 1;
    uint64_t *ns = malloc(sizeof(uint64_t) * (size_t)ranks);
    if (!ns) return 1;
    if (bench_init(&b, logical, real, ncues, seed) != 0 || fill(&b) != 0) goto out;
    hld_vm_stats_t st0, st1;
    hld_vm_stats(b.vm, &st0);
    b.block_ns_max = 0;
    for (long i = 0; i < ranks; i++) {
        if (moving) {
            hl_listener_state_t lis;
            hl_mixer_get_listener(b.mx, &lis);
            double a = 2.0 * M_PI * (double)(i + 1) / VM_LIS_STEPS;
            lis.pos[0] = (float)(VM_LIS_RADIUS * cos(a));
            lis.pos[2] = (float)(VM_LIS_RADIUS * sin(a));
            if (hl_mixer_set_listener(b.mx, &lis, b.now) != 0) {
                fprintf(stderr, "vm: set_listener: ring full\n");
                goto out;
            }
        }
        b.now += VM_TICK_NS + 1;
        uint64_t t0 = now_ns();
        hld_vm_rank(b.vm, b.now); /* one pass each (the daemon's tick may stretch its period) */
        uint64_t t1 = now_ns();
        ns[i] = t1 - t0;
        render(&b, VM_BLOCKS_TICK);
    }
    hld_vm_stats(b.vm, &st1);
    double mean = mean_u64(ns, (size_t)ranks);
    qsort(ns, (size_t)ranks, sizeof *ns, cmp_u64);
    double p50 = pct(ns, (size_t)ranks, 50.0);
    printf("vm-rank logical=%u real=%u moving=%d ranks=%ld ns_per_rank=%.0f ns_per_rank_mean=%.0f "
           "ns_per_rank_max=%.0f ns_per_voice=%.2f virtualised_per_rank=%.1f "
           "realised_per_rank=%.1f realise_failed=%llu active=%u real_now=%u block_us_max=%.1f\n",
           logical, real, moving, ranks, p50, mean, (double)ns[ranks - 1], p50 / (double)logical,
           (double)(st1.n.virtualised - st0.n.virtualised) / (double)ranks,
           (double)(st1.n.realised - st0.n.realised) / (double)ranks,
           (unsigned long long)(st1.n.realise_failed - st0.n.realise_failed), st1.active, st1.real,
           (double)b.block_ns_max / 1e3);
    fflush(stdout);
    rc = st1.active == logical ? 0 : 1;
out:
    bench_free(&b);
    free(ns);
    return rc;
}

#define VM_STR_(x) #x
#define VM_STR(x)  VM_STR_(x)
#define VM_USAGE                                                                                   \
    "[--logical N] [--real R] [--cues C] [--plays N] [--batch B]\n"                                \
    "          [--ranks K] [--moving 0|1|both] [--seed S]\n"                                       \
    "  logical: 1.." VM_STR(HLD_MAX_LOGICAL) ", a multiple of cues; real: 1.." VM_STR(             \
        HL_MAX_VOICES) ", <= logical"

int main(int argc, char **argv) {
    long logical = VM_DEF_LOGICAL, real = VM_DEF_REAL, ncues = VM_DEF_CUES;
    long plays = VM_DEF_PLAYS, batch = VM_DEF_BATCH, ranks = VM_DEF_RANKS;
    const char *moving = "both";
    unsigned long long seed = 1;
    const bo_opt_t opts[] = {
        {"logical", 'l', &logical}, {"real", 'l', &real},   {"cues", 'l', &ncues},
        {"plays", 'l', &plays},     {"batch", 'l', &batch}, {"ranks", 'l', &ranks},
        {"moving", 's', &moving},   {"seed", 'u', &seed},   {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, VM_USAGE);
    if (optind != argc || logical < 1 || logical > HLD_MAX_LOGICAL || real < 1 ||
        real > HL_MAX_VOICES || real > logical || ncues < 1 || ncues > HLD_MAX_CUES ||
        logical % ncues != 0 || plays < 0 || batch < 1 || ranks < 0)
        bo_usage(argv[0], VM_USAGE);
    int mv0 = strcmp(moving, "1") != 0, mv1 = strcmp(moving, "0") != 0;
    if (strcmp(moving, "0") != 0 && strcmp(moving, "1") != 0 && strcmp(moving, "both") != 0)
        bo_usage(argv[0], VM_USAGE);
    int rc = 0;
    if (plays > 0)
        rc |= run_plays((uint32_t)logical, (uint32_t)real, (uint32_t)ncues, plays, batch, seed);
    if (ranks > 0 && mv0)
        rc |= run_ranks((uint32_t)logical, (uint32_t)real, (uint32_t)ncues, ranks, 0, seed);
    if (ranks > 0 && mv1)
        rc |= run_ranks((uint32_t)logical, (uint32_t)real, (uint32_t)ncues, ranks, 1, seed);
    return rc;
}
