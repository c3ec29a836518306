/*
 * replay.c - `heliod --render CAPTURE --out FILE.wav`: a session capture
 * (capture.c, PROTOCOL.md "Capture files") rendered offline, each request
 * applied on the engine frame it took effect on live, so a session with no
 * device underruns renders what its live --record holds, sample for sample.
 *
 * Each recorded client gets a connection of its own (render.c's in-process
 * connections), opened by its HELLO record and closed where it closed. A
 * request is sent in the period loop's pass before the period that starts
 * on its effect frame (the dispatch frame, or the next period's when the
 * audio thread was inside one: HLD_CAPTURE_REQ_INPERIOD); scheduled ones
 * carry their own frame, as they did. Replies are awaited before anything
 * later is sent (a bundle's at its end) and compared with the recorded
 * statuses: a difference is a divergence (reported, exit status 3). A
 * PLAY's reply maps the recorded voice handle to the replay's; later
 * requests naming it (STOP, SET, PARAM, CONE, ATTEN, a stinger's
 * sync_voice) are rewritten. A LOADed file must be the one captured (size
 * and hash; a different mtime alone is only noted), or its bytes are taken
 * from the capture (--capture-audio). CAPTURE, DEVICE and the descriptor
 * passing requests (LOAD_FD, STREAM) are not replayed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "log.h"
#include "render.h"
#include "render_int.h"
#include "vm.h"

#define REPLAY_MAX_BYTES (4ull << 30) /* a capture read whole: 4 GiB at most */
#define REPLAY_REPORT    10           /* divergences printed one by one */

typedef struct {
    uint8_t kind; /* HLD_CAPTURE_REC_REQUEST or _CLOSE */
    uint8_t flags;
    uint64_t frame; /* effect frame, from the render's frame 0 */
    uint32_t client;
    int32_t status;
    uint64_t voice;     /* REPLY: the handle the live reply named */
    const uint8_t *req; /* the request frame (header + body) */
    uint32_t req_len;
    char *path; /* LOAD: the file to load instead (the capture's bytes), or NULL */
} ev_t;

typedef struct {
    uint32_t id;
    uint16_t op;
    int32_t status;
    uint64_t voice;
    uint32_t ev;
} pend_t;

typedef struct client {
    uint32_t id;
    hld_rconn_t c;
    int bundle;
    pend_t *pend;
    size_t npend, cappend;
} client_t;

typedef struct {
    hld_daemon_t *d;
    uint8_t *file;
    ev_t *ev;
    size_t n, next;
    client_t **cl;
    size_t ncl;
    uint64_t *vmap; /* pairs: recorded handle, replay handle (open addressing) */
    size_t vcap, vn;
    uint64_t base, end;
    uint32_t diverged, skipped;
    int failed; /* an I/O error */
} replay_t;

static uint16_t g16(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t g32(const uint8_t *p) {
    return g16(p) | (uint32_t)g16(p + 2) << 16;
}
static uint64_t g64(const uint8_t *p) {
    return g32(p) | (uint64_t)g32(p + 4) << 32;
}

int hld_replay_is_capture(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return 0;
    struct stat st;
    char m[8];
    int yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, m, 8) == 8 &&
              memcmp(m, HLD_CAPTURE_MAGIC, 8) == 0;
    close(fd);
    return yes;
}

/* ---- voice handles ------------------------------------------------------------ */

static size_t vslot(const replay_t *r, uint64_t k) {
    uint64_t h = k * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & (r->vcap - 1);
    while (r->vmap[2 * i] && r->vmap[2 * i] != k)
        i = (i + 1) & (r->vcap - 1);
    return i;
}

static void vmap_put(replay_t *r, uint64_t rec, uint64_t now) {
    if (!rec) return;
    if (2 * (r->vn + 1) > r->vcap) {
        size_t ocap = r->vcap;
        uint64_t *old = r->vmap;
        size_t cap = ocap ? 2 * ocap : 1024;
        uint64_t *m = calloc(2 * cap, sizeof *m);
        if (!m) return;
        r->vmap = m;
        r->vcap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (old[2 * i]) {
                size_t j = vslot(r, old[2 * i]);
                r->vmap[2 * j] = old[2 * i];
                r->vmap[2 * j + 1] = old[2 * i + 1];
            }
        free(old);
    }
    size_t i = vslot(r, rec);
    if (!r->vmap[2 * i]) r->vn++;
    r->vmap[2 * i] = rec;
    r->vmap[2 * i + 1] = now;
}

/* The replay's handle for a recorded one (itself if no PLAY answered it). */
static uint64_t vmap_get(const replay_t *r, uint64_t rec) {
    if (!r->vcap || !rec) return rec;
    size_t i = vslot(r, rec);
    return r->vmap[2 * i] ? r->vmap[2 * i + 1] : rec;
}

/* Rewrites the voice handles body names (decode, map, encode); 0 if none
 * changed (body stays as it is), 1 if out holds the new body. */
#define REMAP(T, field, cond)                                                                      \
    do {                                                                                           \
        hl_##T##_t m;                                                                              \
        hl_get_##T(&rd, &m);                                                                       \
        if (hl_rbuf_finish(&rd) != 0 || !(cond)) return 0;                                         \
        uint64_t v = vmap_get(r, m.field);                                                         \
        if (v == m.field) return 0;                                                                \
        m.field = v;                                                                               \
        hl_put_##T(&w, &m);                                                                        \
    } while (0)
static int remap_voice(const replay_t *r, uint16_t op, const uint8_t *body, size_t len,
                       uint8_t *out, size_t *out_len) {
    if (!r->vn) return 0;
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

/* ---- the capture file ------------------------------------------------------- */

static uint8_t *read_whole(const char *path, size_t *n) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > REPLAY_MAX_BYTES) {
        if (fd >= 0) close(fd);
        return NULL;
    }
    uint8_t *b = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (b && got < (size_t)st.st_size) {
        ssize_t k = read(fd, b + got, (size_t)st.st_size - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fd);
    if (b && got != (size_t)st.st_size) {
        free(b);
        return NULL;
    }
    *n = got;
    return b;
}

static uint64_t fnv_add(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The LOAD's file is the one captured (SOUND record s), or its captured
 * bytes go to a file of ours (*tmp). 0, or -1 after saying why. */
static int check_sound(const char *cap, const ev_t *e, const uint8_t *s, uint32_t len, char **tmp) {
    hl_rbuf_t rd;
    hl_rbuf_init(&rd, e->req + HL_FRAME_HDR, e->req_len - HL_FRAME_HDR);
    hl_load_t m;
    hl_get_load(&rd, &m);
    uint8_t flags = s[1];
    uint64_t size = g64(s + 16), hash = g64(s + 32);
    int64_t mtime = (int64_t)g64(s + 24);
    uint16_t pl = g16(s + 40);
    if (flags & HLD_CAPTURE_SOUND_NOFILE) return 0; /* unreadable then: loaded as it is */
    if (flags & HLD_CAPTURE_SOUND_AUDIO) {
        const uint8_t *a = s + 42 + pl;
        if (42u + pl + size != len || fnv_add(1469598103934665603ull, a, size) != hash) {
            fprintf(stderr, "heliod: --render: %s: sound '%s': its captured bytes are damaged\n",
                    cap, m.name);
            return -1;
        }
        const char *dir = getenv("TMPDIR");
        char p[HL_MAX_PATH + 1];
        snprintf(p, sizeof p, "%s/heliod-replay-XXXXXX", dir && dir[0] == '/' ? dir : "/tmp");
        int fd = mkstemp(p);
        size_t put = 0;
        while (fd >= 0 && put < size) {
            ssize_t k = write(fd, a + put, size - put);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break;
            put += (size_t)k;
        }
        if (fd < 0 || put != size || close(fd) != 0) {
            fprintf(stderr, "heliod: --render: sound '%s': cannot write its bytes to %s: %s\n",
                    m.name, p, strerror(errno));
            if (fd >= 0) unlink(p);
            return -1;
        }
        *tmp = strdup(p);
        return *tmp ? 0 : -1;
    }
    const char *why = NULL;
    int fd = open(m.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    uint64_t h = 1469598103934665603ull, got = 0;
    if (fd < 0 || fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if ((uint64_t)st.st_size != size)
        why = "its size differs from the capture's: the file changed since";
    if (!why) {
        uint8_t buf[65536];
        for (;;) {
            ssize_t k = read(fd, buf, sizeof buf);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break;
            h = fnv_add(h, buf, (size_t)k);
            got += (uint64_t)k;
        }
        if (got != size || h != hash) why = "its content differs from the capture's (hash)";
    }
    if (fd >= 0) close(fd);
    if (why) {
        fprintf(stderr,
                "heliod: --render: %s: sound '%s' (%s): %s; a capture made with "
                "--capture-audio holds the bytes\n",
                cap, m.name, m.path, why);
        return -1;
    }
    int64_t now = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    if (now != mtime)
        hld_info("replay: sound '%s' (%s): same bytes, another mtime", m.name, m.path);
    return 0;
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Reads and checks the capture; the events in r. 0, or -1 after saying why. */
static int parse(replay_t *r, const char *path) {
    const hld_config_t *cfg = &r->d->cfg;
    size_t n = 0;
    r->file = read_whole(path, &n);
    if (!r->file) {
        fprintf(stderr, "heliod: --render: cannot read the capture '%s'\n", path);
        return -1;
    }
    const uint8_t *f = r->file;
    if (n < HLD_CAPTURE_HDR || g16(f + 8) != HLD_CAPTURE_VERSION) {
        fprintf(stderr, "heliod: --render: %s: capture format %u; this heliod replays %u\n", path,
                n < HLD_CAPTURE_HDR ? 0 : g16(f + 8), HLD_CAPTURE_VERSION);
        return -1;
    }
    uint32_t rate = g32(f + 12), period = 0, channels = 0;
    uint64_t frame0 = g64(f + 16);
    if (rate != cfg->rate) {
        fprintf(stderr, "heliod: --render: %s: captured at %u Hz: render with --rate %u\n", path,
                rate, rate);
        return -1;
    }
    size_t cap = 0;
    for (size_t off = HLD_CAPTURE_HDR; off < n;) {
        uint32_t len = off + 4 <= n ? g32(f + off) : 0;
        const uint8_t *p = f + off + 4;
        if (len < 4 || len > n - off - 4) {
            fprintf(stderr, "heliod: --render: %s: a record is cut short at byte %zu\n", path, off);
            return -1;
        }
        off += 4 + (size_t)len;
        if (p[0] == HLD_CAPTURE_REC_SESSION && len >= 20) {
            period = g32(p + 4);
            channels = g32(p + 8);
            if (g64(p + 12)) r->d->cues.rng = g64(p + 12); /* the cues' random state then */
            continue;
        }
        if (p[0] == HLD_CAPTURE_REC_TRAILER && len >= 36) {
            r->end = g64(p + 28);
            continue;
        }
        if (p[0] == HLD_CAPTURE_REC_REPLY && len >= 12 && r->n) {
            r->ev[r->n - 1].voice = g64(p + 4);
            continue;
        }
        if (p[0] == HLD_CAPTURE_REC_SOUND && len >= 42 && r->n &&
            g16(r->ev[r->n - 1].req + 4) == HL_OP_LOAD) {
            if (check_sound(path, &r->ev[r->n - 1], p, len, &r->ev[r->n - 1].path) != 0) return -1;
            continue;
        }
        int req =
            p[0] == HLD_CAPTURE_REC_REQUEST && len >= 28 + HL_FRAME_HDR && g32(p + 28) == len - 28;
        if (!req && !(p[0] == HLD_CAPTURE_REC_CLOSE && len >= 16)) continue; /* newer kinds */
        if (r->n == cap) {
            cap = cap ? 2 * cap : 1024;
            ev_t *ne = realloc(r->ev, cap * sizeof *ne);
            if (!ne) return -1;
            r->ev = ne;
        }
        ev_t *e = &r->ev[r->n++];
        memset(e, 0, sizeof *e);
        e->kind = p[0];
        e->frame = g64(p + 4);
        if (req) {
            e->flags = p[1];
            e->client = g32(p + 20);
            e->status = (int32_t)g32(p + 24);
            e->req = p + 28;
            e->req_len = len - 28;
            if (e->flags & HLD_CAPTURE_REQ_INPERIOD) e->frame += period;
        } else {
            e->client = g32(p + 12);
        }
    }
    if (!period || period != cfg->period || channels != cfg->channels) {
        fprintf(stderr,
                "heliod: --render: %s: captured with period %u and %u channels: render "
                "with --period %u%s\n",
                path, period, channels, period, channels == 2 ? "" : " and the capture's --layout");
        return -1;
    }
    /* the render starts on a frame of the ranking grid and of the periods
     * at or before the capture's start (0 for --capture) */
    uint64_t tick = (uint64_t)rate * HLD_VM_TICK_MS / 1000;
    uint64_t grid = tick / gcd64(tick, period) * period;
    r->base = frame0 / grid * grid;
    for (size_t i = 0; i < r->n; i++)
        r->ev[i].frame = r->ev[i].frame > r->base ? r->ev[i].frame - r->base : 0;
    r->end = r->end > r->base ? r->end - r->base : 0;
    if (r->base)
        hld_info("replay: the output starts at the capture's engine frame %llu",
                 (unsigned long long)r->base);
    return 0;
}

/* ---- sending ---------------------------------------------------------------- */

static void on_reply(void *user, hld_rconn_t *c, const hl_frame_hdr_t *h, const uint8_t *body,
                     size_t len);

static client_t *client_of(replay_t *r, uint32_t id, int create) {
    for (size_t i = 0; i < r->ncl; i++)
        if (r->cl[i]->id == id) return r->cl[i];
    if (!create) return NULL;
    client_t **ncl = realloc(r->cl, (r->ncl + 1) * sizeof *ncl);
    client_t *k = calloc(1, sizeof *k);
    if (!ncl || !k) {
        free(k);
        if (ncl) r->cl = ncl;
        return NULL;
    }
    r->cl = ncl;
    r->cl[r->ncl++] = k;
    k->id = id;
    k->c.fd = -1;
    k->c.quiet = 1;
    k->c.on_reply = on_reply;
    k->c.user = r;
    if (hld_rconn_open(r->d, &k->c) != 0) return NULL;
    return k;
}

static void diverge(replay_t *r, const ev_t *e, const char *what, int got) {
    if (r->diverged++ < REPLAY_REPORT)
        fprintf(stderr,
                "heliod: --render: replay diverges at frame %llu: client %u %s: %s (live: %s)\n",
                (unsigned long long)(e->frame + r->base), e->client,
                hl_op_name(g16(e->req + 4)) ? hl_op_name(g16(e->req + 4)) : "?", what,
                got ? hl_errname(got) : "ok");
}

static void on_reply(void *user, hld_rconn_t *c, const hl_frame_hdr_t *h, const uint8_t *body,
                     size_t len) {
    replay_t *r = user;
    if (h->op != HL_OP_REPLY) return;
    client_t *k = (client_t *)((uint8_t *)c - offsetof(client_t, c));
    size_t i = 0;
    while (i < k->npend && k->pend[i].id != h->id)
        i++;
    if (i == k->npend) return;
    pend_t p = k->pend[i];
    k->pend[i] = k->pend[--k->npend];
    hl_rbuf_t rd;
    hl_rbuf_init(&rd, body, len);
    hl_reply_head_t rh;
    hl_get_reply_head(&rd, &rh);
    const ev_t *e = &r->ev[p.ev];
    if ((rh.status < 0) != (p.status < 0) || (rh.status < 0 && rh.status != p.status)) {
        char what[64];
        snprintf(what, sizeof what, "answered %s", rh.status ? hl_errname(rh.status) : "ok");
        diverge(r, e, what, p.status);
    }
    if (rh.status == 0 && p.op == HL_OP_PLAY && p.voice) {
        hl_play_reply_t pr;
        hl_get_play_reply(&rd, &pr);
        vmap_put(r, p.voice, pr.voice);
    }
}

/* Sends event e (on its client's connection) and waits for its reply. */
static int send_ev(replay_t *r, size_t idx, uint64_t frame) {
    ev_t *e = &r->ev[idx];
    client_t *k = client_of(r, e->client, e->kind == HLD_CAPTURE_REC_REQUEST);
    if (e->kind == HLD_CAPTURE_REC_CLOSE) {
        if (k) hld_rconn_close(&k->c);
        return 0;
    }
    if (!k) return -1;
    if (k->c.fd < 0) return 0; /* closed already */
    uint16_t op = g16(e->req + 4), flags = g16(e->req + 6);
    if (op == HL_OP_CAPTURE || op == HL_OP_DEVICE || op == HL_OP_LOAD_FD || op == HL_OP_STREAM) {
        r->skipped++;
        return 0;
    }
    const uint8_t *body = e->req + HL_FRAME_HDR;
    size_t len = e->req_len - HL_FRAME_HDR;
    uint64_t at = 0;
    if (flags & HL_FLAG_AT) {
        if (len < 8) return 0;
        at = g64(body);
        at = at > r->base ? at - r->base : 0;
        body += 8;
        len -= 8;
    } else if (e->frame != frame && hl_op_schedulable(op)) {
        flags |= HL_FLAG_AT; /* a period of another size: on its frame anyway */
        at = e->frame;
    }
    static uint8_t nb[HL_MAX_FRAME];
    size_t nlen = 0;
    if (e->path) { /* the captured bytes, from our file */
        hl_rbuf_t rd;
        hl_rbuf_init(&rd, body, len);
        hl_load_t m;
        hl_get_load(&rd, &m);
        snprintf(m.path, sizeof m.path, "%s", e->path);
        hl_wbuf_t w;
        hl_wbuf_init(&w, nb, sizeof nb);
        hl_put_load(&w, &m);
        body = nb;
        len = w.len;
    } else if (remap_voice(r, op, body, len, nb, &nlen)) {
        body = nb;
        len = nlen;
    }
    flags &= (uint16_t)~HL_FLAG_NOREPLY; /* every reply: its status, its voice */
    if (k->npend == k->cappend) {
        size_t cap = k->cappend ? 2 * k->cappend : 16;
        pend_t *np = realloc(k->pend, cap * sizeof *np);
        if (!np) return -1;
        k->pend = np;
        k->cappend = cap;
    }
    if (hld_rconn_send(&k->c, op, flags, at, body, len) != 0) return -1;
    k->pend[k->npend++] = (pend_t){
        .id = k->c.next_id, .op = op, .status = e->status, .voice = e->voice, .ev = (uint32_t)idx};
    if (op == HL_OP_BUNDLE_BEGIN) k->bundle = 1;
    if (op == HL_OP_BUNDLE_END) k->bundle = 0;
    if (k->bundle && op != HL_OP_BUNDLE_BEGIN) return 0; /* answered at its end */
    return hld_rconn_wait(&k->c);
}

static int replay_send_due(void *user, uint64_t frame, uint64_t until) {
    replay_t *r = user;
    /* before the period from `frame`: what took effect on it (a request
     * dispatched between two periods applies from the next one's start) */
    while (r->next < r->n && r->ev[r->next].frame < until) {
        const ev_t *e = &r->ev[r->next];
        if (e->frame > frame &&
            (e->kind != HLD_CAPTURE_REC_REQUEST ||
             (!(g16(e->req + 6) & HL_FLAG_AT) && !hl_op_schedulable(g16(e->req + 4)))))
            break; /* not schedulable: at the next period's start */
        if (send_ev(r, r->next, frame) != 0) return -1;
        r->next++;
    }
    return 0;
}

static int replay_read(void *user) {
    replay_t *r = user;
    for (size_t i = 0; i < r->ncl; i++)
        if (r->cl[i]->c.fd >= 0 && hld_rconn_read(&r->cl[i]->c) < 0) return -1;
    return 0;
}

static int replay_sent_all(void *user) {
    replay_t *r = user;
    return r->next == r->n;
}

static void replay_free(replay_t *r) {
    for (size_t i = 0; i < r->ncl; i++) {
        if (r->cl[i]->c.fd >= 0) close(r->cl[i]->c.fd);
        free(r->cl[i]->pend);
        free(r->cl[i]);
    }
    for (size_t i = 0; i < r->n; i++)
        if (r->ev[i].path) {
            unlink(r->ev[i].path);
            free(r->ev[i].path);
        }
    free(r->cl);
    free(r->ev);
    free(r->vmap);
    free(r->file);
}

int hld_replay_run(hld_daemon_t *d) {
    replay_t r = {.d = d};
    if (parse(&r, d->cfg.render) != 0) {
        replay_free(&r);
        return 2;
    }
    hld_render_feed_t f = {.user = &r,
                           .send_due = replay_send_due,
                           .read = replay_read,
                           .sent_all = replay_sent_all,
                           .end = r.end,
                           .last = r.n ? r.ev[r.n - 1].frame : 0};
    hld_render_clock_start();
    int rc = hld_render_loop(d, &f);
    for (size_t i = 0; i < r.ncl; i++)
        if (r.cl[i]->c.fd >= 0) {
            close(r.cl[i]->c.fd); /* the daemon's end closes on EOF */
            r.cl[i]->c.fd = -1;
        }
    atomic_store(&hld_virtual_ns, 0); /* the shutdown waits on the real clock */
    if (r.skipped)
        hld_info("replay: %u requests not replayed (CAPTURE, DEVICE, LOAD_FD, STREAM)", r.skipped);
    if (r.diverged)
        fprintf(stderr, "heliod: --render: the replay diverged from the capture %u times\n",
                r.diverged);
    uint32_t diverged = r.diverged;
    replay_free(&r);
    return rc < 0 ? 1 : rc == 4 ? 4 : diverged ? 3 : 0;
}
