/*
 * heliod_conv.h - libheliod's public structs (heliod.h) to and from their
 * wire form (hl_schema.h), as tables: one X(KIND, public field, wire field)
 * per field, from which the preprocessor writes each conversion. A field a
 * public struct gains goes in its table; nothing else is written by hand.
 *
 * KIND: V a number (converted by assignment), S a name or path (copied up
 * to the destination's size, NUL-terminated even from an unterminated
 * public array), A a fixed array of numbers, SS an array of names, NS a
 * counted list of names (nNAME and NAME), POST the post stage (HL_FIELDS_vpost).
 *
 * hlc_to_NAME(public, wire) zeroes the wire struct and fills it;
 * hlc_from_NAME(wire, public) zeroes the public struct and fills it.
 * Not installed.
 */
#ifndef HELIOD_CONV_H
#define HELIOD_CONV_H

#include <stdio.h>
#include <string.h>

#include "heliod.h"
#include "hl_proto.h"

/* Copies a fixed char array that may lack its NUL: at most cap - 1 bytes. */
static inline void hlc_copy_name(char *dst, size_t cap, const char *src, size_t src_cap) {
    size_t n = strnlen(src, src_cap);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}
#define HLC_MIN_(a, b) ((a) < (b) ? (a) : (b))
#define HLC_NELEM_(x)  (sizeof(x) / sizeof((x)[0]))

/* clang-format off */
#define HLC_MAP_post(X) \
    X(V, lp_hz, lp_hz) X(V, hp_hz, hp_hz) X(V, occlusion, occlusion) X(V, obstruction, obstruction) \
    X(SS, send, send) X(A, send_db, send_db)
#define HLC_MAP_sound_info(X) \
    X(S, name, name) X(V, frames, frames) X(V, channels, channels) \
    X(V, source_rate, source_rate) X(V, flags, flags) X(V, playing, playing) X(V, owner, owner)
#define HLC_MAP_play(X) \
    X(V, flags, flags) X(V, gain_db, gain_db) X(V, pan, pan) X(A, pos, pos) X(V, pitch, pitch) \
    X(V, priority, priority) X(V, fade_in_ms, fade_in_ms) X(V, min_distance, min_distance) \
    X(V, max_distance, max_distance) X(V, rolloff, rolloff) X(V, distance_model, model) \
    X(S, bus, bus) X(V, loop_start, loop_start) X(V, loop_end, loop_end) \
    X(V, loop_count, loop_count) X(V, loop_xfade_ms, loop_xfade_ms) X(A, vel, vel) \
    X(S, emitter, emitter) X(V, over, over) X(POST, post, post)
#define HLC_MAP_set(X) \
    X(V, mask, mask) X(V, gain_db, gain_db) X(V, pan, pan) X(A, pos, pos) X(V, pitch, pitch) \
    X(V, ramp_ms, ramp_ms) X(V, seek_s, seek_s) X(A, vel, vel) X(POST, post, post)
#define HLC_MAP_listener(X) \
    X(V, mask, mask) X(A, pos, pos) X(A, fwd, fwd) X(A, up, up) X(A, vel, vel)
#define HLC_MAP_voice_info(X) \
    X(V, voice, voice) X(S, sound, sound) X(V, owner, owner) X(V, priority, priority) \
    X(V, flags, flags) X(V, state, state) X(V, gain_db, gain_db) X(V, pan, pan) X(A, pos, pos) \
    X(V, pitch, pitch) X(S, bus, bus) X(S, cue, cue) X(S, category, category) \
    X(S, emitter, emitter) X(V, audibility_db, audibility_db) X(V, position_s, position_s) \
    X(POST, post, post)
#define HLC_MAP_device_info(X) \
    X(V, index, index) X(S, name, name) X(S, hostapi, hostapi) X(V, max_channels, max_channels) \
    X(V, default_rate, default_rate) X(V, flags, flags)
#define HLC_MAP_device_reply(X) \
    X(S, driver, driver) X(S, name, name) X(V, rate, rate) X(V, period, period)
#define HLC_MAP_stat(X) \
    X(S, key, key) X(V, value, value)
#define HLC_MAP_bus_info(X) \
    X(S, name, name) X(S, parent, parent) X(V, gain_db, gain_db) X(V, mute, mute) X(V, fx, fx) \
    X(V, voices, voices) X(V, sends, sends) X(V, duck_db, duck_db) \
    X(V, path_gain_db, path_gain_db) X(SS, send, send) X(A, send_db, send_db)
#define HLC_MAP_rzone(X) \
    X(S, name, name) X(A, pos, pos) X(V, radius, radius) X(V, fade, fade) X(S, bus, bus) \
    X(S, feed, feed) X(V, preset, preset)
#define HLC_MAP_rzone_info(X) \
    X(S, zone.name, zone.name) X(A, zone.pos, zone.pos) X(V, zone.radius, zone.radius) \
    X(V, zone.fade, zone.fade) X(S, zone.bus, zone.bus) X(S, zone.feed, zone.feed) \
    X(V, zone.preset, zone.preset) X(V, weight, weight) X(V, send_db, send_db)
#define HLC_MAP_fx_info(X) \
    X(S, bus, bus) X(V, index, index) X(V, kind, kind) X(V, type, type) X(A, p, p)
#define HLC_MAP_duck_rule(X) \
    X(S, bus, bus) X(S, by, by) X(V, depth_db, depth_db) X(V, threshold_db, threshold_db) \
    X(V, attack_ms, attack_ms) X(V, hold_ms, hold_ms) X(V, release_ms, release_ms)
#define HLC_MAP_duck_info(X) \
    X(S, rule.bus, rule.bus) X(S, rule.by, rule.by) X(V, rule.depth_db, rule.depth_db) \
    X(V, rule.threshold_db, rule.threshold_db) X(V, rule.attack_ms, rule.attack_ms) \
    X(V, rule.hold_ms, rule.hold_ms) X(V, rule.release_ms, rule.release_ms) X(V, gain_db, gain_db)
#define HLC_MAP_cue(X) \
    X(S, name, name) X(NS, sounds, sounds) X(V, pick, pick) X(V, flags, flags) \
    X(V, gain_db, gain_db) X(V, gain_rand_db, gain_rand_db) X(V, pitch, pitch) \
    X(V, pitch_rand_cents, pitch_rand_cents) X(S, bus, bus) X(S, category, category) \
    X(V, priority, priority) X(V, pan, pan) X(V, min_distance, min_distance) \
    X(V, max_distance, max_distance) X(V, rolloff, rolloff) X(V, distance_model, model) \
    X(V, fade_in_ms, fade_in_ms) X(V, fade_out_ms, fade_out_ms) X(V, fade_curve, fade_curve) \
    X(V, max_instances, max_instances) X(V, overflow, overflow) \
    X(V, min_interval_ms, min_interval_ms) X(V, beyond, beyond) X(V, virt, virt) \
    X(V, doppler, doppler) X(POST, post, post)
#define HLC_MAP_category(X) \
    X(S, name, name) X(V, max_instances, max_instances) X(V, overflow, overflow) \
    X(V, fade_out_ms, fade_out_ms) X(V, fade_curve, fade_curve)
#define HLC_MAP_cue_counters(X) \
    X(V, plays, plays) X(V, refused_interval, refused_interval) \
    X(V, refused_distance, refused_distance) X(V, refused_cue_limit, refused_cue_limit) \
    X(V, refused_cat_limit, refused_cat_limit) X(V, refused_no_voice, refused_no_voice) \
    X(V, evicted_cue, evicted_cue) X(V, evicted_cat, evicted_cat) X(V, stolen, stolen) \
    X(V, virtualised, virtualised) X(V, active, active) X(V, virtual_now, virtual_now)
#define HLC_MAP_bank_info(X) \
    X(S, name, name) X(S, path, path) X(V, state, state) X(V, sounds, sounds) X(V, done, done) \
    X(V, failed, failed) X(V, bytes, bytes) X(S, error, error)
#define HLC_MAP_zone_info(X) \
    X(S, name, zone.name) X(S, bank, zone.bank) X(A, pos, zone.pos) X(V, radius, zone.radius) \
    X(V, state, state) X(V, bytes, bytes) X(V, distance, distance)
/* events: METER levels and loudness, PROFILE (their lists are copied by
 * hlc_from_meter_event / hlc_from_profile_event below) */
#define HLC_MAP_level(X) \
    X(S, name, name) X(A, peak_db, peak_db) X(A, peak_hold_db, peak_hold_db) X(A, rms_db, rms_db)
#define HLC_MAP_meter(X) \
    X(V, frame, frame) X(V, nbuses, nbuses) X(V, momentary, momentary) \
    X(V, short_term, short_term) X(V, integrated, integrated) X(V, range, range)
#define HLC_MAP_profile_bus(X) \
    X(S, name, name) X(V, peak_db, peak_db) X(V, peak_hold_db, peak_hold_db) \
    X(V, rms_db, rms_db) X(V, real, real) X(V, virt, virt)
#define HLC_MAP_profile(X) \
    X(V, time_ns, time_ns) X(V, period_us, period_us) X(V, callbacks, callbacks) \
    X(V, load_now, load_now) X(V, load_peak, load_peak) X(V, load_p99, load_p99) \
    X(V, load_max, load_max) X(A, hist, hist) X(V, xruns, xruns) X(V, underruns, underruns) \
    X(V, voices_real, voices_real) X(V, voices_virtual, voices_virtual) \
    X(V, decode_load, decode_load) X(V, streams, streams) X(V, nstreams, nstreams) \
    X(V, master_peak_db, master_peak_db) X(V, master_rms_db, master_rms_db) X(V, nbuses, nbuses)
/* clang-format on */

/* one field, from src (s) to dst (d) */
#define HLC_CP_V(d, s) (d) = (s);
#define HLC_CP_S(d, s) hlc_copy_name((d), sizeof(d), (s), sizeof(s));
#define HLC_CP_A(d, s) memcpy((d), (s), HLC_MIN_(sizeof(d), sizeof(s)));
#define HLC_CP_SS(d, s)                                                                            \
    for (size_t i_ = 0; i_ < HLC_MIN_(HLC_NELEM_(d), HLC_NELEM_(s)); i_++)                         \
        hlc_copy_name((d)[i_], sizeof((d)[i_]), (s)[i_], sizeof((s)[i_]));
#define HLC_TO_POST_(d, s)   hlc_to_post(&(s), &(d));
#define HLC_FROM_POST_(d, s) hlc_from_post(&(s), &(d));

#define HLC_TO_V(pub, wire)    HLC_CP_V(m->wire, p->pub)
#define HLC_TO_S(pub, wire)    HLC_CP_S(m->wire, p->pub)
#define HLC_TO_A(pub, wire)    HLC_CP_A(m->wire, p->pub)
#define HLC_TO_SS(pub, wire)   HLC_CP_SS(m->wire, p->pub)
#define HLC_TO_POST(pub, wire) HLC_TO_POST_(m->wire, p->pub)
#define HLC_TO_NS(pub, wire)                                                                       \
    m->n##wire = (uint8_t)HLC_MIN_(p->n##pub, HLC_NELEM_(m->wire));                                \
    for (size_t i_ = 0; i_ < m->n##wire; i_++)                                                     \
    HLC_CP_S(m->wire[i_], p->pub[i_])
#define HLC_FROM_V(pub, wire)    HLC_CP_V(o->pub, w->wire)
#define HLC_FROM_S(pub, wire)    HLC_CP_S(o->pub, w->wire)
#define HLC_FROM_A(pub, wire)    HLC_CP_A(o->pub, w->wire)
#define HLC_FROM_SS(pub, wire)   HLC_CP_SS(o->pub, w->wire)
#define HLC_FROM_POST(pub, wire) HLC_FROM_POST_(o->pub, w->wire)
#define HLC_FROM_NS(pub, wire)                                                                     \
    o->n##pub = w->n##wire;                                                                        \
    for (size_t i_ = 0; i_ < HLC_MIN_(w->n##wire, HLC_NELEM_(o->pub)); i_++)                       \
    HLC_CP_S(o->pub[i_], w->wire[i_])

#define HLC_TO_FIELD_(K, pub, wire)   HLC_TO_##K(pub, wire)
#define HLC_FROM_FIELD_(K, pub, wire) HLC_FROM_##K(pub, wire)
/* Defines hlc_to_NAME and hlc_from_NAME for the table HLC_MAP_NAME. */
#define HLC_CONV(name, pub_t, wire_t)                                                              \
    static inline void hlc_to_##name(const pub_t *p, wire_t *m) {                                  \
        memset(m, 0, sizeof *m);                                                                   \
        HLC_MAP_##name(HLC_TO_FIELD_)                                                              \
    }                                                                                              \
    static inline void hlc_from_##name(const wire_t *w, pub_t *o) {                                \
        memset(o, 0, sizeof *o);                                                                   \
        HLC_MAP_##name(HLC_FROM_FIELD_)                                                            \
    }

HLC_CONV(post, heliod_post_t, hl_vpost_t)
HLC_CONV(sound_info, heliod_sound_info_t, hl_sound_info_t)
HLC_CONV(play, heliod_play_params_t, hl_play_t)
HLC_CONV(set, heliod_voice_set_t, hl_set_t)
HLC_CONV(listener, heliod_listener_t, hl_listener_t)
HLC_CONV(voice_info, heliod_voice_info_t, hl_voice_info_t)
HLC_CONV(device_info, heliod_device_info_t, hl_device_info_t)
HLC_CONV(device_reply, heliod_device_reply_t, hl_device_reply_t)
HLC_CONV(stat, heliod_stat_t, hl_stat_t)
HLC_CONV(bus_info, heliod_bus_info_t, hl_bus_info_t)
HLC_CONV(rzone, heliod_reverb_zone_t, hl_rzone_t)
HLC_CONV(rzone_info, heliod_reverb_zone_info_t, hl_rzone_info_t)
HLC_CONV(fx_info, heliod_fx_info_t, hl_fx_info_t)
HLC_CONV(duck_rule, heliod_duck_t, hl_duck_rule_t)
HLC_CONV(duck_info, heliod_duck_info_t, hl_duck_info_t)
HLC_CONV(cue, heliod_cue_t, hl_cue_t)
HLC_CONV(category, heliod_category_t, hl_category_t)
HLC_CONV(cue_counters, heliod_cue_counters_t, hl_cue_counters_t)
HLC_CONV(bank_info, heliod_bank_info_t, hl_bank_info_t)
HLC_CONV(zone_info, heliod_zone_info_t, hl_zone_info_t)
HLC_CONV(level, heliod_level_t, hl_meter_level_t)
HLC_CONV(meter, heliod_meter_t, hl_meter_t)
HLC_CONV(profile_bus, heliod_profile_bus_t, hl_profile_bus_t)
HLC_CONV(profile, heliod_profile_t, hl_profile_t)

/* A METER event: the fields, the master (named "master"), the listed buses. */
static inline void hlc_from_meter_event(const hl_meter_t *w, heliod_meter_t *o) {
    hlc_from_meter(w, o);
    hlc_from_level(&w->master, &o->master);
    snprintf(o->master.name, sizeof o->master.name, "%s", "master");
    for (unsigned i = 0; i < w->nbuses && i < HLC_NELEM_(o->bus); i++)
        hlc_from_level(&w->bus[i], &o->bus[i]);
}

/* A PROFILE event: the fields, the listed streams and buses. */
static inline void hlc_from_profile_event(const hl_profile_t *w, heliod_profile_t *o) {
    hlc_from_profile(w, o);
    for (unsigned i = 0; i < w->nstreams && i < HLC_NELEM_(o->stream); i++) {
        HLC_CP_S(o->stream[i].sound, w->stream[i].sound)
        o->stream[i].fill = w->stream[i].fill;
    }
    for (unsigned i = 0; i < w->nbuses && i < HLC_NELEM_(o->bus); i++)
        hlc_from_profile_bus(&w->bus[i], &o->bus[i]);
}

#endif /* HELIOD_CONV_H */
