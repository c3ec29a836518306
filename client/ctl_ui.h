/*
 * ctl_ui.h - heliodctl's two event-driven views, kept out of heliodctl.c:
 * `profile` records PROFILE events to a JSON file (ctl_profile.c) and `top`
 * draws them live on the terminal (ctl_top.c). Each takes the command's own
 * argv (argv[0] is the command name) and the global --socket (NULL for the
 * default); each returns heliodctl's exit code (0, 1 failure, 2 usage).
 */
#ifndef HL_CTL_UI_H
#define HL_CTL_UI_H

#include <stdio.h>

#include "heliod.h"

int ctl_profile_main(int argc, char **argv, const char *socket);
int ctl_top_main(int argc, char **argv, const char *socket);
/* `wait VOICE`: json = the global --json (ctl_wait.c). */
int ctl_wait_main(int argc, char **argv, const char *socket, int json);
/* `stream FILE|-`: raw PCM into a client-fed stream (ctl_stream.c). */
int ctl_stream_main(int argc, char **argv, const char *socket, int json);

/* Help texts: each command's, and (cmd NULL) the lines `heliodctl --help`
 * appends to its command list. NULL for a command that is not one of these. */
extern const char ctl_top_usage[], ctl_profile_usage[], ctl_wait_usage[], ctl_stream_usage[];
const char *ctl_ui_usage(const char *cmd);
/* `capture show FILE [--json]`: a capture file's records (ctl_capture.c);
 * json = the global --json. Needs no daemon. */
extern const char ctl_capture_usage[];
int ctl_capture_main(int argc, char **argv, int json);
/* `replay CAPTURE [--speed X]`: a capture replayed live (ctl_replay.c). */
extern const char ctl_replay_usage[];
int ctl_replay_main(int argc, char **argv, const char *socket);
/* `cue show NAME`, `snapshot show NAME` (ctl_show.c): one definition read
 * back; ctl_show_wants says whether argv (from the command word) is one of
 * them; json = the global --json. */
extern const char ctl_cue_show_usage[], ctl_snapshot_show_usage[];
int ctl_show_wants(int argc, char **argv);
int ctl_show_main(int argc, char **argv, const char *socket, int json);
/* `cues save FILE`: the definitions as a cue sheet (ctl_cues_save.c). */
extern const char ctl_cues_save_usage[];
int ctl_cues_save_main(int argc, char **argv, const char *socket);

/* One PROFILE event as a JSON object (no newline): the recording's sample
 * format, documented in README "Profiling". */
void ctl_profile_json(FILE *f, const heliod_profile_t *p);

#endif /* HL_CTL_UI_H */
