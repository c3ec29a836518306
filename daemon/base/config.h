/*
 * config.h - the daemon's settings: command-line flags and the same keys in
 * an INI file given with --config FILE. Flags win over the file; both win
 * over the built-in defaults, so `heliod --driver null` needs no file at all.
 */
#ifndef HLD_CONFIG_H
#define HLD_CONFIG_H

#include <stdint.h>

#include "hl_proto.h"

typedef enum {
    HLD_DRIVER_AUTO = 0, /* PortAudio's default output if it opens, else null */
    HLD_DRIVER_PORTAUDIO,
    HLD_DRIVER_NULL,   /* paced by a timer thread, no device */
    HLD_DRIVER_RENDER, /* --render: no device, no pacing (render.c pulls the periods) */
} hld_driver_t;

typedef struct {
    char socket_path[HL_MAX_PATH + 1]; /* "" = the default path */
    hld_driver_t driver;
    char device[HL_MAX_DEVNAME + 1]; /* "" = default output device */
    int list_devices;
    uint32_t rate, period, voices;
    char record[HL_MAX_PATH + 1];  /* "" = no recording */
    char capture[HL_MAX_PATH + 1]; /* --capture: "" = no session capture */
    int capture_audio;             /* --capture-audio: the LOADed files' bytes too */
    int log_level;                 /* hld_log_level_t */
    uint32_t max_sample_mb;
    uint32_t virtual_voices;    /* logical voices (0 before load: 4 x voices) */
    char cues[HL_MAX_PATH + 1]; /* cue sheet loaded at start, "" = none */
    float speed_of_sound;       /* m/s, Doppler */
    uint32_t interp_flags;      /* --interp: HL_PLAY_CUBIC, HL_PLAY_SINC or 0 (linear) */
    float floor_db;             /* audibility floor of virtual voices */
    uint32_t max_clients;       /* connections at once, 1..HL_MAX_CLIENTS */
    /* per-client quotas (0 before load: the defaults of hld_limits.h) */
    uint32_t client_voices, client_detached, client_streams, client_loads, client_sample_mb;
    /* named objects one process may hold (0 = the default: a quarter of each table) */
    uint32_t client_cues, client_categories, client_emitters, client_buses, client_rzones;
    uint32_t client_params;
    uint32_t client_scheduled;
    float detached_loop_max_s; /* 0 = detached loops play until stopped */
    float cpu_budget;          /* % of the period the callback may use; 0 = no governor */
    /* world zones (0 before load: the scheduler's defaults) */
    uint32_t zone_budget_kb, zone_cap_mb, zone_tick_hz;
    float zone_pin_radius;
    /* [bus NAME] sections of the config file, in file order (config_bus_t) */
    struct hld_config_bus *buses;
    uint32_t n_buses;
    /* headphones: binaural 3D voices (--hrtf) */
    int hrtf;                        /* 1: on */
    char hrtf_path[HL_MAX_PATH + 1]; /* SOFA file, "" = the libmysofa default set */
    /* offline render (render.c): a score in, a WAV out, no socket, no device */
    char render[HL_MAX_PATH + 1];        /* --render SCORE, "" = serve clients */
    char out[HL_MAX_PATH + 1];           /* --out FILE.wav */
    char render_events[HL_MAX_PATH + 1]; /* --render-events FILE: BEAT/BAR lines, "" = none */
    uint32_t render_max_s;               /* --max-seconds: the longest render (0 = the default) */
    uint64_t seed;                       /* --seed N: cue variations (0 = the built-in seed) */
    int watch_assets;                    /* --watch-assets: reload loaded files that change */
    /* --layout: the output's speakers (hl_layout_t: stereo, quad, 5.1, 7.1) and
     * their count, the channels of the device, the recording and the render */
    uint32_t layout, channels;
    /* --mix-threads: threads that mix large scenes, the audio thread included
     * (mix_workers.h); 0 before load: hld_mix_threads_default() */
    uint32_t mix_threads;
} hld_config_t;

/* One [bus NAME] section: applied once the mixer exists (hld_config_buses).
 * Keys: parent, gain (dB), mute (0/1), fx (repeatable: "KIND --PARAM V ..."),
 * duck-by, duck-depth, duck-threshold, duck-attack, duck-hold, duck-release. */
#define HLD_MAX_CONFIG_FX 8
typedef struct hld_config_bus {
    char name[HL_MAX_NAME + 1];
    char parent[HL_MAX_NAME + 1];
    float gain_db;
    int has_gain, mute;
    char fx[HLD_MAX_CONFIG_FX][256];
    uint32_t nfx;
    char duck_by[HL_MAX_NAME + 1];
    float duck[5]; /* depth, threshold, attack, hold, release */
    int line;      /* where the section starts, for messages */
    char file[HL_MAX_PATH + 1];
} hld_config_bus_t;

#endif /* HLD_CONFIG_H */
