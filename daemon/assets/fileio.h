/*
 * fileio.h - the files a request names (a bank manifest, a zone's bank and
 * its sounds' headers, a cue sheet, a LOAD's sound file), opened and read
 * off the event loop.
 *
 * The event loop never opens a client's file: a FIFO would block it until
 * a writer comes, /dev/zero would keep it reading, a hung network or FUSE
 * mount would stop it for good. A job runs its work function on the libuv
 * worker pool (at most HLD_FILE_JOBS at once, the rest queued in order) and
 * its done function on the main thread. The work opens files only through
 * hld_fjob_read / hld_fjob_open_sound, which apply LOAD's rules: an
 * absolute path, a regular file (a FIFO, device, directory or socket is
 * refused without reading it), a bounded size, and the open budget: an
 * open (or read) still running HLD_OPEN_TIMEOUT_MS after it began is
 * answered ETIMEDOUT (done is called then; the worker's late result is
 * dropped). A job stuck in a hung open keeps its worker thread and its
 * place until the open returns, so hung opens hold at most HLD_FILE_JOBS
 * pool threads; queued jobs that find every place held by a hung open are
 * answered ETIMEDOUT after the same budget.
 *
 * Per process: a job carries whom it works for (`who`, hld_client_who: the
 * requesting client's process), and at most HLD_FILE_JOBS_PER_PROC jobs of
 * one process run at once; the queue starts the oldest job whose process
 * has room. So one process's hung opens hold at most that many places (and
 * pool threads): the other places keep serving everyone else, and its own
 * queued jobs, stuck behind its hung open, are answered ETIMEDOUT after the
 * budget.
 *
 * Test-only hook (shared with decoder.c): HELIOD_TEST_OPEN_DELAY="MS:TEXT"
 * makes every open of a path containing TEXT sleep MS milliseconds first;
 * HELIOD_TEST_FILE_OPEN_DELAY (same form; set but empty: none) overrides it
 * for the file workers alone (a stream's LOAD opens normally, its plays'
 * opens hang).
 *
 * Main thread only, except the hld_fjob_* helpers (the work function's).
 */
#ifndef HLD_FILEIO_H
#define HLD_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "hl_proto.h"

#define HLD_FILE_JOBS          2 /* file jobs on the worker pool at once (the pool has 4 threads) */
#define HLD_FILE_JOBS_PER_PROC 1 /* of those, one process's at once */

struct hld_files;
typedef struct hld_fjob hld_fjob_t;

typedef void (*hld_fjob_fn)(hld_fjob_t *j);

struct hld_fjob {
    /* the caller's, set before hld_files_submit */
    hld_fjob_fn work;    /* worker pool: fills the caller's fields, status and msg */
    hld_fjob_fn done;    /* main thread, exactly once (answer_status: the work's
                          * status, or ETIMEDOUT / ESHUTDOWN); the work's other
                          * results may be read only when answer_status is 0 */
    hld_fjob_fn cleanup; /* main thread: frees what work allocated (may be NULL) */
    uint64_t who;        /* the process it works for (hld_client_who; 0: the daemon) */
    /* the work's result (written by the worker: done reads answer_*) */
    int status;               /* 0 or a negative HELIOD_* code */
    char msg[HL_MAX_MSG + 1]; /* with status < 0 */
    /* what done is called with: the work's result, or the module's own
     * (ETIMEDOUT while the worker may still run, ESHUTDOWN) */
    int answer_status;
    char answer_msg[HL_MAX_MSG + 1];
    /* private */
    uv_work_t req;
    struct hld_files *files;
    hld_fjob_t *next, *prev;
    uv_mutex_t io_lock;            /* io_ns and io_path: the worker sets, the tick reads */
    uint64_t io_ns;                /* monotonic ns the current open began; 0: none */
    char io_path[HL_MAX_PATH + 1]; /* the file being opened */
    uint64_t queued_ns;
    int running, answered;
};

typedef struct hld_files {
    uv_loop_t *loop;
    hld_fjob_t *queue, *queue_tail; /* waiting for a place */
    hld_fjob_t *running;            /* on the pool (answered or not) */
    uint32_t nrunning;
    uint64_t jobs, timeouts; /* STATS: jobs run, opens answered ETIMEDOUT */
    uint32_t hung;           /* STATS: running jobs answered ETIMEDOUT, not yet returned */
    uint32_t test_delay_ms;
    char test_delay_match[64];
} hld_files_t;

void hld_files_init(hld_files_t *f, uv_loop_t *loop);
/* Frees the queued jobs (without calling done). After the loop ran down. */
void hld_files_close(hld_files_t *f);
/* A job of `size` bytes (a struct whose first member is hld_fjob_t),
 * zeroed; NULL when out of memory. The module frees it. */
void *hld_fjob_new(size_t size);
/* Queues j (from hld_fjob_new; work and done set). It owns j from here. */
void hld_files_submit(hld_files_t *f, hld_fjob_t *j);
/* The open budget: answers ETIMEDOUT to opens past it (call every poll tick). */
void hld_files_tick(hld_files_t *f);
/* Jobs queued or running whose done has not been called (STATS
 * file_jobs_pending). */
uint32_t hld_files_pending(const hld_files_t *f);

/* ---- worker side ---- */
/* Reads the whole of path (absolute, a regular file of at most max bytes)
 * into *data (malloc'd, NUL-terminated; *len without the NUL). 0, or a
 * negative code with j->msg set: EINVAL (relative path), EFILE (missing,
 * unreadable, not a regular file), ETOOBIG (over max; `what` names the
 * file's role in the message: "bank manifest", "cue sheet"). */
int hld_fjob_read(hld_fjob_t *j, const char *path, size_t max, const char *what, char **data,
                  size_t *len);
/* hld_sound_open (sounds.h) under the open budget: the fd or a negative
 * code with msg. Call hld_fjob_io_end after reading what is needed. */
int hld_fjob_open_sound(hld_fjob_t *j, const char *path, char *msg, size_t cap);
/* Marks the start and end of I/O that may hang (under the budget). */
void hld_fjob_io_begin(hld_fjob_t *j, const char *path);
void hld_fjob_io_end(hld_fjob_t *j);

#endif /* HLD_FILEIO_H */
