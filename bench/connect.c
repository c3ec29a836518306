/*
 * connect.c - what connections cost the daemon: how many it holds, how fast
 * clients can come and go, and that coming and going leaks nothing.
 *
 * Starts `heliod --driver null`, then:
 *
 *   connect phase=cycles seconds=S cycles=N cycles_per_s=... fds_before fds_after
 *           rss_before_kib rss_after_kib
 *     connect + HELLO + PING + close, one client at a time, for S seconds
 *     (libheliod's blocking calls: a whole round trip each);
 *   connect phase=held clients=K refused=R rss_idle_kib rss_peak_kib per_client_kib
 *     K clients connected at once (default 255, --max-clients K: every ordinary
 *     place; the probe is a control client and holds a kept place),
 *     each having said HELLO and answered a PING; one more is refused with
 *     "server full"; RSS read while all are held.
 *
 * usage: connect [--heliod PATH] [--seconds S] [--clients K]
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define CN_DEF_SECONDS 5.0
#define CN_DEF_CLIENTS 255 /* + the probe = HL_MAX_CLIENTS, every place the daemon has */
#define CN_SETTLE_S    0.5 /* closes are processed, RSS settles */
#define CN_NUM_LEN     32

static int fd_count(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *dir = opendir(path);
    if (!dir) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(dir));)
        if (e->d_name[0] != '.') n++;
    closedir(dir);
    return n;
}

int main(int argc, char **argv) {
    const char *heliod_arg = NULL;
    double seconds = CN_DEF_SECONDS;
    int clients = CN_DEF_CLIENTS;
    const bo_opt_t opts[] = {{"heliod", 's', &heliod_arg},
                             {"seconds", 'd', &seconds},
                             {"clients", 'i', &clients},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, "[--heliod PATH] [--seconds S] [--clients K]");
    if (!(seconds > 0) || clients < 1) return 2;
    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    char max_s[CN_NUM_LEN];
    snprintf(max_s, sizeof max_s, "%d",
             clients); /* the probe is a control client: it holds a kept place, not one of these */
    const char *args[] = {"--driver", "null", "--max-clients", max_s, NULL};
    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    int rc = 1;
    heliod_t **held = calloc((size_t)clients + 1, sizeof *held);
    if (!held) goto out;

    /* cycles: one client at a time */
    bd_sleep(CN_SETTLE_S);
    int fds0 = fd_count(d.pid);
    long rss0 = bd_rss_kib(d.pid);
    long cycles = 0, failed = 0;
    uint64_t t0 = bd_now_ns(), end = t0 + (uint64_t)(seconds * (double)BD_NS_PER_S);
    while (bd_now_ns() < end) {
        heliod_t *c = NULL;
        if (bd_connect(&d, "cycle", &c) != 0 || heliod_ping(c, NULL) != 0) failed++;
        heliod_close(c);
        cycles++;
    }
    double wall = (double)(bd_now_ns() - t0) / (double)BD_NS_PER_S;
    bd_sleep(CN_SETTLE_S);
    int fds1 = fd_count(d.pid);
    long rss1 = bd_rss_kib(d.pid);
    printf("connect phase=cycles seconds=%.1f cycles=%ld failed=%ld cycles_per_s=%.0f "
           "fds_before=%d fds_after=%d rss_before_kib=%ld rss_after_kib=%ld\n",
           wall, cycles, failed, (double)cycles / wall, fds0, fds1, rss0, rss1);
    fflush(stdout);

    /* held: every place taken at once, then one more */
    int got = 0;
    for (int i = 0; i < clients; i++) {
        if (bd_connect(&d, "held", &held[i]) != 0 || heliod_ping(held[i], NULL) != 0) break;
        got++;
    }
    long peak = bd_rss_kib(d.pid);
    heliod_t *extra = NULL;
    int refused = bd_connect(&d, "one-too-many", &extra) != 0;
    if (!refused) heliod_close(extra);
    printf("connect phase=held clients=%d refused_next=%d rss_idle_kib=%ld rss_peak_kib=%ld "
           "per_client_kib=%.1f fds=%d\n",
           got, refused, rss1, peak, got ? (double)(peak - rss1) / got : 0.0, fd_count(d.pid));
    fflush(stdout);
    for (int i = 0; i < got; i++)
        heliod_close(held[i]);
    rc = (failed == 0 && got == clients && refused && fds1 <= fds0) ? 0 : 1;
    if (rc) fprintf(stderr, "# connect: failures, a client place missing, or descriptors grew\n");
out:
    free(held);
    heliod_close(h);
    bd_daemon_stop(&d, rc != 0);
    return rc;
}
