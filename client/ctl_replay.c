/*
 * ctl_replay.c - `heliodctl replay CAPTURE [--speed X]`: a session capture
 * (heliod --capture, heliodctl capture start) replayed live into a running
 * daemon, as clients, so it can be heard and watched in `top`.
 *
 * Each recorded client becomes a connection of its own (its HELLO's name
 * and control flag), closed where it closed, opened from a child process
 * of its recorded process's (PROCESS records; a client without one: a
 * child of its own), so each recorded process has its own per-process
 * quotas, namespace and objects, as live. The children send in the
 * capture's order: each waits for its turn (a shared counter of the
 * REQUEST and CLOSE records, a futex) before its next record, so the
 * timing is that of one sender. The parent reads the daemon's clock for
 * them all (shared memory). The session's first engine
 * frame E0 maps to a frame F0 a quarter second ahead of the daemon's clock
 * (F0 - E0 a multiple of the period and of the 20 ms ranking grid), and
 * recorded frame E to F0 + (E - E0) / speed: every schedulable request is
 * sent up to HORIZON ahead with that frame (HL_FLAG_AT), so it lands on its
 * sample whatever the network did; the others (loads, definitions, bus
 * creation) are sent when the clock reaches their frame. At speed 1 a
 * session of scheduled and schedulable requests plays sample for sample
 * what it played live, shifted by F0 - E0. PLAY replies map the recorded
 * voice handles to the new ones (later STOP, SET, ... are rewritten), in a
 * map the children share (ctl_vmap.h: a handle is the daemon's, and a
 * control client may change another process's voice); a
 * reply whose status differs from the recorded one is a divergence
 * (reported; exit 1). Loaded files are checked against the capture, or the
 * captured bytes uploaded (LOAD_DATA). Requests refused live, CAPTURE,
 * DEVICE, LOAD_FD and STREAM are not replayed. A scheduled request live
 * applied after its frame (LATE) is replayed on the frame it took effect
 * on, and said so; one this replay sent too late for its frame (its reply's
 * late frames) is said too. A capture's state preamble (STATE records) is
 * sent at once, ahead of the session's first frame; a STATE request the
 * daemon answers EEXIST (it has that definition) is not a divergence, and
 * a STATE FX add is tried as a set of the effect at its index first.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl_capfile.h"
#include "ctl_out.h"
#include "ctl_ui.h"
#include "ctl_vmap.h"
#include "hl_proto.h"

#define HORIZON_MS 150  /* schedulable requests are sent this far ahead of their frame */
#define LEAD_MS    250  /* the first frame, ahead of the clock */
#define REPORT     10   /* divergences printed one by one */
#define CLOCK_MS   1000 /* the daemon's clock is read again this often */
#define WORKERS    64   /* child processes at most: further processes share the last */

const char ctl_replay_usage[] =
    "usage: heliodctl replay CAPTURE [--speed X]\n"
    "  Replay a session capture (heliod --capture, capture start) into the running\n"
    "  daemon, live: each recorded client as a connection of its own, each request\n"
    "  on its recorded engine frame (scheduled) from a quarter second from now,\n"
    "  --speed X times as fast (0.01..100, default 1); voice handles mapped from\n"
    "  the recorded PLAY and MUSIC replies, for every client (one process may set\n"
    "  or stop another's voice; a music transition's track, which no reply names,\n"
    "  is not mapped); loaded files checked against the capture (or its\n"
    "  bytes uploaded). Each recorded process's clients connect from a child\n"
    "  process of their own (their own per-process quotas, as live). A request\n"
    "  live applied after its frame is replayed where it took effect (said so),\n"
    "  one this replay sent after its frame is said too. A capture's state\n"
    "  preamble is sent at once, before the session's first frame. Prints the frame\n"
    "  it started on and a summary; exit 1 when a reply differed from the recorded one.\n";

typedef struct {
    uint32_t id;
    heliod_t *h; /* NULL: closed */
} rclient_t;

/* What the parent and its children share (an anonymous shared mapping). */
typedef struct {
    _Atomic uint32_t turn; /* the REQUEST/CLOSE record whose turn it is */
    _Atomic uint32_t ev;   /* bumped (a futex word) when the turn passes, a child
                              stops or a voice map slot is written */
    _Atomic int failed;    /* a child stopped: the others stop too */
    pthread_mutex_t mu;    /* process-shared: clk */
    heliod_clock_t clk;    /* the daemon's clock, read by the parent */
    _Atomic uint32_t sent, skipped, diverged, late_live, late_sent, clients;
} shared_t;

typedef struct replay replay_t;
typedef struct {
    replay_t *r;
    heliod_t *h;
    uint16_t op;
    int32_t status;
    long slot; /* a PLAY's (or MUSIC's) voice map slot (-1: none) */
    uint64_t frame;
    uint64_t at; /* sent scheduled on this frame (0: not) */
    int state;   /* a state preamble's record (CTL_CAP_STATE) */
} sent_t;

typedef struct {
    long slot;       /* a PLAY's (or MUSIC's) voice map slot */
    uint32_t client; /* the recorded client that sent it */
} mine_t;

struct replay {
    const char *sock;
    uint8_t *file;
    size_t n;
    ctl_cap_hdr_t hd;
    uint32_t period;
    rclient_t *cl;
    size_t ncl;
    ctl_vmap_t vm; /* recorded voice handles to live ones, every child's */
    uint32_t upto; /* the voice map slots of the records before this one */
    long slot;     /* this record's slot, until a PLAY sent takes it (-1: none) */
    mine_t *mine;  /* the slots of the PLAYs this child sent */
    size_t nmine, capmine;
    int map_failed;     /* a handle's PLAY reply never came */
    uint32_t plays_out; /* this child's PLAY (and MUSIC) replies not come yet */
    uint32_t sent, diverged, skipped, late_live, late_sent;
    double speed;
    heliod_clock_t clk;
    heliod_t *clock_conn; /* the parent's: the clock is read again every CLOCK_MS (drift) */
    double clock_read_ns;
    uint64_t e0, f0;
    shared_t *sh;
    uint32_t *group; /* pairs: recorded client, its worker */
    size_t ngroup;
    uint32_t worker, nworkers;
};

static long futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *t) {
    return syscall(SYS_futex, (uint32_t *)w, op, val, t, NULL, 0);
}

/* Tells the other children something changed (the turn, a map slot, a failure). */
static void wake(shared_t *sh) {
    atomic_fetch_add(&sh->ev, 1);
    (void)futex(&sh->ev, FUTEX_WAKE, INT32_MAX, NULL);
}

/* Voice map slot k's PLAY was answered (live: its handle; 0: failed, not sent). */
static void map_put(replay_t *r, long k, uint64_t live) {
    ctl_vmap_put(&r->vm, k, live);
    wake(r->sh);
}

static void on_reply(void *user, uint32_t id, int status, const char *msg, const uint8_t *body,
                     size_t len) {
    (void)id;
    sent_t *s = user;
    replay_t *r = s->r;
    if ((s->op == HL_OP_PLAY || s->op == HL_OP_MUSIC) && r->plays_out) r->plays_out--;
    uint64_t late = status == 0 && s->at && s->h ? heliod_late_frames(s->h) : 0;
    if (late && r->late_sent++ < REPORT)
        fprintf(stderr,
                "heliodctl: replay: frame %" PRIu64 ": %s reached the daemon %" PRIu64
                " frames after its frame (applied late: the replay differs there)\n",
                s->frame, hl_op_name(s->op), late);
    if (s->state && status == HELIOD_EEXIST && s->status == 0) {
        /* the state preamble's definition: the daemon has it already */
    } else if ((status < 0) != (s->status < 0) || (status < 0 && status != s->status)) {
        if (r->diverged++ < REPORT)
            fprintf(stderr, "heliodctl: replay: frame %" PRIu64 ": %s answered %s (live: %s)%s%s\n",
                    s->frame, hl_op_name(s->op), status ? hl_errname(status) : "ok",
                    s->status ? hl_errname(s->status) : "ok", status ? ": " : "",
                    status ? msg : "");
    }
    if (s->slot >= 0) { /* a PLAY's voice, or a MUSIC's track */
        hl_play_reply_t pr = {0};
        hl_music_reply_t mr = {0};
        if (status == 0 && body) {
            hl_rbuf_t rd;
            hl_rbuf_init(&rd, body, len);
            if (s->op == HL_OP_MUSIC)
                hl_get_music_reply(&rd, &mr);
            else
                hl_get_play_reply(&rd, &pr);
        }
        map_put(r, s->slot, s->op == HL_OP_MUSIC ? mr.voice : pr.voice);
    }
    free(s);
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Delivers every connection's replies; waits up to ms for more. */
static int pump(replay_t *r, int ms) {
    struct pollfd p[64];
    size_t np = 0;
    for (size_t i = 0; i < r->ncl; i++) {
        if (!r->cl[i].h) continue;
        if (heliod_dispatch(r->cl[i].h) < 0) return -1;
        if (np < 64) {
            p[np].fd = heliod_fd(r->cl[i].h);
            p[np].events = POLLIN | (heliod_pending(r->cl[i].h) ? POLLOUT : 0);
            np++;
        }
    }
    if (ms > 0 && poll(p, np, ms) < 0 && errno != EINTR) return -1;
    return 0;
}

/* The daemon's frame now, from its clock read at most CLOCK_MS ago (a
 * device's clock drifts from CLOCK_MONOTONIC). */
static uint64_t frame_now(replay_t *r) {
    double t = now_ns();
    if (t - r->clock_read_ns > 20e6) { /* the parent's reading, at most 20 ms old */
        pthread_mutex_lock(&r->sh->mu);
        r->clk = r->sh->clk;
        pthread_mutex_unlock(&r->sh->mu);
        r->clock_read_ns = t;
    }
    return heliod_clock_frame_at(&r->clk, (uint64_t)t);
}

/* The parent: the daemon's clock read again every CLOCK_MS (a device's
 * clock drifts from CLOCK_MONOTONIC) for the children. */
static void clock_refresh(replay_t *r) {
    heliod_clock_t c;
    if (now_ns() - r->clock_read_ns > CLOCK_MS * 1e6 && heliod_clock(r->clock_conn, &c) == 0) {
        pthread_mutex_lock(&r->sh->mu);
        r->sh->clk = c;
        pthread_mutex_unlock(&r->sh->mu);
        r->clock_read_ns = now_ns();
    }
}

/* Waits a little for another child (ev: sh->ev when the caller looked),
 * delivering this child's replies meanwhile: as they come while it awaits
 * PLAY replies (another child may wait for their handles), else woken by
 * the others. -1: a child stopped, or the connection failed. */
static int idle(replay_t *r, uint32_t ev) {
    if (atomic_load(&r->sh->failed)) return -1;
    if (r->plays_out) return pump(r, 1);
    if (pump(r, 0) < 0) return -1;
    struct timespec ts = {0, 10000000};
    (void)futex(&r->sh->ev, FUTEX_WAIT, ev, &ts);
    return 0;
}

/* Waits for record seq's turn. */
static int wait_turn(replay_t *r, uint32_t seq) {
    for (;;) {
        uint32_t ev = atomic_load(&r->sh->ev);
        if (atomic_load(&r->sh->turn) == seq) return 0;
        if (idle(r, ev) < 0) return -1;
    }
}

static void pass_turn(replay_t *r, uint32_t seq) {
    atomic_store(&r->sh->turn, seq + 1);
    wake(r->sh);
}

/* The live handle of recorded voice handle rec, which a PLAY of this
 * child's or another's got (its reply awaited); rec itself if no PLAY
 * recorded before got it, or that PLAY failed. */
static uint64_t map_voice(void *user, uint64_t rec) {
    replay_t *r = user;
    long k = ctl_vmap_find(&r->vm, rec, r->upto);
    if (k < 0) return rec;
    for (;;) {
        uint32_t ev = atomic_load(&r->sh->ev);
        uint64_t live = ctl_vmap_get(&r->vm, k);
        if (live != CTL_VMAP_PENDING) return live == CTL_VMAP_NONE ? rec : live;
        if (idle(r, ev) < 0) {
            r->map_failed = 1;
            return rec;
        }
    }
}

/* The child that replays recorded client id. */
static uint32_t worker_of(const replay_t *r, uint32_t id) {
    for (size_t i = 0; i < r->ngroup; i++)
        if (r->group[2 * i] == id) return r->group[2 * i + 1];
    return 0;
}

/* Waits until the daemon's clock reaches frame f (replies meanwhile). */
static int wait_frame(replay_t *r, uint64_t f) {
    for (;;) {
        uint64_t now = frame_now(r);
        if (now >= f) return 0;
        uint64_t ms = (f - now) * 1000 / r->clk.rate;
        if (pump(r, (int)(ms > 20 ? 20 : ms + 1)) < 0) return -1;
    }
}

static uint64_t target(const replay_t *r, uint64_t e) {
    uint64_t d = e > r->e0 ? e - r->e0 : 0;
    return r->f0 + (uint64_t)((double)d / r->speed);
}

static rclient_t *client(replay_t *r, uint32_t id) {
    for (size_t i = 0; i < r->ncl; i++)
        if (r->cl[i].id == id) return &r->cl[i];
    return NULL;
}

/* Opens the connection of client id from its HELLO frame (or a plain one). */
static rclient_t *open_client(replay_t *r, uint32_t id, const uint8_t *hello, size_t len) {
    hl_hello_t m = {0};
    snprintf(m.client_name, sizeof m.client_name, "replay-%u", id);
    if (hello) {
        hl_rbuf_t rd;
        hl_rbuf_init(&rd, hello, len);
        hl_get_hello(&rd, &m);
    }
    rclient_t *nc = realloc(r->cl, (r->ncl + 1) * sizeof *nc);
    if (!nc) return NULL;
    r->cl = nc;
    rclient_t *c = &r->cl[r->ncl];
    c->id = id;
    c->h = NULL;
    uint32_t flags = (m.flags & HL_HELLO_CONTROL) ? HELIOD_CONNECT_CONTROL : 0;
    if (heliod_connect_flags(&c->h, r->sock, m.client_name, flags) < 0) {
        fprintf(stderr, "heliodctl: replay: cannot connect: %s\n", heliod_last_error(NULL));
        return NULL;
    }
    r->ncl++;
    return c;
}

/* A LOAD: the file is the captured one (s), or the captured bytes go up. */
static int send_load(rclient_t *c, const uint8_t *body, size_t len, const ctl_cap_rec_t *s,
                     sent_t *st) {
    hl_rbuf_t rd;
    hl_rbuf_init(&rd, body, len);
    hl_load_t m;
    hl_get_load(&rd, &m);
    if (s && s->audio) {
        int rc = heliod_load_memory(c->h, m.name, s->audio, s->size, m.flags, NULL);
        on_reply(st, 0, rc < 0 ? rc : 0, heliod_last_error(c->h), NULL, 0);
        return 0;
    }
    if (heliod_raw_async(c->h, HL_OP_LOAD, body, len, on_reply, st) < 0) return -1;
    return heliod_sync(c->h) < 0 ? -1 : 0; /* decoded before anything plays it */
}

static void on_status(void *user, uint32_t id, int status, const char *msg, const uint8_t *body,
                      size_t len) {
    (void)id, (void)msg, (void)body, (void)len;
    *(int *)user = status;
}

/* A state preamble's FX add (effect `index` of a bus): sent as a set of
 * the effect the daemon has there first, so that a replay into a daemon
 * that has the chain already does not double it. 0 if the set did it. */
static int state_fx_set(rclient_t *c, const uint8_t *body, size_t len) {
    hl_rbuf_t rd;
    hl_rbuf_init(&rd, body, len);
    hl_fx_req_t m;
    hl_get_fx_req(&rd, &m);
    if (rd.err || m.action != HL_FX_ADD) return -1;
    m.action = HL_FX_SET;
    uint8_t nb[256];
    hl_wbuf_t w;
    hl_wbuf_init(&w, nb, sizeof nb);
    hl_put_fx_req(&w, &m);
    int st = -1;
    if (w.err || heliod_raw_async(c->h, HL_OP_FX, nb, w.len, on_status, &st) < 0 ||
        heliod_sync(c->h) < 0)
        return -1;
    return st == 0 ? 0 : -1;
}

/* Sends request record q (SOUND record s after it, if any). */
static int send_req(replay_t *r, const ctl_cap_rec_t *q, const ctl_cap_rec_t *s) {
    uint16_t op = (uint16_t)ctl_cap_le(q->req + 4, 2), flags = (uint16_t)ctl_cap_le(q->req + 6, 2);
    const uint8_t *body = q->req + HL_FRAME_HDR;
    size_t len = q->req_len - HL_FRAME_HDR;
    uint64_t e = q->frame + (q->flags & CTL_CAP_INPERIOD ? r->period : 0);
    rclient_t *c = client(r, q->client);
    if (op == HL_OP_HELLO) {
        if (c) return 0;
        return open_client(r, q->client, body, len) ? 0 : -1;
    }
    if (!c && !(c = open_client(r, q->client, NULL, 0))) return -1;
    if (!c->h) return 0; /* closed */
    if (op == HL_OP_CAPTURE || op == HL_OP_DEVICE || op == HL_OP_LOAD_FD || op == HL_OP_STREAM ||
        q->status < 0) { /* refused live: an error changed nothing */
        r->skipped++;
        return 0;
    }
    uint64_t at = 0;
    if (flags & HL_FLAG_AT) {
        if (len < 8) return 0;
        uint64_t want = ctl_cap_le(body, 8);
        if ((q->flags & CTL_CAP_LATE) && e > want) { /* where live applied it */
            if (r->late_live++ < REPORT)
                fprintf(stderr,
                        "heliodctl: replay: capture frame %" PRIu64 ": %s: live applied this "
                        "request %" PRIu64 " frames late: replayed there\n",
                        e, hl_op_name(op), e - want);
            want = e;
        }
        at = target(r, want);
        body += 8;
        len -= 8;
    } else if (hl_req_schedulable(op, body, len)) {
        at = target(r, e);
    }
    /* schedulable: up to HORIZON ahead; the others on their frame; the
     * state preamble at once, ahead of the session's first frame (its
     * voices scheduled on that frame) */
    uint64_t f = target(r, e), ahead = (uint64_t)r->clk.rate * HORIZON_MS / 1000;
    if (q->flags & CTL_CAP_STATE) {
        if (!(flags & HL_FLAG_AT)) at = 0;
    } else if (wait_frame(r, at ? (f > ahead ? f - ahead : 0) : f) < 0) {
        return -1;
    }
    static uint8_t nb[HL_MAX_FRAME];
    size_t nlen = 0;
    if (op == HL_OP_STOP || op == HL_OP_SET || op == HL_OP_PARAM || op == HL_OP_CONE ||
        op == HL_OP_ATTEN || op == HL_OP_PLAY) {
        if (ctl_cap_remap(op, body, len, map_voice, r, nb, &nlen)) {
            body = nb;
            len = nlen;
        }
        if (r->map_failed) return -1;
    }
    int voiced = op == HL_OP_PLAY || op == HL_OP_MUSIC;     /* a reply naming a voice */
    if (voiced && r->slot >= 0 && r->nmine == r->capmine) { /* room in mine */
        size_t cap = r->capmine ? 2 * r->capmine : 64;
        mine_t *m = realloc(r->mine, cap * sizeof *m);
        if (!m) return -1;
        r->mine = m;
        r->capmine = cap;
    }
    sent_t *st = calloc(1, sizeof *st);
    if (!st) return -1;
    *st = (sent_t){.r = r,
                   .h = c->h,
                   .op = op,
                   .status = q->status,
                   .slot = -1,
                   .frame = f,
                   .at = at,
                   .state = (q->flags & CTL_CAP_STATE) != 0};
    r->sent++;
    if (st->state && op == HL_OP_FX && state_fx_set(c, body, len) == 0) {
        free(st);
        return pump(r, 0);
    }
    if (op == HL_OP_LOAD) return send_load(c, body, len, s, st);
    if (voiced) {
        if (r->slot >= 0) { /* its reply writes the slot */
            r->mine[r->nmine++] = (mine_t){.slot = r->slot, .client = c->id};
            st->slot = r->slot;
            r->slot = -1;
        }
        r->plays_out++;
    }
    heliod_at_frame(c->h, at);
    int rc = heliod_raw_async(c->h, op, body, len, on_reply, st);
    heliod_at_frame(c->h, 0);
    if (rc < 0) {
        on_reply(st, 0, rc, heliod_last_error(c->h), NULL, 0);
        return 0;
    }
    return pump(r, 0);
}

/* Checks every LOADed file first: a changed one stops the replay before it starts. */
static int check_sounds(replay_t *r, const char *path) {
    size_t off = CTL_CAP_HDR;
    ctl_cap_rec_t c, last = {0};
    int bad = 0;
    while (ctl_cap_next(r->file, r->n, &off, &c) == 1) {
        if (c.kind == CTL_CAP_SOUND && last.kind == CTL_CAP_REQUEST && !c.audio &&
            !(c.flags & CTL_CAP_NOFILE)) {
            hl_rbuf_t rd;
            hl_rbuf_init(&rd, last.req + HL_FRAME_HDR, last.req_len - HL_FRAME_HDR);
            hl_load_t m;
            hl_get_load(&rd, &m);
            char why[160];
            int mt;
            if (ctl_cap_check_sound(&c, m.path, &mt, why, sizeof why) != 0) {
                fprintf(stderr, "heliodctl: replay: %s: sound '%s' (%s): %s\n", path, m.name,
                        m.path, why);
                bad = 1;
            }
        }
        if (c.kind == CTL_CAP_REQUEST) last = c;
        if (c.kind == CTL_CAP_SESSION) r->period = c.period;
    }
    return bad ? -1 : 0;
}

static int plan_workers(replay_t *r);
static int run_workers(replay_t *r);

static int run(replay_t *r, const char *path) {
    char why[128];
    if (ctl_cap_read(path, &r->file, &r->n, &r->hd, why, sizeof why) != 0) {
        fprintf(stderr, "heliodctl: replay: %s: %s\n", path, why);
        return CTL_EXIT_FAIL;
    }
    if (r->hd.version < 2) {
        fprintf(stderr, "heliodctl: replay: %s: a capture of format 1 (before replays)\n", path);
        return CTL_EXIT_FAIL;
    }
    if (check_sounds(r, path) != 0) return CTL_EXIT_FAIL;
    /* the clock, through a connection of our own */
    heliod_t *h = NULL;
    if (heliod_connect_flags(&h, r->sock, "heliodctl-replay", HELIOD_CONNECT_CONTROL) < 0 ||
        heliod_clock(h, &r->clk) < 0) {
        fprintf(stderr, "heliodctl: replay: %s\n", heliod_last_error(h));
        if (h) heliod_close(h);
        return CTL_EXIT_FAIL;
    }
    r->clock_conn = h;
    r->clock_read_ns = now_ns();
    if (r->clk.rate != r->hd.rate || (r->period && r->clk.period != r->period))
        fprintf(stderr,
                "heliodctl: replay: captured at %u Hz, period %u; the daemon runs %u Hz, period "
                "%u: the timing is kept, the samples will differ\n",
                r->hd.rate, r->period, r->clk.rate, r->clk.period);
    uint64_t grid = ctl_cap_grid(r->clk.rate, r->clk.period);
    r->e0 = r->hd.frame;
    r->f0 = r->clk.frame + (uint64_t)r->clk.rate * LEAD_MS / 1000;
    uint64_t shift = r->f0 > r->e0 ? r->f0 - r->e0 : 0;
    r->f0 = r->e0 + (shift + grid - 1) / grid * grid;
    printf("replay: capture frame %" PRIu64 " plays at engine frame %" PRIu64 " (shift %" PRIu64
           ")\n",
           r->e0, r->f0, r->f0 - r->e0);
    fflush(stdout);
    if (ctl_vmap_init(&r->vm, r->file, r->n) < 0) {
        heliod_close(r->clock_conn);
        fprintf(stderr, "heliodctl: replay: out of memory for the voice handle map\n");
        return CTL_EXIT_FAIL;
    }
    int rc = plan_workers(r) == 0 ? run_workers(r) : -1;
    heliod_close(r->clock_conn);
    if (rc < 0) {
        fprintf(stderr, "heliodctl: replay: the connection to the daemon failed\n");
        return CTL_EXIT_FAIL;
    }
    shared_t *sh = r->sh;
    printf("replay: %u requests of %u clients in %u processes sent, %u skipped, %u diverged\n",
           atomic_load(&sh->sent), atomic_load(&sh->clients), r->nworkers,
           atomic_load(&sh->skipped), atomic_load(&sh->diverged));
    if (atomic_load(&sh->late_live) || atomic_load(&sh->late_sent))
        printf("replay: %u requests live applied after their frame (replayed where they took "
               "effect), %u sent after their frame\n",
               atomic_load(&sh->late_live), atomic_load(&sh->late_sent));
    return atomic_load(&sh->diverged) ? CTL_EXIT_FAIL : 0;
}

/* Each recorded client's child: its PROCESS record's process's (one child
 * per recorded process), or one of its own; WORKERS at most. */
static int plan_workers(replay_t *r) {
    size_t off = CTL_CAP_HDR, np = 0;
    ctl_cap_rec_t c;
    uint32_t *procs = NULL, keys[WORKERS];
    while (ctl_cap_next(r->file, r->n, &off, &c) == 1) {
        if (c.kind != CTL_CAP_PROCESS || !c.process) continue;
        uint32_t *n2 = realloc(procs, (np + 1) * 2 * sizeof *n2);
        if (!n2) break;
        procs = n2;
        procs[2 * np] = c.client;
        procs[2 * np++ + 1] = c.process;
    }
    off = CTL_CAP_HDR;
    int folded = 0;
    while (ctl_cap_next(r->file, r->n, &off, &c) == 1) {
        if (c.kind != CTL_CAP_REQUEST && c.kind != CTL_CAP_CLOSE) continue;
        size_t i = 0;
        while (i < r->ngroup && r->group[2 * i] != c.client)
            i++;
        if (i < r->ngroup) continue;
        uint32_t p = 0, w = 0;
        for (size_t k = 0; k < np; k++)
            if (procs[2 * k] == c.client) p = procs[2 * k + 1];
        while (w < r->nworkers && (!p || keys[w] != p))
            w++;
        if (w == r->nworkers && r->nworkers < WORKERS) keys[r->nworkers++] = p;
        if (w == WORKERS) w = WORKERS - 1, folded = 1;
        uint32_t *g = realloc(r->group, (r->ngroup + 1) * 2 * sizeof *g);
        if (!g) {
            free(procs);
            return -1;
        }
        r->group = g;
        g[2 * r->ngroup] = c.client;
        g[2 * r->ngroup++ + 1] = w;
    }
    free(procs);
    if (folded)
        fprintf(stderr,
                "heliodctl: replay: more than %d recorded processes: the last ones share "
                "one process's quotas\n",
                WORKERS);
    return 0;
}

/* The voice map slots still pending of the PLAYs client (NULL: every
 * client) of this child sent, closed: their replies never come, no other
 * child may wait for them (holding the turn this child waits for). */
static void drop_pending(replay_t *r, const uint32_t *client) {
    for (size_t i = 0; i < r->nmine; i++)
        if ((!client || r->mine[i].client == *client) &&
            ctl_vmap_get(&r->vm, r->mine[i].slot) == CTL_VMAP_PENDING) {
            map_put(r, r->mine[i].slot, 0);
            if (r->plays_out) r->plays_out--;
        }
}

/* A child: the records of its clients, each on its turn. */
static int worker_run(replay_t *r) {
    size_t off = CTL_CAP_HDR;
    ctl_cap_rec_t c, nx;
    int got, rc = 0;
    uint64_t end = 0;
    uint32_t seq = 0, slots = 0;
    while (rc == 0 && (got = ctl_cap_next(r->file, r->n, &off, &c)) == 1) {
        if (c.kind == CTL_CAP_TRAILER) end = c.end;
        slots += ctl_vmap_takes_slot(&c);
        if (c.kind != CTL_CAP_REQUEST && c.kind != CTL_CAP_CLOSE) continue;
        uint32_t my = seq++;
        if (worker_of(r, c.client) != r->worker) continue;
        if (wait_turn(r, my) < 0) {
            rc = -1;
            break;
        }
        if (c.kind == CTL_CAP_CLOSE) {
            rclient_t *k = client(r, c.client);
            if (k && k->h) {
                rc = wait_frame(r,
                                target(r, c.frame + (c.flags & CTL_CAP_INPERIOD ? r->period : 0)));
                heliod_sync(k->h);
                heliod_close(k->h);
                k->h = NULL;
                drop_pending(r, &c.client);
            }
        } else {
            /* its REPLY or MREPLY (a PLAY's or a MUSIC's recorded
             * handle: the next voice map slot) and SOUND records follow it */
            const ctl_cap_rec_t *snd = NULL;
            size_t o2 = off;
            r->upto = slots;
            r->slot = -1;
            while (ctl_cap_next(r->file, r->n, &o2, &nx) == 1 &&
                   (nx.kind == CTL_CAP_REPLY || nx.kind == CTL_CAP_MREPLY ||
                    nx.kind == CTL_CAP_SOUND)) {
                if (ctl_vmap_takes_slot(&nx)) r->slot = slots;
                if (nx.kind == CTL_CAP_SOUND) {
                    snd = &nx;
                    break;
                }
            }
            rc = send_req(r, &c, snd);
            if (r->slot >= 0) map_put(r, r->slot, 0); /* not sent: the recorded handle stays */
        }
        pass_turn(r, my);
    }
    if (rc == 0 && end) rc = wait_frame(r, target(r, end));
    for (size_t i = 0; i < r->ncl; i++)
        if (r->cl[i].h) {
            heliod_sync(r->cl[i].h);
            heliod_close(r->cl[i].h);
            r->cl[i].h = NULL;
        }
    drop_pending(r, NULL); /* replies that never came: no other child waits on */
    shared_t *sh = r->sh;
    atomic_fetch_add(&sh->sent, r->sent);
    atomic_fetch_add(&sh->skipped, r->skipped);
    atomic_fetch_add(&sh->diverged, r->diverged);
    atomic_fetch_add(&sh->late_live, r->late_live);
    atomic_fetch_add(&sh->late_sent, r->late_sent);
    atomic_fetch_add(&sh->clients, (uint32_t)r->ncl);
    if (rc < 0) {
        atomic_store(&sh->failed, 1);
        wake(sh);
    }
    return rc;
}

/* Forks the children and reads the clock for them until they are done. */
static int run_workers(replay_t *r) {
    shared_t *sh =
        mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return -1;
    r->sh = sh;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&sh->mu, &ma);
    pthread_mutexattr_destroy(&ma);
    sh->clk = r->clk;
    fflush(stdout);
    fflush(stderr);
    pid_t pid[WORKERS];
    uint32_t live = 0;
    int rc = 0;
    for (uint32_t w = 0; w < r->nworkers; w++) {
        pid[w] = fork();
        if (pid[w] == 0) {
            r->worker = w;
            r->clock_read_ns = 0;
            _exit(worker_run(r) < 0 ? 1 : 0);
        }
        if (pid[w] < 0) {
            atomic_store(&sh->failed, 1);
            rc = -1;
            break;
        }
        live++;
    }
    while (live) {
        int st = 0;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p > 0) {
            live--;
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                rc = -1;
                atomic_store(&sh->failed, 1);
                wake(sh);
            }
            continue;
        }
        if (p < 0 && errno != EINTR) break;
        clock_refresh(r);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return rc;
}

int ctl_replay_main(int argc, char **argv, const char *socket) {
    replay_t r = {.sock = socket, .speed = 1.0};
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(ctl_replay_usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--speed") && i + 1 < argc) {
            char *end = NULL;
            r.speed = strtod(argv[++i], &end);
            if (!end || *end || !(r.speed >= 0.01 && r.speed <= 100.0)) {
                fprintf(stderr, "heliodctl: replay: --speed: a number in [0.01, 100]\n");
                return CTL_EXIT_USAGE;
            }
        } else if (!file && argv[i][0] != '-') {
            file = argv[i];
        } else {
            fprintf(stderr, "heliodctl: replay: unexpected '%s' (try replay --help)\n", argv[i]);
            return CTL_EXIT_USAGE;
        }
    }
    if (!file) {
        fputs(ctl_replay_usage, stderr);
        return CTL_EXIT_USAGE;
    }
    int rc = run(&r, file);
    if (r.sh) munmap(r.sh, sizeof *r.sh);
    free(r.cl);
    ctl_vmap_destroy(&r.vm);
    free(r.mine);
    free(r.group);
    free(r.file);
    return rc;
}
