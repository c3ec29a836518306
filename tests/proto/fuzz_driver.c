/*
 * fuzz_driver.c - runs the decoder fuzz target (fuzz_decode.c) without
 * libFuzzer, on a fixed seed so every run is the same: 200,000 inputs that
 * are pseudo-random bytes, valid frames of every op built from random field
 * values, and mutations of those (bit flips, truncations, insertions, size and
 * flag field edits). Valid frames must decode (so the target is really
 * exercised); everything else must merely not crash or break the target's
 * invariants. Exit status 0 on success.
 */
#include "fuzz_decode.h"

#include "hl_proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRIVER_ITERATIONS 200000
#define DRIVER_SEED       0x9e3779b97f4a7c15ull

static uint64_t rng_state = DRIVER_SEED;

static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static float rndf(float lo, float hi) {
    return lo + (hi - lo) * (float)(rnd() % 100001) / 100000.0f;
}

/* HELLO's and HELLO_REPLY's minor: absent (a 1.0 peer), ours, or a later one */
static uint16_t rnd_minor(void) {
    return (uint16_t)(rnd() % (HL_PROTO_MINOR + 4));
}

/* A later minor's fields after the ones we know: skipped by the decoder. */
static void put_later_fields(hl_wbuf_t *w, uint16_t minor) {
    if (minor <= HL_PROTO_MINOR) return;
    for (unsigned i = rnd() % 5; i > 0; i--)
        hl_put_u8(w, (uint8_t)rnd());
}

static void rnd_name(char *dst, size_t maxlen) {
    static const char cs[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
    size_t n = 1 + rnd() % maxlen;
    for (size_t i = 0; i < n; i++)
        dst[i] = cs[rnd() % (sizeof cs - 1)];
    dst[n] = '\0';
}

static void gen_cue(hl_cue_t *m) {
    hl_cue_init(m);
    rnd_name(m->name, HL_MAX_NAME);
    m->nsounds = (uint8_t)(1 + rnd() % HL_MAX_CUE_SOUNDS);
    for (unsigned i = 0; i < m->nsounds; i++)
        rnd_name(m->sounds[i], 12);
    m->pick = rnd() % 3;
    m->flags = rnd() & HL_CUE_MASK;
    m->gain_db = rndf(-40, 6);
    m->gain_rand_db = rndf(0, 6);
    m->pitch = rndf(0.25f, 4);
    m->pitch_rand_cents = rndf(0, 200);
    if (rnd() % 2) rnd_name(m->bus, 8);
    if (rnd() % 2) rnd_name(m->category, 8);
    m->priority = (int32_t)(rnd() % 2001) - 1000;
    m->pan = rndf(-1, 1);
    m->model = rnd() % 3;
    m->fade_curve = rnd() % 3;
    m->max_instances = rnd() % 64;
    m->overflow = rnd() % 6;
    m->min_interval_ms = rndf(0, 100);
    m->beyond = rnd() % 3;
    m->virt = rnd() % 3;
    m->doppler = rndf(0, 2);
}

static void gen_category(hl_category_t *m) {
    hl_category_init(m);
    rnd_name(m->name, HL_MAX_NAME);
    m->max_instances = rnd() % 64;
    m->overflow = rnd() % 6;
    m->fade_out_ms = rndf(0, 500);
    m->fade_curve = rnd() % 3;
}

/* Writes a random valid body for (op, as_reply). */
static void gen_body(uint16_t op, int as_reply, hl_wbuf_t *w) {
    if (as_reply) {
        hl_reply_head_t h = {.req_op = op, .status = 0};
        if (rnd() % 5 == 0) {
            h.status = -(int32_t)(1 + rnd() % (uint32_t)(-HELIOD_ERR_MIN));
            hl_put_reply_head(w, &h);
            char msg[HL_MAX_MSG + 1];
            rnd_name(msg, HL_MAX_MSG);
            hl_put_str(w, msg, HL_MAX_MSG);
            return;
        }
        hl_put_reply_head(w, &h);
        uint16_t n = (uint16_t)(rnd() % 4);
        hl_list_head_t lh = {.count = n, .truncated = (uint8_t)(rnd() % 2)};
        switch (op) {
        case HL_OP_HELLO: {
            hl_hello_reply_t m = {.version = HL_PROTO_VERSION,
                                  .rate = 48000,
                                  .period = rnd(),
                                  .voices = rnd(),
                                  .client_id = rnd(),
                                  .minor = rnd_minor()};
            rnd_name(m.server_version, HL_MAX_NAME);
            hl_put_hello_reply(w, &m);
            put_later_fields(w, m.minor);
            break;
        }
        case HL_OP_PING: hl_put_u64(w, ((uint64_t)rnd() << 32) | rnd()); break;
        case HL_OP_LOAD:
        case HL_OP_SOUNDS:
            if (op == HL_OP_SOUNDS) hl_put_list_head(w, &lh);
            for (unsigned i = 0; i < (op == HL_OP_LOAD ? 1u : n); i++) {
                hl_sound_info_t m = {.frames = rnd(),
                                     .channels = (uint16_t)rnd(),
                                     .source_rate = rnd(),
                                     .flags = rnd() % 2,
                                     .playing = rnd()};
                rnd_name(m.name, HL_MAX_NAME);
                hl_put_sound_info(w, &m);
            }
            break;
        case HL_OP_PLAY: {
            hl_play_reply_t m = {.voice = rnd(), .stolen = rnd()};
            hl_put_play_reply(w, &m);
            break;
        }
        case HL_OP_PAUSE:
        case HL_OP_STOP_ALL: {
            hl_count_reply_t m = {.count = rnd()};
            hl_put_count_reply(w, &m);
            break;
        }
        case HL_OP_VOICES:
            hl_put_list_head(w, &lh);
            for (unsigned i = 0; i < n; i++) {
                hl_voice_info_t m = {.voice = rnd(),
                                     .owner = rnd(),
                                     .priority = (int32_t)rnd(),
                                     .flags = rnd() & HL_PLAY_MASK,
                                     .state = rnd() % 5,
                                     .audibility_db = rndf(-90, 0),
                                     .position_s = rndf(0, 100),
                                     .gain_db = rndf(-60, 24),
                                     .pan = rndf(-1, 1),
                                     .pitch = rndf(0.25f, 4)};
                rnd_name(m.sound, HL_MAX_NAME);
                rnd_name(m.bus, 8);
                if (rnd() % 2) rnd_name(m.cue, HL_MAX_NAME);
                if (rnd() % 2) rnd_name(m.category, 8);
                if (rnd() % 2) rnd_name(m.emitter, 8);
                hl_put_voice_info(w, &m);
            }
            break;
        case HL_OP_DEVICES:
            hl_put_list_head(w, &lh);
            for (unsigned i = 0; i < n; i++) {
                hl_device_info_t m = {.index = rnd(),
                                      .max_channels = (uint16_t)rnd(),
                                      .default_rate = 44100.0,
                                      .flags = rnd() % 4};
                rnd_name(m.name, HL_MAX_DEVNAME);
                rnd_name(m.hostapi, HL_MAX_NAME);
                hl_put_device_info(w, &m);
            }
            break;
        case HL_OP_STATS:
            hl_put_list_head(w, &lh);
            for (unsigned i = 0; i < n; i++) {
                hl_stat_t m = {.value = rndf(0, 1e6f)};
                rnd_name(m.key, HL_MAX_NAME);
                hl_put_stat(w, &m);
            }
            break;
        case HL_OP_CUES:
            hl_put_list_head(w, &lh);
            for (unsigned i = 0; i < n; i++) {
                hl_cue_info_t m;
                memset(&m, 0, sizeof m);
                m.kind = rnd() % 2;
                if (m.kind == HL_CUES_KIND_CUE)
                    gen_cue(&m.cue);
                else
                    gen_category(&m.cat);
                m.n.plays = ((uint64_t)rnd() << 32) | rnd();
                m.n.refused_interval = rnd();
                m.n.stolen = rnd();
                m.n.virtualised = rnd();
                m.n.active = rnd();
                m.n.virtual_now = rnd();
                hl_put_cue_info(w, &m);
            }
            break;
        case HL_OP_CUES_LOAD: {
            hl_cues_load_reply_t m = {.cues = rnd(), .categories = rnd()};
            hl_put_cues_load_reply(w, &m);
            break;
        }
        case HL_OP_EMITTER:
            if (rnd() % 2) {
                hl_count_reply_t m = {.count = rnd()};
                hl_put_count_reply(w, &m);
            }
            break;
        default: break;
        }
        return;
    }
    switch (op) {
    case HL_OP_HELLO: {
        hl_hello_t m = {.version = HL_PROTO_VERSION, .minor = rnd_minor()};
        rnd_name(m.client_name, HL_MAX_NAME);
        hl_put_hello(w, &m);
        put_later_fields(w, m.minor);
        break;
    }
    case HL_OP_LOAD: {
        hl_load_t m = {.flags = rnd() % 2};
        rnd_name(m.name, HL_MAX_NAME);
        rnd_name(m.path, 200);
        hl_put_load(w, &m);
        break;
    }
    case HL_OP_UNLOAD: {
        hl_name_t m;
        rnd_name(m.name, HL_MAX_NAME);
        hl_put_name(w, &m);
        break;
    }
    case HL_OP_PLAY: {
        hl_play_t m = {.flags = rnd() & HL_PLAY_MASK,
                       .gain_db = rndf(-60, 24),
                       .pan = rndf(-1, 1),
                       .pos = {rndf(-10, 10), rndf(-10, 10), rndf(-10, 10)},
                       .pitch = rndf(0.25f, 4),
                       .priority = (int32_t)(rnd() % 2001) - 1000,
                       .fade_in_ms = -1,
                       .min_distance = 1,
                       .max_distance = 50,
                       .rolloff = rndf(0, 4),
                       .model = rnd() % 3,
                       .vel = {rndf(-50, 50), rndf(-50, 50), 0},
                       .over = rnd() & HL_OVER_MASK};
        rnd_name(m.sound, HL_MAX_NAME);
        if (rnd() % 2) rnd_name(m.emitter, HL_MAX_NAME);
        hl_put_play(w, &m);
        break;
    }
    case HL_OP_STOP: {
        hl_stop_t m = {.voice = rnd(), .fade_ms = rndf(0, 100)};
        hl_put_stop(w, &m);
        break;
    }
    case HL_OP_STOP_ALL: {
        hl_stop_all_t m = {.fade_ms = rndf(0, 100), .scope = rnd() % 2};
        hl_put_stop_all(w, &m);
        break;
    }
    case HL_OP_SET: {
        hl_set_t m = {.voice = rnd(),
                      .mask = rnd() & HL_SET_MASK,
                      .gain_db = rndf(-20, 0),
                      .pan = rndf(-1, 1),
                      .pitch = 1,
                      .ramp_ms = 5,
                      .vel = {rndf(-50, 50), 0, rndf(-50, 50)}};
        hl_put_set(w, &m);
        break;
    }
    case HL_OP_LISTENER: {
        hl_listener_t m = {.mask = rnd() & HL_LIS_MASK, .fwd = {0, 0, -1}, .up = {0, 1, 0}};
        hl_put_listener(w, &m);
        break;
    }
    case HL_OP_STATS: {
        hl_stats_req_t m = {.flags = rnd() % 2};
        hl_put_stats_req(w, &m);
        break;
    }
    case HL_OP_SUBSCRIBE: {
        hl_subscribe_t m = {.mask = rnd() & HL_SUB_MASK,
                            .meter_hz = rnd() % 2 ? 0.0f : rndf(1, 100)};
        hl_put_subscribe(w, &m);
        break;
    }
    case HL_OP_BUS: {
        hl_bus_t m = {.mask = 1, .gain_db = rndf(-40, 6), .ramp_ms = 10};
        rnd_name(m.name, 8);
        hl_put_bus(w, &m);
        break;
    }
    case HL_OP_EVENT: {
        static hl_event_t m; /* ~3 KiB */
        memset(&m, 0, sizeof m);
        if (rnd() % 4 == 0) { /* METER: random levels, 0..32 buses */
            m.type = HL_EVENT_METER;
            m.meter.frame = rnd();
            m.meter.momentary = rndf(-144, 0);
            m.meter.short_term = rndf(-144, 0);
            m.meter.integrated = rndf(-144, 0);
            m.meter.range = rndf(0, 40);
            m.meter.nbuses = (uint8_t)(rnd() % (HL_METER_MAX_BUSES + 1));
            for (int b = -1; b < m.meter.nbuses; b++) {
                hl_meter_level_t *l = b < 0 ? &m.meter.master : &m.meter.bus[b];
                if (b >= 0) rnd_name(l->name, HL_MAX_NAME);
                for (int c = 0; c < 2; c++) {
                    l->peak_db[c] = rndf(-144, 24);
                    l->peak_hold_db[c] = rndf(-144, 24);
                    l->rms_db[c] = rndf(-144, 24);
                }
            }
            hl_put_event(w, &m);
            break;
        }
        m.type = (uint16_t)(1 + rnd() % 5);
        m.voice = rnd();
        m.reason = m.type == HL_EVENT_VIRTUAL ? rnd() % 4 : rnd() % 9;
        if (m.type == HL_EVENT_REAL) m.reason = 0;
        m.time_ns = rnd();
        m.req_op = HL_OP_PLAY;
        m.status = HELIOD_EBUSY;
        rnd_name(m.message, 40);
        hl_put_event(w, &m);
        break;
    }
    case HL_OP_PAUSE: {
        hl_pause_t m = {.pause = rnd() % 2, .scope = rnd() % 4};
        if (m.scope >= HL_PAUSE_BUS) rnd_name(m.group, HL_MAX_NAME);
        hl_put_pause(w, &m);
        break;
    }
    case HL_OP_CUE: {
        hl_cue_t m;
        gen_cue(&m);
        hl_put_cue(w, &m);
        break;
    }
    case HL_OP_CATEGORY: {
        hl_category_t m;
        gen_category(&m);
        hl_put_category(w, &m);
        break;
    }
    case HL_OP_CUES_LOAD: {
        hl_cues_load_t m;
        rnd_name(m.path, 200);
        hl_put_cues_load(w, &m);
        break;
    }
    case HL_OP_EMITTER: {
        hl_emitter_t m = {.action = rnd() % 3,
                          .mask = rnd() & HL_EM_MASK,
                          .pos = {rndf(-100, 100), rndf(-100, 100), rndf(-100, 100)},
                          .vel = {rndf(-10, 10), 0, 0},
                          .ramp_ms = rndf(0, 100),
                          .fade_ms = -1};
        rnd_name(m.name, HL_MAX_NAME);
        hl_put_emitter(w, &m);
        break;
    }
    default: break; /* empty bodies */
    }
}

static const uint16_t ops[] = {
    HL_OP_HELLO, HL_OP_PING,      HL_OP_LOAD,    HL_OP_UNLOAD,   HL_OP_SOUNDS, HL_OP_PLAY,
    HL_OP_STOP,  HL_OP_STOP_ALL,  HL_OP_SET,     HL_OP_LISTENER, HL_OP_VOICES, HL_OP_DEVICES,
    HL_OP_STATS, HL_OP_SUBSCRIBE, HL_OP_BUS,     HL_OP_PAUSE,    HL_OP_CUE,    HL_OP_CATEGORY,
    HL_OP_CUES,  HL_OP_CUES_LOAD, HL_OP_EMITTER, HL_OP_EVENT};
#define NOPS (sizeof ops / sizeof ops[0])

static uint8_t buf[2 * HL_MAX_FRAME];

int main(void) {
    unsigned valid_ok = 0, valid = 0, mutated_ok = 0;
    for (unsigned it = 0; it < DRIVER_ITERATIONS; it++) {
        unsigned kind = it % 4;
        size_t len;
        if (kind == 0) {
            len = rnd() % 300;
            for (size_t i = 0; i < len; i++)
                buf[i] = (uint8_t)rnd();
            LLVMFuzzerTestOneInput(buf, len);
            continue;
        }
        uint16_t op = ops[rnd() % NOPS];
        int as_reply = op != HL_OP_EVENT && (rnd() % 2);
        hl_wbuf_t w;
        hl_wbuf_init(&w, buf, sizeof buf);
        hl_frame_begin(&w, as_reply ? HL_OP_REPLY : op, (uint16_t)(rnd() % 2), rnd());
        gen_body(op, as_reply, &w);
        if (hl_frame_end(&w) < 0) {
            fprintf(stderr, "fuzz_driver: could not build a frame for op %u\n", op);
            return 1;
        }
        len = w.len;
        if (kind == 1) {
            valid++;
            if (hl_fuzz_body(op, as_reply, buf + HL_FRAME_HDR, len - HL_FRAME_HDR) == 0)
                valid_ok++;
            else
                fprintf(stderr, "fuzz_driver: valid %s body of op %u rejected\n",
                        as_reply ? "reply" : "request", op);
            LLVMFuzzerTestOneInput(buf, len);
            continue;
        }
        /* mutate */
        unsigned nmut = 1 + rnd() % 4;
        for (unsigned m = 0; m < nmut; m++) {
            switch (rnd() % 6) {
            case 0:
                if (len) buf[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
                break;
            case 1: len = len > 1 ? rnd() % len : len; break;
            case 2:
                if (len < sizeof buf - 1) {
                    size_t at = rnd() % (len + 1);
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = (uint8_t)rnd();
                    len++;
                }
                break;
            case 3: {
                static const uint32_t sizes[] = {0,          11, 12, HL_MAX_FRAME, HL_MAX_FRAME + 1,
                                                 0xFFFFFFFFu};
                uint32_t s = (rnd() % 2) ? sizes[rnd() % 6] : (uint32_t)len + (rnd() % 5) - 2;
                if (len >= 4)
                    memcpy(buf, &s, 4); /* little-endian host assumed by the driver only */
                break;
            }
            case 4:
                if (len >= 8) buf[6] |= (uint8_t)(1u << (rnd() % 8));
                break;
            default:
                if (len > HL_FRAME_HDR + 2)
                    buf[HL_FRAME_HDR + rnd() % (len - HL_FRAME_HDR)] = (uint8_t)rnd();
                break;
            }
        }
        if (len >= HL_FRAME_HDR &&
            hl_fuzz_body(op, as_reply, buf + HL_FRAME_HDR, len - HL_FRAME_HDR) == 0)
            mutated_ok++;
        LLVMFuzzerTestOneInput(buf, len);
    }
    printf("fuzz_driver: %u inputs, %u/%u valid frames decoded, %u mutants still decoded\n",
           DRIVER_ITERATIONS, valid_ok, valid, mutated_ok);
    return valid_ok == valid && valid > 0 ? 0 : 1;
}
