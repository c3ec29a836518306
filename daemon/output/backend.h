/*
 * backend.h - the one small interface between the engine and an output
 * device. Two implementations: backend_pa.c (PortAudio) and backend_null.c
 * (no device: a thread paced by clock_nanosleep that calls the engine in real
 * time, for machines without sound hardware and for tests).
 *
 * A backend calls `render` on its audio thread once per period with an
 * interleaved float buffer of cfg.channels channels (the layout's) to fill, and says whether the
 * device reported an xrun since the previous call. Everything it needs is allocated in open();
 * start/stop/close run on the thread that owns the backend (the main thread at start-up and
 * shutdown, the device worker in between).
 */
#ifndef HLD_BACKEND_H
#define HLD_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "hl_proto.h"

#define HLD_XRUN_UNDERFLOW 0x1u /* the device ran out of samples */
#define HLD_XRUN_LATE      0x2u /* (null) the callback woke more than a period late */

/* Audio thread: fill `frames` frames (cfg.channels each) of out. Must follow the RT rule. */
typedef void (*hld_render_fn)(void *user, float *out, uint32_t frames, uint32_t xrun_flags);

typedef struct hld_backend hld_backend_t;

typedef struct {
    uint32_t rate, period;
    uint32_t channels;  /* interleaved channels of the buffer render fills (0 = 2) */
    const char *device; /* NULL/"" = default output */
    hld_render_fn render;
    void *user;
} hld_backend_config_t;

typedef struct {
    int (*start)(hld_backend_t *b);
    void (*stop)(hld_backend_t *b);
    void (*close)(hld_backend_t *b);
    /* 1 once the device said it stopped by itself (stream error, finished
     * callback); NULL = never. Any thread (reads an atomic). */
    int (*lost)(hld_backend_t *b);
} hld_backend_ops_t;

struct hld_backend {
    const hld_backend_ops_t *ops;
    const char *name;                     /* "portaudio" or "null" */
    char device_name[HL_MAX_DEVNAME + 1]; /* what is open ("" for null) */
    int device_index;                     /* PortAudio index or -1 */
    double latency_s;                     /* device output latency */
    uint32_t rate; /* the device's rate (the engine's, or another: resampled) */
    int dead;      /* the device is gone: stop does nothing, close aborts (off-thread) */
    uint32_t gen;  /* the engine's port generation this backend renders through */
    int closing;   /* set by close when the stream went to the closer thread (see
                    * below): its callback may still run until hld_pa_busy() is 0 */
    void *impl;
};

/* Open a backend: 0 or a negative HELIOD_* code (ENODEV, EIO, ENOMEM; the
 * PortAudio one opens the device at cfg->rate, else at its own default rate
 * when the engine can convert to it (b->rate says which: the engine then
 * resamples, see hl_resample.h), and answers EINVAL when neither works,
 * EBUSY while a lost stream is still being closed: see hld_pa_busy).
 * On failure nothing needs closing. The main thread at start-up, then the
 * device worker (device.c): PortAudio is only ever used by one thread at a
 * time. */
int hld_backend_null_open(hld_backend_t *b, const hld_backend_config_t *cfg);
int hld_backend_pa_open(hld_backend_t *b, const hld_backend_config_t *cfg);
/* The render driver (backend_render.c, `heliod --render`): start and stop do
 * nothing; the caller renders each period with hld_backend_render_pull on
 * its own thread, which then follows the RT rule for the call. */
int hld_backend_render_open(hld_backend_t *b, const hld_backend_config_t *cfg);
void hld_backend_render_pull(hld_backend_t *b, float *out, uint32_t frames);

/* Start/stop calling render; close frees. The thread that opened it (or the
 * main thread once the device worker is joined).
 *
 * A PortAudio backend that is lost (b->dead set, or ops->lost says so) is
 * neither stopped nor closed on the caller's thread: stop returns at once,
 * and close hands the stream to a closer thread that aborts and closes it and
 * releases PortAudio (so that the next open really rescans the devices).
 * close waits up to 250 ms for it (a JACK server that died: ~20 ms), then
 * returns anyway; the closer may take as long as PortAudio does (a frozen,
 * not dead, server: up to PortAudio's own 10 minute timeout). Until it is
 * done hld_pa_busy() is 1 and PortAudio is not used: hld_backend_pa_open and
 * hld_pa_list_devices answer HELIOD_EBUSY, and stop/close of any other
 * PortAudio backend also go through the closer. There is at most one closer
 * thread, and as nothing opens while it runs, at most the streams open when
 * it started wait for it (one; two when a DEVICE switch lost the old one). */
static inline int hld_backend_start(hld_backend_t *b) {
    return b->ops->start(b);
}
static inline void hld_backend_stop(hld_backend_t *b) {
    b->ops->stop(b);
}
static inline int hld_backend_lost(hld_backend_t *b) {
    return b->ops && b->ops->lost ? b->ops->lost(b) : 0;
}
static inline void hld_backend_close(hld_backend_t *b) {
    if (b->ops) b->ops->close(b);
    b->ops = NULL;
}

/* PortAudio output devices into arr[cap]; *total gets how many exist. Marks
 * the default (HL_DEV_DEFAULT) and current_index (HL_DEV_CURRENT, -1 for
 * none). Initialises PortAudio for the call if needed. Returns the number
 * filled or a negative HELIOD_* code (EBUSY: see hld_pa_busy). The device
 * worker (device.c): it initialises PortAudio and briefly captures fd 2,
 * forwarding heliod's own log lines and dropping the host APIs' probing
 * noise. */
int hld_pa_list_devices(hl_device_info_t *arr, size_t cap, size_t *total, int current_index);

/* 1 while a lost PortAudio stream is still being closed (see close above),
 * else 0. Each call also wakes PortAudio's JACK host API out of a wait for a
 * process callback that a dead server will never send, and starts the closer
 * thread if it could not be started before. The device worker. */
int hld_pa_busy(void);

#endif /* HLD_BACKEND_H */
