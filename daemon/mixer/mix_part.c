/*
 * mix_part.c - the partitioned mix (hl_mix_part.h): the partitions of a
 * block, their claims by every thread, the audio thread's bounded wait and
 * the sum in partition order.
 *
 * Memory: [hl_mix_part_t][accumulator sets: the most partitions the slots
 * allow (HL_MIX_PARTS at most) + threads - 1]
 * [left: slots bytes, the audio thread's, then slots per worker]
 * [quarantine: slots bytes][slot lists: slots words, one per thread]
 * [positions left: slots words, the audio thread's].
 * Partition q of a block mixes into the set its owner word names (handed
 * out in order, skipping the sets stuck workers hold: one each at most). A
 * thread writes the set of a partition it claimed, its own left bytes and
 * the partition's voices; the audio thread reads them after the worker's
 * release of its count of partitions done. The threads read the block's
 * voices from one slot list, a copy of the active list (a quarantined
 * voice: HL_MIX_NO_SLOT) in a buffer no busy worker holds, never the
 * active list itself: a worker stuck past its block keeps reading the list
 * it was given while the audio thread ends voices and compacts its own.
 *
 * A claim: an atomic add on the block's counter names a partition, a
 * compare-and-swap on its owner word (generation, set, thread) takes it if
 * it is still free in the claimer's generation. A worker running the task
 * of an earlier block takes nothing (the generation differs); an index its
 * add took from the counter, or one a worker named but had not taken yet,
 * the audio thread's sweep finds free and takes. A worker takes its
 * partitions in increasing order, one at a time, so its count done names
 * the one it is inside.
 *
 * A stuck worker (a dropped partition) still reads and writes the voices
 * of that partition: until it is back (hl_mix_part_hold_rt) the audio
 * thread leaves them out of its mix (the quarantine) and applies no command
 * at all (a command may touch any voice, the listener or the voice list:
 * each waits, in the ring or the schedule, counted as held); the worker
 * gets no task either, and its set and slot list are not handed out.
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
#define NO_PART      UINT32_MAX
#define OWN_FREE     0xFFu /* an owner word's thread: not claimed */

typedef struct {
    _Alignas(64) _Atomic uint32_t go; /* task generation handed to this worker */
    _Atomic uint32_t sleeping;
    _Alignas(64) _Atomic uint32_t done; /* partitions it finished in this task (release) */
    _Atomic uint32_t idle;              /* the generation it finished (release) */
    _Alignas(64) uint32_t na, np, n;    /* its task's voices, partitions and frames */
    const uint32_t *slot;               /* its task's slot list */
    uint8_t *left;
    uint32_t busy;                 /* audio thread: a task handed and not seen idle */
    uint32_t stuck;                /* audio thread: that task's partition was dropped */
    uint32_t q_a, q_b, q_n, q_set; /* audio thread: its positions, voices and set held */
} worker_t;

typedef struct {
    _Alignas(64) hl_part_stats_t st; /* of the partition it last held */
    uint32_t dirty;                  /* buses its planes hold */
    uint32_t pinned;                 /* held by a stuck worker */
} set_t;

struct hl_mix_part {
    hl_mix_part_config_t cfg;
    hl_mixer_t *m;
    hl_mix_chunk_fn chunk; /* the block loop's (set before any task is handed) */
    uint32_t gen;
    uint32_t q_total; /* slots quarantined */
    uint32_t stuck;   /* workers stuck in a dropped partition */
    float *acc;       /* the sets' planes */
    uint8_t *left, *quar;
    uint32_t *buf[HL_MIX_THREADS];                     /* slot lists */
    uint32_t *pos;                                     /* the block's positions left, in order */
    _Alignas(64) _Atomic uint32_t next;                /* the block's claim counter */
    _Alignas(64) _Atomic uint64_t owner[HL_MIX_PARTS]; /* gen << 32 | set << 8 | thread */
    set_t set[HL_MIX_PARTS + HL_MIX_THREADS - 1];
    _Atomic uint64_t blocks, shared, late, dropped, parts, worker_parts, held, second;
    worker_t w[HL_MIX_THREADS]; /* [0] unused: the audio thread */
};

static size_t up64(size_t v) {
    return (v + 63) & ~(size_t)63;
}

/* Partitions of na voices: HL_MIX_PART_MIN voices each at least, at most
 * HL_MIX_PARTS (the voice count alone decides). */
static uint32_t parts_of(uint32_t na) {
    const uint32_t np = (na + HL_MIX_PART_MIN - 1) / HL_MIX_PART_MIN;
    return np < 1 ? 1 : np < HL_MIX_PARTS ? np : HL_MIX_PARTS;
}

/* The planes of a partition's bus that steady voices may reach: the
 * mixer's nch (a pair may go to any of them), HL_MIX_PART_CH at most. */
static uint32_t part_planes(uint32_t nch) {
    return nch < HL_MIX_PART_CH ? nch : HL_MIX_PART_CH;
}

/* The planes per bus of the sets: the channels the config names. */
static uint32_t cfg_planes(const hl_mix_part_config_t *cfg) {
    return cfg->channels ? part_planes(cfg->channels) : HL_MIX_PART_CH;
}

/* Accumulator sets: one per partition the slots allow, one per worker
 * that may be stuck holding one. */
static size_t sets_bytes(const hl_mix_part_config_t *cfg) {
    return (parts_of(cfg->slots) + cfg->threads - 1) * HL_PART_ACC_FLOATS(cfg_planes(cfg)) *
           sizeof(float);
}

size_t hl_mix_part_size(const hl_mix_part_config_t *cfg) {
    if (!cfg || cfg->threads < 1 || cfg->threads > HL_MIX_THREADS || cfg->slots == 0) return 0;
    return up64(sizeof(hl_mix_part_t)) + sets_bytes(cfg) + (cfg->threads + 1) * up64(cfg->slots) +
           (cfg->threads + 1) * up64(cfg->slots * 4u) + 64;
}

hl_mix_part_t *hl_mix_part_init(void *mem, size_t size, const hl_mix_part_config_t *cfg) {
    size_t need = hl_mix_part_size(cfg);
    if (!mem || !need || size < need) return NULL;
    unsigned char *b = (unsigned char *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    memset(mem, 0, size); /* also faults every page in */
    hl_mix_part_t *p = (hl_mix_part_t *)(void *)b;
    p->cfg = *cfg;
    if (!p->cfg.wait_pct) p->cfg.wait_pct = HL_MIX_WAIT_PCT;
    b += up64(sizeof *p);
    p->acc = (float *)(void *)b;
    b += sets_bytes(cfg);
    p->left = b;
    b += up64(cfg->slots);
    for (uint32_t w = 1; w < cfg->threads; w++) {
        p->w[w].left = b;
        b += up64(cfg->slots);
    }
    p->quar = b;
    b += up64(cfg->slots);
    for (uint32_t i = 0; i < cfg->threads; i++) {
        p->buf[i] = (uint32_t *)(void *)b;
        b += up64(cfg->slots * 4u);
    }
    p->pos = (uint32_t *)(void *)b;
    return p;
}
int hl_mixer_set_parts(hl_mixer_t *m, hl_mix_part_t *p) {
    if (p && (p->cfg.slots < m->slots || cfg_planes(&p->cfg) < part_planes(m->nch))) return -1;
    m->parts = p;
    m->part_np = p ? cfg_planes(&p->cfg) : 0;
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
    o->parts = atomic_load_explicit(&p->parts, memory_order_relaxed);
    o->worker_parts = atomic_load_explicit(&p->worker_parts, memory_order_relaxed);
    o->left = atomic_load_explicit(&p->second, memory_order_relaxed);
}

/* Clears the planes (part_planes) of the buses in dirty. */
static void zero_acc(const hl_mixer_t *m, float *acc, uint32_t dirty) {
    const uint32_t nch = part_planes(m->nch);
    for (uint32_t b = 0; dirty; b++, dirty >>= 1)
        if (dirty & 1u) memset(HL_PART_ACC(m, acc, b, 0), 0, nch * HL_MIX_BLOCK * sizeof(float));
}

/* The first position of partition q of np over na voices. */
static uint32_t part_at(uint32_t q, uint32_t na, uint32_t np) {
    return (uint32_t)((uint64_t)q * na / np);
}

/* Takes partition q for thread `self` if it is still free in generation g:
 * 1 and its set in *set, else 0. */
static int take(hl_mix_part_t *p, uint32_t q, uint32_t g, uint32_t self, uint32_t *set) {
    uint64_t o = atomic_load_explicit(&p->owner[q], memory_order_relaxed);
    if ((uint32_t)(o >> 32) != g || (o & 0xFFu) != OWN_FREE) return 0;
    if (!atomic_compare_exchange_strong_explicit(&p->owner[q], &o, (o & ~(uint64_t)0xFFu) | self,
                                                 memory_order_relaxed, memory_order_relaxed))
        return 0;
    *set = (uint32_t)(o >> 8) & 0xFFu;
    return 1;
}

/* The next partition of generation g (of np) the counter names and thread
 * `self` takes, or NO_PART once the counter is past the last. */
static uint32_t claim(hl_mix_part_t *p, uint32_t g, uint32_t np, uint32_t self, uint32_t *set) {
    for (;;) { /* a task of an earlier block: leave the counter alone */
        if ((uint32_t)(atomic_load_explicit(&p->owner[0], memory_order_relaxed) >> 32) != g)
            return NO_PART;
        uint32_t q = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (q >= np) return NO_PART;
        if (take(p, q, g, self, set)) return q;
    }
}

/* Partition q's steady voices into set s, whole. */
static void mix_part(hl_mix_part_t *p, uint32_t q, uint32_t s, const uint32_t *slot, uint8_t *left,
                     uint32_t na, uint32_t np, uint32_t n) {
    set_t *z = &p->set[s];
    float *acc = p->acc + s * HL_PART_ACC_FLOATS(p->m->part_np);
    zero_acc(p->m, acc, z->dirty);
    memset(&z->st, 0, sizeof z->st);
    p->chunk(p->m, slot, part_at(q, na, np), part_at(q + 1, na, np), n, acc, &z->st, left);
    z->dirty = z->st.buses;
}

void hl_mix_part_run_rt(hl_mix_part_t *p, uint32_t w) {
    worker_t *t = &p->w[w];
    uint32_t g = atomic_load_explicit(&t->go, memory_order_acquire), s;
    for (uint32_t k = 0, q; (q = claim(p, g, t->np, w, &s)) != NO_PART; k++) {
        if (p->cfg.stall) p->cfg.stall(p->cfg.user, w, k);
        mix_part(p, q, s, t->slot, t->left, t->na, t->np, t->n);
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

static uint64_t now_ns(const hl_mix_part_t *p) {
    return p->cfg.clock_ns ? p->cfg.clock_ns() : 0;
}

/* Spins until worker t has finished `want` partitions or the clock passes
 * `until` (no clock: a spin count). Returns 1 if it did. */
static int wait_done(const hl_mix_part_t *p, worker_t *t, uint32_t want, uint64_t until) {
    for (uint64_t s = 1;; s++) {
        if (atomic_load_explicit(&t->done, memory_order_acquire) >= want) return 1;
        if (p->cfg.clock_ns ? (s % SPIN_CLOCK == 0 && now_ns(p) > until) : s > until) return 0;
        cpu_relax();
    }
}

/* A worker stuck inside partition q of its task: its voices are
 * quarantined and its set held until it is back (the voices of its list: a
 * voice quarantined already is not in it). */
static void quarantine(hl_mix_part_t *p, worker_t *t, uint32_t q) {
    const uint64_t o = atomic_load_explicit(&p->owner[q], memory_order_relaxed);
    t->q_a = part_at(q, t->na, t->np);
    t->q_b = part_at(q + 1, t->na, t->np);
    t->q_n = 0;
    t->q_set = (uint32_t)(o >> 8) & 0xFFu;
    t->stuck = 1;
    p->stuck++;
    p->set[t->q_set].pinned = 1;
    for (uint32_t pos = t->q_a; pos < t->q_b; pos++) {
        uint32_t s = t->slot[pos];
        if (s != HL_MIX_NO_SLOT && !p->quar[s]) {
            p->quar[s] = 1;
            t->q_n++;
        }
    }
    p->q_total += t->q_n;
}

/* Waits for worker t's partitions of the block (who[q] is its index), at
 * most until hard; returns how many of them count, in order: all, or
 * those before the one it is stuck in (that one dropped). *late if it took
 * none or was not done by soft. */
static uint32_t collect(hl_mix_part_t *p, worker_t *t, const uint8_t *who, uint64_t soft,
                        uint64_t hard, int *late) {
    const uint32_t w = (uint32_t)(t - p->w);
    uint32_t mine = 0;
    for (uint32_t q = 0; q < t->np; q++)
        mine += who[q] == w;
    if (!mine) { /* it woke after the audio thread took every partition */
        *late = 1;
        return 0;
    }
    if (wait_done(p, t, mine, soft)) return mine;
    *late = 1;
    if (wait_done(p, t, mine, hard)) return mine;
    const uint32_t d = atomic_load_explicit(&t->done, memory_order_acquire);
    if (d >= mine) return mine;                 /* it finished after all */
    for (uint32_t q = 0, k = 0; q < t->np; q++) /* its d-th partition: the one it is inside */
        if (who[q] == w && k++ == d) quarantine(p, t, q);
    atomic_fetch_add_explicit(&p->dropped, 1, memory_order_relaxed);
    return d;
}

/* Set s's sums into the buses. */
static void sum_set(hl_mixer_t *m, const float *acc, const hl_part_stats_t *st, uint32_t n,
                    uint32_t *mixed, uint32_t *buses) {
    for (uint32_t b = 0, mask = st->buses; mask; b++, mask >>= 1) {
        if (!(mask & 1u)) continue;
        for (uint32_t c = 0; c < part_planes(m->nch); c++) {
            const float *x = HL_PART_ACC(m, acc, b, c);
            float *y = m->acc[b][c];
            for (uint32_t i = 0; i < n; i++)
                y[i] += x[i];
        }
        m->bus[b].voices += st->voices[b];
    }
    *mixed += st->mixed;
    *buses |= st->buses;
}

/* The workers back from an earlier block (seen idle): usable again, and a
 * stuck one's quarantine lifts and its set is free. Returns the workers
 * still stuck. */
static uint32_t reclaim(hl_mix_part_t *p) {
    for (uint32_t w = 1; w < p->cfg.threads; w++) {
        worker_t *t = &p->w[w];
        if (!t->busy || atomic_load_explicit(&t->idle, memory_order_acquire) != t->busy) continue;
        t->busy = 0;
        if (!t->stuck) continue;
        for (uint32_t pos = t->q_a; pos < t->q_b; pos++)
            if (t->slot[pos] != HL_MIX_NO_SLOT) p->quar[t->slot[pos]] = 0;
        p->q_total -= t->q_n;
        p->set[t->q_set].pinned = 0;
        t->q_n = 0;
        p->stuck--;
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

/* The block's slot list: the active list, the quarantine out, in a buffer
 * no busy worker reads (there are as many as threads). */
static const uint32_t *fill_list(hl_mix_part_t *p, const hl_mixer_t *m, uint32_t na) {
    uint32_t *list = p->buf[0];
    for (uint32_t i = 0, w = 1; i < p->cfg.threads; i++, w = 1) {
        list = p->buf[i];
        while (w < p->cfg.threads && !(p->w[w].busy && p->w[w].slot == list))
            w++;
        if (w == p->cfg.threads) break;
    }
    if (!p->q_total) {
        memcpy(list, m->rt_active, na * sizeof *list);
    } else {
        for (uint32_t i = 0; i < na; i++)
            list[i] = p->quar[m->rt_active[i]] ? HL_MIX_NO_SLOT : m->rt_active[i];
    }
    return list;
}

/* Thread 0's partitions: the counter's, then the sweep's (every one still
 * free: a worker that woke late, or an index a worker named and had not
 * taken). Returns how many the counter gave. */
static uint32_t own_share(hl_mix_part_t *p, uint32_t g, const uint32_t *list, uint32_t na,
                          uint32_t np, uint32_t n) {
    uint32_t k = 0, s, q;
    for (; (q = claim(p, g, np, 0, &s)) != NO_PART; k++) {
        if (p->cfg.stall) p->cfg.stall(p->cfg.user, 0, k);
        mix_part(p, q, s, list, p->left, na, np, n);
    }
    for (uint32_t j = 0, kk = k; j < np; j++)
        if (take(p, j, g, 0, &s)) {
            if (p->cfg.stall) p->cfg.stall(p->cfg.user, 0, kk++);
            mix_part(p, j, s, list, p->left, na, np, n);
        }
    return k;
}

/* The positions of the na marked in left, in order, into pos: eight bytes
 * a look where none is (nearly all of a settled scene). Returns how many. */
static uint32_t left_positions(const uint8_t *left, uint32_t na, uint32_t *pos) {
    uint32_t k = 0, i = 0;
    for (uint64_t w; i + 8 <= na; i += 8) {
        memcpy(&w, left + i, sizeof w);
        if (!w) continue;
        for (uint32_t j = i; j < i + 8; j++)
            if (left[j]) pos[k++] = j;
    }
    for (; i < na; i++)
        if (left[i]) pos[k++] = i;
    return k;
}

const uint32_t *hl_mix_part_block_rt(hl_mixer_t *m, hl_mix_chunk_fn chunk, uint32_t n,
                                     uint32_t *mixed, uint32_t *buses, uint32_t *nleft) {
    hl_mix_part_t *p = m->parts;
    const uint32_t na = m->n_rt_active;
    if (!p) return NULL;
    reclaim(p);
    /* a small mix is the one-thread loop's, but while a stuck worker holds
     * voices: one partition, the audio thread's, without them */
    if (na <= HL_MIX_PART_MIN && !p->q_total) return NULL;
    if (p->chunk != chunk) p->chunk = chunk; /* written once: a stuck worker reads it */
    const uint32_t np = parts_of(na);
    const uint64_t t0 = now_ns(p), dur = (uint64_t)n * 1000000000u / m->cfg.rate;
    worker_t *use[HL_MIX_THREADS];
    uint32_t nt = 1;
    for (uint32_t w = 1; w < p->cfg.threads; w++)
        if (!p->w[w].busy && nt < np) use[nt++] = &p->w[w];
    const uint32_t *list = nt > 1 || p->q_total ? fill_list(p, m, na) : m->rt_active;
    uint32_t g = ++p->gen ? p->gen : ++p->gen; /* never 0 nor QUIT */
    if (g == HL_MIX_PART_QUIT) g = p->gen = 1;
    for (uint32_t q = 0, s = 0; q < np; q++, s++) { /* each partition its set, free ones */
        while (p->set[s].pinned)
            s++;
        atomic_store_explicit(&p->owner[q], (uint64_t)g << 32 | s << 8 | OWN_FREE,
                              memory_order_relaxed);
    }
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    for (uint32_t i = 1; i < nt; i++) {
        worker_t *t = use[i];
        t->na = na;
        t->np = np;
        t->n = n;
        t->slot = list;
        atomic_store_explicit(&t->done, 0, memory_order_relaxed);
        t->busy = g;
        atomic_store(&t->go, g); /* seq_cst: against the worker's sleeping flag */
        if (atomic_load(&t->sleeping) && p->cfg.wake)
            p->cfg.wake(p->cfg.user, (uint32_t)(t - p->w));
    }
    const uint32_t own = own_share(p, g, list, na, np, n);
    /* a worker inside a partition has twice the audio thread's mean
     * partition time before it is late, then up to wait_pct of the block */
    const uint64_t pct = p->cfg.wait_pct, own_end = now_ns(p);
    uint64_t soft = SPIN_NOCLOCK, hard = SPIN_NOCLOCK;
    if (p->cfg.clock_ns) {
        soft = own_end + 2 * (own_end - t0) / (own ? own : 1) + HL_MIX_LATE_MIN_NS;
        hard = t0 + dur * pct / 100;
    }
    if (pct >= 1000) soft = hard = UINT64_MAX; /* tests: no bound */
    uint8_t who[HL_MIX_PARTS];
    uint32_t ok[HL_MIX_THREADS] = {0}, got[HL_MIX_THREADS] = {0}, wparts = 0;
    for (uint32_t q = 0; q < np; q++)
        who[q] = (uint8_t)atomic_load_explicit(&p->owner[q], memory_order_relaxed);
    int late = 0;
    for (uint32_t i = 1; i < nt; i++) {
        const uint32_t w = (uint32_t)(use[i] - p->w);
        ok[w] = collect(p, use[i], who, soft, hard, &late);
        wparts += ok[w];
    }
    /* the sum, in partition order; a worker's left bytes to the audio thread's */
    for (uint32_t q = 0; q < np; q++) {
        const uint32_t w = who[q], a = part_at(q, na, np), b = part_at(q + 1, na, np);
        if (w && got[w]++ >= ok[w]) { /* dropped: its voices are not in this block */
            memset(p->left + a, 0, b - a);
            continue;
        }
        if (w) memcpy(p->left + a, p->w[w].left + a, b - a);
        const uint32_t s =
            (uint32_t)(atomic_load_explicit(&p->owner[q], memory_order_relaxed) >> 8) & 0xFFu;
        sum_set(m, p->acc + s * HL_PART_ACC_FLOATS(m->part_np), &p->set[s].st, n, mixed, buses);
    }
    atomic_fetch_add_explicit(&p->blocks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->parts, np, memory_order_relaxed);
    if (nt > 1) atomic_fetch_add_explicit(&p->shared, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->worker_parts, wparts, memory_order_relaxed);
    if (late) atomic_fetch_add_explicit(&p->late, 1, memory_order_relaxed);
    *nleft = left_positions(p->left, na, p->pos);
    atomic_fetch_add_explicit(&p->second, *nleft, memory_order_relaxed);
    return p->pos;
}
