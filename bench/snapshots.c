/*
 * snapshots.c - the cost of 64 mixer snapshots stacked, in the real daemon.
 *
 * Starts `heliod --driver null` with a config file of 8 buses (each with a
 * peak EQ) and a cue sheet of 64 snapshots (priorities 0..63, each setting
 * the 8 faders and the 8 EQs' gain: 16 settings), starts all 64, resets
 * the statistics, then for --seconds seconds restarts one snapshot after
 * another with a stop over --fade-ms and a start over a different fade, so
 * the stack is replanned at each request and at each fade's end while up to
 * 64 snapshots are active. Every plan folds the whole stack over every
 * touched setting and sends one ramped command per changed setting; it runs
 * on the main thread. Prints one line:
 *
 *   snapshots stacked=64 settings=16 plans=... cmds_per_plan=...
 *     plan_us_mean=... plan_us_max=... plan_pct_period_mean=...
 *     plan_pct_period_max=... callback_p99_load=... callback_max_load=...
 *     overruns=... errors=...
 *
 * plan_pct_period_*: a plan's main-thread time as a share of the period
 * (256 frames: 5333 us), the budget the main thread's tick has between two
 * audio blocks; callback_*_load: the audio thread's cost per period while
 * the plans' ramps run (what lands on the audio thread).
 *
 * usage: snapshots [--heliod PATH] [--seconds S] [--fade-ms MS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define SN_BUSES 8
#define SN_SNAPS 64

static int write_files(const char *dir, char *cfg, char *cues, size_t cap) {
    snprintf(cfg, cap, "%s/heliod.conf", dir);
    snprintf(cues, cap, "%s/snapshots.ini", dir);
    FILE *f = fopen(cfg, "w");
    if (!f) return -1;
    for (int b = 0; b < SN_BUSES; b++)
        fprintf(f, "[bus b%d]\nfx = eq --type peak --freq 1000 --gain 0\n\n", b);
    fclose(f);
    f = fopen(cues, "w");
    if (!f) return -1;
    for (int s = 0; s < SN_SNAPS; s++) {
        fprintf(f, "[snapshot s%d]\npriority = %d\nfade = 0\n", s, s);
        for (int b = 0; b < SN_BUSES; b++)
            fprintf(f, "gain = b%d %d\nfx = b%d 0 2 %d\n", b, -(s + b) % 24, b,
                    (s * 7 + b) % 12 - 6);
        fputc('\n', f);
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv) {
    const char *heliod_arg = NULL;
    double seconds = 3.0, fade_ms = 50.0;
    const bo_opt_t opts[] = {{"heliod", 's', &heliod_arg},
                             {"seconds", 'd', &seconds},
                             {"fade-ms", 'd', &fade_ms},
                             {"H", 's', &heliod_arg},
                             {"s", 'd', &seconds},
                             {"f", 'd', &fade_ms},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts,
             "[--heliod PATH] [--seconds S] [--fade-ms MS]   (also -H -s -f)\n"
             "  --heliod   the daemon to start (default: the build's)\n"
             "  --seconds  seconds measured (default 3)\n"
             "  --fade-ms  each snapshot's fade (default 50)");
    char heliod[BD_PATH_MAX], dir[] = "/tmp/heliod-bench-snap-XXXXXX";
    char cfg[BD_PATH_MAX], cues[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0 || !mkdtemp(dir) ||
        write_files(dir, cfg, cues, sizeof cfg) != 0) {
        fprintf(stderr, "snapshots: cannot set up\n");
        return 1;
    }
    const char *args[] = {"--driver", "null", "--config", cfg, "--cues", cues, NULL};
    bd_daemon_t d;
    heliod_t *h = NULL;
    int rc = bd_daemon_start(&d, heliod, args, &h);
    if (rc != 0) {
        fprintf(stderr, "snapshots: daemon did not start (%s)\n", heliod_strerror(rc));
        return 1;
    }
    long errors = 0;
    char name[32];
    for (int s = 0; s < SN_SNAPS; s++) {
        snprintf(name, sizeof name, "s%d", s);
        errors += heliod_snapshot_start(h, name, 0.0f, 1.0f) != 0;
    }
    bd_sleep(0.2);
    bd_stats_t st;
    bd_stats(h, &st, 1); /* reset the callback figures */
    bd_stats(h, &st, 0);
    double plans0 = bd_stat(&st, "snapshot_plans"), cmds0 = bd_stat(&st, "snapshot_cmds");
    double ov0 = bd_stat(&st, "callback_overruns");
    uint64_t t0 = bd_now_ns(), end = t0 + (uint64_t)(seconds * 1e9);
    long requests = 0;
    for (int k = 0; bd_now_ns() < end; k = (k + 1) % SN_SNAPS) {
        snprintf(name, sizeof name, "s%d", k);
        errors += heliod_snapshot_stop(h, name, (float)fade_ms) != 0;
        errors += heliod_snapshot_start(h, name, (float)(fade_ms * 1.6), 1.0f) != 0;
        requests += 2;
        bd_sleep(fade_ms / 4000.0); /* several fades overlap: breakpoints between requests */
    }
    bd_sleep(fade_ms * 2 / 1000.0);
    bd_stats(h, &st, 0);
    double plans = bd_stat(&st, "snapshot_plans") - plans0;
    double cmds = bd_stat(&st, "snapshot_cmds") - cmds0;
    double period_us = bd_stat(&st, "period_us");
    double mean = bd_stat(&st, "snapshot_plan_us_mean"), max = bd_stat(&st, "snapshot_plan_us_max");
    printf("snapshots stacked=%d settings=%d requests=%ld plans=%.0f cmds_per_plan=%.1f "
           "plan_us_mean=%.1f plan_us_max=%.1f plan_pct_period_mean=%.2f "
           "plan_pct_period_max=%.2f callback_p99_load=%.4f callback_max_load=%.4f "
           "overruns=%.0f errors=%ld\n",
           SN_SNAPS, 2 * SN_BUSES, requests, plans, plans > 0 ? cmds / plans : 0.0, mean, max,
           100.0 * mean / period_us, 100.0 * max / period_us, bd_stat(&st, "callback_load_p99"),
           bd_stat(&st, "callback_load_max"), bd_stat(&st, "callback_overruns") - ov0, errors);
    heliod_close(h);
    bd_daemon_stop(&d, 0);
    unlink(cfg);
    unlink(cues);
    rmdir(dir);
    return errors || plans <= 0 ? 1 : 0;
}
