/*
 * al_buffer.c - heliod's OpenAL library: buffers. alBufferData uploads the
 * PCM once, as a WAV image in memory (heliod_load_memory: a sealed memfd),
 * into a daemon sound of this connection that every source playing the
 * buffer shares. The PCM is also kept here, to upload it again when the
 * library reconnects to a restarted daemon.
 */
#include <AL/alext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

alh_buffer_t *alh_buffer_get(ALuint id) {
    if (id == 0 || id > ALH_MAX_BUFFERS || !g_al.buf) return NULL;
    alh_buffer_t *b = g_al.buf[id - 1];
    return b && b->used ? b : NULL;
}

static alh_buffer_t *buffer_in(ALCcontext *c, ALuint id) {
    alh_buffer_t *b = alh_buffer_get(id);
    return b && b->dev == c->dev ? b : NULL;
}

ALH_EXPORT void AL_APIENTRY alGenBuffers(ALsizei n, ALuint *buffers) {
    ENTER();
    if (n < 0 || (n > 0 && !buffers)) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    ALsizei got = 0;
    for (ALuint i = 0; i < ALH_MAX_BUFFERS && got < n; i++) {
        if (g_al.buf[i]) continue;
        alh_buffer_t *b = calloc(1, sizeof *b);
        if (!b) break;
        b->used = 1;
        b->dev = c->dev;
        b->id = i + 1;
        g_al.buf[i] = b;
        buffers[got++] = b->id;
    }
    if (got < n) { /* all or nothing */
        for (ALsizei i = 0; i < got; i++) {
            free(g_al.buf[buffers[i] - 1]);
            g_al.buf[buffers[i] - 1] = NULL;
        }
        alh_set_error(c, AL_OUT_OF_MEMORY);
    }
    LEAVE();
}

static void buffer_unload(alh_buffer_t *b) {
    if (b->uploaded && b->dev->h) alh_conn_check(b->dev, heliod_unload(b->dev->h, b->sound));
    b->uploaded = 0;
}

ALH_EXPORT void AL_APIENTRY alDeleteBuffers(ALsizei n, const ALuint *buffers) {
    ENTER();
    if (n < 0 || (n > 0 && !buffers)) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    for (ALsizei i = 0; i < n; i++) {
        if (buffers[i] == 0) continue;
        alh_buffer_t *b = buffer_in(c, buffers[i]);
        if (!b) {
            alh_set_error(c, AL_INVALID_NAME);
            LEAVE();
        }
        if (b->refs > 0) {
            alh_set_error(c, AL_INVALID_OPERATION);
            LEAVE();
        }
    }
    for (ALsizei i = 0; i < n; i++) {
        alh_buffer_t *b = buffer_in(c, buffers[i]);
        if (!b) continue;
        buffer_unload(b);
        free(b->data);
        g_al.buf[b->id - 1] = NULL;
        free(b);
    }
    LEAVE();
}

void alh_buffers_drop_device(ALCdevice *d) {
    for (ALuint i = 0; i < ALH_MAX_BUFFERS && g_al.buf; i++) {
        alh_buffer_t *b = g_al.buf[i];
        if (!b || b->dev != d) continue;
        free(b->data);
        free(b);
        g_al.buf[i] = NULL;
    }
}

ALH_EXPORT ALboolean AL_APIENTRY alIsBuffer(ALuint buffer) {
    ENTER(AL_FALSE);
    const ALboolean r = buffer == 0 || buffer_in(c, buffer) ? AL_TRUE : AL_FALSE;
    LEAVE(r);
}

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v) {
    put16(p, (uint16_t)v), put16(p + 2, (uint16_t)(v >> 16));
}

int alh_buffer_upload(alh_buffer_t *b) {
    ALCdevice *d = b->dev;
    if (!d->h) return HELIOD_ECLOSED;
    if (b->frames == 0) return 0; /* nothing to play: a source ends at once */
    const size_t bytes = (size_t)b->frames * (size_t)b->channels * (size_t)(b->bits / 8);
    uint8_t *wav = malloc(44 + bytes);
    if (!wav) return HELIOD_ENOMEM;
    const uint16_t fmt = b->bits == 32 ? 3 : 1; /* IEEE float, else PCM */
    memcpy(wav, "RIFF", 4);
    put32(wav + 4, (uint32_t)(36 + bytes));
    memcpy(wav + 8, "WAVEfmt ", 8);
    put32(wav + 16, 16);
    put16(wav + 20, fmt);
    put16(wav + 22, (uint16_t)b->channels);
    put32(wav + 24, (uint32_t)b->freq);
    put32(wav + 28, (uint32_t)b->freq * (uint32_t)(b->channels * b->bits / 8));
    put16(wav + 32, (uint16_t)(b->channels * b->bits / 8));
    put16(wav + 34, (uint16_t)b->bits);
    memcpy(wav + 36, "data", 4);
    put32(wav + 40, (uint32_t)bytes);
    memcpy(wav + 44, b->data, bytes);
    b->gen++;
    snprintf(b->sound, sizeof b->sound, "al.%d.b%u.%u", (int)getpid(), b->id, b->gen);
    if (d->suspended) heliod_bundle_end(d->h, NULL); /* a blocking call: close the bundle */
    heliod_sound_info_t info;
    int rc = heliod_load_memory(d->h, b->sound, wav, 44 + bytes, 0, &info);
    if (d->suspended && d->h && heliod_bundle_begin(d->h) != 0) d->suspended = 0;
    free(wav);
    if (rc < 0) {
        alh_conn_check(d, rc);
        return rc;
    }
    b->eng_frames = info.frames;
    b->uploaded = 1;
    return 0;
}

void alh_buffers_reupload(ALCdevice *d) {
    for (ALuint i = 0; i < ALH_MAX_BUFFERS && g_al.buf; i++) {
        alh_buffer_t *b = g_al.buf[i];
        if (b && b->dev == d && b->frames) {
            b->uploaded = 0;
            if (alh_buffer_upload(b) < 0 && !d->h) return;
        }
    }
}

ALH_EXPORT void AL_APIENTRY alBufferData(ALuint buffer, ALenum format, const ALvoid *data,
                                         ALsizei size, ALsizei freq) {
    ENTER();
    alh_buffer_t *b = buffer_in(c, buffer);
    if (!b) {
        alh_set_error(c, AL_INVALID_NAME);
        LEAVE();
    }
    int ch, bits;
    switch (format) {
    case AL_FORMAT_MONO8: ch = 1, bits = 8; break;
    case AL_FORMAT_MONO16: ch = 1, bits = 16; break;
    case AL_FORMAT_STEREO8: ch = 2, bits = 8; break;
    case AL_FORMAT_STEREO16: ch = 2, bits = 16; break;
    case AL_FORMAT_MONO_FLOAT32: ch = 1, bits = 32; break;
    case AL_FORMAT_STEREO_FLOAT32: ch = 2, bits = 32; break;
    default: alh_set_error(c, AL_INVALID_ENUM); LEAVE();
    }
    const int fsz = ch * bits / 8;
    if (size < 0 || freq < 1 || (size > 0 && !data) || size % fsz != 0) {
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    if (size > 0 && (freq < 8000 || freq > 384000)) { /* the daemon's decodable rates */
        alh_set_error(c, AL_INVALID_VALUE);
        LEAVE();
    }
    if (b->refs > 0) { /* in use by a source: its storage may not change */
        alh_set_error(c, AL_INVALID_OPERATION);
        LEAVE();
    }
    void *copy = size ? malloc((size_t)size) : NULL;
    if (size && !copy) {
        alh_set_error(c, AL_OUT_OF_MEMORY);
        LEAVE();
    }
    if (size) memcpy(copy, data, (size_t)size);
    buffer_unload(b);
    free(b->data);
    b->data = copy;
    b->size = (size_t)size;
    b->channels = ch;
    b->bits = bits;
    b->freq = freq;
    b->frames = (uint32_t)(size / fsz);
    b->eng_frames = 0;
    int rc = alh_buffer_upload(b);
    if (rc == HELIOD_ENOMEM) alh_set_error(c, AL_OUT_OF_MEMORY);
    /* a daemon away: the data is kept and uploaded when it is back */
    LEAVE();
}

static int buffer_param(ALCcontext *c, ALuint buffer, ALenum param, ALint *v) {
    alh_buffer_t *b = buffer_in(c, buffer);
    if (!b) {
        alh_set_error(c, AL_INVALID_NAME);
        return 0;
    }
    switch (param) {
    case AL_FREQUENCY: *v = b->freq; return 1;
    case AL_BITS: *v = b->bits; return 1;
    case AL_CHANNELS: *v = b->channels ? b->channels : 1; return 1;
    case AL_SIZE: *v = (ALint)b->size; return 1;
    default: alh_set_error(c, AL_INVALID_ENUM); return 0;
    }
}

ALH_EXPORT void AL_APIENTRY alGetBufferi(ALuint buffer, ALenum param, ALint *value) {
    ENTER();
    ALint v;
    if (!value)
        alh_set_error(c, AL_INVALID_VALUE);
    else if (buffer_param(c, buffer, param, &v))
        *value = v;
    LEAVE();
}
ALH_EXPORT void AL_APIENTRY alGetBufferiv(ALuint buffer, ALenum param, ALint *values) {
    alGetBufferi(buffer, param, values);
}
ALH_EXPORT void AL_APIENTRY alGetBuffer3i(ALuint buffer, ALenum param, ALint *v1, ALint *v2,
                                          ALint *v3) {
    ENTER();
    (void)v1, (void)v2, (void)v3;
    alh_set_error(c, buffer_in(c, buffer) ? AL_INVALID_ENUM : AL_INVALID_NAME);
    (void)param;
    LEAVE();
}
ALH_EXPORT void AL_APIENTRY alGetBufferf(ALuint buffer, ALenum param, ALfloat *value) {
    ENTER();
    (void)value, (void)param; /* no float buffer parameter in 1.1 */
    alh_set_error(c, buffer_in(c, buffer) ? AL_INVALID_ENUM : AL_INVALID_NAME);
    LEAVE();
}
ALH_EXPORT void AL_APIENTRY alGetBuffer3f(ALuint buffer, ALenum param, ALfloat *v1, ALfloat *v2,
                                          ALfloat *v3) {
    (void)v2, (void)v3;
    alGetBufferf(buffer, param, v1);
}
ALH_EXPORT void AL_APIENTRY alGetBufferfv(ALuint buffer, ALenum param, ALfloat *values) {
    alGetBufferf(buffer, param, values);
}
/* No settable buffer parameter in OpenAL 1.1. */
static void buffer_set_bad(ALuint buffer) {
    ENTER();
    alh_set_error(c, buffer_in(c, buffer) ? AL_INVALID_ENUM : AL_INVALID_NAME);
    LEAVE();
}
ALH_EXPORT void AL_APIENTRY alBufferf(ALuint buffer, ALenum param, ALfloat value) {
    (void)param, (void)value;
    buffer_set_bad(buffer);
}
ALH_EXPORT void AL_APIENTRY alBuffer3f(ALuint buffer, ALenum param, ALfloat v1, ALfloat v2,
                                       ALfloat v3) {
    (void)param, (void)v1, (void)v2, (void)v3;
    buffer_set_bad(buffer);
}
ALH_EXPORT void AL_APIENTRY alBufferfv(ALuint buffer, ALenum param, const ALfloat *values) {
    (void)param, (void)values;
    buffer_set_bad(buffer);
}
ALH_EXPORT void AL_APIENTRY alBufferi(ALuint buffer, ALenum param, ALint value) {
    (void)param, (void)value;
    buffer_set_bad(buffer);
}
ALH_EXPORT void AL_APIENTRY alBuffer3i(ALuint buffer, ALenum param, ALint v1, ALint v2, ALint v3) {
    (void)param, (void)v1, (void)v2, (void)v3;
    buffer_set_bad(buffer);
}
ALH_EXPORT void AL_APIENTRY alBufferiv(ALuint buffer, ALenum param, const ALint *values) {
    (void)param, (void)values;
    buffer_set_bad(buffer);
}
