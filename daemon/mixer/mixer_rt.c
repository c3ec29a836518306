/*
 * mixer_rt.c - the audio-thread face of the mixer: hl_mixer_process_rt().
 *
 * Per call: set FTZ/DAZ, drain the command ring (within a time budget, a
 * share of the call's duration: mixer_sched.c), then render in
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
 * listener move or an edge of the source sends it back to the full path,
 * but for a SET of gain, pan, filter or sends on a 2D voice, whose pair
 * ramps per sample on the steady path (process_fast_ramp). Two plain
 * steady voices in a row on the same bus planes share one kernel call and
 * one pass over the accumulators (voice_pair.h), with the same sums. A
 * 3D voice reuses its gain pair until it, its gain or the listener moves;
 * flat gains take kernels without the ramp polynomial; buses no voice wrote
 * are neither cleared, metered nor summed, the first live bus is the master
 * sum itself, and peaks are SSE max scans over four chains (levels.c).
 *
 * This file is the block loop; the voice modules under it (voice_state.h) hold
 * the commands (voice_cmd.c), the source renderer (voice_src.h), streams
 * (voice_stream.c), the post stage (voice_post.c) and a voice's state over
 * time (voice_state.c). The schedule (mixer_sched.c) hands it the commands
 * that are due and it applies them (hl_cmd_apply_rt).
 *
 * Nothing here locks, allocates, frees, does I/O, logs or waits; what the
 * audio thread is done with (ended voices, their PCM and streams, retired
 * streams and effects) goes back on the event ring.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "mix_part_int.h"
#include "voice_pair.h"
#include "voice_post.h"
#include "voice_src.h"
#include "voice_stream.h"

#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#define HL_HAVE_MXCSR 1
#endif

/* Advances the cursor of a voice that is not mixed (virtual). */
static void skip_voice(hl_rt_voice_t *v, uint32_t n, uint64_t step, int *finished) {
    v->f.cursor += (uint64_t)n * step;
    if (v->f.cursor >= v->src.end_fp && !wrap_cursor(v, &v->src, &v->f.cursor)) *finished = 1;
}

static uint64_t voice_step(const hl_rt_voice_t *v) {
    float p = pitch_now(v) * v->doppler;
    double r = v->stream ? v->stream->ratio : 1.0; /* a client stream at its own rate */
    return hl_fp_step((double)p * r);
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
static void end_event(hl_mixer_t *m, hl_rt_voice_t *v, uint64_t now_ns) {
    if (v->pending) hl_voice_retire_stream_rt(m, v, v->pending, now_ns);
    v->pending = NULL;
    hl_voice_event_rt(m, HL_MIX_EV_ENDED, v->end_reason, v, now_ns, v->end_frame,
                      voice_position(v));
    hl_voice_mod_unlink_rt(m, v);
    v->live = 0;
}

static void end_voice(hl_mixer_t *m, uint32_t i, uint64_t now_ns) {
    end_event(m, &m->rt[m->rt_active[i]], now_ns);
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
        far = hl_voice_spatial_rt(m, v, ramp_after(&v->gain, n), &l, &r);
        hl_voice_spatial_post_rt(v, n);
        ramp_advance(&v->gain, n);
        /* settled: the same inputs give the same pair next block */
        v->sp_gen = v->pos_rem == 0 && v->gain.rem == 0 ? m->listener_gen : 0;
        v->sp_l = l;
        v->sp_r = r;
        v->sp_far = (uint32_t)far;
    }
    if (m->height)
        hl_surround_height_slots_rt(v, n);
    else if (m->nch > 2)
        hl_surround_slots_rt(v, &l, &r);
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
/* A started PCM voice whose envelope, fades, stream switch, pitch, Doppler
 * and (3D) pan pair are all settled, and no LFE send (the full path's):
 * what both a steady voice (fast_refresh) and a partition's full-path voice
 * (edge_in_part) need. */
static inline int voice_settled(const hl_mixer_t *m, const hl_rt_voice_t *v) {
    if (v->stream || !v->started || v->env_mode != HL_ENV_RUN || v->env.rem || v->xf.rem ||
        v->xf.cur != 1.0f || v->sw_mode != HL_SW_NONE || v->pitch_pos < v->pitch_len ||
        v->doppler != v->dop_target ||
        (m->lfe_ch >= 0 && (v->lfe.cur != 0.0f || v->lfe.target != 0.0f)))
        return 0;
    return !(v->flags & HL_MIX_3D) ||
           !(v->sp_gen != m->listener_gen || v->pos_rem || v->gain.rem || v->sp_far);
}

static void fast_refresh(const hl_mixer_t *m, hl_rt_voice_t *v) {
    hl_rt_fast_t *f = &v->f;
    f->steady = 0;
    f->ramp = 0;
    if (!voice_settled(m, v) || v->src.ch != 1 || v->gl.rem || v->gr.rem || !v->pcm ||
        !v->pcm->finite) /* unchecked samples stay on the guarded path */
        return;
    if (v->flags & HL_MIX_3D) {
        if (v->gl.target != v->sp_l || v->gr.target != v->sp_r || v->sp_pend) return;
        f->lgen = m->listener_gen;
    } else {
        f->lgen = 0;
    }
    const int hgt = m->height && (v->flags & HL_MIX_3D); /* settled slots, no post stage */
    if (hgt && (m->no_fast_height || v->post || v->sp_hmoved)) return;
    f->data = v->src.data;
    f->step = voice_step(v);
    sinc_follow(m, &v->src, f->step); /* lim_fp for this step's kernel */
    /* just after a wrap, the taps before the loop start: the full path */
    if (f->cursor < view_lo(&v->src)) return;
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
    if (hgt) f->ramp = HL_FAST_HEIGHT; /* process_fast_height */
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
    hl_voice_post_rt(m, v, l, r, n, buses);
    v->htail = n >= v->htail ? 0 : v->htail - n;
    return v->htail == 0;
}

/* Where a mono or stereo voice's pair goes (process_voice): a partition's
 * accumulators (HL_PART_ACC), its own pair's scratch (two HL_MIX_BLOCK
 * planes) and its bus voice counts. NULL: the mixer's buses, sbuf, counts. */
typedef struct {
    float *acc, *sbuf;
    uint32_t *voices;
} voice_dst_t;

/* One voice's block: returns 1 when the voice ended (end_reason and
 * end_frame set for its ENDED event), 0 while it plays. With d, only a
 * PCM voice whose block touches nothing but itself and d may come
 * (edge_in_part). */
static int process_voice(hl_mixer_t *m, hl_rt_voice_t *v, uint32_t n, uint64_t now_ns,
                         uint32_t *mixed, uint32_t *virt, uint32_t *streams, uint32_t *buses,
                         const voice_dst_t *d) {
    if (v->stream) (*streams)++;
    if (v->htail) return hrtf_ring_out(m, v, n, buses);
    if (v->env_mode == HL_ENV_RELEASE && v->env.rem == 0) { /* stopped while paused */
        v->end_frame = m->clock;
        return 1;
    }
    if (v->env_mode == HL_ENV_PAUSED) return 0; /* holds: no cursor, no fades */
    if (!v->started) {
        v->started = 1;
        hl_voice_event_rt(m, HL_MIX_EV_STARTED, 0, v, now_ns, m->clock, 0);
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
            uint32_t seg = hl_voice_rate_run_rt(v, n - t);
            skip_voice(v, seg, voice_step(v), &finished);
            hl_voice_rate_advance_rt(m, v, seg);
            t += seg;
        }
        ramp_advance(&v->gl, n);
        ramp_advance(&v->gr, n);
        hl_voice_env_advance_rt(v, n);
        ramp_advance(&v->xf, n);
        if (v->sw_mode != HL_SW_NONE && v->xf.rem == 0) hl_voice_switch_rt(m, v, now_ns);
    } else if (v->channels > 2) { /* multichannel (PCM or stream): each channel to its plane */
        (*mixed)++;
        *buses |= 1u << v->bus;
        m->bus[v->bus].voices++;
        finished = hl_multi_voice_rt(m, v, n, now_ns);
    } else {
        (*mixed)++;
        *buses |= 1u << v->bus;
        (*(d ? &d->voices[v->bus] : &m->bus[v->bus].voices))++;
        float *const bus_l = d ? HL_PART_ACC(m, d->acc, v->bus, v->f.cl) : m->acc[v->bus][v->f.cl];
        float *const bus_r = d ? HL_PART_ACC(m, d->acc, v->bus, v->f.cr) : m->acc[v->bus][v->f.cr];
        float *acc_l = bus_l, *acc_r = bus_r;
        /* a PCM voice on the full path mixes into its own pair (the stream
         * scratch, which PCM voices never use) that joins the bus only if it
         * is finite; a stream's frames are sanitised as they are copied (a
         * stream voice with a post stage mixes into vbuf) */
        const int lfe = m->lfe_ch >= 0 && (v->lfe.cur != 0.0f || v->lfe.target != 0.0f);
        const int hgt = m->height && (v->flags & HL_MIX_3D);
        float *own = v->stream ? (v->post || lfe || hgt ? m->vbuf[0] : NULL)
                     : d       ? d->sbuf
                               : m->sbuf;
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
                hl_voice_switch_rt(m, v, now_ns);
            uint32_t seg = hl_voice_rate_run_rt(v, n - t);
            if (v->env.rem && v->env.rem < seg) seg = v->env.rem;
            if (v->gl.rem && v->gl.rem < seg) seg = v->gl.rem;
            if (v->xf.rem && v->xf.rem < seg) seg = v->xf.rem;
            /* envelope and gain pair are linear over the segment; their
             * product is the exact quadratic the kernels apply */
            const float e0 = v->env.cur, l0 = v->gl.cur, r0 = v->gr.cur;
            hl_gain_ramp_t g = {e0 * l0, 0.0f, 0.0f, e0 * r0, 0.0f, 0.0f, 0.0f};
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
                hl_voice_render_stream_rt(m, v, acc_l + t, acc_r + t, seg,
                                          hl_gains_finite(&g) ? &g : &mute, voice_step(v),
                                          &finished);
            } else {
                (void)render_src(m, v, &v->src, &v->f.cursor, acc_l + t, acc_r + t, seg, &g,
                                 voice_step(v), &finished);
            }
            hl_voice_seg_advance_rt(m, v, seg);
            t += seg;
            if (finished || (v->env.rem == 0 && v->env_mode != HL_ENV_RUN)) break;
        }
        if (!finished && t < n && v->env_mode == HL_ENV_RELEASE) {
            /* faded out part way: the source goes on silently to the block's
             * end, so the ENDED event's position belongs to its frame */
            static const hl_gain_ramp_t silent;
            int past_end = 0;
            while (t < n && !past_end) {
                uint32_t seg = hl_voice_rate_run_rt(v, n - t);
                if (v->stream)
                    hl_voice_render_stream_rt(m, v, acc_l + t, acc_r + t, seg, &silent,
                                              voice_step(v), &past_end);
                else
                    skip_voice(v, seg, voice_step(v), &past_end);
                hl_voice_rate_advance_rt(m, v, seg);
                t += seg;
            }
        }
        if (own && span_finite(own, n) && span_finite(own + HL_MIX_BLOCK, n)) {
            if (lfe) hl_surround_lfe_rt(m, v, own, own + HL_MIX_BLOCK, n);
            if (v->post) {
                hl_voice_post_rt(m, v, own, own + HL_MIX_BLOCK, n, buses);
            } else if (hgt) {
                hl_voice_height_rt(m, v, own, own + HL_MIX_BLOCK, n);
            } else {
                /* the pair joins the bus: x 1 is exact, so the same sums as
                 * adding (the kernel's vector loop, not a scalar one) */
                static const hl_gain_ramp_t unity = {1.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f};
                m->k->mix_planar(bus_l, bus_r, own, own + HL_MIX_BLOCK, n, &unity);
            }
        }
    }
    if (m->height && (v->flags & HL_MIX_3D)) hl_surround_height_advance_rt(v, n);
    if (!d)
        v->end_frame = m->clock + n; /* a partition's voice cannot end this block, and a
                                      * stuck worker must not read the clock */
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
    const float *in = hl_voice_mono_in_rt(m, f, n);
    if (!in) return 0;
    f->cursor = c + (uint64_t)n * step;
    (*mixed)++;
    *buses |= 1u << f->bus;
    m->bus[f->bus].voices++;
    hl_voice_post_mono_rt(m, (hl_rt_voice_t *)(void *)f, in, n, f->gl, f->gr, buses);
    return 1;
}

/* The kernel run of a steady voice over n frames from cursor c with gains g;
 * the caller checked the bounds (process_fast). */
static inline __attribute__((always_inline)) void fast_kernel(hl_mixer_t *m, const hl_rt_fast_t *f,
                                                              float *acc_l, float *acc_r,
                                                              uint64_t c, uint32_t n,
                                                              const hl_gain_ramp_t *g) {
    const uint64_t step = f->step;
    const uint32_t idx = (uint32_t)(c >> 32), frac = (uint32_t)(c & HL_FP_FRAC);
    const float *src = f->data + idx;
    if (step == HL_FP_ONE && frac == 0 && idx < f->copy_end)
        m->k->mix_mono(acc_l, acc_r, src, n, g);
    else if (f->cubic == HL_INTERP_SINC)
        m->sk->mono(acc_l, acc_r, src, n, frac, step, g, hl_sinc_level(m->sinc, step));
    else if (f->cubic)
        m->k->cubic_mix_mono(acc_l, acc_r, src, f->frames - idx, n, frac, step, g);
    else
        m->k->interp_mix_mono(acc_l, acc_r, src, f->frames - idx, n, frac, step, g);
}

/* A steady 2D voice whose gain pair ramps (f.ramp): the ramp's part of the
 * block with the linear per-sample ramp, the rest flat, each one kernel
 * run, with the gains the full path computes for the same segments (the
 * envelope is settled: its slope is 0). Returns 0 (nothing done) when the
 * gains are not finite or the pair's ramps differ: the full path takes it. */
static __attribute__((noinline)) int fast_ramped(hl_mixer_t *m, hl_rt_voice_t *v, float *acc_l,
                                                 float *acc_r, uint64_t c, uint32_t n) {
    hl_rt_fast_t *f = &v->f;
    uint32_t rn;
    hl_gain_ramp_t g1, g2;
    if (!hl_fast_ramp_gains(v, n, &rn, &g1, &g2)) return 0;
    fast_kernel(m, f, acc_l, acc_r, c, rn, &g1);
    if (rn < n) fast_kernel(m, f, acc_l + rn, acc_r + rn, c + (uint64_t)rn * f->step, n - rn, &g2);
    hl_fast_ramp_advance(v, rn, &g2);
    return 1;
}

/* The bounds of a steady voice's block from cursor c: 1 if its n frames
 * stay inside the interior (no edge: the steady path may take them). */
static inline int fast_inside(const hl_mixer_t *m, const hl_rt_fast_t *f, uint64_t c, uint32_t n) {
    const uint64_t step = f->step;
    const uint32_t idx = (uint32_t)(c >> 32), frac = (uint32_t)(c & HL_FP_FRAC);
    if (step == HL_FP_ONE && frac == 0 && idx < f->copy_end)
        /* no span check here: only PCM its owner vouched finite (hl_pcm_t.finite:
         * the loader zeroed every NaN and Inf) and finite gains reach the
         * steady path; everything else is guarded on the full path */
        return f->copy_end - idx >= n;
    if (c >= f->lim_fp || (uint64_t)n * step > f->lim_fp - c) return 0;
    if (f->cubic == HL_INTERP_SINC)
        return c >= (uint64_t)(hl_sinc_level(m->sinc, step)->half - 1) << 32;
    return !f->cubic || c >= HL_FP_ONE;
}

/* process_fast for a steady height voice (f.ramp HL_FAST_HEIGHT): the kernel
 * run into its own pair, then its planes as the full path's (voice_post.c). */
static __attribute__((noinline)) int process_fast_height(hl_mixer_t *m, hl_rt_fast_t *f, uint32_t n,
                                                         uint32_t *mixed, uint32_t *buses) {
    const hl_gain_ramp_t g = {f->gl, 0.0f, 0.0f, f->gr, 0.0f, 0.0f, 0.0f};
    if (!fast_inside(m, f, f->cursor, n)) return 0;
    memset(m->sbuf, 0, (HL_MIX_BLOCK + n) * sizeof(float)); /* its pair: sbuf, sbuf + block */
    fast_kernel(m, f, m->sbuf, m->sbuf + HL_MIX_BLOCK, f->cursor, n, &g);
    f->cursor += (uint64_t)n * f->step;
    hl_voice_height_steady_rt(m, (hl_rt_voice_t *)(void *)f, n, mixed, buses);
    return 1;
}

/* process_fast for a steady 2D voice whose gain pair ramps (f.ramp): the
 * same bounds, then fast_ramped; kept out of line so that the settled
 * voices' path stays as it was. */
static __attribute__((noinline)) int process_fast_ramp(hl_mixer_t *m, hl_rt_fast_t *f, uint32_t n,
                                                       uint32_t *mixed, uint32_t *buses) {
    if (f->ramp == HL_FAST_HEIGHT) return process_fast_height(m, f, n, mixed, buses);
    const uint64_t c = f->cursor, step = f->step;
    float *acc_l = m->acc[f->bus][f->cl], *acc_r = m->acc[f->bus][f->cr];
    /* never filtered before the pan: the pair ramps */
    if (!fast_inside(m, f, c, n)) return 0;
    hl_rt_voice_t *v = (hl_rt_voice_t *)(void *)f;
    float k = -1.0f; /* r = k l over the block (hl_voice_ramp_pan_rt), before the ramps move */
    const float *u = f->post ? hl_voice_ramp_pan_rt(m, v, n, &k) : NULL;
    if (u) { /* one channel, then the mono post stage */
        f->cursor = c + (uint64_t)n * step;
        (*mixed)++;
        *buses |= 1u << f->bus;
        m->bus[f->bus].voices++;
        hl_voice_post_mono_rt(m, v, u, n, 1.0f, k, buses);
        return 1;
    }
    if (f->post) { /* its own pair first: filter and sends follow */
        acc_l = m->vbuf[0];
        acc_r = m->vbuf[1];
        memset(acc_l, 0, n * sizeof(float));
        memset(acc_r, 0, n * sizeof(float));
    }
    if (!fast_ramped(m, v, acc_l, acc_r, c, n)) return 0;
    f->cursor = c + (uint64_t)n * step;
    (*mixed)++;
    *buses |= 1u << f->bus;
    m->bus[f->bus].voices++;
    if (f->post) hl_voice_post_scaled_rt(m, v, acc_l, acc_r, n, k, buses);
    return 1;
}

/* Mixes a steady voice from its first cache line alone, exactly as the full
 * path would (flat gains, one kernel run, no edge; a ramping 2D gain pair
 * through process_fast_ramp). Returns 0 when the
 * block would reach an edge of the interior: the full path takes it. */
static inline __attribute__((always_inline)) int
process_fast(hl_mixer_t *m, hl_rt_fast_t *f, uint32_t n, uint32_t *mixed, uint32_t *buses) {
    if (__builtin_expect(f->ramp, 0)) return process_fast_ramp(m, f, n, mixed, buses);
    const uint64_t c = f->cursor, step = f->step;
    const uint32_t idx = (uint32_t)(c >> 32), frac = (uint32_t)(c & HL_FP_FRAC);
    float *acc_l = m->acc[f->bus][f->cl], *acc_r = m->acc[f->bus][f->cr];
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
    const hl_gain_ramp_t g = {f->gl, 0.0f, 0.0f, f->gr, 0.0f, 0.0f, 0.0f};
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
            m->k->cubic_mix_mono(acc_l, acc_r, src, f->frames - idx, n, frac, step, &g);
        } else {
            m->k->interp_mix_mono(acc_l, acc_r, src, f->frames - idx, n, frac, step, &g);
        }
    }
    f->cursor = c + (uint64_t)n * step;
    (*mixed)++;
    *buses |= 1u << f->bus;
    m->bus[f->bus].voices++;
    if (f->post) hl_voice_post_rt(m, (hl_rt_voice_t *)(void *)f, acc_l, acc_r, n, buses);
    return 1;
}

#include "mix_prefetch.h" /* prefetch_state, prefetch_src, prefetch_ahead */

/* A voice the steady path cannot take (its block reaches a loop point or
 * another edge of its source, above all): 1 if its full path
 * (process_voice) may run inside a partition, where it touches only
 * itself, the partition's accumulators and its own scratch pair: a
 * started mono PCM voice, no post stage, fade, envelope ramp,
 * switch, LFE or height planes (and no modulation change due: the chunk
 * leaves those), its 3D pair the one cached, and a block that cannot end
 * it (an endless loop, or no edge past the end; an ENDED event and the
 * list's compaction are the audio thread's). Anything else stays on the
 * second pass. */
static int edge_in_part(const hl_mixer_t *m, uint32_t s, uint32_t n) {
    const hl_rt_voice_t *v = &m->rt[s];
    if (!voice_settled(m, v) || v->channels != 1 || v->post || v->hrtf || v->htail) return 0;
    if ((v->flags & HL_MIX_3D) && (m->height || m->nch > HL_MIX_PART_CH))
        return 0; /* beyond the partition's planes */
    return (v->loop_on && v->loops_left == HL_LOOP_FOREVER) ||
           v->f.cursor + (uint64_t)n * voice_step(v) < v->src.end_fp;
}

/* The partitions' chunk of steady voices (hl_mix_chunk_fn, mix_part_int.h). */
static void mix_chunk_rt(hl_mixer_t *m, const uint32_t *slot, uint32_t a, uint32_t b, uint32_t n,
                         float *acc, hl_part_stats_t *st, uint8_t *left) {
    /* only slot[a..b-1] is this chunk's (the voices after it may be another
     * thread's, and a stuck worker's list is its own): prefetches stay inside */
    for (uint32_t j = a; j < a + HL_PF_STATE_AHEAD && j < b; j++) {
        if (slot[j] != HL_MIX_NO_SLOT) prefetch_state(&m->rt[slot[j]]);
        if (j < a + HL_PF_SRC_AHEAD && slot[j] != HL_MIX_NO_SLOT) prefetch_src(&m->rt[slot[j]], n);
    }
    const int pair = m->k->interp_mix_mono2 != NULL;
    for (uint32_t i = a; i < b; i++) {
        const uint32_t ps =
            i + HL_PF_STATE_AHEAD < b ? slot[i + HL_PF_STATE_AHEAD] : HL_MIX_NO_SLOT;
        const uint32_t pc = i + HL_PF_SRC_AHEAD < b ? slot[i + HL_PF_SRC_AHEAD] : HL_MIX_NO_SLOT;
        if (ps != HL_MIX_NO_SLOT) prefetch_state(&m->rt[ps]);
        if (pc != HL_MIX_NO_SLOT) prefetch_src(&m->rt[pc], n);
        const uint32_t s = slot[i];
        left[i] = 0;
        if (s == HL_MIX_NO_SLOT) continue; /* a stuck worker's: not touched */
        hl_rt_fast_t *f = &m->rt[s].f;
        /* due to take its slot's change: left to render_left (a ramp or post) */
        const int due = hl_mod_due_at(m, s);
        if (pair && !due && i + 1 < b && slot[i + 1] != HL_MIX_NO_SLOT &&
            !hl_mod_due_at(m, slot[i + 1]) && mix_pair(m, f, &m->rt[slot[i + 1]].f, n, acc, NULL)) {
            left[++i] = 0; /* the second: its prefetches as the loop's */
            if (i + HL_PF_STATE_AHEAD < b && slot[i + HL_PF_STATE_AHEAD] != HL_MIX_NO_SLOT)
                prefetch_state(&m->rt[slot[i + HL_PF_STATE_AHEAD]]);
            if (i + HL_PF_SRC_AHEAD < b && slot[i + HL_PF_SRC_AHEAD] != HL_MIX_NO_SLOT)
                prefetch_src(&m->rt[slot[i + HL_PF_SRC_AHEAD]], n);
            st->mixed += 2;
            st->buses |= 1u << f->bus;
            st->voices[f->bus] += 2;
            continue;
        }
        const uint64_t c = f->cursor;
        if (due || !f->steady || f->post || f->ramp || (f->lgen && f->lgen != m->listener_gen) ||
            !fast_inside(m, f, c, n)) {
            /* an edge (a loop point, the taps before the loop's start just
             * after a wrap), a 2D gain ramp: its full path here if that
             * touches only the voice, else the second pass */
            if (due || f->ramp || !edge_in_part(m, s, n)) {
                left[i] = 1;
                continue;
            }
            const voice_dst_t d = {acc, HL_PART_SBUF(m, acc), st->voices};
            uint32_t virt = 0, streams = 0;
            (void)process_voice(m, &m->rt[s], n, 0, &st->mixed, &virt, &streams, &st->buses, &d);
            continue;
        }
        const hl_gain_ramp_t g = {f->gl, 0.0f, 0.0f, f->gr, 0.0f, 0.0f, 0.0f};
        fast_kernel(m, f, HL_PART_ACC(m, acc, f->bus, f->cl), HL_PART_ACC(m, acc, f->bus, f->cr), c,
                    n, &g);
        f->cursor = c + (uint64_t)n * f->step;
        st->mixed++;
        st->buses |= 1u << f->bus;
        st->voices[f->bus]++;
    }
}

/* A partitioned block's second pass: the voices the first left (their
 * positions pos[0..nl-1], in list order), on the full path; those that end
 * leave the list in order. */
static void render_left(hl_mixer_t *m, const uint32_t *pos, uint32_t nl, uint32_t n,
                        uint64_t now_ns, uint32_t *mixed, uint32_t *virt, uint32_t *streams,
                        uint32_t *buses) {
    const uint32_t na = m->n_rt_active;
    uint32_t ended = 0;
    for (uint32_t k = 0; k < nl; k++) {
        if (k + HL_PF_STATE_AHEAD < nl)
            prefetch_state(&m->rt[m->rt_active[pos[k + HL_PF_STATE_AHEAD]]]);
        if (k + HL_PF_SRC_AHEAD < nl)
            prefetch_src(&m->rt[m->rt_active[pos[k + HL_PF_SRC_AHEAD]]], n);
        const uint32_t i = pos[k];
        hl_rt_voice_t *v = &m->rt[m->rt_active[i]];
        if (m->mod_pend_any && hl_mod_pending(m, m->rt_active[i])) hl_voice_mod_take_rt(m, v);
        if (v->f.ramp == HL_FAST_HEIGHT && v->f.steady && v->f.lgen == m->listener_gen &&
            process_fast_height(m, &v->f, n, mixed, buses)) /* the partitions leave these */
            continue;
        if (process_voice(m, v, n, now_ns, mixed, virt, streams, buses, NULL)) {
            end_event(m, v, now_ns);
            ended++;
        }
    }
    if (!ended) return;
    uint32_t k = 0;
    for (uint32_t i = 0; i < na; i++)
        if (m->rt[m->rt_active[i]].live) m->rt_active[k++] = m->rt_active[i];
    m->n_rt_active = k;
}

static void render_block(hl_mixer_t *m, float *out, uint32_t n, uint64_t now_ns,
                         float bus_peak[HL_MAX_BUSES]) {
    /* only the buses written last block need clearing: the others are zero */
    for (int b = 0; b < HL_MAX_BUSES; b++) {
        m->bus[b].voices = 0;
        if (m->bus_dirty & (1u << b)) {
            for (uint32_t c = 0; c < m->nch; c++)
                memset(m->acc[b][c], 0, sizeof m->acc[b][c]);
        }
    }
    uint32_t mixed = 0, virt = 0, streams = 0, buses = 0;
    uint32_t i = 0;
    m->hrtf_mixed = 0;
    hl_voice_mod_block_rt(m, n); /* the modulation slots' filter glides first */
    uint32_t nl = 0;
    const uint32_t *left = hl_mix_part_block_rt(m, mix_chunk_rt, n, &mixed, &buses, &nl);
    if (left) {
        render_left(m, left, nl, n, now_ns, &mixed, &virt, &streams, &buses);
        i = m->n_rt_active; /* done: the loop below has nothing left */
    }
    const int pair = m->k->interp_mix_mono2 != NULL; /* two plain voices a call */
    /* warm-up: the voices the loop below starts with */
    for (uint32_t j = i; j < HL_PF_STATE_AHEAD && j < m->n_rt_active; j++) {
        prefetch_state(&m->rt[m->rt_active[j]]);
        if (j < HL_PF_SRC_AHEAD) prefetch_src(&m->rt[m->rt_active[j]], n);
    }
    while (i < m->n_rt_active) {
        const uint32_t na = m->n_rt_active;
        if (i + HL_PF_STATE_AHEAD < na) prefetch_state(&m->rt[m->rt_active[i + HL_PF_STATE_AHEAD]]);
        /* the source spans of the voices HL_PF_SRC_AHEAD and one more ahead:
         * a pair's kernel prefetches the plain ones while it mixes (pf[k],
         * pf[k + 2]), the loop the others and what a declined pair left */
        const char *pf[4] = {NULL, NULL, NULL, NULL};
        if (i + HL_PF_SRC_AHEAD < na &&
            !span_ahead(m, m->rt_active[i + HL_PF_SRC_AHEAD], n, &pf[0], &pf[2]))
            prefetch_ahead(m, m->rt_active[i + HL_PF_SRC_AHEAD], n);
        hl_rt_voice_t *v = &m->rt[m->rt_active[i]];
        if (m->mod_pend_any && hl_mod_pending(m, m->rt_active[i])) hl_voice_mod_take_rt(m, v);
        if (pair && i + 1 < na && !hl_mod_due_at(m, m->rt_active[i + 1])) {
            const int later =
                i + 1 + HL_PF_SRC_AHEAD < na &&
                !span_ahead(m, m->rt_active[i + 1 + HL_PF_SRC_AHEAD], n, &pf[1], &pf[3]);
            if (mix_pair(m, &v->f, &m->rt[m->rt_active[i + 1]].f, n, NULL, pf)) {
                mixed += 2;
                buses |= 1u << v->f.bus;
                m->bus[v->f.bus].voices += 2;
                if (i + 1 + HL_PF_STATE_AHEAD < na)
                    prefetch_state(&m->rt[m->rt_active[i + 1 + HL_PF_STATE_AHEAD]]);
                if (later) prefetch_ahead(m, m->rt_active[i + 1 + HL_PF_SRC_AHEAD], n);
                i += 2;
                continue;
            }
        }
        if (pf[0]) prefetch_span(pf[0], pf[2]); /* no pair: the loop's */
        if (v->f.steady && (v->f.lgen == 0 || v->f.lgen == m->listener_gen) &&
            process_fast(m, &v->f, n, &mixed, &buses)) {
            i++;
            continue;
        }
        if (process_voice(m, v, n, now_ns, &mixed, &virt, &streams, &buses, NULL))
            end_voice(m, i, now_ns); /* swapped in: same i again */
        else
            i++;
    }
    hl_voice_mod_settle_rt(m); /* every voice visited: the changes taken */
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

void hl_mixer_process_rt(hl_mixer_t *m, float *out, uint32_t frames, uint64_t now_ns) {
#ifdef HL_HAVE_MXCSR
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
    memset(&m->meter, 0, sizeof m->meter); /* the buses add into it as they run */
    hl_mix_part_prewake_rt(m);             /* the workers wake while the ring drains */
    hl_sched_clock_rt(m, now_ns);
    /* what was scheduled for this very frame first, then the ring: a
     * command sent "now" on a voice whose start is due here finds it */
    if (!hl_mix_part_hold_rt(m)) { /* a stuck mix worker: the commands wait (mix_part.c) */
        hl_sched_apply_due_rt(m, now_ns);
        hl_sched_apply_drained_rt(m, frames, now_ns);
    }
    uint32_t tail = atomic_load_explicit(&m->cmd_ring.tail, memory_order_relaxed);
    atomic_store_explicit(&m->clk_drained, 0, memory_order_relaxed); /* the pair is changing */
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&m->clk_tail, tail, memory_order_relaxed);
    atomic_store_explicit(&m->clk_len, frames, memory_order_relaxed);
    atomic_store_explicit(&m->clk_drained, m->clock + 1, memory_order_release);
    float bus_peak[HL_MAX_BUSES] = {0};
    int limited = 0;
    m->splits = 0;
    for (uint32_t done = 0; done < frames;) {
        uint32_t n = frames - done < HL_MIX_BLOCK ? frames - done : HL_MIX_BLOCK;
        /* cut the block at the next scheduled frame (> clock but while held),
         * or, past HL_SCHED_SPLITS cuts in this call, on the grid */
        uint64_t next = hl_sched_cut_rt(m);
        if (next > m->clock && next - m->clock < n) {
            n = (uint32_t)(next - m->clock);
            m->splits++;
        }
        float *o = out + (size_t)m->nch * done;
        render_block(m, o, n, now_ns, bus_peak);
        limited |= m->nch == 2 ? hl_limiter_process_rt(&m->limiter, o, n)
                               : hl_limiter_process_n_rt(&m->limiter, o, n, m->nch);
        done += n;
        if (!hl_mix_part_hold_rt(m)) hl_sched_apply_due_rt(m, now_ns);
    }
    hl_mix_meter_t *mt = &m->meter;
    float *mp = mt->peak[HL_MIX_METER_MASTER];
    double *ms = mt->sumsq[HL_MIX_METER_MASTER];
    if (m->nch > 2) {
        hl_surround_meter_rt(m, out, frames);
    } else {
        hl_peak_stereo_rt(out, frames, &mp[0], &mp[1]);
        hl_sumsq_stereo_rt(out, frames, &ms[0], &ms[1]);
    }
    hl_mix_stats_atomic_t *st = &m->stats;
    add_u64(&st->blocks, 1);
    add_u64(&st->frames, frames);
    if (limited) add_u64(&st->limiter_blocks, 1);
    store_f32(&st->peak[0], mp[0]);
    store_f32(&st->peak[1], mp[1]);
    for (uint32_t c = 2; c < m->nch; c++)
        store_f32(&st->out_peak[c], mp[c]);
    mt->frames = frames;
    mt->channels = m->nch;
    mt->now_frames = m->clock;
    for (int b = 0; b < HL_MAX_BUSES; b++)
        store_f32(&st->bus_peak[b], bus_peak[b]);
}
