/*
 * hl_resample.h - the output rate converter: the engine's output (any layout:
 * 1 to HL_RS_MAX_CHANNELS interleaved channels) at the engine rate,
 * converted to a device that runs at another rate (a JACK
 * server restarted at 44.1 kHz under a 48 kHz engine, a USB headset that only
 * does 44.1). The engine, its voices, streams and clock keep the engine rate,
 * so nothing changes pitch or timing; only the device sees the other rate.
 *
 * A band-limited windowed-sinc (Kaiser) polyphase converter: 512 phases of a
 * 64-tap kernel (more when the device rate is lower: the kernel widens with
 * the ratio so the cutoff sits below the device's Nyquist), interpolated
 * linearly between phases; stepped by the exact rational ratio (no drift over
 * hours). Passband flat to 0.8 x the lower Nyquist; images and aliases more
 * than 70 dB down (tests/unit/test_resample.c measures both).
 *
 * Setup (hl_resample_size, hl_resample_init) builds the table off the audio
 * thread into memory the caller allocated; hl_resample_process_rt and
 * hl_resample_reset_rt follow the real-time rule (no allocation, no lock).
 */
#ifndef HL_RESAMPLE_H
#define HL_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#define HL_RS_MIN_RATE     8000u
#define HL_RS_MAX_RATE     384000u
#define HL_RS_MAX_DOWN     4u /* engine rate / device rate at most this */
#define HL_RS_PHASES       512u
#define HL_RS_HALF_TAPS    32u /* half the kernel at a ratio >= 1 */
#define HL_RS_MAX_CHANNELS 12u /* 7.1.4 */

typedef struct hl_resample hl_resample_t;

/* Renders `frames` interleaved frames (the converter's channels) at the
 * input rate into buf.
 * Called from hl_resample_process_rt, on its thread. */
typedef void (*hl_resample_pull_fn)(void *user, float *buf, uint32_t frames);

/* Bytes needed to convert `channels` interleaved channels from in_rate to
 * out_rate, pulling `block` input frames at a time; 0 when the rates are out
 * of range, equal, the ratio is too large (in_rate > HL_RS_MAX_DOWN x
 * out_rate) or channels is not 1..HL_RS_MAX_CHANNELS. Any thread. */
size_t hl_resample_size(uint32_t in_rate, uint32_t out_rate, uint32_t block, uint32_t channels);

/* Builds a converter in mem (size from hl_resample_size, 16-byte aligned):
 * computes the kernel table (libm, a few ms). NULL on bad arguments. Not on
 * the audio thread. */
hl_resample_t *hl_resample_init(void *mem, size_t size, uint32_t in_rate, uint32_t out_rate,
                                uint32_t block, uint32_t channels);

/* RT: fills `frames` frames (the converter's channels) of out at the output rate, calling pull
 * for input blocks as it needs them (about frames x in/out, in whole blocks). */
void hl_resample_process_rt(hl_resample_t *r, float *out, uint32_t frames, hl_resample_pull_fn pull,
                            void *user);

/* RT: forgets the history (silence before the next input). */
void hl_resample_reset_rt(hl_resample_t *r);

/* The converter's delay in output frames (half the kernel). Any thread. */
double hl_resample_delay_frames(const hl_resample_t *r);

#endif /* HL_RESAMPLE_H */
