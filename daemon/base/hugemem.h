/*
 * hugemem.h - memory the mixer's kernels read on every block, on 2 MiB pages.
 *
 * Decoded sample data (a preloaded sound's PCM) and the mixer's voice
 * memory are read by the audio thread all over: at 4096 voices, each voice
 * reading its own source window, a 4 KiB-page mapping of the sources costs a
 * TLB miss per voice per block. heliod places them in transparent huge pages
 * instead (mmap, 2 MiB-aligned, madvise(MADV_HUGEPAGE): THP set to `always`
 * or `madvise` backs them with 2 MiB pages, one TLB entry each):
 *
 *   - bytes >= HLD_HUGE_CHUNK: a mapping of its own, 2 MiB-aligned, the
 *     length rounded up to 4 KiB (every whole 2 MiB of it can be huge);
 *   - HLD_HUGE_SMALL <= bytes < HLD_HUGE_CHUNK: 4 KiB-granular runs carved
 *     from shared 2 MiB chunks (first fit), so a bank of 200 KB effects
 *     shares a few huge pages instead of a hundred 4 KiB-page mappings;
 *   - smaller: malloc (a huge page for a click is not worth a page of waste).
 *
 * Fallbacks, each clean: madvise refused (no THP in the kernel) keeps the
 * mapping on normal pages; mmap refused falls back to malloc; the process
 * switch (hld_huge_set_mode, the HELIOD_HUGE_PAGES environment variable:
 * `off`, `pages`, `on`) turns either off. Whatever was used, hld_huge_free
 * gives it back the way it came (munmap, or free). Chunk pages freed are
 * reused by later allocations; an empty chunk is unmapped.
 *
 * Accounting: this file counts where the bytes went (hld_huge_stats, STATS
 * `sample_bytes_huge`); budgets and quotas are the callers' and are charged
 * before they call here (sound_decode.c reserves, then allocates).
 *
 * Thread-safety: every function may be called from any thread but the
 * audio thread (a mutex guards the chunk table, and mmap may fault and sleep).
 */
#ifndef HLD_HUGEMEM_H
#define HLD_HUGEMEM_H

#include <stddef.h>
#include <stdint.h>

#define HLD_HUGE_CHUNK (2u << 20)  /* a huge page: the chunk and mapping alignment */
#define HLD_HUGE_PAGE  4096u       /* the granule of a run inside a chunk */
#define HLD_HUGE_SMALL (32u << 10) /* below this, malloc */

typedef enum {
    HLD_HUGE_ON = 0,    /* mmap + MADV_HUGEPAGE (the default) */
    HLD_HUGE_PAGES = 1, /* the same mappings without the advice: normal pages */
    HLD_HUGE_OFF = 2,   /* malloc for everything */
} hld_huge_mode_t;

/* What an allocation is for: counted apart in hld_huge_stats. */
typedef enum { HLD_HUGE_SAMPLES = 0, HLD_HUGE_MIXER = 1, HLD_HUGE_POOLS = 2 } hld_huge_pool_t;

typedef struct {
    uint64_t huge_bytes[HLD_HUGE_POOLS];   /* live bytes in regions advised MADV_HUGEPAGE */
    uint64_t mapped_bytes[HLD_HUGE_POOLS]; /* live bytes in mapped regions (huge or not) */
    uint64_t chunks;                       /* 2 MiB chunks mapped */
    uint64_t maps;                         /* allocations with a mapping of their own */
    uint64_t fallbacks;                    /* mmap or madvise refused: normal pages or malloc */
} hld_huge_stats_t;

/* Sets the mode for later allocations (live ones keep theirs). Without a
 * call, the first allocation reads HELIOD_HUGE_PAGES (off|pages|on; unset:
 * on). Returns 0, or -1 for a mode out of range. */
int hld_huge_set_mode(int mode);
int hld_huge_mode(void);
/* The mode named by `s` (off, pages, on), -1 for anything else. */
int hld_huge_parse_mode(const char *s);

/* `bytes` of uninitialised memory, at least 64-byte aligned (4 KiB inside a
 * chunk, 2 MiB for a mapping of its own), or NULL. Caller frees with
 * hld_huge_free. */
void *hld_huge_alloc(hld_huge_pool_t pool, size_t bytes);
/* Resizes p (NULL: hld_huge_alloc) from old_bytes to new_bytes keeping the
 * first min(old, new) bytes; shrinking stays in place. Returns the block, or
 * NULL with p untouched. A block that was malloc'd (small, or mode off)
 * goes through realloc: malloc's alignment, not 64 bytes. */
void *hld_huge_realloc(hld_huge_pool_t pool, void *p, size_t old_bytes, size_t new_bytes);
/* Frees p from hld_huge_alloc/realloc (NULL: nothing). */
void hld_huge_free(void *p);
/* 1 when p (from hld_huge_alloc) lies in a region advised huge. */
int hld_huge_is_huge(const void *p);
void hld_huge_stats(hld_huge_stats_t *st);
/* What the kernel actually gave: the bytes of this process on transparent
 * huge pages now (AnonHugePages of /proc/self/smaps_rollup; with THP
 * `madvise`, the regions above; with `always`, other memory too), read at
 * most every 250 ms (the read walks the page tables), 0 where there is no
 * such file. Main thread (its cache is not shared). */
uint64_t hld_huge_thp_bytes(uint64_t now_ns);

#endif /* HLD_HUGEMEM_H */
