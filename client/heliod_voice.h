/*
 * heliod_voice.h - libheliod: voices: play, stop, set, pause, the listener, the voice list.
 *
 * Part of heliod.h, which includes it after its common types (heliod_t,
 * heliod_voice_t): a game includes <heliod.h> only.
 */
#ifndef HELIOD_VOICE_H
#define HELIOD_VOICE_H

#ifndef HELIOD_H
#error "include <heliod.h>, not heliod_voice.h"
#endif

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
/* The "openal" pan law for a mono 2D voice instead of equal power: OpenAL
 * Soft's stereo output, for OpenAL programs (proto/defs/hl_panlaw.h;
 * protocol 1.1, HELIOD_EVERSION from a 1.0 daemon). */
#define HELIOD_PLAY_PAN_OPENAL 0x100u
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
/* A stinger (since 1.1): heliod_play started on the first beat
 * (HELIOD_ON_BEAT) or bar (HELIOD_ON_BAR) of music voice `music` (a voice
 * of a cue with a tempo map) at or after the frame the play would take
 * effect at (heliod_at_frame's, else now), on that beat's exact frame.
 * HELIOD_EINVAL when music has no tempo map, is paused or ends first;
 * HELIOD_ENOVOICE when it is gone; HELIOD_EVERSION with a 1.0 daemon.
 * Blocking. */
#define HELIOD_ON_BEAT 1
#define HELIOD_ON_BAR  2
int heliod_play_on(heliod_t *h, const char *sound, const heliod_play_params_t *p,
                   heliod_voice_t music, int on, heliod_voice_t *voice);
/* Adaptive music (since 1.1): the daemon's cue-sheet section [music
 * `music`] goes to `state` for this connection: the first call starts the
 * state's cue and its layers on one frame; later ones follow the section's
 * transition table on the playing track's beat map, markers or loop end
 * (PROTOCOL.md, "Music transitions"). A call while
 * a transition waits for its frame replaces it. *frame (may be NULL): the
 * engine frame the new track (a segment transition: the segment) starts
 * on; *voice (may be NULL): its voice, 0
 * while the transition waits. heliod_at_frame applies. HELIOD_EINVAL for an
 * unknown music or state or a track without a tempo map, HELIOD_EVERSION
 * with a 1.0 daemon. Blocking. */
int heliod_music(heliod_t *h, const char *music, const char *state, uint64_t *frame,
                 heliod_voice_t *voice);
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
/* The LFE send (since 1.1; the structs above stay as they are): on an output
 * layout with an LFE channel (heliod --layout 5.1 or 7.1), lfe x the voice's
 * signal before its pan (envelope, gain, distance and cone gains) goes to
 * its bus's LFE channel; linear, 0..4 (+12 dB), 0 = none (the default;
 * PROTOCOL.md PLAY/SET lfe). heliod_play_lfe is heliod_play with a send;
 * heliod_set_lfe changes a playing voice's send, gliding over ramp_ms (0:
 * the server's one-block ramp). HELIOD_EINVAL for lfe out of range (the
 * message names it), HELIOD_EVERSION with a 1.0 daemon (heliod_play_lfe:
 * unless lfe is 0). Blocking. */
int heliod_play_lfe(heliod_t *h, const char *sound, const heliod_play_params_t *p, float lfe,
                    heliod_voice_t *voice, heliod_voice_t *stolen);
int heliod_set_lfe(heliod_t *h, heliod_voice_t voice, float lfe, float ramp_ms);
/* The loop passes a playing preloaded voice has left from now on (since
 * 1.1; PROTOCOL.md SET loops): -1 loops forever (a voice played without
 * HELIOD_PLAY_LOOP loops its whole sound), 0 leaves the loop at the end of
 * this pass and plays on to the sound's end (a music track's outro after
 * its loop region), N plays N more passes. Sample-exact, no restart, no
 * click; schedulable with heliod_at_frame. A voice already past its loop
 * region is not changed; inside the loop's crossfade the wrap has begun and
 * counts as taken (N passes follow it). HELIOD_EINVAL for loops < -1 or a
 * streamed voice (the decoder reads ahead; its passes are set at PLAY),
 * HELIOD_EVERSION with a 1.0 daemon. Blocking. */
int heliod_set_loops(heliod_t *h, heliod_voice_t voice, int32_t loops);
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
/* Several listeners (protocol 1.1): index 0 is the global one (as
 * heliod_set_listener); 1..3 are a client's own (split screen), on from
 * their first set (starting where listener 0 is) until off is 1, and only
 * their creator's (or a control client's) to move. Each 3D voice is heard
 * by the nearest listener that is on. l may be NULL with off = 1. */
int heliod_set_listener_at(heliod_t *h, unsigned index, const heliod_listener_t *l, int off);
/* The weighted rule (protocol 1.1): listener index gets weight in (0, 1]
 * (0: none, back to the nearest rule). While any listener on has a weight,
 * a 3D voice's gain is the sum over the listeners on of weight x the gain
 * it has at that listener (distance curve or model, cone; a listener
 * without a weight adds nothing); its pan, speakers, Doppler, HRTF
 * direction and distance low-pass and send stay the nearest listener's.
 * Setting a weight on an index 1..3 that is off turns it on (where
 * listener 0 is). */
int heliod_set_listener_weight(heliod_t *h, unsigned index, float weight);

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

#endif /* HELIOD_VOICE_H */
