/*
 * proto_int.h - the codec's internal helpers, shared by proto.c (the
 * primitives and the hand-written bodies), schema.c (the bodies generated
 * from hl_schema.h) and validate.c. Not installed, not for other code.
 */
#ifndef HL_PROTO_INT_H
#define HL_PROTO_INT_H

#include "hl_proto.h"

/* Reserves n bytes; NULL (and a sticky ETOOBIG) if they do not fit. */
uint8_t *hlp_wbuf_reserve(hl_wbuf_t *w, size_t n);
/* Takes n bytes; NULL (and a sticky EPROTO) if they are not there. */
const uint8_t *hlp_rbuf_take(hl_rbuf_t *r, size_t n);
/* Marks the reader failed; every later read returns zeros. */
void hlp_rbuf_fail(hl_rbuf_t *r);
/* Flag word with only `mask` bits allowed. */
uint32_t hlp_get_flags32(hl_rbuf_t *r, uint32_t mask);
/* Enum byte in [0, max]. */
uint8_t hlp_get_enum8(hl_rbuf_t *r, uint8_t max);
/* Sets *why (if given) and returns HELIOD_EINVAL. */
int hlp_invalid(const char **why, const char *reason);
/* Each component finite and within HL_R_COORD. */
int hlp_vec3_ok(const float v[3]);

#endif /* HL_PROTO_INT_H */
