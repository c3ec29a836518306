/*
 * cue_spatial.c - the `cone`, `attenuation`, `distance-lp` and
 * `distance-send` keys of a cue sheet's [cue] sections (cue_spatial.h):
 * parsed into what CONE and ATTEN carry, checked
 * by the same validators, given to the cue when the sheet is applied.
 */
#include "cue_spatial.h"

#include <stdlib.h>
#include <string.h>

#include "hl_proto.h"

/* A float at *p (then past it); 0, or -1 when there is none. */
static int num(const char **p, float *out) {
    char *end;
    double v = strtod(*p, &end);
    if (end == *p) return -1;
    *out = (float)v;
    *p = end;
    return 0;
}

static const char *skip(const char *p) {
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int parse_cone(hld_cue_spatial_t *s, const char *v, const char **why) {
    hl_cone_t m;
    hl_cone_init(&m);
    m.target = HL_CONE_CUE;
    memcpy(m.name, "cue", 4); /* the section's (its header checked the name) */
    const char *p = skip(v);
    for (int i = 0; i < 3; i++) {
        if (num(&p, &m.dir[i]) || (i < 2 && *p++ != ',')) {
            *why = "cone: X,Y,Z INNER OUTER OUTER_GAIN [OUTER_LP_HZ]";
            return -1;
        }
    }
    float *f[4] = {&m.inner_deg, &m.outer_deg, &m.outer_gain, &m.outer_lp_hz};
    int n = 0;
    for (p = skip(p); *p && n < 4; p = skip(p))
        if (num(&p, f[n++])) break;
    if (n < 3 || *skip(p)) {
        *why = "cone: X,Y,Z INNER OUTER OUTER_GAIN [OUTER_LP_HZ]";
        return -1;
    }
    if (hl_validate_cone(&m, why)) return -1;
    const float c[7] = {m.dir[0],    m.dir[1],     m.dir[2],     m.inner_deg,
                        m.outer_deg, m.outer_gain, m.outer_lp_hz};
    memcpy(s->cone, c, sizeof c);
    return 0;
}

/* The three distance curves' keys, each an ATTEN kind. */
static const struct {
    const char *key, *usage, *many;
} curve_keys[3] = {
    [HL_ATTEN_GAIN] = {"attenuation", "attenuation: D:DB [D:DB ...] (metres:dB)",
                       "attenuation: at most 8 points"},
    [HL_ATTEN_LOWPASS] = {"distance-lp", "distance-lp: D:HZ [D:HZ ...] (metres:Hz)",
                          "distance-lp: at most 8 points"},
    [HL_ATTEN_SEND] = {"distance-send", "distance-send: D:DB [D:DB ...] (metres:dB)",
                       "distance-send: at most 8 points"},
};

static int parse_curve(hld_cue_spatial_t *s, unsigned kind, const char *v, const char **why) {
    hl_atten_t m;
    hl_atten_init(&m);
    m.target = HL_CONE_CUE;
    m.kind = (uint8_t)kind;
    memcpy(m.name, "cue", 4);
    const char *p = skip(v);
    while (*p) {
        if (m.npoints >= HL_ATTEN_POINTS) {
            *why = curve_keys[kind].many;
            return -1;
        }
        if (num(&p, &m.dist[m.npoints]) || *p++ != ':' || num(&p, &m.gain_db[m.npoints])) {
            *why = curve_keys[kind].usage;
            return -1;
        }
        m.npoints++;
        p = skip(p);
    }
    if (!m.npoints) {
        *why = curve_keys[kind].usage;
        return -1;
    }
    if (hl_validate_atten(&m, why)) return -1;
    s->curve_n[kind] = m.npoints;
    memcpy(s->curve_d[kind], m.dist, sizeof s->curve_d[kind]);
    memcpy(s->curve_v[kind], m.gain_db, sizeof s->curve_v[kind]);
    return 0;
}

int hld_cue_spatial_key(hld_cue_spatial_t *s, const char *key, const char *val, uint32_t line,
                        uint32_t *prev, const char **why) {
    int kind = -1;
    for (unsigned k = 0; k < 3; k++)
        if (strcmp(key, curve_keys[k].key) == 0) kind = (int)k;
    const int cone = strcmp(key, "cone") == 0;
    if (!cone && kind < 0) return 0;
    uint32_t *at = cone ? &s->cone_line : &s->curve_line[kind];
    *prev = *at;
    if (*at) return -1;
    if (cone ? parse_cone(s, val, why) : parse_curve(s, (unsigned)kind, val, why)) return -1;
    *at = line;
    return 1;
}

void hld_cue_spatial_apply(const hld_cue_spatial_t *s, hld_cue_t *cue) {
    memcpy(cue->cone, s->cone, sizeof cue->cone);
    cue->curve_n = s->curve_n[HL_ATTEN_GAIN];
    memcpy(cue->curve_d, s->curve_d[HL_ATTEN_GAIN], sizeof cue->curve_d);
    memcpy(cue->curve_db, s->curve_v[HL_ATTEN_GAIN], sizeof cue->curve_db);
    cue->dist_lp.n = s->curve_n[HL_ATTEN_LOWPASS];
    memcpy(cue->dist_lp.d, s->curve_d[HL_ATTEN_LOWPASS], sizeof cue->dist_lp.d);
    memcpy(cue->dist_lp.v, s->curve_v[HL_ATTEN_LOWPASS], sizeof cue->dist_lp.v);
    cue->dist_send.n = s->curve_n[HL_ATTEN_SEND];
    memcpy(cue->dist_send.d, s->curve_d[HL_ATTEN_SEND], sizeof cue->dist_send.d);
    memcpy(cue->dist_send.v, s->curve_v[HL_ATTEN_SEND], sizeof cue->dist_send.v);
}
