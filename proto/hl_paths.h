/*
 * hl_paths.h - the default socket path, one definition shared by the daemon
 * (daemon/app/config.c) and libheliod (client/heliod.c), so that a daemon and a
 * client started in the same environment always meet.
 *
 * Not part of the codec: unlike everything else in proto/ (no I/O, no
 * environment), this reads environment variables and getuid(). Header-only,
 * so nothing links anything new.
 *
 *   $HELIOD_SOCKET                       if set and not empty
 *   $XDG_RUNTIME_DIR/heliod/heliod.sock  if XDG_RUNTIME_DIR is an absolute path
 *   /tmp/heliod-$UID/heliod.sock         otherwise: the fallback directory, which
 *                                        the daemon uses only if it is owned by
 *                                        its user and has mode 0700
 */
#ifndef HL_PATHS_H
#define HL_PATHS_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef enum {
    HL_PATH_ENV = 0,      /* $HELIOD_SOCKET */
    HL_PATH_XDG = 1,      /* under $XDG_RUNTIME_DIR */
    HL_PATH_FALLBACK = 2, /* under /tmp/heliod-$UID */
} hl_path_source_t;

/* The fallback socket directory, /tmp/heliod-$UID. 0, or -1 if cap is too small. */
static inline int hl_fallback_socket_dir(char *buf, size_t cap) {
    int n = snprintf(buf, cap, "/tmp/heliod-%u", (unsigned)getuid());
    return (n < 0 || (size_t)n >= cap) ? -1 : 0;
}

/* The default socket path into buf; *source (may be NULL) says where it came
 * from. Returns 0, or -1 if it does not fit in cap bytes. */
static inline int hl_default_socket_path(char *buf, size_t cap, hl_path_source_t *source) {
    const char *env = getenv("HELIOD_SOCKET");
    int n;
    hl_path_source_t src;
    if (env && *env) {
        src = HL_PATH_ENV;
        n = snprintf(buf, cap, "%s", env);
    } else if ((env = getenv("XDG_RUNTIME_DIR")) && env[0] == '/') {
        src = HL_PATH_XDG;
        n = snprintf(buf, cap, "%s/heliod/heliod.sock", env);
    } else {
        char dir[64];
        if (hl_fallback_socket_dir(dir, sizeof dir) < 0) return -1;
        src = HL_PATH_FALLBACK;
        n = snprintf(buf, cap, "%s/heliod.sock", dir);
    }
    if (source) *source = src;
    return (n < 0 || (size_t)n >= cap) ? -1 : 0;
}

#endif /* HL_PATHS_H */
