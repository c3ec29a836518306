/*
 * ctl_args_int.h - what heliodctl's parsers share between ctl_args.c (the
 * command table, numbers, sounds, voices, buses) and ctl_args_vm.c (cues,
 * categories, emitters). Not a public interface.
 *
 * The option helpers look at argv[*i]: 0 when it is another option, 1 when
 * it was this one (*i advanced past its value, the value stored), -1 when its
 * value is missing or bad (the message in err; ctl__opt_val alone writes no
 * message). "--name VALUE" and "--name=VALUE" are both accepted.
 */
#ifndef CTL_ARGS_INT_H
#define CTL_ARGS_INT_H

#include <stddef.h>

#include "ctl_args.h"
#include "hl_proto.h"

/* Formats the message into err; returns -1. */
int ctl__fail(char *err, size_t errlen, const char *fmt, ...);
/* The raw value of option `name` into *val. */
int ctl__opt_val(int argc, char **argv, int *i, const char *name, const char **val);
/* The finite number v of option `name`: 0, or -1 with the message in err. */
int ctl__num_opt(const char *name, const char *v, float *out, char *err, size_t errlen);
/* The same for an X,Y,Z value. */
int ctl__vec_opt(const char *name, const char *v, float out[3], char *err, size_t errlen);
/* A number option (--gain -6). */
int ctl__float_opt(int argc, char **argv, int *i, const char *name, float *out, char *err,
                   size_t errlen);
/* An X,Y,Z option (--pos 1,0,-2). */
int ctl__vec3_opt(int argc, char **argv, int *i, const char *name, float out[3], char *err,
                  size_t errlen);
/* A name argument ([A-Za-z0-9_.-], 1..63) copied into dst: 0 or -1. */
int ctl__name_arg(const char *what, const char *v, char *dst, size_t cap, char *err, size_t errlen);
/* An option naming one of an hl_enum_kind_t's values (--overflow refuse). */
int ctl__enum_opt(int argc, char **argv, int *i, const char *name, hl_enum_kind_t kind,
                  uint8_t *out, char *err, size_t errlen);
/* An integer option in [min, max]. */
int ctl__int_opt(int argc, char **argv, int *i, const char *name, long min, long max, long *out,
                 char *err, size_t errlen);
/* A name option (--bus sfx). */
int ctl__name_opt(int argc, char **argv, int *i, const char *name, char *dst, size_t cap, char *err,
                  size_t errlen);

/* ctl_args_vm.c: the voice-management commands, as ctl_parse_command's cases. */
int ctl__parse_cue(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_category(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_cues(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_emitter(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);

/* ctl_args_graph.c: the mixer-graph commands, and the post-stage options of
 * play, set and cue (--lp, --hp, --occlusion, --obstruction, --send BUS:DB;
 * *set_mask gets HL_SET_* bits of what was given, *nsend counts sends). */
int ctl__parse_bus(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_fx(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_duck(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_rzone(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
/* ctl_args_assets.c: banks and world zones. */
int ctl__parse_bank(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_zone(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__parse_zones(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);
int ctl__post_opt(int argc, char **argv, int *i, hl_vpost_t *p, uint32_t *set_mask, int *nsend,
                  char *err, size_t errlen);
#define CTL_POST_USAGE                                                                             \
    "  --lp HZ            low-pass cutoff (0 = off)\n"                                             \
    "  --hp HZ            high-pass cutoff (0 = off)\n"                                            \
    "  --occlusion X      [0, 1]: a wall between (quieter and duller; -24 dB, 500 Hz at 1)\n"      \
    "  --obstruction X    [0, 1]: something in the direct path (duller; 1 kHz at 1)\n"             \
    "  --send BUS:DB      also feed BUS at DB (e.g. reverb_hall:-12); up to 2\n"

#endif /* CTL_ARGS_INT_H */
