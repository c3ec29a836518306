/*
 * al_source.c - heliod's OpenAL library: sources.
 *
 * A source is a local record: alGenSources costs no message. alSourcePlay
 * starts one daemon voice per queued buffer (a static source has a queue of
 * one) and the voices end when the source stops, pauses or runs out: a
 * voice exists only while its source plays. The state and the offsets are
 * computed here from the engine clock (heliod_clock, extrapolated with
 * CLOCK_MONOTONIC) and the frame each voice started on, and corrected by
 * the daemon's STARTED and ENDED events, which the event thread dispatches:
 * alGetSourcei(AL_SOURCE_STATE) never waits for the socket.
 *
 * Buffer queues (the seam for client-fed streams): each queued buffer is its
 * own daemon voice, scheduled (heliod_at_frame) on the engine frame where
 * the previous one ends, so consecutive buffers join sample-exactly at
 * pitch 1. A buffer queued after the queue ran dry finds the source
 * stopped, as OpenAL says.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <AL/alext.h>

#include "al_int.h"

#define ENTER(ret)                                                                                 \
    alh_lock();                                                                                    \
    ALCcontext *c = alh_ctx();                                                                     \
    if (!c) {                                                                                      \
        alh_unlock();                                                                              \
        return ret;                                                                                \
    }
#define LEAVE(ret)                                                                                 \
    do {                                                                                           \
        alh_unlock();                                                                              \
        return ret;                                                                                \
    } while (0)

alh_source_t *alh_source_get(ALCcontext *c, ALuint id) {
    if (id == 0 || id > ALH_MAX_SOURCES || !g_al.src) return NULL;
    alh_source_t *s = &g_al.src[id - 1];
    return s->used && s->ctx == c ? s : NULL;
}

/* Room for n entries in s's queue. 0 or -1 (out of memory). */
static int queue_room(alh_source_t *s, int n) {
    if (n <= s->qcap) return 0;
    if (n > ALH_QMAX) return -1;
    int cap = s->qcap ? s->qcap : 4;
    while (cap < n)
        cap *= 2;
    alh_qent_t *q = realloc(s->q, (size_t)cap * sizeof *q);
    if (!q) return -1;
    s->q = q;
    s->qcap = cap;
    return 0;
}

static void source_defaults(alh_source_t *s) {
    s->gain = 1.0f, s->min_gain = 0.0f, s->max_gain = 1.0f, s->pitch = 1.0f;
    memset(s->pos, 0, sizeof s->pos);
    memset(s->vel, 0, sizeof s->vel);
    memset(s->dir, 0, sizeof s->dir);
    s->cone_in = 360.0f, s->cone_out = 360.0f, s->cone_out_gain = 0.0f;
    s->ref_dist = 1.0f, s->max_dist = FLT_MAX, s->rolloff = 1.0f;
    s->relative = 0, s->looping = 0;
    s->type = AL_UNDETERMINED;
    s->state = AL_INITIAL;
    s->qn = 0;
    s->pending_off = -1.0;
    s->paused_off = 0.0;
    s->sent_valid = 0;
}

static alh_buffer_t *qbuf(const alh_source_t *s, int i) {
    return alh_buffer_get(s->q[i].buf);
}
static int source_channels(const alh_source_t *s) {
    for (int i = 0; i < s->qn; i++) {
        const alh_buffer_t *b = qbuf(s, i);
        if (b && b->channels) return b->channels;
    }
    return 1;
}

/* Source frames per engine frame of entry i at pitch. */
static double entry_ratio(const alh_source_t *s, int i, float pitch) {
    const alh_buffer_t *b = qbuf(s, i);
    if (!b || !b->eng_frames) return pitch;
    return (double)pitch * (double)b->frames / (double)b->eng_frames;
}

static float db_of(float lin) {
    return lin > 1e-15f ? 20.0f * log10f(lin) : -300.0f;
}
static float clamp_pitch(float p) {
    return p < 0.25f ? 0.25f : p > 4.0f ? 4.0f : p;
}

/* ---- voices ---- */

static void stop_voices(alh_source_t *s) {
    ALCdevice *d = s->ctx->dev;
    if (s->st) { /* its voice stops with a short fade */
        heliod_stream_close(s->st);
        s->st = NULL;
    }
    for (int i = 0; i < s->qn; i++) {
        alh_qent_t *e = &s->q[i];
        if (e->voice && !e->ended && d->h) {
            alh_req(d);
            alh_conn_check(d, heliod_stop_async(d->h, e->voice, 0.0f));
        }
        e->voice = 0;
        e->serial = 0; /* a reply still in flight stops its voice */
        e->started = 0;
        e->ended = 0;
    }
    alh_flush(d);
}

static void on_play_reply(void *user, const heliod_reply_t *r);

/* The voice of entry i from `off` source frames into its buffer, at engine
 * frame `at` (0 = now). Returns 0 or -1 (nothing to play or a failure). */
/* ALC_SOFT_HRTF on: the voice is a daemon 3D voice 1 m away in the source's
 * direction (the library's gain carries distance and cone: at the daemon's
 * default inverse model with min distance 1 its own distance gain is 1),
 * with the daemon's listener where it is by default (at the origin,
 * facing -z), which is what the binaural renderer turns into two ears. */
static void hrtf_params(heliod_play_params_t *p, const alh_voice_mix_t *m) {
    if (!m->hrtf) return;
    p->flags |= HELIOD_PLAY_3D;
    p->pan = 0.0f;
    for (int a = 0; a < 3; a++)
        p->pos[a] = m->dir[a];
    p->min_distance = 1.0f;
    p->max_distance = 100.0f;
    p->rolloff = 1.0f;
    p->distance_model = HELIOD_DIST_INVERSE;
}

static int start_entry(alh_source_t *s, int i, double off, uint64_t at, const alh_voice_mix_t *m) {
    ALCdevice *d = s->ctx->dev;
    alh_qent_t *e = &s->q[i];
    alh_buffer_t *b = qbuf(s, i);
    e->started = 1;
    e->ended = 0;
    e->voice = 0;
    if (!b || !b->frames) {
        e->ended = 1;
        e->len = 0;
        return -1;
    }
    if (!b->uploaded && alh_buffer_upload(b) < 0) {
        e->ended = 1;
        e->len = 0;
        return -1;
    }
    const float pitch = clamp_pitch(m->pitch);
    const double eng_off = off * (double)b->eng_frames / (double)b->frames;
    e->len = (uint64_t)(((double)b->eng_frames - eng_off) / pitch + 0.5);
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = s->looping && s->type != AL_STREAMING ? HELIOD_PLAY_LOOP : 0;
    if (d->pan_law && b->channels == 1 && !m->hrtf) p.flags |= HELIOD_PLAY_PAN_OPENAL;
    hrtf_params(&p, m);
    if (off > 0 || d->paused) p.flags |= HELIOD_PLAY_PAUSED; /* resumed by the seek or the device */
    p.gain_db = db_of(m->gain);
    p.pan = m->pan;
    p.pitch = pitch;
    p.fade_in_ms = 0.0f; /* OpenAL starts on the first sample */
    e->serial = ++g_al.serial ? g_al.serial : ++g_al.serial;
    e->start = at;
    const uintptr_t key = ((uintptr_t)s->id << 32) | e->serial;
    alh_req(d);
    if (at) heliod_at_frame(d->h, at);
    int rc = heliod_play_async(d->h, b->sound, &p, on_play_reply, (void *)key);
    if (at) heliod_at_frame(d->h, 0);
    if (rc < 0) {
        alh_conn_check(d, rc);
        e->ended = 1;
        e->serial = 0;
        return -1;
    }
    e->off0 = off; /* the seek is sent from the reply, when the voice is known */
    e->start = at ? at : alh_now_frame(d);
    return 0;
}

static void on_play_reply(void *user, const heliod_reply_t *r) {
    const uintptr_t key = (uintptr_t)user;
    const ALuint id = (ALuint)(key >> 32);
    const uint32_t serial = (uint32_t)(key & 0xffffffffu);
    alh_source_t *s = id && id <= ALH_MAX_SOURCES ? &g_al.src[id - 1] : NULL;
    alh_qent_t *e = NULL;
    if (s && s->used && serial)
        for (int i = 0; i < s->qn; i++)
            if (s->q[i].serial == serial) e = &s->q[i];
    if (r->status < 0) {
        if (e) e->ended = 1;
        return;
    }
    if (!e) { /* stopped meanwhile */
        for (size_t i = 0; i < 4; i++)
            if (g_al.devs[i].used && g_al.devs[i].h && r->voice)
                heliod_stop_async(g_al.devs[i].h, r->voice, 0.0f);
        return;
    }
    e->voice = r->voice;
    ALCdevice *d = s->ctx->dev;
    if (e->off0 > 0 && d->h) {
        const alh_buffer_t *b = alh_buffer_get(e->buf);
        heliod_voice_set_t vs;
        memset(&vs, 0, sizeof vs);
        vs.mask = HELIOD_SET_SEEK | (d->paused ? 0u : HELIOD_SET_RESUME);
        vs.seek_s = b && b->freq ? e->off0 / (double)b->freq : 0.0;
        vs.pitch = 1.0f;
        heliod_set_async(d->h, e->voice, &vs);
    }
}

/* Sends the source's gain, pan and pitch to its voices when they changed. */
static void send_mix_nf(alh_source_t *s, int force);

/* Sends the source's gain, pan and pitch to its voices when they changed. */
static void send_mix(alh_source_t *s, int force) {
    send_mix_nf(s, force);
    alh_flush(s->ctx->dev);
}

/* send_mix without the flush (a listener change updates every source, then flushes once). */
static void send_mix_nf(alh_source_t *s, int force) {
    ALCdevice *d = s->ctx->dev;
    if (s->state != AL_PLAYING || !d->h) return;
    alh_voice_mix_t m;
    alh_spatialise(s->ctx, s, source_channels(s), d->pan_law, &m);
    const float gdb = db_of(m.gain), pitch = clamp_pitch(m.pitch);
    const int dir_same = !m.hrtf || (fabsf(m.dir[0] - s->sent_dir[0]) < 1e-4f &&
                                     fabsf(m.dir[1] - s->sent_dir[1]) < 1e-4f &&
                                     fabsf(m.dir[2] - s->sent_dir[2]) < 1e-4f);
    if (!force && s->sent_valid && fabsf(gdb - s->sent_gain_db) < 0.01f &&
        fabsf(m.pan - s->sent_pan) < 1e-4f && fabsf(pitch - s->sent_pitch) < 1e-5f && dir_same)
        return;
    memcpy(s->sent_dir, m.dir, sizeof s->sent_dir);
    const int pitch_changed = !s->sent_valid || fabsf(pitch - s->sent_pitch) >= 1e-5f;
    s->sent_gain_db = gdb, s->sent_pan = m.pan, s->sent_pitch = pitch, s->sent_valid = 1;
    heliod_voice_set_t vs;
    memset(&vs, 0, sizeof vs);
    vs.mask = HELIOD_SET_GAIN | (pitch_changed ? HELIOD_SET_PITCH : 0);
    vs.mask |= m.hrtf ? HELIOD_SET_POS : HELIOD_SET_PAN;
    vs.gain_db = gdb;
    vs.pan = m.pan;
    memcpy(vs.pos, m.dir, sizeof vs.pos);
    vs.pitch = pitch;
    if (s->st) {
        alh_req(d);
        alh_conn_check(d, heliod_set_async(d->h, heliod_stream_voice(s->st), &vs));
        return;
    }
    const uint64_t now = alh_now_frame(d);
    for (int i = 0; i < s->qn; i++) {
        alh_qent_t *e = &s->q[i];
        if (!e->voice || e->ended) continue;
        if (pitch_changed && e->start <= now && now < e->start + e->len) {
            /* rebase the running entry's clock at the new pitch */
            const alh_buffer_t *b = qbuf(s, i);
            const double pos = e->off0 + (double)(now - e->start) * s->ratio;
            s->ratio = entry_ratio(s, i, pitch);
            const double left = b && b->frames > pos ? (double)b->frames - pos : 0.0;
            e->off0 = pos;
            e->start = now;
            e->len = (uint64_t)(left / s->ratio + 0.5);
        }
        alh_req(d);
        alh_conn_check(d, heliod_set_async(d->h, e->voice, &vs));
        if (!d->h) return;
    }
}

/* ---- state ---- */

static double cum_end(const alh_source_t *s, int i);
static double stream_pos(const alh_source_t *s);
static void stream_pump(alh_source_t *s);

static double source_frames_total(const alh_source_t *s) {
    double t = 0;
    for (int i = 0; i < s->qn; i++) {
        const alh_buffer_t *b = qbuf(s, i);
        t += b ? b->frames : 0;
    }
    return t;
}

/* Source frames into the queue now (PLAYING). */
static double playing_offset(alh_source_t *s, uint64_t now) {
    if (s->st) {
        const double p = stream_pos(s), total = cum_end(s, s->qn - 1);
        return p < total ? p : total;
    }
    double base = 0;
    for (int i = 0; i < s->qn; i++) {
        const alh_qent_t *e = &s->q[i];
        const alh_buffer_t *b = qbuf(s, i);
        const double frames = b ? b->frames : 0;
        if (!e->started) {
            base += frames;
            continue;
        }
        if (s->looping && s->type != AL_STREAMING) {
            double off = (now > e->start ? (double)(now - e->start) : 0.0) * s->ratio;
            off += e->off0;
            return frames > 0 ? fmod(off, frames) : 0.0;
        }
        if (now < e->start + e->len || i == s->qn - 1) {
            double off = e->off0 + (now > e->start ? (double)(now - e->start) : 0.0) * s->ratio;
            if (off > frames) off = frames;
            return base + off;
        }
        base += frames;
    }
    return base;
}

void alh_source_update(alh_source_t *s) {
    if (s->state != AL_PLAYING) return;
    ALCdevice *d = s->ctx->dev;
    if (!d->h) {
        s->state = AL_STOPPED;
        return;
    }
    if (s->st) { /* ran out of queued buffers (or the voice ended): stopped */
        if (!heliod_stream_ended(s->st, NULL) &&
            (s->st_wi < s->qn || stream_pos(s) < cum_end(s, s->qn - 1)))
            return;
        heliod_stream_close(s->st);
        s->st = NULL;
        goto stopped;
    }
    if (s->looping && s->type != AL_STREAMING) {
        if (s->qn > 0 && s->q[0].ended) goto stopped;
        return;
    }
    const uint64_t now = alh_now_frame(d);
    /* until STARTED says on which frame an unscheduled voice began, its end
     * is only known to within the command's latency: wait that much more
     * rather than call it stopped while its last frames are still to play */
    const uint64_t slack = s->type == AL_STREAMING || s->started_exact ? 0 : 2u * d->period;
    int live = 0;
    for (int i = 0; i < s->qn; i++) {
        const alh_qent_t *e = &s->q[i];
        if (e->started && !e->ended && now < e->start + e->len + slack) live = 1;
    }
    if (live) return;
stopped:
    for (int i = 0; i < s->qn; i++)
        s->q[i].voice = 0, s->q[i].serial = 0, s->q[i].started = 0;
    s->state = AL_STOPPED;
    s->paused_off = 0;
}

static int processed_count(alh_source_t *s) {
    alh_source_update(s);
    if (s->state == AL_STOPPED) return s->qn;
    if (s->state != AL_PLAYING) return 0;
    if (s->looping && s->type != AL_STREAMING) return 0;
    if (s->st) {
        const double p = stream_pos(s);
        int k = 0;
        while (k < s->qn && cum_end(s, k) <= p)
            k++;
        return k;
    }
    const uint64_t now = alh_now_frame(s->ctx->dev);
    int n = 0;
    for (int i = 0; i < s->qn; i++) {
        const alh_qent_t *e = &s->q[i];
        if (!e->started || e->ended || now >= e->start + e->len)
            n++;
        else
            break;
    }
    return n;
}

/* ---- queues on a client-fed stream ---- */

/* Source frames from q[0]'s start to the end of entry i. */
static double cum_end(const alh_source_t *s, int i) {
    double t = 0;
    for (int k = 0; k <= i && k < s->qn; k++) {
        const alh_buffer_t *b = qbuf(s, k);
        t += b ? b->frames : 0;
    }
    return t;
}

/* Copies what the ring takes of the queue, from where the last copy stopped. */
static void stream_pump(alh_source_t *s) {
    while (s->st && s->st_wi < s->qn) {
        const alh_buffer_t *b = qbuf(s, s->st_wi);
        if (!b || s->st_woff >= b->frames) {
            s->st_wi++;
            s->st_woff = 0;
            continue;
        }
        const size_t fsz = (size_t)b->channels * (size_t)(b->bits / 8);
        const size_t n = heliod_stream_write(s->st, (const uint8_t *)b->data + s->st_woff * fsz,
                                             b->frames - s->st_woff);
        s->st_woff += (uint32_t)n;
        if (s->st_woff < b->frames) break; /* the ring is full */
    }
}

/* Source frames the daemon took from the stream, counted from q[0]'s start. */
static double stream_pos(const alh_source_t *s) {
    const double p = (double)(int64_t)heliod_stream_consumed(s->st) - (double)s->st_base;
    return p > 0 ? p : 0;
}

/* Opens the stream of a STREAMING source and starts filling it from `from`
 * source frames into the queue (entry first, `in` frames into it). 0, or -1
 * to fall back to one voice per buffer (a daemon without streams). */
static int stream_start(alh_source_t *s, int first, double in, double from,
                        const alh_voice_mix_t *m) {
    ALCdevice *d = s->ctx->dev;
    const alh_buffer_t *b = qbuf(s, first);
    if (!b || !b->freq || getenv("HELIOD_OPENAL_NO_STREAMS")) return -1;
    heliod_stream_params_t p;
    heliod_stream_params_init(&p);
    p.rate = (uint32_t)b->freq;
    p.channels = (uint32_t)b->channels;
    p.format = b->bits == 32   ? HELIOD_STREAM_F32
               : b->bits == 16 ? HELIOD_STREAM_S16
                               : HELIOD_STREAM_U8;
    p.frames = (uint32_t)b->freq / 2; /* half a second of room; the event thread tops it up */
    p.play.gain_db = db_of(m->gain);
    p.play.pan = m->pan;
    p.play.pitch = clamp_pitch(m->pitch);
    p.play.fade_in_ms = 0.0f;
    if (d->pan_law && b->channels == 1 && !m->hrtf) p.play.flags |= HELIOD_PLAY_PAN_OPENAL;
    hrtf_params(&p.play, m);
    if (d->suspended) heliod_bundle_end(d->h, NULL); /* a blocking call: close the bundle */
    heliod_stream_t *st = NULL;
    const int rc = heliod_stream_open(d->h, &p, &st);
    if (d->suspended && d->h && heliod_bundle_begin(d->h) != 0) d->suspended = 0;
    if (rc < 0) {
        alh_conn_check(d, rc);
        return -1;
    }
    s->st = st;
    s->st_wi = first;
    s->st_woff = (uint32_t)in;
    s->st_base = -(int64_t)from;
    stream_pump(s);
    return 0;
}

static void play_source(ALCcontext *c, alh_source_t *s) {
    ALCdevice *d = c->dev;
    double from = 0;
    if (s->state == AL_PAUSED) from = s->paused_off;
    if (s->pending_off >= 0) from = s->pending_off;
    s->pending_off = -1;
    if (s->state == AL_PLAYING) stop_voices(s); /* a play restarts it */
    s->sent_valid = 0;
    if (!d->h) {
        s->state = AL_STOPPED;
        alh_set_error(c, AL_INVALID_OPERATION);
        return;
    }
    if (s->qn == 0) {
        s->state = AL_STOPPED;
        return;
    }
    alh_voice_mix_t m;
    alh_spatialise(c, s, source_channels(s), d->pan_law, &m);
    const float pitch = clamp_pitch(m.pitch);
    s->sent_gain_db = db_of(m.gain), s->sent_pan = m.pan, s->sent_pitch = pitch;
    memcpy(s->sent_dir, m.dir, sizeof s->sent_dir);
    s->sent_valid = 1;
    /* the entry `from` falls in */
    int first = 0;
    double in = from;
    while (first < s->qn) {
        const alh_buffer_t *b = qbuf(s, first);
        const double f = b ? b->frames : 0;
        if (in < f) break;
        in -= f;
        first++;
    }
    for (int i = 0; i < s->qn; i++)
        s->q[i].started = 0, s->q[i].ended = 0, s->q[i].voice = 0;
    if (first >= s->qn) {
        s->state = AL_STOPPED;
        return;
    }
    for (int i = 0; i < first; i++)
        s->q[i].started = 1, s->q[i].ended = 1, s->q[i].len = 0;
    s->state = AL_PLAYING;
    s->ratio = entry_ratio(s, first, pitch);
    s->paused_off = 0;
    s->off_hi = 0;
    s->started_exact = 0;
    if (s->type != AL_STREAMING) {
        if (start_entry(s, first, in, 0, &m) < 0) s->state = AL_STOPPED;
    } else if (stream_start(s, first, in, from, &m) == 0) {
        for (int i = first; i < s->qn; i++)
            s->q[i].started = 1;
    } else {
        /* the queue: every buffer on its own frame, from a little ahead */
        uint64_t at = alh_now_frame(d) + 2u * d->period + 64u;
        for (int i = first; i < s->qn; i++) {
            if (start_entry(s, i, i == first ? in : 0.0, at, &m) == 0) at += s->q[i].len;
            if (!d->h) break;
        }
    }
    alh_flush(d);
    if (!d->h) s->state = AL_STOPPED;
}

static void pause_source(alh_source_t *s) {
    alh_source_update(s);
    if (s->state != AL_PLAYING) return;
    const double off = playing_offset(s, alh_now_frame(s->ctx->dev));
    stop_voices(s);
    s->paused_off = off;
    s->state = AL_PAUSED;
}

static void stop_source(alh_source_t *s) {
    alh_source_update(s);
    if (s->state == AL_PLAYING) stop_voices(s);
    if (s->state != AL_INITIAL) s->state = AL_STOPPED;
    s->paused_off = 0;
    s->pending_off = -1;
}

static void rewind_source(alh_source_t *s) {
    alh_source_update(s);
    if (s->state == AL_PLAYING) stop_voices(s);
    s->state = AL_INITIAL;
    s->paused_off = 0;
    s->pending_off = -1;
}

/* ---- events ---- */

void alh_on_event(ALCdevice *d, const heliod_event_t *ev) {
    if (ev->type != HELIOD_EVENT_ENDED && ev->type != HELIOD_EVENT_STARTED) return;
    if (!g_al.src || !ev->voice) return;
    for (ALuint i = 0; i < ALH_MAX_SOURCES; i++) {
        alh_source_t *s = &g_al.src[i];
        if (!s->used || s->state != AL_PLAYING || s->ctx->dev != d) continue;
        for (int k = 0; k < s->qn; k++) {
            alh_qent_t *e = &s->q[k];
            if (e->voice != ev->voice) continue;
            if (ev->type == HELIOD_EVENT_ENDED) {
                e->ended = 1;
                alh_source_update(s);
            } else if (s->type != AL_STREAMING && k == 0 && !s->started_exact && d->clk.rate) {
                /* the frame its first block was mixed on */
                const uint64_t f = heliod_clock_frame_at(&d->clk, ev->time_ns);
                if (f) e->start = f;
                s->started_exact = 1;
            }
            return;
        }
    }
}

void alh_sources_tick(ALCdevice *d) {
    for (ALuint i = 0; g_al.src && i < ALH_MAX_SOURCES; i++) {
        alh_source_t *s = &g_al.src[i];
        if (!s->used || s->state != AL_PLAYING || s->ctx->dev != d) continue;
        stream_pump(s);
        alh_source_update(s);
    }
}

void alh_sources_shift(ALCdevice *d, uint64_t frames) {
    for (ALuint i = 0; g_al.src && i < ALH_MAX_SOURCES; i++) {
        alh_source_t *s = &g_al.src[i];
        if (!s->used || s->ctx->dev != d || s->state != AL_PLAYING) continue;
        for (int k = 0; k < s->qn; k++)
            if (s->q[k].started) s->q[k].start += frames;
    }
}

void alh_sources_lost(ALCdevice *d) {
    for (ALuint i = 0; g_al.src && i < ALH_MAX_SOURCES; i++) {
        alh_source_t *s = &g_al.src[i];
        if (!s->used || s->ctx->dev != d) continue;
        if (s->st) heliod_stream_close(s->st);
        s->st = NULL;
        for (int k = 0; k < s->qn; k++)
            s->q[k].voice = 0, s->q[k].serial = 0, s->q[k].started = 0;
        if (s->state == AL_PLAYING || s->state == AL_PAUSED) s->state = AL_STOPPED;
        alh_set_error(s->ctx, AL_INVALID_OPERATION);
    }
    for (ALuint i = 0; g_al.buf && i < ALH_MAX_BUFFERS; i++)
        if (g_al.buf[i] && g_al.buf[i]->dev == d) g_al.buf[i]->uploaded = 0;
}

void alh_sources_respatialise(ALCcontext *c) {
    for (ALuint i = 0; g_al.src && i < ALH_MAX_SOURCES; i++) {
        alh_source_t *s = &g_al.src[i];
        if (s->used && s->ctx == c && s->state == AL_PLAYING) send_mix_nf(s, 0);
    }
    alh_flush(c->dev);
}

static void release_queue(alh_source_t *s) {
    for (int i = 0; i < s->qn; i++) {
        alh_buffer_t *b = qbuf(s, i);
        if (b && b->refs > 0) b->refs--;
    }
    s->qn = 0;
}

void alh_sources_context_gone(ALCcontext *c) {
    for (ALuint i = 0; g_al.src && i < ALH_MAX_SOURCES; i++) {
        alh_source_t *s = &g_al.src[i];
        if (!s->used || s->ctx != c) continue;
        if (s->state == AL_PLAYING) stop_voices(s);
        release_queue(s);
        free(s->q);
        s->q = NULL;
        s->qcap = 0;
        s->used = 0;
    }
}

/* ---- the API ---- */

ALH_EXPORT void AL_APIENTRY alGenSources(ALsizei n, ALuint *sources) {
    ENTER();
    if (n < 0 || (n > 0 && !sources)) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    int have = 0;
    for (ALuint i = 0; i < ALH_MAX_SOURCES; i++)
        if (g_al.src[i].used && g_al.src[i].ctx == c) have++;
    if (have + n > c->attr_mono + c->attr_stereo && have + n > 256) {
        alh_set_error(c, AL_OUT_OF_MEMORY); /* more than the context offers (as OpenAL Soft) */
        LEAVE();
    }
    ALsizei got = 0;
    for (ALuint i = 0; i < ALH_MAX_SOURCES && got < n; i++) {
        alh_source_t *s = &g_al.src[i];
        if (s->used) continue;
        free(s->q); /* a slot used before */
        memset(s, 0, sizeof *s);
        s->used = 1;
        s->ctx = c;
        s->id = i + 1;
        source_defaults(s);
        sources[got++] = s->id;
    }
    if (got < n) {
        for (ALsizei i = 0; i < got; i++)
            g_al.src[sources[i] - 1].used = 0;
        alh_set_error(c, AL_OUT_OF_MEMORY);
    }
    LEAVE();
}

ALH_EXPORT void AL_APIENTRY alDeleteSources(ALsizei n, const ALuint *sources) {
    ENTER();
    if (n < 0 || (n > 0 && !sources)) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    for (ALsizei i = 0; i < n; i++)
        if (!alh_source_get(c, sources[i])) {
            alh_set_error(c, AL_INVALID_NAME);
            LEAVE();
        }
    for (ALsizei i = 0; i < n; i++) {
        alh_source_t *s = alh_source_get(c, sources[i]);
        if (!s) continue;
        alh_source_update(s);
        if (s->state == AL_PLAYING) stop_voices(s);
        release_queue(s);
        free(s->q);
        s->q = NULL;
        s->qcap = 0;
        s->used = 0;
    }
    LEAVE();
}

ALH_EXPORT ALboolean AL_APIENTRY alIsSource(ALuint source) {
    ENTER(AL_FALSE);
    const ALboolean r = alh_source_get(c, source) ? AL_TRUE : AL_FALSE;
    LEAVE(r);
}

static void set_looping(alh_source_t *s, int on) {
    if (s->looping == on) return;
    alh_source_update(s);
    if (s->state == AL_PLAYING && s->type != AL_STREAMING) {
        /* the voice's loop flag is set at play: play on from here */
        const double off = playing_offset(s, alh_now_frame(s->ctx->dev));
        s->looping = on;
        stop_voices(s);
        s->state = AL_PAUSED;
        s->paused_off = off;
        play_source(s->ctx, s);
        return;
    }
    s->looping = on;
}

static void set_offset(ALCcontext *c, alh_source_t *s, ALenum param, double v) {
    const alh_buffer_t *b = s->qn ? qbuf(s, 0) : NULL;
    if (!(v >= 0.0) || !isfinite(v)) {
        alh_set_error(c, AL_INVALID_VALUE);
        return;
    }
    double frames = v;
    if (param == AL_SEC_OFFSET) frames = v * (b ? b->freq : 0);
    if (param == AL_BYTE_OFFSET) {
        const int fsz = b ? b->al_channels * b->al_bits / 8 : 1; /* as the program gave it */
        frames = floor(v / (fsz ? fsz : 1));
    }
    if (b && frames >= source_frames_total(s)) {
        alh_set_error(c, AL_INVALID_VALUE);
        return;
    }
    alh_source_update(s);
    s->pending_off = frames;
    if (s->state == AL_PLAYING) { /* jump: play again from there */
        s->state = AL_PAUSED;
        stop_voices(s);
        play_source(c, s);
    }
}

static void source_setfv(ALCcontext *c, alh_source_t *s, ALenum param, const ALfloat *v) {
    const float x = v[0];
    int respat = 1;
    switch (param) {
    case AL_GAIN:
        if (!(x >= 0.0f) || !isfinite(x)) goto bad;
        s->gain = x;
        break;
    case AL_MIN_GAIN:
        if (!(x >= 0.0f) || x > 1.0f) goto bad;
        s->min_gain = x;
        break;
    case AL_MAX_GAIN:
        if (!(x >= 0.0f) || x > 1.0f) goto bad;
        s->max_gain = x;
        break;
    case AL_PITCH:
        if (!(x > 0.0f) || !isfinite(x)) goto bad;
        s->pitch = x;
        break;
    case AL_REFERENCE_DISTANCE:
        if (!(x >= 0.0f) || !isfinite(x)) goto bad;
        s->ref_dist = x;
        break;
    case AL_MAX_DISTANCE:
        if (!(x >= 0.0f)) goto bad;
        s->max_dist = x;
        break;
    case AL_ROLLOFF_FACTOR:
        if (!(x >= 0.0f) || !isfinite(x)) goto bad;
        s->rolloff = x;
        break;
    case AL_CONE_INNER_ANGLE:
        if (!(x >= 0.0f) || x > 360.0f) goto bad;
        s->cone_in = x;
        break;
    case AL_CONE_OUTER_ANGLE:
        if (!(x >= 0.0f) || x > 360.0f) goto bad;
        s->cone_out = x;
        break;
    case AL_CONE_OUTER_GAIN:
        if (!(x >= 0.0f) || x > 1.0f) goto bad;
        s->cone_out_gain = x;
        break;
    case AL_POSITION:
    case AL_VELOCITY:
    case AL_DIRECTION:
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) goto bad;
        memcpy(param == AL_POSITION   ? s->pos
               : param == AL_VELOCITY ? s->vel
                                      : s->dir,
               v, 3 * sizeof(float));
        break;
    case AL_SEC_OFFSET:
    case AL_SAMPLE_OFFSET:
    case AL_BYTE_OFFSET: set_offset(c, s, param, x); return;
    default: alh_set_error(c, AL_INVALID_ENUM); return;
    }
    if (respat) send_mix(s, 0);
    return;
bad:
    alh_set_error(c, AL_INVALID_VALUE);
}

static int fv_count(ALenum param) {
    return param == AL_POSITION || param == AL_VELOCITY || param == AL_DIRECTION ? 3 : 1;
}

static void source_seti(ALCcontext *c, alh_source_t *s, ALenum param, ALint v) {
    switch (param) {
    case AL_SOURCE_RELATIVE:
        if (v != AL_FALSE && v != AL_TRUE) goto bad;
        s->relative = v;
        send_mix(s, 0);
        return;
    case AL_LOOPING:
        if (v != AL_FALSE && v != AL_TRUE) goto bad;
        set_looping(s, v);
        return;
    case AL_BUFFER: {
        alh_source_update(s);
        if (s->state == AL_PLAYING || s->state == AL_PAUSED) {
            alh_set_error(c, AL_INVALID_OPERATION);
            return;
        }
        alh_buffer_t *b = NULL;
        if (v != 0) {
            b = alh_buffer_get((ALuint)v);
            if (!b || b->dev != c->dev) {
                alh_set_error(c, AL_INVALID_VALUE);
                return;
            }
        }
        if (b && queue_room(s, 1) < 0) {
            alh_set_error(c, AL_OUT_OF_MEMORY);
            return;
        }
        release_queue(s);
        if (b) {
            memset(&s->q[0], 0, sizeof s->q[0]);
            s->q[0].buf = b->id;
            s->qn = 1;
            b->refs++;
            s->type = AL_STATIC;
        } else {
            s->type = AL_UNDETERMINED;
        }
        return;
    }
    case AL_SOURCE_STATE: alh_set_error(c, AL_INVALID_OPERATION); return;
    case AL_DIRECT_CHANNELS_SOFT:
        if (v != AL_FALSE && v != AL_TRUE) goto bad;
        s->direct = v;
        return;
    case AL_SEC_OFFSET:
    case AL_SAMPLE_OFFSET:
    case AL_BYTE_OFFSET: set_offset(c, s, param, v); return;
    case AL_CONE_INNER_ANGLE:
    case AL_CONE_OUTER_ANGLE:
    case AL_REFERENCE_DISTANCE:
    case AL_MAX_DISTANCE:
    case AL_ROLLOFF_FACTOR: {
        const ALfloat f = (ALfloat)v;
        source_setfv(c, s, param, &f);
        return;
    }
    default: alh_set_error(c, AL_INVALID_ENUM); return;
    }
bad:
    alh_set_error(c, AL_INVALID_VALUE);
}

ALH_EXPORT void AL_APIENTRY alSourcefv(ALuint source, ALenum param, const ALfloat *values) {
    ENTER();
    alh_source_t *s = alh_source_get(c, source);
    if (!s)
        alh_set_error(c, AL_INVALID_NAME);
    else if (!values)
        alh_set_error(c, AL_INVALID_VALUE);
    else
        source_setfv(c, s, param, values);
    LEAVE();
}
ALH_EXPORT void AL_APIENTRY alSourcef(ALuint source, ALenum param, ALfloat value) {
    if (fv_count(param) != 1) {
        alh_lock();
        ALCcontext *c = alh_ctx();
        alh_set_error(c, alh_source_get(c, source) ? AL_INVALID_ENUM : AL_INVALID_NAME);
        alh_unlock();
        return;
    }
    alSourcefv(source, param, &value);
}
ALH_EXPORT void AL_APIENTRY alSource3f(ALuint source, ALenum param, ALfloat v1, ALfloat v2,
                                       ALfloat v3) {
    if (fv_count(param) != 3) {
        alh_lock();
        ALCcontext *c = alh_ctx();
        alh_set_error(c, alh_source_get(c, source) ? AL_INVALID_ENUM : AL_INVALID_NAME);
        alh_unlock();
        return;
    }
    const ALfloat v[3] = {v1, v2, v3};
    alSourcefv(source, param, v);
}
ALH_EXPORT void AL_APIENTRY alSourceiv(ALuint source, ALenum param, const ALint *values) {
    ENTER();
    alh_source_t *s = alh_source_get(c, source);
    if (!s) {
        alh_set_error(c, AL_INVALID_NAME);
    } else if (!values) {
        alh_set_error(c, AL_INVALID_VALUE);
    } else if (fv_count(param) == 3) {
        const ALfloat f[3] = {(ALfloat)values[0], (ALfloat)values[1], (ALfloat)values[2]};
        source_setfv(c, s, param, f);
    } else {
        source_seti(c, s, param, values[0]);
    }
    LEAVE();
}
ALH_EXPORT void AL_APIENTRY alSourcei(ALuint source, ALenum param, ALint value) {
    alSourceiv(source, param, &value);
}
ALH_EXPORT void AL_APIENTRY alSource3i(ALuint source, ALenum param, ALint v1, ALint v2, ALint v3) {
    const ALint v[3] = {v1, v2, v3};
    if (fv_count(param) != 3) {
        alh_lock();
        ALCcontext *c = alh_ctx();
        alh_set_error(c, alh_source_get(c, source) ? AL_INVALID_ENUM : AL_INVALID_NAME);
        alh_unlock();
        return;
    }
    alSourceiv(source, param, v);
}

/* Every readable parameter as doubles; the count, 0 on error. */
static int source_get(ALCcontext *c, alh_source_t *s, ALenum param, double *v) {
    switch (param) {
    case AL_GAIN: v[0] = s->gain; return 1;
    case AL_MIN_GAIN: v[0] = s->min_gain; return 1;
    case AL_MAX_GAIN: v[0] = s->max_gain; return 1;
    case AL_PITCH: v[0] = s->pitch; return 1;
    case AL_REFERENCE_DISTANCE: v[0] = s->ref_dist; return 1;
    case AL_MAX_DISTANCE: v[0] = s->max_dist; return 1;
    case AL_ROLLOFF_FACTOR: v[0] = s->rolloff; return 1;
    case AL_CONE_INNER_ANGLE: v[0] = s->cone_in; return 1;
    case AL_CONE_OUTER_ANGLE: v[0] = s->cone_out; return 1;
    case AL_CONE_OUTER_GAIN: v[0] = s->cone_out_gain; return 1;
    case AL_POSITION:
    case AL_VELOCITY:
    case AL_DIRECTION: {
        const float *p = param == AL_POSITION ? s->pos : param == AL_VELOCITY ? s->vel : s->dir;
        v[0] = p[0], v[1] = p[1], v[2] = p[2];
        return 3;
    }
    case AL_SOURCE_RELATIVE: v[0] = s->relative; return 1;
    case AL_DIRECT_CHANNELS_SOFT: v[0] = s->direct; return 1;
    case AL_LOOPING: v[0] = s->looping; return 1;
    case AL_BUFFER:
        v[0] = s->type == AL_STATIC && s->qn ? s->q[0].buf : 0;
        if (s->type == AL_STREAMING) { /* the buffer playing now */
            const int p = processed_count(s);
            v[0] = s->qn ? s->q[p < s->qn ? p : s->qn - 1].buf : 0;
        }
        return 1;
    case AL_SOURCE_STATE:
        alh_source_update(s);
        v[0] = s->state;
        return 1;
    case AL_SOURCE_TYPE: v[0] = s->type; return 1;
    case AL_BUFFERS_QUEUED: v[0] = s->qn; return 1;
    case AL_BUFFERS_PROCESSED: v[0] = s->type == AL_STREAMING ? processed_count(s) : 0; return 1;
    case AL_SEC_OFFSET:
    case AL_SAMPLE_OFFSET:
    case AL_BYTE_OFFSET: {
        alh_source_update(s);
        double f = 0;
        if (s->state == AL_PLAYING) {
            /* the start frame is estimated until STARTED gives it: never back */
            f = playing_offset(s, alh_now_frame(c->dev));
            if (!s->looping && f < s->off_hi) f = s->off_hi;
            s->off_hi = f;
        } else if (s->state == AL_PAUSED)
            f = s->paused_off;
        const alh_buffer_t *b = s->qn ? qbuf(s, 0) : NULL;
        if (param == AL_SEC_OFFSET)
            v[0] = b && b->freq ? f / b->freq : 0.0;
        else if (param == AL_SAMPLE_OFFSET)
            v[0] = floor(f);
        else
            v[0] = floor(f) * (b ? b->al_channels * b->al_bits / 8 : 0);
        return 1;
    }
    default: alh_set_error(c, AL_INVALID_ENUM); return 0;
    }
}

static int source_getd(ALuint source, ALenum param, double *v) {
    ALCcontext *c = alh_ctx();
    if (!c) return 0;
    alh_source_t *s = alh_source_get(c, source);
    if (!s) {
        alh_set_error(c, AL_INVALID_NAME);
        return 0;
    }
    return source_get(c, s, param, v);
}

static void null_value(void) {
    alh_set_error(alh_ctx(), AL_INVALID_VALUE);
}

ALH_EXPORT void AL_APIENTRY alGetSourcefv(ALuint source, ALenum param, ALfloat *values) {
    double v[3];
    alh_lock();
    if (!values) {
        null_value();
    } else {
        const int n = source_getd(source, param, v);
        for (int i = 0; i < n; i++)
            values[i] = (ALfloat)v[i];
    }
    alh_unlock();
}
ALH_EXPORT void AL_APIENTRY alGetSourcef(ALuint source, ALenum param, ALfloat *value) {
    alh_lock();
    double v[3];
    if (!value) {
        null_value();
    } else if (fv_count(param) == 3) {
        alh_set_error(alh_ctx(), AL_INVALID_ENUM);
    } else if (source_getd(source, param, v)) {
        *value = (ALfloat)v[0];
    }
    alh_unlock();
}
ALH_EXPORT void AL_APIENTRY alGetSource3f(ALuint source, ALenum param, ALfloat *v1, ALfloat *v2,
                                          ALfloat *v3) {
    alh_lock();
    double v[3];
    if (!v1 || !v2 || !v3) {
        null_value();
    } else if (fv_count(param) != 3) {
        alh_set_error(alh_ctx(), AL_INVALID_ENUM);
    } else if (source_getd(source, param, v) == 3) {
        *v1 = (ALfloat)v[0], *v2 = (ALfloat)v[1], *v3 = (ALfloat)v[2];
    }
    alh_unlock();
}
ALH_EXPORT void AL_APIENTRY alGetSourceiv(ALuint source, ALenum param, ALint *values) {
    double v[3];
    alh_lock();
    if (!values) {
        null_value();
    } else {
        const int n = source_getd(source, param, v);
        for (int i = 0; i < n; i++)
            values[i] = (ALint)v[i];
    }
    alh_unlock();
}
ALH_EXPORT void AL_APIENTRY alGetSourcei(ALuint source, ALenum param, ALint *value) {
    alh_lock();
    double v[3];
    if (!value) {
        null_value();
    } else if (fv_count(param) == 3) {
        alh_set_error(alh_ctx(), AL_INVALID_ENUM);
    } else if (source_getd(source, param, v)) {
        *value = (ALint)v[0];
    }
    alh_unlock();
}
ALH_EXPORT void AL_APIENTRY alGetSource3i(ALuint source, ALenum param, ALint *v1, ALint *v2,
                                          ALint *v3) {
    alh_lock();
    double v[3];
    if (!v1 || !v2 || !v3) {
        null_value();
    } else if (fv_count(param) != 3) {
        alh_set_error(alh_ctx(), AL_INVALID_ENUM);
    } else if (source_getd(source, param, v) == 3) {
        *v1 = (ALint)v[0], *v2 = (ALint)v[1], *v3 = (ALint)v[2];
    }
    alh_unlock();
}

/* ---- playback ---- */

typedef void (*src_op_fn)(ALCcontext *c, alh_source_t *s);
static void op_play(ALCcontext *c, alh_source_t *s) {
    play_source(c, s);
}
static void op_pause(ALCcontext *c, alh_source_t *s) {
    (void)c;
    pause_source(s);
}
static void op_stop(ALCcontext *c, alh_source_t *s) {
    (void)c;
    stop_source(s);
}
static void op_rewind(ALCcontext *c, alh_source_t *s) {
    (void)c;
    rewind_source(s);
}

static void source_opv(ALsizei n, const ALuint *sources, src_op_fn fn) {
    ENTER();
    if (n < 0 || (n > 0 && !sources)) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    for (ALsizei i = 0; i < n; i++)
        if (!alh_source_get(c, sources[i])) {
            alh_set_error(c, AL_INVALID_NAME);
            LEAVE();
        }
    ALCdevice *d = c->dev;
    /* several sources start together: one bundle, one block */
    const int bundle = n > 1 && d->h && !d->suspended && heliod_bundle_begin(d->h) == 0;
    if (bundle) d->suspended = 1, d->bundle_n = 0;
    for (ALsizei i = 0; i < n; i++)
        fn(c, alh_source_get(c, sources[i]));
    if (bundle && d->h) {
        d->suspended = 0;
        alh_conn_check(d, heliod_bundle_end(d->h, NULL));
    }
    if (bundle) alh_flush(d);
    LEAVE();
}

ALH_EXPORT void AL_APIENTRY alSourcePlayv(ALsizei n, const ALuint *sources) {
    source_opv(n, sources, op_play);
}
ALH_EXPORT void AL_APIENTRY alSourceStopv(ALsizei n, const ALuint *sources) {
    source_opv(n, sources, op_stop);
}
ALH_EXPORT void AL_APIENTRY alSourceRewindv(ALsizei n, const ALuint *sources) {
    source_opv(n, sources, op_rewind);
}
ALH_EXPORT void AL_APIENTRY alSourcePausev(ALsizei n, const ALuint *sources) {
    source_opv(n, sources, op_pause);
}
ALH_EXPORT void AL_APIENTRY alSourcePlay(ALuint source) {
    source_opv(1, &source, op_play);
}
ALH_EXPORT void AL_APIENTRY alSourceStop(ALuint source) {
    source_opv(1, &source, op_stop);
}
ALH_EXPORT void AL_APIENTRY alSourceRewind(ALuint source) {
    source_opv(1, &source, op_rewind);
}
ALH_EXPORT void AL_APIENTRY alSourcePause(ALuint source) {
    source_opv(1, &source, op_pause);
}

/* ---- buffer queues ---- */

ALH_EXPORT void AL_APIENTRY alSourceQueueBuffers(ALuint source, ALsizei nb, const ALuint *buffers) {
    ENTER();
    alh_source_t *s = alh_source_get(c, source);
    if (!s) {
        alh_set_error(c, AL_INVALID_NAME);
        LEAVE();
    }
    if (nb < 0 || (nb > 0 && !buffers)) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    if (s->type == AL_STATIC) {
        alh_set_error(c, AL_INVALID_OPERATION);
        LEAVE();
    }
    const alh_buffer_t *ref = s->qn ? qbuf(s, 0) : NULL;
    for (ALsizei i = 0; i < nb; i++) {
        if (buffers[i] == 0) continue;
        const alh_buffer_t *b = alh_buffer_get(buffers[i]);
        if (!b || b->dev != c->dev) {
            alh_set_error(c, AL_INVALID_NAME);
            LEAVE();
        }
        if (!ref) ref = b;
        if (b->al_channels != ref->al_channels || b->al_bits != ref->al_bits ||
            b->freq != ref->freq) {
            alh_set_error(c, AL_INVALID_OPERATION); /* one format per queue */
            LEAVE();
        }
    }
    if (s->qn + nb > ALH_QMAX || queue_room(s, s->qn + nb) < 0) {
        alh_set_error(c, AL_OUT_OF_MEMORY);
        LEAVE();
    }
    alh_source_update(s);
    ALCdevice *d = c->dev;
    /* where the queue ends now (PLAYING): the new buffers follow from there */
    uint64_t tail = 0;
    if (s->state == AL_PLAYING)
        for (int i = 0; i < s->qn; i++)
            if (s->q[i].started && s->q[i].start + s->q[i].len > tail)
                tail = s->q[i].start + s->q[i].len;
    alh_voice_mix_t m;
    if (s->state == AL_PLAYING) alh_spatialise(c, s, source_channels(s), d->pan_law, &m);
    s->type = AL_STREAMING;
    for (ALsizei i = 0; i < nb; i++) {
        alh_buffer_t *b = alh_buffer_get(buffers[i]);
        alh_qent_t *e = &s->q[s->qn++];
        memset(e, 0, sizeof *e);
        e->buf = buffers[i];
        if (b) b->refs++;
        if (s->st) {
            e->started = 1;
        } else if (s->state == AL_PLAYING && d->h) {
            const uint64_t now = alh_now_frame(d);
            if (tail <= now) tail = now + d->period; /* ran dry: as soon as it can */
            if (start_entry(s, s->qn - 1, 0.0, tail, &m) == 0) tail += e->len;
        }
    }
    if (s->st) stream_pump(s);
    if (s->state == AL_PLAYING) alh_flush(d);
    LEAVE();
}

ALH_EXPORT void AL_APIENTRY alSourceUnqueueBuffers(ALuint source, ALsizei nb, ALuint *buffers) {
    ENTER();
    alh_source_t *s = alh_source_get(c, source);
    if (!s) {
        alh_set_error(c, AL_INVALID_NAME);
        LEAVE();
    }
    if (nb < 0 || (nb > 0 && !buffers)) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    if (nb == 0) LEAVE();
    if (s->type != AL_STREAMING || nb > processed_count(s)) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    const int playing = s->state == AL_PLAYING;
    double removed = 0;
    for (ALsizei i = 0; i < nb; i++) {
        alh_buffer_t *b = qbuf(s, i);
        buffers[i] = s->q[i].buf;
        if (b) {
            if (b->refs > 0) b->refs--;
            removed += b->frames;
        }
    }
    memmove(s->q, s->q + nb, (size_t)(s->qn - nb) * sizeof s->q[0]);
    s->qn -= nb;
    if (s->st) { /* positions count from the new q[0] */
        s->st_base += (int64_t)removed;
        s->st_wi = s->st_wi > nb ? s->st_wi - nb : 0;
    }
    (void)playing, (void)removed;
    if (s->qn == 0) s->type = AL_UNDETERMINED;
    LEAVE();
}
