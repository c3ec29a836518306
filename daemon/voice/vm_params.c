/*
 * vm_params.c - game parameters meet the voices (vm.h, params.h).
 *
 * On the main thread, at the poll: the parameters seek toward their
 * targets, scheduled PARAMs come due, and when a value moved every voice of
 * a cue with bindings is evaluated. A voice whose bindings now add
 * something else gets one ordinary hl_voice_set_t through hld_vm_set,
 * ramped over the evaluation interval (a seek: on a grid of engine frames,
 * scheduled a ranking lead ahead, hld_vm_params_tick): the audio thread sees the same
 * ramped SETs a game would send, nothing new. Cost: a pass over the voices
 * of bound cues (their intrusive lists), only when something changed, at
 * most every HLD_PARAM_EVAL_MS while a value seeks; none over a cue whose
 * voices are all on its modulation slot with nothing else of theirs
 * moving (one command, and their copies follow when read: vm_slot_t).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hl_dsp.h"
#include "hl_fx.h"
#include "vm_internal.h"

void hld_vm_post_map(float rate, const float u[4], const hld_pcontrib_t *pc, float *lp, float *hp,
                     float *occ_db) {
    float occ = u[2];
    if (pc && pc->occ > occ) occ = pc->occ;
    float g = 1.0f, lpo = 0.0f;
    hl_occlusion_map(occ, u[3], rate, &g, &lpo);
    float eff = u[0] > 0.0f ? u[0] : 0.0f;
    if (pc && pc->lp_hz > 0.0f && (eff == 0.0f || pc->lp_hz < eff)) eff = pc->lp_hz;
    if (lpo > 0.0f && (eff == 0.0f || lpo < eff)) eff = lpo;
    *lp = eff;
    *hp = u[1];
    if (pc && pc->hp_hz > *hp) *hp = pc->hp_hz;
    *occ_db = g < 1.0f ? hl_lin_to_db(g) : 0.0f;
}

/* (the gain cap, 10^(HL_MAX_GAIN_DB / 20), is computed once: vm->gain_cap;
 * a powf per voice per evaluation was a good part of a 1,000-voice pass) */
static float gain_of(const hld_vm_t *vm, float base, float db) {
    float g = base * hl_db_to_lin(db);
    return g > vm->gain_cap ? vm->gain_cap : g;
}

static float pitch_of(float base, float cents) {
    float p = base * exp2f(cents / 1200.0f);
    return p < HL_MIN_PITCH ? HL_MIN_PITCH : p > HL_MAX_PITCH ? HL_MAX_PITCH : p;
}

int hld_vm_params_user_set(hld_vm_t *vm, uint64_t voice, const hl_voice_set_t *asked,
                           const float post_user[4], uint64_t now_ns) {
    hld_lvoice_t *v = hld_vm_get(vm, voice);
    hl_voice_set_t s = *asked;
    if (v && v->pv.bound) {
        if (s.mask & HL_MIX_SET_GAIN) s.gain = gain_of(vm, s.gain, v->pv.pc.gain_db);
        if (s.mask & HL_MIX_SET_PITCH) s.pitch = pitch_of(s.pitch, v->pv.pc.cents);
        if (s.mask & HL_MIX_SET_SENDS)
            for (int i = 0; i < HL_VOICE_SENDS; i++)
                s.send_gain[i] *= hl_db_to_lin(v->pv.pc.send_db[i]);
    }
    int rc = hld_vm_set(vm, voice, &s, now_ns);
    if (rc < 0) return rc; /* refused (a full ring: EBUSY): what the mixer has stays */
    if (post_user) memcpy(v->post_user, post_user, sizeof v->post_user);
    if (!v->pv.bound) return rc;
    if (s.mask & HL_MIX_SET_GAIN) v->pv.base_gain = asked->gain;
    if (s.mask & HL_MIX_SET_PITCH) v->pv.base_pitch = asked->pitch;
    if (s.mask & HL_MIX_SET_SENDS)
        memcpy(v->pv.base_send, asked->send_gain, sizeof v->pv.base_send);
    return rc;
}

/* What every voice of a cue hears when none of its parameters has an
 * emitter or voice value and it is no blend: evaluated once per cue. */
typedef struct {
    int valid;
    hld_pcontrib_t pc;
    float gain; /* 10^(pc.gain_db / 20) */
} shared_t;

static void shared_of(const hld_params_t *P, const hld_cue_t *cue, shared_t *sh) {
    sh->valid = 0;
    for (uint32_t i = 0; i < cue->nbinds; i++) {
        const hld_bind_t *b = &cue->binds[i];
        if (b->prop == HL_PROP_BLEND || (b->param < P->n && P->p[b->param]->scoped)) return;
    }
    hld_params_contrib(P, cue->binds, cue->nbinds, 0, 0, "", 0, 0, &sh->pc);
    sh->gain = hl_db_to_lin(sh->pc.gain_db);
    sh->valid = 1;
}

/* The SET fields a cue's bindings drive (a forced evaluation sends them
 * all: see hld_vm_params_applied). */
static uint32_t bound_mask(const hld_cue_t *cue) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < cue->nbinds; i++)
        switch (cue->binds[i].prop) {
        case HL_PROP_GAIN:
        case HL_PROP_BLEND: m |= HL_MIX_SET_GAIN; break;
        case HL_PROP_PITCH: m |= HL_MIX_SET_PITCH; break;
        case HL_PROP_LP:
        case HL_PROP_HP:
        case HL_PROP_OCCLUSION: m |= HL_MIX_SET_FILTER; break;
        case HL_PROP_SEND: m |= HL_MIX_SET_SENDS; break;
        default: break;
        }
    return m;
}

_Static_assert(offsetof(hld_pcontrib_t, cents) == sizeof(float) &&
                   sizeof(hld_pcontrib_t) % sizeof(float) == 0,
               "hld_pcontrib_t: gain_db, then the rest as one run of floats");

/* A cue whose gain or cutoffs the game's parameters move gets a
 * modulation slot: while its bindings are shared (shared_of), one
 * hl_mixer_mod_change per change moves every voice attached to it, each
 * exactly as its own SET of gain or filter would. What the slot can move:
 * the gain (HL_MOD_GAIN), the low-pass and high-pass cutoffs (HL_MOD_FILTER;
 * not with an occlusion binding, which moves the occlusion gain too). */
static uint32_t cue_mod_mask(const hld_cue_t *cue) {
    uint32_t w = 0, occ = 0;
    for (uint32_t i = 0; i < cue->nbinds; i++) {
        switch (cue->binds[i].prop) {
        case HL_PROP_BLEND: return 0;
        case HL_PROP_GAIN: w |= HL_MOD_GAIN; break;
        case HL_PROP_LP:
        case HL_PROP_HP: w |= HL_MOD_FILTER; break;
        case HL_PROP_OCCLUSION: occ = 1; break;
        default: break;
        }
    }
    return occ ? w & ~HL_MOD_FILTER : w;
}

/* The SET of filter a voice with no post stage of its own (post_user all
 * 0) gets from bindings pc: lp, hp (the occlusion gain stays at 0 dB). */
static void slot_cutoffs(const hld_vm_t *vm, const hld_pcontrib_t *pc, float *lp, float *hp) {
    static const float none[4];
    float occ_db;
    hld_vm_post_map((float)vm->cfg.rate, none, pc, lp, hp, &occ_db);
}

static int post_own(const hld_lvoice_t *v) {
    return v->post_user[0] != 0.0f || v->post_user[1] != 0.0f || v->post_user[2] != 0.0f ||
           v->post_user[3] != 0.0f;
}

/* 1 if bindings a and b are the same but for what a voice takes from the
 * slot (HL_MOD_*): gain_db, lp_hz and hp_hz. */
static int same_but(const hld_pcontrib_t *a, const hld_pcontrib_t *b, uint32_t what) {
    hld_pcontrib_t t = *b;
    if (what & HL_MOD_GAIN) t.gain_db = a->gain_db;
    if (what & HL_MOD_FILTER) {
        t.lp_hz = a->lp_hz;
        t.hp_hz = a->hp_hz;
    }
    return memcmp(&t, a, sizeof t) == 0;
}

/* Slots of cues without voices (released cues have none) go back. */
static void mod_reclaim(hld_vm_t *vm) {
    for (uint32_t c = 0; c < HLD_MAX_CUES; c++)
        if (vm->cue_mod[c] && vm->cue_head[c] == HLD_NIL) {
            hl_mixer_mod_free(vm->mx, vm->cue_mod[c]);
            vm->cue_mod[c] = 0;
        }
}

void vm_mod_attach(hld_vm_t *vm, hld_lvoice_t *v) {
    const hld_cue_t *cue = v->cue;
    const uint32_t w = cue && !v->pv.nlayers ? cue_mod_mask(cue) : 0;
    if (!w) return;
    uint32_t c = cue->index;
    if (!vm->cue_mod[c]) {
        uint32_t mod = 0, gen = 0;
        if (hl_mixer_mod_alloc(vm->mx, &mod, &gen) != 0) {
            mod_reclaim(vm);
            if (hl_mixer_mod_alloc(vm->mx, &mod, &gen) != 0) return; /* per voice, as before */
        }
        vm->cue_mod[c] = (uint16_t)mod;
        vm->cue_mod_gen[c] = gen;
        vm->cue_mod_db[c] = v->pv.pc.gain_db;
        vm->cue_mod_lp[c] = v->pv.pc.lp_hz;
        vm->cue_mod_hp[c] = v->pv.pc.hp_hz;
        vm_slot_t *ms = &vm->slot[mod];
        ms->seq = ++vm->slot_clock;
        /* its only voice (else some are off the slot: a walk sorts them) */
        ms->quiet = vm->cue_head[c] == HLD_NIL;
        ms->quiet_pc = v->pv.pc;
        ms->quiet_what = HL_MOD_GAIN | HL_MOD_FILTER;
    }
    /* a voice whose bindings already add what the slot's next change will
     * say (a value set, not evaluated yet) would take that change as a
     * ramp to its own level: that part stays off the slot (SETs of its
     * own); so does the filter of a voice with a post stage of its own */
    uint32_t what = 0;
    if ((w & HL_MOD_GAIN) && v->pv.pc.gain_db == vm->cue_mod_db[c]) what |= HL_MOD_GAIN;
    if ((w & HL_MOD_FILTER) && !post_own(v) && v->pv.pc.lp_hz == vm->cue_mod_lp[c] &&
        v->pv.pc.hp_hz == vm->cue_mod_hp[c])
        what |= HL_MOD_FILTER;
    vm_slot_t *ms = &vm->slot[vm->cue_mod[c]];
    if (!what) { /* a voice of the cue off the slot: the evaluations walk */
        ms->quiet = 0;
        return;
    }
    v->p.mod = vm->cue_mod[c];
    v->p.mod_gen = vm->cue_mod_gen[c];
    v->p.mod_base = v->pv.base_gain;
    v->p.mod_what = what;
    v->slot_seq = ms->seq; /* the changes sent after its play */
    if (ms->quiet && same_but(&v->pv.pc, &ms->quiet_pc, what))
        ms->quiet_what &= what;
    else
        ms->quiet = 0;
}

/* An evaluation moved the slot's voices with shared bindings sh: what each
 * voice's copy takes from it when next read (vm_slot_sync). */
static void slot_moved(hld_vm_t *vm, vm_slot_t *ms, const shared_t *sh) {
    ms->seq = ++vm->slot_clock;
    ms->factor = sh->gain;
    ms->db = sh->pc.gain_db;
    ms->lp = sh->pc.lp_hz;
    ms->hp = sh->pc.hp_hz;
    slot_cutoffs(vm, &sh->pc, &ms->lpc, &ms->hpc); /* once for every voice */
    vm->slot_stale = 1;
}

/* One voice: its bindings now, and the SET that follows when they changed
 * (or, forced, the fields in `force` whatever they were). A voice on its
 * cue's slot (slot: what it takes from it, never in a forced pass) takes
 * that from the slot's change: its copy has followed (vm_slot_sync). */
static int eval_voice(hld_vm_t *vm, hld_params_t *P, hld_lvoice_t *v, const shared_t *sh,
                      uint32_t slot, uint32_t ramp, uint32_t force, uint64_t now_ns) {
    const hld_cue_t *cue = v->cue;
    uint64_t h = vm_handle_of(vm, v);
    hld_pcontrib_t pc;
    if (sh->valid)
        pc = sh->pc;
    else
        hld_params_contrib(P, cue->binds, cue->nbinds, v->pv.leader ? v->pv.leader : h,
                           v->em ? (uint64_t)(uintptr_t)v->em : 0, v->em ? v->em->name : "",
                           v->pv.layer, v->pv.nlayers, &pc);
    const hld_pcontrib_t *o = &v->pv.pc;
    if (!force && memcmp(&pc, o, sizeof pc) == 0) return 0;
    hl_voice_set_t s;
    memset(&s, 0, sizeof s);
    s.ramp_frames = ramp;
    if (!(slot & HL_MOD_GAIN) && (pc.gain_db != o->gain_db || (force & HL_MIX_SET_GAIN))) {
        s.mask |= HL_MIX_SET_GAIN;
        if (sh->valid) {
            float g = v->pv.base_gain * sh->gain;
            s.gain = g > vm->gain_cap ? vm->gain_cap : g;
        } else {
            s.gain = gain_of(vm, v->pv.base_gain, pc.gain_db);
        }
    }
    if (pc.cents != o->cents || (force & HL_MIX_SET_PITCH)) {
        s.mask |= HL_MIX_SET_PITCH;
        s.pitch = pitch_of(v->pv.base_pitch, pc.cents);
    }
    if (((pc.lp_hz != o->lp_hz || pc.hp_hz != o->hp_hz) && !(slot & HL_MOD_FILTER)) ||
        pc.occ != o->occ || (force & HL_MIX_SET_FILTER)) {
        s.mask |= HL_MIX_SET_FILTER | HL_MIX_SET_FSTEP; /* every voice of the cue alike */
        hld_vm_post_map((float)vm->cfg.rate, v->post_user, &pc, &s.lp_hz, &s.hp_hz, &s.occ_db);
    }
    for (int i = 0; i < HL_VOICE_SENDS; i++)
        if (pc.send_db[i] != o->send_db[i]) s.mask |= HL_MIX_SET_SENDS;
    s.mask |= force & HL_MIX_SET_SENDS;
    if (s.mask & HL_MIX_SET_SENDS) {
        memcpy(s.send_bus, v->p.send_bus, sizeof s.send_bus);
        for (int i = 0; i < HL_MAX_SENDS; i++)
            s.send_gain[i] =
                v->pv.base_send[i] * (i < HL_VOICE_SENDS ? hl_db_to_lin(pc.send_db[i]) : 1.0f);
    }
    if (!s.mask) {
        v->pv.pc = pc; /* the slot moved it, or nothing did */
        return 0;
    }
    if (hld_vm_set(vm, h, &s, now_ns) != 0) return -1; /* command ring full: next pass */
    v->pv.pc = pc;
    return 1;
}

/* The cue's slot change for shared bindings sh, when what it covers moved:
 * one command (1), or nothing to send (1, vm->mod_sent 0); 0 when the
 * command ring is full (its voices take SETs of their own this pass). */
static int mod_send(hld_vm_t *vm, uint32_t c, const shared_t *sh, uint32_t ramp, uint64_t now_ns) {
    const uint32_t w = cue_mod_mask(vm->cues->cues[c]);
    hl_mod_change_t ch = {.ramp_frames = ramp};
    vm->mod_sent = 0;
    if ((w & HL_MOD_GAIN) && sh->pc.gain_db != vm->cue_mod_db[c]) {
        ch.mask |= HL_MOD_GAIN;
        ch.factor = sh->gain;
        ch.max_gain = vm->gain_cap;
    }
    if ((w & HL_MOD_FILTER) &&
        (sh->pc.lp_hz != vm->cue_mod_lp[c] || sh->pc.hp_hz != vm->cue_mod_hp[c])) {
        hld_pcontrib_t from = sh->pc;
        from.lp_hz = vm->cue_mod_lp[c];
        from.hp_hz = vm->cue_mod_hp[c];
        ch.mask |= HL_MOD_FILTER;
        slot_cutoffs(vm, &sh->pc, &ch.lp_hz, &ch.hp_hz);
        slot_cutoffs(vm, &from, &ch.lp_from, &ch.hp_from);
    }
    if (!ch.mask) return 1;
    if (hl_mixer_mod_change(vm->mx, vm->cue_mod[c], &ch, now_ns) != 0) return 0;
    vm->cue_mod_db[c] = sh->pc.gain_db;
    vm->cue_mod_lp[c] = sh->pc.lp_hz;
    vm->cue_mod_hp[c] = sh->pc.hp_hz;
    vm->mod_sent = 1;
    return 1;
}

uint32_t hld_vm_params_eval(hld_vm_t *vm, hld_params_t *P, uint64_t now_ns) {
    /* while a value seeks, the SETs join its steps into straight lines; a
     * jump gets the anti-click ramp only (the voices are back on the mixer's
     * steady path sooner) */
    uint32_t ramp = vm_ms_frames(vm, P->moving ? (float)HLD_PARAM_EVAL_MS : HLD_PARAM_JUMP_MS);
    uint32_t sets = 0;
    int retry = 0;
    P->dirty = 0;
    P->evals++;
    const hld_cues_t *cues = vm->cues;
    for (uint32_t c = 0; c < cues->ncues; c++) {
        if (vm->cue_mod[c] && vm->cue_head[c] == HLD_NIL) { /* no voices (or released) */
            hl_mixer_mod_free(vm->mx, vm->cue_mod[c]);
            vm->cue_mod[c] = 0;
        }
        if (!cues->cues[c]->nbinds) continue;
        shared_t sh;
        shared_of(P, cues->cues[c], &sh);
        uint32_t force = P->force ? bound_mask(cues->cues[c]) : 0;
        /* the cue's slot, once for all its voices on it (a full ring: they
         * take their own SETs this pass; a forced pass sends each voice its
         * own, which takes it off the slot) */
        int slot = sh.valid && vm->cue_mod[c] && !force;
        if (slot && !mod_send(vm, c, &sh, ramp, now_ns))
            slot = 0;
        else if (slot)
            P->sets += vm->mod_sent;
        vm_slot_t *ms = slot ? &vm->slot[vm->cue_mod[c]] : NULL;
        if (ms) {
            slot_moved(vm, ms, &sh);
            /* every voice on the slot, its other bindings unchanged: the
             * slot's change was all (their copies follow when read) */
            if (ms->quiet && same_but(&sh.pc, &ms->quiet_pc, ms->quiet_what)) continue;
        }
        uint32_t quiet = ms != NULL, quiet_what = HL_MOD_GAIN | HL_MOD_FILTER;
        for (uint32_t i = vm->cue_head[c]; i != HLD_NIL; i = vm->lv[i].cue_next) {
            hld_lvoice_t *v = &vm->lv[i];
            if (!v->pv.bound || (v->state != HLD_LV_ACTIVE && v->state != HLD_LV_OPENING)) continue;
            P->visits++;
            vm_slot_sync(vm, v);
            const uint32_t on = slot && vm_on_slot(vm, v) ? v->p.mod_what : 0;
            /* the slot moved what it covers: the others alone may need a SET */
            if (!on || !same_but(&v->pv.pc, &sh.pc, on)) {
                int r = eval_voice(vm, P, v, &sh, on, ramp, force, now_ns);
                if (r > 0) sets++;
                if (r < 0) retry = 1;
            }
            const uint32_t now_on = slot && vm_on_slot(vm, v) ? v->p.mod_what : 0;
            if (now_on && same_but(&v->pv.pc, &sh.pc, now_on))
                quiet_what &= now_on;
            else
                quiet = 0;
        }
        if (ms) {
            ms->quiet = quiet;
            ms->quiet_pc = sh.pc;
            ms->quiet_what = quiet_what;
        } else if (vm->cue_mod[c]) { /* their own SETs: the next one walks */
            vm->slot[vm->cue_mod[c]].quiet = 0;
        }
    }
    if (retry) P->dirty = 1;
    P->sets += sets;
    if (vm->ops.params_applied) vm->ops.params_applied(vm->ops.user); /* buses, snapshots */
    return sets;
}

int hld_vm_stop_layers(hld_vm_t *vm, uint64_t leader, uint32_t fade_frames, int reason,
                       uint64_t now_ns) {
    int n = 0;
    const hld_cues_t *cues = vm->cues;
    for (uint32_t c = 0; leader && c < cues->ncues; c++) {
        if (!cues->cues[c]->nbinds) continue;
        for (uint32_t i = vm->cue_head[c]; i != HLD_NIL;) {
            hld_lvoice_t *v = &vm->lv[i];
            i = v->cue_next; /* a stop unlinks it */
            if (v->pv.leader == leader && hld_vm_stop(vm, vm_handle_of(vm, v), fade_frames,
                                                      v->fade_curve, reason, now_ns) == 0)
                n++;
        }
    }
    return n;
}

static int pent_live(void *user, int kind, uint64_t key, const char *em_name) {
    hld_vm_t *vm = user;
    if (kind == HL_PSCOPE_VOICE) return hld_vm_get(vm, key) != NULL;
    for (uint32_t i = 0; i < vm->n_em; i++)
        if ((uint64_t)(uintptr_t)vm->em[i] == key) return strcmp(vm->em[i]->name, em_name) == 0;
    return 0;
}

void hld_vm_params_sweep(hld_vm_t *vm, hld_params_t *P) {
    hld_params_sweep(P, pent_live, vm);
}

static uint64_t grid_step(const hld_vm_t *vm) {
    uint64_t step = vm_ms_frames(vm, (float)HLD_PARAM_EVAL_MS);
    return step ? step : 1;
}

/* Evaluates the values as they are on frame f, the SETs (and the bus and
 * snapshot bindings, the params_applied hook) scheduled there, or sent at
 * once when the clock has passed it; forced: every bound property. */
static void eval_on(hld_vm_t *vm, hld_params_t *P, uint64_t f, int force, uint64_t now_ns) {
    hld_params_seek(P, f);
    if (!P->dirty && !force) return;
    uint64_t now_f = hl_mixer_frames(vm->mx), saved = hl_mixer_at_frame(vm->mx);
    hl_mixer_at(vm->mx, f > now_f ? f : 0);
    P->force = force;
    hld_vm_params_eval(vm, P, now_ns);
    P->force = 0;
    hl_mixer_at(vm->mx, saved);
}

int hld_vm_params_active(const hld_params_t *P, uint64_t frame) {
    return P->moving || P->last_grid > frame;
}

void hld_vm_params_applied(hld_vm_t *vm, hld_params_t *P, uint64_t f, int active, uint64_t now_ns) {
    uint64_t step = grid_step(vm);
    if (!active) { /* nothing seeks, no step past f went out: the change alone */
        eval_on(vm, P, f, 0, now_ns);
        /* a seek it starts steps from the first grid frame after f (a
         * request on frame T itself may come after the poll for T: a render
         * sends it in the period that starts there; one before T never does) */
        if (P->moving && P->next_eval <= f) P->next_eval = f / step * step + step;
        return;
    }
    /* A seek's grid runs a ranking lead ahead, so steps past f may have
     * gone out already (live: as the polls met them; in a render or replay
     * others). f is evaluated with every bound property (the same whether
     * or not they did), and so is the first grid step after it: sent again
     * now if it went out (the same frame again: what is sent now overrides
     * what went out there), else when the grid comes to it; the steps after
     * that one are sent again as usual, the properties that changed since
     * the step before (which includes every one a seek moves, so all that
     * went out there is overridden). The mixer thus gets the same SETs on
     * the same frames whether the steps went out before or after f. */
    eval_on(vm, P, f, 1, now_ns);
    P->force_next = 1;
    if (P->last_grid > f) {
        uint64_t last = P->last_grid, e = last - (last - f - 1) / step * step;
        for (; e <= last; e += step) {
            eval_on(vm, P, e, P->force_next, now_ns);
            P->force_next = 0;
        }
    }
}

void hld_vm_params_due(hld_vm_t *vm, hld_params_t *P, uint64_t now_ns) {
    /* A seek steps on a grid of engine frames, not of wall time: grid frame
     * T is evaluated at the first poll that finds the clock at or past T,
     * with every value as it is on T + the ranking lead, and its SETs are
     * scheduled on that frame. Scheduled values a ranking lead ahead are
     * applied in frame order with those steps, each evaluated on its own
     * frame. Each value is a function of frames only (hld_params_seek), so
     * a live session and its replay send the same SETs on the same frames
     * however late within the lead the polls came (a poll later than that
     * counts in param_late). */
    uint64_t now_f = hl_mixer_frames(vm->mx), step = grid_step(vm), lead = vm->rank_lead;
    for (;;) {
        /* a grid that stopped long ago does not catch up (a redefinition
         * seeks from its frame on) */
        if (P->moving && P->next_eval + lead <= P->seek_t0)
            P->next_eval = P->seek_t0 / step * step + step;
        uint64_t g = P->moving && P->next_eval <= now_f ? P->next_eval + lead : UINT64_MAX, at;
        if (!hld_params_due_peek(P, &at) || at > now_f + lead) at = UINT64_MAX;
        if (g == UINT64_MAX && at == UINT64_MAX) return;
        if (g <= at) { /* a grid step (before a value due on the same frame) */
            P->next_eval += step;
            if (g <= now_f && lead) P->late++;
            int force = P->force_next;
            P->force_next = 0;
            eval_on(vm, P, g, force, now_ns);
            P->last_grid = g;
            continue;
        }
        int active = hld_vm_params_active(P, at);
        (void)hld_params_due_one(P, at, &at); /* one request at a time, as live */
        if (at <= now_f && lead) P->late++;
        hld_vm_params_applied(vm, P, at, active, now_ns);
    }
}

void hld_vm_params_tick(hld_vm_t *vm, hld_params_t *P, uint64_t now_ns) {
    hld_vm_params_due(vm, P, now_ns);
    if (P->nent > HLD_MAX_PVALUES / 2 && now_ns - P->last_sweep_ns > 1000000000u) {
        P->last_sweep_ns = now_ns; /* values of voices and emitters gone */
        hld_vm_params_sweep(vm, P);
    }
    uint64_t now_f = hl_mixer_frames(vm->mx);
    if (!P->moving) { /* a binding or a definition changed: at once */
        if (now_f > P->frame) hld_params_seek(P, now_f);
        if (P->dirty) hld_vm_params_eval(vm, P, now_ns);
    }
}
