/*
 * fuzz_load_driver.c - runs the loader fuzz target (fuzz_load.c) without
 * libFuzzer, deterministically, so the normal suite (gcc) exercises it:
 * every file of the seed corpus as is, then DRIVER_ITERATIONS mutations of
 * them on a fixed seed (bit flips, byte overwrites with boundary values,
 * 32-bit header fields set to 0 / 1 / huge / negative, truncations,
 * duplicated spans). Exit status 0 when nothing crashed or aborted.
 *
 *   fuzz_load_driver CORPUS_DIR [ITERATIONS]
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_load.h"

#define DRIVER_ITERATIONS 20000
#define DRIVER_SEED       0x2545f4914f6cdd1dull
#define FUZZ_MAX_INPUT    65536
#define MAX_FILES         64

static uint64_t rng = DRIVER_SEED;

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

typedef struct {
    uint8_t *data;
    size_t size;
} input_t;

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t mutate(uint8_t *x, size_t n, size_t cap) {
    static const uint32_t vals[] = {0,      1,          2,          0x7f,       0xff, 0x7fff,
                                    0xffff, 0x7fffffff, 0xffffffff, 0x80000000, 8000, 44100,
                                    384001, 7,          9,          65};
    int edits = 1 + (int)(rnd() % 4);
    for (int e = 0; e < edits && n > 0; e++) {
        size_t at = rnd() % n;
        switch (rnd() % 6) {
        case 0: x[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
        case 1: x[at] = (uint8_t)vals[rnd() % 5]; break;
        case 2: { /* a little-endian 32-bit field, in the header mostly */
            at = rnd() % (n < 64 ? n : 64);
            uint32_t v = vals[rnd() % (sizeof vals / sizeof vals[0])];
            for (int k = 0; k < 4 && at + (size_t)k < n; k++)
                x[at + (size_t)k] = (uint8_t)(v >> (8 * k));
            break;
        }
        case 3: n = at + 1; break; /* truncate */
        case 4: {                  /* duplicate a span */
            size_t len = 1 + rnd() % 64;
            if (at + len > n) len = n - at;
            if (n + len <= cap) {
                memmove(x + at + len, x + at, n - at);
                n += len;
            }
            break;
        }
        default: x[at] = (uint8_t)rnd(); break;
        }
    }
    return n;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR [ITERATIONS]\n", argv[0]);
        return 2;
    }
    long iters = argc > 2 ? strtol(argv[2], NULL, 10) : DRIVER_ITERATIONS;
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        perror(argv[1]);
        return 2;
    }
    char *names[MAX_FILES];
    int nn = 0;
    struct dirent *de;
    while ((de = readdir(dir)) && nn < MAX_FILES)
        if (de->d_name[0] != '.') names[nn++] = strdup(de->d_name);
    closedir(dir);
    qsort(names, (size_t)nn, sizeof names[0], name_cmp); /* the same order everywhere */
    input_t in[MAX_FILES];
    int ni = 0;
    for (int i = 0; i < nn; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", argv[1], names[i]);
        free(names[i]);
        FILE *f = fopen(p, "rb");
        if (!f) continue;
        uint8_t *buf = malloc(FUZZ_MAX_INPUT);
        size_t n = buf ? fread(buf, 1, FUZZ_MAX_INPUT, f) : 0;
        fclose(f);
        if (!buf || n == 0) {
            free(buf);
            continue;
        }
        in[ni++] = (input_t){buf, n};
        LLVMFuzzerTestOneInput(buf, n);
    }
    if (ni == 0) {
        fprintf(stderr, "no corpus in %s\n", argv[1]);
        return 1;
    }
    uint8_t *x = malloc(2 * FUZZ_MAX_INPUT);
    if (!x) return 1;
    for (long it = 0; it < iters; it++) {
        const input_t *s = &in[rnd() % (uint32_t)ni];
        memcpy(x, s->data, s->size);
        size_t n = mutate(x, s->size, 2 * FUZZ_MAX_INPUT);
        LLVMFuzzerTestOneInput(x, n);
    }
    printf("fuzz_load_driver: %d corpus files, %ld mutations, no crash\n", ni, iters);
    free(x);
    for (int i = 0; i < ni; i++)
        free(in[i].data);
    return 0;
}
