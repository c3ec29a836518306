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

/* s on every voice of em (own: the voices whose own bit is set keep
 * theirs): one mixer command per real one, all of them fit or nothing is
 * sent (EBUSY); each one's params take it too. */
static int emitter_send(hld_vm_t *vm, hld_emitter_t *em, const hl_voice_set_t *s, uint8_t own,
                        uint64_t now_ns) {
    uint64_t need = 0;
    for (uint32_t i = em->first; i != HLD_NIL; i = vm->lv[i].em_next)
        need += vm->lv[i].real && vm->lv[i].mix && !(vm->lv[i].own_curves & own);
    if (!vm_ring_has_room(vm, need)) return HELIOD_EBUSY;
    for (uint32_t i = em->first; i != HLD_NIL; i = vm->lv[i].em_next) {
        hld_lvoice_t *v = &vm->lv[i];
        if (v->own_curves & own) continue;
        if (v->real && v->mix) (void)hl_mixer_set(vm->mx, v->mix, s, now_ns);
        hl_voice_set_fields(&v->p, s);
    }
    vm->dirty = 1;
    return 0;
}

static void cone_set(hl_voice_set_t *s, const float cone[7]) {
    s->mask |= HL_MIX_SET_CONE;
    memcpy(s->cone_dir, cone, sizeof s->cone_dir);
    s->cone_inner = cone[3];
    s->cone_outer = cone[4];
    s->cone_outer_gain = cone[5];
    s->cone_outer_lp = cone[6];
}

int hld_vm_emitter_cone(hld_vm_t *vm, hld_emitter_t *em, const float cone[7], uint64_t now_ns) {
    hl_voice_set_t s = {0};
    cone_set(&s, cone);
    int rc = emitter_send(vm, em, &s, 0, now_ns);
    if (rc == 0) memcpy(em->cone, cone, sizeof em->cone);
    return rc;
}

void hld_vm_curve_set(hl_voice_set_t *s, unsigned kind, const hl_dcurve_t *c) {
    if (kind == HL_ATTEN_LOWPASS) {
        s->mask |= HL_MIX_SET_DLP;
        s->dist_lp = *c;
    } else if (kind == HL_ATTEN_SEND) {
        s->mask |= HL_MIX_SET_DSEND;
        s->dist_send = *c;
    } else {
        s->mask |= HL_MIX_SET_CURVE;
        s->curve_n = c->n;
        memcpy(s->curve_d, c->d, sizeof s->curve_d);
        memcpy(s->curve_db, c->v, sizeof s->curve_db);
    }
}

int hld_vm_emitter_curve(hld_vm_t *vm, hld_emitter_t *em, unsigned kind, const hl_dcurve_t *c,
                         uint64_t now_ns) {
    if (kind > HL_ATTEN_SEND) return HELIOD_EINVAL;
    hl_voice_set_t s = {0};
    hld_vm_curve_set(&s, kind, c);
    int rc = emitter_send(vm, em, &s, (uint8_t)(1u << kind), now_ns);
    if (rc == 0) em->curve[kind] = *c;
    return rc;
}

void vm_emitter_into(const hld_emitter_t *em, hl_voice_params_t *p) {
    memcpy(p->pos, em->pos, sizeof p->pos);
    memcpy(p->vel, em->vel, sizeof p->vel);
    hl_voice_set_t s = {0}; /* its cone and curves win over its cue's */
    if (em->cone[0] != 0.0f || em->cone[1] != 0.0f || em->cone[2] != 0.0f) cone_set(&s, em->cone);
    for (unsigned k = 0; k <= HL_ATTEN_SEND; k++)
        if (em->curve[k].n) hld_vm_curve_set(&s, k, &em->curve[k]);
    hl_voice_set_fields(p, &s);
    p->flags |= HL_MIX_3D;
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
