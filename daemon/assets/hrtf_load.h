/*
 * hrtf_load.h - builds the mixer's HRIR set (daemon/mixer/dsp/hl_hrtf.h) from a
 * SOFA file with libmysofa, off the audio thread.
 *
 * The loader decomposes every measured HRIR into a minimum-phase filter and
 * a per-ear delay, resamples that onto the set's regular grid and normalises
 * the set (see hrtf_load.c for the method). The result is one heap block the
 * caller owns and hands to the audio thread read-only; free it with
 * hld_hrtf_free once no voice can read it any more.
 */
#ifndef HLD_HRTF_LOAD_H
#define HLD_HRTF_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "hl_hrtf.h"

/* Default SOFA file: MIT KEMAR (normal pinna), shipped in Debian's libmysofa1. */
#define HLD_HRTF_DEFAULT_PATH "/usr/share/libmysofa/default.sofa"

/* Loads `path` (NULL = HLD_HRTF_DEFAULT_PATH) for sample rate `rate` (16000
 * .. 192000 Hz; above ~85 kHz the widest interaural delays clip at
 * HL_HRTF_MAX_DELAY). On success returns 0, *mem is the block to free and *set the
 * set inside it. On failure returns a negative HELIOD_E* code, leaves
 * *mem and *set NULL and writes a one-line message into err (if errlen > 0):
 *   HELIOD_EINVAL  bad argument (rate out of range, NULL out-pointers)
 *   HELIOD_EFILE   the file cannot be opened (missing, unreadable)
 *   HELIOD_EDECODE not a SOFA file, or one this loader cannot use (not two
 *                  receivers, no measurements)
 *   HELIOD_ENOMEM  out of memory
 * Blocking (file I/O and maths: ~1 s for KEMAR at 48 kHz, half of it
 * libmysofa's resampling): never on the audio thread. */
int hld_hrtf_load(const char *path, uint32_t rate, void **mem, hl_hrtf_set_t **set, char *err,
                  size_t errlen);
/* Frees a block from hld_hrtf_load (NULL is a no-op). */
void hld_hrtf_free(void *mem);

#endif /* HLD_HRTF_LOAD_H */
