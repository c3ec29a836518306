/*
 * hl_schema.h - the protocol's messages, each declared once.
 *
 * Every message body is a list of fields in wire order. From these lists
 * come the C structs (below), the encoders, decoders, range checks and
 * defaults (schema.c), the schema dump that tests compare with PROTOCOL.md
 * and the Python client (tests/proto/schema_dump.c). See docs/ARCHITECTURE.md,
 * "One schema for the protocol".
 *
 * A field is X(KIND, name, ARG, CHECK, RANGE, WHY, WHEN, DEFAULT, SINCE):
 *
 *   KIND     wire type and C type:
 *              U8 U16 U32 I32 U64 F32 F64   plain numbers
 *              ENUM8     u8 in [0, ARG]; larger is EPROTO on decode
 *              FLAGS8    u8 flag bits, ARG = the known bits; others EPROTO
 *              FLAGS32   u32 flag bits, ARG = the known bits; others EPROTO
 *              STR       str(ARG): u16 length + bytes; C char[ARG + 1]
 *              VEC3      three f32; C float[3]
 *              F32N      ARG x f32; C float[ARG]
 *              SENDS     ARG x (str(63) name, f32 name_db); C char name[ARG][64],
 *                        float name_db[ARG]
 *              NSTR      u8 nNAME (1..ARG, EPROTO otherwise, checked before any
 *                        string is read), then nNAME x str(63)
 *              SUB       the fields of message ARG (a nested hl_ARG_t)
 *              F32OPT    f32 that may be absent at the end of the body
 *                        (then DEFAULT); written only when not DEFAULT
 *              STATUS    i32 status: 0 or a HELIOD_E* code, else EPROTO
 *              MINOR     u16 protocol minor version, never 0 when present
 *                        (EPROTO); ARG is the field holding the major: while
 *                        that is HL_PROTO_VERSION and the minor is above
 *                        HL_PROTO_MINOR, what follows the fields known here
 *                        (a later minor's) is skipped, not EPROTO
 *              COUNT16   u16 list count <= ARG, else EPROTO
 *              BLOB      the rest of a LOAD_DATA frame (len bytes)
 *   CHECK    what the message's validator checks (hl_check_MSG, WHY is the
 *            refusal, "" = HL_RANGE_MSG(name, RANGE)):
 *              NONE      nothing (or checked by hand in validate.c)
 *              RANGE     finite and within RANGE (hl_ranges.h)
 *              ZRANGE    0 (the default) or within RANGE
 *              FADE      exactly -1 (the default) or within RANGE
 *              GAIN      finite and <= RANGE_HI
 *              COORD3    each component within HL_R_COORD
 *              DIR3      COORD3 and not the zero vector
 *              NONZERO   not 0
 *              NAME      a valid name (hl_name_valid)
 *              NAMEOPT   "" or a valid name
 *              NOTMASTER "" or a valid name other than "master"
 *              NONEMPTY  a non-empty string
 *              ENUM      <= ARG
 *              FLAGS     no bit outside ARG
 *              SUB       the nested message's validator (hl_validate_ARG)
 *   RANGE    a range of hl_ranges.h (HL_R_RANGE_LO / _HI), NONE if none
 *   WHEN     ALWAYS, or IF(condition on m) for the check
 *   DEFAULT  the value of hl_MSG_init and of an absent F32OPT
 *   SINCE    the protocol version the field appeared in (V1_0, V1_1).
 *            A field appended after 1.0 is optional on decode: a body that
 *            ends before it is an older peer's and the field (and every
 *            later one) gets DEFAULT. The encoder leaves off the trailing
 *            later fields that hold DEFAULT, so a peer of the older version
 *            reads the body it knows; a present last field holding DEFAULT
 *            is not canonical (EPROTO). Later fields come last, in version
 *            order (PROTOCOL.md, "Compatibility").
 */
#ifndef HL_SCHEMA_H
#define HL_SCHEMA_H

#include <stdint.h>

/* Included by hl_proto.h (after the limits and the buffer types) only. */

#define HL_V1_0         0x0100 /* protocol 1.0: the wire format of commit 4550bf8 */
#define HL_V1_1         0x0101 /* protocol 1.1: HELLO negotiates the minor */
#define HL_R_NONE_LO    0
#define HL_R_NONE_HI    0
#define HL_R_GAIN_DB_LO (-HUGE_VAL) /* gains have no floor (-inf is silence): GAIN checks _HI */

/* The messages: X(name, DOC, CODEC) with the fields in HL_FIELDS_name;
 * DOC is its heading in PROTOCOL.md; CODEC is GEN (encoder and decoder
 * generated) or HAND (written in proto.c). Nested messages come first. */
#define HL_SCHEMA(X)                                                                               \
    X(reply_head, REPLY, GEN)                                                                      \
    X(list_head, LIST, GEN)                                                                        \
    X(hello, HELLO, GEN)                                                                           \
    X(hello_reply, HELLO_REPLY, GEN)                                                               \
    X(load, LOAD, GEN)                                                                             \
    X(sound_info, SOUND_INFO, GEN)                                                                 \
    X(name, NAME, GEN)                                                                             \
    X(vpost, POST, GEN)                                                                            \
    X(play, PLAY, GEN)                                                                             \
    X(play_reply, PLAY_REPLY, GEN)                                                                 \
    X(stop, STOP, GEN)                                                                             \
    X(stop_all, STOP_ALL, GEN)                                                                     \
    X(count_reply, COUNT, GEN)                                                                     \
    X(pause, PAUSE, GEN)                                                                           \
    X(set, SET, GEN)                                                                               \
    X(listener, LISTENER, GEN)                                                                     \
    X(voice_info, VOICE_INFO, GEN)                                                                 \
    X(device_info, DEVICE_INFO, GEN)                                                               \
    X(device_req, DEVICE, GEN)                                                                     \
    X(device_reply, DEVICE_REPLY, GEN)                                                             \
    X(stats_req, STATS_REQ, GEN)                                                                   \
    X(stat, STAT, GEN)                                                                             \
    X(bank, BANK, GEN)                                                                             \
    X(bank_info, BANK_INFO, GEN)                                                                   \
    X(zone, ZONE, GEN)                                                                             \
    X(zone_info, ZONE_INFO, GEN)                                                                   \
    X(load_data, LOAD_DATA, HAND)                                                                  \
    X(load_fd, LOAD_FD, GEN)                                                                       \
    X(subscribe, SUBSCRIBE, GEN)                                                                   \
    X(bus, BUS, GEN)                                                                               \
    X(bus_info, BUS_INFO, GEN)                                                                     \
    X(rzone, RZONE, GEN)                                                                           \
    X(rzone_info, RZONE_INFO, GEN)                                                                 \
    X(fx_req, FX, GEN)                                                                             \
    X(fx_info, FX_INFO, GEN)                                                                       \
    X(duck_rule, DUCK, GEN)                                                                        \
    X(duck_info, DUCK_INFO, GEN)                                                                   \
    X(cue, CUE, GEN)                                                                               \
    X(category, CATEGORY, GEN)                                                                     \
    X(cue_counters, CUE_COUNTERS, GEN)                                                             \
    X(cues_load, CUES_LOAD, GEN)                                                                   \
    X(cues_load_reply, CUES_LOAD_REPLY, GEN)                                                       \
    X(emitter, EMITTER, GEN)                                                                       \
    X(clock, CLOCK, GEN)                                                                           \
    X(stream_req, STREAM, GEN)                                                                     \
    X(param_def, PARAM_DEF, GEN)                                                                   \
    X(param_info, PARAM_INFO, GEN)                                                                 \
    X(param, PARAM, GEN)                                                                           \
    X(bind, BIND, GEN)                                                                             \
    X(snapshot, SNAPSHOT, GEN)                                                                     \
    X(snapshot_info, SNAPSHOT_INFO, GEN)                                                           \
    X(cone, CONE, GEN)                                                                             \
    X(atten, ATTEN, GEN)                                                                           \
    X(music_req, MUSIC, GEN)                                                                       \
    X(music_reply, MUSIC_REPLY, GEN)                                                               \
    X(capture, CAPTURE, GEN)                                                                       \
    X(cue_detail, CUE_DETAIL, GEN)                                                                 \
    X(snapshot_setting, SNAPSHOT_SETTING, GEN)                                                     \
    X(sheet_key, SHEET_KEY, GEN)

/* Refusals spelled once. */
#define HL_WHY_FADE(f) f ": must be -1 (default) or in [0, " HL_RANGE_STR(HL_R_FADE_MS_HI) "]"
#define HL_WHY_POS     "pos: coordinates must be finite and within 1e6 m"
#define HL_WHY_VEL     "vel: must be finite and within 1e6 m/s"

/* A table reads better aligned than wrapped. */
/* clang-format off */

/* ---- replies and lists ---- */
#define HL_FIELDS_reply_head(X) \
    X(U16,     req_op,  0,            NONE,  NONE, "", ALWAYS, 0, V1_0) /* the request's opcode */ \
    X(STATUS,  status,  0,            NONE,  NONE, "", ALWAYS, 0, V1_0) /* 0 or HELIOD_E*; < 0: a str(255) message follows */
#define HL_FIELDS_list_head(X) \
    X(COUNT16, count,     HL_MAX_LIST, NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(ENUM8,   truncated, 1,           NONE, NONE, "", ALWAYS, 0, V1_0)

/* ---- connection ---- */
#define HL_FIELDS_hello(X) \
    X(U16,     version,     0,             NONE, NONE, "", ALWAYS, HL_PROTO_VERSION, V1_0) \
    X(STR,     client_name, HL_MAX_NAME,   NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(FLAGS32, flags,       HL_HELLO_MASK, NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_HELLO_* */ \
    X(MINOR,   minor,       version,       NONE, NONE, "", ALWAYS, 0, V1_1) /* the highest minor the client speaks; absent (0): a 1.0 client */
#define HL_FIELDS_hello_reply(X) \
    X(U16,     version,        0,             NONE, NONE, "", ALWAYS, HL_PROTO_VERSION, V1_0) \
    X(U32,     rate,           0,             NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32,     period,         0,             NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32,     voices,         0,             NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32,     client_id,      0,             NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(STR,     server_version, HL_MAX_NAME,   NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(FLAGS32, flags,          HL_HELLO_MASK, NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_HELLO_* granted */ \
    X(MINOR,   minor,          version,       NONE, NONE, "", ALWAYS, 0, V1_1) /* the daemon's highest minor, only to a client that sent its own; absent (0): a 1.0 daemon */

/* ---- sounds ---- */
#define HL_FIELDS_load(X) \
    X(STR,     name,  HL_MAX_NAME,  NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(STR,     path,  HL_MAX_PATH,  NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(FLAGS32, flags, HL_LOAD_MASK, NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U64,     offset, 0,           NONE, NONE, "", ALWAYS, 0, V1_1) /* pack file: the sound's first byte in path */ \
    X(U64,     length, 0,           NONE, NONE, "", ALWAYS, 0, V1_1) /* pack file: its bytes (0: to the file's end) */
#define HL_FIELDS_sound_info(X) \
    X(STR,     name,        HL_MAX_NAME,  NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32,     frames,      0,            NONE, NONE, "", ALWAYS, 0, V1_0) /* at the engine rate */ \
    X(U16,     channels,    0,            NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32,     source_rate, 0,            NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(FLAGS32, flags,       HL_LOAD_INFO_MASK, NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_LOAD_* */ \
    X(U32,     playing,     0,            NONE, NONE, "", ALWAYS, 0, V1_0) /* voices playing it now */ \
    X(U32,     owner,       0,            NONE, NONE, "", ALWAYS, 0, V1_0) /* client id that loaded it (0: the daemon) */
#define HL_FIELDS_name(X) \
    X(STR, name, HL_MAX_NAME, NONE, NONE, "", ALWAYS, 0, V1_0)

/* ---- voices ---- */
/* The per-voice post stage: filters, occlusion and sends (checked by hand:
 * SET checks only the parts its mask names). */
#define HL_FIELDS_vpost(X) \
    X(F32,   lp_hz,       0,              NONE, LP_HZ,   "", ALWAYS, 0, V1_0) /* low-pass, Hz; 0 = off */ \
    X(F32,   hp_hz,       0,              NONE, HP_HZ,   "", ALWAYS, 0, V1_0) /* high-pass, Hz; 0 = off */ \
    X(F32,   occlusion,   0,              NONE, UNIT,    "", ALWAYS, 0, V1_0) /* gain and low-pass together */ \
    X(F32,   obstruction, 0,              NONE, UNIT,    "", ALWAYS, 0, V1_0) /* low-pass only */ \
    X(SENDS, send,        HL_VOICE_SENDS, NONE, SEND_DB, "", ALWAYS, 0, V1_0) /* bus ("" = none), level dB */
#define HL_FIELDS_play(X) \
    X(STR,     sound,         HL_MAX_NAME,         NAME,    NONE,     "sound: invalid name",          ALWAYS, 0, V1_0) \
    X(FLAGS32, flags,         HL_PLAY_MASK,        FLAGS,   NONE,     "flags: unknown bits",          ALWAYS, 0, V1_0) \
    X(F32,     gain_db,       0,                   GAIN,    GAIN_DB,  "",                             ALWAYS, 0, V1_0) \
    X(F32,     pan,           0,                   RANGE,   PAN,      "",                             ALWAYS, 0, V1_0) \
    X(VEC3,    pos,           0,                   COORD3,  COORD,    HL_WHY_POS,                     ALWAYS, 0, V1_0) \
    X(F32,     pitch,         0,                   RANGE,   PITCH,    "",                             ALWAYS, 1, V1_0) \
    X(I32,     priority,      0,                   RANGE,   PRIORITY, "",                             ALWAYS, 0, V1_0) \
    X(F32,     fade_in_ms,    0,                   FADE,    FADE_MS,  HL_WHY_FADE("fade_in_ms"),      ALWAYS, -1, V1_0) \
    X(F32,     min_distance,  0,                   NONE,    NONE,     "",                             ALWAYS, 1, V1_0) \
    X(F32,     max_distance,  0,                   NONE,    NONE,     "",                             ALWAYS, 100, V1_0) \
    X(F32,     rolloff,       0,                   NONE,    NONE,     "",                             ALWAYS, 1, V1_0) \
    X(ENUM8,   model,         HL_DIST_EXPONENTIAL, ENUM,    NONE,     "model: unknown distance model", ALWAYS, HL_DIST_INVERSE, V1_0) \
    X(STR,     bus,           HL_MAX_NAME,         NAMEOPT, NONE,     "bus: invalid name",            ALWAYS, 0, V1_0) /* "" = sfx */ \
    X(U32,     loop_start,    0,                   NONE,    NONE,     "",                             ALWAYS, 0, V1_0) /* source frames; 0/0 = whole */ \
    X(U32,     loop_end,      0,                   NONE,    NONE,     "",                             ALWAYS, 0, V1_0) \
    X(U32,     loop_count,    0,                   NONE,    NONE,     "",                             ALWAYS, 0, V1_0) /* with LOOP: 0 = forever */ \
    X(F32,     loop_xfade_ms, 0,                   RANGE,   XFADE_MS, "",                             ALWAYS, 0, V1_0) \
    X(VEC3,    vel,           0,                   COORD3,  COORD,    HL_WHY_VEL,                     ALWAYS, 0, V1_0) /* m/s, Doppler */ \
    X(STR,     emitter,       HL_MAX_NAME,         NAMEOPT, NONE,     "emitter: invalid name",        ALWAYS, 0, V1_0) /* "" = none */ \
    X(FLAGS32, over,          HL_OVER_MASK,        FLAGS,   NONE,     "over: unknown bits",           ALWAYS, 0, V1_0) /* HL_OVER_*: cue plays */ \
    X(SUB,     post,          vpost,               SUB,     NONE,     "",                             ALWAYS, 0, V1_0) \
    X(ENUM8,   pan_law,       HL_PAN_LAW_OPENAL,   ENUM,    NONE,     "pan_law: 0 (heliod) or 1 (openal)", ALWAYS, 0, V1_1) /* hl_panlaw.h */ \
    X(ENUM8,   sync_on,       HL_SYNC_BAR,         ENUM,    NONE,     "sync_on: 0 (none), 1 (beat) or 2 (bar)", ALWAYS, 0, V1_1) /* HL_SYNC_*: a stinger */ \
    X(U64,     sync_voice,    0,                   NONE,    NONE,     "",                             ALWAYS, 0, V1_1) /* the music voice it is quantised to */ \
    X(F32,     lfe,           0,                   RANGE,   LFE,      "",                             ALWAYS, 0, V1_1) /* the LFE send, linear; 0 = none */
#define HL_FIELDS_play_reply(X) \
    X(U64, voice,  0, NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U64, stolen, 0, NONE, NONE, "", ALWAYS, 0, V1_0) /* the voice it replaced, 0 if none */
#define HL_FIELDS_stop(X) \
    X(U64,   voice,   0,                             NONZERO, NONE,    "voice: 0 is never a voice", ALWAYS, 0, V1_0) \
    X(F32,   fade_ms, 0,                             FADE,    FADE_MS, HL_WHY_FADE("fade_ms"),     ALWAYS, -1, V1_0) \
    X(ENUM8, curve,   HL_STOP_CURVE(HL_CURVE_LOG),   ENUM,    NONE,    "curve: 0 (the voice's own) or a curve + 1", ALWAYS, 0, V1_0)
#define HL_FIELDS_stop_all(X) \
    X(F32,   fade_ms, 0,                    FADE, FADE_MS, HL_WHY_FADE("fade_ms"), ALWAYS, -1, V1_0) \
    X(ENUM8, scope,   HL_STOP_ALL_EVERYONE, ENUM, NONE,    "scope: unknown",       ALWAYS, 0, V1_0) /* HL_STOP_ALL_* */
#define HL_FIELDS_count_reply(X) \
    X(U32, count, 0, NONE, NONE, "", ALWAYS, 0, V1_0)
#define HL_FIELDS_pause(X) \
    X(ENUM8, pause, 1,                 ENUM, NONE, "pause: must be 0 (resume) or 1 (pause)", ALWAYS, 1, V1_0) \
    X(ENUM8, scope, HL_PAUSE_CATEGORY, ENUM, NONE, "scope: unknown",                         ALWAYS, 0, V1_0) /* HL_PAUSE_* */ \
    X(STR,   group, HL_MAX_NAME,       NONE, NONE, "",                                       ALWAYS, 0, V1_0) /* bus or category; "" for MINE, EVERYONE */
#define HL_FIELDS_set(X) \
    X(U64,     voice,   0,           NONZERO, NONE,    "voice: 0 is never a voice", ALWAYS,                   0, V1_0) \
    X(FLAGS32, mask,    HL_SET_MASK, FLAGS,   NONE,    "mask: unknown bits",        ALWAYS,                   0, V1_0) /* HL_SET_* */ \
    X(F32,     gain_db, 0,           GAIN,    GAIN_DB, "",                          IF(m->mask & HL_SET_GAIN),  0, V1_0) \
    X(F32,     pan,     0,           RANGE,   PAN,     "",                          IF(m->mask & HL_SET_PAN),   0, V1_0) \
    X(VEC3,    pos,     0,           COORD3,  COORD,   HL_WHY_POS,                  IF(m->mask & HL_SET_POS),   0, V1_0) \
    X(F32,     pitch,   0,           RANGE,   PITCH,   "",                          IF(m->mask & HL_SET_PITCH), 1, V1_0) \
    X(F32,     ramp_ms, 0,           RANGE,   FADE_MS, "",                          ALWAYS,                   0, V1_0) \
    X(F64,     seek_s,  0,           RANGE,   SEEK_S,  "seek_s: must be finite and >= 0", IF(m->mask & HL_SET_SEEK), 0, V1_0) \
    X(VEC3,    vel,     0,           COORD3,  COORD,   HL_WHY_VEL,                  IF(m->mask & HL_SET_VEL),   0, V1_0) \
    X(SUB,     post,    vpost,       NONE,    NONE,    "",                          ALWAYS,                   0, V1_0) /* HL_SET_LP .. SENDS */ \
    X(F32,     lfe,     0,           RANGE,   LFE,     "",                          IF(m->mask & HL_SET_LFE), 0, V1_1) /* the LFE send, linear; 0 = none */ \
    X(I32,     loops,   0,           RANGE,   LOOPS,   "loops: -1 (forever), 0 (leave the loop after this pass) or the passes left", IF(m->mask & HL_SET_LOOPS), 0, V1_1)
#define HL_FIELDS_listener(X) \
    X(FLAGS32, mask, HL_LIS_MASK, FLAGS,  NONE,  "mask: unknown bits",                        ALWAYS,                   0, V1_0) /* HL_LIS_* */ \
    X(VEC3,    pos,  0,           COORD3, COORD, HL_WHY_POS,                                  IF(m->mask & HL_LIS_POS), 0, V1_0) \
    X(VEC3,    fwd,  0,           DIR3,   COORD, "forward: must be a finite non-zero vector", IF(m->mask & HL_LIS_FWD), 0, V1_0) \
    X(VEC3,    up,   0,           DIR3,   COORD, "up: must be a finite non-zero vector",      IF(m->mask & HL_LIS_UP),  0, V1_0) \
    X(VEC3,    vel,  0,           COORD3, COORD, "velocity: must be finite and within 1e6 m/s", IF(m->mask & HL_LIS_VEL), 0, V1_0) \
    X(ENUM8,   index, 3,          ENUM,   NONE,  "index: a listener 0..3",                   ALWAYS, 0, V1_1) /* 0: the global listener; 1..3 a client's own */ \
    X(ENUM8,   off,   1,          ENUM,   NONE,  "off: must be 0 or 1",                      ALWAYS, 0, V1_1) /* 1: turn listener index (1..3) off */ \
    X(F32OPT,  weight, 0,         NONE,   NONE,  "",                                         ALWAYS, 0, V1_1) /* 0 (absent): unchanged; (0, 1]: hears every 3D voice with it; -1: the nearest rule */
#define HL_FIELDS_voice_info(X) \
    X(U64,     voice,         0,                NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(STR,     sound,         HL_MAX_NAME,      NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32,     owner,         0,                NONE, NONE, "", ALWAYS, 0, V1_0) /* client id */ \
    X(I32,     priority,      0,                NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(FLAGS32, flags,         HL_PLAY_MASK,     NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_PLAY_* */ \
    X(ENUM8,   state,         HL_VOICE_VPAUSED, NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_VOICE_* */ \
    X(F32,     gain_db,       0,                NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F32,     pan,           0,                NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(VEC3,    pos,           0,                NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F32,     pitch,         0,                NONE, NONE, "", ALWAYS, 1, V1_0) \
    X(STR,     bus,           HL_MAX_NAME,      NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(STR,     cue,           HL_MAX_NAME,      NONE, NONE, "", ALWAYS, 0, V1_0) /* "" if a plain sound */ \
    X(STR,     category,      HL_MAX_NAME,      NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(STR,     emitter,       HL_MAX_NAME,      NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F32,     audibility_db, 0,                NONE, NONE, "", ALWAYS, 0, V1_0) /* what the ranking used */ \
    X(F64,     position_s,    0,                NONE, NONE, "", ALWAYS, 0, V1_0) /* in the sound, seconds */ \
    X(SUB,     post,          vpost,            NONE, NONE, "", ALWAYS, 0, V1_0)

/* ---- devices and statistics ---- */
#define HL_FIELDS_device_info(X) \
    X(U32,    index,        0,                               NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(STR,    name,         HL_MAX_DEVNAME,                  NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(STR,    hostapi,      HL_MAX_NAME,                     NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U16,    max_channels, 0,                               NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F64,    default_rate, 0,                               NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(FLAGS8, flags,        (HL_DEV_DEFAULT | HL_DEV_CURRENT), NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_DEV_* */
#define HL_FIELDS_device_req(X) \
    X(STR, name, HL_MAX_DEVNAME, NONE, NONE, "", ALWAYS, 0, V1_0) /* as --device takes it */
#define HL_FIELDS_device_reply(X) \
    X(STR, driver, HL_MAX_NAME,    NONE, NONE, "", ALWAYS, 0, V1_0) /* "portaudio" or "null" */ \
    X(STR, name,   HL_MAX_DEVNAME, NONE, NONE, "", ALWAYS, 0, V1_0) /* "" for null */ \
    X(U32, rate,   0,              NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32, period, 0,              NONE, NONE, "", ALWAYS, 0, V1_0)
#define HL_FIELDS_stats_req(X) \
    X(FLAGS32, flags, HL_STATS_RESET, NONE, NONE, "", ALWAYS, 0, V1_0)
#define HL_FIELDS_stat(X) \
    X(STR, key,   HL_MAX_NAME, NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F64, value, 0,           NONE, NONE, "", ALWAYS, 0, V1_0)

/* ---- assets: banks, world zones, uploads ---- */
#define HL_FIELDS_bank(X) \
    X(ENUM8, action, HL_BANK_UNLOAD, NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_BANK_* */ \
    X(STR,   arg,    HL_MAX_PATH,    NONE, NONE, "", ALWAYS, 0, V1_0) /* LOAD: manifest path; UNLOAD: name */
#define HL_FIELDS_bank_info(X) \
    X(STR,   name,   HL_MAX_NAME,          NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(STR,   path,   HL_MAX_PATH,          NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(ENUM8, state,  HL_BANK_STATE_GONE,   NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_BANK_STATE_* */ \
    X(U32,   sounds, 0,                    NONE, NONE, "", ALWAYS, 0, V1_0) /* listed */ \
    X(U32,   done,   0,                    NONE, NONE, "", ALWAYS, 0, V1_0) /* loaded */ \
    X(U32,   failed, 0,                    NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U64,   bytes,  0,                    NONE, NONE, "", ALWAYS, 0, V1_0) /* decoded bytes loaded */ \
    X(STR,   error,  HL_MAX_MSG,           NONE, NONE, "", ALWAYS, 0, V1_0) /* the first failure, "" if none */
#define HL_FIELDS_zone(X) \
    X(ENUM8, action, HL_ZONE_REMOVE, ENUM,     NONE,   "action: unknown",                                 ALWAYS,                           0, V1_0) /* HL_ZONE_* */ \
    X(STR,   name,   HL_MAX_NAME,    NAME,     NONE,   "name: invalid zone name",                         ALWAYS,                           0, V1_0) \
    X(STR,   bank,   HL_MAX_PATH,    NONEMPTY, NONE,   "bank: the path of a bank manifest is required",   IF(m->action != HL_ZONE_REMOVE), 0, V1_0) \
    X(VEC3,  pos,    0,              COORD3,   COORD,  HL_WHY_POS,                                        IF(m->action != HL_ZONE_REMOVE), 0, V1_0) \
    X(F32,   radius, 0,              RANGE,    RADIUS, "radius: must be > 0",                             IF(m->action != HL_ZONE_REMOVE), 0, V1_0) /* load radius */
#define HL_FIELDS_zone_info(X) \
    X(SUB,   zone,     zone,                  NONE, NONE, "", ALWAYS, 0, V1_0) /* action 0 */ \
    X(ENUM8, state,    HL_ZONE_STATE_LOADED,  NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_ZONE_STATE_* */ \
    X(U64,   bytes,    0,                     NONE, NONE, "", ALWAYS, 0, V1_0) /* its bank's decoded size */ \
    X(F32,   distance, 0,                     NONE, NONE, "", ALWAYS, 0, V1_0) /* from the listener */
#define HL_FIELDS_load_data(X) \
    X(STR,     name,   HL_MAX_NAME,                     NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(FLAGS32, flags,  (HL_LOAD_SHARED | HL_LOAD_PIN),  NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U64,     total,  0,                               NONE, NONE, "", ALWAYS, 0, V1_0) /* the file's size, 1..HL_MAX_UPLOAD */ \
    X(U64,     offset, 0,                               NONE, NONE, "", ALWAYS, 0, V1_0) /* bytes sent before this chunk */ \
    X(U32,     len,    0,                               NONE, NONE, "", ALWAYS, 0, V1_0) /* 1..HL_MAX_CHUNK */ \
    X(BLOB,    data,   0,                               NONE, NONE, "", ALWAYS, 0, V1_0) /* len bytes (decoded: into the frame) */
#define HL_FIELDS_load_fd(X) \
    X(STR,     name,  HL_MAX_NAME,                    NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(FLAGS32, flags, (HL_LOAD_SHARED | HL_LOAD_PIN), NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U64,     size,  0,                              NONE, NONE, "", ALWAYS, 0, V1_0) /* = the descriptor's size */

/* ---- events and the mixer graph ---- */
#define HL_FIELDS_subscribe(X) \
    X(FLAGS32, mask,       HL_SUB_MASK, FLAGS,  NONE,       "mask: unknown event bits", ALWAYS, 0, V1_0) /* HL_SUB_* */ \
    X(F32,     meter_hz,   0,           ZRANGE, METER_HZ,   "meter_hz: 0 (the default, 20) or 1..100 events per second", ALWAYS, 0, V1_0) \
    X(F32OPT,  profile_hz, 0,           ZRANGE, PROFILE_HZ, "profile_hz: 0 (the default, 10) or 1..100 events per second", ALWAYS, 0, V1_0)
#define HL_FIELDS_bus(X) \
    X(STR,     name,    HL_MAX_NAME, NAME,    NONE,    "name: invalid bus name",   ALWAYS,                   0, V1_0) /* "master" too */ \
    X(FLAGS32, mask,    HL_BUS_MASK, FLAGS,   NONE,    "mask: unknown bits",       ALWAYS,                   0, V1_0) /* HL_BUS_* */ \
    X(F32,     gain_db, 0,           GAIN,    GAIN_DB, "",                         IF(m->mask & HL_BUS_GAIN), 0, V1_0) \
    X(F32,     ramp_ms, 0,           RANGE,   FADE_MS, "",                         ALWAYS,                   0, V1_0) \
    X(ENUM8,   mute,    1,           ENUM,    NONE,    "mute: must be 0 or 1",     ALWAYS,                   0, V1_0) \
    X(STR,     parent,  HL_MAX_NAME, NAMEOPT, NONE,    "parent: invalid bus name", ALWAYS,                   0, V1_0) /* "" = master */ \
    X(STR,     send,    HL_MAX_NAME, NONE,    NONE,    "",                         ALWAYS,                   0, V1_0) /* SEND target */ \
    X(F32,     send_db, 0,           RANGE,   SEND_DB, HL_RANGE_MSG("send_db", HL_R_SEND_DB) " (-144 removes the send)", IF(m->mask & HL_BUS_SEND), 0, V1_0)
#define HL_FIELDS_bus_info(X) \
    X(STR,   name,         HL_MAX_NAME,      NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(STR,   parent,       HL_MAX_NAME,      NONE, NONE, "", ALWAYS, 0, V1_0) /* "" for the master */ \
    X(F32,   gain_db,      0,                NONE, NONE, "", ALWAYS, 0, V1_0) /* its own fader */ \
    X(ENUM8, mute,         1,                NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U8,    fx,           0,                NONE, NONE, "", ALWAYS, 0, V1_0) /* insert effects */ \
    X(U32,   voices,       0,                NONE, NONE, "", ALWAYS, 0, V1_0) /* routed to it */ \
    X(U32,   sends,        0,                NONE, NONE, "", ALWAYS, 0, V1_0) /* voices sending to it */ \
    X(F32,   duck_db,      0,                NONE, NONE, "", ALWAYS, 0, V1_0) /* ducking now */ \
    X(F32,   path_gain_db, 0,                NONE, NONE, "", ALWAYS, 0, V1_0) /* fader x mute up to the master */ \
    X(SENDS, send,         HL_BUS_SENDS_MAX, NONE, NONE, "", ALWAYS, 0, V1_0)
#define HL_FIELDS_rzone(X) \
    X(ENUM8, action, HL_RZONE_REMOVE, ENUM,      NONE,   "action: unknown",                   ALWAYS,                           0, V1_0) /* HL_RZONE_* */ \
    X(STR,   name,   HL_MAX_NAME,     NAME,      NONE,   "name: invalid zone name",           ALWAYS,                           0, V1_0) \
    X(VEC3,  pos,    0,               COORD3,    COORD,  HL_WHY_POS,                          IF(m->action != HL_RZONE_REMOVE), 0, V1_0) \
    X(F32,   radius, 0,               RANGE,     RADIUS, "radius: must be > 0",               IF(m->action != HL_RZONE_REMOVE), 0, V1_0) \
    X(F32,   fade,   0,               RANGE,     ZFADE,  "fade: must be >= 0",                IF(m->action != HL_RZONE_REMOVE), 0, V1_0) /* metres */ \
    X(STR,   bus,    HL_MAX_NAME,     NOTMASTER, NONE,   "bus: a bus name other than master", IF(m->action != HL_RZONE_REMOVE), 0, V1_0) \
    X(STR,   feed,   HL_MAX_NAME,     NOTMASTER, NONE,   "feed: a bus name other than master", IF(m->action != HL_RZONE_REMOVE), 0, V1_0) \
    X(ENUM8, preset, HL_REV_OUTDOOR,  ENUM,      NONE,   "preset: unknown reverb preset",     IF(m->action != HL_RZONE_REMOVE), 0, V1_0) /* HL_REV_* */
#define HL_FIELDS_rzone_info(X) \
    X(SUB, zone,    rzone, NONE, NONE, "", ALWAYS, 0, V1_0) /* action 0, bus and feed resolved */ \
    X(F32, weight,  0,     NONE, NONE, "", ALWAYS, 0, V1_0) /* 0..1 from the listener's distance */ \
    X(F32, send_db, 0,     NONE, NONE, "", ALWAYS, 0, V1_0) /* the feed's send now (-144 = not heard) */
#define HL_FIELDS_fx_req(X) \
    X(ENUM8,   action,  HL_FX_REMOVE,  ENUM,  NONE,    "action: unknown",       ALWAYS, 0, V1_0) /* HL_FX_* */ \
    X(STR,     bus,     HL_MAX_NAME,   NAME,  NONE,    "bus: invalid bus name", ALWAYS, 0, V1_0) \
    X(U32,     index,   0,             NONE,  NONE,    "",                      ALWAYS, 0, V1_0) \
    X(ENUM8,   kind,    HL_FXK_REVERB, NONE,  NONE,    "",                      ALWAYS, 0, V1_0) /* HL_FXK_* */ \
    X(ENUM8,   type,    HL_EQ_PEAK,    NONE,  NONE,    "",                      ALWAYS, 0, V1_0) /* HL_EQ_* / HL_REV_* */ \
    X(FLAGS32, mask,    HL_FXP_MASK,   FLAGS, NONE,    "mask: unknown bits",    ALWAYS, 0, V1_0) /* bit i: p[i] given */ \
    X(F32N,    p,       HL_FX_PARAMS,  NONE,  NONE,    "",                      ALWAYS, 0, V1_0) \
    X(F32,     ramp_ms, 0,             RANGE, FADE_MS, "",                      ALWAYS, 0, V1_0)
#define HL_FIELDS_fx_info(X) \
    X(STR,   bus,   HL_MAX_NAME,   NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32,   index, 0,             NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(ENUM8, kind,  HL_FXK_REVERB, NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(ENUM8, type,  HL_EQ_PEAK,    NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F32N,  p,     HL_FX_PARAMS,  NONE, NONE, "", ALWAYS, 0, V1_0) /* every parameter of its kind */
#define HL_FIELDS_duck_rule(X) \
    X(STR,   bus,          HL_MAX_NAME, NAME,  NONE,         "bus: invalid bus name", ALWAYS, 0, V1_0) /* the ducked bus */ \
    X(STR,   by,           HL_MAX_NAME, NAME,  NONE,         "by: invalid bus name",  ALWAYS, 0, V1_0) /* the sidechain */ \
    X(ENUM8, on,           1,           ENUM,  NONE,         "on: must be 0 or 1",    ALWAYS, 1, V1_0) \
    X(F32,   depth_db,     0,           RANGE, DUCK_DEPTH,   "",                      ALWAYS, HL_DUCK_DEPTH_DB, V1_0) \
    X(F32,   threshold_db, 0,           RANGE, DUCK_THRESH,  HL_RANGE_MSG("threshold_db", HL_R_DUCK_THRESH) " (-144 = while it has voices)", ALWAYS, HL_DUCK_THRESHOLD_DB, V1_0) \
    X(F32,   attack_ms,    0,           RANGE, DUCK_MS,      "",                      ALWAYS, HL_DUCK_ATTACK_MS, V1_0) \
    X(F32,   hold_ms,      0,           RANGE, DUCK_MS,      "",                      ALWAYS, HL_DUCK_HOLD_MS, V1_0) \
    X(F32,   release_ms,   0,           RANGE, DUCK_MS,      "",                      ALWAYS, HL_DUCK_RELEASE_MS, V1_0)
#define HL_FIELDS_duck_info(X) \
    X(SUB, rule,    duck_rule, NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F32, gain_db, 0,         NONE, NONE, "", ALWAYS, 0, V1_0) /* its gain now, dB <= 0 */

/* ---- cues, categories, emitters ---- */
#define HL_FIELDS_cue(X) \
    X(STR,     name,             HL_MAX_NAME,                NAME,    NONE,         "name: invalid cue name",  ALWAYS, 0, V1_0) \
    X(NSTR,    sounds,           HL_MAX_CUE_SOUNDS,          NONE,    NONE,         "",                        ALWAYS, 0, V1_0) /* the variations */ \
    X(ENUM8,   pick,             HL_PICK_SEQUENCE,           ENUM,    NONE,         "pick: unknown (random, shuffle, sequence)", ALWAYS, HL_PICK_RANDOM, V1_0) \
    X(FLAGS32, flags,            HL_CUE_MASK,                FLAGS,   NONE,         "flags: unknown bits",     ALWAYS, 0, V1_0) /* HL_CUE_* */ \
    X(F32,     gain_db,          0,                          GAIN,    GAIN_DB,      "",                        ALWAYS, 0, V1_0) \
    X(F32,     gain_rand_db,     0,                          RANGE,   GAIN_RAND,    HL_RANGE_MSG("gain_rand_db", HL_R_GAIN_RAND), ALWAYS, 0, V1_0) \
    X(F32,     pitch,            0,                          RANGE,   PITCH,        "",                        ALWAYS, 1, V1_0) \
    X(F32,     pitch_rand_cents, 0,                          RANGE,   PITCH_RAND,   HL_RANGE_MSG("pitch_rand_cents", HL_R_PITCH_RAND), ALWAYS, 0, V1_0) \
    X(STR,     bus,              HL_MAX_NAME,                NAMEOPT, NONE,         "bus: invalid name",       ALWAYS, 0, V1_0) /* "" = sfx */ \
    X(STR,     category,         HL_MAX_NAME,                NAMEOPT, NONE,         "category: invalid name",  ALWAYS, 0, V1_0) /* "" = none */ \
    X(I32,     priority,         0,                          RANGE,   PRIORITY,     "",                        ALWAYS, 0, V1_0) \
    X(F32,     pan,              0,                          RANGE,   PAN,          "",                        ALWAYS, 0, V1_0) /* 2D */ \
    X(F32,     min_distance,     0,                          NONE,    NONE,         "",                        ALWAYS, 1, V1_0) \
    X(F32,     max_distance,     0,                          NONE,    NONE,         "",                        ALWAYS, 100, V1_0) \
    X(F32,     rolloff,          0,                          NONE,    NONE,         "",                        ALWAYS, 1, V1_0) \
    X(ENUM8,   model,            HL_DIST_EXPONENTIAL,        ENUM,    NONE,         "model: unknown distance model", ALWAYS, HL_DIST_INVERSE, V1_0) \
    X(F32,     fade_in_ms,       0,                          FADE,    FADE_MS,      HL_WHY_FADE("fade_in_ms"), ALWAYS, -1, V1_0) \
    X(F32,     fade_out_ms,      0,                          FADE,    FADE_MS,      HL_WHY_FADE("fade_out_ms"), ALWAYS, -1, V1_0) /* -1: the category's */ \
    X(ENUM8,   fade_curve,       HL_CURVE_LOG,               ENUM,    NONE,         "fade_curve: unknown (linear, equal-power, log)", ALWAYS, HL_CURVE_LINEAR, V1_0) \
    X(U32,     max_instances,    0,                          RANGE,   INSTANCES,    "max_instances: must be <= 65536", ALWAYS, 0, V1_0) /* 0 = unlimited */ \
    X(ENUM8,   overflow,         HL_OVERFLOW_STEAL_FARTHEST, ENUM,    NONE,         "overflow: unknown policy", ALWAYS, HL_OVERFLOW_REFUSE, V1_0) \
    X(F32,     min_interval_ms,  0,                          RANGE,   FADE_MS,      "",                        ALWAYS, 0, V1_0) /* 0 = none */ \
    X(ENUM8,   beyond,           HL_BEYOND_CLAMP,            ENUM,    NONE,         "beyond: unknown (virtual, release, clamp)", ALWAYS, HL_BEYOND_VIRTUAL, V1_0) \
    X(ENUM8,   virt,             HL_VIRT_KILL,               ENUM,    NONE,         "virt: unknown (resume, restart, kill)", ALWAYS, HL_VIRT_RESUME, V1_0) \
    X(F32,     doppler,          0,                          RANGE,   DOPPLER,      HL_RANGE_MSG("doppler", HL_R_DOPPLER), ALWAYS, 1, V1_0) /* 0 = off */ \
    X(SUB,     post,             vpost,                      SUB,     NONE,         "",                        ALWAYS, 0, V1_0)
#define HL_FIELDS_category(X) \
    X(STR,   name,          HL_MAX_NAME,                NAME,  NONE,      "name: invalid category name",     ALWAYS, 0, V1_0) \
    X(U32,   max_instances, 0,                          RANGE, INSTANCES, "max_instances: must be <= 65536", ALWAYS, 0, V1_0) /* 0 = unlimited */ \
    X(ENUM8, overflow,      HL_OVERFLOW_STEAL_FARTHEST, ENUM,  NONE,      "overflow: unknown policy",        ALWAYS, HL_OVERFLOW_REFUSE, V1_0) \
    X(F32,   fade_out_ms,   0,                          FADE,  FADE_MS,   HL_WHY_FADE("fade_out_ms"),        ALWAYS, -1, V1_0) \
    X(ENUM8, fade_curve,    HL_CURVE_LOG,               ENUM,  NONE,      "fade_curve: unknown (linear, equal-power, log)", ALWAYS, HL_CURVE_LINEAR, V1_0)
#define HL_FIELDS_cue_counters(X) \
    X(U64, plays,             0, NONE, NONE, "", ALWAYS, 0, V1_0) /* successful plays */ \
    X(U64, refused_interval,  0, NONE, NONE, "", ALWAYS, 0, V1_0) /* inside min-interval */ \
    X(U64, refused_distance,  0, NONE, NONE, "", ALWAYS, 0, V1_0) /* beyond max distance at start */ \
    X(U64, refused_cue_limit, 0, NONE, NONE, "", ALWAYS, 0, V1_0) /* cue at max-instances */ \
    X(U64, refused_cat_limit, 0, NONE, NONE, "", ALWAYS, 0, V1_0) /* category at max-instances */ \
    X(U64, refused_no_voice,  0, NONE, NONE, "", ALWAYS, 0, V1_0) /* no voice free, nothing lower */ \
    X(U64, evicted_cue,       0, NONE, NONE, "", ALWAYS, 0, V1_0) /* evicted by the cue's limit */ \
    X(U64, evicted_cat,       0, NONE, NONE, "", ALWAYS, 0, V1_0) /* evicted by the category's limit */ \
    X(U64, stolen,            0, NONE, NONE, "", ALWAYS, 0, V1_0) /* stolen for a higher priority */ \
    X(U64, virtualised,       0, NONE, NONE, "", ALWAYS, 0, V1_0) /* real -> virtual transitions */ \
    X(U32, active,            0, NONE, NONE, "", ALWAYS, 0, V1_0) /* counted voices now */ \
    X(U32, virtual_now,       0, NONE, NONE, "", ALWAYS, 0, V1_0) /* of which virtual */
#define HL_FIELDS_cues_load(X) \
    X(STR, path, HL_MAX_PATH, NONE, NONE, "", ALWAYS, 0, V1_0)
#define HL_FIELDS_cues_load_reply(X) \
    X(U32, cues,       0, NONE, NONE, "", ALWAYS, 0, V1_0) /* defined (or redefined) */ \
    X(U32, categories, 0, NONE, NONE, "", ALWAYS, 0, V1_0)
#define HL_FIELDS_emitter(X) \
    X(ENUM8,   action,  HL_EMITTER_DESTROY, ENUM,   NONE,    "action: unknown",            ALWAYS,                  0, V1_0) /* HL_EMITTER_* */ \
    X(STR,     name,    HL_MAX_NAME,        NAME,   NONE,    "name: invalid emitter name", ALWAYS,                  0, V1_0) \
    X(FLAGS32, mask,    HL_EM_MASK,         FLAGS,  NONE,    "mask: unknown bits",         ALWAYS,                  0, V1_0) /* HL_EM_* */ \
    X(VEC3,    pos,     0,                  COORD3, COORD,   HL_WHY_POS,                   IF(m->mask & HL_EM_POS), 0, V1_0) \
    X(VEC3,    vel,     0,                  COORD3, COORD,   HL_WHY_VEL,                   IF(m->mask & HL_EM_VEL), 0, V1_0) \
    X(F32,     ramp_ms, 0,                  RANGE,  FADE_MS, "",                           ALWAYS,                  0, V1_0) /* SET: position ramp */ \
    X(F32,     fade_ms, 0,                  FADE,   FADE_MS, "fade_ms: must be -1 (the cue's fade-out) or in [0, " HL_RANGE_STR(HL_R_FADE_MS_HI) "]", ALWAYS, -1, V1_0) /* DESTROY */

/* ---- time ---- */
#define HL_FIELDS_clock(X) \
    X(U64, frame,             0, NONE, NONE, "", ALWAYS, 0, V1_0) /* first frame of the latest period */ \
    X(U64, time_ns,           0, NONE, NONE, "", ALWAYS, 0, V1_0) /* CLOCK_MONOTONIC when it began */ \
    X(U32, rate,              0, NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32, period,            0, NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U64, output_latency_ns, 0, NONE, NONE, "", ALWAYS, 0, V1_0) /* to the speaker */

/* ---- client-fed streams (1.1; the ring's layout: hl_shm_stream.h) ---- */
/* Checked by hand (voice_ops.c's STREAM), each refusal naming its field. */
#define HL_FIELDS_stream_req(X) \
    X(U32, rate,     0,    NONE, NONE, "", ALWAYS, 0, V1_0) /* Hz, 8000..384000; 0 = the engine's */ \
    X(U8,  channels, 0,    NONE, NONE, "", ALWAYS, 2, V1_0) /* 1 or 2 */ \
    X(U8,  format,   0,    NONE, NONE, "", ALWAYS, 0, V1_0) /* 0 f32, 1 s16, 2 u8 */ \
    X(U32, frames,   0,    NONE, NONE, "", ALWAYS, 0, V1_0) /* ring capacity: a power of two, 256..4194304 */ \
    X(U64, size,     0,    NONE, NONE, "", ALWAYS, 0, V1_0) /* = the memfd's size: 256 + frames x channels x sample size */ \
    X(SUB, play,     play, NONE, NONE, "", ALWAYS, 0, V1_0) /* the voice; play.sound: its name in listings */

/* ---- game parameters (ops since 1.1: every field is required in them) ---- */
#define HL_FIELDS_param_def(X) \
    X(STR,   name,    HL_MAX_NAME, NAME,  NONE,   "name: invalid parameter name", ALWAYS, 0, V1_0) \
    X(F32,   min,     0,           RANGE, PARAM,  "",                             ALWAYS, 0, V1_0) \
    X(F32,   max,     0,           RANGE, PARAM,  "",                             ALWAYS, 1, V1_0) \
    X(F32,   def,     0,           RANGE, PARAM,  "",                             ALWAYS, 0, V1_0) /* the value before any PARAM */ \
    X(F32,   seek,    0,           RANGE, PSEEK,  "",                             ALWAYS, 0, V1_0) /* units per second, 0 = jumps */
#define HL_FIELDS_param_info(X) \
    X(SUB,   def,     param_def,   NONE,  NONE,   "", ALWAYS, 0, V1_0) \
    X(F32,   value,   0,           NONE,  NONE,   "", ALWAYS, 0, V1_0) /* the global value now */ \
    X(F32,   target,  0,           NONE,  NONE,   "", ALWAYS, 0, V1_0) /* where it seeks */ \
    X(U32,   owner,   0,           NONE,  NONE,   "", ALWAYS, 0, V1_0) /* client id that defined it, 0: the daemon */ \
    X(U32,   scoped,  0,           NONE,  NONE,   "", ALWAYS, 0, V1_0) /* emitter and voice values held */
#define HL_FIELDS_param(X) \
    X(STR,   name,    HL_MAX_NAME,       NAME,    NONE,  "name: invalid parameter name", ALWAYS, 0, V1_0) \
    X(ENUM8, scope,   HL_PSCOPE_VOICE,   ENUM,    NONE,  "scope: unknown (global, emitter, voice)", ALWAYS, 0, V1_0) /* HL_PSCOPE_* */ \
    X(STR,   emitter, HL_MAX_NAME,       NAME,    NONE,  "emitter: invalid emitter name", IF(m->scope == HL_PSCOPE_EMITTER), 0, V1_0) \
    X(U64,   voice,   0,                 NONZERO, NONE,  "voice: 0 is never a voice",     IF(m->scope == HL_PSCOPE_VOICE), 0, V1_0) \
    X(F32,   value,   0,                 RANGE,   PARAM, "",                              ALWAYS, 0, V1_0)
#define HL_FIELDS_capture(X) \
    X(ENUM8,   action, HL_CAPTURE_START, ENUM, NONE, "action: unknown (stop, start)", ALWAYS, 0, V1_0) /* HL_CAPTURE_* */ \
    X(FLAGS32, flags,  HL_CAPTURE_MASK,  NONE, NONE, "",                              ALWAYS, 0, V1_0) /* HL_CAPTURE_AUDIO */ \
    X(STR,     path,   HL_MAX_PATH,      NONE, NONE, "",                              ALWAYS, 0, V1_0) /* START: an absolute path; STOP: empty */
#define HL_FIELDS_bind(X) \
    X(ENUM8, action,  HL_BIND_CLEAR,     ENUM,    NONE,  "action: unknown (add, clear)",  ALWAYS, 0, V1_0) /* HL_BIND_* */ \
    X(STR,   cue,     HL_MAX_NAME,       NAME,    NONE,  "cue: invalid cue (or bus) name", ALWAYS, 0, V1_0) /* BUS_GAIN, FX: the bus */ \
    X(STR,   param,   HL_MAX_NAME,       NAME,    NONE,  "param: invalid parameter name", IF(m->action == HL_BIND_ADD), 0, V1_0) \
    X(ENUM8, prop,    HL_PROP_LAST,      ENUM,    NONE,  "prop: unknown property",        ALWAYS, 0, V1_0) /* HL_PROP_* */ \
    X(U8,    index,   0,                 NONE,    NONE,  "",                              ALWAYS, 0, V1_0) /* SEND: the send (0, 1) */ \
    X(U8,    npoints, 0,                 NONE,    NONE,  "",                              ALWAYS, 0, V1_0) /* 1..16 (SWITCH, BLEND: 0..16) */ \
    X(F32N,  x,       HL_MAX_CURVE_POINTS, NONE,  NONE,  "",                              ALWAYS, 0, V1_0) /* parameter values, increasing */ \
    X(F32N,  y,       HL_MAX_CURVE_POINTS, NONE,  NONE,  "",                              ALWAYS, 0, V1_0) /* the property's values */ \
    X(U32,   shapes,  0,                 NONE,    NONE,  "",                              ALWAYS, 0, V1_0) /* HL_SHAPE_* of segment i at bits 2i */ \
    X(U8,    fxp,     0,                 NONE,    NONE,  "",                              ALWAYS, 0, V1_0) /* FX: the effect parameter p[fxp], 0..7 */

/* ---- mixer snapshots (since 1.1) ---- */
#define HL_FIELDS_snapshot(X) \
    X(ENUM8, action,    HL_SNAP_REMOVE, ENUM,  NONE,     "action: unknown (define, set, start, stop, remove)", ALWAYS, 0, V1_1) /* HL_SNAP_* */ \
    X(STR,   name,      HL_MAX_NAME,    NAME,  NONE,     "name: invalid snapshot name",       ALWAYS, 0, V1_1) \
    X(I32,   priority,  0,              RANGE, PRIORITY, "",                                  ALWAYS, 0, V1_1) /* DEFINE: higher overrides */ \
    X(F32,   fade_ms,   0,              FADE,  FADE_MS,  HL_WHY_FADE("fade_ms"),              ALWAYS, -1, V1_1) /* DEFINE: its fade; START/STOP: -1 = its own */ \
    X(F32,   intensity, 0,              RANGE, UNIT,     "",                                  ALWAYS, 1, V1_1) /* START */ \
    X(STR,   bus,       HL_MAX_NAME,    NAME,  NONE,     "bus: invalid bus name",             IF(m->action == HL_SNAP_SET), 0, V1_1) /* SET */ \
    X(ENUM8, target,    HL_SNAPT_FX,    ENUM,  NONE,     "target: unknown (gain, mute, fx)",  ALWAYS, 0, V1_1) /* SET: HL_SNAPT_* */ \
    X(U32,   fx_index,  0,              NONE,  NONE,     "",                                  ALWAYS, 0, V1_1) /* SET fx: the insert */ \
    X(U8,    param,     0,              NONE,  NONE,     "",                                  ALWAYS, 0, V1_1) /* SET fx: its parameter p[param] */ \
    X(F32,   value,     0,              NONE,  NONE,     "",                                  ALWAYS, 0, V1_1) /* SET */
/* A list entry: every field always present (a left-off trailing default would
 * run into the next entry; the op is new in 1.1, so no 1.0 peer reads it) */
#define HL_FIELDS_snapshot_info(X) \
    X(STR,   name,      HL_MAX_NAME,          NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(I32,   priority,  0,                    NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F32,   fade_ms,   0,                    NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U32,   settings,  0,                    NONE, NONE, "", ALWAYS, 0, V1_0) /* bus and effect settings */ \
    X(ENUM8, state,     HL_SNAP_STATE_OUT,    NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_SNAP_STATE_* */ \
    X(F32,   intensity, 0,                    NONE, NONE, "", ALWAYS, 0, V1_0) /* now, 0..1 */ \
    X(F32,   target,    0,                    NONE, NONE, "", ALWAYS, 0, V1_0) /* where it is fading to */ \
    X(U32,   owner,     0,                    NONE, NONE, "", ALWAYS, 0, V1_0) /* client id that defined it (0: the daemon) */

/* ---- sound cones (since 1.1) ---- */
#define HL_FIELDS_cone(X) \
    X(ENUM8, target,     HL_CONE_CUE, ENUM,    NONE,     "target: unknown (voice, emitter, cue)", ALWAYS, 0, V1_1) /* HL_CONE_* */ \
    X(U64,   voice,      0,           NONE,    NONE,     "",                                      ALWAYS, 0, V1_1) /* target voice */ \
    X(STR,   name,       HL_MAX_NAME, NAMEOPT, NONE,     "name: invalid emitter or cue name",     ALWAYS, 0, V1_1) /* target emitter or cue */ \
    X(VEC3,  dir,        0,           COORD3,  COORD,    "dir: must be finite and within 1e6",   ALWAYS, 0, V1_1) /* the cone's axis; (0,0,0) = no cone */ \
    X(F32,   inner_deg,  0,           RANGE,   CONE_DEG, "",                                      ALWAYS, 360, V1_1) /* full width */ \
    X(F32,   outer_deg,  0,           RANGE,   CONE_DEG, "",                                      ALWAYS, 360, V1_1) \
    X(F32,   outer_gain, 0,           RANGE,   UNIT,     "",                                      ALWAYS, 0, V1_1) /* linear, OpenAL's AL_CONE_OUTER_GAIN */ \
    X(F32OPT, outer_lp_hz, 0,         ZRANGE,  LP_HZ,    "outer_lp_hz: 0 (none, the default) or a low-pass cutoff up to 96000 Hz", ALWAYS, 0, V1_1) /* low-pass beyond the outer cone; absent: 0 */

/* ---- custom attenuation curves (since 1.1) ---- */
#define HL_FIELDS_atten(X) \
    X(ENUM8, target,  HL_CONE_CUE, ENUM,    NONE, "target: voice (0), emitter (1) or cue (2)", ALWAYS, 0, V1_1) /* HL_CONE_* */ \
    X(U64,   voice,   0,           NONE,    NONE, "",                                     ALWAYS, 0, V1_1) /* target voice */ \
    X(STR,   name,    HL_MAX_NAME, NAMEOPT, NONE, "name: invalid emitter or cue name",    ALWAYS, 0, V1_1) /* target emitter or cue */ \
    X(U8,    npoints, 0,           NONE,    NONE, "",                                     ALWAYS, 0, V1_1) /* 0: back to the distance model */ \
    X(F32N,  dist,    8,           NONE,    NONE, "",                                     ALWAYS, 0, V1_1) /* metres, strictly increasing */ \
    X(F32N,  gain_db, 8,           NONE,    NONE, "",                                     ALWAYS, 0, V1_1) /* at each distance (kind 1: Hz) */ \
    X(ENUM8, kind,    HL_ATTEN_SEND, ENUM,  NONE, "kind: gain (0), low-pass (1) or send (2)", ALWAYS, 0, V1_1) /* HL_ATTEN_*; absent: gain */

/* ---- a cue's bindings, cone and curve read back (1.1; an op since 1.1: every field is required) ---- */
#define HL_FIELDS_cue_detail(X) \
    X(STR,   name,        HL_MAX_NAME, NONE, NONE, "", ALWAYS, 0, V1_0) /* the cue */ \
    X(VEC3,  cone_dir,    0,           NONE, NONE, "", ALWAYS, 0, V1_0) /* as CONE; (0,0,0) = no cone */ \
    X(F32,   inner_deg,   0,           NONE, NONE, "", ALWAYS, 360, V1_0) \
    X(F32,   outer_deg,   0,           NONE, NONE, "", ALWAYS, 360, V1_0) \
    X(F32,   outer_gain,  0,           NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F32,   outer_lp_hz, 0,           NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U8,    npoints,     0,           NONE, NONE, "", ALWAYS, 0, V1_0) /* as ATTEN; 0 = the distance model */ \
    X(F32N,  dist,        8,           NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(F32N,  gain_db,     8,           NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(U8,    nbinds,      0,           NONE, NONE, "", ALWAYS, 0, V1_0) /* BIND bodies (action 0) that follow */

/* SNAPSHOT_DETAIL's list entry: one SET of the snapshot, as SNAPSHOT (action 1) gave it */
#define HL_FIELDS_snapshot_setting(X) \
    X(STR,   bus,      HL_MAX_NAME, NONE, NONE, "", ALWAYS, 0, V1_0) \
    X(ENUM8, target,   HL_SNAPT_FX, NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_SNAPT_* */ \
    X(U32,   fx_index, 0,           NONE, NONE, "", ALWAYS, 0, V1_0) /* fx: the insert */ \
    X(U8,    param,    0,           NONE, NONE, "", ALWAYS, 0, V1_0) /* fx: its parameter p[param] */ \
    X(F32,   value,    0,           NONE, NONE, "", ALWAYS, 0, V1_0) /* gain dB (-inf), mute 0/1, the parameter */

/* SHEET_KEYS's list entry (1.1; an op since 1.1: every field is required):
 * one cue-sheet line no other request reads back */
#define HL_FIELDS_sheet_key(X) \
    X(ENUM8, section, HL_SHEET_MUSIC, NONE, NONE, "", ALWAYS, 0, V1_0) /* HL_SHEET_* */ \
    X(STR,   name,    HL_MAX_NAME,    NONE, NONE, "", ALWAYS, 0, V1_0) /* the cue or music */ \
    X(STR,   key,     HL_MAX_NAME,    NONE, NONE, "", ALWAYS, 0, V1_0) /* tempo, tempo-change, state, layer, transition */ \
    X(STR,   value,   HL_MAX_MSG,     NONE, NONE, "", ALWAYS, 0, V1_0) /* as the sheet gives it */

/* ---- adaptive music (1.1): a cue sheet's [music NAME] ---- */
#define HL_FIELDS_music_req(X) \
    X(STR, name, HL_MAX_NAME, NAME, NONE, "name: invalid music name", ALWAYS, 0, V1_0) /* its [music NAME] */ \
    X(STR, to,   HL_MAX_NAME, NAME, NONE, "to: invalid state name",   ALWAYS, 0, V1_0) /* the state to go to */
#define HL_FIELDS_music_reply(X) \
    X(U64, frame, 0, NONE, NONE, "", ALWAYS, 0, V1_0) /* the new state's track starts on it */ \
    X(U64, voice, 0, NONE, NONE, "", ALWAYS, 0, V1_0) /* its voice; 0 while the transition waits */

/* clang-format on */

/* ---- the C structs ---- */
#define HL_CT_U8(n, a)      uint8_t n;
#define HL_CT_U16(n, a)     uint16_t n;
#define HL_CT_U32(n, a)     uint32_t n;
#define HL_CT_I32(n, a)     int32_t n;
#define HL_CT_U64(n, a)     uint64_t n;
#define HL_CT_F32(n, a)     float n;
#define HL_CT_F64(n, a)     double n;
#define HL_CT_ENUM8(n, a)   uint8_t n;
#define HL_CT_FLAGS8(n, a)  uint8_t n;
#define HL_CT_FLAGS32(n, a) uint32_t n;
#define HL_CT_STR(n, a)     char n[(a) + 1];
#define HL_CT_VEC3(n, a)    float n[3];
#define HL_CT_F32N(n, a)    float n[a];
#define HL_CT_SENDS(n, a)                                                                          \
    char n[a][HL_MAX_NAME + 1];                                                                    \
    float n##_db[a];
#define HL_CT_NSTR(f, a)                                                                           \
    uint8_t n##f;                                                                                  \
    char f[a][HL_MAX_NAME + 1];
#define HL_CT_SUB(n, a)     hl_##a##_t n;
#define HL_CT_F32OPT(n, a)  float n;
#define HL_CT_STATUS(n, a)  int32_t n;
#define HL_CT_MINOR(n, a)   uint16_t n;
#define HL_CT_COUNT16(n, a) uint16_t n;
#define HL_CT_BLOB(n, a)    const uint8_t *n;

#define HL_STRUCT_FIELD_(K, n, a, ...) HL_CT_##K(n, a)
#define HL_STRUCT_(name, doc, codec)                                                               \
    typedef struct {                                                                               \
        HL_FIELDS_##name(HL_STRUCT_FIELD_)                                                         \
    } hl_##name##_t;
HL_SCHEMA(HL_STRUCT_)
#undef HL_STRUCT_

/* ---- the functions schema.c generates for every message ---- */
/* hl_put_NAME writes the body fields in wire order; hl_get_NAME reads them
 * and rejects (HELIOD_EPROTO, sticky in the reader) what the wire format
 * forbids: string lengths, unknown flag bits, enum values and counts out of
 * range. hl_check_NAME checks the ranges of the schema (0 or HELIOD_EINVAL
 * with a static reason in *why); hl_NAME_init sets the defaults. */
#define HL_DECL_(name, doc, codec)                                                                 \
    void hl_put_##name(hl_wbuf_t *w, const hl_##name##_t *m);                                      \
    void hl_get_##name(hl_rbuf_t *r, hl_##name##_t *m);                                            \
    int hl_check_##name(const hl_##name##_t *m, const char **why);                                 \
    void hl_##name##_init(hl_##name##_t *m);
HL_SCHEMA(HL_DECL_)
#undef HL_DECL_

/* ---- the schema as data: what tests/proto/schema_dump prints ---- */
typedef struct {
    const char *name;  /* C and wire name ("gain_db") */
    const char *kind;  /* HL_FIELDS kind ("F32") */
    double arg;        /* string max, enum max, flag mask, array count */
    const char *sub;   /* SUB: the nested message */
    const char *check; /* CHECK */
    const char *range; /* RANGE ("PITCH"), "NONE" if none */
    double lo, hi;     /* the range */
    double def;        /* DEFAULT */
    unsigned since;    /* HL_V1_0, HL_V1_1: 0x0100 | minor */
} hl_schema_field_t;
typedef struct {
    const char *name; /* "play" */
    const char *doc;  /* its heading in PROTOCOL.md ("PLAY") */
    const hl_schema_field_t *fields;
    unsigned nfields;
} hl_schema_msg_t;
extern const hl_schema_msg_t hl_schema[];
extern const unsigned hl_schema_count;

#endif /* HL_SCHEMA_H */
