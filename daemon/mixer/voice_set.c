/*
 * voice_set.c - a SET applied to a live voice on the audio thread
 * (hl_voice_set_rt: gains, pan, position, pitch, pause and resume, seek,
 * the post stage, a stream switch), and the modulation slots
 * (hl_mixer_mod.h): a slot's change (HL_CMD_MOD) is recorded on the slot
 * and every voice attached to it takes, as it is next mixed or commanded
 * (hl_voice_mod_take_rt), for what it takes from the slot, the SET it
 * would have got on its own (no command, ring slot or schedule entry per
 * voice, no walk of the voices by the command); a filter change
 * moves the slot's shared glide once and the voices in step with it take
 * a copy (hl_vf_share_t, fx_vfilter.c), and the glides move on once a
 * block before the voices (hl_voice_mod_block_rt).
 */
#include <string.h>

#include "mix_part_int.h"
#include "voice_state.h"

/* Seek or stream switch: fade the source out; the jump happens when the
 * fade reaches zero (do_switch). A newer request replaces a pending one. */
static void cmd_jump(hl_mixer_t *m, hl_rt_voice_t *v, const hl_voice_set_t *s, uint64_t now_ns) {
    if (s->mask & HL_MIX_SET_STREAM) {
        if (!v->stream) { /* not a stream voice: refused by the control side */
            hl_voice_retire_stream_rt(m, v, s->stream, now_ns);
            return;
        }
        if (v->pending) hl_voice_retire_stream_rt(m, v, v->pending, now_ns);
        v->pending = s->stream;
        v->sw_mode = HL_SW_STREAM;
    } else {
        if (v->stream) return;
        v->seek_frame = s->seek_frame;
        v->sw_mode = HL_SW_SEEK;
    }
    v->xf.cur = ramp_after(&v->xf, 0);
    ramp_set(&v->xf, 0.0f, HL_SEEK_FADE);
}

/* SET loops (HL_MIX_SET_LOOPS, as hl_mixer.h says): the passes left from
 * the cursor on. */
static void cmd_loops(hl_rt_voice_t *v, int32_t loops) {
    const uint64_t le = (uint64_t)v->loop_end << 32;
    if (v->stream || v->f.cursor >= le) return; /* past the region: left for good */
    const uint64_t xs = (uint64_t)(v->loop_end - v->loop_xfade) << 32;
    const int wrapping = v->loop_xfade && v->f.cursor >= xs;
    if (wrapping && !v->loop_on) return; /* too late for this pass's blend */
    v->loops_left = loops < 0 ? HL_LOOP_FOREVER : (uint32_t)loops + (wrapping ? 1u : 0u);
    v->loop_on = v->loops_left != 0 && v->loop_end > v->loop_start;
    hl_voice_pcm_view_rt(v);
}

/* A steady 2D voice a soft SET kept steady (hl_voice_set_rt's keep): its
 * line's post flag and ramp, or its flat pair when the pair jumped. */
static inline void steady_again(hl_rt_voice_t *v) {
    v->f.post = (uint16_t)v->post;
    v->f.ramp = (uint16_t)((v->gl.rem | v->gr.rem) != 0);
    if (!v->f.ramp) { /* a jump (ramp 0 is one block, so only a settled pair) */
        v->f.gl = v->env.cur * v->gl.cur;
        v->f.gr = v->env.cur * v->gr.cur;
    }
    v->f.steady = 1;
}

/* A SET's filter change: the voice's own cutoffs become s's, its filter
 * glides to them (stepped when s says so; following the slot sl's shared
 * glide when sl), its occlusion ramps to s's (where it stands already: no
 * ramp, as a ramp from x to x is x at every frame, but keeps the voice off
 * the flat post path while it runs). hl_voice_set_rt's and mod_give_2d's. */
static inline __attribute__((always_inline)) void
set_filter(hl_rt_voice_t *v, const hl_voice_set_t *s, hl_rt_mod_t *sl, uint32_t len) {
    v->lp_own = s->lp_hz;
    v->hp_own = s->hp_hz;
    if (sl)
        hl_voice_filter_follow_rt(v, &sl->vf, &sl->c_at, len);
    else
        hl_voice_filter_rt(v, len, (s->mask & HL_MIX_SET_FSTEP) != 0);
    v->occ.cur = ramp_after(&v->occ, 0);
    const float occ = s->occ_db < 0.0f ? hl_db_to_lin(s->occ_db) : 1.0f;
    ramp_set(&v->occ, occ, occ == v->occ.cur && occ == v->occ.target ? 0 : len);
}

void hl_voice_set_rt(hl_mixer_t *m, hl_rt_voice_t *v, const hl_voice_set_t *s, uint64_t now_ns,
                     hl_rt_mod_t *sl) {
    /* whatever changes, the full path sees it first; but a steady 2D voice
     * whose gain, pan, filter, occlusion or sends change stays steady: the
     * steady path ramps its gain pair per sample (f.ramp) and its post stage
     * glides the rest, as the full path would */
    const uint32_t soft =
        HL_MIX_SET_GAIN | HL_MIX_SET_PAN | HL_MIX_SET_FILTER | HL_MIX_SET_FSTEP | HL_MIX_SET_SENDS;
    const int keep =
        !m->no_fast_ramp && v->f.steady && !(v->flags & HL_MIX_3D) && !(s->mask & ~soft);
    v->f.steady = 0;
    uint32_t len = hl_ramp_len(s->ramp_frames);
    if (s->mask & HL_MIX_SET_PITCH) {
        v->pitch_from = pitch_now(v);
        v->pitch_to = s->pitch;
        v->pitch_len = len;
        v->pitch_pos = 0;
    }
    if (v->flags & HL_MIX_3D) {
        if (s->mask & (HL_MIX_SET_GAIN | HL_MIX_SET_POS | HL_MIX_SET_VEL | HL_MIX_SET_CONE |
                       HL_MIX_SET_CURVE | HL_MIX_SET_DLP | HL_MIX_SET_DSEND))
            v->sp_gen = 0;
        if (s->mask & HL_MIX_SET_DLP) v->dist_lp = s->dist_lp;
        if (s->mask & HL_MIX_SET_DSEND) v->dist_send = s->dist_send;
        if (s->mask & HL_MIX_SET_CURVE) {
            v->curve_n = s->curve_n;
            memcpy(v->curve_d, s->curve_d, sizeof v->curve_d);
            memcpy(v->curve_db, s->curve_db, sizeof v->curve_db);
        }
        if (s->mask & HL_MIX_SET_CONE) {
            memcpy(v->cone_dir, s->cone_dir, sizeof v->cone_dir);
            v->cone_inner = s->cone_inner;
            v->cone_outer = s->cone_outer;
            v->cone_outer_gain = s->cone_outer_gain;
            v->cone_lp = s->cone_outer_lp;
        }
        if (s->mask & HL_MIX_SET_VEL) memcpy(v->vel, s->vel, sizeof v->vel);
        if (s->mask & HL_MIX_SET_GAIN) ramp_set(&v->gain, s->gain, len);
        if (s->mask & HL_MIX_SET_POS) {
            memcpy(v->pos_from, v->pos, sizeof v->pos);
            memcpy(v->pos_to, s->pos, sizeof v->pos);
            v->pos_rem = v->pos_len = len;
        }
    } else if (s->mask & (HL_MIX_SET_GAIN | HL_MIX_SET_PAN)) {
        if (s->mask & HL_MIX_SET_GAIN) v->gain_2d = s->gain;
        if (s->mask & HL_MIX_SET_PAN) v->pan_2d = s->pan;
        float l, r;
        hl_voice_pair_2d_rt(v, v->gain_2d, v->pan_2d, &l, &r);
        ramp_set(&v->gl, l, len);
        ramp_set(&v->gr, r, len);
    }
    if ((s->mask & HL_MIX_SET_PAUSE) &&
        (v->env_mode == HL_ENV_RUN || v->env_mode == HL_ENV_PAUSING)) {
        v->env_mode = HL_ENV_PAUSING;
        hl_voice_fade_start_rt(v, 0, len, HL_FADE_LINEAR);
    } else if ((s->mask & HL_MIX_SET_RESUME) &&
               (v->env_mode == HL_ENV_PAUSED || v->env_mode == HL_ENV_PAUSING)) {
        v->env_mode = HL_ENV_RUN;
        hl_voice_fade_start_rt(v, 1, len, HL_FADE_LINEAR);
    }
    if (s->mask & HL_MIX_SET_FILTER) set_filter(v, s, sl, len);
    if (s->mask & HL_MIX_SET_SENDS)
        for (int i = 0; i < HL_MAX_SENDS; i++) {
            uint8_t b = (uint8_t)(s->send_bus[i] < HL_MAX_BUSES ? s->send_bus[i] : 0);
            if (b != v->send_bus[i]) { /* moved: starts on the new bus from silence */
                v->send_bus[i] = b;
                v->send[i].cur = 0.0f;
            }
            v->send_own[i] = s->send_gain[i];
            ramp_set(&v->send[i], s->send_gain[i] * v->dsend_now, len);
        }
    /* on (hl_voice_post_needed_rt's answer or'ed with 1 was always 1): the
     * stage turns itself off when nothing needs it, at its block's end; a
     * filter change turned it on already (hl_voice_filter_rt) */
    if (s->mask & HL_MIX_SET_SENDS) v->post = 1u;
    if (s->mask & HL_MIX_SET_INTERP) {
        v->flags = hl_interp_flags(
            v->flags, s->cubic == HL_INTERP_SINC && !m->sinc ? HL_INTERP_CUBIC : s->cubic);
        if (!v->stream) hl_voice_pcm_view_rt(v); /* a stream's run reads the flag */
    }
    if (s->mask & HL_MIX_SET_LFE) {
        v->lfe.cur = ramp_after(&v->lfe, 0);
        ramp_set(&v->lfe, s->lfe, len);
    }
    if (s->mask & HL_MIX_SET_LOOPS) cmd_loops(v, s->loops);
    if (s->mask & (HL_MIX_SET_SEEK | HL_MIX_SET_STREAM)) cmd_jump(m, v, s, now_ns);
    if (keep) steady_again(v);
}

/* A slot's flush reads and writes a few lines of each voice, cold: fetched
 * this many voices ahead on the slot's list. */
#define HL_MOD_AHEAD 4

static inline __attribute__((always_inline)) void mod_prefetch(const hl_rt_voice_t *v) {
    __builtin_prefetch(&v->mod);
    __builtin_prefetch(&v->f, 1);
    __builtin_prefetch(&v->gl, 1);
    __builtin_prefetch(&v->vf, 1);
    __builtin_prefetch(&v->vf.hp, 1);
    __builtin_prefetch(&v->occ, 1);
    __builtin_prefetch(&v->send[HL_MAX_SENDS - 1]);
}

/* mod_give for a 2D voice: what hl_voice_set_rt does with a SET of gain
 * and a stepped filter glide (nothing else is in a slot's change), the
 * same steps in the same order and the same bits, without the SET's other
 * checks (the block where a parameter moves every voice of a cue). */
static void mod_give_2d(hl_mixer_t *m, hl_rt_mod_t *sl, hl_rt_voice_t *v, uint32_t what) {
    const hl_voice_set_t *s = &sl->c_set;
    const int keep = !m->no_fast_ramp && v->f.steady;
    v->f.steady = 0;
    const uint32_t len = hl_ramp_len(s->ramp_frames);
    if (what & HL_MOD_GAIN) {
        const float g = v->mod_base * sl->c_factor;
        v->gain_2d = g > sl->c_max ? sl->c_max : g;
        float l, r;
        if (v->channels == 1) /* hl_voice_pair_2d_rt's mono branch, inlined */
            hl_voice_pair_mono_rt(v, v->gain_2d, &v->pan_2d, &l, &r);
        else
            hl_voice_pair_2d_rt(v, v->gain_2d, v->pan_2d, &l, &r);
        ramp_set(&v->gl, l, len);
        ramp_set(&v->gr, r, len);
    }
    if (what & HL_MOD_FILTER) {
        set_filter(v, s, sl, len); /* its post stage on, as hl_voice_set_rt's */
    }
    if (keep) steady_again(v);
}

/* The slot's pending change given to v (hl_mod_due(m, v)): the SET the
 * command gave each voice before it was made lazy, the same bits. */
static void mod_give(hl_mixer_t *m, hl_rt_mod_t *sl, hl_rt_voice_t *v) {
    v->mod_seq = sl->c_seq; /* taken: not again */
    hl_voice_set_t *s = &sl->c_set;
    const uint32_t what = sl->c_what & v->mod_what;
    if (!(v->flags & HL_MIX_3D)) {
        if (what & (HL_MOD_GAIN | HL_MOD_FILTER)) mod_give_2d(m, sl, v, what);
        return;
    }
    s->mask = 0;
    if (what & HL_MOD_GAIN) {
        const float g = v->mod_base * sl->c_factor;
        s->gain = g > sl->c_max ? sl->c_max : g;
        s->mask |= HL_MIX_SET_GAIN;
    }
    if (what & HL_MOD_FILTER) s->mask |= HL_MIX_SET_FILTER | HL_MIX_SET_FSTEP;
    /* no seek nor stream switch: the time is not read */
    if (s->mask) hl_voice_set_rt(m, v, s, 0, (what & HL_MOD_FILTER) ? sl : NULL);
}

void hl_voice_mod_take_rt(hl_mixer_t *m, hl_rt_voice_t *v) {
    if (v->mod >= 1 && v->mod <= HL_MIX_MODS && hl_mod_due(m, v))
        mod_give(m, &m->rt_mod[v->mod - 1], v);
}

/* Every voice on the list that has not taken the slot's pending change
 * takes it now (a newer change comes, or a voice was left out of a block),
 * and the slot has none pending. */
static void mod_flush(hl_mixer_t *m, uint32_t mod) {
    hl_rt_mod_t *sl = &m->rt_mod[mod - 1];
    uint32_t a = sl->head; /* HL_MOD_AHEAD voices ahead: their lines fetched */
    for (uint32_t d = 0; d < HL_MOD_AHEAD && a; d++) {
        mod_prefetch(&m->rt[a - 1]);
        a = m->rt[a - 1].mod_next;
    }
    for (uint32_t k = sl->head; k;) {
        hl_rt_voice_t *v = &m->rt[k - 1];
        k = v->mod_next;
        if (a) {
            mod_prefetch(&m->rt[a - 1]);
            a = m->rt[a - 1].mod_next;
        }
        if (v->mod == mod && hl_mod_due(m, v)) mod_give(m, sl, v);
    }
    sl->pend = 0;
    m->mod_pend[(mod - 1) / 64] &= ~(1ull << ((mod - 1) % 64));
}

void hl_voice_mod_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    (void)now_ns;
    const uint32_t mod = c->u.mod.mod, gen = c->u.mod.gen;
    const uint32_t what = c->u.mod.mask;
    if (mod < 1 || mod > HL_MIX_MODS) return;
    hl_rt_mod_t *sl = &m->rt_mod[mod - 1];
    if (sl->pend) mod_flush(m, mod); /* the change before first, where it is not taken */
    if (sl->gen != gen) {            /* the slot taken again: a glide of its own */
        sl->gen = gen;
        sl->vf_on = 0;
        m->mod_busy[(mod - 1) / 64] &= ~(1ull << ((mod - 1) % 64));
    }
    hl_voice_set_t *s = &sl->c_set;
    memset(s, 0, sizeof *s);
    s->ramp_frames = c->u.mod.ramp_frames;
    if (what & HL_MOD_FILTER) {
        hl_vf_share_t *sh = &sl->vf;
        if (!sl->vf_on) {
            hl_vf_share_init_rt(sh, (float)m->cfg.rate, c->u.mod.lp0, c->u.mod.hp0, &m->vf_cache);
            sl->vf_on = 1;
        }
        hl_vf_share_set_rt(sh, c->u.mod.lp, c->u.mod.hp, hl_ramp_len(s->ramp_frames));
        hl_vf_share_mark_rt(sh, &sl->c_at);
        m->mod_busy[(mod - 1) / 64] |= 1ull << ((mod - 1) % 64);
        s->lp_hz = c->u.mod.lp;
        s->hp_hz = c->u.mod.hp;
    }
    sl->c_gen = gen;
    sl->c_seq = c->u.mod.seq;
    sl->c_what = what;
    sl->c_factor = c->u.mod.factor;
    sl->c_max = c->u.mod.max_gain;
    if (!sl->head) return; /* no voice to take it */
    /* the voices take it as they are mixed (hl_voice_mod_take_rt): the
     * command touches none of them */
    sl->pend = 1;
    m->mod_pend[(mod - 1) / 64] |= 1ull << ((mod - 1) % 64);
    m->mod_pend_any = 1;
}

void hl_voice_mod_settle_rt(hl_mixer_t *m) {
    if (!m->mod_pend_any || hl_mix_part_quarantined_rt(m)) return; /* none, or some not mixed */
    for (uint32_t w = 0; w < HL_MIX_MODS / 64; w++) {
        for (uint64_t b = m->mod_pend[w]; b; b &= b - 1)
            m->rt_mod[w * 64 + (uint32_t)__builtin_ctzll(b)].pend = 0;
        m->mod_pend[w] = 0;
    }
    m->mod_pend_any = 0;
}

void hl_voice_mod_block_rt(hl_mixer_t *m, uint32_t n) {
    for (uint32_t w = 0; w < HL_MIX_MODS / 64; w++)
        for (uint64_t b = m->mod_busy[w]; b; b &= b - 1) {
            const uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(b);
            if (!hl_vf_share_block_rt(&m->rt_mod[i].vf, n)) m->mod_busy[w] &= ~(1ull << (i % 64));
        }
    /* every plan made: a later slot's lookups may replace an earlier's
     * entries, so the held cells are found once they all are */
    for (uint32_t w = 0; w < HL_MIX_MODS / 64; w++)
        for (uint64_t b = m->mod_busy[w]; b; b &= b - 1)
            hl_vf_share_hold_rt(&m->rt_mod[w * 64 + (uint32_t)__builtin_ctzll(b)].vf);
}

void hl_voice_mod_link_rt(hl_mixer_t *m, hl_rt_voice_t *v) {
    v->mod_prev = v->mod_next = 0;
    m->mod_of[v->slot] = 0;
    if (v->mod < 1 || v->mod > HL_MIX_MODS || !v->mod_what) return;
    hl_rt_mod_t *sl = &m->rt_mod[v->mod - 1];
    /* a change pending when it joins is not its own: it was not on the
     * list when the change came */
    if (sl->pend && v->mod_gen == sl->c_gen && (int32_t)(sl->c_seq - v->mod_seq) > 0)
        v->mod_seq = sl->c_seq;
    m->mod_of[v->slot] = (uint16_t)v->mod;
    v->mod_next = sl->head;
    if (sl->head) m->rt[sl->head - 1].mod_prev = v->slot + 1;
    sl->head = v->slot + 1;
}

void hl_voice_mod_unlink_rt(hl_mixer_t *m, hl_rt_voice_t *v) {
    if (v->mod < 1 || v->mod > HL_MIX_MODS) return;
    m->mod_of[v->slot] = 0;
    hl_rt_mod_t *sl = &m->rt_mod[v->mod - 1];
    if (v->mod_prev)
        m->rt[v->mod_prev - 1].mod_next = v->mod_next;
    else if (sl->head == v->slot + 1)
        sl->head = v->mod_next;
    if (v->mod_next) m->rt[v->mod_next - 1].mod_prev = v->mod_prev;
    v->mod_prev = v->mod_next = 0;
}
