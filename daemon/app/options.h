/*
 * options.h - heliod's command line and config file (options.c) into the
 * configuration struct (base/config.h), which the lower folders read.
 */
#ifndef HLD_OPTIONS_H
#define HLD_OPTIONS_H

#include <stddef.h>

#include "config.h"

/* Frees what hld_config_load allocated (the bus sections). */
void hld_config_free(hld_config_t *c);

/* Fills defaults, then the --config file (if any), then the flags.
 * Returns 0 to run, 1 when --help/--version was printed (exit 0), or
 * HELIOD_EINVAL after printing the reason to stderr. Main thread. */
int hld_config_load(hld_config_t *c, int argc, char **argv);

/* Default socket path into buf: $HELIOD_SOCKET, else
 * $XDG_RUNTIME_DIR/heliod/heliod.sock, else /tmp/heliod-$UID/heliod.sock; the
 * same rule as libheliod's (proto/hl_paths.h). Returns 0 or HELIOD_ETOOBIG. */
int hld_config_default_socket(char *buf, size_t cap);

#endif /* HLD_OPTIONS_H */
