/*
 * ctl_stream.c - `heliodctl stream [OPTIONS] FILE|-`: plays raw PCM read
 * from a file or stdin through a client-fed stream (heliod_stream.h), e.g.
 *
 *   sox x.wav -t raw - | heliodctl stream --rate 48000 --channels 2 --format s16 -
 *
 * It writes as the ring takes frames, sleeps on the stream's wake-ups when
 * it is full, ends the stream at the end of the input and waits until the
 * voice played it out; then prints the voice, the frames consumed and the
 * underruns (one line, or a JSON object with --json). Ctrl-C stops it.
 */
#include "ctl_ui.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heliod_errors.h"

const char ctl_stream_usage[] =
    "usage: heliodctl stream [--rate HZ] [--channels 1|2] [--format f32|s16|u8]\n"
    "                        [--frames N] [--gain DB] [--pan P] [--bus NAME] FILE|-\n"
    "  Plays raw interleaved PCM (host byte order) from FILE or stdin (-) as a\n"
    "  client-fed stream: --rate (default: the engine's), --channels (2),\n"
    "  --format (s16), --frames ring capacity (default ~0.25 s). Ends the\n"
    "  stream at the end of the input and waits until it played out; prints\n"
    "  the voice, the frames consumed and the underruns.\n"
    "  e.g. sox x.wav -t raw - | heliodctl stream --rate 48000 --format s16 -\n";

static volatile sig_atomic_t g_stop;

static void on_sigint(int sig) {
    (void)sig;
    g_stop = 1;
}

static int parse_u32(const char *opt, const char *v, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long x = strtoul(v ? v : "", &end, 10);
    if (!v || !*v || *end || errno || x > UINT32_MAX) {
        fprintf(stderr, "heliodctl: stream: %s: not a number: %s\n", opt, v ? v : "(missing)");
        return -1;
    }
    *out = (uint32_t)x;
    return 0;
}

static int parse_f(const char *opt, const char *v, float *out) {
    char *end;
    float x = strtof(v ? v : "", &end);
    if (!v || !*v || *end) {
        fprintf(stderr, "heliodctl: stream: %s: not a number: %s\n", opt, v ? v : "(missing)");
        return -1;
    }
    *out = x;
    return 0;
}

int ctl_stream_main(int argc, char **argv, const char *socket, int json) {
    heliod_stream_params_t p;
    heliod_stream_params_init(&p);
    p.format = HELIOD_STREAM_S16;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(ctl_stream_usage, stdout);
            return 0;
        } else if (!strcmp(a, "--rate")) {
            bad = parse_u32(a, v, &p.rate), i++;
        } else if (!strcmp(a, "--channels")) {
            bad = parse_u32(a, v, &p.channels), i++;
        } else if (!strcmp(a, "--frames")) {
            bad = parse_u32(a, v, &p.frames), i++;
        } else if (!strcmp(a, "--gain")) {
            bad = parse_f(a, v, &p.play.gain_db), i++;
        } else if (!strcmp(a, "--pan")) {
            bad = parse_f(a, v, &p.play.pan), i++;
        } else if (!strcmp(a, "--bus")) {
            if (!v || strlen(v) >= sizeof p.play.bus)
                bad = -1;
            else
                snprintf(p.play.bus, sizeof p.play.bus, "%s", v);
            i++;
        } else if (!strcmp(a, "--format")) {
            if (v && !strcmp(v, "f32"))
                p.format = HELIOD_STREAM_F32;
            else if (v && !strcmp(v, "s16"))
                p.format = HELIOD_STREAM_S16;
            else if (v && !strcmp(v, "u8"))
                p.format = HELIOD_STREAM_U8;
            else {
                fprintf(stderr, "heliodctl: stream: --format: f32, s16 or u8, not %s\n",
                        v ? v : "(missing)");
                bad = -1;
            }
            i++;
        } else if ((a[0] != '-' || !strcmp(a, "-")) && !file) {
            file = a;
        } else {
            fprintf(stderr, "heliodctl: stream: unexpected %s\n%s", a, ctl_stream_usage);
            return 2;
        }
        if (bad) return 2;
    }
    if (!file) {
        fprintf(stderr, "heliodctl: stream: which input (FILE or - for stdin)?\n%s",
                ctl_stream_usage);
        return 2;
    }
    FILE *in = strcmp(file, "-") ? fopen(file, "rb") : stdin;
    if (!in) {
        fprintf(stderr, "heliodctl: stream: %s: %s\n", file, strerror(errno));
        return 1;
    }
    heliod_t *h = NULL;
    int rc = heliod_connect_flags(&h, socket, "heliodctl", HELIOD_CONNECT_CONTROL);
    if (rc < 0) {
        fprintf(stderr, "heliodctl: %s: %s\n", heliod_strerror(rc), heliod_last_error(NULL));
        if (in != stdin) fclose(in);
        return 1;
    }
    heliod_stream_t *s = NULL;
    rc = heliod_stream_open(h, &p, &s);
    if (rc < 0) {
        fprintf(stderr, "heliodctl: stream: %s\n", heliod_last_error(h));
        heliod_close(h);
        if (in != stdin) fclose(in);
        return 1;
    }
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint);
    const size_t fsize = p.channels * (p.format == HELIOD_STREAM_F32   ? 4u
                                       : p.format == HELIOD_STREAM_S16 ? 2u
                                                                       : 1u);
    enum { CHUNK = 4096 };
    unsigned char *buf = malloc(CHUNK * fsize);
    size_t have = 0, off = 0; /* bytes in buf, bytes of it written */
    int eof = 0;
    while (!g_stop && buf && !heliod_stream_ended(s, NULL)) {
        if (off == have && !eof) {
            size_t n = fread(buf, 1, CHUNK * fsize, in);
            if (n < CHUNK * fsize) eof = 1;
            have = n - n % fsize; /* a trailing partial frame is dropped */
            off = 0;
        }
        if (off == have) break; /* the input is over */
        size_t w = heliod_stream_write(s, buf + off, (have - off) / fsize);
        off += w * fsize;
        if (!w) heliod_stream_wait(s, 200);
    }
    heliod_stream_end(s);
    while (!g_stop && !heliod_stream_ended(s, NULL))
        heliod_stream_wait(s, 200);
    int reason = -1;
    int ended = heliod_stream_ended(s, &reason);
    if (json)
        printf("{\"voice\":%" PRIu64 ",\"consumed\":%" PRIu64 ",\"underruns\":%" PRIu64
               ",\"ended\":%s}\n",
               (uint64_t)heliod_stream_voice(s), heliod_stream_consumed(s),
               heliod_stream_underruns(s),
               ended && reason == HELIOD_END_FINISHED ? "true" : "false");
    else
        printf("voice %" PRIu64 ": %" PRIu64 " frames consumed, %" PRIu64 " underruns%s\n",
               (uint64_t)heliod_stream_voice(s), heliod_stream_consumed(s),
               heliod_stream_underruns(s), g_stop ? " (interrupted)" : "");
    free(buf);
    heliod_stream_close(s);
    heliod_close(h);
    if (in != stdin) fclose(in);
    return g_stop ? 1 : 0;
}
