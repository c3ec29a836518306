/*
 * loop.h - the main loop's clock and the daemon's lifecycle (loop.c): the
 * poll tick that drives every subsystem's periodic work, the signals, the
 * graceful shutdown and the systemd watchdog. Called by main.c and
 * render.c only. Main thread.
 */
#ifndef HLD_LOOP_H
#define HLD_LOOP_H

#include "daemon.h"

/* Starts the poll timer, the signal handlers, the decoder pool's wake-up
 * (uv_async), the watchdog and the METER/PROFILE feeds. 0, HELIOD_EIO or
 * HELIOD_ENOMEM. */
int hld_loop_start(hld_daemon_t *d);
/* One poll tick (what the poll timer runs): mixer events, meters, the voice
 * manager's and the zones' ticks, client-fed streams, music. The renderer
 * (render.c) calls it after every period instead of the timer. */
void hld_loop_poll(hld_daemon_t *d);
/* Begins the graceful shutdown (also what SIGINT/SIGTERM do). */
void hld_loop_shutdown(hld_daemon_t *d);

#endif /* HLD_LOOP_H */
