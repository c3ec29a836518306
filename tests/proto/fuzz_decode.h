/*
 * fuzz_decode.h - the decoder fuzz target shared by the libFuzzer build, the
 * deterministic driver and the codec tests.
 */
#ifndef HL_FUZZ_DECODE_H
#define HL_FUZZ_DECODE_H

#include <stddef.h>
#include <stdint.h>

/* Decodes data as the body of op (as_reply = 0: the request, or an EVENT body
 * when op is HL_OP_EVENT; as_reply = 1: a REPLY body answering op). When the
 * decode succeeds the message is re-encoded and must give back exactly the
 * same bytes (abort() otherwise). Returns 0 (decoded) or HELIOD_EPROTO. */
int hl_fuzz_body(uint16_t op, int as_reply, const uint8_t *data, size_t len);

/* libFuzzer entry: the input is decoded as a frame stream, and as the body of
 * every request, reply and event. Always returns 0; aborts on a broken
 * invariant. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* HL_FUZZ_DECODE_H */
