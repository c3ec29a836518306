/*
 * fileio.h - the files a request names (a bank manifest, a zone's bank and
 * its sounds' headers, a cue sheet, a LOAD's sound file), opened and read
 * off the event loop.
 *
 * The event loop never opens a client's file: a FIFO would block it until
 * a writer comes, /dev/zero would keep it reading, a hung network or FUSE
 * mount would stop it for good. A job runs its work function on a thread of
 * its own (the file threads: never libuv's pool, which the decodes use) and
 * its done function on the main thread. The work opens files only through
 * hld_fjob_read / hld_fjob_open_sound, which apply LOAD's rules: an
 * absolute path, a regular file (a FIFO, device, directory or socket is
 * refused without reading it), a bounded size, and the open budget.
 *
 * Places: at most HLD_FILE_JOBS jobs run at once ("live"), at most
 * HLD_FILE_JOBS_PER_PROC of one process (`who`, hld_client_who: the
 * requesting client's process); the queue starts the oldest job whose
 * process has room.
 *
 * The open budget: a hung open() cannot be cancelled, so an open (or read)
 * still running HLD_OPEN_TIMEOUT_MS after it began is written off: its job
 * is answered ETIMEDOUT (done is called then), its thread is left to finish
 * on its own ("stuck": its late result is discarded and the job freed when
 * it returns) and its place goes to the next job at once, on a new thread.
 * The jobs its process had queued behind it are answered ETIMEDOUT with it.
 * Stuck threads are capped: at most HLD_FILE_STUCK_PER_PROC per process (a
 * job of a process with that many is refused EBUSY at once, never queued)
 * and HLD_FILE_STUCK_MAX in all (threads: at most HLD_FILE_JOBS +
 * HLD_FILE_STUCK_MAX; with every stuck place taken, a queued job that
 * cannot start is answered ETIMEDOUT after the budget). So hostile
 * processes under their caps (fewer than HLD_FILE_JOBS of them, with at most
 * HLD_FILE_STUCK_PER_PROC stuck each) never delay anyone else's file jobs:
 * a free place and a free thread are always there.
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

#define HLD_FILE_JOBS           4  /* file jobs running at once (live), each on its thread */
#define HLD_FILE_JOBS_PER_PROC  1  /* of those, one process's at once */
#define HLD_FILE_STUCK_MAX      12 /* threads written off (hung past the budget) in all */
#define HLD_FILE_STUCK_PER_PROC 2  /* of those, one process's: then its jobs are refused */

struct hld_files;
typedef struct hld_fjob hld_fjob_t;

typedef void (*hld_fjob_fn)(hld_fjob_t *j);

struct hld_fjob {
    /* the caller's, set before hld_files_submit */
    hld_fjob_fn work;    /* file thread: fills the caller's fields, status and msg */
    hld_fjob_fn done;    /* main thread, exactly once (answer_status: the work's
                          * status, or ETIMEDOUT / ESHUTDOWN); the work's other
                          * results may be read only when answer_status is 0 */
    hld_fjob_fn cleanup; /* frees what work allocated (may be NULL): on the main
                          * thread, or on a stuck job's own thread once the
                          * module is closed (so: frees and closes only) */
    uint64_t who;        /* the process it works for (hld_client_who; 0: the daemon) */
    /* the work's result (written by the worker: done reads answer_*) */
    int status;               /* 0 or a negative HELIOD_* code */
    char msg[HL_MAX_MSG + 1]; /* with status < 0 */
    /* what done is called with: the work's result, or the module's own
     * (ETIMEDOUT while the worker may still run, ESHUTDOWN) */
    int answer_status;
    char answer_msg[HL_MAX_MSG + 1];
    /* private */
    struct hld_files *files;
    hld_fjob_t *next, *prev;
    hld_fjob_t *done_next;         /* on files->done (under files->lock) */
    uv_mutex_t io_lock;            /* io_ns and io_path: the worker sets, the tick reads */
    uint64_t io_ns;                /* monotonic ns the current open began; 0: none */
    char io_path[HL_MAX_PATH + 1]; /* the file being opened */
    uint64_t queued_ns;
    int running, answered;
};

typedef struct hld_files {
    uv_loop_t *loop;
    hld_fjob_t *queue, *queue_tail; /* waiting for a place */
    hld_fjob_t *running;            /* on a thread (live, or answered: stuck) */
    uint32_t nlive;                 /* running, not answered */
    uint32_t threads;               /* running: live + hung */
    uint64_t jobs, timeouts;        /* STATS: jobs run, opens answered ETIMEDOUT */
    uint64_t refused;               /* STATS: jobs refused EBUSY (their process's stuck cap) */
    uint32_t hung;                  /* STATS: running jobs answered ETIMEDOUT, not yet returned */
    uv_async_t async;               /* a thread's job returned */
    int async_open, stopping;
    uv_mutex_t lock;  /* done and closed: the threads and the main thread */
    hld_fjob_t *done; /* returned, not yet collected by the main thread */
    int closed;       /* hld_files_close ran: a returning thread frees its job */
    uint32_t test_delay_ms;
    char test_delay_match[64];
} hld_files_t;

void hld_files_init(hld_files_t *f, uv_loop_t *loop);
/* Shutdown: the module stops keeping the loop alive once no live job is
 * left (stuck ones never do), then closes its handle. */
void hld_files_stop(hld_files_t *f);
/* Frees the queued jobs (without calling done); a stuck thread that
 * returns later frees its own job. After the loop ran down. */
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
