/*
 * mix_part_int.h - between the block loop (mixer_rt.c) and the partitioned
 * mix (mix_part.c): one chunk of steady voices into a partition's
 * accumulators, and the block's partitioned first pass.
 */
#ifndef MIX_PART_INT_H
#define MIX_PART_INT_H

#include "hl_mix_part.h"
#include "mixer_internal.h"

typedef struct {
    uint32_t mixed, buses;
    uint32_t voices[HL_NUM_GAINS];
} hl_part_stats_t;

/* Floats of one partition's accumulators with np planes per bus:
 * [bus][plane][frame], then the own pair (two planes) of a voice its chunk
 * mixes on the full path (an edge: mixer_rt.c), the partition's sbuf.
 * The mixer's np: m->part_np (hl_mixer_set_parts). */
#define HL_PART_ACC_FLOATS(np)    ((size_t)(HL_NUM_GAINS * (np) + 2) * HL_MIX_BLOCK)
#define HL_PART_ACC(m, acc, b, c) ((acc) + ((size_t)(b) * (m)->part_np + (c)) * HL_MIX_BLOCK)
#define HL_PART_SBUF(m, acc)      ((acc) + (size_t)HL_NUM_GAINS * (m)->part_np * HL_MIX_BLOCK)

/* A position of a slot list whose voice is not to be touched (quarantined). */
#define HL_MIX_NO_SLOT UINT32_MAX

/* Mixes the steady voices (no post stage, no ramp; at an edge of the
 * source on the full path where that is theirs alone) at positions a..b-1 of
 * a slot list (slot[pos]: the voice at pos of the active list as the block
 * began, read from slot[a..b-1] only) into acc, n frames; left[pos] = 1 for
 * a voice it left for the full path, else 0; HL_MIX_NO_SLOT is not touched
 * (left 0). Any thread, inside a partitioned block. The block loop
 * (mixer_rt.c) hands it to hl_mix_part_block_rt: the partitions call back
 * into the loop's kernels without a circle between the two files. */
typedef void (*hl_mix_chunk_fn)(hl_mixer_t *m, const uint32_t *slot, uint32_t a, uint32_t b,
                                uint32_t n, float *acc, hl_part_stats_t *st, uint8_t *left);

/* The first pass of a block with more than HL_MIX_PART_MIN voices on a
 * mixer with parts: every partition's steady voices mixed and added into
 * m->acc in partition order, *mixed and *buses counted. Returns the
 * positions of the active list left for the full path, in order, *nleft of
 * them (the second pass walks these, not every position), or NULL when the
 * block is not partitioned (the caller runs its one-thread loop). */
const uint32_t *hl_mix_part_block_rt(hl_mixer_t *m, hl_mix_chunk_fn chunk, uint32_t n,
                                     uint32_t *mixed, uint32_t *buses, uint32_t *nleft);

/* Before each command drain (the call's, a scheduled frame's): 1 while a
 * worker stuck in a dropped partition is not back (its voices, the list and the
 * listener must not change under it: the commands wait, counted as held),
 * else 0. Never waits. */
int hl_mix_part_hold_rt(hl_mixer_t *m);

/* Voices of the active list left out of the block just mixed or held by
 * a stuck worker (quarantined): 0 when every one was visited. */
uint32_t hl_mix_part_quarantined_rt(const hl_mixer_t *m);

/* At a call's start, before the command drain: wakes the sleeping workers
 * if the block will be partitioned, so they are spinning by its start. */
void hl_mix_part_prewake_rt(hl_mixer_t *m);

#endif /* MIX_PART_INT_H */
