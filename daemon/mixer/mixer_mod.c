/*
 * mixer_mod.c - modulation slots, the control side (hl_mixer_mod.h): taking
 * and giving back a slot, and its changes as one command each (applied by
 * voice_set.c on the audio thread).
 */
#include "mixer_internal.h"

int hl_mixer_mod_alloc(hl_mixer_t *m, uint32_t *mod, uint32_t *gen) {
    for (uint32_t i = 0; i < HL_MIX_MODS; i++)
        if (!(m->mod_gen_ctl[i] & 1u)) {
            *gen = ++m->mod_gen_ctl[i]; /* odd: taken */
            *mod = i + 1;
            return 0;
        }
    return HELIOD_EBUSY;
}

void hl_mixer_mod_free(hl_mixer_t *m, uint32_t mod) {
    if (mod >= 1 && mod <= HL_MIX_MODS && (m->mod_gen_ctl[mod - 1] & 1u)) m->mod_gen_ctl[mod - 1]++;
}

int hl_mixer_mod_change(hl_mixer_t *m, uint32_t mod, const hl_mod_change_t *c, uint64_t now_ns) {
    const uint32_t w = c->mask;
    if (mod < 1 || mod > HL_MIX_MODS || !(m->mod_gen_ctl[mod - 1] & 1u) || !w ||
        (w & ~(HL_MOD_GAIN | HL_MOD_FILTER)))
        return HELIOD_EINVAL;
    if ((w & HL_MOD_GAIN) && !(c->factor >= 0.0f && c->max_gain >= 0.0f)) return HELIOD_EINVAL;
    if ((w & HL_MOD_FILTER) &&
        !(c->lp_hz >= 0.0f && c->hp_hz >= 0.0f && c->lp_from >= 0.0f && c->hp_from >= 0.0f))
        return HELIOD_EINVAL;
    hl_cmd_t cmd = {.type = HL_CMD_MOD, .slot = UINT32_MAX, .enq_ns = now_ns};
    cmd.u.mod.mod = mod;
    cmd.u.mod.gen = m->mod_gen_ctl[mod - 1];
    cmd.u.mod.mask = w;
    cmd.u.mod.factor = c->factor;
    cmd.u.mod.max_gain = c->max_gain;
    cmd.u.mod.lp = c->lp_hz;
    cmd.u.mod.hp = c->hp_hz;
    cmd.u.mod.lp0 = c->lp_from;
    cmd.u.mod.hp0 = c->hp_from;
    cmd.u.mod.ramp_frames = c->ramp_frames;
    cmd.u.mod.seq = m->mod_seq_ctl[mod - 1] + 1;
    if (hl_cmd_push(m, &cmd) != 0) return HELIOD_EBUSY;
    m->mod_seq_ctl[mod - 1]++;
    return 0;
}

int hl_mixer_mod_set(hl_mixer_t *m, uint32_t mod, float factor, float max_gain,
                     uint32_t ramp_frames, uint64_t now_ns) {
    const hl_mod_change_t c = {
        .mask = HL_MOD_GAIN, .factor = factor, .max_gain = max_gain, .ramp_frames = ramp_frames};
    return hl_mixer_mod_change(m, mod, &c, now_ns);
}
