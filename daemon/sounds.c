/*
 * sounds.c - named sound table (FNV-1a hashed chains) and the threadpool
 * loader (see sounds.h).
 *
 * The worker thread owns only its job: it opens, decodes, downmixes and
 * resamples into freshly allocated memory and reports a status and message.
 * Everything that touches the table (limits, insertion, removal) happens in
 * the completion on the main thread.
 */
#include "sounds.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sndfile.h>
#include <soxr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl_limits.h"
#include "hld_limits.h"
#include "decoder.h"
#include "log.h"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME  16777619u
#define MIB        (1024ull * 1024ull)

typedef struct {
    uv_work_t req;
    hld_sounds_t *s;
    hld_sound_t *snd; /* the placeholder */
    char path[HL_MAX_PATH + 1];
    uint32_t rate;
    uint64_t reserved; /* bytes this job holds in s->committed */
    hld_load_done_fn done;
    void *user;
    int stream;
    /* results */
    int status;
    char msg[HL_MAX_MSG + 1];
    float *data;
    uint32_t frames, channels, source_rate;
    uint64_t src_frames;
    uint32_t src_channels;
} load_job_t;

static uint32_t hash_name(const char *s) {
    uint32_t h = FNV_OFFSET;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * FNV_PRIME;
    return h & (HLD_SOUND_BUCKETS - 1);
}

void hld_sounds_init(hld_sounds_t *s, uv_loop_t *loop, uint32_t rate, uint32_t max_sample_mb) {
    memset(s, 0, sizeof *s);
    s->loop = loop;
    s->rate = rate;
    s->max_bytes = (uint64_t)max_sample_mb * MIB;
}

static void sound_free(hld_sound_t *snd) {
    free((void *)snd->pcm.data);
    free(snd->path);
    free(snd);
}

void hld_sounds_close(hld_sounds_t *s) {
    for (unsigned b = 0; b < HLD_SOUND_BUCKETS; b++) {
        hld_sound_t *n = s->buckets[b];
        while (n) {
            hld_sound_t *next = n->next;
            if (!n->loading) sound_free(n); /* a loading one is freed by its completion */
            n = next;
        }
        s->buckets[b] = NULL;
    }
    s->count = 0;
    s->bytes = 0;
}

hld_sound_t *hld_sounds_find(hld_sounds_t *s, const char *name) {
    for (hld_sound_t *n = s->buckets[hash_name(name)]; n; n = n->next)
        if (strcmp(n->name, name) == 0) return n;
    return NULL;
}

hld_sound_t *hld_sound_from_pcm(const hl_pcm_t *pcm) {
    return (hld_sound_t *)(void *)((char *)(void *)(uintptr_t)pcm - offsetof(hld_sound_t, pcm));
}

static void table_remove(hld_sounds_t *s, hld_sound_t *snd) {
    hld_sound_t **pp = &s->buckets[hash_name(snd->name)];
    while (*pp && *pp != snd)
        pp = &(*pp)->next;
    if (*pp) {
        *pp = snd->next;
        s->count--;
    }
}

/* ---- worker side ---------------------------------------------------------- */

int hld_sound_open(const char *path, char *msg, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        snprintf(msg, cap, "cannot open %s: %s", path, strerror(errno));
        return HELIOD_EFILE;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(msg, cap, "%s is not a regular file", path);
        close(fd);
        return HELIOD_EFILE;
    }
    if (st.st_size == 0) { /* also what /proc files report */
        snprintf(msg, cap, "%s is empty (0 bytes)", path);
        close(fd);
        return HELIOD_EDECODE;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        snprintf(msg, cap, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return HELIOD_EFILE;
    }
    return fd;
}

/* Reserves bytes of the sample budget before allocating them: 0, or -1 when
 * that would go over --max-sample-mb (counting the other running loads). */
static int reserve(load_job_t *j, uint64_t bytes) {
    uint64_t before = atomic_fetch_add_explicit(&j->s->committed, bytes, memory_order_relaxed);
    if (before + bytes > j->s->max_bytes) {
        atomic_fetch_sub_explicit(&j->s->committed, bytes, memory_order_relaxed);
        return -1;
    }
    j->reserved += bytes;
    return 0;
}

static void unreserve(load_job_t *j, uint64_t bytes) {
    if (bytes > j->reserved) bytes = j->reserved;
    atomic_fetch_sub_explicit(&j->s->committed, bytes, memory_order_relaxed);
    j->reserved -= bytes;
}

#define OVER_CAP_MSG "over the sample memory limit (--max-sample-mb)"

static void job_fail(load_job_t *j, int status, const char *fmt, const char *detail) {
    j->status = status;
    snprintf(j->msg, sizeof j->msg, fmt, detail);
    free(j->data);
    j->data = NULL;
}

/* Downmix to stereo with WAV channel order weights: L, R, C and surrounds;
 * LFE (channel 3) is dropped. In place: out never overtakes in. */
void hld_downmix(float *d, uint32_t frames, uint32_t ch) {
    const float c = (float)M_SQRT1_2;
    float wl = 0, wr = 0;
    for (uint32_t k = 0; k < ch; k++) {
        if (k == 3) continue;
        if (k == 2) {
            wl += c;
            wr += c;
        } else if (k % 2 == 0) {
            wl += 1;
        } else {
            wr += 1;
        }
    }
    for (uint32_t f = 0; f < frames; f++) {
        const float *in = d + (size_t)f * ch;
        float l = 0, r = 0;
        for (uint32_t k = 0; k < ch; k++) {
            if (k == 3) continue;
            if (k == 2) {
                l += c * in[k];
                r += c * in[k];
            } else if (k % 2 == 0) {
                l += in[k];
            } else {
                r += in[k];
            }
        }
        d[(size_t)f * 2] = l / wl;
        d[(size_t)f * 2 + 1] = r / wr;
    }
}

/* Streamed load: the length must be known (loops, seeks) and the first chunk
 * must decode; nothing is kept but the description. Closes sf. */
static void stream_probe(load_job_t *j, SNDFILE *sf, const SF_INFO *info) {
    uint32_t ch = (uint32_t)info->channels;
    float *buf = malloc((size_t)HLD_STREAM_CHUNK * ch * sizeof(float));
    sf_count_t got = buf ? sf_readf_float(sf, buf, HLD_STREAM_CHUNK) : 0;
    int err = sf_error(sf);
    free(buf);
    sf_close(sf);
    if (!buf) {
        job_fail(j, HELIOD_ENOMEM, "%s", "out of memory");
        return;
    }
    if (info->frames <= 0 || info->frames >= SF_COUNT_MAX / 2) {
        job_fail(j, HELIOD_EDECODE, "%s", "cannot stream: the file's length is unknown");
        return;
    }
    if (got <= 0 || err != SF_ERR_NO_ERROR) {
        job_fail(j, HELIOD_EDECODE, "cannot decode: %s",
                 err != SF_ERR_NO_ERROR ? sf_error_number(err) : "no frames");
        return;
    }
    j->src_channels = ch;
    j->channels = ch > 2 ? 2 : ch;
    j->source_rate = (uint32_t)info->samplerate;
    j->src_frames = (uint64_t)info->frames;
    uint64_t eng = (uint64_t)ceil((double)info->frames * j->rate / info->samplerate);
    j->frames = eng > UINT32_MAX ? UINT32_MAX : (uint32_t)eng;
    j->status = 0;
}

static void load_work(uv_work_t *req) {
    load_job_t *j = req->data;
    char m[HL_MAX_MSG + 1];
    int fd = hld_sound_open(j->path, m, sizeof m);
    if (fd < 0) {
        job_fail(j, fd, "%s", m);
        return;
    }
    SF_INFO info = {0};
    SNDFILE *sf = sf_open_fd(fd, SFM_READ, &info, SF_TRUE);
    if (!sf) {
        job_fail(j, HELIOD_EDECODE, "cannot decode: %s", sf_strerror(NULL));
        return;
    }
    if (info.channels < 1 || info.samplerate < 1) {
        sf_close(sf);
        job_fail(j, HELIOD_EDECODE, "%s", "no audio in the file");
        return;
    }
    uint32_t ch = (uint32_t)info.channels;
    if (j->stream) {
        stream_probe(j, sf, &info);
        return;
    }
    uint64_t max_frames = (uint64_t)info.samplerate * HL_MAX_SOUND_SECONDS;
    if (info.frames > 0 && (uint64_t)info.frames > max_frames) {
        sf_close(sf);
        job_fail(j, HELIOD_ETOOBIG, "%s", "longer than the preload limit (3600 s)");
        return;
    }
    size_t cap = HLD_DECODE_CHUNK, n = 0;
    if (info.frames > 0 && (uint64_t)info.frames < max_frames) cap = (size_t)info.frames + 1;
    if (reserve(j, (uint64_t)cap * ch * sizeof(float)) != 0) {
        sf_close(sf);
        job_fail(j, HELIOD_ENOMEM, "%s", OVER_CAP_MSG);
        return;
    }
    j->data = malloc(cap * ch * sizeof(float));
    for (;;) {
        if (!j->data) {
            sf_close(sf);
            job_fail(j, HELIOD_ENOMEM, "%s", "out of memory decoding");
            return;
        }
        if (n == cap) {
            if (cap >= max_frames) {
                sf_close(sf);
                job_fail(j, HELIOD_ETOOBIG, "%s", "longer than the preload limit (3600 s)");
                return;
            }
            if (reserve(j, (uint64_t)cap * ch * sizeof(float)) != 0) {
                sf_close(sf);
                job_fail(j, HELIOD_ENOMEM, "%s", OVER_CAP_MSG);
                return;
            }
            cap *= 2;
            float *nd = realloc(j->data, cap * ch * sizeof(float));
            if (!nd) free(j->data);
            j->data = nd;
            continue;
        }
        sf_count_t want = (sf_count_t)(cap - n);
        if (want > HLD_DECODE_CHUNK) want = HLD_DECODE_CHUNK;
        sf_count_t got = sf_readf_float(sf, j->data + n * ch, want);
        if (got <= 0) break;
        n += (size_t)got;
    }
    int err = sf_error(sf);
    sf_close(sf);
    if (err != SF_ERR_NO_ERROR || n == 0) {
        job_fail(j, HELIOD_EDECODE, "cannot decode: %s",
                 n == 0 ? "no frames" : sf_error_number(err));
        return;
    }
    if (ch > 2) {
        hld_downmix(j->data, (uint32_t)n, ch);
        ch = 2;
    }
    j->source_rate = (uint32_t)info.samplerate;
    if (j->source_rate != j->rate) {
        double ratio = (double)j->rate / j->source_rate;
        size_t olen = (size_t)ceil((double)n * ratio) + 1;
        uint64_t in_bytes = j->reserved; /* the decode buffer, freed below */
        if (reserve(j, (uint64_t)olen * ch * sizeof(float)) != 0) {
            job_fail(j, HELIOD_ENOMEM, "%s", OVER_CAP_MSG);
            return;
        }
        float *out = malloc(olen * ch * sizeof(float));
        if (!out) {
            job_fail(j, HELIOD_ENOMEM, "%s", "out of memory resampling");
            return;
        }
        soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
        soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0);
        size_t odone = 0;
        soxr_error_t se = soxr_oneshot(j->source_rate, j->rate, ch, j->data, n, NULL, out, olen,
                                       &odone, &io, &q, NULL);
        free(j->data);
        unreserve(j, in_bytes);
        j->data = out;
        if (se || odone == 0) {
            job_fail(j, HELIOD_EDECODE, "resampling failed: %s", se ? se : "no output");
            return;
        }
        n = odone;
    } else {
        float *shrunk = realloc(j->data, n * ch * sizeof(float));
        if (shrunk) j->data = shrunk;
    }
    j->frames = (uint32_t)n;
    j->channels = ch;
    j->status = 0;
}

/* ---- main thread ---------------------------------------------------------- */

static void load_after(uv_work_t *req, int status) {
    load_job_t *j = req->data;
    hld_sounds_t *s = j->s;
    hld_sound_t *snd = j->snd;
    s->inflight--;
    unreserve(j, j->reserved); /* what it holds now is counted below, as bytes */
    if (status == UV_ECANCELED) job_fail(j, HELIOD_ESHUTDOWN, "%s", "daemon is shutting down");
    size_t bytes = j->stream ? 0 : (size_t)j->frames * j->channels * sizeof(float);
    if (j->status == 0 && s->bytes + bytes > s->max_bytes)
        job_fail(j, HELIOD_ENOMEM, "%s", "over the sample memory limit (--max-sample-mb)");
    table_remove(s, snd);
    if (j->status == 0) {
        snd->pcm.data = j->data;
        snd->pcm.frames = j->frames;
        snd->pcm.channels = j->channels;
        snd->source_rate = j->source_rate;
        snd->src_frames = j->src_frames ? j->src_frames : j->frames;
        snd->src_channels = j->src_channels ? j->src_channels : j->channels;
        snd->bytes = bytes;
        snd->loading = 0;
        uint32_t h = hash_name(snd->name);
        snd->next = s->buckets[h];
        s->buckets[h] = snd;
        s->count++;
        s->bytes += bytes;
        atomic_fetch_add_explicit(&s->committed, bytes, memory_order_relaxed);
        hld_debug("loaded %s: %u frames, %u ch, %u Hz", snd->name, j->frames, j->channels,
                  j->source_rate);
        j->done(j->user, 0, NULL, snd);
    } else {
        s->loads_failed++;
        hld_info("load %s failed: %s", snd->name, j->msg);
        j->done(j->user, j->status, j->msg, NULL);
        free(snd->path);
        free(snd);
    }
    free(j);
}

int hld_sounds_load(hld_sounds_t *s, const char *name, const char *path, uint32_t flags,
                    hld_load_done_fn done, void *user, const char **msg) {
    if (!hl_name_valid(name)) {
        *msg = "sound names are 1..63 characters of A-Z a-z 0-9 _ . -";
        return HELIOD_ENAME;
    }
    if (flags & ~(uint32_t)HL_LOAD_STREAM) {
        *msg = "unknown load flags";
        return HELIOD_EINVAL;
    }
    if (!path[0]) {
        *msg = "empty path";
        return HELIOD_EINVAL;
    }
    if (hld_sounds_find(s, name)) {
        *msg = "a sound with that name is already loaded";
        return HELIOD_EEXIST;
    }
    if (s->count >= HL_MAX_SOUNDS) {
        *msg = "too many sounds loaded";
        return HELIOD_ENOMEM;
    }
    if (!(flags & HL_LOAD_STREAM) && s->bytes >= s->max_bytes) {
        *msg = "over the sample memory limit (--max-sample-mb)";
        return HELIOD_ENOMEM;
    }
    if (s->inflight >= HL_MAX_LOADS_INFLIGHT) {
        *msg = "too many loads in progress, try again";
        return HELIOD_EBUSY;
    }
    load_job_t *j = calloc(1, sizeof *j);
    hld_sound_t *snd = calloc(1, sizeof *snd);
    if (!j || !snd) {
        free(j);
        free(snd);
        *msg = "out of memory";
        return HELIOD_ENOMEM;
    }
    snprintf(snd->name, sizeof snd->name, "%s", name);
    snd->loading = 1;
    snd->flags = flags;
    snd->stream = (flags & HL_LOAD_STREAM) != 0;
    snd->path = snd->stream ? strdup(path) : NULL;
    if (snd->stream && !snd->path) {
        free(j);
        free(snd);
        *msg = "out of memory";
        return HELIOD_ENOMEM;
    }
    j->stream = snd->stream;
    snprintf(j->path, sizeof j->path, "%s", path);
    j->s = s;
    j->snd = snd;
    j->rate = s->rate;
    j->done = done;
    j->user = user;
    j->req.data = j;
    if (uv_queue_work(s->loop, &j->req, load_work, load_after) != 0) {
        free(j);
        free(snd->path);
        free(snd);
        *msg = "cannot queue the decode job";
        return HELIOD_EIO;
    }
    uint32_t h = hash_name(name);
    snd->next = s->buckets[h];
    s->buckets[h] = snd;
    s->count++;
    s->inflight++;
    return 0;
}

int hld_sounds_unload(hld_sounds_t *s, const char *name) {
    hld_sound_t *snd = hld_sounds_find(s, name);
    if (!snd) return HELIOD_ENOSOUND;
    if (snd->playing || snd->mixing || snd->pending || snd->loading) return HELIOD_EINUSE;
    table_remove(s, snd);
    s->bytes -= snd->bytes;
    atomic_fetch_sub_explicit(&s->committed, snd->bytes, memory_order_relaxed);
    sound_free(snd);
    return 0;
}

void hld_sounds_foreach(hld_sounds_t *s, int (*fn)(void *user, const hld_sound_t *snd),
                        void *user) {
    for (unsigned b = 0; b < HLD_SOUND_BUCKETS; b++)
        for (hld_sound_t *n = s->buckets[b]; n; n = n->next)
            if (!n->loading && fn(user, n)) return;
}

void hld_sound_info(const hld_sound_t *snd, hl_sound_info_t *o) {
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", snd->name);
    o->frames = snd->pcm.frames;
    o->channels = (uint16_t)snd->pcm.channels;
    o->source_rate = snd->source_rate;
    o->flags = snd->flags;
    o->playing = snd->playing;
}
