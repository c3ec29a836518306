/*
 * heliod_voice.c - libheliod's voice calls: play (blocking and async), stop,
 * stop-all, set and the listener (blocking and async), the voice,
 * device and statistics lists, the output device, subscriptions. Each builds
 * its request from the public struct through heliod_conv.h's tables and
 * validates it as the daemon will (hl_validate_*) before anything is sent.
 */
#include <stdio.h>
#include <string.h>

#include "heliod_conv.h"
#include "heliod_int.h"

_Static_assert(HELIOD_ON_BEAT == HL_SYNC_BEAT && HELIOD_ON_BAR == HL_SYNC_BAR,
               "stinger units are the wire's");

void heliod_play_params_init(heliod_play_params_t *p) {
    hl_play_t d;
    hl_play_init(&d); /* the schema's defaults */
    hlc_from_play(&d, p);
}

/* Converts and validates play parameters into the wire struct. */
static int play_msg(heliod_t *h, const char *sound, const heliod_play_params_t *p, hl_play_t *m) {
    heliod_play_params_t def;
    if (!p) {
        heliod_play_params_init(&def);
        p = &def;
    }
    if (!sound || !hl_name_valid(sound))
        return hlc_set_error(h, HELIOD_ENAME, "invalid sound name");
    if (p->distance_model < HELIOD_DIST_LINEAR || p->distance_model > HELIOD_DIST_EXPONENTIAL)
        return hlc_set_error(h, HELIOD_EINVAL, "model: unknown distance model");
    if (memchr(p->bus, '\0', sizeof p->bus) == NULL)
        return hlc_set_error(h, HELIOD_EINVAL, "bus: not terminated");
    if (memchr(p->emitter, '\0', sizeof p->emitter) == NULL)
        return hlc_set_error(h, HELIOD_EINVAL, "emitter: not terminated");
    heliod_play_params_t pp;
    if (p->flags & HELIOD_PLAY_PAN_OPENAL) { /* a flag here, a field on the wire */
        if (heliod_protocol_minor(h) < 1)
            return hlc_set_error(h, HELIOD_EVERSION, "pan_law: the daemon speaks protocol 1.0");
        pp = *p;
        pp.flags &= ~HELIOD_PLAY_PAN_OPENAL;
        p = &pp;
    }
    const int openal_law = p == &pp;
    hlc_to_play(p, m);
    m->pan_law = openal_law ? HL_PAN_LAW_OPENAL : HL_PAN_LAW_HELIOD;
    snprintf(m->sound, sizeof m->sound, "%s", sound);
    const char *why = NULL;
    if (hl_validate_play(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return 0;
}

/* Sends a checked PLAY and waits for its reply: the voice and the one it
 * stole (either may be NULL). */
static int send_play(heliod_t *h, const hl_play_t *m, heliod_voice_t *voice,
                     heliod_voice_t *stolen) {
    uint32_t id;
    int rc = hlc_req_play(h, HL_OP_PLAY, 0, m, &id);
    if (rc < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_PLAY, &r)) < 0) return rc;
    hl_play_reply_t pr;
    hl_get_play_reply(&r, &pr);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (voice) *voice = pr.voice;
    if (stolen) *stolen = pr.stolen;
    return 0;
}

int heliod_play(heliod_t *h, const char *sound, const heliod_play_params_t *p,
                heliod_voice_t *voice, heliod_voice_t *stolen) {
    hl_play_t m;
    int rc = play_msg(h, sound, p, &m);
    if (rc < 0) return rc;
    return send_play(h, &m, voice, stolen);
}

int heliod_play_lfe(heliod_t *h, const char *sound, const heliod_play_params_t *p, float lfe,
                    heliod_voice_t *voice, heliod_voice_t *stolen) {
    if (!(lfe >= HL_R_LFE_LO && lfe <= HL_R_LFE_HI))
        return hlc_set_error(h, HELIOD_EINVAL, "lfe: must be 0..4 (linear, 0 = none)");
    if (lfe != 0.0f && heliod_protocol_minor(h) < 1)
        return hlc_set_error(h, HELIOD_EVERSION, "lfe: the daemon speaks protocol 1.0");
    hl_play_t m;
    int rc = play_msg(h, sound, p, &m);
    if (rc < 0) return rc;
    m.lfe = lfe;
    return send_play(h, &m, voice, stolen);
}

int heliod_play_on(heliod_t *h, const char *sound, const heliod_play_params_t *p,
                   heliod_voice_t music, int on, heliod_voice_t *voice) {
    if (on != HELIOD_ON_BEAT && on != HELIOD_ON_BAR)
        return hlc_set_error(h, HELIOD_EINVAL, "on: HELIOD_ON_BEAT or HELIOD_ON_BAR");
    if (!music) return hlc_set_error(h, HELIOD_EINVAL, "music: not a voice handle");
    if (heliod_protocol_minor(h) < 1)
        return hlc_set_error(h, HELIOD_EVERSION, "sync_on: the daemon speaks protocol 1.0");
    hl_play_t m;
    int rc = play_msg(h, sound, p, &m);
    if (rc < 0) return rc;
    m.sync_on = (uint8_t)on;
    m.sync_voice = music;
    return send_play(h, &m, voice, NULL);
}

int heliod_music(heliod_t *h, const char *music, const char *state, uint64_t *frame,
                 heliod_voice_t *voice) {
    if (heliod_protocol_minor(h) < 1)
        return hlc_set_error(h, HELIOD_EVERSION, "music: the daemon speaks protocol 1.0");
    hl_music_req_t m;
    memset(&m, 0, sizeof m);
    if (!music || strlen(music) > HL_MAX_NAME || !state || strlen(state) > HL_MAX_NAME)
        return hlc_set_error(h, HELIOD_EINVAL, "music, state: names of 1..63 bytes");
    memcpy(m.name, music, strlen(music) + 1);
    memcpy(m.to, state, strlen(state) + 1);
    const char *why = NULL;
    if (hl_check_music_req(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    uint32_t id;
    int rc = hlc_req_music_req(h, HL_OP_MUSIC, 0, &m, &id);
    if (rc < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_MUSIC, &r)) < 0) return rc;
    hl_music_reply_t mr;
    hl_get_music_reply(&r, &mr);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (frame) *frame = mr.frame;
    if (voice) *voice = mr.voice;
    return 0;
}

static int stop_msg(heliod_t *h, heliod_voice_t voice, float fade_ms, hl_stop_t *m) {
    memset(m, 0, sizeof *m);
    m->voice = voice;
    m->fade_ms = fade_ms;
    const char *why = NULL;
    if (hl_validate_stop(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return 0;
}

int heliod_stop(heliod_t *h, heliod_voice_t voice, float fade_ms) {
    return heliod_stop_curve(h, voice, fade_ms, -1);
}

int heliod_stop_curve(heliod_t *h, heliod_voice_t voice, float fade_ms, int curve) {
    if (curve < -1 || curve > HELIOD_CURVE_LOG)
        return hlc_set_error(h, HELIOD_EINVAL, "curve: -1 or a HELIOD_CURVE_* value");
    hl_stop_t m;
    int rc = stop_msg(h, voice, fade_ms, &m);
    m.curve = curve < 0 ? 0 : HL_STOP_CURVE(curve);
    if (rc < 0) return rc;
    return hlc_call_stop(h, HL_OP_STOP, &m);
}

int heliod_stop_all(heliod_t *h, float fade_ms, int everyone, uint32_t *count) {
    hl_stop_all_t m = {.fade_ms = fade_ms,
                       .scope = everyone ? HL_STOP_ALL_EVERYONE : HL_STOP_ALL_MINE};
    const char *why = NULL;
    if (hl_validate_stop_all(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    uint32_t id;
    int rc = hlc_req_stop_all(h, HL_OP_STOP_ALL, 0, &m, &id);
    if (rc < 0) return rc;
    return hlc_count_call(h, id, HL_OP_STOP_ALL, count);
}

static int set_msg(heliod_t *h, heliod_voice_t voice, const heliod_voice_set_t *s, hl_set_t *m) {
    hlc_to_set(s, m);
    m->voice = voice;
    const char *why = NULL;
    if (hl_validate_set(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return 0;
}

int heliod_set(heliod_t *h, heliod_voice_t voice, const heliod_voice_set_t *s) {
    hl_set_t m;
    int rc = set_msg(h, voice, s, &m);
    if (rc < 0) return rc;
    return hlc_call_set(h, HL_OP_SET, &m);
}

int heliod_set_lfe(heliod_t *h, heliod_voice_t voice, float lfe, float ramp_ms) {
    if (!(lfe >= HL_R_LFE_LO && lfe <= HL_R_LFE_HI))
        return hlc_set_error(h, HELIOD_EINVAL, "lfe: must be 0..4 (linear, 0 = none)");
    if (heliod_protocol_minor(h) < 1)
        return hlc_set_error(h, HELIOD_EVERSION, "lfe: the daemon speaks protocol 1.0");
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.ramp_ms = ramp_ms;
    hl_set_t m;
    int rc = set_msg(h, voice, &s, &m);
    if (rc < 0) return rc;
    m.mask |= HL_SET_LFE;
    m.lfe = lfe;
    const char *why = NULL;
    if (hl_validate_set(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_set(h, HL_OP_SET, &m);
}

int heliod_set_loops(heliod_t *h, heliod_voice_t voice, int32_t loops) {
    if (loops < HL_R_LOOPS_LO)
        return hlc_set_error(h, HELIOD_EINVAL,
                             "loops: -1 (forever), 0 (leave the loop after this pass) or the "
                             "passes left");
    if (heliod_protocol_minor(h) < 1)
        return hlc_set_error(h, HELIOD_EVERSION, "loops: the daemon speaks protocol 1.0");
    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    hl_set_t m;
    int rc = set_msg(h, voice, &s, &m);
    if (rc < 0) return rc;
    m.mask |= HL_SET_LOOPS;
    m.loops = loops;
    return hlc_call_set(h, HL_OP_SET, &m);
}

static int listener_msg(heliod_t *h, const heliod_listener_t *l, hl_listener_t *m) {
    hlc_to_listener(l, m);
    const char *why = NULL;
    if (hl_validate_listener(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return 0;
}

int heliod_set_listener(heliod_t *h, const heliod_listener_t *l) {
    hl_listener_t m;
    int rc = listener_msg(h, l, &m);
    if (rc < 0) return rc;
    return hlc_call_listener(h, HL_OP_LISTENER, &m);
}

int heliod_set_listener_at(heliod_t *h, unsigned index, const heliod_listener_t *l, int off) {
    if (index > 3 || (off && index == 0) || (!l && !off))
        return hlc_set_error(h, HELIOD_EINVAL, "index: 0..3; off needs 1..3; l NULL only with off");
    hl_listener_t m;
    int rc = 0;
    if (l) {
        rc = listener_msg(h, l, &m);
    } else {
        hl_listener_init(&m);
    }
    if (rc < 0) return rc;
    m.index = (uint8_t)index;
    m.off = off ? 1 : 0;
    hl_wbuf_t w;
    uint32_t id;
    if ((rc = hlc_req_begin(h, &w, HL_OP_LISTENER, 0, &id)) < 0) return rc;
    hl_put_listener(&w, &m);
    if ((rc = hlc_req_end(h, &w)) < 0) return rc;
    return hlc_simple_call(h, id, HL_OP_LISTENER);
}

int heliod_voices(heliod_t *h, heliod_voice_info_t *arr, size_t cap, size_t *count) {
    HLC_LIST(h, HL_OP_VOICES, voice_info, arr, cap, count);
}

int heliod_devices(heliod_t *h, heliod_device_info_t *arr, size_t cap, size_t *count) {
    HLC_LIST(h, HL_OP_DEVICES, device_info, arr, cap, count);
}

int heliod_device(heliod_t *h, const char *name, heliod_device_reply_t *out) {
    if (!name || !name[0] || strlen(name) > HL_MAX_DEVNAME)
        return hlc_set_error(h, HELIOD_EINVAL, "name: a device name, \"null\" or \"default\"");
    hl_device_req_t m;
    snprintf(m.name, sizeof m.name, "%s", name);
    uint32_t id;
    int rc = hlc_req_device_req(h, HL_OP_DEVICE, 0, &m, &id);
    if (rc < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_DEVICE, &r)) < 0) return rc;
    hl_device_reply_t dr;
    hl_get_device_reply(&r, &dr);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (out) hlc_from_device_reply(&dr, out);
    return 0;
}

int heliod_stats(heliod_t *h, heliod_stat_t *arr, size_t cap, size_t *count, int reset) {
    hl_rbuf_t r;
    hl_list_head_t head;
    hl_stats_req_t req = {.flags = reset ? HL_STATS_RESET : 0};
    int rc = hlc_list_call(h, HL_OP_STATS, &req, &r, &head);
    if (rc < 0) return rc;
    for (size_t i = 0; i < head.count && !r.err; i++) {
        hl_stat_t s;
        hl_get_stat(&r, &s);
        if (i < cap && !r.err) hlc_from_stat(&s, &arr[i]);
    }
    return hlc_list_result(h, &r, &head, cap, count);
}

int heliod_subscribe(heliod_t *h, uint32_t mask) {
    return heliod_subscribe_meter(h, mask, 0.0f);
}

int heliod_subscribe_meter(heliod_t *h, uint32_t mask, float meter_hz) {
    return heliod_subscribe_profile(h, mask, meter_hz, 0.0f);
}

int heliod_subscribe_profile(heliod_t *h, uint32_t mask, float meter_hz, float profile_hz) {
    if (!h) return HELIOD_EINVAL;
    hl_subscribe_t m = {.mask = mask, .meter_hz = meter_hz, .profile_hz = profile_hz};
    const char *why = NULL;
    if (hl_validate_subscribe(&m, &why) != 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_subscribe(h, HL_OP_SUBSCRIBE, &m);
}

int heliod_play_async(heliod_t *h, const char *sound, const heliod_play_params_t *p,
                      heliod_reply_fn fn, void *user) {
    hl_play_t m;
    int rc = play_msg(h, sound, p, &m);
    if (rc < 0) return rc;
    return hlc_async_play(h, HL_OP_PLAY, fn, user, &m);
}

int heliod_stop_async(heliod_t *h, heliod_voice_t voice, float fade_ms) {
    hl_stop_t m;
    int rc = stop_msg(h, voice, fade_ms, &m);
    if (rc < 0) return rc;
    return hlc_async_stop(h, HL_OP_STOP, NULL, NULL, &m);
}

int heliod_set_async(heliod_t *h, heliod_voice_t voice, const heliod_voice_set_t *s) {
    hl_set_t m;
    int rc = set_msg(h, voice, s, &m);
    if (rc < 0) return rc;
    return hlc_async_set(h, HL_OP_SET, NULL, NULL, &m);
}

int heliod_set_listener_weight(heliod_t *h, unsigned index, float weight) {
    hl_listener_t m;
    hl_listener_init(&m);
    if (index > 3) return hlc_set_error(h, HELIOD_EINVAL, "index: 0..3");
    m.index = (uint8_t)index;
    m.weight = weight == 0.0f ? -1.0f : weight; /* 0: the nearest rule (-1 on the wire) */
    const char *why = NULL;
    if (hl_validate_listener(&m, &why) < 0 || m.weight == 0.0f)
        return hlc_set_error(h, HELIOD_EINVAL, why ? why : "weight: 0 or in (0, 1]");
    return hlc_call_listener(h, HL_OP_LISTENER, &m);
}

int heliod_set_listener_async(heliod_t *h, const heliod_listener_t *l) {
    hl_listener_t m;
    int rc = listener_msg(h, l, &m);
    if (rc < 0) return rc;
    return hlc_async_listener(h, HL_OP_LISTENER, NULL, NULL, &m);
}
