/*
 * voice_state.c - a voice's state over time, on the audio thread: the events
 * it sends back, its 2D and 3D gain pairs (pan law, distance, Doppler, the
 * listener-relative direction of a binaural voice), its playback rate (pitch
 * ramps stepped on the HL_PITCH_GRID, the Doppler glide), its envelope fades
 * and the source view of a PCM voice. The lowest of the voice modules
 * (voice_state.h); nothing here renders audio.
 */
#include <math.h>
#include <string.h>

#include "voice_state.h"

#include "hl_panlaw.h"

void hl_mix_event_rt(hl_mixer_t *m, uint32_t type, uint32_t reason, uint64_t voice, uint64_t tag,
                     const hl_pcm_t *pcm, hl_stream_t *stream, uint64_t now_ns, uint64_t frame,
                     uint64_t cursor) {
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

void hl_voice_event_rt(hl_mixer_t *m, uint32_t type, uint32_t reason, const hl_rt_voice_t *v,
                       uint64_t now_ns, uint64_t frame, uint64_t cursor) {
    int ended = type == HL_MIX_EV_ENDED;
    hl_mix_event_rt(m, type, reason, ((uint64_t)v->gen << 32) | v->slot, v->tag,
                    ended ? v->pcm : NULL, ended ? v->stream : NULL, now_ns, frame, cursor);
}

/* Hands a stream the voice will never read back to the main thread. */
void hl_voice_retire_stream_rt(hl_mixer_t *m, const hl_rt_voice_t *v, hl_stream_t *st,
                               uint64_t now_ns) {
    hl_mix_event_rt(m, HL_MIX_EV_STREAM_RETIRED, 0, ((uint64_t)v->gen << 32) | v->slot, v->tag,
                    NULL, st, now_ns, m->clock, 0);
}

/* Gain pair of a 2D voice: equal power for mono, balance for stereo, the
 * gain alone for a multichannel source (mixer_multi.c: no pan). */
void hl_voice_pair_2d_rt(hl_rt_voice_t *v, float gain, float pan, float *l, float *r) {
    if (v->channels > 2) {
        *l = *r = gain;
    } else if (v->channels == 2) {
        *l = gain * (pan > 0.0f ? 1.0f - pan : 1.0f);
        *r = gain * (pan < 0.0f ? 1.0f + pan : 1.0f);
    } else {
        hl_voice_pair_mono_rt(v, gain, &pan, l, r);
    }
}

/* OpenAL 1.1 Doppler pitch factor of a source at distance d (> 0) from the
 * listener: with SL = listener - source, vls and vss the listener's and the
 * source's velocities along SL, each at most ss / df,
 *   (ss - df * vls) / (ss - df * vss), clamped to [HL_DOPPLER_MIN, HL_DOPPLER_MAX]. */
static float doppler_of(const hl_mixer_t *m, const hl_listener_state_t *lis, const hl_rt_voice_t *v,
                        float d) {
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
 * per ear at 1 kHz (daemon/assets/hrtf_load.c normalises it so), is as loud in each
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

/* The lower of two low-pass cutoffs, 0 meaning none. */
static inline float lp_lower(float a, float b) {
    return !(a > 0.0f) ? b : !(b > 0.0f) ? a : a < b ? a : b;
}

/* Target gain pair and Doppler target of a 3D voice at position pos; returns
 * 1 when the voice is at or beyond max distance and inaudible (never with
 * HL_MIX_CLAMP: it keeps the gain it has at max distance). */
/* The listener nearest to pos among those on (ties: the lowest index). */
static uint32_t nearest_rt(const hl_mixer_t *m, const float pos[3]) {
    uint32_t best = 0;
    if (!m->lis_on) return 0;
    const float *p0 = m->listener.pos;
    float bd = (pos[0] - p0[0]) * (pos[0] - p0[0]) + (pos[1] - p0[1]) * (pos[1] - p0[1]) +
               (pos[2] - p0[2]) * (pos[2] - p0[2]);
    for (uint32_t k = 1; k < HL_MIX_LISTENERS; k++) {
        if (!(m->lis_on >> (k - 1) & 1u)) continue;
        const float *p = m->lis_x[k - 1].pos;
        float d = (pos[0] - p[0]) * (pos[0] - p[0]) + (pos[1] - p[1]) * (pos[1] - p[1]) +
                  (pos[2] - p[2]) * (pos[2] - p[2]);
        if (d < bd) {
            bd = d;
            best = k;
        }
    }
    return best;
}

/* The gain of a 3D voice at a listener at lpos, d away: its distance
 * curve's or model's, times its cone's. */
static float gain_at_rt(const hl_rt_voice_t *v, const float lpos[3], float d) {
    float g = v->curve_n ? hl_curve_gain(v->curve_n, v->curve_d, v->curve_db, d)
                         : hl_distance_gain((int)v->model, d, v->min_d, v->max_d, v->rolloff);
    if (v->cone_dir[0] != 0.0f || v->cone_dir[1] != 0.0f || v->cone_dir[2] != 0.0f)
        g *= hl_cone_gain(v->cone_dir, v->pos, lpos, v->cone_inner, v->cone_outer,
                          v->cone_outer_gain);
    return g;
}

/* Listener k (on or not). */
static const hl_listener_state_t *lis_k(const hl_mixer_t *m, uint32_t k) {
    return k ? &m->lis_x[k - 1] : &m->listener;
}

/* 1 while any listener on has a weight: the weighted rule. */
static int weighted_rt(const hl_mixer_t *m) {
    for (uint32_t k = 0; k < HL_MIX_LISTENERS; k++)
        if ((k == 0 || (m->lis_on >> (k - 1) & 1u)) && lis_k(m, k)->weight > 0.0f) return 1;
    return 0;
}

/* The weighted rule's gain: over the listeners on with a weight, weight x
 * the voice's gain there (nothing from one beyond its max distance). */
static float weighted_gain_rt(const hl_mixer_t *m, const hl_rt_voice_t *v) {
    float g = 0.0f;
    for (uint32_t k = 0; k < HL_MIX_LISTENERS; k++) {
        const hl_listener_state_t *l = lis_k(m, k);
        if ((k && !(m->lis_on >> (k - 1) & 1u)) || !(l->weight > 0.0f)) continue;
        const float r[3] = {v->pos[0] - l->pos[0], v->pos[1] - l->pos[1], v->pos[2] - l->pos[2]};
        const float d = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        if (d >= v->max_d && !(v->flags & HL_MIX_CLAMP)) continue;
        g += l->weight * gain_at_rt(v, l->pos, d);
    }
    return g;
}

int hl_voice_spatial_rt(const hl_mixer_t *m, hl_rt_voice_t *v, float gain, float *l, float *r) {
    const uint32_t li = nearest_rt(m, v->pos);
    const hl_listener_state_t *lis = li ? &m->lis_x[li - 1] : &m->listener;
    float pan;
    float d = hl_spatial_pan(v->pos, lis->pos, lis->fwd, lis->up, &pan);
    const float dop = doppler_of(m, lis, v, d);
    /* a new target starts the smoothing's grid afresh (see dop_advance) */
    if (v->doppler == v->dop_target && dop != v->dop_target) v->dop_phase = 0;
    v->dop_target = dop;
    if (v->hrtf) listener_dir(lis, v->pos, v->hdir);
    v->sp_cl = 0;
    v->sp_cr = 1;
    if (d >= v->max_d && !(v->flags & HL_MIX_CLAMP)) {
        *l = *r = 0.0f;
        return 1;
    }
    float g = gain * (weighted_rt(m) ? weighted_gain_rt(m, v) : gain_at_rt(v, lis->pos, d));
    v->lp_cone_want = 0.0f;
    /* the cone's and the distance curve's low-pass and the send curve's
     * factor: the nearest listener's, whatever the rule */
    if (v->cone_lp > 0.0f &&
        (v->cone_dir[0] != 0.0f || v->cone_dir[1] != 0.0f || v->cone_dir[2] != 0.0f))
        v->lp_cone_want =
            hl_cone_lp(hl_cone_frac(v->cone_dir, v->pos, lis->pos, v->cone_inner, v->cone_outer),
                       v->cone_lp, (float)m->cfg.rate);
    if (v->dist_lp.n)
        v->lp_cone_want =
            lp_lower(v->lp_cone_want, hl_dcurve_lp(&v->dist_lp, d, (float)m->cfg.rate));
    v->dsend_want =
        v->dist_send.n ? hl_curve_gain(v->dist_send.n, v->dist_send.d, v->dist_send.v, d) : 1.0f;
    if (v->hrtf) { /* the HRIRs carry the direction: both channels are the mono input */
        *l = *r = g * HL_HRTF_LEVEL;
        return 0;
    }
    if (m->nch > 2) { /* surround: the two speakers bracketing the direction */
        float dir[3];
        listener_dir(lis, v->pos, dir);
        if (m->height) { /* up to three, after the post stage: the pair is unpanned */
            hl_layout_tri_t tri;
            hl_layout_pan3((hl_layout_t)m->cfg.layout, dir, &tri);
            for (int k = 0; k < 3; k++) {
                v->sp_hc[k] = tri.ch[k];
                v->sp_hq[k] = tri.g[k];
            }
            *l = *r = g;
            return 0;
        }
        const float az = dir[0] != 0.0f || dir[2] != 0.0f ? atan2f(-dir[0], -dir[2]) : 0.0f;
        hl_layout_pair_t pr;
        hl_layout_pair((hl_layout_t)m->cfg.layout, az, &pr);
        v->sp_cl = pr.cl;
        v->sp_cr = pr.cr;
        *l = g * pr.gl;
        *r = g * pr.gr;
        return 0;
    }
    hl_pan_equal_power(pan, l, r);
    *l *= g;
    *r *= g;
    return 0;
}

void hl_voice_filter_rt(hl_rt_voice_t *v, uint32_t ramp_frames, int stepped) {
    v->lp_cone_now = v->lp_cone_want;
    hl_vfilter_glide_rt(&v->vf, lp_lower(v->lp_own, v->lp_cone_now), v->hp_own, ramp_frames,
                        stepped);
    v->post = 1u; /* on: the stage itself turns it off (hl_voice_post_needed_rt) */
    v->f.post = 1u;
}

void hl_voice_filter_follow_rt(hl_rt_voice_t *v, hl_vf_share_t *sh, const hl_vf_change_t *at,
                               uint32_t ramp_frames) {
    if (v->lp_cone_want != 0.0f || v->lp_cone_now != 0.0f || v->channels > 2) {
        hl_voice_filter_rt(v, ramp_frames, 1); /* a cutoff of its own: its own glide */
        return;
    }
    v->lp_cone_now = v->lp_cone_want;
    (void)hl_vfilter_follow_at_rt(&v->vf, sh, at, v->lp_own, v->hp_own, ramp_frames);
    v->post = 1u; /* as hl_voice_filter_rt */
    v->f.post = 1u;
}

/* The sends follow the distance curve's factor when it moved (more than
 * 0.1%, or on / off): each ramps to its own level times the factor over
 * the block, or over what is left of a longer ramp of its own. */
static void dist_sends_rt(hl_rt_voice_t *v, uint32_t n) {
    const float w = v->dsend_want, now = v->dsend_now;
    if (w == now || fabsf(w - now) <= 1e-3f * now) return;
    v->dsend_now = w;
    uint32_t on = 0;
    for (int i = 0; i < HL_MAX_SENDS; i++) {
        hl_ramp_t *g = &v->send[i];
        if (v->send_own[i] == 0.0f && g->cur == 0.0f && g->target == 0.0f) continue;
        ramp_set(g, v->send_own[i] * w, g->rem > n ? g->rem : n);
        on = 1;
    }
    if (on) {
        v->post = 1u; /* as hl_voice_filter_rt */
        v->f.post = 1u;
    }
}

void hl_voice_spatial_post_rt(hl_rt_voice_t *v, uint32_t n) {
    dist_sends_rt(v, n);
    const float w = v->lp_cone_want, now = v->lp_cone_now;
    /* moved by more than 0.1% (or on / off): the filter glides there over
     * the block, interpolated frame by frame */
    if (w == now || (w > 0.0f && now > 0.0f && fabsf(w - now) <= 1e-3f * now)) return;
    hl_voice_filter_rt(v, n, 0);
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
uint32_t hl_voice_rate_run_rt(const hl_rt_voice_t *v, uint32_t n) {
    uint32_t seg = pitch_run(v, n);
    if (v->doppler != v->dop_target) {
        uint32_t g = HL_PITCH_GRID - v->dop_phase;
        seg = g < seg ? g : seg;
    }
    return seg;
}

void hl_voice_rate_advance_rt(const hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n) {
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
void hl_voice_fade_next_rt(hl_rt_voice_t *v) {
    const uint32_t len = v->flen - v->fpos < HL_FADE_GRID ? v->flen - v->fpos : HL_FADE_GRID;
    v->fpos += len;
    v->env.target = fade_level(v, (float)v->fpos / (float)v->flen);
    v->env.rem = len;
    if (v->fpos >= v->flen) v->flen = 0; /* the last segment: a plain ramp now */
}

/* Starts a fade of env from its current level to `up` (1) or 0 over frames
 * (>= 1) with curve (HL_FADE_*). */
void hl_voice_fade_start_rt(hl_rt_voice_t *v, uint32_t up, uint32_t frames, uint32_t curve) {
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
    hl_voice_fade_next_rt(v);
}

/* Advances env over n frames through as many curve segments as it takes. */
void hl_voice_env_advance_rt(hl_rt_voice_t *v, uint32_t n) {
    for (;;) {
        const uint32_t k = v->env.rem && v->env.rem < n ? v->env.rem : n;
        ramp_advance(&v->env, k);
        fade_step(v);
        n -= k;
        if (n == 0 || v->env.rem == 0) return;
    }
}

void hl_voice_stream_reset_rt(hl_rt_voice_t *v) {
    memset(v->stream->hist, 0, sizeof v->stream->hist);
    memset(v->stream->hold, 0, sizeof v->stream->hold);
    v->hold[0] = v->hold[1] = 0.0f;
    v->scur = (uint64_t)HL_STREAM_HIST << 32; /* first frame of the ring */
    v->spulled = 0;
    v->ur = 0;
    v->ur_pos = 0;
}

/* 1 while the voice needs its post stage: binaural rendering, a filter on
 * or gliding, an occlusion gain, a send. */
uint32_t hl_voice_post_needed_rt(const hl_rt_voice_t *v) {
    uint32_t p =
        v->hrtf || hl_vfilter_active(&v->vf) || v->occ.cur != 1.0f || v->occ.target != 1.0f;
    for (int i = 0; i < HL_MAX_SENDS; i++)
        p |= v->send[i].cur != 0.0f || v->send[i].target != 0.0f;
    return p;
}

/* ---- the source view -------------------------------------------------------- */

/* Frames the interpolator reads after floor(x): 1 (linear), 2 (cubic) or
 * half (sinc), plus one, so the kernels' guard "position < lim" keeps every
 * read inside. */
static uint32_t taps_after(const src_view_t *s) {
    if (s->cubic == HL_INTERP_SINC) return (s->sl ? s->sl->half : HL_SINC_MAX_HALF) + 1;
    return s->cubic ? HL_INTERP_TAPS - 1 : HL_INTERP_TAPS / 2;
}

void hl_src_view_limits_rt(src_view_t *s, uint32_t fast_end) {
    uint32_t ta = taps_after(s);
    s->copy_end = fast_end;
    s->lim_fp = fast_end > ta ? (uint64_t)(fast_end - ta) << 32 : 0;
}

/* The view's interpolator from the voice's flags (SINC is only set when the
 * mixer has tables: cmd_play and HL_MIX_SET_INTERP see to it). */
uint32_t hl_interp_mode_rt(uint32_t flags) {
    return (flags & HL_MIX_SINC)    ? HL_INTERP_SINC
           : (flags & HL_MIX_CUBIC) ? HL_INTERP_CUBIC
                                    : HL_INTERP_LINEAR;
}

/* Recomputes the voice's PCM view after a loop or seek changed it. */
int hl_voice_wrap_rt(hl_rt_voice_t *v, const src_view_t *s, uint64_t *cur) {
    const hl_loop_view_t *lp = s->loop;
    if (!lp->on) return 0;
    uint64_t len = (uint64_t)(lp->le - lp->ls) << 32;
    *cur = ((uint64_t)lp->ls << 32) + (*cur - s->end_fp) % len;
    v->wrapped = 1;
    if (v->loops_left != HL_LOOP_FOREVER && --v->loops_left == 0) v->loop_on = 0;
    hl_voice_pcm_view_rt(v);
    return 1;
}

void hl_voice_pcm_view_rt(hl_rt_voice_t *v) {
    src_view_t *s = &v->src;
    s->cubic = hl_interp_mode_rt(v->flags);
    s->sl = NULL; /* sinc: the widest reach until render_src picks the level */
    hl_loop_view_t *lp = &v->lv;
    lp->on = v->loop_on;
    lp->ls = v->loop_start;
    lp->le = v->loop_end;
    lp->xfade = v->loop_on ? v->loop_xfade : 0;
    lp->pxfade = v->loop_xfade;
    lp->wrapped = v->wrapped;
    s->loop = lp;
    s->end_fp = (uint64_t)(v->loop_on ? v->loop_end : s->frames) << 32;
    hl_src_view_limits_rt(s, v->loop_on ? v->loop_end - lp->xfade : s->frames);
}
