/*
 * heliod_vm.c - libheliod's voice-management calls: pause (everyone's,
 * mine, a bus's or a category's voices), cue and category definitions, cue
 * sheets and their counters, emitters. Built on the request helpers of
 * heliod_int.h; the connection itself is the core's.
 */
#include <stdio.h>
#include <string.h>

#include "heliod.h"
#include "heliod_conv.h"
#include "heliod_int.h"
#include "hl_proto.h"

/* A whole PAUSE request (any scope) and its COUNT reply. */
static int pause_call(heliod_t *h, const hl_pause_t *m, uint32_t *count) {
    uint32_t id;
    int rc = hlc_req_pause(h, HL_OP_PAUSE, 0, m, &id);
    if (rc < 0) return rc;
    return hlc_count_call(h, id, HL_OP_PAUSE, count);
}

int heliod_pause_all(heliod_t *h, int pause, int everyone, uint32_t *count) {
    hl_pause_t m = {.pause = pause ? 1 : 0, .scope = everyone ? HL_PAUSE_EVERYONE : HL_PAUSE_MINE};
    return pause_call(h, &m, count);
}

int heliod_pause_group(heliod_t *h, int scope, const char *name, int pause, uint32_t *count) {
    if (scope != HELIOD_PAUSE_BUS && scope != HELIOD_PAUSE_CATEGORY)
        return hlc_set_error(h, HELIOD_EINVAL, "scope: HELIOD_PAUSE_BUS or HELIOD_PAUSE_CATEGORY");
    if (!name || !hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid group name");
    hl_pause_t m;
    memset(&m, 0, sizeof m);
    m.pause = pause ? 1 : 0;
    m.scope = (uint8_t)scope;
    snprintf(m.group, sizeof m.group, "%s", name);
    const char *why = NULL;
    if (hl_validate_pause(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return pause_call(h, &m, count);
}

/* ---- cues, categories, emitters ----------------------------------------- */

/* 1 if the public char array holds a NUL (so it can be read as a string). */
static int terminated(const char *s, size_t cap) {
    return memchr(s, '\0', cap) != NULL;
}

/* An int enum of the public API into a wire byte; -1 if it cannot be one. */
static int enum8(int v) {
    return v >= 0 && v <= 255 ? v : -1;
}

void heliod_cue_init(heliod_cue_t *c) {
    hl_cue_t d;
    hl_cue_init(&d); /* the schema's defaults */
    hlc_from_cue(&d, c);
}

static int cue_msg(heliod_t *h, const heliod_cue_t *c, hl_cue_t *m) {
    if (!c) return hlc_set_error(h, HELIOD_EINVAL, "no cue");
    if (!terminated(c->name, sizeof c->name) || !terminated(c->bus, sizeof c->bus) ||
        !terminated(c->category, sizeof c->category))
        return hlc_set_error(h, HELIOD_EINVAL, "cue: a name is not terminated");
    if (c->nsounds < 1 || c->nsounds > HELIOD_MAX_CUE_SOUNDS)
        return hlc_set_error(h, HELIOD_EINVAL, "sounds: a cue needs 1 to 16 sounds");
    for (uint32_t i = 0; i < c->nsounds; i++)
        if (!terminated(c->sounds[i], sizeof c->sounds[i]))
            return hlc_set_error(h, HELIOD_EINVAL, "sounds: a name is not terminated");
    int pick = enum8(c->pick), model = enum8(c->distance_model), curve = enum8(c->fade_curve),
        overflow = enum8(c->overflow), beyond = enum8(c->beyond), virt = enum8(c->virt);
    if (pick < 0 || model < 0 || curve < 0 || overflow < 0 || beyond < 0 || virt < 0)
        return hlc_set_error(h, HELIOD_EINVAL, "cue: an enum field is out of range");
    hlc_to_cue(c, m);
    const char *why = NULL;
    if (hl_validate_cue(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return 0;
}

int heliod_cue_define(heliod_t *h, const heliod_cue_t *c) {
    hl_cue_t m;
    int rc = cue_msg(h, c, &m);
    if (rc < 0) return rc;
    return hlc_call_cue(h, HL_OP_CUE, &m);
}

void heliod_category_init(heliod_category_t *c) {
    hl_category_t d;
    hl_category_init(&d); /* the schema's defaults */
    hlc_from_category(&d, c);
}

int heliod_category_define(heliod_t *h, const heliod_category_t *c) {
    if (!c || !terminated(c->name, sizeof c->name))
        return hlc_set_error(h, HELIOD_EINVAL, "category: name not terminated");
    int overflow = enum8(c->overflow), curve = enum8(c->fade_curve);
    if (overflow < 0 || curve < 0)
        return hlc_set_error(h, HELIOD_EINVAL, "category: an enum field is out of range");
    hl_category_t m;
    hlc_to_category(c, &m);
    const char *why = NULL;
    if (hl_validate_category(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_category(h, HL_OP_CATEGORY, &m);
}

int heliod_cues_load(heliod_t *h, const char *path, uint32_t *ncues, uint32_t *ncats) {
    if (!path || !*path || strlen(path) > HL_MAX_PATH)
        return hlc_set_error(h, HELIOD_EINVAL, "path empty or too long");
    hl_cues_load_t m;
    snprintf(m.path, sizeof m.path, "%s", path);
    uint32_t id;
    int rc = hlc_req_cues_load(h, HL_OP_CUES_LOAD, 0, &m, &id);
    if (rc < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_CUES_LOAD, &r)) < 0) return rc;
    hl_cues_load_reply_t lr;
    hl_get_cues_load_reply(&r, &lr);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (ncues) *ncues = lr.cues;
    if (ncats) *ncats = lr.categories;
    return 0;
}

int heliod_cues(heliod_t *h, heliod_cue_info_t *arr, size_t cap, size_t *count) {
    hl_rbuf_t r;
    hl_list_head_t head;
    int rc = hlc_list_call(h, HL_OP_CUES, NULL, &r, &head);
    if (rc < 0) return rc;
    for (size_t i = 0; i < head.count && !r.err; i++) {
        hl_cue_info_t e;
        hl_get_cue_info(&r, &e);
        if (i >= cap || r.err) continue;
        heliod_cue_info_t *o = &arr[i];
        memset(o, 0, sizeof *o);
        o->kind = e.kind;
        if (e.kind == HL_CUES_KIND_CUE)
            hlc_from_cue(&e.cue, &o->cue);
        else
            hlc_from_category(&e.cat, &o->category);
        hlc_from_cue_counters(&e.n, &o->counters);
    }
    return hlc_list_result(h, &r, &head, cap, count);
}

/* Builds and validates an EMITTER request. */
static int emitter_msg(heliod_t *h, uint8_t action, const char *name, uint32_t mask,
                       const float pos[3], const float vel[3], hl_emitter_t *m) {
    if (!name || !hl_name_valid(name))
        return hlc_set_error(h, HELIOD_ENAME, "invalid emitter name");
    if (((mask & HL_EM_POS) && !pos) || ((mask & HL_EM_VEL) && !vel))
        return hlc_set_error(h, HELIOD_EINVAL, "emitter: a vector in the mask is NULL");
    memset(m, 0, sizeof *m);
    m->action = action;
    snprintf(m->name, sizeof m->name, "%s", name);
    m->mask = mask;
    if (mask & HL_EM_POS) memcpy(m->pos, pos, sizeof m->pos);
    if (mask & HL_EM_VEL) memcpy(m->vel, vel, sizeof m->vel);
    const char *why = NULL;
    if (hl_validate_emitter(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return 0;
}

/* A blocking EMITTER request; *count gets a DESTROY's count. */
static int emitter_call(heliod_t *h, const hl_emitter_t *m, uint32_t *count) {
    uint32_t id;
    int rc = hlc_req_emitter(h, HL_OP_EMITTER, 0, m, &id);
    if (rc < 0) return rc;
    if (m->action != HL_EMITTER_DESTROY) return hlc_simple_call(h, id, HL_OP_EMITTER);
    return hlc_count_call(h, id, HL_OP_EMITTER, count);
}

int heliod_emitter_create(heliod_t *h, const char *name, const float pos[3], const float vel[3],
                          uint32_t flags) {
    if (flags & ~(uint32_t)HELIOD_EM_DETACHED)
        return hlc_set_error(h, HELIOD_EINVAL, "flags: only HELIOD_EM_DETACHED");
    if (!pos) return hlc_set_error(h, HELIOD_EINVAL, "pos: create needs a position");
    hl_emitter_t m;
    uint32_t mask = HL_EM_POS | (vel ? HL_EM_VEL : 0) | flags;
    int rc = emitter_msg(h, HL_EMITTER_CREATE, name, mask, pos, vel, &m);
    if (rc < 0) return rc;
    return emitter_call(h, &m, NULL);
}

/* The checked SET message of heliod_emitter_set(_async). */
static int emitter_set_msg(heliod_t *h, const char *name, uint32_t mask, const float pos[3],
                           const float vel[3], float ramp_ms, hl_emitter_t *m) {
    if (mask & ~(uint32_t)(HELIOD_EM_POS | HELIOD_EM_VEL))
        return hlc_set_error(h, HELIOD_EINVAL, "mask: HELIOD_EM_POS and/or HELIOD_EM_VEL");
    int rc = emitter_msg(h, HL_EMITTER_SET, name, mask, pos, vel, m);
    if (rc < 0) return rc;
    m->ramp_ms = ramp_ms;
    const char *why = NULL;
    if (hl_validate_emitter(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return 0;
}

int heliod_emitter_set(heliod_t *h, const char *name, uint32_t mask, const float pos[3],
                       const float vel[3], float ramp_ms) {
    hl_emitter_t m;
    int rc = emitter_set_msg(h, name, mask, pos, vel, ramp_ms, &m);
    if (rc < 0) return rc;
    return emitter_call(h, &m, NULL);
}

int heliod_emitter_destroy(heliod_t *h, const char *name, float fade_ms, uint32_t *count) {
    hl_emitter_t m;
    int rc = emitter_msg(h, HL_EMITTER_DESTROY, name, 0, NULL, NULL, &m);
    if (rc < 0) return rc;
    m.fade_ms = fade_ms;
    const char *why = NULL;
    if (hl_validate_emitter(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return emitter_call(h, &m, count);
}

int heliod_emitter_set_async(heliod_t *h, const char *name, uint32_t mask, const float pos[3],
                             const float vel[3], float ramp_ms) {
    hl_emitter_t m;
    int rc = emitter_set_msg(h, name, mask, pos, vel, ramp_ms, &m);
    if (rc < 0) return rc;
    return hlc_async_emitter(h, HL_OP_EMITTER, NULL, NULL, &m);
}
