/*
 * test_codec_bytes.c - known bytes of every message body: each message is
 * filled with a pattern that gives every byte of every field a distinct
 * value (strings, enums, flags and counts fixed to valid ones), encoded, and
 * compared with the encodings saved in codec_bytes.txt from the codec of
 * protocol 1.0 (before the schema); then the saved bytes are decoded and
 * encoded again and must come back identical (round trip).
 *
 *   test_codec_bytes FILE          compare (the test)
 *   test_codec_bytes --write FILE  write FILE from the current codec
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl_proto.h"

static unsigned g_seed;

/* Every byte of *p a different value of the pattern: fields differ in every byte. */
static void pattern(void *p, size_t n) {
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)((i * 37u + g_seed * 11u + 5u) % 251u);
}

#define S(dst, s) snprintf((dst), sizeof(dst), "%s", (s))

typedef void (*put_fn)(hl_wbuf_t *, const void *);
typedef void (*get_fn)(hl_rbuf_t *, void *);

typedef struct {
    const char *name;
    size_t size;
    put_fn put;
    get_fn get;
    void (*fix)(void *m, int variant);
} msg_t;

static void fix_post(hl_vpost_t *p, int v) {
    S(p->send[0], v ? "verb" : "");
    S(p->send[1], v ? "room.b" : "");
}

static void fix_hello(void *p, int v) {
    hl_hello_t *m = p;
    S(m->client_name, v ? "game-1" : "");
    m->flags = v ? HL_HELLO_CONTROL : 0;
    m->minor = 0; /* since 1.1: absent, a 1.0 client's HELLO (test_corpus checks 1.1's) */
}
static void fix_hello_reply(void *p, int v) {
    hl_hello_reply_t *m = p;
    S(m->server_version, v ? "1.2.3" : "");
    m->flags = v ? HL_HELLO_MASK : 0;
    m->minor = 0; /* since 1.1: absent, the reply to a 1.0 client */
}
static void fix_load(void *p, int v) {
    hl_load_t *m = p;
    S(m->name, "boom");
    S(m->path, v ? "/usr/share/sounds/boom.wav" : "");
    m->flags = v ? HL_LOAD_INFO_MASK : HL_LOAD_SHARED; /* 1.0's bits */
    m->offset = m->length = 0;                         /* since 1.1: absent, a 1.0 client's LOAD */
}
static void fix_sound_info(void *p, int v) {
    hl_sound_info_t *m = p;
    S(m->name, v ? "boom" : "x");
    m->flags = v ? HL_LOAD_INFO_MASK : 0;
}
static void fix_name(void *p, int v) {
    hl_name_t *m = p;
    S(m->name, v ? "footstep_01" : "");
}
static void fix_play(void *p, int v) {
    hl_play_t *m = p;
    S(m->sound, "shot");
    m->flags = v ? HL_PLAY_MASK : HL_PLAY_LOOP;
    m->model = (uint8_t)(v % 3);
    S(m->bus, v ? "music" : "");
    S(m->emitter, v ? "car" : "");
    m->over = v ? HL_OVER_MASK : 0;
    fix_post(&m->post, v);
    m->pan_law = 0; /* since 1.1: absent, a 1.0 client's PLAY */
    m->sync_on = 0;
    m->sync_voice = 0;
    m->lfe = 0;
}
static void fix_none(void *p, int v) {
    (void)p, (void)v;
}
static void fix_stop(void *p, int v) {
    hl_stop_t *m = p;
    m->curve = (uint8_t)(v ? HL_STOP_CURVE(HL_CURVE_LOG) : 0);
}
static void fix_stop_all(void *p, int v) {
    hl_stop_all_t *m = p;
    m->scope = (uint8_t)(v ? HL_STOP_ALL_EVERYONE : 0);
}
static void fix_set(void *p, int v) {
    hl_set_t *m = p;
    m->mask = v ? HL_SET_MASK & ~(HL_SET_LFE | HL_SET_LOOPS) : HL_SET_GAIN; /* both since 1.1 */
    m->lfe = 0;
    m->loops = 0;
    fix_post(&m->post, v);
}
static void fix_pause(void *p, int v) {
    hl_pause_t *m = p;
    m->pause = (uint8_t)(v ? 1 : 0);
    m->scope = (uint8_t)(v ? HL_PAUSE_CATEGORY : HL_PAUSE_MINE);
    S(m->group, v ? "ambience" : "");
}
static void fix_listener(void *p, int v) {
    hl_listener_t *m = p;
    m->mask = v ? HL_LIS_MASK : HL_LIS_POS;
    m->index = 0; /* 1.1's fields at their defaults: the 1.0 body */
    m->off = 0;
    m->weight = 0.0f;
}
static void fix_voice_info(void *p, int v) {
    hl_voice_info_t *m = p;
    S(m->sound, "shot");
    m->flags = v ? HL_PLAY_MASK : 0;
    m->state = (uint8_t)(v ? HL_VOICE_VPAUSED : HL_VOICE_PLAYING);
    S(m->bus, "sfx");
    S(m->cue, v ? "gun" : "");
    S(m->category, v ? "weapons" : "");
    S(m->emitter, v ? "npc.7" : "");
    fix_post(&m->post, v);
}
static void fix_device_info(void *p, int v) {
    hl_device_info_t *m = p;
    S(m->name, v ? "HDA Intel PCH: ALC892 Analog (hw:0,0)" : "");
    S(m->hostapi, v ? "ALSA" : "");
    m->flags = (uint8_t)(v ? (HL_DEV_DEFAULT | HL_DEV_CURRENT) : 0);
}
static void fix_stats_req(void *p, int v) {
    hl_stats_req_t *m = p;
    m->flags = v ? HL_STATS_RESET : 0;
}
static void fix_stat(void *p, int v) {
    hl_stat_t *m = p;
    S(m->key, v ? "callback_load_max" : "x");
}
static void fix_subscribe(void *p, int v) {
    hl_subscribe_t *m = p;
    m->mask = v ? HL_SUB_MASK & ~(HL_SUB_STREAM | HL_SUB_MUSIC) : HL_SUB_ENDED; /* the 1.0 bits */
    if (!v) m->profile_hz = 0.0f; /* optional: absent on the wire */
}
static void fix_bus(void *p, int v) {
    hl_bus_t *m = p;
    S(m->name, v ? "music" : "master");
    m->mask = v ? HL_BUS_MASK : HL_BUS_GAIN;
    m->mute = (uint8_t)(v ? 1 : 0);
    S(m->parent, v ? "master" : "");
    S(m->send, v ? "verb" : "");
}
static void fix_bus_info(void *p, int v) {
    hl_bus_info_t *m = p;
    S(m->name, v ? "music" : "master");
    S(m->parent, v ? "master" : "");
    m->mute = (uint8_t)(v ? 1 : 0);
    for (int i = 0; i < HL_BUS_SENDS_MAX; i++)
        S(m->send[i], v && i < 3 ? (i == 1 ? "room" : "verb") : "");
}
static void fix_rzone(void *p, int v) {
    hl_rzone_t *m = p;
    m->action = (uint8_t)(v ? HL_RZONE_REMOVE : HL_RZONE_SET);
    S(m->name, "cave");
    S(m->bus, v ? "cave_verb" : "");
    S(m->feed, v ? "reverb_zones" : "");
    m->preset = (uint8_t)(v ? HL_REV_OUTDOOR : HL_REV_ROOM);
}
static void fix_rzone_info(void *p, int v) {
    hl_rzone_info_t *m = p;
    fix_rzone(&m->zone, v);
}
static void fix_fx_req(void *p, int v) {
    hl_fx_req_t *m = p;
    m->action = (uint8_t)(v ? HL_FX_REMOVE : HL_FX_ADD);
    S(m->bus, v ? "master" : "sfx");
    m->kind = (uint8_t)(v ? HL_FXK_REVERB : HL_FXK_EQ);
    m->type = (uint8_t)(v ? HL_REV_OUTDOOR : HL_EQ_PEAK);
    m->mask = v ? HL_FXP_MASK : 0x3u;
}
static void fix_fx_info(void *p, int v) {
    hl_fx_info_t *m = p;
    S(m->bus, v ? "master" : "sfx");
    m->kind = (uint8_t)(v ? HL_FXK_COMP : HL_FXK_EQ);
    m->type = (uint8_t)(v ? 0 : HL_EQ_PEAK);
}
static void fix_duck_rule(void *p, int v) {
    hl_duck_rule_t *m = p;
    S(m->bus, "music");
    S(m->by, v ? "dialog" : "sfx");
    m->on = (uint8_t)(v ? 1 : 0);
}
static void fix_duck_info(void *p, int v) {
    hl_duck_info_t *m = p;
    fix_duck_rule(&m->rule, v);
}
static void fix_cue(void *p, int v) {
    hl_cue_t *m = p;
    S(m->name, "steps");
    m->nsounds = (uint8_t)(v ? HL_MAX_CUE_SOUNDS : 1);
    for (int i = 0; i < HL_MAX_CUE_SOUNDS; i++)
        snprintf(m->sounds[i], sizeof m->sounds[i], "step_%02d", i);
    m->pick = (uint8_t)(v ? HL_PICK_SEQUENCE : HL_PICK_RANDOM);
    m->flags = v ? HL_CUE_MASK : 0;
    S(m->bus, v ? "sfx" : "");
    S(m->category, v ? "foley" : "");
    m->model = (uint8_t)(v ? HL_DIST_EXPONENTIAL : HL_DIST_LINEAR);
    m->fade_curve = (uint8_t)(v ? HL_CURVE_LOG : 0);
    m->overflow = (uint8_t)(v ? HL_OVERFLOW_STEAL_FARTHEST : 0);
    m->beyond = (uint8_t)(v ? HL_BEYOND_CLAMP : 0);
    m->virt = (uint8_t)(v ? HL_VIRT_KILL : 0);
    fix_post(&m->post, v);
}
static void fix_category(void *p, int v) {
    hl_category_t *m = p;
    S(m->name, v ? "weapons" : "w");
    m->overflow = (uint8_t)(v ? HL_OVERFLOW_STEAL_FARTHEST : 0);
    m->fade_curve = (uint8_t)(v ? HL_CURVE_LOG : 0);
}
static void fix_cue_info(void *p, int v) {
    hl_cue_info_t *m = p;
    m->kind = (uint8_t)(v ? HL_CUES_KIND_CATEGORY : HL_CUES_KIND_CUE);
    fix_cue(&m->cue, !v);
    fix_category(&m->cat, v);
}
static void fix_cues_load(void *p, int v) {
    hl_cues_load_t *m = p;
    S(m->path, v ? "/etc/heliod/cues.conf" : "");
}
static void fix_emitter(void *p, int v) {
    hl_emitter_t *m = p;
    m->action = (uint8_t)(v ? HL_EMITTER_DESTROY : HL_EMITTER_CREATE);
    S(m->name, v ? "car.1" : "c");
    m->mask = v ? HL_EM_MASK : HL_EM_POS;
}
static void fix_load_fd(void *p, int v) {
    hl_load_fd_t *m = p;
    S(m->name, v ? "upload" : "u");
    m->flags = v ? (HL_LOAD_SHARED | HL_LOAD_PIN) : 0;
}
static const uint8_t k_chunk[] = "RIFF\0\0\0\0WAVEfmt chunk bytes";
static void fix_load_data(void *p, int v) {
    hl_load_data_t *m = p;
    S(m->name, v ? "upload" : "u");
    m->flags = v ? (HL_LOAD_SHARED | HL_LOAD_PIN) : 0;
    m->len = v ? (uint32_t)sizeof k_chunk : 1u;
    m->total = v ? 1000u : 1u;
    m->offset = v ? 100u : 0u;
    m->data = k_chunk;
}
static void fix_bank(void *p, int v) {
    hl_bank_t *m = p;
    m->action = (uint8_t)(v ? HL_BANK_UNLOAD : HL_BANK_LOAD);
    S(m->arg, v ? "level1" : "/srv/banks/level1.bank");
}
static void fix_bank_info(void *p, int v) {
    hl_bank_info_t *m = p;
    S(m->name, "level1");
    S(m->path, v ? "/srv/banks/level1.bank" : "");
    m->state = (uint8_t)(v ? HL_BANK_STATE_GONE : HL_BANK_STATE_LOADING);
    S(m->error, v ? "boom.wav: no such file" : "");
}
static void fix_zone(void *p, int v) {
    hl_zone_t *m = p;
    m->action = (uint8_t)(v ? HL_ZONE_REMOVE : HL_ZONE_ADD);
    S(m->name, "town");
    S(m->bank, v ? "" : "/srv/banks/town.bank");
}
static void fix_zone_info(void *p, int v) {
    hl_zone_info_t *m = p;
    fix_zone(&m->zone, v);
    m->state = (uint8_t)(v ? HL_ZONE_STATE_LOADED : HL_ZONE_STATE_OUT);
}
static void fix_device_req(void *p, int v) {
    hl_device_req_t *m = p;
    S(m->name, v ? "USB Audio" : "null");
}
static void fix_device_reply(void *p, int v) {
    hl_device_reply_t *m = p;
    S(m->driver, v ? "portaudio" : "null");
    S(m->name, v ? "USB Audio CODEC: Audio (hw:1,0)" : "");
}
static void fix_reply_head(void *p, int v) {
    hl_reply_head_t *m = p;
    m->status = v ? HELIOD_ERR_MIN : 0;
}
static void fix_list_head(void *p, int v) {
    hl_list_head_t *m = p;
    m->count = (uint16_t)(v ? HL_MAX_LIST : 0);
    m->truncated = (uint8_t)(v ? 1 : 0);
}

/* Levels within the wire's [-144, 800] dB. */
static float db(int i) {
    return -144.0f + 7.25f * (float)(i % 100);
}
static void fix_level(hl_meter_level_t *l, int k) {
    for (int c = 0; c < 2; c++) {
        l->peak_db[c] = db(k + c);
        l->peak_hold_db[c] = db(k + c + 3);
        l->rms_db[c] = db(k + c + 5);
    }
}
static void fix_event(void *p, int v) {
    hl_event_t *m = p;
    static const uint16_t types[] = {HL_EVENT_ERROR,       HL_EVENT_ENDED,  HL_EVENT_STARTED,
                                     HL_EVENT_VIRTUAL,     HL_EVENT_REAL,   HL_EVENT_DEVICE_LOST,
                                     HL_EVENT_DEVICE_BACK, HL_EVENT_METER,  HL_EVENT_BANK,
                                     HL_EVENT_ZONE_TICK,   HL_EVENT_RELOAD, HL_EVENT_PROFILE};
    m->type = types[v % 12];
    m->status = -5;
    S(m->message, v % 3 ? "device gone" : "");
    m->reason = (uint8_t)(m->type == HL_EVENT_ENDED     ? HL_END_LIFETIME
                          : m->type == HL_EVENT_VIRTUAL ? 4
                                                        : 0);
    m->meter.momentary = db(1);
    m->meter.short_term = db(2);
    m->meter.integrated = db(3);
    m->meter.range = 12.5f;
    fix_level(&m->meter.master, 4);
    m->meter.nbuses = (uint8_t)(v > 12 ? HL_METER_MAX_BUSES : 2);
    for (int i = 0; i < HL_METER_MAX_BUSES; i++) {
        snprintf(m->meter.bus[i].name, sizeof m->meter.bus[i].name, "bus%d", i);
        fix_level(&m->meter.bus[i], 10 + i);
    }
    fix_bank_info(&m->bank, v & 1);
    S(m->report, "tick 7: town loading, forest out");
    hl_profile_t *f = &m->profile;
    f->period_us = 5333.25f;
    f->load_now = 0.25f;
    f->load_peak = 0.5f;
    f->load_p99 = 0.75f;
    f->load_max = 3.0f;
    f->decode_load = 0.125f;
    f->nstreams = (uint8_t)(v > 12 ? HL_PROFILE_MAX_STREAMS : 1);
    for (int i = 0; i < HL_PROFILE_MAX_STREAMS; i++) {
        snprintf(f->stream[i].sound, sizeof f->stream[i].sound, "music%d", i);
        f->stream[i].fill = (float)i / 16.0f;
    }
    f->master_peak_db = db(20);
    f->master_rms_db = db(21);
    f->nbuses = (uint8_t)(v > 12 ? HL_PROFILE_MAX_BUSES : 3);
    for (int i = 0; i < HL_PROFILE_MAX_BUSES; i++) {
        hl_profile_bus_t *b = &f->bus[i];
        snprintf(b->name, sizeof b->name, "b.%d", i);
        b->peak_db = db(30 + i);
        b->peak_hold_db = db(31 + i);
        b->rms_db = db(32 + i);
    }
    S(m->sound, "boom");
}

#define M(name, fix)                                                                               \
    { #name, sizeof(hl_##name##_t), (put_fn)hl_put_##name, (get_fn)hl_get_##name, fix }
static const msg_t k_msgs[] = {
    M(reply_head, fix_reply_head),
    M(hello, fix_hello),
    M(hello_reply, fix_hello_reply),
    M(load, fix_load),
    M(sound_info, fix_sound_info),
    M(name, fix_name),
    M(play, fix_play),
    M(play_reply, fix_none),
    M(stop, fix_stop),
    M(stop_all, fix_stop_all),
    M(count_reply, fix_none),
    M(set, fix_set),
    M(listener, fix_listener),
    M(voice_info, fix_voice_info),
    M(device_info, fix_device_info),
    M(stats_req, fix_stats_req),
    M(stat, fix_stat),
    M(subscribe, fix_subscribe),
    M(pause, fix_pause),
    M(bus, fix_bus),
    M(list_head, fix_list_head),
    M(event, fix_event),
    M(cue, fix_cue),
    M(category, fix_category),
    M(cue_info, fix_cue_info),
    M(cues_load, fix_cues_load),
    M(cues_load_reply, fix_none),
    M(emitter, fix_emitter),
    M(bus_info, fix_bus_info),
    M(fx_req, fix_fx_req),
    M(fx_info, fix_fx_info),
    M(duck_rule, fix_duck_rule),
    M(duck_info, fix_duck_info),
    M(rzone, fix_rzone),
    M(rzone_info, fix_rzone_info),
    M(load_data, fix_load_data),
    M(load_fd, fix_load_fd),
    M(bank, fix_bank),
    M(bank_info, fix_bank_info),
    M(zone, fix_zone),
    M(zone_info, fix_zone_info),
    M(device_req, fix_device_req),
    M(device_reply, fix_device_reply),
    M(clock, fix_none),
};
#undef M
#define NMSGS (sizeof k_msgs / sizeof k_msgs[0])

static int variants(const msg_t *d) {
    return strcmp(d->name, "event") == 0 ? 24 : 2;
}

static uint8_t g_out[HL_MAX_FRAME], g_again[HL_MAX_FRAME];
static _Alignas(max_align_t) uint8_t g_msg[sizeof(hl_event_t) + 64];

static int encode(const msg_t *d, int v) {
    g_seed = (unsigned)v + (unsigned)(d - k_msgs) * 3u;
    memset(g_msg, 0, sizeof g_msg);
    pattern(g_msg, d->size);
    d->fix(g_msg, v);
    hl_wbuf_t w;
    hl_wbuf_init(&w, g_out, sizeof g_out);
    d->put(&w, g_msg);
    return w.err ? -1 : (int)w.len;
}

static void hex(FILE *f, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", b[i]);
}

static int unhex(const char *s, uint8_t *out, size_t cap) {
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned x;
        if (sscanf(s + 2 * i, "%2x", &x) != 1) return -1;
        out[i] = (uint8_t)x;
    }
    return (int)(n / 2);
}

static const msg_t *find(const char *name) {
    for (size_t i = 0; i < NMSGS; i++)
        if (strcmp(k_msgs[i].name, name) == 0) return &k_msgs[i];
    return NULL;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        FILE *f = fopen(argv[2], "w");
        if (!f) return 1;
        fprintf(f, "# message variant body-hex: protocol 1.0 encodings (test_codec_bytes)\n");
        for (size_t i = 0; i < NMSGS; i++)
            for (int v = 0; v < variants(&k_msgs[i]); v++) {
                int n = encode(&k_msgs[i], v);
                if (n < 0) {
                    fprintf(stderr, "%s %d: encode failed\n", k_msgs[i].name, v);
                    return 1;
                }
                fprintf(f, "%s %d ", k_msgs[i].name, v);
                hex(f, g_out, (size_t)n);
                fputc('\n', f);
            }
        return fclose(f) ? 1 : 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s [--write] FILE\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static char line[4 * HL_MAX_FRAME];
    static uint8_t saved[HL_MAX_FRAME];
    int fails = 0, checked = 0;
    size_t seen[NMSGS] = {0};
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        line[strcspn(line, "\n")] = '\0';
        char name[64];
        int v, off;
        if (sscanf(line, "%63s %d %n", name, &v, &off) != 2) {
            fprintf(stderr, "bad line: %.40s\n", line);
            fails++;
            continue;
        }
        const msg_t *d = find(name);
        int n = unhex(line + off, saved, sizeof saved);
        if (!d || n < 0) {
            fprintf(stderr, "%s %d: unknown message or bad hex\n", name, v);
            fails++;
            continue;
        }
        seen[d - k_msgs]++;
        /* 1. today's encoder writes the saved bytes */
        int m = encode(d, v);
        if (m != n || memcmp(g_out, saved, (size_t)n) != 0) {
            fprintf(stderr, "%s %d: encoding differs from the saved 1.0 bytes\n  saved ", name, v);
            hex(stderr, saved, (size_t)n);
            fprintf(stderr, "\n  now   ");
            if (m > 0) hex(stderr, g_out, (size_t)m);
            fputc('\n', stderr);
            fails++;
        }
        /* 2. the saved bytes decode exactly and encode back to themselves */
        memset(g_msg, 0, sizeof g_msg);
        hl_rbuf_t r;
        hl_rbuf_init(&r, saved, (size_t)n);
        d->get(&r, g_msg);
        int rc = hl_rbuf_finish(&r);
        hl_wbuf_t w;
        hl_wbuf_init(&w, g_again, sizeof g_again);
        d->put(&w, g_msg);
        if (rc != 0 || w.err || w.len != (size_t)n || memcmp(g_again, saved, (size_t)n) != 0) {
            fprintf(stderr, "%s %d: round trip of the saved bytes failed (decode %d)\n", name, v,
                    rc);
            fails++;
        }
        checked++;
    }
    fclose(f);
    for (size_t i = 0; i < NMSGS; i++)
        if (!seen[i]) {
            fprintf(stderr, "%s: no saved encoding\n", k_msgs[i].name);
            fails++;
        }
    printf("%d encodings checked, %d failures\n", checked, fails);
    return fails ? 1 : 0;
}
