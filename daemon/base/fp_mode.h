/*
 * fp_mode.h - save and restore a thread's floating-point mode around a call
 * of the mixer off the audio thread. hl_mixer_process_rt sets flush-to-zero
 * and denormals-are-zero (MXCSR on x86) for the thread that calls it, which
 * is what the audio thread wants and no other thread does: the main thread's
 * start-up calibration (governor_calib.c) and the device worker's catch-up
 * render (engine.c) put back what they had. Elsewhere the mixer changes no FP
 * mode and these do nothing. Any thread.
 */
#ifndef HLD_FP_MODE_H
#define HLD_FP_MODE_H

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
typedef struct {
    unsigned int mxcsr;
} hld_fp_mode_t;
static inline hld_fp_mode_t hld_fp_mode_save(void) {
    return (hld_fp_mode_t){_mm_getcsr()};
}
static inline void hld_fp_mode_restore(hld_fp_mode_t m) {
    _mm_setcsr(m.mxcsr);
}
#else
typedef struct {
    int unused;
} hld_fp_mode_t;
static inline hld_fp_mode_t hld_fp_mode_save(void) {
    return (hld_fp_mode_t){0};
}
static inline void hld_fp_mode_restore(hld_fp_mode_t m) {
    (void)m;
}
#endif

#endif /* HLD_FP_MODE_H */
