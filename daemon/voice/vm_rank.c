/*
 * vm_rank.c - how much a logical voice matters (where it is: vm.c):
 * audibility
 * (gain x bus gain x distance attenuation) and importance, the moves between
 * real and virtual (a mixer voice started at the computed position, or faded
 * out), and the periodic ranking that keeps the most important voices real.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hl_dsp.h"
#include "sounds.h"
#include "vm_internal.h"

/* ---- audibility -------------------------------------------------------------- */

float vm_distance_to_listener(const hld_vm_t *vm, const hld_lvoice_t *v) {
    if (!(v->p.flags & HL_MIX_3D)) return 0.0f;
    float best = -1.0f;
    for (uint32_t k = 0; k < vm->n_lis || k == 0; k++) { /* the nearest listener hears it */
        const float *lp = vm->n_lis ? vm->lis_pos[k] : vm->lis.pos;
        float dx = v->p.pos[0] - lp[0], dy = v->p.pos[1] - lp[1], dz = v->p.pos[2] - lp[2];
        float d2 = dx * dx + dy * dy + dz * dz;
        if (best < 0.0f || d2 < best) best = d2;
    }
    return sqrtf(best);
}

/* Gain x bus gain x distance attenuation; *beyond = 3D past max distance
 * (and not clamped). */
float vm_audibility(const hld_vm_t *vm, const hld_lvoice_t *v, int *beyond) {
    *beyond = 0;
    /* heard through its bus or, as loud, through a send (a voice on a muted
     * bus that feeds a reverb is still heard, as the reverb) */
    float bus_g = vm->bus_gain[v->p.bus < HL_MAX_BUSES ? v->p.bus : 0];
    for (int i = 0; i < HL_MAX_SENDS; i++)
        if (v->p.send_gain[i] > 0.0f && v->p.send_bus[i] < HL_MAX_BUSES)
            bus_g = fmaxf(bus_g, v->p.send_gain[i] * vm->bus_gain[v->p.send_bus[i]]);
    float g = v->p.gain * bus_g;
    if (v->p.occ_db < 0.0f) g *= hl_db_to_lin(v->p.occ_db); /* a wall between is quieter */
    if (v->p.flags & HL_MIX_3D) {
        float d = vm_distance_to_listener(vm, v);
        if (d >= v->p.max_distance) {
            if (v->beyond != HL_BEYOND_CLAMP) {
                *beyond = 1;
                return 0.0f;
            }
            d = v->p.max_distance;
        }
        g *= v->p.curve_n ? hl_curve_gain(v->p.curve_n, v->p.curve_d, v->p.curve_db, d)
                          : hl_distance_gain((int)v->p.model, d, v->p.min_distance,
                                             v->p.max_distance, v->p.rolloff);
    }
    return g;
}

/* The listener and bus gains that vm_audibility() reads, from the mixer's
 * control side: those in effect on the frame the decisions are for (a move
 * or bus change scheduled later is not seen early, one scheduled earlier
 * is: the same whether it was sent a minute or a period ahead). */
void vm_snapshot(hld_vm_t *vm) {
    uint64_t f = vm->lis_set ? vm->lis_frame : hl_mixer_effect_frame(vm->mx);
    hl_listener_state_t all[HL_MIX_LISTENERS];
    uint32_t on = hl_mixer_listeners_at(vm->mx, f, all);
    vm->lis = all[0];
    vm->n_lis = 0; /* every listener on at frame f: the nearest hears a voice */
    for (uint32_t k = 0; k < HL_MIX_LISTENERS; k++)
        if (on >> k & 1u) memcpy(vm->lis_pos[vm->n_lis++], all[k].pos, sizeof all[k].pos);
    hl_mixer_buses_heard_at(vm->mx, f, vm->bus_gain);
}

/* ---- real <-> virtual ------------------------------------------------------- */

/* Starts the mixer voice of v at its current position with a fade-in of
 * attack frames. 0, or a negative code (v stays virtual). */
static int realise(hld_vm_t *vm, hld_lvoice_t *v, uint32_t attack, uint64_t now_ns) {
    uint64_t f = vm_now_frame(vm);
    if (v->virt == HL_VIRT_RESTART && v->seq_started) {
        v->anchor_pos = 0.0;
        v->anchor_frame = f;
        v->loops_left = v->loops_initial;
    }
    if (vm_reanchor(v, f)) return HELIOD_ENOVOICE; /* past its end: the tick ends it */
    if (v->is_stream) {
        if (!vm->ops.open_stream) return HELIOD_EIO;
        int rc = vm->ops.open_stream(vm->ops.user, vm_handle_of(vm, v), v,
                                     hld_frames_u64(v->anchor_pos), v->loops_left);
        if (rc < 0) return rc;
        v->opening = 1;
        v->attack_next = attack;
        vm->n_real++;
        return 0;
    }
    hl_voice_params_t p = v->p;
    p.start_frame = hld_frames_u32(v->anchor_pos); /* past a pcm's end: refused below */
    if (p.pcm && p.start_frame >= p.pcm->frames) return HELIOD_ENOVOICE;
    p.attack_frames = attack;
    p.flags &= ~HL_MIX_LOOP;
    p.loop_count = 0;
    if (v->loops_left != 0) {
        p.flags |= HL_MIX_LOOP;
        p.loop_count = v->loops_left < 0 ? 0 : (uint32_t)v->loops_left;
    }
    if (v->paused) p.flags |= HL_MIX_PAUSED;
    p.flags = vm_interp_flags(v, p.flags);
    uint64_t mix = 0, stolen = 0;
    /* its scheduled commands carry its owner: cancelled if that client leaves
     * first (0, a detached voice: never) */
    uint32_t tag = hl_mixer_owner(vm->mx, v->owner);
    int rc = hl_mixer_play(vm->mx, &p, now_ns, &mix, &stolen);
    hl_mixer_owner(vm->mx, tag);
    if (rc < 0) return rc;
    v->anchor_pos = (double)p.start_frame;
    v->anchor_frame = f;
    v->mix = mix;
    vm_mix_ref(vm, mix, v->snd);
    v->real = 1;
    vm->n_real++;
    (void)stolen; /* the voice manager never exceeds the mixer's budget */
    return 0;
}

int vm_realise(hld_vm_t *vm, hld_lvoice_t *v, uint32_t attack, uint64_t now_ns) {
    vm_slot_sync(vm, v); /* the mixer is given its gain and cutoffs as they are */
    /* a voice whose scheduled start is still ahead (a scheduled play
     * admitted virtual) starts there, not now */
    uint64_t at_saved = hl_mixer_at_frame(vm->mx);
    if (v->anchor_frame > vm_now_frame(vm)) hl_mixer_at(vm->mx, v->anchor_frame);
    int rc = realise(vm, v, attack, now_ns);
    hl_mixer_at(vm->mx, at_saved);
    return rc;
}

/* Fades the mixer voice of v out; v becomes virtual. 0 or EBUSY. */
int vm_virtualise(hld_vm_t *vm, hld_lvoice_t *v, uint8_t why, uint64_t now_ns) {
    if (v->opening) { /* its stream arrives later: it will be given back */
        v->opening = 0;
        if (vm->n_real) vm->n_real--;
    } else if (v->real) {
        uint32_t fade = v->paused ? 0 : vm_ms_frames(vm, HLD_VM_VIRT_FADE_MS);
        int rc = hl_mixer_stop(vm->mx, v->mix, fade, (int)VM_END_VIRTUAL, now_ns);
        if (rc == HELIOD_EBUSY) return rc;
        vm_reanchor(v, vm_now_frame(vm));
        v->vmix = v->mix;
        v->mix = 0;
        v->real = 0;
        if (vm->n_real) vm->n_real--;
    }
    v->why = why;
    vm->n.virtualised++;
    if (v->cue) v->cue->n.virtualised++;
    if (v->cat) v->cat->n.virtualised++;
    vm_notify(vm, v, HL_EVENT_VIRTUAL, why, 0);
    return 0;
}

/* ---- ranking ------------------------------------------------------------------- */

void hld_vm_mark_dirty(hld_vm_t *vm) {
    vm->dirty = 1;
}

/* a before b: more important, older on ties */
static int rank_before(const rank_t *a, const rank_t *b) {
    return a->imp > b->imp || (a->imp == b->imp && a->seq < b->seq);
}

/* Partially orders r[0..n) so that r[0..k) are the k most important. */
static void select_top(rank_t *r, uint32_t n, uint32_t k) {
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        rank_t pivot = r[lo + (hi - lo) / 2];
        uint32_t i = lo, j = hi - 1;
        while (i <= j) {
            while (rank_before(&r[i], &pivot))
                i++;
            while (rank_before(&pivot, &r[j]))
                j--;
            if (i <= j) {
                rank_t t = r[i];
                r[i] = r[j];
                r[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) {
            hi = j + 1;
        } else if (k >= i) {
            lo = i;
        } else {
            return;
        }
    }
}

static int cmp_imp_asc(const void *a, const void *b) {
    const rank_t *x = a, *y = b;
    if (x->imp < y->imp) return -1;
    if (x->imp > y->imp) return 1;
    return x->seq > y->seq ? -1 : x->seq < y->seq;
}

void vm_end_virtual(hld_vm_t *vm, hld_lvoice_t *v, int reason) {
    vm_count_out(vm, (uint32_t)(v - vm->lv));
    vm_notify(vm, v, HL_EVENT_ENDED, (uint8_t)reason, 0);
    vm_lv_free(vm, v);
}

static void step_quality(hld_vm_t *vm, uint64_t now_ns);

static void rank_voices(hld_vm_t *vm, uint64_t now_ns) {
    vm_snapshot(vm);
    uint64_t f = vm_now_frame(vm);
    uint32_t n = 0;
    /* a slot moved since the last ranking: every voice's copy follows (the
     * opening ones too, so that none is behind when nothing moved); the
     * lines that takes, beyond those the ranking reads, are fetched a few
     * voices ahead (measured: a third to half of what it added, loaded) */
    const uint32_t sync = vm->slot_stale;
    vm->slot_stale = 0;
    for (uint32_t i = 0; i < vm->hi; i++) {
        hld_lvoice_t *v = &vm->lv[i];
        if (sync) {
            if (i + VM_SLOT_AHEAD < vm->hi) vm_slot_prefetch(&vm->lv[i + VM_SLOT_AHEAD]);
            vm_slot_sync(vm, v);
        }
        if (v->state != HLD_LV_ACTIVE) continue;
        if (!v->real && !v->opening && !v->paused && v->loops_left >= 0) {
            int ended; /* (a voice that loops forever never ends) */
            (void)vm_pos_at(v, f, &ended);
            if (ended) {
                vm_end_virtual(vm, v, HL_END_FINISHED);
                continue;
            }
        }
        int beyond;
        v->aud = vm_audibility(vm, v, &beyond);
        int incumbent = v->real || v->opening;
        if (beyond && v->beyond == HL_BEYOND_RELEASE) {
            uint64_t h = vm_handle_of(vm, v);
            if (hld_vm_stop(vm, h, v->fade_out_frames, v->fade_curve, HL_END_DISTANCE, now_ns) == 0)
                vm->n.released_distance++;
            continue;
        }
        float floor = incumbent ? vm->floor_lin : vm->floor_lin * HLD_VM_HYST;
        int eligible = !beyond && v->aud >= floor && !(v->paused && !incumbent);
        /* a scheduled change still ahead: judged once it applies */
        if (incumbent && v->sched_hold > hl_mixer_frames(vm->mx)) eligible = 1;
        v->imp = v->aud * v->pw;
        /* a paused voice keeps its real voice only while nobody audible needs it */
        if (v->paused) v->imp *= HLD_VM_PAUSED_WEIGHT;
        if (v->pinned) { /* a client-fed stream: real while the pool holds it */
            v->imp = HUGE_VALF;
            eligible = 1;
        }
        if (!eligible) {
            if (incumbent) {
                uint8_t why = beyond      ? HL_VIRT_WHY_DISTANCE
                              : v->paused ? HL_VIRT_WHY_PAUSED
                                          : HL_VIRT_WHY_FLOOR;
                if (v->virt == HL_VIRT_KILL) {
                    hld_vm_stop(vm, vm_handle_of(vm, v), v->fade_out_frames, v->fade_curve,
                                HL_END_KILLED, now_ns);
                    continue;
                }
                vm_virtualise(vm, v, why, now_ns);
            } else if (v->virt == HL_VIRT_KILL && !v->paused) {
                vm_end_virtual(vm, v, HL_END_KILLED); /* resumed but not important enough */
            }
            continue;
        }
        vm->rank[n++] = (rank_t){.imp = incumbent ? v->imp * HLD_VM_HYST : v->imp,
                                 .idx = i,
                                 .seq = v->seq,
                                 .flags = (incumbent ? RANK_INCUMBENT : 0u) |
                                          (v->virt == HL_VIRT_KILL && !v->paused ? RANK_KILL : 0u)};
    }
    uint32_t k = n < vm->real_cap ? n : vm->real_cap;
    uint32_t k_slots = n < vm->slot_cap ? n : vm->slot_cap; /* what the mixer could hold */
    vm->n_governed = k_slots - k;
    if (n > k) select_top(vm->rank, n, k);
    /* the losers first: their mixer voices make room */
    for (uint32_t j = k; j < n; j++) {
        uint32_t rf = vm->rank[j].flags;
        if (!(rf & (RANK_INCUMBENT | RANK_KILL))) continue; /* virtual and staying so */
        hld_lvoice_t *v = &vm->lv[vm->rank[j].idx];
        if (!(rf & RANK_INCUMBENT)) {
            vm_end_virtual(vm, v, HL_END_KILLED);
            continue;
        }
        if (v->paused) {
            vm_virtualise(vm, v, HL_VIRT_WHY_PAUSED, now_ns);
            continue;
        }
        if (v->virt == HL_VIRT_KILL) {
            hld_vm_stop(vm, vm_handle_of(vm, v), v->fade_out_frames, v->fade_curve, HL_END_KILLED,
                        now_ns);
            continue;
        }
        /* the ranks between k and k_slots would be real but for the governor */
        vm_virtualise(vm, v, j < k_slots ? HL_VIRT_WHY_GOVERNED : HL_VIRT_WHY_RANK, now_ns);
    }
    uint32_t attack = vm_ms_frames(vm, HLD_VM_REAL_FADE_MS);
    for (uint32_t j = 0; j < k; j++) {
        if (vm->rank[j].flags & RANK_INCUMBENT) continue; /* real already */
        hld_lvoice_t *v = &vm->lv[vm->rank[j].idx];
        if (v->real || v->opening || v->state != HLD_LV_ACTIVE) continue;
        if (vm->n_real >= vm->real_cap) break;
        int rc = vm_realise(vm, v, attack, now_ns);
        if (rc == 0) {
            if (!v->opening) {
                vm->n.realised++;
                vm_notify(vm, v, HL_EVENT_REAL, 0, 0);
            }
        } else if (rc == HELIOD_ENOVOICE) {
            vm_end_virtual(vm, v, HL_END_FINISHED);
        } else {
            vm->n.realise_failed++;
            if (rc == HELIOD_EBUSY) break;
        }
    }
    /* weakest real first, for admission until the next ranking */
    uint32_t w = 0;
    for (uint32_t j = 0; j < k; j++) {
        hld_lvoice_t *v = &vm->lv[vm->rank[j].idx];
        if (v->state == HLD_LV_ACTIVE && v->real) vm->rank[w++] = vm->rank[j];
    }
    qsort(vm->rank, w, sizeof *vm->rank, cmp_imp_asc);
    for (uint32_t j = 0; j < w; j++) {
        vm->weak[j] = vm->rank[j].idx;
        vm->weak_imp[j] = vm->lv[vm->rank[j].idx].imp; /* without the incumbent bonus */
    }
    vm->n_weak = w;
    step_quality(vm, now_ns);
    vm->weak_pos = 0;
    vm->n.ticks++;
}

int vm_wants_cubic(const hld_lvoice_t *v) {
    if (!(v->p.flags & (HL_MIX_CUBIC | HL_MIX_SINC))) return 0;
    if (v->p.pitch == 1.0f && !((v->p.flags & HL_MIX_3D) && v->p.doppler_factor > 0.0f)) return 0;
    return (v->p.flags & HL_MIX_SINC) ? 2 : 1;
}

uint32_t vm_interp_flags(const hld_lvoice_t *v, uint32_t flags) {
    uint32_t want = (uint32_t)vm_wants_cubic(v);
    if (!v->lowq || !want) return flags;
    uint32_t grant = want > v->lowq ? want - v->lowq : 0; /* 2 sinc, 1 cubic, 0 linear */
    flags &= ~(HL_MIX_CUBIC | HL_MIX_SINC);
    return flags | (grant == 2 ? HL_MIX_SINC : grant == 1 ? HL_MIX_CUBIC : 0);
}

/* The governor's quality step over the real voices, strongest first.
 * cubic_cap counts quality steps above linear: a sinc voice asks for two
 * (cubic, then sinc), a cubic one for one. Walking from the most important,
 * each voice keeps what the steps left pay for, so as the cap falls the
 * least important voice goes sinc -> cubic -> linear before the next one
 * loses anything. A switch the ring cannot take now is tried again at the
 * next ranking. */
static void step_quality(hld_vm_t *vm, uint64_t now_ns) {
    uint32_t n_steps = 0, n_lowq = 0, left = vm->cubic_cap;
    for (uint32_t j = vm->n_weak; j-- > 0;) {
        hld_lvoice_t *v = &vm->lv[vm->weak[j]];
        uint32_t want = (uint32_t)vm_wants_cubic(v);
        if (!want) {
            v->lowq = 0;
            continue;
        }
        n_steps += want;
        uint32_t grant = want < left ? want : left;
        left -= grant;
        uint32_t low = want - grant;
        if (low != v->lowq && v->mix) {
            hl_voice_set_t s = {.mask = HL_MIX_SET_INTERP, .cubic = grant};
            if (hl_mixer_set(vm->mx, v->mix, &s, now_ns) != 0) low = v->lowq;
        }
        v->lowq = (uint8_t)low;
        n_lowq += low != 0;
    }
    vm->n_cubic = n_steps;
    vm->n_lowq = n_lowq;
}

void hld_vm_count_virtual(hld_vm_t *vm) {
    for (uint32_t c = 0; c < vm->cues->ncues; c++)
        vm->cues->cues[c]->n.virtual_now = 0;
    for (uint32_t c = 0; c < vm->cues->ncats; c++)
        vm->cues->cats[c]->n.virtual_now = 0;
    for (uint32_t i = 0; i < vm->hi; i++) {
        hld_lvoice_t *v = &vm->lv[i];
        if (v->state != HLD_LV_ACTIVE || v->real || v->opening) continue;
        if (v->cue) v->cue->n.virtual_now++;
        if (v->cat) v->cat->n.virtual_now++;
    }
}

void hld_vm_rank(hld_vm_t *vm, uint64_t now_ns) {
    vm->last_tick_ns = now_ns;
    vm->dirty = 0;
    uint64_t t0 = vm_clock_ns();
    rank_voices(vm, now_ns);
    vm->last_rank_ns = vm_clock_ns() - t0;
}

void hld_vm_tick(hld_vm_t *vm, uint64_t now_ns) {
    /* The rankings sit on a grid of engine frames, not of wall time: the
     * ranking for grid frame T runs at the first poll that finds the clock
     * at or past T, sees the listener and bus gains in effect just before T
     * (what was scheduled up to T - 1) and takes effect at
     * T + HLD_VM_RANK_LEAD_MS (what it starts and stops is scheduled there),
     * so a live session and an offline render of it decide the same things
     * on the same frames, however late within the lead the poll came. A
     * ranking pass costs ~45 ns a logical voice (3 ms at 65,536): the grid
     * step stretches (whole ticks) so that it never takes more than a tenth
     * of the main thread's time. */
    uint64_t tick = vm_ms_frames(vm, (float)HLD_VM_TICK_MS);
    if (tick == 0) tick = 1;
    uint64_t period_ns = (uint64_t)HLD_VM_TICK_MS * 1000000ull;
    if (vm->last_rank_ns * 10 > period_ns)
        tick *= (vm->last_rank_ns * 10 + period_ns - 1) / period_ns;
    uint64_t now_f = hl_mixer_frames(vm->mx);
    if (now_f < vm->next_rank_frame) return;
    uint64_t t = now_f - now_f % tick; /* the grid frame just passed */
    vm->next_rank_frame = t + tick;
    uint64_t eff = t + vm->rank_lead;
    uint64_t saved = hl_mixer_at_frame(vm->mx);
    /* a poll later than the lead: at once (deterministic only without such lateness) */
    hl_mixer_at(vm->mx, eff > now_f ? eff : 0);
    /* what was scheduled before T, not on it: a request for T itself may
     * still be on its way (the renderer sends it in the period that ends
     * there), so a ranking never depends on whether it came yet */
    vm->lis_set = vm->rank_lead != 0;
    vm->lis_frame = t ? t - 1 : 0;
    hld_vm_rank(vm, now_ns);
    vm->lis_set = 0;
    hl_mixer_at(vm->mx, saved);
    if (eff <= now_f && vm->rank_lead) vm->n.rank_late++;
}
