/*
 * voice_cmd.c - commands applied on the audio thread (hl_cmd_apply_rt):
 * PLAY, STOP, SET (applied by voice_set.c), a modulation slot's change
 * (voice_set.c), the listener and bus gains; graph, effect,
 * ducking and bus-send commands go to mixer_bus.c. The block loop
 * (mixer_rt.c) applies what the schedule (mixer_sched.c) hands it, through
 * here; every command's ring wait goes into the wait histogram.
 */
#include <math.h>
#include <string.h>

#include "voice_state.h"

static hl_rt_voice_t *rt_voice(hl_mixer_t *m, const hl_cmd_t *c) {
    if (c->slot >= m->slots) return NULL;
    hl_rt_voice_t *v = &m->rt[c->slot];
    if (!v->live || v->gen != c->gen) return NULL;
    /* its slot's pending change first, as if the slot's command had given it */
    if (m->mod_pend_any && hl_mod_pending(m, c->slot)) hl_voice_mod_take_rt(m, v);
    return v;
}

static void cmd_play(hl_mixer_t *m, const hl_cmd_t *c) {
    if (c->slot >= m->slots || m->rt[c->slot].live) return;
    const hl_voice_params_t *p = &c->u.play;
    hl_rt_voice_t *v = &m->rt[c->slot];
    memset(v, 0, sizeof *v);
    v->live = 1;
    v->gen = c->gen;
    v->slot = c->slot;
    v->pcm = p->pcm;
    v->stream = p->stream;
    v->flags = p->flags;
    if ((v->flags & HL_MIX_SINC) && !m->sinc) v->flags = hl_interp_flags(v->flags, HL_INTERP_CUBIC);
    if (p->stream) {
        v->channels = p->stream->channels;
        hl_voice_stream_reset_rt(v);
    } else {
        v->channels = p->pcm->channels;
        v->src.data = p->pcm->data;
        v->src.frames = p->pcm->frames;
        v->src.ch = p->pcm->channels;
        v->loop_start = p->loop_start;
        v->loop_end = p->loop_end ? p->loop_end : p->pcm->frames;
        v->loop_xfade = p->loop_xfade;
        v->loops_left =
            p->loop_count ? p->loop_count : ((p->flags & HL_MIX_LOOP) ? HL_LOOP_FOREVER : 0);
        v->loop_on = v->loops_left != 0;
        /* a start past the loop region never reaches the loop (as a seek there) */
        if (v->loop_on && p->start_frame >= v->loop_end) v->loop_on = v->loops_left = 0;
        v->f.cursor = (uint64_t)p->start_frame << 32;
        hl_voice_pcm_view_rt(v);
    }
    v->bus = p->bus < HL_MAX_BUSES ? p->bus : HL_BUS_SFX;
    v->tag = p->tag;
    /* binaural from the first block on a fresh convolver: nothing of the
     * slot's previous voice (a stolen or ended one) rings into this one */
    v->hrtf = (p->flags & HL_MIX_3D) && m->hrtf;
    if (v->hrtf) hl_hrtf_voice_reset_rt(&m->hrtf_v[c->slot]);
    hl_vfilter_init_rt(&v->vf, (float)m->cfg.rate, p->lp_hz, p->hp_hz);
    v->vf.cache = &m->vf_cache;
    v->occ.cur = v->occ.target = p->occ_db < 0.0f ? hl_db_to_lin(p->occ_db) : 1.0f;
    for (int i = 0; i < HL_MAX_SENDS; i++) {
        v->send[i].cur = v->send[i].target = v->send_own[i] = p->send_gain[i];
        v->send_bus[i] = (uint8_t)(p->send_bus[i] < HL_MAX_BUSES ? p->send_bus[i] : 0);
    }
    v->post = hl_voice_post_needed_rt(v);
    v->pitch_from = v->pitch_to = p->pitch;
    v->xf.cur = v->xf.target = 1.0f;
    v->gain.cur = v->gain.target = p->gain;
    v->gain_2d = p->gain;
    v->pan_2d = p->pan;
    v->pan_law = p->pan_law;
    memcpy(v->pos, p->pos, sizeof v->pos);
    memcpy(v->pos_to, p->pos, sizeof v->pos);
    v->min_d = p->min_distance;
    v->max_d = p->max_distance;
    v->rolloff = p->rolloff;
    v->model = p->model;
    memcpy(v->cone_dir, p->cone_dir, sizeof v->cone_dir);
    v->cone_inner = p->cone_inner;
    v->cone_outer = p->cone_outer;
    v->cone_outer_gain = p->cone_outer_gain;
    v->cone_lp = p->cone_outer_lp;
    v->lp_own = p->lp_hz;
    v->hp_own = p->hp_hz;
    v->lp_cone_now = v->lp_cone_want = 0.0f;
    v->curve_n = p->curve_n;
    memcpy(v->curve_d, p->curve_d, sizeof v->curve_d);
    memcpy(v->curve_db, p->curve_db, sizeof v->curve_db);
    v->dist_lp = p->dist_lp;
    v->dist_send = p->dist_send;
    v->mod = p->mod;
    v->mod_gen = p->mod_gen;
    v->mod_seq = p->mod_seq;
    v->mod_base = p->mod_base;
    v->mod_what = p->mod_what;
    hl_voice_mod_link_rt(m, v);
    v->dsend_now = v->dsend_want = 1.0f;
    memcpy(v->vel, p->vel, sizeof v->vel);
    v->dop_factor = p->doppler_factor;
    v->doppler = v->dop_target = 1.0f;
    float l, r;
    if (v->flags & HL_MIX_3D) {
        (void)hl_voice_spatial_rt(m, v, p->gain, &l, &r);
        v->doppler = v->dop_target;   /* the first block plays at the formula's value */
        if (v->lp_cone_want > 0.0f) { /* starts behind its cone: filtered from the first frame */
            v->lp_cone_now = v->lp_cone_want;
            hl_vfilter_init_rt(
                &v->vf, (float)m->cfg.rate,
                p->lp_hz > 0.0f && p->lp_hz < v->lp_cone_now ? p->lp_hz : v->lp_cone_now, p->hp_hz);
            v->vf.cache = &m->vf_cache;
            v->post = hl_voice_post_needed_rt(v);
        }
        if (v->dsend_want != 1.0f) { /* the sends at its distance from the first frame */
            v->dsend_now = v->dsend_want;
            for (int i = 0; i < HL_MAX_SENDS; i++)
                v->send[i].cur = v->send[i].target = v->send_own[i] * v->dsend_now;
        }
    } else {
        hl_voice_pair_2d_rt(v, p->gain, p->pan, &l, &r);
    }
    v->gl.cur = v->gl.target = l;
    v->gr.cur = v->gr.target = r;
    /* the front pair, or a 3D voice's speakers from its first block on */
    v->f.cl = (v->flags & HL_MIX_3D) ? v->sp_cl : 0;
    v->f.cr = (v->flags & HL_MIX_3D) ? v->sp_cr : 1;
    const int hgt = m->height && (v->flags & HL_MIX_3D); /* its speakers from the first block */
    for (int k = 0; k < 3; k++) {
        v->hc[k] = hgt ? v->sp_hc[k] : 0;
        v->hq[k].cur = v->hq[k].target = hgt ? v->sp_hq[k] : 0.0f;
        v->hq[k].rem = 0;
    }
    v->lfe.cur = v->lfe.target = p->lfe;
    if (v->flags & HL_MIX_PAUSED) {
        v->env_mode = HL_ENV_PAUSED;
    } else if (p->attack_frames) {
        hl_voice_fade_start_rt(v, 1, p->attack_frames, p->attack_curve);
    } else {
        v->env.cur = v->env.target = 1.0f;
    }
    m->rt_active[m->n_rt_active++] = c->slot;
}

static void cmd_stop(hl_mixer_t *m, const hl_cmd_t *c) {
    hl_rt_voice_t *v = rt_voice(m, c);
    /* gone, already fading (keep that fade), or its source already over and
     * the binaural ring-out playing (it ends on its own, FINISHED) */
    if (!v || v->env_mode == HL_ENV_RELEASE || v->htail) return;
    v->f.steady = 0;
    v->end_reason = c->u.stop.reason;
    if (v->env_mode == HL_ENV_PAUSED || (!v->started && c->at_frame)) {
        /* paused, or stopped on the very frame its scheduled start was for
         * (a scheduled play cancelled before it began: the stop was held
         * for it): silent already, it ends next block without a sound */
        v->env.cur = v->env.target = 0.0f;
        v->env.rem = 0;
        v->flen = 0;
    } else { /* from the level it is at, e.g. part way through a fade-in */
        hl_voice_fade_start_rt(
            v, 0, c->u.stop.release_frames ? c->u.stop.release_frames : HL_STOP_FADE_MIN,
            c->u.stop.curve);
    }
    v->env_mode = HL_ENV_RELEASE;
}

static void cmd_set(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    const hl_voice_set_t *s = &c->u.set;
    hl_rt_voice_t *v = rt_voice(m, c);
    if (!v) {
        /* the voice ended before the switch arrived: the new stream comes back */
        if ((s->mask & HL_MIX_SET_STREAM) && s->stream)
            hl_mix_event_rt(m, HL_MIX_EV_STREAM_RETIRED, 0, ((uint64_t)c->gen << 32) | c->slot, 0,
                            NULL, s->stream, now_ns, m->clock, 0);
        return;
    }
    /* its own gain or filter from now on */
    if (s->mask & HL_MIX_SET_GAIN) v->mod_what &= ~HL_MOD_GAIN;
    if (s->mask & HL_MIX_SET_FILTER) v->mod_what &= ~HL_MOD_FILTER;
    hl_voice_set_rt(m, v, s, now_ns, NULL);
}

/* Wait histogram bucket of a wait (see HL_MIX_WAIT_BUCKETS): in 2 us units
 * w, bucket 0 is w < 4 (8 us); above, the octave of w's leading bit and the
 * next two bits pick one of 4 buckets per octave. */
static uint32_t wait_bucket(uint64_t wait_ns) {
    const uint64_t sub = 1u << HL_WAIT_SUB_BITS;
    uint64_t w = wait_ns / HL_WAIT_UNIT_NS;
    if (w < sub) return 0;
    uint32_t o = 63u - (uint32_t)__builtin_clzll(w); /* >= HL_WAIT_SUB_BITS */
    uint32_t q = (uint32_t)(w >> (o - HL_WAIT_SUB_BITS)) & (uint32_t)(sub - 1);
    uint64_t b = 1 + ((uint64_t)(o - HL_WAIT_SUB_BITS) << HL_WAIT_SUB_BITS) + q;
    return b < HL_MIX_WAIT_BUCKETS ? (uint32_t)b : HL_MIX_WAIT_BUCKETS - 1;
}

void hl_cmd_apply_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    switch (c->type) {
    case HL_CMD_PLAY: cmd_play(m, c); break;
    case HL_CMD_STOP: cmd_stop(m, c); break;
    case HL_CMD_SET: cmd_set(m, c, now_ns); break;
    case HL_CMD_MOD: hl_voice_mod_rt(m, c, now_ns); break;
    case HL_CMD_LISTENER:
        if (c->slot > 0 && c->slot < HL_MIX_LISTENERS) {
            if (c->gen) {
                m->lis_on &= ~(1u << (c->slot - 1));
            } else {
                m->lis_x[c->slot - 1] = c->u.listener;
                m->lis_on |= 1u << (c->slot - 1);
            }
        } else {
            m->listener = c->u.listener;
        }
        if (++m->listener_gen == 0) m->listener_gen = 1; /* 0 marks a stale 3D pair */
        break;
    case HL_CMD_BUS:
        /* a command of an earlier bus on this index (removed before it was
         * due) is dropped: mixer_internal.h bus_gen_ctl */
        if (c->u.bus.bus >= 0 && c->u.bus.bus < HL_NUM_GAINS &&
            c->u.bus.gen == m->bus_gen[c->u.bus.bus]) {
            hl_ramp_t *g = c->u.bus.mute ? &m->bus[c->u.bus.bus].mute : &m->bus_gain[c->u.bus.bus];
            g->cur = ramp_after(g, 0);
            ramp_set(g, c->u.bus.gain, hl_ramp_len(c->u.bus.ramp_frames));
        }
        break;
    case HL_CMD_GRAPH:
    case HL_CMD_FX:
    case HL_CMD_FX_PARAM:
    case HL_CMD_DUCK:
    case HL_CMD_BUS_SEND: hl_bus_apply_rt(m, c, now_ns); break;
    default: break;
    }
    uint64_t wait = now_ns > c->enq_ns ? now_ns - c->enq_ns : 0;
    hl_mix_stats_atomic_t *st = &m->stats;
    if (wait > atomic_load_explicit(&st->wait_max_ns, memory_order_relaxed))
        store_u64(&st->wait_max_ns, wait);
    add_u64(&st->wait_hist[wait_bucket(wait)], 1);
}
