/*
 * mix_helpers.h - shared fixtures of the mixer unit tests: a mixer in
 * heap memory, generated test signals, default voice parameters, rendering
 * helpers and an event log.
 */
#ifndef HL_MIX_HELPERS_H
#define HL_MIX_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "hl_mixer.h"

#define TEST_RATE 48000u
#define TEST_PI   3.14159265358979323846

/* Mixer with `voices` logical voices and the given drain cap (0 = default). */
hl_mixer_t *test_mixer_new(uint32_t voices, uint32_t cmds_per_block);
void test_mixer_free(hl_mixer_t *m);

/* Owned PCM buffers (free with test_pcm_free). */
hl_pcm_t *test_pcm_dc(uint32_t frames, uint32_t channels, float value);
hl_pcm_t *test_pcm_sine(uint32_t frames, uint32_t channels, double cycles_per_frame, double phase,
                        float amp);
hl_pcm_t *test_pcm_ramp(uint32_t frames, float scale); /* mono: sample i = i * scale */
void test_pcm_free(hl_pcm_t *p);

/* The unit vector at azimuth az (degrees, positive left) and elevation el
 * (degrees up) in the default listener's frame (x right, y up, z back): a
 * 3D position 1 m from it, or a direction. */
void test_dir_of(double az, double el, float d[3]);

/* 2D, centre, gain 1, pitch 1, priority 0, sfx bus. */
hl_voice_params_t test_params(const hl_pcm_t *pcm);

/* Renders `frames` frames in process calls of `chunk` frames into out
 * (interleaved stereo), starting at time *now_ns (advanced). */
void test_render(hl_mixer_t *m, float *out, uint32_t frames, uint32_t chunk, uint64_t *now_ns);

typedef struct {
    size_t n;
    hl_mix_event_t ev[256];
} test_events_t;
size_t test_poll(hl_mixer_t *m, test_events_t *log);
/* Number of logged events of `type` for voice (0 = any voice). */
size_t test_count(const test_events_t *log, uint32_t type, uint64_t voice);
/* Reason of the ENDED event of voice, or -1. */
int test_end_reason(const test_events_t *log, uint64_t voice);

#endif /* HL_MIX_HELPERS_H */
