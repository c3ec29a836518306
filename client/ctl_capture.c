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

#include "ctl_ui.h"
#include "hl_proto.h"

const char ctl_capture_usage[] =
    "usage: heliodctl capture show FILE [--json]\n"
    "  List a capture file's records (heliod --capture FILE): engine frame, seconds\n"
    "  since the capture started, client, command, status; a LOADed file's size,\n"
    "  mtime and hash; the trailer's counts. --json: one JSON object a line.\n"
    "  heliod --render FILE --out OUT.wav renders it; heliodctl replay FILE plays it.\n";

static uint16_t g16(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t g32(const uint8_t *p) {
    return g16(p) | (uint32_t)g16(p + 2) << 16;
}
static uint64_t g64(const uint8_t *p) {
    return g32(p) | (uint64_t)g32(p + 4) << 32;
}

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

static int show(const char *path, int json) {
    FILE *f = fopen(path, "rb");
    if (!f) return bad(path, "cannot open");
    uint8_t h[32];
    if (fread(h, 1, sizeof h, f) != sizeof h || memcmp(h, "HLDCAPT\n", 8) != 0) {
        fclose(f);
        return bad(path, "not a heliod capture file");
    }
    unsigned version = g16(h + 8);
    if (version != 1 && version != 2) {
        fclose(f);
        return bad(path, "capture format version not supported (this heliodctl reads 1 and 2)");
    }
    uint32_t rate = g32(h + 12);
    uint64_t frame0 = g64(h + 16);
    if (json)
        printf("{\"kind\":\"header\",\"version\":%u,\"proto\":\"%u.%u\",\"rate\":%" PRIu32
               ",\"frame\":%" PRIu64 ",\"time_ns\":%" PRIu64 "}\n",
               version, h[10], h[11], rate, frame0, g64(h + 24));
    else
        printf("capture v%u, protocol %u.%u, %" PRIu32 " Hz, from frame %" PRIu64 "\n", version,
               h[10], h[11], rate, frame0);
    uint8_t *r = NULL;
    int status = 0, trailer = 0;
    for (;;) {
        uint8_t lb[4];
        size_t got = fread(lb, 1, 4, f);
        if (got == 0) break;
        uint32_t len = got == 4 ? g32(lb) : 0;
        uint8_t *nr = len ? realloc(r, len) : NULL;
        if (!nr || fread(nr, 1, len, f) != len) {
            if (nr) r = nr;
            status = bad(path, "truncated record");
            break;
        }
        r = nr;
        if (r[0] == 1 && len >= 28 + HL_FRAME_HDR) {
            uint64_t frame = g64(r + 4);
            double t = (double)g64(r + 12) / 1e9;
            uint32_t client = g32(r + 20);
            int32_t st = (int32_t)g32(r + 24);
            uint16_t op = g16(r + 32), flags = g16(r + 34);
            uint32_t id = g32(r + 36);
            const char *name = hl_op_name(op);
            int inp = (r[1] & 1) != 0; /* applied from the next period */
            if (json)
                printf("{\"kind\":\"request\",\"frame\":%" PRIu64
                       ",\"time_s\":%.6f,\"client\":%" PRIu32
                       ",\"op\":%u,\"command\":\"%s\",\"flags\":%u,\"id\":%" PRIu32
                       ",\"status\":%" PRId32 ",\"bytes\":%" PRIu32 ",\"in_period\":%s}\n",
                       frame, t, client, op, name ? name : "?", flags, id, st, len - 28,
                       inp ? "true" : "false");
            else
                printf("%12" PRIu64 "%c%10.6f client %-4" PRIu32 " %-13s %s\n", frame,
                       inp ? '+' : ' ', t, client, name ? name : "?", st ? hl_strerror(st) : "ok");
        } else if (r[0] == 4 && len >= 12) {
            if (json)
                printf("{\"kind\":\"reply\",\"voice\":%" PRIu64 "}\n", g64(r + 4));
            else
                printf("%12s %10s %-11s %-13s voice %" PRIu64 "\n", "", "", "", "(reply)",
                       g64(r + 4));
        } else if (r[0] == 5 && len >= 20) {
            if (json)
                printf("{\"kind\":\"session\",\"period\":%" PRIu32 ",\"channels\":%" PRIu32
                       ",\"rng\":%" PRIu64 "}\n",
                       g32(r + 4), g32(r + 8), g64(r + 12));
            else
                printf("period %" PRIu32 ", %" PRIu32 " channels\n", g32(r + 4), g32(r + 8));
        } else if (r[0] == 6 && len >= 16) {
            if (json)
                printf("{\"kind\":\"close\",\"frame\":%" PRIu64 ",\"client\":%" PRIu32 "}\n",
                       g64(r + 4), g32(r + 12));
            else
                printf("%12" PRIu64 " %10s client %-4" PRIu32 " (closed)\n", g64(r + 4), "",
                       g32(r + 12));
        } else if (r[0] == 2 && len >= 42 && len >= 42u + g16(r + 40)) {
            uint16_t pl = g16(r + 40);
            if (json) {
                printf("{\"kind\":\"sound\",\"frame\":%" PRIu64 ",\"client\":%" PRIu32
                       ",\"readable\":%s,\"audio\":%s,\"size\":%" PRIu64 ",\"mtime_ns\":%" PRId64
                       ",\"hash\":\"%016" PRIx64 "\",\"path\":",
                       g64(r + 8), g32(r + 4), (r[1] & 1) ? "false" : "true",
                       (r[1] & 2) ? "true" : "false", g64(r + 16), (int64_t)g64(r + 24),
                       g64(r + 32));
                json_str(r + 42, pl);
                printf("}\n");
            } else {
                printf("%12" PRIu64 " %10s client %-4" PRIu32 " %-13s %.*s size %" PRIu64
                       " hash %016" PRIx64 "%s%s\n",
                       g64(r + 8), "", g32(r + 4), "(sound)", (int)pl, (const char *)(r + 42),
                       g64(r + 16), g64(r + 32), (r[1] & 1) ? " (unreadable)" : "",
                       (r[1] & 2) ? " +audio" : "");
            }
        } else if (r[0] == 3 && len >= 28) {
            trailer = 1;
            if (json)
                printf("{\"kind\":\"trailer\",\"records\":%" PRIu64 ",\"dropped\":%" PRIu64
                       ",\"bytes\":%" PRIu64 ",\"end_frame\":%" PRIu64 "}\n",
                       g64(r + 4), g64(r + 12), g64(r + 20), len >= 36 ? g64(r + 28) : 0);
            else
                printf("end: %" PRIu64 " requests captured, %" PRIu64 " dropped\n", g64(r + 4),
                       g64(r + 12));
        } else {
            status = bad(path, "unknown or short record");
            break;
        }
    }
    if (!status && !trailer) fprintf(stderr, "heliodctl: %s: no trailer (cut short)\n", path);
    free(r);
    fclose(f);
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
