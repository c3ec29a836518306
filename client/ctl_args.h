/*
 * ctl_args.h - heliodctl's command language: global options, per-command
 * argument parsing into wire messages, request body encoding, and batch line
 * splitting. Kept apart from heliodctl.c (which talks to the daemon) so it can
 * be unit-tested without a daemon. Everything here is single-threaded, does no
 * socket I/O and keeps no global state.
 */
#ifndef HL_CTL_ARGS_H
#define HL_CTL_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_cmd.h"
#include "ctl_parse.h"

#define CTL_ERR_LEN            256 /* room for one error message */
#define CTL_DEFAULT_TIMEOUT_MS 5000

typedef struct {
    const char *socket; /* NULL = libheliod's default */
    int json;
    int timeout_ms;
    int help, version;
} ctl_opts_t;

/* Parses the global options in argv[1..]; *next gets the index of the command
 * word (== argc if none). Returns 0 or -1 with a message in err. */
int ctl_parse_global(int argc, char **argv, ctl_opts_t *o, int *next, char *err, size_t errlen);

/* Parses one command; argv[0] is the command word. Returns 0 or -1 with a
 * message in err. Relative load paths are made absolute (the daemon has its
 * own working directory) when the file exists; a relative `cues load` FILE is
 * always made absolute against the current directory. */
int ctl_parse_command(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);

/* Encodes the request body of c into buf; returns its length or a negative
 * HELIOD_E* code. */
int ctl_encode(const ctl_cmd_t *c, uint8_t *buf, size_t cap);

/* Usage text of a command word, or of the tool when cmd is NULL/unknown. */
const char *ctl_usage(const char *cmd);

#endif /* HL_CTL_ARGS_H */
