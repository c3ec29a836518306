/*
 * fuzz_decode.c - libFuzzer target for the heliod wire decoder.
 *
 * Any bytes are fed to hl_frame_peek as a stream of frames, each complete
 * frame's body is decoded according to its opcode, and the whole input is also
 * decoded as the body of every request, reply and event. Invariants checked
 * (abort() on failure, which libFuzzer and the driver report):
 *   - decoding never reads out of bounds (ASan) nor trusts a declared count;
 *   - a body that decodes re-encodes to exactly the same bytes (the encoding
 *     is canonical, so nothing was silently dropped or clamped);
 *   - peek never accepts a size outside [HL_FRAME_HDR, HL_MAX_FRAME] or an
 *     unknown flag bit.
 * Build with clang -fsanitize=fuzzer,address for real fuzzing; the normal
 * test suite runs it through fuzz_driver.c.
 */
#include "fuzz_decode.h"

#include "hl_proto.h"

#include <stdlib.h>
#include <string.h>

static uint8_t enc_buf[HL_MAX_FRAME];

#define ROUND(type, get, put)                                                                      \
    do {                                                                                           \
        type m_;                                                                                   \
        memset(&m_, 0, sizeof m_);                                                                 \
        get(r, &m_);                                                                               \
        if (!r->err) put(w, &m_);                                                                  \
    } while (0)

/* A body with a MINOR field (hl_schema.h): a later minor's fields were
 * skipped unread, so they stay as they came. */
#define ROUND_MINOR(type, get, put)                                                                \
    do {                                                                                           \
        type m_;                                                                                   \
        memset(&m_, 0, sizeof m_);                                                                 \
        size_t start_ = r->off;                                                                    \
        get(r, &m_);                                                                               \
        if (r->err) break;                                                                         \
        size_t w0_ = w->len;                                                                       \
        put(w, &m_);                                                                               \
        size_t done_ = w->len - w0_, body_ = r->len - start_;                                      \
        if (m_.minor > HL_PROTO_MINOR && !w->err && done_ <= body_ &&                              \
            body_ - done_ <= w->cap - w->len) {                                                    \
            memcpy(w->buf + w->len, r->buf + start_ + done_, body_ - done_);                       \
            w->len += body_ - done_;                                                               \
        }                                                                                          \
    } while (0)

/* A list reply: head, then count entries. */
#define LIST(type, get, put)                                                                       \
    do {                                                                                           \
        hl_list_head_t h_;                                                                         \
        hl_get_list_head(r, &h_);                                                                  \
        if (r->err) break;                                                                         \
        hl_put_list_head(w, &h_);                                                                  \
        for (unsigned i_ = 0; i_ < h_.count && !r->err; i_++)                                      \
            ROUND(type, get, put);                                                                 \
    } while (0)

static void request_body(uint16_t op, hl_rbuf_t *r, hl_wbuf_t *w) {
    switch (op) {
    case HL_OP_HELLO: ROUND_MINOR(hl_hello_t, hl_get_hello, hl_put_hello); break;
    case HL_OP_LOAD: ROUND(hl_load_t, hl_get_load, hl_put_load); break;
    case HL_OP_LOAD_FD: ROUND(hl_load_fd_t, hl_get_load_fd, hl_put_load_fd); break;
    case HL_OP_UNLOAD: ROUND(hl_name_t, hl_get_name, hl_put_name); break;
    case HL_OP_PLAY: ROUND(hl_play_t, hl_get_play, hl_put_play); break;
    case HL_OP_STOP: ROUND(hl_stop_t, hl_get_stop, hl_put_stop); break;
    case HL_OP_STOP_ALL: ROUND(hl_stop_all_t, hl_get_stop_all, hl_put_stop_all); break;
    case HL_OP_SET: ROUND(hl_set_t, hl_get_set, hl_put_set); break;
    case HL_OP_PAUSE: ROUND(hl_pause_t, hl_get_pause, hl_put_pause); break;
    case HL_OP_LISTENER: ROUND(hl_listener_t, hl_get_listener, hl_put_listener); break;
    case HL_OP_STATS: ROUND(hl_stats_req_t, hl_get_stats_req, hl_put_stats_req); break;
    case HL_OP_SUBSCRIBE: ROUND(hl_subscribe_t, hl_get_subscribe, hl_put_subscribe); break;
    case HL_OP_BUS: ROUND(hl_bus_t, hl_get_bus, hl_put_bus); break;
    case HL_OP_EVENT: ROUND(hl_event_t, hl_get_event, hl_put_event); break;
    case HL_OP_CUE: ROUND(hl_cue_t, hl_get_cue, hl_put_cue); break;
    case HL_OP_CATEGORY: ROUND(hl_category_t, hl_get_category, hl_put_category); break;
    case HL_OP_CUES_LOAD: ROUND(hl_cues_load_t, hl_get_cues_load, hl_put_cues_load); break;
    case HL_OP_EMITTER: ROUND(hl_emitter_t, hl_get_emitter, hl_put_emitter); break;
    case HL_OP_DEVICE: ROUND(hl_device_req_t, hl_get_device_req, hl_put_device_req); break;
    case HL_OP_FX: ROUND(hl_fx_req_t, hl_get_fx_req, hl_put_fx_req); break;
    case HL_OP_FX_LIST: ROUND(hl_name_t, hl_get_name, hl_put_name); break;
    case HL_OP_DUCK: ROUND(hl_duck_rule_t, hl_get_duck_rule, hl_put_duck_rule); break;
    case HL_OP_RZONE: ROUND(hl_rzone_t, hl_get_rzone, hl_put_rzone); break;
    case HL_OP_BANK: ROUND(hl_bank_t, hl_get_bank, hl_put_bank); break;
    case HL_OP_ZONE: ROUND(hl_zone_t, hl_get_zone, hl_put_zone); break;
    case HL_OP_PARAM_DEF: ROUND(hl_param_def_t, hl_get_param_def, hl_put_param_def); break;
    case HL_OP_PARAM: ROUND(hl_param_t, hl_get_param, hl_put_param); break;
    case HL_OP_BIND: ROUND(hl_bind_t, hl_get_bind, hl_put_bind); break;
    case HL_OP_CAPTURE: ROUND(hl_capture_t, hl_get_capture, hl_put_capture); break;
    case HL_OP_CUE_DETAIL:
    case HL_OP_SNAPSHOT_DETAIL: ROUND(hl_name_t, hl_get_name, hl_put_name); break;
    case HL_OP_PARAMS:
    case HL_OP_BANKS:
    case HL_OP_ZONES:
    case HL_OP_RZONES:
    case HL_OP_BUSES:
    case HL_OP_DUCKS:
    case HL_OP_CUES:
    case HL_OP_PING:
    case HL_OP_SOUNDS:
    case HL_OP_VOICES:
    case HL_OP_CLOCK:
    case HL_OP_SHEET_KEYS:
    case HL_OP_BUNDLE_BEGIN:
    case HL_OP_BUNDLE_END:
    case HL_OP_DEVICES: break; /* empty bodies */
    default: r->err = HELIOD_EPROTO; break;
    }
}

static void reply_body(uint16_t op, hl_rbuf_t *r, hl_wbuf_t *w) {
    hl_reply_head_t head;
    hl_get_reply_head(r, &head);
    if (r->err) return;
    hl_put_reply_head(w, &head);
    if (head.status < 0) {
        char msg[HL_MAX_MSG + 1];
        hl_get_str(r, msg, sizeof msg);
        if (!r->err) hl_put_str(w, msg, HL_MAX_MSG);
        return;
    }
    switch (op) {
    case HL_OP_HELLO: ROUND_MINOR(hl_hello_reply_t, hl_get_hello_reply, hl_put_hello_reply); break;
    case HL_OP_PING: {
        uint64_t t = hl_get_u64(r);
        hl_put_u64(w, t);
        break;
    }
    case HL_OP_LOAD:
    case HL_OP_LOAD_FD: ROUND(hl_sound_info_t, hl_get_sound_info, hl_put_sound_info); break;
    case HL_OP_SOUNDS: LIST(hl_sound_info_t, hl_get_sound_info, hl_put_sound_info); break;
    case HL_OP_PLAY: ROUND(hl_play_reply_t, hl_get_play_reply, hl_put_play_reply); break;
    case HL_OP_STOP_ALL:
    case HL_OP_PAUSE: ROUND(hl_count_reply_t, hl_get_count_reply, hl_put_count_reply); break;
    case HL_OP_VOICES: LIST(hl_voice_info_t, hl_get_voice_info, hl_put_voice_info); break;
    case HL_OP_DEVICES: LIST(hl_device_info_t, hl_get_device_info, hl_put_device_info); break;
    case HL_OP_STATS: LIST(hl_stat_t, hl_get_stat, hl_put_stat); break;
    case HL_OP_CUES: LIST(hl_cue_info_t, hl_get_cue_info, hl_put_cue_info); break;
    case HL_OP_DEVICE: ROUND(hl_device_reply_t, hl_get_device_reply, hl_put_device_reply); break;
    case HL_OP_CUES_LOAD:
        ROUND(hl_cues_load_reply_t, hl_get_cues_load_reply, hl_put_cues_load_reply);
        break;
    case HL_OP_BUSES: LIST(hl_bus_info_t, hl_get_bus_info, hl_put_bus_info); break;
    case HL_OP_FX_LIST: LIST(hl_fx_info_t, hl_get_fx_info, hl_put_fx_info); break;
    case HL_OP_DUCKS: LIST(hl_duck_info_t, hl_get_duck_info, hl_put_duck_info); break;
    case HL_OP_RZONES: LIST(hl_rzone_info_t, hl_get_rzone_info, hl_put_rzone_info); break;
    case HL_OP_BANKS: LIST(hl_bank_info_t, hl_get_bank_info, hl_put_bank_info); break;
    case HL_OP_ZONES: LIST(hl_zone_info_t, hl_get_zone_info, hl_put_zone_info); break;
    case HL_OP_PARAMS: LIST(hl_param_info_t, hl_get_param_info, hl_put_param_info); break;
    case HL_OP_SNAPSHOT_DETAIL:
        LIST(hl_snapshot_setting_t, hl_get_snapshot_setting, hl_put_snapshot_setting);
        break;
    case HL_OP_SHEET_KEYS: LIST(hl_sheet_key_t, hl_get_sheet_key, hl_put_sheet_key); break;
    case HL_OP_PARAM_DEF:
    case HL_OP_PARAM:
    case HL_OP_BIND: break; /* empty */
    case HL_OP_BANK:        /* load: the bank's state; unload: empty */
        if (r->off < r->len) ROUND(hl_bank_info_t, hl_get_bank_info, hl_put_bank_info);
        break;
    case HL_OP_FX:
    case HL_OP_CAPTURE: ROUND(hl_count_reply_t, hl_get_count_reply, hl_put_count_reply); break;
    case HL_OP_CUE_DETAIL: { /* the cone and curve, nbinds BINDs, 0..2 ATTENs */
        hl_cue_detail_t d_;
        memset(&d_, 0, sizeof d_);
        hl_get_cue_detail(r, &d_);
        if (r->err) break;
        hl_put_cue_detail(w, &d_);
        for (unsigned i_ = 0; i_ < d_.nbinds && !r->err; i_++)
            ROUND(hl_bind_t, hl_get_bind, hl_put_bind);
        for (int i_ = 0; i_ < 2 && !r->err && r->off < r->len; i_++) /* its distance curves */
            ROUND(hl_atten_t, hl_get_atten, hl_put_atten);
        break;
    }
    case HL_OP_CLOCK: ROUND(hl_clock_t, hl_get_clock, hl_put_clock); break;
    case HL_OP_BUNDLE_END: ROUND(hl_count_reply_t, hl_get_count_reply, hl_put_count_reply); break;
    case HL_OP_BUNDLE_BEGIN: break;
    case HL_OP_EMITTER: /* empty (create, set) or a count (destroy) */
        if (r->off < r->len) ROUND(hl_count_reply_t, hl_get_count_reply, hl_put_count_reply);
        break;
    case HL_OP_CUE:
    case HL_OP_CATEGORY:
    case HL_OP_UNLOAD:
    case HL_OP_STOP:
    case HL_OP_SET:
    case HL_OP_LISTENER:
    case HL_OP_SUBSCRIBE:
    case HL_OP_DUCK:
    case HL_OP_RZONE:
    case HL_OP_ZONE:
    case HL_OP_BUS: break;
    default: r->err = HELIOD_EPROTO; break;
    }
}

int hl_fuzz_body(uint16_t op, int as_reply, const uint8_t *data, size_t len) {
    hl_rbuf_t r;
    hl_wbuf_t w;
    hl_rbuf_init(&r, data, len);
    hl_wbuf_init(&w, enc_buf, sizeof enc_buf);
    if (as_reply)
        reply_body(op, &r, &w);
    else
        request_body(op, &r, &w);
    int rc = hl_rbuf_finish(&r);
    if (rc == 0) {
        if (w.err || w.len != len || (len && memcmp(enc_buf, data, len) != 0))
            abort(); /* decoded but not canonical: a field was lost or altered */
    } else if (rc != HELIOD_EPROTO) {
        abort();
    }
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* as a stream of frames */
    size_t off = 0;
    while (off < size) {
        hl_frame_hdr_t hdr;
        int rc = hl_frame_peek(data + off, size - off, &hdr);
        if (rc != 0) break;
        if (hdr.size < HL_FRAME_HDR || hdr.size > HL_MAX_FRAME || (hdr.flags & ~HL_FLAG_MASK))
            abort();
        if (hdr.size > size - off) break;
        const uint8_t *body = data + off + HL_FRAME_HDR;
        size_t blen = hdr.size - HL_FRAME_HDR;
        /* HL_FLAG_AT: a request's frame comes first, a reply's lateness last */
        if ((hdr.flags & HL_FLAG_AT) && blen >= 8) {
            if (hdr.op != HL_OP_REPLY) body += 8;
            blen -= 8;
        }
        if (hdr.op == HL_OP_REPLY) {
            /* the answered op is in the body: try it */
            if (blen >= 2) hl_fuzz_body((uint16_t)(body[0] | body[1] << 8), 1, body, blen);
        } else {
            hl_fuzz_body(hdr.op, 0, body, blen);
        }
        off += hdr.size;
    }
    /* as the body of everything */
    for (uint16_t op = HL_OP_CLOCK; op <= HL_OP_BUNDLE_END; op++) { /* time */
        hl_fuzz_body(op, 0, data, size);
        hl_fuzz_body(op, 1, data, size);
    }
    for (uint16_t op = HL_OP_PARAM_DEF; op <= HL_OP_BIND; op++) { /* game parameters */
        hl_fuzz_body(op, 0, data, size);
        hl_fuzz_body(op, 1, data, size);
    }
    hl_fuzz_body(HL_OP_CAPTURE, 0, data, size); /* the session capture */
    hl_fuzz_body(HL_OP_CAPTURE, 1, data, size);
    hl_fuzz_body(HL_OP_CUE_DETAIL, 0, data, size); /* a cue read back */
    hl_fuzz_body(HL_OP_CUE_DETAIL, 1, data, size);
    hl_fuzz_body(HL_OP_SNAPSHOT_DETAIL, 0, data, size); /* a snapshot read back */
    hl_fuzz_body(HL_OP_SNAPSHOT_DETAIL, 1, data, size);
    hl_fuzz_body(HL_OP_SHEET_KEYS, 0, data, size); /* tempo maps and music read back */
    hl_fuzz_body(HL_OP_SHEET_KEYS, 1, data, size);
    for (uint16_t op = HL_OP_HELLO; op <= HL_OP_EMITTER; op++) {
        hl_fuzz_body(op, 0, data, size);
        hl_fuzz_body(op, 1, data, size);
    }
    hl_fuzz_body(HL_OP_EVENT, 0, data, size);
    return 0;
}
