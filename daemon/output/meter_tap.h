/*
 * meter_tap.h - what the meters need from the audio thread, handed to the
 * main thread without locks and without loss:
 *
 *   audio thread (engine render, per call)        main thread (metering.c)
 *   hl_mixer_meter_rt(): per bus + master         hld_meter_tap_read_levels()
 *     peak, sum of squares per channel, frames, now  -> one hld_meter_t per bus
 *     --level ring (hl_mix_meter_t records)-->
 *   the output (post limiter), interleaved        hld_meter_tap_read_pcm()
 *     --pcm ring (one element = one frame)-->        -> libebur128 (loudness.c)
 *
 * Level records never get lost: when the ring is full (the main thread was
 * held up), the audio thread folds the call into a carried record (peaks
 * max, sums of squares and frames added) and publishes that as soon as there
 * is room, so the meters see every frame's energy and every peak, only at a
 * coarser grain. The pcm ring holds HLD_METER_PCM_SECONDS of output; frames
 * that do not fit are dropped and counted (the loudness then misses them).
 * Both rings' pages are written, and locked where RLIMIT_MEMLOCK allows, at
 * open: the audio thread never faults on them.
 */
#ifndef HLD_METER_TAP_H
#define HLD_METER_TAP_H

#include <stdint.h>

#include "hl_mixer.h"
#include "hl_ring.h"

typedef struct hld_meter_tap hld_meter_tap_t;

/* Opens the rings for an engine at rate whose output has `channels`
 * (2..HL_MIX_MAX_CH): the PCM ring keeps frames that wide. 0 and *out,
 * HELIOD_EINVAL or HELIOD_ENOMEM. Main thread, before the audio thread runs. */
int hld_meter_tap_open(hld_meter_tap_t **out, uint32_t rate, uint32_t channels);
/* Audio thread: publishes one call's level figures and its output (frames
 * of `channels` interleaved channels: every one of them when the tap was
 * opened that wide, so loudness measures the whole layout; the front pair
 * of a wider output on a tap opened for 2). Never blocks, allocates or
 * fails. */
void hld_meter_tap_write_rt(hld_meter_tap_t *t, const hl_mix_meter_t *lv, const float *out,
                            uint32_t frames, uint32_t channels);
/* Main thread: copies up to max level records, oldest first; returns how many. */
uint32_t hld_meter_tap_read_levels(hld_meter_tap_t *t, hl_mix_meter_t *dst, uint32_t max);
/* Main thread: the readable output frames as up to two spans (interleaved,
 * the tap's channels); hld_meter_tap_pcm_done(t, n) releases the first n. */
uint32_t hld_meter_tap_read_pcm(hld_meter_tap_t *t, hl_ring_spans_t *s);
void hld_meter_tap_pcm_done(hld_meter_tap_t *t, uint32_t n);
/* Calls folded into a carried record because the level ring was full, and
 * output frames the pcm ring dropped. Any thread (relaxed). */
uint64_t hld_meter_tap_coalesced(const hld_meter_tap_t *t);
uint64_t hld_meter_tap_dropped(const hld_meter_tap_t *t);
/* Frees; the audio thread must have stopped. NULL is fine. Main thread. */
void hld_meter_tap_close(hld_meter_tap_t *t);

#endif /* HLD_METER_TAP_H */
