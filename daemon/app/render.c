/*
 * render.c - `heliod --render SCORE --out OUT.wav`: the same engine, no
 * device, no real-time pacing, a score instead of clients.
 *
 * The score is a heliodctl batch file (client/ctl_args.c parses and encodes
 * its lines, exactly as heliodctl does) whose lines may start with @FRAME or
 * @+MS (engine frames from the render's start; a line without a time takes
 * the previous line's), '{' and '}' lines bracket a bundle, and a line
 * '@TIME end' stops the render there (else it stops once the last line's
 * time has passed and no voice plays nor anything is scheduled); a first
 * line 'seed N' seeds the cues' random picks and variations (as --seed).
 *
 * The requests go through a real connection: one end of a socketpair is
 * accepted like any client (conn.c, dispatch, the voice manager), the other
 * is written here. Each line is sent in the period before its frame with
 * HL_FLAG_AT, so the mixer applies it on its sample; a request is answered
 * (a LOAD once decoded, a streamed play once opened) before any period after
 * it is rendered. Then, per period:
 *
 *   wait until the decoder pool is settled (no open pending, every stream's
 *   ring full or ended) and no world zone's bank is loading -> set the
 *   virtual clock -> pull one period through the render backend -> write
 *   it -> one poll tick (mixer events, voice manager) -> the world zones'
 *   ticks the rendered time passed (--zone-tick-hz) -> run the loop's
 *   ready handles
 *
 * so nothing depends on how fast the CPU, the disk or the threads were: two
 * renders of a score give byte-identical files (float WAV, no PEAK chunk,
 * whose time stamp would differ), and a score timed in frames renders what a
 * real-time null-driver recording of it holds (both start at engine frame
 * 0 and run the same periods). The virtual clock (hld_now_ns follows the
 * rendered frames) keeps the voice manager's ticks and cue retrigger limits
 * on the audio's time. Progress goes to stderr when it is a terminal.
 */
#include "render.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sndfile.h>

#include "backend.h"
#include "conn.h"
#include "ctl_args.h"
#include "daemon.h"
#include "world_zones.h"
#include "engine.h"
#include "hld_limits.h"
#include "log.h"
#include "loop.h"
#include "recorder.h"
#include "render_int.h"

#define RENDER_LINE_MAX    HLD_RENDER_LINE_MAX
#define RENDER_VIRTUAL_T0  1000000000ull /* virtual clock at frame 0 (never 0: 0 = real) */
#define RENDER_ZONE_WAIT_S 30            /* the longest a render waits for a zone's bank (wall s) */

typedef enum { IT_CMD, IT_BEGIN, IT_END } item_kind_t;

typedef struct {
    item_kind_t kind;
    int line;
    uint64_t at; /* engine frame; 0 = at once */
    uint16_t op;
    uint32_t len;
    uint8_t *body;
} item_t;

typedef struct {
    item_t *it;
    size_t n, cap;
    uint64_t end;  /* '@TIME end', 0 = none */
    uint64_t seed; /* 'seed N': the cues' random state, 0 = --seed's */
} score_t;

static void score_free(score_t *s) {
    for (size_t i = 0; i < s->n; i++)
        free(s->it[i].body);
    free(s->it);
}

static int score_add(score_t *s, const item_t *it) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        item_t *n = realloc(s->it, cap * sizeof *n);
        if (!n) return -1;
        s->it = n;
        s->cap = cap;
    }
    s->it[s->n++] = *it;
    return 0;
}

static uint64_t at_frame(const ctl_at_t *a, uint32_t rate) {
    return ctl_at_resolve(a, 0, rate);
}

/* Opens the score: a regular file (a FIFO or /dev/zero would hang or never
 * end) of at most HLD_RENDER_SCORE_MAX_BYTES. NULL after saying why. */
static FILE *score_open(const char *path) {
    const char *why = NULL;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        why = strerror(errno);
    else if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if ((uint64_t)st.st_size > HLD_RENDER_SCORE_MAX_BYTES)
        why = "larger than 16 MiB";
    FILE *f = NULL;
    if (!why) {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 || !(f = fdopen(fd, "r")))
            why = strerror(errno);
    }
    if (why) {
        fprintf(stderr, "heliod: --render: cannot read the score '%s': %s\n", path, why);
        if (fd >= 0) close(fd);
        return NULL;
    }
    return f;
}

/* Parses the whole score first: a bad line stops the render before it
 * starts, and so does a time beyond max_frames (--max-seconds). */
static int score_load(score_t *s, const char *path, uint32_t rate, uint64_t max_frames) {
    FILE *f = score_open(path);
    if (!f) return -1;
    char *line = NULL;
    size_t line_cap = 0;
    ctl_cmd_t *c = malloc(sizeof *c);
    static uint8_t body[HL_MAX_FRAME];
    int lineno = 0, rc = c ? 0 : -1, open = 0;
    uint64_t t = 0, bytes = 0;
    ssize_t got;
    while (rc == 0 && (got = getline(&line, &line_cap, f)) >= 0) {
        lineno++;
        char err[CTL_ERR_LEN] = "";
        size_t ll = (size_t)got;
        bytes += ll;
        if (ll > 0 && line[ll - 1] == '\n') line[--ll] = '\0';
        const char *bad = bytes > HLD_RENDER_SCORE_MAX_BYTES ? "the score is larger than 16 MiB"
                          : ll > RENDER_LINE_MAX ? "line longer than " HLD_RENDER_LINE_MAX_S
                                                   " bytes"
                          : memchr(line, '\0', ll) ? "a NUL byte (not a text file)"
                                                   : NULL;
        if (bad) { /* an error, never a line split in two */
            fprintf(stderr, "heliod: --render: %s:%d: %s\n", path, lineno, bad);
            rc = -1;
            break;
        }
        char *argv[CTL_MAX_ARGS];
        int argc = ctl_split_line(line, argv, CTL_MAX_ARGS, err, sizeof err);
        if (argc == 0) continue;
        ctl_at_t at = {0};
        if (argc > 0 && argv[0][0] == '@') {
            if (ctl_parse_at(argv[0] + 1, &at, err, sizeof err) < 0) argc = -1;
            for (int k = 1; argc > 0 && k < argc; k++)
                argv[k - 1] = argv[k];
            if (argc > 0) argc--;
            if (argc == 0) snprintf(err, sizeof err, "a time with no command"), argc = -1;
            if (argc > 0) t = at_frame(&at, rate);
        }
        item_t it = {.line = lineno, .at = t};
        if (argc == 1 && (!strcmp(argv[0], "{") || !strcmp(argv[0], "}"))) {
            it.kind = argv[0][0] == '{' ? IT_BEGIN : IT_END;
            if ((it.kind == IT_BEGIN) == (open != 0)) {
                snprintf(err, sizeof err, "%s",
                         open ? "a bundle is already open" : "'}' without '{'");
                argc = -1;
            }
            open = it.kind == IT_BEGIN;
        } else if (argc == 1 && !strcmp(argv[0], "end")) {
            if (t > max_frames) {
                fprintf(stderr,
                        "heliod: --render: %s:%d: the end (%.1f s) is beyond --max-seconds "
                        "(%.0f s)\n",
                        path, lineno, (double)t / rate, (double)max_frames / rate);
                rc = -1;
                continue;
            }
            s->end = t ? t : 1;
            continue;
        } else if (argc == 2 && !strcmp(argv[0], "seed")) {
            uint64_t v;
            if (ctl_parse_u64(argv[1], &v) < 0 || v == 0 || s->n) {
                snprintf(err, sizeof err, "seed: a number >= 1, before the first request");
                argc = -1;
            } else {
                s->seed = v;
                continue;
            }
        } else if (argc > 0) {
            if (ctl_parse_command(argc, argv, c, err, sizeof err) < 0) {
                argc = -1;
            } else if (c->help || c->kind == CTL_WATCH || c->kind == CTL_METER ||
                       c->kind == CTL_BATCH || c->wait || c->at.kind != CTL_AT_NONE) {
                snprintf(err, sizeof err, "'%s' cannot run in a score (times go first: @TIME)",
                         argv[0]);
                argc = -1;
            } else {
                int len = ctl_encode(c, body, sizeof body);
                if (len < 0) {
                    snprintf(err, sizeof err, "%s", hl_strerror(len));
                    argc = -1;
                } else {
                    it.kind = IT_CMD;
                    it.op = c->op;
                    it.len = (uint32_t)len;
                    it.body = malloc((size_t)len + 1);
                    if (!it.body)
                        argc = -1;
                    else
                        memcpy(it.body, body, (size_t)len);
                    /* a quantised start: onto its grid at parse time */
                    if (c->at.quantize) it.at = ctl_at_resolve(&c->at, t, rate);
                    if (c->at.quantize && ctl_at_ref_is_voice(c->at.qref)) {
                        snprintf(err, sizeof err, "--quantize-ref: a score's grid is a frame");
                        argc = -1;
                    }
                }
            }
        }
        if (argc >= 0 && it.at > max_frames) {
            snprintf(err, sizeof err, "the time %.1f s is beyond --max-seconds (%.0f s)",
                     (double)it.at / rate, (double)max_frames / rate);
            free(it.body);
            it.body = NULL;
            argc = -1;
        }
        if (argc < 0) {
            fprintf(stderr, "heliod: --render: %s:%d: %s\n", path, lineno, err);
            rc = -1;
        } else if (score_add(s, &it) != 0) {
            free(it.body);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "heliod: --render: %s: read error\n", path);
        rc = -1;
    }
    if (rc == 0 && open) {
        fprintf(stderr, "heliod: --render: %s: a bundle is not closed\n", path);
        rc = -1;
    }
    fclose(f);
    free(line);
    free(c);
    return rc;
}

/* ---- the client end of a connection ---------------------------------------- */

int hld_rconn_open(hld_daemon_t *d, hld_rconn_t *c) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    c->d = d;
    c->fd = sv[1];
    (void)fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
    hld_conn_accept(&d->net, sv[0]);
    return 0;
}

int hld_rconn_open_as(hld_daemon_t *d, hld_rconn_t *c, uint32_t process) {
    hld_conn_t *before = d->net.conns;
    if (hld_rconn_open(d, c) != 0) return -1;
    hld_conn_t *x = d->net.conns; /* accepted: at the head of the list */
    if (x && x != before && x->cl && hld_clients_rehome(x->cl, process) != 0) return -1;
    return 0;
}

int hld_rconn_send(hld_rconn_t *c, uint16_t op, uint16_t flags, uint64_t at, const uint8_t *body,
                   size_t len) {
    static uint8_t buf[HL_MAX_FRAME + 16];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    uint32_t id = ++c->next_id;
    hl_frame_begin(&w, op, flags, id);
    if (flags & HL_FLAG_AT) hl_put_u64(&w, at);
    for (size_t i = 0; i < len; i++)
        hl_put_u8(&w, body[i]);
    int n = hl_frame_end(&w);
    if (n < 0) return n;
    for (size_t off = 0; off < (size_t)n;) {
        ssize_t k = write(c->fd, buf + off, (size_t)n - off);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && errno == EAGAIN) { /* the daemon reads it on the next loop pass */
            uv_run(c->d->loop, UV_RUN_NOWAIT);
            if (hld_rconn_read(c) < 0) return HELIOD_EIO; /* its replies may fill ours */
            continue;
        }
        if (k <= 0) return HELIOD_EIO;
        off += (size_t)k;
    }
    if (!(flags & HL_FLAG_NOREPLY)) c->waiting++;
    return 0;
}

/* The score line a request id was sent for (ids count from 1 per sent frame). */
static void report_error(hld_rconn_t *c, const hl_frame_hdr_t *h, const uint8_t *body, size_t len) {
    hl_rbuf_t r;
    hl_rbuf_init(&r, body, len);
    char msg[HL_MAX_MSG + 1] = "";
    int status = 0;
    if (h->op == HL_OP_REPLY) {
        hl_reply_head_t rh;
        hl_get_reply_head(&r, &rh);
        status = rh.status;
        if (status < 0) hl_get_str(&r, msg, sizeof msg);
    } else {
        hl_event_t ev;
        hl_get_event(&r, &ev);
        if (ev.type != HL_EVENT_ERROR) return;
        status = ev.status;
        snprintf(msg, sizeof msg, "%s", ev.message);
    }
    if (status >= 0) return;
    c->failed++;
    if (!c->quiet)
        fprintf(stderr, "heliod: --render: request %u: %s: %s\n", h->id, hl_errname(status),
                msg[0] ? msg : hl_strerror(status));
}

int hld_rconn_read(hld_rconn_t *c) {
    for (;;) {
        ssize_t k = read(c->fd, c->in + c->in_len, sizeof c->in - c->in_len);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && errno == EAGAIN) break;
        if (k <= 0) return -1;
        c->in_len += (size_t)k;
        if (c->in_len == sizeof c->in) break; /* parse, then read on */
    }
    size_t off = 0;
    for (;;) {
        hl_frame_hdr_t h;
        int rc = hl_frame_peek(c->in + off, c->in_len - off, &h);
        if (rc == 1 || (rc == 0 && h.size > c->in_len - off)) break;
        if (rc < 0) return -1;
        const uint8_t *body = c->in + off + HL_FRAME_HDR;
        size_t len = h.size - HL_FRAME_HDR;
        if (h.op == HL_OP_REPLY && c->waiting) c->waiting--;
        report_error(c, &h, body, len);
        if (c->on_reply) c->on_reply(c->user, c, &h, body, len);
        off += h.size;
    }
    memmove(c->in, c->in + off, c->in_len - off);
    c->in_len -= off;
    return 0;
}

int hld_rconn_wait(hld_rconn_t *c) {
    while (c->waiting) {
        hld_files_tick(&c->d->files); /* a file a request names has the open budget here too */
        uv_run(c->d->loop, UV_RUN_NOWAIT);
        if (hld_rconn_read(c) < 0) return -1;
        if (!c->waiting) break;
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        (void)poll(&p, 1, 1); /* a load decodes on the pool: look again shortly */
    }
    return 0;
}

void hld_rconn_close(hld_rconn_t *c) {
    if (c->fd < 0) return;
    uint32_t before = c->d->net.clients;
    close(c->fd);
    c->fd = -1;
    /* its EOF is read on the loop: the connection's voices stop before the
     * next period, as they did when the client left (bounded: 2 s) */
    for (int i = 0; i < 2000 && c->d->net.clients >= before && before; i++) {
        uv_run(c->d->loop, UV_RUN_NOWAIT);
        struct timespec ts = {0, 1000000};
        if (c->d->net.clients >= before) nanosleep(&ts, NULL);
    }
}

/* ---- a score ---------------------------------------------------------------- */

typedef struct {
    hld_rconn_t c;
    const score_t *s;
    size_t next;
} score_feed_t;

static int say_hello(hld_rconn_t *c) {
    uint8_t b[128];
    hl_wbuf_t w;
    hl_wbuf_init(&w, b, sizeof b);
    hl_hello_t m = {
        .version = HL_PROTO_VERSION, .flags = HL_HELLO_CONTROL, .minor = HL_PROTO_MINOR};
    snprintf(m.client_name, sizeof m.client_name, "render");
    hl_put_hello(&w, &m);
    if (hld_rconn_send(c, HL_OP_HELLO, 0, 0, b, w.len) != 0) return -1;
    return hld_rconn_wait(c);
}

/* Sends the items due before frame `until`; a bundle goes whole. */
static int score_send_due(void *user, uint64_t frame, uint64_t until) {
    (void)frame;
    score_feed_t *sf = user;
    hld_rconn_t *c = &sf->c;
    const score_t *s = sf->s;
    size_t *next = &sf->next;
    while (*next < s->n && s->it[*next].at < until) {
        const item_t *it = &s->it[(*next)++];
        int rc;
        if (it->kind == IT_BEGIN) {
            rc = hld_rconn_send(c, HL_OP_BUNDLE_BEGIN, HL_FLAG_NOREPLY, 0, NULL, 0);
            while (rc == 0 && *next < s->n && s->it[*next].kind == IT_CMD) {
                const item_t *b = &s->it[(*next)++];
                int timed = b->at && hl_op_schedulable(b->op);
                rc = hld_rconn_send(c, b->op, timed ? HL_FLAG_AT : 0, b->at, b->body, b->len);
            }
            if (rc == 0 && *next < s->n) {
                (*next)++; /* the END */
                rc = hld_rconn_send(c, HL_OP_BUNDLE_END, 0, 0, NULL, 0);
            }
        } else {
            int timed = it->at && hl_op_schedulable(it->op);
            rc = hld_rconn_send(c, it->op, timed ? HL_FLAG_AT : 0, it->at, it->body, it->len);
        }
        if (rc != 0) return rc;
        /* answered before anything later is sent or rendered: a load is
         * decoded, a play has its voice (a later stop names it by order) */
        if (hld_rconn_wait(c) != 0) return -1;
    }
    return 0;
}

static int score_read(void *user) {
    return hld_rconn_read(&((score_feed_t *)user)->c);
}

static int score_sent_all(void *user) {
    score_feed_t *sf = user;
    return sf->next == sf->s->n;
}

/* ---- the period loop ---------------------------------------------------------- */

static int vm_idle(const hld_vm_t *vm) {
    hld_vm_stats_t vs;
    hld_vm_stats(vm, &vs);
    return vs.active == 0 && vs.fading == 0 && vs.opening == 0;
}

static void wait_settled(hld_daemon_t *d) {
    /* a zone's bank completes on the loop too; a hung one (its opens have a
     * time budget of their own) is not waited for past RENDER_ZONE_WAIT_S */
    struct timespec w0, w;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    for (;;) {
        int zones = hld_wzones_loading(d->wzones);
        if (zones) {
            clock_gettime(CLOCK_MONOTONIC, &w);
            if (w.tv_sec - w0.tv_sec > RENDER_ZONE_WAIT_S) zones = 0;
        }
        if (hld_decoder_settled(&d->decoder) && !zones) break;
        hld_files_tick(&d->files);      /* a zone's manifest read has the open budget */
        uv_run(d->loop, UV_RUN_NOWAIT); /* stream opens complete on the loop */
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    uv_run(d->loop, UV_RUN_NOWAIT);
}

void hld_render_clock_start(void) {
    atomic_store(&hld_virtual_ns, RENDER_VIRTUAL_T0);
}

int hld_render_loop(hld_daemon_t *d, const hld_render_feed_t *f) {
    const hld_config_t *cfg = &d->cfg;
    uint32_t max_s = cfg->render_max_s ? cfg->render_max_s : HLD_RENDER_DEFAULT_SECONDS;
    const uint64_t max_frames = (uint64_t)max_s * cfg->rate;
    SF_INFO info = {.samplerate = (int)cfg->rate,
                    .channels = (int)cfg->channels,
                    .format = (cfg->channels == HLD_CHANNELS ? SF_FORMAT_WAV : SF_FORMAT_WAVEX) |
                              SF_FORMAT_FLOAT};
    SNDFILE *out = sf_open(cfg->out, SFM_WRITE, &info);
    if (out && hld_wav_set_layout(out, cfg->layout) != 0) {
        sf_close(out);
        out = NULL;
    }
    float *buf = calloc((size_t)cfg->period * cfg->channels, sizeof(float));
    if (!out || !buf) {
        fprintf(stderr, "heliod: --out %s: %s\n", cfg->out,
                out ? "out of memory" : sf_strerror(NULL));
        if (out) sf_close(out);
        free(buf);
        return -1;
    }
    if (cfg->render_events[0] && !(d->music_log = fopen(cfg->render_events, "w"))) {
        fprintf(stderr, "heliod: --render-events %s: %s\n", cfg->render_events, strerror(errno));
        sf_close(out);
        free(buf);
        return -1;
    }
    /* a PEAK chunk carries a time stamp: two renders would differ */
    sf_command(out, SFC_SET_ADD_PEAK_CHUNK, NULL, SF_FALSE);
    int rc = 0, cut = 0;
    int tty = isatty(STDERR_FILENO);
    uint64_t frame = 0, t0 = RENDER_VIRTUAL_T0, period = cfg->period, last = f->last;
    uint64_t zone_tick = hld_wzones_tick_ns(d->wzones), next_zone = t0 + zone_tick;
    struct timespec w0;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    while (rc == 0) {
        rc = f->send_due(f->user, frame, frame + period);
        if (rc != 0) break;
        if (f->end && frame >= f->end) break;
        if (!f->end && f->sent_all(f->user) && frame > last &&
            hl_mixer_active(d->engine.mixer) == 0 && vm_idle(d->vm) &&
            hl_mixer_sched_pending(d->engine.mixer) == 0)
            break;
        if (frame >= max_frames) { /* still playing (a loop, a far schedule): cut here */
            fprintf(stderr,
                    "heliod: --render: still playing at --max-seconds (%u s): the output "
                    "stops there (end the score with '@TIME end', or raise --max-seconds)\n",
                    max_s);
            cut = 1;
            break;
        }
        wait_settled(d);
        uint64_t stop = f->end ? f->end : max_frames;
        uint32_t n = (uint32_t)(stop - frame < period ? stop - frame : period);
        atomic_store(&hld_virtual_ns, t0 + frame * HLD_NS_PER_S / cfg->rate);
        hld_backend_render_pull(&d->engine.backend, buf, cfg->period);
        if (sf_writef_float(out, buf, n) != (sf_count_t)n) {
            fprintf(stderr, "heliod: --out %s: %s\n", cfg->out, sf_strerror(out));
            rc = -1;
        }
        frame += period;
        atomic_store(&hld_virtual_ns, t0 + frame * HLD_NS_PER_S / cfg->rate);
        hld_loop_poll(d);
        /* world zones tick on the rendered time, as the timer would */
        uint64_t vnow = t0 + frame * HLD_NS_PER_S / cfg->rate;
        for (; next_zone <= vnow; next_zone += zone_tick)
            if (d->wzones->zs.n) hld_wzones_tick(d->wzones);
        uv_run(d->loop, UV_RUN_NOWAIT);
        if (f->read(f->user) < 0) rc = -1;
        if (tty && frame % (cfg->rate * 2 / period * period) == 0) {
            struct timespec w;
            clock_gettime(CLOCK_MONOTONIC, &w);
            double wall = (double)(w.tv_sec - w0.tv_sec) + (double)(w.tv_nsec - w0.tv_nsec) / 1e9;
            double secs = (double)frame / cfg->rate;
            fprintf(stderr, "\rrender: %.1f s%s%.1f s, %.0fx real time   ", secs,
                    last ? " of >= " : "", (double)last / cfg->rate, wall > 0 ? secs / wall : 0.0);
        }
    }
    if (tty) fprintf(stderr, "\n");
    sf_close(out);
    if (d->music_log) {
        if (fclose(d->music_log) != 0) rc = -1;
        d->music_log = NULL;
    }
    free(buf);
    hld_info("render: %llu frames to %s", (unsigned long long)frame, cfg->out);
    return rc != 0 ? -1 : cut ? 4 : 0;
}

int hld_render_run(hld_daemon_t *d) {
    const hld_config_t *cfg = &d->cfg;
    score_t s = {0};
    uint32_t max_s = cfg->render_max_s ? cfg->render_max_s : HLD_RENDER_DEFAULT_SECONDS;
    if (score_load(&s, cfg->render, cfg->rate, (uint64_t)max_s * cfg->rate) != 0) {
        score_free(&s);
        return 2;
    }
    score_feed_t *sf = calloc(1, sizeof *sf);
    if (!sf) {
        score_free(&s);
        return 1;
    }
    sf->s = &s;
    sf->c.fd = -1;
    hld_render_feed_t f = {
        .user = sf, .send_due = score_send_due, .read = score_read, .sent_all = score_sent_all};
    for (size_t i = 0; i < s.n; i++)
        f.last = s.it[i].at > f.last ? s.it[i].at : f.last;
    if (s.end) f.end = s.end;
    if (s.seed) d->cues.rng = s.seed; /* the score's own seed wins over --seed */
    hld_render_clock_start();
    int rc = hld_rconn_open(d, &sf->c);
    if (rc == 0) rc = say_hello(&sf->c);
    if (rc == 0) rc = hld_render_loop(d, &f);
    if (sf->c.fd >= 0) close(sf->c.fd); /* the daemon's end closes on EOF */
    int failed = sf->c.failed;
    free(sf);
    score_free(&s);
    atomic_store(&hld_virtual_ns, 0); /* the shutdown waits on the real clock */
    if (failed) hld_info("render: some requests failed");
    return rc < 0 ? 1 : rc == 4 ? 4 : failed ? 3 : 0;
}
