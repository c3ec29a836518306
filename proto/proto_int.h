/*
 * proto_int.h - the codec's internal helpers, shared by proto.c (the
 * primitives and the hand-written bodies), schema.c (the bodies generated
 * from hl_schema.h) and validate.c. Not installed, not for other code.
 */
#ifndef HL_PROTO_INT_H
#define HL_PROTO_INT_H

#include <string.h>

#include "hl_proto.h"

/* Reserves n bytes; NULL (and a sticky ETOOBIG) if they do not fit. */
uint8_t *hlp_wbuf_reserve(hl_wbuf_t *w, size_t n);
/* Takes n bytes; NULL (and a sticky EPROTO) if they are not there. */
const uint8_t *hlp_rbuf_take(hl_rbuf_t *r, size_t n);
/* Marks the reader failed; every later read returns zeros. */
void hlp_rbuf_fail(hl_rbuf_t *r);

/* The primitive reads, inline: the generated decoders (schema.c) call them
 * for every field (a SET body is ~20), and a call per field through
 * proto.c was a seventh of the daemon's main thread in a flood of SETs.
 * Little-endian, n bytes; 0 and a sticky EPROTO if they are not there. */
static inline const uint8_t *hlp_take(hl_rbuf_t *r, size_t n) {
    if (r->err || n > r->len - r->off) {
        r->err = HELIOD_EPROTO;
        return NULL;
    }
    const uint8_t *p = r->buf + r->off;
    r->off += n;
    return p;
}
static inline uint64_t hlp_le(hl_rbuf_t *r, size_t n) {
    const uint8_t *p = hlp_take(r, n);
    uint64_t v = 0;
    if (p)
        for (size_t i = 0; i < n; i++)
            v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static inline uint8_t hlp_u8(hl_rbuf_t *r) {
    return (uint8_t)hlp_le(r, 1);
}
static inline uint16_t hlp_u16(hl_rbuf_t *r) {
    return (uint16_t)hlp_le(r, 2);
}
static inline uint32_t hlp_u32(hl_rbuf_t *r) {
    return (uint32_t)hlp_le(r, 4);
}
static inline int32_t hlp_i32(hl_rbuf_t *r) {
    return (int32_t)(uint32_t)hlp_le(r, 4);
}
static inline uint64_t hlp_u64(hl_rbuf_t *r) {
    return hlp_le(r, 8);
}
static inline float hlp_f32(hl_rbuf_t *r) {
    uint32_t u = (uint32_t)hlp_le(r, 4);
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}
static inline double hlp_f64(hl_rbuf_t *r) {
    uint64_t u = hlp_le(r, 8);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}
/* Flag word with only `mask` bits allowed. */
uint32_t hlp_get_flags32(hl_rbuf_t *r, uint32_t mask);
/* Enum byte in [0, max]. */
uint8_t hlp_get_enum8(hl_rbuf_t *r, uint8_t max);
/* Sets *why (if given) and returns HELIOD_EINVAL. */
int hlp_invalid(const char **why, const char *reason);
/* Each component finite and within HL_R_COORD. */
int hlp_vec3_ok(const float v[3]);

#endif /* HL_PROTO_INT_H */
