/*
 * sounds_watch.c - hot reload: inotify on the event loop, a debounce timer,
 * reloads on the load workers (see sounds_watch.h).
 */
#include "sounds_watch.h"

#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "log.h"

/* Calls fn for every entry in the table that has a watched file. */
static void each_watched(hld_sounds_t *s, void (*fn)(void *user, hld_sound_t *snd), void *user) {
    for (unsigned b = 0; b < HLD_SOUND_BUCKETS; b++)
        for (hld_sound_t *n = s->buckets[b]; n; n = n->next)
            if (n->wpath && !n->loading) fn(user, n);
}

typedef struct {
    int wd;
    const char *name;
    int hits;
} match_t;

static void mark_match(void *user, hld_sound_t *snd) {
    match_t *m = user;
    if (snd->wd != m->wd) return;
    const char *base = strrchr(snd->wpath, '/');
    if (strcmp(base ? base + 1 : snd->wpath, m->name) != 0) return;
    snd->dirty = 1;
    m->hits++;
}

static void mark_all(void *user, hld_sound_t *snd) {
    (void)user;
    snd->dirty = 1;
}

static void on_timer(uv_timer_t *t) {
    hld_watch_t *w = t->data;
    hld_sounds_t *s = w->sounds;
    /* hld_sounds_reload only queues work: the table changes when a reload
     * completes, never during this walk */
    for (unsigned b = 0; b < HLD_SOUND_BUCKETS; b++)
        for (hld_sound_t *n = s->buckets[b]; n; n = n->next)
            if (n->dirty) {
                n->dirty = 0;
                hld_sounds_reload(s, n);
            }
}

static void on_readable(uv_poll_t *p, int status, int events) {
    hld_watch_t *w = p->data;
    (void)events;
    if (status < 0) {
        hld_warn("--watch-assets: poll failed: %s (reloads stop)", uv_strerror(status));
        uv_poll_stop(p);
        return;
    }
    alignas(struct inotify_event) char buf[16 * (sizeof(struct inotify_event) + NAME_MAX + 1)];
    int hits = 0;
    for (;;) {
        ssize_t n = read(w->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; /* EAGAIN: drained */
        for (char *q = buf; q < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)(void *)q;
            q += sizeof *e + e->len;
            if (e->mask & IN_Q_OVERFLOW) { /* events were lost: reload everything watched */
                w->overflows++;
                each_watched(w->sounds, mark_all, NULL);
                hits++;
                continue;
            }
            if (!(e->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) || !e->len) continue;
            match_t m = {.wd = e->wd, .name = e->name};
            each_watched(w->sounds, mark_match, &m);
            if (m.hits) {
                w->events++;
                hits++;
                hld_debug("--watch-assets: %s changed", e->name);
            }
        }
    }
    if (hits) uv_timer_start(&w->timer, on_timer, HLD_RELOAD_DEBOUNCE_MS, 0); /* restarts it */
}

int hld_watch_start(hld_watch_t *w, hld_sounds_t *s, uv_loop_t *loop) {
    memset(w, 0, sizeof *w);
    w->sounds = s;
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0) {
        hld_warn("--watch-assets: inotify_init1: %s (no hot reload)", strerror(errno));
        return -1;
    }
    if (uv_poll_init(loop, &w->poll, w->fd) != 0 || uv_timer_init(loop, &w->timer) != 0) {
        hld_warn("--watch-assets: cannot poll the inotify fd (no hot reload)");
        close(w->fd);
        w->fd = -1;
        return -1;
    }
    w->poll.data = w;
    w->timer.data = w;
    w->open = 1;
    uv_poll_start(&w->poll, UV_READABLE, on_readable);
    s->watch = w;
    s->watch_fd = w->fd;
    hld_info("--watch-assets: loaded files are reloaded when they change");
    return 0;
}

void hld_watch_stop(hld_watch_t *w) {
    if (!w->open) return;
    w->open = 0;
    uv_poll_stop(&w->poll);
    uv_timer_stop(&w->timer);
    uv_close((uv_handle_t *)&w->poll, NULL);
    uv_close((uv_handle_t *)&w->timer, NULL);
}

void hld_watch_close(hld_watch_t *w) {
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    if (w->sounds) {
        w->sounds->watch = NULL;
        w->sounds->watch_fd = -1;
    }
}
