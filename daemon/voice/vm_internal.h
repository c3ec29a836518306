/*
 * vm_internal.h - what the voice manager's files share (vm.c: the pool,
 * stop/set and mixer events; vm_admit.c: admission and overflow policies;
 * vm_rank.c: audibility, real <-> virtual, the ranking; emitters.c:
 * emitters; positions are vm_pos.h's, beats vm_music.h's, which take a
 * voice and know nothing of the pool). Not for use outside them: the daemon
 * talks to vm.h.
 */
#ifndef HLD_VM_INTERNAL_H
#define HLD_VM_INTERNAL_H

#include <stdint.h>

#include "hl_mixer.h"
#include "vm.h"
#include "vm_pos.h"

struct hld_sound;

#define HLD_PRIO_BUCKETS (2 * HL_MAX_PRIORITY + 1) /* one per priority */

/* Mixer stop reason of a voice going virtual: never reported to clients. */
#define VM_END_VIRTUAL 100u

#define RANK_INCUMBENT 0x1u /* real (or opening) when ranked */
#define RANK_KILL      0x2u /* virt = kill and not paused: ends rather than go virtual */
typedef struct {
    float imp;
    uint32_t idx;
    uint64_t seq;
    uint32_t flags; /* RANK_*: what the passes after the selection need without the record */
} rank_t;

/* A cue's modulation slot as the control side's copies of its voices see
 * it (vm_params.c). An evaluation that moves the slot's voices (the cue's
 * bindings shared, its slot change sent) records what every voice on the
 * slot takes from it and bumps seq, without touching the voices: a voice's
 * copy (p.gain, p.lp_hz, p.hp_hz and pv.pc's gain_db, lp_hz, hp_hz, for
 * what it takes, p.mod_what) is brought up to it when next read
 * (vm_slot_sync), exactly as that evaluation would have set it. quiet:
 * every counted voice of the cue with bindings is on the slot, taking at
 * least quiet_what from it, and its bindings are quiet_pc but for what it
 * takes from the slot; an evaluation whose shared bindings are quiet_pc but
 * for quiet_what's fields then has nothing to do per voice. */
typedef struct {
    uint32_t seq;
    float factor, db, lp, hp; /* the gain factor (10^(db / 20)); the bindings' gain, cutoffs */
    float lpc, hpc;           /* the cutoffs those bindings map to (no post stage of its own) */
    hld_pcontrib_t quiet_pc;
    uint32_t quiet_what, quiet;
} vm_slot_t;

struct hld_vm {
    hld_vm_config_t cfg;
    hl_mixer_t *mx;
    hld_cues_t *cues;
    hld_vm_ops_t ops;
    hld_lvoice_t *lv;
    uint32_t cap;
    uint64_t ring_need; /* the commands the last refusal for ring room wanted (0: none) */
    uint32_t hi;        /* every slot at or above is free: the walks over the voices stop here */
    uint32_t *free_stack;
    uint32_t n_free;
    uint32_t real_cap;   /* real voices now: min(slot_cap, the governor's limit) */
    uint32_t slot_cap;   /* mixer voices */
    uint32_t n_governed; /* last ranking: voices real but for the governor's limit */
    uint32_t cubic_cap;  /* governor: real voices that may keep the cubic interpolator */
    uint32_t n_cubic;    /* last ranking: real voices asking for cubic (and resampling) */
    uint32_t n_lowq;     /* last ranking: of those, mixed linear for the governor */
    uint64_t seq;
    uint32_t n_counted, n_real, n_fading, n_opening;
    uint32_t cue_head[HLD_MAX_CUES];
    /* per cue: its modulation slot (hl_mixer_mod_alloc; 0: none), the slot's
     * generation and the gain (dB) its factor was last set to (vm_params.c) */
    uint16_t cue_mod[HLD_MAX_CUES];
    uint32_t cue_mod_gen[HLD_MAX_CUES];
    float cue_mod_db[HLD_MAX_CUES];
    /* ... and the cutoffs (bindings' lp_hz, hp_hz) its filter was last set to */
    float cue_mod_lp[HLD_MAX_CUES], cue_mod_hp[HLD_MAX_CUES];
    uint32_t mod_sent; /* the last mod_send sent a command (vm_params.c) */
    /* by slot number: what the control side's copies of the voices on it
     * follow (vm_params.c: vm_slot_sync) */
    vm_slot_t slot[HL_MIX_MODS + 1];
    uint32_t slot_clock; /* the last vm_slot_t.seq given out */
    uint32_t slot_stale; /* a slot moved since the last ranking brought every voice up to it */
    float gain_cap;      /* 10^(HL_MAX_GAIN_DB / 20) */
    uint32_t cat_head[HLD_MAX_CATEGORIES];
    uint32_t prio_head[HLD_PRIO_BUCKETS], prio_tail[HLD_PRIO_BUCKETS]; /* counted voices */
    uint32_t prio_min; /* no counted voice in a lower bucket (a hint: may point at an empty one) */
    hld_emitter_t *em[HLD_MAX_EMITTERS];
    uint32_t n_em;
    rank_t *rank;
    uint32_t *weak; /* real voices, weakest first, from the last ranking */
    uint32_t n_weak, weak_pos;
    float *weak_imp;
    uint64_t last_tick_ns;
    uint64_t last_rank_ns; /* how long the last ranking pass took */
    int dirty;
    uint32_t rank_lead;       /* frames from a grid ranking's frame to its effect */
    uint64_t next_rank_frame; /* the next grid frame hld_vm_tick ranks for */
    uint64_t lis_frame;       /* lis_set: the frame whose listener vm_snapshot takes */
    int lis_set;
    float floor_lin;
    struct hld_sound **slot_snd; /* per mixer slot: the sound its voice reads (`mixing` ref) */
    uint32_t n_slots;
    hld_vm_counters_t n;
    hl_listener_state_t lis;            /* copy taken per ranking / admission */
    float lis_pos[HL_MIX_LISTENERS][3]; /* every listener on (lis first), same copy */
    uint32_t n_lis;
    uint32_t lis_voices[HL_MIX_LISTENERS]; /* 3D voices per nearest listener, last ranking */
    float
        bus_gain[HL_MAX_BUSES]; /* likewise: how loud each bus is heard (hl_mixer_bus_heard_gain) */
};

static inline uint64_t vm_handle_of(const hld_vm_t *vm, const hld_lvoice_t *v) {
    return ((uint64_t)v->gen << 32) | (uint32_t)(v - vm->lv);
}

/* The engine frame what is decided now takes effect at: the clock, or the
 * later frame a scheduled request is for (hl_mixer_at), so a scheduled play
 * anchors its position arithmetic at its start and a virtual voice does not
 * advance before it. */
static inline uint64_t vm_now_frame(const hld_vm_t *vm) {
    return hl_mixer_effect_frame(vm->mx);
}

/* vm_params.c: attaches a voice just admitted to its cue's modulation slot
 * (taken on first need) when the cue's gain bindings may be shared. */
void vm_mod_attach(hld_vm_t *vm, hld_lvoice_t *v);
/* 1 if v is attached to its cue's modulation slot as it is now. */
static inline int vm_on_slot(const hld_vm_t *vm, const hld_lvoice_t *v) {
    const uint32_t c = v->cue->index;
    return v->p.mod && v->p.mod == vm->cue_mod[c] && v->p.mod_gen == vm->cue_mod_gen[c];
}
/* Brings the control side's copy of a voice on its cue's slot up to the
 * slot's last change (vm_slot_t): before anything reads or changes its gain,
 * cutoffs or bindings' contribution (hld_vm_get, hld_vm_foreach, the
 * ranking, a realisation, a victim's audibility). A few loads for a voice
 * already up to date or on no slot. For what it takes from the slot
 * (HL_MOD_*), the same arithmetic an evaluation's walk did; a voice not
 * counted (fading out) keeps the copy it had when stopped. */
static inline void vm_slot_sync_slow(const hld_vm_t *vm, hld_lvoice_t *v) {
    if (!v->pv.bound || !v->cue || (v->state != HLD_LV_ACTIVE && v->state != HLD_LV_OPENING) ||
        !vm_on_slot(vm, v))
        return;
    const vm_slot_t *ms = &vm->slot[v->p.mod];
    const uint32_t what = v->p.mod_what;
    if (what & HL_MOD_GAIN) {
        const float g = v->pv.base_gain * ms->factor;
        v->p.gain = g > vm->gain_cap ? vm->gain_cap : g;
        v->pv.pc.gain_db = ms->db;
    }
    if (what & HL_MOD_FILTER) {
        v->p.lp_hz = ms->lpc;
        v->p.hp_hz = ms->hpc;
        v->pv.pc.lp_hz = ms->lp;
        v->pv.pc.hp_hz = ms->hp;
    }
    v->slot_seq = ms->seq;
}
static inline void vm_slot_sync(const hld_vm_t *vm, hld_lvoice_t *v) {
    const uint32_t m = v->p.mod;
    if (m && m <= HL_MIX_MODS && v->slot_seq != vm->slot[m].seq) vm_slot_sync_slow(vm, v);
}
/* A walk that brings every voice up to its slot (the ranking) asks for the
 * lines that reads and writes VM_SLOT_AHEAD voices ahead: p.mod's, slot_seq's
 * (with p.mod_what and cue), pv's bindings and base gain. */
#define VM_SLOT_AHEAD 3u
static inline void vm_slot_prefetch(const hld_lvoice_t *w) {
    __builtin_prefetch(&w->p.mod, 1);
    __builtin_prefetch(&w->slot_seq, 1);
    __builtin_prefetch(&w->pv.pc, 1);
    __builtin_prefetch(&w->pv.base_gain, 1);
}

/* ---- vm.c: the pool ---- */
uint64_t vm_clock_ns(void); /* CLOCK_MONOTONIC, ns */
/* The voice of a handle in any state but FREE (ENDED finds fading ones). */
hld_lvoice_t *vm_get_any(hld_vm_t *vm, uint64_t voice);
void vm_notify(hld_vm_t *vm, const hld_lvoice_t *v, uint16_t type, uint8_t reason,
               uint64_t time_ns);
/* Links a voice into (out of) its cue's, category's and emitter's lists and counts. */
void vm_count_in(hld_vm_t *vm, uint32_t idx);
void vm_count_out(hld_vm_t *vm, uint32_t idx);
/* Frees a voice no longer counted: drops its sound, bumps its generation. */
void vm_lv_free(hld_vm_t *vm, hld_lvoice_t *v);
/* A mixer voice reads snd until its ENDED (the sound's `mixing` reference). */
void vm_mix_ref(hld_vm_t *vm, uint64_t mix, struct hld_sound *snd);
void vm_mix_unref(hld_vm_t *vm, uint32_t slot);
uint32_t vm_ms_frames(const hld_vm_t *vm, float ms);
/* 1 if the mixer's command ring takes n more commands now (a request that
 * needs n checks first, so it applies all or nothing). */
int vm_ring_has_room(hld_vm_t *vm, uint64_t n);
/* emitters.c: a voice started on em takes its position, velocity, cone and
 * distance curves (over its cue's), and is 3D. */
void vm_emitter_into(const hld_emitter_t *em, hl_voice_params_t *p);

/* ---- vm_rank.c: audibility, real <-> virtual, the ranking ---- */
float vm_distance_to_listener(const hld_vm_t *vm, const hld_lvoice_t *v);
/* gain x bus gain x distance attenuation; *beyond: 3D past max distance (not clamp). */
float vm_audibility(const hld_vm_t *vm, const hld_lvoice_t *v, int *beyond);
/* Copies the listener and bus gains audibility() reads. */
void vm_snapshot(hld_vm_t *vm);
/* Starts the mixer voice at the voice's position with a fade-in (a stream
 * voice asks for its stream first). 0 or a negative code: it stays virtual. */
int vm_realise(hld_vm_t *vm, hld_lvoice_t *v, uint32_t attack, uint64_t now_ns);
/* Fades the mixer voice out: the voice is virtual. 0 or EBUSY. */
int vm_virtualise(hld_vm_t *vm, hld_lvoice_t *v, uint8_t why, uint64_t now_ns);
/* 1 if v asked for the cubic interpolator and resamples (pitch or Doppler):
 * the voices the governor's quality step applies to. */
int vm_wants_cubic(const hld_lvoice_t *v);
/* flags with the interpolator the governor's quality step leaves v. */
uint32_t vm_interp_flags(const hld_lvoice_t *v, uint32_t flags);
/* Ends a voice that is not real (ENDED with reason) and frees it. */
void vm_end_virtual(hld_vm_t *vm, hld_lvoice_t *v, int reason);

#endif /* HLD_VM_INTERNAL_H */
