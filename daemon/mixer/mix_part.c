/*
 * mix_part.c - the partitioned mix (hl_mix_part.h): the partitions of a
 * block, the workers' tasks and chunk claims, the audio thread's own share,
 * its wait (bounded) and rescue, and the sum in partition order.
 *
 * Memory: [hl_mix_part_t][accumulators: HL_MIX_PARTS for the audio thread,
 * then HL_MIX_PARTS per worker][left: slots bytes, the audio thread's, then
 * slots per worker][quarantine: slots bytes][slot lists: slots words, the
 * audio thread's, then slots per worker]. A worker writes only its own
 * accumulators and left bytes; the audio thread reads them after the
 * worker's release of the chunks' count. A worker reads the voices of its
 * task from its own slot list, a copy of the active list made when the task
 * was handed (a quarantined voice: HL_MIX_NO_SLOT), never the active list
 * itself: a worker stuck past its block keeps reading the list it was given
 * while the audio thread ends voices and compacts its own.
 *
 * A stuck worker (a dropped chunk) still reads and writes the voices of that
 * chunk: until it is back (hl_mix_part_hold_rt) the audio thread leaves them
 * out of its mix (the quarantine) and applies no command at all (a command
 * may touch any voice, the listener or the voice list: each waits, in the
 * ring or the schedule, counted as held); the worker gets no task either.
 */
#include <string.h>

#include "mix_part_int.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

#define SPIN_CLOCK   64                  /* spins between two looks at the clock */
#define SPIN_NOCLOCK ((uint64_t)1 << 26) /* without a clock: spins before a worker is late */

typedef struct {
    _Alignas(64) _Atomic uint32_t go; /* task generation handed to this worker */
    _Atomic uint32_t sleeping;
    _Alignas(
        64) _Atomic uint32_t next; /* chunks claimed (the worker, or the audio thread's rescue) */
    _Atomic uint32_t done;         /* chunks the worker finished (release) */
    _Atomic uint32_t idle;         /* the generation it finished (release) */
    _Alignas(64) uint32_t n, nchunks, np;
    uint32_t *slot; /* its task's voices by position (hl_mix_part.h's slot lists) */
    uint32_t part[HL_MIX_PARTS], begin[HL_MIX_PARTS], end[HL_MIX_PARTS];
    uint32_t chunk0[HL_MIX_PARTS + 1];
    hl_part_stats_t st[HL_MIX_PARTS];
    uint32_t dirty[HL_MIX_PARTS]; /* buses its accumulators hold (the worker's) */
    float *acc;                   /* HL_MIX_PARTS partitions' worth */
    uint8_t *left;
    uint32_t busy;  /* audio thread: a task handed and not seen idle */
    uint32_t stuck; /* audio thread: that task's chunk was dropped */
    uint32_t q_n;   /* audio thread: slots quarantined for it */
    uint32_t q_slot[HL_MIX_CHUNK];
} worker_t;

struct hl_mix_part {
    hl_mix_part_config_t cfg;
    hl_mixer_t *m;
    hl_mix_chunk_fn chunk; /* the block loop's (set before any task is handed) */
    uint32_t gen;
    uint32_t q_total; /* slots quarantined */
    float *acc;       /* the audio thread's: one per partition */
    uint8_t *left, *quar;
    uint32_t *slot;       /* the active list with the quarantine out (while there is one) */
    const uint32_t *list; /* this block's slot list: the active list itself, or slot */
    uint32_t stuck;       /* workers stuck in a dropped chunk */
    hl_part_stats_t st[HL_MIX_PARTS];
    uint32_t dirty[HL_MIX_PARTS];
    _Atomic uint64_t blocks, shared, late, dropped, held;
    worker_t w[HL_MIX_PARTS]; /* [0] unused: the audio thread */
};

static size_t up64(size_t v) {
    return (v + 63) & ~(size_t)63;
}

static size_t acc_bytes(void) {
    return HL_PART_ACC_FLOATS * HL_MIX_PARTS * sizeof(float);
}

size_t hl_mix_part_size(const hl_mix_part_config_t *cfg) {
    if (!cfg || cfg->threads < 1 || cfg->threads > HL_MIX_PARTS || cfg->slots == 0) return 0;
    return up64(sizeof(hl_mix_part_t)) + cfg->threads * acc_bytes() +
           (cfg->threads + 1) * up64(cfg->slots) + cfg->threads * up64(cfg->slots * 4u) + 64;
}

hl_mix_part_t *hl_mix_part_init(void *mem, size_t size, const hl_mix_part_config_t *cfg) {
    size_t need = hl_mix_part_size(cfg);
    if (!mem || !need || size < need) return NULL;
    unsigned char *b = (unsigned char *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    memset(mem, 0, size); /* also faults every page in */
    hl_mix_part_t *p = (hl_mix_part_t *)(void *)b;
    p->cfg = *cfg;
    if (!p->cfg.late_pct) p->cfg.late_pct = HL_MIX_LATE_PCT;
    b += up64(sizeof *p);
    p->acc = (float *)(void *)b;
    b += acc_bytes();
    for (uint32_t w = 1; w < cfg->threads; w++) {
        p->w[w].acc = (float *)(void *)b;
        b += acc_bytes();
    }
    p->left = b;
    b += up64(cfg->slots);
    for (uint32_t w = 1; w < cfg->threads; w++) {
        p->w[w].left = b;
        b += up64(cfg->slots);
    }
    p->quar = b;
    b += up64(cfg->slots);
    p->slot = (uint32_t *)(void *)b;
    b += up64(cfg->slots * 4u);
    for (uint32_t w = 1; w < cfg->threads; w++) {
        p->w[w].slot = (uint32_t *)(void *)b;
        b += up64(cfg->slots * 4u);
    }
    return p;
}

int hl_mixer_set_parts(hl_mixer_t *m, hl_mix_part_t *p) {
    if (p && p->cfg.slots < m->slots) return -1;
    m->parts = p;
    if (p) p->m = m;
    return 0;
}

_Atomic uint32_t *hl_mix_part_go(hl_mix_part_t *p, uint32_t w) {
    return &p->w[w].go;
}

_Atomic uint32_t *hl_mix_part_sleeping(hl_mix_part_t *p, uint32_t w) {
    return &p->w[w].sleeping;
}

void hl_mix_part_quit(hl_mix_part_t *p) {
    for (uint32_t w = 1; w < p->cfg.threads; w++) {
        atomic_store(&p->w[w].go, HL_MIX_PART_QUIT);
        if (p->cfg.wake) p->cfg.wake(p->cfg.user, w);
    }
}

void hl_mix_part_stats(const hl_mix_part_t *p, hl_mix_part_stats_t *o) {
    o->blocks = atomic_load_explicit(&p->blocks, memory_order_relaxed);
    o->shared = atomic_load_explicit(&p->shared, memory_order_relaxed);
    o->late = atomic_load_explicit(&p->late, memory_order_relaxed);
    o->dropped = atomic_load_explicit(&p->dropped, memory_order_relaxed);
    o->held = atomic_load_explicit(&p->held, memory_order_relaxed);
}

/* The planes of a partition's bus that steady voices may reach: the
 * mixer's nch (a pair may go to any of them), HL_MIX_PART_CH at most. */
static uint32_t part_planes(uint32_t nch) {
    return nch < HL_MIX_PART_CH ? nch : HL_MIX_PART_CH;
}

/* Clears the planes (part_planes) of the buses in dirty. */
static void zero_acc(float *acc, uint32_t dirty, uint32_t nch) {
    nch = part_planes(nch);
    for (uint32_t b = 0; dirty; b++, dirty >>= 1)
        if (dirty & 1u) memset(HL_PART_ACC(acc, b, 0), 0, nch * HL_MIX_BLOCK * sizeof(float));
}

/* Chunk k of a task: its slot j (partition part[j]) and positions *a..*b-1. */
static uint32_t chunk_at(const worker_t *t, uint32_t k, uint32_t *a, uint32_t *b) {
    uint32_t j = 0;
    while (k >= t->chunk0[j + 1])
        j++;
    *a = t->begin[j] + (k - t->chunk0[j]) * HL_MIX_CHUNK;
    *b = *a + HL_MIX_CHUNK < t->end[j] ? *a + HL_MIX_CHUNK : t->end[j];
    return j;
}

void hl_mix_part_run_rt(hl_mix_part_t *p, uint32_t w) {
    worker_t *t = &p->w[w];
    uint32_t g = atomic_load_explicit(&t->go, memory_order_acquire);
    for (uint32_t j = 0; j < t->np; j++) {
        zero_acc(t->acc + j * HL_PART_ACC_FLOATS, t->dirty[j], p->m->nch);
        t->dirty[j] = 0;
        memset(&t->st[j], 0, sizeof t->st[j]);
    }
    for (;;) {
        uint32_t k = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
        if (k >= t->nchunks) break;
        uint32_t a, b, j = chunk_at(t, k, &a, &b);
        if (p->cfg.stall) p->cfg.stall(p->cfg.user, w, k);
        p->chunk(p->m, t->slot, a, b, t->n, t->acc + j * HL_PART_ACC_FLOATS, &t->st[j], t->left);
        t->dirty[j] |= t->st[j].buses;
        atomic_fetch_add_explicit(&t->done, 1, memory_order_release);
    }
    atomic_store_explicit(&t->idle, g, memory_order_release);
}

void hl_mix_part_spin(hl_mix_part_t *p, uint32_t w, int (*idle)(void)) {
    uint32_t seen = 0;
    for (;;) {
        uint32_t g = atomic_load_explicit(&p->w[w].go, memory_order_acquire);
        if (g == HL_MIX_PART_QUIT) return;
        if (g == seen) {
            idle();
            continue;
        }
        hl_mix_part_run_rt(p, w);
        seen = g;
    }
}

/* The task of thread t of T over partitions t*P/T ..; chunk offsets. */
static void plan(worker_t *t, uint32_t first, uint32_t last, uint32_t na, uint32_t np) {
    t->np = last - first;
    t->chunk0[0] = 0;
    for (uint32_t j = 0; j < t->np; j++) {
        uint32_t q = first + j;
        t->part[j] = q;
        t->begin[j] = (uint32_t)((uint64_t)q * na / np);
        t->end[j] = (uint32_t)((uint64_t)(q + 1) * na / np);
        t->chunk0[j + 1] =
            t->chunk0[j] + (t->end[j] - t->begin[j] + HL_MIX_CHUNK - 1) / HL_MIX_CHUNK;
    }
    t->nchunks = t->chunk0[t->np];
}

static uint64_t now_ns(const hl_mix_part_t *p) {
    return p->cfg.clock_ns ? p->cfg.clock_ns() : 0;
}

/* Spins until worker t has finished `want` chunks or the clock passes
 * `until` (no clock: a spin count). Returns 1 if it did. */
static int wait_done(const hl_mix_part_t *p, worker_t *t, uint32_t want, uint64_t until) {
    for (uint64_t s = 1;; s++) {
        if (atomic_load_explicit(&t->done, memory_order_acquire) >= want) return 1;
        if (p->cfg.clock_ns ? (s % SPIN_CLOCK == 0 && now_ns(p) > until) : s > until) return 0;
        cpu_relax();
    }
}

/* The audio thread's own chunk k of worker t's task (a rescue): into its
 * accumulators of that partition. */
static void rescue(hl_mix_part_t *p, worker_t *t, uint32_t k) {
    uint32_t a, b, j = chunk_at(t, k, &a, &b), q = t->part[j];
    hl_part_stats_t *st = &p->st[q];
    p->chunk(p->m, p->list, a, b, t->n, p->acc + q * HL_PART_ACC_FLOATS, st, p->left);
    p->dirty[q] |= st->buses;
}

/* A worker stuck inside chunk k: its voices are quarantined until it is back
 * (the ones of its list: a voice quarantined already is not in it). */
static void quarantine(hl_mix_part_t *p, worker_t *t, uint32_t k) {
    uint32_t a, b;
    (void)chunk_at(t, k, &a, &b);
    t->q_n = 0;
    t->stuck = 1;
    p->stuck++;
    for (uint32_t pos = a; pos < b; pos++) {
        uint32_t s = t->slot[pos];
        if (s != HL_MIX_NO_SLOT && !p->quar[s]) {
            p->quar[s] = 1;
            t->q_slot[t->q_n++] = s;
            p->q_total++;
        }
    }
}

/* Collects worker t after the audio thread's own share: waits for it (its
 * share of the block, then the whole block for the chunk it is in),
 * rescues what it did not start; returns 1 if its accumulators count. */
static int collect(hl_mix_part_t *p, worker_t *t, uint64_t t0, uint64_t dur, uint64_t own_end) {
    const uint64_t pct = p->cfg.late_pct;
    uint64_t soft = p->cfg.clock_ns ? t0 + dur * pct / 100 : SPIN_NOCLOCK;
    if (p->cfg.clock_ns) { /* a worker's share takes about as long as the audio thread's own:
                            * twice that (and HL_MIX_LATE_MIN_NS) before it is late */
        uint64_t own = own_end - t0, fair = own_end + 2 * own + HL_MIX_LATE_MIN_NS;
        soft = fair < soft ? fair : soft;
    }
    if (pct >= 1000) soft = UINT64_MAX; /* tests: no bound */
    uint32_t mine = t->nchunks;         /* the chunks the worker mixed */
    if (wait_done(p, t, mine, soft)) goto copy;
    atomic_fetch_add_explicit(&p->late, 1, memory_order_relaxed);
    uint32_t claimed = atomic_fetch_add_explicit(&t->next, t->nchunks, memory_order_relaxed);
    if (claimed > t->nchunks) claimed = t->nchunks;
    for (uint32_t k = claimed; k < t->nchunks; k++)
        rescue(p, t, k);
    uint64_t hard = p->cfg.clock_ns ? t0 + dur : SPIN_NOCLOCK;
    if (!wait_done(p, t, claimed, hard)) { /* stuck: drop its block */
        atomic_fetch_add_explicit(&p->dropped, 1, memory_order_relaxed);
        quarantine(p, t, claimed - 1);
        return 0;
    }
    mine = claimed;      /* the worker's part: the chunks before the rescue */
    if (!mine) return 0; /* it has not begun: nothing of it to read */
copy:
    for (uint32_t k = 0; k < mine; k++) { /* its left bytes: the audio thread's */
        uint32_t a, b;
        (void)chunk_at(t, k, &a, &b);
        memcpy(p->left + a, t->left + a, b - a);
    }
    return 1;
}

/* Partition q's sums into the buses: the worker's accumulators (if any),
 * then the audio thread's. */
static void sum_part(hl_mixer_t *m, const float *acc, const hl_part_stats_t *st, uint32_t n,
                     uint32_t *mixed, uint32_t *buses) {
    for (uint32_t b = 0, mask = st->buses; mask; b++, mask >>= 1) {
        if (!(mask & 1u)) continue;
        for (uint32_t c = 0; c < part_planes(m->nch); c++) {
            const float *x = HL_PART_ACC(acc, b, c);
            float *y = m->acc[b][c];
            for (uint32_t i = 0; i < n; i++)
                y[i] += x[i];
        }
        m->bus[b].voices += st->voices[b];
    }
    *mixed += st->mixed;
    *buses |= st->buses;
}

/* The workers back from an earlier block (seen idle): usable again, and
 * a stuck one's quarantine lifts. Returns the workers still stuck. */
static uint32_t reclaim(hl_mix_part_t *p) {
    for (uint32_t w = 1; w < p->cfg.threads; w++) {
        worker_t *t = &p->w[w];
        if (!t->busy || atomic_load_explicit(&t->idle, memory_order_acquire) != t->busy) continue;
        t->busy = 0;
        for (uint32_t i = 0; i < t->q_n; i++)
            p->quar[t->q_slot[i]] = 0;
        p->q_total -= t->q_n;
        t->q_n = 0;
        p->stuck -= t->stuck;
        t->stuck = 0;
    }
    return p->stuck;
}

void hl_mix_part_settle(hl_mix_part_t *p, int (*idle)(void)) {
    for (uint32_t w = 1; w < p->cfg.threads; w++)
        while (p->w[w].busy &&
               atomic_load_explicit(&p->w[w].idle, memory_order_acquire) != p->w[w].busy)
            idle();
    reclaim(p);
}

int hl_mix_part_hold_rt(hl_mixer_t *m) {
    hl_mix_part_t *p = m->parts;
    if (!p || !p->stuck || !reclaim(p)) return 0;
    atomic_fetch_add_explicit(&p->held, 1, memory_order_relaxed);
    return 1;
}

uint32_t hl_mix_part_quarantined_rt(const hl_mixer_t *m) {
    return m->parts ? m->parts->q_total : 0;
}

void hl_mix_part_prewake_rt(hl_mixer_t *m) {
    hl_mix_part_t *p = m->parts;
    if (!p || m->n_rt_active <= HL_MIX_PART_MIN || !p->cfg.wake) return;
    for (uint32_t w = 1; w < p->cfg.threads; w++)
        if (atomic_load(&p->w[w].sleeping)) p->cfg.wake(p->cfg.user, w);
}

const uint8_t *hl_mix_part_block_rt(hl_mixer_t *m, hl_mix_chunk_fn chunk, uint32_t n,
                                    uint32_t *mixed, uint32_t *buses) {
    hl_mix_part_t *p = m->parts;
    uint32_t na = m->n_rt_active;
    if (!p) return NULL;
    reclaim(p);
    /* a small mix is the one-thread loop's, but while a stuck worker holds
     * voices: one partition, the audio thread's, without them */
    if (na <= HL_MIX_PART_MIN && !p->q_total) return NULL;
    if (p->chunk != chunk) p->chunk = chunk; /* written once: a stuck worker reads it */
    uint32_t np = (na + HL_MIX_PART_MIN - 1) / HL_MIX_PART_MIN;
    np = np < 1 ? 1 : np < HL_MIX_PARTS ? np : HL_MIX_PARTS;
    uint64_t t0 = now_ns(p), dur = (uint64_t)n * 1000000000u / m->cfg.rate;
    worker_t *use[HL_MIX_PARTS];
    uint32_t nt = 1;
    for (uint32_t w = 1; w < p->cfg.threads; w++)
        if (!p->w[w].busy && nt < np) use[nt++] = &p->w[w];
    worker_t self;
    memset(p->left, 0, na);
    p->list = m->rt_active; /* the slot list: the active list, the quarantine out */
    if (p->q_total) {
        for (uint32_t i = 0; i < na; i++)
            p->slot[i] = p->quar[m->rt_active[i]] ? HL_MIX_NO_SLOT : m->rt_active[i];
        p->list = p->slot;
    }
    for (uint32_t q = 0; q < np; q++) {
        zero_acc(p->acc + q * HL_PART_ACC_FLOATS, p->dirty[q], m->nch);
        p->dirty[q] = 0;
        memset(&p->st[q], 0, sizeof p->st[q]);
    }
    uint32_t g = ++p->gen ? p->gen : ++p->gen; /* never 0 nor QUIT */
    if (g == HL_MIX_PART_QUIT) g = p->gen = 1;
    for (uint32_t i = 1; i < nt; i++) {
        worker_t *t = use[i];
        plan(t, i * np / nt, (i + 1) * np / nt, na, np);
        t->n = n;
        for (uint32_t j = 0; j < t->np; j++) /* its voices: a copy of its spans of the list */
            memcpy(t->slot + t->begin[j], p->list + t->begin[j],
                   (t->end[j] - t->begin[j]) * sizeof *t->slot);
        atomic_store_explicit(&t->next, 0, memory_order_relaxed);
        atomic_store_explicit(&t->done, 0, memory_order_relaxed);
        t->busy = g;
        atomic_store(&t->go, g); /* seq_cst: against the worker's sleeping flag */
        if (atomic_load(&t->sleeping) && p->cfg.wake)
            p->cfg.wake(p->cfg.user, (uint32_t)(t - p->w));
    }
    /* the audio thread's own partitions */
    plan(&self, 0, np / nt, na, np);
    for (uint32_t k = 0; k < self.nchunks; k++) {
        uint32_t a, b, j = chunk_at(&self, k, &a, &b), q = self.part[j];
        p->chunk(m, p->list, a, b, n, p->acc + q * HL_PART_ACC_FLOATS, &p->st[q], p->left);
        p->dirty[q] |= p->st[q].buses;
    }
    int ok[HL_MIX_PARTS] = {0};
    uint64_t own_end = 0;
    for (uint32_t i = 1; i < nt; i++)
        ok[i] = collect(p, use[i], t0, dur, i == 1 ? (own_end = now_ns(p)) : own_end);
    /* the sum, in partition order */
    for (uint32_t i = 0; i < nt; i++) {
        worker_t *t = i ? use[i] : &self;
        for (uint32_t j = 0; j < t->np; j++) {
            uint32_t q = t->part[j];
            if (i && ok[i])
                sum_part(m, t->acc + j * HL_PART_ACC_FLOATS, &t->st[j], n, mixed, buses);
            if (p->st[q].buses || p->st[q].mixed)
                sum_part(m, p->acc + q * HL_PART_ACC_FLOATS, &p->st[q], n, mixed, buses);
        }
    }
    atomic_fetch_add_explicit(&p->blocks, 1, memory_order_relaxed);
    if (nt > 1) atomic_fetch_add_explicit(&p->shared, 1, memory_order_relaxed);
    return p->left;
}
