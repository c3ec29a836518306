/*
 * hl_ring.h - single-producer/single-consumer ring of fixed-size elements.
 *
 * Used for the command ring (main -> audio), the event ring (audio -> main),
 * the record tap (audio -> writer) and stream rings (decoder -> audio). An
 * element is the unit of publication: a stream ring whose element is one
 * multi-channel frame never exposes half a frame.
 *
 * Indices are free-running uint32_t on their own cache lines. The producer
 * loads the consumer's index with acquire, copies the elements, then publishes
 * its own index with release; the consumer mirrors that. Storage is provided
 * by the caller (the ring never allocates), capacity is a power of two.
 *
 * Thread rules: init/close on one thread before/after use; write/writable by
 * the one producer; read/readable/peek by the one consumer. All are RT safe:
 * no locks, no allocation, no waiting.
 */
#ifndef HL_RING_H
#define HL_RING_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct {
    _Alignas(64) _Atomic uint32_t head; /* written by the producer */
    _Alignas(64) _Atomic uint32_t tail; /* written by the consumer */
    _Alignas(64) uint32_t capacity;     /* elements, power of two */
    uint32_t mask;
    uint32_t elem_size;
    unsigned char *buf; /* capacity * elem_size bytes, caller-owned */
} hl_ring_t;

/* Bytes of storage a ring of `capacity` elements needs. */
static inline uint64_t hl_ring_storage_size(uint32_t capacity, uint32_t elem_size) {
    return (uint64_t)capacity * elem_size;
}

/* Returns 0, or -1 if capacity is not a power of two >= 2 or elem_size is 0. */
int hl_ring_init(hl_ring_t *r, void *storage, uint32_t capacity, uint32_t elem_size);

/* Producer: copies up to n elements from src; returns how many were written. */
uint32_t hl_ring_write(hl_ring_t *r, const void *src, uint32_t n);
/* Consumer: copies up to n elements into dst; returns how many were read. */
uint32_t hl_ring_read(hl_ring_t *r, void *dst, uint32_t n);
/* Consumer: elements available to read. */
uint32_t hl_ring_readable(hl_ring_t *r);
/* Producer: free elements. */
uint32_t hl_ring_writable(hl_ring_t *r);

/*
 * Zero-copy access. The consumer asks for the readable region as up to two
 * spans (wrap-around) and then advances; the producer likewise. Spans are
 * element counts; pointers are to element 0 of each span.
 */
typedef struct {
    void *p1, *p2;
    uint32_t n1, n2;
} hl_ring_spans_t;
uint32_t hl_ring_read_spans(hl_ring_t *r, hl_ring_spans_t *s);
void hl_ring_read_advance(hl_ring_t *r, uint32_t n);
uint32_t hl_ring_write_spans(hl_ring_t *r, hl_ring_spans_t *s);
void hl_ring_write_advance(hl_ring_t *r, uint32_t n);

#endif /* HL_RING_H */
