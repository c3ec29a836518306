/*
 * backend_render.c - the render driver: no device and no thread. The offline
 * renderer (render.c) pulls each period itself, as fast as the CPU allows,
 * from the main thread, which is then the engine's audio thread between
 * pulls (nothing else renders: the mixer still has exactly one consumer).
 */
#include "backend.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    hld_backend_config_t cfg;
} render_impl_t;

static int render_start(hld_backend_t *b) {
    (void)b;
    return 0;
}

static void render_stop(hld_backend_t *b) {
    (void)b;
}

static void render_close(hld_backend_t *b) {
    free(b->impl);
    b->impl = NULL;
}

static const hld_backend_ops_t g_render_ops = {render_start, render_stop, render_close, NULL};

int hld_backend_render_open(hld_backend_t *b, const hld_backend_config_t *cfg) {
    render_impl_t *r = calloc(1, sizeof *r);
    if (!r) return HELIOD_ENOMEM;
    r->cfg = *cfg;
    memset(b, 0, sizeof *b);
    b->ops = &g_render_ops;
    b->name = "render";
    b->device_index = -1;
    b->latency_s = 0.0;
    b->rate = cfg->rate;
    b->impl = r;
    return 0;
}

void hld_backend_render_pull(hld_backend_t *b, float *out, uint32_t frames) {
    render_impl_t *r = b->impl;
    r->cfg.render(r->cfg.user, out, frames, 0);
}
