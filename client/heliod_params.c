/*
 * heliod_params.c - libheliod: game parameters (heliod_params.h): PARAM_DEF,
 * PARAM, BIND and PARAMS requests, checked with the protocol's validators
 * before anything is sent.
 */
#include <stdio.h>
#include <string.h>

#include "heliod.h"
#include "heliod_int.h"

static int name_ok(heliod_t *h, const char *name, const char *what) {
    if (name && hl_name_valid(name)) return 1;
    char msg[96];
    snprintf(msg, sizeof msg, "invalid %s name", what);
    hlc_set_error(h, HELIOD_ENAME, msg);
    return 0;
}

int heliod_param_define(heliod_t *h, const char *name, float min, float max, float def,
                        float seek) {
    if (!name_ok(h, name, "parameter")) return HELIOD_ENAME;
    hl_param_def_t m;
    hl_param_def_init(&m);
    snprintf(m.name, sizeof m.name, "%s", name);
    m.min = min;
    m.max = max;
    m.def = def;
    m.seek = seek;
    const char *why = NULL;
    if (hl_validate_param_def(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_PARAM_DEF, 0, &id);
    if (rc < 0) return rc;
    hl_put_param_def(&w, &m);
    if ((rc = hlc_req_end(h, &w)) < 0) return rc;
    return hlc_simple_call(h, id, HL_OP_PARAM_DEF);
}

static int param_msg(heliod_t *h, const char *name, int scope, const char *emitter,
                     heliod_voice_t voice, float value, hl_param_t *m) {
    if (!name_ok(h, name, "parameter")) return HELIOD_ENAME;
    if (scope < HELIOD_PSCOPE_GLOBAL || scope > HELIOD_PSCOPE_VOICE)
        return hlc_set_error(h, HELIOD_EINVAL, "scope: HELIOD_PSCOPE_GLOBAL, _EMITTER or _VOICE");
    hl_param_init(m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->scope = (uint8_t)scope;
    if (scope == HELIOD_PSCOPE_EMITTER) {
        if (!name_ok(h, emitter, "emitter")) return HELIOD_ENAME;
        snprintf(m->emitter, sizeof m->emitter, "%s", emitter);
    }
    if (scope == HELIOD_PSCOPE_VOICE) m->voice = voice;
    m->value = value;
    const char *why = NULL;
    if (hl_validate_param(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return 0;
}

int heliod_param_set(heliod_t *h, const char *name, int scope, const char *emitter,
                     heliod_voice_t voice, float value) {
    hl_param_t m;
    int rc = param_msg(h, name, scope, emitter, voice, value, &m);
    if (rc < 0) return rc;
    hl_wbuf_t w;
    uint32_t id;
    if ((rc = hlc_req_begin(h, &w, HL_OP_PARAM, 0, &id)) < 0) return rc;
    hl_put_param(&w, &m);
    if ((rc = hlc_req_end(h, &w)) < 0) return rc;
    return hlc_simple_call(h, id, HL_OP_PARAM);
}

int heliod_param_set_async(heliod_t *h, const char *name, int scope, const char *emitter,
                           heliod_voice_t voice, float value) {
    hl_param_t m;
    int rc = param_msg(h, name, scope, emitter, voice, value, &m);
    if (rc < 0) return rc;
    hl_wbuf_t w;
    uint32_t id;
    if ((rc = hlc_async_begin(h, &w, HL_OP_PARAM, NULL, NULL, &id)) < 0) return rc;
    hl_put_param(&w, &m);
    return hlc_async_commit(h, &w, id);
}

static int bind_call(heliod_t *h, const hl_bind_t *m) {
    const char *why = NULL;
    if (hl_validate_bind(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    hl_wbuf_t w;
    uint32_t id;
    int rc = hlc_req_begin(h, &w, HL_OP_BIND, 0, &id);
    if (rc < 0) return rc;
    hl_put_bind(&w, m);
    if ((rc = hlc_req_end(h, &w)) < 0) return rc;
    return hlc_simple_call(h, id, HL_OP_BIND);
}

static int bind_any(heliod_t *h, const char *cue, const char *param, int prop, int index, int fxp,
                    const heliod_curve_point_t *points, unsigned n) {
    if (!name_ok(h, cue,
                 prop == HELIOD_PROP_SNAPSHOT   ? "snapshot"
                 : prop >= HELIOD_PROP_BUS_GAIN ? "bus"
                                                : "cue") ||
        !name_ok(h, param, "parameter"))
        return HELIOD_ENAME;
    if (n > HELIOD_MAX_CURVE_POINTS)
        return hlc_set_error(h, HELIOD_EINVAL, "npoints: a curve has at most 16 points");
    if (n && !points) return hlc_set_error(h, HELIOD_EINVAL, "points: NULL");
    if (prop < 0 || prop > HELIOD_PROP_SNAPSHOT || index < 0 || index > 255 || fxp < 0 || fxp > 255)
        return hlc_set_error(h, HELIOD_EINVAL, "prop: unknown property");
    hl_bind_t m;
    hl_bind_init(&m);
    m.action = HL_BIND_ADD;
    snprintf(m.cue, sizeof m.cue, "%s", cue);
    snprintf(m.param, sizeof m.param, "%s", param);
    m.prop = (uint8_t)prop;
    m.index = (uint8_t)index;
    m.fxp = (uint8_t)fxp;
    m.npoints = (uint8_t)n;
    for (unsigned i = 0; i < n; i++) {
        m.x[i] = points[i].x;
        m.y[i] = points[i].y;
        if (i + 1 < n) m.shapes |= (uint32_t)(points[i].shape & 3u) << (2 * i);
    }
    return bind_call(h, &m);
}

int heliod_bind(heliod_t *h, const char *cue, const char *param, int prop, int index,
                const heliod_curve_point_t *points, unsigned n) {
    if (prop >= HELIOD_PROP_BUS_GAIN)
        return hlc_set_error(
            h, HELIOD_EINVAL,
            "prop: bus-gain, fx and snapshot bind a bus or a snapshot: heliod_bind_bus");
    return bind_any(h, cue, param, prop, index, 0, points, n);
}

int heliod_bind_bus(heliod_t *h, const char *bus, const char *param, int prop, int fx_index,
                    int fxp, const heliod_curve_point_t *points, unsigned n) {
    if (prop != HELIOD_PROP_BUS_GAIN && prop != HELIOD_PROP_FX && prop != HELIOD_PROP_SNAPSHOT)
        return hlc_set_error(h, HELIOD_EINVAL,
                             "prop: HELIOD_PROP_BUS_GAIN, HELIOD_PROP_FX or HELIOD_PROP_SNAPSHOT");
    return bind_any(h, bus, param, prop, fx_index, fxp, points, n);
}

int heliod_bind_clear(heliod_t *h, const char *cue) {
    if (!name_ok(h, cue, "cue")) return HELIOD_ENAME;
    hl_bind_t m;
    hl_bind_init(&m);
    m.action = HL_BIND_CLEAR;
    snprintf(m.cue, sizeof m.cue, "%s", cue);
    return bind_call(h, &m);
}

int heliod_params(heliod_t *h, heliod_param_info_t *arr, size_t cap, size_t *count) {
    hl_rbuf_t r;
    hl_list_head_t head;
    int rc = hlc_list_call(h, HL_OP_PARAMS, NULL, &r, &head);
    if (rc < 0) return rc;
    for (size_t i = 0; i < head.count && !r.err; i++) {
        hl_param_info_t e;
        hl_get_param_info(&r, &e);
        if (i >= cap || r.err) continue;
        heliod_param_info_t *o = &arr[i];
        memset(o, 0, sizeof *o);
        snprintf(o->name, sizeof o->name, "%s", e.def.name);
        o->min = e.def.min;
        o->max = e.def.max;
        o->def = e.def.def;
        o->seek = e.def.seek;
        o->value = e.value;
        o->target = e.target;
        o->owner = e.owner;
        o->scoped = e.scoped;
    }
    return hlc_list_result(h, &r, &head, cap, count);
}
