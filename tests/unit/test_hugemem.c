/*
 * test_hugemem.c - the huge-page allocator sample data and the mixer's
 * memory live in (daemon/base/hugemem.c): alignment, sharing of 2 MiB
 * chunks, in-place shrink, every byte given back; the fallbacks (normal
 * pages, malloc); and a sound decoded through it (hld_decode_path, with and
 * without rate conversion) bit-identical to the same decode on malloc.
 *
 * Huge pages proper need a kernel with THP: where madvise is refused the
 * allocator falls back by itself (its mode drops to `pages`), and the test
 * checks that fallback instead. Cheap: a few MiB, two short decodes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sndfile.h>

#include "hugemem.h"
#include "sounds.h"

#define KIB       1024u
#define MIB       (1024u * 1024u)
#define MID_BYTES (200u * KIB) /* chunk-carved: between HLD_HUGE_SMALL and a chunk */
#define BIG_BYTES (5u * MIB)   /* a mapping of its own */
#define FRAMES    60000u

static uint64_t live_mapped(void) {
    hld_huge_stats_t st;
    hld_huge_stats(&st);
    return st.mapped_bytes[HLD_HUGE_SAMPLES] + st.mapped_bytes[HLD_HUGE_MIXER];
}

/* 1 when the kernel took the advice (the mode is still `on`). */
static int thp_ok(void) {
    return hld_huge_mode() == HLD_HUGE_ON;
}

static void aligned_shared_freed(void **state) {
    (void)state;
    assert_int_equal(hld_huge_set_mode(HLD_HUGE_ON), 0);
    uint64_t base = live_mapped();
    char *a = hld_huge_alloc(HLD_HUGE_SAMPLES, MID_BYTES);
    char *b = hld_huge_alloc(HLD_HUGE_SAMPLES, MID_BYTES);
    char *big = hld_huge_alloc(HLD_HUGE_MIXER, BIG_BYTES);
    char *small = hld_huge_alloc(HLD_HUGE_SAMPLES, 1000);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(big);
    assert_non_null(small);
    memset(a, 1, MID_BYTES);
    memset(b, 2, MID_BYTES);
    memset(big, 3, BIG_BYTES);
    memset(small, 4, 1000);
    assert_int_equal((uintptr_t)a % HLD_HUGE_PAGE, 0);
    assert_int_equal((uintptr_t)big % HLD_HUGE_CHUNK, 0);
    assert_int_equal((uintptr_t)small % 64, 0);
    /* two sounds under 2 MiB share one 2 MiB chunk */
    assert_true((uintptr_t)a / HLD_HUGE_CHUNK == (uintptr_t)b / HLD_HUGE_CHUNK);
    assert_int_equal(live_mapped() - base, 2 * MID_BYTES + BIG_BYTES);
    assert_int_equal(hld_huge_is_huge(a), thp_ok());
    assert_int_equal(hld_huge_is_huge(big), thp_ok());
    assert_int_equal(hld_huge_is_huge(small), 0);
    hld_huge_stats_t st;
    hld_huge_stats(&st);
    assert_int_equal(st.huge_bytes[HLD_HUGE_MIXER], thp_ok() ? BIG_BYTES : 0);

    /* shrinking stays in place and gives the tail back; growing keeps the bytes */
    assert_ptr_equal(hld_huge_realloc(HLD_HUGE_SAMPLES, a, 48 * KIB, 48 * KIB), a);
    assert_ptr_equal(hld_huge_realloc(HLD_HUGE_MIXER, big, 3 * MIB, 3 * MIB), big);
    assert_int_equal(live_mapped() - base, 48 * KIB + MID_BYTES + 3 * MIB);
    char *g = hld_huge_realloc(HLD_HUGE_SAMPLES, b, MID_BYTES, 3 * MIB);
    assert_non_null(g);
    for (size_t i = 0; i < MID_BYTES; i += 4093)
        assert_int_equal(g[i], 2);
    assert_int_equal((uintptr_t)g % HLD_HUGE_CHUNK, 0);

    hld_huge_free(a);
    hld_huge_free(g);
    hld_huge_free(big);
    hld_huge_free(small);
    hld_huge_free(NULL);
    assert_int_equal(live_mapped(), base);
    hld_huge_stats(&st);
    assert_int_equal(st.chunks, 0);
    assert_int_equal(st.maps, 0);
}

/* `bytes` allocated in `mode`, filled with `fill`: never advised huge. */
static char *alloc_in(int mode, size_t bytes, int fill) {
    assert_int_equal(hld_huge_set_mode(mode), 0);
    char *p = hld_huge_alloc(HLD_HUGE_SAMPLES, bytes);
    assert_non_null(p);
    memset(p, fill, bytes);
    assert_int_equal(hld_huge_is_huge(p), 0);
    return p;
}

static void falls_back(void **state) {
    (void)state;
    uint64_t base = live_mapped();
    /* normal pages: mapped, not advised */
    char *p = alloc_in(HLD_HUGE_PAGES, MID_BYTES, 5);
    assert_int_equal(live_mapped() - base, MID_BYTES);
    /* off: malloc for everything, freed by the same call */
    char *q = alloc_in(HLD_HUGE_OFF, BIG_BYTES, 6);
    assert_int_equal(live_mapped() - base, MID_BYTES);
    q = hld_huge_realloc(HLD_HUGE_SAMPLES, q, BIG_BYTES, MIB);
    assert_non_null(q);
    assert_int_equal(q[MIB - 1], 6);
    hld_huge_free(q);
    hld_huge_free(p);
    assert_int_equal(live_mapped(), base);
    assert_int_equal(hld_huge_set_mode(7), -1);
    assert_int_equal(hld_huge_parse_mode("pages"), HLD_HUGE_PAGES);
    assert_int_equal(hld_huge_parse_mode("huge"), -1);
    assert_int_equal(hld_huge_set_mode(HLD_HUGE_ON), 0);
}

/* Writes a float WAV of FRAMES frames of noise in (-0.9, 0.9) at `rate`. */
static void write_wav(const char *path, int rate, int channels) {
    SF_INFO info = {
        .samplerate = rate, .channels = channels, .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    assert_non_null(sf);
    float *x = malloc(sizeof(float) * FRAMES * (size_t)channels);
    assert_non_null(x);
    uint32_t s = 12345u;
    for (size_t i = 0; i < (size_t)FRAMES * (size_t)channels; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = ((float)(s >> 8) / 16777216.0f - 0.5f) * 1.8f;
    }
    assert_int_equal(sf_writef_float(sf, x, FRAMES), FRAMES);
    sf_close(sf);
    free(x);
}

/* Decodes path at 48 kHz in `mode`; the caller frees out->data. */
static void decode(const char *path, int mode, hld_sounds_t *budget, hld_decode_t *out) {
    assert_int_equal(hld_huge_set_mode(mode), 0);
    memset(out, 0, sizeof *out);
    out->rate = 48000;
    out->budget = budget;
    assert_int_equal(hld_decode_path(out, path), 0);
    assert_non_null(out->data);
}

static void decodes_identically(void **state) {
    (void)state;
    hld_sounds_t budget;
    hld_sounds_init(&budget, NULL, 48000, 64);
    char dir[] = "/tmp/test_hugemem.XXXXXX";
    assert_non_null(mkdtemp(dir));
    const struct {
        int rate, channels;
    } files[] = {{48000, 1}, {44100, 2}}; /* as is; rate converted (soxr) */
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[64];
        snprintf(path, sizeof path, "%s/s%zu.wav", dir, f);
        write_wav(path, files[f].rate, files[f].channels);
        hld_decode_t h, m;
        decode(path, HLD_HUGE_ON, &budget, &h);
        int huge = thp_ok(); /* the kernel took the advice */
        decode(path, HLD_HUGE_OFF, &budget, &m);
        size_t n = (size_t)h.frames * h.channels;
        assert_true(n * sizeof(float) >= HLD_HUGE_SMALL);
        assert_int_equal(h.frames, m.frames);
        assert_int_equal(h.channels, m.channels);
        assert_memory_equal(h.data, m.data, n * sizeof(float));
        assert_int_equal(hld_huge_is_huge(h.data), huge);
        assert_int_equal(hld_huge_is_huge(m.data), 0);
        if (files[f].rate == 48000) { /* nothing converted: the file's own floats */
            SF_INFO info = {0};
            SNDFILE *sf = sf_open(path, SFM_READ, &info);
            float *x = malloc(sizeof(float) * n);
            assert_non_null(sf);
            assert_non_null(x);
            assert_int_equal(sf_readf_float(sf, x, FRAMES), FRAMES);
            sf_close(sf);
            assert_memory_equal(h.data, x, n * sizeof(float));
            free(x);
        }
        hld_huge_free(h.data);
        hld_huge_free(m.data);
        free(h.markers);
        free(m.markers);
        hld_sounds_unreserve(&budget, h.reserved + m.reserved);
        unlink(path);
    }
    assert_int_equal(atomic_load(&budget.committed), 0); /* the reservation is unchanged */
    hld_huge_set_mode(HLD_HUGE_ON);
    rmdir(dir);
}

/* thp_bytes is what the kernel reports: the sum of AnonHugePages over
 * /proc/self/smaps equals the rollup the daemon reads, with 4 MiB advised
 * and touched (huge or not, as the kernel decides: THP may be off here) */
static unsigned long long smaps_huge_kb(void) {
    FILE *f = fopen("/proc/self/smaps", "re");
    if (!f) return 0;
    char line[512];
    unsigned long long sum = 0, kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) sum += kb;
    fclose(f);
    return sum;
}

static void thp_bytes_is_the_kernels(void **state) {
    (void)state;
    assert_int_equal(hld_huge_set_mode(HLD_HUGE_ON), 0);
    size_t n = 4u << 20;
    unsigned char *p = hld_huge_alloc(HLD_HUGE_SAMPLES, n);
    assert_non_null(p);
    memset(p, 1, n);
    unsigned long long before = smaps_huge_kb();
    uint64_t got = hld_huge_thp_bytes(1ull << 62); /* a fresh read */
    unsigned long long after = smaps_huge_kb();
    print_message("# thp_bytes %llu kB, smaps %llu..%llu kB\n", (unsigned long long)(got / 1024),
                  before, after);
    assert_true(got % 1024 == 0);
    assert_true(got / 1024 >= (before < after ? before : after));
    assert_true(got / 1024 <= (before > after ? before : after));
    /* within 250 ms the same figure, without a read */
    assert_true(hld_huge_thp_bytes((1ull << 62) + 1000) == got);
    hld_huge_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aligned_shared_freed),
        cmocka_unit_test(falls_back),
        cmocka_unit_test(decodes_identically),
        cmocka_unit_test(thp_bytes_is_the_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
