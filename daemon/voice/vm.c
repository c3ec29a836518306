/*
 * vm.c - the voice manager (see vm.h for the design): the pool of logical
 * voices, their lists per cue, category, emitter and priority, stop / set /
 * seek / pause, the mixer's events and the voices' positions on the engine
 * clock. Admission (limits, overflow policies, steals) is in vm_admit.c;
 * audibility and the ranking into real and virtual voices in vm_rank.c;
 * emitters in emitters.c.
 *
 * Every mixer call that can answer EBUSY (command ring full) is made before
 * the logical state changes, so a busy ring leaves the voice as it was.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hl_dsp.h"
#include "sounds.h"
#include "vm_internal.h"
#include "vm_music.h"

uint64_t vm_clock_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- small helpers --------------------------------------------------------- */

hld_lvoice_t *hld_vm_get(hld_vm_t *vm, uint64_t voice) {
    uint32_t idx = (uint32_t)voice, gen = (uint32_t)(voice >> 32);
    if (gen == 0 || idx >= vm->cap) return NULL;
    hld_lvoice_t *v = &vm->lv[idx];
    if (v->gen != gen || (v->state != HLD_LV_ACTIVE && v->state != HLD_LV_OPENING)) return NULL;
    vm_slot_sync(vm, v); /* what it is given is up to date */
    return v;
}

/* Any state but FREE (ENDED events of fading voices find them). */
hld_lvoice_t *vm_get_any(hld_vm_t *vm, uint64_t voice) {
    uint32_t idx = (uint32_t)voice, gen = (uint32_t)(voice >> 32);
    if (gen == 0 || idx >= vm->cap) return NULL;
    hld_lvoice_t *v = &vm->lv[idx];
    return v->gen == gen && v->state != HLD_LV_FREE ? v : NULL;
}

void vm_notify(hld_vm_t *vm, const hld_lvoice_t *v, uint16_t type, uint8_t reason,
               uint64_t time_ns) {
    if (vm->ops.notify)
        vm->ops.notify(vm->ops.user, v->owner, type, vm_handle_of(vm, v), reason, time_ns);
}

/* Intrusive doubly linked lists through (prev, next) fields of hld_lvoice_t. */
#define LIST_LINK(vm, head, idx, PREV, NEXT)                                                       \
    do {                                                                                           \
        hld_lvoice_t *v_ = &(vm)->lv[idx];                                                         \
        v_->PREV = HLD_NIL;                                                                        \
        v_->NEXT = (head);                                                                         \
        if ((head) != HLD_NIL) (vm)->lv[head].PREV = (idx);                                        \
        (head) = (idx);                                                                            \
    } while (0)
#define LIST_UNLINK(vm, head, idx, PREV, NEXT)                                                     \
    do {                                                                                           \
        hld_lvoice_t *v_ = &(vm)->lv[idx];                                                         \
        if (v_->PREV != HLD_NIL)                                                                   \
            (vm)->lv[v_->PREV].NEXT = v_->NEXT;                                                    \
        else                                                                                       \
            (head) = v_->NEXT;                                                                     \
        if (v_->NEXT != HLD_NIL) (vm)->lv[v_->NEXT].PREV = v_->PREV;                               \
        v_->PREV = v_->NEXT = HLD_NIL;                                                             \
    } while (0)

/* Counts a voice in its cue, category and emitter. */
/* Priority buckets: every counted voice sits in the bucket of its priority,
 * oldest at the head, so the steal of step 6 (lowest priority, oldest among
 * equals) looks at a few heads, not at every logical voice. */
static uint32_t prio_bucket(const hld_lvoice_t *v) {
    int32_t p = v->p.priority;
    p = p < -HL_MAX_PRIORITY ? -HL_MAX_PRIORITY : p > HL_MAX_PRIORITY ? HL_MAX_PRIORITY : p;
    return (uint32_t)(p + HL_MAX_PRIORITY);
}

static void prio_link(hld_vm_t *vm, uint32_t idx) {
    hld_lvoice_t *v = &vm->lv[idx];
    uint32_t b = prio_bucket(v);
    v->prio_prev = vm->prio_tail[b];
    v->prio_next = HLD_NIL;
    if (vm->prio_tail[b] != HLD_NIL)
        vm->lv[vm->prio_tail[b]].prio_next = idx;
    else
        vm->prio_head[b] = idx;
    vm->prio_tail[b] = idx;
    if (b < vm->prio_min) vm->prio_min = b;
}

static void prio_unlink(hld_vm_t *vm, uint32_t idx) {
    hld_lvoice_t *v = &vm->lv[idx];
    uint32_t b = prio_bucket(v);
    if (v->prio_prev != HLD_NIL)
        vm->lv[v->prio_prev].prio_next = v->prio_next;
    else
        vm->prio_head[b] = v->prio_next;
    if (v->prio_next != HLD_NIL)
        vm->lv[v->prio_next].prio_prev = v->prio_prev;
    else
        vm->prio_tail[b] = v->prio_prev;
    v->prio_prev = v->prio_next = HLD_NIL;
}

void vm_count_in(hld_vm_t *vm, uint32_t idx) {
    hld_lvoice_t *v = &vm->lv[idx];
    prio_link(vm, idx);
    if (v->cue) {
        LIST_LINK(vm, vm->cue_head[v->cue->index], idx, cue_prev, cue_next);
        v->cue->n.active++;
    }
    if (v->cat) {
        LIST_LINK(vm, vm->cat_head[v->cat->index], idx, cat_prev, cat_next);
        v->cat->n.active++;
    }
    if (v->em) {
        LIST_LINK(vm, v->em->first, idx, em_prev, em_next);
        v->em->count++;
    }
    vm->n_counted++;
}

void vm_count_out(hld_vm_t *vm, uint32_t idx) {
    hld_lvoice_t *v = &vm->lv[idx];
    prio_unlink(vm, idx);
    if (v->cue) {
        LIST_UNLINK(vm, vm->cue_head[v->cue->index], idx, cue_prev, cue_next);
        v->cue->n.active--;
    }
    if (v->cat) {
        LIST_UNLINK(vm, vm->cat_head[v->cat->index], idx, cat_prev, cat_next);
        v->cat->n.active--;
    }
    if (v->em) {
        LIST_UNLINK(vm, v->em->first, idx, em_prev, em_next);
        v->em->count--;
        v->em = NULL;
    }
    vm->n_counted--;
}

/* Frees a logical voice that is no longer counted: drops its sound. */
void vm_lv_free(hld_vm_t *vm, hld_lvoice_t *v) {
    if (v->state == HLD_LV_FADING && vm->n_fading) vm->n_fading--;
    if (vm->ops.charge) vm->ops.charge(vm->ops.user, v, -1);
    if (v->snd) {
        if (v->snd->playing) v->snd->playing--;
        if (vm->ops.sound_released) vm->ops.sound_released(vm->ops.user, v->snd);
        v->snd = NULL;
    }
    v->state = HLD_LV_FREE;
    v->real = v->opening = v->paused = 0;
    v->mix = v->vmix = 0;
    v->gen++;
    if (v->gen == 0) v->gen = 1;
    vm->free_stack[vm->n_free++] = (uint32_t)(v - vm->lv);
    while (vm->hi && vm->lv[vm->hi - 1].state == HLD_LV_FREE) /* amortised: one step a free */
        vm->hi--;
}

/* A mixer voice now reads snd: it holds a `mixing` reference until its ENDED. */
void vm_mix_ref(hld_vm_t *vm, uint64_t mix, struct hld_sound *snd) {
    uint32_t slot = (uint32_t)mix;
    if (!snd || slot >= vm->n_slots) return;
    vm->slot_snd[slot] = snd;
    snd->mixing++;
}

/* The mixer voice of `slot` ended: its reference goes. */
void vm_mix_unref(hld_vm_t *vm, uint32_t slot) {
    if (slot >= vm->n_slots || !vm->slot_snd[slot]) return;
    struct hld_sound *snd = vm->slot_snd[slot];
    vm->slot_snd[slot] = NULL;
    if (snd->mixing) snd->mixing--;
    if (vm->ops.sound_released) vm->ops.sound_released(vm->ops.user, snd);
}

uint32_t vm_ms_frames(const hld_vm_t *vm, float ms) {
    return hld_frames_u32(round((double)ms * vm->cfg.rate / 1000.0)); /* NaN, <= 0: 0 */
}

/* ---- create / destroy ------------------------------------------------------ */

hld_vm_t *hld_vm_create(const hld_vm_config_t *cfg, hl_mixer_t *mx, hld_cues_t *cues,
                        const hld_vm_ops_t *ops) {
    if (!cfg || cfg->logical == 0 || cfg->logical > HLD_MAX_LOGICAL) return NULL;
    hld_vm_t *vm = calloc(1, sizeof *vm);
    if (!vm) return NULL;
    vm->cfg = *cfg;
    vm->mx = mx;
    vm->cues = cues;
    if (ops) vm->ops = *ops;
    vm->cap = cfg->logical;
    vm->lv = calloc(vm->cap, sizeof *vm->lv);
    vm->free_stack = calloc(vm->cap, sizeof *vm->free_stack);
    vm->rank = calloc(vm->cap, sizeof *vm->rank);
    vm->weak = calloc(vm->cap, sizeof *vm->weak);
    vm->weak_imp = calloc(vm->cap, sizeof *vm->weak_imp);
    if (!vm->lv || !vm->free_stack || !vm->rank || !vm->weak || !vm->weak_imp) {
        hld_vm_destroy(vm);
        return NULL;
    }
    for (uint32_t i = 0; i < vm->cap; i++) {
        vm->lv[i].gen = 1;
        vm->free_stack[i] = vm->cap - 1 - i;
    }
    vm->n_free = vm->cap;
    for (uint32_t i = 0; i < HLD_MAX_CUES; i++)
        vm->cue_head[i] = HLD_NIL;
    for (uint32_t i = 0; i < HLD_MAX_CATEGORIES; i++)
        vm->cat_head[i] = HLD_NIL;
    for (uint32_t i = 0; i < HLD_PRIO_BUCKETS; i++)
        vm->prio_head[i] = vm->prio_tail[i] = HLD_NIL;
    vm->prio_min = HLD_PRIO_BUCKETS;
    vm->real_cap = vm->slot_cap = hl_mixer_slots(mx) / HL_SLOT_FACTOR;
    vm->cubic_cap = UINT32_MAX;
    vm->n_slots = hl_mixer_slots(mx);
    vm->slot_snd = calloc(vm->n_slots, sizeof *vm->slot_snd);
    if (!vm->slot_snd) {
        hld_vm_destroy(vm);
        return NULL;
    }
    vm->floor_lin = hl_db_to_lin(cfg->floor_db);
    vm->gain_cap = hl_db_to_lin(HL_MAX_GAIN_DB);
    vm->rank_lead = vm_ms_frames(vm, (float)HLD_VM_RANK_LEAD_MS);
    return vm;
}

void hld_vm_destroy(hld_vm_t *vm) {
    if (!vm) return;
    if (vm->lv)
        for (uint32_t i = 0; i < vm->hi; i++)
            if (vm->lv[i].state != HLD_LV_FREE && vm->lv[i].snd && vm->lv[i].snd->playing)
                vm->lv[i].snd->playing--;
    if (vm->slot_snd)
        for (uint32_t i = 0; i < vm->n_slots; i++)
            if (vm->slot_snd[i] && vm->slot_snd[i]->mixing) vm->slot_snd[i]->mixing--;
    for (uint32_t i = 0; i < vm->n_em; i++)
        free(vm->em[i]);
    free(vm->lv);
    free(vm->free_stack);
    free(vm->rank);
    free(vm->weak);
    free(vm->weak_imp);
    free(vm->slot_snd);
    free(vm);
}

/* ---- stop / set / seek --------------------------------------------------------- */

int hld_vm_stop(hld_vm_t *vm, uint64_t voice, uint32_t fade_frames, uint32_t curve, int reason,
                uint64_t now_ns) {
    hld_lvoice_t *v = hld_vm_get(vm, voice);
    if (!v) return HELIOD_ENOVOICE;
    uint32_t idx = (uint32_t)(v - vm->lv);
    if (v->real && v->mix) {
        uint32_t f = v->paused ? 0 : fade_frames;
        int rc = hl_mixer_stop_curve(vm->mx, v->mix, f, reason, curve, now_ns);
        if (rc == HELIOD_EBUSY) return rc;
        if (vm->n_real) vm->n_real--;
        v->real = 0;
        vm_count_out(vm, idx);
        v->end_reason = (uint8_t)reason;
        if (rc == 0 && fade_frames > 0 && !v->paused) {
            v->state = HLD_LV_FADING; /* keeps its slot until silent */
            vm->n_fading++;
            return 0;
        }
        /* fade 0 or paused: free now; the mixer's short tail is not ours */
        vm_notify(vm, v, HL_EVENT_ENDED, (uint8_t)reason, 0);
        vm_lv_free(vm, v);
        return 0;
    }
    if (v->opening && vm->n_real) vm->n_real--;
    v->opening = 0;
    if (v->state == HLD_LV_OPENING) vm->n_opening--;
    vm_count_out(vm, idx);
    vm_notify(vm, v, HL_EVENT_ENDED, (uint8_t)reason, 0);
    vm_lv_free(vm, v);
    return 0;
}

/* Reports v's beats and markers up to frame f (exclusive) by its model as
 * it stands: first, before a SET or seek re-anchors it there or its end
 * frees it (the voice manager's beat callback; none: nothing). */
static void flush_beats(hld_vm_t *vm, hld_lvoice_t *v, uint64_t f) {
    if (vm->ops.beat)
        vm_music_report(v, vm_handle_of(vm, v), vm->cfg.rate, f, vm->ops.beat, vm->ops.user);
}

int hld_vm_set(hld_vm_t *vm, uint64_t voice, const hl_voice_set_t *s, uint64_t now_ns) {
    hld_lvoice_t *v = hld_vm_get(vm, voice);
    if (!v) return HELIOD_ENOVOICE;
    if ((s->mask & HL_MIX_SET_LOOPS) && v->is_stream) return HELIOD_EINVAL; /* the decoder's */
    const uint32_t jump = HL_MIX_SET_SEEK | HL_MIX_SET_STREAM;
    if (v->real && v->mix && (s->mask & ~jump)) {
        /* the set as it is unless it carries a seek or switch (a copy
         * without them): bound parameters send one per voice per change */
        hl_voice_set_t ms;
        const hl_voice_set_t *mp = s;
        if (s->mask & jump) {
            ms = *s;
            ms.mask &= ~jump;
            mp = &ms;
        }
        int rc = hl_mixer_set(vm->mx, v->mix, mp, now_ns);
        if (rc < 0) return rc;
    }
    uint64_t f = vm_now_frame(vm);
    if (f > hl_mixer_frames(vm->mx) && f > v->sched_hold) v->sched_hold = f;
    if ((s->mask & (HL_MIX_SET_GAIN | HL_MIX_SET_FILTER)) && v->p.mod && v->p.mod <= HL_MIX_MODS)
        vm->slot[v->p.mod].quiet = 0; /* off its cue's slot for that: the next evaluation walks */
    hl_voice_set_fields(&v->p, s);
    if (s->mask & (HL_MIX_SET_PITCH | HL_MIX_SET_PAUSE | HL_MIX_SET_RESUME | HL_MIX_SET_LOOPS))
        flush_beats(vm, v, f); /* the beats up to f played by the old model */
    if (s->mask & HL_MIX_SET_LOOPS) vm_set_loops(v, f, s->loops);
    if (s->mask & HL_MIX_SET_PITCH) {
        vm_reanchor(v, f);
        v->p.pitch = s->pitch;
        v->rate = v->rate_base * s->pitch;
    }
    if ((s->mask & HL_MIX_SET_PAUSE) && !v->paused) {
        vm_reanchor(v, f);
        v->paused = 1;
        v->p.flags |= HL_MIX_PAUSED;
    } else if ((s->mask & HL_MIX_SET_RESUME) && v->paused) {
        v->paused = 0;
        v->anchor_frame = f;
        v->p.flags &= ~HL_MIX_PAUSED;
    }
    vm->dirty = 1;
    return 0;
}

int hld_vm_seek(hld_vm_t *vm, uint64_t voice, double pos, int real_done, uint64_t now_ns) {
    hld_lvoice_t *v = hld_vm_get(vm, voice);
    if (!v) return HELIOD_ENOVOICE;
    if (!(pos >= 0.0) || pos >= v->len) return HELIOD_EINVAL;
    if (v->real && v->mix && !real_done && !v->is_stream) {
        hl_voice_set_t s = {.mask = HL_MIX_SET_SEEK, .seek_frame = hld_frames_u32(pos)};
        int rc = hl_mixer_set(vm->mx, v->mix, &s, now_ns);
        if (rc < 0) return rc;
    }
    flush_beats(vm, v, vm_now_frame(vm)); /* beats up to the seek by the old model */
    vm_reanchor(v, vm_now_frame(vm));     /* spends loop passes up to now */
    v->anchor_pos = pos;
    v->anchor_frame = vm_now_frame(vm);
    if (v->is_stream && v->real) {
        v->start_pos = pos;
        v->loops_at_start = v->loops_left;
    }
    return 0;
}

/* Mixer commands hld_vm_stop / a pause or resume hld_vm_set of v takes: one
 * while it holds a mixer voice. */
static uint32_t cmds_of(const hld_lvoice_t *v) {
    return v->real && v->mix ? 1u : 0u;
}

/* Whether the command ring takes n more commands now. Only the main thread
 * produces, so room counted before a loop is still there during it. */
int vm_ring_has_room(hld_vm_t *vm, uint64_t n) {
    if (n <= hl_mixer_cmd_room(vm->mx)) return 1;
    vm->ring_need = n; /* the dispatcher may let the request wait for it */
    return 0;
}

uint64_t hld_vm_ring_need(const hld_vm_t *vm) {
    return vm->ring_need;
}

void hld_vm_ring_need_clear(hld_vm_t *vm) {
    vm->ring_need = 0;
}

int hld_vm_stop_matching(hld_vm_t *vm, hld_vm_match_fn fn, void *user, uint32_t fade_frames,
                         int reason, uint64_t now_ns) {
    uint64_t need = 0;
    for (uint32_t i = 0; i < vm->hi; i++) {
        hld_lvoice_t *v = &vm->lv[i];
        if (v->state != HLD_LV_ACTIVE && v->state != HLD_LV_OPENING) continue;
        vm_slot_sync(vm, v);
        if (fn && !fn(user, v)) continue;
        need += cmds_of(v);
    }
    if (!vm_ring_has_room(vm, need)) return HELIOD_EBUSY; /* nothing stopped */
    int count = 0;
    for (uint32_t i = 0; i < vm->hi; i++) {
        hld_lvoice_t *v = &vm->lv[i];
        if (v->state != HLD_LV_ACTIVE && v->state != HLD_LV_OPENING) continue;
        if (fn && !fn(user, v)) continue;
        int rc = hld_vm_stop(vm, vm_handle_of(vm, v), fade_frames, HL_FADE_LINEAR, reason, now_ns);
        if (rc == 0) count++;
    }
    return count;
}

int hld_vm_pause_matching(hld_vm_t *vm, hld_vm_match_fn fn, void *user, int pause,
                          uint64_t now_ns) {
    uint64_t need = 0;
    for (uint32_t i = 0; i < vm->hi; i++) {
        hld_lvoice_t *v = &vm->lv[i];
        if (v->state != HLD_LV_ACTIVE && v->state != HLD_LV_OPENING) continue;
        if (v->paused == (pause != 0)) continue;
        vm_slot_sync(vm, v);
        if (fn && !fn(user, v)) continue;
        need += cmds_of(v);
    }
    if (!vm_ring_has_room(vm, need)) return HELIOD_EBUSY; /* nothing paused or resumed */
    int count = 0;
    hl_voice_set_t s = {.mask = pause ? HL_MIX_SET_PAUSE : HL_MIX_SET_RESUME};
    for (uint32_t i = 0; i < vm->hi; i++) {
        hld_lvoice_t *v = &vm->lv[i];
        if (v->state != HLD_LV_ACTIVE && v->state != HLD_LV_OPENING) continue;
        if (v->paused == (pause != 0)) continue;
        if (fn && !fn(user, v)) continue;
        int rc = hld_vm_set(vm, vm_handle_of(vm, v), &s, now_ns);
        if (rc == 0) count++;
    }
    return count;
}

/* ---- mixer events -------------------------------------------------------------- */

int hld_vm_on_mix_event(hld_vm_t *vm, const hl_mix_event_t *ev) {
    if (ev->type == HL_MIX_EV_ENDED) vm_mix_unref(vm, (uint32_t)ev->voice);
    hld_lvoice_t *v = vm_get_any(vm, ev->tag);
    if (!v) return 0;
    if (ev->type == HL_MIX_EV_STARTED) {
        if (ev->voice != v->mix) return 1;
        /* the real start: anchor the arithmetic there */
        if (ev->frame > v->anchor_frame || !v->started_sent) v->anchor_frame = ev->frame;
        if (!v->started_sent) {
            v->started_sent = 1;
            v->start_frame = ev->frame;
            vm_notify(vm, v, HL_EVENT_STARTED, 0, ev->time_ns);
        }
        return 1;
    }
    if (ev->type != HL_MIX_EV_ENDED) return 1;
    if (ev->voice == v->vmix) { /* a virtualisation fade finished */
        v->vmix = 0;
        if (v->state == HLD_LV_ACTIVE && !v->real && !v->opening && !v->is_stream && !v->paused &&
            (double)ev->cursor < v->len) {
            vm_reanchor(v, ev->frame);
            v->anchor_pos = (double)ev->cursor; /* the mixer's cursor wins over arithmetic */
        }
        return 1;
    }
    if (ev->voice != v->mix) return 1;
    v->mix = 0;
    if (v->state == HLD_LV_FADING) {
        vm_notify(vm, v, HL_EVENT_ENDED, v->end_reason, 0);
        vm_lv_free(vm, v);
        return 1;
    }
    /* it ended by itself (reached its end, a stream ran out) or was cut */
    flush_beats(vm, v, ev->frame); /* its last beats and markers first */
    if (v->real && vm->n_real) vm->n_real--;
    v->real = 0;
    uint8_t reason = ev->reason == VM_END_VIRTUAL ? HL_END_FINISHED : (uint8_t)ev->reason;
    vm_count_out(vm, (uint32_t)(v - vm->lv));
    vm_notify(vm, v, HL_EVENT_ENDED, reason, 0);
    vm_lv_free(vm, v);
    return 1;
}

/* ---- views --------------------------------------------------------------------- */

void hld_vm_foreach(hld_vm_t *vm, int (*fn)(void *user, uint64_t voice, const hld_lvoice_t *lv),
                    void *user) {
    for (uint32_t i = 0; i < vm->hi; i++) {
        hld_lvoice_t *v = &vm->lv[i];
        if (v->state == HLD_LV_FREE) continue;
        vm_slot_sync(vm, v);
        if (fn(user, vm_handle_of(vm, v), v)) return;
    }
}

uint8_t hld_vm_state(const hld_lvoice_t *v) {
    if (v->state == HLD_LV_FADING) return HL_VOICE_STOPPING;
    if (v->real || v->opening || v->state == HLD_LV_OPENING)
        return v->paused ? HL_VOICE_PAUSED : HL_VOICE_PLAYING;
    return v->paused ? HL_VOICE_VPAUSED : HL_VOICE_VIRTUAL;
}

void hld_vm_stats(const hld_vm_t *vm, hld_vm_stats_t *out) {
    memset(out, 0, sizeof *out);
    out->logical = vm->cap;
    out->active = vm->n_counted;
    out->real = vm->n_real;
    out->virtual_now = vm->n_counted > vm->n_real ? vm->n_counted - vm->n_real : 0;
    out->fading = vm->n_fading;
    out->opening = vm->n_opening;
    out->emitters = vm->n_em;
    out->real_cap = vm->real_cap;
    out->governed = vm->n_governed;
    out->cubic_real = vm->n_cubic;
    out->lowq = vm->n_lowq;
    out->n = vm->n;
}

int hld_vm_busy(const hld_vm_t *vm) {
    return vm->n_counted > 0 || vm->n_fading > 0;
}

uint32_t hld_vm_set_real_limit(hld_vm_t *vm, uint32_t limit) {
    uint32_t cap = limit < vm->slot_cap ? limit : vm->slot_cap;
    if (cap < 1) cap = 1;
    if (cap != vm->real_cap) {
        vm->real_cap = cap;
        vm->dirty = 1; /* rank soon: over the new cap, the least important go virtual */
    }
    return cap;
}

void hld_vm_set_cubic_limit(hld_vm_t *vm, uint32_t limit) {
    if (limit != vm->cubic_cap) {
        vm->cubic_cap = limit;
        vm->dirty = 1;
    }
}

uint32_t hld_vm_cubic_count(const hld_vm_t *vm) {
    return vm->n_cubic;
}

uint32_t hld_vm_lowq_count(const hld_vm_t *vm) {
    return vm->n_lowq;
}

uint32_t hld_vm_real_count(const hld_vm_t *vm) {
    return vm->n_real;
}

uint32_t hld_vm_params_push_bound(const hld_vm_t *vm) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < vm->hi; i++) /* a voice of a cue with bindings: its SETs */
        n += vm->lv[i].real && vm->lv[i].pv.bound ? 2u : 0u;
    for (uint32_t c = 0; c < vm->cues->ncues && c < HLD_MAX_CUES; c++)
        n += vm->cue_mod[c] != 0; /* a cue's modulation slot: one command */
    return n;
}

uint32_t hld_vm_span(const hld_vm_t *vm) {
    return vm->hi;
}

/* ---- position (the model: vm_pos.c) ---- */

void hld_vm_beats(hld_vm_t *vm, uint64_t hi, hld_vm_beat_fn fn, void *user) {
    for (uint32_t i = 0; i < vm->hi; i++)
        vm_music_report(&vm->lv[i], vm_handle_of(vm, &vm->lv[i]), vm->cfg.rate, hi, fn, user);
}

int hld_vm_next_beat(hld_vm_t *vm, uint64_t voice, uint64_t after, int what, uint64_t *frame,
                     uint64_t *beat) {
    hld_lvoice_t *v = hld_vm_get(vm, voice);
    if (!v) return HELIOD_ENOVOICE;
    return vm_music_next(v, voice, vm->cfg.rate, after, what, frame, beat);
}

int hld_vm_pass_end(hld_vm_t *vm, uint64_t voice, uint64_t after, uint64_t *frame) {
    hld_lvoice_t *v = hld_vm_get(vm, voice);
    return v ? vm_pass_end(v, after, frame) : HELIOD_ENOVOICE;
}

double hld_vm_position(hld_vm_t *vm, const hld_lvoice_t *v) {
    int ended;
    double p = vm_pos_at(v, vm_now_frame(vm), &ended);
    return ended ? v->len : p;
}

void hld_vm_set_rank_lead(hld_vm_t *vm, uint32_t frames) {
    vm->rank_lead = frames;
}
