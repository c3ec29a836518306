/*
 * voice_ops.c - the requests on playing voices: STOP, STOP_ALL, SET (a
 * stream voice's seek: stream_jobs.c), CONE, ATTEN, PAUSE (per client,
 * everyone, bus or category) and VOICES. PLAY and the play core are
 * voice_play.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch_int.h"
#include "hl_dsp.h"
#include "hl_limits.h"
#include "stream_jobs.h"
#include "voice_play.h"

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
        .gain = (m.mask & HL_SET_GAIN) ? hl_db_to_lin(m.gain_db) : 1.0f, /* a powf a SET */
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
    if (m.mask & HL_SET_LOOPS) {
        if (lv && lv->is_stream)
            return hld_fail(q, HELIOD_EINVAL,
                            "loops: a streamed voice keeps the loop passes it started with (load "
                            "the sound preloaded to change them while it plays)");
        s.mask |= HL_MIX_SET_LOOPS;
        s.loops = m.loops;
    }
    const uint32_t filter_bits = HL_SET_LP | HL_SET_HP | HL_SET_OCCLUSION | HL_SET_OBSTRUCTION;
    float u[4] = {0};
    if (lv) memcpy(u, lv->post_user, sizeof u); /* else hld_vm_set answers ENOVOICE */
    if (m.mask & filter_bits) {
        const float given[4] = {m.post.lp_hz, m.post.hp_hz, m.post.occlusion, m.post.obstruction};
        for (int i = 0; i < 4; i++)
            if (m.mask & (HL_SET_LP << i)) u[i] = given[i];
        hld_voice_post_map(d, u, lv && lv->pv.bound ? &lv->pv.pc : NULL, &s.lp_hz, &s.hp_hz,
                           &s.occ_db);
        s.mask |= HL_MIX_SET_FILTER;
    }
    if (m.mask & HL_SET_SENDS) {
        if (hld_voice_sends_resolve(q, &m.post, s.send_bus, s.send_gain) != 0) return 0;
        s.mask |= HL_MIX_SET_SENDS;
    }
    /* the post stage as asked: recorded once the SET is taken */
    const float *post = (m.mask & filter_bits) ? u : NULL;
    if (m.mask & HL_SET_SEEK) {
        int rc = hld_voice_seek(q, m.voice, m.seek_s, &s, post);
        if (rc != 0) return 0; /* answered, or stream_done will */
    }
    /* the bindings ride on what it asks */
    int rc = hld_vm_params_user_set(d->vm, m.voice, &s, post, hld_now_ns());
    if (rc < 0) return hld_mixer_fail(q, rc);
    return hld_reply_ok(q);
}

/* ---- CONE ------------------------------------------------------------------ */

/* The emitter or cue a CONE or ATTEN names (this client's namespace), if
 * this client may change it; else NULL, answered (ENOEMITTER, or EINVAL "no
 * cue named", or EPERM). */
static hld_emitter_t *target_emitter(hld_req_t *q, const char *name) {
    hld_emitter_t *em = hld_vm_emitter_find_in(q->c->d->vm, name, hld_ns_rank, q->c);
    char msg[HL_MAX_MSG + 1];
    if (!em) {
        snprintf(msg, sizeof msg, "no emitter named %s", name);
        return hld_fail(q, HELIOD_ENOEMITTER, msg), NULL;
    }
    return hld_may_change(q, em->creator, "emitter", name) ? em : NULL;
}

static hld_cue_t *target_cue(hld_req_t *q, const char *name) {
    hld_cue_t *cue = hld_cues_find_in(&q->c->d->cues, name, hld_ns_rank, q->c);
    char msg[HL_MAX_MSG + 1];
    if (!cue) {
        snprintf(msg, sizeof msg, "no cue named %s", name);
        return hld_fail(q, HELIOD_EINVAL, msg), NULL;
    }
    return hld_may_change(q, cue->owner, "cue", name) ? cue : NULL;
}

int hld_op_cone(hld_req_t *q) {
    hl_cone_t m;
    hl_get_cone(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_cone(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    const float cone[7] = {m.dir[0],    m.dir[1],     m.dir[2],     m.inner_deg,
                           m.outer_deg, m.outer_gain, m.outer_lp_hz};
    if (m.target == HL_CONE_VOICE) {
        hld_lvoice_t *lv = hld_vm_get(d->vm, m.voice);
        if (may_touch(q, lv, m.voice) != 0) return 0;
        hl_voice_set_t s = {.mask = HL_MIX_SET_CONE,
                            .cone_dir = {m.dir[0], m.dir[1], m.dir[2]},
                            .cone_inner = m.inner_deg,
                            .cone_outer = m.outer_deg,
                            .cone_outer_gain = m.outer_gain,
                            .cone_outer_lp = m.outer_lp_hz};
        int rc = hld_vm_set(d->vm, m.voice, &s, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc);
        return hld_reply_ok(q);
    }
    if (m.target == HL_CONE_EMITTER) {
        hld_emitter_t *em = target_emitter(q, m.name);
        if (!em) return 0;
        int rc = hld_vm_emitter_cone(d->vm, em, cone, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc);
        return hld_reply_ok(q);
    }
    hld_cue_t *cue = target_cue(q, m.name);
    if (!cue) return 0;
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
    hl_dcurve_t dc = {.n = m.npoints};
    memcpy(dc.d, m.dist, sizeof dc.d);
    memcpy(dc.v, m.gain_db, sizeof dc.v);
    if (m.target == HL_CONE_VOICE) {
        hld_lvoice_t *lv = hld_vm_get(d->vm, m.voice);
        if (may_touch(q, lv, m.voice) != 0) return 0;
        hl_voice_set_t s = {0};
        hld_vm_curve_set(&s, m.kind, &dc);
        int rc = hld_vm_set(d->vm, m.voice, &s, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc);
        lv->own_curves |= (uint8_t)(1u << m.kind); /* its emitter's no longer replaces it */
        hld_vm_mark_dirty(d->vm);
        return hld_reply_ok(q);
    }
    if (m.target == HL_CONE_EMITTER) {
        hld_emitter_t *em = target_emitter(q, m.name);
        if (!em) return 0;
        int rc = hld_vm_emitter_curve(d->vm, em, m.kind, &dc, hld_now_ns());
        if (rc < 0) return hld_mixer_fail(q, rc);
        return hld_reply_ok(q);
    }
    hld_cue_t *cue = target_cue(q, m.name);
    if (!cue) return 0;
    _Static_assert(sizeof dc == sizeof cue->dist_lp, "curve layouts");
    if (m.kind == HL_ATTEN_LOWPASS) {
        memcpy(&cue->dist_lp, &dc, sizeof dc);
    } else if (m.kind == HL_ATTEN_SEND) {
        memcpy(&cue->dist_send, &dc, sizeof dc);
    } else {
        cue->curve_n = m.npoints;
        memcpy(cue->curve_d, m.dist, sizeof cue->curve_d);
        memcpy(cue->curve_db, m.gain_db, sizeof cue->curve_db);
    }
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

void hld_voice_describe(hld_daemon_t *d, uint64_t voice, const hld_lvoice_t *lv,
                        hl_voice_info_t *out) {
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
        double r = lv->snd->stream ? lv->snd->source_rate : d->engine.rate;
        vi.position_s = r > 0 ? hld_vm_position(d->vm, lv) / r : 0.0;
    } else if (lv->pinned) { /* a client-fed stream: named after its client, at what it consumed */
        if (hld_cstream_describe(d, voice, vi.sound, sizeof vi.sound, &vi.position_s) != 0)
            snprintf(vi.sound, sizeof vi.sound, "stream");
    }
    if (lv->cue) snprintf(vi.cue, sizeof vi.cue, "%s", lv->cue->def.name);
    if (lv->cat) snprintf(vi.category, sizeof vi.category, "%s", lv->cat->def.name);
    if (lv->em) snprintf(vi.emitter, sizeof vi.emitter, "%s", lv->em->name);
    const char *bn = hld_bus_name(&d->buses, (int)p->bus);
    snprintf(vi.bus, sizeof vi.bus, "%s", bn ? bn : "");
    vi.post.lp_hz = lv->post_user[0];
    vi.post.hp_hz = lv->post_user[1];
    vi.post.occlusion = lv->post_user[2];
    vi.post.obstruction = lv->post_user[3];
    for (int i = 0; i < HL_VOICE_SENDS && i < HL_MAX_SENDS; i++) {
        const char *sn =
            p->send_gain[i] > 0.0f ? hld_bus_name(&d->buses, (int)p->send_bus[i]) : NULL;
        snprintf(vi.post.send[i], sizeof vi.post.send[i], "%s", sn ? sn : "");
        vi.post.send_db[i] = sn ? hl_lin_to_db(p->send_gain[i]) : HL_MIN_DB;
    }
    *out = vi;
}

static int voice_entry(void *user, uint64_t voice, const hld_lvoice_t *lv) {
    voices_ctx_t *x = user;
    hl_voice_info_t vi;
    hld_voice_describe(x->d, voice, lv, &vi);
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
