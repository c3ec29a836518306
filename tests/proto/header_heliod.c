/* header_heliod.c - compiles the installed client header on its own (it must
 * pull in everything it needs) and checks a few of its constants against the
 * wire protocol they mirror. */
#include "heliod.h"

#include "hl_proto.h"

_Static_assert(HELIOD_PLAY_LOOP == HL_PLAY_LOOP && HELIOD_PLAY_3D == HL_PLAY_3D &&
                   HELIOD_PLAY_DETACHED == HL_PLAY_DETACHED && HELIOD_PLAY_PAUSED == HL_PLAY_PAUSED,
               "play flags mirror the wire");
_Static_assert(HELIOD_SET_GAIN == HL_SET_GAIN && HELIOD_SET_PITCH == HL_SET_PITCH,
               "set mask mirrors the wire");
_Static_assert(HELIOD_END_SHUTDOWN == HL_END_SHUTDOWN && HELIOD_EVENT_STARTED == HL_EVENT_STARTED,
               "event codes mirror the wire");
_Static_assert(sizeof(((heliod_sound_info_t *)0)->name) == HL_MAX_NAME + 1, "name size");

int main(void) {
    return heliod_strerror(HELIOD_EBUSY)[0] ? 0 : 1;
}
