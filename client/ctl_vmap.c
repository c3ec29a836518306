/*
 * ctl_vmap.c - heliodctl replay's voice handle map, shared by its
 * children (ctl_vmap.h).
 */
#include "ctl_vmap.h"

#include <stdlib.h>
#include <sys/mman.h>

static int key_cmp(const void *a, const void *b) {
    const ctl_vmap_key_t *x = a, *y = b;
    if (x->rec != y->rec) return x->rec < y->rec ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

int ctl_vmap_init(ctl_vmap_t *m, const uint8_t *f, size_t n) {
    *m = (ctl_vmap_t){0};
    size_t off = CTL_CAP_HDR, count = 0;
    ctl_cap_rec_t c;
    while (ctl_cap_next(f, n, &off, &c) == 1)
        count += ctl_vmap_takes_slot(&c);
    size_t bytes = (count ? count : 1) * sizeof *m->live;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
    m->live = p; /* zero: PENDING */
    m->bytes = bytes;
    m->key = malloc((count ? count : 1) * sizeof *m->key);
    if (!m->key) {
        ctl_vmap_destroy(m);
        return -1;
    }
    off = CTL_CAP_HDR;
    /* The replay (worker_run) fills a slot only for the first reply naming
     * a voice in the REPLY/MREPLY records directly after a REQUEST: any
     * other (a corrupt capture's stray reply) is NONE from the start, or a
     * request naming its handle would wait for it forever. */
    int open = 0; /* the records since the last REQUEST are its replies, none voiced */
    while (ctl_cap_next(f, n, &off, &c) == 1 && m->n < count) {
        int reply = c.kind == CTL_CAP_REPLY || c.kind == CTL_CAP_MREPLY;
        if (ctl_vmap_takes_slot(&c)) {
            if (!open) atomic_init(&m->live[m->n], CTL_VMAP_NONE);
            m->key[m->n].rec = c.voice;
            m->key[m->n].slot = (uint32_t)m->n;
            m->n++;
            open = 0;
        } else {
            open = c.kind == CTL_CAP_REQUEST || (open && reply);
        }
    }
    qsort(m->key, m->n, sizeof *m->key, key_cmp);
    return 0;
}

void ctl_vmap_destroy(ctl_vmap_t *m) {
    if (m->live) munmap((void *)m->live, m->bytes);
    free(m->key);
    *m = (ctl_vmap_t){0};
}

long ctl_vmap_find(const ctl_vmap_t *m, uint64_t rec, uint32_t upto) {
    size_t lo = 0, hi = m->n; /* the first key at or after (rec, upto) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ctl_vmap_key_t *k = &m->key[mid];
        if (k->rec < rec || (k->rec == rec && k->slot < upto))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || m->key[lo - 1].rec != rec) return -1;
    return (long)m->key[lo - 1].slot;
}
