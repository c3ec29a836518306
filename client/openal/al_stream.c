/*
 * al_stream.c - heliod's OpenAL library: a buffer queue played on one
 * client-fed stream. The library copies the queued buffers into the
 * stream's ring (at once, and from the event thread as room appears) and
 * counts processed buffers and offsets from the ring's consumed counter.
 * Against a daemon without streams a queue plays one voice per buffer
 * (al_voice.c).
 */
#include <stdlib.h>

#include "al_src.h"

void alh_stream_pump(alh_source_t *s) {
    while (s->st && s->st_wi < s->qn) {
        const alh_buffer_t *b = alh_qbuf(s, s->st_wi);
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

double alh_stream_pos(const alh_source_t *s) {
    const double p = (double)(int64_t)heliod_stream_consumed(s->st) - (double)s->st_base;
    return p > 0 ? p : 0;
}

int alh_stream_start(alh_source_t *s, int first, double in, double from, const alh_voice_mix_t *m) {
    ALCdevice *d = s->ctx->dev;
    const alh_buffer_t *b = alh_qbuf(s, first);
    if (!b || !b->freq || getenv("HELIOD_OPENAL_NO_STREAMS")) return -1;
    heliod_stream_params_t p;
    heliod_stream_params_init(&p);
    p.rate = (uint32_t)b->freq;
    p.channels = (uint32_t)b->channels;
    p.format = b->bits == 32   ? HELIOD_STREAM_F32
               : b->bits == 16 ? HELIOD_STREAM_S16
                               : HELIOD_STREAM_U8;
    p.frames = (uint32_t)b->freq / 2; /* half a second of room; the event thread tops it up */
    p.play.gain_db = alh_db(m->gain);
    p.play.pan = m->pan;
    p.play.pitch = alh_clamp_pitch(m->pitch);
    p.play.fade_in_ms = 0.0f;
    if (d->pan_law && b->channels == 1 && !m->hrtf) p.play.flags |= HELIOD_PLAY_PAN_OPENAL;
    alh_hrtf_params(&p.play, m);
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
    alh_stream_pump(s);
    return 0;
}
