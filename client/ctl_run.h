/*
 * ctl_run.h - heliodctl's runners, one per way a command runs: the request
 * pipeline (ctl_run.c: a single command, a batch, an upload from stdin) and
 * the commands that wait on events (ctl_watch.c). Each returns the process
 * exit status. Private to heliodctl.
 */
#ifndef HL_CTL_RUN_H
#define HL_CTL_RUN_H

#include "ctl_args.h"
#include "heliod.h"

/* The event loops' state (watch, play --wait). */
typedef struct {
    heliod_voice_t wait_voice;
    int ended;
    int reason;
} ctl_evstate_t;

/* The one connection: its replies' late-frames figures (set by main). */
extern heliod_t *ctl_conn;
/* play --wait: its PLAY's reply names the voice to wait for, before any
 * event dispatched after it can be its ENDED (NULL otherwise). */
extern ctl_evstate_t *ctl_play_wait;

/* ctl_run.c: every request command goes through send_cmd, the one path from
 * a parsed command to a request. */
int ctl_run_single(heliod_t *h, const ctl_cmd_t *c);
int ctl_run_batch(heliod_t *h, const char *file);
int ctl_run_load_stdin(heliod_t *h, const ctl_cmd_t *c);

/* ctl_watch.c */
int ctl_run_watch(heliod_t *h);
int ctl_run_meter(heliod_t *h, const ctl_cmd_t *c);
int ctl_run_bank_wait(heliod_t *h, const ctl_cmd_t *c);
int ctl_run_zones_watch(heliod_t *h);
int ctl_run_play_wait(heliod_t *h, const ctl_cmd_t *c);

#endif /* HL_CTL_RUN_H */
