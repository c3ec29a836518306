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
 * Streamed sounds: PLAY and SET --seek validate here, then queue the open
 * (file, seek, resampler, prefill) on the decoder pool and return to the
 * loop; stream_done finishes the request when the pool hands the primed
 * stream back (hl_mixer_play or HL_MIX_SET_STREAM, then the reply). Their
 * replies may come after those of later requests; libheliod matches by id.
 * A job holds a reference on its connection: if the client is gone by then
 * the stream is released (a DETACHED play still starts: it would have
 * outlived the connection anyway).
 */
#include "dispatch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "hl_config.h"
#include "hl_dsp.h"
#include "hl_limits.h"
#include "log.h"
#include "stats.h"

#define CLOSE_CONN (-1) /* handler result: reply queued, now close */

static uint8_t g_scratch[HL_MAX_FRAME]; /* main thread only */

typedef struct {
    hld_conn_t *c;
    const hl_frame_hdr_t *h;
    hl_rbuf_t r;
    hl_wbuf_t w; /* reply under construction */
} req_t;

void hld_send_error(hld_conn_t *c, uint16_t op, uint16_t flags, uint32_t id, int status,
                    const char *msg) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, g_scratch, sizeof g_scratch);
    if (!msg) msg = hl_strerror(status);
    if (flags & HL_FLAG_NOREPLY) {
        hl_event_t ev = {.type = HL_EVENT_ERROR, .req_op = op, .status = status};
        snprintf(ev.message, sizeof ev.message, "%s", msg);
        hl_frame_begin(&w, HL_OP_EVENT, 0, id);
        hl_put_event(&w, &ev);
    } else {
        hl_reply_head_t rh = {.req_op = op, .status = status};
        char m[HL_MAX_MSG + 1];
        snprintf(m, sizeof m, "%s", msg);
        hl_frame_begin(&w, HL_OP_REPLY, 0, id);
        hl_put_reply_head(&w, &rh);
        hl_put_str(&w, m, HL_MAX_MSG);
    }
    int n = hl_frame_end(&w);
    if (n > 0) hld_conn_send(c, g_scratch, (size_t)n);
}

static int fail(req_t *q, int status, const char *msg) {
    hld_send_error(q->c, q->h->op, q->h->flags, q->h->id, status, msg);
    return 0;
}

/* Starts a success reply in q->w (body follows). */
static void reply_begin(req_t *q) {
    hl_wbuf_init(&q->w, g_scratch, sizeof g_scratch);
    hl_frame_begin(&q->w, HL_OP_REPLY, 0, q->h->id);
    hl_reply_head_t rh = {.req_op = q->h->op, .status = 0};
    hl_put_reply_head(&q->w, &rh);
}

static int reply_end(req_t *q) {
    int n = hl_frame_end(&q->w);
    if (n < 0) return fail(q, HELIOD_ETOOBIG, "reply too large");
    hld_conn_send(q->c, g_scratch, (size_t)n);
    return 0;
}

/* Success with an empty body (silent with NOREPLY). */
static int reply_ok(req_t *q) {
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    reply_begin(q);
    return reply_end(q);
}

/* 0 if the body was consumed exactly; else the EPROTO reply is queued. */
static int body_ok(req_t *q) {
    if (hl_rbuf_finish(&q->r) == 0) return 1;
    q->c->d->n.protocol_errors++;
    hld_send_error(q->c, q->h->op, q->h->flags, q->h->id, HELIOD_EPROTO, "malformed request body");
    return 0;
}

/* Mixer result -> reply; counts EBUSY. */
static int mixer_fail(req_t *q, int rc) {
    if (rc == HELIOD_EBUSY) q->c->d->n.cmds_busy++;
    return fail(q, rc, NULL);
}

uint32_t hld_ms_to_frames(const hld_daemon_t *d, float ms) {
    if (!(ms > 0)) return 0;
    return (uint32_t)lround((double)ms * d->engine.rate / HLD_MS_PER_S);
}

/* ---- handlers --------------------------------------------------------------- */

static int op_hello(req_t *q) {
    hl_hello_t m;
    hl_get_hello(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    hld_conn_t *c = q->c;
    if (c->hello) return fail(q, HELIOD_EINVAL, "handshake already done");
    if (m.version != HL_PROTO_VERSION) {
        char msg[HL_MAX_MSG + 1];
        snprintf(msg, sizeof msg, "protocol version %u is not supported (server speaks %d)",
                 m.version, HL_PROTO_VERSION);
        hld_send_error(c, q->h->op, q->h->flags & ~HL_FLAG_NOREPLY, q->h->id, HELIOD_EVERSION, msg);
        return CLOSE_CONN;
    }
    c->hello = 1;
    if (m.client_name[0]) snprintf(c->name, sizeof c->name, "%s", m.client_name);
    hld_debug("client %u is %s", c->id, c->name);
    hl_hello_reply_t hr = {
        .version = HL_PROTO_VERSION,
        .rate = c->d->engine.rate,
        .period = c->d->engine.period,
        .voices = c->d->cfg.voices,
        .client_id = c->id,
    };
    snprintf(hr.server_version, sizeof hr.server_version, "%s", HELIOD_VERSION);
    reply_begin(q);
    hl_put_hello_reply(&q->w, &hr);
    return reply_end(q);
}

static int op_ping(req_t *q) {
    if (!body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    reply_begin(q);
    hl_put_u64(&q->w, hld_now_ns());
    return reply_end(q);
}

typedef struct {
    hld_conn_t *c;
    uint32_t id;
    uint16_t flags;
} load_ctx_t;

static void load_done(void *user, int status, const char *msg, const hld_sound_t *snd) {
    load_ctx_t *lc = user;
    hld_conn_t *c = lc->c;
    if (!c->closing) {
        if (status < 0) {
            hld_send_error(c, HL_OP_LOAD, lc->flags, lc->id, status, msg);
        } else if (!(lc->flags & HL_FLAG_NOREPLY)) {
            hl_frame_hdr_t h = {.op = HL_OP_LOAD, .flags = lc->flags, .id = lc->id};
            req_t q = {.c = c, .h = &h};
            hl_sound_info_t si;
            hld_sound_info(snd, &si);
            reply_begin(&q);
            hl_put_sound_info(&q.w, &si);
            reply_end(&q);
        }
        hld_conn_flush(c);
    }
    hld_conn_unref(c);
    free(lc);
}

static int op_load(req_t *q) {
    hl_load_t m;
    hl_get_load(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    load_ctx_t *lc = malloc(sizeof *lc);
    if (!lc) return fail(q, HELIOD_ENOMEM, NULL);
    *lc = (load_ctx_t){.c = q->c, .id = q->h->id, .flags = q->h->flags};
    const char *msg = NULL;
    int rc = hld_sounds_load(&q->c->d->sounds, m.name, m.path, m.flags, load_done, lc, &msg);
    if (rc < 0) {
        free(lc);
        q->c->d->sounds.loads_failed++;
        return fail(q, rc, msg);
    }
    hld_conn_ref(q->c);
    return 0;
}

static int op_unload(req_t *q) {
    hl_name_t m;
    hl_get_name(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    int rc = hld_sounds_unload(&q->c->d->sounds, m.name);
    if (rc == HELIOD_EINUSE) {
        hld_sound_t *s = hld_sounds_find(&q->c->d->sounds, m.name);
        char msg[HL_MAX_MSG + 1];
        if (s && s->loading)
            snprintf(msg, sizeof msg, "sound %s is still loading", m.name);
        else
            snprintf(msg, sizeof msg, "sound %s is used by %u playing or starting voice(s)", m.name,
                     s ? s->playing + s->pending : 0);
        return fail(q, rc, msg);
    }
    if (rc < 0) return fail(q, rc, NULL);
    return reply_ok(q);
}

/* List replies: the head is rewritten with the final count; an entry that
 * does not fit in the frame is rolled back and sets 'truncated'. */
typedef struct {
    req_t *q;
    size_t head_off;
    hl_list_head_t head;
} list_t;

static void list_begin(list_t *l, req_t *q) {
    l->q = q;
    reply_begin(q);
    l->head_off = q->w.len;
    l->head = (hl_list_head_t){0, 0};
    hl_put_list_head(&q->w, &l->head);
}

/* Call after putting an entry; returns 0 to continue, 1 when full. */
static int list_entry_done(list_t *l, size_t before) {
    hl_wbuf_t *w = &l->q->w;
    /* keep room for the frame to close */
    if (w->err || l->head.count >= HL_MAX_LIST) {
        w->len = before;
        w->err = 0;
        l->head.truncated = 1;
        return 1;
    }
    l->head.count++;
    return 0;
}

static int list_end(list_t *l) {
    hl_wbuf_t *w = &l->q->w;
    size_t end = w->len;
    w->len = l->head_off;
    hl_put_list_head(w, &l->head);
    w->len = end;
    return reply_end(l->q);
}

static int sounds_entry(void *user, const hld_sound_t *snd) {
    list_t *l = user;
    hl_sound_info_t si;
    hld_sound_info(snd, &si);
    size_t before = l->q->w.len;
    hl_put_sound_info(&l->q->w, &si);
    return list_entry_done(l, before);
}

static int op_sounds(req_t *q) {
    if (!body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    list_t l;
    list_begin(&l, q);
    hld_sounds_foreach(&q->c->d->sounds, sounds_entry, &l);
    return list_end(&l);
}

/* Source frames -> engine frames of a preloaded sound (rounded). */
static uint32_t src_to_engine(const hld_sound_t *snd, uint32_t rate, uint64_t f) {
    if (snd->source_rate == rate || !snd->source_rate) return (uint32_t)f;
    uint64_t e = (f * rate + snd->source_rate / 2) / snd->source_rate;
    return e > snd->pcm.frames ? snd->pcm.frames : (uint32_t)e;
}

/* Checks the loop region against the sound; 0 or EINVAL reply queued. */
static int check_loop(req_t *q, const hl_play_t *m, const hld_sound_t *snd) {
    if (m->loop_end > snd->src_frames)
        return fail(q, HELIOD_EINVAL, "loop_end: past the end of the sound (source frames)"), -1;
    return 0;
}

/* A streamed sound's loop crossfade in source frames (rounded). */
static uint32_t xfade_src_frames(const hld_sound_t *snd, float ms) {
    if (!(ms > 0)) return 0;
    return (uint32_t)lround((double)ms * snd->source_rate / HLD_MS_PER_S);
}

/* ---- streamed plays and seeks: opened on the decoder pool ------------------ */

typedef struct hld_stream_job {
    struct hld_stream_job *prev, *next; /* d->stream_jobs */
    hld_daemon_t *d;
    hld_conn_t *c; /* referenced until the job is done */
    uint32_t id;
    uint16_t op, flags;
    hld_sound_t *snd; /* its `pending` counts this job */
    int seek;         /* 0: PLAY with p, 1: SET seek of voice */
    int superseded;   /* seek: a later seek of the voice was queued: drop, answer OK */
    int cancelled;    /* seek: the request already failed and was answered */
    uint64_t voice;
    hl_voice_params_t p;
} stream_job_t;

static void job_unlink(stream_job_t *j) {
    hld_daemon_t *d = j->d;
    if (j->prev)
        j->prev->next = j->next;
    else
        d->stream_jobs = j->next;
    if (j->next) j->next->prev = j->prev;
    j->prev = j->next = NULL;
}

/* The decoder pool finished opening a job's stream (main thread). */
static void stream_done(void *user, hld_dstream_t *ds, int status, const char *msg) {
    stream_job_t *j = user;
    hld_daemon_t *d = j->d;
    hld_conn_t *c = j->c;
    hl_frame_hdr_t h = {.op = j->op, .flags = j->flags, .id = j->id};
    req_t q = {.c = c, .h = &h};
    int gone = c->closing;
    job_unlink(j);
    if (j->snd->pending) j->snd->pending--;
    if (status == 0 && d->shutting_down) {
        status = HELIOD_ESHUTDOWN;
        msg = NULL;
    }
    if (status < 0 || j->cancelled || j->superseded || (gone && !j->seek && j->p.tag)) {
        if (gone || j->cancelled) {
            /* nobody to answer */
        } else if (status < 0) {
            hld_send_error(c, j->op, j->flags, j->id, status, msg); /* msg lives in ds */
        } else {
            reply_ok(&q); /* superseded: the later seek decides where it plays */
        }
        hld_dstream_release(&d->decoder, ds);
    } else if (j->seek) {
        hl_voice_set_t s = {.mask = HL_MIX_SET_STREAM, .stream = &ds->stream};
        int rc = hl_mixer_set(d->engine.mixer, j->voice, &s, hld_now_ns());
        if (rc < 0) {
            hld_dstream_release(&d->decoder, ds);
            if (!gone) mixer_fail(&q, rc);
        } else if (!gone) {
            reply_ok(&q);
        }
    } else {
        j->p.stream = &ds->stream;
        uint64_t voice = 0, stolen = 0;
        int rc = hl_mixer_play(d->engine.mixer, &j->p, hld_now_ns(), &voice, &stolen);
        if (rc == HELIOD_ENOVOICES) d->n.voices_refused++;
        if (rc < 0) {
            hld_dstream_release(&d->decoder, ds); /* the mixer did not take it */
            if (!gone) mixer_fail(&q, rc);
        } else {
            j->snd->playing++;
            if (stolen) d->n.voices_stolen++;
            if (!gone && !(j->flags & HL_FLAG_NOREPLY)) {
                hl_play_reply_t pr = {.voice = voice, .stolen = stolen};
                reply_begin(&q);
                hl_put_play_reply(&q.w, &pr);
                reply_end(&q);
            }
        }
    }
    if (!gone) hld_conn_flush(c);
    hld_conn_unref(c);
    free(j);
}

/* Queues the open of snd's stream for request q. Returns the job (in flight,
 * its answer will come from stream_done) or NULL after replying the error. */
static stream_job_t *stream_job_start(req_t *q, hld_sound_t *snd, const hld_stream_opts_t *o) {
    hld_daemon_t *d = q->c->d;
    stream_job_t *j = calloc(1, sizeof *j);
    if (!j) return fail(q, HELIOD_ENOMEM, NULL), NULL;
    *j = (stream_job_t){
        .d = d, .c = q->c, .id = q->h->id, .op = q->h->op, .flags = q->h->flags, .snd = snd};
    const char *msg = NULL;
    int rc = hld_dstream_open_async(&d->decoder, snd, snd->path, o, stream_done, j, &msg);
    if (rc < 0) {
        free(j);
        return fail(q, rc, msg), NULL;
    }
    hld_conn_ref(q->c);
    snd->pending++;
    j->next = d->stream_jobs;
    if (d->stream_jobs) d->stream_jobs->prev = j;
    d->stream_jobs = j;
    return j;
}

static int op_play(req_t *q) {
    hl_play_t m;
    hl_get_play(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    hld_daemon_t *d = q->c->d;
    const char *why = NULL;
    if (hl_validate_play(&m, &why) != 0) return fail(q, HELIOD_EINVAL, why);
    hld_sound_t *snd = hld_sounds_find(&d->sounds, m.sound);
    if (!snd || snd->loading) {
        char msg[HL_MAX_MSG + 1];
        snprintf(msg, sizeof msg, "no sound named %s%s", m.sound, snd ? " is loaded yet" : "");
        return fail(q, HELIOD_ENOSOUND, msg);
    }
    int bus = hl_bus_find(m.bus);
    if (bus < 0) return fail(q, HELIOD_ENOBUS, NULL);
    if (check_loop(q, &m, snd) != 0) return 0;
    int loop = (m.flags & HL_PLAY_LOOP) != 0;
    hl_voice_params_t p = {
        .pcm = snd->stream ? NULL : &snd->pcm,
        .flags = m.flags & (HL_MIX_LOOP | HL_MIX_3D | HL_MIX_PAUSED | HL_MIX_CUBIC),
        .gain = hl_db_to_lin(m.gain_db),
        .pan = m.pan,
        .pos = {m.pos[0], m.pos[1], m.pos[2]},
        .pitch = m.pitch,
        .priority = m.priority,
        .attack_frames =
            hld_ms_to_frames(d, m.fade_in_ms < 0 ? HL_DEFAULT_FADE_IN_MS : m.fade_in_ms),
        .min_distance = m.min_distance,
        .max_distance = m.max_distance,
        .rolloff = m.rolloff,
        .model = m.model,
        .bus = (uint32_t)bus,
        .tag = (m.flags & HL_PLAY_DETACHED) ? 0 : q->c->id,
    };
    if (snd->stream) {
        /* the decoder loops a stream: the mixer sees one endless (or finite) source */
        p.flags &= ~HL_MIX_LOOP;
        hld_stream_opts_t o = {
            .loop_start = m.loop_start,
            .loop_end = m.loop_end,
            .loops = !loop          ? 0
                     : m.loop_count ? (int64_t)m.loop_count
                                    : -1,
            .xfade = loop ? xfade_src_frames(snd, m.loop_xfade_ms) : 0,
        };
        uint64_t region = (m.loop_end ? m.loop_end : snd->src_frames) - m.loop_start;
        if (loop && (m.loop_start || m.loop_end) && m.loop_end <= m.loop_start)
            return fail(q, HELIOD_EINVAL, "loop region is empty");
        if (o.xfade > m.loop_start || o.xfade > region)
            return fail(q, HELIOD_EINVAL,
                        "loop_xfade_ms: longer than the audio before loop_start or the region");
        stream_job_t *j = stream_job_start(q, snd, &o);
        if (j) j->p = p; /* answered by stream_done */
        return 0;
    }
    if (loop) {
        p.loop_start = src_to_engine(snd, d->engine.rate, m.loop_start);
        p.loop_end = src_to_engine(snd, d->engine.rate, m.loop_end);
        if ((m.loop_start || m.loop_end) && p.loop_end <= p.loop_start)
            return fail(q, HELIOD_EINVAL, "loop region shorter than one engine frame");
        p.loop_count = m.loop_count;
        p.loop_xfade = hld_ms_to_frames(d, m.loop_xfade_ms);
        uint32_t region = (p.loop_end ? p.loop_end : snd->pcm.frames) - p.loop_start;
        if (p.loop_xfade > p.loop_start || p.loop_xfade > region)
            return fail(q, HELIOD_EINVAL,
                        "loop_xfade_ms: longer than the audio before loop_start or the region");
    }
    uint64_t voice = 0, stolen = 0;
    int rc = hl_mixer_play(d->engine.mixer, &p, hld_now_ns(), &voice, &stolen);
    if (rc == HELIOD_ENOVOICES) d->n.voices_refused++;
    if (rc < 0) return mixer_fail(q, rc);
    snd->playing++;
    if (stolen) d->n.voices_stolen++;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hl_play_reply_t pr = {.voice = voice, .stolen = stolen};
    reply_begin(q);
    hl_put_play_reply(&q->w, &pr);
    return reply_end(q);
}

static int op_stop(req_t *q) {
    hl_stop_t m;
    hl_get_stop(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    if (!hl_fade_valid(m.fade_ms)) /* a handle of 0 is left to the mixer: ENOVOICE */
        return fail(q, HELIOD_EINVAL, "fade_ms: must be -1 (default) or in [0, 60000]");
    hld_daemon_t *d = q->c->d;
    float ms = m.fade_ms < 0 ? HL_DEFAULT_STOP_MS : m.fade_ms;
    int rc = hl_mixer_stop(d->engine.mixer, m.voice, hld_ms_to_frames(d, ms), HL_MIX_END_STOPPED,
                           hld_now_ns());
    if (rc < 0) return mixer_fail(q, rc);
    return reply_ok(q);
}

/* Answers a request whose reply is a COUNT (STOP_ALL, PAUSE). */
static int reply_count(req_t *q, uint32_t count) {
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hl_count_reply_t cr = {.count = count};
    reply_begin(q);
    hl_put_count_reply(&q->w, &cr);
    return reply_end(q);
}

static int op_stop_all(req_t *q) {
    hl_stop_all_t m;
    hl_get_stop_all(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_stop_all(&m, &why) != 0) return fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    float ms = m.fade_ms < 0 ? HL_DEFAULT_STOP_MS : m.fade_ms;
    uint32_t frames = hld_ms_to_frames(d, ms), count = 0;
    uint32_t slots = hl_mixer_slots(d->engine.mixer);
    uint64_t now = hld_now_ns();
    for (uint32_t i = 0; i < slots; i++) {
        hl_voice_view_t v;
        if (hl_mixer_slot_view(d->engine.mixer, i, &v) != 0) continue;
        if (v.state != HL_MIX_STATE_PLAYING && v.state != HL_MIX_STATE_PAUSED) continue;
        if (m.scope == HL_STOP_ALL_MINE && v.params.tag != q->c->id) continue;
        int rc = hl_mixer_stop(d->engine.mixer, v.voice, frames, HL_MIX_END_STOPPED, now);
        if (rc == HELIOD_EBUSY) return mixer_fail(q, rc);
        if (rc == 0) count++;
    }
    return reply_count(q, count);
}

/* The sound a voice plays (its pcm or its stream's), or NULL. */
static hld_sound_t *voice_sound(const hl_voice_params_t *p) {
    if (p->stream) return hld_dstream_from(p->stream)->snd;
    if (p->pcm) return hld_sound_from_pcm(p->pcm);
    return NULL;
}

/* SET --seek: pcm voices jump inside their PCM (s gets the seek; 0 is
 * returned and the caller applies s). A stream voice gets a new stream
 * opened at the position on the decoder pool, which the mixer switches to
 * click-free once it is primed: the other fields of s are applied now, the
 * answer comes from stream_done (returns 1). Returns -1 after replying an
 * error. */
static int seek_voice(req_t *q, uint64_t voice, double seek_s, hl_voice_set_t *s) {
    hld_daemon_t *d = q->c->d;
    hl_voice_view_t v;
    if (hl_mixer_voice(d->engine.mixer, voice, &v) != 0) return fail(q, HELIOD_ENOVOICE, NULL), -1;
    hld_sound_t *snd = voice_sound(&v.params);
    if (!snd) return fail(q, HELIOD_ENOVOICE, NULL), -1;
    if (!snd->stream) {
        double f = seek_s * d->engine.rate;
        if (f >= snd->pcm.frames)
            return fail(q, HELIOD_EINVAL, "seek_s: past the end of the sound"), -1;
        s->mask |= HL_MIX_SET_SEEK;
        s->seek_frame = (uint32_t)f;
        return 0;
    }
    double f = seek_s * snd->source_rate;
    if (f >= (double)snd->src_frames)
        return fail(q, HELIOD_EINVAL, "seek_s: past the end of the sound"), -1;
    hld_dstream_t *old = hld_dstream_from(v.params.stream);
    hld_stream_opts_t o = {
        .start = (uint64_t)f,
        .loop_start = old->loop_start,
        .loop_end = old->loop_end == old->src_frames ? 0 : old->loop_end,
        .loops = hld_dstream_loops_left(old), /* the passes it has left, not a restart */
        .xfade = old->xfade,
    };
    /* an earlier seek of this voice still opening loses: this one decides */
    for (stream_job_t *j = d->stream_jobs; j; j = j->next)
        if (j->seek && j->voice == voice) j->superseded = 1;
    stream_job_t *j = stream_job_start(q, snd, &o);
    if (!j) return -1;
    j->seek = 1;
    j->voice = voice;
    if (s->mask) { /* gain, pan ... now, in request order with later SETs */
        int rc = hl_mixer_set(d->engine.mixer, voice, s, hld_now_ns());
        if (rc < 0) {
            j->cancelled = 1; /* answered here; its stream is dropped when it is primed */
            return mixer_fail(q, rc), -1;
        }
    }
    return 1;
}

static int op_set(req_t *q) {
    hl_set_t m;
    hl_get_set(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_set(&m, &why) != 0) return fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    hl_voice_set_t s = {
        .mask = m.mask & (HL_MIX_SET_GAIN | HL_MIX_SET_PAN | HL_MIX_SET_POS | HL_MIX_SET_PITCH |
                          HL_MIX_SET_PAUSE | HL_MIX_SET_RESUME),
        .gain = hl_db_to_lin(m.gain_db),
        .pan = m.pan,
        .pos = {m.pos[0], m.pos[1], m.pos[2]},
        .pitch = m.pitch,
        .ramp_frames = hld_ms_to_frames(d, m.ramp_ms),
    };
    if (m.mask & HL_SET_SEEK) {
        int rc = seek_voice(q, m.voice, m.seek_s, &s);
        if (rc != 0) return 0; /* answered, or stream_done will */
    }
    int rc = hl_mixer_set(d->engine.mixer, m.voice, &s, hld_now_ns());
    if (rc < 0) return mixer_fail(q, rc);
    return reply_ok(q);
}

static int op_pause(req_t *q) {
    hl_pause_t m;
    hl_get_pause(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_pause(&m, &why) != 0) return fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    hl_voice_set_t s = {.mask = m.pause ? HL_MIX_SET_PAUSE : HL_MIX_SET_RESUME};
    uint32_t want = m.pause ? HL_MIX_STATE_PLAYING : HL_MIX_STATE_PAUSED, count = 0;
    uint32_t slots = hl_mixer_slots(d->engine.mixer);
    uint64_t now = hld_now_ns();
    for (uint32_t i = 0; i < slots; i++) {
        hl_voice_view_t v;
        if (hl_mixer_slot_view(d->engine.mixer, i, &v) != 0 || v.state != want) continue;
        if (m.scope == HL_PAUSE_MINE && v.params.tag != q->c->id) continue;
        int rc = hl_mixer_set(d->engine.mixer, v.voice, &s, now);
        if (rc == HELIOD_EBUSY) return mixer_fail(q, rc);
        if (rc == 0) count++;
    }
    return reply_count(q, count);
}

static int op_listener(req_t *q) {
    hl_listener_t m;
    hl_get_listener(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_listener(&m, &why) != 0) return fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    hl_listener_state_t l;
    hl_mixer_get_listener(d->engine.mixer, &l);
    if (m.mask & HL_LIS_POS) memcpy(l.pos, m.pos, sizeof l.pos);
    if (m.mask & HL_LIS_FWD) memcpy(l.fwd, m.fwd, sizeof l.fwd);
    if (m.mask & HL_LIS_UP) memcpy(l.up, m.up, sizeof l.up);
    if (m.mask & HL_LIS_VEL) memcpy(l.vel, m.vel, sizeof l.vel);
    int rc = hl_mixer_set_listener(d->engine.mixer, &l, hld_now_ns());
    if (rc < 0) return mixer_fail(q, rc);
    return reply_ok(q);
}

static uint8_t voice_state(uint32_t s) {
    switch (s) {
    case HL_MIX_STATE_STOPPING: return HL_VOICE_STOPPING;
    case HL_MIX_STATE_PAUSED: return HL_VOICE_PAUSED;
    default: return HL_VOICE_PLAYING;
    }
}

static int op_voices(req_t *q) {
    if (!body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hl_mixer_t *mx = q->c->d->engine.mixer;
    list_t l;
    list_begin(&l, q);
    uint32_t slots = hl_mixer_slots(mx);
    for (uint32_t i = 0; i < slots; i++) {
        hl_voice_view_t v;
        if (hl_mixer_slot_view(mx, i, &v) != 0 || v.state == HL_MIX_STATE_FREE) continue;
        const hl_voice_params_t *p = &v.params;
        hl_voice_info_t vi = {
            .voice = v.voice,
            .owner = (uint32_t)p->tag,
            .priority = p->priority,
            .flags = (p->flags & HL_PLAY_MASK) | (p->tag ? 0 : HL_PLAY_DETACHED),
            .state = voice_state(v.state),
            .gain_db = hl_lin_to_db(p->gain),
            .pan = p->pan,
            .pos = {p->pos[0], p->pos[1], p->pos[2]},
            .pitch = p->pitch,
        };
        /* the decoder, not the mixer, loops a stream: ask it */
        if (p->stream && hld_dstream_loops_left(hld_dstream_from(p->stream)) != 0)
            vi.flags |= HL_PLAY_LOOP;
        const hld_sound_t *snd = voice_sound(p);
        if (snd) snprintf(vi.sound, sizeof vi.sound, "%s", snd->name);
        const char *bn = hl_bus_name(p->bus);
        snprintf(vi.bus, sizeof vi.bus, "%s", bn ? bn : "");
        size_t before = q->w.len;
        hl_put_voice_info(&q->w, &vi);
        if (list_entry_done(&l, before)) break;
    }
    return list_end(&l);
}

static int op_devices(req_t *q) {
    if (!body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    static hl_device_info_t devs[HL_MAX_LIST];
    size_t total = 0;
    int n = hld_pa_list_devices(devs, HL_MAX_LIST, &total, q->c->d->engine.backend.device_index);
    if (n < 0) n = 0; /* no PortAudio: an empty list, not an error */
    list_t l;
    list_begin(&l, q);
    for (int i = 0; i < n; i++) {
        size_t before = q->w.len;
        hl_put_device_info(&q->w, &devs[i]);
        if (list_entry_done(&l, before)) break;
    }
    if (total > (size_t)n) l.head.truncated = 1;
    return list_end(&l);
}

static int op_stats(req_t *q) {
    hl_stats_req_t m = {0};
    if (q->r.len) hl_get_stats_req(&q->r, &m); /* an empty body means no flags */
    if (!body_ok(q)) return CLOSE_CONN;
    if (m.flags & ~(uint32_t)HL_STATS_RESET) return fail(q, HELIOD_EINVAL, "unknown stats flags");
    hld_daemon_t *d = q->c->d;
    if (!(q->h->flags & HL_FLAG_NOREPLY)) {
        static hl_stat_t st[HLD_MAX_STATS];
        size_t n = hld_stats_collect(d, st, HLD_MAX_STATS);
        list_t l;
        list_begin(&l, q);
        for (size_t i = 0; i < n; i++) {
            size_t before = q->w.len;
            hl_put_stat(&q->w, &st[i]);
            if (list_entry_done(&l, before)) break;
        }
        list_end(&l);
    }
    if (m.flags & HL_STATS_RESET) hld_engine_reset_stats(&d->engine);
    return 0;
}

static int op_subscribe(req_t *q) {
    hl_subscribe_t m;
    hl_get_subscribe(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    if (m.mask & ~(uint32_t)HL_SUB_MASK) return fail(q, HELIOD_EINVAL, "unknown event bits");
    q->c->sub = m.mask;
    return reply_ok(q);
}

static int op_bus(req_t *q) {
    hl_bus_t m;
    hl_get_bus(&q->r, &m);
    if (!body_ok(q)) return CLOSE_CONN;
    hld_daemon_t *d = q->c->d;
    int bus = strcmp(m.name, "master") == 0 ? -1 : hl_bus_find(m.name);
    if (bus < 0 && strcmp(m.name, "master") != 0) return fail(q, HELIOD_ENOBUS, NULL);
    const char *why = NULL;
    if (hl_validate_bus(&m, &why) != 0) return fail(q, HELIOD_EINVAL, why);
    if (m.mask & HL_BUS_GAIN) {
        int rc = hl_mixer_set_bus_gain(d->engine.mixer, bus, hl_db_to_lin(m.gain_db),
                                       hld_ms_to_frames(d, m.ramp_ms), hld_now_ns());
        if (rc < 0) return mixer_fail(q, rc);
    }
    return reply_ok(q);
}

int hld_dispatch(hld_conn_t *c, const hl_frame_hdr_t *h, const uint8_t *body, size_t len) {
    req_t q = {.c = c, .h = h};
    hl_rbuf_init(&q.r, body, len);
    if (c->d->shutting_down && h->op != HL_OP_HELLO) {
        fail(&q, HELIOD_ESHUTDOWN, NULL);
        return 0;
    }
    if (!c->hello && h->op != HL_OP_HELLO) {
        fail(&q, HELIOD_EHANDSHAKE, NULL);
        return 0;
    }
    switch (h->op) {
    case HL_OP_HELLO: return op_hello(&q);
    case HL_OP_PING: return op_ping(&q);
    case HL_OP_LOAD: return op_load(&q);
    case HL_OP_UNLOAD: return op_unload(&q);
    case HL_OP_SOUNDS: return op_sounds(&q);
    case HL_OP_PLAY: return op_play(&q);
    case HL_OP_STOP: return op_stop(&q);
    case HL_OP_STOP_ALL: return op_stop_all(&q);
    case HL_OP_SET: return op_set(&q);
    case HL_OP_LISTENER: return op_listener(&q);
    case HL_OP_VOICES: return op_voices(&q);
    case HL_OP_DEVICES: return op_devices(&q);
    case HL_OP_STATS: return op_stats(&q);
    case HL_OP_SUBSCRIBE: return op_subscribe(&q);
    case HL_OP_BUS: return op_bus(&q);
    case HL_OP_PAUSE: return op_pause(&q);
    default: return fail(&q, HELIOD_EBADOP, NULL);
    }
}
