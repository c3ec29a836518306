/*
 * al_queue.c - heliod's OpenAL library: a source as data. Its record in the
 * id table and its buffer queue: storage grown as needed, the references
 * it holds on its buffers, and the frame counts along it. No daemon here.
 */
#include <stdlib.h>

#include "al_src.h"

alh_source_t *alh_source_get(ALCcontext *c, ALuint id) {
    if (id == 0 || id > ALH_MAX_SOURCES || !g_al.src) return NULL;
    alh_source_t *s = &g_al.src[id - 1];
    return s->used && s->ctx == c ? s : NULL;
}

int alh_sources_ok(ALCcontext *c, ALsizei n, const ALuint *ids) {
    if (!alh_array_ok(c, n, ids)) return 0;
    for (ALsizei i = 0; i < n; i++)
        if (!alh_source_get(c, ids[i])) {
            alh_set_error(c, AL_INVALID_NAME);
            return 0;
        }
    return 1;
}

int alh_queue_room(alh_source_t *s, int n) {
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

void alh_queue_release(alh_source_t *s) {
    for (int i = 0; i < s->qn; i++) {
        alh_buffer_t *b = alh_qbuf(s, i);
        if (b && b->refs > 0) b->refs--;
    }
    s->qn = 0;
}

double alh_queue_frames(const alh_source_t *s, int i) {
    double t = 0;
    for (int k = 0; k <= i && k < s->qn; k++) {
        const alh_buffer_t *b = alh_qbuf(s, k);
        t += b ? b->frames : 0;
    }
    return t;
}

int alh_source_channels(const alh_source_t *s) {
    for (int i = 0; i < s->qn; i++) {
        const alh_buffer_t *b = alh_qbuf(s, i);
        if (b && b->channels) return b->channels;
    }
    return 1;
}

double alh_entry_ratio(const alh_source_t *s, int i, float pitch) {
    const alh_buffer_t *b = alh_qbuf(s, i);
    if (!b || !b->eng_frames) return pitch;
    return (double)pitch * (double)b->frames / (double)b->eng_frames;
}
