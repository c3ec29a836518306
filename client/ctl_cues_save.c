/*
 * ctl_cues_save.c - `heliodctl cues save FILE`: the daemon's parameter,
 * category and cue definitions written as a cue sheet that `cues load`
 * reads back to the same definitions (README "Cue sheets").
 *
 * It reads PARAMS and CUES (every field a cue and a category are defined
 * with) and writes `[parameter NAME] MIN MAX DEFAULT SEEK` lines, then one
 * `[category NAME]` and one `[cue NAME]` section each, every key given
 * (numbers with 9 significant digits: a float reads back to the same bits),
 * in the daemon's order. Each cue's bindings, cone and attenuation curve
 * come from CUE_DETAIL (a daemon without it: the cues are saved without
 * them, and a warning says so) as `bind`, `cone`, `attenuation`,
 * `distance-lp` and `distance-send` keys.
 * Each cue's tempo map (`tempo`, `tempo-change`) and the `[music NAME]`
 * sections (after the cues) come from SHEET_KEYS as the lines a sheet gives
 * them (a daemon without it: saved without them, and a warning says so).
 * The mixer snapshots follow as `[snapshot NAME]` sections (SNAPSHOTS, and
 * SNAPSHOT_DETAIL for each one's settings).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_out.h"
#include "ctl_sheet.h"
#include "ctl_ui.h"
#include "hl_proto.h"

const char ctl_cues_save_usage[] =
    "usage: heliodctl cues save FILE\n"
    "  Write the daemon's parameter, category and cue definitions as a cue sheet\n"
    "  that `cues load FILE` reads back to the same definitions, with each cue's\n"
    "  bindings, cone, distance curves and tempo map, the music sections and the\n"
    "  mixer snapshots.\n";

static void on_list(void *user, uint32_t id, int status, const char *msg, const uint8_t *body,
                    size_t len) {
    (void)id;
    ctl_list_t *l = user;
    l->done = 1;
    l->status = status;
    if (status < 0) {
        snprintf(l->msg, sizeof l->msg, "%s", msg ? msg : "");
        return;
    }
    l->buf = malloc(len ? len : 1);
    if (l->buf && len) memcpy(l->buf, body, len);
    l->len = l->buf ? len : 0;
}

/* One request (body: len bytes, may be 0); 0 with l filled, or an error. */
int ctl_fetch_body(heliod_t *h, uint16_t op, const void *body, size_t len, ctl_list_t *l) {
    memset(l, 0, sizeof *l);
    int rc = heliod_raw_async(h, op, body, len, on_list, l);
    if (rc >= 0) rc = heliod_sync(h);
    if (rc < 0) return rc;
    hl_rbuf_init(&l->r, l->buf, l->len);
    return l->status < 0 ? l->status : 0;
}

int ctl_fetch(heliod_t *h, uint16_t op, ctl_list_t *l) {
    return ctl_fetch_body(h, op, NULL, 0, l);
}

int ctl_fetch_name(heliod_t *h, uint16_t op, const char *name, ctl_list_t *l) {
    uint8_t req[HL_MAX_NAME + 8];
    hl_wbuf_t w;
    hl_wbuf_init(&w, req, sizeof req);
    hl_name_t n;
    snprintf(n.name, sizeof n.name, "%s", name);
    hl_put_name(&w, &n);
    return ctl_fetch_body(h, op, req, w.len, l);
}

/* A binding as a sheet's `bind = PARAM PROP[:INDEX] X:Y[:SHAPE] ...`
 * (switch and blend: bare X values). */
static void put_bind(FILE *f, const hl_bind_t *b) {
    const char *prop = hl_enum_name(HL_ENUM_PROP, b->prop);
    fprintf(f, "bind = %s %s", b->param, prop ? prop : "?");
    if (b->prop == HL_PROP_SEND) fprintf(f, ":%u", (unsigned)b->index);
    int choice = b->prop == HL_PROP_SWITCH || b->prop == HL_PROP_BLEND;
    for (unsigned k = 0; k < b->npoints && k < HL_MAX_CURVE_POINTS; k++) {
        fprintf(f, " %.9g", (double)b->x[k]);
        if (choice) continue;
        fprintf(f, ":%.9g", (double)b->y[k]);
        unsigned sh = k < 16 ? (b->shapes >> (2 * k)) & 3u : 0;
        if (sh) fprintf(f, ":%s", hl_enum_name(HL_ENUM_SHAPE, (int)sh));
    }
    fprintf(f, "\n");
}

int ctl_sheet_cue_detail(FILE *f, heliod_t *h, const char *cue) {
    ctl_list_t l;
    int rc = ctl_fetch_name(h, HL_OP_CUE_DETAIL, cue, &l);
    if (rc == HELIOD_EBADOP) return 1;
    if (rc < 0) return rc;
    hl_rbuf_t *r = &l.r;
    hl_cue_detail_t d;
    hl_get_cue_detail(r, &d);
    for (unsigned i = 0; i < d.nbinds && !r->err; i++) {
        hl_bind_t b;
        hl_get_bind(r, &b);
        if (!r->err) put_bind(f, &b);
    }
    if (!r->err && (d.cone_dir[0] != 0.0f || d.cone_dir[1] != 0.0f || d.cone_dir[2] != 0.0f)) {
        fprintf(f, "cone = %.9g,%.9g,%.9g %.9g %.9g %.9g", (double)d.cone_dir[0],
                (double)d.cone_dir[1], (double)d.cone_dir[2], (double)d.inner_deg,
                (double)d.outer_deg, (double)d.outer_gain);
        if (d.outer_lp_hz != 0.0f) fprintf(f, " %.9g", (double)d.outer_lp_hz);
        fprintf(f, "\n");
    }
    for (unsigned i = 0; !r->err && i < d.npoints && i < HL_ATTEN_POINTS; i++)
        fprintf(f, "%s%.9g:%.9g", i ? " " : "attenuation = ", (double)d.dist[i],
                (double)d.gain_db[i]);
    if (!r->err && d.npoints) fprintf(f, "\n");
    while (!r->err && r->off < r->len) { /* its distance low-pass and send curves */
        hl_atten_t a;
        hl_get_atten(r, &a);
        if (r->err || a.kind == HL_ATTEN_GAIN) continue;
        const char *key = a.kind == HL_ATTEN_LOWPASS ? "distance-lp = " : "distance-send = ";
        for (unsigned i = 0; i < a.npoints && i < HL_ATTEN_POINTS; i++)
            fprintf(f, "%s%.9g:%.9g", i ? " " : key, (double)a.dist[i], (double)a.gain_db[i]);
        fprintf(f, "\n");
    }
    free(l.buf);
    return r->err ? HELIOD_EPROTO : 0;
}

static void put_name(FILE *f, const char *key, const char *v) {
    if (v[0]) fprintf(f, "%s = %s\n", key, v);
}

static void put_enum(FILE *f, const char *key, hl_enum_kind_t k, int v) {
    const char *n = hl_enum_name(k, v);
    if (n) fprintf(f, "%s = %s\n", key, n);
}

void ctl_sheet_cue(FILE *f, const hl_cue_t *c) {
    fprintf(f, "[cue %s]\n", c->name);
    if (c->nsounds) {
        fprintf(f, "sound = ");
        for (uint32_t i = 0; i < c->nsounds; i++)
            fprintf(f, "%s%s", i ? ", " : "", c->sounds[i]);
        fprintf(f, "\n");
    }
    put_enum(f, "pick", HL_ENUM_PICK, c->pick);
    fprintf(f, "gain = %.9g\ngain-rand = %.9g\npitch = %.9g\npitch-rand = %.9g\n",
            (double)c->gain_db, (double)c->gain_rand_db, (double)c->pitch,
            (double)c->pitch_rand_cents);
    put_name(f, "bus", c->bus);
    put_name(f, "category", c->category);
    fprintf(f, "priority = %d\npan = %.9g\n", (int)c->priority, (double)c->pan);
    fprintf(f, "3d = %s\nloop = %s\n", (c->flags & HL_CUE_3D) ? "yes" : "no",
            (c->flags & HL_CUE_LOOP) ? "yes" : "no");
    uint32_t in = c->flags & HL_PLAY_INTERP;
    if (in)
        fprintf(f, "interp = %s\n",
                in == HL_CUE_SINC    ? "sinc"
                : in == HL_CUE_CUBIC ? "cubic"
                                     : "linear");
    fprintf(f, "min-distance = %.9g\nmax-distance = %.9g\nrolloff = %.9g\n",
            (double)c->min_distance, (double)c->max_distance, (double)c->rolloff);
    put_enum(f, "model", HL_ENUM_MODEL, c->model);
    fprintf(f, "fade-in = %.9g\nfade-out = %.9g\n", (double)c->fade_in_ms, (double)c->fade_out_ms);
    put_enum(f, "fade-curve", HL_ENUM_CURVE, c->fade_curve);
    fprintf(f, "max-instances = %u\n", (unsigned)c->max_instances);
    put_enum(f, "overflow", HL_ENUM_OVERFLOW, c->overflow);
    fprintf(f, "min-interval = %.9g\n", (double)c->min_interval_ms);
    put_enum(f, "beyond", HL_ENUM_BEYOND, c->beyond);
    put_enum(f, "virtual", HL_ENUM_VIRT, c->virt);
    fprintf(f, "doppler = %.9g\nlp = %.9g\nhp = %.9g\nocclusion = %.9g\nobstruction = %.9g\n",
            (double)c->doppler, (double)c->post.lp_hz, (double)c->post.hp_hz,
            (double)c->post.occlusion, (double)c->post.obstruction);
    int sends = 0;
    for (int i = 0; i < HL_VOICE_SENDS; i++)
        if (c->post.send[i][0])
            fprintf(f, "%s%s:%.9g", sends++ ? ", " : "send = ", c->post.send[i],
                    (double)c->post.send_db[i]);
    if (sends) fprintf(f, "\n");
}

int ctl_sheet_settings(heliod_t *h, const char *name, ctl_setting_fn fn, void *user) {
    ctl_list_t l;
    int rc = ctl_fetch_name(h, HL_OP_SNAPSHOT_DETAIL, name, &l);
    if (rc < 0) return rc;
    hl_list_head_t head;
    hl_get_list_head(&l.r, &head);
    for (uint32_t i = 0; i < head.count && !l.r.err; i++) {
        hl_snapshot_setting_t e;
        hl_get_snapshot_setting(&l.r, &e);
        if (!l.r.err) fn(user, &e, i);
    }
    free(l.buf);
    return l.r.err ? HELIOD_EPROTO : head.truncated ? HELIOD_ETOOBIG : 0;
}

int ctl_sheet_keys(FILE *f, const ctl_list_t *keys, uint8_t section, const char *name) {
    if (!keys->buf) return 0; /* a daemon without SHEET_KEYS */
    hl_rbuf_t r;
    hl_rbuf_init(&r, keys->buf, keys->len);
    hl_list_head_t head;
    hl_get_list_head(&r, &head);
    char last[HL_MAX_NAME + 1] = "";
    for (uint32_t i = 0; i < head.count && !r.err; i++) {
        hl_sheet_key_t e;
        hl_get_sheet_key(&r, &e);
        if (r.err || e.section != section || (name && strcmp(e.name, name) != 0)) continue;
        if (!name && strcmp(e.name, last) != 0) {
            fprintf(f, "\n[music %s]\n", e.name);
            memcpy(last, e.name, sizeof last);
        }
        fprintf(f, "%s = %s\n", e.key, e.value);
    }
    return r.err ? HELIOD_EPROTO : head.truncated ? HELIOD_ETOOBIG : 0;
}

static void put_setting(void *user, const hl_snapshot_setting_t *e, uint32_t i) {
    (void)i;
    FILE *f = user;
    if (e->target == HL_SNAPT_GAIN && isinf(e->value))
        fprintf(f, "gain = %s -inf\n", e->bus);
    else if (e->target == HL_SNAPT_GAIN)
        fprintf(f, "gain = %s %.9g\n", e->bus, (double)e->value);
    else if (e->target == HL_SNAPT_MUTE)
        fprintf(f, "mute = %s %s\n", e->bus, e->value != 0.0f ? "on" : "off");
    else
        fprintf(f, "fx = %s %u %u %.9g\n", e->bus, (unsigned)e->fx_index, (unsigned)e->param,
                (double)e->value);
}

int ctl_sheet_snapshot(FILE *f, heliod_t *h, const hl_snapshot_info_t *s) {
    fprintf(f, "[snapshot %s]\npriority = %d\n", s->name, (int)s->priority);
    if (s->fade_ms >= 0.0f) fprintf(f, "fade = %.9g\n", (double)s->fade_ms);
    return ctl_sheet_settings(h, s->name, put_setting, f);
}

/* The snapshots (none from a daemon without SNAPSHOTS: a 1.0 one). */
static int put_snapshots(FILE *f, heliod_t *h) {
    ctl_list_t l;
    int rc = ctl_fetch(h, HL_OP_SNAPSHOTS, &l);
    if (rc == HELIOD_EBADOP) return 0;
    if (rc < 0) return rc;
    hl_rbuf_t r;
    hl_rbuf_init(&r, l.buf, l.len);
    hl_list_head_t head;
    hl_get_list_head(&r, &head);
    for (uint32_t i = 0; i < head.count && !r.err && rc == 0; i++) {
        hl_snapshot_info_t s;
        hl_get_snapshot_info(&r, &s);
        if (!r.err) {
            fputc('\n', f);
            rc = ctl_sheet_snapshot(f, h, &s);
        }
    }
    free(l.buf);
    if (rc == 0 && (r.err || head.truncated)) rc = r.err ? HELIOD_EPROTO : HELIOD_ETOOBIG;
    return rc;
}

static int save(heliod_t *h, const char *path) {
    ctl_list_t cues, params, keys = {0};
    int rc = ctl_fetch(h, HL_OP_PARAMS, &params);
    if (rc == 0) rc = ctl_fetch(h, HL_OP_CUES, &cues);
    int old_keys = rc == 0 ? ctl_fetch(h, HL_OP_SHEET_KEYS, &keys) : 0;
    if (old_keys == HELIOD_EBADOP) { /* an older daemon: no tempo maps nor music saved */
        free(keys.buf);
        memset(&keys, 0, sizeof keys);
        ctl_errorf("cues save: warning: this heliod cannot read back tempo maps and music "
                   "sections (no SHEET_KEYS): %s lacks them",
                   path);
    } else if (old_keys < 0) {
        rc = old_keys;
    }
    if (rc < 0) {
        free(keys.buf);
        ctl_errorf("cues save: %s", heliod_strerror(rc));
        return CTL_EXIT_FAIL;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        ctl_errorf("cues save: %s: %s", path, strerror(errno));
        free(params.buf);
        free(cues.buf);
        free(keys.buf);
        return CTL_EXIT_FAIL;
    }
    fprintf(f, "# heliodctl cues save: parameters, categories and cues\n");
    hl_rbuf_t r;
    hl_list_head_t head;
    int truncated = 0, no_detail = 0, detail_rc = 0;
    hl_rbuf_init(&r, params.buf, params.len);
    hl_get_list_head(&r, &head);
    truncated |= head.truncated;
    for (uint32_t i = 0; i < head.count && !r.err; i++) {
        hl_param_info_t p;
        hl_get_param_info(&r, &p);
        if (!r.err)
            fprintf(f, "[parameter %s] %.9g %.9g %.9g %.9g\n", p.def.name, (double)p.def.min,
                    (double)p.def.max, (double)p.def.def, (double)p.def.seek);
    }
    int bad = r.err != 0;
    hl_rbuf_init(&r, cues.buf, cues.len);
    hl_get_list_head(&r, &head);
    truncated |= head.truncated;
    for (int pass = 0; pass < 2 && !bad; pass++) { /* categories first: cues name them */
        hl_rbuf_init(&r, cues.buf, cues.len);
        hl_get_list_head(&r, &head);
        for (uint32_t i = 0; i < head.count && !r.err; i++) {
            hl_cue_info_t e;
            hl_get_cue_info(&r, &e);
            if (r.err) break;
            if (pass == 0 && e.kind == HL_CUES_KIND_CATEGORY) {
                fprintf(f, "\n[category %s]\nmax-instances = %u\n", e.cat.name,
                        (unsigned)e.cat.max_instances);
                put_enum(f, "overflow", HL_ENUM_OVERFLOW, e.cat.overflow);
                fprintf(f, "fade-out = %.9g\n", (double)e.cat.fade_out_ms);
                put_enum(f, "fade-curve", HL_ENUM_CURVE, e.cat.fade_curve);
            } else if (pass == 1 && e.kind == HL_CUES_KIND_CUE) {
                fputc('\n', f);
                ctl_sheet_cue(f, &e.cue);
                int d = no_detail ? 1 : ctl_sheet_cue_detail(f, h, e.cue.name);
                if (d < 0) detail_rc = d;
                int t = ctl_sheet_keys(f, &keys, HL_SHEET_CUE, e.cue.name); /* its tempo map */
                if (t < 0) detail_rc = t;
                if (d == 1 && !no_detail++)
                    ctl_errorf("cues save: warning: this heliod cannot read back bindings, "
                               "cones and attenuation curves (no CUE_DETAIL): %s lacks them",
                               path);
            }
        }
        bad |= r.err != 0;
    }
    free(params.buf);
    free(cues.buf);
    if (!bad && detail_rc == 0) detail_rc = ctl_sheet_keys(f, &keys, HL_SHEET_MUSIC, NULL);
    free(keys.buf);
    if (!bad && detail_rc == 0) detail_rc = put_snapshots(f, h);
    if (fclose(f) != 0 || bad || detail_rc < 0) {
        ctl_errorf("cues save: %s: %s", path,
                   detail_rc < 0 ? heliod_strerror(detail_rc)
                   : bad         ? "malformed reply"
                                 : strerror(errno));
        return CTL_EXIT_FAIL;
    }
    if (truncated) {
        ctl_errorf("cues save: the daemon's list was truncated: %s is incomplete", path);
        return CTL_EXIT_FAIL;
    }
    return 0;
}

int ctl_sheet_connect(const char *socket, heliod_t **h) {
    *h = NULL;
    if (heliod_connect_flags(h, socket, "heliodctl", HELIOD_CONNECT_CONTROL) >= 0) return 0;
    ctl_errorf("%s", heliod_last_error(NULL));
    *h = NULL;
    return -1;
}

int ctl_cues_save_main(int argc, char **argv, const char *socket) {
    /* argv: cues save FILE */
    if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
        fputs(ctl_cues_save_usage, stdout);
        return 0;
    }
    if (argc != 3 || argv[2][0] == '-') {
        fputs(ctl_cues_save_usage, stderr);
        return CTL_EXIT_USAGE;
    }
    heliod_t *h = NULL;
    if (ctl_sheet_connect(socket, &h) != 0) return CTL_EXIT_FAIL;
    int rc = save(h, argv[2]);
    heliod_close(h);
    return rc;
}
