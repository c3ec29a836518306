/*
 * drive_libheliod.c - sends every request kind libheliod can send, with
 * representative and edge values, to the socket in argv[1]. Built by
 * gen_corpus.py against libheliod of protocol 1.0 (commit 4550bf8) and run
 * against its recording server, which answers every request with an error:
 * only the frames matter, so return codes are ignored. Uses the 1.0 API only.
 */
#include <stdio.h>
#include <string.h>

#include "heliod.h"

#define NAME63 "n23456789012345678901234567890123456789012345678901234567890123"

static void set_post(heliod_post_t *p) {
    p->lp_hz = 8000.0f;
    p->hp_hz = 120.0f;
    p->occlusion = 0.5f;
    p->obstruction = 1.0f;
    snprintf(p->send[0], sizeof p->send[0], "reverb_zones");
    p->send_db[0] = -6.0f;
    snprintf(p->send[1], sizeof p->send[1], "hall");
    p->send_db[1] = 24.0f;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *sock = argv[1];
    heliod_t *h = NULL;
    if (heliod_connect(&h, sock, "corpus-game") != 0) {
        fprintf(stderr, "connect: %s\n", heliod_last_error(NULL));
        return 1;
    }
    heliod_set_timeout(h, 2000);
    uint32_t n;
    size_t count;
    heliod_voice_t v, st;
    uint64_t t;
    heliod_ping(h, &t);

    /* sounds */
    heliod_load(h, "boom", "/srv/sfx/boom.wav", 0, NULL);
    heliod_load(h, NAME63, "/srv/sfx/music.ogg",
                HELIOD_LOAD_STREAM | HELIOD_LOAD_SHARED | HELIOD_LOAD_PIN, NULL);
    static unsigned char blob[130000];
    for (size_t i = 0; i < sizeof blob; i++)
        blob[i] = (unsigned char)(i * 7 + 3);
    heliod_load_memory(h, "upload", blob, sizeof blob, HELIOD_LOAD_SHARED, NULL);
    heliod_unload(h, "boom");
    heliod_sound_info_t si[4];
    heliod_sounds(h, si, 4, &count);

    /* voices */
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    heliod_play(h, "boom", &p, &v, &st); /* every default */
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LOOP | HELIOD_PLAY_3D | HELIOD_PLAY_DETACHED | HELIOD_PLAY_PAUSED |
              HELIOD_PLAY_SINC;
    p.gain_db = 24.0f;
    p.pan = -1.0f;
    p.pos[0] = 1.5f, p.pos[1] = -2.25f, p.pos[2] = 1e6f;
    p.pitch = 4.0f;
    p.priority = -1000;
    p.fade_in_ms = 0.0f;
    p.min_distance = 0.5f, p.max_distance = 1e6f, p.rolloff = 2.0f;
    p.distance_model = HELIOD_DIST_EXPONENTIAL;
    snprintf(p.bus, sizeof p.bus, "music");
    p.loop_start = 4800, p.loop_end = 96000, p.loop_count = 3;
    p.loop_xfade_ms = 25.0f;
    p.vel[0] = 10.0f, p.vel[1] = 0.0f, p.vel[2] = -340.0f;
    snprintf(p.emitter, sizeof p.emitter, "car");
    p.over = HELIOD_OVER_PRIORITY | HELIOD_OVER_BUS | HELIOD_OVER_FADE_IN | HELIOD_OVER_DISTANCE |
             HELIOD_OVER_PAN | HELIOD_OVER_FILTER | HELIOD_OVER_SENDS;
    set_post(&p.post);
    heliod_play(h, NAME63, &p, &v, &st); /* every field, at its edges */
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_CUBIC;
    p.pan = 1.0f;
    p.pitch = 0.26f;
    p.priority = 1000;
    p.distance_model = HELIOD_DIST_LINEAR;
    heliod_play(h, "cue.footstep", &p, &v, &st);
    heliod_play_params_init(&p);
    p.flags = HELIOD_PLAY_LINEAR;
    heliod_play_async(h, "boom", &p, NULL, NULL);

    heliod_stop(h, 0x0000000100000002ull, 0.0f);
    heliod_stop(h, 0xffffffffffffffffull, 60000.0f);
    heliod_stop_curve(h, 7, 250.0f, HELIOD_CURVE_EQUAL_POWER);
    heliod_stop_curve(h, 7, -1.0f, HELIOD_CURVE_LOG);
    heliod_stop_async(h, 8, 10.0f);
    heliod_stop_all(h, 100.0f, 0, &n);
    heliod_stop_all(h, 0.0f, 1, &n);

    heliod_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN | HELIOD_SET_PAN;
    s.gain_db = -96.0f;
    s.pan = 0.25f;
    heliod_set(h, 9, &s);
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN | HELIOD_SET_PAN | HELIOD_SET_POS | HELIOD_SET_PITCH |
             HELIOD_SET_SEEK | HELIOD_SET_VEL | HELIOD_SET_LP | HELIOD_SET_HP |
             HELIOD_SET_OCCLUSION | HELIOD_SET_OBSTRUCTION | HELIOD_SET_SENDS;
    s.gain_db = 24.0f, s.pan = -1.0f;
    s.pos[0] = -3.0f, s.pos[1] = 0.125f, s.pos[2] = 7.0f;
    s.pitch = 0.25f;
    s.ramp_ms = 500.0f;
    s.seek_s = 12345.678;
    s.vel[0] = 1.0f, s.vel[1] = 2.0f, s.vel[2] = 3.0f;
    set_post(&s.post);
    heliod_set(h, 10, &s);
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_PAUSE;
    s.ramp_ms = 50.0f;
    heliod_set(h, 11, &s);
    s.mask = HELIOD_SET_RESUME;
    heliod_set_async(h, 11, &s);
    heliod_pause_all(h, 1, 0, &n);
    heliod_pause_all(h, 0, 1, &n);
    heliod_pause_group(h, HELIOD_PAUSE_BUS, "music", 1, &n);
    heliod_pause_group(h, HELIOD_PAUSE_CATEGORY, "footsteps", 0, &n);

    heliod_listener_t l;
    memset(&l, 0, sizeof l);
    l.mask = HELIOD_LIS_POS | HELIOD_LIS_FWD | HELIOD_LIS_UP | HELIOD_LIS_VEL;
    l.pos[0] = 10.0f, l.pos[1] = 1.75f, l.pos[2] = -4.0f;
    l.fwd[2] = -1.0f;
    l.up[1] = 1.0f;
    l.vel[0] = 3.5f;
    heliod_set_listener(h, &l);
    memset(&l, 0, sizeof l);
    l.mask = HELIOD_LIS_POS;
    l.pos[0] = -1e6f;
    heliod_set_listener_async(h, &l);
    heliod_voice_info_t vi[2];
    heliod_voices(h, vi, 2, &count);

    /* graph */
    heliod_bus_gain(h, "master", -6.0f, 0.0f);
    heliod_bus_gain(h, "sfx", 24.0f, 2000.0f);
    heliod_bus_mute(h, "music", 1, 100.0f);
    heliod_bus_mute(h, "music", 0, 0.0f);
    heliod_bus_create(h, "amb", "");
    heliod_bus_create(h, NAME63, "music");
    heliod_bus_parent(h, "amb", "sfx");
    heliod_bus_send(h, "amb", "hall", -12.0f, 50.0f);
    heliod_bus_send(h, "amb", "hall", -144.0f, 0.0f);
    heliod_bus_remove(h, "amb");
    heliod_bus_info_t bi[2];
    heliod_buses(h, bi, 2, &count);
    heliod_fx_t fx;
    memset(&fx, 0, sizeof fx);
    fx.kind = HELIOD_FX_EQ;
    fx.type = 4;
    fx.mask = HELIOD_FX_TYPE | 0x7u;
    fx.p[0] = 1000.0f, fx.p[1] = 0.7071f, fx.p[2] = -6.0f;
    heliod_fx_add(h, "music", 0, &fx, &n);
    memset(&fx, 0, sizeof fx);
    fx.kind = HELIOD_FX_COMP;
    fx.mask = 0x3Fu;
    fx.p[0] = -80.0f, fx.p[1] = 100.0f, fx.p[2] = 24.0f, fx.p[3] = 0.05f, fx.p[4] = 5000.0f;
    fx.p[5] = 24.0f;
    heliod_fx_add(h, "master", 0xffffffffu, &fx, &n);
    memset(&fx, 0, sizeof fx);
    fx.kind = HELIOD_FX_REVERB;
    fx.type = HELIOD_REV_CAVE;
    fx.mask = HELIOD_FX_TYPE | 0x10u;
    fx.p[4] = 0.4f;
    fx.ramp_ms = 30.0f;
    heliod_fx_set(h, "hall", 1, &fx);
    heliod_fx_remove(h, "music", 0);
    heliod_fx_info_t fi[2];
    heliod_fx_list(h, "music", fi, 2, &count);
    heliod_fx_list(h, NULL, fi, 2, &count);
    heliod_duck_t dk;
    heliod_duck_init(&dk);
    snprintf(dk.bus, sizeof dk.bus, "music");
    snprintf(dk.by, sizeof dk.by, "dialog");
    heliod_duck(h, &dk);
    dk.depth_db = 48.0f, dk.threshold_db = -144.0f, dk.attack_ms = 0.0f, dk.hold_ms = 0.0f;
    dk.release_ms = 10000.0f;
    heliod_duck(h, &dk);
    heliod_duck_remove(h, "music", "dialog");
    heliod_duck_info_t di[2];
    heliod_ducks(h, di, 2, &count);
    heliod_reverb_zone_t rz;
    memset(&rz, 0, sizeof rz);
    snprintf(rz.name, sizeof rz.name, "cave1");
    rz.pos[0] = 5.0f, rz.pos[1] = 0.0f, rz.pos[2] = -20.0f;
    rz.radius = 8.0f, rz.fade = 4.0f;
    rz.preset = HELIOD_REV_CAVE;
    heliod_reverb_zone_set(h, &rz);
    snprintf(rz.bus, sizeof rz.bus, "hall");
    snprintf(rz.feed, sizeof rz.feed, "reverb_zones");
    rz.fade = 0.0f, rz.radius = 1e-3f, rz.preset = HELIOD_REV_OUTDOOR;
    heliod_reverb_zone_set(h, &rz);
    heliod_reverb_zone_remove(h, "cave1");
    heliod_reverb_zone_info_t ri[2];
    heliod_reverb_zones(h, ri, 2, &count);

    /* cues, categories, emitters */
    heliod_category_t cat;
    heliod_category_init(&cat);
    snprintf(cat.name, sizeof cat.name, "footsteps");
    heliod_category_define(h, &cat);
    cat.max_instances = 65536, cat.overflow = HELIOD_OVERFLOW_STEAL_FARTHEST;
    cat.fade_out_ms = 0.0f, cat.fade_curve = HELIOD_CURVE_LOG;
    heliod_category_define(h, &cat);
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    snprintf(cue.name, sizeof cue.name, "cue.footstep");
    cue.nsounds = 1;
    snprintf(cue.sounds[0], sizeof cue.sounds[0], "step1");
    heliod_cue_define(h, &cue);
    cue.nsounds = HELIOD_MAX_CUE_SOUNDS;
    for (int i = 0; i < HELIOD_MAX_CUE_SOUNDS; i++)
        snprintf(cue.sounds[i], sizeof cue.sounds[i], "step%d", i + 1);
    cue.pick = HELIOD_PICK_SEQUENCE;
    cue.flags = HELIOD_CUE_LOOP | HELIOD_CUE_3D | HELIOD_CUE_SINC;
    cue.gain_db = -3.0f, cue.gain_rand_db = 48.0f, cue.pitch = 0.25f,
    cue.pitch_rand_cents = 2400.0f;
    snprintf(cue.bus, sizeof cue.bus, "sfx");
    snprintf(cue.category, sizeof cue.category, "footsteps");
    cue.priority = 1000, cue.pan = 0.5f;
    cue.min_distance = 2.0f, cue.max_distance = 1e6f, cue.rolloff = 0.5f;
    cue.distance_model = HELIOD_DIST_LINEAR;
    cue.fade_in_ms = 5.0f, cue.fade_out_ms = 60000.0f, cue.fade_curve = HELIOD_CURVE_EQUAL_POWER;
    cue.max_instances = 4, cue.overflow = HELIOD_OVERFLOW_FADE_OLDEST;
    cue.min_interval_ms = 60000.0f, cue.beyond = HELIOD_BEYOND_CLAMP, cue.virt = HELIOD_VIRT_KILL;
    cue.doppler = 10.0f;
    set_post(&cue.post);
    heliod_cue_define(h, &cue);
    heliod_cues_load(h, "/srv/game/cues.txt", &n, &n);
    heliod_cue_info_t *ci = NULL;
    heliod_cues(h, ci, 0, &count);
    float pos[3] = {1.0f, 2.0f, 3.0f}, vel[3] = {-1.0f, 0.0f, 0.5f};
    heliod_emitter_create(h, "car", pos, NULL, 0);
    heliod_emitter_create(h, "train", pos, vel, HELIOD_EM_DETACHED);
    heliod_emitter_set(h, "car", HELIOD_EM_POS, pos, NULL, 0.0f);
    heliod_emitter_set(h, "car", HELIOD_EM_POS | HELIOD_EM_VEL, pos, vel, 60000.0f);
    heliod_emitter_set_async(h, "train", HELIOD_EM_VEL, NULL, vel, 0.0f);
    heliod_emitter_destroy(h, "car", -1.0f, &n);
    heliod_emitter_destroy(h, "train", 250.0f, &n);

    /* events, devices, stats */
    heliod_subscribe(h, HELIOD_SUB_ENDED | HELIOD_SUB_STARTED);
    heliod_subscribe_meter(h, HELIOD_SUB_METER, 100.0f);
    heliod_subscribe_profile(h, 0x1FFu, 0.0f, 1.0f);
    heliod_device_info_t dv[2];
    heliod_devices(h, dv, 2, &count);
    heliod_device_reply_t dr;
    heliod_device(h, "null", &dr);
    heliod_device(h, "no such device", &dr);
    heliod_stat_t sv[2];
    heliod_stats(h, sv, 2, &count, 0);
    heliod_stats(h, sv, 2, &count, 1);

    /* assets */
    heliod_bank_info_t bk;
    heliod_bank_load(h, "/srv/game/forest.bank", &bk);
    heliod_bank_unload(h, "forest");
    heliod_banks(h, &bk, 1, &count);
    float zp[3] = {100.0f, 0.0f, -50.0f};
    heliod_zone_add(h, "forest", "/srv/game/forest.bank", zp, 40.0f);
    heliod_zone_remove(h, "forest");
    heliod_zone_info_t zi[2];
    heliod_zones(h, zi, 2, &count);

    /* time: the clock, scheduled requests, a bundle */
    heliod_clock_t ck;
    heliod_clock(h, &ck);
    uint64_t fr;
    heliod_voice_start_frame(h, 12, &fr);
    heliod_at_frame(h, 480000);
    heliod_play_params_init(&p);
    heliod_play(h, "boom", &p, &v, &st);
    heliod_stop(h, 12, 5.0f);
    memset(&s, 0, sizeof s);
    s.mask = HELIOD_SET_GAIN;
    s.gain_db = -12.0f;
    heliod_set(h, 12, &s);
    heliod_bus_gain(h, "music", -20.0f, 1000.0f);
    heliod_bus_mute(h, "sfx", 1, 0.0f);
    memset(&l, 0, sizeof l);
    l.mask = HELIOD_LIS_FWD;
    l.fwd[0] = 1.0f;
    heliod_set_listener(h, &l);
    heliod_at_frame(h, 0xffffffffffffull);
    heliod_play_async(h, "boom", &p, NULL, NULL);
    heliod_at_frame(h, 0);
    heliod_bundle_begin(h);
    heliod_play_async(h, "boom", &p, NULL, NULL);
    heliod_stop_async(h, 13, 0.0f);
    heliod_bundle_end(h, &n);
    heliod_sync(h);

    heliod_close(h);

    /* a control client's handshake */
    if (heliod_connect_flags(&h, sock, NULL, HELIOD_CONNECT_CONTROL) == 0) {
        heliod_stop_all(h, 0.0f, 1, &n);
        heliod_close(h);
    }
    return 0;
}
