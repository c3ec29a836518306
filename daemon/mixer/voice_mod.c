/*
 * voice_mod.c - modulation slots on the audio thread (hl_mixer_mod.h): a
 * slot's change (HL_CMD_MOD) gives every voice attached to it, for what it
 * takes from the slot, the SET it would have got on its own (voice_cmd.c's
 * hl_voice_set_rt, no command, ring slot or schedule entry per voice); a
 * filter change moves the slot's shared glide once and the voices in step
 * with it take a copy (hl_vf_share_t, fx_vfilter.c).
 */
#include <string.h>

#include "voice_state.h"

/* A slot's change reads and writes a few lines of each voice, cold in
 * the block where a parameter moves a thousand of them: fetched this many
 * voices ahead. */
#define HL_MOD_AHEAD 6

static inline __attribute__((always_inline)) void mod_prefetch(const hl_rt_voice_t *v) {
    __builtin_prefetch(&v->mod);
    __builtin_prefetch(&v->f, 1);
    __builtin_prefetch(&v->gl, 1);
    __builtin_prefetch(&v->vf, 1);
    __builtin_prefetch(&v->vf.hp, 1);
    __builtin_prefetch(&v->occ, 1);
    __builtin_prefetch(&v->send[HL_MAX_SENDS - 1]);
}

void hl_voice_mod_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    const uint32_t mod = c->u.mod.mod, gen = c->u.mod.gen, seq = c->u.mod.seq;
    const uint32_t what = c->u.mod.mask;
    if (mod < 1 || mod > HL_MIX_MODS) return;
    hl_rt_mod_t *sl = &m->rt_mod[mod - 1];
    if (sl->gen != gen) { /* the slot taken again: a glide of its own */
        sl->gen = gen;
        sl->vf_on = 0;
        m->mod_busy[(mod - 1) / 64] &= ~(1ull << ((mod - 1) % 64));
    }
    hl_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.ramp_frames = c->u.mod.ramp_frames;
    hl_vf_share_t *sh = NULL;
    if (what & HL_MOD_FILTER) {
        sh = &sl->vf;
        if (!sl->vf_on) {
            hl_vf_share_init_rt(sh, (float)m->cfg.rate, c->u.mod.lp0, c->u.mod.hp0, &m->vf_cache);
            sl->vf_on = 1;
        }
        hl_vf_share_set_rt(sh, c->u.mod.lp, c->u.mod.hp, hl_ramp_len(s.ramp_frames));
        m->mod_busy[(mod - 1) / 64] |= 1ull << ((mod - 1) % 64);
        s.lp_hz = c->u.mod.lp;
        s.hp_hz = c->u.mod.hp;
    }
    const float f = c->u.mod.factor, max = c->u.mod.max_gain;
    for (uint32_t i = 0; i < m->n_rt_active; i++) {
        if (i + HL_MOD_AHEAD < m->n_rt_active) mod_prefetch(&m->rt[m->rt_active[i + HL_MOD_AHEAD]]);
        hl_rt_voice_t *v = &m->rt[m->rt_active[i]];
        /* (seq - mod_seq) as signed: sent after its play */
        if (v->mod != mod || v->mod_gen != gen || !v->live || (int32_t)(seq - v->mod_seq) <= 0)
            continue;
        s.mask = 0;
        if (what & v->mod_what & HL_MOD_GAIN) {
            const float g = v->mod_base * f;
            s.gain = g > max ? max : g;
            s.mask |= HL_MIX_SET_GAIN;
        }
        if (what & v->mod_what & HL_MOD_FILTER) s.mask |= HL_MIX_SET_FILTER | HL_MIX_SET_FSTEP;
        if (s.mask) hl_voice_set_rt(m, v, &s, now_ns, sh);
    }
}

void hl_voice_mod_block_rt(hl_mixer_t *m, uint32_t n) {
    for (uint32_t w = 0; w < HL_MIX_MODS / 64; w++)
        for (uint64_t b = m->mod_busy[w]; b; b &= b - 1) {
            const uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(b);
            if (!hl_vf_share_block_rt(&m->rt_mod[i].vf, n)) m->mod_busy[w] &= ~(1ull << (i % 64));
        }
}
