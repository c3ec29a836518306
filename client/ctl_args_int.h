/*
 * ctl_args_int.h - the per-area parsers that the command table (ctl_args.c)
 * calls, one per command word: argv[0] is the word, the message goes into
 * c->m. Each area file calls down into ctl_parse.h only. Not a public
 * interface.
 */
#ifndef CTL_ARGS_INT_H
#define CTL_ARGS_INT_H

#include <stddef.h>

#include "ctl_cmd.h"
#include "ctl_parse.h"

/* ctl_args_voice.c: play, stop, set, listener, pause/resume. */
int ctl__parse_play(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_stop(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_set(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_listener(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_pause(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);

/* ctl_args_vm.c: the voice-management commands, as ctl_parse_command's cases. */
int ctl__parse_cue(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_category(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_cues(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_emitter(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);

/* ctl_args_params.c: game parameters. */
int ctl__parse_param(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_param_def(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_bind(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);

/* ctl_args_graph.c: the mixer-graph commands. */
int ctl__parse_bus(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_fx(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_duck(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_rzone(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_snapshot(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_cone(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_atten(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);

/* ctl_args_assets.c: sounds, banks and world zones. */
int ctl__parse_load(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_bank(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_zone(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_zones(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);

#endif /* CTL_ARGS_INT_H */
