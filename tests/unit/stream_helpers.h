/*
 * stream_helpers.h - shared fixtures of the streaming-voice unit tests
 * (test_stream.c: the ring and what feeds it; test_stream_play.c: how a
 * streamed voice plays): a stream ring in heap memory, pushes from a
 * generated source, a streamed voice's parameters, the mixer's underruns.
 */
#ifndef HL_STREAM_HELPERS_H
#define HL_STREAM_HELPERS_H

#include <stdint.h>

#include "hl_mixer.h"
#include "hl_stream.h"

#define LEVEL 0.5f  /* DC test level, below the limiter threshold */
#define CAP   8192u /* stream capacity used by most tests (frames) */

/* A ring of cap frames of ch channels, in one 64-byte aligned block. */
hl_stream_t *stream_new(uint32_t cap, uint32_t ch);
void stream_free(hl_stream_t *s);
/* Zeroed interleaved stereo output of `frames` frames (the caller frees). */
float *new_out(uint32_t frames);
/* Pushes frames [*pos, *pos + n) of the interleaved source into s. */
void push(hl_stream_t *s, const hl_pcm_t *src, uint32_t *pos, uint32_t n);
/* test_params with the voice fed by s. */
hl_voice_params_t stream_params(hl_stream_t *s);
/* The mixer's underrun count (hl_mixer_stats). */
uint64_t underruns(hl_mixer_t *m);

#endif /* HL_STREAM_HELPERS_H */
