/*
 * vm_music.h - the beats and markers a logical voice's position model
 * passes through (vm_music.c), one voice at a time: the pool (vm.c) owns
 * the order (a voice's beats by its old model are reported before a SET,
 * seek or end changes it) and walks its voices through these. Main thread
 * only.
 */
#ifndef HLD_VM_MUSIC_H
#define HLD_VM_MUSIC_H

#include <stdint.h>

#include "vm_voice.h"

/* Reports (fn) the beats and markers of v (handle voice; engine rate rate)
 * from its beat_done up to engine frame hi (exclusive) by its model as it
 * stands, and moves beat_done there: nothing unless v is ACTIVE and music
 * (a cue with a tempo map, a sound with markers). */
void vm_music_report(hld_lvoice_t *v, uint64_t voice, uint32_t rate, uint64_t hi, hld_vm_beat_fn fn,
                     void *user);
/* The first beat, bar or marker (what: HLD_VM_NEXT_*, vm.h) of v on an
 * engine frame >= after, by its model as it stands (4 minutes ahead at
 * most): *frame, *beat (a marker: its id; may be NULL). 0, or
 * HELIOD_EINVAL (no tempo map / no marker, paused, or none that soon). */
int vm_music_next(const hld_lvoice_t *v, uint64_t voice, uint32_t rate, uint64_t after, int what,
                  uint64_t *frame, uint64_t *beat);

#endif /* HLD_VM_MUSIC_H */
