/*
 * heliod.h - libheliod, the C client library of the heliod audio daemon.
 *
 * A connection is a heliod_t. It is not thread-safe: use one connection per
 * thread, or serialise calls. Two ways to use it:
 *
 *  - Blocking: every request function sends its request and waits for the
 *    reply (events that arrive meanwhile are queued for the event callback).
 *  - Non-blocking: the *_async functions only append the request to an
 *    output batch and return at once; heliod_flush() writes the batch,
 *    heliod_fd() gives a descriptor to poll for input, and heliod_dispatch()
 *    reads what has arrived and invokes the reply and event callbacks. A game
 *    calls heliod_dispatch() once per frame.
 *
 * Every function returns 0 (or a count), or a negative heliod_errno_t code;
 * heliod_strerror() gives its message and heliod_last_error() the server's
 * own message for the last failed request on that connection.
 */
#ifndef HELIOD_H
#define HELIOD_H

#include <stddef.h>
#include <stdint.h>

#include "heliod_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HELIOD_VERSION_STRING "0.1.0"

typedef struct heliod heliod_t;
typedef uint64_t heliod_voice_t; /* 0 is never a valid voice */

/* Message for any heliod_errno_t code; never NULL. */
const char *heliod_strerror(int err);

/* Default socket path, the same one heliod listens on by default (both use
 * proto/hl_paths.h): $HELIOD_SOCKET, else $XDG_RUNTIME_DIR/heliod/heliod.sock,
 * else /tmp/heliod-$UID/heliod.sock. Writes into buf; returns 0 or HELIOD_EINVAL. */
int heliod_default_socket(char *buf, size_t cap);

typedef struct {
    uint32_t protocol_version;
    uint32_t rate, period, voices;
    uint32_t client_id;
    char server_version[64];
    uint32_t flags; /* HELIOD_CONNECT_* granted */
} heliod_server_info_t;

/* heliod_connect_flags: a control client (tools such as heliodctl, an
 * editor) may stop, change and pause every client's voices, unload every
 * shared sound, move every emitter, and uses the places the daemon keeps
 * above --max-clients. A game connects without it: its requests reach its
 * own voices, sounds and emitters only (see PROTOCOL.md, "Clients"). */
#define HELIOD_CONNECT_CONTROL 0x1u

/* Connects and performs the handshake. path NULL = heliod_default_socket().
 * client_name NULL = "libheliod". Blocking. On failure returns the daemon's own
 * code when it refused the connection (HELIOD_EBUSY "server full ...",
 * HELIOD_EHANDSHAKE for a handshake timeout or a peer of another user,
 * HELIOD_ESHUTDOWN), HELIOD_ECONNECT when nothing listens or the socket cannot
 * be reached, or another transport error; heliod_last_error(NULL) then gives
 * the message (the daemon's, or e.g. "cannot connect to PATH: Permission
 * denied"), per thread, until the next heliod_connect() of that thread. */
int heliod_connect(heliod_t **out, const char *path, const char *client_name);
/* heliod_connect with HELIOD_CONNECT_* flags. */
int heliod_connect_flags(heliod_t **out, const char *path, const char *client_name, uint32_t flags);
/* Flushes pending async requests (best effort), closes, frees. NULL is fine. */
void heliod_close(heliod_t *h);
const heliod_server_info_t *heliod_server_info(const heliod_t *h);
/* The protocol minor version the handshake agreed (the major is
 * heliod_server_info()->protocol_version): the lower of the daemon's and
 * this library's; 0 against a daemon of protocol 1.0. */
unsigned heliod_protocol_minor(const heliod_t *h);
/* Server's message for the last failed request (or a local one); never NULL.
 * h NULL: why this thread's last heliod_connect() failed ("no connection" if
 * it did not). */
const char *heliod_last_error(const heliod_t *h);
/* Timeout for blocking calls in ms (default 5000; <= 0 = wait forever). */
void heliod_set_timeout(heliod_t *h, int timeout_ms);

/* ---- sounds ---- */
/* HELIOD_LOAD_STREAM: open and validate now, decode while playing (music,
 * long sounds): each voice gets its own decoder position and a small ring. */
#define HELIOD_LOAD_STREAM 0x1u
/* HELIOD_LOAD_SHARED: visible to every client under its name (default: this
 * connection's own, gone when it closes). Only the loader or a control
 * client may unload it. A client's own sound hides a shared one of the same
 * name from that client. */
#define HELIOD_LOAD_SHARED 0x2u
typedef struct {
    char name[64];
    uint32_t frames; /* at the engine rate */
    uint32_t channels;
    uint32_t source_rate;
    uint32_t flags; /* HELIOD_LOAD_* */
    uint32_t playing;
    uint32_t owner; /* client id of the connection that loaded it */
} heliod_sound_info_t;
int heliod_ping(heliod_t *h, uint64_t *server_time_ns);
/* Decodes path (any format libsndfile reads) into a named sound. info may be NULL.
 * A relative path is resolved against the caller's working directory first
 * (the daemon has its own and takes absolute paths only). */
int heliod_load(heliod_t *h, const char *name, const char *path, uint32_t flags,
                heliod_sound_info_t *info);
int heliod_unload(heliod_t *h, const char *name);
/* Loads a sound from an encoded file in memory (Ogg, FLAC, WAV ... as
 * heliod_load reads them), sent over the socket: for games that do not share
 * a filesystem with the daemon. Up to 256 MiB, counted against the
 * daemon's sample-memory budget before it allocates anything. flags:
 * HELIOD_LOAD_SHARED, HELIOD_LOAD_PIN (an upload is preloaded, never
 * streamed). Blocking: returns when the sound is decoded.
 * How it travels: the bytes are copied into a sealed memfd whose descriptor
 * goes with one LOAD_FD frame (SCM_RIGHTS; the daemon reads it, nothing is
 * copied through the socket); when that is not available (memfd_create
 * fails, a daemon that answers LOAD_FD with EBADOP, or the environment
 * variable HELIOD_UPLOAD=chunks) in LOAD_DATA chunks of 60000 bytes. The
 * daemon's STATS uploads_fd and uploads_chunked count each way. */
int heliod_load_memory(heliod_t *h, const char *name, const void *data, size_t size, uint32_t flags,
                       heliod_sound_info_t *info);
/* Fills up to cap entries; *count = entries filled. Returns 0 or 1 if the
 * server's list was truncated, or an error. */
int heliod_sounds(heliod_t *h, heliod_sound_info_t *arr, size_t cap, size_t *count);

/* ---- voices ---- */
/* A voice's post stage: filters, occlusion and sends (all zero = none).
 * occlusion (a wall between: quieter and duller) and obstruction (something
 * in the direct path: duller only) are in [0, 1] and map to a gain and a
 * low-pass cutoff by the curve in proto/PROTOCOL.md; lp_hz/hp_hz are plain
 * cutoffs (0 = off; the lower of lp_hz and the occlusion's cutoff wins).
 * send[i] names a bus the voice also feeds at send_db (e.g. a reverb bus),
 * "" = no send. */
#define HELIOD_SENDS 2
typedef struct {
    float lp_hz, hp_hz;
    float occlusion, obstruction;
    char send[HELIOD_SENDS][64];
    float send_db[HELIOD_SENDS];
} heliod_post_t;

#define HELIOD_PLAY_LOOP     0x1u
#define HELIOD_PLAY_3D       0x2u
#define HELIOD_PLAY_DETACHED 0x4u
#define HELIOD_PLAY_PAUSED   0x8u
#define HELIOD_PLAY_CUBIC    0x10u /* 4-point cubic interpolation */
#define HELIOD_PLAY_SINC     0x40u /* band-limited windowed sinc: the best quality */
#define HELIOD_PLAY_LINEAR   0x80u /* linear, whatever the cue or daemon default */
/* No interpolator flag: the cue's, else the daemon's default (--interp, linear). */
#define HELIOD_DIST_LINEAR      0
#define HELIOD_DIST_INVERSE     1
#define HELIOD_DIST_EXPONENTIAL 2
typedef struct {
    uint32_t flags;
    float gain_db;                             /* default 0 */
    float pan;                                 /* default 0 (centre) */
    float pos[3];                              /* used with HELIOD_PLAY_3D */
    float pitch;                               /* default 1 */
    int32_t priority;                          /* default 0 */
    float fade_in_ms;                          /* default -1 = the server's short anti-click fade */
    float min_distance, max_distance, rolloff; /* default 1, 100, 1 */
    int distance_model;                        /* default HELIOD_DIST_INVERSE */
    char bus[64];                              /* default "" = "sfx" */
    /* Loop region in frames at the sound's SOURCE rate (0/0 = whole sound),
     * used with HELIOD_PLAY_LOOP: loop_count 0 = forever, N = N extra passes
     * then on to the end. loop_xfade_ms: crossfade at the loop end (preloaded
     * and streamed sounds; 0 = sample-exact). Defaults 0. */
    uint32_t loop_start, loop_end, loop_count;
    float loop_xfade_ms;
    /* Voice management (defaults: zero, "", 0). vel: source velocity in m/s
     * for Doppler (3D). emitter: "" or the name of an emitter the voice
     * follows (heliod_emitter_create). over: when `sound` names a cue, the
     * HELIOD_OVER_* fields given here replace the cue's; without a bit the
     * cue's own value is used. gain_db adds to the cue's gain and pitch
     * multiplies its pitch; flags LOOP/3D/CUBIC are OR'd with the cue's. */
    float vel[3];
    char emitter[64];
    uint32_t over;
    heliod_post_t post; /* filters, occlusion, sends (default none) */
} heliod_play_params_t;
#define HELIOD_OVER_PRIORITY 0x1u  /* priority */
#define HELIOD_OVER_BUS      0x2u  /* bus */
#define HELIOD_OVER_FADE_IN  0x4u  /* fade_in_ms */
#define HELIOD_OVER_DISTANCE 0x8u  /* min_distance, max_distance, rolloff, distance_model */
#define HELIOD_OVER_PAN      0x10u /* pan */
#define HELIOD_OVER_FILTER   0x20u /* post.lp_hz, hp_hz, occlusion, obstruction */
#define HELIOD_OVER_SENDS    0x40u /* post.send, send_db */
/* Defaults identical to a plain play: gain 0, pan 0, pitch 1, priority 0,
 * server fade-in, distance 1/100/1 inverse, "sfx", no loop region, zero
 * velocity, no emitter, no overrides. */
void heliod_play_params_init(heliod_play_params_t *p);

/* Blocking play of a cue or a sound (a cue of that name is looked up first):
 * *voice gets the handle (stolen may be NULL). Cue plays can fail with
 * HELIOD_EINTERVAL, HELIOD_EDISTANCE, HELIOD_ECUELIMIT, HELIOD_ECATLIMIT or
 * HELIOD_ENOVOICES; an unknown emitter gives HELIOD_ENOEMITTER. */
int heliod_play(heliod_t *h, const char *sound, const heliod_play_params_t *p,
                heliod_voice_t *voice, heliod_voice_t *stolen);
int heliod_stop(heliod_t *h, heliod_voice_t voice, float fade_ms);
/* heliod_stop with the fade's curve: HELIOD_CURVE_LINEAR / _EQUAL_POWER / _LOG,
 * or -1 for the voice's own (its cue's curve; linear for a plain sound, which
 * is what heliod_stop uses). Blocking. */
int heliod_stop_curve(heliod_t *h, heliod_voice_t voice, float fade_ms, int curve);
/* Stops every voice this connection started (everyone = 0) or every voice of
 * every client (everyone = 1); *count (may be NULL) gets how many. */
int heliod_stop_all(heliod_t *h, float fade_ms, int everyone, uint32_t *count);

#define HELIOD_SET_GAIN   0x1u
#define HELIOD_SET_PAN    0x2u
#define HELIOD_SET_POS    0x4u
#define HELIOD_SET_PITCH  0x8u
#define HELIOD_SET_PAUSE  0x10u /* fade out over ramp_ms, then hold (fades do not advance) */
#define HELIOD_SET_RESUME 0x20u /* fade back in */
#define HELIOD_SET_SEEK   0x40u /* jump to seek_s seconds, click-free (preloaded or streamed) */
#define HELIOD_SET_VEL    0x80u /* source velocity (Doppler) */
/* the post stage (post.*), each gliding over ramp_ms: */
#define HELIOD_SET_LP          0x100u
#define HELIOD_SET_HP          0x200u
#define HELIOD_SET_OCCLUSION   0x400u
#define HELIOD_SET_OBSTRUCTION 0x800u
#define HELIOD_SET_SENDS       0x1000u /* both sends: names and levels */
typedef struct {
    uint32_t mask;
    float gain_db, pan, pos[3], pitch;
    float ramp_ms;      /* every change ramps over this (default 0 = the server's one-block ramp) */
    double seek_s;      /* HELIOD_SET_SEEK: position in seconds from the sound's start */
    float vel[3];       /* HELIOD_SET_VEL: m/s */
    heliod_post_t post; /* HELIOD_SET_LP .. HELIOD_SET_SENDS */
} heliod_voice_set_t;
int heliod_set(heliod_t *h, heliod_voice_t voice, const heliod_voice_set_t *s);
/* Pauses (pause = 1) or resumes (0) every voice this connection started
 * (everyone = 0) or every voice of every client (1); *count (may be NULL)
 * gets how many changed. Blocking. */
int heliod_pause_all(heliod_t *h, int pause, int everyone, uint32_t *count);
#define HELIOD_PAUSE_BUS      2 /* every voice on a bus (any client) */
#define HELIOD_PAUSE_CATEGORY 3 /* every voice of a category (any client) */
/* Pauses (pause = 1) or resumes (0) every voice on the bus (scope
 * HELIOD_PAUSE_BUS) or of the category (HELIOD_PAUSE_CATEGORY) called name,
 * whoever started it; *count (may be NULL) gets how many changed. Returns 0,
 * HELIOD_EINVAL (scope or name), HELIOD_ENOBUS / HELIOD_ENOCATEGORY, or a
 * connection error. Blocking; the connection's thread. */
int heliod_pause_group(heliod_t *h, int scope, const char *name, int pause, uint32_t *count);

#define HELIOD_LIS_POS 0x1u
#define HELIOD_LIS_FWD 0x2u
#define HELIOD_LIS_UP  0x4u
#define HELIOD_LIS_VEL 0x8u
typedef struct {
    uint32_t mask;
    float pos[3], fwd[3], up[3], vel[3];
} heliod_listener_t;
int heliod_set_listener(heliod_t *h, const heliod_listener_t *l);

/* ---- the mixer graph: buses, effects, ducking ---- */
/* Bus gain ("sfx", "music", "dialog", "ui", "master", or a bus you created). */
int heliod_bus_gain(heliod_t *h, const char *bus, float gain_db, float ramp_ms);
/* Mutes (1) or unmutes (0) a bus with a ramp; its gain is kept. */
int heliod_bus_mute(heliod_t *h, const char *bus, int mute, float ramp_ms);
/* A new bus under parent ("" or "master" = the master). Up to 32 buses,
 * the four defaults included. HELIOD_EEXIST if the name is taken. */
int heliod_bus_create(heliod_t *h, const char *name, const char *parent);
/* Removes a bus you created, with its effects and the ducking rules naming
 * it. HELIOD_EBUSINUSE while voices play on it or send to it, or it has
 * child buses. */
int heliod_bus_remove(heliod_t *h, const char *name);
/* Moves a bus under another parent (HELIOD_EINVAL if that makes a loop). */
int heliod_bus_parent(heliod_t *h, const char *name, const char *parent);
typedef struct {
    char name[64];
    char parent[64]; /* "" for the master */
    float gain_db;
    int mute;
    uint32_t fx;        /* insert effects */
    uint32_t voices;    /* voices on it (real and virtual) */
    uint32_t sends;     /* voices sending to it */
    float duck_db;      /* ducking now (0 = none) */
    float path_gain_db; /* its faders and every ancestor's: what a voice on it gets */
    char send[4][64];   /* its sends' targets ("" = none) */
    float send_db[4];
} heliod_bus_info_t;
/* Bus `bus` also feeds `target` at db, tapped after its effects and before
 * its fader (pre-fader); up to 4 sends per bus; db <= -144 removes it.
 * HELIOD_EINVAL for a loop through parents and sends. */
int heliod_bus_send(heliod_t *h, const char *bus, const char *target, float db, float ramp_ms);

/* Reverb zones: a sphere whose reverb bus is fed from a feed bus (voices
 * send to it: post.send "reverb_zones") at a level following the listener: 1 inside
 * the radius, falling to 0 at radius + fade, overlapping zones normalised.
 * bus "" = a bus named after the zone, made with a reverb of `preset`
 * (HELIOD_REV_*, dry 0) if missing; feed "" = "reverb_zones", made muted if missing. */
#define HELIOD_REV_ROOM    0
#define HELIOD_REV_HALL    1
#define HELIOD_REV_CAVE    2
#define HELIOD_REV_OUTDOOR 3
typedef struct {
    char name[64];
    float pos[3];
    float radius, fade; /* metres; radius > 0, fade >= 0 */
    char bus[64], feed[64];
    int preset;
} heliod_reverb_zone_t;
int heliod_reverb_zone_set(heliod_t *h, const heliod_reverb_zone_t *z);
int heliod_reverb_zone_remove(heliod_t *h, const char *name);
typedef struct {
    heliod_reverb_zone_t zone; /* bus and feed resolved */
    float weight;              /* 0..1 from the listener's distance */
    float send_db;             /* the feed's send level into its bus now (-144 = not heard) */
} heliod_reverb_zone_info_t;
int heliod_reverb_zones(heliod_t *h, heliod_reverb_zone_info_t *arr, size_t cap, size_t *count);
/* Master first, then parents before children. */
int heliod_buses(heliod_t *h, heliod_bus_info_t *arr, size_t cap, size_t *count);

#define HELIOD_FX_EQ     1
#define HELIOD_FX_COMP   2
#define HELIOD_FX_REVERB 3
#define HELIOD_FX_TYPE   0x100u /* mask bit: `type` is given */
/* An insert effect's settings. p[i] is given when bit i of mask is set (on
 * add, others keep the defaults; on set, their current value). Parameters
 * by kind (proto/PROTOCOL.md, FX, has the ranges and defaults):
 *   eq     (type lowpass 0, highpass 1, lowshelf 2, highshelf 3, peak 4):
 *          p0 freq Hz, p1 q, p2 gain dB
 *   comp:  p0 threshold dB, p1 ratio, p2 knee dB, p3 attack ms,
 *          p4 release ms, p5 makeup dB
 *   reverb (type = preset room 0, hall 1, cave 2, outdoor 3): p0 rt60 s,
 *          p1 damping, p2 predelay ms, p3 size, p4 wet, p5 dry (linear) */
typedef struct {
    int kind; /* HELIOD_FX_* */
    int type;
    uint32_t mask;
    float p[8];
    float ramp_ms; /* set: eq changes glide over this */
} heliod_fx_t;
/* Parses "KIND --PARAM VALUE ..." as heliodctl writes it ("eq --type peak
 * --freq 1000 --q 1 --gain -6", "reverb --preset cave --wet 0.4") into fx.
 * 0, or HELIOD_EINVAL with heliod_last_error()'s message (h may be NULL:
 * then the message goes to err[cap] only, if given). */
int heliod_fx_parse(heliod_t *h, const char *text, heliod_fx_t *fx, char *err, size_t cap);
/* Inserts an effect at index (>= the chain's length: at the end) on a bus
 * (or "master"); *index_out (may be NULL) gets where it went. */
int heliod_fx_add(heliod_t *h, const char *bus, uint32_t index, const heliod_fx_t *fx,
                  uint32_t *index_out);
/* Changes the effect at index (same kind). */
int heliod_fx_set(heliod_t *h, const char *bus, uint32_t index, const heliod_fx_t *fx);
/* Takes it out (HELIOD_ENOFX if there is none at index). */
int heliod_fx_remove(heliod_t *h, const char *bus, uint32_t index);
typedef struct {
    char bus[64];
    uint32_t index;
    int kind, type;
    float p[8]; /* every parameter of its kind, as set */
} heliod_fx_info_t;
/* Effects of one bus, or of every bus (bus NULL or ""). */
int heliod_fx_list(heliod_t *h, const char *bus, heliod_fx_info_t *arr, size_t cap, size_t *count);

/* Ducking: while bus `by` is above threshold_db (or, threshold_db <= -144,
 * has voices), `bus` goes down depth_db with attack, hold and release. */
typedef struct {
    char bus[64], by[64];
    float depth_db, threshold_db, attack_ms, hold_ms, release_ms;
} heliod_duck_t;
/* Defaults: depth 9 dB, threshold -40 dBFS, attack 80, hold 200, release 600 ms. */
void heliod_duck_init(heliod_duck_t *d);
/* Adds or updates the rule for (bus, by). */
int heliod_duck(heliod_t *h, const heliod_duck_t *d);
int heliod_duck_remove(heliod_t *h, const char *bus, const char *by);
typedef struct {
    heliod_duck_t rule;
    float gain_db; /* the ducking applied to rule.bus now */
} heliod_duck_info_t;
int heliod_ducks(heliod_t *h, heliod_duck_info_t *arr, size_t cap, size_t *count);

#define HELIOD_VOICE_PLAYING  0
#define HELIOD_VOICE_STOPPING 1
#define HELIOD_VOICE_PAUSED   2
#define HELIOD_VOICE_VIRTUAL  3 /* not mixed (inaudible or less important), still advancing */
#define HELIOD_VOICE_VPAUSED  4 /* virtual and paused */
typedef struct {
    heliod_voice_t voice;
    char sound[64];
    uint32_t owner;
    int32_t priority;
    uint32_t flags;
    uint32_t state;
    float gain_db, pan, pos[3], pitch;
    char bus[64];
    char cue[64];        /* "" if played as a plain sound */
    char category[64];   /* "" if none */
    char emitter[64];    /* "" if none */
    float audibility_db; /* gain x distance attenuation the virtual-voice ranking used */
    double position_s;   /* playback position in the sound, seconds */
    heliod_post_t post;  /* filters, occlusion, sends now */
} heliod_voice_info_t;
int heliod_voices(heliod_t *h, heliod_voice_info_t *arr, size_t cap, size_t *count);

typedef struct {
    uint32_t index;
    char name[256];
    char hostapi[64];
    uint32_t max_channels;
    double default_rate;
    uint32_t flags; /* 1 = default, 2 = in use */
} heliod_device_info_t;
int heliod_devices(heliod_t *h, heliod_device_info_t *arr, size_t cap, size_t *count);

typedef struct {
    char driver[64]; /* "portaudio" or "null" */
    char name[256];  /* the device now open ("" for null) */
    uint32_t rate, period;
} heliod_device_reply_t;
/* Switches the output device while everything plays on (a few ms of fade-out
 * and fade-in): name is a device name or a substring of one (as --device),
 * "null" for the null driver, "default" for the default output. *out (may be
 * NULL) gets what is now open. Returns 0, HELIOD_ENODEV (no such device),
 * HELIOD_EINVAL (the device runs at no rate heliod converts to), HELIOD_EIO,
 * HELIOD_EBUSY (a switch is in progress), HELIOD_EPERM (not a control
 * client: the device is every client's) or a connection error. Blocking. */
int heliod_device(heliod_t *h, const char *name, heliod_device_reply_t *out);

typedef struct {
    char key[64];
    double value;
} heliod_stat_t;
/* Statistics as key/value pairs (keys listed in proto/PROTOCOL.md). reset = 1
 * restarts the callback-time histogram, and the integrated loudness and
 * loudness range, after reading (a control client only: HELIOD_EPERM). */
int heliod_stats(heliod_t *h, heliod_stat_t *arr, size_t cap, size_t *count, int reset);

/* ---- cues, categories, emitters ---- */
/* A cue is a named recipe for a play: 1..16 sound variations plus gain,
 * pitch, randomisation, bus, category, priority, distance and voice-limit
 * settings. heliod_play() of its name plays it. A category is a voice limit
 * shared by every cue that names it. Both live in the daemon until redefined
 * (defining again replaces the settings; the counters are kept). */
#define HELIOD_MAX_CUE_SOUNDS          16
#define HELIOD_PICK_RANDOM             0
#define HELIOD_PICK_SHUFFLE            1 /* random, never the same variation twice in a row */
#define HELIOD_PICK_SEQUENCE           2
#define HELIOD_OVERFLOW_REFUSE         0
#define HELIOD_OVERFLOW_STOP_OLDEST    1
#define HELIOD_OVERFLOW_FADE_OLDEST    2
#define HELIOD_OVERFLOW_STEAL_LOWEST   3 /* steal-lowest-priority */
#define HELIOD_OVERFLOW_STEAL_QUIETEST 4
#define HELIOD_OVERFLOW_STEAL_FARTHEST 5
#define HELIOD_BEYOND_VIRTUAL          0 /* past max distance: virtual (refused at start) */
#define HELIOD_BEYOND_RELEASE          1 /* past max distance: fade out and free (refused at start) */
#define HELIOD_BEYOND_CLAMP            2 /* keep the gain at max distance */
#define HELIOD_VIRT_RESUME             0 /* back from virtual where it would have been */
#define HELIOD_VIRT_RESTART            1 /* back from virtual from the start */
#define HELIOD_VIRT_KILL               2 /* ends when it would become virtual */
#define HELIOD_CURVE_LINEAR            0
#define HELIOD_CURVE_EQUAL_POWER       1
#define HELIOD_CURVE_LOG               2 /* linear in dB */
#define HELIOD_CUE_LOOP                HELIOD_PLAY_LOOP
#define HELIOD_CUE_3D                  HELIOD_PLAY_3D
#define HELIOD_CUE_CUBIC               HELIOD_PLAY_CUBIC
#define HELIOD_CUE_SINC                HELIOD_PLAY_SINC
#define HELIOD_CUE_LINEAR              HELIOD_PLAY_LINEAR
typedef struct {
    char name[64];
    uint32_t nsounds;                          /* 1..HELIOD_MAX_CUE_SOUNDS */
    char sounds[HELIOD_MAX_CUE_SOUNDS][64];    /* loaded sound names */
    int pick;                                  /* HELIOD_PICK_* (random) */
    uint32_t flags;                            /* HELIOD_CUE_* (0) */
    float gain_db;                             /* <= +24 (0) */
    float gain_rand_db;                        /* [0, 48]: +- this per play (0) */
    float pitch;                               /* [0.25, 4] (1) */
    float pitch_rand_cents;                    /* [0, 2400]: +- this per play (0) */
    char bus[64];                              /* "" = "sfx" */
    char category[64];                         /* "" = none, else a defined category */
    int32_t priority;                          /* [-1000, 1000] (0) */
    float pan;                                 /* 2D, [-1, 1] (0) */
    float min_distance, max_distance, rolloff; /* (1, 100, 1), max <= 1e6 */
    int distance_model;                        /* HELIOD_DIST_* (inverse) */
    float fade_in_ms;                          /* -1 = the server's anti-click fade */
    float fade_out_ms;                         /* eviction/release fade; -1 = category's/default */
    int fade_curve;                            /* HELIOD_CURVE_* (linear) */
    uint32_t max_instances;                    /* 0 = unlimited, <= 65536 */
    int overflow;                              /* HELIOD_OVERFLOW_* (refuse) */
    float min_interval_ms;                     /* [0, 60000] (0 = none) */
    int beyond;                                /* HELIOD_BEYOND_* (virtual) */
    int virt;                                  /* HELIOD_VIRT_* (resume) */
    float doppler;                             /* [0, 10], 0 = off (1) */
    heliod_post_t post;                        /* filters, occlusion, sends (none) */
} heliod_cue_t;
/* Fills the defaults shown in brackets above; name and sounds are empty. */
void heliod_cue_init(heliod_cue_t *c);
/* Defines or redefines a cue. Returns 0, HELIOD_EINVAL (a field out of range,
 * checked locally first; heliod_last_error() says which), HELIOD_ENOCATEGORY,
 * HELIOD_ENOBUS, or a connection error. The sounds are looked up when the cue
 * plays (a missing one is ENOSOUND then), so a cue may name sounds a bank
 * loads later. Blocking; the connection's thread; c is only read during the
 * call. */
int heliod_cue_define(heliod_t *h, const heliod_cue_t *c);

typedef struct {
    char name[64];
    uint32_t max_instances; /* 0 = unlimited, <= 65536 */
    int overflow;           /* HELIOD_OVERFLOW_* (refuse) */
    float fade_out_ms;      /* eviction fade; -1 = the server's default (50 ms) */
    int fade_curve;         /* HELIOD_CURVE_* (linear) */
} heliod_category_t;
/* Defaults: unlimited, refuse, fade-out -1, linear; name empty. */
void heliod_category_init(heliod_category_t *c);
/* Defines or redefines a category. Returns 0, HELIOD_EINVAL or a connection
 * error. Blocking; the connection's thread. */
int heliod_category_define(heliod_t *h, const heliod_category_t *c);

/* Has the daemon read a cue file (path as the daemon sees it: give an
 * absolute path). *ncues / *ncats (either may be NULL) get how many cues and
 * categories it defined. Returns 0, HELIOD_EFILE, HELIOD_EINVAL (with the
 * file's line in heliod_last_error()), HELIOD_EPERM (not a control client: a
 * sheet redefines any name; define cues one by one instead), or a connection
 * error. Blocking. */
int heliod_cues_load(heliod_t *h, const char *path, uint32_t *ncues, uint32_t *ncats);

typedef struct {
    uint64_t plays;             /* successful plays */
    uint64_t refused_interval;  /* inside min-interval */
    uint64_t refused_distance;  /* beyond max distance at start */
    uint64_t refused_cue_limit; /* cue at max-instances */
    uint64_t refused_cat_limit; /* category at max-instances */
    uint64_t refused_no_voice;  /* no voice free and nothing lower to steal */
    uint64_t evicted_cue;       /* voices evicted by the cue's limit */
    uint64_t evicted_cat;       /* voices evicted by the category's limit */
    uint64_t stolen;            /* voices stolen for a higher-priority play */
    uint64_t virtualised;       /* real -> virtual transitions */
    uint32_t active;            /* counted voices now (playing or paused) */
    uint32_t virtual_now;       /* of which virtual */
} heliod_cue_counters_t;
#define HELIOD_CUES_KIND_CUE      0
#define HELIOD_CUES_KIND_CATEGORY 1
typedef struct {
    int kind;                       /* HELIOD_CUES_KIND_* */
    heliod_cue_t cue;               /* kind CUE */
    heliod_category_t category;     /* kind CATEGORY */
    heliod_cue_counters_t counters; /* both kinds */
} heliod_cue_info_t;
/* Lists the defined cues and categories with their counters: fills up to
 * cap entries (the caller owns arr); *count = entries filled. Returns 0, 1 if
 * the list was truncated, or an error. Blocking. */
int heliod_cues(heliod_t *h, heliod_cue_info_t *arr, size_t cap, size_t *count);

/* An emitter is a named moving position: voices played with its name in
 * heliod_play_params_t.emitter follow it, so one call moves them all. It is
 * destroyed when its connection closes, unless created HELIOD_EM_DETACHED. */
#define HELIOD_EM_POS      0x1u /* heliod_emitter_set: pos is given */
#define HELIOD_EM_VEL      0x2u /* heliod_emitter_set: vel is given */
#define HELIOD_EM_DETACHED 0x4u /* heliod_emitter_create: outlives the connection */
/* Creates an emitter at pos (metres) with velocity vel (m/s; NULL = zero).
 * flags: 0 or HELIOD_EM_DETACHED. Returns 0, HELIOD_ENAME / HELIOD_EINVAL
 * (checked locally, nothing sent), the daemon's error (an existing name, its
 * emitter limit) or a connection error. Blocking; the connection's thread. */
int heliod_emitter_create(heliod_t *h, const char *name, const float pos[3], const float vel[3],
                          uint32_t flags);
/* Moves an emitter: mask HELIOD_EM_POS and/or HELIOD_EM_VEL says which of
 * pos / vel are used (the other may be NULL); the position ramps over
 * ramp_ms ([0, 60000]; 0 = one block). Returns 0, HELIOD_ENOEMITTER,
 * HELIOD_EINVAL or a connection error. Blocking. */
int heliod_emitter_set(heliod_t *h, const char *name, uint32_t mask, const float pos[3],
                       const float vel[3], float ramp_ms);
/* The same, fire-and-forget for a game's per-frame updates: returns the
 * request id (> 0) or an error; a failure arrives as HELIOD_EVENT_ERROR. */
int heliod_emitter_set_async(heliod_t *h, const char *name, uint32_t mask, const float pos[3],
                             const float vel[3], float ramp_ms);
/* Destroys an emitter; its voices fade out over fade_ms (-1 = each voice's
 * cue fade-out) and end with HELIOD_END_EMITTER. *count (may be NULL) gets
 * how many voices it stopped. Returns 0, HELIOD_ENOEMITTER, HELIOD_EINVAL or
 * a connection error. Blocking. */
int heliod_emitter_destroy(heliod_t *h, const char *name, float fade_ms, uint32_t *count);

/* ---- events ---- */
#define HELIOD_SUB_ENDED   0x1u
#define HELIOD_SUB_STARTED 0x2u
#define HELIOD_SUB_ALL     0x4u  /* events of every client's voices, not only this connection's */
#define HELIOD_SUB_VIRTUAL 0x8u  /* HELIOD_EVENT_VIRTUAL and HELIOD_EVENT_REAL */
#define HELIOD_SUB_DEVICE  0x10u /* HELIOD_EVENT_DEVICE_LOST and HELIOD_EVENT_DEVICE_BACK */
#define HELIOD_SUB_METER   0x20u /* HELIOD_EVENT_METER, at the rate heliod_subscribe_meter sets */
#define HELIOD_SUB_BANK    0x40u /* HELIOD_EVENT_BANK: a bank's state and progress */
#define HELIOD_SUB_ZONES   0x80u /* HELIOD_EVENT_ZONE_TICK: the world-zone scheduler's reports */
int heliod_subscribe(heliod_t *h, uint32_t mask);
/* As heliod_subscribe, with the rate of METER events: meter_hz 0 = 20 per
 * second, else 1..100. Returns 0, HELIOD_EINVAL or a connection error. Blocking. */
int heliod_subscribe_meter(heliod_t *h, uint32_t mask, float meter_hz);

#define HELIOD_EVENT_ERROR       1
#define HELIOD_EVENT_ENDED       2
#define HELIOD_EVENT_STARTED     3
#define HELIOD_EVENT_VIRTUAL     4 /* the voice stopped being mixed; reason HELIOD_VIRT_WHY_* */
#define HELIOD_EVENT_REAL        5 /* the voice is mixed again */
#define HELIOD_END_FINISHED      0
#define HELIOD_END_STOPPED       1
#define HELIOD_END_STOLEN        2
#define HELIOD_END_OWNER         3
#define HELIOD_END_SHUTDOWN      4
#define HELIOD_END_EVICTED       5 /* an overflow policy made room for a newer play */
#define HELIOD_END_DISTANCE      6 /* beyond max distance with beyond = release */
#define HELIOD_END_EMITTER       7 /* its emitter was destroyed */
#define HELIOD_END_KILLED        8 /* virtualised with virtual = kill */
#define HELIOD_END_LIFETIME      9 /* a detached loop reached the daemon's --detached-loop-max-s */
#define HELIOD_VIRT_WHY_RANK     0 /* more important voices hold every real voice */
#define HELIOD_VIRT_WHY_FLOOR    1 /* below the audibility floor */
#define HELIOD_VIRT_WHY_DISTANCE 2 /* beyond max distance */
#define HELIOD_VIRT_WHY_PAUSED   3 /* paused while real voices were short */
#define HELIOD_VIRT_WHY_GOVERNED 4 /* the daemon's CPU budget could not afford it */
/* HELIOD_EVENT_DEVICE_LOST: the output device stopped (message: its name;
 * time_ns: its last callback); the engine runs on the null driver's clock
 * meanwhile. HELIOD_EVENT_DEVICE_BACK: it is back (message: its name;
 * time_ns: when audio resumed). Subscription HELIOD_SUB_DEVICE. */
#define HELIOD_EVENT_DEVICE_LOST 6
#define HELIOD_EVENT_DEVICE_BACK 7
/* HELIOD_EVENT_METER (subscription HELIOD_SUB_METER): the daemon's meters.
 * Levels are dBFS per channel (0 left, 1 right), -144 for silence: the peak
 * bar (jumps to each peak, falls 20 dB/s), the peak-hold marker (held 1.5 s,
 * then falls) and the rms over the last 300 ms. The master is metered after
 * the limiter (what the device plays), each bus where it joins its parent.
 * Loudness (EBU R128, the master): momentary (400 ms), short-term (3 s) and
 * integrated (gated, since the daemon started or a STATS reset) in LUFS,
 * -144 until measurable; range (LRA) in LU. */
#define HELIOD_EVENT_METER     8
#define HELIOD_EVENT_BANK      9  /* bank: a bank's state or progress changed */
#define HELIOD_EVENT_ZONE_TICK 10 /* message: one world-zone scheduler tick's report */
/* HELIOD_EVENT_RELOAD (subscription HELIOD_SUB_BANK; a daemon run with
 * --watch-assets): a loaded sound's file changed and was decoded again.
 * sound: its name; status 0: new plays get the new data (frames: its new
 * length at the engine rate; voices already playing finish on the old);
 * status < 0: the reload failed, the old data stays (message says why). */
#define HELIOD_EVENT_RELOAD    11
#define HELIOD_METER_MAX_BUSES 32
typedef struct {
    char name[64]; /* the bus name; "master" for the master */
    float peak_db[2], peak_hold_db[2], rms_db[2];
} heliod_level_t;
typedef struct {
    uint64_t frame; /* engine frame the readings are as of */
    heliod_level_t master;
    unsigned nbuses;
    heliod_level_t bus[HELIOD_METER_MAX_BUSES];
    float momentary, short_term, integrated, range;
} heliod_meter_t;
/* ---- profiler: HELIOD_EVENT_PROFILE (subscription HELIOD_SUB_PROFILE) ----
 * What the engine did in the window since the daemon's previous PROFILE
 * event, and where it stands now. Loads are callback durations over the
 * period: 1.0 is the deadline. */
#define HELIOD_SUB_PROFILE         0x100u
#define HELIOD_EVENT_PROFILE       20
#define HELIOD_PROFILE_HIST        8
#define HELIOD_PROFILE_MAX_STREAMS 16
#define HELIOD_PROFILE_MAX_BUSES   32
typedef struct {
    char name[64];
    float peak_db, peak_hold_db, rms_db; /* the louder channel, dBFS (-144 silence) */
    unsigned real, virt;                 /* voices on the bus: mixed / virtual */
} heliod_profile_bus_t;
typedef struct {
    uint64_t time_ns;                   /* daemon uptime */
    float period_us;                    /* the deadline */
    uint32_t callbacks;                 /* callbacks in the window */
    float load_now, load_peak;          /* the window's mean and longest callback / period */
    float load_p99, load_max;           /* since start or STATS reset */
    uint32_t hist[HELIOD_PROFILE_HIST]; /* window callbacks by load in 1/8 periods (last: >= 7/8) */
    uint64_t xruns, underruns;          /* device xruns, stream underruns (totals) */
    unsigned voices_real, voices_virtual;
    float decode_load; /* decoder CPU seconds per second over the window */
    unsigned streams;  /* streams open; the first nstreams are listed */
    unsigned nstreams;
    struct {
        char sound[64];
        float fill; /* ring fill, 0..1 */
    } stream[HELIOD_PROFILE_MAX_STREAMS];
    float master_peak_db, master_rms_db;
    unsigned nbuses;
    heliod_profile_bus_t bus[HELIOD_PROFILE_MAX_BUSES];
} heliod_profile_t;
/* As heliod_subscribe_meter, with the rate of PROFILE events: profile_hz 0 =
 * 10 per second, else 1..100. Returns 0, HELIOD_EINVAL or a connection
 * error. Blocking. */
int heliod_subscribe_profile(heliod_t *h, uint32_t mask, float meter_hz, float profile_hz);

typedef struct {
    int type;
    uint32_t request_id; /* the request it answers (ERROR), or 0 */
    int status;          /* ERROR: the heliod_errno_t code */
    const char *message; /* ERROR: the server's message; DEVICE_*: the device name;
                            valid during the callback */
    heliod_voice_t voice;
    int reason;       /* ENDED: HELIOD_END_*; VIRTUAL: HELIOD_VIRT_WHY_*; REAL: 0 */
    uint64_t time_ns; /* STARTED: server CLOCK_MONOTONIC when its first block was mixed */
    const heliod_meter_t *meter;         /* METER: the readings, valid during the callback */
    const struct heliod_bank_info *bank; /* BANK: valid during the callback */

    /* PROFILE: the figures, valid during the callback */
    const heliod_profile_t *profile;

    /* RELOAD: the sound's name (valid during the callback) and its frames;
     * status and message as above */
    const char *sound;
    uint32_t frames;
} heliod_event_t;
typedef void (*heliod_event_fn)(void *user, const heliod_event_t *ev);

/* ---- assets: banks and world zones ---- */
#define HELIOD_LOAD_PIN       0x4u /* never evicted by the sample-memory budget */
#define HELIOD_BANK_LOADING   0
#define HELIOD_BANK_LOADED    1
#define HELIOD_BANK_FAILED    2
#define HELIOD_BANK_UNLOADING 3
#define HELIOD_BANK_GONE      4 /* (events only) unloaded */
typedef struct heliod_bank_info {
    char name[64];
    char path[4096];
    int state;                     /* HELIOD_BANK_* */
    uint32_t sounds, done, failed; /* listed, loaded, failed */
    uint64_t bytes;                /* decoded bytes of its loaded sounds */
    char error[256];               /* the first failure, "" if none */
} heliod_bank_info_t;
/* Starts loading the bank manifest at path (read by the daemon: an absolute
 * path); *out (may be NULL) gets its state now (loading). Progress and the
 * end come as HELIOD_EVENT_BANK (HELIOD_SUB_BANK); a play of one of its
 * sounds meanwhile answers HELIOD_ELOADING. Bank names are per process; a
 * plain client's bank loads its sounds as this connection's own (like
 * heliod_load without HELIOD_LOAD_SHARED) and goes when it closes; a
 * control client's bank and its sounds are shared. */
int heliod_bank_load(heliod_t *h, const char *path, heliod_bank_info_t *out);
/* Unloads a bank: each sound goes when its last voice ends. */
int heliod_bank_unload(heliod_t *h, const char *name);
int heliod_banks(heliod_t *h, heliod_bank_info_t *arr, size_t cap, size_t *count);
/* A world zone: the bank at `bank` (an absolute path on the daemon's host)
 * loads when the listener comes within radius of pos and unloads beyond
 * 1.25 x radius (see README). The daemon reads the manifest and its sounds'
 * headers before answering (EFILE, EINVAL, ETOOBIG, ETIMEDOUT: see PROTOCOL.md). */
int heliod_zone_add(heliod_t *h, const char *name, const char *bank, const float pos[3],
                    float radius);
int heliod_zone_remove(heliod_t *h, const char *name);
typedef struct {
    char name[64];
    char bank[4096];
    float pos[3], radius;
    int state;      /* 0 out, 1 loading, 2 loaded */
    uint64_t bytes; /* its bank's decoded size (estimated until loaded) */
    float distance; /* from the listener at the last tick */
} heliod_zone_info_t;
int heliod_zones(heliod_t *h, heliod_zone_info_t *arr, size_t cap, size_t *count);
void heliod_set_event_callback(heliod_t *h, heliod_event_fn fn, void *user);

/* ---- non-blocking use ---- */

/* Descriptor to poll for POLLIN (and POLLOUT while heliod_pending() > 0). */
int heliod_fd(const heliod_t *h);
/* Bytes of batched requests not yet written. */
size_t heliod_pending(const heliod_t *h);
/* Writes the batch without blocking as far as the socket takes it.
 * Returns 0 when all is written, 1 if some remains, or an error. */
int heliod_flush(heliod_t *h);
/* Flushes, reads whatever has arrived without blocking, and invokes the reply
 * and event callbacks. Returns the number of frames handled, or an error
 * (HELIOD_ECLOSED if the daemon went away). */
int heliod_dispatch(heliod_t *h);

/* Async requests: appended to the batch (flushed automatically when it
 * exceeds 64 KiB). They return the request id (> 0) or an error. With a NULL
 * reply callback the request is fire-and-forget: success is silent and a
 * failure arrives as a HELIOD_EVENT_ERROR carrying the request id. */
typedef struct {
    uint32_t request_id;
    int status;            /* 0 or heliod_errno_t */
    const char *message;   /* on error */
    heliod_voice_t voice;  /* play */
    heliod_voice_t stolen; /* play */
} heliod_reply_t;
typedef void (*heliod_reply_fn)(void *user, const heliod_reply_t *r);
int heliod_play_async(heliod_t *h, const char *sound, const heliod_play_params_t *p,
                      heliod_reply_fn fn, void *user);
int heliod_stop_async(heliod_t *h, heliod_voice_t voice, float fade_ms);
int heliod_set_async(heliod_t *h, heliod_voice_t voice, const heliod_voice_set_t *s);
int heliod_set_listener_async(heliod_t *h, const heliod_listener_t *l);
/* Low-level escape hatch (heliodctl's pipelined batch uses it): appends a
 * request with an already-encoded body (proto/PROTOCOL.md layouts) to the
 * batch. fn receives status 0 and the op-specific reply body (after the reply
 * head; valid during the callback only), or an error status and the server's
 * message with body NULL. With fn NULL the request is sent NOREPLY. Returns the
 * request id (> 0) or an error (HELIOD_EBADOP for HELLO, REPLY, EVENT or an
 * unknown op). Same thread rules as the other async calls. */
typedef void (*heliod_raw_fn)(void *user, uint32_t request_id, int status, const char *message,
                              const uint8_t *body, size_t len);
int heliod_raw_async(heliod_t *h, uint16_t op, const void *body, size_t len, heliod_raw_fn fn,
                     void *user);

/* Blocks until every async request sent so far has been answered or failed:
 * sends a PING, waits for its reply, delivers every reply and event that came
 * before it, then keeps reading until no reply callback is outstanding (the
 * daemon may answer a LOAD after later requests). Returns 0, HELIOD_ETIMEDOUT
 * after the connection's timeout, or a connection error. */
int heliod_sync(heliod_t *h);

/* ---- time: the clock, scheduled requests, bundles ---- */

/* The engine clock: engine frame `frame` began playing into the device
 * buffer at CLOCK_MONOTONIC time time_ns (the start of the audio thread's
 * latest period) and reaches the output output_latency_ns later. */
typedef struct {
    uint64_t frame;
    uint64_t time_ns;
    uint32_t rate, period;
    uint64_t output_latency_ns;
} heliod_clock_t;
int heliod_clock(heliod_t *h, heliod_clock_t *out);
/* The engine frame voice started on (its STARTED frame; for a voice not yet
 * started, the frame it is scheduled for), e.g. the reference of a musical
 * grid. 0 or HELIOD_ENOVOICE. */
int heliod_voice_start_frame(heliod_t *h, heliod_voice_t voice, uint64_t *frame);
/* The engine frame due at CLOCK_MONOTONIC time time_ns by clock c (exact
 * integer arithmetic; times before c->time_ns give c->frame). */
uint64_t heliod_clock_frame_at(const heliod_clock_t *c, uint64_t time_ns);
/* Schedules every play, stop, set, bus and listener request sent after this
 * call (blocking or async) for engine frame `frame`: the daemon applies it
 * on that exact sample. 0 turns scheduling off. Other requests are not
 * affected. A frame more than 24 h ahead of the clock, or a bus create,
 * remove, parent or send (they apply at once), is HELIOD_EINVAL; past the
 * daemon's schedule or this client's share of it (--client-scheduled) a
 * request is HELIOD_EBUSY, heliod_last_error() says which. */
void heliod_at_frame(heliod_t *h, uint64_t frame);
/* As heliod_at_frame for the frame `ms` milliseconds from now (one CLOCK
 * round trip); *frame (may be NULL) gets it. */
int heliod_at_ms(heliod_t *h, double ms, uint64_t *frame);
/* Frames the last scheduled request answered was already late when the
 * daemon got it (0: on time); such a request is applied at once. Inside the
 * callback of an async request's reply, the figure of that reply. */
uint64_t heliod_late_frames(const heliod_t *h);
/* Bundles: the play, stop, set, bus and listener requests sent between
 * begin and end are applied together, in one audio block (each at its own
 * frame when scheduled), never split. Inside a bundle use the async calls:
 * a blocking call answers HELIOD_EINVAL, as its reply only comes at the end.
 * At most 64 requests. heliod_bundle_end sends the bundle and waits for it:
 * *count (may be NULL) gets the number of requests it carried; HELIOD_EBUSY
 * when the daemon had no room for all of them (then none was applied). */
int heliod_bundle_begin(heliod_t *h);
int heliod_bundle_end(heliod_t *h, uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif /* HELIOD_H */
