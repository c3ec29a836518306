/*
 * ctl_vmap.h - heliodctl replay's map from the voice handles a capture
 * recorded to the ones its replay got, shared by the replay's children.
 *
 * Voice handles are the daemon's, not a client's: a control client may
 * SET or STOP a voice another process PLAYed, and each recorded process
 * is replayed by a child process of its own. So the map lives in a shared
 * anonymous mapping, one slot a PLAY (or MUSIC) record with a recorded
 * handle (its REPLY, or MREPLY, record), in the capture's order: every child knows each slot's
 * recorded handle from the file, a slot's live handle is written by the
 * child that sent its PLAY when the reply comes. A slot is one 64-bit
 * word written once (release) and read (acquire) without a lock.
 */
#ifndef CTL_VMAP_H
#define CTL_VMAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_capfile.h"

#define CTL_VMAP_PENDING 0ull    /* its PLAY's reply has not come yet */
#define CTL_VMAP_NONE    (~0ull) /* its PLAY failed or was not replayed */

typedef struct {
    uint64_t rec;  /* the recorded handle */
    uint32_t slot; /* its slot */
} ctl_vmap_key_t;

typedef struct {
    _Atomic uint64_t *live; /* shared: a slot's live handle, PENDING or NONE */
    ctl_vmap_key_t *key;    /* private (a child's copy): by handle, then slot */
    size_t n, bytes;
} ctl_vmap_t;

/* A record that takes a slot: a REPLY or MREPLY record naming a voice (it
 * follows its PLAY or MUSIC request). */
static inline int ctl_vmap_takes_slot(const ctl_cap_rec_t *c) {
    return (c->kind == CTL_CAP_REPLY || c->kind == CTL_CAP_MREPLY) && c->voice != 0;
}
/* Sizes the map from the capture f (n bytes), every slot PENDING (NONE: a
 * stray reply the replay never fills, ctl_vmap.c): before
 * the children are forked. 0, or -1 (out of memory). */
int ctl_vmap_init(ctl_vmap_t *m, const uint8_t *f, size_t n);
void ctl_vmap_destroy(ctl_vmap_t *m);
/* The slot of recorded handle rec among the first `upto` (the latest PLAY
 * that got it before the request that names it), or -1: not a handle a
 * PLAY recorded before. */
long ctl_vmap_find(const ctl_vmap_t *m, uint64_t rec, uint32_t upto);
/* Slot k's live handle, PENDING or NONE. */
static inline uint64_t ctl_vmap_get(const ctl_vmap_t *m, long k) {
    return atomic_load_explicit(&m->live[k], memory_order_acquire);
}
/* Slot k's PLAY was answered live (0: it failed or was not replayed). */
static inline void ctl_vmap_put(ctl_vmap_t *m, long k, uint64_t live) {
    atomic_store_explicit(&m->live[k], live ? live : CTL_VMAP_NONE, memory_order_release);
}

#endif /* CTL_VMAP_H */
