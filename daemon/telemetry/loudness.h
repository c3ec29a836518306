/*
 * loudness.h - EBU R128 loudness of the daemon's output, measured off the
 * audio thread with libebur128:
 *
 *   audio thread --output tap--> main / recorder thread
 *                                hld_loudness_feed(interleaved stereo float)
 *                                hld_loudness_read() -> M, S, I, LRA
 *
 *   momentary   M, LUFS, the last 400 ms (EBU Tech 3341)
 *   short_term  S, LUFS, the last 3 s
 *   integrated  I, LUFS, gated (-70 LUFS absolute, -10 LU relative) since
 *               create or the last reset
 *   range       LRA, LU, of the short-term loudness (EBU Tech 3342)
 *   sample peak dBFS, the highest |sample| since create/reset
 *
 * Where libebur128 answers -inf (silence, or not one gated block yet) the
 * reading is HLD_LOUDNESS_FLOOR, -144: the JSON stats cannot carry -inf, and
 * -144 is the floor every other level of the daemon reads as silence
 * (HL_MIN_DB), so one sentinel means "nothing" everywhere. It is far below
 * anything measurable (the integrated gate alone stops at -70 LUFS), so it
 * cannot be mistaken for a quiet programme. The range of silence is 0 LU.
 *
 * Samples that are not finite (the output tap is post-limiter, so they should
 * not occur) are measured as 0: one NaN would otherwise poison the integrated
 * value until the next reset. Not thread safe: one thread feeds and reads a
 * given meter. Everything here may allocate: never on the audio thread.
 */
#ifndef HLD_LOUDNESS_H
#define HLD_LOUDNESS_H

#include <stddef.h>
#include <stdint.h>

#define HLD_LOUDNESS_FLOOR (-144.0) /* LUFS / dBFS reported instead of -inf */

typedef struct hld_loudness hld_loudness_t;

/* A meter for interleaved stereo at rate (HLD_MIN_RATE..HLD_MAX_RATE).
 * NULL if the rate is out of range or memory is short. */
hld_loudness_t *hld_loudness_create(uint32_t rate);
/* The same for the channels of output layout `layout` (HL_LAYOUT_*, in its
 * WAVE order) with the ITU-R BS.1770-4 channel weights by azimuth: front
 * speakers 1.0, speakers at 60..120 degrees 1.41 (+1.5 dB: 5.1's surrounds
 * at 110, 7.1's sides at 90), further back 1.0 (quad's surrounds at 135,
 * 7.1's backs at 150), the LFE excluded. NULL also for an unknown layout. */
hld_loudness_t *hld_loudness_create_layout(uint32_t rate, uint32_t layout);
/* Measures frames of the meter's interleaved channels (L, R, L, R, ... on
 * stereo). */
void hld_loudness_feed(hld_loudness_t *l, const float *interleaved, size_t frames);
/* The four readings (any pointer may be NULL). 0, or HELIOD_ENOMEM if
 * libebur128 ran out of memory: some audio fed since the last read went
 * unmeasured, or a reading could not be computed (it then reads the floor,
 * or 0 LU). */
int hld_loudness_read(hld_loudness_t *l, double *momentary, double *short_term, double *integrated,
                      double *range);
/* Highest sample peak of any channel since create/reset, in dBFS (floor -144). */
double hld_loudness_sample_peak(hld_loudness_t *l);
/* Starts over: every reading forgets what came before. Allocates a fresh
 * libebur128 state first; if that fails the meter keeps measuring on its old
 * state (nothing is lost but the reset). */
void hld_loudness_reset(hld_loudness_t *l);
/* NULL is fine. */
void hld_loudness_destroy(hld_loudness_t *l);

#endif /* HLD_LOUDNESS_H */
