/*
 * voice_play.c - PLAY (of a cue or a sound), and the play core that
 * music_ops.c (a music state's track) and stream_ops.c (a client-fed
 * stream) start their voices with (voice_play.h).
 *
 * A handle a client holds names a logical voice of the voice manager (vm.h),
 * real or virtual. PLAY resolves the name (a cue first, else a sound), builds
 * the mixer parameters from the cue and the request's overrides, and hands
 * the admission to hld_vm_play. A streamed sound's voice that ranks real is
 * opened on the decoder pool first (stream_jobs.c), which answers it.
 */
#include "voice_play.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dispatch_int.h"
#include "hl_dsp.h"
#include "hl_limits.h"
#include "stream_jobs.h"

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

/* ---- the post stage: filters, occlusion, sends ---------------------------------- */

/* lp/hp cutoffs and occlusion/obstruction as the client gives them -> the
 * mixer's lp_hz, hp_hz and occ_db (hl_occlusion_map's documented curve):
 * the lower of the explicit low-pass and the occlusion's. */
void hld_voice_post_map(const hld_daemon_t *d, const float u[4], const hld_pcontrib_t *pc,
                        float *lp, float *hp, float *occ_db) {
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
int hld_voice_sends_resolve(hld_req_t *q, const hl_vpost_t *m, uint32_t bus[HL_MAX_SENDS],
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
    if (snd && !snd->stream && snd->pcm.channels > 2 && (flags & HL_MIX_3D)) {
        snprintf(msg, sizeof msg,
                 "sound %s has %u channels: a multichannel sound plays 2D only (no 3d flag, "
                 "no emitter)",
                 snd->name, snd->pcm.channels);
        return hld_fail(q, HELIOD_EINVAL, msg), -1;
    }
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
        p->cone_outer_lp = cue->cone[6];
    }
    if (cue && cue->curve_n) {
        p->curve_n = cue->curve_n;
        memcpy(p->curve_d, cue->curve_d, sizeof p->curve_d);
        memcpy(p->curve_db, cue->curve_db, sizeof p->curve_db);
    }
    if (cue) {
        _Static_assert(sizeof p->dist_lp == sizeof cue->dist_lp, "curve layouts");
        memcpy(&p->dist_lp, &cue->dist_lp, sizeof p->dist_lp);
        memcpy(&p->dist_send, &cue->dist_send, sizeof p->dist_send);
    }
    const hl_vpost_t *pf = (over & HL_OVER_FILTER) || !cd ? &m->post : &cd->post;
    const hl_vpost_t *ps = (over & HL_OVER_SENDS) || !cd ? &m->post : &cd->post;
    pl->post_user[0] = pf->lp_hz;
    pl->post_user[1] = pf->hp_hz;
    pl->post_user[2] = pf->occlusion;
    pl->post_user[3] = pf->obstruction;
    hld_voice_post_map(d, pl->post_user, pv->bound ? &pv->pc : NULL, &p->lp_hz, &p->hp_hz,
                       &p->occ_db);
    if (hld_voice_sends_resolve(q, ps, p->send_bus, p->send_gain) != 0) return -1;
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
        const char *msg = NULL;
        int err = hld_voice_open_play(q, pl.snd, lv, voice, &msg);
        if (err) {
            hld_vm_stream_failed(d->vm, voice);
            return hld_fail(q, err, msg);
        }
        if (out) *out = voice;
        q->voice = voice; /* the handle stream_done answers with */
        return 0;         /* answered by stream_done */
    }
    if (out) { /* hld_voice_play_music: its caller replies */
        *out = voice;
        return 0;
    }
    hld_reply_play(q, voice, stolen);
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
