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

int hld_rt_lock_memory(const hld_engine_t *e, const hld_config_t *cfg) {
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
    /* The mixer's memory: voices, buses, scratch. The engine allocated it
     * rounded up to a cache line; the pages of the hl_mixer_size bytes are
     * what the audio thread touches. */
    hl_mixer_config_t mc = {.rate = cfg->rate,
                            .voices = cfg->voices,
                            .cmd_capacity = hld_cmd_ring_for(cfg->voices),
                            .speed_of_sound = cfg->speed_of_sound,
                            .hrtf = e->hrtf != NULL,
                            .layout = cfg->layout};
    size_t bytes = e->mem ? hl_mixer_size(&mc) : 0;
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
