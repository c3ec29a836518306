/*
 * ctl_out.c - how heliodctl shows things: the global options it obeys
 * (--json above all), error lines on stderr, one line per result or one JSON
 * object (ctl_sink_t joins a batch's list entries with " | "), the names of wire
 * enums, a failed result, and an event of `watch`. The ground floor of
 * heliodctl: every other file of it calls down into this one.
 */
#include "ctl_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ctl_opts_t ctl_opts;

void ctl_errorf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("heliodctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void ctl_sink_item(ctl_sink_t *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (s->joined && s->n) fputs(" | ", stdout);
    vprintf(fmt, ap);
    if (!s->joined) fputc('\n', stdout);
    s->n++;
    va_end(ap);
}

void ctl_sink_end(ctl_sink_t *s) {
    if (s->joined) fputc('\n', stdout);
}

void ctl_json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

void ctl_json_num(double v) {
    if (v != v || v > 1e308 || v < -1e308)
        fputs("null", stdout);
    else
        printf("%.15g", v);
}

const char *ctl_state_name(unsigned s) {
    static const char *names[] = {"playing", "stopping", "paused", "virtual", "vpaused"};
    return s < 5 ? names[s] : "unknown";
}

const char *ctl_reason_name(unsigned r) {
    static const char *names[] = {"finished", "stopped",  "stolen",  "owner",  "shutdown",
                                  "evicted",  "distance", "emitter", "killed", "lifetime"};
    return r < sizeof names / sizeof names[0] ? names[r] : "unknown";
}

/* Why a voice became virtual (HL_VIRT_WHY_*). */
const char *ctl_virt_reason_name(unsigned r) {
    static const char *names[] = {"rank", "floor", "distance", "paused", "governed"};
    return r < sizeof names / sizeof names[0] ? names[r] : "unknown";
}

const char *ctl_dash(const char *s) {
    return s[0] ? s : "-";
}

const char *ctl_enum_str(hl_enum_kind_t kind, int v) {
    const char *n = hl_enum_name(kind, v);
    return n ? n : "unknown";
}

void ctl_json_key_num(const char *key, double v) {
    printf(",\"%s\":", key);
    ctl_json_num(v);
}

void ctl_json_key_str(const char *key, const char *v) {
    printf(",\"%s\":", key);
    ctl_json_str(v);
}

const char *ctl_bank_state(int s) {
    static const char *const n[] = {"loading", "loaded", "failed", "unloading", "unloaded"};
    return s >= 0 && s <= 4 ? n[s] : "?";
}

/* Reports a failed result: stderr always; stdout too inside a batch so every
 * command has its result line. */
void ctl_print_fail(const ctl_result_t *res, int batch) {
    const char *msg = res->message ? res->message : heliod_strerror(res->status);
    if (res->line)
        ctl_errorf("line %d: %s: %s", res->line, hl_errname(res->status), msg);
    else
        ctl_errorf("%s: %s", hl_errname(res->status), msg);
    if (!batch) return;
    if (ctl_opts.json) {
        printf("{\"line\":%d,\"ok\":false,\"error\":\"%s\",\"code\":%d,\"message\":", res->line,
               hl_errname(res->status), res->status);
        ctl_json_str(msg);
        printf("}\n");
    } else {
        printf("error %s: %s\n", hl_errname(res->status), msg);
    }
}

void ctl_print_event(const heliod_event_t *ev) {
    if (ctl_opts.json) {
        switch (ev->type) {
        case HELIOD_EVENT_ENDED:
            printf("{\"event\":\"ended\",\"voice\":%llu,\"reason\":\"%s\"}\n",
                   (unsigned long long)ev->voice, ctl_reason_name((unsigned)ev->reason));
            break;
        case HELIOD_EVENT_STARTED:
            printf("{\"event\":\"started\",\"voice\":%llu,\"time_ns\":%llu}\n",
                   (unsigned long long)ev->voice, (unsigned long long)ev->time_ns);
            break;
        case HELIOD_EVENT_VIRTUAL:
            printf("{\"event\":\"virtual\",\"voice\":%llu,\"reason\":\"%s\"}\n",
                   (unsigned long long)ev->voice, ctl_virt_reason_name((unsigned)ev->reason));
            break;
        case HELIOD_EVENT_REAL:
            printf("{\"event\":\"real\",\"voice\":%llu}\n", (unsigned long long)ev->voice);
            break;
        case HELIOD_EVENT_DEVICE_LOST:
        case HELIOD_EVENT_DEVICE_BACK:
            printf("{\"event\":\"%s\",\"device\":",
                   ev->type == HELIOD_EVENT_DEVICE_LOST ? "device-lost" : "device-back");
            ctl_json_str(ev->message ? ev->message : "");
            printf(",\"time_ns\":%llu}\n", (unsigned long long)ev->time_ns);
            break;
        case HELIOD_EVENT_RELOAD:
            printf("{\"event\":\"reload\",\"sound\":");
            ctl_json_str(ev->sound ? ev->sound : "");
            printf(",\"status\":\"%s\",\"frames\":%u,\"message\":",
                   ev->status ? hl_errname(ev->status) : "ok", ev->frames);
            ctl_json_str(ev->message ? ev->message : "");
            printf("}\n");
            break;
        case HELIOD_EVENT_BEAT:
        case HELIOD_EVENT_BAR: {
            const heliod_beat_t *b = heliod_event_beat(ev);
            if (!b) break;
            printf("{\"event\":\"%s\",\"voice\":%llu,\"frame\":%llu,\"beat\":%llu,\"bar\":%u,"
                   "\"beat_in_bar\":%u,\"bpm\":%.3f,\"time_ns\":%llu}\n",
                   ev->type == HELIOD_EVENT_BAR ? "bar" : "beat", (unsigned long long)b->voice,
                   (unsigned long long)b->frame, (unsigned long long)b->beat, b->bar,
                   b->beat_in_bar, (double)b->bpm, (unsigned long long)b->time_ns);
            break;
        }
        case HELIOD_EVENT_MARKER: {
            const heliod_beat_t *b = heliod_event_beat(ev);
            if (!b) break;
            printf("{\"event\":\"marker\",\"voice\":%llu,\"frame\":%llu,\"id\":%u,\"label\":",
                   (unsigned long long)b->voice, (unsigned long long)b->frame, ev->frames);
            ctl_json_str(ev->message ? ev->message : "");
            printf(",\"time_ns\":%llu}\n", (unsigned long long)b->time_ns);
            break;
        }
        case HELIOD_EVENT_BANK: break; /* bank load prints those */
        default:
            printf("{\"event\":\"error\",\"request_id\":%u,\"error\":\"%s\",\"message\":",
                   ev->request_id, hl_errname(ev->status));
            ctl_json_str(ev->message ? ev->message : "");
            printf("}\n");
            break;
        }
    } else {
        switch (ev->type) {
        case HELIOD_EVENT_ENDED:
            printf("ended %llu %s\n", (unsigned long long)ev->voice,
                   ctl_reason_name((unsigned)ev->reason));
            break;
        case HELIOD_EVENT_STARTED:
            printf("started %llu %llu\n", (unsigned long long)ev->voice,
                   (unsigned long long)ev->time_ns);
            break;
        case HELIOD_EVENT_VIRTUAL:
            printf("virtual %llu %s\n", (unsigned long long)ev->voice,
                   ctl_virt_reason_name((unsigned)ev->reason));
            break;
        case HELIOD_EVENT_REAL: printf("real %llu\n", (unsigned long long)ev->voice); break;
        case HELIOD_EVENT_DEVICE_LOST:
        case HELIOD_EVENT_DEVICE_BACK:
            printf("%s %s %llu\n",
                   ev->type == HELIOD_EVENT_DEVICE_LOST ? "device-lost" : "device-back",
                   ev->message ? ev->message : "", (unsigned long long)ev->time_ns);
            break;
        case HELIOD_EVENT_RELOAD:
            if (ev->status == 0)
                printf("reload %s frames=%u\n", ev->sound ? ev->sound : "", ev->frames);
            else
                printf("reload %s failed %s: %s (the old data stays)\n", ev->sound ? ev->sound : "",
                       hl_errname(ev->status), ev->message ? ev->message : "");
            break;
        case HELIOD_EVENT_BEAT:
        case HELIOD_EVENT_BAR: { /* as heliod --render-events, then the time */
            const heliod_beat_t *b = heliod_event_beat(ev);
            if (!b) break;
            printf("%s %llu %llu %llu %u %u %.3f %llu\n",
                   ev->type == HELIOD_EVENT_BAR ? "bar" : "beat", (unsigned long long)b->voice,
                   (unsigned long long)b->frame, (unsigned long long)b->beat, b->bar,
                   b->beat_in_bar, (double)b->bpm, (unsigned long long)b->time_ns);
            break;
        }
        case HELIOD_EVENT_MARKER: { /* as heliod --render-events, then the time */
            const heliod_beat_t *b = heliod_event_beat(ev);
            if (!b) break;
            printf("marker %llu %llu %u %s %llu\n", (unsigned long long)b->voice,
                   (unsigned long long)b->frame, ev->frames, ev->message ? ev->message : "",
                   (unsigned long long)b->time_ns);
            break;
        }
        case HELIOD_EVENT_BANK: break;
        default:
            printf("error %u %s: %s\n", ev->request_id, hl_errname(ev->status),
                   ev->message ? ev->message : "");
            break;
        }
    }
    fflush(stdout);
}
