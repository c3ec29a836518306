/*
 * stream.c - what streaming costs: real-time safety with many streams, and
 * resident memory per streaming voice against preloading.
 *
 *   (a) 16 concurrent streamed Ogg Vorbis voices (a generated 60 s stereo
 *       file) on the null driver at a 256-frame period for -s seconds:
 *         stream voices=16 seconds=... underruns=... xruns=...
 *                callback_max_us=... callback_load_max=... decoder_cpu_s=...
 *   (b) daemon RSS idle, with one 10-minute stereo file preloaded, and with
 *       16 voices streaming the same file:
 *         stream-memory idle_kib=... preloaded_bytes=... per_stream_voice_bytes=...
 *
 * usage: stream [-s SECONDS] [--heliod PATH] [--skip-memory] [--file-s SECONDS]
 *        (--file-s: length of the streamed Ogg, default 60; shorter for a
 *        quick run, since writing it dominates)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sndfile.h>

#include "bench_daemon.h"
#include "bench_opts.h"

#define ST_VOICES      16
#define ST_DEF_SECONDS 60.0
#define ST_FILE_S      60   /* length of the streamed Ogg */
#define ST_LONG_S      600  /* the 10-minute file of the memory part */
#define ST_CHUNK       4096 /* frames written per sf_writef_float call */
#define ST_SETTLE_S    1.0  /* let the daemon reach a steady state before reading RSS */
#define ST_KIB         1024.0
#define ST_PATH        (BD_PATH_MAX + 64)

/* Writes a stereo music-like signal (partials + slow chirp) of `seconds`. */
static int write_music(const char *path, int format, int seconds) {
    SF_INFO info = {.samplerate = BD_RATE, .channels = 2, .format = format};
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    if (!f) {
        fprintf(stderr, "stream: %s: %s\n", path, sf_strerror(NULL));
        return -1;
    }
    static float buf[ST_CHUNK * 2];
    uint64_t total = (uint64_t)seconds * BD_RATE;
    for (uint64_t i = 0; i < total;) {
        uint64_t n = total - i < ST_CHUNK ? total - i : ST_CHUNK;
        for (uint64_t k = 0; k < n; k++) {
            double t = (double)(i + k) / BD_RATE;
            buf[k * 2] = (float)(0.3 * sin(2 * M_PI * 220 * t) + 0.1 * sin(2 * M_PI * 1500 * t));
            buf[k * 2 + 1] = (float)(0.3 * sin(2 * M_PI * (330 + 2 * fmod(t, 10)) * t));
        }
        sf_writef_float(f, buf, (sf_count_t)n);
        i += n;
    }
    return sf_close(f) == 0 ? 0 : -1;
}

static int play_n(heliod_t *h, const char *sound, int n) {
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP;
    p.gain_db = -24;
    for (int i = 0; i < n; i++) {
        heliod_voice_t v;
        int rc = heliod_play(h, sound, &p, &v, NULL);
        if (rc) {
            fprintf(stderr, "stream: play: %s\n", heliod_last_error(h));
            return rc;
        }
    }
    return 0;
}

static const char *const daemon_args[] = {"--driver", "null", "--period", "256", NULL};

static int bench_realtime(const char *heliod, double seconds, int file_s) {
    bd_daemon_t d;
    heliod_t *h = NULL;
    if (bd_daemon_start(&d, heliod, daemon_args, &h) != 0) return 1;
    char path[ST_PATH];
    snprintf(path, sizeof path, "%s/music.ogg", d.dir);
    int rc = write_music(path, SF_FORMAT_OGG | SF_FORMAT_VORBIS, file_s);
    if (!rc) rc = heliod_load(h, "music", path, HELIOD_LOAD_STREAM, NULL);
    bd_stats_t st0, st;
    if (!rc) rc = play_n(h, "music", ST_VOICES);
    if (!rc) rc = bd_stats(h, &st0, 1); /* restart the callback maxima after the starts */
    if (!rc) {
        bd_sleep(seconds);
        rc = bd_stats(h, &st, 0);
    }
    if (!rc)
        printf("stream voices=%d seconds=%.0f underruns=%.0f xruns=%.0f callback_max_us=%.1f "
               "callback_load_max=%.4f decoder_cpu_s=%.3f decoder_cpu_per_voice_s=%.4f "
               "decoder_wakeups=%.0f streams_active=%.0f\n",
               ST_VOICES, seconds, bd_stat(&st, "stream_underruns"), bd_stat(&st, "xruns"),
               bd_stat(&st, "callback_us_max"), bd_stat(&st, "callback_load_max"),
               bd_stat(&st, "decoder_cpu_s") - bd_stat(&st0, "decoder_cpu_s"),
               (bd_stat(&st, "decoder_cpu_s") - bd_stat(&st0, "decoder_cpu_s")) / ST_VOICES,
               bd_stat(&st, "decoder_wakeups"), bd_stat(&st, "streams_active"));
    fflush(stdout);
    heliod_close(h);
    bd_daemon_stop(&d, 0);
    return rc ? 1 : 0;
}

static int bench_memory(const char *heliod) {
    bd_daemon_t d;
    heliod_t *h = NULL;
    static const char *const args[] = {"--driver",        "null", "--period", "256",
                                       "--max-sample-mb", "1024", NULL};
    if (bd_daemon_start(&d, heliod, args, &h) != 0) return 1;
    char path[ST_PATH];
    snprintf(path, sizeof path, "%s/long.flac", d.dir);
    int rc = write_music(path, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, ST_LONG_S);
    bd_sleep(ST_SETTLE_S);
    long idle = bd_rss_kib(d.pid), pre = -1, str = -1;
    heliod_set_timeout(h, 60000); /* decoding 10 minutes takes a while */
    if (!rc) rc = heliod_load(h, "pre", path, 0, NULL);
    if (!rc) {
        bd_sleep(ST_SETTLE_S);
        pre = bd_rss_kib(d.pid);
        rc = heliod_unload(h, "pre");
    }
    bd_sleep(ST_SETTLE_S);
    long base = bd_rss_kib(d.pid); /* after unload: the allocator may keep some */
    if (!rc) rc = heliod_load(h, "str", path, HELIOD_LOAD_STREAM, NULL);
    if (!rc) rc = play_n(h, "str", ST_VOICES);
    if (!rc) {
        bd_sleep(ST_SETTLE_S * 2);
        str = bd_rss_kib(d.pid);
    }
    if (!rc)
        printf("stream-memory idle_kib=%ld preloaded_bytes=%.0f streaming_voices=%d "
               "streaming_delta_kib=%ld per_stream_voice_bytes=%.0f\n",
               idle, (double)(pre - idle) * ST_KIB, ST_VOICES, str - base,
               (double)(str - base) * ST_KIB / ST_VOICES);
    fflush(stdout);
    heliod_close(h);
    bd_daemon_stop(&d, 0);
    return rc ? 1 : 0;
}

int main(int argc, char **argv) {
    const char *heliod_arg = NULL;
    double seconds = ST_DEF_SECONDS;
    int skip_memory = 0, file_s = ST_FILE_S;
    const bo_opt_t opts[] = {{"s", 'd', &seconds},
                             {"heliod", 's', &heliod_arg},
                             {"skip-memory", 'b', &skip_memory},
                             {"file-s", 'i', &file_s},
                             {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, "[-s SECONDS] [--heliod PATH] [--skip-memory] [--file-s SECONDS]");
    if (!(seconds > 0)) seconds = ST_DEF_SECONDS;
    if (file_s < 1 || file_s > ST_FILE_S) file_s = ST_FILE_S;
    char heliod[BD_PATH_MAX];
    if (bd_heliod_path(heliod_arg, heliod, sizeof heliod) != 0) return 1;
    int rc = bench_realtime(heliod, seconds, file_s);
    if (!skip_memory) rc |= bench_memory(heliod);
    return rc;
}
