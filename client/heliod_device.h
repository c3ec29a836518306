/*
 * heliod_device.h - libheliod: the output device and statistics.
 *
 * Part of heliod.h, which includes it after its common types (heliod_t,
 * heliod_voice_t): a game includes <heliod.h> only.
 */
#ifndef HELIOD_DEVICE_H
#define HELIOD_DEVICE_H

#ifndef HELIOD_H
#error "include <heliod.h>, not heliod_device.h"
#endif

typedef struct {
    uint32_t index;
    char name[256];
    char hostapi[64];
    uint32_t max_channels;
    double default_rate;
    uint32_t flags; /* 1 = default, 2 = in use */
} heliod_device_info_t;
int heliod_devices(heliod_t *h, heliod_device_info_t *arr, size_t cap, size_t *count);

typedef struct {
    char driver[64]; /* "portaudio" or "null" */
    char name[256];  /* the device now open ("" for null) */
    uint32_t rate, period;
} heliod_device_reply_t;
/* Switches the output device while everything plays on (a few ms of fade-out
 * and fade-in): name is a device name or a substring of one (as --device),
 * "null" for the null driver, "default" for the default output. *out (may be
 * NULL) gets what is now open. Returns 0, HELIOD_ENODEV (no such device),
 * HELIOD_EINVAL (the device runs at no rate heliod converts to), HELIOD_EIO,
 * HELIOD_EBUSY (a switch is in progress), HELIOD_EPERM (not a control
 * client: the device is every client's) or a connection error. Blocking. */
int heliod_device(heliod_t *h, const char *name, heliod_device_reply_t *out);

typedef struct {
    char key[64];
    double value;
} heliod_stat_t;
/* Statistics as key/value pairs (keys listed in proto/PROTOCOL.md). reset = 1
 * restarts the callback-time histogram, and the integrated loudness and
 * loudness range, after reading (a control client only: HELIOD_EPERM). */
int heliod_stats(heliod_t *h, heliod_stat_t *arr, size_t cap, size_t *count, int reset);

#endif /* HELIOD_DEVICE_H */
