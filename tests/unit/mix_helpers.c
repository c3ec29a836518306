/*
 * mix_helpers.c - fixtures for the mixer unit tests (see mix_helpers.h). The
 * tests may allocate; only the mixer library itself may not.
 */
#include "mix_helpers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Blocks handed to hl_mixer_init, so test_mixer_free can release them. */
#define TEST_MAX_MIXERS 16
static struct {
    hl_mixer_t *m;
    void *mem;
} mixers[TEST_MAX_MIXERS];

hl_mixer_t *test_mixer_new(uint32_t voices, uint32_t cmds_per_block) {
    hl_mixer_config_t cfg = {.rate = TEST_RATE, .voices = voices, .cmds_per_block = cmds_per_block};
    size_t size = hl_mixer_size(&cfg);
    if (!size) return NULL;
    void *mem = malloc(size);
    hl_mixer_t *m = mem ? hl_mixer_init(mem, size, &cfg) : NULL;
    for (int i = 0; m && i < TEST_MAX_MIXERS; i++)
        if (!mixers[i].m) {
            mixers[i].m = m;
            mixers[i].mem = mem;
            return m;
        }
    free(mem);
    return NULL;
}

void test_mixer_free(hl_mixer_t *m) {
    for (int i = 0; i < TEST_MAX_MIXERS; i++)
        if (mixers[i].m == m && m) {
            free(mixers[i].mem);
            mixers[i].m = NULL;
            mixers[i].mem = NULL;
        }
}

static hl_pcm_t *pcm_alloc(uint32_t frames, uint32_t channels) {
    hl_pcm_t *p = calloc(1, sizeof *p);
    float *d = calloc((size_t)frames * channels, sizeof(float));
    if (!p || !d) {
        free(p);
        free(d);
        return NULL;
    }
    p->data = d;
    p->frames = frames;
    p->channels = channels;
    p->finite = 1; /* every generator below writes finite samples */
    return p;
}

void test_dir_of(double az, double el, float d[3]) {
    const double a = az * TEST_PI / 180.0, e = el * TEST_PI / 180.0;
    d[0] = (float)(-sin(a) * cos(e));
    d[1] = (float)sin(e);
    d[2] = (float)(-cos(a) * cos(e));
}

hl_pcm_t *test_pcm_dc(uint32_t frames, uint32_t channels, float value) {
    hl_pcm_t *p = pcm_alloc(frames, channels);
    float *d = (float *)p->data;
    for (size_t i = 0; i < (size_t)frames * channels; i++)
        d[i] = value;
    return p;
}

hl_pcm_t *test_pcm_sine(uint32_t frames, uint32_t channels, double cycles_per_frame, double phase,
                        float amp) {
    hl_pcm_t *p = pcm_alloc(frames, channels);
    float *d = (float *)p->data;
    for (uint32_t i = 0; i < frames; i++)
        for (uint32_t c = 0; c < channels; c++)
            d[(size_t)i * channels + c] =
                amp * (float)sin(2.0 * TEST_PI * cycles_per_frame * i + phase);
    return p;
}

hl_pcm_t *test_pcm_ramp(uint32_t frames, float scale) {
    hl_pcm_t *p = pcm_alloc(frames, 1);
    float *d = (float *)p->data;
    for (uint32_t i = 0; i < frames; i++)
        d[i] = (float)i * scale;
    return p;
}

void test_pcm_free(hl_pcm_t *p) {
    if (p) {
        free((void *)p->data);
        free(p);
    }
}

hl_voice_params_t test_params(const hl_pcm_t *pcm) {
    hl_voice_params_t p;
    memset(&p, 0, sizeof p);
    p.pcm = pcm;
    p.gain = 1.0f;
    p.pitch = 1.0f;
    p.min_distance = 1.0f;
    p.max_distance = 100.0f;
    p.rolloff = 1.0f;
    p.bus = HL_BUS_SFX;
    return p;
}

void test_render(hl_mixer_t *m, float *out, uint32_t frames, uint32_t chunk, uint64_t *now_ns) {
    for (uint32_t done = 0; done < frames;) {
        uint32_t n = frames - done < chunk ? frames - done : chunk;
        hl_mixer_process_rt(m, out + 2 * (size_t)done, n, *now_ns);
        *now_ns += (uint64_t)n * 1000000000u / TEST_RATE;
        done += n;
    }
}

static void log_event(void *user, const hl_mix_event_t *ev) {
    test_events_t *log = user;
    if (log->n < sizeof log->ev / sizeof log->ev[0]) log->ev[log->n++] = *ev;
}

size_t test_poll(hl_mixer_t *m, test_events_t *log) {
    return hl_mixer_poll(m, log_event, log);
}

size_t test_count(const test_events_t *log, uint32_t type, uint64_t voice) {
    size_t c = 0;
    for (size_t i = 0; i < log->n; i++)
        if (log->ev[i].type == type && (voice == 0 || log->ev[i].voice == voice)) c++;
    return c;
}

int test_end_reason(const test_events_t *log, uint64_t voice) {
    for (size_t i = 0; i < log->n; i++)
        if (log->ev[i].type == HL_MIX_EV_ENDED && log->ev[i].voice == voice)
            return (int)log->ev[i].reason;
    return -1;
}
