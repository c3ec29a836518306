/*
 * al_buffer.c - heliod's OpenAL library: buffers. alBufferData uploads the
 * PCM once, as a WAV image in memory (heliod_load_memory: a sealed memfd),
 * into a daemon sound of this connection that every source playing the
 * buffer shares. The PCM is also kept here, to upload it again when the
 * library reconnects to a restarted daemon.
 */
#include <AL/alext.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "al_int.h"

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
    ALH_ENTER();
    if (!alh_array_ok(c, n, buffers)) ALH_LEAVE();
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
    ALH_LEAVE();
}

static void buffer_unload(alh_buffer_t *b) {
    if (b->uploaded && b->dev->h) alh_conn_check(b->dev, heliod_unload(b->dev->h, b->sound));
    b->uploaded = 0;
}

ALH_EXPORT void AL_APIENTRY alDeleteBuffers(ALsizei n, const ALuint *buffers) {
    ALH_ENTER();
    if (!alh_array_ok(c, n, buffers)) ALH_LEAVE();
    for (ALsizei i = 0; i < n; i++) {
        if (buffers[i] == 0) continue;
        alh_buffer_t *b = buffer_in(c, buffers[i]);
        if (!b) {
            alh_set_error(c, AL_INVALID_NAME);
            ALH_LEAVE();
        }
        if (b->refs > 0) {
            alh_set_error(c, AL_INVALID_OPERATION);
            ALH_LEAVE();
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
    ALH_LEAVE();
}

void alh_buffers_lost(ALCdevice *d) {
    for (ALuint i = 0; g_al.buf && i < ALH_MAX_BUFFERS; i++)
        if (g_al.buf[i] && g_al.buf[i]->dev == d) g_al.buf[i]->uploaded = 0;
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
    ALH_ENTER(AL_FALSE);
    const ALboolean r = buffer == 0 || buffer_in(c, buffer) ? AL_TRUE : AL_FALSE;
    ALH_LEAVE(r);
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
    /* process-wide: a buffer deleted and its id given again never reuses a
     * name the daemon may still hold (its unload is not synchronous with the
     * next load) */
    static _Atomic uint32_t uploads;
    b->gen = atomic_fetch_add(&uploads, 1u) + 1u;
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

/* AL_EXT_MCFORMATS: heliod's output is stereo, so a multichannel buffer is
 * downmixed once, here, to stereo float32 and plays as a stereo buffer
 * (passed through, never spatialised; OpenAL does not spatialise
 * multichannel buffers either). The coefficients are OpenAL Soft 1.19.1's
 * stereo output for each channel of each layout (measured on its loopback
 * device; tests/openal/mcformats.py checks them): its front pair at +-30
 * degrees plays on one side only (1, 0), the centre at its -4.5 dB pan law
 * (0.5957 each), LFE dropped, side channels (90 degrees) on their side
 * (1, 0), 5.1's surrounds at 110 degrees 0.9371, the 7.1 backs and REAR's
 * pair at 150 degrees (0.6672, 0.1672), quad's backs at 135 degrees
 * (0.7859, 0.0788), 6.1's back centre 0.4043 each. Like the ITU-R BS.775 downmix (front 1,
 * centre and surrounds about -3 dB, LFE dropped) it is not normalised: the
 * level is the one the program was mixed with on OpenAL Soft, and float
 * keeps sums above full scale (the daemon's limiter handles them). */
typedef struct {
    int ch;
    float w[8][2]; /* per input channel: to left, to right */
} mc_layout_t;

static const mc_layout_t mc_rear = {2, {{0.6672f, 0.1672f}, {0.1672f, 0.6672f}}};
static const mc_layout_t mc_quad = {4, {{1, 0}, {0, 1}, {0.7859f, 0.0788f}, {0.0788f, 0.7859f}}};
static const mc_layout_t mc_51 = {
    6, {{1, 0}, {0, 1}, {0.5957f, 0.5957f}, {0, 0}, {0.9371f, 0}, {0, 0.9371f}}};
static const mc_layout_t mc_61 = {
    7, {{1, 0}, {0, 1}, {0.5957f, 0.5957f}, {0, 0}, {0.4043f, 0.4043f}, {1, 0}, {0, 1}}};
static const mc_layout_t mc_71 = {8,
                                  {{1, 0},
                                   {0, 1},
                                   {0.5957f, 0.5957f},
                                   {0, 0},
                                   {0.6672f, 0.1672f},
                                   {0.1672f, 0.6672f},
                                   {1, 0},
                                   {0, 1}}};

/* Each layout's three formats, 8, 16 and 32 (float) bits, in that order
 * from the first. */
static const struct {
    ALenum first;
    const mc_layout_t *l;
} mc_formats[] = {{AL_FORMAT_REAR8, &mc_rear},
                  {AL_FORMAT_QUAD8, &mc_quad},
                  {AL_FORMAT_51CHN8, &mc_51},
                  {AL_FORMAT_61CHN8, &mc_61},
                  {AL_FORMAT_71CHN8, &mc_71}};

static const mc_layout_t *mc_format(ALenum format, int *bits) {
    for (size_t i = 0; i < sizeof mc_formats / sizeof mc_formats[0]; i++)
        if (format >= mc_formats[i].first && format < mc_formats[i].first + 3) {
            *bits = 8 << (format - mc_formats[i].first);
            return mc_formats[i].l;
        }
    return NULL;
}

/* n frames of l->ch channels (bits: 8 unsigned, 16 signed, 32 float) into
 * n stereo float frames. */
static void mc_downmix(const mc_layout_t *l, int bits, const void *in, float *out, uint32_t n) {
    for (uint32_t f = 0; f < n; f++) {
        float acc_l = 0.0f, acc_r = 0.0f;
        for (int k = 0; k < l->ch; k++) {
            const size_t i = (size_t)f * (size_t)l->ch + (size_t)k;
            float v;
            if (bits == 8)
                v = ((float)((const uint8_t *)in)[i] - 128.0f) / 128.0f;
            else if (bits == 16)
                v = (float)((const int16_t *)in)[i] / 32768.0f;
            else
                memcpy(&v, (const uint8_t *)in + i * 4, 4);
            acc_l += l->w[k][0] * v;
            acc_r += l->w[k][1] * v;
        }
        out[2 * (size_t)f] = acc_l;
        out[2 * (size_t)f + 1] = acc_r;
    }
}

ALH_EXPORT void AL_APIENTRY alBufferData(ALuint buffer, ALenum format, const ALvoid *data,
                                         ALsizei size, ALsizei freq) {
    ALH_ENTER();
    alh_buffer_t *b = buffer_in(c, buffer);
    if (!b) {
        alh_set_error(c, AL_INVALID_NAME);
        ALH_LEAVE();
    }
    int ch, bits = 0;
    const mc_layout_t *mc = NULL;
    switch (format) {
    case AL_FORMAT_MONO8: ch = 1, bits = 8; break;
    case AL_FORMAT_MONO16: ch = 1, bits = 16; break;
    case AL_FORMAT_STEREO8: ch = 2, bits = 8; break;
    case AL_FORMAT_STEREO16: ch = 2, bits = 16; break;
    case AL_FORMAT_MONO_FLOAT32: ch = 1, bits = 32; break;
    case AL_FORMAT_STEREO_FLOAT32: ch = 2, bits = 32; break;
    default:
        mc = mc_format(format, &bits);
        if (!mc) {
            alh_set_error(c, AL_INVALID_ENUM);
            ALH_LEAVE();
        }
        ch = mc->ch;
    }
    const int fsz = ch * bits / 8;
    if (size < 0 || freq < 1 || (size > 0 && !data) || size % fsz != 0) {
        alh_set_error(c, AL_INVALID_VALUE);
        ALH_LEAVE();
    }
    if (size > 0 && (freq < 8000 || freq > 384000)) { /* the daemon's decodable rates */
        alh_set_error(c, AL_INVALID_VALUE);
        ALH_LEAVE();
    }
    if (b->refs > 0) { /* in use by a source: its storage may not change */
        alh_set_error(c, AL_INVALID_OPERATION);
        ALH_LEAVE();
    }
    const uint32_t frames = (uint32_t)(size / fsz);
    const size_t keep = mc ? (size_t)frames * 2 * sizeof(float) : (size_t)size;
    void *copy = size ? malloc(keep) : NULL;
    if (size && !copy) {
        alh_set_error(c, AL_OUT_OF_MEMORY);
        ALH_LEAVE();
    }
    if (size && mc)
        mc_downmix(mc, bits, data, copy, frames);
    else if (size)
        memcpy(copy, data, (size_t)size);
    buffer_unload(b);
    free(b->data);
    b->data = copy;
    b->size = (size_t)size;
    b->al_channels = ch;
    b->al_bits = bits;
    b->channels = mc ? 2 : ch;
    b->bits = mc ? 32 : bits;
    b->freq = freq;
    b->frames = frames;
    b->eng_frames = 0;
    int rc = alh_buffer_upload(b);
    if (rc == HELIOD_ENOMEM) alh_set_error(c, AL_OUT_OF_MEMORY);
    /* a daemon away: the data is kept and uploaded when it is back */
    ALH_LEAVE();
}

static int buffer_param(ALCcontext *c, ALuint buffer, ALenum param, ALint *v) {
    alh_buffer_t *b = buffer_in(c, buffer);
    if (!b) {
        alh_set_error(c, AL_INVALID_NAME);
        return 0;
    }
    switch (param) {
    case AL_FREQUENCY: *v = b->freq; return 1;
    case AL_BITS: *v = b->al_bits ? b->al_bits : b->bits; return 1;
    case AL_CHANNELS:
        *v = b->al_channels ? b->al_channels : b->channels ? b->channels : 1;
        return 1;
    case AL_SIZE: *v = (ALint)b->size; return 1;
    default: alh_set_error(c, AL_INVALID_ENUM); return 0;
    }
}

ALH_EXPORT void AL_APIENTRY alGetBufferi(ALuint buffer, ALenum param, ALint *value) {
    ALH_ENTER();
    ALint v;
    if (!value)
        alh_set_error(c, AL_INVALID_VALUE);
    else if (buffer_param(c, buffer, param, &v))
        *value = v;
    ALH_LEAVE();
}
ALH_EXPORT void AL_APIENTRY alGetBufferiv(ALuint buffer, ALenum param, ALint *values) {
    alGetBufferi(buffer, param, values);
}
ALH_EXPORT void AL_APIENTRY alGetBuffer3i(ALuint buffer, ALenum param, ALint *v1, ALint *v2,
                                          ALint *v3) {
    ALH_ENTER();
    (void)v1, (void)v2, (void)v3;
    alh_set_error(c, buffer_in(c, buffer) ? AL_INVALID_ENUM : AL_INVALID_NAME);
    (void)param;
    ALH_LEAVE();
}
ALH_EXPORT void AL_APIENTRY alGetBufferf(ALuint buffer, ALenum param, ALfloat *value) {
    ALH_ENTER();
    (void)value, (void)param; /* no float buffer parameter in 1.1 */
    alh_set_error(c, buffer_in(c, buffer) ? AL_INVALID_ENUM : AL_INVALID_NAME);
    ALH_LEAVE();
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
    ALH_ENTER();
    alh_set_error(c, buffer_in(c, buffer) ? AL_INVALID_ENUM : AL_INVALID_NAME);
    ALH_LEAVE();
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
