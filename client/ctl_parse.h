/*
 * ctl_parse.h - the ground floor of heliodctl's command language: strict
 * number parsing, times (--at), batch line splitting, and the option helpers
 * every per-area parser (ctl_args_*.c) uses. It knows no command: the
 * command table (ctl_args.c) and the area parsers call down into it, never
 * the other way round.
 *
 * The option helpers (ctl__*) look at argv[*i]: 0 when it is another option,
 * 1 when it was this one (*i advanced past its value, the value stored), -1
 * when its value is missing or bad (the message in err; ctl__opt_val alone
 * writes no message). "--name VALUE" and "--name=VALUE" are both accepted.
 */
#ifndef HL_CTL_PARSE_H
#define HL_CTL_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_cmd.h"
#include "hl_proto.h"

#define CTL_MAX_ARGS 64 /* words on one batch line */

/* Splits a batch line in place into words (whitespace separated; '...' and
 * "..." quote, backslash escapes the next character outside single quotes; a
 * word starting with '#' ends the line). Returns the word count (0 for a blank
 * or comment line) or -1 with a message in err. */
int ctl_split_line(char *line, char **argv, int max, char *err, size_t errlen);

/* A time: "+MS", "+MSms", "+Ss" (after now) or "FRAME" (an engine frame).
 * 0 or -1 with a message in err. */
int ctl_parse_at(const char *s, ctl_at_t *at, char *err, size_t errlen);
/* The frame a command's time resolves to: now_frame + ms for CTL_AT_MS
 * (origin_frame is the frame "now" means), the frame itself for
 * CTL_AT_FRAME, origin_frame for CTL_AT_NONE; then moved up to the next
 * multiple of at->quantize counted from at->qref when quantising. */
uint64_t ctl_at_resolve(const ctl_at_t *at, uint64_t origin_frame, uint32_t rate);

/* Strict number parsers: whole string, finite, in range. 0 or -1. */
int ctl_parse_float(const char *s, float *out);
int ctl_parse_int(const char *s, long min, long max, long *out);
int ctl_parse_u64(const char *s, uint64_t *out);
int ctl_parse_vec3(const char *s, float out[3]);

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
/* A sphere's --pos X,Y,Z or --radius R (zone, reverb-zone): 1 when one was
 * read (*seen gets bit 1 for --pos, 2 for --radius), 0 if argv[*i] is
 * neither, -1 on a bad value. */
int ctl__sphere_opt(int argc, char **argv, int *i, float pos[3], float *radius, int *seen,
                    char *err, size_t errlen);
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

/* The post-stage options of play, set and cue (--lp, --hp, --occlusion,
 * --obstruction, --send BUS:DB; *set_mask gets HL_SET_* bits of what was
 * given, *nsend counts sends). */
int ctl__post_opt(int argc, char **argv, int *i, hl_vpost_t *p, uint32_t *set_mask, int *nsend,
                  char *err, size_t errlen);
#define CTL_POST_USAGE                                                                             \
    "  --lp HZ            low-pass cutoff (0 = off)\n"                                             \
    "  --hp HZ            high-pass cutoff (0 = off)\n"                                            \
    "  --occlusion X      [0, 1]: a wall between (quieter and duller; -24 dB, 500 Hz at 1)\n"      \
    "  --obstruction X    [0, 1]: something in the direct path (duller; 1 kHz at 1)\n"             \
    "  --send BUS:DB      also feed BUS at DB (e.g. reverb_hall:-12); up to 2\n"

#endif /* HL_CTL_PARSE_H */
