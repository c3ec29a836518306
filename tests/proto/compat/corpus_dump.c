/*
 * corpus_dump.c - see corpus_dump.h. Keep it compiling against the 1.0
 * codec (git show 4550bf8:proto/hl_proto.h): it uses only the 1.0 structs'
 * fields and the hl_get_* decoders both versions have.
 */
#include "corpus_dump.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hl_proto.h"

typedef struct {
    char *out;
    size_t cap, len;
} dump_t;

static void pr(dump_t *d, const char *fmt, ...) {
    if (d->len >= d->cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(d->out + d->len, d->cap - d->len, fmt, ap);
    va_end(ap);
    if (n > 0) d->len += (size_t)n < d->cap - d->len ? (size_t)n : d->cap - d->len - 1;
}

/* Exact and portable: the bits, then the value for people. */
static void f32(dump_t *d, const char *name, float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    pr(d, "%s=f32:%08x (%.9g)\n", name, u, (double)v);
}
static void f64(dump_t *d, const char *name, double v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    pr(d, "%s=f64:%016llx (%.17g)\n", name, (unsigned long long)u, v);
}
static void uint(dump_t *d, const char *name, uint64_t v) {
    pr(d, "%s=%llu\n", name, (unsigned long long)v);
}
static void sint(dump_t *d, const char *name, int64_t v) {
    pr(d, "%s=%lld\n", name, (long long)v);
}
static void hex(dump_t *d, const char *name, uint32_t v) {
    pr(d, "%s=0x%x\n", name, v);
}
static void str(dump_t *d, const char *name, const char *s) {
    pr(d, "%s=\"", name);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
            pr(d, "\\x%02x", *p);
        else
            pr(d, "%c", *p);
    }
    pr(d, "\"\n");
}
static void vec3(dump_t *d, const char *name, const float v[3]) {
    char n[64];
    for (int i = 0; i < 3; i++) {
        snprintf(n, sizeof n, "%s[%d]", name, i);
        f32(d, n, v[i]);
    }
}
static void post(dump_t *d, const char *pre, const hl_vpost_t *m) {
    char n[64];
#define P_(f)                                                                                      \
    snprintf(n, sizeof n, "%s.%s", pre, #f);                                                       \
    f32(d, n, m->f)
    P_(lp_hz);
    P_(hp_hz);
    P_(occlusion);
    P_(obstruction);
#undef P_
    for (int i = 0; i < HL_VOICE_SENDS; i++) {
        snprintf(n, sizeof n, "%s.send[%d]", pre, i);
        str(d, n, m->send[i]);
        snprintf(n, sizeof n, "%s.send_db[%d]", pre, i);
        f32(d, n, m->send_db[i]);
    }
}

static void d_hello(dump_t *d, hl_rbuf_t *r) {
    hl_hello_t m;
    memset(&m, 0, sizeof m);
    hl_get_hello(r, &m);
    uint(d, "version", m.version);
    str(d, "client_name", m.client_name);
    hex(d, "flags", m.flags);
}
static void d_load(dump_t *d, hl_rbuf_t *r) {
    hl_load_t m;
    memset(&m, 0, sizeof m);
    hl_get_load(r, &m);
    str(d, "name", m.name);
    str(d, "path", m.path);
    hex(d, "flags", m.flags);
}
static void d_name(dump_t *d, hl_rbuf_t *r) {
    hl_name_t m;
    memset(&m, 0, sizeof m);
    hl_get_name(r, &m);
    str(d, "name", m.name);
}
static void d_play(dump_t *d, hl_rbuf_t *r) {
    hl_play_t m;
    memset(&m, 0, sizeof m);
    hl_get_play(r, &m);
    str(d, "sound", m.sound);
    hex(d, "flags", m.flags);
    f32(d, "gain_db", m.gain_db);
    f32(d, "pan", m.pan);
    vec3(d, "pos", m.pos);
    f32(d, "pitch", m.pitch);
    sint(d, "priority", m.priority);
    f32(d, "fade_in_ms", m.fade_in_ms);
    f32(d, "min_distance", m.min_distance);
    f32(d, "max_distance", m.max_distance);
    f32(d, "rolloff", m.rolloff);
    uint(d, "model", m.model);
    str(d, "bus", m.bus);
    uint(d, "loop_start", m.loop_start);
    uint(d, "loop_end", m.loop_end);
    uint(d, "loop_count", m.loop_count);
    f32(d, "loop_xfade_ms", m.loop_xfade_ms);
    vec3(d, "vel", m.vel);
    str(d, "emitter", m.emitter);
    hex(d, "over", m.over);
    post(d, "post", &m.post);
}
static void d_stop(dump_t *d, hl_rbuf_t *r) {
    hl_stop_t m;
    memset(&m, 0, sizeof m);
    hl_get_stop(r, &m);
    uint(d, "voice", m.voice);
    f32(d, "fade_ms", m.fade_ms);
    uint(d, "curve", m.curve);
}
static void d_stop_all(dump_t *d, hl_rbuf_t *r) {
    hl_stop_all_t m;
    memset(&m, 0, sizeof m);
    hl_get_stop_all(r, &m);
    f32(d, "fade_ms", m.fade_ms);
    uint(d, "scope", m.scope);
}
static void d_set(dump_t *d, hl_rbuf_t *r) {
    hl_set_t m;
    memset(&m, 0, sizeof m);
    hl_get_set(r, &m);
    uint(d, "voice", m.voice);
    hex(d, "mask", m.mask);
    f32(d, "gain_db", m.gain_db);
    f32(d, "pan", m.pan);
    vec3(d, "pos", m.pos);
    f32(d, "pitch", m.pitch);
    f32(d, "ramp_ms", m.ramp_ms);
    f64(d, "seek_s", m.seek_s);
    vec3(d, "vel", m.vel);
    post(d, "post", &m.post);
}
static void d_listener(dump_t *d, hl_rbuf_t *r) {
    hl_listener_t m;
    memset(&m, 0, sizeof m);
    hl_get_listener(r, &m);
    hex(d, "mask", m.mask);
    vec3(d, "pos", m.pos);
    vec3(d, "fwd", m.fwd);
    vec3(d, "up", m.up);
    vec3(d, "vel", m.vel);
}
static void d_stats(dump_t *d, hl_rbuf_t *r) {
    hl_stats_req_t m;
    memset(&m, 0, sizeof m);
    if (r->len) hl_get_stats_req(r, &m); /* an empty body means no flags */
    hex(d, "flags", m.flags);
}
static void d_subscribe(dump_t *d, hl_rbuf_t *r) {
    hl_subscribe_t m;
    memset(&m, 0, sizeof m);
    if (r->len == sizeof(uint32_t)) { /* the mask alone */
        m.mask = hl_get_u32(r);
        if (m.mask & ~(uint32_t)HL_SUB_MASK) r->err = HELIOD_EPROTO;
    } else {
        hl_get_subscribe(r, &m);
    }
    hex(d, "mask", m.mask);
    f32(d, "meter_hz", m.meter_hz);
    f32(d, "profile_hz", m.profile_hz);
}
static void d_bus(dump_t *d, hl_rbuf_t *r) {
    hl_bus_t m;
    memset(&m, 0, sizeof m);
    hl_get_bus(r, &m);
    str(d, "name", m.name);
    hex(d, "mask", m.mask);
    f32(d, "gain_db", m.gain_db);
    f32(d, "ramp_ms", m.ramp_ms);
    uint(d, "mute", m.mute);
    str(d, "parent", m.parent);
    str(d, "send", m.send);
    f32(d, "send_db", m.send_db);
}
static void d_pause(dump_t *d, hl_rbuf_t *r) {
    hl_pause_t m;
    memset(&m, 0, sizeof m);
    hl_get_pause(r, &m);
    uint(d, "pause", m.pause);
    uint(d, "scope", m.scope);
    str(d, "group", m.group);
}
static void d_cue(dump_t *d, hl_rbuf_t *r) {
    hl_cue_t m;
    memset(&m, 0, sizeof m);
    hl_get_cue(r, &m);
    str(d, "name", m.name);
    uint(d, "nsounds", m.nsounds);
    char n[32];
    for (int i = 0; i < m.nsounds && i < HL_MAX_CUE_SOUNDS; i++) {
        snprintf(n, sizeof n, "sounds[%d]", i);
        str(d, n, m.sounds[i]);
    }
    uint(d, "pick", m.pick);
    hex(d, "flags", m.flags);
    f32(d, "gain_db", m.gain_db);
    f32(d, "gain_rand_db", m.gain_rand_db);
    f32(d, "pitch", m.pitch);
    f32(d, "pitch_rand_cents", m.pitch_rand_cents);
    str(d, "bus", m.bus);
    str(d, "category", m.category);
    sint(d, "priority", m.priority);
    f32(d, "pan", m.pan);
    f32(d, "min_distance", m.min_distance);
    f32(d, "max_distance", m.max_distance);
    f32(d, "rolloff", m.rolloff);
    uint(d, "model", m.model);
    f32(d, "fade_in_ms", m.fade_in_ms);
    f32(d, "fade_out_ms", m.fade_out_ms);
    uint(d, "fade_curve", m.fade_curve);
    uint(d, "max_instances", m.max_instances);
    uint(d, "overflow", m.overflow);
    f32(d, "min_interval_ms", m.min_interval_ms);
    uint(d, "beyond", m.beyond);
    uint(d, "virt", m.virt);
    f32(d, "doppler", m.doppler);
    post(d, "post", &m.post);
}
static void d_category(dump_t *d, hl_rbuf_t *r) {
    hl_category_t m;
    memset(&m, 0, sizeof m);
    hl_get_category(r, &m);
    str(d, "name", m.name);
    uint(d, "max_instances", m.max_instances);
    uint(d, "overflow", m.overflow);
    f32(d, "fade_out_ms", m.fade_out_ms);
    uint(d, "fade_curve", m.fade_curve);
}
static void d_cues_load(dump_t *d, hl_rbuf_t *r) {
    hl_cues_load_t m;
    memset(&m, 0, sizeof m);
    hl_get_cues_load(r, &m);
    str(d, "path", m.path);
}
static void d_emitter(dump_t *d, hl_rbuf_t *r) {
    hl_emitter_t m;
    memset(&m, 0, sizeof m);
    hl_get_emitter(r, &m);
    uint(d, "action", m.action);
    str(d, "name", m.name);
    hex(d, "mask", m.mask);
    vec3(d, "pos", m.pos);
    vec3(d, "vel", m.vel);
    f32(d, "ramp_ms", m.ramp_ms);
    f32(d, "fade_ms", m.fade_ms);
}
static void d_device(dump_t *d, hl_rbuf_t *r) {
    hl_device_req_t m;
    memset(&m, 0, sizeof m);
    hl_get_device_req(r, &m);
    str(d, "name", m.name);
}
static void d_fx(dump_t *d, hl_rbuf_t *r) {
    hl_fx_req_t m;
    memset(&m, 0, sizeof m);
    hl_get_fx_req(r, &m);
    uint(d, "action", m.action);
    str(d, "bus", m.bus);
    uint(d, "index", m.index);
    uint(d, "kind", m.kind);
    uint(d, "type", m.type);
    hex(d, "mask", m.mask);
    char n[16];
    for (int i = 0; i < HL_FX_PARAMS; i++) {
        snprintf(n, sizeof n, "p[%d]", i);
        f32(d, n, m.p[i]);
    }
    f32(d, "ramp_ms", m.ramp_ms);
}
static void d_duck(dump_t *d, hl_rbuf_t *r) {
    hl_duck_rule_t m;
    memset(&m, 0, sizeof m);
    hl_get_duck_rule(r, &m);
    str(d, "bus", m.bus);
    str(d, "by", m.by);
    uint(d, "on", m.on);
    f32(d, "depth_db", m.depth_db);
    f32(d, "threshold_db", m.threshold_db);
    f32(d, "attack_ms", m.attack_ms);
    f32(d, "hold_ms", m.hold_ms);
    f32(d, "release_ms", m.release_ms);
}
static void d_rzone(dump_t *d, hl_rbuf_t *r) {
    hl_rzone_t m;
    memset(&m, 0, sizeof m);
    hl_get_rzone(r, &m);
    uint(d, "action", m.action);
    str(d, "name", m.name);
    vec3(d, "pos", m.pos);
    f32(d, "radius", m.radius);
    f32(d, "fade", m.fade);
    str(d, "bus", m.bus);
    str(d, "feed", m.feed);
    uint(d, "preset", m.preset);
}
static void d_bank(dump_t *d, hl_rbuf_t *r) {
    hl_bank_t m;
    memset(&m, 0, sizeof m);
    hl_get_bank(r, &m);
    uint(d, "action", m.action);
    str(d, "arg", m.arg);
}
static void d_zone(dump_t *d, hl_rbuf_t *r) {
    hl_zone_t m;
    memset(&m, 0, sizeof m);
    hl_get_zone(r, &m);
    uint(d, "action", m.action);
    str(d, "name", m.name);
    str(d, "bank", m.bank);
    vec3(d, "pos", m.pos);
    f32(d, "radius", m.radius);
}
static void d_load_data(dump_t *d, hl_rbuf_t *r) {
    hl_load_data_t m;
    memset(&m, 0, sizeof m);
    hl_get_load_data(r, &m);
    str(d, "name", m.name);
    hex(d, "flags", m.flags);
    uint(d, "total", m.total);
    uint(d, "offset", m.offset);
    uint(d, "len", m.len);
    uint32_t h = 2166136261u; /* FNV-1a of the chunk */
    for (uint32_t i = 0; m.data && i < m.len; i++)
        h = (h ^ m.data[i]) * 16777619u;
    pr(d, "data=fnv1a:%08x\n", h);
}
static void d_load_fd(dump_t *d, hl_rbuf_t *r) {
    hl_load_fd_t m;
    memset(&m, 0, sizeof m);
    hl_get_load_fd(r, &m);
    str(d, "name", m.name);
    hex(d, "flags", m.flags);
    uint(d, "size", m.size);
}
static void d_clock(dump_t *d, hl_rbuf_t *r) {
    if (r->len == sizeof(uint64_t)) uint(d, "voice", hl_get_u64(r));
}
static void d_empty(dump_t *d, hl_rbuf_t *r) {
    (void)d;
    (void)r;
}

int corpus_dump(const uint8_t *frame, size_t len, char *out, size_t cap) {
    dump_t d = {.out = out, .cap = cap, .len = 0};
    if (cap) out[0] = '\0';
    hl_frame_hdr_t h;
    int rc = hl_frame_peek(frame, len, &h);
    if (rc != 0 || h.size != len) {
        pr(&d, "bad header (%d)\n", rc);
        return HELIOD_EPROTO;
    }
    const char *name = hl_op_name(h.op);
    pr(&d, "op=%s\nflags=0x%x\nid=%u\n", name ? name : "?", h.flags, h.id);
    hl_rbuf_t r;
    hl_rbuf_init(&r, frame + HL_FRAME_HDR, len - HL_FRAME_HDR);
    if (h.flags & HL_FLAG_AT) {
        uint(&d, "at_frame", hl_get_u64(&r));
        /* the op's own body follows: decode it on its own, as the daemon does */
        hl_rbuf_init(&r, r.buf + r.off, r.err ? 0 : r.len - r.off);
    }
    switch (h.op) {
    case HL_OP_HELLO: d_hello(&d, &r); break;
    case HL_OP_LOAD: d_load(&d, &r); break;
    case HL_OP_UNLOAD:
    case HL_OP_FX_LIST: d_name(&d, &r); break;
    case HL_OP_PLAY: d_play(&d, &r); break;
    case HL_OP_STOP: d_stop(&d, &r); break;
    case HL_OP_STOP_ALL: d_stop_all(&d, &r); break;
    case HL_OP_SET: d_set(&d, &r); break;
    case HL_OP_LISTENER: d_listener(&d, &r); break;
    case HL_OP_STATS: d_stats(&d, &r); break;
    case HL_OP_SUBSCRIBE: d_subscribe(&d, &r); break;
    case HL_OP_BUS: d_bus(&d, &r); break;
    case HL_OP_PAUSE: d_pause(&d, &r); break;
    case HL_OP_CUE: d_cue(&d, &r); break;
    case HL_OP_CATEGORY: d_category(&d, &r); break;
    case HL_OP_CUES_LOAD: d_cues_load(&d, &r); break;
    case HL_OP_EMITTER: d_emitter(&d, &r); break;
    case HL_OP_DEVICE: d_device(&d, &r); break;
    case HL_OP_FX: d_fx(&d, &r); break;
    case HL_OP_DUCK: d_duck(&d, &r); break;
    case HL_OP_RZONE: d_rzone(&d, &r); break;
    case HL_OP_BANK: d_bank(&d, &r); break;
    case HL_OP_ZONE: d_zone(&d, &r); break;
    case HL_OP_LOAD_DATA: d_load_data(&d, &r); break;
    case HL_OP_LOAD_FD: d_load_fd(&d, &r); break;
    case HL_OP_CLOCK: d_clock(&d, &r); break;
    case HL_OP_PING:
    case HL_OP_SOUNDS:
    case HL_OP_VOICES:
    case HL_OP_DEVICES:
    case HL_OP_CUES:
    case HL_OP_BUSES:
    case HL_OP_DUCKS:
    case HL_OP_RZONES:
    case HL_OP_BANKS:
    case HL_OP_ZONES:
    case HL_OP_BUNDLE_BEGIN:
    case HL_OP_BUNDLE_END: d_empty(&d, &r); break;
    default: pr(&d, "unknown op %u\n", h.op); return HELIOD_EPROTO;
    }
    if (hl_rbuf_finish(&r) != 0) {
        pr(&d, "body does not decode (%zu of %zu bytes read)\n", r.off, r.len);
        return HELIOD_EPROTO;
    }
    return 0;
}
