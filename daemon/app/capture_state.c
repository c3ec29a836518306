/*
 * capture_state.c - a capture's state preamble (capture.h): when CAPTURE
 * starts a capture on a running daemon, what was defined before it -- the
 * buses with their sends, effects and ducking, game parameters and their
 * values, snapshots, the bindings of buses and snapshots, the sounds and
 * banks loaded, categories, cues with their cones, curves and bindings,
 * the listeners -- and the voices playing then are written as STATE
 * records (REQUEST records with flag HLD_CAPTURE_REQ_STATE) after the open
 * connections' HELLOs and before the CAPTURE request: each the request
 * that sets it again, from the client that owns it, so a replay that sends
 * them in order starts from the same engine state (PROTOCOL.md "The state
 * preamble"; the voices only approximately: each is played again where it
 * was, with a click-free seek).
 *
 * Built on the main thread from the main thread's own state (the
 * registries, the mixer's control-side copies), queued through the
 * writer's bounded queue as every record is. An object of a connection
 * that is open goes as that connection's request; the daemon's (owner 0:
 * its configuration, a gone control client's) as the request of client 0,
 * a control connection the preamble opens (a HELLO with flag OPEN) and
 * closes at its end (a CLOSE record), as a control client leaves its
 * objects to the daemon. What a default daemon has already (the default
 * buses at 0 dB, the listener at the origin) is not written.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "dispatch_int.h"
#include "hl_mixer.h"
#include "hld_limits.h"

typedef struct {
    hld_daemon_t *d;
    uint64_t frame;
    int state_open; /* client 0's HELLO is written */
    uint32_t records;
    hl_wbuf_t w;
    uint8_t body[HL_MAX_FRAME];
} pre_t;

/* 1 if connection `id` is open (past its HELLO). */
static int open_conn(const pre_t *p, uint32_t id) {
    hld_conn_t *c = id ? hld_conn_find(&p->d->net, id) : NULL;
    return c && c->hello && !c->closing;
}

/* The connection an object of `owner` is recreated by: the owner if it is
 * open, else client 0 (the daemon's), opened on first use. */
static uint32_t by(pre_t *p, uint32_t owner) {
    if (open_conn(p, owner)) return owner;
    if (!p->state_open) {
        hl_hello_t m = {
            .version = HL_PROTO_VERSION, .flags = HL_HELLO_CONTROL, .minor = HL_PROTO_MINOR};
        snprintf(m.client_name, sizeof m.client_name, "heliod-state");
        uint8_t body[128];
        hl_wbuf_t w;
        hl_wbuf_init(&w, body, sizeof body);
        hl_put_hello(&w, &m);
        hl_frame_hdr_t h = {.size = (uint32_t)(HL_FRAME_HDR + w.len), .op = HL_OP_HELLO};
        hld_capture_request(p->d->capture, p->frame, HLD_CAPTURE_REQ_OPEN, 0, 0, 0, &h, body,
                            w.len);
        hld_capture_process(p->d->capture, 0, 0);
        p->state_open = 1;
    }
    return 0;
}

static hl_wbuf_t *begin(pre_t *p) {
    hl_wbuf_init(&p->w, p->body, sizeof p->body);
    return &p->w;
}

/* The request begun with begin() as a STATE record of the connection
 * that recreates an object of `owner`'s (header flags `flags`; voice: the
 * handle a PLAY's REPLY record names, else 0). */
static void emit_rec(pre_t *p, uint32_t owner, uint16_t op, uint16_t flags, uint64_t voice) {
    if (p->w.err) return;
    uint32_t client = by(p, owner);
    hl_frame_hdr_t h = {.size = (uint32_t)(HL_FRAME_HDR + p->w.len), .op = op, .flags = flags};
    hld_capture_request(p->d->capture, p->frame, HLD_CAPTURE_REQ_STATE, client, 0, voice, &h,
                        p->body, p->w.len);
    p->records++;
}

static void emit(pre_t *p, uint32_t owner, uint16_t op) {
    emit_rec(p, owner, op, 0, 0);
}

static int live(uint32_t owner) {
    return owner != HLD_OWNER_GONE;
}

/* 1 if bus index `bus` is still the bus called name and in the preamble
 * (a setting or binding that names a bus since gone is left out). */
static int bus_live(const pre_t *p, int bus, const char *name) {
    const hld_bus_t *e = hld_bus_at(&p->d->buses, bus);
    return e && live(e->owner) && !strcmp(hld_bus_name(&p->d->buses, bus), name);
}

/* ---- the mixer graph --------------------------------------------------------- */

static void bus_req(pre_t *p, uint32_t owner, const char *name, uint32_t mask,
                    const hl_bus_t *src) {
    hl_bus_t m = *src;
    snprintf(m.name, sizeof m.name, "%s", name);
    m.mask = mask;
    hl_put_bus(begin(p), &m);
    emit(p, owner, HL_OP_BUS);
}

/* One bus (or the master, bus HLD_BUS_MASTER): created under its parent
 * unless a daemon has it anyway, then its fader and mute if not the
 * defaults. */
static void state_bus(pre_t *p, int bus) {
    hld_daemon_t *d = p->d;
    hld_bus_t *e = hld_bus_at(&d->buses, bus);
    uint32_t owner = e->owner, mask = 0;
    hl_bus_t m;
    hl_bus_init(&m);
    if (bus != HLD_BUS_MASTER) {
        snprintf(m.parent, sizeof m.parent, "%s",
                 e->parent == HLD_BUS_MASTER ? "" : hld_bus_name(&d->buses, e->parent));
        if (bus >= HL_NUM_BUSES) /* the default buses (0..3) always exist */
            bus_req(p, owner, e->name, HL_BUS_CREATE, &m);
        else if (e->parent != HLD_BUS_MASTER)
            mask |= HL_BUS_PARENT;
    }
    int k = bus + 1; /* the snapshots' base fader: what clients set, unblended */
    float g = d->snaps.base_set[k] ? d->snaps.base_db[k]
                                   : 20.0f * log10f(hl_mixer_get_bus_gain(d->engine.mixer, bus));
    m.gain_db = isfinite(g) ? (g < HL_MIN_DB ? HL_MIN_DB : g) : HL_MIN_DB;
    m.mute = (uint8_t)hl_mixer_get_bus_mute(d->engine.mixer, bus);
    mask |= (m.gain_db != 0.0f ? HL_BUS_GAIN : 0) | (m.mute ? HL_BUS_MUTE : 0);
    if (mask) bus_req(p, owner, e->name, mask, &m);
}

/* Buses parents first, then their sends, effects and ducking rules. */
static void state_graph(pre_t *p) {
    hld_buses_t *b = &p->d->buses;
    int order[HL_MAX_BUSES + 1], n = 0, head = 0;
    order[n++] = HLD_BUS_MASTER;
    while (head < n) {
        int par = order[head++];
        for (int i = 0; i < HL_MAX_BUSES; i++)
            if (b->bus[i].name[0] && b->bus[i].parent == par && live(b->bus[i].owner))
                order[n++] = i;
    }
    for (int i = 0; i < n; i++)
        state_bus(p, order[i]);
    for (int i = 1; i < n; i++) {
        const hld_bus_t *e = &b->bus[order[i]];
        for (int k = 0; k < HL_BUS_SENDS; k++) {
            const hld_bus_t *to = e->send_to[k] >= 0 ? hld_bus_at(b, e->send_to[k]) : NULL;
            const char *t = to && live(to->owner) ? hld_bus_name(b, e->send_to[k]) : NULL;
            if (!t) continue;
            hl_bus_t m;
            hl_bus_init(&m);
            snprintf(m.send, sizeof m.send, "%s", t);
            m.send_db = e->send_db[k];
            bus_req(p, e->owner, e->name, HL_BUS_SEND, &m);
        }
    }
    for (int i = 0; i < n; i++) {
        const hld_bus_t *e = hld_bus_at(b, order[i]);
        for (uint32_t k = 0; k < e->nfx; k++) {
            const hld_fx_t *fx = e->fx[k];
            hl_fx_req_t m;
            hl_fx_req_init(&m);
            m.action = HL_FX_ADD;
            snprintf(m.bus, sizeof m.bus, "%s", e->name);
            m.index = k;
            m.kind = fx->kind;
            m.type = fx->type;
            m.mask = (fx->kind == HL_FXK_EQ ? 0x7u : 0x3Fu) |
                     (fx->kind == HL_FXK_COMP ? 0u : HL_FXP_TYPE);
            memcpy(m.p, fx->p, sizeof m.p);
            hl_put_fx_req(begin(p), &m);
            emit(p, e->owner, HL_OP_FX);
        }
    }
    for (int i = 0; i < HL_MAX_DUCKS; i++) {
        if (!b->duck_used[i]) continue;
        const hld_bus_t *e = hld_bus_at(b, b->duck_bus[i]), *by_bus = hld_bus_at(b, b->duck_by[i]);
        if (!e || !live(e->owner) || !by_bus || !live(by_bus->owner)) continue;
        hl_put_duck_rule(begin(p), &b->duck[i]);
        emit(p, e->owner, HL_OP_DUCK);
    }
}

/* ---- parameters, snapshots, bindings ------------------------------------------ */

static void state_params(pre_t *p) {
    hld_params_t *ps = &p->d->params;
    for (uint32_t i = 0; i < ps->n; i++) {
        const hld_param_t *e = ps->p[i];
        if (!e || !e->def.name[0] || !live(e->owner)) continue;
        hl_put_param_def(begin(p), &e->def);
        emit(p, e->owner, HL_OP_PARAM_DEF);
        if (e->g.target == e->def.def) continue;
        hl_param_t m;
        hl_param_init(&m);
        snprintf(m.name, sizeof m.name, "%s", e->def.name);
        m.scope = HL_PSCOPE_GLOBAL;
        m.value = e->g.target; /* seeking: it seeks there from its default again */
        hl_put_param(begin(p), &m);
        emit(p, e->owner, HL_OP_PARAM);
    }
}

static void snap_req(pre_t *p, uint32_t owner, const hl_snapshot_t *m) {
    hl_put_snapshot(begin(p), m);
    emit(p, owner, HL_OP_SNAPSHOT);
}

/* Each snapshot: defined, its settings, and an active one started at the
 * intensity it has now, then gliding where it was going (or stopping)
 * over the frames its glide had left. */
static void state_snapshots(pre_t *p) {
    hld_snaps_t *s = &p->d->snaps;
    for (int i = 0; i < HL_MAX_SNAPSHOTS; i++) {
        const hld_snap_t *e = &s->s[i];
        if (!e->name[0] || !live(e->owner)) continue;
        uint32_t owner = e->owner;
        hl_snapshot_t m;
        hl_snapshot_init(&m);
        snprintf(m.name, sizeof m.name, "%s", e->name);
        m.action = HL_SNAP_DEFINE;
        m.priority = e->priority;
        m.fade_ms = e->fade_ms;
        snap_req(p, owner, &m);
        m.action = HL_SNAP_SET;
        for (uint32_t k = 0; k < e->nset; k++) {
            const hld_snap_set_t *x = &e->set[k];
            if (!bus_live(p, x->bus, x->bus_name)) continue;
            snprintf(m.bus, sizeof m.bus, "%s", x->bus_name);
            m.target = x->target;
            m.fx_index = x->fx_index;
            m.param = x->param;
            m.value = x->value;
            snap_req(p, owner, &m);
        }
        if (!e->active) continue;
        double now = hld_snap_intensity_now(s, e);
        m.action = HL_SNAP_START;
        m.intensity = (float)(now < 0.0 ? 0.0 : now > 1.0 ? 1.0 : now);
        m.fade_ms = 0.0f;
        snap_req(p, owner, &m);
        if (p->frame >= e->f1) {
            if (!e->stopping) continue;
        } else {
            m.fade_ms = (float)((double)(e->f1 - p->frame) * 1000.0 / p->d->cfg.rate);
        }
        m.action = e->stopping ? HL_SNAP_STOP : HL_SNAP_START;
        m.intensity = (float)e->i1;
        snap_req(p, owner, &m);
    }
}

static void bind_req(pre_t *p, uint32_t owner, const char *target, uint32_t param, uint8_t prop,
                     uint8_t index, uint8_t fxp, const hld_curve_t *c) {
    hld_params_t *ps = &p->d->params;
    if (param >= ps->n || !ps->p[param] || !ps->p[param]->def.name[0]) return;
    hl_bind_t m;
    hl_bind_init(&m);
    m.action = HL_BIND_ADD;
    snprintf(m.cue, sizeof m.cue, "%s", target);
    snprintf(m.param, sizeof m.param, "%s", ps->p[param]->def.name);
    m.prop = prop;
    m.index = index;
    m.fxp = fxp;
    hld_curve_to_bind(c, &m);
    hl_put_bind(begin(p), &m);
    emit(p, owner, HL_OP_BIND);
}

/* The bindings of buses, their effects and snapshots (the parameter's
 * owner's). */
static void state_bus_binds(pre_t *p) {
    hld_params_t *ps = &p->d->params;
    for (uint32_t i = 0; i < ps->nbus; i++) {
        const hld_busbind_t *b = &ps->bus[i];
        if (b->param >= ps->n || !ps->p[b->param] || !live(ps->p[b->param]->owner)) continue;
        if (b->prop == HL_PROP_SNAPSHOT ? !hld_snaps_find(&p->d->snaps, b->bus_name)
                                        : !bus_live(p, b->bus, b->bus_name))
            continue;
        bind_req(p, ps->p[b->param]->owner, b->bus_name, b->param, b->prop, b->index, b->fxp,
                 &b->curve);
    }
}

/* ---- sounds and banks ---------------------------------------------------------- */

/* 1 if bank b is in the preamble: loading or loaded, a client's (open)
 * or the daemon's, not a world zone's (its zone loads it by the
 * listener's position). */
static int bank_in(const pre_t *p, const hld_bank_t *b) {
    return !b->tag && (b->state == HL_BANK_STATE_LOADING || b->state == HL_BANK_STATE_LOADED) &&
           (!b->ns || open_conn(p, b->ns));
}

/* 1 if sound s is in the preamble (its own LOAD, or its bank's). */
static int sound_in(const pre_t *p, const hld_sound_t *s) {
    if (s->bank) return bank_in(p, s->bank);
    return s->src && !s->orphan && !s->retired && (!s->ns || open_conn(p, s->ns));
}

/* Every sound loaded from a path, but a bank's (its bank loads it): the
 * LOAD that loads it again, followed (by the writer) by the identity of
 * its file, or its bytes with --include-audio. */
static void state_sounds(pre_t *p) {
    hld_sounds_t *s = &p->d->sounds;
    for (unsigned b = 0; b < HLD_SOUND_BUCKETS; b++)
        for (hld_sound_t *e = s->buckets[b]; e; e = e->next) {
            if (e->bank || !sound_in(p, e)) continue;
            uint32_t owner = e->ns ? e->ns : e->loader;
            hl_load_t m;
            hl_load_init(&m);
            snprintf(m.name, sizeof m.name, "%s", e->name);
            snprintf(m.path, sizeof m.path, "%s", e->src);
            m.flags = e->flags & HL_LOAD_MASK & (e->ns ? ~(uint32_t)HL_LOAD_SHARED : ~0u);
            m.offset = e->off;
            m.length = e->len;
            hl_put_load(begin(p), &m);
            emit(p, owner, HL_OP_LOAD);
        }
}

/* Banks loaded by a client or by the daemon (not a world zone's: its zone
 * loads it by the listener's position). */
static void state_banks(pre_t *p) {
    hld_banks_t *bs = &p->d->banks;
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        const hld_bank_t *b = bs->bank[i];
        if (!b || !bank_in(p, b)) continue;
        hl_bank_t m = {.action = HL_BANK_LOAD};
        snprintf(m.arg, sizeof m.arg, "%s", b->path);
        hl_put_bank(begin(p), &m);
        emit(p, b->client, HL_OP_BANK);
    }
}

/* ---- categories, cues ---------------------------------------------------------- */

static void atten_req(pre_t *p, uint32_t owner, const hld_cue_t *c, uint8_t kind, uint32_t n,
                      const float *dist, const float *v) {
    if (!n) return;
    hl_atten_t a;
    hl_atten_init(&a);
    a.target = HL_CONE_CUE;
    snprintf(a.name, sizeof a.name, "%s", c->def.name);
    a.kind = kind;
    a.npoints = (uint8_t)n;
    memcpy(a.dist, dist, sizeof a.dist);
    memcpy(a.gain_db, v, sizeof a.gain_db);
    hl_put_atten(begin(p), &a);
    emit(p, owner, HL_OP_ATTEN);
}

static void state_cues(pre_t *p) {
    hld_cues_t *cs = &p->d->cues;
    for (uint32_t i = 0; i < cs->ncats; i++) {
        const hld_category_t *c = cs->cats[i];
        if (!c || !c->def.name[0] || !live(c->owner)) continue;
        hl_put_category(begin(p), &c->def);
        emit(p, c->owner, HL_OP_CATEGORY);
    }
    for (uint32_t i = 0; i < cs->ncues; i++) {
        const hld_cue_t *c = cs->cues[i];
        if (!c || !c->def.name[0] || !live(c->owner)) continue;
        uint32_t owner = c->owner;
        hl_put_cue(begin(p), &c->def);
        emit(p, owner, HL_OP_CUE);
        if (c->cone[0] != 0.0f || c->cone[1] != 0.0f || c->cone[2] != 0.0f) {
            hl_cone_t m;
            hl_cone_init(&m);
            m.target = HL_CONE_CUE;
            snprintf(m.name, sizeof m.name, "%s", c->def.name);
            memcpy(m.dir, c->cone, sizeof m.dir);
            m.inner_deg = c->cone[3];
            m.outer_deg = c->cone[4];
            m.outer_gain = c->cone[5];
            m.outer_lp_hz = c->cone[6];
            hl_put_cone(begin(p), &m);
            emit(p, owner, HL_OP_CONE);
        }
        atten_req(p, owner, c, HL_ATTEN_GAIN, c->curve_n, c->curve_d, c->curve_db);
        atten_req(p, owner, c, HL_ATTEN_LOWPASS, c->dist_lp.n, c->dist_lp.d, c->dist_lp.v);
        atten_req(p, owner, c, HL_ATTEN_SEND, c->dist_send.n, c->dist_send.d, c->dist_send.v);
        for (uint32_t k = 0; k < c->nbinds; k++)
            bind_req(p, owner, c->def.name, c->binds[k].param, c->binds[k].prop, c->binds[k].index,
                     0, &c->binds[k].curve);
    }
}

/* ---- listeners ------------------------------------------------------------------- */

static void state_listeners(pre_t *p) {
    hl_mixer_t *mx = p->d->engine.mixer;
    static const hl_listener_state_t def = {.fwd = {0.0f, 0.0f, -1.0f}, .up = {0.0f, 1.0f, 0.0f}};
    for (uint32_t k = 0; k < HL_MIX_LISTENERS; k++) {
        hl_listener_state_t l;
        if (k == 0)
            hl_mixer_get_listener(mx, &l);
        else if (!hl_mixer_get_listener_at(mx, k, &l))
            continue;
        if (k == 0 && !memcmp(&l, &def, sizeof l)) continue;
        hl_listener_t m;
        hl_listener_init(&m);
        m.mask = HL_LIS_MASK;
        memcpy(m.pos, l.pos, sizeof m.pos);
        memcpy(m.fwd, l.fwd, sizeof m.fwd);
        memcpy(m.up, l.up, sizeof m.up);
        memcpy(m.vel, l.vel, sizeof m.vel);
        m.index = (uint8_t)k;
        m.weight = l.weight > 0.0f ? l.weight : -1.0f;
        hl_put_listener(begin(p), &m);
        emit(p, k ? p->d->lis_owner[k] : 0, HL_OP_LISTENER);
    }
}

/* ---- voices -------------------------------------------------------------------- */

/* A voice playing a sound of the preamble: a PLAY of that sound (a cue's
 * voice too: with what its cue and bindings made of it) with the gain,
 * pitch, pan or position, bus, post stage and loops it has, paused if it
 * is, starting on the capture's first frame, and a SET that seeks it to
 * where it is (click-free: approximate). Its connection's, or a detached
 * one of client 0's. */
static int state_voice(void *user, uint64_t voice, const hld_lvoice_t *lv) {
    pre_t *p = user;
    const hld_sound_t *snd = lv->snd;
    if (lv->state != HLD_LV_ACTIVE || !snd || lv->pinned || !sound_in(p, snd)) return 0;
    int mine = lv->owner && open_conn(p, lv->owner);
    uint32_t owner = mine ? lv->owner : 0;
    if (snd->ns && snd->ns != owner) return 0; /* a private sound: its client's only */
    const hld_bus_t *bus = hld_bus_at(&p->d->buses, (int)lv->p.bus);
    if (!bus || !live(bus->owner)) return 0; /* on a gone process's bus: not recreated */
    hl_voice_info_t vi;
    hld_voice_describe(p->d, voice, lv, &vi);
    hl_play_t m;
    hl_play_init(&m);
    snprintf(m.sound, sizeof m.sound, "%s", snd->name);
    m.flags = (vi.flags & (HL_PLAY_LOOP | HL_PLAY_3D | HL_PLAY_CUBIC | HL_PLAY_SINC)) |
              (mine ? 0 : HL_PLAY_DETACHED) |
              (vi.state == HL_VOICE_PAUSED || vi.state == HL_VOICE_VPAUSED ? HL_PLAY_PAUSED : 0);
    m.gain_db = vi.gain_db;
    m.pan = vi.pan;
    memcpy(m.pos, vi.pos, sizeof m.pos);
    memcpy(m.vel, lv->p.vel, sizeof m.vel);
    m.pitch = vi.pitch;
    m.priority = vi.priority;
    m.fade_in_ms = 0.0f;
    m.min_distance = lv->p.min_distance;
    m.max_distance = lv->p.max_distance;
    m.rolloff = lv->p.rolloff;
    m.model = (uint8_t)lv->p.model;
    snprintf(m.bus, sizeof m.bus, "%s", vi.bus);
    m.loop_count = lv->loops_left > 0 ? (uint32_t)lv->loops_left : 0;
    m.post = vi.post;
    m.lfe = lv->p.lfe;
    m.pan_law = (uint8_t)lv->p.pan_law;
    hl_wbuf_t *w = begin(p);
    hl_put_u64(w, p->frame);
    hl_put_play(w, &m);
    emit_rec(p, owner, HL_OP_PLAY, HL_FLAG_AT, voice); /* on the first frame */
    if (vi.position_s <= 0.0) return 0;
    hl_set_t s;
    hl_set_init(&s);
    s.voice = voice;
    s.mask = HL_SET_SEEK;
    s.seek_s = vi.position_s;
    w = begin(p);
    hl_put_u64(w, p->frame);
    hl_put_set(w, &s);
    emit_rec(p, owner, HL_OP_SET, HL_FLAG_AT, 0);
    return 0;
}

uint32_t hld_capture_state(hld_daemon_t *d, uint64_t frame) {
    static pre_t p; /* main thread only; HL_MAX_FRAME bytes of body */
    memset(&p, 0, offsetof(pre_t, body));
    p.d = d;
    p.frame = frame;
    if (!d->capture) return 0;
    state_graph(&p);
    state_params(&p);
    state_snapshots(&p);
    state_bus_binds(&p);
    state_sounds(&p);
    state_banks(&p);
    state_cues(&p);
    state_listeners(&p);
    hld_vm_foreach(d->vm, state_voice, &p);
    if (p.state_open) hld_capture_close(d->capture, frame, 0, 0);
    return p.records;
}
