/*
 * ring.c - the single-producer/single-consumer ring behind every hand-off
 * between the main thread, the audio thread and the workers (hl_ring.h).
 *
 * Free-running uint32_t indices: head - tail is the fill level even after the
 * counters wrap, and the slot is index & mask. Each side reads the other
 * side's index with acquire (so it sees the elements published before it) and
 * publishes its own with release (after it copied the elements). Nothing here
 * locks, allocates or waits, so every function is RT safe.
 */
#include "hl_ring.h"

#include <string.h>

int hl_ring_init(hl_ring_t *r, void *storage, uint32_t capacity, uint32_t elem_size) {
    if (!r || !storage || capacity < 2 || (capacity & (capacity - 1)) != 0 || elem_size == 0)
        return -1;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    r->capacity = capacity;
    r->mask = capacity - 1;
    r->elem_size = elem_size;
    r->buf = storage;
    return 0;
}

uint32_t hl_ring_readable(hl_ring_t *r) {
    uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    return head - tail;
}

uint32_t hl_ring_writable(hl_ring_t *r) {
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    return r->capacity - (head - tail);
}

/* Splits n elements starting at free-running index idx into up to two spans. */
static void ring_spans(hl_ring_t *r, uint32_t idx, uint32_t n, hl_ring_spans_t *s) {
    uint32_t off = idx & r->mask;
    uint32_t first = r->capacity - off;
    if (first > n) first = n;
    s->p1 = r->buf + (size_t)off * r->elem_size;
    s->n1 = first;
    s->p2 = r->buf;
    s->n2 = n - first;
}

uint32_t hl_ring_read_spans(hl_ring_t *r, hl_ring_spans_t *s) {
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint32_t n = atomic_load_explicit(&r->head, memory_order_acquire) - tail;
    ring_spans(r, tail, n, s);
    return n;
}

void hl_ring_read_advance(hl_ring_t *r, uint32_t n) {
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    atomic_store_explicit(&r->tail, tail + n, memory_order_release);
}

uint32_t hl_ring_write_spans(hl_ring_t *r, hl_ring_spans_t *s) {
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint32_t n = r->capacity - (head - atomic_load_explicit(&r->tail, memory_order_acquire));
    ring_spans(r, head, n, s);
    return n;
}

void hl_ring_write_advance(hl_ring_t *r, uint32_t n) {
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    atomic_store_explicit(&r->head, head + n, memory_order_release);
}

uint32_t hl_ring_write(hl_ring_t *r, const void *src, uint32_t n) {
    hl_ring_spans_t s;
    uint32_t avail = hl_ring_write_spans(r, &s);
    if (n > avail) n = avail;
    if (n == 0) return 0;
    uint32_t n1 = n < s.n1 ? n : s.n1;
    memcpy(s.p1, src, (size_t)n1 * r->elem_size);
    if (n > n1)
        memcpy(s.p2, (const unsigned char *)src + (size_t)n1 * r->elem_size,
               (size_t)(n - n1) * r->elem_size);
    hl_ring_write_advance(r, n);
    return n;
}

uint32_t hl_ring_read(hl_ring_t *r, void *dst, uint32_t n) {
    hl_ring_spans_t s;
    uint32_t avail = hl_ring_read_spans(r, &s);
    if (n > avail) n = avail;
    if (n == 0) return 0;
    uint32_t n1 = n < s.n1 ? n : s.n1;
    memcpy(dst, s.p1, (size_t)n1 * r->elem_size);
    if (n > n1)
        memcpy((unsigned char *)dst + (size_t)n1 * r->elem_size, s.p2,
               (size_t)(n - n1) * r->elem_size);
    hl_ring_read_advance(r, n);
    return n;
}
