/*
 * old_daemon_client.c - today's libheliod against a daemon of protocol 1.0
 * (test_old_daemon.py runs it against daemon_1_0.py): connects as a control
 * client, which must fall back to a 1.0 HELLO, reports what the handshake
 * agreed and makes one request (PING) on the connection.
 *
 * argv[1]: the socket. Exit 0 when connected in 1.0 and the PING answered.
 */
#include <stdio.h>

#include "heliod.h"

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    heliod_t *h = NULL;
    int rc = heliod_connect_flags(&h, argv[1], "oldd", HELIOD_CONNECT_CONTROL);
    if (rc < 0) {
        printf("connect: %s: %s\n", heliod_strerror(rc), heliod_last_error(NULL));
        return 1;
    }
    const heliod_server_info_t *si = heliod_server_info(h);
    uint64_t t = 0;
    int ping = heliod_ping(h, &t);
    printf("protocol %u.%u server %s rate %u flags %u ping %d\n", si->protocol_version,
           heliod_protocol_minor(h), si->server_version, si->rate, si->flags, ping);
    int ok = si->protocol_version == 1 && heliod_protocol_minor(h) == 0 &&
             si->flags == HELIOD_CONNECT_CONTROL && ping == 0 && t > 0;
    heliod_close(h);
    return ok ? 0 : 1;
}
