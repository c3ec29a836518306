/*
 * al_voice.c - heliod's OpenAL library: a source's daemon voices, one per
 * queued buffer: started (at once, or scheduled with heliod_at_frame on the
 * engine frame where the previous one ends, so consecutive buffers join
 * sample-exactly at pitch 1), stopped, and told the source's gain, pan and
 * pitch when they change. A play's reply fills in its voice.
 */
#include <string.h>

#include "al_src.h"

void alh_voices_stop(alh_source_t *s) {
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

/* The daemon 3D voice is 1 m away in the source's direction (the library's
 * gain carries distance and cone: at the daemon's default inverse model with
 * min distance 1 its own distance gain is 1), with the daemon's listener
 * where it is by default (at the origin, facing -z), which is what the
 * binaural renderer turns into two ears. */
void alh_hrtf_params(heliod_play_params_t *p, const alh_voice_mix_t *m) {
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

/* The reply to a play: its voice, and the seek when it starts inside its
 * buffer (a stopped entry's voice is stopped at once). */
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

int alh_voice_start(alh_source_t *s, int i, double off, uint64_t at, const alh_voice_mix_t *m) {
    ALCdevice *d = s->ctx->dev;
    alh_qent_t *e = &s->q[i];
    alh_buffer_t *b = alh_qbuf(s, i);
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
    const float pitch = alh_clamp_pitch(m->pitch);
    const double eng_off = off * (double)b->eng_frames / (double)b->frames;
    e->len = (uint64_t)(((double)b->eng_frames - eng_off) / pitch + 0.5);
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags = s->looping && s->type != AL_STREAMING ? HELIOD_PLAY_LOOP : 0;
    if (d->pan_law && b->channels == 1 && !m->hrtf) p.flags |= HELIOD_PLAY_PAN_OPENAL;
    alh_hrtf_params(&p, m);
    if (off > 0 || d->paused) p.flags |= HELIOD_PLAY_PAUSED; /* resumed by the seek or the device */
    p.gain_db = alh_db(m->gain);
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

void alh_voices_mix(alh_source_t *s, int force) {
    ALCdevice *d = s->ctx->dev;
    if (s->state != AL_PLAYING || !d->h) return;
    alh_voice_mix_t m;
    alh_spatialise(s->ctx, s, alh_source_channels(s), d->pan_law, &m);
    const float gdb = alh_db(m.gain), pitch = alh_clamp_pitch(m.pitch);
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
            const alh_buffer_t *b = alh_qbuf(s, i);
            const double pos = e->off0 + (double)(now - e->start) * s->ratio;
            s->ratio = alh_entry_ratio(s, i, pitch);
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
