/*
 * bench_daemon.h - shared plumbing for the benchmarks that drive a real
 * heliod process (callback, latency, throughput, memory): start the daemon
 * on a private socket in a private temporary directory, connect to it with
 * libheliod, read STATS by key, generate test WAV files, read a process's
 * resident memory, compute percentiles, and shut everything down again.
 *
 * Everything here runs on the benchmark's own threads; none of it is part of
 * the daemon. Functions return 0 or a negative HELIOD_E* code unless stated.
 */
#ifndef BENCH_DAEMON_H
#define BENCH_DAEMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "heliod.h"

#define BD_PATH_MAX      4096
#define BD_DIR_MAX       512   /* the temporary directory: leaves room for file names below it */
#define BD_MAX_STATS     320   /* more than the daemon's STATS key count */
#define BD_MAX_ARGS      32    /* daemon argv entries */
#define BD_START_TIMEOUT 10.0  /* seconds to wait for the daemon's socket */
#define BD_STOP_TIMEOUT  5.0   /* seconds between SIGTERM and SIGKILL */
#define BD_RATE          48000 /* engine rate the benchmarks generate audio for */
#define BD_NS_PER_S      1000000000ull
#define BD_NS_PER_US     1000.0

typedef struct {
    char dir[BD_DIR_MAX];     /* private temporary directory (removed by bd_daemon_stop) */
    char socket[BD_PATH_MAX]; /* dir/heliod.sock */
    char log[BD_PATH_MAX];    /* dir/heliod.log: the daemon's stdout and stderr */
    pid_t pid;
} bd_daemon_t;

/* CLOCK_MONOTONIC in ns. Any thread. */
uint64_t bd_now_ns(void);
/* Sleeps for `s` seconds (restarts on EINTR). Any thread. */
void bd_sleep(double s);

/* Path of the heliod binary: `arg` if non-NULL, else $HELIOD_BIN, else
 * <dir of this executable>/../daemon/heliod (the meson build layout).
 * Writes into out (cap bytes). Returns 0 or HELIOD_EINVAL. */
int bd_heliod_path(const char *arg, char *out, size_t cap);

/* Creates a temporary directory and starts `heliod --socket <dir>/heliod.sock
 * <args...>` (args NULL-terminated), with output in <dir>/heliod.log, then
 * waits until a connection succeeds. On success *h is a connected client
 * (the caller closes it) and d describes the daemon. Main thread. */
int bd_daemon_start(bd_daemon_t *d, const char *heliod, const char *const *args, heliod_t **h);
/* Connects one more client to the daemon. */
int bd_connect(const bd_daemon_t *d, const char *name, heliod_t **h);
/* SIGTERM, wait (SIGKILL after BD_STOP_TIMEOUT), remove the temporary
 * directory unless keep_dir. Returns the daemon's exit status or -1. */
int bd_daemon_stop(bd_daemon_t *d, int keep_dir);

/* STATS snapshot. */
typedef struct {
    heliod_stat_t s[BD_MAX_STATS];
    size_t n;
} bd_stats_t;
int bd_stats(heliod_t *h, bd_stats_t *out, int reset);
/* Value of key, or NAN if the daemon did not send it. */
double bd_stat(const bd_stats_t *st, const char *key);

/* Writes a mono 16-bit WAV of white noise at BD_RATE, `frames` long, with
 * the given seed. Returns 0 or HELIOD_EIO. */
int bd_write_noise_wav(const char *path, uint32_t frames, uint64_t seed);

/* VmRSS of pid in KiB (from /proc/PID/status), or -1. */
long bd_rss_kib(pid_t pid);

/* p-th percentile (0..100) of v[0..n) by nearest rank; sorts v in place.
 * NAN if n == 0. */
double bd_percentile(double *v, size_t n, double p);

#endif /* BENCH_DAEMON_H */
