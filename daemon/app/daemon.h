/*
 * daemon.h - the daemon's shared state: one hld_daemon_t owned by main(),
 * touched only on the libuv main thread (the audio thread sees only the
 * engine's mixer, the workers only their own jobs).
 *
 *   main.c      parse, configure, run
 *   server.c    socket path, listener, socket activation, accept
 *   conn.c      per-client buffers, framing, batched writes, backpressure
 *   dispatch.c  framing, replies, the opcode table, sound/listener/bus/stats ops
 *   voice_play.c PLAY and the play core (music_ops.c, stream_ops.c)
 *   stream_jobs.c streamed sounds opened on the decoder pool (play, seek, realise)
 *   voice_ops.c STOP, SET, CONE, ATTEN, PAUSE, VOICES: requests on logical voices
 *   stream_ops.c STREAM: client-fed streams (their shared rings)
 *   cue_ops.c   CUE, CATEGORY, CUES, CUES_LOAD
 *   emitter_ops.c EMITTER
 *   cues.c      cue and category definitions, cue sheets
 *   clients.c   the per-client ledger: quotas, control clients
 *   governor.c  the CPU-budget governor: how many voices may be real
 *   governor_policy.c  its decisions, from one poll's figures (no daemon state)
 *   governor_calib.c   its start-up price of a worst-case voice (a private mixer)
 *   vm.c        the voice manager: the pool, stop/set/pause, mixer events (vm.h)
 *   vm_admit.c  admission: limits, overflow policies, steals, real or virtual
 *   vm_rank.c   positions, audibility, ranking into real and virtual voices
 *   emitters.c  emitters that carry voices
 *   loop.c      the poll tick over every subsystem, signals, shutdown, watchdog
 *   events.c    mixer events, the voice manager's callbacks, owner sweeps
 *   notify.c    EVENT frames to subscribers
 *   owners.c    what a client leaves behind: moved to its process, or reclaimed
 *   stats.c     the STATS key/value list
 *   metering.c  meters and loudness on the main thread; METER events (meter_tap.c: the
 *               audio thread's side)
 *   decoder.c   the streaming decoder pool (its own threads)
 */
#ifndef HLD_DAEMON_H
#define HLD_DAEMON_H

#include <stdint.h>
#include <uv.h>

/* the headers of the members held by value; conn.h brings the config,
 * ledger, counters and sounds, telemetry.h the engine, buses, voice
 * manager and decoder */
#include "banks.h"
#include "cues.h"
#include "device.h"
#include "params.h"
#include "fileio.h"
#include "governor.h"
#include "reverb_zones.h"
#include "sounds_watch.h"
#include "telemetry.h"
#include "snapshots.h"

struct hld_stream_job;
struct hld_cstream;

/* A connection's playing [music NAME] (music_ops.c): its state's track and
 * the transition waiting for its frame, if any. */
#define HLD_MUSIC_INSTANCES 32
typedef struct hld_music_inst {
    uint32_t conn; /* its connection's id; 0: a free slot */
    const struct hld_music *mu;
    int state;      /* the state whose track `voice` plays */
    uint64_t voice; /* 0: none yet */
    int pending;    /* a transition waits for `at` */
    int to;
    uint64_t at; /* its WHEN frame */
    hld_music_trans_t t;
    uint64_t layer[HLD_MUSIC_STATE_LAYERS]; /* the state's layers' voices, with `voice` */
    uint32_t nlayer;
} hld_music_inst_t;

typedef struct hld_daemon {
    uv_loop_t *loop;
    hld_config_t cfg;
    hld_engine_t engine;
    hld_sounds_t sounds;
    hld_decoder_t decoder;                /* streaming voices' decoder pool */
    hld_cues_t cues;                      /* cue and category definitions */
    hld_params_t params;                  /* game parameters and their values (params.h) */
    hld_clients_t ledger;                 /* per-client ledger and quotas (clients.c) */
    hld_governor_t governor;              /* real voices the CPU budget affords (governor.c) */
    hld_buses_t buses;                    /* bus names and tree, effects, ducking (buses.c) */
    hld_snaps_t snaps;                    /* mixer snapshots (snapshots.c) */
    uint32_t lis_owner[HL_MIX_LISTENERS]; /* client id that turned listener k (>= 1) on */
    hld_rzones_t rzones;                  /* reverb zones following the listener (reverb_zones.c) */
    hld_banks_t banks;                    /* sound banks (banks.c) */
    hld_files_t files;         /* the files requests name, read off the loop (fileio.c) */
    hld_watch_t watch;         /* --watch-assets: hot reload (sounds_watch.c) */
    struct hld_wzones *wzones; /* world zones: banks loaded by the listener's position (main's) */
    hld_vm_t *vm;              /* logical voices: admission, virtual voices, emitters */
    hld_devices_t devices;     /* device switch, loss and recovery (device.c) */
    hld_counters_t n;
    struct hld_capture
        *capture; /* --capture or CAPTURE: the session capture (capture.h), or NULL */
    struct hld_capture *capture_ended; /* the last one CAPTURE stopped: its writer finishing */
    int capture_opening;               /* a CAPTURE start's file job is opening its file */
    struct {                           /* a closing connection's CLOSE record, until its */
        uint64_t frame;                /* voices' stops are queued (dispatch.c) */
        uint32_t pushed, client;
        int phase, pending;
    } capture_close;
    uint64_t start_ns;

    hld_net_t net;       /* the socket and the connections (net/conn.h) */
    hld_telemetry_t tel; /* what telemetry/ reads (its table of the above) */

    /* streamed plays and seeks being opened by the decoder pool (stream_jobs.c) */
    uv_async_t decoder_async; /* a decoder thread finished an open */
    int decoder_async_open;
    struct hld_stream_job *stream_jobs; /* in flight (doubly linked) */
    struct hld_cstream *cstreams;       /* client-fed streams the mixer holds (stream_ops.c) */

    /* events / lifecycle */
    uv_timer_t poll_timer;
    uv_signal_t sig_int, sig_term;
    int owner_sweep;          /* a connection closed: fade its voices (retried while EBUSY) */
    uint64_t expire_next_ns;  /* next check of detached loops against --detached-loop-max-s */
    int reclaim_pending;      /* a gone process left objects a voice still needs (owners.c) */
    uint64_t reclaim_next_ns; /* next check of them */
    int shutting_down;        /* 1: fading, 2: closing handles */
    int shutdown_stop_pending;
    uint64_t shutdown_start_ns;
    int exit_code;

    /* music (music.c): beats reported up to this engine frame; --render's
     * --render-events file (NULL: none) */
    uint64_t music_horizon;
    void *music_log;                                /* FILE * */
    hld_music_inst_t music_in[HLD_MUSIC_INSTANCES]; /* MUSIC's instances (music_ops.c) */
} hld_daemon_t;

/* ---- events.c: what the mixer and the voice manager report ---- */
/* Fades out the voices of connections that are gone (call when one closes). */
void hld_events_owner_sweep(hld_daemon_t *d);
/* Creates the voice manager over the engine's mixer (after hld_engine_open).
 * 0 or HELIOD_ENOMEM. */
int hld_events_vm_open(hld_daemon_t *d);
/* Drains the mixer's event ring: streams given back, voice ends and starts
 * to the voice manager, retired effects to the bus registry. */
void hld_events_mix(hld_daemon_t *d);
/* Ends detached loops older than --detached-loop-max-s (checked every
 * HLD_LIFETIME_CHECK_MS at most). */
void hld_events_expire(hld_daemon_t *d, uint64_t now);
/* Shutdown: every voice fades out (reason SHUTDOWN). 0, or HELIOD_EBUSY
 * if the command ring filled (try again at the next tick). */
int hld_events_stop_all(hld_daemon_t *d);
/* 1 while a mixer slot or a logical voice still holds a voice. */
int hld_events_busy(hld_daemon_t *d);

/* BEAT and BAR events of the music voices due up to the next poll (music.c). */
void hld_music_tick(hld_daemon_t *d);
/* MUSIC's transitions waiting for their frame: scheduled once it is near
 * (music_ops.c); instances of closed connections dropped. */
void hld_music_trans_tick(hld_daemon_t *d);
/* A gone process's [music NAME] sections (owner `owner`): its instances
 * dropped, the sections freed (music_ops.c; owners.c calls it). */
void hld_music_reclaim(hld_daemon_t *d, uint32_t owner);
/* hld_vm_ops_t.beat: a beat the voice manager reports before a SET or seek
 * re-anchors its voice (music.c). */
struct hld_vm_beat;
void hld_music_vm_beat(void *user, const struct hld_vm_beat *b);

/* ---- stream_ops.c: client-fed streams ---- */
/* 1 if s is a client-fed stream (its memory is the client's). */
int hld_cstream_is(const hl_stream_t *s);
/* The mixer (or the voice manager) let go of client stream s, whose voice
 * ended for `reason` (HL_END_*): its client is told in the shared header
 * and woken, the mapping unmapped, its bytes given back. */
void hld_cstream_release(hld_daemon_t *d, hl_stream_t *s, int reason);
/* VOICES' view of the client-fed stream playing voice: its name
 * ("stream:<client>") and position (the frames the mixer consumed from the
 * ring, in seconds). -1 if no stream plays voice. Main thread. */
int hld_cstream_describe(const hld_daemon_t *d, uint64_t voice, char *name, size_t cap,
                         double *position_s);
/* One poll tick: STREAM events and wake-ups of writers waiting for room. */
void hld_cstreams_tick(hld_daemon_t *d);
/* Exit, the audio thread gone: unmaps every ring left (before the ledger goes). */
void hld_cstreams_close(hld_daemon_t *d);

/* time_ops.c: frames for a duration at the engine rate (rounded, >= 0). */
uint32_t hld_ms_to_frames(const hld_daemon_t *d, float ms);
/* bus_ops.c: creates the config file's [bus NAME] sections (buses, effects,
 * ducking) once the mixer exists. 0, or -1 after printing why. */
int hld_config_buses(hld_daemon_t *d);
/* asset_ops.c: banks.c's change callback (BANK events, world zones). */
void hld_assets_bank_changed(void *user, const hld_bank_t *b);
/* asset_ops.c: banks.c's sheet hook: a client's bank's cue sheet applied
 * as that client, with CUE's and CATEGORY's rules. */
int hld_assets_bank_sheet(void *user, uint32_t client, const char *path, const char *text,
                          size_t len, char *err, size_t cap);
/* asset_ops.c: sounds.c's reload callback (a log line is sounds.c's; this
 * sends RELOAD events to BANK subscribers). */
void hld_assets_reloaded(void *user, const hld_sound_t *snd, int status, const char *msg);

/* param_ops.c: applies the bus-gain, effect and snapshot bindings of game
 * parameters when a global value moved, on the mixer's frame (the voice
 * manager's params_applied hook, after each evaluation of the values) ... */
void hld_params_bus_apply(void *user);
/* ... and at once what a full command ring left for later (every poll). */
void hld_params_bus_tick(hld_daemon_t *d);

#endif /* HLD_DAEMON_H */
