/*
 * ctl_run.c - heliodctl's request pipeline: every request command is parsed
 * (ctl_args.h), encoded by ctl_encode, timed (--at, a batch line's @), sent
 * with heliod_raw_async() in send_cmd, the one path from a parsed command to
 * a request, then waited for and reported in order (ctl_reply.c). A single
 * command is a batch of one; `batch` sends all its lines before waiting for
 * any reply; play --wait is a single command followed by an event loop
 * (ctl_watch.c). Also `load NAME -` (an upload from stdin).
 */
#include "ctl_run.h"

#include "ctl_args.h"
#include "ctl_out.h"
#include "heliod.h"
#include "hl_proto.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

heliod_t *ctl_conn;
ctl_evstate_t *ctl_play_wait;

static double mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void on_reply(void *user, uint32_t id, int status, const char *message, const uint8_t *body,
                     size_t len) {
    (void)id;
    ctl_result_t *res = user;
    res->done = 1;
    res->t_done = mono_ms();
    res->status = status;
    res->late =
        res->at && ctl_conn ? heliod_late_frames(ctl_conn) : 0; /* this reply's (heliod.h) */
    if (status < 0) {
        res->message = strdup(message ? message : heliod_strerror(status));
        return;
    }
    if (ctl_play_wait && res->kind == CTL_PLAY) {
        hl_rbuf_t r;
        hl_rbuf_init(&r, body, len);
        hl_play_reply_t pr;
        hl_get_play_reply(&r, &pr);
        if (!r.err) ctl_play_wait->wait_voice = pr.voice;
    }
    if (len) {
        res->body = malloc(len);
        if (!res->body) {
            res->status = HELIOD_ENOMEM;
            res->message = strdup("out of memory");
            return;
        }
        memcpy(res->body, body, len);
    }
    res->len = len;
}

/* Time: the engine frame "now" means for --at +MS and @+MS. A single command
 * reads the clock for itself; a batch reads it once, at its first timed
 * line, so a score keeps its relative times. */
typedef struct {
    int have;
    uint64_t origin; /* engine frame of "now" */
    uint32_t rate, period;
} timebase_t;
static timebase_t tbase;

static int timebase_read(heliod_t *h) {
    if (tbase.have) return 0;
    heliod_clock_t k;
    int rc = heliod_clock(h, &k);
    if (rc < 0) return rc;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    tbase.origin =
        heliod_clock_frame_at(&k, (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec);
    tbase.rate = k.rate;
    tbase.period = k.period;
    tbase.have = 1;
    return 0;
}

/* The frame c applies at (0: now, unscheduled). */
static int time_of(heliod_t *h, const ctl_cmd_t *c, uint64_t *frame) {
    *frame = 0;
    if (c->at.kind == CTL_AT_NONE && !c->at.quantize) return 0;
    if (!hl_op_schedulable(c->op)) return HELIOD_EINVAL;
    if (c->at.kind == CTL_AT_FRAME && !c->at.quantize) {
        *frame = c->at.frame;
        return 0;
    }
    int rc = timebase_read(h);
    if (rc < 0) return rc;
    /* quantised with no time: from two periods ahead, so it is not late */
    uint64_t origin = tbase.origin + (c->at.kind == CTL_AT_NONE ? 2u * tbase.period : 0u);
    ctl_at_t at = c->at;
    if (at.quantize && ctl_at_ref_is_voice(at.qref)) { /* a voice: its start frame */
        rc = heliod_voice_start_frame(h, at.qref, &at.qref);
        if (rc < 0) return rc;
    }
    *frame = ctl_at_resolve(&at, origin, tbase.rate);
    return 0;
}

static int send_cmd(heliod_t *h, const ctl_cmd_t *c, ctl_result_t *res) {
    static uint8_t body[HL_MAX_FRAME];
    int len = ctl_encode(c, body, sizeof body);
    if (len < 0) return len;
    uint64_t at = 0;
    int rc = time_of(h, c, &at);
    if (rc < 0) return rc;
    res->t_sent = mono_ms();
    res->at = at != 0;
    heliod_at_frame(h, at);
    rc = heliod_raw_async(h, c->op, body, (size_t)len, on_reply, res);
    heliod_at_frame(h, 0);
    if (rc < 0) return rc;
    res->sent = 1;
    return 0;
}

/* Pumps the connection until every sent request has its result, or the
 * timeout passes (then the rest fail with ETIMEDOUT). */
static int wait_all(heliod_t *h, ctl_result_t *res, size_t n) {
    double deadline = ctl_opts.timeout_ms > 0 ? mono_ms() + ctl_opts.timeout_ms : -1;
    for (;;) {
        int rc = heliod_dispatch(h);
        size_t left = 0;
        for (size_t i = 0; i < n; i++)
            left += res[i].sent && !res[i].done;
        if (!left) return 0;
        int fail = rc < 0 ? rc : 0;
        int wait = -1;
        if (!fail && deadline >= 0) {
            double rem = deadline - mono_ms();
            if (rem <= 0) fail = HELIOD_ETIMEDOUT;
            wait = (int)rem + 1;
        }
        if (fail) {
            for (size_t i = 0; i < n; i++) {
                if (res[i].sent && !res[i].done) {
                    res[i].done = 1;
                    res[i].status = fail;
                    res[i].message = strdup(heliod_strerror(fail));
                }
            }
            return fail;
        }
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        if (heliod_pending(h)) p.events |= POLLOUT;
        if (poll(&p, 1, wait) < 0 && errno != EINTR) return HELIOD_EIO;
    }
}

static void free_results(ctl_result_t *res, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(res[i].message);
        free(res[i].body);
    }
    free(res);
}

/* Prints results in order; returns the number that failed. */
static int report(heliod_t *h, ctl_result_t *res, size_t n, int batch) {
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (res[i].status == 0 && ctl_print_ok(h, &res[i], batch) < 0) {
            res[i].status = HELIOD_EPROTO;
            res[i].message = strdup("malformed reply from the daemon");
        }
        if (res[i].status < 0) {
            ctl_print_fail(&res[i], batch);
            failed++;
        }
    }
    fflush(stdout);
    return failed;
}

int ctl_run_single(heliod_t *h, const ctl_cmd_t *c) {
    ctl_result_t *res = calloc(1, sizeof *res);
    if (!res) return CTL_EXIT_FAIL;
    res->kind = c->kind;
    if (c->kind == CTL_PING) {
        double t0 = mono_ms();
        uint64_t ns = 0;
        int rc = heliod_ping(h, &ns);
        res->t_sent = t0;
        res->t_done = mono_ms();
        res->status = rc;
        if (rc < 0) {
            res->message = strdup(heliod_last_error(h));
        } else {
            res->body = malloc(sizeof ns);
            hl_wbuf_t w;
            hl_wbuf_init(&w, res->body, res->body ? sizeof ns : 0);
            hl_put_u64(&w, ns);
            res->len = w.len;
        }
    } else {
        int rc = send_cmd(h, c, res);
        if (rc < 0) {
            res->status = rc;
            res->message = strdup(rc == HELIOD_EINVAL && !hl_op_schedulable(c->op)
                                      ? "this command cannot be scheduled"
                                      : heliod_last_error(h));
        } else {
            wait_all(h, res, 1);
        }
    }
    int failed = report(h, res, 1, 0);
    free_results(res, 1);
    return failed ? CTL_EXIT_FAIL : 0;
}

/* batch: every line parsed and sent before any reply is awaited, except
 * that a LOAD's reply is awaited before the next line is sent. */
int ctl_run_batch(heliod_t *h, const char *file) {
    FILE *f = stdin;
    if (file && strcmp(file, "-") != 0) {
        f = fopen(file, "r");
        if (!f) {
            ctl_errorf("batch: cannot open '%s': %s", file, strerror(errno));
            return CTL_EXIT_FAIL;
        }
    }
    size_t cap = 64, n = 0;
    ctl_result_t *res = calloc(cap, sizeof *res);
    char *line = malloc(CTL_LINE_MAX);
    ctl_cmd_t *c = malloc(sizeof *c);
    if (!res || !line || !c) {
        ctl_errorf("out of memory");
        return CTL_EXIT_FAIL;
    }
    /* lines from a pipe or a terminal go out as they come (a script that
     * sleeps between lines, someone typing): the connection, and what it
     * owns (its voices, its music), lives until the input ends */
    struct stat st;
    const int live = fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode);
    int lineno = 0, in_bundle = 0, bundle_lines = 0;
    while (fgets(line, CTL_LINE_MAX, f)) {
        lineno++;
        char err[CTL_ERR_LEN] = "";
        char *argv[CTL_MAX_ARGS];
        int status = 0;
        size_t ll = strlen(line);
        int argc = 0;
        if (ll == CTL_LINE_MAX - 1 && line[ll - 1] != '\n') {
            snprintf(err, sizeof err, "line too long");
            status = HELIOD_ETOOBIG;
            int ch;
            while ((ch = fgetc(f)) != EOF && ch != '\n') {
            }
        } else {
            argc = ctl_split_line(line, argv, CTL_MAX_ARGS, err, sizeof err);
            if (argc == 0) continue;
            if (argc < 0) status = HELIOD_EINVAL;
        }
        /* time: '{' and '}' lines bracket a bundle, '@TIME' starts a timed line */
        int brace = status == 0 && argc == 1 && (!strcmp(argv[0], "{") || !strcmp(argv[0], "}"));
        if (brace && argv[0][0] == '{') {
            if (in_bundle) {
                snprintf(err, sizeof err, "a bundle is already open");
                status = HELIOD_EINVAL;
            } else {
                /* room for a whole bundle's results now: growing waits for replies,
                 * and a bundle's replies only come at its end */
                if (cap - n < HL_BUNDLE_REQS + 2) {
                    wait_all(h, res, n);
                    ctl_result_t *nr = realloc(res, (cap + HL_BUNDLE_REQS + 2) * sizeof *res);
                    if (!nr) {
                        ctl_errorf("out of memory");
                        break;
                    }
                    memset(nr + cap, 0, (HL_BUNDLE_REQS + 2) * sizeof *res);
                    res = nr;
                    cap += HL_BUNDLE_REQS + 2;
                }
                (void)timebase_read(h); /* a blocking call: not inside the bundle */
                int rc = heliod_bundle_begin(h);
                if (rc < 0) {
                    snprintf(err, sizeof err, "%s", heliod_last_error(h));
                    status = rc;
                } else {
                    in_bundle = 1;
                    bundle_lines = 0;
                    continue;
                }
            }
        } else if (brace) {
            if (!in_bundle) {
                snprintf(err, sizeof err, "'}' without '{'");
                status = HELIOD_EINVAL;
            } else {
                in_bundle = 0;
                int rc = heliod_bundle_end(h, NULL);
                if (rc >= 0 && live) rc = heliod_dispatch(h); /* the bundle goes out now */
                if (rc >= 0) continue;
                snprintf(err, sizeof err, "bundle: %s", heliod_last_error(h));
                status = rc;
            }
        } else if (in_bundle && ++bundle_lines > HL_BUNDLE_REQS) {
            snprintf(err, sizeof err, "bundle full (%d requests)", HL_BUNDLE_REQS);
            status = HELIOD_EBUSY;
        }
        ctl_at_t line_at = {0};
        if (status == 0 && argc > 0 && argv[0][0] == '@') {
            if (ctl_parse_at(argv[0] + 1, &line_at, err, sizeof err) < 0) status = HELIOD_EINVAL;
            for (int k = 1; k < argc; k++)
                argv[k - 1] = argv[k];
            argc--;
            if (status == 0 && argc == 0) {
                snprintf(err, sizeof err, "a time with no command");
                status = HELIOD_EINVAL;
            }
        }
        if (n == cap) {
            /* the replies in flight point into res: take them before it moves */
            wait_all(h, res, n);
            ctl_result_t *nr = realloc(res, 2 * cap * sizeof *res);
            if (!nr) {
                ctl_errorf("out of memory");
                break;
            }
            memset(nr + cap, 0, cap * sizeof *res);
            res = nr;
            cap *= 2;
        }
        ctl_result_t *r = &res[n++];
        r->line = lineno;
        if (status == 0 && ctl_parse_command(argc, argv, c, err, sizeof err) < 0)
            status = HELIOD_EINVAL;
        if (status == 0 && line_at.kind != CTL_AT_NONE) {
            if (!hl_op_schedulable(c->op)) {
                snprintf(err, sizeof err, "'%s' cannot be scheduled", argv[0]);
                status = HELIOD_EINVAL;
            }
            c->at.kind = line_at.kind;
            c->at.frame = line_at.frame;
            c->at.ms = line_at.ms;
        }
        if (status == 0 && (c->help || c->kind == CTL_WATCH || c->kind == CTL_METER ||
                            c->kind == CTL_BATCH || c->wait || (c->kind == CTL_LOAD && c->file))) {
            snprintf(err, sizeof err, "'%s%s' cannot run inside a batch", argv[0],
                     c->wait   ? " --wait"
                     : c->help ? " --help"
                               : "");
            status = HELIOD_EINVAL;
        }
        if (status == 0) {
            r->kind = c->kind;
            int rc = send_cmd(h, c, r);
            if (rc < 0) {
                status = rc;
                snprintf(err, sizeof err, "%s", heliod_last_error(h));
            } else if (c->kind == CTL_LOAD) {
                /* a load decodes on the daemon's threads: the lines after it
                 * (play, unload, sounds) see the sound once it is answered */
                wait_all(h, res, n);
            } else if (live && !in_bundle && heliod_dispatch(h) < 0) {
                status = HELIOD_EIO;
                snprintf(err, sizeof err, "%s", heliod_last_error(h));
            }
        }
        if (status < 0) {
            r->done = 1;
            r->status = status;
            r->message = strdup(err);
        }
    }
    if (in_bundle && heliod_bundle_end(h, NULL) < 0) /* an unclosed bundle still goes out */
        ctl_errorf("batch: bundle: %s", heliod_last_error(h));
    int rerr = ferror(f);
    if (f != stdin) fclose(f);
    free(line);
    free(c);
    wait_all(h, res, n);
    int failed = report(h, res, n, 1);
    free_results(res, n);
    if (rerr) {
        ctl_errorf("batch: read error");
        return CTL_EXIT_FAIL;
    }
    return failed ? CTL_EXIT_FAIL : 0;
}

/* load NAME -: the file from stdin, uploaded (LOAD_DATA chunks). */
int ctl_run_load_stdin(heliod_t *h, const ctl_cmd_t *c) {
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= HL_MAX_UPLOAD) {
                ctl_errorf("load: stdin is larger than %u MiB", HL_MAX_UPLOAD >> 20);
                free(buf);
                return CTL_EXIT_FAIL;
            }
            unsigned char *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0) break;
    }
    if (!buf || n == 0) {
        free(buf);
        ctl_errorf("load: %s", buf ? "nothing on stdin" : "out of memory");
        return CTL_EXIT_FAIL;
    }
    heliod_sound_info_t si;
    int rc = heliod_load_memory(h, c->m.load.name, buf, n,
                                c->m.load.flags & (HELIOD_LOAD_SHARED | HELIOD_LOAD_PIN), &si);
    free(buf);
    if (rc < 0) {
        ctl_errorf("load: %s: %s", hl_errname(rc), heliod_last_error(h));
        return CTL_EXIT_FAIL;
    }
    if (ctl_opts.json)
        printf("{\"ok\":true,\"name\":\"%s\",\"frames\":%u,\"channels\":%u,\"source_rate\":%u}\n",
               si.name, si.frames, si.channels, si.source_rate);
    else
        printf("%s frames=%u channels=%u source_rate=%u (uploaded %zu bytes)\n", si.name, si.frames,
               si.channels, si.source_rate, n);
    return 0;
}
