/*
 * capture_ops.c - CAPTURE (op 68): a control client starts or stops the
 * session capture (capture.h). The file is opened on a file job (fileio.h),
 * never on the event loop: a FIFO, a hung mount or a path we may not write
 * is answered with an error (EFILE, ETIMEDOUT after the open budget) and
 * nothing is captured; the capture starts when the open succeeded: the
 * HELLOs of the connections open then, the state preamble (capture_state.c),
 * then the CAPTURE request as its first live record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "dispatch.h"
#include "dispatch_int.h"
#include "fileio.h"
#include "hl_mixer.h"
#include "log.h"

hld_capture_t *hld_capture_begin(hld_daemon_t *d, const char *path, int fd, int include_audio) {
    hld_capture_session_t s = {.rate = d->cfg.rate,
                               .period = d->cfg.period,
                               .channels = d->cfg.channels,
                               .frame = hl_mixer_frames(d->engine.mixer),
                               .rng = d->cues.rng};
    return hld_capture_start(path, fd, include_audio, &s);
}

/* The connections open when a capture starts, oldest first: a HELLO record
 * each (their name, control flag and protocol minor; flag OPEN) and their
 * PROCESS, so a replay opens them and charges them to their process's
 * quotas before any of their requests. */
static void capture_open_conns(hld_daemon_t *d, uint64_t frame) {
    hld_conn_t *c = d->net.conns;
    while (c && c->next)
        c = c->next;
    for (; c; c = c->prev) {
        if (!c->hello || c->closing) continue;
        hl_hello_t m = {.version = HL_PROTO_VERSION,
                        .flags = c->control ? HL_HELLO_CONTROL : 0,
                        .minor = c->minor};
        snprintf(m.client_name, sizeof m.client_name, "%s", c->name);
        uint8_t body[128];
        hl_wbuf_t w;
        hl_wbuf_init(&w, body, sizeof body);
        hl_put_hello(&w, &m);
        hl_frame_hdr_t h = {.size = (uint32_t)(HL_FRAME_HDR + w.len), .op = HL_OP_HELLO};
        hld_capture_request(d->capture, frame, HLD_CAPTURE_REQ_OPEN, c->id, 0, 0, &h, body, w.len);
        hld_capture_process(d->capture, c->id, c->cl ? c->cl->proc->pid : 0);
    }
}

typedef struct {
    hld_fjob_t j; /* first */
    hl_capture_t m;
    int fd;
    hld_later_t l;
} cap_job_t;

static void cap_work(hld_fjob_t *j) {
    cap_job_t *c = (cap_job_t *)j;
    hld_fjob_io_begin(j, c->m.path);
    c->fd = hld_capture_open(c->m.path);
    int err = errno;
    hld_fjob_io_end(j);
    if (c->fd < 0) {
        j->status = HELIOD_EFILE;
        snprintf(j->msg, sizeof j->msg, "capture: %.160s: %s", c->m.path,
                 err == EINVAL ? "not a regular file" : strerror(err));
    }
}

static void cap_cleanup(hld_fjob_t *j) {
    cap_job_t *c = (cap_job_t *)j;
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
}

static void cap_done(hld_fjob_t *j) {
    cap_job_t *c = (cap_job_t *)j;
    hld_req_t q;
    hld_daemon_t *d = c->l.c->d;
    d->capture_opening = 0;
    int live = hld_later_req(&c->l, &q);
    int rc = j->answer_status;
    if (rc == 0 && live && !d->shutting_down) {
        d->capture = hld_capture_begin(d, c->m.path, c->fd, (c->m.flags & HL_CAPTURE_AUDIO) != 0);
        if (d->capture) {
            c->fd = -1; /* the writer's */
            /* one frame for the open HELLOs, the preamble and the CAPTURE */
            uint64_t f0 = hl_mixer_frames(d->engine.mixer);
            capture_open_conns(d, f0);
            uint32_t pre = hld_capture_state(d, f0);
            hld_info("capture: %s: started on frame %llu; its state preamble: %u records",
                     c->m.path, (unsigned long long)f0, pre);
            uint8_t body[HL_MAX_PATH + 16];
            hl_wbuf_t w;
            hl_wbuf_init(&w, body, sizeof body);
            hl_put_capture(&w, &c->m);
            hld_capture_request(d->capture, f0, 0, c->l.c->id, 0, 0, &c->l.h, body, w.len);
            hld_reply_count(&q, 0);
        } else {
            hld_fail(&q, HELIOD_ENOMEM, "capture: could not start the writer");
        }
    } else if (live) {
        hld_fail(&q, rc ? rc : HELIOD_ESHUTDOWN, rc ? j->answer_msg : NULL);
    }
    hld_later_end(&c->l);
}

/* CAPTURE (control clients): start the session capture into an absolute
 * path, or stop it (COUNT: the requests it captured). Stopping does not wait
 * for the writer: the previous ended capture's writer is joined at the next
 * start or stop, or at exit. */
int hld_op_capture(hld_req_t *q) {
    hl_capture_t m;
    hl_get_capture(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_check_capture(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    if (!q->c->control) {
        d->n.denied++;
        return hld_fail(q, HELIOD_EPERM, "capture: needs a control client (heliodctl capture)");
    }
    if (m.action == HL_CAPTURE_START) {
        if (m.path[0] != '/') return hld_fail(q, HELIOD_EINVAL, "path: must be absolute");
        if (d->capture || d->capture_opening)
            return hld_fail(q, HELIOD_EBUSY, "capture: one is running already");
        hld_capture_join(d->capture_ended); /* long done, normally */
        d->capture_ended = NULL;
        cap_job_t *c = hld_fjob_new(sizeof *c);
        if (!c) return hld_fail(q, HELIOD_ENOMEM, NULL);
        c->m = m;
        c->fd = -1;
        c->j.work = cap_work;
        c->j.done = cap_done;
        c->j.cleanup = cap_cleanup;
        c->j.who = hld_client_who(q->c->cl);
        d->capture_opening = 1;
        hld_later_begin(&c->l, q);
        hld_files_submit(&d->files, &c->j);
        return 0;
    }
    if (!d->capture) return hld_fail(q, HELIOD_EINVAL, "capture: none is running");
    uint32_t n = (uint32_t)hld_capture_records(d->capture) + 1; /* this request too */
    hld_capture_join(d->capture_ended);
    d->capture_ended = d->capture;
    d->capture = NULL;
    q->status = 0;
    uint64_t frame = hl_mixer_frames(d->engine.mixer);
    hld_capture_request(d->capture_ended, frame, 0, q->c->id, 0, 0, q->h, q->r.buf, q->r.len);
    hld_capture_set_end(d->capture_ended, frame);
    hld_capture_end(d->capture_ended);
    return hld_reply_count(q, n);
}
