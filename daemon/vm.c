/*
 * vm.c - the voice manager (see vm.h for the design): the pool of logical
 * voices, their lists per cue, category and emitter, admission with
 * per-cue and per-category limits and overflow policies, stop / set / seek /
 * pause, streams being opened, and the mixer's events. Positions, audibility
 * and the ranking into real and virtual voices are in vm_rank.c, emitters in
 * emitters.c.
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
    vm->real_cap = hl_mixer_slots(mx) / HL_SLOT_FACTOR;
    vm->n_slots = hl_mixer_slots(mx);
    vm->slot_snd = calloc(vm->n_slots, sizeof *vm->slot_snd);
    if (!vm->slot_snd) {
        hld_vm_destroy(vm);
        return NULL;
    }
    vm->floor_lin = hl_db_to_lin(cfg->floor_db);
    return vm;
}

void hld_vm_destroy(hld_vm_t *vm) {
    if (!vm) return;
    if (vm->lv)
        for (uint32_t i = 0; i < vm->cap; i++)
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

/* ---- admission ------------------------------------------------------------- */

typedef enum { POL_CUE, POL_CAT } scope_t;

/* The victim an overflow policy picks among the counted voices of a list, or
 * HLD_NIL. */
static uint32_t pick_victim(hld_vm_t *vm, uint32_t head, int cat_list, int policy,
                            int32_t new_priority) {
    uint32_t best = HLD_NIL;
    float best_key = 0.0f;
    for (uint32_t i = head; i != HLD_NIL; i = cat_list ? vm->lv[i].cat_next : vm->lv[i].cue_next) {
        hld_lvoice_t *v = &vm->lv[i];
        float key; /* smaller = better victim */
        switch (policy) {
        case HL_OVERFLOW_STEAL_LOWEST:
            if (v->p.priority > new_priority) continue;
            key = (float)v->p.priority;
            break;
        case HL_OVERFLOW_STEAL_QUIETEST: {
            int beyond;
            key = vm_audibility(vm, v, &beyond);
            break;
        }
        case HL_OVERFLOW_STEAL_FARTHEST: key = -vm_distance_to_listener(vm, v); break;
        default: key = 0.0f; break; /* oldest */
        }
        if (best == HLD_NIL || key < best_key || (key == best_key && v->seq < vm->lv[best].seq)) {
            best = i;
            best_key = key;
        }
    }
    return best;
}

/* Ends a counted voice to make room. fade 0 (or paused, or virtual): its
 * logical slot is free at once; else it fades in its slot. 0 or EBUSY. */
static int evict(hld_vm_t *vm, uint32_t idx, uint32_t fade, uint32_t curve, int reason,
                 uint64_t now_ns) {
    hld_lvoice_t *v = &vm->lv[idx];
    return hld_vm_stop(vm, vm_handle_of(vm, v), fade, curve, reason, now_ns);
}

uint32_t vm_ms_frames(const hld_vm_t *vm, float ms) {
    return hld_frames_u32(round((double)ms * vm->cfg.rate / 1000.0)); /* NaN, <= 0: 0 */
}

/* Applies the overflow policy of a full scope. Returns 0 (room made),
 * or the refusal code. */
static int make_room(hld_vm_t *vm, const hld_vm_play_t *pl, int cat_scope, uint64_t now_ns,
                     uint64_t *evicted) {
    int policy;
    uint32_t head, fade;
    uint32_t curve;
    if (cat_scope) {
        hld_category_t *c = pl->cue->cat;
        policy = c->def.overflow;
        head = vm->cat_head[c->index];
        curve = c->def.fade_curve;
        fade = c->def.fade_out_ms >= 0 ? vm_ms_frames(vm, c->def.fade_out_ms) : HLD_NIL;
    } else {
        policy = pl->cue->def.overflow;
        head = vm->cue_head[pl->cue->index];
        curve = pl->cue->def.fade_curve;
        fade = HLD_NIL;
    }
    int refuse = cat_scope ? HELIOD_ECATLIMIT : HELIOD_ECUELIMIT;
    if (policy == HL_OVERFLOW_REFUSE) return refuse;
    uint32_t victim = pick_victim(vm, head, cat_scope, policy, pl->p.priority);
    if (victim == HLD_NIL) return refuse;
    hld_lvoice_t *v = &vm->lv[victim];
    uint32_t f = fade != HLD_NIL ? fade : v->fade_out_frames;
    if (policy == HL_OVERFLOW_STOP_OLDEST) f = 0;
    if (policy == HL_OVERFLOW_FADE_OLDEST && f > 0 && !v->paused && (v->real || v->opening) &&
        vm->n_free == 0)
        return HELIOD_ENOVOICES; /* the fade keeps its slot and the new voice needs another */
    /* a steal policy in a full pool: the new voice needs the victim's slot now
     * (a fade would keep it, and step 6 would then steal a second voice) */
    if (policy != HL_OVERFLOW_FADE_OLDEST && vm->n_free == 0) f = 0;
    *evicted = vm_handle_of(vm, v);
    hld_cue_t *vc = v->cue;
    hld_category_t *vcat = v->cat;
    int rc = evict(vm, victim, f, cat_scope ? curve : v->fade_curve, HL_END_EVICTED, now_ns);
    if (rc < 0) return rc;
    vm->n.evicted++;
    if (cat_scope) {
        if (vcat) vcat->n.evicted_cat++;
        if (vc) vc->n.evicted_cat++;
    } else {
        if (vc) vc->n.evicted_cue++;
        if (vcat) vcat->n.evicted_cue++;
    }
    return 0;
}

/* Strictly lower priority counted voice, oldest among the lowest. */
static uint32_t global_victim(hld_vm_t *vm, int32_t priority) {
    int32_t lim = priority + HL_MAX_PRIORITY; /* buckets strictly below the new priority */
    for (uint32_t b = vm->prio_min; (int32_t)b < lim && b < HLD_PRIO_BUCKETS; b++) {
        if (vm->prio_head[b] == HLD_NIL) {
            if (b == vm->prio_min) vm->prio_min = b + 1; /* lazily skip emptied buckets */
            continue;
        }
        for (uint32_t i = vm->prio_head[b]; i != HLD_NIL; i = vm->lv[i].prio_next)
            if (vm->lv[i].state == HLD_LV_ACTIVE) return i; /* oldest first */
    }
    return HLD_NIL;
}

static void refuse_count(hld_vm_t *vm, hld_cue_t *cue, int rc) {
    hl_cue_counters_t *a = cue ? &cue->n : NULL, *b = cue && cue->cat ? &cue->cat->n : NULL;
#define BUMP(field)                                                                                \
    do {                                                                                           \
        vm->n.field++;                                                                             \
        if (a) a->field++;                                                                         \
        if (b) b->field++;                                                                         \
    } while (0)
    switch (rc) {
    case HELIOD_EINTERVAL: BUMP(refused_interval); break;
    case HELIOD_EDISTANCE: BUMP(refused_distance); break;
    case HELIOD_ECUELIMIT: BUMP(refused_cue_limit); break;
    case HELIOD_ECATLIMIT: BUMP(refused_cat_limit); break;
    case HELIOD_ENOVOICES: BUMP(refused_no_voice); break;
    default: break;
    }
#undef BUMP
}

/* The weakest real voice from the last ranking that is still real, or NULL. */
static hld_lvoice_t *weakest_real(hld_vm_t *vm, float *imp) {
    while (vm->weak_pos < vm->n_weak) {
        uint32_t i = vm->weak[vm->weak_pos];
        hld_lvoice_t *v = &vm->lv[i];
        if (v->state == HLD_LV_ACTIVE && v->real && !v->opening) {
            *imp = vm->weak_imp[vm->weak_pos];
            return v;
        }
        vm->weak_pos++;
    }
    return NULL;
}

/* 1 if the list (cue or category) holds a voice with a mixer voice (or one
 * on its way): evicting it would free a real voice. */
static int list_has_real(const hld_vm_t *vm, uint32_t head, int cat_list) {
    for (uint32_t i = head; i != HLD_NIL; i = cat_list ? vm->lv[i].cat_next : vm->lv[i].cue_next)
        if (vm->lv[i].real || vm->lv[i].opening) return 1;
    return 0;
}

/* A limit's victim would be a real voice, or the limit refuses by itself
 * (policy refuse, no victim): admission goes on and decides after it. */
static int scope_may_free_real(hld_vm_t *vm, const hld_vm_play_t *pl, int cat_scope) {
    int policy = cat_scope ? pl->cue->cat->def.overflow : pl->cue->def.overflow;
    uint32_t head = cat_scope ? vm->cat_head[pl->cue->cat->index] : vm->cue_head[pl->cue->index];
    if (policy == HL_OVERFLOW_REFUSE) return 1;
    if (pick_victim(vm, head, cat_scope, policy, pl->p.priority) == HLD_NIL) return 1;
    return list_has_real(vm, head, cat_scope);
}

/* A virt = kill play (not paused) that cannot be real whatever its limits
 * evict: 1 when it is to be refused before they evict anything. Exact: the
 * evictions it would cause all end virtual voices (so the real voices and
 * their ranking stay as they are), and the new voice is below the floor, or
 * every real voice is taken by one it does not beat. */
static int kill_play_futile(hld_vm_t *vm, const hld_vm_play_t *pl) {
    if (pl->virt != HL_VIRT_KILL || (pl->p.flags & HL_MIX_PAUSED)) return 0;
    hld_cue_t *cue = pl->cue;
    int cue_full = cue && cue->def.max_instances && cue->n.active >= cue->def.max_instances;
    int cat_full = cue && cue->cat && cue->cat->def.max_instances &&
                   cue->cat->n.active >= cue->cat->def.max_instances;
    if (!cue_full && !cat_full && vm->n_free > 0) return 0; /* evicts nothing: decided after */
    if (cue_full && scope_may_free_real(vm, pl, 0)) return 0;
    if (cat_full && scope_may_free_real(vm, pl, 1)) return 0;
    if (vm->n_free == 0 && !cue_full && !cat_full) {
        uint32_t gv = global_victim(vm, pl->p.priority);
        if (gv == HLD_NIL || vm->lv[gv].real || vm->lv[gv].opening) return 0;
    }
    hld_lvoice_t t; /* the voice as admission would build it, for audibility */
    memset(&t, 0, sizeof t);
    t.p = pl->p;
    t.beyond = pl->beyond;
    if (pl->em) {
        memcpy(t.p.pos, pl->em->pos, sizeof t.p.pos);
        t.p.flags |= HL_MIX_3D;
    }
    int beyond;
    float aud = vm_audibility(vm, &t, &beyond);
    if (beyond || !(aud >= vm->floor_lin)) return 1;
    if (vm->n_real < vm->real_cap) return 0;
    float wimp = 0.0f;
    hld_lvoice_t *weak = weakest_real(vm, &wimp);
    float imp = aud * exp2f((float)pl->p.priority / 100.0f);
    return !weak || !(imp > wimp * HLD_VM_HYST);
}

int hld_vm_play(hld_vm_t *vm, const hld_vm_play_t *pl, uint64_t now_ns, uint64_t *voice,
                uint64_t *stolen) {
    *voice = 0;
    if (stolen) *stolen = 0;
    hld_cue_t *cue = pl->cue;
    int rc = 0;
    vm_snapshot(vm);
    /* 2: min-interval since the last successful play */
    if (cue && cue->def.min_interval_ms > 0 && cue->n.plays > 0 &&
        now_ns - cue->last_play_ns < hld_frames_u64((double)cue->def.min_interval_ms * 1e6))
        rc = HELIOD_EINTERVAL;
    /* 3: beyond max distance at start */
    if (!rc && ((pl->p.flags & HL_MIX_3D) || pl->em) && pl->beyond != HL_BEYOND_CLAMP) {
        const float *pos = pl->em ? pl->em->pos : pl->p.pos; /* where the voice will be */
        float dx = pos[0] - vm->lis.pos[0], dy = pos[1] - vm->lis.pos[1],
              dz = pos[2] - vm->lis.pos[2];
        if (sqrtf(dx * dx + dy * dy + dz * dz) >= pl->p.max_distance) rc = HELIOD_EDISTANCE;
    }
    /* a kill play that cannot be real is refused before its limits evict */
    if (!rc && kill_play_futile(vm, pl)) rc = HELIOD_ENOVOICES;
    uint64_t evicted = 0;
    /* 4: cue limit */
    if (!rc && cue && cue->def.max_instances && cue->n.active >= cue->def.max_instances)
        rc = make_room(vm, pl, 0, now_ns, &evicted);
    /* 5: category limit (room made above also freed a category place) */
    if (!rc && cue && cue->cat && cue->cat->def.max_instances &&
        cue->cat->n.active >= cue->cat->def.max_instances)
        rc = make_room(vm, pl, 1, now_ns, &evicted);
    /* 6: a free logical voice, else steal strictly lower priority */
    int stole = 0;
    if (!rc && vm->n_free == 0) {
        uint32_t victim = global_victim(vm, pl->p.priority);
        if (victim == HLD_NIL) {
            rc = HELIOD_ENOVOICES;
        } else {
            hld_lvoice_t *v = &vm->lv[victim];
            uint64_t h = vm_handle_of(vm, v);
            hld_cue_t *vc = v->cue;
            /* its logical slot is needed now: it fades in the mixer, retired */
            rc = hld_vm_stop(vm, h, 0, HL_FADE_LINEAR, HL_END_STOLEN, now_ns);
            if (rc == 0) {
                if (stolen) *stolen = h;
                stole = 1;
                vm->n.stolen++;
                if (vc) vc->n.stolen++;
                if (vc && vc->cat) vc->cat->n.stolen++;
            }
            if (vm->n_free == 0 && rc == 0) rc = HELIOD_ENOVOICES; /* still fading in its slot */
        }
    }
    if (rc < 0) {
        refuse_count(vm, cue, rc);
        return rc;
    }
    (void)evicted;

    uint32_t idx = vm->free_stack[--vm->n_free];
    hld_lvoice_t *v = &vm->lv[idx];
    uint32_t gen = v->gen;
    memset(v, 0, sizeof *v);
    v->gen = gen;
    v->state = pl->stream ? HLD_LV_OPENING : HLD_LV_ACTIVE;
    v->cue = cue;
    v->cat = cue ? cue->cat : NULL;
    v->snd = pl->snd;
    v->em = pl->em;
    v->owner = pl->owner;
    v->fade_out_frames = pl->fade_out_frames;
    v->fade_curve = pl->fade_curve;
    v->beyond = pl->beyond;
    v->virt = pl->virt;
    v->seq = ++vm->seq;
    v->p = pl->p;
    v->p.tag = vm_handle_of(vm, v);
    v->paused = (pl->p.flags & HL_MIX_PAUSED) != 0;
    v->rate = pl->rate;
    v->rate_base = pl->p.pitch > 0 ? pl->rate / pl->p.pitch : pl->rate;
    v->len = pl->len;
    v->ls = pl->ls;
    v->le = pl->le;
    v->loops_left = v->loops_initial = pl->loops;
    v->is_stream = pl->stream;
    v->anchor_pos = pl->p.start_frame;
    v->anchor_frame = vm_now_frame(vm);
    v->cue_prev = v->cue_next = v->cat_prev = v->cat_next = v->em_prev = v->em_next = HLD_NIL;
    v->prio_prev = v->prio_next = HLD_NIL;
    if (v->em) {
        memcpy(v->p.pos, v->em->pos, sizeof v->p.pos);
        memcpy(v->p.vel, v->em->vel, sizeof v->p.vel);
        v->p.flags |= HL_MIX_3D;
    }
    if (v->snd) v->snd->playing++;
    vm_count_in(vm, idx);
    if (v->state == HLD_LV_OPENING) vm->n_opening++;

    /* real now, or virtual? */
    int beyond;
    v->aud = vm_audibility(vm, v, &beyond);
    v->pw = exp2f((float)v->p.priority / 100.0f);
    v->imp = v->aud * v->pw;
    int eligible = !beyond && v->aud >= vm->floor_lin && !v->paused;
    uint8_t why = beyond                                 ? HL_VIRT_WHY_DISTANCE
                  : v->paused && v->aud >= vm->floor_lin ? HL_VIRT_WHY_PAUSED
                                                         : HL_VIRT_WHY_FLOOR;
    hld_lvoice_t *weak = NULL;
    if (eligible && vm->n_real >= vm->real_cap) {
        float wimp = 0.0f;
        weak = weakest_real(vm, &wimp);
        if (!weak || !(v->imp > wimp * HLD_VM_HYST)) {
            eligible = 0;
            why = HL_VIRT_WHY_RANK;
            if (!weak) vm->dirty = 1; /* no ranking yet: rank at the next poll */
        }
    }
    if (!eligible && v->virt == HL_VIRT_KILL && !v->paused) {
        vm_count_out(vm, idx);
        if (v->state == HLD_LV_OPENING) vm->n_opening--;
        vm_lv_free(vm, v);
        refuse_count(vm, cue, HELIOD_ENOVOICES);
        return HELIOD_ENOVOICES;
    }
    if (eligible && weak) { /* displaced: virtual, or ended when it is virt = kill */
        int wrc = weak->virt == HL_VIRT_KILL
                      ? hld_vm_stop(vm, vm_handle_of(vm, weak), weak->fade_out_frames,
                                    weak->fade_curve, HL_END_KILLED, now_ns)
                      : vm_virtualise(vm, weak, HL_VIRT_WHY_RANK, now_ns);
        if (wrc == 0) {
            vm->weak_pos++;
        } else { /* the ring is full: the budget holds, the new voice starts virtual */
            eligible = 0;
            why = HL_VIRT_WHY_RANK;
            vm->dirty = 1;
        }
    }
    if (v->state == HLD_LV_OPENING && !eligible) {
        v->state = HLD_LV_ACTIVE; /* virtual from the start: nothing to open yet */
        vm->n_opening--;
        v->why = why;
    } else if (v->state == HLD_LV_OPENING) {
        /* the caller opens the stream now; realised in hld_vm_stream_ready */
        v->want_real = 1;
        v->opening = 1;
        vm->n_real++;
    } else if (eligible) {
        rc = vm_realise(vm, v, pl->p.attack_frames, now_ns);
        if (rc == HELIOD_EBUSY && !evicted && !stole) {
            vm_count_out(vm, idx);
            vm_lv_free(vm, v);
            return HELIOD_EBUSY; /* nothing changed */
        }
        if (rc < 0) {
            vm->n.realise_failed++;
            v->why = HL_VIRT_WHY_RANK;
        }
    } else {
        v->why = why;
    }
    v->seq_started = 1;
    if (cue) {
        cue->last_play_ns = now_ns;
        cue->n.plays++;
        if (cue->cat) cue->cat->n.plays++;
    }
    vm->n.plays++;
    *voice = vm_handle_of(vm, v);
    if (!v->real && !v->opening && v->state == HLD_LV_ACTIVE)
        vm_notify(vm, v, HL_EVENT_VIRTUAL, v->why, 0);
    return 0;
}

int hld_vm_stream_ready(hld_vm_t *vm, uint64_t voice, hl_stream_t *s, uint64_t now_ns) {
    hld_lvoice_t *v = hld_vm_get(vm, voice);
    int first = v && v->state == HLD_LV_OPENING;
    if (!v || !v->opening) {
        if (vm->ops.release_stream) vm->ops.release_stream(vm->ops.user, s);
        if (first) { /* admitted virtual: it stays virtual until ranked real */
            v->state = HLD_LV_ACTIVE;
            vm->n_opening--;
            vm_notify(vm, v, HL_EVENT_VIRTUAL, v->why, 0);
            return 0;
        }
        return v ? 0 : HELIOD_ENOVOICE;
    }
    hl_voice_params_t p = v->p;
    p.stream = s;
    p.pcm = NULL;
    p.start_frame = 0;
    p.flags &= ~HL_MIX_LOOP; /* the decoder loops a stream */
    p.loop_start = p.loop_end = p.loop_count = p.loop_xfade = 0;
    if (!first) p.attack_frames = v->attack_next;
    if (v->paused) p.flags |= HL_MIX_PAUSED;
    uint64_t mix = 0, stolen = 0;
    int rc = hl_mixer_play(vm->mx, &p, now_ns, &mix, &stolen);
    v->opening = 0;
    if (rc < 0) {
        if (vm->ops.release_stream) vm->ops.release_stream(vm->ops.user, s);
        if (vm->n_real) vm->n_real--;
        if (first) {
            vm_count_out(vm, (uint32_t)(v - vm->lv));
            vm->n_opening--;
            vm_lv_free(vm, v);
            return rc;
        }
        vm->n.realise_failed++;
        return 0;
    }
    if (first) {
        v->state = HLD_LV_ACTIVE;
        vm->n_opening--;
    } else {
        vm->n.realised++;
        vm_notify(vm, v, HL_EVENT_REAL, 0, 0);
    }
    v->mix = mix;
    vm_mix_ref(vm, mix, v->snd);
    v->real = 1;
    v->start_pos = v->anchor_pos;
    v->loops_at_start = v->loops_left;
    v->anchor_frame = vm_now_frame(vm);
    return 0;
}

void hld_vm_stream_failed(hld_vm_t *vm, uint64_t voice) {
    hld_lvoice_t *v = hld_vm_get(vm, voice);
    if (!v) return;
    if (v->opening && vm->n_real) vm->n_real--;
    v->opening = 0;
    if (v->state == HLD_LV_OPENING) {
        vm_count_out(vm, (uint32_t)(v - vm->lv));
        vm->n_opening--;
        vm_lv_free(vm, v);
        return;
    }
    vm->n.realise_failed++;
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

int hld_vm_set(hld_vm_t *vm, uint64_t voice, const hl_voice_set_t *s, uint64_t now_ns) {
    hld_lvoice_t *v = hld_vm_get(vm, voice);
    if (!v) return HELIOD_ENOVOICE;
    hl_voice_set_t ms = *s;
    ms.mask &= ~(uint32_t)(HL_MIX_SET_SEEK | HL_MIX_SET_STREAM);
    if (v->real && v->mix && ms.mask) {
        int rc = hl_mixer_set(vm->mx, v->mix, &ms, now_ns);
        if (rc < 0) return rc;
    }
    uint64_t f = vm_now_frame(vm);
    if (s->mask & HL_MIX_SET_GAIN) v->p.gain = s->gain;
    if (s->mask & HL_MIX_SET_PAN) v->p.pan = s->pan;
    if (s->mask & HL_MIX_SET_POS) memcpy(v->p.pos, s->pos, sizeof v->p.pos);
    if (s->mask & HL_MIX_SET_VEL) memcpy(v->p.vel, s->vel, sizeof v->p.vel);
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
    vm_reanchor(v, vm_now_frame(vm)); /* spends loop passes up to now */
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
int vm_ring_has_room(const hld_vm_t *vm, uint64_t n) {
    return n <= hl_mixer_cmd_room(vm->mx);
}

int hld_vm_stop_matching(hld_vm_t *vm, hld_vm_match_fn fn, void *user, uint32_t fade_frames,
                         int reason, uint64_t now_ns) {
    uint64_t need = 0;
    for (uint32_t i = 0; i < vm->cap; i++) {
        const hld_lvoice_t *v = &vm->lv[i];
        if (v->state != HLD_LV_ACTIVE && v->state != HLD_LV_OPENING) continue;
        if (fn && !fn(user, v)) continue;
        need += cmds_of(v);
    }
    if (!vm_ring_has_room(vm, need)) return HELIOD_EBUSY; /* nothing stopped */
    int count = 0;
    for (uint32_t i = 0; i < vm->cap; i++) {
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
    for (uint32_t i = 0; i < vm->cap; i++) {
        const hld_lvoice_t *v = &vm->lv[i];
        if (v->state != HLD_LV_ACTIVE && v->state != HLD_LV_OPENING) continue;
        if (v->paused == (pause != 0)) continue;
        if (fn && !fn(user, v)) continue;
        need += cmds_of(v);
    }
    if (!vm_ring_has_room(vm, need)) return HELIOD_EBUSY; /* nothing paused or resumed */
    int count = 0;
    hl_voice_set_t s = {.mask = pause ? HL_MIX_SET_PAUSE : HL_MIX_SET_RESUME};
    for (uint32_t i = 0; i < vm->cap; i++) {
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
    for (uint32_t i = 0; i < vm->cap; i++) {
        hld_lvoice_t *v = &vm->lv[i];
        if (v->state == HLD_LV_FREE) continue;
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
    out->n = vm->n;
}

int hld_vm_busy(const hld_vm_t *vm) {
    return vm->n_counted > 0 || vm->n_fading > 0;
}
