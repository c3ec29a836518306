/*
 * ctl_cmd.h - what heliodctl's command language produces: a parsed command
 * (its kind, the wire message it becomes, its time) and the global options.
 * Types only: the parsers (ctl_parse.h, ctl_args_*.c, ctl_args.h) fill them,
 * heliodctl and the daemon's --render score reader consume them.
 */
#ifndef HL_CTL_CMD_H
#define HL_CTL_CMD_H

#include <stdint.h>

#include "hl_proto.h"

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
    CTL_SNAPSHOT,        /* SNAPSHOT define / set / start / stop / remove */
    CTL_SNAPSHOTS,       /* SNAPSHOTS: the snapshots with their intensity */
    CTL_CONE,            /* CONE: a sound cone on a voice, emitter or cue */
    CTL_ATTEN,           /* ATTEN: a custom attenuation curve on a voice or cue */
    CTL_BANK,            /* BANK load (waits with progress unless --no-wait) / unload */
    CTL_BANKS,           /* BANKS */
    CTL_ZONE,            /* ZONE add / remove: a world zone */
    CTL_ZONES,           /* ZONES, or --watch: the scheduler's per-tick reports */
    CTL_METER,           /* SUBSCRIBE METER: print the meters, one line per event */
    CTL_CLOCK,           /* CLOCK: the engine clock */
    CTL_PARAM,           /* PARAM: set a game parameter's value (schedulable) */
    CTL_PARAM_DEF,       /* PARAM_DEF: define a game parameter */
    CTL_PARAMS,          /* PARAMS: the game parameters */
    CTL_BIND,            /* BIND: a parameter -> curve -> a cue's property */
    CTL_CAPTURE,         /* CAPTURE start FILE / stop (`capture show` is ctl_capture.c's) */
    CTL_MUSIC,           /* MUSIC: a [music NAME] goes to a state */
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

/* A --quantize-ref value names a voice (a handle: generation >= 1 in its
 * high 32 bits) rather than an engine frame (below 2^32: 24 h at 48 kHz). */
static inline int ctl_at_ref_is_voice(uint64_t ref) {
    return ref >> 32 != 0;
}

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
        hl_snapshot_t snapshot;
        hl_cone_t cone;
        hl_atten_t atten;
        hl_bank_t bank;
        hl_zone_t zone;
        hl_param_t param;
        hl_param_def_t param_def;
        hl_bind_t bind;
        hl_capture_t capture;
        hl_music_req_t music;
        struct {
            float hz;   /* --rate: METER events per second (0 = the daemon's default, 20) */
            long count; /* --count: stop after this many events (0 = until stopped) */
        } meter;
    } m;
    ctl_at_t at; /* time options (all zero: now) */
} ctl_cmd_t;

#endif /* HL_CTL_CMD_H */
