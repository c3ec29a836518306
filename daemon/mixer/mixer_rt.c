/*
 * mixer_rt.c - the audio-thread face of the mixer: hl_mixer_process_rt().
 *
 * Per call: set FTZ/DAZ, drain at most cmds_per_block commands, then render in
 * internal blocks of at most HL_MIX_BLOCK frames, cut at every frame a
 * scheduled command is due (mixer_sched.c), where it is applied. Per block and per voice the
 * parameters are computed once (3D gains, Doppler, pitch), the block is cut
 * into segments wherever a ramp ends (so every gain is one straight line per
 * segment and results do not depend on the caller's buffer size), and each
 * segment is rendered by the kernels in mix_kernels.c: a straight copy path at
 * pitch 1, otherwise interpolation (linear, 4-point cubic or windowed sinc,
 * sinc.c) fused with the
 * multiply-add into the accumulators, one pass for every source kind.
 * Buffer ends, loop points, loop crossfades and source fades (seek, stream
 * switch, underrun recovery) go through one scalar path; the interior never
 * checks per sample. Stream voices linearise the ring frames a run needs
 * after their kept history in one shared scratch, then use the same kernels.
 * Pitch ramps step on a grid counted from the ramp's start, so the output
 * does not depend on the process call size; the Doppler factor glides to its
 * per-block target on the same kind of grid (one-pole, counted from the
 * glide's start) and lands on it exactly. Curved envelope fades (equal power,
 * log) are straight segments between exact curve points HL_FADE_GRID frames
 * apart, so the kernels still see one straight envelope per segment. The
 * engine clock (frames rendered) stamps STARTED and ENDED events; a voice
 * whose fade-out ends inside a block is advanced silently to the block's end
 * so its ENDED cursor belongs to the ENDED frame. Buses are planar float
 * accumulators; mixer_bus.c runs the bus tree over them (insert effects,
 * sends, ducking, gains, children before parents) into the master, which is
 * then limited (bounded reduction, dsp.c) and interleaved.
 *
 * Speed (bench/mix): with thousands of voices the mix waits on memory, so the
 * block loop prefetches each voice's first cache line and the whole source
 * span it will read a few voices ahead. A voice whose envelope, gains, pitch
 * and fades have all settled is "steady": its first line (hl_rt_fast_t)
 * caches everything one block needs, and the loop mixes it from that line
 * alone with one kernel call (process_fast); any command on the voice, a
 * listener move or an edge of the source sends it back to the full path. A
 * 3D voice reuses its gain pair until it, its gain or the listener moves;
 * flat gains take kernels without the ramp polynomial; buses no voice wrote
 * are neither cleared, metered nor summed, the first live bus is the master
 * sum itself, and peaks are SSE max scans over four chains (levels.c).
 *
 * Nothing here locks, allocates, frees, does I/O, logs or waits; what the
 * audio thread is done with (ended voices, their PCM and streams, retired
 * streams and effects) goes back on the event ring.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "mixer_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#define HL_HAVE_MXCSR 1
#endif

#define HL_FP_SCALE (1.0f / 4294967296.0f) /* 2^-32: fixed-point fraction to float */
#define HL_FP_FRAC  0xFFFFFFFFu

/* ---- small helpers ----------------------------------------------------------- */

static void store_u64(_Atomic uint64_t *a, uint64_t v) {
    atomic_store_explicit(a, v, memory_order_relaxed);
}

static void add_u64(_Atomic uint64_t *a, uint64_t v) {
    /* single writer: a relaxed load + store, no locked RMW needed */
    store_u64(a, atomic_load_explicit(a, memory_order_relaxed) + v);
}

static void store_f32(_Atomic uint32_t *a, float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    atomic_store_explicit(a, b, memory_order_relaxed);
}

static void push_event_raw(hl_mixer_t *m, uint32_t type, uint32_t reason, uint64_t voice,
                           uint64_t tag, const hl_pcm_t *pcm, hl_stream_t *stream, uint64_t now_ns,
                           uint64_t frame, uint64_t cursor) {
    hl_mix_event_t ev = {
        .type = type,
        .reason = reason,
        .voice = voice,
        .tag = tag,
        .pcm = pcm,
        .time_ns = now_ns,
        .stream = stream,
        .frame = frame,
        .cursor = cursor,
    };
    /* Cannot fail: capacity >= 2 events per slot plus HL_STREAM_RETIRE_MAX,
     * slots are only reused after their ENDED event was consumed, and the
     * control side caps stream switches in flight. */
    (void)hl_ring_write(&m->ev_ring, &ev, 1);
}

static void push_event(hl_mixer_t *m, uint32_t type, uint32_t reason, const hl_rt_voice_t *v,
                       uint64_t now_ns, uint64_t frame, uint64_t cursor) {
    int ended = type == HL_MIX_EV_ENDED;
    push_event_raw(m, type, reason, ((uint64_t)v->gen << 32) | v->slot, v->tag,
                   ended ? v->pcm : NULL, ended ? v->stream : NULL, now_ns, frame, cursor);
}

/* Hands a stream the voice will never read back to the main thread. */
static void retire_stream(hl_mixer_t *m, const hl_rt_voice_t *v, hl_stream_t *st, uint64_t now_ns) {
    push_event_raw(m, HL_MIX_EV_STREAM_RETIRED, 0, ((uint64_t)v->gen << 32) | v->slot, v->tag, NULL,
                   st, now_ns, m->clock, 0);
}

/* Gain pair of a 2D voice: equal power for mono, balance for stereo. */
static void pair_2d(const hl_rt_voice_t *v, float gain, float pan, float *l, float *r) {
    if (v->channels == 2) {
        *l = gain * (pan > 0.0f ? 1.0f - pan : 1.0f);
        *r = gain * (pan < 0.0f ? 1.0f + pan : 1.0f);
    } else {
        hl_pan_equal_power(pan, l, r);
        *l *= gain;
        *r *= gain;
    }
}

/* OpenAL 1.1 Doppler pitch factor of a source at distance d (> 0) from the
 * listener: with SL = listener - source, vls and vss the listener's and the
 * source's velocities along SL, each at most ss / df,
 *   (ss - df * vls) / (ss - df * vss), clamped to [HL_DOPPLER_MIN, HL_DOPPLER_MAX]. */
static float doppler_of(const hl_mixer_t *m, const hl_rt_voice_t *v, float d) {
    const hl_listener_state_t *lis = &m->listener;
    const float df = v->dop_factor, ss = m->sound_speed;
    if (!(df > 0.0f) || !(d > 1e-6f)) return 1.0f;
    float sl[3], vls = 0.0f, vss = 0.0f;
    for (int a = 0; a < 3; a++) {
        sl[a] = lis->pos[a] - v->pos[a];
        vls += sl[a] * lis->vel[a];
        vss += sl[a] * v->vel[a];
    }
    const float vmax = ss / df;
    vls /= d;
    vss /= d;
    vls = vls < vmax ? vls : vmax;
    vss = vss < vmax ? vss : vmax;
    const float num = ss - df * vls, den = ss - df * vss;
    float dop = den > 0.0f ? num / den : HL_DOPPLER_MAX;
    if (!(dop == dop)) return 1.0f; /* NaN from extreme inputs */
    return dop < HL_DOPPLER_MIN ? HL_DOPPLER_MIN : dop > HL_DOPPLER_MAX ? HL_DOPPLER_MAX : dop;
}

/* Level of each ear's input of a binaural voice: the pan law's centre value,
 * so that a source straight ahead, which the HRTF set renders at unity power
 * per ear at 1 kHz (daemon/hrtf_load.c normalises it so), is as loud in each
 * ear as the same source panned to the centre without HRTF. */
#define HL_HRTF_LEVEL 0.70710678f

/* Direction of a source at pos in the listener's frame, as hl_hrtf.h takes
 * it (x right, y up, -z forward). The listener's up is made orthogonal to
 * its forward here (a game's frame may drift); a degenerate frame gives
 * zeros, which the renderer takes as straight ahead. */
static void listener_dir(const hl_listener_state_t *lis, const float pos[3], float dir[3]) {
    float rel[3], f[3], r[3], u[3];
    for (int a = 0; a < 3; a++) {
        rel[a] = pos[a] - lis->pos[a];
        f[a] = lis->fwd[a];
    }
    r[0] = f[1] * lis->up[2] - f[2] * lis->up[1]; /* right = forward x up */
    r[1] = f[2] * lis->up[0] - f[0] * lis->up[2];
    r[2] = f[0] * lis->up[1] - f[1] * lis->up[0];
    u[0] = r[1] * f[2] - r[2] * f[1]; /* up' = right x forward */
    u[1] = r[2] * f[0] - r[0] * f[2];
    u[2] = r[0] * f[1] - r[1] * f[0];
    const float fl = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    const float rl = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    const float ul = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (!(fl > 1e-12f && rl > 1e-12f && ul > 1e-12f)) {
        dir[0] = dir[1] = dir[2] = 0.0f;
        return;
    }
    dir[0] = (rel[0] * r[0] + rel[1] * r[1] + rel[2] * r[2]) / rl;
    dir[1] = (rel[0] * u[0] + rel[1] * u[1] + rel[2] * u[2]) / ul;
    dir[2] = -(rel[0] * f[0] + rel[1] * f[1] + rel[2] * f[2]) / fl;
}

/* Target gain pair and Doppler target of a 3D voice at position pos; returns
 * 1 when the voice is at or beyond max distance and inaudible (never with
 * HL_MIX_CLAMP: it keeps the gain it has at max distance). */
static int spatial_3d(const hl_mixer_t *m, hl_rt_voice_t *v, float gain, float *l, float *r) {
    const hl_listener_state_t *lis = &m->listener;
    float pan;
    float d = hl_spatial_pan(v->pos, lis->pos, lis->fwd, lis->up, &pan);
    const float dop = doppler_of(m, v, d);
    /* a new target starts the smoothing's grid afresh (see dop_advance) */
    if (v->doppler == v->dop_target && dop != v->dop_target) v->dop_phase = 0;
    v->dop_target = dop;
    if (v->hrtf) listener_dir(lis, v->pos, v->hdir);
    if (d >= v->max_d && !(v->flags & HL_MIX_CLAMP)) {
        *l = *r = 0.0f;
        return 1;
    }
    float g = gain * hl_distance_gain((int)v->model, d, v->min_d, v->max_d, v->rolloff);
    if (v->hrtf) { /* the HRIRs carry the direction: both channels are the mono input */
        *l = *r = g * HL_HRTF_LEVEL;
        return 0;
    }
    hl_pan_equal_power(pan, l, r);
    *l *= g;
    *r *= g;
    return 0;
}

static void pcm_view(hl_rt_voice_t *v);

/* ---- commands ---------------------------------------------------------------- */

static hl_rt_voice_t *rt_voice(hl_mixer_t *m, const hl_cmd_t *c) {
    if (c->slot >= m->slots) return NULL;
    hl_rt_voice_t *v = &m->rt[c->slot];
    return v->live && v->gen == c->gen ? v : NULL;
}

/* Pitch of the grid cell the voice is in: a pure function of the ramp's own
 * frame count, so it does not depend on how blocks were split. */
static float pitch_now(const hl_rt_voice_t *v) {
    if (v->pitch_pos >= v->pitch_len) return v->pitch_to;
    uint32_t cell = v->pitch_pos - v->pitch_pos % HL_PITCH_GRID; /* the cell's first frame */
    return v->pitch_from + (v->pitch_to - v->pitch_from) * ((float)cell / (float)v->pitch_len);
}

static void pitch_advance(hl_rt_voice_t *v, uint32_t n) {
    if (v->pitch_pos < v->pitch_len)
        v->pitch_pos = n >= v->pitch_len - v->pitch_pos ? v->pitch_len : v->pitch_pos + n;
}

/* Frames until the pitch may change (end of the grid cell or the ramp). */
static uint32_t pitch_run(const hl_rt_voice_t *v, uint32_t n) {
    if (v->pitch_pos >= v->pitch_len) return n;
    uint32_t cell = HL_PITCH_GRID - v->pitch_pos % HL_PITCH_GRID;
    uint32_t left = v->pitch_len - v->pitch_pos;
    cell = cell < left ? cell : left;
    return cell < n ? cell : n;
}

/* Doppler smoothing: while the factor in use differs from its target it
 * moves a fixed fraction (dop_coef, a one-pole filter with time constant
 * HL_DOPPLER_TAU_MS) of the way there at every HL_PITCH_GRID frames counted
 * from the smoothing's start, and lands on the target exactly once within
 * HL_DOPPLER_SNAP of it. Between grid points it is constant, like a pitch
 * ramp, so the output does not depend on how blocks are split. */
static void dop_advance(const hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n) {
    if (v->doppler == v->dop_target) return;
    v->dop_phase += n; /* segments stop at the grid: at most one step */
    if (v->dop_phase < HL_PITCH_GRID) return;
    v->dop_phase = 0;
    const float t = v->dop_target, d = v->doppler + m->dop_coef * (t - v->doppler);
    v->doppler = fabsf(t - d) <= HL_DOPPLER_SNAP * t ? t : d;
}

/* Frames until the rate may change: pitch grid cell or ramp end, Doppler grid. */
static uint32_t rate_run(const hl_rt_voice_t *v, uint32_t n) {
    uint32_t seg = pitch_run(v, n);
    if (v->doppler != v->dop_target) {
        uint32_t g = HL_PITCH_GRID - v->dop_phase;
        seg = g < seg ? g : seg;
    }
    return seg;
}

static void rate_advance(const hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n) {
    pitch_advance(v, n);
    dop_advance(m, v, n);
}

/* ---- envelope fades -------------------------------------------------------------
 * LINEAR is env itself, one ramp (exact per sample). The other curves run env
 * as straight segments between exact curve points HL_FADE_GRID frames apart,
 * counted from the fade's start: click-free, one curve evaluation per point,
 * and nothing at all once the envelope has settled. */

#define HL_LN10 2.302585093f

/* Level of the curved fade at fraction t (0 < t <= 1) of its length. */
static float fade_level(const hl_rt_voice_t *v, float t) {
    if (t >= 1.0f) return v->fup ? 1.0f : 0.0f;
    if (v->fcurve == HL_FADE_EQUAL_POWER) {
        const float q = t * 1.57079632679f; /* quarter wave */
        return v->fup ? v->fs + (1.0f - v->fs) * sinf(q) : v->fs * cosf(q);
    }
    return v->fbase * expf(v->fk * t); /* log: straight in dB */
}

/* Points env at the next curve point of the fade (env.rem was 0). */
static void fade_next(hl_rt_voice_t *v) {
    const uint32_t len = v->flen - v->fpos < HL_FADE_GRID ? v->flen - v->fpos : HL_FADE_GRID;
    v->fpos += len;
    v->env.target = fade_level(v, (float)v->fpos / (float)v->flen);
    v->env.rem = len;
    if (v->fpos >= v->flen) v->flen = 0; /* the last segment: a plain ramp now */
}

/* Starts a fade of env from its current level to `up` (1) or 0 over frames
 * (>= 1) with curve (HL_FADE_*). */
static void fade_start(hl_rt_voice_t *v, uint32_t up, uint32_t frames, uint32_t curve) {
    const float s = v->env.cur;
    v->env.target = up ? 1.0f : 0.0f;
    v->env.rem = frames;
    v->flen = 0;
    if (curve != HL_FADE_EQUAL_POWER && curve != HL_FADE_LOG) return; /* linear: one ramp */
    v->fcurve = curve;
    v->fup = up;
    v->fs = s;
    if (curve == HL_FADE_LOG) {
        const float db = hl_lin_to_db(s);
        if (up) { /* from max(level, floor) dB up to 0 dB */
            const float d0 = db > HL_FADE_FLOOR_DB ? db : HL_FADE_FLOOR_DB;
            if (d0 >= 0.0f) return; /* nothing to shape */
            v->fbase = expf(HL_LN10 * d0 / 20.0f);
            v->fk = -HL_LN10 * d0 / 20.0f;
        } else { /* from the level down to the floor, then 0 at the end */
            if (db <= HL_FADE_FLOOR_DB) return; /* too quiet to shape: linear */
            v->fbase = s;
            v->fk = HL_LN10 * (HL_FADE_FLOOR_DB - db) / 20.0f;
        }
    }
    v->fpos = 0;
    v->flen = frames;
    fade_next(v);
}

/* After env advanced: a curved fade whose segment ended goes on to the next. */
static inline void fade_step(hl_rt_voice_t *v) {
    if (v->env.rem == 0 && v->flen) fade_next(v);
}

/* Advances env over n frames through as many curve segments as it takes. */
static void env_advance(hl_rt_voice_t *v, uint32_t n) {
    for (;;) {
        const uint32_t k = v->env.rem && v->env.rem < n ? v->env.rem : n;
        ramp_advance(&v->env, k);
        fade_step(v);
        n -= k;
        if (n == 0 || v->env.rem == 0) return;
    }
}

static void stream_reset(hl_rt_voice_t *v) {
    memset(v->stream->hist, 0, sizeof v->stream->hist);
    v->hold[0] = v->hold[1] = 0.0f;
    v->scur = (uint64_t)HL_STREAM_HIST << 32; /* first frame of the ring */
    v->spulled = 0;
    v->ur = 0;
    v->ur_pos = 0;
}

/* 1 while the voice needs its post stage: binaural rendering, a filter on
 * or gliding, an occlusion gain, a send. */
static uint32_t post_needed(const hl_rt_voice_t *v) {
    uint32_t p =
        v->hrtf || hl_vfilter_active(&v->vf) || v->occ.cur != 1.0f || v->occ.target != 1.0f;
    for (int i = 0; i < HL_MAX_SENDS; i++)
        p |= v->send[i].cur != 0.0f || v->send[i].target != 0.0f;
    return p;
}

static void cmd_play(hl_mixer_t *m, const hl_cmd_t *c) {
    if (c->slot >= m->slots || m->rt[c->slot].live) return;
    const hl_voice_params_t *p = &c->u.play;
    hl_rt_voice_t *v = &m->rt[c->slot];
    memset(v, 0, sizeof *v);
    v->live = 1;
    v->gen = c->gen;
    v->slot = c->slot;
    v->pcm = p->pcm;
    v->stream = p->stream;
    v->flags = p->flags;
    if ((v->flags & HL_MIX_SINC) && !m->sinc) v->flags = hl_interp_flags(v->flags, HL_INTERP_CUBIC);
    if (p->stream) {
        v->channels = p->stream->channels;
        stream_reset(v);
    } else {
        v->channels = p->pcm->channels;
        v->src.data = p->pcm->data;
        v->src.frames = p->pcm->frames;
        v->src.ch = p->pcm->channels;
        v->loop_start = p->loop_start;
        v->loop_end = p->loop_end ? p->loop_end : p->pcm->frames;
        v->loop_xfade = p->loop_xfade;
        v->loops_left =
            p->loop_count ? p->loop_count : ((p->flags & HL_MIX_LOOP) ? HL_LOOP_FOREVER : 0);
        v->loop_on = v->loops_left != 0;
        /* a start past the loop region never reaches the loop (as a seek there) */
        if (v->loop_on && p->start_frame >= v->loop_end) v->loop_on = v->loops_left = 0;
        v->f.cursor = (uint64_t)p->start_frame << 32;
        pcm_view(v);
    }
    v->bus = p->bus < HL_MAX_BUSES ? p->bus : HL_BUS_SFX;
    v->tag = p->tag;
    /* binaural from the first block on a fresh convolver: nothing of the
     * slot's previous voice (a stolen or ended one) rings into this one */
    v->hrtf = (p->flags & HL_MIX_3D) && m->hrtf;
    if (v->hrtf) hl_hrtf_voice_reset_rt(&m->hrtf_v[c->slot]);
    hl_vfilter_init_rt(&v->vf, (float)m->cfg.rate, p->lp_hz, p->hp_hz);
    v->occ.cur = v->occ.target = p->occ_db < 0.0f ? hl_db_to_lin(p->occ_db) : 1.0f;
    for (int i = 0; i < HL_MAX_SENDS; i++) {
        v->send[i].cur = v->send[i].target = p->send_gain[i];
        v->send_bus[i] = (uint8_t)(p->send_bus[i] < HL_MAX_BUSES ? p->send_bus[i] : 0);
    }
    v->post = post_needed(v);
    v->pitch_from = v->pitch_to = p->pitch;
    v->xf.cur = v->xf.target = 1.0f;
    v->gain.cur = v->gain.target = p->gain;
    v->gain_2d = p->gain;
    v->pan_2d = p->pan;
    memcpy(v->pos, p->pos, sizeof v->pos);
    memcpy(v->pos_to, p->pos, sizeof v->pos);
    v->min_d = p->min_distance;
    v->max_d = p->max_distance;
    v->rolloff = p->rolloff;
    v->model = p->model;
    memcpy(v->vel, p->vel, sizeof v->vel);
    v->dop_factor = p->doppler_factor;
    v->doppler = v->dop_target = 1.0f;
    float l, r;
    if (v->flags & HL_MIX_3D) {
        (void)spatial_3d(m, v, p->gain, &l, &r);
        v->doppler = v->dop_target; /* the first block plays at the formula's value */
    } else {
        pair_2d(v, p->gain, p->pan, &l, &r);
    }
    v->gl.cur = v->gl.target = l;
    v->gr.cur = v->gr.target = r;
    if (v->flags & HL_MIX_PAUSED) {
        v->env_mode = HL_ENV_PAUSED;
    } else if (p->attack_frames) {
        fade_start(v, 1, p->attack_frames, p->attack_curve);
    } else {
        v->env.cur = v->env.target = 1.0f;
    }
    m->rt_active[m->n_rt_active++] = c->slot;
}

static void cmd_stop(hl_mixer_t *m, const hl_cmd_t *c) {
    hl_rt_voice_t *v = rt_voice(m, c);
    /* gone, already fading (keep that fade), or its source already over and
     * the binaural ring-out playing (it ends on its own, FINISHED) */
    if (!v || v->env_mode == HL_ENV_RELEASE || v->htail) return;
    v->f.steady = 0;
    v->end_reason = c->u.stop.reason;
    if (v->env_mode == HL_ENV_PAUSED || (!v->started && c->at_frame)) {
        /* paused, or stopped on the very frame its scheduled start was for
         * (a scheduled play cancelled before it began: the stop was held
         * for it): silent already, it ends next block without a sound */
        v->env.cur = v->env.target = 0.0f;
        v->env.rem = 0;
        v->flen = 0;
    } else { /* from the level it is at, e.g. part way through a fade-in */
        fade_start(v, 0, c->u.stop.release_frames ? c->u.stop.release_frames : HL_STOP_FADE_MIN,
                   c->u.stop.curve);
    }
    v->env_mode = HL_ENV_RELEASE;
}

/* Seek or stream switch: fade the source out; the jump happens when the
 * fade reaches zero (do_switch). A newer request replaces a pending one. */
static void cmd_jump(hl_mixer_t *m, hl_rt_voice_t *v, const hl_voice_set_t *s, uint64_t now_ns) {
    if (s->mask & HL_MIX_SET_STREAM) {
        if (!v->stream) { /* not a stream voice: refused by the control side */
            retire_stream(m, v, s->stream, now_ns);
            return;
        }
        if (v->pending) retire_stream(m, v, v->pending, now_ns);
        v->pending = s->stream;
        v->sw_mode = HL_SW_STREAM;
    } else {
        if (v->stream) return;
        v->seek_frame = s->seek_frame;
        v->sw_mode = HL_SW_SEEK;
    }
    v->xf.cur = ramp_after(&v->xf, 0);
    ramp_set(&v->xf, 0.0f, HL_SEEK_FADE);
}

static void cmd_set(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    const hl_voice_set_t *s = &c->u.set;
    hl_rt_voice_t *v = rt_voice(m, c);
    if (!v) {
        /* the voice ended before the switch arrived: the new stream comes back */
        if ((s->mask & HL_MIX_SET_STREAM) && s->stream)
            push_event_raw(m, HL_MIX_EV_STREAM_RETIRED, 0, ((uint64_t)c->gen << 32) | c->slot, 0,
                           NULL, s->stream, now_ns, m->clock, 0);
        return;
    }
    v->f.steady = 0; /* whatever changes, the full path sees it first */
    uint32_t len = hl_ramp_len(s->ramp_frames);
    if (s->mask & HL_MIX_SET_PITCH) {
        v->pitch_from = pitch_now(v);
        v->pitch_to = s->pitch;
        v->pitch_len = len;
        v->pitch_pos = 0;
    }
    if (v->flags & HL_MIX_3D) {
        if (s->mask & (HL_MIX_SET_GAIN | HL_MIX_SET_POS | HL_MIX_SET_VEL)) v->sp_gen = 0;
        if (s->mask & HL_MIX_SET_VEL) memcpy(v->vel, s->vel, sizeof v->vel);
        if (s->mask & HL_MIX_SET_GAIN) ramp_set(&v->gain, s->gain, len);
        if (s->mask & HL_MIX_SET_POS) {
            memcpy(v->pos_from, v->pos, sizeof v->pos);
            memcpy(v->pos_to, s->pos, sizeof v->pos);
            v->pos_rem = v->pos_len = len;
        }
    } else if (s->mask & (HL_MIX_SET_GAIN | HL_MIX_SET_PAN)) {
        if (s->mask & HL_MIX_SET_GAIN) v->gain_2d = s->gain;
        if (s->mask & HL_MIX_SET_PAN) v->pan_2d = s->pan;
        float l, r;
        pair_2d(v, v->gain_2d, v->pan_2d, &l, &r);
        ramp_set(&v->gl, l, len);
        ramp_set(&v->gr, r, len);
    }
    if ((s->mask & HL_MIX_SET_PAUSE) &&
        (v->env_mode == HL_ENV_RUN || v->env_mode == HL_ENV_PAUSING)) {
        v->env_mode = HL_ENV_PAUSING;
        fade_start(v, 0, len, HL_FADE_LINEAR);
    } else if ((s->mask & HL_MIX_SET_RESUME) &&
               (v->env_mode == HL_ENV_PAUSED || v->env_mode == HL_ENV_PAUSING)) {
        v->env_mode = HL_ENV_RUN;
        fade_start(v, 1, len, HL_FADE_LINEAR);
    }
    if (s->mask & HL_MIX_SET_FILTER) {
        hl_vfilter_set_rt(&v->vf, s->lp_hz, s->hp_hz, len);
        v->occ.cur = ramp_after(&v->occ, 0);
        ramp_set(&v->occ, s->occ_db < 0.0f ? hl_db_to_lin(s->occ_db) : 1.0f, len);
    }
    if (s->mask & HL_MIX_SET_SENDS)
        for (int i = 0; i < HL_MAX_SENDS; i++) {
            uint8_t b = (uint8_t)(s->send_bus[i] < HL_MAX_BUSES ? s->send_bus[i] : 0);
            if (b != v->send_bus[i]) { /* moved: starts on the new bus from silence */
                v->send_bus[i] = b;
                v->send[i].cur = 0.0f;
            }
            ramp_set(&v->send[i], s->send_gain[i], len);
        }
    if (s->mask & (HL_MIX_SET_FILTER | HL_MIX_SET_SENDS)) v->post = post_needed(v) | 1u;
    if (s->mask & HL_MIX_SET_INTERP) {
        v->flags = hl_interp_flags(
            v->flags, s->cubic == HL_INTERP_SINC && !m->sinc ? HL_INTERP_CUBIC : s->cubic);
        if (!v->stream) pcm_view(v); /* a stream's run reads the flag */
    }
    if (s->mask & (HL_MIX_SET_SEEK | HL_MIX_SET_STREAM)) cmd_jump(m, v, s, now_ns);
}

/* Wait histogram bucket of a wait (see HL_MIX_WAIT_BUCKETS): in 2 us units
 * w, bucket 0 is w < 4 (8 us); above, the octave of w's leading bit and the
 * next two bits pick one of 4 buckets per octave. */
static uint32_t wait_bucket(uint64_t wait_ns) {
    const uint64_t sub = 1u << HL_WAIT_SUB_BITS;
    uint64_t w = wait_ns / HL_WAIT_UNIT_NS;
    if (w < sub) return 0;
    uint32_t o = 63u - (uint32_t)__builtin_clzll(w); /* >= HL_WAIT_SUB_BITS */
    uint32_t q = (uint32_t)(w >> (o - HL_WAIT_SUB_BITS)) & (uint32_t)(sub - 1);
    uint64_t b = 1 + ((uint64_t)(o - HL_WAIT_SUB_BITS) << HL_WAIT_SUB_BITS) + q;
    return b < HL_MIX_WAIT_BUCKETS ? (uint32_t)b : HL_MIX_WAIT_BUCKETS - 1;
}

void hl_cmd_apply_rt(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    switch (c->type) {
    case HL_CMD_PLAY: cmd_play(m, c); break;
    case HL_CMD_STOP: cmd_stop(m, c); break;
    case HL_CMD_SET: cmd_set(m, c, now_ns); break;
    case HL_CMD_LISTENER:
        m->listener = c->u.listener;
        if (++m->listener_gen == 0) m->listener_gen = 1; /* 0 marks a stale 3D pair */
        break;
    case HL_CMD_BUS:
        if (c->u.bus.bus >= 0 && c->u.bus.bus < HL_NUM_GAINS) {
            hl_ramp_t *g = c->u.bus.mute ? &m->bus[c->u.bus.bus].mute : &m->bus_gain[c->u.bus.bus];
            g->cur = ramp_after(g, 0);
            ramp_set(g, c->u.bus.gain, hl_ramp_len(c->u.bus.ramp_frames));
        }
        break;
    case HL_CMD_GRAPH:
    case HL_CMD_FX:
    case HL_CMD_FX_PARAM:
    case HL_CMD_DUCK:
    case HL_CMD_BUS_SEND: hl_bus_apply_rt(m, c, now_ns); break;
    default: break;
    }
    uint64_t wait = now_ns > c->enq_ns ? now_ns - c->enq_ns : 0;
    hl_mix_stats_atomic_t *st = &m->stats;
    if (wait > atomic_load_explicit(&st->wait_max_ns, memory_order_relaxed))
        store_u64(&st->wait_max_ns, wait);
    add_u64(&st->wait_hist[wait_bucket(wait)], 1);
}

/* ceil(a / b), b > 0, without overflow. */
static uint64_t ceil_div(uint64_t a, uint64_t b) {
    return a / b + (a % b != 0);
}

/* ---- sources ------------------------------------------------------------------- */

typedef hl_src_view_t src_view_t;

/* Frames the interpolator reads after floor(x): 1 (linear), 2 (cubic) or
 * half (sinc), plus one, so the kernels' guard "position < lim" keeps every
 * read inside. */
static uint32_t taps_after(const src_view_t *s) {
    if (s->cubic == HL_INTERP_SINC) return (s->sl ? s->sl->half : HL_SINC_MAX_HALF) + 1;
    return s->cubic ? HL_INTERP_TAPS - 1 : HL_INTERP_TAPS / 2;
}

static void view_limits(src_view_t *s, uint32_t fast_end) {
    uint32_t ta = taps_after(s);
    s->copy_end = fast_end;
    s->lim_fp = fast_end > ta ? (uint64_t)(fast_end - ta) << 32 : 0;
}

/* Lowest cursor of the interpolating kernels: cubic reads the frame before,
 * sinc half - 1 frames before. */
static uint64_t view_lo(const src_view_t *s) {
    if (s->cubic == HL_INTERP_SINC)
        return (uint64_t)((s->sl ? s->sl->half : HL_SINC_MAX_HALF) - 1) << 32;
    return s->cubic ? HL_FP_ONE : 0;
}

/* The view's interpolator from the voice's flags (SINC is only set when the
 * mixer has tables: cmd_play and HL_MIX_SET_INTERP see to it). */
static uint32_t interp_mode(uint32_t flags) {
    return (flags & HL_MIX_SINC)    ? HL_INTERP_SINC
           : (flags & HL_MIX_CUBIC) ? HL_INTERP_CUBIC
                                    : HL_INTERP_LINEAR;
}

/* A sinc view follows the step: the level (kernel width) for it, and the
 * limits that width gives. */
static inline void sinc_follow(const hl_mixer_t *m, src_view_t *s, uint64_t step) {
    if (s->cubic != HL_INTERP_SINC) return;
    const hl_sinc_level_t *sl = hl_sinc_level(m->sinc, step);
    if (sl != s->sl) {
        s->sl = sl;
        view_limits(s, s->copy_end);
    }
}

/* Recomputes the voice's PCM view after a loop or seek changed it. */
static void pcm_view(hl_rt_voice_t *v) {
    src_view_t *s = &v->src;
    s->cubic = interp_mode(v->flags);
    s->sl = NULL; /* sinc: the widest reach until render_src picks the level */
    hl_loop_view_t *lp = &v->lv;
    lp->on = v->loop_on;
    lp->ls = v->loop_start;
    lp->le = v->loop_end;
    lp->xfade = v->loop_on ? v->loop_xfade : 0;
    lp->wrapped = v->wrapped;
    s->loop = lp;
    s->end_fp = (uint64_t)(v->loop_on ? v->loop_end : s->frames) << 32;
    view_limits(s, v->loop_on ? v->loop_end - lp->xfade : s->frames);
}

/* Frame i of the source as (first, last) channel: past the loop end it
 * continues at the loop start, before frame 0 of a wrapped loop at the loop
 * end, elsewhere outside the data it is silence. */
static void fetch(const src_view_t *s, int64_t i, float *l, float *r) {
    const hl_loop_view_t *lp = s->loop;
    int64_t len = (int64_t)lp->le - (int64_t)lp->ls;
    if (lp->on && i >= (int64_t)lp->le)
        i = lp->ls + (i - lp->ls) % len;
    else if (i < 0 && lp->wrapped)
        i += len;
    if (i < 0 || i >= (int64_t)s->frames) {
        *l = *r = 0.0f;
        return;
    }
    const float *p = s->data + (size_t)i * s->ch;
    *l = p[0];
    *r = p[s->ch - 1];
}

/* Interpolated (first, last) channel at fixed-point position pos. */
static void interp_at(const src_view_t *s, uint64_t pos, float *l, float *r) {
    int64_t i = (int64_t)(pos >> 32);
    float f = (float)(uint32_t)(pos & HL_FP_FRAC) * HL_FP_SCALE;
    if (s->cubic == HL_INTERP_SINC && s->sl) {
        const hl_sinc_level_t *sl = s->sl;
        float k[2 * HL_SINC_MAX_HALF], sl_l = 0.0f, sl_r = 0.0f;
        hl_sinc_kernel(sl, (uint32_t)pos, k);
        int64_t base = i - (int64_t)(sl->half - 1);
        for (uint32_t j = 0; j < sl->taps; j++) {
            float x, y;
            fetch(s, base + j, &x, &y);
            sl_l += k[j] * x;
            sl_r += k[j] * y;
        }
        *l = sl_l;
        *r = sl_r;
        return;
    }
    float al, ar, bl, br;
    fetch(s, i, &al, &ar);
    fetch(s, i + 1, &bl, &br);
    if (!s->cubic) {
        *l = al + f * (bl - al);
        *r = ar + f * (br - ar);
        return;
    }
    float zl, zr, cl, cr;
    fetch(s, i - 1, &zl, &zr);
    fetch(s, i + 2, &cl, &cr);
    *l = hl_catmull_rom(zl, al, bl, cl, f);
    *r = hl_catmull_rom(zr, ar, br, cr, f);
}

/* One output sample (pre-gain) into l/r: the crossfade blends the loop's
 * tail with the frames before loop_start. */
static void sample_at(const src_view_t *s, uint64_t pos, float *l, float *r) {
    interp_at(s, pos, l, r);
    const hl_loop_view_t *lp = s->loop;
    if (lp->xfade) {
        uint64_t xs = (uint64_t)(lp->le - lp->xfade) << 32;
        if (pos >= xs) {
            float w = (float)((double)(pos - xs) / (double)((uint64_t)lp->xfade << 32));
            float l2, r2;
            interp_at(s, pos - ((uint64_t)(lp->le - lp->ls) << 32), &l2, &r2);
            *l += w * (l2 - *l);
            *r += w * (r2 - *r);
        }
    }
}

/* The scalar path: edges (buffer ends, loop points, the frame before 0),
 * crossfades and source fades (xf). Writes cnt samples into the scratch,
 * planar when stereo_out, else mono (downmixed). */
__attribute__((noinline, cold)) static void render_slow(hl_mixer_t *m, const hl_rt_voice_t *v,
                                                        const src_view_t *s, uint64_t pos,
                                                        uint32_t cnt, uint64_t step,
                                                        int stereo_out) {
    float *dl = m->scratch[0], *dr = m->scratch[1];
    for (uint32_t j = 0; j < cnt; j++, pos += step) {
        float l, r;
        sample_at(s, pos, &l, &r);
        float g = ramp_after(&v->xf, j + 1);
        if (stereo_out) {
            dl[j] = l * g;
            dr[j] = r * g;
        } else {
            dl[j] = (s->ch == 2 ? (l + r) * 0.5f : l) * g;
        }
    }
}

/* The cursor passed end_fp: wraps into the loop (returns 1) or ends (0).
 * s is the voice's own view (only PCM voices loop). */
static int wrap_cursor(hl_rt_voice_t *v, src_view_t *s, uint64_t *cur) {
    const hl_loop_view_t *lp = s->loop;
    if (!lp->on) return 0;
    uint64_t len = (uint64_t)(lp->le - lp->ls) << 32;
    *cur = ((uint64_t)lp->ls << 32) + (*cur - s->end_fp) % len;
    v->wrapped = 1;
    if (v->loops_left != HL_LOOP_FOREVER && --v->loops_left == 0) v->loop_on = 0;
    pcm_view(v);
    return 1;
}

/* Renders n frames of source s from *cur into acc_l/acc_r with gain ramp g
 * at fixed-point step. Returns the frames rendered; sets *finished when the
 * source ended (loops wrap). Fast kernels in the interior, the scalar path
 * at the edges and while a source fade runs. */
static inline __attribute__((always_inline)) uint32_t
render_src(hl_mixer_t *m, hl_rt_voice_t *v, src_view_t *s, uint64_t *cur, float *acc_l,
           float *acc_r, uint32_t n, const hl_gain_ramp_t *g, uint64_t step, int *finished) {
    const hl_mix_kernels_t *k = m->k;
    const uint32_t ch = s->ch;
    const int stereo_out = ch == 2 && !(v->flags & HL_MIX_3D);
    uint32_t done = 0;
    while (done < n) {
        sinc_follow(m, s, step); /* a wrap recomputes the view */
        uint32_t rest = n - done, cnt;
        const uint64_t c = *cur;
        uint32_t idx = (uint32_t)(c >> 32);
        uint32_t frac = (uint32_t)(c & HL_FP_FRAC);
        /* re-base the quadratic on this run's first frame */
        const float dn = (float)done;
        hl_gain_ramp_t gg = {g->l0 + dn * (g->dl + dn * g->ql), g->dl + 2.0f * dn * g->ql, g->ql,
                             g->r0 + dn * (g->dr + dn * g->qr), g->dr + 2.0f * dn * g->qr, g->qr};
        const int fade = v->xf.rem != 0 || v->xf.cur != 1.0f;
        const float *src = s->data + (size_t)idx * ch;
        if (!fade && step == HL_FP_ONE && frac == 0 && idx < s->copy_end) {
            /* straight copy path */
            uint32_t avail = s->copy_end - idx;
            cnt = rest < avail ? rest : avail;
            if (ch == 1)
                k->mix_mono(acc_l + done, acc_r + done, src, cnt, &gg);
            else if (stereo_out)
                k->mix_stereo(acc_l + done, acc_r + done, src, cnt, &gg);
            else
                k->mix_downmix(acc_l + done, acc_r + done, src, cnt, &gg);
            *cur += (uint64_t)cnt << 32;
        } else {
            const uint64_t lo = view_lo(s);
            if (!fade && c >= lo && c < s->lim_fp) {
                /* the whole rest fits before lim (the usual case): no division */
                if ((uint64_t)rest * step <= s->lim_fp - c) {
                    cnt = rest;
                } else {
                    uint64_t c64 = ceil_div(s->lim_fp - c, step);
                    cnt = c64 < rest ? (uint32_t)c64 : rest;
                }
                float f0 = (float)frac * HL_FP_SCALE, fs = (float)step * HL_FP_SCALE;
                float *fl = acc_l + done, *fr = acc_r + done;
                const uint32_t avail = s->frames - idx;
                /* resample and mix in one pass, no scratch */
                if (s->cubic == HL_INTERP_SINC) {
                    const hl_sinc_kernels_t *sk = m->sk;
                    if (ch == 1)
                        sk->mono(fl, fr, src, cnt, frac, step, &gg, s->sl);
                    else if (stereo_out)
                        sk->stereo(fl, fr, src, cnt, frac, step, &gg, s->sl);
                    else
                        sk->downmix(fl, fr, src, cnt, frac, step, &gg, s->sl);
                } else if (s->cubic) {
                    if (ch == 1)
                        k->cubic_mix_mono(fl, fr, src, avail, cnt, f0, fs, &gg);
                    else if (stereo_out)
                        k->cubic_mix_stereo(fl, fr, src, avail, cnt, f0, fs, &gg);
                    else
                        k->cubic_mix_downmix(fl, fr, src, avail, cnt, f0, fs, &gg);
                } else if (ch == 1) {
                    k->interp_mix_mono(fl, fr, src, avail, cnt, f0, fs, &gg);
                } else if (stereo_out) {
                    k->interp_mix_stereo(fl, fr, src, avail, cnt, f0, fs, &gg);
                } else {
                    k->interp_mix_downmix(fl, fr, src, avail, cnt, f0, fs, &gg);
                }
            } else {
                /* scalar: up to the interior (or the end), or through the fade */
                uint64_t stop = (!fade && c < lo) ? lo : s->end_fp;
                uint64_t c64 = stop > c ? ceil_div(stop - c, step) : 1;
                cnt = c64 < rest ? (uint32_t)c64 : rest;
                if (fade && v->xf.rem && v->xf.rem < cnt) cnt = v->xf.rem;
                render_slow(m, v, s, c, cnt, step, stereo_out);
                ramp_advance(&v->xf, cnt);
                if (stereo_out)
                    k->mix_planar(acc_l + done, acc_r + done, m->scratch[0], m->scratch[1], cnt,
                                  &gg);
                else
                    k->mix_mono(acc_l + done, acc_r + done, m->scratch[0], cnt, &gg);
            }
            *cur += (uint64_t)cnt * step;
        }
        done += cnt;
        if (*cur >= s->end_fp && !wrap_cursor(v, s, cur)) {
            *finished = 1;
            return done;
        }
    }
    return done;
}

_Static_assert(HL_STREAM_SCRATCH * 2 >= 2 * HL_MIX_BLOCK, "sbuf holds a PCM voice's own pair");

/* ---- non-finite guard ------------------------------------------------------------ */

/* The loader and the decoder zero NaN and infinite samples, so this is the
 * second line: one voice must never turn a bus into NaN for everyone.
 * 1 if every x[0..n) is finite (or the sum of a span of huge finite values
 * overflows, which only garbage does: muted too). One add per four samples:
 * Inf and NaN survive any sum of the others. */
static inline __attribute__((always_inline)) int span_finite(const float *x, uint32_t n) {
    uint32_t i = 0;
#if defined(__SSE2__)
    /* eight chains: bound by loads, not by the adds' latency */
    __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (; i + 32 <= n; i += 32) {
        a0 = _mm_add_ps(a0, _mm_loadu_ps(x + i));
        a1 = _mm_add_ps(a1, _mm_loadu_ps(x + i + 4));
        a2 = _mm_add_ps(a2, _mm_loadu_ps(x + i + 8));
        a3 = _mm_add_ps(a3, _mm_loadu_ps(x + i + 12));
        a4 = _mm_add_ps(a4, _mm_loadu_ps(x + i + 16));
        a5 = _mm_add_ps(a5, _mm_loadu_ps(x + i + 20));
        a6 = _mm_add_ps(a6, _mm_loadu_ps(x + i + 24));
        a7 = _mm_add_ps(a7, _mm_loadu_ps(x + i + 28));
    }
    for (; i + 4 <= n; i += 4)
        a0 = _mm_add_ps(a0, _mm_loadu_ps(x + i));
    a0 = _mm_add_ps(_mm_add_ps(_mm_add_ps(a0, a1), _mm_add_ps(a2, a3)),
                    _mm_add_ps(_mm_add_ps(a4, a5), _mm_add_ps(a6, a7)));
    a0 = _mm_mul_ps(a0, _mm_setzero_ps()); /* 0, or NaN for Inf/NaN */
    if (_mm_movemask_ps(_mm_cmpunord_ps(a0, a0))) return 0;
#endif
    float t = 0.0f;
    for (; i < n; i++)
        t += x[i];
    return t - t == 0.0f;
}

/* A stream's linearised frames are the mixer's own copy: zero what is not
 * finite there (cold: streams already take the full path). */
static void span_sanitize(float *x, uint32_t n) {
    if (span_finite(x, n)) return;
    for (uint32_t i = 0; i < n; i++)
        if (x[i] - x[i] != 0.0f) x[i] = 0.0f;
}

static int gains_finite(const hl_gain_ramp_t *g) {
    float t = g->l0 + g->dl + g->ql + g->r0 + g->dr + g->qr;
    return t - t == 0.0f;
}

/* ---- streams ------------------------------------------------------------------- */

static const hl_loop_view_t no_loop; /* streams do not loop */

_Static_assert(HL_STREAM_BACK + 1 == HL_SINC_MAX_HALF && HL_STREAM_REACH == HL_SINC_MAX_HALF,
               "a stream's history covers the widest sinc kernel");

/* The most output frames a run from x0 can render when `a` frames follow the
 * kept history: the interpolator reaches `reach` frames past floor(x) (2 for
 * linear and cubic, the kernel's half for sinc) and the re-based history
 * needs the frame after the final cursor (see render_stream). */
static uint32_t stream_frames_for(uint64_t x0, uint64_t step, uint64_t a, uint32_t reach) {
    /* floor(x0 + (cnt-1) * step) + reach <= HIST + a - 1 and
     * floor(x0 + cnt * step) <= a + BACK */
    if (a + HL_STREAM_HIST < (uint64_t)reach + 1) return 0;
    uint64_t lim1 = (a + HL_STREAM_HIST - reach) << 32, lim2 = (a + HL_STREAM_BACK + 1) << 32;
    if (lim1 <= x0) return 0;
    uint64_t c1 = (lim1 - x0 - 1) / step + 1;
    uint64_t c2 = (lim2 - x0 - 1) / step;
    uint64_t c = c1 < c2 ? c1 : c2;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/* The underrun decay: the last sample of each channel falls linearly to 0
 * over HL_UNDERRUN_FADE frames, then zeros. */
static void render_decay(hl_mixer_t *m, hl_rt_voice_t *v, float *acc_l, float *acc_r, uint32_t cnt,
                         const hl_gain_ramp_t *gg, int stereo_out) {
    const float inv = 1.0f / (float)HL_UNDERRUN_FADE;
    for (uint32_t j = 0; j < cnt; j++) {
        uint32_t k = v->ur_pos + j + 1;
        float w = k >= HL_UNDERRUN_FADE ? 0.0f : 1.0f - (float)k * inv;
        m->scratch[0][j] = v->hold[0] * w;
        m->scratch[1][j] = v->hold[1] * w;
    }
    v->ur_pos = v->ur_pos + cnt > HL_UNDERRUN_FADE ? HL_UNDERRUN_FADE : v->ur_pos + cnt;
    if (stereo_out)
        m->k->mix_planar(acc_l, acc_r, m->scratch[0], m->scratch[1], cnt, gg);
    else
        m->k->mix_mono(acc_l, acc_r, m->scratch[0], cnt, gg);
}

static void underrun_begin(hl_mixer_t *m, hl_rt_voice_t *v) {
    v->ur = 1;
    v->ur_pos = 0;
    hl_stream_t *st = v->stream;
    atomic_store_explicit(&st->underruns,
                          atomic_load_explicit(&st->underruns, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    add_u64(&m->stats.underruns, 1);
}

/* Renders n frames of a stream voice. The kept history (HL_STREAM_HIST
 * frames) and the ring frames a run needs are copied into the shared sbuf;
 * the cursor is relative to sbuf[0] and is re-based after each run, so it
 * stays continuous across blocks and pushes. Never waits: a short ring is an
 * underrun. Sets *finished when the producer finished and the ring drained. */
__attribute__((noinline, cold)) static void render_stream(hl_mixer_t *m, hl_rt_voice_t *v,
                                                          float *acc_l, float *acc_r, uint32_t n,
                                                          const hl_gain_ramp_t *g, uint64_t step,
                                                          int *finished) {
    hl_stream_t *st = v->stream;
    const uint32_t ch = v->channels, fsz = ch * (uint32_t)sizeof(float);
    const int stereo_out = ch == 2 && !(v->flags & HL_MIX_3D);
    const uint32_t mode = interp_mode(v->flags);
    /* sinc: the kernel for this step, and how far it reads ahead */
    const hl_sinc_level_t *sl = mode == HL_INTERP_SINC ? hl_sinc_level(m->sinc, step) : NULL;
    const uint32_t reach = sl ? sl->half : 2;
    uint32_t done = 0;
    while (done < n) {
        uint32_t rest = n - done;
        const float dn = (float)done;
        hl_gain_ramp_t gg = {g->l0 + dn * (g->dl + dn * g->ql), g->dl + 2.0f * dn * g->ql, g->ql,
                             g->r0 + dn * (g->dr + dn * g->qr), g->dr + 2.0f * dn * g->qr, g->qr};
        /* eos first (acquire): every frame written before finish is then readable */
        const int eos = hl_stream_finished(st);
        hl_ring_spans_t sp;
        const uint32_t a = hl_ring_read_spans(&st->ring, &sp);
        const uint64_t x0 = v->scur;
        uint32_t cnt = stream_frames_for(x0, step, a, reach);
        if (v->ur) {
            /* recover only when the whole rest can play (or the source is over) */
            if (!eos && cnt < rest && hl_ring_writable(&st->ring) > 0) {
                render_decay(m, v, acc_l + done, acc_r + done, rest, &gg, stereo_out);
                ramp_advance(&v->xf, rest);
                return;
            }
            v->ur = 0;
            if (v->sw_mode == HL_SW_NONE) {
                v->xf.cur = 0.0f;
                ramp_set(&v->xf, 1.0f, HL_UNDERRUN_FADE);
            }
        }
        const uint64_t end = eos ? (uint64_t)(HL_STREAM_HIST + a) << 32 : UINT64_MAX;
        if (x0 >= end) {
            *finished = 1;
            return;
        }
        if (eos) { /* past the last frame is silence: render up to the end */
            uint64_t c64 = ceil_div(end - x0, step);
            cnt = c64 < UINT32_MAX ? (uint32_t)c64 : UINT32_MAX;
        }
        uint32_t cap = stream_frames_for(x0, step, HL_STREAM_SCRATCH - HL_STREAM_HIST - 1, reach);
        cnt = cnt < rest ? cnt : rest;
        cnt = cnt < cap ? cnt : cap;
        if (cnt == 0) {
            underrun_begin(m, v);
            continue;
        }
        /* linearise: history, then the ring frames this run reads (peeked) */
        uint64_t xl = x0 + (uint64_t)(cnt - 1) * step, xe = x0 + (uint64_t)cnt * step;
        uint32_t need_idx = (uint32_t)(xl >> 32) + reach;
        if ((uint32_t)(xe >> 32) + 1 > need_idx) need_idx = (uint32_t)(xe >> 32) + 1;
        uint32_t valid = need_idx + 1, from_ring = valid - HL_STREAM_HIST;
        uint32_t take = from_ring < a ? from_ring : a;
        float *sb = m->sbuf;
        memcpy(sb, st->hist, (size_t)HL_STREAM_HIST * fsz);
        uint32_t t1 = take < sp.n1 ? take : sp.n1;
        memcpy(sb + HL_STREAM_HIST * ch, sp.p1, (size_t)t1 * fsz);
        if (take > t1) memcpy(sb + (HL_STREAM_HIST + t1) * ch, sp.p2, (size_t)(take - t1) * fsz);
        if (take < from_ring) /* eos: zeros past the last frame */
            memset(sb + (HL_STREAM_HIST + take) * ch, 0, (size_t)(from_ring - take) * fsz);
        span_sanitize(sb, valid * ch);
        src_view_t s = {.data = sb, .frames = valid, .ch = ch, .cubic = mode, .sl = sl};
        s.end_fp = end;
        s.loop = &no_loop;
        view_limits(&s, valid);
        uint64_t x = x0;
        int fin = 0;
        (void)render_src(m, v, &s, &x, acc_l + done, acc_r + done, cnt, &gg, step, &fin);
        /* the last output sample, for an underrun decay */
        float hl, hr;
        interp_at(&s, xl, &hl, &hr);
        float xg = ramp_after(&v->xf, 0);
        v->hold[0] = (stereo_out || ch == 1 ? hl : (hl + hr) * 0.5f) * xg;
        v->hold[1] = hr * xg;
        /* re-base: keep the HL_STREAM_HIST frames from floor(x) - BACK */
        uint32_t shift = (uint32_t)(x >> 32) - HL_STREAM_BACK;
        if (shift > a) shift = a;
        memcpy(st->hist, sb + (size_t)shift * ch, (size_t)HL_STREAM_HIST * fsz);
        v->scur = x - ((uint64_t)shift << 32);
        hl_ring_read_advance(&st->ring, shift);
        atomic_store_explicit(&st->consumed,
                              atomic_load_explicit(&st->consumed, memory_order_relaxed) + shift,
                              memory_order_relaxed);
        v->spulled += shift;
        done += cnt;
        if (fin || v->scur >= (eos ? (uint64_t)(HL_STREAM_HIST + a - shift) << 32 : UINT64_MAX)) {
            *finished = 1;
            return;
        }
    }
}

/* The jump a seek or stream switch waited for, at the bottom of its fade. */
__attribute__((noinline, cold)) static void do_switch(hl_mixer_t *m, hl_rt_voice_t *v,
                                                      uint64_t now_ns) {
    if (v->sw_mode == HL_SW_STREAM) {
        retire_stream(m, v, v->stream, now_ns);
        v->stream = v->pending;
        v->pending = NULL;
        stream_reset(v);
    } else {
        if (v->loop_on && v->seek_frame >= v->loop_end) { /* past the loop: leave it */
            v->loop_on = 0;
            v->loops_left = 0;
        }
        v->f.cursor = (uint64_t)v->seek_frame << 32;
        pcm_view(v);
    }
    v->sw_mode = HL_SW_NONE;
    v->xf.cur = 0.0f;
    ramp_set(&v->xf, 1.0f, HL_SEEK_FADE_IN);
}

/* Advances the cursor of a voice that is not mixed (virtual). */
static void skip_voice(hl_rt_voice_t *v, uint32_t n, uint64_t step, int *finished) {
    v->f.cursor += (uint64_t)n * step;
    if (v->f.cursor >= v->src.end_fp && !wrap_cursor(v, &v->src, &v->f.cursor)) *finished = 1;
}

static uint64_t voice_step(const hl_rt_voice_t *v) {
    float p = pitch_now(v) * v->doppler;
    return (uint64_t)((double)p * (double)HL_FP_ONE + 0.5);
}

/* Source position of a voice in whole frames: the pcm frame under the cursor
 * (at most the pcm's length), or for a stream the frame of the current
 * stream under the cursor, counted from the voice's (or switch's) start. */
static uint64_t voice_position(const hl_rt_voice_t *v) {
    if (v->stream) {
        uint64_t at = v->spulled + (v->scur >> 32);
        return at > HL_STREAM_HIST ? at - HL_STREAM_HIST : 0;
    }
    uint64_t at = v->f.cursor >> 32;
    return at < v->src.frames ? at : v->src.frames;
}

/* Ends the voice at position i of the active list (swap-remove); its
 * stream, and a stream it was about to switch to, go back to the main thread.
 * The ENDED event carries v->end_reason unchanged, v->end_frame and the
 * source position. */
static void end_voice(hl_mixer_t *m, uint32_t i, uint64_t now_ns) {
    hl_rt_voice_t *v = &m->rt[m->rt_active[i]];
    if (v->pending) retire_stream(m, v, v->pending, now_ns);
    v->pending = NULL;
    push_event(m, HL_MIX_EV_ENDED, v->end_reason, v, now_ns, v->end_frame, voice_position(v));
    v->live = 0;
    m->rt_active[i] = m->rt_active[--m->n_rt_active];
}

/* Per-block 3D update: position ramp, user gain ramp, spatial pair target
 * ramped across this block. Returns 1 if the voice is beyond max distance.
 * The pair (and Doppler) is a pure function of position, gain and listener:
 * while none of them moves, the last result is reused (sp_gen). */
static int update_3d(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n) {
    float l, r;
    int far;
    if (v->sp_gen == m->listener_gen && v->pos_rem == 0 && v->gain.rem == 0) {
        l = v->sp_l;
        r = v->sp_r;
        far = (int)v->sp_far;
    } else {
        if (v->pos_rem) {
            v->pos_rem = n >= v->pos_rem ? 0 : v->pos_rem - n;
            float t = 1.0f - (float)v->pos_rem / (float)v->pos_len;
            for (int a = 0; a < 3; a++)
                v->pos[a] = v->pos_from[a] + (v->pos_to[a] - v->pos_from[a]) * t;
        }
        far = spatial_3d(m, v, ramp_after(&v->gain, n), &l, &r);
        ramp_advance(&v->gain, n);
        /* settled: the same inputs give the same pair next block */
        v->sp_gen = v->pos_rem == 0 && v->gain.rem == 0 ? m->listener_gen : 0;
        v->sp_l = l;
        v->sp_r = r;
        v->sp_far = (uint32_t)far;
    }
    v->gl.target = l;
    v->gr.target = r;
    /* a pair that did not move needs no ramp: the same values, and the
     * segment loop then skips the ramp arithmetic */
    v->gl.rem = v->gr.rem = (l == v->gl.cur && r == v->gr.cur) ? 0 : n;
    return far;
}

/* After a block: caches the voice in its first line when nothing about it
 * moves (see hl_rt_fast_t); only mono PCM voices with linear interpolation
 * qualify, the common case, and 3D ones only while audible. */
static void fast_refresh(const hl_mixer_t *m, hl_rt_voice_t *v) {
    hl_rt_fast_t *f = &v->f;
    f->steady = 0;
    if (v->stream || v->src.ch != 1 || v->env_mode != HL_ENV_RUN || v->env.rem || v->gl.rem ||
        v->gr.rem || v->xf.rem || v->xf.cur != 1.0f || v->sw_mode != HL_SW_NONE ||
        v->pitch_pos < v->pitch_len || !v->started || v->doppler != v->dop_target || !v->pcm ||
        !v->pcm->finite) /* unchecked samples stay on the guarded path */
        return;
    if (v->flags & HL_MIX_3D) {
        if (v->sp_gen != m->listener_gen || v->pos_rem || v->gain.rem || v->sp_far ||
            v->gl.target != v->sp_l || v->gr.target != v->sp_r)
            return;
        f->lgen = m->listener_gen;
    } else {
        f->lgen = 0;
    }
    f->data = v->src.data;
    f->step = voice_step(v);
    sinc_follow(m, &v->src, f->step); /* lim_fp for this step's kernel */
    f->lim_fp = v->src.lim_fp;
    f->copy_end = v->src.copy_end;
    f->frames = v->src.frames;
    f->cubic = v->src.cubic;
    f->gl = v->env.cur * v->gl.cur;
    f->gr = v->env.cur * v->gr.cur;
    if ((f->gl + f->gr) - (f->gl + f->gr) != 0.0f) return; /* non-finite: the full path mutes */
    f->bus = (uint16_t)v->bus;
    f->post = (uint16_t)v->post;
    f->steady = 1;
}

static void apply_gain_ramp(float *l, float *r, uint32_t n, hl_ramp_t *g);

/* A send: sl/sr += l/r times the send level, ramped per frame (linear
 * while the ramp runs, then flat), advancing the ramp. */
static void post_send_ramped(float *sl, float *sr, const float *l, const float *r, uint32_t n,
                             hl_ramp_t *g) {
    const uint32_t rn = g->rem < n ? g->rem : n;
    const float g0 = g->cur, d = rn ? (ramp_after(g, rn) - g0) / (float)rn : 0.0f;
    for (uint32_t t = 0; t < rn; t++) {
        const float gt = g0 + (float)(t + 1) * d;
        sl[t] += l[t] * gt;
        sr[t] += r[t] * gt;
    }
    ramp_advance(g, rn);
    const float gc = g->cur;
    for (uint32_t t = rn; t < n; t++) {
        sl[t] += l[t] * gc;
        sr[t] += r[t] * gc;
    }
}

/* The sends of a voice that are on (level or target not 0), at most
 * HL_MAX_SENDS; returns how many, and whether any of them ramps. */
static uint32_t post_sends(hl_rt_voice_t *v, uint32_t idx[HL_MAX_SENDS], uint32_t *ramping) {
    uint32_t k = 0;
    *ramping = 0;
    for (uint32_t i = 0; i < HL_MAX_SENDS; i++) {
        const hl_ramp_t *g = &v->send[i];
        if (g->cur == 0.0f && g->target == 0.0f) continue;
        *ramping |= g->rem != 0;
        idx[k++] = i;
    }
    return k;
}

/* Occlusion, sends and the bus for the voice's filtered pair l/r, in one
 * pass while no level ramps (each frame: y = x * occ, send += y * level,
 * bus += y: the same products and sums, in the same order, as the passes
 * below, so both give the same bits), else one pass per stage. */
static void post_mix(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n,
                     uint32_t *buses) {
    uint32_t idx[HL_MAX_SENDS], ramping;
    const uint32_t ns = post_sends(v, idx, &ramping);
    float *bl = m->acc[v->bus][0], *br = m->acc[v->bus][1];
    for (uint32_t i = 0; i < ns; i++)
        *buses |= 1u << v->send_bus[idx[i]];
    if (v->occ.rem == 0 && !ramping) {
        const float o = v->occ.cur;
        if (ns == 0) {
            for (uint32_t t = 0; t < n; t++) {
                bl[t] += l[t] * o;
                br[t] += r[t] * o;
            }
        } else if (ns == 1) {
            const uint32_t b0 = v->send_bus[idx[0]];
            float *s0l = m->acc[b0][0], *s0r = m->acc[b0][1];
            const float g0 = v->send[idx[0]].cur;
            for (uint32_t t = 0; t < n; t++) {
                const float yl = l[t] * o, yr = r[t] * o;
                s0l[t] += yl * g0;
                s0r[t] += yr * g0;
                bl[t] += yl;
                br[t] += yr;
            }
        } else {
            const uint32_t b0 = v->send_bus[idx[0]], b1 = v->send_bus[idx[1]];
            float *s0l = m->acc[b0][0], *s0r = m->acc[b0][1];
            float *s1l = m->acc[b1][0], *s1r = m->acc[b1][1];
            const float g0 = v->send[idx[0]].cur, g1 = v->send[idx[1]].cur;
            for (uint32_t t = 0; t < n; t++) {
                const float yl = l[t] * o, yr = r[t] * o;
                s0l[t] += yl * g0;
                s0r[t] += yr * g0;
                s1l[t] += yl * g1;
                s1r[t] += yr * g1;
                bl[t] += yl;
                br[t] += yr;
            }
        }
        return;
    }
    apply_gain_ramp(l, r, n, &v->occ);
    for (uint32_t i = 0; i < ns; i++) {
        const uint32_t b = v->send_bus[idx[i]];
        post_send_ramped(m->acc[b][0], m->acc[b][1], l, r, n, &v->send[idx[i]]);
    }
    for (uint32_t k = 0; k < n; k++) {
        bl[k] += l[k];
        br[k] += r[k];
    }
}

/* The post stage of a voice whose block was mixed into its own pair l/r:
 * binaural rendering (the pair is then the mono input in l, r the same,
 * and the ear pair replaces it), filter, occlusion gain, then into its bus
 * and its sends (each send's level ramped per frame). */
static void voice_post(hl_mixer_t *m, hl_rt_voice_t *v, float *l, float *r, uint32_t n,
                       uint32_t *buses) {
    if (v->hrtf) {
        float *el = m->hbuf[0], *er = m->hbuf[1];
        memset(el, 0, n * sizeof(float));
        memset(er, 0, n * sizeof(float));
        /* gain 1: the distance gain and envelope are in the input, ramped per
         * frame; the filter changes (and crossfades) only with the direction */
        hl_hrtf_process_rt(m->hrtf, &m->hrtf_v[v->slot], l, n, v->hdir, 1.0f, el, er);
        l = el;
        r = er;
        m->hrtf_mixed++;
    }
    if (hl_vfilter_active(&v->vf)) {
        float *ch[2] = {l, r};
        hl_vfilter_process_rt(&v->vf, ch, 2, n);
    }
    post_mix(m, v, l, r, n, buses);
    v->post = post_needed(v);
    v->f.post = (uint16_t)v->post;
}

/* The post stage of a steady mono voice whose block, not yet panned, is in
 * `in` (the source span itself at pitch 1, else interpolated into vbuf[0]);
 * the filter (into vbuf[0]) runs once on it before the
 * pan (hl_vfilter_process_mono_rt: the same output as filtering the panned
 * pair, within rounding), then one pass pans it with the flat gain pair
 * times the occlusion gain into the bus and the sends. Ramping occlusion or
 * send levels go through the pair and post_mix instead. */
static void voice_post_mono(hl_mixer_t *m, hl_rt_voice_t *v, const float *in, uint32_t n, float gl,
                            float gr, uint32_t *buses) {
    const float *u = in;
    if (hl_vfilter_active(&v->vf)) {
        hl_vfilter_process_mono_rt(&v->vf, in, m->vbuf[0], n, gl, gr);
        u = m->vbuf[0];
    }
    uint32_t idx[HL_MAX_SENDS], ramping;
    const uint32_t ns = post_sends(v, idx, &ramping);
    if (v->occ.rem || ramping) {
        float *l = m->vbuf[0], *r = m->vbuf[1]; /* u may be vbuf[0]: r first */
        for (uint32_t t = 0; t < n; t++)
            r[t] = u[t] * gr;
        for (uint32_t t = 0; t < n; t++)
            l[t] = u[t] * gl;
        post_mix(m, v, l, r, n, buses);
    } else {
        float *bl = m->acc[v->bus][0], *br = m->acc[v->bus][1];
        const float o = v->occ.cur, ol = gl * o, or_ = gr * o;
        if (ns == 0) {
            for (uint32_t t = 0; t < n; t++) {
                bl[t] += u[t] * ol;
                br[t] += u[t] * or_;
            }
        } else if (ns == 1) {
            const uint32_t b0 = v->send_bus[idx[0]];
            float *s0l = m->acc[b0][0], *s0r = m->acc[b0][1];
            const float g0 = v->send[idx[0]].cur;
            *buses |= 1u << b0;
            for (uint32_t t = 0; t < n; t++) {
                const float yl = u[t] * ol, yr = u[t] * or_;
                s0l[t] += yl * g0;
                s0r[t] += yr * g0;
                bl[t] += yl;
                br[t] += yr;
            }
        } else {
            const uint32_t b0 = v->send_bus[idx[0]], b1 = v->send_bus[idx[1]];
            float *s0l = m->acc[b0][0], *s0r = m->acc[b0][1];
            float *s1l = m->acc[b1][0], *s1r = m->acc[b1][1];
            const float g0 = v->send[idx[0]].cur, g1 = v->send[idx[1]].cur;
            *buses |= (1u << b0) | (1u << b1);
            for (uint32_t t = 0; t < n; t++) {
                const float yl = u[t] * ol, yr = u[t] * or_;
                s0l[t] += yl * g0;
                s0r[t] += yr * g0;
                s1l[t] += yl * g1;
                s1r[t] += yr * g1;
                bl[t] += yl;
                br[t] += yr;
            }
        }
    }
    v->post = post_needed(v);
    v->f.post = (uint16_t)v->post;
}

/* The blocks after a binaural voice's source ran out: its convolver still
 * holds up to HL_HRTF_HIST frames of it (the far ear's delay plus the
 * HRIR), which ring out through the post stage before the voice ends;
 * cut, a sound that stops loud would lose its last milliseconds in the far
 * ear. Returns 1 once done. The ENDED event keeps the frame and cursor of
 * the block the source ended in. */
__attribute__((noinline, cold)) static int hrtf_ring_out(hl_mixer_t *m, hl_rt_voice_t *v,
                                                         uint32_t n, uint32_t *buses) {
    float *l = m->vbuf[0], *r = m->vbuf[1];
    memset(l, 0, n * sizeof(float));
    memset(r, 0, n * sizeof(float));
    *buses |= 1u << v->bus;
    voice_post(m, v, l, r, n, buses);
    v->htail = n >= v->htail ? 0 : v->htail - n;
    return v->htail == 0;
}

/* One voice's block: returns 1 when the voice ended (end_reason and
 * end_frame set for its ENDED event), 0 while it plays. */
static int process_voice(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, uint64_t now_ns,
                         uint32_t *mixed, uint32_t *virt, uint32_t *streams, uint32_t *buses) {
    if (v->stream) (*streams)++;
    if (v->htail) return hrtf_ring_out(m, v, n, buses);
    if (v->env_mode == HL_ENV_RELEASE && v->env.rem == 0) { /* stopped while paused */
        v->end_frame = m->clock;
        return 1;
    }
    if (v->env_mode == HL_ENV_PAUSED) return 0; /* holds: no cursor, no fades */
    if (!v->started) {
        v->started = 1;
        push_event(m, HL_MIX_EV_STARTED, 0, v, now_ns, m->clock, 0);
    }
    int far = (v->flags & HL_MIX_3D) ? update_3d(m, v, n) : 0;
    int finished = 0;
    if (far && !v->stream && v->gl.cur == 0.0f && v->gr.cur == 0.0f) {
        /* virtual: inaudible, not mixed, but time goes on (streams always play) */
        (*virt)++;
        /* its convolver's history is stale by the time it is heard again:
         * start that block afresh (the gains ramp up from 0) */
        if (v->hrtf && m->hrtf_v[v->slot].valid) hl_hrtf_voice_reset_rt(&m->hrtf_v[v->slot]);
        for (uint32_t t = 0; t < n && !finished;) {
            uint32_t seg = rate_run(v, n - t);
            skip_voice(v, seg, voice_step(v), &finished);
            rate_advance(m, v, seg);
            t += seg;
        }
        ramp_advance(&v->gl, n);
        ramp_advance(&v->gr, n);
        env_advance(v, n);
        ramp_advance(&v->xf, n);
        if (v->sw_mode != HL_SW_NONE && v->xf.rem == 0) do_switch(m, v, now_ns);
    } else {
        (*mixed)++;
        *buses |= 1u << v->bus;
        m->bus[v->bus].voices++;
        float *acc_l = m->acc[v->bus][0], *acc_r = m->acc[v->bus][1];
        /* a PCM voice on the full path mixes into its own pair (the stream
         * scratch, which PCM voices never use) that joins the bus only if it
         * is finite; a stream's frames are sanitised as they are copied (a
         * stream voice with a post stage mixes into vbuf) */
        float *own = v->stream ? (v->post ? m->vbuf[0] : NULL) : m->sbuf;
        if (own) {
            acc_l = own;
            acc_r = own + HL_MIX_BLOCK;
            memset(acc_l, 0, n * sizeof(float));
            memset(acc_r, 0, n * sizeof(float));
        }
        uint32_t t = 0;
        while (t < n) {
            if (v->sw_mode != HL_SW_NONE && v->xf.rem == 0 &&
                (!v->ur || v->ur_pos >= HL_UNDERRUN_FADE))
                do_switch(m, v, now_ns);
            uint32_t seg = rate_run(v, n - t);
            if (v->env.rem && v->env.rem < seg) seg = v->env.rem;
            if (v->gl.rem && v->gl.rem < seg) seg = v->gl.rem;
            if (v->xf.rem && v->xf.rem < seg) seg = v->xf.rem;
            /* envelope and gain pair are linear over the segment; their
             * product is the exact quadratic the kernels apply */
            const float e0 = v->env.cur, l0 = v->gl.cur, r0 = v->gr.cur;
            hl_gain_ramp_t g = {e0 * l0, 0.0f, 0.0f, e0 * r0, 0.0f, 0.0f};
            if (v->env.rem | v->gl.rem | v->gr.rem) { /* settled voices skip the divisions */
                const float inv = 1.0f / (float)seg;
                const float de = (ramp_after(&v->env, seg) - e0) * inv;
                const float dl = (ramp_after(&v->gl, seg) - l0) * inv;
                const float dr = (ramp_after(&v->gr, seg) - r0) * inv;
                g.dl = e0 * dl + de * l0;
                g.ql = de * dl;
                g.dr = e0 * dr + de * r0;
                g.qr = de * dr;
            }
            if (v->stream) {
                static const hl_gain_ramp_t mute;
                render_stream(m, v, acc_l + t, acc_r + t, seg, gains_finite(&g) ? &g : &mute,
                              voice_step(v), &finished);
            } else {
                (void)render_src(m, v, &v->src, &v->f.cursor, acc_l + t, acc_r + t, seg, &g,
                                 voice_step(v), &finished);
            }
            ramp_advance(&v->env, seg);
            fade_step(v);
            ramp_advance(&v->gl, seg);
            ramp_advance(&v->gr, seg);
            rate_advance(m, v, seg);
            t += seg;
            if (finished || (v->env.rem == 0 && v->env_mode != HL_ENV_RUN)) break;
        }
        if (!finished && t < n && v->env_mode == HL_ENV_RELEASE) {
            /* faded out part way: the source goes on silently to the block's
             * end, so the ENDED event's position belongs to its frame */
            static const hl_gain_ramp_t silent;
            int past_end = 0;
            while (t < n && !past_end) {
                uint32_t seg = rate_run(v, n - t);
                if (v->stream)
                    render_stream(m, v, acc_l + t, acc_r + t, seg, &silent, voice_step(v),
                                  &past_end);
                else
                    skip_voice(v, seg, voice_step(v), &past_end);
                rate_advance(m, v, seg);
                t += seg;
            }
        }
        if (own && span_finite(own, n) && span_finite(own + HL_MIX_BLOCK, n)) {
            if (v->post) {
                voice_post(m, v, own, own + HL_MIX_BLOCK, n, buses);
            } else {
                float *bl = m->acc[v->bus][0], *br = m->acc[v->bus][1];
                for (uint32_t k = 0; k < n; k++) {
                    bl[k] += own[k];
                    br[k] += own[HL_MIX_BLOCK + k];
                }
            }
        }
    }
    v->end_frame = m->clock + n;
    if (finished) {
        v->end_reason = HL_MIX_END_FINISHED;
        if (!v->hrtf || !m->hrtf_v[v->slot].valid) return 1;
        v->htail = HL_HRTF_HIST; /* the source is over; its sound is not yet */
        v->f.steady = 0;
        return 0;
    }
    if (v->env.rem == 0 && v->env_mode == HL_ENV_RELEASE) return 1;
    if (v->env.rem == 0 && v->env_mode == HL_ENV_PAUSING) v->env_mode = HL_ENV_PAUSED;
    fast_refresh(m, v);
    return 0;
}

/* A steady voice with a post stage whose filter can run before the pan:
 * the source span (read in place at pitch 1, else interpolated, unpanned,
 * into vbuf[0]), then voice_post_mono. The same reads, bounds and cursor as
 * process_fast. */
static int process_fast_mono(hl_mixer_t *m, hl_rt_fast_t *f, uint32_t n, uint32_t *mixed,
                             uint32_t *buses) {
    const uint64_t c = f->cursor, step = f->step;
    const uint32_t idx = (uint32_t)(c >> 32), frac = (uint32_t)(c & HL_FP_FRAC);
    const float *src = f->data + idx, *in = m->vbuf[0];
    float *u = m->vbuf[0];
    if (step == HL_FP_ONE && frac == 0 && idx < f->copy_end) {
        if (f->copy_end - idx < n) return 0;
        in = src; /* read in place: the source is the block */
    } else {
        if (c >= f->lim_fp || (uint64_t)n * step > f->lim_fp - c) return 0;
        if (f->cubic == HL_INTERP_SINC) {
            const hl_sinc_level_t *sl = hl_sinc_level(m->sinc, step);
            if (c < (uint64_t)(sl->half - 1) << 32) return 0;
            static const hl_gain_ramp_t unity = {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
            memset(u, 0, n * sizeof(float));
            m->sk->mono(u, m->vbuf[1], src, n, frac, step, &unity, sl); /* right: + 0 */
        } else if (f->cubic) {
            if (c < HL_FP_ONE) return 0;
            m->k->cubic_mono(u, src, n, (float)frac * HL_FP_SCALE, (float)step * HL_FP_SCALE);
        } else {
            m->k->interp_mono(u, src, n, (float)frac * HL_FP_SCALE, (float)step * HL_FP_SCALE);
        }
    }
    f->cursor = c + (uint64_t)n * step;
    (*mixed)++;
    *buses |= 1u << f->bus;
    m->bus[f->bus].voices++;
    voice_post_mono(m, (hl_rt_voice_t *)(void *)f, in, n, f->gl, f->gr, buses);
    return 1;
}

/* Mixes a steady voice from its first cache line alone, exactly as the full
 * path would (flat gains, one kernel run, no edge). Returns 0 when the
 * block would reach an edge of the interior: the full path takes it. */
static inline __attribute__((always_inline)) int
process_fast(hl_mixer_t *m, hl_rt_fast_t *f, uint32_t n, uint32_t *mixed, uint32_t *buses) {
    const uint64_t c = f->cursor, step = f->step;
    const uint32_t idx = (uint32_t)(c >> 32), frac = (uint32_t)(c & HL_FP_FRAC);
    float *acc_l = m->acc[f->bus][0], *acc_r = m->acc[f->bus][1];
    /* filter before the pan: not for a binaural voice (its pair comes from
     * the HRTF convolver in voice_post, not from pan gains) */
    if (f->post && !((hl_rt_voice_t *)(void *)f)->hrtf &&
        hl_vfilter_mono_ok(&((hl_rt_voice_t *)(void *)f)->vf, f->gl, f->gr))
        return process_fast_mono(m, f, n, mixed, buses);
    if (f->post) { /* its own pair first: filter and sends follow */
        acc_l = m->vbuf[0];
        acc_r = m->vbuf[1];
        memset(acc_l, 0, n * sizeof(float));
        memset(acc_r, 0, n * sizeof(float));
    }
    const hl_gain_ramp_t g = {f->gl, 0.0f, 0.0f, f->gr, 0.0f, 0.0f};
    const float *src = f->data + idx;
    if (step == HL_FP_ONE && frac == 0 && idx < f->copy_end) {
        if (f->copy_end - idx < n) return 0;
        /* no span check here: only PCM its owner vouched finite (hl_pcm_t.finite:
         * the loader zeroed every NaN and Inf) and finite gains reach the
         * steady path; everything else is guarded on the full path */
        m->k->mix_mono(acc_l, acc_r, src, n, &g);
    } else {
        if (c >= f->lim_fp || (uint64_t)n * step > f->lim_fp - c) return 0;
        if (f->cubic == HL_INTERP_SINC) {
            const hl_sinc_level_t *sl = hl_sinc_level(m->sinc, step);
            if (c < (uint64_t)(sl->half - 1) << 32) return 0;
            m->sk->mono(acc_l, acc_r, src, n, frac, step, &g, sl);
        } else if (f->cubic) {
            if (c < HL_FP_ONE) return 0;
            m->k->cubic_mix_mono(acc_l, acc_r, src, f->frames - idx, n, (float)frac * HL_FP_SCALE,
                                 (float)step * HL_FP_SCALE, &g);
        } else {
            m->k->interp_mix_mono(acc_l, acc_r, src, f->frames - idx, n, (float)frac * HL_FP_SCALE,
                                  (float)step * HL_FP_SCALE, &g);
        }
    }
    f->cursor = c + (uint64_t)n * step;
    (*mixed)++;
    *buses |= 1u << f->bus;
    m->bus[f->bus].voices++;
    if (f->post) voice_post(m, (hl_rt_voice_t *)(void *)f, acc_l, acc_r, n, buses);
    return 1;
}

/* Scales planar buf by a ramp over n frames (linear while it runs, then flat). */
static void apply_gain_ramp(float *l, float *r, uint32_t n, hl_ramp_t *g) {
    uint32_t rn = g->rem < n ? g->rem : n;
    if (rn) {
        float g0 = g->cur, d = (ramp_after(g, rn) - g0) / (float)rn;
        for (uint32_t t = 0; t < rn; t++) {
            float gt = g0 + (float)(t + 1) * d;
            l[t] *= gt;
            r[t] *= gt;
        }
        ramp_advance(g, rn);
    }
    const float gc = g->cur;
    if (gc != 1.0f)
        for (uint32_t t = rn; t < n; t++) {
            l[t] *= gc;
            r[t] *= gc;
        }
}

/* Prefetch distances, in voices of the active list: the RT state of a voice is
 * fetched HL_PF_STATE_AHEAD voices before it is mixed, so that its source
 * span can be fetched HL_PF_SRC_AHEAD voices before (the span needs the
 * cursor). Tuned by measurement with bench/mix at 1024 and 4096 voices. */
#define HL_PF_STATE_AHEAD 16
#define HL_PF_SRC_AHEAD   8
#define HL_PF_LINE        64                          /* cache line, bytes */
#define HL_PF_HOT_BYTES   offsetof(hl_rt_voice_t, lv) /* the fields read every block */

/* Both prefetch helpers are always_inline: gcc's IPA otherwise finds a
 * function whose only statements are prefetches "pure" and deletes the call. */
static inline __attribute__((always_inline)) void prefetch_state(const hl_rt_voice_t *v) {
    __builtin_prefetch(v); /* the steady line: often all the block reads */
}

/* The rest of the hot state, for a voice that will take the full path
 * (its first line is in cache by now: prefetch_state ran earlier). */
static inline __attribute__((always_inline)) void prefetch_rest(const hl_rt_voice_t *v) {
    const char *p = (const char *)v;
    for (size_t o = HL_PF_LINE; o < HL_PF_HOT_BYTES; o += HL_PF_LINE)
        __builtin_prefetch(p + o);
}

/* The post stage's state (filter, occlusion, sends) at the record's cold
 * end, for a voice that has one (f.post, read from its first line). */
static inline __attribute__((always_inline)) void prefetch_post(const hl_rt_voice_t *v) {
    const char *p = (const char *)&v->vf, *e = (const char *)(v + 1);
    p = (const char *)((uintptr_t)p & ~(uintptr_t)(HL_PF_LINE - 1));
    for (; p < e; p += HL_PF_LINE)
        __builtin_prefetch(p);
}

/* Prefetches the source frames voice v will read over the next n frames at
 * its current pitch (stream voices read the shared scratch: nothing to do). */
static inline __attribute__((always_inline)) void prefetch_src(const hl_rt_voice_t *v, uint32_t n) {
    const hl_rt_fast_t *f = &v->f;
    if (f->post) prefetch_post(v);
    if (f->steady) { /* exact span from the steady line alone */
        uint64_t c = f->cursor, last = ((c + (uint64_t)n * f->step) >> 32) + HL_INTERP_TAPS / 2;
        last = last < f->frames ? last : f->frames;
        const char *p = (const char *)(f->data + (c >> 32));
        const char *e = (const char *)(f->data + last);
        p = (const char *)((uintptr_t)p & ~(uintptr_t)(HL_PF_LINE - 1));
        for (; p < e; p += HL_PF_LINE)
            __builtin_prefetch(p);
        return;
    }
    prefetch_rest(v);
    if (v->stream || !v->src.data) return;
    uint32_t idx = (uint32_t)(v->f.cursor >> 32);
    if (idx >= v->src.frames) return;
    float rate = v->pitch_to * v->doppler;
    rate = rate > 0.0f && rate < HL_PITCH_MAX * HL_DOPPLER_MAX ? rate : HL_PITCH_MAX;
    uint32_t span = (uint32_t)((float)n * rate) + HL_INTERP_TAPS;
    uint32_t end = v->src.frames - idx < span ? v->src.frames : idx + span;
    const char *p = (const char *)(v->src.data + (size_t)idx * v->src.ch);
    const char *e = (const char *)(v->src.data + (size_t)end * v->src.ch);
    p = (const char *)((uintptr_t)p & ~(uintptr_t)(HL_PF_LINE - 1));
    for (; p < e; p += HL_PF_LINE)
        __builtin_prefetch(p);
}

static void render_block(hl_mixer_t *m, float *out, uint32_t n, uint64_t now_ns,
                         float bus_peak[HL_MAX_BUSES]) {
    /* only the buses written last block need clearing: the others are zero */
    for (int b = 0; b < HL_MAX_BUSES; b++) {
        m->bus[b].voices = 0;
        if (m->bus_dirty & (1u << b)) {
            memset(m->acc[b][0], 0, sizeof m->acc[b][0]);
            memset(m->acc[b][1], 0, sizeof m->acc[b][1]);
        }
    }
    uint32_t mixed = 0, virt = 0, streams = 0, buses = 0;
    uint32_t i = 0;
    m->hrtf_mixed = 0;
    /* warm-up: the voices the loop below starts with */
    for (uint32_t j = 0; j < HL_PF_STATE_AHEAD && j < m->n_rt_active; j++) {
        prefetch_state(&m->rt[m->rt_active[j]]);
        if (j < HL_PF_SRC_AHEAD) prefetch_src(&m->rt[m->rt_active[j]], n);
    }
    while (i < m->n_rt_active) {
        if (i + HL_PF_STATE_AHEAD < m->n_rt_active)
            prefetch_state(&m->rt[m->rt_active[i + HL_PF_STATE_AHEAD]]);
        if (i + HL_PF_SRC_AHEAD < m->n_rt_active)
            prefetch_src(&m->rt[m->rt_active[i + HL_PF_SRC_AHEAD]], n);
        hl_rt_voice_t *v = &m->rt[m->rt_active[i]];
        if (v->f.steady && (v->f.lgen == 0 || v->f.lgen == m->listener_gen) &&
            process_fast(m, &v->f, n, &mixed, &buses)) {
            i++;
            continue;
        }
        if (process_voice(m, v, n, now_ns, &mixed, &virt, &streams, &buses))
            end_voice(m, i, now_ns); /* swapped in: same i again */
        else
            i++;
    }
    atomic_store_explicit(&m->stats.voices_mixed, mixed, memory_order_relaxed);
    atomic_store_explicit(&m->stats.voices_virtual, virt, memory_order_relaxed);
    atomic_store_explicit(&m->stats.stream_voices, streams, memory_order_relaxed);
    atomic_store_explicit(&m->stats.hrtf_voices, m->hrtf_mixed, memory_order_relaxed);

    /* the bus tree: inserts, gains, ducking, into the master and out */
    hl_bus_render_rt(m, out, n, buses, bus_peak);
    m->clock += n;
}

const hl_mix_meter_t *hl_mixer_meter_rt(const hl_mixer_t *m) {
    return &m->meter;
}

/* The schedule hands commands back (mixer_sched.c); they are applied here. */
static void apply_due(hl_mixer_t *m, uint64_t now_ns) {
    hl_sched_it_t it;
    hl_sched_begin_rt(m, &it);
    for (const hl_cmd_t *c; (c = hl_sched_due_next_rt(m, &it)) != NULL;)
        hl_cmd_apply_rt(m, c, now_ns);
}

static void apply_drained(hl_mixer_t *m, uint64_t now_ns) {
    hl_sched_it_t it;
    hl_sched_begin_rt(m, &it);
    for (const hl_cmd_t *c; (c = hl_sched_drain_next_rt(m, &it)) != NULL;)
        hl_cmd_apply_rt(m, c, now_ns);
}

void hl_mixer_process_rt(hl_mixer_t *m, float *out, uint32_t frames, uint64_t now_ns) {
#ifdef HL_HAVE_MXCSR
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
    memset(&m->meter, 0, sizeof m->meter); /* the buses add into it as they run */
    hl_sched_clock_rt(m, now_ns);
    /* what was scheduled for this very frame first, then the ring: a
     * command sent "now" on a voice whose start is due here finds it */
    apply_due(m, now_ns);
    apply_drained(m, now_ns);
    float bus_peak[HL_MAX_BUSES] = {0};
    int limited = 0;
    m->splits = 0;
    for (uint32_t done = 0; done < frames;) {
        uint32_t n = frames - done < HL_MIX_BLOCK ? frames - done : HL_MIX_BLOCK;
        /* cut the block at the next scheduled frame (always > clock here),
         * or, past HL_SCHED_SPLITS cuts in this call, on the grid */
        uint64_t next = hl_sched_cut_rt(m);
        if (next - m->clock < n) {
            n = (uint32_t)(next - m->clock);
            m->splits++;
        }
        render_block(m, out + 2 * (size_t)done, n, now_ns, bus_peak);
        limited |= hl_limiter_process_rt(&m->limiter, out + 2 * (size_t)done, n);
        done += n;
        apply_due(m, now_ns);
    }
    float pl, pr;
    hl_peak_stereo_rt(out, frames, &pl, &pr);
    hl_mix_stats_atomic_t *st = &m->stats;
    add_u64(&st->blocks, 1);
    add_u64(&st->frames, frames);
    if (limited) add_u64(&st->limiter_blocks, 1);
    store_f32(&st->peak[0], pl);
    store_f32(&st->peak[1], pr);
    hl_mix_meter_t *mt = &m->meter;
    mt->peak[HL_MIX_METER_MASTER][0] = pl;
    mt->peak[HL_MIX_METER_MASTER][1] = pr;
    hl_sumsq_stereo_rt(out, frames, &mt->sumsq[HL_MIX_METER_MASTER][0],
                       &mt->sumsq[HL_MIX_METER_MASTER][1]);
    mt->frames = frames;
    mt->now_frames = m->clock;
    for (int b = 0; b < HL_MAX_BUSES; b++)
        store_f32(&st->bus_peak[b], bus_peak[b]);
}
