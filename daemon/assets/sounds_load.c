/*
 * sounds_load.c - the sound table's threadpool loader (see sounds.h): LOAD,
 * LOAD_DATA, LOAD_FD and the hot reload of --watch-assets.
 *
 * The worker thread owns only its job: it opens, decodes, downmixes and
 * resamples into freshly allocated memory and reports a status and message.
 * Everything that touches the table (limits, insertion, removal) happens in
 * the completion on the main thread.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "banks.h"
#include "fileio.h"
#include "hl_limits.h"
#include "hld_limits.h"
#include "log.h"
#include "sounds.h"
#include "sounds_int.h"

#define HLD_DECODE_NICE 10 /* decode workers below the event loop (nice 0) */

typedef struct {
    uv_work_t req;
    hld_sounds_t *s;
    hld_sound_t *snd; /* the placeholder */
    char path[HL_MAX_PATH + 1];
    uint64_t off, len; /* a pack file's range (0, 0: the whole file) */
    int compressed;    /* HL_LOAD_COMPRESSED: keep the encoded bytes (d.blob) */
    hld_load_done_fn done;
    void *user;
    hld_decode_t d; /* the decode and its results */
    int retried;    /* went round once more after an eviction */
    /* an upload (LOAD_DATA): the encoded file in memory, decoded through
     * libsndfile's virtual I/O; freed, and its reservation given back, when
     * the decode is done */
    uint8_t *mem;
    size_t mem_len;
    uint64_t mem_reserved;
    /* an upload as a descriptor (LOAD_FD): read with pread through the same
     * virtual I/O (mem_len: its declared size); closed
     * by the completion. -1: none */
    int fd;
    /* a LOAD's file, opened on the file workers (open_job_t) before the
     * decode is queued: read from the start with each decode try (an
     * eviction's retry too); closed by the completion. -1: none */
    int pfd;
    /* --watch-assets: the worker's realpath of the file and the inotify
     * watch it added for its directory (wpath NULL, wd -1: not watched) */
    char *wpath;
    int wd;
    /* a hot reload (snd NULL): the entry it is for, found again by name and
     * generation when it completes (it may have been unloaded meanwhile) */
    int reload;
    uint32_t rns;
    char rname[HL_MAX_NAME + 1];
    uint64_t rgen;
    hld_client_t *rcl;
} load_job_t;

static void watch_add(load_job_t *j) {
    int fd = j->s->watch_fd;
    if (fd < 0 || j->reload) return;
    char *rp = realpath(j->path, NULL);
    if (!rp) return;
    char *slash = strrchr(rp, '/');
    if (!slash || !slash[1]) {
        free(rp);
        return;
    }
    *slash = '\0';
    int wd =
        inotify_add_watch(fd, slash == rp ? "/" : rp, IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR);
    *slash = '/';
    if (wd < 0) {
        hld_warn("--watch-assets: cannot watch the directory of %s: %s", rp, strerror(errno));
        free(rp);
        return;
    }
    j->wpath = rp;
    j->wd = wd;
}

/* ---- worker side ---------------------------------------------------------- */

/* A decode worker runs at a lower priority than the event loop (nice +10,
 * this thread only): a big bank decoding on every core must not delay the
 * loop's replies (the audio thread is SCHED_FIFO and unaffected either way). */
static void lower_priority_once(void) {
    static _Thread_local int done;
    if (done) return;
    done = 1;
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), HLD_DECODE_NICE);
}

static void load_work(uv_work_t *req) {
    lower_priority_once();
    load_job_t *j = req->data;
    hld_decode_t *d = &j->d;
    char m[HL_MAX_MSG + 1];
    if (j->fd >= 0) { /* LOAD_FD: what the descriptor is, checked before reading it */
        struct stat st;
        if (fstat(j->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            hld_decode_fail(d, HELIOD_EINVAL, "%s",
                            "the descriptor is not a regular file (send a memfd or a file)");
            return;
        }
        if ((uint64_t)st.st_size != (uint64_t)j->mem_len) {
            snprintf(m, sizeof m, "the descriptor holds %lld bytes, the frame said %zu",
                     (long long)st.st_size, j->mem_len);
            hld_decode_fail(d, HELIOD_EINVAL, "%s", m);
            return;
        }
    }
    if (j->mem || j->fd >= 0) {
        hld_decode_upload(d, j->mem, j->fd, j->mem_len);
        return;
    }
    if (j->pfd >= 0 && j->compressed) /* opened under the open budget (open_job_t) */
        hld_decode_compressed_fd(d, j->pfd, j->path, j->off, j->len);
    else if (j->pfd >= 0)
        hld_decode_fd_range(d, j->pfd, j->path, j->off, j->len);
    else if (j->compressed)
        hld_decode_compressed(d, j->path, j->off, j->len);
    else
        hld_decode_path_range(d, j->path, j->off, j->len);
    if (d->status == 0) watch_add(j);
}

/* The bytes an entry holds of a decode: a preloaded sound keeps its
 * reservation (exactly its PCM), a compressed one its encoded bytes, a
 * streamed one none. */
static size_t decode_bytes(const hld_decode_t *d) {
    return d->blob     ? (size_t)d->reserved
           : d->stream ? 0
                       : (size_t)d->frames * d->channels * sizeof(float);
}

/* Moves a successful decode's results into its entry: the PCM (the decode
 * zeroed every non-finite sample), the encoded bytes, the markers. */
static void take_decode(hld_sound_t *snd, hld_decode_t *d) {
    snd->pcm.data = d->data;
    snd->pcm.frames = d->frames;
    snd->pcm.channels = d->channels;
    snd->pcm.finite = 1;
    snd->source_rate = d->source_rate;
    snd->src_frames = d->src_frames ? d->src_frames : d->frames;
    snd->src_channels = d->src_channels ? d->src_channels : d->channels;
    snd->bytes = decode_bytes(d);
    snd->blob = d->blob;
    d->blob = NULL;
    snd->markers = d->markers;
    snd->nmarkers = d->nmarkers;
    d->markers = NULL;
}

/* The decode a job asks of the table: its rate and layout, the table's
 * memory budget, charged to quota (a load and a hot reload alike). */
static void decode_for(load_job_t *j, hld_sounds_t *s, int stream, hld_client_t *quota) {
    j->d.stream = stream;
    j->d.rate = s->rate;
    j->d.layout = s->layout;
    j->d.budget = s;
    j->d.quota = quota;
}

static void load_work(uv_work_t *req);
static void load_after(uv_work_t *req, int status);

/* Queues a job again after an eviction made room: 0 or -1. */
static int requeue(load_job_t *j) {
    hld_decode_t keep = j->d;
    memset(&j->d, 0, sizeof j->d);
    j->d.stream = keep.stream;
    j->d.rate = keep.rate;
    j->d.layout = keep.layout;
    j->d.budget = keep.budget;
    j->d.quota = keep.quota;
    j->d.cancel = keep.cancel;
    j->retried = 1;
    if (uv_queue_work(j->s->loop, &j->req, load_work, load_after) != 0) {
        j->d = keep;
        return -1;
    }
    j->s->inflight++;
    return 0;
}

static void reload_after(load_job_t *j, int status);

static void load_after(uv_work_t *req, int status) {
    load_job_t *j = req->data;
    if (j->reload) {
        reload_after(j, status);
        return;
    }
    hld_decode_t *d = &j->d;
    hld_sounds_t *s = j->s;
    hld_sound_t *snd = j->snd;
    hld_client_t *cl = snd->cl;
    s->inflight--;
    if (status == UV_ECANCELED)
        hld_decode_fail(d, HELIOD_ESHUTDOWN, "%s", "daemon is shutting down");
    size_t bytes = decode_bytes(d);
    if (d->status == 0 && d->reserved != bytes) hld_decode_unreserve(d, d->reserved - bytes);
    hld_sounds_table_remove(s, snd);
    if (d->status == 0) {
        take_decode(snd, d);
        snd->loading = 0;
        if (j->wpath && hld_sounds_wdir_ref(s, j->wd) == 0) {
            snd->wpath = j->wpath; /* watched: its file's changes reload it */
            snd->wd = j->wd;
            j->wpath = NULL;
        }
        hld_sounds_table_insert(s, snd);
        s->bytes += bytes;
        if (d->nonfinite)
            hld_warn("sound %s: %llu samples non-finite (zeroed) or beyond +-%g (clipped)",
                     snd->name, (unsigned long long)d->nonfinite, (double)HLD_MAX_SAMPLE);
        hld_debug("loaded %s: %u frames, %u ch, %u Hz", snd->name, d->frames, d->channels,
                  d->source_rate);
        j->done(j->user, 0, NULL, snd);
        if (snd->orphan) hld_sounds_drop_entry(s, snd); /* its client left while it decoded */
    } else if (d->status == HELIOD_ENOMEM && d->wanted && !j->retried && !snd->orphan &&
               !atomic_load_explicit(&snd->cancel, memory_order_relaxed) &&
               hld_sounds_evict(s, d->wanted, cl) > 0 && requeue(j) == 0) {
        /* the budget made room by evicting least recently played sounds:
         * one more try (the placeholder stays; the job goes round again) */
        hld_sounds_table_insert(s, snd);
        return;
    } else {
        hld_decode_unreserve(d, d->reserved);
        s->loads_failed++;
        if (d->status == HELIOD_EQUOTA && cl) hld_client_refused(cl, HLD_QUOTA_BYTES);
        hld_info("load %s failed: %s", snd->name, d->msg);
        j->done(j->user, d->status, d->msg, NULL);
        snd->bytes = 0;
        hld_sound_free(snd);
    }
    if (cl) hld_client_load_ended(cl); /* after the entry: a gone client's record may go */
    if (j->mem) {
        free(j->mem);
        hld_sounds_unreserve(s, j->mem_reserved);
    }
    if (j->fd >= 0) close(j->fd);
    if (j->pfd >= 0) close(j->pfd);
    free(j->wpath);
    free(j->d.markers);
    free(j);
}

/* ---- a LOAD's open on the file workers ------------------------------------
 * The file a LOAD names is opened by a file job (fileio.h): the open budget
 * answers a hung open ETIMEDOUT (the load fails with it), and one process's
 * hung opens hold at most its share of the file workers, never the decode
 * threads every other client's loads need. The decode is queued once the
 * file is open. */
typedef struct {
    hld_fjob_t j;   /* first */
    load_job_t *lj; /* main thread only: the worker reads path and writes fd */
    char path[HL_MAX_PATH + 1];
    int fd;
} open_job_t;

static void open_work(hld_fjob_t *fj) {
    open_job_t *o = (open_job_t *)fj;
    int fd = hld_fjob_open_sound(fj, o->path, fj->msg, sizeof fj->msg);
    if (fd < 0) {
        fj->status = fd;
        return;
    }
    hld_fjob_io_end(fj);
    o->fd = fd;
}

static void open_done(hld_fjob_t *fj) {
    open_job_t *o = (open_job_t *)fj;
    load_job_t *j = o->lj;
    int st = fj->answer_status;
    const char *msg = fj->answer_msg;
    if (st == 0 && j->snd && atomic_load_explicit(&j->snd->cancel, memory_order_relaxed))
        st = HELIOD_ECANCELED, msg = "load cancelled";
    if (st == 0) {
        j->pfd = o->fd;
        o->fd = -1;
        if (uv_queue_work(j->s->loop, &j->req, load_work, load_after) == 0) return;
        st = HELIOD_EIO, msg = "cannot queue the decode job";
    }
    hld_decode_fail(&j->d, st, "%s", msg);
    load_after(&j->req, 0); /* the load fails as a decode would */
}

static void open_cleanup(hld_fjob_t *fj) {
    open_job_t *o = (open_job_t *)fj;
    if (o->fd >= 0) close(o->fd); /* answered ETIMEDOUT, then the open came back */
}

/* The file job that opens path for j (charged to who) and then queues its
 * decode; NULL: out of memory. */
static open_job_t *open_job_new(load_job_t *j, const char *path, uint64_t who) {
    open_job_t *o = hld_fjob_new(sizeof *o);
    if (!o) return NULL;
    o->lj = j;
    o->fd = -1;
    snprintf(o->path, sizeof o->path, "%s", path);
    o->j.work = open_work;
    o->j.done = open_done;
    o->j.cleanup = open_cleanup;
    o->j.who = who;
    return o;
}

/* ---- hot reload (--watch-assets) ----------------------------------------- */

void hld_sounds_reload(hld_sounds_t *s, hld_sound_t *snd) {
    if (snd->loading || snd->retired || snd->orphan) return;
    if (snd->reloading) {
        snd->reload_again = 1; /* changed again while it decodes: once more after */
        return;
    }
    const char *path = snd->stream ? snd->path : snd->wpath;
    if (!path) return;
    load_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        s->reload_failures++;
        if (s->reload_done) s->reload_done(s->reload_user, snd, HELIOD_ENOMEM, "out of memory");
        return;
    }
    snprintf(j->path, sizeof j->path, "%s", path);
    j->s = s;
    j->reload = 1;
    j->rns = snd->ns;
    snprintf(j->rname, sizeof j->rname, "%s", snd->name);
    j->rgen = snd->gen;
    j->rcl = snd->cl;
    j->wd = -1;
    j->fd = -1;
    j->pfd = -1;
    decode_for(j, s, snd->stream, snd->cl); /* old and new data both count while both live */
    j->off = snd->off;
    j->len = snd->len;
    j->compressed = snd->blob != NULL;
    j->req.data = j;
    /* the file is opened by a file job first, as a LOAD's: under the open
     * budget and its process's places (a path swapped for a FIFO or a hung
     * mount after the load never holds a decode thread) */
    open_job_t *o = s->files ? open_job_new(j, path, snd->cl ? hld_client_who(snd->cl) : 0) : NULL;
    if (s->files ? !o : uv_queue_work(s->loop, &j->req, load_work, load_after) != 0) {
        free(j);
        s->reload_failures++;
        if (s->reload_done)
            s->reload_done(s->reload_user, snd, HELIOD_EIO, "cannot queue the decode job");
        return;
    }
    snd->reloading = 1;
    s->inflight++;
    if (snd->cl) hld_client_load_started(snd->cl); /* keeps the quota's record alive */
    if (o) hld_files_submit(s->files, &o->j);      /* last: a refusal answers at once */
}

/* The reload's entry: it takes over the table place of old. */
static hld_sound_t *reload_entry(hld_sounds_t *s, const hld_sound_t *old, hld_decode_t *d) {
    hld_sound_t *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    /* what the sound is carries over (its name, owner, flags, range, place
     * in the budget); its data is the decode's */
    *n = (hld_sound_t){.owner = s,
                       .ns = old->ns,
                       .loader = old->loader,
                       .cl = old->cl,
                       .flags = old->flags,
                       .stream = old->stream,
                       .off = old->off,
                       .len = old->len,
                       .pinned = old->pinned,
                       .last_used = old->last_used,
                       .bank = old->bank,
                       .wd = -1};
    if (old->path && !(n->path = strdup(old->path))) goto fail;
    if (old->src && !(n->src = strdup(old->src))) goto fail;
    if (old->wpath && !(n->wpath = strdup(old->wpath))) goto fail;
    if (old->wd >= 0 && hld_sounds_wdir_ref(s, old->wd) != 0) goto fail;
    n->wd = old->wd;
    memcpy(n->name, old->name, sizeof n->name);
    n->gen = ++s->gen_clock;
    take_decode(n, d);
    return n;
fail:
    free(n->path);
    free(n->src);
    free(n->wpath);
    free(n);
    return NULL;
}

static void reload_after(load_job_t *j, int status) {
    hld_decode_t *d = &j->d;
    hld_sounds_t *s = j->s;
    s->inflight--;
    if (status == UV_ECANCELED)
        hld_decode_fail(d, HELIOD_ESHUTDOWN, "%s", "daemon is shutting down");
    hld_sound_t *old = hld_sounds_find(s, j->rns, j->rname);
    if (!old || old->gen != j->rgen || old->orphan || old->loading) {
        /* unloaded (or replaced, or its client left) while it decoded:
         * its data goes (hld_decode_fail lets go of all a decode holds) */
        hld_decode_fail(d, HELIOD_ECANCELED, "%s", "unloaded while it decoded");
    } else {
        old->reloading = 0;
        hld_sound_t *n = d->status == 0 ? reload_entry(s, old, d) : NULL;
        if (d->status == 0 && !n) hld_decode_fail(d, HELIOD_ENOMEM, "%s", "out of memory");
        if (!n) {
            s->reload_failures++;
            hld_warn("reload %s failed, the old data stays: %s", old->name, d->msg);
            if (s->reload_done) s->reload_done(s->reload_user, old, d->status, d->msg);
            if (old->reload_again) {
                old->reload_again = 0;
                hld_sounds_reload(s, old);
            }
        } else {
            if (d->reserved != n->bytes) hld_decode_unreserve(d, d->reserved - n->bytes);
            int again = old->reload_again;
            hld_sound_t *place = old->lru_prev; /* the new entry takes the old one's place */
            hld_sounds_table_remove(s, old);
            hld_sounds_table_insert(s, n);
            hld_sounds_lru_unlink(s, n);
            hld_sounds_lru_link_after(s, n, place);
            s->bytes += n->bytes;
            if (n->cl) hld_client_sound_added(n->cl);
            if (n->bank) { /* its bank's size follows (an unloading bank recounts) */
                uint64_t *kb = &n->bank->bytes;
                *kb = *kb >= old->bytes ? *kb - old->bytes + n->bytes : n->bytes;
            }
            old->bank = NULL; /* the bank knows its sounds by name: this is no longer one */
            old->retired = 1;
            old->retired_next = s->retired;
            s->retired = old;
            s->nretired++;
            s->reloads++;
            hld_info("reloaded %s: %u frames, %u ch, %u Hz (%llu bytes; the old data stays "
                     "while voices use it)",
                     n->name, n->pcm.frames, n->pcm.channels, n->source_rate,
                     (unsigned long long)n->bytes);
            if (d->nonfinite)
                hld_warn("sound %s: %llu samples non-finite (zeroed) or beyond +-%g (clipped)",
                         n->name, (unsigned long long)d->nonfinite, (double)HLD_MAX_SAMPLE);
            hld_sounds_release(s, old); /* freed now if no voice uses it */
            if (s->reload_done) s->reload_done(s->reload_user, n, 0, NULL);
            if (again) hld_sounds_reload(s, n);
        }
    }
    if (j->rcl) hld_client_load_ended(j->rcl);
    if (j->pfd >= 0) close(j->pfd);
    free(j->wpath);
    free(j->d.markers);
    free(j);
}

static int start_load(hld_sounds_t *s, hld_client_t *cl, uint64_t who, const char *name,
                      const char *path, uint64_t off, uint64_t len, uint8_t *mem, size_t mem_len,
                      uint64_t mem_reserved, int fd, uint32_t flags, hld_load_done_fn done,
                      void *user, char *msg, size_t cap);

int hld_sounds_load(hld_sounds_t *s, hld_client_t *cl, const char *name, const char *path,
                    uint32_t flags, hld_load_done_fn done, void *user, char *msg, size_t cap) {
    return start_load(s, cl, hld_client_who(cl), name, path, 0, 0, NULL, 0, 0, -1, flags, done,
                      user, msg, cap);
}

int hld_sounds_load_for(hld_sounds_t *s, hld_client_t *cl, uint64_t who, const char *name,
                        const char *path, uint32_t flags, hld_load_done_fn done, void *user,
                        char *msg, size_t cap) {
    return start_load(s, cl, who, name, path, 0, 0, NULL, 0, 0, -1, flags, done, user, msg, cap);
}

int hld_sounds_load_range_for(hld_sounds_t *s, hld_client_t *cl, uint64_t who, const char *name,
                              const char *path, uint64_t off, uint64_t len, uint32_t flags,
                              hld_load_done_fn done, void *user, char *msg, size_t cap) {
    if (off + len < off) {
        snprintf(msg, cap, "range: offset %llu + length %llu overflows", (unsigned long long)off,
                 (unsigned long long)len);
        return HELIOD_EINVAL;
    }
    return start_load(s, cl, who, name, path, off, len, NULL, 0, 0, -1, flags, done, user, msg,
                      cap);
}

int hld_sounds_load_range(hld_sounds_t *s, hld_client_t *cl, const char *name, const char *path,
                          uint64_t off, uint64_t len, uint32_t flags, hld_load_done_fn done,
                          void *user, char *msg, size_t cap) {
    return hld_sounds_load_range_for(s, cl, hld_client_who(cl), name, path, off, len, flags, done,
                                     user, msg, cap);
}

int hld_sounds_load_mem(hld_sounds_t *s, hld_client_t *cl, const char *name, uint8_t *mem,
                        size_t len, uint64_t reserved, uint32_t flags, hld_load_done_fn done,
                        void *user, char *msg, size_t cap) {
    if (flags & (HL_LOAD_STREAM | HL_LOAD_COMPRESSED)) {
        snprintf(msg, cap, "an uploaded sound is preloaded, not streamed");
        return HELIOD_EINVAL;
    }
    return start_load(s, cl, 0, name, "(upload)", 0, 0, mem, len, reserved, -1, flags, done, user,
                      msg, cap);
}

int hld_sounds_load_fd(hld_sounds_t *s, hld_client_t *cl, const char *name, int fd, size_t size,
                       uint32_t flags, hld_load_done_fn done, void *user, char *msg, size_t cap) {
    if (flags & (HL_LOAD_STREAM | HL_LOAD_COMPRESSED)) {
        snprintf(msg, cap, "an uploaded sound is preloaded, not streamed");
        return HELIOD_EINVAL;
    }
    return start_load(s, cl, 0, name, "(upload)", 0, 0, NULL, size, 0, fd, flags, done, user, msg,
                      cap);
}

static int start_load(hld_sounds_t *s, hld_client_t *cl, uint64_t who, const char *name,
                      const char *path, uint64_t off, uint64_t len, uint8_t *mem, size_t mem_len,
                      uint64_t mem_reserved, int fd, uint32_t flags, hld_load_done_fn done,
                      void *user, char *msg, size_t cap) {
#define FAIL(code, ...) return snprintf(msg, cap, __VA_ARGS__), (code)
    if (!hl_name_valid(name))
        FAIL(HELIOD_ENAME, "sound names are 1..63 characters of A-Z a-z 0-9 _ . -");
    int bank = (flags & HLD_LOAD_BANK) != 0;
    flags &= ~HLD_LOAD_BANK;
    if (flags & ~(uint32_t)HL_LOAD_MASK) FAIL(HELIOD_EINVAL, "unknown load flags");
    int compressed = (flags & HL_LOAD_COMPRESSED) != 0;
    if (compressed && (flags & HL_LOAD_STREAM))
        FAIL(HELIOD_EINVAL, "flags: a sound is streamed from disk or kept compressed, not both");
    if (!path[0]) FAIL(HELIOD_EINVAL, "empty path");
    uint32_t ns = (flags & HL_LOAD_SHARED) || !cl ? 0 : cl->id;
    if (hld_sounds_find(s, ns, name))
        FAIL(HELIOD_EEXIST, "a %s sound named %s is already loaded", ns ? "private" : "shared",
             name);
    if (s->count >= HL_MAX_SOUNDS) FAIL(HELIOD_ENOMEM, "too many sounds loaded");
    if (!(flags & HL_LOAD_STREAM) &&
        atomic_load_explicit(&s->committed, memory_order_relaxed) >= s->max_bytes &&
        hld_sounds_evict(s, 1, cl) == 0)
        FAIL(HELIOD_ENOMEM, "over the sample memory limit (--max-sample-mb), nothing evictable");
    if (s->inflight >= HL_MAX_LOADS_INFLIGHT)
        FAIL(HELIOD_EBUSY, "too many loads in progress, try again");
    if (cl) {
        int rc = bank ? hld_client_check_bytes(cl, msg, cap) : hld_client_check_load(cl, msg, cap);
        if (rc < 0) return rc;
    }
    load_job_t *j = calloc(1, sizeof *j);
    hld_sound_t *snd = calloc(1, sizeof *snd);
    if (!j || !snd) {
        free(j);
        free(snd);
        FAIL(HELIOD_ENOMEM, "out of memory");
    }
    snprintf(snd->name, sizeof snd->name, "%s", name);
    snd->ns = ns;
    snd->loader = cl ? cl->id : 0;
    snd->loading = 1;
    snd->flags = flags | (ns ? 0 : HL_LOAD_SHARED);
    snd->stream = (flags & (HL_LOAD_STREAM | HL_LOAD_COMPRESSED)) != 0;
    snd->off = off;
    snd->len = len;
    snd->path = snd->stream ? strdup(path) : NULL;
    snd->src = !mem && fd < 0 ? strdup(path) : NULL;
    if ((snd->stream && !snd->path) || (!mem && fd < 0 && !snd->src)) {
        free(j);
        free(snd->path);
        free(snd->src);
        free(snd);
        FAIL(HELIOD_ENOMEM, "out of memory");
    }
    snd->owner = s;
    snd->gen = ++s->gen_clock;
    snd->wd = -1;
    j->wd = -1;
    decode_for(j, s, snd->stream, cl);
    j->d.cancel = &snd->cancel;
    snd->pinned = (flags & HL_LOAD_PIN) != 0;
    snprintf(j->path, sizeof j->path, "%s", path);
    j->off = off;
    j->len = len;
    j->compressed = compressed;
    j->s = s;
    j->snd = snd;
    j->done = done;
    j->user = user;
    j->mem = mem;
    j->mem_len = mem_len;
    j->mem_reserved = mem_reserved;
    j->fd = fd;
    j->pfd = -1;
    j->req.data = j;
    open_job_t *o = NULL;
    int qrc;
    if (!mem && fd < 0 && s->files) { /* a file: opened on the file workers first */
        o = open_job_new(j, path, who);
        qrc = o ? 0 : -1;
    } else {
        qrc = uv_queue_work(s->loop, &j->req, load_work, load_after);
    }
    if (qrc != 0) {
        free(j);
        free(snd->path);
        free(snd->src);
        free(snd);
        FAIL(HELIOD_EIO, "cannot queue the decode job");
    }
#undef FAIL
    if (cl) {
        snd->cl = cl;
        hld_client_sound_added(cl);
        hld_client_load_started(cl);
    }
    hld_sounds_table_insert(s, snd);
    s->inflight++;
    if (o) hld_files_submit(s->files, &o->j); /* last: a failure to queue answers at once */
    return 0;
}
