/*
 * vm_admit.c - admission of a play (see vm.h): the cue's min-interval, the
 * distance at start, the cue's and the category's limits with their overflow
 * policies (the victim each policy picks), a free logical voice or a steal of
 * strictly lower priority, then real at once or virtual; and the first
 * realisation of a streamed play once its stream is primed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl_dsp.h"
#include "sounds.h"
#include "vm_internal.h"

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
            vm_slot_sync(vm, v);
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

uint64_t hld_vm_victim_of(hld_vm_t *vm, uint32_t creator, int32_t priority) {
    int32_t lim = priority + HL_MAX_PRIORITY; /* buckets strictly below the new priority */
    for (uint32_t b = vm->prio_min; (int32_t)b < lim && b < HLD_PRIO_BUCKETS; b++)
        for (uint32_t i = vm->prio_head[b]; i != HLD_NIL; i = vm->lv[i].prio_next)
            if (vm->lv[i].creator == creator && vm->lv[i].state != HLD_LV_FADING)
                return vm_handle_of(vm, &vm->lv[i]); /* oldest first */
    return 0;
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
        hld_lvoice_t probe = {.p = {.flags = HL_MIX_3D}};    /* the nearest listener's distance */
        memcpy(probe.p.pos, pos, sizeof probe.p.pos);
        if (vm_distance_to_listener(vm, &probe) >= pl->p.max_distance) rc = HELIOD_EDISTANCE;
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
    if (idx >= vm->hi) vm->hi = idx + 1;
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
    v->creator = pl->creator;
    v->born_ns = now_ns;
    v->fade_out_frames = pl->fade_out_frames;
    v->fade_curve = pl->fade_curve;
    v->beyond = pl->beyond;
    v->virt = pl->virt;
    v->seq = ++vm->seq;
    v->p = pl->p;
    memcpy(v->post_user, pl->post_user, sizeof v->post_user);
    v->pv = pl->pv;
    v->p.tag = vm_handle_of(vm, v);
    if (v->pv.bound) vm_mod_attach(vm, v);
    v->paused = (pl->p.flags & HL_MIX_PAUSED) != 0;
    v->rate = pl->rate;
    v->rate_base = pl->p.pitch > 0 ? pl->rate / pl->p.pitch : pl->rate;
    v->len = pl->len;
    v->ls = pl->ls;
    v->le = pl->le;
    v->loops_left = v->loops_initial = pl->loops;
    v->is_stream = pl->stream;
    v->pinned = (uint8_t)(pl->pinned != 0);
    v->anchor_pos = pl->p.start_frame;
    v->anchor_frame = vm_now_frame(vm);
    v->start_frame = v->anchor_frame;
    v->cue_prev = v->cue_next = v->cat_prev = v->cat_next = v->em_prev = v->em_next = HLD_NIL;
    v->prio_prev = v->prio_next = HLD_NIL;
    if (v->em) vm_emitter_into(v->em, &v->p);
    if (v->snd) v->snd->playing++;
    if (vm->ops.charge) vm->ops.charge(vm->ops.user, v, +1);
    vm_count_in(vm, idx);
    if (v->state == HLD_LV_OPENING) vm->n_opening++;

    /* real now, or virtual? */
    int beyond;
    v->aud = vm_audibility(vm, v, &beyond);
    v->pw = exp2f((float)v->p.priority / 100.0f);
    v->imp = v->aud * v->pw;
    int eligible = !beyond && v->aud >= vm->floor_lin && !v->paused;
    if (v->pinned) { /* a client-fed stream outranks every other voice */
        v->imp = HUGE_VALF;
        eligible = 1;
    }
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
    /* a stream opened before its scheduled start still starts there */
    uint64_t at_saved = hl_mixer_at_frame(vm->mx);
    if (v->anchor_frame > vm_now_frame(vm)) hl_mixer_at(vm->mx, v->anchor_frame);
    uint32_t tag = hl_mixer_owner(vm->mx, v->owner); /* cancelled if its client leaves first */
    int rc = hl_mixer_play(vm->mx, &p, now_ns, &mix, &stolen);
    hl_mixer_owner(vm->mx, tag);
    uint64_t start = vm_now_frame(vm);
    hl_mixer_at(vm->mx, at_saved);
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
    v->anchor_frame = start;
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
