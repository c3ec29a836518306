/*
 * ctl_show.c - `heliodctl cue show NAME [--json]` and `heliodctl snapshot
 * show NAME [--json]`: one cue's or one snapshot's whole definition, read
 * back from the daemon (CUES and CUE_DETAIL; SNAPSHOTS and SNAPSHOT_DETAIL).
 * Text: the cue-sheet section `cues load` reads back to the same definition
 * (the one `cues save` writes for it); --json: one JSON object.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_out.h"
#include "ctl_sheet.h"
#include "ctl_ui.h"
#include "hl_proto.h"

const char ctl_cue_show_usage[] =
    "usage: heliodctl cue show NAME [--json]\n"
    "  A cue's whole definition: its settings, parameter bindings, cone,\n"
    "  distance curves (gain, low-pass, send) and tempo map, as the [cue NAME]\n"
    "  section `cues load` reads back (the one `cues save` writes); --json: one\n"
    "  JSON object (settings, bindings, cone and gain curve). Needs protocol 1.1\n"
    "  for the bindings, cone, curves and tempo map.\n";

const char ctl_snapshot_show_usage[] =
    "usage: heliodctl snapshot show NAME [--json]\n"
    "  A mixer snapshot's definition: priority, fade and every setting, as the\n"
    "  [snapshot NAME] section `cues load` reads back, with its state and\n"
    "  intensity now as a comment; --json: one JSON object.\n";

/* The entry called `name` of a CUES (a cue: *cue) or SNAPSHOTS (*snap)
 * list: 0, 1 if it has none, or an error. */
static int find_entry(heliod_t *h, const char *name, hl_cue_t *cue, hl_snapshot_info_t *snap) {
    ctl_list_t l;
    int rc = ctl_fetch(h, cue ? HL_OP_CUES : HL_OP_SNAPSHOTS, &l);
    if (rc < 0) return rc;
    hl_list_head_t head;
    hl_get_list_head(&l.r, &head);
    rc = 1;
    for (uint32_t i = 0; i < head.count && !l.r.err && rc != 0; i++) {
        if (cue) {
            hl_cue_info_t e;
            hl_get_cue_info(&l.r, &e);
            if (!l.r.err && e.kind == HL_CUES_KIND_CUE && strcmp(e.cue.name, name) == 0) {
                *cue = e.cue;
                rc = 0;
            }
        } else {
            hl_snapshot_info_t e;
            hl_get_snapshot_info(&l.r, &e);
            if (!l.r.err && strcmp(e.name, name) == 0) {
                *snap = e;
                rc = 0;
            }
        }
    }
    if (rc != 0 && l.r.err) rc = HELIOD_EPROTO;
    free(l.buf);
    return rc;
}

static void key_enum(const char *key, hl_enum_kind_t k, int v) {
    ctl_json_key_str(key, ctl_enum_str(k, v));
}

static void cue_json(const hl_cue_t *c) {
    printf("{\"name\":");
    ctl_json_str(c->name);
    ctl_json_cue_fields(c); /* as cues --json */
    ctl_json_key_num("max_instances", c->max_instances);
    key_enum("overflow", HL_ENUM_OVERFLOW, c->overflow);
    ctl_json_key_num("lp_hz", c->post.lp_hz);
    ctl_json_key_num("hp_hz", c->post.hp_hz);
    ctl_json_key_num("occlusion", c->post.occlusion);
    ctl_json_key_num("obstruction", c->post.obstruction);
    printf(",\"sends\":[");
    for (int i = 0, n = 0; i < HL_VOICE_SENDS; i++)
        if (c->post.send[i][0]) {
            printf("%s{\"bus\":", n++ ? "," : "");
            ctl_json_str(c->post.send[i]);
            ctl_json_key_num("db", c->post.send_db[i]);
            putchar('}');
        }
    putchar(']');
}

static void bind_json(const hl_bind_t *b) {
    printf("{\"param\":");
    ctl_json_str(b->param);
    key_enum("prop", HL_ENUM_PROP, b->prop);
    ctl_json_key_num("index", b->index);
    printf(",\"points\":[");
    for (unsigned k = 0; k < b->npoints && k < HL_MAX_CURVE_POINTS; k++) {
        printf("%s{\"x\":", k ? "," : "");
        ctl_json_num(b->x[k]);
        if (b->prop != HL_PROP_SWITCH && b->prop != HL_PROP_BLEND) {
            ctl_json_key_num("y", b->y[k]);
            key_enum("shape", HL_ENUM_SHAPE, (int)((b->shapes >> (2 * k)) & 3u));
        }
        putchar('}');
    }
    printf("]}");
}

/* The CUE_DETAIL part of the object: bindings, cone, attenuation. */
static int detail_json(heliod_t *h, const char *name) {
    ctl_list_t l;
    int rc = ctl_fetch_name(h, HL_OP_CUE_DETAIL, name, &l);
    if (rc == HELIOD_EBADOP) { /* a 1.0 daemon: the cue alone */
        printf("}\n");
        return 0;
    }
    if (rc < 0) return rc;
    hl_cue_detail_t d;
    hl_get_cue_detail(&l.r, &d);
    printf(",\"binds\":[");
    for (unsigned i = 0; i < d.nbinds && !l.r.err; i++) {
        hl_bind_t b;
        hl_get_bind(&l.r, &b);
        if (l.r.err) break;
        if (i) putchar(',');
        bind_json(&b);
    }
    printf("],\"cone\":");
    if (d.cone_dir[0] != 0.0f || d.cone_dir[1] != 0.0f || d.cone_dir[2] != 0.0f) {
        printf("{\"dir\":[");
        for (int k = 0; k < 3; k++) {
            if (k) putchar(',');
            ctl_json_num(d.cone_dir[k]);
        }
        putchar(']');
        ctl_json_key_num("inner_deg", d.inner_deg);
        ctl_json_key_num("outer_deg", d.outer_deg);
        ctl_json_key_num("outer_gain", d.outer_gain);
        ctl_json_key_num("outer_lp_hz", d.outer_lp_hz);
        putchar('}');
    } else {
        printf("null");
    }
    printf(",\"attenuation\":[");
    for (unsigned i = 0; i < d.npoints && i < HL_ATTEN_POINTS; i++) {
        printf("%s{\"distance\":", i ? "," : "");
        ctl_json_num(d.dist[i]);
        ctl_json_key_num("gain_db", d.gain_db[i]);
        putchar('}');
    }
    printf("]}\n");
    rc = l.r.err ? HELIOD_EPROTO : 0;
    free(l.buf);
    return rc;
}

static int show_cue(heliod_t *h, const char *name, int json) {
    hl_cue_t c;
    int rc = find_entry(h, name, &c, NULL);
    if (rc == 1) {
        ctl_errorf("cue show: no cue named %s (heliodctl cues lists them)", name);
        return CTL_EXIT_FAIL;
    }
    if (rc == 0 && json) {
        cue_json(&c);
        rc = detail_json(h, name);
    } else if (rc == 0) {
        ctl_sheet_cue(stdout, &c);
        rc = ctl_sheet_cue_detail(stdout, h, name);
        if (rc == 1) {
            ctl_errorf("cue show: this heliod cannot read back bindings, cones and attenuation "
                       "curves (no CUE_DETAIL)");
            rc = 0;
        }
        ctl_list_t keys = {0};
        int k = rc == 0 ? ctl_fetch(h, HL_OP_SHEET_KEYS, &keys) : 0;
        if (k == 0)
            rc = ctl_sheet_keys(stdout, &keys, HL_SHEET_CUE, name); /* its tempo map */
        else if (k != HELIOD_EBADOP) /* an older daemon: no tempo map to show */
            rc = k;
        free(keys.buf);
    }
    if (rc < 0) {
        ctl_errorf("cue show: %s", heliod_strerror(rc));
        return CTL_EXIT_FAIL;
    }
    return 0;
}

static const char *snap_state(int s) {
    return s == HL_SNAP_STATE_IN    ? "in"
           : s == HL_SNAP_STATE_ON  ? "on"
           : s == HL_SNAP_STATE_OUT ? "out"
                                    : "idle";
}

static void setting_json(void *user, const hl_snapshot_setting_t *e, uint32_t i) {
    (void)user;
    printf("%s{\"bus\":", i ? "," : "");
    ctl_json_str(e->bus);
    ctl_json_key_str("target", e->target == HL_SNAPT_GAIN   ? "gain"
                               : e->target == HL_SNAPT_MUTE ? "mute"
                                                            : "fx");
    if (e->target == HL_SNAPT_FX) {
        ctl_json_key_num("fx_index", e->fx_index);
        ctl_json_key_num("param", e->param);
    }
    if (e->target == HL_SNAPT_GAIN && isinf(e->value))
        ctl_json_key_str("value", "-inf");
    else
        ctl_json_key_num("value", e->value);
    putchar('}');
}

static int show_snapshot(heliod_t *h, const char *name, int json) {
    hl_snapshot_info_t s;
    int rc = find_entry(h, name, NULL, &s);
    if (rc == 1) {
        ctl_errorf("snapshot show: no snapshot named %s (heliodctl snapshots lists them)", name);
        return CTL_EXIT_FAIL;
    }
    if (rc == 0 && !json) {
        printf("# state %s, intensity %.3f (target %.3f), owner %u\n", snap_state(s.state),
               (double)s.intensity, (double)s.target, (unsigned)s.owner);
        rc = ctl_sheet_snapshot(stdout, h, &s);
    } else if (rc == 0) {
        printf("{\"name\":");
        ctl_json_str(s.name);
        ctl_json_key_num("priority", s.priority);
        ctl_json_key_num("fade_ms", s.fade_ms);
        ctl_json_key_str("state", snap_state(s.state));
        ctl_json_key_num("intensity", s.intensity);
        ctl_json_key_num("target", s.target);
        ctl_json_key_num("owner", s.owner);
        printf(",\"settings\":[");
        rc = ctl_sheet_settings(h, name, setting_json, NULL);
        printf("]}\n");
    }
    if (rc < 0) {
        ctl_errorf("snapshot show: %s", heliod_strerror(rc));
        return CTL_EXIT_FAIL;
    }
    return 0;
}

int ctl_show_wants(int argc, char **argv) {
    /* CMD show NAME [--json]: a cue definition always has --sound, so a cue
     * named "show" is still `cue show --sound ...` */
    if (argc < 2 || strcmp(argv[1], "show") != 0) return 0;
    if (strcmp(argv[0], "cue") != 0 && strcmp(argv[0], "snapshot") != 0) return 0;
    for (int i = 2; i < argc; i++)
        if (argv[i][0] == '-' && strcmp(argv[i], "--json") != 0 && strcmp(argv[i], "--help") != 0 &&
            strcmp(argv[i], "-h") != 0)
            return 0;
    return 1;
}

int ctl_show_main(int argc, char **argv, const char *socket, int json) {
    /* argv: cue|snapshot show NAME [--json] */
    int cue = strcmp(argv[0], "cue") == 0;
    const char *usage = cue ? ctl_cue_show_usage : ctl_snapshot_show_usage;
    const char *name = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (name) {
            fputs(usage, stderr);
            return CTL_EXIT_USAGE;
        } else {
            name = argv[i];
        }
    }
    if (!name) {
        fputs(usage, stderr);
        return CTL_EXIT_USAGE;
    }
    heliod_t *h = NULL;
    if (ctl_sheet_connect(socket, &h) != 0) return CTL_EXIT_FAIL;
    int rc = cue ? show_cue(h, name, json) : show_snapshot(h, name, json);
    heliod_close(h);
    return rc;
}
