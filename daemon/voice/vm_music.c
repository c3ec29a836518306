/*
 * vm_music.c - beats and bars of the voices whose cue has a tempo map, and
 * the markers of sounds that have them (vm_music.h; the pool's
 * hld_vm_beats and hld_vm_next_beat, vm.h, walk its voices through it).
 *
 * Nothing is polled from the audio thread: a voice's position is the voice
 * manager's model (anchor position and frame, rate = pitch x source rate,
 * loop region and passes, paused), the same one virtual voices keep time
 * with. For the engine frames [lo, hi) the walk turns the positions the
 * voice passes through into beats of the map (tempo.h) and each beat's
 * position back into the first engine frame at or after it:
 *
 *     frame = anchor_frame + ceil((raw - anchor_pos) / rate)
 *
 * where raw is the beat's position unwrapped along the loop passes since the
 * anchor. lo is where the voice's previous walk stopped (its beat_done), so
 * every beat is reported once. A SET (pitch, pause, seek) re-anchors the
 * model: beats after the horizon already walked follow the new timeline;
 * those already announced (at most the caller's lead ahead) stand.
 */
#include <math.h>

#include "vm_music.h"

#include "cues.h"
#include "sounds.h"
#include "tempo.h"
#include "vm_pos.h"

/* units of the voice's position per second: a preloaded pcm is at the
 * engine rate, a stream at its file's (rate_base = source / engine frames) */
static uint32_t units_per_s(uint32_t rate, const hld_lvoice_t *v) {
    return (uint32_t)llround(v->rate_base * (double)rate);
}

static void walk(const hld_lvoice_t *v, uint64_t voice, uint32_t rate, uint64_t lo, uint64_t hi,
                 hld_vm_beat_fn fn, void *user, int markers) {
    static const hld_tempo_t none;
    const hld_tempo_t *t = v->cue ? &v->cue->tempo : &none;
    if (v->paused || !(v->rate > 0.0)) return;
    uint64_t f = lo > v->anchor_frame ? lo : v->anchor_frame;
    if (f >= hi) return;
    uint32_t U = units_per_s(rate, v);
    double r = v->anchor_pos + (double)(f - v->anchor_frame) * v->rate;
    double r_end = v->anchor_pos + (double)(hi - v->anchor_frame) * v->rate;
    double L = v->le - v->ls;
    for (int guard = 0; r < r_end && guard < 1024; guard++) {
        int64_t used;
        int ended;
        double w = vm_wrap_pos(v, r, v->loops_left, &used, &ended);
        if (ended) return;
        int loops_more =
            v->loops_left != 0 && L > 0.0 && (v->loops_left < 0 || used < v->loops_left);
        double seg_end = r + ((loops_more ? v->le : v->len) - w);
        double seg_hi = seg_end < r_end ? seg_end : r_end;
        double w_end = w + (seg_hi - r);
        const hld_sound_t *snd = v->snd;
        for (uint32_t i = 0; markers && snd && i < snd->nmarkers; i++) { /* by position */
            double p = (double)snd->markers[i].pos;
            if (p < w) continue;
            if (p >= w_end) break;
            double d = ceil((r + (p - w) - v->anchor_pos) / v->rate - 1e-7);
            hld_vm_beat_t b = {.voice = voice,
                               .frame = v->anchor_frame + (d > 0.0 ? (uint64_t)d : 0),
                               .marker = 1,
                               .beat = snd->markers[i].id,
                               .label = snd->markers[i].label,
                               .owner = v->owner};
            fn(user, &b);
        }
        for (uint64_t k = t->n ? hld_tempo_beat_at(t, w, U) : 0; t->n; k++) {
            double p = (double)hld_tempo_beat_pos(t, k, U);
            if (p >= w_end) break;
            double raw = r + (p - w);
            double d = ceil((raw - v->anchor_pos) / v->rate - 1e-7);
            uint64_t frame = v->anchor_frame + (d > 0.0 ? (uint64_t)d : 0);
            const hld_tempo_seg_t *s = hld_tempo_seg_of(t, k);
            hld_vm_beat_t b = {.voice = voice,
                               .frame = frame,
                               .beat = k,
                               .bar = k / t->num,
                               .beat_in_bar = (uint32_t)(k % t->num),
                               .bpm = (float)s->mbpm / 1000.0f,
                               .owner = v->owner};
            fn(user, &b);
        }
        if (seg_hi <= r) break;
        r = seg_hi;
    }
}

static int is_music(const hld_lvoice_t *v) {
    return (v->cue && v->cue->tempo.n) || (v->snd && v->snd->nmarkers);
}

void vm_music_report(hld_lvoice_t *v, uint64_t voice, uint32_t rate, uint64_t hi, hld_vm_beat_fn fn,
                     void *user) {
    if (v->state != HLD_LV_ACTIVE || !is_music(v) || hi <= v->beat_done) return;
    walk(v, voice, rate, v->beat_done, hi, fn, user, 1);
    v->beat_done = hi;
}

typedef struct {
    uint64_t after, frame, beat;
    uint32_t num;
    int what, found;
} next_t;

static void on_next(void *user, const hld_vm_beat_t *b) {
    next_t *n = user;
    if (n->found || b->frame < n->after) return;
    if ((n->what == HLD_VM_NEXT_MARKER) != (b->marker != 0)) return;
    if (n->what == HLD_VM_NEXT_BAR && b->beat_in_bar != 0) return;
    n->found = 1;
    n->frame = b->frame;
    n->beat = b->beat;
}

int vm_music_next(const hld_lvoice_t *v, uint64_t voice, uint32_t rate, uint64_t after, int what,
                  uint64_t *frame, uint64_t *beat) {
    if (v->paused) return HELIOD_EINVAL;
    if (what == HLD_VM_NEXT_MARKER ? !(v->snd && v->snd->nmarkers)
                                   : !v->cue || v->cue->tempo.n == 0)
        return HELIOD_EINVAL;
    next_t n = {.after = after, .what = what};
    /* walks a copy's positions only: the voice's reported beats stay as they are */
    uint64_t step = (uint64_t)rate * 4, lo = after;
    for (int i = 0; i < 64 && !n.found; i++, lo += step)
        walk(v, voice, rate, lo, lo + step, on_next, &n, what == HLD_VM_NEXT_MARKER);
    if (!n.found) return HELIOD_EINVAL;
    *frame = n.frame;
    if (beat) *beat = n.beat;
    return 0;
}
