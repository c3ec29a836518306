/*
 * validate.c - the semantic checks shared by the daemon and libheliod: each
 * hl_validate_MSG runs the range checks the schema generates (hl_check_MSG,
 * schema.c) and then the checks between fields that a field list cannot
 * say; and the insert effects' parameter tables, names and argument parser.
 * Every refusal is HELIOD_EINVAL with a static reason naming the field.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto_int.h"

/* Parses n decimal digits at s into *v: 0, or -1 on overflow. */
static int pack_num(const char *s, size_t n, uint64_t *v) {
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10) return -1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

int hl_pack_split(const char *spec, char *path, size_t cap, uint64_t *off, uint64_t *len) {
    *off = *len = 0;
    size_t n = strlen(spec);
    const char *at = strrchr(spec, '@');
    int range = 0;
    if (at && at > spec && at[1]) {
        const char *p = at + 1, *plus = NULL;
        for (; *p; p++) {
            if (*p == '+' && !plus && p > at + 1 && p[1])
                plus = p;
            else if (*p < '0' || *p > '9')
                break;
        }
        if (!*p) { /* the tail is @DIGITS or @DIGITS+DIGITS */
            range = 1;
            const char *oe = plus ? plus : p;
            if (pack_num(at + 1, (size_t)(oe - at - 1), off) != 0) return -1;
            if (plus && pack_num(plus + 1, strlen(plus + 1), len) != 0) return -1;
            if (plus && (*len == 0 || *off + *len < *off)) return -1;
            n = (size_t)(at - spec);
        }
    }
    if (n + 1 > cap) return -1;
    memcpy(path, spec, n);
    path[n] = '\0';
    return range;
}

int hl_name_valid(const char *s) {
    if (!s) return 0;
    size_t n = 0;
    for (; s[n]; n++) {
        char c = s[n];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '-';
        if (!ok || n >= HL_MAX_NAME) return 0;
    }
    return n > 0;
}

int hlp_invalid(const char **why, const char *reason) {
    if (why) *why = reason;
    return HELIOD_EINVAL;
}
#define invalid hlp_invalid

int hlp_vec3_ok(const float v[3]) {
    return HL_IN_RANGE(v[0], HL_R_COORD) && HL_IN_RANGE(v[1], HL_R_COORD) &&
           HL_IN_RANGE(v[2], HL_R_COORD);
}

int hl_fade_valid(float ms) {
    return ms == -1.0f || HL_IN_RANGE(ms, HL_R_FADE_MS);
}

int hl_gain_valid(float db) {
    return isfinite(db) && db <= HL_MAX_GAIN_DB;
}

static int in_range(float v, float lo, float hi) {
    return isfinite(v) && v >= lo && v <= hi;
}

/* Distances: min > 0, max > min, both within HL_R_COORD; rolloff finite >= 0. */
static int distance_ok(float min, float max, float rolloff, const char *max_why, const char **why) {
    if (!isfinite(min) || !(min > 0.0f) || min > HL_MAX_COORD)
        return invalid(why, "min_distance: must be > 0");
    if (!isfinite(max) || !(max > min) || max > HL_MAX_COORD) return invalid(why, max_why);
    if (!isfinite(rolloff) || !(rolloff >= 0.0f))
        return invalid(why, "rolloff: must be finite and >= 0");
    return 0;
}

int hl_validate_play(const hl_play_t *m, const char **why) {
    int rc = hl_check_play(m, why);
    if (rc) return rc;
    rc = distance_ok(m->min_distance, m->max_distance, m->rolloff,
                     "max_distance: must be > min_distance", why);
    if (rc) return rc;
    if ((m->loop_start || m->loop_end) && m->loop_end <= m->loop_start)
        return invalid(why, "loop_end: must be > loop_start (0/0 = the whole sound)");
    if (m->loop_count && !(m->flags & HL_PLAY_LOOP))
        return invalid(why, "loop_count: needs the loop flag");
    return 0;
}

/* The post stage's fields named by set_mask (HL_SET_LP .. HL_SET_SENDS). */
static int vpost_filter_ok(const hl_vpost_t *m, uint32_t set_mask, const char **why) {
    if ((set_mask & HL_SET_LP) && !HL_IN_RANGE(m->lp_hz, HL_R_LP_HZ))
        return invalid(why, HL_RANGE_MSG("lp_hz", HL_R_LP_HZ) " (0 = off)");
    if ((set_mask & HL_SET_HP) && !HL_IN_RANGE(m->hp_hz, HL_R_HP_HZ))
        return invalid(why, HL_RANGE_MSG("hp_hz", HL_R_HP_HZ) " (0 = off)");
    if ((set_mask & HL_SET_OCCLUSION) && !HL_IN_RANGE(m->occlusion, HL_R_UNIT))
        return invalid(why, HL_RANGE_MSG("occlusion", HL_R_UNIT));
    if ((set_mask & HL_SET_OBSTRUCTION) && !HL_IN_RANGE(m->obstruction, HL_R_UNIT))
        return invalid(why, HL_RANGE_MSG("obstruction", HL_R_UNIT));
    if (set_mask & HL_SET_SENDS) {
        for (int i = 0; i < HL_VOICE_SENDS; i++) {
            if (m->send[i][0] && !hl_name_valid(m->send[i]))
                return invalid(why, "send: invalid bus name");
            if (!HL_IN_RANGE(m->send_db[i], HL_R_SEND_DB))
                return invalid(why, HL_RANGE_MSG("send_db", HL_R_SEND_DB));
        }
        if (m->send[0][0] && strcmp(m->send[0], m->send[1]) == 0)
            return invalid(why, "send: the two sends name the same bus");
    }
    return 0;
}

int hl_validate_vpost(const hl_vpost_t *m, const char **why) {
    return vpost_filter_ok(
        m, HL_SET_LP | HL_SET_HP | HL_SET_OCCLUSION | HL_SET_OBSTRUCTION | HL_SET_SENDS, why);
}

int hl_validate_set(const hl_set_t *m, const char **why) {
    int rc = hl_check_set(m, why);
    if (rc) return rc;
    if ((m->mask & HL_SET_PAUSE) && (m->mask & HL_SET_RESUME))
        return invalid(why, "mask: pause and resume together");
    return vpost_filter_ok(&m->post, m->mask, why);
}

int hl_validate_pause(const hl_pause_t *m, const char **why) {
    int rc = hl_check_pause(m, why);
    if (rc) return rc;
    if (m->scope == HL_PAUSE_BUS || m->scope == HL_PAUSE_CATEGORY) {
        if (!hl_name_valid(m->group))
            return invalid(why, "group: a bus or category scope needs a valid name");
    } else if (m->group[0]) {
        return invalid(why, "group: must be empty for the mine and everyone scopes");
    }
    return 0;
}

int hl_validate_subscribe(const hl_subscribe_t *m, const char **why) {
    return hl_check_subscribe(m, why);
}

int hl_validate_listener(const hl_listener_t *m, const char **why) {
    int rc = hl_check_listener(m, why);
    if (rc != 0) return rc;
    if (m->weight != 0.0f && m->weight != -1.0f && !(m->weight > 0.0f && m->weight <= 1.0f))
        return invalid(why, "weight: 0 (unchanged), -1 (the nearest rule) or in (0, 1]");
    return 0;
}

int hl_validate_stop(const hl_stop_t *m, const char **why) {
    return hl_check_stop(m, why);
}

int hl_validate_stop_all(const hl_stop_all_t *m, const char **why) {
    return hl_check_stop_all(m, why);
}

int hl_validate_bus(const hl_bus_t *m, const char **why) {
    int rc = hl_check_bus(m, why);
    if (rc) return rc;
    if (m->mask == 0) return invalid(why, "mask: nothing to do");
    if ((m->mask & HL_BUS_REMOVE) && m->mask != HL_BUS_REMOVE)
        return invalid(why, "mask: remove goes alone");
    if ((m->mask & HL_BUS_CREATE) && (m->mask & HL_BUS_PARENT))
        return invalid(why, "mask: create already takes the parent");
    int master = strcmp(m->name, "master") == 0;
    if (master && (m->mask & (HL_BUS_CREATE | HL_BUS_REMOVE | HL_BUS_PARENT)))
        return invalid(why, "name: the master bus cannot be created, removed or moved");
    if ((m->mask & (HL_BUS_CREATE | HL_BUS_PARENT)) && strcmp(m->parent, m->name) == 0)
        return invalid(why, "parent: a bus cannot be its own parent");
    if (m->mask & HL_BUS_SEND) {
        if (master) return invalid(why, "send: the master has no sends");
        if (!hl_name_valid(m->send) || strcmp(m->send, m->name) == 0 ||
            strcmp(m->send, "master") == 0)
            return invalid(why, "send: a bus other than this one and the master");
    }
    return 0;
}

int hl_validate_zone(const hl_zone_t *m, const char **why) {
    return hl_check_zone(m, why);
}

int hl_validate_rzone(const hl_rzone_t *m, const char **why) {
    return hl_check_rzone(m, why);
}

int hl_validate_snapshot(const hl_snapshot_t *m, const char **why) {
    int rc = hl_check_snapshot(m, why);
    if (rc != 0 || m->action != HL_SNAP_SET) return rc;
    if (m->target == HL_SNAPT_GAIN && !(m->value == -HUGE_VALF || hl_gain_valid(m->value)))
        return invalid(why, "value: a gain must be -inf or finite and <= +24 dB");
    if (m->target == HL_SNAPT_MUTE && m->value != 0.0f && m->value != 1.0f)
        return invalid(why, "value: a mute must be 0 or 1");
    if (m->target == HL_SNAPT_FX) {
        if (m->param >= HL_FX_PARAMS) return invalid(why, "param: must be in [0, 7]");
        if (m->fx_index >= 8) return invalid(why, "fx_index: must be in [0, 7]");
        if (!isfinite(m->value)) return invalid(why, "value: must be finite");
    }
    return 0;
}

int hl_validate_cone(const hl_cone_t *m, const char **why) {
    int rc = hl_check_cone(m, why);
    if (rc != 0) return rc;
    if (m->target == HL_CONE_VOICE && m->voice == 0)
        return invalid(why, "voice: 0 is never a voice");
    if (m->target != HL_CONE_VOICE && !hl_name_valid(m->name))
        return invalid(why, "name: an emitter or cue name is required");
    if (m->inner_deg > m->outer_deg) return invalid(why, "inner_deg: must be <= outer_deg");
    return 0;
}

int hl_validate_atten(const hl_atten_t *m, const char **why) {
    int rc = hl_check_atten(m, why);
    if (rc != 0) return rc;
    if (m->target == HL_CONE_VOICE && m->voice == 0)
        return invalid(why, "voice: 0 is never a voice");
    if (m->target != HL_CONE_VOICE && !hl_name_valid(m->name))
        return invalid(why, "name: an emitter or cue name is required");
    if (m->npoints > HL_ATTEN_POINTS) return invalid(why, "npoints: at most 8");
    for (unsigned i = 0; i < m->npoints; i++) {
        if (!isfinite(m->dist[i]) || m->dist[i] < 0.0f || m->dist[i] > HL_MAX_COORD)
            return invalid(why, "dist: each must be finite and in [0, 1e6] m");
        if (i && !(m->dist[i] > m->dist[i - 1]))
            return invalid(why, "dist: must be strictly increasing");
        if (m->kind == HL_ATTEN_LOWPASS) {
            if (!(m->gain_db[i] >= 10.0f && m->gain_db[i] <= HL_MAX_LP_HZ))
                return invalid(why, "gain_db: a low-pass cutoff must be in [10, 96000] Hz");
        } else if (!(m->gain_db[i] >= -144.0f && m->gain_db[i] <= HL_MAX_GAIN_DB)) {
            return invalid(why, "gain_db: each must be finite and in [-144, +24]");
        }
    }
    return 0;
}

/* Parameters per kind, their ranges {lo, hi} (hl_ranges.h) and the
 * refusal naming each. */
#define FX_R(R)                                                                                    \
    { (float)R##_LO, (float)R##_HI }
static const int k_fx_nparams[4] = {0, 3, 6, 6};
static const float k_fx_range[4][HL_FX_PARAMS][2] = {
    [HL_FXK_EQ] = {FX_R(HL_R_EQ_FREQ), FX_R(HL_R_EQ_Q), FX_R(HL_R_EQ_GAIN)},
    [HL_FXK_COMP] = {FX_R(HL_R_COMP_THRESH), FX_R(HL_R_COMP_RATIO), FX_R(HL_R_COMP_KNEE),
                     FX_R(HL_R_COMP_ATTACK), FX_R(HL_R_COMP_RELEASE), FX_R(HL_R_COMP_MAKEUP)},
    [HL_FXK_REVERB] = {FX_R(HL_R_REV_RT60), FX_R(HL_R_REV_DAMPING), FX_R(HL_R_REV_PREDELAY),
                       FX_R(HL_R_REV_SIZE), FX_R(HL_R_REV_WET), FX_R(HL_R_REV_DRY)},
};
#undef FX_R
static const char *const k_fx_pnames[4][HL_FX_PARAMS] = {
    [HL_FXK_EQ] = {"freq", "q", "gain"},
    [HL_FXK_COMP] = {"threshold", "ratio", "knee", "attack", "release", "makeup"},
    [HL_FXK_REVERB] = {"rt60", "damping", "predelay", "size", "wet", "dry"},
};
static const char *const k_fx_why[4][HL_FX_PARAMS] = {
    [HL_FXK_EQ] = {HL_RANGE_MSG("freq", HL_R_EQ_FREQ), HL_RANGE_MSG("q", HL_R_EQ_Q),
                   HL_RANGE_MSG("gain", HL_R_EQ_GAIN)},
    [HL_FXK_COMP] = {HL_RANGE_MSG("threshold", HL_R_COMP_THRESH),
                     HL_RANGE_MSG("ratio", HL_R_COMP_RATIO), HL_RANGE_MSG("knee", HL_R_COMP_KNEE),
                     HL_RANGE_MSG("attack", HL_R_COMP_ATTACK),
                     HL_RANGE_MSG("release", HL_R_COMP_RELEASE),
                     HL_RANGE_MSG("makeup", HL_R_COMP_MAKEUP)},
    [HL_FXK_REVERB] = {HL_RANGE_MSG("rt60", HL_R_REV_RT60),
                       HL_RANGE_MSG("damping", HL_R_REV_DAMPING),
                       HL_RANGE_MSG("predelay", HL_R_REV_PREDELAY),
                       HL_RANGE_MSG("size", HL_R_REV_SIZE), HL_RANGE_MSG("wet", HL_R_REV_WET),
                       HL_RANGE_MSG("dry", HL_R_REV_DRY)},
};
static const char *const k_fx_kinds[4] = {NULL, "eq", "comp", "reverb"};
static const char *const k_eq_types[] = {"lowpass",   "highpass", "lowshelf",
                                         "highshelf", "peak",     NULL};
static const char *const k_rev_presets[] = {"room", "hall", "cave", "outdoor", NULL};

int hl_validate_fx(const hl_fx_req_t *m, const char **why) {
    int rc = hl_check_fx_req(m, why);
    if (rc) return rc;
    if (m->action == HL_FX_REMOVE) return 0;
    if (m->kind < HL_FXK_EQ || m->kind > HL_FXK_REVERB)
        return invalid(why, "kind: unknown (eq, comp, reverb)");
    if (m->mask & HL_FXP_TYPE) {
        if (m->kind == HL_FXK_EQ && m->type > HL_EQ_PEAK)
            return invalid(why, "type: unknown eq type");
        if (m->kind == HL_FXK_REVERB && m->type > HL_REV_OUTDOOR)
            return invalid(why, "type: unknown reverb preset");
        if (m->kind == HL_FXK_COMP) return invalid(why, "type: a compressor has no type");
    }
    for (int i = 0; i < HL_FX_PARAMS; i++) {
        if (!(m->mask & (1u << i))) continue;
        if (i >= k_fx_nparams[m->kind])
            return invalid(why, "mask: a parameter this kind does not have");
        const float *rg = k_fx_range[m->kind][i];
        if (!in_range(m->p[i], rg[0], rg[1])) return invalid(why, k_fx_why[m->kind][i]);
    }
    return 0;
}

int hl_validate_duck(const hl_duck_rule_t *m, const char **why) {
    int rc = hl_check_duck_rule(m, why);
    if (rc) return rc;
    if (strcmp(m->bus, m->by) == 0) return invalid(why, "by: a bus cannot duck itself");
    return 0;
}

int hl_fx_kind_from(const char *s) {
    for (int k = HL_FXK_EQ; s && k <= HL_FXK_REVERB; k++)
        if (strcmp(k_fx_kinds[k], s) == 0) return k;
    return -1;
}
const char *hl_fx_kind_name(int kind) {
    return kind >= HL_FXK_EQ && kind <= HL_FXK_REVERB ? k_fx_kinds[kind] : NULL;
}
static const char *const *fx_types(int kind) {
    return kind == HL_FXK_EQ ? k_eq_types : kind == HL_FXK_REVERB ? k_rev_presets : NULL;
}
int hl_fx_type_from(int kind, const char *s) {
    const char *const *t = fx_types(kind);
    for (int i = 0; t && s && t[i]; i++)
        if (strcmp(t[i], s) == 0) return i;
    return -1;
}
const char *hl_fx_type_name(int kind, int type) {
    const char *const *t = fx_types(kind);
    int n = kind == HL_FXK_EQ ? 5 : 4;
    return t && type >= 0 && type < n ? t[type] : NULL;
}
int hl_fx_parse_args(hl_fx_req_t *m, int n, char *const *args, char *err, size_t cap) {
    for (int i = 0; i < n; i += 2) {
        const char *a = args[i];
        if (strncmp(a, "--", 2) != 0 || i + 1 >= n) {
            snprintf(err, cap, "%s: expected --NAME VALUE", a);
            return -1;
        }
        const char *key = a + 2, *val = args[i + 1];
        if ((m->kind == HL_FXK_EQ && strcmp(key, "type") == 0) ||
            (m->kind == HL_FXK_REVERB && strcmp(key, "preset") == 0)) {
            int t = hl_fx_type_from(m->kind, val);
            if (t < 0) {
                snprintf(err, cap, "--%s %s: unknown (%s)", key, val,
                         m->kind == HL_FXK_EQ ? "lowpass, highpass, lowshelf, highshelf, peak"
                                              : "room, hall, cave, outdoor");
                return -1;
            }
            m->type = (uint8_t)t;
            m->mask |= HL_FXP_TYPE;
            continue;
        }
        char *end = NULL;
        float v = strtof(val, &end);
        if (!end || end == val || *end || !isfinite(v)) {
            snprintf(err, cap, "--%s %s: not a number", key, val);
            return -1;
        }
        if (strcmp(key, "ramp") == 0) {
            m->ramp_ms = v;
            continue;
        }
        int k = -1;
        for (int j = 0; j < HL_FX_PARAMS && k < 0; j++) {
            const char *pn = hl_fx_param_name(m->kind, j);
            if (pn && strcmp(pn, key) == 0) k = j;
        }
        if (k < 0) {
            snprintf(err, cap, "--%s: not a parameter of %s", key,
                     hl_fx_kind_name(m->kind) ? hl_fx_kind_name(m->kind) : "this effect");
            return -1;
        }
        m->p[k] = v;
        m->mask |= 1u << k;
    }
    return 0;
}

const char *hl_fx_param_name(int kind, int i) {
    if (kind < HL_FXK_EQ || kind > HL_FXK_REVERB || i < 0 || i >= HL_FX_PARAMS) return NULL;
    return k_fx_pnames[kind][i];
}

int hl_validate_cue(const hl_cue_t *m, const char **why) {
    int rc = hl_check_cue(m, why);
    if (rc) return rc;
    if (m->nsounds < 1 || m->nsounds > HL_MAX_CUE_SOUNDS)
        return invalid(why, "sounds: a cue needs 1 to 16 sounds");
    for (unsigned i = 0; i < m->nsounds; i++)
        if (!hl_name_valid(m->sounds[i])) return invalid(why, "sounds: invalid sound name");
    return distance_ok(m->min_distance, m->max_distance, m->rolloff,
                       "max_distance: must be > min_distance and <= 1e6", why);
}

int hl_validate_category(const hl_category_t *m, const char **why) {
    return hl_check_category(m, why);
}

int hl_validate_emitter(const hl_emitter_t *m, const char **why) {
    int rc = hl_check_emitter(m, why);
    if (rc) return rc;
    if (m->action == HL_EMITTER_CREATE && !(m->mask & HL_EM_POS))
        return invalid(why, "pos: create needs a position");
    return 0;
}

/* ---- game parameters ---- */

int hl_validate_param_def(const hl_param_def_t *m, const char **why) {
    int rc = hl_check_param_def(m, why);
    if (rc) return rc;
    if (!(m->min < m->max)) return invalid(why, "max: must be greater than min");
    if (m->def < m->min || m->def > m->max) return invalid(why, "def: must be in [min, max]");
    return 0;
}

int hl_validate_param(const hl_param_t *m, const char **why) {
    return hl_check_param(m, why);
}

int hl_validate_bind(const hl_bind_t *m, const char **why) {
    int rc = hl_check_bind(m, why);
    if (rc || m->action == HL_BIND_CLEAR) return rc;
    int choice = m->prop == HL_PROP_SWITCH || m->prop == HL_PROP_BLEND;
    if (m->npoints > HL_MAX_CURVE_POINTS)
        return invalid(why, "npoints: a curve has at most 16 points");
    if (m->npoints == 0 && !choice) return invalid(why, "npoints: a curve needs at least 1 point");
    if (m->prop == HL_PROP_SEND ? m->index >= HL_VOICE_SENDS
                                : m->prop != HL_PROP_FX && m->index != 0)
        return invalid(why, "index: the send (0 or 1) for send, the effect for fx, else 0");
    if (m->prop == HL_PROP_FX ? m->fxp >= HL_FX_PARAMS : m->fxp != 0)
        return invalid(why, "fxp: the effect parameter (0..7) for fx, else 0");
    for (unsigned i = 0; i < m->npoints; i++) {
        if (!HL_IN_RANGE(m->x[i], HL_R_PARAM))
            return invalid(why, "x: curve points must be finite and within 1e6");
        if (i && !(m->x[i] > m->x[i - 1]))
            return invalid(why, "x: curve points must be strictly increasing");
        if (!isfinite(m->y[i])) return invalid(why, "y: curve values must be finite");
        float y = m->y[i];
        switch (m->prop) {
        case HL_PROP_GAIN:
            if (y > HL_MAX_GAIN_DB) return invalid(why, "y: gain (dB) must be <= 24");
            break;
        case HL_PROP_PITCH:
            if (y < -2400.0f || y > 2400.0f)
                return invalid(why, "y: pitch must be in [-2400, 2400] cents");
            break;
        case HL_PROP_LP:
            if (!HL_IN_RANGE(y, HL_R_LP_HZ))
                return invalid(why, HL_RANGE_MSG("y: lp_hz", HL_R_LP_HZ));
            break;
        case HL_PROP_HP:
            if (!HL_IN_RANGE(y, HL_R_HP_HZ))
                return invalid(why, HL_RANGE_MSG("y: hp_hz", HL_R_HP_HZ));
            break;
        case HL_PROP_OCCLUSION:
            if (!HL_IN_RANGE(y, HL_R_UNIT))
                return invalid(why, HL_RANGE_MSG("y: occlusion", HL_R_UNIT));
            break;
        case HL_PROP_SEND:
            if (!HL_IN_RANGE(y, HL_R_SEND_DB))
                return invalid(why, HL_RANGE_MSG("y: send_db", HL_R_SEND_DB));
            break;
        case HL_PROP_BUS_GAIN:
            if (y > HL_MAX_GAIN_DB) return invalid(why, "y: bus gain (dB) must be <= 24");
            break;
        case HL_PROP_FX: break; /* the effect's own range: checked when bound */
        case HL_PROP_SNAPSHOT:
            if (!HL_IN_RANGE(y, HL_R_UNIT))
                return invalid(why, HL_RANGE_MSG("y: snapshot intensity", HL_R_UNIT));
            break;
        default:
            if (y != 0.0f) return invalid(why, "y: switch and blend take x only (y 0)");
        }
    }
    for (unsigned i = m->npoints; i < HL_MAX_CURVE_POINTS; i++)
        if (m->x[i] != 0.0f || m->y[i] != 0.0f)
            return invalid(why, "x, y: points past npoints must be 0");
    unsigned segs = m->npoints > 1 ? m->npoints - 1u : 0u;
    if (segs < 16 && (m->shapes >> (2 * segs)) != 0)
        return invalid(why, "shapes: bits past the last segment");
    return 0;
}
