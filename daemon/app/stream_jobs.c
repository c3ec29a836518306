/*
 * stream_jobs.c - the opens of streamed sounds on the decoder pool (see
 * stream_jobs.h): a first PLAY of a stream voice that ranks real, a SET
 * --seek of a real stream voice, a virtual stream voice ranked real again.
 *
 * The open (file, seek, resampler, prefill) runs on the decoder pool, never
 * on the loop. A first PLAY is answered when the pool hands the primed
 * stream back (stream_done); its reply may come after those of later
 * requests (libheliod matches by id). A virtual stream voice decodes
 * nothing; when it ranks real again the voice manager asks for an open at
 * its position (hld_voice_open_stream) and no request waits for it. SET
 * --seek of a real stream voice opens a new stream at the position and the
 * mixer switches to it click-free. A job holds a reference on its
 * connection: if the client is gone by then the stream is released.
 */
#include "stream_jobs.h"

#include <stdlib.h>

#include "dispatch_int.h"

/* ---- stream opens on the decoder pool ------------------------------------- */

#define JOB_PLAY    0 /* first play of a stream voice: the request waits */
#define JOB_SEEK    1 /* SET --seek of a real stream voice: the request waits */
#define JOB_REALISE 2 /* a virtual stream voice ranked real: nobody waits */

typedef struct hld_stream_job {
    struct hld_stream_job *prev, *next; /* d->stream_jobs */
    hld_daemon_t *d;
    hld_conn_t *c; /* referenced until the job is done; NULL for JOB_REALISE */
    uint32_t id;
    uint16_t op, flags;
    hld_sound_t *snd; /* its `pending` counts this job */
    int kind;
    int superseded; /* seek: a later seek of the voice was queued: drop, answer OK */
    int cancelled;  /* seek: the request already failed and was answered */
    uint64_t voice; /* logical handle */
    double seek_pos;
    int64_t loops; /* seek: the passes the new stream plays */
} stream_job_t;

static void job_unlink(stream_job_t *j) {
    hld_daemon_t *d = j->d;
    if (j->prev)
        j->prev->next = j->next;
    else
        d->stream_jobs = j->next;
    if (j->next) j->next->prev = j->prev;
    j->prev = j->next = NULL;
}

void hld_reply_play(hld_req_t *q, uint64_t voice, uint64_t stolen) {
    q->voice = voice;
    if (q->h->flags & HL_FLAG_NOREPLY) return;
    hl_play_reply_t pr = {.voice = voice, .stolen = stolen};
    hld_reply_begin(q);
    hl_put_play_reply(&q->w, &pr);
    hld_reply_end(q);
}

/* The decoder pool finished opening a job's stream (main thread). */
static void stream_done(void *user, hld_dstream_t *ds, int status, const char *msg) {
    stream_job_t *j = user;
    hld_daemon_t *d = j->d;
    hld_conn_t *c = j->c;
    hl_frame_hdr_t h = {.op = j->op, .flags = j->flags, .id = j->id};
    hld_req_t q = {.c = c, .h = &h};
    int gone = !c || c->closing;
    job_unlink(j);
    if (j->snd->pending) j->snd->pending--;
    /* a private sound whose client left goes once nothing uses it; a voice
     * still starting or seeking holds it (j->snd is not used below) */
    hld_sounds_release(&d->sounds, j->snd);
    if (status == 0 && d->shutting_down) {
        status = HELIOD_ESHUTDOWN;
        msg = NULL;
    }
    uint64_t now = hld_now_ns();
    if (j->kind == JOB_REALISE) {
        if (status < 0) {
            hld_dstream_release(&d->decoder, ds);
            hld_vm_stream_failed(d->vm, j->voice);
        } else {
            hld_vm_stream_ready(d->vm, j->voice, &ds->stream, now);
        }
    } else if (j->kind == JOB_PLAY) {
        if (status < 0) {
            hld_vm_stream_failed(d->vm, j->voice);
            if (!gone) hld_send_error(c, j->op, j->flags, j->id, status, msg); /* msg is in ds */
            hld_dstream_release(&d->decoder, ds);
        } else {
            int rc = hld_vm_stream_ready(d->vm, j->voice, &ds->stream, now);
            if (!gone) {
                if (rc == HELIOD_ENOVOICE)
                    hld_fail(&q, rc, "stopped before its stream was ready");
                else if (rc < 0)
                    hld_mixer_fail(&q, rc);
                else
                    hld_reply_play(&q, j->voice, 0);
            }
        }
    } else { /* JOB_SEEK */
        int drop = status < 0 || j->cancelled || j->superseded;
        hld_lvoice_t *lv = drop ? NULL : hld_vm_get(d->vm, j->voice);
        int rc = HELIOD_ENOVOICE;
        if (lv && lv->real && lv->mix) {
            hl_voice_set_t s = {.mask = HL_MIX_SET_STREAM, .stream = &ds->stream};
            rc = hl_mixer_set(d->engine.mixer, lv->mix, &s, now);
            if (rc == 0) {
                hld_vm_seek(d->vm, j->voice, j->seek_pos, 1, now);
                lv->loops_left = lv->loops_at_start = j->loops;
            }
        } else if (lv) { /* went virtual meanwhile: it resumes there when real */
            rc = hld_vm_seek(d->vm, j->voice, j->seek_pos, 1, now);
            hld_dstream_release(&d->decoder, ds);
            ds = NULL;
        }
        if (drop || rc < 0) {
            if (!gone && !j->cancelled) {
                if (status < 0)
                    hld_send_error(c, j->op, j->flags, j->id, status, msg); /* msg is in ds */
                else if (j->superseded)
                    hld_reply_ok(&q); /* the later seek decides where it plays */
                else
                    hld_mixer_fail(&q, rc);
            }
            if (ds) hld_dstream_release(&d->decoder, ds);
        } else if (!gone) {
            hld_reply_ok(&q);
        }
    }
    if (c) {
        if (!gone) hld_conn_flush(c);
        hld_conn_unref(c);
    }
    free(j);
}

/* Queues the open of snd's stream. c may be NULL (realise). Returns the job
 * or NULL with *err set (and *msg). */
static stream_job_t *job_start(hld_daemon_t *d, hld_conn_t *c, const hl_frame_hdr_t *h,
                               hld_sound_t *snd, const hld_stream_opts_t *o, int kind,
                               uint64_t voice, int *err, const char **msg) {
    stream_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        *err = HELIOD_ENOMEM;
        return NULL;
    }
    *j = (stream_job_t){.d = d, .c = c, .snd = snd, .kind = kind, .voice = voice};
    if (h) {
        j->id = h->id;
        j->op = h->op;
        j->flags = h->flags;
    }
    hld_stream_opts_t oo = *o;
    oo.batch = uv_now(d->loop); /* the loop turn: its inline opens share one budget */
    int rc = hld_dstream_open_async(&d->decoder, snd, snd->path, &oo, stream_done, j, msg);
    if (rc < 0) {
        free(j);
        *err = rc;
        return NULL;
    }
    if (c) hld_conn_ref(c);
    snd->pending++;
    j->next = d->stream_jobs;
    if (d->stream_jobs) d->stream_jobs->prev = j;
    d->stream_jobs = j;
    return j;
}

/* The loop options of a stream voice, from its logical record. */
static void stream_opts(const hld_lvoice_t *lv, uint64_t start, int64_t loops,
                        hld_stream_opts_t *o) {
    *o = (hld_stream_opts_t){
        .start = start,
        .loop_start = hld_frames_u64(lv->ls),
        .loop_end = lv->le >= lv->len ? 0 : hld_frames_u64(lv->le),
        .loops = loops,
        .xfade = lv->p.loop_xfade, /* source frames for a stream voice */
        /* a 2D voice keeps the file's channels as a preload would (folded to
         * the output's speakers), a 3D one mixes a stereo downmix */
        .layout =
            (lv->p.flags & HL_MIX_3D) || !lv->snd || !lv->snd->owner ? 0 : lv->snd->owner->layout,
    };
    if (o->loop_start == 0 && o->loop_end == 0) o->loop_start = 0;
}

/* hld_vm_ops_t.open_stream: a virtual stream voice ranked real. */
int hld_voice_open_stream(void *user, uint64_t voice, const hld_lvoice_t *lv, uint64_t start,
                          int64_t loops) {
    hld_daemon_t *d = user;
    if (d->shutting_down) return HELIOD_ESHUTDOWN;
    if (!lv->snd) return HELIOD_EINVAL; /* a client-fed stream has no file to reopen */
    hld_stream_opts_t o;
    stream_opts(lv, start, loops, &o);
    int err = 0;
    const char *msg = NULL;
    return job_start(d, NULL, NULL, lv->snd, &o, JOB_REALISE, voice, &err, &msg) ? 0 : err;
}

int hld_voice_open_play(hld_req_t *q, hld_sound_t *snd, const hld_lvoice_t *lv, uint64_t voice,
                        const char **msg) {
    hld_stream_opts_t o;
    stream_opts(lv, 0, lv->loops_left, &o);
    int err = 0;
    return job_start(q->c->d, q->c, q->h, snd, &o, JOB_PLAY, voice, &err, msg) ? 0 : err;
}

/* SET --seek: pcm voices jump inside their PCM, virtual voices just move
 * their position; a real stream voice gets a new stream opened at the
 * position on the decoder pool, switched to when primed (the other fields
 * of s are applied now, post_user recorded with them as
 * hld_vm_params_user_set does, and the answer comes from stream_done:
 * returns 1). Returns 0 when the caller replies, -1 after replying an
 * error. */
int hld_voice_seek(hld_req_t *q, uint64_t voice, double seek_s, hl_voice_set_t *s,
                   const float post_user[4]) {
    hld_daemon_t *d = q->c->d;
    hld_lvoice_t *lv = hld_vm_get(d->vm, voice);
    if (lv && !lv->snd)
        return hld_fail(q, HELIOD_EINVAL, "seek_s: a client-fed stream cannot seek"), -1;
    if (!lv) return hld_fail(q, HELIOD_ENOVOICE, NULL), -1;
    hld_sound_t *snd = lv->snd;
    double f = seek_s * (snd->stream ? snd->source_rate : d->engine.rate);
    if (f >= lv->len) return hld_fail(q, HELIOD_EINVAL, "seek_s: past the end of the sound"), -1;
    if (!snd->stream || !lv->real) {
        int rc = hld_vm_seek(d->vm, voice, f, 0, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc), -1;
        return 0;
    }
    /* the passes it has left as heard (the old stream's count), not a restart */
    int64_t loops = lv->loops_left;
    hl_voice_view_t vv;
    if (hl_mixer_voice(d->engine.mixer, lv->mix, &vv) == 0 && vv.params.stream)
        loops = hld_dstream_loops_left(hld_dstream_from(vv.params.stream));
    hld_stream_opts_t o;
    stream_opts(lv, hld_frames_u64(f), loops, &o);
    int err = 0;
    const char *msg = NULL;
    stream_job_t *j = job_start(d, q->c, q->h, snd, &o, JOB_SEEK, voice, &err, &msg);
    if (!j) return hld_fail(q, err, msg), -1; /* an earlier seek still opening stands */
    j->seek_pos = f;
    j->loops = loops;
    if (s->mask) { /* gain, pan ... now, in request order with later SETs */
        int rc = hld_vm_params_user_set(d->vm, voice, s, post_user, hld_now_ns());
        if (rc < 0) {
            j->cancelled = 1; /* answered here; its stream is dropped when it is primed */
            return hld_mixer_fail(q, rc), -1;
        }
    }
    /* queued and accepted: an earlier seek of this voice still opening loses
     * (it answers OK when primed), this one decides. Only now: a seek that
     * failed above replaces nothing, so it must not drop the earlier one. */
    for (stream_job_t *e = d->stream_jobs; e; e = e->next)
        if (e != j && e->kind == JOB_SEEK && e->voice == voice) e->superseded = 1;
    return 1;
}
