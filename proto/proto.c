/*
 * proto.c - the heliod wire codec: bounded little-endian writer and reader over
 * caller buffers, frame headers, every message body, and the semantic
 * validators shared by the daemon and libheliod.
 *
 * Nothing here allocates, does I/O or keeps global state, so the same code runs
 * in the daemon, the client library, the tests and the fuzzer. Decoders are
 * strict: a short read, an over-long string, an embedded NUL, an unknown flag
 * bit or an out-of-range enum makes the reader's sticky error HELIOD_EPROTO and
 * every later read returns zero; a declared count never sizes anything.
 */
#include "hl_proto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names and messages ------------------------------------------------- */

const char *hl_op_name(uint16_t op) {
    switch (op) {
#define HL_OP_NAME_(name, val, str)                                                                \
    case val: return str;
        HL_OP_MAP(HL_OP_NAME_)
#undef HL_OP_NAME_
    default: return NULL;
    }
}

const char *hl_strerror(int err) {
    switch (err) {
#define HL_ERR_MSG_(name, val, msg)                                                                \
    case val: return msg;
        HELIOD_ERRNO_MAP(HL_ERR_MSG_)
#undef HL_ERR_MSG_
    default: return "unknown error";
    }
}

const char *hl_errname(int err) {
    switch (err) {
#define HL_ERR_NAME_(name, val, msg)                                                               \
    case val: return #name;
        HELIOD_ERRNO_MAP(HL_ERR_NAME_)
#undef HL_ERR_NAME_
    default: return "EUNKNOWN";
    }
}

/* ---- writer ------------------------------------------------------------- */

void hl_wbuf_init(hl_wbuf_t *w, uint8_t *buf, size_t cap) {
    w->buf = buf;
    w->cap = buf ? cap : 0;
    w->len = 0;
    w->err = 0;
    w->frame_start = 0;
}

/* Reserves n bytes; NULL (and a sticky ETOOBIG) if they do not fit. */
static uint8_t *wbuf_reserve(hl_wbuf_t *w, size_t n) {
    if (w->err) return NULL;
    if (n > w->cap - w->len) {
        w->err = HELIOD_ETOOBIG;
        return NULL;
    }
    uint8_t *p = w->buf + w->len;
    w->len += n;
    return p;
}

static void put_le(hl_wbuf_t *w, uint64_t v, size_t n) {
    uint8_t *p = wbuf_reserve(w, n);
    if (!p) return;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void hl_put_u8(hl_wbuf_t *w, uint8_t v) {
    put_le(w, v, 1);
}
void hl_put_u16(hl_wbuf_t *w, uint16_t v) {
    put_le(w, v, 2);
}
void hl_put_u32(hl_wbuf_t *w, uint32_t v) {
    put_le(w, v, 4);
}
void hl_put_i32(hl_wbuf_t *w, int32_t v) {
    put_le(w, (uint32_t)v, 4);
}
void hl_put_u64(hl_wbuf_t *w, uint64_t v) {
    put_le(w, v, 8);
}
void hl_put_f32(hl_wbuf_t *w, float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    put_le(w, u, 4);
}
void hl_put_f64(hl_wbuf_t *w, double v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    put_le(w, u, 8);
}

void hl_put_str(hl_wbuf_t *w, const char *s, size_t max) {
    size_t n = s ? strlen(s) : 0;
    if (w->err) return;
    if (n > max || n > UINT16_MAX) {
        w->err = HELIOD_ETOOBIG;
        return;
    }
    hl_put_u16(w, (uint16_t)n);
    uint8_t *p = wbuf_reserve(w, n);
    if (p && n) memcpy(p, s, n);
}

/* ---- reader ------------------------------------------------------------- */

void hl_rbuf_init(hl_rbuf_t *r, const uint8_t *buf, size_t len) {
    r->buf = buf;
    r->len = buf ? len : 0;
    r->off = 0;
    r->err = 0;
}

/* Marks the reader failed; every later read returns zeros. */
static void rbuf_fail(hl_rbuf_t *r) {
    r->err = HELIOD_EPROTO;
}

static const uint8_t *rbuf_take(hl_rbuf_t *r, size_t n) {
    if (r->err) return NULL;
    if (n > r->len - r->off) {
        rbuf_fail(r);
        return NULL;
    }
    const uint8_t *p = r->buf + r->off;
    r->off += n;
    return p;
}

static uint64_t get_le(hl_rbuf_t *r, size_t n) {
    const uint8_t *p = rbuf_take(r, n);
    uint64_t v = 0;
    if (!p) return 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint8_t hl_get_u8(hl_rbuf_t *r) {
    return (uint8_t)get_le(r, 1);
}
uint16_t hl_get_u16(hl_rbuf_t *r) {
    return (uint16_t)get_le(r, 2);
}
uint32_t hl_get_u32(hl_rbuf_t *r) {
    return (uint32_t)get_le(r, 4);
}
int32_t hl_get_i32(hl_rbuf_t *r) {
    return (int32_t)(uint32_t)get_le(r, 4);
}
uint64_t hl_get_u64(hl_rbuf_t *r) {
    return get_le(r, 8);
}
float hl_get_f32(hl_rbuf_t *r) {
    uint32_t u = (uint32_t)get_le(r, 4);
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}
double hl_get_f64(hl_rbuf_t *r) {
    uint64_t u = get_le(r, 8);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

void hl_get_str(hl_rbuf_t *r, char *dst, size_t cap) {
    if (cap) dst[0] = '\0';
    uint16_t n = hl_get_u16(r);
    if (r->err) return;
    if (cap == 0 || n > cap - 1) {
        rbuf_fail(r);
        return;
    }
    const uint8_t *p = rbuf_take(r, n);
    if (!p) return;
    if (n && memchr(p, '\0', n)) {
        rbuf_fail(r);
        return;
    }
    memcpy(dst, p, n);
    dst[n] = '\0';
}

int hl_rbuf_finish(const hl_rbuf_t *r) {
    if (r->err || r->off != r->len) return HELIOD_EPROTO;
    return 0;
}

/* Flag word with only `mask` bits allowed. */
static uint32_t get_flags32(hl_rbuf_t *r, uint32_t mask) {
    uint32_t v = hl_get_u32(r);
    if (v & ~mask) rbuf_fail(r);
    return v & mask;
}

/* Enum byte in [0, max]. */
static uint8_t get_enum8(hl_rbuf_t *r, uint8_t max) {
    uint8_t v = hl_get_u8(r);
    if (v > max) {
        rbuf_fail(r);
        return 0;
    }
    return v;
}

static void put_vec3(hl_wbuf_t *w, const float v[3]) {
    for (int i = 0; i < 3; i++)
        hl_put_f32(w, v[i]);
}
static void get_vec3(hl_rbuf_t *r, float v[3]) {
    for (int i = 0; i < 3; i++)
        v[i] = hl_get_f32(r);
}

/* ---- frames ------------------------------------------------------------- */

static void put_vpost(hl_wbuf_t *w, const hl_vpost_t *m) {
    hl_put_f32(w, m->lp_hz);
    hl_put_f32(w, m->hp_hz);
    hl_put_f32(w, m->occlusion);
    hl_put_f32(w, m->obstruction);
    for (int i = 0; i < HL_VOICE_SENDS; i++) {
        hl_put_str(w, m->send[i], HL_MAX_NAME);
        hl_put_f32(w, m->send_db[i]);
    }
}
static void get_vpost(hl_rbuf_t *r, hl_vpost_t *m) {
    m->lp_hz = hl_get_f32(r);
    m->hp_hz = hl_get_f32(r);
    m->occlusion = hl_get_f32(r);
    m->obstruction = hl_get_f32(r);
    for (int i = 0; i < HL_VOICE_SENDS; i++) {
        hl_get_str(r, m->send[i], sizeof m->send[i]);
        m->send_db[i] = hl_get_f32(r);
    }
}

void hl_frame_begin(hl_wbuf_t *w, uint16_t op, uint16_t flags, uint32_t id) {
    w->frame_start = w->len;
    hl_put_u32(w, 0);
    hl_put_u16(w, op);
    hl_put_u16(w, flags);
    hl_put_u32(w, id);
}

int hl_frame_end(hl_wbuf_t *w) {
    if (w->err) return w->err;
    size_t size = w->len - w->frame_start;
    if (size < HL_FRAME_HDR || size > HL_MAX_FRAME) {
        w->err = HELIOD_ETOOBIG;
        return w->err;
    }
    uint8_t *p = w->buf + w->frame_start;
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(size >> (8 * i));
    return (int)size;
}

int hl_frame_peek(const uint8_t *buf, size_t avail, hl_frame_hdr_t *hdr) {
    if (avail < HL_FRAME_HDR) return 1;
    hl_rbuf_t r;
    hl_rbuf_init(&r, buf, HL_FRAME_HDR);
    hl_frame_hdr_t h;
    h.size = hl_get_u32(&r);
    h.op = hl_get_u16(&r);
    h.flags = hl_get_u16(&r);
    h.id = hl_get_u32(&r);
    if (h.size > HL_MAX_FRAME) return HELIOD_ETOOBIG;
    if (h.size < HL_FRAME_HDR || (h.flags & ~HL_FLAG_MASK)) return HELIOD_EPROTO;
    *hdr = h;
    return 0;
}

/* ---- bodies ------------------------------------------------------------- */

void hl_put_reply_head(hl_wbuf_t *w, const hl_reply_head_t *h) {
    hl_put_u16(w, h->req_op);
    hl_put_i32(w, h->status);
}
void hl_get_reply_head(hl_rbuf_t *r, hl_reply_head_t *h) {
    h->req_op = hl_get_u16(r);
    h->status = hl_get_i32(r);
    if (h->status > 0 || h->status < HELIOD_ERR_MIN) rbuf_fail(r);
}

/* Bytes left to read (0 once the reader failed). */
static size_t rbuf_left(const hl_rbuf_t *r) {
    return r->err ? 0 : r->len - r->off;
}

void hl_put_hello(hl_wbuf_t *w, const hl_hello_t *m) {
    hl_put_u16(w, m->version);
    hl_put_str(w, m->client_name, HL_MAX_NAME);
    hl_put_u32(w, m->flags);
    if (m->minor) hl_put_u16(w, m->minor); /* 1.1; 1.0 is said by leaving it out */
}
void hl_get_hello(hl_rbuf_t *r, hl_hello_t *m) {
    m->version = hl_get_u16(r);
    hl_get_str(r, m->client_name, sizeof m->client_name);
    m->flags = get_flags32(r, HL_HELLO_MASK);
    m->minor = 0; /* 1.0: the body ends here */
    if (rbuf_left(r) == 0) return;
    m->minor = hl_get_u16(r);
    if (m->minor == 0) rbuf_fail(r); /* canonical: a 1.0 client sends no minor */
    /* a later minor's fields: not ours to read, the client learns our minor */
    if (!r->err && m->version == HL_PROTO_VERSION && m->minor > HL_PROTO_MINOR) r->off = r->len;
}

void hl_put_hello_reply(hl_wbuf_t *w, const hl_hello_reply_t *m) {
    hl_put_u16(w, m->version);
    hl_put_u32(w, m->rate);
    hl_put_u32(w, m->period);
    hl_put_u32(w, m->voices);
    hl_put_u32(w, m->client_id);
    hl_put_str(w, m->server_version, HL_MAX_NAME);
    hl_put_u32(w, m->flags);
    if (m->minor) hl_put_u16(w, m->minor); /* 1.1: only to a client that sent its minor */
}
void hl_get_hello_reply(hl_rbuf_t *r, hl_hello_reply_t *m) {
    m->version = hl_get_u16(r);
    m->rate = hl_get_u32(r);
    m->period = hl_get_u32(r);
    m->voices = hl_get_u32(r);
    m->client_id = hl_get_u32(r);
    hl_get_str(r, m->server_version, sizeof m->server_version);
    m->flags = get_flags32(r, HL_HELLO_MASK);
    m->minor = rbuf_left(r) ? hl_get_u16(r) : 0; /* absent: a 1.0 daemon */
}

void hl_put_load(hl_wbuf_t *w, const hl_load_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_str(w, m->path, HL_MAX_PATH);
    hl_put_u32(w, m->flags);
}
void hl_get_load(hl_rbuf_t *r, hl_load_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
    hl_get_str(r, m->path, sizeof m->path);
    m->flags = get_flags32(r, HL_LOAD_MASK);
}

void hl_put_sound_info(hl_wbuf_t *w, const hl_sound_info_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_u32(w, m->frames);
    hl_put_u16(w, m->channels);
    hl_put_u32(w, m->source_rate);
    hl_put_u32(w, m->flags);
    hl_put_u32(w, m->playing);
    hl_put_u32(w, m->owner);
}
void hl_get_sound_info(hl_rbuf_t *r, hl_sound_info_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
    m->frames = hl_get_u32(r);
    m->channels = hl_get_u16(r);
    m->source_rate = hl_get_u32(r);
    m->flags = get_flags32(r, HL_LOAD_MASK);
    m->playing = hl_get_u32(r);
    m->owner = hl_get_u32(r);
}

void hl_put_name(hl_wbuf_t *w, const hl_name_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
}
void hl_get_name(hl_rbuf_t *r, hl_name_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
}

void hl_put_play(hl_wbuf_t *w, const hl_play_t *m) {
    hl_put_str(w, m->sound, HL_MAX_NAME);
    hl_put_u32(w, m->flags);
    hl_put_f32(w, m->gain_db);
    hl_put_f32(w, m->pan);
    put_vec3(w, m->pos);
    hl_put_f32(w, m->pitch);
    hl_put_i32(w, m->priority);
    hl_put_f32(w, m->fade_in_ms);
    hl_put_f32(w, m->min_distance);
    hl_put_f32(w, m->max_distance);
    hl_put_f32(w, m->rolloff);
    hl_put_u8(w, m->model);
    hl_put_str(w, m->bus, HL_MAX_NAME);
    hl_put_u32(w, m->loop_start);
    hl_put_u32(w, m->loop_end);
    hl_put_u32(w, m->loop_count);
    hl_put_f32(w, m->loop_xfade_ms);
    put_vec3(w, m->vel);
    hl_put_str(w, m->emitter, HL_MAX_NAME);
    hl_put_u32(w, m->over);
    put_vpost(w, &m->post);
}
void hl_get_play(hl_rbuf_t *r, hl_play_t *m) {
    hl_get_str(r, m->sound, sizeof m->sound);
    m->flags = get_flags32(r, HL_PLAY_MASK);
    m->gain_db = hl_get_f32(r);
    m->pan = hl_get_f32(r);
    get_vec3(r, m->pos);
    m->pitch = hl_get_f32(r);
    m->priority = hl_get_i32(r);
    m->fade_in_ms = hl_get_f32(r);
    m->min_distance = hl_get_f32(r);
    m->max_distance = hl_get_f32(r);
    m->rolloff = hl_get_f32(r);
    m->model = get_enum8(r, HL_DIST_EXPONENTIAL);
    hl_get_str(r, m->bus, sizeof m->bus);
    m->loop_start = hl_get_u32(r);
    m->loop_end = hl_get_u32(r);
    m->loop_count = hl_get_u32(r);
    m->loop_xfade_ms = hl_get_f32(r);
    get_vec3(r, m->vel);
    hl_get_str(r, m->emitter, sizeof m->emitter);
    m->over = get_flags32(r, HL_OVER_MASK);
    get_vpost(r, &m->post);
}

void hl_put_play_reply(hl_wbuf_t *w, const hl_play_reply_t *m) {
    hl_put_u64(w, m->voice);
    hl_put_u64(w, m->stolen);
}
void hl_get_play_reply(hl_rbuf_t *r, hl_play_reply_t *m) {
    m->voice = hl_get_u64(r);
    m->stolen = hl_get_u64(r);
}

void hl_put_stop(hl_wbuf_t *w, const hl_stop_t *m) {
    hl_put_u64(w, m->voice);
    hl_put_f32(w, m->fade_ms);
    hl_put_u8(w, m->curve);
}
void hl_get_stop(hl_rbuf_t *r, hl_stop_t *m) {
    m->voice = hl_get_u64(r);
    m->fade_ms = hl_get_f32(r);
    m->curve = get_enum8(r, HL_STOP_CURVE(HL_CURVE_LOG));
}

void hl_put_stop_all(hl_wbuf_t *w, const hl_stop_all_t *m) {
    hl_put_f32(w, m->fade_ms);
    hl_put_u8(w, m->scope);
}
void hl_get_stop_all(hl_rbuf_t *r, hl_stop_all_t *m) {
    m->fade_ms = hl_get_f32(r);
    m->scope = get_enum8(r, HL_STOP_ALL_EVERYONE);
}

void hl_put_count_reply(hl_wbuf_t *w, const hl_count_reply_t *m) {
    hl_put_u32(w, m->count);
}
void hl_get_count_reply(hl_rbuf_t *r, hl_count_reply_t *m) {
    m->count = hl_get_u32(r);
}

void hl_put_set(hl_wbuf_t *w, const hl_set_t *m) {
    hl_put_u64(w, m->voice);
    hl_put_u32(w, m->mask);
    hl_put_f32(w, m->gain_db);
    hl_put_f32(w, m->pan);
    put_vec3(w, m->pos);
    hl_put_f32(w, m->pitch);
    hl_put_f32(w, m->ramp_ms);
    hl_put_f64(w, m->seek_s);
    put_vec3(w, m->vel);
    put_vpost(w, &m->post);
}
void hl_get_set(hl_rbuf_t *r, hl_set_t *m) {
    m->voice = hl_get_u64(r);
    m->mask = get_flags32(r, HL_SET_MASK);
    m->gain_db = hl_get_f32(r);
    m->pan = hl_get_f32(r);
    get_vec3(r, m->pos);
    m->pitch = hl_get_f32(r);
    m->ramp_ms = hl_get_f32(r);
    m->seek_s = hl_get_f64(r);
    get_vec3(r, m->vel);
    get_vpost(r, &m->post);
}

void hl_put_pause(hl_wbuf_t *w, const hl_pause_t *m) {
    hl_put_u8(w, m->pause);
    hl_put_u8(w, m->scope);
    hl_put_str(w, m->group, HL_MAX_NAME);
}
void hl_get_pause(hl_rbuf_t *r, hl_pause_t *m) {
    m->pause = get_enum8(r, 1);
    m->scope = get_enum8(r, HL_PAUSE_CATEGORY);
    hl_get_str(r, m->group, sizeof m->group);
}

void hl_put_listener(hl_wbuf_t *w, const hl_listener_t *m) {
    hl_put_u32(w, m->mask);
    put_vec3(w, m->pos);
    put_vec3(w, m->fwd);
    put_vec3(w, m->up);
    put_vec3(w, m->vel);
}
void hl_get_listener(hl_rbuf_t *r, hl_listener_t *m) {
    m->mask = get_flags32(r, HL_LIS_MASK);
    get_vec3(r, m->pos);
    get_vec3(r, m->fwd);
    get_vec3(r, m->up);
    get_vec3(r, m->vel);
}

void hl_put_voice_info(hl_wbuf_t *w, const hl_voice_info_t *m) {
    hl_put_u64(w, m->voice);
    hl_put_str(w, m->sound, HL_MAX_NAME);
    hl_put_u32(w, m->owner);
    hl_put_i32(w, m->priority);
    hl_put_u32(w, m->flags);
    hl_put_u8(w, m->state);
    hl_put_f32(w, m->gain_db);
    hl_put_f32(w, m->pan);
    put_vec3(w, m->pos);
    hl_put_f32(w, m->pitch);
    hl_put_str(w, m->bus, HL_MAX_NAME);
    hl_put_str(w, m->cue, HL_MAX_NAME);
    hl_put_str(w, m->category, HL_MAX_NAME);
    hl_put_str(w, m->emitter, HL_MAX_NAME);
    hl_put_f32(w, m->audibility_db);
    hl_put_f64(w, m->position_s);
    put_vpost(w, &m->post);
}
void hl_get_voice_info(hl_rbuf_t *r, hl_voice_info_t *m) {
    m->voice = hl_get_u64(r);
    hl_get_str(r, m->sound, sizeof m->sound);
    m->owner = hl_get_u32(r);
    m->priority = hl_get_i32(r);
    m->flags = get_flags32(r, HL_PLAY_MASK);
    m->state = get_enum8(r, HL_VOICE_VPAUSED);
    m->gain_db = hl_get_f32(r);
    m->pan = hl_get_f32(r);
    get_vec3(r, m->pos);
    m->pitch = hl_get_f32(r);
    hl_get_str(r, m->bus, sizeof m->bus);
    hl_get_str(r, m->cue, sizeof m->cue);
    hl_get_str(r, m->category, sizeof m->category);
    hl_get_str(r, m->emitter, sizeof m->emitter);
    m->audibility_db = hl_get_f32(r);
    m->position_s = hl_get_f64(r);
    get_vpost(r, &m->post);
}

#define HL_DEV_MASK (HL_DEV_DEFAULT | HL_DEV_CURRENT)
void hl_put_device_info(hl_wbuf_t *w, const hl_device_info_t *m) {
    hl_put_u32(w, m->index);
    hl_put_str(w, m->name, HL_MAX_DEVNAME);
    hl_put_str(w, m->hostapi, HL_MAX_NAME);
    hl_put_u16(w, m->max_channels);
    hl_put_f64(w, m->default_rate);
    hl_put_u8(w, m->flags);
}
void hl_get_device_info(hl_rbuf_t *r, hl_device_info_t *m) {
    m->index = hl_get_u32(r);
    hl_get_str(r, m->name, sizeof m->name);
    hl_get_str(r, m->hostapi, sizeof m->hostapi);
    m->max_channels = hl_get_u16(r);
    m->default_rate = hl_get_f64(r);
    m->flags = hl_get_u8(r);
    if (m->flags & ~HL_DEV_MASK) {
        rbuf_fail(r);
        m->flags = 0;
    }
}

void hl_put_stats_req(hl_wbuf_t *w, const hl_stats_req_t *m) {
    hl_put_u32(w, m->flags);
}
void hl_get_stats_req(hl_rbuf_t *r, hl_stats_req_t *m) {
    m->flags = get_flags32(r, HL_STATS_RESET);
}

void hl_put_stat(hl_wbuf_t *w, const hl_stat_t *m) {
    hl_put_str(w, m->key, HL_MAX_NAME);
    hl_put_f64(w, m->value);
}
void hl_get_stat(hl_rbuf_t *r, hl_stat_t *m) {
    hl_get_str(r, m->key, sizeof m->key);
    m->value = hl_get_f64(r);
}

void hl_put_subscribe(hl_wbuf_t *w, const hl_subscribe_t *m) {
    hl_put_u32(w, m->mask);
    hl_put_f32(w, m->meter_hz);
    if (m->profile_hz != 0.0f) hl_put_f32(w, m->profile_hz); /* optional: 0 when absent */
}
void hl_get_subscribe(hl_rbuf_t *r, hl_subscribe_t *m) {
    m->mask = get_flags32(r, HL_SUB_MASK);
    m->meter_hz = hl_get_f32(r);
    m->profile_hz = r->len - r->off >= sizeof(float) ? hl_get_f32(r) : 0.0f;
}

void hl_put_bus(hl_wbuf_t *w, const hl_bus_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_u32(w, m->mask);
    hl_put_f32(w, m->gain_db);
    hl_put_f32(w, m->ramp_ms);
    hl_put_u8(w, m->mute);
    hl_put_str(w, m->parent, HL_MAX_NAME);
    hl_put_str(w, m->send, HL_MAX_NAME);
    hl_put_f32(w, m->send_db);
}
void hl_get_bus(hl_rbuf_t *r, hl_bus_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
    m->mask = get_flags32(r, HL_BUS_MASK);
    m->gain_db = hl_get_f32(r);
    m->ramp_ms = hl_get_f32(r);
    m->mute = get_enum8(r, 1);
    hl_get_str(r, m->parent, sizeof m->parent);
    hl_get_str(r, m->send, sizeof m->send);
    m->send_db = hl_get_f32(r);
}

void hl_put_bus_info(hl_wbuf_t *w, const hl_bus_info_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_str(w, m->parent, HL_MAX_NAME);
    hl_put_f32(w, m->gain_db);
    hl_put_u8(w, m->mute);
    hl_put_u8(w, m->fx);
    hl_put_u32(w, m->voices);
    hl_put_u32(w, m->sends);
    hl_put_f32(w, m->duck_db);
    hl_put_f32(w, m->path_gain_db);
    for (int i = 0; i < HL_BUS_SENDS_MAX; i++) {
        hl_put_str(w, m->send[i], HL_MAX_NAME);
        hl_put_f32(w, m->send_db[i]);
    }
}
void hl_get_bus_info(hl_rbuf_t *r, hl_bus_info_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
    hl_get_str(r, m->parent, sizeof m->parent);
    m->gain_db = hl_get_f32(r);
    m->mute = get_enum8(r, 1);
    m->fx = hl_get_u8(r);
    m->voices = hl_get_u32(r);
    m->sends = hl_get_u32(r);
    m->duck_db = hl_get_f32(r);
    m->path_gain_db = hl_get_f32(r);
    for (int i = 0; i < HL_BUS_SENDS_MAX; i++) {
        hl_get_str(r, m->send[i], sizeof m->send[i]);
        m->send_db[i] = hl_get_f32(r);
    }
}

void hl_put_rzone(hl_wbuf_t *w, const hl_rzone_t *m) {
    hl_put_u8(w, m->action);
    hl_put_str(w, m->name, HL_MAX_NAME);
    put_vec3(w, m->pos);
    hl_put_f32(w, m->radius);
    hl_put_f32(w, m->fade);
    hl_put_str(w, m->bus, HL_MAX_NAME);
    hl_put_str(w, m->feed, HL_MAX_NAME);
    hl_put_u8(w, m->preset);
}
void hl_get_rzone(hl_rbuf_t *r, hl_rzone_t *m) {
    m->action = get_enum8(r, HL_RZONE_REMOVE);
    hl_get_str(r, m->name, sizeof m->name);
    get_vec3(r, m->pos);
    m->radius = hl_get_f32(r);
    m->fade = hl_get_f32(r);
    hl_get_str(r, m->bus, sizeof m->bus);
    hl_get_str(r, m->feed, sizeof m->feed);
    m->preset = get_enum8(r, HL_REV_OUTDOOR);
}
void hl_put_rzone_info(hl_wbuf_t *w, const hl_rzone_info_t *m) {
    hl_put_rzone(w, &m->zone);
    hl_put_f32(w, m->weight);
    hl_put_f32(w, m->send_db);
}
void hl_get_rzone_info(hl_rbuf_t *r, hl_rzone_info_t *m) {
    hl_get_rzone(r, &m->zone);
    m->weight = hl_get_f32(r);
    m->send_db = hl_get_f32(r);
}

void hl_put_fx_req(hl_wbuf_t *w, const hl_fx_req_t *m) {
    hl_put_u8(w, m->action);
    hl_put_str(w, m->bus, HL_MAX_NAME);
    hl_put_u32(w, m->index);
    hl_put_u8(w, m->kind);
    hl_put_u8(w, m->type);
    hl_put_u32(w, m->mask);
    for (int i = 0; i < HL_FX_PARAMS; i++)
        hl_put_f32(w, m->p[i]);
    hl_put_f32(w, m->ramp_ms);
}
void hl_get_fx_req(hl_rbuf_t *r, hl_fx_req_t *m) {
    m->action = get_enum8(r, HL_FX_REMOVE);
    hl_get_str(r, m->bus, sizeof m->bus);
    m->index = hl_get_u32(r);
    m->kind = get_enum8(r, HL_FXK_REVERB);
    m->type = get_enum8(r, HL_EQ_PEAK);
    m->mask = get_flags32(r, HL_FXP_MASK);
    for (int i = 0; i < HL_FX_PARAMS; i++)
        m->p[i] = hl_get_f32(r);
    m->ramp_ms = hl_get_f32(r);
}
void hl_put_fx_info(hl_wbuf_t *w, const hl_fx_info_t *m) {
    hl_put_str(w, m->bus, HL_MAX_NAME);
    hl_put_u32(w, m->index);
    hl_put_u8(w, m->kind);
    hl_put_u8(w, m->type);
    for (int i = 0; i < HL_FX_PARAMS; i++)
        hl_put_f32(w, m->p[i]);
}
void hl_get_fx_info(hl_rbuf_t *r, hl_fx_info_t *m) {
    hl_get_str(r, m->bus, sizeof m->bus);
    m->index = hl_get_u32(r);
    m->kind = get_enum8(r, HL_FXK_REVERB);
    m->type = get_enum8(r, HL_EQ_PEAK);
    for (int i = 0; i < HL_FX_PARAMS; i++)
        m->p[i] = hl_get_f32(r);
}

void hl_put_duck_rule(hl_wbuf_t *w, const hl_duck_rule_t *m) {
    hl_put_str(w, m->bus, HL_MAX_NAME);
    hl_put_str(w, m->by, HL_MAX_NAME);
    hl_put_u8(w, m->on);
    hl_put_f32(w, m->depth_db);
    hl_put_f32(w, m->threshold_db);
    hl_put_f32(w, m->attack_ms);
    hl_put_f32(w, m->hold_ms);
    hl_put_f32(w, m->release_ms);
}
void hl_get_duck_rule(hl_rbuf_t *r, hl_duck_rule_t *m) {
    hl_get_str(r, m->bus, sizeof m->bus);
    hl_get_str(r, m->by, sizeof m->by);
    m->on = get_enum8(r, 1);
    m->depth_db = hl_get_f32(r);
    m->threshold_db = hl_get_f32(r);
    m->attack_ms = hl_get_f32(r);
    m->hold_ms = hl_get_f32(r);
    m->release_ms = hl_get_f32(r);
}
void hl_put_duck_info(hl_wbuf_t *w, const hl_duck_info_t *m) {
    hl_put_duck_rule(w, &m->rule);
    hl_put_f32(w, m->gain_db);
}
void hl_get_duck_info(hl_rbuf_t *r, hl_duck_info_t *m) {
    hl_get_duck_rule(r, &m->rule);
    m->gain_db = hl_get_f32(r);
}
void hl_duck_rule_init(hl_duck_rule_t *d) {
    memset(d, 0, sizeof *d);
    d->on = 1;
    d->depth_db = HL_DUCK_DEPTH_DB;
    d->threshold_db = HL_DUCK_THRESHOLD_DB;
    d->attack_ms = HL_DUCK_ATTACK_MS;
    d->hold_ms = HL_DUCK_HOLD_MS;
    d->release_ms = HL_DUCK_RELEASE_MS;
}

void hl_put_list_head(hl_wbuf_t *w, const hl_list_head_t *m) {
    hl_put_u16(w, m->count);
    hl_put_u8(w, m->truncated);
}
void hl_get_list_head(hl_rbuf_t *r, hl_list_head_t *m) {
    m->count = hl_get_u16(r);
    m->truncated = get_enum8(r, 1);
    if (m->count > HL_MAX_LIST) {
        rbuf_fail(r);
        m->count = 0;
    }
}

/* ---- METER events ---------------------------------------------------- */

/* A level in dB as the wire allows it: finite, in [floor, HL_METER_MAX_DB]. */
static float get_db(hl_rbuf_t *r, float floor) {
    float v = hl_get_f32(r);
    if (!(v >= floor && v <= HL_METER_MAX_DB)) { /* NaN too */
        rbuf_fail(r);
        return 0.0f;
    }
    return v;
}

static void put_level(hl_wbuf_t *w, const hl_meter_level_t *l) {
    for (int c = 0; c < 2; c++)
        hl_put_f32(w, l->peak_db[c]);
    for (int c = 0; c < 2; c++)
        hl_put_f32(w, l->peak_hold_db[c]);
    for (int c = 0; c < 2; c++)
        hl_put_f32(w, l->rms_db[c]);
}

static void get_level(hl_rbuf_t *r, hl_meter_level_t *l) {
    for (int c = 0; c < 2; c++)
        l->peak_db[c] = get_db(r, HL_METER_FLOOR_DB);
    for (int c = 0; c < 2; c++)
        l->peak_hold_db[c] = get_db(r, HL_METER_FLOOR_DB);
    for (int c = 0; c < 2; c++)
        l->rms_db[c] = get_db(r, HL_METER_FLOOR_DB);
}

static void put_meter(hl_wbuf_t *w, const hl_meter_t *m) {
    hl_put_u64(w, m->frame);
    hl_put_f32(w, m->momentary);
    hl_put_f32(w, m->short_term);
    hl_put_f32(w, m->integrated);
    hl_put_f32(w, m->range);
    put_level(w, &m->master);
    if (m->nbuses > HL_METER_MAX_BUSES) {
        if (!w->err) w->err = HELIOD_ETOOBIG;
        return;
    }
    hl_put_u8(w, m->nbuses);
    for (unsigned i = 0; i < m->nbuses; i++) {
        if (!hl_name_valid(m->bus[i].name) && !w->err) w->err = HELIOD_EINVAL;
        hl_put_str(w, m->bus[i].name, HL_MAX_NAME);
        put_level(w, &m->bus[i]);
    }
}

static void get_meter(hl_rbuf_t *r, hl_meter_t *m) {
    m->frame = hl_get_u64(r);
    m->momentary = get_db(r, HL_METER_FLOOR_DB);
    m->short_term = get_db(r, HL_METER_FLOOR_DB);
    m->integrated = get_db(r, HL_METER_FLOOR_DB);
    m->range = get_db(r, 0.0f);
    get_level(r, &m->master);
    m->nbuses = hl_get_u8(r);
    if (m->nbuses > HL_METER_MAX_BUSES) {
        rbuf_fail(r);
        m->nbuses = 0;
        return;
    }
    for (unsigned i = 0; i < m->nbuses && !r->err; i++) {
        hl_get_str(r, m->bus[i].name, sizeof m->bus[i].name);
        if (!r->err && !hl_name_valid(m->bus[i].name)) rbuf_fail(r);
        get_level(r, &m->bus[i]);
    }
}

/* ---- PROFILE events (profiler issue) ------------------------------------ */

static float get_load(hl_rbuf_t *r) {
    float v = hl_get_f32(r);
    if (!(v >= 0.0f && v <= HL_PROFILE_MAX_LOAD)) { /* NaN too */
        rbuf_fail(r);
        return 0.0f;
    }
    return v;
}

static void put_profile(hl_wbuf_t *w, const hl_profile_t *m) {
    hl_put_u64(w, m->time_ns);
    hl_put_f32(w, m->period_us);
    hl_put_u32(w, m->callbacks);
    hl_put_f32(w, m->load_now);
    hl_put_f32(w, m->load_peak);
    hl_put_f32(w, m->load_p99);
    hl_put_f32(w, m->load_max);
    for (int k = 0; k < HL_PROFILE_HIST; k++)
        hl_put_u32(w, m->hist[k]);
    hl_put_u64(w, m->xruns);
    hl_put_u64(w, m->underruns);
    hl_put_u32(w, m->voices_real);
    hl_put_u32(w, m->voices_virtual);
    hl_put_f32(w, m->decode_load);
    hl_put_u16(w, m->streams);
    if (m->nstreams > HL_PROFILE_MAX_STREAMS || m->nbuses > HL_PROFILE_MAX_BUSES) {
        if (!w->err) w->err = HELIOD_ETOOBIG;
        return;
    }
    hl_put_u8(w, m->nstreams);
    for (unsigned i = 0; i < m->nstreams; i++) {
        hl_put_str(w, m->stream[i].sound, HL_MAX_NAME);
        hl_put_f32(w, m->stream[i].fill);
    }
    hl_put_f32(w, m->master_peak_db);
    hl_put_f32(w, m->master_rms_db);
    hl_put_u8(w, m->nbuses);
    for (unsigned i = 0; i < m->nbuses; i++) {
        const hl_profile_bus_t *b = &m->bus[i];
        if (!hl_name_valid(b->name) && !w->err) w->err = HELIOD_EINVAL;
        hl_put_str(w, b->name, HL_MAX_NAME);
        hl_put_f32(w, b->peak_db);
        hl_put_f32(w, b->peak_hold_db);
        hl_put_f32(w, b->rms_db);
        hl_put_u16(w, b->real);
        hl_put_u16(w, b->virt);
    }
}

static void get_profile(hl_rbuf_t *r, hl_profile_t *m) {
    m->time_ns = hl_get_u64(r);
    m->period_us = hl_get_f32(r);
    if (!(m->period_us > 0.0f && m->period_us <= HL_PROFILE_MAX_LOAD)) rbuf_fail(r);
    m->callbacks = hl_get_u32(r);
    m->load_now = get_load(r);
    m->load_peak = get_load(r);
    m->load_p99 = get_load(r);
    m->load_max = get_load(r);
    for (int k = 0; k < HL_PROFILE_HIST; k++)
        m->hist[k] = hl_get_u32(r);
    m->xruns = hl_get_u64(r);
    m->underruns = hl_get_u64(r);
    m->voices_real = hl_get_u32(r);
    m->voices_virtual = hl_get_u32(r);
    m->decode_load = get_load(r);
    m->streams = hl_get_u16(r);
    m->nstreams = hl_get_u8(r);
    if (m->nstreams > HL_PROFILE_MAX_STREAMS) {
        rbuf_fail(r);
        m->nstreams = 0;
        return;
    }
    for (unsigned i = 0; i < m->nstreams && !r->err; i++) {
        hl_get_str(r, m->stream[i].sound, sizeof m->stream[i].sound);
        float f = hl_get_f32(r);
        if (!(f >= 0.0f && f <= 1.0f)) rbuf_fail(r);
        m->stream[i].fill = f;
    }
    m->master_peak_db = get_db(r, HL_METER_FLOOR_DB);
    m->master_rms_db = get_db(r, HL_METER_FLOOR_DB);
    m->nbuses = hl_get_u8(r);
    if (m->nbuses > HL_PROFILE_MAX_BUSES) {
        rbuf_fail(r);
        m->nbuses = 0;
        return;
    }
    for (unsigned i = 0; i < m->nbuses && !r->err; i++) {
        hl_profile_bus_t *b = &m->bus[i];
        hl_get_str(r, b->name, sizeof b->name);
        if (!r->err && !hl_name_valid(b->name)) rbuf_fail(r);
        b->peak_db = get_db(r, HL_METER_FLOOR_DB);
        b->peak_hold_db = get_db(r, HL_METER_FLOOR_DB);
        b->rms_db = get_db(r, HL_METER_FLOOR_DB);
        b->real = hl_get_u16(r);
        b->virt = hl_get_u16(r);
    }
}

void hl_put_event(hl_wbuf_t *w, const hl_event_t *m) {
    hl_put_u16(w, m->type);
    switch (m->type) {
    case HL_EVENT_ERROR:
        hl_put_u16(w, m->req_op);
        hl_put_i32(w, m->status);
        hl_put_str(w, m->message, HL_MAX_MSG);
        break;
    case HL_EVENT_ENDED:
        hl_put_u64(w, m->voice);
        hl_put_u8(w, m->reason);
        break;
    case HL_EVENT_STARTED:
        hl_put_u64(w, m->voice);
        hl_put_u64(w, m->time_ns);
        break;
    case HL_EVENT_VIRTUAL:
        hl_put_u64(w, m->voice);
        hl_put_u8(w, m->reason);
        break;
    case HL_EVENT_REAL: hl_put_u64(w, m->voice); break;
    case HL_EVENT_DEVICE_LOST:
    case HL_EVENT_DEVICE_BACK:
        hl_put_str(w, m->message, HL_MAX_MSG);
        hl_put_u64(w, m->time_ns);
        break;
    case HL_EVENT_METER: put_meter(w, &m->meter); break;
    case HL_EVENT_BANK: hl_put_bank_info(w, &m->bank); break;
    case HL_EVENT_ZONE_TICK: hl_put_str(w, m->report, HL_MAX_REPORT); break;
    case HL_EVENT_RELOAD:
        hl_put_str(w, m->sound, HL_MAX_NAME);
        hl_put_i32(w, m->status);
        hl_put_u32(w, m->frames);
        hl_put_str(w, m->message, HL_MAX_MSG);
        break;
    case HL_EVENT_PROFILE: put_profile(w, &m->profile); break;
    default:
        /* an unknown type cannot be encoded */
        if (!w->err) w->err = HELIOD_EINVAL;
        break;
    }
}
void hl_get_event(hl_rbuf_t *r, hl_event_t *m) {
    memset(m, 0, sizeof *m);
    m->type = hl_get_u16(r);
    switch (m->type) {
    case HL_EVENT_ERROR:
        m->req_op = hl_get_u16(r);
        m->status = hl_get_i32(r);
        if (m->status >= 0 || m->status < HELIOD_ERR_MIN) rbuf_fail(r);
        hl_get_str(r, m->message, sizeof m->message);
        break;
    case HL_EVENT_ENDED:
        m->voice = hl_get_u64(r);
        m->reason = get_enum8(r, HL_END_LIFETIME);
        break;
    case HL_EVENT_STARTED:
        m->voice = hl_get_u64(r);
        m->time_ns = hl_get_u64(r);
        break;
    case HL_EVENT_VIRTUAL:
        m->voice = hl_get_u64(r);
        m->reason = get_enum8(r, HL_VIRT_WHY_GOVERNED);
        break;
    case HL_EVENT_REAL: m->voice = hl_get_u64(r); break;
    case HL_EVENT_DEVICE_LOST:
    case HL_EVENT_DEVICE_BACK:
        hl_get_str(r, m->message, sizeof m->message);
        m->time_ns = hl_get_u64(r);
        break;
    case HL_EVENT_METER: get_meter(r, &m->meter); break;
    case HL_EVENT_BANK: hl_get_bank_info(r, &m->bank); break;
    case HL_EVENT_ZONE_TICK: hl_get_str(r, m->report, sizeof m->report); break;
    case HL_EVENT_RELOAD:
        hl_get_str(r, m->sound, sizeof m->sound);
        m->status = hl_get_i32(r);
        if (m->status > 0 || m->status < HELIOD_ERR_MIN) rbuf_fail(r);
        m->frames = hl_get_u32(r);
        hl_get_str(r, m->message, sizeof m->message);
        break;
    case HL_EVENT_PROFILE: get_profile(r, &m->profile); break;
    default: rbuf_fail(r); break;
    }
}

/* ---- cues, categories, emitters ------------------------------------------ */

void hl_put_cue(hl_wbuf_t *w, const hl_cue_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_u8(w, m->nsounds);
    for (unsigned i = 0; i < m->nsounds && i < HL_MAX_CUE_SOUNDS; i++)
        hl_put_str(w, m->sounds[i], HL_MAX_NAME);
    if (m->nsounds > HL_MAX_CUE_SOUNDS && !w->err) w->err = HELIOD_ETOOBIG;
    hl_put_u8(w, m->pick);
    hl_put_u32(w, m->flags);
    hl_put_f32(w, m->gain_db);
    hl_put_f32(w, m->gain_rand_db);
    hl_put_f32(w, m->pitch);
    hl_put_f32(w, m->pitch_rand_cents);
    hl_put_str(w, m->bus, HL_MAX_NAME);
    hl_put_str(w, m->category, HL_MAX_NAME);
    hl_put_i32(w, m->priority);
    hl_put_f32(w, m->pan);
    hl_put_f32(w, m->min_distance);
    hl_put_f32(w, m->max_distance);
    hl_put_f32(w, m->rolloff);
    hl_put_u8(w, m->model);
    hl_put_f32(w, m->fade_in_ms);
    hl_put_f32(w, m->fade_out_ms);
    hl_put_u8(w, m->fade_curve);
    hl_put_u32(w, m->max_instances);
    hl_put_u8(w, m->overflow);
    hl_put_f32(w, m->min_interval_ms);
    hl_put_u8(w, m->beyond);
    hl_put_u8(w, m->virt);
    hl_put_f32(w, m->doppler);
    put_vpost(w, &m->post);
}
void hl_get_cue(hl_rbuf_t *r, hl_cue_t *m) {
    memset(m, 0, sizeof *m);
    hl_get_str(r, m->name, sizeof m->name);
    uint8_t n = hl_get_u8(r);
    /* checked before any string is read: the count never drives a loop past the array */
    if (n < 1 || n > HL_MAX_CUE_SOUNDS) {
        rbuf_fail(r);
        n = 0;
    }
    m->nsounds = n;
    for (unsigned i = 0; i < n; i++)
        hl_get_str(r, m->sounds[i], sizeof m->sounds[i]);
    m->pick = get_enum8(r, HL_PICK_SEQUENCE);
    m->flags = get_flags32(r, HL_CUE_MASK);
    m->gain_db = hl_get_f32(r);
    m->gain_rand_db = hl_get_f32(r);
    m->pitch = hl_get_f32(r);
    m->pitch_rand_cents = hl_get_f32(r);
    hl_get_str(r, m->bus, sizeof m->bus);
    hl_get_str(r, m->category, sizeof m->category);
    m->priority = hl_get_i32(r);
    m->pan = hl_get_f32(r);
    m->min_distance = hl_get_f32(r);
    m->max_distance = hl_get_f32(r);
    m->rolloff = hl_get_f32(r);
    m->model = get_enum8(r, HL_DIST_EXPONENTIAL);
    m->fade_in_ms = hl_get_f32(r);
    m->fade_out_ms = hl_get_f32(r);
    m->fade_curve = get_enum8(r, HL_CURVE_LOG);
    m->max_instances = hl_get_u32(r);
    m->overflow = get_enum8(r, HL_OVERFLOW_STEAL_FARTHEST);
    m->min_interval_ms = hl_get_f32(r);
    m->beyond = get_enum8(r, HL_BEYOND_CLAMP);
    m->virt = get_enum8(r, HL_VIRT_KILL);
    m->doppler = hl_get_f32(r);
    get_vpost(r, &m->post);
}

void hl_put_category(hl_wbuf_t *w, const hl_category_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_u32(w, m->max_instances);
    hl_put_u8(w, m->overflow);
    hl_put_f32(w, m->fade_out_ms);
    hl_put_u8(w, m->fade_curve);
}
void hl_get_category(hl_rbuf_t *r, hl_category_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
    m->max_instances = hl_get_u32(r);
    m->overflow = get_enum8(r, HL_OVERFLOW_STEAL_FARTHEST);
    m->fade_out_ms = hl_get_f32(r);
    m->fade_curve = get_enum8(r, HL_CURVE_LOG);
}

static void put_counters(hl_wbuf_t *w, const hl_cue_counters_t *n) {
    hl_put_u64(w, n->plays);
    hl_put_u64(w, n->refused_interval);
    hl_put_u64(w, n->refused_distance);
    hl_put_u64(w, n->refused_cue_limit);
    hl_put_u64(w, n->refused_cat_limit);
    hl_put_u64(w, n->refused_no_voice);
    hl_put_u64(w, n->evicted_cue);
    hl_put_u64(w, n->evicted_cat);
    hl_put_u64(w, n->stolen);
    hl_put_u64(w, n->virtualised);
    hl_put_u32(w, n->active);
    hl_put_u32(w, n->virtual_now);
}
static void get_counters(hl_rbuf_t *r, hl_cue_counters_t *n) {
    n->plays = hl_get_u64(r);
    n->refused_interval = hl_get_u64(r);
    n->refused_distance = hl_get_u64(r);
    n->refused_cue_limit = hl_get_u64(r);
    n->refused_cat_limit = hl_get_u64(r);
    n->refused_no_voice = hl_get_u64(r);
    n->evicted_cue = hl_get_u64(r);
    n->evicted_cat = hl_get_u64(r);
    n->stolen = hl_get_u64(r);
    n->virtualised = hl_get_u64(r);
    n->active = hl_get_u32(r);
    n->virtual_now = hl_get_u32(r);
}

void hl_put_cue_info(hl_wbuf_t *w, const hl_cue_info_t *m) {
    hl_put_u8(w, m->kind);
    if (m->kind == HL_CUES_KIND_CUE)
        hl_put_cue(w, &m->cue);
    else if (m->kind == HL_CUES_KIND_CATEGORY)
        hl_put_category(w, &m->cat);
    else if (!w->err)
        w->err = HELIOD_EINVAL; /* an unknown kind cannot be encoded */
    put_counters(w, &m->n);
}
void hl_get_cue_info(hl_rbuf_t *r, hl_cue_info_t *m) {
    memset(m, 0, sizeof *m);
    m->kind = get_enum8(r, HL_CUES_KIND_CATEGORY);
    if (r->err) return;
    if (m->kind == HL_CUES_KIND_CUE)
        hl_get_cue(r, &m->cue);
    else
        hl_get_category(r, &m->cat);
    get_counters(r, &m->n);
}

void hl_put_cues_load(hl_wbuf_t *w, const hl_cues_load_t *m) {
    hl_put_str(w, m->path, HL_MAX_PATH);
}
void hl_get_cues_load(hl_rbuf_t *r, hl_cues_load_t *m) {
    hl_get_str(r, m->path, sizeof m->path);
}

void hl_put_cues_load_reply(hl_wbuf_t *w, const hl_cues_load_reply_t *m) {
    hl_put_u32(w, m->cues);
    hl_put_u32(w, m->categories);
}
void hl_get_cues_load_reply(hl_rbuf_t *r, hl_cues_load_reply_t *m) {
    m->cues = hl_get_u32(r);
    m->categories = hl_get_u32(r);
}

void hl_put_emitter(hl_wbuf_t *w, const hl_emitter_t *m) {
    hl_put_u8(w, m->action);
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_u32(w, m->mask);
    put_vec3(w, m->pos);
    put_vec3(w, m->vel);
    hl_put_f32(w, m->ramp_ms);
    hl_put_f32(w, m->fade_ms);
}
void hl_get_emitter(hl_rbuf_t *r, hl_emitter_t *m) {
    m->action = get_enum8(r, HL_EMITTER_DESTROY);
    hl_get_str(r, m->name, sizeof m->name);
    m->mask = get_flags32(r, HL_EM_MASK);
    get_vec3(r, m->pos);
    get_vec3(r, m->vel);
    m->ramp_ms = hl_get_f32(r);
    m->fade_ms = hl_get_f32(r);
}

void hl_put_load_data(hl_wbuf_t *w, const hl_load_data_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_u32(w, m->flags);
    hl_put_u64(w, m->total);
    hl_put_u64(w, m->offset);
    hl_put_u32(w, m->len);
    if (m->len > HL_MAX_CHUNK) {
        if (!w->err) w->err = HELIOD_ETOOBIG;
        return;
    }
    uint8_t *p = wbuf_reserve(w, m->len);
    if (p) memcpy(p, m->data, m->len);
}
void hl_put_load_fd(hl_wbuf_t *w, const hl_load_fd_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_u32(w, m->flags);
    hl_put_u64(w, m->size);
}
void hl_get_load_fd(hl_rbuf_t *r, hl_load_fd_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
    m->flags = get_flags32(r, HL_LOAD_SHARED | HL_LOAD_PIN);
    m->size = hl_get_u64(r); /* checked by the daemon (EINVAL, ETOOBIG): a clear error */
}
void hl_get_load_data(hl_rbuf_t *r, hl_load_data_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
    m->flags = get_flags32(r, HL_LOAD_SHARED | HL_LOAD_PIN);
    m->total = hl_get_u64(r);
    m->offset = hl_get_u64(r);
    m->len = hl_get_u32(r);
    /* sizes are part of the wire format: checked before anything trusts them */
    if (m->len < 1 || m->len > HL_MAX_CHUNK || m->total < 1 || m->total > HL_MAX_UPLOAD ||
        m->offset >= m->total || m->len > m->total - m->offset) {
        rbuf_fail(r);
        m->data = NULL;
        return;
    }
    m->data = rbuf_take(r, m->len);
}

void hl_put_bank(hl_wbuf_t *w, const hl_bank_t *m) {
    hl_put_u8(w, m->action);
    hl_put_str(w, m->arg, HL_MAX_PATH);
}
void hl_get_bank(hl_rbuf_t *r, hl_bank_t *m) {
    m->action = get_enum8(r, HL_BANK_UNLOAD);
    hl_get_str(r, m->arg, sizeof m->arg);
}
void hl_put_bank_info(hl_wbuf_t *w, const hl_bank_info_t *m) {
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_str(w, m->path, HL_MAX_PATH);
    hl_put_u8(w, m->state);
    hl_put_u32(w, m->sounds);
    hl_put_u32(w, m->done);
    hl_put_u32(w, m->failed);
    hl_put_u64(w, m->bytes);
    hl_put_str(w, m->error, HL_MAX_MSG);
}
void hl_get_bank_info(hl_rbuf_t *r, hl_bank_info_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
    hl_get_str(r, m->path, sizeof m->path);
    m->state = get_enum8(r, HL_BANK_STATE_GONE);
    m->sounds = hl_get_u32(r);
    m->done = hl_get_u32(r);
    m->failed = hl_get_u32(r);
    m->bytes = hl_get_u64(r);
    hl_get_str(r, m->error, sizeof m->error);
}
void hl_put_zone(hl_wbuf_t *w, const hl_zone_t *m) {
    hl_put_u8(w, m->action);
    hl_put_str(w, m->name, HL_MAX_NAME);
    hl_put_str(w, m->bank, HL_MAX_PATH);
    put_vec3(w, m->pos);
    hl_put_f32(w, m->radius);
}
void hl_get_zone(hl_rbuf_t *r, hl_zone_t *m) {
    m->action = get_enum8(r, HL_ZONE_REMOVE);
    hl_get_str(r, m->name, sizeof m->name);
    hl_get_str(r, m->bank, sizeof m->bank);
    get_vec3(r, m->pos);
    m->radius = hl_get_f32(r);
}
void hl_put_zone_info(hl_wbuf_t *w, const hl_zone_info_t *m) {
    hl_put_zone(w, &m->zone);
    hl_put_u8(w, m->state);
    hl_put_u64(w, m->bytes);
    hl_put_f32(w, m->distance);
}
void hl_get_zone_info(hl_rbuf_t *r, hl_zone_info_t *m) {
    hl_get_zone(r, &m->zone);
    m->state = get_enum8(r, HL_ZONE_STATE_LOADED);
    m->bytes = hl_get_u64(r);
    m->distance = hl_get_f32(r);
}

void hl_put_device_req(hl_wbuf_t *w, const hl_device_req_t *m) {
    hl_put_str(w, m->name, HL_MAX_DEVNAME);
}
void hl_get_device_req(hl_rbuf_t *r, hl_device_req_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
}
void hl_put_device_reply(hl_wbuf_t *w, const hl_device_reply_t *m) {
    hl_put_str(w, m->driver, HL_MAX_NAME);
    hl_put_str(w, m->name, HL_MAX_DEVNAME);
    hl_put_u32(w, m->rate);
    hl_put_u32(w, m->period);
}
void hl_get_device_reply(hl_rbuf_t *r, hl_device_reply_t *m) {
    hl_get_str(r, m->driver, sizeof m->driver);
    hl_get_str(r, m->name, sizeof m->name);
    m->rate = hl_get_u32(r);
    m->period = hl_get_u32(r);
}

/* ---- validation --------------------------------------------------------- */

int hl_name_valid(const char *s) {
    if (!s) return 0;
    size_t n = 0;
    for (; s[n]; n++) {
        char c = s[n];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '-';
        if (!ok || n >= HL_MAX_NAME) return 0;
    }
    return n > 0;
}

/* Sets *why (if given) and returns HELIOD_EINVAL. */
static int invalid(const char **why, const char *reason) {
    if (why) *why = reason;
    return HELIOD_EINVAL;
}

static int coord_ok(float v) {
    return isfinite(v) && fabsf(v) <= HL_MAX_COORD;
}
static int vec3_ok(const float v[3]) {
    return coord_ok(v[0]) && coord_ok(v[1]) && coord_ok(v[2]);
}

int hl_fade_valid(float ms) {
    return ms == -1.0f || (isfinite(ms) && ms >= 0.0f && ms <= HL_MAX_FADE_MS);
}

/* Ramps have no "default" sentinel: 0 already means the server's one-block ramp. */
static int ramp_ok(float ms) {
    return isfinite(ms) && ms >= 0.0f && ms <= HL_MAX_FADE_MS;
}

int hl_gain_valid(float db) {
    return isfinite(db) && db <= HL_MAX_GAIN_DB;
}

static int pan_ok(float p) {
    return isfinite(p) && p >= -1.0f && p <= 1.0f;
}
static int pitch_ok(float p) {
    return HL_IN_RANGE(p, HL_R_PITCH);
}

static int vpost_filter_ok(const hl_vpost_t *m, uint32_t set_mask, const char **why);
static int in_range(float v, float lo, float hi);
int hl_validate_play(const hl_play_t *m, const char **why) {
    if (!hl_name_valid(m->sound)) return invalid(why, "sound: invalid name");
    if (m->flags & ~HL_PLAY_MASK) return invalid(why, "flags: unknown bits");
    if (!hl_gain_valid(m->gain_db))
        return invalid(why, "gain_db: must be finite and <= +" HL_RANGE_STR(HL_R_GAIN_DB_HI));
    if (!pan_ok(m->pan)) return invalid(why, "pan: must be in [-1, 1]");
    if (!vec3_ok(m->pos)) return invalid(why, "pos: coordinates must be finite and within 1e6 m");
    if (!pitch_ok(m->pitch)) return invalid(why, HL_RANGE_MSG("pitch", HL_R_PITCH));
    if (m->priority < -HL_MAX_PRIORITY || m->priority > HL_MAX_PRIORITY)
        return invalid(why, "priority: must be in [-1000, 1000]");
    if (!hl_fade_valid(m->fade_in_ms))
        return invalid(
            why, "fade_in_ms: must be -1 (default) or in [0, " HL_RANGE_STR(HL_R_FADE_MS_HI) "]");
    if (!isfinite(m->min_distance) || !(m->min_distance > 0.0f) || m->min_distance > HL_MAX_COORD)
        return invalid(why, "min_distance: must be > 0");
    if (!isfinite(m->max_distance) || !(m->max_distance > m->min_distance) ||
        m->max_distance > HL_MAX_COORD)
        return invalid(why, "max_distance: must be > min_distance");
    if (!isfinite(m->rolloff) || !(m->rolloff >= 0.0f))
        return invalid(why, "rolloff: must be finite and >= 0");
    if (m->model > HL_DIST_EXPONENTIAL) return invalid(why, "model: unknown distance model");
    if (m->bus[0] && !hl_name_valid(m->bus)) return invalid(why, "bus: invalid name");
    if ((m->loop_start || m->loop_end) && m->loop_end <= m->loop_start)
        return invalid(why, "loop_end: must be > loop_start (0/0 = the whole sound)");
    if (m->loop_count && !(m->flags & HL_PLAY_LOOP))
        return invalid(why, "loop_count: needs the loop flag");
    if (!isfinite(m->loop_xfade_ms) || m->loop_xfade_ms < 0.0f ||
        m->loop_xfade_ms > HL_MAX_XFADE_MS)
        return invalid(why, "loop_xfade_ms: must be in [0, 10000]");
    if (!vec3_ok(m->vel)) return invalid(why, "vel: must be finite and within 1e6 m/s");
    if (m->emitter[0] && !hl_name_valid(m->emitter)) return invalid(why, "emitter: invalid name");
    if (m->over & ~HL_OVER_MASK) return invalid(why, "over: unknown bits");
    return hl_validate_vpost(&m->post, why);
}

int hl_validate_set(const hl_set_t *m, const char **why) {
    if (m->voice == 0) return invalid(why, "voice: 0 is never a voice");
    if (m->mask & ~HL_SET_MASK) return invalid(why, "mask: unknown bits");
    if ((m->mask & HL_SET_GAIN) && !hl_gain_valid(m->gain_db))
        return invalid(why, "gain_db: must be finite and <= +" HL_RANGE_STR(HL_R_GAIN_DB_HI));
    if ((m->mask & HL_SET_PAN) && !pan_ok(m->pan)) return invalid(why, "pan: must be in [-1, 1]");
    if ((m->mask & HL_SET_POS) && !vec3_ok(m->pos))
        return invalid(why, "pos: coordinates must be finite and within 1e6 m");
    if ((m->mask & HL_SET_PITCH) && !pitch_ok(m->pitch))
        return invalid(why, HL_RANGE_MSG("pitch", HL_R_PITCH));
    if (!ramp_ok(m->ramp_ms)) return invalid(why, HL_RANGE_MSG("ramp_ms", HL_R_FADE_MS));
    if ((m->mask & HL_SET_PAUSE) && (m->mask & HL_SET_RESUME))
        return invalid(why, "mask: pause and resume together");
    if ((m->mask & HL_SET_SEEK) &&
        !(isfinite(m->seek_s) && m->seek_s >= 0.0 && m->seek_s <= HL_MAX_SEEK_S))
        return invalid(why, "seek_s: must be finite and >= 0");
    if ((m->mask & HL_SET_VEL) && !vec3_ok(m->vel))
        return invalid(why, "vel: must be finite and within 1e6 m/s");
    return vpost_filter_ok(&m->post, m->mask, why);
}

int hl_validate_pause(const hl_pause_t *m, const char **why) {
    if (m->pause > 1) return invalid(why, "pause: must be 0 (resume) or 1 (pause)");
    if (m->scope > HL_PAUSE_CATEGORY) return invalid(why, "scope: unknown");
    if (m->scope == HL_PAUSE_BUS || m->scope == HL_PAUSE_CATEGORY) {
        if (!hl_name_valid(m->group))
            return invalid(why, "group: a bus or category scope needs a valid name");
    } else if (m->group[0]) {
        return invalid(why, "group: must be empty for the mine and everyone scopes");
    }
    return 0;
}

int hl_validate_subscribe(const hl_subscribe_t *m, const char **why) {
    if (m->mask & ~HL_SUB_MASK) return invalid(why, "mask: unknown event bits");
    if (m->meter_hz != 0.0f && !(m->meter_hz >= HL_METER_MIN_HZ && m->meter_hz <= HL_METER_MAX_HZ))
        return invalid(why, "meter_hz: 0 (the default, 20) or 1..100 events per second");
    if (m->profile_hz != 0.0f &&
        !(m->profile_hz >= HL_PROFILE_MIN_HZ && m->profile_hz <= HL_PROFILE_MAX_HZ))
        return invalid(why, "profile_hz: 0 (the default, 10) or 1..100 events per second");
    return 0;
}

static int nonzero(const float v[3]) {
    return v[0] != 0.0f || v[1] != 0.0f || v[2] != 0.0f;
}

int hl_validate_listener(const hl_listener_t *m, const char **why) {
    if (m->mask & ~HL_LIS_MASK) return invalid(why, "mask: unknown bits");
    if ((m->mask & HL_LIS_POS) && !vec3_ok(m->pos))
        return invalid(why, "pos: coordinates must be finite and within 1e6 m");
    if ((m->mask & HL_LIS_FWD) && (!vec3_ok(m->fwd) || !nonzero(m->fwd)))
        return invalid(why, "forward: must be a finite non-zero vector");
    if ((m->mask & HL_LIS_UP) && (!vec3_ok(m->up) || !nonzero(m->up)))
        return invalid(why, "up: must be a finite non-zero vector");
    if ((m->mask & HL_LIS_VEL) && !vec3_ok(m->vel))
        return invalid(why, "velocity: must be finite and within 1e6 m/s");
    return 0;
}

int hl_validate_stop(const hl_stop_t *m, const char **why) {
    if (m->voice == 0) return invalid(why, "voice: 0 is never a voice");
    if (!hl_fade_valid(m->fade_ms))
        return invalid(
            why, "fade_ms: must be -1 (default) or in [0, " HL_RANGE_STR(HL_R_FADE_MS_HI) "]");
    if (m->curve > HL_STOP_CURVE(HL_CURVE_LOG))
        return invalid(why, "curve: 0 (the voice's own) or a curve + 1");
    return 0;
}

int hl_validate_stop_all(const hl_stop_all_t *m, const char **why) {
    if (m->scope > HL_STOP_ALL_EVERYONE) return invalid(why, "scope: unknown");
    if (!hl_fade_valid(m->fade_ms))
        return invalid(
            why, "fade_ms: must be -1 (default) or in [0, " HL_RANGE_STR(HL_R_FADE_MS_HI) "]");
    return 0;
}

int hl_validate_bus(const hl_bus_t *m, const char **why) {
    if (!hl_name_valid(m->name)) return invalid(why, "name: invalid bus name");
    if (m->mask & ~HL_BUS_MASK) return invalid(why, "mask: unknown bits");
    if (m->mask == 0) return invalid(why, "mask: nothing to do");
    if ((m->mask & HL_BUS_REMOVE) && m->mask != HL_BUS_REMOVE)
        return invalid(why, "mask: remove goes alone");
    if ((m->mask & HL_BUS_CREATE) && (m->mask & HL_BUS_PARENT))
        return invalid(why, "mask: create already takes the parent");
    int master = strcmp(m->name, "master") == 0;
    if (master && (m->mask & (HL_BUS_CREATE | HL_BUS_REMOVE | HL_BUS_PARENT)))
        return invalid(why, "name: the master bus cannot be created, removed or moved");
    if ((m->mask & HL_BUS_GAIN) && !hl_gain_valid(m->gain_db))
        return invalid(why, "gain_db: must be finite and <= +" HL_RANGE_STR(HL_R_GAIN_DB_HI));
    if (!ramp_ok(m->ramp_ms)) return invalid(why, HL_RANGE_MSG("ramp_ms", HL_R_FADE_MS));
    if (m->mute > 1) return invalid(why, "mute: must be 0 or 1");
    if (m->parent[0] && !hl_name_valid(m->parent)) return invalid(why, "parent: invalid bus name");
    if ((m->mask & (HL_BUS_CREATE | HL_BUS_PARENT)) && strcmp(m->parent, m->name) == 0)
        return invalid(why, "parent: a bus cannot be its own parent");
    if (m->mask & HL_BUS_SEND) {
        if (master) return invalid(why, "send: the master has no sends");
        if (!hl_name_valid(m->send) || strcmp(m->send, m->name) == 0 ||
            strcmp(m->send, "master") == 0)
            return invalid(why, "send: a bus other than this one and the master");
        if (!HL_IN_RANGE(m->send_db, HL_R_SEND_DB))
            return invalid(why, HL_RANGE_MSG("send_db", HL_R_SEND_DB) " (-144 removes the send)");
    }
    return 0;
}

int hl_validate_zone(const hl_zone_t *m, const char **why) {
    if (!hl_name_valid(m->name)) return invalid(why, "name: invalid zone name");
    if (m->action > HL_ZONE_REMOVE) return invalid(why, "action: unknown");
    if (m->action == HL_ZONE_REMOVE) return 0;
    if (!m->bank[0]) return invalid(why, "bank: the path of a bank manifest is required");
    if (!vec3_ok(m->pos)) return invalid(why, "pos: coordinates must be finite and within 1e6 m");
    if (!in_range(m->radius, 1e-3f, HL_MAX_COORD)) return invalid(why, "radius: must be > 0");
    return 0;
}

int hl_validate_rzone(const hl_rzone_t *m, const char **why) {
    if (!hl_name_valid(m->name)) return invalid(why, "name: invalid zone name");
    if (m->action > HL_RZONE_REMOVE) return invalid(why, "action: unknown");
    if (m->action == HL_RZONE_REMOVE) return 0;
    if (!vec3_ok(m->pos)) return invalid(why, "pos: coordinates must be finite and within 1e6 m");
    if (!in_range(m->radius, 1e-3f, HL_MAX_COORD)) return invalid(why, "radius: must be > 0");
    if (!in_range(m->fade, 0.0f, HL_MAX_COORD)) return invalid(why, "fade: must be >= 0");
    if (m->bus[0] && (!hl_name_valid(m->bus) || strcmp(m->bus, "master") == 0))
        return invalid(why, "bus: a bus name other than master");
    if (m->feed[0] && (!hl_name_valid(m->feed) || strcmp(m->feed, "master") == 0))
        return invalid(why, "feed: a bus name other than master");
    if (m->preset > HL_REV_OUTDOOR) return invalid(why, "preset: unknown reverb preset");
    return 0;
}

static int ms_ok(float ms);
static int vpost_filter_ok(const hl_vpost_t *m, uint32_t set_mask, const char **why);
static int in_range(float v, float lo, float hi) {
    return isfinite(v) && v >= lo && v <= hi;
}

static int vpost_filter_ok(const hl_vpost_t *m, uint32_t set_mask, const char **why) {
    if ((set_mask & HL_SET_LP) && !in_range(m->lp_hz, 0.0f, HL_MAX_LP_HZ))
        return invalid(why, "lp_hz: must be in [0, 96000] (0 = off)");
    if ((set_mask & HL_SET_HP) && !in_range(m->hp_hz, 0.0f, HL_MAX_HP_HZ))
        return invalid(why, "hp_hz: must be in [0, 20000] (0 = off)");
    if ((set_mask & HL_SET_OCCLUSION) && !in_range(m->occlusion, 0.0f, 1.0f))
        return invalid(why, "occlusion: must be in [0, 1]");
    if ((set_mask & HL_SET_OBSTRUCTION) && !in_range(m->obstruction, 0.0f, 1.0f))
        return invalid(why, "obstruction: must be in [0, 1]");
    if (set_mask & HL_SET_SENDS) {
        for (int i = 0; i < HL_VOICE_SENDS; i++) {
            if (m->send[i][0] && !hl_name_valid(m->send[i]))
                return invalid(why, "send: invalid bus name");
            if (!HL_IN_RANGE(m->send_db[i], HL_R_SEND_DB))
                return invalid(why, HL_RANGE_MSG("send_db", HL_R_SEND_DB));
        }
        if (m->send[0][0] && strcmp(m->send[0], m->send[1]) == 0)
            return invalid(why, "send: the two sends name the same bus");
    }
    return 0;
}

int hl_validate_vpost(const hl_vpost_t *m, const char **why) {
    return vpost_filter_ok(
        m, HL_SET_LP | HL_SET_HP | HL_SET_OCCLUSION | HL_SET_OBSTRUCTION | HL_SET_SENDS, why);
}

/* Parameters per kind, their ranges {lo, hi} (hl_ranges.h) and the
 * refusal naming each. */
#define FX_R(R)                                                                                    \
    { (float)R##_LO, (float)R##_HI }
static const int k_fx_nparams[4] = {0, 3, 6, 6};
static const float k_fx_range[4][HL_FX_PARAMS][2] = {
    [HL_FXK_EQ] = {FX_R(HL_R_EQ_FREQ), FX_R(HL_R_EQ_Q), FX_R(HL_R_EQ_GAIN)},
    [HL_FXK_COMP] = {FX_R(HL_R_COMP_THRESH), FX_R(HL_R_COMP_RATIO), FX_R(HL_R_COMP_KNEE),
                     FX_R(HL_R_COMP_ATTACK), FX_R(HL_R_COMP_RELEASE), FX_R(HL_R_COMP_MAKEUP)},
    [HL_FXK_REVERB] = {FX_R(HL_R_REV_RT60), FX_R(HL_R_REV_DAMPING), FX_R(HL_R_REV_PREDELAY),
                       FX_R(HL_R_REV_SIZE), FX_R(HL_R_REV_WET), FX_R(HL_R_REV_DRY)},
};
#undef FX_R
static const char *const k_fx_pnames[4][HL_FX_PARAMS] = {
    [HL_FXK_EQ] = {"freq", "q", "gain"},
    [HL_FXK_COMP] = {"threshold", "ratio", "knee", "attack", "release", "makeup"},
    [HL_FXK_REVERB] = {"rt60", "damping", "predelay", "size", "wet", "dry"},
};
static const char *const k_fx_why[4][HL_FX_PARAMS] = {
    [HL_FXK_EQ] = {HL_RANGE_MSG("freq", HL_R_EQ_FREQ), HL_RANGE_MSG("q", HL_R_EQ_Q),
                   HL_RANGE_MSG("gain", HL_R_EQ_GAIN)},
    [HL_FXK_COMP] = {HL_RANGE_MSG("threshold", HL_R_COMP_THRESH),
                     HL_RANGE_MSG("ratio", HL_R_COMP_RATIO), HL_RANGE_MSG("knee", HL_R_COMP_KNEE),
                     HL_RANGE_MSG("attack", HL_R_COMP_ATTACK),
                     HL_RANGE_MSG("release", HL_R_COMP_RELEASE),
                     HL_RANGE_MSG("makeup", HL_R_COMP_MAKEUP)},
    [HL_FXK_REVERB] = {HL_RANGE_MSG("rt60", HL_R_REV_RT60),
                       HL_RANGE_MSG("damping", HL_R_REV_DAMPING),
                       HL_RANGE_MSG("predelay", HL_R_REV_PREDELAY),
                       HL_RANGE_MSG("size", HL_R_REV_SIZE), HL_RANGE_MSG("wet", HL_R_REV_WET),
                       HL_RANGE_MSG("dry", HL_R_REV_DRY)},
};
static const char *const k_fx_kinds[4] = {NULL, "eq", "comp", "reverb"};
static const char *const k_eq_types[] = {"lowpass",   "highpass", "lowshelf",
                                         "highshelf", "peak",     NULL};
static const char *const k_rev_presets[] = {"room", "hall", "cave", "outdoor", NULL};

int hl_validate_fx(const hl_fx_req_t *m, const char **why) {
    if (!hl_name_valid(m->bus)) return invalid(why, "bus: invalid bus name");
    if (m->action > HL_FX_REMOVE) return invalid(why, "action: unknown");
    if (m->mask & ~HL_FXP_MASK) return invalid(why, "mask: unknown bits");
    if (!ramp_ok(m->ramp_ms)) return invalid(why, HL_RANGE_MSG("ramp_ms", HL_R_FADE_MS));
    if (m->action == HL_FX_REMOVE) return 0;
    if (m->kind < HL_FXK_EQ || m->kind > HL_FXK_REVERB)
        return invalid(why, "kind: unknown (eq, comp, reverb)");
    if (m->mask & HL_FXP_TYPE) {
        if (m->kind == HL_FXK_EQ && m->type > HL_EQ_PEAK)
            return invalid(why, "type: unknown eq type");
        if (m->kind == HL_FXK_REVERB && m->type > HL_REV_OUTDOOR)
            return invalid(why, "type: unknown reverb preset");
        if (m->kind == HL_FXK_COMP) return invalid(why, "type: a compressor has no type");
    }
    for (int i = 0; i < HL_FX_PARAMS; i++) {
        if (!(m->mask & (1u << i))) continue;
        if (i >= k_fx_nparams[m->kind])
            return invalid(why, "mask: a parameter this kind does not have");
        const float *rg = k_fx_range[m->kind][i];
        if (!in_range(m->p[i], rg[0], rg[1])) return invalid(why, k_fx_why[m->kind][i]);
    }
    return 0;
}

int hl_validate_duck(const hl_duck_rule_t *m, const char **why) {
    if (!hl_name_valid(m->bus)) return invalid(why, "bus: invalid bus name");
    if (!hl_name_valid(m->by)) return invalid(why, "by: invalid bus name");
    if (strcmp(m->bus, m->by) == 0) return invalid(why, "by: a bus cannot duck itself");
    if (m->on > 1) return invalid(why, "on: must be 0 or 1");
    if (!HL_IN_RANGE(m->depth_db, HL_R_DUCK_DEPTH))
        return invalid(why, HL_RANGE_MSG("depth_db", HL_R_DUCK_DEPTH));
    if (!HL_IN_RANGE(m->threshold_db, HL_R_DUCK_THRESH))
        return invalid(
            why, HL_RANGE_MSG("threshold_db", HL_R_DUCK_THRESH) " (-144 = while it has voices)");
    if (!HL_IN_RANGE(m->attack_ms, HL_R_DUCK_MS))
        return invalid(why, HL_RANGE_MSG("attack_ms", HL_R_DUCK_MS));
    if (!HL_IN_RANGE(m->hold_ms, HL_R_DUCK_MS))
        return invalid(why, HL_RANGE_MSG("hold_ms", HL_R_DUCK_MS));
    if (!HL_IN_RANGE(m->release_ms, HL_R_DUCK_MS))
        return invalid(why, HL_RANGE_MSG("release_ms", HL_R_DUCK_MS));
    return 0;
}

int hl_fx_kind_from(const char *s) {
    for (int k = HL_FXK_EQ; s && k <= HL_FXK_REVERB; k++)
        if (strcmp(k_fx_kinds[k], s) == 0) return k;
    return -1;
}
const char *hl_fx_kind_name(int kind) {
    return kind >= HL_FXK_EQ && kind <= HL_FXK_REVERB ? k_fx_kinds[kind] : NULL;
}
static const char *const *fx_types(int kind) {
    return kind == HL_FXK_EQ ? k_eq_types : kind == HL_FXK_REVERB ? k_rev_presets : NULL;
}
int hl_fx_type_from(int kind, const char *s) {
    const char *const *t = fx_types(kind);
    for (int i = 0; t && s && t[i]; i++)
        if (strcmp(t[i], s) == 0) return i;
    return -1;
}
const char *hl_fx_type_name(int kind, int type) {
    const char *const *t = fx_types(kind);
    int n = kind == HL_FXK_EQ ? 5 : 4;
    return t && type >= 0 && type < n ? t[type] : NULL;
}
int hl_fx_parse_args(hl_fx_req_t *m, int n, char *const *args, char *err, size_t cap) {
    for (int i = 0; i < n; i += 2) {
        const char *a = args[i];
        if (strncmp(a, "--", 2) != 0 || i + 1 >= n) {
            snprintf(err, cap, "%s: expected --NAME VALUE", a);
            return -1;
        }
        const char *key = a + 2, *val = args[i + 1];
        if ((m->kind == HL_FXK_EQ && strcmp(key, "type") == 0) ||
            (m->kind == HL_FXK_REVERB && strcmp(key, "preset") == 0)) {
            int t = hl_fx_type_from(m->kind, val);
            if (t < 0) {
                snprintf(err, cap, "--%s %s: unknown (%s)", key, val,
                         m->kind == HL_FXK_EQ ? "lowpass, highpass, lowshelf, highshelf, peak"
                                              : "room, hall, cave, outdoor");
                return -1;
            }
            m->type = (uint8_t)t;
            m->mask |= HL_FXP_TYPE;
            continue;
        }
        char *end = NULL;
        float v = strtof(val, &end);
        if (!end || end == val || *end || !isfinite(v)) {
            snprintf(err, cap, "--%s %s: not a number", key, val);
            return -1;
        }
        if (strcmp(key, "ramp") == 0) {
            m->ramp_ms = v;
            continue;
        }
        int k = -1;
        for (int j = 0; j < HL_FX_PARAMS && k < 0; j++) {
            const char *pn = hl_fx_param_name(m->kind, j);
            if (pn && strcmp(pn, key) == 0) k = j;
        }
        if (k < 0) {
            snprintf(err, cap, "--%s: not a parameter of %s", key,
                     hl_fx_kind_name(m->kind) ? hl_fx_kind_name(m->kind) : "this effect");
            return -1;
        }
        m->p[k] = v;
        m->mask |= 1u << k;
    }
    return 0;
}

const char *hl_fx_param_name(int kind, int i) {
    if (kind < HL_FXK_EQ || kind > HL_FXK_REVERB || i < 0 || i >= HL_FX_PARAMS) return NULL;
    return k_fx_pnames[kind][i];
}

static int ms_ok(float ms) {
    return HL_IN_RANGE(ms, HL_R_FADE_MS);
}

int hl_validate_cue(const hl_cue_t *m, const char **why) {
    if (!hl_name_valid(m->name)) return invalid(why, "name: invalid cue name");
    if (m->nsounds < 1 || m->nsounds > HL_MAX_CUE_SOUNDS)
        return invalid(why, "sounds: a cue needs 1 to 16 sounds");
    for (unsigned i = 0; i < m->nsounds; i++)
        if (!hl_name_valid(m->sounds[i])) return invalid(why, "sounds: invalid sound name");
    if (m->pick > HL_PICK_SEQUENCE)
        return invalid(why, "pick: unknown (random, shuffle, sequence)");
    if (m->flags & ~HL_CUE_MASK) return invalid(why, "flags: unknown bits");
    if (!hl_gain_valid(m->gain_db))
        return invalid(why, "gain_db: must be finite and <= +" HL_RANGE_STR(HL_R_GAIN_DB_HI));
    if (!isfinite(m->gain_rand_db) || m->gain_rand_db < 0.0f || m->gain_rand_db > 48.0f)
        return invalid(why, "gain_rand_db: must be in [0, 48]");
    if (!pitch_ok(m->pitch)) return invalid(why, HL_RANGE_MSG("pitch", HL_R_PITCH));
    if (!isfinite(m->pitch_rand_cents) || m->pitch_rand_cents < 0.0f ||
        m->pitch_rand_cents > 2400.0f)
        return invalid(why, "pitch_rand_cents: must be in [0, 2400]");
    if (m->bus[0] && !hl_name_valid(m->bus)) return invalid(why, "bus: invalid name");
    if (m->category[0] && !hl_name_valid(m->category))
        return invalid(why, "category: invalid name");
    if (m->priority < -HL_MAX_PRIORITY || m->priority > HL_MAX_PRIORITY)
        return invalid(why, "priority: must be in [-1000, 1000]");
    if (!pan_ok(m->pan)) return invalid(why, "pan: must be in [-1, 1]");
    if (!isfinite(m->min_distance) || !(m->min_distance > 0.0f) || m->min_distance > HL_MAX_COORD)
        return invalid(why, "min_distance: must be > 0");
    if (!isfinite(m->max_distance) || !(m->max_distance > m->min_distance) ||
        m->max_distance > HL_MAX_COORD)
        return invalid(why, "max_distance: must be > min_distance and <= 1e6");
    if (!isfinite(m->rolloff) || !(m->rolloff >= 0.0f))
        return invalid(why, "rolloff: must be finite and >= 0");
    if (m->model > HL_DIST_EXPONENTIAL) return invalid(why, "model: unknown distance model");
    if (!hl_fade_valid(m->fade_in_ms))
        return invalid(
            why, "fade_in_ms: must be -1 (default) or in [0, " HL_RANGE_STR(HL_R_FADE_MS_HI) "]");
    if (!hl_fade_valid(m->fade_out_ms))
        return invalid(
            why, "fade_out_ms: must be -1 (default) or in [0, " HL_RANGE_STR(HL_R_FADE_MS_HI) "]");
    if (m->fade_curve > HL_CURVE_LOG)
        return invalid(why, "fade_curve: unknown (linear, equal-power, log)");
    if (m->max_instances > 65536) return invalid(why, "max_instances: must be <= 65536");
    if (m->overflow > HL_OVERFLOW_STEAL_FARTHEST) return invalid(why, "overflow: unknown policy");
    if (!ms_ok(m->min_interval_ms))
        return invalid(why, HL_RANGE_MSG("min_interval_ms", HL_R_FADE_MS));
    if (m->beyond > HL_BEYOND_CLAMP)
        return invalid(why, "beyond: unknown (virtual, release, clamp)");
    if (m->virt > HL_VIRT_KILL) return invalid(why, "virt: unknown (resume, restart, kill)");
    if (!isfinite(m->doppler) || m->doppler < 0.0f || m->doppler > 10.0f)
        return invalid(why, "doppler: must be in [0, 10]");
    return hl_validate_vpost(&m->post, why);
}

int hl_validate_category(const hl_category_t *m, const char **why) {
    if (!hl_name_valid(m->name)) return invalid(why, "name: invalid category name");
    if (m->max_instances > 65536) return invalid(why, "max_instances: must be <= 65536");
    if (m->overflow > HL_OVERFLOW_STEAL_FARTHEST) return invalid(why, "overflow: unknown policy");
    if (!hl_fade_valid(m->fade_out_ms))
        return invalid(
            why, "fade_out_ms: must be -1 (default) or in [0, " HL_RANGE_STR(HL_R_FADE_MS_HI) "]");
    if (m->fade_curve > HL_CURVE_LOG)
        return invalid(why, "fade_curve: unknown (linear, equal-power, log)");
    return 0;
}

int hl_validate_emitter(const hl_emitter_t *m, const char **why) {
    if (m->action > HL_EMITTER_DESTROY) return invalid(why, "action: unknown");
    if (!hl_name_valid(m->name)) return invalid(why, "name: invalid emitter name");
    if (m->mask & ~HL_EM_MASK) return invalid(why, "mask: unknown bits");
    if ((m->mask & HL_EM_POS) && !vec3_ok(m->pos))
        return invalid(why, "pos: coordinates must be finite and within 1e6 m");
    if ((m->mask & HL_EM_VEL) && !vec3_ok(m->vel))
        return invalid(why, "vel: must be finite and within 1e6 m/s");
    if (!ms_ok(m->ramp_ms)) return invalid(why, HL_RANGE_MSG("ramp_ms", HL_R_FADE_MS));
    if (!hl_fade_valid(m->fade_ms))
        return invalid(why, "fade_ms: must be -1 (the cue's fade-out) or in [0, " HL_RANGE_STR(
                                HL_R_FADE_MS_HI) "]");
    if (m->action == HL_EMITTER_CREATE && !(m->mask & HL_EM_POS))
        return invalid(why, "pos: create needs a position");
    return 0;
}

/* ---- cue and category defaults ---------------------------------------------- */

void hl_cue_init(hl_cue_t *c) {
    memset(c, 0, sizeof *c);
    c->pick = HL_PICK_RANDOM;
    c->pitch = 1.0f;
    c->min_distance = 1.0f;
    c->max_distance = 100.0f;
    c->rolloff = 1.0f;
    c->model = HL_DIST_INVERSE;
    c->fade_in_ms = -1.0f;
    c->fade_out_ms = -1.0f;
    c->fade_curve = HL_CURVE_LINEAR;
    c->overflow = HL_OVERFLOW_REFUSE;
    c->beyond = HL_BEYOND_VIRTUAL;
    c->virt = HL_VIRT_RESUME;
    c->doppler = 1.0f;
}

void hl_category_init(hl_category_t *c) {
    memset(c, 0, sizeof *c);
    c->overflow = HL_OVERFLOW_REFUSE;
    c->fade_out_ms = -1.0f;
    c->fade_curve = HL_CURVE_LINEAR;
}

/* ---- enum names ------------------------------------------------------------- */

static const char *const k_enum_names[][7] = {
    [HL_ENUM_PICK] = {"random", "shuffle", "sequence", NULL},
    [HL_ENUM_OVERFLOW] = {"refuse", "stop-oldest", "fade-oldest", "steal-lowest-priority",
                          "steal-quietest", "steal-farthest", NULL},
    [HL_ENUM_BEYOND] = {"virtual", "release", "clamp", NULL},
    [HL_ENUM_VIRT] = {"resume", "restart", "kill", NULL},
    [HL_ENUM_CURVE] = {"linear", "equal-power", "log", NULL},
    [HL_ENUM_MODEL] = {"linear", "inverse", "exponential", NULL},
};

int hl_enum_from(hl_enum_kind_t kind, const char *s) {
    if ((unsigned)kind > HL_ENUM_MODEL || !s) return -1;
    for (int i = 0; k_enum_names[kind][i]; i++)
        if (strcmp(k_enum_names[kind][i], s) == 0) return i;
    return -1;
}

const char *hl_enum_name(hl_enum_kind_t kind, int v) {
    if ((unsigned)kind > HL_ENUM_MODEL || v < 0 || v > 5) return NULL;
    return k_enum_names[kind][v];
}

/* ---- time: the clock and scheduled requests ------------------------------ */

void hl_put_clock(hl_wbuf_t *w, const hl_clock_t *m) {
    hl_put_u64(w, m->frame);
    hl_put_u64(w, m->time_ns);
    hl_put_u32(w, m->rate);
    hl_put_u32(w, m->period);
    hl_put_u64(w, m->output_latency_ns);
}

void hl_get_clock(hl_rbuf_t *r, hl_clock_t *m) {
    m->frame = hl_get_u64(r);
    m->time_ns = hl_get_u64(r);
    m->rate = hl_get_u32(r);
    m->period = hl_get_u32(r);
    m->output_latency_ns = hl_get_u64(r);
}

int hl_op_schedulable(uint16_t op) {
    return op == HL_OP_PLAY || op == HL_OP_STOP || op == HL_OP_SET || op == HL_OP_BUS ||
           op == HL_OP_LISTENER;
}
