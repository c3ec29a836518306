/*
 * heliod_params.h - libheliod: game parameters (protocol 1.1).
 *
 * Part of heliod.h, which includes it after its common types (heliod_t,
 * heliod_voice_t): a game includes <heliod.h> only.
 */
#ifndef HELIOD_PARAMS_H
#define HELIOD_PARAMS_H

#ifndef HELIOD_H
#error "include <heliod.h>, not heliod_params.h"
#endif

/* ---- game parameters ---- */
/* A parameter is a named float with a range, a default and a seek speed
 * (units per second: its value moves toward what the game sets at most
 * that fast; 0 = jumps). It has one global value and may have one per
 * emitter and per voice (a voice hears its own, else its emitter's, else
 * the global one). A binding maps it through a curve (1..16 points, each
 * segment linear, exponential, logarithmic or S-shaped) onto a property of
 * every voice of a cue; the daemon turns changes into ramped SETs.
 * Names live in the defining process's namespace, like cues. */
#define HELIOD_MAX_CURVE_POINTS 16
#define HELIOD_MAX_CUE_BINDS    8
#define HELIOD_PSCOPE_GLOBAL    0
#define HELIOD_PSCOPE_EMITTER   1
#define HELIOD_PSCOPE_VOICE     2
#define HELIOD_PROP_GAIN        0 /* dB added to the voice's gain (bindings add up) */
#define HELIOD_PROP_PITCH       1 /* cents added to its pitch (bindings add up) */
#define HELIOD_PROP_LP          2 /* low-pass cutoff, Hz (the lowest wins) */
#define HELIOD_PROP_HP          3 /* high-pass cutoff, Hz (the highest wins) */
#define HELIOD_PROP_OCCLUSION   4 /* 0..1 (the largest wins) */
#define HELIOD_PROP_SEND        5 /* dB added to send `index` (0, 1) */
#define HELIOD_PROP_SWITCH      6 /* the variation a play picks: x = the boundaries */
#define HELIOD_PROP_BLEND       7 /* all variations play, crossfaded (equal power) over x */
#define HELIOD_SHAPE_LINEAR     0
#define HELIOD_SHAPE_EXP        1
#define HELIOD_SHAPE_LOG        2
#define HELIOD_SHAPE_SCURVE     3

typedef struct {
    float x, y;    /* parameter value, property value (switch, blend: y 0) */
    uint8_t shape; /* HELIOD_SHAPE_* of the segment from this point to the next */
} heliod_curve_point_t;

typedef struct {
    char name[64];
    float min, max, def, seek;
    float value, target; /* the global value now, and where it seeks */
    uint32_t owner;      /* client id that defined it (0: the daemon) */
    uint32_t scoped;     /* emitter and voice values held */
} heliod_param_info_t;

/* Defines (or redefines: the value is kept, clamped) a parameter; min < max,
 * def in [min, max], seek >= 0. 0 or a negative HELIOD_E* code. */
int heliod_param_define(heliod_t *h, const char *name, float min, float max, float def, float seek);
/* Sets the value (in [min, max], else HELIOD_EINVAL) of scope HELIOD_PSCOPE_*:
 * GLOBAL (emitter NULL, voice 0), EMITTER (emitter's name) or VOICE (voice).
 * Scheduled by heliod_at_frame like a SET. */
int heliod_param_set(heliod_t *h, const char *name, int scope, const char *emitter,
                     heliod_voice_t voice, float value);
/* Fire-and-forget (a game's per-frame update); errors arrive as events. */
int heliod_param_set_async(heliod_t *h, const char *name, int scope, const char *emitter,
                           heliod_voice_t voice, float value);
/* Binds param to property prop (HELIOD_PROP_*; index: the send for
 * HELIOD_PROP_SEND, else 0) of cue's voices through points[0..n-1] (x strictly
 * increasing, within the parameter's range; switch / blend may give n = 0).
 * The same param and property again replaces that binding. Voices started
 * after it follow it. */
int heliod_bind(heliod_t *h, const char *cue, const char *param, int prop, int index,
                const heliod_curve_point_t *points, unsigned n);
#define HELIOD_PROP_BUS_GAIN 8  /* a bus's gain, dB (bindings on one bus add up) */
#define HELIOD_PROP_FX       9  /* parameter fxp of effect fx_index on a bus (its FX units) */
#define HELIOD_PROP_SNAPSHOT 10 /* a mixer snapshot's intensity, 0..1 (bus: the snapshot) */
/* Binds param (its global value) to a bus's gain (HELIOD_PROP_BUS_GAIN:
 * fx_index, fxp 0) or to parameter fxp of its effect fx_index (HELIOD_PROP_FX:
 * an EQ's p0 frequency / p2 gain, a compressor's p0 threshold, a reverb's
 * p4 wet ...; y within that parameter's range). HELIOD_ENOBUS, HELIOD_ENOFX.
 * HELIOD_PROP_SNAPSHOT: `bus` names a mixer snapshot, y its intensity in
 * [0, 1] (it starts above 0, glides there, and stays started at 0). */
int heliod_bind_bus(heliod_t *h, const char *bus, const char *param, int prop, int fx_index,
                    int fxp, const heliod_curve_point_t *points, unsigned n);
/* Removes every binding of cue. */
int heliod_bind_clear(heliod_t *h, const char *cue);
/* The parameters this client sees (list semantics as heliod_sounds). */
int heliod_params(heliod_t *h, heliod_param_info_t *arr, size_t cap, size_t *count);

#endif /* HELIOD_PARAMS_H */
