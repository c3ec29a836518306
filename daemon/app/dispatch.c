/*
 * dispatch.c - one handler per opcode (see dispatch.h).
 *
 * Every handler decodes its whole body first (a body that does not decode
 * exactly is a protocol error: EPROTO reply, connection closed after it is
 * flushed), then validates (a bad argument is an error reply and the
 * connection stays), then acts. Replies are encoded into one scratch buffer
 * of HL_MAX_FRAME bytes and copied into the connection's output batch. With
 * HL_FLAG_NOREPLY success is silent and failure becomes an EVENT_ERROR.
 *
 * Most handlers live with their domain and share the reply helpers of
 * dispatch_int.h: PLAY (voice_play.c), the other voice requests
 * (voice_ops.c), cues and categories
 * (cue_ops.c), emitters (emitter_ops.c), buses, effects, ducking and reverb
 * zones (bus_ops.c), banks and world zones (asset_ops.c), the clock,
 * scheduled requests and bundles (time_ops.c), the devices (device.c). This
 * file keeps the handshake, ping, sounds (load, uploads, unload, list), the
 * listener, stats, subscribe, the opcode table and the dispatch itself
 * (shutdown and handshake gates, bundles held, scheduled requests routed,
 * a LOAD_FD's descriptor closed when its handler did not take it).
 */
#include "dispatch.h"
#include "dispatch_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "capture.h"
#include "device.h"
#include "feeds.h"
#include "hl_config.h"
#include "hl_dsp.h"
#include "hl_limits.h"
#include "hld_limits.h"
#include "log.h"
#include "metering.h"
#include "profile.h"
#include "stats.h"

/* ---- handlers --------------------------------------------------------------- */

static int op_hello(hld_req_t *q) {
    hl_hello_t m;
    /* the major first: another major's HELLO is answered EVERSION, whatever follows it */
    hl_rbuf_t peek = q->r;
    uint16_t major = hl_get_u16(&peek);
    if (peek.err || major == HL_PROTO_VERSION) { /* 1.x, or too short to say: decoded strictly */
        hl_get_hello(&q->r, &m);
        if (!hld_body_ok(q)) return CLOSE_CONN;
    } else {
        memset(&m, 0, sizeof m);
        m.version = major;
    }
    hld_conn_t *c = q->c;
    if (c->hello) return hld_fail(q, HELIOD_EINVAL, "handshake already done");
    if (m.version != HL_PROTO_VERSION) { /* another major: its frames are not ours to read */
        char msg[HL_MAX_MSG + 1];
        snprintf(msg, sizeof msg,
                 "protocol %u.x is not supported: heliod %s speaks protocol %d.0 to %d.%d",
                 m.version, HELIOD_VERSION, HL_PROTO_VERSION, HL_PROTO_VERSION, HL_PROTO_MINOR);
        hld_send_error(c, q->h->op, q->h->flags & ~HL_FLAG_NOREPLY, q->h->id, HELIOD_EVERSION, msg);
        return CLOSE_CONN;
    }
    hld_daemon_t *d = c->d;
    int control = (m.flags & HL_HELLO_CONTROL) != 0;
    uint32_t max = d->cfg.max_clients ? d->cfg.max_clients : HL_MAX_CLIENTS;
    /* max places for everyone; the HLD_CONTROL_PLACES above them for control
     * clients, one per process: a control client takes a kept place first
     * (so it costs the games none of theirs) if its process holds none, else
     * an ordinary one. A flood of connections claiming control from one
     * process takes one kept place, and the operator's heliodctl (a process
     * of its own) still gets in. */
    hld_proc_t *proc = c->cl ? c->cl->proc : NULL;
    int reserved = control && proc && !proc->reserved && d->net.reserved < HLD_CONTROL_PLACES;
    int placed = !reserved && d->net.placed < max;
    if (!reserved && !placed) {
        char msg[HL_MAX_MSG + 1];
        d->n.clients_rejected++;
        if (!control)
            snprintf(msg, sizeof msg, "server full: too many clients (%u, --max-clients %u)",
                     d->net.placed, max);
        else
            snprintf(msg, sizeof msg,
                     "server full: too many clients (%u, --max-clients %u), and this process "
                     "already holds one of the %d places kept for control clients (one each)",
                     d->net.placed, max, HLD_CONTROL_PLACES);
        /* id 0, as the refusal at accept: the same answer either way */
        hld_send_error(c, HL_OP_HELLO, 0, 0, HELIOD_EBUSY, msg);
        return CLOSE_CONN;
    }
    c->hello = 1;
    /* every 1.x client: it speaks up to m.minor (0: a 1.0 client), we up to ours */
    c->minor = m.minor < HL_PROTO_MINOR ? m.minor : HL_PROTO_MINOR;
    c->control = control;
    if (placed) {
        c->placed = 1;
        d->net.placed++;
    } else {
        c->reserved = 1;
        proc->reserved++;
        d->net.reserved++;
    }
    if (!control) d->net.plain++;
    if (c->cl) c->cl->control = control;
    if (m.client_name[0]) snprintf(c->name, sizeof c->name, "%s", m.client_name);
    if (c->cl) snprintf(c->cl->name, sizeof c->cl->name, "%s", c->name);
    hld_debug("client %u is %s%s", c->id, c->name, control ? " (control)" : "");
    hl_hello_reply_t hr = {
        .version = HL_PROTO_VERSION,
        .rate = c->d->engine.rate,
        .period = c->d->engine.period,
        .voices = c->d->cfg.voices,
        .client_id = c->id,
        .flags = control ? HL_HELLO_CONTROL : 0,
        /* our minor, to a client that said its own; a 1.0 client gets the 1.0 reply */
        .minor = m.minor ? HL_PROTO_MINOR : 0,
    };
    snprintf(hr.server_version, sizeof hr.server_version, "%s", HELIOD_VERSION);
    hld_reply_begin(q);
    hl_put_hello_reply(&q->w, &hr);
    return hld_reply_end(q);
}

static int op_ping(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_reply_begin(q);
    hl_put_u64(&q->w, hld_now_ns());
    return hld_reply_end(q);
}

typedef struct {
    hld_conn_t *c;
    uint32_t id;
    uint16_t flags;
    uint16_t op; /* LOAD or LOAD_DATA: the request the reply answers */
} load_ctx_t;

static void load_done(void *user, int status, const char *msg, const hld_sound_t *snd) {
    load_ctx_t *lc = user;
    hld_conn_t *c = lc->c;
    if (!c->closing) {
        if (status < 0) {
            hld_send_error(c, lc->op, lc->flags, lc->id, status, msg);
        } else if (!(lc->flags & HL_FLAG_NOREPLY)) {
            hl_frame_hdr_t h = {.op = lc->op, .flags = lc->flags, .id = lc->id};
            hld_req_t q = {.c = c, .h = &h};
            hl_sound_info_t si;
            hld_sound_info(snd, &si);
            hld_reply_begin(&q);
            hl_put_sound_info(&q.w, &si);
            hld_reply_end(&q);
        }
        hld_conn_flush(c);
    }
    hld_conn_unref(c);
    free(lc);
}

static int op_load(hld_req_t *q) {
    hl_load_t m;
    hl_get_load(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (m.path[0] != '/') /* the daemon's working directory is not the client's */
        return hld_fail(q, HELIOD_EINVAL, "path: must be absolute");
    load_ctx_t *lc = malloc(sizeof *lc);
    if (!lc) return hld_fail(q, HELIOD_ENOMEM, NULL);
    *lc = (load_ctx_t){.c = q->c, .id = q->h->id, .flags = q->h->flags, .op = HL_OP_LOAD};
    char msg[HL_MAX_MSG + 1];
    int rc = hld_sounds_load_range(&q->c->d->sounds, q->c->cl, m.name, m.path, m.offset, m.length,
                                   m.flags, load_done, lc, msg, sizeof msg);
    if (rc < 0) {
        free(lc);
        q->c->d->sounds.loads_failed++;
        return hld_fail(q, rc, msg);
    }
    hld_conn_ref(q->c);
    return 0;
}

/* Drops the connection's upload in progress, giving its memory back (to
 * the daemon's budget and its client's quota). */
void hld_upload_drop(hld_conn_t *c) {
    if (!c->up_data) return;
    free(c->up_data);
    hld_sounds_unreserve(&c->d->sounds, c->up_reserved);
    if (c->up_cl) hld_client_unreserve_bytes(c->up_cl, c->up_reserved);
    c->up_data = NULL;
    c->up_cl = NULL;
    c->up_total = c->up_have = c->up_reserved = 0;
}
#define upload_drop hld_upload_drop

void hld_upload_timeout(hld_conn_t *c) {
    char msg[HL_MAX_MSG + 1];
    snprintf(msg, sizeof msg,
             "upload %s: no chunk for %d ms (%llu of %llu bytes): dropped, its memory freed",
             c->up_name, HLD_UPLOAD_IDLE_MS, (unsigned long long)c->up_have,
             (unsigned long long)c->up_total);
    hld_debug("client %u: %s", c->id, msg);
    c->d->n.uploads_timed_out++;
    hld_upload_drop(c);
    hld_send_error(c, HL_OP_LOAD_DATA, 0, 0, HELIOD_ETIMEDOUT, msg);
    hld_conn_flush(c);
}

static int op_load_data(hld_req_t *q) {
    hl_load_data_t m;
    hl_get_load_data(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_conn_t *c = q->c;
    hld_sounds_t *s = &c->d->sounds;
    char msg[HL_MAX_MSG + 1];
    if (m.offset == 0) { /* a new upload (one in progress is dropped) */
        upload_drop(c);
        if (!hl_name_valid(m.name)) return hld_fail(q, HELIOD_ENAME, "invalid sound name");
        /* the client's quota, then the budget, before anything is
         * allocated: the encoded bytes count until decoded; room is made
         * among this client's own sounds only */
        if (c->cl && hld_client_reserve_bytes(c->cl, m.total) != 0) {
            hld_client_refused(c->cl, HLD_QUOTA_BYTES);
            snprintf(
                msg, sizeof msg,
                "client quota: upload of %llu bytes over its sample memory (--client-sample-mb; "
                "one budget per process)",
                (unsigned long long)m.total);
            return hld_fail(q, HELIOD_EQUOTA, msg);
        }
        if (hld_sounds_reserve(s, m.total) != 0 &&
            (hld_sounds_evict(s, m.total, c->cl) == 0 || hld_sounds_reserve(s, m.total) != 0)) {
            if (c->cl) hld_client_unreserve_bytes(c->cl, m.total);
            snprintf(msg, sizeof msg,
                     "upload of %llu bytes: over the sample memory limit (--max-sample-mb)",
                     (unsigned long long)m.total);
            return hld_fail(q, HELIOD_ENOMEM, msg);
        }
        c->up_data = malloc(m.total);
        if (!c->up_data) {
            hld_sounds_unreserve(s, m.total);
            if (c->cl) hld_client_unreserve_bytes(c->cl, m.total);
            return hld_fail(q, HELIOD_ENOMEM, "out of memory for the upload");
        }
        c->up_cl = c->cl;
        c->up_total = m.total;
        c->up_reserved = m.total;
        c->up_have = 0;
        c->up_flags = m.flags;
        snprintf(c->up_name, sizeof c->up_name, "%s", m.name);
    } else if (!c->up_data || m.offset != c->up_have || m.total != c->up_total ||
               strcmp(m.name, c->up_name) != 0) {
        upload_drop(c);
        return hld_fail(q, HELIOD_EINVAL,
                        "upload: a chunk out of order (each chunk continues where the last "
                        "ended, same name and total; offset 0 starts an upload)");
    }
    memcpy(c->up_data + c->up_have, m.data, m.len);
    c->up_have += m.len;
    c->up_last_ns = hld_now_ns(); /* an upload idle for HLD_UPLOAD_IDLE_MS is dropped */
    if (c->up_have < c->up_total) return hld_reply_ok(q);
    /* complete: decode it (the LOAD reply comes when it is done) */
    load_ctx_t *lc = malloc(sizeof *lc);
    if (!lc) {
        upload_drop(c);
        return hld_fail(q, HELIOD_ENOMEM, NULL);
    }
    *lc = (load_ctx_t){.c = c, .id = q->h->id, .flags = q->h->flags, .op = HL_OP_LOAD_DATA};
    /* the decode reserves the decoded size against the quota: the encoded
     * bytes leave it (they stay in the daemon's budget until decoded) */
    if (c->up_cl) hld_client_unreserve_bytes(c->up_cl, c->up_reserved);
    c->up_cl = NULL;
    int rc = hld_sounds_load_mem(s, c->cl, c->up_name, c->up_data, c->up_total, c->up_reserved,
                                 c->up_flags, load_done, lc, msg, sizeof msg);
    if (rc < 0) {
        free(lc);
        upload_drop(c);
        s->loads_failed++;
        return hld_fail(q, rc, msg);
    }
    c->up_data = NULL; /* the load owns it and its reservation now */
    c->up_total = c->up_have = c->up_reserved = 0;
    c->d->n.uploads_chunked++;
    hld_conn_ref(c);
    return 0;
}

/* LOAD_FD: the upload as one descriptor (SCM_RIGHTS), e.g. a sealed memfd.
 * The size cap and the budget are checked before anything is queued; the
 * load worker checks what the descriptor is (fstat: a regular file of the
 * declared size), reads it with pread and the completion closes it. Any
 * failure here closes it at once (hld_dispatch closes one not taken). */
static int op_load_fd(hld_req_t *q) {
    hl_load_fd_t m;
    hl_get_load_fd(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_conn_t *c = q->c;
    char msg[HL_MAX_MSG + 1];
    if (!hl_name_valid(m.name)) return hld_fail(q, HELIOD_ENAME, "invalid sound name");
    if (m.size == 0) return hld_fail(q, HELIOD_EINVAL, "load-fd: size 0 (an empty file)");
    if (m.size > HL_MAX_UPLOAD) {
        snprintf(msg, sizeof msg, "load-fd: %llu bytes: over the upload limit (%u MiB)",
                 (unsigned long long)m.size, HL_MAX_UPLOAD >> 20);
        return hld_fail(q, HELIOD_ETOOBIG, msg);
    }
    int fd = hld_conn_take_fd(c);
    if (fd < 0)
        return hld_fail(q, HELIOD_EINVAL,
                        "load-fd: no descriptor came with the frame (SCM_RIGHTS, one per frame)");
    load_ctx_t *lc = malloc(sizeof *lc);
    if (!lc) {
        close(fd);
        c->d->n.fds_closed++;
        return hld_fail(q, HELIOD_ENOMEM, NULL);
    }
    *lc = (load_ctx_t){.c = c, .id = q->h->id, .flags = q->h->flags, .op = HL_OP_LOAD_FD};
    hld_sounds_t *s = &c->d->sounds;
    int rc = hld_sounds_load_fd(s, c->cl, m.name, fd, (size_t)m.size, m.flags, load_done, lc, msg,
                                sizeof msg);
    if (rc < 0) {
        free(lc);
        close(fd);
        c->d->n.fds_closed++;
        s->loads_failed++;
        return hld_fail(q, rc, msg);
    }
    c->d->n.uploads_fd++;
    hld_conn_ref(c);
    return 0;
}

static int op_unload(hld_req_t *q) {
    hl_name_t m;
    hl_get_name(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_conn_t *c = q->c;
    hld_sound_t *s = hld_sounds_lookup(&c->d->sounds, c->id, m.name);
    char msg[HL_MAX_MSG + 1];
    if (!s) {
        snprintf(msg, sizeof msg, "no sound named %s", m.name);
        return hld_fail(q, HELIOD_ENOSOUND, msg);
    }
    if (!hld_conn_may(c, s->loader)) { /* shared, loaded by another client */
        c->d->n.denied++;
        snprintf(msg, sizeof msg,
                 "sound %s is shared by client %u: only it or a control client may unload it",
                 m.name, s->loader);
        return hld_fail(q, HELIOD_EPERM, msg);
    }
    int rc = hld_sounds_unload(&c->d->sounds, s);
    if (rc == HELIOD_EINUSE) {
        if (s->loading)
            snprintf(msg, sizeof msg, "sound %s is still loading", m.name);
        else
            snprintf(msg, sizeof msg, "sound %s is used by %u playing or starting voice(s)", m.name,
                     s ? (s->playing > s->mixing ? s->playing : s->mixing) + s->pending : 0);
        return hld_fail(q, rc, msg);
    }
    if (rc < 0) return hld_fail(q, rc, NULL);
    return hld_reply_ok(q);
}

typedef struct {
    hld_list_t l;
    const hld_conn_t *c;
} sounds_ctx_t;

/* A client lists its own and the shared sounds; a control client all. */
static int sounds_entry(void *user, const hld_sound_t *snd) {
    sounds_ctx_t *x = user;
    hld_list_t *l = &x->l;
    if (snd->ns && !hld_conn_may(x->c, snd->ns)) return 0;
    hl_sound_info_t si;
    hld_sound_info(snd, &si);
    size_t before = l->q->w.len;
    hl_put_sound_info(&l->q->w, &si);
    return hld_list_entry_done(l, before);
}

static int op_sounds(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    sounds_ctx_t x = {.c = q->c};
    hld_list_begin(&x.l, q);
    hld_sounds_foreach(&q->c->d->sounds, sounds_entry, &x);
    return hld_list_end(&x.l);
}

static int op_listener(hld_req_t *q) {
    hl_listener_t m;
    hl_get_listener(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_listener(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    hl_listener_state_t l;
    hl_mixer_get_listener(d->engine.mixer, &l);
    if (m.index > 0) { /* a client's own listener: its creator's (or a control client's) */
        char nm[8];
        snprintf(nm, sizeof nm, "%u", (unsigned)m.index);
        int on = hl_mixer_get_listener_at(d->engine.mixer, m.index, &l);
        if (on && !hld_may_change(q, d->lis_owner[m.index], "listener", nm)) return 0;
        if (m.off) {
            if (!on) return hld_reply_ok(q);
            int rc = hl_mixer_set_listener_at(d->engine.mixer, m.index, NULL, hld_now_ns());
            if (rc < 0) return hld_mixer_fail(q, rc);
            hld_vm_mark_dirty(d->vm);
            return hld_reply_ok(q);
        }
        if (!on) { /* a new listener starts where the default one is, facing its way */
            hl_mixer_get_listener(d->engine.mixer, &l);
            memset(l.vel, 0, sizeof l.vel);
            l.weight = 0.0f;
        }
        if (m.weight != 0.0f) l.weight = m.weight > 0.0f ? m.weight : 0.0f;
        if (m.mask & HL_LIS_POS) memcpy(l.pos, m.pos, sizeof l.pos);
        if (m.mask & HL_LIS_FWD) memcpy(l.fwd, m.fwd, sizeof l.fwd);
        if (m.mask & HL_LIS_UP) memcpy(l.up, m.up, sizeof l.up);
        if (m.mask & HL_LIS_VEL) memcpy(l.vel, m.vel, sizeof l.vel);
        int rc = hl_mixer_set_listener_at(d->engine.mixer, m.index, &l, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc);
        if (!on) d->lis_owner[m.index] = q->c->id;
        hld_vm_mark_dirty(d->vm);
        return hld_reply_ok(q);
    }
    if (m.off) return hld_fail(q, HELIOD_EINVAL, "off: the global listener (0) is always on");
    if (m.mask & HL_LIS_POS) memcpy(l.pos, m.pos, sizeof l.pos);
    if (m.mask & HL_LIS_FWD) memcpy(l.fwd, m.fwd, sizeof l.fwd);
    if (m.mask & HL_LIS_UP) memcpy(l.up, m.up, sizeof l.up);
    if (m.mask & HL_LIS_VEL) memcpy(l.vel, m.vel, sizeof l.vel);
    if (m.weight != 0.0f) l.weight = m.weight > 0.0f ? m.weight : 0.0f;
    int rc = hl_mixer_set_listener(d->engine.mixer, &l, hld_now_ns());
    if (rc < 0) return hld_mixer_fail(q, rc);
    hld_vm_mark_dirty(d->vm); /* audibility changed: re-rank soon */
    if (m.mask & HL_LIS_POS) hld_rzones_update(&d->rzones, l.pos, hld_now_ns());
    return hld_reply_ok(q);
}

static int op_stats(hld_req_t *q) {
    hl_stats_req_t m = {0};
    if (q->r.len) hl_get_stats_req(&q->r, &m); /* an empty body means no flags */
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (m.flags & ~(uint32_t)HL_STATS_RESET)
        return hld_fail(q, HELIOD_EINVAL, "unknown stats flags");
    hld_daemon_t *d = q->c->d;
    if ((m.flags & HL_STATS_RESET) && !q->c->control) { /* others' figures: the operator's */
        d->n.denied++;
        return hld_fail(q, HELIOD_EPERM,
                        "resetting the statistics needs a control client (heliodctl stats "
                        "--reset); every client reads them");
    }
    if (!(q->h->flags & HL_FLAG_NOREPLY)) {
        static hl_stat_t st[HLD_MAX_STATS];
        size_t n = hld_stats_collect(d, st, HLD_MAX_STATS);
        hld_list_t l;
        hld_list_begin(&l, q);
        for (size_t i = 0; i < n; i++) {
            size_t before = q->w.len;
            hl_put_stat(&q->w, &st[i]);
            if (hld_list_entry_done(&l, before)) break;
        }
        hld_list_end(&l);
    }
    if (m.flags & HL_STATS_RESET) {
        hld_engine_reset_stats(&d->engine);
        hld_metering_reset_loudness(&d->tel);
    }
    return 0;
}

static int op_subscribe(hld_req_t *q) {
    hl_subscribe_t m = {0};
    if (q->r.len == sizeof(uint32_t)) { /* a client from before meter_hz: the mask alone */
        m.mask = hl_get_u32(&q->r);
        if (m.mask & ~(uint32_t)HL_SUB_MASK) q->r.err = HELIOD_EPROTO; /* as the codec's */
    } else {
        hl_get_subscribe(&q->r, &m);
    }
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_subscribe(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    q->c->sub = m.mask;
    q->c->feed[HLD_FEED_METER].hz = m.meter_hz;
    q->c->feed[HLD_FEED_PROFILE].hz = m.profile_hz;
    hld_feeds_subscribed(q->c);
    return hld_reply_ok(q);
}

/* DEVICE, DEVICES: device.c's, on the daemon's device module. */
static int op_device(hld_req_t *q) {
    return hld_op_device(&q->c->d->devices, q);
}

static int op_devices(hld_req_t *q) {
    return hld_op_devices(&q->c->d->devices, q);
}

/* The opcode table: each handler lives with its domain (see the top of the
 * file); dispatch keeps framing, ids and replies. */
int hld_fail_unknown(hld_req_t *q, int status, const char *kind, const char *name) {
    char msg[HL_MAX_MSG + 1];
    snprintf(msg, sizeof msg, "no %s named %s", kind, name);
    return hld_fail(q, status, msg);
}

static const hld_op_fn g_ops[HLD_OPS] = {
    [HL_OP_HELLO] = op_hello,
    [HL_OP_PING] = op_ping,
    [HL_OP_LOAD] = op_load,
    [HL_OP_UNLOAD] = op_unload,
    [HL_OP_LOAD_DATA] = op_load_data,
    [HL_OP_LOAD_FD] = op_load_fd,
    [HL_OP_SOUNDS] = op_sounds,
    [HL_OP_PLAY] = hld_op_play,
    [HL_OP_STOP] = hld_op_stop,
    [HL_OP_STOP_ALL] = hld_op_stop_all,
    [HL_OP_SET] = hld_op_set,
    [HL_OP_LISTENER] = op_listener,
    [HL_OP_VOICES] = hld_op_voices,
    [HL_OP_DEVICES] = op_devices, /* device.c: from the worker's cache */
    [HL_OP_STATS] = op_stats,
    [HL_OP_SUBSCRIBE] = op_subscribe,
    [HL_OP_BUS] = hld_op_bus,
    [HL_OP_PAUSE] = hld_op_pause,
    [HL_OP_CUE] = hld_op_cue,
    [HL_OP_CATEGORY] = hld_op_category,
    [HL_OP_CUES] = hld_op_cues,
    [HL_OP_CUES_LOAD] = hld_op_cues_load,
    [HL_OP_EMITTER] = hld_op_emitter,
    [HL_OP_DEVICE] = op_device,
    [HL_OP_BUSES] = hld_op_buses,
    [HL_OP_FX] = hld_op_fx,
    [HL_OP_FX_LIST] = hld_op_fx_list,
    [HL_OP_DUCK] = hld_op_duck,
    [HL_OP_DUCKS] = hld_op_ducks,
    [HL_OP_RZONE] = hld_op_rzone,
    [HL_OP_RZONES] = hld_op_rzones,
    [HL_OP_BANK] = hld_op_bank,
    [HL_OP_BANKS] = hld_op_banks,
    [HL_OP_ZONE] = hld_op_zone,
    [HL_OP_ZONES] = hld_op_zones,
    [HL_OP_CLOCK] = hld_op_clock,
    [HL_OP_BUNDLE_BEGIN] = hld_op_bundle_begin,
    [HL_OP_BUNDLE_END] = hld_op_bundle_end,
    [HL_OP_STREAM] = hld_op_stream,
    [HL_OP_PARAM_DEF] = hld_op_param_def,
    [HL_OP_PARAM] = hld_op_param,
    [HL_OP_PARAMS] = hld_op_params,
    [HL_OP_BIND] = hld_op_bind,
    [HL_OP_SNAPSHOT] = hld_op_snapshot,
    [HL_OP_SNAPSHOTS] = hld_op_snapshots,
    [HL_OP_CONE] = hld_op_cone,
    [HL_OP_ATTEN] = hld_op_atten,
    [HL_OP_MUSIC] = hld_op_music,
    [HL_OP_CAPTURE] = hld_op_capture,
    [HL_OP_CUE_DETAIL] = hld_op_cue_detail,
    [HL_OP_SNAPSHOT_DETAIL] = hld_op_snapshot_detail,
    [HL_OP_SHEET_KEYS] = hld_op_sheet_keys,
};

/* A request's frame of effect, for the capture: where the audio thread was
 * before its handler (b) and after it. The same definite phase both times:
 * what it pushed applies from the frame (between two calls) or from the
 * next call's start (the ring drained inside one: IN_PERIOD). If the
 * thread moved meanwhile, the last finished drain's read index tells
 * whether it took all of the request's commands (from that call's frame)
 * or none (from the next call's). Otherwise (a drain under way, some taken
 * by one call and the rest by the next) no replay can tell: counted
 * (capture_unsure). Returns the flags, *frame the frame. */
typedef struct {
    uint64_t frame;
    int phase;
    uint32_t pushed;
} cap_at_t;

static void cap_mark(hld_daemon_t *d, cap_at_t *a) {
    a->phase = hl_mixer_phase(d->engine.mixer, &a->frame);
    a->pushed = hl_mixer_cmds_pushed(d->engine.mixer);
}

static uint32_t capture_at(hld_daemon_t *d, const cap_at_t *b, uint64_t *frame) {
    hl_mixer_t *mx = d->engine.mixer;
    cap_at_t a, a2;
    cap_mark(d, &a);
    *frame = a.frame;
    uint32_t inp = a.phase == HL_MIX_PHASE_DRAINED ? HLD_CAPTURE_REQ_INPERIOD : 0;
    if (a.pushed == b->pushed) return inp; /* nothing pushed: nothing to split */
    if (a.phase != HL_MIX_PHASE_DRAINING && a.phase == b->phase && a.frame == b->frame) return inp;
    uint64_t dr = 0;
    uint32_t taken = 0;
    int got = hl_mixer_last_drain(mx, &dr, &taken);
    cap_mark(d, &a2);
    if (got && a2.phase == a.phase && a2.frame == a.frame) {
        if ((int32_t)(taken - b->pushed) <= 0 && a.phase != HL_MIX_PHASE_DRAINING)
            return inp; /* none: the next drain takes them all */
        /* the first drain that could take them */
        uint64_t first = b->phase == HL_MIX_PHASE_IDLE ? b->frame : b->frame + d->cfg.period;
        if (b->phase != HL_MIX_PHASE_DRAINING && (int32_t)(taken - a.pushed) >= 0 && dr == first) {
            *frame = dr; /* all of them, by the drain of the call from dr */
            return 0;
        }
    }
    d->n.capture_unsure++;
    return inp;
}

/* A request not scheduled whose handler planned from the clock (a
 * snapshot's glide, a music transition's beat, a timeline's entry: what
 * hl_mixer_effect_frame answered) is replayed from the frame the capture
 * records for it: both agree unless the audio thread moved while the
 * handler ran, which no replay can tell (capture_unsure). */
static void now_check(hld_daemon_t *d, uint64_t frame) {
    uint64_t lo = 0, hi = 0;
    if (d->engine.mixer && hl_mixer_now_seen(d->engine.mixer, &lo, &hi) &&
        (lo != frame || hi != frame))
        d->n.capture_unsure++;
}

static int dispatch_op(hld_conn_t *c, const hl_frame_hdr_t *h, const uint8_t *body, size_t len) {
    hld_req_t q = {.c = c, .h = h};
    hl_rbuf_init(&q.r, body, len);
    if (c->d->shutting_down && h->op != HL_OP_HELLO) {
        hld_fail(&q, HELIOD_ESHUTDOWN, NULL);
        return 0;
    }
    if (!c->hello && h->op != HL_OP_HELLO) {
        hld_fail(&q, HELIOD_EHANDSHAKE, NULL);
        return 0;
    }
    if (c->bundle && h->op != HL_OP_BUNDLE_END) return hld_bundle_hold(&q);
    hld_op_fn fn = h->op < HLD_OPS ? g_ops[h->op] : NULL;
    if (!fn) return hld_fail(&q, HELIOD_EBADOP, NULL);
    if ((h->op == HL_OP_SNAPSHOT || h->op == HL_OP_SNAPSHOTS || h->op == HL_OP_CONE ||
         h->op == HL_OP_ATTEN || h->op == HL_OP_CUE_DETAIL || h->op == HL_OP_SNAPSHOT_DETAIL ||
         h->op == HL_OP_SHEET_KEYS) &&
        c->minor < 1)
        return hld_fail(&q, HELIOD_EBADOP, "this request needs protocol 1.1 (HELLO minor 1)");
    if (h->op == HL_OP_DEVICE && !c->control) { /* every client's output: the operator's */
        c->d->n.denied++;
        return hld_fail(&q, HELIOD_EPERM,
                        "switching the output device needs a control client (heliodctl device)");
    }
    hld_daemon_t *d = c->d;
    cap_at_t at;
    int marked = d->capture != NULL; /* two atomic reads a request, for the capture alone */
    if (marked) cap_mark(d, &at);
    d->params.last_v = NULL;
    hld_vm_ring_need_clear(d->vm);
    if (d->engine.mixer) hl_mixer_now_track(d->engine.mixer);
    int rc = (h->flags & HL_FLAG_AT) ? hld_dispatch_at(&q, fn) : fn(&q);
    if (rc == HLD_DISPATCH_WAIT) return rc; /* not taken: dispatched again once there is room */
    int late = (h->flags & HL_FLAG_AT) && q.status == 0 && q.late; /* its frame had passed */
    if (late) d->n.requests_late++;
    if (d->capture && hld_capture_op(h->op)) { /* after its handler: its status is known */
        if (!marked) cap_mark(d, &at);         /* the capture began with this request */
        uint64_t frame = 0;
        uint32_t flags = capture_at(d, &at, &frame);
        if (!(h->flags & HL_FLAG_AT)) /* planned from another "now" than it met */
            now_check(d, frame + (flags & HLD_CAPTURE_REQ_INPERIOD ? d->cfg.period : 0));
        /* applied on the frame it met, not its own: a replay applies it there */
        if ((h->flags & HL_FLAG_AT) && q.status == 0) {
            hl_rbuf_t r;
            hl_rbuf_init(&r, body, len);
            uint64_t want = hl_get_u64(&r);
            if (late || want < frame + (flags & HLD_CAPTURE_REQ_INPERIOD ? d->cfg.period : 0))
                flags |= HLD_CAPTURE_REQ_LATE;
        }
        hld_capture_request(d->capture, frame, flags, c->id, q.status, q.voice, h, body, len);
        if (h->op == HL_OP_HELLO && q.status == 0) /* whose quotas it shares */
            hld_capture_process(d->capture, c->id, c->cl ? c->cl->proc->pid : 0);
        /* a seek starts on the frame the replay applies it on */
        if (h->op == HL_OP_PARAM && !(h->flags & HL_FLAG_AT) && q.status == 0)
            hld_params_retime(&d->params,
                              frame + (flags & HLD_CAPTURE_REQ_INPERIOD ? d->cfg.period : 0));
    }
    return rc;
}

static int dispatch(hld_conn_t *c, const hl_frame_hdr_t *h, const uint8_t *body, size_t len) {
    hld_sched_ctx_t s;
    hld_sched_begin(c, &s);            /* its scheduled commands are its, within its quota */
    c->d->buses.ns_rank = hld_ns_rank; /* bus names: the requester's namespace */
    c->d->buses.ns_ctx = c;
    int rc = dispatch_op(c, h, body, len);
    c->d->buses.ns_rank = NULL;
    c->d->buses.ns_ctx = NULL;
    hld_sched_end(c, &s);
    return rc;
}

int hld_dispatch(hld_conn_t *c, const hl_frame_hdr_t *h, const uint8_t *body, size_t len) {
    int rc = dispatch(c, h, body, len);
    if (rc == HLD_DISPATCH_WAIT) return rc; /* its descriptor stays for the next try */
    if (h->op == HL_OP_LOAD_FD || h->op == HL_OP_STREAM) { /* refused before its handler took it */
        int fd = hld_conn_take_fd(c);
        if (fd >= 0) {
            close(fd);
            c->d->n.fds_closed++;
        }
    }
    return rc;
}

/* conn.c's calls upward */
static void conn_closing(hld_conn_t *c) {
    if (c->d->capture && c->hello) { /* its voices stop, its objects go: a replay closes it too */
        /* recorded once its voices' stops are queued (conn_closed): its
         * frame of effect is theirs */
        cap_at_t at;
        cap_mark(c->d, &at);
        c->d->capture_close.frame = at.frame;
        c->d->capture_close.phase = at.phase;
        c->d->capture_close.pushed = at.pushed;
        c->d->capture_close.client = c->id;
        c->d->capture_close.pending = 1;
    }
    hld_upload_drop(c); /* while its client record is there to give the bytes back to */
    /* its private banks go with their sounds (before conn.c drops those) */
    hld_banks_drop_client(&c->d->banks, c->id);
    hld_time_conn_closed(c);    /* before its voices' stops: nothing held for their starts */
    hld_owners_conn_closing(c); /* while its ledger record is there */
}

/* A connection closed: its voices are orphans, stopped here; then its
 * CLOSE record (conn_closing marked where the audio thread was). */
static void conn_closed(hld_daemon_t *d) {
    hld_events_owner_sweep(d);
    if (!d->capture_close.pending) return;
    d->capture_close.pending = 0;
    if (!d->capture) return;
    cap_at_t at = {.frame = d->capture_close.frame,
                   .phase = d->capture_close.phase,
                   .pushed = d->capture_close.pushed};
    uint64_t frame = 0;
    uint32_t flags = capture_at(d, &at, &frame);
    hld_capture_close(d->capture, frame, flags, d->capture_close.client);
}

/* The command ring's free slots: connections wait for room (conn.h). */
static uint32_t cmd_room(hld_daemon_t *d) {
    return d->engine.mixer ? hl_mixer_cmd_room(d->engine.mixer) : UINT32_MAX;
}

const hld_conn_hooks_t hld_dispatch_hooks = {
    .dispatch = hld_dispatch,
    .upload_timeout = hld_upload_timeout,
    .cmd_room = cmd_room,
    .closing = conn_closing,
    .closed = conn_closed,
};
