/*
 * heliodctl.c - command-line control of the heliod daemon for shell scripts,
 * CI and people: load and play sounds, move them, watch events, read stats.
 *
 * This file is the entry: global options, help, the event-driven views
 * (ctl_ui.h), the parse of the command (ctlargs: ctl_args.h), the connection,
 * and the choice of its runner (ctl_run.h). Every request command runs
 * through one pipeline (ctl_run.c): parse, encode the body, send it with
 * heliod_raw_async(), wait until every reply is in, then print the results in
 * order (ctl_reply.c, ctl_out.c). A single command is a batch of one; `batch`
 * sends all its lines before waiting for any reply. `play --wait`, `watch`,
 * `meter` and `bank load` wait on events (ctl_watch.c). Text output is one
 * line per result (lists print one line per entry, joined with " | " inside a
 * batch); --json prints one JSON object per result. Errors: one
 * "heliodctl: ..." line on stderr and a non-zero exit status.
 */
#include "ctl_args.h"
#include "ctl_out.h"
#include "ctl_run.h"
#include "ctl_ui.h"
#include "heliod.h"
#include "hl_config.h"
#include "hl_proto.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    char err[CTL_ERR_LEN];
    int next;
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (ctl_parse_global(argc, argv, &ctl_opts, &next, err, sizeof err) < 0) {
        ctl_errorf("%s", err);
        return CTL_EXIT_USAGE;
    }
    if (ctl_opts.version) {
        printf("heliodctl %s (protocol %d.%d)\n", HELIOD_VERSION, HL_PROTO_VERSION, HL_PROTO_MINOR);
        return 0;
    }
    if (ctl_opts.help || (next < argc && strcmp(argv[next], "help") == 0)) {
        const char *topic = next + 1 < argc ? argv[next + 1] : NULL;
        const char *ui = ctl_ui_usage(topic); /* top, profile, wait, events (ctl_ui.h) */
        fputs(topic && ui ? ui : ctl_usage(topic), stdout);
        if (!topic) fputs(ui, stdout);
        return 0;
    }
    if (next >= argc) {
        ctl_errorf("missing command (try --help)");
        return CTL_EXIT_USAGE;
    }
    /* the event-driven views parse their own options (ctl_ui.h) */
    if (strcmp(argv[next], "top") == 0)
        return ctl_top_main(argc - next, argv + next, ctl_opts.socket);
    if (strcmp(argv[next], "profile") == 0)
        return ctl_profile_main(argc - next, argv + next, ctl_opts.socket);
    if (strcmp(argv[next], "wait") == 0)
        return ctl_wait_main(argc - next, argv + next, ctl_opts.socket, ctl_opts.json);
    if (strcmp(argv[next], "capture") == 0 && next + 1 < argc &&
        strcmp(argv[next + 1], "show") == 0) /* a file, no daemon */
        return ctl_capture_main(argc - next, argv + next, ctl_opts.json);
    if (ctl_show_wants(argc - next, argv + next)) /* cue show NAME, snapshot show NAME */
        return ctl_show_main(argc - next, argv + next, ctl_opts.socket, ctl_opts.json);
    if (strcmp(argv[next], "cues") == 0 && next + 1 < argc && strcmp(argv[next + 1], "save") == 0)
        return ctl_cues_save_main(argc - next, argv + next, ctl_opts.socket);
    if (strcmp(argv[next], "replay") == 0)
        return ctl_replay_main(argc - next, argv + next, ctl_opts.socket);
    if (strcmp(argv[next], "stream") == 0)
        return ctl_stream_main(argc - next, argv + next, ctl_opts.socket, ctl_opts.json);
    if (strcmp(argv[next], "events") == 0) { /* `watch --json` under the name scripts expect */
        ctl_opts.json = 1;
        argv[next] = "watch";
    }
    ctl_cmd_t *c = calloc(1, sizeof *c);
    if (!c) return CTL_EXIT_FAIL;
    if (ctl_parse_command(argc - next, argv + next, c, err, sizeof err) < 0) {
        ctl_errorf("%s", err);
        free(c);
        return CTL_EXIT_USAGE;
    }
    if (c->help) {
        fputs(ctl_usage(argv[next]), stdout);
        free(c);
        return 0;
    }
    if (c->json) ctl_opts.json = 1; /* cues --json, stats --cues --json */
    heliod_t *h = NULL;
    /* a control client: people and scripts act on every client's voices */
    int rc = heliod_connect_flags(&h, ctl_opts.socket, "heliodctl", HELIOD_CONNECT_CONTROL);
    ctl_conn = h;
    if (rc < 0) {
        char path[256] = "";
        if (ctl_opts.socket)
            snprintf(path, sizeof path, "%s", ctl_opts.socket);
        else
            heliod_default_socket(path, sizeof path);
        /* the daemon's own refusal ("server full ...") or the system's reason */
        const char *why = heliod_last_error(NULL);
        if (rc == HELIOD_ECONNECT)
            ctl_errorf("%s: is heliod running?", why);
        else
            ctl_errorf("%s: %s: %s", path, hl_errname(rc), why);
        free(c);
        return CTL_EXIT_FAIL;
    }
    heliod_set_timeout(h, ctl_opts.timeout_ms);
    int code;
    switch (c->kind) {
    case CTL_WATCH: code = ctl_run_watch(h); break;
    case CTL_METER: code = ctl_run_meter(h, c); break;
    case CTL_BATCH: code = ctl_run_batch(h, c->file); break;
    case CTL_PLAY: code = c->wait ? ctl_run_play_wait(h, c) : ctl_run_single(h, c); break;
    case CTL_LOAD: code = c->file ? ctl_run_load_stdin(h, c) : ctl_run_single(h, c); break;
    case CTL_BANK:
        code = c->wait && c->m.bank.action == HL_BANK_LOAD ? ctl_run_bank_wait(h, c)
                                                           : ctl_run_single(h, c);
        break;
    case CTL_ZONES: code = c->wait ? ctl_run_zones_watch(h) : ctl_run_single(h, c); break;
    default: code = ctl_run_single(h, c); break;
    }
    heliod_close(h);
    free(c);
    return code;
}
