/*
 * corpus_dump.h - prints a request frame as its decoded fields, one
 * "name=value" line each, the way the daemon decodes it (the HL_FLAG_AT
 * prefix, STATS' empty body, SUBSCRIBE's mask alone, CLOCK's optional voice).
 *
 * The same source is compiled twice: by tests/proto/compat/gen_corpus.py
 * against the protocol 1.0 headers and codec (commit 4550bf8) to write the
 * corpus manifest, and by the corpus test against today's codec to check
 * that every 1.0 frame still decodes to the same request. Field names are
 * the wire names of PROTOCOL.md; only fields of protocol 1.0 are printed
 * (a field appended later is checked for its default by the test).
 */
#ifndef CORPUS_DUMP_H
#define CORPUS_DUMP_H

#include <stddef.h>
#include <stdint.h>

/* Writes the decoded request into out[cap] (NUL-terminated). 0, or
 * HELIOD_EPROTO when the frame does not decode (out then says why). */
int corpus_dump(const uint8_t *frame, size_t len, char *out, size_t cap);

#endif
