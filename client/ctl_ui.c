/*
 * ctl_ui.c - help for the commands heliodctl.c hands to ctl_ui.h's views
 * before its own parser sees them (top, profile, wait, events, stream,
 * replay), so that
 * `heliodctl --help` lists them with the others and `heliodctl help top`
 * finds their text.
 */
#include "ctl_ui.h"

#include <string.h>

static const char events_usage[] = "usage: heliodctl events\n"
                                   "  `watch --json`: one JSON object per voice, device or error\n"
                                   "  event, until stopped.\n";

/* Appended to the command list of `heliodctl --help` (same layout). */
static const char summary[] =
    "  top       Live full-screen view: load, buses, voices, streams (q quits).\n"
    "  profile   Record PROFILE events (load, voices, streams, buses) as JSON.\n"
    "  wait      Wait until a voice ends; print why.\n"
    "  events    Print voice, device and error events as JSON lines (watch --json).\n"
    "  stream    Play raw PCM from a file or stdin as a client-fed stream.\n"
    "  replay    Replay a session capture into the daemon, live, on its engine frames.\n";

const char *ctl_ui_usage(const char *cmd) {
    if (!cmd) return summary;
    if (!strcmp(cmd, "top")) return ctl_top_usage;
    if (!strcmp(cmd, "profile")) return ctl_profile_usage;
    if (!strcmp(cmd, "wait")) return ctl_wait_usage;
    if (!strcmp(cmd, "events")) return events_usage;
    if (!strcmp(cmd, "stream")) return ctl_stream_usage;
    if (!strcmp(cmd, "replay")) return ctl_replay_usage;
    return NULL;
}
