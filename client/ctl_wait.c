/*
 * ctl_wait.c - `heliodctl wait VOICE [--max-s S]`: blocks until the voice
 * ends and prints why ("finished", "stopped", ...), for scripts that play
 * with `heliodctl play` (which detaches) and want to know when the sound is
 * over.
 *
 * Order matters: subscribe to every client's ENDED events first, then look
 * the voice up in VOICES. A voice that ends in between has its ENDED already
 * queued; one absent from VOICES with no ENDED coming was not playing.
 */
#include "ctl_ui.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heliod_errors.h"

#define WAIT_MAX_VOICES 1024 /* one VOICES reply at most (HL_MAX_LIST) */

static const char *const reason[] = {"finished", "stopped",  "stolen",  "owner",  "shutdown",
                                     "evicted",  "distance", "emitter", "killed", "lifetime"};

typedef struct {
    heliod_voice_t voice;
    int ended, reason;
} wait_t;

static void on_event(void *user, const heliod_event_t *ev) {
    wait_t *w = user;
    if (ev->type == HELIOD_EVENT_ENDED && ev->voice == w->voice) {
        w->ended = 1;
        w->reason = ev->reason;
    }
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Reads events for up to `seconds` (< 0: forever) or until the voice ended.
 * 0, or a connection error. */
static int pump(heliod_t *h, wait_t *w, double seconds) {
    double end = now_s() + seconds;
    while (!w->ended) {
        int rc = heliod_dispatch(h);
        if (rc < 0) return rc;
        if (w->ended) break;
        double left = end - now_s();
        if (seconds >= 0 && left <= 0) break;
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        if (heliod_pending(h)) p.events |= POLLOUT;
        int ms = seconds < 0 ? -1 : (int)(left * 1000.0) + 1;
        if (poll(&p, 1, ms) < 0 && errno != EINTR) return HELIOD_EIO;
    }
    return 0;
}

const char ctl_wait_usage[] = "usage: heliodctl wait VOICE [--max-s S]\n"
                              "  Waits until VOICE ends, then prints why (finished, stopped,\n"
                              "  stolen, ...). Exit 0 when it ended, 1 if it was not playing,\n"
                              "  the daemon went away, or S seconds passed first.\n";

int ctl_wait_main(int argc, char **argv, const char *socket, int json) {
    wait_t w = {0};
    double max_s = -1.0;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(ctl_wait_usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--max-s") && i + 1 < argc) {
            max_s = strtod(argv[++i], &end);
            if (!end || *end || !(max_s > 0.0)) {
                fprintf(stderr, "heliodctl: wait: --max-s: seconds > 0\n");
                return 2;
            }
        } else if (!w.voice && argv[i][0] != '-') {
            unsigned long long v = strtoull(argv[i], &end, 10);
            if (!end || *end || v == 0) {
                fprintf(stderr, "heliodctl: wait: %s: not a voice handle\n", argv[i]);
                return 2;
            }
            w.voice = (heliod_voice_t)v;
        } else {
            fprintf(stderr, "heliodctl: wait: unexpected %s\n%s", argv[i], ctl_wait_usage);
            return 2;
        }
    }
    if (!w.voice) {
        fprintf(stderr, "heliodctl: wait: which voice?\n%s", ctl_wait_usage);
        return 2;
    }
    heliod_t *h = NULL;
    if (heliod_connect_flags(&h, socket, "heliodctl-wait", HELIOD_CONNECT_CONTROL) < 0) {
        fprintf(stderr, "heliodctl: wait: %s: is heliod running?\n", heliod_last_error(NULL));
        return 1;
    }
    heliod_set_event_callback(h, on_event, &w);
    int rc = heliod_subscribe(h, HELIOD_SUB_ENDED | HELIOD_SUB_ALL);
    heliod_voice_info_t *vs = rc < 0 ? NULL : calloc(WAIT_MAX_VOICES, sizeof *vs);
    size_t n = 0, i = 0;
    if (rc == 0 && vs) {
        rc = heliod_voices(h, vs, WAIT_MAX_VOICES, &n);
        for (i = 0; rc == 0 && i < n && i < WAIT_MAX_VOICES; i++)
            if (vs[i].voice == w.voice) break;
    }
    free(vs);
    /* a full list may have been cut short: then the voice may still be there */
    int listed = i < n || n >= WAIT_MAX_VOICES;
    if (rc == 0) {
        if (!listed)
            rc = pump(h, &w, 0.0); /* ended before the list? its ENDED came first */
        else
            rc = pump(h, &w, max_s);
    }
    int code = 0;
    if (w.ended) {
        const char *why = w.reason >= 0 && w.reason < 10 ? reason[w.reason] : "unknown";
        if (json)
            printf("{\"event\":\"ended\",\"voice\":%" PRIu64 ",\"reason\":\"%s\"}\n", w.voice, why);
        else
            printf("%s\n", why);
    } else if (rc < 0) {
        fprintf(stderr, "heliodctl: wait: %s\n",
                rc == HELIOD_ECLOSED ? "the daemon went away" : heliod_strerror(rc));
        code = 1;
    } else if (!listed) {
        fprintf(stderr, "heliodctl: wait: voice %" PRIu64 " is not playing\n", w.voice);
        code = 1;
    } else {
        fprintf(stderr, "heliodctl: wait: voice %" PRIu64 " still playing after %g s\n", w.voice,
                max_s);
        code = 1;
    }
    heliod_close(h);
    return code;
}
