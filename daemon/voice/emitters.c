/*
 * emitters.c - named positions that voices follow (a moving object: a car,
 * a door, a monster). A voice played on an emitter takes its position and
 * velocity; moving the emitter moves every voice on it with one request;
 * destroying it fades them out. Emitters belong to a connection unless
 * detached. The voices themselves are the voice manager's (vm.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"

/* ---- emitters ------------------------------------------------------------------ */

hld_emitter_t *hld_vm_emitter_find(hld_vm_t *vm, const char *name) {
    for (uint32_t i = 0; i < vm->n_em; i++)
        if (strcmp(vm->em[i]->name, name) == 0) return vm->em[i];
    return NULL;
}

hld_emitter_t *hld_vm_emitter_find_in(hld_vm_t *vm, const char *name, hld_ns_rank_fn rank,
                                      const void *ctx) {
    hld_emitter_t *best = NULL;
    int best_rank = 0;
    for (uint32_t i = 0; i < vm->n_em; i++) {
        if (strcmp(vm->em[i]->name, name) != 0) continue;
        int r = rank(ctx, vm->em[i]->creator);
        if (r > best_rank) {
            best_rank = r;
            best = vm->em[i];
        }
    }
    return best;
}

int hld_vm_emitter_create(hld_vm_t *vm, const char *name, uint32_t owner, const float pos[3],
                          const float vel[3], hld_emitter_t **out) {
    /* a name repeats once per namespace: the caller resolved it in the
     * creator's (emitter_ops.c); here only the same owner's is a clash */
    for (uint32_t i = 0; i < vm->n_em; i++)
        if (vm->em[i]->owner == owner && strcmp(vm->em[i]->name, name) == 0) return HELIOD_EEXIST;
    if (vm->n_em >= HLD_MAX_EMITTERS) return HELIOD_ENOMEM;
    hld_emitter_t *e = calloc(1, sizeof *e);
    if (!e) return HELIOD_ENOMEM;
    snprintf(e->name, sizeof e->name, "%s", name);
    e->owner = owner;
    memcpy(e->pos, pos, sizeof e->pos);
    if (vel) memcpy(e->vel, vel, sizeof e->vel);
    e->first = HLD_NIL;
    e->index = vm->n_em;
    vm->em[vm->n_em++] = e;
    if (out) *out = e;
    return 0;
}

int hld_vm_emitter_set(hld_vm_t *vm, hld_emitter_t *em, uint32_t mask, const float pos[3],
                       const float vel[3], uint32_t ramp_frames, uint64_t now_ns) {
    hl_voice_set_t s = {.ramp_frames = ramp_frames};
    if (mask & HL_EM_POS) {
        s.mask |= HL_MIX_SET_POS;
        memcpy(s.pos, pos, sizeof s.pos);
    }
    if (mask & HL_EM_VEL) {
        s.mask |= HL_MIX_SET_VEL;
        memcpy(s.vel, vel, sizeof s.vel);
    }
    /* one command per real voice: all of them fit or nothing moves */
    uint64_t need = 0;
    for (uint32_t i = em->first; i != HLD_NIL; i = vm->lv[i].em_next)
        need += s.mask && vm->lv[i].real && vm->lv[i].mix;
    if (!vm_ring_has_room(vm, need)) return HELIOD_EBUSY;
    for (uint32_t i = em->first; i != HLD_NIL; i = vm->lv[i].em_next) {
        hld_lvoice_t *v = &vm->lv[i];
        if (s.mask && v->real && v->mix) (void)hl_mixer_set(vm->mx, v->mix, &s, now_ns);
        if (s.mask & HL_MIX_SET_POS) memcpy(v->p.pos, s.pos, sizeof v->p.pos);
        if (s.mask & HL_MIX_SET_VEL) memcpy(v->p.vel, s.vel, sizeof v->p.vel);
    }
    if (mask & HL_EM_POS) memcpy(em->pos, pos, sizeof em->pos);
    if (mask & HL_EM_VEL) memcpy(em->vel, vel, sizeof em->vel);
    vm->dirty = 1;
    return 0;
}

int hld_vm_emitter_cone(hld_vm_t *vm, hld_emitter_t *em, const float cone[7], uint64_t now_ns) {
    hl_voice_set_t s = {.mask = HL_MIX_SET_CONE,
                        .cone_dir = {cone[0], cone[1], cone[2]},
                        .cone_inner = cone[3],
                        .cone_outer = cone[4],
                        .cone_outer_gain = cone[5],
                        .cone_outer_lp = cone[6]};
    uint64_t need = 0;
    for (uint32_t i = em->first; i != HLD_NIL; i = vm->lv[i].em_next)
        need += vm->lv[i].real && vm->lv[i].mix;
    if (!vm_ring_has_room(vm, need)) return HELIOD_EBUSY;
    for (uint32_t i = em->first; i != HLD_NIL; i = vm->lv[i].em_next) {
        hld_lvoice_t *v = &vm->lv[i];
        if (v->real && v->mix) (void)hl_mixer_set(vm->mx, v->mix, &s, now_ns);
        memcpy(v->p.cone_dir, s.cone_dir, sizeof v->p.cone_dir);
        v->p.cone_inner = s.cone_inner;
        v->p.cone_outer = s.cone_outer;
        v->p.cone_outer_gain = s.cone_outer_gain;
        v->p.cone_outer_lp = s.cone_outer_lp;
    }
    memcpy(em->cone, cone, sizeof em->cone);
    vm->dirty = 1;
    return 0;
}

static void emitter_free(hld_vm_t *vm, hld_emitter_t *em) {
    uint32_t i = em->index;
    vm->em[i] = vm->em[--vm->n_em];
    vm->em[i]->index = i;
    free(em);
}

int hld_vm_emitter_destroy(hld_vm_t *vm, hld_emitter_t *em, int64_t fade_frames, uint64_t now_ns) {
    /* one command per real voice: all of them fit or nothing stops */
    uint64_t need = 0;
    for (uint32_t i = em->first; i != HLD_NIL; i = vm->lv[i].em_next)
        need += vm->lv[i].real && vm->lv[i].mix;
    if (!vm_ring_has_room(vm, need)) return HELIOD_EBUSY;
    int count = 0;
    while (em->first != HLD_NIL) {
        hld_lvoice_t *v = &vm->lv[em->first];
        uint32_t f = fade_frames >= 0 ? (uint32_t)fade_frames : v->fade_out_frames;
        int rc = hld_vm_stop(vm, vm_handle_of(vm, v), f, v->fade_curve, HL_END_EMITTER, now_ns);
        if (rc == HELIOD_EBUSY) return rc;
        count++;
    }
    emitter_free(vm, em);
    return count;
}

int hld_vm_emitters_drop(hld_vm_t *vm, int (*gone)(void *user, uint32_t owner), void *user,
                         uint64_t now_ns) {
    for (uint32_t i = 0; i < vm->n_em;) {
        hld_emitter_t *e = vm->em[i];
        if (e->owner != 0 && gone(user, e->owner)) {
            if (hld_vm_emitter_destroy(vm, e, -1, now_ns) == HELIOD_EBUSY) return HELIOD_EBUSY;
            continue; /* slot i now holds another emitter */
        }
        i++;
    }
    return 0;
}
