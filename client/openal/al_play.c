/*
 * al_play.c - heliod's OpenAL library: a source's play state. The state and
 * the offsets come from the engine clock and the frame each voice started
 * on (corrected by STARTED and ENDED); play, pause, stop and rewind, alone
 * or several in one bundle (alSourcePlayv); and what the event thread and
 * the device do to every source of theirs (events, the stream's top-up, a
 * lost connection, a device pause, a context gone, a listener change).
 *
 * A buffer queued after the queue ran dry finds the source stopped, as
 * OpenAL says.
 */
#include <stdlib.h>
#include <string.h>

#include "al_src.h"

/* ---- state ---- */

double alh_playing_offset(alh_source_t *s, uint64_t now) {
    if (s->st) {
        const double p = alh_stream_pos(s), total = alh_queue_frames(s, s->qn - 1);
        return p < total ? p : total;
    }
    double base = 0;
    for (int i = 0; i < s->qn; i++) {
        const alh_qent_t *e = &s->q[i];
        const alh_buffer_t *b = alh_qbuf(s, i);
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
            (s->st_wi < s->qn || alh_stream_pos(s) < alh_queue_frames(s, s->qn - 1)))
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
    /* the end reckoned on the wall clock (the STARTED time, or the push)
     * comes early when the engine lags the wall clock (a loaded machine's
     * null driver): the ENDED event ends a static source; the reckoning only
     * 250 ms later, should that event never come (a program's next sound
     * would otherwise overlap this one's last frames) */
    const uint64_t slack = s->type == AL_STREAMING ? 0 : (d->clk.rate ? d->clk.rate / 4u : 0u);
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

int alh_processed_count(alh_source_t *s) {
    alh_source_update(s);
    if (s->state == AL_STOPPED) return s->qn;
    if (s->state != AL_PLAYING) return 0;
    if (s->looping && s->type != AL_STREAMING) return 0;
    if (s->st) {
        const double p = alh_stream_pos(s);
        int k = 0;
        while (k < s->qn && alh_queue_frames(s, k) <= p)
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

/* ---- play, pause, stop, rewind ---- */

void alh_source_play(ALCcontext *c, alh_source_t *s) {
    ALCdevice *d = c->dev;
    double from = 0;
    if (s->state == AL_PAUSED) from = s->paused_off;
    if (s->pending_off >= 0) from = s->pending_off;
    s->pending_off = -1;
    if (s->state == AL_PLAYING) alh_voices_stop(s); /* a play restarts it */
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
    alh_spatialise(c, s, alh_source_channels(s), d->pan_law, &m);
    const float pitch = alh_clamp_pitch(m.pitch);
    s->sent_gain_db = alh_db(m.gain), s->sent_pan = m.pan, s->sent_pitch = pitch;
    memcpy(s->sent_dir, m.dir, sizeof s->sent_dir);
    s->sent_valid = 1;
    /* the entry `from` falls in */
    int first = 0;
    double in = from;
    while (first < s->qn) {
        const alh_buffer_t *b = alh_qbuf(s, first);
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
    s->ratio = alh_entry_ratio(s, first, pitch);
    s->paused_off = 0;
    s->off_hi = 0;
    s->started_exact = 0;
    if (s->type != AL_STREAMING) {
        if (alh_voice_start(s, first, in, 0, &m) < 0) s->state = AL_STOPPED;
    } else if (alh_stream_start(s, first, in, from, &m) == 0) {
        for (int i = first; i < s->qn; i++)
            s->q[i].started = 1;
    } else {
        /* the queue: every buffer on its own frame, from a little ahead */
        uint64_t at = alh_now_frame(d) + 2u * d->period + 64u;
        for (int i = first; i < s->qn; i++) {
            if (alh_voice_start(s, i, i == first ? in : 0.0, at, &m) == 0) at += s->q[i].len;
            if (!d->h) break;
        }
    }
    alh_flush(d);
    if (!d->h) s->state = AL_STOPPED;
}

/* alSourcePlay and the others on one source (c: the caller's context). */
typedef void (*src_op_fn)(ALCcontext *c, alh_source_t *s);

static void op_pause(ALCcontext *c, alh_source_t *s) {
    (void)c;
    alh_source_update(s);
    if (s->state != AL_PLAYING) return;
    const double off = alh_playing_offset(s, alh_now_frame(s->ctx->dev));
    alh_voices_stop(s);
    s->paused_off = off;
    s->state = AL_PAUSED;
}

static void op_stop(ALCcontext *c, alh_source_t *s) {
    (void)c;
    alh_source_update(s);
    if (s->state == AL_PLAYING) alh_voices_stop(s);
    if (s->state != AL_INITIAL) s->state = AL_STOPPED;
    s->paused_off = 0;
    s->pending_off = -1;
}

static void op_rewind(ALCcontext *c, alh_source_t *s) {
    (void)c;
    alh_source_update(s);
    if (s->state == AL_PLAYING) alh_voices_stop(s);
    s->state = AL_INITIAL;
    s->paused_off = 0;
    s->pending_off = -1;
}

static void source_opv(ALsizei n, const ALuint *sources, src_op_fn fn) {
    ALH_ENTER();
    if (!alh_sources_ok(c, n, sources)) ALH_LEAVE();
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
    ALH_LEAVE();
}

ALH_EXPORT void AL_APIENTRY alSourcePlayv(ALsizei n, const ALuint *sources) {
    source_opv(n, sources, alh_source_play);
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
    source_opv(1, &source, alh_source_play);
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

/* ---- every source of a device or a context ---- */

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
        alh_stream_pump(s);
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
}

void alh_sources_respatialise(ALCcontext *c) {
    for (ALuint i = 0; g_al.src && i < ALH_MAX_SOURCES; i++) {
        alh_source_t *s = &g_al.src[i];
        if (s->used && s->ctx == c && s->state == AL_PLAYING) alh_voices_mix(s, 0);
    }
    alh_flush(c->dev);
}

void alh_source_free(alh_source_t *s) {
    if (s->state == AL_PLAYING) alh_voices_stop(s);
    alh_queue_release(s);
    free(s->q);
    s->q = NULL;
    s->qcap = 0;
    s->used = 0;
}

void alh_sources_context_gone(ALCcontext *c) {
    for (ALuint i = 0; g_al.src && i < ALH_MAX_SOURCES; i++) {
        alh_source_t *s = &g_al.src[i];
        if (s->used && s->ctx == c) alh_source_free(s);
    }
}
