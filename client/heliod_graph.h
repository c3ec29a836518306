/*
 * heliod_graph.h - libheliod: the mixer graph: buses, sends, reverb zones, effects, ducking.
 *
 * Part of heliod.h, which includes it after its common types (heliod_t,
 * heliod_voice_t): a game includes <heliod.h> only.
 */
#ifndef HELIOD_GRAPH_H
#define HELIOD_GRAPH_H

#ifndef HELIOD_H
#error "include <heliod.h>, not heliod_graph.h"
#endif

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
/* Mixer snapshots (protocol 1.1): a named set of bus faders, mutes and
 * effect parameters blended over the mix. Starting one glides its
 * intensity to `intensity` (0..1) over fade_ms (-1: its own fade); stopping
 * glides it back to 0. Active snapshots apply in order of priority (lowest
 * first, equal ones in start order), each moving a value from what the
 * lower ones left toward its own by its intensity: a higher priority at
 * intensity 1 overrides. Gains blend in dB, mutes as a gain factor, effect
 * parameters linearly. At most 64 snapshots of 32 settings each. */
#define HELIOD_SNAP_GAIN 0 /* value: the bus's fader, dB (-INFINITY: silent) */
#define HELIOD_SNAP_MUTE 1 /* value: 1 muted, 0 not */
#define HELIOD_SNAP_FX   2 /* value: parameter `param` of insert `fx_index` */
#define HELIOD_SNAP_IDLE 0 /* heliod_snapshot_info_t.state */
#define HELIOD_SNAP_IN   1
#define HELIOD_SNAP_ON   2
#define HELIOD_SNAP_OUT  3
/* Creates (or re-prioritises) snapshot `name`; fade_ms its default fade. */
int heliod_snapshot_define(heliod_t *h, const char *name, int priority, float fade_ms);
/* Adds or replaces one setting: target HELIOD_SNAP_*, on bus `bus`. */
int heliod_snapshot_set(heliod_t *h, const char *name, const char *bus, int target,
                        unsigned fx_index, unsigned param, float value);
int heliod_snapshot_start(heliod_t *h, const char *name, float fade_ms, float intensity);
int heliod_snapshot_stop(heliod_t *h, const char *name, float fade_ms);
int heliod_snapshot_remove(heliod_t *h, const char *name);
typedef struct {
    char name[64];
    int priority;
    float fade_ms;
    unsigned settings;
    int state;       /* HELIOD_SNAP_IDLE .. OUT */
    float intensity; /* now */
    float target;    /* where it glides to */
    unsigned owner;  /* client id that defined it (0: the daemon) */
} heliod_snapshot_info_t;
int heliod_snapshots(heliod_t *h, heliod_snapshot_info_t *arr, size_t cap, size_t *count);
/* Sound cones (protocol 1.1), as OpenAL 1.1 defines them: a source
 * pointing along dir (0,0,0: no cone) is heard at full gain by a listener
 * within the inner cone (full width, degrees), at outer_gain (linear) beyond
 * the outer cone, and in between at a gain linear in the angle. On a voice
 * now; on an emitter's voices now and later; on a cue's voices from now on
 * (an emitter's cone wins over its cue's). */
#define HELIOD_CONE_VOICE   0
#define HELIOD_CONE_EMITTER 1
#define HELIOD_CONE_CUE     2
int heliod_cone(heliod_t *h, int target, uint64_t voice, const char *name, const float dir[3],
                float inner_deg, float outer_deg, float outer_gain);
/* heliod_cone with an outer low-pass: beyond the outer cone the voice is
 * also low-passed at outer_lp_hz (0: none, up to 96000; a cutoff at or above
 * 0.45 x the rate filters nothing); between the cones the cutoff moves
 * log-linearly from open to it with the angle, as the gain does, and joins
 * the voice's own low-pass (the lower wins). heliod_cone is this with 0. */
int heliod_cone_lp(heliod_t *h, int target, uint64_t voice, const char *name, const float dir[3],
                   float inner_deg, float outer_deg, float outer_gain, float outer_lp_hz);
/* Custom attenuation (protocol 1.1): n <= 8 points of distance (m, strictly
 * increasing) and gain (dB in [-144, +24]) replace the distance model's gain
 * of a voice (target HELIOD_CONE_VOICE, now), of an emitter's voices now and
 * later (HELIOD_CONE_EMITTER, name; a voice given its own curve keeps it;
 * the emitter's wins over its cue's) or of a cue's voices started from now
 * on (HELIOD_CONE_CUE, name); linear in dB between points, the end values
 * beyond. n 0: back to the model. The targets are the same for every kind. */
int heliod_attenuation(heliod_t *h, int target, uint64_t voice, const char *name, unsigned n,
                       const float *dist, const float *gain_db);
/* A distance curve of one kind (protocol 1.1): HELIOD_ATTEN_GAIN is
 * heliod_attenuation; HELIOD_ATTEN_LOWPASS: a low-pass cutoff (Hz in
 * [10, 96000]) by distance, log-frequency between points, joined with the
 * voice's own and its cone's low-pass (the lower wins); HELIOD_ATTEN_SEND:
 * a level (dB in [-144, +24]) by distance multiplying each of the voice's
 * sends (its reverb sends), linear in dB between points. Both follow the
 * voice's distance to the listener it is heard by, moved once a block (the
 * filter glides, the sends ramp); end values beyond the points; n 0: none. */
#define HELIOD_ATTEN_GAIN    0
#define HELIOD_ATTEN_LOWPASS 1
#define HELIOD_ATTEN_SEND    2
int heliod_distance_curve(heliod_t *h, int target, uint64_t voice, const char *name, int kind,
                          unsigned n, const float *dist, const float *value);
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
    float ramp_ms; /* set: glide over this (eq; comp threshold, ratio, knee, makeup;
                      reverb rt60, damping, wet, dry) */
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

#endif /* HELIOD_GRAPH_H */
