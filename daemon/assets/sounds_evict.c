/*
 * sounds_evict.c - the sound table's budget (see sounds.h): which entries may
 * go, and making room for a load by evicting the least recently played
 * sounds of its own process.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "log.h"
#include "sounds.h"
#include "sounds_int.h"

int hld_sound_evictable(const hld_sound_t *snd) {
    return !snd->pinned && !snd->stream && !snd->loading && !snd->playing && !snd->mixing &&
           !snd->pending && snd->bytes > 0;
}

/* A load makes room among its own process's sounds only (the daemon's own
 * loads, banks and zones, among the sounds charged to nobody): one client's
 * load never evicts another's sounds. */
static int evicts(const hld_client_t *cl, const hld_sound_t *n) {
    return cl ? n->cl && n->cl->proc == cl->proc : !n->cl;
}

uint64_t hld_sounds_evict(hld_sounds_t *s, uint64_t need, const hld_client_t *cl) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t freed = 0, n = 0;
    char first[HL_MAX_NAME + 1] = "";
    /* one walk from the least recently played: each entry is looked at once,
     * another process's sounds are passed over (still O(n), never a rescan) */
    for (hld_sound_t *e = s->lru_head, *next; e; e = next) {
        uint64_t committed = atomic_load_explicit(&s->committed, memory_order_relaxed);
        if (committed + need <= s->max_bytes) break;
        next = e->lru_next;
        s->evict_scanned++;
        if (!hld_sound_evictable(e) || !evicts(cl, e)) continue;
        hld_debug("budget: evicting %s (%llu bytes, unused since play %llu)", e->name,
                  (unsigned long long)e->bytes, (unsigned long long)e->last_used);
        if (!n++) snprintf(first, sizeof first, "%s", e->name);
        freed += e->bytes;
        s->evictions++;
        s->evicted_bytes += e->bytes;
        hld_sounds_drop_entry(s, e);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t1.tv_nsec -
                  (uint64_t)t0.tv_nsec;
    if (ns > s->evict_ns_max) s->evict_ns_max = ns;
    if (n)
        hld_info("budget: evicted %llu sounds (%llu bytes, least recently played first: %s%s)",
                 (unsigned long long)n, (unsigned long long)freed, first, n > 1 ? ", ..." : "");
    return freed;
}

void hld_sounds_budget(const hld_sounds_t *s, uint64_t *pinned, uint64_t *evictable) {
    *pinned = *evictable = 0;
    for (unsigned b = 0; b < HLD_SOUND_BUCKETS; b++)
        for (const hld_sound_t *n = s->buckets[b]; n; n = n->next) {
            if (n->pinned && !n->loading) *pinned += n->bytes;
            if (hld_sound_evictable(n)) *evictable += n->bytes;
        }
}
