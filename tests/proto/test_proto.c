/*
 * test_proto.c - cmocka tests of the wire codec: every message body and frame
 * round-trips exactly; every decoder rejects truncation at each byte offset,
 * trailing bytes, string limits +1, embedded NULs, unknown flag bits and bad
 * enum values; frame size fields at and around their limits; and the semantic
 * validators at the edges of each range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_decode.h"
#include "hl_proto.h"

static uint8_t buf[2 * HL_MAX_FRAME];

static void fill(char *dst, size_t n, char c) {
    memset(dst, c, n);
    dst[n] = '\0';
}

/* ---- sample messages: (op, as_reply) with a valid body ------------------- */

typedef struct {
    uint16_t op;
    int reply;
    size_t len;
} sample_t;

#define NSAMPLES 41

/* A cue using every field: name "c", 2 sounds "a" and "bb". */
static void sample_cue(hl_cue_t *m) {
    hl_cue_init(m);
    strcpy(m->name, "c");
    m->nsounds = 2;
    strcpy(m->sounds[0], "a");
    strcpy(m->sounds[1], "bb");
    m->pick = HL_PICK_SHUFFLE;
    m->flags = HL_CUE_MASK;
    m->gain_db = -3;
    m->gain_rand_db = 2;
    m->pitch = 1.25f;
    m->pitch_rand_cents = 50;
    strcpy(m->bus, "sfx");
    strcpy(m->category, "footsteps");
    m->priority = 10;
    m->pan = -0.5f;
    m->min_distance = 2;
    m->max_distance = 50;
    m->rolloff = 1.5f;
    m->model = HL_DIST_EXPONENTIAL;
    m->fade_in_ms = 5;
    m->fade_out_ms = 200;
    m->fade_curve = HL_CURVE_LOG;
    m->max_instances = 4;
    m->overflow = HL_OVERFLOW_FADE_OLDEST;
    m->min_interval_ms = 30;
    m->beyond = HL_BEYOND_CLAMP;
    m->virt = HL_VIRT_KILL;
    m->doppler = 0.5f;
}

/* Builds sample i into buf; returns its descriptor. */
/* A METER event with the master and the four default buses. */
static void sample_meter(hl_event_t *m) {
    memset(m, 0, sizeof *m);
    m->type = HL_EVENT_METER;
    m->meter.frame = 480000;
    m->meter.momentary = -23.0f;
    m->meter.short_term = -23.5f;
    m->meter.integrated = HL_METER_FLOOR_DB;
    m->meter.range = 4.5f;
    static const char *const names[] = {"sfx", "music", "dialog", "ui"};
    for (int c = 0; c < 2; c++) {
        m->meter.master.peak_db[c] = -6.0f;
        m->meter.master.peak_hold_db[c] = -3.0f;
        m->meter.master.rms_db[c] = -9.0f - (float)c;
    }
    m->meter.nbuses = 4;
    for (int b = 0; b < 4; b++) {
        strcpy(m->meter.bus[b].name, names[b]);
        for (int c = 0; c < 2; c++) {
            m->meter.bus[b].peak_db[c] = b ? HL_METER_FLOOR_DB : 12.5f; /* a bus may exceed 0 */
            m->meter.bus[b].peak_hold_db[c] = b ? HL_METER_FLOOR_DB : 13.0f;
            m->meter.bus[b].rms_db[c] = b ? HL_METER_FLOOR_DB : 9.5f;
        }
    }
}

/* Every bus a METER event can carry, the last with the longest name. */
static void full_meter(hl_event_t *m) {
    sample_meter(m);
    m->meter.nbuses = HL_METER_MAX_BUSES;
    for (int b = 0; b < HL_METER_MAX_BUSES; b++) {
        memset(m->meter.bus[b].name, 0, sizeof m->meter.bus[b].name);
        snprintf(m->meter.bus[b].name, sizeof m->meter.bus[b].name, "b%d", b);
        for (int c = 0; c < 2; c++) {
            m->meter.bus[b].peak_db[c] = HL_METER_MAX_DB - (float)b;
            m->meter.bus[b].peak_hold_db[c] = HL_METER_FLOOR_DB + (float)b;
            m->meter.bus[b].rms_db[c] = -20.0f;
        }
    }
    fill(m->meter.bus[HL_METER_MAX_BUSES - 1].name, HL_MAX_NAME, 'z');
}

/* Each sample's op; a reply has a reply head (status) and a list reply a
 * list head announcing `list` entries. */
static const struct {
    uint16_t op;
    uint8_t reply, list;
    int32_t status;
} k_samples[NSAMPLES] = {
    {.op = HL_OP_HELLO},
    {.op = HL_OP_PING},
    {.op = HL_OP_LOAD},
    {.op = HL_OP_UNLOAD},
    {.op = HL_OP_SOUNDS},
    {.op = HL_OP_PLAY},
    {.op = HL_OP_STOP},
    {.op = HL_OP_STOP_ALL},
    {.op = HL_OP_SET},
    {.op = HL_OP_LISTENER},
    {.op = HL_OP_VOICES},
    {.op = HL_OP_DEVICES},
    {.op = HL_OP_STATS},
    {.op = HL_OP_SUBSCRIBE},
    {.op = HL_OP_BUS},
    {.op = HL_OP_EVENT},
    {.op = HL_OP_EVENT},
    {.op = HL_OP_EVENT},
    {.op = HL_OP_HELLO, .reply = 1},
    {.op = HL_OP_PING, .reply = 1},
    {.op = HL_OP_LOAD, .reply = 1},
    {.op = HL_OP_SOUNDS, .reply = 1, .list = 2},
    {.op = HL_OP_PLAY, .reply = 1},
    {.op = HL_OP_STOP_ALL, .reply = 1},
    {.op = HL_OP_VOICES, .reply = 1, .list = 2},
    {.op = HL_OP_DEVICES, .reply = 1, .list = 2},
    {.op = HL_OP_STATS, .reply = 1, .list = 2},
    {.op = HL_OP_PAUSE},
    {.op = HL_OP_PAUSE, .reply = 1},
    {.op = HL_OP_CUE},
    {.op = HL_OP_CATEGORY},
    {.op = HL_OP_CUES},
    {.op = HL_OP_CUES_LOAD},
    {.op = HL_OP_EMITTER},
    {.op = HL_OP_PAUSE},
    {.op = HL_OP_EVENT},
    {.op = HL_OP_EVENT},
    {.op = HL_OP_CUES, .reply = 1, .list = 2},
    {.op = HL_OP_CUES_LOAD, .reply = 1},
    {.op = HL_OP_PLAY, .reply = 1, .list = 0, .status = HELIOD_ENOSOUND},
    {.op = HL_OP_EVENT},
};

/* An event (its other fields zero) into w. */
static void put_event(hl_wbuf_t *w, hl_event_t m) {
    hl_put_event(w, &m);
}

static sample_t build_sample(int i) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    sample_t s = {k_samples[i].op, k_samples[i].reply, 0};
    if (s.reply) {
        hl_reply_head_t h = {s.op, k_samples[i].status};
        hl_put_reply_head(&w, &h);
    }
    if (k_samples[i].list) {
        hl_list_head_t l = {k_samples[i].list, 0};
        hl_put_list_head(&w, &l);
    }
    switch (i) {
    case 0: {
        hl_hello_t m = {.version = 1};
        strcpy(m.client_name, "game");
        hl_put_hello(&w, &m);
        break;
    }
    case 2: {
        hl_load_t m = {.flags = HL_LOAD_STREAM};
        strcpy(m.name, "boom");
        strcpy(m.path, "/tmp/boom.wav");
        hl_put_load(&w, &m);
        break;
    }
    case 3: {
        hl_name_t m = {"boom"};
        hl_put_name(&w, &m);
        break;
    }
    case 5: {
        hl_play_t m = {.flags = HL_PLAY_3D | HL_PLAY_LOOP,
                       .gain_db = -6,
                       .pan = 0.5f,
                       .pos = {1, 2, 3},
                       .pitch = 1.5f,
                       .priority = -7,
                       .fade_in_ms = -1,
                       .min_distance = 1,
                       .max_distance = 40,
                       .rolloff = 2,
                       .model = 2};
        strcpy(m.sound, "boom");
        strcpy(m.bus, "music");
        hl_put_play(&w, &m);
        break;
    }
    case 6: {
        hl_stop_t m = {.voice = 0x100000003ull, .fade_ms = 25};
        hl_put_stop(&w, &m);
        break;
    }
    case 7: {
        hl_stop_all_t m = {.fade_ms = 5, .scope = HL_STOP_ALL_EVERYONE};
        hl_put_stop_all(&w, &m);
        break;
    }
    case 8: {
        hl_set_t m = {.voice = 9,
                      .mask = HL_SET_MASK,
                      .gain_db = -3,
                      .pan = -1,
                      .pos = {4, 5, 6},
                      .pitch = 0.25f,
                      .ramp_ms = 50};
        hl_put_set(&w, &m);
        break;
    }
    case 9: {
        hl_listener_t m = {.mask = HL_LIS_MASK,
                           .pos = {1, 1, 1},
                           .fwd = {0, 0, -1},
                           .up = {0, 1, 0},
                           .vel = {3, 0, 0}};
        hl_put_listener(&w, &m);
        break;
    }
    case 12: {
        hl_stats_req_t m = {HL_STATS_RESET};
        hl_put_stats_req(&w, &m);
        break;
    }
    case 13: {
        hl_subscribe_t m = {HL_SUB_MASK, 50.0f,
                            0.0f}; /* profile_hz: optional, test_profile_codec.c */
        hl_put_subscribe(&w, &m);
        break;
    }
    case 14: {
        hl_bus_t m = {.mask = HL_BUS_GAIN, .gain_db = -12, .ramp_ms = 100};
        strcpy(m.name, "sfx");
        hl_put_bus(&w, &m);
        break;
    }
    case 15:
        put_event(&w, (hl_event_t){.type = HL_EVENT_ERROR,
                                   .req_op = HL_OP_PLAY,
                                   .status = HELIOD_EBUSY,
                                   .message = "busy"});
        break;
    case 16:
        put_event(&w, (hl_event_t){.type = HL_EVENT_ENDED, .voice = 77, .reason = HL_END_STOLEN});
        break;
    case 17:
        put_event(&w, (hl_event_t){.type = HL_EVENT_STARTED, .voice = 78, .time_ns = 123456789});
        break;
    /* replies */
    case 18: {
        hl_hello_reply_t m = {
            .version = 1, .rate = 48000, .period = 256, .voices = 64, .client_id = 5};
        strcpy(m.server_version, "0.1.0");
        hl_put_hello_reply(&w, &m);
        break;
    }
    case 19: {
        hl_put_u64(&w, 42);
        break;
    }
    case 20: {
        hl_sound_info_t m = {.frames = 48000, .channels = 2, .source_rate = 44100};
        strcpy(m.name, "boom");
        hl_put_sound_info(&w, &m);
        break;
    }
    case 21: {
        hl_sound_info_t m = {.frames = 1, .channels = 1, .source_rate = 8000, .playing = 3};
        strcpy(m.name, "a");
        hl_put_sound_info(&w, &m);
        strcpy(m.name, "b");
        hl_put_sound_info(&w, &m);
        break;
    }
    case 22: {
        hl_play_reply_t m = {0x100000001ull, 0x200000002ull};
        hl_put_play_reply(&w, &m);
        break;
    }
    case 23: {
        hl_count_reply_t m = {12};
        hl_put_count_reply(&w, &m);
        break;
    }
    case 24: {
        hl_voice_info_t m = {.voice = 1,
                             .owner = 2,
                             .priority = 3,
                             .flags = HL_PLAY_LOOP,
                             .state = HL_VOICE_VIRTUAL,
                             .gain_db = -1,
                             .pan = 0.1f,
                             .pos = {1, 2, 3},
                             .pitch = 1};
        strcpy(m.sound, "x");
        strcpy(m.bus, "ui");
        hl_put_voice_info(&w, &m);
        hl_put_voice_info(&w, &m);
        break;
    }
    case 25: {
        hl_device_info_t m = {.index = 0,
                              .max_channels = 2,
                              .default_rate = 48000,
                              .flags = HL_DEV_DEFAULT | HL_DEV_CURRENT};
        strcpy(m.name, "pulse");
        strcpy(m.hostapi, "ALSA");
        hl_put_device_info(&w, &m);
        hl_put_device_info(&w, &m);
        break;
    }
    case 26: {
        hl_stat_t m = {"xruns", 3};
        hl_put_stat(&w, &m);
        hl_put_stat(&w, &m);
        break;
    }
    case 27: {
        hl_pause_t m = {.pause = 1, .scope = HL_PAUSE_EVERYONE};
        hl_put_pause(&w, &m);
        break;
    }
    case 28: {
        hl_count_reply_t m = {5};
        hl_put_count_reply(&w, &m);
        break;
    }
    case 29: {
        hl_cue_t m;
        sample_cue(&m);
        hl_put_cue(&w, &m);
        break;
    }
    case 30: {
        hl_category_t m;
        hl_category_init(&m);
        strcpy(m.name, "footsteps");
        m.max_instances = 8;
        m.overflow = HL_OVERFLOW_STEAL_QUIETEST;
        m.fade_curve = HL_CURVE_EQUAL_POWER;
        hl_put_category(&w, &m);
        break;
    }
    case 32: {
        hl_cues_load_t m;
        strcpy(m.path, "/srv/cues.ini");
        hl_put_cues_load(&w, &m);
        break;
    }
    case 33: {
        hl_emitter_t m = {.action = HL_EMITTER_SET,
                          .mask = HL_EM_POS | HL_EM_VEL,
                          .pos = {1, 2, 3},
                          .vel = {-4, 0, 5},
                          .ramp_ms = 50,
                          .fade_ms = -1};
        strcpy(m.name, "car1");
        hl_put_emitter(&w, &m);
        break;
    }
    case 34: {
        hl_pause_t m = {.pause = 1, .scope = HL_PAUSE_CATEGORY};
        strcpy(m.group, "footsteps");
        hl_put_pause(&w, &m);
        break;
    }
    case 35:
        put_event(&w, (hl_event_t){
                          .type = HL_EVENT_VIRTUAL, .voice = 79, .reason = HL_VIRT_WHY_DISTANCE});
        break;
    case 36: put_event(&w, (hl_event_t){.type = HL_EVENT_REAL, .voice = 79}); break;
    case 37: {
        hl_cue_info_t m;
        memset(&m, 0, sizeof m);
        m.kind = HL_CUES_KIND_CUE;
        sample_cue(&m.cue);
        m.n.plays = 10;
        m.n.refused_interval = 2;
        m.n.virtualised = 3;
        m.n.active = 4;
        m.n.virtual_now = 1;
        hl_put_cue_info(&w, &m);
        memset(&m, 0, sizeof m);
        m.kind = HL_CUES_KIND_CATEGORY;
        hl_category_init(&m.cat);
        strcpy(m.cat.name, "cat");
        m.n.evicted_cat = 5;
        hl_put_cue_info(&w, &m);
        break;
    }
    case 38: {
        hl_cues_load_reply_t m = {12, 3};
        hl_put_cues_load_reply(&w, &m);
        break;
    }
    case 39: hl_put_str(&w, "no such sound: boom", HL_MAX_MSG); break;
    case 40: {
        hl_event_t m;
        sample_meter(&m);
        hl_put_event(&w, &m);
        break;
    }
    default: break; /* no body */
    }
    assert_int_equal(w.err, 0);
    s.len = w.len;
    return s;
}

/* ---- round trips --------------------------------------------------------- */

static void fill_sounds(hl_cue_t *c) {
    for (int i = 0; i < HL_MAX_CUE_SOUNDS; i++)
        fill(c->sounds[i], HL_MAX_NAME, (char)('a' + i));
}

#define ROUNDTRIP(type, put, get, init)                                                            \
    do {                                                                                           \
        type a_, b_;                                                                               \
        memset(&a_, 0, sizeof a_);                                                                 \
        memset(&b_, 0x5a, sizeof b_);                                                              \
        init;                                                                                      \
        hl_wbuf_t w_;                                                                              \
        hl_wbuf_init(&w_, buf, sizeof buf);                                                        \
        put(&w_, &a_);                                                                             \
        assert_int_equal(w_.err, 0);                                                               \
        hl_rbuf_t r_;                                                                              \
        hl_rbuf_init(&r_, buf, w_.len);                                                            \
        memset(&b_, 0, sizeof b_);                                                                 \
        get(&r_, &b_);                                                                             \
        assert_int_equal(hl_rbuf_finish(&r_), 0);                                                  \
        assert_memory_equal(&a_, &b_, sizeof a_);                                                  \
    } while (0)

static void test_roundtrip_structs(void **state) {
    (void)state;
    ROUNDTRIP(hl_reply_head_t, hl_put_reply_head, hl_get_reply_head,
              (a_.req_op = 6, a_.status = HELIOD_EBUSY));
    ROUNDTRIP(hl_hello_t, hl_put_hello, hl_get_hello,
              (a_.version = 1, fill(a_.client_name, HL_MAX_NAME, 'c')));
    ROUNDTRIP(hl_hello_reply_t, hl_put_hello_reply, hl_get_hello_reply,
              (a_.version = 1, a_.rate = 48000, a_.period = 512, a_.voices = 4096,
               a_.client_id = 0xFFFFFFFFu, fill(a_.server_version, HL_MAX_NAME, 'v')));
    ROUNDTRIP(hl_load_t, hl_put_load, hl_get_load,
              (fill(a_.name, HL_MAX_NAME, 'n'), fill(a_.path, HL_MAX_PATH, 'p'),
               a_.flags = HL_LOAD_STREAM));
    ROUNDTRIP(hl_sound_info_t, hl_put_sound_info, hl_get_sound_info,
              (strcpy(a_.name, "s"), a_.frames = 1u << 31, a_.channels = 2, a_.source_rate = 96000,
               a_.flags = 1, a_.playing = 9));
    ROUNDTRIP(hl_name_t, hl_put_name, hl_get_name, strcpy(a_.name, "a.b-c_d"));
    ROUNDTRIP(hl_play_t, hl_put_play, hl_get_play,
              (strcpy(a_.sound, "boom"), a_.flags = HL_PLAY_MASK, a_.gain_db = -96.5f,
               a_.pan = -0.25f, a_.pos[0] = 1e6f, a_.pos[1] = -1e6f, a_.pos[2] = 0.125f,
               a_.pitch = 4, a_.priority = -1000, a_.fade_in_ms = 60000, a_.min_distance = 0.5f,
               a_.max_distance = 1000, a_.rolloff = 0, a_.model = HL_DIST_LINEAR,
               strcpy(a_.bus, "dialog"), a_.loop_start = 7, a_.loop_end = UINT32_MAX,
               a_.loop_count = 3, a_.loop_xfade_ms = 12.5f));
    ROUNDTRIP(hl_pause_t, hl_put_pause, hl_get_pause, (a_.pause = 1, a_.scope = 1));
    ROUNDTRIP(hl_play_reply_t, hl_put_play_reply, hl_get_play_reply,
              (a_.voice = UINT64_MAX, a_.stolen = 1));
    ROUNDTRIP(hl_stop_t, hl_put_stop, hl_get_stop, (a_.voice = 5, a_.fade_ms = -1));
    ROUNDTRIP(hl_stop_all_t, hl_put_stop_all, hl_get_stop_all, (a_.fade_ms = 3, a_.scope = 1));
    ROUNDTRIP(hl_count_reply_t, hl_put_count_reply, hl_get_count_reply, a_.count = 77);
    ROUNDTRIP(hl_set_t, hl_put_set, hl_get_set,
              (a_.voice = 3, a_.mask = HL_SET_PAN | HL_SET_POS, a_.pan = 1, a_.pos[2] = -4,
               a_.pitch = 2, a_.ramp_ms = 0));
    ROUNDTRIP(hl_set_t, hl_put_set, hl_get_set,
              (a_.voice = 4, a_.mask = HL_SET_SEEK | HL_SET_PAUSE, a_.seek_s = 123.456789,
               a_.ramp_ms = 20));
    ROUNDTRIP(hl_listener_t, hl_put_listener, hl_get_listener,
              (a_.mask = HL_LIS_MASK, a_.pos[0] = 1, a_.fwd[2] = -1, a_.up[1] = 1, a_.vel[0] = 2));
    ROUNDTRIP(hl_voice_info_t, hl_put_voice_info, hl_get_voice_info,
              (a_.voice = 8, strcpy(a_.sound, "q"), a_.owner = 4, a_.priority = 1000,
               a_.flags = HL_PLAY_DETACHED, a_.state = HL_VOICE_STOPPING, a_.gain_db = 3,
               a_.pitch = 1, strcpy(a_.bus, "sfx")));
    ROUNDTRIP(hl_device_info_t, hl_put_device_info, hl_get_device_info,
              (a_.index = 3, fill(a_.name, HL_MAX_DEVNAME, 'd'), strcpy(a_.hostapi, "JACK"),
               a_.max_channels = 64, a_.default_rate = 44100.0, a_.flags = HL_DEV_CURRENT));
    ROUNDTRIP(hl_stats_req_t, hl_put_stats_req, hl_get_stats_req, a_.flags = HL_STATS_RESET);
    ROUNDTRIP(hl_stat_t, hl_put_stat, hl_get_stat,
              (strcpy(a_.key, "bus.sfx.peak_db"), a_.value = -30.2));
    ROUNDTRIP(hl_subscribe_t, hl_put_subscribe, hl_get_subscribe, a_.mask = HL_SUB_ENDED);
    ROUNDTRIP(hl_subscribe_t, hl_put_subscribe, hl_get_subscribe,
              (a_.mask = HL_SUB_METER | HL_SUB_ENDED, a_.meter_hz = 37.5f));
    ROUNDTRIP(hl_event_t, hl_put_event, hl_get_event, sample_meter(&a_));
    ROUNDTRIP(hl_event_t, hl_put_event, hl_get_event, full_meter(&a_));
    ROUNDTRIP(hl_bus_t, hl_put_bus, hl_get_bus,
              (strcpy(a_.name, "master"), a_.mask = HL_BUS_GAIN, a_.gain_db = -6, a_.ramp_ms = 20));
    ROUNDTRIP(hl_list_head_t, hl_put_list_head, hl_get_list_head,
              (a_.count = HL_MAX_LIST, a_.truncated = 1));
    ROUNDTRIP(hl_event_t, hl_put_event, hl_get_event,
              (a_.type = HL_EVENT_ERROR, a_.req_op = HL_OP_SET, a_.status = HELIOD_ENOVOICE,
               fill(a_.message, HL_MAX_MSG, 'm')));
    ROUNDTRIP(hl_event_t, hl_put_event, hl_get_event,
              (a_.type = HL_EVENT_ENDED, a_.voice = 99, a_.reason = HL_END_SHUTDOWN));
    ROUNDTRIP(hl_event_t, hl_put_event, hl_get_event,
              (a_.type = HL_EVENT_STARTED, a_.voice = 99, a_.time_ns = UINT64_MAX));
}

static void test_roundtrip_voice_mgmt(void **state) {
    (void)state;
    ROUNDTRIP(hl_play_t, hl_put_play, hl_get_play,
              (strcpy(a_.sound, "step"), a_.pitch = 1, a_.vel[0] = -343, a_.vel[2] = 1e6f,
               fill(a_.emitter, HL_MAX_NAME, 'e'), a_.over = HL_OVER_MASK));
    ROUNDTRIP(hl_set_t, hl_put_set, hl_get_set,
              (a_.voice = 4, a_.mask = HL_SET_VEL, a_.vel[0] = 1, a_.vel[1] = -2, a_.vel[2] = 3));
    ROUNDTRIP(hl_pause_t, hl_put_pause, hl_get_pause,
              (a_.pause = 0, a_.scope = HL_PAUSE_BUS, fill(a_.group, HL_MAX_NAME, 'g')));
    ROUNDTRIP(hl_voice_info_t, hl_put_voice_info, hl_get_voice_info,
              (a_.voice = 8, strcpy(a_.sound, "q"), a_.state = HL_VOICE_VPAUSED, a_.pitch = 1,
               strcpy(a_.bus, "sfx"), fill(a_.cue, HL_MAX_NAME, 'c'), strcpy(a_.category, "cat"),
               strcpy(a_.emitter, "em"), a_.audibility_db = -42.5f, a_.position_s = 1234.5));
    ROUNDTRIP(hl_event_t, hl_put_event, hl_get_event,
              (a_.type = HL_EVENT_VIRTUAL, a_.voice = 7, a_.reason = HL_VIRT_WHY_PAUSED));
    ROUNDTRIP(hl_event_t, hl_put_event, hl_get_event, (a_.type = HL_EVENT_REAL, a_.voice = 7));
    ROUNDTRIP(hl_event_t, hl_put_event, hl_get_event,
              (a_.type = HL_EVENT_ENDED, a_.voice = 9, a_.reason = HL_END_KILLED));
    ROUNDTRIP(hl_cue_t, hl_put_cue, hl_get_cue, sample_cue(&a_));
    ROUNDTRIP(hl_cue_t, hl_put_cue, hl_get_cue,
              (sample_cue(&a_), a_.nsounds = HL_MAX_CUE_SOUNDS, fill_sounds(&a_),
               a_.max_instances = 65536, a_.priority = -1000, a_.doppler = 10));
    ROUNDTRIP(hl_category_t, hl_put_category, hl_get_category,
              (hl_category_init(&a_), fill(a_.name, HL_MAX_NAME, 'k'), a_.max_instances = 3,
               a_.overflow = HL_OVERFLOW_STEAL_FARTHEST, a_.fade_out_ms = 60000,
               a_.fade_curve = HL_CURVE_LOG));
    ROUNDTRIP(hl_cue_info_t, hl_put_cue_info, hl_get_cue_info,
              (a_.kind = HL_CUES_KIND_CUE, sample_cue(&a_.cue), a_.n.plays = UINT64_MAX,
               a_.n.refused_interval = 1, a_.n.refused_distance = 2, a_.n.refused_cue_limit = 3,
               a_.n.refused_cat_limit = 4, a_.n.refused_no_voice = 5, a_.n.evicted_cue = 6,
               a_.n.evicted_cat = 7, a_.n.stolen = 8, a_.n.virtualised = 9, a_.n.active = 10,
               a_.n.virtual_now = UINT32_MAX));
    ROUNDTRIP(hl_cue_info_t, hl_put_cue_info, hl_get_cue_info,
              (a_.kind = HL_CUES_KIND_CATEGORY, hl_category_init(&a_.cat), strcpy(a_.cat.name, "x"),
               a_.n.evicted_cat = 1));
    ROUNDTRIP(hl_cues_load_t, hl_put_cues_load, hl_get_cues_load, fill(a_.path, HL_MAX_PATH, 'p'));
    ROUNDTRIP(hl_cues_load_reply_t, hl_put_cues_load_reply, hl_get_cues_load_reply,
              (a_.cues = 100, a_.categories = 7));
    ROUNDTRIP(hl_emitter_t, hl_put_emitter, hl_get_emitter,
              (a_.action = HL_EMITTER_DESTROY, strcpy(a_.name, "car"), a_.mask = HL_EM_MASK,
               a_.pos[0] = 1, a_.vel[2] = -1, a_.ramp_ms = 3, a_.fade_ms = -1));
}

static void test_emitter_reply(void **state) {
    (void)state;
    /* EMITTER replies: empty (create, set) or a count (destroy) */
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_reply_head_t h = {HL_OP_EMITTER, 0};
    hl_put_reply_head(&w, &h);
    assert_int_equal(hl_fuzz_body(HL_OP_EMITTER, 1, buf, w.len), 0);
    hl_count_reply_t c = {3};
    hl_put_count_reply(&w, &c);
    assert_int_equal(hl_fuzz_body(HL_OP_EMITTER, 1, buf, w.len), 0);
    for (size_t cut = w.len - 3; cut < w.len; cut++)
        assert_int_equal(hl_fuzz_body(HL_OP_EMITTER, 1, buf, cut), HELIOD_EPROTO);
    buf[w.len] = 0;
    assert_int_equal(hl_fuzz_body(HL_OP_EMITTER, 1, buf, w.len + 1), HELIOD_EPROTO);
    /* CUE and CATEGORY replies are empty */
    hl_wbuf_init(&w, buf, sizeof buf);
    h.req_op = HL_OP_CUE;
    hl_put_reply_head(&w, &h);
    assert_int_equal(hl_fuzz_body(HL_OP_CUE, 1, buf, w.len), 0);
    buf[w.len] = 0;
    assert_int_equal(hl_fuzz_body(HL_OP_CUE, 1, buf, w.len + 1), HELIOD_EPROTO);
}

static void test_roundtrip_samples(void **state) {
    (void)state;
    for (int i = 0; i < NSAMPLES; i++) {
        sample_t s = build_sample(i);
        assert_int_equal(hl_fuzz_body(s.op, s.reply, buf, s.len), 0);
    }
}

static void test_scalars(void **state) {
    (void)state;
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_u8(&w, 0xAB);
    hl_put_u16(&w, 0x1234);
    hl_put_u32(&w, 0xDEADBEEFu);
    hl_put_i32(&w, -5);
    hl_put_u64(&w, 0x0102030405060708ull);
    hl_put_f32(&w, -0.0f);
    hl_put_f64(&w, 1.0 / 3.0);
    assert_int_equal(w.err, 0);
    assert_int_equal(w.len, 1 + 2 + 4 + 4 + 8 + 4 + 8);
    /* little-endian on the wire */
    assert_int_equal(buf[1], 0x34);
    assert_int_equal(buf[2], 0x12);
    assert_int_equal(buf[11], 0x08);
    hl_rbuf_t r;
    hl_rbuf_init(&r, buf, w.len);
    assert_int_equal(hl_get_u8(&r), 0xAB);
    assert_int_equal(hl_get_u16(&r), 0x1234);
    assert_int_equal(hl_get_u32(&r), 0xDEADBEEFu);
    assert_int_equal(hl_get_i32(&r), -5);
    assert_true(hl_get_u64(&r) == 0x0102030405060708ull);
    float z = hl_get_f32(&r);
    assert_true(z == 0.0f && signbit(z));
    assert_true(hl_get_f64(&r) == 1.0 / 3.0);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    /* reading past the end is sticky and returns zeros */
    assert_int_equal(hl_get_u32(&r), 0);
    assert_int_equal(r.err, HELIOD_EPROTO);
    assert_int_equal(hl_rbuf_finish(&r), HELIOD_EPROTO);
    /* a full writer is sticky too */
    uint8_t small[3];
    hl_wbuf_init(&w, small, sizeof small);
    hl_put_u16(&w, 1);
    hl_put_u16(&w, 2);
    assert_int_equal(w.err, HELIOD_ETOOBIG);
    assert_int_equal(w.len, 2);
    hl_put_u8(&w, 3);
    assert_int_equal(w.len, 2);
}

/* ---- frames -------------------------------------------------------------- */

static void test_frames(void **state) {
    (void)state;
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_PING, 0, 7);
    assert_int_equal(hl_frame_end(&w), HL_FRAME_HDR);
    hl_frame_begin(&w, HL_OP_UNLOAD, HL_FLAG_NOREPLY, 0xFFFFFFFFu);
    hl_name_t n = {"abc"};
    hl_put_name(&w, &n);
    assert_int_equal(hl_frame_end(&w), HL_FRAME_HDR + 2 + 3);
    /* two frames batched in one buffer */
    hl_frame_hdr_t h;
    assert_int_equal(hl_frame_peek(buf, w.len, &h), 0);
    assert_int_equal(h.size, HL_FRAME_HDR);
    assert_int_equal(h.op, HL_OP_PING);
    assert_int_equal(h.flags, 0);
    assert_int_equal(h.id, 7);
    assert_int_equal(hl_frame_peek(buf + h.size, w.len - h.size, &h), 0);
    assert_int_equal(h.size, 17);
    assert_int_equal(h.op, HL_OP_UNLOAD);
    assert_int_equal(h.flags, HL_FLAG_NOREPLY);
    assert_true(h.id == 0xFFFFFFFFu);
    /* fewer than a header available: "need more" at every short length */
    for (size_t a = 0; a < HL_FRAME_HDR; a++)
        assert_int_equal(hl_frame_peek(buf, a, &h), 1);
    /* a frame body that would exceed HL_MAX_FRAME cannot be ended */
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_PING, 0, 1);
    for (size_t i = 0; i < HL_MAX_FRAME - HL_FRAME_HDR; i++)
        hl_put_u8(&w, 0);
    assert_int_equal(hl_frame_end(&w), HL_MAX_FRAME);
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_PING, 0, 1);
    for (size_t i = 0; i < HL_MAX_FRAME - HL_FRAME_HDR + 1; i++)
        hl_put_u8(&w, 0);
    assert_int_equal(hl_frame_end(&w), HELIOD_ETOOBIG);
}

static void put_hdr(uint8_t *p, uint32_t size, uint16_t op, uint16_t flags, uint32_t id) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, p, HL_FRAME_HDR);
    hl_put_u32(&w, size);
    hl_put_u16(&w, op);
    hl_put_u16(&w, flags);
    hl_put_u32(&w, id);
}

static void test_frame_size_field(void **state) {
    (void)state;
    static const struct {
        uint32_t size;
        int rc;
    } t[] = {
        {0, HELIOD_EPROTO},
        {11, HELIOD_EPROTO},
        {12, 0},
        {HL_MAX_FRAME - 1, 0},
        {HL_MAX_FRAME, 0},
        {HL_MAX_FRAME + 1, HELIOD_ETOOBIG},
        {0x80000000u, HELIOD_ETOOBIG},
        {0xFFFFFFFFu, HELIOD_ETOOBIG},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t hdr[HL_FRAME_HDR];
        hl_frame_hdr_t h;
        put_hdr(hdr, t[i].size, HL_OP_PING, 0, 1);
        assert_int_equal(hl_frame_peek(hdr, sizeof hdr, &h), t[i].rc);
        if (t[i].rc == 0) assert_int_equal(h.size, t[i].size);
    }
}

static void test_frame_flags(void **state) {
    (void)state;
    for (unsigned bit = 0; bit < 16; bit++) {
        uint8_t hdr[HL_FRAME_HDR];
        hl_frame_hdr_t h;
        uint16_t flags = (uint16_t)(1u << bit);
        put_hdr(hdr, HL_FRAME_HDR, HL_OP_PING, flags, 1);
        int expect = (flags & HL_FLAG_MASK) ? 0 : HELIOD_EPROTO;
        assert_int_equal(hl_frame_peek(hdr, sizeof hdr, &h), expect);
    }
}

/* ---- rejection ----------------------------------------------------------- */

static void test_truncated_every_offset(void **state) {
    (void)state;
    static uint8_t copy[2 * HL_MAX_FRAME];
    for (int i = 0; i < NSAMPLES; i++) {
        sample_t s = build_sample(i);
        memcpy(copy, buf, s.len);
        for (size_t cut = 0; cut < s.len; cut++) {
            if (hl_fuzz_body(s.op, s.reply, copy, cut) == 0)
                fail_msg("sample %d (op %u) decoded when cut to %zu of %zu bytes", i, s.op, cut,
                         s.len);
        }
        /* and one trailing byte */
        copy[s.len] = 0;
        assert_int_equal(hl_fuzz_body(s.op, s.reply, copy, s.len + 1), HELIOD_EPROTO);
        assert_int_equal(hl_fuzz_body(s.op, s.reply, copy, s.len), 0);
    }
}

/* Encodes a string of n bytes with a raw length prefix, bypassing put_str. */
static size_t raw_str(uint8_t *p, size_t n, char c) {
    p[0] = (uint8_t)n;
    p[1] = (uint8_t)(n >> 8);
    memset(p + 2, c, n);
    return n + 2;
}

static void test_string_limits(void **state) {
    (void)state;
    static const size_t maxes[] = {HL_MAX_NAME, HL_MAX_PATH, HL_MAX_MSG, HL_MAX_DEVNAME};
    static char s[HL_MAX_PATH + 2];
    static char dst[HL_MAX_PATH + 1];
    for (size_t k = 0; k < sizeof maxes / sizeof maxes[0]; k++) {
        size_t max = maxes[k];
        for (size_t n = max - 1; n <= max + 1; n++) {
            hl_wbuf_t w;
            hl_wbuf_init(&w, buf, sizeof buf);
            fill(s, n, 'x');
            hl_put_str(&w, s, max);
            assert_int_equal(w.err, n <= max ? 0 : HELIOD_ETOOBIG);
            /* decode a raw string of n bytes into a max+1 buffer */
            size_t len = raw_str(buf, n, 'y');
            hl_rbuf_t r;
            hl_rbuf_init(&r, buf, len);
            hl_get_str(&r, dst, max + 1);
            assert_int_equal(hl_rbuf_finish(&r), n <= max ? 0 : HELIOD_EPROTO);
            if (n <= max)
                assert_int_equal(strlen(dst), n);
            else
                assert_int_equal(dst[0], '\0');
        }
    }
    /* empty string round-trips */
    hl_rbuf_t r;
    size_t len = raw_str(buf, 0, 'z');
    hl_rbuf_init(&r, buf, len);
    hl_get_str(&r, dst, 8);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_string_equal(dst, "");
    /* a declared length beyond the data */
    buf[0] = 0xFF;
    buf[1] = 0xFF;
    hl_rbuf_init(&r, buf, 10);
    hl_get_str(&r, dst, sizeof dst);
    assert_int_equal(hl_rbuf_finish(&r), HELIOD_EPROTO);

    /* every string field of every message at its limit and one over */
    static const struct {
        uint16_t op;
        int reply;
        size_t max;
    } fields[] = {
        {HL_OP_HELLO, 0, HL_MAX_NAME},
        {HL_OP_UNLOAD, 0, HL_MAX_NAME},
        {HL_OP_LOAD, 0, HL_MAX_NAME},
    };
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        for (size_t n = fields[f].max; n <= fields[f].max + 1; n++) {
            size_t off = 0;
            if (fields[f].op == HL_OP_HELLO) {
                buf[0] = 1;
                buf[1] = 0;
                off = 2;
            }
            off += raw_str(buf + off, n, 'a');
            if (fields[f].op == HL_OP_HELLO) { /* flags */
                memset(buf + off, 0, 4);
                off += 4;
            }
            if (fields[f].op == HL_OP_LOAD) {
                off += raw_str(buf + off, 1, '/');
                memset(buf + off, 0, 4);
                off += 4;
            }
            int rc = hl_fuzz_body(fields[f].op, fields[f].reply, buf, off);
            assert_int_equal(rc, n <= fields[f].max ? 0 : HELIOD_EPROTO);
        }
    }
    /* load path at HL_MAX_PATH and one over */
    for (size_t n = HL_MAX_PATH; n <= HL_MAX_PATH + 1; n++) {
        size_t off = raw_str(buf, 1, 'a');
        off += raw_str(buf + off, n, 'p');
        memset(buf + off, 0, 4);
        off += 4;
        assert_int_equal(hl_fuzz_body(HL_OP_LOAD, 0, buf, off),
                         n <= HL_MAX_PATH ? 0 : HELIOD_EPROTO);
    }
}

static void test_embedded_nul(void **state) {
    (void)state;
    char dst[16];
    size_t len = raw_str(buf, 5, 'a');
    buf[4] = '\0';
    hl_rbuf_t r;
    hl_rbuf_init(&r, buf, len);
    hl_get_str(&r, dst, sizeof dst);
    assert_int_equal(hl_rbuf_finish(&r), HELIOD_EPROTO);
    /* as an UNLOAD body */
    assert_int_equal(hl_fuzz_body(HL_OP_UNLOAD, 0, buf, len), HELIOD_EPROTO);
    buf[4] = 'a';
    assert_int_equal(hl_fuzz_body(HL_OP_UNLOAD, 0, buf, len), 0);
}

/* Patches a u32/u8 field in a sample and expects rejection. */
static void expect_bad(int sample, size_t off, size_t width, uint32_t value) {
    sample_t s = build_sample(sample);
    for (size_t i = 0; i < width; i++)
        buf[off + i] = (uint8_t)(value >> (8 * i));
    if (hl_fuzz_body(s.op, s.reply, buf, s.len) != HELIOD_EPROTO)
        fail_msg("sample %d: value 0x%x at offset %zu accepted", sample, value, off);
}

/* Time: the CLOCK reply's exact layout, its truncations and trailing bytes,
 * the AT header flag accepted and the next bit refused, the op table. */
static void test_time_codec(void **state) {
    (void)state;
    uint8_t buf[128];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_clock_t k = {.frame = 0x0102030405060708ull,
                    .time_ns = 0x1112131415161718ull,
                    .rate = 48000,
                    .period = 256,
                    .output_latency_ns = 5333333};
    hl_put_clock(&w, &k);
    assert_int_equal(w.len, 8 + 8 + 4 + 4 + 8);
    assert_int_equal(buf[0], 0x08); /* little-endian */
    assert_int_equal(buf[7], 0x01);
    hl_rbuf_t r;
    hl_clock_t back;
    hl_rbuf_init(&r, buf, w.len);
    hl_get_clock(&r, &back);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    assert_memory_equal(&back, &k, sizeof k);
    for (size_t n = 0; n < w.len; n++) { /* every truncation */
        hl_rbuf_init(&r, buf, n);
        hl_get_clock(&r, &back);
        assert_int_equal(hl_rbuf_finish(&r), HELIOD_EPROTO);
    }
    buf[w.len] = 0;
    hl_rbuf_init(&r, buf, w.len + 1); /* a trailing byte */
    hl_get_clock(&r, &back);
    assert_int_equal(hl_rbuf_finish(&r), HELIOD_EPROTO);
    /* header flags: NOREPLY | AT pass, the next bit does not */
    hl_frame_hdr_t h;
    for (uint16_t fl = 0; fl <= 8; fl++) {
        hl_wbuf_init(&w, buf, sizeof buf);
        hl_frame_begin(&w, HL_OP_PLAY, fl, 7);
        hl_put_u64(&w, 12345);
        assert_true(hl_frame_end(&w) > 0);
        assert_int_equal(hl_frame_peek(buf, w.len, &h), fl <= 3 ? 0 : HELIOD_EPROTO);
    }
    assert_int_equal(HL_FLAG_AT, 0x0002);
    assert_int_equal(HL_FLAG_MASK, 0x0003);
    static const uint16_t sched[] = {HL_OP_PLAY,     HL_OP_STOP,  HL_OP_SET,      HL_OP_BUS,
                                     HL_OP_LISTENER, HL_OP_PARAM, HL_OP_SNAPSHOT, HL_OP_MUSIC};
    int n_sched = 0;
    for (uint32_t op = 0; op < 256; op++)
        n_sched += hl_op_schedulable((uint16_t)op);
    assert_int_equal(n_sched, 8);
    for (size_t i = 0; i < sizeof sched / sizeof sched[0]; i++)
        assert_true(hl_op_schedulable(sched[i]));
    assert_string_equal(hl_op_name(HL_OP_CLOCK), "clock");
    assert_string_equal(hl_op_name(HL_OP_BUNDLE_BEGIN), "bundle-begin");
    assert_string_equal(hl_op_name(HL_OP_BUNDLE_END), "bundle-end");
    assert_true(HL_OP_CLOCK >= 40 && HL_OP_BUNDLE_END < HL_OP_REPLY);
}

static void test_flags_and_enums(void **state) {
    (void)state;
    /* LOAD: name "boom" (6) path "/tmp/boom.wav" (15) flags */
    expect_bad(2, 21, 4, 0x10);
    expect_bad(2, 21, 4, 0x80000000u);
    /* PLAY: sound (6) flags at 6 */
    expect_bad(5, 6, 4, 0x20);
    /* PLAY model byte at 6+4+4+4+12+4+4+4+12 = 54 */
    expect_bad(5, 54, 1, 3);
    expect_bad(5, 54, 1, 0xFF);
    /* STOP_ALL scope at 4 */
    expect_bad(7, 4, 1, 2);
    /* SET mask at 8 */
    expect_bad(8, 8, 4, HL_SET_MASK + 1);
    /* PAUSE: pause byte 2, scope byte 2 */
    expect_bad(27, 0, 1, 2);
    expect_bad(27, 1, 1, 4);
    /* LISTENER mask at 0 */
    expect_bad(9, 0, 4, 0x10);
    /* STATS flags */
    expect_bad(12, 0, 4, 0x2);
    /* SUBSCRIBE mask */
    expect_bad(13, 0, 4, 0x800); /* 0x200 STREAM, 0x400 MUSIC (1.1) */
    /* BUS: name "sfx" (5) mask */
    expect_bad(14, 5, 4, 0x40);
    /* EVENT type 0 and 6, ENDED reason 9 (type 2 + voice 8) */
    expect_bad(16, 0, 2, 0);
    expect_bad(16, 0, 2, 6);
    expect_bad(16, 10, 1, HL_END_LIFETIME + 1);
    /* VIRTUAL reason 5 */
    expect_bad(35, 10, 1, HL_VIRT_WHY_GOVERNED + 1);
    /* EVENT ERROR with a non-negative or unknown status */
    expect_bad(15, 4, 4, 0);
    expect_bad(15, 4, 4, (uint32_t)(HELIOD_ERR_MIN - 1));
    /* reply status > 0 or below the table */
    expect_bad(22, 2, 4, 1);
    expect_bad(22, 2, 4, (uint32_t)(HELIOD_ERR_MIN - 1));
    /* list head: truncated byte 2, count HL_MAX_LIST + 1 */
    expect_bad(21, 8, 1, 2);
    expect_bad(21, 6, 2, HL_MAX_LIST + 1);
    /* list count larger than the entries present */
    expect_bad(21, 6, 2, 3);
    /* voice info state 5: voice 8 + sound "x" 3 + owner 4 + prio 4 + flags 4 = 23, after
     * reply head (6) and list head (3) */
    expect_bad(24, 6 + 3 + 23, 1, HL_VOICE_VPAUSED + 1);
    /* device flags 4: after index 4, name 7, hostapi 6, channels 2, rate 8 = 27 */
    expect_bad(25, 6 + 3 + 27, 1, 4);
}

static void test_garbage(void **state) {
    (void)state;
    uint32_t x = 12345;
    unsigned accepted = 0;
    for (int it = 0; it < 2000; it++) {
        size_t len = (size_t)(it % 97);
        for (size_t i = 0; i < len; i++) {
            x = x * 1664525u + 1013904223u;
            buf[i] = (uint8_t)(x >> 24);
        }
        LLVMFuzzerTestOneInput(buf, len);
        accepted += hl_fuzz_body(HL_OP_PLAY, 0, buf, len) == 0;
    }
    /* random bytes essentially never form a valid PLAY body */
    assert_true(accepted < 5);
}

/* ---- names, errors, validation ------------------------------------------- */

static void test_names_and_errors(void **state) {
    (void)state;
    char s[HL_MAX_NAME + 2];
    fill(s, HL_MAX_NAME - 1, 'a');
    assert_true(hl_name_valid(s));
    fill(s, HL_MAX_NAME, 'a');
    assert_true(hl_name_valid(s));
    fill(s, HL_MAX_NAME + 1, 'a');
    assert_false(hl_name_valid(s));
    assert_false(hl_name_valid(""));
    assert_false(hl_name_valid(NULL));
    assert_false(hl_name_valid("a b"));
    assert_false(hl_name_valid("a/b"));
    assert_false(hl_name_valid("\xc3\xa9"));
    assert_true(hl_name_valid("Az09_.-"));

    assert_string_equal(hl_op_name(HL_OP_PLAY), "play");
    assert_string_equal(hl_op_name(HL_OP_STOP_ALL), "stop-all");
    assert_null(hl_op_name(0));
    assert_string_equal(hl_op_name(HL_OP_PAUSE), "pause");
    assert_null(hl_op_name(HL_OP_LOAD_FD + 1));
    assert_string_equal(hl_op_name(HL_OP_CUE), "cue");
    assert_string_equal(hl_op_name(HL_OP_CUES_LOAD), "cues-load");
    assert_string_equal(hl_op_name(HL_OP_EMITTER), "emitter");
    assert_string_equal(hl_errname(HELIOD_ENOEMITTER), "ENOEMITTER");
    assert_string_equal(hl_errname(HELIOD_EBUSY), "EBUSY");
    assert_string_equal(hl_errname(HELIOD_OK), "OK");
    assert_string_equal(hl_strerror(HELIOD_ENOVOICE), "no such voice");
    for (int e = 0; e >= HELIOD_ERR_MIN; e--) {
        assert_string_not_equal(hl_strerror(e), "unknown error");
        assert_string_not_equal(hl_errname(e), "EUNKNOWN");
    }
    assert_string_equal(hl_strerror(HELIOD_ERR_MIN - 1), "unknown error");
    assert_string_equal(hl_strerror(1), "unknown error");
}

static hl_play_t good_play(void) {
    hl_play_t m;
    memset(&m, 0, sizeof m);
    strcpy(m.sound, "boom");
    m.pitch = 1;
    m.fade_in_ms = -1;
    m.min_distance = 1;
    m.max_distance = 100;
    m.rolloff = 1;
    m.model = HL_DIST_INVERSE;
    return m;
}

#define PLAY_CASE(field, value, ok)                                                                \
    do {                                                                                           \
        hl_play_t m_ = good_play();                                                                \
        m_.field = value;                                                                          \
        const char *why_ = NULL;                                                                   \
        int rc_ = hl_validate_play(&m_, &why_);                                                    \
        if ((ok) ? rc_ != 0 : rc_ != HELIOD_EINVAL)                                                \
            fail_msg("play %s = %g: got %d (%s)", #field, (double)(value), rc_, why_ ? why_ : ""); \
        if (!(ok)) assert_non_null(why_);                                                          \
    } while (0)

static void test_validate_play(void **state) {
    (void)state;
    hl_play_t m = good_play();
    assert_int_equal(hl_validate_play(&m, NULL), 0);
    PLAY_CASE(gain_db, HL_MAX_GAIN_DB, 1);
    PLAY_CASE(gain_db, nextafterf(HL_MAX_GAIN_DB, 100), 0);
    PLAY_CASE(gain_db, -200.0f, 1);
    PLAY_CASE(gain_db, NAN, 0);
    PLAY_CASE(gain_db, -INFINITY, 0);
    PLAY_CASE(pan, -1.0f, 1);
    PLAY_CASE(pan, 1.0f, 1);
    PLAY_CASE(pan, nextafterf(1.0f, 2), 0);
    PLAY_CASE(pan, nextafterf(-1.0f, -2), 0);
    PLAY_CASE(pan, NAN, 0);
    PLAY_CASE(pitch, HL_MIN_PITCH, 1);
    PLAY_CASE(pitch, nextafterf(HL_MIN_PITCH, 0), 0);
    PLAY_CASE(pitch, HL_MAX_PITCH, 1);
    PLAY_CASE(pitch, nextafterf(HL_MAX_PITCH, 10), 0);
    PLAY_CASE(pitch, 0.0f, 0);
    PLAY_CASE(pos[0], HL_MAX_COORD, 1);
    PLAY_CASE(pos[1], -HL_MAX_COORD, 1);
    PLAY_CASE(pos[2], nextafterf(HL_MAX_COORD, INFINITY), 0);
    PLAY_CASE(pos[2], INFINITY, 0);
    PLAY_CASE(priority, HL_MAX_PRIORITY, 1);
    PLAY_CASE(priority, HL_MAX_PRIORITY + 1, 0);
    PLAY_CASE(priority, -HL_MAX_PRIORITY, 1);
    PLAY_CASE(priority, -HL_MAX_PRIORITY - 1, 0);
    PLAY_CASE(fade_in_ms, -1.0f, 1);
    PLAY_CASE(fade_in_ms, 0.0f, 1);
    PLAY_CASE(fade_in_ms, -0.5f, 0);
    PLAY_CASE(fade_in_ms, HL_MAX_FADE_MS, 1);
    PLAY_CASE(fade_in_ms, HL_MAX_FADE_MS + 1, 0);
    PLAY_CASE(min_distance, 0.0f, 0);
    PLAY_CASE(min_distance, 0.001f, 1);
    PLAY_CASE(min_distance, 100.0f, 0); /* == max_distance */
    PLAY_CASE(max_distance, 1.0f, 0);   /* == min_distance */
    PLAY_CASE(max_distance, NAN, 0);
    PLAY_CASE(rolloff, 0.0f, 1);
    PLAY_CASE(rolloff, -0.001f, 0);
    PLAY_CASE(rolloff, INFINITY, 0);
    PLAY_CASE(model, 2, 1);
    PLAY_CASE(model, 3, 0);
    PLAY_CASE(flags, HL_PLAY_MASK, 1);
    PLAY_CASE(flags, HL_PLAY_CUBIC, 1);
    PLAY_CASE(flags, 0x20, 0);
    PLAY_CASE(loop_end, 10, 1);   /* 0 .. 10 */
    PLAY_CASE(loop_start, 10, 0); /* start without end */
    PLAY_CASE(loop_count, 3, 0);  /* a count needs the loop flag */
    PLAY_CASE(loop_xfade_ms, 0.0f, 1);
    PLAY_CASE(loop_xfade_ms, HL_MAX_XFADE_MS, 1);
    PLAY_CASE(loop_xfade_ms, nextafterf(HL_MAX_XFADE_MS, INFINITY), 0);
    PLAY_CASE(loop_xfade_ms, -0.001f, 0);
    PLAY_CASE(loop_xfade_ms, NAN, 0);
    m = good_play();
    m.loop_start = 100;
    m.loop_end = 100; /* empty region */
    assert_int_equal(hl_validate_play(&m, NULL), HELIOD_EINVAL);
    m.loop_end = 101;
    assert_int_equal(hl_validate_play(&m, NULL), 0);
    m.flags = HL_PLAY_LOOP;
    m.loop_count = 2;
    assert_int_equal(hl_validate_play(&m, NULL), 0);
    m = good_play();
    strcpy(m.sound, "bad name");
    assert_int_equal(hl_validate_play(&m, NULL), HELIOD_EINVAL);
    m = good_play();
    strcpy(m.bus, "music");
    assert_int_equal(hl_validate_play(&m, NULL), 0);
    strcpy(m.bus, "mu sic");
    assert_int_equal(hl_validate_play(&m, NULL), HELIOD_EINVAL);
}

static void test_validate_others(void **state) {
    (void)state;
    const char *why;
    hl_set_t s = {.voice = 1, .mask = HL_SET_GAIN, .gain_db = 24, .pitch = 0};
    assert_int_equal(hl_validate_set(&s, &why), 0); /* pitch not in mask: not checked */
    s.mask |= HL_SET_PITCH;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.pitch = 1;
    assert_int_equal(hl_validate_set(&s, &why), 0);
    s.ramp_ms = HL_MAX_FADE_MS + 1;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.ramp_ms = -1; /* ramps have no default sentinel: 0 is the one-block ramp */
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.ramp_ms = HL_MAX_FADE_MS;
    assert_int_equal(hl_validate_set(&s, &why), 0);
    s.ramp_ms = 0;
    s.voice = 0;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.voice = 1;
    s.mask = HL_SET_MASK + 1;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.mask = HL_SET_LFE; /* the LFE send: linear, [0, 4] */
    s.lfe = 4;
    assert_int_equal(hl_validate_set(&s, &why), 0);
    s.lfe = 4.01f;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.lfe = -0.01f;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.lfe = 0;
    s.mask = HL_SET_LOOPS; /* the loop passes left: -1 forever, 0 leave, N */
    s.loops = -1;
    assert_int_equal(hl_validate_set(&s, &why), 0);
    s.loops = INT32_MAX;
    assert_int_equal(hl_validate_set(&s, &why), 0);
    s.loops = -2;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    assert_non_null(strstr(why, "loops"));
    s.loops = 0;
    s.mask = HL_SET_PAUSE;
    assert_int_equal(hl_validate_set(&s, &why), 0);
    s.mask = HL_SET_PAUSE | HL_SET_RESUME;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.mask = HL_SET_SEEK;
    s.seek_s = 0;
    assert_int_equal(hl_validate_set(&s, &why), 0);
    s.seek_s = -0.001;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.seek_s = NAN;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.seek_s = INFINITY;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.seek_s = 12.5;
    assert_int_equal(hl_validate_set(&s, &why), 0);
    s.mask = HL_SET_GAIN; /* seek_s not in mask: not checked */
    s.seek_s = NAN;
    assert_int_equal(hl_validate_set(&s, &why), 0);

    hl_pause_t pz = {.pause = 1, .scope = HL_PAUSE_EVERYONE};
    assert_int_equal(hl_validate_pause(&pz, &why), 0);
    pz.scope = 2;
    assert_int_equal(hl_validate_pause(&pz, &why), HELIOD_EINVAL);
    pz.scope = 0;
    pz.pause = 2;
    assert_int_equal(hl_validate_pause(&pz, &why), HELIOD_EINVAL);

    hl_listener_t l;
    memset(&l, 0, sizeof l);
    l.mask = HL_LIS_POS | HL_LIS_VEL;
    assert_int_equal(hl_validate_listener(&l, &why), 0);
    l.mask |= HL_LIS_FWD; /* zero forward vector */
    assert_int_equal(hl_validate_listener(&l, &why), HELIOD_EINVAL);
    l.fwd[2] = -1;
    assert_int_equal(hl_validate_listener(&l, &why), 0);
    l.vel[0] = NAN;
    assert_int_equal(hl_validate_listener(&l, &why), HELIOD_EINVAL);

    hl_stop_t st = {.voice = 1, .fade_ms = -1};
    assert_int_equal(hl_validate_stop(&st, &why), 0);
    st.fade_ms = -2;
    assert_int_equal(hl_validate_stop(&st, &why), HELIOD_EINVAL);
    hl_stop_all_t sa = {.fade_ms = 0, .scope = 2};
    assert_int_equal(hl_validate_stop_all(&sa, &why), HELIOD_EINVAL);
    hl_bus_t b = {.name = "sfx", .mask = HL_BUS_GAIN, .gain_db = 25};
    assert_int_equal(hl_validate_bus(&b, &why), HELIOD_EINVAL);
    b.gain_db = -6;
    assert_int_equal(hl_validate_bus(&b, &why), 0);
    b.ramp_ms = -1;
    assert_int_equal(hl_validate_bus(&b, &why), HELIOD_EINVAL);
}

/* ---- voice management: hostile input and validators --------------------- */

/* Encodes m with put (which does not validate) and expects the decoder to refuse it. */
#define DECODE_BAD(type, put, op, init)                                                            \
    do {                                                                                           \
        type m_;                                                                                   \
        init;                                                                                      \
        hl_wbuf_t w_;                                                                              \
        hl_wbuf_init(&w_, buf, sizeof buf);                                                        \
        put(&w_, &m_);                                                                             \
        assert_int_equal(w_.err, 0);                                                               \
        if (hl_fuzz_body(op, 0, buf, w_.len) != HELIOD_EPROTO)                                     \
            fail_msg("%s: decoded %s", #put, #init);                                               \
    } while (0)

/* Encodes ev into buf and decodes it into back: the body's length. */
static size_t event_roundtrip(const hl_event_t *ev, hl_event_t *back) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_event(&w, ev);
    assert_int_equal(w.err, 0);
    hl_rbuf_t r;
    hl_rbuf_init(&r, buf, w.len);
    hl_get_event(&r, back);
    assert_int_equal(hl_rbuf_finish(&r), 0);
    return w.len;
}

static void test_hostile_voice_mgmt(void **state) {
    (void)state;
    hl_cue_t c;
    hl_wbuf_t w;
    /* nsounds: 16 decodes; 0 and 17 are refused even when 17 strings follow */
    static uint8_t tail[256];
    sample_cue(&c);
    c.nsounds = 0;
    hl_wbuf_init(&w, tail, sizeof tail);
    hl_put_cue(&w, &c);
    assert_int_equal(w.err, 0);
    size_t tail_len = w.len - 4; /* after name "c" (3) and the count (1) */
    for (unsigned n = 0; n <= HL_MAX_CUE_SOUNDS + 1; n++) {
        hl_wbuf_init(&w, buf, sizeof buf);
        hl_put_str(&w, "c", HL_MAX_NAME);
        hl_put_u8(&w, (uint8_t)n);
        for (unsigned i = 0; i < n; i++)
            hl_put_str(&w, "snd", HL_MAX_NAME);
        for (size_t i = 0; i < tail_len; i++)
            hl_put_u8(&w, tail[4 + i]);
        int expect = (n >= 1 && n <= HL_MAX_CUE_SOUNDS) ? 0 : HELIOD_EPROTO;
        if (hl_fuzz_body(HL_OP_CUE, 0, buf, w.len) != expect)
            fail_msg("cue with nsounds %u: expected %d", n, expect);
    }
    /* a count of 255 with nothing after it: refused, nothing read past the end */
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_str(&w, "c", HL_MAX_NAME);
    hl_put_u8(&w, 255);
    assert_int_equal(hl_fuzz_body(HL_OP_CUE, 0, buf, w.len), HELIOD_EPROTO);
    /* the encoder refuses more than HL_MAX_CUE_SOUNDS */
    sample_cue(&c);
    c.nsounds = HL_MAX_CUE_SOUNDS + 1;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_cue(&w, &c);
    assert_int_equal(w.err, HELIOD_ETOOBIG);
    /* a sound name one over the limit */
    sample_cue(&c);
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_cue(&w, &c);
    buf[4] = HL_MAX_NAME + 1; /* first sound's length */
    assert_int_equal(hl_fuzz_body(HL_OP_CUE, 0, buf, w.len), HELIOD_EPROTO);

    /* unknown enum values and flag bits, one past the last known */
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.pick = 3));
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.flags = HL_PLAY_DETACHED));
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.flags = HL_PLAY_PAUSED));
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.flags = 0x20));
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.model = 3));
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.fade_curve = 3));
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.overflow = 6));
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.beyond = 3));
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.virt = 3));
    DECODE_BAD(hl_cue_t, hl_put_cue, HL_OP_CUE, (sample_cue(&m_), m_.virt = 0xFF));
    DECODE_BAD(hl_category_t, hl_put_category, HL_OP_CATEGORY,
               (hl_category_init(&m_), strcpy(m_.name, "k"), m_.overflow = 6));
    DECODE_BAD(hl_category_t, hl_put_category, HL_OP_CATEGORY,
               (hl_category_init(&m_), strcpy(m_.name, "k"), m_.fade_curve = 3));
    DECODE_BAD(hl_emitter_t, hl_put_emitter, HL_OP_EMITTER,
               (memset(&m_, 0, sizeof m_), strcpy(m_.name, "e"), m_.action = 3));
    DECODE_BAD(hl_emitter_t, hl_put_emitter, HL_OP_EMITTER,
               (memset(&m_, 0, sizeof m_), strcpy(m_.name, "e"), m_.mask = 0x8));
    DECODE_BAD(hl_pause_t, hl_put_pause, HL_OP_PAUSE,
               (memset(&m_, 0, sizeof m_), m_.scope = HL_PAUSE_CATEGORY + 1));
    DECODE_BAD(hl_play_t, hl_put_play, HL_OP_PLAY,
               (memset(&m_, 0, sizeof m_), strcpy(m_.sound, "s"), m_.over = HL_OVER_MASK + 1));
    DECODE_BAD(hl_set_t, hl_put_set, HL_OP_SET,
               (memset(&m_, 0, sizeof m_), m_.voice = 1, m_.mask = HL_SET_MASK + 1));

    /* CUES entry of an unknown kind */
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_reply_head_t ok = {HL_OP_CUES, 0};
    hl_list_head_t one = {1, 0};
    hl_put_reply_head(&w, &ok);
    hl_put_list_head(&w, &one);
    size_t kind_at = w.len;
    hl_cue_info_t ci;
    memset(&ci, 0, sizeof ci);
    ci.kind = HL_CUES_KIND_CATEGORY;
    hl_category_init(&ci.cat);
    strcpy(ci.cat.name, "k");
    hl_put_cue_info(&w, &ci);
    assert_int_equal(hl_fuzz_body(HL_OP_CUES, 1, buf, w.len), 0);
    buf[kind_at] = 2;
    assert_int_equal(hl_fuzz_body(HL_OP_CUES, 1, buf, w.len), HELIOD_EPROTO);
    buf[kind_at] = HL_CUES_KIND_CUE; /* a category body read as a cue */
    assert_int_equal(hl_fuzz_body(HL_OP_CUES, 1, buf, w.len), HELIOD_EPROTO);
    ci.kind = 2; /* and it cannot be encoded */
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_cue_info(&w, &ci);
    assert_int_equal(w.err, HELIOD_EINVAL);
    /* events of an unknown type cannot be encoded either */
    hl_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_MARKER + 1;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_put_event(&w, &ev);
    assert_int_equal(w.err, HELIOD_EINVAL);
    /* BEAT round-trips: 8 voice, 8 frame, 8 time_ns, 8 beat, 4 bar, 1, 4 bpm */
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_BEAT;
    ev.voice = 7;
    ev.frame = 123456789012ull;
    ev.time_ns = 5;
    ev.beat = 65;
    ev.bar = 16;
    ev.beat_in_bar = 1;
    ev.bpm = 140.0f;
    {
        static hl_event_t back;
        assert_int_equal(event_roundtrip(&ev, &back), 2 + 8 + 8 + 8 + 8 + 4 + 1 + 4);
        assert_true(back.frame == ev.frame && back.beat == 65 && back.bar == 16 &&
                    back.beat_in_bar == 1 && back.bpm == 140.0f && back.voice == 7);
    }
    /* MARKER round-trips: 8 voice, 8 frame, 8 time_ns, 4 id, str label */
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_MARKER;
    ev.voice = 9;
    ev.frame = 4242;
    ev.marker_id = 3;
    strcpy(ev.label, "drop");
    {
        static hl_event_t back;
        event_roundtrip(&ev, &back);
        assert_true(back.frame == 4242 && back.marker_id == 3 && back.voice == 9);
        assert_string_equal(back.label, "drop");
    }
    /* RELOAD round-trips; a positive status is malformed */
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_RELOAD;
    strcpy(ev.sound, "hot");
    ev.status = HELIOD_EDECODE;
    ev.frames = 36000;
    strcpy(ev.message, "cannot decode");
    {
        static hl_event_t back;
        size_t len = event_roundtrip(&ev, &back);
        hl_rbuf_t rr;
        assert_string_equal(back.sound, "hot");
        assert_int_equal(back.status, HELIOD_EDECODE);
        assert_int_equal(back.frames, 36000);
        assert_string_equal(back.message, "cannot decode");
        buf[2 + 2 + 3] = 1; /* status +1 (little-endian low byte after type, str "hot") */
        buf[2 + 2 + 3 + 1] = buf[2 + 2 + 3 + 2] = buf[2 + 2 + 3 + 3] = 0;
        hl_rbuf_init(&rr, buf, len);
        hl_get_event(&rr, &back);
        assert_true(hl_rbuf_finish(&rr) < 0);
    }
    /* every voice state up to VPAUSED decodes */
    for (uint8_t st = 0; st <= HL_VOICE_VPAUSED; st++) {
        hl_voice_info_t v;
        memset(&v, 0, sizeof v);
        v.state = st;
        strcpy(v.sound, "s");
        hl_wbuf_init(&w, buf, sizeof buf);
        hl_put_voice_info(&w, &v);
        hl_rbuf_t r;
        hl_rbuf_init(&r, buf, w.len);
        hl_get_voice_info(&r, &v);
        assert_int_equal(hl_rbuf_finish(&r), 0);
    }
}

/* Offset of the first byte of field `f` of a METER body as sample_meter
 * encodes it (after the u16 type): frame 8, four loudness f32, the master's
 * six f32, u8 nbuses, then per bus str name + six f32. */
#define MTR_LOUD   (2 + 8)
#define MTR_MASTER (MTR_LOUD + 16)
#define MTR_NBUSES (MTR_MASTER + 24)
#define MTR_BUS0   (MTR_NBUSES + 1)

static size_t put_f32_at(uint8_t *b, size_t off, float v) {
    memcpy(b + off, &v, sizeof v); /* little-endian host (the codec is LE) */
    return off;
}

static void test_meter_hostile(void **state) {
    (void)state;
    static uint8_t b[HL_MAX_FRAME];
    hl_wbuf_t w;
    hl_event_t ev;
    sample_meter(&ev);
    hl_wbuf_init(&w, b, sizeof b);
    hl_put_event(&w, &ev);
    assert_int_equal(w.err, 0);
    size_t len = w.len;
    assert_int_equal(hl_fuzz_body(HL_OP_EVENT, 0, b, len), 0);
    /* the layout documented in PROTOCOL.md: first bus name "sfx" after the master */
    assert_int_equal(b[MTR_NBUSES], 4);
    assert_int_equal(b[MTR_BUS0], 3);
    assert_memory_equal(b + MTR_BUS0 + 2, "sfx", 3);
    static uint8_t c[HL_MAX_FRAME];
    /* every level and loudness figure: NaN, inf, below the floor, above the cap */
    const float bad[] = {NAN, INFINITY, -INFINITY, -144.01f, 800.5f};
    const size_t at[] = {MTR_LOUD,       MTR_LOUD + 4,    MTR_LOUD + 8,    MTR_MASTER,
                         MTR_MASTER + 8, MTR_MASTER + 20, MTR_BUS0 + 5 + 4};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
            memcpy(c, b, len);
            put_f32_at(c, at[k], bad[j]);
            if (hl_fuzz_body(HL_OP_EVENT, 0, c, len) != HELIOD_EPROTO)
                fail_msg("meter field at %zu = %g decoded", at[k], (double)bad[j]);
        }
    /* the limits themselves decode */
    memcpy(c, b, len);
    put_f32_at(c, MTR_MASTER, HL_METER_FLOOR_DB);
    put_f32_at(c, MTR_MASTER + 4, HL_METER_MAX_DB);
    assert_int_equal(hl_fuzz_body(HL_OP_EVENT, 0, c, len), 0);
    /* the range is in LU, >= 0 */
    memcpy(c, b, len);
    put_f32_at(c, MTR_LOUD + 12, -0.01f);
    assert_int_equal(hl_fuzz_body(HL_OP_EVENT, 0, c, len), HELIOD_EPROTO);
    put_f32_at(c, MTR_LOUD + 12, 0.0f);
    assert_int_equal(hl_fuzz_body(HL_OP_EVENT, 0, c, len), 0);
    /* a bus count above the cap, or not matching the buses that follow */
    memcpy(c, b, len);
    c[MTR_NBUSES] = HL_METER_MAX_BUSES + 1;
    assert_int_equal(hl_fuzz_body(HL_OP_EVENT, 0, c, len), HELIOD_EPROTO);
    c[MTR_NBUSES] = 5;
    assert_int_equal(hl_fuzz_body(HL_OP_EVENT, 0, c, len), HELIOD_EPROTO);
    c[MTR_NBUSES] = 3;
    assert_int_equal(hl_fuzz_body(HL_OP_EVENT, 0, c, len), HELIOD_EPROTO);
    /* bus names: a character outside the name set, or empty */
    memcpy(c, b, len);
    c[MTR_BUS0 + 3] = ' ';
    assert_int_equal(hl_fuzz_body(HL_OP_EVENT, 0, c, len), HELIOD_EPROTO);
    hl_event_t e2 = ev;
    e2.meter.bus[1].name[0] = '\0';
    hl_wbuf_init(&w, c, sizeof c);
    hl_put_event(&w, &e2);
    assert_int_equal(w.err, HELIOD_EINVAL); /* cannot be encoded */
    e2 = ev;
    e2.meter.nbuses = HL_METER_MAX_BUSES + 1;
    hl_wbuf_init(&w, c, sizeof c);
    hl_put_event(&w, &e2);
    assert_int_equal(w.err, HELIOD_ETOOBIG);
    /* SUBSCRIBE: unknown bits are a protocol error; a mask alone is short */
    hl_subscribe_t sub = {.mask = HL_SUB_METER, .meter_hz = 20.0f};
    hl_wbuf_init(&w, c, sizeof c);
    hl_put_subscribe(&w, &sub);
    assert_int_equal(w.len, 8);
    assert_int_equal(hl_fuzz_body(HL_OP_SUBSCRIBE, 0, c, 8), 0);
    assert_int_equal(hl_fuzz_body(HL_OP_SUBSCRIBE, 0, c, 4), HELIOD_EPROTO);
    c[0] = 0x00;
    c[1] = 0x08; /* 0x800: an unknown bit */
    assert_int_equal(hl_fuzz_body(HL_OP_SUBSCRIBE, 0, c, 8), HELIOD_EPROTO);
    c[1] = 0;
    /* meter_hz: 0 (default) or 1..100 */
    const struct {
        float hz;
        int ok;
    } hz[] = {{0.0f, 1},    {1.0f, 1},  {100.0f, 1}, {20.0f, 1},    {0.99f, 0},
              {100.01f, 0}, {-1.0f, 0}, {NAN, 0},    {INFINITY, 0}, {-0.0f, 1}};
    for (size_t k = 0; k < sizeof hz / sizeof hz[0]; k++) {
        hl_subscribe_t m = {.mask = HL_SUB_METER, .meter_hz = hz[k].hz};
        const char *why = NULL;
        int rc = hl_validate_subscribe(&m, &why);
        if (hz[k].ok ? rc != 0 : rc != HELIOD_EINVAL)
            fail_msg("meter_hz %g: got %d", (double)hz[k].hz, rc);
        if (!hz[k].ok) assert_non_null(why);
    }
    hl_subscribe_t m = {.mask = 0x800};
    assert_int_equal(hl_validate_subscribe(&m, NULL), HELIOD_EINVAL);
}

#define CUE_CASE(field, value, ok)                                                                 \
    do {                                                                                           \
        hl_cue_t m_;                                                                               \
        good_cue(&m_);                                                                             \
        m_.field = value;                                                                          \
        const char *why_ = NULL;                                                                   \
        int rc_ = hl_validate_cue(&m_, &why_);                                                     \
        if ((ok) ? rc_ != 0 : rc_ != HELIOD_EINVAL)                                                \
            fail_msg("cue %s = %g: got %d (%s)", #field, (double)(value), rc_, why_ ? why_ : "");  \
        if (!(ok)) assert_non_null(why_);                                                          \
    } while (0)

static void good_cue(hl_cue_t *c) {
    hl_cue_init(c);
    strcpy(c->name, "step");
    c->nsounds = 1;
    strcpy(c->sounds[0], "step1");
}

static void test_validate_cue(void **state) {
    (void)state;
    hl_cue_t c;
    good_cue(&c);
    assert_int_equal(hl_validate_cue(&c, NULL), 0);
    sample_cue(&c);
    assert_int_equal(hl_validate_cue(&c, NULL), 0);
    CUE_CASE(nsounds, 0, 0);
    CUE_CASE(nsounds, HL_MAX_CUE_SOUNDS + 1, 0);
    CUE_CASE(gain_db, 24.0f, 1);
    CUE_CASE(gain_db, nextafterf(24.0f, 100), 0);
    CUE_CASE(gain_db, NAN, 0);
    CUE_CASE(gain_rand_db, 0.0f, 1);
    CUE_CASE(gain_rand_db, -0.001f, 0);
    CUE_CASE(gain_rand_db, 48.0f, 1);
    CUE_CASE(gain_rand_db, nextafterf(48.0f, 100), 0);
    CUE_CASE(pitch, 0.25f, 1);
    CUE_CASE(pitch, nextafterf(0.25f, 0), 0);
    CUE_CASE(pitch, 4.0f, 1);
    CUE_CASE(pitch, nextafterf(4.0f, 10), 0);
    CUE_CASE(pitch_rand_cents, 0.0f, 1);
    CUE_CASE(pitch_rand_cents, -1.0f, 0);
    CUE_CASE(pitch_rand_cents, 2400.0f, 1);
    CUE_CASE(pitch_rand_cents, 2401.0f, 0);
    CUE_CASE(priority, -1000, 1);
    CUE_CASE(priority, -1001, 0);
    CUE_CASE(priority, 1000, 1);
    CUE_CASE(priority, 1001, 0);
    CUE_CASE(pan, -1.0f, 1);
    CUE_CASE(pan, nextafterf(-1.0f, -2), 0);
    CUE_CASE(pan, 1.0f, 1);
    CUE_CASE(pan, nextafterf(1.0f, 2), 0);
    CUE_CASE(min_distance, 0.0f, 0);
    CUE_CASE(min_distance, 0.001f, 1);
    CUE_CASE(min_distance, 100.0f, 0); /* == max_distance */
    CUE_CASE(max_distance, 1.0f, 0);   /* == min_distance */
    CUE_CASE(max_distance, 1e6f, 1);
    CUE_CASE(max_distance, nextafterf(1e6f, INFINITY), 0);
    CUE_CASE(rolloff, 0.0f, 1);
    CUE_CASE(rolloff, -0.001f, 0);
    CUE_CASE(rolloff, INFINITY, 0);
    CUE_CASE(model, 3, 0);
    CUE_CASE(fade_in_ms, -1.0f, 1);
    CUE_CASE(fade_in_ms, -0.5f, 0);
    CUE_CASE(fade_in_ms, 0.0f, 1);
    CUE_CASE(fade_in_ms, 60000.0f, 1);
    CUE_CASE(fade_in_ms, 60001.0f, 0);
    CUE_CASE(fade_out_ms, -1.0f, 1);
    CUE_CASE(fade_out_ms, -2.0f, 0);
    CUE_CASE(fade_out_ms, 60000.0f, 1);
    CUE_CASE(fade_out_ms, 60001.0f, 0);
    CUE_CASE(fade_curve, HL_CURVE_LOG, 1);
    CUE_CASE(fade_curve, HL_CURVE_LOG + 1, 0);
    CUE_CASE(max_instances, 0, 1);
    CUE_CASE(max_instances, 65536, 1);
    CUE_CASE(max_instances, 65537, 0);
    CUE_CASE(overflow, HL_OVERFLOW_STEAL_FARTHEST, 1);
    CUE_CASE(overflow, HL_OVERFLOW_STEAL_FARTHEST + 1, 0);
    CUE_CASE(min_interval_ms, 0.0f, 1);
    CUE_CASE(min_interval_ms, -1.0f, 0); /* no default sentinel */
    CUE_CASE(min_interval_ms, 60000.0f, 1);
    CUE_CASE(min_interval_ms, 60001.0f, 0);
    CUE_CASE(min_interval_ms, NAN, 0);
    CUE_CASE(beyond, HL_BEYOND_CLAMP, 1);
    CUE_CASE(beyond, HL_BEYOND_CLAMP + 1, 0);
    CUE_CASE(virt, HL_VIRT_KILL, 1);
    CUE_CASE(virt, HL_VIRT_KILL + 1, 0);
    CUE_CASE(pick, HL_PICK_SEQUENCE, 1);
    CUE_CASE(pick, HL_PICK_SEQUENCE + 1, 0);
    CUE_CASE(flags, HL_CUE_MASK, 1);
    CUE_CASE(flags, HL_PLAY_DETACHED, 0);
    CUE_CASE(doppler, 0.0f, 1);
    CUE_CASE(doppler, -0.001f, 0);
    CUE_CASE(doppler, 10.0f, 1);
    CUE_CASE(doppler, nextafterf(10.0f, 100), 0);
    CUE_CASE(doppler, NAN, 0);
    good_cue(&c);
    strcpy(c.name, "bad name");
    assert_int_equal(hl_validate_cue(&c, NULL), HELIOD_EINVAL);
    good_cue(&c);
    c.nsounds = 2; /* second sound empty */
    assert_int_equal(hl_validate_cue(&c, NULL), HELIOD_EINVAL);
    strcpy(c.sounds[1], "x/y");
    assert_int_equal(hl_validate_cue(&c, NULL), HELIOD_EINVAL);
    strcpy(c.sounds[1], "step2");
    assert_int_equal(hl_validate_cue(&c, NULL), 0);
    strcpy(c.bus, "mu sic");
    assert_int_equal(hl_validate_cue(&c, NULL), HELIOD_EINVAL);
    c.bus[0] = '\0';
    strcpy(c.category, "a,b");
    assert_int_equal(hl_validate_cue(&c, NULL), HELIOD_EINVAL);

    hl_category_t k;
    const char *why;
    hl_category_init(&k);
    assert_int_equal(hl_validate_category(&k, &why), HELIOD_EINVAL); /* no name */
    strcpy(k.name, "foot");
    assert_int_equal(hl_validate_category(&k, &why), 0);
    k.max_instances = 65537;
    assert_int_equal(hl_validate_category(&k, &why), HELIOD_EINVAL);
    k.max_instances = 65536;
    k.overflow = 6;
    assert_int_equal(hl_validate_category(&k, &why), HELIOD_EINVAL);
    k.overflow = 5;
    k.fade_out_ms = -0.5f;
    assert_int_equal(hl_validate_category(&k, &why), HELIOD_EINVAL);
    k.fade_out_ms = 60000;
    k.fade_curve = 3;
    assert_int_equal(hl_validate_category(&k, &why), HELIOD_EINVAL);
    k.fade_curve = 2;
    assert_int_equal(hl_validate_category(&k, &why), 0);
}

static void test_validate_voice_mgmt(void **state) {
    (void)state;
    const char *why;
    hl_emitter_t e;
    memset(&e, 0, sizeof e);
    strcpy(e.name, "car");
    e.action = HL_EMITTER_CREATE;
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL); /* create needs a position */
    e.mask = HL_EM_POS | HL_EM_DETACHED;
    assert_int_equal(hl_validate_emitter(&e, &why), 0);
    e.pos[0] = nextafterf(HL_MAX_COORD, INFINITY);
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL);
    e.pos[0] = -HL_MAX_COORD;
    assert_int_equal(hl_validate_emitter(&e, &why), 0);
    e.vel[1] = NAN; /* not in the mask: not checked */
    assert_int_equal(hl_validate_emitter(&e, &why), 0);
    e.mask |= HL_EM_VEL;
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL);
    e.vel[1] = 340;
    assert_int_equal(hl_validate_emitter(&e, &why), 0);
    e.mask = 0x8 | HL_EM_POS;
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL);
    e.mask = HL_EM_POS;
    e.action = 3;
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL);
    e.action = HL_EMITTER_SET;
    e.mask = 0; /* set with nothing is harmless */
    assert_int_equal(hl_validate_emitter(&e, &why), 0);
    e.ramp_ms = -1;
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL);
    e.ramp_ms = 60000;
    assert_int_equal(hl_validate_emitter(&e, &why), 0);
    e.ramp_ms = 60001;
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL);
    e.ramp_ms = 0;
    e.action = HL_EMITTER_DESTROY;
    e.fade_ms = -1;
    assert_int_equal(hl_validate_emitter(&e, &why), 0);
    e.fade_ms = -0.5f;
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL);
    e.fade_ms = 60000;
    assert_int_equal(hl_validate_emitter(&e, &why), 0);
    e.fade_ms = 60001;
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL);
    e.fade_ms = 0;
    strcpy(e.name, "");
    assert_int_equal(hl_validate_emitter(&e, &why), HELIOD_EINVAL);

    /* play: velocity, emitter, override mask */
    PLAY_CASE(vel[0], HL_MAX_COORD, 1);
    PLAY_CASE(vel[1], nextafterf(-HL_MAX_COORD, -INFINITY), 0);
    PLAY_CASE(vel[2], NAN, 0);
    PLAY_CASE(over, HL_OVER_MASK, 1);
    PLAY_CASE(over, HL_OVER_MASK + 1, 0);
    hl_play_t p = good_play();
    strcpy(p.emitter, "car");
    assert_int_equal(hl_validate_play(&p, &why), 0);
    strcpy(p.emitter, "c r");
    assert_int_equal(hl_validate_play(&p, &why), HELIOD_EINVAL);

    /* set: velocity only checked with HL_SET_VEL */
    hl_set_t s = {.voice = 1, .mask = HL_SET_GAIN, .vel = {NAN, 0, 0}};
    assert_int_equal(hl_validate_set(&s, &why), 0);
    s.mask |= HL_SET_VEL;
    assert_int_equal(hl_validate_set(&s, &why), HELIOD_EINVAL);
    s.vel[0] = HL_MAX_COORD;
    assert_int_equal(hl_validate_set(&s, &why), 0);

    /* pause: group name for the bus and category scopes, empty otherwise */
    hl_pause_t pz = {.pause = 1, .scope = HL_PAUSE_BUS};
    assert_int_equal(hl_validate_pause(&pz, &why), HELIOD_EINVAL);
    strcpy(pz.group, "music");
    assert_int_equal(hl_validate_pause(&pz, &why), 0);
    pz.scope = HL_PAUSE_CATEGORY;
    assert_int_equal(hl_validate_pause(&pz, &why), 0);
    pz.scope = HL_PAUSE_CATEGORY + 1;
    assert_int_equal(hl_validate_pause(&pz, &why), HELIOD_EINVAL);
    pz.scope = HL_PAUSE_EVERYONE;
    assert_int_equal(hl_validate_pause(&pz, &why), HELIOD_EINVAL);
    pz.group[0] = '\0';
    assert_int_equal(hl_validate_pause(&pz, &why), 0);
    pz.scope = HL_PAUSE_CATEGORY;
    strcpy(pz.group, "a b");
    assert_int_equal(hl_validate_pause(&pz, &why), HELIOD_EINVAL);

    /* enum names */
    assert_int_equal(hl_enum_from(HL_ENUM_OVERFLOW, "steal-lowest-priority"),
                     HL_OVERFLOW_STEAL_LOWEST);
    assert_int_equal(hl_enum_from(HL_ENUM_OVERFLOW, "steal"), -1);
    assert_string_equal(hl_enum_name(HL_ENUM_VIRT, HL_VIRT_KILL), "kill");
    assert_null(hl_enum_name(HL_ENUM_BEYOND, 3));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_structs),
        cmocka_unit_test(test_roundtrip_samples),
        cmocka_unit_test(test_meter_hostile),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_frame_size_field),
        cmocka_unit_test(test_frame_flags),
        cmocka_unit_test(test_truncated_every_offset),
        cmocka_unit_test(test_string_limits),
        cmocka_unit_test(test_embedded_nul),
        cmocka_unit_test(test_flags_and_enums),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_names_and_errors),
        cmocka_unit_test(test_validate_play),
        cmocka_unit_test(test_validate_others),
        cmocka_unit_test(test_roundtrip_voice_mgmt),
        cmocka_unit_test(test_emitter_reply),
        cmocka_unit_test(test_hostile_voice_mgmt),
        cmocka_unit_test(test_validate_cue),
        cmocka_unit_test(test_validate_voice_mgmt),
        cmocka_unit_test(test_time_codec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
