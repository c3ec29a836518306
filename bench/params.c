/*
 * params.c - cost of game parameters: `--voices` voices of a cue whose gain
 * (and, with --lp, low-pass) is bound to a parameter that the game changes
 * `--hz` times a second, in process, with the voice manager and the real
 * mixer (daemon/voice/vm_params.c, daemon/assets/params.c).
 *
 * Simulated time advances one period (`--period` frames at 48 kHz) per
 * step. Each step: the parameter is set when a 1/hz boundary passed (a new
 * value, a sine over 0..1, seek 0: every change moves every voice), the
 * voice manager's parameter tick runs (hld_vm_params_tick: evaluation and
 * the slot's change, or a ramped SET per voice) and is timed, then the
 * mixer renders the period (hl_mixer_process_rt, timed: the audio thread's
 * cost, every voice's share of the change included). A baseline condition
 * does the same with the parameter still.
 *
 * Paired design: the two conditions are two instances set up side by side
 * (each its own mixer, voice manager and simulated clock) that run
 * alternately in chunks of `--chunk` seconds of blocks (0.25 s: 47 blocks
 * at 256 frames), in ABBA order, until each has run `--seconds`. A VM's
 * speed drifts over seconds (another guest, the host's clock): run one
 * after the other, the still run's p50 once came out 30% above the moving
 * one's, and the difference measured the drift. Interleaved, both
 * conditions sample the same machine states. Each chunk starts with one
 * untimed warm-up block (the other instance has just evicted its caches;
 * a cold first block in each chunk would otherwise own the p99 of both);
 * in the moving instance no change falls on a warm-up block: the changes
 * keep time on the timed blocks alone, so every change block is timed and
 * counted (a third of them at 60 Hz and 256 frames, as in one long run)
 * and the per-change cost stays in the p99. Reported, as % of the period:
 *
 *   params voices=1000 hz=60 period=256 steps=... evals=... sets_per_eval=...
 *      eval_us_p50=... eval_us_p99=... eval_pct_p99=...        (main thread, per change)
 *      block_us_p99_still=... block_us_p99_moving=...
 *      callback_added_pct_p99=...                              (audio thread)
 *
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so a machine
 * loaded by others does not put its preemptions into the figures.
 * eval_pct_p99 is the main thread's evaluation of one change (p99 over the
 * changes); callback_added_pct_p99 what the audio callback's p99 grows by
 * when the parameter moves (can be <= 0 within noise). The target of both:
 * <= 1% of a period.
 *
 * --dist adds the blocks' percentiles, still and moving (p10 .. p99), one
 * line each: how many blocks a change costs, not only the worst; and the
 * same of the moving condition's change blocks alone (block_us_change:
 * set against block_us_still, what a change costs the block it lands in). The
 * result line's chunks= and chunk_blocks= give the pairing: chunks per
 * condition, timed blocks per chunk.
 *
 * usage: params [--voices N] [--hz HZ] [--period FRAMES] [--seconds S] [--chunk S] [--lp]
 *               [--dist]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_opts.h"
#include "cues.h"
#include "hl_mixer.h"
#include "params.h"
#include "sounds.h"
#include "vm.h"

#define PB_RATE   48000u
#define PB_FRAMES PB_RATE
#define PB_NS     1000000000ull
#define PB_USAGE                                                                                   \
    "[--voices N] [--hz HZ] [--period FRAMES] [--seconds S] [--chunk S] [--lp]\n"                  \
    "              [--dist]   (each also as -v -z -p -s -c -l -d)\n"                               \
    "  --voices   voices bound to the parameter (default 1000, at most 4096)\n"                    \
    "  --hz       how often the parameter changes (default 60)\n"                                  \
    "  --period   frames per block (default 256, 16..4096)\n"                                      \
    "  --seconds  seconds of blocks per condition (default 10)\n"                                  \
    "  --chunk    seconds per chunk, still and moving interleaved (default 0.25)\n"                \
    "  --lp       the binding drives a low-pass cutoff too\n"                                      \
    "  --dist     the blocks' percentiles, one line each"

typedef struct {
    void *mixer_mem;
    hl_mixer_t *mx;
    hld_cues_t cues;
    hld_params_t params;
    hld_vm_t *vm;
    hld_sound_t snd;
    float *pcm;
    float *out;
    uint32_t period;
} pb_t;

/* This thread's CPU time: what the work costs, not what a loaded machine's
 * scheduler adds (a preempted step would otherwise own the p99). */
static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * PB_NS + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(uint64_t *v, size_t n, double p) {
    if (!n) return 0.0;
    qsort(v, n, sizeof *v, cmp_u64);
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return (double)v[i];
}

static void on_mix_event(void *user, const hl_mix_event_t *ev) {
    pb_t *b = user;
    if (ev->type != HL_MIX_EV_STREAM_RETIRED) hld_vm_on_mix_event(b->vm, ev);
}

static void pb_free(pb_t *b) {
    if (b->vm) hld_vm_destroy(b->vm);
    hld_cues_close(&b->cues);
    hld_params_close(&b->params);
    free(b->mixer_mem);
    free(b->pcm);
    free(b->out);
}

static int pb_init(pb_t *b, uint32_t voices, uint32_t period, int lp) {
    memset(b, 0, sizeof *b);
    b->period = period;
    hl_mixer_config_t mc = {.rate = PB_RATE, .voices = voices};
    size_t size = hl_mixer_size(&mc);
    if (!size) return -1;
    b->mixer_mem = aligned_alloc(64, (size + 63) / 64 * 64);
    b->mx = b->mixer_mem ? hl_mixer_init(b->mixer_mem, size, &mc) : NULL;
    b->pcm = malloc(sizeof(float) * PB_FRAMES);
    b->out = malloc(sizeof(float) * 2 * period);
    if (!b->mx || !b->pcm || !b->out) return -1;
    uint64_t s = 12345;
    for (uint32_t i = 0; i < PB_FRAMES; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        b->pcm[i] = (float)((double)(s >> 11) / (double)(1ull << 53) - 0.5) * 0.01f;
    }
    snprintf(b->snd.name, sizeof b->snd.name, "noise");
    b->snd.pcm = (hl_pcm_t){.data = b->pcm, .frames = PB_FRAMES, .channels = 1, .finite = 1};
    b->snd.source_rate = PB_RATE;
    b->snd.src_frames = PB_FRAMES;
    hld_cues_init(&b->cues, 1);
    if (hld_params_init(&b->params) != 0) return -1;
    b->cues.params = &b->params;
    char sheet[512];
    snprintf(sheet, sizeof sheet,
             "[parameter speed] 0 1 0 0\n"
             "[cue engine]\nsound = noise\nloop = true\n"
             "bind = speed gain 0:-12 0.5:-3:scurve 1:0\n%s",
             lp ? "bind = speed lp 0:500:exp 1:12000\n" : "");
    char err[256];
    if (hld_cues_load_mem(&b->cues, "bench", sheet, strlen(sheet), NULL, NULL, err, sizeof err)) {
        fprintf(stderr, "params: %s\n", err);
        return -1;
    }
    hld_vm_config_t vc = {
        .logical = voices, .floor_db = HLD_VM_FLOOR_DB, .rate = PB_RATE, .period = period};
    hld_vm_ops_t ops = {.user = b};
    b->vm = hld_vm_create(&vc, b->mx, &b->cues, &ops);
    return b->vm ? 0 : -1;
}

/* Renders one period, polling events; returns its cost in ns. */
static uint64_t render(pb_t *b, uint64_t now) {
    uint64_t t0 = now_ns();
    hl_mixer_process_rt(b->mx, b->out, b->period, now);
    uint64_t dt = now_ns() - t0;
    hl_mixer_poll(b->mx, on_mix_event, b);
    return dt;
}

/* Plays `voices` voices of the cue (as the daemon's build_play does for a
 * bound cue: the bindings' contribution folded in). */
static int play_all(pb_t *b, uint32_t voices, uint64_t now) {
    hld_cue_t *cue = hld_cues_find(&b->cues, "engine");
    for (uint32_t i = 0; i < voices; i++) {
        hld_vm_play_t pl;
        memset(&pl, 0, sizeof pl);
        pl.cue = cue;
        pl.snd = &b->snd;
        pl.pv.bound = 1;
        hld_params_contrib(&b->params, cue->binds, cue->nbinds, 0, 0, "", 0, 0, &pl.pv.pc);
        pl.pv.base_gain = 1.0f;
        pl.pv.base_pitch = 1.0f;
        pl.p = (hl_voice_params_t){
            .pcm = &b->snd.pcm,
            .flags = HL_MIX_LOOP,
            .gain = powf(10.0f, pl.pv.pc.gain_db / 20.0f),
            .pitch = 1.0f,
            .attack_frames = 144,
            .min_distance = 1,
            .max_distance = 100,
            .rolloff = 1,
            .bus = HL_BUS_SFX,
            .lp_hz = pl.pv.pc.lp_hz,
        };
        pl.owner = 1;
        pl.rate = 1.0;
        pl.len = pl.le = PB_FRAMES;
        pl.loops = -1;
        uint64_t v = 0, st = 0;
        if (hld_vm_play(b->vm, &pl, now, &v, &st) != 0) return -1;
        if (i % 256 == 255) render(b, now); /* drain the command ring */
    }
    return 0;
}

/* One condition (still or moving) of the paired run: its own mixer, voice
 * manager and simulated clock. */
typedef struct {
    pb_t b;
    int moving;
    hld_param_t *p;
    uint64_t now, tnow, next_change, change_ns, step_ns, sets0;
    long k;
    uint64_t *eval, *block, *cblock; /* cblock: the blocks that took a change */
    size_t nevals, nblocks, cap;
    uint64_t sets;
    uint32_t real; /* voices mixed */
} run_t;

static void run_free(run_t *r) {
    pb_free(&r->b);
    free(r->eval);
    free(r->block);
    free(r->cblock);
}

/* Sets a condition up: the voices played, their fade-ins over. */
static int run_init(run_t *r, uint32_t voices, uint32_t period, double hz, size_t steps, int lp,
                    int moving) {
    memset(r, 0, sizeof *r);
    r->moving = moving;
    if (pb_init(&r->b, voices, period, lp) != 0) {
        fprintf(stderr, "params: setup failed\n");
        return -1;
    }
    r->now = PB_NS;
    r->step_ns = (uint64_t)period * PB_NS / PB_RATE;
    if (play_all(&r->b, voices, r->now) != 0) {
        fprintf(stderr, "params: play failed\n");
        return -1;
    }
    for (int i = 0; i < 8; i++) { /* the fade-ins end */
        r->now += r->step_ns;
        render(&r->b, r->now);
        hld_vm_tick(r->b.vm, r->now);
    }
    r->real = hld_vm_real_count(r->b.vm);
    r->cap = steps + 1;
    r->eval = calloc(r->cap, sizeof *r->eval);
    r->block = calloc(r->cap, sizeof *r->block);
    r->cblock = calloc(r->cap, sizeof *r->cblock);
    if (!r->eval || !r->block || !r->cblock) return -1;
    r->p = hld_params_find(&r->b.params, "speed");
    r->change_ns = (uint64_t)(PB_NS / hz);
    r->tnow = r->next_change = r->now;
    r->sets0 = r->b.params.sets;
    return 0;
}

/* One simulated period: the parameter set when a 1/hz boundary passed
 * (moving condition), the voice manager's ticks, the mixer's period. The
 * changes keep time on the timed steps alone (tnow): a warm-up step takes
 * none and does not count towards the next, so a third of the timed
 * blocks carry a change at 60 Hz, as in a run without warm-ups. A timed
 * step records the block's cost (and the change's evaluation). */
static void run_step(run_t *r, int timed) {
    r->now += r->step_ns;
    if (timed) r->tnow += r->step_ns;
    int changed = 0;
    if (r->moving && timed && r->tnow >= r->next_change) {
        float v = 0.5f + 0.5f * sinf((float)r->k++ * 0.37f);
        hld_params_set(&r->b.params, r->p, HL_PSCOPE_GLOBAL, 0, NULL, v, 1);
        r->next_change += r->change_ns;
        changed = 1;
    }
    hld_vm_tick(r->b.vm, r->now);
    uint64_t t0 = now_ns();
    hld_vm_params_tick(r->b.vm, &r->b.params, r->now);
    uint64_t dt = now_ns() - t0;
    const uint64_t bt = render(&r->b, r->now);
    if (!timed) return;
    if (changed && r->nevals < r->cap) {
        r->eval[r->nevals] = dt;
        r->cblock[r->nevals++] = bt;
    }
    if (r->nblocks < r->cap) r->block[r->nblocks++] = bt;
}

/* A chunk of one condition: one warm-up step (untimed: its caches come back
 * after the other condition's chunk), then `blocks` timed steps. */
static void run_chunk(run_t *r, size_t blocks) {
    run_step(r, 0);
    for (size_t i = 0; i < blocks; i++)
        run_step(r, 1);
}

int main(int argc, char **argv) {
    uint32_t voices = 1000, period = 256;
    double hz = 60.0, seconds = 10.0, chunk_s = 0.25;
    int lp = 0, dist = 0;
    int nv = (int)voices, per = (int)period;
    const bo_opt_t opts[] = {
        {"voices", 'i', &nv},       {"hz", 'd', &hz},     {"period", 'i', &per},
        {"seconds", 'd', &seconds}, {"lp", 'b', &lp},     {"dist", 'b', &dist},
        {"chunk", 'd', &chunk_s},   {"v", 'i', &nv},      {"z", 'd', &hz},
        {"p", 'i', &per},           {"s", 'd', &seconds}, {"l", 'b', &lp},
        {"d", 'b', &dist},          {"c", 'd', &chunk_s}, {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, PB_USAGE);
    if (nv < 1 || nv > 4096 || !(hz > 0) || per < 16 || per > 4096 || !(seconds > 0) ||
        !(chunk_s > 0)) {
        fprintf(stderr, "params: bad arguments\n");
        return 2;
    }
    voices = (uint32_t)nv;
    period = (uint32_t)per;
    const size_t steps = (size_t)(seconds * PB_RATE / period);
    size_t chunk = (size_t)(chunk_s * PB_RATE / period + 0.5);
    if (chunk < 1) chunk = 1;
    run_t still, mov;
    memset(&mov, 0, sizeof mov);
    if (run_init(&still, voices, period, hz, steps, lp, 0) != 0 ||
        run_init(&mov, voices, period, hz, steps, lp, 1) != 0) {
        run_free(&still);
        run_free(&mov);
        return 1;
    }
    /* the two conditions alternate chunk by chunk, in ABBA order (each
     * goes first every other pair), so both see the same machine */
    size_t chunks = 0;
    for (size_t done = 0; done < steps; done += chunk, chunks++) {
        const size_t m = steps - done < chunk ? steps - done : chunk;
        run_t *first = chunks % 2 ? &mov : &still, *second = chunks % 2 ? &still : &mov;
        run_chunk(first, m);
        run_chunk(second, m);
    }
    mov.sets = mov.b.params.sets - mov.sets0;
    double period_ns = (double)period * 1e9 / PB_RATE;
    double e50 = pct(mov.eval, mov.nevals, 0.50), e99 = pct(mov.eval, mov.nevals, 0.99);
    double b99s = pct(still.block, still.nblocks, 0.99), b99m = pct(mov.block, mov.nblocks, 0.99);
    double b50s = pct(still.block, still.nblocks, 0.50), b50m = pct(mov.block, mov.nblocks, 0.50);
    printf("params voices=%u real=%u hz=%g period=%u lp=%d steps=%zu evals=%zu sets_per_eval=%.0f "
           "eval_us_p50=%.1f eval_us_p99=%.1f eval_pct_p99=%.3f block_us_p99_still=%.1f "
           "block_us_p99_moving=%.1f callback_added_pct_p99=%.3f block_us_p50_still=%.1f "
           "block_us_p50_moving=%.1f callback_added_pct_p50=%.3f chunks=%zu chunk_blocks=%zu "
           "failed=%d\n",
           voices, mov.real, hz, period, lp, mov.nblocks, mov.nevals,
           mov.nevals ? (double)mov.sets / (double)mov.nevals : 0.0, e50 / 1e3, e99 / 1e3,
           100.0 * e99 / period_ns, b99s / 1e3, b99m / 1e3, 100.0 * (b99m - b99s) / period_ns,
           b50s / 1e3, b50m / 1e3, 100.0 * (b50m - b50s) / period_ns, chunks, chunk,
           mov.nevals == 0 || mov.sets == 0);
    static const double ps[] = {0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99};
    for (size_t i = 0; dist && i < sizeof ps / sizeof ps[0]; i++)
        printf("params-dist p%02.0f block_us_still=%.1f block_us_moving=%.1f "
               "block_us_change=%.1f\n",
               ps[i] * 100.0, pct(still.block, still.nblocks, ps[i]) / 1e3,
               pct(mov.block, mov.nblocks, ps[i]) / 1e3, pct(mov.cblock, mov.nevals, ps[i]) / 1e3);
    run_free(&still);
    run_free(&mov);
    return 0;
}
