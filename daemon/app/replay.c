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
 * audio thread was inside one: CTL_CAP_INPERIOD); scheduled ones
 * carry their own frame, as they did. Replies are awaited before anything
 * later is sent (a bundle's at its end) and compared with the recorded
 * statuses: a difference is a divergence (reported, exit status 3). A
 * PLAY's reply maps the recorded voice handle to the replay's; later
 * requests naming it (STOP, SET, PARAM, CONE, ATTEN, a stinger's
 * sync_voice) are rewritten. A LOADed file must be the one captured (size
 * and hash; a different mtime alone is only noted), or its bytes are taken
 * from the capture (--capture-audio). Requests refused live (an error
 * changes nothing), CAPTURE, DEVICE and the descriptor passing requests
 * (LOAD_FD, STREAM) are not replayed. A scheduled request live applied
 * after its frame (CTL_CAP_LATE) is as late in the render (sent before the
 * period it took effect in), and said so. A capture started on a running
 * daemon opens with its state preamble (capture_state.c: STATE records):
 * the render starts a grid step earlier and sends it, with the OPEN HELLOs,
 * before its first period; a STATE request answered EEXIST (the render's
 * configuration has it) is not a divergence, and a STATE FX add where the
 * render's bus has an effect already sets that one instead.
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
#include "ctl_capfile.h"
#include "log.h"
#include "render.h"
#include "render_int.h"
#include "vm.h"

_Static_assert(CTL_CAP_RANK_MS == HLD_VM_TICK_MS, "a replay shifts by the ranking grid");

#define REPLAY_REPORT 10 /* divergences printed one by one */

typedef struct {
    uint8_t kind; /* CTL_CAP_REQUEST or _CLOSE */
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
    uint32_t process; /* its PROCESS record's (0: none: a process of its own) */
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
    uint32_t *procs; /* pairs: recorded client, its process (PROCESS records) */
    size_t nprocs;
    uint64_t *vmap; /* pairs: recorded handle, replay handle (open addressing) */
    size_t vcap, vn;
    uint64_t base, end;
    uint32_t diverged, skipped;
    uint32_t late;    /* requests live applied after their frame (CTL_CAP_LATE) */
    uint32_t present; /* state preamble records the render had already (EEXIST) */
    int failed;       /* an I/O error */
} replay_t;

#define g16(p) ((uint16_t)ctl_cap_le(p, 2))
#define g64(p) ctl_cap_le(p, 8)

int hld_replay_is_capture(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return 0;
    struct stat st;
    char m[8];
    int yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, m, 8) == 8 &&
              memcmp(m, CTL_CAP_MAGIC, 8) == 0;
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

/* Recorded handle rec is now's (0: none, a MUSIC's waiting transition,
 * which keeps the recorded handle, as heliodctl replay does). */
static void vmap_put(replay_t *r, uint64_t rec, uint64_t now) {
    if (!rec || !now) return;
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

static uint64_t vmap_fn(void *user, uint64_t rec) {
    return vmap_get(user, rec);
}

/* ---- the capture file ------------------------------------------------------- */

/* The LOAD's file is the one captured (SOUND record s), or its captured
 * bytes go to a file of ours (*tmp). 0, or -1 after saying why. */
static int check_sound(const char *cap, const ev_t *e, const ctl_cap_rec_t *s, char **tmp) {
    hl_rbuf_t rd;
    hl_rbuf_init(&rd, e->req + HL_FRAME_HDR, e->req_len - HL_FRAME_HDR);
    hl_load_t m;
    hl_get_load(&rd, &m);
    if (s->flags & CTL_CAP_NOFILE) return 0; /* unreadable then: loaded as it is */
    if (s->audio) {
        if (ctl_cap_fnv(CTL_CAP_FNV0, s->audio, s->size) != s->hash) {
            fprintf(stderr, "heliod: --render: %s: sound '%s': its captured bytes are damaged\n",
                    cap, m.name);
            return -1;
        }
        const char *dir = getenv("TMPDIR");
        char p[HL_MAX_PATH + 1];
        snprintf(p, sizeof p, "%s/heliod-replay-XXXXXX", dir && dir[0] == '/' ? dir : "/tmp");
        int fd = mkstemp(p);
        size_t put = 0;
        while (fd >= 0 && put < s->size) {
            ssize_t k = write(fd, s->audio + put, s->size - put);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break;
            put += (size_t)k;
        }
        if (fd < 0 || put != s->size || close(fd) != 0) {
            fprintf(stderr, "heliod: --render: sound '%s': cannot write its bytes to %s: %s\n",
                    m.name, p, strerror(errno));
            if (fd >= 0) unlink(p);
            return -1;
        }
        *tmp = strdup(p);
        return *tmp ? 0 : -1;
    }
    char why[160];
    int mtime = 0;
    if (ctl_cap_check_sound(s, m.path, &mtime, why, sizeof why) != 0) {
        fprintf(stderr,
                "heliod: --render: %s: sound '%s' (%s): %s; a capture made with "
                "--capture-audio holds the bytes\n",
                cap, m.name, m.path, why);
        return -1;
    }
    if (mtime) hld_info("replay: sound '%s' (%s): same bytes, another mtime", m.name, m.path);
    return 0;
}

/* Reads and checks the capture; the events in r. 0, or -1 after saying why. */
static int parse(replay_t *r, const char *path) {
    const hld_config_t *cfg = &r->d->cfg;
    size_t n = 0;
    ctl_cap_hdr_t hd;
    char why[128];
    if (ctl_cap_read(path, &r->file, &n, &hd, why, sizeof why) != 0) {
        fprintf(stderr, "heliod: --render: %s: %s\n", path, why);
        return -1;
    }
    if (hd.version < 2) {
        fprintf(stderr, "heliod: --render: %s: a capture of format 1 (before replays)\n", path);
        return -1;
    }
    if (hd.rate != cfg->rate) {
        fprintf(stderr, "heliod: --render: %s: captured at %u Hz: render with --rate %u\n", path,
                hd.rate, hd.rate);
        return -1;
    }
    uint32_t period = 0, channels = 0;
    size_t cap = 0, off = CTL_CAP_HDR;
    ctl_cap_rec_t c;
    int got;
    while ((got = ctl_cap_next(r->file, n, &off, &c)) == 1) {
        ev_t *last = r->n ? &r->ev[r->n - 1] : NULL;
        if (c.kind == CTL_CAP_SESSION) {
            period = c.period;
            channels = c.channels;
            if (c.rng) r->d->cues.rng = c.rng; /* the cues' random state then */
        } else if (c.kind == CTL_CAP_TRAILER) {
            r->end = c.end;
        } else if (c.kind == CTL_CAP_PROCESS) {
            uint32_t *np = realloc(r->procs, (r->nprocs + 1) * 2 * sizeof *np);
            if (!np) return -1;
            r->procs = np;
            np[2 * r->nprocs] = c.client;
            np[2 * r->nprocs++ + 1] = c.process;
        } else if ((c.kind == CTL_CAP_REPLY || c.kind == CTL_CAP_MREPLY) && last) {
            last->voice = c.voice;
        } else if (c.kind == CTL_CAP_SOUND && last && g16(last->req + 4) == HL_OP_LOAD) {
            if (check_sound(path, last, &c, &last->path) != 0) return -1;
        } else if (c.kind == CTL_CAP_REQUEST || c.kind == CTL_CAP_CLOSE) {
            if (r->n == cap) {
                cap = cap ? 2 * cap : 1024;
                ev_t *ne = realloc(r->ev, cap * sizeof *ne);
                if (!ne) return -1;
                r->ev = ne;
            }
            r->ev[r->n++] = (ev_t){.kind = c.kind,
                                   .flags = c.flags,
                                   .frame = c.frame + (c.flags & CTL_CAP_INPERIOD ? period : 0),
                                   .client = c.client,
                                   .status = c.status,
                                   .req = c.req,
                                   .req_len = c.req_len};
        }
    }
    if (got < 0) {
        fprintf(stderr, "heliod: --render: %s: a record is cut short at byte %zu\n", path, off);
        return -1;
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
    uint64_t grid = ctl_cap_grid(hd.rate, period);
    r->base = hd.frame / grid * grid;
    /* a state preamble (the connections open then and what was defined
     * before, up to the first live record) is sent before the render's
     * first period, which is one grid step earlier still: what it sets
     * (a bus's fader, a listener) has settled by the capture's start */
    size_t pre = 0;
    int state = 0;
    while (pre < r->n && (r->ev[pre].kind == CTL_CAP_CLOSE ||
                          (r->ev[pre].flags & (CTL_CAP_OPEN | CTL_CAP_STATE)))) {
        state |= (r->ev[pre].flags & CTL_CAP_STATE) != 0;
        pre++;
    }
    if (state && r->base >= grid) r->base -= grid;
    for (size_t i = 0; i < r->n; i++)
        r->ev[i].frame = i >= pre && r->ev[i].frame > r->base ? r->ev[i].frame - r->base : 0;
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
    /* the quotas of its process, as live: the connections of one recorded
     * process share an account, each other process (or a client without a
     * PROCESS record) has its own */
    for (size_t i = 0; i < r->nprocs; i++)
        if (r->procs[2 * i] == id) k->process = r->procs[2 * i + 1];
    if (hld_rconn_open_as(r->d, &k->c, k->process) != 0) return NULL;
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
    if ((e->flags & CTL_CAP_STATE) && rh.status == HELIOD_EEXIST && p.status == 0) {
        r->present++; /* the state preamble's: the render's configuration made it already */
    } else if ((rh.status < 0) != (p.status < 0) || (rh.status < 0 && rh.status != p.status)) {
        char what[64];
        snprintf(what, sizeof what, "answered %s", rh.status ? hl_errname(rh.status) : "ok");
        diverge(r, e, what, p.status);
    }
    if (rh.status == 0 && (p.op == HL_OP_PLAY || p.op == HL_OP_MUSIC) && p.voice) {
        hl_play_reply_t pr = {0};
        hl_music_reply_t mr = {0}; /* a MUSIC's: its MREPLY */
        if (p.op == HL_OP_PLAY)
            hl_get_play_reply(&rd, &pr);
        else
            hl_get_music_reply(&rd, &mr);
        vmap_put(r, p.voice, p.op == HL_OP_PLAY ? pr.voice : mr.voice);
    }
}

/* A state preamble's FX add (effect `index` of a bus) on a bus the render
 * has an effect there already (its configuration's): a set of it instead,
 * so that the chain is not doubled. 1 with the new body in nb. */
static int state_fx(replay_t *r, const uint8_t *body, size_t len, uint8_t *nb, size_t *nlen) {
    hl_rbuf_t rd;
    hl_rbuf_init(&rd, body, len);
    hl_fx_req_t m;
    hl_get_fx_req(&rd, &m);
    const hld_bus_t *b = hld_bus_at(&r->d->buses, hld_bus_index(&r->d->buses, m.bus));
    if (rd.err || m.action != HL_FX_ADD || !b || m.index >= b->nfx ||
        b->fx[m.index]->kind != m.kind) /* another kind: added (as heliodctl replay does) */
        return 0;
    m.action = HL_FX_SET;
    hl_wbuf_t w;
    hl_wbuf_init(&w, nb, HL_MAX_FRAME);
    hl_put_fx_req(&w, &m);
    *nlen = w.len;
    return 1;
}

/* Sends event e (on its client's connection) and waits for its reply. */
static int send_ev(replay_t *r, size_t idx, uint64_t frame) {
    ev_t *e = &r->ev[idx];
    client_t *k = client_of(r, e->client, e->kind == CTL_CAP_REQUEST);
    if (e->kind == CTL_CAP_CLOSE) {
        if (k) hld_rconn_close(&k->c);
        return 0;
    }
    if (!k) return -1;
    if (k->c.fd < 0) return 0; /* closed already */
    uint16_t op = g16(e->req + 4), flags = g16(e->req + 6);
    /* not replayed: what a capture cannot carry, and what was refused live
     * (an error changes nothing) */
    if (op == HL_OP_CAPTURE || op == HL_OP_DEVICE || op == HL_OP_LOAD_FD || op == HL_OP_STREAM ||
        e->status < 0) {
        r->skipped++;
        return 0;
    }
    const uint8_t *body = e->req + HL_FRAME_HDR;
    size_t len = e->req_len - HL_FRAME_HDR;
    uint64_t at = 0;
    if (flags & HL_FLAG_AT) {
        if (len < 8) return 0;
        at = g64(body);
        /* late live: sent in the pass before its effect frame's period, as
         * live, it is as late here (its own frame stays: a seek's start) */
        if ((e->flags & CTL_CAP_LATE) && r->late++ < REPLAY_REPORT)
            fprintf(stderr,
                    "heliod: --render: frame %llu: client %u %s: live applied this request "
                    "%llu frames late: replayed so\n",
                    (unsigned long long)(e->frame + r->base), e->client,
                    hl_op_name(op) ? hl_op_name(op) : "?",
                    (unsigned long long)(e->frame + r->base > at ? e->frame + r->base - at : 0));
        at = at > r->base ? at - r->base : 0;
        body += 8;
        len -= 8;
    } else if (e->frame != frame && hl_req_schedulable(op, body, len)) {
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
    } else if ((e->flags & CTL_CAP_STATE) && op == HL_OP_FX && state_fx(r, body, len, nb, &nlen)) {
        body = nb;
        len = nlen;
    } else if (r->vn && ctl_cap_remap(op, body, len, vmap_fn, r, nb, &nlen)) {
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
        if (e->frame > frame && (e->kind != CTL_CAP_REQUEST ||
                                 (!(g16(e->req + 6) & HL_FLAG_AT) &&
                                  !hl_req_schedulable(g16(e->req + 4), e->req + HL_FRAME_HDR,
                                                      e->req_len - HL_FRAME_HDR))))
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
    free(r->procs);
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
        hld_info(
            "replay: %u requests not replayed (refused live; CAPTURE, DEVICE, LOAD_FD, STREAM)",
            r.skipped);
    if (r.present)
        hld_info("replay: %u definitions of the capture's state preamble were there already "
                 "(EEXIST: the render's configuration)",
                 r.present);
    if (r.late)
        fprintf(stderr,
                "heliod: --render: %u scheduled requests were applied late live (after their "
                "frame): replayed as late\n",
                r.late);
    if (r.diverged)
        fprintf(stderr, "heliod: --render: the replay diverged from the capture %u times\n",
                r.diverged);
    uint32_t diverged = r.diverged;
    replay_free(&r);
    return rc < 0 ? 1 : rc == 4 ? 4 : diverged ? 3 : 0;
}
