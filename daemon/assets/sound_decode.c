/*
 * sound_decode.c - a sound file into PCM at the engine rate (see sounds.h):
 * opening it safely, checking its description against the caps, decoding
 * against the sample budget and the client's quota, sanitizing, downmixing
 * and resampling; a file named by path or an upload (in memory or a
 * descriptor) read through libsndfile's virtual I/O. Any thread: the
 * loader's workers (sounds.c), the banks and the stream decoder use it.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sndfile.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl_layout.h"
#include "hl_limits.h"
#include "hld_limits.h"
#include "hugemem.h"
#include "sounds.h"

/* ---- libsndfile virtual I/O over an upload ---------------------------------- */

static sf_count_t vio_len(void *u) {
    return (sf_count_t)((hld_vio_t *)u)->len;
}
static sf_count_t vio_seek(sf_count_t off, int whence, void *u) {
    hld_vio_t *j = u;
    sf_count_t base = whence == SEEK_CUR   ? (sf_count_t)j->pos
                      : whence == SEEK_END ? (sf_count_t)j->len
                                           : 0;
    sf_count_t p = base + off;
    if (p < 0 || p > (sf_count_t)j->len) return -1;
    j->pos = (size_t)p;
    return p;
}
static sf_count_t vio_read(void *ptr, sf_count_t n, void *u) {
    hld_vio_t *j = u;
    size_t left = j->len - j->pos, k = n < 0 ? 0 : (size_t)n;
    if (k > left) k = left;
    memcpy(ptr, j->mem + j->pos, k);
    j->pos += k;
    return (sf_count_t)k;
}
/* pread, not mmap: a client that truncates its file while it is decoded
 * gets a short read (a decode error), never a SIGBUS in the daemon */
static sf_count_t vio_fd_read(void *ptr, sf_count_t n, void *u) {
    hld_vio_t *j = u;
    size_t left = j->len - j->pos, k = n < 0 ? 0 : (size_t)n, got = 0;
    if (k > left) k = left;
    while (got < k) {
        ssize_t r = pread(j->fd, (char *)ptr + got, k - got, (off_t)(j->base + j->pos + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    j->pos += got;
    return (sf_count_t)got;
}
static sf_count_t vio_write(const void *ptr, sf_count_t n, void *u) {
    (void)ptr, (void)n, (void)u;
    return 0; /* read only */
}
static sf_count_t vio_tell(void *u) {
    return (sf_count_t)((hld_vio_t *)u)->pos;
}

SNDFILE *hld_vio_open(hld_vio_t *v, SF_INFO *info) {
    SF_VIRTUAL_IO vio = {vio_len, vio_seek, v->mem ? vio_read : vio_fd_read, vio_write, vio_tell};
    v->pos = 0;
    return sf_open_virtual(&vio, SFM_READ, info, v); /* libsndfile copies vio */
}

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

int hld_sound_range_check(int fd, const char *path, uint64_t off, uint64_t len, uint64_t *size,
                          char *msg, size_t cap) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(msg, cap, "cannot read %s: %s", path, strerror(errno));
        return HELIOD_EFILE;
    }
    uint64_t fsize = (uint64_t)st.st_size;
    uint64_t n = len ? len : fsize > off ? fsize - off : 0;
    if (off >= fsize || n == 0 || off + n < off || off + n > fsize) {
        snprintf(msg, cap, "range: bytes %llu+%llu are outside %s (%llu bytes)",
                 (unsigned long long)off, (unsigned long long)len, path, (unsigned long long)fsize);
        return HELIOD_EINVAL;
    }
    *size = n;
    return 0;
}

int hld_sound_open_range(const char *path, uint64_t off, uint64_t len, uint64_t *size, char *msg,
                         size_t cap) {
    int fd = hld_sound_open(path, msg, cap);
    if (fd < 0) return fd;
    int rc = hld_sound_range_check(fd, path, off, len, size, msg, cap);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

/* ---- the sample-memory budget and the client's quota ------------------------ */

int hld_sounds_reserve(hld_sounds_t *s, uint64_t bytes) {
    uint64_t before = atomic_fetch_add_explicit(&s->committed, bytes, memory_order_relaxed);
    if (before + bytes > s->max_bytes || before + bytes < before) {
        atomic_fetch_sub_explicit(&s->committed, bytes, memory_order_relaxed);
        return -1;
    }
    return 0;
}

void hld_sounds_unreserve(hld_sounds_t *s, uint64_t bytes) {
    atomic_fetch_sub_explicit(&s->committed, bytes, memory_order_relaxed);
}

/* The decode's share of the budget: reserve before allocating, give back. */
/* Reserves against the daemon's budget, then the client's quota: 0, or
 * HELIOD_ENOMEM (the daemon is full) / HELIOD_EQUOTA (this client has its
 * share) with nothing reserved. */
static int reserve(hld_decode_t *d, uint64_t bytes) {
    if (d->budget && hld_sounds_reserve(d->budget, bytes) != 0) return HELIOD_ENOMEM;
    if (d->quota && hld_client_reserve_bytes(d->quota, bytes) != 0) {
        if (d->budget) hld_sounds_unreserve(d->budget, bytes);
        return HELIOD_EQUOTA;
    }
    d->reserved += bytes;
    return 0;
}

void hld_decode_unreserve(hld_decode_t *d, uint64_t bytes) {
    if (bytes > d->reserved) bytes = d->reserved;
    if (d->budget) hld_sounds_unreserve(d->budget, bytes);
    if (d->quota) hld_client_unreserve_bytes(d->quota, bytes);
    d->reserved -= bytes;
}

#define OVER_CAP_MSG   "over the sample memory limit (--max-sample-mb)"
#define OVER_QUOTA_MSG "client quota: over this client's sample memory (--client-sample-mb)"

int hld_decode_fail(hld_decode_t *d, int status, const char *fmt, const char *detail) {
    d->status = status;
    snprintf(d->msg, sizeof d->msg, fmt, detail);
    hld_huge_free(d->data);
    d->data = NULL;
    hld_blob_unref(d->blob);
    d->blob = NULL;
    hld_decode_unreserve(d, d->reserved);
    return status;
}

uint64_t hld_sanitize(float *x, size_t n) {
    uint64_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        if (!(fabsf(v) <= HLD_MAX_SAMPLE)) { /* NaN, Inf, or finite beyond the bound */
            x[i] = isfinite(v) ? copysignf(HLD_MAX_SAMPLE, v) : 0.0f;
            bad++;
        }
    }
    return bad;
}

int hld_sound_check_info(const SF_INFO *info, int stream, char *msg, size_t cap) {
    if (info->channels < 1) {
        snprintf(msg, cap, "no audio in the file");
        return HELIOD_EDECODE;
    }
    if (info->channels > HLD_MAX_SRC_CHANNELS) {
        snprintf(msg, cap, "%d channels: at most %d are accepted", info->channels,
                 HLD_MAX_SRC_CHANNELS);
        return HELIOD_ETOOBIG;
    }
    if (info->samplerate < HLD_MIN_SRC_RATE || info->samplerate > HLD_MAX_SRC_RATE) {
        snprintf(msg, cap, "sample rate %d Hz outside %d..%d Hz", info->samplerate,
                 HLD_MIN_SRC_RATE, HLD_MAX_SRC_RATE);
        return HELIOD_EDECODE;
    }
    if (info->frames < 0 || info->frames == SF_COUNT_MAX) {
        snprintf(msg, cap, "the file's length is unknown");
        return HELIOD_EDECODE;
    }
    if (info->frames == 0) {
        snprintf(msg, cap, "cannot decode: no frames");
        return HELIOD_EDECODE;
    }
    uint64_t secs = stream ? HLD_MAX_STREAM_SECONDS : HL_MAX_SOUND_SECONDS;
    if ((uint64_t)info->frames > (uint64_t)info->samplerate * secs) {
        snprintf(msg, cap, "longer than the %s limit (%llu s)", stream ? "stream" : "preload",
                 (unsigned long long)secs);
        return HELIOD_ETOOBIG;
    }
    return 0;
}

/* The BS.775 stereo rows (L then R, HL_LAYOUT_MAX_CH each) of 5.0 (FL FR
 * FC BL BR) and 6.1 (FL FR FC LFE BC SL SR), the WAVE layouts of 5 and 7
 * channels: FC and the surrounds at 0.7071, 6.1's back centre at 0.7071
 * into each surround first (0.5 into each side), LFE dropped. */
static void rows_5_7(uint32_t ch, float *m) {
    const float k = (float)M_SQRT1_2;
    float *l = m, *r = m + HL_LAYOUT_MAX_CH;
    memset(m, 0, sizeof(float) * HL_LAYOUT_MAX_CH * 2);
    l[0] = r[1] = 1.0f;
    l[2] = r[2] = k;
    if (ch == 5) {
        l[3] = r[4] = k;
    } else {
        l[4] = r[4] = 0.5f;
        l[5] = r[6] = k;
    }
}

/* Downmix to stereo, in place (out never overtakes in). 4, 6, 8 and 12
 * channels are quad, 5.1, 7.1 and 7.1.4 in WAVE order and take the ITU-R
 * BS.775 matrix (hl_layout_downmix): L = FL + 0.7071 FC + 0.7071 BL (7.1:
 * its side and back pairs each at 0.7071 first; 7.1.4: each top speaker at
 * 0.7071 into the one below it first), R likewise, LFE dropped; 5 and 7
 * are 5.0 and 6.1 (rows_5_7); the result is bounded to +-HLD_MAX_SAMPLE
 * like every loaded sample. Other counts (3, 9 to 11) keep the older rule:
 * WAVE order, C at 0.7071 into both sides, channel 3 (LFE) dropped, the
 * others alternately left and right, each side normalised by its summed
 * weights. */
void hld_downmix(float *d, uint32_t frames, uint32_t ch) {
    int lay = hl_layout_for_channels(ch);
    if (lay > HL_LAYOUT_STEREO || ch == 5 || ch == 7) {
        float m[HL_LAYOUT_MAX_CH * HL_LAYOUT_MAX_CH];
        if (lay > HL_LAYOUT_STEREO)
            hl_layout_downmix((hl_layout_t)lay, HL_LAYOUT_STEREO, m);
        else
            rows_5_7(ch, m);
        const float *ml = m, *mr = m + HL_LAYOUT_MAX_CH;
        for (uint32_t f = 0; f < frames; f++) {
            const float *in = d + (size_t)f * ch;
            float l = 0, r = 0;
            for (uint32_t k = 0; k < ch; k++) {
                l += ml[k] * in[k];
                r += mr[k] * in[k];
            }
            d[(size_t)f * 2] = fminf(fmaxf(l, -HLD_MAX_SAMPLE), HLD_MAX_SAMPLE);
            d[(size_t)f * 2 + 1] = fminf(fmaxf(r, -HLD_MAX_SAMPLE), HLD_MAX_SAMPLE);
        }
        return;
    }
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

uint32_t hld_fold_channels(uint32_t ch, uint32_t layout) {
    const uint32_t och = hl_layout_channels((hl_layout_t)layout);
    if (ch <= 2) return ch;
    return och > 2 && hl_layout_for_channels(ch) > HL_LAYOUT_STEREO ? och : 2;
}

uint32_t hld_fold_matrix(uint32_t ch, uint32_t layout, float *m) {
    const uint32_t och = hld_fold_channels(ch, layout);
    if (och <= 2) return och;
    const hl_layout_t from = (hl_layout_t)hl_layout_for_channels(ch), to = (hl_layout_t)layout;
    if (ch >= och) {
        hl_layout_downmix(from, to, m); /* from == to: the identity */
        return och;
    }
    /* a narrower file on a wider layout: each speaker to the same speaker */
    memset(m, 0, sizeof(float) * HL_LAYOUT_MAX_CH * HL_LAYOUT_MAX_CH);
    for (uint32_t i = 0; i < ch; i++) {
        int o = hl_layout_channel_of(to, hl_layout_speaker(from, i));
        if (o >= 0) m[(uint32_t)o * HL_LAYOUT_MAX_CH + i] = 1.0f;
    }
    return och;
}

/* For each WAVE-order channel, its index in an Ogg file (Vorbis I
 * section 4.3.9, also Opus's mapping family 1): 3 = L C R, 5 = FL C FR BL
 * BR (WAVE 5.0: FL FR FC BL BR), 6 = FL C FR BL BR LFE, 7 = FL C FR SL SR
 * BC LFE (WAVE 6.1: FL FR FC LFE BC SL SR), 8 = FL C FR SL SR BL BR LFE.
 * 0: the count keeps its order (4 is the same in both; more than 8 has no
 * Vorbis order). */
static const uint8_t k_ogg_src[HL_LAYOUT_MAX_CH + 1][HL_LAYOUT_MAX_CH] = {
    [3] = {0, 2, 1},
    [5] = {0, 2, 1, 3, 4},
    [6] = {0, 2, 1, 5, 3, 4},
    [7] = {0, 2, 1, 6, 5, 3, 4},
    [8] = {0, 2, 1, 7, 5, 6, 3, 4},
};

int hld_ogg_order(const SF_INFO *info) {
    const int ch = info->channels;
    return (info->format & SF_FORMAT_TYPEMASK) == SF_FORMAT_OGG && ch > 0 &&
           ch <= HL_LAYOUT_MAX_CH && k_ogg_src[ch][1] != 0;
}

void hld_ogg_to_wave(float *d, uint32_t frames, uint32_t ch) {
    if (ch > HL_LAYOUT_MAX_CH || !k_ogg_src[ch][1]) return;
    const uint8_t *src = k_ogg_src[ch];
    for (uint32_t f = 0; f < frames; f++) {
        float *x = d + (size_t)f * ch, y[HL_LAYOUT_MAX_CH];
        for (uint32_t c = 0; c < ch; c++)
            y[c] = x[src[c]];
        memcpy(x, y, ch * sizeof(float));
    }
}

void hld_fold_frames(float *d, uint32_t frames, uint32_t ch, uint32_t layout) {
    float m[HL_LAYOUT_MAX_CH * HL_LAYOUT_MAX_CH];
    if (ch <= 2) return;
    const uint32_t och = hld_fold_matrix(ch, layout, m);
    if (och == 2) {
        hld_downmix(d, frames, ch);
        return;
    }
    if (och == ch && hl_layout_for_channels(ch) == (int)layout) return; /* same speakers */
    for (uint32_t i = 0; i < frames; i++) { /* a frame at a time, so the output never */
        const uint32_t f = och > ch ? frames - 1 - i : i; /* overtakes the input */
        const float *in = d + (size_t)f * ch;
        float y[HL_LAYOUT_MAX_CH];
        for (uint32_t o = 0; o < och; o++) {
            float v = 0.0f;
            for (uint32_t k = 0; k < ch; k++)
                v += m[o * HL_LAYOUT_MAX_CH + k] * in[k];
            y[o] = fminf(fmaxf(v, -HLD_MAX_SAMPLE), HLD_MAX_SAMPLE);
        }
        memcpy(d + (size_t)f * och, y, och * sizeof(float));
    }
}

/* The decoded frames folded to the output layout (hld_fold_channels):
 * returns the (possibly new) buffer, NULL when out of memory (d->data then
 * still holds the input). Bounded to +-HLD_MAX_SAMPLE like every sample. */
static float *fold(float *d, uint32_t frames, uint32_t ch, uint32_t layout) {
    const uint32_t och = hld_fold_channels(ch, layout);
    if (och > ch) { /* a wider layout: the buffer grows first, the fold runs backwards */
        float *w = hld_huge_realloc(HLD_HUGE_SAMPLES, d, (size_t)frames * ch * sizeof(float),
                                    (size_t)frames * och * sizeof(float));
        if (!w) return NULL;
        d = w;
    }
    hld_fold_frames(d, frames, ch, layout);
    return d;
}

static int marker_cmp(const void *a, const void *b) {
    const hld_marker_t *x = a, *y = b;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The file's cue points and their labels (libsndfile reads the `cue ` chunk
 * and LIST adtl `labl` names), positions in the sound's units: engine
 * frames for a preload (rate converted), source frames for a stream. On the
 * decode's thread, from the open file: no other I/O. Best effort: a file
 * without them, or no memory, leaves none. */
static void read_markers(hld_decode_t *d, SNDFILE *sf, const SF_INFO *info) {
    d->markers = NULL;
    d->nmarkers = 0;
    SF_CUES *cues = malloc(sizeof *cues);
    if (!cues) return;
    if (sf_command(sf, SFC_GET_CUE, cues, sizeof *cues) == SF_TRUE && cues->cue_count > 0) {
        uint32_t n = cues->cue_count < HLD_MAX_MARKERS ? cues->cue_count : HLD_MAX_MARKERS;
        d->markers = calloc(n, sizeof *d->markers);
        for (uint32_t i = 0; d->markers && i < n; i++) {
            const SF_CUE_POINT *c = &cues->cue_points[i];
            uint64_t pos = c->sample_offset;
            if (!d->stream && (uint32_t)info->samplerate != d->rate)
                pos = (uint64_t)llround((double)pos * d->rate / info->samplerate);
            if ((sf_count_t)c->sample_offset >= info->frames) continue; /* past the end */
            hld_marker_t *m = &d->markers[d->nmarkers++];
            m->pos = pos;
            m->id = (uint32_t)c->indx;
            size_t k = 0; /* a printable label of at most HL_MAX_NAME bytes */
            for (const char *t = c->name; *t && k < HL_MAX_NAME && t < c->name + sizeof c->name;
                 t++)
                m->label[k++] = (*t >= 0x20 && *t < 0x7f) ? *t : '?';
            m->label[k] = '\0';
        }
        if (d->markers) qsort(d->markers, d->nmarkers, sizeof *d->markers, marker_cmp);
        if (d->markers && d->nmarkers == 0) {
            free(d->markers);
            d->markers = NULL;
        }
    }
    free(cues);
}

/* A compressed sound's prefetched head (decoder.h): its first frames,
 * decoded from the start of sf as a stream reads them (chunk by chunk), up
 * to HLD_HEAD_FRAMES and HLD_HEAD_MAX_BYTES, charged to the budget and the
 * quota before they are allocated; kept with the blob. *first: what the
 * first read returned (<= 0: nothing decoded, as the probe's). Returns 0,
 * or the failure (d failed). */
static int read_head(hld_decode_t *d, SNDFILE *sf, const SF_INFO *info, sf_count_t *first) {
    hld_blob_t *b = d->blob;
    uint32_t ch = (uint32_t)info->channels;
    uint64_t n = HLD_HEAD_MAX_BYTES / (ch * sizeof(float));
    if (n > HLD_HEAD_FRAMES) n = HLD_HEAD_FRAMES;
    if (n > (uint64_t)info->frames) n = (uint64_t)info->frames;
    int rr = reserve(d, n * ch * sizeof(float));
    if (rr != 0) {
        d->wanted = d->reserved + n * ch * sizeof(float); /* a retry reserves the bytes too */
        return hld_decode_fail(d, rr, "%s", rr == HELIOD_EQUOTA ? OVER_QUOTA_MSG : OVER_CAP_MSG);
    }
    b->head = malloc(n * ch * sizeof(float));
    if (!b->head) return hld_decode_fail(d, HELIOD_ENOMEM, "%s", "out of memory");
    b->info = *info;
    *first = 0;
    uint64_t done = 0;
    while (done < n) {
        uint64_t want = n - done < HLD_STREAM_CHUNK ? n - done : HLD_STREAM_CHUNK;
        sf_count_t got = sf_readf_float(sf, b->head + done * ch, (sf_count_t)want);
        if (done == 0) *first = got;
        if (got <= 0) break;
        done += (uint64_t)got;
    }
    b->head_frames = (uint32_t)done;
    b->head_whole = done < n || done == (uint64_t)info->frames;
    return 0;
}

/* Streamed load: the first chunk must decode; nothing is kept but the
 * description (the caps were checked) and, for a compressed sound, its
 * prefetched head. */
static int stream_probe(hld_decode_t *d, SNDFILE *sf, const SF_INFO *info) {
    uint32_t ch = (uint32_t)info->channels;
    sf_count_t got = 0;
    if (d->blob) {
        int rc = read_head(d, sf, info, &got);
        if (rc < 0) return rc;
    } else {
        float *buf = malloc((size_t)HLD_STREAM_CHUNK * ch * sizeof(float));
        if (!buf) return hld_decode_fail(d, HELIOD_ENOMEM, "%s", "out of memory");
        got = sf_readf_float(sf, buf, HLD_STREAM_CHUNK);
        free(buf);
    }
    int err = sf_error(sf);
    if (got <= 0 || err != SF_ERR_NO_ERROR)
        return hld_decode_fail(d, HELIOD_EDECODE, "cannot decode: %s",
                               err != SF_ERR_NO_ERROR ? sf_error_number(err) : "no frames");
    d->src_channels = ch;
    d->channels = ch > 2 ? 2 : ch;
    d->source_rate = (uint32_t)info->samplerate;
    d->src_frames = (uint64_t)info->frames;
    uint64_t eng = (uint64_t)ceil((double)info->frames * d->rate / info->samplerate);
    d->frames = eng > UINT32_MAX ? UINT32_MAX : (uint32_t)eng;
    read_markers(d, sf, info);
    d->status = 0;
    return 0;
}

int hld_decode_sndfile(hld_decode_t *d, SNDFILE *sf, const SF_INFO *info) {
    d->data = NULL;
    d->nonfinite = 0;
    char m[HL_MAX_MSG + 1];
    int rc = hld_sound_check_info(info, d->stream, m, sizeof m);
    if (rc < 0) return hld_decode_fail(d, rc, "%s", m);
    if (d->stream) return stream_probe(d, sf, info);
    /* the caps bound every size below: frames <= 384000 x 3600, 8 channels */
    uint32_t ch = (uint32_t)info->channels, och = hld_fold_channels(ch, d->layout);
    uint32_t srate = (uint32_t)info->samplerate;
    size_t cap = (size_t)info->frames;
    uint64_t dec_bytes = (uint64_t)cap * ch * sizeof(float);
    size_t olen = srate != d->rate ? (size_t)ceil((double)cap * d->rate / srate) + 1
                  : och > ch       ? cap /* a wider layout: the fold's own buffer */
                                   : 0;
    uint64_t out_bytes = (uint64_t)olen * och * sizeof(float);
    /* the whole decoded size (and the resampler's output beside it) is
     * reserved before the first byte is allocated or read */
    /* a fold to a wider layout holds its buffer (cap x och) while resampling */
    const uint64_t want = (och > ch ? (uint64_t)cap * och * sizeof(float) : dec_bytes) + out_bytes;
    int rr = reserve(d, want);
    if (rr != 0) {
        d->wanted = want;
        return hld_decode_fail(d, rr, "%s", rr == HELIOD_EQUOTA ? OVER_QUOTA_MSG : OVER_CAP_MSG);
    }
    /* sample memory on huge pages (hugemem.h), after the reservation */
    d->data = hld_huge_alloc(HLD_HUGE_SAMPLES, dec_bytes);
    if (!d->data) return hld_decode_fail(d, HELIOD_ENOMEM, "%s", "out of memory decoding");
    size_t n = 0;
    while (n < cap) {
        sf_count_t want = (sf_count_t)(cap - n);
        if (want > HLD_DECODE_CHUNK) want = HLD_DECODE_CHUNK;
        if (d->cancel && atomic_load_explicit(d->cancel, memory_order_relaxed))
            return hld_decode_fail(d, HELIOD_ECANCELED, "%s", "load cancelled");
        sf_count_t got = sf_readf_float(sf, d->data + n * ch, want);
        if (got <= 0) break;
        n += (size_t)got;
    }
    int err = sf_error(sf);
    if (err != SF_ERR_NO_ERROR || n == 0)
        return hld_decode_fail(d, HELIOD_EDECODE, "cannot decode: %s",
                               n == 0 ? "no frames" : sf_error_number(err));
    d->nonfinite = hld_sanitize(d->data, n * ch);
    if (hld_ogg_order(info)) hld_ogg_to_wave(d->data, (uint32_t)n, ch);
    if (ch > 2) {
        float *f = fold(d->data, (uint32_t)n, ch, d->layout);
        if (!f) return hld_decode_fail(d, HELIOD_ENOMEM, "%s", "out of memory folding channels");
        d->data = f;
        ch = och;
    }
    d->source_rate = srate;
    if (srate != d->rate) {
        olen = (size_t)ceil((double)n * d->rate / srate) + 1;
        float *out = hld_huge_alloc(HLD_HUGE_SAMPLES, olen * ch * sizeof(float));
        if (!out) return hld_decode_fail(d, HELIOD_ENOMEM, "%s", "out of memory resampling");
        soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
        soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0);
        size_t odone = 0;
        soxr_error_t se =
            soxr_oneshot(srate, d->rate, ch, d->data, n, NULL, out, olen, &odone, &io, &q, NULL);
        hld_huge_free(d->data);
        d->data = out;
        if (se || odone == 0)
            return hld_decode_fail(d, HELIOD_EDECODE, "resampling failed: %s",
                                   se ? se : "no output");
        n = odone;
        d->nonfinite += hld_sanitize(d->data, n * ch); /* finite in, finite out; cheap */
    }
    float *shrunk = hld_huge_realloc(HLD_HUGE_SAMPLES, d->data, n * ch * sizeof(float),
                                     n * ch * sizeof(float)); /* shrinks in place */
    if (shrunk) d->data = shrunk;
    hld_decode_unreserve(d, d->reserved - (uint64_t)n * ch * sizeof(float)); /* keep what is kept */
    d->frames = (uint32_t)n;
    d->channels = ch;
    d->src_channels = (uint32_t)info->channels;
    d->src_frames = (uint64_t)info->frames;
    read_markers(d, sf, info);
    d->status = 0;
    return 0;
}

/* Decodes a file libsndfile opened (sf NULL: it did not) and closes it. */
static int decode_opened(hld_decode_t *d, SNDFILE *sf, SF_INFO *info) {
    if (!sf) /* sf_strerror(NULL) reads a buffer shared by every thread: the code is not */
        return hld_decode_fail(d, HELIOD_EDECODE, "cannot decode: %s",
                               sf_error_number(sf_error(NULL)));
    hld_decode_sndfile(d, sf, info);
    sf_close(sf);
    return d->status;
}

/* Opens path for a decode, with the open's checks: the descriptor, or < 0
 * with d failed with the reason. */
static int open_for(hld_decode_t *d, const char *path) {
    char m[HL_MAX_MSG + 1];
    int fd = hld_sound_open(path, m, sizeof m);
    return fd < 0 ? hld_decode_fail(d, fd, "%s", m) : fd;
}

int hld_decode_upload(hld_decode_t *d, const uint8_t *mem, int fd, size_t len) {
    hld_vio_t j = {.mem = mem, .fd = fd, .len = len};
    SF_INFO info = {0};
    SNDFILE *sf = hld_vio_open(&j, &info);
    return decode_opened(d, sf, &info);
}

int hld_decode_fd(hld_decode_t *d, int fd) {
    if (lseek(fd, 0, SEEK_SET) != 0)
        return hld_decode_fail(d, HELIOD_EFILE, "cannot read the file: %s", strerror(errno));
    SF_INFO info = {0};
    SNDFILE *sf = sf_open_fd(fd, SFM_READ, &info, SF_FALSE);
    return decode_opened(d, sf, &info);
}

int hld_decode_path(hld_decode_t *d, const char *path) {
    int fd = open_for(d, path);
    if (fd < 0) return fd;
    SF_INFO info = {0};
    SNDFILE *sf = sf_open_fd(fd, SFM_READ, &info, SF_TRUE);
    return decode_opened(d, sf, &info);
}

int hld_decode_fd_range(hld_decode_t *d, int fd, const char *path, uint64_t off, uint64_t len) {
    if (!off && !len) return hld_decode_fd(d, fd);
    char m[HL_MAX_MSG + 1];
    uint64_t n = 0;
    int rc = hld_sound_range_check(fd, path, off, len, &n, m, sizeof m);
    if (rc < 0) return hld_decode_fail(d, rc, "%s", m);
    hld_vio_t v = {.fd = fd, .base = off, .len = (size_t)n};
    SF_INFO info = {0};
    SNDFILE *sf = hld_vio_open(&v, &info);
    return decode_opened(d, sf, &info);
}

int hld_decode_path_range(hld_decode_t *d, const char *path, uint64_t off, uint64_t len) {
    if (!off && !len) return hld_decode_path(d, path);
    int fd = open_for(d, path);
    if (fd < 0) return fd;
    hld_decode_fd_range(d, fd, path, off, len);
    close(fd);
    return d->status;
}

int hld_decode_compressed_fd(hld_decode_t *d, int fd, const char *path, uint64_t off,
                             uint64_t len) {
    char m[HL_MAX_MSG + 1];
    uint64_t n = 0;
    int rc = hld_sound_range_check(fd, path, off, len, &n, m, sizeof m);
    if (rc < 0) return hld_decode_fail(d, rc, "%s", m);
    if (n > HL_MAX_UPLOAD) {
        snprintf(m, sizeof m, "%llu encoded bytes: a compressed sound holds at most %llu",
                 (unsigned long long)n, (unsigned long long)HL_MAX_UPLOAD);
        return hld_decode_fail(d, HELIOD_ETOOBIG, "%s", m);
    }
    int rr = reserve(d, sizeof(hld_blob_t) + n); /* charged before it is allocated */
    if (rr != 0) {
        d->wanted = sizeof(hld_blob_t) + n;
        return hld_decode_fail(d, rr, "%s", rr == HELIOD_EQUOTA ? OVER_QUOTA_MSG : OVER_CAP_MSG);
    }
    hld_blob_t *b = malloc(sizeof *b + (size_t)n);
    if (!b) {
        return hld_decode_fail(d, HELIOD_ENOMEM, "%s", "out of memory");
    }
    atomic_init(&b->refs, 1);
    b->len = (size_t)n;
    b->head = NULL;
    b->head_frames = 0;
    b->head_whole = 0;
    d->blob = b;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, b->data + got, (size_t)n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got < n) return hld_decode_fail(d, HELIOD_EFILE, "cannot read %s: short read", path);
    hld_vio_t v = {.mem = b->data, .fd = -1, .len = b->len};
    SF_INFO info = {0};
    SNDFILE *sf = hld_vio_open(&v, &info);
    return decode_opened(d, sf, &info); /* d->stream: check and probe the first chunk */
}

int hld_decode_compressed(hld_decode_t *d, const char *path, uint64_t off, uint64_t len) {
    int fd = open_for(d, path);
    if (fd < 0) return fd;
    hld_decode_compressed_fd(d, fd, path, off, len);
    close(fd);
    return d->status;
}
