/*
 * ctl_args.h - heliodctl's command language: global options, per-command
 * argument parsing into wire messages, request body encoding, and batch line
 * splitting. Kept apart from heliodctl.c (which talks to the daemon) so it can
 * be unit-tested without a daemon. Everything here is single-threaded, does no
 * socket I/O and keeps no global state.
 */
#ifndef HL_CTL_ARGS_H
#define HL_CTL_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "hl_proto.h"

#define CTL_MAX_ARGS           64  /* words on one batch line */
#define CTL_ERR_LEN            256 /* room for one error message */
#define CTL_DEFAULT_TIMEOUT_MS 5000

typedef enum {
    CTL_STATUS,
    CTL_DEVICES,
    CTL_LOAD,
    CTL_UNLOAD,
    CTL_SOUNDS,
    CTL_PLAY,
    CTL_STOP,
    CTL_STOP_ALL,
    CTL_SET,
    CTL_LISTENER,
    CTL_BUS,
    CTL_VOICES,
    CTL_STATS,
    CTL_PING,
    CTL_WATCH,
    CTL_BATCH,
    CTL_PAUSE,     /* pause VOICE (-> SET) | pause --all (-> CTL_PAUSE_ALL) */
    CTL_RESUME,    /* resume VOICE | resume --all */
    CTL_PAUSE_ALL, /* PAUSE request: every voice, or a bus's or a category's (--bus, --category) */
    CTL_CUE,       /* CUE: define or redefine a cue */
    CTL_CATEGORY,  /* CATEGORY: define or redefine a category */
    CTL_CUES,      /* CUES: list cues and categories with counters (also `stats --cues`) */
    CTL_CUES_LOAD, /* CUES_LOAD: `cues load FILE` */
    CTL_EMITTER,   /* EMITTER create / set (empty reply) */
    CTL_EMITTER_DESTROY, /* EMITTER destroy (count reply) */
    CTL_DEVICE,          /* DEVICE NAME: switch the output device */
    CTL_BUSES,           /* BUSES: the bus tree */
    CTL_FX,              /* FX add / set / remove (count reply: the index) */
    CTL_FX_LIST,         /* FX_LIST [BUS] */
    CTL_DUCK,            /* DUCK: a ducking rule on or off */
    CTL_DUCKS,           /* DUCKS: the rules */
    CTL_RZONE,           /* RZONE set / remove: a reverb zone */
    CTL_RZONES,          /* RZONES: the reverb zones */
    CTL_BANK,            /* BANK load (waits with progress unless --no-wait) / unload */
    CTL_BANKS,           /* BANKS */
    CTL_ZONE,            /* ZONE add / remove: a world zone */
    CTL_ZONES,           /* ZONES, or --watch: the scheduler's per-tick reports */
    CTL_METER,           /* SUBSCRIBE METER: print the meters, one line per event */
    CTL_CLOCK,           /* CLOCK: the engine clock */
} ctl_kind_t;

/* time: when a play, stop, set, bus or listener command applies (--at,
 * --at-frame, --quantize; a batch line's @ prefix) */
typedef enum {
    CTL_AT_NONE = 0,
    CTL_AT_FRAME, /* engine frame `frame` */
    CTL_AT_MS,    /* `ms` after now (a batch: after the batch's first timed line) */
} ctl_at_kind_t;
typedef struct {
    ctl_at_kind_t kind;
    uint64_t frame;
    double ms;
    uint64_t quantize; /* frames; 0 = off: the start moves to the next multiple from ref */
    uint64_t qref;     /* reference frame of the grid */
} ctl_at_t;

typedef struct {
    const char *socket; /* NULL = libheliod's default */
    int json;
    int timeout_ms;
    int help, version;
} ctl_opts_t;

typedef struct {
    ctl_kind_t kind;
    uint16_t op;      /* wire request opcode */
    int help;         /* "COMMAND --help": print its usage, do nothing */
    int wait;         /* play --wait */
    int json;         /* cues --json, stats --cues --json: same as the global --json */
    const char *file; /* batch: NULL or "-" = stdin (points into argv) */
    union {
        hl_load_t load;
        hl_name_t name;
        hl_play_t play;
        hl_stop_t stop;
        hl_stop_all_t stop_all;
        hl_set_t set;
        hl_listener_t listener;
        hl_bus_t bus;
        hl_stats_req_t stats;
        hl_pause_t pause;
        hl_cue_t cue;
        hl_category_t category;
        hl_cues_load_t cues_load;
        hl_emitter_t emitter;
        hl_device_req_t device;
        hl_fx_req_t fx;
        hl_duck_rule_t duck;
        hl_rzone_t rzone;
        hl_bank_t bank;
        hl_zone_t zone;
        struct {
            float hz;   /* --rate: METER events per second (0 = the daemon's default, 20) */
            long count; /* --count: stop after this many events (0 = until stopped) */
        } meter;
    } m;
    ctl_at_t at; /* time options (all zero: now) */
} ctl_cmd_t;

/* Parses the global options in argv[1..]; *next gets the index of the command
 * word (== argc if none). Returns 0 or -1 with a message in err. */
int ctl_parse_global(int argc, char **argv, ctl_opts_t *o, int *next, char *err, size_t errlen);

/* Parses one command; argv[0] is the command word. Returns 0 or -1 with a
 * message in err. Relative load paths are made absolute (the daemon has its
 * own working directory) when the file exists; a relative `cues load` FILE is
 * always made absolute against the current directory. */
int ctl_parse_command(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);

/* Encodes the request body of c into buf; returns its length or a negative
 * HELIOD_E* code. */
int ctl_encode(const ctl_cmd_t *c, uint8_t *buf, size_t cap);

/* Splits a batch line in place into words (whitespace separated; '...' and
 * "..." quote, backslash escapes the next character outside single quotes; a
 * word starting with '#' ends the line). Returns the word count (0 for a blank
 * or comment line) or -1 with a message in err. */
int ctl_split_line(char *line, char **argv, int max, char *err, size_t errlen);

/* A time: "+MS", "+MSms", "+Ss" (after now) or "FRAME" (an engine frame).
 * 0 or -1 with a message in err. */
int ctl_parse_at(const char *s, ctl_at_t *at, char *err, size_t errlen);
/* The frame a command's time resolves to: now_frame + ms for CTL_AT_MS
 * (origin_frame is the frame "now" means), the frame itself for
 * CTL_AT_FRAME, origin_frame for CTL_AT_NONE; then moved up to the next
 * multiple of at->quantize counted from at->qref when quantising. */
uint64_t ctl_at_resolve(const ctl_at_t *at, uint64_t origin_frame, uint32_t rate);

/* A --quantize-ref value names a voice (a handle: generation >= 1 in its
 * high 32 bits) rather than an engine frame (below 2^32: 24 h at 48 kHz). */
static inline int ctl_at_ref_is_voice(uint64_t ref) {
    return ref >> 32 != 0;
}

/* Strict number parsers: whole string, finite, in range. 0 or -1. */
int ctl_parse_float(const char *s, float *out);
int ctl_parse_int(const char *s, long min, long max, long *out);
int ctl_parse_u64(const char *s, uint64_t *out);
int ctl_parse_vec3(const char *s, float out[3]);

/* Usage text of a command word, or of the tool when cmd is NULL/unknown. */
const char *ctl_usage(const char *cmd);

#endif /* HL_CTL_ARGS_H */
