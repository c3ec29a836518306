/*
 * heliod_v0.c - stands for the libheliod.so.0 a game was linked against: the
 * same soname and version node (HELIOD_0.1) and the symbols abi_run.c uses,
 * which all fail, so that abi_run_v0 passes only when the loader gave it
 * the real library through the libheliod.so.0 compat link.
 */
#include "heliod.h"

int heliod_connect(heliod_t **out, const char *path, const char *client_name) {
    (void)path;
    (void)client_name;
    *out = NULL;
    return 0;
}
const char *heliod_last_error(const heliod_t *h) {
    (void)h;
    return "stub";
}
const char *heliod_strerror(int err) {
    (void)err;
    return "stub";
}
int heliod_default_socket(char *buf, size_t cap) {
    (void)buf;
    (void)cap;
    return HELIOD_EINVAL;
}
