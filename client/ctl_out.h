/*
 * ctl_out.h - heliodctl's ground floor: the options every part obeys, exit
 * codes, a request's result, and how things are shown (ctl_out.c: error
 * lines, result lines or JSON objects, enum names; ctl_reply.c: each reply
 * body). Private to heliodctl.
 */
#ifndef HL_CTL_OUT_H
#define HL_CTL_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_args.h"
#include "heliod.h"
#include "hl_proto.h"

#define CTL_EXIT_FAIL  1                    /* a request failed or the daemon is unreachable */
#define CTL_EXIT_USAGE 2                    /* bad command line */
#define CTL_LINE_MAX   (HL_MAX_PATH + 1024) /* longest batch line: a path plus options */

/* The global options (--socket, --json, --timeout), parsed by main. */
extern ctl_opts_t ctl_opts;

/* One request in flight and, once answered, its result. */
typedef struct {
    ctl_kind_t kind;
    int line; /* batch line number, 0 for a single command */
    int sent, done;
    int status;
    char *message;
    uint8_t *body;
    size_t len;
    double t_sent, t_done; /* ms, for ping */
    int at;                /* sent scheduled (HL_FLAG_AT) */
    uint64_t late;         /* then: frames it was late (applied at once) */
} ctl_result_t;

/* "heliodctl: ..." and a newline on stderr. */
void ctl_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Result lines: one per item, or (joined: batch text mode) one line of items
 * separated by " | ", ended by ctl_sink_end. */
typedef struct {
    int joined; /* batch text mode: entries joined on one line */
    int n;      /* items written on the current line */
} ctl_sink_t;
void ctl_sink_item(ctl_sink_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ctl_sink_end(ctl_sink_t *s);

/* JSON pieces on stdout: a string (quoted, escaped), a number, ",\"key\":v". */
void ctl_json_str(const char *s);
void ctl_json_num(double v);
void ctl_json_key_num(const char *key, double v);
void ctl_json_key_str(const char *key, const char *v);

/* A cue's definition as JSON members (",\"sounds\":[...],\"pick\":..." up
 * to doppler), as `cues --json` and `cue show --json` print them. */
void ctl_json_cue_fields(const hl_cue_t *c);

/* Names of wire values: voice state, end reason, virtualisation reason, an
 * hl_enum_kind_t value, a bank's state; "-" for an empty string. */
const char *ctl_state_name(unsigned s);
const char *ctl_reason_name(unsigned r);
const char *ctl_virt_reason_name(unsigned r);
const char *ctl_enum_str(hl_enum_kind_t kind, int v);
const char *ctl_bank_state(int s);
const char *ctl_dash(const char *s);

/* ctl_reply.c: prints a successful result's reply body (h: the connection,
 * for the late-frames figures); -1 when the body is malformed. */
int ctl_print_ok(heliod_t *h, const ctl_result_t *res, int batch);
/* Reports a failed result: stderr always; stdout too inside a batch. */
void ctl_print_fail(const ctl_result_t *res, int batch);
/* One event of `watch`, as a line or a JSON object. */
void ctl_print_event(const heliod_event_t *ev);

#endif /* HL_CTL_OUT_H */
