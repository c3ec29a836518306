/*
 * device.h - the output device at run time: switching (DEVICE), loss
 * detection, recovery and the cached device list (DEVICES).
 *
 *   main thread (poll tick)            device worker ("heliod-device")
 *   watchdog: callbacks stalled for    owns PortAudio once the loop runs:
 *   HLD_DEVICE_WATCHDOG_MS, the        - switch: open the new backend, swap
 *   stream's finished callback, or       it in under the engine (fade-out,
 *   libjack's shutdown callback          catch-up, fade-in: hld_engine_swap)
 *     -> DEVICE_LOST, job LOST   ---->  - lost: run on the null driver's
 *                                         clock, hand the dead stream to
 *   uv_async: replies, DEVICE_BACK <---   backend_pa.c's closer thread (abort,
 *                                         close, Pa_Terminate: ~20 ms for a
 *                                         dead JACK server), then retry with
 *                                         backoff (each try a full
 *                                         Pa_Initialize/Pa_Terminate, which is
 *                                         what notices a device that came back)
 *                                      - scan: refresh the device list cache
 *
 * Recovery: the device that was lost (same name; or the default output if it
 * was opened as the default) is tried HLD_DEVICE_RETRY_MIN_MS after the loss,
 * then with doubling backoff up to HLD_DEVICE_RETRY_MAX_MS, so a device back
 * plays again within ~0.5 s of being there (DEVICE_BACK to subscribers).
 * While a close of the lost stream is still running (a server that froze
 * instead of dying), tries answer HELIOD_EBUSY and the engine stays on null.
 *
 * The engine's rate is fixed: a device that comes back (or is asked for) at
 * a rate it cannot run at is refused and the engine stays on the null
 * driver (STATS device_rate_refused); nothing is resampled, nothing changes
 * pitch. Another period is fine (PortAudio adapts its buffers).
 */
#ifndef HLD_DEVICE_H
#define HLD_DEVICE_H

#include <stdint.h>

#include "engine.h"
#include "replies.h"

#define HLD_DEVICE_WATCHDOG_MS  150 /* no callback for this long: the device is lost */
#define HLD_DEVICE_RETRY_MIN_MS 50  /* first re-initialisation after a loss */
#define HLD_DEVICE_RETRY_MAX_MS 400 /* backoff cap: a device back is heard within ~0.5 s */
#define HLD_DEVICE_CONFIRM_MS   500 /* a started stream must call back within this */
#define HLD_DEVICE_PENDING      32  /* DEVICES/DEVICE requests waiting for the worker */

typedef struct {
    int driver_portaudio; /* 1 = PortAudio, 0 = null */
    int index;            /* PortAudio device index or -1 */
    uint32_t device_rate; /* the device's rate: the engine's, or another it is converted to */
    int state;            /* 0 running, 1 switching, 2 lost (on the null clock, retrying) */
    uint64_t lost, back, switches, rate_refused;
    uint64_t retries; /* re-opens tried while lost (each failed one changes nothing) */
    double lost_ms_last, recover_ms_last;
    double latency_s; /* the output latency the device reports (CLOCK) */
} hld_device_stats_t;

/* The device module's place in the daemon: what it works on (set once by
 * the application) and its state. */
typedef struct {
    hld_engine_t *engine;
    hld_net_t *net;           /* DEVICE events, replies; the loop; shutting_down */
    const char *want;         /* --device: the configured name ("" = the default) */
    struct hld_device *state; /* NULL until first used (device.c) */
} hld_devices_t;

/* Once per poll tick (loop.c): the watchdog; at shutdown stops the worker
 * and closes its handle. Main thread. */
void hld_device_tick(hld_devices_t *x);
/* DEVICE and DEVICES requests (dispatch.c's table). */
int hld_op_device(hld_devices_t *x, hld_req_t *q);
int hld_op_devices(hld_devices_t *x, hld_req_t *q);
/* STATS figures. Main thread. */
void hld_device_stats(hld_devices_t *x, hld_device_stats_t *out);

#endif /* HLD_DEVICE_H */
