/*
 * rt_prep.c - memory locking for the audio path (see rt_prep.h).
 */
#include "rt_prep.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "hl_mixer.h"
#include "log.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HLD_SANITIZED 1 /* shadow memory is terabytes of reserved address space */
#else
#define HLD_SANITIZED 0
#endif

int hld_rt_lock_memory(const hld_engine_t *e) {
    if (HLD_SANITIZED) {
        hld_info("memory not locked: sanitizer build");
        return 0;
    }
    struct rlimit rl = {0, 0};
    getrlimit(RLIMIT_MEMLOCK, &rl);
    if (rl.rlim_cur == RLIM_INFINITY) {
        if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
            hld_info("memory locked: mlockall(MCL_CURRENT | MCL_FUTURE)");
            return 1;
        }
        hld_info("mlockall failed (%s): locking the audio buffers only", strerror(errno));
    }
    /* The mixer's memory: voices, buses, scratch, as the engine allocated it
     * (hld_engine_open: the mixer's size rounded up to a cache line). */
    size_t bytes = e->mem ? e->mem_bytes : 0;
    int ok = bytes && mlock(e->mem, bytes) == 0;
    /* the HRTF set (read by every binaural voice's filter build) */
    if (ok && e->hrtf) ok = mlock(e->hrtf_mem, hl_hrtf_set_size(e->hrtf->n_az, e->hrtf->n_el)) == 0;
    int err = errno;
    if (rl.rlim_cur != RLIM_INFINITY)
        hld_info("RLIMIT_MEMLOCK is %llu KiB, not unlimited: no mlockall; mixer memory "
                 "(%zu KiB) %s%s%s, record ring locked by the recorder where it fits",
                 (unsigned long long)(rl.rlim_cur / 1024), bytes / 1024,
                 ok ? "locked" : "not locked (", ok ? "" : strerror(err), ok ? "" : ")");
    return 0;
}
