/*
 * memory.c - resident memory of the daemon.
 *
 * Starts `heliod --driver null --voices V` (V = 4096 by default) and reads
 * its VmRSS from /proc/PID/status in three states:
 *
 *   memory phase=idle     rss_kib=...                 (voice pool allocated, no sounds)
 *   memory phase=loaded   sounds=1000 sample_bytes=... rss_kib=... rss_delta_kib=...
 *   memory phase=playing  voices=4096 rss_kib=... voices_active=...
 *
 * sample_bytes (from STATS) is what the decoded PCM should cost; the RSS
 * delta after loading shows the real cost including allocator overhead.
 *
 * usage: memory [--heliod PATH] [--sounds N] [--sound-ms MS] [--voices V]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define MM_DEF_SOUNDS   1000
#define MM_DEF_SOUND_MS 100
#define MM_DEF_VOICES   4096
#define MM_SETTLE_S     1.0 /* let the daemon reach a steady state before reading RSS */
#define MM_NUM_LEN      32
#define MM_NAME_LEN     64
#define MM_MS_PER_S     1000
#define MM_KIB          1024.0
#define MM_SEED_BASE    1000

static void report(const char *phase, pid_t pid, heliod_t *h, long base_kib, const char *extra) {
    bd_stats_t st;
    long rss = bd_rss_kib(pid);
    if (bd_stats(h, &st, 0) != 0) st.n = 0;
    printf("memory phase=%s rss_kib=%ld rss_delta_kib=%ld stats_rss_bytes=%.0f sounds=%.0f "
           "sample_bytes=%.0f sample_kib=%.0f voices_capacity=%.0f voices_active=%.0f "
           "voices_mixed=%.0f callback_load_max=%.4f xruns=%.0f%s%s\n",
           phase, rss, base_kib >= 0 ? rss - base_kib : 0, bd_stat(&st, "rss_bytes"),
           bd_stat(&st, "sounds"), bd_stat(&st, "sample_bytes"),
           bd_stat(&st, "sample_bytes") / MM_KIB, bd_stat(&st, "voices_capacity"),
           bd_stat(&st, "voices_active"), bd_stat(&st, "voices_mixed"),
           bd_stat(&st, "callback_load_max"), bd_stat(&st, "xruns"), extra[0] ? " " : "", extra);
    fflush(stdout);
}

int main(int argc, char **argv) {
    const char *heliod_arg = NULL;
    int sounds = MM_DEF_SOUNDS, sound_ms = MM_DEF_SOUND_MS, voices = MM_DEF_VOICES;
    const bo_opt_t opts[] = {{"heliod", 's', &heliod_arg},
                             {"sounds", 'i', &sounds},
                             {"sound-ms", 'i', &sound_ms},
                             {"voices", 'i', &voices},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, "[--heliod PATH] [--sounds N] [--sound-ms MS] [--voices V]");
    if (sounds < 1 || sound_ms < 1 || voices < 1) return 2;

    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    char voices_s[MM_NUM_LEN];
    snprintf(voices_s, sizeof voices_s, "%d", voices);
    const char *args[] = {"--driver", "null", "--period", "256", "--voices", voices_s, NULL};
    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    int rc = 1;
    char extra[MM_NAME_LEN * 2];

    bd_sleep(MM_SETTLE_S);
    long idle = bd_rss_kib(d.pid);
    snprintf(extra, sizeof extra, "voices=%d", voices);
    report("idle", d.pid, h, idle, extra);

    uint32_t frames = (uint32_t)((long)sound_ms * BD_RATE / MM_MS_PER_S);
    char path[BD_PATH_MAX], name[MM_NAME_LEN];
    for (int i = 0; i < sounds; i++) {
        snprintf(path, sizeof path, "%s/s%04d.wav", d.dir, i);
        if (bd_write_noise_wav(path, frames, MM_SEED_BASE + (uint64_t)i) != 0) goto out;
    }
    for (int i = 0; i < sounds; i++) {
        snprintf(path, sizeof path, "%s/s%04d.wav", d.dir, i);
        snprintf(name, sizeof name, "s%04d", i);
        int err = heliod_load(h, name, path, 0, NULL);
        if (err) {
            fprintf(stderr, "load %s: %s (%s)\n", name, heliod_strerror(err), heliod_last_error(h));
            goto out;
        }
    }
    bd_sleep(MM_SETTLE_S);
    snprintf(extra, sizeof extra, "loaded=%d sound_ms=%d", sounds, sound_ms);
    report("loaded", d.pid, h, idle, extra);

    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP;
    p.gain_db = -60.0f;
    int started = 0;
    for (int i = 0; i < voices; i++) {
        heliod_voice_t v;
        snprintf(name, sizeof name, "s%04d", i % sounds);
        int err = heliod_play(h, name, &p, &v, NULL);
        if (err) {
            fprintf(stderr, "play %d: %s (%s)\n", i, heliod_strerror(err), heliod_last_error(h));
            break;
        }
        started++;
    }
    bd_sleep(MM_SETTLE_S);
    snprintf(extra, sizeof extra, "started=%d", started);
    report("playing", d.pid, h, idle, extra);
    rc = started == voices ? 0 : 1;
out:
    heliod_close(h);
    bd_daemon_stop(&d, rc != 0);
    return rc;
}
