/*
 * hl_proto.h - the heliod wire protocol: limits, opcodes, constants, frames and
 * the message bodies (declared in hl_schema.h), shared by the daemon and libheliod.
 *
 * Everything here works on caller-provided buffers: no malloc, no I/O, no
 * global state, so the same code is safe in the daemon, the client library,
 * the fuzzer and the tests. proto/PROTOCOL.md documents the same layouts for
 * people writing clients in other languages.
 *
 * Frame (all integers little-endian, floats IEEE-754 binary32/64 LE):
 *
 *   offset size field
 *   0      4    size   total frame size in bytes, header included,
 *                      HL_FRAME_HDR <= size <= HL_MAX_FRAME
 *   4      2    op     opcode (HL_OP_MAP)
 *   6      2    flags  HL_FLAG_* (unknown bits must be zero)
 *   8      4    id     request id chosen by the client; replies and the
 *                      events caused by a request carry it back
 *   12     ...  body   op-specific, must be consumed exactly
 *
 * Strings are u16 length + bytes (no NUL); a name is 1..HL_MAX_NAME bytes of
 * [A-Za-z0-9_.-]. A decoder rejects (HELIOD_EPROTO) truncated bodies, trailing
 * bytes, over-long strings and embedded NULs; it never trusts a declared count
 * to size anything.
 */
#ifndef HL_PROTO_H
#define HL_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "heliod_errors.h"
#include "hl_ranges.h"

/* ---- limits (each with its reason) ------------------------------------- */
/* Protocol MAJOR.MINOR (PROTOCOL.md, "Compatibility"): 1.0 is the wire
 * format of commit 4550bf8, frozen; a minor version only appends optional
 * fields (a shorter body is an older client and gets the documented
 * default); a change that cannot be additive is a new major. HELLO carries
 * both and the daemon serves every 1.x client at min(its minor, ours). */
#define HL_PROTO_VERSION    1 /* the major: HELLO.version */
#define HL_PROTO_MINOR      2 /* the highest minor spoken here: HELLO.minor */
#define HL_FRAME_HDR        12
#define HL_MAX_FRAME        65536 /* a path plus every field fits; caps what a peer makes us buffer */
#define HL_MAX_NAME         63    /* sound, bus and client names: short identifiers, fixed arrays */
#define HL_MAX_PATH         4095 /* PATH_MAX - 1 on Linux */
#define HL_MAX_MSG          255  /* error message text in replies and events */
#define HL_MAX_DEVNAME      255  /* PortAudio device names can be long */
#define HL_MAX_LIST         1024 /* entries in one list reply; more sets the 'truncated' byte */
#define HL_VOICE_SENDS      2    /* post-stage sends of a voice: a room reverb and a zone reverb */
#define HL_BUS_SENDS_MAX    4    /* sends per bus */
#define HL_FX_PARAMS        8    /* parameters of an insert effect */
#define HL_MAX_CUE_SOUNDS   16   /* variations of one cue: more is a bank, not a cue */
#define HL_MAX_CURVE_POINTS 16   /* points of one parameter binding's curve (1.1) */

/* ---- header flags ------------------------------------------------------- */
/* fire-and-forget: success is silent, failure arrives as EVENT_ERROR */
#define HL_FLAG_NOREPLY 0x0001u
/* time: on a request (PLAY, STOP, SET, BUS, LISTENER, PARAM only) the body starts
 * with a u64 engine frame to apply it at, before the op's own body; on the
 * reply to such a request the body ends with a u64: frames late (0: on time) */
#define HL_FLAG_AT   0x0002u
#define HL_FLAG_MASK 0x0003u

/* ---- opcodes: X(NAME, value, "wire name") ------------------------------- */
#define HL_OP_MAP(X)                                                                               \
    X(HELLO, 1, "hello")                                                                           \
    X(PING, 2, "ping")                                                                             \
    X(LOAD, 3, "load")                                                                             \
    X(UNLOAD, 4, "unload")                                                                         \
    X(SOUNDS, 5, "sounds")                                                                         \
    X(PLAY, 6, "play")                                                                             \
    X(STOP, 7, "stop")                                                                             \
    X(STOP_ALL, 8, "stop-all")                                                                     \
    X(SET, 9, "set")                                                                               \
    X(LISTENER, 10, "listener")                                                                    \
    X(VOICES, 11, "voices")                                                                        \
    X(DEVICES, 12, "devices")                                                                      \
    X(STATS, 13, "stats")                                                                          \
    X(SUBSCRIBE, 14, "subscribe")                                                                  \
    X(BUS, 15, "bus")                                                                              \
    X(PAUSE, 16, "pause")                                                                          \
    X(CUE, 17, "cue")                                                                              \
    X(CATEGORY, 18, "category")                                                                    \
    X(CUES, 19, "cues")                                                                            \
    X(CUES_LOAD, 20, "cues-load")                                                                  \
    X(EMITTER, 21, "emitter")                                                                      \
    X(DEVICE, 22, "device")                                                                        \
    X(BUSES, 23, "buses")                                                                          \
    X(FX, 24, "fx")                                                                                \
    X(FX_LIST, 25, "fx-list")                                                                      \
    X(DUCK, 26, "duck")                                                                            \
    X(DUCKS, 27, "ducks")                                                                          \
    X(RZONE, 28, "reverb-zone")                                                                    \
    X(RZONES, 29, "reverb-zones")                                                                  \
    X(BANK, 30, "bank")                                                                            \
    X(BANKS, 31, "banks")                                                                          \
    X(ZONE, 32, "zone")                                                                            \
    X(ZONES, 33, "zones")                                                                          \
    X(LOAD_DATA, 34, "load-data")                                                                  \
    X(LOAD_FD, 35, "load-fd") /* an upload as a descriptor (SCM_RIGHTS), e.g. a sealed memfd */    \
    X(CLOCK, 40, "clock")     /* time: the engine clock */                                         \
    X(BUNDLE_BEGIN, 41, "bundle-begin") /* time: the requests up to BUNDLE_END apply together */   \
    X(BUNDLE_END, 42, "bundle-end")                                                                \
    X(STREAM, 43, "stream") /* 1.1: a client-fed stream voice over a sealed memfd (SCM_RIGHTS) */  \
    X(PARAM_DEF, 50, "param-def") /* 1.1: game parameters (define) */                              \
    X(PARAM, 51, "param")         /* 1.1: set a parameter's value (schedulable) */                 \
    X(PARAMS, 52, "params")       /* 1.1: list the parameters */                                   \
    X(BIND, 53, "bind")           /* 1.1: bind a parameter to a cue's property through a curve */  \
    X(SNAPSHOT, 55, "snapshot")   /* since 1.1: mixer snapshots */                                 \
    X(SNAPSHOTS, 56, "snapshots") /* since 1.1 */                                                  \
    X(CONE, 57, "cone")           /* since 1.1: sound cones */                                     \
    X(ATTEN, 58, "attenuation")   /* since 1.1: custom distance curves */                          \
    X(MUSIC, 63, "music")         /* 1.1: a [music NAME]'s transition to a state */                \
    X(CAPTURE, 68, "capture")     /* 1.1: start or stop the session capture (control clients) */   \
    X(CUE_DETAIL, 70, "cue-detail") /* 1.1: a cue's bindings, cone and attenuation curve */        \
    X(SNAPSHOT_DETAIL, 71, "snapshot-detail") /* 1.1: a snapshot's settings */                     \
    X(SHEET_KEYS, 72, "sheet-keys") /* 1.1: tempo maps and music sections as cue-sheet lines */    \
    X(REPLY, 128, "reply")                                                                         \
    X(EVENT, 129, "event")

typedef enum {
#define HL_OP_ENUM_(name, val, str) HL_OP_##name = (val),
    HL_OP_MAP(HL_OP_ENUM_)
#undef HL_OP_ENUM_
} hl_op_t;

/* Name of an opcode ("play"), or NULL if unknown. */
const char *hl_op_name(uint16_t op);
/* Message of an error code, never NULL ("unknown error" for others). */
const char *hl_strerror(int err);
/* Symbolic name of an error code ("EBUSY"), never NULL. */
const char *hl_errname(int err);

/* ---- bounded writer / reader over caller buffers ------------------------ */
typedef struct {
    uint8_t *buf;
    size_t cap, len;
    int err; /* sticky: first error (HELIOD_ETOOBIG) */
    size_t frame_start;
} hl_wbuf_t;

typedef struct {
    const uint8_t *buf;
    size_t len, off;
    int err; /* sticky: HELIOD_EPROTO once anything was short or bad */
} hl_rbuf_t;

void hl_wbuf_init(hl_wbuf_t *w, uint8_t *buf, size_t cap);
void hl_put_u8(hl_wbuf_t *w, uint8_t v);
void hl_put_u16(hl_wbuf_t *w, uint16_t v);
void hl_put_u32(hl_wbuf_t *w, uint32_t v);
void hl_put_i32(hl_wbuf_t *w, int32_t v);
void hl_put_u64(hl_wbuf_t *w, uint64_t v);
void hl_put_f32(hl_wbuf_t *w, float v);
void hl_put_f64(hl_wbuf_t *w, double v);
/* String of strlen(s) bytes; ETOOBIG if longer than max. */
void hl_put_str(hl_wbuf_t *w, const char *s, size_t max);

void hl_rbuf_init(hl_rbuf_t *r, const uint8_t *buf, size_t len);
uint8_t hl_get_u8(hl_rbuf_t *r);
uint16_t hl_get_u16(hl_rbuf_t *r);
uint32_t hl_get_u32(hl_rbuf_t *r);
int32_t hl_get_i32(hl_rbuf_t *r);
uint64_t hl_get_u64(hl_rbuf_t *r);
float hl_get_f32(hl_rbuf_t *r);
double hl_get_f64(hl_rbuf_t *r);
/* Copies into dst[cap] NUL-terminated; EPROTO if longer than cap-1 or has NUL. */
void hl_get_str(hl_rbuf_t *r, char *dst, size_t cap);
/* 0 if everything was read exactly and nothing failed, else HELIOD_EPROTO. */
int hl_rbuf_finish(const hl_rbuf_t *r);

/* ---- the messages: structs and codecs from one schema ------------------- */
#include "hl_schema.h"

/* ---- frames ------------------------------------------------------------- */
typedef struct {
    uint32_t size;
    uint16_t op, flags;
    uint32_t id;
} hl_frame_hdr_t;

/* Starts a frame at the writer's current end (several frames may be batched in one buffer). */
void hl_frame_begin(hl_wbuf_t *w, uint16_t op, uint16_t flags, uint32_t id);
/* Patches the size field; returns the frame's size or a negative error (ETOOBIG). */
int hl_frame_end(hl_wbuf_t *w);
/*
 * Looks at the first bytes of a stream: returns 0 and fills *hdr when a valid
 * header is present (the body may still be incomplete: compare hdr->size with
 * avail), 1 when fewer than HL_FRAME_HDR bytes are available, or HELIOD_EPROTO
 * (size out of range, unknown flag bits) / HELIOD_ETOOBIG (size > HL_MAX_FRAME):
 * the stream cannot be resynchronised.
 */
int hl_frame_peek(const uint8_t *buf, size_t avail, hl_frame_hdr_t *hdr);

/* ---- message bodies ----------------------------------------------------- */
/* Requests use op = the request opcode. A REPLY body starts with hl_reply_head_t;
 * if status < 0 a string message follows, else the op-specific reply body. */

/* HELLO flags. */
#define HL_HELLO_CONTROL                                                                           \
    0x1u /* a control client (heliodctl, tools): acts on every client's                            \
          * voices and shared sounds, may use the reserved places */
#define HL_HELLO_MASK HL_HELLO_CONTROL

#define HL_LOAD_STREAM 0x1u
#define HL_LOAD_SHARED 0x2u /* visible to every client (default: this connection's own) */
#define HL_LOAD_PIN    0x4u /* never evicted by the sample-memory budget (only unloaded) */
#define HL_LOAD_COMPRESSED                                                                         \
    0x8u /* since 1.1: the encoded file stays in memory, each voice decodes it (LOAD only;         \
          * SOUND_INFO reports such a sound with HL_LOAD_STREAM) */
#define HL_LOAD_INFO_MASK (HL_LOAD_STREAM | HL_LOAD_SHARED | HL_LOAD_PIN) /* SOUND_INFO flags */
#define HL_LOAD_MASK      (HL_LOAD_INFO_MASK | HL_LOAD_COMPRESSED)

/* The per-voice post stage (mixer-graph issue): filters, occlusion and
 * sends. Wire: f32 lp_hz, f32 hp_hz, f32 occlusion, f32 obstruction, then
 * HL_VOICE_SENDS x (string bus, f32 db). */
#define HL_MAX_LP_HZ ((float)HL_R_LP_HZ_HI) /* the ranges live in hl_ranges.h */
#define HL_MAX_HP_HZ ((float)HL_R_HP_HZ_HI)

/* PLAY flags */
#define HL_PLAY_LOOP     0x1u
#define HL_PLAY_3D       0x2u /* position is used; pan is ignored */
#define HL_PLAY_DETACHED 0x4u /* survives its connection */
#define HL_PLAY_PAUSED   0x8u
#define HL_PLAY_CUBIC    0x10u /* 4-point cubic interpolator */
#define HL_PLAY_SINC     0x40u /* band-limited windowed sinc (wins over CUBIC) */
#define HL_PLAY_LINEAR   0x80u /* linear, even where the cue or the daemon default says otherwise */
#define HL_PLAY_INTERP   (HL_PLAY_CUBIC | HL_PLAY_SINC | HL_PLAY_LINEAR)
#define HL_PLAY_MASK     0xDFu
#include "hl_panlaw.h" /* PLAY pan_law: HL_PAN_LAW_HELIOD, HL_PAN_LAW_OPENAL */
/* PLAY sync_on (1.1): start on the next beat or bar of sync_voice (a stinger) */
#define HL_SYNC_NONE 0
#define HL_SYNC_BEAT 1
#define HL_SYNC_BAR  2

/* distance models */
#define HL_DIST_LINEAR      0
#define HL_DIST_INVERSE     1
#define HL_DIST_EXPONENTIAL 2
/* PLAY of a cue: `sound` names a cue (looked up first) or a sound. For a cue,
 * flags LOOP/3D/CUBIC are OR'd with the cue's, gain_db is added to the cue's
 * (randomised) gain, pitch multiplies the cue's (randomised) pitch, pos, vel,
 * emitter and DETACHED/PAUSED come from the play; the fields whose HL_OVER_*
 * bit is set replace the cue's. For a plain sound every field is used as is. */
#define HL_OVER_PRIORITY 0x1u  /* priority */
#define HL_OVER_BUS      0x2u  /* bus */
#define HL_OVER_FADE_IN  0x4u  /* fade_in_ms */
#define HL_OVER_DISTANCE 0x8u  /* min_distance, max_distance, rolloff, model */
#define HL_OVER_PAN      0x10u /* pan */
#define HL_OVER_FILTER   0x20u /* post.lp_hz, hp_hz, occlusion, obstruction */
#define HL_OVER_SENDS    0x40u /* post.send, send_db */
#define HL_OVER_MASK     0x7Fu

#define HL_STOP_CURVE(c)     ((uint8_t)((c) + 1)) /* STOP curve field of an HL_CURVE_* */
#define HL_STOP_ALL_MINE     0                    /* voices this connection started */
#define HL_STOP_ALL_EVERYONE 1 /* every voice of every client (tools, heliodctl) */

#define HL_PAUSE_MINE     0 /* voices this connection started */
#define HL_PAUSE_EVERYONE 1 /* every voice of every client */
#define HL_PAUSE_BUS      2 /* every voice on the bus named `group` (any client) */
#define HL_PAUSE_CATEGORY 3 /* every voice of the category named `group` (any client) */

#define HL_SET_GAIN   0x1u
#define HL_SET_PAN    0x2u
#define HL_SET_POS    0x4u
#define HL_SET_PITCH  0x8u
#define HL_SET_PAUSE  0x10u /* fade out over ramp_ms (>= a click-free minimum), then hold */
#define HL_SET_RESUME 0x20u /* fade back in; exclusive with HL_SET_PAUSE */
#define HL_SET_SEEK   0x40u /* jump to seek_s seconds of the sound, click-free */
#define HL_SET_VEL    0x80u /* source velocity (Doppler) */
/* appended (mixer-graph issue): each glides over ramp_ms */
#define HL_SET_LP          0x100u  /* post.lp_hz */
#define HL_SET_HP          0x200u  /* post.hp_hz */
#define HL_SET_OCCLUSION   0x400u  /* post.occlusion */
#define HL_SET_OBSTRUCTION 0x800u  /* post.obstruction */
#define HL_SET_SENDS       0x1000u /* post.send and post.send_db (both sends) */
#define HL_SET_LFE         0x2000u /* since 1.1: lfe, the LFE send (surround layouts) */
#define HL_SET_LOOPS       0x4000u /* since 1.1: loops, the loop passes left (preloaded voices) */
#define HL_SET_MASK        0x7FFFu

#define HL_LIS_POS  0x1u
#define HL_LIS_FWD  0x2u
#define HL_LIS_UP   0x4u
#define HL_LIS_VEL  0x8u
#define HL_LIS_MASK 0xFu

#define HL_VOICE_PLAYING  0
#define HL_VOICE_STOPPING 1 /* fading out (stopped, stolen or owner gone) */
#define HL_VOICE_PAUSED   2
#define HL_VOICE_VIRTUAL  3 /* not mixed (inaudible or less important), still advancing */
#define HL_VOICE_VPAUSED  4 /* virtual and paused */

#define HL_DEV_DEFAULT 0x1u
#define HL_DEV_CURRENT 0x2u

/* DEVICE: switch the output device at run time. name as --device takes it:
 * an exact PortAudio device name or a substring, "null" for the null driver,
 * "default" for the default output. Reply: hl_device_reply_t. */

#define HL_STATS_RESET 0x1u /* after answering: the callback histogram, maxima, loudness reset */

/* ---- assets: banks and world zones ------------------------------------ */
#define HL_BANK_LOAD            0
#define HL_BANK_UNLOAD          1
#define HL_BANK_STATE_LOADING   0
#define HL_BANK_STATE_LOADED    1
#define HL_BANK_STATE_FAILED    2
#define HL_BANK_STATE_UNLOADING 3
#define HL_BANK_STATE_GONE      4 /* BANK event only: unloaded */
#define HL_ZONE_ADD             0
#define HL_ZONE_REMOVE          1
#define HL_ZONE_STATE_OUT       0
#define HL_ZONE_STATE_LOADING   1
#define HL_ZONE_STATE_LOADED    2
#define HL_MAX_REPORT           2047 /* a ZONE_TICK report line */
/* LOAD_DATA: an encoded file sent over the socket, in order, in chunks (for
 * clients that do not share a filesystem with the daemon). The first chunk
 * (offset 0) starts the upload: total is checked against HL_MAX_UPLOAD and
 * reserved from the sample-memory budget before anything is allocated; the
 * chunk that completes it starts the decode, and its reply is the LOAD
 * reply (SOUND_INFO) once decoded. One upload per connection at a time. */
#define HL_MAX_UPLOAD                                                                              \
    (256u << 20)            /* an encoded sound larger than 256 MiB is a stream, not an upload */
#define HL_MAX_CHUNK 60000u /* bytes of file per frame: fits HL_MAX_FRAME with the header */
/* LOAD_FD: the same upload as one descriptor passed with SCM_RIGHTS on the
 * frame's first byte (a memfd, sealed by libheliod): exactly one descriptor
 * per LOAD_FD frame. size must equal the descriptor's size (fstat) and be
 * 1..HL_MAX_UPLOAD; the daemon reads it with pread on a load worker and
 * closes it. The reply is the LOAD reply (SOUND_INFO) once decoded. */

/* SUBSCRIBE: which events this connection wants (EVENT_ERROR always comes) */
#define HL_SUB_ENDED        0x1u
#define HL_SUB_STARTED      0x2u
#define HL_SUB_ALL          0x4u /* ENDED/STARTED of every client's voices, not just our own (tools) */
#define HL_SUB_VIRTUAL      0x8u  /* VIRTUAL and REAL events */
#define HL_SUB_DEVICE       0x10u /* DEVICE_LOST and DEVICE_BACK events */
#define HL_SUB_METER        0x20u /* METER events, meter_hz times a second */
#define HL_SUB_BANK         0x40u /* BANK and RELOAD events: banks' state and progress, hot reloads */
#define HL_SUB_ZONES        0x80u /* ZONE_TICK events: the world-zone scheduler's per-tick report */
#define HL_SUB_PROFILE      0x100u /* PROFILE events, profile_hz times a second (profiler issue) */
#define HL_SUB_STREAM       0x200u /* STREAM events: frames a client-fed stream consumed (1.1) */
#define HL_SUB_MUSIC        0x400u /* BEAT, BAR and MARKER events (tempo maps, markers; 1.1) */
#define HL_SUB_MASK         0x7FFu
#define HL_METER_DEFAULT_HZ 20.0f /* a meter's usual refresh */
#define HL_METER_MIN_HZ     ((float)HL_R_METER_HZ_LO)
#define HL_METER_MAX_HZ     ((float)HL_R_METER_HZ_HI)

/* BUS: what to do with bus `name` ("master" for the master bus), in this
 * order: CREATE (under `parent`, "" = master), PARENT (move it under
 * `parent`), GAIN, MUTE. REMOVE goes alone. */
#define HL_BUS_GAIN   0x1u
#define HL_BUS_MUTE   0x2u /* mute = 1 mutes, 0 unmutes, ramped over ramp_ms; the gain is kept */
#define HL_BUS_CREATE 0x4u /* a new bus (HELIOD_EEXIST if the name is taken) */
#define HL_BUS_REMOVE                                                                              \
    0x8u /* HELIOD_EBUSINUSE while voices, sends, effects, children or ducking use it */
#define HL_BUS_PARENT 0x10u /* re-parent (HELIOD_EINVAL for a cycle) */
#define HL_BUS_SEND   0x20u /* send to bus `send` at send_db (pre-fader); <= -144 removes it */
#define HL_BUS_MASK   0x3Fu
/* BUSES list entry (master first, then every bus, parents before children). */

/* ZONE: a reverb zone, a sphere (pos, radius) whose reverb bus `bus` is fed
 * from bus `feed` (a bus send) at a level that follows the listener: 1
 * inside the radius, falling linearly to 0 at radius + fade; zones that
 * overlap share one unit (levels normalised to sum <= 1). bus "" = a bus
 * named after the zone, created with a reverb of `preset` (dry 0) if it does
 * not exist; feed "" = "reverb_zones", created muted if it does not exist (voices
 * send to it: --send reverb_zones:-6). At most HL_BUS_SENDS_MAX zones per feed are
 * heard at once (the nearest). */
#define HL_RZONE_SET    0
#define HL_RZONE_REMOVE 1
#define HL_MAX_RZONES   64
/* ZONES list entry */

/* FX: insert effects on a bus's chain (master included). Parameters travel
 * as p[0..8) whose meaning depends on the kind; `mask` bit i says p[i] is
 * given (others keep the defaults on ADD, the current value on SET), and
 * HL_FXP_TYPE that `type` is given.
 *   eq:     type HL_EQ_* (default peak); p0 freq Hz [10, 24000] (1000),
 *           p1 q [0.1, 40] (0.7071), p2 gain_db [-48, 48] (0; shelves, peak)
 *   comp:   p0 threshold_db [-80, 0] (-20), p1 ratio [1, 100] (4), p2 knee_db
 *           [0, 24] (6), p3 attack_ms [0.05, 500] (5), p4 release_ms [1, 5000]
 *           (100), p5 makeup_db [-24, 24] (0)
 *   reverb: type HL_REV_* preset loaded first (default hall); p0 rt60_s
 *           [0.1, 20], p1 damping [0, 1], p2 predelay_ms [0, 200], p3 size
 *           [0.25, 2], p4 wet [0, 1], p5 dry [0, 1] (linear gains)
 * ADD puts it at `index` (>= the chain's length = the end; reply COUNT =
 * where it went); SET changes the effect at `index` (its kind must match,
 * eq gains and frequencies glide over ramp_ms); REMOVE takes it out. */
#define HL_FX_ADD       0
#define HL_FX_SET       1
#define HL_FX_REMOVE    2
#define HL_FXK_EQ       1
#define HL_FXK_COMP     2
#define HL_FXK_REVERB   3
#define HL_EQ_LOWPASS   0
#define HL_EQ_HIGHPASS  1
#define HL_EQ_LOWSHELF  2
#define HL_EQ_HIGHSHELF 3
#define HL_EQ_PEAK      4
#define HL_REV_ROOM     0
#define HL_REV_HALL     1
#define HL_REV_CAVE     2
#define HL_REV_OUTDOOR  3
#define HL_FXP_TYPE     0x100u
#define HL_FXP_MASK     0x1FFu
/* FX_LIST request: a bus name, "" = every bus. Entry: */
/* Names shared by the daemon's config and heliodctl: kinds "eq" "comp"
 * "reverb"; eq types "lowpass" "highpass" "lowshelf" "highshelf" "peak";
 * reverb presets "room" "hall" "cave" "outdoor". -1 / NULL if unknown. */
int hl_fx_kind_from(const char *s);
const char *hl_fx_kind_name(int kind);
int hl_fx_type_from(int kind, const char *s);
const char *hl_fx_type_name(int kind, int type);
/* Name of parameter i of a kind ("freq", "threshold", "rt60", ...), NULL past the last. */
const char *hl_fx_param_name(int kind, int i);
/* Parses an effect as heliodctl and the config file write it: args[0..n)
 * = "--type T" (eq) / "--preset P" (reverb) / "--PARAM VALUE" pairs
 * (hl_fx_param_name; "--ramp MS" too) into m->type, m->mask, m->p and
 * m->ramp_ms for m->kind (set by the caller). 0, or -1 with a message in
 * err[cap]. Ranges are checked by hl_validate_fx. */
int hl_fx_parse_args(hl_fx_req_t *m, int n, char *const *args, char *err, size_t cap);

/* DUCK: while bus `by` is above threshold_db (or, threshold_db <= -144,
 * has voices), bus `bus` goes down depth_db, with attack, hold and release.
 * on = 1 adds or updates the rule for (bus, by); 0 removes it. */
#define HL_DUCK_DEPTH_DB     9.0f
#define HL_DUCK_THRESHOLD_DB (-40.0f)
#define HL_DUCK_ATTACK_MS    80.0f
#define HL_DUCK_HOLD_MS      200.0f
#define HL_DUCK_RELEASE_MS   600.0f
/* DUCKS list entry: the rule and its gain now (dB <= 0). */
/* Defaults above, on = 1. */

/* List replies: u16 count, u8 truncated, then count entries. */

/* EVENT bodies: u16 type, then the type's fields. */
#define HL_EVENT_ERROR   1 /* a NOREPLY request failed: req_op, status, message */
#define HL_EVENT_ENDED   2 /* voice, reason */
#define HL_EVENT_STARTED 3 /* voice, mix_time_ns: when its first block was mixed */
#define HL_EVENT_VIRTUAL 4 /* voice, reason (HL_VIRT_WHY_*): it stopped being mixed */
#define HL_EVENT_REAL    5 /* voice: it is mixed again (reason 0) */
#define HL_END_FINISHED  0 /* reached its end */
#define HL_END_STOPPED   1 /* stop / stop-all */
#define HL_END_STOLEN    2 /* preempted by a higher priority voice */
#define HL_END_OWNER     3 /* its connection closed */
#define HL_END_SHUTDOWN  4
#define HL_END_EVICTED   5 /* an overflow policy made room for a newer play */
#define HL_END_DISTANCE  6 /* beyond max distance with beyond = release */
#define HL_END_EMITTER   7 /* its emitter was destroyed */
#define HL_END_KILLED    8 /* virtualised with virtual = kill */
#define HL_END_LIFETIME  9 /* a detached loop reached --detached-loop-max-s */
/* VIRTUAL event reasons */
#define HL_VIRT_WHY_RANK     0 /* more important voices hold every real voice */
#define HL_VIRT_WHY_FLOOR    1 /* below the audibility floor */
#define HL_VIRT_WHY_DISTANCE 2 /* beyond max distance */
#define HL_VIRT_WHY_PAUSED   3 /* paused while real voices were short */
#define HL_VIRT_WHY_GOVERNED 4 /* the CPU-budget governor could not afford it (--cpu-budget) */
/* device events (subscription HL_SUB_DEVICE) */
#define HL_EVENT_DEVICE_LOST 6 /* message = device name, time_ns = its last callback */
#define HL_EVENT_DEVICE_BACK 7 /* message = device name, time_ns = when audio resumed */
/* METER event (subscription HL_SUB_METER): levels in dBFS, >= HL_METER_FLOOR_DB
 * (silence), per channel (0 left, 1 right; on a surround layout every channel
 * in the layout's order, the ones past the front pair in trailing fields
 * since 1.1): the peak bar (falls 20 dB/s), the peak-hold marker (held 1.5 s,
 * then falls) and the rms over 300 ms; the master's after the limiter, each
 * bus's where it joins its parent. */
#define HL_EVENT_METER     8
#define HL_EVENT_BANK      9  /* bank: a bank's state or progress changed (HL_SUB_BANK) */
#define HL_EVENT_ZONE_TICK 10 /* report: one world-zone scheduler tick (HL_SUB_ZONES) */
#define HL_EVENT_RELOAD    11 /* sound, status, frames, message: a hot reload (HL_SUB_BANK) */
#define HL_EVENT_STREAM    12 /* voice, consumed, underruns, frames (HL_SUB_STREAM; 1.1) */
#define HL_EVENT_BEAT      13 /* voice, frame, time_ns, beat, bar, beat_in_bar, bpm (1.1) */
#define HL_EVENT_BAR       14 /* as BEAT, on a bar's first beat (HL_SUB_MUSIC; 1.1) */
#define HL_EVENT_MARKER    15 /* voice, frame, time_ns, marker_id, label (HL_SUB_MUSIC; 1.1) */
#define HL_METER_MAX_BUSES 32 /* buses in one METER event: the mixer's tree holds 32 */
#define HL_METER_FLOOR_DB  (-144.0f) /* silence (and "no reading yet") */
#define HL_METER_MAX_DB    800.0f    /* above any finite float sample (770.6 dBFS) */
typedef struct {
    char name[HL_MAX_NAME + 1]; /* bus name ("" for the master: not on the wire) */
    float peak_db[2], peak_hold_db[2], rms_db[2];
} hl_meter_level_t;
/* METER since 1.1: a surround layout's channels past the front pair (2.. in the layout's
 * order FL FR FC LFE BL BR SL SR TFL TFR TBL TBR), for the master and each bus of
 * hl_meter_t.bus[] in turn; channels 0 (or 2) on stereo: none. */
#define HL_METER_MAX_CH     12 /* channels per level: 7.1.4 (protocol 1.2) */
#define HL_METER_MAX_CH_1_1 8  /* a 1.1 connection's: 7.1 (on 7.1.4 the bed, FL..SR) */
typedef struct {
    float peak_db[HL_METER_MAX_CH - 2], peak_hold_db[HL_METER_MAX_CH - 2];
    float rms_db[HL_METER_MAX_CH - 2];
} hl_meter_rest_t;
typedef struct {
    uint8_t channels; /* 0 or 2: stereo; 3..12 (3..8 to a 1.1 connection) */
    hl_meter_rest_t master, bus[HL_METER_MAX_BUSES];
} hl_meter_more_t;
typedef struct {
    uint64_t frame;              /* engine frame the readings are as of */
    float momentary, short_term; /* LUFS (EBU R128, 400 ms and 3 s), floor -144 */
    float integrated, range;     /* LUFS (gated, since start or STATS reset), LU */
    hl_meter_level_t master;     /* name "" */
    uint8_t nbuses;              /* 0..HL_METER_MAX_BUSES */
    hl_meter_level_t bus[HL_METER_MAX_BUSES];
} hl_meter_t;
/* ---- PROFILE event (profiler issue) --------------------------------------
 * Subscription HL_SUB_PROFILE: what the engine did since the previous
 * PROFILE event the daemon encoded (the "window"), plus where it stands now.
 * Loads are callback durations over the period (1.0 = the deadline). */
#define HL_EVENT_PROFILE       20
#define HL_PROFILE_DEFAULT_HZ  10.0f /* a live view's refresh */
#define HL_PROFILE_MIN_HZ      ((float)HL_R_PROFILE_HZ_LO)
#define HL_PROFILE_MAX_HZ      ((float)HL_R_PROFILE_HZ_HI)
#define HL_PROFILE_HIST        8      /* window histogram bins: 1/8 of the period each */
#define HL_PROFILE_MAX_STREAMS 16     /* stream fills listed (the rest only counted) */
#define HL_PROFILE_MAX_BUSES   32     /* every bus of the mixer's tree */
#define HL_PROFILE_MAX_LOAD    1.0e6f /* a load the wire accepts: a million periods */
typedef struct {
    char name[HL_MAX_NAME + 1];
    float peak_db, peak_hold_db, rms_db; /* the louder channel, as METER's */
    uint16_t real, virt;                 /* voices on the bus: mixed, not mixed */
} hl_profile_bus_t;
typedef struct {
    char sound[HL_MAX_NAME + 1]; /* the streamed sound */
    float fill;                  /* decoded frames waiting in its ring / ring size, [0, 1] */
} hl_profile_stream_t;
typedef struct {
    uint64_t time_ns;         /* daemon uptime when the event was built */
    float period_us;          /* the deadline */
    uint32_t callbacks;       /* audio callbacks in the window */
    float load_now;           /* mean callback of the window / period */
    float load_peak;          /* longest callback of the window / period (histogram bucket, ~19%) */
    float load_p99, load_max; /* since start or STATS reset (= STATS callback_load_*) */
    uint32_t hist[HL_PROFILE_HIST]; /* window's callbacks by load; the last bin also holds > 1 */
    uint64_t xruns, underruns;      /* totals: device xruns, stream underruns */
    uint32_t voices_real, voices_virtual;
    float decode_load; /* decoder threads' CPU seconds per second over the window */
    uint16_t streams;  /* streams open (may exceed nstreams) */
    uint8_t nstreams;  /* 0..HL_PROFILE_MAX_STREAMS */
    hl_profile_stream_t stream[HL_PROFILE_MAX_STREAMS];
    float master_peak_db, master_rms_db;
    uint8_t nbuses; /* 0..HL_PROFILE_MAX_BUSES */
    hl_profile_bus_t bus[HL_PROFILE_MAX_BUSES];
} hl_profile_t;

typedef struct {
    uint16_t type;
    uint16_t req_op; /* ERROR */
    int32_t status;  /* ERROR */
    char message[HL_MAX_MSG + 1];
    uint64_t voice;                 /* ENDED, STARTED */
    uint8_t reason;                 /* ENDED: HL_END_*; VIRTUAL: HL_VIRT_WHY_*; REAL: 0 */
    uint64_t time_ns;               /* STARTED: CLOCK_MONOTONIC of the callback that mixed it */
    hl_meter_t meter;               /* appended: METER */
    hl_bank_info_t bank;            /* appended: BANK */
    char report[HL_MAX_REPORT + 1]; /* appended: ZONE_TICK (the scheduler's report line) */

    /* appended: PROFILE (profiler issue) */
    hl_profile_t profile;
    /* appended: RELOAD (--watch-assets): the sound, status 0 (reloaded: its
     * new frames) or < 0 (the old data stays; message says why) */
    char sound[HL_MAX_NAME + 1];
    uint32_t frames; /* RELOAD; STREAM: frames consumed since the previous STREAM event */
    /* appended: STREAM (1.1): the stream's totals (voice: its voice) */
    uint64_t consumed, underruns;
    /* appended: BEAT and BAR (1.1): the engine frame the beat falls on (voice
     * and time_ns: its CLOCK_MONOTONIC time), the beat and bar indices since
     * the sound's start (0-based), the beat in its bar and the tempo there */
    uint64_t frame, beat;
    uint32_t bar;
    uint8_t beat_in_bar;
    float bpm;
    /* appended: MARKER (1.1): a cue point of the voice's file, its id and label */
    uint32_t marker_id;
    char label[HL_MAX_NAME + 1];
    /* appended: METER's surround channels (1.1): hl_put_event_minor only, hl_get_event */
    hl_meter_more_t meter_more;
} hl_event_t;

/* ---- cues, categories, emitters (voice-management issue) ---------------- */
#define HL_PICK_RANDOM             0
#define HL_PICK_SHUFFLE            1 /* random, never the same variation twice in a row */
#define HL_PICK_SEQUENCE           2
#define HL_OVERFLOW_REFUSE         0
#define HL_OVERFLOW_STOP_OLDEST    1
#define HL_OVERFLOW_FADE_OLDEST    2
#define HL_OVERFLOW_STEAL_LOWEST   3 /* steal-lowest-priority */
#define HL_OVERFLOW_STEAL_QUIETEST 4
#define HL_OVERFLOW_STEAL_FARTHEST 5
#define HL_BEYOND_VIRTUAL          0 /* beyond max distance: virtual (refused at start) */
#define HL_BEYOND_RELEASE          1 /* beyond max distance: fade out and free (refused at start) */
#define HL_BEYOND_CLAMP            2 /* keep the gain at max distance */
#define HL_VIRT_RESUME             0 /* back from virtual at the position it would have reached */
#define HL_VIRT_RESTART            1 /* back from virtual from the start */
#define HL_VIRT_KILL               2 /* ends when it would become virtual */
#define HL_CURVE_LINEAR            0
#define HL_CURVE_EQUAL_POWER       1
#define HL_CURVE_LOG               2 /* linear in dB (-60 dB .. 0 dB) */
/* CUE flags */
#define HL_CUE_LOOP   HL_PLAY_LOOP
#define HL_CUE_3D     HL_PLAY_3D
#define HL_CUE_CUBIC  HL_PLAY_CUBIC
#define HL_CUE_SINC   HL_PLAY_SINC
#define HL_CUE_LINEAR HL_PLAY_LINEAR
#define HL_CUE_MASK   (HL_CUE_LOOP | HL_CUE_3D | HL_CUE_CUBIC | HL_CUE_SINC | HL_CUE_LINEAR)
/* Defaults: gain 0, pitch 1, sfx, no category, priority 0, pan 0, 2D,
 * distance 1/100/1 inverse, fade-in -1, fade-out -1, linear curve,
 * unlimited, refuse, no interval, virtual, resume, doppler 1, random. */
/* Names of the cue enums, shared by the daemon's cue files and heliodctl:
 * pick "random" "shuffle" "sequence"; overflow "refuse" "stop-oldest"
 * "fade-oldest" "steal-lowest-priority" "steal-quietest" "steal-farthest";
 * beyond "virtual" "release" "clamp"; virt "resume" "restart" "kill";
 * curve "linear" "equal-power" "log"; model "linear" "inverse" "exponential".
 * hl_enum_from returns the value or -1; hl_enum_name the name or NULL. */
typedef enum {
    HL_ENUM_PICK,
    HL_ENUM_OVERFLOW,
    HL_ENUM_BEYOND,
    HL_ENUM_VIRT,
    HL_ENUM_CURVE,
    HL_ENUM_MODEL,
    HL_ENUM_PROP,  /* "gain" "pitch" "lp" "hp" "occlusion" "send" "switch" "blend" (HL_PROP_*) */
    HL_ENUM_SHAPE, /* "linear" "exp" "log" "scurve" (HL_SHAPE_*) */
    HL_ENUM_PSCOPE /* "global" "emitter" "voice" (HL_PSCOPE_*) */
} hl_enum_kind_t;
int hl_enum_from(hl_enum_kind_t kind, const char *s);
const char *hl_enum_name(hl_enum_kind_t kind, int v);
#define HL_DEFAULT_EVICT_MS 50.0f /* fade-out of an evicted or released voice: no click, quick */
/* counters kept per cue and per category */
#define HL_CUES_KIND_CUE      0
#define HL_CUES_KIND_CATEGORY 1
typedef struct {
    uint8_t kind;      /* HL_CUES_KIND_* */
    hl_cue_t cue;      /* kind CUE */
    hl_category_t cat; /* kind CATEGORY */
    hl_cue_counters_t n;
} hl_cue_info_t; /* CUES list entry: u8 kind, the definition, the counters */
#define HL_EMITTER_CREATE  0
#define HL_EMITTER_SET     1
#define HL_EMITTER_DESTROY 2
#define HL_EM_POS          0x1u /* pos is given */
#define HL_EM_VEL          0x2u /* vel is given */
#define HL_EM_DETACHED     0x4u /* CREATE: outlives its connection (until destroyed) */
#define HL_EM_MASK         0x7u
/* SNAPSHOT (since 1.1): a named set of bus and effect settings */
#define HL_MAX_SNAPSHOTS 64 /* defined at once (all processes) */
#define HL_SNAP_ENTRIES  32 /* settings in one snapshot */
#define HL_SNAP_DEFINE   0  /* create (or redefine: keeps its settings) with priority, fade */
#define HL_SNAP_SET      1  /* add or replace one setting (bus, target, fx_index, param) */
#define HL_SNAP_START    2  /* blend in to intensity over fade_ms; again: a new intensity */
#define HL_SNAP_STOP     3  /* blend back out over fade_ms */
#define HL_SNAP_REMOVE   4  /* forget it (a running one is cut back at once) */
#define HL_SNAPT_GAIN    0  /* value: the bus's fader, dB */
#define HL_SNAPT_MUTE    1  /* value: 1 muted, 0 unmuted */
#define HL_SNAPT_FX      2  /* value: parameter `param` of insert `fx_index` */
/* SHEET_KEY section: the kind of cue-sheet section a line belongs to */
#define HL_SHEET_CUE   0 /* [cue NAME]: its tempo map */
#define HL_SHEET_MUSIC 1 /* [music NAME]: a state, layer or transition */
/* CONE (since 1.1): OpenAL 1.1's sound cone on a voice, an emitter or a cue */
#define HL_CONE_VOICE      0 /* voice: that voice, now */
#define HL_CONE_EMITTER    1 /* name: the emitter's voices, now and later */
#define HL_CONE_CUE        2 /* name: the cue's voices started from now on */
#define HL_SNAP_STATE_IDLE 0
#define HL_SNAP_STATE_IN   1 /* fading in (or to a new intensity) */
#define HL_SNAP_STATE_ON   2
#define HL_SNAP_STATE_OUT  3 /* fading out after a STOP */

/* ---- game parameters (protocol 1.1) ------------------------------------ */
#define HL_MAX_CUE_BINDS  8 /* bindings on one cue */
#define HL_PSCOPE_GLOBAL  0 /* PARAM scope: the parameter's one value */
#define HL_PSCOPE_EMITTER 1 /* the value of the voices on one emitter */
#define HL_PSCOPE_VOICE   2 /* the value of one voice */
/* BIND properties: what the curve's y is */
#define HL_PROP_GAIN      0  /* dB added to the voice's gain */
#define HL_PROP_PITCH     1  /* cents added to the voice's pitch */
#define HL_PROP_LP        2  /* low-pass cutoff, Hz (0 = off) */
#define HL_PROP_HP        3  /* high-pass cutoff, Hz (0 = off) */
#define HL_PROP_OCCLUSION 4  /* occlusion 0..1 */
#define HL_PROP_SEND      5  /* dB added to the level of send `index` (0 or 1) */
#define HL_PROP_SWITCH    6  /* variation choice: the curve's x are the boundaries */
#define HL_PROP_BLEND     7  /* every variation plays; equal-power crossfade over x */
#define HL_PROP_BUS_GAIN  8  /* a bus's gain, dB (BIND `cue` names the bus) */
#define HL_PROP_FX        9  /* effect `index` of the bus, its parameter p[fxp] (FX units) */
#define HL_PROP_SNAPSHOT  10 /* a mixer snapshot's intensity 0..1 (BIND `cue` names it) */
#define HL_PROP_LAST      HL_PROP_SNAPSHOT
#define HL_MAX_BUS_BINDS  64 /* bus and effect bindings in the daemon */
#define HL_BIND_ADD       0  /* BIND action: add (or replace the same param + property) */
#define HL_BIND_CLEAR     1  /* remove every binding of the cue */

#define HL_CAPTURE_STOP  0    /* CAPTURE action: stop the capture (COUNT: requests captured) */
#define HL_CAPTURE_START 1    /* start one into `path` */
#define HL_CAPTURE_AUDIO 0x1u /* CAPTURE flags: the LOADed files' bytes too */
#define HL_CAPTURE_MASK  HL_CAPTURE_AUDIO
/* Curve segment shapes (2 bits per segment in BIND `shapes`, segment i at bits 2i) */
#define HL_SHAPE_LINEAR 0
#define HL_SHAPE_EXP    1 /* slow start: (e^(4.6t) - 1) / (e^4.6 - 1) */
#define HL_SHAPE_LOG    2 /* fast start: the exponential mirrored */
#define HL_SHAPE_SCURVE 3 /* smoothstep 3t^2 - 2t^3 */
int hl_validate_param_def(const hl_param_def_t *m, const char **why);
int hl_validate_param(const hl_param_t *m, const char **why);
/* Names, action, property, index, points (1..16, x finite, within the
 * parameter range and strictly increasing, y finite), no shape bits past
 * the last segment. */
int hl_validate_bind(const hl_bind_t *m, const char **why);

/* The bodies whose layout a field list cannot say, written by hand in
 * proto.c: an EVENT (its type picks the fields) and a CUES entry (its kind
 * picks CUE or CATEGORY). Every other body's hl_put_* / hl_get_* comes from
 * hl_schema.h. Semantic ranges (gain, pitch) are checked by the daemon and
 * libheliod with hl_validate_* (validate.c, over the generated hl_check_*). */
void hl_put_event(hl_wbuf_t *w, const hl_event_t *m);
void hl_get_event(hl_rbuf_t *r, hl_event_t *m);
/* m for a connection of protocol 1.minor: hl_put_event at 0; from 1.1 the trailing fields
 * (a METER's meter_more), at 1.1 HL_METER_MAX_CH_1_1 channels at most (7.1.4: the bed). */
void hl_put_event_minor(hl_wbuf_t *w, const hl_event_t *m, unsigned minor);
void hl_put_cue_info(hl_wbuf_t *w, const hl_cue_info_t *m);
void hl_get_cue_info(hl_rbuf_t *r, hl_cue_info_t *m);
int hl_validate_rzone(const hl_rzone_t *m, const char **why);
int hl_validate_zone(const hl_zone_t *m, const char **why);
/* SNAPSHOT: the schema's ranges, then param < HL_FX_PARAMS and a value
 * fitting its target (a gain <= +24 dB or -inf, a mute 0 or 1, an effect
 * parameter finite: its kind's range is checked against the effect). */
int hl_validate_snapshot(const hl_snapshot_t *m, const char **why);
/* CONE: the schema's ranges, a name for an emitter or cue, inner <= outer. */
int hl_validate_cone(const hl_cone_t *m, const char **why);
/* ATTEN: target voice or cue, npoints <= HL_ATTEN_POINTS, distances finite,
 * >= 0 and strictly increasing, values (gain_db) finite in [-144, +24] dB,
 * or for kind HL_ATTEN_LOWPASS cutoffs in [10, 96000] Hz. */
#define HL_ATTEN_POINTS  8
#define HL_ATTEN_GAIN    0 /* ATTEN kind: the distance gain (dB), the default */
#define HL_ATTEN_LOWPASS 1 /* a low-pass cutoff by distance (Hz) */
#define HL_ATTEN_SEND    2 /* the sends' level by distance (dB) */
int hl_validate_atten(const hl_atten_t *m, const char **why);
/* PING reply body: u64 server CLOCK_MONOTONIC ns. */

/* 1 if s is a valid name (1..HL_MAX_NAME of [A-Za-z0-9_.-]), else 0. */
int hl_name_valid(const char *s);
/* A pack file's range written "PATH@OFFSET+LENGTH" (heliodctl, bank
 * manifests): bytes [OFFSET, OFFSET + LENGTH) of PATH, decimal; "+LENGTH"
 * may be left out (to the file's end). A spec that does not end in
 * "@DIGITS" or "@DIGITS+DIGITS" is a plain path (off = len = 0). Copies the
 * path part into path (cap bytes). Returns 1 (a range), 0 (a plain path),
 * or -1: a number beyond 2^64 - 1, OFFSET + LENGTH overflowing, LENGTH 0,
 * or the path not fitting. */
int hl_pack_split(const char *spec, char *path, size_t cap, uint64_t *off, uint64_t *len);
/* Semantic checks shared by daemon and client: 0 or HELIOD_EINVAL, with a
 * static reason in *why. */
int hl_validate_play(const hl_play_t *m, const char **why);
int hl_validate_set(const hl_set_t *m, const char **why);
int hl_validate_listener(const hl_listener_t *m, const char **why);
int hl_validate_stop(const hl_stop_t *m, const char **why);
int hl_validate_stop_all(const hl_stop_all_t *m, const char **why);
int hl_validate_bus(const hl_bus_t *m, const char **why);
int hl_validate_pause(const hl_pause_t *m, const char **why);
int hl_validate_fx(const hl_fx_req_t *m, const char **why);
int hl_validate_duck(const hl_duck_rule_t *m, const char **why);
/* The post-stage fields: cutoffs, occlusion/obstruction, send names and levels. */
int hl_validate_vpost(const hl_vpost_t *m, const char **why);
/* Known bits; meter_hz 0 or finite in [HL_METER_MIN_HZ, HL_METER_MAX_HZ];
 * profile_hz 0 or finite in [HL_PROFILE_MIN_HZ, HL_PROFILE_MAX_HZ]. */
int hl_validate_subscribe(const hl_subscribe_t *m, const char **why);
/* Every field of a cue / category / emitter request in range (names valid,
 * 1..16 sounds, enums known, numbers finite and in the documented ranges). */
int hl_validate_cue(const hl_cue_t *m, const char **why);
int hl_validate_category(const hl_category_t *m, const char **why);
int hl_validate_emitter(const hl_emitter_t *m, const char **why);
/* 1 if ms is a valid fade length (fade_in_ms, stop fade_ms): exactly -1 (the
 * server default) or finite in [0, HL_MAX_FADE_MS]; else 0. Ramps (SET, BUS)
 * have no sentinel: 0 is already the server's one-block ramp, so
 * hl_validate_set/bus require [0, HL_MAX_FADE_MS]. */
int hl_fade_valid(float ms);
/* 1 if db is finite and <= HL_MAX_GAIN_DB; else 0. */
int hl_gain_valid(float db);

/* ---- time: the clock and scheduled requests ---------------------------- */
/* CLOCK reply: engine frame `frame` was the first frame of the audio
 * thread's latest period, begun at CLOCK_MONOTONIC time time_ns; the frame
 * reaches the speaker output_latency_ns after that. An engine frame F is
 * due at about time_ns + (F - frame) * 1e9 / rate. */
/* 1 if op takes HL_FLAG_AT (PLAY, STOP, SET, BUS, LISTENER, PARAM), else 0; these
 * are also the requests a bundle may hold. */
int hl_op_schedulable(uint16_t op);
/* 1 if this request (op, its body without an at_frame) may be scheduled: a
 * schedulable op, but not a BUS that creates, removes, re-parents or sends
 * nor a SNAPSHOT other than start and stop (they apply at once). */
int hl_req_schedulable(uint16_t op, const uint8_t *body, size_t len);
#define HL_BUNDLE_REQS                                                                             \
    64 /* requests in one bundle: the mixer applies a bundle whole in one block */

#define HL_DEFAULT_FADE_IN_MS 3.0f /* removes start clicks without softening attacks audibly */
#define HL_DEFAULT_STOP_MS    10.0f
#define HL_MAX_FADE_MS        ((float)HL_R_FADE_MS_HI) /* the ranges live in hl_ranges.h */
#define HL_MAX_GAIN_DB        ((float)HL_R_GAIN_DB_HI)
#define HL_MIN_PITCH          ((float)HL_R_PITCH_LO)
#define HL_MAX_PITCH          ((float)HL_R_PITCH_HI)
#define HL_MAX_PRIORITY       HL_R_PRIORITY_HI
#define HL_MAX_COORD          ((float)HL_R_COORD_HI)
#define HL_MAX_XFADE_MS       ((float)HL_R_XFADE_MS_HI)
#define HL_MAX_SEEK_S         ((double)HL_R_SEEK_S_HI)

#endif /* HL_PROTO_H */
