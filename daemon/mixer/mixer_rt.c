/*
 * mixer_rt.c - the audio-thread face of the mixer: hl_mixer_process_rt().
 *
 * Per call: set FTZ/DAZ, drain at most cmds_per_block commands, then render in
 * internal blocks of at most HL_MIX_BLOCK frames. Per block and per voice the
 * parameters are computed once (3D gains, Doppler, pitch), the block is cut
 * into segments wherever a ramp ends (so every gain is one straight line per
 * segment and results do not depend on the caller's buffer size), and each
 * segment is rendered by the kernels in mix_kernels.c: a straight copy path at
 * pitch 1, otherwise interpolation into a small scratch buffer followed by a
 * multiply-add pass. Buffer ends and loop points split runs; no per-sample
 * checks. Buses are planar float accumulators, gained, summed into master,
 * limited and interleaved at the end.
 *
 * Nothing here locks, allocates, frees, does I/O, logs or waits; what the
 * audio thread is done with (ended voices) goes back on the event ring.
 */
#include <string.h>

#include "hl_proto.h"
#include "mixer_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#define HL_HAVE_MXCSR 1
#endif

#define HL_FP_SCALE (1.0f / 4294967296.0f) /* 2^-32: fixed-point fraction to float */
#define HL_FP_FRAC  0xFFFFFFFFu

/* ---- small helpers ----------------------------------------------------------- */

static float ramp_after(const hl_ramp_t *r, uint32_t n) {
    if (r->rem == 0 || n >= r->rem) return r->target;
    return r->cur + (r->target - r->cur) * ((float)n / (float)r->rem);
}

static void ramp_advance(hl_ramp_t *r, uint32_t n) {
    r->cur = ramp_after(r, n);
    r->rem = n >= r->rem ? 0 : r->rem - n;
}

static void ramp_set(hl_ramp_t *r, float target, uint32_t frames) {
    r->target = target;
    r->rem = frames;
    if (frames == 0) r->cur = target;
}

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

static void push_event(hl_mixer_t *m, uint32_t type, uint32_t reason, const hl_rt_voice_t *v,
                       uint64_t now_ns) {
    hl_mix_event_t ev = {
        .type = type,
        .reason = reason,
        .voice = ((uint64_t)v->gen << 32) | v->slot,
        .tag = v->tag,
        .pcm = type == HL_MIX_EV_ENDED ? v->pcm : NULL,
        .time_ns = now_ns,
    };
    /* Cannot fail: capacity >= 2 events per slot and slots are only reused
     * after their ENDED event was consumed. */
    (void)hl_ring_write(&m->ev_ring, &ev, 1);
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

/* Target gain pair and Doppler of a 3D voice at position pos; returns 1 when
 * the voice is at or beyond max distance (inaudible). */
static int spatial_3d(const hl_mixer_t *m, hl_rt_voice_t *v, float gain, float *l, float *r) {
    const hl_listener_state_t *lis = &m->listener;
    float pan;
    float d = hl_spatial_pan(v->pos, lis->pos, lis->fwd, lis->up, &pan);
    float dop = 1.0f;
    if (d > 1e-6f) {
        float along =
            ((v->pos[0] - lis->pos[0]) * lis->vel[0] + (v->pos[1] - lis->pos[1]) * lis->vel[1] +
             (v->pos[2] - lis->pos[2]) * lis->vel[2]) /
            d;
        dop = (HL_SPEED_OF_SOUND + along) / HL_SPEED_OF_SOUND;
        dop = dop < HL_DOPPLER_MIN ? HL_DOPPLER_MIN : dop > HL_DOPPLER_MAX ? HL_DOPPLER_MAX : dop;
    }
    v->doppler = dop;
    if (d >= v->max_d) {
        *l = *r = 0.0f;
        return 1;
    }
    float g = gain * hl_distance_gain((int)v->model, d, v->min_d, v->max_d, v->rolloff);
    hl_pan_equal_power(pan, l, r);
    *l *= g;
    *r *= g;
    return 0;
}

/* ---- commands ---------------------------------------------------------------- */

static hl_rt_voice_t *rt_voice(hl_mixer_t *m, const hl_cmd_t *c) {
    if (c->slot >= m->slots) return NULL;
    hl_rt_voice_t *v = &m->rt[c->slot];
    return v->live && v->gen == c->gen ? v : NULL;
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
    v->data = p->pcm->data;
    v->frames = p->pcm->frames;
    v->channels = p->pcm->channels;
    v->end_fp = (uint64_t)v->frames << 32;
    v->flags = p->flags;
    v->bus = p->bus < HL_NUM_BUSES ? p->bus : HL_BUS_SFX;
    v->tag = p->tag;
    v->pitch.cur = v->pitch.target = p->pitch;
    v->gain.cur = v->gain.target = p->gain;
    v->gain_2d = p->gain;
    v->pan_2d = p->pan;
    memcpy(v->pos, p->pos, sizeof v->pos);
    memcpy(v->pos_to, p->pos, sizeof v->pos);
    v->min_d = p->min_distance;
    v->max_d = p->max_distance;
    v->rolloff = p->rolloff;
    v->model = p->model;
    v->doppler = 1.0f;
    float l, r;
    if (v->flags & HL_MIX_3D)
        (void)spatial_3d(m, v, p->gain, &l, &r);
    else
        pair_2d(v, p->gain, p->pan, &l, &r);
    v->gl.cur = v->gl.target = l;
    v->gr.cur = v->gr.target = r;
    if (v->flags & HL_MIX_PAUSED) {
        v->env_mode = HL_ENV_PAUSED;
    } else if (p->attack_frames) {
        v->env.target = 1.0f;
        v->env.rem = p->attack_frames;
    } else {
        v->env.cur = v->env.target = 1.0f;
    }
    m->rt_active[m->n_rt_active++] = c->slot;
}

static void cmd_stop(hl_mixer_t *m, const hl_cmd_t *c) {
    hl_rt_voice_t *v = rt_voice(m, c);
    if (!v || v->env_mode == HL_ENV_RELEASE) return; /* gone, or already fading: keep that fade */
    v->end_reason = (uint32_t)c->u.stop.reason;
    if (v->env_mode == HL_ENV_PAUSED) {
        v->env.cur = v->env.target = 0.0f; /* silent already: ends next block */
        v->env.rem = 0;
    } else {
        v->env.target = 0.0f;
        v->env.rem = c->u.stop.release_frames ? c->u.stop.release_frames : HL_STOP_FADE_MIN;
    }
    v->env_mode = HL_ENV_RELEASE;
}

static void cmd_set(hl_mixer_t *m, const hl_cmd_t *c) {
    hl_rt_voice_t *v = rt_voice(m, c);
    if (!v) return;
    const hl_voice_set_t *s = &c->u.set;
    uint32_t len = hl_ramp_len(s->ramp_frames);
    if (s->mask & HL_MIX_SET_PITCH) ramp_set(&v->pitch, s->pitch, len);
    if (v->flags & HL_MIX_3D) {
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
        v->env.target = 0.0f;
        v->env.rem = len;
    } else if ((s->mask & HL_MIX_SET_RESUME) &&
               (v->env_mode == HL_ENV_PAUSED || v->env_mode == HL_ENV_PAUSING)) {
        v->env_mode = HL_ENV_RUN;
        v->env.target = 1.0f;
        v->env.rem = len;
    }
}

static void apply_cmd(hl_mixer_t *m, const hl_cmd_t *c, uint64_t now_ns) {
    switch (c->type) {
    case HL_CMD_PLAY: cmd_play(m, c); break;
    case HL_CMD_STOP: cmd_stop(m, c); break;
    case HL_CMD_SET: cmd_set(m, c); break;
    case HL_CMD_LISTENER: m->listener = c->u.listener; break;
    case HL_CMD_BUS:
        if (c->u.bus.bus >= 0 && c->u.bus.bus < HL_NUM_GAINS) {
            hl_ramp_t *g = &m->bus_gain[c->u.bus.bus];
            g->cur = ramp_after(g, 0);
            ramp_set(g, c->u.bus.gain, hl_ramp_len(c->u.bus.ramp_frames));
        }
        break;
    default: break;
    }
    uint64_t wait = now_ns > c->enq_ns ? now_ns - c->enq_ns : 0;
    hl_mix_stats_atomic_t *st = &m->stats;
    if (wait > atomic_load_explicit(&st->wait_max_ns, memory_order_relaxed))
        store_u64(&st->wait_max_ns, wait);
    uint64_t units = wait / 64000u; /* bucket i: wait < 2^i * 64 us */
    uint32_t b = units ? 64u - (uint32_t)__builtin_clzll(units) : 0u;
    if (b >= HL_MIX_WAIT_BUCKETS) b = HL_MIX_WAIT_BUCKETS - 1;
    add_u64(&st->wait_hist[b], 1);
}

static void drain_cmds(hl_mixer_t *m, uint64_t now_ns) {
    uint32_t cap = m->cfg.cmds_per_block, applied = 0;
    hl_ring_spans_t s;
    while (applied < cap) {
        uint32_t n = hl_ring_read_spans(&m->cmd_ring, &s);
        if (n == 0) break;
        uint32_t take = s.n1 < cap - applied ? s.n1 : cap - applied;
        const hl_cmd_t *c = s.p1;
        for (uint32_t i = 0; i < take; i++)
            apply_cmd(m, &c[i], now_ns);
        hl_ring_read_advance(&m->cmd_ring, take);
        applied += take;
    }
    add_u64(&m->stats.cmds_applied, applied);
    if (applied == cap && hl_ring_readable(&m->cmd_ring) > 0) add_u64(&m->stats.cmd_cap_hits, 1);
}

/* ---- rendering ------------------------------------------------------------------ */

/* Reads the frame after index i (the loop start when looping, silence at the
 * end of a one-shot): used only on the guarded tail of a buffer. */
static void tail_frame(const hl_rt_voice_t *v, uint32_t i, float *a, float *b) {
    uint32_t ch = v->channels;
    if (i < v->frames) {
        *a = v->data[(size_t)i * ch];
        *b = v->data[(size_t)i * ch + ch - 1];
    } else if (v->flags & HL_MIX_LOOP) {
        *a = v->data[0];
        *b = v->data[ch - 1];
    } else {
        *a = *b = 0.0f;
    }
}

/* Interpolates k frames near the buffer end, where idx + 1 may leave it. At
 * most a few frames per pass over the end, so scalar code is fine. */
static void render_tail(hl_mixer_t *m, const hl_rt_voice_t *v, uint32_t k, uint64_t step,
                        int stereo_out) {
    float *dl = m->scratch[0], *dr = m->scratch[1];
    uint64_t pos = v->cursor;
    for (uint32_t j = 0; j < k; j++, pos += step) {
        uint32_t i = (uint32_t)(pos >> 32);
        float f = (float)(uint32_t)(pos & HL_FP_FRAC) * HL_FP_SCALE;
        float al, ar, bl, br;
        tail_frame(v, i, &al, &ar);
        tail_frame(v, i + 1, &bl, &br);
        float l = al + f * (bl - al), r = ar + f * (br - ar);
        if (stereo_out) {
            dl[j] = l;
            dr[j] = r;
        } else {
            dl[j] = v->channels == 2 ? (l + r) * 0.5f : l;
        }
    }
}

/* Renders up to n frames of voice v into acc_l/acc_r with gain ramp g, at
 * fixed-point step. Returns the frames rendered; sets *finished when a
 * one-shot passed its end. */
static uint32_t render_voice(hl_mixer_t *m, hl_rt_voice_t *v, float *acc_l, float *acc_r,
                             uint32_t n, const hl_gain_ramp_t *g, uint64_t step, int *finished) {
    const hl_mix_kernels_t *k = m->k;
    const uint32_t ch = v->channels;
    const int stereo_out = ch == 2 && !(v->flags & HL_MIX_3D);
    const uint64_t lim = v->frames >= 2 ? (uint64_t)(v->frames - 2) << 32 : 0;
    uint32_t done = 0;
    while (done < n) {
        uint32_t rest = n - done, cnt;
        uint32_t idx = (uint32_t)(v->cursor >> 32);
        uint32_t frac = (uint32_t)(v->cursor & HL_FP_FRAC);
        /* re-base the quadratic on this run's first frame */
        const float dn = (float)done;
        hl_gain_ramp_t gg = {g->l0 + dn * (g->dl + dn * g->ql), g->dl + 2.0f * dn * g->ql, g->ql,
                             g->r0 + dn * (g->dr + dn * g->qr), g->dr + 2.0f * dn * g->qr, g->qr};
        const float *src = v->data + (size_t)idx * ch;
        if (step == HL_FP_ONE && frac == 0) {
            /* straight copy path */
            uint32_t avail = v->frames - idx;
            cnt = rest < avail ? rest : avail;
            if (ch == 1)
                k->mix_mono(acc_l + done, acc_r + done, src, cnt, &gg);
            else if (stereo_out)
                k->mix_stereo(acc_l + done, acc_r + done, src, cnt, &gg);
            else
                k->mix_downmix(acc_l + done, acc_r + done, src, cnt, &gg);
            v->cursor += (uint64_t)cnt << 32;
        } else {
            if (v->cursor < lim) {
                uint64_t c64 = (lim - v->cursor + step - 1) / step;
                cnt = c64 < rest ? (uint32_t)c64 : rest;
                float f0 = (float)frac * HL_FP_SCALE, fs = (float)step * HL_FP_SCALE;
                if (ch == 1) {
                    /* hot path: resample and mix in one pass, no scratch */
                    k->interp_mix_mono(acc_l + done, acc_r + done, src, v->frames - idx, cnt, f0,
                                       fs, &gg);
                    v->cursor += (uint64_t)cnt * step;
                    goto advanced;
                }
                if (stereo_out)
                    k->interp_stereo(m->scratch[0], m->scratch[1], src, cnt, f0, fs);
                else
                    k->interp_downmix(m->scratch[0], src, cnt, f0, fs);
            } else {
                uint64_t c64 = (v->end_fp - v->cursor + step - 1) / step;
                cnt = c64 < rest ? (uint32_t)c64 : rest;
                render_tail(m, v, cnt, step, stereo_out);
            }
            if (stereo_out)
                k->mix_planar(acc_l + done, acc_r + done, m->scratch[0], m->scratch[1], cnt, &gg);
            else
                k->mix_mono(acc_l + done, acc_r + done, m->scratch[0], cnt, &gg);
            v->cursor += (uint64_t)cnt * step;
        }
    advanced:
        done += cnt;
        if (v->cursor >= v->end_fp) {
            if (!(v->flags & HL_MIX_LOOP)) {
                *finished = 1;
                return done;
            }
            v->cursor %= v->end_fp;
        }
    }
    return done;
}

/* Advances the cursor of a voice that is not mixed (virtual). */
static void skip_voice(hl_rt_voice_t *v, uint32_t n, uint64_t step, int *finished) {
    v->cursor += (uint64_t)n * step;
    if (v->cursor >= v->end_fp) {
        if (v->flags & HL_MIX_LOOP)
            v->cursor %= v->end_fp;
        else
            *finished = 1;
    }
}

static uint64_t voice_step(const hl_rt_voice_t *v) {
    float p = v->pitch.cur * v->doppler;
    return (uint64_t)((double)p * (double)HL_FP_ONE + 0.5);
}

/* Ends the voice at position i of the active list (swap-remove). */
static void end_voice(hl_mixer_t *m, uint32_t i, uint32_t reason, uint64_t now_ns) {
    hl_rt_voice_t *v = &m->rt[m->rt_active[i]];
    push_event(m, HL_MIX_EV_ENDED, reason, v, now_ns);
    v->live = 0;
    m->rt_active[i] = m->rt_active[--m->n_rt_active];
}

/* Per-block 3D update: position ramp, user gain ramp, spatial pair target
 * ramped across this block. Returns 1 if the voice is beyond max distance. */
static int update_3d(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n) {
    if (v->pos_rem) {
        v->pos_rem = n >= v->pos_rem ? 0 : v->pos_rem - n;
        float t = 1.0f - (float)v->pos_rem / (float)v->pos_len;
        for (int a = 0; a < 3; a++)
            v->pos[a] = v->pos_from[a] + (v->pos_to[a] - v->pos_from[a]) * t;
    }
    float l, r;
    int far = spatial_3d(m, v, ramp_after(&v->gain, n), &l, &r);
    ramp_advance(&v->gain, n);
    v->gl.target = l;
    v->gr.target = r;
    v->gl.rem = v->gr.rem = n;
    return far;
}

/* Result of one voice's block: 0 still playing, else an HL_MIX_END_* + 1. */
static uint32_t process_voice(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, uint64_t now_ns,
                              uint32_t *mixed, uint32_t *virt) {
    if (v->env_mode == HL_ENV_RELEASE && v->env.rem == 0) return v->end_reason + 1;
    if (v->env_mode == HL_ENV_PAUSED) return 0; /* holds: no cursor, no fades */
    if (!v->started) {
        v->started = 1;
        push_event(m, HL_MIX_EV_STARTED, 0, v, now_ns);
    }
    int far = (v->flags & HL_MIX_3D) ? update_3d(m, v, n) : 0;
    int finished = 0;
    if (far && v->gl.cur == 0.0f && v->gr.cur == 0.0f) {
        /* virtual: inaudible, not mixed, but time goes on */
        (*virt)++;
        skip_voice(v, n, voice_step(v), &finished);
        ramp_advance(&v->pitch, n);
        ramp_advance(&v->gl, n);
        ramp_advance(&v->gr, n);
        ramp_advance(&v->env, n);
    } else {
        (*mixed)++;
        float *acc_l = m->acc[v->bus][0], *acc_r = m->acc[v->bus][1];
        uint32_t t = 0;
        while (t < n) {
            uint32_t seg = n - t;
            if (v->env.rem && v->env.rem < seg) seg = v->env.rem;
            if (v->gl.rem && v->gl.rem < seg) seg = v->gl.rem;
            /* envelope and gain pair are linear over the segment; their
             * product is the exact quadratic the kernels apply */
            const float inv = 1.0f / (float)seg, e0 = v->env.cur, l0 = v->gl.cur, r0 = v->gr.cur;
            const float de = (ramp_after(&v->env, seg) - e0) * inv;
            const float dl = (ramp_after(&v->gl, seg) - l0) * inv;
            const float dr = (ramp_after(&v->gr, seg) - r0) * inv;
            hl_gain_ramp_t g = {e0 * l0, e0 * dl + de * l0, de * dl,
                                e0 * r0, e0 * dr + de * r0, de * dr};
            (void)render_voice(m, v, acc_l + t, acc_r + t, seg, &g, voice_step(v), &finished);
            ramp_advance(&v->env, seg);
            ramp_advance(&v->gl, seg);
            ramp_advance(&v->gr, seg);
            ramp_advance(&v->pitch, seg);
            t += seg;
            if (finished || (v->env.rem == 0 && v->env_mode != HL_ENV_RUN)) break;
        }
    }
    if (finished) return HL_MIX_END_FINISHED + 1;
    if (v->env.rem == 0 && v->env_mode == HL_ENV_RELEASE) return v->end_reason + 1;
    if (v->env.rem == 0 && v->env_mode == HL_ENV_PAUSING) v->env_mode = HL_ENV_PAUSED;
    return 0;
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

static float peak_abs(const float *x, uint32_t n, float pk) {
    for (uint32_t t = 0; t < n; t++) {
        float a = x[t] < 0.0f ? -x[t] : x[t];
        pk = a > pk ? a : pk;
    }
    return pk;
}

static void render_block(hl_mixer_t *m, float *out, uint32_t n, uint64_t now_ns,
                         float bus_peak[HL_NUM_BUSES]) {
    for (int b = 0; b < HL_NUM_BUSES; b++) {
        memset(m->acc[b][0], 0, n * sizeof(float));
        memset(m->acc[b][1], 0, n * sizeof(float));
    }
    uint32_t mixed = 0, virt = 0;
    uint32_t i = 0;
    while (i < m->n_rt_active) {
        if (i + 1 < m->n_rt_active) {
            const hl_rt_voice_t *nv = &m->rt[m->rt_active[i + 1]];
            const float *p = nv->data + (size_t)(nv->cursor >> 32) * nv->channels;
            __builtin_prefetch(p);
            __builtin_prefetch(p + HL_MIX_ALIGN / sizeof(float));
            if (i + 2 < m->n_rt_active) __builtin_prefetch(&m->rt[m->rt_active[i + 2]]);
        }
        hl_rt_voice_t *v = &m->rt[m->rt_active[i]];
        uint32_t end = process_voice(m, v, n, now_ns, &mixed, &virt);
        if (end)
            end_voice(m, i, end - 1, now_ns); /* swapped in: same i again */
        else
            i++;
    }
    atomic_store_explicit(&m->stats.voices_mixed, mixed, memory_order_relaxed);
    atomic_store_explicit(&m->stats.voices_virtual, virt, memory_order_relaxed);

    float *ml = m->scratch[0], *mr = m->scratch[1];
    memset(ml, 0, n * sizeof(float));
    memset(mr, 0, n * sizeof(float));
    for (int b = 0; b < HL_NUM_BUSES; b++) {
        float *l = m->acc[b][0], *r = m->acc[b][1];
        apply_gain_ramp(l, r, n, &m->bus_gain[b]);
        bus_peak[b] = peak_abs(r, n, peak_abs(l, n, bus_peak[b]));
        for (uint32_t t = 0; t < n; t++) {
            ml[t] += l[t];
            mr[t] += r[t];
        }
    }
    apply_gain_ramp(ml, mr, n, &m->bus_gain[HL_MASTER]);
    for (uint32_t t = 0; t < n; t++) {
        out[2 * t] = ml[t];
        out[2 * t + 1] = mr[t];
    }
}

void hl_mixer_process_rt(hl_mixer_t *m, float *out, uint32_t frames, uint64_t now_ns) {
#ifdef HL_HAVE_MXCSR
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
    drain_cmds(m, now_ns);
    float bus_peak[HL_NUM_BUSES] = {0};
    int limited = 0;
    for (uint32_t done = 0; done < frames;) {
        uint32_t n = frames - done < HL_MIX_BLOCK ? frames - done : HL_MIX_BLOCK;
        render_block(m, out + 2 * (size_t)done, n, now_ns, bus_peak);
        limited |= hl_limiter_process_rt(&m->limiter, out + 2 * (size_t)done, n);
        done += n;
    }
    float pl = 0.0f, pr = 0.0f;
    for (uint32_t t = 0; t < frames; t++) {
        float a = out[2 * t] < 0.0f ? -out[2 * t] : out[2 * t];
        float b = out[2 * t + 1] < 0.0f ? -out[2 * t + 1] : out[2 * t + 1];
        pl = a > pl ? a : pl;
        pr = b > pr ? b : pr;
    }
    hl_mix_stats_atomic_t *st = &m->stats;
    add_u64(&st->blocks, 1);
    add_u64(&st->frames, frames);
    if (limited) add_u64(&st->limiter_blocks, 1);
    store_f32(&st->peak[0], pl);
    store_f32(&st->peak[1], pr);
    for (int b = 0; b < HL_NUM_BUSES; b++)
        store_f32(&st->bus_peak[b], bus_peak[b]);
}
