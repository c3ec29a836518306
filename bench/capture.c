/*
 * capture.c - what the session capture (heliod --capture) costs the daemon's
 * main thread, and how large a capture grows.
 *
 * Starts heliod on the null driver twice, without and with --capture, and
 * each time pipelines N fire-and-forget requests from one client as fast as
 * the socket takes them (SETs of gain and position on a looping voice, every
 * 16th a listener move), then heliod_sync. It reads the main thread's CPU
 * time (/proc/PID/task/PID/stat: utime + stime) and the whole process's
 * before and after, so the writer thread's share shows separately:
 *
 *   capture mode=off|on requests=N req_per_s=... main_cpu_ns_per_req=...
 *           main_cpu_pct_at_250k=... process_cpu_ns_per_req=...
 *           bytes_per_req=... dropped=...
 *   capture-size busy_req_per_s=R bytes_per_min=...
 *
 * main_cpu_pct_at_250k is the main thread's share of one core that 250,000
 * such requests a second would take, from the measured cost per request.
 * bytes_per_min is the capture's size for a minute of a busy scene sending R
 * requests a second (default 3,000: 50 per 60 Hz game frame) of the same
 * mix, from the measured bytes per request. CPU times are the kernel's tick
 * counts (10 ms at 100 Hz): use N large enough (the default 200,000).
 *
 * usage: capture [--heliod PATH] [--requests N] [--busy R]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_daemon.h"
#include "bench_opts.h"

static double cpu_s(pid_t pid, int main_thread) {
    char path[64];
    if (main_thread)
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)pid);
    else
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    unsigned long ut = 0, st = 0;
    /* after ")": state(3) ... utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int run(const char *heliod, int on, long nreq, double busy) {
    bd_daemon_t d;
    heliod_t *h = NULL;
    char cap[BD_PATH_MAX + 16];
    const char *args_off[] = {"--driver", "null", NULL};
    const char *args_on[] = {"--driver", "null", "--capture", cap, NULL};
    /* the capture lands in the daemon's directory, known only after start:
     * a path of our own beside it */
    snprintf(cap, sizeof cap, "/tmp/heliod-bench-capture-%d.bin", (int)getpid());
    if (bd_daemon_start(&d, heliod, on ? args_on : args_off, &h) != 0) return 1;
    int rc = 1;
    char wav[BD_PATH_MAX + 16];
    snprintf(wav, sizeof wav, "%s/noise.wav", d.dir);
    heliod_voice_t v = 0;
    heliod_play_params_t pp;
    heliod_play_params_init(&pp);
    pp.flags |= HELIOD_PLAY_LOOP;
    if (bd_write_noise_wav(wav, BD_RATE, 1) != 0 ||
        heliod_load(h, "noise", wav, HELIOD_LOAD_SHARED, NULL) != 0 ||
        heliod_play(h, "noise", &pp, &v, NULL) != 0) {
        fprintf(stderr, "capture: setup failed: %s\n", heliod_last_error(h));
        goto out;
    }
    heliod_sync(h);
    double m0 = cpu_s(d.pid, 1), p0 = cpu_s(d.pid, 0);
    uint64_t t0 = bd_now_ns();
    heliod_voice_set_t s = {0};
    heliod_listener_t l = {.mask = HELIOD_LIS_POS};
    for (long i = 0; i < nreq; i++) {
        if (i % 16 == 15) {
            l.pos[0] = (float)(i % 100) * 0.01f;
            heliod_set_listener_async(h, &l);
        } else if (i & 1) {
            s.mask = HELIOD_SET_GAIN;
            s.gain_db = -(float)(i % 12);
            heliod_set_async(h, v, &s);
        } else {
            s.mask = HELIOD_SET_POS;
            s.pos[0] = (float)(i % 50) * 0.1f;
            heliod_set_async(h, v, &s);
        }
    }
    if (heliod_sync(h) != 0) goto out;
    double secs = (double)(bd_now_ns() - t0) / 1e9;
    double m1 = cpu_s(d.pid, 1), p1 = cpu_s(d.pid, 0);
    bd_stats_t st;
    double dropped = 0;
    if (bd_stats(h, &st, 0) == 0) dropped = bd_stat(&st, "capture_dropped");
    heliod_close(h);
    h = NULL;
    if (bd_daemon_stop(&d, 0) != 0) goto done;
    struct stat sb;
    double bytes_per_req = 0;
    if (on && stat(cap, &sb) == 0 && nreq > dropped) /* what was written: records kept */
        bytes_per_req = (double)sb.st_size / ((double)nreq - dropped);
    if (on) unlink(cap);
    double main_ns = (m1 - m0) * 1e9 / (double)nreq;
    printf("capture mode=%s requests=%ld req_per_s=%.0f main_cpu_ns_per_req=%.0f "
           "main_cpu_pct_at_250k=%.1f process_cpu_ns_per_req=%.0f bytes_per_req=%.1f "
           "dropped=%.0f\n",
           on ? "on" : "off", nreq, (double)nreq / secs, main_ns, main_ns * 250000 / 1e9 * 100,
           (p1 - p0) * 1e9 / (double)nreq, bytes_per_req, dropped);
    if (on)
        printf("capture-size busy_req_per_s=%.0f bytes_per_min=%.0f mib_per_min=%.1f\n", busy,
               bytes_per_req * busy * 60, bytes_per_req * busy * 60 / 1048576.0);
    return 0;
out:
    if (h) heliod_close(h);
    bd_daemon_stop(&d, 0);
done:
    return rc;
}

int main(int argc, char **argv) {
    const char *heliod_arg = NULL;
    long nreq = 200000;
    double busy = 3000;
    const bo_opt_t opts[] = {{"heliod", 's', &heliod_arg},
                             {"requests", 'l', &nreq},
                             {"busy", 'd', &busy},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts,
             "[--heliod PATH] [--requests N] [--busy R]\n"
             "  --heliod    the daemon to start (default: the build's)\n"
             "  --requests  requests sent, with and without a capture (default 200000)\n"
             "  --busy      the busy phase's rate (default 3000)");
    if (nreq < 1) nreq = 1;
    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    int rc = run(heliod, 0, nreq, busy);
    rc |= run(heliod, 1, nreq, busy);
    return rc;
}
