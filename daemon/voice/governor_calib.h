/*
 * governor_calib.h - the governor's start-up price of a worst-case voice
 * (governor_calib.c): a private mixer, no daemon state, so the unit tests
 * build it with the mixer library alone.
 */
#ifndef HLD_GOVERNOR_CALIB_H
#define HLD_GOVERNOR_CALIB_H

#include <stdint.h>

#include "hl_hrtf.h"
#include "hl_mix_part.h"

/* Renders HLD_GOV_CALIB_VOICES worst-case voices (3D, looping, pitch 1.37
 * with Doppler, cubic, mono noise; binaural when hrtf is given) on a private
 * mixer at rate and period with the engine's output layout (hl_layout.h
 * HL_LAYOUT_*: its buses, post stage and output have the layout's channels,
 * so a surround mix is priced as it runs) and returns the cheapest block's
 * cost per voice in ns (the cheapest: preemption only adds), 0 when out of
 * memory or for an unknown layout. With parts (the daemon's --mix-threads
 * partitions, hl_mix_part.h; NULL: one thread) the private mixer borrows
 * them, so their workers mix with the calling thread as they will with the
 * audio thread, and HLD_GOV_CALIB_VOICES per partition are rendered: the
 * price is the multi-thread one. parts must have HLD_GOV_CALIB_SLOTS slots
 * (else the price is the one-thread one); it is bound to no mixer
 * afterwards (hl_mixer_set_parts it back). *shared (may be NULL) gets the
 * blocks a worker took part in. The calling thread's floating-point mode is
 * the same afterwards (the mixer sets flush-to-zero for its own thread:
 * fp_mode.h). Any thread but the audio thread (it allocates), while the
 * audio thread does not run: the main thread at start-up. */
double hld_governor_calibrate(uint32_t rate, uint32_t period, uint32_t layout, float speed_of_sound,
                              const hl_hrtf_set_t *hrtf, hl_mix_part_t *parts, uint64_t *shared);

#endif /* HLD_GOVERNOR_CALIB_H */
