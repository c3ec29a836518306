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
_Static_assert(HELIOD_SET_VEL == HL_SET_VEL && HELIOD_SUB_VIRTUAL == HL_SUB_VIRTUAL &&
                   HELIOD_EVENT_VIRTUAL == HL_EVENT_VIRTUAL && HELIOD_EVENT_REAL == HL_EVENT_REAL &&
                   HELIOD_END_KILLED == HL_END_KILLED && HELIOD_END_LIFETIME == HL_END_LIFETIME &&
                   HELIOD_END_EVICTED == HL_END_EVICTED &&
                   HELIOD_VIRT_WHY_PAUSED == HL_VIRT_WHY_PAUSED &&
                   HELIOD_VIRT_WHY_GOVERNED == HL_VIRT_WHY_GOVERNED &&
                   HELIOD_VOICE_VPAUSED == HL_VOICE_VPAUSED,
               "voice-management events mirror the wire");
_Static_assert(HELIOD_OVER_PRIORITY == HL_OVER_PRIORITY && HELIOD_OVER_PAN == HL_OVER_PAN &&
                   HELIOD_OVER_DISTANCE == HL_OVER_DISTANCE && HELIOD_EM_POS == HL_EM_POS &&
                   HELIOD_EM_VEL == HL_EM_VEL && HELIOD_EM_DETACHED == HL_EM_DETACHED &&
                   HELIOD_PAUSE_BUS == HL_PAUSE_BUS && HELIOD_PAUSE_CATEGORY == HL_PAUSE_CATEGORY,
               "override, emitter and pause constants mirror the wire");
_Static_assert(HELIOD_OVERFLOW_STEAL_FARTHEST == HL_OVERFLOW_STEAL_FARTHEST &&
                   HELIOD_PICK_SEQUENCE == HL_PICK_SEQUENCE &&
                   HELIOD_BEYOND_CLAMP == HL_BEYOND_CLAMP && HELIOD_VIRT_KILL == HL_VIRT_KILL &&
                   HELIOD_CURVE_LOG == HL_CURVE_LOG && HELIOD_CUE_CUBIC == HL_CUE_CUBIC &&
                   HELIOD_MAX_CUE_SOUNDS == HL_MAX_CUE_SOUNDS,
               "cue enums mirror the wire");
_Static_assert(sizeof(((heliod_cue_t *)0)->sounds[0]) == HL_MAX_NAME + 1, "cue sound name size");

int main(void) {
    return heliod_strerror(HELIOD_EBUSY)[0] ? 0 : 1;
}
