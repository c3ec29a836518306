/*
 * mixer_ctl.c - the control face of the mixer (hl_mixer.h, main thread only):
 * memory layout, the logical voice pool (admission, priority stealing,
 * handles and generations), commands to the audio thread and the event drain.
 *
 * The control side never touches RT state: it decides, records its logical
 * view, and pushes a fixed-size hl_cmd_t. A slot returns to the free stack
 * only in hl_mixer_poll(), after the audio thread reported its ENDED event,
 * which is why the event ring can never overflow. Stream switches add one
 * STREAM_RETIRED event each; at most HL_STREAM_RETIRE_MAX are in flight
 * (counted here until polled), and the event ring is sized for them.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "hl_panlaw.h"
#include "hl_simd.h"
#include "hl_util.h"
#include "mixer_internal.h"

static const char *const bus_names[HL_NUM_BUSES] = {"sfx", "music", "dialog", "ui"};

const char *hl_bus_name(uint32_t bus) {
    return bus < HL_NUM_BUSES ? bus_names[bus] : NULL;
}

static int str_eq(const char *a, const char *b) {
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

int hl_bus_find(const char *name) {
    if (!name) return -1;
    if (!name[0]) return HL_BUS_SFX;
    for (int i = 0; i < HL_NUM_BUSES; i++)
        if (str_eq(name, bus_names[i])) return i;
    return -1;
}

/* ---- layout ---------------------------------------------------------------- */

static size_t align_up(size_t v) {
    return (v + HL_MIX_ALIGN - 1) & ~(size_t)(HL_MIX_ALIGN - 1);
}

typedef struct {
    size_t ctl, rt, free_stack, rt_active, mod_of, cmd, ev, hrtf, bundle, heap, pool, pool_free,
        total;
    uint32_t slots, ev_capacity, cmd_capacity;
} layout_t;

static int config_layout(const hl_mixer_config_t *cfg, layout_t *lo) {
    if (!cfg || cfg->rate == 0 || cfg->voices == 0 || cfg->voices > HL_MAX_VOICES) return -1;
    if (!(cfg->speed_of_sound >= 0.0f && cfg->speed_of_sound <= FLT_MAX)) return -1;
    /* a known layout; binaural rendering is a stereo (headphone) mode */
    if (cfg->layout >= HL_LAYOUT_COUNT || (cfg->hrtf && cfg->layout != HL_LAYOUT_STEREO)) return -1;
    uint32_t cmd_cap = cfg->cmd_capacity ? cfg->cmd_capacity : HL_CMD_RING;
    if (cmd_cap < 2 || (cmd_cap & (cmd_cap - 1)) != 0) return -1;
    lo->slots = cfg->voices * HL_SLOT_FACTOR;
    /* Each slot has at most one STARTED and one ENDED event in flight, and
     * each stream switch in flight (at most HL_STREAM_RETIRE_MAX) one
     * STREAM_RETIRED. */
    lo->ev_capacity = hl_pow2_at_least(2 * lo->slots + HL_STREAM_RETIRE_MAX + HL_FX_RETIRE_MAX);
    lo->cmd_capacity = cmd_cap;
    size_t off = align_up(sizeof(hl_mixer_t));
    lo->ctl = off;
    off = align_up(off + (size_t)lo->slots * sizeof(hl_ctl_voice_t));
    lo->rt = off;
    off = align_up(off + (size_t)lo->slots * sizeof(hl_rt_voice_t));
    lo->free_stack = off;
    off = align_up(off + (size_t)lo->slots * sizeof(uint32_t));
    lo->rt_active = off;
    off = align_up(off + (size_t)lo->slots * sizeof(uint32_t));
    lo->mod_of = off;
    off = align_up(off + (size_t)lo->slots * sizeof(uint16_t));
    lo->cmd = off;
    off = align_up(off + (size_t)hl_ring_storage_size(cmd_cap, sizeof(hl_cmd_t)));
    lo->ev = off;
    off = align_up(off + (size_t)hl_ring_storage_size(lo->ev_capacity, sizeof(hl_mix_event_t)));
    /* HRTF state per slot, only when asked for: indexed like the slots, so
     * a voice finds its state without a pool to manage on the audio thread,
     * and every 3D voice (fading ones too) can be binaural */
    lo->hrtf = off;
    if (cfg->hrtf) off = align_up(off + (size_t)lo->slots * sizeof(hl_hrtf_voice_t));
    /* time: the bundle being built, the schedule's heap and its command pool */
    lo->bundle = off;
    off = align_up(off + (size_t)(HL_BUNDLE_MAX + 1) * sizeof(hl_cmd_t));
    lo->heap = off;
    off = align_up(off + (size_t)HL_SCHED_MAX * sizeof(hl_sched_ent_t));
    lo->pool = off;
    off = align_up(off + (size_t)HL_SCHED_MAX * sizeof(hl_cmd_t));
    lo->pool_free = off;
    off = align_up(off + (size_t)HL_SCHED_MAX * sizeof(uint32_t));
    lo->total = off;
    return 0;
}

size_t hl_mixer_size(const hl_mixer_config_t *cfg) {
    layout_t lo;
    if (config_layout(cfg, &lo) != 0) return 0;
    return lo.total + HL_MIX_ALIGN; /* slack to align an unaligned block */
}

hl_mixer_t *hl_mixer_init(void *mem, size_t size, const hl_mixer_config_t *cfg) {
    layout_t lo;
    if (!mem || config_layout(cfg, &lo) != 0) return NULL;
    uintptr_t p = (uintptr_t)mem;
    size_t pad = (HL_MIX_ALIGN - (p & (HL_MIX_ALIGN - 1))) & (HL_MIX_ALIGN - 1);
    if (size < lo.total + pad) return NULL;
    unsigned char *base = (unsigned char *)mem + pad;
    memset(base, 0, lo.total);
    hl_mixer_t *m = (hl_mixer_t *)(void *)base;
    m->cfg = *cfg;
    m->cfg.cmd_capacity = lo.cmd_capacity;
    if (!m->cfg.cmds_per_block) m->cfg.cmds_per_block = lo.cmd_capacity;
    if (!m->cfg.drain_budget_pct) m->cfg.drain_budget_pct = HL_DRAIN_BUDGET_PCT;
    m->slots = lo.slots;
    m->ev_capacity = lo.ev_capacity;
    m->nch = hl_layout_channels((hl_layout_t)cfg->layout);
    m->lfe_ch = hl_layout_channel_of((hl_layout_t)cfg->layout, HL_SPK_LFE);
    m->height = (uint32_t)hl_layout_has_height((hl_layout_t)cfg->layout);
    m->ctl = (hl_ctl_voice_t *)(void *)(base + lo.ctl);
    m->rt = (hl_rt_voice_t *)(void *)(base + lo.rt);
    m->free_stack = (uint32_t *)(void *)(base + lo.free_stack);
    m->rt_active = (uint32_t *)(void *)(base + lo.rt_active);
    m->mod_of = (uint16_t *)(void *)(base + lo.mod_of);
    m->hrtf_v = cfg->hrtf ? (hl_hrtf_voice_t *)(void *)(base + lo.hrtf) : NULL;
    m->bundle = (hl_cmd_t *)(void *)(base + lo.bundle);
    m->heap = (hl_sched_ent_t *)(void *)(base + lo.heap);
    m->pool = (hl_cmd_t *)(void *)(base + lo.pool);
    m->pool_free = (uint32_t *)(void *)(base + lo.pool_free);
    for (uint32_t i = 0; i < HL_SCHED_MAX; i++)
        m->pool_free[i] = HL_SCHED_MAX - 1 - i;
    m->n_pool_free = HL_SCHED_MAX;
    m->sched_limit = UINT32_MAX;
    /* Pop order: slot 0 first. */
    for (uint32_t i = 0; i < lo.slots; i++)
        m->free_stack[i] = lo.slots - 1 - i;
    m->n_free = lo.slots;
    if (hl_ring_init(&m->cmd_ring, base + lo.cmd, lo.cmd_capacity, sizeof(hl_cmd_t)) != 0 ||
        hl_ring_init(&m->ev_ring, base + lo.ev, lo.ev_capacity, sizeof(hl_mix_event_t)) != 0)
        return NULL;
    static const hl_listener_state_t def_listener = {
        {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, -1.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.0f};
    m->listener_ctl = def_listener;
    for (uint32_t k = 0; k < HL_MIX_LISTENERS; k++)
        m->lis_base[k] = def_listener;
    m->lis_base_on = 1u;
    m->lis_n = 0;
    m->listener = def_listener;
    m->listener_gen = 1;
    m->bus_dirty = (1u << HL_NUM_BUSES) - 1;
    for (int i = 0; i < HL_NUM_GAINS; i++) {
        m->bus_gain_ctl[i] = 1.0f;
        m->bus_mute_ctl[i] = 0.0f;
        m->bus_gain_base[i] = 1.0f;
        m->bus_mute_base[i] = 0.0f;
        m->bus_gain[i].cur = m->bus_gain[i].target = 1.0f;
        m->bus[i].mute.cur = m->bus[i].mute.target = 1.0f;
        m->bus[i].duck.cur = m->bus[i].duck.target = 1.0f;
    }
    /* the default buses, children of the master */
    for (int i = 0; i < HL_MAX_BUSES; i++) {
        m->graph_ctl.parent[i] = -1;
        for (int s = 0; s < HL_BUS_SENDS; s++)
            m->graph_ctl.send_to[i][s] = -1;
    }
    for (int i = 0; i < HL_NUM_BUSES; i++)
        m->graph_ctl.order[i] = (uint8_t)i;
    m->graph_ctl.n_order = HL_NUM_BUSES;
    m->graph_ctl.live = (1u << HL_NUM_BUSES) - 1;
    m->graph = m->graph_ctl;
    for (int i = 0; i < HL_MAX_BUSES; i++)
        atomic_store_explicit(&m->stats.duck_gain[i], 0x3f800000u, memory_order_relaxed); /* 1.0f */
    hl_limiter_init(&m->limiter, HL_LIMITER_THRESH, HL_LIMITER_RELEASE_MS, cfg->rate);
    m->sound_speed = cfg->speed_of_sound > 0.0f ? cfg->speed_of_sound : HL_SPEED_OF_SOUND;
    /* one-pole smoothing stepped every HL_PITCH_GRID frames: time constant HL_DOPPLER_TAU_MS */
    m->dop_coef =
        (float)(1.0 - exp(-(double)HL_PITCH_GRID / (HL_DOPPLER_TAU_MS * 1e-3 * (double)cfg->rate)));
    m->k = &hl_mix_kernels_generic;
    (void)hl_mixer_use_simd(m, HL_MIX_SIMD_BEST);
    return m;
}

int hl_mixer_use_simd(hl_mixer_t *m, int enable) {
    if (enable == HL_MIX_SIMD_BEST && hl_mix_kernels_avx512_usable()) {
        m->k = hl_simd_strict() ? hl_mix_kernels_avx512 : hl_mix_kernels_avx512_best;
        return 1;
    }
    if (enable && hl_mix_kernels_avx2_usable()) {
        m->k = hl_mix_kernels_avx2;
        return 1;
    }
    m->k = &hl_mix_kernels_generic;
    return 0;
}

int hl_mixer_set_hrtf(hl_mixer_t *m, const hl_hrtf_set_t *set) {
    if (set && (!m->hrtf_v || set->rate != m->cfg.rate || set->taps != HL_HRTF_TAPS))
        return HELIOD_EINVAL;
    m->hrtf = set;
    return 0;
}

void hl_mixer_set_sinc(hl_mixer_t *m, const hl_sinc_t *tables) {
    m->sinc = tables;
    m->sk = tables ? hl_sinc_kernels_best() : NULL;
}

const hl_hrtf_set_t *hl_mixer_hrtf(const hl_mixer_t *m) {
    return m->hrtf;
}

/* ---- handles --------------------------------------------------------------- */

static uint64_t make_handle(uint32_t gen, uint32_t slot) {
    return ((uint64_t)gen << 32) | slot;
}

/* The control record of a live (not stale) voice, or NULL. */
static hl_ctl_voice_t *lookup(const hl_mixer_t *m, uint64_t voice) {
    uint32_t slot = (uint32_t)voice, gen = (uint32_t)(voice >> 32);
    if (gen == 0 || slot >= m->slots) return NULL;
    hl_ctl_voice_t *c = &m->ctl[slot];
    if (c->gen != gen || c->state == HL_MIX_STATE_FREE || c->stolen) return NULL;
    return c;
}

static int push_cmd(hl_mixer_t *m, hl_cmd_t *cmd) {
    return hl_cmd_push(m, cmd);
}

/* ---- play / stop / set ----------------------------------------------------- */

static int finite3(const float v[3]) {
    for (int a = 0; a < 3; a++)
        if (!(v[a] >= -FLT_MAX && v[a] <= FLT_MAX)) return 0;
    return 1;
}

static int params_valid(const hl_voice_params_t *p) {
    if (!p) return 0;
    if (!hl_curve_valid(p->curve_n, p->curve_d, p->curve_db)) return 0;
    if (!hl_dcurve_lp_valid(&p->dist_lp) ||
        !hl_curve_valid(p->dist_send.n, p->dist_send.d, p->dist_send.v))
        return 0;
    if (!hl_cone_valid(p->cone_dir, p->cone_inner, p->cone_outer, p->cone_outer_gain) &&
        (p->cone_dir[0] != 0.0f || p->cone_dir[1] != 0.0f || p->cone_dir[2] != 0.0f))
        return 0;
    if (!(p->cone_outer_lp >= 0.0f && p->cone_outer_lp <= (float)HL_R_LP_HZ_HI)) return 0;
    if (p->stream) {
        if (p->stream->channels < 1 || p->stream->channels > HL_MIX_MAX_CH) return 0;
        if (p->start_frame != 0) return 0;
    } else {
        if (!p->pcm || !p->pcm->data || p->pcm->frames == 0) return 0;
        if (p->pcm->channels < 1 || p->pcm->channels > HL_MIX_MAX_CH) return 0;
        uint32_t le = p->loop_end ? p->loop_end : p->pcm->frames;
        if (le > p->pcm->frames || p->loop_start >= le) return 0;
        if (p->loop_xfade > p->loop_start || p->loop_xfade > le - p->loop_start) return 0;
        if (p->start_frame >= p->pcm->frames) return 0;
    }
    if (p->attack_curve > HL_FADE_LOG) return 0;
    if (p->mod > HL_MIX_MODS || (p->mod && !(p->mod_base >= 0.0f && p->mod_base <= FLT_MAX)) ||
        (p->mod_what & ~(HL_MOD_GAIN | HL_MOD_FILTER)))
        return 0;
    if (!(p->doppler_factor >= 0.0f && p->doppler_factor <= FLT_MAX) || !finite3(p->vel)) return 0;
    if (p->bus >= HL_MAX_BUSES || p->model > HL_MIX_DIST_EXPONENTIAL) return 0;
    if (!(p->lp_hz >= 0.0f) || !(p->hp_hz >= 0.0f) || !(p->occ_db <= 0.0f)) return 0;
    for (int i = 0; i < HL_MAX_SENDS; i++)
        if (!(p->send_gain[i] >= 0.0f && p->send_gain[i] <= 16.0f) ||
            p->send_bus[i] >= HL_MAX_BUSES)
            return 0;
    if (!(p->pitch >= HL_PITCH_MIN && p->pitch <= HL_PITCH_MAX)) return 0;
    if (!(p->gain >= 0.0f) || !(p->pan >= -1.0f && p->pan <= 1.0f)) return 0;
    if (p->pan_law > HL_PAN_LAW_OPENAL) return 0;
    if (!(p->lfe >= 0.0f && p->lfe <= 16.0f)) return 0; /* the send levels' bound */
    if ((p->flags & HL_MIX_3D) && !(p->min_distance > 0.0f && p->max_distance >= p->min_distance))
        return 0;
    return 1;
}

/* Lowest priority active voice, oldest among equals; UINT32_MAX if none. */
static uint32_t find_victim(const hl_mixer_t *m) {
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < m->slots; i++) {
        const hl_ctl_voice_t *c = &m->ctl[i];
        if ((c->state != HL_MIX_STATE_PLAYING && c->state != HL_MIX_STATE_PAUSED) || c->stolen)
            continue;
        if (best == UINT32_MAX || c->params.priority < m->ctl[best].params.priority ||
            (c->params.priority == m->ctl[best].params.priority && c->seq < m->ctl[best].seq))
            best = i;
    }
    return best;
}

int hl_mixer_play(hl_mixer_t *m, const hl_voice_params_t *p, uint64_t now_ns, uint64_t *voice,
                  uint64_t *stolen) {
    if (voice) *voice = 0;
    if (stolen) *stolen = 0;
    if (!params_valid(p) || !hl_mixer_routes_live(m, p->bus, p->send_bus, p->send_gain))
        return HELIOD_EINVAL;
    const uint32_t ch = p->stream ? p->stream->channels : p->pcm->channels;
    if (ch > 2 && (ch != m->nch || (p->flags & HL_MIX_3D))) /* multichannel: 2D, the output's */
        return HELIOD_EINVAL;
    uint32_t victim = UINT32_MAX;
    if (m->n_active_ctl >= m->cfg.voices) {
        victim = find_victim(m);
        if (victim == UINT32_MAX || !(p->priority > m->ctl[victim].params.priority))
            return HELIOD_ENOVOICES;
    }
    if (m->n_free == 0) return HELIOD_ENOVOICES;
    if (hl_mixer_cmd_room(m) < (victim != UINT32_MAX ? 2u : 1u)) return HELIOD_EBUSY;

    if (victim != UINT32_MAX) {
        hl_ctl_voice_t *v = &m->ctl[victim];
        hl_cmd_t cmd = {.type = HL_CMD_STOP, .slot = victim, .gen = v->gen, .enq_ns = now_ns};
        cmd.u.stop.release_frames = HL_STOP_FADE_MIN;
        cmd.u.stop.reason = HL_MIX_END_STOLEN;
        (void)push_cmd(m, &cmd);
        v->state = HL_MIX_STATE_STOPPING;
        v->stolen = 1;
        m->n_active_ctl--;
        if (stolen) *stolen = make_handle(v->gen, victim);
    }

    uint32_t slot = m->free_stack[--m->n_free];
    hl_ctl_voice_t *c = &m->ctl[slot];
    c->gen++;
    if (c->gen == 0) c->gen = 1; /* generation 0 is never a handle */
    c->state = (p->flags & HL_MIX_PAUSED) ? HL_MIX_STATE_PAUSED : HL_MIX_STATE_PLAYING;
    c->stolen = 0;
    c->seq = ++m->seq;
    c->params = *p;
    m->n_active_ctl++;

    hl_cmd_t cmd = {.type = HL_CMD_PLAY, .slot = slot, .gen = c->gen, .enq_ns = now_ns};
    cmd.u.play = *p;
    /* it follows the slot's changes sent from now on, as SETs sent from now on */
    if (p->mod) {
        cmd.u.play.mod_seq = m->mod_seq_ctl[p->mod - 1];
        if (!p->mod_what) cmd.u.play.mod_what = c->params.mod_what = HL_MOD_GAIN;
    }
    (void)push_cmd(m, &cmd);
    if (voice) *voice = make_handle(c->gen, slot);
    return 0;
}

int hl_mixer_stop(hl_mixer_t *m, uint64_t voice, uint32_t release_frames, int reason,
                  uint64_t now_ns) {
    return hl_mixer_stop_curve(m, voice, release_frames, reason, HL_FADE_LINEAR, now_ns);
}

int hl_mixer_stop_curve(hl_mixer_t *m, uint64_t voice, uint32_t release_frames, int reason,
                        uint32_t curve, uint64_t now_ns) {
    hl_ctl_voice_t *c = lookup(m, voice);
    if (!c) return HELIOD_ENOVOICE;
    if (curve > HL_FADE_LOG) return HELIOD_EINVAL;
    if (c->state == HL_MIX_STATE_STOPPING) return 0; /* already fading: keep that fade */
    uint32_t slot = (uint32_t)voice;
    hl_cmd_t cmd = {.type = HL_CMD_STOP, .slot = slot, .gen = c->gen, .enq_ns = now_ns};
    cmd.u.stop.release_frames =
        release_frames < HL_STOP_FADE_MIN ? HL_STOP_FADE_MIN : release_frames;
    cmd.u.stop.reason = (uint32_t)reason;
    cmd.u.stop.curve = curve;
    if (push_cmd(m, &cmd) != 0) return HELIOD_EBUSY;
    c->state = HL_MIX_STATE_STOPPING;
    m->n_active_ctl--;
    return 0;
}

/* every SET bit its own (LFE once shared FSTEP's: a parameter's stepped
 * filter glide then also set the LFE send) */
/* clang-format off */
#define HL_MIX_SET_BITS_(X)                                                                        \
    X(GAIN) X(PAN) X(POS) X(PITCH) X(PAUSE) X(RESUME) X(SEEK) X(STREAM) X(VEL) X(INTERP)           \
    X(FILTER) X(SENDS) X(CONE) X(CURVE) X(FSTEP) X(LFE) X(DLP) X(DSEND)
/* clang-format on */
#define HL_MIX_SET_OR_(b)  | HL_MIX_SET_##b
#define HL_MIX_SET_SUM_(b) +(uint64_t)HL_MIX_SET_##b
_Static_assert((0 HL_MIX_SET_BITS_(HL_MIX_SET_OR_)) == (0 HL_MIX_SET_BITS_(HL_MIX_SET_SUM_)),
               "HL_MIX_SET_* bits overlap");

void hl_voice_set_fields(hl_voice_params_t *p, const hl_voice_set_t *s) {
    if (s->mask & (HL_MIX_SET_GAIN | HL_MIX_SET_FILTER)) { /* its own: off the slot for it */
        uint32_t w = p->mod_what ? p->mod_what : HL_MOD_GAIN;
        if (s->mask & HL_MIX_SET_GAIN) w &= ~HL_MOD_GAIN;
        if (s->mask & HL_MIX_SET_FILTER) w &= ~HL_MOD_FILTER;
        p->mod_what = w;
        if (!w) p->mod = 0;
    }
    if (s->mask & HL_MIX_SET_GAIN) p->gain = s->gain;
    if (s->mask & HL_MIX_SET_PAN) p->pan = s->pan;
    if (s->mask & HL_MIX_SET_POS) memcpy(p->pos, s->pos, sizeof p->pos);
    if (s->mask & HL_MIX_SET_VEL) memcpy(p->vel, s->vel, sizeof p->vel);
    if (s->mask & HL_MIX_SET_CURVE) {
        p->curve_n = s->curve_n;
        memcpy(p->curve_d, s->curve_d, sizeof p->curve_d);
        memcpy(p->curve_db, s->curve_db, sizeof p->curve_db);
    }
    if (s->mask & HL_MIX_SET_FILTER) {
        p->lp_hz = s->lp_hz;
        p->hp_hz = s->hp_hz;
        p->occ_db = s->occ_db;
    }
    if (s->mask & HL_MIX_SET_CONE) {
        memcpy(p->cone_dir, s->cone_dir, sizeof p->cone_dir);
        p->cone_inner = s->cone_inner;
        p->cone_outer = s->cone_outer;
        p->cone_outer_gain = s->cone_outer_gain;
        p->cone_outer_lp = s->cone_outer_lp;
    }
    if (s->mask & HL_MIX_SET_LFE) p->lfe = s->lfe;
    if (s->mask & HL_MIX_SET_DLP) p->dist_lp = s->dist_lp;
    if (s->mask & HL_MIX_SET_DSEND) p->dist_send = s->dist_send;
    if (s->mask & HL_MIX_SET_SENDS) {
        memcpy(p->send_bus, s->send_bus, sizeof p->send_bus);
        memcpy(p->send_gain, s->send_gain, sizeof p->send_gain);
    }
}

int hl_mixer_set(hl_mixer_t *m, uint64_t voice, const hl_voice_set_t *s, uint64_t now_ns) {
    hl_ctl_voice_t *c = lookup(m, voice);
    if (!c) return HELIOD_ENOVOICE;
    if (!s) return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_PITCH) && !(s->pitch >= HL_PITCH_MIN && s->pitch <= HL_PITCH_MAX))
        return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_GAIN) && !(s->gain >= 0.0f)) return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_PAN) && !(s->pan >= -1.0f && s->pan <= 1.0f)) return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_VEL) && !finite3(s->vel)) return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_LFE) && !(s->lfe >= 0.0f && s->lfe <= 16.0f)) return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_LOOPS) && (s->loops < -1 || c->params.stream)) return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_CURVE) && !hl_curve_valid(s->curve_n, s->curve_d, s->curve_db))
        return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_DLP) && !hl_dcurve_lp_valid(&s->dist_lp)) return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_DSEND) &&
        !hl_curve_valid(s->dist_send.n, s->dist_send.d, s->dist_send.v))
        return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_CONE) &&
        (!hl_cone_valid(s->cone_dir, s->cone_inner, s->cone_outer, s->cone_outer_gain) ||
         !(s->cone_outer_lp >= 0.0f && s->cone_outer_lp <= (float)HL_R_LP_HZ_HI)))
        return HELIOD_EINVAL;
    if ((s->mask & HL_MIX_SET_FILTER) &&
        (!(s->lp_hz >= 0.0f) || !(s->hp_hz >= 0.0f) || !(s->occ_db <= 0.0f)))
        return HELIOD_EINVAL;
    if (s->mask & HL_MIX_SET_SENDS) {
        for (int i = 0; i < HL_MAX_SENDS; i++)
            if (!(s->send_gain[i] >= 0.0f && s->send_gain[i] <= 16.0f) ||
                s->send_bus[i] >= HL_MAX_BUSES)
                return HELIOD_EINVAL;
        if (!hl_mixer_routes_live(m, c->params.bus, s->send_bus, s->send_gain))
            return HELIOD_EINVAL;
    }
    const int switching = (s->mask & HL_MIX_SET_STREAM) != 0;
    if (switching) {
        if (!c->params.stream || !s->stream || s->stream == c->params.stream ||
            s->stream->channels != c->params.stream->channels)
            return HELIOD_EINVAL;
        if (m->retire_inflight >= HL_STREAM_RETIRE_MAX) return HELIOD_EBUSY;
    }
    if ((s->mask & HL_MIX_SET_SEEK) && !switching &&
        (c->params.stream || s->seek_frame >= c->params.pcm->frames))
        return HELIOD_EINVAL;
    hl_cmd_t cmd = {.type = HL_CMD_SET, .slot = (uint32_t)voice, .gen = c->gen, .enq_ns = now_ns};
    cmd.u.set = *s;
    if (push_cmd(m, &cmd) != 0) return HELIOD_EBUSY;
    hl_voice_set_fields(&c->params, s);
    if (s->mask & HL_MIX_SET_PITCH) c->params.pitch = s->pitch;
    if (s->mask & HL_MIX_SET_INTERP) c->params.flags = hl_interp_flags(c->params.flags, s->cubic);
    if (switching) {
        c->params.stream = s->stream;
        m->retire_inflight++;
    }
    if (c->state != HL_MIX_STATE_STOPPING) {
        if (s->mask & HL_MIX_SET_PAUSE) {
            c->state = HL_MIX_STATE_PAUSED;
            c->params.flags |= HL_MIX_PAUSED;
        } else if (s->mask & HL_MIX_SET_RESUME) {
            c->state = HL_MIX_STATE_PLAYING;
            c->params.flags &= ~HL_MIX_PAUSED;
        }
    }
    return 0;
}

/* Applies timeline entry i to the states l[] and the mask *on. */
static void lis_apply(const hl_mixer_t *m, uint32_t i, hl_listener_state_t *l, uint32_t *on) {
    uint32_t k = m->lis_tl[i].index;
    if (m->lis_tl[i].on) {
        l[k] = m->lis_tl[i].s;
        *on |= 1u << k;
    } else {
        *on &= ~(1u << k);
    }
}

/* Folds the timeline's moves due by frame into its base. */
static void lis_fold(hl_mixer_t *m, uint64_t frame) {
    uint32_t k = 0;
    while (k < m->lis_n && m->lis_tl[k].frame <= frame)
        lis_apply(m, k++, m->lis_base, &m->lis_base_on);
    if (!k) return;
    memmove(m->lis_tl, m->lis_tl + k, (m->lis_n - k) * sizeof m->lis_tl[0]);
    m->lis_n -= k;
}

/* Puts a move (l) or switch-off (l NULL) of listener index on the timeline
 * at frame at, after the entries due on the same frame. */
static void lis_push(hl_mixer_t *m, uint64_t at, uint32_t index, const hl_listener_state_t *l) {
    lis_fold(m, tl_settled(m));
    if (m->lis_n == HL_LIS_TIMELINE) lis_fold(m, m->lis_tl[0].frame); /* full: the earliest */
    uint32_t i = m->lis_n;
    while (i > 0 && m->lis_tl[i - 1].frame > at) {
        m->lis_tl[i] = m->lis_tl[i - 1];
        i--;
    }
    m->lis_tl[i].frame = at;
    m->lis_tl[i].index = index;
    m->lis_tl[i].on = l != NULL;
    if (l) m->lis_tl[i].s = *l;
    m->lis_n++;
}

int hl_mixer_set_listener(hl_mixer_t *m, const hl_listener_state_t *l, uint64_t now_ns) {
    if (!l) return HELIOD_EINVAL;
    hl_cmd_t cmd = {.type = HL_CMD_LISTENER, .enq_ns = now_ns};
    cmd.u.listener = *l;
    uint64_t at = hl_mixer_effect_frame(m);
    if (push_cmd(m, &cmd) != 0) return HELIOD_EBUSY;
    m->listener_ctl = *l;
    lis_push(m, at, 0, l);
    return 0;
}

void hl_mixer_get_listener(const hl_mixer_t *m, hl_listener_state_t *l) {
    *l = m->listener_ctl;
}

uint32_t hl_mixer_listeners_at(hl_mixer_t *m, uint64_t frame,
                               hl_listener_state_t l[HL_MIX_LISTENERS]) {
    lis_fold(m, tl_settled(m));
    uint32_t on = m->lis_base_on;
    memcpy(l, m->lis_base, sizeof m->lis_base);
    for (uint32_t i = 0; i < m->lis_n && m->lis_tl[i].frame <= frame; i++)
        lis_apply(m, i, l, &on);
    return on;
}

void hl_mixer_listener_at(hl_mixer_t *m, uint64_t frame, hl_listener_state_t *l) {
    hl_listener_state_t all[HL_MIX_LISTENERS];
    (void)hl_mixer_listeners_at(m, frame, all);
    *l = all[0];
}

int hl_mixer_set_listener_at(hl_mixer_t *m, uint32_t index, const hl_listener_state_t *l,
                             uint64_t now_ns) {
    if (index >= HL_MIX_LISTENERS || (index == 0 && !l)) return HELIOD_EINVAL;
    if (index == 0) return hl_mixer_set_listener(m, l, now_ns);
    hl_cmd_t cmd = {.type = HL_CMD_LISTENER, .slot = index, .gen = l ? 0 : 1, .enq_ns = now_ns};
    if (l) cmd.u.listener = *l;
    uint64_t at = hl_mixer_effect_frame(m);
    if (push_cmd(m, &cmd) != 0) return HELIOD_EBUSY;
    if (l) {
        m->lis_x_ctl[index - 1] = *l;
        m->lis_on_ctl |= 1u << (index - 1);
    } else {
        m->lis_on_ctl &= ~(1u << (index - 1));
    }
    lis_push(m, at, index, l);
    return 0;
}

int hl_mixer_get_listener_at(const hl_mixer_t *m, uint32_t index, hl_listener_state_t *l) {
    if (index == 0) {
        *l = m->listener_ctl;
        return 1;
    }
    if (index >= HL_MIX_LISTENERS || !(m->lis_on_ctl >> (index - 1) & 1u)) return 0;
    *l = m->lis_x_ctl[index - 1];
    return 1;
}

static float dist2(const float a[3], const float b[3]) {
    float x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return x * x + y * y + z * z;
}

uint32_t hl_mixer_nearest_listener(const hl_mixer_t *m, const float pos[3]) {
    uint32_t best = 0;
    float bd = dist2(pos, m->listener_ctl.pos);
    for (uint32_t k = 1; k < HL_MIX_LISTENERS; k++) {
        if (!(m->lis_on_ctl >> (k - 1) & 1u)) continue;
        float d = dist2(pos, m->lis_x_ctl[k - 1].pos);
        if (d < bd) {
            bd = d;
            best = k;
        }
    }
    return best;
}

/* ---- events ----------------------------------------------------------------- */

size_t hl_mixer_poll(hl_mixer_t *m, hl_mix_event_fn cb, void *user) {
    size_t handled = 0;
    hl_mix_event_t ev;
    while (hl_ring_read(&m->ev_ring, &ev, 1) == 1) {
        handled++;
        if (cb) cb(user, &ev);
        if (ev.type == HL_MIX_EV_STREAM_RETIRED && m->retire_inflight) m->retire_inflight--;
        if (ev.type == HL_MIX_EV_FX_RETIRED && m->fx_inflight) m->fx_inflight--;
        if (ev.type != HL_MIX_EV_ENDED) continue;
        uint32_t slot = (uint32_t)ev.voice;
        if (slot >= m->slots) continue;
        hl_ctl_voice_t *c = &m->ctl[slot];
        if (c->gen != (uint32_t)(ev.voice >> 32) || c->state == HL_MIX_STATE_FREE) continue;
        if (c->state != HL_MIX_STATE_STOPPING) m->n_active_ctl--; /* ended on its own */
        c->state = HL_MIX_STATE_FREE;
        c->stolen = 0;
        m->free_stack[m->n_free++] = slot;
    }
    return handled;
}

/* ---- views ------------------------------------------------------------------- */

int hl_mixer_voice(const hl_mixer_t *m, uint64_t voice, hl_voice_view_t *out) {
    const hl_ctl_voice_t *c = lookup(m, voice);
    if (!c) return HELIOD_ENOVOICE;
    if (out) {
        out->voice = voice;
        out->state = c->state;
        out->params = c->params;
    }
    return 0;
}

uint32_t hl_mixer_slots(const hl_mixer_t *m) {
    return m->slots;
}

uint32_t hl_mixer_channels(const hl_mixer_t *m) {
    return m->nch;
}

int hl_mixer_slot_view(const hl_mixer_t *m, uint32_t slot, hl_voice_view_t *out) {
    if (slot >= m->slots || m->ctl[slot].state == HL_MIX_STATE_FREE) return HELIOD_ENOVOICE;
    const hl_ctl_voice_t *c = &m->ctl[slot];
    if (out) {
        out->voice = make_handle(c->gen, slot);
        out->state = c->state;
        out->params = c->params;
    }
    return 0;
}

uint32_t hl_mixer_active(const hl_mixer_t *m) {
    return m->n_active_ctl;
}

static float bits_to_float(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

void hl_mixer_stats(const hl_mixer_t *m, hl_mixer_stats_t *out) {
    const hl_mix_stats_atomic_t *s = &m->stats;
    hl_mix_stats_atomic_t *w = (hl_mix_stats_atomic_t *)(uintptr_t)s; /* atomic loads only */
#define LD(x) atomic_load_explicit(&w->x, memory_order_relaxed)
    memset(out, 0, sizeof *out);
    out->blocks = LD(blocks);
    out->frames = LD(frames);
    out->cmds_applied = LD(cmds_applied);
    out->cmd_cap_hits = LD(cmd_cap_hits);
    out->voices_mixed = LD(voices_mixed);
    out->voices_virtual = LD(voices_virtual);
    out->stream_voices = LD(stream_voices);
    out->hrtf_voices = LD(hrtf_voices);
    out->underruns = LD(underruns);
    out->limiter_blocks = LD(limiter_blocks);
    out->peak[0] = bits_to_float(LD(peak[0]));
    out->peak[1] = bits_to_float(LD(peak[1]));
    out->channels = m->nch;
    out->out_peak[0] = out->peak[0];
    out->out_peak[1] = out->peak[1];
    for (uint32_t c = 2; c < m->nch && c < HL_LAYOUT_MAX_CH; c++)
        out->out_peak[c] = bits_to_float(LD(out_peak[c]));
    for (int i = 0; i < HL_MAX_BUSES; i++) {
        out->bus_peak[i] = bits_to_float(LD(bus_peak[i]));
        out->duck_gain[i] = bits_to_float(LD(duck_gain[i]));
    }
    out->wait_max_ns = LD(wait_max_ns);
    out->sched_late = LD(sched_late);
    out->sched_late_max_frames = LD(sched_late_max);
    out->sched_pending = hl_mixer_sched_pending(m);
    for (int i = 0; i < HL_MIX_WAIT_BUCKETS; i++)
        out->wait_hist[i] = LD(wait_hist[i]);
#undef LD
}

double hl_mixer_wait_bucket_upper_us(unsigned i) {
    const unsigned sub = 1u << HL_WAIT_SUB_BITS;
    const double unit_us = HL_WAIT_UNIT_NS / 1000.0;
    if (i + 1 >= HL_MIX_WAIT_BUCKETS) return INFINITY;
    if (i == 0) return unit_us * sub;
    unsigned o = (i - 1) / sub, q = (i - 1) % sub; /* octave above the first, quarter */
    return unit_us * (double)(sub + q + 1) * (double)(1ull << o);
}

void hl_mixer_set_fast_ramps(hl_mixer_t *m, int on) {
    m->no_fast_ramp = on ? 0u : 1u;
}

void hl_mixer_set_fast_height(hl_mixer_t *m, int on) {
    m->no_fast_height = on ? 0u : 1u;
}
