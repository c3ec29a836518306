/*
 * ctl_args_graph.c - heliodctl's mixer-graph commands (bus, buses, fx,
 * duck, ducks, rzone, rzones).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_args_int.h"

/* bus NAME [--gain DB] [--mute|--unmute] [--parent P] [--ramp MS]
 * bus create NAME [--parent P] [--gain DB] [--mute]
 * bus remove NAME */
int ctl__parse_bus(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_bus_t *m = &c->m.bus;
    int a = 1;
    if (argc > 1 && strcmp(argv[1], "create") == 0) {
        m->mask |= HL_BUS_CREATE;
        a = 2;
    } else if (argc > 1 && strcmp(argv[1], "remove") == 0) {
        m->mask |= HL_BUS_REMOVE;
        a = 2;
    }
    const char *name = NULL;
    for (int i = a; i < argc; i++) {
        const char *v;
        int r;
        if ((r = ctl__float_opt(argc, argv, &i, "--gain", &m->gain_db, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_BUS_GAIN;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--ramp", &m->ramp_ms, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__name_opt(argc, argv, &i, "--parent", m->parent, sizeof m->parent, err,
                                      errlen)) != 0) {
            if (r < 0) return -1;
            if (strcmp(m->parent, "master") == 0) m->parent[0] = '\0';
            if (!(m->mask & HL_BUS_CREATE)) m->mask |= HL_BUS_PARENT;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--send", &v)) != 0) {
            const char *colon = r > 0 ? strrchr(v, ':') : NULL;
            size_t n = colon ? (size_t)(colon - v) : 0;
            if (!colon || n == 0 || n > HL_MAX_NAME)
                return ctl__fail(err, errlen, "--send needs TARGET:DB or TARGET:off");
            memcpy(m->send, v, n);
            m->send[n] = '\0';
            if (strcmp(colon + 1, "off") == 0)
                m->send_db = -144.0f;
            else if (ctl_parse_float(colon + 1, &m->send_db) < 0)
                return ctl__fail(err, errlen, "--send %s: the level after ':' must be dB or off",
                                 v);
            m->mask |= HL_BUS_SEND;
        } else if (strcmp(argv[i], "--mute") == 0 || strcmp(argv[i], "--unmute") == 0) {
            m->mask |= HL_BUS_MUTE;
            m->mute = argv[i][2] == 'm';
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "bus: unknown option '%s'", argv[i]);
        } else if (name) {
            return ctl__fail(err, errlen, "bus: unexpected argument '%s'", argv[i]);
        } else {
            name = argv[i];
        }
    }
    if (ctl__name_arg("bus name", name, m->name, sizeof m->name, err, errlen) < 0) return -1;
    if (!m->mask)
        return ctl__fail(err, errlen,
                         "bus: nothing to do (--gain DB, --mute, --unmute, --parent P; or bus "
                         "create / bus remove)");
    const char *why;
    if (hl_validate_bus(m, &why) < 0) return ctl__fail(err, errlen, "bus: %s", why);
    return 0;
}

/* fx add BUS KIND [--at N] [params] | fx set BUS INDEX KIND [params] |
 * fx remove BUS INDEX | fx list [BUS] */
int ctl__parse_fx(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    if (argc < 2) return ctl__fail(err, errlen, "fx: add, set, remove or list (try fx --help)");
    const char *verb = argv[1];
    if (strcmp(verb, "list") == 0) {
        c->kind = CTL_FX_LIST;
        c->op = HL_OP_FX_LIST;
        if (argc > 3) return ctl__fail(err, errlen, "fx list: at most one BUS");
        if (argc == 3)
            return ctl__name_arg("bus name", argv[2], c->m.name.name, sizeof c->m.name.name, err,
                                 errlen);
        return 0;
    }
    hl_fx_req_t *m = &c->m.fx;
    int a;
    if (strcmp(verb, "add") == 0) {
        m->action = HL_FX_ADD;
        m->index = UINT32_MAX;
        a = 3;
    } else if (strcmp(verb, "set") == 0 || strcmp(verb, "remove") == 0) {
        m->action = verb[0] == 's' ? HL_FX_SET : HL_FX_REMOVE;
        long n;
        if (argc < 4 || ctl_parse_int(argv[3], 0, HL_FX_PARAMS * 1000, &n) < 0)
            return ctl__fail(err, errlen, "fx %s: needs BUS INDEX (see fx list)", verb);
        m->index = (uint32_t)n;
        a = 4;
    } else {
        return ctl__fail(err, errlen, "fx: unknown action '%s' (add, set, remove, list)", verb);
    }
    if (argc < 3 || ctl__name_arg("bus name", argv[2], m->bus, sizeof m->bus, err, errlen) < 0)
        return ctl__fail(err, errlen, "fx %s: needs a BUS", verb);
    if (m->action != HL_FX_REMOVE) {
        int kind = a < argc ? hl_fx_kind_from(argv[a]) : -1;
        if (kind < 0) return ctl__fail(err, errlen, "fx %s: needs a KIND (eq, comp, reverb)", verb);
        m->kind = (uint8_t)kind;
        a++;
        /* --at N (add only) may sit anywhere among the parameters */
        char *rest[64];
        int nrest = 0;
        for (int i = a; i < argc; i++) {
            if (m->action == HL_FX_ADD && strcmp(argv[i], "--at") == 0 && i + 1 < argc) {
                long n;
                if (ctl_parse_int(argv[i + 1], 0, 1000, &n) < 0)
                    return ctl__fail(err, errlen, "--at needs a position >= 0");
                m->index = (uint32_t)n;
                i++;
            } else if (nrest < 64) {
                rest[nrest++] = argv[i];
            }
        }
        if (hl_fx_parse_args(m, nrest, rest, err, errlen) < 0) return -1;
    } else if (argc > a) {
        return ctl__fail(err, errlen, "fx remove: unexpected argument '%s'", argv[a]);
    }
    const char *why;
    if (hl_validate_fx(m, &why) < 0) return ctl__fail(err, errlen, "fx: %s", why);
    return 0;
}

/* duck BUS --by SIDE [--depth DB] [--threshold DB | --voices] [--attack MS]
 *      [--hold MS] [--release MS] [--off] */
int ctl__parse_duck(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_duck_rule_t *m = &c->m.duck;
    hl_duck_rule_init(m);
    const char *bus = NULL;
    for (int i = 1; i < argc; i++) {
        int r;
        if ((r = ctl__name_opt(argc, argv, &i, "--by", m->by, sizeof m->by, err, errlen)) != 0 ||
            (r = ctl__float_opt(argc, argv, &i, "--depth", &m->depth_db, err, errlen)) != 0 ||
            (r = ctl__float_opt(argc, argv, &i, "--threshold", &m->threshold_db, err, errlen)) !=
                0 ||
            (r = ctl__float_opt(argc, argv, &i, "--attack", &m->attack_ms, err, errlen)) != 0 ||
            (r = ctl__float_opt(argc, argv, &i, "--hold", &m->hold_ms, err, errlen)) != 0 ||
            (r = ctl__float_opt(argc, argv, &i, "--release", &m->release_ms, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if (strcmp(argv[i], "--voices") == 0) {
            m->threshold_db = -144.0f;
        } else if (strcmp(argv[i], "--off") == 0) {
            m->on = 0;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "duck: unknown option '%s'", argv[i]);
        } else if (bus) {
            return ctl__fail(err, errlen, "duck: unexpected argument '%s'", argv[i]);
        } else {
            bus = argv[i];
        }
    }
    if (ctl__name_arg("bus name", bus, m->bus, sizeof m->bus, err, errlen) < 0) return -1;
    if (!m->by[0]) return ctl__fail(err, errlen, "duck: --by BUS (the sidechain) is required");
    const char *why;
    if (hl_validate_duck(m, &why) < 0) return ctl__fail(err, errlen, "duck: %s", why);
    return 0;
}

/* reverb-zone NAME --pos X,Y,Z --radius R [--fade M] [--bus B] [--feed F] [--preset P]
 * reverb-zone remove NAME */
int ctl__parse_rzone(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_rzone_t *m = &c->m.rzone;
    m->preset = HL_REV_HALL;
    int a = 1, seen = 0;
    if (argc > 1 && strcmp(argv[1], "remove") == 0) {
        m->action = HL_RZONE_REMOVE;
        if (argc != 3) return ctl__fail(err, errlen, "reverb-zone remove: needs exactly one NAME");
        return ctl__name_arg("zone name", argv[2], m->name, sizeof m->name, err, errlen);
    }
    const char *name = NULL;
    for (int i = a; i < argc; i++) {
        const char *v;
        int r;
        if ((r = ctl__sphere_opt(argc, argv, &i, m->pos, &m->radius, &seen, err, errlen)) != 0 ||
            (r = ctl__float_opt(argc, argv, &i, "--fade", &m->fade, err, errlen)) != 0 ||
            (r = ctl__name_opt(argc, argv, &i, "--bus", m->bus, sizeof m->bus, err, errlen)) != 0 ||
            (r = ctl__name_opt(argc, argv, &i, "--feed", m->feed, sizeof m->feed, err, errlen)) !=
                0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--preset", &v)) != 0) {
            int t = r > 0 ? hl_fx_type_from(HL_FXK_REVERB, v) : -1;
            if (t < 0) return ctl__fail(err, errlen, "--preset: room, hall, cave or outdoor");
            m->preset = (uint8_t)t;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "reverb-zone: unknown option '%s'", argv[i]);
        } else if (name) {
            return ctl__fail(err, errlen, "reverb-zone: unexpected argument '%s'", argv[i]);
        } else {
            name = argv[i];
        }
    }
    if (ctl__name_arg("zone name", name, m->name, sizeof m->name, err, errlen) < 0) return -1;
    if (seen != 3) return ctl__fail(err, errlen, "reverb-zone: --pos and --radius are required");
    const char *why;
    if (hl_validate_rzone(m, &why) < 0) return ctl__fail(err, errlen, "reverb-zone: %s", why);
    return 0;
}

/* snapshot start|stop NAME [--fade MS] [--intensity X]; define NAME
 * [--priority N] [--fade MS]; set NAME BUS gain DB | mute on|off | fx INDEX
 * PARAM VALUE; remove NAME. */
int ctl__parse_snapshot(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_snapshot_t *m = &c->m.snapshot;
    hl_snapshot_init(m);
    static const char *const acts[] = {"define", "set", "start", "stop", "remove"};
    int act = -1;
    for (int k = 0; argc > 1 && k < 5; k++)
        if (strcmp(argv[1], acts[k]) == 0) act = k;
    if (act < 0)
        return ctl__fail(err, errlen, "snapshot: start, stop, define, set or remove expected");
    m->action = (uint8_t)act;
    const char *pos[6];
    int npos = 0;
    for (int i = 2; i < argc; i++) {
        int r;
        long pr = 0;
        if (act != HL_SNAP_SET &&
            (r = ctl__float_opt(argc, argv, &i, "--fade", &m->fade_ms, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if (act == HL_SNAP_START && (r = ctl__float_opt(argc, argv, &i, "--intensity",
                                                               &m->intensity, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if (act == HL_SNAP_DEFINE &&
                   (r = ctl__int_opt(argc, argv, &i, "--priority", -HL_MAX_PRIORITY,
                                     HL_MAX_PRIORITY, &pr, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->priority = (int32_t)pr;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "snapshot %s: unknown option '%s'", acts[act], argv[i]);
        } else if (npos < 6) {
            pos[npos++] = argv[i];
        } else {
            return ctl__fail(err, errlen, "snapshot: unexpected argument '%s'", argv[i]);
        }
    }
    if (ctl__name_arg("snapshot name", npos ? pos[0] : NULL, m->name, sizeof m->name, err, errlen) <
        0)
        return -1;
    if (act == HL_SNAP_SET) {
        if (npos < 3)
            return ctl__fail(err, errlen,
                             "snapshot set: NAME BUS gain DB | mute on|off | fx INDEX PARAM VALUE");
        if (ctl__name_arg("bus", pos[1], m->bus, sizeof m->bus, err, errlen) < 0) return -1;
        long idx = 0, par = 0;
        if (strcmp(pos[2], "gain") == 0 && npos == 4) {
            m->target = HL_SNAPT_GAIN;
            if (strcmp(pos[3], "-inf") == 0)
                m->value = -HUGE_VALF;
            else if (ctl_parse_float(pos[3], &m->value) < 0)
                return ctl__fail(err, errlen, "snapshot set: gain: a number of dB or -inf");
        } else if (strcmp(pos[2], "mute") == 0 && npos == 4 &&
                   (strcmp(pos[3], "on") == 0 || strcmp(pos[3], "off") == 0)) {
            m->target = HL_SNAPT_MUTE;
            m->value = strcmp(pos[3], "on") == 0 ? 1.0f : 0.0f;
        } else if (strcmp(pos[2], "fx") == 0 && npos == 6 &&
                   ctl_parse_int(pos[3], 0, 7, &idx) == 0 &&
                   ctl_parse_int(pos[4], 0, 7, &par) == 0 &&
                   ctl_parse_float(pos[5], &m->value) == 0) {
            m->target = HL_SNAPT_FX;
            m->fx_index = (uint32_t)idx;
            m->param = (uint8_t)par;
        } else {
            return ctl__fail(err, errlen,
                             "snapshot set: NAME BUS gain DB | mute on|off | fx INDEX(0-7) "
                             "PARAM(0-7) VALUE");
        }
    } else if (npos != 1) {
        return ctl__fail(err, errlen, "snapshot %s: needs exactly one NAME", acts[act]);
    }
    if (act == HL_SNAP_DEFINE && m->fade_ms < 0.0f && m->fade_ms != -1.0f)
        return ctl__fail(err, errlen, "snapshot define: --fade must be >= 0");
    const char *why;
    if (hl_validate_snapshot(m, &why) < 0) return ctl__fail(err, errlen, "snapshot: %s", why);
    return 0;
}

/* cone VOICE|--emitter NAME|--cue NAME --dir X,Y,Z [--inner DEG] [--outer DEG]
 * [--outer-gain X] [--outer-lp HZ] | --off */
int ctl__parse_cone(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_cone_t *m = &c->m.cone;
    hl_cone_init(m);
    int has_dir = 0, off = 0, named = 0;
    const char *voice = NULL;
    for (int i = 1; i < argc; i++) {
        int r;
        if ((r = ctl__vec3_opt(argc, argv, &i, "--dir", m->dir, err, errlen)) != 0) {
            if (r < 0) return -1;
            has_dir = 1;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--inner", &m->inner_deg, err, errlen)) !=
                       0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--outer", &m->outer_deg, err, errlen)) !=
                       0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--outer-gain", &m->outer_gain, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--outer-lp", &m->outer_lp_hz, err,
                                       errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__name_opt(argc, argv, &i, "--emitter", m->name, sizeof m->name, err,
                                      errlen)) != 0) {
            if (r < 0) return -1;
            m->target = HL_CONE_EMITTER;
            named++;
        } else if ((r = ctl__name_opt(argc, argv, &i, "--cue", m->name, sizeof m->name, err,
                                      errlen)) != 0) {
            if (r < 0) return -1;
            m->target = HL_CONE_CUE;
            named++;
        } else if (strcmp(argv[i], "--off") == 0) {
            off = 1;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "cone: unknown option '%s'", argv[i]);
        } else if (voice) {
            return ctl__fail(err, errlen, "cone: unexpected argument '%s'", argv[i]);
        } else {
            voice = argv[i];
        }
    }
    if ((voice != NULL) + named != 1)
        return ctl__fail(err, errlen, "cone: one of VOICE, --emitter NAME or --cue NAME");
    if (voice) {
        if (ctl_parse_u64(voice, &m->voice) < 0 || m->voice == 0)
            return ctl__fail(err, errlen, "cone: VOICE must be a voice handle");
        m->target = HL_CONE_VOICE;
    }
    if (off == has_dir) return ctl__fail(err, errlen, "cone: --dir X,Y,Z or --off");
    if (off) m->dir[0] = m->dir[1] = m->dir[2] = 0.0f;
    const char *why;
    if (hl_validate_cone(m, &why) < 0) return ctl__fail(err, errlen, "cone: %s", why);
    return 0;
}

/* attenuation VOICE|--emitter NAME|--cue NAME [--kind gain|lowpass|send] --points D:V[,D:V...] |
 * --off */
int ctl__parse_atten(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_atten_t *m = &c->m.atten;
    hl_atten_init(m);
    int has_points = 0, off = 0, named = 0;
    const char *voice = NULL, *v;
    for (int i = 1; i < argc; i++) {
        int r;
        if ((r = ctl__opt_val(argc, argv, &i, "--points", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "attenuation: --points needs D:DB,...");
            char buf[512];
            snprintf(buf, sizeof buf, "%s", v);
            m->npoints = 0;
            for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
                 t = strtok_r(NULL, ",", &save)) {
                char *colon = strchr(t, ':');
                if (!colon || m->npoints >= HL_ATTEN_POINTS)
                    return ctl__fail(err, errlen, "--points: up to 8 D:VALUE pairs");
                *colon = '\0';
                if (ctl_parse_float(t, &m->dist[m->npoints]) < 0 ||
                    ctl_parse_float(colon + 1, &m->gain_db[m->npoints]) < 0)
                    return ctl__fail(err, errlen, "--points: '%s': numbers D:VALUE", t);
                m->npoints++;
            }
            has_points = 1;
        } else if ((r = ctl__name_opt(argc, argv, &i, "--emitter", m->name, sizeof m->name, err,
                                      errlen)) != 0) {
            if (r < 0) return -1;
            m->target = HL_CONE_EMITTER;
            named++;
        } else if ((r = ctl__name_opt(argc, argv, &i, "--cue", m->name, sizeof m->name, err,
                                      errlen)) != 0) {
            if (r < 0) return -1;
            m->target = HL_CONE_CUE;
            named++;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--kind", &v)) != 0) {
            static const char *const kinds[] = {"gain", "lowpass", "send"};
            int k = 0;
            while (k < 3 && (r < 0 || strcmp(v, kinds[k]) != 0))
                k++;
            if (k == 3) return ctl__fail(err, errlen, "attenuation: --kind gain|lowpass|send");
            m->kind = (uint8_t)k;
        } else if (strcmp(argv[i], "--off") == 0) {
            off = 1;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "attenuation: unknown option '%s'", argv[i]);
        } else if (voice) {
            return ctl__fail(err, errlen, "attenuation: unexpected argument '%s'", argv[i]);
        } else {
            voice = argv[i];
        }
    }
    if ((voice != NULL) + named != 1)
        return ctl__fail(err, errlen, "attenuation: one of VOICE, --emitter NAME or --cue NAME");
    if (voice) {
        if (ctl_parse_u64(voice, &m->voice) < 0 || m->voice == 0)
            return ctl__fail(err, errlen, "attenuation: VOICE must be a voice handle");
        m->target = HL_CONE_VOICE;
    }
    if (off == has_points) return ctl__fail(err, errlen, "attenuation: --points or --off");
    if (off) m->npoints = 0;
    const char *why;
    if (hl_validate_atten(m, &why) < 0) return ctl__fail(err, errlen, "attenuation: %s", why);
    return 0;
}
