/*
 * abi_run.c - a game's view of libheliod's soname: built twice, linked
 * against libheliod.so.1 and against a library of the old name
 * libheliod.so.0 (heliod_v0.c, node HELIOD_0.1, as a binary of that release
 * recorded). tests/abi/check_link.py runs the first as built and the second
 * with libheliod.so.0 pointing at libheliod.so.1, as meson install lays it
 * out: both must run on the real library's code.
 */
#include <stdio.h>
#include <string.h>

#include "heliod.h"

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "/nonexistent/heliod-abi/heliod.sock";
    int bad = 0;
    heliod_t *h = NULL;
    int rc = heliod_connect(&h, path, "abi");
    if (rc != HELIOD_ECONNECT || h) {
        printf("heliod_connect(%s) = %d, want HELIOD_ECONNECT (%d)\n", path, rc, HELIOD_ECONNECT);
        bad++;
    }
    const char *why = heliod_last_error(NULL);
    if (!strstr(why, "cannot connect to")) {
        printf("heliod_last_error(NULL) = \"%s\", want \"cannot connect to ...\"\n", why);
        bad++;
    }
    const char *msg = heliod_strerror(HELIOD_ECONNECT);
    if (!msg || !strcmp(msg, "stub")) {
        printf("heliod_strerror(HELIOD_ECONNECT) = \"%s\"\n", msg ? msg : "(null)");
        bad++;
    }
    char sock[256];
    if (heliod_default_socket(sock, sizeof sock) != 0 || !strstr(sock, "heliod")) {
        printf("heliod_default_socket failed\n");
        bad++;
    }
    printf("%s: %s (%s)\n", bad ? "FAIL" : "ok", why, msg);
    return bad ? 1 : 0;
}
