/*
 * meters.c - meter ballistics (meters.h): peak bar, peak-hold marker and a
 * sliding-window rms of one bus's channels, from per-block figures.
 *
 * The peak bar and the marker are kept as (value, time set) pairs and read
 * through their closed-form fall, so feeding and reading are O(1) and exact
 * at any block size. The rms window is a ring of per-block sums: a feed adds
 * the new block and drops the oldest ones while the rest still cover the
 * window (frame counts are integers, so which blocks are in is exact); a read
 * adds the kept sums again in double, which is cheap at the rate meters are
 * read and leaves no running sum to drift after a loud passage. Main thread:
 * the ring is allocated once at init, nothing after.
 */
#include "meters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heliod_errors.h"
#include "hl_limits.h"
#include "hld_limits.h"

#define HLD_METER_MS_PER_S 1000.0

_Static_assert(HLD_METER_MIN_BLOCK <= HLD_MIN_PERIOD, "the ring must hold the smallest periods");

static double floor_db(double db) {
    return db > (double)HL_MIN_DB ? db : (double)HL_MIN_DB; /* NaN too */
}

/* Linear amplitude -> dBFS, floored; non-finite counts as silence. */
static double amp_db(float a) {
    if (!(a > 0.0f) || !isfinite(a)) return (double)HL_MIN_DB;
    return floor_db(20.0 * log10((double)a));
}

static double clean_sumsq(double s) {
    return s > 0.0 && isfinite(s) ? s : 0.0;
}

/* Value set at `at`, falling after `hold` frames at fall dB/frame, read at t. */
static double fallen(double db, uint64_t at, uint64_t hold, double fall, uint64_t t) {
    if (db <= (double)HL_MIN_DB) return (double)HL_MIN_DB;
    uint64_t since = t > at ? t - at : 0;
    if (since <= hold) return db;
    return floor_db(db - fall * (double)(since - hold));
}

void hld_meter_reset(hld_meter_t *m) {
    m->head = m->count = 0;
    m->ring_frames = 0;
    for (int c = 0; c < HLD_METER_CHANNELS; c++) {
        m->bar_db[c] = m->hold_db[c] = (double)HL_MIN_DB;
        m->bar_at[c] = m->hold_at[c] = 0;
    }
    m->now = 0;
    m->fed = 0;
}

int hld_meter_init_ch(hld_meter_t *m, uint32_t rate, uint32_t channels, float window_ms,
                      float hold_ms, float fall_db_s) {
    memset(m, 0, sizeof *m);
    hld_meter_reset(m);
    m->nch = channels >= 1 && channels <= HLD_METER_CHANNELS ? channels : 2; /* reads silence */
    if (rate == 0 || channels != m->nch) return HELIOD_EINVAL;
    if (!(window_ms > 0.0f) || !isfinite(window_ms)) window_ms = HLD_METER_WINDOW_MS;
    if (!(hold_ms >= 0.0f) || !isfinite(hold_ms)) hold_ms = HLD_METER_HOLD_MS;
    if (!(fall_db_s > 0.0f) || !isfinite(fall_db_s)) fall_db_s = HLD_METER_FALL_DB_S;
    m->rate = rate;
    m->window_frames = (uint64_t)llround((double)window_ms * rate / HLD_METER_MS_PER_S);
    if (m->window_frames == 0) m->window_frames = 1;
    m->hold_frames = (uint64_t)llround((double)hold_ms * rate / HLD_METER_MS_PER_S);
    m->fall_db_per_frame = (double)fall_db_s / rate;
    /* Kept blocks minus the oldest are < window: at most ceil(window / min) of them. */
    m->cap = (size_t)((m->window_frames + HLD_METER_MIN_BLOCK - 1) / HLD_METER_MIN_BLOCK) + 1;
    m->ring = calloc(m->cap, sizeof *m->ring);
    m->ring_sumsq = calloc(m->cap * channels, sizeof *m->ring_sumsq);
    if (!m->ring || !m->ring_sumsq) {
        hld_meter_free(m);
        return HELIOD_ENOMEM;
    }
    return 0;
}

int hld_meter_init(hld_meter_t *m, uint32_t rate, float window_ms, float hold_ms, float fall_db_s) {
    return hld_meter_init_ch(m, rate, 2, window_ms, hold_ms, fall_db_s);
}

void hld_meter_free(hld_meter_t *m) {
    free(m->ring);
    free(m->ring_sumsq);
    m->ring = NULL;
    m->ring_sumsq = NULL;
    m->cap = 0;
    hld_meter_reset(m);
}

static void drop_oldest(hld_meter_t *m) {
    m->ring_frames -= m->ring[m->head];
    m->head = (m->head + 1) % m->cap;
    m->count--;
}

void hld_meter_feed_ch(hld_meter_t *m, const float *peak, const double *sumsq, uint32_t frames,
                       uint64_t now_frames) {
    if (frames == 0 || m->cap == 0) return;
    if (m->fed && now_frames < m->now) hld_meter_reset(m);
    m->fed = 1;
    m->now = now_frames;

    for (uint32_t c = 0; c < m->nch; c++) {
        double p = amp_db(peak[c]);
        if (p >= fallen(m->bar_db[c], m->bar_at[c], 0, m->fall_db_per_frame, now_frames)) {
            m->bar_db[c] = p;
            m->bar_at[c] = now_frames;
        }
        if (p >= fallen(m->hold_db[c], m->hold_at[c], m->hold_frames, m->fall_db_per_frame,
                        now_frames)) {
            m->hold_db[c] = p;
            m->hold_at[c] = now_frames;
        }
    }

    if (m->count == m->cap) drop_oldest(m); /* blocks below HLD_METER_MIN_BLOCK */
    const size_t slot = (m->head + m->count) % m->cap;
    for (uint32_t c = 0; c < m->nch; c++)
        m->ring_sumsq[slot * m->nch + c] = clean_sumsq(sumsq[c]);
    m->ring[slot] = frames;
    m->count++;
    m->ring_frames += frames;
    while (m->count > 1 && m->ring_frames - m->ring[m->head] >= m->window_frames)
        drop_oldest(m);
}

void hld_meter_feed(hld_meter_t *m, float peak_l, float peak_r, double sumsq_l, double sumsq_r,
                    uint32_t frames, uint64_t now_frames) {
    const float peak[HLD_METER_CHANNELS] = {peak_l, peak_r};
    const double sumsq[HLD_METER_CHANNELS] = {sumsq_l, sumsq_r};
    hld_meter_feed_ch(m, peak, sumsq, frames, now_frames);
}

void hld_meter_read(const hld_meter_t *m, float *peak_db, float *peak_hold_db, float *rms_db) {
    double sum[HLD_METER_CHANNELS] = {0.0};
    for (size_t i = 0; rms_db && i < m->count; i++) {
        const double *b = &m->ring_sumsq[((m->head + i) % m->cap) * m->nch];
        for (uint32_t c = 0; c < m->nch; c++)
            sum[c] += b[c];
    }
    for (uint32_t c = 0; c < m->nch; c++) {
        if (peak_db)
            peak_db[c] = (float)fallen(m->bar_db[c], m->bar_at[c], 0, m->fall_db_per_frame, m->now);
        if (peak_hold_db)
            peak_hold_db[c] = (float)fallen(m->hold_db[c], m->hold_at[c], m->hold_frames,
                                            m->fall_db_per_frame, m->now);
        if (rms_db) {
            double ms = m->ring_frames ? sum[c] / (double)m->ring_frames : 0.0;
            rms_db[c] = (float)(ms > 0.0 ? floor_db(10.0 * log10(ms)) : (double)HL_MIN_DB);
        }
    }
}
