/*
 * meters.h - meter ballistics of one bus (every channel of the output
 * layout, stereo to 7.1), on the main thread, from the figures the audio
 * thread publishes per block:
 *
 *   audio thread (per block, per bus)          main thread
 *   per channel peak = max |x|, sumsq = sum x^2, hld_meter_feed_ch() each block
 *   frames, now_frames          --publish-->   hld_meter_read() when asked
 *
 * Three readings per channel, in dBFS, floored at -144 (HL_MIN_DB, which is
 * also what silence reads; the JSON stats cannot carry -inf):
 *
 *   peak       the bar: jumps up to a block's peak at once, then falls at
 *              fall_db_s (default 20 dB/s, a digital peak meter's fall:
 *              fast enough to follow the music, slow enough to read).
 *   peak hold  the marker: the highest peak, held hold_ms (default 1.5 s, long
 *              enough to glance at), then falling at fall_db_s until a new
 *              peak above the falling marker takes its place.
 *   rms        the exact mean of the squares over a sliding window of window_ms
 *              (default 300 ms, the integration time of a VU meter and near the
 *              ear's own): over the newest whole blocks that add up to at least
 *              the window (or everything since init/reset, if less). No
 *              approximation inside a block: the window is window_ms plus
 *              less than one block, and the sums are added again from the
 *              block figures at each read, so nothing drifts.
 *
 * Both falls are closed forms of the time since the peak was set (value -
 * fall * elapsed), not per-block steps, so a reading does not depend on the
 * block size. Time is the engine's frame counter: now_frames is the position
 * just after the block's last frame; a block's peak counts at that time.
 * Blocks the audio thread could not publish leave a gap in now_frames: the
 * ballistics still fall over it; the rms window simply does not see them.
 *
 * The rms window is a ring of per-block sums allocated at init for the
 * smallest block the engine publishes (HLD_METER_MIN_BLOCK frames) at the
 * meter's rate. Smaller blocks still work: when the ring is full the oldest
 * block leaves early (the window shrinks by that block, the mean stays exact).
 *
 * Non-finite or negative figures (a NaN on a bus before the limiter scrubs
 * it) count as silence. Not thread safe: one meter, one thread (main).
 */
#ifndef HLD_METERS_H
#define HLD_METERS_H

#include <stddef.h>
#include <stdint.h>

/* clang-format off */
#define HLD_METER_WINDOW_MS   300.0f  /* rms window: a VU meter's integration time */
#define HLD_METER_HOLD_MS     1500.0f /* peak-hold marker hold */
#define HLD_METER_FALL_DB_S   20.0f   /* peak bar and marker fall, dB per second */
#define HLD_METER_MIN_BLOCK   16      /* smallest block published: HLD_MIN_PERIOD (the
                                       * mixer cuts periods into <= 256-frame blocks) */
#define HLD_METER_CHANNELS    12      /* channels at most: 7.1.4 (HL_LAYOUT_MAX_CH) */
/* clang-format on */

typedef struct {
    /* settings */
    uint32_t rate;
    uint32_t nch; /* channels metered, 1..HLD_METER_CHANNELS */
    uint64_t window_frames;
    uint64_t hold_frames;
    double fall_db_per_frame;
    /* rms window: ring of the newest blocks, their frames and per-channel sums
     * of squares (nch doubles per block) */
    uint32_t *ring;
    double *ring_sumsq;
    size_t cap, head, count; /* head = oldest */
    uint64_t ring_frames;    /* frames in the ring */
    /* ballistics: value set at a time, falling from it (closed form) */
    double bar_db[HLD_METER_CHANNELS];
    uint64_t bar_at[HLD_METER_CHANNELS];
    double hold_db[HLD_METER_CHANNELS];
    uint64_t hold_at[HLD_METER_CHANNELS];
    uint64_t now; /* now_frames of the last block fed */
    int fed;      /* a block was fed since init/reset */
} hld_meter_t;

/* Sets up a meter of `channels` (1..HLD_METER_CHANNELS) at rate (frames/s). A negative or NaN
 * window_ms, hold_ms or fall_db_s takes the default above, and so does 0 for window_ms and
 * fall_db_s (neither can be 0); hold_ms = 0 is a marker without hold. Returns
 * 0, HELIOD_EINVAL (rate 0) or HELIOD_ENOMEM (then the meter holds nothing,
 * hld_meter_free is still fine). Reads silence until fed. */
int hld_meter_init_ch(hld_meter_t *m, uint32_t rate, uint32_t channels, float window_ms,
                      float hold_ms, float fall_db_s);
/* A stereo meter: hld_meter_init_ch with 2 channels. */
int hld_meter_init(hld_meter_t *m, uint32_t rate, float window_ms, float hold_ms, float fall_db_s);
/* One block: per-channel block peak (max |x|) and sum of squares (nch of
 * each), its frame count, and now_frames = the engine's frame position just
 * after it. A now_frames below the previous one (the counter restarted)
 * resets the meter first; a block of 0 frames is ignored. */
void hld_meter_feed_ch(hld_meter_t *m, const float *peak, const double *sumsq, uint32_t frames,
                       uint64_t now_frames);
/* The same for a stereo meter's two channels. */
void hld_meter_feed(hld_meter_t *m, float peak_l, float peak_r, double sumsq_l, double sumsq_r,
                    uint32_t frames, uint64_t now_frames);
/* The readings as of the last block fed, in dBFS (>= -144), nch of each (the
 * meter's channels). Any pointer may be NULL. */
void hld_meter_read(const hld_meter_t *m, float *peak_db, float *peak_hold_db, float *rms_db);
/* Back to silence (e.g. after the device restarted and the frame counter with it). */
void hld_meter_reset(hld_meter_t *m);
/* Frees the ring; the meter may be init'ed again. Twice, or after a failed init, is fine. */
void hld_meter_free(hld_meter_t *m);

#endif /* HLD_METERS_H */
