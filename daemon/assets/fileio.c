/*
 * fileio.c - the files a request names, read on the worker pool under
 * LOAD's rules and the open budget (see fileio.h).
 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
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

void hld_files_init(hld_files_t *f, uv_loop_t *loop) {
    memset(f, 0, sizeof *f);
    f->loop = loop;
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

void hld_files_close(hld_files_t *f) {
    while (f->queue) {
        hld_fjob_t *j = f->queue;
        f->queue = j->next;
        job_free(j);
    }
    f->queue_tail = NULL;
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
    for (const hld_fjob_t *j = f->running; j; j = j->next)
        n += !j->answered;
    return n;
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

static void work_cb(uv_work_t *req) {
    hld_fjob_t *j = req->data;
    j->status = 0;
    j->msg[0] = '\0';
    j->work(j);
}

static void pump(hld_files_t *f);

static void after_cb(uv_work_t *req, int status) {
    hld_fjob_t *j = req->data;
    hld_files_t *f = j->files;
    run_list_remove(f, j);
    f->nrunning--;
    if (j->answered && f->hung) f->hung--; /* a timed-out job came back */
    if (!j->answered) {
        if (status == UV_ECANCELED)
            answer(j, HELIOD_ESHUTDOWN, "the daemon is shutting down");
        else
            answer(j, j->status, j->msg); /* the worker is done with them */
    }
    job_free(j);
    pump(f);
}

/* Jobs of process `who` running (answered or not); *live: those not answered. */
static uint32_t running_of(const hld_files_t *f, uint64_t who, uint32_t *live) {
    uint32_t n = 0, l = 0;
    for (const hld_fjob_t *r = f->running; r; r = r->next)
        if (r->who == who) {
            n++;
            l += !r->answered;
        }
    if (live) *live = l;
    return n;
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

static void pump(hld_files_t *f) {
    while (f->queue && f->nrunning < HLD_FILE_JOBS) {
        /* the oldest job whose process has room */
        hld_fjob_t *prev = NULL, *j = f->queue;
        while (j && running_of(f, j->who, NULL) >= HLD_FILE_JOBS_PER_PROC) {
            prev = j;
            j = j->next;
        }
        if (!j) return;
        queue_unlink(f, prev, j);
        j->req.data = j;
        if (uv_queue_work(f->loop, &j->req, work_cb, after_cb) != 0) {
            answer(j, HELIOD_EIO, "cannot queue the file job");
            job_free(j);
            continue;
        }
        j->running = 1;
        j->next = f->running;
        if (f->running) f->running->prev = j;
        f->running = j;
        f->nrunning++;
        f->jobs++;
    }
}

void hld_files_submit(hld_files_t *f, hld_fjob_t *j) {
    j->files = f;
    j->queued_ns = mono_ns();
    j->next = NULL;
    if (f->queue_tail)
        f->queue_tail->next = j;
    else
        f->queue = j;
    f->queue_tail = j;
    pump(f);
}

void hld_files_tick(hld_files_t *f) {
    if (!f->queue && !f->running) return;
    const uint64_t now = mono_ns(), budget = (uint64_t)HLD_OPEN_TIMEOUT_MS * NS_PER_MS;
    uint32_t live = 0;
    for (hld_fjob_t *j = f->running; j; j = j->next) {
        if (j->answered) continue;
        /* the path is copied under the lock: the worker may be starting its
         * next open (a short critical section on both sides, never an I/O) */
        char path[HL_MAX_PATH + 1];
        uv_mutex_lock(&j->io_lock);
        const uint64_t t = j->io_ns;
        memcpy(path, j->io_path, sizeof path);
        uv_mutex_unlock(&j->io_lock);
        if (t && now > t && now - t > budget) {
            f->timeouts++;
            hld_warn("opening %s: no answer after %d ms (its worker is left to it)", path,
                     HLD_OPEN_TIMEOUT_MS);
            char m[HL_MAX_MSG + 1];
            snprintf(m, sizeof m, "opening %.200s took longer than the open budget (%d s)", path,
                     HLD_OPEN_TIMEOUT_MS / 1000);
            f->hung++;
            answer(j, HELIOD_ETIMEDOUT, m); /* the worker keeps status and msg to itself */
            continue;
        }
        live++;
    }
    /* a queued job that cannot start because hung opens hold the places it
     * may use (every place, or its own process's share) times out too */
    for (hld_fjob_t *prev = NULL, *j = f->queue, *next; j; j = next) {
        next = j->next;
        uint32_t mine_live = 0;
        uint32_t mine = running_of(f, j->who, &mine_live);
        int all_hung = f->nrunning >= HLD_FILE_JOBS && !live;
        int own_hung = mine >= HLD_FILE_JOBS_PER_PROC && !mine_live;
        if (!(all_hung || own_hung) || now - j->queued_ns <= budget) {
            prev = j;
            continue;
        }
        queue_unlink(f, prev, j);
        f->timeouts++;
        char m[HL_MAX_MSG + 1];
        snprintf(m, sizeof m,
                 own_hung ? "file reads are stuck behind this client's hung opens (none answered "
                            "within %d s)"
                          : "file reads are stuck behind hung opens (none answered within %d s)",
                 HLD_OPEN_TIMEOUT_MS / 1000);
        answer(j, HELIOD_ETIMEDOUT, m); /* its done may queue or start jobs: */
        job_free(j);
        prev = NULL; /* walk the queue again from its head */
        next = f->queue;
    }
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
