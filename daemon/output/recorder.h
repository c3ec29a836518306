/*
 * recorder.h - the --record tap: a copy of the master output written to a
 * WAV file without ever blocking the audio thread.
 *
 *   audio thread                     writer thread ("heliod-record")
 *   hld_recorder_write_rt() --ring-->  drain every HLD_RECORD_POLL_MS
 *   (full ring: frames dropped,        sf_writef_float into the file
 *    counted, never waits)
 *
 * The ring holds HL_RECORD_SECONDS of stereo frames (one element = one frame,
 * so the writer never sees half a frame). Its pages are touched, and locked
 * where RLIMIT_MEMLOCK allows, at open: the audio thread never faults on it.
 */
#ifndef HLD_RECORDER_H
#define HLD_RECORDER_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct hld_recorder hld_recorder_t;

/* Opens path as a float WAV at rate and starts the writer thread. Returns
 * 0 and *out, or HELIOD_EFILE / HELIOD_ENOMEM / HELIOD_EIO. Main thread. */
/* layout: hl_layout_t; the file has its channels, as the mix has, and,
 * beyond stereo, is a WAVE_FORMAT_EXTENSIBLE file with the layout's channel
 * mask. */
int hld_recorder_open(hld_recorder_t **out, const char *path, uint32_t rate, uint32_t layout);
/* Sets a SNDFILE opened for writing (SF_FORMAT_WAVEX beyond stereo) to the
 * layout's channel map, hence its WAVE channel mask; 0 or -1. */
struct sf_private_tag;
int hld_wav_set_layout(struct sf_private_tag *sf, uint32_t layout);
/* Audio thread: queues frames of the layout's interleaved channels; drops what does not fit. */
void hld_recorder_write_rt(hld_recorder_t *r, const float *buf, uint32_t frames);
/* Frames written to the file so far / dropped because the ring was full. Any thread. */
uint64_t hld_recorder_frames(const hld_recorder_t *r);
uint64_t hld_recorder_dropped(const hld_recorder_t *r);
/* Stops the writer after draining the ring, finalises the file, frees.
 * Call after the audio thread stopped. NULL is fine. Main thread. Bounded:
 * a writer stuck in I/O for HLD_RECORD_CLOSE_MS is abandoned (and r leaked). */
void hld_recorder_close(hld_recorder_t *r);
/* Finalises the open recorder, if any, within timeout_ms (the shutdown guard
 * calls it before a hard exit; the audio thread may still be running: its
 * last frames are then not written). 0 if finalised, 1 if none is open
 * (or it was already closed), -1 if it could not be in time. Any thread; r stays allocated until
 * hld_recorder_close. */
int hld_recorder_finalise_live(unsigned timeout_ms);

#endif /* HLD_RECORDER_H */
