/*
 * corpus_read.h - reads corpus_1.0.txt (see gen_corpus.py): every frame a
 * protocol 1.0 client sent, with the request the 1.0 decoder read from it.
 */
#ifndef CORPUS_READ_H
#define CORPUS_READ_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char source[160]; /* "libheliod", "heliodctl play ...", "python" */
    uint8_t *frame;
    size_t len;
    uint16_t op, flags;
    uint32_t id;
    char *expect; /* the decoded request, corpus_dump's format */
    size_t hello; /* index of the HELLO its client sent before it */
} corpus_frame_t;

typedef struct {
    corpus_frame_t *f;
    size_t n;
} corpus_t;

/* 0, or -1 with a message on stderr. */
int corpus_load(corpus_t *c, const char *path);
void corpus_free(corpus_t *c);
/* The value of "key=" in an entry's decoded request as an integer (0 if absent). */
uint64_t corpus_field_u64(const corpus_frame_t *f, const char *key);

#endif
