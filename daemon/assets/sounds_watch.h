/*
 * sounds_watch.h - hot reload of loaded sounds (--watch-assets).
 *
 * One inotify instance (non-blocking) watches the directory of every sound
 * loaded from a file: the load workers add the directory (realpath and
 * inotify_add_watch do path lookups, which stay off the event loop), the
 * loop polls the fd with a uv_poll. IN_CLOSE_WRITE (a file rewritten in
 * place) and IN_MOVED_TO (an editor's write to a temporary name, then
 * rename) mark the sounds whose file it names dirty and (re)start one
 * debounce timer; when it fires every dirty sound is reloaded once, on the
 * load workers (hld_sounds_reload). So a burst of writes reloads once.
 *
 * Why uv_poll on our own inotify fd rather than uv_fs_event: uv_fs_event
 * asks for IN_MODIFY too and reports it as the same UV_CHANGE as a close,
 * so a reload could start on every write() of a half-written file; it also
 * adds each watch on the loop thread (a path lookup), one handle per path.
 * With our own fd the mask is exactly the two events that mean "the file
 * is complete", and the workers add the watches.
 *
 * All functions: main thread.
 */
#ifndef HLD_SOUNDS_WATCH_H
#define HLD_SOUNDS_WATCH_H

#include <stdint.h>
#include <uv.h>

#include "sounds.h"

#define HLD_RELOAD_DEBOUNCE_MS 150 /* quiet time after the last change before reloading */

typedef struct hld_watch {
    hld_sounds_t *sounds;
    int fd; /* the inotify fd, -1: off */
    uv_poll_t poll;
    uv_timer_t timer;
    int open;        /* poll and timer initialised (closed by hld_watch_stop) */
    uint64_t events; /* inotify events that named a watched sound's file */
    uint64_t overflows;
} hld_watch_t;

/* Starts watching for s (sets s->watch and s->watch_fd, so loads from now
 * on are watched). 0, or -1 with a logged reason (then reloads are off). */
int hld_watch_start(hld_watch_t *w, hld_sounds_t *s, uv_loop_t *loop);
/* Closes the loop handles (shutdown: they would keep the loop alive). */
void hld_watch_stop(hld_watch_t *w);
/* After the loop ended and the sounds were closed: closes the fd. */
void hld_watch_close(hld_watch_t *w);

#endif /* HLD_SOUNDS_WATCH_H */
