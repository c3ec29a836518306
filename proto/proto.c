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
#include "proto_int.h"

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

uint8_t *hlp_wbuf_reserve(hl_wbuf_t *w, size_t n) {
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
    uint8_t *p = hlp_wbuf_reserve(w, n);
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
    uint8_t *p = hlp_wbuf_reserve(w, n);
    if (p && n) memcpy(p, s, n);
}

/* ---- reader ------------------------------------------------------------- */

void hl_rbuf_init(hl_rbuf_t *r, const uint8_t *buf, size_t len) {
    r->buf = buf;
    r->len = buf ? len : 0;
    r->off = 0;
    r->err = 0;
}

void hlp_rbuf_fail(hl_rbuf_t *r) {
    r->err = HELIOD_EPROTO;
}

const uint8_t *hlp_rbuf_take(hl_rbuf_t *r, size_t n) {
    return hlp_take(r, n);
}

uint8_t hl_get_u8(hl_rbuf_t *r) {
    return hlp_u8(r);
}
uint16_t hl_get_u16(hl_rbuf_t *r) {
    return hlp_u16(r);
}
uint32_t hl_get_u32(hl_rbuf_t *r) {
    return hlp_u32(r);
}
int32_t hl_get_i32(hl_rbuf_t *r) {
    return hlp_i32(r);
}
uint64_t hl_get_u64(hl_rbuf_t *r) {
    return hlp_u64(r);
}
float hl_get_f32(hl_rbuf_t *r) {
    return hlp_f32(r);
}
double hl_get_f64(hl_rbuf_t *r) {
    return hlp_f64(r);
}

void hl_get_str(hl_rbuf_t *r, char *dst, size_t cap) {
    if (cap) dst[0] = '\0';
    uint16_t n = hlp_u16(r);
    if (r->err) return;
    if (cap == 0 || n > cap - 1) {
        hlp_rbuf_fail(r);
        return;
    }
    const uint8_t *p = hlp_take(r, n);
    if (!p) return;
    if (n && memchr(p, '\0', n)) {
        hlp_rbuf_fail(r);
        return;
    }
    memcpy(dst, p, n);
    dst[n] = '\0';
}

int hl_rbuf_finish(const hl_rbuf_t *r) {
    if (r->err || r->off != r->len) return HELIOD_EPROTO;
    return 0;
}

uint32_t hlp_get_flags32(hl_rbuf_t *r, uint32_t mask) {
    uint32_t v = hlp_u32(r);
    if (v & ~mask) hlp_rbuf_fail(r);
    return v & mask;
}

uint8_t hlp_get_enum8(hl_rbuf_t *r, uint8_t max) {
    uint8_t v = hlp_u8(r);
    if (v > max) {
        hlp_rbuf_fail(r);
        return 0;
    }
    return v;
}

/* ---- frames ------------------------------------------------------------- */

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
    h.size = hlp_u32(&r);
    h.op = hlp_u16(&r);
    h.flags = hlp_u16(&r);
    h.id = hlp_u32(&r);
    if (h.size > HL_MAX_FRAME) return HELIOD_ETOOBIG;
    if (h.size < HL_FRAME_HDR || (h.flags & ~HL_FLAG_MASK)) return HELIOD_EPROTO;
    *hdr = h;
    return 0;
}

/* ---- bodies ------------------------------------------------------------- */

/* ---- METER events ---------------------------------------------------- */

/* A level in dB as the wire allows it: finite, in [floor, HL_METER_MAX_DB]. */
static float get_db(hl_rbuf_t *r, float floor) {
    float v = hlp_f32(r);
    if (!(v >= floor && v <= HL_METER_MAX_DB)) { /* NaN too */
        hlp_rbuf_fail(r);
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
    m->frame = hlp_u64(r);
    m->momentary = get_db(r, HL_METER_FLOOR_DB);
    m->short_term = get_db(r, HL_METER_FLOOR_DB);
    m->integrated = get_db(r, HL_METER_FLOOR_DB);
    m->range = get_db(r, 0.0f);
    get_level(r, &m->master);
    m->nbuses = hlp_u8(r);
    if (m->nbuses > HL_METER_MAX_BUSES) {
        hlp_rbuf_fail(r);
        m->nbuses = 0;
        return;
    }
    for (unsigned i = 0; i < m->nbuses && !r->err; i++) {
        hl_get_str(r, m->bus[i].name, sizeof m->bus[i].name);
        if (!r->err && !hl_name_valid(m->bus[i].name)) hlp_rbuf_fail(r);
        get_level(r, &m->bus[i]);
    }
}

/* Since 1.1, after a METER's buses: the channels past the front pair of a
 * surround layout (u8 channels, 3..12; 3..8 before 1.2), then for the master
 * and each bus in turn their peaks, holds and rms (channels - 2 f32 each).
 * Left off on stereo. At most `most` channels go: the first, in the layout's
 * order (to a 1.1 connection on 7.1.4, the 7.1 bed). */
static void put_meter_more(hl_wbuf_t *w, const hl_meter_t *m, const hl_meter_more_t *x,
                           unsigned most) {
    if (x->channels <= 2) return;
    if (x->channels > HL_METER_MAX_CH || m->nbuses > HL_METER_MAX_BUSES) {
        if (!w->err) w->err = HELIOD_EINVAL;
        return;
    }
    const unsigned channels = x->channels < most ? x->channels : most;
    hl_put_u8(w, (uint8_t)channels);
    for (int i = -1; i < (int)m->nbuses; i++) {
        const hl_meter_rest_t *l = i < 0 ? &x->master : &x->bus[i];
        const float *v[3] = {l->peak_db, l->peak_hold_db, l->rms_db};
        for (int k = 0; k < 3; k++)
            for (unsigned c = 2; c < channels; c++)
                hl_put_f32(w, v[k][c - 2]);
    }
}

static void get_meter_more(hl_rbuf_t *r, const hl_meter_t *m, hl_meter_more_t *x) {
    if (r->err || r->off == r->len) return; /* a 1.0 body: stereo */
    x->channels = hlp_u8(r);
    if (x->channels < 3 || x->channels > HL_METER_MAX_CH) { /* stereo is left off */
        hlp_rbuf_fail(r);
        x->channels = 0;
        return;
    }
    for (int i = -1; i < (int)m->nbuses && !r->err; i++) {
        hl_meter_rest_t *l = i < 0 ? &x->master : &x->bus[i];
        float *v[3] = {l->peak_db, l->peak_hold_db, l->rms_db};
        for (int k = 0; k < 3; k++)
            for (unsigned c = 2; c < x->channels; c++)
                v[k][c - 2] = get_db(r, HL_METER_FLOOR_DB);
    }
}

/* ---- PROFILE events (profiler issue) ------------------------------------ */

static float get_load(hl_rbuf_t *r) {
    float v = hlp_f32(r);
    if (!(v >= 0.0f && v <= HL_PROFILE_MAX_LOAD)) { /* NaN too */
        hlp_rbuf_fail(r);
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
    m->time_ns = hlp_u64(r);
    m->period_us = hlp_f32(r);
    if (!(m->period_us > 0.0f && m->period_us <= HL_PROFILE_MAX_LOAD)) hlp_rbuf_fail(r);
    m->callbacks = hlp_u32(r);
    m->load_now = get_load(r);
    m->load_peak = get_load(r);
    m->load_p99 = get_load(r);
    m->load_max = get_load(r);
    for (int k = 0; k < HL_PROFILE_HIST; k++)
        m->hist[k] = hlp_u32(r);
    m->xruns = hlp_u64(r);
    m->underruns = hlp_u64(r);
    m->voices_real = hlp_u32(r);
    m->voices_virtual = hlp_u32(r);
    m->decode_load = get_load(r);
    m->streams = hlp_u16(r);
    m->nstreams = hlp_u8(r);
    if (m->nstreams > HL_PROFILE_MAX_STREAMS) {
        hlp_rbuf_fail(r);
        m->nstreams = 0;
        return;
    }
    for (unsigned i = 0; i < m->nstreams && !r->err; i++) {
        hl_get_str(r, m->stream[i].sound, sizeof m->stream[i].sound);
        float f = hlp_f32(r);
        if (!(f >= 0.0f && f <= 1.0f)) hlp_rbuf_fail(r);
        m->stream[i].fill = f;
    }
    m->master_peak_db = get_db(r, HL_METER_FLOOR_DB);
    m->master_rms_db = get_db(r, HL_METER_FLOOR_DB);
    m->nbuses = hlp_u8(r);
    if (m->nbuses > HL_PROFILE_MAX_BUSES) {
        hlp_rbuf_fail(r);
        m->nbuses = 0;
        return;
    }
    for (unsigned i = 0; i < m->nbuses && !r->err; i++) {
        hl_profile_bus_t *b = &m->bus[i];
        hl_get_str(r, b->name, sizeof b->name);
        if (!r->err && !hl_name_valid(b->name)) hlp_rbuf_fail(r);
        b->peak_db = get_db(r, HL_METER_FLOOR_DB);
        b->peak_hold_db = get_db(r, HL_METER_FLOOR_DB);
        b->rms_db = get_db(r, HL_METER_FLOOR_DB);
        b->real = hlp_u16(r);
        b->virt = hlp_u16(r);
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
    case HL_EVENT_STREAM:
        hl_put_u64(w, m->voice);
        hl_put_u64(w, m->consumed);
        hl_put_u64(w, m->underruns);
        hl_put_u32(w, m->frames);
        hl_put_u8(w, m->reason);
        break;
    case HL_EVENT_BEAT:
    case HL_EVENT_BAR:
        hl_put_u64(w, m->voice);
        hl_put_u64(w, m->frame);
        hl_put_u64(w, m->time_ns);
        hl_put_u64(w, m->beat);
        hl_put_u32(w, m->bar);
        hl_put_u8(w, m->beat_in_bar);
        hl_put_f32(w, m->bpm);
        break;
    case HL_EVENT_MARKER:
        hl_put_u64(w, m->voice);
        hl_put_u64(w, m->frame);
        hl_put_u64(w, m->time_ns);
        hl_put_u32(w, m->marker_id);
        hl_put_str(w, m->label, HL_MAX_NAME);
        break;
    default:
        /* an unknown type cannot be encoded */
        if (!w->err) w->err = HELIOD_EINVAL;
        break;
    }
}
void hl_put_event_minor(hl_wbuf_t *w, const hl_event_t *m, unsigned minor) {
    hl_put_event(w, m);
    if (minor >= 1 && m->type == HL_EVENT_METER)
        put_meter_more(w, &m->meter, &m->meter_more,
                       minor >= 2 ? HL_METER_MAX_CH : HL_METER_MAX_CH_1_1);
}

void hl_get_event(hl_rbuf_t *r, hl_event_t *m) {
    memset(m, 0, sizeof *m);
    m->type = hlp_u16(r);
    switch (m->type) {
    case HL_EVENT_ERROR:
        m->req_op = hlp_u16(r);
        m->status = hlp_i32(r);
        if (m->status >= 0 || m->status < HELIOD_ERR_MIN) hlp_rbuf_fail(r);
        hl_get_str(r, m->message, sizeof m->message);
        break;
    case HL_EVENT_ENDED:
        m->voice = hlp_u64(r);
        m->reason = hlp_get_enum8(r, HL_END_LIFETIME);
        break;
    case HL_EVENT_STARTED:
        m->voice = hlp_u64(r);
        m->time_ns = hlp_u64(r);
        break;
    case HL_EVENT_VIRTUAL:
        m->voice = hlp_u64(r);
        m->reason = hlp_get_enum8(r, HL_VIRT_WHY_GOVERNED);
        break;
    case HL_EVENT_REAL: m->voice = hlp_u64(r); break;
    case HL_EVENT_DEVICE_LOST:
    case HL_EVENT_DEVICE_BACK:
        hl_get_str(r, m->message, sizeof m->message);
        m->time_ns = hlp_u64(r);
        break;
    case HL_EVENT_METER:
        get_meter(r, &m->meter);
        get_meter_more(r, &m->meter, &m->meter_more);
        break;
    case HL_EVENT_BANK: hl_get_bank_info(r, &m->bank); break;
    case HL_EVENT_ZONE_TICK: hl_get_str(r, m->report, sizeof m->report); break;
    case HL_EVENT_RELOAD:
        hl_get_str(r, m->sound, sizeof m->sound);
        m->status = hlp_i32(r);
        if (m->status > 0 || m->status < HELIOD_ERR_MIN) hlp_rbuf_fail(r);
        m->frames = hlp_u32(r);
        hl_get_str(r, m->message, sizeof m->message);
        break;
    case HL_EVENT_PROFILE: get_profile(r, &m->profile); break;
    case HL_EVENT_STREAM:
        m->voice = hlp_u64(r);
        m->consumed = hlp_u64(r);
        m->underruns = hlp_u64(r);
        m->frames = hlp_u32(r);
        m->reason = hlp_get_enum8(r, 1);
        break;
    case HL_EVENT_BEAT:
    case HL_EVENT_BAR:
        m->voice = hlp_u64(r);
        m->frame = hlp_u64(r);
        m->time_ns = hlp_u64(r);
        m->beat = hlp_u64(r);
        m->bar = hlp_u32(r);
        m->beat_in_bar = hlp_u8(r);
        m->bpm = hlp_f32(r);
        break;
    case HL_EVENT_MARKER:
        m->voice = hlp_u64(r);
        m->frame = hlp_u64(r);
        m->time_ns = hlp_u64(r);
        m->marker_id = hlp_u32(r);
        hl_get_str(r, m->label, sizeof m->label);
        break;
    default: hlp_rbuf_fail(r); break;
    }
}

/* ---- cues, categories, emitters ------------------------------------------ */

void hl_put_cue_info(hl_wbuf_t *w, const hl_cue_info_t *m) {
    hl_put_u8(w, m->kind);
    if (m->kind == HL_CUES_KIND_CUE)
        hl_put_cue(w, &m->cue);
    else if (m->kind == HL_CUES_KIND_CATEGORY)
        hl_put_category(w, &m->cat);
    else if (!w->err)
        w->err = HELIOD_EINVAL; /* an unknown kind cannot be encoded */
    hl_put_cue_counters(w, &m->n);
}
void hl_get_cue_info(hl_rbuf_t *r, hl_cue_info_t *m) {
    memset(m, 0, sizeof *m);
    m->kind = hlp_get_enum8(r, HL_CUES_KIND_CATEGORY);
    if (r->err) return;
    if (m->kind == HL_CUES_KIND_CUE)
        hl_get_cue(r, &m->cue);
    else
        hl_get_category(r, &m->cat);
    hl_get_cue_counters(r, &m->n);
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
    uint8_t *p = hlp_wbuf_reserve(w, m->len);
    if (p) memcpy(p, m->data, m->len);
}
void hl_get_load_data(hl_rbuf_t *r, hl_load_data_t *m) {
    hl_get_str(r, m->name, sizeof m->name);
    m->flags = hlp_get_flags32(r, HL_LOAD_SHARED | HL_LOAD_PIN);
    m->total = hlp_u64(r);
    m->offset = hlp_u64(r);
    m->len = hlp_u32(r);
    /* sizes are part of the wire format: checked before anything trusts them */
    if (m->len < 1 || m->len > HL_MAX_CHUNK || m->total < 1 || m->total > HL_MAX_UPLOAD ||
        m->offset >= m->total || m->len > m->total - m->offset) {
        hlp_rbuf_fail(r);
        m->data = NULL;
        return;
    }
    m->data = hlp_rbuf_take(r, m->len);
}

/* ---- enum names ------------------------------------------------------------- */

static const char *const k_enum_names[][12] = {
    [HL_ENUM_PICK] = {"random", "shuffle", "sequence", NULL},
    [HL_ENUM_OVERFLOW] = {"refuse", "stop-oldest", "fade-oldest", "steal-lowest-priority",
                          "steal-quietest", "steal-farthest", NULL},
    [HL_ENUM_BEYOND] = {"virtual", "release", "clamp", NULL},
    [HL_ENUM_VIRT] = {"resume", "restart", "kill", NULL},
    [HL_ENUM_CURVE] = {"linear", "equal-power", "log", NULL},
    [HL_ENUM_MODEL] = {"linear", "inverse", "exponential", NULL},
    [HL_ENUM_PROP] = {"gain", "pitch", "lp", "hp", "occlusion", "send", "switch", "blend",
                      "bus-gain", "fx", "snapshot", NULL},
    [HL_ENUM_SHAPE] = {"linear", "exp", "log", "scurve", NULL},
    [HL_ENUM_PSCOPE] = {"global", "emitter", "voice", NULL},
};

int hl_enum_from(hl_enum_kind_t kind, const char *s) {
    if ((unsigned)kind > HL_ENUM_PSCOPE || !s) return -1;
    for (int i = 0; k_enum_names[kind][i]; i++)
        if (strcmp(k_enum_names[kind][i], s) == 0) return i;
    return -1;
}

const char *hl_enum_name(hl_enum_kind_t kind, int v) {
    if ((unsigned)kind > HL_ENUM_PSCOPE || v < 0 || v > 9) return NULL;
    return k_enum_names[kind][v];
}

/* ---- time: the clock and scheduled requests ------------------------------ */

int hl_op_schedulable(uint16_t op) {
    return op == HL_OP_PLAY || op == HL_OP_STOP || op == HL_OP_SET || op == HL_OP_BUS ||
           op == HL_OP_LISTENER || op == HL_OP_PARAM || op == HL_OP_SNAPSHOT || op == HL_OP_MUSIC;
}

int hl_req_schedulable(uint16_t op, const uint8_t *body, size_t len) {
    if (!hl_op_schedulable(op)) return 0;
    hl_rbuf_t r;
    hl_rbuf_init(&r, body, len);
    if (op == HL_OP_BUS) { /* graph changes apply at once */
        hl_bus_t m;
        hl_get_bus(&r, &m);
        return !(m.mask & (HL_BUS_CREATE | HL_BUS_REMOVE | HL_BUS_PARENT | HL_BUS_SEND));
    }
    if (op == HL_OP_SNAPSHOT) { /* define, set and remove too */
        hl_snapshot_t m;
        hl_get_snapshot(&r, &m);
        return m.action == HL_SNAP_START || m.action == HL_SNAP_STOP;
    }
    return 1;
}
