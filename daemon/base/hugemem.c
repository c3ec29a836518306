/*
 * hugemem.c - the huge-page allocator for sample data and mixer memory
 * (hugemem.h says why and what falls back to what).
 *
 * DESIGN. Two tables under one mutex, both small (a chunk per 2 MiB of
 * sounds, a map per sound or mixer of 2 MiB or more), scanned linearly: an
 * allocation or a free is a load or an unload, never a block's work.
 *
 *   chunk: a 2 MiB-aligned 2 MiB mapping cut into 512 pages of 4 KiB; a
 *          bitmap of pages in use and, at each run's first page, the run's
 *          length. First fit; freeing clears the run's bits; a chunk whose
 *          last run goes is unmapped.
 *   map:   one allocation's own mapping, 2 MiB-aligned (mapped 2 MiB longer,
 *          the misaligned head and tail unmapped), length a whole number of
 *          4 KiB pages; shrinking unmaps the tail.
 *
 * A pointer found in neither table came from malloc.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#endif
#include "hugemem.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#define NPAGES       (HLD_HUGE_CHUNK / HLD_HUGE_PAGE) /* pages in a chunk */
#define NWORDS       (NPAGES / 64)
#define MALLOC_ALIGN 64

typedef struct {
    char *base;
    uint8_t huge, pool;
    uint32_t used;         /* pages in use */
    uint64_t bits[NWORDS]; /* page i in use: bit i */
    uint16_t run[NPAGES];  /* at a run's first page: its length in pages */
} chunk_t;

typedef struct {
    char *base;
    size_t len; /* mapped: a multiple of HLD_HUGE_PAGE */
    uint8_t huge, pool;
} map_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static chunk_t **chunks;
static size_t nchunks, capchunks;
static map_t *maps;
static size_t nmaps, capmaps;
static int cur_mode = -1; /* -1: not read from the environment yet */
static hld_huge_stats_t st;

int hld_huge_parse_mode(const char *s) {
    if (!s) return -1;
    if (!strcasecmp(s, "on") || !strcmp(s, "1")) return HLD_HUGE_ON;
    if (!strcasecmp(s, "pages")) return HLD_HUGE_PAGES;
    if (!strcasecmp(s, "off") || !strcmp(s, "0")) return HLD_HUGE_OFF;
    return -1;
}

static int mode_locked(void) {
    if (cur_mode < 0) {
        int m = hld_huge_parse_mode(getenv("HELIOD_HUGE_PAGES"));
        cur_mode = m < 0 ? HLD_HUGE_ON : m;
    }
    return cur_mode;
}

int hld_huge_set_mode(int mode) {
    if (mode < HLD_HUGE_ON || mode > HLD_HUGE_OFF) return -1;
    pthread_mutex_lock(&lock);
    cur_mode = mode;
    pthread_mutex_unlock(&lock);
    return 0;
}

int hld_huge_mode(void) {
    pthread_mutex_lock(&lock);
    int m = mode_locked();
    pthread_mutex_unlock(&lock);
    return m;
}

static size_t round_up(size_t x, size_t a) {
    return (x + a - 1) / a * a;
}

/* A 2 MiB-aligned anonymous mapping of len bytes (a page multiple), advised
 * huge when the mode says so; *huge says whether it was. NULL: refused. */
static char *map_aligned(size_t len, int *huge) {
    size_t span = len + HLD_HUGE_CHUNK;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *base = (char *)round_up((uintptr_t)raw, HLD_HUGE_CHUNK);
    if (base > raw) munmap(raw, (size_t)(base - raw));
    size_t tail = (size_t)(raw + span - (base + len));
    if (tail) munmap(base + len, tail);
    int advise = mode_locked() == HLD_HUGE_ON;
    *huge = advise && madvise(base, len, MADV_HUGEPAGE) == 0;
    if (advise && !*huge) { /* no THP in this kernel: normal pages, and no more asking */
        st.fallbacks++;
        cur_mode = HLD_HUGE_PAGES;
    }
    return base;
}

static void count(int pool, int huge, size_t bytes, int sign) {
    st.mapped_bytes[pool] += (uint64_t)(sign * (int64_t)bytes);
    if (huge) st.huge_bytes[pool] += (uint64_t)(sign * (int64_t)bytes);
}

static int page_used(const chunk_t *c, uint32_t i) {
    return (int)((c->bits[i / 64] >> (i % 64)) & 1u);
}

static void mark(chunk_t *c, uint32_t from, uint32_t n, int used) {
    for (uint32_t i = from; i < from + n; i++) {
        if (used)
            c->bits[i / 64] |= 1ull << (i % 64);
        else
            c->bits[i / 64] &= ~(1ull << (i % 64));
    }
    c->used = used ? c->used + n : c->used - n;
}

/* The first page of a free run of n pages in c, or -1. */
static int32_t find_run(const chunk_t *c, uint32_t n) {
    uint32_t start = 0, len = 0;
    for (uint32_t i = 0; i < NPAGES; i++) {
        if (page_used(c, i)) {
            len = 0;
            start = i + 1;
        } else if (++len == n) {
            return (int32_t)start;
        }
    }
    return -1;
}

static void *grow_table(void *tab, size_t *cap, size_t n, size_t elem) {
    if (n < *cap) return tab;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *t = realloc(tab, ncap * elem);
    if (t) *cap = ncap;
    return t;
}

static void *chunk_alloc_locked(int pool, size_t bytes) {
    uint32_t n = (uint32_t)(round_up(bytes, HLD_HUGE_PAGE) / HLD_HUGE_PAGE);
    int want_huge = mode_locked() == HLD_HUGE_ON;
    for (size_t k = 0; k < nchunks; k++) {
        chunk_t *c = chunks[k];
        if (c->pool != pool || c->huge != want_huge || NPAGES - c->used < n) continue;
        int32_t at = find_run(c, n);
        if (at < 0) continue;
        mark(c, (uint32_t)at, n, 1);
        c->run[at] = (uint16_t)n;
        count(pool, c->huge, (size_t)n * HLD_HUGE_PAGE, 1);
        return c->base + (size_t)at * HLD_HUGE_PAGE;
    }
    chunk_t **t = grow_table(chunks, &capchunks, nchunks, sizeof *chunks);
    chunk_t *c = t ? calloc(1, sizeof *c) : NULL;
    if (t) chunks = t;
    int huge = 0;
    char *base = c ? map_aligned(HLD_HUGE_CHUNK, &huge) : NULL;
    if (!base) {
        free(c);
        return NULL;
    }
    c->base = base;
    c->huge = (uint8_t)huge;
    c->pool = (uint8_t)pool;
    chunks[nchunks++] = c;
    st.chunks++;
    mark(c, 0, n, 1);
    c->run[0] = (uint16_t)n;
    count(pool, huge, (size_t)n * HLD_HUGE_PAGE, 1);
    return base;
}

static void *map_alloc_locked(int pool, size_t bytes) {
    map_t *t = grow_table(maps, &capmaps, nmaps, sizeof *maps);
    if (!t) return NULL;
    maps = t;
    size_t len = round_up(bytes, HLD_HUGE_PAGE);
    int huge = 0;
    char *base = map_aligned(len, &huge);
    if (!base) return NULL;
    maps[nmaps++] = (map_t){base, len, (uint8_t)huge, (uint8_t)pool};
    st.maps++;
    count(pool, huge, len, 1);
    return base;
}

static void *malloc_fallback(size_t bytes) {
    return aligned_alloc(MALLOC_ALIGN, round_up(bytes ? bytes : 1, MALLOC_ALIGN));
}

void *hld_huge_alloc(hld_huge_pool_t pool, size_t bytes) {
    if ((unsigned)pool >= HLD_HUGE_POOLS || bytes > SIZE_MAX / 2) return NULL;
    if (bytes < HLD_HUGE_SMALL) return malloc_fallback(bytes);
    pthread_mutex_lock(&lock);
    void *p = NULL;
    if (mode_locked() != HLD_HUGE_OFF) {
        p = bytes >= HLD_HUGE_CHUNK ? map_alloc_locked((int)pool, bytes)
                                    : chunk_alloc_locked((int)pool, bytes);
        if (!p) st.fallbacks++; /* mmap refused: malloc */
    }
    pthread_mutex_unlock(&lock);
    return p ? p : malloc_fallback(bytes);
}

static ptrdiff_t find_map(const void *p) {
    for (size_t k = 0; k < nmaps; k++)
        if (maps[k].base == p) return (ptrdiff_t)k;
    return -1;
}

static ptrdiff_t find_chunk(const void *p) {
    for (size_t k = 0; k < nchunks; k++)
        if ((const char *)p >= chunks[k]->base &&
            (const char *)p < chunks[k]->base + HLD_HUGE_CHUNK)
            return (ptrdiff_t)k;
    return -1;
}

/* Gives back pages [from, from + n) of chunk k; unmaps it when empty. */
static void chunk_release_locked(size_t k, uint32_t from, uint32_t n) {
    chunk_t *c = chunks[k];
    mark(c, from, n, 0);
    count(c->pool, c->huge, (size_t)n * HLD_HUGE_PAGE, -1);
    if (c->used) return;
    munmap(c->base, HLD_HUGE_CHUNK);
    free(c);
    chunks[k] = chunks[--nchunks];
    st.chunks--;
}

/* Frees p if it is mapped here: 1, else 0 (a malloc block). */
static int free_locked(void *p) {
    ptrdiff_t m = find_map(p);
    if (m >= 0) {
        munmap(maps[m].base, maps[m].len);
        count(maps[m].pool, maps[m].huge, maps[m].len, -1);
        maps[m] = maps[--nmaps];
        st.maps--;
        return 1;
    }
    ptrdiff_t k = find_chunk(p);
    if (k < 0) return 0;
    uint32_t at = (uint32_t)(((const char *)p - chunks[k]->base) / HLD_HUGE_PAGE);
    uint32_t n = chunks[k]->run[at];
    chunks[k]->run[at] = 0;
    chunk_release_locked((size_t)k, at, n);
    return 1;
}

void hld_huge_free(void *p) {
    if (!p) return;
    pthread_mutex_lock(&lock);
    int mine = free_locked(p);
    pthread_mutex_unlock(&lock);
    if (!mine) free(p);
}

/* Resizes p in place if it is mapped here and the new size fits where it
 * is: 1 done, 0 not possible (a copy is needed), -1 a malloc block. */
static int resize_in_place_locked(void *p, size_t new_bytes) {
    size_t pages = round_up(new_bytes ? new_bytes : 1, HLD_HUGE_PAGE) / HLD_HUGE_PAGE;
    ptrdiff_t m = find_map(p);
    if (m >= 0) {
        size_t len = pages * HLD_HUGE_PAGE;
        if (len > maps[m].len) return 0;
        if (len < maps[m].len) {
            munmap(maps[m].base + len, maps[m].len - len);
            count(maps[m].pool, maps[m].huge, maps[m].len - len, -1);
            maps[m].len = len;
        }
        return 1;
    }
    ptrdiff_t k = find_chunk(p);
    if (k < 0) return -1;
    chunk_t *c = chunks[k];
    uint32_t at = (uint32_t)(((const char *)p - c->base) / HLD_HUGE_PAGE), n = c->run[at];
    if (pages <= n) {
        c->run[at] = (uint16_t)pages;
        if (pages < n) chunk_release_locked((size_t)k, at + (uint32_t)pages, n - (uint32_t)pages);
        return 1;
    }
    if (at + pages > NPAGES) return 0;
    for (uint32_t i = at + n; i < at + pages; i++)
        if (page_used(c, i)) return 0;
    mark(c, at + n, (uint32_t)pages - n, 1);
    c->run[at] = (uint16_t)pages;
    count(c->pool, c->huge, (pages - n) * HLD_HUGE_PAGE, 1);
    return 1;
}

void *hld_huge_realloc(hld_huge_pool_t pool, void *p, size_t old_bytes, size_t new_bytes) {
    if (!p) return hld_huge_alloc(pool, new_bytes);
    pthread_mutex_lock(&lock);
    int r = resize_in_place_locked(p, new_bytes);
    pthread_mutex_unlock(&lock);
    if (r > 0) return p;
    if (r < 0 && (new_bytes < HLD_HUGE_SMALL || hld_huge_mode() == HLD_HUGE_OFF))
        return realloc(p, new_bytes ? new_bytes : 1); /* malloc stays malloc */
    void *q = hld_huge_alloc(pool, new_bytes);
    if (!q) return NULL;
    memcpy(q, p, old_bytes < new_bytes ? old_bytes : new_bytes);
    hld_huge_free(p);
    return q;
}

int hld_huge_is_huge(const void *p) {
    int huge = 0;
    pthread_mutex_lock(&lock);
    ptrdiff_t m = find_map(p);
    if (m >= 0) huge = maps[m].huge;
    ptrdiff_t k = m < 0 ? find_chunk(p) : -1;
    if (k >= 0) huge = chunks[k]->huge;
    pthread_mutex_unlock(&lock);
    return huge;
}

void hld_huge_stats(hld_huge_stats_t *out) {
    pthread_mutex_lock(&lock);
    *out = st;
    pthread_mutex_unlock(&lock);
}

uint64_t hld_huge_thp_bytes(uint64_t now_ns) {
    static uint64_t bytes, read_ns;
    static int read_once;
    if (read_once && now_ns - read_ns < 250000000ull) return bytes;
    read_once = 1;
    read_ns = now_ns;
    bytes = 0;
    FILE *f = fopen("/proc/self/smaps_rollup", "re");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
            bytes = (uint64_t)kb * 1024u;
            break;
        }
    fclose(f);
    return bytes;
}
