/*
 * vm_pos.c - a logical voice's position model (vm_pos.h): the anchor on the
 * engine clock, advancing at its rate while not paused, wrapped by the loop
 * region and its passes.
 */
#include "vm_pos.h"

#include <math.h>

/* Wraps pos by the loop region; *used = loop passes taken; *ended = past the end. */
double vm_wrap_pos(const hld_lvoice_t *v, double pos, int64_t loops, int64_t *used, int *ended) {
    *used = 0;
    *ended = 0;
    double L = v->le - v->ls;
    if (loops != 0 && L > 0.0 && pos >= v->le) {
        double n = floor((pos - v->le) / L) + 1.0;
        if (loops < 0 || n <= (double)loops) {
            pos = v->ls + fmod(pos - v->le, L);
            /* converted only below (double)loops, which can round up to 2^63 */
            *used = loops < 0 ? 0 : n < (double)loops ? (int64_t)n : loops;
        } else {
            pos -= (double)loops * L;
            *used = loops;
        }
    }
    if (pos >= v->len) *ended = 1;
    return pos;
}

double vm_pos_at(const hld_lvoice_t *v, uint64_t f, int *ended) {
    double pos = v->anchor_pos;
    if (!v->paused && f > v->anchor_frame) pos += (double)(f - v->anchor_frame) * v->rate;
    int64_t used;
    return vm_wrap_pos(v, pos, v->loops_left, &used, ended);
}

/* Moves the anchor to engine frame f (loop passes taken are spent). */
int vm_reanchor(hld_lvoice_t *v, uint64_t f) {
    double pos = v->anchor_pos;
    if (!v->paused && f > v->anchor_frame) pos += (double)(f - v->anchor_frame) * v->rate;
    int64_t used;
    int ended;
    pos = vm_wrap_pos(v, pos, v->loops_left, &used, &ended);
    if (v->loops_left > 0) v->loops_left -= used;
    v->anchor_pos = ended ? v->len : pos;
    if (f > v->anchor_frame || v->paused) v->anchor_frame = f;
    return ended;
}

void vm_set_loops(hld_lvoice_t *v, uint64_t f, int32_t loops) {
    if (vm_reanchor(v, f) || v->anchor_pos >= v->le) return; /* past the region */
    const double xf = (double)v->p.loop_xfade;
    const int on = v->loops_left != 0 && v->le > v->ls;
    const int wrapping = xf > 0.0 && v->anchor_pos >= v->le - xf;
    if (wrapping && !on) return; /* too late for this pass's blend */
    v->loops_left = loops < 0 ? -1 : (int64_t)loops + (wrapping ? 1 : 0);
}

int vm_pass_end(const hld_lvoice_t *v, uint64_t after, uint64_t *frame) {
    if (v->paused || !(v->rate > 0.0)) return HELIOD_EINVAL;
    uint64_t f = after > v->anchor_frame ? after : v->anchor_frame;
    double r = v->anchor_pos + (double)(f - v->anchor_frame) * v->rate;
    int64_t used;
    int ended;
    double w = vm_wrap_pos(v, r, v->loops_left, &used, &ended);
    if (ended) return HELIOD_EINVAL;
    int loops_more =
        v->loops_left != 0 && v->le > v->ls && (v->loops_left < 0 || used < v->loops_left);
    double raw = r + ((loops_more ? v->le : v->len) - w);
    double d = ceil((raw - v->anchor_pos) / v->rate - 1e-7);
    *frame = v->anchor_frame + (d > 0.0 ? (uint64_t)d : 0);
    return 0;
}
