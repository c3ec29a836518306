/*
 * ctl_profile.c - `heliodctl profile [--seconds S] [--hz H] [--out FILE]`:
 * subscribes to PROFILE events and writes them to FILE (stdout without
 * --out) as one JSON object:
 *
 *   {"heliod_profile":1,"hz":H,"samples":[
 *   {sample},        <- one line per event (ctl_profile_json)
 *   ...]}
 *
 * One sample per line keeps the file readable with grep and lets a plotter
 * stream it; the wrapping object makes it one valid JSON document. The run
 * ends after S seconds (default 10), on SIGINT/SIGTERM, or when the daemon
 * goes away: each ends the document properly, so the recording of a run
 * that was cut short still loads.
 */
#include "ctl_ui.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heliod_errors.h"

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) {
    (void)sig;
    g_stop = 1;
}

/* Names are the daemon's valid names (no quotes or controls), but a
 * recording must stay valid JSON whatever a newer daemon sends. */
static void put_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void ctl_profile_json(FILE *f, const heliod_profile_t *p) {
    fprintf(f,
            "{\"t\":%.6f,\"period_us\":%.3f,\"callbacks\":%u,\"load_now\":%.5f,"
            "\"load_peak\":%.5f,\"load_p99\":%.5f,\"load_max\":%.5f,\"hist\":[",
            (double)p->time_ns / 1e9, p->period_us, p->callbacks, p->load_now, p->load_peak,
            p->load_p99, p->load_max);
    for (int k = 0; k < HELIOD_PROFILE_HIST; k++)
        fprintf(f, "%s%u", k ? "," : "", p->hist[k]);
    fprintf(f,
            "],\"xruns\":%llu,\"underruns\":%llu,\"voices_real\":%u,\"voices_virtual\":%u,"
            "\"decode_load\":%.5f,\"streams\":%u,\"stream\":[",
            (unsigned long long)p->xruns, (unsigned long long)p->underruns, p->voices_real,
            p->voices_virtual, p->decode_load, p->streams);
    for (unsigned i = 0; i < p->nstreams; i++) {
        fputs(i ? ",{\"sound\":" : "{\"sound\":", f);
        put_str(f, p->stream[i].sound);
        fprintf(f, ",\"fill\":%.4f}", p->stream[i].fill);
    }
    fprintf(f, "],\"master_peak_db\":%.2f,\"master_rms_db\":%.2f,\"buses\":[", p->master_peak_db,
            p->master_rms_db);
    for (unsigned i = 0; i < p->nbuses; i++) {
        const heliod_profile_bus_t *b = &p->bus[i];
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        put_str(f, b->name);
        fprintf(f, ",\"peak_db\":%.2f,\"hold_db\":%.2f,\"rms_db\":%.2f,\"real\":%u,\"virtual\":%u}",
                b->peak_db, b->peak_hold_db, b->rms_db, b->real, b->virt);
    }
    fputs("]}", f);
}

typedef struct {
    FILE *f;
    unsigned long samples;
} rec_t;

static void on_event(void *user, const heliod_event_t *ev) {
    rec_t *r = user;
    if (ev->type != HELIOD_EVENT_PROFILE || !ev->profile) return;
    fputs(r->samples ? ",\n" : "\n", r->f);
    ctl_profile_json(r->f, ev->profile);
    r->samples++;
}

const char ctl_profile_usage[] =
    "usage: heliodctl profile [--seconds S] [--hz H] [--out FILE]\n"
    "  Records PROFILE events (callback load, voices, streams, bus levels) for S\n"
    "  seconds (default 10; Ctrl-C ends it early) at H events per second (1..100,\n"
    "  default 10) into FILE as JSON (stdout without --out). Plot it with\n"
    "  bench/plot_profile.py FILE out.png.\n";

static uint64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

int ctl_profile_main(int argc, char **argv, const char *socket) {
    double seconds = 10.0;
    float hz = 10.0f;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(ctl_profile_usage, stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "heliodctl: profile: %s needs a value\n%s", a, ctl_profile_usage);
            return 2;
        }
        const char *v = argv[++i];
        char *end = NULL;
        if (!strcmp(a, "--seconds")) {
            seconds = strtod(v, &end);
            if (!end || *end || !(seconds > 0.0 && seconds <= 86400.0)) {
                fprintf(stderr, "heliodctl: profile: --seconds: 0 < S <= 86400\n");
                return 2;
            }
        } else if (!strcmp(a, "--hz")) {
            double h = strtod(v, &end);
            if (!end || *end || !(h >= 1.0 && h <= 100.0)) {
                fprintf(stderr, "heliodctl: profile: --hz: 1..100\n");
                return 2;
            }
            hz = (float)h;
        } else if (!strcmp(a, "--out")) {
            out = v;
        } else {
            fprintf(stderr, "heliodctl: profile: unknown option %s\n%s", a, ctl_profile_usage);
            return 2;
        }
    }
    heliod_t *h = NULL;
    int rc = heliod_connect(&h, socket, "heliodctl-profile");
    if (rc < 0) {
        fprintf(stderr, "heliodctl: profile: %s: is heliod running?\n", heliod_last_error(NULL));
        return 1;
    }
    rec_t r = {.f = stdout};
    if (out && !(r.f = fopen(out, "w"))) {
        fprintf(stderr, "heliodctl: profile: %s: %s\n", out, strerror(errno));
        heliod_close(h);
        return 1;
    }
    heliod_set_event_callback(h, on_event, &r);
    rc = heliod_subscribe_profile(h, HELIOD_SUB_PROFILE, 0.0f, hz);
    if (rc < 0) {
        fprintf(stderr, "heliodctl: profile: %s\n", heliod_last_error(h));
        if (out) fclose(r.f);
        heliod_close(h);
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    fprintf(r.f, "{\"heliod_profile\":1,\"hz\":%.3f,\"samples\":[", hz);
    uint64_t end = now_ms() + (uint64_t)(seconds * 1000.0);
    int gone = 0;
    while (!g_stop) {
        uint64_t now = now_ms();
        if (now >= end) break;
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        if (heliod_pending(h)) p.events |= POLLOUT;
        int left = (int)(end - now);
        if (poll(&p, 1, left) < 0 && errno != EINTR) break;
        rc = heliod_dispatch(h);
        if (rc < 0) {
            gone = 1;
            break;
        }
    }
    fputs("\n]}\n", r.f);
    int failed = out ? fclose(r.f) != 0 : fflush(stdout) != 0;
    heliod_close(h);
    if (gone) fprintf(stderr, "heliodctl: profile: the daemon went away; recording ends\n");
    fprintf(stderr, "heliodctl: profile: %lu samples%s%s\n", r.samples, out ? " in " : "",
            out ? out : "");
    return failed ? 1 : 0;
}
