/*
 * voice_ops.c - the requests on voices: PLAY (of a cue or a sound), STOP,
 * STOP_ALL, SET, PAUSE (per client, everyone, bus or category) and VOICES.
 *
 * A handle a client holds names a logical voice of the voice manager (vm.h),
 * real or virtual. PLAY resolves the name (a cue first, else a sound), builds
 * the mixer parameters from the cue and the request's overrides, and hands
 * the admission to hld_vm_play.
 *
 * Streamed sounds: the open (file, seek, resampler, prefill) runs on the
 * decoder pool, never on the loop. A first PLAY of a stream that ranks real
 * is answered when the pool hands the primed stream back (stream_done); its
 * reply may come after those of later requests (libheliod matches by id). A
 * virtual stream voice decodes nothing; when it ranks real again the voice
 * manager asks for an open at its position (open_stream_cb) and no request
 * waits for it. SET --seek of a real stream voice opens a new stream at the
 * position and the mixer switches to it click-free. A job holds a reference
 * on its connection: if the client is gone by then the stream is released.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "dispatch_int.h"
#include "hl_dsp.h"
#include "hl_limits.h"

/* Source frames -> engine frames of a preloaded sound (rounded). */
static uint32_t src_to_engine(const hld_sound_t *snd, uint32_t rate, uint64_t f) {
    if (snd->source_rate == rate || !snd->source_rate)
        return f > snd->pcm.frames ? snd->pcm.frames : (uint32_t)f;
    uint64_t e = (f * rate + snd->source_rate / 2) / snd->source_rate;
    return e > snd->pcm.frames ? snd->pcm.frames : (uint32_t)e;
}

/* A streamed sound's loop crossfade in source frames (rounded; clamped
 * before the conversion: a file's rate times 10 s can pass UINT32_MAX, and
 * a wrapped count would pass the checks against the loop region). */
static uint32_t xfade_src_frames(const hld_sound_t *snd, float ms) {
    if (!(ms > 0)) return 0;
    return hld_frames_u32(round((double)ms * snd->source_rate / HLD_MS_PER_S));
}

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

static void reply_play(hld_req_t *q, uint64_t voice, uint64_t stolen) {
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
                    reply_play(&q, j->voice, 0);
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
    int rc = hld_dstream_open_async(&d->decoder, snd, snd->path, o, stream_done, j, msg);
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

/* ---- PLAY ------------------------------------------------------------------- */

/* ---- the post stage: filters, occlusion, sends ---------------------------------- */

/* lp/hp cutoffs and occlusion/obstruction as the client gives them -> the
 * mixer's lp_hz, hp_hz and occ_db (hl_occlusion_map's documented curve):
 * the lower of the explicit low-pass and the occlusion's. */
static void post_map(const hld_daemon_t *d, const float u[4], const hld_pcontrib_t *pc, float *lp,
                     float *hp, float *occ_db) {
    hld_vm_post_map((float)d->engine.rate, u, pc, lp, hp, occ_db);
}

/* The variation a cue's switch binding picks (the emitter's value, else
 * the global one), or -1 when it has none. */
static int switch_pick(hld_daemon_t *d, const hld_cue_t *cue, const hld_emitter_t *em) {
    for (uint32_t i = 0; i < cue->nbinds; i++) {
        const hld_bind_t *b = &cue->binds[i];
        if (b->prop != HL_PROP_SWITCH || b->param >= d->params.n) continue;
        float v = hld_params_value(&d->params, b->param, 0, em ? (uint64_t)(uintptr_t)em : 0,
                                   em ? em->name : "");
        return (int)hld_params_switch(d->params.p[b->param], b, v, cue->def.nsounds);
    }
    return -1;
}

/* Send names and levels -> bus indices and linear gains. 0, or replies
 * ENOBUS and returns -1. */
static int sends_resolve(hld_req_t *q, const hl_vpost_t *m, uint32_t bus[HL_MAX_SENDS],
                         float gain[HL_MAX_SENDS]) {
    hld_daemon_t *d = q->c->d;
    for (int i = 0; i < HL_MAX_SENDS; i++) {
        bus[i] = 0;
        gain[i] = 0.0f;
        if (i >= HL_VOICE_SENDS || !m->send[i][0]) continue;
        int b = hld_bus_index(&d->buses, m->send[i]);
        if (b < 0) {
            char msg[HL_MAX_MSG + 1];
            snprintf(msg, sizeof msg, "send: no bus named %s%s", m->send[i],
                     b == HLD_BUS_MASTER ? " (voices send to a bus, not the master)" : "");
            return hld_fail(q, HELIOD_ENOBUS, msg), -1;
        }
        bus[i] = (uint32_t)b;
        gain[i] = m->send_db[i] <= HL_MIN_DB ? 0.0f : hl_db_to_lin(m->send_db[i]);
    }
    return 0;
}

/* Resolves a play's name: its cue (or NULL) and the sound (a blend's layer
 * lv->layer of lv->nlayers: that variation). Returns 0, or replies the error
 * and returns -1. */
static int lookup_play(hld_req_t *q, const hl_play_t *m, const hld_vparams_t *lv,
                       hld_cue_t **cue_out, hld_sound_t **snd_out) {
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    /* its own process's cue, else a shared one (the daemon's, an
     * operator's, live or gone: its variations resolve in this client's
     * sound namespace like its own names); another live process's cue is
     * not this client's to play (its limits and policies would act on that
     * process's voices): its own sound of that name, or a shared one, plays
     * instead. A namespace question, not a permission one: who may change
     * the cue (hld_conn_may_change) does not matter to who may play it. */
    hld_cue_t *cue = hld_cues_find_in(&d->cues, m->sound, hld_ns_rank, q->c);
    if (cue && !q->c->control && hld_ns_rank(q->c, cue->owner) < 2) cue = NULL;
    const char *sound = m->sound;
    if (cue) {
        int sw = -1;
        if (cue->nbinds) { /* a switch binding picks by its parameter's value */
            const hld_emitter_t *sem =
                m->emitter[0] ? hld_vm_emitter_find_in(d->vm, m->emitter, hld_ns_rank, q->c) : NULL;
            sw = switch_pick(d, cue, sem);
        }
        if (lv->nlayers) sw = lv->layer; /* a blend's layer: its own variation */
        sound = cue->def.sounds[sw >= 0 ? (uint32_t)sw : hld_cue_pick(&d->cues, cue)];
    }
    hld_sound_t *snd = hld_sounds_lookup(&d->sounds, q->c->id, sound);
    if (snd && snd->loading) { /* its own answer: asked too early, not a missing sound */
        if (cue)
            snprintf(msg, sizeof msg, "cue %s: sound %s is still loading%s%s", m->sound, sound,
                     snd->bank ? " (bank " : "", snd->bank ? hld_bank_name(snd->bank) : "");
        else
            snprintf(msg, sizeof msg, "sound %s is still loading%s%s", sound,
                     snd->bank ? " (bank " : "", snd->bank ? hld_bank_name(snd->bank) : "");
        if (snd->bank) strncat(msg, ")", sizeof msg - strlen(msg) - 1);
        return hld_fail(q, HELIOD_ELOADING, msg), -1;
    }
    if (!snd) {
        if (cue)
            snprintf(msg, sizeof msg, "cue %s: sound %s is not loaded", m->sound, sound);
        else
            snprintf(msg, sizeof msg, "no sound or cue named %s", m->sound);
        return hld_fail(q, HELIOD_ENOSOUND, msg), -1;
    }
    *cue_out = cue;
    *snd_out = snd;
    return 0;
}

/* Builds the voice manager's request from a resolved play; cs_ratio > 0: a
 * client-fed stream at that many source frames per engine frame (no cue, no
 * sound). Returns 0, or replies the error and returns -1. */
static int build_play_params(hld_req_t *q, const hl_play_t *m, hld_vm_play_t *pl, hld_cue_t *cue,
                             hld_sound_t *snd, double cs_ratio) {
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    hld_vparams_t layer = pl->pv; /* the layer asked for (blend) */
    memset(pl, 0, sizeof *pl);
    pl->pv.layer = layer.layer;
    pl->pv.nlayers = layer.nlayers;
    pl->pv.leader = layer.leader;
    uint32_t over = cue ? m->over : HL_OVER_MASK;
    const hl_cue_t *cd = cue ? &cue->def : NULL;
    const char *busname = (over & HL_OVER_BUS) || !cd ? m->bus : cd->bus;
    int bus = hld_bus_index(&d->buses, busname);
    if (bus < 0) {
        snprintf(msg, sizeof msg, "no bus named %s%s", busname,
                 bus == HLD_BUS_MASTER ? " (voices play on a bus, not the master)" : "");
        return hld_fail(q, HELIOD_ENOBUS, msg), -1;
    }
    hld_emitter_t *em = NULL;
    if (m->emitter[0]) {
        em = hld_vm_emitter_find_in(d->vm, m->emitter, hld_ns_rank, q->c);
        if (!em) {
            snprintf(msg, sizeof msg, "no emitter named %s", m->emitter);
            return hld_fail(q, HELIOD_ENOEMITTER, msg), -1;
        }
    }
    uint32_t flags = m->flags & (HL_MIX_LOOP | HL_MIX_3D | HL_MIX_PAUSED);
    /* the interpolator: the play's, else the cue's, else the daemon's */
    uint32_t interp = m->flags & HL_PLAY_INTERP;
    if (!interp && cd) interp = cd->flags & HL_PLAY_INTERP;
    if (!interp) interp = d->cfg.interp_flags;
    flags |= (interp & HL_PLAY_SINC) ? HL_MIX_SINC : (interp & HL_PLAY_CUBIC) ? HL_MIX_CUBIC : 0;
    float gain_db = m->gain_db, pitch = m->pitch, fade_in = m->fade_in_ms;
    if (cd) {
        flags |= cd->flags & (HL_MIX_LOOP | HL_MIX_3D);
        gain_db += hld_cue_roll_gain_db(&d->cues, cue);
        pitch *= hld_cue_roll_pitch(&d->cues, cue);
        if (pitch < HL_PITCH_MIN) pitch = HL_PITCH_MIN;
        if (pitch > HL_PITCH_MAX) pitch = HL_PITCH_MAX;
        if (gain_db > HL_MAX_GAIN_DB) gain_db = HL_MAX_GAIN_DB;
        if (!(over & HL_OVER_FADE_IN)) fade_in = cd->fade_in_ms;
    }
    if (em) flags |= HL_MIX_3D;
    hld_vparams_t *pv = &pl->pv;
    if (cue && cue->nbinds) { /* what the bindings add, on top of what was asked */
        pv->bound = 1;
        hld_params_contrib(&d->params, cue->binds, cue->nbinds, 0, em ? (uint64_t)(uintptr_t)em : 0,
                           em ? em->name : "", pv->layer, pv->nlayers, &pv->pc);
        pv->base_gain = hl_db_to_lin(gain_db);
        pv->base_pitch = pitch;
        gain_db += pv->pc.gain_db;
        if (gain_db > HL_MAX_GAIN_DB) gain_db = HL_MAX_GAIN_DB;
        pitch *= exp2f(pv->pc.cents / 1200.0f);
        if (pitch < HL_PITCH_MIN) pitch = HL_PITCH_MIN;
        if (pitch > HL_PITCH_MAX) pitch = HL_PITCH_MAX;
    }
    int dist_from_play = (over & HL_OVER_DISTANCE) || !cd;
    hl_voice_params_t *p = &pl->p;
    *p = (hl_voice_params_t){
        .pcm = !snd || snd->stream ? NULL : &snd->pcm,
        .flags = flags,
        .gain = hl_db_to_lin(gain_db),
        .pan = (over & HL_OVER_PAN) || !cd ? m->pan : cd->pan,
        .pos = {m->pos[0], m->pos[1], m->pos[2]},
        .pitch = pitch,
        .priority = (over & HL_OVER_PRIORITY) || !cd ? m->priority : cd->priority,
        .attack_frames = hld_ms_to_frames(d, fade_in < 0 ? HL_DEFAULT_FADE_IN_MS : fade_in),
        .min_distance = dist_from_play ? m->min_distance : cd->min_distance,
        .max_distance = dist_from_play ? m->max_distance : cd->max_distance,
        .rolloff = dist_from_play ? m->rolloff : cd->rolloff,
        .model = dist_from_play ? m->model : cd->model,
        .bus = (uint32_t)bus,
        .vel = {m->vel[0], m->vel[1], m->vel[2]},
        .doppler_factor = cd ? cd->doppler : 1.0f,
        .attack_curve = cd ? cd->fade_curve : HL_FADE_LINEAR,
        .pan_law = m->pan_law,
        .lfe = m->lfe,
    };
    if (cd && cd->beyond == HL_BEYOND_CLAMP) p->flags |= HL_MIX_CLAMP;
    if (cue && (cue->cone[0] != 0.0f || cue->cone[1] != 0.0f || cue->cone[2] != 0.0f)) {
        memcpy(p->cone_dir, cue->cone, sizeof p->cone_dir); /* the emitter's wins (vm_admit.c) */
        p->cone_inner = cue->cone[3];
        p->cone_outer = cue->cone[4];
        p->cone_outer_gain = cue->cone[5];
    }
    if (cue && cue->curve_n) {
        p->curve_n = cue->curve_n;
        memcpy(p->curve_d, cue->curve_d, sizeof p->curve_d);
        memcpy(p->curve_db, cue->curve_db, sizeof p->curve_db);
    }
    const hl_vpost_t *pf = (over & HL_OVER_FILTER) || !cd ? &m->post : &cd->post;
    const hl_vpost_t *ps = (over & HL_OVER_SENDS) || !cd ? &m->post : &cd->post;
    pl->post_user[0] = pf->lp_hz;
    pl->post_user[1] = pf->hp_hz;
    pl->post_user[2] = pf->occlusion;
    pl->post_user[3] = pf->obstruction;
    post_map(d, pl->post_user, pv->bound ? &pv->pc : NULL, &p->lp_hz, &p->hp_hz, &p->occ_db);
    if (sends_resolve(q, ps, p->send_bus, p->send_gain) != 0) return -1;
    for (int i = 0; pv->bound && i < HL_MAX_SENDS; i++) {
        pv->base_send[i] = p->send_gain[i];
        if (i < HL_VOICE_SENDS) p->send_gain[i] *= hl_db_to_lin(pv->pc.send_db[i]);
    }
    pl->cue = cue;
    pl->snd = snd;
    pl->em = em;
    pl->owner = (m->flags & HL_PLAY_DETACHED) ? 0 : q->c->id;
    pl->creator = q->c->id;
    float fo = cd ? cd->fade_out_ms : -1.0f;
    if (fo < 0 && cue && cue->cat && cue->cat->def.fade_out_ms >= 0) fo = cue->cat->def.fade_out_ms;
    pl->fade_out_frames = hld_ms_to_frames(d, fo < 0 ? HL_DEFAULT_EVICT_MS : fo);
    pl->fade_curve = cd ? cd->fade_curve : HL_CURVE_LINEAR;
    pl->beyond = cd ? cd->beyond : HL_BEYOND_VIRTUAL;
    pl->virt = cd ? cd->virt : HL_VIRT_RESUME;

    if (!snd) { /* a client-fed stream: always mixed, as long as its client feeds it */
        pl->stream = 1;
        pl->pinned = 1;
        pl->virt = HL_VIRT_KILL;
        pl->beyond = HL_BEYOND_CLAMP;
        p->flags = (p->flags & ~HL_MIX_LOOP) | HL_MIX_CLAMP;
        pl->rate = (double)pitch * cs_ratio;
        pl->len = pl->le = 1e18; /* no end the position model could reach */
        return 0;
    }
    int loop = (flags & HL_MIX_LOOP) != 0;
    pl->loops = !loop ? 0 : m->loop_count ? (int64_t)m->loop_count : -1;
    if (m->loop_end > snd->src_frames)
        return hld_fail(q, HELIOD_EINVAL, "loop_end: past the end of the sound (source frames)"),
               -1;
    if (snd->stream) {
        pl->stream = 1;
        p->flags &= ~HL_MIX_LOOP; /* the decoder loops a stream */
        uint64_t region = (m->loop_end ? m->loop_end : snd->src_frames) - m->loop_start;
        if (loop && (m->loop_start || m->loop_end) && m->loop_end <= m->loop_start)
            return hld_fail(q, HELIOD_EINVAL, "loop region is empty"), -1;
        p->loop_xfade = loop ? xfade_src_frames(snd, m->loop_xfade_ms) : 0;
        if (p->loop_xfade > m->loop_start || p->loop_xfade > region)
            return hld_fail(q, HELIOD_EINVAL,
                            "loop_xfade_ms: longer than the audio before loop_start or the region"),
                   -1;
        pl->rate = (double)pitch * snd->source_rate / d->engine.rate;
        pl->len = (double)snd->src_frames;
        pl->ls = loop ? m->loop_start : 0;
        pl->le = loop && m->loop_end ? m->loop_end : (double)snd->src_frames;
        return 0;
    }
    if (loop) {
        p->loop_start = src_to_engine(snd, d->engine.rate, m->loop_start);
        p->loop_end = src_to_engine(snd, d->engine.rate, m->loop_end);
        if ((m->loop_start || m->loop_end) && p->loop_end <= p->loop_start)
            return hld_fail(q, HELIOD_EINVAL, "loop region shorter than one engine frame"), -1;
        p->loop_count = m->loop_count;
        p->loop_xfade = hld_ms_to_frames(d, m->loop_xfade_ms);
        uint32_t region = (p->loop_end ? p->loop_end : snd->pcm.frames) - p->loop_start;
        if (p->loop_xfade > p->loop_start || p->loop_xfade > region)
            return hld_fail(q, HELIOD_EINVAL,
                            "loop_xfade_ms: longer than the audio before loop_start or the region"),
                   -1;
    }
    pl->rate = pitch;
    pl->len = snd->pcm.frames;
    pl->ls = loop ? p->loop_start : 0;
    pl->le = loop && p->loop_end ? p->loop_end : snd->pcm.frames;
    return 0;
}

static int build_play(hld_req_t *q, const hl_play_t *m, hld_vm_play_t *pl) {
    hld_cue_t *cue = NULL;
    hld_sound_t *snd = NULL;
    if (lookup_play(q, m, &pl->pv, &cue, &snd) != 0) return -1;
    return build_play_params(q, m, pl, cue, snd, 0.0);
}

static const char *refusal_msg(int rc, const hld_cue_t *cue, char *buf, size_t cap) {
    const char *name = cue ? cue->def.name : "sound";
    switch (rc) {
    case HELIOD_EINTERVAL:
        snprintf(buf, cap, "cue %s: played again within its min-interval of %g ms", name,
                 cue ? cue->def.min_interval_ms : 0.0);
        return buf;
    case HELIOD_EDISTANCE:
        snprintf(buf, cap, "%s %s: beyond its max distance at start", cue ? "cue" : "sound", name);
        return buf;
    case HELIOD_ECUELIMIT:
        snprintf(buf, cap, "cue %s: %u instances playing (max-instances)", name,
                 cue ? cue->def.max_instances : 0);
        return buf;
    case HELIOD_ECATLIMIT:
        snprintf(buf, cap, "category %s: %u instances playing (max-instances)",
                 cue && cue->cat ? cue->cat->def.name : "?",
                 cue && cue->cat ? cue->cat->def.max_instances : 0);
        return buf;
    default: return NULL;
    }
}

/* The client's quotas come before the voice manager's limits. At its
 * voice quota a client is its own small pool: a play of strictly higher
 * priority replaces the client's lowest-priority voice (the oldest of
 * them), as a full pool does. *victim is that voice, to stop once the play
 * is admitted (a play refused later replaces nothing); it ends within a
 * block, so the client passes its quota by one meanwhile. Returns 0, or
 * replies the refusal (EQUOTA naming the quota) and returns -1. */
static int quota_admit(hld_req_t *q, const hld_vm_play_t *pl, uint64_t *victim) {
    hld_daemon_t *d = q->c->d;
    hld_client_t *cl = q->c->cl;
    char msg[HL_MAX_MSG + 1];
    int rc = hld_client_check_play(cl, pl->owner == 0, pl->stream, msg, sizeof msg);
    if (rc < 0) return hld_fail(q, rc, msg), -1;
    if (!hld_client_voices_full(cl)) return 0;
    *victim = hld_vm_victim_of(d->vm, q->c->id, pl->p.priority);
    if (!*victim) return hld_fail(q, hld_client_refuse_voices(cl, msg, sizeof msg), msg), -1;
    return 0;
}

/* Variations a cue's blend binding plays at once (0: not a blend). */
static uint32_t blend_layers(const hld_cue_t *cue) {
    for (uint32_t i = 0; cue && i < cue->nbinds; i++)
        if (cue->binds[i].prop == HL_PROP_BLEND && cue->def.nsounds > 1) return cue->def.nsounds;
    return 0;
}

/* Layers 1.. of a blend after layer 0 (voice) was admitted: each its own
 * voice on its variation, following voice (its parameter values, its STOP).
 * All or nothing: on a refusal the layers started and voice stop, and the
 * refusal is the answer (-1). */
static int play_layers(hld_req_t *q, const hl_play_t *m, uint64_t voice, uint32_t layers) {
    hld_daemon_t *d = q->c->d;
    for (uint32_t k = 1; k < layers; k++) {
        hld_vm_play_t pl;
        memset(&pl, 0, sizeof pl);
        pl.pv.layer = (uint8_t)k;
        pl.pv.nlayers = (uint8_t)layers;
        pl.pv.leader = voice;
        int rc = build_play(q, m, &pl);
        uint64_t v = 0, stolen = 0;
        char msg[HL_MAX_MSG + 1] = "blend: the cue's variations must be preloaded sounds";
        if (rc == 0 && !pl.stream) {
            const char *why = NULL;
            rc = q->c->cl ? hld_client_check_play(q->c->cl, pl.owner == 0, 0, msg, sizeof msg) : 0;
            if (rc == 0)
                rc = hld_vm_play(d->vm, &pl, hld_now_ns(), &v, &stolen);
            else
                why = msg;
            if (rc < 0 && !why) why = refusal_msg(rc, pl.cue, msg, sizeof msg);
            if (rc < 0) hld_fail(q, rc, why);
        } else if (rc == 0) {
            rc = HELIOD_EINVAL;
            hld_fail(q, rc, msg);
        }
        if (rc != 0) {
            hld_vm_stop_layers(d->vm, voice, 0, HL_END_STOPPED, hld_now_ns());
            hld_vm_stop(d->vm, voice, 0, HL_FADE_LINEAR, HL_END_STOPPED, hld_now_ns());
            return -1;
        }
        if (stolen) d->n.voices_stolen++;
    }
    return 0;
}

static int play_now(hld_req_t *q, const hl_play_t *mp);
static int play_now_v(hld_req_t *q, const hl_play_t *mp, uint64_t *out);

/* A stinger (PLAY sync_on, 1.1): the play is scheduled for the first beat or
 * bar of the music voice sync_voice at or after the frame it would take
 * effect at (its HL_FLAG_AT frame, or the next block), by the voice's
 * position model (vm_music.c), so it starts on that beat's exact frame. */
int hld_op_play(hld_req_t *q) {
    hl_play_t m;
    hl_get_play(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_daemon_t *d = q->c->d;
    const char *why = NULL;
    if (hl_validate_play(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    if (m.sync_on == HL_SYNC_NONE) return play_now(q, &m);
    hl_mixer_t *mx = d->engine.mixer;
    uint64_t at = 0;
    int rc = hld_vm_next_beat(d->vm, m.sync_voice, hl_mixer_effect_frame(mx),
                              m.sync_on == HL_SYNC_BAR, &at, NULL);
    if (rc == HELIOD_ENOVOICE) return hld_fail(q, rc, "sync_voice: no such voice");
    if (rc < 0)
        return hld_fail(q, rc,
                        "sync_voice: not a playing voice of a cue with a tempo map, or it ends "
                        "before its next beat");
    uint64_t saved = hl_mixer_at_frame(mx);
    hl_mixer_at(mx, at);
    rc = play_now(q, &m);
    hl_mixer_at(mx, saved);
    return rc;
}

static int play_now(hld_req_t *q, const hl_play_t *mp) {
    return play_now_v(q, mp, NULL);
}

int hld_voice_play_music(hld_req_t *q, const hl_play_t *m, uint64_t *voice) {
    *voice = 0;
    return play_now_v(q, m, voice);
}

static int play_now_v(hld_req_t *q, const hl_play_t *mp, uint64_t *out) {
    hl_play_t m = *mp;
    hld_daemon_t *d = q->c->d;
    hld_vm_play_t pl;
    memset(&pl, 0, sizeof pl);
    if (build_play(q, &m, &pl) != 0) return 0;
    uint32_t layers = blend_layers(pl.cue);
    if (layers) { /* a blend: this is layer 0, the others follow it */
        memset(&pl, 0, sizeof pl);
        pl.pv.nlayers = (uint8_t)layers;
        if (build_play(q, &m, &pl) != 0) return 0;
        if (pl.stream)
            return hld_fail(q, HELIOD_EINVAL,
                            "blend: the cue's variations must be preloaded sounds");
    }
    uint64_t qvictim = 0; /* a voice of this client's it replaces to stay in its quota */
    if (q->c->cl && quota_admit(q, &pl, &qvictim) != 0) return 0;
    uint64_t voice = 0, stolen = 0;
    int rc = hld_vm_play(d->vm, &pl, hld_now_ns(), &voice, &stolen);
    if (rc < 0) {
        char msg[HL_MAX_MSG + 1];
        if (rc == HELIOD_ENOVOICES) d->n.voices_refused++;
        if (rc == HELIOD_EBUSY) return hld_mixer_fail(q, rc); /* which room ran out */
        return hld_fail(q, rc, refusal_msg(rc, pl.cue, msg, sizeof msg));
    }
    if (stolen) d->n.voices_stolen++;
    hld_sounds_touch(&d->sounds, pl.snd); /* recently played: evicted last */
    if (layers && play_layers(q, &m, voice, layers) != 0) return 0;
    if (qvictim && qvictim != stolen &&
        hld_vm_stop(d->vm, qvictim, 0, HL_FADE_LINEAR, HL_END_STOLEN, hld_now_ns()) == 0) {
        d->n.voices_stolen++;
        if (!stolen) stolen = qvictim;
    }
    hld_lvoice_t *lv = hld_vm_get(d->vm, voice);
    if (out && lv && lv->state == HLD_LV_OPENING) { /* music: its reply cannot wait for an open */
        hld_vm_stream_failed(d->vm, voice);
        return hld_fail(q, HELIOD_EINVAL,
                        "to: a music state's cue plays a streamed sound (load it preloaded)");
    }
    if (lv && lv->state == HLD_LV_OPENING) { /* a stream that ranks real: open it first */
        hld_stream_opts_t o;
        stream_opts(lv, 0, lv->loops_left, &o);
        int err = 0;
        const char *msg = NULL;
        if (!job_start(d, q->c, q->h, pl.snd, &o, JOB_PLAY, voice, &err, &msg)) {
            hld_vm_stream_failed(d->vm, voice);
            return hld_fail(q, err, msg);
        }
        if (out) *out = voice;
        return 0; /* answered by stream_done */
    }
    if (out) { /* hld_voice_play_music: its caller replies */
        *out = voice;
        return 0;
    }
    reply_play(q, voice, stolen);
    return 0;
}

/* A client-fed stream's voice (stream_ops.c): admitted like a play of
 * m (no cue, no sound; pinned real) and started on st at once. Returns 0
 * with *voice (st belongs to the voice manager and the mixer now: it comes
 * back through release_stream or the mixer's ENDED, even on a late failure,
 * which is then replied here and returns 1), or -1 after replying the
 * refusal (st untouched). */
int hld_voice_play_stream(hld_req_t *q, const hl_play_t *m, hl_stream_t *st, double ratio,
                          uint64_t *voice) {
    hld_daemon_t *d = q->c->d;
    hld_vm_play_t pl;
    memset(&pl, 0, sizeof pl);
    if (build_play_params(q, m, &pl, NULL, NULL, ratio) != 0) return -1;
    uint64_t qvictim = 0, stolen = 0;
    if (q->c->cl && quota_admit(q, &pl, &qvictim) != 0) return -1;
    *voice = 0;
    int rc = hld_vm_play(d->vm, &pl, hld_now_ns(), voice, &stolen);
    if (rc < 0) {
        if (rc == HELIOD_ENOVOICES) d->n.voices_refused++;
        if (rc == HELIOD_EBUSY) return hld_mixer_fail(q, rc), -1;
        return hld_fail(q, rc,
                        rc == HELIOD_ENOVOICES ? "stream: no voice free (streams are never virtual)"
                                               : hl_strerror(rc)),
               -1;
    }
    if (stolen) d->n.voices_stolen++;
    if (qvictim && qvictim != stolen &&
        hld_vm_stop(d->vm, qvictim, 0, HL_FADE_LINEAR, HL_END_STOLEN, hld_now_ns()) == 0)
        d->n.voices_stolen++;
    hld_lvoice_t *lv = hld_vm_get(d->vm, *voice);
    if (!lv || lv->state != HLD_LV_OPENING) { /* cannot be mixed now: no voice for it */
        if (lv) hld_vm_stop(d->vm, *voice, 0, HL_FADE_LINEAR, HL_END_KILLED, hld_now_ns());
        d->n.voices_refused++;
        return hld_fail(q, HELIOD_ENOVOICES, "stream: no real voice free"), -1;
    }
    rc = hld_vm_stream_ready(d->vm, *voice, st, hld_now_ns());
    if (rc < 0) {
        if (rc == HELIOD_EBUSY)
            hld_mixer_fail(q, rc);
        else
            hld_fail(q, rc, "stream: the mixer refused the voice");
        return 1;
    }
    return 0;
}

/* ---- STOP, STOP_ALL ---------------------------------------------------------- */

/* A voice request may act on the voices its client started (detached ones
 * too); a control client on every voice. Returns 0, or replies EPERM and
 * returns -1. An unknown handle is left to the voice manager (ENOVOICE). */
static int may_touch(hld_req_t *q, const hld_lvoice_t *lv, uint64_t voice) {
    if (!lv || hld_conn_may(q->c, lv->creator)) return 0;
    char msg[HL_MAX_MSG + 1];
    q->c->d->n.denied++;
    snprintf(msg, sizeof msg,
             "voice %llu belongs to client %u: only it or a control client may change it",
             (unsigned long long)voice, lv->creator);
    return hld_fail(q, HELIOD_EPERM, msg), -1;
}

int hld_op_stop(hld_req_t *q) {
    hl_stop_t m;
    hl_get_stop(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (!hl_fade_valid(m.fade_ms)) /* a handle of 0 is left to the manager: ENOVOICE */
        return hld_fail(q, HELIOD_EINVAL, "fade_ms: must be -1 (default) or in [0, 60000]");
    hld_daemon_t *d = q->c->d;
    float ms = m.fade_ms < 0 ? HL_DEFAULT_STOP_MS : m.fade_ms;
    hld_lvoice_t *lv = hld_vm_get(d->vm, m.voice);
    if (may_touch(q, lv, m.voice) != 0) return 0;
    uint32_t curve = m.curve ? (uint32_t)m.curve - 1u : lv ? lv->fade_curve : HL_FADE_LINEAR;
    int rc =
        hld_vm_stop(d->vm, m.voice, hld_ms_to_frames(d, ms), curve, HL_END_STOPPED, hld_now_ns());
    if (rc < 0) return hld_mixer_fail(q, rc);
    hld_vm_stop_layers(d->vm, m.voice, hld_ms_to_frames(d, ms), HL_END_STOPPED, hld_now_ns());
    return hld_reply_ok(q);
}

static int match_creator(void *user, const hld_lvoice_t *lv) {
    return lv->creator == *(const uint32_t *)user;
}

int hld_op_stop_all(hld_req_t *q) {
    hl_stop_all_t m;
    hl_get_stop_all(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_stop_all(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    float ms = m.fade_ms < 0 ? HL_DEFAULT_STOP_MS : m.fade_ms;
    uint32_t id = q->c->id;
    if (m.scope == HL_STOP_ALL_EVERYONE && !q->c->control) {
        d->n.denied++;
        return hld_fail(q, HELIOD_EPERM,
                        "stopping every client's voices needs a control client (heliodctl "
                        "stop --all); scope mine stops this client's own");
    }
    int n = hld_vm_stop_matching(d->vm, m.scope == HL_STOP_ALL_MINE ? match_creator : NULL, &id,
                                 hld_ms_to_frames(d, ms), HL_END_STOPPED, hld_now_ns());
    if (n < 0) return hld_mixer_fail(q, n);
    return hld_reply_count(q, (uint32_t)n);
}

/* ---- SET --------------------------------------------------------------------- */

/* SET --seek: pcm voices jump inside their PCM, virtual voices just move
 * their position; a real stream voice gets a new stream opened at the
 * position on the decoder pool, switched to when primed (the other fields
 * of s are applied now and the answer comes from stream_done: returns 1).
 * Returns 0 when the caller replies, -1 after replying an error. */
static int seek_voice(hld_req_t *q, uint64_t voice, double seek_s, hl_voice_set_t *s) {
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
        int rc = hld_vm_set(d->vm, voice, s, hld_now_ns());
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

int hld_op_set(hld_req_t *q) {
    hl_set_t m;
    hl_get_set(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_set(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    hl_voice_set_t s = {
        .mask = m.mask & (HL_MIX_SET_GAIN | HL_MIX_SET_PAN | HL_MIX_SET_POS | HL_MIX_SET_PITCH |
                          HL_MIX_SET_PAUSE | HL_MIX_SET_RESUME),
        .gain = hl_db_to_lin(m.gain_db),
        .pan = m.pan,
        .pos = {m.pos[0], m.pos[1], m.pos[2]},
        .pitch = m.pitch,
        .ramp_frames = hld_ms_to_frames(d, m.ramp_ms),
        .vel = {m.vel[0], m.vel[1], m.vel[2]},
    };
    if (m.mask & HL_SET_VEL) s.mask |= HL_MIX_SET_VEL;
    if (m.mask & HL_SET_LFE) {
        s.mask |= HL_MIX_SET_LFE;
        s.lfe = m.lfe;
    }
    hld_lvoice_t *lv = hld_vm_get(d->vm, m.voice);
    if (may_touch(q, lv, m.voice) != 0) return 0;
    const uint32_t filter_bits = HL_SET_LP | HL_SET_HP | HL_SET_OCCLUSION | HL_SET_OBSTRUCTION;
    float u[4] = {0};
    if (lv) memcpy(u, lv->post_user, sizeof u); /* else hld_vm_set answers ENOVOICE */
    if (m.mask & filter_bits) {
        const float given[4] = {m.post.lp_hz, m.post.hp_hz, m.post.occlusion, m.post.obstruction};
        for (int i = 0; i < 4; i++)
            if (m.mask & (HL_SET_LP << i)) u[i] = given[i];
        post_map(d, u, lv && lv->pv.bound ? &lv->pv.pc : NULL, &s.lp_hz, &s.hp_hz, &s.occ_db);
        s.mask |= HL_MIX_SET_FILTER;
    }
    if (m.mask & HL_SET_SENDS) {
        if (sends_resolve(q, &m.post, s.send_bus, s.send_gain) != 0) return 0;
        s.mask |= HL_MIX_SET_SENDS;
    }
    hld_vm_params_user_set(d->vm, m.voice, &s); /* the bindings ride on what it asks */
    if (m.mask & HL_SET_SEEK) {
        int rc = seek_voice(q, m.voice, m.seek_s, &s);
        if (rc != 0) return 0; /* answered, or stream_done will */
    }
    int rc = hld_vm_set(d->vm, m.voice, &s, hld_now_ns());
    if (rc < 0) return hld_mixer_fail(q, rc);
    lv = hld_vm_get(d->vm, m.voice);
    if (lv) memcpy(lv->post_user, u, sizeof u);
    return hld_reply_ok(q);
}

/* ---- CONE ------------------------------------------------------------------ */

int hld_op_cone(hld_req_t *q) {
    hl_cone_t m;
    hl_get_cone(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_cone(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    const float cone[6] = {m.dir[0], m.dir[1], m.dir[2], m.inner_deg, m.outer_deg, m.outer_gain};
    char msg[HL_MAX_MSG + 1];
    if (m.target == HL_CONE_VOICE) {
        hld_lvoice_t *lv = hld_vm_get(d->vm, m.voice);
        if (may_touch(q, lv, m.voice) != 0) return 0;
        hl_voice_set_t s = {.mask = HL_MIX_SET_CONE,
                            .cone_dir = {m.dir[0], m.dir[1], m.dir[2]},
                            .cone_inner = m.inner_deg,
                            .cone_outer = m.outer_deg,
                            .cone_outer_gain = m.outer_gain};
        int rc = hld_vm_set(d->vm, m.voice, &s, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc);
        return hld_reply_ok(q);
    }
    if (m.target == HL_CONE_EMITTER) {
        hld_emitter_t *em = hld_vm_emitter_find_in(d->vm, m.name, hld_ns_rank, q->c);
        if (!em) {
            snprintf(msg, sizeof msg, "no emitter named %s", m.name);
            return hld_fail(q, HELIOD_ENOEMITTER, msg);
        }
        if (!hld_may_change(q, em->creator, "emitter", m.name)) return 0;
        int rc = hld_vm_emitter_cone(d->vm, em, cone, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc);
        return hld_reply_ok(q);
    }
    hld_cue_t *cue = hld_cues_find_in(&d->cues, m.name, hld_ns_rank, q->c);
    if (!cue) {
        snprintf(msg, sizeof msg, "no cue named %s", m.name);
        return hld_fail(q, HELIOD_EINVAL, msg);
    }
    if (!hld_may_change(q, cue->owner, "cue", m.name)) return 0;
    memcpy(cue->cone, cone, sizeof cue->cone);
    return hld_reply_ok(q);
}

/* ---- ATTEN ------------------------------------------------------------------ */

int hld_op_atten(hld_req_t *q) {
    hl_atten_t m;
    hl_get_atten(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_atten(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    _Static_assert(HL_ATTEN_POINTS == HL_MIX_CURVE_POINTS, "curve sizes");
    if (m.target == HL_CONE_VOICE) {
        hld_lvoice_t *lv = hld_vm_get(d->vm, m.voice);
        if (may_touch(q, lv, m.voice) != 0) return 0;
        hl_voice_set_t s = {.mask = HL_MIX_SET_CURVE, .curve_n = m.npoints};
        memcpy(s.curve_d, m.dist, sizeof s.curve_d);
        memcpy(s.curve_db, m.gain_db, sizeof s.curve_db);
        int rc = hld_vm_set(d->vm, m.voice, &s, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc);
        hld_vm_mark_dirty(d->vm);
        return hld_reply_ok(q);
    }
    hld_cue_t *cue = hld_cues_find_in(&d->cues, m.name, hld_ns_rank, q->c);
    if (!cue) {
        char msg[HL_MAX_MSG + 1];
        snprintf(msg, sizeof msg, "no cue named %s", m.name);
        return hld_fail(q, HELIOD_EINVAL, msg);
    }
    if (!hld_may_change(q, cue->owner, "cue", m.name)) return 0;
    cue->curve_n = m.npoints;
    memcpy(cue->curve_d, m.dist, sizeof cue->curve_d);
    memcpy(cue->curve_db, m.gain_db, sizeof cue->curve_db);
    return hld_reply_ok(q);
}

/* ---- PAUSE ----------------------------------------------------------------- */

typedef struct {
    int scope;
    uint32_t creator;
    int control; /* else bus and category scopes reach only the client's own voices */
    int bus;
    const hld_category_t *cat;
} pause_match_t;

static int match_pause(void *user, const hld_lvoice_t *lv) {
    const pause_match_t *pm = user;
    if (!pm->control && lv->creator != pm->creator) return 0;
    switch (pm->scope) {
    case HL_PAUSE_MINE: return lv->creator == pm->creator;
    case HL_PAUSE_BUS: return (int)lv->p.bus == pm->bus;
    case HL_PAUSE_CATEGORY: return lv->cat == pm->cat;
    default: return 1;
    }
}

int hld_op_pause(hld_req_t *q) {
    hl_pause_t m;
    hl_get_pause(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_pause(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    pause_match_t pm = {.scope = m.scope, .creator = q->c->id, .control = q->c->control};
    char msg[HL_MAX_MSG + 1];
    if (m.scope == HL_PAUSE_EVERYONE && !q->c->control) {
        d->n.denied++;
        return hld_fail(q, HELIOD_EPERM,
                        "pausing every client's voices needs a control client; scope mine, bus "
                        "or category pauses this client's own");
    }
    if (m.scope == HL_PAUSE_BUS) {
        pm.bus = hld_bus_index(&d->buses, m.group);
        if (pm.bus < 0) {
            snprintf(msg, sizeof msg, "no bus named %s", m.group);
            return hld_fail(q, HELIOD_ENOBUS, msg);
        }
    } else if (m.scope == HL_PAUSE_CATEGORY) {
        pm.cat = hld_cues_find_category_in(&d->cues, m.group, hld_ns_rank, q->c);
        if (!pm.cat) {
            snprintf(msg, sizeof msg, "no category named %s", m.group);
            return hld_fail(q, HELIOD_ENOCATEGORY, msg);
        }
    }
    int n = hld_vm_pause_matching(d->vm, match_pause, &pm, m.pause, hld_now_ns());
    if (n < 0) return hld_mixer_fail(q, n);
    return hld_reply_count(q, (uint32_t)n);
}

/* ---- VOICES ---------------------------------------------------------------- */

typedef struct {
    hld_req_t *q;
    hld_list_t l;
    hld_daemon_t *d;
} voices_ctx_t;

static int voice_entry(void *user, uint64_t voice, const hld_lvoice_t *lv) {
    voices_ctx_t *x = user;
    const hl_voice_params_t *p = &lv->p;
    hl_voice_info_t vi = {
        .voice = voice,
        .owner = lv->owner,
        .priority = p->priority,
        .flags = (p->flags & HL_PLAY_MASK) | (lv->owner ? 0 : HL_PLAY_DETACHED),
        .state = hld_vm_state(lv),
        .gain_db = hl_lin_to_db(p->gain),
        .pan = p->pan,
        .pos = {p->pos[0], p->pos[1], p->pos[2]},
        .pitch = p->pitch,
        .audibility_db = hl_lin_to_db(lv->aud),
    };
    if (lv->loops_left != 0) vi.flags |= HL_PLAY_LOOP;
    if (lv->snd) {
        snprintf(vi.sound, sizeof vi.sound, "%s", lv->snd->name);
        double r = lv->snd->stream ? lv->snd->source_rate : x->d->engine.rate;
        vi.position_s = r > 0 ? hld_vm_position(x->d->vm, lv) / r : 0.0;
    } else if (lv->pinned) { /* a client-fed stream: named after its client, at what it consumed */
        if (hld_cstream_describe(x->d, voice, vi.sound, sizeof vi.sound, &vi.position_s) != 0)
            snprintf(vi.sound, sizeof vi.sound, "stream");
    }
    if (lv->cue) snprintf(vi.cue, sizeof vi.cue, "%s", lv->cue->def.name);
    if (lv->cat) snprintf(vi.category, sizeof vi.category, "%s", lv->cat->def.name);
    if (lv->em) snprintf(vi.emitter, sizeof vi.emitter, "%s", lv->em->name);
    const char *bn = hld_bus_name(&x->d->buses, (int)p->bus);
    snprintf(vi.bus, sizeof vi.bus, "%s", bn ? bn : "");
    vi.post.lp_hz = lv->post_user[0];
    vi.post.hp_hz = lv->post_user[1];
    vi.post.occlusion = lv->post_user[2];
    vi.post.obstruction = lv->post_user[3];
    for (int i = 0; i < HL_VOICE_SENDS && i < HL_MAX_SENDS; i++) {
        const char *sn =
            p->send_gain[i] > 0.0f ? hld_bus_name(&x->d->buses, (int)p->send_bus[i]) : NULL;
        snprintf(vi.post.send[i], sizeof vi.post.send[i], "%s", sn ? sn : "");
        vi.post.send_db[i] = sn ? hl_lin_to_db(p->send_gain[i]) : HL_MIN_DB;
    }
    size_t before = x->q->w.len;
    hl_put_voice_info(&x->q->w, &vi);
    return hld_list_entry_done(&x->l, before);
}

int hld_op_voices(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    voices_ctx_t x = {.q = q, .d = q->c->d};
    hld_list_begin(&x.l, q);
    hld_vm_foreach(x.d->vm, voice_entry, &x);
    return hld_list_end(&x.l);
}
