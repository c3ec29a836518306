/*
 * render.h - the offline renderer (`heliod --render SCORE --out OUT.wav`).
 */
#ifndef HLD_RENDER_H
#define HLD_RENDER_H

#include "daemon.h"

/* Renders d->cfg.render into d->cfg.out through the engine opened with the
 * render driver (the engine, the decoder pool and the events started; the
 * poll timer stopped: the render ticks it per period). Returns the exit
 * status: 0, 1 on an I/O error, 2 for a score that does not parse, 3 when
 * some requests were answered with an error (the file is still complete).
 * Main thread. */
int hld_render_run(hld_daemon_t *d);

/* replay.c: 1 if path is a session capture (its magic), else 0: main.c
 * then renders it with hld_replay_run (same contract as hld_render_run). */
int hld_replay_is_capture(const char *path);
int hld_replay_run(hld_daemon_t *d);

#endif /* HLD_RENDER_H */
