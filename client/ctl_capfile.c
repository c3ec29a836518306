/*
 * ctl_capfile.c - a session capture's records (ctl_capfile.h).
 */
#include "ctl_capfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl_proto.h"

uint64_t ctl_cap_le(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}
#define g16(p) ((uint16_t)ctl_cap_le(p, 2))
#define g32(p) ((uint32_t)ctl_cap_le(p, 4))
#define g64(p) ctl_cap_le(p, 8)

uint64_t ctl_cap_grid(uint32_t rate, uint32_t period) {
    uint64_t tick = (uint64_t)rate * CTL_CAP_RANK_MS / 1000, a = tick, b = period ? period : 1;
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return tick / a * (period ? period : 1);
}

uint64_t ctl_cap_fnv(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int ctl_cap_read(const char *path, uint8_t **buf, size_t *n, ctl_cap_hdr_t *h, char *why,
                 size_t cap) {
    *buf = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    const char *w = NULL;
    if (fd < 0 || fstat(fd, &st) != 0)
        w = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        w = "not a regular file";
    else if ((uint64_t)st.st_size > CTL_CAP_MAX_BYTES)
        w = "larger than 4 GiB";
    uint8_t *b = w ? NULL : malloc((size_t)st.st_size + 1);
    size_t got = 0;
    if (!w && !b) w = "out of memory";
    while (b && got < (size_t)st.st_size) {
        ssize_t k = read(fd, b + got, (size_t)st.st_size - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    if (fd >= 0) close(fd);
    if (!w && got != (size_t)st.st_size) w = "read error";
    if (!w && (got < CTL_CAP_HDR || memcmp(b, CTL_CAP_MAGIC, 8) != 0))
        w = "not a heliod capture file";
    if (!w && (g16(b + 8) < 1 || g16(b + 8) > CTL_CAP_VERSION))
        w = "a capture format this build does not know";
    if (w) {
        snprintf(why, cap, "%s", w);
        free(b);
        return -1;
    }
    h->version = g16(b + 8);
    h->rate = g32(b + 12);
    h->frame = g64(b + 16);
    *buf = b;
    *n = got;
    return 0;
}

int ctl_cap_next(const uint8_t *f, size_t n, size_t *off, ctl_cap_rec_t *r) {
    memset(r, 0, sizeof *r);
    if (*off >= n) return 0;
    if (n - *off < 8) return -1;
    uint32_t len = g32(f + *off);
    const uint8_t *p = f + *off + 4;
    if (len < 4 || len > n - *off - 4) return -1;
    *off += 4 + (size_t)len;
    r->kind = p[0];
    r->flags = p[1];
    switch (p[0]) {
    case CTL_CAP_REQUEST:
        if (len < 28 + HL_FRAME_HDR || g32(p + 28) != len - 28) return -1;
        r->frame = g64(p + 4);
        r->time_ns = g64(p + 12);
        r->client = g32(p + 20);
        r->status = (int32_t)g32(p + 24);
        r->req = p + 28;
        r->req_len = len - 28;
        break;
    case CTL_CAP_SOUND:
        if (len < 42 || len < 42u + g16(p + 40)) return -1;
        r->client = g32(p + 4);
        r->frame = g64(p + 8);
        r->size = g64(p + 16);
        r->mtime_ns = (int64_t)g64(p + 24);
        r->hash = g64(p + 32);
        r->path_len = g16(p + 40);
        r->path = (const char *)p + 42;
        if (r->flags & CTL_CAP_AUDIO) {
            if (42u + r->path_len + r->size != len) return -1;
            r->audio = p + 42 + r->path_len;
        }
        break;
    case CTL_CAP_TRAILER:
        if (len < 28) return -1;
        r->records = g64(p + 4);
        r->dropped = g64(p + 12);
        r->bytes = g64(p + 20);
        r->end = len >= 36 ? g64(p + 28) : 0;
        break;
    case CTL_CAP_REPLY:
    case CTL_CAP_MREPLY:
        if (len < 12) return -1;
        r->voice = g64(p + 4);
        break;
    case CTL_CAP_SESSION:
        if (len < 20) return -1;
        r->period = g32(p + 4);
        r->channels = g32(p + 8);
        r->rng = g64(p + 12);
        break;
    case CTL_CAP_CLOSE:
        if (len < 16) return -1;
        r->frame = g64(p + 4);
        r->client = g32(p + 12);
        break;
    case CTL_CAP_PROCESS:
        if (len < 12) return -1;
        r->client = g32(p + 4);
        r->process = g32(p + 8);
        break;
    default: r->flags = 0; break; /* REQUEST, CLOSE: CTL_CAP_INPERIOD */
    }
    return 1;
}

int ctl_cap_check_sound(const ctl_cap_rec_t *s, const char *path, int *mtime_differs, char *why,
                        size_t cap) {
    *mtime_differs = 0;
    const char *w = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    uint64_t h = CTL_CAP_FNV0, got = 0;
    if (fd < 0 || fstat(fd, &st) != 0)
        w = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        w = "not a regular file";
    else if ((uint64_t)st.st_size != s->size)
        w = "its size differs from the capture's: the file changed since";
    if (!w) {
        uint8_t buf[65536];
        for (;;) {
            ssize_t k = read(fd, buf, sizeof buf);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break;
            h = ctl_cap_fnv(h, buf, (size_t)k);
            got += (uint64_t)k;
        }
        if (got != s->size || h != s->hash) w = "its content differs from the capture's (hash)";
    }
    if (fd >= 0) close(fd);
    if (w) {
        snprintf(why, cap, "%s", w);
        return -1;
    }
    *mtime_differs = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec != s->mtime_ns;
    return 0;
}

#define REMAP(T, field, cond)                                                                      \
    do {                                                                                           \
        hl_##T##_t m;                                                                              \
        hl_get_##T(&rd, &m);                                                                       \
        if (hl_rbuf_finish(&rd) != 0 || !(cond)) return 0;                                         \
        uint64_t v = map(user, m.field);                                                           \
        if (v == m.field) return 0;                                                                \
        m.field = v;                                                                               \
        hl_put_##T(&w, &m);                                                                        \
    } while (0)
int ctl_cap_remap(uint16_t op, const uint8_t *body, size_t len, ctl_cap_map_fn map, void *user,
                  uint8_t *out, size_t *out_len) {
    hl_rbuf_t rd;
    hl_rbuf_init(&rd, body, len);
    hl_wbuf_t w;
    hl_wbuf_init(&w, out, HL_MAX_FRAME);
    switch (op) {
    case HL_OP_STOP: REMAP(stop, voice, 1); break;
    case HL_OP_SET: REMAP(set, voice, 1); break;
    case HL_OP_PLAY: REMAP(play, sync_voice, m.sync_on != HL_SYNC_NONE); break;
    case HL_OP_PARAM: REMAP(param, voice, m.scope == HL_PSCOPE_VOICE); break;
    case HL_OP_CONE: REMAP(cone, voice, m.target == HL_CONE_VOICE); break;
    case HL_OP_ATTEN: REMAP(atten, voice, m.target == HL_CONE_VOICE); break;
    default: return 0;
    }
    if (w.err) return 0;
    *out_len = w.len;
    return 1;
}
#undef REMAP
