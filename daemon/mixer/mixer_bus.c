/*
 * mixer_bus.c - the mixer graph: a tree of up to HL_MAX_BUSES buses under
 * the master, each with an insert chain (hl_fx.h), gain, mute and ducking,
 * and the ducking rules between them. Both faces of one concept:
 *
 *   main thread (hl_mixer_bus_graph, _bus_fx, _fx_param, _duck, _set_bus_mute)
 *     validates, keeps the control view, pushes one command each
 *   audio thread (hl_bus_apply_rt, hl_bus_render_rt)
 *     applies the command, then per block:
 *
 *     ducks: each rule steps on the sidechain's previous block (peak and
 *            voices) -> each target's duck gain ramps over this block
 *     for b in graph.order (children before parents):
 *         acc[b] -> inserts -> gain x mute x duck (ramped) -> peak
 *                -> added into acc[parent] (or the master's)
 *     master: acc[HL_MASTER] -> inserts -> master gain x mute -> out
 *
 * A bus with inserts runs every block, silent or not (a reverb's tail, a
 * compressor's release); one without runs only when something reached it.
 * Effects are set up in memory the caller owns; the audio thread never
 * frees: an effect that leaves every chain comes back in an FX_RETIRED
 * event (at most HL_FX_RETIRE_MAX in flight, so the event ring cannot
 * fill), after which the caller frees it. Removing a bus the voices or
 * their sends still use, or that still has inserts, children or a ducking
 * rule, is refused by the control side.
 */
#include <math.h>
#include <string.h>

#include "hl_ranges.h"
#include "mixer_internal.h"

/* ---- control side ------------------------------------------------------ */

static int push(hl_mixer_t *m, hl_cmd_t *c) {
    return hl_cmd_push(m, c);
}

int hl_mixer_gain_index(const hl_mixer_t *m, int bus) {
    if (bus == -1) return HL_MASTER;
    if (bus >= 0 && bus < HL_MAX_BUSES && (m->graph_ctl.live >> bus & 1u)) return bus;
    return -1;
}

/* Folds the bus timeline's changes due by frame into its base. */
static void bus_fold(hl_mixer_t *m, uint64_t frame) {
    uint32_t k = 0;
    while (k < m->bus_n && m->bus_tl[k].frame <= frame) {
        int gi = m->bus_tl[k].gi;
        if (m->bus_tl[k].mute)
            m->bus_mute_base[gi] = m->bus_tl[k].value;
        else
            m->bus_gain_base[gi] = m->bus_tl[k].value;
        k++;
    }
    if (!k) return;
    memmove(m->bus_tl, m->bus_tl + k, (m->bus_n - k) * sizeof m->bus_tl[0]);
    m->bus_n -= k;
}

/* Puts a gain or mute change pushed now on the timeline, at its frame. */
static void bus_timeline(hl_mixer_t *m, int gi, int mute, float value) {
    uint64_t at = hl_mixer_effect_frame(m);
    bus_fold(m, tl_settled(m));
    if (m->bus_n == HL_LIS_TIMELINE) bus_fold(m, m->bus_tl[0].frame); /* full: the earliest */
    uint32_t i = m->bus_n;
    while (i > 0 && m->bus_tl[i - 1].frame > at) {
        m->bus_tl[i] = m->bus_tl[i - 1];
        i--;
    }
    m->bus_tl[i].frame = at;
    m->bus_tl[i].gi = gi;
    m->bus_tl[i].mute = mute;
    m->bus_tl[i].value = value;
    m->bus_n++;
}

int hl_mixer_set_bus_gain(hl_mixer_t *m, int bus, float gain, uint32_t ramp_frames,
                          uint64_t now_ns) {
    int gi = hl_mixer_gain_index(m, bus);
    if (gi < 0) return HELIOD_ENOBUS;
    if (!(gain >= 0.0f)) return HELIOD_EINVAL;
    hl_cmd_t cmd = {.type = HL_CMD_BUS, .enq_ns = now_ns};
    cmd.u.bus.bus = gi;
    cmd.u.bus.gain = gain;
    cmd.u.bus.ramp_frames = ramp_frames;
    cmd.u.bus.gen = m->bus_gen_ctl[gi];
    if (push(m, &cmd) != 0) return HELIOD_EBUSY;
    m->bus_gain_ctl[gi] = gain;
    bus_timeline(m, gi, 0, gain);
    return 0;
}

float hl_mixer_get_bus_gain(const hl_mixer_t *m, int bus) {
    int gi = hl_mixer_gain_index(m, bus);
    return gi < 0 ? 0.0f : m->bus_gain_ctl[gi];
}

int hl_mixer_routes_live(const hl_mixer_t *m, uint32_t bus, const uint32_t *send_bus,
                         const float *send_gain) {
    uint32_t live = m->graph_ctl.live;
    if (bus >= HL_MAX_BUSES || !(live >> bus & 1u)) return 0;
    for (int i = 0; i < HL_MAX_SENDS; i++)
        if (send_gain[i] > 0.0f && (send_bus[i] >= HL_MAX_BUSES || !(live >> send_bus[i] & 1u)))
            return 0;
    return 1;
}

int hl_mixer_bus_live(const hl_mixer_t *m, int bus) {
    return bus >= 0 && bus < HL_MAX_BUSES && (m->graph_ctl.live >> bus & 1u);
}

/* 1 if a voice in any slot (playing, paused or fading) routes to `bus`. */
static int bus_in_use(const hl_mixer_t *m, uint32_t bus) {
    for (uint32_t i = 0; i < m->slots; i++) {
        const hl_ctl_voice_t *c = &m->ctl[i];
        if (c->state == HL_MIX_STATE_FREE) continue;
        if (c->params.bus == bus) return 1;
        for (int s = 0; s < HL_MAX_SENDS; s++)
            if (c->params.send_gain[s] > 0.0f && c->params.send_bus[s] == bus) return 1;
    }
    return 0;
}

/* 1 if a live bus other than b sends to b and is not done yet. */
static int send_pending(const hl_graph_t *g, int b, uint32_t done) {
    for (int s = 0; s < HL_MAX_BUSES; s++) {
        if (!(g->live >> s & 1u) || (done >> s & 1u)) continue;
        for (int k = 0; k < HL_BUS_SENDS; k++)
            if (g->send_to[s][k] == b) return 1;
    }
    return 0;
}

/* Post-order of the tree: every bus after its children and after every bus
 * that sends to it. 0, or -1 on a cycle (through parents or sends) or a
 * parent that is not live. */
static int graph_order(hl_graph_t *g) {
    uint32_t done = 0;
    g->n_order = 0;
    /* repeated passes: a bus goes once all of its live children went */
    for (int pass = 0; pass < HL_MAX_BUSES + 1; pass++) {
        int progress = 0;
        for (int b = 0; b < HL_MAX_BUSES; b++) {
            if (!(g->live >> b & 1u) || (done >> b & 1u)) continue;
            int ready = 1;
            for (int c = 0; c < HL_MAX_BUSES && ready; c++)
                if ((g->live >> c & 1u) && !(done >> c & 1u) && g->parent[c] == b) ready = 0;
            if (!ready || send_pending(g, b, done)) continue;
            g->order[g->n_order++] = (uint8_t)b;
            done |= 1u << b;
            progress = 1;
        }
        if (done == g->live) return 0;
        if (!progress) return -1; /* a cycle */
    }
    return -1;
}

int hl_mixer_bus_graph(hl_mixer_t *m, const int8_t parent[HL_MAX_BUSES], uint32_t live,
                       uint64_t now_ns) {
    const uint32_t defaults = (1u << HL_NUM_BUSES) - 1;
    if ((live & defaults) != defaults) return HELIOD_EINVAL;
    hl_graph_t g = {.live = live};
    for (int b = 0; b < HL_MAX_BUSES; b++) {
        /* sends stay; a removed bus loses its own, and may not be a target */
        for (int k = 0; k < HL_BUS_SENDS; k++) {
            int t = m->graph_ctl.send_to[b][k];
            g.send_to[b][k] = (int8_t)((live >> b & 1u) ? t : -1);
            if ((live >> b & 1u) && t >= 0 && !(live >> t & 1u)) return HELIOD_EINVAL;
        }
        g.parent[b] = (live >> b & 1u) ? parent[b] : -1;
        if (!(live >> b & 1u)) continue;
        int p = parent[b];
        if (p == b || p < -1 || p >= HL_MAX_BUSES || (p >= 0 && !(live >> p & 1u)))
            return HELIOD_EINVAL;
    }
    if (graph_order(&g) != 0) return HELIOD_EINVAL;
    uint32_t gone = m->graph_ctl.live & ~live;
    for (int b = 0; b < HL_MAX_BUSES; b++)
        if ((gone >> b & 1u) && (m->n_fx_ctl[b] || bus_in_use(m, (uint32_t)b)))
            return HELIOD_EINVAL;
    for (int i = 0; i < HL_MAX_DUCKS; i++)
        if (m->duck_buses_ctl[i] & gone) return HELIOD_EINVAL; /* a ducking rule uses it */
    hl_cmd_t cmd = {.type = HL_CMD_GRAPH, .enq_ns = now_ns};
    cmd.u.graph = g;
    if (push(m, &cmd) != 0) return HELIOD_EBUSY;
    /* a bus created again starts at unity, unmuted, with no sends */
    uint32_t born = live & ~m->graph_ctl.live;
    for (int b = 0; b < HL_MAX_BUSES; b++)
        if (born >> b & 1u) {
            m->bus_gen_ctl[b]++; /* its index's commands pushed before are not its */
            m->bus_gain_ctl[b] = 1.0f;
            m->bus_mute_ctl[b] = 0.0f;
            m->bus_gain_base[b] = 1.0f; /* a graph change applies at once */
            m->bus_mute_base[b] = 0.0f;
            uint32_t w = 0; /* what was scheduled for the index's old bus is not its */
            for (uint32_t i = 0; i < m->bus_n; i++)
                if (m->bus_tl[i].gi != b) m->bus_tl[w++] = m->bus_tl[i];
            m->bus_n = w;
            for (int k = 0; k < HL_BUS_SENDS; k++)
                m->bus_send_ctl[b][k] = 0.0f;
        }
    m->graph_ctl = g;
    return 0;
}

int hl_mixer_set_bus_mute(hl_mixer_t *m, int bus, int mute, uint32_t ramp_frames, uint64_t now_ns) {
    int gi = hl_mixer_gain_index(m, bus);
    if (gi < 0) return HELIOD_ENOBUS;
    hl_cmd_t cmd = {.type = HL_CMD_BUS, .enq_ns = now_ns};
    cmd.u.bus.bus = gi;
    cmd.u.bus.gain = mute ? 0.0f : 1.0f;
    cmd.u.bus.ramp_frames = ramp_frames;
    cmd.u.bus.mute = 1;
    cmd.u.bus.gen = m->bus_gen_ctl[gi];
    if (push(m, &cmd) != 0) return HELIOD_EBUSY;
    m->bus_mute_ctl[gi] = mute ? 1.0f : 0.0f;
    bus_timeline(m, gi, 1, m->bus_mute_ctl[gi]);
    return 0;
}

int hl_mixer_get_bus_mute(const hl_mixer_t *m, int bus) {
    int gi = hl_mixer_gain_index(m, bus);
    return gi >= 0 && m->bus_mute_ctl[gi] != 0.0f;
}

/* The path gain of bus with the gains g and mutes mu (indexed by gain index). */
static float path_gain(const hl_mixer_t *m, const float *g, const float *mu, int bus) {
    float p = 1.0f;
    /* at most HL_MAX_BUSES steps: the graph has no cycle (hl_mixer_bus_graph) */
    for (int b = bus, steps = 0; b >= 0 && steps <= HL_MAX_BUSES; steps++) {
        p *= mu[b] != 0.0f ? 0.0f : g[b];
        b = m->graph_ctl.parent[b];
    }
    return p * (mu[HL_MASTER] != 0.0f ? 0.0f : g[HL_MASTER]);
}

/* heard(b) = max(path gain of b, send_k x heard(target_k)): sends tap before
 * the fader, so a muted bus is still heard through them. depth bounds the
 * walk (the graph has no cycle, so HL_MAX_BUSES levels always suffice). */
static float heard(const hl_mixer_t *m, const float *g, const float *mu, int bus, int depth) {
    float h = path_gain(m, g, mu, bus);
    if (bus < 0 || depth > HL_MAX_BUSES) return h;
    for (int k = 0; k < HL_BUS_SENDS; k++) {
        int t = m->graph_ctl.send_to[bus][k];
        if (t >= 0 && m->bus_send_ctl[bus][k] > 0.0f)
            h = fmaxf(h, m->bus_send_ctl[bus][k] * heard(m, g, mu, t, depth + 1));
    }
    return h;
}

float hl_mixer_bus_heard_gain(const hl_mixer_t *m, int bus) {
    return hl_mixer_gain_index(m, bus) < 0 ? 0.0f
                                           : heard(m, m->bus_gain_ctl, m->bus_mute_ctl, bus, 0);
}

void hl_mixer_buses_heard_at(hl_mixer_t *m, uint64_t frame, float out[HL_MAX_BUSES]) {
    bus_fold(m, tl_settled(m));
    float g[HL_NUM_GAINS], mu[HL_NUM_GAINS];
    memcpy(g, m->bus_gain_base, sizeof g);
    memcpy(mu, m->bus_mute_base, sizeof mu);
    for (uint32_t i = 0; i < m->bus_n && m->bus_tl[i].frame <= frame; i++) {
        if (m->bus_tl[i].mute)
            mu[m->bus_tl[i].gi] = m->bus_tl[i].value;
        else
            g[m->bus_tl[i].gi] = m->bus_tl[i].value;
    }
    for (int b = 0; b < HL_MAX_BUSES; b++)
        out[b] = hl_mixer_gain_index(m, b) < 0 ? 0.0f : heard(m, g, mu, b, 0);
}

float hl_mixer_bus_path_gain(const hl_mixer_t *m, int bus) {
    if (hl_mixer_gain_index(m, bus) < 0) return 0.0f;
    return path_gain(m, m->bus_gain_ctl, m->bus_mute_ctl, bus);
}

int hl_mixer_bus_send(hl_mixer_t *m, int bus, uint32_t slot, int target, float gain,
                      uint32_t ramp_frames, uint64_t now_ns) {
    if (!hl_mixer_bus_live(m, bus)) return HELIOD_ENOBUS;
    if (slot >= HL_BUS_SENDS || !(gain >= 0.0f && gain <= 64.0f)) return HELIOD_EINVAL;
    if (target >= 0 && (!hl_mixer_bus_live(m, target) || target == bus)) return HELIOD_EINVAL;
    if (target < 0) {
        target = -1;
        gain = 0.0f;
    }
    hl_graph_t g = m->graph_ctl;
    int moved = g.send_to[bus][slot] != target;
    if (moved) {
        g.send_to[bus][slot] = (int8_t)target;
        if (graph_order(&g) != 0) return HELIOD_EINVAL; /* a loop through sends */
        if (hl_mixer_cmd_room(m) < 2) return HELIOD_EBUSY;
        hl_cmd_t gc = {.type = HL_CMD_GRAPH, .enq_ns = now_ns};
        gc.u.graph = g;
        push(m, &gc);
    }
    hl_cmd_t cmd = {.type = HL_CMD_BUS_SEND, .enq_ns = now_ns};
    cmd.u.bsend.bus = (uint32_t)bus;
    cmd.u.bsend.slot = slot;
    cmd.u.bsend.gain = gain;
    cmd.u.bsend.ramp_frames = ramp_frames;
    if (push(m, &cmd) != 0) return HELIOD_EBUSY; /* (room was checked when moved) */
    m->graph_ctl = g;
    m->bus_send_ctl[bus][slot] = gain;
    return 0;
}

int hl_mixer_bus_fx(hl_mixer_t *m, int bus, hl_fx_t *const *fx, uint32_t n, uint64_t now_ns) {
    int gi = hl_mixer_gain_index(m, bus);
    if (gi < 0) return HELIOD_ENOBUS;
    if (n > HL_MAX_FX || (n && !fx)) return HELIOD_EINVAL;
    for (uint32_t i = 0; i < n; i++) {
        if (!fx[i]) return HELIOD_EINVAL;
        for (uint32_t j = 0; j < i; j++)
            if (fx[j] == fx[i]) return HELIOD_EINVAL;
        for (int b = 0; b < HL_NUM_GAINS; b++)
            if (b != gi)
                for (uint32_t k = 0; k < m->n_fx_ctl[b]; k++)
                    if (m->fx_ctl[b][k] == fx[i]) return HELIOD_EINVAL;
    }
    uint32_t dropped = 0;
    for (uint32_t k = 0; k < m->n_fx_ctl[gi]; k++) {
        int kept = 0;
        for (uint32_t i = 0; i < n; i++)
            kept |= fx[i] == m->fx_ctl[gi][k];
        dropped += !kept;
    }
    if (m->fx_inflight + dropped > HL_FX_RETIRE_MAX) return HELIOD_EBUSY;
    hl_cmd_t cmd = {.type = HL_CMD_FX, .enq_ns = now_ns};
    cmd.u.fx.bus = gi;
    cmd.u.fx.n = n;
    for (uint32_t i = 0; i < n; i++)
        cmd.u.fx.fx[i] = fx[i];
    if (push(m, &cmd) != 0) return HELIOD_EBUSY;
    m->fx_inflight += dropped;
    for (uint32_t i = 0; i < n; i++)
        m->fx_ctl[gi][i] = fx[i];
    m->n_fx_ctl[gi] = n;
    return 0;
}

int hl_mixer_fx_param(hl_mixer_t *m, hl_fx_t *fx, const hl_fx_params_t *p, uint64_t now_ns) {
    if (!fx || !p || p->kind != fx->kind) return HELIOD_EINVAL;
    hl_cmd_t cmd = {.type = HL_CMD_FX_PARAM, .enq_ns = now_ns};
    cmd.u.fxp.fx = fx;
    cmd.u.fxp.p = *p;
    return push(m, &cmd);
}

int hl_mixer_duck(hl_mixer_t *m, uint32_t index, int on, uint32_t side, uint32_t target,
                  float depth_db, float threshold_db, float attack_ms, float hold_ms,
                  float release_ms, uint64_t now_ns) {
    if (index >= HL_MAX_DUCKS) return HELIOD_EINVAL;
    if (on &&
        (!hl_mixer_bus_live(m, (int)side) || !hl_mixer_bus_live(m, (int)target) || side == target ||
         !HL_IN_RANGE(depth_db, HL_R_DUCK_DEPTH) || !HL_IN_RANGE(attack_ms, HL_R_DUCK_MS) ||
         !HL_IN_RANGE(hold_ms, HL_R_DUCK_MS) || !HL_IN_RANGE(release_ms, HL_R_DUCK_MS) ||
         !(threshold_db <= (float)HL_R_DUCK_THRESH_HI)))
        return HELIOD_EINVAL;
    hl_cmd_t cmd = {.type = HL_CMD_DUCK, .enq_ns = now_ns};
    cmd.u.duck.index = index;
    cmd.u.duck.on = on != 0;
    cmd.u.duck.side = side;
    cmd.u.duck.target = target;
    cmd.u.duck.depth_db = depth_db;
    cmd.u.duck.threshold_db = threshold_db;
    cmd.u.duck.attack_ms = attack_ms;
    cmd.u.duck.hold_ms = hold_ms;
    cmd.u.duck.release_ms = release_ms;
    if (push(m, &cmd) != 0) return HELIOD_EBUSY;
    m->duck_buses_ctl[index] = on ? (1u << side) | (1u << target) : 0u;
    return 0;
}

/* ---- audio thread ------------------------------------------------------- */

static void retire_fx_rt(hl_mixer_t *m, hl_fx_t *fx, uint64_t now_ns) {
    hl_mix_event_t ev = {
        .type = HL_MIX_EV_FX_RETIRED, .fx = fx, .time_ns = now_ns, .frame = m->clock};
    (void)hl_ring_write(&m->ev_ring, &ev, 1); /* sized for HL_FX_RETIRE_MAX: cannot fail */
}

static void fx_param_rt(hl_fx_t *fx, const hl_fx_params_t *p) {
    switch (fx->kind) {
    case HL_FX_EQ:
        hl_eq_set_rt(&fx->u.eq, p->eq_type, p->freq, p->q, p->gain_db, p->ramp_frames);
        break;
    case HL_FX_COMP:
        hl_comp_glide_rt(&fx->u.comp, p->threshold_db, p->ratio, p->knee_db, p->attack_ms,
                         p->release_ms, p->makeup_db, p->ramp_frames);
        break;
    case HL_FX_REVERB: hl_reverb_glide_rt(fx->u.rev, &p->rev, p->ramp_frames); break;
    default: break;
    }
}

void hl_bus_apply_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    switch (c->type) {
    case HL_CMD_GRAPH: {
        /* a bus created (again) starts at unity, unmuted, in a new
         * generation (mixer_internal.h bus_gen_ctl) */
        uint32_t born = c->u.graph.live & ~m->graph.live;
        for (int b = 0; b < HL_MAX_BUSES; b++)
            if (born >> b & 1u) {
                m->bus_gen[b]++;
                m->bus_gain[b] = (hl_ramp_t){1.0f, 1.0f, 0};
                m->bus[b].mute = (hl_ramp_t){1.0f, 1.0f, 0};
            }
        /* a send that changed target starts there from silence */
        for (int b = 0; b < HL_MAX_BUSES; b++)
            for (int k = 0; k < HL_BUS_SENDS; k++)
                if (c->u.graph.send_to[b][k] != m->graph.send_to[b][k])
                    m->bus_send[b][k] = (hl_ramp_t){0.0f, 0.0f, 0};
        m->graph = c->u.graph;
        break;
    }
    case HL_CMD_BUS_SEND: {
        hl_ramp_t *g = &m->bus_send[c->u.bsend.bus][c->u.bsend.slot];
        g->cur = ramp_after(g, 0);
        ramp_set(g, c->u.bsend.gain, hl_ramp_len(c->u.bsend.ramp_frames));
        break;
    }
    case HL_CMD_FX: {
        hl_rt_bus_t *b = &m->bus[c->u.fx.bus];
        for (uint32_t k = 0; k < b->n_fx; k++) {
            int kept = 0;
            for (uint32_t i = 0; i < c->u.fx.n; i++)
                kept |= c->u.fx.fx[i] == b->fx[k];
            if (!kept) retire_fx_rt(m, b->fx[k], now_ns);
        }
        for (uint32_t i = 0; i < c->u.fx.n; i++)
            b->fx[i] = c->u.fx.fx[i];
        b->n_fx = c->u.fx.n;
        break;
    }
    case HL_CMD_FX_PARAM: fx_param_rt(c->u.fxp.fx, &c->u.fxp.p); break;
    case HL_CMD_DUCK: {
        hl_rt_duck_t *d = &m->duck[c->u.duck.index];
        if (!c->u.duck.on) {
            d->on = 0;
            break;
        }
        if (d->on && d->side == c->u.duck.side && d->target == c->u.duck.target) {
            hl_duck_set_rt(&d->d, c->u.duck.depth_db, c->u.duck.threshold_db, c->u.duck.attack_ms,
                           c->u.duck.hold_ms, c->u.duck.release_ms);
        } else {
            hl_duck_init_rt(&d->d, (float)m->cfg.rate, c->u.duck.depth_db, c->u.duck.threshold_db,
                            c->u.duck.attack_ms, c->u.duck.hold_ms, c->u.duck.release_ms);
            d->side = c->u.duck.side;
            d->target = c->u.duck.target;
            d->on = 1;
        }
        break;
    }
    default: break;
    }
}

/* dl/dr += l/r x the ramp g over n frames (exact per frame), g advanced. */
static void send_add(float *dl, float *dr, const float *l, const float *r, uint32_t n,
                     hl_ramp_t *g) {
    const float g0 = g->cur;
    const uint32_t gn = g->rem < n ? g->rem : n;
    const float end = ramp_after(g, gn), dg = gn ? (end - g0) / (float)gn : 0.0f;
    for (uint32_t t = 0; t < n; t++) {
        const float k = t < gn ? g0 + (float)(t + 1) * dg : end;
        dl[t] += k * l[t];
        dr[t] += k * r[t];
    }
    ramp_advance(g, n);
}

static void store_bits(_Atomic uint32_t *a, float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    atomic_store_explicit(a, u, memory_order_relaxed);
}

void hl_bus_render_rt(hl_mixer_t *m, float *out, uint32_t n, uint32_t buses,
                      float bus_peak[HL_MAX_BUSES]) {
    /* ducking: each rule from its sidechain's last block */
    float duck[HL_MAX_BUSES];
    for (int b = 0; b < HL_MAX_BUSES; b++)
        duck[b] = 1.0f;
    for (int i = 0; i < HL_MAX_DUCKS; i++) {
        hl_rt_duck_t *d = &m->duck[i];
        if (!d->on) continue;
        const hl_rt_bus_t *s = &m->bus[d->side];
        duck[d->target] *= hl_duck_step_rt(&d->d, s->peak, s->voices, n);
    }
    for (int b = 0; b < HL_MAX_BUSES; b++) {
        hl_rt_bus_t *bs = &m->bus[b];
        if (duck[b] != bs->duck.target || bs->duck.rem) {
            bs->duck.target = duck[b];
            bs->duck.rem = n;
        }
        store_bits(&m->stats.duck_gain[b], duck[b]);
    }
    float *ml = m->acc[HL_MASTER][0], *mr = m->acc[HL_MASTER][1];
    for (uint32_t c = 0; c < m->nch; c++)
        memset(m->acc[HL_MASTER][c], 0, n * sizeof(float));
    uint32_t dirty = 0;
    for (uint32_t k = 0; k < m->graph.n_order; k++) {
        const uint32_t b = m->graph.order[k];
        hl_rt_bus_t *bs = &m->bus[b];
        float *l = m->acc[b][0], *r = m->acc[b][1];
        if (!(buses >> b & 1u) && bs->n_fx == 0) { /* silent: its ramps go on */
            ramp_advance(&m->bus_gain[b], n);
            ramp_advance(&bs->mute, n);
            ramp_advance(&bs->duck, n);
            for (int k = 0; k < HL_BUS_SENDS; k++)
                ramp_advance(&m->bus_send[b][k], n);
            bs->peak = 0.0f;
            continue;
        }
        dirty |= 1u << b;
        if (m->nch > 2)
            hl_surround_fx_rt(m, b, n);
        else
            for (uint32_t i = 0; i < bs->n_fx; i++)
                hl_fx_process_rt(bs->fx[i], l, r, n);
        /* sends: after the inserts, before the fader (pre-fader, as a voice's
         * own sends), into buses later in the order */
        for (int k = 0; k < HL_BUS_SENDS; k++) {
            const int t = m->graph.send_to[b][k];
            hl_ramp_t *g = &m->bus_send[b][k];
            if (t < 0 || (g->cur == 0.0f && g->target == 0.0f)) {
                ramp_advance(g, n);
                continue;
            }
            for (uint32_t c = 2; c < m->nch; c += 2) { /* surround: a copy of the ramp */
                hl_ramp_t gc = *g;
                send_add(m->acc[t][c], m->acc[t][c + 1], m->acc[b][c], m->acc[b][c + 1], n, &gc);
            }
            send_add(m->acc[t][0], m->acc[t][1], l, r, n, g);
            buses |= 1u << t;
        }
        if (m->nch > 2) hl_surround_gain_rt(m, b, n, &bs->duck);
        hl_gain3_rt(l, r, n, &m->bus_gain[b], &bs->mute, &bs->duck);
        const float pkl = hl_peak_abs_rt(l, n, 0.0f), pkr = hl_peak_abs_rt(r, n, 0.0f);
        bs->peak = pkl > pkr ? pkl : pkr;
        if (m->nch > 2) bs->peak = hl_surround_join_rt(m, b, n, bs->peak);
        if (bs->peak > bus_peak[b]) bus_peak[b] = bs->peak;
        /* the meters see the bus where it joins its parent */
        hl_mix_meter_t *mt = &m->meter;
        if (pkl > mt->peak[b][0]) mt->peak[b][0] = pkl;
        if (pkr > mt->peak[b][1]) mt->peak[b][1] = pkr;
        mt->sumsq[b][0] += hl_sumsq_rt(l, n);
        mt->sumsq[b][1] += hl_sumsq_rt(r, n);
        int p = m->graph.parent[b];
        float *pl = p >= 0 ? m->acc[p][0] : ml, *pr = p >= 0 ? m->acc[p][1] : mr;
        for (uint32_t t = 0; t < n; t++) {
            pl[t] += l[t];
            pr[t] += r[t];
        }
        if (p >= 0) buses |= 1u << p; /* later in the order: it runs */
    }
    m->bus_dirty = dirty;
    hl_rt_bus_t *ms = &m->bus[HL_MASTER];
    if (m->nch > 2)
        hl_surround_fx_rt(m, HL_MASTER, n);
    else
        for (uint32_t i = 0; i < ms->n_fx; i++)
            hl_fx_process_rt(ms->fx[i], ml, mr, n);
    hl_ramp_t one = {1.0f, 1.0f, 0};
    if (m->nch > 2) {
        hl_surround_gain_rt(m, HL_MASTER, n, &one);
        hl_gain3_rt(ml, mr, n, &m->bus_gain[HL_MASTER], &ms->mute, &one);
        hl_surround_interleave_rt(m, out, n);
        return;
    }
    hl_gain3_rt(ml, mr, n, &m->bus_gain[HL_MASTER], &ms->mute, &one);
    hl_interleave_rt(out, ml, mr, n);
}
