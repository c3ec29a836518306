/*
 * ctl_args_params.c - heliodctl's game-parameter commands: `param` (set a
 * value, schedulable), `param-def` (define), `params` (list) and `bind`
 * (bind a parameter to a cue's property through a curve), parsed into
 * their wire messages (protocol 1.1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_args_int.h"

/* param NAME VALUE [--emitter ID | --voice VOICE] */
int ctl__parse_param(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_param_t *m = &c->m.param;
    hl_param_init(m);
    const char *name = NULL, *value = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--emitter") == 0) {
            if (m->scope != HL_PSCOPE_GLOBAL)
                return ctl__fail(err, errlen, "param: --emitter and --voice exclude each other");
            if (ctl__name_opt(argc, argv, &i, "--emitter", m->emitter, sizeof m->emitter, err,
                              errlen) < 0)
                return -1;
            m->scope = HL_PSCOPE_EMITTER;
        } else if (strcmp(a, "--voice") == 0) {
            if (m->scope != HL_PSCOPE_GLOBAL)
                return ctl__fail(err, errlen, "param: --emitter and --voice exclude each other");
            if (i + 1 >= argc || ctl_parse_u64(argv[i + 1], &m->voice) < 0 || !m->voice)
                return ctl__fail(err, errlen, "param: --voice needs a voice handle");
            i++;
            m->scope = HL_PSCOPE_VOICE;
        } else if (a[0] == '-' && a[1] == '-') {
            return ctl__fail(err, errlen, "param: unknown option '%s'", a);
        } else if (!name) {
            name = a;
        } else if (!value) {
            value = a;
        } else {
            return ctl__fail(err, errlen, "param: unexpected argument '%s'", a);
        }
    }
    if (!name || !value) return ctl__fail(err, errlen, "param: needs NAME VALUE");
    if (ctl__name_arg("parameter name", name, m->name, sizeof m->name, err, errlen) < 0) return -1;
    if (ctl_parse_float(value, &m->value) < 0)
        return ctl__fail(err, errlen, "param: VALUE '%s' is not a finite number", value);
    const char *why = NULL;
    if (hl_validate_param(m, &why) < 0) return ctl__fail(err, errlen, "param: %s", why);
    return 0;
}

/* param-def NAME MIN MAX DEFAULT [SEEK] */
int ctl__parse_param_def(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_param_def_t *m = &c->m.param_def;
    hl_param_def_init(m);
    if (argc < 5 || argc > 6)
        return ctl__fail(err, errlen, "param-def: needs NAME MIN MAX DEFAULT [SEEK]");
    if (ctl__name_arg("parameter name", argv[1], m->name, sizeof m->name, err, errlen) < 0)
        return -1;
    float *f[4] = {&m->min, &m->max, &m->def, &m->seek};
    static const char *const what[4] = {"MIN", "MAX", "DEFAULT", "SEEK"};
    for (int i = 0; i < argc - 2; i++)
        if (ctl_parse_float(argv[i + 2], f[i]) < 0)
            return ctl__fail(err, errlen, "param-def: %s '%s' is not a finite number", what[i],
                             argv[i + 2]);
    const char *why = NULL;
    if (hl_validate_param_def(m, &why) < 0) return ctl__fail(err, errlen, "param-def: %s", why);
    return 0;
}

/* bind CUE PARAM PROP[:N] [X:Y[:SHAPE] ...] | bind CUE --clear */
int ctl__parse_bind(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_bind_t *m = &c->m.bind;
    hl_bind_init(m);
    if (argc == 3 && strcmp(argv[2], "--clear") == 0) {
        m->action = HL_BIND_CLEAR;
        return ctl__name_arg("cue name", argv[1], m->cue, sizeof m->cue, err, errlen);
    }
    if (argc < 4) return ctl__fail(err, errlen, "bind: needs CUE PARAM PROPERTY [X:Y[:SHAPE] ...]");
    if (ctl__name_arg("cue or bus name", argv[1], m->cue, sizeof m->cue, err, errlen) < 0 ||
        ctl__name_arg("parameter name", argv[2], m->param, sizeof m->param, err, errlen) < 0)
        return -1;
    char prop[32];
    snprintf(prop, sizeof prop, "%s", argv[3]);
    char *idx = strchr(prop, ':');
    if (idx) *idx++ = '\0';
    int pr = hl_enum_from(HL_ENUM_PROP, prop);
    if (pr < 0)
        return ctl__fail(err, errlen,
                         "bind: unknown property '%s' (gain, pitch, lp, hp, occlusion, send[:N], "
                         "switch, blend, bus-gain, fx:INDEX:P, snapshot)",
                         argv[3]);
    m->prop = (uint8_t)pr;
    if (pr == HL_PROP_FX) { /* fx:INDEX:P */
        char *pp = idx ? strchr(idx, ':') : NULL;
        long n, k;
        if (pp) *pp++ = '\0';
        if (!pp || ctl_parse_int(idx, 0, 255, &n) < 0 ||
            ctl_parse_int(pp, 0, HL_FX_PARAMS - 1, &k) < 0)
            return ctl__fail(
                err, errlen,
                "bind: fx:INDEX:P (the effect's index on the bus, its parameter 0..7)");
        m->index = (uint8_t)n;
        m->fxp = (uint8_t)k;
    } else if (idx) {
        long n;
        if (pr != HL_PROP_SEND || ctl_parse_int(idx, 0, HL_VOICE_SENDS - 1, &n) < 0)
            return ctl__fail(err, errlen, "bind: only send takes an index (send:0, send:1)");
        m->index = (uint8_t)n;
    }
    int choice = pr == HL_PROP_SWITCH || pr == HL_PROP_BLEND;
    if (argc - 4 > HL_MAX_CURVE_POINTS)
        return ctl__fail(err, errlen, "bind: %d points; a curve has at most %d", argc - 4,
                         HL_MAX_CURVE_POINTS);
    for (int i = 4; i < argc; i++) {
        char pt[96];
        snprintf(pt, sizeof pt, "%s", argv[i]);
        char *ys = strchr(pt, ':'), *sh = NULL;
        if (ys) *ys++ = '\0';
        if (ys && (sh = strchr(ys, ':'))) *sh++ = '\0';
        unsigned k = m->npoints;
        if (ctl_parse_float(pt, &m->x[k]) < 0 ||
            (!choice && (!ys || ctl_parse_float(ys, &m->y[k]) < 0)) || (choice && ys))
            return ctl__fail(err, errlen, "bind: point '%s': expected %s", argv[i],
                             choice ? "a parameter value X" : "X:Y or X:Y:SHAPE");
        if (sh) {
            int s = hl_enum_from(HL_ENUM_SHAPE, sh);
            if (s < 0)
                return ctl__fail(err, errlen,
                                 "bind: point '%s': unknown shape (linear, exp, log, scurve)",
                                 argv[i]);
            if (i + 1 < argc) m->shapes |= (uint32_t)s << (2 * k);
        }
        m->npoints++;
    }
    const char *why = NULL;
    if (hl_validate_bind(m, &why) < 0) return ctl__fail(err, errlen, "bind: %s", why);
    return 0;
}
