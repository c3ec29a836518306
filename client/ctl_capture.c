/*
 * ctl_capture.c - `heliodctl capture show FILE [--json]`: the records of a
 * capture file (heliod --capture; PROTOCOL.md "Capture files"), one line
 * each: engine frame, seconds since the capture started, client, command,
 * status (SOUND records: the file's identity; the trailer: its counts). Reads
 * the file only; no daemon is needed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_capfile.h"
#include "ctl_ui.h"
#include "hl_proto.h"

const char ctl_capture_usage[] =
    "usage: heliodctl capture show FILE [--json]\n"
    "  List a capture file's records (heliod --capture FILE): engine frame, seconds\n"
    "  since the capture started, client, command, status; a LOADed file's size,\n"
    "  mtime and hash; the trailer's counts. The state preamble of a capture started\n"
    "  on a running daemon (what was defined before it) is marked `state` with the\n"
    "  object each record defines. A PLAY's reply shows as (reply), a MUSIC's that\n"
    "  started a track as (music reply): the voice it named. --json: one JSON object\n"
    "  a line (kind header, session, request, reply, mreply, sound, close, process\n"
    "  or trailer).\n"
    "  heliod --render FILE --out OUT.wav renders it; heliodctl replay FILE plays it.\n";

static int bad(const char *path, const char *why) {
    fprintf(stderr, "heliodctl: %s: %s\n", path, why);
    return 1;
}

/* A string for JSON: the path may hold any byte but NUL. */
static void json_str(const uint8_t *s, size_t n) {
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\')
            printf("\\%c", s[i]);
        else if (s[i] < 0x20)
            printf("\\u%04x", s[i]);
        else
            putchar(s[i]);
    }
    putchar('"');
}

/* What a state preamble's request defines: its object's name (a bank:
 * its manifest; a listener: its index; a PLAY: its sound; a SET: its
 * voice), or "". */
static void state_what(uint16_t op, const uint8_t *body, size_t len, char *out, size_t cap) {
    hl_rbuf_t r;
    hl_rbuf_init(&r, body, len);
    union {
        hl_load_t load;
        hl_bank_t bank;
        hl_cue_t cue;
        hl_category_t cat;
        hl_param_def_t pdef;
        hl_param_t param;
        hl_bus_t bus;
        hl_fx_req_t fx;
        hl_duck_rule_t duck;
        hl_snapshot_t snap;
        hl_bind_t bind;
        hl_cone_t cone;
        hl_atten_t atten;
        hl_listener_t lis;
        hl_play_t play;
        hl_set_t set;
    } u;
    const char *n = "";
    char idx[32];
    switch (op) {
    case HL_OP_LOAD: hl_get_load(&r, &u.load), n = u.load.name; break;
    case HL_OP_PLAY: hl_get_play(&r, &u.play), n = u.play.sound; break;
    case HL_OP_SET:
        hl_get_set(&r, &u.set);
        snprintf(idx, sizeof idx, "voice %" PRIu64, u.set.voice);
        n = idx;
        break;
    case HL_OP_BANK: hl_get_bank(&r, &u.bank), n = u.bank.arg; break;
    case HL_OP_CUE: hl_get_cue(&r, &u.cue), n = u.cue.name; break;
    case HL_OP_CATEGORY: hl_get_category(&r, &u.cat), n = u.cat.name; break;
    case HL_OP_PARAM_DEF: hl_get_param_def(&r, &u.pdef), n = u.pdef.name; break;
    case HL_OP_PARAM: hl_get_param(&r, &u.param), n = u.param.name; break;
    case HL_OP_BUS: hl_get_bus(&r, &u.bus), n = u.bus.name; break;
    case HL_OP_FX: hl_get_fx_req(&r, &u.fx), n = u.fx.bus; break;
    case HL_OP_DUCK: hl_get_duck_rule(&r, &u.duck), n = u.duck.bus; break;
    case HL_OP_SNAPSHOT: hl_get_snapshot(&r, &u.snap), n = u.snap.name; break;
    case HL_OP_BIND: hl_get_bind(&r, &u.bind), n = u.bind.cue; break;
    case HL_OP_CONE: hl_get_cone(&r, &u.cone), n = u.cone.name; break;
    case HL_OP_ATTEN: hl_get_atten(&r, &u.atten), n = u.atten.name; break;
    case HL_OP_LISTENER:
        hl_get_listener(&r, &u.lis);
        snprintf(idx, sizeof idx, "%u", (unsigned)u.lis.index);
        n = idx;
        break;
    default: break;
    }
    snprintf(out, cap, "%s", r.err ? "" : n);
}

static int show(const char *path, int json) {
    uint8_t *f = NULL;
    size_t n = 0;
    ctl_cap_hdr_t hd;
    char why[128];
    if (ctl_cap_read(path, &f, &n, &hd, why, sizeof why) != 0) return bad(path, why);
    if (json)
        printf("{\"kind\":\"header\",\"version\":%u,\"proto\":\"%u.%u\",\"rate\":%" PRIu32
               ",\"frame\":%" PRIu64 ",\"time_ns\":%" PRIu64 "}\n",
               hd.version, f[10], f[11], hd.rate, hd.frame, ctl_cap_le(f + 24, 8));
    else
        printf("capture v%u, protocol %u.%u, %" PRIu32 " Hz, from frame %" PRIu64 "\n", hd.version,
               f[10], f[11], hd.rate, hd.frame);
    int status = 0, trailer = 0, got;
    size_t off = CTL_CAP_HDR;
    ctl_cap_rec_t r;
    while ((got = ctl_cap_next(f, n, &off, &r)) == 1) {
        if (r.kind == CTL_CAP_REQUEST) {
            uint16_t op = (uint16_t)ctl_cap_le(r.req + 4, 2),
                     flags = (uint16_t)ctl_cap_le(r.req + 6, 2);
            uint32_t id = (uint32_t)ctl_cap_le(r.req + 8, 4);
            const char *name = hl_op_name(op);
            int inp = (r.flags & CTL_CAP_INPERIOD) != 0; /* applied from the next period */
            double t = (double)r.time_ns / 1e9;
            int state = (r.flags & CTL_CAP_STATE) != 0;
            char what[HL_MAX_PATH + 1] = "";
            size_t at = (flags & HL_FLAG_AT) && r.req_len >= HL_FRAME_HDR + 8 ? 8 : 0;
            if (state) /* the object, after a scheduled request's frame */
                state_what(op, r.req + HL_FRAME_HDR + at, r.req_len - HL_FRAME_HDR - at, what,
                           sizeof what);
            if (json) {
                printf("{\"kind\":\"request\",\"frame\":%" PRIu64
                       ",\"time_s\":%.6f,\"client\":%" PRIu32
                       ",\"op\":%u,\"command\":\"%s\",\"flags\":%u,\"id\":%" PRIu32
                       ",\"status\":%" PRId32 ",\"bytes\":%" PRIu32
                       ",\"in_period\":%s,\"late\":%s,\"open\":%s,\"state\":%s",
                       r.frame, t, r.client, op, name ? name : "?", flags, id, r.status, r.req_len,
                       inp ? "true" : "false", (r.flags & CTL_CAP_LATE) ? "true" : "false",
                       (r.flags & CTL_CAP_OPEN) ? "true" : "false", state ? "true" : "false");
                if (state) {
                    printf(",\"object\":");
                    json_str((const uint8_t *)what, strlen(what));
                }
                printf("}\n");
            } else {
                printf("%12" PRIu64 "%c%10.6f client %-4" PRIu32 " %-13s %s%s%s%s%s\n", r.frame,
                       inp ? '+' : ' ', t, r.client, name ? name : "?",
                       r.status ? hl_strerror(r.status) : "ok",
                       (r.flags & CTL_CAP_LATE) ? " late" : "",
                       (r.flags & CTL_CAP_OPEN) ? " open" : "", state ? " state " : "", what);
            }
        } else if (r.kind == CTL_CAP_REPLY || r.kind == CTL_CAP_MREPLY) {
            int music = r.kind == CTL_CAP_MREPLY; /* a MUSIC's reply: the track's voice */
            if (json)
                printf("{\"kind\":\"%s\",\"voice\":%" PRIu64 "}\n", music ? "mreply" : "reply",
                       r.voice);
            else
                printf("%12s %10s %-11s %-13s voice %" PRIu64 "\n", "", "", "",
                       music ? "(music reply)" : "(reply)", r.voice);
        } else if (r.kind == CTL_CAP_SESSION) {
            if (json)
                printf("{\"kind\":\"session\",\"period\":%" PRIu32 ",\"channels\":%" PRIu32
                       ",\"rng\":%" PRIu64 "}\n",
                       r.period, r.channels, r.rng);
            else
                printf("period %" PRIu32 ", %" PRIu32 " channels\n", r.period, r.channels);
        } else if (r.kind == CTL_CAP_PROCESS) {
            if (json)
                printf("{\"kind\":\"process\",\"client\":%" PRIu32 ",\"process\":%" PRIu32 "}\n",
                       r.client, r.process);
            else
                printf("%12s %10s client %-4" PRIu32 " (process %" PRIu32 ")\n", "", "", r.client,
                       r.process);
        } else if (r.kind == CTL_CAP_CLOSE) {
            if (json)
                printf("{\"kind\":\"close\",\"frame\":%" PRIu64 ",\"client\":%" PRIu32 "}\n",
                       r.frame, r.client);
            else
                printf("%12" PRIu64 " %10s client %-4" PRIu32 " (closed)\n", r.frame, "", r.client);
        } else if (r.kind == CTL_CAP_SOUND) {
            if (json) {
                printf("{\"kind\":\"sound\",\"frame\":%" PRIu64 ",\"client\":%" PRIu32
                       ",\"readable\":%s,\"audio\":%s,\"size\":%" PRIu64 ",\"mtime_ns\":%" PRId64
                       ",\"hash\":\"%016" PRIx64 "\",\"path\":",
                       r.frame, r.client, (r.flags & CTL_CAP_NOFILE) ? "false" : "true",
                       r.audio ? "true" : "false", r.size, r.mtime_ns, r.hash);
                json_str((const uint8_t *)r.path, r.path_len);
                printf("}\n");
            } else {
                printf("%12" PRIu64 " %10s client %-4" PRIu32 " %-13s %.*s size %" PRIu64
                       " hash %016" PRIx64 "%s%s\n",
                       r.frame, "", r.client, "(sound)", (int)r.path_len, r.path, r.size, r.hash,
                       (r.flags & CTL_CAP_NOFILE) ? " (unreadable)" : "", r.audio ? " +audio" : "");
            }
        } else if (r.kind == CTL_CAP_TRAILER) {
            trailer = 1;
            if (json)
                printf("{\"kind\":\"trailer\",\"records\":%" PRIu64 ",\"dropped\":%" PRIu64
                       ",\"bytes\":%" PRIu64 ",\"end_frame\":%" PRIu64 "}\n",
                       r.records, r.dropped, r.bytes, r.end);
            else
                printf("end: %" PRIu64 " requests captured, %" PRIu64 " dropped\n", r.records,
                       r.dropped);
        }
    }
    if (got < 0) status = bad(path, "truncated record");
    if (!status && !trailer) fprintf(stderr, "heliodctl: %s: no trailer (cut short)\n", path);
    free(f);
    return status;
}

int ctl_capture_main(int argc, char **argv, int json) {
    const char *file = NULL;
    int show_cmd = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(ctl_capture_usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!show_cmd && !strcmp(argv[i], "show"))
            show_cmd = 1;
        else if (show_cmd && !file && argv[i][0] != '-')
            file = argv[i];
        else {
            fprintf(stderr, "heliodctl: capture: unexpected '%s' (try capture --help)\n", argv[i]);
            return 2;
        }
    }
    if (!show_cmd || !file) {
        fputs(ctl_capture_usage, stderr);
        return 2;
    }
    return show(file, json);
}
