/*
 * al_source.c - heliod's OpenAL library: the source API. Names
 * (alGenSources, alDeleteSources, alIsSource), properties (alSource*,
 * alGetSource*: a change reaches a playing source's voices at once) and
 * buffer queues (alSourceQueueBuffers, alSourceUnqueueBuffers). Playing
 * is al_play.c's; al_src.h shows how a source is made.
 */
#include <float.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <AL/alext.h>

#include "al_src.h"

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

ALH_EXPORT void AL_APIENTRY alGenSources(ALsizei n, ALuint *sources) {
    ALH_ENTER();
    if (!alh_array_ok(c, n, sources)) ALH_LEAVE();
    int have = 0;
    for (ALuint i = 0; i < ALH_MAX_SOURCES; i++)
        if (g_al.src[i].used && g_al.src[i].ctx == c) have++;
    if (have + n > c->attr_mono + c->attr_stereo && have + n > 256) {
        alh_set_error(c, AL_OUT_OF_MEMORY); /* more than the context offers (as OpenAL Soft) */
        ALH_LEAVE();
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
    ALH_LEAVE();
}

ALH_EXPORT void AL_APIENTRY alDeleteSources(ALsizei n, const ALuint *sources) {
    ALH_ENTER();
    if (!alh_sources_ok(c, n, sources)) ALH_LEAVE();
    for (ALsizei i = 0; i < n; i++) {
        alh_source_t *s = alh_source_get(c, sources[i]);
        if (!s) continue;
        alh_source_update(s);
        alh_source_free(s);
    }
    ALH_LEAVE();
}

ALH_EXPORT ALboolean AL_APIENTRY alIsSource(ALuint source) {
    ALH_ENTER(AL_FALSE);
    const ALboolean r = alh_source_get(c, source) ? AL_TRUE : AL_FALSE;
    ALH_LEAVE(r);
}

static void set_looping(alh_source_t *s, int on) {
    if (s->looping == on) return;
    alh_source_update(s);
    if (s->state == AL_PLAYING && s->type != AL_STREAMING) {
        /* the voice's loop flag is set at play: play on from here */
        const double off = alh_playing_offset(s, alh_now_frame(s->ctx->dev));
        s->looping = on;
        alh_voices_stop(s);
        s->state = AL_PAUSED;
        s->paused_off = off;
        alh_source_play(s->ctx, s);
        return;
    }
    s->looping = on;
}

static void set_offset(ALCcontext *c, alh_source_t *s, ALenum param, double v) {
    const alh_buffer_t *b = s->qn ? alh_qbuf(s, 0) : NULL;
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
    if (b && frames >= alh_queue_frames(s, s->qn - 1)) {
        alh_set_error(c, AL_INVALID_VALUE);
        return;
    }
    alh_source_update(s);
    s->pending_off = frames;
    if (s->state == AL_PLAYING) { /* jump: play again from there */
        s->state = AL_PAUSED;
        alh_voices_stop(s);
        alh_source_play(c, s);
    }
}

/* Sends the source's gain, pan and pitch to its voices when they changed. */
static void send_mix(alh_source_t *s, int force) {
    alh_voices_mix(s, force);
    alh_flush(s->ctx->dev);
}

/* The scalar float properties: where each is kept and its range (`above`:
 * the minimum itself is out; FLT_MAX: finite). */
static const struct {
    ALenum param;
    size_t off;
    float min, max;
    int above;
} fprops[] = {
    {AL_GAIN, offsetof(alh_source_t, gain), 0.0f, FLT_MAX, 0},
    {AL_MIN_GAIN, offsetof(alh_source_t, min_gain), 0.0f, 1.0f, 0},
    {AL_MAX_GAIN, offsetof(alh_source_t, max_gain), 0.0f, 1.0f, 0},
    {AL_PITCH, offsetof(alh_source_t, pitch), 0.0f, FLT_MAX, 1},
    {AL_REFERENCE_DISTANCE, offsetof(alh_source_t, ref_dist), 0.0f, FLT_MAX, 0},
    {AL_MAX_DISTANCE, offsetof(alh_source_t, max_dist), 0.0f, INFINITY, 0},
    {AL_ROLLOFF_FACTOR, offsetof(alh_source_t, rolloff), 0.0f, FLT_MAX, 0},
    {AL_CONE_INNER_ANGLE, offsetof(alh_source_t, cone_in), 0.0f, 360.0f, 0},
    {AL_CONE_OUTER_ANGLE, offsetof(alh_source_t, cone_out), 0.0f, 360.0f, 0},
    {AL_CONE_OUTER_GAIN, offsetof(alh_source_t, cone_out_gain), 0.0f, 1.0f, 0},
};

/* The row of fprops for param, or -1. */
static int fprop(ALenum param) {
    for (int k = 0; k < (int)(sizeof fprops / sizeof fprops[0]); k++)
        if (fprops[k].param == param) return k;
    return -1;
}
static float *fprop_at(alh_source_t *s, int k) {
    return (float *)((char *)s + fprops[k].off);
}

static void source_setfv(ALCcontext *c, alh_source_t *s, ALenum param, const ALfloat *v) {
    const float x = v[0];
    int k;
    switch (param) {
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
    default:
        if ((k = fprop(param)) < 0) {
            alh_set_error(c, AL_INVALID_ENUM);
            return;
        }
        const int low = fprops[k].above ? !(x > fprops[k].min) : !(x >= fprops[k].min);
        if (low || x > fprops[k].max) goto bad;
        *fprop_at(s, k) = x;
        break;
    }
    send_mix(s, 0);
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
        if (b && alh_queue_room(s, 1) < 0) {
            alh_set_error(c, AL_OUT_OF_MEMORY);
            return;
        }
        alh_queue_release(s);
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

/* A scalar setter given a vector parameter, or the reverse. Not locked. */
static void arity_error(ALuint source) {
    alh_lock();
    ALCcontext *c = alh_ctx();
    alh_set_error(c, alh_source_get(c, source) ? AL_INVALID_ENUM : AL_INVALID_NAME);
    alh_unlock();
}

ALH_EXPORT void AL_APIENTRY alSourcefv(ALuint source, ALenum param, const ALfloat *values) {
    ALH_ENTER();
    alh_source_t *s = alh_source_get(c, source);
    if (!s)
        alh_set_error(c, AL_INVALID_NAME);
    else if (!values)
        alh_set_error(c, AL_INVALID_VALUE);
    else
        source_setfv(c, s, param, values);
    ALH_LEAVE();
}
ALH_EXPORT void AL_APIENTRY alSourcef(ALuint source, ALenum param, ALfloat value) {
    if (fv_count(param) != 1) {
        arity_error(source);
        return;
    }
    alSourcefv(source, param, &value);
}
ALH_EXPORT void AL_APIENTRY alSource3f(ALuint source, ALenum param, ALfloat v1, ALfloat v2,
                                       ALfloat v3) {
    if (fv_count(param) != 3) {
        arity_error(source);
        return;
    }
    const ALfloat v[3] = {v1, v2, v3};
    alSourcefv(source, param, v);
}
ALH_EXPORT void AL_APIENTRY alSourceiv(ALuint source, ALenum param, const ALint *values) {
    ALH_ENTER();
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
    ALH_LEAVE();
}
ALH_EXPORT void AL_APIENTRY alSourcei(ALuint source, ALenum param, ALint value) {
    alSourceiv(source, param, &value);
}
ALH_EXPORT void AL_APIENTRY alSource3i(ALuint source, ALenum param, ALint v1, ALint v2, ALint v3) {
    const ALint v[3] = {v1, v2, v3};
    if (fv_count(param) != 3) {
        arity_error(source);
        return;
    }
    alSourceiv(source, param, v);
}

/* Every readable parameter as doubles; the count, 0 on error. */
static int source_get(ALCcontext *c, alh_source_t *s, ALenum param, double *v) {
    int k;
    switch (param) {
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
            const int p = alh_processed_count(s);
            v[0] = s->qn ? s->q[p < s->qn ? p : s->qn - 1].buf : 0;
        }
        return 1;
    case AL_SOURCE_STATE:
        alh_source_update(s);
        v[0] = s->state;
        return 1;
    case AL_SOURCE_TYPE: v[0] = s->type; return 1;
    case AL_BUFFERS_QUEUED: v[0] = s->qn; return 1;
    case AL_BUFFERS_PROCESSED:
        v[0] = s->type == AL_STREAMING ? alh_processed_count(s) : 0;
        return 1;
    case AL_SEC_OFFSET:
    case AL_SAMPLE_OFFSET:
    case AL_BYTE_OFFSET: {
        alh_source_update(s);
        double f = 0;
        if (s->state == AL_PLAYING) {
            /* the start frame is estimated until STARTED gives it: never back */
            f = alh_playing_offset(s, alh_now_frame(c->dev));
            if (!s->looping && f < s->off_hi) f = s->off_hi;
            s->off_hi = f;
        } else if (s->state == AL_PAUSED)
            f = s->paused_off;
        const alh_buffer_t *b = s->qn ? alh_qbuf(s, 0) : NULL;
        if (param == AL_SEC_OFFSET)
            v[0] = b && b->freq ? f / b->freq : 0.0;
        else if (param == AL_SAMPLE_OFFSET)
            v[0] = floor(f);
        else
            v[0] = floor(f) * (b ? b->al_channels * b->al_bits / 8 : 0);
        return 1;
    }
    default:
        if ((k = fprop(param)) < 0) {
            alh_set_error(c, AL_INVALID_ENUM);
            return 0;
        }
        v[0] = *fprop_at(s, k);
        return 1;
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

/* The getters: pointers ok, a parameter of `want` values (1, 3, or 0: any),
 * stored as floats (f) or integers (i). The count stored, 0 on an error. */
static int source_read(ALuint source, ALenum param, int ok, int want, ALfloat *f, ALint *i) {
    double v[3];
    int n = 0;
    alh_lock();
    if (!ok)
        alh_set_error(alh_ctx(), AL_INVALID_VALUE);
    else if (want && fv_count(param) != want)
        alh_set_error(alh_ctx(), AL_INVALID_ENUM);
    else
        n = source_getd(source, param, v);
    alh_unlock();
    for (int k = 0; k < n; k++)
        if (f)
            f[k] = (ALfloat)v[k];
        else
            i[k] = (ALint)v[k];
    return n;
}

/* The typed twins, each reading through source_read. */
ALH_EXPORT void AL_APIENTRY alGetSourcefv(ALuint source, ALenum param, ALfloat *values) {
    source_read(source, param, values != NULL, 0, values, NULL);
}
ALH_EXPORT void AL_APIENTRY alGetSourceiv(ALuint source, ALenum param, ALint *values) {
    source_read(source, param, values != NULL, 0, NULL, values);
}
ALH_EXPORT void AL_APIENTRY alGetSourcef(ALuint source, ALenum param, ALfloat *value) {
    source_read(source, param, value != NULL, 1, value, NULL);
}
ALH_EXPORT void AL_APIENTRY alGetSourcei(ALuint source, ALenum param, ALint *value) {
    source_read(source, param, value != NULL, 1, NULL, value);
}
ALH_EXPORT void AL_APIENTRY alGetSource3f(ALuint source, ALenum param, ALfloat *v1, ALfloat *v2,
                                          ALfloat *v3) {
    ALfloat v[3];
    if (source_read(source, param, v1 && v2 && v3, 3, v, NULL)) *v1 = v[0], *v2 = v[1], *v3 = v[2];
}
ALH_EXPORT void AL_APIENTRY alGetSource3i(ALuint source, ALenum param, ALint *v1, ALint *v2,
                                          ALint *v3) {
    ALint v[3];
    if (source_read(source, param, v1 && v2 && v3, 3, NULL, v)) *v1 = v[0], *v2 = v[1], *v3 = v[2];
}

/* ---- buffer queues ---- */

/* alSource(Un)QueueBuffers' arguments: the source, or NULL and the error. */
static alh_source_t *queue_args(ALCcontext *c, ALuint source, ALsizei nb, const ALuint *buffers) {
    alh_source_t *s = alh_source_get(c, source);
    if (!s) alh_set_error(c, AL_INVALID_NAME);
    return s && alh_array_ok(c, nb, buffers) ? s : NULL;
}

ALH_EXPORT void AL_APIENTRY alSourceQueueBuffers(ALuint source, ALsizei nb, const ALuint *buffers) {
    ALH_ENTER();
    alh_source_t *s = queue_args(c, source, nb, buffers);
    if (!s) ALH_LEAVE();
    if (s->type == AL_STATIC) {
        alh_set_error(c, AL_INVALID_OPERATION);
        ALH_LEAVE();
    }
    const alh_buffer_t *ref = s->qn ? alh_qbuf(s, 0) : NULL;
    for (ALsizei i = 0; i < nb; i++) {
        if (buffers[i] == 0) continue;
        const alh_buffer_t *b = alh_buffer_get(buffers[i]);
        if (!b || b->dev != c->dev) {
            alh_set_error(c, AL_INVALID_NAME);
            ALH_LEAVE();
        }
        if (!ref) ref = b;
        if (b->al_channels != ref->al_channels || b->al_bits != ref->al_bits ||
            b->freq != ref->freq) {
            alh_set_error(c, AL_INVALID_OPERATION); /* one format per queue */
            ALH_LEAVE();
        }
    }
    if (s->qn + nb > ALH_QMAX || alh_queue_room(s, s->qn + nb) < 0) {
        alh_set_error(c, AL_OUT_OF_MEMORY);
        ALH_LEAVE();
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
    if (s->state == AL_PLAYING) alh_spatialise(c, s, alh_source_channels(s), d->pan_law, &m);
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
            if (alh_voice_start(s, s->qn - 1, 0.0, tail, &m) == 0) tail += e->len;
        }
    }
    if (s->st) alh_stream_pump(s);
    if (s->state == AL_PLAYING) alh_flush(d);
    ALH_LEAVE();
}

ALH_EXPORT void AL_APIENTRY alSourceUnqueueBuffers(ALuint source, ALsizei nb, ALuint *buffers) {
    ALH_ENTER();
    alh_source_t *s = queue_args(c, source, nb, buffers);
    if (!s) ALH_LEAVE();
    if (nb == 0) ALH_LEAVE();
    if (s->type != AL_STREAMING || nb > alh_processed_count(s)) {
        alh_set_error(c, AL_INVALID_VALUE);
        ALH_LEAVE();
    }
    double removed = 0;
    for (ALsizei i = 0; i < nb; i++) {
        alh_buffer_t *b = alh_qbuf(s, i);
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
    if (s->qn == 0) s->type = AL_UNDETERMINED;
    ALH_LEAVE();
}
