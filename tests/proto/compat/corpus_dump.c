/*
 * corpus_dump.c - see corpus_dump.h. Keep it compiling against the 1.0
 * codec (git show 4550bf8:proto/hl_proto.h): it uses only the 1.0 structs'
 * fields and the hl_get_* decoders both versions have.
 */
#include "corpus_dump.h"

#include <stdarg.h>
#include <stddef.h>
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

/* One field of a request struct, as it prints: its wire name (the
 * member's), its kind, its size and place. */
typedef struct {
    const char *name;
    char kind;
    uint16_t size, off;
} fld_t;

/* U unsigned, S int32_t, X hex, F f32, D f64, T a name, V a vector, P a
 * post stage, A an f32 array (name[i]), L the names of a list whose count
 * is the field before it (name[i]). */
#define FLD(T, k, f)                                                                               \
    { #f, k, (uint16_t)sizeof(((T *)0)->f), (uint16_t)offsetof(T, f) }

/* The unsigned integer member of size bytes at p. */
static uint64_t get_uint(const void *p, size_t size) {
    return size == 1   ? *(const uint8_t *)p
           : size == 2 ? *(const uint16_t *)p
           : size == 4 ? *(const uint32_t *)p
                       : *(const uint64_t *)p;
}

/* Prints the n fields f of the request at m, in order (each points at a
 * member of its own type). */
static void fields(dump_t *d, const void *m, const fld_t *f, size_t n) {
    uint64_t count = 0; /* the last unsigned field: an L list's length */
    char nm[64];
    for (size_t i = 0; i < n; i++) {
        const void *p = (const char *)m + f[i].off;
        const char *name = f[i].name;
        switch (f[i].kind) {
        case 'U': uint(d, name, count = get_uint(p, f[i].size)); break;
        case 'S': sint(d, name, *(const int32_t *)p); break;
        case 'X': hex(d, name, (uint32_t)get_uint(p, f[i].size)); break;
        case 'F': f32(d, name, *(const float *)p); break;
        case 'D': f64(d, name, *(const double *)p); break;
        case 'T': str(d, name, p); break;
        case 'V': vec3(d, name, p); break;
        case 'P': post(d, name, p); break;
        case 'A':
            for (size_t k = 0; k < f[i].size / sizeof(float); k++) {
                snprintf(nm, sizeof nm, "%s[%zu]", name, k);
                f32(d, nm, ((const float *)p)[k]);
            }
            break;
        case 'L':
            for (size_t k = 0; k < count && k < f[i].size / (HL_MAX_NAME + 1u); k++) {
                snprintf(nm, sizeof nm, "%s[%zu]", name, k);
                str(d, nm, (const char *)p + k * (HL_MAX_NAME + 1u));
            }
            break;
        default: break;
        }
    }
}

/* The fields of each request, in the order the wire has them. */
static const fld_t k_hello[] = {FLD(hl_hello_t, 'U', version), FLD(hl_hello_t, 'T', client_name),
                                FLD(hl_hello_t, 'X', flags)};
static const fld_t k_load[] = {FLD(hl_load_t, 'T', name), FLD(hl_load_t, 'T', path),
                               FLD(hl_load_t, 'X', flags)};
static const fld_t k_name[] = {FLD(hl_name_t, 'T', name)};
static const fld_t k_play[] = {
    FLD(hl_play_t, 'T', sound),         FLD(hl_play_t, 'X', flags),
    FLD(hl_play_t, 'F', gain_db),       FLD(hl_play_t, 'F', pan),
    FLD(hl_play_t, 'V', pos),           FLD(hl_play_t, 'F', pitch),
    FLD(hl_play_t, 'S', priority),      FLD(hl_play_t, 'F', fade_in_ms),
    FLD(hl_play_t, 'F', min_distance),  FLD(hl_play_t, 'F', max_distance),
    FLD(hl_play_t, 'F', rolloff),       FLD(hl_play_t, 'U', model),
    FLD(hl_play_t, 'T', bus),           FLD(hl_play_t, 'U', loop_start),
    FLD(hl_play_t, 'U', loop_end),      FLD(hl_play_t, 'U', loop_count),
    FLD(hl_play_t, 'F', loop_xfade_ms), FLD(hl_play_t, 'V', vel),
    FLD(hl_play_t, 'T', emitter),       FLD(hl_play_t, 'X', over),
    FLD(hl_play_t, 'P', post)};
static const fld_t k_stop[] = {FLD(hl_stop_t, 'U', voice), FLD(hl_stop_t, 'F', fade_ms),
                               FLD(hl_stop_t, 'U', curve)};
static const fld_t k_stop_all[] = {FLD(hl_stop_all_t, 'F', fade_ms),
                                   FLD(hl_stop_all_t, 'U', scope)};
static const fld_t k_set[] = {FLD(hl_set_t, 'U', voice),   FLD(hl_set_t, 'X', mask),
                              FLD(hl_set_t, 'F', gain_db), FLD(hl_set_t, 'F', pan),
                              FLD(hl_set_t, 'V', pos),     FLD(hl_set_t, 'F', pitch),
                              FLD(hl_set_t, 'F', ramp_ms), FLD(hl_set_t, 'D', seek_s),
                              FLD(hl_set_t, 'V', vel),     FLD(hl_set_t, 'P', post)};
static const fld_t k_listener[] = {FLD(hl_listener_t, 'X', mask), FLD(hl_listener_t, 'V', pos),
                                   FLD(hl_listener_t, 'V', fwd), FLD(hl_listener_t, 'V', up),
                                   FLD(hl_listener_t, 'V', vel)};
static const fld_t k_stats_req[] = {FLD(hl_stats_req_t, 'X', flags)};
static const fld_t k_subscribe[] = {FLD(hl_subscribe_t, 'X', mask),
                                    FLD(hl_subscribe_t, 'F', meter_hz),
                                    FLD(hl_subscribe_t, 'F', profile_hz)};
static const fld_t k_bus[] = {FLD(hl_bus_t, 'T', name),    FLD(hl_bus_t, 'X', mask),
                              FLD(hl_bus_t, 'F', gain_db), FLD(hl_bus_t, 'F', ramp_ms),
                              FLD(hl_bus_t, 'U', mute),    FLD(hl_bus_t, 'T', parent),
                              FLD(hl_bus_t, 'T', send),    FLD(hl_bus_t, 'F', send_db)};
static const fld_t k_pause[] = {FLD(hl_pause_t, 'U', pause), FLD(hl_pause_t, 'U', scope),
                                FLD(hl_pause_t, 'T', group)};
static const fld_t k_cue[] = {FLD(hl_cue_t, 'T', name),
                              FLD(hl_cue_t, 'U', nsounds),
                              FLD(hl_cue_t, 'L', sounds),
                              FLD(hl_cue_t, 'U', pick),
                              FLD(hl_cue_t, 'X', flags),
                              FLD(hl_cue_t, 'F', gain_db),
                              FLD(hl_cue_t, 'F', gain_rand_db),
                              FLD(hl_cue_t, 'F', pitch),
                              FLD(hl_cue_t, 'F', pitch_rand_cents),
                              FLD(hl_cue_t, 'T', bus),
                              FLD(hl_cue_t, 'T', category),
                              FLD(hl_cue_t, 'S', priority),
                              FLD(hl_cue_t, 'F', pan),
                              FLD(hl_cue_t, 'F', min_distance),
                              FLD(hl_cue_t, 'F', max_distance),
                              FLD(hl_cue_t, 'F', rolloff),
                              FLD(hl_cue_t, 'U', model),
                              FLD(hl_cue_t, 'F', fade_in_ms),
                              FLD(hl_cue_t, 'F', fade_out_ms),
                              FLD(hl_cue_t, 'U', fade_curve),
                              FLD(hl_cue_t, 'U', max_instances),
                              FLD(hl_cue_t, 'U', overflow),
                              FLD(hl_cue_t, 'F', min_interval_ms),
                              FLD(hl_cue_t, 'U', beyond),
                              FLD(hl_cue_t, 'U', virt),
                              FLD(hl_cue_t, 'F', doppler),
                              FLD(hl_cue_t, 'P', post)};
static const fld_t k_category[] = {
    FLD(hl_category_t, 'T', name), FLD(hl_category_t, 'U', max_instances),
    FLD(hl_category_t, 'U', overflow), FLD(hl_category_t, 'F', fade_out_ms),
    FLD(hl_category_t, 'U', fade_curve)};
static const fld_t k_cues_load[] = {FLD(hl_cues_load_t, 'T', path)};
static const fld_t k_emitter[] = {FLD(hl_emitter_t, 'U', action), FLD(hl_emitter_t, 'T', name),
                                  FLD(hl_emitter_t, 'X', mask),   FLD(hl_emitter_t, 'V', pos),
                                  FLD(hl_emitter_t, 'V', vel),    FLD(hl_emitter_t, 'F', ramp_ms),
                                  FLD(hl_emitter_t, 'F', fade_ms)};
static const fld_t k_device_req[] = {FLD(hl_device_req_t, 'T', name)};
static const fld_t k_fx_req[] = {FLD(hl_fx_req_t, 'U', action), FLD(hl_fx_req_t, 'T', bus),
                                 FLD(hl_fx_req_t, 'U', index),  FLD(hl_fx_req_t, 'U', kind),
                                 FLD(hl_fx_req_t, 'U', type),   FLD(hl_fx_req_t, 'X', mask),
                                 FLD(hl_fx_req_t, 'A', p),      FLD(hl_fx_req_t, 'F', ramp_ms)};
static const fld_t k_duck_rule[] = {
    FLD(hl_duck_rule_t, 'T', bus),          FLD(hl_duck_rule_t, 'T', by),
    FLD(hl_duck_rule_t, 'U', on),           FLD(hl_duck_rule_t, 'F', depth_db),
    FLD(hl_duck_rule_t, 'F', threshold_db), FLD(hl_duck_rule_t, 'F', attack_ms),
    FLD(hl_duck_rule_t, 'F', hold_ms),      FLD(hl_duck_rule_t, 'F', release_ms)};
static const fld_t k_rzone[] = {FLD(hl_rzone_t, 'U', action), FLD(hl_rzone_t, 'T', name),
                                FLD(hl_rzone_t, 'V', pos),    FLD(hl_rzone_t, 'F', radius),
                                FLD(hl_rzone_t, 'F', fade),   FLD(hl_rzone_t, 'T', bus),
                                FLD(hl_rzone_t, 'T', feed),   FLD(hl_rzone_t, 'U', preset)};
static const fld_t k_bank[] = {FLD(hl_bank_t, 'U', action), FLD(hl_bank_t, 'T', arg)};
static const fld_t k_zone[] = {FLD(hl_zone_t, 'U', action), FLD(hl_zone_t, 'T', name),
                               FLD(hl_zone_t, 'T', bank), FLD(hl_zone_t, 'V', pos),
                               FLD(hl_zone_t, 'F', radius)};
static const fld_t k_load_data[] = {FLD(hl_load_data_t, 'T', name), FLD(hl_load_data_t, 'X', flags),
                                    FLD(hl_load_data_t, 'U', total),
                                    FLD(hl_load_data_t, 'U', offset),
                                    FLD(hl_load_data_t, 'U', len)};
static const fld_t k_load_fd[] = {FLD(hl_load_fd_t, 'T', name), FLD(hl_load_fd_t, 'X', flags),
                                  FLD(hl_load_fd_t, 'U', size)};

/* The requests as the daemon decodes them (by member name): each op's
 * struct, zeroed first. */
typedef union {
    hl_bank_t bank;
    hl_bus_t bus;
    hl_category_t category;
    hl_cue_t cue;
    hl_cues_load_t cues_load;
    hl_device_req_t device_req;
    hl_duck_rule_t duck_rule;
    hl_emitter_t emitter;
    hl_fx_req_t fx_req;
    hl_hello_t hello;
    hl_listener_t listener;
    hl_load_t load;
    hl_load_data_t load_data;
    hl_load_fd_t load_fd;
    hl_name_t name;
    hl_pause_t pause;
    hl_play_t play;
    hl_rzone_t rzone;
    hl_set_t set;
    hl_stats_req_t stats_req;
    hl_stop_t stop;
    hl_stop_all_t stop_all;
    hl_subscribe_t subscribe;
    hl_zone_t zone;
} req_t;

#define GET(m, name)                                                                               \
    hl_get_##name(r, &(m)->name),                                                                  \
        fields(d, &(m)->name, k_##name, sizeof k_##name / sizeof *k_##name)

/* The body of op into d: 0, or -1 for an op the corpus does not know. */
static int body(dump_t *d, hl_rbuf_t *r, uint16_t op) {
    req_t m;
    memset(&m, 0, sizeof m);
    switch (op) {
    case HL_OP_HELLO: GET(&m, hello); break;
    case HL_OP_LOAD: GET(&m, load); break;
    case HL_OP_UNLOAD:
    case HL_OP_FX_LIST: GET(&m, name); break;
    case HL_OP_PLAY: GET(&m, play); break;
    case HL_OP_STOP: GET(&m, stop); break;
    case HL_OP_STOP_ALL: GET(&m, stop_all); break;
    case HL_OP_SET: GET(&m, set); break;
    case HL_OP_LISTENER: GET(&m, listener); break;
    case HL_OP_STATS:
        if (r->len) hl_get_stats_req(r, &m.stats_req); /* an empty body means no flags */
        fields(d, &m.stats_req, k_stats_req, sizeof k_stats_req / sizeof *k_stats_req);
        break;
    case HL_OP_SUBSCRIBE:
        if (r->len == sizeof(uint32_t)) { /* the mask alone */
            m.subscribe.mask = hl_get_u32(r);
            if (m.subscribe.mask & ~(uint32_t)HL_SUB_MASK) r->err = HELIOD_EPROTO;
        } else {
            hl_get_subscribe(r, &m.subscribe);
        }
        fields(d, &m.subscribe, k_subscribe, sizeof k_subscribe / sizeof *k_subscribe);
        break;
    case HL_OP_BUS: GET(&m, bus); break;
    case HL_OP_PAUSE: GET(&m, pause); break;
    case HL_OP_CUE: GET(&m, cue); break;
    case HL_OP_CATEGORY: GET(&m, category); break;
    case HL_OP_CUES_LOAD: GET(&m, cues_load); break;
    case HL_OP_EMITTER: GET(&m, emitter); break;
    case HL_OP_DEVICE: GET(&m, device_req); break;
    case HL_OP_FX: GET(&m, fx_req); break;
    case HL_OP_DUCK: GET(&m, duck_rule); break;
    case HL_OP_RZONE: GET(&m, rzone); break;
    case HL_OP_BANK: GET(&m, bank); break;
    case HL_OP_ZONE: GET(&m, zone); break;
    case HL_OP_LOAD_DATA: {
        GET(&m, load_data);
        uint32_t h = 2166136261u; /* FNV-1a of the chunk */
        for (uint32_t i = 0; m.load_data.data && i < m.load_data.len; i++)
            h = (h ^ m.load_data.data[i]) * 16777619u;
        pr(d, "data=fnv1a:%08x\n", h);
        break;
    }
    case HL_OP_LOAD_FD: GET(&m, load_fd); break;
    case HL_OP_CLOCK:
        if (r->len == sizeof(uint64_t)) uint(d, "voice", hl_get_u64(r));
        break;
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
    case HL_OP_BUNDLE_END: break;
    default: return -1;
    }
    return 0;
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
    if (body(&d, &r, h.op) != 0) {
        pr(&d, "unknown op %u\n", h.op);
        return HELIOD_EPROTO;
    }
    if (hl_rbuf_finish(&r) != 0) {
        pr(&d, "body does not decode (%zu of %zu bytes read)\n", r.off, r.len);
        return HELIOD_EPROTO;
    }
    return 0;
}
