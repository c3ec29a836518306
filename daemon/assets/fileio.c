/*
 * fileio.c - the files a request names, read on the file threads under
 * LOAD's rules and the open budget (see fileio.h).
 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "heliod_errors.h"
#include "hld_limits.h"
#include "log.h"
#include "sounds.h"

#define NS_PER_MS 1000000ull

static uint64_t mono_ns(void) { /* the real clock: a render's virtual one stands still */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_async(uv_async_t *a);

void hld_files_init(hld_files_t *f, uv_loop_t *loop) {
    memset(f, 0, sizeof *f);
    f->loop = loop;
    if (uv_mutex_init(&f->lock) != 0) abort(); /* at start-up: nothing to fall back on */
    if (uv_async_init(loop, &f->async, on_async) == 0) {
        f->async.data = f;
        f->async_open = 1;
        uv_unref((uv_handle_t *)&f->async); /* only live jobs keep the loop alive */
    } else {
        hld_warn("file jobs: cannot create their wake-up handle (every file request will fail)");
    }
    /* "MS:TEXT", tests only (decoder.h); HELIOD_TEST_FILE_OPEN_DELAY, when
     * set (even empty: no delay), is the file workers' own */
    const char *td = getenv("HELIOD_TEST_FILE_OPEN_DELAY");
    if (!td) td = getenv("HELIOD_TEST_OPEN_DELAY");
    if (td) {
        char *end = NULL;
        unsigned long ms = strtoul(td, &end, 10);
        if (end && *end == ':' && end[1] && ms > 0 && ms < 600000) {
            f->test_delay_ms = (uint32_t)ms;
            snprintf(f->test_delay_match, sizeof f->test_delay_match, "%s", end + 1);
        }
    }
}

static void job_free(hld_fjob_t *j) {
    if (j->cleanup) j->cleanup(j);
    uv_mutex_destroy(&j->io_lock);
    free(j);
}

/* Live jobs keep the loop running (their done must be called); stuck ones
 * never do. Once stopping with none live, the handle closes. */
static void update_ref(hld_files_t *f) {
    if (!f->async_open) return;
    if (f->stopping && !f->nlive) {
        uv_mutex_lock(&f->lock);
        f->async_open = 0; /* a thread returning from now on frees its own job */
        uv_mutex_unlock(&f->lock);
        uv_close((uv_handle_t *)&f->async, NULL);
        return;
    }
    if (f->nlive)
        uv_ref((uv_handle_t *)&f->async);
    else
        uv_unref((uv_handle_t *)&f->async);
}

void hld_files_stop(hld_files_t *f) {
    f->stopping = 1;
    update_ref(f);
}

void hld_files_close(hld_files_t *f) {
    while (f->queue) {
        hld_fjob_t *j = f->queue;
        f->queue = j->next;
        job_free(j);
    }
    f->queue_tail = NULL;
    uv_mutex_lock(&f->lock);
    f->closed = 1;
    f->async_open = 0;
    hld_fjob_t *d = f->done;
    f->done = NULL;
    uv_mutex_unlock(&f->lock);
    while (d) { /* stuck jobs that came back after the loop stopped */
        hld_fjob_t *n = d->done_next;
        job_free(d);
        d = n;
    }
    /* the lock stays: a stuck thread may still return (f outlives it: it
     * lives as long as the process) */
}

void *hld_fjob_new(size_t size) {
    if (size < sizeof(hld_fjob_t)) size = sizeof(hld_fjob_t);
    hld_fjob_t *j = calloc(1, size);
    if (j && uv_mutex_init(&j->io_lock) != 0) {
        free(j);
        return NULL;
    }
    return j;
}

uint32_t hld_files_pending(const hld_files_t *f) {
    uint32_t n = 0;
    for (const hld_fjob_t *j = f->queue; j; j = j->next)
        n++;
    return n + f->nlive;
}

/* Calls done with (status, msg): the work's once it returned, else the module's. */
static void answer(hld_fjob_t *j, int status, const char *msg) {
    j->answered = 1;
    j->answer_status = status;
    snprintf(j->answer_msg, sizeof j->answer_msg, "%s", msg);
    if (j->done) j->done(j);
}

static void run_list_remove(hld_files_t *f, hld_fjob_t *j) {
    if (j->prev)
        j->prev->next = j->next;
    else
        f->running = j->next;
    if (j->next) j->next->prev = j->prev;
    j->next = j->prev = NULL;
}

/* A file thread: the work, then the job goes back to the main thread (or,
 * once the module is closed, is freed here: nobody waits for it). */
static void *thread_main(void *arg) {
    hld_fjob_t *j = arg;
    hld_files_t *f = j->files;
    j->status = 0;
    j->msg[0] = '\0';
    j->work(j);
    uv_mutex_lock(&f->lock);
    if (f->closed || !f->async_open) {
        uv_mutex_unlock(&f->lock);
        job_free(j); /* a stuck job after shutdown: its result goes nowhere */
        return NULL;
    }
    j->done_next = f->done;
    f->done = j;
    uv_async_send(&f->async);
    uv_mutex_unlock(&f->lock);
    return NULL;
}

static void pump(hld_files_t *f);

static void on_async(uv_async_t *a) {
    hld_files_t *f = a->data;
    uv_mutex_lock(&f->lock);
    hld_fjob_t *d = f->done;
    f->done = NULL;
    uv_mutex_unlock(&f->lock);
    while (d) {
        hld_fjob_t *j = d;
        d = j->done_next;
        run_list_remove(f, j);
        f->threads--;
        if (j->answered) {
            if (f->hung) f->hung--; /* a written-off job came back: its result is dropped */
        } else {
            f->nlive--;
            answer(j, j->status, j->msg); /* the thread is done with them */
        }
        job_free(j);
    }
    pump(f);
    update_ref(f);
}

/* Jobs of process `who` on a thread: *live (not answered), *stuck (written off). */
static void count_of(const hld_files_t *f, uint64_t who, uint32_t *live, uint32_t *stuck) {
    uint32_t l = 0, s = 0;
    for (const hld_fjob_t *r = f->running; r; r = r->next)
        if (r->who == who) {
            l += !r->answered;
            s += r->answered;
        }
    if (live) *live = l;
    if (stuck) *stuck = s;
}

/* Takes j (queued, after prev or at the head) out of the queue. */
static void queue_unlink(hld_files_t *f, hld_fjob_t *prev, hld_fjob_t *j) {
    if (prev)
        prev->next = j->next;
    else
        f->queue = j->next;
    if (f->queue_tail == j) f->queue_tail = prev;
    j->next = j->prev = NULL;
}

static int start_thread(hld_fjob_t *j) {
    if (!j->files->async_open) return -1;
    pthread_attr_t at;
    if (pthread_attr_init(&at) != 0) return -1;
    pthread_t th;
    int rc = pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (rc == 0) rc = pthread_attr_setstacksize(&at, 4u << 20); /* as a pool thread's; virtual */
    if (rc == 0) rc = pthread_create(&th, &at, thread_main, j);
    pthread_attr_destroy(&at);
    return rc == 0 ? 0 : -1;
}

static void pump(hld_files_t *f) {
    while (f->queue && f->nlive < HLD_FILE_JOBS &&
           f->threads < HLD_FILE_JOBS + HLD_FILE_STUCK_MAX) {
        /* the oldest job whose process has room */
        hld_fjob_t *prev = NULL, *j = f->queue;
        for (; j; prev = j, j = j->next) {
            uint32_t live = 0;
            count_of(f, j->who, &live, NULL);
            if (live < HLD_FILE_JOBS_PER_PROC) break;
        }
        if (!j) return;
        queue_unlink(f, prev, j);
        j->running = 1;
        j->next = f->running;
        if (f->running) f->running->prev = j;
        f->running = j;
        if (start_thread(j) != 0) {
            run_list_remove(f, j);
            answer(j, HELIOD_EIO, "cannot start a file thread");
            job_free(j);
            continue;
        }
        f->nlive++;
        f->threads++;
        f->jobs++;
    }
    update_ref(f);
}

void hld_files_submit(hld_files_t *f, hld_fjob_t *j) {
    j->files = f;
    j->queued_ns = mono_ns();
    j->next = NULL;
    uint32_t stuck = 0;
    count_of(f, j->who, NULL, &stuck);
    if (stuck >= HLD_FILE_STUCK_PER_PROC) { /* refused at once, never queued */
        f->refused++;
        char m[HL_MAX_MSG + 1];
        snprintf(m, sizeof m,
                 "%u of this client's file opens are hung past the open budget (at most %d): "
                 "its file requests are refused until one returns",
                 stuck, HLD_FILE_STUCK_PER_PROC);
        answer(j, HELIOD_EBUSY, m);
        job_free(j);
        return;
    }
    if (f->queue_tail)
        f->queue_tail->next = j;
    else
        f->queue = j;
    f->queue_tail = j;
    pump(f);
}

/* Answers ETIMEDOUT the first job of process who queued before `before`
 * (not one a done function queued meanwhile), if any: 1 or 0. */
static int time_out_queued_of(hld_files_t *f, uint64_t who, uint64_t before) {
    for (hld_fjob_t *prev = NULL, *j = f->queue; j; prev = j, j = j->next) {
        if (j->who != who || j->queued_ns > before) continue;
        queue_unlink(f, prev, j);
        f->timeouts++;
        char m[HL_MAX_MSG + 1];
        snprintf(m, sizeof m,
                 "file reads are stuck behind this client's hung opens (none answered within %d s)",
                 HLD_OPEN_TIMEOUT_MS / 1000);
        answer(j, HELIOD_ETIMEDOUT, m); /* its done may queue jobs: the walk starts again */
        job_free(j);
        return 1;
    }
    return 0;
}

void hld_files_tick(hld_files_t *f) {
    if (!f->queue && !f->nlive) return;
    const uint64_t now = mono_ns(), budget = (uint64_t)HLD_OPEN_TIMEOUT_MS * NS_PER_MS;
    for (hld_fjob_t *j = f->running; j; j = j->next) { /* done may add jobs at the head only */
        if (j->answered) continue;
        /* the path is copied under the lock: the worker may be starting its
         * next open (a short critical section on both sides, never an I/O) */
        char path[HL_MAX_PATH + 1];
        uv_mutex_lock(&j->io_lock);
        const uint64_t t = j->io_ns;
        memcpy(path, j->io_path, sizeof path);
        uv_mutex_unlock(&j->io_lock);
        if (!(t && now > t && now - t > budget)) continue;
        /* written off: answered now, its thread left to return on its own
         * (then freed, its result dropped); its place is free at once */
        f->timeouts++;
        f->nlive--;
        f->hung++;
        hld_warn("opening %s: no answer after %d ms (its thread is written off, %u stuck)", path,
                 HLD_OPEN_TIMEOUT_MS, f->hung);
        char m[HL_MAX_MSG + 1];
        snprintf(m, sizeof m, "opening %.200s took longer than the open budget (%d s)", path,
                 HLD_OPEN_TIMEOUT_MS / 1000);
        answer(j, HELIOD_ETIMEDOUT, m); /* the thread keeps status and msg to itself */
        /* what its process queued behind it waited on a hung open too */
        while (time_out_queued_of(f, j->who, now)) {
        }
    }
    /* every thread place stuck: a queued job that waited the budget out
     * cannot start before some hung open returns */
    if (!f->nlive && f->threads >= HLD_FILE_JOBS + HLD_FILE_STUCK_MAX) {
        for (hld_fjob_t *j = f->queue; j; j = f->queue) {
            if (now - j->queued_ns <= budget) break; /* the queue is in arrival order */
            queue_unlink(f, NULL, j);
            f->timeouts++;
            char m[HL_MAX_MSG + 1];
            snprintf(m, sizeof m,
                     "file reads are stuck behind hung opens (none answered within %d s)",
                     HLD_OPEN_TIMEOUT_MS / 1000);
            answer(j, HELIOD_ETIMEDOUT, m);
            job_free(j);
        }
    }
    pump(f);
}

/* ---- worker side ------------------------------------------------------------ */

void hld_fjob_io_begin(hld_fjob_t *j, const char *path) {
    uv_mutex_lock(&j->io_lock);
    snprintf(j->io_path, sizeof j->io_path, "%s", path);
    j->io_ns = mono_ns();
    uv_mutex_unlock(&j->io_lock);
    const hld_files_t *f = j->files;
    if (f->test_delay_ms && strstr(path, f->test_delay_match)) {
        struct timespec ts = {(time_t)(f->test_delay_ms / 1000),
                              (long)(f->test_delay_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
}

void hld_fjob_io_end(hld_fjob_t *j) {
    uv_mutex_lock(&j->io_lock);
    j->io_ns = 0;
    uv_mutex_unlock(&j->io_lock);
}

static int fail(hld_fjob_t *j, int code, const char *fmt, const char *a, const char *b) {
    j->status = code;
    snprintf(j->msg, sizeof j->msg, fmt, a, b);
    return code;
}

int hld_fjob_read(hld_fjob_t *j, const char *path, size_t max, const char *what, char **data,
                  size_t *len) {
    *data = NULL;
    *len = 0;
    if (path[0] != '/')
        return fail(j, HELIOD_EINVAL, "%s %.200s: the path must be absolute", what, path);
    hld_fjob_io_begin(j, path);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        hld_fjob_io_end(j);
        j->status = HELIOD_EFILE;
        snprintf(j->msg, sizeof j->msg, "cannot open %s %.200s: %s", what, path, strerror(e));
        return HELIOD_EFILE;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        hld_fjob_io_end(j);
        close(fd);
        return fail(j, HELIOD_EFILE, "%s %.200s is not a regular file", what, path);
    }
    if ((uint64_t)st.st_size > max) {
        hld_fjob_io_end(j);
        close(fd);
        j->status = HELIOD_ETOOBIG;
        snprintf(j->msg, sizeof j->msg, "%s %.200s is %lld bytes: at most %zu", what, path,
                 (long long)st.st_size, max);
        return HELIOD_ETOOBIG;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        hld_fjob_io_end(j);
        close(fd);
        return fail(j, HELIOD_ENOMEM, "%s%s", "out of memory", "");
    }
    for (;;) { /* it may have grown since the fstat: never past max */
        if (n == cap - 1) {
            if (cap - 1 >= max + 1) break;
            size_t nc = cap * 2 > max + 2 ? max + 2 : cap * 2;
            char *nb = realloc(buf, nc);
            if (!nb) break;
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            hld_fjob_io_end(j);
            close(fd);
            free(buf);
            j->status = HELIOD_EFILE;
            snprintf(j->msg, sizeof j->msg, "cannot read %s %.200s: %s", what, path, strerror(e));
            return HELIOD_EFILE;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    hld_fjob_io_end(j);
    close(fd);
    if (n > max) {
        free(buf);
        j->status = HELIOD_ETOOBIG;
        snprintf(j->msg, sizeof j->msg, "%s %.200s is over %zu bytes", what, path, max);
        return HELIOD_ETOOBIG;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

int hld_fjob_open_sound(hld_fjob_t *j, const char *path, char *msg, size_t cap) {
    if (path[0] != '/') {
        snprintf(msg, cap, "%.200s: the path must be absolute", path);
        return HELIOD_EINVAL;
    }
    hld_fjob_io_begin(j, path);
    int fd = hld_sound_open(path, msg, cap);
    if (fd < 0) hld_fjob_io_end(j);
    return fd;
}
