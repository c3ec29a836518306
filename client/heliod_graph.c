/*
 * heliod_graph.c - libheliod's mixer-graph calls: buses (create, remove,
 * parent, gain, mute, list), insert effects and ducking rules, and the
 * post-stage conversion the voice calls share (heliod_int.h).
 */
#include <stdio.h>
#include <string.h>

#include "heliod_conv.h"
#include "heliod_int.h"

/* ---- buses ------------------------------------------------------------------ */

static int bus_call(heliod_t *h, const hl_bus_t *m) {
    const char *why = NULL;
    if (hl_validate_bus(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_bus(h, HL_OP_BUS, m);
}

/* A BUS request for `name` (and `parent`, "master" meaning the master). */
static int bus_msg(heliod_t *h, hl_bus_t *m, const char *name, const char *parent) {
    memset(m, 0, sizeof *m);
    if (!name || !hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid bus name");
    snprintf(m->name, sizeof m->name, "%s", name);
    if (parent && parent[0] && strcmp(parent, "master") != 0) {
        if (!hl_name_valid(parent)) return hlc_set_error(h, HELIOD_ENAME, "invalid parent name");
        snprintf(m->parent, sizeof m->parent, "%s", parent);
    }
    return 0;
}

/* A BUS request of one kind (mask) for name (and parent); v is the gain
 * (HL_BUS_GAIN) or the mute flag (HL_BUS_MUTE). */
static int bus_req(heliod_t *h, uint32_t mask, const char *name, const char *parent, float v,
                   float ramp_ms) {
    hl_bus_t m;
    int rc = bus_msg(h, &m, name, parent);
    if (rc < 0) return rc;
    m.mask = mask;
    if (mask == HL_BUS_GAIN) m.gain_db = v;
    if (mask == HL_BUS_MUTE) m.mute = v != 0.0f;
    m.ramp_ms = ramp_ms;
    return bus_call(h, &m);
}

int heliod_bus_gain(heliod_t *h, const char *bus, float gain_db, float ramp_ms) {
    return bus_req(h, HL_BUS_GAIN, bus, NULL, gain_db, ramp_ms);
}

int heliod_bus_mute(heliod_t *h, const char *bus, int mute, float ramp_ms) {
    return bus_req(h, HL_BUS_MUTE, bus, NULL, mute ? 1.0f : 0.0f, ramp_ms);
}

int heliod_bus_create(heliod_t *h, const char *name, const char *parent) {
    return bus_req(h, HL_BUS_CREATE, name, parent, 0.0f, 0.0f);
}

int heliod_bus_remove(heliod_t *h, const char *name) {
    return bus_req(h, HL_BUS_REMOVE, name, NULL, 0.0f, 0.0f);
}

int heliod_bus_parent(heliod_t *h, const char *name, const char *parent) {
    return bus_req(h, HL_BUS_PARENT, name, parent, 0.0f, 0.0f);
}

int heliod_buses(heliod_t *h, heliod_bus_info_t *arr, size_t cap, size_t *count) {
    HLC_LIST(h, HL_OP_BUSES, bus_info, arr, cap, count);
}

int heliod_bus_send(heliod_t *h, const char *bus, const char *target, float db, float ramp_ms) {
    hl_bus_t m;
    int rc = bus_msg(h, &m, bus, NULL);
    if (rc < 0) return rc;
    if (!target || !hl_name_valid(target))
        return hlc_set_error(h, HELIOD_ENAME, "invalid send target");
    m.mask = HL_BUS_SEND;
    snprintf(m.send, sizeof m.send, "%s", target);
    m.send_db = db < -144.0f ? -144.0f : db;
    m.ramp_ms = ramp_ms;
    return bus_call(h, &m);
}

/* ---- reverb zones ------------------------------------------------------------ */

static int rzone_call(heliod_t *h, const hl_rzone_t *m) {
    const char *why = NULL;
    if (hl_validate_rzone(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_rzone(h, HL_OP_RZONE, m);
}

int heliod_reverb_zone_set(heliod_t *h, const heliod_reverb_zone_t *z) {
    if (!z) return hlc_set_error(h, HELIOD_EINVAL, "no zone");
    if (z->preset < 0 || z->preset > HL_REV_OUTDOOR)
        return hlc_set_error(h, HELIOD_EINVAL, "preset: unknown reverb preset");
    hl_rzone_t m;
    hlc_to_rzone(z, &m);
    m.action = HL_RZONE_SET;
    return rzone_call(h, &m);
}

int heliod_reverb_zone_remove(heliod_t *h, const char *name) {
    hl_rzone_t m = {.action = HL_RZONE_REMOVE};
    if (!name || !hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid zone name");
    snprintf(m.name, sizeof m.name, "%s", name);
    return rzone_call(h, &m);
}

int heliod_reverb_zones(heliod_t *h, heliod_reverb_zone_info_t *arr, size_t cap, size_t *count) {
    HLC_LIST(h, HL_OP_RZONES, rzone_info, arr, cap, count);
}

/* ---- snapshots ---------------------------------------------------------------- */

static int snapshot_call(heliod_t *h, hl_snapshot_t *m, const char *name) {
    if (!name || !hl_name_valid(name))
        return hlc_set_error(h, HELIOD_ENAME, "invalid snapshot name");
    snprintf(m->name, sizeof m->name, "%s", name);
    const char *why = NULL;
    if (hl_validate_snapshot(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_snapshot(h, HL_OP_SNAPSHOT, m);
}

int heliod_snapshot_define(heliod_t *h, const char *name, int priority, float fade_ms) {
    hl_snapshot_t m;
    hl_snapshot_init(&m);
    m.action = HL_SNAP_DEFINE;
    m.priority = priority;
    m.fade_ms = fade_ms;
    return snapshot_call(h, &m, name);
}

int heliod_snapshot_set(heliod_t *h, const char *name, const char *bus, int target,
                        unsigned fx_index, unsigned param, float value) {
    hl_snapshot_t m;
    hl_snapshot_init(&m);
    m.action = HL_SNAP_SET;
    if (!bus || !hl_name_valid(bus)) return hlc_set_error(h, HELIOD_ENAME, "invalid bus name");
    if (target < 0 || target > HL_SNAPT_FX || param > 255)
        return hlc_set_error(h, HELIOD_EINVAL, "target: unknown (gain, mute, fx)");
    snprintf(m.bus, sizeof m.bus, "%s", bus);
    m.target = (uint8_t)target;
    m.fx_index = fx_index;
    m.param = (uint8_t)param;
    m.value = value;
    return snapshot_call(h, &m, name);
}

int heliod_snapshot_start(heliod_t *h, const char *name, float fade_ms, float intensity) {
    hl_snapshot_t m;
    hl_snapshot_init(&m);
    m.action = HL_SNAP_START;
    m.fade_ms = fade_ms;
    m.intensity = intensity;
    return snapshot_call(h, &m, name);
}

int heliod_snapshot_stop(heliod_t *h, const char *name, float fade_ms) {
    hl_snapshot_t m;
    hl_snapshot_init(&m);
    m.action = HL_SNAP_STOP;
    m.fade_ms = fade_ms;
    return snapshot_call(h, &m, name);
}

int heliod_snapshot_remove(heliod_t *h, const char *name) {
    hl_snapshot_t m;
    hl_snapshot_init(&m);
    m.action = HL_SNAP_REMOVE;
    return snapshot_call(h, &m, name);
}

int heliod_snapshots(heliod_t *h, heliod_snapshot_info_t *arr, size_t cap, size_t *count) {
    hl_rbuf_t r;
    hl_list_head_t head;
    int rc = hlc_list_call(h, HL_OP_SNAPSHOTS, NULL, &r, &head);
    if (rc < 0) return rc;
    for (size_t i = 0; i < head.count && !r.err; i++) {
        hl_snapshot_info_t e;
        hl_get_snapshot_info(&r, &e);
        if (i < cap && !r.err) {
            heliod_snapshot_info_t *o = &arr[i];
            memset(o, 0, sizeof *o);
            snprintf(o->name, sizeof o->name, "%s", e.name);
            o->priority = e.priority;
            o->fade_ms = e.fade_ms;
            o->settings = e.settings;
            o->state = e.state;
            o->intensity = e.intensity;
            o->target = e.target;
            o->owner = e.owner;
        }
    }
    return hlc_list_result(h, &r, &head, cap, count);
}

/* ---- cones -------------------------------------------------------------------- */

int heliod_cone(heliod_t *h, int target, uint64_t voice, const char *name, const float dir[3],
                float inner_deg, float outer_deg, float outer_gain) {
    return heliod_cone_lp(h, target, voice, name, dir, inner_deg, outer_deg, outer_gain, 0.0f);
}

int heliod_cone_lp(heliod_t *h, int target, uint64_t voice, const char *name, const float dir[3],
                   float inner_deg, float outer_deg, float outer_gain, float outer_lp_hz) {
    hl_cone_t m;
    hl_cone_init(&m);
    if (target < HL_CONE_VOICE || target > HL_CONE_CUE || !dir)
        return hlc_set_error(h, HELIOD_EINVAL, "target: unknown (voice, emitter, cue)");
    if (target != HL_CONE_VOICE && (!name || !hl_name_valid(name)))
        return hlc_set_error(h, HELIOD_ENAME, "invalid emitter or cue name");
    m.target = (uint8_t)target;
    m.voice = voice;
    if (target != HL_CONE_VOICE) snprintf(m.name, sizeof m.name, "%s", name);
    memcpy(m.dir, dir, sizeof m.dir);
    m.inner_deg = inner_deg;
    m.outer_deg = outer_deg;
    m.outer_gain = outer_gain;
    m.outer_lp_hz = outer_lp_hz;
    const char *why = NULL;
    if (hl_validate_cone(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_cone(h, HL_OP_CONE, &m);
}

int heliod_attenuation(heliod_t *h, int target, uint64_t voice, const char *name, unsigned n,
                       const float *dist, const float *gain_db) {
    return heliod_distance_curve(h, target, voice, name, HELIOD_ATTEN_GAIN, n, dist, gain_db);
}

int heliod_distance_curve(heliod_t *h, int target, uint64_t voice, const char *name, int kind,
                          unsigned n, const float *dist, const float *value) {
    hl_atten_t m;
    hl_atten_init(&m);
    if (target < HL_CONE_VOICE || target > HL_CONE_CUE || n > HL_ATTEN_POINTS ||
        (n && (!dist || !value)))
        return hlc_set_error(h, HELIOD_EINVAL, "target voice, emitter or cue, at most 8 points");
    if (kind < HL_ATTEN_GAIN || kind > HL_ATTEN_SEND)
        return hlc_set_error(h, HELIOD_EINVAL, "kind: gain (0), low-pass (1) or send (2)");
    if (target != HL_CONE_VOICE && (!name || !hl_name_valid(name)))
        return hlc_set_error(h, HELIOD_ENAME, "invalid emitter or cue name");
    m.target = (uint8_t)target;
    m.voice = voice;
    m.kind = (uint8_t)kind;
    if (target != HL_CONE_VOICE) snprintf(m.name, sizeof m.name, "%s", name);
    m.npoints = (uint8_t)n;
    for (unsigned i = 0; i < n; i++) {
        m.dist[i] = dist[i];
        m.gain_db[i] = value[i];
    }
    const char *why = NULL;
    if (hl_validate_atten(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_atten(h, HL_OP_ATTEN, &m);
}

/* ---- effects ---------------------------------------------------------------- */

int heliod_fx_parse(heliod_t *h, const char *text, heliod_fx_t *fx, char *err, size_t cap) {
    char buf[512], *args[64], msg[HL_MAX_MSG + 1] = "";
    int n = 0;
    if (!text || !fx || strlen(text) >= sizeof buf) {
        snprintf(msg, sizeof msg, "effect: missing or longer than %zu bytes", sizeof buf - 1);
    } else {
        snprintf(buf, sizeof buf, "%s", text);
        for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t && n < 64;
             t = strtok_r(NULL, " \t", &save))
            args[n++] = t;
        int kind = n ? hl_fx_kind_from(args[0]) : -1;
        hl_fx_req_t m = {.kind = (uint8_t)(kind < 0 ? 0 : kind)};
        const char *why = NULL;
        if (kind < 0)
            snprintf(msg, sizeof msg, "effect %s: unknown kind (eq, comp, reverb)",
                     n ? args[0] : "");
        else if (hl_fx_parse_args(&m, n - 1, args + 1, msg, sizeof msg) == 0) {
            snprintf(m.bus, sizeof m.bus, "x"); /* any valid name: ranges only */
            if (hl_validate_fx(&m, &why) != 0)
                snprintf(msg, sizeof msg, "%s", why);
            else {
                memset(fx, 0, sizeof *fx);
                fx->kind = m.kind;
                fx->type = m.type;
                fx->mask = m.mask;
                memcpy(fx->p, m.p, sizeof fx->p);
                fx->ramp_ms = m.ramp_ms;
                return 0;
            }
        }
    }
    if (err && cap) snprintf(err, cap, "%s", msg);
    return h ? hlc_set_error(h, HELIOD_EINVAL, msg) : HELIOD_EINVAL;
}

static int fx_call(heliod_t *h, uint8_t action, const char *bus, uint32_t index,
                   const heliod_fx_t *fx, uint32_t *index_out) {
    hl_fx_req_t m;
    memset(&m, 0, sizeof m);
    if (!bus || !hl_name_valid(bus)) return hlc_set_error(h, HELIOD_ENAME, "invalid bus name");
    snprintf(m.bus, sizeof m.bus, "%s", bus);
    m.action = action;
    m.index = index;
    if (fx) {
        if (fx->kind < HELIOD_FX_EQ || fx->kind > HELIOD_FX_REVERB || fx->type < 0 ||
            fx->type > 255)
            return hlc_set_error(h, HELIOD_EINVAL, "kind or type out of range");
        m.kind = (uint8_t)fx->kind;
        m.type = (uint8_t)fx->type;
        m.mask = fx->mask;
        memcpy(m.p, fx->p, sizeof m.p);
        m.ramp_ms = fx->ramp_ms;
    }
    const char *why = NULL;
    if (hl_validate_fx(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    uint32_t id;
    int rc = hlc_req_fx_req(h, HL_OP_FX, 0, &m, &id);
    if (rc < 0) return rc;
    return hlc_count_call(h, id, HL_OP_FX, index_out);
}

int heliod_fx_add(heliod_t *h, const char *bus, uint32_t index, const heliod_fx_t *fx,
                  uint32_t *index_out) {
    if (!fx) return hlc_set_error(h, HELIOD_EINVAL, "no effect");
    return fx_call(h, HL_FX_ADD, bus, index, fx, index_out);
}

int heliod_fx_set(heliod_t *h, const char *bus, uint32_t index, const heliod_fx_t *fx) {
    if (!fx) return hlc_set_error(h, HELIOD_EINVAL, "no effect");
    return fx_call(h, HL_FX_SET, bus, index, fx, NULL);
}

int heliod_fx_remove(heliod_t *h, const char *bus, uint32_t index) {
    return fx_call(h, HL_FX_REMOVE, bus, index, NULL, NULL);
}

int heliod_fx_list(heliod_t *h, const char *bus, heliod_fx_info_t *arr, size_t cap, size_t *count) {
    hl_name_t n = {{0}};
    if (bus && bus[0]) {
        if (!hl_name_valid(bus)) return hlc_set_error(h, HELIOD_ENAME, "invalid bus name");
        snprintf(n.name, sizeof n.name, "%s", bus);
    }
    uint32_t id;
    int rc = hlc_req_name(h, HL_OP_FX_LIST, 0, &n, &id);
    if (rc < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_FX_LIST, &r)) < 0) return rc;
    hl_list_head_t head;
    hl_get_list_head(&r, &head);
    for (size_t i = 0; i < head.count && !r.err; i++) {
        hl_fx_info_t f;
        hl_get_fx_info(&r, &f);
        if (i < cap && !r.err) hlc_from_fx_info(&f, &arr[i]);
    }
    return hlc_list_result(h, &r, &head, cap, count);
}

/* ---- ducking ---------------------------------------------------------------- */

void heliod_duck_init(heliod_duck_t *d) {
    hl_duck_rule_t r;
    hl_duck_rule_init(&r); /* the schema's defaults */
    hlc_from_duck_rule(&r, d);
}

static int duck_call(heliod_t *h, const heliod_duck_t *d, int on) {
    hl_duck_rule_t m;
    if (!d) return hlc_set_error(h, HELIOD_EINVAL, "no rule");
    if (on) {
        hlc_to_duck_rule(d, &m);
    } else { /* a removal carries the default levels, whatever d holds */
        hl_duck_rule_init(&m);
        hlc_copy_name(m.bus, sizeof m.bus, d->bus, sizeof d->bus);
        hlc_copy_name(m.by, sizeof m.by, d->by, sizeof d->by);
    }
    m.on = on ? 1 : 0;
    const char *why = NULL;
    if (hl_validate_duck(&m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_duck_rule(h, HL_OP_DUCK, &m);
}

int heliod_duck(heliod_t *h, const heliod_duck_t *d) {
    return duck_call(h, d, 1);
}

int heliod_duck_remove(heliod_t *h, const char *bus, const char *by) {
    heliod_duck_t d;
    heliod_duck_init(&d);
    if (!bus || !by) return hlc_set_error(h, HELIOD_ENAME, "invalid bus name");
    snprintf(d.bus, sizeof d.bus, "%s", bus);
    snprintf(d.by, sizeof d.by, "%s", by);
    return duck_call(h, &d, 0);
}

int heliod_ducks(heliod_t *h, heliod_duck_info_t *arr, size_t cap, size_t *count) {
    HLC_LIST(h, HL_OP_DUCKS, duck_info, arr, cap, count);
}
