/*
 * cue_ops.c - the requests on cue definitions: CUE and CATEGORY define or
 * redefine one (cues.h validates every field), CUES lists every cue and
 * category with its counters, CUES_LOAD applies a cue sheet from a file all
 * or nothing. Admission itself is the voice manager's (vm.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banks.h"
#include "dispatch_int.h"
#include "clients.h"
#include "fileio.h"
#include "hl_mixer.h"
#include "params.h"

/* The bus and the send buses of a cue must exist; cues.c does not know
 * the buses. */
static int bus_ok(hld_req_t *q, const hl_cue_t *m) {
    const hld_buses_t *b = &q->c->d->buses;
    const char *bad = hld_bus_index(b, m->bus) < 0 ? m->bus : NULL;
    for (int i = 0; i < HL_VOICE_SENDS && !bad; i++)
        if (m->post.send[i][0] && hld_bus_index(b, m->post.send[i]) < 0) bad = m->post.send[i];
    if (!bad) return 1;
    char msg[HL_MAX_MSG + 1];
    snprintf(msg, sizeof msg, "bus: no bus named %s", bad);
    hld_fail(q, HELIOD_ENOBUS, msg);
    return 0;
}

/* A cue joins a category's limit: its voices count there and the
 * category's policy may replace the oldest of them. So a cue may name the
 * daemon's categories (shared) and those its client may change, not
 * another live client's (a stranger's cue could evict its voices). */
static int category_ok(hld_req_t *q, const hl_cue_t *m) {
    const hld_category_t *cat =
        m->category[0] ? hld_cues_find_category_in(&q->c->d->cues, m->category, hld_ns_rank, q->c)
                       : NULL;
    if (!cat || !cat->owner) return 1;
    return hld_may_change(q, cat->owner, "category", cat->def.name);
}

/* Room for one more object of that kind in the client's quota, else the
 * EQUOTA reply is queued and 0 returned. */
static int obj_room(hld_req_t *q, int kind) {
    char msg[HL_MAX_MSG + 1];
    int rc = q->c->cl ? hld_client_check_obj(q->c->cl, kind, msg, sizeof msg) : 0;
    if (rc == 0) return 1;
    hld_fail(q, rc, msg);
    return 0;
}

int hld_op_cue(hld_req_t *q) {
    hl_cue_t m;
    hl_get_cue(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_cue(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    if (!bus_ok(q, &m)) return 0;
    hld_cue_t *old = hld_cues_find_in(&q->c->d->cues, m.name, hld_ns_rank, q->c);
    if (old && !hld_may_change(q, old->owner, "cue", m.name)) return 0;
    if (!old && !obj_room(q, HLD_QUOTA_CUES)) return 0;
    if (!category_ok(q, &m)) return 0;
    hld_cue_t *e = NULL;
    hld_category_t *cat =
        m.category[0] ? hld_cues_find_category_in(&q->c->d->cues, m.category, hld_ns_rank, q->c)
                      : NULL;
    int rc = hld_cues_define_in(&q->c->d->cues, &m, old, cat, &e, &why);
    if (rc < 0) return hld_fail(q, rc, why);
    hld_take_ownership(q, &e->owner, HLD_QUOTA_CUES, !old);
    return hld_reply_ok(q);
}

int hld_op_category(hld_req_t *q) {
    hl_category_t m;
    hl_get_category(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_category(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_category_t *old = hld_cues_find_category_in(&q->c->d->cues, m.name, hld_ns_rank, q->c);
    if (old && !hld_may_change(q, old->owner, "category", m.name)) return 0;
    if (!old && !obj_room(q, HLD_QUOTA_CATEGORIES)) return 0;
    hld_category_t *e = NULL;
    int rc = hld_cues_define_category_in(&q->c->d->cues, &m, old, &e, &why);
    if (rc < 0) return hld_fail(q, rc, why);
    hld_take_ownership(q, &e->owner, HLD_QUOTA_CATEGORIES, !old);
    return hld_reply_ok(q);
}

int hld_op_cues(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_cues_t *cs = &q->c->d->cues;
    hld_vm_count_virtual(q->c->d->vm);
    hld_list_t l;
    hld_list_begin(&l, q);
    int full = 0;
    /* a plain client lists what its names resolve to: its own process's and
     * the shared ones; a control client every namespace */
    for (uint32_t i = 0; i < cs->ncats && !full; i++) {
        if (!hld_ns_rank(q->c, cs->cats[i]->owner)) continue;
        hl_cue_info_t ci = {.kind = HL_CUES_KIND_CATEGORY, .n = cs->cats[i]->n};
        hl_cue_init(&ci.cue);
        ci.cat = cs->cats[i]->def;
        size_t before = q->w.len;
        hl_put_cue_info(&q->w, &ci);
        full = hld_list_entry_done(&l, before);
    }
    for (uint32_t i = 0; i < cs->ncues && !full; i++) {
        if (!hld_ns_rank(q->c, cs->cues[i]->owner)) continue;
        hl_cue_info_t ci = {.kind = HL_CUES_KIND_CUE, .cue = cs->cues[i]->def, .n = cs->cues[i]->n};
        hl_category_init(&ci.cat);
        size_t before = q->w.len;
        hl_put_cue_info(&q->w, &ci);
        full = hld_list_entry_done(&l, before);
    }
    return hld_list_end(&l);
}

/* A cue's distance low-pass or send curve after CUE_DETAIL's BIND bodies,
 * as the ATTEN (target cue) that sets it again; none: nothing. */
static void put_dist_curve(hl_wbuf_t *w, const hld_cue_t *cue, uint8_t kind, uint32_t n,
                           const float *dist, const float *v) {
    if (n == 0) return;
    hl_atten_t a;
    hl_atten_init(&a);
    a.target = HL_CONE_CUE;
    memcpy(a.name, cue->def.name, sizeof a.name);
    a.npoints = (uint8_t)n;
    memcpy(a.dist, dist, sizeof a.dist);
    memcpy(a.gain_db, v, sizeof a.gain_db);
    a.kind = kind;
    hl_put_atten(w, &a);
}

/* CUE_DETAIL: what CUE does not carry, in the form BIND, CONE and ATTEN
 * set it: the cone and the curve, then one BIND body (action add) per
 * binding, its parameter by name, then an ATTEN body (target cue) for its
 * distance low-pass and one for its distance send curve, each if it has
 * one (later 1.1: an older reader stops after the BINDs). Any client may
 * read what it may play. */
int hld_op_cue_detail(hld_req_t *q) {
    hl_name_t m;
    hl_get_name(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_daemon_t *d = q->c->d;
    const hld_cue_t *cue = hld_cues_find_in(&d->cues, m.name, hld_ns_rank, q->c);
    if (!cue) return hld_fail_unknown(q, HELIOD_ENOSOUND, "cue", m.name);
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hl_cue_detail_t r;
    hl_cue_detail_init(&r);
    memcpy(r.name, cue->def.name, sizeof r.name);
    if (cue->cone[0] != 0.0f || cue->cone[1] != 0.0f || cue->cone[2] != 0.0f) { /* a cone */
        memcpy(r.cone_dir, cue->cone, sizeof r.cone_dir);
        r.inner_deg = cue->cone[3];
        r.outer_deg = cue->cone[4];
        r.outer_gain = cue->cone[5];
        r.outer_lp_hz = cue->cone[6];
    }
    r.npoints = (uint8_t)cue->curve_n;
    memcpy(r.dist, cue->curve_d, sizeof r.dist);
    memcpy(r.gain_db, cue->curve_db, sizeof r.gain_db);
    for (uint32_t i = 0; i < cue->nbinds; i++)
        r.nbinds += cue->binds[i].param < d->params.n;
    hld_reply_begin(q);
    hl_put_cue_detail(&q->w, &r);
    for (uint32_t i = 0; i < cue->nbinds; i++) {
        const hld_bind_t *b = &cue->binds[i];
        if (b->param >= d->params.n) continue;
        hl_bind_t e;
        hl_bind_init(&e);
        e.action = HL_BIND_ADD;
        memcpy(e.cue, cue->def.name, sizeof e.cue);
        memcpy(e.param, d->params.p[b->param]->def.name, sizeof e.param);
        e.prop = b->prop;
        e.index = b->index;
        hld_curve_to_bind(&b->curve, &e);
        hl_put_bind(&q->w, &e);
    }
    put_dist_curve(&q->w, cue, HL_ATTEN_LOWPASS, cue->dist_lp.n, cue->dist_lp.d, cue->dist_lp.v);
    put_dist_curve(&q->w, cue, HL_ATTEN_SEND, cue->dist_send.n, cue->dist_send.d, cue->dist_send.v);
    hld_reply_end(q);
    return 0;
}

/* One SHEET_KEYS entry; 1 once the list is full. */
static int put_sheet_key(hld_req_t *q, hld_list_t *l, uint8_t section, const char *name,
                         const char *key, const char *value) {
    hl_sheet_key_t e = {.section = section};
    snprintf(e.name, sizeof e.name, "%s", name);
    snprintf(e.key, sizeof e.key, "%s", key);
    snprintf(e.value, sizeof e.value, "%s", value);
    size_t before = q->w.len;
    hl_put_sheet_key(&q->w, &e);
    return hld_list_entry_done(l, before);
}

/* SHEET_KEYS: what only a cue sheet sets, as its lines: each cue's tempo
 * map, then each [music NAME] section's states, layers and transitions;
 * what this client sees (as CUES lists). */
int hld_op_sheet_keys(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    const hld_cues_t *cs = &q->c->d->cues;
    hld_list_t l;
    hld_list_begin(&l, q);
    int full = 0;
    char v[HL_MAX_MSG + 1];
    for (uint32_t i = 0; i < cs->ncues && !full; i++) {
        const hld_cue_t *c = cs->cues[i];
        if (!c->def.name[0] || !hld_ns_rank(q->c, c->owner)) continue;
        for (unsigned k = 0; !full && hld_tempo_line(&c->tempo, k, v, sizeof v) == 0; k++)
            full = put_sheet_key(q, &l, HL_SHEET_CUE, c->def.name, k ? "tempo-change" : "tempo", v);
    }
    for (uint32_t i = 0; i < cs->nmusic && !full; i++) {
        const hld_music_t *m = cs->music[i];
        if (!hld_ns_rank(q->c, m->owner)) continue;
        const char *key;
        for (unsigned k = 0; !full && hld_music_line(&m->def, k, &key, v, sizeof v) == 0; k++)
            full = put_sheet_key(q, &l, HL_SHEET_MUSIC, m->def.name, key, v);
    }
    return hld_list_end(&l);
}

/* CUES_LOAD: the sheet is read on the worker pool (fileio.h), then parsed
 * and applied here, all or nothing. */
typedef struct {
    hld_fjob_t j; /* first */
    char path[HL_MAX_PATH + 1];
    char *text;
    size_t len;
    hld_later_t l;
} cues_job_t;

static void cues_work(hld_fjob_t *j) {
    cues_job_t *c = (cues_job_t *)j;
    (void)hld_fjob_read(j, c->path, HLD_MAX_CUE_SHEET_BYTES, "cue sheet", &c->text, &c->len);
}

static void cues_done(hld_fjob_t *j) {
    cues_job_t *c = (cues_job_t *)j;
    hld_req_t q;
    if (hld_later_req(&c->l, &q)) {
        char err[HL_MAX_MSG + 1] = "";
        hl_cues_load_reply_t r = {0};
        int rc = j->answer_status;
        if (rc == 0)
            rc = hld_cues_load_mem(&c->l.c->d->cues, c->path, c->text, c->len, &r.cues,
                                   &r.categories, err, sizeof err);
        else
            snprintf(err, sizeof err, "%s", j->answer_msg);
        if (rc < 0) {
            hld_fail(&q, rc, err[0] ? err : NULL);
        } else if (!(c->l.h.flags & HL_FLAG_NOREPLY)) {
            hld_reply_begin(&q);
            hl_put_cues_load_reply(&q.w, &r);
            hld_reply_end(&q);
        }
    }
    hld_later_end(&c->l);
}

static void cues_cleanup(hld_fjob_t *j) {
    free(((cues_job_t *)j)->text);
}

int hld_op_cues_load(hld_req_t *q) {
    hl_cues_load_t m;
    hl_get_cues_load(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (m.path[0] != '/') /* the daemon's working directory is not the client's */
        return hld_fail(q, HELIOD_EINVAL, "path: must be absolute");
    if (!q->c->control) { /* a sheet redefines any name at once: the operator's tool */
        q->c->d->n.denied++;
        return hld_fail(q, HELIOD_EPERM,
                        "loading a cue sheet needs a control client (heliodctl cues-load); a "
                        "client defines its own cues with CUE and CATEGORY");
    }
    cues_job_t *c = hld_fjob_new(sizeof *c);
    if (!c) return hld_fail(q, HELIOD_ENOMEM, NULL);
    snprintf(c->path, sizeof c->path, "%s", m.path);
    c->j.work = cues_work;
    c->j.done = cues_done;
    c->j.cleanup = cues_cleanup;
    c->j.who = hld_client_who(q->c->cl);
    hld_later_begin(&c->l, q);
    hld_files_submit(&q->c->d->files, &c->j);
    return 0;
}
