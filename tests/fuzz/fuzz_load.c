/*
 * fuzz_load.c - libFuzzer target for the loader (see fuzz_load.h). The
 * budget is 64 MiB, so a header that claims more is refused before any
 * allocation (that is what is being checked, with the caps); everything
 * decoded must be finite, the reservation must come back whole.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined ... (tests/fuzz/meson.build)
 *   ./fuzz_load -max_len=65536 tests/fuzz/corpus_load
 */
#include "fuzz_load.h"

#include <math.h>
#include <sndfile.h>
#include <stdlib.h>
#include <string.h>

#include "hld_limits.h"
#include "hugemem.h"
#include "sounds.h"

typedef struct {
    const uint8_t *data;
    sf_count_t size, pos;
} vbuf_t;

static sf_count_t v_len(void *u) {
    return ((vbuf_t *)u)->size;
}

static sf_count_t v_seek(sf_count_t off, int whence, void *u) {
    vbuf_t *b = u;
    sf_count_t to = whence == SEEK_SET ? off : whence == SEEK_CUR ? b->pos + off : b->size + off;
    if (to < 0 || to > b->size) return -1;
    b->pos = to;
    return to;
}

static sf_count_t v_read(void *ptr, sf_count_t n, void *u) {
    vbuf_t *b = u;
    if (n > b->size - b->pos) n = b->size - b->pos;
    if (n <= 0) return 0;
    memcpy(ptr, b->data + b->pos, (size_t)n);
    b->pos += n;
    return n;
}

static sf_count_t v_write(const void *ptr, sf_count_t n, void *u) {
    (void)ptr;
    (void)n;
    (void)u;
    return 0;
}

static sf_count_t v_tell(void *u) {
    return ((vbuf_t *)u)->pos;
}

static hld_sounds_t budget;
static int budget_ready;

static void decode_once(const uint8_t *data, size_t size, int stream) {
    SF_VIRTUAL_IO io = {v_len, v_seek, v_read, v_write, v_tell};
    vbuf_t b = {data, (sf_count_t)size, 0};
    SF_INFO info = {0};
    SNDFILE *sf = sf_open_virtual(&io, SFM_READ, &info, &b);
    if (!sf) return;
    hld_decode_t d = {.rate = 48000, .stream = stream, .budget = &budget};
    int rc = hld_decode_sndfile(&d, sf, &info);
    sf_close(sf);
    if (rc == 0 && !stream) {
        if (!d.data || d.frames == 0 || d.channels < 1 || d.channels > 2) abort();
        for (size_t i = 0; i < (size_t)d.frames * d.channels; i++)
            if (!(fabsf(d.data[i]) <= HLD_MAX_SAMPLE)) abort(); /* bounded at decode time */
    }
    if (rc != 0 && (d.data || d.reserved)) abort(); /* a failure keeps nothing */
    hld_huge_free(d.data);
    free(d.markers);
    hld_sounds_unreserve(&budget, d.reserved);
    if (atomic_load(&budget.committed) != 0) abort(); /* every byte came back */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!budget_ready) {
        hld_sounds_init(&budget, NULL, 48000, 64);
        budget_ready = 1;
    }
    decode_once(data, size, 0);
    decode_once(data, size, 1);
    return 0;
}
