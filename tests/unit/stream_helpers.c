/*
 * stream_helpers.c - shared fixtures of the streaming-voice unit tests
 * (stream_helpers.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mix_helpers.h"
#include "stream_helpers.h"

typedef struct {
    hl_stream_t s; /* first: the test frees the whole block */
    float storage[];
} tstream_t;

hl_stream_t *stream_new(uint32_t cap, uint32_t ch) {
    size_t bytes = hl_stream_size(cap, ch);
    assert_true(bytes > 0);
    size_t total = (sizeof(tstream_t) + bytes + 63) / 64 * 64;
    tstream_t *t = aligned_alloc(64, total);
    assert_non_null(t);
    assert_int_equal(hl_stream_init(&t->s, t->storage, cap, ch), 0);
    return &t->s;
}

void stream_free(hl_stream_t *s) {
    free(s); /* s is the first member of its tstream_t block */
}

float *new_out(uint32_t frames) {
    return calloc(2 * (size_t)frames, sizeof(float));
}

void push(hl_stream_t *s, const hl_pcm_t *src, uint32_t *pos, uint32_t n) {
    if (*pos + n > src->frames) n = src->frames - *pos;
    uint32_t w = hl_stream_write(s, src->data + (size_t)*pos * src->channels, n);
    assert_int_equal(w, n);
    *pos += n;
}

hl_voice_params_t stream_params(hl_stream_t *s) {
    hl_voice_params_t p = test_params(NULL);
    p.stream = s;
    return p;
}

uint64_t underruns(hl_mixer_t *m) {
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    return st.underruns;
}
