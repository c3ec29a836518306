/*
 * vm_pos.h - a logical voice's position model (vm_pos.c): per voice,
 * anchor_pos at engine frame anchor_frame advancing at `rate` source units
 * per engine frame while not paused, wrapped by the loop region and loop
 * count. Below the pool (vm.c), the ranking (vm_rank.c) and the music walk
 * (vm_music.c). Main thread only.
 */
#ifndef HLD_VM_POS_H
#define HLD_VM_POS_H

#include <stdint.h>

#include "vm_voice.h"

/* pos wrapped by the loop region: *used passes taken, *ended past the end. */
double vm_wrap_pos(const hld_lvoice_t *v, double pos, int64_t loops, int64_t *used, int *ended);
/* Where the voice is at engine frame f (frozen while paused). */
double vm_pos_at(const hld_lvoice_t *v, uint64_t f, int *ended);
/* The engine frame at or after `after` (or v's start) where v's current
 * pass ends: its position next reaches the loop's end, or (no pass left)
 * the sound's. 0, or HELIOD_EINVAL (paused, ended). */
int vm_pass_end(const hld_lvoice_t *v, uint64_t after, uint64_t *frame);
/* Moves the anchor to frame f, spending the loop passes taken; 1 if past the end. */
int vm_reanchor(hld_lvoice_t *v, uint64_t f);
/* SET loops at engine frame f on the position model, by the mixer's rule
 * (hl_mixer.h HL_MIX_SET_LOOPS): the passes left, -1 forever. */
void vm_set_loops(hld_lvoice_t *v, uint64_t f, int32_t loops);

#endif /* HLD_VM_POS_H */
