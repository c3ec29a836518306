/*
 * options.c - defaults, INI file and command-line flags (see options.h).
 *
 * The flags are parsed twice: a first pass only looks for --config so the
 * file can be applied before the flags, which then override it. The INI file
 * uses the long flag names as keys ("rate = 44100"); blank lines, lines
 * starting with '#' or ';', and the rest of a line from a '#' or ';' that
 * follows whitespace (an inline comment) are ignored. A "[bus NAME]" section defines a
 * bus (hld_config_bus_t) up to the next header; other "[section]" headers
 * are ignored.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hl_config.h"
#include "hl_limits.h"
#include "hl_mix_part.h"
#include "hl_paths.h"
#include "hl_proto.h"
#include "hld_limits.h"
#include "hld_text.h"
#include "hl_layout.h"
#include "hrtf_load.h"
#include "log.h"
#include "cues.h"
#include "params.h"
#include "vm.h"

enum {
    OPT_SOCKET = 's',
    OPT_DRIVER = 'D',
    OPT_DEVICE = 'd',
    OPT_RATE = 'r',
    OPT_PERIOD = 'p',
    OPT_VOICES = 'n',
    OPT_RECORD = 'R',
    OPT_CONFIG = 'c',
    OPT_HELP = 'h',
    OPT_VERSION = 'V',
    OPT_LIST = 256,
    OPT_LOGLEVEL,
    OPT_MAXMB,
    OPT_VIRTUAL,
    OPT_CUES,
    OPT_SOUNDSPEED,
    OPT_INTERP,
    OPT_FLOOR,
    OPT_MAXCLIENTS,
    OPT_CVOICES,
    OPT_CDETACHED,
    OPT_CSTREAMS,
    OPT_CLOADS,
    OPT_CSAMPLEMB,
    OPT_CCUES,
    OPT_CCATS,
    OPT_CEMITTERS,
    OPT_CBUSES,
    OPT_CRZONES,
    OPT_CPARAMS,
    OPT_CSCHED,
    OPT_LOOPLIFE,
    OPT_CPUBUDGET,
    OPT_HRTF,
    OPT_LAYOUT,
    OPT_MIXTHREADS,
    OPT_ZBUDGET,
    OPT_ZCAP,
    OPT_ZPIN,
    OPT_ZHZ,
    OPT_RENDER,
    OPT_CAPTURE,
    OPT_CAPTURE_AUDIO,
    OPT_OUT,
    OPT_RENDER_EVENTS,
    OPT_MAXSEC,
    OPT_SEED,
    OPT_WATCH,
};

static const struct option g_opts[] = {
    {"socket", required_argument, NULL, OPT_SOCKET},
    {"driver", required_argument, NULL, OPT_DRIVER},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"list-devices", no_argument, NULL, OPT_LIST},
    {"rate", required_argument, NULL, OPT_RATE},
    {"period", required_argument, NULL, OPT_PERIOD},
    {"voices", required_argument, NULL, OPT_VOICES},
    {"record", required_argument, NULL, OPT_RECORD},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"log-level", required_argument, NULL, OPT_LOGLEVEL},
    {"max-sample-mb", required_argument, NULL, OPT_MAXMB},
    {"virtual-voices", required_argument, NULL, OPT_VIRTUAL},
    {"cues", required_argument, NULL, OPT_CUES},
    {"speed-of-sound", required_argument, NULL, OPT_SOUNDSPEED},
    {"interp", required_argument, NULL, OPT_INTERP},
    {"audibility-floor", required_argument, NULL, OPT_FLOOR},
    {"max-clients", required_argument, NULL, OPT_MAXCLIENTS},
    {"client-voices", required_argument, NULL, OPT_CVOICES},
    {"client-detached", required_argument, NULL, OPT_CDETACHED},
    {"client-streams", required_argument, NULL, OPT_CSTREAMS},
    {"client-loads", required_argument, NULL, OPT_CLOADS},
    {"client-scheduled", required_argument, NULL, OPT_CSCHED},
    {"client-sample-mb", required_argument, NULL, OPT_CSAMPLEMB},
    {"client-cues", required_argument, NULL, OPT_CCUES},
    {"client-categories", required_argument, NULL, OPT_CCATS},
    {"client-emitters", required_argument, NULL, OPT_CEMITTERS},
    {"client-buses", required_argument, NULL, OPT_CBUSES},
    {"client-reverb-zones", required_argument, NULL, OPT_CRZONES},
    {"client-params", required_argument, NULL, OPT_CPARAMS},
    {"detached-loop-max-s", required_argument, NULL, OPT_LOOPLIFE},
    {"cpu-budget", required_argument, NULL, OPT_CPUBUDGET},
    {"hrtf", optional_argument, NULL, OPT_HRTF},
    {"layout", required_argument, NULL, OPT_LAYOUT},
    {"mix-threads", required_argument, NULL, OPT_MIXTHREADS},
    {"zone-budget-kb", required_argument, NULL, OPT_ZBUDGET},
    {"zone-cap-mb", required_argument, NULL, OPT_ZCAP},
    {"zone-pin-radius", required_argument, NULL, OPT_ZPIN},
    {"zone-tick-hz", required_argument, NULL, OPT_ZHZ},
    {"render", required_argument, NULL, OPT_RENDER},
    {"capture", required_argument, NULL, OPT_CAPTURE},
    {"capture-audio", no_argument, NULL, OPT_CAPTURE_AUDIO},
    {"out", required_argument, NULL, OPT_OUT},
    {"render-events", required_argument, NULL, OPT_RENDER_EVENTS},
    {"max-seconds", required_argument, NULL, OPT_MAXSEC},
    {"seed", required_argument, NULL, OPT_SEED},
    {"watch-assets", optional_argument, NULL, OPT_WATCH},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *f) {
    fprintf(f,
            "Usage: heliod [OPTION]...\n"
            "Real-time game-audio engine daemon: plays sounds for clients on a Unix socket.\n\n"
            "  --socket PATH        listen here (default $HELIOD_SOCKET, else\n"
            "                       $XDG_RUNTIME_DIR/heliod/heliod.sock, else\n"
            "                       /tmp/heliod-$UID/heliod.sock: that directory must be\n"
            "                       ours with mode 0700)\n"
            "  --driver auto|portaudio|null\n"
            "                       output driver (default auto: PortAudio, else null)\n"
            "  --device NAME        PortAudio output device (exact name or substring)\n"
            "  --list-devices       print the output devices and exit\n"
            "  --rate HZ            engine sample rate (default %d)\n"
            "  --period FRAMES      device period (default %d)\n"
            "  --voices N           real (mixed) voices, 1..%d (default %d)\n"
            "  --virtual-voices M   logical voices, real or virtual, N..%d (default 4 x N,\n"
            "                       at least 1024)\n"
            "  --cues FILE          cue sheet (INI: [cue NAME], [category NAME]) to load\n"
            "  --speed-of-sound M_S for Doppler, m/s (default 343.3)\n"
            "  --interp I           interpolator of plays and cues that name none: linear,\n"
            "                       cubic or sinc (band-limited; README: which when) (default\n"
            "                       linear)\n"
            "  --audibility-floor DB  quieter voices are virtual (default -60)\n"
            "  --cpu-budget PCT     keep the audio callback under PCT%% of the period by\n"
            "                       making the least important voices virtual (default %d;\n"
            "                       10..95, or 0 for no governor)\n"
            "  --hrtf[=FILE.sofa]   headphones: render 3D voices binaurally with the HRTF\n"
            "                       of a SOFA file (default: libmysofa's default set,\n"
            "                       " HLD_HRTF_DEFAULT_PATH ");\n"
            "                       off unless given (config: hrtf = off|default|FILE)\n"
            "  --layout L           output speakers: stereo, quad, 5.1, 7.1 or 7.1.4\n"
            "                       (default stereo; 7.1.4: 3D voices panned with height);\n"
            "                       the device must open that many channels;\n"
            "                       --hrtf needs stereo\n"
            "  --record FILE.wav    record the master output (the layout's channels and\n"
            "                       WAVE channel mask)\n"
            "  --capture FILE       capture the session: every request that changes engine\n"
            "                       state, from every client, with its engine frame and\n"
            "                       status, and the identity of every LOADed file\n"
            "                       (PROTOCOL.md, Capture files); --capture-audio: the\n"
            "                       files' bytes too\n"
            "  --render SCORE --out FILE.wav [--seed N]\n"
            "                       render a score offline, as fast as the CPU allows, and\n"
            "                       exit: a heliodctl batch file whose lines may start\n"
            "                       with @FRAME or @+MS (from the render's start), '{' '}'\n"
            "                       bundles, an optional last line '@TIME end' and first\n"
            "                       line 'seed N'; no\n"
            "                       socket, no device; the same score and build give a\n"
            "                       byte-identical file (--seed: cue variations)\n"
            "  --render CAPTURE --out FILE.wav\n"
            "                       replay a session capture (--capture) offline: each\n"
            "                       request on the engine frame it took effect on, the\n"
            "                       loaded files checked (or the captured bytes); give\n"
            "                       the capture's --period\n"
            "  --render-events FILE --render: write the BEAT and BAR events of music\n"
            "                       voices as lines 'beat|bar VOICE FRAME BEAT BAR\n"
            "                       BEAT_IN_BAR BPM' (tempo maps: README)\n"
            "  --max-seconds S      --render: the longest output (default 600, at most\n"
            "                       14400); a score timed beyond it is refused, a render\n"
            "                       still playing there stops with an error\n"
            "  --config FILE        INI file with the same keys (flags win)\n"
            "  --log-level LEVEL    error, warn, info (default) or debug\n"
            "  --max-sample-mb N    sample-memory budget: over it, unplayed unpinned sounds\n"
            "                       are evicted least recently played first (default %d)\n",
            HLD_DEFAULT_RATE, HLD_DEFAULT_PERIOD, HL_MAX_VOICES, HL_DEFAULT_VOICES, HLD_MAX_LOGICAL,
            HLD_GOV_DEFAULT_PCT, HL_MAX_SAMPLE_MB);
    /* in two parts: C11 promises string literals of 4095 bytes, no more */
    fprintf(f,
            "  --mix-threads N      threads that mix a scene of more than %d voices, the\n"
            "                       audio thread included, 1..%d (default: the CPUs heliod\n"
            "                       may run on, at most %d); the output is the same to the\n"
            "                       bit with any N\n"
            "  --watch-assets[=yes|no]\n"
            "                       hot reload: a loaded file (preloaded or streamed) that\n"
            "                       changes on disk (rewritten, or renamed over) is decoded\n"
            "                       again in the background; new plays get the new data,\n"
            "                       voices playing finish on the old (default no;\n"
            "                       config: watch-assets = yes)\n"
            "  --zone-budget-kb N   world zones: decoding started per tick (default 4096)\n"
            "  --zone-cap-mb N      world zones: resident + loading cap (default 256)\n"
            "  --zone-pin-radius M  world zones this near are never evicted (default 0)\n"
            "  --zone-tick-hz N     world-zone scheduler ticks a second (default 20)\n"
            "  --max-clients N      connections at once, 1..%d (default %d); more are\n"
            "                       refused with \"server full\" (%d more places are kept\n"
            "                       for control clients such as heliodctl)\n"
            "Per-client quotas (a client is a process: all its connections share one\n"
            "budget; a refusal is EQUOTA naming the quota):\n"
            "  --client-voices N    voices one client holds, detached ones included\n"
            "                       (default half of --virtual-voices)\n"
            "  --client-detached N  detached voices one client holds (default half of\n"
            "                       --virtual-voices)\n"
            "  --client-streams N   streamed voices one client holds, 1..%d (default %d)\n"
            "  --client-loads N     loads one client has decoding, 1..%d (default %d)\n"
            "  --client-sample-mb N decoded sample memory of one client's sounds\n"
            "                       (default half of --max-sample-mb)\n"
            "  --client-cues N, --client-categories N, --client-emitters N,\n"
            "  --client-buses N, --client-reverb-zones N, --client-params N\n"
            "                       named objects one client process creates and holds\n"
            "                       (defaults %d, %d, %d, %d, %d, %d: a quarter of each table)\n"
            "  --client-scheduled N scheduled commands one client has pending, 1..%d\n"
            "                       (default %d; beyond is EBUSY naming this option)\n"
            "  --detached-loop-max-s S  end detached loops after S seconds (default 0: never)\n"
            "  --help, --version\n",
            HL_MIX_PART_MIN, HL_MIX_THREADS, HL_MIX_THREADS, HL_MAX_CLIENTS, HL_MAX_CLIENTS,
            HLD_CONTROL_PLACES, HL_MAX_STREAMS, HL_MAX_STREAMS / HLD_QUOTA_STREAMS_DIV,
            HL_MAX_LOADS_INFLIGHT, HL_MAX_LOADS_INFLIGHT / HLD_QUOTA_LOADS_DIV,
            HLD_MAX_CUES / HLD_QUOTA_OBJ_DIV, HLD_MAX_CATEGORIES / HLD_QUOTA_OBJ_DIV,
            HLD_MAX_EMITTERS / HLD_QUOTA_OBJ_DIV, HL_MAX_BUSES / HLD_QUOTA_OBJ_DIV,
            HL_MAX_RZONES / HLD_QUOTA_OBJ_DIV, HLD_MAX_PARAMS / HLD_QUOTA_OBJ_DIV, HL_SCHED_MAX,
            HL_SCHED_MAX / HLD_QUOTA_SCHED_DIV);
}

int hld_config_default_socket(char *buf, size_t cap) {
    return hl_default_socket_path(buf, cap, NULL) == 0 ? 0 : HELIOD_ETOOBIG;
}

static int parse_u32(const char *what, const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "heliod: %s must be an integer in %u..%u (got '%s')\n", what, lo, hi, s);
        return HELIOD_EINVAL;
    }
    *out = (uint32_t)v;
    return 0;
}

static int parse_float(const char *what, const char *s, double lo, double hi, float *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "heliod: %s must be a number in %g..%g (got '%s')\n", what, lo, hi, s);
        return HELIOD_EINVAL;
    }
    *out = (float)v;
    return 0;
}

static int copy_str(const char *what, char *dst, size_t cap, const char *s) {
    size_t n = strlen(s);
    if (n >= cap) {
        fprintf(stderr, "heliod: %s is too long (%zu bytes, at most %zu)\n", what, n, cap - 1);
        return HELIOD_EINVAL;
    }
    memcpy(dst, s, n + 1);
    return 0;
}

/* Applies one setting by its option code; shared by the INI and the flags. */
static int apply(hld_config_t *c, int opt, const char *val) {
    switch (opt) {
    case OPT_SOCKET: return copy_str("--socket", c->socket_path, sizeof c->socket_path, val);
    case OPT_DRIVER:
        if (strcmp(val, "auto") == 0)
            c->driver = HLD_DRIVER_AUTO;
        else if (strcmp(val, "portaudio") == 0)
            c->driver = HLD_DRIVER_PORTAUDIO;
        else if (strcmp(val, "null") == 0)
            c->driver = HLD_DRIVER_NULL;
        else {
            fprintf(stderr, "heliod: --driver must be auto, portaudio or null (got '%s')\n", val);
            return HELIOD_EINVAL;
        }
        return 0;
    case OPT_DEVICE: return copy_str("--device", c->device, sizeof c->device, val);
    case OPT_LIST: c->list_devices = 1; return 0;
    case OPT_RATE: return parse_u32("--rate", val, HLD_MIN_RATE, HLD_MAX_RATE, &c->rate);
    case OPT_PERIOD: return parse_u32("--period", val, HLD_MIN_PERIOD, HLD_MAX_PERIOD, &c->period);
    case OPT_VOICES: return parse_u32("--voices", val, 1, HL_MAX_VOICES, &c->voices);
    case OPT_MIXTHREADS: return parse_u32("--mix-threads", val, 1, HL_MIX_THREADS, &c->mix_threads);
    case OPT_RECORD: return copy_str("--record", c->record, sizeof c->record, val);
    case OPT_RENDER: return copy_str("--render", c->render, sizeof c->render, val);
    case OPT_CAPTURE: return copy_str("--capture", c->capture, sizeof c->capture, val);
    case OPT_CAPTURE_AUDIO: c->capture_audio = 1; return 0;
    case OPT_OUT: return copy_str("--out", c->out, sizeof c->out, val);
    case OPT_RENDER_EVENTS:
        return copy_str("--render-events", c->render_events, sizeof c->render_events, val);
    case OPT_MAXSEC:
        return parse_u32("--max-seconds", val, 1, HLD_RENDER_MAX_SECONDS, &c->render_max_s);
    case OPT_SEED: {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(val, &end, 10);
        if (errno || end == val || *end || val[0] == '-') {
            fprintf(stderr, "heliod: --seed must be a non-negative integer (got '%s')\n", val);
            return HELIOD_EINVAL;
        }
        c->seed = v;
        return 0;
    }
    case OPT_LOGLEVEL: {
        int l = hld_log_parse_level(val);
        if (l < 0) {
            fprintf(stderr, "heliod: --log-level must be error, warn, info or debug\n");
            return HELIOD_EINVAL;
        }
        c->log_level = l;
        return 0;
    }
    case OPT_MAXMB: return parse_u32("--max-sample-mb", val, 1, UINT32_MAX / 2, &c->max_sample_mb);
    case OPT_VIRTUAL:
        return parse_u32("--virtual-voices", val, 1, HLD_MAX_LOGICAL, &c->virtual_voices);
    case OPT_CUES: return copy_str("--cues", c->cues, sizeof c->cues, val);
    case OPT_SOUNDSPEED:
        return parse_float("--speed-of-sound", val, 1.0, 100000.0, &c->speed_of_sound);
    case OPT_INTERP:
        if (strcmp(val, "linear") == 0)
            c->interp_flags = 0;
        else if (strcmp(val, "cubic") == 0)
            c->interp_flags = HL_PLAY_CUBIC;
        else if (strcmp(val, "sinc") == 0)
            c->interp_flags = HL_PLAY_SINC;
        else {
            fprintf(stderr, "heliod: --interp must be linear, cubic or sinc\n");
            return HELIOD_EINVAL;
        }
        return 0;
    case OPT_FLOOR: return parse_float("--audibility-floor", val, -144.0, 0.0, &c->floor_db);
    case OPT_MAXCLIENTS: return parse_u32("--max-clients", val, 1, HL_MAX_CLIENTS, &c->max_clients);
    case OPT_CVOICES:
        return parse_u32("--client-voices", val, 1, HLD_MAX_LOGICAL, &c->client_voices);
    case OPT_CDETACHED:
        return parse_u32("--client-detached", val, 1, HLD_MAX_LOGICAL, &c->client_detached);
    case OPT_CSTREAMS:
        return parse_u32("--client-streams", val, 1, HL_MAX_STREAMS, &c->client_streams);
    case OPT_CLOADS:
        return parse_u32("--client-loads", val, 1, HL_MAX_LOADS_INFLIGHT, &c->client_loads);
    case OPT_CSCHED:
        return parse_u32("--client-scheduled", val, 1, HL_SCHED_MAX, &c->client_scheduled);
    case OPT_CSAMPLEMB:
        return parse_u32("--client-sample-mb", val, 1, UINT32_MAX / 2, &c->client_sample_mb);
    case OPT_CCUES: return parse_u32("--client-cues", val, 1, HLD_MAX_CUES, &c->client_cues);
    case OPT_CCATS:
        return parse_u32("--client-categories", val, 1, HLD_MAX_CATEGORIES, &c->client_categories);
    case OPT_CEMITTERS:
        return parse_u32("--client-emitters", val, 1, HLD_MAX_EMITTERS, &c->client_emitters);
    case OPT_CBUSES: return parse_u32("--client-buses", val, 1, HL_MAX_BUSES, &c->client_buses);
    case OPT_CRZONES:
        return parse_u32("--client-reverb-zones", val, 1, HL_MAX_RZONES, &c->client_rzones);
    case OPT_CPARAMS:
        return parse_u32("--client-params", val, 1, HLD_MAX_PARAMS, &c->client_params);
    case OPT_ZBUDGET:
        return parse_u32("--zone-budget-kb", val, 1, UINT32_MAX / 2, &c->zone_budget_kb);
    case OPT_ZCAP: return parse_u32("--zone-cap-mb", val, 1, UINT32_MAX / 2, &c->zone_cap_mb);
    case OPT_ZPIN: return parse_float("--zone-pin-radius", val, 0.0, 1e6, &c->zone_pin_radius);
    case OPT_ZHZ: return parse_u32("--zone-tick-hz", val, 1, 1000, &c->zone_tick_hz);
    case OPT_CPUBUDGET: {
        int rc = parse_float("--cpu-budget", val, 0.0, 95.0, &c->cpu_budget);
        if (rc == 0 && c->cpu_budget > 0 && c->cpu_budget < 10) {
            fprintf(stderr, "heliod: --cpu-budget must be 0 (off) or 10..95 (got '%s')\n", val);
            return HELIOD_EINVAL;
        }
        return rc;
    }
    case OPT_HRTF: /* no value (the bare flag) or "default": the libmysofa set */
        if (!val || !val[0] || strcmp(val, "default") == 0 || strcmp(val, "on") == 0) {
            c->hrtf = 1;
            c->hrtf_path[0] = '\0';
            return 0;
        }
        if (strcmp(val, "off") == 0) {
            c->hrtf = 0;
            c->hrtf_path[0] = '\0';
            return 0;
        }
        c->hrtf = 1;
        return copy_str("--hrtf", c->hrtf_path, sizeof c->hrtf_path, val);
    case OPT_LAYOUT: {
        int l = hl_layout_parse(val);
        if (l < 0) {
            fprintf(stderr, "heliod: --layout must be stereo, quad, 5.1, 7.1 or 7.1.4 (got '%s')\n",
                    val ? val : "");
            return HELIOD_EINVAL;
        }
        c->layout = (uint32_t)l;
        c->channels = hl_layout_channels((hl_layout_t)l);
        return 0;
    }
    case OPT_WATCH: /* the bare flag, or yes|no (the config file's form) */
        if (!val || !val[0] || strcmp(val, "yes") == 0 || strcmp(val, "on") == 0 ||
            strcmp(val, "1") == 0) {
            c->watch_assets = 1;
            return 0;
        }
        if (strcmp(val, "no") == 0 || strcmp(val, "off") == 0 || strcmp(val, "0") == 0) {
            c->watch_assets = 0;
            return 0;
        }
        fprintf(stderr, "heliod: --watch-assets: '%s' is not yes or no\n", val);
        return HELIOD_EINVAL;
    case OPT_LOOPLIFE:
        return parse_float("--detached-loop-max-s", val, 0.0, 1e7, &c->detached_loop_max_s);
    default: return HELIOD_EINVAL;
    }
}

/* "[bus NAME]" starts a bus section (*bus = it); any other header ends one. */
static int bus_section(hld_config_t *c, char *s, const char *path, int lineno,
                       hld_config_bus_t **bus) {
    *bus = NULL;
    size_t n = strlen(s);
    if (s[n - 1] != ']') {
        fprintf(stderr, "heliod: %s:%d: a section header ends with ]\n", path, lineno);
        return HELIOD_EINVAL;
    }
    s[n - 1] = '\0';
    char *h = hld_trim(s + 1);
    if (strncmp(h, "bus", 3) != 0 || (h[3] != ' ' && h[3] != '\t')) return 0;
    char *name = hld_trim(h + 3);
    if (!hl_name_valid(name) || strcmp(name, "master") == 0) {
        fprintf(stderr, "heliod: %s:%d: [bus %s]: not a valid bus name\n", path, lineno, name);
        return HELIOD_EINVAL;
    }
    if (c->n_buses >= HL_MAX_BUSES) {
        fprintf(stderr, "heliod: %s:%d: more than %d buses\n", path, lineno, HL_MAX_BUSES);
        return HELIOD_EINVAL;
    }
    hld_config_bus_t *nb = realloc(c->buses, (c->n_buses + 1) * sizeof *nb);
    if (!nb) return HELIOD_ENOMEM;
    c->buses = nb;
    *bus = &nb[c->n_buses++];
    memset(*bus, 0, sizeof **bus);
    snprintf((*bus)->name, sizeof(*bus)->name, "%s", name);
    snprintf((*bus)->file, sizeof(*bus)->file, "%s", path);
    (*bus)->line = lineno;
    (*bus)->duck[0] = HL_DUCK_DEPTH_DB;
    (*bus)->duck[1] = HL_DUCK_THRESHOLD_DB;
    (*bus)->duck[2] = HL_DUCK_ATTACK_MS;
    (*bus)->duck[3] = HL_DUCK_HOLD_MS;
    (*bus)->duck[4] = HL_DUCK_RELEASE_MS;
    return 0;
}

static int bus_key(hld_config_bus_t *b, const char *key, const char *val) {
    static const char *const duck_keys[5] = {"duck-depth", "duck-threshold", "duck-attack",
                                             "duck-hold", "duck-release"};
    char *end = NULL;
    if (strcmp(key, "parent") == 0 || strcmp(key, "duck-by") == 0) {
        if (!hl_name_valid(val)) {
            fprintf(stderr, "heliod: [bus %s] %s = %s: not a bus name\n", b->name, key, val);
            return HELIOD_EINVAL;
        }
        snprintf(key[0] == 'p' ? b->parent : b->duck_by, HL_MAX_NAME + 1, "%s", val);
        return 0;
    }
    if (strcmp(key, "fx") == 0) {
        if (b->nfx >= HLD_MAX_CONFIG_FX || strlen(val) >= sizeof b->fx[0]) {
            fprintf(stderr, "heliod: [bus %s]: too many or too long fx lines\n", b->name);
            return HELIOD_EINVAL;
        }
        snprintf(b->fx[b->nfx++], sizeof b->fx[0], "%s", val);
        return 0;
    }
    float v = strtof(val, &end);
    if (!end || end == val || *end) {
        fprintf(stderr, "heliod: [bus %s] %s = %s: not a number\n", b->name, key, val);
        return HELIOD_EINVAL;
    }
    if (strcmp(key, "gain") == 0) {
        b->gain_db = v;
        b->has_gain = 1;
        return 0;
    }
    if (strcmp(key, "mute") == 0) {
        b->mute = v != 0.0f;
        return 0;
    }
    for (int i = 0; i < 5; i++)
        if (strcmp(key, duck_keys[i]) == 0) {
            b->duck[i] = v;
            return 0;
        }
    fprintf(stderr,
            "heliod: [bus %s]: unknown key '%s' (parent, gain, mute, fx, duck-by, duck-depth, "
            "duck-threshold, duck-attack, duck-hold, duck-release)\n",
            b->name, key);
    return HELIOD_EINVAL;
}

static int load_file(hld_config_t *c, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "heliod: cannot open config %s: %s\n", path, strerror(errno));
        return HELIOD_EINVAL;
    }
    char line[HLD_MAX_CONFIG_LINE];
    int lineno = 0, rc = 0;
    hld_config_bus_t *bus = NULL; /* inside a [bus NAME] section */
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *s = hld_trim(line);
        if (!*s || *s == '#' || *s == ';') continue;
        /* an inline comment: '#' or ';' after whitespace ends the line */
        for (char *c = s + 1; *c; c++)
            if ((*c == '#' || *c == ';') && (c[-1] == ' ' || c[-1] == '\t')) {
                *c = '\0';
                s = hld_trim(s);
                break;
            }
        if (*s == '[') {
            rc = bus_section(c, s, path, lineno, &bus);
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            fprintf(stderr, "heliod: %s:%d: expected key = value\n", path, lineno);
            rc = HELIOD_EINVAL;
            break;
        }
        *eq = '\0';
        char *key = hld_trim(s), *val = hld_trim(eq + 1);
        size_t vn = strlen(val);
        if (vn >= 2 && val[0] == '"' && val[vn - 1] == '"') {
            val[vn - 1] = '\0';
            val++;
        }
        if (bus) {
            rc = bus_key(bus, key, val);
            if (rc) fprintf(stderr, "heliod: (in %s:%d)\n", path, lineno);
            continue;
        }
        const struct option *o = g_opts;
        while (o->name && strcmp(o->name, key) != 0)
            o++;
        if (!o->name || o->val == OPT_CONFIG || o->val == OPT_HELP || o->val == OPT_VERSION ||
            o->val == OPT_LIST) {
            fprintf(stderr, "heliod: %s:%d: unknown key '%s'\n", path, lineno, key);
            rc = HELIOD_EINVAL;
            break;
        }
        rc = apply(c, o->val, val);
        if (rc) fprintf(stderr, "heliod: (in %s:%d)\n", path, lineno);
    }
    fclose(f);
    return rc;
}

void hld_config_free(hld_config_t *c) {
    free(c->buses);
    c->buses = NULL;
    c->n_buses = 0;
}

int hld_config_load(hld_config_t *c, int argc, char **argv) {
    memset(c, 0, sizeof *c);
    c->driver = HLD_DRIVER_AUTO;
    c->rate = HLD_DEFAULT_RATE;
    c->layout = HL_LAYOUT_STEREO;
    c->channels = HLD_CHANNELS;
    c->period = HLD_DEFAULT_PERIOD;
    c->voices = HL_DEFAULT_VOICES;
    c->log_level = HLD_LOG_INFO;
    c->max_sample_mb = HL_MAX_SAMPLE_MB;
    c->speed_of_sound = HL_SPEED_OF_SOUND;
    c->floor_db = HLD_VM_FLOOR_DB;
    c->max_clients = HL_MAX_CLIENTS;
    c->cpu_budget = HLD_GOV_DEFAULT_PCT;

    const char *config = NULL;
    int opt;
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", g_opts, NULL)) != -1) {
        if (opt == OPT_CONFIG) config = optarg;
        if (opt == OPT_HELP) {
            usage(stdout);
            return 1;
        }
        if (opt == OPT_VERSION) {
            printf("heliod %s\n", HELIOD_VERSION);
            return 1;
        }
    }
    if (config) {
        int rc = load_file(c, config);
        if (rc) return rc;
    }
    opterr = 1;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", g_opts, NULL)) != -1) {
        if (opt == '?' || opt == ':') {
            usage(stderr);
            return HELIOD_EINVAL;
        }
        if (opt == OPT_CONFIG) continue;
        int rc = apply(c, opt, optarg);
        if (rc) return rc;
    }
    if (optind < argc) {
        fprintf(stderr, "heliod: unexpected argument '%s'\n", argv[optind]);
        return HELIOD_EINVAL;
    }
    if (c->render_events[0] && !c->render[0]) {
        fprintf(stderr, "heliod: --render-events goes with --render\n");
        return HELIOD_EINVAL;
    }
    if (c->render[0] || c->out[0]) {
        if (!c->render[0] || !c->out[0]) {
            fprintf(stderr, "heliod: --render SCORE and --out FILE.wav go together\n");
            return HELIOD_EINVAL;
        }
        /* no device; and no governor: it would shed voices by how long the
         * CPU took, which is not the same from one render to the next */
        c->driver = HLD_DRIVER_RENDER;
        c->cpu_budget = 0;
    }
    if (c->hrtf && c->layout != HL_LAYOUT_STEREO) {
        fprintf(stderr,
                "heliod: --hrtf renders for headphones and needs --layout stereo (got "
                "--layout %s)\n",
                hl_layout_name((hl_layout_t)c->layout));
        return HELIOD_EINVAL;
    }
    if (c->virtual_voices == 0) { /* 4 per real voice, at least 1024: virtual ones are cheap */
        uint32_t v =
            c->voices * 4 > HLD_DEFAULT_LOGICAL_MIN ? c->voices * 4 : HLD_DEFAULT_LOGICAL_MIN;
        c->virtual_voices = v > HLD_MAX_LOGICAL ? HLD_MAX_LOGICAL : v;
    }
    if (c->virtual_voices < c->voices) {
        fprintf(stderr, "heliod: --virtual-voices (%u) must be at least --voices (%u)\n",
                c->virtual_voices, c->voices);
        return HELIOD_EINVAL;
    }
    /* quotas: the defaults leave every shared resource at least half free */
    uint32_t L = c->virtual_voices;
    int given_voices = c->client_voices != 0, given_detached = c->client_detached != 0;
    if (!c->client_voices)
        c->client_voices = L / HLD_QUOTA_VOICES_DIV ? L / HLD_QUOTA_VOICES_DIV : 1;
    if (!c->client_detached)
        c->client_detached = L / HLD_QUOTA_DETACHED_DIV ? L / HLD_QUOTA_DETACHED_DIV : 1;
    if (c->driver == HLD_DRIVER_RENDER) {        /* one client, the score: the whole pool is its */
        if (!given_voices) c->client_voices = L; /* given: a capture's live quota */
        if (!given_detached) c->client_detached = L;
    }
    if (!c->client_streams) c->client_streams = HL_MAX_STREAMS / HLD_QUOTA_STREAMS_DIV;
    if (!c->client_loads) c->client_loads = HL_MAX_LOADS_INFLIGHT / HLD_QUOTA_LOADS_DIV;
    if (!c->client_scheduled)
        c->client_scheduled =
            c->driver == HLD_DRIVER_RENDER ? HL_SCHED_MAX : HL_SCHED_MAX / HLD_QUOTA_SCHED_DIV;
    if (!c->client_sample_mb)
        c->client_sample_mb =
            c->max_sample_mb / HLD_QUOTA_BYTES_DIV ? c->max_sample_mb / HLD_QUOTA_BYTES_DIV : 1;
    if (!c->client_cues) c->client_cues = HLD_MAX_CUES / HLD_QUOTA_OBJ_DIV;
    if (!c->client_categories) c->client_categories = HLD_MAX_CATEGORIES / HLD_QUOTA_OBJ_DIV;
    if (!c->client_emitters) c->client_emitters = HLD_MAX_EMITTERS / HLD_QUOTA_OBJ_DIV;
    if (!c->client_buses) c->client_buses = HL_MAX_BUSES / HLD_QUOTA_OBJ_DIV;
    if (!c->client_rzones) c->client_rzones = HL_MAX_RZONES / HLD_QUOTA_OBJ_DIV;
    if (!c->client_params) c->client_params = HLD_MAX_PARAMS / HLD_QUOTA_OBJ_DIV;
    if (!c->socket_path[0] &&
        hld_config_default_socket(c->socket_path, sizeof c->socket_path) != 0) {
        fprintf(stderr, "heliod: the default socket path is too long; use --socket\n");
        return HELIOD_EINVAL;
    }
    return 0;
}
