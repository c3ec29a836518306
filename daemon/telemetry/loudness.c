/*
 * loudness.c - EBU R128 measurement of the output (loudness.h), a thin
 * wrapper around libebur128 in mode M | S | I | LRA | SAMPLE_PEAK, on every
 * channel of the output layout with BS.1770-4's weights (speaker_channel).
 *
 * Exact gating (block lists, not EBUR128_MODE_HISTOGRAM's 0.1 LU bins), with
 * the lists' history capped at HLD_LOUDNESS_HISTORY_MS so a daemon that runs
 * for days does not grow without bound: integrated and range cover at most
 * the last three hours since the reset (silence below the -70 LUFS gate is
 * not stored at all, so this is three hours of programme, ~3 MB). Input is
 * passed through in chunks; a chunk with a non-finite sample is copied to a
 * scratch buffer with those samples zeroed first (allocated at create, so a
 * feed never allocates in this file; libebur128 itself allocates one list
 * entry per 100 ms block until the history is full). A failed allocation in
 * libebur128 drops that chunk from the measurement and is reported by the
 * next hld_loudness_read as HELIOD_ENOMEM.
 */
#include "loudness.h"

#include <ebur128.h>
#include <math.h>
#include <stdlib.h>

#include "heliod_errors.h"
#include "hl_layout.h"
#include "hld_limits.h"

#define HLD_LOUDNESS_CHANNELS HL_LAYOUT_MAX_CH /* the scratch's frames' width */
#define HLD_LOUDNESS_MODE                                                                          \
    (EBUR128_MODE_M | EBUR128_MODE_S | EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_SAMPLE_PEAK)
#define HLD_LOUDNESS_CHUNK      4096 /* frames checked and passed on at a time (32 KiB scratch) */
#define HLD_LOUDNESS_HISTORY_MS (3ul * 3600ul * 1000ul) /* gating history kept: 3 h */

struct hld_loudness {
    ebur128_state *st;
    uint32_t rate;
    uint32_t layout, ch; /* HL_LAYOUT_*, its channel count */
    int failed;          /* libebur128 ran out of memory since the last read */
    float scratch[HLD_LOUDNESS_CHUNK * HLD_LOUDNESS_CHANNELS];
};

/* BS.1770-4's channel weights by speaker azimuth (libebur128's ITU
 * channels): 1.41 (+1.5 dB) for |azimuth| 60..120 degrees (5.1's BL/BR at
 * 110, 7.1's SL/SR at 90), 1.0 for the front and for the far back (quad's
 * BL/BR at 135, 7.1's BL/BR at 150) and for 7.1.4's top speakers (45 up),
 * the LFE left out. */
static int speaker_channel(uint32_t spk, uint32_t layout) {
    switch (spk) {
    case HL_SPK_FL: return EBUR128_LEFT;
    case HL_SPK_FR: return EBUR128_RIGHT;
    case HL_SPK_FC: return EBUR128_CENTER;
    /* M+135 stands for 7.1's 150 too (libebur128 has no M+150; same weight) */
    case HL_SPK_BL: return layout == HL_LAYOUT_51 ? EBUR128_Mp110 : EBUR128_Mp135;
    case HL_SPK_BR: return layout == HL_LAYOUT_51 ? EBUR128_Mm110 : EBUR128_Mm135;
    case HL_SPK_SL: return EBUR128_Mp090;
    case HL_SPK_SR: return EBUR128_Mm090;
    /* 7.1.4's top speakers (elevation 45: weight 1.0) */
    case HL_SPK_TFL: return EBUR128_Up045;
    case HL_SPK_TFR: return EBUR128_Um045;
    case HL_SPK_TBL: return EBUR128_Up135;
    case HL_SPK_TBR: return EBUR128_Um135;
    default: return EBUR128_UNUSED; /* LFE */
    }
}

static ebur128_state *new_state(uint32_t rate, uint32_t layout) {
    const uint32_t ch = hl_layout_channels((hl_layout_t)layout);
    ebur128_state *st = ebur128_init(ch, rate, HLD_LOUDNESS_MODE);
    if (!st) return NULL;
    (void)ebur128_set_max_history(st, HLD_LOUDNESS_HISTORY_MS); /* only NO_CHANGE */
    for (uint32_t c = 0; c < ch; c++)
        (void)ebur128_set_channel(
            st, c, speaker_channel(hl_layout_speaker((hl_layout_t)layout, c), layout));
    return st;
}

static double floor_lufs(double v) {
    return v > HLD_LOUDNESS_FLOOR ? v : HLD_LOUDNESS_FLOOR; /* -inf and NaN too */
}

hld_loudness_t *hld_loudness_create(uint32_t rate) {
    return hld_loudness_create_layout(rate, HL_LAYOUT_STEREO);
}

hld_loudness_t *hld_loudness_create_layout(uint32_t rate, uint32_t layout) {
    if (rate < HLD_MIN_RATE || rate > HLD_MAX_RATE || layout >= HL_LAYOUT_COUNT) return NULL;
    hld_loudness_t *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->rate = rate;
    l->layout = layout;
    l->ch = hl_layout_channels((hl_layout_t)layout);
    l->st = new_state(rate, layout);
    if (!l->st) {
        free(l);
        return NULL;
    }
    return l;
}

void hld_loudness_feed(hld_loudness_t *l, const float *interleaved, size_t frames) {
    while (frames > 0) {
        size_t n = frames < HLD_LOUDNESS_CHUNK ? frames : HLD_LOUDNESS_CHUNK;
        size_t samples = n * l->ch;
        const float *src = interleaved;
        size_t i = 0;
        while (i < samples && isfinite(interleaved[i]))
            i++;
        if (i < samples) { /* copy, zeroing what is not finite */
            for (size_t j = 0; j < samples; j++)
                l->scratch[j] = isfinite(interleaved[j]) ? interleaved[j] : 0.0f;
            src = l->scratch;
        }
        if (ebur128_add_frames_float(l->st, src, n) != EBUR128_SUCCESS) l->failed = 1;
        interleaved += samples;
        frames -= n;
    }
}

int hld_loudness_read(hld_loudness_t *l, double *momentary, double *short_term, double *integrated,
                      double *range) {
    int rc = l->failed ? HELIOD_ENOMEM : 0;
    l->failed = 0;
    double v;
    if (momentary) {
        v = -HUGE_VAL;
        (void)ebur128_loudness_momentary(l->st, &v); /* cannot fail in this mode */
        *momentary = floor_lufs(v);
    }
    if (short_term) {
        v = -HUGE_VAL;
        (void)ebur128_loudness_shortterm(l->st, &v);
        *short_term = floor_lufs(v);
    }
    if (integrated) {
        v = -HUGE_VAL;
        if (ebur128_loudness_global(l->st, &v) != EBUR128_SUCCESS) rc = HELIOD_ENOMEM;
        *integrated = floor_lufs(v);
    }
    if (range) {
        v = 0.0;
        if (ebur128_loudness_range(l->st, &v) != EBUR128_SUCCESS) rc = HELIOD_ENOMEM;
        *range = isfinite(v) && v > 0.0 ? v : 0.0;
    }
    return rc;
}

double hld_loudness_sample_peak(hld_loudness_t *l) {
    double peak = 0.0;
    for (unsigned c = 0; c < l->ch; c++) {
        double p = 0.0;
        if (ebur128_sample_peak(l->st, c, &p) == EBUR128_SUCCESS && p > peak) peak = p;
    }
    return peak > 0.0 ? floor_lufs(20.0 * log10(peak)) : HLD_LOUDNESS_FLOOR;
}

void hld_loudness_reset(hld_loudness_t *l) {
    ebur128_state *st = new_state(l->rate, l->layout);
    if (!st) return; /* keep measuring on the old state */
    ebur128_destroy(&l->st);
    l->st = st;
    l->failed = 0;
}

void hld_loudness_destroy(hld_loudness_t *l) {
    if (!l) return;
    ebur128_destroy(&l->st);
    free(l);
}
