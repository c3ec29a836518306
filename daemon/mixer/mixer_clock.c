/*
 * mixer_clock.c - the engine clock and the command ring's room, read by the
 * main thread without copying the whole statistics block (the voice manager
 * asks for both on every play).
 */
#include "hl_mixer.h"
#include "mixer_internal.h"

uint64_t hl_mixer_frames(const hl_mixer_t *m) {
    return atomic_load_explicit(&m->stats.frames, memory_order_relaxed);
}
